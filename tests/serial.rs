//! The serial referee from outside: noise, line endings, clocks, colours, sign-on, the
//! command line, and replay of the journal. Every test runs the real binary over pty
//! pairs.

#![cfg(unix)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

#[test]
fn noise_before_valid_replies_changes_nothing() {
    let (mut m, respond) = Match::start(&[]);
    m.a.send_raw(&[0xff, 0xfe, 0x80, 0x01, 0x02, b'\n']);
    m.a.send_raw(&[b'x'; 5000]);
    m.a.send_raw(b"\n");
    m.a.send_raw(b"rnbqkbnr\0/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq reply; sm e4;\n");
    m.a.send("this is not an EPD record");
    m.a.send("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq reply; sm \"e4;");
    m.a.send("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - sm e4;");
    m.a.send("");
    m.a.send("   ");
    m.a.expect_silence(Duration::from_millis(300));
    m.b.expect_silence(Duration::ZERO);
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    let pgn = m.finish("0-1");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("normal"));
    let journal = std::fs::read_to_string(&m.referee.journal).unwrap();
    assert!(
        journal.contains(r#""ev":"overlong""#),
        "the long line is journaled"
    );
    assert!(
        journal.contains(r#""hex":"fffe800102""#),
        "binary garbage kept exactly"
    );
}

#[test]
fn crlf_clients_work_and_crlf_is_sent_on_request() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    a.eol = "\r\n";
    b.eol = "\r\n";
    let referee = Referee::start(&a, &b, &["--eol", "crlf"]);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    for peer in [&mut m.a, &mut m.b] {
        peer.expect("reset");
        peer.expect("inform");
    }
    let respond = m.a.expect("respond");
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    m.finish("0-1");
    // The line splitter treats CR LF as one terminator, so no empty lines appear; check
    // the raw bytes of one line instead.
    let journal = std::fs::read_to_string(&m.referee.journal).unwrap();
    assert!(journal.contains("refcom disconnect"));
}

#[test]
fn a_reply_from_the_side_not_on_move_is_ignored() {
    let (mut m, respond) = Match::start(&[]);
    // Black answers White's respond as if it were its own.
    m.b.send(&reply(&respond, "sm e4;"));
    m.a.expect_silence(Duration::from_millis(300));
    m.b.expect_silence(Duration::ZERO);
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    let pgn = m.finish("0-1");
    assert!(pgn.starts_with("[Event"), "{pgn}");
}

#[test]
fn a_think_of_1_3_seconds_is_charged_1_3_seconds() {
    let (mut m, respond) = Match::start(&["--tc", "60"]);
    // The clock starts when the respond has drained; the client's think is measured from
    // the moment the respond arrived, which is no earlier.
    let arrived = Instant::now();
    std::thread::sleep(Duration::from_millis(1300));
    let line = reply(&respond, "sm e4;");
    let think = arrived.elapsed();
    m.a.send(&line);
    let respond = m.b.expect("respond");
    let cc = respond.operands("cc").unwrap();
    assert_eq!(cc[0].to_string(), "000:00:00:01");
    assert_eq!(cc[1].to_string(), "000:00:00:00");
    m.b.send(&reply(&respond, "resign;"));
    let pgn = m.finish("1-0");
    let emt = pgn
        .split("[%emt ")
        .nth(1)
        .and_then(|s| s.split(']').next())
        .unwrap()
        .to_string();
    // "0:00:01.3xx"
    let secs: f64 = emt.rsplit(':').next().unwrap().parse().unwrap();
    let charged = Duration::from_secs_f64(secs);
    let diff = charged.abs_diff(think);
    // The test's own stamp and argus's are taken in two processes: on a loaded 2-core
    // machine they part by a few tens of milliseconds (19 ms seen), never by a second.
    assert!(
        diff < Duration::from_millis(60),
        "charged {charged:?}, thought {think:?}"
    );
}

#[test]
fn colours_alternate_over_two_games() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start(&a, &b, &["--games", "2"]);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    for (game, a_white) in [(1, true), (2, false)] {
        let inform = m.begin_game();
        let tags = inform.operands("ptp").unwrap();
        let white = tags
            .chunks(2)
            .find(|p| p[0].as_identifier() == Some("White"))
            .unwrap()[1]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(white, if a_white { "Alpha" } else { "Beta" }, "game {game}");
        let white_peer = if a_white { &mut m.a } else { &mut m.b };
        let respond = white_peer.expect("respond");
        white_peer.send(&reply(&respond, "resign;"));
        for peer in [&mut m.a, &mut m.b] {
            let inform = peer.expect("inform");
            assert_eq!(result_of(&inform).as_deref(), Some("0-1"));
            peer.expect("conclude");
        }
    }
    m.a.expect("disconnect");
    m.b.expect("disconnect");
    assert_eq!(m.referee.wait(Duration::from_secs(10)), 0);
    let pgn = m.referee.pgn_text();
    assert_eq!(pgn.matches("[Event ").count(), 2);
    assert!(pgn.contains("[White \"Alpha\"]\n[Black \"Beta\"]"));
    assert!(pgn.contains("[White \"Beta\"]\n[Black \"Alpha\"]"));
}

#[test]
fn a_repeated_sign_on_before_the_first_game_is_harmless() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start(&a, &b, &[]);
    a.sign_on("Alpha");
    a.sign_on("Alpha");
    a.expect_silence(Duration::from_millis(300));
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    m.a.expect_silence(Duration::from_millis(200));
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    m.finish("0-1");
}

#[test]
fn names_come_from_options_then_sign_on_then_the_port() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start(&a, &b, &["--name-a", "Organiser's Pick"]);
    a.sign_on("Alpha");
    b.send(&format!("{START} refreq sign_on;"));
    let b_path = b.path.clone();
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    m.a.send(&reply(&respond, "resign;"));
    let pgn = m.finish("0-1");
    assert_eq!(tag(&pgn, "White").as_deref(), Some("Organiser's Pick"));
    assert_eq!(tag(&pgn, "Black"), Some(b_path));
}

#[test]
fn replay_reproduces_the_pgn_byte_for_byte_and_a_tampered_journal_fails() {
    let (mut m, respond) = Match::start(&["--tc", "30+1"]);
    let respond = m
        .play(respond, true, &["e4", "e5", "Nf3", "Nc6", "Bb5"])
        .unwrap();
    m.b.send("garbage that is noise");
    m.b.send(&reply(&respond, "draw_offer; sm a6;"));
    let respond = m.a.expect("respond");
    m.a.send(&reply(&respond, "sm Ba4;"));
    let respond = m.b.expect("respond");
    m.b.send(&reply(&respond, "resign;"));
    let pgn = m.finish("1-0");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("replayed.pgn");
    let status = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&m.referee.journal)
        .arg("--pgn")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), pgn);

    // Change one received move: the replay must name the divergence and fail.
    let journal = std::fs::read_to_string(&m.referee.journal).unwrap();
    let tampered = journal.replacen("sm Ba4;", "sm Bc4;", 1);
    assert_ne!(tampered, journal);
    let bad = dir.path().join("tampered.jsonl");
    std::fs::write(&bad, tampered).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&bad)
        .arg("--pgn")
        .arg(dir.path().join("other.pgn"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("diverges"), "{err}");

    // Make White's Ba4 arrive a quarter of a second later: every line sent is the same,
    // but the clock record is not, and replay must say so.
    let retimed: Vec<String> = journal
        .lines()
        .map(|line| {
            let mut ev: serde_json::Value = serde_json::from_str(line).unwrap();
            if ev["ev"] == "rx" && ev["text"].as_str().is_some_and(|t| t.contains("sm Ba4;")) {
                ev["t"] = (ev["t"].as_u64().unwrap() + 250_000).into();
            }
            ev.to_string()
        })
        .collect();
    let bad = dir.path().join("retimed.jsonl");
    std::fs::write(&bad, retimed.join("\n") + "\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&bad)
        .arg("--pgn")
        .arg(dir.path().join("retimed.pgn"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("record differs"), "{err}");
}

#[test]
fn bad_arguments_and_missing_ports_are_one_line_errors() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["serial", "/dev/argus-no-such-port", "/dev/argus-nor-this"]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/dev/argus-no-such-port"), "{err}");
    let (code, err) = run(&["serial", "a", "b", "--parity", "sideways"]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--parity"), "{err}");
    let (code, err) = run(&["serial", "/dev/ttyS0"]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("<PORT_B>"), "{err}");
    let (code, err) = run(&["serial", "a", "b", "--reset-delay", "1e19"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--reset-delay"), "{err}");
    let (code, err) = run(&["serial", "a", "b", "--tc", "40/"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("40/"), "{err}");
    let (code, err) = run(&[
        "serial",
        "a",
        "b",
        "--openings",
        "/nonexistent/openings.epd",
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("/nonexistent/openings.epd"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A journal that exists: its name, once, and the two ways on.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("old.jsonl");
    std::fs::write(&journal, "").unwrap();
    let path = journal.to_str().unwrap();
    let (code, err) = run(&["serial", "a", "b", "--journal", path]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches(path).count(), 2, "{err}");
    assert!(
        err.contains("--resume") && err.contains("another --journal"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}

#[test]
fn the_built_in_client_plays_a_whole_match_through_the_referee() {
    // Both the referee and the clients open pty slaves by path; the test joins each
    // client's master to the referee's master, as a null-modem cable would.
    let bridge = |p: &mut Peer, q: &mut Peer| {
        let mut buf = [0u8; 4096];
        use std::io::{Read, Write};
        let mut moved = false;
        if let Ok(n) = p.master.read(&mut buf)
            && n > 0
        {
            q.master.write_all(&buf[..n]).unwrap();
            moved = true;
        }
        moved
    };
    let mut ref_a = Peer::new();
    let mut ref_b = Peer::new();
    let mut cli_a = Peer::new();
    let mut cli_b = Peer::new();
    for p in [&mut ref_a, &mut ref_b, &mut cli_a, &mut cli_b] {
        use serialport::SerialPort;
        p.master.set_timeout(Duration::from_millis(1)).unwrap();
    }
    let mut referee = Referee::start(&ref_a, &ref_b, &["--games", "2", "--tc", "60+1"]);
    let client = |peer: &Peer, seed: &str| {
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(["client", &peer.path, "--engine", "random", "--seed", seed])
            .spawn()
            .unwrap()
    };
    let mut ca = client(&cli_a, "7");
    let mut cb = client(&cli_b, "8");
    let deadline = Instant::now() + Duration::from_secs(120);
    while referee.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the match did not finish");
        let mut moved = bridge(&mut cli_a, &mut ref_a);
        moved |= bridge(&mut ref_a, &mut cli_a);
        moved |= bridge(&mut cli_b, &mut ref_b);
        moved |= bridge(&mut ref_b, &mut cli_b);
        if !moved {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    // Deliver the disconnects.
    for _ in 0..50 {
        bridge(&mut ref_a, &mut cli_a);
        bridge(&mut ref_b, &mut cli_b);
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(referee.wait(Duration::from_secs(5)), 0);
    assert!(ca.wait().unwrap().success());
    assert!(cb.wait().unwrap().success());
    let pgn = referee.pgn_text();
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    assert_eq!(tag(&pgn, "White").as_deref(), Some("argus random mover"));
    check_pgn_with_pgn_reader(&pgn, 2);
}

/// Sends `signal` to the referee and checks what a stop must do: both players get
/// `fault` with a reason (never `disconnect`, which would end their clients), and argus
/// exits with 130 saying how to go on.
fn stop_with(m: &mut Match, signal: i32) {
    let pid = i32::try_from(m.referee.child.id()).unwrap();
    // SAFETY: sending a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    for peer in [&mut m.a, &mut m.b] {
        let fault = peer.expect_any(&["fault"]);
        let reason = fault.operands("c0").unwrap()[0]
            .as_str()
            .unwrap()
            .to_string();
        assert!(reason.contains("resumes later"), "{reason}");
    }
    assert_eq!(m.referee.wait(Duration::from_secs(5)), 130);
    let out = m.referee.stdout();
    assert!(
        out.contains("the match is not over: go on with `argus serial --resume"),
        "{out}"
    );
    for peer in [&mut m.a, &mut m.b] {
        peer.expect_silence(Duration::ZERO);
    }
}

/// After a resume of a 2-game match stopped with White to move after 1. e4 e5: both
/// players are brought back (White gets Black's last move as the sm of its respond),
/// game 1 goes on to 4. Qxf7# and game 2 is a fool's mate. Returns the PGN.
fn play_on_after_e4_e5(m: &mut Match) -> String {
    for peer in [&mut m.a, &mut m.b] {
        peer.expect("reset");
        peer.expect("inform");
        peer.expect("execute");
    }
    m.b.expect("execute");
    let respond = m.a.expect("respond");
    assert_eq!(
        respond.operands("sm").unwrap()[0].to_string(),
        "e5",
        "{respond}"
    );
    // The game goes on from its position, and the second game follows.
    assert!(
        m.play(respond, true, &["Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
            .is_none()
    );
    for peer in [&mut m.a, &mut m.b] {
        let inform = peer.expect_any(&["inform"]);
        assert_eq!(result_of(&inform).as_deref(), Some("1-0"));
        peer.expect("conclude");
    }
    m.begin_game();
    let respond = m.b.expect("respond");
    assert!(
        m.play(respond, false, &["f3", "e5", "g4", "Qh4#"])
            .is_none()
    );
    m.finish("0-1")
}

#[test]
fn a_stop_is_a_pause_and_the_resume_finishes_the_match() {
    let (mut m, respond) = Match::start(&["--games", "2"]);
    let respond = m.play(respond, true, &["e4", "e5"]).unwrap();
    drop(respond);
    // A service manager's stop (SIGTERM) while White is thinking.
    stop_with(&mut m, libc::SIGTERM);
    assert_eq!(m.referee.pgn_text(), "", "no game ends at a stop");
    m.referee.resume();
    let pgn = play_on_after_e4_e5(&mut m);
    assert_eq!(pgn.matches("[Event ").count(), 2, "every game once: {pgn}");
    assert_eq!(tag(&pgn, "Result").as_deref(), Some("1-0"));
    assert!(pgn.contains("1. e4 ") && pgn.contains(" 2. Qh5 "), "{pgn}");
    assert!(!pgn.contains("\"*\""), "no game unterminated: {pgn}");
    let out = m.referee.stdout();
    assert!(out.contains("match over: 2 of 2 game(s) played"), "{out}");
    // The journal of both sessions replays to the same PGN.
    let dir = tempfile::tempdir().unwrap();
    let replayed = dir.path().join("replayed.pgn");
    let status = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&m.referee.journal)
        .arg("--pgn")
        .arg(&replayed)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&replayed).unwrap(), pgn);
}

#[test]
fn ctrl_c_and_a_lost_terminal_stop_without_ending_the_game() {
    for signal in [libc::SIGINT, libc::SIGHUP] {
        let (mut m, _respond) = Match::start(&[]);
        stop_with(&mut m, signal);
        assert_eq!(m.referee.pgn_text(), "");
    }
}

#[test]
fn an_existing_journal_is_never_overwritten() {
    let a = Peer::new();
    let b = Peer::new();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("old.jsonl");
    std::fs::write(&journal, "precious\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", &a.path, &b.path, "--journal"])
        .arg(&journal)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("old.jsonl"), "{err}");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), "precious\n");
}

/// With an event file, the file gives the match: another option on the command line
/// is refused, naming the key that gives it.
#[test]
fn an_option_given_with_an_event_file_is_refused_naming_its_key() {
    let out = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", "--config", "event.toml", "--games", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the argument '--config <EVENT.toml>' cannot be used with '--games <GAMES>': set `games` in [match] of the event file instead\n"
    );
}

#[test]
fn an_event_file_gives_every_option() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("event.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[match]
event = "Config cup"
site = "Club hall"
games = 1
tc = "90+1"
reset_delay = 0
conclude_delay = 0

[files]
pgn = "cup.pgn"
journal = "cup.jsonl"

[player.a]
port = "{}"
name = "Anna"

[player.b]
port = "{}"
"#,
            a.path, b.path
        ),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", "--unattended", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (pgn, journal) = (dir.path().join("cup.pgn"), dir.path().join("cup.jsonl"));
    let mut referee = Referee::adopt(child, dir, pgn, journal);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    a.expect("reset");
    b.expect("reset");
    let inform = a.expect("inform");
    b.expect("inform");
    let text = inform.to_string();
    assert!(
        text.contains(r#"Event "Config cup""#) && text.contains(r#"TimeControl "90+1""#),
        "{text}"
    );
    let respond = a.expect("respond");
    a.send(&reply(&respond, "resign;"));
    for peer in [&mut a, &mut b] {
        peer.expect("inform");
        peer.expect("conclude");
        peer.expect("disconnect");
    }
    assert_eq!(referee.wait(Duration::from_secs(10)), 0);
    let pgn = referee.pgn_text();
    assert_eq!(tag(&pgn, "White").as_deref(), Some("Anna"));
    assert!(referee.journal.exists());
}

#[test]
fn a_new_referee_ignores_what_a_previous_session_left_in_its_ports() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    // A previous session's client signed on as someone else, and left a reply behind.
    a.sign_on("Ghost");
    a.send(&format!("{START} refreq reply; sm e4;"));
    let referee = Referee::start(&a, &b, &[]);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    let pgn = m.finish("0-1");
    assert_eq!(tag(&pgn, "White").as_deref(), Some("Alpha"));
    let out = m.referee.stdout();
    assert!(!out.contains("Ghost"), "{out}");
    assert!(!out.contains("noise"), "{out}");
}

#[test]
fn swapped_cables_never_put_the_wrong_name_in_the_pgn() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start(&a, &b, &["--name-a", "Alpha", "--name-b", "Beta"]);
    // Beta's PC is on port a's cable, Alpha's on port b's.
    a.sign_on("Beta");
    b.sign_on("Alpha");
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    let pgn = m.finish("0-1");
    assert_eq!(tag(&pgn, "White").as_deref(), Some("Beta"), "{pgn}");
    assert_eq!(tag(&pgn, "Black").as_deref(), Some("Alpha"), "{pgn}");
    let out = m.referee.stdout();
    let swapped = out.find("the cables are swapped").expect(&out);
    let game = out
        .find("game 1: Beta (White) vs Alpha (Black)")
        .expect(&out);
    assert!(swapped < game, "said before the first game: {out}");
}

#[test]
fn both_ends_of_one_cable_are_named() {
    use serialport::SerialPort as _;
    use std::io::{Read as _, Write as _};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    // Two pty pairs joined master to master: the referee gets both ends of one cable.
    let (mut one, one_slave) = serialport::TTYPort::pair().unwrap();
    let (mut two, two_slave) = serialport::TTYPort::pair().unwrap();
    let paths = [one_slave.name().unwrap(), two_slave.name().unwrap()];
    one.set_timeout(Duration::from_millis(20)).unwrap();
    two.set_timeout(Duration::from_millis(20)).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let mut copies = Vec::new();
    for (mut from, mut to) in [
        (
            one.try_clone_native().unwrap(),
            two.try_clone_native().unwrap(),
        ),
        (two, one),
    ] {
        let done = done.clone();
        copies.push(std::thread::spawn(move || {
            let mut buf = [0u8; 256];
            while !done.load(Ordering::SeqCst) {
                if let Ok(n) = from.read(&mut buf)
                    && n > 0
                {
                    let _ = to.write_all(&buf[..n]);
                }
            }
        }));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut referee = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", &paths[0], &paths[1], "--unattended"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = referee.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    let found = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) if line.contains("ports a and b are the two ends of one cable") => break true,
            Ok(line) => seen.push(line),
            Err(_) => break false,
        }
    };
    let _ = referee.kill();
    let _ = referee.wait();
    done.store(true, Ordering::SeqCst);
    drop((one_slave, two_slave));
    assert!(found, "argus said: {seen:?}");
}

#[test]
fn the_same_command_with_continue_goes_on_after_a_stop() {
    let (mut m, respond) = Match::start(&["--continue", "--games", "2"]);
    assert!(m.play(respond, true, &["e4", "e5"]).is_some());
    stop_with(&mut m, libc::SIGTERM);
    // The service starts again with the very same command line.
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("serial")
        .arg(&m.a.path)
        .arg(&m.b.path)
        .args(["--reset-delay", "0", "--conclude-delay", "0", "--pgn"])
        .arg(&m.referee.pgn)
        .arg("--journal")
        .arg(&m.referee.journal)
        .args(["--continue", "--games", "2", "--unattended"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    m.referee.child = child;
    let line = m
        .referee
        .wait_for("exists: going on with its match", Duration::from_secs(10));
    assert!(line.contains("session.jsonl"), "{line}");
    let pgn = play_on_after_e4_e5(&mut m);
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
}

#[test]
fn continue_needs_a_named_journal() {
    let a = Peer::new();
    let b = Peer::new();
    let out = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", &a.path, &b.path, "--continue"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--continue needs the journal's name"), "{err}");
}
