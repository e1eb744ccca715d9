//! EPD file tools for organisers: `argus epd check`, `argus epd normalize` and
//! `argus epd purge`.
//!
//! An event's openings and test positions arrive as EPD files from many
//! programs and hands, and a bad record found mid-match costs a game. These
//! tools let an organiser find and fix such records beforehand:
//!
//! * [`check`] reports every record that is not valid, with its line number:
//!   it does not parse, its position is not a legal chess position, a move in
//!   `sm`, `pm`, `bm`, `am`, `pv` or `sv` is not legal, or an operation of the
//!   spec's opcode list (section 6) has operands of the wrong kind or range.
//! * [`normalize`] is the spec's `pfdn` verb (section 7.1): it rewrites every
//!   valid record in the one canonical form that [`Record`]'s writer produces,
//!   with moves in canonical SAN, so that two files can be compared line by
//!   line.
//! * [`purge`] is the spec's `pfop` verb (section 7.4): it removes one
//!   operation from every record.
//!
//! All three stream: they read one line at a time from any [`BufRead`] and
//! write to any [`Write`], so files of millions of records need no more memory
//! than one line. Lines are split at LF with an optional CR before it, and are
//! handled as bytes, so a line that is not ASCII is reported as an error for
//! that line, never as a failure of the whole run. Blank lines and lines whose
//! first non-blank byte is `#` are not records; they are counted as skipped.

use std::fmt::{self, Write as _};
use std::io::{self, BufRead, BufWriter, Write};
use std::time::Instant;

use shakmaty::fen::Epd;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Move, Position, PositionError};

use super::{EpdError, MAX_RECORD_LEN, Operand, Operation, Record, is_opcode, resolve_move};

/// The longest line, in bytes, that the tools hold in memory. A longer line is
/// never a valid record; it is reported, and it cannot be copied unchanged.
pub const MAX_LINE_LEN: usize = 1 << 20;

/// The most errors that [`normalize`] and [`purge`] keep in their [`Summary`];
/// [`Summary::invalid`] still counts every invalid record.
pub const MAX_KEPT_ERRORS: usize = 10_000;

/// The capacity of the output buffer.
const OUTPUT_BUFFER: usize = 64 * 1024;

/// The longest operand list quoted in an error message, in bytes.
const MAX_QUOTED: usize = 60;

/// One problem found on one line of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// The line number, counting from 1.
    pub line: usize,
    /// What is wrong, in words, such as `invalid position: too many kings`.
    pub error: String,
}

impl fmt::Display for LineError {
    /// Writes `line N: what is wrong`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl std::error::Error for LineError {}

/// What a tool did with its input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The number of lines that are records, valid or not.
    pub records: usize,
    /// The number of records written, rewritten or copied unchanged; blank and
    /// comment lines are not counted. Always 0 for [`check`].
    pub written: usize,
    /// The number of blank and comment lines.
    pub skipped: usize,
    /// The number of records with at least one error, whether or not their
    /// errors are all kept in [`Summary::errors`].
    pub invalid: usize,
    /// The errors, in input order; a record may have several. At most the
    /// limit given to [`check`], or [`MAX_KEPT_ERRORS`], are kept.
    pub errors: Vec<LineError>,
}

impl Summary {
    /// Whether the input had no errors at all.
    pub fn is_clean(&self) -> bool {
        self.invalid == 0 && self.errors.is_empty()
    }

    /// Keeps an error unless `limit` errors are kept already.
    fn report(&mut self, line: usize, error: String, limit: usize) {
        if self.errors.len() < limit {
            self.errors.push(LineError { line, error });
        }
    }
}

/// Checks that every record of `input` is valid, and reports each error with
/// its line number. This is `argus epd check FILE`.
///
/// A record is valid when:
///
/// * it parses as an EPD record ([`Record::from_ascii`]);
/// * its position is a legal chess position: shakmaty accepts it in standard
///   castling mode, so each castling right has its king and rook on their
///   original squares, and an en passant square follows a possible double
///   pawn push (spec 4.3 and 4.4);
/// * each operand of `sm`, `pm`, `bm` and `am` names one legal move, and the
///   operands of `pv` and `sv` are a legal sequence of moves; `sm` and `pm`
///   have exactly one operand, which must be the first move of `sv` and `pv`
///   when those are present and not empty;
/// * the opcodes of the spec's list take the operands it gives them: one
///   non-negative integer for `acd`, `acn`, `acs`, `hmv` and `hmvc`; one
///   positive integer for `dm`, `fmvn`, `rc` and `tcgs`; one integer from
///   -32768 to 32766 for `ce`; one string for `id`; one string or nothing for
///   `c0` to `c9`, `v0` to `v9`, `eco` and `nic`; two clocks for `cc`; a date
///   and a time of day for `ts`; two strings for `tcri` and `tcsi`; pairs of a
///   tag name and a string for `ptp`; one identifier for `refcom` and
///   `refreq`; and nothing for `draw_accept`, `draw_claim`, `draw_offer`,
///   `draw_reject` and `resign`. Other opcodes, such as `noop` or private
///   ones, are not checked (spec 5.3).
///
/// The whole input is read; every error of every record is reported, up to
/// `max_errors` of them, and [`Summary::invalid`] counts the invalid records
/// beyond that limit too.
///
/// # Errors
///
/// Returns an I/O error when reading `input` fails. Invalid records are not
/// errors of the function; they are listed in the [`Summary`].
pub fn check(input: impl BufRead, max_errors: usize) -> io::Result<Summary> {
    let mut lines = Lines::new(input);
    let mut summary = Summary::default();
    let mut problems = Vec::new();
    while let Some(line) = lines.next_line()? {
        if kind(line.bytes) != Kind::Record {
            summary.skipped += 1;
            continue;
        }
        summary.records += 1;
        match parse(&line) {
            Ok(record) => {
                examine(&record, Mode::Check, &mut problems);
            }
            Err(e) => problems.push(e.to_string()),
        }
        if !problems.is_empty() {
            summary.invalid += 1;
            for problem in problems.drain(..) {
                summary.report(line.number, problem, max_errors);
            }
        }
    }
    Ok(summary)
}

/// Writes every valid record of `input` to `output` in canonical form. This is
/// `argus epd normalize` and the spec's `pfdn` verb (section 7.1).
///
/// Each record keeps its place in the file and all of its operations, and is
/// written as [`Record`]'s writer writes it: single spaces between fields,
/// operations and operands, no blanks around the record, and operations in
/// ASCII order of their opcodes. Besides:
///
/// * castling rights whose king or rook is not on its original square are
///   removed, since such castling is no longer possible (spec 4.3);
/// * the en passant square is kept as written, also when no pawn can capture
///   en passant, since the spec gives it after every double pawn push (4.4);
/// * moves are rewritten in canonical SAN, with `+` or `#` where the move
///   checks or mates: `sm` and `pm`, `pv` and `sv` in their order, and `bm`
///   and `am`, which are sets of moves, in ASCII order and without repeats
///   (spec 6.3, 6.4 and 7.1 item 5). The operands of other opcodes keep their
///   order, as the tool cannot know whether an unknown opcode's operands
///   carry meaning in their order.
///
/// A record is valid when [`check`] finds no error in it, except that its
/// castling rights need not be possible. Invalid records are reported with
/// their line numbers and left out, or copied unchanged when `keep_invalid` is
/// set. Comment lines are copied without the blanks around them, and blank
/// lines are dropped. The
/// output of `normalize` is valid by [`check`] (apart from invalid records
/// kept on purpose), and normalizing it again changes nothing.
///
/// Every line written ends with LF. The output is buffered and flushed before
/// the function returns.
///
/// # Errors
///
/// Returns an I/O error when reading `input` or writing `output` fails.
pub fn normalize(
    input: impl BufRead,
    output: impl Write,
    keep_invalid: bool,
) -> io::Result<Summary> {
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER, output);
    let mut lines = Lines::new(input);
    let mut summary = Summary::default();
    let mut problems = Vec::new();
    let mut text = String::new();
    while let Some(line) = lines.next_line()? {
        match kind(line.bytes) {
            Kind::Blank => {
                summary.skipped += 1;
                continue;
            }
            Kind::Comment => {
                summary.skipped += 1;
                if line.is_truncated() {
                    copy(&line, &mut out, &mut summary)?;
                } else {
                    write_line(&mut out, trim_blanks(line.bytes))?;
                }
                continue;
            }
            Kind::Record => summary.records += 1,
        }
        let normalized = match parse(&line) {
            Ok(record) => examine(&record, Mode::Normalize, &mut problems),
            Err(e) => {
                problems.push(e.to_string());
                None
            }
        };
        if let Some(record) = normalized
            && write_record(&record, &mut text, &mut problems)
        {
            write_line(&mut out, text.as_bytes())?;
            summary.written += 1;
            continue;
        }
        summary.invalid += 1;
        for problem in problems.drain(..) {
            summary.report(line.number, problem, MAX_KEPT_ERRORS);
        }
        if keep_invalid && copy(&line, &mut out, &mut summary)? {
            summary.written += 1;
        }
    }
    out.flush()?;
    Ok(summary)
}

/// Removes the operation with `opcode` from every record of `input` and writes
/// the records to `output`. This is `argus epd purge OPCODE` and the spec's
/// `pfop` verb (section 7.4).
///
/// Records that parse are written back canonically, as [`Record`]'s writer
/// writes them, whether or not they held the operation; their positions and
/// moves are not checked. Records that do not parse are reported with their
/// line numbers and copied unchanged, and so are blank and comment lines.
/// Every line written ends with LF. The output is buffered and flushed before
/// the function returns.
///
/// # Errors
///
/// Returns an error of kind [`io::ErrorKind::InvalidInput`], before reading
/// anything, when `opcode` is not a valid opcode (a letter, then up to 14
/// letters, digits or underscores), and an I/O error when reading `input` or
/// writing `output` fails.
pub fn purge(input: impl BufRead, output: impl Write, opcode: &str) -> io::Result<Summary> {
    if !is_opcode(opcode) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{opcode:?} is not an opcode"),
        ));
    }
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER, output);
    let mut lines = Lines::new(input);
    let mut summary = Summary::default();
    let mut problems = Vec::new();
    let mut text = String::new();
    while let Some(line) = lines.next_line()? {
        if kind(line.bytes) != Kind::Record {
            summary.skipped += 1;
            copy(&line, &mut out, &mut summary)?;
            continue;
        }
        summary.records += 1;
        match parse(&line) {
            Ok(mut record) => {
                while record.remove(opcode).is_some() {}
                if write_record(&record, &mut text, &mut problems) {
                    write_line(&mut out, text.as_bytes())?;
                    summary.written += 1;
                    continue;
                }
            }
            Err(e) => problems.push(e.to_string()),
        }
        summary.invalid += 1;
        for problem in problems.drain(..) {
            summary.report(line.number, problem, MAX_KEPT_ERRORS);
        }
        if copy(&line, &mut out, &mut summary)? {
            summary.written += 1;
        }
    }
    out.flush()?;
    Ok(summary)
}

/// Measures the tools on `records` generated records: returns the records per
/// second of [`check`] and of [`normalize`], in that order.
///
/// The records are positions reached by random legal play from the start,
/// with a supplied move, best moves, an evaluation, a node count, a comment
/// and an id in random notations and spacing, generated from a fixed seed
/// and held in memory, so that only the tools are timed. This is for the
/// benchmark; it is meaningful in release builds only.
#[doc(hidden)]
pub fn throughput(records: usize) -> (f64, f64) {
    let mut rng = fastrand::Rng::with_seed(0x00E9_D7A1);
    let mut data = Vec::new();
    for _ in 0..records {
        data.extend_from_slice(random_record(&mut rng, false).as_bytes());
        data.push(b'\n');
    }
    #[allow(clippy::cast_precision_loss)]
    let rate = |start: Instant| records as f64 / start.elapsed().as_secs_f64().max(1e-9);
    let start = Instant::now();
    let checked = check(data.as_slice(), 0);
    let check_rate = rate(start);
    let start = Instant::now();
    let normalized = normalize(data.as_slice(), io::sink(), false);
    let normalize_rate = rate(start);
    match (checked, normalized) {
        (Ok(_), Ok(_)) => (check_rate, normalize_rate),
        _ => (0.0, 0.0),
    }
}

/// What [`examine`] is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Only find the problems.
    Check,
    /// Find the problems, repair the castling rights and build the normalized
    /// record.
    Normalize,
}

/// How the operands of a move opcode are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moves {
    /// Exactly one move (`sm`, `pm`).
    One,
    /// A set of moves from the position, in ASCII order (`am`, `bm`).
    Set,
    /// A sequence of moves played one after the other (`pv`, `sv`).
    Sequence,
}

/// The first move of a move operation, and its text as written, for checking
/// that `sm` and `pm` agree with `sv` and `pv`.
type FirstMove = Option<(Move, String)>;

/// Checks a parsed record, adding a sentence to `problems` for each problem
/// found, and returns the normalized record when `mode` asks for it and there
/// are no problems.
fn examine(record: &Record, mode: Mode, problems: &mut Vec<String>) -> Option<Record> {
    let normalize = mode == Mode::Normalize;
    let position = match Chess::from_setup(record.setup(), CastlingMode::Standard) {
        Ok(pos) => Some(pos),
        Err(e) => {
            let repaired = if normalize {
                e.ignore_invalid_castling_rights()
            } else {
                Err(e)
            };
            match repaired {
                Ok(pos) => Some(pos),
                Err(e) => {
                    problems.push(position_error(&e));
                    None
                }
            }
        }
    };
    let mut operations = Vec::with_capacity(if normalize {
        record.operations.len()
    } else {
        0
    });
    // The first moves of sm, sv, pm and pv.
    let mut firsts: [FirstMove; 4] = Default::default();
    for op in &record.operations {
        let (kind, slot) = match op.opcode.as_str() {
            "sm" => (Moves::One, Some(0)),
            "sv" => (Moves::Sequence, Some(1)),
            "pm" => (Moves::One, Some(2)),
            "pv" => (Moves::Sequence, Some(3)),
            "am" | "bm" => (Moves::Set, None),
            _ => {
                if let Some(expected) = shape_problem(op) {
                    problems.push(format!(
                        "{} takes {expected}, found {}",
                        op.opcode,
                        quote(&op.operands)
                    ));
                }
                if normalize {
                    operations.push(op.clone());
                }
                continue;
            }
        };
        if kind == Moves::One && op.operands.len() != 1 {
            problems.push(format!(
                "{} takes one move, found {}",
                op.opcode,
                quote(&op.operands)
            ));
            continue;
        }
        let Some(pos) = &position else {
            continue;
        };
        if let Some((operands, first)) = read_moves(op, pos, kind, normalize, problems) {
            if let (Some(slot), Some(first)) = (slot, first)
                && let Some(entry) = firsts.get_mut(slot)
            {
                *entry = Some(first);
            }
            if normalize {
                operations.push(Operation::new(op.opcode.clone(), operands));
            }
        }
    }
    let [sm, sv, pm, pv] = firsts;
    for (single, sequence, names) in [(sm, sv, ("sm", "sv")), (pm, pv, ("pm", "pv"))] {
        if let (Some((a, a_text)), Some((b, b_text))) = (single, sequence)
            && a != b
        {
            problems.push(format!(
                "{} {a_text} is not the first move of {}, {b_text}",
                names.0, names.1
            ));
        }
    }
    match position {
        Some(pos) if normalize && problems.is_empty() => Some(Record {
            position: Epd::from_position(&pos, EnPassantMode::Always),
            operations,
        }),
        _ => None,
    }
}

/// Reads the operands of a move operation in `pos`, adding a sentence to
/// `problems` for each operand that is not a legal move. Returns the operands
/// in canonical SAN (when `normalize` is set) and the first move with its
/// text as written, or `None` when there was a problem.
fn read_moves(
    op: &Operation,
    pos: &Chess,
    kind: Moves,
    normalize: bool,
    problems: &mut Vec<String>,
) -> Option<(Vec<Operand>, FirstMove)> {
    let mut ok = true;
    let mut sans: Vec<String> = Vec::with_capacity(if normalize { op.operands.len() } else { 0 });
    let mut first: FirstMove = None;
    let mut current = pos.clone();
    for (index, operand) in op.operands.iter().enumerate() {
        // Where the problem is, named only when there is one.
        let at = || {
            if kind == Moves::Sequence {
                format!("{} move {}", op.opcode, index + 1)
            } else {
                op.opcode.to_string()
            }
        };
        let Some(text) = operand.as_move_text() else {
            problems.push(format!("{}: {operand} is not a move", at()));
            ok = false;
            if kind == Moves::Sequence {
                break;
            }
            continue;
        };
        let m = match resolve_move(&current, text) {
            Ok(m) => m,
            Err(e) => {
                problems.push(format!("{}: {e}", at()));
                ok = false;
                if kind == Moves::Sequence {
                    break;
                }
                continue;
            }
        };
        if first.is_none() {
            first = Some((m, text.to_owned()));
        }
        match (kind, normalize) {
            (Moves::Sequence, true) => {
                sans.push(super::play_san(&mut current, m).to_string());
            }
            (Moves::Sequence, false) => current.play_unchecked(m),
            (_, true) => sans.push(SanPlus::from_move(current.clone(), m).to_string()),
            (_, false) => {}
        }
    }
    if !ok {
        return None;
    }
    if kind == Moves::Set {
        sans.sort_unstable();
        sans.dedup();
    }
    let operands = sans
        .into_iter()
        .map(|san| Operand::unquoted(&san).unwrap_or_else(|| Operand::Move(san.into())))
        .collect();
    Some((operands, first))
}

/// Returns what an opcode of the spec's list takes when its operands do not
/// fit, or `None` when they fit or the opcode is not checked.
fn shape_problem(op: &Operation) -> Option<&'static str> {
    let operands = op.operands.as_slice();
    let integer =
        |low: i64, high: i64| matches!(operands, [Operand::Integer(i)] if (low..=high).contains(i));
    let (fits, expected) = match op.opcode.as_str() {
        "acd" | "acn" | "acs" | "hmv" | "hmvc" => {
            (integer(0, i64::MAX), "one non-negative integer")
        }
        "dm" | "fmvn" | "rc" | "tcgs" => (integer(1, i64::MAX), "one positive integer"),
        "ce" => (integer(-32768, 32766), "one integer from -32768 to 32766"),
        "id" => (matches!(operands, [Operand::Str(_)]), "one string"),
        "eco" | "nic" => (
            matches!(operands, [] | [Operand::Str(_)]),
            "one string or nothing",
        ),
        "cc" => (
            matches!(operands, [Operand::Clock(_), Operand::Clock(_)]),
            "two clocks",
        ),
        "ts" => (
            matches!(operands, [Operand::Date(_), Operand::Time(_)]),
            "a date and a time of day",
        ),
        "tcri" | "tcsi" => (
            matches!(operands, [Operand::Str(_), Operand::Str(_)]),
            "two strings",
        ),
        "ptp" => (
            operands.len().is_multiple_of(2)
                && operands.chunks(2).all(
                    |pair| matches!(pair, [name, Operand::Str(_)] if name.as_move_text().is_some()),
                ),
            "pairs of a tag name and a string",
        ),
        "refcom" | "refreq" => (
            matches!(operands, [Operand::Identifier(_)]),
            "one identifier",
        ),
        "draw_accept" | "draw_claim" | "draw_offer" | "draw_reject" | "resign" => {
            (operands.is_empty(), "no operands")
        }
        name if is_comment_opcode(name) => (
            matches!(operands, [] | [Operand::Str(_)]),
            "one string or nothing",
        ),
        _ => (true, ""),
    };
    (!fits).then_some(expected)
}

/// Whether `opcode` is one of the comments `c0` to `c9` or the variation
/// names `v0` to `v9`.
fn is_comment_opcode(opcode: &str) -> bool {
    matches!(opcode.as_bytes(), [b'c' | b'v', b'0'..=b'9'])
}

/// Describes operands for an error message: as written, shortened when long,
/// or `nothing`.
fn quote(operands: &[Operand]) -> String {
    if operands.is_empty() {
        return "nothing".to_owned();
    }
    let mut text = String::new();
    for (index, operand) in operands.iter().enumerate() {
        if index > 0 {
            text.push(' ');
        }
        let _ = write!(text, "{operand}");
        if text.len() > MAX_QUOTED {
            break;
        }
    }
    if text.len() > MAX_QUOTED {
        let mut end = MAX_QUOTED - 3;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

/// Words for a position that shakmaty rejects, such as `invalid position: too
/// many kings`.
fn position_error(e: &PositionError<Chess>) -> String {
    let text = e.to_string();
    let reasons = text.strip_prefix("illegal position: ").unwrap_or(&text);
    format!("invalid position: {reasons}")
}

/// Writes `record` canonically into `text` and returns whether it fits in
/// [`MAX_RECORD_LEN`] bytes; when it does not, adds a problem.
fn write_record(record: &Record, text: &mut String, problems: &mut Vec<String>) -> bool {
    text.clear();
    let _ = write!(text, "{record}");
    if text.len() > MAX_RECORD_LEN {
        problems.push(format!(
            "the rewritten record would be {} bytes long, more than {MAX_RECORD_LEN}",
            text.len()
        ));
        return false;
    }
    true
}

/// Removes blanks (space and TAB) and CRs from both ends of a line.
fn trim_blanks(mut bytes: &[u8]) -> &[u8] {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    while let [first, rest @ ..] = bytes
        && blank(first)
    {
        bytes = rest;
    }
    while let [rest @ .., last] = bytes
        && blank(last)
    {
        bytes = rest;
    }
    bytes
}

/// Writes a line and its LF.
fn write_line(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(bytes)?;
    out.write_all(b"\n")
}

/// Copies a line unchanged and returns `true`, or reports it and returns
/// `false` when it was too long to be held in memory.
fn copy(line: &Line<'_>, out: &mut impl Write, summary: &mut Summary) -> io::Result<bool> {
    if line.is_truncated() {
        summary.report(
            line.number,
            format!(
                "line is {} bytes long, more than {MAX_LINE_LEN}, and is left out",
                line.len
            ),
            MAX_KEPT_ERRORS,
        );
        return Ok(false);
    }
    write_line(out, line.bytes)?;
    Ok(true)
}

/// Reads a record from a line, reporting an overlong line with its full
/// length.
fn parse(line: &Line<'_>) -> Result<Record, EpdError> {
    if line.len > MAX_RECORD_LEN {
        return Err(EpdError::TooLong { len: line.len });
    }
    Record::from_ascii(line.bytes)
}

/// What a line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Nothing but blanks.
    Blank,
    /// A comment: the first non-blank byte is `#`.
    Comment,
    /// Anything else, which should be a record.
    Record,
}

/// Tells blank lines and comments from records.
fn kind(bytes: &[u8]) -> Kind {
    match bytes.iter().find(|&&b| b != b' ' && b != b'\t') {
        None => Kind::Blank,
        Some(b'#') => Kind::Comment,
        Some(_) => Kind::Record,
    }
}

/// One line of input, without its terminator.
struct Line<'a> {
    /// The line number, counting from 1.
    number: usize,
    /// The bytes of the line, at most [`MAX_LINE_LEN`] of them, without the LF
    /// and a CR before it.
    bytes: &'a [u8],
    /// The full length of the line without its terminator.
    len: usize,
}

impl Line<'_> {
    /// Whether the line is longer than the bytes held.
    fn is_truncated(&self) -> bool {
        self.len > self.bytes.len()
    }
}

/// Splits input into lines at LF, as [`BufRead::split`] does, but holds at
/// most [`MAX_LINE_LEN`] bytes of a line, so that input without line breaks
/// cannot exhaust memory.
struct Lines<R> {
    /// The input.
    input: R,
    /// The bytes of the current line.
    buf: Vec<u8>,
    /// The number of the current line.
    number: usize,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Lines<R> {
        Lines {
            input,
            buf: Vec::with_capacity(256),
            number: 0,
        }
    }

    /// Reads the next line, or returns `None` at the end of the input. A last
    /// line without LF is a line too.
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let mut len = 0usize;
        let mut last = None;
        let mut any = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (part, used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    let (part, _) = chunk.split_at(end);
                    (part, end + 1, true)
                }
                None => (chunk, chunk.len(), false),
            };
            if let Some(&b) = part.last() {
                last = Some(b);
            }
            let room = MAX_LINE_LEN.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(part.get(..room).unwrap_or(part));
            len += part.len();
            self.input.consume(used);
            if done {
                break;
            }
        }
        if last == Some(b'\r') {
            len -= 1;
            self.buf.truncate(len);
        }
        self.number += 1;
        Ok(Some(Line {
            number: self.number,
            bytes: &self.buf,
            len,
        }))
    }
}

/// Makes one random valid record, for the benchmark and the property tests:
/// a position reached by up to 60 random legal moves from the start, and a
/// random choice of `sm` (a legal move in coordinates or SAN without suffix),
/// `bm` (one to three legal moves), `pv`, `ce`, `acn`, `c0` and `id`, in random
/// order and with random blanks between the parts.
///
/// When `sloppy` is set, some records claim all castling rights, which
/// [`check`] rejects and [`normalize`] repairs.
fn random_record(rng: &mut fastrand::Rng, sloppy: bool) -> String {
    let mut pos = Chess::default();
    for _ in 0..rng.usize(0..=60) {
        let moves = pos.legal_moves();
        let Some(&m) = moves.get(rng.usize(0..moves.len().max(1))) else {
            break;
        };
        pos.play_unchecked(m);
    }
    let epd = Epd::from_position(&pos, EnPassantMode::Always).to_string();
    let mut fields: Vec<&str> = epd.split(' ').collect();
    if sloppy
        && rng.u8(0..4) == 0
        && let Some(castling) = fields.get_mut(2)
    {
        *castling = "KQkq";
    }
    let notation = |rng: &mut fastrand::Rng, pos: &Chess, m: Move| {
        if rng.bool() {
            UciMove::from_standard(m).to_string()
        } else {
            San::from_move(pos, m).to_string()
        }
    };
    let mut operations = Vec::new();
    let moves = pos.legal_moves();
    if !moves.is_empty() {
        if rng.bool() {
            let m = moves[rng.usize(0..moves.len())];
            operations.push(format!("sm {};", notation(rng, &pos, m)));
        }
        if rng.bool() {
            let mut text = String::from("bm");
            for _ in 0..rng.usize(1..=3) {
                let m = moves[rng.usize(0..moves.len())];
                text.push(' ');
                text.push_str(&notation(rng, &pos, m));
            }
            text.push(';');
            operations.push(text);
        }
        if rng.u8(0..4) == 0 {
            let mut text = String::from("pv");
            let mut line = pos.clone();
            for _ in 0..rng.usize(1..=6) {
                let line_moves = line.legal_moves();
                let Some(&m) = line_moves.get(rng.usize(0..line_moves.len().max(1))) else {
                    break;
                };
                text.push(' ');
                text.push_str(&notation(rng, &line, m));
                line.play_unchecked(m);
            }
            text.push(';');
            operations.push(text);
        }
    }
    if rng.bool() {
        operations.push(format!("ce {};", rng.i32(-32768..=32766)));
    }
    if rng.bool() {
        operations.push(format!("acn {};", rng.u64(0..10_000_000_000)));
    }
    if rng.bool() {
        let comment: String = (0..rng.usize(0..30))
            .map(|_| match rng.char(' '..='~') {
                '"' => '\'',
                c => c,
            })
            .collect();
        operations.push(format!("c0 \"{comment}\";"));
    }
    if rng.bool() {
        operations.push(format!("id \"pos.{}\";", rng.u32(..)));
    }
    rng.shuffle(&mut operations);
    let blanks = |rng: &mut fastrand::Rng| -> &'static str {
        ["", " ", "\t", "  ", " \t "][rng.usize(0..5)]
    };
    let mut text = String::from(blanks(rng));
    let mut first = true;
    for part in fields.iter().map(|f| f.to_string()).chain(operations) {
        if !first {
            text.push(' ');
            text.push_str(blanks(rng));
        }
        first = false;
        text.push_str(&part);
    }
    text.push_str(blanks(rng));
    text
}

#[cfg(test)]
mod tests;
