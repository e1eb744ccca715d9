//! The command line of `argus`: its subcommands and their options, as clap parses them,
//! one file a subcommand. This is what was typed; each subcommand's room under the
//! binary's `commands/` resolves it into the settings it runs with.
//!
//! The definitions live in the library so that tests can walk them: every option of
//! `argus serial` has a key of the same name in an event file ([`crate::mediator::config`]), and a
//! test in this module checks both ways.

mod client;
mod demo;
pub mod dialect;
mod epd;
mod field;
mod observe;
mod replay;
mod serial;
mod serve;
mod shared;
mod typed;

#[cfg(test)]
mod tests;

use clap::{Parser, Subcommand};

pub use client::ClientArgs;
pub use demo::DemoArgs;
pub use epd::EpdCommand;
pub use field::{CableTestArgs, WireArgs};
pub use observe::ObserveArgs;
pub use replay::{ReplayArgs, RoleArg};
pub use serial::{SerialArgs, config_hint};
pub use serve::{
    EXIT_NOT_PLAYED, EXIT_SPRT_H0, EXIT_SPRT_INCONCLUSIVE, SERVE_EXIT_STATUS, ServeArgs,
};
pub use shared::{
    DrawRuleArg, IllegalArg, LineArgs, StandbyArgs, TablebaseArgs, parse_option, parse_secs,
};
pub use typed::Typed;

// The whole command line (clap reads doc comments as help, hence plain comments on
// the types here).
#[derive(Parser)]
#[command(
    name = "argus",
    version,
    about = "An automated referee for computer chess over serial lines"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Referee a match between the players on two serial ports.
    Serial(Box<SerialArgs>),
    /// Run a tournament of engines that argus starts itself, many games at once.
    #[command(after_help = SERVE_EXIT_STATUS)]
    Serve(Box<ServeArgs>),
    /// Run a match from fastchess's command line (fishtest's, OpenBench's workers' own)
    ///
    /// argus started under the name `fastchess` or `fastchess-ob` does the same: see
    /// docs/fastchess.md.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Fastchess(dialect::fastchess::FastchessWords),
    /// Run a match from cutechess-cli's command line
    ///
    /// argus started under the name `cutechess-cli` does the same: see
    /// docs/fastchess.md.
    #[command(
        name = "cutechess-cli",
        disable_help_flag = true,
        disable_version_flag = true
    )]
    CutechessCli(dialect::cutechess::CutechessWords),
    /// Play through a serial port as a client of a referee.
    Client(ClientArgs),
    /// Follow a running referee (its --standby-listen) and take over when it dies.
    Observe(ObserveArgs),
    /// Play a short demo match between two built-in clients over pty pairs.
    Demo(DemoArgs),
    /// Replay a journal through the referee and check it reproduces the session.
    Replay(ReplayArgs),
    /// Relay two ports at the byte timing of a real line (a line simulator).
    Wire(WireArgs),
    /// Test a null-modem cable between two ports, or one port with a loopback plug.
    CableTest(CableTestArgs),
    /// List the serial ports on this machine.
    Ports,
    /// EPD file tools for preparing openings files.
    #[command(subcommand)]
    Epd(EpdCommand),
}
