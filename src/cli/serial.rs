//! What `argus serial` takes on its command line; every option but --config, --resume,
//! --continue and --plain is also a key of an event file, of the same name.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::shared::{DrawRuleArg, IllegalArg, LineArgs, StandbyArgs, parse_secs};
use crate::core::clock::TimeControl;

// `argus serial`. Every option but --config, --resume, --continue and --plain is also a
// key of an event file, of the same name (see `crate::mediator::config`; the tests in
// cli/tests.rs check it).
#[derive(Args)]
pub struct SerialArgs {
    /// The port of player A (White in odd games).
    #[arg(required_unless_present_any = ["resume", "config"])]
    pub port_a: Option<String>,
    /// The port of player B (White in even games).
    #[arg(required_unless_present_any = ["resume", "config"])]
    pub port_b: Option<String>,
    /// Take every option from an event file (TOML; see docs/example-event.toml), as a
    /// referee running in the background under systemd does. Its keys are the options'
    /// names; only --unattended, --plain, --resume and --continue may be given with it.
    #[arg(
        long,
        value_name = "EVENT.toml",
        conflicts_with_all = [
            "port_a", "port_b", "baud", "data_bits", "parity", "stop_bits", "flow", "eol",
            "tc", "games", "openings", "variant", "tb", "tb_pieces", "tb_ignore_50", "tb_adjudicate", "event", "site", "round", "name_a", "name_b", "pgn",
            "journal", "reset_delay", "conclude_delay", "draw_rule", "illegal",
            "no_wire_compensation", "http", "standby_listen", "standby_sync",
            "standby_key",
        ]
    )]
    pub config: Option<PathBuf>,
    /// Take over the match of a referee that died, from its journal: the ports, the
    /// match and the time are rebuilt from it, both players are resynchronised, and the
    /// journal goes on in the same file. Other options (or --config) may be given too
    /// but must agree with the journal; ports given replace the journal's.
    #[arg(long, value_name = "JOURNAL")]
    pub resume: Option<PathBuf>,
    /// Go on with the match if its journal exists (as --resume would: every option must
    /// agree with it), or start it if not: one command for a referee that is stopped and
    /// started again, as a service is. Needs a named journal (--journal, or `journal`
    /// in the event file).
    #[arg(long = "continue", conflicts_with = "resume")]
    pub continue_match: bool,
    #[command(flatten)]
    pub line: LineArgs,
    /// The time control, in PGN TimeControl syntax (`300+5`, `40/5400+30:1800+30`).
    #[arg(long, default_value = "300+5", value_name = "TIMECONTROL")]
    pub tc: TimeControl,
    /// How many games.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// A file of start positions (EPD or FEN lines, or PGN games: the position after
    /// each game's moves); each is played twice, colours swapped.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// The variant: standard, or chess960 (castling by Chess960's rules; without
    /// --openings each pair of games starts from one of the 960 positions, drawn now).
    #[arg(long, value_name = "VARIANT", default_value = "standard", value_parser = super::shared::parse_variant)]
    pub variant: crate::core::Variant,
    #[command(flatten)]
    pub tablebase: super::shared::TablebaseArgs,
    /// The PGN Event tag.
    #[arg(long, default_value = "?")]
    pub event: String,
    /// The PGN Site tag.
    #[arg(long, default_value = "?")]
    pub site: String,
    /// The PGN Round tag (default: the game number).
    #[arg(long)]
    pub round: Option<String>,
    /// Player A's name (else its sign_on name, else the port).
    #[arg(long)]
    pub name_a: Option<String>,
    /// Player B's name (else its sign_on name, else the port).
    #[arg(long)]
    pub name_b: Option<String>,
    /// The PGN file games are appended to.
    #[arg(long, default_value = "argus.pgn")]
    pub pgn: PathBuf,
    /// The journal (default: a dated .jsonl in the working directory).
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Seconds to wait after reset.
    #[arg(long, default_value = "5", value_parser = parse_secs, value_name = "SECS")]
    pub reset_delay: Duration,
    /// Seconds to wait after conclude.
    #[arg(long, default_value = "5", value_parser = parse_secs, value_name = "SECS")]
    pub conclude_delay: Duration,
    /// Whether repetition and fifty-move draws are automatic or must be claimed.
    #[arg(long, value_enum, default_value_t = DrawRuleArg::Auto)]
    pub draw_rule: DrawRuleArg,
    /// What an illegal move costs.
    #[arg(long, value_enum, default_value_t = IllegalArg::Loss)]
    pub illegal: IllegalArg,
    /// Run without a supervisor at the console.
    #[arg(long)]
    pub unattended: bool,
    /// Print plain lines, one per event, instead of the full-screen view. The view is
    /// shown when standard input and output are a terminal (unless TERM is dumb, or the
    /// terminal is a serial line) and the console is attended; see docs/supervisor.md.
    #[arg(long)]
    pub plain: bool,
    /// Charge the players the time their records spend on a slow line, too. By default
    /// that time is deducted when the line's rate is known: on a real serial port, or on
    /// a pty when --baud is given.
    #[arg(long)]
    pub no_wire_compensation: bool,
    /// Serve the audience's page on ADDR (HOST:PORT, or a port alone for 127.0.0.1):
    /// the games live, /live.pgn and the /events stream (docs/views.md). Off unless
    /// given.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    #[command(flatten)]
    pub standby: StandbyArgs,
}

/// For an option of `argus serial` given with `--config`, which clap refuses: where the
/// event file gives it (`set `games` in [match] of the event file instead`).
pub fn config_hint(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ArgumentConflict {
        return None;
    }
    let args: Vec<&str> = [ContextKind::InvalidArg, ContextKind::PriorArg]
        .into_iter()
        .filter_map(|kind| e.get(kind))
        .flat_map(|value| match value {
            ContextValue::String(arg) => vec![arg.as_str()],
            ContextValue::Strings(args) => args.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        })
        .collect();
    let is_config = |arg: &&str| arg.starts_with("--config ");
    if !args.iter().any(is_config) {
        return None;
    }
    // `--games <GAMES>`, `[PORT_A]`.
    let other = args.iter().find(|arg| !is_config(arg))?;
    let name = other
        .trim_start_matches("--")
        .split(' ')
        .next()?
        .trim_matches(['[', ']', '<', '>'])
        .to_ascii_lowercase();
    let key = crate::mediator::config::key_of_option(&name)?;
    let (table, leaf) = key.rsplit_once('.')?;
    Some(format!(
        "set `{leaf}` in [{table}] of the event file instead"
    ))
}
