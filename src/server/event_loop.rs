//! The event's thread: it opens the event (its checks, the registry of the players that
//! connect by themselves and its listener, `event.jsonl` new or resumed), starts
//! `--concurrency` workers that play the games, and then handles what they send, one
//! method for each kind of message (`Msg`), and what the console or Ctrl-C asks,
//! until the last game ends or the event stops.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use shakmaty::Chess;

use super::control::{GameStatus, Requests, Status};
use super::engines::{EngineSpec, check_engines};
use super::entrant::Entrant;
use super::error::{ServeError, io_err};
use super::event_log::{Entry, EventJournal, GameLine, Line, Settings, TimeUseLine};
use super::files::{GamesPgn, StandingsFiles, stem};
use super::game::{game_config, play};
use super::idle::Idle;
use super::listen;
use super::outputs::Outputs;
use super::progress::{Progress, Summary};
use super::queue::{Queue, fixed_schedule, scheduled_games, swiss_round};
use super::registry::{Place, Registry};
use super::resume;
use super::settings::{DEFAULT_PORT, ServeConfig, Setup, check_players};
use super::shared::{Controls, Event, Msg, lock};
use super::state::EventState;
use crate::core::referee::{REFCOM, STOP_REASON, command_record};
use crate::core::{GameReport, Notice, Referee};
use crate::mediator::Control;
use crate::tournament::{GameSpec, Sprt, SprtDecision};
use crate::watch::live::Live;

/// How many times a game that could not begin for want of descriptors or threads is
/// tried before it fails.
pub const BEGIN_TRIES: u32 = 20;
/// How long a worker waits after such a game went back to the queue.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// Runs the event of `cfg`: a new one, or, with the lines of its `event.jsonl` in
/// `resumed`, one that goes on.
pub(super) fn run(
    cfg: &ServeConfig,
    resumed: Option<Vec<Entry>>,
    setup: &Setup<'_>,
    requests: &Requests,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    let live = setup.live;
    let names = check(cfg)?;
    // Tables that cannot be read refuse the event, before its folder is made.
    let tables = cfg
        .tb
        .as_ref()
        .map(crate::tablebase::Tables::open)
        .transpose()
        .map_err(ServeError::Tablebase)?;
    let event_path = cfg.out.join("event.jsonl");
    if resumed.is_none() && event_path.exists() {
        return Err(ServeError::Exists(cfg.out.clone()));
    }
    let games_dir = cfg.out.join("games");
    fs::create_dir_all(&games_dir).map_err(io_err(&games_dir))?;
    let players = Players::of(cfg);
    raise_descriptor_limit(players.remote.len(), cfg.concurrency);
    let registry = Registry::new(
        players.remote,
        players.engines,
        cfg.absent_limit(setup.unattended),
    );
    // Set when the event ends: the listener stops.
    let closing = Arc::new(AtomicBool::new(false));
    if players.remote_index.iter().any(Option::is_some) {
        listen(cfg, setup, &registry, &closing)?;
    }
    let event = Event {
        cfg,
        registry: &registry,
        remote_index: &players.remote_index,
        boards: Mutex::default(),
        live,
        standby: setup.standby,
        stopped: AtomicBool::new(false),
        idle: Idle::new(2 * cfg.concurrency.max(1)),
        tables: tables.as_ref(),
    };
    // The standings, the pairs and the SPRT; a Swiss event pairs each round from the
    // results before it, a knockout each match's next games.
    let mut state = EventState::new(cfg, names.clone());
    let outputs = Outputs::new(cfg);
    let opened = match resumed {
        Some(entries) => {
            let journal = EventJournal::append(&event_path, setup.standby)?;
            reopen(cfg, &entries, journal, &mut state, &outputs, live)?
        }
        None => {
            let journal = EventJournal::create(&event_path, setup.standby)?;
            open(cfg, &names, journal, &mut state, progress)?
        }
    };
    let pending = Mutex::new(Queue {
        games: opened.queue,
        tries: HashMap::new(),
        more: state.more_to_come(cfg),
        under_way: 0,
        closed: false,
    });
    let (msgs_tx, msgs) = crossbeam_channel::unbounded::<Msg>();
    let controls: Controls = Arc::default();
    let mut event_loop = EventLoop {
        cfg,
        event: &event,
        pending: &pending,
        controls: &controls,
        requests,
        progress,
        live,
        stopping: false,
        draining: false,
        sprt_done: decided(&state.sprt),
        state,
        journal: opened.journal,
        games: opened.games,
        played: opened.played,
        failed: Vec::new(),
        scheduled: scheduled_games(cfg),
        player_of: players.player_of,
        outputs,
        // Opened after a resume has finished what a dead referee owed it.
        games_pgn: GamesPgn::open(&cfg.out.join("games.pgn"))?,
        // Rewritten at most every few seconds while games end, and at the end.
        standings_files: StandingsFiles::new(&cfg.out),
    };
    let under_way = &opened.under_way;
    std::thread::scope(|scope| -> Result<(), ServeError> {
        for worker in 0..cfg.concurrency.max(1) {
            let (pending, msgs_tx, controls, event) =
                (&pending, msgs_tx.clone(), &controls, &event);
            std::thread::Builder::new()
                .name(format!("argus-serve-{worker}"))
                .spawn_scoped(scope, move || {
                    work(event, pending, controls, &msgs_tx, under_way);
                })
                .map_err(io_err(&cfg.out))?;
        }
        drop(msgs_tx);
        event_loop.run(&msgs)
    })?;
    event_loop.finish(&closing)
}

/// Checks the settings before any game begins: the players, an SPRT's and a knockout's
/// settings, every game's settings, and every engine, started once. Returns the players'
/// names.
fn check(cfg: &ServeConfig) -> Result<Vec<String>, ServeError> {
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
    if cfg.format == crate::tournament::Format::Knockout && cfg.rounds != 1 {
        return Err(ServeError::Format(
            "knockout: its rounds follow from the players (one match per pairing, the winner goes on): give no --rounds",
        ));
    }
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
    check_engines(&engines, cfg.variant).map_err(ServeError::Engines)?;
    Ok(names)
}

/// A first game, to check the settings every game takes.
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

/// The event's players as the registry takes them.
struct Players {
    /// The players that connect by themselves, by their index among the players: their
    /// place in the registry.
    remote_index: Vec<Option<usize>>,
    /// And the other way: the player of each place of the registry.
    player_of: Vec<usize>,
    /// The registry's places.
    remote: Vec<Place>,
    /// The names of the engines argus starts.
    engines: Vec<String>,
}

impl Players {
    fn of(cfg: &ServeConfig) -> Players {
        let mut players = Players {
            remote_index: vec![None; cfg.players.len()],
            player_of: Vec::new(),
            remote: Vec::new(),
            engines: Vec::new(),
        };
        for (i, p) in cfg.players.iter().enumerate() {
            let place = match p {
                Entrant::Engine(e) => {
                    players.engines.push(e.name.clone());
                    continue;
                }
                Entrant::Remote(r) => Place::Listed(r.clone()),
                Entrant::Seat(s) => Place::Seat(s.clone()),
            };
            players.remote_index[i] = Some(players.remote.len());
            players.player_of.push(i);
            players.remote.push(place);
        }
        players
    }
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

/// Binds the address the players connect to, says it, and starts the listener's
/// thread, which stops once `closing` is set.
fn listen(
    cfg: &ServeConfig,
    setup: &Setup<'_>,
    registry: &Arc<Registry>,
    closing: &Arc<AtomicBool>,
) -> Result<(), ServeError> {
    let addr = setup
        .listen
        .or(cfg.listen)
        .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)));
    let listener =
        std::net::TcpListener::bind(addr).map_err(|source| ServeError::Listen { addr, source })?;
    // The port taken, which `--listen HOST:0` leaves to the system.
    let taken = listener.local_addr().unwrap_or(addr);
    println!(
        "argus serve: players connect to {taken} (argus client --connect {taken} --name NAME)"
    );
    if !addr.ip().is_loopback() {
        log::warn!("argus serve: listening on {addr}, not only this machine, as asked");
    }
    let (registry, closing) = (Arc::clone(registry), Arc::clone(closing));
    let max_clients = cfg.max_clients.unwrap_or(listen::MAX_CLIENTS);
    std::thread::Builder::new()
        .name("argus-serve-listen".into())
        .spawn(move || listen::serve(listener, registry, closing, max_clients))
        .map_err(io_err(&cfg.out))?;
    Ok(())
}

/// An event's journal open, and where the event stands.
struct Opened {
    journal: EventJournal,
    /// Every game scheduled so far, by number.
    games: Vec<GameSpec>,
    /// The games with a result.
    played: usize,
    /// The games to go on with from their journals (under way when the event stopped).
    under_way: HashSet<u32>,
    /// The games to play.
    queue: VecDeque<GameSpec>,
}

/// Begins a new event: its settings first in its journal, and a Swiss event's first
/// round or a knockout's first games paired.
fn open(
    cfg: &ServeConfig,
    names: &[String],
    mut journal: EventJournal,
    state: &mut EventState,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Opened, ServeError> {
    let mut games = fixed_schedule(cfg);
    journal.write(&Line::Settings(Settings::new(cfg, names, &games)))?;
    if let Some(sw) = &mut state.swiss {
        games = swiss_round(sw, cfg, &mut state.standings, 1, &mut journal)?;
    }
    if let Some(k) = &mut state.knockout {
        let step = k.start();
        if let Some(batch) = &step.batch {
            journal.write(&Line::batch(batch))?;
            games.clone_from(&batch.games);
        }
        for m in &step.decided {
            progress(Progress::Knockout(m));
        }
    }
    Ok(Opened {
        journal,
        queue: games.iter().cloned().collect(),
        games,
        played: 0,
        under_way: HashSet::new(),
    })
}

/// Goes on with an event from what its journal's lines `entries` say.
fn reopen(
    cfg: &ServeConfig,
    entries: &[Entry],
    mut journal: EventJournal,
    state: &mut EventState,
    outputs: &Outputs,
    live: Option<&Arc<Live>>,
) -> Result<Opened, ServeError> {
    let games = fixed_schedule(cfg);
    let rebuilt = resume::rebuild(cfg, entries, games, state, &mut journal, outputs)?;
    StandingsFiles::new(&cfg.out).write(state, live)?;
    log::info!(
        "argus serve: resuming {}: {} game(s) with a result, {} under way, {} to play",
        cfg.out.display(),
        rebuilt.played,
        rebuilt.under_way.len(),
        rebuilt.queue.len() - rebuilt.under_way.len()
    );
    Ok(Opened {
        journal,
        games: rebuilt.games,
        played: rebuilt.played,
        under_way: rebuilt.under_way,
        queue: rebuilt.queue,
    })
}

/// A worker: plays the games of the queue one after another until none is left or no
/// game begins any more, and tells the event's thread as they begin and end.
fn work(
    event: &Event<'_>,
    pending: &Mutex<Queue>,
    controls: &Controls,
    msgs_tx: &Sender<Msg>,
    under_way: &HashSet<u32>,
) {
    while let Some(spec) = event.next_game(pending) {
        let _ = msgs_tx.send(Msg::Started(spec.clone()));
        lock(&event.boards).insert(spec.number, GameStatus::new(spec.clone()));
        let go_on = under_way.contains(&spec.number);
        let outcome = play(event, &spec, controls, msgs_tx, go_on);
        lock(&event.boards).remove(&spec.number);
        event.release(&spec);
        let mut queue = lock(pending);
        let tries = queue.tries.get(&spec.number).map_or(1, |t| t + 1);
        let outcome = match outcome {
            // Not begun for want of descriptors or threads: games that end give them
            // back, and it is tried again.
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
}

/// Whether the SPRT, if any, reached a bound.
fn decided(sprt: &Option<Sprt>) -> bool {
    sprt.as_ref()
        .is_some_and(|t| t.decision() != SprtDecision::Continue)
}

/// What the event's thread keeps as the games begin and end: one method for each kind
/// of message from the workers (`on_*`), and one for each thing the console or Ctrl-C
/// asks.
struct EventLoop<'s, 'e> {
    cfg: &'e ServeConfig,
    event: &'s Event<'e>,
    /// The games waiting to begin.
    pending: &'s Mutex<Queue>,
    /// The control channels of the games under way.
    controls: &'s Controls,
    requests: &'s Requests,
    progress: &'s mut dyn FnMut(Progress<'_>),
    live: Option<&'e Arc<Live>>,
    /// The event stops: no game begins any more, and those under way stop.
    stopping: bool,
    /// No game begins any more, and those under way finish.
    draining: bool,
    /// The SPRT reached a bound.
    sprt_done: bool,
    /// The standings, the pairs, the SPRT, a Swiss's rounds and a knockout's bracket.
    state: EventState,
    journal: EventJournal,
    /// Every game scheduled so far, by number.
    games: Vec<GameSpec>,
    /// The games with a result.
    played: usize,
    /// The games that could not be played, by number.
    failed: Vec<u32>,
    /// The games the event schedules.
    scheduled: usize,
    /// The player of each place of the registry.
    player_of: Vec<usize>,
    outputs: Outputs,
    games_pgn: GamesPgn,
    standings_files: StandingsFiles,
}

impl EventLoop<'_, '_> {
    /// Handles the workers' messages and the console's requests until every worker is
    /// done.
    fn run(&mut self, msgs: &Receiver<Msg>) -> Result<(), ServeError> {
        loop {
            self.standings_files.tick(&self.state, self.live);
            self.record_seats()?;
            self.on_stop();
            self.on_drain();
            self.on_status();
            self.on_game_commands();
            let msg = match msgs.recv_timeout(Duration::from_millis(100)) {
                Ok(msg) => msg,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            match msg {
                Msg::Started(spec) => self.on_started(&spec),
                Msg::Notice(number, notice) => self.on_notice(number, &notice),
                Msg::Requeued(spec, why, tries) => self.on_requeued(&spec, &why, tries),
                Msg::Done(spec, outcome) => self.on_done(&spec, outcome)?,
            }
        }
    }

    /// Seats taken: their names in the event's journal before their players are
    /// paired, so that a resumed event has them.
    fn record_seats(&mut self) -> Result<(), ServeError> {
        for (place, seat) in self.event.registry.seats_to_record() {
            let player = self.player_of[place];
            self.journal.write(&Line::Seat {
                seat: seat.number,
                player,
                name: &seat.name,
                taken_by: seat.taken,
            })?;
            self.state.standings.rename(player, &seat.name);
            self.standings_files.changed();
            self.event.registry.recorded(place);
            (self.progress)(Progress::Seated(player, &seat));
        }
        Ok(())
    }

    /// The event stops (Ctrl-C, the console's `stop`, the SPRT at a bound), once: no
    /// game begins any more; the games under way stop as the serial referee stops, and
    /// so does a game being started (`play` looks at `stopped` once its control is in
    /// `controls`).
    fn on_stop(&mut self) {
        let asked = self.requests.stopping() || self.sprt_done;
        if asked && !self.stopping {
            self.stopping = true;
            self.event.stopped.store(true, Ordering::SeqCst);
            lock(self.pending).closed = true;
            self.event.registry.wake();
            for control in lock(self.controls).values() {
                control.stop();
            }
        }
    }

    /// `stop after-games`, once: no game begins any more; the games under way finish.
    fn on_drain(&mut self) {
        if self.requests.draining() && !self.draining {
            self.draining = true;
            let mut queue = lock(self.pending);
            queue.closed = true;
            let left = queue.under_way;
            drop(queue);
            self.event.registry.wake();
            (self.progress)(Progress::Draining(left));
        }
    }

    /// `status`: where the event stands.
    fn on_status(&mut self) {
        if self.requests.take_status() {
            let games_under_way = lock(&self.event.boards).values().cloned().collect();
            (self.progress)(Progress::Status(&Status {
                games: games_under_way,
                done: self.played,
                scheduled: self.scheduled.max(self.games.len()),
                draining: lock(self.pending).closed,
            }));
        }
    }

    /// A console command for one game (`game 3 pause`, or `pause` when one game is
    /// under way), passed to its mediator.
    fn on_game_commands(&mut self) {
        for (number, command) in self.requests.take_game_commands() {
            let controls = lock(self.controls);
            let target = match number {
                Some(n) => controls.get_key_value(&n),
                None if controls.len() == 1 => controls.iter().next(),
                None => None,
            };
            match target {
                Some((&n, control)) => {
                    (self.progress)(Progress::Console(&format!("game {n}: {command}")));
                    control.send(Control::Command(command));
                }
                None => (self.progress)(Progress::Console(&match (number, controls.len()) {
                    (Some(n), _) => format!("game {n} is not under way: nothing done"),
                    (None, 0) => "no game is under way: nothing done".to_string(),
                    (None, k) => {
                        format!("{k} games are under way: say which, as in `game N {command}`")
                    }
                })),
            }
        }
    }

    /// A game begins.
    fn on_started(&mut self, spec: &GameSpec) {
        (self.progress)(Progress::Started(spec));
    }

    /// A notice from a game's referee.
    fn on_notice(&mut self, number: u32, notice: &Notice) {
        if let Some(spec) = self.games.get(number as usize - 1) {
            (self.progress)(Progress::Notice(spec, notice));
        }
    }

    /// A game that could not begin went back to the queue.
    fn on_requeued(&mut self, spec: &GameSpec, why: &str, tries: u32) {
        log::warn!(
            "game {}: {why}: back in the queue (tried {tries} of {BEGIN_TRIES} times)",
            spec.number
        );
    }

    /// A game is over: with a result, stopped with the event, or not played. A
    /// knockout's bracket and a Swiss event's rounds move with it.
    fn on_done(
        &mut self,
        spec: &GameSpec,
        outcome: Result<Option<GameReport>, String>,
    ) -> Result<(), ServeError> {
        // A game that ended, with its result (None: it could not be played).
        let ended = match outcome {
            Ok(Some(report)) => {
                self.on_result(spec, &report)?;
                Some(Some(report.result))
            }
            Ok(None) => None,
            Err(why) => {
                self.on_failure(spec, &why)?;
                Some(None)
            }
        };
        if let Some(result) = ended {
            self.knockout_moves(spec.number, result)?;
        }
        self.swiss_moves()
    }

    /// A game with a result: in the event's journal first (a resume appends to
    /// `games.pgn` what a crash kept from it), then in the PGN and the copies, the
    /// standings, the SPRT and the ratings.
    fn on_result(&mut self, spec: &GameSpec, report: &GameReport) -> Result<(), ServeError> {
        let cfg = self.cfg;
        self.played += 1;
        self.journal.write(&Line::Game(GameLine {
            game: spec.number,
            round: spec.round,
            white: &report.white,
            black: &report.black,
            result: report.result.to_string(),
            termination: report.termination.to_string(),
            reason: &report.reason,
            time_use: TimeUseLine::pair(&report.time_use),
            // A forfeit before the game began has no journal.
            journal: Some(format!("games/{}.jsonl", stem(spec)))
                .filter(|j| cfg.out.join(j).exists()),
        }))?;
        self.games_pgn.append(&report.pgn);
        self.outputs.game(&stem(spec), &report.pgn);
        let pair_done = self.state.count(
            spec,
            (
                report.result,
                &report.termination.to_string(),
                &report.time_use,
            ),
        );
        (self.progress)(Progress::Finished(spec, report, &self.state.standings));
        if pair_done && let Some(sprt) = &self.state.sprt {
            (self.progress)(Progress::Sprt(sprt));
            if decided(&self.state.sprt) {
                self.sprt_done = true;
            }
        }
        if cfg.rating_interval > 0 && self.played.is_multiple_of(cfg.rating_interval as usize) {
            (self.progress)(Progress::Ratings(self.played, &self.state.ratings()));
        }
        self.standings_files.changed();
        Ok(())
    }

    /// A game that could not be played.
    fn on_failure(&mut self, spec: &GameSpec, why: &str) -> Result<(), ServeError> {
        self.failed.push(spec.number);
        self.journal.write(&Line::Failed {
            game: spec.number,
            failed: why,
        })?;
        (self.progress)(Progress::Failed(spec, why));
        Ok(())
    }

    /// A knockout's bracket moves with every game that ends, stopping or not, so that
    /// the journal's results rebuild it; what it adds waits for a resume when no game
    /// begins any more.
    fn knockout_moves(
        &mut self,
        number: u32,
        result: Option<crate::core::game::GameResult>,
    ) -> Result<(), ServeError> {
        let Some(k) = &mut self.state.knockout else {
            return Ok(());
        };
        let step = k.record(number, result);
        for m in &step.decided {
            (self.progress)(Progress::Knockout(m));
        }
        let mut queue = lock(self.pending);
        if let Some(batch) = step.batch {
            self.journal.write(&Line::batch(&batch))?;
            if !queue.closed {
                queue.games.extend(batch.games.iter().cloned());
            }
            self.games.extend(batch.games);
        }
        queue.more = !k.over() && !queue.closed;
        drop(queue);
        self.event.registry.wake();
        if !step.decided.is_empty() {
            self.standings_files.changed();
        }
        Ok(())
    }

    /// A Swiss event pairs its next round once the last game of a round is done.
    fn swiss_moves(&mut self) -> Result<(), ServeError> {
        let cfg = self.cfg;
        let Some(sw) = &mut self.state.swiss else {
            return Ok(());
        };
        sw.left = sw.left.saturating_sub(1);
        let mut queue = lock(self.pending);
        if sw.left == 0 && sw.round < cfg.rounds && !queue.closed {
            let first = self.games.len() as u32 + 1;
            let next = swiss_round(sw, cfg, &mut self.state.standings, first, &mut self.journal)?;
            queue.games.extend(next.iter().cloned());
            self.games.extend(next);
        }
        queue.more = sw.round < cfg.rounds && !queue.closed;
        drop(queue);
        self.event.registry.wake();
        Ok(())
    }

    /// The event's end: the players that connected told, the standings written for
    /// the last time, and what the event came to.
    fn finish(mut self, closing: &AtomicBool) -> Result<Summary, ServeError> {
        // Stopped: by a stop, or after the games under way with games left to play.
        let queue = lock(self.pending);
        let stopped = self.stopping
            || (self.draining
                && (!queue.games.is_empty() || queue.more || self.state.more_to_come(self.cfg)));
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
        let registry = self.event.registry;
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
        self.standings_files.write(&self.state, self.live)?;
        Ok(Summary {
            ratings: self.state.ratings(),
            standings: self.state.standings,
            played: self.played,
            scheduled: self.games.len(),
            failed: self.failed,
            stopped,
            sprt: self.state.sprt,
            knockout: self.state.knockout,
        })
    }
}
