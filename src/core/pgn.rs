//! The record of a finished game, written in PGN export format.
//!
//! The referee's record of each game is a PGN file that any chess program can read, so
//! this module writes exactly the export format of the PGN specification (section 8):
//! the Seven Tag Roster in its order, the other tags in ASCII order, and movetext with
//! the export format's move number indications, wrapped into lines of fewer than 80
//! characters. Each move may carry a comment with the mover's clock in the `[%clk]`
//! and `[%emt]` forms that PGN readers understand (protocol profile, section 7).
//!
//! The module only builds text: the caller decides where it goes.

use std::{fmt::Write as _, time::Duration};

use shakmaty::Color;

/// One move of the record: its SAN and the comment that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    /// The move in SAN, such as `Nf3` or `exd8=Q#`.
    pub san: String,
    /// The comment text after the move, without braces.
    pub comment: Option<String>,
}

/// One game as it is written to the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// The tag pairs as name and value, in any order; [`write_game`] orders them.
    pub tags: Vec<(String, String)>,
    /// The side to move in the start position.
    pub start_turn: Color,
    /// The fullmove number of the start position.
    pub start_fullmove: u32,
    /// The moves of the game, in order.
    pub moves: Vec<PgnMove>,
    /// A comment after the last move and before the result, such as
    /// `Black forfeits on time`.
    pub final_comment: Option<String>,
    /// The game termination marker: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

/// The Seven Tag Roster in its export order, each with the value written when the
/// game has no such tag. The Result tag always takes the game's result.
const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// The longest movetext line, in characters: export format lines have fewer than 80.
const MAX_LINE: usize = 79;

/// Writes one game in PGN export format, ending with the empty line that ends the
/// movetext (`"...\n\n"`).
///
/// The tag section holds the Seven Tag Roster first, in its order, then all other tags
/// in ASCII order of their names, one per line. A missing roster tag is written as `?`
/// (the Date as `????.??.??`), and the Result tag is always the game's result. When a
/// name appears more than once, the first of its pairs is written. Backslashes and
/// quotes in values are escaped; control characters in values become spaces, and
/// characters other than letters, digits and `_` in names become `_`.
///
/// In the movetext a black move is preceded by its move number only at the start and
/// after a comment. Runs of whitespace and control characters in comments become single
/// spaces, and a `}` becomes `)` so that it cannot end the comment early. A result
/// other than the four termination markers is written as `*`, in the Result tag too.
///
/// Lines are filled greedily and broken at spaces, inside comments too, so that every
/// line has fewer than 80 characters and none starts or ends with a space. The line
/// breaks never separate a move number indication from its move, avoid splitting short
/// `[%...]` commands, and avoid starting a line with `%`, which would make it an escape
/// line; a single word of more than 79 characters still gets a line to itself.
pub fn write_game(game: &PgnGame) -> String {
    let result = match game.result.as_str() {
        r @ ("1-0" | "0-1" | "1/2-1/2" | "*") => r,
        _ => "*",
    };

    let mut out = String::new();
    for (name, default) in SEVEN_TAG_ROSTER {
        let value = if name == "Result" {
            result
        } else {
            game.tags
                .iter()
                .find(|(n, _)| n == name)
                .map_or(default, |(_, v)| v.as_str())
        };
        write_tag(&mut out, name, value);
    }
    let mut others: Vec<(String, &str)> = Vec::new();
    for (name, value) in &game.tags {
        if SEVEN_TAG_ROSTER.iter().any(|(n, _)| n == name) {
            continue;
        }
        let name = sanitize_tag_name(name);
        if !others.iter().any(|(n, _)| *n == name) {
            others.push((name, value));
        }
    }
    // Rust orders strings by their bytes, which for tag names is ASCII order.
    others.sort_by(|(a, _), (b, _)| a.cmp(b));
    for (name, value) in others {
        write_tag(&mut out, &name, value);
    }
    out.push('\n');

    let words = movetext_words(game, result);
    for line in fill_lines(&words) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// Appends one tag pair line, `[Name "value"]`, escaping the value.
fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

/// Makes a tag name out of letters, digits and underscores only.
fn sanitize_tag_name(name: &str) -> String {
    if name.is_empty() {
        return "_".to_owned();
    }
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Splits the movetext into units that must not be broken across lines: moves with
/// their move number indications, the result, and the words of comments (some joined,
/// see [`push_comment`]).
fn movetext_words(game: &PgnGame, result: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut turn = game.start_turn;
    let mut fullmove = game.start_fullmove;
    let mut black_needs_number = true;
    for m in &game.moves {
        // A move number indication stays on the line of its move, for readability.
        words.push(match turn {
            Color::White => format!("{fullmove}. {}", m.san),
            Color::Black if black_needs_number => format!("{fullmove}... {}", m.san),
            Color::Black => m.san.clone(),
        });
        black_needs_number = false;
        if let Some(comment) = &m.comment {
            push_comment(&mut words, comment);
            black_needs_number = true;
        }
        if turn == Color::Black {
            fullmove = fullmove.saturating_add(1);
        }
        turn = !turn;
    }
    if let Some(comment) = &game.final_comment {
        push_comment(&mut words, comment);
    }
    words.push(result.to_owned());
    words
}

/// Appends a brace comment as units for line filling.
///
/// A `[%...]` command that ends within a line's length is kept in one unit, because
/// some readers expect its parts on one line, and a word starting with `%` is joined to
/// the word before it, because a line starting with `%` is an escape line.
fn push_comment(words: &mut Vec<String>, text: &str) {
    let cleaned: String = text
        .chars()
        .map(|c| match c {
            '}' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let parts: Vec<&str> = cleaned.split_whitespace().collect();
    let mut units: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let mut unit = parts[i].to_owned();
        i += 1;
        if unit.starts_with("[%") && !unit.contains(']') {
            // Join up to the word that closes the command, if that stays short.
            if let Some(end) = parts[i..].iter().position(|p| p.contains(']')) {
                let joined = parts[i..=i + end].join(" ");
                if unit.chars().count() + 1 + joined.chars().count() <= MAX_LINE - 2 {
                    unit.push(' ');
                    unit.push_str(&joined);
                    i += end + 1;
                }
            }
        }
        match units.last_mut() {
            Some(last) if unit.starts_with('%') => {
                last.push(' ');
                last.push_str(&unit);
            }
            _ => units.push(unit),
        }
    }
    match units.as_mut_slice() {
        [] => words.push("{}".to_owned()),
        [first, .., last] => {
            first.insert(0, '{');
            last.push('}');
            words.append(&mut units);
        }
        [only] => {
            only.insert(0, '{');
            only.push('}');
            words.append(&mut units);
        }
    }
}

/// Fills lines greedily with the units, separated by single spaces, so that each line
/// has at most [`MAX_LINE`] characters unless a single unit is longer.
fn fill_lines(words: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_chars = 0;
    for word in words {
        let chars = word.chars().count();
        if line_chars > 0 && line_chars + 1 + chars > MAX_LINE {
            lines.push(std::mem::take(&mut line));
            line_chars = 0;
        }
        if line_chars > 0 {
            line.push(' ');
            line_chars += 1;
        }
        line.push_str(word);
        line_chars += chars;
    }
    if line_chars > 0 {
        lines.push(line);
    }
    lines
}

/// Formats a clock reading as `H:MM:SS.t`, truncated to the tenth of a second, as in
/// `[%clk 0:04:58.1]`.
pub fn format_clk(d: Duration) -> String {
    let tenths = d.as_millis() / 100;
    let (seconds, tenth) = (tenths / 10, tenths % 10);
    format!(
        "{}:{:02}:{:02}.{tenth}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// Formats a time taken as `H:MM:SS.mmm`, truncated to the millisecond, as in
/// `[%emt 0:00:01.850]`.
pub fn format_emt(d: Duration) -> String {
    let millis = d.as_millis();
    let (seconds, milli) = (millis / 1000, millis % 1000);
    format!(
        "{}:{:02}:{:02}.{milli:03}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// Builds the comment after a move: the analysis text first when there is any, then
/// `[%clk ...]` when `remaining` is known, then `[%emt ...]`, separated by single
/// spaces, as in `+0.35/12 1.2s [%clk 0:04:58.2] [%emt 0:00:01.850]`.
///
/// Surrounding whitespace is trimmed from the analysis, and an analysis that is empty
/// after trimming is left out.
pub fn move_comment(analysis: Option<&str>, remaining: Option<Duration>, emt: Duration) -> String {
    let mut comment = String::new();
    if let Some(analysis) = analysis.map(str::trim).filter(|a| !a.is_empty()) {
        comment.push_str(analysis);
        comment.push(' ');
    }
    if let Some(remaining) = remaining {
        // Writing to a String cannot fail.
        let _ = write!(comment, "[%clk {}] ", format_clk(remaining));
    }
    let _ = write!(comment, "[%emt {}]", format_emt(emt));
    comment
}

#[cfg(test)]
mod tests {
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
            "[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
            "[SetUp \"1\"]\n",
            "[Zebra \"last\"]\n",
            "[a_lower \"after upper case in ASCII\"]\n",
            "\n",
            "1/2-1/2\n",
            "\n",
        );
        assert_eq!(text, expected);
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

        fn begin_movetext(
            &mut self,
            tags: Self::Tags,
        ) -> ControlFlow<Self::Output, Self::Movetext> {
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
}
