//! `argus serve`'s console: commands typed on standard input while the event runs
//! (`status`, `stop`, `stop after-games`, `help`). The end of standard input (`<
//! /dev/null`, a service, CI) stops nothing: the console just reads no more.

use std::io::{self, BufRead as _, IsTerminal as _};

use anyhow::{Context as _, Result};
use argus::server::{CONSOLE_HELP, ConsoleCommand, Requests};

/// What `help` prints, after the command list: one line a command.
const HELP_LINES: [&str; 4] = [
    "  status            one line per game under way (move, clocks at the last move), and how many games are done",
    "  stop              stop the games under way now; they go on with `argus serve --resume DIR` (as Ctrl-C)",
    "  stop after-games  start no new game, let the games under way finish, then stop; `--resume DIR` plays the rest",
    "  help              this list",
];

/// Starts the console's reader thread.
pub(crate) fn start(requests: &'static Requests) -> Result<()> {
    if io::stdin().is_terminal() {
        println!("argus serve: console; {CONSOLE_HELP}");
    }
    std::thread::Builder::new()
        .name("argus-serve-console".into())
        .spawn(move || {
            for line in io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                match line.parse::<ConsoleCommand>() {
                    Ok(command) => act(command, requests),
                    Err(e) => println!("argus serve: {e}"),
                }
            }
            log::info!("standard input closed: the console reads no more; the event goes on");
        })
        .context("cannot start the console")?;
    Ok(())
}

fn act(command: ConsoleCommand, requests: &Requests) {
    match command {
        ConsoleCommand::Status => requests.status(),
        ConsoleCommand::Stop => {
            if requests.stop() {
                println!("argus serve: stopping already");
            } else {
                println!("argus serve: stopping the games under way; go on later with --resume");
            }
        }
        // The event's thread says how many games finish first.
        ConsoleCommand::StopAfterGames => {
            if requests.stop_after_games() {
                println!("argus serve: no new game starts already");
            }
        }
        ConsoleCommand::Help => {
            println!("argus serve: {CONSOLE_HELP}");
            for line in HELP_LINES {
                println!("{line}");
            }
        }
    }
}
