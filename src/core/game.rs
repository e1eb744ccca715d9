//! One game of chess over shakmaty: legality, canonical SAN, repetition by zobrist hash,
//! the fifty- and seventy-five-move rules, dead positions (through [`super::dead`]), and
//! both clocks.
//!
//! The game knows nothing of ports or records; the referee decides who is on move and
//! when a clock started, and this module keeps the chess and the time accounting exact.

use std::fmt;
use std::time::Duration;

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};

use super::clock::{Clocks, TimeControl};
use super::dead;

/// The result of a game, as the PGN Result tag writes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: unfinished, abandoned without a decision, or aborted.
    Unknown,
}

impl GameResult {
    /// The result in which `color` wins.
    pub fn win_for(color: Color) -> GameResult {
        color.fold_wb(GameResult::WhiteWins, GameResult::BlackWins)
    }

    /// The result in which `color` loses.
    pub fn loss_for(color: Color) -> GameResult {
        GameResult::win_for(!color)
    }

    /// The result written as in PGN (`1-0`, `0-1`, `1/2-1/2`; anything else is `*`).
    pub fn from_pgn(text: &str) -> GameResult {
        match text {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// White's and Black's half-points (a win is two), none for `*`.
    pub fn half_points(self) -> Option<[u32; 2]> {
        match self {
            GameResult::WhiteWins => Some([2, 0]),
            GameResult::BlackWins => Some([0, 2]),
            GameResult::Draw => Some([1, 1]),
            GameResult::Unknown => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        })
    }
}

/// Why a game ended, as the PGN Termination tag writes it (PGN spec 9.8.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Mate, stalemate, a draw by rule or agreement, a resignation.
    Normal,
    /// A flag fell.
    TimeForfeit,
    /// An illegal or unreadable move, or a reply from a different position.
    RulesInfraction,
    /// A player signed off during its game.
    Abandoned,
    /// A third party decided the result.
    Adjudication,
    /// The game was stopped without a result.
    Unterminated,
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::RulesInfraction => "rules infraction",
            Termination::Abandoned => "abandoned",
            Termination::Adjudication => "adjudication",
            Termination::Unterminated => "unterminated",
        })
    }
}

/// How and why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finish {
    /// The result.
    pub result: GameResult,
    /// The PGN Termination.
    pub termination: Termination,
    /// A sentence for people and for the PGN's final comment, such as "White mates".
    pub reason: String,
    /// When a flag fell: how long the side's last turn ran past its time.
    pub overrun: Option<Duration>,
}

impl Finish {
    /// A finish with the given parts.
    pub fn new(result: GameResult, termination: Termination, reason: impl Into<String>) -> Finish {
        Finish {
            result,
            termination,
            reason: reason.into(),
            overrun: None,
        }
    }
}

/// A move that was played, with what the clocks and the mover said about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The position the move was played from.
    pub before: Chess,
    /// The move in canonical SAN, with its check or mate suffix.
    pub san: SanPlus,
    /// The time charged to the mover.
    pub emt: Duration,
    /// The mover's time left after the move, increment included; `None` when untimed.
    pub remaining: Option<Duration>,
    /// The mover's own analysis of the move, ready for the PGN comment.
    pub analysis: Option<String>,
    /// The same analysis value by value, when the match keeps it
    /// ([`crate::core::MatchConfig::keep_info`]).
    pub info: Option<Box<crate::core::MoveInfo>>,
}

impl PlayedMove {
    /// The colour that played the move.
    pub fn color(&self) -> Color {
        self.before.turn()
    }
}

/// The name of a colour, capitalised, for reasons and notices.
pub fn color_name(color: Color) -> &'static str {
    color.fold_wb("White", "Black")
}

/// One game: the start, the moves, the repetition history and the clocks.
#[derive(Clone, Debug)]
pub struct Game {
    start: Chess,
    pos: Chess,
    moves: Vec<PlayedMove>,
    hashes: Vec<Zobrist64>,
    clocks: Clocks,
    /// Whether `pos` has no legal move (mate or stalemate), found once when the
    /// position is reached: the move's check mark, the referee's test for mate and
    /// stalemate and [`Game::automatic_end`] all need it every ply.
    no_moves: bool,
    /// Whether `pos` is dead, found once when the position is reached.
    dead: bool,
    /// What the dead-position check knows of the game so far.
    watch: dead::Watch,
}

impl Game {
    /// A new game from `start` under the time control `tc`.
    pub fn new(start: Chess, tc: &TimeControl) -> Game {
        Game::with_clocks(start, Clocks::new(tc))
    }

    /// A new game from `start` with `clocks` (time odds: [`Clocks::with_odds`]).
    pub fn with_clocks(start: Chess, clocks: Clocks) -> Game {
        let hash = start.zobrist_hash(EnPassantMode::Legal);
        Game {
            no_moves: start.legal_moves().is_empty(),
            dead: dead::is_dead(&start),
            watch: dead::Watch::default(),
            pos: start.clone(),
            start,
            moves: Vec::new(),
            hashes: vec![hash],
            clocks,
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Chess {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// Every move played so far.
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// The last move played, if any.
    pub fn last_move(&self) -> Option<&PlayedMove> {
        self.moves.last()
    }

    /// Both clocks.
    pub fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    /// Both clocks, for a flag fall or a supervisor's adjustment.
    pub fn clocks_mut(&mut self) -> &mut Clocks {
        &mut self.clocks
    }

    /// Plays the legal move `m`, charging `elapsed` to the mover.
    pub fn play(&mut self, m: Move, elapsed: Duration, analysis: Option<String>) -> &PlayedMove {
        let before = self.pos.clone();
        let color = before.turn();
        // What `SanPlus::from_move_and_play_unchecked` gives (its mark is mate when the
        // new position is check without a legal move), with the new position's legal
        // moves generated once, for the mark and for `no_moves`.
        let san = San::from_move(&self.pos, m);
        self.pos.play_unchecked(m);
        let moves = self.pos.legal_moves();
        self.no_moves = moves.is_empty();
        self.dead = self.watch.after(&before, m, &self.pos, &moves);
        let suffix = self.pos.is_check().then_some(if self.no_moves {
            Suffix::Checkmate
        } else {
            Suffix::Check
        });
        let san = SanPlus { san, suffix };
        self.hashes
            .push(self.pos.zobrist_hash(EnPassantMode::Legal));
        let charge = self.clocks.charge(color, elapsed);
        self.moves.push(PlayedMove {
            before,
            san,
            emt: charge.elapsed,
            remaining: charge.remaining,
            analysis,
            info: None,
        });
        self.moves.last().expect("a move was just pushed")
    }

    /// Keeps `info`, the mover's analysis value by value, with the last move.
    pub fn keep_info(&mut self, info: crate::core::MoveInfo) {
        if let Some(m) = self.moves.last_mut() {
            m.info = Some(Box::new(info));
        }
    }

    /// Whether the side to move has no legal move: it is mated or stalemated.
    pub fn no_legal_moves(&self) -> bool {
        self.no_moves
    }

    /// How many times the current position has occurred in this game (at least one).
    pub fn repetitions(&self) -> usize {
        let now = self.hashes.last().copied();
        // A position can only recur since the last capture or pawn move (the halfmove
        // clock's plies), and with the same side to move: every other ply back.
        let window = (self.pos.halfmoves() as usize + 1).min(self.hashes.len());
        self.hashes[self.hashes.len() - window..]
            .iter()
            .rev()
            .step_by(2)
            .filter(|h| Some(**h) == now)
            .count()
    }

    /// Whether the side to move could claim a draw now: threefold repetition or the
    /// fifty-move rule. Returns the reason when it could.
    pub fn claimable_draw(&self) -> Option<&'static str> {
        if self.repetitions() >= 3 {
            Some("Draw by threefold repetition")
        } else if self.pos.halfmoves() >= 100 {
            Some("Draw by the fifty-move rule")
        } else {
            None
        }
    }

    /// The end the rules impose on the current position by themselves: mate, stalemate,
    /// a dead position, fivefold repetition and the seventy-five-move rule always, and
    /// threefold repetition and the fifty-move rule when `auto_draws` is set.
    pub fn automatic_end(&self, auto_draws: bool) -> Option<Finish> {
        let pos = &self.pos;
        let draw = |reason: &str| Some(Finish::new(GameResult::Draw, Termination::Normal, reason));
        if self.no_moves && pos.is_check() {
            let winner = !pos.turn();
            return Some(Finish::new(
                GameResult::win_for(winner),
                Termination::Normal,
                format!("{} mates", color_name(winner)),
            ));
        }
        if self.no_moves {
            return draw("Stalemate");
        }
        if self.dead {
            return draw("Dead position: neither side can mate");
        }
        if self.repetitions() >= 5 {
            return draw("Draw by fivefold repetition");
        }
        if pos.halfmoves() >= 150 {
            return draw("Draw by the seventy-five-move rule");
        }
        if auto_draws && let Some(reason) = self.claimable_draw() {
            return draw(reason);
        }
        None
    }

    /// [`Game::flag`]'s finish for a flag that fell `elapsed` into `color`'s turn, with
    /// how far past its time that was.
    pub fn flag_after(&mut self, color: Color, elapsed: Duration) -> Finish {
        let left = self.clocks.remaining(color);
        let mut finish = self.flag(color);
        finish.overrun = left.map(|left| elapsed.saturating_sub(left));
        finish
    }

    /// The finish when `color`'s flag falls: a loss, or a draw when the opponent cannot
    /// mate by any legal sequence of moves (FIDE 6.9), as chasolver's full search
    /// decides; when the search leaves it undecided, a draw only when the opponent has
    /// no mating material. Records the flag on the clocks.
    pub fn flag(&mut self, color: Color) -> Finish {
        self.clocks.flag(color);
        let cannot_mate = dead::can_mate(&self.pos, !color)
            .map_or_else(|| self.pos.has_insufficient_material(!color), |can| !can);
        if cannot_mate {
            Finish::new(
                GameResult::Draw,
                Termination::TimeForfeit,
                format!(
                    "{} forfeits on time, but {} cannot mate",
                    color_name(color),
                    color_name(!color)
                ),
            )
        } else {
            Finish::new(
                GameResult::loss_for(color),
                Termination::TimeForfeit,
                format!("{} forfeits on time", color_name(color)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn play_uci(game: &mut Game, moves: &str) {
        for text in moves.split_whitespace() {
            let uci: UciMove = text.parse().unwrap();
            let m = uci.to_move(game.position()).unwrap();
            game.play(m, Duration::from_millis(100), None);
        }
    }

    fn game(tc: &str) -> Game {
        Game::new(Chess::default(), &tc.parse().unwrap())
    }

    #[test]
    fn fools_mate_is_mate() {
        let mut g = game("300");
        play_uci(&mut g, "f2f3 e7e5 g2g4 d8h4");
        let finish = g.automatic_end(true).unwrap();
        assert_eq!(finish.result, GameResult::BlackWins);
        assert_eq!(finish.reason, "Black mates");
        assert_eq!(g.last_move().unwrap().san.to_string(), "Qh4#");
    }

    /// The repetitions counted since the last capture or pawn move are those of the
    /// whole game, at every ply of seeded random games with pieces that shuffle (and
    /// pawns that sometimes move), from a position whose halfmove clock is not zero.
    #[test]
    fn repetitions_counted_since_the_last_irreversible_move_are_all_of_them() {
        let mut rng = fastrand::Rng::with_seed(5);
        let mut repeated = 0;
        for _ in 0..40 {
            let mut g = from("4k3/p3r3/8/8/8/8/P3R3/4K3 w - - 17 40", "60");
            for _ in 0..300 {
                let moves = g.position().legal_moves();
                if moves.is_empty() {
                    break;
                }
                g.play(moves[rng.usize(..moves.len())], Duration::ZERO, None);
                let now = *g.hashes.last().unwrap();
                let all = g.hashes.iter().filter(|h| **h == now).count();
                assert_eq!(g.repetitions(), all);
                repeated += usize::from(all >= 3);
            }
        }
        assert!(repeated > 20, "{repeated}");
    }

    /// In Chess960 games (seeded random games from 40 of the 960 positions, castling
    /// included) the repetitions counted are those of shakmaty's own Zobrist keys of the
    /// positions played, and the dead-position watch answers as the full check does,
    /// bare material (shakmaty's insufficient material) always dead.
    #[test]
    fn chess960_games_count_repetitions_and_dead_positions_as_the_full_checks_do() {
        let mut rng = fastrand::Rng::with_seed(960);
        let (mut castles, mut repeated, mut dead) = (0, 0, 0);
        for _ in 0..40 {
            let number = rng.u16(..crate::core::variant::CHESS960_POSITIONS);
            let fen = crate::core::variant::chess960_fen(number).unwrap();
            let start =
                crate::core::variant::position(&fen, crate::core::Variant::Chess960).unwrap();
            let mut g = Game::new(start.clone(), &"-".parse().unwrap());
            let mut pos = start;
            let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal);
            let mut keys = vec![key(&pos)];
            for _ in 0..400 {
                if g.automatic_end(false).is_some() {
                    break;
                }
                let moves = pos.legal_moves();
                // Castling when it may be, else any move.
                let m = moves
                    .iter()
                    .copied()
                    .find(|m| m.is_castle() && rng.bool())
                    .unwrap_or_else(|| moves[rng.usize(..moves.len())]);
                castles += usize::from(m.is_castle());
                g.play(m, Duration::ZERO, None);
                pos.play_unchecked(m);
                keys.push(key(&pos));
                assert_eq!(g.position(), &pos);
                let now = *keys.last().unwrap();
                let all = keys.iter().filter(|k| **k == now).count();
                assert_eq!(g.repetitions(), all, "{fen}");
                repeated += usize::from(all >= 2);
                assert_eq!(
                    g.dead,
                    dead::is_dead(&pos),
                    "{}",
                    crate::core::fen_text(&pos)
                );
                if pos.is_insufficient_material() {
                    assert!(g.dead);
                }
                dead += usize::from(g.dead);
            }
        }
        assert!(castles > 10, "{castles}");
        assert!(repeated > 10, "{repeated}");
        assert!(dead > 3, "{dead}");
    }

    #[test]
    fn threefold_depends_on_the_draw_rule() {
        let mut g = game("300");
        play_uci(&mut g, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        assert_eq!(g.repetitions(), 3);
        assert!(g.automatic_end(false).is_none());
        assert_eq!(g.automatic_end(true).unwrap().result, GameResult::Draw);
        assert!(g.claimable_draw().is_some());
        play_uci(&mut g, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        assert_eq!(g.repetitions(), 5);
        assert_eq!(
            g.automatic_end(false).unwrap().reason,
            "Draw by fivefold repetition"
        );
    }

    #[test]
    fn clocks_are_charged_per_move() {
        let mut g = game("60+1");
        play_uci(&mut g, "e2e4");
        let m = g.last_move().unwrap();
        assert_eq!(m.emt, Duration::from_millis(100));
        assert_eq!(m.remaining, Some(Duration::from_millis(60_900)));
        assert_eq!(
            g.clocks().consumed(Color::White),
            Duration::from_millis(100)
        );
    }

    /// `Game::play` makes the move's SAN and finds mate and stalemate from one move
    /// generation: in random games (which end in mate or stalemate far more often than
    /// real ones), each move's SAN, the game's view of "no legal move" and its mate and
    /// stalemate ends are what shakmaty's own functions give.
    #[test]
    fn the_san_mark_and_mate_and_stalemate_agree_with_shakmaty() {
        let mut rng = fastrand::Rng::with_seed(22);
        let (mut mates, mut stalemates) = (0, 0);
        for _ in 0..300 {
            let mut g = game("60");
            let mut shadow = Chess::default();
            for _ in 0..300 {
                let moves = g.position().legal_moves();
                let Some(&m) = moves.get(rng.usize(..moves.len().max(1))) else {
                    break;
                };
                let expected = SanPlus::from_move_and_play_unchecked(&mut shadow, m);
                g.play(m, Duration::ZERO, None);
                assert_eq!(g.last_move().unwrap().san, expected);
                assert_eq!(g.no_legal_moves(), shadow.legal_moves().is_empty());
                let end = g.automatic_end(false).map(|f| f.reason);
                if shadow.is_checkmate() {
                    mates += 1;
                    assert!(end.as_deref().is_some_and(|r| r.ends_with(" mates")));
                } else if shadow.is_stalemate() {
                    stalemates += 1;
                    assert_eq!(end.as_deref(), Some("Stalemate"));
                } else {
                    assert!(
                        end.as_deref()
                            .is_none_or(|r| !r.ends_with(" mates") && r != "Stalemate")
                    );
                }
                if end.is_some() {
                    break;
                }
            }
        }
        assert!(
            mates > 0 && stalemates > 0,
            "{mates} mates, {stalemates} stalemates"
        );
    }

    fn from(fen: &str, tc: &str) -> Game {
        let pos: Chess = fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        Game::new(pos, &tc.parse().unwrap())
    }

    #[test]
    fn a_move_that_locks_the_pawn_wall_ends_the_game_as_dead() {
        // Before h4, the bishop on c8 can still open the h-file (Bg4, hxg4 hxg4); after
        // it, no piece of either side can ever cross the wall.
        let mut g = from("2b1k3/8/8/1p1p1p1p/1P1P1P2/7P/8/2B1K3 w - - 0 40", "60");
        assert!(g.automatic_end(false).is_none());
        play_uci(&mut g, "h3h4");
        let finish = g.automatic_end(false).expect("a dead position");
        assert_eq!(finish.result, GameResult::Draw);
        assert_eq!(finish.termination, Termination::Normal);
        assert_eq!(finish.reason, "Dead position: neither side can mate");
        assert!(!g.position().is_insufficient_material());
    }

    #[test]
    fn a_flag_in_a_blocked_pawn_wall_is_a_draw_when_the_opponent_cannot_mate() {
        // chasolver's README position (lichess.org/ijyj0mHa): White's flag falls, and
        // Black cannot mate through the wall, though White could.
        let mut g = from("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60", "60");
        assert!(g.automatic_end(false).is_none(), "White can still mate");
        let finish = g.flag(Color::White);
        assert_eq!(finish.result, GameResult::Draw);
        assert_eq!(finish.termination, Termination::TimeForfeit);
        assert_eq!(
            finish.reason,
            "White forfeits on time, but Black cannot mate"
        );
        // Black's flag there loses: White has a helpmate.
        let finish = g.flag(Color::Black);
        assert_eq!(finish.result, GameResult::WhiteWins);
        assert_eq!(finish.reason, "Black forfeits on time");
    }

    #[test]
    fn a_flag_is_a_draw_when_only_the_full_search_proves_the_opponent_cannot_mate() {
        // From chasolver's test set: White's rook never gets past its own pawns, which
        // the fast check cannot prove, so the game plays on; the flag is a draw all
        // the same, where the material rule alone called it a loss.
        let mut g = from("2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 50", "60");
        assert!(g.automatic_end(false).is_none());
        assert!(!g.position().has_insufficient_material(Color::White));
        assert_eq!(g.flag(Color::Black).result, GameResult::Draw);
    }

    #[test]
    fn flag_with_a_bare_king_opponent_is_a_draw() {
        let pos: Chess = "8/8/8/4k3/8/8/4P3/4K3 b - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut g = Game::new(pos, &"60".parse().unwrap());
        assert_eq!(g.flag(Color::White).result, GameResult::Draw);
        let finish = g.flag(Color::Black);
        assert_eq!(finish.result, GameResult::WhiteWins);
        assert_eq!(finish.termination, Termination::TimeForfeit);
    }
}
