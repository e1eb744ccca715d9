//! `argus serve`: many games at once, each driven by its own mediator and [`Referee`],
//! the same as the serial mode's. This part runs the engines argus starts itself: each
//! game's two players are `argus client` sessions on in-memory lines
//! ([`crate::transport::memory`]), with the same engine adapters, so a local game
//! crosses no pty and no socket. The tournament's pairings and standings come from
//! [`crate::tournament`]; this module only drives them.
//!
//! What an event leaves in its folder (`--out`):
//! - `games.pgn`: every game, appended as it ends;
//! - `games/game-NNNN.jsonl` and `.pgn`: each game's journal (replayable with `argus
//!   replay`) and its own PGN;
//! - `standings.txt` and `standings.json`, rewritten after every game;
//! - `event.jsonl`: the event's own journal, its settings and then one line per game.

mod engines;

pub use engines::{EngineSpec, Proto};

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crossbeam_channel::Sender;

use crate::client::{self, ClientOptions, Stop, StopReason};
use crate::core::clock::TimeControl;
use crate::core::supervisor::Command;
use crate::core::{DrawRule, GameReport, IllegalRule, MatchConfig, Notice, Referee};
use crate::journal::{self, Event, Journal};
use crate::mediator::{self, Control, Eol, Line, Records, Watcher};
use crate::tournament::{
    AdjudicationRules, Adjudicator, Format, GameSpec, Sprt, SprtConfig, SprtDecision, Standings,
    schedule,
};
use crate::transport::memory;

/// An event of engines that argus starts itself.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The players, in the order given (the gauntlet's first player first).
    pub engines: Vec<EngineSpec>,
    /// How they are paired.
    pub format: Format,
    /// How many times the pairings are played.
    pub rounds: u32,
    /// Games per pairing in a round, the colours alternating.
    pub games: u32,
    /// Games at once.
    pub concurrency: usize,
    /// Start positions as FEN (each played twice, colours swapped); empty for the
    /// standard array.
    pub openings: Vec<String>,
    /// The time control of every game.
    pub time_control: TimeControl,
    /// When repetition and fifty-move draws apply.
    pub draw_rule: DrawRule,
    /// What an illegal move costs.
    pub illegal: IllegalRule,
    /// The PGN Event tag.
    pub event: String,
    /// The PGN Site tag.
    pub site: String,
    /// The PGN Date tag.
    pub date: String,
    /// The pause after `reset`.
    pub reset_delay: Duration,
    /// The pause after `conclude`.
    pub conclude_delay: Duration,
    /// Adjudication by the engines' evaluations (`--resign`, `--draw`, `--maxmoves`).
    pub adjudication: AdjudicationRules,
    /// The SPRT of a two-player match over its game pairs; the event stops at a bound.
    pub sprt: Option<SprtConfig>,
    /// The event's folder.
    pub out: PathBuf,
}

/// What an event came to.
#[derive(Debug)]
pub struct Summary {
    /// The standings.
    pub standings: Standings,
    /// Games with a record.
    pub played: usize,
    /// Games scheduled.
    pub scheduled: usize,
    /// Whether the event was stopped before its last game (Ctrl-C, or the SPRT
    /// reaching a bound).
    pub stopped: bool,
    /// The SPRT, when the event ran one.
    pub sprt: Option<Sprt>,
}

/// What `argus serve` tells whoever runs it, as the event goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A game begins.
    Started(&'a GameSpec),
    /// A game ended.
    Finished(&'a GameSpec, &'a GameReport),
    /// A game could not be played (an engine that does not start, say).
    Failed(&'a GameSpec, &'a str),
    /// A notice from a game's referee.
    Notice(&'a GameSpec, &'a Notice),
    /// A game pair finished and the SPRT moved.
    Sprt(&'a Sprt),
}

/// An error that stops the event.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The event's folder holds an event already.
    #[error(
        "{0} holds an event already (event.jsonl): give another --out; argus never overwrites an event"
    )]
    Exists(PathBuf),
    /// A file of the event could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// Fewer than two players.
    #[error("an event needs two players or more; give --engine for each")]
    TooFew,
    /// An SPRT where it cannot be run.
    #[error("--sprt {0}")]
    Sprt(&'static str),
    /// The settings are not a valid match.
    #[error(transparent)]
    Config(#[from] crate::core::referee::ConfigError),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ServeError + '_ {
    move |source| ServeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What a worker sends the event's thread.
enum Msg {
    Started(GameSpec),
    Notice(u32, Notice),
    Done(GameSpec, Result<Option<GameReport>, String>),
}

/// Runs the event to its end, or until `stop` is set (the games under way are then
/// stopped as the serial referee stops: clocks stand, players get `fault`). Calls
/// `progress` from the calling thread as games begin and end.
///
/// # Errors
///
/// [`ServeError`] when the folder holds an event already or a file of the event cannot
/// be written. A game that cannot be played (an engine that does not start) is
/// reported through `progress` and left without a record; the event goes on.
pub fn run_local(
    cfg: &ServeConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    if cfg.engines.len() < 2 {
        return Err(ServeError::TooFew);
    }
    if cfg.sprt.is_some() {
        if cfg.engines.len() != 2 {
            return Err(ServeError::Sprt(
                "tests a match of two players: give two --engine",
            ));
        }
        if !cfg.games.is_multiple_of(2) {
            return Err(ServeError::Sprt(
                "counts game pairs (each opening with the colours swapped): give an even --games",
            ));
        }
    }
    // Every game's settings are checked before any game begins.
    Referee::new(game_config(cfg, &first_spec()))?;
    let event_path = cfg.out.join("event.jsonl");
    if event_path.exists() {
        return Err(ServeError::Exists(cfg.out.clone()));
    }
    let games_dir = cfg.out.join("games");
    fs::create_dir_all(&games_dir).map_err(io_err(&games_dir))?;
    let games = schedule(
        cfg.engines.len(),
        cfg.format,
        cfg.rounds,
        cfg.games,
        cfg.openings.len(),
    );
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    let mut event = EventJournal::create(&event_path)?;
    event.write(&serde_json::json!({
        "event": "serve",
        "argus": env!("CARGO_PKG_VERSION"),
        "name": cfg.event,
        "site": cfg.site,
        "date": cfg.date,
        "players": names,
        "format": cfg.format,
        "rounds": cfg.rounds,
        "games_per_pairing": cfg.games,
        "tc": cfg.time_control.to_string(),
        "openings": cfg.openings.len(),
        "schedule": games,
    }))?;
    let mut standings = Standings::new(names);
    let mut sprt = cfg.sprt.clone().map(Sprt::new);
    // The first game of each pair, waiting for the second: the first player's
    // half-points, by pair number.
    let mut halves: HashMap<u32, u32> = HashMap::new();
    let pgn_path = cfg.out.join("games.pgn");
    let (jobs_tx, jobs) = crossbeam_channel::unbounded::<GameSpec>();
    for game in &games {
        let _ = jobs_tx.send(game.clone());
    }
    drop(jobs_tx);
    let (msgs_tx, msgs) = crossbeam_channel::unbounded::<Msg>();
    let controls: Controls = Arc::default();
    let stopping = AtomicBool::new(false);
    let mut played = 0;
    let sprt_done = AtomicBool::new(false);
    std::thread::scope(|scope| -> Result<(), ServeError> {
        for worker in 0..cfg.concurrency.max(1) {
            let (jobs, msgs_tx, controls, stopping) =
                (&jobs, msgs_tx.clone(), &controls, &stopping);
            std::thread::Builder::new()
                .name(format!("argus-serve-{worker}"))
                .spawn_scoped(scope, move || {
                    while !stopping.load(Ordering::SeqCst)
                        && let Ok(spec) = jobs.recv()
                    {
                        let _ = msgs_tx.send(Msg::Started(spec.clone()));
                        let outcome = play(cfg, &spec, controls, &msgs_tx);
                        let _ = msgs_tx.send(Msg::Done(spec, outcome));
                    }
                })
                .map_err(io_err(&cfg.out))?;
        }
        drop(msgs_tx);
        loop {
            let asked = stop.load(Ordering::SeqCst) || sprt_done.load(Ordering::SeqCst);
            if asked && !stopping.swap(true, Ordering::SeqCst) {
                // No game begins any more; the games under way stop as the serial
                // referee stops.
                for control in lock(&controls).values() {
                    let _ = control.send(Control::Stop);
                }
            }
            let msg = match msgs.recv_timeout(Duration::from_millis(100)) {
                Ok(msg) => msg,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
            };
            match msg {
                Msg::Started(spec) => progress(Progress::Started(&spec)),
                Msg::Notice(number, notice) => {
                    if let Some(spec) = games.get(number as usize - 1) {
                        progress(Progress::Notice(spec, &notice));
                    }
                }
                Msg::Done(spec, Ok(Some(report))) => {
                    played += 1;
                    standings.record(spec.white, spec.black, report.result);
                    if let Err(e) = mediator::append_pgn(&pgn_path, &report.pgn) {
                        log::error!("{e}; the game is in its journal");
                    }
                    event.write(&serde_json::json!({
                        "game": spec.number,
                        "round": spec.round,
                        "white": report.white,
                        "black": report.black,
                        "result": report.result.to_string(),
                        "termination": report.termination.to_string(),
                        "reason": report.reason,
                        "journal": format!("games/{}.jsonl", stem(&spec)),
                    }))?;
                    progress(Progress::Finished(&spec, &report));
                    if let Some(sprt) = &mut sprt
                        && let Some(half) = first_player_half(&spec, report.result)
                    {
                        let pair = spec.number.div_ceil(2);
                        if let Some(first) = halves.remove(&pair) {
                            sprt.record_pair(first + half);
                            progress(Progress::Sprt(sprt));
                            if sprt.decision() != SprtDecision::Continue {
                                sprt_done.store(true, Ordering::SeqCst);
                            }
                        } else {
                            halves.insert(pair, half);
                        }
                    }
                    write_standings(&cfg.out, &standings, sprt.as_ref())?;
                }
                Msg::Done(_, Ok(None)) => {}
                Msg::Done(spec, Err(why)) => {
                    event.write(&serde_json::json!({
                        "game": spec.number,
                        "failed": why,
                    }))?;
                    progress(Progress::Failed(&spec, &why));
                }
            }
        }
        Ok(())
    })?;
    write_standings(&cfg.out, &standings, sprt.as_ref())?;
    Ok(Summary {
        standings,
        played,
        scheduled: games.len(),
        stopped: stopping.load(Ordering::SeqCst),
        sprt,
    })
}

/// The first player's half-points in a game with a result.
fn first_player_half(spec: &GameSpec, result: crate::core::game::GameResult) -> Option<u32> {
    use crate::core::game::GameResult;
    let white_half = match result {
        GameResult::WhiteWins => 2,
        GameResult::Draw => 1,
        GameResult::BlackWins => 0,
        GameResult::Unknown => return None,
    };
    Some(if spec.white == 0 {
        white_half
    } else {
        2 - white_half
    })
}

/// The control channels of the games under way, by game number.
type Controls = Arc<Mutex<HashMap<u32, Sender<Control>>>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn first_spec() -> GameSpec {
    GameSpec {
        number: 1,
        round: 1,
        white: 0,
        black: 1,
        opening: None,
    }
}

/// A game's file names, without extension.
fn stem(spec: &GameSpec) -> String {
    format!("game-{:04}", spec.number)
}

/// The settings of one game: a match of one game between its White (port a) and its
/// Black (port b).
fn game_config(cfg: &ServeConfig, spec: &GameSpec) -> MatchConfig {
    let name = |i: usize| cfg.engines[i].name.clone();
    MatchConfig {
        event: cfg.event.clone(),
        site: cfg.site.clone(),
        date: cfg.date.clone(),
        round: Some(spec.round.to_string()),
        names: [Some(name(spec.white)), Some(name(spec.black))],
        port_labels: [
            format!("engine {}", name(spec.white)),
            format!("engine {}", name(spec.black)),
        ],
        time_control: cfg.time_control.clone(),
        games: 1,
        openings: spec
            .opening
            .and_then(|i| cfg.openings.get(i).cloned())
            .into_iter()
            .collect(),
        reset_delay: cfg.reset_delay,
        conclude_delay: cfg.conclude_delay,
        draw_rule: cfg.draw_rule,
        illegal: cfg.illegal,
        attended: false,
        hosted: false,
        wire: Default::default(),
    }
}

/// Passes a game's notices to the event's thread, adjudicates by the engines' scores,
/// and keeps the game's report.
struct GameWatcher<'a> {
    number: u32,
    msgs: &'a Sender<Msg>,
    report: Option<GameReport>,
    /// The adjudication counters, when the event adjudicates.
    adjudicator: Option<Adjudicator>,
    /// The game's control channel: a verdict goes to the referee as the supervisor's
    /// `adjudicate`, so that the journal holds it and a replay decides the same.
    control: Sender<Control>,
}

impl Watcher for GameWatcher<'_> {
    fn notice(&mut self, notice: &Notice) {
        if let (
            Some(adjudicator),
            Notice::Moved {
                fullmove,
                color,
                score,
                ..
            },
        ) = (&mut self.adjudicator, notice)
            && let Some(verdict) = adjudicator.after_move(*fullmove, *color, *score)
        {
            let _ = self.control.send(Control::Command(Command::Adjudicate {
                result: verdict.result,
                reason: Some(verdict.reason),
            }));
        }
        let _ = self.msgs.send(Msg::Notice(self.number, notice.clone()));
    }

    fn game_over(&mut self, report: &GameReport) {
        self.report = Some(report.clone());
    }
}

/// Plays one game: starts both engines, joins each to the game's referee by an
/// in-memory line, and runs the mediator with the game's own journal. Returns the
/// game's report (None when the event was stopped during it).
fn play(
    cfg: &ServeConfig,
    spec: &GameSpec,
    controls: &Controls,
    msgs: &Sender<Msg>,
) -> Result<Option<GameReport>, String> {
    let sides = [&cfg.engines[spec.white], &cfg.engines[spec.black]];
    let mut engines = Vec::with_capacity(2);
    for (i, side) in sides.iter().enumerate() {
        let seed = u64::from(spec.number) * 2 + i as u64;
        engines.push(
            side.start(seed)
                .map_err(|e| format!("{} does not start: {e}", side.name))?,
        );
    }
    let config = game_config(cfg, spec);
    let referee = Referee::new(config.clone()).map_err(|e| e.to_string())?;
    let dir = cfg.out.join("games");
    let journal_path = dir.join(format!("{}.jsonl", stem(spec)));
    let pgn_path = dir.join(format!("{}.pgn", stem(spec)));
    let mut journal = Journal::create(&journal_path).map_err(|e| e.to_string())?;
    journal
        .write(&Event::Session {
            version: journal::VERSION,
            argus: env!("CARGO_PKG_VERSION").to_string(),
            started: now_rfc3339(),
            ports: config.port_labels.clone(),
            lines: None,
            eol: Some("lf".into()),
            pgn: Some(pgn_path.clone()),
            config: Box::new(config.clone()),
        })
        .map_err(|e| e.to_string())?;
    let mut records = Records {
        journal,
        pgn: pgn_path,
    };
    let (control_tx, control) = crossbeam_channel::unbounded();
    lock(controls).insert(spec.number, control_tx.clone());
    let client_stop = Stop::new();
    let mut watcher = GameWatcher {
        number: spec.number,
        msgs,
        report: None,
        adjudicator: cfg
            .adjudication
            .any()
            .then(|| Adjudicator::new(cfg.adjudication.clone())),
        control: control_tx,
    };
    let outcome = std::thread::scope(|scope| {
        let mut lines = Vec::with_capacity(2);
        for (i, mut engine) in engines.into_iter().enumerate() {
            let (referee_end, client_end) = memory::pair();
            lines.push(Line {
                label: config.port_labels[i].clone(),
                duplex: referee_end,
                reopen: None,
            });
            let opts = ClientOptions {
                name: Some(sides[i].name.clone()),
                address: "memory".into(),
                eol: Eol::Lf,
                checksum: false,
            };
            let client_stop = &client_stop;
            scope.spawn(move || {
                if let Err(e) = client::run_until(client_end, &mut *engine, &opts, client_stop) {
                    log::debug!(
                        "game {}: {}: {e}",
                        spec.number,
                        opts.name.unwrap_or_default()
                    );
                }
            });
        }
        let lines: [Line; 2] = match lines.try_into() {
            Ok(lines) => lines,
            Err(_) => unreachable!("two lines"),
        };
        let outcome = mediator::run(referee, lines, Eol::Lf, &mut records, &mut watcher, control);
        // The clients leave at the referee's disconnect; after a stop they are told to.
        client_stop.fire(StopReason::Disconnect);
        outcome
    });
    lock(controls).remove(&spec.number);
    outcome.map_err(|e| e.to_string())?;
    Ok(watcher.report)
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// The event's own journal: JSON Lines, each written and flushed at once.
struct EventJournal {
    path: PathBuf,
    file: fs::File,
}

impl EventJournal {
    fn create(path: &Path) -> Result<EventJournal, ServeError> {
        let file = fs::File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(EventJournal {
            path: path.to_path_buf(),
            file,
        })
    }

    fn write(&mut self, value: &serde_json::Value) -> Result<(), ServeError> {
        let mut line = value.to_string();
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(io_err(&self.path))
    }
}

/// Rewrites `standings.txt` and `standings.json` (each written beside, then renamed
/// over the old, so that a reader never sees half a file).
fn write_standings(
    out: &Path,
    standings: &Standings,
    sprt: Option<&Sprt>,
) -> Result<(), ServeError> {
    let mut json = standings.json();
    let mut text = standings.text();
    if let Some(sprt) = sprt {
        json["sprt"] = sprt.json();
        text.push('\n');
        text.push_str(&sprt.line());
        text.push('\n');
    }
    let json = serde_json::to_string_pretty(&json).unwrap_or_default();
    for (name, text) in [("standings.txt", text), ("standings.json", json)] {
        let path = out.join(name);
        let part = out.join(format!(".{name}.part"));
        fs::write(&part, text)
            .and_then(|()| fs::rename(&part, &path))
            .map_err(io_err(&path))?;
    }
    Ok(())
}
