//! The UCI engine adapter: plays the client's side of a game with an engine that speaks
//! the Universal Chess Interface (Stockfish and most modern engines).
//!
//! [`UciEngine`] starts the engine as a child process ([`EngineProcess`]), shakes hands
//! (`uci`/`uciok`, `setoption`, `isready`/`readyok`), and on each turn sends the game's
//! start position and its moves (so the engine sees repetitions) and a `go` built from
//! the clocks or from the fixed [`Limit`]. The engine's last scored `info` line becomes
//! the reply's analysis (`ce`, `acd`, `acs`, `acn`, `pv`), and its `bestmove` the move.
//!
//! Every wait for the engine has a deadline (see [`UciTimeouts`]); an engine that
//! crashes, stalls or answers nonsense makes [`Engine::think`] fail, and the protocol
//! driver reports a fault and restarts it. Every wait also ends when the client's
//! [`Stop`] fires, and [`Engine::quit`] sends `stop` and `quit` and kills an engine that
//! has not quit within [`QUIT_GRACE`]. UCI has no draw offers: a pending offer is
//! declined by moving.
//!
//! No time control makes the adapter send `go infinite` (the engine would never move
//! by itself): an untimed game (TimeControl `-`) or an unknown time control gets
//! `go movetime` [`DEFAULT_MOVETIME`].

use std::time::{Duration, Instant};

use compact_str::{CompactString, ToCompactString};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move, Position};
use smallvec::smallvec;

use super::engine_process::{EngineProcess, QUIT_GRACE};
use super::{Decision, Engine, EngineError, Limit, Stop, Turn, TurnClocks};
use crate::epd::{Operand, Operands};

/// The search time used when the game is untimed (or its time control unknown) and no
/// [`Limit`] was given: `go movetime 1000`.
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(1000);

/// The most moves of the engine's principal variation put in the reply's `pv`, which
/// keeps the record well within its length limit.
pub const MAX_PV_LEN: usize = 32;

/// How long [`UciEngine`] waits for its engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UciTimeouts {
    /// For `uciok` after `uci` and `readyok` after the options, as the engine starts
    /// (10 s).
    pub handshake: Duration,
    /// For `readyok` after `ucinewgame` (10 s).
    pub new_game: Duration,
    /// For `readyok` after any other `isready` (10 s).
    pub ping: Duration,
    /// The least time over the side to move's remaining time allowed for `bestmove`;
    /// the allowance is the larger of this and a tenth of the remaining time (2 s).
    pub clock_margin: Duration,
    /// The time over a fixed (or the default) move time allowed for `bestmove` (5 s).
    pub movetime_margin: Duration,
    /// The time allowed for `bestmove` with a node or depth limit (60 s).
    pub fixed_search: Duration,
    /// How long to wait for `bestmove` after sending `stop` to an engine that missed
    /// its deadline (1 s).
    pub stop_grace: Duration,
}

impl Default for UciTimeouts {
    fn default() -> UciTimeouts {
        UciTimeouts {
            handshake: Duration::from_secs(10),
            new_game: Duration::from_secs(10),
            ping: Duration::from_secs(10),
            clock_margin: Duration::from_secs(2),
            movetime_margin: Duration::from_secs(5),
            fixed_search: Duration::from_secs(60),
            stop_grace: Duration::from_secs(1),
        }
    }
}

/// A UCI engine running as a child process.
#[derive(Debug)]
pub struct UciEngine {
    command: String,
    /// The folder it works in (`dir=`), when not argus's.
    dir: Option<std::path::PathBuf>,
    /// Lines sent as it starts, before `uci` (cutechess-cli's `initstr=`).
    init: Vec<String>,
    options: Vec<(String, String)>,
    limit: Option<Limit>,
    timeouts: UciTimeouts,
    /// The running engine; `None` only after a restart failed.
    process: Option<EngineProcess>,
    /// The engine's `id name`, or its command when it gave none.
    name: String,
    /// The client's stop, which ends every wait for the engine.
    stop: Option<Stop>,
    /// The last `position` command.
    position: PositionCommand,
    /// The turn under way.
    thinking: Option<Thinking>,
    /// Sent `isready` ([`Engine::begin_new_game`]) and not yet heard `readyok`.
    unready: bool,
    /// The checks of its options and PVs, when asked ([`UciEngine::start_in`]).
    pv_check: Option<pv_check::PvCheck>,
    /// What its replies report besides the usual analysis, when asked
    /// ([`UciEngine::report_detail`]): the patterns of the lines kept.
    detail: Option<Vec<regex::Regex>>,
    /// With the PV checks: the game's positions so far, kept from turn to turn.
    history: pv_check::History,
    /// The variant of the games (Chess960: `UCI_Chess960` set before `ucinewgame`,
    /// castling written as the king taking its rook), and what `UCI_Chess960` was last
    /// set to.
    variant: crate::core::Variant,
    chess960_sent: bool,
}

/// A turn under way: what the engine said of its search, and its deadline.
#[derive(Debug)]
struct Thinking {
    search: Search,
    /// How long `bestmove` may take after `go`.
    allowance: Duration,
    /// When the engine is sent `stop` (or, once it was, given up).
    deadline: Instant,
    /// Whether `stop` was sent.
    stopped: bool,
    /// `position` and `go`, held until the engine's `readyok`.
    held: Option<[String; 2]>,
    /// With the PV checks: the game's history and the search's `info` lines with a PV.
    checked: Option<(Vec<u64>, Vec<String>)>,
    /// When `go` was sent.
    started: Instant,
    /// With the detail asked for: the search's output lines kept.
    kept: Option<detail::KeptLines>,
}

impl UciEngine {
    /// Starts `command` (split as [`EngineProcess::spawn`] does), waits for `uciok`,
    /// sets each option with `setoption name N value V` (`setoption name N` when the
    /// value is empty, for button options), and waits for `readyok`. With `limit`,
    /// every search uses it instead of the clocks.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Start`] when the engine cannot be run or does not
    /// complete the handshake within the deadline.
    pub fn start(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
    ) -> Result<UciEngine, EngineError> {
        UciEngine::start_with(command, options, limit, UciTimeouts::default())
    }

    /// As [`UciEngine::start`], with other deadlines.
    ///
    /// # Errors
    ///
    /// As [`UciEngine::start`].
    pub fn start_with(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
        timeouts: UciTimeouts,
    ) -> Result<UciEngine, EngineError> {
        UciEngine::start_in(command, None, &[], options, limit, timeouts, None)
    }

    /// As [`UciEngine::start_with`], the engine working in `dir` when given (as
    /// [`EngineProcess::spawn_in`] starts it), and sent the lines of `init` as it starts,
    /// before `uci`; with `check`, its options and every search's PVs are checked as
    /// fastchess checks them ([`pv_check`]).
    ///
    /// # Errors
    ///
    /// As [`UciEngine::start`].
    pub fn start_in(
        command: &str,
        dir: Option<&std::path::Path>,
        init: &[String],
        options: &[(String, String)],
        limit: Option<Limit>,
        timeouts: UciTimeouts,
        check: Option<pv_check::PvCheck>,
    ) -> Result<UciEngine, EngineError> {
        let mut engine = UciEngine {
            command: command.to_string(),
            dir: dir.map(std::path::Path::to_path_buf),
            init: init.to_vec(),
            options: options.to_vec(),
            limit,
            timeouts,
            process: None,
            name: command.to_string(),
            stop: None,
            position: PositionCommand::default(),
            thinking: None,
            unready: false,
            pv_check: check,
            detail: None,
            history: pv_check::History::default(),
            variant: crate::core::Variant::Standard,
            chess960_sent: false,
        };
        engine.launch()?;
        Ok(engine)
    }

    /// Makes every reply report `detail` too: the selective depth, speed, hash use and
    /// tablebase hits of the scored line, the time the engine said it searched, and
    /// the last line of each search that matches each of `detail`'s patterns
    /// ([`detail`]); the scored line is then the last exact one, as fastchess takes it.
    ///
    /// # Errors
    ///
    /// A pattern that is not a regular expression.
    pub fn report_detail(&mut self, detail: &detail::Detail) -> Result<(), String> {
        self.detail = Some(detail.compile()?);
        Ok(())
    }

    /// Sends `setoption name UCI_Chess960 value true` before the first Chess960 game
    /// (and `false` before a standard game after one), as fastchess and cutechess-cli
    /// do; a restarted engine hears it again.
    fn announce_variant(&mut self) -> Result<(), EngineError> {
        let chess960 = !self.variant.is_standard();
        if chess960 != self.chess960_sent {
            let line = format!("setoption name UCI_Chess960 value {chess960}");
            self.process()?.send(&line)?;
            self.chess960_sent = chess960;
        }
        Ok(())
    }

    /// Spawns the engine and shakes hands with it.
    fn launch(&mut self) -> Result<(), EngineError> {
        let mut process = EngineProcess::spawn_in(&self.command, self.dir.as_deref(), &self.init)?;
        if let Some(stop) = &self.stop {
            process.watch(stop);
        }
        let name = handshake(
            &mut process,
            &self.options,
            self.timeouts.handshake,
            self.pv_check.as_ref(),
        )
        .map_err(|e| match e {
            EngineError::Interrupted => EngineError::Interrupted,
            EngineError::Failed(reason)
            | EngineError::Timeout(reason)
            | EngineError::Start { reason, .. } => EngineError::Start {
                command: self.command.clone(),
                reason,
            },
        })?;
        if let Some(name) = name {
            self.name = name;
        }
        log::info!("UCI engine {:?} is ready ({})", self.name, self.command);
        self.process = Some(process);
        // A new process knows nothing of the variant yet.
        self.chess960_sent = false;
        Ok(())
    }

    fn process(&mut self) -> Result<&mut EngineProcess, EngineError> {
        self.process
            .as_mut()
            .ok_or_else(|| EngineError::Failed(format!("{} is not running", self.command)))
    }

    /// Sends `isready` and waits for `readyok`.
    fn sync(&mut self) -> Result<(), EngineError> {
        let wait = self.timeouts.ping;
        let process = self.process()?;
        is_ready(process, wait)
    }

    /// How long `bestmove` may take after `go`.
    fn search_allowance(&self, turn: &Turn<'_>) -> Duration {
        let t = &self.timeouts;
        match (self.limit, &turn.clocks) {
            (Some(Limit::MoveTime(d)), _) => d.saturating_add(t.movetime_margin),
            (Some(Limit::Nodes(_) | Limit::Depth(_)), _) => t.fixed_search,
            (None, Some(clocks)) => {
                let left = *clocks.remaining.get(turn.position.turn());
                left.saturating_add(t.clock_margin.max(left / 10))
            }
            (None, None) => DEFAULT_MOVETIME.saturating_add(t.movetime_margin),
        }
    }
}

impl UciEngine {
    /// Takes one line of the engine's during a turn: the decision once it is its
    /// `bestmove`.
    fn take_line(&mut self, turn: &Turn<'_>, line: &str) -> Option<Result<Decision, EngineError>> {
        let thinking = self.thinking.as_mut()?;
        let mut words = line.split_whitespace();
        let first = words.next();
        if let Some(held) = &thinking.held {
            if first == Some("readyok") {
                let [position, go] = held;
                let sent = match self.process.as_mut() {
                    Some(process) => process.send_all(&[position, go]),
                    None => Err(EngineError::Failed(format!(
                        "{} is not running",
                        self.command
                    ))),
                };
                self.unready = false;
                thinking.held = None;
                thinking.deadline = deadline_after(thinking.allowance);
                thinking.started = Instant::now();
                if let Err(e) = sent {
                    self.thinking = None;
                    return Some(Err(e));
                }
            }
            return None;
        }
        if let (Some(kept), Some(patterns)) = (&mut thinking.kept, &self.detail) {
            kept.see(patterns, line);
        }
        match first {
            Some("bestmove") => {
                let best = words.next().unwrap_or("");
                let thinking = self.thinking.take();
                if let (Some(check), Some((keys, infos))) = (
                    &self.pv_check,
                    thinking.as_ref().and_then(|t| t.checked.as_ref()),
                ) {
                    report_pvs(check, turn, keys, infos, &self.position.line, best);
                    if check.latency
                        && let Some(t) = &thinking
                    {
                        let elapsed = t.started.elapsed().as_millis();
                        let reported = pv_check::reported_time(infos).unwrap_or(0);
                        log::info!(
                            target: pv_check::LATENCY_TARGET,
                            "Engine {} latency: {}ms (elapsed: {elapsed}, reported: {reported})",
                            check.name,
                            elapsed as i128 - i128::from(reported)
                        );
                    }
                }
                let (search, kept) = thinking.map(|t| (t.search, t.kept)).unwrap_or_default();
                let mv = best
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|uci| uci.to_move(turn.position).ok());
                Some(match mv {
                    Some(mv) => Ok(Decision::Move {
                        mv,
                        offer_draw: false,
                        claim_draw: false,
                        analysis: search.analysis(turn.position, mv, kept.as_ref()),
                    }),
                    None if turn.position.legal_moves().is_empty() => {
                        Err(EngineError::Failed("no legal move to play".to_string()))
                    }
                    None => Err(EngineError::Failed(format!(
                        "bestmove {best:?} is not a legal move"
                    ))),
                })
            }
            Some("info") => {
                thinking.search.update(line);
                // fastchess keeps the lines with a score, with a PV or not.
                if let Some((_, infos)) = &mut thinking.checked
                    && line.contains(" score ")
                {
                    infos.push(line.to_string());
                }
                None
            }
            _ => None,
        }
    }

    /// The turn's deadline passed: the engine is sent `stop`, and given up once its
    /// grace after `stop` passed too.
    fn past_deadline(&mut self) -> Option<Result<Decision, EngineError>> {
        let stop_grace = self.timeouts.stop_grace;
        let command = self.command.clone();
        let thinking = self.thinking.as_mut()?;
        if thinking.held.is_some() {
            self.thinking = None;
            return Some(Err(EngineError::Failed(format!(
                "{command} did not answer isready within {:.1} s",
                self.timeouts.new_game.as_secs_f64()
            ))));
        }
        if thinking.stopped {
            let allowance = thinking.allowance;
            self.thinking = None;
            return Some(Err(EngineError::Failed(format!(
                "{command} gave no bestmove within {:.1} s, nor {:.1} s after stop",
                allowance.as_secs_f64(),
                stop_grace.as_secs_f64()
            ))));
        }
        log::warn!(
            "{command} did not answer within {:.1} s; sending stop",
            thinking.allowance.as_secs_f64()
        );
        thinking.stopped = true;
        thinking.deadline = deadline_after(stop_grace);
        if let Err(e) = self.process().and_then(|p| p.send("stop")) {
            self.thinking = None;
            return Some(Err(e));
        }
        None
    }
}

/// Sends `uci`, returns the engine's `id name` once `uciok` came, then sets the options
/// and waits for `readyok`.
fn handshake(
    process: &mut EngineProcess,
    options: &[(String, String)],
    wait: Duration,
    check: Option<&pv_check::PvCheck>,
) -> Result<Option<String>, EngineError> {
    process.send("uci")?;
    let deadline = deadline_after(wait);
    let mut name = None;
    let mut declared = Vec::new();
    process.recv_until(deadline, |line| {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("id"), Some("name")) => {
                let rest: Vec<&str> = words.collect();
                if !rest.is_empty() {
                    name = Some(rest.join(" "));
                }
                false
            }
            (Some("option"), _) => {
                if check.is_some() {
                    declared.extend(pv_check::declared(line));
                }
                false
            }
            (Some("uciok"), _) => true,
            _ => false,
        }
    })?;
    // fastchess sets Threads first, and only what the engine declares, as it allows.
    let mut ordered: Vec<&(String, String)> = options.iter().collect();
    if check.is_some() {
        ordered.sort_by_key(|(option, _)| option != "Threads");
    }
    for (option, value) in ordered {
        if let Some(check) = check {
            match pv_check::setoption(check, &declared, option, value) {
                Ok(Some(line)) => process.send(&line)?,
                Ok(None) => {}
                Err(finding) => log::warn!(target: pv_check::TARGET, "{finding}"),
            }
        } else if value.is_empty() {
            process.send(&format!("setoption name {option}"))?;
        } else {
            process.send(&format!("setoption name {option} value {value}"))?;
        }
    }
    is_ready(process, wait)?;
    Ok(name)
}

/// Sends `isready` and waits `wait` for `readyok`.
fn is_ready(process: &mut EngineProcess, wait: Duration) -> Result<(), EngineError> {
    process.send("isready")?;
    process.recv_until(deadline_after(wait), |line| line.trim() == "readyok")?;
    Ok(())
}

/// The instant `wait` from now, or a day from now when that cannot be represented.
fn deadline_after(wait: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(Duration::from_secs(86_400)))
        .unwrap_or(now)
}

impl Engine for UciEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.announce_variant()?;
        self.process()?.send("ucinewgame")?;
        self.sync()
    }

    fn set_variant(&mut self, variant: crate::core::Variant) -> Result<(), EngineError> {
        self.variant = variant;
        self.position.variant = variant;
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        self.begin_think(turn)?;
        loop {
            let deadline = self
                .thinking
                .as_ref()
                .map_or_else(Instant::now, |t| t.deadline);
            match self.process()?.recv(deadline) {
                Ok(line) => {
                    if let Some(answer) = self.take_line(turn, &line) {
                        return answer;
                    }
                }
                Err(_) if Instant::now() >= deadline => {
                    if let Some(answer) = self.past_deadline() {
                        return answer;
                    }
                }
                Err(e) => {
                    self.thinking = None;
                    return Err(e);
                }
            }
        }
    }

    fn pollable(&self) -> bool {
        cfg!(unix)
    }

    fn begin_new_game(&mut self) -> Result<(), EngineError> {
        self.announce_variant()?;
        self.process()?.send_all(&["ucinewgame", "isready"])?;
        self.unready = true;
        Ok(())
    }

    fn begin_think(&mut self, turn: &Turn<'_>) -> Result<(), EngineError> {
        // A position without a legal move (which a referee never asks about: the game
        // is over) is told apart only when the engine's answer is not a move, rather
        // than by generating the moves of every turn.
        if turn.draw_offered {
            log::debug!("UCI engines cannot accept draws: declining by moving");
        }
        self.position.build(turn);
        let go = go_command(self.limit, turn.clocks.as_ref());
        let allowance = self.search_allowance(turn);
        let mut thinking = Thinking {
            search: Search::default(),
            allowance,
            deadline: deadline_after(allowance),
            stopped: false,
            held: None,
            checked: self
                .pv_check
                .is_some()
                .then(|| (self.history.keys(turn).to_vec(), Vec::new())),
            started: Instant::now(),
            kept: self.detail.as_ref().map(|_| detail::KeptLines::default()),
        };
        #[cfg(unix)]
        if self.unready {
            // The readyok may be there already.
            while self.unready
                && let Some(line) = self.process()?.try_recv(true)?
            {
                self.unready = line.trim() != "readyok";
            }
        }
        if self.unready {
            // `position` and `go` follow the engine's readyok.
            thinking.deadline = deadline_after(self.timeouts.new_game);
            thinking.held = Some([self.position.line.clone(), go]);
        } else {
            // Sent from the kept command itself: a long game's command is not copied.
            let position = std::mem::take(&mut self.position.line);
            let sent = self
                .process()
                .and_then(|process| process.send_all(&[&position, &go]));
            self.position.line = position;
            sent?;
        }
        self.thinking = Some(thinking);
        Ok(())
    }

    fn poll_think(
        &mut self,
        turn: &Turn<'_>,
        readable: bool,
    ) -> Option<Result<Decision, EngineError>> {
        #[cfg(unix)]
        {
            let mut read = readable;
            loop {
                let line = match self
                    .process()
                    .and_then(|p| p.try_recv(std::mem::take(&mut read)))
                {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    Err(e) => {
                        self.thinking = None;
                        return Some(Err(e));
                    }
                };
                if let Some(answer) = self.take_line(turn, &line) {
                    return Some(answer);
                }
            }
            if self
                .thinking
                .as_ref()
                .is_some_and(|t| Instant::now() >= t.deadline)
            {
                return self.past_deadline();
            }
            None
        }
        #[cfg(not(unix))]
        {
            let _ = readable;
            Some(self.think(turn))
        }
    }

    fn wake_at(&self) -> Option<Instant> {
        self.thinking.as_ref().map(|t| t.deadline)
    }

    #[cfg(unix)]
    fn output_fd(&self) -> Option<std::os::fd::RawFd> {
        self.process.as_ref().and_then(EngineProcess::output_fd)
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        if let Some(mut process) = self.process.take() {
            process.kill();
        }
        self.thinking = None;
        self.unready = false;
        self.launch()?;
        self.new_game()
    }

    fn game_over(&mut self, result: Option<&str>) {
        log::debug!(
            "UCI engine {:?}: game over ({})",
            self.name,
            result.unwrap_or("*")
        );
    }

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
        if let Some(process) = self.process.as_mut() {
            process.watch(stop);
        }
    }

    fn quit(&mut self) {
        if let Some(process) = self.process.as_mut() {
            process.quit(&["stop", "quit"], QUIT_GRACE);
        }
    }

    fn running(&mut self) -> bool {
        self.process.as_mut().is_some_and(EngineProcess::running)
    }

    fn abandon_think(&mut self) -> bool {
        self.stop = None;
        let Some(process) = self.process.as_mut() else {
            return false;
        };
        process.unwatch();
        let Some(thinking) = self.thinking.take() else {
            return true;
        };
        let deadline = deadline_after(QUIT_GRACE);
        if thinking.held.is_some() {
            // `position` and `go` were held for the readyok: only that is owed.
            let ready = process
                .recv_until(deadline, |line| line.trim() == "readyok")
                .is_ok();
            self.unready = !ready;
            return ready;
        }
        process.send("stop").is_ok()
            && process
                .recv_until(deadline, |line| {
                    line.split_whitespace().next() == Some("bestmove")
                })
                .is_ok()
    }
}

/// Logs what the PV checks find in a search from `turn` (its `info` lines with a PV,
/// `keys` the game's history) that ended with `best`, to [`pv_check::TARGET`].
fn report_pvs(
    check: &pv_check::PvCheck,
    turn: &Turn<'_>,
    keys: &[u64],
    infos: &[String],
    position_command: &str,
    best: &str,
) {
    let legal = best
        .parse::<UciMove>()
        .ok()
        .is_some_and(|u| u.to_move(turn.position).is_ok());
    if !legal {
        let shown = if best.is_empty() { "<none>" } else { best };
        log::warn!(target: pv_check::TARGET, "Warning; Illegal move {shown} played by {}", check.name);
    }
    for info in infos {
        if let Some(finding) = pv_check::check_info(check, turn, keys, position_command, info) {
            log::warn!(target: pv_check::TARGET, "{finding}");
        }
    }
    if let Some(finding) = pv_check::check_bestmove(check, infos, position_command, best) {
        log::warn!(target: pv_check::TARGET, "{finding}");
    }
}

/// The `position` command for the turn: the game's start (`startpos` when it is the
/// standard position) and its moves. When the moves do not lead from the start to the
/// position (which the driver never lets happen), the position alone is sent.
#[cfg(test)]
fn position_command(turn: &Turn<'_>) -> String {
    PositionCommand::default().build(turn).to_string()
}

/// The last `position` command, kept so that the next one of the same game (two plies
/// on) costs only its new moves: a whole game's commands cost what its moves do, not
/// the square of them.
#[derive(Debug, Default)]
struct PositionCommand {
    /// The variant, which says how castling is written (Chess960's king takes its rook).
    variant: crate::core::Variant,
    /// The start the command is from.
    start: Option<Chess>,
    /// The history its moves are of ([`Turn::history`]), how many there are, and the
    /// position they lead to.
    history: u64,
    moves: usize,
    end: Option<Chess>,
    line: String,
}

impl PositionCommand {
    /// The command for `turn` (see `position_command`).
    fn build(&mut self, turn: &Turn<'_>) -> &str {
        let extends = self
            .start
            .as_ref()
            .is_some_and(|start| super::game::same(start, turn.start))
            && turn.history != 0
            && turn.history == self.history
            && turn.moves.len() >= self.moves;
        if !extends {
            let fen = |pos: &Chess| Fen::from_position(pos, EnPassantMode::Legal).to_string();
            self.line = if fen(turn.start) == fen(&Chess::default()) {
                "position startpos".to_string()
            } else {
                format!("position fen {}", fen(turn.start))
            };
            self.start = Some(turn.start.clone());
            self.end = Some(turn.start.clone());
            self.moves = 0;
            self.history = turn.history;
        }
        let mut end = self.end.take().unwrap_or_else(|| turn.start.clone());
        for &m in &turn.moves[self.moves..] {
            // A turn's moves are legal from its start (the client's board takes each
            // only after its own test), and an extended command's are those of the same
            // history: tested again only when the command is built anew.
            if !extends && !end.is_legal(m) {
                self.start = None;
                break;
            }
            end.play_unchecked(m);
            self.line
                .push_str(if self.moves == 0 { " moves " } else { " " });
            // Written in place: no string of its own for every move.
            UciMove::from_move(m, self.variant.castling_mode()).append_to_string(&mut self.line);
            self.moves += 1;
        }
        if self.start.is_none() || !super::game::same(&end, turn.position) {
            log::warn!("the game's moves do not lead to its position: sending the position alone");
            self.start = None;
            self.line = format!(
                "position fen {}",
                Fen::from_position(turn.position, EnPassantMode::Legal)
            );
            return &self.line;
        }
        self.end = Some(end);
        &self.line
    }
}

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

/// The `go` command: the fixed limit when there is one, else the clocks, else
/// [`DEFAULT_MOVETIME`].
fn go_command(limit: Option<Limit>, clocks: Option<&TurnClocks>) -> String {
    match (limit, clocks) {
        (Some(Limit::Nodes(n)), _) => format!("go nodes {n}"),
        (Some(Limit::Depth(d)), _) => format!("go depth {d}"),
        (Some(Limit::MoveTime(t)), _) => format!("go movetime {}", millis(t).max(1)),
        (None, Some(c)) => {
            // Sent every turn: written without a formatter.
            let mut line = String::with_capacity(64);
            let mut buf = itoa::Buffer::new();
            for (word, value) in [
                ("go wtime ", c.remaining.white),
                (" btime ", c.remaining.black),
                (" winc ", c.increment.white),
                (" binc ", c.increment.black),
            ] {
                line.push_str(word);
                line.push_str(buf.format(millis(value)));
            }
            if let Some(n) = c.moves_to_go.filter(|n| *n > 0) {
                line.push_str(" movestogo ");
                line.push_str(buf.format(n));
            }
            line
        }
        (None, None) => format!("go movetime {}", millis(DEFAULT_MOVETIME)),
    }
}

/// A score from an `info` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Score {
    /// Centipawns from the side to move's view.
    Cp(i64),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i64),
}

impl Score {
    /// The EPD `ce` (spec 6.7): centipawns kept within ±32000, a mate in N as
    /// 32767 - (2N - 1), being mated in N as -32767 + 2N.
    fn ce(self) -> i64 {
        match self {
            Score::Cp(cp) => cp.clamp(-32000, 32000),
            Score::Mate(n) if n > 0 => 32767 - (2 * n.min(383) - 1),
            Score::Mate(n) => -32767 + 2 * n.saturating_abs().min(383),
        }
    }
}

/// What an `info` line says, as far as the analysis needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Info {
    depth: Option<u64>,
    nodes: Option<u64>,
    time_ms: Option<u64>,
    multipv: Option<u64>,
    score: Option<Score>,
    /// Whether the score is a `lowerbound` or an `upperbound`.
    bound: bool,
    pv: Vec<String>,
    seldepth: Option<u64>,
    nps: Option<u64>,
    hashfull: Option<u64>,
    tbhits: Option<u64>,
}

/// The keywords of an `info` line, which end a `pv`.
const INFO_KEYWORDS: &[&str] = &[
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
];

impl Info {
    /// Reads an `info` line; what it cannot read it leaves out.
    fn parse(line: &str) -> Info {
        let mut info = Info::default();
        let mut words = line.split_whitespace().peekable();
        if words.peek() == Some(&"info") {
            words.next();
        }
        let number = |w: Option<&str>| w.and_then(|w| w.parse::<u64>().ok());
        while let Some(word) = words.next() {
            match word {
                "depth" => info.depth = number(words.next()),
                "nodes" => info.nodes = number(words.next()),
                "time" => info.time_ms = number(words.next()),
                "multipv" => info.multipv = number(words.next()),
                "seldepth" => info.seldepth = number(words.next()),
                "nps" => info.nps = number(words.next()),
                "hashfull" => info.hashfull = number(words.next()),
                "tbhits" => info.tbhits = number(words.next()),
                "lowerbound" | "upperbound" => info.bound = true,
                "score" => {
                    let kind = words.next();
                    let value = words.next().and_then(|w| w.parse::<i64>().ok());
                    info.score = match (kind, value) {
                        (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                        (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                        _ => None,
                    };
                }
                "pv" => {
                    info.pv.clear();
                    while let Some(w) = words.next_if(|w| !INFO_KEYWORDS.contains(w)) {
                        info.pv.push(w.to_string());
                    }
                }
                // The rest of the line is free text.
                "string" => break,
                _ => {}
            }
        }
        info
    }
}

/// The engine's search as its `info` lines tell it.
#[derive(Debug, Default)]
struct Search {
    /// The last line with a score (of the first line of a multi-PV search).
    scored: Option<Info>,
    /// The last such line whose score is not a bound.
    exact: Option<Info>,
    /// The latest depth, nodes and time of any line.
    latest: Info,
}

impl Search {
    fn update(&mut self, line: &str) {
        let info = Info::parse(line);
        if info.multipv.is_some_and(|n| n != 1) {
            return;
        }
        self.latest.depth = info.depth.or(self.latest.depth);
        self.latest.nodes = info.nodes.or(self.latest.nodes);
        self.latest.time_ms = info.time_ms.or(self.latest.time_ms);
        if info.score.is_some() {
            if !info.bound {
                self.exact = Some(info.clone());
            }
            self.scored = Some(info);
        }
    }

    /// The analysis operations for a reply playing `mv` from `pos`: `ce`, `acd`,
    /// `acs`, `acn` and `pv`, each when known. The `pv` is given only when it starts
    /// with the move played.
    ///
    /// With `kept` (the detail asked for: [`UciEngine::report_detail`]), the scored
    /// line is the last exact one if any, and the reply also has `seldepth`, `nps`,
    /// `hashfull`, `tbhits` (of that line), `acms` (the last time the engine gave) and
    /// `eline` (the kept lines).
    fn analysis(
        &self,
        pos: &Chess,
        mv: Move,
        kept: Option<&detail::KeptLines>,
    ) -> Vec<(&'static str, Operands)> {
        let empty = Info::default();
        let best = match kept {
            Some(_) => self.exact.as_ref().or(self.scored.as_ref()),
            None => self.scored.as_ref(),
        }
        .unwrap_or(&empty);
        let int = |v: u64| Operand::Integer(i64::try_from(v).unwrap_or(i64::MAX));
        let mut ops = Vec::new();
        if let Some(score) = best.score {
            ops.push(("ce", smallvec![Operand::Integer(score.ce())]));
        }
        if let Some(depth) = best.depth.or(self.latest.depth) {
            ops.push(("acd", smallvec![int(depth)]));
        }
        if let Some(ms) = best.time_ms.or(self.latest.time_ms) {
            ops.push(("acs", smallvec![int(ms / 1000)]));
        }
        if let Some(nodes) = best.nodes.or(self.latest.nodes) {
            ops.push(("acn", smallvec![int(nodes)]));
        }
        let pv = pv_to_san(pos, &best.pv);
        if pv.first().is_some_and(|(m, _)| *m == mv) {
            ops.push((
                "pv",
                pv.into_iter().map(|(_, san)| san_operand(san)).collect(),
            ));
        }
        if let Some(kept) = kept {
            for (op, value) in [
                ("seldepth", best.seldepth),
                ("nps", best.nps),
                ("hashfull", best.hashfull),
                ("tbhits", best.tbhits),
                ("acms", self.latest.time_ms),
            ] {
                if let Some(v) = value {
                    ops.push((op, smallvec![int(v)]));
                }
            }
            let lines: Operands = kept.lines().map(Operand::lossy_string).collect();
            if !lines.is_empty() {
                ops.push(("eline", lines));
            }
        }
        ops
    }
}

/// Plays the UCI moves of `pv` on a copy of `pos`, up to the first one that is not
/// legal and at most [`MAX_PV_LEN`] of them, and returns each with its SAN.
fn pv_to_san(pos: &Chess, pv: &[String]) -> Vec<(Move, CompactString)> {
    let mut pos = pos.clone();
    let mut out = Vec::new();
    for text in pv.iter().take(MAX_PV_LEN) {
        let Some(m) = text
            .parse::<UciMove>()
            .ok()
            .and_then(|uci| uci.to_move(&pos).ok())
        else {
            break;
        };
        let san = crate::epd::play_san(&mut pos, m);
        out.push((m, san.to_compact_string()));
    }
    out
}

/// A SAN move as an operand that reads back unchanged.
fn san_operand(san: CompactString) -> Operand {
    Operand::unquoted(&san).unwrap_or(Operand::Move(san))
}

pub mod detail;
pub mod pv_check;

#[cfg(test)]
mod tests;
