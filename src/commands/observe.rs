//! `argus observe PRIMARY --out DIR`: follows a running referee's standby stream
//! (`--standby-listen`), keeps its own copy of the journals in DIR and a live replay
//! for the views, and takes over on the console's `takeover` or after
//! `--takeover-after SECS` of silence: then it goes on as `--resume DIR` does, an
//! event listening on its own `--listen`, a match on the serial ports of `--ports`.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, FromArgMatches};

use argus::cli::{Cli, Command, ObserveArgs, Typed};
use argus::core::Notice;
use argus::mediator;
use argus::mediator::standby::observer::{self, Copies, EventLine, Follow, From, Outcome};
use argus::server::EventEntry;
use argus::tournament::{GameSpec, Standings};
use argus::watch::live::Live;

use super::views::start_page;
use super::{serial, serve};

/// Set when the operator types `takeover`.
static ASKED: AtomicBool = AtomicBool::new(false);
/// Set once this observer has taken over: the console's lines are the event's.
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Set when what it took over is a match (argus serial), which runs unattended here.
static MATCH: AtomicBool = AtomicBool::new(false);

const HELP: &str = "commands: takeover (go on with the match or event here, now), help";

/// The console: `takeover` before the takeover; the event's commands after it.
fn console() -> Result<()> {
    std::thread::Builder::new()
        .name("argus-observe-console".into())
        .spawn(|| {
            use std::io::BufRead as _;
            for text in io::stdin().lock().lines() {
                let Ok(text) = text else { break };
                if TAKEN.load(Ordering::SeqCst) {
                    if MATCH.load(Ordering::SeqCst) {
                        println!(
                            "argus observe: the match runs unattended here (Ctrl-C stops it, to go on with --resume)"
                        );
                    } else {
                        serve::console::line(&text, &serve::REQUESTS, None);
                    }
                    continue;
                }
                match text.trim() {
                    "" => {}
                    "takeover" => {
                        println!("argus observe: taking over");
                        ASKED.store(true, Ordering::SeqCst);
                    }
                    "help" => println!("argus observe: {HELP}"),
                    other => println!("argus observe: {other:?} is no command; {HELP}"),
                }
            }
        })
        .context("cannot start the console")?;
    Ok(())
}

/// What the observer says of the games it follows: a line when one begins and ends.
fn say(from: From<'_>, notice: &Notice) {
    let game = from.game.map(|n| format!("game {n}: ")).unwrap_or_default();
    match notice {
        Notice::GameStarted { .. } | Notice::GameOver { .. } | Notice::Resumed { .. } => {
            // An event's game is a match of one game: its notices call it game 1.
            let text = notice.to_string();
            let text = match from.game {
                Some(_) => text.strip_prefix("game 1: ").unwrap_or(&text).to_string(),
                None => text,
            };
            println!("argus observe: {game}{text}");
        }
        _ => log::debug!("{game}{notice}"),
    }
}

/// Whether the copy in `args.out` can be taken over with what was given (`--ports` for
/// a match).
fn ready(args: &ObserveArgs) -> Result<observer::Holding, String> {
    let holding = observer::holding(&args.out)?;
    if let observer::Holding::Match(journal) = &holding
        && args.ports.len() != 2
    {
        return Err(format!(
            "{} is a match of argus serial: give the ports to take it over on, --ports A,B (or: argus serial --resume {} A B)",
            journal.display(),
            journal.display()
        ));
    }
    match &holding {
        // A port that is not there (a device path) is found before the primary is told.
        #[cfg(unix)]
        observer::Holding::Match(_) => {
            if let Some(port) = args
                .ports
                .iter()
                .find(|p| p.starts_with('/') && !std::path::Path::new(p).exists())
            {
                return Err(format!("the port {port} (--ports) is not there"));
            }
        }
        // So is an address the players could not reach it at.
        observer::Holding::Event => {
            let cfg = argus::server::event_settings(&args.out).map_err(|e| e.to_string())?;
            if cfg.players.iter().any(argus::server::Entrant::is_remote)
                && let Err(e) = std::net::TcpListener::bind(args.listen)
            {
                return Err(format!("cannot listen on {} (--listen): {e}", args.listen));
            }
        }
        #[cfg(not(unix))]
        observer::Holding::Match(_) => {}
    }
    Ok(holding)
}

/// `argus observe`: the primary followed until it dies or the operator takes over, then
/// its event or match run here.
pub(crate) fn observe_cmd(args: ObserveArgs) -> Result<ExitCode> {
    // A PRIMARY that is no address is said at once, not tried for ever.
    if args
        .primary
        .rsplit_once(':')
        .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err())
    {
        bail!(
            "{:?}: give the primary's standby address, HOST:PORT (its --standby-listen)",
            args.primary
        );
    }
    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot make the folder {}", args.out.display()))?;
    let live = args.http.as_ref().map(|_| Arc::new(Live::new()));
    if let (Some(addr), Some(live)) = (&args.http, &live) {
        start_page(addr, "?", "?", Arc::clone(live))?;
    }
    // The live replay feeds the views: an event's games by number, a match's through
    // the serial mode's feed.
    let mut feed = live
        .as_ref()
        .map(|live| argus::watch::feed::MatchFeed::new((), Arc::clone(live), Default::default()));
    let event_live = live.clone();
    let mut copies = Copies::new(
        &args.out,
        Box::new(move |from, notice| {
            say(from, notice);
            match (from.game, &event_live, &mut feed) {
                (Some(game), Some(live), _) => {
                    live.notice(game, from.round.unwrap_or(1), notice);
                }
                (None, _, Some(feed)) => mediator::Watcher::notice(feed, notice),
                _ => {}
            }
        }),
    );
    copies.on_event_line(event_reader(live.clone()));
    if !args.unattended {
        console()?;
        println!("argus observe: console; {HELP}");
    }
    let by = format!("argus observe (pid {})", std::process::id());
    println!(
        "argus observe: following {} into {}{}",
        args.primary,
        args.out.display(),
        match args.takeover_after {
            Some(after) => format!("; taking over after {} s of silence", after.as_secs_f64()),
            None => String::new(),
        }
    );
    let key = args
        .standby_key
        .as_deref()
        .map(argus::secret::Key::read)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let how = Follow {
        primary: args.primary.clone(),
        takeover_after: args.takeover_after,
        asked: &ASKED,
        by: by.clone(),
        ready: &|| ready(&args).map(|_| ()),
        key: key.as_ref(),
    };
    match observer::follow(&how, &mut copies) {
        Outcome::Ended { stopped: false } => {
            println!(
                "argus observe: the primary has finished; nothing to take over (the copy is in {})",
                args.out.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        Outcome::Ended { stopped: true } => {
            println!(
                "argus observe: the primary stopped, to be resumed; nothing to take over now (the copy is in {})",
                args.out.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        Outcome::Failed(why) => bail!("{why}; this observer cannot take over"),
        Outcome::Asked => println!("argus observe: taking over from {}, as asked", args.primary),
        Outcome::Silent(silent) => println!(
            "argus observe: {} has been silent for {:.1} s: taking over",
            args.primary,
            silent.as_secs_f64()
        ),
    }
    // A primary that was cut off, not dead, hears it as soon as it can.
    observer::keep_telling(args.primary.clone(), by, key);
    TAKEN.store(true, Ordering::SeqCst);
    take_over(&args, live)
}

/// The lines of the event's own journal, read as they come (by the event's reader,
/// [`EventEntry`]): the rounds of its games and the games it records a result of, for
/// the copy; for the views (`live`), the standings: its players (first line), its games'
/// pairings, its seats' names and its results.
fn event_reader(live: Option<Arc<Live>>) -> observer::EventLineSink {
    let mut standings: Option<Standings> = None;
    let mut games: HashMap<u32, (usize, usize)> = HashMap::new();
    Box::new(move |line: &serde_json::Value| {
        let entry = EventEntry::of(line);
        let paired: &[GameSpec] = match &entry {
            EventEntry::Settings { players, schedule } => {
                // A first line without its players makes no table.
                if !players.is_empty() {
                    standings = Some(Standings::new(players.clone()));
                }
                schedule
            }
            EventEntry::Pairings {
                games: Some(specs), ..
            }
            | EventEntry::Tiebreak(Some(specs)) => specs,
            _ => &[],
        };
        games.extend(paired.iter().map(|g| (g.number, (g.white, g.black))));
        let said = EventLine {
            rounds: paired.iter().map(|g| (g.number, g.round)).collect(),
            finished: match &entry {
                EventEntry::Game(_, game) => game.journal.clone(),
                _ => None,
            },
        };
        let (Some(live), Some(table)) = (&live, &mut standings) else {
            return said;
        };
        match entry {
            EventEntry::Pairings { bye: Some(bye), .. } => {
                table.record_bye(bye);
                live.standings(table.json());
            }
            EventEntry::Seat { player, name, .. } => table.rename(player as usize, &name),
            EventEntry::Game(number, game) => {
                if let Some(&(white, black)) = games.get(&number) {
                    table.record(white, black, game.result);
                    live.standings(table.json());
                }
            }
            _ => {}
        }
        said
    })
}

/// Goes on with the copy as `--resume` does.
fn take_over(args: &ObserveArgs, live: Option<Arc<Live>>) -> Result<ExitCode> {
    let dir = &args.out;
    let holding = ready(args).map_err(|why| anyhow::anyhow!("{why}"))?;
    let observer::Holding::Match(journal) = holding else {
        let argv = [
            "argus".into(),
            "serve".into(),
            "--resume".into(),
            dir.clone().into_os_string(),
            "--unattended".into(),
        ];
        let Command::Serve(serve_args) = <Cli as clap::Parser>::try_parse_from(argv)?.command
        else {
            bail!("argus serve --resume: not parsed as argus serve");
        };
        let took_over = serve::TookOver {
            listen: args.listen,
            live,
        };
        return serve::run(*serve_args, None, Some(took_over));
    };
    // A match: its one journal, on the ports given (ready() checked there are two).
    let [port_a, port_b] = args.ports.as_slice() else {
        bail!("--ports A,B: two ports");
    };
    MATCH.store(true, Ordering::SeqCst);
    let argv = [
        "argus".into(),
        "serial".into(),
        "--resume".into(),
        journal.clone().into_os_string(),
        port_a.into(),
        port_b.into(),
        "--unattended".into(),
        "--plain".into(),
    ];
    let matches = Cli::command().try_get_matches_from::<_, std::ffi::OsString>(argv)?;
    let Command::Serial(serial_args) = Cli::from_arg_matches(&matches)?.command else {
        bail!("argus serial --resume: not parsed as argus serial");
    };
    let typed = Typed::from_matches(matches.subcommand_matches("serial"));
    let mut plan = serial::plan::resume(&serial_args, &typed, &journal, None)?;
    // The games go to the copy's PGN file, which the observer made from the journal.
    if let Some(name) = plan.pgn.file_name() {
        plan.pgn = dir.join(name);
    }
    plan.live = live;
    serial::run::run(plan)
}
