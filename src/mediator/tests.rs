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

/// A line of the test's: its feed (what the player sends) and what it is sent.
fn test_line() -> (stamped::Feed, Receiver<String>, Wire) {
    test_line_unread(None)
}

/// [`test_line`], whose connection has bytes not read yet while `unread` says so.
fn test_line_unread(
    unread: Option<Arc<std::sync::atomic::AtomicBool>>,
) -> (stamped::Feed, Receiver<String>, Wire) {
    let (feed, mut inbox) = stamped::channel();
    if let Some(unread) = unread {
        inbox = inbox.with_unread(Arc::new(move || {
            unread.load(std::sync::atomic::Ordering::SeqCst)
        }));
    }
    let (to, out) = crossbeam_channel::unbounded();
    let writer = Box::new(Lines {
        to,
        partial: Vec::new(),
    });
    let wire = Wire::Stamped(Stamped {
        lines: inbox,
        writer,
    });
    (feed, out, wire)
}

type Started = (
    Vec<stamped::Feed>,
    Vec<Receiver<String>>,
    std::thread::JoinHandle<Outcome>,
    Arc<Mutex<Vec<GameReport>>>,
);

/// A mediator over two test lines, playing `config` into a journal in `dir`; port b
/// reopened by `reopen_b`.
fn start(dir: &std::path::Path, config: MatchConfig, reopen_b: Option<Opener>) -> Started {
    start_unread(dir, config, reopen_b, None)
}

/// [`start`], port a's connection holding bytes not read yet while `unread_a` says so.
fn start_unread(
    dir: &std::path::Path,
    config: MatchConfig,
    reopen_b: Option<Opener>,
    unread_a: Option<Arc<std::sync::atomic::AtomicBool>>,
) -> Started {
    let mut feeds = Vec::new();
    let mut outs = Vec::new();
    let mut lines = Vec::new();
    let mut reopens = [None, reopen_b];
    let mut unread = [unread_a, None];
    for (i, name) in ["a", "b"].into_iter().enumerate() {
        let (feed, out, wire) = test_line_unread(unread[i].take());
        lines.push(Line {
            label: name.into(),
            wire,
            reopen: reopens[i].take(),
        });
        feeds.push(feed);
        outs.push(out);
    }
    let pgn = dir.join("games.pgn");
    let mut journal = Journal::create(&dir.join("m.jsonl")).unwrap();
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
    (feeds, outs, mediator, reports)
}

/// Signs both players on.
fn sign_on(feeds: &[stamped::Feed]) {
    for (feed, name) in feeds.iter().zip(["Ann", "Bob"]) {
        say(
            feed,
            &format!("{START} refreq sign_on; tcsi \"{name}\" \"{name}\";"),
        );
    }
}

fn say(feed: &stamped::Feed, line: &str) {
    feed.deliver(LinkEvent::Line {
        at: Instant::now(),
        bytes: line.as_bytes().to_vec(),
    })
    .unwrap();
}

fn quick(tc: &str) -> MatchConfig {
    MatchConfig {
        event: "gate".into(),
        reset_delay: Duration::from_millis(10),
        conclude_delay: Duration::from_millis(10),
        ..crate::core::referee::tests::config(tc)
    }
}

/// A reply stamped before the flag's deadline, whose hand-over to the mediator is held
/// up until well after it (the router's thread preempted between its stamp and its
/// send, as on a machine busy with a thousand connections), is judged in time: the
/// mediator waits for it before it lets the flag fall.
#[test]
fn a_reply_stamped_before_the_flag_but_handed_over_after_it_is_in_time() {
    let dir = tempfile::tempdir().unwrap();
    // Two seconds for the game: White's flag is due two seconds after its respond.
    let (feeds, outs, mediator, reports) = start(dir.path(), quick("2"), None);
    sign_on(&feeds);
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

/// A player whose connection dropped connects again (a new connection, as `argus
/// serve` hands a game): the `respond` the referee queued for the old connection while
/// it was down is not sent on the new one. The new connection hears the reset first,
/// then the game, then its own `respond`.
#[test]
fn a_new_connection_is_sent_nothing_queued_for_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let (next, connections) = crossbeam_channel::unbounded::<Wire>();
    let reopen: Opener = Box::new(move || {
        connections
            .try_recv()
            .map_err(|_| io::Error::other("no new connection yet"))
    });
    let (mut feeds, outs, mediator, reports) = start(dir.path(), quick("60"), Some(reopen));
    sign_on(&feeds);
    let wait = Duration::from_secs(30);
    line_with(&outs[0], "refcom respond", wait).expect("White is asked to move");
    // Black's connection drops; White moves, and Black's respond waits for a line.
    drop(feeds.pop());
    std::thread::sleep(Duration::from_millis(200));
    say(&feeds[0], &format!("{START} refreq reply; sm e4;"));
    std::thread::sleep(Duration::from_millis(200));
    // Black connects again: its sign_on comes first on the new connection.
    let (feed, out, wire) = test_line();
    say(
        &feed,
        &format!("{START} refreq sign_on; tcsi \"Bob\" \"Bob\";"),
    );
    next.send(wire).unwrap();
    let first = out
        .recv_timeout(wait)
        .expect("the new connection hears the referee");
    assert!(
        first.contains("refcom reset;"),
        "the first line on the new connection: {first}"
    );
    let respond = line_with(&out, "refcom respond", wait).expect("Black is asked to move");
    assert!(respond.ends_with("refcom respond; sm e4;"), "{respond}");
    say(&feed, &format!("{AFTER_E4} refreq reply; resign;"));
    let outcome = mediator.join().unwrap();
    assert!(outcome.over);
    let reports = reports.lock().unwrap();
    assert_eq!(reports[0].result.to_string(), "1-0");
    // The journal says the line came back over a new connection, and replays.
    let journal = std::fs::read_to_string(dir.path().join("m.jsonl")).unwrap();
    assert!(
        journal.contains("{\"ev\":\"back\",\"t\":") && journal.contains("\"fresh\":true}"),
        "{journal}"
    );
}

/// A reply that reached the machine before White's flag fell but sat unread in the
/// socket while the connections' loop was busy (its receive time is its stamp) is
/// judged in time: the flag waits for the unread bytes before it falls.
#[test]
fn a_flag_waits_for_a_reply_that_arrived_but_is_not_read_yet() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let unread = Arc::new(AtomicBool::new(false));
    let (feeds, outs, mediator, reports) =
        start_unread(dir.path(), quick("2"), None, Some(Arc::clone(&unread)));
    sign_on(&feeds);
    let wait = Duration::from_secs(30);
    line_with(&outs[0], "refcom respond", wait).expect("White is asked to move");
    // White's reply arrives at 1.5 s of its 2, and is read only at 2.05 s.
    std::thread::sleep(Duration::from_millis(1500));
    let arrived = Instant::now();
    unread.store(true, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(550));
    feeds[0]
        .deliver(LinkEvent::Line {
            at: arrived,
            bytes: format!("{START} refreq reply; sm e4;").into_bytes(),
        })
        .unwrap();
    unread.store(false, Ordering::SeqCst);
    if line_with(&outs[1], "refcom respond", Duration::from_secs(10)).is_some() {
        say(&feeds[1], &format!("{AFTER_E4} refreq reply; resign;"));
    }
    let outcome = mediator.join().unwrap();
    assert!(outcome.over);
    let reports = reports.lock().unwrap();
    let report = reports.first().expect("the game is over");
    assert_eq!(
        report.result.to_string(),
        "1-0",
        "White's reply arrived before its flag: {}",
        report.reason
    );
}
