//! The PGN writer as it was before it wrote the movetext in place (one string per
//! unit and per line), kept to check that the faster one writes the same bytes.

use std::fmt::Write as _;
use std::time::Duration;

use shakmaty::Color;

use super::{MAX_LINE, PgnGame, SEVEN_TAG_ROSTER};

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
