//! What ends a client session, and the words of the referee's refusals that the
//! client acts on.

use std::io;

use super::engine::EngineError;

/// An error that ends a client session.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The line failed.
    #[error("line {address}: {source}")]
    Io {
        /// The port.
        address: String,
        /// The system's error.
        source: io::Error,
    },
    /// The line closed before the referee said `disconnect`.
    #[error("line {address}: the referee hung up without disconnect")]
    HungUp {
        /// The port.
        address: String,
    },
    /// The referee refused the client: its `fault` came before anything else, and then
    /// it closed the line (an IP referee refusing a wrong token, say).
    #[error("line {address}: the referee refused this client: {reason}")]
    Refused {
        /// The port.
        address: String,
        /// The `fault`'s reason.
        reason: String,
    },
    /// The engine failed and could not be restarted.
    #[error(transparent)]
    Engine(EngineError),
    /// The client was interrupted (Ctrl-C, SIGTERM, SIGHUP) before the referee said
    /// `disconnect`; its engine is stopped.
    #[error("interrupted")]
    Interrupted,
}

/// The words that end a referee's refusal the client waits out and connects again
/// after (a name whose old connection is still open, too many connections waiting):
/// `argus client --connect` tries again instead of stopping.
pub const TRY_AGAIN: &str = "try again shortly";

/// The words of the `fault` a connection gets when its player signed on again on
/// another (`NAME signed on again from another connection (ADDRESS): ...`): the
/// client of the old connection stops instead of connecting again, so two clients
/// under one name do not take the place from each other for ever.
pub const REPLACED: &str = "signed on again from another connection";
