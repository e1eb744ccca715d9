//! Dead positions beyond bare material: whether a side can mate by any legal sequence
//! of moves (FIDE articles 5.2.2 and 6.9), decided by CHA-Solver (the `chasolver`
//! crate, after Ambrona's "A Practical Algorithm for Chess Unwinnability", FUN 2022).
//!
//! chasolver reads boards of the `chess` crate, so a position goes over as the board its
//! FEN would give, built square by square.
//! This module is only that adapter; every answer is chasolver's:
//!
//! - [`is_dead`], after every move, asks the fast check (`is_unwinnable_fast`) for both
//!   sides. It is sound: it never calls a position dead that either side can still win.
//!   It is incomplete: a few dead positions (mostly constructed ones) it cannot prove,
//!   and those play on, to the fifty- or seventy-five-move rule as before. In most
//!   positions `shortcut` knows, for much less work, that the check would prove
//!   nothing for one side, and the check is not run.
//! - [`Watch`] gives [`is_dead`]'s answer for each position of a game with less work: a
//!   helpmate once found carries over the moves that could be taken back (see there).
//! - [`can_mate`], at a flag fall, asks the full search (`winnability`) for one side.
//!   It decides every position of real play known to its author, and says so when its
//!   node limit leaves a position undecided.
//!
//! All are deterministic (node limits, no clock), as the core must be for replay.

mod shortcut;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, EnPassantMode, Move, MoveList, Position, Role, Square};

/// Whether neither side can checkmate by any legal sequence of moves, as far as
/// chasolver's fast check proves it. Bare material (shakmaty's insufficient material)
/// is dead too, and is answered without the solver.
pub fn is_dead(pos: &Chess) -> bool {
    pos.is_insufficient_material() || proven_dead(pos, &pos.legal_moves(), None)
}

/// chasolver's fast check for both sides, unless it is sure to fail for one of them
/// (`shortcut`). `moves`: the legal moves in `pos`; `last`: the move that reached it.
fn proven_dead(pos: &Chess, moves: &MoveList, last: Option<Move>) -> bool {
    if shortcut::fast_check_fails(pos, moves, last) {
        return false;
    }
    let Some(board) = to_board(pos) else {
        return false;
    };
    // The side not to move first: it has just moved, and its chances are usually the
    // ones still alive, so the check usually stops after one call.
    let [first, second] = [!pos.turn(), pos.turn()].map(to_color);
    chasolver::is_unwinnable_fast(&board, first) && chasolver::is_unwinnable_fast(&board, second)
}

/// [`is_dead`] for the positions of one game, move by move, with the same answers and
/// less work.
///
/// The fast check costs most in endgames behind locked pawns, where the players can
/// shuffle for many moves (chasolver then runs its static analysis every time, about a
/// hundred times a usual ply's work). There, once in a stretch of such play, the full
/// search looks for a helpmate, and the line it finds is played through on shakmaty's
/// board before it is believed. While the position is known to be winnable, a move
/// that can be taken back keeps it so: if the opponent can move a piece, the mover can
/// then move back and the opponent can move back too, the position known to be winnable
/// is reached again, and its helpmate follows. A position one side can mate is not
/// dead, and the fast check, being sound, would not have called it dead: so the answer
/// is [`is_dead`]'s whether the check runs or not. Where no helpmate is known, the fast
/// check runs as before.
///
/// The search takes 0.2 ms at the median over the locked positions of 200 random games
/// (7 ms at most), and 19 ms at most over chasolver's own test set. It sits on the
/// referee's thread between a reply and its relay, where no clock runs. Its cost is
/// bounded three ways, none of which changes an answer: it runs once in a stretch of
/// play between captures, pawn moves and castlings (again only if its helpmate carried
/// over [`CARRIED_TO_SEARCH_AGAIN`] moves before it was lost); a search that found
/// none waits for the next stretch; and a game makes at most [`MAX_SEARCHES`] (each is
/// bounded in nodes, not in time: chasolver's last phase allows millions, which a
/// constructed position could reach).
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// A side is known to be able to mate from the current position.
    winnable: bool,
    /// No search until the next capture, pawn move or castling.
    no_search: bool,
    /// The moves the current helpmate has been carried over.
    carried: u32,
    /// The searches the game has made.
    searches: u32,
}

/// How many of the opponent's moves are tried as the first step of a way back.
const WAY_BACK_TRIES: usize = 4;

/// A helpmate lost on a move that could not be taken back is searched for again only
/// if it had been carried over this many moves (a search pays for itself over a long
/// stretch).
pub const CARRIED_TO_SEARCH_AGAIN: u32 = 8;

/// The most searches a game makes.
pub const MAX_SEARCHES: u32 = 32;

impl Watch {
    /// Whether `pos`, just reached from `before` by `m` (`moves`: its legal moves), is
    /// dead, as [`is_dead`] says.
    pub fn after(&mut self, before: &Chess, m: Move, pos: &Chess, moves: &MoveList) -> bool {
        if self.winnable {
            if way_back(before, m, pos, moves) {
                self.carried += 1;
                return false;
            }
            self.winnable = false;
            self.no_search = self.carried < CARRIED_TO_SEARCH_AGAIN;
        }
        if m.is_zeroing() || m.is_castle() {
            self.no_search = false;
        }
        if pos.is_insufficient_material() {
            return true;
        }
        if !self.no_search && self.searches < MAX_SEARCHES && locked_pawns(pos) {
            self.searches += 1;
            if helpmate(pos, !pos.turn()) {
                self.winnable = true;
                self.carried = 0;
                return false;
            }
            self.no_search = true;
        }
        proven_dead(pos, moves, Some(m))
    }
}

/// Whether `after`, reached from `before` by `m`, can come back to `before` in three
/// legal plies: an opponent's piece moves, `m` is taken back, the opponent's piece moves
/// back. Tries the first few of the opponent's moves that could be taken back.
fn way_back(before: &Chess, m: Move, after: &Chess, moves: &MoveList) -> bool {
    let Move::Normal {
        role,
        from,
        capture: None,
        to,
        promotion: None,
    } = m
    else {
        return false;
    };
    if role == Role::Pawn || before.ep_square(EnPassantMode::Legal).is_some() {
        return false;
    }
    let reverse = |role, from, to| Move::Normal {
        role,
        from: to,
        capture: None,
        to: from,
        promotion: None,
    };
    let back = reverse(role, from, to);
    moves
        .iter()
        .filter_map(|&o| match o {
            Move::Normal {
                role,
                from,
                capture: None,
                to,
                promotion: None,
            } if role != Role::Pawn => Some((o, reverse(role, from, to))),
            _ => None,
        })
        .take(WAY_BACK_TRIES)
        .any(|(out, home)| {
            let mut p = after.clone();
            p.play_unchecked(out);
            if !p.is_legal(back) {
                return false;
            }
            p.play_unchecked(back);
            if !p.is_legal(home) {
                return false;
            }
            p.play_unchecked(home);
            p.board() == before.board()
                && p.turn() == before.turn()
                && p.castles().castling_rights() == before.castles().castling_rights()
        })
}

/// Roughly where chasolver's fast check goes on to its static analysis: pawns that
/// stand against each other (a pawn with an enemy pawn or the enemy king right in front,
/// for about half the pawns) and no pawn without an enemy pawn on its file. Only the
/// work depends on it, never an answer.
fn locked_pawns(pos: &Chess) -> bool {
    let enough_blocked = |side| !shortcut::few_blocked(pos, side);
    (enough_blocked(Color::White) || enough_blocked(Color::Black)) && !shortcut::lonely_pawns(pos)
}

/// Whether chasolver's full search finds a helpmate for `color` from `pos` that
/// shakmaty's board confirms: every move legal, and `color` mates at the end.
fn helpmate(pos: &Chess, color: Color) -> bool {
    let Some(board) = to_board(pos) else {
        return false;
    };
    let Some(chasolver::Winnability::Winnable { helpmate }) =
        chasolver::winnability(&board, to_color(color))
    else {
        return false;
    };
    let mut p = pos.clone();
    for step in helpmate {
        let square = |sq: chess::Square| Square::new(u32::from(sq.to_int()));
        let uci = UciMove::Normal {
            from: square(step.get_source()),
            to: square(step.get_dest()),
            promotion: step.get_promotion().map(|piece| match piece {
                chess::Piece::Knight => Role::Knight,
                chess::Piece::Bishop => Role::Bishop,
                chess::Piece::Rook => Role::Rook,
                chess::Piece::Queen => Role::Queen,
                chess::Piece::Pawn => Role::Pawn,
                chess::Piece::King => Role::King,
            }),
        };
        match uci.to_move(&p) {
            Ok(m) => p.play_unchecked(m),
            Err(_) => return false,
        }
    }
    p.is_checkmate() && p.turn() == !color
}

/// Whether `color` can checkmate by some legal sequence of moves (the other side
/// helping): `Some(true)` or `Some(false)` when chasolver decides it, `None` when its
/// search stops at its node limit, or in the (never seen) case that the `chess` crate
/// refuses a position shakmaty accepts.
pub fn can_mate(pos: &Chess, color: Color) -> Option<bool> {
    if pos.has_insufficient_material(color) {
        return Some(false);
    }
    let board = to_board(pos)?;
    let winner = to_color(color);
    if chasolver::is_unwinnable_fast(&board, winner) {
        return Some(false);
    }
    match chasolver::winnability(&board, winner)? {
        chasolver::Winnability::Winnable { .. } => Some(true),
        chasolver::Winnability::Unwinnable => Some(false),
    }
}

/// The position as a board of the `chess` crate: the board its FEN would give (the
/// pieces, the side to move, the castling rights and the en passant file only when a
/// capture is legal), built square by square rather than written and parsed.
fn to_board(pos: &Chess) -> Option<chess::Board> {
    use shakmaty::{CastlingSide, EnPassantMode, Role};
    let mut builder = chess::BoardBuilder::new();
    for (sq, piece) in pos.board() {
        let square = chess::Square::make_square(
            chess::Rank::from_index(usize::from(sq.rank())),
            chess::File::from_index(usize::from(sq.file())),
        );
        let role = match piece.role {
            Role::Pawn => chess::Piece::Pawn,
            Role::Knight => chess::Piece::Knight,
            Role::Bishop => chess::Piece::Bishop,
            Role::Rook => chess::Piece::Rook,
            Role::Queen => chess::Piece::Queen,
            Role::King => chess::Piece::King,
        };
        builder.piece(square, role, to_color(piece.color));
    }
    builder.side_to_move(to_color(pos.turn()));
    for color in Color::ALL {
        let castles = pos.castles();
        let rights = match (
            castles.has(color, CastlingSide::KingSide),
            castles.has(color, CastlingSide::QueenSide),
        ) {
            (true, true) => chess::CastleRights::Both,
            (true, false) => chess::CastleRights::KingSide,
            (false, true) => chess::CastleRights::QueenSide,
            (false, false) => chess::CastleRights::NoRights,
        };
        builder.castle_rights(to_color(color), rights);
    }
    builder.en_passant(
        pos.ep_square(EnPassantMode::Legal)
            .map(|sq| chess::File::from_index(usize::from(sq.file()))),
    );
    chess::Board::try_from(&builder).ok()
}

/// The board as it was made before [`to_board`] built it: through its FEN.
#[cfg(test)]
fn to_board_by_fen(pos: &Chess) -> Option<chess::Board> {
    use std::str::FromStr;
    chess::Board::from_str(&super::fen_text(pos)).ok()
}

fn to_color(color: Color) -> chess::Color {
    color.fold_wb(chess::Color::White, chess::Color::Black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    /// Positions of chasolver's own test set (its `tests/positions.txt`, MIT), each with
    /// its classification there: `W` if White can mate, `B` if Black can, `-` if not.
    const POSITIONS: [(&str, &str); 10] = [
        // Dead, and the fast check proves it: bishops behind locked pawn walls.
        ("--", "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -"),
        ("--", "Bb1k1b2/bKp1p1p1/1pP1P1P1/1P6/p5P1/P7/8/8 w - -"),
        ("--", "5k2/4p3/3pPp2/2pP1Pp1/1pPK2Pp/pP5P/P7/8 w - -"),
        (
            "--",
            "bqn1KN2/rrk1pB2/nb1pPp1p/p1pP1PpP/PpP3P1/1P2N1R1/4Q3/1R4B1 w - -",
        ),
        // Dead, but only the full search proves it: the rook cannot cross the wall.
        ("--", "2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - -"),
        // One side can mate, the other cannot.
        ("W-", "Bb1k1b2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8 w - -"),
        ("W-", "Bb2kb2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8 b - -"),
        // Both can mate, though the walls look locked.
        ("WB", "5brk/4p1p1/3pP1P1/1B1P2p1/3p2p1/3P4/4K1P1/8 w - -"),
        ("WB", "8/8/7p/1k3p2/3p1P2/1p1P1PpP/1P4P1/K7 b - -"),
        ("WB", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
    ];

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn the_full_search_agrees_with_chasolvers_test_set() {
        for (class, fen) in POSITIONS {
            let p = pos(fen);
            let white = class.starts_with('W');
            let black = class.ends_with('B');
            assert_eq!(can_mate(&p, Color::White), Some(white), "White in {fen}");
            assert_eq!(can_mate(&p, Color::Black), Some(black), "Black in {fen}");
        }
    }

    #[test]
    fn the_fast_check_finds_dead_positions_and_never_a_live_one() {
        for (i, (class, fen)) in POSITIONS.into_iter().enumerate() {
            let dead = class == "--";
            // The fifth position is dead, but beyond what the fast check proves.
            let found = dead && i != 4;
            assert_eq!(is_dead(&pos(fen)), found, "{class} {fen}");
            assert_eq!(by_chasolver_alone(&pos(fen)), found, "{class} {fen}");
        }
    }

    /// Bare material, or chasolver's fast check for both sides, without the shortcut.
    fn by_chasolver_alone(pos: &Chess) -> bool {
        let board = to_board(pos).expect("a board");
        pos.is_insufficient_material()
            || Color::ALL
                .into_iter()
                .all(|side| chasolver::is_unwinnable_fast(&board, to_color(side)))
    }

    /// The watch's answer is [`is_dead`]'s, and chasolver's alone, at every ply of
    /// seeded random games, from the start and from endgames behind locked pawns (where it carries helpmates over
    /// many moves, as it must for the test to mean anything), and in the positions of
    /// the test set.
    #[test]
    fn the_watch_answers_as_the_fast_check_does() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8/5k2/1p1K4/pP6/P7/8/8/8 w - - 0 60",
            "8/1k6/1p6/pP2q3/P4K2/8/8/8 w - - 0 60",
            "2k5/n7/pr6/P7/7Q/8/1N2N2p/5K2 w - - 0 60",
            "2b1k3/8/8/1p1p1p1p/1P1P1P2/7P/8/2B1K3 w - - 0 40",
            "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60",
            "4k3/2b5/1p1p1p1p/1P1P1P1P/8/8/3BK3/8 w - - 0 50",
        ];
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut plies, mut carried, mut dead) = (0, 0, 0);
        for game in 0..60 {
            let mut p = pos(starts[game % starts.len()]);
            let mut watch = Watch::default();
            for _ in 0..200 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let before = p.clone();
                let m = moves[rng.usize(..moves.len())];
                p.play_unchecked(m);
                let known = watch.winnable;
                let answer = watch.after(&before, m, &p, &p.legal_moves());
                let fen = crate::core::fen_text(&p);
                assert_eq!(answer, is_dead(&p), "{fen}");
                assert_eq!(answer, by_chasolver_alone(&p), "{fen}");
                plies += 1;
                carried += usize::from(known && watch.winnable && !m.is_zeroing());
                if answer {
                    dead += 1;
                    break;
                }
            }
        }
        assert!(
            plies > 5_000 && carried > 500 && dead > 0,
            "{plies} plies, {carried} carried, {dead} dead"
        );
    }

    #[test]
    fn a_helpmate_carries_over_a_king_move_that_can_be_taken_back_and_not_a_pawn_move() {
        fn play(watch: &mut Watch, p: &mut Chess, uci: &str) -> bool {
            let before = p.clone();
            let m = uci.parse::<UciMove>().unwrap().to_move(p).unwrap();
            p.play_unchecked(m);
            watch.after(&before, m, p, &p.legal_moves())
        }
        let mut p = pos("8/5k2/1p1K4/pP6/P7/8/8/8 w - - 0 60");
        let mut watch = Watch::default();
        // A king move behind the locked pawns: the full search finds a helpmate.
        assert!(!play(&mut watch, &mut p, "d6c6"));
        assert!(watch.winnable);
        // Black's king and White's can both go back: the helpmate carries over.
        assert!(!play(&mut watch, &mut p, "f7e7"));
        assert!(watch.winnable);
        assert!(!play(&mut watch, &mut p, "c6b7"));
        assert!(watch.winnable);
        assert!(!play(&mut watch, &mut p, "e7d7"));
        assert!(watch.winnable);
        // A capture cannot be taken back; the pawns are no longer locked either.
        assert!(!play(&mut watch, &mut p, "b7b6"));
        assert!(!watch.winnable);
    }

    #[test]
    fn bare_material_is_dead_without_the_solver() {
        let p = pos("8/8/4k3/8/8/3BK3/8/8 b - - 0 1");
        assert!(is_dead(&p));
        assert_eq!(can_mate(&p, Color::White), Some(false));
    }

    /// The board built square by square is the one the FEN gave, in the positions of
    /// seeded random games (castling, en passant, promotions, bare kings) and of the
    /// test set.
    #[test]
    fn the_board_is_the_one_its_fen_gives() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut checked = 0;
        for (_, fen) in POSITIONS {
            let p = pos(fen);
            assert_eq!(to_board(&p), to_board_by_fen(&p), "{fen}");
        }
        for _ in 0..200 {
            let mut p = Chess::default();
            for _ in 0..300 {
                assert_eq!(to_board(&p), to_board_by_fen(&p));
                checked += 1;
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[rng.usize(..moves.len())]);
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn the_fen_round_trip_keeps_the_en_passant_square() {
        // After 1. e4 d5 2. e5 f5, exf6 e.p. is legal: the board must come over with
        // its en passant file (the chess crate names the pawn that may be taken).
        let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        let board = to_board(&p).expect("converts");
        assert_eq!(board.en_passant(), Some(chess::Square::F5));
        assert!(!is_dead(&p));
    }
}
