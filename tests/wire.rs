//! The line simulator (`argus::field::wire`) and the cable tester (`argus::field::cable_test`), through
//! pty pairs (the simulator on the masters, the test on the slaves), through socat null
//! modems, and through fake in-memory cables that garble, cut or drop bytes.

#![cfg(unix)]

mod common;

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use argus::field::cable_test::{self, CableReport};
use argus::field::wire::{self, WireOptions, WireStats};
use argus::transport::Duplex;
use argus::transport::pty::{self, PtyEnd};
use argus::transport::serial::{self, SerialSettings};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use common::null_modem;

/// Runs the tests of this file one at a time: on a small machine, a simulator spinning
/// for one test would disturb the timing of another.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running simulator: its stop flag and its thread.
struct Wire {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<io::Result<WireStats>>>,
}

impl Wire {
    fn start(a: Duplex, b: Duplex, baud: u32, noise: f64, seed: u64) -> Wire {
        let options = WireOptions {
            settings: SerialSettings {
                baud,
                ..SerialSettings::default()
            },
            noise,
            seed,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = thread::spawn(move || wire::run(a, b, &options, &flag));
        Wire {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the simulator and returns its stats; it must stop within a second.
    fn finish(mut self) -> WireStats {
        self.stop.store(true, Ordering::SeqCst);
        self.join(Duration::from_secs(1))
    }

    /// Waits for the simulator to stop by itself within `timeout`.
    fn join(&mut self, timeout: Duration) -> WireStats {
        let thread = self.thread.take().expect("joined once");
        let deadline = Instant::now() + timeout;
        while !thread.is_finished() {
            assert!(Instant::now() < deadline, "the simulator did not stop");
            thread::sleep(Duration::from_millis(5));
        }
        thread
            .join()
            .expect("no panic")
            .expect("the simulator ends cleanly")
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Reads until `n` bytes have arrived or `deadline` passes; returns them and when the
/// last arrived.
fn read_n(reader: &mut dyn Read, n: usize, deadline: Instant) -> (Vec<u8>, Option<Instant>) {
    let mut got = Vec::new();
    let mut last = None;
    let mut buf = [0u8; 4096];
    while got.len() < n && Instant::now() < deadline {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => {
                last = Some(Instant::now());
                got.extend_from_slice(&buf[..k]);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => panic!("read: {e}"),
        }
    }
    (got, last)
}

/// A 100-byte EPD-like line.
fn line_of_100() -> Vec<u8> {
    let mut line =
        b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refcom respond; ".to_vec();
    line.resize(99, b' ');
    line.push(b'\n');
    line
}

/// Two pty pairs with the simulator on the masters: returns the simulator and the
/// slaves (A's, B's).
fn wire_on_ptys(baud: u32, noise: f64, seed: u64) -> (Wire, PtyEnd, PtyEnd) {
    let (ma, sa) = pty::pair().unwrap();
    let (mb, sb) = pty::pair().unwrap();
    (Wire::start(ma.duplex, mb.duplex, baud, noise, seed), sa, sb)
}

/// Writes `line` at one end, reads it at the other and returns the milliseconds from
/// the first byte written to the last byte read.
fn time_line(writer: &mut dyn Write, reader: &mut dyn Read, line: &[u8]) -> f64 {
    let t0 = Instant::now();
    writer.write_all(line).unwrap();
    let (got, last) = read_n(reader, line.len(), t0 + Duration::from_secs(2));
    assert_eq!(got, line, "the line arrives whole and unchanged");
    last.unwrap().duration_since(t0).as_secs_f64() * 1000.0
}

const NOMINAL_MS: f64 = 100.0 * 10.0 / 9600.0 * 1000.0;

/// Measures `measure` (milliseconds) in batches of `per_batch` and checks the figures
/// against `nominal`: no figure more than 1 ms early, and the median of a batch within
/// ± 5 ms. A figure may come in late when the shared machine is busy (the simulator, the
/// test's reader and socat all have to be scheduled), so the median of a batch, not every
/// figure, is held to ± 5 ms, and a batch spoilt by load is followed by another, up to
/// three. Prints every figure.
fn check_timing(what: &str, nominal: f64, per_batch: usize, mut measure: impl FnMut() -> f64) {
    for batch in 1..=3 {
        let times: Vec<f64> = (0..per_batch).map(|_| measure()).collect();
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        eprintln!(
            "{what} (nominal {nominal:.2} ms), batch {batch}: median {median:.2} ms, \
             min {:.2}, max {:.2}, all {times:.2?}",
            sorted[0],
            sorted[sorted.len() - 1]
        );
        assert!(sorted[0] >= nominal - 1.0, "early: {times:.2?}");
        if (median - nominal).abs() <= 5.0 {
            return;
        }
    }
    panic!("{what}: the median of three batches was off by more than 5 ms");
}

/// Times 100-byte lines alternately each way between `one` and `two`.
fn check_line_timing(what: &str, one: &mut Duplex, two: &mut Duplex) {
    let line = line_of_100();
    let mut turn = 0;
    check_timing(
        &format!("100 bytes at 9600 8N1 through {what}"),
        NOMINAL_MS,
        10,
        || {
            turn += 1;
            thread::sleep(Duration::from_millis(20));
            if turn % 2 == 1 {
                time_line(&mut *one.writer, &mut *two.reader, &line)
            } else {
                time_line(&mut *two.writer, &mut *one.reader, &line)
            }
        },
    );
}

#[test]
fn a_100_byte_line_takes_104_ms_at_9600_baud_through_pty_pairs() {
    let _alone = alone();
    let (wire, mut a, mut b) = wire_on_ptys(9600, 0.0, 0);
    check_line_timing("pty pairs", &mut a.duplex, &mut b.duplex);
    let stats = wire.finish();
    assert_eq!(stats.bytes[0], stats.bytes[1], "every line relayed");
    assert!(stats.bytes[0] >= 500 && stats.bytes[0].is_multiple_of(100));
    assert_eq!(stats.corrupted, [0, 0]);
}

#[test]
fn lines_written_while_the_line_is_busy_queue_back_to_back() {
    let _alone = alone();
    let (wire, mut a, mut b) = wire_on_ptys(9600, 0.0, 0);
    let line = line_of_100();
    check_timing(
        "two 100-byte lines at 9600 8N1, the second written 30 ms after the first",
        2.0 * NOMINAL_MS,
        3,
        || {
            thread::sleep(Duration::from_millis(20));
            let t0 = Instant::now();
            a.duplex.writer.write_all(&line).unwrap();
            thread::sleep(Duration::from_millis(30));
            a.duplex.writer.write_all(&line).unwrap();
            let (got, last) = read_n(&mut *b.duplex.reader, 200, t0 + Duration::from_secs(2));
            assert_eq!(got.len(), 200);
            last.unwrap().duration_since(t0).as_secs_f64() * 1000.0
        },
    );
    wire.finish();
}

#[test]
#[ignore = "needs socat"]
fn a_100_byte_line_takes_104_ms_at_9600_baud_through_socat() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _one = null_modem(&p("writer"), &p("wire-a"));
    let _two = null_modem(&p("wire-b"), &p("reader"));
    let settings = SerialSettings::default();
    let open = |name: &str| serial::open(&p(name).to_string_lossy(), &settings).unwrap();
    let wire = Wire::start(open("wire-a"), open("wire-b"), 9600, 0.0, 0);
    let (mut writer, mut reader) = (open("writer"), open("reader"));
    check_line_timing("socat", &mut writer, &mut reader);
    let stats = wire.finish();
    assert_eq!(stats.bytes[0], stats.bytes[1], "every line relayed");
    assert!(stats.bytes[0] >= 500 && stats.bytes[0].is_multiple_of(100));
}

/// Sends `data` from A to B through a simulator with `noise` and `seed`; returns what
/// arrived and the simulator's stats.
fn through_noise(data: &[u8], noise: f64, seed: u64) -> (Vec<u8>, WireStats) {
    let (wire, mut a, mut b) = wire_on_ptys(115_200, noise, seed);
    a.duplex.writer.write_all(data).unwrap();
    let (got, _) = read_n(
        &mut *b.duplex.reader,
        data.len(),
        Instant::now() + Duration::from_secs(3),
    );
    (got, wire.finish())
}

#[test]
fn noise_corrupts_bytes_as_counted_and_repeatably() {
    let _alone = alone();
    let data: Vec<u8> = (0..2000).map(|i| (i * 7 % 251) as u8).collect();
    let (got, stats) = through_noise(&data, 0.1, 42);
    assert_eq!(got.len(), data.len());
    let differ = data.iter().zip(&got).filter(|(s, r)| s != r).count() as u64;
    eprintln!("noise 0.1, seed 42, 2000 bytes: {differ} corrupted");
    assert!(differ > 100 && differ < 300, "{differ} of 2000 at 0.1");
    assert_eq!(stats.bytes[0], 2000);
    assert_eq!(stats.corrupted[0], differ);
    for (s, r) in data.iter().zip(&got) {
        assert!((s ^ r).count_ones() <= 1, "one bit flipped at most");
    }
    let (again, _) = through_noise(&data, 0.1, 42);
    assert_eq!(again, got, "the same seed corrupts the same bytes");

    let (clean, stats) = through_noise(&data, 0.0, 42);
    assert_eq!(clean, data);
    assert_eq!(stats.corrupted, [0, 0]);
}

#[test]
fn the_simulator_stops_when_a_port_closes() {
    let _alone = alone();
    let (mut wire, a, b) = wire_on_ptys(9600, 0.0, 0);
    drop(a);
    let stats = wire.join(Duration::from_secs(2));
    assert_eq!(stats.bytes, [0, 0]);
    drop(b);
}

#[test]
fn impossible_options_are_an_error() {
    let _alone = alone();
    let (ma, _sa) = pty::pair().unwrap();
    let (mb, _sb) = pty::pair().unwrap();
    let options = WireOptions {
        settings: SerialSettings::default(),
        noise: 2.0,
        seed: 0,
    };
    let err = wire::run(ma.duplex, mb.duplex, &options, &AtomicBool::new(false)).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}

fn assert_clean(report: &CableReport) {
    eprintln!("{report}");
    assert!(report.is_clean(), "{report}");
    assert!(report.to_string().ends_with("cable OK"));
    for d in &report.directions {
        assert_eq!((d.received, d.corrupted, d.missing), (d.sent, 0, 0));
    }
}

#[test]
fn cable_test_passes_on_a_pty_pair() {
    let _alone = alone();
    let settings = SerialSettings::default();
    let (master, slave) = pty::pair().unwrap();
    let bytes = cable_test::default_bytes(&settings);
    let started = Instant::now();
    let report = cable_test::test_pair(
        master.duplex,
        slave.duplex,
        ["master", "slave"],
        &settings,
        bytes,
    )
    .unwrap();
    assert_clean(&report);
    assert_eq!(report.directions.len(), 2);
    assert_eq!(report.directions[0].sent, 1920);
    assert_eq!(report.directions[1].from, "slave");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
#[ignore = "needs socat"]
fn cable_test_passes_on_a_socat_pair() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    let _cable = null_modem(&one, &two);
    let settings = SerialSettings::default();
    let a = serial::open(&one.to_string_lossy(), &settings).unwrap();
    let b = serial::open(&two.to_string_lossy(), &settings).unwrap();
    let report = cable_test::test_pair(a, b, ["one", "two"], &settings, 4000).unwrap();
    assert_clean(&report);
}

/// Checks that a cable test through a noisy simulator fails, blames noise, and counts
/// what the simulator corrupted.
fn assert_noise_found(report: &CableReport, stats: &WireStats) {
    eprintln!("{report}");
    eprintln!("simulator: {stats:?}");
    assert!(!report.is_clean());
    let hint = report.hint.as_deref().unwrap();
    assert!(hint.contains("noise"), "{hint}");
    assert!(report.to_string().contains("cable NOT clean: line noise"));
    for (dir, d) in report.directions.iter().enumerate() {
        assert_eq!(d.received, d.sent);
        assert_eq!(d.corrupted as u64, stats.corrupted[dir]);
        // Paced at 9600 baud: close to the nominal 960 bytes/s.
        assert!(
            d.bytes_per_sec > 0.9 * d.nominal_bytes_per_sec
                && d.bytes_per_sec < 1.02 * d.nominal_bytes_per_sec,
            "{} bytes/s",
            d.bytes_per_sec
        );
    }
}

#[test]
fn cable_test_names_noise_from_the_simulator_on_ptys() {
    let _alone = alone();
    let (wire, a, b) = wire_on_ptys(9600, 0.02, 5);
    let report = cable_test::test_pair(
        a.duplex,
        b.duplex,
        ["A", "B"],
        &SerialSettings::default(),
        1000,
    )
    .unwrap();
    let stats = wire.finish();
    assert_noise_found(&report, &stats);
}

#[test]
#[ignore = "needs socat"]
fn cable_test_names_noise_from_the_simulator_through_socat() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _one = null_modem(&p("port-a"), &p("wire-a"));
    let _two = null_modem(&p("wire-b"), &p("port-b"));
    let settings = SerialSettings::default();
    let open = |name: &str| serial::open(&p(name).to_string_lossy(), &settings).unwrap();
    let wire = Wire::start(open("wire-a"), open("wire-b"), 9600, 0.02, 9);
    let report =
        cable_test::test_pair(open("port-a"), open("port-b"), ["A", "B"], &settings, 1000).unwrap();
    let stats = wire.finish();
    assert_noise_found(&report, &stats);
}

/// Copies everything that arrives on `port` back to it until `stop` is set.
fn echo(port: Duplex, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    thread::spawn(move || {
        let Duplex {
            mut reader,
            mut writer,
        } = port;
        let mut buf = [0u8; 4096];
        while !stop.load(Ordering::SeqCst) {
            match reader.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if writer.write_all(&buf[..n]).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                Err(_) => return,
            }
        }
    })
}

#[test]
fn loopback_passes_when_the_other_end_echoes() {
    let _alone = alone();
    let settings = SerialSettings::default();
    let (master, slave) = pty::pair().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let echoer = echo(master.duplex, stop.clone());
    let report = cable_test::test_loopback(
        slave.duplex,
        "slave",
        &settings,
        cable_test::default_bytes(&settings),
    )
    .unwrap();
    stop.store(true, Ordering::SeqCst);
    echoer.join().unwrap();
    assert_clean(&report);
    assert_eq!(report.directions.len(), 1);
    assert_eq!(report.directions[0].from, report.directions[0].to);
}

#[test]
fn loopback_without_a_plug_reports_nothing_coming_back_in_time() {
    let _alone = alone();
    let settings = SerialSettings::default();
    let (_master, slave) = pty::pair().unwrap();
    let started = Instant::now();
    let report = cable_test::test_loopback(slave.duplex, "slave", &settings, 1000).unwrap();
    eprintln!("{report}");
    assert!(!report.is_clean());
    assert!(report.hint.unwrap().starts_with("nothing comes back"));
    assert!(started.elapsed() < Duration::from_secs(3));
}

/// One direction of an in-memory cable: what is written goes through `line` (which may
/// change or drop each byte) to the reader.
struct FakeWriter {
    tx: Sender<u8>,
    line: Box<dyn FnMut(usize, u8) -> Option<u8> + Send>,
    count: usize,
}

impl Write for FakeWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            if let Some(out) = (self.line)(self.count, b) {
                let _ = self.tx.send(out);
            }
            self.count += 1;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads what arrives, timing out like a serial port after 20 ms of silence.
struct FakeReader(Receiver<u8>);

impl Read for FakeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let first = match self.0.recv_timeout(Duration::from_millis(20)) {
            Ok(b) => b,
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                // A silent port: the sender has gone, but the line is still there.
                thread::sleep(Duration::from_millis(1));
                return Err(io::ErrorKind::TimedOut.into());
            }
        };
        buf[0] = first;
        let mut n = 1;
        while n < buf.len() {
            match self.0.try_recv() {
                Ok(b) => {
                    buf[n] = b;
                    n += 1;
                }
                Err(_) => break,
            }
        }
        Ok(n)
    }
}

type Line = Box<dyn FnMut(usize, u8) -> Option<u8> + Send>;

/// Two ports joined by an in-memory cable whose directions are `ab` and `ba`.
fn fake_cable(ab: Line, ba: Line) -> (Duplex, Duplex) {
    let (tx_ab, rx_ab) = crossbeam_channel::unbounded();
    let (tx_ba, rx_ba) = crossbeam_channel::unbounded();
    let port = |tx, rx, line| Duplex {
        reader: Box::new(FakeReader(rx)),
        writer: Box::new(FakeWriter { tx, line, count: 0 }),
    };
    (port(tx_ab, rx_ba, ab), port(tx_ba, rx_ab, ba))
}

fn fake_hint(ab: Line, ba: Line) -> (String, Duration) {
    let (a, b) = fake_cable(ab, ba);
    let started = Instant::now();
    let report = cable_test::test_pair(a, b, ["A", "B"], &SerialSettings::default(), 1000).unwrap();
    eprintln!("{report}");
    assert!(!report.is_clean());
    (report.hint.unwrap(), started.elapsed())
}

fn straight() -> Line {
    Box::new(|_, b| Some(b))
}

#[test]
fn cable_test_hints_name_the_pattern_of_failure() {
    let _alone = alone();
    let (hint, took) = fake_hint(Box::new(|_, _| None), Box::new(|_, _| None));
    assert!(hint.starts_with("nothing arrives"), "{hint}");
    assert!(took < Duration::from_secs(3), "{took:?}");

    let (hint, _) = fake_hint(straight(), Box::new(|_, _| None));
    assert!(hint.starts_with("one direction is dead"), "{hint}");

    // Seven data bits on B's side: the high bit is lost.
    let (hint, _) = fake_hint(Box::new(|_, b| Some(b & 0x7F)), straight());
    assert!(hint.starts_with("wrong baud rate or parity"), "{hint}");

    // Flow control holds A's output after 300 bytes.
    let (hint, took) = fake_hint(Box::new(|i, b| (i < 300).then_some(b)), straight());
    assert!(hint.starts_with("flow control mismatch"), "{hint}");
    assert!(took < Duration::from_secs(3), "{took:?}");

    let (hint, _) = fake_hint(
        straight(),
        Box::new(|i, b| Some(if i % 97 == 13 { b ^ (1 << (i % 8)) } else { b })),
    );
    assert!(hint.starts_with("line noise"), "{hint}");
}
