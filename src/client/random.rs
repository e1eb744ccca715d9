//! The built-in random mover: a legal move chosen by a seeded generator, after an
//! optional pause. It exercises the whole protocol without an engine installed.

use std::time::Duration;

use shakmaty::Position;

use super::{Decision, Engine, EngineError, Stop, Turn};

/// Plays a uniformly random legal move.
pub struct RandomEngine {
    rng: fastrand::Rng,
    think: Duration,
    stop: Option<Stop>,
}

impl RandomEngine {
    /// A random mover seeded with `seed` that waits `think` before each move.
    pub fn new(seed: u64, think: Duration) -> RandomEngine {
        RandomEngine {
            rng: fastrand::Rng::with_seed(seed),
            think,
            stop: None,
        }
    }
}

impl Engine for RandomEngine {
    fn name(&self) -> String {
        "argus random mover".to_string()
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        if !self.think.is_zero() {
            match &self.stop {
                Some(stop) if stop.sleep(self.think) => return Err(EngineError::Interrupted),
                Some(_) => {}
                None => std::thread::sleep(self.think),
            }
        }
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

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
    }
}
