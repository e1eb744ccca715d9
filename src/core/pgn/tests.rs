use std::{io, ops::ControlFlow};

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{
    CastlingMode, Chess, EnPassantMode, Position,
    fen::Fen,
    san::{San, SanPlus as ShakmatySanPlus},
};

use super::*;

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

fn mv(san: &str, comment: Option<&str>) -> PgnMove {
    PgnMove {
        san: san.to_owned(),
        comment: comment.map(str::to_owned),
    }
}

fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|&(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

/// Checks the export format's line rules for the whole text.
fn assert_export_lines(text: &str) {
    assert!(text.ends_with("\n\n"), "{text}");
    assert!(!text.ends_with("\n\n\n"), "{text}");
    let (tag_section, movetext) = text.split_once("\n\n").expect("an empty line");
    for line in tag_section.lines() {
        assert!(line.starts_with('[') && line.ends_with("\"]"), "{line:?}");
    }
    for line in movetext.trim_end_matches('\n').lines() {
        assert!(!line.is_empty(), "empty line in movetext:\n{text}");
        assert!(line.chars().count() < 80, "line too long: {line:?}");
        assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
        assert!(!line.starts_with('%'), "{line:?}");
    }
}

fn short_game() -> PgnGame {
    PgnGame {
        tags: tags(&[
            ("TimeControl", "300+2"),
            ("Black", "Fairy-Max 5.0b"),
            ("White", "Stockfish 17"),
            ("Termination", "time forfeit"),
            ("Event", "Club Night"),
            ("Round", "3"),
            ("Site", "Room 101"),
            ("Date", "2026.05.01"),
            ("PlyCount", "6"),
            ("Result", "1-0"),
        ]),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: vec![
            mv(
                "e4",
                Some(&move_comment(None, Some(ms(300_950)), ms(1_150))),
            ),
            mv(
                "e5",
                Some(&move_comment(None, Some(ms(298_199)), ms(3_904))),
            ),
            mv(
                "Nf3",
                Some(&move_comment(None, Some(ms(299_500)), ms(3_456))),
            ),
            mv(
                "Nc6",
                Some(&move_comment(
                    Some("+0.35/12 1.2s"),
                    Some(ms(298_250)),
                    ms(1_850),
                )),
            ),
            mv("Bb5", None),
            mv("a6", None),
        ],
        final_comment: Some("White forfeits on time".to_owned()),
        result: "0-1".to_owned(),
    }
}

#[test]
fn writes_a_short_game_exactly() {
    let text = write_game(&short_game());
    let expected = concat!(
        "[Event \"Club Night\"]\n",
        "[Site \"Room 101\"]\n",
        "[Date \"2026.05.01\"]\n",
        "[Round \"3\"]\n",
        "[White \"Stockfish 17\"]\n",
        "[Black \"Fairy-Max 5.0b\"]\n",
        "[Result \"0-1\"]\n",
        "[PlyCount \"6\"]\n",
        "[Termination \"time forfeit\"]\n",
        "[TimeControl \"300+2\"]\n",
        "\n",
        "1. e4 {[%clk 0:05:00.9] [%emt 0:00:01.150]} 1... e5 {[%clk 0:04:58.1]\n",
        "[%emt 0:00:03.904]} 2. Nf3 {[%clk 0:04:59.5] [%emt 0:00:03.456]} 2... Nc6\n",
        "{+0.35/12 1.2s [%clk 0:04:58.2] [%emt 0:00:01.850]} 3. Bb5 a6 {White forfeits\n",
        "on time} 0-1\n",
        "\n",
    );
    assert_eq!(text, expected);
    assert_export_lines(&text);
}

#[test]
fn a_game_starting_with_black_to_move() {
    let game = PgnGame {
        tags: Vec::new(),
        start_turn: Color::Black,
        start_fullmove: 12,
        moves: vec![
            mv("Kd7", None),
            mv("Ke2", None),
            mv("Kc6", Some("only move")),
            mv("Kd3", None),
            mv("Kb5", None),
        ],
        final_comment: None,
        result: "*".to_owned(),
    };
    let text = write_game(&game);
    let movetext = text.split_once("\n\n").unwrap().1;
    assert_eq!(
        movetext,
        "12... Kd7 13. Ke2 Kc6 {only move} 14. Kd3 Kb5 *\n\n"
    );
    assert!(text.starts_with(concat!(
        "[Event \"?\"]\n",
        "[Site \"?\"]\n",
        "[Date \"????.??.??\"]\n",
        "[Round \"?\"]\n",
        "[White \"?\"]\n",
        "[Black \"?\"]\n",
        "[Result \"*\"]\n",
        "\n",
        "12... ",
    )));
}

#[test]
fn black_move_numbers_follow_comments_only() {
    let game = PgnGame {
        tags: Vec::new(),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: vec![
            mv("d4", Some("a")),
            mv("d5", None),
            mv("c4", None),
            mv("e6", Some("b")),
            mv("Nc3", None),
        ],
        final_comment: None,
        result: "1/2-1/2".to_owned(),
    };
    let movetext = write_game(&game).split_once("\n\n").unwrap().1.to_owned();
    assert_eq!(
        movetext,
        "1. d4 {a} 1... d5 2. c4 e6 {b} 3. Nc3 1/2-1/2\n\n"
    );
}

#[test]
fn an_empty_game_is_just_its_result() {
    let game = PgnGame {
        tags: Vec::new(),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: Vec::new(),
        final_comment: Some("White forfeits on time".to_owned()),
        result: "0-1".to_owned(),
    };
    assert!(write_game(&game).ends_with("\n\n{White forfeits on time} 0-1\n\n"));
}

#[test]
fn orders_and_escapes_tags() {
    let game = PgnGame {
        tags: tags(&[
            ("Zebra", "last"),
            ("SetUp", "1"),
            ("White", r#"Deep "Blue" \ IBM"#),
            ("FEN", "8/8/8/8/8/8/8/K6k w - - 0 1"),
            ("Annotator", "argus"),
            ("Black", "tab\there\nnewline"),
            ("Result", "1-0"),
            ("a_lower", "after upper case in ASCII"),
            ("Date", "2026.05.01"),
            ("Bad Name]", "x"),
            ("SetUp", "0"),
            ("BlackElo", "2800"),
        ]),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: Vec::new(),
        final_comment: None,
        result: "1/2-1/2".to_owned(),
    };
    let text = write_game(&game);
    let expected = concat!(
        "[Event \"?\"]\n",
        "[Site \"?\"]\n",
        "[Date \"2026.05.01\"]\n",
        "[Round \"?\"]\n",
        "[White \"Deep \\\"Blue\\\" \\\\ IBM\"]\n",
        "[Black \"tab here newline\"]\n",
        "[Result \"1/2-1/2\"]\n",
        "[Annotator \"argus\"]\n",
        "[Bad_Name_ \"x\"]\n",
        "[BlackElo \"2800\"]\n",
        "[SetUp \"1\"]\n",
        "[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
        "[Zebra \"last\"]\n",
        "[a_lower \"after upper case in ASCII\"]\n",
        "\n",
        "1/2-1/2\n",
        "\n",
    );
    assert_eq!(text, expected);
}

/// PGN 9.7: SetUp says a FEN follows; the other tags keep their ASCII order around
/// the two.
#[test]
fn setup_comes_right_before_fen() {
    let game = PgnGame {
        tags: tags(&[
            ("TimeControl", "40/7200"),
            ("FEN", "8/8/8/8/8/8/8/K6k b - - 0 1"),
            ("Termination", "normal"),
            ("SetUp", "1"),
            ("PlyCount", "0"),
            ("Opening", "Sicilian"),
            ("ECO", "B20"),
        ]),
        start_turn: Color::Black,
        start_fullmove: 1,
        moves: Vec::new(),
        final_comment: None,
        result: "*".to_owned(),
    };
    let text = write_game(&game);
    let tags: Vec<&str> = text
        .lines()
        .skip(7)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        tags,
        [
            "[ECO",
            "[SetUp",
            "[FEN",
            "[Opening",
            "[PlyCount",
            "[Termination",
            "[TimeControl"
        ]
    );
}

#[test]
fn an_unknown_result_is_written_as_unknown() {
    let game = PgnGame {
        tags: Vec::new(),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: vec![mv("e4", None)],
        final_comment: None,
        result: "white wins".to_owned(),
    };
    let text = write_game(&game);
    assert!(text.contains("[Result \"*\"]\n"));
    assert!(text.ends_with("\n\n1. e4 *\n\n"));
}

#[test]
fn sanitizes_comments() {
    let game = PgnGame {
        tags: Vec::new(),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: vec![
            mv("e4", Some("  a}b\t{c}\n\n d  ")),
            mv("e5", Some("")),
            mv("Nf3", Some(" \n ")),
        ],
        final_comment: Some("}".to_owned()),
        result: "*".to_owned(),
    };
    let movetext = write_game(&game).split_once("\n\n").unwrap().1.to_owned();
    assert_eq!(movetext, "1. e4 {a)b {c) d} 1... e5 {} 2. Nf3 {} {)} *\n\n");
}

#[test]
fn wraps_long_comments_at_spaces() {
    let long = "word ".repeat(60);
    let game = PgnGame {
        tags: Vec::new(),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: vec![
            mv("e4", Some(&long)),
            mv("e5", Some(&format!("{long} 100% %sure [%clk 1:00:00.0]"))),
        ],
        final_comment: Some(format!("{} {}", "x".repeat(100), long)),
        result: "*".to_owned(),
    };
    let text = write_game(&game);
    let movetext = text.split_once("\n\n").unwrap().1;
    for line in movetext.trim_end().lines() {
        assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
        assert!(!line.starts_with('%'), "{line:?}");
        // Only the single overlong word may exceed the limit.
        if !line.contains(&"x".repeat(100)) {
            assert!(line.chars().count() < 80, "{line:?}");
        }
    }
    assert!(movetext.contains("word %sure") || movetext.contains("100% %sure"));
    assert!(movetext.contains("[%clk 1:00:00.0]}"));
    let lines = movetext.trim_end().lines().count();
    assert!(lines > 8, "{movetext}");
    // The same words come back when the lines are joined again.
    let joined: Vec<&str> = movetext.split_whitespace().collect();
    assert_eq!(joined.iter().filter(|w| w.contains("word")).count(), 180);
}

#[test]
fn formats_clock_readings() {
    assert_eq!(format_clk(ms(298_190)), "0:04:58.1");
    assert_eq!(format_clk(ms(298_199)), "0:04:58.1");
    assert_eq!(
        format_clk(Duration::from_nanos(298_199_999_999)),
        "0:04:58.1"
    );
    assert_eq!(format_clk(ms(298_200)), "0:04:58.2");
    assert_eq!(format_clk(Duration::ZERO), "0:00:00.0");
    assert_eq!(format_clk(ms(99)), "0:00:00.0");
    assert_eq!(format_clk(ms(3_600_000)), "1:00:00.0");
    assert_eq!(format_clk(ms(9_000_000)), "2:30:00.0");
    assert_eq!(format_clk(ms(3_599_999)), "0:59:59.9");
    assert_eq!(format_clk(ms(100 * 3_600_000 + 61_500)), "100:01:01.5");

    assert_eq!(format_emt(Duration::from_micros(1_850_900)), "0:00:01.850");
    assert_eq!(format_emt(ms(1_850)), "0:00:01.850");
    assert_eq!(format_emt(Duration::ZERO), "0:00:00.000");
    assert_eq!(format_emt(Duration::from_micros(999)), "0:00:00.000");
    assert_eq!(format_emt(ms(7)), "0:00:00.007");
    assert_eq!(format_emt(ms(3_723_045)), "1:02:03.045");
    assert_eq!(format_emt(ms(36_000_000)), "10:00:00.000");
}

#[test]
fn builds_move_comments() {
    assert_eq!(
        move_comment(Some("+0.35/12 1.2s"), Some(ms(298_250)), ms(1_850)),
        "+0.35/12 1.2s [%clk 0:04:58.2] [%emt 0:00:01.850]"
    );
    assert_eq!(
        move_comment(None, Some(ms(298_199)), Duration::from_micros(1_850_999)),
        "[%clk 0:04:58.1] [%emt 0:00:01.850]"
    );
    assert_eq!(move_comment(Some("  "), None, ms(12)), "[%emt 0:00:00.012]");
    assert_eq!(
        move_comment(Some(" book "), None, Duration::ZERO),
        "book [%emt 0:00:00.000]"
    );
}

/// One item of movetext as the reader reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    San(String),
    Comment(String),
}

/// What the reader found in one game.
#[derive(Debug, Default)]
struct ReadGame {
    tags: Vec<(String, String)>,
    tokens: Vec<Token>,
    outcome: Option<String>,
    partial_comment: String,
}

/// Collects tags, moves, comments and the outcome of a game.
struct Collector;

impl Visitor for Collector {
    type Tags = Vec<(String, String)>;
    type Movetext = ReadGame;
    type Output = ReadGame;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let name = String::from_utf8(name.to_vec()).expect("utf-8 tag name");
        let value = value.decode_utf8().expect("utf-8 tag value").into_owned();
        tags.push((name, value));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(ReadGame {
            tags,
            ..ReadGame::default()
        })
    }

    fn san(&mut self, game: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        game.tokens.push(Token::San(san.to_string()));
        ControlFlow::Continue(())
    }

    fn partial_comment(
        &mut self,
        game: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        game.partial_comment
            .push_str(std::str::from_utf8(comment.as_bytes()).expect("utf-8 comment"));
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        game: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        let mut text = std::mem::take(&mut game.partial_comment);
        text.push_str(std::str::from_utf8(comment.as_bytes()).expect("utf-8 comment"));
        // Line breaks inside a comment are whitespace like any other.
        let words: Vec<&str> = text.split_whitespace().collect();
        game.tokens.push(Token::Comment(words.join(" ")));
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        game: &mut Self::Movetext,
        outcome: Outcome,
    ) -> ControlFlow<Self::Output> {
        game.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: Self::Movetext) -> Self::Output {
        game
    }
}

/// Writes `game`, reads it back with pgn-reader and checks that everything is there.
fn assert_round_trip(game: &PgnGame) -> String {
    let text = write_game(game);
    assert_export_lines(&text);
    let mut reader = Reader::new(io::Cursor::new(text.as_bytes()));
    let read = reader
        .read_game(&mut Collector)
        .expect("readable")
        .expect("one game");
    assert!(reader.read_game(&mut Collector).unwrap().is_none());

    for (name, value) in &game.tags {
        if name != "Result" {
            assert!(
                read.tags.contains(&(name.clone(), value.clone())),
                "tag {name} {value:?} missing from {:?}",
                read.tags
            );
        }
    }
    assert!(
        read.tags
            .contains(&("Result".to_owned(), game.result.clone()))
    );

    let mut expected = Vec::new();
    for m in &game.moves {
        expected.push(Token::San(m.san.clone()));
        if let Some(comment) = &m.comment {
            expected.push(Token::Comment(comment.clone()));
        }
    }
    if let Some(comment) = &game.final_comment {
        expected.push(Token::Comment(comment.clone()));
    }
    assert_eq!(read.tokens, expected);
    assert_eq!(read.outcome.as_deref(), Some(game.result.as_str()));
    text
}

/// Plays `plies` legal moves from `pos`, chosen deterministically, avoiding moves
/// that end the game, and returns their SAN.
fn play_legal_moves(mut pos: Chess, plies: usize) -> Vec<String> {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut sans = Vec::new();
    for _ in 0..plies {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let candidates: Vec<_> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| {
                let mut after = pos.clone();
                after.play_unchecked(*m);
                !after.legal_moves().is_empty()
            })
            .collect();
        assert!(!candidates.is_empty(), "no move keeps the game going");
        let m = candidates[(seed >> 33) as usize % candidates.len()];
        sans.push(ShakmatySanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    sans
}

/// Builds a comment that varies with the ply so that lines wrap at many places.
fn ply_comment(ply: usize) -> Option<String> {
    let remaining = ms(300_000 - 1_234 * ply as u64);
    let emt = ms(17 * ply as u64 + 3);
    match ply % 4 {
        0 => Some(move_comment(None, Some(remaining), emt)),
        1 => Some(move_comment(
            Some(&format!("+0.{ply}/{} {}.{}s", ply % 30, ply % 7, ply % 10)),
            Some(remaining),
            emt,
        )),
        2 => None,
        _ => Some(move_comment(Some("book"), None, emt)),
    }
}

#[test]
fn round_trips_the_short_game() {
    assert_round_trip(&short_game());
}

#[test]
fn round_trips_a_long_game_of_legal_moves() {
    let sans = play_legal_moves(Chess::default(), 120);
    let game = PgnGame {
        tags: tags(&[
            ("Event", "Long \"quoted\" event \\ with backslash"),
            ("Site", "Port A: /dev/ttyS0"),
            ("White", "Engine One"),
            ("Black", "Engine Two"),
            ("TimeControl", "40/5400+30:1800+30"),
            ("PlyCount", "120"),
            ("Termination", "adjudication"),
        ]),
        start_turn: Color::White,
        start_fullmove: 1,
        moves: sans
            .iter()
            .enumerate()
            .map(|(ply, san)| PgnMove {
                san: san.clone(),
                comment: ply_comment(ply),
            })
            .collect(),
        final_comment: Some("Game adjudicated as a draw by the referee".to_owned()),
        result: "1/2-1/2".to_owned(),
    };
    let text = assert_round_trip(&game);
    // A black move gets its number after a comment on the white move before it
    // (ply 116 has one) and not without (ply 118 has none).
    assert!(text.contains("\n59... ") || text.contains(" 59... "));
    assert!(!text.contains("60..."));

    // The same game without any comments: black moves carry no numbers at all.
    let bare = PgnGame {
        moves: sans
            .iter()
            .map(|san| PgnMove {
                san: san.clone(),
                comment: None,
            })
            .collect(),
        final_comment: None,
        ..game
    };
    let text = assert_round_trip(&bare);
    assert!(!text.contains("..."));
    assert!(text.contains("60. "));
}

#[test]
fn round_trips_a_game_from_a_fen_start() {
    let fen_text = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12";
    let fen: Fen = fen_text.parse().unwrap();
    let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    assert_eq!(
        Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
        fen_text
    );
    let sans = play_legal_moves(pos.clone(), 41);
    let game = PgnGame {
        tags: tags(&[("SetUp", "1"), ("FEN", fen_text), ("Result", "*")]),
        start_turn: pos.turn(),
        start_fullmove: pos.fullmoves().get(),
        moves: sans
            .iter()
            .enumerate()
            .map(|(ply, san)| PgnMove {
                san: san.clone(),
                comment: ply_comment(ply + 2),
            })
            .collect(),
        final_comment: None,
        result: "*".to_owned(),
    };
    let text = assert_round_trip(&game);
    let movetext = text.split_once("\n\n").unwrap().1;
    assert!(movetext.starts_with("12... "), "{movetext}");

    // The moves read back are legal from the FEN position.
    let mut replay = pos;
    for san in &sans {
        let m = san.parse::<San>().unwrap().to_move(&replay).unwrap();
        replay.play_unchecked(m);
    }
}

mod same_bytes {
    //! The writer against the one before it (`super::super::reference`): the same bytes
    //! for any game, comment and clock.
    use proptest::prelude::*;

    use super::super::reference;
    use super::*;

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("[%clk".to_owned()),
            Just("[%emt".to_owned()),
            Just("0:00:01.5]".to_owned()),
            Just("%x".to_owned()),
            Just("%".to_owned()),
            Just("}".to_owned()),
            Just("a}b".to_owned()),
            Just("é".to_owned()),
            Just("\t\n".to_owned()),
            Just("\u{7}".to_owned()),
            Just("".to_owned()),
            "[a-z%\\[\\]{}]{0,12}",
            "[a-z]{60,90}",
        ]
    }

    fn comment() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (word(), prop_oneof![Just(" "), Just("  "), Just("")]),
            0..14,
        )
        .prop_map(|ws| ws.into_iter().map(|(w, s)| w + s).collect())
    }

    fn game() -> impl Strategy<Value = PgnGame> {
        let san = prop_oneof![
            Just("e4".to_owned()),
            Just("Nxf7+".to_owned()),
            Just("exd8=Q#".to_owned()),
            "[a-h][1-8]"
        ];
        let mv =
            (san, prop::option::of(comment())).prop_map(|(san, comment)| PgnMove { san, comment });
        let tag = ("[A-Za-z ]{0,8}", "[ -~\u{7}é]{0,10}");
        (
            prop::collection::vec(tag, 0..6),
            any::<bool>(),
            prop_oneof![Just(1u32), 1u32..200, Just(u32::MAX - 1)],
            prop::collection::vec(mv, 0..80),
            prop::option::of(comment()),
            prop_oneof![Just("1-0"), Just("1/2-1/2"), Just("*"), Just("draw")],
        )
            .prop_map(
                |(tags, black, start_fullmove, moves, final_comment, result)| PgnGame {
                    tags,
                    start_turn: if black { Color::Black } else { Color::White },
                    start_fullmove,
                    moves,
                    final_comment,
                    result: result.to_owned(),
                },
            )
    }

    /// Games of the usual move comments (analysis and both clocks), the moves and the
    /// comments' lengths shifted so that comments meet every place on a line: the
    /// comment written at once ([`Movetext::whole_comment`]) is where the units put it.
    #[test]
    fn usual_move_comments_land_where_their_units_do() {
        let sans = ["e4", "Nf3", "Bxc6", "exd8=Q#", "O-O-O", "Qh4+", "a3"];
        let analyses = [
            None,
            Some("+0.00/1 1n"),
            Some("-12.34/25 123456n pv e4 e5 Nf3"),
        ];
        for shift in 0..60usize {
            let moves = (0..120usize)
                .map(|i| PgnMove {
                    san: sans[(i + shift) % sans.len()].to_owned(),
                    comment: Some(move_comment(
                        analyses[(i * 7 + shift) % analyses.len()],
                        Some(Duration::from_millis(
                            ((i * 37 + shift) % 9_000) as u64 * 100,
                        )),
                        Duration::from_millis(((i * 13 + shift * 101) % 20_000) as u64),
                    )),
                })
                .collect();
            let game = PgnGame {
                tags: Vec::new(),
                start_turn: Color::White,
                start_fullmove: 1 + shift as u32,
                moves,
                final_comment: None,
                result: "*".to_owned(),
            };
            assert_eq!(write_game(&game), reference::write_game(&game));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn games(game in game()) {
            prop_assert_eq!(write_game(&game), reference::write_game(&game));
        }

        #[test]
        fn comments(
            analysis in prop::option::of(comment()),
            remaining in prop::option::of(0u64..40_000_000_000),
            emt in prop_oneof![0u64..10_000, 0u64..40_000_000_000],
        ) {
            let (remaining, emt) = (remaining.map(Duration::from_millis), Duration::from_millis(emt));
            prop_assert_eq!(
                move_comment(analysis.as_deref(), remaining, emt),
                reference::move_comment(analysis.as_deref(), remaining, emt)
            );
            if let Some(r) = remaining {
                prop_assert_eq!(format_clk(r), reference::format_clk(r));
            }
            prop_assert_eq!(format_emt(emt), reference::format_emt(emt));
        }
    }
}

/// `push_pawns` writes what `{:.2}` and `{:+.2}` write for the centipawns over 100,
/// over the whole range of a `ce` that is not a mate and a little beyond.
#[test]
fn pawns_are_written_as_the_float_formatter_writes_them() {
    for cp in -33_000i64..=33_000 {
        let (mut plain, mut plus) = (String::new(), String::new());
        push_pawns(&mut plain, cp, false);
        push_pawns(&mut plus, cp, true);
        assert_eq!(plain, format!("{:.2}", cp as f64 / 100.0));
        assert_eq!(plus, format!("{:+.2}", cp as f64 / 100.0));
    }
}
