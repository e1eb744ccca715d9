//! `argus serve`: many games at once, each driven by its own mediator and [`Referee`](crate::core::Referee),
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
//!
//! The module by job: [`run`] is the entry point, for a new event or one resumed;
//! `event_loop.rs` is the event's thread, `shared.rs` what its games share, `game.rs`
//! one game, `queue.rs` the games waiting to begin, `event_log.rs` every line of
//! `event.jsonl`, `resume.rs` an event rebuilt from it, `settings.rs` an event's
//! settings, `progress.rs` what it tells as it goes, `error.rs` what stops it.

pub mod config;
mod control;
mod engines;
mod entrant;
mod error;
mod event_log;
mod event_loop;
mod files;
mod game;
mod idle;
mod knockout;
mod listen;
#[cfg(unix)]
mod local;
mod outputs;
mod progress;
mod queue;
mod registry;
mod resume;
mod settings;
mod shared;
mod state;

pub use control::{
    ConsoleCommand, GameStatus, HELP as CONSOLE_HELP, Requests, Status, UnknownCommand,
};
pub use engines::{EngineSpec, Proto, Waits, check_engines};
pub use entrant::{Entrant, parse_players, read_players};
pub use error::ServeError;
pub use event_log::{Entry as EventEntry, PastGame};
pub use event_loop::BEGIN_TRIES;
pub use listen::SIGN_ON_WITHIN;
pub use progress::{Progress, Summary};
pub use queue::scheduled_games;
pub use registry::{RemotePlayer, Seat, TakenBy};
pub use resume::event_settings;
pub use settings::{DEFAULT_PORT, ServeConfig, Setup, StandbySettings, check_players};

use std::path::Path;

/// How an event begins.
#[derive(Clone, Copy, Debug)]
pub enum Start<'a> {
    /// A new event, with these settings.
    New(&'a ServeConfig),
    /// The event in this folder goes on after a stop or a crash, from its
    /// `event.jsonl`: games with a result stay as they are (and reach `games.pgn` once),
    /// the games under way go on from their own journals as `argus serial --resume`
    /// does (the time the referee was down charged to nobody), and the others follow.
    Resume(&'a Path),
}

/// Runs the event to its end, or until `requests` asks it to stop (the games under way
/// are then stopped as the serial referee stops: clocks stand, players get `fault`) or
/// to stop after the games under way (no new game begins; those under way finish).
/// Calls `progress` from the calling thread as games begin and end, and to answer
/// `requests`. `setup` gives the views, the standby stream and the listening address.
///
/// # Errors
///
/// [`ServeError`] when the folder of a new event holds an event already or a file of
/// the event cannot be written; [`ServeError::Resume`] when the folder to resume holds
/// no event to go on with. A game that cannot be played (an engine that does not start)
/// is reported through `progress` and left without a record; the event goes on.
pub fn run(
    start: Start<'_>,
    setup: &Setup<'_>,
    requests: &Requests,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, ServeError> {
    match start {
        Start::New(cfg) => event_loop::run(cfg, None, setup, requests, progress),
        Start::Resume(dir) => {
            let (cfg, entries) = resume::read(dir)?;
            event_loop::run(&cfg, Some(entries), setup, requests, progress)
        }
    }
}
