//! What the person running an event asks of it while it runs: the console's commands
//! (`status`, `stop`, `stop after-games`, `help`, and the supervisor's commands for one
//! game: `game N pause`, ...) and a signal's stop. Other threads
//! (the console's reader, a signal handler) set [`Requests`]; the event's thread reads
//! them between games' messages and answers through [`super::Progress`].

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use shakmaty::Color;

use crate::core::supervisor::Command;
use crate::tournament::GameSpec;

/// The console's help line.
pub const HELP: &str = "commands: status | stop | stop after-games | help | game N pause|resume|clock|adjudicate|restart";

/// The supervisor's commands that act on one game of an event (ports: a is White, b
/// is Black).
const GAME_COMMANDS: [&str; 5] = ["pause", "resume", "adjudicate", "clock", "restart"];

/// A command typed on `argus serve`'s console.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleCommand {
    /// One line per game under way, and how many games are done.
    Status,
    /// Stop the games under way, to be resumed (as the first Ctrl-C).
    Stop,
    /// Start no new game; let the games under way finish; then stop, to be resumed.
    StopAfterGames,
    /// The commands.
    Help,
    /// A supervisor's command for one game: `game N pause`, or `pause` alone for the
    /// game selected in the terminal view, or the only game under way.
    Game(Option<u32>, Command),
}

/// A console line that is no command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnknownCommand {
    /// No command at all: the line.
    #[error("unknown command {0:?}; {HELP}")]
    Unknown(String),
    /// A game's command that is wrong: the line, and what is wrong.
    #[error("{0}: {1}")]
    BadGameCommand(String, String),
}

impl FromStr for ConsoleCommand {
    type Err = UnknownCommand;

    fn from_str(line: &str) -> Result<ConsoleCommand, UnknownCommand> {
        let words: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["status"] => Ok(ConsoleCommand::Status),
            ["stop"] => Ok(ConsoleCommand::Stop),
            ["stop", "after-games"] => Ok(ConsoleCommand::StopAfterGames),
            ["help"] | ["?"] => Ok(ConsoleCommand::Help),
            ["game", n, rest @ ..] => match n.parse::<u32>() {
                Ok(n) if n > 0 && !rest.is_empty() => {
                    game_command(rest, line).map(|command| ConsoleCommand::Game(Some(n), command))
                }
                _ => Err(UnknownCommand::Unknown(line.trim().to_string())),
            },
            [first, ..] if GAME_COMMANDS.contains(first) => {
                game_command(&words, line).map(|command| ConsoleCommand::Game(None, command))
            }
            _ => Err(UnknownCommand::Unknown(line.trim().to_string())),
        }
    }
}

/// One game's command, by the supervisor's own parser (the reason of an adjudication
/// keeps the case it was typed in).
fn game_command(words: &[&str], line: &str) -> Result<Command, UnknownCommand> {
    if !GAME_COMMANDS.contains(&words[0]) {
        return Err(UnknownCommand::Unknown(line.trim().to_string()));
    }
    // The words from the command on, as typed.
    let typed: Vec<&str> = line.split_whitespace().collect();
    let from = typed.len() - words.len();
    typed[from..]
        .join(" ")
        .parse::<Command>()
        .map_err(|e| UnknownCommand::BadGameCommand(line.trim().to_string(), e.0))
}

/// What has been asked of a running event. Set from any thread; the event's thread
/// acts within 100 ms.
#[derive(Debug, Default)]
pub struct Requests {
    stop: AtomicBool,
    drain: AtomicBool,
    status: AtomicBool,
    games: Mutex<Vec<(Option<u32>, Command)>>,
}

impl Requests {
    /// Nothing asked yet (usable in a `static`, for a signal handler).
    #[must_use]
    pub const fn new() -> Requests {
        Requests {
            stop: AtomicBool::new(false),
            drain: AtomicBool::new(false),
            status: AtomicBool::new(false),
            games: Mutex::new(Vec::new()),
        }
    }

    /// Asks the event to stop: no game begins any more, and the games under way stop
    /// as the serial referee stops (clocks stand, players get `fault`), to be resumed.
    /// Returns whether a stop had been asked already.
    pub fn stop(&self) -> bool {
        self.stop.swap(true, Ordering::SeqCst)
    }

    /// Asks the event to start no new game and let the games under way finish; the
    /// event then stops, to be resumed with the games not played. Returns whether this
    /// had been asked already.
    pub fn stop_after_games(&self) -> bool {
        self.drain.swap(true, Ordering::SeqCst)
    }

    /// Asks for a [`Status`] through [`super::Progress::Status`].
    pub fn status(&self) {
        self.status.store(true, Ordering::SeqCst);
    }

    /// Asks a game's referee to take a supervisor's command: game `number`, or (None)
    /// the only game under way.
    pub fn game(&self, number: Option<u32>, command: Command) {
        self.games
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((number, command));
    }

    /// Takes the games' commands asked so far.
    pub(super) fn take_game_commands(&self) -> Vec<(Option<u32>, Command)> {
        std::mem::take(&mut *self.games.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Whether a stop was asked.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Whether a stop after the games under way was asked.
    pub fn draining(&self) -> bool {
        self.drain.load(Ordering::SeqCst)
    }

    /// Takes a status request.
    pub(super) fn take_status(&self) -> bool {
        self.status.swap(false, Ordering::SeqCst)
    }
}

/// Where a game under way stands, as of its last move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameStatus {
    /// The game.
    pub spec: GameSpec,
    /// The number of the move to play (chess's count) and the side to move; None before
    /// the first move.
    pub to_move: Option<(u32, Color)>,
    /// White's and Black's time left after the last move, when timed.
    pub clocks: [Option<Duration>; 2],
}

impl GameStatus {
    pub(super) fn new(spec: GameSpec) -> GameStatus {
        GameStatus {
            spec,
            to_move: None,
            clocks: [None, None],
        }
    }

    /// Takes a move in.
    pub(super) fn moved(&mut self, fullmove: u32, mover: Color, clocks: [Option<Duration>; 2]) {
        self.to_move = Some(match mover {
            Color::White => (fullmove, Color::Black),
            Color::Black => (fullmove + 1, Color::White),
        });
        self.clocks = clocks;
    }
}

/// Where an event stands: what `status` shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The games under way, by number.
    pub games: Vec<GameStatus>,
    /// Games done (with a record).
    pub done: usize,
    /// Games scheduled.
    pub scheduled: usize,
    /// Whether no new game starts (`stop after-games`, or a stop).
    pub draining: bool,
}

impl fmt::Display for GameStatus {
    /// `move 12, Black to move; White 0:04:58.0, Black 0:04:56.5 (at the last move)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_move {
            None => write!(f, "before the first move")?,
            Some((n, color)) => {
                let side = if color == Color::White {
                    "White"
                } else {
                    "Black"
                };
                write!(f, "move {n}, {side} to move")?;
            }
        }
        if let [Some(white), Some(black)] = self.clocks {
            write!(
                f,
                "; White {}, Black {} (at the last move)",
                crate::core::pgn::format_clk(white),
                crate::core::pgn::format_clk(black)
            )?;
        }
        Ok(())
    }
}

/// What a game's referee is told when the engine of side `i` (0 for White, on port a)
/// failed (it crashed, stopped answering, or played nonsense) with no restart left
/// (`restarts=N`, none unless the organiser asks): it loses the game now, by
/// abandoning it (PGN Termination `abandoned`, what happened in the game's last
/// comment), as in cutechess-cli and fastchess.
pub(super) fn engine_failed(
    i: usize,
    name: &str,
    e: &crate::client::EngineError,
) -> crate::mediator::Control {
    let port = if i == 0 {
        crate::core::Port::A
    } else {
        crate::core::Port::B
    };
    use crate::client::EngineError;
    let what = match e {
        EngineError::Failed(what) | EngineError::Timeout(what) => what.clone(),
        other @ (EngineError::Start { .. } | EngineError::Interrupted) => other.to_string(),
    };
    crate::mediator::Control::Command(Command::Forfeit {
        port,
        reason: Some(format!("{name}'s engine failed: {what}; it loses the game")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_lines_read_as_commands_and_anything_else_is_refused() {
        assert_eq!("status".parse(), Ok(ConsoleCommand::Status));
        assert_eq!("  STOP ".parse(), Ok(ConsoleCommand::Stop));
        assert_eq!(
            "stop   after-games".parse(),
            Ok(ConsoleCommand::StopAfterGames)
        );
        assert_eq!("help".parse(), Ok(ConsoleCommand::Help));
        assert_eq!(
            "game 3 pause".parse(),
            Ok(ConsoleCommand::Game(Some(3), Command::Pause))
        );
        assert_eq!(
            "pause".parse(),
            Ok(ConsoleCommand::Game(None, Command::Pause))
        );
        assert_eq!(
            "Game 2 adjudicate 1-0 Flag Fell".parse(),
            Ok(ConsoleCommand::Game(
                Some(2),
                Command::Adjudicate {
                    result: crate::core::game::GameResult::WhiteWins,
                    reason: Some("Flag Fell".into())
                }
            ))
        );
        for bad in [
            "stop now",
            "quit",
            "stop after",
            "game 0 pause",
            "game x pause",
            "game 3",
            "game 3 quit",
            "game 3 abort",
        ] {
            let e = bad.parse::<ConsoleCommand>().unwrap_err();
            assert_eq!(e, UnknownCommand::Unknown(bad.to_string()));
            assert!(e.to_string().contains(HELP), "{e}");
        }
    }

    #[test]
    fn a_game_status_counts_moves_as_chess_does() {
        let spec = GameSpec {
            number: 3,
            round: 1,
            white: 0,
            black: 1,
            opening: None,
            encounter: None,
        };
        let mut g = GameStatus::new(spec);
        assert_eq!(g.to_string(), "before the first move");
        let clocks = [
            Some(Duration::from_millis(298_000)),
            Some(Duration::from_millis(296_500)),
        ];
        g.moved(12, Color::White, clocks);
        assert!(
            g.to_string().starts_with("move 12, Black to move; White "),
            "{g}"
        );
        g.moved(12, Color::Black, [None, None]);
        assert_eq!(g.to_string(), "move 13, White to move");
    }
}
