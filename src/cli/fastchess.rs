//! fastchess's command line (its 1.8 man page is the reference), read as fastchess reads
//! it: single-dash options, each followed by its values up to the next word that starts
//! with a dash (a negative number is a value), `key=value` words for most, `-each`
//! applied to every engine after all the others. `argus fastchess ARGS...`, or argus
//! started under the name `fastchess` or `fastchess-ob`, runs what this reads
//! (`commands/fastchess`), as an `argus serve` event.
//!
//! Reading is one step and pure: what was typed, as fastchess would hold it, with
//! fastchess's own errors for words it would refuse. What argus does not do yet is
//! refused in the next step, where the event is resolved, each with one line that names
//! the option and says why.

use std::path::PathBuf;

/// `argus fastchess ARGS...`: the words after it, read by [`parse`] rather than by clap.
#[derive(clap::Args, Debug)]
pub struct FastchessWords {
    /// fastchess's options, as fastchess takes them (`-engine cmd=... name=... -engine
    /// ... -each tc=10+0.1 -rounds 100 -repeat ...`; docs/fastchess.md).
    #[arg(
        num_args = 0..,
        allow_hyphen_values = true,
        trailing_var_arg = true,
        value_name = "ARGS"
    )]
    pub words: Vec<String>,
}

/// The version fastchess prints, as the one fishtest's worker pins checks it:
/// `fastchess alpha 1.8.1 <date>-<sha>`, where the sha is a prefix of the commit fishtest
/// builds (its worker rebuilds fastchess when this line is not one of those).
pub const FASTCHESS_VERSION: &str = "fastchess alpha 1.8.1 01010101-58072f23";

/// What a fastchess command line asks for.
#[derive(Debug)]
pub enum FastchessRun {
    /// `-version`, `--version`, `-v`: print the version.
    Version,
    /// `-help`, `--help`, or no option at all: print the help.
    Help,
    /// A match.
    Match(Box<FastchessArgs>),
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
pub struct FastchessArgs {
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
    /// `-quick`'s words.
    pub quick: Option<Vec<String>>,
    /// The options in the order they were typed (for refusals that name the first).
    pub typed: Vec<String>,
}

impl Default for FastchessArgs {
    fn default() -> FastchessArgs {
        FastchessArgs {
            engines: Vec::new(),
            concurrency: 1,
            force_concurrency: false,
            rounds: 2,
            games: 2,
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
            quick: None,
            typed: Vec::new(),
        }
    }
}

/// How an option takes its values.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Style {
    /// None.
    Flag,
    /// Exactly one.
    Single,
    /// `key=value` words, at least one.
    KeyValue,
    /// Any words.
    Free,
}

/// fastchess's options and how each takes its values (without the leading dash).
const OPTIONS: &[(&str, Style)] = &[
    ("engine", Style::KeyValue),
    ("each", Style::KeyValue),
    ("pgnout", Style::KeyValue),
    ("epdout", Style::KeyValue),
    ("openings", Style::KeyValue),
    ("sprt", Style::KeyValue),
    ("draw", Style::KeyValue),
    ("resign", Style::KeyValue),
    ("maxmoves", Style::Single),
    ("tb", Style::Single),
    ("tbpieces", Style::Single),
    ("tbignore50", Style::Flag),
    ("tbadjudicate", Style::Single),
    ("autosaveinterval", Style::Single),
    ("log", Style::KeyValue),
    ("config", Style::KeyValue),
    ("report", Style::KeyValue),
    ("output", Style::KeyValue),
    ("concurrency", Style::Single),
    ("crc32", Style::KeyValue),
    ("force-concurrency", Style::Flag),
    ("event", Style::Free),
    ("site", Style::Free),
    ("games", Style::Single),
    ("rounds", Style::Single),
    ("wait", Style::Single),
    ("noswap", Style::Flag),
    ("reverse", Style::Flag),
    ("ratinginterval", Style::Single),
    ("scoreinterval", Style::Single),
    ("srand", Style::Single),
    ("seeds", Style::Single),
    ("version", Style::Flag),
    ("-version", Style::Flag),
    ("v", Style::Flag),
    ("-v", Style::Flag),
    ("help", Style::Flag),
    ("-help", Style::Flag),
    ("recover", Style::Flag),
    ("repeat", Style::Free),
    ("variant", Style::Single),
    ("tournament", Style::Single),
    ("quick", Style::KeyValue),
    ("use-affinity", Style::Free),
    ("check-mate-pvs", Style::Flag),
    ("show-latency", Style::Flag),
    ("debug", Style::Flag),
    ("testEnv", Style::Flag),
    ("startup-ms", Style::Single),
    ("ucinewgame-ms", Style::Single),
    ("ping-ms", Style::Single),
];

/// Whether `word` starts a new option: a dash not followed by a digit.
fn is_option(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next() == Some('-') && !chars.next().is_some_and(|c| c.is_ascii_digit())
}

/// Reads fastchess's command line, `args` without the program's name.
///
/// # Errors
///
/// The lines fastchess prints for what it refuses to read: an unknown option, a value
/// missing or not a number, a `key=value` word it does not know.
///
/// # Examples
///
/// ```
/// use argus::cli::fastchess::{FastchessRun, parse};
/// let line = "-engine cmd=sf name=A -engine cmd=sf name=B -each tc=10+0.1 proto=uci -rounds 4 -repeat";
/// let words: Vec<String> = line.split(' ').map(String::from).collect();
/// let FastchessRun::Match(args) = parse(&words).unwrap() else { panic!() };
/// assert_eq!((args.rounds, args.games), (4, 2));
/// assert_eq!(args.engines[1].tc.as_deref(), Some("10+0.1"));
/// ```
pub fn parse(args: &[String]) -> Result<FastchessRun, String> {
    if args.is_empty() {
        return Ok(FastchessRun::Help);
    }
    let mut out = FastchessArgs::default();
    let mut each: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let flag = &args[i];
        let known = flag
            .strip_prefix('-')
            .and_then(|name| OPTIONS.iter().find(|(n, _)| *n == name));
        let Some(&(name, style)) = known else {
            return Err(format!("Unrecognized option: {flag} parsing failed."));
        };
        let mut params: Vec<String> = Vec::new();
        while i + 1 < args.len() && !is_option(&args[i + 1]) {
            i += 1;
            params.push(args[i].clone());
        }
        i += 1;
        let reading = |why: String| {
            format!(
                "Error while reading option \"{flag}\" with value \"{}\"\nReason: {why}",
                if params.is_empty() {
                    "<none>".to_string()
                } else {
                    params.join(" ")
                }
            )
        };
        let pairs = check_style(flag, style, &params).map_err(reading)?;
        out.typed.push(name.to_string());
        match name {
            "version" | "-version" | "v" | "-v" => return Ok(FastchessRun::Version),
            "help" | "-help" => return Ok(FastchessRun::Help),
            "each" => each.extend(pairs),
            _ => apply(&mut out, name, &params, &pairs).map_err(reading)?,
        }
    }
    for engine in &mut out.engines {
        for (key, value) in &each {
            engine_word(engine, key, value).map_err(|why| {
                format!(
                    "Error while reading option \"-each\" with value \"{key}={value}\"\nReason: {why}"
                )
            })?;
        }
    }
    sanitize(&mut out)?;
    Ok(FastchessRun::Match(Box::new(out)))
}

/// The `key=value` pairs of an option's values, checked against how it takes them.
fn check_style(
    flag: &str,
    style: Style,
    params: &[String],
) -> Result<Vec<(String, String)>, String> {
    match style {
        Style::Flag if !params.is_empty() => {
            Err(format!("Option \"{flag}\" does not accept parameters."))
        }
        Style::Single if params.len() != 1 => {
            Err(format!("Option \"{flag}\" expects exactly one value."))
        }
        Style::KeyValue => {
            if params.is_empty() {
                return Err(format!("Option \"{flag}\" expects key=value parameters."));
            }
            params
                .iter()
                .map(|p| match p.split_once('=') {
                    Some((k, v)) if !k.is_empty() && !v.is_empty() => {
                        Ok((k.to_string(), v.to_string()))
                    }
                    _ => Err(format!(
                        "Option \"{flag}\" expects key=value pairs, got \"{p}\"."
                    )),
                })
                .collect()
        }
        _ => Ok(Vec::new()),
    }
}

/// fastchess's error for a key it does not know.
fn unknown(option: &str, key: &str, value: &str) -> String {
    format!("Unrecognized {option} option \"{key}\" with value \"{value}\".")
}

/// A whole number, as fastchess reads it.
fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("expected a whole number, got \"{text}\""))
}

/// `true` or `false`.
fn boolean(option: &str, key: &str, value: &str) -> Result<bool, String> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(unknown(option, key, value)),
    }
}

/// Applies one option (not `-each`, not `-version`/`-help`).
fn apply(
    out: &mut FastchessArgs,
    name: &str,
    params: &[String],
    pairs: &[(String, String)],
) -> Result<(), String> {
    let single = || params.first().map_or("", String::as_str);
    let words = || -> Vec<String> { pairs.iter().map(|(k, v)| format!("{k}={v}")).collect() };
    match name {
        "engine" => {
            let mut engine = EngineWords::default();
            for (key, value) in pairs {
                engine_word(&mut engine, key, value)?;
            }
            out.engines.push(engine);
        }
        "pgnout" => out.pgnout = Some(pgnout(pairs)?),
        "epdout" => {
            let mut file = None;
            let mut append = true;
            for (key, value) in pairs {
                match key.as_str() {
                    "file" => file = Some(PathBuf::from(value)),
                    "append" => append = boolean("epdout", key, value)?,
                    _ => return Err(unknown("epdout", key, value)),
                }
            }
            let file = file.ok_or("Please specify filename for epd output.")?;
            out.epdout = Some(EpdOut { file, append });
        }
        "openings" => {
            let mut file = None;
            for (key, value) in pairs {
                match key.as_str() {
                    "file" => file = Some(PathBuf::from(value)),
                    "format" if value == "epd" || value == "pgn" => {}
                    "order" if value == "sequential" || value == "random" => {}
                    "plies" => {
                        number::<i64>(value)?;
                    }
                    "start" => {
                        if number::<i64>(value)? < 1 {
                            return Err("Starting offset must be at least 1!".into());
                        }
                    }
                    "policy" if value == "round" => {}
                    "policy" => return Err("Unsupported opening book policy.".into()),
                    "format" => return Err(unknown("openings format", key, value)),
                    "order" => return Err(unknown("openings order", key, value)),
                    _ => return Err(unknown("openings", key, value)),
                }
            }
            let file = file.unwrap_or_default();
            if !file.as_os_str().is_empty() && !file.exists() {
                return Err(format!("Opening file does not exist: {}", file.display()));
            }
            let words = words()
                .into_iter()
                .filter(|w| !w.starts_with("policy="))
                .collect();
            out.openings = Some(OpeningsWords { words, file });
        }
        "sprt" => {
            for (key, value) in pairs {
                match key.as_str() {
                    "elo0" | "elo1" | "alpha" | "beta" => {
                        value
                            .parse::<f64>()
                            .map_err(|_| format!("expected a number, got \"{value}\""))?;
                    }
                    "model" => {}
                    _ => return Err(unknown("sprt", key, value)),
                }
            }
            out.sprt = Some(words());
        }
        "draw" => {
            for (key, value) in pairs {
                match key.as_str() {
                    "movenumber" | "movecount" => {
                        number::<i64>(value)?;
                    }
                    "score" if number::<i64>(value)? < 0 => {
                        return Err("Score cannot be negative.".into());
                    }
                    "score" => {}
                    _ => return Err(unknown("draw", key, value)),
                }
            }
            out.draw = Some(words());
        }
        "resign" => {
            for (key, value) in pairs {
                match key.as_str() {
                    "movecount" => {
                        number::<i64>(value)?;
                    }
                    "twosided" => {
                        boolean("resign", key, value)?;
                    }
                    "score" if number::<i64>(value)? < 0 => {
                        return Err("Score cannot be negative.".into());
                    }
                    "score" => {}
                    _ => return Err(unknown("resign", key, value)),
                }
            }
            out.resign = Some(words());
        }
        "maxmoves" => out.maxmoves = Some(number(single())?),
        "tb" => out.tb = Some(single().to_string()),
        "tbpieces" => out.tbpieces = Some(number(single())?),
        "tbignore50" => out.tbignore50 = true,
        "tbadjudicate" => match single() {
            "WIN_LOSS" | "DRAW" | "BOTH" => out.tbadjudicate = Some(single().to_string()),
            other => return Err(format!("Invalid tb adjudication type: {other}")),
        },
        "autosaveinterval" => out.autosaveinterval = number(single())?,
        "log" => out.log = Some(log(pairs)?),
        "config" => {
            for (key, value) in pairs {
                if !["file", "outname", "discard", "stats"].contains(&key.as_str()) {
                    return Err(unknown("config", key, value));
                }
            }
            out.config = Some(words());
        }
        "report" => {
            for (key, value) in pairs {
                match key.as_str() {
                    "penta" => out.report_penta = boolean("report", key, value)?,
                    _ => return Err(unknown("report", key, value)),
                }
            }
        }
        "output" => {
            for (key, value) in pairs {
                match (key.as_str(), value.as_str()) {
                    ("format", "fastchess") => out.output = OutputFormat::Fastchess,
                    ("format", "cutechess") => out.output = OutputFormat::Cutechess,
                    _ => return Err(unknown("output", key, value)),
                }
            }
        }
        "concurrency" => out.concurrency = number(single())?,
        "crc32" => {
            for (key, value) in pairs {
                match key.as_str() {
                    "pgn" => out.crc32_pgn = boolean("crc", key, value)?,
                    _ => return Err(unknown("crc", key, value)),
                }
            }
        }
        "force-concurrency" => out.force_concurrency = true,
        // fastchess joins the words of -event and -site without a space.
        "event" => out.event = Some(params.concat()),
        "site" => out.site = Some(params.concat()),
        "games" => out.games = number(single())?,
        "rounds" => out.rounds = number(single())?,
        "wait" => out.wait_ms = number(single())?,
        "noswap" => out.noswap = true,
        "reverse" => out.reverse = true,
        "ratinginterval" => out.ratinginterval = number(single())?,
        "scoreinterval" => out.scoreinterval = number(single())?,
        "srand" => out.srand = Some(number(single())?),
        "seeds" => out.seeds = number(single())?,
        "recover" => out.recover = true,
        "repeat" => {
            out.games = match params {
                [n] if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => number(n)?,
                _ => 2,
            };
        }
        "variant" => match single() {
            "standard" => out.chess960 = false,
            "fischerandom" => out.chess960 = true,
            _ => return Err("Unknown variant.".into()),
        },
        "tournament" => {
            out.tournament = match single() {
                "gauntlet" => Tournament::Gauntlet,
                "roundrobin" => Tournament::RoundRobin,
                _ => {
                    return Err(
                        "Unsupported tournament format. Only supports roundrobin and gauntlet."
                            .into(),
                    );
                }
            };
        }
        "quick" => out.quick = Some(words()),
        "use-affinity" => out.affinity = Some(params.first().cloned()),
        "check-mate-pvs" => out.check_mate_pvs = true,
        "show-latency" => out.show_latency = true,
        "debug" => {
            return Err("The 'debug' option does not exist in fastchess. Use the 'log' option instead to write all engine input and output into a text file.".into());
        }
        "testEnv" => out.test_env = true,
        "startup-ms" => out.startup_ms = Some(number(single())?),
        "ucinewgame-ms" => out.ucinewgame_ms = Some(number(single())?),
        "ping-ms" => out.ping_ms = Some(number(single())?),
        other => unreachable!("option -{other} is listed but not applied"),
    }
    Ok(())
}

/// One `key=value` word of `-engine` or `-each`.
fn engine_word(engine: &mut EngineWords, key: &str, value: &str) -> Result<(), String> {
    let seconds = |text: &str| -> Result<f64, String> {
        text.parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| format!("expected a number of seconds, got \"{text}\""))
    };
    match key {
        "cmd" => engine.cmd = value.to_string(),
        "name" => engine.name = value.to_string(),
        "tc" => {
            tc_limits(value)?;
            engine.tc = Some(value.to_string());
        }
        "st" => engine.st = Some(seconds(value)?),
        "timemargin" => {
            let margin: i64 = number(value)?;
            engine.timemargin = Some(
                u64::try_from(margin)
                    .map_err(|_| "The value for timemargin cannot be a negative number.")?,
            );
        }
        "nodes" => engine.nodes = Some(number(value)?),
        "plies" | "depth" => engine.plies = Some(number(value)?),
        "dir" => engine.dir = Some(PathBuf::from(value)),
        "args" => engine.args = Some(value.to_string()),
        "restart" => match value {
            "on" => engine.restart = true,
            "off" => engine.restart = false,
            _ => {
                return Err(format!(
                    "Invalid parameter (must be either \"on\" or \"off\"): {value}"
                ));
            }
        },
        "proto" if value == "uci" => {}
        "proto" => return Err("Unsupported protocol.".into()),
        _ => match key.strip_prefix("option.") {
            Some(option) => {
                engine.options.retain(|(name, _)| name != option);
                engine.options.push((option.to_string(), value.to_string()));
            }
            None => return Err(unknown("engine", key, value)),
        },
    }
    Ok(())
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
/// use argus::cli::fastchess::tc_limits;
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
        // Rounded to the millisecond (fastchess truncates 2.0009 to 2000; a time given
        // to the millisecond is read alike either way).
        Ok((secs * 1000.0).round() as u64)
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

/// `-pgnout`'s words.
fn pgnout(pairs: &[(String, String)]) -> Result<PgnOut, String> {
    let mut out = PgnOut {
        file: PathBuf::new(),
        append: true,
        notation: "san".into(),
        extras: Vec::new(),
        min: false,
        match_lines: Vec::new(),
    };
    for (key, value) in pairs {
        match key.as_str() {
            "file" => out.file = PathBuf::from(value),
            "append" => out.append = boolean("pgnout", key, value)?,
            "min" => out.min = boolean("pgnout", key, value)?,
            "nodes" | "seldepth" | "nps" | "hashfull" | "tbhits" | "timeleft" | "latency"
            | "pv" => {
                out.extras.retain(|k| k != key);
                if boolean("pgnout", key, value)? {
                    out.extras.push(key.clone());
                }
            }
            "notation" => match value.as_str() {
                "san" | "lan" | "uci" => out.notation.clone_from(value),
                _ => return Err(unknown("pgnout notation", key, value)),
            },
            "match_line" => out.match_lines.push(value.clone()),
            _ => return Err(unknown("pgnout", key, value)),
        }
    }
    if out.file.as_os_str().is_empty() {
        return Err("Please specify filename for pgn output.".into());
    }
    Ok(out)
}

/// `-log`'s words.
fn log(pairs: &[(String, String)]) -> Result<LogOut, String> {
    let mut out = LogOut {
        file: PathBuf::new(),
        level: "warn".into(),
        append: true,
        compress: false,
        realtime: true,
        engine: false,
    };
    for (key, value) in pairs {
        match key.as_str() {
            "file" => out.file = PathBuf::from(value),
            "level" => match value.as_str() {
                "trace" | "info" | "warn" | "err" | "fatal" => out.level.clone_from(value),
                _ => return Err(unknown("log level", key, value)),
            },
            "append" => out.append = boolean("log", key, value)?,
            "compress" => out.compress = boolean("log", key, value)?,
            "realtime" => out.realtime = boolean("log", key, value)?,
            "engine" => out.engine = boolean("log", key, value)?,
            _ => return Err(unknown("log", key, value)),
        }
    }
    Ok(out)
}

/// What fastchess puts right or refuses once everything is read: more than 2 games a
/// round is taken as games and rounds swapped; pentanomial reports need game pairs and
/// fastchess's output; engines need names, unique, and a time control or a limit.
fn sanitize(out: &mut FastchessArgs) -> Result<(), String> {
    if out.games > 2 {
        std::mem::swap(&mut out.games, &mut out.rounds);
        if out.games > 2 {
            return Err("Error: Exceeded -game limit! Must be less than 2".into());
        }
    }
    if out.output == OutputFormat::Cutechess || out.games != 2 {
        out.report_penta = false;
    }
    if out.chess960
        && out
            .openings
            .as_ref()
            .is_none_or(|o| o.file.as_os_str().is_empty())
    {
        return Err("Error: Please specify a Chess960 opening book".into());
    }
    if out.engines.len() < 2 {
        return Err("Error: Need at least two engines to start!".into());
    }
    for (i, engine) in out.engines.iter().enumerate() {
        if engine.name.is_empty() {
            return Err("Error; please specify a name for each engine!".into());
        }
        let timed = engine
            .tc
            .as_deref()
            .is_some_and(|tc| tc_limits(tc).is_ok_and(|t| t.timed()));
        let st = engine.st.is_some_and(|s| s > 0.0);
        if !timed && !st && engine.nodes.unwrap_or(0) == 0 && engine.plies.unwrap_or(0) == 0 {
            return Err("Error; no TimeControl specified!".into());
        }
        if timed && st {
            return Err("Error; cannot use tc and st together!".into());
        }
        if out.engines[..i].iter().any(|e| e.name == engine.name) {
            return Err(format!(
                "Error: Engine with the same name are not allowed!: {}",
                engine.name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn read(line: &str) -> Result<FastchessArgs, String> {
        match parse(&words(line))? {
            FastchessRun::Match(args) => Ok(*args),
            other => panic!("{other:?}"),
        }
    }

    const TWO: &str = "-engine cmd=a name=A tc=1+0.01 -engine cmd=b name=B tc=1+0.01";

    #[test]
    fn each_comes_after_every_engine_and_wins() {
        let args = read(
            "-each tc=2+0.02 option.Hash=8 -engine cmd=a name=A option.Hash=16 tc=1 -engine cmd=b name=B",
        )
        .unwrap();
        for engine in &args.engines {
            assert_eq!(engine.tc.as_deref(), Some("2+0.02"));
            assert_eq!(engine.options, [("Hash".to_string(), "8".to_string())]);
        }
    }

    #[test]
    fn negative_numbers_are_values_and_dashes_start_options() {
        let args = read(&format!("{TWO} -concurrency -1 -rounds 3")).unwrap();
        assert_eq!((args.concurrency, args.rounds), (-1, 3));
        assert_eq!(
            parse(&words(&format!("{TWO} -rounds"))).unwrap_err(),
            "Error while reading option \"-rounds\" with value \"<none>\"\nReason: Option \"-rounds\" expects exactly one value."
        );
    }

    #[test]
    fn unknown_options_and_keys_are_refused_as_fastchess_words_it() {
        assert_eq!(
            parse(&words(&format!("{TWO} -foo 3"))).unwrap_err(),
            "Unrecognized option: -foo parsing failed."
        );
        let e = parse(&words("-engine cmd=a name=A colour=red")).unwrap_err();
        assert!(
            e.ends_with("Reason: Unrecognized engine option \"colour\" with value \"red\"."),
            "{e}"
        );
        assert!(
            parse(&words("-engine cmd=a name=A proto=xboard"))
                .unwrap_err()
                .ends_with("Unsupported protocol.")
        );
        assert!(
            parse(&words(&format!("{TWO} -debug")))
                .unwrap_err()
                .contains("does not exist in fastchess")
        );
    }

    #[test]
    fn games_over_two_are_read_as_rounds_and_penta_needs_pairs() {
        let args = read(&format!("{TWO} -games 10 -rounds 1")).unwrap();
        assert_eq!((args.games, args.rounds), (1, 10));
        assert!(!args.report_penta);
        assert!(read(&format!("{TWO} -games 10 -rounds 5")).is_err());
        let args = read(&format!("{TWO} -rounds 5 -repeat")).unwrap();
        assert_eq!((args.games, args.rounds), (2, 5));
        assert!(args.report_penta);
        assert!(
            !read(&format!("{TWO} -output format=cutechess"))
                .unwrap()
                .report_penta
        );
    }

    #[test]
    fn engines_need_names_limits_and_their_own_names() {
        assert_eq!(
            parse(&words("-engine cmd=a tc=1 -engine cmd=b name=B tc=1")).unwrap_err(),
            "Error; please specify a name for each engine!"
        );
        assert_eq!(
            parse(&words("-engine cmd=a name=A -engine cmd=b name=B tc=1")).unwrap_err(),
            "Error; no TimeControl specified!"
        );
        assert_eq!(
            parse(&words(
                "-engine cmd=a name=A tc=1 -engine cmd=b name=A tc=1"
            ))
            .unwrap_err(),
            "Error: Engine with the same name are not allowed!: A"
        );
        assert!(
            read("-engine cmd=a name=A tc=inf nodes=1000 -engine cmd=b name=B depth=3").is_ok()
        );
        assert_eq!(
            parse(&words(
                "-engine cmd=a name=A tc=1 st=1 -engine cmd=b name=B tc=1"
            ))
            .unwrap_err(),
            "Error; cannot use tc and st together!"
        );
    }

    #[test]
    fn time_controls_read_as_fastchess_reads_them() {
        let pgn = |tc: &str| tc_limits(tc).unwrap().pgn();
        assert_eq!(pgn("40/60+0.6").as_deref(), Some("40/60+0.6"));
        assert_eq!(pgn("10.420+0.104").as_deref(), Some("10.42+0.104"));
        assert_eq!(pgn("2.000+0.020").as_deref(), Some("2+0.02"));
        assert_eq!(pgn("40/1:30+1").as_deref(), Some("40/90+1"));
        assert_eq!(pgn("0:05").as_deref(), Some("5"));
        assert_eq!(pgn("inf"), None);
        assert_eq!(pgn("inf/10").as_deref(), Some("10"));
        assert!(tc_limits("hg5").is_err());
        assert!(tc_limits("fast").is_err());
    }

    #[test]
    fn fishtests_line_reads_whole() {
        let line = "-testEnv -recover -repeat -games 2 -rounds 4 -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 -report penta=true -pgnout file=games.pgn append=false -crc32 pgn=true -site https://tests.example.org/tests/view/abc -event Batch_7 -srand 12345 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 -variant standard -concurrency 2 -check-mate-pvs -engine name=New-1a2b3c4d5e tc=2.000+0.020 cmd=stockfish dir=engines option.Hash=16 -engine name=Base-0f9e8d7c6b tc=2.000+0.020 cmd=stockfish dir=engines option.Hash=8 -each proto=uci option.Threads=1";
        let args = read(line).unwrap();
        assert!(args.test_env && args.recover && args.crc32_pgn && args.check_mate_pvs);
        assert_eq!((args.games, args.rounds, args.ratinginterval), (2, 4, 1));
        assert_eq!(args.autosaveinterval, 0);
        let pgn = args.pgnout.as_ref().unwrap();
        assert!(!pgn.append);
        assert_eq!(args.engines[1].options.len(), 2);
        assert_eq!(args.engines[0].dir, Some(PathBuf::from("engines")));
        assert_eq!(args.srand, Some(12345));
    }

    #[test]
    fn version_and_help() {
        assert!(matches!(
            parse(&words("-version")).unwrap(),
            FastchessRun::Version
        ));
        assert!(matches!(
            parse(&words("--version")).unwrap(),
            FastchessRun::Version
        ));
        assert!(matches!(parse(&[]).unwrap(), FastchessRun::Help));
    }
}
