//! fastchess's command line (its 1.8 man page is the reference), read as fastchess reads
//! it: single-dash options, each followed by its values up to the next word that starts
//! with a dash (a negative number is a value), `key=value` words for most, `-each`
//! applied to every engine after all the others.

use std::path::PathBuf;

use super::{
    EngineWords, EpdOut, LogOut, MatchArgs, OpeningsWords, OutputFormat, PgnOut, Run, Tournament,
    tc_limits,
};

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
/// use argus::cli::dialect::{Run, fastchess::parse};
/// let line = "-engine cmd=sf name=A -engine cmd=sf name=B -each tc=10+0.1 proto=uci -rounds 4 -repeat";
/// let words: Vec<String> = line.split(' ').map(String::from).collect();
/// let Run::Match(args) = parse(&words).unwrap() else { panic!() };
/// assert_eq!((args.rounds, args.games), (4, 2));
/// assert_eq!(args.engines[1].tc.as_deref(), Some("10+0.1"));
/// ```
pub fn parse(args: &[String]) -> Result<Run, String> {
    if args.is_empty() {
        return Ok(Run::Help);
    }
    let mut out = MatchArgs::default();
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
            "version" | "-version" | "v" | "-v" => return Ok(Run::Version),
            "help" | "-help" => return Ok(Run::Help),
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
    Ok(Run::Match(Box::new(out)))
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
    out: &mut MatchArgs,
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
        "quick" => quick(out, pairs)?,
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

/// `-quick cmd=ENGINE1 cmd=ENGINE2 book=BOOK`: fastchess's shortcut for a match of two
/// engines at 10+0.1 (named by their commands), 25,000 rounds of game pairs from the
/// book in random order, all the machine's threads but two, its draw adjudication and
/// cutechess-cli's output.
fn quick(out: &mut MatchArgs, pairs: &[(String, String)]) -> Result<(), String> {
    let first = out.engines.len();
    for (key, value) in pairs {
        match key.as_str() {
            "cmd" => out.engines.push(EngineWords {
                cmd: value.clone(),
                name: value.clone(),
                tc: Some("10+0.1".into()),
                proto: "uci".into(),
                ..EngineWords::default()
            }),
            "book" => {
                let format = if value.ends_with(".pgn") {
                    "pgn"
                } else if value.ends_with(".epd") {
                    "epd"
                } else {
                    return Err(
                        "Please include the .pgn or .epd file extension for the opening book."
                            .into(),
                    );
                };
                out.openings = Some(OpeningsWords {
                    words: vec![
                        format!("file={value}"),
                        format!("format={format}"),
                        "order=random".into(),
                    ],
                    file: PathBuf::from(value),
                });
            }
            _ => return Err(unknown("quick", key, value)),
        }
    }
    if out.engines.len() - first != 2 {
        return Err("Option \"-quick\" requires exactly two cmd entries.".into());
    }
    if out.openings.is_none() {
        return Err("Option \"-quick\" requires a book=FILE entry.".into());
    }
    if out.engines[first].name == out.engines[first + 1].name {
        out.engines[first].name.push('1');
        out.engines[first + 1].name.push('2');
    }
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as i64;
    out.games = 2;
    out.rounds = 25_000;
    out.concurrency = (threads - 2).max(1);
    out.recover = true;
    out.draw = Some(vec![
        "movenumber=30".into(),
        "movecount=8".into(),
        "score=8".into(),
    ]);
    out.output = OutputFormat::Cutechess;
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
        "proto" if value == "uci" => engine.proto = "uci".into(),
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
fn sanitize(out: &mut MatchArgs) -> Result<(), String> {
    if out.games > 2 {
        std::mem::swap(&mut out.games, &mut out.rounds);
        if out.games > 2 {
            return Err("Error: Exceeded -game limit! Must be less than 2".into());
        }
    }
    if out.output == OutputFormat::Cutechess || out.games != 2 {
        out.report_penta = false;
    }
    // A match saved before (`-config file=`) brings its own engines and book.
    let resumes = out.config.as_ref().is_some_and(|words| {
        words.iter().any(|w| w.starts_with("file=")) && !words.iter().any(|w| w == "discard=true")
    });
    if resumes {
        return Ok(());
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
