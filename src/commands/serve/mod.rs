//! `argus serve`: a tournament of engines argus starts and players that connect over
//! TCP. What was typed (and an event file's keys) resolved into a [`server::ServeConfig`]
//! (`settings`), the event run, its progress printed (`progress`) and its console read
//! (`console`).

pub(crate) mod console;
mod progress;
pub(crate) mod settings;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::ArgMatches;

use argus::cli::{EXIT_NOT_PLAYED, EXIT_SPRT_H0, EXIT_SPRT_INCONCLUSIVE, ServeArgs, StandbyArgs};
use argus::client::engine_process;
use argus::mediator::standby;
use argus::server::{self, CONSOLE_HELP, Progress, Requests};
use argus::tournament::SprtDecision;
use argus::watch::live::Live;
use argus::watch::tui;

use super::standby::standby_hub;
use super::views::{start_page, start_view};
use progress::{ProgressLines, openings_line};

/// `argus serve`: the event its options (of which `matches` were typed) describe, with
/// `--config` those of an event file under them, run to its end or a stop.
pub(crate) fn serve_cmd(args: ServeArgs, matches: Option<&ArgMatches>) -> Result<ExitCode> {
    match settings::with_event_file(&args, matches)? {
        Some((args, matches)) => run(args, Some(&matches), None),
        None => run(args, matches, None),
    }
}

/// What the console and Ctrl-C ask of the event.
pub(crate) static REQUESTS: Requests = Requests::new();

/// How an observer that took an event over runs it.
pub(crate) struct TookOver {
    /// Where its players connect.
    pub(crate) listen: SocketAddr,
    /// The views the observer fed while it followed.
    pub(crate) live: Option<Arc<Live>>,
}

/// Runs the event; `took_over`: an observer took it over.
pub(crate) fn run(
    args: ServeArgs,
    matches: Option<&ArgMatches>,
    took_over: Option<TookOver>,
) -> Result<ExitCode> {
    let cfg = settings::resolve(&args, matches)?;
    // Ctrl-C and the console's commands reach the event's thread through these.
    ctrlc::set_handler(|| {
        if REQUESTS.stop() {
            tui::restore();
            eprintln!("argus serve: interrupted again, exiting now");
            // Observers are told it stopped: they do not take over what was stopped.
            standby::end_now(Duration::from_millis(500));
            engine_process::kill_all();
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
    let view = if !args.unattended && tui::wanted(args.plain) {
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
        start_view(
            &title,
            CONSOLE_HELP.trim_start_matches("commands: "),
            Box::new(|line, selected| console::line(line, &REQUESTS, selected)),
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
        (Some(s), None) => StandbyArgs {
            standby_listen: Some(s.listen),
            standby_sync: s.sync,
            standby_key: s.key.clone(),
        },
        _ => StandbyArgs::default(),
    };
    let http = args
        .http
        .clone()
        .or_else(|| took_over.is_none().then(|| cfg.http.clone()).flatten());
    let hub = standby_hub("argus serve", &standby, &cfg.out, false)?;
    if !args.unattended {
        console::start(&REQUESTS, view.is_none())?;
    }
    let live = view
        .as_ref()
        .map(|(_, live)| Arc::clone(live))
        .or_else(|| took_over.as_ref().and_then(|t| t.live.clone()))
        .or_else(|| http.is_some().then(|| Arc::new(Live::new())));
    if let (Some(addr), Some(live)) = (&http, &live) {
        start_page(addr, &cfg.event, &cfg.site, Arc::clone(live))?;
    }
    let mut lines = ProgressLines::new(&cfg, scheduled);
    let mut progress = |p: Progress<'_>| lines.show(p);
    let setup = server::Setup {
        live: live.as_ref(),
        standby: hub.as_ref(),
        listen: took_over.as_ref().map(|t| t.listen),
        unattended: args.unattended,
    };
    let start = match &args.resume {
        Some(dir) => server::Start::Resume(dir),
        None => server::Start::New(&cfg),
    };
    let summary = server::run(start, &setup, &REQUESTS, &mut progress)?;
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
