//! `argus serve`'s openings and what its games' records say of them: FEN lines and EPD
//! records, PGN books cut to their first plies, the random order by its seed (the same
//! in a resumed event), `--repeat`, the names a book gives an opening, the tags'
//! order, the rounds of the encounters, and `--maxmoves` from a position with Black to
//! move.

use std::path::Path;
#[cfg(unix)]
use std::time::{Duration, Instant};

mod serve_support;
use serve_support::*;

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
const AFTER_D4: &str = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1";

/// Runs `argus serve` with two random movers and `args`; returns its standard output
/// and games.pgn.
fn serve(dir: &Path, name: &str, args: &[&str]) -> (String, String) {
    let out = dir.join(name);
    let mut all = vec![
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let run = argus(&all);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    (stdout, pgn)
}

/// The values of tag `name` in `pgn`, in order.
fn tags<'a>(pgn: &'a str, name: &str) -> Vec<&'a str> {
    let prefix = format!("[{name} \"");
    pgn.lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .map(|v| v.trim_end_matches("\"]"))
        .collect()
}

/// Each game's own PGN's FEN, by game number.
#[cfg(unix)]
fn fens_by_game(out: &Path, games: u32) -> Vec<String> {
    (1..=games)
        .map(|n| {
            let pgn = std::fs::read_to_string(out.join(format!("games/game-{n:04}.pgn")))
                .unwrap_or_else(|e| panic!("game {n}: {e}"));
            tags(&pgn, "FEN")[0].to_string()
        })
        .collect()
}

#[test]
fn fen_lines_are_openings_as_epd_records_are() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.fen");
    std::fs::write(
        &book,
        format!(
            "# a FEN, then an EPD record\n{AFTER_E4}\n\n{} hmvc 0; fmvn 1;\n",
            &AFTER_D4[..AFTER_D4.len() - 4]
        ),
    )
    .unwrap();
    let (_, pgn) = serve(
        dir.path(),
        "event",
        &["--games", "4", "--openings", book.to_str().unwrap()],
    );
    assert_eq!(tags(&pgn, "FEN"), [AFTER_E4, AFTER_E4, AFTER_D4, AFTER_D4]);
}

#[test]
fn a_pgn_book_gives_each_games_position_after_its_first_plies_and_its_names() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.pgn");
    std::fs::write(
        &book,
        "[Opening \"Sicilian\"]\n[ECO \"B20\"]\n\n1. e4 c5 2. Nf3 d6 *\n\n\
         [SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 30\"]\n\n30. e4 Kd7 31. Kd2 *\n",
    )
    .unwrap();
    let file = format!("file={}", book.display());
    let (stdout, pgn) = serve(
        dir.path(),
        "event",
        &["--games", "4", "--openings", &file, "plies=2"],
    );
    assert_eq!(
        tags(&pgn, "FEN"),
        [
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
            "8/3k4/8/8/4P3/8/8/4K3 w - - 1 31",
            "8/3k4/8/8/4P3/8/8/4K3 w - - 1 31",
        ]
    );
    assert_eq!(tags(&pgn, "Opening"), ["Sicilian", "Sicilian"]);
    assert_eq!(tags(&pgn, "ECO"), ["B20", "B20"]);
    assert!(
        stdout.contains(&format!(
            "argus serve: openings: 2 from {} (at most 2 plies of each game), 2 game(s) each",
            book.display()
        )),
        "{stdout}"
    );
}

#[test]
fn an_epd_openings_id_names_the_opening_of_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 id \"Sicilian\"; eco \"B20\";\n",
    )
    .unwrap();
    let (_, pgn) = serve(dir.path(), "event", &["--openings", book.to_str().unwrap()]);
    assert_eq!(tags(&pgn, "Opening"), ["Sicilian", "Sicilian"]);
    assert_eq!(tags(&pgn, "ECO"), ["B20", "B20"]);
}

/// PGN 9.7: SetUp comes first, right before FEN.
#[test]
fn setup_comes_right_before_fen() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3\n",
    )
    .unwrap();
    let (_, pgn) = serve(dir.path(), "event", &["--openings", book.to_str().unwrap()]);
    assert_eq!(
        pgn.matches(&format!("[SetUp \"1\"]\n[FEN \"{AFTER_E4}\"]\n"))
            .count(),
        2,
        "{pgn}"
    );
}

/// Games of different encounters have different rounds; the games of an encounter
/// (an opening with the colours swapped) the same.
#[test]
fn each_encounter_has_a_round_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, pgn) = serve(dir.path(), "four", &["--games", "4"]);
    assert_eq!(tags(&pgn, "Round"), ["1.1", "1.1", "1.2", "1.2"]);
    // The console says the round; the record the encounter in it too.
    assert!(stdout.contains("game 3/4 (round 1): A vs B"), "{stdout}");
    let (_, pgn) = serve(dir.path(), "rounds", &["--games", "2", "--rounds", "2"]);
    assert_eq!(tags(&pgn, "Round"), ["1", "1", "2", "2"]);
    let (_, pgn) = serve(dir.path(), "single", &["--games", "3", "--repeat", "1"]);
    assert_eq!(tags(&pgn, "Round"), ["1.1", "1.2", "1.3"]);
}

/// `--maxmoves 2` from an opening with Black to move: four plies of the game, the
/// last White's third move.
#[test]
fn maxmoves_counts_the_games_own_moves_from_a_position_with_black_to_move() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    // An EPD record (no move counters), as argus read before FEN lines.
    std::fs::write(&book, format!("{}\n", &AFTER_E4[..AFTER_E4.len() - 4])).unwrap();
    let (_, pgn) = serve(
        dir.path(),
        "event",
        &["--openings", book.to_str().unwrap(), "--maxmoves", "2"],
    );
    let pgn = pgn.replace('\n', " ");
    assert_eq!(
        pgn.matches("{Draw by adjudication: 2 moves played (--maxmoves)}")
            .count(),
        2,
        "{pgn}"
    );
    for game in pgn.split("[Event ").skip(1) {
        let movetext = game.rsplit_once("\"]").unwrap().1;
        assert!(movetext.contains(" 3. "), "{movetext}");
        assert!(!movetext.contains(" 3... "), "{movetext}");
    }
}

/// `--repeat 1`: every game an opening of its own.
#[test]
fn repeat_one_gives_every_game_its_own_opening() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    std::fs::write(&book, format!("{AFTER_E4}\n{AFTER_D4}\n")).unwrap();
    let (_, pgn) = serve(
        dir.path(),
        "event",
        &["--openings", book.to_str().unwrap(), "--repeat", "1"],
    );
    assert_eq!(tags(&pgn, "FEN"), [AFTER_E4, AFTER_D4]);
}

/// order=random without --srand: argus draws a seed and says it; --srand with it
/// gives the same games the same openings, and so does a resumed event (its
/// event.jsonl keeps the seed and the openings in their order).
#[cfg(unix)]
#[test]
fn a_random_order_is_repeated_by_its_seed_and_kept_by_a_resumed_event() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    // Eight positions after one White move each.
    let moves = [
        ("a3", "P7/1PPPPPPP"),
        ("b3", "1P6/P1PPPPPP"),
        ("c3", "2P5/PP1PPPPP"),
        ("d3", "3P4/PPP1PPPP"),
        ("e3", "4P3/PPPP1PPP"),
        ("f3", "5P2/PPPPP1PP"),
        ("g3", "6P1/PPPPPP1P"),
        ("h3", "7P/PPPPPPP1"),
    ];
    let records: String = moves
        .iter()
        .map(|(id, ranks)| {
            format!("rnbqkbnr/pppppppp/8/8/8/{ranks}/RNBQKBNR b KQkq - id \"1. {id}\";\n")
        })
        .collect();
    std::fs::write(&book, records).unwrap();
    let openings = format!("file={}", book.display());
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let mut child = spawn(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=5",
        "--engine",
        "name=B",
        "movetime=5",
        "--games",
        "8",
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--openings",
        &openings,
        "order=random",
        "--out",
        out_s,
    ]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !out.join("games/game-0004.jsonl").exists() {
        assert!(Instant::now() < deadline, "the event did not get far");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    let first = finish(child, Duration::from_secs(5));
    let stdout = text(&first.stdout);
    let seed: u64 = stdout
        .split_once("in random order (--srand ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no seed said: {stdout}"));
    let event = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    let settings: serde_json::Value = serde_json::from_str(event.lines().next().unwrap()).unwrap();
    assert_eq!(settings["config"]["srand"], seed, "{event}");
    assert_eq!(settings["config"]["openings"].as_array().unwrap().len(), 4);
    let resumed = argus(&["serve", "--resume", out_s]);
    assert!(
        resumed.status.success(),
        "{}{}",
        text(&resumed.stdout),
        text(&resumed.stderr)
    );
    let again = dir.path().join("again");
    let seed_s = seed.to_string();
    serve(
        dir.path(),
        "again",
        &[
            "--games",
            "8",
            "--openings",
            &openings,
            "order=random",
            "--srand",
            &seed_s,
        ],
    );
    let fens = fens_by_game(&out, 8);
    assert_eq!(fens, fens_by_game(&again, 8));
    // Four openings, each twice with the colours swapped.
    for pair in fens.chunks(2) {
        assert_eq!(pair[0], pair[1]);
    }
    let mut distinct = fens.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{fens:?}");
}
