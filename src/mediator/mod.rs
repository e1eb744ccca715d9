//! The mediator: drives a [`Referee`] with the events of two lines.
//!
//! One main loop `select!`s over the lines' event channel and the referee's next
//! deadline, so a flag falls at its moment and not when a late reply comes. Every input
//! is journaled before the referee sees it, and every line the referee sends is journaled
//! before it is handed to the line's writer thread, so the journal on disk is always a
//! prefix of the session. Finished games are appended to the PGN file at once.

pub mod budget;
pub mod config;
pub mod journal;
pub mod live_replay;
pub mod standby;

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, at, never, select};

use crate::core::supervisor::Command;
use crate::core::{GameReport, Input, Notice, Output, Port, Referee, Tally};
use crate::epd::Record;
use crate::mediator::journal::{Event, Journal, JournalError, Takeover, WrittenGame, micros};
use crate::transport::{Gate, LinkEvent, Opener, PortEvent, Wire};

/// One of the two lines the mediator drives.
pub struct Line {
    /// What the line is called (its path).
    pub label: String,
    /// The open line.
    pub wire: Wire,
    /// How to open it again after a failure, if it can be.
    pub reopen: Option<Opener>,
}

/// The end of line to write: `\n` or `\r\n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Eol {
    /// LF.
    Lf,
    /// CR LF.
    Crlf,
}

impl Eol {
    /// Its name in a journal and an event file: `lf` or `crlf`.
    pub fn name(self) -> &'static str {
        match self {
            Eol::Lf => "lf",
            Eol::Crlf => "crlf",
        }
    }

    /// The bytes.
    pub fn bytes(self) -> &'static [u8] {
        match self {
            Eol::Lf => b"\n",
            Eol::Crlf => b"\r\n",
        }
    }
}

/// What the mediator is told from outside the lines: the supervisor's commands, and
/// the request to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Stop, to be resumed later: the clocks stand, both players get `fault`, and the
    /// session ends with the match not over (see [`Input::Stop`]).
    Stop,
    /// A supervisor's command.
    Command(Command),
}

/// How the mediator runs a session.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The end of line written after every record.
    pub eol: Eol,
    /// When the session takes over from a referee that died: what the new one owes.
    pub resume: Option<Takeover>,
}

impl From<Eol> for RunOptions {
    fn from(eol: Eol) -> RunOptions {
        RunOptions { eol, resume: None }
    }
}

/// Players that run on the mediator's own thread (`argus serve`'s local engines, on
/// Unix): between inputs the mediator lets them act, and it waits for them and for its
/// own deadline at once, so that a ply wakes one thread. Their lines are direct lines
/// ([`crate::transport::memory::direct_pair`]) like any local engine's.
pub trait Local {
    /// Acts on what is there (the lines the referee sent them, what their engines
    /// said), without waiting. Returns whether anything was done.
    fn pump(&mut self) -> bool;
    /// Waits until one of them may have something to do, the mediator's control
    /// channel was sent something from another thread (whoever sends arranges the
    /// wake), or until `until`.
    fn wait(&mut self, until: Instant);
}

/// How long the mediator of [`Local`] players waits at most before it looks at its
/// control channel anyway (a sender that did not wake it is heard within this).
pub const LOCAL_TICK: Duration = Duration::from_millis(500);

/// How long a deadline (a flag) waits at most for bytes that reached a player's
/// connection and are not read yet (the mediator's `Driver::await_unread`).
pub const UNREAD_WAIT: Duration = Duration::from_millis(250);
/// How often it looks again meanwhile.
const UNREAD_POLL: Duration = Duration::from_millis(2);

/// How a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The match's tally so far (every session's games).
    pub tally: Tally,
    /// Whether the match is over; if not, the session stopped and a resume goes on.
    pub over: bool,
    /// Whether the supervisor ended it early with `quit` in this session.
    pub quit: bool,
    /// The report of the last game this session recorded (one a dead referee owed
    /// included), if it recorded any: a match of one game's own report.
    pub last_game: Option<GameReport>,
}

/// An error that stops the mediator. Misbehaving players never do: they are the
/// referee's to judge.
#[derive(Debug, thiserror::Error)]
pub enum MediatorError {
    /// The journal could not be written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The PGN file could not be written.
    #[error("pgn file {path}: {source}")]
    Pgn {
        /// Its path.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// A line's threads could not be started.
    #[error("port {port}: {source}")]
    Spawn {
        /// The port.
        port: Port,
        /// The system's error.
        source: io::Error,
    },
}

/// What the mediator tells whoever watches it.
pub trait Watcher {
    /// A notice from the referee.
    fn notice(&mut self, notice: &Notice);
    /// A finished game.
    fn game_over(&mut self, _report: &GameReport) {}
}

impl<W: Watcher + ?Sized> Watcher for Box<W> {
    fn notice(&mut self, notice: &Notice) {
        (**self).notice(notice);
    }

    fn game_over(&mut self, report: &GameReport) {
        (**self).game_over(report);
    }
}

/// A watcher that logs notices.
pub struct LogWatcher;

/// Whether a notice is something going wrong (noise, a cable mistake), which a log
/// shows as a warning.
pub fn is_warning(notice: &Notice) -> bool {
    matches!(
        notice,
        Notice::Noise { .. }
            | Notice::Resent { .. }
            | Notice::OneCable
            | Notice::LoopedBack { .. }
            | Notice::UnknownName { .. }
            | Notice::CablesSwapped { .. }
    )
}

/// A watcher that takes no notice (where another watcher wraps one, say).
impl Watcher for () {
    fn notice(&mut self, _notice: &Notice) {}
}

impl Watcher for LogWatcher {
    fn notice(&mut self, notice: &Notice) {
        if is_warning(notice) {
            log::warn!("{notice}");
        } else {
            log::info!("{notice}");
        }
    }
}

/// A watcher that prints every notice on standard output, one line each.
pub struct PrintWatcher;

impl Watcher for PrintWatcher {
    fn notice(&mut self, notice: &Notice) {
        // Every notice is one plain line on standard output, as the docs show them;
        // the log (standard error) is for what goes wrong outside the match.
        println!("{notice}");
    }
}

/// The records of a session: the journal and the PGN file.
pub struct Records {
    /// The journal, already holding its session line.
    pub journal: Journal,
    /// The PGN file games are appended to; none where the journal and another file
    /// hold each game (`argus serve`'s games under `argus fastchess`: `games.pgn`).
    pub pgn: Option<PathBuf>,
}

/// Appends `text` to the PGN file at `path`, creating it if need be.
///
/// # Errors
///
/// Returns [`MediatorError::Pgn`] naming the file when it cannot be written.
pub fn append_pgn(path: &Path, text: &str) -> Result<(), MediatorError> {
    let err = |source| MediatorError::Pgn {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    file.write_all(text.as_bytes()).map_err(err)?;
    file.flush().map_err(err)
}

/// The PGN file's length (0 when it does not exist yet).
fn pgn_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Makes sure the PGN file holds `game`, the last game the journal records, exactly
/// once: a dead referee may have been killed before or during its append. Returns
/// whether anything was written.
///
/// # Errors
///
/// Returns [`MediatorError::Pgn`] when the file cannot be read or written.
pub fn finish_pgn_append(path: &Path, game: &WrittenGame) -> Result<bool, MediatorError> {
    let err = |source| MediatorError::Pgn {
        path: path.to_path_buf(),
        source,
    };
    let text = game.pgn.as_bytes();
    let len = pgn_len(path);
    // Where the append began: the journal says so; older journals did not, and then the
    // game can only be at the file's tail. Only that window of the file is read.
    let from = match game.at {
        Some(at) => at.min(len),
        None => len.saturating_sub(text.len() as u64),
    };
    let mut held = Vec::with_capacity(text.len());
    if len > from {
        let mut file = File::open(path).map_err(err)?;
        file.seek(SeekFrom::Start(from)).map_err(err)?;
        file.take(text.len() as u64)
            .read_to_end(&mut held)
            .map_err(err)?;
    }
    // Without the journal's word, the game begins at the longest end of the file that
    // begins the game.
    let start = match game.at {
        Some(_) => 0,
        None => (0..held.len())
            .find(|&i| text.starts_with(&held[i..]))
            .unwrap_or(held.len()),
    };
    let tail = &held[start..];
    if tail.starts_with(text) {
        return Ok(false);
    }
    let rest = if text.starts_with(tail) {
        // Cut off half-way: the rest follows what is there.
        &text[tail.len()..]
    } else {
        log::warn!(
            "pgn file {}: game {} is not where the journal says it was written; appending it",
            path.display(),
            game.number
        );
        text
    };
    append_pgn(path, &String::from_utf8_lossy(rest))?;
    Ok(true)
}

/// Records a finished game: the journal first (with where in the PGN file the game
/// begins), then the PGN file, then the watcher.
fn record_game(
    report: &GameReport,
    records: &mut Records,
    watcher: &mut dyn Watcher,
) -> Result<(), MediatorError> {
    records.journal.write(&Event::GameOver {
        game: report.number,
        result: report.result.to_string(),
        termination: report.termination.to_string(),
        reason: report.reason.clone(),
        pgn: report.pgn.clone(),
        pgn_at: records.pgn.as_deref().map(pgn_len),
    })?;
    // The journal holds the game too: a PGN file that fails mid-match loses nothing and
    // stops nobody.
    if let Some(pgn) = &records.pgn
        && let Err(e) = append_pgn(pgn, &report.pgn)
    {
        log::error!("{e}; the game is in the journal");
    }
    watcher.game_over(report);
    Ok(())
}

/// Finishes what a dead referee owed before a new session takes over: the PGN append
/// it was killed in the middle of, then the games its last inputs finished that it
/// never recorded (to the journal, then the PGN file), so that every game reaches both
/// exactly once.
///
/// # Errors
///
/// Returns [`MediatorError`] when the journal or the PGN file cannot be written.
pub fn settle(
    takeover: &Takeover,
    records: &mut Records,
    watcher: &mut dyn Watcher,
) -> Result<(), MediatorError> {
    if let Some(game) = &takeover.last_written
        && let Some(pgn) = &records.pgn
        && finish_pgn_append(pgn, game)?
    {
        log::warn!(
            "pgn file {}: finished the append of game {} that the dead referee began",
            pgn.display(),
            game.number
        );
    }
    for report in &takeover.owed {
        log::warn!(
            "game {} ended just before the referee died; recording it now",
            report.number
        );
        record_game(report, records, watcher)?;
        watcher.notice(&Notice::GameOver {
            number: report.number,
            result: report.result,
            reason: report.reason.clone(),
        });
    }
    Ok(())
}

/// A line the referee sent, held until the journal that records it is flushed, with
/// the record it was written from when the port's client takes records.
type Held = (Port, String, Option<Box<Record>>);

/// Runs the match: starts both lines' threads and drives the referee until the match is
/// over or the session stops. Each message on `control` is an input of the referee: a
/// supervisor's command, or [`Control::Stop`], after which the clocks stand, both
/// players get `fault` and the session ends with the match not over. A session that takes over from a dead referee first
/// finishes what that one owed: the PGN append it was killed in, and the games its last
/// inputs finished that it never recorded. Returns the match's tally, whether it is
/// over, and the last game's report.
///
/// # Errors
///
/// Returns [`MediatorError`] when the journal or the PGN file cannot be written, or a
/// thread cannot be started.
pub fn run(
    referee: Referee,
    lines: [Line; 2],
    options: impl Into<RunOptions>,
    records: &mut Records,
    watcher: &mut dyn Watcher,
    control: Receiver<Control>,
) -> Result<Outcome, MediatorError> {
    run_with(referee, lines, options, records, watcher, control, None)
}

/// As [`run`], with `local` players on the mediator's thread: the mediator then waits
/// in their [`Local::wait`] (at most [`LOCAL_TICK`] at a time, to look at `control`)
/// instead of on its channels alone.
///
/// # Errors
///
/// As [`run`].
pub fn run_with(
    referee: Referee,
    lines: [Line; 2],
    options: impl Into<RunOptions>,
    records: &mut Records,
    watcher: &mut dyn Watcher,
    control: Receiver<Control>,
    local: Option<&mut dyn Local>,
) -> Result<Outcome, MediatorError> {
    let mut driver = Driver::start(referee, lines, options.into(), records, watcher)?;
    match local {
        Some(local) => driver.run_local(control, local)?,
        None => driver.run(control)?,
    }
    driver.finish()
}

/// The session's clock: its moments as the match's times, which the journal and the
/// referee read.
#[derive(Copy, Clone)]
struct Clock {
    /// When the session began.
    epoch: Instant,
    /// The match's time then (zero unless the session takes over from a dead referee).
    origin: Duration,
}

impl Clock {
    /// The match's time at `moment`, to the journal's microsecond.
    fn stamp(self, moment: Instant) -> Duration {
        let d = self.origin + moment.saturating_duration_since(self.epoch);
        Duration::from_micros(micros(d))
    }

    /// The moment the match's clock reads `due` (`None` if it is out of reach).
    fn moment(self, due: Duration) -> Option<Instant> {
        self.epoch.checked_add(due.saturating_sub(self.origin))
    }
}

/// The mediator's loop: the referee, its lines and its records, with one method for
/// each kind of event the loop waits for.
struct Driver<'a> {
    referee: Referee,
    /// The lines' threads, by port.
    links: Vec<crate::transport::Link>,
    /// The lines' events.
    events: Receiver<PortEvent>,
    /// The gate every line is stamped behind, which the loop passes before it feeds an
    /// input of its own moment (see [`Driver::settle`]).
    gate: Gate,
    /// What each port may add to the journal ([`budget`]).
    budgets: [budget::Budget; 2],
    records: &'a mut Records,
    watcher: &'a mut dyn Watcher,
    clock: Clock,
    /// The match's tally so far.
    tally: Tally,
    /// Whether the match is over or the session stopped.
    over: bool,
    /// Whether the session stopped (the match is not over).
    stopped: bool,
    /// Whether the supervisor said `quit`.
    quit: bool,
    /// The last game recorded.
    last_game: Option<GameReport>,
}

impl<'a> Driver<'a> {
    /// Begins the session: finishes what a dead referee owed when it takes over from
    /// one, journals and starts both lines' threads, and feeds the resumption.
    fn start(
        mut referee: Referee,
        lines: [Line; 2],
        options: RunOptions,
        records: &'a mut Records,
        watcher: &'a mut dyn Watcher,
    ) -> Result<Driver<'a>, MediatorError> {
        let clock = Clock {
            epoch: Instant::now(),
            origin: options.resume.as_ref().map_or(Duration::ZERO, |r| r.at),
        };
        let mut tally = Tally::default();
        let mut last_game = None;
        if let Some(takeover) = &options.resume {
            settle(takeover, records, watcher)?;
            tally = takeover.tally;
            last_game = takeover.owed.last().cloned();
        }
        let (events_tx, events) = crossbeam_channel::unbounded::<PortEvent>();
        let gate = Gate::default();
        let mut links = Vec::with_capacity(2);
        for (line, port) in lines.into_iter().zip(Port::BOTH) {
            records.journal.write(&Event::Open {
                t: micros(clock.stamp(Instant::now())),
                port,
                path: line.label.clone(),
            })?;
            let link = crate::transport::Link::start(
                port,
                &format!("port-{port}"),
                line.wire,
                line.reopen,
                options.eol.bytes(),
                events_tx.clone(),
                &gate,
            )
            .map_err(|source| MediatorError::Spawn { port, source })?;
            if link.is_direct() {
                // The client in this process takes each record as it was written.
                referee.hand_over_records(port);
            }
            links.push(link);
        }
        drop(events_tx);
        let mut driver = Driver {
            referee,
            links,
            events,
            gate,
            budgets: Default::default(),
            records,
            watcher,
            clock,
            tally,
            over: false,
            stopped: false,
            quit: false,
            last_game,
        };
        if let Some(takeover) = &options.resume {
            let event = Event::Resume {
                t: micros(takeover.at),
                wall: crate::mediator::journal::now_rfc3339(),
            };
            driver.feed(Input::Resume { at: takeover.at }, Some(event))?;
        }
        Ok(driver)
    }

    /// The loop: waits for a line's event, the supervisor's word or the referee's next
    /// deadline, whichever comes first, until the match is over or the session stops.
    fn run(&mut self, mut control: Receiver<Control>) -> Result<(), MediatorError> {
        let events = self.events.clone();
        while !self.over {
            let timer = match self.referee.poll_timeout() {
                Some(due) => self.clock.moment(due).map_or_else(never, at),
                None => never(),
            };
            select! {
                recv(events) -> ev => match ev {
                    Ok(ev) => self.drive_port(ev)?,
                    Err(_) => break,
                },
                recv(control) -> message => match message {
                    Ok(message) => self.drive_control(message)?,
                    // Nobody can send any more (the console's input closed).
                    Err(_) => control = never(),
                },
                recv(timer) -> _ => self.drive_timeout(self.clock.stamp(Instant::now()))?,
            }
        }
        Ok(())
    }

    /// The loop with `local` players on the mediator's thread: it handles everything
    /// that is there and lets them act until all is quiet, then waits in their
    /// [`Local::wait`] for them, its own deadline, or at most [`LOCAL_TICK`].
    fn run_local(
        &mut self,
        mut control: Receiver<Control>,
        local: &mut dyn Local,
    ) -> Result<(), MediatorError> {
        while !self.over {
            // Everything that is there, in turn: the lines' events, the supervisor,
            // then the local players (whose lines become events), until all is quiet.
            loop {
                let mut busy = false;
                while !self.over
                    && let Ok(ev) = self.events.try_recv()
                {
                    busy = true;
                    self.drive_port(ev)?;
                }
                if !self.over {
                    match control.try_recv() {
                        Ok(message) => {
                            busy = true;
                            self.drive_control(message)?;
                        }
                        Err(crossbeam_channel::TryRecvError::Disconnected) => control = never(),
                        Err(crossbeam_channel::TryRecvError::Empty) => {}
                    }
                }
                if self.over {
                    break;
                }
                busy |= local.pump();
                if !busy {
                    break;
                }
            }
            if self.over {
                break;
            }
            let now = Instant::now();
            match self.referee.poll_timeout() {
                Some(due) if due <= self.clock.stamp(now) => {
                    self.drive_timeout(self.clock.stamp(now))?;
                }
                due => {
                    let tick = now + LOCAL_TICK;
                    let timer = due.and_then(|due| self.clock.moment(due));
                    local.wait(timer.map_or(tick, |timer| timer.min(tick)));
                }
            }
        }
        Ok(())
    }

    /// Ends the session: journals its end and stops the lines' threads.
    fn finish(mut self) -> Result<Outcome, MediatorError> {
        for port in Port::BOTH {
            if let Some(dropped) = self.budgets[port.index()].take() {
                self.journal_dropped(port, &dropped)?;
            }
        }
        self.records.journal.write(&Event::End {
            t: micros(self.clock.stamp(Instant::now())),
        })?;
        // The writers have delivered everything (disconnect or the stop's fault has
        // drained, or its grace ran out); stop the threads.
        for link in self.links {
            link.shutdown();
        }
        Ok(Outcome {
            tally: self.tally,
            over: !self.stopped,
            quit: self.quit,
            last_game: self.last_game,
        })
    }

    /// Feeds one input: journal first (`extra`, when the journal's event is not the
    /// input's own), then the referee, then its outputs.
    fn feed(&mut self, input: Input, extra: Option<Event>) -> Result<(), MediatorError> {
        // The input and the lines it sends reach the journal in one write, before any
        // line leaves.
        self.records
            .journal
            .write_held(&extra.unwrap_or_else(|| Event::from_input(&input)))?;
        // A drain that sends nothing reaches the disk with the next write: it only
        // starts a clock, and every line sent later is flushed after it.
        let drain = matches!(input, Input::Drained { .. });
        self.referee.handle(input);
        let mut held: Vec<Held> = Vec::new();
        while let Some(output) = self.referee.poll_output() {
            match output {
                Output::Send { port, line, record } => {
                    self.records.journal.write_held(&Event::Tx {
                        port,
                        text: line.clone(),
                    })?;
                    held.push((port, line, record));
                }
                Output::GameOver(report) => {
                    self.release(&mut held)?;
                    record_game(&report, self.records, self.watcher)?;
                    self.tally.add(report.number, report.result);
                    self.last_game = Some(report);
                }
                Output::Notice(notice) => self.watcher.notice(&notice),
                Output::MatchOver => self.over = true,
                Output::Stopped => {
                    self.over = true;
                    self.stopped = true;
                }
            }
        }
        if drain && held.is_empty() {
            return Ok(());
        }
        self.release(&mut held)
    }

    /// Flushes the journal, then hands the lines it records to their writers.
    fn release(&mut self, held: &mut Vec<Held>) -> Result<(), MediatorError> {
        self.records.journal.flush()?;
        for (port, line, record) in held.drain(..) {
            self.budgets[port.index()].sent();
            self.links[port.index()].send_record(&line, record);
        }
        Ok(())
    }

    /// Drains the lines' events before an input of the loop's own moment (a timeout,
    /// the supervisor's word): every line stamped before that moment is judged first,
    /// so that no flag falls while a reply stamped before it still waits to be judged.
    /// The moment is taken before the gate is passed: a line stamped before it was
    /// handed over by then, and the core orders what it is given by its stamps (a timer
    /// due before an input fires first, at its own moment).
    fn settle(&mut self) -> Result<(), MediatorError> {
        self.gate.pass();
        while !self.over
            && let Ok(ev) = self.events.try_recv()
        {
            self.drive_port(ev)?;
        }
        Ok(())
    }

    /// A line's event, fed as the referee's input (with the journal's event when it is
    /// not the input's own); a dropped overlong line is only journaled.
    fn drive_port(&mut self, ev: PortEvent) -> Result<(), MediatorError> {
        let port = ev.port;
        // A line past the port's allowance is dropped before anything sees it.
        let admitted = match &ev.event {
            LinkEvent::Line { at, bytes } => self.admit(port, *at, bytes.len(), Some(bytes))?,
            LinkEvent::Overlong { at, len } => self.admit(port, *at, *len, None)?,
            _ => true,
        };
        if !admitted {
            return Ok(());
        }
        let stamp = |at| self.clock.stamp(at);
        let (input, extra) = match ev.event {
            LinkEvent::Line { at, bytes } => (
                Input::Line {
                    port,
                    at: stamp(at),
                    // A sign-on's token reaches neither the journal nor the referee.
                    bytes: crate::secret::redact_sign_on(bytes),
                    record: None,
                },
                None,
            ),
            // A reply of an in-process client (never a sign-on).
            LinkEvent::Record { at, bytes, record } => (
                Input::Line {
                    port,
                    at: stamp(at),
                    bytes,
                    record: Some(record),
                },
                None,
            ),
            LinkEvent::Drained { at, conversation } => {
                if conversation < self.links[port.index()].conversation() {
                    // A line of a connection the referee has since written off (a
                    // player that connected again) drained late: it waits for nothing.
                    log::debug!("port {port}: a drain on a connection that is gone");
                    return Ok(());
                }
                (
                    Input::Drained {
                        port,
                        at: stamp(at),
                    },
                    None,
                )
            }
            LinkEvent::Lost { at, error } => {
                let at = stamp(at);
                let ev = Event::Lost {
                    t: micros(at),
                    port,
                    error,
                };
                (Input::PortLost { port, at }, Some(ev))
            }
            LinkEvent::Back { at, fresh } => {
                if fresh {
                    // What the referee sent before it heard of the new connection was
                    // for the old one: the writer drops what it has not written.
                    self.links[port.index()].new_conversation();
                }
                (
                    Input::PortBack {
                        port,
                        at: stamp(at),
                        fresh,
                    },
                    None,
                )
            }
            LinkEvent::Overlong { at, len } => {
                log::warn!("port {port}: a {len}-byte line dropped (over the record limit)");
                self.records.journal.write(&Event::Overlong {
                    t: micros(stamp(at)),
                    port,
                    len,
                })?;
                return Ok(());
            }
        };
        self.feed(input, extra)
    }

    /// Whether a line `port` sent (`line`, or `len` bytes over the record limit) is
    /// within its allowance ([`budget`]), and is journaled and judged; journals what
    /// the last window dropped once it is over, and says once in a window that lines
    /// are dropped.
    fn admit(
        &mut self,
        port: Port,
        at: Instant,
        len: usize,
        line: Option<&[u8]>,
    ) -> Result<bool, MediatorError> {
        // A serial line's rate bounds what it can send (9600 baud: 57,600 bytes a
        // minute); on it, noise in a reply must reach the referee, which asks again.
        if !self.links[port.index()].is_stamped() {
            return Ok(true);
        }
        let budget = &mut self.budgets[port.index()];
        if let Some(dropped) = budget.roll(at) {
            self.journal_dropped(port, &dropped)?;
        }
        match self.budgets[port.index()].judge(at, len, line) {
            budget::Verdict::Take => Ok(true),
            budget::Verdict::Drop { first } => {
                if first {
                    log::warn!(
                        "port {port}: more than {} lines ({} KiB) it was not asked for in a \
                         minute: the rest of the minute's are dropped unread, and counted \
                         in the journal",
                        budget::UNASKED_LINES,
                        budget::UNASKED_BYTES / 1024
                    );
                }
                Ok(false)
            }
        }
    }

    /// Journals what a window of `port`'s dropped.
    fn journal_dropped(
        &mut self,
        port: Port,
        dropped: &budget::Dropped,
    ) -> Result<(), MediatorError> {
        let stamp = |at| micros(self.clock.stamp(at));
        let event = Event::Dropped {
            t: stamp(dropped.last),
            port,
            since: stamp(dropped.first),
            lines: dropped.lines,
            bytes: dropped.bytes,
            sample: String::from_utf8_lossy(&dropped.sample).into_owned(),
        };
        self.records.journal.write(&event)?;
        Ok(())
    }

    /// A message of the control channel, at the moment it is taken: lines stamped
    /// before it are judged first, then the referee is told (a `quit` is noted).
    fn drive_control(&mut self, message: Control) -> Result<(), MediatorError> {
        let now = self.clock.stamp(Instant::now());
        let input = match message {
            Control::Stop => Input::Stop { at: now },
            Control::Command(command) => {
                self.quit |= command == Command::Quit;
                Input::Supervisor { at: now, command }
            }
        };
        self.settle()?;
        if self.over {
            return Ok(());
        }
        self.feed(input, None)
    }

    /// Before a deadline's input: while a line's connection holds bytes its reader has
    /// not read yet (`argus serve`'s poll loop busy with other connections), waits for
    /// them, [`UNREAD_WAIT`] at most, and judges what they bring first, so that a reply
    /// that reached the machine before its flag fell is judged in time, by its receive
    /// time.
    fn await_unread(&mut self) -> Result<(), MediatorError> {
        let until = Instant::now() + UNREAD_WAIT;
        while !self.over && self.links.iter().any(crate::transport::Link::has_unread) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                log::debug!("bytes still unread after {UNREAD_WAIT:?}: the deadline goes on");
                break;
            }
            if let Ok(ev) = self.events.recv_timeout(left.min(UNREAD_POLL)) {
                self.drive_port(ev)?;
            }
        }
        // Bytes found read were read inside the gate (`argus serve`'s loop holds it
        // from before its read until the lines are handed over): passing it once more
        // brings them.
        self.settle()
    }

    /// The referee's deadline, reached at `now`: lines stamped before it come first,
    /// those still being handed over too, so that a reply that arrived before the flag
    /// fell is judged on time; then the timeout, if it is still due.
    fn drive_timeout(&mut self, now: Duration) -> Result<(), MediatorError> {
        self.settle()?;
        self.await_unread()?;
        if !self.over && self.referee.poll_timeout().is_some_and(|due| due <= now) {
            self.feed(Input::Timeout { at: now }, None)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
