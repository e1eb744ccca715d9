//! One test per row of the profile's adjudication table (section 5), each running the
//! real `argus serial` binary over pty pairs against scripted protocol clients.

#![cfg(unix)]

mod common;

use std::time::Duration;

use common::*;

const SHORT: Duration = Duration::from_millis(300);

fn with_openings(lines: &[&str]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = openings(dir.path(), lines);
    (dir, path.to_string_lossy().into_owned())
}

#[test]
fn checkmate_ends_the_game_at_once() {
    let (mut m, respond) = Match::start(&[]);
    assert!(m.play(respond, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    let pgn = m.finish("0-1");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("normal"));
    assert_eq!(tag(&pgn, "PlyCount").as_deref(), Some("4"));
    assert!(pgn.contains("Qh4#"), "{pgn}");
    assert!(pgn.contains("{Black mates}"), "{pgn}");
}

#[test]
fn stalemate_is_a_draw_at_once() {
    let (_d, file) = with_openings(&["k7/8/8/1Q6/8/8/8/K7 w - -"]);
    let (mut m, respond) = Match::start(&["--openings", &file]);
    assert!(m.play(respond, true, &["Qb6"]).is_none());
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("{Stalemate}"), "{pgn}");
    assert_eq!(tag(&pgn, "SetUp").as_deref(), Some("1"));
    assert_eq!(
        tag(&pgn, "FEN").as_deref(),
        Some("k7/8/8/1Q6/8/8/8/K7 w - - 0 1")
    );
}

#[test]
fn dead_position_is_a_draw_at_once() {
    let (_d, file) = with_openings(&["k7/8/8/8/8/8/1r6/K7 w - -"]);
    let (mut m, respond) = Match::start(&["--openings", &file]);
    assert!(m.play(respond, true, &["Kxb2"]).is_none());
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("Dead position"), "{pgn}");
}

#[test]
fn a_locked_pawn_wall_is_a_dead_position_at_once() {
    // Material enough to mate on both sides, but after h4 no piece can ever cross the
    // wall (a position of chasolver's test set, one move before).
    let (_d, file) = with_openings(&["2b1k3/8/8/1p1p1p1p/1P1P1P2/7P/8/2B1K3 w - -"]);
    let (mut m, respond) = Match::start(&["--openings", &file]);
    assert!(m.play(respond, true, &["h4"]).is_none());
    let pgn = m.finish("1/2-1/2");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("normal"));
    let words: Vec<&str> = pgn.split_whitespace().collect();
    assert!(
        words
            .join(" ")
            .contains("{Dead position: neither side can mate} 1/2-1/2"),
        "{pgn}"
    );
}

const SHUFFLE: [&str; 8] = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];

#[test]
fn threefold_repetition_is_automatic_by_default() {
    let (mut m, respond) = Match::start(&[]);
    assert!(m.play(respond, true, &SHUFFLE).is_none());
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("threefold"), "{pgn}");
}

#[test]
fn fifty_move_rule_is_automatic_by_default() {
    let (_d, file) = with_openings(&["k7/8/8/8/8/8/8/KR6 w - - hmvc 99;"]);
    let (mut m, respond) = Match::start(&["--openings", &file]);
    assert!(respond.operands("hmvc").is_some());
    assert!(m.play(respond, true, &["Rb2"]).is_none());
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("fifty-move"), "{pgn}");
}

#[test]
fn with_draw_rule_claim_repetition_needs_a_valid_claim() {
    let (mut m, respond) = Match::start(&["--draw-rule", "claim"]);
    let respond = m.play(respond, true, &SHUFFLE).expect("play goes on");
    // White claims without a move: the position has occurred three times.
    m.a.send(&reply(&respond, "draw_claim;"));
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("claimed by White"), "{pgn}");
}

#[test]
fn with_draw_rule_claim_a_claim_with_its_move_is_judged_after_the_move() {
    let (mut m, respond) = Match::start(&["--draw-rule", "claim"]);
    let respond = m.play(respond, true, &SHUFFLE[..7]).expect("play goes on");
    // Black's Ng8 makes the third occurrence; the claim comes with it.
    m.b.send(&reply(&respond, "draw_claim; sm Ng8;"));
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("claimed by Black"), "{pgn}");
    assert_eq!(tag(&pgn, "PlyCount").as_deref(), Some("8"));
}

#[test]
fn fifty_move_claim_with_draw_rule_claim() {
    let (_d, file) = with_openings(&["k7/8/8/8/8/8/8/KR6 w - - hmvc 99;"]);
    let (mut m, respond) = Match::start(&["--openings", &file, "--draw-rule", "claim"]);
    m.a.send(&reply(&respond, "draw_claim; sm Rb2;"));
    let pgn = m.finish("1/2-1/2");
    assert!(
        pgn.replace('\n', " ")
            .contains("fifty-move rule, claimed by White"),
        "{pgn}"
    );
}

#[test]
fn fivefold_repetition_ends_the_game_whatever_the_draw_rule() {
    let (mut m, respond) = Match::start(&["--draw-rule", "claim"]);
    let respond = m
        .play(respond, true, &SHUFFLE)
        .expect("no automatic threefold");
    assert!(m.play(respond, true, &SHUFFLE).is_none());
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("fivefold"), "{pgn}");
    assert_eq!(tag(&pgn, "PlyCount").as_deref(), Some("16"));
}

#[test]
fn seventy_five_move_rule_ends_the_game_whatever_the_draw_rule() {
    let (_d, file) = with_openings(&["k7/8/8/8/8/8/8/KR6 w - - hmvc 149;"]);
    let (mut m, respond) = Match::start(&["--openings", &file, "--draw-rule", "claim"]);
    assert!(m.play(respond, true, &["Rb2"]).is_none());
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("seventy-five"), "{pgn}");
}

#[test]
fn an_invalid_claim_with_a_move_lets_the_move_stand() {
    let (mut m, respond) = Match::start(&["--draw-rule", "claim"]);
    m.a.send(&reply(&respond, "draw_claim; sm e4;"));
    let respond = m.b.expect("respond");
    assert_eq!(
        respond.operands("sm").unwrap()[0].as_move_text(),
        Some("e4")
    );
    m.b.send(&reply(&respond, "resign;"));
    m.finish("1-0");
}

#[test]
fn an_invalid_claim_without_a_move_gets_the_same_respond_again() {
    let (mut m, respond) = Match::start(&[]);
    m.a.send(&reply(&respond, "draw_claim;"));
    let again = m.a.expect("respond");
    assert_eq!(again.to_string(), respond.to_string());
    m.a.send(&reply(&again, "resign;"));
    m.finish("0-1");
}

#[test]
fn a_draw_offer_then_accept_is_a_draw() {
    let (mut m, respond) = Match::start(&[]);
    m.a.send(&reply(&respond, "draw_offer; sm e4;"));
    let respond = m.b.expect("respond");
    assert!(respond.has("draw_offer"), "{respond}");
    m.b.send(&reply(&respond, "draw_accept;"));
    let pgn = m.finish("1/2-1/2");
    assert!(pgn.contains("Draw agreed"), "{pgn}");
}

#[test]
fn a_draw_offer_lapses_when_the_opponent_moves() {
    let (mut m, respond) = Match::start(&[]);
    m.a.send(&reply(&respond, "draw_offer; sm e4;"));
    let respond = m.b.expect("respond");
    m.b.send(&reply(&respond, "draw_reject; sm e5;"));
    let respond = m.a.expect("respond");
    assert!(!respond.has("draw_offer"));
    // Accepting an offer that is no longer pending only brings the same respond back.
    m.a.send(&reply(&respond, "draw_accept;"));
    let again = m.a.expect("respond");
    assert_eq!(again.to_string(), respond.to_string());
    m.a.send(&reply(&again, "resign;"));
    m.finish("0-1");
}

#[test]
fn resign_loses_and_wins_over_a_move_on_the_same_record() {
    let (mut m, respond) = Match::start(&[]);
    let respond = m.play(respond, true, &["e4"]).unwrap();
    m.b.send(&reply(&respond, "resign; sm e5;"));
    let pgn = m.finish("1-0");
    assert!(pgn.contains("{Black resigns}"), "{pgn}");
    assert_eq!(tag(&pgn, "PlyCount").as_deref(), Some("1"));
}

#[test]
fn a_flag_falls_at_its_moment() {
    let (mut m, respond) = Match::start(&["--tc", "2"]);
    let respond = m.play(respond, true, &["e4"]).unwrap();
    let _ = respond;
    // Black never replies: it loses on time, two seconds after its respond drained.
    let start = std::time::Instant::now();
    let pgn = m.finish("1-0");
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(1900), "{waited:?}");
    assert!(waited < Duration::from_millis(2600), "{waited:?}");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("time forfeit"));
    assert!(pgn.contains("{Black forfeits on time}"), "{pgn}");
}

#[test]
fn a_flag_against_a_bare_king_is_a_draw() {
    let (_d, file) = with_openings(&["k7/8/8/8/8/8/8/KQ6 w - -"]);
    let (mut m, _respond) = Match::start(&["--openings", &file, "--tc", "1"]);
    let pgn = m.finish("1/2-1/2");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("time forfeit"));
    assert!(pgn.contains("cannot mate"), "{pgn}");
}

#[test]
fn a_flag_behind_a_locked_pawn_wall_is_a_draw() {
    // White has mating material, and a helpmate, but Black has none: when White's
    // flag falls, Black cannot mate by any legal sequence (FIDE 6.9).
    let (_d, file) = with_openings(&["5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - -"]);
    let (mut m, _respond) = Match::start(&["--openings", &file, "--tc", "1"]);
    let pgn = m.finish("1/2-1/2");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("time forfeit"));
    let words: Vec<&str> = pgn.split_whitespace().collect();
    assert!(
        words
            .join(" ")
            .contains("{White forfeits on time, but Black cannot mate} 1/2-1/2"),
        "{pgn}"
    );
}

#[test]
fn an_illegal_move_loses() {
    let (mut m, respond) = Match::start(&[]);
    m.a.send(&reply(&respond, "sm e5;"));
    let pgn = m.finish("0-1");
    assert_eq!(
        tag(&pgn, "Termination").as_deref(),
        Some("rules infraction")
    );
}

#[test]
fn an_unreadable_move_loses() {
    let (mut m, respond) = Match::start(&[]);
    let respond = m.play(respond, true, &["d4"]).unwrap();
    m.b.send(&reply(&respond, "sm Zz9;"));
    let pgn = m.finish("1-0");
    assert_eq!(
        tag(&pgn, "Termination").as_deref(),
        Some("rules infraction")
    );
}

#[test]
fn a_move_in_no_known_notation_is_unreadable_and_loses() {
    let (mut m, respond) = Match::start(&[]);
    // Long algebraic with a hyphen is not among the accepted notations.
    m.a.send(&reply(&respond, "sm e2-e4; Xprivate 1/2;"));
    let pgn = m.finish("0-1");
    assert_eq!(
        tag(&pgn, "Termination").as_deref(),
        Some("rules infraction")
    );
    assert!(pgn.contains("e2-e4"), "{pgn}");
}

#[test]
fn a_reply_from_another_position_loses() {
    let (mut m, _respond) = Match::start(&[]);
    m.a.send("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - refreq reply; sm d4;");
    let pgn = m.finish("0-1");
    assert!(pgn.contains("different position"), "{pgn}");
}

#[test]
fn illegal_fault_sends_fault_to_both_then_the_offender_loses() {
    let (mut m, respond) = Match::start(&["--illegal", "fault"]);
    m.a.send(&reply(&respond, "sm Ke2;"));
    let fa = m.a.expect("fault");
    let fb = m.b.expect("fault");
    assert!(fa.operands("c0").is_some(), "{fa}");
    assert_eq!(fa.to_string(), fb.to_string());
    m.finish("0-1");
}

#[test]
fn a_reply_without_a_move_gets_the_same_respond_again() {
    let (mut m, respond) = Match::start(&[]);
    m.a.send(&format!("{START} refreq reply;"));
    let again = m.a.expect("respond");
    assert_eq!(again.to_string(), respond.to_string());
    // The clock ran on: the move is charged from the first respond.
    assert!(m.play(again, true, &["f3", "e5", "g4", "Qh4#"]).is_none());
    m.finish("0-1");
}

#[test]
fn sign_off_during_the_game_is_abandonment() {
    let (mut m, respond) = Match::start(&[]);
    let _ = m.play(respond, true, &["e4"]).unwrap();
    m.a.send(&format!("{START} refreq sign_off;"));
    let pgn = m.finish("0-1");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("abandoned"));
}

#[test]
fn a_player_fault_alerts_and_the_game_goes_on_and_sign_on_resynchronises() {
    let (mut m, respond) = Match::start(&[]);
    let respond = m.play(respond, true, &["e4", "e5", "Nf3"]).unwrap();
    // Black reports a fault: the game goes on (nothing is sent), Black's clock runs.
    m.b.send(&format!("{START} refreq fault; c0 \"engine crashed\";"));
    m.b.expect_silence(SHORT);
    m.a.expect_silence(Duration::ZERO);
    // Black signs on again: reset, inform, executes for the moves before the last,
    // and a respond whose sm is the last move.
    m.b.sign_on("Beta");
    m.b.expect("reset");
    m.b.expect("inform");
    let e1 = m.b.expect("execute");
    assert_eq!(e1.operands("sm").unwrap()[0].as_move_text(), Some("e4"));
    let e2 = m.b.expect("execute");
    assert_eq!(e2.operands("sm").unwrap()[0].as_move_text(), Some("e5"));
    let again = m.b.expect("respond");
    assert_eq!(again.operands("sm").unwrap()[0].as_move_text(), Some("Nf3"));
    assert_eq!(again.position, respond.position);
    m.b.send(&reply(&again, "sm Nc6;"));
    let respond = m.a.expect("respond");
    m.a.send(&reply(&respond, "resign;"));
    let pgn = m.finish("0-1");
    assert!(pgn.contains("Nc6"), "{pgn}");
    m.a.expect_silence(Duration::ZERO);
    // The referee's console shows the player's reason.
    let console = m.referee.stdout();
    assert!(
        console.contains("the player reports a fault: engine crashed"),
        "{console}"
    );
}

#[test]
fn a_player_that_faults_and_never_returns_loses_on_time() {
    let (mut m, respond) = Match::start(&["--tc", "1"]);
    let _ = m.play(respond, true, &["e4"]).unwrap();
    m.b.send(&format!("{START} refreq fault;"));
    let pgn = m.finish("1-0");
    assert_eq!(tag(&pgn, "Termination").as_deref(), Some("time forfeit"));
}
