//! A cable tester: `argus cable-test PORT_A PORT_B [settings]` for two ports on one
//! machine joined by a null-modem cable (or a pty pair, or a socat pair), and
//! `argus cable-test PORT --loopback` for one port with a loopback plug (TxD to RxD).
//!
//! Test patterns go both ways at once: a ramp of every byte value (0x00 to 0xFF),
//! alternating 0x55 and 0xAA, a pseudo-random block and printable EPD-like text lines,
//! each a quarter of the bytes sent (by default about two seconds of line time, see
//! [`default_bytes`]). The two directions send the segments in opposite orders with
//! different random blocks, so that a port that hears its own echo does not pass as
//! clean. Bytes are masked to the data bits, and with XON/XOFF flow control the bytes
//! 0x11 and 0x13 are left out (the line discipline would take them).
//!
//! Each receiving side reads until it has as many bytes as were sent, until nothing has
//! arrived for a quiet period ([`quiet_period`]) after the sender finished, or until the
//! deadline (twice the nominal line time plus two seconds); every read has a timeout,
//! so the test never hangs. Received bytes are compared position by position with the
//! bytes sent.
//!
//! # How failures are classified
//!
//! The first rule that matches gives the hint:
//!
//! 1. Nothing received in any direction: "nothing arrives" (a straight cable where a
//!    null-modem is needed, or no cable; for a loopback: no plug).
//! 2. Nothing received in one direction only: "one direction is dead" (a broken wire or
//!    a flow-control line holding it).
//! 3. In some direction, more bytes received than sent, at least a quarter of the
//!    compared bytes differ, or at least 8 differ and they all differ in a common bit
//!    (a high bit or parity bit consistently wrong): "wrong baud rate or parity/data
//!    bits on one side".
//! 4. Fewer bytes received than sent in some direction: "flow control mismatch" (the
//!    data stalls or is cut short).
//! 5. Some bytes differ: "line noise" (a few scattered corrupted bytes).
//!
//! A byte lost in the middle shifts every later byte and so looks like rule 3; the
//! classification is deliberately simple.

use std::fmt;
use std::io::{self, Read, Write};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use crate::field::wire::{bits_per_byte, byte_time};
use crate::transport::Duplex;
use crate::transport::serial::{self, FlowName, SerialSettings};

/// The result of a cable test.
#[derive(Clone, Debug, PartialEq)]
pub struct CableReport {
    /// One entry per direction tested (two for a pair, one for a loopback).
    pub directions: Vec<DirectionReport>,
    /// What is probably wrong, when the line is not clean.
    pub hint: Option<String>,
}

/// What happened in one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectionReport {
    /// The sending port.
    pub from: String,
    /// The receiving port.
    pub to: String,
    /// Bytes written to the sending port.
    pub sent: usize,
    /// Bytes read from the receiving port.
    pub received: usize,
    /// Bytes received that differ from the byte sent at the same position.
    pub corrupted: usize,
    /// Bytes sent that never arrived.
    pub missing: usize,
    /// Seconds from the first byte written to the last byte received (0 when nothing
    /// arrived).
    pub seconds: f64,
    /// Bytes received per second over [`DirectionReport::seconds`].
    pub bytes_per_sec: f64,
    /// The line's nominal rate in bytes per second (960 at 9600 8N1).
    pub nominal_bytes_per_sec: f64,
}

impl DirectionReport {
    /// Whether every byte arrived unchanged and nothing else arrived.
    pub fn is_clean(&self) -> bool {
        self.received == self.sent && self.corrupted == 0 && self.missing == 0
    }
}

impl CableReport {
    /// Whether every byte arrived unchanged in every direction.
    pub fn is_clean(&self) -> bool {
        !self.directions.is_empty() && self.directions.iter().all(DirectionReport::is_clean)
    }
}

impl fmt::Display for CableReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = |pick: fn(&DirectionReport) -> &str, title: &str| {
            self.directions
                .iter()
                .map(|d| pick(d).chars().count())
                .chain([title.len()])
                .max()
                .unwrap_or(0)
        };
        let wf = width(|d| &d.from, "from");
        let wt = width(|d| &d.to, "to");
        writeln!(
            f,
            "{:<wf$}  {:<wt$}  {:>8}  {:>8}  {:>9}  {:>7}  {:>8}  {:>9}  {:>10}",
            "from",
            "to",
            "sent",
            "received",
            "corrupted",
            "missing",
            "seconds",
            "bytes/s",
            "of nominal"
        )?;
        for d in &self.directions {
            // A pty that nothing paces has no line rate: its baud setting means nothing,
            // and its bytes go many times faster than it says.
            let ratio = if d.nominal_bytes_per_sec > 0.0 {
                d.bytes_per_sec / d.nominal_bytes_per_sec
            } else {
                0.0
            };
            let pty = serial::is_pty(&d.from) || serial::is_pty(&d.to);
            let percent = if pty && ratio > 1.5 {
                "none (pty)".to_string()
            } else {
                format!("{:.1} %", 100.0 * ratio)
            };
            writeln!(
                f,
                "{:<wf$}  {:<wt$}  {:>8}  {:>8}  {:>9}  {:>7}  {:>8.3}  {:>9.1}  {:>10}",
                d.from,
                d.to,
                d.sent,
                d.received,
                d.corrupted,
                d.missing,
                d.seconds,
                d.bytes_per_sec,
                percent
            )?;
        }
        if self.is_clean() {
            write!(f, "cable OK")
        } else {
            let hint = self.hint.as_deref().unwrap_or("the bytes received differ");
            write!(f, "cable NOT clean: {hint}")
        }
    }
}

/// The hint when nothing arrives on a pair.
pub const HINT_NOTHING: &str =
    "nothing arrives: a straight cable where a null-modem is needed, or the cable is not connected";
/// The hint when nothing comes back through a loopback.
pub const HINT_NOTHING_LOOPBACK: &str = "nothing comes back: the loopback plug is not fitted (TxD to RxD), or a flow-control line holds the port (try --flow none)";
/// The hint when one direction is dead.
pub const HINT_ONE_DEAD: &str =
    "one direction is dead: a broken wire or a flow-control line holding it (try --flow none)";
/// The hint when most bytes are garbled.
pub const HINT_SETTINGS: &str = "wrong baud rate or parity/data bits on one side";
/// The hint when the data stalls or is cut short.
pub const HINT_FLOW: &str = "flow control mismatch (one side uses RTS/CTS or XON/XOFF)";
/// The hint when a few bytes are corrupted.
pub const HINT_NOISE: &str =
    "line noise: lower the baud rate, use a shorter or shielded cable, check the ground";

/// The number of bytes sent each way by default: about two seconds of line time at
/// `settings`, and at least 512 (1920 bytes at 9600 8N1).
pub fn default_bytes(settings: &SerialSettings) -> usize {
    let per_byte = byte_time(settings).as_secs_f64();
    if per_byte <= 0.0 {
        return 512;
    }
    ((2.0 / per_byte) as usize).max(512)
}

/// How long a receiver waits for more once the sender has finished: the longer of half
/// a second and 100 byte times.
pub fn quiet_period(settings: &SerialSettings) -> Duration {
    (byte_time(settings) * 100).max(Duration::from_millis(500))
}

const EPD_LINES: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refcom respond; tcgs 300+5;\n",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; sm e5;\n",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - refcom respond;\n",
    "8/8/8/4k3/8/8/4K3/8 w - - refcom inform; ptp Result \"1/2-1/2\"; hmvc 0;\n",
];

/// The test pattern for direction `dir` (0 or 1): `bytes` bytes made of the four
/// segments described in the module documentation, masked to the data bits, without
/// XON and XOFF when `settings` use software flow control.
pub fn pattern(bytes: usize, settings: &SerialSettings, dir: usize) -> Vec<u8> {
    let quarter = bytes / 4;
    let sizes = [quarter, quarter, quarter, bytes - 3 * quarter];
    let mut rng = fastrand::Rng::with_seed(0x4152_4755_5300 + dir as u64);
    let text: Vec<u8> = EPD_LINES.concat().into_bytes();
    let segment = |which: usize, len: usize, rng: &mut fastrand::Rng| -> Vec<u8> {
        (0..len)
            .map(|i| match which {
                0 => (i % 256) as u8,
                1 if i % 2 == 0 => 0x55,
                1 => 0xAA,
                2 => rng.u8(..),
                _ => text[i % text.len()],
            })
            .collect()
    };
    let order = if dir == 0 { [0, 1, 2, 3] } else { [3, 2, 1, 0] };
    let mask = u8::MAX >> (8 - settings.data_bits.clamp(5, 8));
    let mut out = Vec::with_capacity(bytes);
    for (k, which) in order.into_iter().enumerate() {
        out.extend(segment(which, sizes[k], &mut rng));
    }
    for b in &mut out {
        *b &= mask;
        if settings.flow == FlowName::Software && (*b == 0x11 || *b == 0x13) {
            *b -= 1;
        }
    }
    out
}

fn is_idle(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

/// When a transfer's limits run out.
#[derive(Clone, Copy)]
struct Limits {
    deadline: Instant,
    quiet: Duration,
}

/// The sending half of one direction: what it wrote and when.
struct Sent {
    count: usize,
    first: Option<Instant>,
}

/// Writes `data` in small pieces until all is written or the deadline passes; sets
/// `finished` when it stops. The port is not drained (a drain held off by flow control
/// would never return): the receiver's deadline covers the line time.
fn send(
    writer: &mut dyn Write,
    data: &[u8],
    deadline: Instant,
    finished: &OnceLock<Instant>,
) -> io::Result<Sent> {
    let mut sent = Sent {
        count: 0,
        first: None,
    };
    let result = (|| {
        while sent.count < data.len() {
            if Instant::now() >= deadline {
                log::info!("cable test: gave up writing after {} bytes", sent.count);
                return Ok(());
            }
            let end = (sent.count + 64).min(data.len());
            let before = Instant::now();
            match writer.write(&data[sent.count..end]) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "line closed")),
                Ok(n) => {
                    sent.first.get_or_insert(before);
                    sent.count += n;
                }
                Err(e) if is_idle(&e) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    })();
    let _ = finished.set(Instant::now());
    result.map(|()| sent)
}

/// Reads until `expected` bytes have arrived, nothing more has arrived for the quiet
/// period after the sender finished, or the deadline passes. Returns the bytes and when
/// the last of them arrived.
fn receive(
    reader: &mut dyn Read,
    expected: usize,
    limits: Limits,
    finished: &OnceLock<Instant>,
) -> io::Result<(Vec<u8>, Option<Instant>)> {
    let mut got = Vec::with_capacity(expected);
    let mut last = None;
    let mut buf = [0u8; 4096];
    while got.len() < expected {
        let now = Instant::now();
        if now >= limits.deadline {
            break;
        }
        if let Some(&done) = finished.get() {
            let since = last.map_or(done, |l: Instant| l.max(done));
            if now.saturating_duration_since(since) >= limits.quiet {
                break;
            }
        }
        match reader.read(&mut buf) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file")),
            Ok(n) => {
                last = Some(Instant::now());
                got.extend_from_slice(&buf[..n]);
            }
            Err(e) if is_idle(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((got, last))
}

/// Reads and throws away what is waiting on a port, for at most 300 ms.
fn discard_input(reader: &mut dyn Read) -> io::Result<()> {
    let until = Instant::now() + Duration::from_millis(300);
    let mut buf = [0u8; 4096];
    while Instant::now() < until {
        match reader.read(&mut buf) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file")),
            Ok(_) => {}
            Err(e) if is_idle(&e) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One direction's comparison, with what the classification needs beyond the report.
struct Outcome {
    report: DirectionReport,
    /// Bytes compared (the shorter of sent and received).
    compared: usize,
    /// The bits in which every corrupted byte differs from the byte sent.
    common_bits: u8,
}

fn compare(
    from: &str,
    to: &str,
    data: &[u8],
    sent: &Sent,
    got: &[u8],
    last: Option<Instant>,
    settings: &SerialSettings,
) -> Outcome {
    let sent_bytes = &data[..sent.count];
    let compared = sent_bytes.len().min(got.len());
    let mut corrupted = 0;
    let mut common_bits = u8::MAX;
    for (s, r) in sent_bytes.iter().zip(got) {
        if s != r {
            corrupted += 1;
            common_bits &= s ^ r;
        }
    }
    if corrupted == 0 {
        common_bits = 0;
    }
    let seconds = match (sent.first, last) {
        (Some(first), Some(last)) if !got.is_empty() => {
            last.saturating_duration_since(first).as_secs_f64()
        }
        _ => 0.0,
    };
    let bytes_per_sec = if seconds > 0.0 {
        got.len() as f64 / seconds
    } else {
        0.0
    };
    let nominal_bytes_per_sec = f64::from(settings.baud) / f64::from(bits_per_byte(settings));
    Outcome {
        report: DirectionReport {
            from: from.to_string(),
            to: to.to_string(),
            sent: sent.count,
            received: got.len(),
            corrupted,
            missing: sent.count.saturating_sub(got.len()),
            seconds,
            bytes_per_sec,
            nominal_bytes_per_sec,
        },
        compared,
        common_bits,
    }
}

/// The hint for `outcomes`, by the rules in the module documentation; `None` when clean.
fn classify(outcomes: &[Outcome], loopback: bool) -> Option<String> {
    let reports = || outcomes.iter().map(|o| &o.report);
    if reports().all(DirectionReport::is_clean) {
        return None;
    }
    let dead = |r: &DirectionReport| r.received == 0 && r.sent > 0;
    let hint = if reports().all(dead) {
        if loopback {
            HINT_NOTHING_LOOPBACK
        } else {
            HINT_NOTHING
        }
    } else if reports().any(dead) {
        HINT_ONE_DEAD
    } else if outcomes.iter().any(|o| {
        o.report.received > o.report.sent
            || o.report.corrupted * 4 >= o.compared.max(1)
            || (o.report.corrupted >= 8 && o.common_bits != 0)
    }) {
        HINT_SETTINGS
    } else if reports().any(|r| r.missing > 0) {
        HINT_FLOW
    } else if reports().any(|r| r.corrupted > 0) {
        HINT_NOISE
    } else {
        // Nothing was sent at all: the port would not take a byte.
        HINT_ONE_DEAD
    };
    Some(hint.to_string())
}

fn check(settings: &SerialSettings, bytes: usize) -> io::Result<()> {
    if bytes == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a cable test needs at least one byte",
        ));
    }
    if settings.baud == 0 || !(5..=8).contains(&settings.data_bits) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("impossible line settings: {settings}"),
        ));
    }
    Ok(())
}

fn limits(settings: &SerialSettings, bytes: usize) -> Limits {
    let line_time = byte_time(settings).as_secs_f64() * bytes as f64;
    Limits {
        deadline: Instant::now() + Duration::from_secs_f64(2.0 * line_time + 2.0),
        quiet: quiet_period(settings),
    }
}

fn with_port(name: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{name}: {e}"))
}

fn joined<T>(r: thread::Result<io::Result<T>>) -> io::Result<T> {
    r.unwrap_or_else(|_| Err(io::Error::other("a cable-test thread panicked")))
}

/// Tests the line between `a` and `b` (named `names` in the report) at `settings`:
/// sends `bytes` bytes of test patterns each way at once, reads them on the other side
/// and compares. See the module documentation for the patterns, the limits and the
/// hints.
///
/// The ports must already be open with `settings` (the settings here only shape the
/// patterns, the limits and the nominal rate).
///
/// # Errors
///
/// Returns `InvalidInput` when `bytes` is 0 or the settings are impossible, and the
/// port's error, naming it, when a read or write fails (a port that closes or is
/// unplugged); a line that only loses or garbles bytes is reported, not an error.
pub fn test_pair(
    a: Duplex,
    b: Duplex,
    names: [&str; 2],
    settings: &SerialSettings,
    bytes: usize,
) -> io::Result<CableReport> {
    check(settings, bytes)?;
    let Duplex {
        reader: mut a_reader,
        writer: mut a_writer,
    } = a;
    let Duplex {
        reader: mut b_reader,
        writer: mut b_writer,
    } = b;
    discard_input(&mut *a_reader).map_err(|e| with_port(names[0], e))?;
    discard_input(&mut *b_reader).map_err(|e| with_port(names[1], e))?;
    let data = [pattern(bytes, settings, 0), pattern(bytes, settings, 1)];
    let limits = limits(settings, bytes);
    let finished = [OnceLock::new(), OnceLock::new()];
    // The threads borrow the ports, so that none is closed (which a pty's other end sees
    // as a hang-up) before every thread is done.
    let (a_reader, a_writer) = (&mut *a_reader, &mut *a_writer);
    let (b_reader, b_writer) = (&mut *b_reader, &mut *b_writer);
    let (sent, got) = thread::scope(|s| -> io::Result<_> {
        let spawn = |name: &str| thread::Builder::new().name(format!("argus-cable-{name}"));
        let (data, finished) = (&data, &finished);
        let tx_a = spawn("tx-a").spawn_scoped(s, move || {
            send(a_writer, &data[0], limits.deadline, &finished[0])
        })?;
        let tx_b = spawn("tx-b").spawn_scoped(s, move || {
            send(b_writer, &data[1], limits.deadline, &finished[1])
        })?;
        let rx_a = spawn("rx-a")
            .spawn_scoped(s, move || receive(a_reader, bytes, limits, &finished[1]))?;
        let got_b = receive(b_reader, bytes, limits, &finished[0]);
        let sent_a = joined(tx_a.join()).map_err(|e| with_port(names[0], e));
        let sent_b = joined(tx_b.join()).map_err(|e| with_port(names[1], e));
        let got_a = joined(rx_a.join()).map_err(|e| with_port(names[0], e));
        let got_b = got_b.map_err(|e| with_port(names[1], e));
        Ok(([sent_a?, sent_b?], [got_b?, got_a?]))
    })?;
    let outcomes = [
        compare(
            names[0], names[1], &data[0], &sent[0], &got[0].0, got[0].1, settings,
        ),
        compare(
            names[1], names[0], &data[1], &sent[1], &got[1].0, got[1].1, settings,
        ),
    ];
    let hint = classify(&outcomes, false);
    let report = CableReport {
        directions: outcomes.into_iter().map(|o| o.report).collect(),
        hint,
    };
    log::info!("cable test {} <-> {}:\n{report}", names[0], names[1]);
    Ok(report)
}

/// Tests one port with a loopback plug (TxD joined to RxD): sends `bytes` bytes of test
/// patterns and reads them back from the same port. The report has one direction, from
/// `name` to `name`.
///
/// # Errors
///
/// As [`test_pair`].
pub fn test_loopback(
    port: Duplex,
    name: &str,
    settings: &SerialSettings,
    bytes: usize,
) -> io::Result<CableReport> {
    check(settings, bytes)?;
    let Duplex {
        mut reader,
        mut writer,
    } = port;
    discard_input(&mut *reader).map_err(|e| with_port(name, e))?;
    let data = pattern(bytes, settings, 0);
    let limits = limits(settings, bytes);
    let finished = OnceLock::new();
    let (reader, writer) = (&mut *reader, &mut *writer);
    let (sent, got) = thread::scope(|s| -> io::Result<_> {
        let (data, finished) = (&data, &finished);
        let tx = thread::Builder::new()
            .name("argus-cable-tx".to_string())
            .spawn_scoped(s, move || send(writer, data, limits.deadline, finished))?;
        let got = receive(reader, bytes, limits, finished);
        let sent = joined(tx.join());
        Ok((sent?, got?))
    })
    .map_err(|e| with_port(name, e))?;
    let outcomes = [compare(name, name, &data, &sent, &got.0, got.1, settings)];
    let hint = classify(&outcomes, true);
    let report = CableReport {
        directions: outcomes.into_iter().map(|o| o.report).collect(),
        hint,
    };
    log::info!("cable test {name} (loopback):\n{report}");
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(sent: &[u8], got: &[u8]) -> Outcome {
        let s = Sent {
            count: sent.len(),
            first: Some(Instant::now()),
        };
        compare(
            "a",
            "b",
            sent,
            &s,
            got,
            Some(Instant::now()),
            &SerialSettings::default(),
        )
    }

    fn hint(pairs: &[(&[u8], &[u8])]) -> Option<String> {
        let outcomes: Vec<Outcome> = pairs.iter().map(|(s, g)| outcome(s, g)).collect();
        classify(&outcomes, false)
    }

    #[test]
    fn patterns_hold_every_segment_and_respect_the_settings() {
        let s = SerialSettings::default();
        let p = pattern(1024, &s, 0);
        assert_eq!(p.len(), 1024);
        assert_eq!(&p[..4], &[0, 1, 2, 3]);
        assert_eq!(&p[256..260], &[0x55, 0xAA, 0x55, 0xAA]);
        assert!(p[768..].iter().all(|b| b.is_ascii()));
        assert_ne!(p, pattern(1024, &s, 1));
        let seven = SerialSettings {
            data_bits: 7,
            flow: FlowName::Software,
            ..SerialSettings::default()
        };
        let p = pattern(1024, &seven, 0);
        assert!(p.iter().all(|&b| b < 0x80 && b != 0x11 && b != 0x13));
        assert_eq!(pattern(3, &s, 0).len(), 3);
    }

    #[test]
    fn default_sizes_take_about_two_seconds() {
        let s = SerialSettings::default();
        assert_eq!(default_bytes(&s), 1920);
        let slow = SerialSettings {
            baud: 300,
            ..SerialSettings::default()
        };
        assert_eq!(default_bytes(&slow), 512);
    }

    #[test]
    fn failures_are_classified() {
        let sent: Vec<u8> = (0..=255).collect();
        assert_eq!(hint(&[(&sent, &sent), (&sent, &sent)]), None);
        assert_eq!(
            hint(&[(&sent, &[]), (&sent, &[])]).as_deref(),
            Some(HINT_NOTHING)
        );
        assert_eq!(
            hint(&[(&sent, &sent), (&sent, &[])]).as_deref(),
            Some(HINT_ONE_DEAD)
        );
        // Seven data bits on one side: the high bit is lost, always the same bit.
        let stripped: Vec<u8> = sent.iter().map(|b| b & 0x7F).collect();
        let mut sixteenth: Vec<u8> = sent.clone();
        for b in sixteenth.iter_mut().step_by(16) {
            *b &= 0x7F;
        }
        assert_eq!(
            hint(&[(&sent, &stripped), (&sent, &sent)]).as_deref(),
            Some(HINT_SETTINGS)
        );
        assert_eq!(
            hint(&[(&sent, &sixteenth), (&sent, &sent)]).as_deref(),
            Some(HINT_SETTINGS)
        );
        assert_eq!(
            hint(&[(&sent, &sent[..100]), (&sent, &sent)]).as_deref(),
            Some(HINT_FLOW)
        );
        let mut noisy = sent.clone();
        for (i, bit) in [
            (3, 0),
            (50, 3),
            (90, 7),
            (150, 1),
            (200, 5),
            (201, 2),
            (240, 6),
            (250, 4),
        ] {
            noisy[i] ^= 1 << bit;
        }
        assert_eq!(
            hint(&[(&sent, &noisy), (&sent, &sent)]).as_deref(),
            Some(HINT_NOISE)
        );
    }
}
