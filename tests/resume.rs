//! A referee that dies (SIGKILL, at several points of a game) and is resumed from its
//! journal: the match completes, the PGN holds every move, and nobody is charged for
//! the outage.

#![cfg(unix)]

mod common;

use std::time::Duration;

use common::*;

const OUTAGE: Duration = Duration::from_millis(1500);

/// The `[%emt]` charges of each colour in a one-game PGN, in seconds.
fn charges(pgn: &str) -> (Vec<f64>, Vec<f64>) {
    let flat = pgn.replace('\n', " ");
    let emts: Vec<f64> = flat
        .split("[%emt ")
        .skip(1)
        .map(|s| {
            let text = &s[..s.find(']').unwrap()];
            let mut parts = text.split(':');
            let h: f64 = parts.next().unwrap().parse().unwrap();
            let m: f64 = parts.next().unwrap().parse().unwrap();
            let sec: f64 = parts.next().unwrap().parse().unwrap();
            h * 3600.0 + m * 60.0 + sec
        })
        .collect();
    let white = emts.iter().step_by(2).copied().collect();
    let black = emts.iter().skip(1).step_by(2).copied().collect();
    (white, black)
}

/// Reads the resynchronisation a player gets after a resume, up to its respond when it
/// is to move; returns that respond.
fn resynced(peer: &mut Peer, to_move: bool, executes: usize) -> Option<argus::epd::Record> {
    peer.expect("reset");
    peer.expect("inform");
    for _ in 0..executes {
        peer.expect("execute");
    }
    to_move.then(|| peer.expect("respond"))
}

#[test]
fn a_referee_killed_between_moves_is_resumed_and_charges_nobody_for_the_outage() {
    let (mut m, respond) = Match::start(&["--tc", "60"]);
    let respond = m.play(respond, true, &["e4"]).unwrap();
    // Black thinks; the referee dies 300 ms into the think and is down for 1.5 s.
    std::thread::sleep(Duration::from_millis(300));
    let _ = respond;
    m.referee.crash_and_resume(OUTAGE);
    // White (not to move) gets the game as executes; Black gets its respond again.
    resynced(&mut m.a, false, 1);
    let respond = resynced(&mut m.b, true, 0).unwrap();
    assert_eq!(
        respond.operands("sm").unwrap()[0].as_move_text(),
        Some("e4")
    );
    let respond = m.play(respond, false, &["e5", "Nf3", "Nc6"]).unwrap();
    m.a.send(&reply(&respond, "resign;"));
    let pgn = m.finish("0-1");
    assert!(pgn.contains("1. e4"), "{pgn}");
    assert!(
        pgn.contains("e5") && pgn.contains("2. Nf3") && pgn.contains("Nc6"),
        "{pgn}"
    );
    assert!(
        pgn.replace('\n', " ")
            .contains("the referee restarted here"),
        "{pgn}"
    );
    let (_, black) = charges(&pgn);
    // Black's e5 is charged its 0.3 s think before the crash and its answer after the
    // resume, not the 1.5 s outage.
    // The journal knows nothing of the crash moment, so the think in progress (0.3 s) is
    // what may go uncharged; the outage never is.
    assert!(
        black[0] < 0.3 + 0.3,
        "Black was charged for the outage: {black:?}"
    );
    // The resumed journal replays to the same PGN.
    let replayed = m.referee.dir.path().join("replayed.pgn");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&m.referee.journal)
        .arg("--pgn")
        .arg(&replayed)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(replayed).unwrap(), pgn);
}

#[test]
fn a_referee_killed_while_a_reply_arrives_loses_no_recorded_move() {
    let (mut m, respond) = Match::start(&["--tc", "60"]);
    let respond = m.play(respond, true, &["d4", "d5"]).unwrap();
    // White's reply and the crash race each other.
    m.a.send(&reply(&respond, "sm c4;"));
    m.referee.crash(Duration::from_millis(500));
    // What the dead referee journaled, read before the new one starts: a reply it
    // never read is still in the line, and the new referee reads it after it has sent
    // the game again (a `respond` to White among it).
    let journal = std::fs::read_to_string(&m.referee.journal).unwrap();
    let recorded = journal.contains("sm c4;");
    m.referee.resume();
    // Whichever side is to move after the journal's last input gets a respond.
    if recorded {
        // c4 was received: it stands. Black is to move.
        resynced(&mut m.a, false, 3);
        let respond = resynced(&mut m.b, true, 2).unwrap();
        assert_eq!(
            respond.operands("sm").unwrap()[0].as_move_text(),
            Some("c4")
        );
        m.b.send(&reply(&respond, "resign;"));
        let pgn = m.finish("1-0");
        assert!(pgn.contains("2. c4"), "{pgn}");
    } else {
        // The reply was lost with the referee before it was journaled: White is asked
        // again.
        let respond = resynced(&mut m.a, true, 1).unwrap();
        resynced(&mut m.b, false, 2);
        m.a.send(&reply(&respond, "sm c4;"));
        let respond = m.b.expect("respond");
        m.b.send(&reply(&respond, "resign;"));
        let pgn = m.finish("1-0");
        assert!(pgn.contains("2. c4"), "{pgn}");
    }
}

#[test]
fn a_referee_killed_during_the_reset_delay_resumes_the_game_start() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start(&a, &b, &["--reset-delay", "2"]);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    m.a.expect("reset");
    m.b.expect("reset");
    m.referee.crash_and_resume(Duration::from_millis(300));
    let begin = m.begin_game();
    assert_eq!(result_of(&begin).as_deref(), Some("*"));
    let respond = m.a.expect("respond");
    m.a.send(&reply(&respond, "resign;"));
    m.finish("0-1");
}
