//! An observer of a serial match (`argus serial --standby-listen`, `argus observe
//! --ports A,B`) over socat null modems: the primary killed outright mid-game, the
//! observer opens the same ports (the cables moved to its PC, as docs/club-event.md
//! says) and finishes the match from its copy of the journal, the clients
//! resynchronised; with `--standby-sync` every move that reached an opponent is in the
//! final PGN.

#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Killer, null_modem};

/// The moves relayed to an opponent (`sm` in a `respond`) in the journal's text that
/// surely reached it: those whose line the journal says drained from the port (the
/// `drained` events of a port follow its lines sent, in order). A line journaled but not
/// drained may not have left: with `--standby-sync` it waits for the observer first.
fn relayed(journal: &str) -> Vec<String> {
    let mut sent: [std::collections::VecDeque<Option<String>>; 2] = Default::default();
    let mut out = Vec::new();
    for v in journal
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        let port = usize::from(v["port"] == "b");
        match v["ev"].as_str() {
            Some("tx") => {
                let text = v["text"].as_str().unwrap_or_default();
                let sm = text
                    .contains("refcom respond;")
                    .then(|| {
                        text.split("; ")
                            .find_map(|op| op.trim().strip_prefix("sm "))
                    })
                    .flatten()
                    .map(|m| m.trim_end_matches(';').to_string());
                sent[port].push_back(sm);
            }
            Some("drained") => {
                if let Some(Some(sm)) = sent[port].pop_front() {
                    out.push(sm);
                }
            }
            // What the dead referee had not sent is gone with it.
            Some("resume") => sent.iter_mut().for_each(std::collections::VecDeque::clear),
            _ => {}
        }
    }
    out
}

#[test]
#[ignore = "needs socat"]
fn a_killed_serial_referee_is_taken_over_by_its_observer_on_the_same_ports() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _cable_a = null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = null_modem(&p("ref-b"), &p("player-b"));
    let standby = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let journal = p("match.jsonl");
    let mut primary = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args(["--games", "2", "--tc", "120+1", "--baud", "19200"])
            .args(["--reset-delay", "0.2", "--conclude-delay", "0.2"])
            .arg("--pgn")
            .arg(p("match.pgn"))
            .arg("--journal")
            .arg(&journal)
            .args(["--standby-listen", &standby, "--standby-sync"])
            .args(["--unattended", "--plain"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let ports = format!("{},{}", p("ref-a").display(), p("ref-b").display());
    let copy = p("copy");
    let mut observer = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(["observe", &standby, "--out"])
            .arg(&copy)
            .args(["--takeover-after", "2", "--ports", &ports, "--unattended"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let said = observer.0.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(said).lines().map_while(Result::ok) {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let client = |port: &str, seed: &str, name: &str| {
        Killer(
            Command::new(env!("CARGO_BIN_EXE_argus"))
                .arg("client")
                .arg(p(port))
                .args(["--engine", "random", "--seed", seed, "--name", name])
                .args(["--baud", "19200", "--think-ms", "30"])
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let mut a = client("player-a", "11", "Socrates");
    let mut b = client("player-b", "12", "Plato");
    let deadline = Instant::now() + Duration::from_secs(60);
    while relayed(&std::fs::read_to_string(&journal).unwrap_or_default()).len() < 20 {
        assert!(Instant::now() < deadline, "the first game did not get far");
        std::thread::sleep(Duration::from_millis(20));
    }
    primary.0.kill().unwrap();
    let killed = Instant::now();
    let _ = primary.0.wait();
    let sent = relayed(&std::fs::read_to_string(&journal).unwrap());
    let mut seen = Vec::new();
    let took = loop {
        let (at, line) = lines
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no takeover: {seen:?}"));
        let found = line.contains("taking over");
        seen.push(line);
        if found {
            break at;
        }
    };
    assert!(
        took.duration_since(killed) < Duration::from_secs(5),
        "{:?}",
        took.duration_since(killed)
    );
    let status = observer.wait_within(Duration::from_secs(180), "the match did not finish");
    seen.extend(lines.try_iter().map(|(_, l)| l));
    assert!(status.success(), "{seen:?}");
    assert!(
        seen.iter()
            .any(|l| l.contains("match over: 2 of 2 game(s) played")),
        "{seen:?}"
    );
    assert!(a.0.wait().unwrap().success());
    assert!(b.0.wait().unwrap().success());
    let pgn = std::fs::read_to_string(copy.join("match.pgn")).unwrap();
    common::check_pgn_with_pgn_reader(&pgn, 2);
    // Every move that reached an opponent before the kill is in the copy's journal, in
    // its place: the journal the observer finished holds them first.
    assert!(sent.len() >= 19, "{sent:?}");
    let finished = relayed(&std::fs::read_to_string(copy.join("match.jsonl")).unwrap());
    assert!(
        finished.len() >= sent.len() && finished[..sent.len()] == sent[..],
        "before the kill {sent:?}\nthe copy {finished:?}"
    );
}
