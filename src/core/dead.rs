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
//!   and those play on, to the fifty- or seventy-five-move rule as before.
//! - [`can_mate`], at a flag fall, asks the full search (`winnability`) for one side.
//!   It decides every position of real play known to its author, and says so when its
//!   node limit leaves a position undecided.
//!
//! Both are deterministic (node limits, no clock), as the core must be for replay.

use shakmaty::{Chess, Color, Position};

/// Whether neither side can checkmate by any legal sequence of moves, as far as
/// chasolver's fast check proves it. Bare material (shakmaty's insufficient material)
/// is dead too, and is answered without the solver.
pub fn is_dead(pos: &Chess) -> bool {
    if pos.is_insufficient_material() {
        return true;
    }
    let Some(board) = to_board(pos) else {
        return false;
    };
    // The side not to move first: it has just moved, and its chances are usually the
    // ones still alive, so the check usually stops after one call.
    let [first, second] = [!pos.turn(), pos.turn()].map(to_color);
    chasolver::is_unwinnable_fast(&board, first) && chasolver::is_unwinnable_fast(&board, second)
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
        }
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
