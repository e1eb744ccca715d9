//! A fastchess command line resolved into the `argus serve` event it describes, or
//! refused: what argus does not do (yet) is named, with why, in one line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, bail};

use argus::cli::dialect::{Dialect, EngineWords, MatchArgs, OutputFormat, Tournament, tc_limits};
use argus::client::Limit;
use argus::client::uci::detail::Detail;
use argus::client::uci::pv_check::PvCheck;
use argus::core::clock::TimeControl;
use argus::core::{DrawRule, IllegalRule, Variant};
use argus::server::{EngineSpec, Entrant, Proto, ServeConfig, Waits};
use argus::tournament::{
    AdjudicationRules, Colours, DrawAdjudication, Format, ResignRule, SprtConfig, openings_used,
};

use super::pgn::PgnStyle;
use crate::commands::serve::settings::{absolute, chess960_openings, openings_of};
use crate::commands::today;

/// A refusal: the option, and why argus does not take it.
fn refuse(option: &str, why: &str) -> anyhow::Error {
    anyhow::anyhow!("{option}: {why}")
}

/// The options argus refuses, whatever their values, and why.
fn refused(args: &MatchArgs) -> Result<()> {
    let not_yet = |option: &str, what: &str| {
        Err(refuse(
            option,
            &format!("{what} is not built in argus yet (docs/fastchess.md lists what is)"),
        ))
    };
    if args.log.as_ref().is_some_and(|l| l.compress) {
        return not_yet("-log compress=true", "a gzipped log");
    }
    if args.affinity.is_some() {
        return not_yet("-use-affinity", "pinning engines to cores");
    }
    if args.seeds as usize >= args.engines.len() && args.tournament == Tournament::Gauntlet {
        return Err(refuse(
            "-seeds",
            "a gauntlet needs fewer seeds than engines, so that the seeds have opponents",
        ));
    }
    if args.sprt.is_some() && args.output == OutputFormat::Cutechess {
        return not_yet(
            "-sprt with -output format=cutechess",
            "an SPRT of single games (argus's counts game pairs: fastchess's own output)",
        );
    }
    if let Some(pgn) = &args.pgnout {
        if args.dialect == Dialect::Cutechess && pgn.min {
            return not_yet("-pgnout min", "cutechess-cli's minimal PGN");
        }
        if let Err(e) = (Detail {
            lines: pgn.match_lines.clone(),
        })
        .compile()
        {
            return Err(refuse("-pgnout match_line=", &e));
        }
    }
    if let Some(words) = &args.sprt
        && let Some(model) = words.iter().find_map(|w| w.strip_prefix("model="))
        && !["normalized", "logistic"].contains(&model)
    {
        return not_yet(
            &format!("-sprt model={model}"),
            "an SPRT other than the normalized and the logistic",
        );
    }
    if args.sprt.is_some() && args.engines.len() != 2 {
        return Err(refuse("-sprt", "an SPRT tests a match of two engines"));
    }
    // Without -force-concurrency the machine's threads are the bound (fastchess's check).
    if args.concurrency > 1024 && args.force_concurrency {
        return Err(refuse(
            "-concurrency",
            "argus plays at most 1,024 games at once",
        ));
    }
    if args.tournament == Tournament::Knockout {
        for (given, option) in [
            (args.rounds != 1, "-rounds"),
            (args.noswap, "-noswap"),
            (args.reverse, "-reverse"),
            (args.seeds != 1, "-seeds"),
        ] {
            if given {
                return Err(refuse(
                    &format!("{option} with -tournament knockout"),
                    "argus's knockout seeds the players in their order and plays each match's games with the colours alternating",
                ));
            }
        }
    }
    if args.sprt.is_some() && !args.report_penta {
        return not_yet(
            "-sprt",
            "an SPRT of single games (argus's counts game pairs: -games 2 -report penta=true)",
        );
    }
    Ok(())
}

/// Whose lines the match prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Style {
    /// fastchess's own.
    Fastchess,
    /// fastchess's `-output format=cutechess`.
    FastchessCutechess,
    /// cutechess-cli's.
    Cutechess,
}

/// What the match prints, beside the event it plays.
pub(super) struct Output {
    /// Whose lines.
    pub(super) style: Style,
    /// `-scoreinterval` (fastchess's cutechess output).
    pub(super) score_interval: u32,
    /// `-ratinginterval` (0: only at the end).
    pub(super) rating_interval: u32,
    /// `-report penta=`.
    pub(super) penta: bool,
    /// `-crc32 pgn=true`: the PGN file whose CRC-32 follows each game.
    pub(super) crc32_of: Option<PathBuf>,
    /// Its name as typed, as the CRC's line names it.
    pub(super) crc32_name: String,
    /// `-recover`: a game an engine loses by crashing or stalling does not stop the
    /// match.
    pub(super) recover: bool,
    /// `-sprt`: each results block has the SPRT's line.
    pub(super) sprt: bool,
    /// Under fastchess's command line: its `-pgnout` file and what it holds, written
    /// game by game as each is printed ([`super::pgn`]).
    pub(super) pgn: Option<(PathBuf, PgnStyle)>,
    /// What the results' heading says in brackets: the time control, the threads, the
    /// hash and the book (`2+0.02, 1t, 16MB - 8MB, book.epd`).
    pub(super) heading: String,
}

/// The event a fastchess command line describes, played in `out`, and what it prints.
pub(super) fn resolve(args: &MatchArgs, out: &Path) -> Result<(ServeConfig, Output)> {
    refused(args)?;
    let hardware = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as i64;
    let concurrency = if args.concurrency <= 0 {
        let c = hardware - args.concurrency.abs();
        println!(
            "Info: Adjusted concurrency to {c} based on number of available hardware threads."
        );
        c
    } else {
        args.concurrency
    };
    if concurrency > hardware && !args.force_concurrency {
        bail!("Error: Concurrency exceeds number of CPUs. Use -force-concurrency to override.");
    }
    if concurrency < 1 {
        bail!("Error: a concurrency of {concurrency}: at least 1 game at once");
    }
    let concurrency = usize::try_from(concurrency)?;
    let tcs: Vec<Option<TimeControl>> =
        args.engines.iter().map(engine_tc).collect::<Result<_>>()?;
    // One time control for all: the event's. Otherwise each engine has its own.
    let shared = tcs.windows(2).all(|w| w[0] == w[1]);
    let event_tc = match (&tcs[0], shared) {
        (Some(tc), true) => tc.clone(),
        _ => "-".parse()?,
    };
    let players = args
        .engines
        .iter()
        .zip(&tcs)
        .map(|(words, tc)| {
            engine(words, if shared { None } else { tc.clone() }).map(|mut spec| {
                // fastchess checks every engine's PVs; mate PVs with -check-mate-pvs.
                if args.dialect == Dialect::Fastchess {
                    // fastchess's waits: 10 s to start, a minute for readyok.
                    spec.waits = Some(Waits {
                        startup_ms: args.startup_ms.unwrap_or(10_000),
                        new_game_ms: args.ucinewgame_ms.unwrap_or(60_000),
                        ping_ms: args.ping_ms.unwrap_or(60_000),
                    });
                    spec.pv_check = Some(PvCheck {
                        name: spec.name.clone(),
                        mates: args.check_mate_pvs,
                        one_line: args.test_env,
                        latency: args.show_latency,
                    });
                    // fastchess's PGN comments need the engine's search value by value.
                    if let Some(pgn) = &args.pgnout {
                        spec.detail = Some(Detail {
                            lines: pgn.match_lines.clone(),
                        });
                    }
                }
                Entrant::Engine(spec)
            })
        })
        .collect::<Result<Vec<Entrant>>>()?;
    let repeat = args.repeat.unwrap_or(args.games).max(1);
    let format = match args.tournament {
        Tournament::RoundRobin => Format::RoundRobin,
        Tournament::Gauntlet => Format::Gauntlet,
        Tournament::Knockout => Format::Knockout,
    };
    let (openings, openings_from, srand) = match &args.openings {
        Some(o) => {
            // fastchess says so when it shuffles the book.
            if o.words.iter().any(|w| w == "order=random") {
                println!("Indexing opening suite...");
            }
            openings_of(
                &o.words,
                args.srand,
                openings_used(args.rounds, args.games, repeat),
                true,
            )?
        }
        None => {
            if args.dialect == Dialect::Fastchess {
                println!(
                    "Warning: No opening book specified! Consider using one, otherwise all games will be played from the starting position."
                );
            }
            // cutechess-cli draws a Chess960 position for each game without a book
            // (argus: for each encounter); fastchess plays them all from the standard
            // array, as its warning says.
            if args.chess960 && args.dialect == Dialect::Cutechess {
                let (openings, seed) =
                    chess960_openings(args.srand, openings_used(args.rounds, args.games, repeat));
                (openings, None, Some(seed))
            } else {
                (Vec::new(), None, args.srand)
            }
        }
    };
    let resign = match &args.resign {
        Some(words) => {
            // fastchess's twosided=true is argus's bare twosided.
            let words: Vec<String> = words
                .iter()
                .filter(|w| *w != "twosided=false")
                .map(|w| {
                    if w == "twosided=true" {
                        "twosided".to_string()
                    } else {
                        w.clone()
                    }
                })
                .collect();
            Some(
                ResignRule::parse(&words)
                    .map_err(|e| anyhow::anyhow!("{}", e.replace("--resign", "-resign")))?,
            )
        }
        None => None,
    };
    let draw = match &args.draw {
        Some(words) => Some(
            DrawAdjudication::parse(words)
                .map_err(|e| anyhow::anyhow!("{}", e.replace("--draw", "-draw")))?,
        ),
        None => None,
    };
    let sprt = match &args.sprt {
        Some(words) => {
            // fastchess's default model is the normalized.
            let mut words = words.clone();
            if !words.iter().any(|w| w.starts_with("model=")) {
                words.push("model=normalized".into());
            }
            Some(
                SprtConfig::parse(&words)
                    .map_err(|e| anyhow::anyhow!("{}", e.replace("--sprt", "-sprt")))?,
            )
        }
        None => None,
    };
    let pgnout = match &args.pgnout {
        Some(pgn) => Some(fresh_file(&pgn.file, pgn.append)?),
        None => None,
    };
    // Under fastchess's command line its PGN is written from the games' detail, by the
    // lines' printer ([`super::pgn`]); cutechess-cli's is argus's own.
    let fastchess_pgn = args.dialect == Dialect::Fastchess && pgnout.is_some();
    let epdout = match &args.epdout {
        Some(epd) => Some(fresh_file(&epd.file, epd.append)?),
        None => None,
    };
    let output = output_of(args)?;
    let tb = argus::tablebase::TbConfig::from_options(
        args.tb.as_deref(),
        args.tbpieces.map(|n| n as usize),
        args.tbignore50,
        args.tbadjudicate.as_deref(),
    )
    .map_err(|e| anyhow::anyhow!("{}", e.replace("--tb", "-tb")))?;
    // Tables that cannot be read refuse the match at once, named as typed.
    if let Some(tb) = &tb {
        argus::tablebase::Tables::open(tb)
            .map_err(|e| anyhow::anyhow!("{}", e.replace("--tb", "-tb")))?;
    }
    let cfg = ServeConfig {
        players,
        listen: None,
        max_clients: None,
        absent_after: None,
        format,
        rounds: args.rounds,
        games: args.games,
        concurrency,
        openings,
        openings_from,
        repeat,
        srand,
        // fastchess and cutechess-cli take no notice of -seeds but in a gauntlet.
        seeds: if format == Format::Gauntlet {
            args.seeds.max(1)
        } else {
            1
        },
        // The first engine of a pair White in its odd games, as both programs play them.
        colours: match (args.noswap, args.reverse) {
            (false, false) => Colours::FirstWhiteInOdd,
            (false, true) => Colours::FirstBlackInOdd,
            (true, false) => Colours::FirstWhite,
            (true, true) => Colours::FirstBlack,
        },
        time_control: event_tc,
        draw_rule: DrawRule::Auto,
        illegal: IllegalRule::Loss,
        event: args.event.clone().unwrap_or_else(|| {
            match args.dialect {
                Dialect::Fastchess => "Fastchess Tournament",
                Dialect::Cutechess => "?",
            }
            .into()
        }),
        site: args.site.clone().unwrap_or_else(|| "?".into()),
        date: today().0,
        reset_delay: Duration::ZERO,
        conclude_delay: Duration::from_millis(args.wait_ms),
        adjudication: AdjudicationRules {
            resign,
            draw,
            max_moves: args.maxmoves.filter(|n| *n > 0),
        },
        sprt,
        rating_interval: 0,
        pgnout: pgnout.filter(|_| !fastchess_pgn),
        epdout,
        // cutechess-cli names Chess960 `fischerandom` in its PGN, and reads no other.
        pgnout_variant: (args.dialect == Dialect::Cutechess && args.chess960)
            .then(|| "fischerandom".to_string()),
        keep_info: fastchess_pgn,
        no_game_pgn: true,
        tb,
        variant: if args.chess960 {
            Variant::Chess960
        } else {
            Variant::Standard
        },
        standby: None,
        http: None,
        out: out.to_path_buf(),
    };
    Ok((cfg, output))
}

/// What the match `args` describes prints (for a match resumed too: its files are not
/// touched).
pub(super) fn output_of(args: &MatchArgs) -> Result<Output> {
    let pgn = args
        .pgnout
        .as_ref()
        .map(|p| absolute(&p.file))
        .transpose()?;
    Ok(Output {
        style: match (args.dialect, args.output) {
            (Dialect::Cutechess, _) => Style::Cutechess,
            (Dialect::Fastchess, OutputFormat::Fastchess) => Style::Fastchess,
            (Dialect::Fastchess, OutputFormat::Cutechess) => Style::FastchessCutechess,
        },
        score_interval: args.scoreinterval,
        rating_interval: args.ratinginterval,
        penta: args.report_penta,
        crc32_of: pgn.clone().filter(|_| args.crc32_pgn),
        crc32_name: args
            .pgnout
            .as_ref()
            .map(|p| p.file.display().to_string())
            .unwrap_or_default(),
        recover: args.recover,
        sprt: args.sprt.is_some(),
        pgn: match (&args.pgnout, &pgn) {
            (Some(out), Some(path)) if args.dialect == Dialect::Fastchess => {
                Some((path.clone(), PgnStyle::of(out)))
            }
            _ => None,
        },
        heading: heading(args),
    })
}

/// The two sides of a results heading's part: one value when both engines have it, `A -
/// B` when they differ.
fn both(first: String, second: String) -> String {
    if first == second {
        first
    } else {
        format!("{first} - {second}")
    }
}

/// What fastchess's results heading says in brackets, of the first two engines: their
/// time controls (`2+0.02`, `0.5/move`, `10 plies`, `1000 nodes`), `Threads` (`1t`) and
/// `Hash` (`16MB`) as given (`NULL` when not), and the book's file name.
fn heading(args: &MatchArgs) -> String {
    let [a, b] = [&args.engines[0], &args.engines[1]];
    let time = |e: &EngineWords| -> String {
        let tc = e.tc.as_deref().and_then(|t| tc_limits(t).ok());
        match tc {
            Some(t) if t.timed() => {
                let moves = if t.moves > 0 {
                    format!("{}/", t.moves)
                } else {
                    String::new()
                };
                let secs = t.time_ms as f64 / 1000.0;
                let inc = if t.increment_ms > 0 {
                    format!("+{}", two_digits(t.increment_ms as f64 / 1000.0))
                } else {
                    String::new()
                };
                format!("{moves}{secs}{inc}")
            }
            _ => match (e.st, e.plies, e.nodes) {
                (Some(st), _, _) if st > 0.0 => format!("{st}/move"),
                (_, Some(p), _) if p > 0 => format!("{p} plies"),
                (_, _, Some(n)) if n > 0 => format!("{n} nodes"),
                _ => String::new(),
            },
        }
    };
    let option = |e: &EngineWords, name: &str, unit: &str| -> String {
        e.options
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| "NULL".to_string(), |(_, v)| format!("{v}{unit}"))
    };
    let mut text = format!(
        "{}, {}, {}",
        both(time(a), time(b)),
        both(option(a, "Threads", "t"), option(b, "Threads", "t")),
        both(option(a, "Hash", "MB"), option(b, "Hash", "MB"))
    );
    if let Some(book) = args.openings.as_ref().and_then(|o| o.file.file_name()) {
        text.push_str(", ");
        text.push_str(&book.to_string_lossy());
    }
    text
}

/// `x` to two significant digits, as C's `%.2g` writes it (`0.02`, `0.1`, `1`, `10`).
fn two_digits(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (1 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `file` made absolute, emptied first unless the games are appended to it.
fn fresh_file(file: &Path, append: bool) -> Result<PathBuf> {
    let path = absolute(file)?;
    if !append {
        std::fs::write(&path, b"").map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    }
    Ok(path)
}

/// An engine's time control as argus writes it; None for `inf` or none given. `st=`
/// alone (or with `tc=inf`) is a time per move (`0.5/move`): the engine searches it
/// (`go movetime`), and loses on time when it takes longer, its `timemargin=` forgiven,
/// as in fastchess and cutechess-cli.
fn engine_tc(words: &EngineWords) -> Result<Option<TimeControl>> {
    let timed = |text: &str| tc_limits(text).is_ok_and(|t| t.timed());
    if let Some(st) = words.st.filter(|s| *s > 0.0)
        && !words.tc.as_deref().is_some_and(timed)
    {
        let ms = (st * 1000.0).round() as u64;
        let text = format!("{}.{:03}/move", ms / 1000, ms % 1000);
        return Ok(Some(text.parse().map_err(|e| {
            anyhow::anyhow!("-engine name={} st={st}: {e}", words.name)
        })?));
    }
    let Some(text) = &words.tc else {
        return Ok(None);
    };
    let limits = tc_limits(text).map_err(|e| anyhow::anyhow!("-engine tc={text}: {e}"))?;
    match limits.pgn() {
        Some(pgn) => Ok(Some(
            pgn.parse()
                .map_err(|e| anyhow::anyhow!("-engine tc={text}: {e}"))?,
        )),
        None => Ok(None),
    }
}

/// One engine of the match; `tc`: a time control of its own.
fn engine(words: &EngineWords, tc: Option<TimeControl>) -> Result<EngineSpec> {
    let mut limits: Vec<Limit> = Vec::new();
    if let Some(nodes) = words.nodes.filter(|n| *n > 0) {
        limits.push(Limit::Nodes(nodes));
    }
    if let Some(plies) = words.plies.filter(|n| *n > 0) {
        limits.push(Limit::Depth(plies));
    }
    if let Some(st) = words.st.filter(|s| *s > 0.0) {
        limits.push(Limit::MoveTime(Duration::from_secs_f64(st)));
    }
    let timed = words
        .tc
        .as_deref()
        .is_some_and(|tc| tc_limits(tc).is_ok_and(|t| t.timed()));
    if limits.len() > 1 || (timed && !limits.is_empty()) {
        bail!(
            "-engine name={}: a search limit together with another or with a clock (nodes=, plies=, st=, tc=) is not built in argus yet: give one",
            words.name
        );
    }
    let mut command = words.cmd.clone();
    if command.contains(' ') {
        command = format!("\"{command}\"");
    }
    if let Some(args) = &words.args {
        command.push(' ');
        command.push_str(args);
    }
    let proto = if words.proto == "xboard" {
        Proto::Xboard
    } else {
        Proto::Uci
    };
    let mut spec = EngineSpec::new(&words.name, &command, proto);
    spec.init.clone_from(&words.init);
    spec.options.clone_from(&words.options);
    spec.limit = limits.first().copied();
    spec.time_margin = Duration::from_millis(words.timemargin.unwrap_or(0));
    spec.time_control = tc;
    spec.dir.clone_from(&words.dir);
    spec.restart_each_game = words.restart;
    if let Some(dir) = &words.dir {
        let path = dir.join(&words.cmd);
        if !path.is_file() {
            bail!("Engine binary does not exist: {}", path.display());
        }
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus::cli::dialect::{Run, cutechess, fastchess};

    fn fastchess_args(line: &str) -> MatchArgs {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        match fastchess::parse(&words).unwrap() {
            Run::Match(args) => *args,
            other => panic!("{other:?}"),
        }
    }

    const TWO: &str = "-engine cmd=a name=A tc=1+0.01 -engine cmd=b name=B tc=1+0.01";

    #[test]
    fn what_argus_does_is_not_refused() {
        for extra in [
            "-startup-ms 5000 -ucinewgame-ms 100 -ping-ms 100",
            "-noswap -reverse -show-latency",
            "-log file=x.log engine=true level=trace",
            "-autosaveinterval 5 -config outname=saved.json",
            "-output format=cutechess -scoreinterval 2",
            "-sprt elo0=0 elo1=5",
            "-sprt elo0=0 elo1=5 model=logistic",
            "-resign movecount=3 score=600 twosided=true -draw movenumber=34 movecount=8 score=20 -maxmoves 200",
            "-tournament gauntlet -wait 10 -recover -check-mate-pvs -testEnv -crc32 pgn=true",
        ] {
            let args = fastchess_args(&format!("{TWO} {extra}"));
            assert!(refused(&args).is_ok(), "{extra}: {:?}", refused(&args));
        }
        let words: Vec<String> = format!("{TWO} -quick cmd=c cmd=d book=b.epd")
            .split_whitespace()
            .map(String::from)
            .collect();
        assert!(fastchess::parse(&words).is_ok());
        let words: Vec<String> =
            "-engine cmd=a proto=xboard tc=40/60 -engine cmd=b proto=uci st=1 -tournament knockout"
                .split_whitespace()
                .map(String::from)
                .collect();
        let Run::Match(args) = cutechess::parse(&words).unwrap() else {
            panic!()
        };
        assert!(refused(&args).is_ok());
        // cutechess-cli's knockout takes no round multiplier; argus's no colour rules.
        for extra in ["-rounds 2", "-noswap", "-seeds 2"] {
            let words: Vec<String> = format!(
                "-engine cmd=a proto=uci tc=1 -engine cmd=b proto=uci tc=1 -engine cmd=c proto=uci tc=1 -tournament knockout {extra}"
            )
            .split_whitespace()
            .map(String::from)
            .collect();
            let Run::Match(args) = cutechess::parse(&words).unwrap() else {
                panic!()
            };
            assert!(refused(&args).is_err(), "{extra}");
        }
    }

    #[test]
    fn what_argus_does_not_do_is_refused_naming_it() {
        for (extra, named) in [
            ("-use-affinity", "-use-affinity: "),
            ("-seeds 2 -tournament gauntlet", "-seeds: "),
            (
                "-pgnout file=x nodes=true match_line=[",
                "-pgnout match_line=: ",
            ),
            (
                "-sprt elo0=0 elo1=5 model=bayesian",
                "-sprt model=bayesian: ",
            ),
            ("-log file=x compress=true", "-log compress=true: "),
            ("-concurrency 2000 -force-concurrency", "-concurrency: "),
        ] {
            let args = fastchess_args(&format!("{TWO} {extra}"));
            let e = refused(&args).unwrap_err().to_string();
            assert!(e.starts_with(named), "{extra}: {e}");
        }
    }

    #[test]
    fn fastchess_s_pgn_options_are_taken() {
        for extra in [
            "-pgnout file=x nodes=true seldepth=true nps=true hashfull=true tbhits=true pv=true timeleft=true latency=true",
            "-pgnout file=x notation=uci min=true",
            "-pgnout file=x notation=lan match_line=^info\\sstring match_line=abc",
        ] {
            let args = fastchess_args(&format!("{TWO} {extra}"));
            assert!(refused(&args).is_ok(), "{extra}");
        }
    }
}
