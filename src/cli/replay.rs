//! What `argus replay` takes on its command line.

use std::path::PathBuf;

use clap::Args;

use super::shared::{LineArgs, parse_option};
use crate::client::Limit;

// `argus replay`.
#[derive(Args)]
pub struct ReplayArgs {
    /// The journal to replay.
    pub journal: PathBuf,
    /// Where to write the PGN the replay reproduces (default: standard output).
    #[arg(long, conflicts_with = "role")]
    pub pgn: Option<PathBuf>,
    /// Act as the recorded player a or b toward a live referee, or as the recorded
    /// referee toward a live client, on --port (or, as the referee, toward an engine
    /// argus runs itself, --engine); report where the live side differs.
    #[arg(long = "as", value_name = "a|b|referee", value_enum)]
    pub role: Option<RoleArg>,
    /// The port of the live program (with --as).
    #[arg(long, requires = "role", conflicts_with = "engine")]
    pub port: Option<String>,
    /// With --as referee: play the recorded referee to this engine, run by an `argus
    /// client` session inside argus that signs on as the recorded player did:
    /// uci:COMMAND or xboard:COMMAND (a game an engine lost by failing, fed to it again).
    #[arg(long, value_name = "ENGINE", requires = "role")]
    pub engine: Option<String>,
    /// With --engine: an engine option, NAME=VALUE; repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option, requires = "engine")]
    pub options: Vec<(String, String)>,
    /// With --engine: search to a fixed limit instead of the clock (nodes=N, depth=N,
    /// movetime=MS).
    #[arg(long, value_name = "LIMIT", requires = "engine")]
    pub limit: Option<Limit>,
    /// With --as referee: which recorded player the live client stands for.
    #[arg(long, value_enum, default_value_t = RoleArg::A)]
    pub client: RoleArg,
    /// Send at N times the recorded pace.
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "N",
        conflicts_with = "instant"
    )]
    pub speed: f64,
    /// Send each line as soon as the live side has caught up.
    #[arg(long)]
    pub instant: bool,
    /// Go on after the first difference.
    #[arg(long)]
    pub keep_going: bool,
    #[command(flatten)]
    pub line: LineArgs,
}

// `argus replay --as`.
#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleArg {
    A,
    B,
    Referee,
}
