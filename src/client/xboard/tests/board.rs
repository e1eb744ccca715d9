//! What the engine's board holds between turns: a turn that follows from it sends only
//! the new moves, one that does not (or follows a failure) sets the engine up afresh,
//! and an engine without `setboard` is set up with `edit`.

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

const NO_SETBOARD: &str = "feature setboard=0 ping=1 done=1";

#[test]
fn an_engine_without_setboard_is_set_up_with_edit() {
    // Black to move: `a2a3` from the standard start first.
    let fake = Fake::new(NO_SETBOARD, &moves_in_turn(&["d5e4", "e8d7"]));
    let mut engine = fake.start();
    engine.new_game().unwrap();
    let start = position("4k3/8/8/3p4/4P3/8/8/4K3 b - - 0 1");
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(move_of(&decision), uci(&start, "d5e4"));
    let lines = fake.lines();
    let from = lines.iter().rposition(|l| l == "new").unwrap();
    assert_eq!(
        lines[from..],
        [
            "new", "force", "post", "easy", "a2a3", "edit", "#", "Ke1", "Pe4", "c", "Pd5", "Ke8",
            ".", "st 1", "ping 2", "go", "ping 3",
        ]
    );
    // The next turn of the game sends only the new move.
    let seen = lines.len();
    let (pos, moves) = play(&start, &["d5e4", "e1d2"]);
    let decision = engine.think(&turn(&start, &pos, &moves, None)).unwrap();
    assert_eq!(move_of(&decision), uci(&pos, "e8d7"));
    assert_eq!(
        fake.lines()[seen..],
        ["force", "e1d2", "st 1", "ping 4", "go", "ping 5"]
    );
    assert!(!engine.edit_warned, "nothing that edit cannot say");

    // White to move: no `a2a3`.
    let fake = Fake::new(NO_SETBOARD, "echo 'move e4d5'");
    let mut engine = fake.start();
    let start = position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(move_of(&decision), uci(&start, "e4d5"));
    let lines = fake.lines();
    let from = lines.iter().rposition(|l| l == "new").unwrap();
    assert_eq!(
        lines[from..],
        [
            "new", "force", "post", "easy", "edit", "#", "Ke1", "Pe4", "c", "Pd5", "Ke8", ".",
            "st 1", "ping 2", "go", "ping 3",
        ]
    );

    // From the standard start, no edit: the moves follow `new`.
    let fake = Fake::new(NO_SETBOARD, "echo 'move g8f6'");
    let mut engine = fake.start();
    let start = Chess::default();
    let (pos, moves) = play(&start, &["e2e4"]);
    engine.think(&turn(&start, &pos, &moves, None)).unwrap();
    let lines = fake.lines();
    assert!(lines.iter().any(|l| l == "e2e4"), "{lines:?}");
    assert!(!lines.iter().any(|l| l == "edit"), "{lines:?}");
}

#[test]
fn what_edit_cannot_say_is_warned_about_once_a_game() {
    let fake = Fake::new(NO_SETBOARD, ":");
    let mut engine = fake.start();
    let mut warned = |fen: &str| {
        engine.new_game().unwrap();
        engine.warn_edit(&position(fen));
        engine.edit_warned
    };
    // The rights that kings and rooks at home give.
    assert!(!warned("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"));
    assert!(!warned("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"));
    // Fewer rights than that, and an en passant square.
    assert!(warned("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1"));
    assert!(warned("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"));
    // Once a game.
    engine.warn_edit(&position("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"));
    assert!(engine.edit_warned);

    let rights = |fen: &str| castling_text(edit_castling(&position(fen)));
    assert_eq!(rights("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"), "KQkq");
    assert_eq!(rights("r3k3/8/8/8/8/8/8/4K2R w - - 0 1"), "Kq");
    assert_eq!(rights("4k2r/8/8/8/8/8/8/R2K3R w - - 0 1"), "k");
    assert_eq!(rights("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), "-");
}

/// Fairy-Max (no `setboard`) against itself from a position with Black to move, one
/// side thinking with [`Engine::think`] and the other polled: every move legal, and each
/// engine's board holding the game after its move.
#[test]
#[ignore = "needs fairymax"]
fn fairymax_plays_a_game_from_a_set_up_position() {
    let _ = env_logger::builder().is_test(true).try_init();
    let start = position("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 2 3");
    let mut white = XboardEngine::start("/usr/games/fairymax", &[], None).unwrap();
    let mut black = XboardEngine::start("/usr/games/fairymax", &[], None).unwrap();
    assert!(!black.features.setboard, "Fairy-Max announces setboard=0");
    white.new_game().unwrap();
    black.new_game().unwrap();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for ply in 0..16 {
        if pos.is_game_over() {
            break;
        }
        let t = turn(&start, &pos, &moves, Some(clocks(2_000, 2_000, None)));
        let decision = if pos.turn() == Color::White {
            white.think(&t)
        } else {
            #[cfg(unix)]
            {
                crate::client::polled(&mut black, &t)
            }
            #[cfg(not(unix))]
            {
                black.think(&t)
            }
        }
        .unwrap();
        let mv = move_of(&decision);
        assert!(pos.is_legal(mv), "ply {ply}: {mv} in {pos:?}");
        pos.play_unchecked(mv);
        moves.push(mv);
        let engine = if pos.turn() == Color::White {
            &black
        } else {
            &white
        };
        let board = engine.board.as_ref().expect("the engine's board is known");
        assert_eq!(board.moves, moves, "ply {ply}");
    }
    assert!(moves.len() >= 8, "{moves:?}");
}
