//! A whole match through pty links made by socat, a program nobody here wrote: the
//! referee and two `argus client` processes each open a socat pty by its link name,
//! exactly as they would open `/dev/ttyUSB0` on a club's PCs.

#![cfg(unix)]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Killer, null_modem};

#[test]
#[ignore = "needs socat"]
fn a_match_through_socat_null_modems_with_argus_clients() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _cable_a = null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = null_modem(&p("ref-b"), &p("player-b"));
    let pgn = p("match.pgn");
    let journal = p("match.jsonl");
    let mut referee = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args(["--games", "2", "--tc", "60+1", "--baud", "19200"])
            .args(["--reset-delay", "0.2", "--conclude-delay", "0.2"])
            .arg("--pgn")
            .arg(&pgn)
            .arg("--journal")
            .arg(&journal)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = |port: &str, seed: &str, name: &str| {
        Killer(
            Command::new(env!("CARGO_BIN_EXE_argus"))
                .arg("client")
                .arg(p(port))
                .args([
                    "--engine", "random", "--seed", seed, "--name", name, "--baud", "19200",
                ])
                .spawn()
                .unwrap(),
        )
    };
    let mut a = client("player-a", "11", "Socrates");
    let mut b = client("player-b", "12", "Plato");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = referee.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the match did not finish");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success());
    assert!(
        a.0.wait().unwrap().success(),
        "client a exits 0 after disconnect"
    );
    assert!(
        b.0.wait().unwrap().success(),
        "client b exits 0 after disconnect"
    );
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 2);
    assert!(text.contains("[White \"Socrates\"]\n[Black \"Plato\"]"));
    assert!(text.contains("[White \"Plato\"]\n[Black \"Socrates\"]"));
    // The games are legal chess to an outside PGN reader.
    common::check_pgn_with_pgn_reader(&text, 2);
    let replay = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&journal)
        .arg("--pgn")
        .arg(p("replayed.pgn"))
        .status()
        .unwrap();
    assert!(replay.success());
    assert_eq!(std::fs::read_to_string(p("replayed.pgn")).unwrap(), text);
}

#[test]
#[ignore = "needs socat"]
fn a_vanished_line_is_reopened_by_path_and_what_was_owed_is_delivered() {
    use common::*;
    let dir = tempfile::tempdir().unwrap();
    let (ref_a, player_a) = (dir.path().join("ref-a"), dir.path().join("player-a"));
    let cable = null_modem(&ref_a, &player_a);
    let a = Peer::on_device(&player_a, &ref_a);
    let b = Peer::new();
    let referee = Referee::start(&a, &b, &["--tc", "60"]);
    let mut m = Match { a, b, referee };
    m.a.sign_on("Alpha");
    m.b.sign_on("Beta");
    m.begin_game();
    let respond = m.a.expect("respond");
    let respond = m.play(respond, true, &["e4"]).unwrap();
    // The cable is pulled: both of its ptys vanish.
    drop(cable);
    let _ = std::fs::remove_file(&ref_a);
    let _ = std::fs::remove_file(&player_a);
    std::thread::sleep(Duration::from_millis(300));
    // Black moves while White's line is down: the respond to White is owed.
    m.b.send(&reply(&respond, "sm e5;"));
    std::thread::sleep(Duration::from_millis(700));
    // The cable is plugged back in, under the same names.
    let _cable = null_modem(&ref_a, &player_a);
    m.a = Peer::on_device(&player_a, &ref_a);
    let respond = m.a.expect("respond");
    assert_eq!(
        respond.operands("sm").unwrap()[0].as_move_text(),
        Some("e5")
    );
    m.a.send(&reply(&respond, "sm Nf3;"));
    let respond = m.b.expect("respond");
    m.b.send(&reply(&respond, "resign;"));
    let pgn = m.finish("1-0");
    assert!(pgn.contains("2. Nf3"), "{pgn}");
    let journal = std::fs::read_to_string(&m.referee.journal).unwrap();
    assert!(journal.contains(r#""ev":"lost","t""#), "{journal}");
    assert!(journal.contains(r#""ev":"back""#), "{journal}");
    // White's clock ran while its line was down: its charge for Nf3 covers the outage.
    let comment = pgn.split("Nf3 {").nth(1).unwrap();
    let emt = comment.split("[%emt 0:00:").nth(1).unwrap();
    let secs: f64 = emt[..6].parse().unwrap();
    assert!(
        secs >= 0.7,
        "White was charged {secs} s for a move made after a 0.7 s outage"
    );
}

/// Records a short game between scripted players and returns the journal's path (in
/// `dir`).
fn recorded_game(dir: &std::path::Path) -> std::path::PathBuf {
    use common::*;
    let (mut m, respond) = Match::start(&[]);
    let respond = m.play(respond, true, &["e4", "e5", "Nf3", "Nc6"]).unwrap();
    m.a.send(&reply(&respond, "resign;"));
    m.finish("0-1");
    let journal = dir.join("recorded.jsonl");
    std::fs::copy(&m.referee.journal, &journal).unwrap();
    journal
}

/// Runs a live referee with `extra` options on two socat cables and both recorded
/// players replayed against it with `argus replay --as`; returns the replays' exit codes
/// and output.
fn replay_both_players(extra: &[&str]) -> Vec<(Option<i32>, String)> {
    let dir = tempfile::tempdir().unwrap();
    let journal = recorded_game(dir.path());
    let p = |name: &str| dir.path().join(name);
    let _cable_a = null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = null_modem(&p("ref-b"), &p("player-b"));
    let _referee = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args([
                "--unattended",
                "--reset-delay",
                "0",
                "--conclude-delay",
                "0",
            ])
            .args(extra)
            .arg("--pgn")
            .arg(p("live.pgn"))
            .arg("--journal")
            .arg(p("live.jsonl"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let replays: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|side| {
            Command::new(env!("CARGO_BIN_EXE_argus"))
                .arg("replay")
                .arg(&journal)
                .args(["--as", side, "--instant", "--port"])
                .arg(p(&format!("player-{side}")))
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    replays
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs socat"]
fn replay_as_both_players_reproduces_a_recorded_game_against_a_live_referee() {
    for (code, report) in replay_both_players(&[]) {
        assert_eq!(code, Some(0), "{report}");
        assert!(report.contains("no differences"), "{report}");
    }
}

#[test]
#[ignore = "needs socat"]
fn replay_as_reports_where_a_changed_live_referee_differs() {
    for (code, report) in replay_both_players(&["--tc", "60"]) {
        assert_eq!(code, Some(1), "{report}");
        assert!(report.contains("journal line"), "{report}");
        assert!(report.contains(r#"TimeControl "60""#), "{report}");
    }
}
