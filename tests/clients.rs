//! `argus client` with real players behind it: a person at a terminal (driven through
//! a pty, as a terminal emulator would), and engines through the adapters.

#![cfg(unix)]

mod common;

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serialport::{SerialPort, TTYPort};

struct Killer(Child);

impl Drop for Killer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A socat null modem: two linked ptys at `one` and `two`.
fn null_modem(one: &Path, two: &Path) -> Killer {
    let child = Command::new("socat")
        .arg(format!("pty,raw,echo=0,link={}", one.display()))
        .arg(format!("pty,raw,echo=0,link={}", two.display()))
        .stderr(Stdio::null())
        .spawn()
        .expect("socat is installed");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(one.exists() && two.exists()) {
        assert!(Instant::now() < deadline, "socat made no ptys");
        std::thread::sleep(Duration::from_millis(20));
    }
    Killer(child)
}

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
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
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
