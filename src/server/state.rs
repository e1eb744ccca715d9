//! What the event's thread keeps from the results: the standings, a two-player match's
//! game pairs (for the ratings' pentanomial figures and the SPRT), and what pairs the
//! next games of a Swiss or a knockout. All of it is rebuilt from `event.jsonl` on
//! `--resume`.

use crate::core::TimeUse;
use crate::core::game::GameResult;
use crate::tournament::rating::{PairCounter, Report};
use crate::tournament::{
    Failure, Format, GameSpec, Knockout, Sprt, Standings, SwissHistory, pair_round, swiss_games,
};

use super::settings::ServeConfig;

/// The event's results and the state they move.
pub(super) struct EventState {
    /// The standings.
    pub(super) standings: Standings,
    /// A Swiss event's pairing state.
    pub(super) swiss: Option<SwissState>,
    /// A knockout's bracket.
    pub(super) knockout: Option<Knockout>,
    /// The SPRT, when the event runs one.
    pub(super) sprt: Option<Sprt>,
    /// A two-player match's game pairs, when its pairings play an even number of games
    /// (each opening twice with the colours swapped).
    pub(super) pairs: Option<PairCounter>,
}

impl EventState {
    /// The state of `cfg`'s event before any game; `names`: its players'.
    pub(super) fn new(cfg: &ServeConfig, names: Vec<String>) -> EventState {
        let players = cfg.players.len();
        EventState {
            standings: Standings::new(names),
            swiss: (cfg.format == Format::Swiss).then(|| SwissState {
                history: SwissHistory::new(players),
                round: 0,
                left: 0,
                bye: None,
            }),
            knockout: (cfg.format == Format::Knockout)
                .then(|| Knockout::new(players, cfg.games, cfg.openings.len())),
            sprt: cfg.sprt.clone().map(Sprt::new),
            pairs: (players == 2 && cfg.games.is_multiple_of(2) && cfg.repeat == 2)
                .then(PairCounter::new),
        }
    }

    /// Counts a game's result (with its PGN Termination and how its players used their
    /// time) in the standings, a Swiss history, the pairs and the SPRT; returns whether
    /// it completed a pair of the SPRT. (A knockout counts its games itself, in the
    /// order they end: see `knockout.rs`.)
    pub(super) fn count(
        &mut self,
        spec: &GameSpec,
        (result, termination, time_use): (GameResult, &str, &[TimeUse; 2]),
    ) -> bool {
        self.standings.record(spec.white, spec.black, result);
        for (player, t) in [spec.white, spec.black].into_iter().zip(time_use) {
            self.standings
                .record_time_use(player, t.moves, t.thinking, t.left, t.overshoots);
        }
        // A decisive game lost by failing (on time, by an illegal move, abandoned)
        // counts against its loser.
        if let Some(failure) = Failure::of_termination(termination) {
            match result {
                GameResult::WhiteWins => self.standings.record_failure(spec.black, failure),
                GameResult::BlackWins => self.standings.record_failure(spec.white, failure),
                GameResult::Draw | GameResult::Unknown => {}
            }
        }
        if let Some(sw) = &mut self.swiss {
            sw.history.met.push((spec.white, spec.black));
            sw.history.colours[spec.white].push(true);
            sw.history.colours[spec.black].push(false);
        }
        let Some(half) = first_player_half(spec, result) else {
            return false;
        };
        let Some(pair) = self
            .pairs
            .as_mut()
            .and_then(|p| p.record(spec.number, half))
        else {
            return false;
        };
        match &mut self.sprt {
            Some(sprt) => {
                sprt.record_pair(pair);
                true
            }
            None => false,
        }
    }

    /// The ratings as of now.
    pub(super) fn ratings(&self) -> Report {
        Report::new(
            &self.standings,
            self.pairs.as_ref().map(PairCounter::pentanomial),
        )
    }

    /// Whether games not scheduled yet will come: a Swiss's next rounds, a knockout
    /// not decided.
    pub(super) fn more_to_come(&self, cfg: &ServeConfig) -> bool {
        self.swiss.as_ref().is_some_and(|sw| sw.round < cfg.rounds)
            || self.knockout.as_ref().is_some_and(|k| !k.over())
    }
}

/// The first player's half-points in a game with a result.
fn first_player_half(spec: &GameSpec, result: GameResult) -> Option<u32> {
    let [white, black] = result.half_points()?;
    Some(if spec.white == 0 { white } else { black })
}

/// A Swiss event's state: the history its pairings need, and its round.
pub(super) struct SwissState {
    pub(super) history: SwissHistory,
    /// The round paired last.
    pub(super) round: u32,
    /// Its games not yet done.
    pub(super) left: usize,
    /// Its bye.
    pub(super) bye: Option<usize>,
}

impl SwissState {
    /// Pairs the next round: its games, numbered from `first`; the bye scores its point.
    pub(super) fn next_round(
        &mut self,
        cfg: &ServeConfig,
        standings: &mut Standings,
        first: u32,
    ) -> Vec<GameSpec> {
        self.history.half_points = (0..cfg.players.len())
            .map(|i| standings.half_points(i))
            .collect();
        let round = pair_round(&self.history);
        self.round += 1;
        self.bye = round.bye;
        if let Some(p) = round.bye {
            self.history.byes.push(p);
            standings.record_bye(p);
        }
        let games = swiss_games(
            self.round,
            &round.pairs,
            cfg.games,
            cfg.openings.len(),
            cfg.repeat,
            first,
        );
        self.left = games.len();
        games
    }
}
