//! argus: an automated referee for computer-chess games played over serial lines and TCP.
//!
//! The crate is split so that the rules and the protocol (`core`) never touch I/O: the
//! transports turn bytes into timestamped lines, the mediator feeds them to the core, and
//! the journal records every input so that a session can be replayed exactly.

pub mod cli;
pub mod client;
pub mod core;
pub mod epd;
pub mod field;
pub mod mediator;
pub mod openings;
pub mod secret;
pub mod server;
pub mod tablebase;
pub mod tournament;
pub mod transport;
pub mod watch;
