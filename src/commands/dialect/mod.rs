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
mod pgn;
mod saved;
mod settings;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};

use argus::cli::dialect::cutechess::CUTECHESS_VERSION;
use argus::cli::dialect::fastchess::FASTCHESS_VERSION;
use argus::cli::dialect::{Dialect, Run, cutechess, fastchess};
use argus::client::engine_process;
use argus::server::{self, Requests};

use argus::cli::dialect::MatchArgs;
use output::FastchessLines;
use saved::ConfigWords;

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
    if let Err(e) = open_log(&args) {
        say_error(dialect, &e);
        return Ok(ExitCode::FAILURE);
    }
    let config = ConfigWords::read(args.config.as_ref());
    if let Some(file) = config.resume_from() {
        return resume(dialect, &args, file, &config);
    }
    let dir = event_folder()?;
    let (cfg, output) = match settings::resolve(&args, &dir) {
        Ok(resolved) => resolved,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            say_error(dialect, &format!("{e:#}"));
            return Ok(ExitCode::FAILURE);
        }
    };
    if let Err(e) = server::check_players(&cfg) {
        let _ = std::fs::remove_dir_all(&dir);
        say_error(dialect, &e.to_string());
        return Ok(ExitCode::FAILURE);
    }
    // fastchess leaves its config.json where it runs: argus's names the match.
    let saved_at = (dialect == Dialect::Fastchess).then(|| config.out_path());
    if let Some(path) = &saved_at
        && let Err(e) = saved::save(path, &dir, words)
    {
        let _ = std::fs::remove_dir_all(&dir);
        say_error(dialect, &format!("{e:#}"));
        return Ok(ExitCode::FAILURE);
    }
    let names = cfg.players.iter().map(|p| p.name().to_string()).collect();
    let lines = FastchessLines::new(names, output, server::scheduled_games(&cfg));
    let play = Play {
        dialect,
        folder: &dir,
        saved_at: saved_at.as_deref(),
        came_from: None,
        fresh: true,
    };
    play.run(server::Start::New(&cfg), lines)
}

/// fastchess's `-log`: argus's log to the file too, before anything is made.
fn open_log(args: &MatchArgs) -> Result<(), String> {
    let Some(log) = &args.log else {
        return Ok(());
    };
    let level = match log.level.as_str() {
        "trace" => log::LevelFilter::Trace,
        "info" => log::LevelFilter::Info,
        "warn" => log::LevelFilter::Warn,
        _ => log::LevelFilter::Error,
    };
    crate::logging::to_file(&log.file, level, log.append, log.engine)
        .map_err(|e| format!("-log file={}: {e}", log.file.display()))
}

/// `-config file=F`: the match saved in F goes on, its games finished before counted
/// again unless `stats=false`.
fn resume(
    dialect: Dialect,
    args: &MatchArgs,
    file: &Path,
    config: &ConfigWords,
) -> Result<ExitCode> {
    if let Some(other) = args.typed.iter().find(|o| *o != "config") {
        say_error(
            dialect,
            &format!(
                "-{other}: -config file={} takes the match's settings from the file: give no other option",
                file.display()
            ),
        );
        return Ok(ExitCode::FAILURE);
    }
    let saved = match saved::load(file) {
        Ok(saved) => saved,
        Err(e) => {
            say_error(dialect, &format!("{e:#}"));
            return Ok(ExitCode::FAILURE);
        }
    };
    let original = match fastchess::parse(&saved.words) {
        Ok(Run::Match(original)) => original,
        _ => {
            say_error(
                dialect,
                &format!(
                    "-config file={}: its command line does not read",
                    file.display()
                ),
            );
            return Ok(ExitCode::FAILURE);
        }
    };
    if let Err(e) = open_log(&original) {
        say_error(dialect, &e);
        return Ok(ExitCode::FAILURE);
    }
    let cfg = server::event_settings(&saved.folder)?;
    let output = settings::output_of(&original)?;
    let names = cfg.players.iter().map(|p| p.name().to_string()).collect();
    let mut lines = FastchessLines::new(names, output, server::scheduled_games(&cfg));
    for (game, result) in saved::finished_games(&saved.folder)? {
        if config.no_stats {
            lines.skip();
        } else {
            lines.seed(&game, result);
        }
    }
    let saved_at = config.outname.clone().unwrap_or_else(|| file.to_path_buf());
    if saved_at != file {
        saved::save(&saved_at, &saved.folder, &saved.words)?;
    }
    let play = Play {
        dialect,
        folder: &saved.folder,
        saved_at: Some(&saved_at),
        came_from: (saved_at != file).then_some(file),
        fresh: false,
    };
    play.run(server::Start::Resume(&saved.folder), lines)
}

/// A match to play: under whose command line, its folder, where it is saved.
struct Play<'a> {
    dialect: Dialect,
    folder: &'a Path,
    saved_at: Option<&'a Path>,
    /// The file a resumed match came from, when it was saved elsewhere (`outname=`).
    came_from: Option<&'a Path>,
    /// A new match (not one gone on with).
    fresh: bool,
}

impl Play<'_> {
    /// Removes the files that name the match, once it is over or refused.
    fn forget(&self) {
        for path in [self.saved_at, self.came_from].into_iter().flatten() {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Plays the match from `start`, printing `lines`, to its end or a stop.
    fn run(&self, start: server::Start<'_>, mut lines: FastchessLines) -> Result<ExitCode> {
        let (dialect, dir) = (self.dialect, self.folder);
        ctrlc::set_handler(|| {
            if REQUESTS.stop() {
                eprintln!("argus: interrupted again, exiting now");
                engine_process::kill_all();
                std::process::exit(130);
            }
        })
        .context("cannot install the interrupt handler")?;
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
            unattended: true,
        };
        let summary = server::run(start, &setup, &REQUESTS, &mut progress);
        let crashed = lines.crashed;
        let summary = match summary {
            Ok(summary) => summary,
            Err(e) => {
                say_error(dialect, &e.to_string());
                if self.fresh {
                    // Refused before its first game: nothing to go on with.
                    let _ = std::fs::remove_dir_all(dir);
                    self.forget();
                } else {
                    eprintln!("argus: the match's files are in {}", dir.display());
                }
                return Ok(ExitCode::FAILURE);
            }
        };
        // Ctrl-C, or a crash without -recover: fastchess's abnormal termination.
        let interrupted = summary.stopped && !lines.sprt_done;
        let resume = match self.saved_at {
            Some(path) => format!(
                "Tournament was interrupted. To resume the tournament, run: {} -config file={}",
                program(),
                path.display()
            ),
            None => format!(
                "Tournament was interrupted. To resume the tournament, run: argus serve --resume {}",
                dir.display()
            ),
        };
        lines.end(interrupted.then_some(resume.as_str()));
        // Engines told to quit have a moment to do so before the folder goes.
        std::thread::sleep(Duration::from_millis(10));
        if !lines.sprt_done && (summary.stopped || summary.played < summary.scheduled) {
            eprintln!(
                "argus: {} of {} game(s) played; the match's files are in {}",
                summary.played,
                summary.scheduled,
                dir.display()
            );
        } else {
            if let Err(e) = std::fs::remove_dir_all(dir) {
                eprintln!("argus: {}: {e}", dir.display());
            }
            self.forget();
        }
        Ok(
            if crashed || interrupted || summary.played < summary.scheduled && !summary.stopped {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            },
        )
    }
}

/// How this program was started, for the line that says how to go on: as the
/// other program, its name as typed; else `argus fastchess`.
fn program() -> String {
    let first = std::env::args().next().unwrap_or_default();
    let stem = Path::new(&first)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if dialect_of(&stem).is_some() {
        first
    } else {
        "argus fastchess".into()
    }
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
