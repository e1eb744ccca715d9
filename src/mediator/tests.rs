//! The mediator's loop against lines driven by the test.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use super::*;
use crate::core::MatchConfig;
use crate::mediator::journal::{self, Event, Journal};
use crate::transport::stamped::{self, Stamped};

/// What the referee writes to a line, line by line.
struct Lines {
    to: Sender<String>,
    partial: Vec<u8>,
}

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            let _ = self
                .to
                .send(String::from_utf8_lossy(&line).trim_end().to_string());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps the game's report.
struct Reports(Arc<Mutex<Vec<GameReport>>>);

impl Watcher for Reports {
    fn notice(&mut self, _notice: &Notice) {}

    fn game_over(&mut self, report: &GameReport) {
        self.0.lock().unwrap().push(report.clone());
    }
}

/// Waits for a line holding `word` (none within `wait`: `None`).
fn line_with(lines: &Receiver<String>, word: &str, wait: Duration) -> Option<String> {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(word) => return Some(line),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";

/// A reply stamped before the flag's deadline, whose hand-over to the mediator is held
/// up until well after it (the router's thread preempted between its stamp and its
/// send, as on a machine busy with a thousand connections), is judged in time: the
/// mediator waits for it before it lets the flag fall.
#[test]
fn a_reply_stamped_before_the_flag_but_handed_over_after_it_is_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let config = MatchConfig {
        event: "gate".into(),
        // Two seconds for the game: White's flag is due two seconds after its respond.
        reset_delay: Duration::from_millis(10),
        conclude_delay: Duration::from_millis(10),
        ..crate::core::referee::tests::config("2")
    };
    let mut feeds = Vec::new();
    let mut outs = Vec::new();
    let mut lines = Vec::new();
    for name in ["a", "b"] {
        let (feed, inbox) = stamped::channel();
        let (to, out) = crossbeam_channel::unbounded();
        let writer = Box::new(Lines {
            to,
            partial: Vec::new(),
        });
        lines.push(Line {
            label: name.into(),
            wire: Wire::Stamped(Stamped {
                lines: inbox,
                writer,
            }),
            reopen: None,
        });
        feeds.push(feed);
        outs.push(out);
    }
    let pgn = dir.path().join("games.pgn");
    let mut journal = Journal::create(&dir.path().join("m.jsonl")).unwrap();
    journal
        .write(&Event::Session {
            version: journal::VERSION,
            argus: "test".into(),
            started: journal::now_rfc3339(),
            ports: ["a".into(), "b".into()],
            lines: None,
            eol: Some("lf".into()),
            pgn: Some(pgn.clone()),
            config: Box::new(config.clone()),
        })
        .unwrap();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let mediator = {
        let reports = Arc::clone(&reports);
        let lines: [Line; 2] = lines.try_into().map_err(|_| "two").unwrap();
        std::thread::spawn(move || {
            let mut records = Records {
                journal,
                pgn: Some(pgn),
            };
            let (_control, controls) = crossbeam_channel::unbounded();
            run(
                Referee::new(config).unwrap(),
                lines,
                Eol::Lf,
                &mut records,
                &mut Reports(reports),
                controls,
            )
            .unwrap()
        })
    };
    for (feed, name) in feeds.iter().zip(["Ann", "Bob"]) {
        let sign_on = format!("{START} refreq sign_on; tcsi \"{name}\" \"{name}\";");
        let at = Instant::now();
        feed.deliver(LinkEvent::Line {
            at,
            bytes: sign_on.into_bytes(),
        })
        .unwrap();
    }
    let wait = Duration::from_secs(30);
    line_with(&outs[0], "refcom respond", wait).expect("White is asked to move");
    // The reply is stamped now, within White's two seconds, and reaches the mediator's
    // channel only four seconds later.
    let refused = feeds[0].stamp(|at| {
        std::thread::sleep(Duration::from_secs(4));
        vec![LinkEvent::Line {
            at,
            bytes: format!("{START} refreq reply; sm e4;").into_bytes(),
        }]
    });
    assert!(refused.is_empty(), "the game took White's reply");
    if line_with(&outs[1], "refcom respond", Duration::from_secs(10)).is_some() {
        feeds[1]
            .deliver(LinkEvent::Line {
                at: Instant::now(),
                bytes: format!("{AFTER_E4} refreq reply; resign;").into_bytes(),
            })
            .unwrap();
    }
    let outcome = mediator.join().unwrap();
    assert!(outcome.over);
    let reports = reports.lock().unwrap();
    let report = reports.first().expect("the game is over");
    assert_eq!(
        report.result.to_string(),
        "1-0",
        "White's reply was stamped before its flag: {}",
        report.reason
    );
    assert!(
        report.pgn.contains("1. e4"),
        "White's move is in the game: {}",
        report.pgn
    );
}
