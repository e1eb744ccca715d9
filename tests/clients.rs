//! `argus client` with real players behind it: a person at a terminal (driven through
//! a pty, as a terminal emulator would), and engines through the adapters.

#![cfg(unix)]

mod common;

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serialport::{SerialPort, TTYPort};

/// A terminal: the test holds the master and types; the program gets the slave as its
/// standard input and output.
struct Terminal {
    master: TTYPort,
    _slave: TTYPort,
    path: String,
    screen: String,
    /// How much of the screen earlier waits have read.
    seen: usize,
}

impl Terminal {
    fn new() -> Terminal {
        let (mut master, slave) = TTYPort::pair().unwrap();
        master.set_timeout(Duration::from_millis(20)).unwrap();
        let path = slave.name().unwrap();
        Terminal {
            master,
            _slave: slave,
            path,
            screen: String::new(),
            seen: 0,
        }
    }

    fn stdio(&self) -> Stdio {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .unwrap();
        Stdio::from(file)
    }

    /// Reads the screen until `text` appears after what earlier waits read.
    fn wait_for(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut buf = [0u8; 1024];
        loop {
            if let Some(at) = self.screen[self.seen..].find(text) {
                self.seen += at + text.len();
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no {text:?} on the screen:\n{}",
                self.screen
            );
            match self.master.read(&mut buf) {
                Ok(n) => self.screen.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => panic!("terminal: {e}"),
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        self.master
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
        self.master.flush().unwrap();
    }
}

#[test]
#[ignore = "needs socat"]
fn a_person_plays_through_the_terminal_is_asked_again_after_an_illegal_move_and_resigns() {
    let dir = tempfile::tempdir().unwrap();
    let (ref_a, player_a) = (dir.path().join("ref-a"), dir.path().join("player-a"));
    let _cable = null_modem(&ref_a, &player_a);
    let mut b = Peer::new();
    // The referee proper: port A is the socat cable to the person's client.
    let pgn = dir.path().join("games.pgn");
    let journal = dir.path().join("games.jsonl");
    let mut serial = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(&ref_a)
            .arg(&b.path)
            .args(["--tc", "300", "--reset-delay", "0", "--conclude-delay", "0"])
            .arg("--pgn")
            .arg(&pgn)
            .arg("--journal")
            .arg(&journal)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    await_refereeing(&mut serial.0);
    let mut terminal = Terminal::new();
    let _client = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("client")
            .arg(&player_a)
            .args(["--engine", "human", "--name", "Ann"])
            .stdin(terminal.stdio())
            .stdout(terminal.stdio())
            .spawn()
            .unwrap(),
    );
    b.sign_on("Bot");
    b.expect("reset");
    b.expect("inform");
    terminal.wait_for("White to move> ");
    assert!(
        terminal.screen.contains("  1  R N B Q K B N R"),
        "{}",
        terminal.screen
    );
    terminal.type_line("e5");
    terminal.wait_for("e5 is not a legal move here");
    terminal.wait_for("White to move> ");
    terminal.type_line("e4");
    let respond = b.expect("respond");
    assert_eq!(
        respond.operands("sm").unwrap()[0].as_move_text(),
        Some("e4")
    );
    b.send(&reply(&respond, "sm e5;"));
    terminal.wait_for("White to move> ");
    assert!(
        terminal
            .screen
            .contains("White 0:05:00.0   Black 0:05:00.0"),
        "{}",
        terminal.screen
    );
    terminal.type_line("resign");
    let inform = b.expect("inform");
    assert_eq!(result_of(&inform).as_deref(), Some("0-1"));
    b.expect("conclude");
    b.expect("disconnect");
    let deadline = Instant::now() + Duration::from_secs(10);
    while serial.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(tag(&text, "White").as_deref(), Some("Ann"));
    assert!(text.contains("{White resigns}"), "{text}");
    terminal.wait_for("The game is over: 0-1.");
}

/// A UCI engine that is Stockfish, except that on its `n`-th search (once per
/// `flag` file) it misbehaves as `mode` says: `crash` (exits), `stall` (never answers)
/// or `illegal` (answers a move that is not legal).
fn faulty_stockfish(dir: &Path, mode: &str, n: u32) -> String {
    let script = dir.join(format!("faulty-{mode}.sh"));
    let flag = dir.join(format!("faulty-{mode}.done"));
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/bash
coproc SF {{ /usr/games/stockfish; }}
exec 3<&"${{SF[0]}}" 4>&"${{SF[1]}}"
cat <&3 &
n=0
while IFS= read -r line; do
  case "$line" in
    go*)
      n=$((n+1))
      if [ "$n" -eq {n} ] && [ ! -e "{flag}" ]; then
        touch "{flag}"
        case "{mode}" in
          crash) kill "$SF_PID"; exit 3 ;;
          stall) continue ;;
          illegal) echo "bestmove e1e8"; continue ;;
        esac
      fi ;;
  esac
  echo "$line" >&4
done
"#,
            flag = flag.display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    script.to_string_lossy().into_owned()
}

/// Runs a one-game match of the faulty engine (port A, White) against the random mover
/// and returns the journal. The match must finish: nothing hangs.
fn match_with_faulty_engine(mode: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _cable_a = null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = null_modem(&p("ref-b"), &p("player-b"));
    let engine = format!("uci:{}", faulty_stockfish(dir.path(), mode, 3));
    let mut referee = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args([
                "--tc",
                "60",
                "--reset-delay",
                "0.2",
                "--conclude-delay",
                "0.2",
            ])
            .arg("--pgn")
            .arg(p("games.pgn"))
            .arg("--journal")
            .arg(p("games.jsonl"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let _a = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("client")
            .arg(p("player-a"))
            .args(["--engine", &engine, "--limit", "movetime=50"])
            .spawn()
            .unwrap(),
    );
    let _b = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("client")
            .arg(p("player-b"))
            .args(["--engine", "random", "--seed", "5"])
            .spawn()
            .unwrap(),
    );
    let status = referee.wait_within(Duration::from_secs(90), "the match hung");
    assert!(status.success());
    let pgn = std::fs::read_to_string(p("games.pgn")).unwrap();
    check_pgn_with_pgn_reader(&pgn, 1);
    std::fs::read_to_string(p("games.jsonl")).unwrap()
}

/// The referee received a `fault` from port A, and after it White moved again.
fn assert_fault_then_play(journal: &str) {
    let lines: Vec<&str> = journal.lines().collect();
    let fault = lines
        .iter()
        .position(|l| {
            l.contains(r#""ev":"rx""#) && l.contains(r#""port":"a""#) && l.contains("refreq fault")
        })
        .unwrap_or_else(|| panic!("no fault from port a in the journal"));
    assert!(
        lines[fault + 1..]
            .iter()
            .any(|l| l.contains(r#""port":"a""#)
                && l.contains("refreq reply")
                && l.contains("sm ")),
        "White never moved again after its fault"
    );
}

#[test]
#[ignore = "needs socat and stockfish"]
fn an_engine_that_crashes_is_reported_restarted_and_plays_on() {
    let journal = match_with_faulty_engine("crash");
    assert_fault_then_play(&journal);
    assert!(journal.contains("exited"), "the fault names the crash");
}

#[test]
#[ignore = "needs socat and stockfish"]
fn an_engine_that_stops_answering_is_reported_restarted_and_plays_on() {
    let journal = match_with_faulty_engine("stall");
    assert_fault_then_play(&journal);
}

#[test]
#[ignore = "needs socat and stockfish"]
fn an_engine_that_plays_an_illegal_move_is_reported_restarted_and_plays_on() {
    let journal = match_with_faulty_engine("illegal");
    assert_fault_then_play(&journal);
}

/// Plays a match between two `argus client`s with the given engines through socat
/// null modems and returns the PGN, after checking that the referee finished, that the
/// games are legal to an outside PGN reader, and that replay reproduces them.
fn engine_match(engine_a: &str, engine_b: &str, games: u32, tc: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _cable_a = null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = null_modem(&p("ref-b"), &p("player-b"));
    let mut referee = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args(["--games", &games.to_string(), "--tc", tc])
            .args(["--reset-delay", "0.2", "--conclude-delay", "0.2"])
            .arg("--pgn")
            .arg(p("games.pgn"))
            .arg("--journal")
            .arg(p("games.jsonl"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = |port: &str, engine: &str| {
        Killer(
            Command::new(env!("CARGO_BIN_EXE_argus"))
                .arg("client")
                .arg(p(port))
                .args(["--engine", engine])
                .spawn()
                .unwrap(),
        )
    };
    let mut a = client("player-a", engine_a);
    let mut b = client("player-b", engine_b);
    let status = referee.wait_within(Duration::from_secs(600), "the match did not finish");
    assert!(status.success());
    assert!(
        a.0.wait().unwrap().success(),
        "client a exits 0 after disconnect"
    );
    assert!(
        b.0.wait().unwrap().success(),
        "client b exits 0 after disconnect"
    );
    let pgn = std::fs::read_to_string(p("games.pgn")).unwrap();
    check_pgn_with_pgn_reader(&pgn, games as usize);
    let replayed = p("replayed.pgn");
    let replay = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(p("games.jsonl"))
        .arg("--pgn")
        .arg(&replayed)
        .status()
        .unwrap();
    assert!(replay.success());
    assert_eq!(std::fs::read_to_string(replayed).unwrap(), pgn);
    pgn
}

/// The PGN's games, each as its text.
fn games_of(pgn: &str) -> Vec<&str> {
    pgn.split("[Event ").skip(1).collect()
}

#[test]
#[ignore = "needs socat, stockfish and fairymax"]
fn stockfish_against_fairymax_four_games_at_10_plus_0_1() {
    let pgn = engine_match(
        "uci:/usr/games/stockfish",
        "xboard:/usr/games/fairymax",
        4,
        "10+0.1",
    );
    let games = games_of(&pgn);
    assert_eq!(games.len(), 4);
    for (i, game) in games.iter().enumerate() {
        let game = format!("[Event {game}");
        let (white, black) = (tag(&game, "White").unwrap(), tag(&game, "Black").unwrap());
        let stockfish_white = i % 2 == 0;
        assert_eq!(
            white.starts_with("Stockfish"),
            stockfish_white,
            "colours alternate: {white} - {black}"
        );
        assert!(black.starts_with(if stockfish_white {
            "Fairy-Max"
        } else {
            "Stockfish"
        }));
        let result = tag(&game, "Result").unwrap();
        assert!(
            ["1-0", "0-1", "1/2-1/2"].contains(&result.as_str()),
            "{game}"
        );
        // No time forfeits: argus gives the engines their time right.
        assert_eq!(
            tag(&game, "Termination").as_deref(),
            Some("normal"),
            "{game}"
        );
    }
}

#[test]
#[ignore = "needs socat and gnuchess"]
fn gnuchess_plays_a_game_through_the_cecp_adapter() {
    let pgn = engine_match("xboard:/usr/games/gnuchess --xboard", "random", 1, "5+0.1");
    assert_eq!(
        tag(&pgn, "White")
            .as_deref()
            .map(|w| w.to_lowercase().contains("gnu")),
        Some(true),
        "{pgn}"
    );
    assert_ne!(
        tag(&pgn, "Termination").as_deref(),
        Some("rules infraction"),
        "{pgn}"
    );
}

#[test]
fn the_client_plays_over_tcp_with_connect() {
    use std::io::{BufRead, BufReader};
    use std::net::TcpListener;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mut client = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args([
                "client",
                "--connect",
                &addr,
                "--engine",
                "random",
                "--name",
                "Netty",
            ])
            .spawn()
            .unwrap(),
    );
    let (stream, _) = listener.accept().unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut lines = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    let mut line = String::new();
    lines.read_line(&mut line).unwrap();
    assert!(
        line.contains("refreq sign_on;") && line.contains("\"Netty\""),
        "{line}"
    );
    for record in [
        format!("{START} refcom reset;"),
        format!("{START} ptp TimeControl \"60\"; refcom inform;"),
        format!("{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;"),
    ] {
        writeln!(out, "{record}").unwrap();
    }
    line.clear();
    lines.read_line(&mut line).unwrap();
    let reply = argus::epd::Record::from_ascii(line.trim_end().as_bytes()).unwrap();
    assert_eq!(reply.refreq(), Some("reply"), "{line}");
    let mv = reply.operands("sm").unwrap()[0]
        .as_move_text()
        .unwrap()
        .to_string();
    assert!(
        argus::epd::resolve_move(&shakmaty::Chess::default(), &mv).is_ok(),
        "{line}"
    );
    writeln!(out, "{START} refcom disconnect;").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = client.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the client did not leave after disconnect"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
}

#[test]
fn a_client_signs_on_again_until_it_hears_from_the_referee() {
    // The referee is late: the client's first sign_on could have been lost on a real
    // line, so it signs on again until it hears from the referee.
    let mut referee_end = Peer::new();
    let _client = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(["client", &referee_end.path, "--engine", "random"])
            .spawn()
            .unwrap(),
    );
    let first = referee_end.next(Duration::from_secs(5)).unwrap();
    assert_eq!(first.refreq(), Some("sign_on"));
    let second = referee_end.next(Duration::from_secs(5)).unwrap();
    assert_eq!(second.refreq(), Some("sign_on"));
    // Once the referee speaks, the client stops repeating itself.
    referee_end.send(&format!("{START} refcom reset;"));
    referee_end.expect_silence(Duration::from_millis(3500));
    referee_end.send(&format!("{START} refcom disconnect;"));
}
