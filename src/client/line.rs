//! The client's end of the line: a thread that reads it, the checksum extension, the
//! records the client sends, and its reports of noise from the referee.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_channel::Receiver;
use shakmaty::Chess;

use super::error::ClientError;
use super::framing::{Framing, Incoming};
use super::game::{record, write_line};
use super::options::ClientOptions;
use super::timing::{NOISE_REPORT_EVERY, STALLED_LINE};
use crate::epd::{Operand, Record, seal};
use crate::transport::lines::{LineSplitter, Piece};
use crate::transport::memory::ClientWriter;

/// The longest excerpt of a noisy line quoted in a report.
const NOISE_EXCERPT: usize = 48;

/// What the reader thread of the line reports (an in-process line delivers the same).
pub(super) use crate::transport::memory::Delivered as PortEvent;

/// The thread that reads the line to the referee, so that the driver can wait for the
/// line, the engine and a stop at once.
pub(super) struct PortReader {
    pub(super) events: Receiver<PortEvent>,
    pub(super) quit: Arc<AtomicBool>,
    pub(super) thread: Option<std::thread::JoinHandle<()>>,
}

impl PortReader {
    pub(super) fn spawn(mut reader: Box<dyn Read + Send>) -> io::Result<PortReader> {
        let (tx, events) = crossbeam_channel::unbounded();
        let quit = Arc::new(AtomicBool::new(false));
        let done = quit.clone();
        let thread = std::thread::Builder::new()
            .name("argus-client-line".into())
            .spawn(move || {
                let mut splitter = LineSplitter::new();
                let mut buf = vec![0u8; 4096];
                let mut last_byte = Instant::now();
                while !done.load(Ordering::SeqCst) {
                    let mut lines = Vec::new();
                    match reader.read(&mut buf) {
                        Ok(0) => {
                            let _ = tx.send(PortEvent::Closed);
                            return;
                        }
                        Ok(n) => {
                            last_byte = Instant::now();
                            splitter.feed(&buf[..n], |p| {
                                if let Piece::Line(l) = p {
                                    lines.push(l);
                                }
                            });
                        }
                        Err(e)
                            if matches!(
                                e.kind(),
                                io::ErrorKind::TimedOut
                                    | io::ErrorKind::WouldBlock
                                    | io::ErrorKind::Interrupted
                            ) =>
                        {
                            // A line whose terminator noise changed ends here, as noise.
                            if splitter.has_partial()
                                && last_byte.elapsed() >= STALLED_LINE
                                && let Some(Piece::Line(l)) = splitter.take_partial()
                            {
                                lines.push(l);
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                            let _ = tx.send(PortEvent::Closed);
                            return;
                        }
                        Err(e) => {
                            let _ = tx.send(PortEvent::Failed(e));
                            return;
                        }
                    }
                    for line in lines {
                        if tx.send(PortEvent::Line(line, None, last_byte)).is_err() {
                            return;
                        }
                    }
                }
            })?;
        Ok(PortReader {
            events,
            quit,
            thread: Some(thread),
        })
    }

    /// Stops the thread: it ends within a read timeout, and lets the line go then. The
    /// client does not wait for it (a session's end would otherwise cost a read timeout,
    /// which `argus serve` pays once a game).
    pub(super) fn close(mut self) {
        self.quit.store(true, Ordering::SeqCst);
        drop(self.thread.take());
    }
}

/// A line from the referee, read through the checksum extension.
pub(super) struct Received {
    pub(super) what: Incoming,
    /// When its last byte was read.
    pub(super) at: Instant,
    /// The line as it came, for a report of noise.
    pub(super) line: Vec<u8>,
    /// Noise to report with "noise from the referee": lost, and not reported by a
    /// request to send again (the checksum extension's `xagain`, a fault with a reason).
    pub(super) report: bool,
}

/// When noise from the referee was last reported, and the noise that came too soon
/// after to be reported at once: how many lines, and the last of them.
#[derive(Default)]
pub(super) struct NoiseReports {
    pub(super) last: Option<Instant>,
    pub(super) held: u32,
    pub(super) held_what: Option<String>,
}

/// The client's end of the line: what it writes, and the checksum extension.
pub(super) struct Link<'a> {
    pub(super) writer: Box<dyn ClientWriter>,
    pub(super) opts: &'a ClientOptions,
    pub(super) framing: Framing,
    pub(super) events: Receiver<PortEvent>,
    pub(super) noise: NoiseReports,
    /// The last line lost to noise, as a report names it.
    pub(super) last_lost: String,
}

impl Link<'_> {
    pub(super) fn io_err(&self, source: io::Error) -> ClientError {
        ClientError::Io {
            address: self.opts.address.clone(),
            source,
        }
    }

    pub(super) fn hung_up(&self) -> ClientError {
        ClientError::HungUp {
            address: self.opts.address.clone(),
        }
    }

    /// Reads one line from the referee; `record`, when an in-process referee gives it,
    /// is the record the line was written from.
    pub(super) fn receive(
        &mut self,
        line: Vec<u8>,
        record: Option<Box<Record>>,
        at: Instant,
    ) -> Received {
        self.framing.heard(at);
        let what = self.framing.receive(&line, record);
        let mut report = false;
        if let Incoming::Lost(reason) = &what {
            self.last_lost = format!("{reason}: {}", excerpt(&line));
            report = !self.framing.asking();
        }
        Received {
            what,
            at,
            line,
            report,
        }
    }

    /// Seals and sends a record; returns the line as sent.
    pub(super) fn send(&mut self, rec: &Record) -> Result<String, ClientError> {
        let line = self.framing.seal(rec.to_line());
        self.write(&line)?;
        Ok(line)
    }

    /// [`Link::send`] for a record the client has no more use for (a reply): an
    /// in-process referee takes it with its line, and need not read the line again,
    /// when the line is not sealed and the record reads back from it as it is.
    pub(super) fn send_owned(&mut self, rec: Record) -> Result<String, ClientError> {
        let line = self.framing.seal(rec.to_line());
        if !self.framing.seals() && rec.reads_back() {
            match self.writer.hand_over(line.as_bytes(), Box::new(rec)) {
                Some(handed) => handed.map_err(|e| self.io_err(e))?,
                None => self.write(&line)?,
            }
        } else {
            self.write(&line)?;
        }
        Ok(line)
    }

    /// Writes a line as it is (a reply sent again).
    pub(super) fn write(&mut self, line: &str) -> Result<(), ClientError> {
        write_line(&mut *self.writer, line, self.opts.eol).map_err(|e| self.io_err(e))
    }

    pub(super) fn sign_on(&mut self, name: &str) -> Result<(), ClientError> {
        let mut sign_on = record(&Chess::default(), "sign_on");
        sign_on.set(
            "tcsi",
            [
                Operand::lossy_string(&self.opts.address),
                Operand::lossy_string(name),
            ],
        );
        if let Some(token) = &self.opts.token {
            sign_on.set("token", [Operand::lossy_string(token)]);
        }
        self.send(&sign_on).map(drop)
    }

    /// Sends `refreq fault` with `why` in `c0`.
    pub(super) fn fault(&mut self, pos: &Chess, why: &str) -> Result<(), ClientError> {
        let mut fault = record(pos, "fault");
        fault.set("c0", [Operand::lossy_string(why)]);
        self.send(&fault).map(drop)
    }

    /// Whether a report of noise may go now (and is then taken as sent).
    pub(super) fn may_report_noise(&mut self, now: Instant) -> bool {
        let noise = &mut self.noise;
        if noise
            .last
            .is_some_and(|t| now.duration_since(t) < NOISE_REPORT_EVERY)
        {
            return false;
        }
        noise.last = Some(now);
        true
    }

    /// Shows the referee noise it sent (a line the client cannot read, or a record
    /// that makes no sense to it): `refreq fault` with "noise from the referee: WHAT",
    /// at most one every [`NOISE_REPORT_EVERY`]. Noise that comes sooner is held, and
    /// reported in one record when the time has come ([`Link::held_noise`]).
    pub(super) fn report_noise(&mut self, pos: &Chess, what: &str) -> Result<(), ClientError> {
        if !self.may_report_noise(Instant::now()) {
            self.hold_noise(what);
            return Ok(());
        }
        let what = format!("noise from the referee: {what}");
        self.fault(pos, &what)
    }

    pub(super) fn hold_noise(&mut self, what: &str) {
        self.noise.held = self.noise.held.saturating_add(1);
        self.noise.held_what = Some(what.to_string());
    }

    /// Reports the noise held back, once [`NOISE_REPORT_EVERY`] has passed since the
    /// last report: the last noisy line, and how many came with it.
    pub(super) fn held_noise(&mut self, pos: &Chess) -> Result<(), ClientError> {
        if self.noise.held == 0 || !self.may_report_noise(Instant::now()) {
            return Ok(());
        }
        let held = std::mem::take(&mut self.noise.held);
        let what = self.noise.held_what.take().unwrap_or_default();
        let why = if held == 1 {
            format!("noise from the referee: {what}")
        } else {
            format!("noise from the referee: {held} noisy lines, the last: {what}")
        };
        self.fault(pos, &why)
    }

    /// What is due on the line at any moment: a request to send again, held noise.
    pub(super) fn timers(&mut self, pos: &Chess) -> Result<(), ClientError> {
        self.ask_again(pos)?;
        self.held_noise(pos)
    }

    /// Asks the referee for the records noise took, when a request is due (a `fault`
    /// whose `c0` says why, with `xagain` and the first record number wanted).
    pub(super) fn ask_again(&mut self, pos: &Chess) -> Result<(), ClientError> {
        // Looked at after every line: the clock is read only when something is wanted.
        if !self.framing.asking() {
            return Ok(());
        }
        let now = Instant::now();
        let Some(from) = self.framing.ask(now) else {
            return Ok(());
        };
        // A resynchronisation asked for noise on a line the referee does not seal is
        // the report of that noise, and as such is never sent more often than those: it
        // is held like them.
        if from == 0 && !self.may_report_noise(now) {
            let what = std::mem::take(&mut self.last_lost);
            self.hold_noise(&what);
            return Ok(());
        }
        let mut fault = record(pos, "fault");
        let why = if from == 0 {
            format!(
                "noise from the referee: {}; please resynchronise",
                std::mem::take(&mut self.last_lost)
            )
        } else {
            format!("noise on the line: please send again from record {from}")
        };
        fault.set("c0", [Operand::lossy_string(&why)]);
        fault.set(seal::AGAIN, vec![Operand::Integer(from as i64)]);
        log::info!("{why}");
        self.send(&fault).map(drop)
    }
}

/// A short, printable excerpt of a noisy line, in quotes.
pub(super) fn excerpt(line: &[u8]) -> String {
    let text: String = line
        .iter()
        .take(NOISE_EXCERPT)
        .map(|&b| match b {
            b' '..=b'~' => char::from(b),
            _ => '?',
        })
        .collect();
    let more = if line.len() > NOISE_EXCERPT {
        "..."
    } else {
        ""
    };
    format!("\"{}{more}\"", text.trim())
}
