//! What a client session is given and what it comes to: how the client presents
//! itself, its summary, and the reports it makes to its user as it plays.

use shakmaty::Color;

use crate::mediator::Eol;

/// How the client presents itself.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The name to sign on with; the engine's own name when absent.
    pub name: Option<String>,
    /// The address sent in `tcsi` (the port's path, say).
    pub address: String,
    /// The end of line to write.
    pub eol: Eol,
    /// Offer the checksum extension at sign-on (docs/protocol.md, "Noisy lines"): seal
    /// every record, and ask again for records lost to noise.
    pub checksum: bool,
    /// The secret sent with `sign_on` (`token`) to an IP referee whose event lists its
    /// players with secrets (profile section 9).
    pub token: Option<String>,
    /// How many times a failed engine is restarted (and the game goes on) before its
    /// failure ends the session with [`ClientError::Engine`](super::ClientError::Engine);
    /// `None` restarts it every time (`argus client`: the serial club's way, spec 3.2
    /// item 8). `argus serve` gives `Some(0)` unless the organiser asks for restarts
    /// (`restarts=N`), so that an engine that crashes loses its game as in
    /// cutechess-cli and fastchess.
    pub restarts: Option<u32>,
}

/// What a client session came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientSummary {
    /// Games concluded.
    pub games: u32,
    /// Moves this client played.
    pub moves: u32,
    /// Engine failures reported to the referee.
    pub faults: u32,
    /// Records from the referee that noise changed or lost (asked for again when the
    /// line is sealed).
    pub noise: u32,
}

/// What a client tells its user as it plays ([`run_reporting`](super::run_reporting);
/// `argus client` prints each as a line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    /// The client signed on (the first time on this line).
    SignedOn {
        /// The referee's address (or the port).
        address: String,
        /// The name it signed on with.
        name: String,
    },
    /// A game ended.
    GameOver {
        /// The players' names, from the game's `inform` (White, Black).
        names: [Option<String>; 2],
        /// The colour this client played, when it knows.
        colour: Option<Color>,
        /// The result (`1-0`, `0-1`, `1/2-1/2`, `*`).
        result: String,
        /// Why, as far as the client can tell: the final position (checkmate,
        /// stalemate, insufficient material, the fifty-move rule), its own resignation
        /// or draw; `None` when the referee's record does not say (time, an infraction,
        /// the opponent's resignation, adjudication).
        reason: Option<String>,
    },
    /// The engine failed; the client restarts it and signs on again.
    EngineRestart {
        /// What failed.
        error: String,
    },
}

/// The environment variable `argus client` reads its token from when `--token` is not
/// given (a command line shows in `ps`; the environment, to its owner alone). Its
/// engine is started without it.
pub const TOKEN_ENV: &str = "ARGUS_TOKEN";
