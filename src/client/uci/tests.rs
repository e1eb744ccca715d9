use std::path::{Path, PathBuf};

use shakmaty::ByColor;
use shakmaty::fen::Fen;

use super::*;

/// A fake UCI engine: a shell script that logs its input to a file and answers
/// `go` and `stop` with the given shell commands.
struct Fake {
    _dir: tempfile::TempDir,
    log: PathBuf,
    command: String,
}

impl Fake {
    fn new(on_go: &str, on_stop: &str) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("fake engine.sh");
        let log = dir.path().join("stdin.log");
        let text = format!(
            r#"log="$1"
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  case "$line" in
    uci) echo "Fake engine, a banner"; echo "id name Fake Engine 1.0"
         echo "id author Nobody"
         echo "option name Hash type spin default 16 min 1 max 64"; echo uciok ;;
    isready) echo readyok ;;
    go*) {on_go} ;;
    stop) {on_stop} ;;
    quit) exit 0 ;;
  esac
done
"#
        );
        std::fs::write(&script, text).unwrap();
        let command = format!("sh \"{}\" \"{}\"", script.display(), log.display());
        Fake {
            _dir: dir,
            log,
            command,
        }
    }

    /// A fake that answers `go` with `info` lines and `bestmove`.
    fn answering(lines: &[&str]) -> Fake {
        let echoes: Vec<String> = lines.iter().map(|l| format!("echo '{l}'")).collect();
        Fake::new(&echoes.join("; "), ":")
    }

    fn start(&self) -> UciEngine {
        UciEngine::start(&self.command, &[], None).unwrap()
    }

    fn input(&self) -> Vec<String> {
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

fn fast() -> UciTimeouts {
    UciTimeouts {
        handshake: Duration::from_millis(2000),
        new_game: Duration::from_millis(2000),
        ping: Duration::from_millis(2000),
        clock_margin: Duration::from_millis(100),
        movetime_margin: Duration::from_millis(100),
        fixed_search: Duration::from_millis(300),
        stop_grace: Duration::from_millis(100),
    }
}

/// The position after playing `ucis` from `start`, and the moves.
fn play(start: &Chess, ucis: &[&str]) -> (Chess, Vec<Move>) {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for uci in ucis {
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
        moves.push(m);
    }
    (pos, moves)
}

fn from_fen(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap()
}

fn turn<'a>(
    start: &'a Chess,
    pos: &'a Chess,
    moves: &'a [Move],
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

fn clocks(white_ms: u64, black_ms: u64) -> TurnClocks {
    TurnClocks {
        remaining: ByColor {
            white: Duration::from_millis(white_ms),
            black: Duration::from_millis(black_ms),
        },
        increment: ByColor {
            white: Duration::ZERO,
            black: Duration::ZERO,
        },
        moves_to_go: None,
    }
}

fn ops(analysis: &[(&str, Operands)]) -> String {
    analysis
        .iter()
        .map(|(op, operands)| {
            let operands: Vec<String> = operands.iter().map(ToString::to_string).collect();
            format!("{op} {}", operands.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn played(decision: Decision) -> (Move, Vec<(&'static str, Operands)>) {
    match decision {
        Decision::Move {
            mv,
            offer_draw: false,
            claim_draw: false,
            analysis,
        } => (mv, analysis),
        other => panic!("not a plain move: {other:?}"),
    }
}

#[test]
fn handshakes_sets_options_and_starts_games() {
    let fake = Fake::answering(&["bestmove e2e4"]);
    let options = vec![
        ("Hash".to_string(), "32".to_string()),
        ("Clear Hash".to_string(), String::new()),
    ];
    let mut engine = UciEngine::start(&fake.command, &options, None).unwrap();
    assert_eq!(engine.name(), "Fake Engine 1.0");
    engine.new_game().unwrap();
    assert_eq!(
        fake.input(),
        [
            "uci",
            "setoption name Hash value 32",
            "setoption name Clear Hash",
            "isready",
            "ucinewgame",
            "isready"
        ]
    );
}

#[test]
fn sends_the_history_and_the_clocks() {
    let fake = Fake::answering(&["bestmove e7e5 ponder g1f3"]);
    let mut engine = fake.start();
    let start = Chess::default();
    let (pos, moves) = play(&start, &["e2e4"]);
    let mut c = clocks(60_000, 30_500);
    c.increment = ByColor {
        white: Duration::from_secs(1),
        black: Duration::from_secs(2),
    };
    c.moves_to_go = Some(20);
    let mut t = turn(&start, &pos, &moves, Some(c));
    t.draw_offered = true;
    let (mv, analysis) = played(engine.think(&t).unwrap());
    assert_eq!(UciMove::from_standard(mv).to_string(), "e7e5");
    assert!(analysis.is_empty());
    let input = fake.input();
    assert_eq!(
        input[input.len() - 2..],
        [
            "position startpos moves e2e4",
            "go wtime 60000 btime 30500 winc 1000 binc 2000 movestogo 20"
        ]
    );
}

#[test]
fn builds_position_commands() {
    let start = from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let (pos, moves) = play(&start, &["e1g1", "e8c8"]);
    assert_eq!(
        position_command(&turn(&start, &pos, &moves, None)),
        "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1 e8c8"
    );
    let std = Chess::default();
    assert_eq!(
        position_command(&turn(&std, &std, &[], None)),
        "position startpos"
    );
    // Moves that do not lead to the position: the position alone.
    let (other, _) = play(&std, &["d2d4"]);
    assert_eq!(
        position_command(&turn(&std, &other, &moves, None)),
        "position fen rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    );
}

#[test]
fn builds_go_commands() {
    let c = clocks(1500, 2_000_000);
    assert_eq!(
        go_command(None, Some(&c)),
        "go wtime 1500 btime 2000000 winc 0 binc 0"
    );
    assert_eq!(go_command(None, None), "go movetime 1000");
    assert_eq!(
        go_command(Some(Limit::Nodes(5000)), Some(&c)),
        "go nodes 5000"
    );
    assert_eq!(go_command(Some(Limit::Depth(12)), None), "go depth 12");
    assert_eq!(
        go_command(Some(Limit::MoveTime(Duration::from_millis(250))), Some(&c)),
        "go movetime 250"
    );
}

#[test]
fn limits_replace_the_clocks() {
    let fake = Fake::answering(&["bestmove e2e4"]);
    let mut engine = UciEngine::start(&fake.command, &[], Some(Limit::Nodes(1000))).unwrap();
    let start = Chess::default();
    engine
        .think(&turn(&start, &start, &[], Some(clocks(1000, 1000))))
        .unwrap();
    assert_eq!(fake.input().last().unwrap(), "go nodes 1000");
}

#[test]
fn converts_scores() {
    assert_eq!(Score::Cp(35).ce(), 35);
    assert_eq!(Score::Cp(-120).ce(), -120);
    assert_eq!(Score::Cp(99_999).ce(), 32000);
    assert_eq!(Score::Cp(-99_999).ce(), -32000);
    assert_eq!(Score::Mate(1).ce(), 32766);
    assert_eq!(Score::Mate(5).ce(), 32758);
    assert_eq!(Score::Mate(-1).ce(), -32765);
    assert_eq!(Score::Mate(-5).ce(), -32757);
    assert_eq!(Score::Mate(0).ce(), -32767);
    assert!(Score::Mate(i64::MAX).ce() > 32000);
    assert!(Score::Mate(i64::MIN).ce() < -32000);
}

#[test]
fn parses_info_lines() {
    let info = Info::parse(
        "info depth 12 seldepth 17 multipv 1 score mate -3 upperbound nodes 98765 nps 1000 \
             hashfull 3 tbhits 0 time 1999 pv e2e4 e7e5 g1f3",
    );
    assert_eq!(
        info,
        Info {
            depth: Some(12),
            nodes: Some(98765),
            time_ms: Some(1999),
            multipv: Some(1),
            score: Some(Score::Mate(-3)),
            bound: true,
            pv: vec!["e2e4".into(), "e7e5".into(), "g1f3".into()],
            seldepth: Some(17),
            nps: Some(1000),
            hashfull: Some(3),
            tbhits: Some(0),
        }
    );
    let info = Info::parse("info depth 3 pv e2e4 d7d5 score cp 7 string depth 99 pv a2a3");
    assert_eq!(info.depth, Some(3));
    assert_eq!(info.score, Some(Score::Cp(7)));
    assert_eq!(info.pv, ["e2e4", "d7d5"]);
    // Nonsense is left out, never a panic.
    assert_eq!(
        Info::parse("info depth x score cp nodes -1 time 1e9 pv"),
        Info::default()
    );
    assert_eq!(Info::parse(""), Info::default());
}

#[test]
fn converts_the_principal_variation() {
    let pos = from_fen("r3k2r/6P1/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let pv: Vec<String> = ["e1g1", "e8c8", "g7h8q", "d8h8", "a1a8", "h8h1", "c8b7"]
        .map(String::from)
        .into();
    let sans: Vec<String> = pv_to_san(&pos, &pv)
        .into_iter()
        .map(|(_, s)| s.into())
        .collect();
    // `h8h1` does not answer the check, so the variation stops before it.
    assert_eq!(sans, ["O-O", "O-O-O", "gxh8=Q", "Rxh8", "Ra8+"]);
    let mut search = Search::default();
    search.update("info depth 4 score cp -50 time 12345 nodes 777 pv e1g1 e8c8 g7h8q");
    let castle = pv_to_san(&pos, &pv)[0].0;
    assert_eq!(
        ops(&search.analysis(&pos, castle, None)),
        "ce -50; acd 4; acs 12; acn 777; pv O-O O-O-O gxh8=Q"
    );
    let analysis = search.analysis(&pos, castle, None);
    let pv_ops = &analysis.last().unwrap().1;
    assert_eq!(
        pv_ops.as_slice(),
        &[
            Operand::unquoted("O-O").unwrap(),
            Operand::unquoted("O-O-O").unwrap(),
            Operand::unquoted("gxh8=Q").unwrap()
        ]
    );
    // A variation that does not start with the move played is left out.
    let other = pv_to_san(&pos, &["g7h8q".to_string()])[0].0;
    assert_eq!(
        ops(&search.analysis(&pos, other, None)),
        "ce -50; acd 4; acs 12; acn 777"
    );
}

#[test]
fn with_the_detail_asked_the_reply_reports_the_last_exact_line_and_the_kept_lines() {
    let pos = Chess::default();
    let mut search = Search::default();
    let patterns = super::detail::Detail {
        lines: vec!["^info string pgncomment".into(), "NNUE".into()],
    }
    .compile()
    .unwrap();
    let mut kept = super::detail::KeptLines::default();
    for line in [
        "info string NNUE evaluation using nn-x.nnue enabled",
        "info depth 9 seldepth 12 score cp 30 nodes 900 nps 90000 hashfull 4 tbhits 2 time 10 pv e2e4 e7e5",
        "info string pgncomment first",
        "info depth 10 seldepth 14 score cp 45 lowerbound nodes 1900 nps 95000 hashfull 5 tbhits 3 time 20 pv d2d4",
        "info string pgncomment second",
        "bestmove e2e4",
    ] {
        kept.see(&patterns, line);
        if line.starts_with("info") {
            search.update(line);
        }
    }
    let e4 = pv_to_san(&pos, &["e2e4".to_string()])[0].0;
    // fastchess's line: the last exact score, its seldepth, speed, hash and tbhits;
    // the last time given; the last line of each pattern, in the patterns' order.
    assert_eq!(
        ops(&search.analysis(&pos, e4, Some(&kept))),
        "ce 30; acd 9; acs 0; acn 900; pv e4 e5; seldepth 12; nps 90000; hashfull 4; \
         tbhits 2; acms 20; eline \"info string pgncomment second\" \
         \"info string NNUE evaluation using nn-x.nnue enabled\""
    );
    // Without it, the last scored line as before, bound or not, and nothing more.
    assert_eq!(
        ops(&search.analysis(&pos, e4, None)),
        "ce 45; acd 10; acs 0; acn 1900"
    );
    assert!(
        super::detail::Detail {
            lines: vec!["(".into()]
        }
        .compile()
        .is_err()
    );
}

#[test]
fn reports_the_last_scored_search_line() {
    let fake = Fake::answering(&[
        "info depth 1 score cp 10 nodes 20 pv d2d4",
        "info string score mate 1 pv a2a3",
        "info depth 3 seldepth 5 multipv 1 score cp 25 lowerbound nodes 1234 nps 100 \
             time 2500 pv e2e4 e7e5 g1f3",
        "info depth 3 multipv 2 score cp -5 nodes 1300 pv d2d4",
        "info depth 4 currmove e2e4 currmovenumber 1",
        "bestmove e2e4",
    ]);
    let mut engine = fake.start();
    let start = Chess::default();
    let (mv, analysis) = played(engine.think(&turn(&start, &start, &[], None)).unwrap());
    assert_eq!(UciMove::from_standard(mv).to_string(), "e2e4");
    assert_eq!(
        ops(&analysis),
        "ce 25; acd 3; acs 2; acn 1234; pv e4 e5 Nf3"
    );
    assert_eq!(fake.input().last().unwrap(), "go movetime 1000");
    // Mate scores come through as EPD mate values.
    let fake = Fake::answering(&["info depth 9 score mate 2 pv e2e4", "bestmove e2e4"]);
    let (_, analysis) = played(
        fake.start()
            .think(&turn(&start, &start, &[], None))
            .unwrap(),
    );
    assert_eq!(ops(&analysis), "ce 32764; acd 9; pv e4");
}

#[test]
fn rejects_bad_best_moves() {
    let start = Chess::default();
    for answer in [
        "bestmove (none)",
        "bestmove 0000",
        "bestmove e2e5",
        "bestmove e7e5",
        "bestmove",
        "bestmove xyzzy",
    ] {
        let fake = Fake::answering(&[answer]);
        let err = fake
            .start()
            .think(&turn(&start, &start, &[], None))
            .unwrap_err();
        assert!(
            matches!(&err, EngineError::Failed(r) if r.contains("not a legal move")),
            "{answer}: {err}"
        );
    }
}

#[test]
fn fails_when_the_engine_exits() {
    let fake = Fake::new("exit 3", ":");
    let mut engine = fake.start();
    let start = Chess::default();
    let err = engine
        .think(&turn(&start, &start, &[], None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("exited"), "{err}");
    // A restart brings up a fresh process and starts a new game.
    engine.restart().unwrap();
    assert_eq!(engine.name(), "Fake Engine 1.0");
    let input = fake.input();
    assert_eq!(
        input[input.len() - 4..],
        ["uci", "isready", "ucinewgame", "isready"]
    );
}

#[test]
fn stops_a_stalled_search_and_fails() {
    let fake = Fake::new(":", ":");
    let mut engine = UciEngine::start_with(&fake.command, &[], None, fast()).unwrap();
    let start = Chess::default();
    let started = Instant::now();
    let err = engine
        .think(&turn(&start, &start, &[], Some(clocks(200, 200))))
        .unwrap_err()
        .to_string();
    let took = started.elapsed();
    assert!(err.contains("no bestmove"), "{err}");
    // 200 ms on the clock, 100 ms margin, 100 ms after stop.
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(fake.input().last().unwrap(), "stop");
}

#[test]
fn takes_a_move_given_after_stop() {
    let fake = Fake::new("echo 'info depth 1 score cp 3'", "echo 'bestmove g1f3'");
    let mut engine =
        UciEngine::start_with(&fake.command, &[], Some(Limit::Depth(30)), fast()).unwrap();
    let start = Chess::default();
    let (mv, analysis) = played(engine.think(&turn(&start, &start, &[], None)).unwrap());
    assert_eq!(UciMove::from_standard(mv).to_string(), "g1f3");
    assert_eq!(ops(&analysis), "ce 3; acd 1");
}

#[test]
fn fails_a_stalled_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("mute.sh");
    std::fs::write(&script, "while read -r line; do :; done\n").unwrap();
    let command = format!("sh {}", script.display());
    let mut timeouts = fast();
    timeouts.handshake = Duration::from_millis(200);
    let started = Instant::now();
    let err = UciEngine::start_with(&command, &[], None, timeouts).unwrap_err();
    assert!(matches!(err, EngineError::Start { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(UciEngine::start("/nonexistent/engine", &[], None).is_err());
}

#[test]
fn fails_without_a_legal_move() {
    let fake = Fake::answering(&["bestmove e2e4"]);
    let mut engine = fake.start();
    let mated = from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let err = engine.think(&turn(&mated, &mated, &[], None)).unwrap_err();
    assert!(err.to_string().contains("no legal move"), "{err}");
}

const STOCKFISH: &str = "/usr/games/stockfish";

fn check_stockfish_move(decision: Decision, pos: &Chess) {
    let (mv, analysis) = played(decision);
    assert!(pos.is_legal(mv));
    let names: Vec<&str> = analysis.iter().map(|(op, _)| *op).collect();
    for op in ["ce", "acd", "acn", "pv"] {
        assert!(names.contains(&op), "{op} missing from {}", ops(&analysis));
    }
    let pv = &analysis.iter().find(|(op, _)| *op == "pv").unwrap().1;
    let first = pv[0].as_move_text().unwrap();
    assert_eq!(crate::epd::resolve_move(pos, first).unwrap(), mv);
}

#[test]
#[ignore = "needs stockfish"]
fn stockfish_with_a_node_limit() {
    let options = vec![
        ("Threads".to_string(), "1".to_string()),
        ("Hash".to_string(), "16".to_string()),
    ];
    let mut engine = UciEngine::start(STOCKFISH, &options, Some(Limit::Nodes(1000))).unwrap();
    assert!(engine.name().starts_with("Stockfish"), "{}", engine.name());
    engine.new_game().unwrap();
    let start = Chess::default();
    let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
    check_stockfish_move(decision, &start);
    // After castling moves in the history, from a position that is not the start.
    let begin = from_fen("r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 8");
    let (pos, moves) = play(&begin, &["e1g1", "e8c8"]);
    let decision = engine.think(&turn(&begin, &pos, &moves, None)).unwrap();
    check_stockfish_move(decision, &pos);
}

#[test]
#[ignore = "needs stockfish"]
fn stockfish_with_clocks() {
    let mut engine = UciEngine::start(STOCKFISH, &[], None).unwrap();
    engine.new_game().unwrap();
    let start = Chess::default();
    let (pos, moves) = play(&start, &["e2e4"]);
    let started = Instant::now();
    let decision = engine
        .think(&turn(&start, &pos, &moves, Some(clocks(1000, 1000))))
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    check_stockfish_move(decision, &pos);
    // A mate in one is reported as such.
    let mate = from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let (_, analysis) = played(
        engine
            .think(&turn(&mate, &mate, &[], Some(clocks(1000, 1000))))
            .unwrap(),
    );
    assert!(
        ops(&analysis).starts_with("ce 32766;"),
        "{}",
        ops(&analysis)
    );
    engine.restart().unwrap();
    engine.game_over(Some("1-0"));
}

/// The turn of `history` (see [`Turn::history`]).
fn turn_of<'a>(history: u64, start: &'a Chess, pos: &'a Chess, moves: &'a [Move]) -> Turn<'a> {
    Turn {
        history,
        ..turn(start, pos, moves, None)
    }
}

#[test]
fn a_kept_position_command_grows_with_the_game_and_starts_again_for_a_new_one() {
    let std = Chess::default();
    let mut kept = PositionCommand::default();
    let (pos, moves) = play(&std, &["e2e4", "e7e5"]);
    assert_eq!(
        kept.build(&turn_of(1, &std, &pos, &moves)),
        "position startpos moves e2e4 e7e5"
    );
    let (pos, moves) = play(&std, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    assert_eq!(
        kept.build(&turn_of(1, &std, &pos, &moves)),
        "position startpos moves e2e4 e7e5 g1f3 b8c6"
    );
    // The same turn again (its respond sent again).
    assert_eq!(
        kept.build(&turn_of(1, &std, &pos, &moves)),
        "position startpos moves e2e4 e7e5 g1f3 b8c6"
    );
    // A new history, as long as the one before: afresh.
    let (pos, moves) = play(&std, &["d2d4", "d7d5", "c2c4", "e7e6"]);
    assert_eq!(
        kept.build(&turn_of(2, &std, &pos, &moves)),
        "position startpos moves d2d4 d7d5 c2c4 e7e6"
    );
    // A history of unknown id is never taken as the one before.
    assert_eq!(
        kept.build(&turn_of(0, &std, &pos, &moves)),
        "position startpos moves d2d4 d7d5 c2c4 e7e6"
    );
    // A new game from the start.
    let (pos, moves) = play(&std, &["d2d4"]);
    assert_eq!(
        kept.build(&turn_of(3, &std, &pos, &moves)),
        "position startpos moves d2d4"
    );
    // Moves that do not lead to the position: the position alone, and then afresh.
    let (other, _) = play(&std, &["c2c4"]);
    assert_eq!(
        kept.build(&turn_of(3, &std, &other, &moves)),
        "position fen rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(
        kept.build(&turn_of(3, &std, &pos, &moves)),
        "position startpos moves d2d4"
    );
}

#[cfg(unix)]
#[test]
fn a_polled_turn_after_a_new_game_waits_for_readyok_and_takes_the_move() {
    let fake = Fake::answering(&["info depth 2 score cp 5 pv e2e4 e7e5", "bestmove e2e4"]);
    let mut engine = fake.start();
    assert!(engine.pollable());
    engine.begin_new_game().unwrap();
    let start = Chess::default();
    let (mv, analysis) =
        played(crate::client::polled(&mut engine, &turn(&start, &start, &[], None)).unwrap());
    assert_eq!(UciMove::from_standard(mv).to_string(), "e2e4");
    assert_eq!(ops(&analysis), "ce 5; acd 2; pv e4 e5");
    let input = fake.input();
    let tail: Vec<&str> = input[input.len() - 4..]
        .iter()
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(tail, ["ucinewgame", "isready", "position", "go"]);
    assert_eq!(engine.wake_at(), None, "no turn under way");
}

#[cfg(unix)]
#[test]
fn a_polled_search_that_stalls_is_stopped_and_then_given_up() {
    let fake = Fake::new(":", ":");
    let mut engine = UciEngine::start_with(&fake.command, &[], None, fast()).unwrap();
    let start = Chess::default();
    let started = Instant::now();
    let err = crate::client::polled(
        &mut engine,
        &turn(&start, &start, &[], Some(clocks(200, 200))),
    )
    .unwrap_err()
    .to_string();
    let took = started.elapsed();
    assert!(err.contains("no bestmove"), "{err}");
    // 200 ms on the clock, 100 ms margin, 100 ms after stop.
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(fake.input().last().unwrap(), "stop");
}

#[cfg(unix)]
#[test]
fn a_polled_turn_takes_a_move_given_after_stop_and_an_exit_is_a_failure() {
    let fake = Fake::new("echo 'info depth 1 score cp 3'", "echo 'bestmove g1f3'");
    let mut engine =
        UciEngine::start_with(&fake.command, &[], Some(Limit::Depth(30)), fast()).unwrap();
    let start = Chess::default();
    let (mv, _) =
        played(crate::client::polled(&mut engine, &turn(&start, &start, &[], None)).unwrap());
    assert_eq!(UciMove::from_standard(mv).to_string(), "g1f3");
    let crashing = Fake::new("exit 3", ":");
    let mut engine = crashing.start();
    let err = crate::client::polled(&mut engine, &turn(&start, &start, &[], None)).unwrap_err();
    assert!(err.to_string().contains("exited"), "{err}");
}
