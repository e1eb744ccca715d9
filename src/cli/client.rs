//! What `argus client` takes on its command line.

use clap::Args;

use super::shared::{LineArgs, parse_option};
use crate::client::Limit;

// `argus client`.
#[derive(Args)]
pub struct ClientArgs {
    /// The serial port to the referee (not with --connect).
    #[arg(required_unless_present = "connect", conflicts_with = "connect")]
    pub port: Option<String>,
    /// Connect to a referee over TCP instead of a serial port; several addresses,
    /// comma-separated (`PRIMARY,OBSERVER`), are tried in turn when the connection is
    /// lost.
    #[arg(long, value_name = "HOST:PORT[,HOST:PORT]")]
    pub connect: Option<String>,
    /// The secret of this player in an IP event that lists its players with tokens
    /// (`argus serve --players FILE`). It shows in `ps` to every user of this machine:
    /// rather set the environment variable ARGUS_TOKEN, read when --token is not given.
    #[arg(long, requires = "connect", value_name = "SECRET")]
    pub token: Option<String>,
    #[command(flatten)]
    pub line: LineArgs,
    /// The player: random, human, uci:COMMAND or xboard:COMMAND (COMMAND is the
    /// engine's command line, e.g. "uci:/usr/games/stockfish").
    #[arg(long, default_value = "random", value_name = "ENGINE")]
    pub engine: String,
    /// An engine option, NAME=VALUE (UCI setoption; CECP option); repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    pub options: Vec<(String, String)>,
    /// Search to a fixed limit instead of the clock: nodes=N, depth=N or movetime=MS.
    #[arg(long, value_name = "LIMIT")]
    pub limit: Option<Limit>,
    /// The random mover's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The name to sign on with (default: the engine's own name).
    #[arg(long)]
    pub name: Option<String>,
    /// Do not offer the checksum extension (sealed records, resends after noise; see
    /// docs/protocol.md): play as a client that knows only the profile.
    #[arg(long)]
    pub no_checksum: bool,
    /// Milliseconds the random mover waits before each move.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub think_ms: u64,
}
