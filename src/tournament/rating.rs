//! The ratings engine testers read while a match runs (cutechess-cli's
//! `-ratinginterval`, fastchess's report), from the results as data.
//!
//! For each player, from its wins, draws and losses against the field (the trinomial
//! model, as cutechess-cli and fastchess compute it):
//! - the score `p = (W + D/2) / n` and the Elo difference it stands for,
//!   `-400 log10(1/p - 1)`, with the 95 % interval of `p ± 1.96 σ/√n` (σ² the variance
//!   of one game's score) turned into Elo the same way ([`Standings::elo`]);
//! - the likelihood of superiority, `LOS = Φ((W - L) / √(W + L))` (the chance that the
//!   player is the stronger, from its decisive games: cutechess-cli's formula);
//! - the draw ratio, `D / n`.
//!
//! For a match of two players whose games come in pairs (each opening played twice with
//! the colours swapped), the pentanomial counts of the pairs, by the first player's
//! score in the pair: `[LL, LD, DD/WL, WD, WW]` (0, ½, 1, 1½, 2), and from them, with
//! `s` the mean pair score (as a fraction, 0 to 1) and `v` its variance per pair over
//! `N` pairs (fastchess's pentanomial model, fishtest's normalized Elo):
//! - the Elo difference of `s` with the interval of `s ± 1.96 √(v/N)`;
//! - the normalized Elo `nElo = (s - ½) / √(2v) · 800 / ln 10` (the score's distance
//!   from even in standard deviations of a game's score, scaled so that it reads like
//!   Elo near zero), with the interval of the same `s ± 1.96 √(v/N)`, which is
//!   `± 1.96 · 800 / ln 10 / √(2N)`;
//! - `LOS = Φ((s - ½) / √(v/N))`.
//!
//! Pairs absorb the colour and the opening, so their spread is the better measure of a
//! match's uncertainty (the pentanomial interval is narrower when openings are
//! unbalanced).

use std::collections::HashMap;

use serde::Serialize;

use super::standings::{EloEstimate, Standings, Z95, elo_of};

/// The error function, by Abramowitz and Stegun's 7.1.26 (absolute error below
/// 1.5e-7, plenty for a percentage).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

/// The standard normal distribution function Φ.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2))
}

/// The likelihood of superiority from the decisive games: `Φ((W - L) / √(W + L))`;
/// None without a decisive game.
pub fn los(wins: u32, losses: u32) -> Option<f64> {
    let decisive = f64::from(wins + losses);
    (decisive > 0.0).then(|| normal_cdf((f64::from(wins) - f64::from(losses)) / decisive.sqrt()))
}

/// Normalized Elo per unit of a score's t-value: `800 / ln 10`.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// One player's figures against the field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    /// Its place in the standings, from 1.
    pub rank: usize,
    /// The player.
    pub name: String,
    /// Games with a result.
    pub games: u32,
    /// Its score in those games (without byes), 0 to 1; None before its first game.
    pub score: Option<f64>,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// The Elo difference of its score, with its 95 % interval.
    pub elo: EloEstimate,
    /// The likelihood of superiority, 0 to 1.
    pub los: Option<f64>,
    /// The share of its games drawn, 0 to 1.
    pub draw_ratio: Option<f64>,
}

/// A normalized Elo with its 95 % interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NormalizedElo {
    /// The normalized Elo.
    pub nelo: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

/// The game pairs of a two-player match: the pentanomial counts and what they say.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairRating {
    /// The first player, whose score the pairs count.
    pub first: String,
    /// The second.
    pub second: String,
    /// Pairs scoring 0, ½, 1, 1½, 2 for the first player: `[LL, LD, DD/WL, WD, WW]`.
    pub pentanomial: [u32; 5],
    /// Finished pairs.
    pub pairs: u32,
    /// The first player's mean pair score, 0 to 1 (None before the first pair).
    pub score: Option<f64>,
    /// Its Elo difference, with the interval of the pairs' spread.
    pub elo: EloEstimate,
    /// The normalized Elo (None until the pairs differ).
    pub nelo: Option<NormalizedElo>,
    /// The likelihood of superiority from the pairs (None until the pairs differ).
    pub los: Option<f64>,
}

impl PairRating {
    /// The figures of `pentanomial`, the first player's pairs against the second's.
    pub fn new(first: &str, second: &str, pentanomial: [u32; 5]) -> PairRating {
        let pairs: u32 = pentanomial.iter().sum();
        let mut out = PairRating {
            first: first.to_string(),
            second: second.to_string(),
            pentanomial,
            pairs,
            score: None,
            elo: EloEstimate {
                elo: None,
                low: None,
                high: None,
            },
            nelo: None,
            los: None,
        };
        if pairs == 0 {
            return out;
        }
        let n = f64::from(pairs);
        let value = |i: usize| i as f64 / 4.0;
        let score: f64 = (0..5)
            .map(|i| f64::from(pentanomial[i]) * value(i))
            .sum::<f64>()
            / n;
        let variance: f64 = (0..5)
            .map(|i| f64::from(pentanomial[i]) * (value(i) - score).powi(2))
            .sum::<f64>()
            / n;
        let margin = Z95 * (variance / n).sqrt();
        out.score = Some(score);
        out.elo = EloEstimate {
            elo: elo_of(score),
            low: elo_of((score - margin).max(0.0)),
            high: elo_of((score + margin).min(1.0)),
        };
        if variance > 0.0 {
            let nelo = |s: f64| (s - 0.5) / (2.0 * variance).sqrt() * NELO_PER_T + 0.0;
            out.nelo = Some(NormalizedElo {
                nelo: nelo(score),
                low: nelo(score - margin),
                high: nelo(score + margin),
            });
            out.los = Some(normal_cdf((score - 0.5) / (variance / n).sqrt()));
        }
        out
    }
}

/// What the ratings say now: each player's figures, in the standings' order, and the
/// pairs of a two-player match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The players, best first.
    pub players: Vec<PlayerRating>,
    /// A two-player match's pairs, when its games come in pairs.
    pub pairs: Option<PairRating>,
}

impl Report {
    /// The ratings of `standings`; `pentanomial`: a two-player match's pairs, counted for
    /// the first player of the standings' list.
    pub fn new(standings: &Standings, pentanomial: Option<[u32; 5]>) -> Report {
        let players: Vec<PlayerRating> = standings
            .table()
            .into_iter()
            .map(|line| {
                let n = f64::from(line.games);
                PlayerRating {
                    rank: line.rank,
                    score: (line.games > 0)
                        .then(|| (f64::from(line.wins) + f64::from(line.draws) / 2.0) / n),
                    los: los(line.wins, line.losses),
                    draw_ratio: (line.games > 0).then(|| f64::from(line.draws) / n),
                    name: line.name,
                    games: line.games,
                    wins: line.wins,
                    draws: line.draws,
                    losses: line.losses,
                    elo: line.elo,
                }
            })
            .collect();
        let pairs = pentanomial.map(|p| {
            let names = standings.names();
            PairRating::new(&names[0], &names[1], p)
        });
        Report { players, pairs }
    }

    /// The report for people: a line per player, and the pairs' figures.
    ///
    /// ```text
    /// rank  name  games   score    W    D    L            Elo (95 %)     LOS  draws
    ///    1  Ann      12   58.3%    5    4    3      +58 [-96, +226]   72.6%  33.3%
    /// pairs of Ann: 6 [LL LD DD/WL WD WW] = [0 1 2 2 1]: Elo +58 [-40, +170], nElo +100 [-96, +296], LOS 80.1%
    /// ```
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let width = self
            .players
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let percent = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>5}  {:>6}  {:>4}  {:>4}  {:>4}  {:>20}  {:>6}  {:>6}",
            "rank", "name", "games", "score", "W", "D", "L", "Elo (95 %)", "LOS", "draws"
        );
        for p in &self.players {
            let _ = writeln!(
                s,
                "{:>4}  {:<width$}  {:>5}  {:>6}  {:>4}  {:>4}  {:>4}  {:>20}  {:>6}  {:>6}",
                p.rank,
                p.name,
                p.games,
                percent(p.score),
                p.wins,
                p.draws,
                p.losses,
                elo_text(&p.elo, p.games, p.score),
                percent(p.los),
                percent(p.draw_ratio),
            );
        }
        if let Some(pairs) = &self.pairs {
            let p = pairs.pentanomial;
            let _ = write!(
                s,
                "pairs of {}: {} [LL LD DD/WL WD WW] = [{} {} {} {} {}]",
                pairs.first, pairs.pairs, p[0], p[1], p[2], p[3], p[4]
            );
            if pairs.pairs > 0 {
                let _ = write!(
                    s,
                    ": Elo {}",
                    elo_text(&pairs.elo, pairs.pairs, pairs.score)
                );
                match &pairs.nelo {
                    Some(n) => {
                        let _ = write!(
                            s,
                            ", nElo {:+.0} [{:+.0}, {:+.0}], LOS {}",
                            n.nelo,
                            n.low,
                            n.high,
                            percent(pairs.los)
                        );
                    }
                    None => s.push_str(", nElo - (the pairs are all alike)"),
                }
            }
            s.push('\n');
        }
        s
    }

    /// The report as JSON, for standings.json.
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// `+58 [-96, +226]`; `+inf` or `-inf` for a score of 1 or 0, `-` before any game.
fn elo_text(elo: &EloEstimate, games: u32, score: Option<f64>) -> String {
    match (elo.elo, score) {
        (Some(e), _) => format!(
            "{e:+.0} [{}, {}]",
            elo.low.map_or("-inf".into(), |v| format!("{v:+.0}")),
            elo.high.map_or("+inf".into(), |v| format!("{v:+.0}"))
        ),
        _ if games == 0 => "-".to_string(),
        (None, Some(s)) if s <= 0.0 => "-inf".to_string(),
        (None, _) => "+inf".to_string(),
    }
}

/// The game pairs of a two-player match as its games end, in any order: games `2k - 1`
/// and `2k` are pair `k` (each opening twice with the colours swapped, as
/// [`super::schedule`] plays them when the games per pairing are even).
#[derive(Clone, Debug, Default)]
pub struct PairCounter {
    /// The first game of each pair whose second is not done: the first player's
    /// half-points in it, by pair number.
    halves: HashMap<u32, u32>,
    pentanomial: [u32; 5],
}

impl PairCounter {
    /// No pairs yet.
    pub fn new() -> PairCounter {
        PairCounter::default()
    }

    /// Counts game `number`, in which the first player scored `half` half-points (0, 1
    /// or 2); returns the pair's half-points for the first player (0 to 4) when this
    /// game completes its pair.
    pub fn record(&mut self, number: u32, half: u32) -> Option<u32> {
        let pair = number.div_ceil(2);
        match self.halves.remove(&pair) {
            Some(first) => {
                let total = (first + half).min(4);
                self.pentanomial[total as usize] += 1;
                Some(total)
            }
            None => {
                self.halves.insert(pair, half);
                None
            }
        }
    }

    /// The pentanomial counts: pairs scoring 0, ½, 1, 1½, 2 for the first player.
    pub fn pentanomial(&self) -> [u32; 5] {
        self.pentanomial
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::GameResult;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() < tolerance
    }

    #[test]
    fn erf_and_the_normal_distribution_at_known_points() {
        for (x, want) in [
            (0.0, 0.0),
            (0.1, 0.112_462_916),
            (0.5, 0.520_499_878),
            (1.0, 0.842_700_793),
            (2.0, 0.995_322_265),
            (-1.0, -0.842_700_793),
        ] {
            assert!(close(erf(x), want, 2e-7), "erf({x}) = {}", erf(x));
        }
        assert!(close(normal_cdf(1.959_964), 0.975, 1e-6));
        assert!(close(normal_cdf(-1.0), 0.158_655_254, 1e-6));
    }

    #[test]
    fn los_from_the_decisive_games() {
        // 62 wins, 54 losses: Φ(8 / √116) = Φ(0.7428) = 77.1 %.
        let l = los(62, 54).unwrap();
        assert!(close(l, 0.771_2, 1e-3), "{l}");
        assert!(close(los(3, 3).unwrap(), 0.5, 1e-8));
        assert_eq!(los(0, 0), None);
        assert!(los(10, 0).unwrap() > 0.999);
    }

    /// A match of `w` wins, `d` draws and `l` losses for A against B.
    fn match_of(w: u32, d: u32, l: u32) -> Standings {
        let mut s = Standings::new(vec!["A".into(), "B".into()]);
        for (count, result) in [
            (w, GameResult::WhiteWins),
            (d, GameResult::Draw),
            (l, GameResult::BlackWins),
        ] {
            for _ in 0..count {
                s.record(0, 1, result);
            }
        }
        s
    }

    #[test]
    fn each_player_has_its_score_elo_los_and_draw_ratio() {
        // Two matches as cutechess-cli reported them: `99 - 97 - 104 [0.503] 300`,
        // `Elo difference: 2.3 +/- 31.8, LOS: 55.7 %, DrawRatio: 34.7 %`, and `45 - 37 -
        // 18 [0.540] 100`, `Elo difference: 27.9 +/- 62.4, LOS: 81.2 %, DrawRatio: 18.0 %`.
        for (w, l, d, score, elo, margin, los, draws) in [
            (99, 97, 104, 0.503, 2.3, 31.8, 0.557, 0.347),
            (45, 37, 18, 0.540, 27.9, 62.4, 0.812, 0.180),
        ] {
            let report = Report::new(&match_of(w, d, l), None);
            let a = &report.players[0];
            assert_eq!((a.name.as_str(), a.games), ("A", w + d + l));
            assert!(close(a.score.unwrap(), score, 5e-4), "{a:?}");
            let e = a.elo.elo.unwrap();
            assert!(close(e, elo, 0.05), "{e}");
            let m = (a.elo.high.unwrap() - a.elo.low.unwrap()) / 2.0;
            assert!(close(m, margin, 0.1), "{m}");
            assert!(close(a.los.unwrap(), los, 5e-4), "{a:?}");
            assert!(close(a.draw_ratio.unwrap(), draws, 5e-4), "{a:?}");
            let b = &report.players[1];
            assert!(close(b.elo.elo.unwrap(), -e, 1e-9));
            assert!(close(b.los.unwrap(), 1.0 - a.los.unwrap(), 1e-9));
            assert_eq!(report.pairs, None);
        }
        let text = Report::new(&match_of(45, 18, 37), None).text();
        assert!(text.starts_with("rank  name  games   score"), "{text}");
        let a_row = text.lines().nth(1).unwrap();
        assert!(a_row.contains("54.0%"), "{text}");
        assert!(a_row.contains("+28 [-34, +91]"), "{text}");
        assert!(a_row.ends_with("81.2%   18.0%"), "{text}");
    }

    #[test]
    fn a_player_without_games_has_dashes() {
        let s = Standings::new(vec!["A".into(), "B".into(), "C".into()]);
        let report = Report::new(&s, None);
        assert_eq!(report.players[0].score, None);
        assert_eq!(report.players[0].los, None);
        let row = report.text().lines().nth(1).unwrap().to_string();
        assert!(row.ends_with("-       -       -"), "{row:?}");
    }

    #[test]
    fn the_pairs_give_elo_nelo_and_los() {
        // [LL LD DD/WL WD WW] = [4 23 38 28 7] (100 pairs): mean 0.5275, variance
        // 0.0381.
        let p = PairRating::new("A", "B", [4, 23, 38, 28, 7]);
        assert_eq!(p.pairs, 100);
        let s = p.score.unwrap();
        assert!(close(s, 0.5275, 1e-12), "{s}");
        let variance = (4.0 * 0.5275f64.powi(2)
            + 23.0 * (0.25f64 - 0.5275).powi(2)
            + 38.0 * (0.5f64 - 0.5275).powi(2)
            + 28.0 * (0.75f64 - 0.5275).powi(2)
            + 7.0 * (1.0f64 - 0.5275).powi(2))
            / 100.0;
        let nelo = p.nelo.as_ref().unwrap();
        let want = 0.0275 / (2.0 * variance).sqrt() * 800.0 / std::f64::consts::LN_10;
        assert!(close(nelo.nelo, want, 1e-9), "{} {want}", nelo.nelo);
        // The interval is ± 1.96 · 347.4 / √200 = ± 48.2 nElo, whatever the results.
        assert!(close((nelo.high - nelo.low) / 2.0, 48.15, 0.05), "{nelo:?}");
        assert!(close(p.elo.elo.unwrap(), 19.1, 0.05), "{:?}", p.elo);
        let los = p.los.unwrap();
        assert!(close(
            los,
            normal_cdf(0.0275 / (variance / 100.0).sqrt()),
            1e-12
        ));
        assert!(los > 0.5 && los < 1.0, "{los}");
    }

    #[test]
    fn the_pairs_line_of_the_readme() {
        let s = Standings::new(vec!["Ann".into(), "Bob".into()]);
        let text = Report::new(&s, Some([3, 11, 20, 12, 4])).text();
        assert_eq!(
            text.lines().last().unwrap(),
            "pairs of Ann: 50 [LL LD DD/WL WD WW] = [3 11 20 12 4]: Elo +10 [-38, +60], nElo +15 [-53, +83], LOS 66.3%"
        );
    }

    #[test]
    fn pairs_all_alike_have_no_nelo() {
        let p = PairRating::new("A", "B", [0, 0, 3, 0, 0]);
        assert_eq!(p.nelo, None);
        assert_eq!(p.elo.elo, Some(0.0));
        let none = PairRating::new("A", "B", [0; 5]);
        assert_eq!((none.score, none.nelo), (None, None));
    }

    #[test]
    fn pairs_are_counted_whatever_order_their_games_end_in() {
        let mut c = PairCounter::new();
        // Game 2 ends before game 1; games 3 and 4 are a pair of wins.
        assert_eq!(c.record(2, 1), None);
        assert_eq!(c.record(3, 2), None);
        assert_eq!(c.record(1, 2), Some(3));
        assert_eq!(c.record(4, 2), Some(4));
        assert_eq!(c.pentanomial(), [0, 0, 0, 1, 1]);
    }

    #[test]
    fn a_two_player_report_has_the_pairs_line() {
        let report = Report::new(&match_of(2, 1, 1), Some([0, 1, 0, 1, 0]));
        let text = report.text();
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("pairs of A: 2 [LL LD DD/WL WD WW] = [0 1 0 1 0]: Elo +0 ["),
            "{text}"
        );
        assert!(last.contains("nElo +0 ["), "{text}");
        assert!(last.ends_with("LOS 50.0%"), "{text}");
        let json = report.json();
        assert_eq!(json["pairs"]["pentanomial"][1], 1);
        assert_eq!(json["players"][0]["name"], "A");
    }
}
