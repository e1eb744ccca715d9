//! A cheap way to know, in most positions of a game, that chasolver's fast check would
//! prove nothing, without running it.
//!
//! The fast check (`is_unwinnable_fast` of chasolver 3.0.0, pinned in Cargo.toml) proves
//! a side unable to mate in one of these ways, and in no other:
//!
//! 1. the side to move has one legal move, and the forced moves repeat or end the game;
//! 2. a full-width search of 4 plies (7 when only pawns, bishops and kings are left)
//!    ends every line with the side short of mating material or the game over without
//!    its mate (`is_dynamically_unwinnable`);
//! 3. later phases, all of which need at least `max(1, pawns / 2 - 2)` of the side's
//!    pawns blocked by an enemy pawn or the enemy king right in front
//!    (`low_entropy_candidate`); all but a deep search of pawns and bishops, run with 8
//!    legal moves or fewer, need also that every pawn faces an enemy pawn on its file
//!    (no `has_lonely_pawns`).
//!
//! [`fast_check_fails`] says the check proves nothing for a side when:
//!
//! - the side to move has two legal moves or more, so that no move is forced (1);
//! - the side has mating material as chasolver counts it, and a line of legal moves
//!   without a capture goes on as deep as the search goes ([`shuffle`]), so that
//!   the search has a line it cannot close (2);
//! - too few of its pawns are blocked, or (with more than 8 legal moves or a knight,
//!   rook or queen on the board) some pawn is lonely (3).
//!
//! A position is dead only if the check proves both sides unable to mate. Where it is
//! sure to prove nothing for one side, the position is not dead, as the check would
//! have said. The tests hold every such answer against chasolver itself, at every ply of
//! seeded random games. It costs a few legality tests where the check costs a board
//! conversion, often a mirrored board, and a search.

use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Rank, Role};

/// How many of a side's moves are tried as a shuffle's first move.
const TRIES: usize = 4;

/// Whether chasolver's fast check is sure to prove nothing for one side at least, so
/// that `pos` is not dead. `moves`: the legal moves in `pos`; `last`: the move that
/// reached it, if known (its reverse is the other side's first shuffle to try).
pub(super) fn fast_check_fails(pos: &Chess, moves: &MoveList, last: Option<Move>) -> bool {
    if moves.len() < 2
        || !Color::ALL
            .into_iter()
            .any(|side| gates_open(pos, moves, side))
    {
        return false;
    }
    shuffle(pos, moves, last).is_some()
}

fn only_pawns_and_bishops(pos: &Chess) -> bool {
    let board = pos.board();
    (board.knights() | board.rooks() | board.queens()).is_empty()
}

/// Whether `side` has mating material as chasolver counts it, and its later phases
/// cannot run: too few of its pawns are blocked (its `low_entropy_candidate`), or some
/// pawn has no enemy pawn on its file (its `has_lonely_pawns`, which rules out all but
/// the deep search of pawns and bishops, run only with 8 legal moves or fewer).
fn gates_open(pos: &Chess, moves: &MoveList, side: Color) -> bool {
    !insufficient(pos, side)
        && (few_blocked(pos, side)
            || (lonely_pawns(pos) && !(only_pawns_and_bishops(pos) && moves.len() <= 8)))
}

/// Whether fewer of `side`'s pawns stand blocked (an enemy pawn or the enemy king right
/// in front: chasolver's `nb_blocked_pawns`) than its later phases need,
/// `max(1, pawns / 2 - 2)`.
pub(super) fn few_blocked(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let (ours, theirs) = (board.by_color(side), board.by_color(!side));
    let pawns = board.pawns();
    let ahead = |b: Bitboard| side.fold_wb(b.0 << 8, b.0 >> 8);
    let blocked = Bitboard(ahead(ours & pawns)) & theirs & (pawns | board.kings());
    let needed = (pawns.count() as i32 / 2 - 2).max(1) as usize;
    blocked.count() < needed
}

/// chasolver's `has_lonely_pawns` (the same for both sides): the files of White's pawns
/// not on the seventh rank differ from those of Black's not on the second.
pub(super) fn lonely_pawns(pos: &Chess) -> bool {
    let board = pos.board();
    let files = |side: Color, skip: Rank| {
        (board.by_color(side) & board.pawns())
            .into_iter()
            .filter(|sq| sq.rank() != skip)
            .fold(0u8, |files, sq| files | 1 << u32::from(sq.file()))
    };
    files(Color::White, Rank::Seventh) != files(Color::Black, Rank::Second)
}

/// chasolver's `insufficient_white_material` for `side`.
fn insufficient(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let (ours, theirs) = (board.by_color(side), board.by_color(!side));
    if ours.count() == 1 {
        return true;
    }
    let minors = board.knights() | board.bishops();
    if ours.count() == 2
        && (ours & board.knights()).any()
        && (theirs & (minors | board.rooks() | board.pawns())).is_empty()
    {
        return true;
    }
    let our_bishops = ours & board.bishops();
    if our_bishops.any() {
        let shade = if (our_bishops & Bitboard::DARK_SQUARES).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if ours.count() == our_bishops.count() + 1
            && (board.bishops() & !shade).is_empty()
            && board.knights().is_empty()
            && board.pawns().is_empty()
        {
            return true;
        }
    }
    false
}

/// Two moves `a` (one of `moves`) and `b` (the reverse of `last`, or one of the other
/// side's moves) such that `a`, `b`, `a` back and `b` back are legal from `pos`, none a
/// capture. The board and the side to move are then those of `pos` again, so the same
/// four moves go on legally as deep as a search goes (a normal move's legality depends
/// on nothing else), every position on the way with a legal move and all the material.
fn shuffle(pos: &Chess, moves: &MoveList, last: Option<Move>) -> Option<(Move, Move)> {
    let undo_last = last.filter(shuffles).map(reverse);
    moves
        .iter()
        .filter(|m| shuffles(m))
        .take(TRIES)
        .find_map(|&a| {
            let mut after_a = pos.clone();
            after_a.play_unchecked(a);
            // After `a`, the reverse of `last`, and `a` back, the board and the side to
            // move are those before `last`, where `last` (that reverse's reverse) was legal.
            if let Some(b) = undo_last.filter(|&b| after_a.is_legal(b))
                && back(&after_a, a, b, false)
            {
                return Some((a, b));
            }
            after_a
                .legal_moves()
                .iter()
                .filter(|m| shuffles(m))
                .take(TRIES)
                .find(|&&b| back(&after_a, a, b, true))
                .map(|&b| (a, b))
        })
}

/// From the position after `a`, `b` being legal there: whether `a` back is legal after
/// `b`, and then (if `check_b`) `b` back.
fn back(after_a: &Chess, a: Move, b: Move, check_b: bool) -> bool {
    let mut p = after_a.clone();
    p.play_unchecked(b);
    if !p.is_legal(reverse(a)) {
        return false;
    }
    if !check_b {
        return true;
    }
    p.play_unchecked(reverse(a));
    p.is_legal(reverse(b))
}

/// A move that leaves the material as it is and that the same piece can undo: no
/// pawn, no capture, no castling.
fn shuffles(m: &Move) -> bool {
    matches!(
        m,
        Move::Normal {
            role,
            capture: None,
            promotion: None,
            ..
        } if *role != Role::Pawn
    )
}

fn reverse(m: Move) -> Move {
    match m {
        Move::Normal { role, from, to, .. } => Move::Normal {
            role,
            from: to,
            capture: None,
            to: from,
            promotion: None,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    /// Wherever the shortcut says the fast check fails for a side, chasolver's fast check
    /// does fail for it, at every ply of seeded random games from the start and from
    /// endgames of pawns and bishops, open and locked (where the 7-ply line and the
    /// blocked pawns' gate are what decides). From the openings, the shortcut must
    /// answer for nine positions in ten at least, or it would save little.
    #[test]
    fn where_the_shortcut_says_the_fast_check_fails_it_fails() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "2b1k3/8/8/1p1p1p1p/1P1P1P2/7P/8/2B1K3 w - - 0 40",
            "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60",
            "4k3/2b5/1p1p1p1p/1P1P1P1P/8/8/3BK3/8 w - - 0 50",
            "8/5k2/1p1K4/pP6/P7/8/8/8 w - - 0 60",
            "4k3/8/2b5/8/3B4/8/2P5/4K3 w - - 0 50",
        ];
        let mut rng = fastrand::Rng::with_seed(23);
        let (mut positions, mut proven, mut lines) = (0, 0, 0);
        // From the two openings: the positions and those the shortcut answers.
        let (mut opening_plies, mut answered) = (0, 0);
        for game in 0..70 {
            let mut p: Chess = starts[game % starts.len()]
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let mut last = None;
            for _ in 0..200 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                positions += 1;
                let board = super::super::to_board(&p).expect("a board");
                let found = (moves.len() >= 2)
                    .then(|| shuffle(&p, &moves, last))
                    .flatten();
                if let Some((a, b)) = found {
                    // The line, played out to 7 plies with every move checked, and a
                    // legal move after it.
                    let mut q = p.clone();
                    for m in [a, b, reverse(a), reverse(b), a, b, reverse(a)] {
                        assert!(q.is_legal(m), "{m:?} in {}", crate::core::fen_text(&q));
                        q.play_unchecked(m);
                    }
                    assert!(q.is_legal(reverse(b)));
                    lines += 1;
                }
                let line = found.is_some();
                let mut fails = false;
                for side in Color::ALL {
                    let unwinnable =
                        chasolver::is_unwinnable_fast(&board, super::super::to_color(side));
                    proven += usize::from(unwinnable);
                    if line && gates_open(&p, &moves, side) {
                        fails = true;
                        let fen = crate::core::fen_text(&p);
                        assert!(!unwinnable, "{side:?} in {fen}");
                    }
                }
                assert_eq!(fails, fast_check_fails(&p, &moves, last));
                if game % starts.len() < 2 {
                    opening_plies += 1;
                    answered += usize::from(fails);
                }
                let m = moves[rng.usize(..moves.len())];
                p.play_unchecked(m);
                last = Some(m);
            }
        }
        assert!(
            positions > 10_000
                && answered * 10 > opening_plies * 9
                && proven > 5_000
                && lines > 5_000,
            "{positions} positions, {proven} proven unwinnable for a side, {lines} lines; \
             {answered} of {opening_plies} from the openings answered"
        );
    }
}
