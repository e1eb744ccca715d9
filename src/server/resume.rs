//! Going on with an event after a stop or a crash (`argus serve --resume DIR`): what
//! its `event.jsonl` says was settled, the event's state rebuilt from it, and the games'
//! PGN (and the copies of `--pgnout` and `--epdout`) made whole.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::core::game::GameResult;
use crate::tournament::GameSpec;

use super::files::{EventJournal, stem};
use super::outputs::Outputs;
use super::state::EventState;
use super::{Entrant, ServeConfig, ServeError, TakenBy, knockout};

/// Reads `DIR/event.jsonl`: the event's settings (its folder now `dir`) and its lines.
pub(super) fn read(dir: &Path) -> Result<(ServeConfig, Vec<serde_json::Value>), ServeError> {
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
    take_seats(&mut cfg, &lines);
    Ok((cfg, lines))
}

/// Gives the event's seats the names their players took, as the journal's `seat` lines
/// say (`{"seat":1,"player":3,"name":"Ann","taken_by":"name"}`): a resumed event pairs
/// the same players, and each seat is its player's still.
fn take_seats(cfg: &mut ServeConfig, lines: &[serde_json::Value]) {
    for line in lines.iter().skip(1) {
        let (Some(number), Some(player), Some(name)) = (
            line.get("seat").and_then(serde_json::Value::as_u64),
            line.get("player").and_then(serde_json::Value::as_u64),
            line.get("name").and_then(serde_json::Value::as_str),
        ) else {
            continue;
        };
        let taken = line
            .get("taken_by")
            .and_then(|t| serde_json::from_value::<TakenBy>(t.clone()).ok())
            .unwrap_or(TakenBy::Name);
        match cfg.players.get_mut(player as usize) {
            Some(Entrant::Seat(seat)) if u64::from(seat.number) == number => {
                seat.name = name.to_string();
                seat.taken = Some(taken);
            }
            _ => log::warn!(
                "event.jsonl: seat {number} of player {player} ({name}) is no seat of the event; left out"
            ),
        }
    }
}

/// A game with a result, as the event's journal has it.
#[derive(Debug)]
pub(super) struct PastGame {
    pub(super) result: GameResult,
    /// Its PGN Termination.
    pub(super) termination: String,
    /// How White and Black used their time (none in older journals).
    pub(super) time_use: [crate::core::TimeUse; 2],
}

/// The time use of a game line's `time_use` (White's, Black's), as
/// [`time_use_json`] writes it.
fn time_use_of(line: &serde_json::Value) -> [crate::core::TimeUse; 2] {
    let side = |i: usize| {
        let v = &line["time_use"][i];
        let ms = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
        crate::core::TimeUse {
            moves: ms("moves").and_then(|n| u32::try_from(n).ok()).unwrap_or(0),
            thinking: std::time::Duration::from_millis(ms("thinking_ms").unwrap_or(0)),
            left: ms("left_ms").map(std::time::Duration::from_millis),
            overshoots: ms("overshoots")
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
        }
    };
    [side(0), side(1)]
}

/// A game's time use for its line in the event's journal.
pub(super) fn time_use_json(time_use: &[crate::core::TimeUse; 2]) -> serde_json::Value {
    serde_json::Value::Array(
        time_use
            .iter()
            .map(|t| {
                serde_json::json!({
                    "moves": t.moves,
                    "thinking_ms": u64::try_from(t.thinking.as_millis()).unwrap_or(u64::MAX),
                    "left_ms": t.left.map(|l| u64::try_from(l.as_millis()).unwrap_or(u64::MAX)),
                    "overshoots": t.overshoots,
                })
            })
            .collect(),
    )
}

/// What a line of the event's journal says of a game: its number, and its result
/// (`None` for a game that could not be played); `None` for a line that is no game's.
pub(super) fn game_line(line: &serde_json::Value) -> Option<(u32, Option<GameResult>)> {
    let number = line
        .get("game")
        .and_then(serde_json::Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())?;
    if line.get("failed").is_some() {
        return Some((number, None));
    }
    let result = line.get("result").and_then(serde_json::Value::as_str)?;
    Some((number, Some(GameResult::from_pgn(result))))
}

/// What an event's journal says happened.
#[derive(Debug, Default)]
pub(super) struct Past {
    /// The games with a result.
    pub(super) results: HashMap<u32, PastGame>,
    /// The games that could not be played.
    pub(super) failed: HashSet<u32>,
    /// A Swiss event's games, round after round, as paired.
    pub(super) swiss_games: Vec<GameSpec>,
    /// The Swiss rounds paired.
    pub(super) swiss_rounds: u32,
    /// The byes, round after round.
    pub(super) byes: Vec<usize>,
    /// The game whose result the journal recorded last.
    pub(super) last_recorded: Option<u32>,
}

impl Past {
    pub(super) fn read(lines: &[serde_json::Value]) -> Past {
        let mut past = Past::default();
        for line in lines.iter().skip(1) {
            if let Some(pairings) = line.get("pairings") {
                if let Ok(games) = serde_json::from_value::<Vec<GameSpec>>(pairings.clone()) {
                    past.swiss_games.extend(games);
                    past.swiss_rounds += 1;
                }
                if let Some(bye) = line.get("bye").and_then(serde_json::Value::as_u64) {
                    past.byes.push(bye as usize);
                }
                continue;
            }
            match game_line(line) {
                Some((number, None)) => {
                    past.failed.insert(number);
                }
                Some((number, Some(result))) => {
                    let termination = line
                        .get("termination")
                        .and_then(|t| t.as_str())
                        .unwrap_or_default()
                        .to_string();
                    past.results.insert(
                        number,
                        PastGame {
                            result,
                            termination,
                            time_use: time_use_of(line),
                        },
                    );
                    past.last_recorded = Some(number);
                }
                None => {}
            }
        }
        past
    }
}

/// An event's state as its journal leaves it.
pub(super) struct Rebuilt {
    /// Every game scheduled so far (a Swiss's or a knockout's as paired), by number.
    pub(super) games: Vec<GameSpec>,
    /// The games with a result.
    pub(super) played: usize,
    /// The games to go on with from their journals.
    pub(super) under_way: HashSet<u32>,
    /// The games to play: without a result, and not failed.
    pub(super) queue: VecDeque<GameSpec>,
}

/// Rebuilds `state` from the journal's `lines` (the event's schedule `games` before any
/// pairing): the results counted, a Swiss's rounds and byes or a knockout's bracket as
/// paired (and the next round paired when the stop came after the last game of one),
/// and the files made whole.
pub(super) fn rebuild(
    cfg: &ServeConfig,
    lines: &[serde_json::Value],
    mut games: Vec<GameSpec>,
    state: &mut EventState,
    journal: &mut EventJournal,
    outputs: &Outputs,
) -> Result<Rebuilt, ServeError> {
    let past = Past::read(lines);
    if let Some(sw) = &mut state.swiss {
        games = past.swiss_games.clone();
        sw.round = past.swiss_rounds;
        for &p in &past.byes {
            sw.history.byes.push(p);
            state.standings.record_bye(p);
        }
        sw.bye = past.byes.last().copied();
    }
    if state.knockout.is_some() {
        let k = knockout::rebuild(cfg, lines, journal)?;
        games = k.games().to_vec();
        state.knockout = Some(k);
    }
    let mut finished: Vec<GameSpec> = games
        .iter()
        .filter(|g| past.results.contains_key(&g.number))
        .cloned()
        .collect();
    finished.sort_by_key(|g| g.number);
    let pgn_path = cfg.out.join("games.pgn");
    let mut held = fs::read_to_string(&pgn_path).unwrap_or_default();
    let game_pgn = |spec: &GameSpec| cfg.out.join("games").join(format!("{}.pgn", stem(spec)));
    for spec in &finished {
        let game = &past.results[&spec.number];
        state.count(spec, (game.result, &game.termination, &game.time_use));
        ensure_in_pgn(&pgn_path, &mut held, &game_pgn(spec))?;
    }
    // A stop between the journal's line of a game and the copies: the last one.
    if let Some(spec) = past
        .last_recorded
        .and_then(|n| games.iter().find(|g| g.number == n))
        && let Ok(pgn) = fs::read_to_string(game_pgn(spec))
    {
        outputs.ensure_last(&stem(spec), &pgn);
    }
    if let Some(sw) = &mut state.swiss {
        sw.left = games
            .iter()
            .filter(|g| {
                g.round == sw.round
                    && !past.results.contains_key(&g.number)
                    && !past.failed.contains(&g.number)
            })
            .count();
        // Stopped after the last game of a round: the next round is paired now.
        if sw.left == 0 && sw.round < cfg.rounds {
            let first = games.len() as u32 + 1;
            let next = super::swiss_round(sw, cfg, &mut state.standings, first, journal)?;
            games.extend(next);
        }
    }
    let queue: VecDeque<GameSpec> = games
        .iter()
        .filter(|g| !past.results.contains_key(&g.number) && !past.failed.contains(&g.number))
        .cloned()
        .collect();
    let under_way = queue
        .iter()
        .filter(|g| {
            cfg.out
                .join("games")
                .join(format!("{}.jsonl", stem(g)))
                .exists()
        })
        .map(|g| g.number)
        .collect();
    Ok(Rebuilt {
        played: finished.len(),
        games,
        under_way,
        queue,
    })
}

/// Appends the game of `game_pgn` (its own PGN file) to `pgn` unless `pgn` holds it
/// already: the event's journal records a game before `games.pgn` does.
/// `held` is what `pgn` holds (read once by the caller), and grows with what is added.
pub(super) fn ensure_in_pgn(
    pgn: &Path,
    held: &mut String,
    game_pgn: &Path,
) -> Result<(), ServeError> {
    let Ok(game) = fs::read_to_string(game_pgn) else {
        log::warn!(
            "{}: missing; the game is in its journal",
            game_pgn.display()
        );
        return Ok(());
    };
    if !held.contains(&game) {
        held.push_str(&game);
        log::warn!(
            "{}: appending {}, which the stopped event had not written there",
            pgn.display(),
            game_pgn.display()
        );
        crate::mediator::append_pgn(pgn, &game).map_err(|e| ServeError::Io {
            path: pgn.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
    }
    Ok(())
}
