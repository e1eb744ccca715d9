//! Local engines between their games.
//!
//! A local engine whose game ended well is left running ([`LocalSession::finish_keeping`])
//! and kept here; the next game of the same player takes it rather than starting the
//! engine again, as cutechess-cli and fastchess reuse theirs. That saves the engine's
//! start-up (its process, its handshake, an NNUE network's load) at every game. A
//! game begins with `ucinewgame` (UCI) or `new` (CECP) either way, and a CECP engine
//! that asks to be started afresh for every game (`feature reuse=0`) is.
//!
//! An engine that failed, stalled or was still thinking when its game ended is never
//! kept, and one that exited while it waited is let go: its next game starts it
//! afresh. At most twice the event's concurrency are kept at once (enough for every
//! game of a round to find its two); one more is ended. The engines left at the
//! event's end are asked to quit.
//!
//! [`LocalSession::finish_keeping`]: crate::client::session::LocalSession::finish_keeping

use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::client::Engine;

/// The engines kept between games, each with its player's index.
pub(crate) struct Idle {
    engines: Mutex<Vec<(usize, Box<dyn Engine>)>>,
    most: usize,
}

impl Idle {
    /// Keeps at most `most` engines at once.
    pub(super) fn new(most: usize) -> Idle {
        Idle {
            engines: Mutex::new(Vec::new()),
            most,
        }
    }

    /// An engine of `player` kept from an earlier game and still running, if there is
    /// one (those that exited meanwhile are let go).
    pub(super) fn take(&self, player: usize) -> Option<Box<dyn Engine>> {
        let mut engines = lock(&self.engines);
        loop {
            let at = engines.iter().rposition(|(p, _)| *p == player)?;
            let (_, mut engine) = engines.swap_remove(at);
            if engine.running() {
                return Some(engine);
            }
            log::info!(
                "{}: exited between games; it is started afresh",
                engine.name()
            );
        }
    }

    /// Keeps `engine`, `player`'s, for its next game; ends it when as many are kept as
    /// may be.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub(super) fn keep(&self, player: usize, mut engine: Box<dyn Engine>) {
        let mut engines = lock(&self.engines);
        if engines.len() < self.most {
            engines.push((player, engine));
        } else {
            drop(engines);
            engine.quit();
        }
    }

    /// How many engines are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.engines).len()
    }
}

impl Drop for Idle {
    /// The event is over: every engine kept is asked to quit.
    fn drop(&mut self) {
        let engines = std::mem::take(self.engines.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (_, mut engine) in engines {
            engine.quit();
        }
    }
}

/// Locks `m`, whether or not a thread panicked while it held it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{Decision, EngineError, Turn};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// An engine that counts its quits, and may have exited.
    struct Counted(Arc<AtomicUsize>, bool);

    impl Engine for Counted {
        fn name(&self) -> String {
            "counted".into()
        }
        fn think(&mut self, _turn: &Turn<'_>) -> Result<Decision, EngineError> {
            Err(EngineError::Failed("not here".into()))
        }
        fn quit(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        fn running(&mut self) -> bool {
            self.1
        }
    }

    #[test]
    fn an_engine_that_exited_while_it_waited_is_let_go() {
        let quits = Arc::new(AtomicUsize::new(0));
        let idle = Idle::new(4);
        idle.keep(0, Box::new(Counted(Arc::clone(&quits), true)));
        idle.keep(0, Box::new(Counted(Arc::clone(&quits), false)));
        // The one that exited is let go; the one still running is taken.
        let taken = idle.take(0);
        assert!(taken.is_some_and(|mut e| e.running()));
        assert!(idle.take(0).is_none());
    }

    #[test]
    fn an_engine_kept_goes_to_its_own_player_and_no_more_are_kept_than_allowed() {
        let quits = Arc::new(AtomicUsize::new(0));
        let engine = || Box::new(Counted(Arc::clone(&quits), true)) as Box<dyn Engine>;
        let idle = Idle::new(2);
        idle.keep(0, engine());
        idle.keep(1, engine());
        // A third is one too many: it is ended.
        idle.keep(1, engine());
        assert_eq!((idle.len(), quits.load(Ordering::Relaxed)), (2, 1));
        assert!(idle.take(2).is_none());
        assert!(idle.take(1).is_some());
        assert!(idle.take(1).is_none());
        assert_eq!(idle.len(), 1);
        // The event's end ends the one left.
        drop(idle);
        assert_eq!(quits.load(Ordering::Relaxed), 2);
    }
}
