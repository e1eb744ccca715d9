//! Replaying a journal to a live program: `argus replay JOURNAL --as a|b|referee --port
//! PORT`.
//!
//! [`crate::mediator::journal::replay`] feeds a journal back to argus's own referee core, which
//! shows whether argus still behaves as it did. A bug seen at an event often lies in
//! the other program, or in how the two talk over a real line: to reproduce it at home,
//! this module plays one side of the recorded session over a real port toward a live
//! program, and reports where the live program's lines differ from the recording.
//!
//! - As a player ([`Role::Player`]), it sends what the referee received from that
//!   player (the journal's `rx` lines of that port) toward a live referee, and compares
//!   what the live referee sends with what the recorded one sent to that port (the `tx`
//!   lines of that port).
//! - As the referee ([`Role::Referee`]), it sends what the recorded referee sent to one
//!   player (the `tx` lines of that port) toward one live client, and compares what the
//!   client sends with what the recorded player sent (the `rx` lines of that port).
//!
//! # Keeping in step
//!
//! A line that answers another can only be sent once the live side has sent the line
//! it answers. So before it sends each recorded line, the replay waits until the live
//! side has sent as many lines as the recorded live side had sent before that line in
//! the journal. Every such wait has a deadline: [`LiveOptions::answer_timeout`] plus
//! the time the recorded side took to produce that line by itself (a referee's reset
//! delay, a flag falling), so a live side that falls silent never hangs the replay.
//!
//! # Pace
//!
//! With [`Pace::Recorded`], each line is sent as long after what it follows as it was
//! in the recording, divided by the speed: after the previous line sent, and after the
//! arrival of the last live line it waited for (a player's thinking time). The
//! recording dates the lines that arrived at the referee (`rx`) exactly; a line the
//! referee sent is dated by its `drained` event (when it had left the referee, which is
//! when it arrived at the player) as the player's stimulus, and by the input that made
//! the referee send it (the event with a time just before it) as the referee's own
//! moment to send. With [`Pace::Instant`], every line goes as soon as the live side
//! has caught up.
//!
//! # What the comparison ignores
//!
//! Some parts of a line legitimately differ between two runs of the same session, and
//! [`normalise`] blanks them before the lines are compared, when the line reads as an
//! EPD record ([`Record::from_ascii`]):
//!
//! - the value of the `Date` tag in a `ptp` operation: the live referee writes the day
//!   it runs on;
//! - every operand of `cc`: the clocks a referee reports depend on the moment each line
//!   arrived, which no replay reproduces to the microsecond;
//! - the first operand of `tcsi` (the sender's own address): a live client names the
//!   port it runs on, which is not the recorded one;
//! - the checksum of a sealed record (`xchk`, docs/protocol.md), which signs the rest.
//!
//! Everything else must match byte for byte, the order of operations and the blanks
//! between them included; lines that are not EPD records (noise) are compared as they
//! are. Line terminators are not compared: the lines are split as the referee splits
//! them (LF, CR or CR LF). One difference the comparison does not forgive: a referee
//! names a player who gave no name by its port's path, which differs from run to run;
//! give the live referee the recorded names (`--name-a`, `--name-b`).
//!
//! # What is not replayed
//!
//! Only lines travel. A line that the journal records as lost and back (`lost`, `back`)
//! is not pulled and replugged, and a line over the record limit, whose text the journal
//! does not keep, is sent as that many `x`. As the referee, the replay talks to one
//! client: what the other player sent only shows in when the recorded referee's lines
//! go out.

use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::core::Port;
use crate::epd::Record;
use crate::mediator::Eol;
use crate::mediator::journal::{self, Event, JournalError, from_hex};
use crate::transport::lines::{LineSplitter, Piece};
use crate::transport::serial::{self, SerialSettings};
use crate::transport::{Duplex, SHUTDOWN_GRACE};

/// The side of the recorded session the replay plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The player on this port, toward a live referee.
    Player(Port),
    /// The referee, toward one live client that plays the recorded player on `client`.
    Referee {
        /// The port whose player the live client stands for.
        client: Port,
    },
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Role::Player(port) => write!(f, "player {port}"),
            Role::Referee { client } => write!(f, "the referee toward player {client}"),
        }
    }
}

/// How fast the recorded lines are sent.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Pace {
    /// At the recorded moments, the recorded gaps divided by `speed` (2.0 is twice as
    /// fast). `speed` must be finite and above zero.
    Recorded {
        /// The speed-up factor.
        speed: f64,
    },
    /// Each line as soon as the live side has sent what it answers.
    Instant,
}

/// How to replay.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveOptions {
    /// Which side of the recording to play.
    pub role: Role,
    /// How fast.
    pub pace: Pace,
    /// The end of line written after every line sent (the journal does not record the
    /// terminators).
    pub eol: Eol,
    /// Whether to go on after the first difference, to see them all; the replay stays
    /// in step by counting lines, so after a missing or extra line what follows is
    /// compared with the wrong recorded line.
    pub keep_going: bool,
    /// How long to wait for a live line beyond the time the recorded side took to send
    /// it.
    pub answer_timeout: Duration,
    /// How long the live side must stay silent, once every recorded line has come (or
    /// failed to come), before the replay ends; lines that arrive until then are
    /// reported as extra.
    pub quiet: Duration,
}

impl LiveOptions {
    /// Options to play `role` at the recorded pace with LF line ends, stopping at the
    /// first difference, waiting 10 s beyond the recorded time for each answer and
    /// ending after 1 s of silence.
    pub fn new(role: Role) -> LiveOptions {
        LiveOptions {
            role,
            pace: Pace::Recorded { speed: 1.0 },
            eol: Eol::Lf,
            keep_going: false,
            answer_timeout: Duration::from_secs(10),
            quiet: Duration::from_secs(1),
        }
    }
}

/// One place where the live side did not do what the recording says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The journal line (from 1) of the recorded line that was expected; for an extra
    /// line, the journal line of the last recorded line it came after (0 when the
    /// recording has none).
    pub journal_line: usize,
    /// The recorded line, or `None` when the live side sent a line the recording does
    /// not have.
    pub expected: Option<String>,
    /// The live side's line, or `None` when it never sent the recorded one.
    pub got: Option<String>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.expected, &self.got) {
            (Some(expected), Some(got)) => write!(
                f,
                "journal line {}:\n    expected: {expected}\n    got:      {got}",
                self.journal_line
            ),
            (Some(expected), None) => write!(
                f,
                "journal line {}: the live side never sent\n    expected: {expected}",
                self.journal_line
            ),
            (None, Some(got)) => write!(
                f,
                "after journal line {}: the live side sent a line the recording does not have\n    got:      {got}",
                self.journal_line
            ),
            (None, None) => write!(f, "journal line {}: no difference", self.journal_line),
        }
    }
}

/// What a replay to a live program found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveReport {
    /// How many recorded lines were sent to the live side.
    pub sent: usize,
    /// How many lines the live side sent.
    pub received: usize,
    /// How many of those matched their recorded line.
    pub matched: usize,
    /// Every difference found, in order (only the first unless
    /// [`LiveOptions::keep_going`]).
    pub differences: Vec<Difference>,
    /// Why the replay ended before sending every recorded line, if it did.
    pub stopped: Option<String>,
}

impl LiveReport {
    /// Whether the live side did exactly what the recording says.
    pub fn is_clean(&self) -> bool {
        self.differences.is_empty() && self.stopped.is_none()
    }
}

impl fmt::Display for LiveReport {
    /// Writes a summary line, then each difference, then why the replay stopped early:
    ///
    /// ```text
    /// sent 1 line, received 2, 1 as recorded; 1 difference:
    ///   journal line 10:
    ///     expected: rnbqkbnr/... w KQkq - ptp ... TimeControl "300+5"; refcom inform;
    ///     got:      rnbqkbnr/... w KQkq - ptp ... TimeControl "60"; refcom inform;
    /// stopped early: at the first difference
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "sent {} line{}, received {}, {} as recorded",
            self.sent,
            s(self.sent),
            self.received,
            self.matched
        )?;
        match self.differences.len() {
            0 => f.write_str("; no differences")?,
            n => {
                write!(f, "; {n} difference{}:", s(n))?;
                for d in &self.differences {
                    write!(f, "\n  {d}")?;
                }
            }
        }
        if let Some(why) = &self.stopped {
            write!(f, "\nstopped early: {why}")?;
        }
        Ok(())
    }
}

/// An error that keeps the replay from running. What the live side does wrong is never
/// an error: it goes into the [`LiveReport`].
#[derive(Debug, thiserror::Error)]
pub enum LiveReplayError {
    /// The journal could not be read.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The speed is not a finite number above zero.
    #[error("speed {speed}: not a number above zero")]
    Speed {
        /// The speed given.
        speed: f64,
    },
    /// The port could not be opened.
    #[error("port {path}: {source}")]
    Open {
        /// Its path.
        path: String,
        /// The system's error.
        source: io::Error,
    },
    /// The reader thread could not be started.
    #[error("cannot start the reader thread: {0}")]
    Spawn(io::Error),
    /// The journal holds no sign-on from the player to stand in for.
    #[error("the journal holds no sign_on from port {port}: nothing to sign on as")]
    NoSignOn {
        /// The player's port.
        port: Port,
    },
}

/// Opens the serial port at `path` with `settings` and plays `journal` over it, as
/// [`play`] does.
///
/// # Errors
///
/// Returns [`LiveReplayError::Open`] when the port cannot be opened, and the errors of
/// [`play`].
pub fn play_port(
    journal: &Path,
    path: &str,
    settings: &SerialSettings,
    options: &LiveOptions,
) -> Result<LiveReport, LiveReplayError> {
    let duplex = serial::open(path, settings).map_err(|source| LiveReplayError::Open {
        path: path.to_string(),
        source,
    })?;
    play(journal, duplex, options)
}

/// Plays `journal`'s side `options.role` over `duplex` (an open port whose reader times
/// out when idle, as [`Duplex`] says) toward a live program, and compares what the live
/// program sends with the recording.
///
/// The replay ends when every recorded line has been sent and every recorded answer has
/// come (or failed to come within its deadline) and the live side has then been silent
/// for [`LiveOptions::quiet`]; or at the first difference, unless
/// [`LiveOptions::keep_going`]; or when the line fails.
///
/// # Errors
///
/// Returns [`LiveReplayError::Journal`] when the journal cannot be read or has no
/// session line, [`LiveReplayError::Speed`] for a speed that is not above zero, and
/// [`LiveReplayError::Spawn`] when the reader thread cannot be started.
pub fn play(
    journal: &Path,
    duplex: Duplex,
    options: &LiveOptions,
) -> Result<LiveReport, LiveReplayError> {
    let speed = match options.pace {
        Pace::Recorded { speed } if speed.is_finite() && speed > 0.0 => Some(speed),
        Pace::Recorded { speed } => return Err(LiveReplayError::Speed { speed }),
        Pace::Instant => None,
    };
    let events = journal::read(journal)?;
    if !matches!(events.first(), Some((_, Event::Session { .. }))) {
        return Err(JournalError::NoSession {
            path: journal.to_path_buf(),
        }
        .into());
    }
    let script = Script::of(&events, options.role);
    let Duplex { reader, writer } = duplex;
    let reader = ReaderThread::spawn(reader).map_err(LiveReplayError::Spawn)?;
    let mut run = Run {
        script: &script,
        options,
        speed,
        writer,
        lines: reader.lines.clone(),
        start: Instant::now(),
        arrivals: Vec::new(),
        sent_at: Vec::new(),
        closed: None,
        report: LiveReport {
            sent: 0,
            received: 0,
            matched: 0,
            differences: Vec::new(),
            stopped: None,
        },
    };
    let _ = run.go();
    let report = run.report;
    reader.stop();
    Ok(report)
}

/// Blanks what legitimately differs between two runs of a session in `line`, when it
/// reads as an EPD record: the `ptp` Date value becomes `"*"`, every `cc` operand `*`,
/// the first `tcsi` operand `"*"`. Everything else is kept byte for byte; a line that
/// is not a record is returned as it is. See the module's documentation for why.
pub fn normalise(line: &[u8]) -> Vec<u8> {
    // A sealed record: the seal signs what is blanked, so its checksum is blanked too
    // (a seal that does not match is compared as it is).
    if let crate::epd::seal::Seal::Valid { seq, body } = crate::epd::seal::open(line) {
        let mut out = normalise(&line[..body]);
        out.extend_from_slice(format!(" xchk {seq} \"*\";").as_bytes());
        return out;
    }
    if Record::from_ascii(line).is_err() {
        return line.to_vec();
    }
    // A record is printable ASCII, so it is UTF-8.
    let Ok(text) = std::str::from_utf8(line) else {
        return line.to_vec();
    };
    let tokens = tokens(text);
    let mut blanks: Vec<((usize, usize), &str)> = Vec::new();
    let mut i = 4; // the four data fields
    while i < tokens.len() {
        let (start, end) = tokens[i];
        let opcode_token = &text[start..end];
        i += 1;
        if opcode_token.ends_with(';') {
            continue; // an operation without operands
        }
        let mut operands = Vec::new();
        while i < tokens.len() {
            let (start, end) = tokens[i];
            i += 1;
            let token = &text[start..end];
            if token == ";" {
                break;
            }
            if let Some(operand) = token.strip_suffix(';') {
                operands.push((start, start + operand.len()));
                break;
            }
            operands.push((start, end));
        }
        match opcode_token {
            "cc" => blanks.extend(operands.iter().map(|&span| (span, "*"))),
            "ptp" => {
                for pair in operands.chunks(2) {
                    if let [(s, e), value] = pair
                        && &text[*s..*e] == "Date"
                    {
                        blanks.push((*value, "\"*\""));
                    }
                }
            }
            "tcsi" => blanks.extend(operands.first().map(|&span| (span, "\"*\""))),
            _ => {}
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for ((start, end), with) in blanks {
        out.push_str(&text[at..start]);
        out.push_str(with);
        at = end;
    }
    out.push_str(&text[at..]);
    out.into_bytes()
}

/// The byte spans of the blank-separated tokens of `text`; a string in double quotes
/// is part of one token, blanks and all.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if blank(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut quoted = false;
        while i < bytes.len() && (quoted || !blank(bytes[i])) {
            if bytes[i] == b'"' {
                quoted = !quoted;
            }
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// A line as the live side sent it, or as the recording has it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Line {
    /// A line's bytes, without terminator.
    Bytes(Vec<u8>),
    /// A line over the record limit, of this many bytes (the journal keeps only its
    /// length).
    Overlong(usize),
}

impl Line {
    fn of_rx(text: Option<&String>, hex: Option<&String>) -> Line {
        match (text, hex) {
            (Some(text), _) => Line::Bytes(text.clone().into_bytes()),
            (None, Some(hex)) => Line::Bytes(from_hex(hex).unwrap_or_default()),
            (None, None) => Line::Bytes(Vec::new()),
        }
    }

    /// The bytes to write for this line, without terminator: an overlong line, whose
    /// text the journal does not keep, is sent as that many `x`.
    fn to_send(&self) -> Vec<u8> {
        match self {
            Line::Bytes(b) => b.clone(),
            Line::Overlong(len) => vec![b'x'; *len],
        }
    }

    fn same_as(&self, other: &Line) -> bool {
        match (self, other) {
            (Line::Bytes(a), Line::Bytes(b)) => a == b || normalise(a) == normalise(b),
            (Line::Overlong(a), Line::Overlong(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Line::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => f.write_str(s),
                Err(_) => write!(f, "{} (not UTF-8)", b.escape_ascii()),
            },
            Line::Overlong(len) => write!(f, "(a line of {len} bytes, over the limit)"),
        }
    }
}

/// The time of an event in microseconds, for every event that has one. Read through
/// serde so that a kind of event added to the journal later is dated too.
fn time_of(event: &Event) -> Option<u64> {
    serde_json::to_value(event).ok()?.get("t")?.as_u64()
}

/// A recorded line to send.
#[derive(Debug)]
struct Outgoing {
    /// Its journal line.
    journal_line: usize,
    line: Line,
    /// When the recorded side sent it, in microseconds since the session started.
    t: u64,
    /// How many lines the recorded live side had sent before it.
    awaits: usize,
}

/// A recorded line the live side should send.
#[derive(Debug)]
struct Incoming {
    /// Its journal line.
    journal_line: usize,
    line: Line,
    /// When it arrived at the replayed side, in microseconds since the session started.
    t: u64,
    /// How long the recorded live side took to send it after the last line before it,
    /// either way: the part of the wait that no stimulus explains.
    slack: Duration,
}

/// One side of a recorded session, as lines to send and lines to expect.
#[derive(Debug, Default)]
struct Script {
    outgoing: Vec<Outgoing>,
    incoming: Vec<Incoming>,
    /// The journal's last line number.
    last_line: usize,
}

impl Script {
    fn of(events: &[(usize, Event)], role: Role) -> Script {
        let mut script = Script {
            last_line: events.last().map_or(0, |(n, _)| *n),
            ..Script::default()
        };
        // Whichever port the replayed side talks on.
        let port = match role {
            Role::Player(port) | Role::Referee { client: port } => port,
        };
        // The k-th `drained` of the port dates the k-th `tx` to it.
        let drained: Vec<u64> = events
            .iter()
            .filter_map(|(_, ev)| match ev {
                Event::Drained { t, port: p } if *p == port => Some(*t),
                _ => None,
            })
            .collect();
        let mut now = 0; // the time of the last dated event
        let mut last_stimulus = 0; // the last line sent or received on the port
        let mut tx_count = 0;
        let mut drains_seen = 0;
        for (n, ev) in events {
            match ev {
                Event::Drained { port: p, .. } if *p == port => drains_seen += 1,
                Event::Back {
                    port: p,
                    fresh: true,
                    ..
                } if *p == port => {
                    // A new connection: the lines sent before and not drained by now
                    // were never sent, and the next drain is of the next line sent.
                    script.forget_undrained(role, tx_count - drains_seen.min(tx_count));
                    tx_count = drains_seen;
                }
                _ => {}
            }
            // A line that arrived at the referee on the port: (t, line).
            let received = match ev {
                Event::Rx {
                    t,
                    port: p,
                    text,
                    hex,
                } if *p == port => Some((*t, Line::of_rx(text.as_ref(), hex.as_ref()))),
                Event::Overlong { t, port: p, len } if *p == port => {
                    Some((*t, Line::Overlong(*len)))
                }
                _ => None,
            };
            if let Some(t) = time_of(ev) {
                now = now.max(t);
            }
            if let Some((t, line)) = received {
                match role {
                    Role::Player(_) => script.outgoing.push(Outgoing {
                        journal_line: *n,
                        line,
                        t,
                        awaits: script.incoming.len(),
                    }),
                    Role::Referee { .. } => {
                        script.incoming.push(Incoming {
                            journal_line: *n,
                            line,
                            t,
                            slack: Duration::from_micros(t.saturating_sub(last_stimulus)),
                        });
                    }
                }
                last_stimulus = last_stimulus.max(t);
            } else if let Event::Tx { port: p, text } = ev
                && *p == port
            {
                let line = Line::Bytes(text.clone().into_bytes());
                match role {
                    Role::Player(_) => {
                        let t = drained.get(tx_count).copied().unwrap_or(now).max(now);
                        script.incoming.push(Incoming {
                            journal_line: *n,
                            line,
                            t,
                            slack: Duration::from_micros(t.saturating_sub(last_stimulus)),
                        });
                        last_stimulus = last_stimulus.max(t);
                    }
                    Role::Referee { .. } => {
                        script.outgoing.push(Outgoing {
                            journal_line: *n,
                            line,
                            t: now,
                            awaits: script.incoming.len(),
                        });
                        last_stimulus = last_stimulus.max(now);
                    }
                }
                tx_count += 1;
            }
        }
        script
    }

    /// Takes out the last `count` lines the referee sent on the replayed side's port:
    /// they were written off when a new connection took the line (`back` with
    /// `fresh`), and never sent.
    fn forget_undrained(&mut self, role: Role, count: usize) {
        match role {
            Role::Player(_) => {
                self.incoming
                    .truncate(self.incoming.len().saturating_sub(count));
                let held = self.incoming.len();
                for out in &mut self.outgoing {
                    out.awaits = out.awaits.min(held);
                }
            }
            Role::Referee { .. } => {
                self.outgoing
                    .truncate(self.outgoing.len().saturating_sub(count));
            }
        }
    }
}

/// What came from the reader thread.
enum FromLine {
    /// A line, stamped when its terminator was read.
    Line(Instant, Line),
    /// The line failed or closed; nothing more will come.
    Closed(String),
}

/// The thread that reads the live side's lines.
struct ReaderThread {
    lines: Receiver<FromLine>,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl ReaderThread {
    fn spawn(mut reader: Box<dyn Read + Send>) -> io::Result<ReaderThread> {
        let (tx, lines) = crossbeam_channel::unbounded();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = stop.clone();
            thread::Builder::new()
                .name("argus-live-rx".into())
                .spawn(move || read_lines(reader.as_mut(), &tx, &stop))?
        };
        Ok(ReaderThread {
            lines,
            stop,
            thread,
        })
    }

    /// Stops the thread and waits for it a little: a reader that never times out is
    /// left behind rather than holding the caller.
    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        while !self.thread.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        if self.thread.is_finished() {
            let _ = self.thread.join();
        } else {
            log::warn!("the live line's reader is stuck in a read; leaving it behind");
        }
    }
}

fn read_lines(reader: &mut dyn Read, out: &Sender<FromLine>, stop: &AtomicBool) {
    let mut splitter = LineSplitter::new();
    let mut buf = vec![0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        match reader.read(&mut buf) {
            Ok(0) => {
                let _ = out.send(FromLine::Closed("end of file".into()));
                return;
            }
            Ok(n) => {
                let at = Instant::now();
                splitter.feed(&buf[..n], |piece| {
                    let line = match piece {
                        Piece::Line(bytes) => Line::Bytes(bytes),
                        Piece::Overlong { len } => Line::Overlong(len),
                    };
                    let _ = out.send(FromLine::Line(at, line));
                });
            }
            Err(e) if is_idle(&e) => {}
            Err(e) => {
                let _ = out.send(FromLine::Closed(e.to_string()));
                return;
            }
        }
    }
}

fn is_idle(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

/// Why the run ends before its script does.
struct Stop;

/// A replay under way.
struct Run<'a> {
    script: &'a Script,
    options: &'a LiveOptions,
    /// `None` for [`Pace::Instant`].
    speed: Option<f64>,
    writer: Box<dyn Write + Send>,
    lines: Receiver<FromLine>,
    start: Instant,
    /// When each live line arrived.
    arrivals: Vec<Instant>,
    /// When each recorded line was sent.
    sent_at: Vec<Instant>,
    /// Why the line closed, once it has.
    closed: Option<String>,
    report: LiveReport,
}

impl Run<'_> {
    fn go(&mut self) -> Result<(), Stop> {
        let script = self.script;
        for (i, out) in script.outgoing.iter().enumerate() {
            while self.arrivals.len() < out.awaits {
                self.await_next()?;
            }
            let at = self.moment_to_send(i, out);
            while Instant::now() < at {
                match self.receive(at)? {
                    Received::Line | Received::Timeout => {}
                    Received::Closed => break,
                }
            }
            self.check_closed()?;
            let mut bytes = out.line.to_send();
            bytes.extend_from_slice(self.options.eol.bytes());
            if let Err(e) = write_all(self.writer.as_mut(), &bytes, self.options.answer_timeout) {
                self.report.stopped =
                    Some(format!("writing journal line {}: {e}", out.journal_line));
                return Err(Stop);
            }
            self.sent_at.push(Instant::now());
            self.report.sent += 1;
        }
        while self.arrivals.len() < script.incoming.len() {
            self.await_next()?;
        }
        // Extra lines: until the live side has been quiet for a while, within a bound.
        let bound = Instant::now() + self.options.answer_timeout + self.options.quiet;
        while self.closed.is_none() {
            let deadline = (Instant::now() + self.options.quiet).min(bound);
            match self.receive(deadline)? {
                Received::Line if Instant::now() < bound => {}
                Received::Line | Received::Timeout | Received::Closed => break,
            }
        }
        Ok(())
    }

    /// Ends the run when the line is closed, with the recorded lines still unsent.
    fn check_closed(&mut self) -> Result<(), Stop> {
        if let Some(why) = &self.closed {
            self.report.stopped = Some(format!("the line closed: {why}"));
            return Err(Stop);
        }
        Ok(())
    }

    /// Waits for the next recorded live line, within its deadline. A line that does not
    /// come is a difference; when the line has closed, so are all the rest.
    fn await_next(&mut self) -> Result<(), Stop> {
        let Some(next) = self.script.incoming.get(self.arrivals.len()) else {
            return Ok(());
        };
        let deadline = Instant::now() + self.options.answer_timeout + next.slack;
        let waiting_for = self.arrivals.len();
        while self.arrivals.len() == waiting_for {
            match self.receive(deadline)? {
                Received::Line => {}
                Received::Timeout | Received::Closed => {
                    self.report.differences.push(Difference {
                        journal_line: next.journal_line,
                        expected: Some(next.line.to_string()),
                        got: None,
                    });
                    if !self.options.keep_going {
                        self.report.stopped = Some(match &self.closed {
                            Some(why) => format!("the line closed: {why}"),
                            None => "the live side fell silent".into(),
                        });
                        return Err(Stop);
                    }
                    // Stand in for the line that never came, and go on.
                    self.arrivals.push(Instant::now());
                }
            }
        }
        Ok(())
    }

    /// Receives one live line, waiting until `deadline`, and compares it; a difference
    /// ends the run unless [`LiveOptions::keep_going`].
    fn receive(&mut self, deadline: Instant) -> Result<Received, Stop> {
        if self.closed.is_some() {
            return Ok(Received::Closed);
        }
        let message = match self.lines.recv_deadline(deadline) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => return Ok(Received::Timeout),
            Err(RecvTimeoutError::Disconnected) => FromLine::Closed("the reader stopped".into()),
        };
        match message {
            FromLine::Closed(why) => {
                self.closed = Some(why);
                Ok(Received::Closed)
            }
            FromLine::Line(at, line) => {
                self.take(at, &line)?;
                Ok(Received::Line)
            }
        }
    }

    fn take(&mut self, at: Instant, got: &Line) -> Result<(), Stop> {
        self.report.received += 1;
        let index = self.arrivals.len();
        self.arrivals.push(at);
        match self.script.incoming.get(index) {
            Some(expected) if expected.line.same_as(got) => self.report.matched += 1,
            Some(expected) => self.report.differences.push(Difference {
                journal_line: expected.journal_line,
                expected: Some(expected.line.to_string()),
                got: Some(got.to_string()),
            }),
            None => self.report.differences.push(Difference {
                journal_line: self
                    .script
                    .incoming
                    .last()
                    .map_or(self.script.last_line, |i| i.journal_line),
                expected: None,
                got: Some(got.to_string()),
            }),
        }
        if !self.options.keep_going && !self.report.differences.is_empty() {
            self.report.stopped = Some("at the first difference".into());
            return Err(Stop);
        }
        Ok(())
    }

    /// When to send outgoing line `i`: as long after each thing it followed in the
    /// recording (the session's start, the previous line sent, the last live line it
    /// waited for) as it was then, divided by the speed; the latest of these.
    fn moment_to_send(&self, i: usize, out: &Outgoing) -> Instant {
        let Some(speed) = self.speed else {
            return Instant::now();
        };
        let mut references = vec![(0, self.start)];
        if i > 0
            && let (Some(prev), Some(&at)) = (self.script.outgoing.get(i - 1), self.sent_at.last())
        {
            references.push((prev.t, at));
        }
        if out.awaits > 0
            && let (Some(answered), Some(&at)) = (
                self.script.incoming.get(out.awaits - 1),
                self.arrivals.get(out.awaits - 1),
            )
        {
            references.push((answered.t, at));
        }
        references
            .into_iter()
            .map(|(recorded, live)| {
                let gap = out.t.saturating_sub(recorded) as f64 / 1e6 / speed;
                let gap = Duration::try_from_secs_f64(gap).unwrap_or(Duration::MAX);
                live.checked_add(gap)
                    .unwrap_or_else(|| live + Duration::from_secs(86_400))
            })
            .max()
            .unwrap_or_else(Instant::now)
    }
}

/// What one wait for a live line brought.
enum Received {
    Line,
    Timeout,
    Closed,
}

/// Writes all of `bytes` and drains them, treating a write that times out as "not yet"
/// until `patience` has passed.
fn write_all(w: &mut dyn Write, mut bytes: &[u8], patience: Duration) -> io::Result<()> {
    let deadline = Instant::now() + patience;
    let stuck = || io::Error::new(io::ErrorKind::TimedOut, "the line takes no more output");
    while !bytes.is_empty() {
        match w.write(bytes) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "line closed")),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if is_idle(&e) && Instant::now() < deadline => {}
            Err(e) if is_idle(&e) => return Err(stuck()),
            Err(e) => return Err(e),
        }
    }
    loop {
        match w.flush() {
            Ok(()) => return Ok(()),
            Err(e) if is_idle(&e) && Instant::now() < deadline => {}
            Err(e) if is_idle(&e) => return Err(stuck()),
            Err(e) => return Err(e),
        }
    }
}

mod sign_on;
pub use sign_on::{SignedOn, recorded_sign_on};

#[cfg(test)]
mod tests;
