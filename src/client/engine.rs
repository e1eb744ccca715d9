//! What the client asks of whoever chooses the moves: the [`Engine`] trait that the
//! random mover, the person at the keyboard and the UCI and CECP adapters implement,
//! and the vocabulary of a turn (the position and clocks it is given, a fixed
//! [`Limit`], the [`Decision`] it comes to, an [`EngineError`]).

use std::time::{Duration, Instant};

use shakmaty::{ByColor, Chess, Move};

use super::stop::Stop;
use crate::epd::Operands;

/// The clocks as the player to move sees them, rebuilt at the adapter from the game's
/// TimeControl (sent by the referee in `inform`) and the consumed times of `cc`, never
/// guessed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnClocks {
    /// Time left for White and Black.
    pub remaining: ByColor<Duration>,
    /// The increment each side gets after its next move.
    pub increment: ByColor<Duration>,
    /// Moves the side to move must make before the next period's time is added, when
    /// the current period has a move count.
    pub moves_to_go: Option<u32>,
}

/// What the engine is asked to decide on.
pub struct Turn<'a> {
    /// The position to move from.
    pub position: &'a Chess,
    /// The position the game (as far as the client knows it) started from.
    pub start: &'a Chess,
    /// The moves from `start` to `position`, so that engines see the history (and so
    /// repetitions).
    pub moves: &'a [Move],
    /// Which history `moves` are of: two turns with the same nonzero `history` are of
    /// one game's moves, the later's extending the earlier's, so that an adapter can
    /// send only the new ones without comparing the whole game again. 0: unknown.
    pub history: u64,
    /// The clocks; `None` when the game is untimed or its time control is unknown.
    pub clocks: Option<TurnClocks>,
    /// Whether the opponent offered a draw with its last move.
    pub draw_offered: bool,
}

/// A fixed search limit that replaces the clock (`argus client --limit`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Limit {
    /// Search this many nodes.
    Nodes(u64),
    /// Search to this depth in plies.
    Depth(u32),
    /// Search for this long.
    MoveTime(Duration),
}

impl std::str::FromStr for Limit {
    type Err = String;

    /// Reads `nodes=N`, `depth=N` or `movetime=MS`.
    fn from_str(text: &str) -> Result<Limit, String> {
        let bad = || format!("{text:?}: expected nodes=N, depth=N or movetime=MS");
        let (kind, value) = text.split_once('=').ok_or_else(bad)?;
        let n: u64 = value.trim().parse().map_err(|_| bad())?;
        match kind.trim() {
            "nodes" if n > 0 => Ok(Limit::Nodes(n)),
            "depth" if n > 0 => Ok(Limit::Depth(u32::try_from(n).map_err(|_| bad())?)),
            "movetime" if n > 0 => Ok(Limit::MoveTime(Duration::from_millis(n))),
            _ => Err(bad()),
        }
    }
}

/// The engine's decision.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Play a move.
    Move {
        /// The move.
        mv: Move,
        /// Offer a draw with it.
        offer_draw: bool,
        /// Claim a draw with it (after it is played).
        claim_draw: bool,
        /// Analysis operations for the reply (`ce`, `acd`, `acn`, `acs`, `pv`).
        analysis: Vec<(&'static str, Operands)>,
    },
    /// Resign.
    Resign,
    /// Accept the pending draw offer.
    AcceptDraw,
    /// Claim a draw without moving.
    ClaimDraw,
}

/// An error of an engine.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine could not be started.
    #[error("engine {command}: cannot start: {reason}")]
    Start {
        /// The command line.
        command: String,
        /// Why.
        reason: String,
    },
    /// The engine failed: it crashed, stalled past its deadline, or answered nonsense.
    /// The client reports a fault to the referee, restarts the engine and signs on
    /// again.
    #[error("engine: {0}")]
    Failed(String),
    /// The engine did not answer by a deadline (a kind of failure that adapters may
    /// first try to cure, by `stop` or `?`).
    #[error("engine: {0}")]
    Timeout(String),
    /// The client's [`Stop`] fired while the engine was waited for: the client is
    /// leaving, and the engine is not at fault.
    #[error("engine: interrupted, the client is leaving")]
    Interrupted,
}

/// Something that chooses moves. Adapters for UCI and CECP engines, the person at the
/// keyboard and the random mover implement it; the protocol driver [`run`](crate::client::run) is the same
/// for all. It works on a thread of its own while the driver reads the line.
pub trait Engine: Send {
    /// The engine's name, for `tcsi`.
    fn name(&self) -> String;
    /// A new game begins.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when the engine cannot get ready.
    fn new_game(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// The variant of the games from the next one on (the client learns it from the
    /// referee's `reset`), told before [`Engine::new_game`]. An engine that plays
    /// standard chess only (the default) refuses Chess960.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Failed`] when the engine cannot play `variant`.
    fn set_variant(&mut self, variant: crate::core::Variant) -> Result<(), EngineError> {
        if variant.is_standard() {
            Ok(())
        } else {
            Err(EngineError::Failed(format!(
                "{} does not play {variant}",
                self.name()
            )))
        }
    }
    /// Decides what to do on this turn. Every wait for the engine has a deadline.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when the engine cannot answer.
    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError>;
    /// Whether the engine can think without holding its caller: [`Engine::begin_think`]
    /// starts a turn and [`Engine::poll_think`] takes its answer once it is there, so
    /// that one thread can drive both engines of a game and its referee
    /// (`argus serve`'s local games, on Unix). Engines that cannot are called with
    /// [`Engine::think`] on a thread of their own.
    fn pollable(&self) -> bool {
        false
    }
    /// A new game begins, without waiting for the engine to be ready where it can: a
    /// pollable engine's next turn waits for that (UCI: `ucinewgame` and `isready` are
    /// sent, and `position` and `go` follow its `readyok`).
    ///
    /// # Errors
    ///
    /// As [`Engine::new_game`].
    fn begin_new_game(&mut self) -> Result<(), EngineError> {
        self.new_game()
    }
    /// Starts deciding on this turn (a pollable engine; see [`Engine::pollable`]).
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when the engine cannot be asked.
    fn begin_think(&mut self, _turn: &Turn<'_>) -> Result<(), EngineError> {
        Err(EngineError::Failed(format!(
            "{} cannot think without waiting",
            self.name()
        )))
    }
    /// The decision on the turn begun by [`Engine::begin_think`] (the same `turn`), once
    /// it is there, without waiting: `None` while the engine thinks. `readable` says
    /// whether its output has something to read (a `poll` of [`Engine::output_fd`]).
    /// It is called again at [`Engine::wake_at`] at the latest, for its deadlines.
    fn poll_think(
        &mut self,
        _turn: &Turn<'_>,
        _readable: bool,
    ) -> Option<Result<Decision, EngineError>> {
        Some(Err(EngineError::Failed("no turn was begun".into())))
    }
    /// When [`Engine::poll_think`] must be called even if the engine says nothing (the
    /// end of a think of a fixed length, a deadline).
    fn wake_at(&self) -> Option<Instant> {
        None
    }
    /// The descriptor whose readability means the engine said something (its output).
    #[cfg(unix)]
    fn output_fd(&self) -> Option<std::os::fd::RawFd> {
        None
    }
    /// Starts the engine afresh after a failure.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when it cannot be restarted.
    fn restart(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// The game ended with `result` (`1-0`, `0-1`, `1/2-1/2`, `*`), when known.
    fn game_over(&mut self, _result: Option<&str>) {}
    /// Hands the engine the client's [`Stop`]: once it fires, every wait of the engine
    /// (its search above all) ends at once with [`EngineError::Interrupted`].
    fn watch(&mut self, _stop: &Stop) {}
    /// Ends the engine for good, quickly, as the client leaves: stops its search, asks
    /// it to quit, and kills it when it has not quit within
    /// [`super::engine_process::QUIT_GRACE`].
    fn quit(&mut self) {}
    /// Gives up the turn begun by [`Engine::begin_think`] (its game was ended from
    /// outside, by adjudication), the client's stop no longer watched, and waits up to
    /// [`super::engine_process::QUIT_GRACE`] for the engine to be idle. Returns whether
    /// it is, ready for another game; an engine that cannot say stays unused.
    fn abandon_think(&mut self) -> bool {
        false
    }
    /// Whether the engine's process is still running (one kept between games may have
    /// exited meanwhile). An engine of no process of its own always is.
    fn running(&mut self) -> bool {
        true
    }
}

/// Which engines a session leaves running at its end
/// (`LocalSession::finish_keeping`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// None: the engine is ended (a client's).
    No,
    /// One that is not thinking.
    Idle,
    /// One that is thinking too, once it gives up its turn ([`Engine::abandon_think`]):
    /// its game was ended from outside.
    EvenThinking,
}
