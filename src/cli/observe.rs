//! What `argus observe` takes on its command line.

use std::path::PathBuf;

use clap::Args;

use super::shared::parse_secs;

// `argus observe`.
#[derive(Args)]
pub struct ObserveArgs {
    /// The primary's standby address (its --standby-listen), HOST:PORT.
    pub primary: String,
    /// The folder of the copy: the journals (and the PGN made from them), in the form
    /// `--resume` reads.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Take over after SECS without a word from the primary (it says it is alive four
    /// times a second). Without it, only the console's `takeover` does.
    #[arg(long, value_parser = parse_secs, value_name = "SECS")]
    pub takeover_after: Option<std::time::Duration>,
    /// An event (argus serve): where its players connect once this observer has taken
    /// over (they name it second in `argus client --connect PRIMARY,OBSERVER`).
    #[arg(long, default_value = "127.0.0.1:5151", value_name = "ADDR")]
    pub listen: std::net::SocketAddr,
    /// A match (argus serial): the two serial ports to take over with, A then B (the
    /// cables moved to this PC, or an A/B switch turned): `--ports /dev/ttyUSB0,/dev/ttyUSB1`.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub ports: Vec<String>,
    /// The audience's page, as the primary's --http: the games followed live, and the
    /// games played after a takeover.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Run without a console: `takeover` cannot be typed (only --takeover-after takes
    /// over).
    #[arg(long)]
    pub unattended: bool,
    /// The file of the key the primary's --standby-key names (the same secret): this
    /// observer proves it holds it, and checks that the primary does.
    #[arg(long, value_name = "FILE")]
    pub standby_key: Option<PathBuf>,
}
