//! Options that more than one subcommand takes (the serial line's settings, the standby
//! stream) and the parsers of values that several options share.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::mediator::Eol;
use crate::mediator::config::MAX_DELAY_SECS;
use crate::transport::serial::{FlowName, ParityName, SerialSettings};

/// The standby stream of a referee (`argus serve`, `argus serial`): observers
/// (`argus observe`) follow it and take over when it dies (docs/standby.md).
#[derive(Args, Clone, Debug, Default)]
pub struct StandbyArgs {
    /// Offer the journals to observers (`argus observe`) on ADDR (alone: 127.0.0.1:5152,
    /// this machine only). An observer holds a copy of every journal line and takes
    /// over when this referee dies.
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        require_equals = false,
        default_missing_value = "127.0.0.1:5152"
    )]
    pub standby_listen: Option<std::net::SocketAddr>,
    /// With --standby-listen: relay a line to a player only once the observers hold it
    /// (each waited for 2 s at most, then not until it catches up), so that no move that
    /// reached an opponent is lost in a takeover while they keep up.
    #[arg(long, requires = "standby_listen")]
    pub standby_sync: bool,
    /// With --standby-listen: the file of a secret key (16 bytes or more) that observers
    /// must prove they hold before they are sent anything or believed (their
    /// --standby-key). Needed to listen on anything but a loopback address.
    #[arg(long, value_name = "FILE", requires = "standby_listen")]
    pub standby_key: Option<PathBuf>,
}

/// Adjudication by Syzygy endgame tables, for both referees (`argus serve`, `argus
/// serial`).
#[derive(Args, Clone, Debug, Default)]
pub struct TablebaseArgs {
    /// Syzygy endgame tables that adjudicate: their folders, joined by `:` (`;` on
    /// Windows). A position reached after a capture or a pawn move (or at the start)
    /// with few enough pieces ends the game with the tables' verdict.
    #[arg(long, value_name = "PATHS")]
    pub tb: Option<String>,
    /// Probe positions of at most N pieces (default: all the tables hold).
    #[arg(long, value_name = "N")]
    pub tb_pieces: Option<usize>,
    /// Cursed wins and blessed losses count as wins and losses (the fifty-move rule
    /// ignored).
    #[arg(long)]
    pub tb_ignore_50: bool,
    /// Which verdicts end a game: both (default), win-loss or draw.
    #[arg(long, value_name = "KIND")]
    pub tb_adjudicate: Option<String>,
}

impl TablebaseArgs {
    /// The adjudication these options ask for; None without `--tb`.
    ///
    /// # Errors
    ///
    /// As [`TbConfig::from_options`](crate::tablebase::TbConfig::from_options).
    pub fn config(&self) -> Result<Option<crate::tablebase::TbConfig>, String> {
        crate::tablebase::TbConfig::from_options(
            self.tb.as_deref(),
            self.tb_pieces,
            self.tb_ignore_50,
            self.tb_adjudicate.as_deref(),
        )
    }
}

/// `--variant`'s value.
pub(crate) fn parse_variant(text: &str) -> Result<crate::core::Variant, String> {
    text.parse()
}

// The line settings every subcommand that opens a port takes.
#[derive(Args, Clone)]
pub struct LineArgs {
    /// Bits per second [default: 9600].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub baud: Option<u32>,
    /// Data bits: 5, 6, 7 or 8.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(5..=8))]
    pub data_bits: u8,
    /// Parity.
    #[arg(long, value_enum, default_value_t = ParityName::None)]
    pub parity: ParityName,
    /// Stop bits: 1 or 2.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub stop_bits: u8,
    /// Flow control.
    #[arg(long, value_enum, default_value_t = FlowName::None)]
    pub flow: FlowName,
    /// The end of line to send.
    #[arg(long, value_enum, default_value_t = Eol::Lf)]
    pub eol: Eol,
}

impl LineArgs {
    /// The serial settings, 9600 baud when none is given.
    pub fn settings(&self) -> SerialSettings {
        SerialSettings {
            baud: self.baud.unwrap_or(9600),
            data_bits: self.data_bits,
            parity: self.parity,
            stop_bits: self.stop_bits,
            flow: self.flow,
        }
    }
}

/// An engine option, `NAME=VALUE`.
pub fn parse_option(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: expected NAME=VALUE"))?;
    if name.trim().is_empty() {
        return Err(format!("{text:?}: the option has no name"));
    }
    Ok((name.trim().to_string(), value.trim().to_string()))
}

/// A delay in seconds, from 0 to a day (fractions allowed).
pub fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("{text:?} is not a number of seconds >= 0"));
    }
    if secs > MAX_DELAY_SECS {
        return Err(format!("{text:?} is more than a day ({MAX_DELAY_SECS} s)"));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())
}

// --draw-rule.
#[derive(Copy, Clone, clap::ValueEnum)]
pub enum DrawRuleArg {
    Auto,
    Claim,
}

// --illegal.
#[derive(Copy, Clone, clap::ValueEnum)]
pub enum IllegalArg {
    Loss,
    Fault,
}

impl From<DrawRuleArg> for crate::core::DrawRule {
    fn from(arg: DrawRuleArg) -> crate::core::DrawRule {
        match arg {
            DrawRuleArg::Auto => crate::core::DrawRule::Auto,
            DrawRuleArg::Claim => crate::core::DrawRule::Claim,
        }
    }
}

impl From<IllegalArg> for crate::core::IllegalRule {
    fn from(arg: IllegalArg) -> crate::core::IllegalRule {
        match arg {
            IllegalArg::Loss => crate::core::IllegalRule::Loss,
            IllegalArg::Fault => crate::core::IllegalRule::Fault,
        }
    }
}
