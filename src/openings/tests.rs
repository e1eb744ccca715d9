use std::path::Path;

use super::*;

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";

fn words(text: &str) -> Vec<String> {
    text.split(' ').map(String::from).collect()
}

fn fens(openings: &[Opening]) -> Vec<&str> {
    openings.iter().map(|o| o.fen.as_str()).collect()
}

#[test]
fn fen_lines_and_epd_records_are_both_read() {
    let text = format!(
        "# a book\n\n{AFTER_E4}\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 hmvc 0; fmvn 1;\n\
         r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n\
         8/8/8/8/8/8/4P3/K1k5 w - - 7 0\n"
    );
    let openings = parse_epd(text.as_bytes()).unwrap();
    assert_eq!(
        fens(&openings),
        [
            AFTER_E4,
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            // Move number 0, which some tools write, is the first.
            "8/8/8/8/8/8/4P3/K1k5 w - - 7 1",
        ]
    );
    assert!(openings.iter().all(|o| o.tags.is_empty()));
}

#[test]
fn chess960_positions_are_named_by_their_numbers_and_read_in_x_fen_and_shredder_fen() {
    let text = "518\n0\n# Double Fischer Random: each side its own back rank\n\
        nrbkqrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq -\n\
        rkrbbqnn/pppppppp/8/8/8/8/PPPPPPPP/RKRBBQNN w CAca - 0 1\n";
    let openings = parse_epd(text.as_bytes()).unwrap();
    assert_eq!(
        fens(&openings),
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
            "nrbkqrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1",
            "rkrbbqnn/pppppppp/8/8/8/8/PPPPPPPP/RKRBBQNN w KQkq - 0 1",
        ]
    );
    let BookError::Line { line, problem } = parse_epd(b"960\n").unwrap_err() else {
        panic!()
    };
    assert_eq!(line, 1);
    assert!(problem.contains("numbered 0 to 959"), "{problem}");
}

#[test]
fn a_bad_line_is_named() {
    let text = format!("{AFTER_E4}\n\nrnbqkbnr/pppppppp/8/8 w KQkq - 0 1\n");
    let e = parse_epd(text.as_bytes()).unwrap_err();
    assert!(matches!(e, BookError::Line { line: 3, .. }), "{e:?}");
    let over = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1\n";
    let BookError::Line { problem, .. } = parse_epd(over.as_bytes()).unwrap_err() else {
        panic!()
    };
    assert!(problem.contains("already over"), "{problem}");
}

#[test]
fn an_epd_records_names_become_tags() {
    let text = format!(
        "{} id \"Sicilian\"; eco \"B20\";\n{} v0 \"French\"; v1 \"Winawer\"; id \"no. 2\";\n{AFTER_E4} id \"King's pawn\";\n",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6",
        "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
    );
    let openings = parse_epd(text.as_bytes()).unwrap();
    let pairs = |o: &Opening| -> Vec<(String, String)> { o.tags.clone() };
    let tag = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        pairs(&openings[0]),
        [tag("Opening", "Sicilian"), tag("ECO", "B20")]
    );
    assert_eq!(
        pairs(&openings[1]),
        [tag("Opening", "French"), tag("Variation", "Winawer")]
    );
    // A FEN line may carry operations too.
    assert_eq!(pairs(&openings[2]), [tag("Opening", "King's pawn")]);
    assert_eq!(openings[2].fen, AFTER_E4);
}

const PGN: &str = r#"[Event "Book"]
[Opening "Ruy Lopez"]
[ECO "C60"]

1. e4 e5 2. Nf3 {a comment} Nc6 (2... d6 3. d4) 3. Bb5 a6 *

[Event "From a position"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40"]

40... Kd7 41. e4 Ke6 42. Kf2 1/2-1/2

1. d4 d5 2. c4 *
"#;

#[test]
fn a_pgn_book_gives_each_games_position_after_its_first_plies() {
    let all = parse_pgn(PGN.as_bytes(), None).unwrap();
    assert_eq!(
        fens(&all),
        [
            "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4",
            "8/8/4k3/8/4P3/8/5K2/8 b - - 2 42",
            // A game without tags.
            "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq c3 0 2",
        ]
    );
    let tag = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        all[0].tags,
        [tag("Opening", "Ruy Lopez"), tag("ECO", "C60")]
    );
    assert!(all[1].tags.is_empty());
    let cut = parse_pgn(PGN.as_bytes(), Some(2)).unwrap();
    assert_eq!(
        fens(&cut),
        [
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
            "8/3k4/8/8/4P3/8/8/4K3 b - e3 0 41",
            "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq d6 0 2",
        ]
    );
}

#[test]
fn a_bad_pgn_game_is_named() {
    let text = "1. e4 e5 *\n\n1. e4 e5 2. Ke3 *\n";
    let e = parse_pgn(text.as_bytes(), None).unwrap_err();
    let BookError::Game { game, problem } = e else {
        panic!("{e:?}")
    };
    assert_eq!(game, 2);
    assert!(
        problem.contains("Ke3") && problem.contains("ply 3"),
        "{problem}"
    );
    // Within the plies taken, the bad move is not played.
    assert_eq!(parse_pgn(text.as_bytes(), Some(2)).unwrap().len(), 2);
}

#[test]
fn the_format_comes_from_the_name_or_the_text() {
    let p = Path::new;
    assert_eq!(BookFormat::of(p("a.PGN"), b""), BookFormat::Pgn);
    assert_eq!(BookFormat::of(p("a.epd"), b"[Event]"), BookFormat::Epd);
    assert_eq!(
        BookFormat::of(p("book"), b"# x\n\n[Event \"x\"]\n"),
        BookFormat::Pgn
    );
    assert_eq!(BookFormat::of(p("book"), b"1. e4 e5 *\n"), BookFormat::Pgn);
    assert_eq!(BookFormat::of(p("book"), b"12. e4 e5 *\n"), BookFormat::Pgn);
    assert_eq!(
        BookFormat::of(p("book"), AFTER_E4.as_bytes()),
        BookFormat::Epd
    );
    assert_eq!(
        BookFormat::of(p("book"), b"8/8/8/8/8/8/8/K1k5 w - -"),
        BookFormat::Epd
    );
}

#[test]
fn the_options_words_are_read_and_a_wrong_one_named() {
    assert_eq!(
        OpeningsSpec::parse(&words("book.epd")).unwrap(),
        OpeningsSpec::file("book.epd")
    );
    let spec =
        OpeningsSpec::parse(&words("order=random file=b.pgn plies=8 start=3 format=pgn")).unwrap();
    assert_eq!(
        spec,
        OpeningsSpec {
            file: "b.pgn".into(),
            format: Some(BookFormat::Pgn),
            order: Order::Random,
            plies: Some(8),
            start: 3,
        }
    );
    assert_eq!(OpeningsSpec::parse(&spec.words()).unwrap(), spec);
    // The file alone with other keys.
    assert_eq!(
        OpeningsSpec::parse(&words("b.pgn plies=4")).unwrap().plies,
        Some(4)
    );
    for (text, says) in [
        ("order=shuffled file=b", "order=sequential or random"),
        ("file=b plies=0", "plies=0"),
        ("file=b format=cbh", "format=epd or pgn"),
        ("plies=3", "give the file"),
        ("a.epd b.epd", "the file is a.epd already"),
        ("file=a file=b", "twice"),
    ] {
        let e = OpeningsSpec::parse(&words(text)).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn arrange_shuffles_by_the_seed_starts_where_told_and_keeps_what_is_used() {
    let book: Vec<Opening> = (0..10).map(|i| Opening::from(format!("{i}"))).collect();
    let names = |o: &[Opening]| {
        o.iter()
            .map(|o| o.fen.clone())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let same = arrange(book.clone(), Order::Sequential, 1, 7, 100).unwrap();
    assert_eq!(same, book);
    let from_3 = arrange(book.clone(), Order::Sequential, 3, 7, 4).unwrap();
    assert_eq!(names(&from_3), "2 3 4 5");
    let wrapped = arrange(book.clone(), Order::Sequential, 9, 7, 4).unwrap();
    assert_eq!(names(&wrapped), "8 9 0 1");
    let shuffled = arrange(book.clone(), Order::Random, 1, 7, 100).unwrap();
    // The order a seed gives never changes: argus's own shuffle.
    assert_eq!(names(&shuffled), "9 5 8 6 1 2 4 7 0 3");
    assert_eq!(
        arrange(book.clone(), Order::Random, 1, 7, 100).unwrap(),
        shuffled
    );
    assert_ne!(
        arrange(book.clone(), Order::Random, 1, 8, 100).unwrap(),
        shuffled
    );
    let later = arrange(book.clone(), Order::Random, 2, 7, 3).unwrap();
    assert_eq!(later[..], shuffled[1..4]);
    let e = arrange(book, Order::Sequential, 11, 7, 3).unwrap_err();
    assert!(e.contains("10 opening(s)"), "{e}");
}

#[test]
fn reading_a_file_names_it_and_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("book.pgn");
    std::fs::write(&pgn, PGN).unwrap();
    assert_eq!(read(&pgn, None, Some(1)).unwrap().len(), 3);
    let fen = dir.path().join("book.txt");
    std::fs::write(&fen, format!("{AFTER_E4}\nnonsense\n")).unwrap();
    let e = read_openings(&fen).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("openings file {}, line 2: ", fen.display())),
        "{e}"
    );
    let bad_pgn = dir.path().join("bad.pgn");
    std::fs::write(&bad_pgn, "1. e5 *\n").unwrap();
    let e = read_openings(&bad_pgn).unwrap_err().to_string();
    assert!(
        e.contains(", game 1: its move e5 (ply 1) is not legal"),
        "{e}"
    );
    let empty = dir.path().join("empty.epd");
    std::fs::write(&empty, "# nothing\n").unwrap();
    let e = read_openings(&empty).unwrap_err().to_string();
    assert!(e.ends_with("no positions in it"), "{e}");
}
