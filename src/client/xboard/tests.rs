use super::parse::*;
use super::*;
use shakmaty::ByColor;
use shakmaty::uci::UciMove;
use smallvec::smallvec;

use crate::epd::Operand;
use std::path::{Path, PathBuf};

fn fast() -> Timing {
    Timing {
        features: Duration::from_millis(500),
        answer: Duration::from_secs(3),
        clock_margin: Duration::from_millis(200),
        fixed_margin: Duration::from_millis(300),
        move_now: Duration::from_millis(200),
        after_move: Duration::from_secs(1),
        trailing: Duration::from_millis(200),
        nudge: Duration::from_millis(100),
    }
}

/// A fake engine: a shell script that logs every line it reads to `log`, answers
/// `protover` with `features`, `ping N` with `pong N`, and runs `on_go` on `go` and
/// `on_draw` on `draw`.
struct Fake {
    _dir: tempfile::TempDir,
    command: String,
    log: PathBuf,
}

impl Fake {
    fn new(features: &str, on_go: &str) -> Fake {
        Fake::with(features, on_go, ":")
    }

    fn with(features: &str, on_go: &str, on_draw: &str) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let script = dir.path().join("fake-engine");
        let protover = if features.is_empty() {
            ":".to_string()
        } else {
            format!("printf '%s\\n' '{features}'")
        };
        let text = format!(
            "#!/bin/sh\n\
                 while IFS= read -r line; do\n\
                 printf '%s\\n' \"$line\" >> '{log}'\n\
                 case \"$line\" in\n\
                 protover*) {protover} ;;\n\
                 ping*) echo \"pong ${{line#ping }}\" ;;\n\
                 go) {on_go} ;;\n\
                 draw) {on_draw} ;;\n\
                 quit) exit 0 ;;\n\
                 esac\n\
                 done\n",
            log = log.display(),
        );
        std::fs::write(&script, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Fake {
            command: script.display().to_string(),
            log,
            _dir: dir,
        }
    }

    fn start(&self) -> XboardEngine {
        self.start_with(&[], None)
    }

    fn start_with(&self, options: &[(String, String)], limit: Option<Limit>) -> XboardEngine {
        XboardEngine::start_with(&self.command, options, limit, fast()).unwrap()
    }

    fn lines(&self) -> Vec<String> {
        read_lines(&self.log)
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

const V2: &str = "feature myname=\"Fake 1.0\" setboard=1 usermove=1 ping=1 done=1";

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// The position after `moves` (coordinates) from `start`, and the moves.
fn play(start: &Chess, moves: &[&str]) -> (Chess, Vec<shakmaty::Move>) {
    let mut pos = start.clone();
    let mut played = Vec::new();
    for text in moves {
        let mv = text.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
        played.push(mv);
    }
    (pos, played)
}

fn turn<'a>(
    start: &'a Chess,
    pos: &'a Chess,
    moves: &'a [shakmaty::Move],
    clocks: Option<TurnClocks>,
) -> Turn<'a> {
    Turn {
        position: pos,
        start,
        moves,
        history: 0,
        clocks,
        draw_offered: false,
    }
}

/// Waits until the engine has read everything sent so far: it reads its input in
/// order, so its `pong` shows that.
fn settle(engine: &mut XboardEngine) {
    let n = engine.ping().unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    engine
        .process
        .recv_until(deadline, |l| classify(l) == Line::Pong(n))
        .unwrap();
}

fn uci(pos: &Chess, text: &str) -> shakmaty::Move {
    text.parse::<UciMove>().unwrap().to_move(pos).unwrap()
}

#[test]
fn negotiates_features_and_options() {
    let fake = Fake::new(
        "feature myname=\"Fake Engine 1.0\" setboard=1 usermove=1 ping=1 \
             option=\"Hash -spin 16 1 1024\" option=\"Resign Threshold -spin 800 200 1200\" \
             foo=1 done=1",
        ":",
    );
    let engine = fake.start_with(
        &[
            ("Hash".to_string(), "64".to_string()),
            ("resign threshold".to_string(), "300".to_string()),
            ("Missing".to_string(), "1".to_string()),
        ],
        None,
    );
    assert_eq!(engine.name(), "Fake Engine 1.0");
    assert!(engine.features.setboard && engine.features.usermove && engine.features.ping);
    assert!(!engine.features.san);
    drop(engine);
    let lines = fake.lines();
    for expected in [
        "xboard",
        "protover 2",
        "accepted myname",
        "accepted setboard",
        "accepted usermove",
        "accepted ping",
        "accepted option",
        "rejected foo",
        "accepted done",
        "option Hash=64",
        "option Resign Threshold=300",
        "ping 1",
    ] {
        assert!(lines.iter().any(|l| l == expected), "{expected}: {lines:?}");
    }
    assert!(!lines.iter().any(|l| l.contains("Missing")), "{lines:?}");
}

#[test]
fn reads_feature_lines() {
    assert_eq!(
        parse_features(r#" myname="Fairy-Max 5.0b" setboard=0 ping=1 done=0"#),
        vec![
            ("myname".to_string(), "Fairy-Max 5.0b".to_string()),
            ("setboard".into(), "0".into()),
            ("ping".into(), "1".into()),
            ("done".into(), "0".into()),
        ]
    );
    assert_eq!(
        option_name("Resign Threshold -spin 800 200 1200"),
        "Resign Threshold"
    );
    assert_eq!(option_name("Clear Hash -button"), "Clear Hash");
    assert_eq!(
        option_name("Ini File -file /usr/share/fmax.ini"),
        "Ini File"
    );
    assert_eq!(option_name("Plain"), "Plain");
}

#[test]
fn a_version_1_engine_is_named_after_its_file() {
    let fake = Fake::new("", "echo '1. ... e2e4'");
    let mut engine = fake.start();
    assert_eq!(engine.name(), "fake-engine");
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(
        decision,
        Decision::Move {
            mv: uci(&start, "e2e4"),
            offer_draw: false,
            claim_draw: false,
            analysis: vec![],
        }
    );
    let lines = fake.lines();
    // It was nudged with empty lines while it said nothing, and got bare moves.
    assert!(lines.iter().any(String::is_empty), "{lines:?}");
    assert!(lines.iter().any(|l| l == "st 1"), "{lines:?}");
}

#[test]
fn sends_the_position_history_and_clocks() {
    let fake = Fake::new(V2, "echo 'move e8g8'");
    let mut engine = fake.start();
    let start = position("r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 4 10");
    let (pos, moves) = play(&start, &["e1g1", "d7d6", "a2a4"]);
    let clocks = TurnClocks {
        remaining: ByColor {
            white: Duration::from_millis(95_500),
            black: Duration::from_millis(61_230),
        },
        increment: ByColor {
            white: Duration::from_secs(2),
            black: Duration::from_millis(1500),
        },
        moves_to_go: Some(12),
    };
    let decision = engine
        .think(&turn(&start, &pos, &moves, Some(clocks)))
        .unwrap();
    let Decision::Move { mv, .. } = decision else {
        panic!("{decision:?}")
    };
    assert_eq!(mv, uci(&pos, "e8g8"));
    let lines = fake.lines();
    let from = lines.iter().rposition(|l| l == "new").unwrap();
    assert_eq!(
        lines[from..from + 14],
        [
            "new",
            "force",
            "post",
            "easy",
            "setboard r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 4 10",
            "usermove e1g1",
            "usermove d7d6",
            "usermove a2a4",
            // Black made one move of the history: 1 + 12 moves to go.
            "level 13 1:01 1.5",
            "time 6123",
            "otim 9550",
            "ping 2",
            "go",
            "ping 3",
        ]
    );
}

#[test]
fn sends_san_and_bare_moves_and_limits() {
    let fake = Fake::new("feature san=1 done=1", "echo 'move Nf6'");
    let mut engine = fake.start_with(&[], Some(Limit::MoveTime(Duration::from_millis(1500))));
    let start = Chess::default();
    let (pos, moves) = play(&start, &["e2e4"]);
    engine.think(&turn(&start, &pos, &moves, None)).unwrap();
    let lines = fake.lines();
    assert!(lines.iter().any(|l| l == "e4"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "st 2"), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("setboard")),
        "{lines:?}"
    );

    let fake = Fake::new("feature done=1", "echo 'move g8f6'");
    let mut engine = fake.start_with(&[], Some(Limit::Depth(7)));
    engine.think(&turn(&start, &pos, &moves, None)).unwrap();
    let lines = fake.lines();
    assert!(lines.iter().any(|l| l == "e2e4"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "sd 7"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "st 30"), "{lines:?}");
}

#[test]
fn reads_thinking_output_into_analysis() {
    let fake = Fake::new(
        V2,
        "echo ' 4     20       5       900 e2e4 e7e5'; \
             echo '5 +35 120 15400 1. e2e4 e7e5 2. Ng1f3 (book)'; \
             echo 'move e2e4'",
    );
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    let Decision::Move { mv, analysis, .. } = decision else {
        panic!("{decision:?}")
    };
    assert_eq!(mv, uci(&start, "e2e4"));
    assert_eq!(
        analysis,
        vec![
            ("ce", smallvec![Operand::Integer(35)]),
            ("acd", smallvec![Operand::Integer(5)]),
            ("acn", smallvec![Operand::Integer(15400)]),
            ("acs", smallvec![Operand::Integer(1)]),
            (
                "pv",
                smallvec![
                    Operand::Move("e4".into()),
                    Operand::Move("e5".into()),
                    Operand::Move("Nf3".into()),
                ]
            ),
        ]
    );
}

#[test]
fn classifies_lines() {
    assert_eq!(classify("move e2e4"), Line::Move("e2e4".into()));
    assert_eq!(classify("1. ... g1f3"), Line::Move("g1f3".into()));
    assert_eq!(classify("My move is : g1f3"), Line::Move("g1f3".into()));
    assert_eq!(classify("1. e7e5"), Line::Other);
    assert_eq!(classify("resign"), Line::Resign);
    assert_eq!(classify("offer draw"), Line::OfferDraw);
    assert_eq!(
        classify("1/2-1/2 {Draw by repetition}"),
        Line::Result(GameResult::Draw)
    );
    assert_eq!(
        classify("1-0 {White mates}"),
        Line::Result(GameResult::WhiteWins)
    );
    assert_eq!(classify("pong 12"), Line::Pong(12));
    assert_eq!(
        classify("Illegal move (no such piece): e2e5"),
        Line::IllegalMove("Illegal move (no such piece): e2e5".into())
    );
    assert_eq!(
        classify("Error (unknown command): setboard"),
        Line::Error("setboard".into())
    );
    assert_eq!(classify("Invalid move: sd 4"), Line::Error("sd 4".into()));
    assert_eq!(classify("tellics say     Fairy-Max 5.0b"), Line::Other);
    assert_eq!(classify("# times @ 13403513"), Line::Other);
    assert_eq!(
        classify("12\t-35\t250\t123456\t17\t500000\t0\tNf3 Nc6"),
        Line::Thinking(Thinking {
            ply: 12,
            score: -35,
            centis: 250,
            nodes: 123_456,
            pv: "Nf3 Nc6".into(),
        })
    );
    assert_eq!(
        parse_thinking("12 -35 250 123456 1. Nf3 Nc6").map(|t| t.pv),
        Some("1. Nf3 Nc6".into())
    );
    assert_eq!(parse_thinking("12 -35 250"), None);
    let start = Chess::default();
    assert!(is_bare_move(&start, "e2e4"));
    assert!(is_bare_move(&start, " Nf3 "));
    assert!(!is_bare_move(&start, "e2e5"));
    assert!(!is_bare_move(&start, "Chess"));
}

#[test]
fn scores_mates_in_the_epd_convention() {
    assert_eq!(epd_score(35, None), 35);
    assert_eq!(epd_score(-50_000, None), -30_000);
    // Fairy-Max: 100000 + N for a mate in N moves.
    assert_eq!(epd_score(100_001, None), 32_766);
    assert_eq!(epd_score(100_003, None), 32_762);
    assert_eq!(epd_score(-100_002, None), -32_763);
    // GNU Chess prints 9999 with a principal variation that ends in mate.
    assert_eq!(epd_score(9999, Some(1)), 32_766);
    assert_eq!(epd_score(-9999, Some(4)), -32_763);
    assert_eq!(epd_score(9999, Some(2)), 9999);
    let pos = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
    let t = parse_thinking("40 +9999 200 5860000 Ra8#").unwrap();
    let ops = analysis(&pos, &t);
    assert_eq!(ops[0], ("ce", smallvec![Operand::Integer(32_766)]));
    assert_eq!(ops[3], ("acs", smallvec![Operand::Integer(2)]));
    assert_eq!(ops[4], ("pv", smallvec![Operand::Move("Ra8#".into())]));
}

#[test]
fn formats_time_controls() {
    let clocks = TurnClocks {
        remaining: ByColor {
            white: Duration::from_secs(300),
            black: Duration::from_millis(59_990),
        },
        increment: ByColor {
            white: Duration::ZERO,
            black: Duration::from_millis(250),
        },
        moves_to_go: None,
    };
    assert_eq!(level_command(&clocks, Color::White, 7), "level 0 5 0");
    assert_eq!(level_command(&clocks, Color::Black, 7), "level 0 0:59 0.25");
    assert_eq!(base_text(Duration::from_millis(300)), "0:01");
    assert_eq!(seconds_text(Duration::from_millis(1500)), "1.5");
    assert_eq!(whole_seconds_up(Duration::from_millis(1001)), 2);
    assert_eq!(whole_seconds_up(Duration::from_millis(10)), 1);
    assert_eq!(centis(Duration::from_millis(61_239)), 6123);
}

#[test]
fn resigns() {
    let fake = Fake::new(V2, "echo resign");
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(decision, Decision::Resign);
}

#[test]
fn announcing_its_own_loss_resigns_and_a_win_is_ignored() {
    // White to move announces 1-0 (ignored), then 0-1: its own loss.
    let fake = Fake::new(V2, "echo '1-0 {nonsense}'; echo '0-1 {White resigns}'");
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(decision, Decision::Resign);
}

#[test]
fn offers_a_draw_with_its_move() {
    let fake = Fake::new(V2, "echo 'offer draw'; echo 'move d2d4'");
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(
        decision,
        Decision::Move {
            mv: uci(&start, "d2d4"),
            offer_draw: true,
            claim_draw: false,
            analysis: vec![],
        }
    );
    // An offer right after the move goes with it too.
    let fake = Fake::new(V2, "echo 'move d2d4'; sleep 0.1; echo 'offer draw'");
    let mut engine = fake.start();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert!(
        matches!(
            decision,
            Decision::Move {
                offer_draw: true,
                ..
            }
        ),
        "{decision:?}"
    );
}

#[test]
fn claims_draws_with_and_without_moving() {
    let fake = Fake::new(V2, "echo '1/2-1/2 {Draw by repetition}'");
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert_eq!(decision, Decision::ClaimDraw);
    settle(&mut engine);
    assert_eq!(
        fake.lines().iter().rev().nth(1).map(String::as_str),
        Some("force")
    );

    let fake = Fake::new(V2, "echo 'move g1f3'; echo '1/2-1/2 {Draw by repetition}'");
    let mut engine = fake.start();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert!(
        matches!(
            decision,
            Decision::Move {
                claim_draw: true,
                offer_draw: false,
                ..
            }
        ),
        "{decision:?}"
    );
    // Without ping the claim is caught too when it comes at once.
    let fake = Fake::new(
        "feature done=1",
        "echo 'move g1f3'; echo '1/2-1/2 {Draw by repetition}'",
    );
    let mut engine = fake.start();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert!(
        matches!(
            decision,
            Decision::Move {
                claim_draw: true,
                ..
            }
        ),
        "{decision:?}"
    );
}

#[test]
fn accepts_a_draw_offer_by_offering_one() {
    let fake = Fake::with(V2, "echo 'move e2e4'", "echo 'offer draw'");
    let mut engine = fake.start();
    let start = Chess::default();
    let mut t = turn(&start, &start, &[], None);
    t.draw_offered = true;
    assert_eq!(engine.think(&t).unwrap(), Decision::AcceptDraw);
    let lines = fake.lines();
    assert!(lines.iter().any(|l| l == "draw"), "{lines:?}");
    assert!(!lines.iter().any(|l| l == "go"), "{lines:?}");

    // An engine that declines just moves; one that accepts while thinking accepts.
    let fake = Fake::new(V2, "echo 'move e2e4'");
    let mut engine = fake.start();
    assert!(matches!(engine.think(&t).unwrap(), Decision::Move { .. }));
    let fake = Fake::new(V2, "echo 'offer draw'; echo 'move e2e4'");
    let mut engine = fake.start();
    assert_eq!(engine.think(&t).unwrap(), Decision::AcceptDraw);
}

#[test]
fn illegal_moves_fail() {
    let fake = Fake::new(V2, "echo 'move e2e5'");
    let mut engine = fake.start();
    let start = Chess::default();
    let err = engine.think(&turn(&start, &start, &[], None)).unwrap_err();
    assert!(err.to_string().contains("illegal move"), "{err}");

    // An engine that refuses the game's moves fails.
    let fake = Fake::new(
        "feature ping=1 done=1",
        "echo 'Illegal move: e2e4'; echo 'move g8f6'",
    );
    let mut engine = fake.start();
    let (pos, moves) = play(&start, &["e2e4"]);
    let err = engine.think(&turn(&start, &pos, &moves, None)).unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");

    // An unknown command is only worth a warning.
    let fake = Fake::new(
        "feature ping=1 done=1",
        "echo 'Error (unknown command): easy'; echo 'move g8f6'",
    );
    let mut engine = fake.start();
    assert!(matches!(
        engine.think(&turn(&start, &pos, &moves, None)).unwrap(),
        Decision::Move { .. }
    ));
}

#[test]
fn an_engine_that_exits_fails() {
    let fake = Fake::new(V2, "exit 3");
    let mut engine = fake.start();
    let start = Chess::default();
    let err = engine.think(&turn(&start, &start, &[], None)).unwrap_err();
    assert!(err.to_string().contains("exited"), "{err}");
    // It starts again.
    engine.restart().unwrap();
    assert_eq!(engine.name(), "Fake 1.0");
    assert!(matches!(
        engine.think(&turn(&start, &start, &[], None)),
        Err(EngineError::Failed(_))
    ));
}

#[test]
fn an_engine_that_never_moves_fails_in_time() {
    let fake = Fake::new(V2, ":");
    let mut engine = fake.start();
    let start = Chess::default();
    let clocks = TurnClocks {
        remaining: ByColor {
            white: Duration::from_millis(300),
            black: Duration::from_millis(300),
        },
        increment: ByColor::new_with(|_| Duration::ZERO),
        moves_to_go: None,
    };
    let started = Instant::now();
    let err = engine
        .think(&turn(&start, &start, &[], Some(clocks)))
        .unwrap_err();
    let took = started.elapsed();
    assert!(err.to_string().contains("no move"), "{err}");
    // 300 ms, a 200 ms margin, then 200 ms after `?`.
    assert!(took >= Duration::from_millis(700), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(fake.lines().iter().any(|l| l == "?"));
}

#[test]
fn a_stale_move_is_not_taken_for_the_next() {
    // The engine moves twice on each `go`, the second time late; the late move of
    // the first turn is discarded at the second.
    let fake = Fake::new(
        "feature usermove=1 done=1",
        "echo 'move g1f3'; sleep 0.5; echo 'move b1c3'",
    );
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    assert!(matches!(decision, Decision::Move { mv, .. } if mv == uci(&start, "g1f3")));
    std::thread::sleep(Duration::from_millis(700));
    let (pos, moves) = play(&start, &["e2e4", "e7e5"]);
    let decision = engine.think(&turn(&start, &pos, &moves, None)).unwrap();
    assert!(matches!(decision, Decision::Move { mv, .. } if mv == uci(&pos, "g1f3")));
}

#[test]
fn game_over_and_new_game() {
    let fake = Fake::new(V2, ":");
    let mut engine = fake.start();
    engine.game_over(Some("1-0"));
    engine.new_game().unwrap();
    engine.game_over(None);
    settle(&mut engine);
    let lines = fake.lines();
    let from = lines.iter().position(|l| l.starts_with("result")).unwrap();
    assert_eq!(
        lines[from..from + 5],
        ["result 1-0 {argus}", "force", "new", "force", "force"]
    );
}

#[test]
fn start_failures() {
    assert!(matches!(
        XboardEngine::start_with("/nonexistent/engine", &[], None, fast()),
        Err(EngineError::Start { .. })
    ));
    assert!(matches!(
        XboardEngine::start_with(r#"sh -c "exit 0""#, &[], None, fast()),
        Err(EngineError::Start { .. })
    ));
}

/// Plays a few turns against a real engine: from the start with clocks, and after a
/// few moves (the history replayed).
fn real_engine(command: &str, expect_analysis: bool) {
    real_engine_with(command, expect_analysis, XboardEngine::think);
}

/// How a test has the engine decide: [`Engine::think`], or [`crate::client::polled`].
type Decide = fn(&mut XboardEngine, &Turn<'_>) -> Result<Decision, EngineError>;

/// As [`real_engine`], each turn decided by `decide`.
fn real_engine_with(command: &str, expect_analysis: bool, decide: Decide) {
    let _ = env_logger::builder().is_test(true).try_init();
    let mut engine = XboardEngine::start(command, &[], None).unwrap();
    println!("engine: {}", engine.name());
    engine.new_game().unwrap();
    let start = Chess::default();
    let clocks = TurnClocks {
        remaining: ByColor::new_with(|_| Duration::from_secs(3)),
        increment: ByColor::new_with(|_| Duration::from_millis(100)),
        moves_to_go: None,
    };
    let t0 = Instant::now();
    let decision = decide(
        &mut engine,
        &turn(&start, &start, &[], Some(clocks.clone())),
    )
    .unwrap();
    println!("from the start ({:?}): {decision:?}", t0.elapsed());
    let Decision::Move { mv, analysis, .. } = decision else {
        panic!("{decision:?}")
    };
    assert!(start.is_legal(mv));
    if expect_analysis {
        assert!(analysis.iter().any(|(op, _)| *op == "ce"), "{analysis:?}");
    }
    let (pos, moves) = play(&start, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
    let t0 = Instant::now();
    let decision = decide(&mut engine, &turn(&start, &pos, &moves, Some(clocks))).unwrap();
    println!(
        "after 1. e4 e5 2. Nf3 Nc6 3. Bb5 ({:?}): {decision:?}",
        t0.elapsed()
    );
    let Decision::Move { mv, .. } = decision else {
        panic!("{decision:?}")
    };
    assert!(pos.is_legal(mv));
    engine.game_over(Some("1/2-1/2"));
}

#[test]
#[ignore = "needs fairymax"]
fn fairymax_plays() {
    real_engine("/usr/games/fairymax", true);
}

#[test]
#[ignore = "needs gnuchess"]
fn gnuchess_plays() {
    real_engine("/usr/games/gnuchess --xboard", true);
    // GNU Chess sets up positions and finds the mate in one.
    let mut engine = XboardEngine::start("/usr/games/gnuchess --xboard", &[], None).unwrap();
    let start = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    println!("mate in one: {decision:?}");
    let Decision::Move { mv, analysis, .. } = decision else {
        panic!("{decision:?}")
    };
    assert_eq!(mv, uci(&start, "a1a8"));
    assert!(
        analysis.contains(&("ce", smallvec![Operand::Integer(32_766)])),
        "{analysis:?}"
    );
}

#[cfg(unix)]
#[test]
#[ignore = "needs fairymax"]
fn fairymax_plays_polled() {
    real_engine_with("/usr/games/fairymax", true, |engine, turn| {
        crate::client::polled(engine, turn)
    });
}

#[cfg(unix)]
#[test]
fn a_polled_turn_sends_go_after_the_pong_and_takes_the_move_and_its_analysis() {
    let fake = Fake::new(
        V2,
        "echo '5 +35 120 15400 e2e4 e7e5'; echo 'move e2e4'; echo 'offer draw'",
    );
    let mut engine = fake.start();
    assert!(engine.pollable());
    engine.begin_new_game().unwrap();
    let start = Chess::default();
    let (pos, moves) = play(&start, &["g1f3", "g8f6"]);
    let decision = crate::client::polled(&mut engine, &turn(&start, &pos, &moves, None)).unwrap();
    let Decision::Move {
        mv,
        offer_draw,
        analysis,
        ..
    } = decision
    else {
        panic!("{decision:?}")
    };
    assert_eq!(mv, uci(&pos, "e2e4"));
    assert!(offer_draw, "the offer after the move goes with it");
    assert!(
        analysis.contains(&("ce", smallvec![Operand::Integer(35)])),
        "{analysis:?}"
    );
    assert_eq!(engine.wake_at(), None, "no turn under way");
    settle(&mut engine);
    let lines = fake.lines();
    let go = lines.iter().rposition(|l| l == "go").unwrap();
    assert!(lines[go - 1].starts_with("ping "), "{lines:?}");
    assert_eq!(lines[go - 2], "st 1", "{lines:?}");
    assert!(
        lines[go + 1].starts_with("ping "),
        "the ping after the move: {lines:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_polled_turn_without_ping_takes_the_claim_that_follows_the_move() {
    let fake = Fake::new(
        "feature done=1",
        "echo 'move g1f3'; echo '1/2-1/2 {Draw by repetition}'",
    );
    let mut engine = fake.start();
    let start = Chess::default();
    let decision = crate::client::polled(&mut engine, &turn(&start, &start, &[], None)).unwrap();
    assert!(
        matches!(
            decision,
            Decision::Move {
                claim_draw: true,
                ..
            }
        ),
        "{decision:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_polled_turn_accepts_a_draw_before_go_and_resigns() {
    let fake = Fake::with(V2, "echo 'move e2e4'", "echo 'offer draw'");
    let mut engine = fake.start();
    let start = Chess::default();
    let mut t = turn(&start, &start, &[], None);
    t.draw_offered = true;
    assert_eq!(
        crate::client::polled(&mut engine, &t).unwrap(),
        Decision::AcceptDraw
    );
    assert!(!fake.lines().iter().any(|l| l == "go"));

    let fake = Fake::new(V2, "echo '0-1 {White resigns}'");
    let mut engine = fake.start();
    let t = turn(&start, &start, &[], None);
    assert_eq!(
        crate::client::polled(&mut engine, &t).unwrap(),
        Decision::Resign
    );
}

#[cfg(unix)]
#[test]
fn a_polled_turn_that_stalls_is_hurried_and_then_given_up() {
    let fake = Fake::new(V2, ":");
    let mut engine = fake.start();
    let start = Chess::default();
    let clocks = TurnClocks {
        remaining: ByColor::new_with(|_| Duration::from_millis(300)),
        increment: ByColor::new_with(|_| Duration::ZERO),
        moves_to_go: None,
    };
    let started = Instant::now();
    let err = crate::client::polled(&mut engine, &turn(&start, &start, &[], Some(clocks)))
        .unwrap_err()
        .to_string();
    let took = started.elapsed();
    assert!(err.contains("no move"), "{err}");
    // 300 ms, a 200 ms margin, then 200 ms after `?`.
    assert!(took >= Duration::from_millis(700), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(engine.wake_at(), None, "no turn under way");
    settle(&mut engine);
    assert!(fake.lines().iter().any(|l| l == "?"));
}

#[cfg(unix)]
#[test]
fn a_polled_turn_of_an_engine_that_exits_or_refuses_fails() {
    let fake = Fake::new(V2, "exit 3");
    let mut engine = fake.start();
    let start = Chess::default();
    let err = crate::client::polled(&mut engine, &turn(&start, &start, &[], None)).unwrap_err();
    assert!(err.to_string().contains("exited"), "{err}");

    let fake = Fake::new(V2, "echo 'move e2e5'");
    let mut engine = fake.start();
    let err = crate::client::polled(&mut engine, &turn(&start, &start, &[], None)).unwrap_err();
    assert!(err.to_string().contains("illegal move"), "{err}");

    let fake = Fake::new(
        "feature ping=1 done=1",
        "echo 'Illegal move: e2e4'; echo 'move g8f6'",
    );
    let mut engine = fake.start();
    let (pos, moves) = play(&start, &["e2e4"]);
    let err = crate::client::polled(&mut engine, &turn(&start, &pos, &moves, None)).unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
}

mod board;

/// An engine that stalls between its feature lines until input arrives (as GNU Chess 6
/// does at start-up) is nudged until `feature done=1`, and its later features count:
/// here `setboard=1`, without which the adapter would set positions up in edit mode,
/// which GNU Chess refuses.
#[test]
fn an_engine_stalled_between_its_features_is_nudged_to_the_end_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("stalling-engine");
    std::fs::write(
        &script,
        "#!/bin/sh\nn=0\nwhile read -r l; do case \"$l\" in\n\
         protover*) echo 'feature done=0'; echo 'feature ping=1';;\n\
         ping*) echo \"pong ${l#ping }\";;\n\
         quit) exit 0;;\n\
         '') n=$((n+1)); [ $n -eq 1 ] && echo 'feature setboard=1'; [ $n -eq 2 ] && echo 'feature done=1';;\n\
         esac; done\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let began = Instant::now();
    let engine = XboardEngine::start_with(script.to_str().unwrap(), &[], None, fast()).unwrap();
    assert!(
        engine.features.setboard,
        "the feature after the stall was taken"
    );
    assert!(
        began.elapsed() < fast().answer,
        "done=1 came, rather than the wait's end: {:?}",
        began.elapsed()
    );
}
