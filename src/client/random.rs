//! The built-in random mover: a legal move chosen by a seeded generator, after an
//! optional pause. It exercises the whole protocol without an engine installed.

use std::time::{Duration, Instant};

use shakmaty::Position;

use super::{Decision, Engine, EngineError, Stop, Turn};

/// Plays a uniformly random legal move.
pub struct RandomEngine {
    rng: fastrand::Rng,
    think: Duration,
    stop: Option<Stop>,
    /// When the turn begun by [`Engine::begin_think`] is over.
    due: Option<Instant>,
}

impl RandomEngine {
    /// A random mover seeded with `seed` that waits `think` before each move.
    pub fn new(seed: u64, think: Duration) -> RandomEngine {
        RandomEngine {
            rng: fastrand::Rng::with_seed(seed),
            think,
            stop: None,
            due: None,
        }
    }
}

impl Engine for RandomEngine {
    fn name(&self) -> String {
        "argus random mover".to_string()
    }

    /// Any variant: its moves are the position's legal moves (castling read as SAN's
    /// `O-O`, or as the king's move or the king taking its rook).
    fn set_variant(&mut self, _variant: crate::core::Variant) -> Result<(), EngineError> {
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        if !self.think.is_zero() {
            match &self.stop {
                Some(stop) if stop.sleep(self.think) => return Err(EngineError::Interrupted),
                Some(_) => {}
                None => std::thread::sleep(self.think),
            }
        }
        self.pick(turn)
    }

    fn pollable(&self) -> bool {
        true
    }

    fn begin_think(&mut self, _turn: &Turn<'_>) -> Result<(), EngineError> {
        self.due = Some(Instant::now() + self.think);
        Ok(())
    }

    fn poll_think(
        &mut self,
        turn: &Turn<'_>,
        _readable: bool,
    ) -> Option<Result<Decision, EngineError>> {
        if self.due.is_some_and(|due| Instant::now() < due) {
            return None;
        }
        self.due = None;
        Some(self.pick(turn))
    }

    fn wake_at(&self) -> Option<Instant> {
        self.due
    }

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
    }
}

impl RandomEngine {
    /// A legal move, at random.
    fn pick(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        let moves = turn.position.legal_moves();
        if moves.is_empty() {
            return Err(EngineError::Failed("no legal move to play".into()));
        }
        let mv = moves[self.rng.usize(..moves.len())];
        Ok(Decision::Move {
            mv,
            offer_draw: false,
            claim_draw: false,
            analysis: Vec::new(),
        })
    }
}
