//! Fuzz target `move_reader`: move texts are resolved in positions reached by a few
//! random legal moves, and whatever `resolve_move` accepts is a legal move there.
//!
//! The input is: a byte choosing the start position, a byte giving the number of plies
//! (0 to 31), one byte per ply choosing among the legal moves, a byte choosing a legal
//! move whose SAN and coordinates must both resolve back to it, and then the move text.

#![no_main]

use argus::epd::{MoveError, is_move_syntax, resolve_move};
use libfuzzer_sys::fuzz_target;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Position};

/// Start positions with castling, en passant, promotions and ambiguous pieces.
const STARTS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1pp1ppp/8/8/8/8/P1PP1PPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
    "k7/8/8/8/1N3N2/8/8/1R2K2R w - - 0 1",
    "k7/8/8/2Q1Q3/8/2Q1Q3/8/4K3 w - - 0 1",
];

fuzz_target!(|data: &[u8]| {
    let [start, plies, rest @ ..] = data else {
        return;
    };
    let fen: Fen = STARTS[usize::from(*start) % STARTS.len()].parse().unwrap();
    let mut pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    let plies = usize::from(plies % 32).min(rest.len());
    let (choices, rest) = rest.split_at(plies);
    for &choice in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[usize::from(choice) % moves.len()]);
    }
    let Some((&pick, text)) = rest.split_first() else {
        return;
    };
    let moves = pos.legal_moves();
    if let Some(&m) = moves.get(usize::from(pick) % moves.len().max(1)) {
        let san = SanPlus::from_move(pos.clone(), m).to_string();
        assert_eq!(resolve_move(&pos, &san), Ok(m), "SAN {san}");
        let uci = m.to_uci(CastlingMode::Standard).to_string();
        assert_eq!(resolve_move(&pos, &uci), Ok(m), "coordinates {uci}");
    }
    let text = String::from_utf8_lossy(text);
    match resolve_move(&pos, &text) {
        Ok(m) => assert!(pos.is_legal(m), "{text:?} resolved to the illegal {m:?}"),
        Err(MoveError::Unreadable(_)) => assert!(!is_move_syntax(&text)),
        Err(_) => assert!(is_move_syntax(&text)),
    }
});
