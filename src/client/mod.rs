//! The client side of the protocol: a player that signs on to a referee, follows the
//! game from its records, and answers each `respond` with a `reply`.
//!
//! The protocol driver ([`run`]) is the same for every kind of player; what chooses the
//! move is an [`Engine`]: the built-in random mover, the adapters for UCI and CECP
//! engines, or a person at a keyboard.
//!
//! The engine works on a thread of its own while the driver goes on reading the line, so
//! that a `disconnect` (or a signal, through a [`Stop`]) ends the client at once even
//! while the engine thinks; the other records that arrive meanwhile are taken in order
//! once the engine has answered.

mod driver;
mod engine;
mod engine_output;
pub mod engine_process;
mod error;
mod framing;
mod game;
pub mod human;
mod line;
mod options;
pub mod random;
#[cfg(unix)]
pub mod session;
pub mod stop;
mod timing;
pub mod uci;
pub mod xboard;

#[cfg(all(test, unix))]
use std::time::{Duration, Instant};

use crate::transport::memory::ClientWriter;
use crate::transport::{Duplex, memory};
use driver::Driver;
pub use engine::{Decision, Engine, EngineError, Keep, Limit, Turn, TurnClocks};
pub use error::{ClientError, REPLACED, TRY_AGAIN};
use line::PortReader;
pub use options::{ClientOptions, ClientSummary, Report, TOKEN_ENV};
pub use stop::{Stop, StopReason};
pub use timing::{ASK_AGAIN, NOISE_REPORT_EVERY, SIGN_ON_AGAIN, STALLED_LINE};

/// Signs on and plays until the referee says `disconnect`.
///
/// When the engine fails (it crashes, stalls past its deadline, or answers nonsense),
/// the client sends `refreq fault` with the reason in `c0`, restarts the engine and
/// signs on again, so that the referee resynchronises it and the game goes on. With
/// [`ClientOptions::checksum`], records lost to noise are asked for again.
///
/// # Errors
///
/// Returns [`ClientError`] when the line fails or closes before `disconnect`, or the
/// engine cannot be restarted.
pub fn run(
    line: impl Into<ClientLine>,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
) -> Result<ClientSummary, ClientError> {
    run_until(line, engine, opts, &Stop::new())
}

/// The client's line: bytes (a port, a socket), read by a thread of the client's own,
/// or the client's end of an in-process line ([`memory::direct_pair`]), whose lines
/// come with no thread. An in-process line has no noise; and since nothing reads it
/// while the engine thinks, a `disconnect` is taken after the engine's answer: its
/// host fires the client's stop when the referee ends, as `argus serve` does.
pub enum ClientLine {
    /// A line of bytes.
    Bytes(Duplex),
    /// An in-process line.
    Direct(memory::ClientEnd),
}

impl From<Duplex> for ClientLine {
    fn from(duplex: Duplex) -> ClientLine {
        ClientLine::Bytes(duplex)
    }
}

impl From<memory::ClientEnd> for ClientLine {
    fn from(end: memory::ClientEnd) -> ClientLine {
        ClientLine::Direct(end)
    }
}

/// As [`run`], and also ends when `stop` fires (a signal handler fires it with
/// [`StopReason::Interrupted`]), even while the engine thinks: the client then tells the
/// referee with a `refreq fault` and returns [`ClientError::Interrupted`].
///
/// However it ends, the engine is ended too ([`Engine::quit`]) before this returns: a
/// `disconnect` or a stop that comes while the engine thinks stops its search, and the
/// client is gone within a second.
///
/// # Errors
///
/// As [`run`]; [`ClientError::Interrupted`] when `stop` fired.
pub fn run_until(
    line: impl Into<ClientLine>,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
    stop: &Stop,
) -> Result<ClientSummary, ClientError> {
    run_reporting(line, engine, opts, stop, None)
}

/// As [`run_until`], telling `report` when the client signs on, when each game ends
/// and when its engine fails (`argus client` prints them).
///
/// # Errors
///
/// As [`run_until`].
pub fn run_reporting(
    line: impl Into<ClientLine>,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
    stop: &Stop,
    report: Option<&dyn Fn(Report)>,
) -> Result<ClientSummary, ClientError> {
    let (events, writer, port): (_, Box<dyn ClientWriter>, _) = match line.into() {
        ClientLine::Bytes(Duplex { reader, writer }) => {
            let port = PortReader::spawn(reader).map_err(|source| ClientError::Io {
                address: opts.address.clone(),
                source,
            })?;
            (port.events.clone(), Box::new(writer), Some(port))
        }
        ClientLine::Direct(end) => (end.lines, end.writer, None),
    };
    let mut driver = Driver::new(engine, writer, events, opts, stop, port.is_none(), false);
    driver.report = report;
    let outcome = driver.session();
    let outcome = driver.end(outcome);
    if let Some(port) = port {
        port.close();
    }
    outcome
}

/// Drives a turn begun with [`Engine::begin_think`] as `argus serve`'s game thread
/// does: `poll` on the engine's output until its deadline, then
/// [`Engine::poll_think`] (for the adapters' tests).
#[cfg(all(test, unix))]
pub(crate) fn polled(engine: &mut dyn Engine, turn: &Turn<'_>) -> Result<Decision, EngineError> {
    engine.begin_think(turn)?;
    loop {
        let mut readable = false;
        if let Some(fd) = engine.output_fd() {
            let left = engine.wake_at().map_or(Duration::from_secs(5), |at| {
                at.saturating_duration_since(Instant::now())
            });
            let ms = crate::transport::poll_millis(left);
            let mut fds = [libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            }];
            // SAFETY: one valid pollfd.
            readable = unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) } > 0;
        }
        if let Some(answer) = engine.poll_think(turn, readable || engine.output_fd().is_none()) {
            return answer;
        }
    }
}
