//! The supervisor's console driven through the referee's standard input: pause and
//! resume, clock changes, restart, adjudication, abort, and the pauses that wait for a
//! decision when a supervisor is present.

#![cfg(unix)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::*;

/// Starts an attended match and returns it with White's first respond.
fn attended(extra: &[&str]) -> (Match, argus::epd::Record) {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start_attended(&a, &b, extra);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    (m, respond)
}

/// The `[%emt]` of the move `san` in `pgn`, in seconds.
fn emt_of(pgn: &str, san: &str) -> f64 {
    let flat = pgn.replace('\n', " ");
    let after = flat.split(&format!("{san} {{")).nth(1).unwrap();
    let emt = after.split("[%emt ").nth(1).unwrap();
    emt[5..11].parse().unwrap()
}

/// The `[%clk]` after the move `san` in `pgn`, in seconds.
fn clk_of(pgn: &str, san: &str) -> f64 {
    let flat = pgn.replace('\n', " ");
    let after = flat.split(&format!("{san} {{")).nth(1).unwrap();
    let clk = after.split("[%clk ").nth(1).unwrap();
    let clk = &clk[..clk.find(']').unwrap()];
    let parts: Vec<f64> = clk.split(':').map(|p| p.parse().unwrap()).collect();
    parts[0] * 3600.0 + parts[1] * 60.0 + parts[2]
}

#[test]
fn pause_resume_clock_restart_and_adjudicate_do_what_they_say_and_replay() {
    let (mut m, respond) = attended(&["--tc", "60"]);
    let respond = m.play(respond, true, &["e4"]).unwrap();
    // Paused while Black thinks: Black's reply waits, and the pause is charged to
    // nobody.
    m.referee.type_command("pause");
    std::thread::sleep(Duration::from_millis(300));
    m.b.send(&reply(&respond, "sm e5;"));
    m.a.expect_silence(Duration::from_millis(900));
    m.referee.type_command("resume");
    let respond = m.a.expect("respond");
    // Thirty seconds more for White, then White moves.
    m.referee.type_command("clock a +30");
    std::thread::sleep(Duration::from_millis(200));
    m.a.send(&reply(&respond, "sm Nf3;"));
    m.b.expect("respond");
    // Black is brought back into the game as if it had restarted.
    m.referee.type_command("restart b");
    m.b.expect("reset");
    m.b.expect("inform");
    m.b.expect("execute");
    m.b.expect("execute");
    m.b.expect("respond");
    m.referee
        .type_command("adjudicate 1/2-1/2 both players agree at the board");
    let pgn = m.finish("1/2-1/2");
    assert!(emt_of(&pgn, "e5") < 0.3, "the pause was charged: {pgn}");
    assert!(
        clk_of(&pgn, "Nf3") > 89.0,
        "the clock change is missing: {pgn}"
    );
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("adjudication"));
    assert!(
        pgn.replace('\n', " ")
            .contains("both players agree at the board"),
        "{pgn}"
    );
    let journal = std::fs::read_to_string(&m.referee.journal).unwrap();
    for command in [
        "pause",
        "resume",
        "clock a +30.000",
        "restart b",
        "adjudicate 1/2-1/2",
    ] {
        assert!(
            journal.contains(&format!(r#""command":"{command}"#)),
            "{command} is not journaled"
        );
    }
    let replayed = m.referee.dir.path().join("replayed.pgn");
    let status = Command::new(env!("CARGO_BIN_EXE_argus"))
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
fn abort_ends_the_game_unterminated_and_the_match_goes_on() {
    let (mut m, respond) = attended(&["--games", "2"]);
    let _ = m.play(respond, true, &["d4"]).unwrap();
    m.referee.type_command("abort");
    for peer in [&mut m.a, &mut m.b] {
        let inform = peer.expect("inform");
        assert_eq!(result_of(&inform).as_deref(), Some("*"));
        peer.expect("conclude");
    }
    // Game 2: B is White.
    m.begin_game();
    let respond = m.b.expect("respond");
    m.b.send(&reply(&respond, "resign;"));
    for peer in [&mut m.a, &mut m.b] {
        peer.expect("inform");
        peer.expect("conclude");
        peer.expect("disconnect");
    }
    assert_eq!(m.referee.wait(Duration::from_secs(10)), 0);
    let pgn = m.referee.pgn_text();
    assert!(pgn.contains("[Result \"*\"]") && pgn.contains("[Termination \"unterminated\"]"));
    assert!(pgn.contains("{Aborted by the supervisor}"), "{pgn}");
}

#[test]
fn with_a_supervisor_an_illegal_move_under_fault_pauses_for_a_decision() {
    let (mut m, respond) = attended(&["--illegal", "fault"]);
    m.a.send(&reply(&respond, "sm Ke2;"));
    m.a.expect("fault");
    m.b.expect("fault");
    // Nothing more happens until the supervisor decides: here, to let White move again.
    m.a.expect_silence(Duration::from_millis(300));
    m.referee.type_command("resume");
    let again = m.a.expect("respond");
    assert_eq!(again.to_string(), respond.to_string());
    assert!(m.play(again, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    m.finish("0-1");
}

#[test]
fn with_a_supervisor_a_sign_off_pauses_until_the_player_is_back() {
    let (mut m, respond) = attended(&[]);
    let respond = m.play(respond, true, &["e4"]).unwrap();
    let _ = respond;
    m.b.send(&format!("{START} refreq sign_off;"));
    m.a.expect("fault");
    m.b.expect("fault");
    m.referee.type_command("status");
    // Black signs on again and the supervisor lets the game go on: Black is
    // resynchronised and plays.
    m.b.sign_on("Beta");
    m.referee.type_command("resume");
    m.b.expect("reset");
    m.b.expect("inform");
    let respond = m.b.expect("respond");
    m.b.send(&reply(&respond, "resign;"));
    m.finish("1-0");
}

/// `quit` during the last game ends the match early, and says so: the game it ends has
/// no result and does not count as played.
#[test]
fn quit_during_the_last_game_says_the_match_ended_early() {
    let (mut m, respond) = attended(&["--tc", "60"]);
    let _ = m.play(respond, true, &["e4"]);
    m.referee.type_command("quit");
    let line = m.referee.wait_for("argus: match", Duration::from_secs(20));
    assert!(
        line.starts_with("argus: match ended early by the supervisor: 0 of 1 game(s) played"),
        "{line}"
    );
}
