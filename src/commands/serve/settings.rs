//! `argus serve`'s settings resolved from what was typed: the event file's keys merged
//! under the command line's options, then the players, openings and rules of a
//! [`ServeConfig`], or the event's own record for `--resume`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{ArgMatches, CommandFactory, FromArgMatches};

use argus::cli::{Cli, ServeArgs, Typed};
use argus::core::{Opening, Variant};
use argus::openings::{OpeningsSpec, Order, arrange};
use argus::server::config::{self, FileOption};
use argus::server::{self, EngineSpec, Entrant, RemotePlayer, Seat, ServeConfig, StandbySettings};
use argus::tournament::{
    AdjudicationRules, Colours, DrawAdjudication, ResignRule, SprtConfig, openings_used,
};

use crate::commands::today;

/// The players of `argus serve` in the order of the command line: each `--engine`
/// (its words) and each `--player`.
fn serve_players(args: &ServeArgs, matches: Option<&ArgMatches>) -> Result<Vec<Entrant>> {
    let mut placed: Vec<(usize, Entrant)> = Vec::new();
    if let Some(m) = matches {
        // Where each --engine's first word stands on the command line.
        let engine_at: Vec<usize> = m
            .indices_of("engine")
            .map(Iterator::collect)
            .unwrap_or_default();
        let groups: Vec<Vec<String>> = m
            .get_occurrences::<String>("engine")
            .map(|o| o.map(|words| words.cloned().collect()).collect())
            .unwrap_or_default();
        let mut first = 0;
        for words in groups {
            let spec =
                EngineSpec::parse(&with_each(&args.each, &words)).map_err(anyhow::Error::msg)?;
            placed.push((
                engine_at.get(first).copied().unwrap_or(0),
                Entrant::Engine(spec),
            ));
            first += words.len();
        }
        let player_at: Vec<usize> = m
            .indices_of("player")
            .map(Iterator::collect)
            .unwrap_or_default();
        for (text, at) in args.player.iter().zip(player_at) {
            let player = RemotePlayer::parse(text).map_err(anyhow::Error::msg)?;
            placed.push((at, Entrant::Remote(player)));
        }
        // --players FILE: its players where it stands, in the file's order.
        if let Some(path) = &args.players {
            let at = m.index_of("players").unwrap_or(usize::MAX);
            let listed = server::read_players(path).map_err(anyhow::Error::msg)?;
            placed.extend(listed.into_iter().map(|p| (at, Entrant::Remote(p))));
        }
    }
    placed.sort_by_key(|(at, _)| *at);
    let mut players: Vec<Entrant> = placed.into_iter().map(|(_, p)| p).collect();
    // The seats come after the players named in advance.
    players.extend((1..=args.seats).map(|n| Entrant::Seat(Seat::free(n))));
    let mut names: Vec<&str> = players.iter().map(Entrant::name).collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|w| w[0] == w[1]) {
        bail!(
            "two players are named {:?}: give each its own name",
            pair[0]
        );
    }
    Ok(players)
}

/// An engine's words after the words every engine shares (`--each`), leaving out
/// those the engine gives itself (a search limit is one key, whichever of `nodes=`,
/// `depth=`, `movetime=`).
fn with_each(each: &[String], own: &[String]) -> Vec<String> {
    let key = |word: &String| -> String {
        let key = word.split_once('=').map_or(word.as_str(), |(k, _)| k);
        match key {
            "nodes" | "depth" | "movetime" => "limit".to_string(),
            other => other.to_string(),
        }
    };
    let own_keys: Vec<String> = own.iter().map(key).collect();
    each.iter()
        .filter(|w| !own_keys.contains(&key(w)))
        .chain(own)
        .cloned()
        .collect()
}

/// The event that `argus serve`'s options describe.
fn serve_config(args: &ServeArgs, matches: Option<&ArgMatches>) -> Result<ServeConfig> {
    let players = serve_players(args, matches)?;
    let (openings, openings_from, srand) = serve_openings(args)?;
    let cfg = ServeConfig {
        players,
        listen: Some(args.listen),
        max_clients: Some(args.max_clients as usize),
        absent_after: args.absent_after,
        format: args.format,
        rounds: args.rounds,
        games: args.games,
        concurrency: args.concurrency as usize,
        openings,
        openings_from,
        repeat: args.repeat,
        srand,
        seeds: 1,
        colours: Colours::Alternate,
        time_control: args.tc.clone(),
        draw_rule: args.draw_rule.into(),
        illegal: args.illegal.into(),
        event: args.event.clone(),
        site: args.site.clone(),
        date: today().0,
        reset_delay: args.reset_delay,
        conclude_delay: args.conclude_delay,
        adjudication: AdjudicationRules {
            resign: (!args.resign.is_empty())
                .then(|| ResignRule::parse(&args.resign))
                .transpose()
                .map_err(anyhow::Error::msg)?,
            draw: (!args.draw.is_empty())
                .then(|| DrawAdjudication::parse(&args.draw))
                .transpose()
                .map_err(anyhow::Error::msg)?,
            max_moves: args.maxmoves,
        },
        sprt: (!args.sprt.is_empty())
            .then(|| SprtConfig::parse(&args.sprt))
            .transpose()
            .map_err(anyhow::Error::msg)?,
        rating_interval: args.rating_interval,
        // Absolute, so that a resume from another folder writes the same files.
        pgnout: args.pgnout.as_deref().map(absolute).transpose()?,
        epdout: args.epdout.as_deref().map(absolute).transpose()?,
        pgnout_variant: None,
        keep_info: false,
        no_game_pgn: false,
        variant: args.variant,
        tb: args.tablebase.config().map_err(anyhow::Error::msg)?,
        standby: match args.standby.standby_listen {
            Some(listen) => Some(StandbySettings {
                listen,
                sync: args.standby.standby_sync,
                key: args
                    .standby
                    .standby_key
                    .as_deref()
                    .map(absolute)
                    .transpose()?,
            }),
            None => None,
        },
        http: args.http.clone(),
        out: args.out.clone().context("give --out DIR")?,
    };
    Ok(cfg)
}

/// The openings of `--openings`, in the order the encounters take them (shuffled with
/// order=random by --srand, or by a seed drawn now), as many as the schedule takes; the
/// words they came from; the seed.
fn serve_openings(args: &ServeArgs) -> Result<(Vec<Opening>, Option<OpeningsSpec>, Option<u64>)> {
    let keep = openings_used(args.rounds, args.games, args.repeat);
    let (openings, spec, srand) = openings_of(&args.openings, args.srand, keep, false)?;
    Ok(match args.variant {
        Variant::Chess960 if openings.is_empty() => {
            let (openings, seed) = chess960_openings(args.srand, keep);
            (openings, spec, Some(seed))
        }
        _ => (openings, spec, srand),
    })
}

/// `keep` Chess960 start positions drawn by `srand` (or by a seed drawn now), one for
/// each encounter, for a Chess960 event without a book; the seed.
pub(crate) fn chess960_openings(srand: Option<u64>, keep: usize) -> (Vec<Opening>, u64) {
    let seed = srand.unwrap_or_else(|| u64::from(fastrand::u32(..)));
    let mut rng = fastrand::Rng::with_seed(seed);
    let openings = (0..keep)
        .map(|_| {
            let number = rng.u16(..argus::core::variant::CHESS960_POSITIONS);
            Opening {
                fen: argus::core::variant::chess960_fen(number).expect("a number below 960"),
                tags: Vec::new(),
            }
        })
        .collect();
    (openings, seed)
}

/// The openings the words of `--openings` (or fastchess's `-openings`) name, the first
/// `keep` in the order the encounters take them (order=random shuffled by `srand`, or by
/// a seed drawn now); the words read; the seed. With `wrap`, a `start=` past the book's
/// end goes round it again, as fastchess and cutechess-cli take it (fishtest's workers
/// give ever larger ones); otherwise it is refused.
pub(crate) fn openings_of(
    words: &[String],
    srand: Option<u64>,
    keep: usize,
    wrap: bool,
) -> Result<(Vec<Opening>, Option<OpeningsSpec>, Option<u64>)> {
    if words.is_empty() {
        return Ok((Vec::new(), None, srand));
    }
    let spec = OpeningsSpec::parse(words).map_err(anyhow::Error::msg)?;
    let book = spec.read()?;
    let seed = match spec.order {
        // A drawn seed is short enough to type again.
        Order::Random => Some(srand.unwrap_or_else(|| u64::from(fastrand::u32(..)))),
        Order::Sequential => srand,
    };
    let start = if wrap && !book.is_empty() {
        (spec.start.max(1) - 1) % u32::try_from(book.len()).unwrap_or(u32::MAX) + 1
    } else {
        spec.start
    };
    let openings =
        arrange(book, spec.order, start, seed.unwrap_or(0), keep).map_err(anyhow::Error::msg)?;
    Ok((openings, Some(spec), seed))
}

/// `path` made absolute (from the current folder).
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("{}", path.display()))
}

/// `argus serve --config EVENT.toml`: the event file's keys read as the options they
/// name, before those of the command line (`matches`), which override them; the options
/// merged and their matches. None without `--config`.
pub(crate) fn with_event_file(
    args: &ServeArgs,
    matches: Option<&ArgMatches>,
) -> Result<Option<(ServeArgs, ArgMatches)>> {
    let Some(path) = args.config.clone() else {
        return Ok(None);
    };
    let file = config::load(&path)?;
    let typed = Typed::from_matches(matches);
    // --engine, --player or --players on the command line: the players are the
    // command line's.
    let players_given = ["engine", "player", "players"]
        .iter()
        .any(|id| typed.has(id));
    let from_file: Vec<&FileOption> = file
        .iter()
        .filter(|o| {
            let id = o.option.replace('-', "_");
            if ["engine", "player", "players"].contains(&id.as_str()) {
                !players_given
            } else {
                !typed.has(&id)
            }
        })
        .collect();
    // The command line as typed: its words after `serve`.
    let words: Vec<OsString> = std::env::args_os()
        .skip_while(|a| a != "serve")
        .skip(1)
        .collect();
    let mut argv: Vec<OsString> = vec!["argus".into(), "serve".into()];
    argv.extend(from_file.iter().flat_map(|o| o.args()).map(Into::into));
    argv.extend(words);
    let merged = match Cli::command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // An error about a key of the file names the key and its place.
            let culprit = from_file.iter().find(|o| {
                let name = format!("'--{}", o.option);
                first.contains(&format!("{name} ")) || first.contains(&format!("{name}'"))
            });
            match culprit {
                Some(o) => bail!(
                    "config {}: {}: {}: {first}",
                    path.display(),
                    o.at,
                    o.describe()
                ),
                None => bail!("{first}"),
            }
        }
    };
    let serve = merged
        .subcommand_matches("serve")
        .context("argus serve")?
        .clone();
    let args = ServeArgs::from_arg_matches(&serve).map_err(|e| anyhow::anyhow!("{e}"))?;
    if args.out.is_none() {
        bail!(
            "give --out DIR, or `out` in [files] of the event file {}",
            path.display()
        );
    }
    Ok(Some((args, serve)))
}

/// The options that go with `argus serve --resume DIR`: they are about this run's
/// process (its page, its console, how it is shown), not what the event is.
const RESUME_ALLOWS: [&str; 4] = ["resume", "unattended", "http", "plain"];

/// The event `args` describes (of which those in `matches` were typed), or with
/// `--resume DIR` the event DIR's journal records.
pub(crate) fn resolve(args: &ServeArgs, matches: Option<&ArgMatches>) -> Result<ServeConfig> {
    let Some(dir) = &args.resume else {
        return serve_config(args, matches);
    };
    // Everything comes from the event's journal, its network options too (an observer
    // that took over tells the standby address the record gives): another option would
    // say something the event may not have been. Only what is about this run's process
    // goes with it.
    let given: Vec<String> = Typed::from_matches(matches)
        .options()
        .filter(|id| !RESUME_ALLOWS.contains(id))
        .map(|id| format!("--{}", id.replace('_', "-")))
        .collect();
    if !given.is_empty() {
        bail!(
            "--resume {} takes the event's players and settings, its network options among them (--listen, --standby-listen, --standby-sync, --standby-key), from its event.jsonl: give no {} (only --http, --unattended and --plain go with --resume)",
            dir.display(),
            given.join(", ")
        );
    }
    Ok(server::event_settings(dir)?)
}
