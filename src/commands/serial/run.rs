//! `argus serial`'s run: the ports opened, the journal begun or taken over, the views
//! and the console started, and the match refereed to its end or a stop.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use argus::core::{Referee, supervisor};
use argus::mediator::journal::{self, Event, Journal};
use argus::mediator::{self, Line, PrintWatcher, Records};
use argus::transport::serial;
use argus::watch::feed::{MatchFeed, ViewLines};
use argus::watch::live::Live;
use argus::watch::tui;

use super::console::{console_line, read_console};
use super::plan::{Plan, Start};
use crate::commands::interrupt::interrupts;
use crate::commands::standby::standby_hub_for_journal;
use crate::commands::views::{start_page, start_view};

/// Runs the match of `plan`: its ports opened, its journal begun (or taken over) and
/// the match refereed until it is over or stopped (exit status 130: it goes on with
/// `--resume`).
pub(crate) fn run(plan: Plan) -> Result<ExitCode> {
    if matches!(plan.start, Start::New(_)) && plan.journal.exists() {
        // A journal is the record of a session: never overwritten, and found before
        // any port is opened.
        let path = plan.journal.display();
        bail!(
            "journal {path} already exists (the record of an earlier session): resume that match with `argus serial --resume {path}`, or {}",
            if plan.from_config {
                "name another `journal` in [files] of the event file"
            } else {
                "give another --journal"
            }
        );
    }
    // Tables that cannot be read refuse the match before a port is opened.
    let tables = plan
        .tb
        .as_ref()
        .map(argus::tablebase::Tables::open)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if let Start::Resume(rebuilt) = &plan.start
        && rebuilt.referee.is_over()
    {
        // Nothing to go on with: record what the dead referee owed, and say so.
        let mut records = Records {
            journal: Journal::append(&plan.journal)?,
            pgn: Some(plan.pgn.clone()),
        };
        mediator::settle(&rebuilt.takeover, &mut records, &mut PrintWatcher)?;
        let tally = rebuilt.takeover.tally;
        println!(
            "argus: the match of {} is over: {} of {} game(s) played; {tally}",
            plan.journal.display(),
            tally.finished,
            rebuilt.referee.config().games
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut lines = Vec::with_capacity(2);
    for (path, settings) in plan.ports.iter().zip(&plan.lines) {
        // What waits in the port is a previous session's (its records, a disconnect):
        // cleared, so that this session starts from what its players send now.
        let duplex = serial::open_fresh(path, settings)
            .with_context(|| format!("cannot open port {path}"))?;
        let (path2, settings2) = (path.clone(), settings.clone());
        lines.push(Line {
            label: path.clone(),
            wire: duplex.into(),
            reopen: Some(Box::new(move || {
                serial::open(&path2, &settings2).map(Into::into)
            })),
        });
    }
    let lines: [Line; 2] = lines.try_into().map_err(|_| anyhow::anyhow!("two ports"))?;
    // A PGN file that cannot be written is found now, not when the first game ends.
    mediator::append_pgn(&plan.pgn, "")?;
    let hub = standby_hub_for_journal("argus serial", &plan.standby, &plan.journal)?;
    let (referee, journal, resume) = match plan.start {
        Start::New(config) => {
            let referee = Referee::new(config.as_ref().clone())?;
            let mut journal = Journal::create(&plan.journal)?;
            if let Some(hub) = &hub {
                journal.set_tap(hub.tap());
            }
            journal.write(&Event::Session {
                version: journal::VERSION,
                argus: env!("CARGO_PKG_VERSION").to_string(),
                started: journal::now_rfc3339(),
                ports: plan.ports.clone(),
                lines: Some(plan.lines.clone()),
                eol: Some(plan.eol.name().to_string()),
                pgn: Some(plan.pgn.clone()),
                config,
            })?;
            (referee, journal, None)
        }
        Start::Resume(rebuilt) => {
            println!(
                "argus: resuming from {} ({} events; its time goes on from {:.3} s)",
                plan.journal.display(),
                rebuilt.inputs,
                rebuilt.takeover.at.as_secs_f64()
            );
            let mut journal = Journal::append(&plan.journal)?;
            if let Some(hub) = &hub {
                journal.set_tap(hub.tap());
            }
            (rebuilt.referee, journal, Some(rebuilt.takeover))
        }
    };
    let mut records = Records {
        journal,
        pgn: Some(plan.pgn.clone()),
    };
    // The supervisor's console: the terminal view's line, or standard input.
    let (control, controls) = crossbeam_channel::unbounded();
    let view = if plan.attended && tui::wanted(plan.plain) {
        let config = referee.config();
        let title = format!(
            "argus serial{}: {} vs {}, {} game(s) at {}",
            if config.event == "?" {
                String::new()
            } else {
                format!(" · {}", config.event)
            },
            plan.ports[0],
            plan.ports[1],
            config.games,
            config.time_control
        );
        let commands = supervisor::HELP.trim_start_matches("commands: ");
        start_view(&title, commands, console_line(control.clone()))
    } else {
        None
    };
    println!(
        "argus: refereeing {} vs {} at {}; PGN {}, journal {}",
        plan.ports[0],
        plan.ports[1],
        plan.lines[0],
        plan.pgn.display(),
        plan.journal.display()
    );
    let options = mediator::RunOptions {
        eol: plan.eol,
        resume,
    };
    let games = referee.config().games;
    let live = view
        .as_ref()
        .map(|(_, live)| Arc::clone(live))
        .or(plan.live)
        .or_else(|| plan.http.is_some().then(|| Arc::new(Live::new())));
    if let (Some(addr), Some(live)) = (&plan.http, &live) {
        let config = referee.config();
        start_page(addr, &config.event, &config.site, Arc::clone(live))?;
    }
    // Beside the view, the moves are its move list's, not lines of the log.
    let print: Box<dyn mediator::Watcher> = if view.is_some() {
        Box::new(ViewLines)
    } else {
        Box::new(PrintWatcher)
    };
    let watcher: Box<dyn mediator::Watcher> = match live {
        Some(live) => {
            let before = options.resume.as_ref().map(|t| t.tally).unwrap_or_default();
            let mut feed = MatchFeed::new(print, live, before);
            if let Some(takeover) = &options.resume {
                feed.catch_up(&takeover.current);
            }
            Box::new(feed)
        }
        None => print,
    };
    // The tables adjudicate through the supervisor's channel.
    let mut watcher = argus::tablebase::Adjudicating::new(
        watcher,
        tables.as_ref(),
        control.clone(),
        referee.config().variant,
    );
    interrupts(&control)?;
    if plan.attended {
        println!("argus: supervisor console; {}", supervisor::HELP);
        if view.is_none() {
            read_console(control)?;
        }
    }
    let outcome = mediator::run(
        referee,
        lines,
        options,
        &mut records,
        &mut watcher,
        controls,
    )?;
    if let Some(hub) = &hub {
        hub.close(!outcome.over);
    }
    // The terminal is given back before the last lines.
    drop(view);
    let tally = outcome.tally;
    // A game `quit` ended has no result: it was not played.
    let finished = if outcome.quit {
        tally.finished - tally.unterminated
    } else {
        tally.finished
    };
    let played = format!("{finished} of {games} game(s) played; {tally}");
    if !outcome.over {
        // A stop is a pause: the match goes on from the journal.
        println!(
            "argus: stopped, {played}; the match is not over: go on with `argus serial --resume {}`",
            plan.journal.display()
        );
        return Ok(ExitCode::from(130));
    }
    if outcome.quit || tally.finished < games {
        println!("argus: match ended early by the supervisor: {played}");
    } else {
        println!("argus: match over: {played}");
    }
    Ok(ExitCode::SUCCESS)
}
