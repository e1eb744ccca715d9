//! What `argus client` does with records it cannot trust: a well-formed record whose
//! position it cannot reconcile is dropped, never answered from the client's own board,
//! and the client signs on again to be resynchronised (profile section 5, `fault`). The
//! test plays the referee on a pty pair.

#![cfg(unix)]

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use argus::epd::Record;
use common::{Killer, Peer, START};

/// Starts `argus client --engine random` on `peer`'s slave and reads its sign_on.
fn client(peer: &mut Peer, extra: &[&str]) -> Killer {
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("client")
        .arg(&peer.path)
        .args(["--engine", "random"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let sign_on = next_record(peer);
    assert_eq!(sign_on.refreq(), Some("sign_on"), "{sign_on}");
    Killer(child)
}

/// The next record from the client, its seal (if any) taken off.
fn next_record(peer: &mut Peer) -> Record {
    let (_, line) = peer
        .next_line(Duration::from_secs(10))
        .expect("the client says something");
    let body = match argus::epd::seal::open(line.as_bytes()) {
        argus::epd::seal::Seal::Valid { body, .. } => &line[..body],
        _ => &line[..],
    };
    Record::from_ascii(body.as_bytes()).unwrap()
}

fn inform() -> String {
    format!(
        "{START} ptp Event \"T\" Site \"?\" Date \"2026.11.25\" Round \"1\" White \"A\" Black \"B\" Result \"*\" TimeControl \"60\"; refcom inform;"
    )
}

/// The referee sends `bad` as the respond of a game; the client must not reply and
/// must sign on again. Then a good respond gets a good reply.
fn check_dropped(bad: &str, extra: &[&str]) {
    let mut peer = Peer::new();
    let _client = client(&mut peer, extra);
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform());
    peer.send(bad);
    let rec = next_record(&mut peer);
    assert_eq!(
        rec.refreq(),
        Some("sign_on"),
        "answered {bad:?} with {rec} instead of signing on again"
    );
    // Resynchronised: the game again, and a respond it can trust.
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform());
    peer.send(&format!(
        "{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;"
    ));
    let reply = next_record(&mut peer);
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    let pos: shakmaty::Chess = reply
        .setup()
        .position(shakmaty::CastlingMode::Standard)
        .unwrap();
    assert_eq!(pos, shakmaty::Chess::default(), "{reply}");
}

#[test]
fn a_respond_from_an_impossible_position_is_not_answered() {
    // Two white kings: well-formed EPD, not a position.
    let bad = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w - - cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;";
    check_dropped(bad, &[]);
    check_dropped(bad, &["--no-checksum"]);
}

#[test]
fn a_respond_whose_move_does_not_fit_its_position_is_not_answered() {
    // Black to move after `Rf8` arrived as `Rfx`, say: no such move here.
    let bad = format!(
        "{} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond; sm Rfx;",
        START.replace(" w ", " b ")
    );
    check_dropped(&bad, &[]);
}

/// A `disconnect` the referee's previous session left in the port's input is not this
/// session's: a client started afterwards clears it and plays.
#[test]
fn a_stale_disconnect_waiting_in_the_input_is_ignored() {
    let mut peer = Peer::new();
    // The previous session's last words, unread, in the slave's input.
    peer.send(&format!("{START} refcom disconnect;"));
    std::thread::sleep(Duration::from_millis(100));
    let mut client = client(&mut peer, &[]);
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform());
    peer.send(&format!(
        "{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;"
    ));
    let reply = next_record(&mut peer);
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    assert!(client.0.try_wait().unwrap().is_none(), "the client left");
}

/// A referee that opened its port after the client signed on (clearing that sign_on)
/// says it waits for one with a `fault`: the client signs on again at once, not only
/// after its 3 s repeat; and a fault is not taken as the referee having heard it.
#[test]
fn a_fault_before_the_game_gets_a_sign_on_at_once() {
    let mut peer = Peer::new();
    let _client = client(&mut peer, &["--no-checksum"]);
    peer.send(&format!(
        "{START} c0 \"argus is waiting for a sign_on on this line, its port a\"; refcom fault;"
    ));
    let (at, line) = peer.next_line(Duration::from_secs(2)).expect("a sign_on");
    assert!(line.contains("refreq sign_on"), "{line}");
    assert!(at.elapsed() < Duration::from_secs(2));
    // And it goes on signing on until the referee answers with something else.
    let (_, line) = peer
        .next_line(Duration::from_secs(5))
        .expect("a sign_on again");
    assert!(line.contains("refreq sign_on"), "{line}");
}
