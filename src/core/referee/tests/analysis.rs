//! A reply's analysis in the PGN: its move comment, and `pv` and `pm` in canonical SAN.

use super::*;
use crate::core::referee::build::analysis_text;

#[test]
fn analysis_on_a_reply_goes_into_the_move_comment() {
    let rec = Record::from_ascii(
        format!(
            "{START} refreq reply; sm e4; ce 35; acd 12; acs 1; acn 15400; pv e4 e5 Nf3; c0 \"book\";"
        )
        .as_bytes(),
    )
    .unwrap();
    let start = Chess::default();
    assert_eq!(
        analysis_text(&rec, &start).as_deref(),
        Some("[%eval 0.35] +0.35/12 1s 15400n pv e4 e5 Nf3 book")
    );
    let mate = Record::from_ascii(format!("{START} refreq reply; ce 32762;").as_bytes()).unwrap();
    assert_eq!(
        analysis_text(&mate, &start).as_deref(),
        Some("[%eval #3] +M3")
    );
    // Black's mate in 3 is White's -3 in `[%eval]`; the cutechess part keeps the
    // mover's side.
    let black: Chess = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    assert_eq!(
        analysis_text(&mate, &black).as_deref(),
        Some("[%eval #-3] +M3")
    );
}

/// The `pv ...` or `pm ...` part of the comment for a reply from `fen` with `ops`.
fn predicted(fen: &str, ops: &str) -> Option<String> {
    let rec = Record::from_ascii(format!("{fen} refreq reply; {ops}").as_bytes()).unwrap();
    let pos = rec
        .position
        .clone()
        .into_position(CastlingMode::Standard)
        .unwrap();
    analysis_text(&rec, &pos)
}

#[test]
fn pv_and_pm_are_written_in_canonical_san_from_the_replys_position() {
    let some = |s: &str| Some(s.to_owned());
    // Coordinates, as UCI engines give them, and the check and mate marks SAN adds.
    assert_eq!(
        predicted(START, "sm e2e4; pv e2e4 e7e5 g1f3 b8c6 f1b5;"),
        some("pv e4 e5 Nf3 Nc6 Bb5")
    );
    assert_eq!(
        predicted(START, "sm f3; pv f2f3 e7e5 g2g4 d8h4;"),
        some("pv f3 e5 g4 Qh4#")
    );
    // Over-specified moves become canonical, and a wrong check mark is put right
    // (the queen on d8 stands between a8 and the king).
    assert_eq!(
        predicted(
            START,
            "sm Nf3; pv Ng1f3 d7d5 d2d4 Bc8f5 c2c4 e7e6 Qd1b3 Nb8c6 Qxb7 Nb4 Qxa8+ Qxa8;"
        ),
        some("pv Nf3 d5 d4 Bf5 c4 e6 Qb3 Nc6 Qxb7 Nb4 Qxa8 Qxa8")
    );
    let castle = "r3k3/1P6/8/8/8/8/8/R3K2R w KQq -";
    assert_eq!(
        predicted(castle, "sm 0-0; pv 0-0 Kd7 b7b8q Rxb8;"),
        some("pv O-O Kd7 b8=Q Rxb8")
    );
    // From Black's side, the position of every reply after the first move.
    assert_eq!(
        predicted(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
            "sm c5; pv c7c5 g1f3 d7d6;"
        ),
        some("pv c5 Nf3 d6")
    );
    // pm alone, in coordinates with a lower-case promotion piece.
    assert_eq!(predicted(castle, "sm b8=Q+; pm b7b8q;"), some("pm b8=Q+"));
}

#[test]
fn a_pv_is_cut_at_its_first_move_that_is_not_legal() {
    let some = |s: &str| Some(s.to_owned());
    // An illegal move: the king cannot go to e2 a second time from e2.
    assert_eq!(
        predicted(START, "sm e4; pv e2e4 e7e5 Ke2 Ke7 Ke2 Ke8;"),
        some("pv e4 e5 Ke2 Ke7")
    );
    // Badly cased pieces and squares are no notation the move reader knows (a
    // lower-case `b` would be a file): the line stops there.
    assert_eq!(
        predicted(START, "sm e4; pv e4 e5 nf3 Nc6;"),
        some("pv e4 e5")
    );
    assert_eq!(
        predicted(START, "sm e4; pv e4 e5 NF3 Nc6;"),
        some("pv e4 e5")
    );
    assert_eq!(predicted(START, "sm e4; pv e4 E7E5 g1f3;"), some("pv e4"));
    // An ambiguous move, and a move that is a string, not a move.
    assert_eq!(
        predicted("k7/8/8/8/8/8/8/KN3N2 w - -", "sm Ka2; pv Ka2 Kb8 Nd2 Ka8;"),
        some("pv Ka2 Kb8")
    );
    assert_eq!(predicted(START, "sm e4; pv e4 \"e5\" Nf3;"), some("pv e4"));
    // Nothing legal in the pv: the pm stands in for it, and without a pm nothing is
    // written.
    assert_eq!(
        predicted(START, "sm e4; pm e2e4; pv E2E4 e7e5;"),
        some("pm e4")
    );
    assert_eq!(
        predicted(START, "sm e4; pv E2E4 e7e5; ce 20;"),
        some("[%eval 0.20] +0.20")
    );
    assert_eq!(predicted(START, "sm e4; pm e5; c0 \"x\";"), some("x"));
}

#[test]
fn the_pgn_comments_carry_the_pv_in_san() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5100);
    s.line(
        Port::A,
        6000,
        &format!("{START} refreq reply; sm e2e4; ce 20; acd 9; pv e2e4 e7e5 g1f3 b8c6;"),
    );
    s.drain_all(6001);
    s.line(
        Port::B,
        6500,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 refreq reply; sm e5; \
         pv e7e5 nf3 Nc6;",
    );
    s.drain_all(6501);
    s.line(
        Port::A,
        7000,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 refreq reply; resign;",
    );
    let pgn = &s.reports[0].pgn;
    let movetext: Vec<&str> = pgn
        .split_once("\n\n")
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let movetext = movetext.join(" ");
    assert!(
        movetext.starts_with(
            "1. e4 {[%eval 0.20] +0.20/9 pv e4 e5 Nf3 Nc6 [%clk 0:00:59.1] [%emt 0:00:00.900]} \
             1... e5 {pv e5 [%clk 0:00:59.5] [%emt 0:00:00.499]} {White resigns} 0-1"
        ),
        "{movetext}"
    );
}
