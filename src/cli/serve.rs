//! What `argus serve` takes on its command line (and in its event file, whose keys are
//! the same options), and the statuses it exits with.

use std::path::PathBuf;

use std::time::Duration;

use clap::Args;

use super::shared::{DrawRuleArg, IllegalArg, StandbyArgs, parse_secs};
use crate::core::clock::TimeControl;

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
    /// A listed player (--player, --players) absent this long (no connection; from the
    /// event's start or its last connection's end) loses by forfeit each game it is
    /// paired in until it connects again. Under --unattended 300 s unless given; an
    /// attended event waits for its players unless given (the supervisor adjudicates).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub absent_after: Option<u64>,
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
    /// The variant: standard, or chess960 (Fischer Random: castling by its rules; without
    /// --openings each encounter starts from one of the 960 positions, drawn by --srand).
    #[arg(long, value_name = "VARIANT", default_value = "standard", value_parser = super::shared::parse_variant)]
    pub variant: crate::core::Variant,
    #[command(flatten)]
    pub tablebase: super::shared::TablebaseArgs,
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
    /// Adjudicate a draw: `movenumber=N movecount=N score=CP`: once N full moves are
    /// complete, both scores within CP of zero for the last N moves of each side, with no
    /// capture or pawn move among them (as cutechess-cli and fastchess count).
    #[arg(long, num_args = 3, value_name = "KEY=VALUE")]
    pub draw: Vec<String>,
    /// The SPRT of a two-player match over its game pairs: `elo0=E0 elo1=E1 alpha=A
    /// beta=B model=logistic|normalized` (alpha and beta 0.05 when not given; elo0 and
    /// elo1 logistic Elo unless model=normalized); the match stops at a bound, and the
    /// exit status says which (below).
    #[arg(long, num_args = 2..=5, value_name = "KEY=VALUE")]
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
