//! The referee's pure core: the rules of chess, the clocks, the protocol flow and the
//! game record.
//!
//! Nothing in this module does I/O, spawns a thread or reads the system clock. Time comes
//! in with every input as a [`std::time::Duration`] since the start of the session, and
//! the driver asks [`Referee::poll_timeout`] when the core next needs to be woken. This is
//! what lets the journal replay a session byte for byte, and what lets the serial and the
//! IP referee share one implementation.

pub mod clock;
pub mod dead;
pub mod game;
pub mod move_info;
pub mod opening;
pub mod pgn;
pub mod referee;
pub mod supervisor;
pub mod tally;
pub mod variant;

pub use move_info::MoveInfo;
pub use opening::Opening;
pub use referee::{
    DrawRule, GameDetail, GameReport, IllegalRule, Input, MatchConfig, Notice, Output, Referee,
    TimeUse, WireTiming,
};
pub use tally::{Tally, white_port};
pub use variant::Variant;

use serde::{Deserialize, Serialize};
use std::fmt;

/// The FEN of `pos` (en passant square only when a capture is legal), written into a
/// string made large enough at once rather than grown as it is written: after every
/// move (the move's notice).
pub(crate) fn fen_text(pos: &shakmaty::Chess) -> String {
    let mut text = String::with_capacity(96);
    // What its Display writes, without a formatter between each character and the
    // string.
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        .append_to_string(&mut text);
    text
}

/// One of the referee's two player connections.
///
/// A port is not a colour: port A plays White in odd-numbered games and Black in
/// even-numbered ones.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Port {
    /// The first port named on the command line.
    A,
    /// The second port named on the command line.
    B,
}

impl Port {
    /// Both ports, in order.
    pub const BOTH: [Port; 2] = [Port::A, Port::B];

    /// The other port.
    pub fn other(self) -> Port {
        match self {
            Port::A => Port::B,
            Port::B => Port::A,
        }
    }

    /// 0 for A, 1 for B.
    pub fn index(self) -> usize {
        match self {
            Port::A => 0,
            Port::B => 1,
        }
    }
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Port::A => "a",
            Port::B => "b",
        })
    }
}
