//! A whole match through pty links made by socat, a program nobody here wrote: the
//! referee and two `argus client` processes each open a socat pty by its link name,
//! exactly as they would open `/dev/ttyUSB0` on a club's PCs.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Killer(Child);

impl Drop for Killer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A socat null-modem: two linked ptys at `one` and `two`.
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
