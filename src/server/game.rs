//! One game of `argus serve`: its referee and mediator, its journal, and its two
//! players: local engines as `argus client` sessions on in-memory lines, or remote
//! players on their TCP connections.

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::Sender;

use super::control::GameStatus;
use super::entrant::Entrant;
use super::files::stem;
use super::settings::ServeConfig;
use super::shared::{Controls, Event, GameControl, Msg, lock};
use crate::client::{self, ClientOptions, Engine, Stop, StopReason};
use crate::core::game::GameResult;
use crate::core::supervisor::Command;
use crate::core::{GameReport, MatchConfig, Notice, Referee};
use crate::mediator::journal::{self, Event as JournalEvent, Journal};
use crate::mediator::{self, Control, Eol, Line, Records, Watcher};
use crate::tournament::{Adjudicator, GameSpec};
use crate::transport::Wire;
use crate::transport::memory;
use shakmaty::Color;

/// The settings of one game: a match of one game between its White (port a) and its
/// Black (port b); `names` are the players' names as of now (a seat's, the name its
/// player took).
pub(super) fn game_config(
    cfg: &ServeConfig,
    names: &[String],
    spec: &GameSpec,
    hosted: bool,
) -> MatchConfig {
    let name = |i: usize| names[i].clone();
    MatchConfig {
        event: cfg.event.clone(),
        site: cfg.site.clone(),
        date: cfg.date.clone(),
        round: Some(spec.round_tag()),
        names: [Some(name(spec.white)), Some(name(spec.black))],
        port_labels: [
            label(&cfg.players[spec.white], &name(spec.white)),
            label(&cfg.players[spec.black], &name(spec.black)),
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
        hosted,
        time_margin: [spec.white, spec.black].map(|i| match &cfg.players[i] {
            Entrant::Engine(engine) => engine.time_margin,
            Entrant::Remote(_) | Entrant::Seat(_) => Duration::ZERO,
        }),
        time_odds: [spec.white, spec.black].map(|i| match &cfg.players[i] {
            Entrant::Engine(engine) => engine
                .time_control
                .clone()
                .filter(|tc| *tc != cfg.time_control),
            Entrant::Remote(_) | Entrant::Seat(_) => None,
        }),
        wire: Default::default(),
        keep_info: cfg.keep_info,
        variant: cfg.variant,
    }
}

/// Passes a game's notices to the event's thread, and adjudicates by the engines'
/// scores.
pub(super) struct GameWatcher<'a> {
    number: u32,
    msgs: &'a Sender<Msg>,
    /// Where the games under way stand: a move is written here, not sent.
    boards: &'a Mutex<std::collections::BTreeMap<u32, GameStatus>>,
    /// The views' model, and the game's round in it.
    live: Option<&'a Arc<crate::watch::live::Live>>,
    round: u32,
    /// The game's PGN Round tag, as the views show it.
    round_tag: String,
    /// The adjudication counters, when the event adjudicates.
    adjudicator: Option<Adjudicator>,
    /// The game's control channel: a verdict goes to the referee as the supervisor's
    /// `adjudicate`, so that the journal holds it and a replay decides the same.
    control: Sender<Control>,
}

impl Watcher for GameWatcher<'_> {
    fn notice(&mut self, notice: &Notice) {
        if let Some(live) = self.live {
            live.notice_in(self.number, self.round, &self.round_tag, notice);
        }
        if let (
            Some(adjudicator),
            Notice::Moved {
                fullmove,
                color,
                score,
                position,
                ..
            },
        ) = (&mut self.adjudicator, notice)
            && let Some(verdict) = adjudicator.after_move(
                *fullmove,
                *color,
                *score,
                shakmaty::Position::halfmoves(position) == 0,
            )
        {
            let _ = self.control.send(Control::Command(Command::Adjudicate {
                result: verdict.result,
                reason: Some(verdict.reason),
            }));
        }
        if let Notice::Moved {
            fullmove,
            color,
            remaining,
            ..
        } = notice
        {
            // A move wakes no other thread: it is for `status` to read, and for the log.
            if let Some(game) = lock(self.boards).get_mut(&self.number) {
                game.moved(*fullmove, *color, *remaining);
            }
            log::debug!("game {}: {notice}", self.number);
            return;
        }
        let _ = self.msgs.send(Msg::Notice(self.number, notice.clone()));
    }
}

/// Plays one game: starts both engines, joins each to the game's referee by an
/// in-memory line, and runs the mediator with the game's own journal. Returns the
/// game's report (None when the event was stopped during it).
/// What a game's port is called: the engine, or the player over TCP.
fn label(player: &Entrant, name: &str) -> String {
    match player {
        Entrant::Engine(_) => format!("engine {name}"),
        Entrant::Remote(_) | Entrant::Seat(_) => format!("tcp {name}"),
    }
}

/// One side of a game, ready to be joined to the referee.
enum Side {
    /// A local engine, started (or kept from an earlier game), with its client's
    /// options and its player's index.
    Local(
        Box<dyn Engine>,
        ClientOptions,
        #[cfg_attr(not(unix), allow(dead_code))] usize,
    ),
    /// A player over TCP: its line, and its index in the registry for a reconnection.
    Remote(Wire, usize),
}

/// Plays one game: starts its local engines, joins each side to the game's referee
/// (a local engine as an `argus client` session on an in-memory line, a remote player
/// on its connection), and runs the mediator with the game's own journal. Returns the
/// game's report (None when the event was stopped during it).
/// Why a game was not played: what went wrong, and whether it can be tried again (it
/// never began, for want of a descriptor or a thread: it goes back to the queue).
#[derive(Debug)]
pub(super) struct NotPlayed {
    pub(super) why: String,
    pub(super) retry: bool,
}

impl From<String> for NotPlayed {
    fn from(why: String) -> NotPlayed {
        NotPlayed { why, retry: false }
    }
}

impl NotPlayed {
    /// A game that could not begin for `e`: tried again when the system was short of
    /// descriptors, threads or memory, which games that end give back.
    fn begin(e: &io::Error, why: String) -> NotPlayed {
        NotPlayed {
            why,
            retry: short_of_resources(e),
        }
    }
}

/// Whether `e` says the process or the system is out of descriptors, threads or memory
/// for now (EMFILE, ENFILE, EAGAIN, ENOMEM).
pub(super) fn short_of_resources(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(
            e.raw_os_error(),
            Some(libc::EMFILE | libc::ENFILE | libc::EAGAIN | libc::ENOMEM)
        )
    }
    #[cfg(not(unix))]
    {
        e.kind() == io::ErrorKind::OutOfMemory
    }
}

/// A journal error that is the system's error, tried again as [`NotPlayed::begin`].
fn journal_not_played(e: &journal::JournalError) -> NotPlayed {
    match e {
        journal::JournalError::Io { source, .. } => NotPlayed::begin(source, e.to_string()),
        _ => NotPlayed::from(e.to_string()),
    }
}

pub(super) fn play(
    event: &Event<'_>,
    spec: &GameSpec,
    controls: &Controls,
    msgs: &Sender<Msg>,
    go_on: bool,
) -> Result<Option<GameReport>, NotPlayed> {
    let cfg = event.cfg;
    let names = event.names();
    let dir = cfg.out.join("games");
    let journal_path = dir.join(format!("{}.jsonl", stem(spec)));
    let pgn_path = dir.join(format!("{}.pgn", stem(spec)));
    // A game under way when the event stopped goes on from its journal.
    let rebuilt = match go_on.then(|| journal::rebuild(&journal_path)) {
        Some(Ok(rebuilt)) if rebuilt.referee.is_over() => {
            // It ended before the event could record it.
            return Ok(finished_report(spec, &names, &rebuilt));
        }
        Some(Ok(rebuilt)) => Some(rebuilt),
        // Killed before the game's first line was on disk: the game begins anew.
        Some(Err(journal::JournalError::NoSession { .. })) => {
            let _ = std::fs::remove_file(&journal_path);
            None
        }
        Some(Err(e)) => return Err(journal_not_played(&e)),
        None => None,
    };
    // Stopped while this game was being claimed: it does not begin.
    if event.stopping() {
        return Ok(None);
    }
    let mut sides = Vec::with_capacity(2);
    for (i, player) in [spec.white, spec.black].into_iter().enumerate() {
        sides.push(match (&cfg.players[player], event.remote_index[player]) {
            (Entrant::Engine(engine), _) => {
                let seed = u64::from(spec.number) * 2 + i as u64;
                // The player's engine kept from an earlier game, or a new one.
                let kept = engine.reusable().then(|| event.idle.take(player)).flatten();
                let started = match kept.map_or_else(|| engine.start(seed), Ok) {
                    Ok(started) => started,
                    // Stopped while the engine started: the game does not begin.
                    Err(_) if event.stopping() => {
                        return Ok(None);
                    }
                    // An engine that cannot be started forfeits its game, and says so.
                    Err(e) => {
                        let loser = if i == 0 { Color::White } else { Color::Black };
                        let why = format!("{} could not be started ({e}): forfeit", engine.name);
                        return forfeit(spec, cfg, &names, loser, &why, &pgn_path)
                            .map(Some)
                            .map_err(NotPlayed::from);
                    }
                };
                let opts = ClientOptions {
                    name: Some(engine.name.clone()),
                    address: "memory".into(),
                    eol: Eol::Lf,
                    checksum: false,
                    token: None,
                    restarts: Some(engine.restarts),
                };
                Side::Local(started, opts, player)
            }
            // A seat whose player has been gone too long, or a listed player absent
            // past --absent-after, loses its game by forfeit (docs/supervisor.md); a
            // game under way at a resume goes on.
            (_, Some(index))
                if rebuilt.is_none()
                    && let Some(gone) = event.registry.given_up(index) =>
            {
                let loser = if i == 0 { Color::White } else { Color::Black };
                let (state, rule) = if gone.listed {
                    ("absent", " (--absent-after)")
                } else {
                    ("gone", "")
                };
                let why = format!(
                    "{} has been {state} for {} s or more{rule}: forfeit",
                    names[player],
                    gone.after.as_secs()
                );
                return forfeit(spec, cfg, &names, loser, &why, &pgn_path)
                    .map(Some)
                    .map_err(NotPlayed::from);
            }
            (_, Some(index)) => {
                // A line that cannot be had now is a lost line: the referee waits for
                // the player to connect again while its clock runs.
                let wire = event
                    .registry
                    .line(index)
                    .map_err(|e| {
                        let why = format!("{}'s connection: {e}", names[player]);
                        NotPlayed::begin(&e, why)
                    })?
                    .unwrap_or_else(|| {
                        log::warn!(
                            "{} is not connected at the start of its game",
                            names[player]
                        );
                        closed_line()
                    });
                Side::Remote(wire, index)
            }
            (_, None) => {
                return Err(format!("{} has no place in the registry", names[player]).into());
            }
        });
    }
    let hosted = sides.iter().any(|s| matches!(s, Side::Remote(..)));
    let (referee, journal, takeover, config) = match rebuilt {
        Some(rebuilt) => {
            // The views show the game as it stands.
            if let Some(live) = event.live {
                for notice in &rebuilt.takeover.current {
                    live.notice_in(spec.number, spec.round, &spec.round_tag(), notice);
                }
            }
            let config = rebuilt.referee.config().clone();
            let mut journal = Journal::append(&journal_path).map_err(|e| journal_not_played(&e))?;
            if let Some(hub) = event.standby {
                journal.set_tap(hub.tap());
            }
            (rebuilt.referee, journal, Some(rebuilt.takeover), config)
        }
        None => {
            let config = game_config(cfg, &names, spec, hosted);
            let referee = Referee::new(config.clone()).map_err(|e| e.to_string())?;
            let mut journal = Journal::create(&journal_path).map_err(|e| journal_not_played(&e))?;
            if let Some(hub) = event.standby {
                journal.set_tap(hub.tap());
            }
            journal
                .write(&JournalEvent::Session {
                    version: journal::VERSION,
                    argus: env!("CARGO_PKG_VERSION").to_string(),
                    started: journal::now_rfc3339(),
                    ports: config.port_labels.clone(),
                    lines: None,
                    eol: Some("lf".into()),
                    pgn: (!cfg.no_game_pgn).then(|| pgn_path.clone()),
                    config: Box::new(config.clone()),
                })
                .map_err(|e| e.to_string())?;
            (referee, journal, None, config)
        }
    };
    let mut records = Records {
        journal,
        pgn: (!cfg.no_game_pgn).then_some(pgn_path),
    };
    let (control_tx, control) = crossbeam_channel::unbounded();
    // One stop for each side: each session waits on its own (a stop shared by both
    // would have them contend for its channel at every wait).
    let client_stops = [Stop::new(), Stop::new()];
    // Two engines that can be polled play on this thread, beside the referee.
    let local = cfg!(unix)
        && sides
            .iter()
            .all(|side| matches!(side, Side::Local(engine, ..) if engine.pollable()));
    // A local game's thread waits in `poll`: what the event tells it wakes it.
    #[cfg(unix)]
    let wake = match local.then(super::local::wake_pipe).transpose() {
        Ok(wake) => wake,
        Err(e) => {
            // Not begun: a new game's journal holds its session line only, and goes.
            if takeover.is_none() {
                drop(records);
                let _ = std::fs::remove_file(&journal_path);
            }
            return Err(NotPlayed::begin(&e, format!("the game's wake pipe: {e}")));
        }
    };
    lock(controls).insert(
        spec.number,
        GameControl {
            tx: control_tx.clone(),
            // An engine's restart holds this thread: the event's stop ends it.
            local_stops: if local {
                client_stops.to_vec()
            } else {
                Vec::new()
            },
            #[cfg(unix)]
            waker: wake.as_ref().map(|(_, waker)| waker.clone()),
        },
    );
    // The event stopped while this game was being started (its engines starting), before
    // its control was there to be told: it stops now, as the games under way did.
    if event.stopping()
        && let Some(control) = lock(controls).get(&spec.number)
    {
        control.stop();
    }
    let watcher = GameWatcher {
        number: spec.number,
        msgs,
        boards: &event.boards,
        live: event.live,
        round: spec.round,
        round_tag: spec.round_tag(),
        adjudicator: cfg
            .adjudication
            .any()
            .then(|| Adjudicator::new(cfg.adjudication.clone())),
        control: control_tx.clone(),
    };
    // The endgame tables, when the event has them, adjudicate through the same channel.
    let mut watcher =
        crate::tablebase::Adjudicating::new(watcher, event.tables, control_tx.clone(), cfg.variant);
    let options = mediator::RunOptions {
        eol: Eol::Lf,
        resume: takeover,
    };
    #[cfg(unix)]
    if local {
        let mut locals: Vec<(Box<dyn Engine>, ClientOptions, usize)> = sides
            .into_iter()
            .filter_map(|side| match side {
                Side::Local(engine, opts, player) => Some((engine, opts, player)),
                Side::Remote(..) => None,
            })
            .collect();
        // Which engines may be played again (not the random mover: seeded per game).
        let reusable: Vec<bool> = locals
            .iter()
            .map(|(_, _, player)| {
                matches!(&cfg.players[*player], Entrant::Engine(spec) if spec.reusable())
            })
            .collect();
        let mut lines = Vec::with_capacity(2);
        let mut sessions = Vec::with_capacity(2);
        for (i, (engine, opts, _)) in locals.iter_mut().enumerate() {
            let (line, client_end) = direct_line(&config.port_labels[i]);
            lines.push(line);
            sessions.push(crate::client::session::LocalSession::new(
                client_end,
                &mut **engine,
                opts,
                &client_stops[i],
            ));
        }
        let mut pair = super::local::LocalPair {
            sessions,
            woken: wake.map(|(woken, _)| woken),
            control: control_tx.clone(),
            names: [spec.white, spec.black].map(|i| names[i].clone()),
            reported: [false; 2],
        };
        let outcome = mediator::run_with(
            referee,
            two(lines),
            options,
            &mut records,
            &mut watcher,
            control,
            Some(&mut pair),
        );
        for stop in &client_stops {
            stop.fire(StopReason::Disconnect);
        }
        use crate::client::Keep;
        use crate::core::game::Termination;
        // An engine still thinking when its game ended is kept only if the game was
        // ended from outside (adjudicated, or stopped by the supervisor), not by its flag.
        let report = outcome.as_ref().ok().and_then(|o| o.last_game.as_ref());
        let keep = match report.map(|r| r.termination) {
            Some(Termination::Normal | Termination::Adjudication) => Keep::EvenThinking,
            _ => Keep::Idle,
        };
        let mut kept = [false; 2];
        for ((session, kept), reusable) in pair.sessions.into_iter().zip(&mut kept).zip(reusable) {
            let keep = if reusable { keep } else { Keep::No };
            let (outcome, left_running) = session.finish_keeping(keep);
            if let Err(e) = outcome {
                log::debug!("game {}: {e}", spec.number);
            }
            *kept = left_running;
        }
        // An engine left running is its player's for the next game; one that was not
        // has been ended.
        for ((engine, _, player), kept) in locals.into_iter().zip(kept) {
            if kept {
                event.idle.keep(player, engine);
            }
        }
        lock(controls).remove(&spec.number);
        return Ok(outcome.map_err(|e| e.to_string())?.last_game);
    }
    let outcome = std::thread::scope(|scope| {
        let mut lines = Vec::with_capacity(2);
        for (i, side) in sides.into_iter().enumerate() {
            let label = config.port_labels[i].clone();
            match side {
                Side::Local(mut engine, opts, _) => {
                    let (line, client_end) = direct_line(&label);
                    lines.push(line);
                    let client_stop = &client_stops[i];
                    let control = control_tx.clone();
                    scope.spawn(move || {
                        let name = opts.name.clone().unwrap_or_default();
                        match client::run_until(client_end, &mut *engine, &opts, client_stop) {
                            // The engine failed with no restart left: it loses the
                            // game now, rather than on time.
                            Err(client::ClientError::Engine(e)) => {
                                let _ = control.send(super::control::engine_failed(i, &name, &e));
                            }
                            Err(e) => log::debug!("game {}: {name}: {e}", spec.number),
                            Ok(_) => {}
                        }
                    });
                }
                Side::Remote(wire, index) => {
                    let registry = Arc::clone(event.registry);
                    lines.push(Line {
                        label,
                        wire,
                        reopen: Some(Box::new(move || registry.reconnect(index))),
                    });
                }
            }
        }
        let outcome = mediator::run(
            referee,
            two(lines),
            options,
            &mut records,
            &mut watcher,
            control,
        );
        // Local clients leave at the referee's disconnect (a hosted game sends none);
        // after a stop they are told to.
        for stop in &client_stops {
            stop.fire(StopReason::Disconnect);
        }
        outcome
    });
    lock(controls).remove(&spec.number);
    Ok(outcome.map_err(|e| e.to_string())?.last_game)
}

/// A local engine's in-process line called `label`: the referee's end as a line of
/// the game, and the client's end.
fn direct_line(label: &str) -> (Line, memory::ClientEnd) {
    let (referee_end, client_end) = memory::direct_pair();
    let line = Line {
        label: label.to_string(),
        wire: Wire::Direct(referee_end),
        reopen: None,
    };
    (line, client_end)
}

/// A game's two lines, White's first.
fn two(lines: Vec<Line>) -> [Line; 2] {
    match lines.try_into() {
        Ok(lines) => lines,
        Err(_) => unreachable!("two lines"),
    }
}

/// The report of a game one side forfeits before it begins (its engine does not start):
/// a PGN with the tags and the reason, written to the game's own PGN file too.
fn forfeit(
    spec: &GameSpec,
    cfg: &ServeConfig,
    names: &[String],
    loser: Color,
    why: &str,
    pgn_path: &Path,
) -> Result<GameReport, String> {
    let config = game_config(cfg, names, spec, false);
    let result = GameResult::loss_for(loser);
    let [white, black] = [spec.white, spec.black].map(|i| names[i].clone());
    // The tags a game's referee writes, in the same order (crate::core::pgn).
    let mut tags = vec![
        ("Event", config.event.clone()),
        ("Site", config.site.clone()),
        ("Date", config.date.clone()),
        ("Round", spec.round_tag()),
        ("White", white.clone()),
        ("Black", black.clone()),
        ("Termination", "abandoned".to_string()),
        ("TimeControl", config.time_control.to_string()),
    ];
    let mut start = (Color::White, 1);
    if let Some(opening) = config.openings.first() {
        tags.push(("SetUp", "1".into()));
        tags.push(("FEN", opening.fen.clone()));
        if let Ok(fen) = opening.fen.parse::<shakmaty::fen::Fen>() {
            start = (fen.as_setup().turn, fen.as_setup().fullmoves.get());
        }
        let named = opening.tags.iter().map(|(n, v)| (n.as_str(), v.clone()));
        tags.extend(named);
    }
    let pgn = crate::core::pgn::write_game(&crate::core::pgn::PgnGame {
        tags: tags.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        start_turn: start.0,
        start_fullmove: start.1,
        moves: Vec::new(),
        final_comment: Some(why.to_string()),
        result: result.to_string(),
    });
    std::fs::write(pgn_path, &pgn).map_err(|e| format!("{}: {e}", pgn_path.display()))?;
    log::warn!("game {}: {why}", spec.number);
    Ok(GameReport {
        number: spec.number,
        white,
        black,
        result,
        termination: crate::core::game::Termination::Abandoned,
        reason: why.to_string(),
        pgn,
        time_use: Default::default(),
        detail: None,
    })
}

/// The report of a game whose journal shows it ended, from its PGN.
fn finished_report(
    spec: &GameSpec,
    names: &[String],
    rebuilt: &journal::Rebuilt,
) -> Option<GameReport> {
    let pgn = match (
        &rebuilt.takeover.owed.last(),
        &rebuilt.takeover.last_written,
    ) {
        (Some(report), _) => return Some((*report).clone()),
        (None, Some(written)) => written.pgn.clone(),
        (None, None) => return None,
    };
    let tag = |name: &str| {
        pgn.lines()
            .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
            .map(|v| v.trim_end_matches("\"]").to_string())
            .unwrap_or_default()
    };
    let result = GameResult::from_pgn(&tag("Result"));
    Some(GameReport {
        number: spec.number,
        white: names[spec.white].clone(),
        black: names[spec.black].clone(),
        result,
        termination: crate::core::game::Termination::Normal,
        reason: format!("{} (recorded before the event stopped)", tag("Termination")),
        pgn,
        time_use: Default::default(),
        detail: None,
    })
}

/// A line that is down: it reads end of file at once, and its writes go nowhere.
fn closed_line() -> Wire {
    let (referee_end, _) = memory::pair();
    referee_end.into()
}
