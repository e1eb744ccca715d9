//! What the engine's board holds between turns: a turn that follows from it sends only
//! the new moves, one that does not (or follows a failure) sets the engine up afresh.

use super::*;

/// The `go` handler of a fake engine that plays `moves`, one a `go`, in turn.
fn moves_in_turn(moves: &[&str]) -> String {
    let mut text = "n=$((n+1)); case $n in ".to_string();
    for (i, mv) in moves.iter().enumerate() {
        text += &format!("{}) echo 'move {mv}' ;; ", i + 1);
    }
    text + "esac"
}

/// Clocks of `white` and `black` milliseconds, an increment of a second, and
/// `moves_to_go`.
fn clocks(white: u64, black: u64, moves_to_go: Option<u32>) -> TurnClocks {
    TurnClocks {
        remaining: ByColor {
            white: Duration::from_millis(white),
            black: Duration::from_millis(black),
        },
        increment: ByColor::new_with(|_| Duration::from_secs(1)),
        moves_to_go,
    }
}

/// The move of a decision.
fn move_of(decision: &Decision) -> shakmaty::Move {
    let Decision::Move { mv, .. } = decision else {
        panic!("{decision:?}")
    };
    *mv
}

/// The turns of one game: the first sets the engine up, the next send only the new
/// move (after `force`), and `level` again only when a new period changes its MPS.
fn later_turns_send_only_the_new_moves(decide: Decide) {
    let fake = Fake::new(V2, &moves_in_turn(&["g1f3", "b1c3", "d2d4"]));
    let mut engine = fake.start();
    engine.new_game().unwrap();
    let start = Chess::default();
    // Two moves to go in a period of two: MPS 2.
    let t = turn(&start, &start, &[], Some(clocks(60_000, 60_000, Some(2))));
    assert_eq!(
        move_of(&decide(&mut engine, &t).unwrap()),
        uci(&start, "g1f3")
    );
    let seen = fake.lines().len();
    let lines = fake.lines();
    let from = lines.iter().rposition(|l| l == "new").unwrap();
    assert_eq!(
        lines[from..],
        [
            "new",
            "force",
            "post",
            "easy",
            "level 2 1 1",
            "time 6000",
            "otim 6000",
            "ping 2",
            "go",
            "ping 3",
        ]
    );

    // One move to go: MPS 1 + 1, the same, so no `level`.
    let (pos, moves) = play(&start, &["g1f3", "e7e5"]);
    let t = turn(&start, &pos, &moves, Some(clocks(59_000, 58_000, Some(1))));
    assert_eq!(
        move_of(&decide(&mut engine, &t).unwrap()),
        uci(&pos, "b1c3")
    );
    let lines = fake.lines();
    assert_eq!(
        lines[seen..],
        [
            "force",
            "usermove e7e5",
            "time 5900",
            "otim 5800",
            "ping 4",
            "go",
            "ping 5",
        ]
    );
    let seen = lines.len();

    // A new period of two moves: MPS 2 + 2, so `level` again.
    let (pos, moves) = play(&start, &["g1f3", "e7e5", "b1c3", "b8c6"]);
    let t = turn(&start, &pos, &moves, Some(clocks(57_000, 56_500, Some(2))));
    assert_eq!(
        move_of(&decide(&mut engine, &t).unwrap()),
        uci(&pos, "d2d4")
    );
    let lines = fake.lines();
    assert_eq!(
        lines[seen..],
        [
            "force",
            "usermove b8c6",
            "level 4 0:57 1",
            "time 5700",
            "otim 5650",
            "ping 6",
            "go",
            "ping 7",
        ]
    );
    // `new` only from new_game and the first turn's set-up.
    assert_eq!(lines.iter().filter(|l| *l == "new").count(), 2, "{lines:?}");
}

#[test]
fn later_turns_of_a_game_send_only_the_new_moves() {
    later_turns_send_only_the_new_moves(XboardEngine::think);
}

#[cfg(unix)]
#[test]
fn later_polled_turns_of_a_game_send_only_the_new_moves() {
    later_turns_send_only_the_new_moves(|engine, turn| crate::client::polled(engine, turn));
}

/// The full set-up of the turn's game from the standard start with `moves`, up to `go`
/// (no clocks), with the `ping` numbered `ping`.
fn set_up_lines(moves: &[&str], ping: u32) -> Vec<String> {
    let mut lines: Vec<String> = ["new", "force", "post", "easy"].map(String::from).into();
    lines.extend(moves.iter().map(|m| format!("usermove {m}")));
    lines.extend(["st 1".to_string(), format!("ping {ping}"), "go".to_string()]);
    lines
}

#[test]
fn a_game_that_does_not_follow_from_the_engines_board_or_a_failure_sets_it_up_afresh() {
    let fake = Fake::new(
        V2,
        &moves_in_turn(&["g1f3", "g1f3", "a1a5", "b1c3", "g1f3", "e2e4"]),
    );
    let mut engine = fake.start();
    engine.new_game().unwrap();
    let start = Chess::default();
    let think = |engine: &mut XboardEngine, moves: &[&str]| {
        let (pos, moves) = play(&start, moves);
        engine.think(&turn(&start, &pos, &moves, None))
    };
    think(&mut engine, &[]).unwrap();

    // A resynchronisation: the game is not the engine's board and a move.
    let seen = fake.lines().len();
    think(&mut engine, &["e2e4", "e7e5"]).unwrap();
    let lines = fake.lines();
    assert_eq!(
        lines[seen..lines.len() - 1],
        set_up_lines(&["e2e4", "e7e5"], 4)
    );

    // It follows: the new move only; the engine's move is illegal, and fails.
    let seen = lines.len();
    let err = think(&mut engine, &["e2e4", "e7e5", "g1f3", "b8c6"]).unwrap_err();
    assert!(err.to_string().contains("illegal move"), "{err}");
    settle(&mut engine);
    let lines = fake.lines();
    assert_eq!(
        lines[seen..lines.len() - 1],
        ["force", "usermove b8c6", "st 1", "ping 6", "go"]
    );

    // After the failure, the same turn sets the engine up afresh.
    let seen = lines.len();
    think(&mut engine, &["e2e4", "e7e5", "g1f3", "b8c6"]).unwrap();
    let lines = fake.lines();
    assert_eq!(
        lines[seen..lines.len() - 1],
        set_up_lines(&["e2e4", "e7e5", "g1f3", "b8c6"], 8)
    );

    // A take-back too (the game is shorter than the engine's board).
    let seen = lines.len();
    think(&mut engine, &["e2e4", "e7e5"]).unwrap();
    let lines = fake.lines();
    assert_eq!(lines[seen], "new", "{lines:?}");

    // And a new game.
    let seen = fake.lines().len();
    engine.game_over(Some("1-0"));
    engine.new_game().unwrap();
    think(&mut engine, &[]).unwrap();
    let lines = fake.lines();
    assert_eq!(
        lines[seen..seen + 5],
        ["result 1-0 {argus}", "force", "new", "force", "new"],
        "{lines:?}"
    );
    assert_eq!(
        lines.iter().filter(|l| *l == "new").count(),
        7,
        "new_game twice, five set-ups: {lines:?}"
    );
}
