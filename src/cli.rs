//! The command line of `argus`: its subcommands and their options, as clap parses them.
//!
//! The definitions live in the library so that tests can walk them: every option of
//! `argus serial` has a key of the same name in an event file ([`crate::mediator::config`]), and a
//! test in this module checks both ways.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::client::Limit;
use crate::core::clock::TimeControl;
use crate::mediator::Eol;
use crate::mediator::config::MAX_DELAY_SECS;
use crate::transport::serial::{FlowName, ParityName, SerialSettings};

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

/// The exit statuses of `argus serve`, as its help lists them.
pub const SERVE_EXIT_STATUS: &str = "\
Exit status:
  0    the event is over; with --sprt, H1 accepted (the first engine is elo1 stronger)
  10   --sprt: H0 accepted (it is not elo1 stronger; at most elo0)
  11   --sprt: inconclusive (every game played, no bound reached)
  12   games not played (they could not begin or failed: the log says which and why)
  130  stopped (Ctrl-C, SIGTERM, the console's stop): go on with --resume DIR
  3    an observer took over (--standby-listen)
  1    an error; 2, a wrong command line";

/// `argus serve`'s exit status when its SPRT accepted H0.
pub const EXIT_SPRT_H0: u8 = 10;

/// `argus serve`'s exit status when its SPRT reached no bound with every game played.
pub const EXIT_SPRT_INCONCLUSIVE: u8 = 11;

/// `argus serve`'s exit status when the event ended with games not played.
pub const EXIT_NOT_PLAYED: u8 = 12;

// `argus serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// A player: `name=NAME cmd=COMMAND proto=uci|xboard [option.X=V ...]
    /// [nodes=N|depth=N|movetime=MS] [tc=TIMECONTROL] [timemargin=MS] [restarts=N]`
    /// (proto=random and no cmd: argus's random mover). Give one --engine per player.
    /// tc= gives the engine a time control of its own (time odds); an engine that
    /// crashes or stops answering loses its game, unless restarts=N lets it be
    /// restarted N times a game; timemargin=MS forgives answers up to MS late.
    #[arg(long = "engine", num_args = 1.., value_name = "KEY=VALUE", action = clap::ArgAction::Append)]
    pub engine: Vec<String>,
    /// Words every --engine shares (`timemargin=50 option.Hash=16`); an engine's own
    /// word for the same key wins.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// A player that connects by itself (`argus client --connect`), as NAME or
    /// NAME:TOKEN; with any token given, only listed players, each with its token, may
    /// sign on. Players keep the order of --engine, --player and --players on the
    /// command line. A token here shows in `ps`: rather give it in --players FILE.
    #[arg(long = "player", value_name = "NAME[:TOKEN]")]
    pub player: Vec<String>,
    /// Players that connect by themselves, from FILE: one `NAME TOKEN` a line (the
    /// token its last word, the name what comes before), `#` starting a comment line;
    /// each as --player NAME:TOKEN, without the tokens showing in `ps`.
    #[arg(long, value_name = "FILE")]
    pub players: Option<PathBuf>,
    /// Places for players not named in advance, who connect by themselves: a sign_on
    /// whose tcsi name is nobody's takes a free seat under that name, one without tcsi
    /// a seat named by its address and port. The seats come after the listed players;
    /// not in an event with tokens.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seats: u32,
    /// Where players that connect by themselves connect. Any address but a loopback
    /// one is the organiser's explicit choice.
    #[arg(long, default_value = "127.0.0.1:5150", value_name = "ADDR")]
    pub listen: std::net::SocketAddr,
    /// The players' connections (signed on) taken at once; one more gets a fault and is
    /// closed, unless it is a listed player with its token. Connections not yet signed on
    /// have places of their own (64, 8 from one host).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_clients: u32,
    /// Serve the audience's page on ADDR (HOST:PORT, or a port alone for 127.0.0.1):
    /// every game in progress live, /game/N, /live.pgn and the /events stream
    /// (docs/views.md). Off unless given.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// How players are paired: everybody meets everybody, the first player meets each
    /// of the others, a Swiss of --rounds rounds, or a knockout by seed (the players'
    /// order).
    #[arg(long, value_enum, default_value_t = crate::tournament::Format::RoundRobin)]
    pub format: crate::tournament::Format,
    /// How many times the pairings are played.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Games per pairing in a round, the colours alternating.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// Games played at once (up to 1024; each holds a thread, and its players'
    /// connections and its journal hold descriptors: see `ulimit -n`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// The start positions: `FILE`, or `file=FILE [format=epd|pgn]
    /// [order=sequential|random] [plies=N] [start=N]` as cutechess-cli and fastchess
    /// take them. An EPD or FEN file gives one position a line; a PGN file each game's
    /// position after its first N plies (all without plies=); the format comes from the
    /// name (.pgn, .epd) or the text. Each encounter of a pairing takes the next opening
    /// (see --repeat); order=random shuffles them by --srand; start=N begins with the
    /// Nth.
    #[arg(long, num_args = 1.., value_name = "FILE|KEY=VALUE")]
    pub openings: Vec<String>,
    /// The seed of order=random (any number from 0); without it argus draws one and
    /// prints it, and event.jsonl keeps it.
    #[arg(long, value_name = "N")]
    pub srand: Option<u64>,
    /// The games in a row of a pairing that play each opening, the colours alternating:
    /// 2 (the default) plays each opening twice with the colours swapped, 1 gives every
    /// game an opening of its own. These games are an encounter.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2,
        num_args = 0..=1,
        default_missing_value = "2",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub repeat: u32,
    /// The time control of every game (PGN TimeControl: 40/7200:1800, 300+5, 10+0.1, ...).
    #[arg(long, default_value = "10+0.1", value_name = "TIMECONTROL")]
    pub tc: TimeControl,
    /// The event's name (PGN Event tag).
    #[arg(long, default_value = "?")]
    pub event: String,
    /// Where it is played (PGN Site tag).
    #[arg(long, default_value = "?")]
    pub site: String,
    /// The pause after each game's reset. Local engines need none.
    #[arg(long, default_value = "0", value_parser = parse_secs, value_name = "SECS")]
    pub reset_delay: Duration,
    /// The pause after each game's conclude.
    #[arg(long, default_value = "0", value_parser = parse_secs, value_name = "SECS")]
    pub conclude_delay: Duration,
    /// When repetitions and the fifty-move rule end a game.
    #[arg(long, value_enum, default_value_t = DrawRuleArg::Auto)]
    pub draw_rule: DrawRuleArg,
    /// What an illegal move costs (with nobody at a console, a fault is a loss too).
    #[arg(long, value_enum, default_value_t = IllegalArg::Loss)]
    pub illegal: IllegalArg,
    /// Adjudicate a loss by the engines' scores (their `ce`): `movecount=N score=CP
    /// [twosided]`: a side whose score stays at or below -CP for N of its moves loses
    /// (with twosided, only while its opponent's stays at or above CP).
    #[arg(long, num_args = 2..=3, value_name = "KEY=VALUE")]
    pub resign: Vec<String>,
    /// Adjudicate a draw: `movenumber=N movecount=N score=CP`: from move N on, both
    /// scores within CP of zero for N moves of each side.
    #[arg(long, num_args = 3, value_name = "KEY=VALUE")]
    pub draw: Vec<String>,
    /// The SPRT of a two-player match over its game pairs: `elo0=E0 elo1=E1 alpha=A
    /// beta=B` (alpha and beta 0.05 when not given); the match stops at a bound, and
    /// the exit status says which (below).
    #[arg(long, num_args = 2..=4, value_name = "KEY=VALUE")]
    pub sprt: Vec<String>,
    /// Print the ratings after every N games with a result, and at the end: each
    /// player's score, W/D/L, Elo with its 95 % interval, LOS and draw ratio; for a
    /// two-player match also its game pairs' counts [LL LD DD/WL WD WW], Elo, nElo and
    /// LOS. 0: only at the end.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub rating_interval: u32,
    /// Adjudicate a draw after this many full moves of the game (twice as many plies
    /// from its start position).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub maxmoves: Option<u32>,
    /// Run without a console: standard input is not read (its end never stops
    /// anything either way).
    #[arg(long)]
    pub unattended: bool,
    /// Print plain lines, one per event, instead of the full-screen view. The view is
    /// shown when standard input and output are a terminal (unless TERM is dumb, or the
    /// terminal is a serial line) and the console is attended; see docs/supervisor.md.
    #[arg(long)]
    pub plain: bool,
    /// The event's folder: games.pgn, each game's journal, standings.txt and .json,
    /// event.jsonl. It must not hold an event already.
    #[arg(long, value_name = "DIR", required_unless_present_any = ["resume", "config"])]
    pub out: Option<PathBuf>,
    /// Also append every game to FILE as it ends (besides DIR/games.pgn), as
    /// cutechess-cli's -pgnout.
    #[arg(long, value_name = "FILE")]
    pub pgnout: Option<PathBuf>,
    /// Append the final position of every game to FILE as an EPD line with its id and
    /// result: `<position> fmvn 41; hmvc 3; id "DIR/game-0007"; c9 "1-0";`.
    #[arg(long, value_name = "FILE")]
    pub epdout: Option<PathBuf>,
    /// Take the options from an event file (TOML; see docs/example-serve.toml): every
    /// option is a key of the same name; an option given here overrides its key, and
    /// --engine or --player here replace all the file's players.
    #[arg(long, value_name = "EVENT.toml", conflicts_with = "resume")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub standby: StandbyArgs,
    /// Go on with the event in DIR after a stop or a crash: its players and settings,
    /// its network options among them (--listen, --standby-listen, --standby-sync,
    /// --standby-key, --http), come from DIR/event.jsonl, the games under way go on
    /// from their journals, and the others follow. Only --http (a page other than the
    /// event's), --unattended and --plain go with it.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
}

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

// `argus epd`.
#[derive(Subcommand)]
pub enum EpdCommand {
    /// Check every record: it parses, its position is legal, its operations are
    /// well-formed; errors are reported with their line numbers.
    Check {
        /// The EPD file (`-` or nothing for standard input).
        file: Option<PathBuf>,
    },
    /// Write every record in canonical form (the pfdn verb of EPD spec 7.1).
    Normalize {
        /// The input (`-` or nothing for standard input).
        input: Option<PathBuf>,
        /// The output (nothing for standard output).
        output: Option<PathBuf>,
        /// Copy invalid records unchanged instead of leaving them out.
        #[arg(long)]
        keep_invalid: bool,
    },
    /// Remove every operation with OPCODE (the pfop verb of EPD spec 7.4).
    Purge {
        /// The opcode to remove, such as `c0` or `acn`.
        opcode: String,
        /// The input (`-` or nothing for standard input).
        input: Option<PathBuf>,
        /// The output (nothing for standard output).
        output: Option<PathBuf>,
    },
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

// `argus serial`. Every option but --config, --resume and --continue is also a key of
// an event file, of the same name (see `crate::mediator::config`; the tests below check it).
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
            "tc", "games", "openings", "event", "site", "round", "name_a", "name_b", "pgn",
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

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    use clap::{CommandFactory, Parser};

    use super::{Cli, Command, DrawRuleArg, IllegalArg, SerialArgs, config_hint};
    use crate::core::{DrawRule, IllegalRule};
    use crate::mediator::config::{EventConfig, key_of_option, keys};

    /// The options of `argus serial` that have no key in an event file, and why: they say
    /// how a run finds its match, not what the match is.
    const NOT_IN_A_FILE: [(&str, &str); 4] = [
        ("config", "it names the event file itself"),
        (
            "resume",
            "it names the journal of a match to take over, whose every option is in the journal",
        ),
        (
            "continue",
            "it takes the match over from its journal or starts it, by whether the journal exists; the file names the journal",
        ),
        (
            "plain",
            "it says how this run is shown (plain lines, not the terminal view), not what the match is: one file serves a referee at a terminal and one whose output is logged",
        ),
    ];

    /// The options of `argus serial`, by name (long names; the ids of positional
    /// arguments), but help.
    fn serial_options() -> Vec<String> {
        let cli = Cli::command();
        let serial = cli.find_subcommand("serial").expect("argus serial");
        serial
            .get_arguments()
            .filter(|arg| arg.get_id() != "help")
            .map(|arg| arg.get_long().unwrap_or(arg.get_id().as_str()).to_string())
            .collect()
    }

    /// The key's table and name: `("match", "games")`.
    fn split(key: &str) -> (&str, &str) {
        key.rsplit_once('.').expect("a key in a table")
    }

    #[test]
    fn every_option_of_serial_is_a_key_of_the_same_name_and_every_key_an_option() {
        let options = serial_options();
        let keys: BTreeSet<String> = keys().into_iter().collect();
        let mut covered = BTreeSet::new();
        for name in &options {
            let key = key_of_option(name);
            if let Some((_, why)) = NOT_IN_A_FILE.iter().find(|(n, _)| n == name) {
                assert_eq!(key, None, "--{name} is listed as having no key ({why})");
                continue;
            }
            let Some(key) = key else {
                panic!(
                    "--{name} has no key `{}` in the event file: add one (src/config.rs), or list the option in NOT_IN_A_FILE with the reason",
                    name.replace('-', "_")
                );
            };
            assert_eq!(
                split(&key).1,
                name.replace('-', "_")
                    .trim_end_matches("_a")
                    .trim_end_matches("_b"),
                "--{name}"
            );
            covered.insert(key);
        }
        for (name, _) in NOT_IN_A_FILE {
            assert!(
                options.iter().any(|o| o == name),
                "NOT_IN_A_FILE names --{name}, which argus serial does not have"
            );
        }
        // Every key is an option: one of the above, or a [line] key set again in a
        // player's table for that player's port alone.
        for key in &keys {
            if covered.contains(key) {
                continue;
            }
            let for_one_port = ["player.a.", "player.b."]
                .iter()
                .find_map(|table| key.strip_prefix(table))
                .map(|name| format!("line.{name}"));
            assert!(
                for_one_port.is_some_and(|line| covered.contains(&line)),
                "the event file's key {key} is no option of argus serial: add the option (src/cli.rs), or remove the key"
            );
        }
    }

    /// A name is one key: each has one table, and none could be read as a player's.
    #[test]
    fn no_key_name_is_ambiguous() {
        let mut tables = BTreeMap::new();
        for key in keys() {
            let (table, name) = split(&key);
            if table.starts_with("player.") {
                continue;
            }
            assert!(
                !name.ends_with("_a") && !name.ends_with("_b"),
                "{key}: a name ending in _a or _b is a player's"
            );
            if let Some(other) = tables.insert(name.to_string(), table.to_string()) {
                panic!("`{name}` is a key of both [{other}] and [{table}]");
            }
        }
        // A player's own keys (the port, the name) are no other table's; the others are
        // [line]'s, for that player's port alone.
        for key in keys() {
            let (table, name) = split(&key);
            if let (true, Some(other)) = (table.starts_with("player."), tables.get(name)) {
                assert_eq!(other, "line", "{key} is also a key of [{other}]");
            }
        }
    }

    /// With --config the file gives the match: the command line may add only what has
    /// no key, and --unattended (the same file serves a referee in the hall and one in
    /// the background); clap refuses any other option.
    #[test]
    fn with_config_only_the_options_without_a_key_and_unattended_may_be_given() {
        let cli = Cli::command();
        let serial = cli.find_subcommand("serial").unwrap();
        let config = serial
            .get_arguments()
            .find(|arg| arg.get_id() == "config")
            .unwrap();
        let refused: BTreeSet<&str> = serial
            .get_arg_conflicts_with(config)
            .iter()
            .map(|arg| arg.get_id().as_str())
            .collect();
        for arg in serial.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "config" {
                continue;
            }
            let name = arg.get_long().unwrap_or(id);
            let allowed =
                name == "unattended" || NOT_IN_A_FILE.iter().any(|(option, _)| *option == name);
            assert_eq!(
                refused.contains(id),
                !allowed,
                "--{name} with --config: list it in (or take it out of) the conflicts of --config"
            );
        }
    }

    #[test]
    fn an_option_refused_with_config_names_its_key() {
        let hint = |args: &[&str]| {
            let e = Cli::command()
                .try_get_matches_from(["argus", "serial"].iter().chain(args))
                .map(|_| ())
                .unwrap_err();
            config_hint(&e)
        };
        assert_eq!(
            hint(&["--config", "e.toml", "--reset-delay", "1"]).as_deref(),
            Some("set `reset_delay` in [match] of the event file instead")
        );
        assert_eq!(
            hint(&["--name-b", "Ann", "--config", "e.toml"]).as_deref(),
            Some("set `name` in [player.b] of the event file instead")
        );
        assert_eq!(
            hint(&["--config", "e.toml", "/dev/ttyS0"]).as_deref(),
            Some("set `port` in [player.a] of the event file instead")
        );
        assert_eq!(hint(&["--resume", "j", "--continue"]), None);
    }

    /// A key left out of a file means what the option left off the command line does.
    #[test]
    fn the_file_and_the_command_line_have_the_same_defaults() {
        let Command::Serial(args) = Cli::try_parse_from(["argus", "serial", "/dev/a", "/dev/b"])
            .unwrap()
            .command
        else {
            panic!("argus serial");
        };
        let SerialArgs { line, .. } = args.as_ref();
        let file = "[player.a]\nport = \"/dev/a\"\n[player.b]\nport = \"/dev/b\"\n";
        let event = EventConfig::parse(file, Path::new("")).unwrap();
        assert_eq!(event.time_control, args.tc);
        assert_eq!(event.games, args.games);
        assert_eq!(event.openings, args.openings);
        assert_eq!(event.event, args.event);
        assert_eq!(event.site, args.site);
        assert_eq!(event.round, args.round);
        assert_eq!(
            [&event.ports[0].name, &event.ports[1].name],
            [&args.name_a, &args.name_b]
        );
        assert_eq!(event.pgn, args.pgn);
        assert_eq!(event.journal, args.journal);
        assert_eq!(event.reset_delay, args.reset_delay);
        assert_eq!(event.conclude_delay, args.conclude_delay);
        let draw_rule = match args.draw_rule {
            DrawRuleArg::Auto => DrawRule::Auto,
            DrawRuleArg::Claim => DrawRule::Claim,
        };
        assert_eq!(event.draw_rule, draw_rule);
        let illegal = match args.illegal {
            IllegalArg::Loss => IllegalRule::Loss,
            IllegalArg::Fault => IllegalRule::Fault,
        };
        assert_eq!(event.illegal, illegal);
        assert_eq!(event.unattended, args.unattended);
        assert_eq!(event.no_wire_compensation, args.no_wire_compensation);
        for port in &event.ports {
            assert_eq!(port.line, line.settings());
            assert_eq!(port.baud_given, line.baud.is_some());
        }
        assert_eq!(event.eol, line.eol);
        assert_eq!(event.journal_path("x"), PathBuf::from("argus-x.jsonl"));
    }

    /// The options of `argus serve` with no key in its event file, and why.
    const SERVE_NOT_IN_A_FILE: [(&str, &str); 3] = [
        ("config", "it names the event file itself"),
        (
            "resume",
            "it names the folder of an event to go on with, whose every option is in its event.jsonl",
        ),
        (
            "plain",
            "it says how this run is shown (plain lines, not the terminal view), not what the event is",
        ),
    ];

    #[test]
    fn every_option_of_serve_is_a_key_of_the_same_name_and_every_key_an_option() {
        use crate::server::config::{key_of_option, keys};
        let cli = Cli::command();
        let serve = cli.find_subcommand("serve").expect("argus serve");
        let options: Vec<String> = serve
            .get_arguments()
            .filter(|arg| arg.get_id() != "help")
            .map(|arg| arg.get_long().unwrap_or(arg.get_id().as_str()).to_string())
            .collect();
        let mut covered = BTreeSet::new();
        for name in &options {
            let key = key_of_option(name);
            if let Some((_, why)) = SERVE_NOT_IN_A_FILE.iter().find(|(n, _)| n == name) {
                assert_eq!(key, None, "--{name} is listed as having no key ({why})");
                continue;
            }
            let key = key.unwrap_or_else(|| {
                panic!(
                    "--{name} has no key `{}` in argus serve's event file: add one (src/server/config.rs), or list it in SERVE_NOT_IN_A_FILE with the reason",
                    name.replace('-', "_")
                )
            });
            assert_eq!(
                key.rsplit('.').next(),
                Some(name.replace('-', "_").as_str()),
                "--{name}"
            );
            assert!(
                covered.insert(key.clone()),
                "{key} is the key of two options"
            );
        }
        for key in keys() {
            assert!(
                covered.contains(&key),
                "argus serve's event-file key {key} is no option of argus serve: add the option (src/cli.rs), or remove the key"
            );
        }
        // A name is one key.
        let leaves: BTreeSet<String> = keys()
            .iter()
            .map(|k| k.rsplit('.').next().unwrap().to_string())
            .collect();
        assert_eq!(leaves.len(), keys().len());
        // An [[engine]]'s keys are --engine's words.
        let words = [
            "name",
            "cmd",
            "proto",
            "option",
            "nodes",
            "depth",
            "movetime",
            "restarts",
            "timemargin",
        ];
        let mut engine: Vec<&str> = crate::server::config::engine_keys().to_vec();
        engine.sort_unstable();
        let mut expected = words.to_vec();
        expected.sort_unstable();
        assert_eq!(engine, expected);
        let spec = crate::server::EngineSpec::parse(
            &["name=A", "cmd=x", "proto=uci", "option.Hash=1", "nodes=5"].map(String::from),
        );
        assert!(spec.is_ok(), "{spec:?}");
    }
}
