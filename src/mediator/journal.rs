//! The journal: every input of the referee and every line it sent, one JSON object per
//! line, written and flushed as each event happens (profile section 8).
//!
//! The journal holds all the referee's inputs, so [`replay`] can feed them to the same
//! [`Referee`] and check that it sends the same lines, byte for byte, and writes the same
//! PGN. A journal cut short by a killed referee (even in the middle of a line) is still
//! readable up to its last whole line.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::core::{GameReport, Input, Notice, Output, Port, Referee, Tally};
use crate::transport::serial::SerialSettings;

mod event;
mod json;

pub(crate) use event::from_hex;
pub use event::{Event, VERSION, micros};

/// An error of the journal.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be opened, read or written.
    #[error("journal {path}: {source}")]
    Io {
        /// The journal's path.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// A line in the middle of the journal is not a journal event.
    #[error("journal {path}, line {line}: not a journal event: {reason}")]
    Garbled {
        /// The journal's path.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The journal does not start with a session line.
    #[error("journal {path}: no session line at its head")]
    NoSession {
        /// The journal's path.
        path: PathBuf,
    },
    /// The configuration in the journal is not playable.
    #[error("journal {path}: {source}")]
    Config {
        /// The journal's path.
        path: PathBuf,
        /// What is wrong.
        source: crate::core::referee::ConfigError,
    },
}

/// Where a journal's lines go besides its file: the standby stream
/// ([`crate::mediator::standby`]) forwards them to observers. It is called after each
/// flush that wrote anything, with the file's path, the offset of the first byte
/// written and the bytes (whole lines); it may hold the writer up (`--standby-sync`
/// waits there for the observers' acknowledgement before anything is sent).
pub trait Tap: Send {
    /// `text` (whole lines) reached the file at `path`, from byte `at` on.
    fn written(&self, path: &Path, at: u64, text: &[u8]);
}

/// The journal being written.
pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
    /// The file's length once what is held is flushed (kept while there is a tap).
    len: u64,
    /// The tap, and what it has not been given yet.
    tap: Option<(Box<dyn Tap>, Vec<u8>)>,
    /// One line's bytes, kept from one line to the next.
    line: Vec<u8>,
}

impl Journal {
    /// Opens the journal at `path` to go on writing after its last line (a session that
    /// takes over from a referee that died).
    ///
    /// # Errors
    ///
    /// Returns [`JournalError::Io`] when the file cannot be opened.
    pub fn append(path: &Path) -> Result<Journal, JournalError> {
        let file = File::options()
            .append(true)
            .open(path)
            .map_err(|source| JournalError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Journal {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            len: 0,
            tap: None,
            line: Vec::new(),
        })
    }

    /// Creates the journal at `path`, readable by its owner alone (a journal is the
    /// record of everything the players said). An existing file is never overwritten:
    /// a journal is the record of a session.
    ///
    /// # Errors
    ///
    /// Returns [`JournalError::Io`] when the file exists or cannot be created.
    pub fn create(path: &Path) -> Result<Journal, JournalError> {
        let file = crate::secret::private(&mut File::options())
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| JournalError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Journal {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            len: 0,
            tap: None,
            line: Vec::new(),
        })
    }

    /// Gives every line written from now on to `tap` as well, at each flush.
    pub fn set_tap(&mut self, tap: Box<dyn Tap>) {
        // The file's length, and what the buffer holds for it.
        self.len =
            self.out.get_ref().metadata().map_or(0, |m| m.len()) + self.out.buffer().len() as u64;
        self.tap = Some((tap, Vec::new()));
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one event and flushes it to the operating system.
    ///
    /// # Errors
    ///
    /// Returns [`JournalError::Io`] when the write fails.
    pub fn write(&mut self, event: &Event) -> Result<(), JournalError> {
        self.write_held(event)?;
        self.flush()
    }

    /// Writes `event` to the journal's buffer, to reach the file at the next
    /// [`Journal::flush`] (or [`Journal::write`]): the events of one input and what it
    /// sends go out in one write, before anything is sent.
    ///
    /// # Errors
    ///
    /// As [`Journal::write`].
    pub fn write_held(&mut self, event: &Event) -> Result<(), JournalError> {
        let io = |source| JournalError::Io {
            path: self.path.clone(),
            source,
        };
        match &mut self.tap {
            None => {
                self.line.clear();
                json::encode(event, &mut self.line).map_err(|e| io(io::Error::other(e)))?;
                self.line.push(b'\n');
                self.out.write_all(&self.line).map_err(io)?;
            }
            Some((_, held)) => {
                let from = held.len();
                json::encode(event, held).map_err(|e| io(io::Error::other(e)))?;
                held.push(b'\n');
                self.out.write_all(&held[from..]).map_err(io)?;
                self.len += (held.len() - from) as u64;
            }
        }
        Ok(())
    }

    /// Writes what [`Journal::write_held`] holds to the file.
    ///
    /// # Errors
    ///
    /// As [`Journal::write`].
    pub fn flush(&mut self) -> Result<(), JournalError> {
        self.out.flush().map_err(|source| JournalError::Io {
            path: self.path.clone(),
            source,
        })?;
        if let Some((tap, held)) = &mut self.tap
            && !held.is_empty()
        {
            tap.written(&self.path, self.len - held.len() as u64, held);
            held.clear();
        }
        Ok(())
    }
}

/// The events of a journal, read one line at a time, each with its line number: memory
/// stays bounded whatever the journal's length. A last line that is cut short (the
/// referee died while writing it) ends the events with a warning; a garbled line with
/// events after it is an error.
pub struct Reader {
    path: PathBuf,
    input: BufReader<File>,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl Reader {
    /// Opens the journal at `path`.
    ///
    /// # Errors
    ///
    /// Returns [`JournalError::Io`] when the file cannot be opened.
    pub fn open(path: &Path) -> Result<Reader, JournalError> {
        let file = File::open(path).map_err(|source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Reader {
            path: path.to_path_buf(),
            input: BufReader::new(file),
            line: 0,
            buf: Vec::new(),
            done: false,
        })
    }

    fn io(&self, source: io::Error) -> JournalError {
        JournalError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Whether nothing but blanks follows the line just read.
    fn rest_is_blank(&mut self) -> io::Result<bool> {
        loop {
            let chunk = self.input.fill_buf()?;
            if chunk.is_empty() {
                return Ok(true);
            }
            if !chunk.iter().all(u8::is_ascii_whitespace) {
                return Ok(false);
            }
            let n = chunk.len();
            self.input.consume(n);
        }
    }

    /// The session line at the head of the journal.
    ///
    /// # Errors
    ///
    /// Returns [`JournalError::NoSession`] when the first event is not a session line,
    /// or the error of reading it.
    pub fn session(&mut self) -> Result<Event, JournalError> {
        match self.next() {
            Some(Ok((_, session @ Event::Session { .. }))) => Ok(session),
            Some(Err(e)) => Err(e),
            _ => Err(JournalError::NoSession {
                path: self.path.clone(),
            }),
        }
    }
}

impl Iterator for Reader {
    type Item = Result<(usize, Event), JournalError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let error = match serde_json::from_slice::<Event>(&self.buf) {
                        Ok(ev) => return Some(Ok((self.line, ev))),
                        Err(e) => e,
                    };
                    self.done = true;
                    match self.rest_is_blank() {
                        Ok(true) => log::warn!(
                            "journal {}: its last line is cut short and is left out: {error}",
                            self.path.display()
                        ),
                        Ok(false) => {
                            return Some(Err(JournalError::Garbled {
                                path: self.path.clone(),
                                line: self.line,
                                reason: error.to_string(),
                            }));
                        }
                        Err(e) => return Some(Err(self.io(e))),
                    }
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.io(e)));
                }
            }
        }
        None
    }
}

/// Reads every whole event of the journal at `path`, with its line number. A last line
/// that is cut short (the referee died while writing it) is left out.
///
/// # Errors
///
/// Returns [`JournalError::Io`] when the file cannot be read and
/// [`JournalError::Garbled`] when a line other than the last is not an event.
pub fn read(path: &Path) -> Result<Vec<(usize, Event)>, JournalError> {
    Reader::open(path)?.collect()
}

/// A game the journal says was appended to the PGN file: what a resumed referee checks
/// the file against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenGame {
    /// Its number.
    pub number: u32,
    /// Its PGN text.
    pub pgn: String,
    /// The PGN file's length before the append, when the journal has it.
    pub at: Option<u64>,
}

/// A match rebuilt from the journal of a referee that died, ready to go on.
pub struct Rebuilt {
    /// The referee, fed every input the journal holds.
    pub referee: Referee,
    /// The ports' paths, A then B.
    pub ports: [String; 2],
    /// The ports' line settings, when the journal has them.
    pub lines: Option<[SerialSettings; 2]>,
    /// The end of line, when the journal has it.
    pub eol: Option<String>,
    /// The PGN file, when the journal has it.
    pub pgn: Option<PathBuf>,
    /// How many events were fed.
    pub inputs: usize,
    /// What the new session starts from and owes.
    pub takeover: Takeover,
}

/// What a session that takes over from a dead referee starts from and owes, from its
/// journal.
#[derive(Clone, Debug, Default)]
pub struct Takeover {
    /// The last moment of the dead referee's journal. The new session's time axis
    /// continues from there (the outage is charged to nobody) and it begins by feeding
    /// [`Input::Resume`] to the referee.
    pub at: Duration,
    /// Games the journal's inputs finished whose `game_over` line the dead referee never
    /// wrote: their records are owed to the journal and the PGN file.
    pub owed: Vec<GameReport>,
    /// The last game the journal records as finished: its append to the PGN file may be
    /// cut off half-way.
    pub last_written: Option<WrittenGame>,
    /// The games finished so far (owed ones included) and the score.
    pub tally: Tally,
    /// The referee's notices since the last game began (its start, its moves): what a
    /// view needs to show the game under way as it stands.
    pub current: Vec<Notice>,
}

/// Cuts off a last line that the dead referee did not finish (no newline after it), so
/// that the new session's lines follow whole ones. Reads only the file's tail.
fn cut_unfinished_line(path: &Path) -> Result<(), JournalError> {
    let io = |source| JournalError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::options()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    let whole = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        file.read_exact(chunk).map_err(io)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            break start + i as u64 + 1;
        }
        end = start;
    };
    if whole < len {
        log::warn!(
            "journal {}: cutting off its last {} bytes, a line the dead referee did not finish",
            path.display(),
            len - whole
        );
        file.set_len(whole).map_err(io)?;
    }
    Ok(())
}

/// The wall clock now, as the journal's `started` and `wall` fields write it (RFC 3339).
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Rebuilds the match of the journal at `path` so that a new referee can take it over,
/// reading the journal one event at a time. A last line cut short (the referee died
/// while writing it) is cut off the file. What the dead referee owed, a game its last
/// input finished and that it never recorded, comes back in [`Takeover::owed`].
///
/// # Errors
///
/// Returns a [`JournalError`] when the journal cannot be read or repaired, has no
/// session line, or describes an unplayable match.
pub fn rebuild(path: &Path) -> Result<Rebuilt, JournalError> {
    cut_unfinished_line(path)?;
    let mut events = Reader::open(path)?;
    let Event::Session {
        ports,
        lines,
        eol,
        pgn,
        config,
        ..
    } = events.session()?
    else {
        unreachable!("session() returns a session line");
    };
    let mut referee = Referee::new(*config).map_err(|source| JournalError::Config {
        path: path.to_path_buf(),
        source,
    })?;
    let mut at = Duration::ZERO;
    let mut inputs = 0;
    let mut owed = VecDeque::new();
    let mut last_written = None;
    let mut tally = Tally::default();
    let mut current = Vec::new();
    for event in events {
        let (_, event) = event?;
        if let Some(input) = event.input() {
            at = at.max(input.at());
            referee.handle(input);
            inputs += 1;
            while let Some(output) = referee.poll_output() {
                match output {
                    Output::GameOver(report) => owed.push_back(report),
                    Output::Notice(notice) => {
                        if matches!(notice, Notice::GameStarted { .. }) {
                            current.clear();
                        }
                        current.push(notice);
                    }
                    _ => {}
                }
            }
        } else if let Event::End { t } | Event::Open { t, .. } | Event::Overlong { t, .. } = event {
            at = at.max(Duration::from_micros(t));
        } else if let Event::GameOver {
            game,
            result,
            pgn,
            pgn_at,
            ..
        } = event
        {
            owed.pop_front();
            tally.add_text(game, &result);
            last_written = Some(WrittenGame {
                number: game,
                pgn,
                at: pgn_at,
            });
        }
    }
    for report in &owed {
        tally.add(report.number, report.result);
    }
    Ok(Rebuilt {
        referee,
        ports,
        lines,
        eol,
        pgn,
        inputs,
        takeover: Takeover {
            at,
            owed: owed.into(),
            last_written,
            tally,
            current,
        },
    })
}

/// Where a replay and its journal part ways.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The journal line number, from 1.
    pub line: usize,
    /// What differs.
    pub what: String,
}

/// The outcome of a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The PGN of every game the replay finished, concatenated as the session wrote them
    /// (empty from [`replay_to`], which writes it out as it goes).
    pub pgn: String,
    /// How many inputs were fed.
    pub inputs: usize,
    /// How many sent lines were checked.
    pub lines_checked: usize,
    /// How many games the replay finished.
    pub games: u32,
    /// The first divergence, if any.
    pub divergence: Option<Divergence>,
}

/// Feeds the journal's inputs to a new [`Referee`], checking each line it sends against
/// the journaled one; the replayed PGN is collected in [`Replay::pgn`].
///
/// # Errors
///
/// Returns a [`JournalError`] when the journal cannot be read or has no session line.
pub fn replay(path: &Path) -> Result<Replay, JournalError> {
    let mut pgn = Vec::new();
    let mut out = replay_to(path, &mut pgn)?;
    out.pgn = String::from_utf8_lossy(&pgn).into_owned();
    Ok(out)
}

/// Feeds the journal's inputs to a new [`Referee`], one event at a time, checking each
/// line it sends against the journaled one, and writes the replayed PGN to `pgn` as
/// each game ends. Memory stays bounded whatever the journal's length.
///
/// # Errors
///
/// Returns a [`JournalError`] when the journal cannot be read, has no session line, or
/// `pgn` cannot be written.
pub fn replay_to(path: &Path, pgn: &mut dyn Write) -> Result<Replay, JournalError> {
    let mut events = Reader::open(path)?;
    let Event::Session { config, .. } = events.session()? else {
        unreachable!("session() returns a session line");
    };
    let mut referee = Referee::new(*config).map_err(|source| JournalError::Config {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Replay {
        pgn: String::new(),
        inputs: 0,
        lines_checked: 0,
        games: 0,
        divergence: None,
    };
    let mut owed: VecDeque<(Port, String)> = VecDeque::new();
    let mut games: VecDeque<String> = VecDeque::new();
    let mut ended = false;
    let mut last_line = 0;
    for event in events {
        let (line, event) = event?;
        last_line = line;
        let diverge = |what: String| Some(Divergence { line, what });
        if let Some(input) = event.input() {
            if matches!(input, Input::Resume { .. }) {
                // The referee died: what it would have sent after its last journaled
                // input died with it.
                owed.clear();
            }
            if let Some((port, text)) = owed.front() {
                out.divergence = diverge(format!(
                    "the replay sends {text:?} on port {port}, but the journal has an input here"
                ));
                return Ok(out);
            }
            referee.handle(input);
            out.inputs += 1;
            while let Some(output) = referee.poll_output() {
                match output {
                    Output::Send { port, line, .. } => owed.push_back((port, line)),
                    Output::GameOver(report) => {
                        pgn.write_all(report.pgn.as_bytes()).map_err(|source| {
                            JournalError::Io {
                                path: PathBuf::from("(replayed pgn)"),
                                source,
                            }
                        })?;
                        out.games += 1;
                        games.push_back(report.pgn);
                    }
                    Output::Notice(_) | Output::MatchOver | Output::Stopped => {}
                }
            }
        } else if let Event::Tx { port, text } = event {
            match owed.pop_front() {
                Some((p, t)) if p == port && t == text => out.lines_checked += 1,
                Some((p, t)) => {
                    out.divergence = diverge(format!(
                        "the session sent {text:?} on port {port}, the replay sends {t:?} on port {p}"
                    ));
                    return Ok(out);
                }
                None => {
                    out.divergence = diverge(format!(
                        "the session sent {text:?} on port {port}, the replay sends nothing"
                    ));
                    return Ok(out);
                }
            }
        } else if let Event::GameOver { game, pgn, .. } = event {
            match games.pop_front() {
                Some(replayed) if replayed == pgn => {}
                Some(replayed) => {
                    out.divergence = diverge(format!(
                        "game {game}'s record differs: the session wrote {pgn:?}, the replay writes {replayed:?}"
                    ));
                    return Ok(out);
                }
                None => {
                    out.divergence = diverge(format!(
                        "the session finished game {game}, the replay did not"
                    ));
                    return Ok(out);
                }
            }
        } else if let Event::End { .. } = event {
            ended = true;
        }
    }
    // A session that was killed may have produced lines it never journaled; one that
    // ended cleanly recorded everything.
    if ended {
        if let Some((port, text)) = owed.front() {
            out.divergence = Some(Divergence {
                line: last_line,
                what: format!("the replay sends {text:?} on port {port} after the session ended"),
            });
        } else if !games.is_empty() {
            out.divergence = Some(Divergence {
                line: last_line,
                what: "the replay finishes a game the session never recorded".into(),
            });
        }
    }
    Ok(out)
}
