//! EPD records: reading, writing and the operand basetypes.
//!
//! Everything the referee says and hears on a line is one EPD record (spec
//! sections 4 to 6): the four data fields of a position, then operations such as
//! `refcom respond;` or `sm e4;`. This module is the only place that turns bytes
//! into [`Record`]s and back, so that every part of argus (the referee core, the
//! clients, the journal and its replay) reads and writes exactly the dialect that
//! the protocol profile fixes:
//!
//! * A record is at most [`MAX_RECORD_LEN`] bytes of printable ASCII and TAB.
//! * Blanks (space and TAB) around the record are trimmed, and runs of blanks
//!   are accepted wherever the spec asks for a single space.
//! * Every operation ends with `;`, every opcode appears at most once, and every
//!   unquoted operand must fit one of the basetypes of spec 5.2 (see
//!   [`Operand`]).
//! * Records are written canonically: single spaces, operations in ASCII order
//!   of their opcodes, floats with a radix point, strings in quotes.
//!
//! Reading is strict about structure but lenient about spelling where the spec
//! allows it, and it never panics: any byte string yields a [`Record`] or an
//! [`EpdError`]. The four data fields are read here rather than by shakmaty's
//! FEN reader, which accepts more than EPD (Crazyhouse pockets, `_` separators)
//! and is slower; the tests check that both agree on standard EPD. Moves inside operands are kept as text; [`resolve_move`] turns
//! them into legal moves of a position, accepting the near-SAN dialects that
//! clients write.

mod moves;
mod operand;
pub mod seal;
pub mod tools;

use std::fmt;

use compact_str::CompactString;
use smallvec::SmallVec;
use std::num::NonZeroU32;
use std::str::FromStr;

use shakmaty::fen::{Epd, ParseFenError};
use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, File, Setup, Square};

pub use moves::{MoveError, is_move_syntax, play_san, resolve_move, san_text};
pub use operand::{Clock, Date, MAX_IDENTIFIER_LEN, MAX_STRING_LEN, Operand, TimeOfDay};

use operand::{ClassifyError, classify};

/// The longest record, in bytes, not counting its line terminator.
pub const MAX_RECORD_LEN: usize = 4095;

/// The longest opcode, in bytes (spec 5.1).
pub const MAX_OPCODE_LEN: usize = 15;

/// Why a line is not a well-formed EPD record.
///
/// Offsets count bytes from the start of the line as it was handed to
/// [`Record::from_ascii`], before blanks were trimmed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EpdError {
    /// The line is empty or holds only blanks.
    #[error("empty record")]
    Empty,
    /// The line is longer than [`MAX_RECORD_LEN`] bytes.
    #[error("record is {len} bytes long, more than {max}", max = MAX_RECORD_LEN)]
    TooLong {
        /// The length of the line without its terminator.
        len: usize,
    },
    /// The line holds a byte that is not printable ASCII (0x20 to 0x7e) or TAB,
    /// or a TAB inside a string.
    #[error("byte 0x{byte:02x} at offset {offset} is not allowed")]
    BadByte {
        /// Where the byte is.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// The line ends before the four data fields are complete.
    #[error("record has {found} of the 4 data fields")]
    MissingFields {
        /// How many data fields there are.
        found: usize,
    },
    /// The four data fields do not describe a position.
    #[error("invalid position: {0}")]
    Position(ParseFenError),
    /// An operation does not start with a valid opcode: a letter, then up to 14
    /// letters, digits or underscores.
    #[error("invalid opcode at offset {offset}")]
    BadOpcode {
        /// Where the opcode starts.
        offset: usize,
    },
    /// The line ends inside an operation, before its `;`.
    #[error("operation {opcode} is not closed by ';'")]
    Unterminated {
        /// The opcode of the open operation.
        opcode: String,
    },
    /// A string operand has no closing quote.
    #[error("string at offset {offset} is not closed")]
    UnterminatedString {
        /// Where the opening quote is.
        offset: usize,
    },
    /// A string operand holds more than [`MAX_STRING_LEN`] bytes.
    #[error("string at offset {offset} holds {len} bytes, more than {max}", max = MAX_STRING_LEN)]
    StringTooLong {
        /// Where the opening quote is.
        offset: usize,
        /// The number of bytes between the quotes.
        len: usize,
    },
    /// An operand fits none of the basetypes.
    #[error("operand {token:?} of {opcode} fits no basetype")]
    BadOperand {
        /// The opcode of the operation.
        opcode: String,
        /// The operand as written.
        token: String,
    },
    /// An opcode appears more than once in the record.
    #[error("opcode {opcode} appears more than once")]
    DuplicateOpcode {
        /// The repeated opcode.
        opcode: String,
    },
    /// An operand has the shape of a clock, time, date, integer or float, but
    /// its value is out of range (a month 13, an integer beyond `i64`).
    #[error("operand {token:?} of {opcode} is out of range")]
    OutOfRange {
        /// The opcode of the operation.
        opcode: String,
        /// The operand as written.
        token: String,
    },
}

/// The operands of an operation. Most operations have none, one or two (`cc`), which
/// are held inline: reading or making a record allocates nothing for them.
pub type Operands = SmallVec<[Operand; 2]>;

/// One EPD operation: an opcode and its operands, in the order written.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// The opcode, such as `refcom` or `sm`.
    pub opcode: CompactString,
    /// The operands, in order.
    pub operands: Operands,
}

impl Operation {
    /// Makes an operation.
    pub fn new(
        opcode: impl Into<CompactString>,
        operands: impl IntoIterator<Item = Operand>,
    ) -> Operation {
        Operation {
            opcode: opcode.into(),
            operands: operands.into_iter().collect(),
        }
    }
}

impl fmt::Display for Operation {
    /// Writes `opcode;` or `opcode a b;`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode)?;
        for operand in &self.operands {
            write!(f, " {operand}")?;
        }
        f.write_str(";")
    }
}

/// One EPD record: a position and its operations.
///
/// Two records are equal when they have the same position and the same
/// operations regardless of their order, since the order of operations carries
/// no meaning (spec 5.1). Records that hold one opcode twice (the reader never
/// makes them) compare those operations in their stored order.
#[derive(Clone, Debug)]
pub struct Record {
    /// The four data fields.
    pub position: Epd,
    /// The operations, in the order read, or in opcode order where [`Record::set`]
    /// added them. [`Record::set`] keeps each opcode unique; pushing directly onto
    /// this vector does not.
    pub operations: Vec<Operation>,
}

impl Record {
    /// Makes a record of `position` without operations.
    pub fn new(position: Epd) -> Record {
        Record {
            position,
            // A record built to be sent carries a handful of operations: one
            // allocation holds them, not one for each time the vector would grow.
            operations: Vec::with_capacity(8),
        }
    }

    /// Reads one record from a line without its terminator. A single trailing
    /// LF, CR or CR LF is tolerated and ignored.
    ///
    /// Blanks (space and TAB) around the record and runs of blanks between its
    /// parts are accepted. The castling field may also use the file letters of
    /// X-FEN and Shredder-FEN (`Hh`), which is how [`Record`]'s writer spells
    /// castling rights whose rook is not in the corner; the en passant field
    /// must be `-` or a square on the third or sixth rank.
    ///
    /// # Errors
    ///
    /// Returns an [`EpdError`] naming the first problem found when the line is
    /// not a well-formed record: too long, a byte outside printable ASCII and
    /// TAB, empty, fewer than four data fields, an invalid position, an invalid
    /// opcode, an operation without `;`, an unterminated or too long string, an
    /// operand that fits no basetype or is out of range, or a repeated opcode.
    pub fn from_ascii(line: &[u8]) -> Result<Record, EpdError> {
        let line = match line {
            [rest @ .., b'\r', b'\n'] => rest,
            [rest @ .., b'\n' | b'\r'] => rest,
            _ => line,
        };
        if line.len() > MAX_RECORD_LEN {
            return Err(EpdError::TooLong { len: line.len() });
        }
        // Checking every byte without stopping early lets the compiler use wide
        // instructions; the position is looked for only when the check fails.
        let all_allowed = line.iter().fold(true, |ok, &b| ok & is_allowed_byte(b));
        let bad_byte = |offset: usize| EpdError::BadByte {
            offset,
            byte: line.get(offset).copied().unwrap_or_default(),
        };
        if !all_allowed {
            let offset = line.iter().position(|&b| !is_allowed_byte(b));
            return Err(bad_byte(offset.unwrap_or_default()));
        }
        // ASCII is UTF-8, so this conversion always succeeds; reading from a
        // `&str` lets every token become a `String` without checking it again.
        match std::str::from_utf8(line) {
            Ok(line) => Reader::new(line).record(),
            Err(e) => Err(bad_byte(e.valid_up_to())),
        }
    }

    /// The canonical text of the record ([`fmt::Display`]), written into a string
    /// made large enough for a usual record at once rather than grown as it is
    /// written.
    pub fn to_line(&self) -> String {
        let mut line = String::with_capacity(256);
        self.append_to(&mut line);
        line
    }

    /// Appends the record's text, as [`fmt::Display`] writes it, to `out`: the
    /// position, operation names and the operands that are text copied as they are,
    /// not a character at a time through a formatter (a record is written for every
    /// reply and every respond).
    pub fn append_to(&self, out: &mut String) {
        self.position.append_to_string(out);
        let mut append = |op: &Operation| {
            out.push(' ');
            out.push_str(&op.opcode);
            for operand in &op.operands {
                out.push(' ');
                operand.append_to(out);
            }
            out.push(';');
        };
        let ops = &self.operations;
        if ops.is_sorted_by(|a, b| a.opcode <= b.opcode) {
            ops.iter().for_each(&mut append);
        } else if ops.len() <= 16 {
            // The order as `sorted` gives it (a stable sort by opcode), kept as indices
            // on the stack: a record sent every ply needs no vector for it.
            let mut order = [0u8; 16];
            for (i, slot) in order.iter_mut().enumerate().take(ops.len()) {
                *slot = i as u8;
            }
            let order = &mut order[..ops.len()];
            order.sort_by(|&a, &b| ops[usize::from(a)].opcode.cmp(&ops[usize::from(b)].opcode));
            order.iter().for_each(|&i| append(&ops[usize::from(i)]));
        } else {
            sorted(ops).into_iter().for_each(append);
        }
    }

    /// Whether [`Record::from_ascii`] reads the record's line back as this record, in
    /// the same order, told without reading it: opcodes that read as opcodes, kept in
    /// opcode order and each once, and operands that read back ([`Operand::reads_back`]).
    /// The four data fields are not looked at: those shakmaty writes of a position read
    /// back (property tests). A record that says no may still read back.
    pub fn reads_back(&self) -> bool {
        self.operations.is_sorted_by(|a, b| a.opcode < b.opcode)
            && self
                .operations
                .iter()
                .all(|op| is_opcode(&op.opcode) && op.operands.iter().all(Operand::reads_back))
    }

    /// Whether `line` reads as this record, operation for operation in the same order
    /// (records compare regardless of order): what a record handed over with its line
    /// inside one process must be, which debug builds check where it is taken.
    pub fn is_read_from(&self, line: &[u8]) -> bool {
        Record::from_ascii(line)
            .is_ok_and(|r| r.position == self.position && r.operations == self.operations)
    }

    /// Returns the operation with `opcode`, if any.
    pub fn operation(&self, opcode: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.opcode == opcode)
    }

    /// Returns the operands of the operation with `opcode`, if it is present.
    pub fn operands(&self, opcode: &str) -> Option<&[Operand]> {
        self.operation(opcode).map(|op| op.operands.as_slice())
    }

    /// Whether the record has an operation with `opcode`.
    pub fn has(&self, opcode: &str) -> bool {
        self.operation(opcode).is_some()
    }

    /// Sets the operands of the operation with `opcode`, adding the operation
    /// when it is not there yet: before the first operation whose opcode sorts
    /// after it, so that a record made by `set` alone is in the order it is written
    /// in, and [`Record::append_to`] writes it without sorting (a record is made
    /// for every reply and every respond).
    ///
    /// The opcode is not checked; [`is_opcode`] tells whether it reads back.
    pub fn set(&mut self, opcode: &str, operands: impl IntoIterator<Item = Operand>) {
        let mut at = None;
        for (i, op) in self.operations.iter_mut().enumerate() {
            match op.opcode.as_str().cmp(opcode) {
                std::cmp::Ordering::Equal => {
                    op.operands = operands.into_iter().collect();
                    return;
                }
                std::cmp::Ordering::Greater if at.is_none() => at = Some(i),
                _ => {}
            }
        }
        let at = at.unwrap_or(self.operations.len());
        self.operations.insert(at, Operation::new(opcode, operands));
    }

    /// Removes the operation with `opcode` and returns it, keeping the order of
    /// the others.
    pub fn remove(&mut self, opcode: &str) -> Option<Operation> {
        let index = self.operations.iter().position(|op| op.opcode == opcode)?;
        Some(self.operations.remove(index))
    }

    /// Returns the referee command: the operand of `refcom` when it is a single
    /// identifier.
    pub fn refcom(&self) -> Option<&str> {
        self.single_identifier("refcom")
    }

    /// Returns the referee request: the operand of `refreq` when it is a single
    /// identifier.
    pub fn refreq(&self) -> Option<&str> {
        self.single_identifier("refreq")
    }

    fn single_identifier(&self, opcode: &str) -> Option<&str> {
        match self.operands(opcode)? {
            [operand] => operand.as_identifier(),
            _ => None,
        }
    }

    /// Returns the position as a [`Setup`], with its move counters.
    ///
    /// The halfmove clock comes from the first of `hmvc`, `hmv` and `hmvn` that
    /// holds a single integer from 0 to `u32::MAX`, and is 0 without one. The
    /// fullmove number comes from `fmvn` when it holds a single integer from 1 to
    /// `u32::MAX`, and is 1 without one.
    pub fn setup(&self) -> Setup {
        let mut setup = self.position.clone().into_setup();
        if let Some(halfmoves) = ["hmvc", "hmv", "hmvn"]
            .iter()
            .find_map(|opcode| self.single_u32(opcode))
        {
            setup.halfmoves = halfmoves;
        }
        if let Some(fullmoves) = self.single_u32("fmvn").and_then(NonZeroU32::new) {
            setup.fullmoves = fullmoves;
        }
        setup
    }

    fn single_u32(&self, opcode: &str) -> Option<u32> {
        match self.operands(opcode)? {
            [operand] => u32::try_from(operand.as_integer()?).ok(),
            _ => None,
        }
    }
}

impl PartialEq for Record {
    fn eq(&self, other: &Record) -> bool {
        self.position == other.position
            && self.operations.len() == other.operations.len()
            && (self.operations == other.operations
                || sorted(&self.operations) == sorted(&other.operations))
    }
}

/// The operations sorted by opcode in byte order, keeping the stored order of
/// operations with the same opcode.
fn sorted(operations: &[Operation]) -> Vec<&Operation> {
    let mut sorted: Vec<&Operation> = operations.iter().collect();
    sorted.sort_by(|a, b| a.opcode.cmp(&b.opcode));
    sorted
}

impl FromStr for Record {
    type Err = EpdError;

    /// Reads a record like [`Record::from_ascii`].
    fn from_str(s: &str) -> Result<Record, EpdError> {
        Record::from_ascii(s.as_bytes())
    }
}

impl fmt::Display for Record {
    /// Writes the canonical record: the four data fields, then each operation
    /// in ASCII order of its opcode, all separated by single spaces and without
    /// a line terminator.
    ///
    /// What the reader produced reads back as an equal record, provided the
    /// text stays within [`MAX_RECORD_LEN`] bytes. Opcodes and operands built
    /// by hand read back when [`is_opcode`] accepts the opcodes and the
    /// operands come from [`Operand::unquoted`], [`Operand::string`],
    /// [`Operand::float`] or in-range dates, times and clocks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.position.fmt(f)?;
        if self.operations.is_sorted_by(|a, b| a.opcode <= b.opcode) {
            for op in &self.operations {
                write!(f, " {op}")?;
            }
        } else {
            for op in sorted(&self.operations) {
                write!(f, " {op}")?;
            }
        }
        Ok(())
    }
}

/// Whether `text` is a valid opcode: a letter, then up to 14 letters, digits or
/// underscores.
pub fn is_opcode(text: &str) -> bool {
    match text.as_bytes() {
        [first, rest @ ..] => {
            first.is_ascii_alphabetic()
                && text.len() <= MAX_OPCODE_LEN
                && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        [] => false,
    }
}

/// Whether a record may hold the byte: printable ASCII or TAB.
fn is_allowed_byte(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) || b == b'\t'
}

/// A cursor over a line that has passed the length and byte checks.
///
/// After those checks the line is ASCII, so every byte offset is a character
/// boundary, and the only bytes at or below 0x20 are the blanks, space and TAB:
/// a single comparison tells a blank from any other byte.
struct Reader<'a> {
    /// The whole line, for offsets.
    line: &'a str,
    /// The part not read yet.
    rest: &'a str,
}

impl<'a> Reader<'a> {
    fn new(line: &'a str) -> Reader<'a> {
        Reader { line, rest: line }
    }

    /// The offset of the cursor in the line.
    fn offset(&self) -> usize {
        self.line.len() - self.rest.len()
    }

    /// Moves the cursor `n` bytes on and returns the bytes passed.
    fn advance(&mut self, n: usize) -> &'a str {
        let (passed, rest) = self.rest.split_at_checked(n).unwrap_or((self.rest, ""));
        self.rest = rest;
        passed
    }

    fn skip_blanks(&mut self) {
        let n = self.rest.bytes().take_while(|&b| b <= b' ').count();
        self.advance(n);
    }

    /// Takes the bytes up to the next blank, or also up to the next `;` when
    /// `stop_at_semicolon` is set.
    fn token(&mut self, stop_at_semicolon: bool) -> &'a str {
        let n = self
            .rest
            .bytes()
            .take_while(|&b| b > b' ' && !(stop_at_semicolon && b == b';'))
            .count();
        self.advance(n)
    }

    fn record(mut self) -> Result<Record, EpdError> {
        self.skip_blanks();
        if self.rest.is_empty() {
            return Err(EpdError::Empty);
        }
        let mut fields: [&[u8]; 4] = [&[]; 4];
        for (found, field) in fields.iter_mut().enumerate() {
            self.skip_blanks();
            if self.rest.is_empty() {
                return Err(EpdError::MissingFields { found });
            }
            *field = self.token(false).as_bytes();
        }
        let position = parse_position(&fields)?;

        self.skip_blanks();
        // Referee records carry a handful of operations; one allocation holds
        // them, and records without operations need none.
        let mut operations: Vec<Operation> = if self.rest.is_empty() {
            Vec::new()
        } else {
            Vec::with_capacity(8)
        };
        while !self.rest.is_empty() {
            let offset = self.offset();
            let opcode = self.token(true);
            if !is_opcode(opcode) {
                return Err(EpdError::BadOpcode { offset });
            }
            if operations.iter().any(|op| op.opcode == opcode) {
                return Err(EpdError::DuplicateOpcode {
                    opcode: opcode.to_owned(),
                });
            }
            let operands = self.operands(opcode)?;
            operations.push(Operation {
                opcode: opcode.into(),
                operands,
            });
            self.skip_blanks();
        }
        Ok(Record {
            position,
            operations,
        })
    }

    /// Reads the operands of an operation and its closing `;`.
    fn operands(&mut self, opcode: &str) -> Result<Operands, EpdError> {
        let mut operands = Operands::new();
        loop {
            self.skip_blanks();
            match self.rest.as_bytes().first() {
                None => {
                    return Err(EpdError::Unterminated {
                        opcode: opcode.to_owned(),
                    });
                }
                Some(b';') => {
                    self.advance(1);
                    return Ok(operands);
                }
                Some(b'"') => operands.push(self.string(opcode)?),
                Some(_) => {
                    let token = self.token(true);
                    match classify(token) {
                        Ok(operand) => operands.push(operand),
                        Err(ClassifyError::NoFit) => {
                            return Err(EpdError::BadOperand {
                                opcode: opcode.to_owned(),
                                token: token.to_owned(),
                            });
                        }
                        Err(ClassifyError::OutOfRange) => {
                            return Err(EpdError::OutOfRange {
                                opcode: opcode.to_owned(),
                                token: token.to_owned(),
                            });
                        }
                    }
                }
            }
        }
    }

    /// Reads a string operand; the cursor is on its opening quote.
    fn string(&mut self, opcode: &str) -> Result<Operand, EpdError> {
        let offset = self.offset();
        let quoted = self.rest;
        self.advance(1);
        let Some(len) = self.rest.bytes().position(|b| b == b'"') else {
            return Err(EpdError::UnterminatedString { offset });
        };
        if len > MAX_STRING_LEN {
            return Err(EpdError::StringTooLong { offset, len });
        }
        // A TAB is a blank on the line (profile section 1); inside a string it reads
        // as a space, so that string data stays printable ASCII.
        let data = self.advance(len);
        let data = if data.contains('\t') {
            CompactString::from(data.replace('\t', " "))
        } else {
            CompactString::from(data)
        };
        // Step over the closing quote.
        self.advance(1);
        match self.rest.as_bytes().first() {
            None | Some(b' ' | b'\t' | b';') => Ok(Operand::Str(data)),
            Some(_) => {
                // Something is glued to the closing quote, as in `"a"b`; report
                // the whole run as one operand.
                self.token(true);
                let end = quoted.len() - self.rest.len();
                Err(EpdError::BadOperand {
                    opcode: opcode.to_owned(),
                    token: quoted.get(..end).unwrap_or(quoted).to_owned(),
                })
            }
        }
    }
}

/// Reads the four data fields into a position.
///
/// This does what `Epd::from_ascii` does for standard EPD (the property tests
/// check that the two agree), but it is stricter and several times faster:
/// shakmaty's reader also accepts Crazyhouse pockets and promoted pieces, `_` as
/// a separator and any en passant square, and the referee reads a record for
/// every line it hears.
fn parse_position(fields: &[&[u8]; 4]) -> Result<Epd, EpdError> {
    let [placement, turn, castling, ep] = *fields;
    let board =
        parse_placement(placement).ok_or(EpdError::Position(ParseFenError::InvalidBoard))?;
    let turn = match turn {
        b"w" => Color::White,
        b"b" => Color::Black,
        _ => return Err(EpdError::Position(ParseFenError::InvalidTurn)),
    };
    let castling_rights = parse_castling(&board, castling)
        .ok_or(EpdError::Position(ParseFenError::InvalidCastling))?;
    let bad_ep = || EpdError::Position(ParseFenError::InvalidEpSquare);
    let ep_square = match *ep {
        [b'-'] => None,
        [_, b'3' | b'6'] => Some(Square::from_ascii(ep).map_err(|_| bad_ep())?),
        _ => return Err(bad_ep()),
    };
    let setup = Setup {
        board,
        turn,
        castling_rights,
        ep_square,
        ..Setup::empty()
    };
    // The castling rights were checked to be representable, so this does not
    // fail; should it ever, the castling field is what it would be about.
    Epd::try_from_setup(setup).map_err(|_| EpdError::Position(ParseFenError::InvalidCastling))
}

/// Classes of the bytes of the piece placement field: 0 for bytes that cannot
/// appear there, 1 to 8 for runs of empty squares, 9 for `/`, and 16 plus a
/// piece index (the role index, plus 6 for black) for piece letters.
const PLACEMENT_CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut d = 1;
    while d <= 8 {
        table[(b'0' + d) as usize] = d;
        d += 1;
    }
    table[b'/' as usize] = 9;
    let letters = *b"PNBRQKpnbrqk";
    let mut i = 0;
    while i < letters.len() {
        #[allow(clippy::cast_possible_truncation)]
        let piece = i as u8;
        table[letters[i] as usize] = 16 + piece;
        i += 1;
    }
    table
};

/// Reads the piece placement field, ranks 8 to 1 separated by `/`, as
/// shakmaty's board reader does but without promoted-piece markers.
fn parse_placement(placement: &[u8]) -> Option<Board> {
    // One bitboard per piece: the six white roles, then the six black ones.
    let mut pieces = [0u64; 12];
    let mut rank: u32 = 7;
    let mut file: u32 = 0;
    for &b in placement {
        let class = PLACEMENT_CLASSES[usize::from(b)];
        if class >= 16 {
            if file >= 8 {
                return None;
            }
            if let Some(bitboard) = pieces.get_mut(usize::from(class - 16)) {
                *bitboard |= 1u64 << (rank * 8 + file);
            }
            file += 1;
        } else if class == 9 {
            if file != 8 || rank == 0 {
                return None;
            }
            file = 0;
            rank -= 1;
        } else if class > 0 {
            file += u32::from(class);
            if file > 8 {
                return None;
            }
        } else {
            return None;
        }
    }
    if rank != 0 || file != 8 {
        return None;
    }
    let [wp, wn, wb, wr, wq, wk, bp, bn, bb, br, bq, bk] = pieces.map(Bitboard);
    Board::try_from_bitboards(
        ByRole {
            pawn: wp | bp,
            knight: wn | bn,
            bishop: wb | bb,
            rook: wr | br,
            queen: wq | bq,
            king: wk | bk,
        },
        ByColor {
            white: wp | wn | wb | wr | wq | wk,
            black: bp | bn | bb | br | bq | bk,
        },
    )
    .ok()
}

/// Reads the castling field as shakmaty does: `-`, or `K`, `Q`, `k`, `q` and
/// the file letters of X-FEN and Shredder-FEN, at most two rights per side.
/// `K` and `Q` name the outermost rook on the back rank, or the corner when
/// there is none.
fn parse_castling(board: &Board, castling: &[u8]) -> Option<Bitboard> {
    let mut rights = Bitboard::EMPTY;
    if castling == b"-" {
        return Some(rights);
    }
    for &b in castling {
        let color = Color::from_white(b.is_ascii_uppercase());
        let backrank = color.backrank();
        let rooks_and_kings =
            board.by_color(color) & (board.rooks() | board.kings()) & Bitboard::from(backrank);
        let square = match b.to_ascii_lowercase() {
            b'k' => rooks_and_kings
                .last()
                .filter(|sq| board.rooks().contains(*sq))
                .unwrap_or_else(|| Square::from_coords(File::H, backrank)),
            b'q' => rooks_and_kings
                .first()
                .filter(|sq| board.rooks().contains(*sq))
                .unwrap_or_else(|| Square::from_coords(File::A, backrank)),
            f => Square::from_coords(File::from_char(char::from(f))?, backrank),
        };
        rights.add(square);
    }
    let per_side_ok = Color::ALL
        .iter()
        .all(|&color| (rights & Bitboard::from(color.backrank())).count() <= 2);
    per_side_ok.then_some(rights)
}

#[cfg(test)]
mod tests;
