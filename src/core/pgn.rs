//! The record of a finished game, written in PGN export format.
//!
//! The referee's record of each game is a PGN file that any chess program can read, so
//! this module writes exactly the export format of the PGN specification (section 8):
//! the Seven Tag Roster in its order, the other tags in ASCII order (SetUp right before
//! FEN), and movetext with
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
/// in ASCII order of their names, one per line, except that SetUp comes right before
/// FEN (PGN 9.7: it says whether FEN is there and how to take it). A missing roster tag is written as `?`
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
    // SetUp says how to read FEN, so it comes first, right before it (PGN 9.7).
    if let (Some(setup), Some(_)) = (
        others.iter().position(|(n, _)| n == "SetUp"),
        others.iter().position(|(n, _)| n == "FEN"),
    ) {
        let pair = others.remove(setup);
        let fen = others.iter().position(|(n, _)| n == "FEN").unwrap_or(0);
        others.insert(fen, pair);
    }
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
mod tests;
