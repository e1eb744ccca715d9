//! The supervisor's commands: what a person at the referee's console may decide.
//!
//! Commands are inputs of the core like any other, and are journaled in the text form
//! that [`Command`]'s `FromStr` reads and its `Display` writes, so a session with a
//! supervisor replays exactly.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::Port;
use super::game::GameResult;

/// A supervisor's command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Show where the match stands.
    Status,
    /// Stop both clocks; records from the players wait.
    Pause,
    /// Start the clocks again and handle what waited.
    Resume,
    /// End the game in progress with this result.
    Adjudicate {
        /// The result.
        result: GameResult,
        /// Why, for the game record.
        reason: Option<String>,
    },
    /// The player on this port loses the game in progress by abandoning it (its
    /// engine crashed or stopped answering, and is not restarted): PGN Termination
    /// `abandoned`, the reason in the game's last comment.
    Forfeit {
        /// The player that loses.
        port: Port,
        /// Why, for the game record.
        reason: Option<String>,
    },
    /// Resynchronise one player (as when it signs on again).
    Restart(Port),
    /// Give a player time (positive) or take it away (negative), in milliseconds.
    Clock {
        /// The player.
        port: Port,
        /// The change.
        delta_ms: i64,
    },
    /// End the game in progress without a result (`*`, unterminated); the match goes on.
    Abort,
    /// Disconnect both players and stop.
    Quit,
}

/// What is wrong with a command line typed at the console.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CommandError(pub String);

/// The help text for the console.
pub const HELP: &str = "commands: status | pause | resume | adjudicate 1-0|0-1|1/2-1/2 [reason] | \
forfeit a|b [reason] | restart a|b | clock a|b +SECS|-SECS | abort | quit";

fn port(word: Option<&str>) -> Result<Port, CommandError> {
    match word.map(str::to_ascii_lowercase).as_deref() {
        Some("a") => Ok(Port::A),
        Some("b") => Ok(Port::B),
        _ => Err(CommandError("name the player: a or b".into())),
    }
}

impl FromStr for Command {
    type Err = CommandError;

    fn from_str(line: &str) -> Result<Command, CommandError> {
        let mut words = line.split_whitespace();
        let Some(verb) = words.next() else {
            return Err(CommandError(HELP.into()));
        };
        let command = match verb.to_ascii_lowercase().as_str() {
            "status" => Command::Status,
            "pause" => Command::Pause,
            "resume" => Command::Resume,
            "abort" => Command::Abort,
            "quit" => Command::Quit,
            "restart" => Command::Restart(port(words.next())?),
            "adjudicate" => {
                let result = match words.next() {
                    Some("1-0") => GameResult::WhiteWins,
                    Some("0-1") => GameResult::BlackWins,
                    Some("1/2-1/2" | "1/2") => GameResult::Draw,
                    _ => {
                        return Err(CommandError(
                            "adjudicate needs a result: 1-0, 0-1 or 1/2-1/2".into(),
                        ));
                    }
                };
                let reason: Vec<&str> = words.by_ref().collect();
                let reason = (!reason.is_empty()).then(|| reason.join(" "));
                Command::Adjudicate { result, reason }
            }
            "forfeit" => {
                let port = port(words.next())?;
                let reason: Vec<&str> = words.by_ref().collect();
                let reason = (!reason.is_empty()).then(|| reason.join(" "));
                Command::Forfeit { port, reason }
            }
            "clock" => {
                let port = port(words.next())?;
                let amount = words.next().unwrap_or_default();
                let bad = || CommandError(format!("clock needs +SECS or -SECS, not {amount:?}"));
                let (sign, number) = match amount.split_at_checked(1) {
                    Some(("+", n)) => (1, n),
                    Some(("-", n)) => (-1, n),
                    _ => return Err(bad()),
                };
                let secs: f64 = number.parse().map_err(|_| bad())?;
                if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
                    return Err(bad());
                }
                let ms = Duration::from_secs_f64(secs).as_millis() as i64;
                Command::Clock {
                    port,
                    delta_ms: sign * ms,
                }
            }
            other => return Err(CommandError(format!("unknown command {other:?}; {HELP}"))),
        };
        if !matches!(
            command,
            Command::Adjudicate { .. } | Command::Forfeit { .. }
        ) && words.next().is_some()
        {
            return Err(CommandError(format!("too many words; {HELP}")));
        }
        Ok(command)
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Status => f.write_str("status"),
            Command::Pause => f.write_str("pause"),
            Command::Resume => f.write_str("resume"),
            Command::Abort => f.write_str("abort"),
            Command::Quit => f.write_str("quit"),
            Command::Restart(port) => write!(f, "restart {port}"),
            Command::Adjudicate { result, reason } => match reason {
                Some(reason) => write!(f, "adjudicate {result} {reason}"),
                None => write!(f, "adjudicate {result}"),
            },
            Command::Forfeit { port, reason } => match reason {
                Some(reason) => write!(f, "forfeit {port} {reason}"),
                None => write!(f, "forfeit {port}"),
            },
            Command::Clock { port, delta_ms } => {
                let sign = if *delta_ms < 0 { '-' } else { '+' };
                let ms = delta_ms.unsigned_abs();
                write!(f, "clock {port} {sign}{}.{:03}", ms / 1000, ms % 1000)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_and_write_the_same() {
        for text in [
            "status",
            "pause",
            "resume",
            "abort",
            "quit",
            "restart a",
            "restart b",
            "adjudicate 1-0",
            "adjudicate 1/2-1/2 both flags down",
            "forfeit a",
            "forfeit b its engine exited",
            "clock a +30.000",
            "clock b -1.500",
        ] {
            let command: Command = text.parse().unwrap();
            assert_eq!(command.to_string(), text);
        }
        assert_eq!(
            "clock a +30".parse::<Command>().unwrap(),
            Command::Clock {
                port: Port::A,
                delta_ms: 30_000
            }
        );
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        for text in [
            "",
            "dance",
            "restart c",
            "adjudicate 2-0",
            "forfeit c",
            "clock a 30",
            "pause now",
        ] {
            assert!(text.parse::<Command>().is_err(), "{text}");
        }
    }
}
