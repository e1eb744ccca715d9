//! What `argus demo` takes on its command line.

use std::path::PathBuf;

use clap::Args;

// `argus demo`.
#[derive(Args)]
pub struct DemoArgs {
    /// The PGN file to write.
    #[arg(long, default_value = "argus-demo.pgn")]
    pub pgn: PathBuf,
    /// How many games.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// Show the games on the audience's page at ADDR (HOST:PORT, or a port alone for
    /// 127.0.0.1); the movers then take 400 ms a move, so that people can follow.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
}
