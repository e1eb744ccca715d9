//! Tournaments, as pure logic like the referee core: who plays whom with which colour
//! and opening ([`schedule`]), and the standings that results make ([`Standings`]).
//! Nothing here does I/O or reads a clock; `argus serve` drives it.

mod adjudication;
mod knockout;
pub mod rating;
mod sprt;
mod standings;
mod swiss;

pub use adjudication::{AdjudicationRules, Adjudicator, DrawAdjudication, ResignRule, Verdict};
pub use knockout::{Batch, BatchKind, Knockout, MAX_TIEBREAKS, Match, Step};
pub use sprt::{Sprt, SprtConfig, SprtDecision, SprtModel};
pub use standings::{EloEstimate, Failure, Failures, PlayerLine, Standings, TimeTotals};
pub use swiss::{SwissHistory, SwissRound, pair_round};

use serde::Serialize;

/// How players are paired.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every player meets every other.
    RoundRobin,
    /// The first player meets each of the others.
    Gauntlet,
    /// Each round pairs players of equal or near scores, never twice the same pair
    /// (`--rounds N`).
    Swiss,
    /// Players meet in a bracket by seed (their order); each match's winner goes on
    /// until one is left; a level match plays tie-break pairs.
    Knockout,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
            Format::Swiss => "swiss",
            Format::Knockout => "knockout",
        })
    }
}

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct GameSpec {
    /// The game's number in the event, from 1.
    pub number: u32,
    /// The round, from 1.
    pub round: u32,
    /// The White player (an index into the event's players).
    pub white: usize,
    /// The Black player.
    pub black: usize,
    /// The opening (an index into the event's openings), when there are openings.
    pub opening: Option<usize>,
    /// The game's encounter in its round, from 1, when the round holds more than one:
    /// the games of an encounter share an opening (`repeat` games in a row, the
    /// colours alternating), and the encounters of a round are numbered through its
    /// pairings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encounter: Option<u32>,
}

impl GameSpec {
    /// The PGN Round tag: the round, and the encounter in it when the round holds more
    /// than one (`2.3`: round 2, its third encounter), so that games of different
    /// encounters have different rounds and the games of one encounter the same.
    pub fn round_tag(&self) -> String {
        match self.encounter {
            Some(e) => format!("{}.{e}", self.round),
            None => self.round.to_string(),
        }
    }
}

/// How many openings an event's games take, at most: one per encounter of a pairing,
/// round after round (every pairing of a round takes the same ones).
pub fn openings_used(rounds: u32, games: u32, repeat: u32) -> usize {
    rounds as usize * games.div_ceil(repeat.max(1)) as usize
}

/// The opening and encounter of game `g` (from 0) of the `k`th of `pairings` pairings
/// of round `round`, each playing `games` games, each opening `repeat` times.
fn opening_and_encounter(
    round: u32,
    k: usize,
    pairings: usize,
    g: u32,
    games: u32,
    openings: usize,
    repeat: u32,
) -> (Option<usize>, Option<u32>) {
    let repeat = repeat.max(1);
    let per_pairing = games.div_ceil(repeat);
    let opening = (openings > 0).then(|| {
        let first = (round - 1) * per_pairing;
        (first + g / repeat) as usize % openings
    });
    let in_round = pairings as u32 * per_pairing;
    let encounter = (in_round > 1).then(|| k as u32 * per_pairing + g / repeat + 1);
    (opening, encounter)
}

/// Who has White in each game of a pairing.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Colours {
    /// argus's: the colours alternate within a pairing and from one round to the next
    /// ([`schedule`]).
    #[default]
    Alternate,
    /// fastchess's and cutechess-cli's: the pairing's first player has White in the
    /// odd-numbered games, Black in the even ones.
    FirstWhiteInOdd,
    /// The same reversed (`-reverse`).
    FirstBlackInOdd,
    /// The pairing's first player has White in every game (`-noswap`).
    FirstWhite,
    /// And Black in every game (`-noswap -reverse`).
    FirstBlack,
}

impl Colours {
    /// `games` (numbered from 1) with their colours given by `self`, the first player of
    /// each pairing being the one listed first.
    pub fn apply(self, games: &mut [GameSpec]) {
        if self == Colours::Alternate {
            return;
        }
        for g in games {
            let (first, second) = (g.white.min(g.black), g.white.max(g.black));
            let first_white = match self {
                Colours::FirstWhiteInOdd => g.number % 2 == 1,
                Colours::FirstBlackInOdd => g.number % 2 == 0,
                Colours::FirstWhite => true,
                Colours::FirstBlack | Colours::Alternate => false,
            };
            (g.white, g.black) = if first_white {
                (first, second)
            } else {
                (second, first)
            };
        }
    }

    /// Whether it is argus's own (for `skip_serializing_if`).
    pub fn is_alternate(&self) -> bool {
        *self == Colours::Alternate
    }
}

/// The games of an event, in the order they are started.
///
/// Each round pairs the players as `format` says; each pairing plays `games` games with
/// the colours alternating, and `repeat` consecutive games of a pairing share an
/// opening (with 2, the default of `argus serve`, games 1 and 2 the first opening with
/// the colours swapped, 3 and 4 the next, so that neither player gets the better side
/// of a position twice): those games are an encounter. Round `r` goes on through the
/// openings where round `r - 1` stopped. In a round-robin the pairings of a round are
/// ordered by the circle method, so that nobody plays twice before everybody has played
/// once.
///
/// # Examples
///
/// ```
/// use argus::tournament::{schedule, Format};
/// let games = schedule(3, Format::RoundRobin, 1, 2, 0, 2);
/// assert_eq!(games.len(), 6);
/// assert_eq!((games[0].white, games[0].black), (games[1].black, games[1].white));
/// // Three pairings in the round, an encounter each: rounds 1.1, 1.1, 1.2, ...
/// assert_eq!(games[1].round_tag(), "1.1");
/// assert_eq!(games[2].round_tag(), "1.2");
/// ```
pub fn schedule(
    players: usize,
    format: Format,
    rounds: u32,
    games: u32,
    openings: usize,
    repeat: u32,
) -> Vec<GameSpec> {
    schedule_seeded(players, 1, format, rounds, games, openings, repeat)
}

/// [`schedule`], a gauntlet's first `seeds` players each meeting all the others
/// (fastchess's and cutechess-cli's `-seeds`; 1 is [`schedule`]'s).
pub fn schedule_seeded(
    players: usize,
    seeds: usize,
    format: Format,
    rounds: u32,
    games: u32,
    openings: usize,
    repeat: u32,
) -> Vec<GameSpec> {
    let seeds = seeds.clamp(1, players.max(1));
    let pairings = match format {
        Format::RoundRobin => circle_pairings(players),
        Format::Gauntlet => (0..seeds)
            .flat_map(|seed| (seeds..players).map(move |other| (seed, other)))
            .collect(),
        // A Swiss round is paired from the results before it: see [`swiss_games`].
        Format::Swiss => return Vec::new(),
        // A knockout's rounds come from the results too: see [`Knockout`].
        Format::Knockout => return Vec::new(),
    };
    let mut out = Vec::new();
    for round in 1..=rounds {
        for (k, &(a, b)) in pairings.iter().enumerate() {
            for g in 0..games {
                // The colours alternate within a pairing, and from one round to the
                // next, so that an odd number of games per pairing still evens out.
                let swap = (g + round - 1 + k as u32) % 2 == 1;
                let (white, black) = if swap { (b, a) } else { (a, b) };
                let (opening, encounter) =
                    opening_and_encounter(round, k, pairings.len(), g, games, openings, repeat);
                out.push(GameSpec {
                    number: out.len() as u32 + 1,
                    round,
                    white,
                    black,
                    opening,
                    encounter,
                });
            }
        }
    }
    out
}

/// The games of Swiss round `round` for its `pairs` (White first), numbered from
/// `first_number`: each pair plays `games` games, the colours alternating from the
/// pairing's, each opening `repeat` times in a row, going on through the openings where
/// the round before stopped.
pub fn swiss_games(
    round: u32,
    pairs: &[(usize, usize)],
    games: u32,
    openings: usize,
    repeat: u32,
    first_number: u32,
) -> Vec<GameSpec> {
    let mut out = Vec::new();
    for (k, &(a, b)) in pairs.iter().enumerate() {
        for g in 0..games {
            let (white, black) = if g % 2 == 1 { (b, a) } else { (a, b) };
            let (opening, encounter) =
                opening_and_encounter(round, k, pairs.len(), g, games, openings, repeat);
            out.push(GameSpec {
                number: first_number + out.len() as u32,
                round,
                white,
                black,
                opening,
                encounter,
            });
        }
    }
    out
}

/// Every pair of `n` players once, by the circle method: one player stays, the others
/// turn, and each turn is a set of pairings in which everybody plays at most once.
fn circle_pairings(n: usize) -> Vec<(usize, usize)> {
    if n < 2 {
        return Vec::new();
    }
    // With an odd number of players, a ghost makes it even; its opponent rests.
    let m = if n.is_multiple_of(2) { n } else { n + 1 };
    let mut ring: Vec<usize> = (0..m).collect();
    let mut out = Vec::new();
    for turn in 0..m - 1 {
        for i in 0..m / 2 {
            let (a, b) = (ring[i], ring[m - 1 - i]);
            if a < n && b < n {
                // Alternate who is named first (who has White first) from turn to turn.
                out.push(if (turn + i) % 2 == 0 { (a, b) } else { (b, a) });
            }
        }
        ring[1..].rotate_right(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gauntlet_of_two_seeds_meets_every_other_player() {
        let games = schedule_seeded(5, 2, Format::Gauntlet, 1, 2, 0, 2);
        let pairs: Vec<(usize, usize)> = games
            .iter()
            .step_by(2)
            .map(|g| (g.white.min(g.black), g.white.max(g.black)))
            .collect();
        assert_eq!(pairs, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]);
        assert_eq!(
            schedule_seeded(4, 1, Format::Gauntlet, 1, 2, 0, 2).len(),
            schedule(4, Format::Gauntlet, 1, 2, 0, 2).len()
        );
    }

    #[test]
    fn other_programs_colours_follow_the_game_numbers() {
        let mut games = schedule(2, Format::RoundRobin, 2, 2, 0, 2);
        Colours::FirstWhiteInOdd.apply(&mut games);
        let whites: Vec<usize> = games.iter().map(|g| g.white).collect();
        assert_eq!(whites, [0, 1, 0, 1]);
        Colours::FirstBlack.apply(&mut games);
        assert!(games.iter().all(|g| g.white == 1 && g.black == 0));
        // argus's own alternation moves the first White from round to round.
        let own = schedule(2, Format::RoundRobin, 2, 2, 0, 2);
        let whites: Vec<usize> = own.iter().map(|g| g.white).collect();
        assert_eq!(whites, [0, 1, 1, 0]);
    }
    use std::collections::BTreeMap;

    #[test]
    fn a_round_robin_pairs_everybody_once_and_balances_the_colours() {
        for n in 2..=9 {
            let games = schedule(n, Format::RoundRobin, 1, 2, 0, 2);
            assert_eq!(games.len(), n * (n - 1), "{n} players");
            let mut met = BTreeMap::new();
            let mut whites = vec![0; n];
            for g in &games {
                assert_ne!(g.white, g.black);
                *met.entry((g.white.min(g.black), g.white.max(g.black)))
                    .or_insert(0) += 1;
                whites[g.white] += 1;
            }
            assert_eq!(met.len(), n * (n - 1) / 2);
            assert!(met.values().all(|&c| c == 2));
            assert!(whites.iter().all(|&w| w == n - 1), "{whites:?}");
            let numbers: Vec<u32> = games.iter().map(|g| g.number).collect();
            assert_eq!(numbers, (1..=games.len() as u32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn in_a_round_robin_turn_nobody_plays_twice() {
        let pairings = circle_pairings(6);
        for turn in pairings.chunks(3) {
            let mut seen: Vec<usize> = turn.iter().flat_map(|&(a, b)| [a, b]).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 6, "{turn:?}");
        }
    }

    #[test]
    fn a_gauntlet_meets_the_first_player_with_each_other() {
        let games = schedule(4, Format::Gauntlet, 2, 2, 0, 2);
        assert_eq!(games.len(), 12);
        assert!(games.iter().all(|g| g.white == 0 || g.black == 0));
        assert_eq!(games.iter().filter(|g| g.white == 0).count(), 6);
        assert_eq!(games.last().unwrap().round, 2);
    }

    #[test]
    fn each_opening_is_played_twice_with_the_colours_swapped() {
        let games = schedule(2, Format::RoundRobin, 3, 4, 5, 2);
        let openings: Vec<Option<usize>> = games.iter().map(|g| g.opening).collect();
        assert_eq!(
            openings,
            [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 0].map(Some).to_vec()
        );
        for pair in games.chunks(2) {
            assert_eq!(pair[0].white, pair[1].black);
        }
    }

    #[test]
    fn repeat_one_gives_each_game_its_own_opening() {
        let games = schedule(2, Format::RoundRobin, 2, 3, 10, 1);
        let openings: Vec<Option<usize>> = games.iter().map(|g| g.opening).collect();
        assert_eq!(openings, [0, 1, 2, 3, 4, 5].map(Some).to_vec());
        // The colours still alternate.
        assert_eq!(games[0].white, games[1].black);
        assert_eq!(openings_used(2, 3, 1), 6);
        assert_eq!(openings_used(3, 4, 2), 6);
        assert_eq!(openings_used(1, 3, 2), 2);
    }

    /// The PGN Round tag: the games of an encounter (an opening with the colours
    /// swapped) share it, games of different encounters have different ones.
    #[test]
    fn each_encounter_of_a_round_has_its_own_round_tag() {
        let tags = |games: &[GameSpec]| games.iter().map(GameSpec::round_tag).collect::<Vec<_>>();
        // Two players, four games: two encounters in the round.
        let games = schedule(2, Format::RoundRobin, 1, 4, 0, 2);
        assert_eq!(tags(&games), ["1.1", "1.1", "1.2", "1.2"]);
        // One encounter a round: the round alone.
        let games = schedule(2, Format::RoundRobin, 3, 2, 0, 2);
        assert_eq!(tags(&games), ["1", "1", "2", "2", "3", "3"]);
        // Each game an encounter of its own.
        let games = schedule(2, Format::RoundRobin, 1, 3, 0, 1);
        assert_eq!(tags(&games), ["1.1", "1.2", "1.3"]);
        // A round-robin of three: an encounter per pairing, numbered through the round.
        let games = schedule(3, Format::RoundRobin, 2, 2, 0, 2);
        assert_eq!(
            tags(&games),
            [
                "1.1", "1.1", "1.2", "1.2", "1.3", "1.3", "2.1", "2.1", "2.2", "2.2", "2.3", "2.3"
            ]
        );
        // An odd number of games: the last encounter of a pairing is one game.
        let games = schedule(2, Format::Gauntlet, 1, 3, 0, 2);
        assert_eq!(tags(&games), ["1.1", "1.1", "1.2"]);
        let swiss = swiss_games(4, &[(0, 1), (2, 3)], 2, 0, 2, 9);
        assert_eq!(tags(&swiss), ["4.1", "4.1", "4.2", "4.2"]);
        assert_eq!(swiss[0].number, 9);
        let one = swiss_games(2, &[(0, 1)], 2, 0, 2, 1);
        assert_eq!(tags(&one), ["2", "2"]);
    }

    #[test]
    fn fewer_than_two_players_make_no_games() {
        assert!(schedule(1, Format::RoundRobin, 3, 2, 0, 2).is_empty());
        assert!(schedule(0, Format::Gauntlet, 3, 2, 0, 2).is_empty());
    }
}
