//! Operand values of EPD operations and their basetypes (spec section 5.2).
//!
//! An EPD operand is either a double-quoted string or an unquoted token, and the
//! token's basetype is not named anywhere in the record: it has to be recognised
//! from its shape. This module owns that recognition ([`classify`]) together with
//! the small value types for dates, times of day and clock readings, so that the
//! reader and the writer of records agree on one canonical text for every value.

use std::fmt;

use compact_str::CompactString;
use std::time::Duration;

use super::moves::is_move_syntax;

/// The longest identifier operand, in bytes (spec 5.2.1).
pub const MAX_IDENTIFIER_LEN: usize = 15;

/// The longest string operand, in bytes of data between the quotes (the spec
/// asks for fewer than 256).
pub const MAX_STRING_LEN: usize = 255;

/// One operand of an EPD operation.
///
/// Unquoted tokens are classified by [`Operand::unquoted`], which tries the
/// basetypes in a fixed order: clock, time of day, date, integer, floating,
/// identifier and finally chess move.
///
/// Two operands are equal when they have the same variant and value, except
/// that an identifier and a move with the same text are equal too: they are
/// written the same way, so `Move("e4")` reads back as `Identifier("e4")` (spec
/// 5.2.2 notes that some moves qualify as identifiers). `Float` compares as
/// `f64` does, so `NaN` is never equal to itself (the reader never makes one).
#[derive(Clone, Debug)]
pub enum Operand {
    /// An unquoted sequence of 1 to 15 letters, digits and underscores that is
    /// not an integer, such as `respond`, `sign_on`, `Event` or `e4`.
    Identifier(CompactString),
    /// An unquoted token that is not an identifier but is a chess move in the
    /// lenient syntax of [`is_move_syntax`], such as `Nf3+`, `O-O`, `0-0-0`,
    /// `e8=Q` or `exd6e.p.`.
    Move(CompactString),
    /// A signed integer; a leading `+` is accepted on input but never written.
    Integer(i64),
    /// A floating point number, read from and written as `[+-]digits.digits`.
    Float(f64),
    /// A string: printable ASCII other than `"`, at most [`MAX_STRING_LEN`]
    /// bytes, written between double quotes.
    Str(CompactString),
    /// A calendar date, written `YYYY.MM.DD`.
    Date(Date),
    /// A time of day, written `HH:MM:SS`.
    Time(TimeOfDay),
    /// A clock reading, written `DDD:HH:MM:SS`.
    Clock(Clock),
    /// An unquoted token of no other basetype, such as `K-e2` or `1/2`. The profile
    /// counts a record with one as well formed: an unknown operation never spoils a
    /// record, and a move written this way is unreadable rather than noise.
    Token(CompactString),
}

impl Operand {
    /// Returns the text of an identifier operand.
    pub fn as_identifier(&self) -> Option<&str> {
        match self {
            Operand::Identifier(s) => Some(s),
            _ => None,
        }
    }

    /// Returns the text of an unquoted operand that may name a move: an identifier
    /// (such as `e4` or `e2e4`), a move (such as `Nf3+` or `O-O`), or a token of no
    /// basetype (which [`crate::epd::resolve_move`] then reports as unreadable).
    pub fn as_move_text(&self) -> Option<&str> {
        match self {
            Operand::Identifier(s) | Operand::Move(s) | Operand::Token(s) => Some(s),
            _ => None,
        }
    }

    /// Returns the data of a string operand, without its quotes.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Operand::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Returns the value of an integer operand.
    pub fn as_integer(&self) -> Option<i64> {
        match *self {
            Operand::Integer(i) => Some(i),
            _ => None,
        }
    }

    /// Returns the value of a floating operand, or of an integer operand
    /// converted to `f64` (rounding to the nearest value when it is very large).
    pub fn as_float(&self) -> Option<f64> {
        match *self {
            Operand::Float(x) => Some(x),
            #[allow(clippy::cast_precision_loss)]
            Operand::Integer(i) => Some(i as f64),
            _ => None,
        }
    }

    /// Returns the value of a clock operand.
    pub fn as_clock(&self) -> Option<Clock> {
        match *self {
            Operand::Clock(c) => Some(c),
            _ => None,
        }
    }

    /// Returns the value of a date operand.
    pub fn as_date(&self) -> Option<Date> {
        match *self {
            Operand::Date(d) => Some(d),
            _ => None,
        }
    }

    /// Returns the value of a time-of-day operand.
    pub fn as_time(&self) -> Option<TimeOfDay> {
        match *self {
            Operand::Time(t) => Some(t),
            _ => None,
        }
    }

    /// Makes a floating operand, or returns `None` when `x` is infinite or not a
    /// number, which EPD cannot express.
    pub fn float(x: f64) -> Option<Operand> {
        x.is_finite().then_some(Operand::Float(x))
    }

    /// Makes a string operand, or returns `None` when `text` is longer than
    /// [`MAX_STRING_LEN`] bytes or holds a byte that a string cannot carry (a
    /// double quote, or anything outside printable ASCII).
    pub fn string(text: impl Into<CompactString>) -> Option<Operand> {
        let text = text.into();
        is_string_data(text.as_bytes()).then_some(Operand::Str(text))
    }

    /// Makes a string operand from any text, made fit for EPD: a double quote becomes
    /// `'`, anything outside printable ASCII `?`, and the text is cut to
    /// [`MAX_STRING_LEN`] bytes. For names, reasons and tag values from elsewhere.
    pub fn lossy_string(text: &str) -> Operand {
        let mut s: CompactString = text
            .chars()
            .map(|c| match c {
                '"' => '\'',
                ' '..='~' => c,
                _ => '?',
            })
            .collect();
        s.truncate(MAX_STRING_LEN);
        Operand::Str(s)
    }

    /// Classifies `text` exactly as the reader classifies an unquoted token, or
    /// returns `None` when it fits no basetype or is out of range.
    ///
    /// This is the way to build an operand from a move in SAN: `Nf3` becomes an
    /// identifier, `Nf3+` and `O-O` become moves, and both read back unchanged.
    pub fn unquoted(text: &str) -> Option<Operand> {
        classify(text).ok()
    }

    /// Whether the reader reads this operand's text back as this operand, told from its
    /// shape without reading it: an integer or a clock; an identifier or a move whose
    /// text starts with a letter and is an identifier's or a move's (the reader makes
    /// either of such a text, and the two compare equal); a string of printable ASCII
    /// without `"` that fits. Floats, dates, times and tokens say no (their text is not
    /// looked at).
    pub fn reads_back(&self) -> bool {
        match self {
            Operand::Integer(_) | Operand::Clock(_) => true,
            Operand::Identifier(s) | Operand::Move(s) => {
                let bytes = s.as_bytes();
                bytes.first().is_some_and(u8::is_ascii_alphabetic)
                    && ((bytes.len() <= MAX_IDENTIFIER_LEN
                        && bytes
                            .iter()
                            .all(|&b| b.is_ascii_alphanumeric() || b == b'_'))
                        || is_move_syntax(s))
            }
            Operand::Str(s) => {
                s.len() <= MAX_STRING_LEN
                    && s.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'"')
            }
            Operand::Float(_) | Operand::Date(_) | Operand::Time(_) | Operand::Token(_) => false,
        }
    }
}

impl PartialEq for Operand {
    fn eq(&self, other: &Operand) -> bool {
        match (self, other) {
            (
                Operand::Identifier(a) | Operand::Move(a),
                Operand::Identifier(b) | Operand::Move(b),
            ) => a == b,
            (Operand::Integer(a), Operand::Integer(b)) => a == b,
            (Operand::Float(a), Operand::Float(b)) => a == b,
            (Operand::Str(a), Operand::Str(b)) => a == b,
            (Operand::Date(a), Operand::Date(b)) => a == b,
            (Operand::Time(a), Operand::Time(b)) => a == b,
            (Operand::Clock(a), Operand::Clock(b)) => a == b,
            (Operand::Token(a), Operand::Token(b)) => a == b,
            _ => false,
        }
    }
}

impl Operand {
    /// Appends the operand's text, as [`fmt::Display`] writes it, to `out`.
    pub fn append_to(&self, out: &mut String) {
        match self {
            Operand::Identifier(s) | Operand::Move(s) | Operand::Token(s) => out.push_str(s),
            Operand::Str(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            Operand::Integer(i) => {
                if *i < 0 {
                    out.push('-');
                }
                push_padded(out, i.unsigned_abs(), 1);
            }
            Operand::Clock(c) => {
                let s = u64::from(c.secs);
                push_padded(out, s / 86_400, 3);
                out.push(':');
                push_padded(out, s / 3_600 % 24, 2);
                out.push(':');
                push_padded(out, s / 60 % 60, 2);
                out.push(':');
                push_padded(out, s % 60, 2);
            }
            other => {
                use fmt::Write as _;
                let _ = write!(out, "{other}");
            }
        }
    }
}

/// Appends `n` in decimal, with zeros before it up to `width` digits.
fn push_padded(out: &mut String, n: u64, width: usize) {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(n);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

impl fmt::Display for Operand {
    /// Writes the canonical text of the operand: strings in double quotes,
    /// integers without a `+`, and floats always with a radix point and never
    /// in scientific notation.
    ///
    /// Values that EPD cannot express (a string holding a double quote, a float
    /// that is not finite, a date out of range) are written as they are and do
    /// not read back; the reader and the checked constructors never make them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Identifier(s) | Operand::Move(s) | Operand::Token(s) => f.write_str(s),
            Operand::Integer(i) => write!(f, "{i}"),
            Operand::Float(x) => {
                // Rust's `Display` for `f64` never uses an exponent, and it prints
                // the shortest text that reads back to the same value; it omits
                // the radix point exactly when the value is a whole number.
                if x.is_finite() && x.fract() == 0.0 {
                    write!(f, "{x}.0")
                } else {
                    write!(f, "{x}")
                }
            }
            Operand::Str(s) => write!(f, "\"{s}\""),
            Operand::Date(d) => d.fmt(f),
            Operand::Time(t) => t.fmt(f),
            Operand::Clock(c) => c.fmt(f),
        }
    }
}

/// A calendar date as EPD writes it, `YYYY.MM.DD` (spec 5.2.5).
///
/// The reader accepts years 0001 to 9999, months 01 to 12 and days 01 to 31; it
/// does not check the day against the length of the month, as the spec does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year, 1 to 9999.
    pub year: u16,
    /// The month, 1 to 12.
    pub month: u8,
    /// The day of the month, 1 to 31.
    pub day: u8,
}

impl Date {
    /// Makes a date, or returns `None` when a part is out of the ranges above.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        ((1..=9999).contains(&year) && (1..=12).contains(&month) && (1..=31).contains(&day))
            .then_some(Date { year, month, day })
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }
}

/// A time of day as EPD writes it, `HH:MM:SS` (spec 5.2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay {
    /// The hour, 0 to 23.
    pub hour: u8,
    /// The minute, 0 to 59.
    pub minute: u8,
    /// The second, 0 to 59.
    pub second: u8,
}

impl TimeOfDay {
    /// Makes a time of day, or returns `None` when a part is out of range.
    pub fn new(hour: u8, minute: u8, second: u8) -> Option<TimeOfDay> {
        (hour < 24 && minute < 60 && second < 60).then_some(TimeOfDay {
            hour,
            minute,
            second,
        })
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

/// A clock reading in whole seconds, written `DDD:HH:MM:SS` (spec 5.2.7).
///
/// It is used for the `cc` operation, which the referee fills with the time
/// each side has consumed, truncated to whole seconds. The largest value is
/// [`Clock::MAX`], 999 days 23:59:59.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Clock {
    secs: u32,
}

impl Clock {
    /// The largest clock reading, `999:23:59:59`.
    pub const MAX: Clock = Clock {
        secs: 999 * 86_400 + 23 * 3_600 + 59 * 60 + 59,
    };

    /// The zero reading, `000:00:00:00`.
    pub const ZERO: Clock = Clock { secs: 0 };

    /// Makes a clock reading of `secs` seconds, or returns `None` above
    /// [`Clock::MAX`].
    pub fn from_secs(secs: u64) -> Option<Clock> {
        if secs <= u64::from(Clock::MAX.secs) {
            u32::try_from(secs).ok().map(|secs| Clock { secs })
        } else {
            None
        }
    }

    /// Makes a clock reading from a duration, dropping any fraction of a second
    /// and saturating at [`Clock::MAX`].
    pub fn from_duration_truncated(d: Duration) -> Clock {
        Clock::from_secs(d.as_secs()).unwrap_or(Clock::MAX)
    }

    /// Returns the reading in seconds.
    pub fn as_secs(self) -> u64 {
        u64::from(self.secs)
    }

    /// Returns the reading as a duration.
    pub fn to_duration(self) -> Duration {
        Duration::from_secs(self.as_secs())
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.secs;
        write!(
            f,
            "{:03}:{:02}:{:02}:{:02}",
            s / 86_400,
            s / 3_600 % 24,
            s / 60 % 60,
            s % 60
        )
    }
}

/// Why an unquoted token could not be classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassifyError {
    /// The token has the shape of no basetype.
    NoFit,
    /// The token has the shape of a clock, time, date, integer or float, but
    /// its value is out of range.
    OutOfRange,
}

/// Whether `data` can be the data of a string operand.
pub(crate) fn is_string_data(data: &[u8]) -> bool {
    data.len() <= MAX_STRING_LEN
        && data
            .iter()
            .all(|&b| (0x20..=0x7e).contains(&b) && b != b'"')
}

/// Classifies an unquoted token, trying the basetypes in the order clock, time
/// of day, date, integer, float, identifier, move.
///
/// # Errors
///
/// Returns [`ClassifyError::OutOfRange`] for a token with the exact shape of a
/// clock, time, date, integer or float whose value is out of range, and
/// [`ClassifyError::NoFit`] for an empty token or one holding a blank, a `;`,
/// a double quote or a byte outside printable ASCII.
pub(crate) fn classify(token: &str) -> Result<Operand, ClassifyError> {
    let bytes = token.as_bytes();
    match bytes.first() {
        // Clocks, times, dates and numbers start with a digit or a sign; the
        // other basetypes need not be tried for them unless they fail.
        Some(b'0'..=b'9' | b'+' | b'-') => {
            if let Some(result) = classify_numeric(token) {
                return result;
            }
        }
        Some(_) => {}
        None => return Err(ClassifyError::NoFit),
    }
    if bytes.len() <= MAX_IDENTIFIER_LEN
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Ok(Operand::Identifier(token.into()));
    }
    if is_move_syntax(token) {
        return Ok(Operand::Move(token.into()));
    }
    if token
        .bytes()
        .any(|b| !(b'!'..=b'~').contains(&b) || b == b'"' || b == b';')
    {
        // A token is printable, blank-free and ends at `;`; a quote belongs to a
        // string.
        return Err(ClassifyError::NoFit);
    }
    Ok(Operand::Token(token.into()))
}

/// Classifies a token as a clock, time, date, integer or float, or returns
/// `None` when it has none of their shapes.
fn classify_numeric(token: &str) -> Option<Result<Operand, ClassifyError>> {
    let bytes = token.as_bytes();
    #[allow(clippy::cast_possible_truncation)]
    let two = |at: usize| digits(&bytes[at..at + 2]) as u8;
    match bytes.len() {
        12 if shape(bytes, b"ddd:dd:dd:dd") => {
            let (hours, minutes, seconds) = (two(4), two(7), two(10));
            if hours > 23 || minutes > 59 || seconds > 59 {
                return Some(Err(ClassifyError::OutOfRange));
            }
            let secs = u32::from(digits(&bytes[0..3])) * 86_400
                + u32::from(hours) * 3_600
                + u32::from(minutes) * 60
                + u32::from(seconds);
            return Some(Ok(Operand::Clock(Clock { secs })));
        }
        8 if shape(bytes, b"dd:dd:dd") => {
            return Some(
                TimeOfDay::new(two(0), two(3), two(6))
                    .map(Operand::Time)
                    .ok_or(ClassifyError::OutOfRange),
            );
        }
        10 if shape(bytes, b"dddd.dd.dd") => {
            return Some(
                Date::new(digits(&bytes[0..4]), two(5), two(8))
                    .map(Operand::Date)
                    .ok_or(ClassifyError::OutOfRange),
            );
        }
        _ => {}
    }

    let unsigned = match bytes {
        [b'+' | b'-', rest @ ..] => rest,
        _ => bytes,
    };
    let int_len = unsigned.iter().take_while(|b| b.is_ascii_digit()).count();
    if int_len == 0 {
        return None;
    }
    if int_len == unsigned.len() {
        return Some(
            token
                .parse::<i64>()
                .map(Operand::Integer)
                .map_err(|_| ClassifyError::OutOfRange),
        );
    }
    if let [b'.', frac @ ..] = &unsigned[int_len..]
        && !frac.is_empty()
        && frac.iter().all(u8::is_ascii_digit)
    {
        return Some(match token.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Operand::Float(x)),
            _ => Err(ClassifyError::OutOfRange),
        });
    }
    None
}

/// Whether `token` matches `pattern`, where `d` stands for any ASCII digit and
/// every other pattern byte stands for itself.
fn shape<const N: usize>(token: &[u8], pattern: &[u8; N]) -> bool {
    let Ok(token) = <&[u8; N]>::try_from(token) else {
        return false;
    };
    // No early exit: for a constant pattern this compiles to a few comparisons.
    token.iter().zip(pattern).fold(true, |ok, (&t, &p)| {
        ok & if p == b'd' {
            t.is_ascii_digit()
        } else {
            t == p
        }
    })
}

/// The value of a run of at most four ASCII digits.
fn digits(ds: &[u8]) -> u16 {
    ds.iter()
        .fold(0u16, |acc, &d| acc * 10 + u16::from(d - b'0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Result<Operand, ClassifyError> {
        classify(s)
    }

    #[test]
    fn clock_reads_and_writes() {
        let clock = Clock::from_secs(86_400 + 2 * 3_600 + 3 * 60 + 4).unwrap();
        assert_eq!(c("001:02:03:04"), Ok(Operand::Clock(clock)));
        assert_eq!(clock.to_string(), "001:02:03:04");
        assert_eq!(c("000:00:00:00"), Ok(Operand::Clock(Clock::ZERO)));
        assert_eq!(c("999:23:59:59"), Ok(Operand::Clock(Clock::MAX)));
        assert_eq!(Clock::MAX.to_string(), "999:23:59:59");
        assert_eq!(Clock::ZERO.to_string(), "000:00:00:00");
    }

    #[test]
    fn clock_out_of_range_is_an_error() {
        assert_eq!(c("000:24:00:00"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("000:00:60:00"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("000:00:00:60"), Err(ClassifyError::OutOfRange));
        // Shapes that are not a clock at all fit no basetype.
        assert_eq!(
            c("1000:00:00:00"),
            Ok(Operand::Token("1000:00:00:00".into()))
        );
        assert_eq!(c("00:00:00:00"), Ok(Operand::Token("00:00:00:00".into())));
        assert_eq!(c("000:00:00:0a"), Ok(Operand::Token("000:00:00:0a".into())));
    }

    #[test]
    fn clock_conversions() {
        assert_eq!(Clock::from_secs(Clock::MAX.as_secs()), Some(Clock::MAX));
        assert_eq!(Clock::from_secs(Clock::MAX.as_secs() + 1), None);
        assert_eq!(Clock::from_secs(u64::MAX), None);
        assert_eq!(
            Clock::from_duration_truncated(Duration::from_millis(1_999)).as_secs(),
            1
        );
        assert_eq!(
            Clock::from_duration_truncated(Duration::from_secs(u64::MAX)),
            Clock::MAX
        );
        assert_eq!(
            Clock::from_secs(90).unwrap().to_duration(),
            Duration::from_secs(90)
        );
        assert!(Clock::ZERO < Clock::MAX);
    }

    #[test]
    fn time_of_day_reads_and_writes() {
        let t = TimeOfDay::new(12, 34, 56).unwrap();
        assert_eq!(c("12:34:56"), Ok(Operand::Time(t)));
        assert_eq!(t.to_string(), "12:34:56");
        assert_eq!(
            c("00:00:00"),
            Ok(Operand::Time(TimeOfDay::new(0, 0, 0).unwrap()))
        );
        assert_eq!(
            c("23:59:59"),
            Ok(Operand::Time(TimeOfDay::new(23, 59, 59).unwrap()))
        );
        assert_eq!(c("24:00:00"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("00:60:00"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("00:00:60"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("1:00:00"), Ok(Operand::Token("1:00:00".into())));
        assert_eq!(TimeOfDay::new(24, 0, 0), None);
    }

    #[test]
    fn date_reads_and_writes() {
        let d = Date::new(1995, 10, 31).unwrap();
        assert_eq!(c("1995.10.31"), Ok(Operand::Date(d)));
        assert_eq!(d.to_string(), "1995.10.31");
        assert_eq!(Date::new(1, 1, 1).unwrap().to_string(), "0001.01.01");
        assert_eq!(
            c("9999.12.31"),
            Ok(Operand::Date(Date::new(9999, 12, 31).unwrap()))
        );
        assert_eq!(c("0000.01.01"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("1995.13.01"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("1995.00.01"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("1995.01.00"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("1995.01.32"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("95.01.01"), Ok(Operand::Token("95.01.01".into())));
        assert_eq!(Date::new(10_000, 1, 1), None);
    }

    #[test]
    fn integers() {
        assert_eq!(c("0"), Ok(Operand::Integer(0)));
        assert_eq!(c("-32767"), Ok(Operand::Integer(-32767)));
        assert_eq!(c("+5"), Ok(Operand::Integer(5)));
        assert_eq!(Operand::Integer(5).to_string(), "5");
        assert_eq!(c("007"), Ok(Operand::Integer(7)));
        assert_eq!(c("2147483647"), Ok(Operand::Integer(2_147_483_647)));
        assert_eq!(c("-2147483648"), Ok(Operand::Integer(-2_147_483_648)));
        assert_eq!(c("9223372036854775807"), Ok(Operand::Integer(i64::MAX)));
        assert_eq!(c("-9223372036854775808"), Ok(Operand::Integer(i64::MIN)));
        assert_eq!(c("9223372036854775808"), Err(ClassifyError::OutOfRange));
        assert_eq!(c("-"), Ok(Operand::Token("-".into())));
        assert_eq!(c("+"), Ok(Operand::Token("+".into())));
        assert_eq!(c("--1"), Ok(Operand::Token("--1".into())));
        assert_eq!(c("1-"), Ok(Operand::Token("1-".into())));
    }

    #[test]
    fn floats() {
        assert_eq!(c("2.5"), Ok(Operand::Float(2.5)));
        assert_eq!(c("-0.5"), Ok(Operand::Float(-0.5)));
        assert_eq!(c("+1.25"), Ok(Operand::Float(1.25)));
        assert_eq!(c("2.0"), Ok(Operand::Float(2.0)));
        assert_eq!(c("1."), Ok(Operand::Token("1.".into())));
        assert_eq!(c(".5"), Ok(Operand::Token(".5".into())));
        // No scientific notation: `1e5` is made of identifier characters.
        assert_eq!(c("1e5"), Ok(Operand::Identifier("1e5".into())));
        assert_eq!(c("1.5e5"), Ok(Operand::Token("1.5e5".into())));
        assert_eq!(c("1.2.3"), Ok(Operand::Token("1.2.3".into())));
        let huge = format!("{}.0", "9".repeat(400));
        assert_eq!(c(&huge), Err(ClassifyError::OutOfRange));
        assert_eq!(Operand::Float(2.0).to_string(), "2.0");
        assert_eq!(Operand::Float(-0.5).to_string(), "-0.5");
        assert_eq!(Operand::Float(-0.0).to_string(), "-0.0");
        assert_eq!(Operand::Float(1e21).to_string(), "1000000000000000000000.0");
        assert_eq!(Operand::Float(1e-7).to_string(), "0.0000001");
        assert_eq!(Operand::float(f64::NAN), None);
        assert_eq!(Operand::float(f64::INFINITY), None);
        assert_eq!(Operand::float(0.25), Some(Operand::Float(0.25)));
        for x in [0.1, 1.0 / 3.0, 1e300, 5e-324, -123.456] {
            let text = Operand::Float(x).to_string();
            assert_eq!(c(&text), Ok(Operand::Float(x)), "{text}");
        }
    }

    #[test]
    fn identifiers_and_moves() {
        let id = |s: &str| Ok(Operand::Identifier(s.into()));
        let mv = |s: &str| Ok(Operand::Move(s.into()));
        assert_eq!(c("respond"), id("respond"));
        assert_eq!(c("sign_on"), id("sign_on"));
        assert_eq!(c("e4"), id("e4"));
        assert_eq!(c("e2e4"), id("e2e4"));
        assert_eq!(c("_"), id("_"));
        assert_eq!(c("abcdefghijklmno"), id("abcdefghijklmno"));
        assert_eq!(
            c("abcdefghijklmnop"),
            Ok(Operand::Token("abcdefghijklmnop".into()))
        );
        assert_eq!(c("Nf3+"), mv("Nf3+"));
        assert_eq!(c("O-O"), mv("O-O"));
        assert_eq!(c("0-0-0"), mv("0-0-0"));
        assert_eq!(c("e8=Q"), mv("e8=Q"));
        assert_eq!(c("exd6e.p."), mv("exd6e.p."));
        assert_eq!(c("Qxf7#"), mv("Qxf7#"));
        assert_eq!(c("a-b"), Ok(Operand::Token("a-b".into())));
        assert_eq!(c("x\"y"), Err(ClassifyError::NoFit));
        assert_eq!(c(""), Err(ClassifyError::NoFit));
    }

    #[test]
    fn accessors() {
        let id = Operand::Identifier("respond".into());
        let mv = Operand::Move("O-O".into());
        assert_eq!(id.as_identifier(), Some("respond"));
        assert_eq!(mv.as_identifier(), None);
        assert_eq!(id.as_move_text(), Some("respond"));
        assert_eq!(mv.as_move_text(), Some("O-O"));
        assert_eq!(Operand::Str("x".into()).as_str(), Some("x"));
        assert_eq!(Operand::Str("x".into()).as_move_text(), None);
        assert_eq!(Operand::Integer(3).as_integer(), Some(3));
        assert_eq!(Operand::Integer(3).as_float(), Some(3.0));
        assert_eq!(Operand::Float(0.5).as_float(), Some(0.5));
        assert_eq!(Operand::Float(0.5).as_integer(), None);
        assert_eq!(Operand::Clock(Clock::MAX).as_clock(), Some(Clock::MAX));
        assert_eq!(Operand::Integer(3).as_clock(), None);
        let d = Date::new(2000, 2, 29).unwrap();
        assert_eq!(Operand::Date(d).as_date(), Some(d));
        let t = TimeOfDay::new(1, 2, 3).unwrap();
        assert_eq!(Operand::Time(t).as_time(), Some(t));
    }

    #[test]
    fn checked_constructors() {
        assert_eq!(
            Operand::string("Club match; round 1"),
            Some(Operand::Str("Club match; round 1".into()))
        );
        assert_eq!(Operand::string("say \"hi\""), None);
        assert_eq!(Operand::string("tab\there"), None);
        assert!(Operand::string("x".repeat(255)).is_some());
        assert_eq!(Operand::string("x".repeat(256)), None);
        assert_eq!(
            Operand::unquoted("Nf3"),
            Some(Operand::Identifier("Nf3".into()))
        );
        assert_eq!(
            Operand::unquoted("Nf3+"),
            Some(Operand::Move("Nf3+".into()))
        );
        assert_eq!(Operand::unquoted("12"), Some(Operand::Integer(12)));
        assert_eq!(Operand::unquoted("a b"), None);
        assert_eq!(Operand::unquoted("1995.13.01"), None);
    }

    #[test]
    fn identifiers_equal_moves_of_the_same_text() {
        assert_eq!(Operand::Move("e4".into()), Operand::Identifier("e4".into()));
        assert_eq!(Operand::Identifier("e4".into()), Operand::Move("e4".into()));
        assert_ne!(Operand::Move("e4".into()), Operand::Identifier("d4".into()));
        assert_ne!(Operand::Move("e4".into()), Operand::Str("e4".into()));
        assert_ne!(Operand::Integer(1), Operand::Float(1.0));
        assert_ne!(Operand::Float(f64::NAN), Operand::Float(f64::NAN));
    }

    #[test]
    fn display_quotes_strings() {
        assert_eq!(
            Operand::Str("Random Mover".into()).to_string(),
            "\"Random Mover\""
        );
        assert_eq!(Operand::Str(CompactString::default()).to_string(), "\"\"");
        assert_eq!(Operand::Identifier("sign_on".into()).to_string(), "sign_on");
    }
}
