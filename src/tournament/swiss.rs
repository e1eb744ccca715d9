//! Swiss pairings: each round pairs players with equal or near scores, never a pair
//! that has met before, and balances the colours.
//!
//! The method is the plain one club arbiters use by hand (not FIDE's full Dutch
//! system): players are ranked by score, then by their place in the list; from the top,
//! each unpaired player meets the highest-ranked unpaired player it has not met, with a
//! search that backs up when a choice leaves the rest unpairable, so that no pairing
//! repeats while any other way exists. With an odd number of players the lowest-ranked
//! player without a bye yet rests and scores a point. The player who has had White less
//! often (then the one who had Black last) gets White.

/// What the pairing of a round needs to know.
#[derive(Clone, Debug, Default)]
pub struct SwissHistory {
    /// Each player's score in half-points.
    pub half_points: Vec<u32>,
    /// Each player's colours so far, in order: `true` for White.
    pub colours: Vec<Vec<bool>>,
    /// The pairs that have met (either colour).
    pub met: Vec<(usize, usize)>,
    /// The players who have had a bye.
    pub byes: Vec<usize>,
}

impl SwissHistory {
    /// The history of `players` players before the first round.
    pub fn new(players: usize) -> SwissHistory {
        SwissHistory {
            half_points: vec![0; players],
            colours: vec![Vec::new(); players],
            met: Vec::new(),
            byes: Vec::new(),
        }
    }

    fn have_met(&self, a: usize, b: usize) -> bool {
        self.met
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    }

    /// The colour player `p` must have next, if any: the other one after two of the
    /// same in a row, or when its balance is two.
    fn due(&self, p: usize) -> Option<bool> {
        let c = &self.colours[p];
        let balance = self.balance(p);
        if balance >= 2 {
            return Some(false);
        }
        if balance <= -2 {
            return Some(true);
        }
        match c.as_slice() {
            [.., x, y] if x == y => Some(!y),
            _ => None,
        }
    }

    /// White's games minus Black's.
    fn balance(&self, p: usize) -> i32 {
        self.colours[p]
            .iter()
            .map(|&w| if w { 1 } else { -1 })
            .sum()
    }
}

/// A round's pairings, White first, and the player with the bye (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissRound {
    /// The pairs, White first, best-ranked pair first.
    pub pairs: Vec<(usize, usize)>,
    /// The player who rests this round.
    pub bye: Option<usize>,
}

/// Pairs the next round.
pub fn pair_round(history: &SwissHistory) -> SwissRound {
    let n = history.half_points.len();
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by(|&a, &b| {
        history.half_points[b]
            .cmp(&history.half_points[a])
            .then(a.cmp(&b))
    });
    let bye = (n % 2 == 1).then(|| {
        let pick = ranked
            .iter()
            .rev()
            .copied()
            .find(|p| !history.byes.contains(p))
            .unwrap_or(ranked[n - 1]);
        ranked.retain(|&p| p != pick);
        pick
    });
    // Without repeats, and without giving a player the colour it had twice before (or
    // a colour balance of three), if possible; then without repeats only; if every way
    // repeats a pairing (a long event of few players), the ranking order alone.
    let pairs = pair_without_repeats(&ranked, history, true)
        .or_else(|| pair_without_repeats(&ranked, history, false))
        .unwrap_or_else(|| ranked.chunks(2).map(|c| (c[0], c[1])).collect());
    let pairs = pairs
        .into_iter()
        .map(|(a, b)| colours(history, a, b))
        .collect();
    SwissRound { pairs, bye }
}

/// Pairs `left` (ranked) top-down, each with the best-ranked player it has not met,
/// backing up when the rest cannot be paired.
fn pair_without_repeats(
    left: &[usize],
    history: &SwissHistory,
    mind_colours: bool,
) -> Option<Vec<(usize, usize)>> {
    let Some((&top, rest)) = left.split_first() else {
        return Some(Vec::new());
    };
    for (i, &other) in rest.iter().enumerate() {
        if history.have_met(top, other) {
            continue;
        }
        if mind_colours
            && let (Some(x), Some(y)) = (history.due(top), history.due(other))
            && x == y
        {
            // Both must have the same colour.
            continue;
        }
        let remaining: Vec<usize> = rest
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &p)| p)
            .collect();
        if let Some(mut pairs) = pair_without_repeats(&remaining, history, mind_colours) {
            pairs.insert(0, (top, other));
            return Some(pairs);
        }
    }
    None
}

/// Who of `a` (better ranked) and `b` gets White.
fn colours(history: &SwissHistory, a: usize, b: usize) -> (usize, usize) {
    match (history.due(a), history.due(b)) {
        (Some(true), _) | (_, Some(false)) => return (a, b),
        (Some(false), _) | (_, Some(true)) => return (b, a),
        _ => {}
    }
    let (ba, bb) = (history.balance(a), history.balance(b));
    if ba != bb {
        return if ba < bb { (a, b) } else { (b, a) };
    }
    match (history.colours[a].last(), history.colours[b].last()) {
        (Some(true), Some(false)) => (b, a),
        (Some(false), Some(true)) => (a, b),
        // The better-ranked player alternates from its last game, or takes White.
        (Some(&last), _) => {
            if last {
                (b, a)
            } else {
                (a, b)
            }
        }
        _ => (a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `rounds` rounds where the lower-numbered player of each pair wins.
    fn run(players: usize, rounds: usize) -> (SwissHistory, Vec<SwissRound>) {
        let mut h = SwissHistory::new(players);
        let mut out = Vec::new();
        for _ in 0..rounds {
            let round = pair_round(&h);
            for &(w, b) in &round.pairs {
                h.met.push((w, b));
                h.colours[w].push(true);
                h.colours[b].push(false);
                h.half_points[w.min(b)] += 2;
            }
            if let Some(p) = round.bye {
                h.byes.push(p);
                h.half_points[p] += 2;
            }
            out.push(round);
        }
        (h, out)
    }

    #[test]
    fn no_pairing_repeats_and_everybody_plays_each_round() {
        for players in 2..=12usize {
            // A Swiss has fewer rounds than a round-robin: here half as many.
            let rounds = players.div_ceil(2);
            let (h, played) = run(players, rounds);
            let mut seen = std::collections::HashSet::new();
            for &(a, b) in &h.met {
                assert!(
                    seen.insert((a.min(b), a.max(b))),
                    "{players}: {a}-{b} twice"
                );
            }
            for round in &played {
                let mut in_round: Vec<usize> =
                    round.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
                in_round.extend(round.bye);
                in_round.sort_unstable();
                assert_eq!(in_round, (0..players).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn leaders_meet_and_colours_stay_balanced() {
        let (h, played) = run(8, 3);
        // After two rounds 0 has won twice, and so has the other winner of round 2.
        let third = &played[2].pairs[0];
        assert!(third.0 == 0 || third.1 == 0, "{played:?}");
        for p in 0..8 {
            let c = &h.colours[p];
            assert!(h.balance(p).abs() <= 2, "player {p}: {c:?}");
            assert!(
                !c.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                "player {p}: {c:?}"
            );
        }
    }

    #[test]
    fn a_bye_goes_to_the_lowest_ranked_once() {
        let (h, played) = run(5, 5);
        let mut byes = h.byes.clone();
        byes.sort_unstable();
        byes.dedup();
        assert_eq!(byes.len(), 5, "{played:?}");
        assert_eq!(played[0].bye, Some(4));
    }
}
