//! The event's own journal, `event.jsonl`: every kind of line it holds, written and read
//! here alone.
//!
//! Its first line is the event's settings ([`Line::Settings`]); then, as the event goes,
//! one line for each game that ends (`{"game":3,...,"result":"1-0",...}`) or could not
//! be played (`{"failed":"...","game":3}`), a Swiss round's pairings and bye, a
//! knockout's round (its pairings and byes) or tie-break pair, and a seat's name when
//! its player takes it. Each line is written and flushed at once, and handed to the
//! standby stream.
//!
//! A line is its typed value turned into a JSON value and then into text: `serde_json`
//! keeps an object's keys in ASCII order, so a line's keys come out in that order
//! whatever the order of its struct's fields (a test holds every kind of line to its
//! bytes). `--resume` reads the lines back leniently: a field that an older argus did
//! not write takes its default, and a line not whole is left out.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::error::{ServeError, io_err};
use super::registry::TakenBy;
use super::settings::ServeConfig;
use crate::core::TimeUse;
use crate::core::game::GameResult;
use crate::mediator::standby::Hub;
use crate::tournament::{Batch, BatchKind, Format, GameSpec};

/// A line of `event.jsonl`, as the event writes it.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Line<'a> {
    /// The first line: the event's settings, and its schedule before any pairing.
    Settings(Settings<'a>),
    /// A game with a result.
    Game(GameLine<'a>),
    /// A game that could not be played, and why.
    Failed {
        /// The game's number.
        game: u32,
        /// Why it could not be played.
        failed: &'a str,
    },
    /// A Swiss round's pairings and bye.
    SwissRound {
        /// The round.
        round: u32,
        /// Its games.
        pairings: &'a [GameSpec],
        /// The player without a game, if any.
        bye: Option<usize>,
    },
    /// A knockout's round: its pairings and byes.
    KnockoutRound {
        /// The round.
        round: u32,
        /// Its games.
        pairings: &'a [GameSpec],
        /// The players that go on without a match.
        byes: &'a [usize],
    },
    /// A knockout's tie-break pair.
    Tiebreak {
        /// The round.
        round: u32,
        /// Its games.
        tiebreak: &'a [GameSpec],
        /// The two players it is between.
        between: [usize; 2],
    },
    /// A seat taken: its number, its player and the name the player took.
    Seat {
        /// The seat's number.
        seat: u32,
        /// The player's index among the event's players.
        player: usize,
        /// The name it took.
        name: &'a str,
        /// How it took it.
        taken_by: Option<TakenBy>,
    },
}

impl<'a> Line<'a> {
    /// The line of a knockout's batch: a round, or a tie-break pair.
    pub(super) fn batch(batch: &'a Batch) -> Line<'a> {
        match &batch.kind {
            BatchKind::Round { byes } => Line::KnockoutRound {
                round: batch.round,
                pairings: &batch.games,
                byes,
            },
            BatchKind::Tiebreak { first, second } => Line::Tiebreak {
                round: batch.round,
                tiebreak: &batch.games,
                between: [*first, *second],
            },
        }
    }
}

/// The first line of `event.jsonl`: the event's settings, which `--resume` reads back
/// from `config`, and a summary of them for whoever reads the file.
#[derive(Serialize)]
pub(super) struct Settings<'a> {
    /// Always `serve`.
    pub(super) event: &'static str,
    /// The version of argus that began the event.
    pub(super) argus: &'static str,
    /// The PGN Event tag.
    pub(super) name: &'a str,
    /// The PGN Site tag.
    pub(super) site: &'a str,
    /// The PGN Date tag.
    pub(super) date: &'a str,
    /// The players' names.
    pub(super) players: &'a [String],
    /// How they are paired.
    pub(super) format: Format,
    /// How many times the pairings are played.
    pub(super) rounds: u32,
    /// Games per pairing in a round.
    pub(super) games_per_pairing: u32,
    /// The time control.
    pub(super) tc: String,
    /// How many start positions there are.
    pub(super) openings: usize,
    /// The games scheduled before any pairing.
    pub(super) schedule: &'a [GameSpec],
    /// The settings themselves.
    pub(super) config: &'a ServeConfig,
}

impl<'a> Settings<'a> {
    /// The first line of the event of `cfg`, whose players are `names` and whose
    /// schedule before any pairing is `schedule`.
    pub(super) fn new(
        cfg: &'a ServeConfig,
        names: &'a [String],
        schedule: &'a [GameSpec],
    ) -> Settings<'a> {
        Settings {
            event: "serve",
            argus: env!("CARGO_PKG_VERSION"),
            name: &cfg.event,
            site: &cfg.site,
            date: &cfg.date,
            players: names,
            format: cfg.format,
            rounds: cfg.rounds,
            games_per_pairing: cfg.games,
            tc: cfg.time_control.to_string(),
            openings: cfg.openings.len(),
            schedule,
            config: cfg,
        }
    }
}

/// The line of a game with a result.
#[derive(Serialize)]
pub(super) struct GameLine<'a> {
    /// The game's number.
    pub(super) game: u32,
    /// Its round.
    pub(super) round: u32,
    /// White's name.
    pub(super) white: &'a str,
    /// Black's name.
    pub(super) black: &'a str,
    /// The result, as PGN writes it.
    pub(super) result: String,
    /// The PGN Termination.
    pub(super) termination: String,
    /// Why the game ended.
    pub(super) reason: &'a str,
    /// How White and Black used their time.
    pub(super) time_use: [TimeUseLine; 2],
    /// The game's own journal, relative to the event's folder; none for a forfeit
    /// before the game began.
    pub(super) journal: Option<String>,
}

/// How one side used its time, as a game's line holds it.
#[derive(Serialize)]
pub(super) struct TimeUseLine {
    moves: u32,
    thinking_ms: u64,
    left_ms: Option<u64>,
    overshoots: u32,
}

impl TimeUseLine {
    /// White's and Black's time use for a game's line.
    pub(super) fn pair(time_use: &[TimeUse; 2]) -> [TimeUseLine; 2] {
        time_use.each_ref().map(|t| TimeUseLine {
            moves: t.moves,
            thinking_ms: millis(t.thinking),
            left_ms: t.left.map(millis),
            overshoots: t.overshoots,
        })
    }
}

/// A duration in whole milliseconds, as the lines hold it.
fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The event's own journal: JSON Lines, each written and flushed at once (and handed
/// to the standby stream, with the file's length before it).
pub(super) struct EventJournal {
    path: PathBuf,
    file: fs::File,
    standby: Option<(Arc<Hub>, u64)>,
}

impl EventJournal {
    /// Opens the journal of an event to go on with it.
    pub(super) fn append(
        path: &Path,
        standby: Option<&Arc<Hub>>,
    ) -> Result<EventJournal, ServeError> {
        let file = fs::File::options()
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        Ok(EventJournal {
            path: path.to_path_buf(),
            file,
            standby: standby.map(|hub| (Arc::clone(hub), len)),
        })
    }

    /// Creates the journal of a new event.
    pub(super) fn create(
        path: &Path,
        standby: Option<&Arc<Hub>>,
    ) -> Result<EventJournal, ServeError> {
        // Its settings hold the players' token hashes: its owner's alone.
        let file = crate::secret::private(&mut fs::File::options())
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(EventJournal {
            path: path.to_path_buf(),
            file,
            standby: standby.map(|hub| (Arc::clone(hub), 0)),
        })
    }

    /// Writes `line`, and flushes it.
    pub(super) fn write(&mut self, line: &Line<'_>) -> Result<(), ServeError> {
        let mut text = text(line);
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(io_err(&self.path))?;
        if let Some((hub, len)) = &mut self.standby {
            hub.publish(&self.path, *len, text.as_bytes());
            *len += text.len() as u64;
        }
        Ok(())
    }
}

/// The text of a line, without its line end: its keys in ASCII order.
fn text(line: &Line<'_>) -> String {
    serde_json::to_value(line)
        .expect("every line of event.jsonl is JSON")
        .to_string()
}

/// What a line of `event.jsonl` says, as `--resume` and an observer's views read it.
#[derive(Debug, PartialEq)]
pub enum Entry {
    /// The first line: the event's players and its schedule before any pairing.
    Settings {
        /// The players' names, in the event's order.
        players: Vec<String>,
        /// The games scheduled before any pairing (none in a Swiss or a knockout).
        schedule: Vec<GameSpec>,
    },
    /// A game with a result.
    Game(u32, PastGame),
    /// A game that could not be played.
    Failed(u32),
    /// A round's pairings: a Swiss round's (with its bye) or a knockout's. The games
    /// are None when they do not read.
    Pairings {
        /// The games paired.
        games: Option<Vec<GameSpec>>,
        /// A Swiss round's bye.
        bye: Option<usize>,
    },
    /// A knockout's tie-break pair: its games, None when they do not read.
    Tiebreak(Option<Vec<GameSpec>>),
    /// A seat taken.
    Seat {
        /// The seat's number.
        number: u64,
        /// The player's index among the event's players.
        player: u64,
        /// The name it took.
        name: String,
        /// How it took it (by its name when the line does not say).
        taken_by: TakenBy,
    },
    /// A line that says nothing a resume reads.
    Other,
}

/// A game with a result, as the event's journal has it.
#[derive(Clone, Debug, PartialEq)]
pub struct PastGame {
    /// Its result.
    pub result: GameResult,
    /// Its PGN Termination.
    pub termination: String,
    /// How White and Black used their time (none in older journals).
    pub time_use: [TimeUse; 2],
    /// Its journal, relative to the event's folder (none for a game forfeited before
    /// it began, and in older journals).
    pub journal: Option<String>,
}

impl Entry {
    /// What a line says.
    pub fn of(line: &serde_json::Value) -> Entry {
        if line.get("config").is_some() {
            let list = |key: &str| line.get(key).cloned().unwrap_or_default();
            return Entry::Settings {
                players: serde_json::from_value(list("players")).unwrap_or_default(),
                schedule: serde_json::from_value(list("schedule")).unwrap_or_default(),
            };
        }
        if let Some(pairings) = line.get("pairings") {
            return Entry::Pairings {
                games: serde_json::from_value(pairings.clone()).ok(),
                bye: line
                    .get("bye")
                    .and_then(serde_json::Value::as_u64)
                    .map(|b| b as usize),
            };
        }
        if let Some(tiebreak) = line.get("tiebreak") {
            return Entry::Tiebreak(serde_json::from_value(tiebreak.clone()).ok());
        }
        if let Some(number) = line
            .get("game")
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
        {
            if line.get("failed").is_some() {
                return Entry::Failed(number);
            }
            let Some(result) = line.get("result").and_then(serde_json::Value::as_str) else {
                return Entry::Other;
            };
            let termination = line
                .get("termination")
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_string();
            return Entry::Game(
                number,
                PastGame {
                    result: GameResult::from_pgn(result),
                    termination,
                    time_use: time_use_of(line),
                    journal: line
                        .get("journal")
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_string),
                },
            );
        }
        if let (Some(number), Some(player), Some(name)) = (
            line.get("seat").and_then(serde_json::Value::as_u64),
            line.get("player").and_then(serde_json::Value::as_u64),
            line.get("name").and_then(serde_json::Value::as_str),
        ) {
            let taken_by = line
                .get("taken_by")
                .and_then(|t| serde_json::from_value::<TakenBy>(t.clone()).ok())
                .unwrap_or(TakenBy::Name);
            return Entry::Seat {
                number,
                player,
                name: name.to_string(),
                taken_by,
            };
        }
        Entry::Other
    }

    /// What the line says of a game: its number, and its result (None for a game that
    /// could not be played); None for a line that is no game's.
    pub(super) fn game(&self) -> Option<(u32, Option<GameResult>)> {
        match self {
            Entry::Game(number, game) => Some((*number, Some(game.result))),
            Entry::Failed(number) => Some((*number, None)),
            _ => None,
        }
    }

    /// Whether the line is a knockout's batch (or a Swiss round's pairings).
    pub(super) fn is_batch(&self) -> bool {
        matches!(self, Entry::Pairings { .. } | Entry::Tiebreak(_))
    }
}

/// The time use of a game line's `time_use` (White's, Black's), as [`TimeUseLine`]
/// writes it.
fn time_use_of(line: &serde_json::Value) -> [TimeUse; 2] {
    let side = |i: usize| {
        let v = &line["time_use"][i];
        let ms = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
        TimeUse {
            moves: ms("moves").and_then(|n| u32::try_from(n).ok()).unwrap_or(0),
            thinking: std::time::Duration::from_millis(ms("thinking_ms").unwrap_or(0)),
            left: ms("left_ms").map(std::time::Duration::from_millis),
            overshoots: ms("overshoots")
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
            // Not in the event's journal: only the game's own reports it.
            overrun: None,
        }
    };
    [side(0), side(1)]
}

/// Reads `DIR/event.jsonl`: the event's settings (its folder now `dir`) and what each
/// line after the first says.
pub(super) fn read(dir: &Path) -> Result<(ServeConfig, Vec<Entry>), ServeError> {
    let path = dir.join("event.jsonl");
    let bad = |why: String| ServeError::Resume {
        path: dir.to_path_buf(),
        why,
    };
    let file = fs::File::open(&path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let mut lines = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(value) => lines.push(value),
            // A last line the dead referee did not finish is left out.
            Err(_) if line.trim().is_empty() => {}
            Err(e) => {
                log::warn!(
                    "{}: line {} is not whole ({e}); left out",
                    path.display(),
                    i + 1
                );
            }
        }
    }
    let config = lines
        .first()
        .and_then(|first| first.get("config"))
        .ok_or_else(|| {
            bad(format!(
                "{} does not begin with the event's settings",
                path.display()
            ))
        })?;
    let mut cfg: ServeConfig = serde_json::from_value(config.clone())
        .map_err(|e| bad(format!("{}: its settings: {e}", path.display())))?;
    cfg.out = dir.to_path_buf();
    Ok((cfg, lines.iter().skip(1).map(Entry::of).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::GameResult;
    use std::time::Duration;

    fn spec(number: u32) -> GameSpec {
        GameSpec {
            number,
            round: 1,
            white: 0,
            black: 1,
            opening: None,
            encounter: None,
        }
    }

    /// Every kind of line is written as the inline `json!` of earlier versions wrote
    /// it, byte for byte.
    #[test]
    fn each_line_is_written_as_before() {
        let games = [spec(1), spec(2)];
        let time_use = [
            TimeUse {
                moves: 40,
                thinking: Duration::from_millis(1234),
                left: Some(Duration::from_millis(56_789)),
                overshoots: 1,
                overrun: None,
            },
            TimeUse {
                moves: 39,
                thinking: Duration::from_millis(999),
                left: None,
                overshoots: 0,
                overrun: None,
            },
        ];
        let game = Line::Game(GameLine {
            game: 3,
            round: 2,
            white: "A",
            black: "B",
            result: GameResult::WhiteWins.to_string(),
            termination: "normal".into(),
            reason: "White mates",
            time_use: TimeUseLine::pair(&time_use),
            journal: Some("games/game-0003.jsonl".into()),
        });
        let time_use_json: Vec<serde_json::Value> = time_use
            .iter()
            .map(|t| {
                serde_json::json!({
                    "moves": t.moves,
                    "thinking_ms": u64::try_from(t.thinking.as_millis()).unwrap_or(u64::MAX),
                    "left_ms": t.left.map(|l| u64::try_from(l.as_millis()).unwrap_or(u64::MAX)),
                    "overshoots": t.overshoots,
                })
            })
            .collect();
        let before = serde_json::json!({
            "game": 3,
            "round": 2,
            "white": "A",
            "black": "B",
            "result": "1-0",
            "termination": "normal",
            "reason": "White mates",
            "time_use": time_use_json,
            "journal": Some("games/game-0003.jsonl"),
        });
        assert_eq!(text(&game), before.to_string());
        let forfeit = Line::Game(GameLine {
            journal: None,
            ..match game {
                Line::Game(g) => g,
                _ => unreachable!(),
            }
        });
        assert!(text(&forfeit).starts_with(r#"{"black":"B","game":3,"journal":null,"#));
        let pairs = [
            (
                Line::Failed {
                    game: 4,
                    failed: "no engine",
                },
                serde_json::json!({"game": 4, "failed": "no engine"}),
            ),
            (
                Line::SwissRound {
                    round: 2,
                    pairings: &games,
                    bye: Some(2),
                },
                serde_json::json!({"round": 2, "pairings": games, "bye": Some(2)}),
            ),
            (
                Line::SwissRound {
                    round: 1,
                    pairings: &games,
                    bye: None,
                },
                serde_json::json!({"round": 1, "pairings": games, "bye": None::<usize>}),
            ),
            (
                Line::KnockoutRound {
                    round: 1,
                    pairings: &games,
                    byes: &[0, 3],
                },
                serde_json::json!({"round": 1, "pairings": games, "byes": [0, 3]}),
            ),
            (
                Line::Tiebreak {
                    round: 1,
                    tiebreak: &games,
                    between: [0, 3],
                },
                serde_json::json!({"round": 1, "tiebreak": games, "between": [0, 3]}),
            ),
            (
                Line::Seat {
                    seat: 1,
                    player: 3,
                    name: "Ann",
                    taken_by: Some(TakenBy::Name),
                },
                serde_json::json!({"seat": 1, "player": 3, "name": "Ann", "taken_by": Some(TakenBy::Name)}),
            ),
        ];
        for (line, before) in pairs {
            assert_eq!(text(&line), before.to_string());
        }
        // What a pairing line pairs reads back as the games written.
        let tiebreak = Line::Tiebreak {
            round: 1,
            tiebreak: &games,
            between: [0, 3],
        };
        let read = Entry::of(&serde_json::from_str(&text(&tiebreak)).unwrap());
        assert_eq!(read, Entry::Tiebreak(Some(games.to_vec())));
    }

    /// The lines read back as what they say; older and foreign lines as best they can.
    #[test]
    fn the_lines_read_back() {
        let read = |l: &str| Entry::of(&serde_json::from_str(l).unwrap());
        assert_eq!(
            read(r#"{"game":2,"result":"1-0"}"#).game(),
            Some((2, Some(GameResult::WhiteWins)))
        );
        assert_eq!(read(r#"{"game":1,"failed":"no engine"}"#), Entry::Failed(1));
        assert_eq!(read(r#"{"game":1}"#), Entry::Other);
        assert_eq!(
            read(r#"{"seat":1,"player":0,"name":"Ann"}"#),
            Entry::Seat {
                number: 1,
                player: 0,
                name: "Ann".into(),
                taken_by: TakenBy::Name
            }
        );
        assert!(read(r#"{"round":1,"pairings":[]}"#).is_batch());
        assert!(read(r#"{"round":1,"tiebreak":[],"between":[0,1]}"#).is_batch());
        assert_eq!(
            read(r#"{"event":"argus serve","config":{},"players":["A","B"],"schedule":[]}"#),
            Entry::Settings {
                players: vec!["A".into(), "B".into()],
                schedule: Vec::new()
            }
        );
        assert_eq!(
            read(r#"{"round":1,"pairings":[],"bye":2}"#),
            Entry::Pairings {
                games: Some(Vec::new()),
                bye: Some(2)
            }
        );
    }
}
