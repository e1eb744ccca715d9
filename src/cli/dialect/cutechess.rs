//! cutechess-cli 1.5's command line, read as cutechess-cli reads it: single-dash options,
//! each followed by its values up to the next word that starts with a dash (a number is
//! a value), engines as `key=value` words (and the bare words `trust`, `ponder`,
//! `whitepov`, `debug`), `-each` applied to every engine after its own words. Its errors
//! are cutechess-cli's words (`Unknown option: "-foo"`); what it can do and argus cannot
//! is refused here too, in one line that names it and says why.

use std::path::{Path, PathBuf};

use super::{Dialect, OutputFormat};
use super::{EngineWords, EpdOut, MatchArgs, OpeningsWords, PgnOut, Run, Tournament, tc_limits};

/// `argus cutechess-cli ARGS...`: the words after it, read by [`parse`] rather than by
/// clap.
#[derive(clap::Args, Debug)]
pub struct CutechessWords {
    /// cutechess-cli's options, as it takes them (`-engine cmd=... proto=uci tc=40/60
    /// -engine ... -each ... -games 2 -rounds 50 -repeat ...`; docs/fastchess.md).
    #[arg(
        num_args = 0..,
        allow_hyphen_values = true,
        trailing_var_arg = true,
        value_name = "ARGS"
    )]
    pub words: Vec<String>,
}

/// What `-version` prints.
pub const CUTECHESS_VERSION: &str = "cutechess-cli 1.5.1 (argus)";

/// cutechess-cli's options: how many values each takes (at least, at most; `None`: no
/// limit).
const OPTIONS: &[(&str, usize, Option<usize>)] = &[
    ("-srand", 1, Some(1)),
    ("-tournament", 1, Some(1)),
    ("-engine", 1, None),
    ("-each", 1, None),
    ("-variant", 1, Some(1)),
    ("-concurrency", 1, Some(1)),
    ("-draw", 0, None),
    ("-resign", 0, None),
    ("-maxmoves", 1, Some(1)),
    ("-tb", 1, Some(1)),
    ("-tbpieces", 1, Some(1)),
    ("-tbignore50", 0, Some(0)),
    ("-event", 1, Some(1)),
    ("-games", 1, Some(1)),
    ("-rounds", 1, Some(1)),
    ("-sprt", 0, None),
    ("-ratinginterval", 1, Some(1)),
    ("-outcomeinterval", 1, Some(1)),
    ("-resultformat", 1, Some(1)),
    ("-debug", 0, Some(1)),
    ("-openings", 0, None),
    ("-bookmode", 0, None),
    ("-pgnout", 1, Some(3)),
    ("-epdout", 1, Some(1)),
    ("-repeat", 0, Some(1)),
    ("-noswap", 0, Some(0)),
    ("-reverse", 0, Some(0)),
    ("-recover", 0, Some(0)),
    ("-site", 1, Some(1)),
    ("-wait", 1, Some(1)),
    ("-seeds", 1, Some(1)),
];

/// Whether `word` starts a new option: a dash and more, not a number.
fn is_option(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-') && word.parse::<f64>().is_err()
}

/// A refusal of what cutechess-cli does and argus does not.
fn refuse(what: &str, why: &str) -> String {
    format!("{what}: {why} (docs/fastchess.md lists what argus takes)")
}

/// Reads cutechess-cli's command line, `args` without the program's name.
///
/// # Errors
///
/// cutechess-cli's words for what it refuses to read, and one line for what argus does
/// not do.
///
/// # Examples
///
/// ```
/// use argus::cli::dialect::{Run, cutechess::parse};
/// let line = "-engine cmd=sf name=A proto=uci -engine cmd=sf name=B proto=uci -each tc=40/1:00+0.5 -games 2 -rounds 5 -repeat";
/// let words: Vec<String> = line.split(' ').map(String::from).collect();
/// let Run::Match(args) = parse(&words).unwrap() else { panic!() };
/// assert_eq!((args.games, args.rounds, args.repeat), (2, 5, Some(2)));
/// ```
pub fn parse(args: &[String]) -> Result<Run, String> {
    if args
        .iter()
        .any(|a| ["-v", "--version", "-version"].contains(&a.as_str()))
    {
        return Ok(Run::Version);
    }
    if args.iter().any(|a| a == "--help" || a == "-help") {
        return Ok(Run::Help);
    }
    if args.iter().any(|a| a == "--engines" || a == "-engines") {
        return Err(refuse(
            "-engines",
            "argus reads no engines.json: name each engine with cmd= and proto=",
        ));
    }
    let mut out = MatchArgs {
        dialect: Dialect::Cutechess,
        output: OutputFormat::Cutechess,
        games: 1,
        rounds: 1,
        repeat: Some(1),
        ratinginterval: 0,
        report_penta: false,
        ..MatchArgs::default()
    };
    let mut each: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let Some(&(name, min, max)) = OPTIONS.iter().find(|(n, _, _)| *n == flag) else {
            return Err(format!("Unknown option: \"{flag}\""));
        };
        let mut values: Vec<String> = Vec::new();
        while i + 1 < args.len() && !is_option(&args[i + 1]) {
            i += 1;
            values.push(args[i].clone());
        }
        i += 1;
        if name != "-engine" && seen.contains(&name) {
            return Err(format!("Multiple instances of option \"{name}\""));
        }
        seen.push(name);
        if values.len() < min {
            return Err(if Some(min) == max {
                format!("Option \"{name}\" needs {min} argument(s)")
            } else {
                format!("Option \"{name}\" needs at least {min} argument(s)")
            });
        }
        if max.is_some_and(|m| values.len() > m) {
            return Err(format!("Too many arguments for option \"{name}\""));
        }
        out.typed.push(name.trim_start_matches('-').to_string());
        let invalid = || {
            format!(
                "Invalid value for option \"{name}\": \"{}\"",
                values.join(" ")
            )
        };
        let one = || values.first().map_or("", String::as_str);
        match name {
            "-engine" => {
                let mut engine = EngineWords {
                    proto: String::new(),
                    ..EngineWords::default()
                };
                for word in &values {
                    engine_word(&mut engine, word)?;
                }
                out.engines.push(engine);
            }
            "-each" => each = values.clone(),
            "-srand" => out.srand = Some(one().parse().map_err(|_| invalid())?),
            "-tournament" => {
                out.tournament = match one() {
                    "round-robin" => Tournament::RoundRobin,
                    "gauntlet" => Tournament::Gauntlet,
                    "knockout" => Tournament::Knockout,
                    "pyramid" => {
                        return Err(refuse(
                            "-tournament pyramid",
                            "argus plays round-robins, gauntlets, knockouts and Swiss events",
                        ));
                    }
                    other => return Err(format!("Invalid tournament type: {other}")),
                };
            }
            "-variant" => match one() {
                "standard" => {}
                "fischerandom" => out.chess960 = true,
                other => {
                    return Err(refuse(
                        &format!("-variant {other}"),
                        "argus plays standard chess",
                    ));
                }
            },
            "-concurrency" => {
                out.concurrency = one().parse().ok().filter(|c| *c > 0).ok_or_else(invalid)?;
                // cutechess-cli runs as many games at once as asked.
                out.force_concurrency = true;
            }
            "-draw" => {
                out.draw = Some(
                    key_values(&values, &["movenumber", "movecount", "score"])
                        .ok_or_else(invalid)?,
                )
            }
            "-resign" => {
                let words =
                    key_values(&values, &["movecount", "score", "twosided"]).ok_or_else(invalid)?;
                out.resign = Some(words);
            }
            "-maxmoves" => {
                let n: u32 = one().parse().map_err(|_| invalid())?;
                out.maxmoves = (n > 0).then_some(n);
            }
            "-tb" => out.tb = Some(one().to_string()),
            "-tbpieces" => out.tbpieces = Some(one().parse().map_err(|_| invalid())?),
            "-tbignore50" => out.tbignore50 = true,
            "-event" => out.event = Some(values.join(" ")),
            "-site" => out.site = Some(values.join(" ")),
            "-games" => out.games = one().parse().ok().filter(|g| *g > 0).ok_or_else(invalid)?,
            "-rounds" => out.rounds = one().parse().ok().filter(|r| *r > 0).ok_or_else(invalid)?,
            "-repeat" => {
                out.repeat = Some(match values.first() {
                    Some(n) => n.parse().ok().filter(|r| *r >= 1).ok_or_else(invalid)?,
                    None => 2,
                });
            }
            "-sprt" => {
                return Err(refuse(
                    "-sprt",
                    "cutechess-cli's SPRT counts single games in BayesElo; argus's counts game pairs: run the match with `argus serve --sprt ... model=logistic` or `argus fastchess -sprt ...`",
                ));
            }
            "-ratinginterval" => out.ratinginterval = one().parse().map_err(|_| invalid())?,
            "-outcomeinterval" => {
                let n: u32 = one().parse().map_err(|_| invalid())?;
                if n > 0 {
                    return Err(refuse(
                        "-outcomeinterval",
                        "the outcomes table is not built in argus yet",
                    ));
                }
            }
            "-resultformat" if one() == "default" => {}
            "-resultformat" => {
                return Err(refuse(
                    "-resultformat",
                    "argus prints cutechess-cli's default format only",
                ));
            }
            "-debug" => {
                return Err(refuse(
                    "-debug",
                    "argus shows every line to and from the engines on standard error with RUST_LOG=debug",
                ));
            }
            "-openings" => {
                let words = key_values(
                    &values,
                    &["file", "format", "order", "plies", "start", "policy"],
                )
                .ok_or_else(invalid)?;
                let mut kept = Vec::new();
                let mut file = PathBuf::new();
                let mut format = "pgn".to_string();
                for word in words {
                    let (key, value) = word.split_once('=').unwrap_or((&word, ""));
                    match key {
                        "policy" if value == "default" || value == "encounter" => {}
                        "policy" => {
                            return Err(refuse(
                                &format!("-openings policy={value}"),
                                "argus takes the next opening for each encounter (policy=default)",
                            ));
                        }
                        "format" => format = value.to_string(),
                        "file" => {
                            file = PathBuf::from(value);
                            kept.push(word.clone());
                        }
                        _ => kept.push(word.clone()),
                    }
                }
                // cutechess-cli reads a book as PGN unless told otherwise.
                kept.push(format!("format={format}"));
                out.openings = Some(OpeningsWords { words: kept, file });
            }
            "-bookmode" => {
                return Err(refuse("-bookmode", "argus reads no Polyglot books"));
            }
            "-pgnout" => {
                let mut pgn = PgnOut {
                    file: PathBuf::from(&values[0]),
                    append: true,
                    notation: "san".into(),
                    extras: Vec::new(),
                    min: false,
                    match_lines: Vec::new(),
                };
                for mode in &values[1..] {
                    match mode.as_str() {
                        "min" => pgn.min = true,
                        // argus writes a game to the PGN once it is finished.
                        "fi" => {}
                        _ => return Err(invalid()),
                    }
                }
                out.pgnout = Some(pgn);
            }
            "-epdout" => {
                out.epdout = Some(EpdOut {
                    file: PathBuf::from(one()),
                    append: true,
                });
            }
            "-noswap" => out.noswap = true,
            "-reverse" => out.reverse = true,
            "-recover" => out.recover = true,
            "-wait" => out.wait_ms = one().parse().map_err(|_| invalid())?,
            "-seeds" => out.seeds = one().parse().map_err(|_| invalid())?,
            other => unreachable!("option {other} is listed but not applied"),
        }
    }
    for engine in &mut out.engines {
        for word in &each {
            engine_word(engine, word)?;
        }
    }
    for engine in &mut out.engines {
        if engine.cmd.is_empty() {
            return Err("missing chess engine command".into());
        }
        if engine.proto.is_empty() {
            return Err("Missing chess protocol".into());
        }
        let timed = engine.tc.is_some() || engine.st.is_some();
        if !timed {
            return Err("Invalid or missing time control".into());
        }
        // Without name=, cutechess-cli names an engine by what it says of itself;
        // argus by its program's file name.
        if engine.name.is_empty() {
            engine.name = Path::new(&engine.cmd)
                .file_stem()
                .map_or_else(|| engine.cmd.clone(), |s| s.to_string_lossy().into_owned());
        }
    }
    if out.engines.len() < 2 {
        return Err("At least two engines are needed".into());
    }
    Ok(Run::Match(Box::new(out)))
}

/// An option's `key=value` words when every key is one of `keys`, once each.
fn key_values(values: &[String], keys: &[&str]) -> Option<Vec<String>> {
    let mut seen = Vec::new();
    for word in values {
        let (key, value) = word.split_once('=')?;
        if value.is_empty() || !keys.contains(&key) || seen.contains(&key) {
            return None;
        }
        seen.push(key);
    }
    Some(values.to_vec())
}

/// One word of `-engine` or `-each`.
fn engine_word(engine: &mut EngineWords, word: &str) -> Result<(), String> {
    let (key, value) = word.split_once('=').unwrap_or((word, ""));
    if key.is_empty() {
        return Ok(());
    }
    let invalid = |what: &str| format!("Invalid {what}: {value}");
    match key {
        "name" => engine.name = value.to_string(),
        "cmd" => engine.cmd = value.to_string(),
        "dir" => engine.dir = Some(PathBuf::from(value)),
        "arg" => {
            let arg = if value.contains(' ') {
                format!("\"{value}\"")
            } else {
                value.to_string()
            };
            engine.args = Some(match engine.args.take() {
                Some(args) => format!("{args} {arg}"),
                None => arg,
            });
        }
        "proto" if value == "uci" || value == "xboard" => engine.proto = value.to_string(),
        "proto" => return Err(format!("Usupported chess protocol: {value}")),
        "initstr" => engine.init.push(value.replace("\\n", "\n")),
        "restart" => match value {
            "on" => engine.restart = true,
            // An engine that asks for a new process each game (CECP's reuse=0) gets
            // one, as with cutechess-cli's auto.
            "auto" | "off" => engine.restart = false,
            _ => return Err(format!("Invalid restart mode: {value}")),
        },
        "tc" => {
            tc_limits(value).map_err(|_| format!("Invalid time control: {value}"))?;
            engine.tc = Some(value.to_string());
        }
        "st" => {
            engine.st = Some(
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| *s > 0.0)
                    .ok_or_else(|| invalid("search time"))?,
            );
        }
        "timemargin" => {
            engine.timemargin = Some(value.parse().map_err(|_| invalid("time margin"))?);
        }
        "depth" => {
            engine.plies = Some(
                value
                    .parse()
                    .ok()
                    .filter(|d| *d > 0)
                    .ok_or_else(|| invalid("depth limit"))?,
            );
        }
        "nodes" => {
            engine.nodes = Some(
                value
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| invalid("node limit"))?,
            );
        }
        "conf" => {
            return Err(refuse(
                &format!("conf={value}"),
                "argus reads no engines.json: give the engine's cmd=, proto= and options",
            ));
        }
        "trust" => {
            return Err(refuse(
                "trust",
                "argus judges every game by the rules and takes no result claim from an engine",
            ));
        }
        "stderr" => return Err(refuse("stderr=", "an engine's standard error is argus's")),
        "tscale" => return Err(refuse("tscale=", "argus's waits for an engine are fixed")),
        "book" | "bookdepth" => {
            return Err(refuse(
                &format!("{key}="),
                "argus reads no Polyglot books: give -openings",
            ));
        }
        "whitepov" => {
            return Err(refuse(
                "whitepov",
                "argus reads scores from the side to move's view",
            ));
        }
        "ponder" => return Err(refuse("ponder", "argus's engines do not ponder")),
        "debug" => {
            return Err(refuse(
                "debug",
                "argus shows every line to and from the engines on standard error with RUST_LOG=debug",
            ));
        }
        _ => match key.strip_prefix("option.") {
            Some(option) => {
                engine.options.retain(|(name, _)| name != option);
                engine.options.push((option.to_string(), value.to_string()));
            }
            None => return Err(format!("Invalid engine option: {key}")),
        },
    }
    Ok(())
}
