//! `argus fastchess ARGS...` and `argus cutechess-cli ARGS...`, and argus started as
//! `fastchess`, `fastchess-ob` or `cutechess-cli`: the other program's command line
//! (`argus::cli::dialect`) resolved into an `argus serve` event (`settings`) and run,
//! printing what that program prints (`output`, `cutechess_lines`), so that fishtest's
//! and OpenBench's workers, and scripts written for cutechess-cli, run argus as they run
//! those programs (docs/fastchess.md).
//!
//! The event's folder (journals, `games.pgn`, `event.jsonl`) is made in the system's
//! temporary folder: removed when the match ends, kept when it is stopped or fails, and
//! named then, to go on with `argus serve --resume DIR`.

mod cutechess_lines;
mod output;
mod settings;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};

use argus::cli::dialect::cutechess::CUTECHESS_VERSION;
use argus::cli::dialect::fastchess::FASTCHESS_VERSION;
use argus::cli::dialect::{Dialect, Run, cutechess, fastchess};
use argus::client::engine_process;
use argus::server::{self, Requests};

use output::FastchessLines;

/// What Ctrl-C asks of the match.
static REQUESTS: Requests = Requests::new();

/// The program whose command line argus reads when started under `name` (without
/// `.exe`).
pub(crate) fn dialect_of(name: &str) -> Option<Dialect> {
    match name {
        "fastchess" | "fastchess-ob" => Some(Dialect::Fastchess),
        "cutechess-cli" => Some(Dialect::Cutechess),
        _ => None,
    }
}

/// What cutechess-cli's `-help` prints.
const CUTECHESS_HELP: &str = "\
argus, reading cutechess-cli 1.5's command line (docs/fastchess.md lists what it takes
and what it refuses, and why).

  cutechess-cli -engine cmd=ENGINE proto=uci|xboard [name=NAME] [tc=TC|st=S] [option.X=V ...]
                -engine ... [-each ...] [-games N] [-rounds N] [-repeat [N]]
                [-concurrency N] [-openings file=BOOK format=epd|pgn order=random ...]
                [-pgnout FILE] [-ratinginterval N] [-recover] ...";

/// What fastchess's `-help` prints.
const HELP: &str = "\
argus, reading fastchess 1.8's command line (docs/fastchess.md lists what it takes and
what it refuses, and why).

  fastchess -engine cmd=ENGINE name=NAME [tc=TC|st=S|nodes=N|plies=N] [option.X=V ...]
            -engine ... [-each KEY=VALUE ...] [-rounds N] [-games 1|2] [-repeat]
            [-concurrency N] [-openings file=BOOK format=epd|pgn order=random ...]
            [-pgnout file=FILE] [-sprt elo0=E0 elo1=E1 model=logistic] ...

The match is an `argus serve` event: its journals are kept in the temporary folder
while it runs, and named when it stops before its end (`argus serve --resume DIR`
goes on with it).";

/// Prints an error of the command line or the match as `dialect`'s program prints
/// it: fastchess on standard output, cutechess-cli as a warning on standard error.
fn say_error(dialect: Dialect, text: &str) {
    match dialect {
        Dialect::Fastchess => println!("{text}"),
        Dialect::Cutechess => eprintln!("Warning: {text}"),
    }
}

/// Runs `dialect`'s command line `words` (without the program's name).
pub(crate) fn dialect_cmd(dialect: Dialect, words: &[String]) -> Result<ExitCode> {
    let read = match dialect {
        Dialect::Fastchess => fastchess::parse(words),
        Dialect::Cutechess => cutechess::parse(words),
    };
    let args = match read {
        Ok(Run::Version) => {
            println!(
                "{}",
                match dialect {
                    Dialect::Fastchess => FASTCHESS_VERSION,
                    Dialect::Cutechess => CUTECHESS_VERSION,
                }
            );
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Run::Help) => {
            println!(
                "{}",
                match dialect {
                    Dialect::Fastchess => HELP,
                    Dialect::Cutechess => CUTECHESS_HELP,
                }
            );
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Run::Match(args)) => args,
        Err(e) => {
            // Both print the error and exit with 1.
            say_error(dialect, &e);
            return Ok(ExitCode::FAILURE);
        }
    };
    let dir = event_folder()?;
    let (cfg, output) = match settings::resolve(&args, &dir) {
        Ok(resolved) => resolved,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            say_error(dialect, &format!("{e:#}"));
            return Ok(ExitCode::FAILURE);
        }
    };
    if let Some(log) = &args.log {
        let level = match log.level.as_str() {
            "trace" => log::LevelFilter::Trace,
            "info" => log::LevelFilter::Info,
            "warn" => log::LevelFilter::Warn,
            _ => log::LevelFilter::Error,
        };
        if let Err(e) = crate::logging::to_file(&log.file, level, log.append, log.engine) {
            let _ = std::fs::remove_dir_all(&dir);
            say_error(dialect, &format!("-log file={}: {e}", log.file.display()));
            return Ok(ExitCode::FAILURE);
        }
    }
    ctrlc::set_handler(|| {
        if REQUESTS.stop() {
            eprintln!("argus fastchess: interrupted again, exiting now");
            engine_process::kill_all();
            std::process::exit(130);
        }
    })
    .context("cannot install the interrupt handler")?;
    if let Err(e) = server::check_players(&cfg) {
        let _ = std::fs::remove_dir_all(&dir);
        say_error(dialect, &e.to_string());
        return Ok(ExitCode::FAILURE);
    }
    let scheduled = server::scheduled_games(&cfg);
    let names = cfg.players.iter().map(|p| p.name().to_string()).collect();
    let mut lines = FastchessLines::new(names, output, scheduled);
    let mut progress = |p: server::Progress<'_>| {
        lines.show(p);
        if lines.crashed {
            REQUESTS.stop();
        }
    };
    let setup = server::Setup {
        live: None,
        standby: None,
        listen: None,
    };
    let summary = server::run(server::Start::New(&cfg), &setup, &REQUESTS, &mut progress);
    let crashed = lines.crashed;
    let summary = match summary {
        Ok(summary) => summary,
        Err(e) => {
            say_error(dialect, &e.to_string());
            eprintln!(
                "argus fastchess: the match's files are in {}",
                dir.display()
            );
            return Ok(ExitCode::FAILURE);
        }
    };
    // Ctrl-C, or a crash without -recover: fastchess's abnormal termination.
    let interrupted = summary.stopped && !lines.sprt_done;
    let resume = format!(
        "Tournament was interrupted. To resume the tournament, run: argus serve --resume {}",
        dir.display()
    );
    lines.end(interrupted.then_some(resume.as_str()));
    // Engines told to quit have a moment to do so before the folder goes.
    std::thread::sleep(Duration::from_millis(10));
    if !lines.sprt_done && (summary.stopped || summary.played < summary.scheduled) {
        eprintln!(
            "argus fastchess: {} of {} game(s) played; the match's files are in {}",
            summary.played,
            summary.scheduled,
            dir.display()
        );
    } else if let Err(e) = std::fs::remove_dir_all(&dir) {
        eprintln!("argus fastchess: {}: {e}", dir.display());
    }
    Ok(
        if crashed || (summary.played < summary.scheduled && !summary.stopped) {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        },
    )
}

/// A new folder for the match's event, in the system's temporary folder.
fn event_folder() -> Result<PathBuf> {
    let (_, stamp) = crate::commands::today();
    let base = std::env::temp_dir();
    for n in 0..1000u32 {
        let dir = base.join(format!(
            "argus-fastchess-{stamp}-{}{}",
            std::process::id(),
            if n == 0 {
                String::new()
            } else {
                format!("-{n}")
            }
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("{}", dir.display())),
        }
    }
    anyhow::bail!("cannot make a folder for the match in {}", base.display())
}
