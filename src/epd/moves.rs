//! Lenient reading of chess moves in EPD operands.
//!
//! The spec (5.2.2) asks for moves in SAN, but clients on the referee's lines
//! write them in many near-SAN dialects: without check marks, with `0-0` for
//! castling, promotions without `=`, an `e.p.` after en passant captures, or in
//! the coordinate notation that UCI engines speak. The protocol profile (section
//! 3) accepts all of these when they name exactly one legal move, so this module
//! turns such text into a [`shakmaty::Move`], and also tells the record reader
//! which unquoted tokens have the shape of a move at all.

use shakmaty::san::{San, SanError, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingSide, Chess, File, Move, Position, Rank, Role, Square};

/// Why a move text could not be resolved to a legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in any accepted notation.
    #[error("unreadable move {0:?}")]
    Unreadable(String),
    /// The text is a move, but no legal move of the position matches it.
    #[error("illegal move {0:?}")]
    Illegal(String),
    /// The text matches more than one legal move of the position.
    #[error("ambiguous move {0:?}")]
    Ambiguous(String),
}

/// Resolves `text` to exactly one legal move of `pos`.
///
/// Accepted notations:
///
/// * SAN with or without a `+` or `#` suffix, and with any `!` and `?`
///   annotations, which are dropped. Check, mate and annotation marks are not
///   verified.
/// * `0-0` and `0-0-0` for `O-O` and `O-O-O`.
/// * Promotions with or without `=`, and with the piece in either case:
///   `e8Q`, `e8=Q`, `exd8q`.
/// * An optional trailing `e.p.` or `ep`, which is not verified either.
/// * Coordinate (UCI) notation: `e2e4`, `e7e8q`, and castling as the king's
///   move, `e1g1` (or the king onto its own rook, `e1h1`).
///
/// A capture in SAN must carry its `x`, as shakmaty's SAN reader requires. When
/// a text can be read both as SAN and as coordinates (`e2e4` is also SAN for a
/// pawn on e2 moving to e4), the moves both readings name are pooled.
///
/// # Errors
///
/// Returns [`MoveError::Unreadable`] when `text` is in none of the notations
/// above, [`MoveError::Illegal`] when no legal move matches, and
/// [`MoveError::Ambiguous`] when more than one does.
pub fn resolve_move(pos: &Chess, text: &str) -> Result<Move, MoveError> {
    let Some(reading) = read(text.as_bytes()) else {
        return Err(MoveError::Unreadable(text.to_owned()));
    };
    let mut found: Option<Move> = None;
    let mut ambiguous = false;
    let mut add = |m: Move| match found {
        None => found = Some(m),
        Some(f) if f != m => ambiguous = true,
        Some(_) => {}
    };
    if let Some(san) = reading.san {
        match san.to_move(pos) {
            Ok(m) => add(m),
            Err(SanError::AmbiguousSan) => return Err(MoveError::Ambiguous(text.to_owned())),
            Err(SanError::IllegalSan) => {}
        }
    }
    if let Some(uci) = reading.uci
        && let Ok(m) = uci.to_move(pos)
    {
        add(m);
    }
    match found {
        _ if ambiguous => Err(MoveError::Ambiguous(text.to_owned())),
        Some(m) => Ok(m),
        None => Err(MoveError::Illegal(text.to_owned())),
    }
}

/// Plays the legal move `m` on `pos` and gives its SAN with its check or mate mark:
/// what `SanPlus::from_move_and_play_unchecked` gives, but with the new position's
/// moves generated only when it is check (a mate needs both; shakmaty's mark asks for
/// the position's outcome, which generates them every time).
pub fn play_san(pos: &mut Chess, m: Move) -> SanPlus {
    let san = San::from_move(pos, m);
    pos.play_unchecked(m);
    let suffix = pos.is_check().then(|| {
        if pos.legal_moves().is_empty() {
            Suffix::Checkmate
        } else {
            Suffix::Check
        }
    });
    SanPlus { san, suffix }
}

/// The SAN as the text of an `sm` operand: written by shakmaty into the thread's own
/// buffer and held inline, rather than through a formatter or a string of its own (a
/// move's SAN is written twice every ply).
pub fn san_text(san: SanPlus) -> compact_str::CompactString {
    thread_local! {
        static TEXT: std::cell::RefCell<String> = std::cell::RefCell::new(String::with_capacity(16));
    }
    TEXT.with_borrow_mut(|text| {
        text.clear();
        san.append_to_string(text);
        compact_str::CompactString::from(text.as_str())
    })
}

/// Whether `text` is a move in the lenient notation that [`resolve_move`]
/// accepts, judged by its syntax alone.
pub fn is_move_syntax(text: &str) -> bool {
    read(text.as_bytes()).is_some()
}

/// The readings of a move text.
struct Reading {
    /// The text read as (lenient) SAN.
    san: Option<San>,
    /// The text read as coordinate notation.
    uci: Option<UciMove>,
}

/// Reads a move text in the lenient notation, or returns `None`.
fn read(text: &[u8]) -> Option<Reading> {
    let core = strip_suffixes(text);
    let reading = Reading {
        san: read_san(core),
        uci: read_coordinates(core),
    };
    (reading.san.is_some() || reading.uci.is_some()).then_some(reading)
}

/// Drops trailing annotations (`!`, `?`), one check or mate mark (`+`, `#`) and
/// one en passant mark (`e.p.`, `ep`), in any order.
fn strip_suffixes(mut s: &[u8]) -> &[u8] {
    let mut check_seen = false;
    let mut ep_seen = false;
    loop {
        match s {
            [rest @ .., b'!' | b'?'] => s = rest,
            [rest @ .., b'+' | b'#'] if !check_seen => {
                check_seen = true;
                s = rest;
            }
            [rest @ .., b'e', b'.', b'p', b'.'] | [rest @ .., b'e', b'p'] if !ep_seen => {
                ep_seen = true;
                s = rest;
            }
            _ => return s,
        }
    }
}

/// Reads lenient SAN: castling with `O` or `0`, or an optional piece letter, an
/// optional origin file and rank, an optional `x`, the destination square and,
/// for pawns, an optional promotion with or without `=`.
fn read_san(s: &[u8]) -> Option<San> {
    match s {
        b"O-O" | b"0-0" => return Some(San::Castle(CastlingSide::KingSide)),
        b"O-O-O" | b"0-0-0" => return Some(San::Castle(CastlingSide::QueenSide)),
        _ => {}
    }
    let (role, rest) = match s {
        [b'N', rest @ ..] => (Role::Knight, rest),
        [b'B', rest @ ..] => (Role::Bishop, rest),
        [b'R', rest @ ..] => (Role::Rook, rest),
        [b'Q', rest @ ..] => (Role::Queen, rest),
        [b'K', rest @ ..] => (Role::King, rest),
        _ => (Role::Pawn, s),
    };
    let (rest, promotion) = match rest {
        [body @ .., b'=', p] => (body, Some(promotion_role(*p)?)),
        [body @ .., r, p] if r.is_ascii_digit() && p.is_ascii_alphabetic() => {
            // The promotion letter follows the destination rank directly.
            (&rest[..=body.len()], Some(promotion_role(*p)?))
        }
        _ => (rest, None),
    };
    if promotion.is_some() && role != Role::Pawn {
        return None;
    }
    let [prefix @ .., tf, tr] = rest else {
        return None;
    };
    let to = square(*tf, *tr)?;
    let (prefix, capture) = match prefix {
        [prefix @ .., b'x'] => (prefix, true),
        _ => (prefix, false),
    };
    let (file, rank) = match *prefix {
        [] => (None, None),
        [f] if (b'a'..=b'h').contains(&f) => (Some(file(f)?), None),
        [r] if (b'1'..=b'8').contains(&r) => (None, Some(rank(r)?)),
        [f, r] => (Some(file(f)?), Some(rank(r)?)),
        _ => return None,
    };
    if role == Role::Pawn && capture && file.is_none() {
        return None;
    }
    Some(San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    })
}

/// Reads coordinate notation: two squares and an optional promotion letter in
/// either case.
fn read_coordinates(s: &[u8]) -> Option<UciMove> {
    let (from, to, promotion) = match *s {
        [ff, fr, tf, tr] => (square(ff, fr)?, square(tf, tr)?, None),
        [ff, fr, tf, tr, p] => (square(ff, fr)?, square(tf, tr)?, Some(promotion_role(p)?)),
        _ => return None,
    };
    Some(UciMove::Normal {
        from,
        to,
        promotion,
    })
}

/// The piece a pawn may promote to, from its letter in either case.
fn promotion_role(letter: u8) -> Option<Role> {
    match letter.to_ascii_uppercase() {
        b'N' => Some(Role::Knight),
        b'B' => Some(Role::Bishop),
        b'R' => Some(Role::Rook),
        b'Q' => Some(Role::Queen),
        _ => None,
    }
}

fn file(f: u8) -> Option<File> {
    File::from_char(char::from(f))
}

fn rank(r: u8) -> Option<Rank> {
    Rank::from_char(char::from(r))
}

fn square(f: u8, r: u8) -> Option<Square> {
    Some(Square::from_coords(file(f)?, rank(r)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn uci(pos: &Chess, text: &str) -> Move {
        text.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    fn ok(pos: &Chess, text: &str, expected: &str) {
        assert_eq!(
            resolve_move(pos, text),
            Ok(uci(pos, expected)),
            "{text} should be {expected}"
        );
    }

    #[test]
    fn plain_san_and_suffixes() {
        let start = Chess::default();
        ok(&start, "e4", "e2e4");
        ok(&start, "Nf3", "g1f3");
        ok(&start, "Nf3+", "g1f3");
        ok(&start, "Nf3#", "g1f3");
        ok(&start, "Nf3!", "g1f3");
        ok(&start, "Nf3?!", "g1f3");
        ok(&start, "Nf3+!!", "g1f3");
        ok(&start, "Ngf3", "g1f3");
        ok(&start, "N1f3", "g1f3");
        ok(&start, "Ng1f3", "g1f3");
    }

    #[test]
    fn check_marks_are_kept_optional() {
        // After 1. e4 f5 the queen checks on h5.
        let p = pos("rnbqkbnr/ppppp1pp/8/5p2/4P3/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 2");
        ok(&p, "Qh5+", "d1h5");
        ok(&p, "Qh5", "d1h5");
        ok(&p, "exf5", "e4f5");
    }

    #[test]
    fn castling_in_all_spellings() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for text in ["O-O", "0-0", "O-O+", "e1g1", "e1h1"] {
            ok(&p, text, "e1g1");
        }
        for text in ["O-O-O", "0-0-0", "0-0-0!", "e1c1", "e1a1"] {
            ok(&p, text, "e1c1");
        }
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        ok(&p, "0-0", "e8g8");
        ok(&p, "O-O-O", "e8c8");
    }

    #[test]
    fn promotions_in_all_spellings() {
        let p = pos("3r4/4P3/8/8/8/8/8/k6K w - - 0 1");
        for text in ["e8=Q", "e8Q", "e8q", "e8=q", "e8=Q+", "e7e8q", "e7e8Q"] {
            ok(&p, text, "e7e8q");
        }
        for text in ["exd8=N", "exd8N", "exd8n", "e7d8n"] {
            ok(&p, text, "e7d8n");
        }
        assert_eq!(resolve_move(&p, "e8"), Err(MoveError::Illegal("e8".into())));
        assert_eq!(
            resolve_move(&p, "e7e8"),
            Err(MoveError::Illegal("e7e8".into()))
        );
        assert_eq!(
            resolve_move(&p, "e8=K"),
            Err(MoveError::Unreadable("e8=K".into()))
        );
        assert_eq!(
            resolve_move(&p, "Ke8=Q"),
            Err(MoveError::Unreadable("Ke8=Q".into()))
        );
    }

    #[test]
    fn en_passant_marks() {
        let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        for text in [
            "exf6",
            "exf6e.p.",
            "exf6ep",
            "exf6e.p.+",
            "exf6+e.p.",
            "e5f6",
        ] {
            ok(&p, text, "e5f6");
        }
    }

    #[test]
    fn coordinate_notation() {
        let start = Chess::default();
        ok(&start, "e2e4", "e2e4");
        ok(&start, "g1f3", "g1f3");
        ok(&start, "b1c3", "b1c3");
        assert_eq!(
            resolve_move(&start, "e2e5"),
            Err(MoveError::Illegal("e2e5".into()))
        );
        // A pawn capture in coordinates has no `x`, which only the coordinate
        // reading can match.
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        ok(&p, "e4d5", "e4d5");
    }

    #[test]
    fn the_three_errors() {
        let start = Chess::default();
        for text in [
            "", "xyz", "e9", "Nf", "--", "Z0", "N@f3", "0000", "O-O-O-O", "e4 ",
        ] {
            assert_eq!(
                resolve_move(&start, text),
                Err(MoveError::Unreadable(text.into())),
                "{text:?}"
            );
        }
        for text in ["e5", "Nf4", "O-O", "exd5", "Ke2", "Nxf3"] {
            assert_eq!(
                resolve_move(&start, text),
                Err(MoveError::Illegal(text.into())),
                "{text:?}"
            );
        }
        let p = pos("k7/8/8/8/8/8/8/KN3N2 w - - 0 1");
        assert_eq!(
            resolve_move(&p, "Nd2"),
            Err(MoveError::Ambiguous("Nd2".into()))
        );
        ok(&p, "Nbd2", "b1d2");
        ok(&p, "Nfd2", "f1d2");
        ok(&p, "f1d2", "f1d2");
        assert_eq!(
            MoveError::Ambiguous("Nd2".into()).to_string(),
            "ambiguous move \"Nd2\""
        );
    }

    #[test]
    fn syntax_without_position() {
        for text in [
            "e4", "Nf3+", "O-O", "0-0-0", "e8=Q", "e8Q", "exd8q", "exd6e.p.", "exd6ep", "e2e4",
            "e7e8q", "e1g1", "Qh4xe1#", "R1a3", "Nbd7!?",
        ] {
            assert!(is_move_syntax(text), "{text}");
        }
        for text in [
            "",
            "e",
            "e9",
            "i4",
            "respond",
            "O-O-O-O",
            "0-0-0-0",
            "Nf3++",
            "exd6e.p.e.p.",
            "Nf3=Q",
            "xe4",
            "Pe4",
            "N@f3",
            "--",
            "e4 ",
            "abc1",
        ] {
            assert!(!is_move_syntax(text), "{text}");
        }
    }
}
