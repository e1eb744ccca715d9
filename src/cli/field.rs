//! What the tools for the day of an event take on their command lines: `argus wire`
//! and `argus cable-test` (`argus ports` takes nothing).

use clap::Args;

use super::shared::LineArgs;

// `argus wire`.
#[derive(Args)]
pub struct WireArgs {
    /// One end (normally a pty, the other end of which a program opens).
    pub port_a: String,
    /// The other end.
    pub port_b: String,
    #[command(flatten)]
    pub line: LineArgs,
    /// The probability that a byte is corrupted (one bit flipped), 0 to 1.
    #[arg(long, default_value_t = 0.0, value_name = "RATE")]
    pub noise: f64,
    /// The seed of the noise.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

// `argus cable-test`.
#[derive(Args)]
pub struct CableTestArgs {
    /// The first port.
    pub port_a: String,
    /// The second port (not with --loopback).
    #[arg(required_unless_present = "loopback", conflicts_with = "loopback")]
    pub port_b: Option<String>,
    /// Test one port with a loopback plug (TxD joined to RxD).
    #[arg(long)]
    pub loopback: bool,
    /// Bytes sent each way [default: about two seconds of the line].
    #[arg(long, value_name = "N")]
    pub bytes: Option<usize>,
    #[command(flatten)]
    pub line: LineArgs,
}
