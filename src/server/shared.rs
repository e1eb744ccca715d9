//! What the games of an event share with each other and with the event's thread
//! (`Event`: the settings, the registry of remote players, the boards of the games
//! under way, the idle engines), what a game's worker sends the event's thread (`Msg`),
//! and how the event's thread reaches a game under way (`GameControl`).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crossbeam_channel::Sender;

use super::control::GameStatus;
use super::idle::Idle;
#[cfg(unix)]
use super::local;
use super::queue::Queue;
use super::registry::Registry;
use super::settings::ServeConfig;
use crate::client::{Stop, StopReason};
use crate::core::{GameReport, Notice};
use crate::mediator::Control;
use crate::mediator::standby::Hub;
use crate::tournament::GameSpec;
use crate::watch::live::Live;

/// What the games of an event share.
pub(super) struct Event<'a> {
    pub(super) cfg: &'a ServeConfig,
    pub(super) registry: &'a Arc<Registry>,
    /// For each player, its index in the registry when it connects by itself.
    pub(super) remote_index: &'a [Option<usize>],
    /// Where each game under way stands, as of its last move: its game's thread keeps
    /// it, so that a move wakes nobody else; `status` reads it.
    pub(super) boards: Mutex<BTreeMap<u32, GameStatus>>,
    /// The views' model of the games (`--http`), when there are views.
    pub(super) live: Option<&'a Arc<Live>>,
    /// The standby stream, when observers may follow.
    pub(super) standby: Option<&'a Arc<Hub>>,
    /// The event stops (Ctrl-C, the console's `stop`, an SPRT bound): set before the
    /// games in `controls` are told, so that a game being started, whose control is
    /// not there yet, sees it once its control is.
    pub(super) stopped: AtomicBool,
    /// Local engines between their games, for their players' next ones.
    pub(super) idle: Idle,
    /// The endgame tables that adjudicate (`--tb`), open.
    pub(super) tables: Option<&'a crate::tablebase::Tables>,
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
    pub(super) fn remotes(&self, spec: &GameSpec) -> Vec<usize> {
        [spec.white, spec.black]
            .iter()
            .filter_map(|&i| self.remote_index[i])
            .collect()
    }

    /// The next game whose players are all there, claimed; None when no game is left
    /// or no game begins any more. Waits for players that have not connected yet
    /// (pairing waits for signed-on players).
    pub(super) fn next_game(&self, pending: &Mutex<Queue>) -> Option<GameSpec> {
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
    pub(super) fn release(&self, spec: &GameSpec) {
        for i in self.remotes(spec) {
            self.registry.release(i);
        }
    }
}

/// What a worker sends the event's thread.
pub(super) enum Msg {
    /// A game begins.
    Started(GameSpec),
    /// A notice from a game's referee, by the game's number.
    Notice(u32, Notice),
    /// A game is over: its report, None when it stopped with the event, or why it could
    /// not be played.
    Done(GameSpec, Result<Option<GameReport>, String>),
    /// A game that could not begin for want of descriptors or threads, back in the
    /// queue (why, and how many times it was tried).
    Requeued(GameSpec, String, u32),
}

/// The control channels of the games under way, by game number.
pub(super) type Controls = Arc<Mutex<HashMap<u32, GameControl>>>;

/// What the event's thread asks of a game under way.
pub(super) struct GameControl {
    /// The game's control channel (its mediator's).
    pub(super) tx: Sender<Control>,
    /// The stops of its client sessions when they run on the game's own thread (a
    /// local game, `local.rs`): that thread may be held by an engine's restart, so an
    /// event's stop fires them too, which ends the engine's waits.
    pub(super) local_stops: Vec<Stop>,
    /// Wakes a local game's thread, which waits in `poll` (`local.rs`), once it is
    /// told something.
    #[cfg(unix)]
    pub(super) waker: Option<local::Waker>,
}

impl GameControl {
    /// Tells the game's mediator `control`, and wakes it.
    pub(super) fn send(&self, control: Control) {
        let _ = self.tx.send(control);
        #[cfg(unix)]
        if let Some(waker) = &self.waker {
            waker.wake();
        }
    }

    /// The game stops (to be resumed): its mediator is told first.
    pub(super) fn stop(&self) {
        self.send(Control::Stop);
        for stop in &self.local_stops {
            stop.fire(StopReason::Disconnect);
        }
    }
}

/// Locks `m`, whether or not a thread panicked while it held it.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
