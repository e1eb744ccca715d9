//! Replaying a recorded session to live programs (`argus replay --as`): the recorded
//! players against a fresh `argus serial`, the recorded referee against a live
//! `argus client`, and the differences reported when the live side is changed. Every
//! test records a real session over pty pairs first.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::thread;
use std::time::{Duration, Instant};

use argus::core::Port;
use argus::mediator::journal::{self, Event};
use argus::mediator::live_replay::{self, LiveOptions, LiveReport, Pace, Role};
use argus::transport::Duplex;
use argus::transport::serial::HangupReader;
use serialport::{SerialPort, TTYPort};

use common::*;

/// A recorded session: its journal (kept in `_dir`) and the PGN it wrote.
struct Recording {
    _dir: tempfile::TempDir,
    journal: PathBuf,
    pgn: String,
}

impl Recording {
    /// The journal's events.
    fn events(&self) -> Vec<(usize, Event)> {
        journal::read(&self.journal).unwrap()
    }

    /// The journal line of the first `tx` to `port` that contains `text`.
    fn tx_line(&self, port: Port, text: &str) -> usize {
        self.events()
            .into_iter()
            .find_map(|(n, ev)| match ev {
                Event::Tx { port: p, text: t } if p == port && t.contains(text) => Some(n),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no tx to {port} with {text:?}"))
    }

    /// The journal line of the first `rx` from `port` that contains `text`.
    fn rx_line(&self, port: Port, text: &str) -> usize {
        self.events()
            .into_iter()
            .find_map(|(n, ev)| match ev {
                Event::Rx {
                    port: p,
                    text: Some(t),
                    ..
                } if p == port && t.contains(text) => Some(n),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no rx from {port} with {text:?}"))
    }
}

/// Keeps the journal of a finished match.
fn keep(m: &Match, pgn: String) -> Recording {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("recorded.jsonl");
    std::fs::copy(&m.referee.journal, &journal).unwrap();
    Recording {
        _dir: dir,
        journal,
        pgn,
    }
}

/// Records `argus serial` with `extra` options and two scripted players: noise from B,
/// 1.e4 (after `white_thinks`) e5 2.Nf3 Nc6, and White resigns.
fn record(extra: &[&str], white_thinks: Duration) -> Recording {
    let (mut m, respond) = Match::start(extra);
    thread::sleep(white_thinks);
    let respond = m.play(respond, true, &["e4"]).unwrap();
    m.b.send_raw(&[0xff, 0xfe, 0x80, b'\n']);
    m.b.send("garbage that is noise");
    let respond = m.play(respond, false, &["e5", "Nf3", "Nc6"]).unwrap();
    m.a.send(&reply(&respond, "resign;"));
    let pgn = m.finish("0-1");
    keep(&m, pgn)
}

/// The master of a pty as a [`Duplex`], reads timing out when idle.
fn duplex(mut master: TTYPort) -> Duplex {
    master.set_timeout(Duration::from_millis(50)).unwrap();
    let writer = master.try_clone_native().unwrap();
    Duplex {
        reader: Box::new(HangupReader(master)),
        writer: Box::new(writer),
    }
}

/// Options for fast tests: `role`, `pace`, short deadlines.
fn options(role: Role, pace: Pace) -> LiveOptions {
    LiveOptions {
        pace,
        answer_timeout: Duration::from_secs(3),
        quiet: Duration::from_millis(300),
        ..LiveOptions::new(role)
    }
}

/// Starts a live `argus serial` with `extra` options and replays both recorded players
/// to it at once; returns the live referee and both reports.
fn replay_both(
    recording: &Recording,
    extra: &[&str],
    tweak: impl Fn(&mut LiveOptions),
    pace: Pace,
) -> (Referee, LiveReport, LiveReport) {
    let a = Peer::new();
    let b = Peer::new();
    let referee = Referee::start(&a, &b, extra);
    // The slaves stay open here until the replay is over, so that the masters never
    // see a hang-up before the referee opens them.
    let (_slave_a, _slave_b) = (a.slave, b.slave);
    let (da, db) = (duplex(a.master), duplex(b.master));
    let mut oa = options(Role::Player(Port::A), pace);
    let mut ob = options(Role::Player(Port::B), pace);
    tweak(&mut oa);
    tweak(&mut ob);
    let (ra, rb) = thread::scope(|s| {
        let ta = s.spawn(|| live_replay::play(&recording.journal, da, &oa).unwrap());
        let tb = s.spawn(|| live_replay::play(&recording.journal, db, &ob).unwrap());
        (ta.join().unwrap(), tb.join().unwrap())
    });
    (referee, ra, rb)
}

/// The moves of a PGN text, without tags, comments, move numbers and results.
fn moves(pgn: &str) -> Vec<String> {
    // The movetext follows the empty line after the tags.
    let movetext = pgn
        .split_once("\n\n")
        .map_or("", |(_, m)| m)
        .replace('\n', " ");
    let mut out = String::new();
    let mut depth = 0;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace()
        .filter(|t| !t.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(t))
        .map(str::to_string)
        .collect()
}

/// The PGN without its Date tag and its clock comments.
fn without_date_and_clocks(pgn: &str) -> (Vec<String>, Vec<String>) {
    let tags = pgn
        .split_once("\n\n")
        .map_or("", |(tags, _)| tags)
        .lines()
        .filter(|l| l.starts_with('[') && !l.starts_with("[Date "))
        .map(str::to_string)
        .collect();
    (tags, moves(pgn))
}

#[test]
fn both_recorded_players_replay_a_game_to_a_live_referee_without_differences() {
    let recording = record(&[], Duration::ZERO);
    // As if it had been recorded on another day: the live referee's Date differs, and
    // the comparison ignores it.
    let date = tag(&recording.pgn, "Date").unwrap();
    let text = std::fs::read_to_string(&recording.journal).unwrap();
    assert!(text.contains(&format!(r#"Date \"{date}\""#)), "{text}");
    std::fs::write(&recording.journal, text.replace(&date, "2001.01.01")).unwrap();
    let started = Instant::now();
    let (mut referee, ra, rb) = replay_both(&recording, &[], |_| {}, Pace::Instant);
    assert!(ra.is_clean(), "{ra}");
    assert!(rb.is_clean(), "{rb}");
    assert_eq!(ra.matched, ra.received);
    assert_eq!(rb.received, rb.matched);
    // A sent its sign_on, two moves and a resignation; B its sign_on, two lines of
    // noise and two moves.
    assert_eq!((ra.sent, rb.sent), (4, 5), "{ra}\n{rb}");
    assert!(ra.to_string().ends_with("; no differences"), "{ra}");
    assert_eq!(referee.wait(Duration::from_secs(10)), 0);
    assert!(started.elapsed() < Duration::from_secs(5));
    let live = referee.pgn_text();
    assert_eq!(moves(&live), ["e4", "e5", "Nf3", "Nc6"], "{live}");
    assert_eq!(
        without_date_and_clocks(&live),
        without_date_and_clocks(&recording.pgn)
    );
    // The noise went out byte for byte: the live referee journaled it as it was.
    let journal = std::fs::read_to_string(&referee.journal).unwrap();
    assert!(journal.contains(r#""hex":"fffe80""#), "{journal}");
}

#[test]
fn the_recorded_pace_is_kept_and_scaled() {
    // White thought 0.8 s over 1.e4; replayed twice as fast it thinks 0.4 s, and the
    // live referee charges it that.
    let recording = record(&["--tc", "60"], Duration::from_millis(800));
    let emt = |pgn: &str| -> f64 {
        let first = pgn.split("[%emt ").nth(1).unwrap();
        let secs = first.split(']').next().unwrap().rsplit(':').next().unwrap();
        secs.parse().unwrap()
    };
    let recorded = emt(&recording.pgn);
    assert!((0.8..1.0).contains(&recorded), "{}", recording.pgn);
    let (mut referee, ra, rb) = replay_both(
        &recording,
        &["--tc", "60"],
        |_| {},
        Pace::Recorded { speed: 2.0 },
    );
    assert!(ra.is_clean() && rb.is_clean(), "{ra}\n{rb}");
    assert_eq!(referee.wait(Duration::from_secs(10)), 0);
    let live = emt(&referee.pgn_text());
    assert!(
        (recorded / 2.0 - 0.05..recorded / 2.0 + 0.15).contains(&live),
        "recorded {recorded} s, replayed at twice the speed in {live} s"
    );
}

#[test]
fn a_changed_referee_is_reported_at_the_first_line_that_differs() {
    let recording = record(&[], Duration::ZERO);
    // The live referee plays another time control, which its inform announces.
    let (_referee, ra, rb) = replay_both(&recording, &["--tc", "60"], |_| {}, Pace::Instant);
    for (port, report) in [(Port::A, &ra), (Port::B, &rb)] {
        eprintln!("as player {port}: {report}");
        assert_eq!(report.differences.len(), 1, "{report}");
        let d = &report.differences[0];
        assert_eq!(d.journal_line, recording.tx_line(port, "refcom inform"));
        assert!(!d.expected.as_ref().unwrap().contains("TimeControl \"60\""));
        assert!(
            d.got.as_ref().unwrap().contains("TimeControl \"60\""),
            "{d}"
        );
        assert_eq!(
            report.stopped.as_deref(),
            Some("at the first difference"),
            "{report}"
        );
        // The sign_on went out, nothing after it.
        assert_eq!((report.sent, report.received, report.matched), (1, 2, 1));
        let text = report.to_string();
        assert!(
            text.contains(&format!("journal line {}:", d.journal_line)),
            "{text}"
        );
        assert!(
            text.contains("stopped early: at the first difference"),
            "{text}"
        );
    }
}

#[test]
fn keep_going_reports_every_difference_and_the_game_still_completes() {
    let recording = record(&[], Duration::ZERO);
    let (mut referee, ra, rb) = replay_both(
        &recording,
        &["--tc", "60"],
        |o| o.keep_going = true,
        Pace::Instant,
    );
    for report in [&ra, &rb] {
        // The inform at the start and the one with the result; clocks are ignored.
        assert_eq!(report.differences.len(), 2, "{report}");
        assert!(report.stopped.is_none(), "{report}");
        assert_eq!(report.matched + 2, report.received, "{report}");
        for d in &report.differences {
            assert!(d.got.as_ref().unwrap().contains("refcom inform"), "{d}");
        }
    }
    assert_eq!(referee.wait(Duration::from_secs(10)), 0);
    assert_eq!(moves(&referee.pgn_text()), ["e4", "e5", "Nf3", "Nc6"]);
}

#[test]
fn a_live_side_that_says_nothing_is_reported_within_the_deadline() {
    let recording = record(&[], Duration::ZERO);
    // Nobody on the other end of this pty: the sign_on goes out, no reset comes.
    let (master, _slave) = TTYPort::pair().unwrap();
    let mut o = options(Role::Player(Port::A), Pace::Instant);
    o.answer_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let report = live_replay::play(&recording.journal, duplex(master), &o).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(report.sent, 1);
    assert_eq!(report.differences.len(), 1, "{report}");
    let d = &report.differences[0];
    assert_eq!(d.journal_line, recording.tx_line(Port::A, "refcom reset"));
    assert_eq!(d.got, None);
    assert_eq!(report.stopped.as_deref(), Some("the live side fell silent"));
    assert!(
        report.to_string().contains("the live side never sent"),
        "{report}"
    );
}

#[test]
fn bad_speeds_and_journals_are_errors() {
    let (master, _slave) = TTYPort::pair().unwrap();
    let o = options(Role::Player(Port::A), Pace::Recorded { speed: 0.0 });
    let err = live_replay::play(Path::new("/nonexistent.jsonl"), duplex(master), &o)
        .unwrap_err()
        .to_string();
    assert!(err.contains("speed 0"), "{err}");
    let (master, _slave) = TTYPort::pair().unwrap();
    let o = options(Role::Player(Port::A), Pace::Instant);
    let err = live_replay::play(Path::new("/nonexistent.jsonl"), duplex(master), &o)
        .unwrap_err()
        .to_string();
    assert!(err.contains("/nonexistent.jsonl"), "{err}");
}

/// Joins two pty masters as a null-modem cable would, for as long as `running` says.
fn bridge(p: &mut Peer, q: &mut Peer) -> bool {
    use std::io::{Read, Write};
    let mut buf = [0u8; 4096];
    match p.master.read(&mut buf) {
        Ok(n) if n > 0 => {
            q.master.write_all(&buf[..n]).unwrap();
            true
        }
        _ => false,
    }
}

/// `argus client --engine random --seed SEED` on `path`.
fn random_client(path: &str, seed: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["client", path, "--engine", "random", "--seed", seed])
        .spawn()
        .unwrap()
}

/// Records a game between two seeded random clients through `argus serial`.
fn record_random_game() -> Recording {
    let mut ref_a = Peer::new();
    let mut ref_b = Peer::new();
    let mut cli_a = Peer::new();
    let mut cli_b = Peer::new();
    for p in [&mut ref_a, &mut ref_b, &mut cli_a, &mut cli_b] {
        p.master.set_timeout(Duration::from_millis(1)).unwrap();
    }
    let mut referee = Referee::start(&ref_a, &ref_b, &["--tc", "60+1"]);
    let mut ca = random_client(&cli_a.path, "3");
    let mut cb = random_client(&cli_b.path, "4");
    let deadline = Instant::now() + Duration::from_secs(60);
    while referee.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "the recorded game did not finish"
        );
        let mut moved = bridge(&mut cli_a, &mut ref_a);
        moved |= bridge(&mut ref_a, &mut cli_a);
        moved |= bridge(&mut cli_b, &mut ref_b);
        moved |= bridge(&mut ref_b, &mut cli_b);
        if !moved {
            thread::sleep(Duration::from_micros(200));
        }
    }
    for _ in 0..50 {
        bridge(&mut ref_a, &mut cli_a);
        bridge(&mut ref_b, &mut cli_b);
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(referee.wait(Duration::from_secs(5)), 0);
    assert!(ca.wait().unwrap().success());
    assert!(cb.wait().unwrap().success());
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("recorded.jsonl");
    std::fs::copy(&referee.journal, &journal).unwrap();
    Recording {
        _dir: dir,
        journal,
        pgn: referee.pgn_text(),
    }
}

/// Replays the recorded referee toward a live random client with `seed` on port A.
fn replay_referee_to_client(recording: &Recording, seed: &str, pace: Pace) -> (LiveReport, Child) {
    let peer = Peer::new();
    let client = random_client(&peer.path, seed);
    let _slave = peer.slave;
    let o = options(Role::Referee { client: Port::A }, pace);
    let report = live_replay::play(&recording.journal, duplex(peer.master), &o).unwrap();
    (report, client)
}

#[test]
fn the_recorded_referee_replays_to_a_live_client_and_a_different_client_is_caught() {
    let recording = record_random_game();
    let plies = moves(&recording.pgn).len();
    assert!(plies >= 2, "{}", recording.pgn);

    // The same seed plays the same moves: not a line differs (the client's address in
    // its sign_on, which names another pty, is ignored).
    let started = Instant::now();
    let (report, mut client) =
        replay_referee_to_client(&recording, "3", Pace::Recorded { speed: 1.0 });
    eprintln!("{plies} plies replayed in {:?}", started.elapsed());
    assert!(report.is_clean(), "{report}");
    assert!(report.received > plies / 2, "{report}");
    assert!(client.wait().unwrap().success());

    // Another seed plays another first move: the first reply differs.
    let (report, mut client) = replay_referee_to_client(&recording, "5", Pace::Instant);
    eprintln!("as the referee: {report}");
    assert_eq!(report.differences.len(), 1, "{report}");
    let d = &report.differences[0];
    assert_eq!(d.journal_line, recording.rx_line(Port::A, "refreq reply"));
    assert!(d.got.as_ref().unwrap().contains("refreq reply"), "{d}");
    let _ = client.kill();
    let _ = client.wait();
}
