//! The standings of an event: points, wins, draws and losses, the crosstable, and each
//! player's performance as an Elo difference against its opponents with a 95 % interval.

use serde::Serialize;

use crate::core::game::GameResult;

/// The results so far, by player.
#[derive(Clone, Debug, Serialize)]
pub struct Standings {
    names: Vec<String>,
    /// `half[i][j]`: the half-points player `i` scored against player `j`.
    half: Vec<Vec<u32>>,
    /// `played[i][j]`: the decided games between `i` and `j`.
    played: Vec<Vec<u32>>,
    wins: Vec<u32>,
    draws: Vec<u32>,
    losses: Vec<u32>,
    /// Games that ended without a result (`*`): not counted in the score.
    unfinished: u32,
    /// Byes (a Swiss round's rest), a point each.
    byes: Vec<u32>,
    /// Games each player lost by its own failure rather than by the chess.
    failures: Vec<Failures>,
    /// How each player used its time, over its games.
    time: Vec<TimeTotals>,
}

/// How a player used its time over its games: engine testers find broken time
/// management here (a high mean move time, little time left, overshoots).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TimeTotals {
    /// Games counted.
    pub games: u32,
    /// Moves made.
    pub moves: u32,
    /// The time charged for them, in milliseconds.
    pub thinking_ms: u64,
    /// The time left at the end of its timed games, added up, in milliseconds.
    pub left_ms: u64,
    /// Its timed games.
    pub timed_games: u32,
    /// Moves that took longer than the time left (forgiven by a margin, or flagged).
    pub overshoots: u32,
}

impl TimeTotals {
    /// The mean time a move, in milliseconds.
    pub fn mean_move_ms(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.thinking_ms as f64 / f64::from(self.moves))
    }

    /// The mean time left at the end of a timed game, in milliseconds.
    pub fn mean_left_ms(&self) -> Option<f64> {
        (self.timed_games > 0).then(|| self.left_ms as f64 / f64::from(self.timed_games))
    }
}

/// How a player lost a game by failing rather than by the chess: what engine testers
/// look for first (broken time management, a crashing build).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Its flag fell.
    TimeForfeit,
    /// It played an illegal move (or answered from another position).
    Illegal,
    /// It abandoned the game: its engine crashed, stalled or stopped answering and was
    /// not restarted, or could not be started.
    Abandoned,
}

impl Failure {
    /// The failure a game's PGN Termination stands for, if any.
    pub fn of_termination(termination: &str) -> Option<Failure> {
        match termination {
            "time forfeit" => Some(Failure::TimeForfeit),
            "rules infraction" => Some(Failure::Illegal),
            "abandoned" => Some(Failure::Abandoned),
            _ => None,
        }
    }
}

/// One player's games lost by failing, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Failures {
    /// Lost on time.
    pub time_forfeits: u32,
    /// Lost by an illegal move.
    pub illegal_moves: u32,
    /// Lost by a crash, a stall or silence (abandoned), or forfeited unstarted.
    pub abandoned: u32,
}

impl Failures {
    fn any(&self) -> bool {
        self.time_forfeits + self.illegal_moves + self.abandoned > 0
    }
}

/// An Elo difference from a score, with its 95 % interval (None where the score is 0 or
/// 1, whose difference is unbounded).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// The difference.
    pub elo: Option<f64>,
    /// The interval's lower end.
    pub low: Option<f64>,
    /// The interval's upper end.
    pub high: Option<f64>,
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerLine {
    /// The player's place, from 1 (shared places repeat).
    pub rank: usize,
    /// The player.
    pub name: String,
    /// Points (a draw is half).
    pub points: f64,
    /// Games with a result.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// The performance against its opponents.
    pub elo: EloEstimate,
}

/// The z value of a two-sided 95 % interval.
pub(super) const Z95: f64 = 1.959_964;

/// The Elo difference a score fraction `p` (0 < p < 1) stands for.
pub(super) fn elo_of(p: f64) -> Option<f64> {
    // `+ 0.0` makes a negative zero (from an even score) a plain zero.
    (p > 0.0 && p < 1.0).then(|| -400.0 * (1.0 / p - 1.0).log10() + 0.0)
}

impl Standings {
    /// Standings of `names` with no games yet.
    pub fn new(names: Vec<String>) -> Standings {
        let n = names.len();
        Standings {
            names,
            half: vec![vec![0; n]; n],
            played: vec![vec![0; n]; n],
            wins: vec![0; n],
            draws: vec![0; n],
            losses: vec![0; n],
            unfinished: 0,
            byes: vec![0; n],
            failures: vec![Failures::default(); n],
            time: vec![TimeTotals::default(); n],
        }
    }

    /// Counts how `player` used its time in a game: `moves` made in `thinking`, with
    /// `left` at the end (`None` untimed) and `overshoots` moves past its time.
    pub fn record_time_use(
        &mut self,
        player: usize,
        moves: u32,
        thinking: std::time::Duration,
        left: Option<std::time::Duration>,
        overshoots: u32,
    ) {
        let Some(t) = self.time.get_mut(player) else {
            return;
        };
        t.games += 1;
        t.moves += moves;
        t.thinking_ms += u64::try_from(thinking.as_millis()).unwrap_or(u64::MAX);
        if let Some(left) = left {
            t.timed_games += 1;
            t.left_ms += u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
        }
        t.overshoots += overshoots;
    }

    /// How each player used its time, in the players' order.
    pub fn time_use(&self) -> &[TimeTotals] {
        &self.time
    }

    /// Counts a game `player` lost by failing.
    pub fn record_failure(&mut self, player: usize, failure: Failure) {
        if let Some(f) = self.failures.get_mut(player) {
            match failure {
                Failure::TimeForfeit => f.time_forfeits += 1,
                Failure::Illegal => f.illegal_moves += 1,
                Failure::Abandoned => f.abandoned += 1,
            }
        }
    }

    /// The games each player lost by failing, in the players' order.
    pub fn failures(&self) -> &[Failures] {
        &self.failures
    }

    /// Gives player `i` its name (a seat's, once its player signed on).
    pub fn rename(&mut self, i: usize, name: &str) {
        if let Some(n) = self.names.get_mut(i) {
            *n = name.to_string();
        }
    }

    /// Counts a game between `white` and `black`.
    pub fn record(&mut self, white: usize, black: usize, result: GameResult) {
        let Some([w, b]) = result.half_points() else {
            self.unfinished += 1;
            return;
        };
        self.half[white][black] += w;
        self.half[black][white] += b;
        self.played[white][black] += 1;
        self.played[black][white] += 1;
        for (player, h) in [(white, w), (black, b)] {
            match h {
                2 => self.wins[player] += 1,
                1 => self.draws[player] += 1,
                _ => self.losses[player] += 1,
            }
        }
    }

    /// Counts a bye for `player`: a point, and no game.
    pub fn record_bye(&mut self, player: usize) {
        self.byes[player] += 1;
    }

    /// Player `i`'s score in half-points, byes included.
    pub fn half_points(&self, i: usize) -> u32 {
        self.half[i].iter().sum::<u32>() + 2 * self.byes[i]
    }

    /// The games without a result.
    pub fn unfinished(&self) -> u32 {
        self.unfinished
    }

    /// The players' names, in the event's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn games(&self, i: usize) -> u32 {
        self.wins[i] + self.draws[i] + self.losses[i]
    }

    /// Player `i`'s performance: the Elo difference its score stands for, with the 95 %
    /// interval from the spread of its game scores (the normal approximation, as
    /// cutechess-cli and fastchess report it).
    pub fn elo(&self, i: usize) -> EloEstimate {
        let n = f64::from(self.games(i));
        if n == 0.0 {
            return EloEstimate {
                elo: None,
                low: None,
                high: None,
            };
        }
        let (w, d, l) = (
            f64::from(self.wins[i]) / n,
            f64::from(self.draws[i]) / n,
            f64::from(self.losses[i]) / n,
        );
        let p = w + d / 2.0;
        let variance = w * (1.0 - p).powi(2) + d * (0.5 - p).powi(2) + l * p.powi(2);
        let margin = Z95 * (variance / n).sqrt();
        EloEstimate {
            elo: elo_of(p),
            low: elo_of((p - margin).max(0.0)),
            high: elo_of((p + margin).min(1.0)),
        }
    }

    /// The table, best first: by points, then by wins, then by name.
    pub fn table(&self) -> Vec<PlayerLine> {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        let points = |i: usize| self.half_points(i);
        order.sort_by(|&a, &b| {
            points(b)
                .cmp(&points(a))
                .then(self.wins[b].cmp(&self.wins[a]))
                .then(self.names[a].cmp(&self.names[b]))
        });
        let mut out: Vec<PlayerLine> = Vec::with_capacity(order.len());
        for (place, &i) in order.iter().enumerate() {
            let rank = match out.last() {
                Some(prev) if f64::from(points(i)) / 2.0 == prev.points => prev.rank,
                _ => place + 1,
            };
            out.push(PlayerLine {
                rank,
                name: self.names[i].clone(),
                points: f64::from(points(i)) / 2.0,
                games: self.games(i),
                wins: self.wins[i],
                draws: self.draws[i],
                losses: self.losses[i],
                elo: self.elo(i),
            });
        }
        out
    }

    /// The standings as text: the table, then the crosstable (row against column).
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let table = self.table();
        let width = self.names.iter().map(String::len).max().unwrap_or(4).max(4);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>6}  {:>5}  {:>4}  {:>4}  {:>4}  {:>20}",
            "rank", "name", "points", "games", "W", "D", "L", "Elo (95 %)"
        );
        for line in &table {
            let elo = match (&line.elo.elo, &line.elo.low, &line.elo.high) {
                (Some(e), low, high) => format!(
                    "{e:+.0} [{}, {}]",
                    low.map_or("-inf".into(), |v| format!("{v:+.0}")),
                    high.map_or("+inf".into(), |v| format!("{v:+.0}"))
                ),
                (None, _, _) if line.games == 0 => "-".to_string(),
                (None, _, _) if line.points == 0.0 => "-inf".to_string(),
                (None, _, _) => "+inf".to_string(),
            };
            let _ = writeln!(
                s,
                "{:>4}  {:<width$}  {:>6.1}  {:>5}  {:>4}  {:>4}  {:>4}  {:>20}",
                line.rank,
                line.name,
                line.points,
                line.games,
                line.wins,
                line.draws,
                line.losses,
                elo
            );
        }
        if self.unfinished > 0 {
            let _ = writeln!(s, "{} game(s) without a result", self.unfinished);
        }
        if self.time.iter().any(|t| t.moves > 0) {
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "{:<width$}  {:>9}  {:>14}  {:>18}  {:>10}",
                "time use", "moves", "mean move ms", "mean left at end", "overshoots"
            );
            for (name, t) in self.names.iter().zip(&self.time) {
                let mean = t.mean_move_ms().map_or("-".into(), |v| format!("{v:.0}"));
                let left = t
                    .mean_left_ms()
                    .map_or("-".into(), |v| format!("{:.1} s", v / 1000.0));
                let _ = writeln!(
                    s,
                    "{name:<width$}  {:>9}  {mean:>14}  {left:>18}  {:>10}",
                    t.moves, t.overshoots
                );
            }
        }
        if self.failures.iter().any(Failures::any) {
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "{:<width$}  {:>12}  {:>13}  {:>9}",
                "lost by failing", "time forfeit", "illegal move", "abandoned"
            );
            for (name, f) in self.names.iter().zip(&self.failures) {
                let _ = writeln!(
                    s,
                    "{name:<width$}  {:>12}  {:>13}  {:>9}",
                    f.time_forfeits, f.illegal_moves, f.abandoned
                );
            }
        }
        let _ = writeln!(s);
        let _ = write!(s, "{:<width$}", "");
        for j in 0..self.names.len() {
            let _ = write!(s, "  {:>7}", j + 1);
        }
        let _ = writeln!(s);
        for i in 0..self.names.len() {
            let _ = write!(s, "{:<width$}", self.names[i]);
            for j in 0..self.names.len() {
                let cell = if i == j {
                    "-".to_string()
                } else if self.played[i][j] == 0 {
                    ".".to_string()
                } else {
                    format!(
                        "{:.1}/{}",
                        f64::from(self.half[i][j]) / 2.0,
                        self.played[i][j]
                    )
                };
                let _ = write!(s, "  {cell:>7}");
            }
            let _ = writeln!(s, "  {}", i + 1);
        }
        s
    }

    /// The standings as JSON: the table, the crosstable in half-points and games, and
    /// the count of unfinished games.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "table": self.table(),
            "players": self.names,
            "crosstable_half_points": self.half,
            "crosstable_games": self.played,
            "unfinished": self.unfinished,
            "failures": self.names.iter().zip(&self.failures).map(|(name, f)| {
                serde_json::json!({
                    "name": name,
                    "time_forfeits": f.time_forfeits,
                    "illegal_moves": f.illegal_moves,
                    "abandoned": f.abandoned,
                })
            }).collect::<Vec<_>>(),
            "time_use": self.names.iter().zip(&self.time).map(|(name, t)| {
                serde_json::json!({
                    "name": name,
                    "games": t.games,
                    "moves": t.moves,
                    "mean_move_ms": t.mean_move_ms(),
                    "mean_left_at_end_ms": t.mean_left_ms(),
                    "overshoots": t.overshoots,
                })
            }).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standings() -> Standings {
        let mut s = Standings::new(vec!["A".into(), "B".into(), "C".into()]);
        s.record(0, 1, GameResult::WhiteWins);
        s.record(1, 0, GameResult::Draw);
        s.record(0, 2, GameResult::BlackWins);
        s.record(2, 1, GameResult::Draw);
        s.record(1, 2, GameResult::Unknown);
        s
    }

    #[test]
    fn points_and_places_follow_the_results() {
        let table = standings().table();
        let got: Vec<(usize, &str, f64, u32)> = table
            .iter()
            .map(|l| (l.rank, l.name.as_str(), l.points, l.games))
            .collect();
        // Equal points share a place; then more wins, then the name, come first.
        assert_eq!(got, [(1, "A", 1.5, 3), (1, "C", 1.5, 2), (3, "B", 1.0, 3)]);
        let a = &table[0];
        assert_eq!((a.wins, a.draws, a.losses), (1, 1, 1));
        assert_eq!(standings().unfinished(), 1);
    }

    #[test]
    fn an_even_score_is_zero_elo_with_a_symmetric_interval() {
        let e = standings().elo(0);
        assert_eq!(e.elo, Some(0.0));
        let (low, high) = (e.low.unwrap(), e.high.unwrap());
        assert!((low + high).abs() < 1e-9, "{low} {high}");
        assert!(low < -100.0, "three games say little: {low}");
    }

    #[test]
    fn the_elo_of_a_known_score() {
        let mut s = Standings::new(vec!["A".into(), "B".into()]);
        for _ in 0..30 {
            s.record(0, 1, GameResult::WhiteWins);
        }
        for _ in 0..20 {
            s.record(0, 1, GameResult::Draw);
        }
        for _ in 0..10 {
            s.record(1, 0, GameResult::WhiteWins);
        }
        // 30 wins, 20 draws, 10 losses: 40 of 60, 66.7 %.
        let e = s.elo(0);
        assert!((e.elo.unwrap() - 120.4).abs() < 0.1, "{e:?}");
        assert!(e.low.unwrap() < 120.4 && e.high.unwrap() > 120.4);
        let e = s.elo(1);
        assert!((e.elo.unwrap() + 120.4).abs() < 0.1, "{e:?}");
    }

    #[test]
    fn a_perfect_score_has_no_finite_elo() {
        let mut s = Standings::new(vec!["A".into(), "B".into()]);
        s.record(0, 1, GameResult::WhiteWins);
        assert_eq!(s.elo(0).elo, None);
        assert!(s.text().contains("+inf"), "{}", s.text());
        assert!(s.text().contains("-inf"), "{}", s.text());
    }

    #[test]
    fn the_text_has_the_table_and_the_crosstable() {
        let text = standings().text();
        assert!(text.starts_with("rank  name"), "{text}");
        assert!(text.contains("1 game(s) without a result"), "{text}");
        // A against B: a win and a draw, 1.5 of 2.
        let a_row = text.lines().find(|l| l.starts_with("A ")).unwrap();
        assert!(a_row.contains("1.5/2"), "{a_row}");
        let json = standings().json();
        assert_eq!(json["crosstable_half_points"][0][1], 3);
        assert_eq!(json["table"][1]["name"], "C");
    }
}
