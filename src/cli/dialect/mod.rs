//! The command lines of the match managers engine testers already use, fastchess 1.8's
//! and cutechess-cli 1.5's, read as those programs read them (`fastchess.rs`,
//! `cutechess.rs`) into one [`MatchArgs`]: the engines, the schedule, the openings, the
//! adjudication, the outputs. `argus fastchess ARGS...` and `argus cutechess-cli
//! ARGS...`, or argus started under those programs' names, run what they read
//! (`commands/dialect`) as an `argus serve` event.
//!
//! Reading is one step and pure: what was typed, as the program would hold it, with its
//! own errors for words it would refuse. What argus does not do yet is refused in the
//! next step, where the event is resolved, each with one line that names the option and
//! says why.

pub mod cutechess;
pub mod fastchess;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

/// Which program's command line and output.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// fastchess 1.8.
    #[default]
    Fastchess,
    /// cutechess-cli 1.5.
    Cutechess,
}

/// What a fastchess command line asks for.
#[derive(Debug)]
pub enum Run {
    /// `-version`, `--version`, `-v`: print the version.
    Version,
    /// `-help`, `--help`, or no option at all: print the help.
    Help,
    /// A match.
    Match(Box<MatchArgs>),
}

/// One `-engine`'s settings, as fastchess keeps them (a later word for a key replaces an
/// earlier one; `-each`'s words come last, for every engine).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineWords {
    /// `cmd=`.
    pub cmd: String,
    /// `name=`.
    pub name: String,
    /// `args=`: more arguments, split at white space (quotes keep words together).
    pub args: Option<String>,
    /// `dir=`: the engine's working folder, where `cmd` is found.
    pub dir: Option<PathBuf>,
    /// `tc=`, as typed (cutechess's syntax: `moves/minutes:seconds+increment`).
    pub tc: Option<String>,
    /// `st=`: seconds a move.
    pub st: Option<f64>,
    /// `timemargin=`: milliseconds.
    pub timemargin: Option<u64>,
    /// `nodes=`.
    pub nodes: Option<u64>,
    /// `plies=` or `depth=`.
    pub plies: Option<u32>,
    /// `restart=on`.
    pub restart: bool,
    /// `option.NAME=VALUE`, in order (a later one for the same name replaces it).
    pub options: Vec<(String, String)>,
    /// `proto=`: `uci` (fastchess's only) or `xboard`.
    pub proto: String,
    /// `initstr=`: lines sent to the engine as it starts, before its protocol's first.
    pub init: Vec<String>,
}

/// `-openings`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpeningsWords {
    /// The words as typed (`file=`, `format=`, `order=`, `plies=`, `start=`), which
    /// argus's own `--openings` reads the same way.
    pub words: Vec<String>,
    /// `file=`.
    pub file: PathBuf,
}

/// `-pgnout`.
#[derive(Clone, Debug, PartialEq)]
pub struct PgnOut {
    /// `file=`.
    pub file: PathBuf,
    /// `append=` (true unless `append=false`).
    pub append: bool,
    /// `notation=`: `san`, `lan` or `uci`.
    pub notation: String,
    /// The per-move extras asked (`nodes=true`, `seldepth=true`, ...), by key.
    pub extras: Vec<String>,
    /// `min=true`.
    pub min: bool,
    /// `match_line=REGEX`, each.
    pub match_lines: Vec<String>,
}

/// `-epdout`.
#[derive(Clone, Debug, PartialEq)]
pub struct EpdOut {
    /// `file=`.
    pub file: PathBuf,
    /// `append=` (true unless `append=false`).
    pub append: bool,
}

/// `-tournament`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Tournament {
    /// Everybody meets everybody (the default).
    #[default]
    RoundRobin,
    /// The first `-seeds` engines meet all the others.
    Gauntlet,
    /// A knockout by seed (cutechess-cli's).
    Knockout,
}

/// `-output format=`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// fastchess's lines (the default).
    #[default]
    Fastchess,
    /// cutechess-cli's.
    Cutechess,
}

/// `-log`.
#[derive(Clone, Debug, PartialEq)]
pub struct LogOut {
    /// `file=`.
    pub file: PathBuf,
    /// `level=`.
    pub level: String,
    /// `append=` (true unless `append=false`).
    pub append: bool,
    /// `compress=true`.
    pub compress: bool,
    /// `realtime=` (true unless `realtime=false`).
    pub realtime: bool,
    /// `engine=true`: every line to and from each engine.
    pub engine: bool,
}

/// A fastchess command line, read.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchArgs {
    /// Whose command line it is (and whose lines the match prints).
    pub dialect: Dialect,
    /// The engines, in order.
    pub engines: Vec<EngineWords>,
    /// `-concurrency` (0 or less: the hardware threads less that many).
    pub concurrency: i64,
    /// `-force-concurrency`.
    pub force_concurrency: bool,
    /// `-rounds`.
    pub rounds: u32,
    /// `-games` (`-repeat` sets it to 2).
    pub games: u32,
    /// The games in a row of an encounter that play one opening: cutechess-cli's
    /// `-repeat [N]`; fastchess's are all the round's `-games` (None).
    pub repeat: Option<u32>,
    /// `-sprt`'s words.
    pub sprt: Option<Vec<String>>,
    /// `-tournament`.
    pub tournament: Tournament,
    /// `-seeds`.
    pub seeds: u32,
    /// `-variant fischerandom`.
    pub chess960: bool,
    /// `-noswap`.
    pub noswap: bool,
    /// `-reverse`.
    pub reverse: bool,
    /// `-wait`: milliseconds between games.
    pub wait_ms: u64,
    /// `-draw`'s words.
    pub draw: Option<Vec<String>>,
    /// `-resign`'s words.
    pub resign: Option<Vec<String>>,
    /// `-maxmoves`.
    pub maxmoves: Option<u32>,
    /// `-tb`.
    pub tb: Option<String>,
    /// `-tbpieces`.
    pub tbpieces: Option<u32>,
    /// `-tbignore50`.
    pub tbignore50: bool,
    /// `-tbadjudicate`.
    pub tbadjudicate: Option<String>,
    /// `-openings`.
    pub openings: Option<OpeningsWords>,
    /// `-srand`.
    pub srand: Option<u64>,
    /// `-output format=`.
    pub output: OutputFormat,
    /// `-pgnout`.
    pub pgnout: Option<PgnOut>,
    /// `-epdout`.
    pub epdout: Option<EpdOut>,
    /// `-event`.
    pub event: Option<String>,
    /// `-site`.
    pub site: Option<String>,
    /// `-ratinginterval` (0: never but at the end).
    pub ratinginterval: u32,
    /// `-scoreinterval` (0: never but at the end).
    pub scoreinterval: u32,
    /// `-report penta=`.
    pub report_penta: bool,
    /// `-config`'s words.
    pub config: Option<Vec<String>>,
    /// `-recover`.
    pub recover: bool,
    /// `-autosaveinterval`.
    pub autosaveinterval: u32,
    /// `-crc32 pgn=true`.
    pub crc32_pgn: bool,
    /// `-check-mate-pvs`.
    pub check_mate_pvs: bool,
    /// `-show-latency`.
    pub show_latency: bool,
    /// `-testEnv`.
    pub test_env: bool,
    /// `-log`.
    pub log: Option<LogOut>,
    /// `-use-affinity [CPUS]`.
    pub affinity: Option<Option<String>>,
    /// `-startup-ms`, `-ucinewgame-ms`, `-ping-ms`: the limits on an engine's answers.
    pub startup_ms: Option<u64>,
    /// `-ucinewgame-ms`.
    pub ucinewgame_ms: Option<u64>,
    /// `-ping-ms`.
    pub ping_ms: Option<u64>,
    /// The options in the order they were typed (for refusals that name the first).
    pub typed: Vec<String>,
}

impl Default for MatchArgs {
    fn default() -> MatchArgs {
        MatchArgs {
            engines: Vec::new(),
            dialect: Dialect::Fastchess,
            concurrency: 1,
            force_concurrency: false,
            rounds: 2,
            games: 2,
            repeat: None,
            sprt: None,
            tournament: Tournament::RoundRobin,
            seeds: 1,
            chess960: false,
            noswap: false,
            reverse: false,
            wait_ms: 0,
            draw: None,
            resign: None,
            maxmoves: None,
            tb: None,
            tbpieces: None,
            tbignore50: false,
            tbadjudicate: None,
            openings: None,
            srand: None,
            output: OutputFormat::Fastchess,
            pgnout: None,
            epdout: None,
            event: None,
            site: None,
            ratinginterval: 10,
            scoreinterval: 1,
            report_penta: true,
            config: None,
            recover: false,
            autosaveinterval: 20,
            crc32_pgn: false,
            check_mate_pvs: false,
            show_latency: false,
            test_env: false,
            log: None,
            affinity: None,
            startup_ms: None,
            ucinewgame_ms: None,
            ping_ms: None,
            typed: Vec::new(),
        }
    }
}

/// A time control in fastchess's (and cutechess-cli's) syntax:
/// `[moves/][minutes:]seconds[+increment]`, `inf`, `infinite`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TcLimits {
    /// Moves per period (0: all the game).
    pub moves: u32,
    /// Milliseconds a period (0 with `inf`).
    pub time_ms: u64,
    /// Milliseconds added after each move.
    pub increment_ms: u64,
}

/// Reads a time control as fastchess does (minutes before a colon, seconds after; `inf`
/// for none).
///
/// # Errors
///
/// A sentence naming the text, for an hourglass or a number that is not one.
///
/// # Examples
///
/// ```
/// use argus::cli::dialect::tc_limits;
/// let tc = tc_limits("40/1:30+1").unwrap();
/// assert_eq!((tc.moves, tc.time_ms, tc.increment_ms), (40, 90_000, 1_000));
/// assert_eq!(tc_limits("10.420+0.104").unwrap().time_ms, 10_420);
/// assert_eq!(tc_limits("inf").unwrap().time_ms, 0);
/// ```
pub fn tc_limits(text: &str) -> Result<TcLimits, String> {
    if text.contains("hg") {
        return Err("Hourglass time control not supported.".into());
    }
    let mut tc = TcLimits {
        moves: 0,
        time_ms: 0,
        increment_ms: 0,
    };
    if text == "inf" || text == "infinite" {
        return Ok(tc);
    }
    let bad = || format!("{text:?} is not a time control ([moves/][minutes:]seconds[+increment])");
    let ms = |s: &str| -> Result<u64, String> {
        let secs: f64 = s.parse().map_err(|_| bad())?;
        if !secs.is_finite() || secs < 0.0 {
            return Err(bad());
        }
        // Cut to the millisecond below, as fastchess does: `1.001` is 1000 ms there,
        // the float being just under 1001.
        Ok((secs * 1000.0) as u64)
    };
    let mut rest = text;
    if let Some((moves, after)) = rest.split_once('/') {
        tc.moves = match moves {
            "inf" | "infinite" => 0,
            m => m.parse().map_err(|_| bad())?,
        };
        rest = after;
    }
    if let Some((before, inc)) = rest.split_once('+') {
        tc.increment_ms = ms(inc)?;
        rest = before;
    }
    tc.time_ms = match rest.split_once(':') {
        Some((minutes, seconds)) => ms(minutes)? * 60 + ms(seconds)?,
        None => ms(rest)?,
    };
    Ok(tc)
}

impl TcLimits {
    /// Whether the clock runs at all.
    pub fn timed(&self) -> bool {
        self.time_ms + self.increment_ms > 0
    }

    /// The same control in PGN's `TimeControl` syntax (seconds), as argus's own options
    /// write it: `40/90+1`, `10.42+0.104`; None for `inf`.
    pub fn pgn(&self) -> Option<String> {
        if !self.timed() {
            return None;
        }
        let secs = |ms: u64| {
            let text = format!("{}.{:03}", ms / 1000, ms % 1000);
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        let mut out = String::new();
        if self.moves > 0 {
            out.push_str(&format!("{}/", self.moves));
        }
        out.push_str(&secs(self.time_ms));
        if self.increment_ms > 0 {
            out.push('+');
            out.push_str(&secs(self.increment_ms));
        }
        Some(out)
    }
}
