//! Memory does not grow with the match: replaying and resuming a long journal read it one
//! event at a time. A journal of 6,000 short games (scripted through the referee core,
//! written as the mediator writes it) is replayed and resumed by the real binary, and
//! the largest resident set of those processes is measured with `getrusage`.
//!
//! One test in this file: `RUSAGE_CHILDREN` covers every child the test process waited
//! for.

#![cfg(unix)]

use std::collections::VecDeque;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use argus::core::{DrawRule, IllegalRule, Input, MatchConfig, Output, Port, Referee};
use argus::epd::Record;
use argus::mediator::journal::{Event, Journal};
use shakmaty::fen::Epd;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const GAMES: u32 = 6000;
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// The reply to `respond`: the next move of the scholar's mate.
fn reply(respond: &str) -> String {
    let rec = Record::from_ascii(respond.as_bytes()).unwrap();
    let mut pos: Chess = rec.setup().position(CastlingMode::Standard).unwrap();
    if let Some(sm) = rec.operands("sm").and_then(|o| o.first()) {
        let m = argus::epd::resolve_move(&pos, sm.as_move_text().unwrap()).unwrap();
        pos.play_unchecked(m);
    }
    let plies = 2 * (pos.fullmoves().get() - 1) + u32::from(pos.turn().is_black());
    let mv = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"][plies as usize];
    let epd = Epd::from_position(&pos, EnPassantMode::Legal);
    format!("{epd} refreq reply; sm {mv};")
}

/// Writes the journal of a `GAMES`-game match of scholar's mates at `path`.
fn long_journal(path: &Path, pgn: &Path) {
    let config = MatchConfig {
        event: "Memory".into(),
        site: "Here".into(),
        date: "2026.11.25".into(),
        round: None,
        names: [Some("A".into()), Some("B".into())],
        port_labels: ["a".into(), "b".into()],
        time_control: "-".parse().unwrap(),
        games: GAMES,
        openings: Vec::new(),
        reset_delay: Duration::ZERO,
        conclude_delay: Duration::ZERO,
        draw_rule: DrawRule::Auto,
        illegal: IllegalRule::Loss,
        attended: false,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        keep_info: false,
        variant: Default::default(),
        wire: Default::default(),
    };
    let mut journal = Journal::create(path).unwrap();
    journal
        .write(&Event::Session {
            version: argus::mediator::journal::VERSION,
            argus: "test".into(),
            started: "2026-11-25T00:00:00Z".into(),
            ports: ["a".into(), "b".into()],
            lines: None,
            eol: Some("lf".into()),
            pgn: Some(pgn.to_path_buf()),
            config: Box::new(config.clone()),
        })
        .unwrap();
    let mut referee = Referee::new(config).unwrap();
    let mut t = 0u64;
    let mut inputs: VecDeque<Input> = VecDeque::new();
    for port in Port::BOTH {
        inputs.push_back(Input::Line {
            port,
            at: Duration::ZERO,
            bytes: format!("{START} refreq sign_on;").into_bytes(),
            record: None,
        });
    }
    let mut over = false;
    while let Some(input) = inputs.pop_front() {
        journal.write(&Event::from_input(&input)).unwrap();
        referee.handle(input);
        while let Some(output) = referee.poll_output() {
            t += 10;
            let at = Duration::from_micros(t);
            match output {
                Output::Send { port, line, .. } => {
                    journal
                        .write(&Event::Tx {
                            port,
                            text: line.clone(),
                        })
                        .unwrap();
                    inputs.push_back(Input::Drained { port, at });
                    if line.contains("refcom respond") {
                        inputs.push_back(Input::Line {
                            port,
                            at: at + Duration::from_micros(5),
                            bytes: reply(&line).into_bytes(),
                            record: None,
                        });
                    }
                }
                Output::GameOver(report) => journal
                    .write(&Event::GameOver {
                        game: report.number,
                        result: report.result.to_string(),
                        termination: report.termination.to_string(),
                        reason: report.reason.clone(),
                        pgn: report.pgn.clone(),
                        pgn_at: None,
                    })
                    .unwrap(),
                Output::Notice(_) | Output::Stopped => {}
                Output::MatchOver => over = true,
            }
        }
    }
    assert!(over, "the scripted match ended");
    journal.write(&Event::End { t }).unwrap();
}

/// The largest resident set, in kilobytes, of the children waited for so far.
fn children_max_rss_kb() -> i64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0);
    usage.ru_maxrss
}

#[test]
fn replaying_and_resuming_a_long_journal_stay_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("long.jsonl");
    let pgn = dir.path().join("long.pgn");
    long_journal(&journal, &pgn);
    let size = std::fs::metadata(&journal).unwrap().len();
    assert!(size > 20_000_000, "a long journal: {size} bytes");
    // What the binary takes doing nothing (its code, mostly: the test's debug build is
    // over 100 MB and grows with the code), so that the bound is on what the journal
    // costs, not on the size of the program.
    let status = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["replay", "--help"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let idle_kb = children_max_rss_kb();

    let replayed = dir.path().join("replayed.pgn");
    let status = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&journal)
        .arg("--pgn")
        .arg(&replayed)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let games = std::fs::read_to_string(&replayed).unwrap();
    assert_eq!(games.matches("[Event ").count(), GAMES as usize);
    let replay_kb = children_max_rss_kb();

    // The match is over: the resume rebuilds it, says so and exits.
    let out = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", "--unattended", "--resume"])
        .arg(&journal)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("is over: 6000 of 6000"));
    let both_kb = children_max_rss_kb();
    eprintln!(
        "journal {} MB: idle peak RSS {idle_kb} kB, replay {replay_kb} kB, resume and replay {both_kb} kB",
        size / 1_000_000,
    );
    // About 5 MB above the idle program for a 26 MB journal (2026-11-26: idle 10.8 MB,
    // resume and replay 15.8 to 16.1 MB).
    assert!(
        both_kb - idle_kb < 8_000,
        "peak RSS {both_kb} kB ({idle_kb} kB idle) for a {size}-byte journal"
    );
}
