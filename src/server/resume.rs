//! Going on with an event after a stop or a crash (`argus serve --resume DIR`): what
//! its `event.jsonl` says was settled, the event's state rebuilt from it, and the games'
//! PGN (and the copies of `--pgnout` and `--epdout`) made whole.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs;
use std::path::Path;

use crate::tournament::GameSpec;

use super::entrant::Entrant;
use super::error::ServeError;
use super::event_log::{self, Entry, EventJournal, PastGame};
use super::files::stem;
use super::knockout;
use super::outputs::Outputs;
use super::queue::swiss_round;
use super::settings::ServeConfig;
use super::state::EventState;

/// Reads `DIR/event.jsonl`: the event's settings (its folder now `dir`, its seats named
/// as their players took them) and what its lines after the first say.
pub(super) fn read(dir: &Path) -> Result<(ServeConfig, Vec<Entry>), ServeError> {
    let (mut cfg, entries) = event_log::read(dir)?;
    take_seats(&mut cfg, &entries);
    Ok((cfg, entries))
}

/// Reads the settings of the event in `dir` (for what `argus serve --resume` prints
/// before it goes on).
///
/// # Errors
///
/// [`ServeError::Resume`] when the folder holds no event.
pub fn event_settings(dir: &Path) -> Result<ServeConfig, ServeError> {
    read(dir).map(|(cfg, _)| cfg)
}

/// Gives the event's seats the names their players took, as the journal's `seat` lines
/// say (`{"name":"Ann","player":3,"seat":1,"taken_by":"name"}`): a resumed event pairs
/// the same players, and each seat is its player's still.
fn take_seats(cfg: &mut ServeConfig, entries: &[Entry]) {
    for entry in entries {
        let Entry::Seat {
            number,
            player,
            name,
            taken_by,
        } = entry
        else {
            continue;
        };
        match cfg.players.get_mut(*player as usize) {
            Some(Entrant::Seat(seat)) if u64::from(seat.number) == *number => {
                seat.name.clone_from(name);
                seat.taken = Some(*taken_by);
            }
            _ => log::warn!(
                "event.jsonl: seat {number} of player {player} ({name}) is no seat of the event; left out"
            ),
        }
    }
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
    pub(super) fn read(entries: &[Entry]) -> Past {
        let mut past = Past::default();
        for entry in entries {
            match entry {
                Entry::Pairings { games, bye } => {
                    if let Some(games) = games {
                        past.swiss_games.extend(games.iter().cloned());
                        past.swiss_rounds += 1;
                    }
                    if let Some(bye) = bye {
                        past.byes.push(*bye);
                    }
                }
                Entry::Failed(number) => {
                    past.failed.insert(*number);
                }
                Entry::Game(number, game) => {
                    past.results.insert(*number, game.clone());
                    past.last_recorded = Some(*number);
                }
                Entry::Settings { .. } | Entry::Tiebreak(_) | Entry::Seat { .. } | Entry::Other => {
                }
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

/// Rebuilds `state` from what the journal's lines say, `entries` (the event's schedule `games` before any
/// pairing): the results counted, a Swiss's rounds and byes or a knockout's bracket as
/// paired (and the next round paired when the stop came after the last game of one),
/// and the files made whole.
pub(super) fn rebuild(
    cfg: &ServeConfig,
    entries: &[Entry],
    mut games: Vec<GameSpec>,
    state: &mut EventState,
    journal: &mut EventJournal,
    outputs: &Outputs,
) -> Result<Rebuilt, ServeError> {
    let past = Past::read(entries);
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
        let k = knockout::rebuild(cfg, entries, journal)?;
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
    // A finished game's PGN: its own file or, where the event keeps none (and only a
    // forfeit before the game began has one), what its journal recorded.
    let game_text = |spec: &GameSpec| {
        fs::read_to_string(game_pgn(spec))
            .ok()
            .or_else(|| journal_pgn(&cfg.out.join("games").join(format!("{}.jsonl", stem(spec)))))
    };
    let last = past
        .last_recorded
        .and_then(|n| games.iter().find(|g| g.number == n));
    for spec in &finished {
        let game = &past.results[&spec.number];
        state.count(spec, (game.result, &game.termination, &game.time_use));
        // Without the games' own files only the last game recorded can be missing:
        // the event's thread appends each game to games.pgn right after its line.
        if !cfg.no_game_pgn || last.is_some_and(|l| l.number == spec.number) {
            ensure_in_pgn(&pgn_path, &mut held, &game_pgn(spec), game_text(spec))?;
        }
    }
    // A stop between the journal's line of a game and the copies: the last one.
    if let Some(spec) = last
        && let Some(pgn) = game_text(spec)
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
            let next = swiss_round(sw, cfg, &mut state.standings, first, journal)?;
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

/// The PGN of the last game the journal at `path` records; None when it records none
/// or cannot be read.
fn journal_pgn(path: &Path) -> Option<String> {
    let reader = crate::mediator::journal::Reader::open(path).ok()?;
    reader
        .filter_map(Result::ok)
        .filter_map(|(_, event)| match event {
            crate::mediator::journal::Event::GameOver { pgn, .. } => Some(pgn),
            _ => None,
        })
        .last()
}

/// Appends `game`, the PGN of the game whose own file is `game_pgn` (read by the
/// caller, or taken from its journal), to `pgn` unless `pgn` holds it already: the
/// event's journal records a game before `games.pgn` does. `held` is what `pgn` holds
/// (read once by the caller), and grows with what is added.
pub(super) fn ensure_in_pgn(
    pgn: &Path,
    held: &mut String,
    game_pgn: &Path,
    game: Option<String>,
) -> Result<(), ServeError> {
    let Some(game) = game else {
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
