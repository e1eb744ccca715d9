use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::observer::{Copies, CopyError, game_number};
use super::*;

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

fn read_msg(input: &mut BufReader<TcpStream>) -> Msg {
    loop {
        let mut line = Vec::new();
        input.read_until(b'\n', &mut line).expect("a line");
        match Msg::parse(&line).expect("a message") {
            Msg::Beat => continue,
            msg => return msg,
        }
    }
}

#[test]
fn messages_are_lines_of_json() {
    let msg = Msg::Lines {
        seq: 3,
        file: "games/game-0001.jsonl".into(),
        at: 120,
        text: "{\"ev\":\"timer\",\"t\":5}\n".into(),
    };
    let line = msg.line();
    assert!(line.ends_with('\n'));
    assert_eq!(line.matches('\n').count(), 1, "{line}");
    assert_eq!(Msg::parse(line.as_bytes()).unwrap(), msg);
    assert_eq!(
        Msg::parse(br#"{"m":"ack","seq":7}"#).unwrap(),
        Msg::Ack { seq: 7 }
    );
    assert!(Msg::parse(b"{\"m\":\"nonsense\"}").is_err());
}

#[test]
fn only_sent_lines_are_waited_for() {
    assert!(holds_tx(
        b"{\"ev\":\"rx\",\"t\":1}\n{\"ev\":\"tx\",\"port\":\"a\"}\n"
    ));
    assert!(!holds_tx(
        b"{\"ev\":\"rx\",\"t\":1,\"text\":\"{\\\"ev\\\":\\\"tx\\\"\"}\n"
    ));
    assert!(!holds_tx(b"{\"ev\":\"drained\",\"t\":1,\"port\":\"a\"}\n"));
}

#[test]
fn an_observer_gets_the_files_then_each_line_and_its_ack_releases_a_sync_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("games")).unwrap();
    std::fs::write(dir.path().join("event.jsonl"), "{\"a\":1}\n{\"half\":").unwrap();
    std::fs::write(dir.path().join("games/game-0001.jsonl"), "{\"b\":2}\n").unwrap();
    std::fs::write(dir.path().join("games/game-0001.pgn"), "not a journal").unwrap();
    let hub = Hub::listen(loopback(), dir.path(), true, None, Box::new(|_| {})).unwrap();
    let stream = TcpStream::connect(hub.addr()).unwrap();
    let mut out = stream.try_clone().unwrap();
    let mut input = BufReader::new(stream);
    // The event's journal first, up to its last whole line; no PGN.
    let Msg::Lines { file, at, text, .. } = read_msg(&mut input) else {
        panic!("lines first")
    };
    assert_eq!(
        (file.as_str(), at, text.as_str()),
        ("event.jsonl", 0, "{\"a\":1}\n")
    );
    let Msg::Lines {
        seq, file, text, ..
    } = read_msg(&mut input)
    else {
        panic!("lines")
    };
    assert_eq!(
        (file.as_str(), text.as_str()),
        ("games/game-0001.jsonl", "{\"b\":2}\n")
    );
    // Once it holds them, it is waited for.
    out.write_all(Msg::Ack { seq }.line().as_bytes()).unwrap();
    wait_caught_up(&hub);
    // A write holding a line to send waits for the observer's acknowledgement.
    let released = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (hub, released) = (Arc::clone(&hub), Arc::clone(&released));
        let path = dir.path().join("games/game-0001.jsonl");
        std::thread::spawn(move || {
            hub.publish(&path, 8, b"{\"ev\":\"tx\",\"port\":\"a\",\"text\":\"x\"}\n");
            released.store(1, Ordering::SeqCst);
        })
    };
    let Msg::Lines { seq, at, .. } = read_msg(&mut input) else {
        panic!("the new line")
    };
    assert_eq!(at, 8);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        released.load(Ordering::SeqCst),
        0,
        "released before the ack"
    );
    out.write_all(Msg::Ack { seq }.line().as_bytes()).unwrap();
    writer.join().unwrap();
    assert_eq!(released.load(Ordering::SeqCst), 1);
    // The end is said to the observer.
    hub.close(false);
    assert_eq!(read_msg(&mut input), Msg::End { stopped: false });
}

/// Waits until every observer of `hub` is waited for.
fn wait_caught_up(hub: &Hub) {
    let began = Instant::now();
    while lock(&hub.state).peers.iter().any(|p| p.lagging) || hub.observers() == 0 {
        assert!(began.elapsed() < Duration::from_secs(5), "never caught up");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_connection_that_never_acknowledges_holds_no_sync_write_up() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("j.jsonl"), "{\"a\":1}\n").unwrap();
    let hub = Hub::listen(loopback(), dir.path(), true, None, Box::new(|_| {})).unwrap();
    let _scan = TcpStream::connect(hub.addr()).unwrap();
    while hub.observers() == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let began = Instant::now();
    hub.publish(
        &dir.path().join("j.jsonl"),
        8,
        b"{\"ev\":\"tx\",\"port\":\"a\",\"text\":\"x\"}\n",
    );
    assert!(
        began.elapsed() < Duration::from_millis(500),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn a_silent_observer_holds_a_sync_write_up_no_longer_than_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let hub = Hub::listen(loopback(), dir.path(), true, None, Box::new(|_| {})).unwrap();
    // An observer that caught up (nothing to hold yet), then falls silent.
    let mut silent = TcpStream::connect(hub.addr()).unwrap();
    while hub.observers() == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let seq = lock(&hub.state).seq;
    silent
        .write_all(Msg::Ack { seq }.line().as_bytes())
        .unwrap();
    wait_caught_up(&hub);
    let path = dir.path().join("j.jsonl");
    let began = Instant::now();
    hub.publish(&path, 0, b"{\"ev\":\"tx\",\"port\":\"a\",\"text\":\"x\"}\n");
    let waited = began.elapsed();
    assert!(waited >= SYNC_WAIT && waited < SYNC_WAIT * 2, "{waited:?}");
    // Lagging: not waited for again until it catches up.
    let began = Instant::now();
    hub.publish(
        &path,
        40,
        b"{\"ev\":\"tx\",\"port\":\"b\",\"text\":\"y\"}\n",
    );
    assert!(began.elapsed() < Duration::from_millis(500));
}

#[test]
fn the_word_that_an_observer_took_over_reaches_the_primary() {
    let dir = tempfile::tempdir().unwrap();
    let heard = Arc::new(Mutex::new(String::new()));
    let hub = {
        let heard = Arc::clone(&heard);
        Hub::listen(
            loopback(),
            dir.path(),
            false,
            None,
            Box::new(move |by| *heard.lock().unwrap() = by.to_string()),
        )
        .unwrap()
    };
    assert!(tell_taken(&hub.addr().to_string(), "observer 1", None));
    let began = Instant::now();
    while heard.lock().unwrap().is_empty() {
        assert!(began.elapsed() < Duration::from_secs(5), "never heard");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(heard.lock().unwrap().starts_with("observer 1"));
}

/// With a key, only an observer that proves it holds it is sent anything or believed:
/// a `took_over` without the handshake, or with another key, is not heard; with the
/// key it is.
#[test]
fn with_a_key_only_an_observer_that_holds_it_is_believed() {
    use crate::secret::Key;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("event.jsonl"), "{\"event\":\"serve\"}\n").unwrap();
    let heard = Arc::new(Mutex::new(String::new()));
    let key = Key::new(b"0123456789abcdef0123");
    let hub = {
        let heard = Arc::clone(&heard);
        Hub::listen(
            loopback(),
            dir.path(),
            false,
            Some(key.clone()),
            Box::new(move |by| *heard.lock().unwrap() = by.to_string()),
        )
        .unwrap()
    };
    let addr = hub.addr().to_string();
    // A stranger: the challenge, then nothing of the journals; its word is not heard.
    let mut stranger = TcpStream::connect(&addr).unwrap();
    stranger
        .write_all(Msg::TookOver { by: "x".into() }.line().as_bytes())
        .unwrap();
    stranger
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut got = String::new();
    let _ = std::io::Read::read_to_string(&mut stranger, &mut got);
    assert!(got.starts_with("{\"m\":\"hello\""), "{got}");
    assert!(!got.contains("event.jsonl"), "{got}");
    tell_taken(&addr, "observer 0", None);
    assert!(!tell_taken(
        &addr,
        "observer 1",
        Some(&Key::new(b"another key, long enough"))
    ));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        heard.lock().unwrap().is_empty(),
        "{}",
        heard.lock().unwrap()
    );
    assert!(tell_taken(&addr, "observer 2", Some(&key)));
    let began = Instant::now();
    while heard.lock().unwrap().is_empty() {
        assert!(began.elapsed() < Duration::from_secs(5), "never heard");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(heard.lock().unwrap().starts_with("observer 2"));
}

/// A line longer than [`MAX_LINE`] from an observer closes its connection: the primary
/// does not keep it.
#[test]
fn an_overlong_line_from_an_observer_closes_its_connection() {
    let dir = tempfile::tempdir().unwrap();
    let hub = Hub::listen(loopback(), dir.path(), false, None, Box::new(|_| {})).unwrap();
    let mut stream = TcpStream::connect(hub.addr()).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let chunk = vec![b'x'; 64 * 1024];
    let mut sent = 0usize;
    while sent < 64 * 1024 * 1024 {
        match stream.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(
        sent < 64 * 1024 * 1024,
        "the primary took {sent} bytes of one line"
    );
}

#[test]
fn a_copy_takes_what_it_lacks_and_refuses_gaps_and_foreign_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new(dir.path(), Box::new(|_, _| {}));
    copies.apply("event.jsonl", 0, "{\"a\":1}\n").unwrap();
    // Overlapping: only the new part is written.
    copies
        .apply("event.jsonl", 0, "{\"a\":1}\n{\"b\":2}\n")
        .unwrap();
    copies.apply("event.jsonl", 8, "{\"b\":2}\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("event.jsonl")).unwrap(),
        "{\"a\":1}\n{\"b\":2}\n"
    );
    assert!(matches!(
        copies.apply("event.jsonl", 99, "{}\n"),
        Err(CopyError::Gap { have: 16, .. })
    ));
    // Another referee's lines where these go: refused.
    assert!(matches!(
        copies.apply("event.jsonl", 0, "{\"a\":9}\n"),
        Err(CopyError::Differs(_))
    ));
    for bad in ["../x.jsonl", "/etc/x.jsonl", ""] {
        assert!(
            matches!(copies.apply(bad, 0, "{}\n"), Err(CopyError::Name(_))),
            "{bad}"
        );
    }
    assert_eq!(game_number("games/game-0012.jsonl"), Some(12));
    assert_eq!(game_number("argus.jsonl"), None);
}

/// A primary played by the test: it accepts one observer, sends it `script` (lines,
/// and pauses as `None`), then keeps the connection open until the observer closes
/// it; it returns everything the observer said, and whether a second connection (the
/// observer's word on a connection of its own) came.
fn fake_primary(
    script: Vec<(Option<Msg>, Duration)>,
) -> (String, std::thread::JoinHandle<(String, bool)>) {
    let listener = std::net::TcpListener::bind(loopback()).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut out = stream.try_clone().unwrap();
        let reading = std::thread::spawn(move || {
            let mut said = String::new();
            let _ = std::io::Read::read_to_string(&mut &stream, &mut said);
            said
        });
        for (msg, pause) in script {
            if let Some(msg) = msg {
                let _ = out.write_all(msg.line().as_bytes());
            }
            std::thread::sleep(pause);
        }
        let said = reading.join().unwrap();
        listener.set_nonblocking(true).unwrap();
        (said, listener.accept().is_ok())
    });
    (addr, handle)
}

fn how<'a>(
    primary: &str,
    after: Option<Duration>,
    asked: &'a AtomicBool,
    ready: &'a dyn Fn() -> Result<(), String>,
) -> observer::Follow<'a> {
    observer::Follow {
        primary: primary.to_string(),
        takeover_after: after,
        asked,
        by: "test".into(),
        ready,
        key: None,
    }
}

use std::sync::atomic::AtomicBool;

#[test]
fn a_takeover_the_copy_cannot_go_on_with_is_never_told_to_the_primary() {
    let not_ready = || Err::<(), _>("no --ports".to_string());
    // Silent: the following ends, the primary is not told.
    let (addr, primary) = fake_primary(vec![(Some(Msg::Beat), Duration::from_millis(100))]);
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new(dir.path(), Box::new(|_, _| {}));
    let asked = AtomicBool::new(false);
    let outcome = observer::follow(
        &how(&addr, Some(Duration::from_millis(300)), &asked, &not_ready),
        &mut copies,
    );
    assert_eq!(outcome, observer::Outcome::Failed("no --ports".into()));
    drop(copies);
    let (said, told_apart) = primary.join().unwrap();
    assert!(!said.contains("took_over") && !told_apart, "{said}");
    // Asked: refused, and the following goes on to the primary's end.
    let (addr, primary) = fake_primary(vec![
        (Some(Msg::Beat), Duration::from_millis(400)),
        (Some(Msg::End { stopped: false }), Duration::ZERO),
    ]);
    let mut copies = Copies::new(dir.path(), Box::new(|_, _| {}));
    let asked = AtomicBool::new(true);
    let outcome = observer::follow(&how(&addr, None, &asked, &not_ready), &mut copies);
    assert_eq!(outcome, observer::Outcome::Ended { stopped: false });
    assert!(!asked.load(Ordering::SeqCst), "the ask is spent");
    let (said, told_apart) = primary.join().unwrap();
    assert!(!said.contains("took_over") && !told_apart, "{said}");
}

#[test]
fn the_time_the_observer_takes_over_lines_is_no_silence_of_the_primary() {
    // Lines that take the observer 600 ms to apply, under --takeover-after 0.3, with the
    // primary's beats behind them: not silence.
    let mut script = vec![(
        Some(Msg::Lines {
            seq: 1,
            file: "event.jsonl".into(),
            at: 0,
            text: "{\"event\":\"serve\"}\n".into(),
        }),
        Duration::ZERO,
    )];
    script.extend((0..20).map(|_| (Some(Msg::Beat), Duration::from_millis(50))));
    script.push((Some(Msg::End { stopped: false }), Duration::ZERO));
    let (addr, primary) = fake_primary(script);
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new(dir.path(), Box::new(|_, _| {}));
    copies.on_event_line(Box::new(|_| {
        std::thread::sleep(Duration::from_millis(600));
        observer::EventLine::default()
    }));
    let asked = AtomicBool::new(false);
    let ready = || Ok(());
    let outcome = observer::follow(
        &how(&addr, Some(Duration::from_millis(300)), &asked, &ready),
        &mut copies,
    );
    assert_eq!(outcome, observer::Outcome::Ended { stopped: false });
    let (said, _) = primary.join().unwrap();
    assert!(!said.contains("took_over"), "{said}");
}

#[test]
fn what_does_not_speak_the_stream_is_said_and_never_taken_over_for_silence() {
    // A referee's players' port: a line that is no message.
    let listener = std::net::TcpListener::bind(loopback()).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.write_all(b"fault sign_on expected\n").unwrap();
        std::thread::sleep(Duration::from_secs(2));
    });
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new(dir.path(), Box::new(|_, _| {}));
    let asked = AtomicBool::new(false);
    let ready = || Ok(());
    let outcome = observer::follow(
        &how(&addr, Some(Duration::from_millis(200)), &asked, &ready),
        &mut copies,
    );
    let observer::Outcome::Failed(why) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(why.contains("does not speak the standby stream"), "{why}");
    // Something that says nothing at all: never heard, so never silent.
    let listener = std::net::TcpListener::bind(loopback()).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let _held = std::thread::spawn(move || {
        let _conns: Vec<_> = listener.incoming().take(3).collect();
        std::thread::sleep(Duration::from_secs(3));
    });
    let asked = Arc::new(AtomicBool::new(false));
    {
        let asked = Arc::clone(&asked);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1200));
            asked.store(true, Ordering::SeqCst);
        });
    }
    let outcome = observer::follow(
        &how(&addr, Some(Duration::from_millis(200)), &asked, &ready),
        &mut copies,
    );
    assert_eq!(outcome, observer::Outcome::Asked);
}

#[test]
fn a_stalled_observer_never_holds_an_asynchronous_write_up_and_is_let_go_whole() {
    let dir = tempfile::tempdir().unwrap();
    let hub = Hub::listen(loopback(), dir.path(), false, None, Box::new(|_| {})).unwrap();
    // An observer that reads nothing.
    let mut stalled = TcpStream::connect(hub.addr()).unwrap();
    while hub.observers() == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let path = dir.path().join("j.jsonl");
    let line = format!("{{\"ev\":\"tx\",\"text\":\"{}\"}}\n", "x".repeat(64 * 1024));
    let began = Instant::now();
    let mut at = 0;
    while hub.observers() > 0 {
        assert!(began.elapsed() < Duration::from_secs(20), "never let go");
        let one = Instant::now();
        hub.publish(&path, at, line.as_bytes());
        assert!(
            one.elapsed() < Duration::from_millis(500),
            "a write held up"
        );
        at += line.len() as u64;
        std::thread::sleep(Duration::from_millis(2));
    }
    // Let go both ways: its words are refused soon, nothing reads them any more.
    let deadline = Instant::now() + Duration::from_secs(5);
    let refused = loop {
        if stalled
            .write_all(Msg::Ack { seq: 1 }.line().as_bytes())
            .is_err()
        {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(refused, "the connection is still read");
}

#[test]
fn an_observer_that_joins_a_big_event_holds_no_write_up() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("games")).unwrap();
    let line = format!("{{\"ev\":\"rx\",\"text\":\"{}\"}}\n", "\\\"x".repeat(500));
    let journal = line.repeat(100);
    for n in 1..=150 {
        std::fs::write(
            dir.path().join(format!("games/game-{n:04}.jsonl")),
            &journal,
        )
        .unwrap();
    }
    let hub = Hub::listen(loopback(), dir.path(), false, None, Box::new(|_| {})).unwrap();
    let path = dir.path().join("games/game-0150.jsonl");
    // The games' writes go on while an observer joins and is sent the folder.
    let joined = {
        let addr = hub.addr();
        std::thread::spawn(move || {
            let stream = TcpStream::connect(addr).unwrap();
            let mut input = BufReader::new(stream);
            for _ in 0..150 {
                let Msg::Lines { text, .. } = read_msg(&mut input) else {
                    panic!("the folder's journals first")
                };
                assert!(!text.is_empty());
            }
            input
        })
    };
    let mut worst = Duration::ZERO;
    let mut at = journal.len() as u64;
    while !joined.is_finished() {
        let one = Instant::now();
        hub.publish(&path, at, line.as_bytes());
        worst = worst.max(one.elapsed());
        at += line.len() as u64;
        std::thread::sleep(Duration::from_millis(1));
    }
    joined.join().unwrap();
    assert!(
        worst < Duration::from_millis(100),
        "a write waited {worst:?}"
    );
}

/// An observer that follows a journal being written, from `join` lines on: its copy,
/// byte for byte.
fn follow_into(addr: SocketAddr, copy: &Path) -> std::thread::JoinHandle<()> {
    let copy = copy.to_path_buf();
    std::thread::spawn(move || {
        let stream = TcpStream::connect(addr).unwrap();
        let mut out = stream.try_clone().unwrap();
        let mut input = BufReader::new(stream);
        let mut copies = Copies::new(&copy, Box::new(|_, _| {}));
        loop {
            match read_msg(&mut input) {
                Msg::Lines {
                    seq,
                    file,
                    at,
                    text,
                } => {
                    copies.apply(&file, at, &text).unwrap();
                    let _ = out.write_all(Msg::Ack { seq }.line().as_bytes());
                }
                Msg::End { .. } => return,
                other => panic!("{other:?}"),
            }
        }
    })
}

#[test]
fn observers_that_join_while_the_journal_is_written_hold_it_byte_for_byte() {
    use crate::core::Port;
    use crate::mediator::journal::{Event, Journal};
    for sync in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (primary, copy) = (dir.path().join("primary"), dir.path().join("copy"));
        std::fs::create_dir_all(primary.join("games")).unwrap();
        let hub = Hub::listen(loopback(), &primary, sync, None, Box::new(|_| {})).unwrap();
        let path = primary.join("games/game-0001.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        journal.set_tap(hub.tap());
        let mut observers = Vec::new();
        for n in 0..3000 {
            let event = Event::Tx {
                port: Port::A,
                text: format!("line {n} {}", "y".repeat(n % 97)),
            };
            // Now and then two lines in one write, as the mediator writes an input
            // and what it sends.
            if n % 5 == 0 {
                journal.write_held(&event).unwrap();
            } else {
                journal.write(&event).unwrap();
            }
            if n % 1000 == 500 {
                observers.push(follow_into(hub.addr(), &copy.join(format!("{n}"))));
            }
        }
        journal.flush().unwrap();
        drop(journal);
        // Every observer has joined before the end is said.
        while hub.observers() < observers.len() {
            std::thread::sleep(Duration::from_millis(5));
        }
        hub.close(false);
        let written = std::fs::read(&path).unwrap();
        for (observer, n) in observers.into_iter().zip([500, 1500, 2500]) {
            observer.join().unwrap();
            let held =
                std::fs::read(copy.join(format!("{n}")).join("games/game-0001.jsonl")).unwrap();
            assert!(
                held == written,
                "sync {sync}: the observer that joined at line {n}"
            );
        }
    }
}

/// A client's reader that keeps every byte it reads (what reached the client).
struct Recording {
    inner: Box<dyn std::io::Read + Send>,
    into: Arc<Mutex<Vec<u8>>>,
}

impl std::io::Read for Recording {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.into.lock().unwrap().extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// A tap that, like `--standby-sync`, takes its time over each write holding a line to
/// send, and counts the lines that reached their client before it returned.
struct Strict {
    received: [Arc<Mutex<Vec<u8>>>; 2],
    tapped: Mutex<std::collections::HashMap<(usize, String), usize>>,
    sent: Arc<AtomicUsize>,
    early: Arc<Mutex<Vec<String>>>,
}

impl super::super::journal::Tap for Strict {
    fn written(&self, _path: &Path, _at: u64, text: &[u8]) {
        use crate::mediator::journal::Event;
        let sent: Vec<(usize, String)> = text
            .split(|&b| b == b'\n')
            .filter_map(|l| serde_json::from_slice::<Event>(l).ok())
            .filter_map(|e| match e {
                Event::Tx { port, text } => Some((port.index(), text)),
                _ => None,
            })
            .collect();
        if sent.is_empty() {
            return;
        }
        // Whatever was handed to a line before the write would reach its client now.
        std::thread::sleep(Duration::from_millis(5));
        let mut tapped = self.tapped.lock().unwrap();
        for (port, line) in sent {
            let before = tapped.entry((port, line.clone())).or_default();
            let received = self.received[port].lock().unwrap();
            let reached = String::from_utf8_lossy(&received)
                .lines()
                .filter(|l| *l == line)
                .count();
            if reached > *before {
                self.early.lock().unwrap().push(line.clone());
            }
            *before += 1;
            self.sent.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[test]
fn no_byte_of_a_line_to_send_leaves_before_the_journal_write_is_tapped() {
    use crate::client::{self, ClientOptions, random::RandomEngine};
    use crate::core::{MatchConfig, Referee};
    use crate::mediator::journal::{self, Event, Journal};
    use crate::mediator::{Eol, Line, Records};
    use crate::transport::{Duplex, memory};

    let dir = tempfile::tempdir().unwrap();
    let config = MatchConfig {
        event: "standby order".into(),
        reset_delay: Duration::from_millis(50),
        conclude_delay: Duration::from_millis(50),
        ..crate::core::referee::tests::config("60+1")
    };
    let received: [Arc<Mutex<Vec<u8>>>; 2] = Default::default();
    let mut lines = Vec::new();
    let mut clients = Vec::new();
    for (i, into) in received.iter().enumerate() {
        let (referee_end, client_end) = memory::pair();
        let duplex = Duplex {
            reader: Box::new(Recording {
                inner: client_end.reader,
                into: Arc::clone(into),
            }),
            writer: client_end.writer,
        };
        let opts = ClientOptions {
            name: Some(format!("R{i}")),
            address: format!("memory-{i}"),
            eol: Eol::Lf,
            checksum: false,
            token: None,
            restarts: None,
        };
        clients.push(std::thread::spawn(move || {
            let mut engine = RandomEngine::new(i as u64 + 7, Duration::from_millis(2));
            client::run(duplex, &mut engine, &opts)
        }));
        lines.push(Line {
            label: format!("memory-{i}"),
            wire: referee_end.into(),
            reopen: None,
        });
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
    let (sent, early) = (Arc::new(AtomicUsize::new(0)), Arc::default());
    journal.set_tap(Box::new(Strict {
        received: received.clone(),
        tapped: Mutex::default(),
        sent: Arc::clone(&sent),
        early: Arc::clone(&early),
    }));
    let mut records = Records {
        journal,
        pgn: Some(pgn),
    };
    let (_control, controls) = crossbeam_channel::unbounded();
    let lines: [Line; 2] = lines.try_into().map_err(|_| "two").unwrap();
    crate::mediator::run(
        Referee::new(config).unwrap(),
        lines,
        Eol::Lf,
        &mut records,
        &mut (),
        controls,
    )
    .unwrap();
    for c in clients {
        let _ = c.join();
    }
    assert!(sent.load(Ordering::SeqCst) > 20, "a game was played");
    let early = early.lock().unwrap();
    assert!(
        early.is_empty(),
        "lines that left before their write was tapped: {early:?}"
    );
}

#[test]
fn a_big_journal_comes_in_pieces_of_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 3 * SNAPSHOT_PIECE {
        text.push_str(&format!(
            "{{\"n\":{n},\"pad\":\"{}\"}}\n",
            "z".repeat(n % 300)
        ));
        n += 1;
    }
    // One line longer than a piece goes whole.
    text.push_str(&format!(
        "{{\"long\":\"{}\"}}\n",
        "w".repeat(SNAPSHOT_PIECE + 10)
    ));
    text.push_str("{\"last\":1}\n{\"half\":");
    std::fs::write(dir.path().join("m.jsonl"), &text).unwrap();
    let hub = Hub::listen(loopback(), dir.path(), false, None, Box::new(|_| {})).unwrap();
    let mut input = BufReader::new(TcpStream::connect(hub.addr()).unwrap());
    let copy = tempfile::tempdir().unwrap();
    let mut copies = Copies::new(copy.path(), Box::new(|_, _| {}));
    let whole = text.rfind('\n').unwrap() + 1;
    let mut pieces = 0;
    let mut got = 0;
    while got < whole {
        let Msg::Lines {
            file,
            at,
            text: piece,
            ..
        } = read_msg(&mut input)
        else {
            panic!("lines")
        };
        assert_eq!(at as usize, got);
        assert!(piece.ends_with('\n'));
        assert!(piece.len() <= SNAPSHOT_PIECE || piece.lines().count() == 1);
        copies.apply(&file, at, &piece).unwrap();
        got += piece.len();
        pieces += 1;
    }
    assert!(pieces >= 4, "{pieces} pieces");
    let held = std::fs::read_to_string(copy.path().join("m.jsonl")).unwrap();
    assert!(held == text[..whole], "the copy differs");
}

#[test]
fn a_message_of_a_newer_primary_is_the_stream_still() {
    let listener = std::net::TcpListener::bind(loopback()).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .write_all(b"{\"m\":\"hello\",\"version\":9}\n{\"m\":\"end\",\"stopped\":false}\n")
            .unwrap();
        std::thread::sleep(Duration::from_secs(1));
    });
    let dir = tempfile::tempdir().unwrap();
    let mut copies = Copies::new(dir.path(), Box::new(|_, _| {}));
    let asked = AtomicBool::new(false);
    let ready = || Ok(());
    let outcome = observer::follow(&how(&addr, None, &asked, &ready), &mut copies);
    assert_eq!(outcome, observer::Outcome::Ended { stopped: false });
}

#[test]
fn writes_waiting_for_an_observer_found_lagging_go_on_with_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let hub = Hub::listen(loopback(), dir.path(), true, None, Box::new(|_| {})).unwrap();
    let mut silent = TcpStream::connect(hub.addr()).unwrap();
    while hub.observers() == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let seq = lock(&hub.state).seq;
    silent
        .write_all(Msg::Ack { seq }.line().as_bytes())
        .unwrap();
    wait_caught_up(&hub);
    let path = dir.path().join("j.jsonl");
    let tx = b"{\"ev\":\"tx\",\"port\":\"a\",\"text\":\"x\"}\n";
    let began = Instant::now();
    let first = {
        let (hub, path) = (Arc::clone(&hub), path.clone());
        std::thread::spawn(move || hub.publish(&path, 0, tx))
    };
    // A second game's write, a second later: released with the first, at 2 s.
    std::thread::sleep(Duration::from_secs(1));
    hub.publish(&path, 40, tx);
    let second = began.elapsed();
    first.join().unwrap();
    assert!(
        second < SYNC_WAIT + Duration::from_millis(500),
        "{second:?}"
    );
}

/// An observer that joins a busy event is behind the newest line whenever its
/// acknowledgement comes: it catches up once it holds what was written when it came, and
/// is waited for from then on.
#[test]
fn an_observer_that_joins_a_busy_event_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.jsonl");
    let hub = Hub::listen(loopback(), dir.path(), true, None, Box::new(|_| {})).unwrap();
    let mut observer = TcpStream::connect(hub.addr()).unwrap();
    while hub.observers() == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let joined = lock(&hub.state).seq;
    // The event goes on before the observer's first acknowledgement comes.
    hub.publish(&path, 0, b"{\"ev\":\"rx\",\"port\":\"a\",\"text\":\"x\"}\n");
    observer
        .write_all(Msg::Ack { seq: joined }.line().as_bytes())
        .unwrap();
    wait_caught_up(&hub);
    // Waited for again: a line to send waits for its acknowledgement.
    let seq = lock(&hub.state).seq + 1;
    let acker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        observer
            .write_all(Msg::Ack { seq }.line().as_bytes())
            .unwrap();
        observer
    });
    let began = Instant::now();
    hub.publish(
        &path,
        40,
        b"{\"ev\":\"tx\",\"port\":\"b\",\"text\":\"y\"}\n",
    );
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < SYNC_WAIT,
        "{waited:?}"
    );
    drop(acker.join());
}
