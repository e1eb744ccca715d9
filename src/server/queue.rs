//! The games waiting to begin (`Queue`), and how many an event schedules; a Swiss
//! event's next round is paired into it as the last round ends.

use std::collections::{HashMap, VecDeque};

use super::error::ServeError;
use super::event_log::{EventJournal, Line};
use super::settings::ServeConfig;
use super::state;
use crate::tournament::{Format, GameSpec, Knockout, Standings, schedule_seeded};

/// The games waiting to begin, and whether more will come (a Swiss event's next round, a
/// knockout's next games).
pub(super) struct Queue {
    pub(super) games: VecDeque<GameSpec>,
    /// How many times each game that went back to the queue was tried.
    pub(super) tries: HashMap<u32, u32>,
    pub(super) more: bool,
    /// Games claimed and not done.
    pub(super) under_way: usize,
    /// No game begins any more (a stop, or `stop after-games`).
    pub(super) closed: bool,
}

/// Pairs a Swiss event's next round (its games numbered from `first`) and writes its
/// pairings and bye to the event's journal, from which a resume pairs no round again.
pub(super) fn swiss_round(
    sw: &mut state::SwissState,
    cfg: &ServeConfig,
    standings: &mut Standings,
    first: u32,
    journal: &mut EventJournal,
) -> Result<Vec<GameSpec>, ServeError> {
    let games = sw.next_round(cfg, standings, first);
    journal.write(&Line::SwissRound {
        round: sw.round,
        pairings: &games,
        bye: sw.bye,
    })?;
    Ok(games)
}

/// The games an event schedules: a Swiss event's, from its rounds (each pairs everybody
/// but the bye); a knockout's, one match per player knocked out.
pub fn scheduled_games(cfg: &ServeConfig) -> usize {
    match cfg.format {
        Format::Swiss => cfg.rounds as usize * (cfg.players.len() / 2) * cfg.games as usize,
        // Without the tie-breaks, which only the results tell.
        Format::Knockout => Knockout::games_without_tiebreaks(cfg.players.len(), cfg.games),
        _ => fixed_schedule(cfg).len(),
    }
}

/// The games `cfg`'s schedule fixes before any result: every game of a round robin or
/// a gauntlet; none of a Swiss or a knockout, which the results pair.
pub(super) fn fixed_schedule(cfg: &ServeConfig) -> Vec<GameSpec> {
    let mut games = schedule_seeded(
        cfg.players.len(),
        cfg.seeds as usize,
        cfg.format,
        cfg.rounds,
        cfg.games,
        cfg.openings.len(),
        cfg.repeat,
    );
    cfg.colours.apply(&mut games);
    games
}
