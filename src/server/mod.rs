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

pub mod config;
mod control;
mod engines;
mod entrant;
mod files;
mod game;
mod idle;
mod knockout;
mod listen;
#[cfg(unix)]
mod local;
mod outputs;
mod registry;
mod resume;
mod state;

pub use control::{
    ConsoleCommand, GameStatus, HELP as CONSOLE_HELP, Requests, Status, UnknownCommand,
};
pub use engines::{EngineSpec, Proto, check_engines};
pub use entrant::{Entrant, check_players, parse_players, read_players};
pub use listen::SIGN_ON_WITHIN;
pub use registry::{RemotePlayer, Seat, TakenBy};

use files::{EventJournal, GamesPgn, StandingsFiles, stem};
use game::{game_config, play};
use outputs::Outputs;
use registry::{Place, Registry};
use state::EventState;

use crate::watch::live::Live;

use std::collections::{HashMap, VecDeque};
use std::fs;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crossbeam_channel::Sender;

use crate::client::{self, ClientOptions, Engine, Stop, StopReason};
use crate::core::clock::TimeControl;
use crate::core::referee::{REFCOM, STOP_REASON, command_record};
use crate::core::supervisor::Command;
use crate::core::{DrawRule, GameReport, IllegalRule, MatchConfig, Notice, Referee};
use crate::mediator::journal::{self, Event as JournalEvent, Journal};
use crate::mediator::standby::Hub;
use crate::mediator::{self, Control, Eol, Line, Records, Watcher};
use crate::tournament::rating::Report as RatingReport;
use crate::tournament::{
    AdjudicationRules, Adjudicator, Format, GameSpec, Knockout, Match, Sprt, SprtConfig,
    SprtDecision, Standings, schedule,
};
use crate::transport::memory;
use shakmaty::Chess;

/// An event: its players, its format and its games. `event.jsonl` holds it, so that
/// `--resume DIR` needs nothing else.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ServeConfig {
    /// The players, in the order given (the gauntlet's first player first).
    pub players: Vec<Entrant>,
    /// Where players that connect by themselves connect (needed when there are any).
    pub listen: Option<SocketAddr>,
    /// The connections taken at once (256 when not given).
    #[serde(default)]
    pub max_clients: Option<usize>,
    /// How they are paired.
    pub format: Format,
    /// How many times the pairings are played.
    pub rounds: u32,
    /// Games per pairing in a round, the colours alternating.
    pub games: u32,
    /// Games at once.
    pub concurrency: usize,
    /// Start positions (each as FEN, with the tags that name it) in the order the
    /// encounters take them, each `repeat` games in a row; empty for the standard array.
    pub openings: Vec<crate::core::Opening>,
    /// Where the openings came from (`--openings`), for the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings_from: Option<crate::openings::OpeningsSpec>,
    /// The games in a row of a pairing that take each opening, the colours alternating
    /// (`--repeat`).
    #[serde(default = "two")]
    pub repeat: u32,
    /// The seed of the openings' random order (`--srand`, or the one drawn when none
    /// was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srand: Option<u64>,
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
    /// The ratings are reported after every this many games with a result (0: only at
    /// the end).
    #[serde(default)]
    pub rating_interval: u32,
    /// Every game is appended to this file too (`--pgnout`).
    #[serde(default)]
    pub pgnout: Option<PathBuf>,
    /// The final position of every game is appended to this file as an EPD line
    /// (`--epdout`).
    #[serde(default)]
    pub epdout: Option<PathBuf>,
    /// The standby stream (`--standby-listen`, `--standby-sync`, `--standby-key`;
    /// docs/standby.md): kept so that a resumed referee offers it again, where an
    /// observer that took the event over tells it so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standby: Option<StandbySettings>,
    /// The audience's page (`--http`): served again by `--resume`, unless it gives
    /// another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// The event's folder.
    pub out: PathBuf,
}

/// The standby stream of an event, as its options gave it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StandbySettings {
    /// Where observers connect (`--standby-listen`).
    pub listen: SocketAddr,
    /// A line is relayed once the observers hold it (`--standby-sync`).
    #[serde(default)]
    pub sync: bool,
    /// The key's file (`--standby-key`), absolute; the key itself is never recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<PathBuf>,
}

fn two() -> u32 {
    2
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
    /// Games that failed (could not be played; the log says why), by number.
    pub failed: Vec<u32>,
    /// Whether the event was stopped before its last game (Ctrl-C, the console's
    /// `stop` or `stop after-games`, or the SPRT reaching a bound).
    pub stopped: bool,
    /// The SPRT, when the event ran one.
    pub sprt: Option<Sprt>,
    /// The ratings.
    pub ratings: RatingReport,
    /// A knockout's bracket.
    pub knockout: Option<Knockout>,
}

impl Summary {
    /// The standings as `standings.txt` holds them (without the crosstable unless
    /// `crosstable`): the table, the SPRT's line, the ratings, a knockout's bracket.
    pub fn text(&self, crosstable: bool) -> String {
        files::standings_text(
            &self.standings,
            self.sprt.as_ref(),
            &self.ratings,
            self.knockout.as_ref(),
            crosstable,
        )
    }
}

/// What `argus serve` tells whoever runs it, as the event goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A game begins.
    Started(&'a GameSpec),
    /// A game ended, and the standings with it (those of the games before a resume
    /// too).
    Finished(&'a GameSpec, &'a GameReport, &'a Standings),
    /// A game could not be played (an engine that does not start, say).
    Failed(&'a GameSpec, &'a str),
    /// A notice from a game's referee.
    Notice(&'a GameSpec, &'a Notice),
    /// A game pair finished and the SPRT moved.
    Sprt(&'a Sprt),
    /// The ratings after this many games with a result (every `--rating-interval`).
    Ratings(usize, &'a RatingReport),
    /// A knockout's match is decided (a bye too).
    Knockout(&'a Match),
    /// Where the event stands, as [`Requests::status`] asked.
    Status(&'a Status),
    /// No new game starts, as [`Requests::stop_after_games`] asked: this many games
    /// under way finish first.
    Draining(usize),
    /// The event's answer to a console command for one game (`game 3 pause`).
    Console(&'a str),
    /// A player took a seat (`--seats`), and the event's journal holds its name: the
    /// player's index, and the seat.
    Seated(usize, &'a Seat),
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
    #[error("an event needs two players or more: give --engine or --player for each, or --seats")]
    TooFew,
    /// Seats in an event with tokens.
    #[error(
        "--seats: an event with a token is closed (only its listed players sign on, each with its token), so it has no seats for players not named in advance: give every player with --player NAME:TOKEN, or no token"
    )]
    ClosedSeats,
    /// An SPRT where it cannot be run.
    #[error("--sprt {0}")]
    Sprt(&'static str),
    /// Settings a format cannot have.
    #[error("--format {0}")]
    Format(&'static str),
    /// The folder holds no event to go on with.
    #[error("--resume {path}: {why}")]
    Resume {
        /// The folder.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The listening address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The system's error.
        source: io::Error,
    },
    /// The settings are not a valid match.
    #[error(transparent)]
    Config(#[from] crate::core::referee::ConfigError),
    /// Engines that could not be started (or failed their handshake) before the first
    /// game: one line each.
    #[error("{}", .0.join("\n"))]
    Engines(Vec<String>),
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
    /// A game that could not begin for want of descriptors or threads, back in the
    /// queue (why, and how many times it was tried).
    Requeued(GameSpec, String, u32),
}

/// How many times a game that could not begin for want of descriptors or threads is
/// tried before it fails.
pub const BEGIN_TRIES: u32 = 20;
/// How long a worker waits after such a game went back to the queue.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// Runs the event to its end, or until `requests` asks it to stop (the games under way
/// are then stopped as the serial referee stops: clocks stand, players get `fault`) or
/// to stop after the games under way (no new game begins; those under way finish).
/// Calls `progress` from the calling thread as games begin and end, and to answer
/// `requests`.
///
/// # Errors
///
/// [`ServeError`] when the folder holds an event already or a file of the event cannot
/// be written. A game that cannot be played (an engine that does not start) is
/// reported through `progress` and left without a record; the event goes on.
pub fn run(
    cfg: &ServeConfig,
    requests: &Requests,
    live: Option<&Arc<Live>>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    let setup = Setup {
        live,
        ..Setup::default()
    };
    run_event(cfg, None, &setup, requests, progress)
}

/// What an event is run with besides its settings.
#[derive(Clone, Copy, Default)]
pub struct Setup<'a> {
    /// The views' model of the games (`--http`, the terminal view).
    pub live: Option<&'a Arc<Live>>,
    /// The standby stream (`--standby-listen`): every journal line of the event goes to
    /// the observers as it is written.
    pub standby: Option<&'a Arc<Hub>>,
    /// Where the players connect, instead of the address the settings give (an observer
    /// that took over listens on its own).
    pub listen: Option<SocketAddr>,
}

/// [`run`], with the views, the standby stream and the listening address of `setup`.
///
/// # Errors
///
/// As [`run`].
pub fn run_with(
    cfg: &ServeConfig,
    setup: &Setup<'_>,
    requests: &Requests,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    run_event(cfg, None, setup, requests, progress)
}

/// [`resume`], with the views, the standby stream and the listening address of
/// `setup`.
///
/// # Errors
///
/// As [`resume`].
pub fn resume_with(
    dir: &Path,
    setup: &Setup<'_>,
    requests: &Requests,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    let (cfg, lines) = resume::read(dir)?;
    run_event(&cfg, Some(lines), setup, requests, progress)
}

/// Goes on with the event in `dir` after a stop or a crash, from its `event.jsonl`:
/// games with a result stay as they are (and reach `games.pgn` once), the games under
/// way go on from their own journals as `argus serial --resume` does (the time the
/// referee was down charged to nobody), and the others follow.
///
/// # Errors
///
/// As [`run`]; and [`ServeError::Resume`] when the folder holds no event to go on with.
pub fn resume(
    dir: &Path,
    requests: &Requests,
    live: Option<&Arc<Live>>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    let setup = Setup {
        live,
        ..Setup::default()
    };
    resume_with(dir, &setup, requests, progress)
}

/// Reads the settings of the event in `dir` (for what `argus serve --resume` prints
/// before it goes on).
///
/// # Errors
///
/// [`ServeError::Resume`] when the folder holds no event.
pub fn event_settings(dir: &Path) -> Result<ServeConfig, ServeError> {
    resume::read(dir).map(|(cfg, _)| cfg)
}

fn run_event(
    cfg: &ServeConfig,
    resumed: Option<Vec<serde_json::Value>>,
    setup: &Setup<'_>,
    requests: &Requests,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    let live = setup.live;
    check_players(cfg)?;
    if cfg.sprt.is_some() {
        if cfg.players.len() != 2 {
            return Err(ServeError::Sprt(
                "tests a match of two players: give two --engine",
            ));
        }
        if !cfg.games.is_multiple_of(2) || cfg.repeat != 2 {
            return Err(ServeError::Sprt(
                "counts game pairs (each opening with the colours swapped): give an even --games, and --repeat 2",
            ));
        }
    }
    if cfg.format == Format::Knockout && cfg.rounds != 1 {
        return Err(ServeError::Format(
            "knockout: its rounds follow from the players (one match per pairing, the winner goes on): give no --rounds",
        ));
    }
    // Every game's settings are checked before any game begins, and every engine is
    // started once.
    let names: Vec<String> = cfg.players.iter().map(|e| e.name().to_string()).collect();
    Referee::new(game_config(cfg, &names, &first_spec(), false))?;
    let engines: Vec<&EngineSpec> = cfg
        .players
        .iter()
        .filter_map(|p| match p {
            Entrant::Engine(e) => Some(e),
            Entrant::Remote(_) | Entrant::Seat(_) => None,
        })
        .collect();
    check_engines(&engines).map_err(ServeError::Engines)?;
    let event_path = cfg.out.join("event.jsonl");
    if resumed.is_none() && event_path.exists() {
        return Err(ServeError::Exists(cfg.out.clone()));
    }
    let games_dir = cfg.out.join("games");
    fs::create_dir_all(&games_dir).map_err(io_err(&games_dir))?;
    let mut games = schedule(
        cfg.players.len(),
        cfg.format,
        cfg.rounds,
        cfg.games,
        cfg.openings.len(),
        cfg.repeat,
    );
    // The players that connect by themselves, by their index among the players.
    let mut remote_index = vec![None; cfg.players.len()];
    // And the other way: the player of each place of the registry.
    let mut player_of = Vec::new();
    let mut remote = Vec::new();
    let mut engines = Vec::new();
    for (i, p) in cfg.players.iter().enumerate() {
        let place = match p {
            Entrant::Engine(e) => {
                engines.push(e.name.clone());
                continue;
            }
            Entrant::Remote(r) => Place::Listed(r.clone()),
            Entrant::Seat(s) => Place::Seat(s.clone()),
        };
        remote_index[i] = Some(remote.len());
        player_of.push(i);
        remote.push(place);
    }
    raise_descriptor_limit(remote.len(), cfg.concurrency);
    let registry = Registry::new(remote, engines);
    // Set when the event ends: the listener stops.
    let closing = Arc::new(AtomicBool::new(false));
    if remote_index.iter().any(Option::is_some) {
        let addr = setup
            .listen
            .or(cfg.listen)
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)));
        let listener = std::net::TcpListener::bind(addr)
            .map_err(|source| ServeError::Listen { addr, source })?;
        // The port taken, which `--listen HOST:0` leaves to the system.
        let taken = listener.local_addr().unwrap_or(addr);
        println!(
            "argus serve: players connect to {taken} (argus client --connect {taken} --name NAME)"
        );
        if !addr.ip().is_loopback() {
            log::warn!("argus serve: listening on {addr}, not only this machine, as asked");
        }
        let (registry, closing) = (Arc::clone(&registry), Arc::clone(&closing));
        let max_clients = cfg.max_clients.unwrap_or(listen::MAX_CLIENTS);
        std::thread::Builder::new()
            .name("argus-serve-listen".into())
            .spawn(move || listen::serve(listener, registry, closing, max_clients))
            .map_err(io_err(&cfg.out))?;
    }
    let event = Event {
        cfg,
        registry: &registry,
        remote_index: &remote_index,
        boards: Mutex::default(),
        live,
        standby: setup.standby,
        stopped: AtomicBool::new(false),
        idle: idle::Idle::new(2 * cfg.concurrency.max(1)),
    };
    // The standings, the pairs and the SPRT; a Swiss event pairs each round from the
    // results before it, a knockout each match's next games.
    let mut state = EventState::new(cfg, names.clone());
    let outputs = Outputs::new(cfg);
    let pgn_path = cfg.out.join("games.pgn");
    let mut played = 0;
    let mut failed = Vec::new();
    // Games to go on with from their journals (under way when the event stopped).
    let mut under_way = std::collections::HashSet::new();
    let mut journal;
    let queue_games: VecDeque<GameSpec>;
    if let Some(lines) = resumed {
        journal = EventJournal::append(&event_path, setup.standby)?;
        let rebuilt = resume::rebuild(cfg, &lines, games, &mut state, &mut journal, &outputs)?;
        games = rebuilt.games;
        played = rebuilt.played;
        under_way = rebuilt.under_way;
        queue_games = rebuilt.queue;
        StandingsFiles::new(&cfg.out).write(&state, live)?;
        log::info!(
            "argus serve: resuming {}: {played} game(s) with a result, {} under way, {} to play",
            cfg.out.display(),
            under_way.len(),
            queue_games.len() - under_way.len()
        );
    } else {
        journal = EventJournal::create(&event_path, setup.standby)?;
        journal.write(&serde_json::json!({
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
            "config": cfg,
        }))?;
        if let Some(sw) = &mut state.swiss {
            games = swiss_round(sw, cfg, &mut state.standings, 1, &mut journal)?;
        }
        if let Some(k) = &mut state.knockout {
            let step = k.start();
            if let Some(batch) = &step.batch {
                journal.write(&knockout::batch_line(batch))?;
                games.clone_from(&batch.games);
            }
            for m in &step.decided {
                progress(Progress::Knockout(m));
            }
        }
        queue_games = games.iter().cloned().collect();
    }
    // An SPRT decided before a stop: no game begins.
    let decided = |sprt: &Option<Sprt>| {
        sprt.as_ref()
            .is_some_and(|t| t.decision() != SprtDecision::Continue)
    };
    let pending = Mutex::new(Queue {
        games: queue_games,
        tries: HashMap::new(),
        more: state.more_to_come(cfg),
        under_way: 0,
        closed: false,
    });
    let scheduled = scheduled_games(cfg);
    let under_way = &under_way;
    let (msgs_tx, msgs) = crossbeam_channel::unbounded::<Msg>();
    let controls: Controls = Arc::default();
    let stopping = AtomicBool::new(false);
    let draining = AtomicBool::new(false);
    let sprt_done = AtomicBool::new(decided(&state.sprt));
    // Opened after a resume has finished what a dead referee owed it.
    let mut games_pgn = GamesPgn::open(&pgn_path)?;
    // Rewritten at most every few seconds while games end, and at the end.
    let mut standings_files = StandingsFiles::new(&cfg.out);
    std::thread::scope(|scope| -> Result<(), ServeError> {
        for worker in 0..cfg.concurrency.max(1) {
            let (pending, msgs_tx, controls, event) =
                (&pending, msgs_tx.clone(), &controls, &event);
            std::thread::Builder::new()
                .name(format!("argus-serve-{worker}"))
                .spawn_scoped(scope, move || {
                    while let Some(spec) = event.next_game(pending) {
                        let _ = msgs_tx.send(Msg::Started(spec.clone()));
                        lock(&event.boards).insert(spec.number, GameStatus::new(spec.clone()));
                        let go_on = under_way.contains(&spec.number);
                        let outcome = play(event, &spec, controls, &msgs_tx, go_on);
                        lock(&event.boards).remove(&spec.number);
                        event.release(&spec);
                        let mut queue = lock(pending);
                        let tries = queue.tries.get(&spec.number).map_or(1, |t| t + 1);
                        let outcome = match outcome {
                            // Not begun for want of descriptors or threads: games that
                            // end give them back, and it is tried again.
                            Err(not) if not.retry && tries < BEGIN_TRIES => {
                                queue.tries.insert(spec.number, tries);
                                queue.games.push_front(spec.clone());
                                queue.under_way -= 1;
                                drop(queue);
                                event.registry.wake();
                                let _ = msgs_tx.send(Msg::Requeued(spec, not.why, tries));
                                std::thread::sleep(RETRY_PAUSE);
                                continue;
                            }
                            outcome => outcome.map_err(|not| not.why),
                        };
                        queue.under_way -= 1;
                        drop(queue);
                        let _ = msgs_tx.send(Msg::Done(spec, outcome));
                    }
                })
                .map_err(io_err(&cfg.out))?;
        }
        drop(msgs_tx);
        loop {
            standings_files.tick(&state, live);
            // Seats taken: their names in the event's journal before their players
            // are paired, so that a resumed event has them.
            for (place, seat) in event.registry.seats_to_record() {
                let player = player_of[place];
                journal.write(&serde_json::json!({
                    "seat": seat.number,
                    "player": player,
                    "name": seat.name,
                    "taken_by": seat.taken,
                }))?;
                state.standings.rename(player, &seat.name);
                standings_files.changed();
                event.registry.recorded(place);
                progress(Progress::Seated(player, &seat));
            }
            let asked = requests.stopping() || sprt_done.load(Ordering::SeqCst);
            if asked && !stopping.swap(true, Ordering::SeqCst) {
                // No game begins any more; the games under way stop as the serial
                // referee stops, and so does a game being started (`play` looks at
                // `stopped` once its control is in `controls`).
                event.stopped.store(true, Ordering::SeqCst);
                lock(&pending).closed = true;
                event.registry.wake();
                for control in lock(&controls).values() {
                    control.stop();
                }
            }
            if requests.draining() && !draining.swap(true, Ordering::SeqCst) {
                // No game begins any more; the games under way finish.
                let mut queue = lock(&pending);
                queue.closed = true;
                let left = queue.under_way;
                drop(queue);
                event.registry.wake();
                progress(Progress::Draining(left));
            }
            if requests.take_status() {
                let games_under_way = lock(&event.boards).values().cloned().collect();
                progress(Progress::Status(&Status {
                    games: games_under_way,
                    done: played,
                    scheduled: scheduled.max(games.len()),
                    draining: lock(&pending).closed,
                }));
            }
            for (number, command) in requests.take_game_commands() {
                let controls = lock(&controls);
                let target = match number {
                    Some(n) => controls.get_key_value(&n),
                    None if controls.len() == 1 => controls.iter().next(),
                    None => None,
                };
                match target {
                    Some((&n, control)) => {
                        progress(Progress::Console(&format!("game {n}: {command}")));
                        control.send(Control::Command(command));
                    }
                    None => progress(Progress::Console(&match (number, controls.len()) {
                        (Some(n), _) => format!("game {n} is not under way: nothing done"),
                        (None, 0) => "no game is under way: nothing done".to_string(),
                        (None, k) => {
                            format!("{k} games are under way: say which, as in `game N {command}`")
                        }
                    })),
                }
            }
            let msg = match msgs.recv_timeout(Duration::from_millis(100)) {
                Ok(msg) => msg,
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
            };
            let done_round = matches!(msg, Msg::Done(..));
            // A game that ended, with its result (None: it could not be played).
            let ended = match &msg {
                Msg::Done(spec, Ok(Some(report))) => Some((spec.number, Some(report.result))),
                Msg::Done(spec, Err(_)) => Some((spec.number, None)),
                _ => None,
            };
            match msg {
                Msg::Started(spec) => progress(Progress::Started(&spec)),
                Msg::Requeued(spec, why, tries) => log::warn!(
                    "game {}: {why}: back in the queue (tried {tries} of {BEGIN_TRIES} times)",
                    spec.number
                ),
                Msg::Notice(number, notice) => {
                    if let Some(spec) = games.get(number as usize - 1) {
                        progress(Progress::Notice(spec, &notice));
                    }
                }
                Msg::Done(spec, Ok(Some(report))) => {
                    played += 1;
                    // The event's journal first: a resume appends to games.pgn what a
                    // crash kept from it.
                    journal.write(&serde_json::json!({
                        "game": spec.number,
                        "round": spec.round,
                        "white": report.white,
                        "black": report.black,
                        "result": report.result.to_string(),
                        "termination": report.termination.to_string(),
                        "reason": report.reason,
                        "time_use": resume::time_use_json(&report.time_use),
                        // A forfeit before the game began has no journal.
                        "journal": Some(format!("games/{}.jsonl", stem(&spec)))
                            .filter(|j| cfg.out.join(j).exists()),
                    }))?;
                    games_pgn.append(&report.pgn);
                    outputs.game(&stem(&spec), &report.pgn);
                    let pair_done = state.count(
                        &spec,
                        (
                            report.result,
                            &report.termination.to_string(),
                            &report.time_use,
                        ),
                    );
                    progress(Progress::Finished(&spec, &report, &state.standings));
                    if pair_done && let Some(sprt) = &state.sprt {
                        progress(Progress::Sprt(sprt));
                        if decided(&state.sprt) {
                            sprt_done.store(true, Ordering::SeqCst);
                        }
                    }
                    if cfg.rating_interval > 0 && played % cfg.rating_interval as usize == 0 {
                        progress(Progress::Ratings(played, &state.ratings()));
                    }
                    standings_files.changed();
                }
                Msg::Done(_, Ok(None)) => {}
                Msg::Done(spec, Err(why)) => {
                    failed.push(spec.number);
                    journal.write(&serde_json::json!({
                        "game": spec.number,
                        "failed": why,
                    }))?;
                    progress(Progress::Failed(&spec, &why));
                }
            }
            if let Some(k) = &mut state.knockout
                && let Some((number, result)) = ended
            {
                // The bracket moves with every game that ends, stopping or not, so that
                // the journal's results rebuild it; what it adds waits for a resume
                // when no game begins any more.
                let step = k.record(number, result);
                for m in &step.decided {
                    progress(Progress::Knockout(m));
                }
                let mut queue = lock(&pending);
                if let Some(batch) = step.batch {
                    journal.write(&knockout::batch_line(&batch))?;
                    if !queue.closed {
                        queue.games.extend(batch.games.iter().cloned());
                    }
                    games.extend(batch.games);
                }
                queue.more = !k.over() && !queue.closed;
                drop(queue);
                event.registry.wake();
                if !step.decided.is_empty() {
                    standings_files.changed();
                }
            }
            if let Some(sw) = &mut state.swiss
                && done_round
            {
                sw.left = sw.left.saturating_sub(1);
                let mut queue = lock(&pending);
                if sw.left == 0 && sw.round < cfg.rounds && !queue.closed {
                    let first = games.len() as u32 + 1;
                    let next = swiss_round(sw, cfg, &mut state.standings, first, &mut journal)?;
                    queue.games.extend(next.iter().cloned());
                    games.extend(next);
                }
                queue.more = sw.round < cfg.rounds && !queue.closed;
                drop(queue);
                event.registry.wake();
            }
        }
        Ok(())
    })?;
    // Stopped: by a stop, or after the games under way with games left to play.
    let queue = lock(&pending);
    let stopped = stopping.load(Ordering::SeqCst)
        || (draining.load(Ordering::SeqCst)
            && (!queue.games.is_empty() || queue.more || state.more_to_come(cfg)));
    drop(queue);
    // The event's last word to the players that connected: `disconnect` when it is
    // over, `fault` when it stopped.
    closing.store(true, Ordering::SeqCst);
    let last = if stopped {
        command_record(&Chess::default(), REFCOM, "fault", Some(STOP_REASON))
    } else {
        command_record(&Chess::default(), REFCOM, "disconnect", None)
    }
    .to_string();
    for router in registry.routers() {
        router.send(&last);
        if !stopped {
            router.close();
        }
    }
    if !stopped {
        // Each closed connection is said (`NAME left`) before the event's end.
        registry.wait_closed(Duration::from_secs(2));
    }
    standings_files.write(&state, live)?;
    Ok(Summary {
        ratings: state.ratings(),
        standings: state.standings,
        played,
        scheduled: games.len(),
        failed,
        stopped,
        sprt: state.sprt,
        knockout: state.knockout,
    })
}

/// Raises the soft limit on open descriptors to the hard limit (Unix), and says what
/// it is: each connected player holds one (its socket, which the poll loop reads and its
/// game writes), each game under way its journal and its engines' pipes, and a common
/// default of 1,024 is short of a thousand players in 500 games. Returns the limit.
fn raise_descriptor_limit(remote: usize, concurrency: usize) -> Option<u64> {
    #[cfg(unix)]
    {
        let (soft, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).ok()?;
        let limit = rlimit::increase_nofile_limit(hard).unwrap_or(soft);
        if limit > soft {
            log::info!(
                "argus serve: up to {limit} open files (the soft limit raised from {soft} to the hard limit)"
            );
        } else {
            log::info!("argus serve: up to {limit} open files");
        }
        let wanted = remote as u64 + 8 * concurrency as u64 + 32;
        if limit < wanted {
            log::warn!(
                "argus serve: up to {limit} open files (ulimit -n), fewer than {wanted} for {remote} players and {concurrency} games at once: games wait for descriptors"
            );
        }
        Some(limit)
    }
    #[cfg(not(unix))]
    {
        let _ = (remote, concurrency);
        None
    }
}

/// Pairs a Swiss event's next round (its games numbered from `first`) and writes its
/// pairings and bye to the event's journal, from which a resume pairs no round again.
fn swiss_round(
    sw: &mut state::SwissState,
    cfg: &ServeConfig,
    standings: &mut Standings,
    first: u32,
    journal: &mut EventJournal,
) -> Result<Vec<GameSpec>, ServeError> {
    let games = sw.next_round(cfg, standings, first);
    journal.write(&serde_json::json!({
        "round": sw.round,
        "pairings": games,
        "bye": sw.bye,
    }))?;
    Ok(games)
}

/// The games waiting to begin, and whether more will come (a Swiss event's next round, a
/// knockout's next games).
struct Queue {
    games: VecDeque<GameSpec>,
    /// How many times each game that went back to the queue was tried.
    tries: HashMap<u32, u32>,
    more: bool,
    /// Games claimed and not done.
    under_way: usize,
    /// No game begins any more (a stop, or `stop after-games`).
    closed: bool,
}

/// The games an event schedules: a Swiss event's, from its rounds (each pairs everybody
/// but the bye); a knockout's, one match per player knocked out.
pub fn scheduled_games(cfg: &ServeConfig) -> usize {
    match cfg.format {
        Format::Swiss => cfg.rounds as usize * (cfg.players.len() / 2) * cfg.games as usize,
        // Without the tie-breaks, which only the results tell.
        Format::Knockout => Knockout::games_without_tiebreaks(cfg.players.len(), cfg.games),
        _ => schedule(
            cfg.players.len(),
            cfg.format,
            cfg.rounds,
            cfg.games,
            cfg.openings.len(),
            cfg.repeat,
        )
        .len(),
    }
}

/// The port `argus serve` listens on unless told another address.
pub const DEFAULT_PORT: u16 = 5150;

/// What the games of an event share.
pub(super) struct Event<'a> {
    pub(super) cfg: &'a ServeConfig,
    pub(super) registry: &'a Arc<Registry>,
    /// For each player, its index in the registry when it connects by itself.
    pub(super) remote_index: &'a [Option<usize>],
    /// Where each game under way stands, as of its last move: its game's thread keeps
    /// it, so that a move wakes nobody else; `status` reads it.
    pub(super) boards: Mutex<std::collections::BTreeMap<u32, GameStatus>>,
    /// The views' model of the games (`--http`), when there are views.
    pub(super) live: Option<&'a Arc<Live>>,
    /// The standby stream, when observers may follow.
    pub(super) standby: Option<&'a Arc<Hub>>,
    /// The event stops (Ctrl-C, the console's `stop`, an SPRT bound): set before the
    /// games in `controls` are told, so that a game being started, whose control is
    /// not there yet, sees it once its control is.
    pub(super) stopped: AtomicBool,
    /// Local engines between their games, for their players' next ones.
    pub(super) idle: idle::Idle,
}

impl Event<'_> {
    /// The players' names as of now: a seat's is the name its player took (`seat N`
    /// while free).
    pub(super) fn names(&self) -> Vec<String> {
        self.cfg
            .players
            .iter()
            .zip(self.remote_index)
            .map(|(p, place)| match place {
                Some(place) => self.registry.name(*place),
                None => p.name().to_string(),
            })
            .collect()
    }

    /// The remote players of a game, by their registry indices.
    fn remotes(&self, spec: &GameSpec) -> Vec<usize> {
        [spec.white, spec.black]
            .iter()
            .filter_map(|&i| self.remote_index[i])
            .collect()
    }

    /// The next game whose players are all there, claimed; None when no game is left
    /// or no game begins any more. Waits for players that have not connected yet
    /// (pairing waits for signed-on players).
    fn next_game(&self, pending: &Mutex<Queue>) -> Option<GameSpec> {
        loop {
            {
                let mut queue = lock(pending);
                if queue.closed || (queue.games.is_empty() && !queue.more) {
                    return None;
                }
                let ready = queue
                    .games
                    .iter()
                    .position(|spec| self.registry.claim(&self.remotes(spec)));
                if let Some(at) = ready {
                    queue.under_way += 1;
                    return queue.games.remove(at);
                }
            }
            self.registry.wait(Duration::from_millis(200));
        }
    }

    /// Whether the event stops (Ctrl-C, the console's `stop`, an SPRT bound).
    pub(super) fn stopping(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Gives a game's remote players back.
    fn release(&self, spec: &GameSpec) {
        for i in self.remotes(spec) {
            self.registry.release(i);
        }
    }
}

/// The control channels of the games under way, by game number.
type Controls = Arc<Mutex<HashMap<u32, GameControl>>>;

/// What the event's thread asks of a game under way.
struct GameControl {
    /// The game's control channel (its mediator's).
    tx: Sender<Control>,
    /// The stops of its client sessions when they run on the game's own thread (a
    /// local game, `local.rs`): that thread may be held by an engine's restart, so an
    /// event's stop fires them too, which ends the engine's waits.
    local_stops: Vec<Stop>,
    /// Wakes a local game's thread, which waits in `poll` (`local.rs`), once it is
    /// told something.
    #[cfg(unix)]
    waker: Option<local::Waker>,
}

impl GameControl {
    /// Tells the game's mediator `control`, and wakes it.
    fn send(&self, control: Control) {
        let _ = self.tx.send(control);
        #[cfg(unix)]
        if let Some(waker) = &self.waker {
            waker.wake();
        }
    }

    /// The game stops (to be resumed): its mediator is told first.
    fn stop(&self) {
        self.send(Control::Stop);
        for stop in &self.local_stops {
            stop.fire(StopReason::Disconnect);
        }
    }
}

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
        encounter: None,
    }
}
