//! The variant a game is played in: standard chess, or Chess960 (Fischer Random, and
//! Double Fischer Random from a book: each side's own back rank). Only castling tells
//! them apart here: in Chess960 the king and rooks start anywhere on the back rank, and
//! castling takes them to the squares they would reach in standard chess
//! (shakmaty's [`CastlingMode::Chess960`]); positions are written in X-FEN (`KQkq`,
//! with the rook's file letter where it is ambiguous) and read in X-FEN or Shredder-FEN
//! (`HAha`); UCI writes castling as the king taking its rook (`e1h1`).

use std::fmt;
use std::str::FromStr;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// A variant of chess argus plays.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard chess.
    #[default]
    Standard,
    /// Chess960.
    Chess960,
}

impl Variant {
    /// How castling is read and written in this variant.
    pub fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        }
    }

    /// Whether this is standard chess (what a config leaves out).
    pub fn is_standard(&self) -> bool {
        *self == Variant::Standard
    }

    /// The PGN `Variant` tag's value, None for standard chess (no tag).
    pub fn pgn_tag(self) -> Option<&'static str> {
        match self {
            Variant::Standard => None,
            Variant::Chess960 => Some("Chess960"),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        })
    }
}

impl FromStr for Variant {
    type Err = String;

    /// `standard`, or `chess960` (also written `960`, `fischerandom`, `frc` and, as
    /// the PGN tag has it, `Chess960`), in any case.
    fn from_str(text: &str) -> Result<Variant, String> {
        match text.to_ascii_lowercase().as_str() {
            "standard" | "normal" | "chess" => Ok(Variant::Standard),
            "chess960" | "960" | "fischerandom" | "frc" | "fischer random" => Ok(Variant::Chess960),
            _ => Err(format!(
                "{text:?} is not a variant argus plays: standard or chess960"
            )),
        }
    }
}

/// The number of Chess960 start positions.
pub const CHESS960_POSITIONS: u16 = 960;

/// Chess960 start position `number` (0 to 959, Scharnagl's numbering: 518 is the
/// standard array), the same back rank for both sides; None past 959.
///
/// ```
/// use argus::core::variant::chess960_fen;
/// assert_eq!(chess960_fen(518).unwrap(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
/// assert_eq!(chess960_fen(0).unwrap(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
/// ```
pub fn chess960_fen(number: u16) -> Option<String> {
    if number >= CHESS960_POSITIONS {
        return None;
    }
    let mut rank: [Option<char>; 8] = [None; 8];
    let n = usize::from(number);
    // The bishop on a light square (b, d, f, h), then the one on a dark square.
    rank[(n % 4) * 2 + 1] = Some('b');
    let n = n / 4;
    rank[(n % 4) * 2] = Some('b');
    let n = n / 4;
    // The queen on the (n % 6)th square left, the knights as the 10 ways of two among
    // the five left, and the rooks either side of the king on the last three.
    let free = |rank: &[Option<char>; 8]| -> Vec<usize> {
        (0..8).filter(|&i| rank[i].is_none()).collect()
    };
    rank[free(&rank)[n % 6]] = Some('q');
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n / 6];
    let left = free(&rank);
    rank[left[a]] = Some('n');
    rank[left[b]] = Some('n');
    for (square, piece) in free(&rank).into_iter().zip(['r', 'k', 'r']) {
        rank[square] = Some(piece);
    }
    let black: String = rank.iter().map(|p| p.unwrap_or('?')).collect();
    let white = black.to_ascii_uppercase();
    Some(format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1"
    ))
}

/// The position a FEN (X-FEN or Shredder-FEN) describes in `variant`.
///
/// # Errors
///
/// Why the text is not a FEN, or not a legal position of the variant.
pub fn position(fen: &str, variant: Variant) -> Result<Chess, String> {
    let fen: Fen = fen.parse().map_err(|e| format!("{e}"))?;
    fen.into_position(variant.castling_mode())
        .map_err(|e| format!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn every_start_position_is_a_legal_chess960_position_and_all_differ() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..CHESS960_POSITIONS {
            let fen = chess960_fen(n).unwrap();
            let pos =
                position(&fen, Variant::Chess960).unwrap_or_else(|e| panic!("{n}: {fen}: {e}"));
            // 16 pawn moves, 2 to 4 of the knights (fewer from a corner), and where
            // king and rook stand side by side, castling already.
            assert!((18..=22).contains(&pos.legal_moves().len()), "{fen}");
            assert!(seen.insert(fen[..8].to_string()), "{n}");
        }
        assert_eq!(chess960_fen(960), None);
        // The standard array is a legal Chess960 position too, and a standard one.
        assert!(position(&chess960_fen(518).unwrap(), Variant::Standard).is_ok());
        // Its king between the rooks, bishops on squares of both colours.
        assert!(position(&chess960_fen(0).unwrap(), Variant::Standard).is_err());
    }

    #[test]
    fn variants_read_by_their_names() {
        for text in ["chess960", "Chess960", "960", "fischerandom", "FRC"] {
            assert_eq!(text.parse::<Variant>(), Ok(Variant::Chess960), "{text}");
        }
        assert_eq!("standard".parse::<Variant>(), Ok(Variant::Standard));
        assert!("crazyhouse".parse::<Variant>().is_err());
        assert_eq!(Variant::Chess960.to_string(), "chess960");
        assert_eq!(
            serde_json::to_string(&Variant::Chess960).unwrap(),
            "\"chess960\""
        );
    }

    #[test]
    fn shredder_and_x_fen_read_alike() {
        let x = position(
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1",
            Variant::Chess960,
        )
        .unwrap();
        let shredder = position(
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
            Variant::Chess960,
        )
        .unwrap();
        assert_eq!(x, shredder);
    }
}
