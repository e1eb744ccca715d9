//! The match's running score: counts, never the games themselves, so that a referee for
//! a 10,000-game match runs in bounded memory.

use std::fmt;

use super::Port;
use super::game::GameResult;

/// Games finished and points won, per port.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games that reached a result (including `*`).
    pub finished: u32,
    /// Games that ended unterminated (`*`).
    pub unterminated: u32,
    /// Half-points won by port A and port B.
    pub half_points: [u32; 2],
}

/// The port that plays White in game `number` (from 1): A in odd games, B in even ones.
pub fn white_port(number: u32) -> Port {
    if number % 2 == 1 { Port::A } else { Port::B }
}

impl Tally {
    /// Counts game `number`, which ended with `result`.
    pub fn add(&mut self, number: u32, result: GameResult) {
        let white = white_port(number).index();
        let black = 1 - white;
        self.finished += 1;
        match result {
            GameResult::WhiteWins => self.half_points[white] += 2,
            GameResult::BlackWins => self.half_points[black] += 2,
            GameResult::Draw => {
                self.half_points[white] += 1;
                self.half_points[black] += 1;
            }
            GameResult::Unknown => self.unterminated += 1,
        }
    }

    /// Counts a game whose result is written as in PGN (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub fn add_text(&mut self, number: u32, result: &str) {
        self.add(number, GameResult::from_pgn(result));
    }
}

/// Half-points as people write them: `3`, `2.5`.
fn points(half: u32) -> String {
    if half.is_multiple_of(2) {
        (half / 2).to_string()
    } else {
        format!("{}.5", half / 2)
    }
}

impl fmt::Display for Tally {
    /// `port a 2.5 - 1.5 port b`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "port a {} - {} port b",
            points(self.half_points[0]),
            points(self.half_points[1])
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_alternate_and_points_follow_them() {
        let mut t = Tally::default();
        t.add(1, GameResult::WhiteWins); // A wins
        t.add(2, GameResult::WhiteWins); // B wins
        t.add(3, GameResult::Draw);
        t.add_text(4, "*");
        assert_eq!(t.finished, 4);
        assert_eq!(t.unterminated, 1);
        assert_eq!(t.to_string(), "port a 1.5 - 1.5 port b");
    }
}
