//! What `argus client` does with records it cannot trust: a well-formed record whose
//! position it cannot reconcile is dropped, never answered from the client's own board,
//! and the client signs on again to be resynchronised (profile section 5, `fault`). The
//! test plays the referee on a pty pair.

#![cfg(unix)]

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use argus::epd::Record;
use common::{Killer, Peer, START, fake_uci};

/// Starts `argus client --engine random` on `peer`'s slave and reads its sign_on.
fn client(peer: &mut Peer, extra: &[&str]) -> Killer {
    client_with(peer, "random", extra)
}

/// Starts `argus client --engine ENGINE` on `peer`'s slave and reads its sign_on.
fn client_with(peer: &mut Peer, engine: &str, extra: &[&str]) -> Killer {
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("client")
        .arg(&peer.path)
        .args(["--engine", engine])
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
    inform_tc("60")
}

fn inform_tc(tc: &str) -> String {
    format!(
        "{START} ptp Event \"T\" Site \"?\" Date \"2026.11.25\" Round \"1\" White \"A\" Black \"B\" Result \"*\" TimeControl \"{tc}\"; refcom inform;"
    )
}

/// The `c0` of a record.
fn reason(rec: &Record) -> String {
    rec.operands("c0")
        .and_then(|o| o.first())
        .and_then(|o| o.as_str())
        .unwrap_or_default()
        .to_string()
}

/// The referee sends `bad` as the respond of a game; the client must not reply and
/// must sign on again. Then a good respond gets a good reply.
fn check_dropped(bad: &str, extra: &[&str]) {
    let mut peer = Peer::new();
    let _client = client(&mut peer, extra);
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform());
    peer.send(bad);
    // The referee hears what came, then the client signs on again.
    let rec = next_record(&mut peer);
    assert_eq!(rec.refreq(), Some("fault"), "answered {bad:?} with {rec}");
    assert!(
        reason(&rec).starts_with("noise from the referee: "),
        "{rec}"
    );
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

/// A line from the referee that the client cannot read is shown to the referee: a
/// `fault` whose `c0` says what came, at most one per line and at most about one a
/// second, so that a noisy line cannot make the client flood it. A record that makes
/// no sense (an unknown refcom) is reported the same way. (With the checksum extension
/// in use the report is the request to send again; here the referee does not seal its
/// records, and a client that offered the extension asks for a resynchronisation.)
#[test]
fn noise_from_the_referee_is_reported_to_it_without_flooding() {
    noise_is_reported(&["--no-checksum"]);
    noise_is_reported(&[]);
}

fn noise_is_reported(extra: &[&str]) {
    let mut peer = Peer::new();
    let mut client = client(&mut peer, extra);
    peer.send(&format!("{START} refcom reset;"));
    peer.send("this is not an EPD record");
    let fault = next_record(&mut peer);
    assert_eq!(fault.refreq(), Some("fault"), "{fault}");
    let why = reason(&fault);
    assert!(
        why.starts_with("noise from the referee: ") && why.contains("this is not an EPD"),
        "{fault}"
    );
    // A burst of noise: one report at most a second.
    let started = std::time::Instant::now();
    for i in 0..30 {
        peer.send(&format!("garbage {i} \x01 from the line"));
    }
    let mut faults = 0;
    while let Some((_, line)) = peer.next_line(Duration::from_millis(1500)) {
        assert!(line.contains("refreq fault"), "{line}");
        faults += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    assert!(faults >= 1, "the burst was not reported");
    assert!(
        f64::from(faults) <= seconds + 1.0,
        "{faults} faults in {seconds:.1} s for a burst of 30 noisy lines"
    );
    // A well-formed record that makes no sense to a client.
    std::thread::sleep(Duration::from_millis(1100));
    peer.send(&format!("{START} refcom frobnicate;"));
    let fault = next_record(&mut peer);
    assert_eq!(fault.refreq(), Some("fault"), "{fault}");
    assert!(reason(&fault).contains("frobnicate"), "{fault}");
    // The client plays on.
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform());
    peer.send(&format!(
        "{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;"
    ));
    let reply = next_record(&mut peer);
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    assert!(client.0.try_wait().unwrap().is_none(), "the client left");
}

/// The `go` commands a fake engine's log holds.
fn go_commands(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("go"))
        .map(str::to_string)
        .collect()
}

fn respond_at_start() -> String {
    format!("{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;")
}

/// A client that missed the `inform` of its game (a `respond` after a `reset` with no
/// `inform` between) does not know the game's time control: it never plays on a time
/// control of its own making (nor on the last game's), it signs on again, and the
/// referee's resynchronisation (reset, inform, respond) gives it the real one.
#[test]
fn a_client_that_missed_its_inform_signs_on_again_without_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, log) = fake_uci(dir.path(), "moves", "echo 'bestmove e2e4'", ":", "exit 0");
    let mut peer = Peer::new();
    let _client = client_with(&mut peer, &format!("uci:{engine}"), &["--no-checksum"]);
    // A first game at 300 s, which the client plays.
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform_tc("300"));
    peer.send(&respond_at_start());
    let reply = next_record(&mut peer);
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    peer.send(&format!("{START} refcom conclude;"));
    // The next game's inform is lost.
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&respond_at_start());
    let rec = next_record(&mut peer);
    assert_eq!(
        rec.refreq(),
        Some("sign_on"),
        "played without knowing the time control: {rec}"
    );
    assert_eq!(go_commands(&log).len(), 1, "{:?}", go_commands(&log));
    // Resynchronised: the game at 60 s.
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform_tc("60"));
    peer.send(&respond_at_start());
    let reply = next_record(&mut peer);
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    let go = go_commands(&log);
    assert_eq!(
        go.last().map(String::as_str),
        Some("go wtime 60000 btime 60000 winc 0 binc 0"),
        "{go:?}"
    );
}

/// With the checksum extension the lost `inform` leaves a gap in the record numbers:
/// the client asks for it again (`xagain`) and plays with the real time control.
#[test]
fn a_client_that_missed_its_inform_asks_for_it_again_with_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, log) = fake_uci(dir.path(), "moves", "echo 'bestmove e2e4'", ":", "exit 0");
    let mut peer = Peer::new();
    let _client = client_with(&mut peer, &format!("uci:{engine}"), &[]);
    let sealed = |rec: &str, n: u64| argus::epd::seal::seal(rec, n);
    let reset = format!("{START} refcom reset;");
    let inform = inform_tc("60");
    let respond = respond_at_start();
    peer.send(&sealed(&reset, 1));
    // #2, the inform, is lost.
    peer.send(&sealed(&respond, 3));
    let ask = next_record(&mut peer);
    assert_eq!(ask.refreq(), Some("fault"), "{ask}");
    assert_eq!(
        ask.operands("xagain")
            .and_then(|o| o.first())
            .map(ToString::to_string),
        Some("2".to_string()),
        "{ask}"
    );
    assert!(go_commands(&log).is_empty(), "{:?}", go_commands(&log));
    peer.send(&sealed(&inform, 2));
    peer.send(&sealed(&respond, 3));
    let reply = loop {
        let rec = next_record(&mut peer);
        if rec.refreq() != Some("fault") {
            break rec;
        }
    };
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    assert_eq!(
        go_commands(&log),
        ["go wtime 60000 btime 60000 winc 0 binc 0"]
    );
}

/// A client resynchronised mid-game (the referee restarted, say) tells its engine no
/// more time than its side can have left: `cc` is in whole seconds, and the moves the
/// client did not watch may have taken up to 999 ms more than it says.
#[test]
fn a_client_resynchronised_mid_game_never_gives_its_engine_time_it_may_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, log) = fake_uci(dir.path(), "moves", "echo 'bestmove d2d4'", ":", "exit 0");
    let mut peer = Peer::new();
    let _client = client_with(&mut peer, &format!("uci:{engine}"), &["--no-checksum"]);
    // The resynchronisation: the game's start, its inform, White's 1. e4, and the
    // respond with Black's 1... e5 as its sm.
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&inform_tc("60"));
    peer.send(&format!("{START} fmvn 1; hmvc 0; refcom execute; sm e4;"));
    peer.send(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 \
         cc 000:00:00:05 000:00:00:03; fmvn 1; hmvc 0; refcom respond; sm e5;",
    );
    let reply = next_record(&mut peer);
    assert_eq!(reply.refreq(), Some("reply"), "{reply}");
    assert_eq!(
        go_commands(&log),
        ["go wtime 54001 btime 57000 winc 0 binc 0"],
        "White has at most 60 s less 5.999 s"
    );
}
