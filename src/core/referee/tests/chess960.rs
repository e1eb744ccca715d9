//! A Chess960 match: castling by its rules, read in SAN or as the king taking its
//! rook, and said in the records and the PGN.

use super::*;
use crate::core::Opening;

/// King on f1 and f8 beside their rooks on g1 and g8: both may castle king-side at
/// once (the king to g1, the rook to f1).
const FRC: &str = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq -";

fn frc_config() -> MatchConfig {
    MatchConfig {
        variant: crate::core::Variant::Chess960,
        openings: vec![Opening {
            fen: format!("{FRC} 0 1"),
            tags: Vec::new(),
        }],
        ..config("60")
    }
}

#[test]
fn a_chess960_game_castles_by_its_rules_and_says_so() {
    let mut s = Script::new(frc_config());
    s.line(Port::A, 0, &format!("{FRC} refreq sign_on;"));
    s.line(Port::B, 0, &format!("{FRC} refreq sign_on;"));
    let resets = s.take();
    assert_eq!(resets.len(), 2);
    for (_, reset) in &resets {
        assert_eq!(
            reset,
            &format!("{FRC} refcom reset; variant chess960;"),
            "the reset names the variant"
        );
    }
    s.drain_all(0);
    s.input(Input::Timeout { at: ms(5000) });
    s.drain_all(5001);
    // White castles in SAN; Black as UCI writes Chess960's castling.
    s.line(Port::A, 5100, &format!("{FRC} refreq reply; sm O-O;"));
    let (port, respond) = s.sent.last().cloned().unwrap();
    assert_eq!(port, Port::B);
    assert!(respond.contains("sm O-O;"), "{respond}");
    s.drain_all(5101);
    let after = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRRKN b kq -";
    s.line(Port::B, 5200, &format!("{after} refreq reply; sm f8g8;"));
    let (_, respond) = s.sent.last().cloned().unwrap();
    // The position before Black's castling, and the castling as SAN writes it.
    assert!(respond.starts_with(&format!("{after} cc ")), "{respond}");
    assert!(respond.contains("sm O-O;"), "{respond}");
    s.drain_all(5201);
    s.line(
        Port::A,
        5300,
        "bqnbrrkn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRRKN w - - refreq reply; resign;",
    );
    let pgn = &s.reports[0].pgn;
    assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}");
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
    assert!(
        pgn.contains("[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("1. O-O {"), "{pgn}");
    assert!(pgn.contains("1... O-O {"), "{pgn}");
    // The views' UCI of the castling is Chess960's too.
    let ucis: Vec<&str> = s
        .notices
        .iter()
        .filter_map(|n| match n {
            Notice::Moved { uci, .. } => Some(uci.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ucis, ["f1g1", "f8g8"]);
}

#[test]
fn a_standard_match_refuses_a_chess960_opening_and_a_chess960_match_takes_the_standard_array() {
    let standard = MatchConfig {
        variant: crate::core::Variant::Standard,
        ..frc_config()
    };
    assert!(Referee::new(standard).is_err());
    // No opening: Chess960's own standard array, its tags saying so.
    let mut s = Script::new(MatchConfig {
        openings: Vec::new(),
        ..frc_config()
    });
    s.reach_first_respond();
    s.drain_all(5001);
    s.line(Port::A, 5100, &format!("{START} refreq reply; resign;"));
    let pgn = &s.reports[0].pgn;
    assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}");
    assert!(
        pgn.contains("[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]"),
        "{pgn}"
    );
}
