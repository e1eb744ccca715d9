//! `argus serve`'s console: commands typed on standard input while the event runs
//! (`status`, `stop`, `stop after-games`, `help`, and the supervisor's commands for one
//! game). The end of standard input (`<
//! /dev/null`, a service, CI) stops nothing: the console just reads no more.

use std::io::{self, BufRead as _, IsTerminal as _};

use anyhow::{Context as _, Result};
use argus::server::{CONSOLE_HELP, ConsoleCommand, Requests};

/// What `help` prints, after the command list: one line a command.
const HELP_LINES: [&str; 9] = [
    "  status            one line per game under way (move, clocks at the last move), and how many games are done",
    "  stop              stop the games under way now; they go on with `argus serve --resume DIR` (as Ctrl-C)",
    "  stop after-games  start no new game, let the games under way finish, then stop; `--resume DIR` plays the rest",
    "  help              this list",
    "  game N pause      stop both clocks of game N; its players' records wait",
    "  game N resume     run game N's clocks again",
    "  game N adjudicate 1-0|0-1|1/2-1/2 [reason]   end game N with this result",
    "  game N clock a|b +SECS|-SECS   give White (a) or Black (b) time, or take it",
    "  (without `game N`, these act on the game selected in the terminal view, or the only game under way)",
];

/// Starts the console: says so, and reads standard input when `read` (not when the
/// terminal view's line takes the commands).
pub(crate) fn start(requests: &'static Requests, read: bool) -> Result<()> {
    if !read || io::stdin().is_terminal() {
        println!("argus serve: console; {CONSOLE_HELP}");
    }
    if !read {
        return Ok(());
    }
    std::thread::Builder::new()
        .name("argus-serve-console".into())
        .spawn(move || {
            for text in io::stdin().lock().lines() {
                let Ok(text) = text else { break };
                line(&text, requests, None);
            }
            log::info!("standard input closed: the console reads no more; the event goes on");
        })
        .context("cannot start the console")?;
    Ok(())
}

/// Runs one line typed on the console (blank lines are nothing); `selected` is the game
/// the terminal view shows, which a game's command names no other.
pub(crate) fn line(text: &str, requests: &Requests, selected: Option<u32>) {
    if text.trim().is_empty() {
        return;
    }
    match text.parse::<ConsoleCommand>() {
        Ok(command) => act(command, requests, selected),
        Err(e) => println!("argus serve: {e}"),
    }
}

fn act(command: ConsoleCommand, requests: &Requests, selected: Option<u32>) {
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
        ConsoleCommand::Game(number, command) => requests.game(number.or(selected), command),
    }
}
