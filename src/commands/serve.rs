//! `argus serve`: a tournament of engines argus starts and players that connect over
//! TCP.

use super::super::*;
use argus::cli::{EXIT_NOT_PLAYED, EXIT_SPRT_H0, EXIT_SPRT_INCONCLUSIVE};

/// The players of `argus serve` in the order of the command line: each `--engine`
/// (its words) and each `--player`.
fn serve_players(
    args: &ServeArgs,
    matches: Option<&clap::ArgMatches>,
) -> Result<Vec<argus::server::Entrant>> {
    use argus::server::{EngineSpec, Entrant, RemotePlayer};
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
            let listed = argus::server::read_players(path).map_err(anyhow::Error::msg)?;
            placed.extend(listed.into_iter().map(|p| (at, Entrant::Remote(p))));
        }
    }
    placed.sort_by_key(|(at, _)| *at);
    let mut players: Vec<Entrant> = placed.into_iter().map(|(_, p)| p).collect();
    // The seats come after the players named in advance.
    players.extend((1..=args.seats).map(|n| Entrant::Seat(argus::server::Seat::free(n))));
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
fn serve_config(
    args: &ServeArgs,
    matches: Option<&clap::ArgMatches>,
) -> Result<argus::server::ServeConfig> {
    use argus::server::ServeConfig;
    let players = serve_players(args, matches)?;
    let (openings, openings_from, srand) = serve_openings(args)?;
    let cfg = ServeConfig {
        players,
        listen: Some(args.listen),
        max_clients: Some(args.max_clients as usize),
        format: args.format,
        rounds: args.rounds,
        games: args.games,
        concurrency: args.concurrency as usize,
        openings,
        openings_from,
        repeat: args.repeat,
        srand,
        time_control: args.tc.clone(),
        draw_rule: args.draw_rule.into(),
        illegal: args.illegal.into(),
        event: args.event.clone(),
        site: args.site.clone(),
        date: today().0,
        reset_delay: args.reset_delay,
        conclude_delay: args.conclude_delay,
        adjudication: argus::tournament::AdjudicationRules {
            resign: (!args.resign.is_empty())
                .then(|| argus::tournament::ResignRule::parse(&args.resign))
                .transpose()
                .map_err(anyhow::Error::msg)?,
            draw: (!args.draw.is_empty())
                .then(|| argus::tournament::DrawAdjudication::parse(&args.draw))
                .transpose()
                .map_err(anyhow::Error::msg)?,
            max_moves: args.maxmoves,
        },
        sprt: (!args.sprt.is_empty())
            .then(|| argus::tournament::SprtConfig::parse(&args.sprt))
            .transpose()
            .map_err(anyhow::Error::msg)?,
        rating_interval: args.rating_interval,
        // Absolute, so that a resume from another folder writes the same files.
        pgnout: args.pgnout.as_deref().map(absolute).transpose()?,
        epdout: args.epdout.as_deref().map(absolute).transpose()?,
        standby: match args.standby.standby_listen {
            Some(listen) => Some(argus::server::StandbySettings {
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
fn serve_openings(
    args: &ServeArgs,
) -> Result<(
    Vec<argus::core::Opening>,
    Option<argus::openings::OpeningsSpec>,
    Option<u64>,
)> {
    use argus::openings::{OpeningsSpec, Order, arrange};
    if args.openings.is_empty() {
        return Ok((Vec::new(), None, args.srand));
    }
    let spec = OpeningsSpec::parse(&args.openings).map_err(anyhow::Error::msg)?;
    let book = spec.read()?;
    let seed = match spec.order {
        // A drawn seed is short enough to type again.
        Order::Random => Some(args.srand.unwrap_or_else(|| u64::from(fastrand::u32(..)))),
        Order::Sequential => args.srand,
    };
    let keep = argus::tournament::openings_used(args.rounds, args.games, args.repeat);
    let openings = arrange(book, spec.order, spec.start, seed.unwrap_or(0), keep)
        .map_err(anyhow::Error::msg)?;
    Ok((openings, Some(spec), seed))
}

/// What an event's openings are, in a line: how many, from where, in which order (the
/// seed that repeats a random one).
fn openings_line(cfg: &argus::server::ServeConfig) -> Option<String> {
    use argus::openings::Order;
    let spec = cfg.openings_from.as_ref()?;
    let mut line = format!(
        "argus serve: openings: {} from {}",
        cfg.openings.len(),
        spec.file.display()
    );
    if let Some(plies) = spec.plies {
        line.push_str(&format!(" (at most {plies} plies of each game)"));
    }
    if spec.start != 1 {
        line.push_str(&format!(", from its opening {}", spec.start));
    }
    if spec.order == Order::Random {
        line.push_str(&format!(
            ", in random order (--srand {})",
            cfg.srand.unwrap_or(0)
        ));
    }
    line.push_str(&format!(", {} game(s) each", cfg.repeat));
    Some(line)
}

/// `path` made absolute (from the current folder).
fn absolute(path: &std::path::Path) -> Result<std::path::PathBuf> {
    std::path::absolute(path).with_context(|| format!("{}", path.display()))
}

/// `argus serve`: with `--config`, the event file's keys are read as the options they
/// name, before those of the command line, which override them.
pub(crate) fn serve_cmd(args: ServeArgs, matches: Option<&clap::ArgMatches>) -> Result<ExitCode> {
    let Some(path) = args.config.clone() else {
        return run_serve(args, matches);
    };
    let file = argus::server::config::load(&path)?;
    let given = |id: &str| {
        matches.is_some_and(|m| {
            m.try_get_raw(id).ok().flatten().is_some()
                && m.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
        })
    };
    // --engine, --player or --players on the command line: the players are the
    // command line's.
    let players_given = given("engine") || given("player") || given("players");
    let from_file: Vec<&argus::server::config::FileOption> = file
        .iter()
        .filter(|o| {
            let id = o.option.replace('-', "_");
            if ["engine", "player", "players"].contains(&id.as_str()) {
                !players_given
            } else {
                !given(&id)
            }
        })
        .collect();
    // The command line as typed: its words after `serve`.
    let typed: Vec<std::ffi::OsString> = std::env::args_os()
        .skip_while(|a| a != "serve")
        .skip(1)
        .collect();
    let mut argv: Vec<std::ffi::OsString> = vec!["argus".into(), "serve".into()];
    argv.extend(from_file.iter().flat_map(|o| o.args()).map(Into::into));
    argv.extend(typed);
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
    let args = <ServeArgs as clap::FromArgMatches>::from_arg_matches(&serve)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if args.out.is_none() {
        bail!(
            "give --out DIR, or `out` in [files] of the event file {}",
            path.display()
        );
    }
    run_serve(args, Some(&serve))
}

/// What the console and Ctrl-C ask of the event.
pub(crate) static REQUESTS: argus::server::Requests = argus::server::Requests::new();

/// The status an `argus serve` or `argus serial` exits with when an observer has taken
/// over its event (docs/standby.md).
pub(crate) const TAKEN_OVER: u8 = 3;

/// Offers the journal of a match (`argus serial`) to observers, as [`standby_hub`].
pub(crate) fn standby_hub_for_journal(
    what: &'static str,
    standby: &argus::cli::StandbyArgs,
    journal: &std::path::Path,
) -> Result<Option<Arc<argus::mediator::standby::Hub>>> {
    standby_hub(what, standby, journal, true)
}

/// Offers the journals of `root` (with `only`: the journal `root` alone) to observers (`--standby-listen`); when one says it
/// took over, this referee says so and exits with [`TAKEN_OVER`], relaying nothing
/// more.
pub(crate) fn standby_hub(
    what: &'static str,
    standby: &argus::cli::StandbyArgs,
    root: &std::path::Path,
    only: bool,
) -> Result<Option<Arc<argus::mediator::standby::Hub>>> {
    let Some(addr) = standby.standby_listen else {
        return Ok(None);
    };
    let key = standby
        .standby_key
        .as_deref()
        .map(argus::secret::Key::read)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    // The stream gives the journals and the power to stop this referee: beyond this
    // machine, only to observers that hold the key.
    if key.is_none() && !addr.ip().is_loopback() {
        bail!(
            "--standby-listen {addr}: an address beyond this machine needs --standby-key FILE (a secret the observers hold too: head -c 32 /dev/urandom | base64 > standby.key), or listen on 127.0.0.1"
        );
    }
    let listen = if only {
        argus::mediator::standby::Hub::listen_for_journal
    } else {
        argus::mediator::standby::Hub::listen
    };
    let hub = listen(
        addr,
        root,
        standby.standby_sync,
        key,
        Box::new(move |by| {
            argus::watch::tui::restore();
            eprintln!(
                "{what}: the observer {by} has taken over: this referee goes on no more (exit status {TAKEN_OVER})"
            );
            client::engine_process::kill_all();
            std::process::exit(i32::from(TAKEN_OVER));
        }),
    )
    .with_context(|| format!("--standby-listen {addr}"))?;
    println!(
        "{what}: observers follow at {} (argus observe {}{}{})",
        hub.addr(),
        hub.addr(),
        if standby.standby_key.is_some() {
            " --standby-key FILE"
        } else {
            ""
        },
        if standby.standby_sync {
            "; a line is relayed once they hold it"
        } else {
            ""
        }
    );
    Ok(Some(hub))
}

fn run_serve(args: ServeArgs, matches: Option<&clap::ArgMatches>) -> Result<ExitCode> {
    run_serve_as(args, matches, None)
}

/// How an observer that took an event over runs it.
pub(crate) struct TookOver {
    /// Where its players connect.
    pub(crate) listen: std::net::SocketAddr,
    /// The views the observer fed while it followed.
    pub(crate) live: Option<Arc<argus::watch::live::Live>>,
}

/// The options that go with `argus serve --resume DIR`: they are about this run's
/// process (its page, its console, how it is shown), not what the event is.
pub(crate) const RESUME_ALLOWS: [&str; 4] = ["resume", "unattended", "http", "plain"];

/// Runs the event; `took_over`: an observer took it over.
pub(crate) fn run_serve_as(
    args: ServeArgs,
    matches: Option<&clap::ArgMatches>,
    took_over: Option<TookOver>,
) -> Result<ExitCode> {
    use argus::server::{self, Progress};
    let cfg = match &args.resume {
        Some(dir) => {
            // Everything comes from the event's journal, its network options too (an
            // observer that took over tells the standby address the record gives):
            // another option would say something the event may not have been. Only
            // what is about this run's process goes with it.
            if let Some(m) = matches {
                let given: Vec<String> = m
                    .ids()
                    // Options only (clap also lists the struct's group, ServeArgs).
                    .filter(|id| {
                        !RESUME_ALLOWS.contains(&id.as_str())
                            && id.as_str().starts_with(|c: char| c.is_ascii_lowercase())
                    })
                    .filter(|id| {
                        m.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
                    })
                    .map(|id| format!("--{}", id.as_str().replace('_', "-")))
                    .collect();
                if !given.is_empty() {
                    bail!(
                        "--resume {} takes the event's players and settings, its network options among them (--listen, --standby-listen, --standby-sync, --standby-key), from its event.jsonl: give no {} (only --http, --unattended and --plain go with --resume)",
                        dir.display(),
                        given.join(", ")
                    );
                }
            }
            server::event_settings(dir)?
        }
        None => serve_config(&args, matches)?,
    };
    // Ctrl-C and the console's commands reach the event's thread through these.
    ctrlc::set_handler(|| {
        if REQUESTS.stop() {
            argus::watch::tui::restore();
            eprintln!("argus serve: interrupted again, exiting now");
            // Observers are told it stopped: they do not take over what was stopped.
            argus::mediator::standby::end_now(Duration::from_millis(500));
            client::engine_process::kill_all();
            std::process::exit(130);
        }
        eprintln!(
            "argus serve: stopping the games under way, to go on with --resume (again to exit now; `stop after-games` lets them finish)"
        );
    })
    .context("cannot install the interrupt handler")?;
    // Said before anything else is printed.
    server::check_players(&cfg)?;
    let scheduled = server::scheduled_games(&cfg);
    // The terminal view, when argus serve runs attended in a terminal: its console
    // line takes the console's commands.
    let view = if !args.unattended && argus::watch::tui::wanted(args.plain) {
        let title = format!(
            "argus serve{}: {} players, {}, {scheduled} game(s) at {}, {} at once; files in {}",
            if cfg.event == "?" {
                String::new()
            } else {
                format!(" · {}", cfg.event)
            },
            cfg.players.len(),
            cfg.format,
            cfg.time_control,
            cfg.concurrency,
            cfg.out.display()
        );
        crate::start_view(
            &title,
            argus::server::CONSOLE_HELP.trim_start_matches("commands: "),
            Box::new(|line, selected| super::serve_console::line(line, &REQUESTS, selected)),
        )
    } else {
        None
    };
    println!(
        "argus serve: {}{} players, {}, {scheduled} game(s) at {}, {} at once; files in {}",
        if args.resume.is_some() {
            "going on with an event of "
        } else {
            ""
        },
        cfg.players.len(),
        cfg.format,
        cfg.time_control,
        cfg.concurrency,
        cfg.out.display()
    );
    if let Some(line) = openings_line(&cfg) {
        println!("{line}");
    }
    // The event's standby stream and page, as its record gives them (an observer that
    // took over has neither: it is not the primary its observers followed, and serves
    // its own page); a page given now replaces the event's.
    let standby = match (&cfg.standby, &took_over) {
        (Some(s), None) => argus::cli::StandbyArgs {
            standby_listen: Some(s.listen),
            standby_sync: s.sync,
            standby_key: s.key.clone(),
        },
        _ => argus::cli::StandbyArgs::default(),
    };
    let http = args
        .http
        .clone()
        .or_else(|| took_over.is_none().then(|| cfg.http.clone()).flatten());
    let hub = standby_hub("argus serve", &standby, &cfg.out, false)?;
    if !args.unattended {
        super::serve_console::start(&REQUESTS, view.is_none())?;
    }
    let live = view
        .as_ref()
        .map(|(_, live)| std::sync::Arc::clone(live))
        .or_else(|| took_over.as_ref().and_then(|t| t.live.clone()))
        .or_else(|| {
            http.is_some()
                .then(|| std::sync::Arc::new(argus::watch::live::Live::new()))
        });
    if let (Some(addr), Some(live)) = (&http, &live) {
        super::start_page(addr, &cfg.event, &cfg.site, std::sync::Arc::clone(live))?;
    }
    // The players' names: a seat's changes once its player signs on.
    let mut names: Vec<String> = cfg.players.iter().map(|p| p.name().to_string()).collect();
    let two = cfg.players.len() == 2;
    // The games shown as scheduled.
    let mut shown = scheduled;
    let mut progress = |p: Progress<'_>| match p {
        Progress::Seated(i, seat) => {
            println!(
                "argus serve: {} takes seat {} ({})",
                seat.name,
                seat.number,
                match seat.taken {
                    Some(server::TakenBy::Address) =>
                        "no name in its sign_on: named by its address",
                    _ => "by its name",
                }
            );
            names[i].clone_from(&seat.name);
        }
        Progress::Started(g) => {
            // A knockout's tie-breaks come on top of its schedule.
            shown = shown.max(g.number as usize);
            println!(
                "game {}/{shown} (round {}): {} vs {}",
                g.number, g.round, names[g.white], names[g.black]
            );
        }
        Progress::Finished(g, report, standings) => {
            println!(
                "game {}/{shown}: {} vs {}: {} ({})",
                g.number, report.white, report.black, report.result, report.reason
            );
            if two {
                println!(
                    "score: {} {} - {} {}",
                    names[0],
                    f64::from(standings.half_points(0)) / 2.0,
                    f64::from(standings.half_points(1)) / 2.0,
                    names[1]
                );
            }
        }
        Progress::Failed(g, why) => eprintln!("error: game {}: {why}", g.number),
        Progress::Sprt(sprt) => println!("{}", sprt.line()),
        Progress::Ratings(games, ratings) => {
            print!("ratings after {games} game(s):\n{}", ratings.text());
        }
        Progress::Knockout(m) => println!("knockout round {}: {}", m.round, m.describe(&names)),
        Progress::Status(status) => {
            for game in &status.games {
                let g = &game.spec;
                println!(
                    "status: game {}/{scheduled} (round {}): {} vs {}: {game}",
                    g.number, g.round, names[g.white], names[g.black]
                );
            }
            println!(
                "status: {} of {} game(s) done, {} under way{}",
                status.done,
                status.scheduled,
                status.games.len(),
                if status.draining {
                    "; no new game starts"
                } else {
                    ""
                }
            );
        }
        Progress::Draining(0) => {
            println!("argus serve: no new game starts; no game is under way");
        }
        Progress::Draining(n) => {
            println!("argus serve: no new game starts; {n} game(s) under way finish first");
        }
        Progress::Console(text) => println!("argus serve: {text}"),
        // The answers to the supervisor's commands for a game.
        Progress::Notice(
            g,
            notice @ (argus::core::Notice::Supervisor { .. }
            | argus::core::Notice::ClockChanged { .. }
            | argus::core::Notice::Paused { .. }
            | argus::core::Notice::Unpaused),
        ) => println!("game {}: {notice}", g.number),
        Progress::Notice(g, notice) if mediator::is_warning(notice) => {
            log::warn!("game {}: {notice}", g.number);
        }
        Progress::Notice(g, notice) => log::debug!("game {}: {notice}", g.number),
    };
    let setup = server::Setup {
        live: live.as_ref(),
        standby: hub.as_ref(),
        listen: took_over.as_ref().map(|t| t.listen),
    };
    let summary = match &args.resume {
        Some(dir) => server::resume_with(dir, &setup, &REQUESTS, &mut progress)?,
        None => server::run_with(&cfg, &setup, &REQUESTS, &mut progress)?,
    };
    if let Some(hub) = &hub {
        hub.close(summary.stopped);
    }
    // The terminal is given back before the standings are printed.
    drop(view);
    // What standings.txt holds; the crosstable of a big event is for the file only.
    print!("\n{}", summary.text(cfg.players.len() <= 16));
    println!(
        "argus serve: {} of {} game(s) played; files in {}",
        summary.played,
        summary.scheduled,
        cfg.out.display()
    );
    // Never a success with a game not played (it failed: the log says why).
    if !summary.stopped && summary.played < summary.scheduled {
        let failed: Vec<String> = summary.failed.iter().map(u32::to_string).collect();
        let which = if failed.is_empty() {
            String::new()
        } else {
            format!(" (game {})", failed.join(", "))
        };
        eprintln!(
            "argus serve: {} of {} game(s) not played{which}: the log says why (exit status {EXIT_NOT_PLAYED})",
            summary.scheduled - summary.played,
            summary.scheduled,
        );
        return Ok(ExitCode::from(EXIT_NOT_PLAYED));
    }
    if let Some(sprt) = &summary.sprt {
        use argus::tournament::SprtDecision;
        match sprt.decision() {
            SprtDecision::AcceptH1 => {
                println!("argus serve: {}; the match stopped there", sprt.line());
                return Ok(ExitCode::SUCCESS);
            }
            SprtDecision::AcceptH0 => {
                println!(
                    "argus serve: {}; the match stopped there (exit status {EXIT_SPRT_H0})",
                    sprt.line()
                );
                return Ok(ExitCode::from(EXIT_SPRT_H0));
            }
            SprtDecision::Continue if !summary.stopped => {
                println!(
                    "argus serve: {}; inconclusive: every game played, no bound reached (exit status {EXIT_SPRT_INCONCLUSIVE})",
                    sprt.line()
                );
                return Ok(ExitCode::from(EXIT_SPRT_INCONCLUSIVE));
            }
            SprtDecision::Continue => {}
        }
    }
    if summary.stopped {
        println!(
            "argus serve: stopped; the event is not over: go on with `argus serve --resume {}`",
            cfg.out.display()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
