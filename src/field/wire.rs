//! A line simulator: `argus wire PORT_A PORT_B --baud N [--noise RATE] [--seed N]`.
//!
//! `argus wire` sits in the middle of two ports (normally ptys, each one end of a socat
//! pair whose other end a program opens) and relays bytes both ways at the byte timing
//! of a real serial line, so that a 9600-baud event can be rehearsed on one machine.
//!
//! Each byte occupies the line for [`byte_time`]: a start bit, the data bits, the parity
//! bit if any and the stop bits, at the baud rate. Each direction keeps its own schedule
//! (`next_free_at`, the instant the line becomes free): a byte starts when it arrives or
//! when the line becomes free, whichever is later, and is written to the other side when
//! its last stop bit would have been received. Bytes queued behind each other therefore
//! go back to back, and 100 bytes written at once at 9600 8N1 arrive over 104.2 ms.
//!
//! The relay reads and paces in one thread per direction. A chunk that is read within
//! [`BACK_TO_BACK`] of the line becoming free is taken to have been waiting in the input
//! buffer while the previous chunk was on the line (the thread was busy pacing it), so
//! it follows back to back rather than from the moment it was read; otherwise it starts
//! when it was read. Departures are waited for precisely (sleep most of the way, spin
//! the last [`SPIN`] or less); the schedule is absolute, so a late wake-up on a busy machine does
//! not accumulate: the bytes that are due are written together.
//!
//! With a noise rate, each byte is corrupted with that probability by flipping one of
//! its data bits, chosen at random; the random numbers come from `fastrand` seeded with
//! the seed, so a run can be repeated. Every corruption is logged at debug level.
//!
//! The simulator does not mask bytes to the data bits nor check parity: both ends are
//! expected to use the same settings, and the settings only set the timing.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::transport::Duplex;
use crate::transport::serial::SerialSettings;

/// How the simulated line behaves.
#[derive(Clone, Debug, PartialEq)]
pub struct WireOptions {
    /// The line's settings: the baud rate and the framing set the byte time.
    pub settings: SerialSettings,
    /// The probability, from 0.0 to 1.0, that a byte is corrupted.
    pub noise: f64,
    /// The seed of the noise's random numbers.
    pub seed: u64,
}

/// What the simulator relayed, per direction: index 0 is from A to B, index 1 from B to
/// A.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireStats {
    /// Bytes delivered.
    pub bytes: [u64; 2],
    /// Bytes among them that were corrupted (a byte corrupted but not delivered because
    /// the relay stopped is not counted).
    pub corrupted: [u64; 2],
}

/// How long after the line became free a chunk may be read and still be taken to have
/// been queued behind the previous one.
pub const BACK_TO_BACK: Duration = Duration::from_millis(1);

/// How much of each wait is spent spinning rather than sleeping, at most: on fast lines,
/// where a byte takes less than four times this, a quarter of a byte time, so that the
/// relay does not spin the whole time (a late wake-up there is caught up by the next
/// write, since the schedule is absolute).
pub const SPIN: Duration = Duration::from_micros(200);

/// The bits one byte takes on a line with `settings` (the framing arithmetic lives with
/// the serial settings, below the field tools).
pub fn bits_per_byte(settings: &SerialSettings) -> u32 {
    settings.bits_per_byte()
}

/// The time one byte takes on a line with `settings` (1.0417 ms at 9600 8N1).
pub fn byte_time(settings: &SerialSettings) -> Duration {
    settings.byte_time()
}

/// Waits until `deadline`: sleeps until `spin` before it, then spins.
pub fn wait_until(deadline: Instant, spin: Duration) {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let left = deadline - now;
        if left > spin {
            thread::sleep(left - spin);
        } else {
            std::hint::spin_loop();
        }
    }
}

/// One direction's schedule.
#[derive(Debug)]
struct Pacer {
    byte_time: Duration,
    next_free_at: Option<Instant>,
}

impl Pacer {
    /// The instant a byte that arrived at `arrival` has been received by the other side,
    /// and the line is busy until then.
    fn schedule(&mut self, arrival: Instant) -> Instant {
        let start = match self.next_free_at {
            Some(free) if arrival <= free + BACK_TO_BACK => free,
            _ => arrival,
        };
        let departure = start + self.byte_time;
        self.next_free_at = Some(departure);
        departure
    }
}

/// The noise of one direction.
struct Noise {
    rate: f64,
    rng: fastrand::Rng,
    data_bits: u8,
}

impl Noise {
    /// Corrupts `byte` with the noise's probability; returns the byte and whether it was
    /// corrupted.
    fn apply(&mut self, byte: u8) -> (u8, bool) {
        if self.rate <= 0.0 || self.rng.f64() >= self.rate {
            return (byte, false);
        }
        let bit = self.rng.u8(0..self.data_bits);
        (byte ^ (1 << bit), true)
    }
}

fn is_idle(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

const NAMES: [&str; 2] = ["A->B", "B->A"];

/// Checks `options` before anything is started.
fn validate(options: &WireOptions) -> io::Result<()> {
    let invalid = |what: String| Err(io::Error::new(io::ErrorKind::InvalidInput, what));
    if !(0.0..=1.0).contains(&options.noise) {
        return invalid(format!(
            "noise rate {} (must be from 0.0 to 1.0)",
            options.noise
        ));
    }
    let s = &options.settings;
    if s.baud == 0 {
        return invalid("baud rate 0".to_string());
    }
    if !(5..=8).contains(&s.data_bits) {
        return invalid(format!("{} data bits (5 to 8)", s.data_bits));
    }
    if !(1..=2).contains(&s.stop_bits) {
        return invalid(format!("{} stop bits (1 or 2)", s.stop_bits));
    }
    Ok(())
}

/// Relays bytes both ways between `a` and `b` at the byte timing of a line with
/// `options.settings`, corrupting bytes at `options.noise`. Runs until either side
/// closes (a read or write fails, or a read reports the end of the file) or `stop` is
/// set, and returns what was relayed. `stop` is looked at at least every read timeout of
/// the ports and between bytes.
///
/// # Errors
///
/// Returns `InvalidInput` when the noise rate is not within 0.0..=1.0 or the settings
/// are impossible (baud 0, data bits outside 5..=8, stop bits outside 1..=2), and an
/// error when a thread cannot be started or dies. A port that closes or fails is the
/// normal end of the relay, not an error; it is logged.
pub fn run(
    a: Duplex,
    b: Duplex,
    options: &WireOptions,
    stop: &AtomicBool,
) -> io::Result<WireStats> {
    validate(options)?;
    let byte_time = byte_time(&options.settings);
    log::info!(
        "wire: {}, {:?} per byte, noise {}, seed {}",
        options.settings,
        byte_time,
        options.noise,
        options.seed
    );
    let done = AtomicBool::new(false);
    let Duplex {
        reader: mut a_reader,
        writer: mut a_writer,
    } = a;
    let Duplex {
        reader: mut b_reader,
        writer: mut b_writer,
    } = b;
    // Different streams for the two directions, both fixed by the seed.
    let seeds = [options.seed, options.seed ^ 0x9E37_79B9_7F4A_7C15];
    let noise = |dir: usize| Noise {
        rate: options.noise,
        rng: fastrand::Rng::with_seed(seeds[dir]),
        data_bits: options.settings.data_bits,
    };
    // The threads borrow the ports, so that both stay open until both threads are done.
    let (a_reader, a_writer) = (&mut *a_reader, &mut *a_writer);
    let (b_reader, b_writer) = (&mut *b_reader, &mut *b_writer);
    let results = thread::scope(|s| -> io::Result<[(u64, u64); 2]> {
        let done = &done;
        let ab = thread::Builder::new()
            .name("argus-wire-ab".to_string())
            .spawn_scoped(s, {
                let mut noise = noise(0);
                move || relay(0, a_reader, b_writer, byte_time, &mut noise, stop, done)
            });
        let ab = match ab {
            Ok(handle) => handle,
            Err(e) => {
                done.store(true, Ordering::SeqCst);
                return Err(e);
            }
        };
        let ba = thread::Builder::new()
            .name("argus-wire-ba".to_string())
            .spawn_scoped(s, {
                let mut noise = noise(1);
                move || relay(1, b_reader, a_writer, byte_time, &mut noise, stop, done)
            });
        if ba.is_err() {
            done.store(true, Ordering::SeqCst);
        }
        let ab = ab.join();
        let ba = ba?.join();
        match (ab, ba) {
            (Ok(ab), Ok(ba)) => Ok([ab, ba]),
            _ => Err(io::Error::other("a wire thread panicked")),
        }
    })?;
    let stats = WireStats {
        bytes: results.map(|r| r.0),
        corrupted: results.map(|r| r.1),
    };
    log::info!(
        "wire: stopped; {} bytes A->B ({} corrupted), {} bytes B->A ({} corrupted)",
        stats.bytes[0],
        stats.corrupted[0],
        stats.bytes[1],
        stats.corrupted[1]
    );
    Ok(stats)
}

/// One direction: reads from `reader`, paces, corrupts, writes to `writer`. Returns the
/// bytes delivered and how many of them were corrupted. Sets `done` when it ends, so
/// that the other direction ends too.
fn relay(
    dir: usize,
    reader: &mut dyn Read,
    writer: &mut dyn Write,
    byte_time: Duration,
    noise: &mut Noise,
    stop: &AtomicBool,
    done: &AtomicBool,
) -> (u64, u64) {
    let name = NAMES[dir];
    let halted = || stop.load(Ordering::Relaxed) || done.load(Ordering::SeqCst);
    let mut pacer = Pacer {
        byte_time,
        next_free_at: None,
    };
    let (mut bytes, mut corrupted) = (0u64, 0u64);
    let mut buf = vec![0u8; 4096];
    let mut departures = Vec::with_capacity(buf.len());
    let mut flipped = Vec::with_capacity(buf.len());
    let spin = SPIN.min(byte_time / 4);
    'relay: while !halted() {
        let n = match reader.read(&mut buf) {
            Ok(0) => {
                log::info!("wire {name}: the sending side closed");
                break;
            }
            Ok(n) => n,
            Err(e) if is_idle(&e) => continue,
            Err(e) => {
                log::info!("wire {name}: the sending side closed: {e}");
                break;
            }
        };
        let arrival = Instant::now();
        departures.clear();
        flipped.clear();
        for (i, byte) in buf[..n].iter_mut().enumerate() {
            departures.push(pacer.schedule(arrival));
            let (out, hit) = noise.apply(*byte);
            if hit {
                log::debug!(
                    "wire {name}: corrupted byte {}: {:#04x} -> {out:#04x}",
                    bytes + i as u64,
                    *byte
                );
            }
            flipped.push(hit);
            *byte = out;
        }
        // Write each byte when it is due; the bytes due at once go in one write.
        let mut next = 0;
        while next < n {
            if halted() {
                break 'relay;
            }
            wait_until(departures[next], spin);
            let now = Instant::now();
            let due = next + departures[next..n].partition_point(|&d| d <= now);
            if let Err(e) = write_all(writer, &buf[next..due], &halted) {
                log::info!("wire {name}: the receiving side closed: {e}");
                break 'relay;
            }
            bytes += (due - next) as u64;
            corrupted += flipped[next..due].iter().filter(|&&f| f).count() as u64;
            next = due;
        }
    }
    done.store(true, Ordering::SeqCst);
    (bytes, corrupted)
}

/// Writes all of `buf`, retrying writes that time out until `halted` says to give up.
fn write_all(writer: &mut dyn Write, mut buf: &[u8], halted: &dyn Fn() -> bool) -> io::Result<()> {
    while !buf.is_empty() {
        match writer.write(buf) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "line closed")),
            Ok(n) => buf = &buf[n..],
            Err(e) if is_idle(&e) && !halted() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::serial::ParityName;

    #[test]
    fn byte_times_follow_the_framing() {
        let mut s = SerialSettings::default();
        assert_eq!(byte_time(&s), Duration::from_nanos(1_041_666));
        s.parity = ParityName::Even;
        s.stop_bits = 2;
        assert_eq!(bits_per_byte(&s), 12);
        s.baud = 19200;
        s.data_bits = 7;
        assert_eq!(byte_time(&s), Duration::from_nanos(11_000_000_000 / 19200));
    }

    #[test]
    fn bytes_queue_back_to_back_and_an_idle_line_starts_on_arrival() {
        let t = Duration::from_millis(1);
        let mut p = Pacer {
            byte_time: t,
            next_free_at: None,
        };
        let t0 = Instant::now();
        assert_eq!(p.schedule(t0), t0 + t);
        assert_eq!(p.schedule(t0), t0 + 2 * t);
        // Read just after the line became free: queued behind.
        assert_eq!(p.schedule(t0 + 2 * t + t / 2), t0 + 3 * t);
        // Read long after: starts on arrival.
        let later = t0 + Duration::from_secs(1);
        assert_eq!(p.schedule(later), later + t);
    }

    #[test]
    fn noise_flips_one_data_bit() {
        let mut n = Noise {
            rate: 1.0,
            rng: fastrand::Rng::with_seed(1),
            data_bits: 7,
        };
        for _ in 0..100 {
            let (out, hit) = n.apply(0);
            assert!(hit);
            assert_eq!(out.count_ones(), 1);
            assert!(out < 0x80);
        }
        let mut quiet = Noise {
            rate: 0.0,
            rng: fastrand::Rng::with_seed(1),
            data_bits: 8,
        };
        assert_eq!(quiet.apply(0x41), (0x41, false));
    }

    #[test]
    fn impossible_options_are_refused() {
        let mut o = WireOptions {
            settings: SerialSettings::default(),
            noise: 1.5,
            seed: 0,
        };
        assert!(validate(&o).is_err());
        o.noise = f64::NAN;
        assert!(validate(&o).is_err());
        o.noise = 0.5;
        assert!(validate(&o).is_ok());
        o.settings.baud = 0;
        assert!(validate(&o).is_err());
    }
}
