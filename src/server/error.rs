//! What stops an event (`ServeError`), and the error of a file of the event.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// An error that stops the event.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The event's folder holds an event already.
    #[error(
        "{0} holds an event already (event.jsonl): give another --out; argus never overwrites an event"
    )]
    Exists(PathBuf),
    /// A file of the event could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// Fewer than two players.
    #[error("an event needs two players or more: give --engine or --player for each, or --seats")]
    TooFew,
    /// Seats in an event with tokens.
    #[error(
        "--seats: an event with a token is closed (only its listed players sign on, each with its token), so it has no seats for players not named in advance: give every player with --player NAME:TOKEN, or no token"
    )]
    ClosedSeats,
    /// An SPRT where it cannot be run.
    #[error("--sprt {0}")]
    Sprt(&'static str),
    /// Settings a format cannot have.
    #[error("--format {0}")]
    Format(&'static str),
    /// The folder holds no event to go on with.
    #[error("--resume {path}: {why}")]
    Resume {
        /// The folder.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The listening address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The system's error.
        source: io::Error,
    },
    /// The settings are not a valid match.
    #[error(transparent)]
    Config(#[from] crate::core::referee::ConfigError),
    /// Engines that could not be started (or failed their handshake) before the first
    /// game: one line each.
    #[error("{}", .0.join("\n"))]
    Engines(Vec<String>),
    /// The endgame tables of `--tb` cannot be read.
    #[error("{0}")]
    Tablebase(String),
}

/// The error of `path`, for `map_err`.
pub(super) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ServeError + '_ {
    move |source| ServeError::Io {
        path: path.to_path_buf(),
        source,
    }
}
