//! Adjudication by the engines' own evaluations, as testers know it from cutechess-cli:
//! `--resign movecount=N score=CP [twosided]`, `--draw movenumber=N movecount=N
//! score=CP` and `--maxmoves N`. An [`Adjudicator`] is fed each move's mover and its
//! `ce` (centipawns from the mover's side) and says when a game is decided.

use shakmaty::Color;

use crate::core::game::GameResult;

/// `--resign`: a side whose score stays at or below `-score` for `movecount` of its
/// moves in a row loses; with `twosided`, only while its opponent's score stays at or
/// above `score` too.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResignRule {
    /// Moves in a row.
    pub movecount: u32,
    /// Centipawns.
    pub score: i64,
    /// Whether both engines must agree.
    pub twosided: bool,
}

/// `--draw`: from move `movenumber` on, a game whose scores (both sides') stay within
/// `score` of zero for `movecount` moves of each side in a row is drawn.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DrawAdjudication {
    /// The first full move at which it applies.
    pub movenumber: u32,
    /// Moves in a row, of each side.
    pub movecount: u32,
    /// Centipawns.
    pub score: i64,
}

/// What adjudicates the games of an event.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AdjudicationRules {
    /// `--resign`.
    pub resign: Option<ResignRule>,
    /// `--draw`.
    pub draw: Option<DrawAdjudication>,
    /// `--maxmoves`: a game still going after this many full moves of its own (twice
    /// as many plies from its start position, as cutechess-cli counts) is drawn.
    pub max_moves: Option<u32>,
}

/// Reads `KEY=VALUE` words (and bare flags) into a map, refusing keys not in `keys`.
fn words<'a>(
    option: &str,
    words: &'a [String],
    keys: &[&str],
    flags: &[&str],
) -> Result<Vec<(&'a str, Option<&'a str>)>, String> {
    words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) if keys.contains(&k) => Ok((k, Some(v))),
            None if flags.contains(&w.as_str()) => Ok((w.as_str(), None)),
            _ => Err(format!(
                "{option} {w}: expected {}",
                keys.iter()
                    .map(|k| format!("{k}=N"))
                    .chain(flags.iter().map(ToString::to_string))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        })
        .collect()
}

fn number<T: std::str::FromStr>(option: &str, key: &str, value: Option<&str>) -> Result<T, String> {
    value
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{option} {key}=: expected a number"))
}

impl ResignRule {
    /// Reads `movecount=N score=CP [twosided]`.
    ///
    /// # Errors
    ///
    /// A sentence naming what is wrong or missing.
    pub fn parse(text: &[String]) -> Result<ResignRule, String> {
        let (mut movecount, mut score, mut twosided) = (None, None, false);
        for (key, value) in words("--resign", text, &["movecount", "score"], &["twosided"])? {
            match key {
                "movecount" => movecount = Some(number("--resign", key, value)?),
                "score" => score = Some(number("--resign", key, value)?),
                _ => twosided = true,
            }
        }
        match (movecount, score) {
            (Some(movecount), Some(score)) if movecount > 0 && score > 0 => Ok(ResignRule {
                movecount,
                score,
                twosided,
            }),
            _ => Err("--resign: give movecount=N and score=CP, both above 0".into()),
        }
    }
}

impl DrawAdjudication {
    /// Reads `movenumber=N movecount=N score=CP`.
    ///
    /// # Errors
    ///
    /// A sentence naming what is wrong or missing.
    pub fn parse(text: &[String]) -> Result<DrawAdjudication, String> {
        let (mut movenumber, mut movecount, mut score) = (None, None, None);
        for (key, value) in words("--draw", text, &["movenumber", "movecount", "score"], &[])? {
            match key {
                "movenumber" => movenumber = Some(number("--draw", key, value)?),
                "movecount" => movecount = Some(number("--draw", key, value)?),
                _ => score = Some(number("--draw", key, value)?),
            }
        }
        match (movenumber, movecount, score) {
            (Some(movenumber), Some(movecount), Some(score)) if movecount > 0 && score >= 0 => {
                Ok(DrawAdjudication {
                    movenumber,
                    movecount,
                    score,
                })
            }
            _ => Err("--draw: give movenumber=N, movecount=N (above 0) and score=CP".into()),
        }
    }
}

impl AdjudicationRules {
    /// Whether any rule is given.
    pub fn any(&self) -> bool {
        self.resign.is_some() || self.draw.is_some() || self.max_moves.is_some()
    }
}

/// A decision: the result and the sentence for the game's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The result.
    pub result: GameResult,
    /// Why.
    pub reason: String,
}

/// The counters of one game.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: AdjudicationRules,
    /// Each side's last score (White, Black), from its own side.
    last: [Option<i64>; 2],
    /// Each side's moves in a row at or below `-resign.score`.
    losing: [u32; 2],
    /// Each side's moves in a row at or above `resign.score`.
    winning: [u32; 2],
    /// Plies in a row, both sides', within `draw.score` since the last capture or pawn
    /// move.
    level: u32,
    /// The plies played in the game, from its start position.
    plies: u32,
    decided: bool,
}

fn index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl Adjudicator {
    /// Counters for a new game.
    pub fn new(rules: AdjudicationRules) -> Adjudicator {
        Adjudicator {
            rules,
            last: [None; 2],
            losing: [0; 2],
            winning: [0; 2],
            level: 0,
            plies: 0,
            decided: false,
        }
    }

    /// Takes a move: `fullmove` is its move number, `color` the mover, `score` its `ce`
    /// (None when the engine gave none, which breaks every run of scores), `zeroing`
    /// whether it was a capture or a pawn move. Returns the verdict once, when a rule
    /// decides the game.
    pub fn after_move(
        &mut self,
        fullmove: u32,
        color: Color,
        score: Option<i64>,
        zeroing: bool,
    ) -> Option<Verdict> {
        if self.decided {
            return None;
        }
        let me = index(color);
        self.last[me] = score;
        self.plies += 1;
        let bump = |count: &mut u32, holds: bool| *count = if holds { *count + 1 } else { 0 };
        if let Some(rule) = &self.rules.resign {
            bump(
                &mut self.losing[me],
                score.is_some_and(|s| s <= -rule.score),
            );
            bump(
                &mut self.winning[me],
                score.is_some_and(|s| s >= rule.score),
            );
            let them = 1 - me;
            // The mover gives up; with twosided, only if its opponent agrees.
            let agreed = !rule.twosided || self.winning[them] >= rule.movecount;
            if self.losing[me] >= rule.movecount && agreed {
                return self.decide(
                    GameResult::loss_for(color),
                    format!(
                        "{} resigns by adjudication: its score stayed at or below -{} cp for {} moves{}",
                        name(color),
                        rule.score,
                        rule.movecount,
                        if rule.twosided {
                            ", and its opponent's at or above it"
                        } else {
                            ""
                        }
                    ),
                );
            }
            // Or the mover is the winner whose opponent has given up already.
            let opponent_lost = self.losing[them] >= rule.movecount;
            if rule.twosided && opponent_lost && self.winning[me] >= rule.movecount {
                return self.decide(
                    GameResult::win_for(color),
                    format!(
                        "{} resigns by adjudication: its score stayed at or below -{} cp for {} moves, and its opponent's at or above it",
                        name(!color),
                        rule.score,
                        rule.movecount
                    ),
                );
            }
        }
        if let Some(rule) = &self.rules.draw {
            // As cutechess-cli and fastchess count: a capture or a pawn move starts the
            // run again, and the game is drawn once `movenumber` full moves are complete
            // and both sides' scores stayed within `score` for `movecount` moves each.
            if zeroing {
                self.level = 0;
            }
            bump(
                &mut self.level,
                score.is_some_and(|s| s.abs() <= rule.score),
            );
            let complete = if color == Color::White {
                fullmove.saturating_sub(1)
            } else {
                fullmove
            };
            if complete >= rule.movenumber && self.level >= rule.movecount.saturating_mul(2) {
                return self.decide(
                    GameResult::Draw,
                    format!(
                        "Draw by adjudication: both scores stayed within {} cp for {} moves each, without a capture or a pawn move, by move {}",
                        rule.score, rule.movecount, rule.movenumber
                    ),
                );
            }
        }
        // Full moves of the game itself: from an opening with Black to move, the 60th
        // is White's, after 120 plies (counting move numbers would end it a ply early).
        if let Some(max) = self.rules.max_moves
            && self.plies >= max.saturating_mul(2)
        {
            return self.decide(
                GameResult::Draw,
                format!("Draw by adjudication: {max} moves played (--maxmoves)"),
            );
        }
        None
    }

    fn decide(&mut self, result: GameResult, reason: String) -> Option<Verdict> {
        self.decided = true;
        Some(Verdict { result, reason })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(resign: Option<(u32, i64, bool)>, draw: Option<(u32, u32, i64)>) -> AdjudicationRules {
        AdjudicationRules {
            resign: resign.map(|(movecount, score, twosided)| ResignRule {
                movecount,
                score,
                twosided,
            }),
            draw: draw.map(|(movenumber, movecount, score)| DrawAdjudication {
                movenumber,
                movecount,
                score,
            }),
            max_moves: None,
        }
    }

    /// Plays `scores` as (White's ce, Black's ce) per full move from move 1; returns
    /// the verdict and the move it came at.
    fn play(
        adj: &mut Adjudicator,
        scores: &[(Option<i64>, Option<i64>)],
    ) -> Option<(u32, Verdict)> {
        for (i, &(w, b)) in scores.iter().enumerate() {
            let n = i as u32 + 1;
            if let Some(v) = adj.after_move(n, Color::White, w, false) {
                return Some((n, v));
            }
            if let Some(v) = adj.after_move(n, Color::Black, b, false) {
                return Some((n, v));
            }
        }
        None
    }

    #[test]
    fn a_side_losing_for_movecount_moves_resigns() {
        let mut adj = Adjudicator::new(rules(Some((3, 500, false)), None));
        let scores = [
            (Some(600), Some(-600)),
            (Some(650), Some(-700)),
            (Some(700), None),
            (Some(700), Some(-800)),
            (Some(900), Some(-900)),
            (Some(950), Some(-950)),
        ];
        let (at, v) = play(&mut adj, &scores).unwrap();
        // Black's run broke at move 3 (no score): 4, 5, 6.
        assert_eq!(at, 6);
        assert_eq!(v.result, GameResult::WhiteWins);
        assert!(
            v.reason.starts_with("Black resigns by adjudication"),
            "{}",
            v.reason
        );
        assert_eq!(
            adj.after_move(7, Color::White, Some(1000), false),
            None,
            "once"
        );
    }

    #[test]
    fn twosided_needs_the_winner_to_agree() {
        let mut adj = Adjudicator::new(rules(Some((2, 500, true)), None));
        // Black despairs but White does not see it: no verdict.
        let calm = [(Some(100), Some(-900)); 4];
        assert_eq!(play(&mut adj, &calm), None);
        // Then White agrees for two moves.
        let agreed = [(Some(600), Some(-900)), (Some(600), Some(-900))];
        let (at, v) = play(&mut adj, &agreed).unwrap();
        assert_eq!(at, 2);
        assert_eq!(v.result, GameResult::WhiteWins);
    }

    #[test]
    fn level_scores_draw_once_movenumber_moves_are_complete() {
        // Level from move 1: the run of 2 moves each is there by move 2, but the game
        // is drawn only once 3 full moves are complete, after Black's third.
        let mut adj = Adjudicator::new(rules(None, Some((3, 2, 10))));
        let level = [(Some(0), Some(0)); 4];
        assert_eq!(play(&mut adj, &level).map(|(at, _)| at), Some(3));
        // A score outside the band starts the run again: White's 50 at move 3.
        let mut adj = Adjudicator::new(rules(None, Some((3, 2, 10))));
        let scores = [
            (Some(0), Some(0)),
            (Some(0), Some(0)),
            (Some(50), Some(0)),
            (Some(10), Some(-10)),
            (Some(10), Some(-10)),
            (Some(10), Some(-10)),
        ];
        let (at, v) = play(&mut adj, &scores).unwrap();
        assert_eq!(
            at, 5,
            "the run from Black's third move: four plies by White's fifth"
        );
        assert_eq!(v.result, GameResult::Draw);
    }

    #[test]
    fn a_capture_or_a_pawn_move_starts_the_draw_run_again() {
        // Level scores every ply from move 1, with `zeroing` saying which plies were
        // captures or pawn moves: the ply of the verdict.
        let first_verdict = |movecount: u32, zeroing: &[bool]| {
            let mut adj = Adjudicator::new(rules(None, Some((1, movecount, 10))));
            zeroing.iter().enumerate().find_map(|(ply, &zeroing)| {
                let color = if ply % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                adj.after_move(ply as u32 / 2 + 1, color, Some(0), zeroing)
                    .map(|v| (ply, v))
            })
        };
        // Two moves each: four level plies, reached at ply 3 (Black's second move),
        // before the capture at ply 4.
        let (at, v) =
            first_verdict(2, &[false, false, false, false, true, false, false, false]).unwrap();
        assert_eq!(at, 3);
        assert_eq!(v.result, GameResult::Draw);
        // Three moves each: six plies in a row are needed, and the capture at ply 4
        // starts the run again: plies 4 to 9.
        let zeroing = [
            false, false, false, false, true, false, false, false, false, false,
        ];
        assert_eq!(first_verdict(3, &zeroing).map(|(at, _)| at), Some(9));
    }

    #[test]
    fn the_options_words_are_read_and_a_wrong_one_named() {
        let w = |t: &str| t.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            ResignRule::parse(&w("movecount=3 score=400 twosided")).unwrap(),
            ResignRule {
                movecount: 3,
                score: 400,
                twosided: true
            }
        );
        assert_eq!(
            DrawAdjudication::parse(&w("movenumber=40 movecount=8 score=10")).unwrap(),
            DrawAdjudication {
                movenumber: 40,
                movecount: 8,
                score: 10
            }
        );
        let e = ResignRule::parse(&w("movecount=3 scor=400")).unwrap_err();
        assert!(e.contains("scor=400") && e.contains("twosided"), "{e}");
        let e = DrawAdjudication::parse(&w("movenumber=40 movecount=x score=1")).unwrap_err();
        assert!(e.contains("movecount="), "{e}");
        assert!(ResignRule::parse(&w("movecount=3")).is_err());
    }

    /// From an opening with Black to move (1. e4 played), `--maxmoves 3` draws after
    /// six plies of the game: Black's first move to White's fourth.
    #[test]
    fn maxmoves_counts_the_moves_of_the_game_from_a_black_start() {
        let mut adj = Adjudicator::new(AdjudicationRules {
            max_moves: Some(3),
            ..AdjudicationRules::default()
        });
        let mut plies = 0;
        let mut verdict = None;
        for (fullmove, color) in [
            (1, Color::Black),
            (2, Color::White),
            (2, Color::Black),
            (3, Color::White),
            (3, Color::Black),
            (4, Color::White),
            (4, Color::Black),
        ] {
            plies += 1;
            if let Some(v) = adj.after_move(fullmove, color, None, false) {
                verdict = Some((plies, fullmove, color, v));
                break;
            }
        }
        let (plies, fullmove, color, v) = verdict.expect("a verdict");
        assert_eq!((plies, fullmove, color), (6, 4, Color::White));
        assert_eq!(v.result, GameResult::Draw);
    }

    #[test]
    fn maxmoves_draws_after_that_many_full_moves() {
        let mut adj = Adjudicator::new(AdjudicationRules {
            max_moves: Some(3),
            ..AdjudicationRules::default()
        });
        let (at, v) = play(&mut adj, &[(None, None); 5]).unwrap();
        assert_eq!(at, 3);
        assert_eq!(v.result, GameResult::Draw);
        assert!(v.reason.contains("3 moves"), "{}", v.reason);
    }
}
