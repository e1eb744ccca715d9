//! What the person running an event asks of it while it runs: the console's commands
//! (`status`, `stop`, `stop after-games`, `help`) and a signal's stop. Other threads
//! (the console's reader, a signal handler) set [`Requests`]; the event's thread reads
//! them between games' messages and answers through [`super::Progress`].

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use shakmaty::Color;

use crate::tournament::GameSpec;

/// The console's help line.
pub const HELP: &str = "commands: status | stop | stop after-games | help";

/// A command typed on `argus serve`'s console.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConsoleCommand {
    /// One line per game under way, and how many games are done.
    Status,
    /// Stop the games under way, to be resumed (as the first Ctrl-C).
    Stop,
    /// Start no new game; let the games under way finish; then stop, to be resumed.
    StopAfterGames,
    /// The commands.
    Help,
}

/// A console line that is no command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown command {0:?}; {HELP}")]
pub struct UnknownCommand(pub String);

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
            _ => Err(UnknownCommand(line.trim().to_string())),
        }
    }
}

/// What has been asked of a running event. Set from any thread; the event's thread
/// acts within 100 ms.
#[derive(Debug, Default)]
pub struct Requests {
    stop: AtomicBool,
    drain: AtomicBool,
    status: AtomicBool,
}

impl Requests {
    /// Nothing asked yet (usable in a `static`, for a signal handler).
    #[must_use]
    pub const fn new() -> Requests {
        Requests {
            stop: AtomicBool::new(false),
            drain: AtomicBool::new(false),
            status: AtomicBool::new(false),
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
        for bad in ["stop now", "quit", "pause", "stop after"] {
            let e = bad.parse::<ConsoleCommand>().unwrap_err();
            assert_eq!(e.0, bad);
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
