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

use std::time::Duration;

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

    let mut text = Movetext {
        out: &mut out,
        line_chars: 0,
    };
    let mut word = String::new();
    let mut units = Units::default();
    let mut turn = game.start_turn;
    let mut fullmove = game.start_fullmove;
    let mut black_needs_number = true;
    for m in &game.moves {
        // A move number indication stays on the line of its move, for readability.
        word.clear();
        match turn {
            Color::White => {
                push_u128(&mut word, fullmove.into());
                word.push_str(". ");
            }
            Color::Black if black_needs_number => {
                push_u128(&mut word, fullmove.into());
                word.push_str("... ");
            }
            Color::Black => {}
        }
        word.push_str(&m.san);
        text.word(&word);
        black_needs_number = false;
        if let Some(comment) = &m.comment {
            push_comment(&mut text, &mut units, comment);
            black_needs_number = true;
        }
        if turn == Color::Black {
            fullmove = fullmove.saturating_add(1);
        }
        turn = !turn;
    }
    if let Some(comment) = &game.final_comment {
        push_comment(&mut text, &mut units, comment);
    }
    text.word(result);
    text.end();
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

/// The movetext as it is written: units that must not be broken across lines (moves
/// with their move number indications, the result, and the words of comments, some
/// joined, see [`push_comment`]), filled greedily into lines, separated by single
/// spaces, so that each line has at most [`MAX_LINE`] characters unless a single unit
/// is longer. Written straight into the game's text, with no string of its own for
/// each unit or line.
struct Movetext<'a> {
    out: &'a mut String,
    /// The characters on the line being filled.
    line_chars: usize,
}

impl Movetext<'_> {
    fn word(&mut self, word: &str) {
        let chars = char_count(word);
        if self.line_chars > 0 && self.line_chars + 1 + chars > MAX_LINE {
            self.out.push('\n');
            self.line_chars = 0;
        }
        if self.line_chars > 0 {
            self.out.push(' ');
            self.line_chars += 1;
        }
        self.out.push_str(word);
        self.line_chars += chars;
    }

    /// Writes the comment `text` at once when its units, whatever they are, are sure to
    /// land as one piece: it is printable ASCII without `}`, its words apart by single
    /// spaces, and it fits on the line being filled, or (the usual case after a move)
    /// its first word does not but the whole comment fits on the next line. Its units
    /// are then filled onto one line, single spaces apart, which is the text itself.
    /// Returns whether it wrote it.
    fn whole_comment(&mut self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
            return false;
        };
        let chars = bytes.len() + 2;
        if first == b' ' || last == b' ' || chars > MAX_LINE {
            return false;
        }
        let mut first_word = bytes.len();
        let mut space = false;
        for (i, &b) in bytes.iter().enumerate() {
            if !(b' '..=b'~').contains(&b) || b == b'}' || (space && b == b' ') {
                return false;
            }
            space = b == b' ';
            if space && first_word == bytes.len() {
                first_word = i;
            }
        }
        let fits = self.line_chars == 0 || self.line_chars + 1 + chars <= MAX_LINE;
        // The first unit holds the first word and its brace at least; a `[%` command's
        // first word, the words up to its `]` (the whole comment fits on a line, so the
        // command is kept in one unit).
        let mut first_unit = first_word;
        if bytes.starts_with(b"[%")
            && let Some(close) = memchr::memchr(b']', bytes)
            && close > first_word
        {
            first_unit = memchr::memchr(b' ', &bytes[close..]).map_or(bytes.len(), |i| close + i);
        }
        let breaks_first = self.line_chars + 1 + first_unit + 1 > MAX_LINE;
        if !fits && !breaks_first {
            return false;
        }
        if !fits {
            self.out.push('\n');
            self.line_chars = 0;
        } else if self.line_chars > 0 {
            self.out.push(' ');
            self.line_chars += 1;
        }
        self.out.push('{');
        self.out.push_str(text);
        self.out.push('}');
        self.line_chars += chars;
        true
    }

    /// Ends the last line, if it holds anything.
    fn end(&mut self) {
        if self.line_chars > 0 {
            self.out.push('\n');
            self.line_chars = 0;
        }
    }
}

fn char_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// A comment's units as they are built: their text one after the other in `text`,
/// each ending where `ends` says. Kept from one comment to the next, so that a game's
/// comments cost no allocation each.
#[derive(Default)]
struct Units {
    /// The comment with `}` made `)` and control characters made spaces.
    cleaned: String,
    text: String,
    ends: Vec<usize>,
}

/// Appends a brace comment as units for line filling.
///
/// A `[%...]` command that ends within a line's length is kept in one unit, because
/// some readers expect its parts on one line, and a word starting with `%` is joined to
/// the word before it, because a line starting with `%` is an escape line.
fn push_comment(out: &mut Movetext<'_>, units: &mut Units, text: &str) {
    if out.whole_comment(text) {
        return;
    }
    let Units {
        cleaned,
        text: buf,
        ends,
    } = units;
    cleaned.clear();
    buf.clear();
    ends.clear();
    // A comment of printable ASCII without `}` (a move's usual comment) is its own
    // cleaned text: it is not copied a character at a time.
    let plain = text
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'}');
    let cleaned: &str = if plain {
        text
    } else {
        cleaned.extend(text.chars().map(|c| match c {
            '}' => ')',
            c if c.is_control() => ' ',
            c => c,
        }));
        cleaned
    };
    // The opening brace goes before the first unit; the units' lengths leave it out.
    buf.push('{');
    // Printable ASCII has no blank but the space: split without Unicode's tables.
    if plain {
        push_units(cleaned.split_ascii_whitespace(), buf, ends);
    } else {
        push_units(cleaned.split_whitespace(), buf, ends);
    }
    if ends.is_empty() {
        out.word("{}");
        return;
    }
    buf.push('}');
    *ends.last_mut().expect("a unit") = buf.len();
    let mut start = 0;
    for &end in ends.iter() {
        out.word(&buf[start..end]);
        start = end;
    }
}

/// The words of a comment (`parts`) as units in `buf`, each unit's end in `ends` (see
/// [`push_comment`]).
fn push_units<'a>(
    mut parts: impl Iterator<Item = &'a str> + Clone,
    buf: &mut String,
    ends: &mut Vec<usize>,
) {
    while let Some(part) = parts.next() {
        let joins_last = part.starts_with('%') && !ends.is_empty();
        if joins_last {
            buf.push(' ');
        }
        buf.push_str(part);
        if part.starts_with("[%") && !part.contains(']') {
            // Join up to the word that closes the command, if that stays short.
            let rest = parts.clone();
            let mut joined_chars = 0;
            let mut count = 0;
            let mut closed = false;
            for p in rest {
                joined_chars += usize::from(count > 0) + char_count(p);
                count += 1;
                if p.contains(']') {
                    closed = true;
                    break;
                }
            }
            if closed && char_count(part) + 1 + joined_chars <= MAX_LINE - 2 {
                for _ in 0..count {
                    buf.push(' ');
                    buf.push_str(parts.next().expect("counted"));
                }
            }
        }
        if joins_last {
            // The unit (all of it, a joined command too) goes onto the one before.
            *ends.last_mut().expect("a unit before") = buf.len();
        } else {
            ends.push(buf.len());
        }
    }
}

/// Appends `n` in decimal.
fn push_u128(out: &mut String, n: u128) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends `n` in decimal with at least `width` digits, zeros before.
fn push_padded(out: &mut String, n: u128, width: usize) {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(n);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// Appends `cp` centipawns as pawns with two decimals (`0.35`, `-1.20`), after a `+`
/// when `plus` is set and `cp` is not negative (`+0.00`): what `{:.2}` and `{:+.2}`
/// write for `cp / 100`, without a float or a formatter.
pub(crate) fn push_pawns(out: &mut String, cp: i64, plus: bool) {
    if cp < 0 {
        out.push('-');
    } else if plus {
        out.push('+');
    }
    let abs = cp.unsigned_abs();
    push_u128(out, (abs / 100).into());
    out.push('.');
    push_padded(out, (abs % 100).into(), 2);
}

/// Formats a clock reading as `H:MM:SS.t`, truncated to the tenth of a second, as in
/// `[%clk 0:04:58.1]`.
pub fn format_clk(d: Duration) -> String {
    let mut out = String::new();
    push_clk(&mut out, d);
    out
}

fn push_clk(out: &mut String, d: Duration) {
    let tenths = d.as_millis() / 100;
    let (seconds, tenth) = (tenths / 10, tenths % 10);
    push_hms(out, seconds);
    out.push('.');
    push_u128(out, tenth);
}

/// Formats a time taken as `H:MM:SS.mmm`, truncated to the millisecond, as in
/// `[%emt 0:00:01.850]`.
pub fn format_emt(d: Duration) -> String {
    let mut out = String::new();
    push_emt(&mut out, d);
    out
}

fn push_emt(out: &mut String, d: Duration) {
    let millis = d.as_millis();
    let (seconds, milli) = (millis / 1000, millis % 1000);
    push_hms(out, seconds);
    out.push('.');
    push_padded(out, milli, 3);
}

/// `H:MM:SS` of a number of seconds.
fn push_hms(out: &mut String, seconds: u128) {
    push_u128(out, seconds / 3600);
    out.push(':');
    push_padded(out, seconds / 60 % 60, 2);
    out.push(':');
    push_padded(out, seconds % 60, 2);
}

/// Builds the comment after a move: the analysis text first when there is any, then
/// `[%clk ...]` when `remaining` is known, then `[%emt ...]`, separated by single
/// spaces, as in `+0.35/12 1.2s [%clk 0:04:58.2] [%emt 0:00:01.850]`.
///
/// Surrounding whitespace is trimmed from the analysis, and an analysis that is empty
/// after trimming is left out.
pub fn move_comment(analysis: Option<&str>, remaining: Option<Duration>, emt: Duration) -> String {
    // Room for the analysis and both clocks from the start: a comment for every move.
    let mut comment = String::with_capacity(analysis.map_or(0, str::len) + 40);
    if let Some(analysis) = analysis.map(str::trim).filter(|a| !a.is_empty()) {
        comment.push_str(analysis);
        comment.push(' ');
    }
    if let Some(remaining) = remaining {
        comment.push_str("[%clk ");
        push_clk(&mut comment, remaining);
        comment.push_str("] ");
    }
    comment.push_str("[%emt ");
    push_emt(&mut comment, emt);
    comment.push(']');
    comment
}

/// The moves to mate of a score in EPD's `ce` convention (beyond ±32000: a mate in N
/// moves is `32767 - (2N - 1)`, being mated in N is `-32767 + 2N`), as engines' mates
/// reach the referee (a UCI `score mate N`, a CECP score past its mate range), from the
/// same side: positive when that side mates, negative when it is mated; None for a
/// score that is not a mate.
pub fn mate_moves(ce: i64) -> Option<i64> {
    if ce > 32_000 {
        Some((32_767 - ce + 1) / 2)
    } else if ce < -32_000 {
        Some(-((32_767 + ce) / 2))
    } else {
        None
    }
}

/// A mover's score in EPD's `ce` convention as `[%eval]` writes it, from White's side
/// (`black`: Black moved): pawns with two decimals (`0.35`, `-1.20`), or `#N` when
/// White mates in N moves and `#-N` when Black does.
///
/// ```
/// use argus::core::pgn::eval;
/// assert_eq!(eval(35, false), "0.35");
/// assert_eq!(eval(120, true), "-1.20");
/// assert_eq!(eval(32758, false), "#5");
/// assert_eq!(eval(-32761, false), "#-3");
/// assert_eq!(eval(32762, true), "#-3");
/// ```
pub fn eval(ce: i64, black: bool) -> String {
    let mut text = String::new();
    push_eval(&mut text, ce, black);
    text
}

/// Appends [`eval`]'s text to `out`.
pub fn push_eval(out: &mut String, ce: i64, black: bool) {
    let sign = if black { -1 } else { 1 };
    match mate_moves(ce) {
        Some(n) => {
            out.push('#');
            out.push_str(itoa::Buffer::new().format(sign * n));
        }
        None => push_pawns(out, sign * ce, false),
    }
}

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
