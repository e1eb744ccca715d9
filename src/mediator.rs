//! The mediator: drives a [`Referee`] with the events of two lines.
//!
//! One main loop `select!`s over the lines' event channel and the referee's next
//! deadline, so a flag falls at its moment and not when a late reply comes. Every input
//! is journaled before the referee sees it, and every line the referee sends is journaled
//! before it is handed to the line's writer thread, so the journal on disk is always a
//! prefix of the session. Finished games are appended to the PGN file at once.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, at, never, select};

use crate::core::supervisor::Command;
use crate::core::{GameReport, Input, Notice, Output, Port, Referee};
use crate::journal::{Event, Journal, JournalError, micros};
use crate::transport::{Duplex, LinkEvent, Opener, PortEvent};

/// One of the two lines the mediator drives.
pub struct Line {
    /// What the line is called (its path).
    pub label: String,
    /// The open line.
    pub duplex: Duplex,
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
    /// Stop: the game in progress ends unterminated and both players get `disconnect`.
    Stop,
    /// A supervisor's command.
    Command(Command),
}

/// How the mediator runs a session.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// The end of line written after every record.
    pub eol: Eol,
    /// When the session takes over from a referee that died: the last moment of its
    /// journal. The new session's time axis continues from there (the outage is charged
    /// to nobody) and it begins by feeding [`Input::Resume`] to the referee.
    pub resume_at: Option<Duration>,
}

impl From<Eol> for RunOptions {
    fn from(eol: Eol) -> RunOptions {
        RunOptions {
            eol,
            resume_at: None,
        }
    }
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

/// A watcher that logs notices.
pub struct LogWatcher;

impl Watcher for LogWatcher {
    fn notice(&mut self, notice: &Notice) {
        match notice {
            Notice::Noise { .. } | Notice::Resent { .. } => log::warn!("{notice}"),
            _ => log::info!("{notice}"),
        }
    }
}

/// A watcher that prints every notice on standard output, one line each.
pub struct PrintWatcher;

impl Watcher for PrintWatcher {
    fn notice(&mut self, notice: &Notice) {
        match notice {
            Notice::Noise { .. } => log::warn!("{notice}"),
            _ => println!("{notice}"),
        }
    }
}

/// The records of a session: the journal and the PGN file.
pub struct Records {
    /// The journal, already holding its session line.
    pub journal: Journal,
    /// The PGN file games are appended to.
    pub pgn: PathBuf,
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

/// Runs the match: starts both lines' threads and drives the referee until the match is
/// over. Each message on `control` is an input of the referee: a supervisor's command,
/// or [`Control::Stop`], after which the game in progress ends unterminated and both
/// players get `disconnect`. Returns the finished games.
///
/// # Errors
///
/// Returns [`MediatorError`] when the journal or the PGN file cannot be written, or a
/// thread cannot be started.
pub fn run(
    mut referee: Referee,
    lines: [Line; 2],
    options: impl Into<RunOptions>,
    records: &mut Records,
    watcher: &mut dyn Watcher,
    control: Receiver<Control>,
) -> Result<Vec<GameReport>, MediatorError> {
    let mut control = control;
    let options = options.into();
    let eol = options.eol;
    let epoch = Instant::now();
    let origin = options.resume_at.unwrap_or_default();
    let stamp = |i: Instant| {
        let d = origin + i.saturating_duration_since(epoch);
        Duration::from_micros(micros(d))
    };
    let (events_tx, events) = crossbeam_channel::unbounded::<PortEvent>();
    let mut links = Vec::with_capacity(2);
    for (line, port) in lines.into_iter().zip(Port::BOTH) {
        records.journal.write(&Event::Open {
            t: micros(stamp(Instant::now())),
            port,
            path: line.label.clone(),
        })?;
        let link = crate::transport::Link::spawn(
            port,
            &format!("port-{port}"),
            line.duplex,
            line.reopen,
            eol.bytes(),
            events_tx.clone(),
        )
        .map_err(|source| MediatorError::Spawn { port, source })?;
        links.push(link);
    }
    drop(events_tx);

    let mut games = Vec::new();
    let mut over = false;
    // Feeds one input: journal first, then the referee, then its outputs.
    let mut feed = |referee: &mut Referee,
                    input: Input,
                    extra: Option<Event>,
                    records: &mut Records,
                    games: &mut Vec<GameReport>,
                    over: &mut bool|
     -> Result<(), MediatorError> {
        records
            .journal
            .write(&extra.unwrap_or_else(|| Event::from_input(&input)))?;
        referee.handle(input);
        while let Some(output) = referee.poll_output() {
            match output {
                Output::Send { port, line } => {
                    records.journal.write(&Event::Tx {
                        port,
                        text: line.clone(),
                    })?;
                    links[port.index()].send(&line);
                }
                Output::GameOver(report) => {
                    records.journal.write(&Event::GameOver {
                        game: report.number,
                        result: report.result.to_string(),
                        termination: report.termination.to_string(),
                        reason: report.reason.clone(),
                        pgn: report.pgn.clone(),
                    })?;
                    // The journal holds the game too: a PGN file that fails mid-match
                    // loses nothing and stops nobody.
                    if let Err(e) = append_pgn(&records.pgn, &report.pgn) {
                        log::error!("{e}; the game is in the journal");
                    }
                    watcher.game_over(&report);
                    games.push(report);
                }
                Output::Notice(notice) => watcher.notice(&notice),
                Output::MatchOver => *over = true,
            }
        }
        Ok(())
    };

    if let Some(at) = options.resume_at {
        let wall = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        let event = Event::Resume {
            t: micros(at),
            wall,
        };
        feed(
            &mut referee,
            Input::Resume { at },
            Some(event),
            records,
            &mut games,
            &mut over,
        )?;
    }

    let handle_event = |ev: PortEvent| -> Option<(Input, Option<Event>)> {
        let port = ev.port;
        Some(match ev.event {
            LinkEvent::Line { at, bytes } => (
                Input::Line {
                    port,
                    at: stamp(at),
                    bytes,
                },
                None,
            ),
            LinkEvent::Drained { at } => (
                Input::Drained {
                    port,
                    at: stamp(at),
                },
                None,
            ),
            LinkEvent::Lost { at, error } => {
                let at = stamp(at);
                let ev = Event::Lost {
                    t: micros(at),
                    port,
                    error,
                };
                (Input::PortLost { port, at }, Some(ev))
            }
            LinkEvent::Back { at } => (
                Input::PortBack {
                    port,
                    at: stamp(at),
                },
                None,
            ),
            LinkEvent::Overlong { .. } => return None,
        })
    };

    while !over {
        let timer = match referee.poll_timeout() {
            Some(due) => epoch
                .checked_add(due.saturating_sub(origin))
                .map_or_else(never, at),
            None => never(),
        };
        select! {
            recv(events) -> ev => {
                let Ok(ev) = ev else { break };
                if let LinkEvent::Overlong { at, len } = ev.event {
                    log::warn!("port {}: a {len}-byte line dropped (over the record limit)", ev.port);
                    records.journal.write(&Event::Overlong { t: micros(stamp(at)), port: ev.port, len })?;
                    continue;
                }
                if let Some((input, extra)) = handle_event(ev) {
                    feed(&mut referee, input, extra, records, &mut games, &mut over)?;
                }
            }
            recv(control) -> message => {
                let now = stamp(Instant::now());
                let input = match message {
                    Ok(Control::Stop) => {
                        log::warn!("shutting down: the game in progress ends unterminated");
                        Input::Shutdown { at: now }
                    }
                    Ok(Control::Command(command)) => Input::Supervisor { at: now, command },
                    Err(_) => {
                        // Nobody can send any more (the console's input closed).
                        control = never();
                        continue;
                    }
                };
                feed(&mut referee, input, None, records, &mut games, &mut over)?;
            }
            recv(timer) -> _ => {
                // Lines already stamped come first: a reply that arrived before the
                // flag fell must be judged on time.
                while let Ok(ev) = events.try_recv() {
                    if let LinkEvent::Overlong { at, len } = ev.event {
                        records.journal.write(&Event::Overlong { t: micros(stamp(at)), port: ev.port, len })?;
                        continue;
                    }
                    if let Some((input, extra)) = handle_event(ev) {
                        feed(&mut referee, input, extra, records, &mut games, &mut over)?;
                    }
                }
                let now = stamp(Instant::now());
                if !over && referee.poll_timeout().is_some_and(|due| due <= now) {
                    feed(&mut referee, Input::Timeout { at: now }, None, records, &mut games, &mut over)?;
                }
            }
        }
    }
    records.journal.write(&Event::End {
        t: micros(stamp(Instant::now())),
    })?;
    // The writers have delivered everything (disconnect has drained or its grace ran
    // out); stop the threads.
    for link in links {
        link.shutdown();
    }
    Ok(games)
}
