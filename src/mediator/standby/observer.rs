//! The observer's end of the standby stream (`argus observe`): it follows the primary,
//! writes its own copy of every journal in its folder (byte for byte, so that
//! `--resume` reads it as the primary's own), makes the PGN files from the games the
//! journals record, and feeds each game's journal to a [`Referee`] as it comes (a live
//! replay), whose notices feed the views. It stops following when the operator asks it
//! to take over, or when the primary has been silent too long.

use std::collections::{HashMap, VecDeque};
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::core::{Notice, Output, Referee};
use crate::mediator::journal::{Event, WrittenGame};
use crate::mediator::{append_pgn, finish_pgn_append};

use super::Msg;
use crate::secret::Key;

/// Where a notice of the live replay comes from.
#[derive(Clone, Copy, Debug)]
pub struct From<'a> {
    /// The journal, as the stream names it.
    pub file: &'a str,
    /// The game's number in an event (`games/game-NNNN.jsonl`).
    pub game: Option<u32>,
    /// Its round, as the event's journal says.
    pub round: Option<u32>,
}

/// What the live replay's notices are given to.
pub type NoticeSink = Box<dyn FnMut(From<'_>, &Notice) + Send>;

/// One journal's live replay.
struct Replay {
    referee: Option<Referee>,
    /// The PGN file its games go to, in the observer's folder.
    pgn: Option<PathBuf>,
    /// Its last game's PGN.
    last_game: Option<String>,
}

/// The observer's copy of the primary's folder.
pub struct Copies {
    dir: PathBuf,
    /// Each file's length in the copy.
    lens: HashMap<String, u64>,
    replays: HashMap<String, Replay>,
    /// The rounds of an event's games, by number.
    rounds: HashMap<u32, u32>,
    notices: NoticeSink,
    /// What is told each line of an event's own journal (the views' standings).
    event_lines: Option<EventLineSink>,
    /// The journals of games the event's journal has finished, in its order, whose
    /// game the copy has not replayed yet (a game that ended before this observer
    /// joined: the event's journal comes first); their PGN goes to `games.pgn` as
    /// soon as the first of them is there.
    owed: VecDeque<String>,
}

/// What each line of an event's own journal (`event.jsonl`) is given to.
pub type EventLineSink = Box<dyn FnMut(&serde_json::Value) -> EventLine + Send>;

/// What the copy needs of a line of an event's own journal (`event.jsonl`): the rounds
/// of the games it pairs, and the journal of a game it gives the result of. The
/// observer does not read the event's lines itself: the event's journal is `argus
/// serve`'s, and whoever follows an event reads them with its reader
/// ([`crate::server::EventEntry`]) and says what they hold here.
#[derive(Debug, Default)]
pub struct EventLine {
    /// Games and their rounds, by number.
    pub rounds: Vec<(u32, u32)>,
    /// The journal of the game whose result the line gives, relative to the folder.
    pub finished: Option<String>,
}

/// Why a line of the stream could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The file named is not a file of the folder.
    #[error("{0:?} is not a file of the referee's folder")]
    Name(String),
    /// Lines missing before these: the copy must be made again from the start.
    #[error("{file}: lines from byte {at} came, but the copy holds {have} bytes")]
    Gap {
        /// The file.
        file: String,
        /// Where the lines begin.
        at: u64,
        /// The copy's length.
        have: u64,
    },
    /// The copy holds other lines where these were written: another referee's files.
    #[error(
        "{0}: the copy holds other lines than the primary's there (another referee's files?): give --out an empty folder"
    )]
    Differs(PathBuf),
    /// The copy could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
}

/// A game's number from its journal's name (`games/game-0007.jsonl` is 7).
pub fn game_number(file: &str) -> Option<u32> {
    let stem = Path::new(file).file_stem()?.to_str()?;
    stem.strip_prefix("game-")?.parse().ok()
}

impl Copies {
    /// The copy in the folder `dir`; the live replay's notices go to `notices`.
    pub fn new(dir: &Path, notices: NoticeSink) -> Copies {
        Copies {
            dir: dir.to_path_buf(),
            lens: HashMap::new(),
            replays: HashMap::new(),
            rounds: HashMap::new(),
            notices,
            event_lines: None,
            owed: VecDeque::new(),
        }
    }

    /// Gives every line of an event's own journal to `sink` as well, once written.
    pub fn on_event_line(&mut self, sink: EventLineSink) {
        self.event_lines = Some(sink);
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of `file` (a name of the stream) in the folder, if it is one of its
    /// files (no absolute path, no `..`).
    fn path_of(&self, file: &str) -> Result<PathBuf, CopyError> {
        let rel = Path::new(file);
        if file.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(CopyError::Name(file.to_string()));
        }
        Ok(self.dir.join(rel))
    }

    /// Writes `text`, which the primary wrote at `at` in `file`, to the copy (what the
    /// copy holds already is not written again), and replays its new lines.
    ///
    /// # Errors
    ///
    /// [`CopyError`] when the name is not a file of the folder, lines are missing
    /// before these, or the copy cannot be written.
    pub fn apply(&mut self, file: &str, at: u64, text: &str) -> Result<(), CopyError> {
        let path = self.path_of(file)?;
        let io = |source| CopyError::Io {
            path: path.clone(),
            source,
        };
        let have = match self.lens.get(file) {
            Some(&len) => len,
            None => fs::metadata(&path).map_or(0, |m| m.len()),
        };
        if at > have {
            return Err(CopyError::Gap {
                file: file.to_string(),
                at,
                have,
            });
        }
        let skip = usize::try_from(have - at).unwrap_or(usize::MAX);
        if skip > 0 {
            // What the copy holds already must be these lines.
            use std::io::{Read, Seek, SeekFrom};
            let mut held = Vec::new();
            let mut file = fs::File::open(&path).map_err(io)?;
            file.seek(SeekFrom::Start(at)).map_err(io)?;
            file.take(skip.min(text.len()) as u64)
                .read_to_end(&mut held)
                .map_err(io)?;
            if !text.as_bytes().starts_with(&held) {
                return Err(CopyError::Differs(path));
            }
        }
        let Some(new) = text.get(skip..).filter(|t| !t.is_empty()) else {
            self.lens.insert(file.to_string(), have);
            return Ok(());
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(io)?;
        }
        // As the primary's: its owner's alone.
        let mut out = crate::secret::private(&mut fs::File::options())
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io)?;
        out.write_all(new.as_bytes()).map_err(io)?;
        out.flush().map_err(io)?;
        self.lens.insert(file.to_string(), have + new.len() as u64);
        for line in new.lines().filter(|l| !l.trim().is_empty()) {
            if file == "event.jsonl" {
                self.event_line(line)?;
            } else {
                self.journal_line(file, line)?;
            }
        }
        Ok(())
    }

    /// A line of an event's own journal, as the sink reads it: its games' rounds (its
    /// schedule, a Swiss's or knockout's pairings, a knockout's tie-breaks); a game's
    /// result, whose PGN then goes to `games.pgn` as the primary appends it.
    fn event_line(&mut self, line: &str) -> Result<(), CopyError> {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            return Ok(());
        };
        let Some(sink) = &mut self.event_lines else {
            return Ok(());
        };
        let said = sink(&value);
        self.rounds.extend(said.rounds);
        let Some(journal) = said.finished else {
            return Ok(());
        };
        if self.replays.contains_key(&journal) && self.owed.is_empty() {
            // As the primary appends it: the game's journal came first.
            if let Some(pgn) = self.replays.get(&journal).and_then(|r| r.last_game.clone()) {
                self.append_game(&pgn)?;
            }
        } else {
            self.owed.push_back(journal);
            self.pay_owed()?;
        }
        Ok(())
    }

    /// Appends the owed games whose journals the copy has replayed, in the event's order,
    /// up to the first it has not.
    fn pay_owed(&mut self) -> Result<(), CopyError> {
        while let Some(journal) = self.owed.front() {
            let Some(pgn) = self.replays.get(journal).and_then(|r| r.last_game.clone()) else {
                break;
            };
            self.owed.pop_front();
            self.append_game(&pgn)?;
        }
        Ok(())
    }

    /// Appends one game to the copy's `games.pgn`.
    fn append_game(&self, pgn: &str) -> Result<(), CopyError> {
        let path = self.dir.join("games.pgn");
        append_pgn(&path, pgn).map_err(|e| CopyError::Io {
            path,
            source: io::Error::other(e.to_string()),
        })
    }

    /// A line of a match's journal: fed to its live replay; a game it records goes to
    /// its PGN file.
    fn journal_line(&mut self, file: &str, line: &str) -> Result<(), CopyError> {
        let Ok(event) = serde_json::from_str::<Event>(line) else {
            log::warn!("observe: {file}: a line that is no journal event: {line}");
            return Ok(());
        };
        let game = game_number(file);
        let round = game.and_then(|g| self.rounds.get(&g).copied());
        let dir = self.dir.clone();
        let replay = self.replays.entry(file.to_string()).or_insert(Replay {
            referee: None,
            pgn: None,
            last_game: None,
        });
        match event {
            Event::Session { pgn, config, .. } => {
                // The PGN file beside the journal, under the name the primary gave it.
                let parent = Path::new(file).parent().unwrap_or(Path::new(""));
                replay.pgn = pgn
                    .as_deref()
                    .and_then(Path::file_name)
                    .map(|name| dir.join(parent).join(name));
                replay.referee = Referee::new(*config)
                    .map_err(|e| log::warn!("observe: {file}: {e}; not replayed"))
                    .ok();
            }
            Event::GameOver {
                game: number,
                pgn,
                pgn_at,
                ..
            } => {
                if let Some(path) = &replay.pgn {
                    let written = WrittenGame {
                        number,
                        pgn: pgn.clone(),
                        at: pgn_at,
                    };
                    finish_pgn_append(path, &written).map_err(|e| CopyError::Io {
                        path: path.clone(),
                        source: io::Error::other(e.to_string()),
                    })?;
                }
                replay.last_game = Some(pgn);
                if self.owed.front().is_some_and(|owed| owed == file) {
                    self.pay_owed()?;
                }
            }
            event => {
                if let (Some(input), Some(referee)) = (event.input(), &mut replay.referee) {
                    referee.handle(input);
                    while let Some(output) = referee.poll_output() {
                        if let Output::Notice(notice) = output {
                            (self.notices)(From { file, game, round }, &notice);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// How to follow the primary.
pub struct Follow<'a> {
    /// The primary's standby address (`HOST:PORT`).
    pub primary: String,
    /// Take over after this long without a word from the primary.
    pub takeover_after: Option<Duration>,
    /// Set when the operator asks to take over.
    pub asked: &'a AtomicBool,
    /// Who takes over, for the primary's message.
    pub by: String,
    /// Whether the copy can be taken over now (why not): asked before the primary is
    /// told, so that an observer that cannot go on never stops one that can.
    pub ready: &'a dyn Fn() -> Result<(), String>,
    /// The key the primary and this observer share (`--standby-key`).
    pub key: Option<&'a Key>,
}

/// What a copy holds that can be taken over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holding {
    /// An event of `argus serve` (its `event.jsonl`).
    Event,
    /// A match of `argus serial`: its one journal.
    Match(PathBuf),
}

/// What the copy in `dir` can be taken over as (why not).
///
/// # Errors
///
/// Why not, in a sentence: no journal yet, or several and no `event.jsonl`.
pub fn holding(dir: &Path) -> Result<Holding, String> {
    if dir.join("event.jsonl").exists() {
        return Ok(Holding::Event);
    }
    let journals: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    match journals.as_slice() {
        [journal] => Ok(Holding::Match(journal.clone())),
        [] => Err(format!(
            "{} holds no journal of the primary yet: nothing to take over",
            dir.display()
        )),
        many => Err(format!(
            "{}: {} journals and no event.jsonl: not one match or event to take over",
            dir.display(),
            many.len()
        )),
    }
}

/// Why the observer stopped following.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The operator asked it to take over.
    Asked,
    /// The primary was silent this long.
    Silent(Duration),
    /// The primary ended (`stopped`: it stopped before the event's end).
    Ended {
        /// Whether it stopped before the end.
        stopped: bool,
    },
    /// The copy could not be made (why): the observer cannot take over.
    Failed(String),
}

/// How long one read waits before the observer looks up.
const LOOK_UP: Duration = Duration::from_millis(100);

/// How long a peer that says nothing from the start is waited for before the observer
/// says it is likely no primary.
const MUTE: Duration = Duration::from_secs(3);

/// Follows the primary, writing `copies`, until the operator asks to take over, the
/// primary is silent for `takeover_after` (counted once it has been heard), or it
/// ends. A lost connection is made again; the copy goes on where it was. On taking
/// over, the primary is told, on the connection if it still stands.
pub fn follow(how: &Follow<'_>, copies: &mut Copies) -> Outcome {
    let mut heard: Option<Instant> = None;
    let mut said_waiting = false;
    loop {
        let outcome = match connect(&how.primary) {
            Ok(stream) => {
                log::info!("observe: following {}", how.primary);
                // The clock of --takeover-after starts at the primary's first word, not
                // at the connection: what does not speak the stream is never taken over.
                session(how, stream, copies, &mut heard)
            }
            Err(e) => {
                if !said_waiting {
                    log::warn!("observe: cannot reach {}: {e}; trying again", how.primary);
                    said_waiting = true;
                }
                std::thread::sleep(Duration::from_millis(250));
                None
            }
        };
        if let Some(outcome) = outcome.or_else(|| take_over_now(how, heard)) {
            if matches!(outcome, Outcome::Asked | Outcome::Silent(_)) {
                super::tell_taken(&how.primary, &how.by, how.key);
            }
            return outcome;
        }
    }
}

fn connect(addr: &str) -> io::Result<TcpStream> {
    let target = addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "resolves to nothing"))?;
    TcpStream::connect_timeout(&target, Duration::from_secs(1))
}

fn should_take_over(how: &Follow<'_>, heard: Option<Instant>) -> Option<Outcome> {
    if how.asked.load(Ordering::SeqCst) {
        return Some(Outcome::Asked);
    }
    let (after, heard) = (how.takeover_after?, heard?);
    let silent = heard.elapsed();
    (silent >= after).then_some(Outcome::Silent(silent))
}

/// [`should_take_over`], once the copy is found ready to be taken over. A copy that is
/// not: the operator's `takeover` is refused (following goes on); a silent primary
/// ends the following without a takeover ([`Outcome::Failed`]). Either way the
/// primary is not told: it may be alive, and the observer could not go on.
fn take_over_now(how: &Follow<'_>, heard: Option<Instant>) -> Option<Outcome> {
    let outcome = should_take_over(how, heard)?;
    match (how.ready)() {
        Ok(()) => Some(outcome),
        Err(why) if outcome == Outcome::Asked => {
            log::error!("observe: cannot take over: {why}; still following");
            how.asked.store(false, Ordering::SeqCst);
            None
        }
        Err(why) => Some(Outcome::Failed(why)),
    }
}

/// One connection to the primary; None when it is lost.
fn session(
    how: &Follow<'_>,
    stream: TcpStream,
    copies: &mut Copies,
    heard: &mut Option<Instant>,
) -> Option<Outcome> {
    let _ = stream.set_nodelay(true);
    let mut out = stream.try_clone().ok()?;
    let mut input = BufReader::new(stream);
    // With a key, both ends prove they hold it before anything is believed.
    match super::prove_observer(&mut input, how.key) {
        Ok(()) => {}
        Err(super::Unproven::Refused(why)) => {
            return Some(Outcome::Failed(format!("{}: {why}", how.primary)));
        }
        Err(super::Unproven::Lost(why)) => {
            log::warn!("observe: {}: {why}; trying again", how.primary);
            std::thread::sleep(Duration::from_secs(1));
            return None;
        }
    }
    input.get_ref().set_read_timeout(Some(LOOK_UP)).ok()?;
    let mut line = Vec::new();
    // Whether the other end has said anything of the standby stream yet; whether the
    // copy has been looked at as one to take over.
    let (mut spoken, mut looked) = (false, false);
    // A primary says something four times a second: a peer silent from the start is
    // likely no primary (an address that is not its --standby-listen).
    let (connected, mut said_mute) = (Instant::now(), false);
    loop {
        if let Some(outcome) = take_over_now(how, *heard) {
            if matches!(outcome, Outcome::Asked | Outcome::Silent(_)) {
                // Said on this connection too: the primary stops at once if it is alive.
                let _ = out.write_all(Msg::TookOver { by: how.by.clone() }.line().as_bytes());
            }
            return Some(outcome);
        }
        match input.read_until(b'\n', &mut line) {
            Ok(0) => {
                log::warn!("observe: the connection to {} is lost", how.primary);
                return None;
            }
            Ok(_) if line.ends_with(b"\n") => {}
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                if !spoken && !said_mute && connected.elapsed() >= MUTE {
                    log::warn!(
                        "observe: {} has said nothing for {} s since the connection: is it the primary's --standby-listen address?",
                        how.primary,
                        MUTE.as_secs()
                    );
                    said_mute = true;
                }
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log::warn!("observe: the connection to {} is lost: {e}", how.primary);
                return None;
            }
        }
        let msg = Msg::parse(&line);
        // A message of the stream this observer does not know (a newer primary's) is
        // still the stream.
        let of_the_stream = || {
            serde_json::from_slice::<serde_json::Value>(&line)
                .is_ok_and(|v| v.get("m").is_some_and(serde_json::Value::is_string))
        };
        if let (Err(e), false) = (&msg, spoken || of_the_stream()) {
            return Some(Outcome::Failed(format!(
                "{} does not speak the standby stream ({e}: {:?}): give the primary's --standby-listen address",
                how.primary,
                String::from_utf8_lossy(&line).trim_end()
            )));
        }
        spoken = true;
        *heard = Some(Instant::now());
        line.clear();
        match msg {
            Ok(Msg::Lines {
                seq,
                file,
                at,
                text,
            }) => {
                match copies.apply(&file, at, &text) {
                    Ok(()) => {}
                    Err(e @ CopyError::Gap { .. }) => {
                        // Following again brings the files from their start.
                        log::error!("observe: {e}; following again");
                        return None;
                    }
                    // A copy that cannot be made is no copy to take over from.
                    Err(e) => return Some(Outcome::Failed(e.to_string())),
                }
                if out.write_all(Msg::Ack { seq }.line().as_bytes()).is_err() {
                    return None;
                }
                // The time this observer spent on the lines is no silence of the primary.
                *heard = Some(Instant::now());
                // Said as soon as it shows (a match and no --ports), not at the takeover.
                if !looked {
                    looked = true;
                    if let Err(why) = (how.ready)() {
                        log::error!("observe: this observer could not take over: {why}");
                    }
                }
            }
            Ok(Msg::End { stopped }) => return Some(Outcome::Ended { stopped }),
            Ok(Msg::Hello { .. }) => {
                return Some(Outcome::Failed(format!(
                    "{} asks for the key it shares with its observers: give --standby-key FILE, the primary's",
                    how.primary
                )));
            }
            Ok(_) => {}
            Err(e) => log::warn!("observe: {} sent no message: {e}", how.primary),
        }
    }
}

/// Keeps telling the primary at `addr`, every second, that this observer took over:
/// a primary that was cut off rather than dead, and comes back, stops at once.
pub fn keep_telling(addr: String, by: String, key: Option<Key>) {
    let _ = std::thread::Builder::new()
        .name("argus-observe-tell".into())
        .spawn(move || {
            let mut told = false;
            loop {
                if super::tell_taken(&addr, &by, key.as_ref()) && !told {
                    log::warn!(
                        "observe: the primary at {addr} is up: told it that this referee took over"
                    );
                    told = true;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        });
}
