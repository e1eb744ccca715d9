//! A knockout (cutechess-cli's `-tournament knockout`): players meet in a bracket by
//! seed, and the winner of each match goes on to the next round until one is left.
//!
//! The seeds are the players' order (the first player is seed 1). The bracket has room
//! for the next power of two of players; round 1 pairs seed `s` with seed `size + 1 -
//! s` (1 v 8, 2 v 7, ...) and a seed whose opponent would be beyond the players has a
//! bye (it goes on without playing). The bracket is the usual one, so that seeds 1 and
//! 2 can meet only in the final: its order is built by putting beside each seed `s` of
//! the bracket of half the size its opponent `size + 1 - s` (1 8 4 5 2 7 3 6), and each
//! round pairs the winners of neighbouring matches.
//!
//! A match is `games` games, the colours alternating, the better seed White first. A
//! match that ends level plays a tie-break pair (two more games, one each with White,
//! on an opening of their own) until one pair leaves it decided; after
//! [`MAX_TIEBREAKS`] pairs still level, the better seed goes on. Games without a result
//! (`*`, or a game that could not be played) score nothing for either player.
//!
//! The state moves only with results ([`Knockout::record`]), so the same results in the
//! same order give the same games with the same numbers: an event rebuilds its
//! knockout from its journal by playing the results through it again
//! ([`Knockout::replay`]).

use serde::Serialize;

use super::GameSpec;
use crate::core::game::GameResult;

/// Tie-break pairs a level match plays before the better seed goes on.
pub const MAX_TIEBREAKS: u32 = 3;

/// One match of the bracket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Match {
    /// Its round, from 1.
    pub round: u32,
    /// The better seed (an index into the players).
    pub first: usize,
    /// Its opponent; None for a bye.
    pub second: Option<usize>,
    /// The half-points of `first` and `second`.
    pub half: [u32; 2],
    /// Its games' numbers, tie-breaks included.
    pub games: Vec<u32>,
    /// Games of its latest batch (the match's games, or a tie-break pair) not done.
    pub left: u32,
    /// Tie-break pairs scheduled.
    pub tiebreaks: u32,
    /// Who goes on, once decided.
    pub winner: Option<usize>,
    /// Decided by seed after [`MAX_TIEBREAKS`] tie-break pairs left it level.
    pub by_seed: bool,
}

impl Match {
    /// One line for people: `Ann - Eve 1.5-0.5: Ann goes on`, `Bob: bye`, `Cy - Dan 1-1:
    /// not decided yet`.
    pub fn describe(&self, names: &[String]) -> String {
        let name = |i: usize| names.get(i).map_or("?", String::as_str);
        let Some(second) = self.second else {
            return format!("{}: bye", name(self.first));
        };
        let score = format!(
            "{} - {} {}-{}",
            name(self.first),
            name(second),
            half_text(self.half[0]),
            half_text(self.half[1])
        );
        let tiebreaks = match self.tiebreaks {
            0 => String::new(),
            1 => " after a tie-break pair".to_string(),
            n => format!(" after {n} tie-break pairs"),
        };
        match self.winner {
            Some(w) if self.by_seed => {
                format!("{score}: {} goes on as the better seed{tiebreaks}", name(w))
            }
            Some(w) => format!("{score}: {} goes on{tiebreaks}", name(w)),
            None => format!("{score}: not decided yet"),
        }
    }
}

fn half_text(half: u32) -> String {
    if half.is_multiple_of(2) {
        format!("{}", half / 2)
    } else {
        format!("{}.5", half / 2)
    }
}

/// Games the knockout adds to the event at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Batch {
    /// Their round.
    pub round: u32,
    /// A new round (with its byes), or a tie-break pair.
    pub kind: BatchKind,
    /// The games, numbered on from the event's last.
    pub games: Vec<GameSpec>,
}

/// What a [`Batch`] is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BatchKind {
    /// A round's matches; these players have a bye.
    Round {
        /// The players who go on without playing.
        byes: Vec<usize>,
    },
    /// A tie-break pair of the match of these two players.
    Tiebreak {
        /// The better seed.
        first: usize,
        /// Its opponent.
        second: usize,
    },
}

/// What a result changed: matches decided (byes included), and games to add.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// Matches decided by it.
    pub decided: Vec<Match>,
    /// Games to play now: a tie-break pair, or the next round.
    pub batch: Option<Batch>,
}

/// A knockout's state: its matches so far and its games.
#[derive(Clone, Debug, Serialize)]
pub struct Knockout {
    players: usize,
    /// Games per match.
    games_per_match: u32,
    openings: usize,
    /// Rounds in all: log2 of the bracket's size.
    rounds: u32,
    /// The round paired last (0 before the first).
    round: u32,
    /// Every match, round after round, each round's in bracket order.
    matches: Vec<Match>,
    /// Every game, numbered from 1.
    games: Vec<GameSpec>,
    /// Whether each game is counted.
    #[serde(skip)]
    counted: Vec<bool>,
}

/// The seeds (from 1) of a bracket of `size` (a power of two) in bracket order.
fn bracket(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order
}

impl Knockout {
    /// A knockout of `players` (in seed order) playing `games` games per match, with
    /// `openings` openings (0: the standard start); nothing paired yet.
    pub fn new(players: usize, games: u32, openings: usize) -> Knockout {
        let size = players.max(1).next_power_of_two();
        Knockout {
            players,
            games_per_match: games.max(1),
            openings,
            rounds: size.trailing_zeros(),
            round: 0,
            matches: Vec::new(),
            games: Vec::new(),
            counted: Vec::new(),
        }
    }

    /// The rounds in all.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The round paired last.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Every game so far.
    pub fn games(&self) -> &[GameSpec] {
        &self.games
    }

    /// Every match so far.
    pub fn matches(&self) -> &[Match] {
        &self.matches
    }

    /// The winner, once the final is decided (or the only player).
    pub fn champion(&self) -> Option<usize> {
        if self.players == 1 {
            return Some(0);
        }
        let last = self.matches.last()?;
        (last.round == self.rounds).then_some(last.winner).flatten()
    }

    /// Whether no game is left to schedule.
    pub fn over(&self) -> bool {
        self.champion().is_some() || self.players < 2
    }

    /// The games a knockout of `players` plays without tie-breaks: one match per player
    /// knocked out.
    pub fn games_without_tiebreaks(players: usize, games: u32) -> usize {
        players.saturating_sub(1) * games as usize
    }

    /// Pairs round 1. Its byes are decided at once (in the step).
    pub fn start(&mut self) -> Step {
        if self.round > 0 || self.players < 2 {
            return Step::default();
        }
        let size = 1usize << self.rounds;
        let seeds = bracket(size);
        let entrants: Vec<Option<usize>> = seeds
            .iter()
            .map(|&s| (s <= self.players).then(|| s - 1))
            .collect();
        self.pair(&entrants)
    }

    /// Pairs the next round of `entrants` (bracket order, two by two).
    fn pair(&mut self, entrants: &[Option<usize>]) -> Step {
        self.round += 1;
        let round = self.round;
        let mut step = Step::default();
        let mut games = Vec::new();
        let mut byes = Vec::new();
        for two in entrants.chunks(2) {
            let (first, second) = match (two[0], two.get(1).copied().flatten()) {
                (Some(a), Some(b)) => (a.min(b), Some(a.max(b))),
                (Some(a), None) | (None, Some(a)) => (a, None),
                (None, None) => continue,
            };
            let mut m = Match {
                round,
                first,
                second,
                half: [0, 0],
                games: Vec::new(),
                left: 0,
                tiebreaks: 0,
                winner: None,
                by_seed: false,
            };
            match second {
                None => {
                    m.winner = Some(first);
                    byes.push(first);
                    step.decided.push(m.clone());
                }
                Some(second) => {
                    let base = self.opening_base(round);
                    for g in 0..self.games_per_match {
                        let (white, black) = if g % 2 == 0 {
                            (first, second)
                        } else {
                            (second, first)
                        };
                        games.push(self.add_game(round, white, black, base + g as usize / 2));
                    }
                    m.games = games[games.len() - self.games_per_match as usize..]
                        .iter()
                        .map(|g| g.number)
                        .collect();
                    m.left = self.games_per_match;
                }
            }
            self.matches.push(m);
        }
        step.batch = Some(Batch {
            round,
            kind: BatchKind::Round { byes },
            games,
        });
        step
    }

    /// The first opening of round `round`'s games: each round has room for its
    /// matches' openings and their tie-breaks'.
    fn opening_base(&self, round: u32) -> usize {
        let stride = self.games_per_match.div_ceil(2) + MAX_TIEBREAKS;
        (round as usize - 1) * stride as usize
    }

    fn add_game(&mut self, round: u32, white: usize, black: usize, opening: usize) -> GameSpec {
        let opening = (self.openings > 0).then(|| opening % self.openings);
        // The encounter: the games of a match on one opening, numbered through the
        // round in the order they come (PGN Round `R.E`).
        let key = |w: usize, b: usize, o: Option<usize>| (w.min(b), w.max(b), o);
        let mut encounters = Vec::new();
        for g in self.games.iter().filter(|g| g.round == round) {
            let k = key(g.white, g.black, g.opening);
            if !encounters.contains(&k) {
                encounters.push(k);
            }
        }
        let this = key(white, black, opening);
        let encounter = encounters
            .iter()
            .position(|k| *k == this)
            .unwrap_or(encounters.len())
            + 1;
        let spec = GameSpec {
            number: self.games.len() as u32 + 1,
            round,
            white,
            black,
            opening,
            encounter: Some(u32::try_from(encounter).unwrap_or(u32::MAX)),
        };
        self.games.push(spec.clone());
        self.counted.push(false);
        spec
    }

    /// Counts game `number`'s result (None or `*`: no result, as for a game that could
    /// not be played) and says what it changed. A game not of this knockout, or one
    /// counted already, changes nothing.
    pub fn record(&mut self, number: u32, result: Option<GameResult>) -> Step {
        let index = (number as usize).wrapping_sub(1);
        let Some(spec) = self.games.get(index).cloned() else {
            return Step::default();
        };
        if std::mem::replace(&mut self.counted[index], true) {
            return Step::default();
        }
        let Some(at) = self
            .matches
            .iter()
            .position(|m| m.winner.is_none() && m.games.contains(&number))
        else {
            return Step::default();
        };
        let m = &mut self.matches[at];
        if m.left == 0 {
            return Step::default();
        }
        m.left -= 1;
        if let Some([w, b]) = result.and_then(GameResult::half_points) {
            let (first, second) = if spec.white == m.first {
                (w, b)
            } else {
                (b, w)
            };
            m.half[0] += first;
            m.half[1] += second;
        }
        let mut step = Step::default();
        if m.left > 0 {
            return step;
        }
        let second = m.second.expect("a match with games has two players");
        if m.half[0] != m.half[1] {
            m.winner = Some(if m.half[0] > m.half[1] {
                m.first
            } else {
                second
            });
        } else if m.tiebreaks >= MAX_TIEBREAKS {
            m.winner = Some(m.first);
            m.by_seed = true;
        } else {
            m.tiebreaks += 1;
            m.left = 2;
            let (round, first, k) = (m.round, m.first, m.tiebreaks);
            let opening = self.opening_base(round)
                + self.games_per_match.div_ceil(2) as usize
                + (k - 1) as usize;
            let mut games = Vec::new();
            for j in 0..2 {
                // The player who had White less often in the match's games first.
                let (white, black) = if (self.games_per_match + j).is_multiple_of(2) {
                    (first, second)
                } else {
                    (second, first)
                };
                games.push(self.add_game(round, white, black, opening));
            }
            self.matches[at]
                .games
                .extend(games.iter().map(|g| g.number));
            step.batch = Some(Batch {
                round,
                kind: BatchKind::Tiebreak { first, second },
                games,
            });
            return step;
        }
        step.decided.push(self.matches[at].clone());
        let round: Vec<&Match> = self
            .matches
            .iter()
            .filter(|m| m.round == self.round)
            .collect();
        if self.round < self.rounds && round.iter().all(|m| m.winner.is_some()) {
            let winners: Vec<Option<usize>> = round.iter().map(|m| m.winner).collect();
            let next = self.pair(&winners);
            step.decided.extend(next.decided);
            step.batch = next.batch;
        }
        step
    }

    /// A knockout rebuilt from its results in the order they came (game number, result;
    /// None for a game that could not be played), with the batches it made on the way,
    /// the first round's first.
    pub fn replay(
        players: usize,
        games: u32,
        openings: usize,
        results: impl IntoIterator<Item = (u32, Option<GameResult>)>,
    ) -> (Knockout, Vec<Batch>) {
        let mut k = Knockout::new(players, games, openings);
        let mut batches: Vec<Batch> = k.start().batch.into_iter().collect();
        for (number, result) in results {
            batches.extend(k.record(number, result).batch);
        }
        (k, batches)
    }

    /// The bracket for people: each round's matches, then the winner.
    pub fn text(&self, names: &[String]) -> String {
        let mut s = String::new();
        for round in 1..=self.round {
            s.push_str(&format!("knockout round {round} of {}:\n", self.rounds));
            for m in self.matches.iter().filter(|m| m.round == round) {
                s.push_str(&format!("  {}\n", m.describe(names)));
            }
        }
        if let Some(c) = self.champion() {
            s.push_str(&format!(
                "knockout winner: {}\n",
                names.get(c).map_or("?", String::as_str)
            ));
        }
        s
    }

    /// The bracket as JSON, for standings.json: the matches with the players' names.
    pub fn json(&self, names: &[String]) -> serde_json::Value {
        let name = |i: usize| names.get(i).cloned().unwrap_or_default();
        let matches: Vec<serde_json::Value> = self
            .matches
            .iter()
            .map(|m| {
                serde_json::json!({
                    "round": m.round,
                    "first": name(m.first),
                    "second": m.second.map(name),
                    "points": m.half.map(|h| f64::from(h) / 2.0),
                    "games": m.games,
                    "tiebreak_pairs": m.tiebreaks,
                    "winner": m.winner.map(name),
                    "by_seed": m.by_seed,
                })
            })
            .collect();
        serde_json::json!({
            "rounds": self.rounds,
            "matches": matches,
            "winner": self.champion().map(name),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use GameResult::{BlackWins, Draw, WhiteWins};

    /// The result in which `winner` wins game `spec`.
    fn win_for(spec: &GameSpec, winner: usize) -> GameResult {
        if spec.white == winner {
            WhiteWins
        } else {
            BlackWins
        }
    }

    /// Plays every game as it comes, the better seed (lower index) winning, unless
    /// `result` says otherwise; returns the knockout and its batches.
    fn play(
        players: usize,
        games: u32,
        mut result: impl FnMut(&GameSpec) -> Option<GameResult>,
    ) -> (Knockout, Vec<Batch>) {
        let mut k = Knockout::new(players, games, 0);
        let mut queue: std::collections::VecDeque<GameSpec> = Default::default();
        let mut batches = Vec::new();
        let first = k.start().batch.unwrap();
        queue.extend(first.games.iter().cloned());
        batches.push(first);
        while let Some(spec) = queue.pop_front() {
            let r = result(&spec).unwrap_or_else(|| win_for(&spec, spec.white.min(spec.black)));
            if let Some(batch) = k.record(spec.number, Some(r)).batch {
                queue.extend(batch.games.iter().cloned());
                batches.push(batch);
            }
        }
        (k, batches)
    }

    #[test]
    fn the_bracket_keeps_the_best_seeds_apart() {
        assert_eq!(bracket(1), [1]);
        assert_eq!(bracket(2), [1, 2]);
        assert_eq!(bracket(4), [1, 4, 2, 3]);
        assert_eq!(bracket(8), [1, 8, 4, 5, 2, 7, 3, 6]);
    }

    #[test]
    fn eight_players_play_three_rounds_and_the_first_seed_wins() {
        let (k, batches) = play(8, 2, |_| None);
        assert_eq!(k.rounds(), 3);
        assert_eq!(k.champion(), Some(0));
        assert!(k.over());
        // Round 1: 1 v 8, 4 v 5, 2 v 7, 3 v 6 (indices from 0), the better seed White
        // first, the colours alternating.
        let first: Vec<(usize, usize)> = batches[0]
            .games
            .iter()
            .map(|g| (g.white, g.black))
            .collect();
        assert_eq!(
            first,
            [
                (0, 7),
                (7, 0),
                (3, 4),
                (4, 3),
                (1, 6),
                (6, 1),
                (2, 5),
                (5, 2)
            ]
        );
        // Round 2: the winners of neighbouring matches; the final: seeds 1 and 2.
        let pairs = |b: &Batch| -> Vec<(usize, usize)> {
            b.games
                .iter()
                .step_by(2)
                .map(|g| (g.white, g.black))
                .collect()
        };
        assert_eq!(pairs(&batches[1]), [(0, 3), (1, 2)]);
        assert_eq!(pairs(&batches[2]), [(0, 1)]);
        assert_eq!(batches.len(), 3);
        let total = k.games().len();
        assert_eq!(total, Knockout::games_without_tiebreaks(8, 2));
        let numbers: Vec<u32> = k.games().iter().map(|g| g.number).collect();
        assert_eq!(numbers, (1..=total as u32).collect::<Vec<_>>());
        assert!(k.games().iter().all(|g| g.round >= 1 && g.round <= 3));
        let text = k.text(&["A", "B", "C", "D", "E", "F", "G", "H"].map(String::from));
        assert!(
            text.starts_with("knockout round 1 of 3:\n  A - H 2-0: A goes on\n"),
            "{text}"
        );
        assert!(text.ends_with("knockout winner: A\n"), "{text}");
    }

    #[test]
    fn the_best_seeds_have_byes_when_the_players_are_not_a_power_of_two() {
        // Five players: a bracket of eight, seeds 1, 2 and 3 rest in round 1; 4 v 5
        // plays.
        let mut k = Knockout::new(5, 2, 0);
        let step = k.start();
        let byes: Vec<usize> = step.decided.iter().map(|m| m.first).collect();
        assert_eq!(byes, [0, 1, 2]);
        let batch = step.batch.unwrap();
        assert_eq!(
            batch.kind,
            BatchKind::Round {
                byes: vec![0, 1, 2]
            }
        );
        assert_eq!(batch.games.len(), 2);
        assert_eq!((batch.games[0].white, batch.games[0].black), (3, 4));
        // Seed 5 wins: round 2 is 1 v 5 and 2 v 3.
        k.record(1, Some(BlackWins));
        let step = k.record(2, Some(WhiteWins));
        assert_eq!(step.decided[0].winner, Some(4));
        let next = step.batch.unwrap();
        assert_eq!(next.round, 2);
        let pairs: Vec<(usize, usize)> = next
            .games
            .iter()
            .step_by(2)
            .map(|g| (g.white, g.black))
            .collect();
        assert_eq!(pairs, [(0, 4), (1, 2)]);
        assert_eq!(next.games[0].number, 3);
        // Three players: seed 1 rests, then meets the winner of 2 v 3.
        let (k, _) = play(3, 2, |_| None);
        assert_eq!(k.games().len(), 4);
        assert_eq!(k.champion(), Some(0));
    }

    #[test]
    fn a_level_match_plays_tie_break_pairs_then_goes_to_the_better_seed() {
        // Two players, two games drawn: a tie-break pair, White first for the better
        // seed (each had White once), on an opening of its own.
        let mut k = Knockout::new(2, 2, 10);
        let first = k.start().batch.unwrap();
        assert_eq!(
            first.games.iter().map(|g| g.opening).collect::<Vec<_>>(),
            [Some(0), Some(0)]
        );
        assert!(k.record(1, Some(Draw)).batch.is_none());
        let step = k.record(2, Some(Draw));
        assert!(step.decided.is_empty());
        let tb = step.batch.unwrap();
        assert_eq!(
            tb.kind,
            BatchKind::Tiebreak {
                first: 0,
                second: 1
            }
        );
        let colours: Vec<(usize, usize, u32, Option<usize>)> = tb
            .games
            .iter()
            .map(|g| (g.white, g.black, g.number, g.opening))
            .collect();
        assert_eq!(colours, [(0, 1, 3, Some(1)), (1, 0, 4, Some(1))]);
        // The second player wins the tie-break pair's first game and draws the other.
        k.record(3, Some(BlackWins));
        let step = k.record(4, Some(Draw));
        let m = &step.decided[0];
        assert_eq!(
            (m.winner, m.half, m.tiebreaks, m.by_seed),
            (Some(1), [3, 5], 1, false)
        );
        assert!(step.batch.is_none());
        assert_eq!(k.champion(), Some(1));
        assert_eq!(
            m.describe(&["Ann".into(), "Bob".into()]),
            "Ann - Bob 1.5-2.5: Bob goes on after a tie-break pair"
        );
        // Every game drawn: three tie-break pairs, then the better seed.
        let (k, batches) = play(2, 2, |_| Some(Draw));
        assert_eq!(batches.len(), 1 + MAX_TIEBREAKS as usize);
        assert_eq!(k.games().len(), 2 + 2 * MAX_TIEBREAKS as usize);
        let m = &k.matches()[0];
        assert_eq!((m.winner, m.by_seed), (Some(0), true));
        assert!(
            m.describe(&["Ann".into(), "Bob".into()])
                .ends_with("Ann goes on as the better seed after 3 tie-break pairs")
        );
    }

    #[test]
    fn an_odd_match_gives_the_tie_break_white_to_the_other_player_first() {
        let mut k = Knockout::new(2, 1, 0);
        k.start();
        let tb = k.record(1, Some(Draw)).batch.unwrap();
        assert_eq!((tb.games[0].white, tb.games[1].white), (1, 0));
    }

    #[test]
    fn games_without_a_result_score_nothing() {
        // Player 1's games cannot be played: level at 0-0, tie-breaks, then the seed.
        let (k, _) = play(2, 2, |_| Some(GameResult::Unknown));
        assert_eq!(k.champion(), Some(0));
        assert!(k.matches()[0].by_seed);
    }

    #[test]
    fn replaying_the_results_in_their_order_gives_the_same_knockout() {
        // Six players, some matches level: the results in the order they came, with
        // games of different matches interleaved.
        let mut k = Knockout::new(6, 2, 4);
        let mut batches: Vec<Batch> = k.start().batch.into_iter().collect();
        let mut results = Vec::new();
        let mut pending: Vec<GameSpec> = batches[0].games.clone();
        let mut turn = 0;
        // The last game waiting ends first: a different order from the numbers.
        while let Some(spec) = pending.pop() {
            turn += 1;
            let result = if turn % 3 == 0 {
                Some(Draw)
            } else if turn % 7 == 0 {
                None
            } else {
                Some(win_for(&spec, spec.black))
            };
            results.push((spec.number, result));
            if let Some(batch) = k.record(spec.number, result).batch {
                pending.extend(batch.games.iter().cloned());
                batches.push(batch);
            }
        }
        assert!(k.over());
        let (again, again_batches) = Knockout::replay(6, 2, 4, results.clone());
        assert_eq!(again_batches, batches);
        assert_eq!(again.games(), k.games());
        assert_eq!(again.champion(), k.champion());
        // A game counted twice counts once.
        let (twice, _) = Knockout::replay(
            6,
            2,
            4,
            results.iter().flat_map(|&r| [r, r]).collect::<Vec<_>>(),
        );
        assert_eq!(twice.games(), k.games());
    }
}
