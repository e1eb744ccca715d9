//! Time controls in PGN `TimeControl` syntax and the two chess clocks of a game.
//!
//! The referee must know how much time each side has left, when a flag falls, and how
//! much time each side has consumed (the EPD `cc` operation). This module holds that
//! arithmetic in one place, apart from any I/O: time always comes in as a
//! [`Duration`] measured by the caller, and the module never reads the system clock.
//!
//! A [`TimeControl`] is parsed from the text of the PGN `TimeControl` tag (PGN
//! specification, section 9.6.1) with the extensions engine testers use: a moves period
//! may carry an increment (`40/5400+30:1800+30`) and seconds may have up to three
//! decimal places (`10+0.1`). Its [`Display`](fmt::Display) gives canonical text that
//! parses back to an equal value. [`Clocks`] then applies the control to both sides,
//! move by move, with millisecond resolution or better and without float arithmetic.

use std::{fmt, str::FromStr, time::Duration};

use shakmaty::{ByColor, Color};

/// One period of a time control, as one `:`-separated field of a PGN `TimeControl`
/// tag describes it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Period {
    /// The time control is unknown (`?`).
    Unknown,
    /// No time control is in use (`-`).
    Untimed,
    /// A number of moves in a time, with an optional increment per move
    /// (`40/9000`, `40/5400+30`).
    Moves {
        /// The number of moves each side must make in the period.
        moves: u32,
        /// The time added to each clock when the period begins.
        time: Duration,
        /// The time added to the mover's clock after each of its moves in the period.
        increment: Duration,
    },
    /// All remaining moves in a time, with an optional increment per move
    /// (`300`, `4500+60`).
    SuddenDeath {
        /// The time added to each clock when the period begins.
        time: Duration,
        /// The time added to the mover's clock after each of its moves.
        increment: Duration,
    },
    /// A sandclock holding `time` in all, half of it on each side at the start (`*180`).
    Hourglass {
        /// The total time in the sandclock.
        time: Duration,
    },
}

/// Why a time control text could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeControlErrorKind {
    /// A period (a `:`-separated field) is empty, as is the whole of an empty text.
    #[error("empty period")]
    EmptyPeriod,
    /// A number of seconds was expected but something else was found.
    #[error("expected a number of seconds, found {0:?}")]
    InvalidSeconds(String),
    /// A number of moves was expected but something else was found.
    #[error("expected a number of moves, found {0:?}")]
    InvalidMoves(String),
    /// A number of seconds has more than three decimal places.
    #[error("more than three decimal places in {0:?}")]
    TooPrecise(String),
    /// A number is too large to be represented.
    #[error("number too large: {0:?}")]
    TooLarge(String),
    /// A moves period asks for zero moves.
    #[error("a period of zero moves")]
    ZeroMoves,
    /// A period holds no time at all.
    #[error("a period of zero seconds")]
    ZeroTime,
    /// `?`, `-` or an hourglass period appears together with other periods.
    #[error("{0:?} must be the only period")]
    NotAlone(String),
}

/// A text that is not a valid time control, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid time control {text:?}: {kind}")]
pub struct TimeControlError {
    /// The whole text that was given.
    pub text: String,
    /// What is wrong with it.
    pub kind: TimeControlErrorKind,
}

/// A time control: one or more periods, the last of which repeats as often as needed.
///
/// The only way to make one is to parse its PGN text (or to deserialize that text),
/// so every value satisfies the invariants the parser checks: at least one period;
/// `?`, `-` and hourglass periods alone; all times whole milliseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    periods: Vec<Period>,
}

impl TimeControl {
    /// Returns the periods in the order in which they are played.
    pub fn periods(&self) -> &[Period] {
        &self.periods
    }

    /// Returns whether the clocks run at all: false for `?` and `-` only.
    pub fn is_timed(&self) -> bool {
        !matches!(self.periods.as_slice(), [Period::Unknown | Period::Untimed])
    }
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// Parses the text of a PGN `TimeControl` tag.
    ///
    /// Accepted are `?`, `-`, `*S`, `S`, `S+I`, `M/S` and `M/S+I`, and several of the
    /// last four joined by `:`. `M` is a positive whole number of moves; `S` is a
    /// positive number of seconds and `I` a number of seconds that may be zero, each
    /// written as digits with optionally a point and one to three more digits. No
    /// whitespace, sign or exponent is accepted anywhere.
    ///
    /// # Errors
    ///
    /// Returns a [`TimeControlError`] naming the text when it is empty, when a field
    /// is malformed, when a number is zero where a positive one is needed, too large
    /// or finer than a millisecond, and when `?`, `-` or an hourglass period is
    /// combined with other periods.
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let error = |kind| TimeControlError {
            text: text.to_owned(),
            kind,
        };
        let periods = text
            .split(':')
            .map(parse_period)
            .collect::<Result<Vec<Period>, _>>()
            .map_err(error)?;
        if periods.len() > 1 {
            let fields = text.split(':');
            for (period, field) in periods.iter().zip(fields) {
                if matches!(
                    period,
                    Period::Unknown | Period::Untimed | Period::Hourglass { .. }
                ) {
                    return Err(error(TimeControlErrorKind::NotAlone(field.to_owned())));
                }
            }
        }
        Ok(TimeControl { periods })
    }
}

/// Parses one `:`-separated field of a time control.
fn parse_period(field: &str) -> Result<Period, TimeControlErrorKind> {
    match field {
        "" => Err(TimeControlErrorKind::EmptyPeriod),
        "?" => Ok(Period::Unknown),
        "-" => Ok(Period::Untimed),
        _ => {
            if let Some(rest) = field.strip_prefix('*') {
                let time = parse_positive_seconds(rest)?;
                Ok(Period::Hourglass { time })
            } else if let Some((moves, rest)) = field.split_once('/') {
                let moves = parse_moves(moves)?;
                let (time, increment) = parse_time_and_increment(rest)?;
                Ok(Period::Moves {
                    moves,
                    time,
                    increment,
                })
            } else {
                let (time, increment) = parse_time_and_increment(field)?;
                Ok(Period::SuddenDeath { time, increment })
            }
        }
    }
}

/// Parses a positive whole number of moves.
fn parse_moves(text: &str) -> Result<u32, TimeControlErrorKind> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TimeControlErrorKind::InvalidMoves(text.to_owned()));
    }
    match text.parse::<u32>() {
        Ok(0) => Err(TimeControlErrorKind::ZeroMoves),
        Ok(moves) => Ok(moves),
        Err(_) => Err(TimeControlErrorKind::TooLarge(text.to_owned())),
    }
}

/// Parses `S` or `S+I`, where `S` must be positive and `I` may be zero.
fn parse_time_and_increment(text: &str) -> Result<(Duration, Duration), TimeControlErrorKind> {
    match text.split_once('+') {
        Some((time, increment)) => Ok((parse_positive_seconds(time)?, parse_seconds(increment)?)),
        None => Ok((parse_positive_seconds(text)?, Duration::ZERO)),
    }
}

/// Parses a number of seconds that must not be zero.
fn parse_positive_seconds(text: &str) -> Result<Duration, TimeControlErrorKind> {
    let seconds = parse_seconds(text)?;
    if seconds.is_zero() {
        Err(TimeControlErrorKind::ZeroTime)
    } else {
        Ok(seconds)
    }
}

/// Parses digits, optionally followed by a point and one to three digits, as seconds.
fn parse_seconds(text: &str) -> Result<Duration, TimeControlErrorKind> {
    let invalid = || TimeControlErrorKind::InvalidSeconds(text.to_owned());
    let too_large = || TimeControlErrorKind::TooLarge(text.to_owned());
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || fraction.is_some_and(|f| !all_digits(f)) {
        return Err(invalid());
    }
    let mut millis = whole
        .parse::<u64>()
        .ok()
        .and_then(|s| s.checked_mul(1000))
        .ok_or_else(too_large)?;
    if let Some(fraction) = fraction {
        if fraction.len() > 3 {
            return Err(TimeControlErrorKind::TooPrecise(text.to_owned()));
        }
        // The fraction has one to three digits; pad it to milliseconds.
        let digits: u64 = fraction.parse().map_err(|_| invalid())?;
        let scale = 10_u64.pow(3 - fraction.len() as u32);
        millis = millis.checked_add(digits * scale).ok_or_else(too_large)?;
    }
    Ok(Duration::from_millis(millis))
}

/// Writes a duration as seconds with the fewest decimal places (at most three) that
/// represent it to the millisecond.
fn write_seconds(f: &mut fmt::Formatter<'_>, d: Duration) -> fmt::Result {
    let millis = d.as_millis();
    let (whole, fraction) = (millis / 1000, millis % 1000);
    if fraction == 0 {
        write!(f, "{whole}")
    } else {
        let digits = format!("{fraction:03}");
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// Writes `+I` unless the increment is zero.
fn write_increment(f: &mut fmt::Formatter<'_>, increment: Duration) -> fmt::Result {
    if increment.is_zero() {
        Ok(())
    } else {
        f.write_str("+")?;
        write_seconds(f, increment)
    }
}

impl fmt::Display for Period {
    /// Writes the period as one field of a PGN `TimeControl` tag.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Period::Unknown => f.write_str("?"),
            Period::Untimed => f.write_str("-"),
            Period::Moves {
                moves,
                time,
                increment,
            } => {
                write!(f, "{moves}/")?;
                write_seconds(f, time)?;
                write_increment(f, increment)
            }
            Period::SuddenDeath { time, increment } => {
                write_seconds(f, time)?;
                write_increment(f, increment)
            }
            Period::Hourglass { time } => {
                f.write_str("*")?;
                write_seconds(f, time)
            }
        }
    }
}

impl fmt::Display for TimeControl {
    /// Writes the canonical PGN text, such as `40/5400+30:1800+30` or `10+0.1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, period) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{period}")?;
        }
        Ok(())
    }
}

impl serde::Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What [`Clocks::charge`] did with one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Charge {
    /// The time the move took, as it was passed in.
    pub elapsed: Duration,
    /// The mover's time left after the move, increment and any new period included;
    /// `None` when the game is untimed.
    pub remaining: Option<Duration>,
    /// Whether the move took longer than the time the mover had left.
    pub flagged: bool,
}

/// The state of one side's clock.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Side {
    /// The time left, meaningful only when the game is timed.
    remaining: Duration,
    /// The time consumed so far.
    consumed: Duration,
    /// The moves charged so far.
    moves: u32,
    /// The index of the period the side is playing in.
    period: usize,
    /// The moves charged in the current period.
    moves_in_period: u32,
}

/// The two clocks of a game under one time control, indexed by [`Color`].
///
/// Each side starts with the time of the first period (with an hourglass, half of
/// it). Moves are counted per side, so a side that completes a moves period gets the
/// next period's time regardless of which side moved first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    time_control: TimeControl,
    sides: ByColor<Side>,
}

impl Clocks {
    /// Sets both clocks to the start of `tc`.
    pub fn new(tc: &TimeControl) -> Clocks {
        let start = match tc.periods.first() {
            Some(Period::Moves { time, .. } | Period::SuddenDeath { time, .. }) => *time,
            Some(Period::Hourglass { time }) => *time / 2,
            Some(Period::Unknown | Period::Untimed) | None => Duration::ZERO,
        };
        let side = Side {
            remaining: start,
            ..Side::default()
        };
        Clocks {
            time_control: tc.clone(),
            sides: ByColor {
                black: side.clone(),
                white: side,
            },
        }
    }

    /// Returns the time control the clocks run under.
    pub fn time_control(&self) -> &TimeControl {
        &self.time_control
    }

    /// Returns the time left for `color` right now (its clock not running); `None`
    /// when the game is untimed.
    pub fn remaining(&self, color: Color) -> Option<Duration> {
        self.time_control
            .is_timed()
            .then_some(self.sides[color].remaining)
    }

    /// Returns the total time consumed by `color` so far (for the EPD `cc` operation).
    pub fn consumed(&self, color: Color) -> Duration {
        self.sides[color].consumed
    }

    /// Returns the number of moves charged to `color` so far.
    pub fn moves_made(&self, color: Color) -> u32 {
        self.sides[color].moves
    }

    /// Charges `elapsed` to `color` for one completed move.
    ///
    /// The increment of the period the move was made in is added afterwards, and when
    /// the move completes a moves period the time of the next period is added too (the
    /// last period repeats). With an hourglass the mover loses `elapsed` and the
    /// opponent gains it.
    ///
    /// When `elapsed` exceeds the time the mover had left, the move is flagged: the
    /// clock stops at zero, only the time that was left counts as consumed (and, with
    /// an hourglass, as gained by the opponent), and neither increment nor new period
    /// is added. The move still counts in [`Clocks::moves_made`]. In an untimed game
    /// the whole of `elapsed` is consumed and nothing is ever flagged.
    pub fn charge(&mut self, color: Color, elapsed: Duration) -> Charge {
        let timed = self.time_control.is_timed();
        let periods = &self.time_control.periods;
        let side = &mut self.sides[color];
        side.moves = side.moves.saturating_add(1);
        if !timed {
            side.consumed = side.consumed.saturating_add(elapsed);
            return Charge {
                elapsed,
                remaining: None,
                flagged: false,
            };
        }

        let left = side.remaining;
        let flagged = elapsed > left;
        let used = elapsed.min(left);
        side.remaining = left - used;
        side.consumed = side.consumed.saturating_add(used);
        let remaining = if flagged {
            side.remaining
        } else {
            match periods[side.period] {
                Period::Moves {
                    moves, increment, ..
                } => {
                    side.remaining = side.remaining.saturating_add(increment);
                    side.moves_in_period += 1;
                    if side.moves_in_period >= moves {
                        side.period = (side.period + 1).min(periods.len() - 1);
                        side.moves_in_period = 0;
                        let next = match periods[side.period] {
                            Period::Moves { time, .. } | Period::SuddenDeath { time, .. } => time,
                            // The parser allows these only as the sole period.
                            Period::Hourglass { .. } | Period::Unknown | Period::Untimed => {
                                Duration::ZERO
                            }
                        };
                        side.remaining = side.remaining.saturating_add(next);
                    }
                }
                Period::SuddenDeath { increment, .. } => {
                    side.remaining = side.remaining.saturating_add(increment);
                }
                Period::Hourglass { .. } | Period::Unknown | Period::Untimed => {}
            }
            side.remaining
        };
        if matches!(periods[0], Period::Hourglass { .. }) {
            let other = &mut self.sides[!color];
            other.remaining = other.remaining.saturating_add(used);
        }
        Charge {
            elapsed,
            remaining: Some(remaining),
            flagged,
        }
    }

    /// Records a flag fall of `color`: its consumed time grows by what was left, and
    /// its time left becomes zero. With an hourglass the opponent gains what was left.
    /// In an untimed game this does nothing.
    pub fn flag(&mut self, color: Color) {
        if !self.time_control.is_timed() {
            return;
        }
        let side = &mut self.sides[color];
        let left = std::mem::take(&mut side.remaining);
        side.consumed = side.consumed.saturating_add(left);
        if matches!(self.time_control.periods[0], Period::Hourglass { .. }) {
            let other = &mut self.sides[!color];
            other.remaining = other.remaining.saturating_add(left);
        }
    }

    /// Rebuilds the clocks from what a player learns from the referee: how many moves
    /// each side has made and how much time each has consumed (the `cc` operation).
    /// Increments and new periods are added as the moves earned them; with an hourglass
    /// each side holds half the sand, less what it used, plus what the opponent used.
    pub fn from_consumed(
        tc: &TimeControl,
        moves: ByColor<u32>,
        consumed: ByColor<Duration>,
    ) -> Clocks {
        let mut clocks = Clocks::new(tc);
        for color in [Color::White, Color::Black] {
            for _ in 0..moves[color] {
                clocks.charge(color, Duration::ZERO);
            }
        }
        let hourglass = matches!(tc.periods.first(), Some(Period::Hourglass { .. }));
        for color in [Color::White, Color::Black] {
            let gained = if hourglass {
                consumed[!color]
            } else {
                Duration::ZERO
            };
            let side = &mut clocks.sides[color];
            side.remaining = side
                .remaining
                .saturating_add(gained)
                .saturating_sub(consumed[color]);
            side.consumed = consumed[color];
        }
        clocks
    }

    /// The increment `color` gets after its next move.
    pub fn increment(&self, color: Color) -> Duration {
        match self.time_control.periods.get(self.sides[color].period) {
            Some(Period::Moves { increment, .. } | Period::SuddenDeath { increment, .. }) => {
                *increment
            }
            _ => Duration::ZERO,
        }
    }

    /// How many more moves `color` must make before the next period's time is added;
    /// `None` in sudden death, with an hourglass, or untimed.
    pub fn moves_to_go(&self, color: Color) -> Option<u32> {
        let side = &self.sides[color];
        match self.time_control.periods.get(side.period) {
            Some(Period::Moves { moves, .. }) => Some(moves - side.moves_in_period),
            _ => None,
        }
    }

    /// Adds `delta_ms` milliseconds to the time left for `color`, or removes them
    /// when negative (for the supervisor). The result saturates at zero. Consumed
    /// time is not changed, and in an untimed game this does nothing.
    pub fn adjust(&mut self, color: Color, delta_ms: i64) {
        if !self.time_control.is_timed() {
            return;
        }
        let side = &mut self.sides[color];
        let delta = Duration::from_millis(delta_ms.unsigned_abs());
        side.remaining = if delta_ms >= 0 {
            side.remaining.saturating_add(delta)
        } else {
            side.remaining.saturating_sub(delta)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(text: &str) -> TimeControl {
        text.parse()
            .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn ms(m: u64) -> Duration {
        Duration::from_millis(m)
    }

    #[test]
    fn parses_and_displays_every_kind() {
        let cases: &[(&str, &[Period])] = &[
            ("?", &[Period::Unknown]),
            ("-", &[Period::Untimed]),
            (
                "40/9000",
                &[Period::Moves {
                    moves: 40,
                    time: secs(9000),
                    increment: Duration::ZERO,
                }],
            ),
            (
                "300",
                &[Period::SuddenDeath {
                    time: secs(300),
                    increment: Duration::ZERO,
                }],
            ),
            (
                "4500+60",
                &[Period::SuddenDeath {
                    time: secs(4500),
                    increment: secs(60),
                }],
            ),
            ("*180", &[Period::Hourglass { time: secs(180) }]),
            (
                "40/9000:3600",
                &[
                    Period::Moves {
                        moves: 40,
                        time: secs(9000),
                        increment: Duration::ZERO,
                    },
                    Period::SuddenDeath {
                        time: secs(3600),
                        increment: Duration::ZERO,
                    },
                ],
            ),
            (
                "40/5400+30:1800+30",
                &[
                    Period::Moves {
                        moves: 40,
                        time: secs(5400),
                        increment: secs(30),
                    },
                    Period::SuddenDeath {
                        time: secs(1800),
                        increment: secs(30),
                    },
                ],
            ),
            (
                "40/7200:20/3600:900+30",
                &[
                    Period::Moves {
                        moves: 40,
                        time: secs(7200),
                        increment: Duration::ZERO,
                    },
                    Period::Moves {
                        moves: 20,
                        time: secs(3600),
                        increment: Duration::ZERO,
                    },
                    Period::SuddenDeath {
                        time: secs(900),
                        increment: secs(30),
                    },
                ],
            ),
            (
                "10+0.1",
                &[Period::SuddenDeath {
                    time: secs(10),
                    increment: ms(100),
                }],
            ),
            (
                "0.5+0.05",
                &[Period::SuddenDeath {
                    time: ms(500),
                    increment: ms(50),
                }],
            ),
            (
                "40/0.125+0.001",
                &[Period::Moves {
                    moves: 40,
                    time: ms(125),
                    increment: ms(1),
                }],
            ),
            ("*0.5", &[Period::Hourglass { time: ms(500) }]),
        ];
        for &(text, periods) in cases {
            let parsed = tc(text);
            assert_eq!(parsed.periods(), periods, "{text}");
            assert_eq!(parsed.to_string(), text);
            assert_eq!(tc(&parsed.to_string()), parsed);
        }
    }

    #[test]
    fn display_is_canonical() {
        for (text, canonical) in [
            ("300+0", "300"),
            ("40/9000+0:3600+0.000", "40/9000:3600"),
            ("10.000+0.100", "10+0.1"),
            ("007+01.50", "7+1.5"),
            ("1.20", "1.2"),
        ] {
            let parsed = tc(text);
            assert_eq!(parsed.to_string(), canonical, "{text}");
            assert_eq!(tc(canonical), parsed);
        }
    }

    #[test]
    fn is_timed_is_false_only_for_unknown_and_untimed() {
        assert!(!tc("?").is_timed());
        assert!(!tc("-").is_timed());
        for text in ["300", "40/9000", "4500+60", "*180", "40/9000:3600"] {
            assert!(tc(text).is_timed(), "{text}");
        }
    }

    #[test]
    fn rejects_malformed_text_with_an_error_naming_it() {
        use TimeControlErrorKind as K;
        let cases = [
            ("", K::EmptyPeriod),
            ("40/", K::InvalidSeconds(String::new())),
            ("+5", K::InvalidSeconds(String::new())),
            ("*", K::InvalidSeconds(String::new())),
            ("a", K::InvalidSeconds("a".into())),
            ("40/0", K::ZeroTime),
            ("0", K::ZeroTime),
            ("*0", K::ZeroTime),
            ("0+1", K::ZeroTime),
            ("0/300", K::ZeroMoves),
            ("/300", K::InvalidMoves(String::new())),
            ("x/300", K::InvalidMoves("x".into())),
            ("-1/300", K::InvalidMoves("-1".into())),
            ("99999999999/300", K::TooLarge("99999999999".into())),
            (
                "99999999999999999999",
                K::TooLarge("99999999999999999999".into()),
            ),
            ("18446744073709552", K::TooLarge("18446744073709552".into())),
            ("300+", K::InvalidSeconds(String::new())),
            ("300+a", K::InvalidSeconds("a".into())),
            ("300+5+5", K::InvalidSeconds("5+5".into())),
            ("10+0.0001", K::TooPrecise("0.0001".into())),
            ("1.2345", K::TooPrecise("1.2345".into())),
            ("1.", K::InvalidSeconds("1.".into())),
            (".5", K::InvalidSeconds(".5".into())),
            ("1.2.3", K::InvalidSeconds("1.2.3".into())),
            ("1e3", K::InvalidSeconds("1e3".into())),
            (" 300", K::InvalidSeconds(" 300".into())),
            ("300 ", K::InvalidSeconds("300 ".into())),
            ("40 /9000", K::InvalidMoves("40 ".into())),
            ("40/9000:", K::EmptyPeriod),
            (":300", K::EmptyPeriod),
            ("40/9000::300", K::EmptyPeriod),
            ("40/-5", K::InvalidSeconds("-5".into())),
            ("40/9000:?", K::NotAlone("?".into())),
            ("-:300", K::NotAlone("-".into())),
            ("40/9000:*180", K::NotAlone("*180".into())),
            ("*180:300", K::NotAlone("*180".into())),
            ("??", K::InvalidSeconds("??".into())),
            ("**180", K::InvalidSeconds("*180".into())),
            ("*180+5", K::InvalidSeconds("180+5".into())),
        ];
        for (text, kind) in cases {
            let err = text.parse::<TimeControl>().unwrap_err();
            assert_eq!(
                err,
                TimeControlError {
                    text: text.to_owned(),
                    kind
                },
                "{text:?}"
            );
            assert!(
                err.to_string()
                    .starts_with(&format!("invalid time control {text:?}: ")),
                "{err}"
            );
        }
        assert_eq!(
            "40/".parse::<TimeControl>().unwrap_err().to_string(),
            r#"invalid time control "40/": expected a number of seconds, found """#
        );
        assert_eq!(
            "10+0.0001".parse::<TimeControl>().unwrap_err().to_string(),
            r#"invalid time control "10+0.0001": more than three decimal places in "0.0001""#
        );
    }

    #[test]
    fn serializes_as_its_text() {
        let control = tc("40/5400+30:1800+30");
        let json = serde_json::to_string(&control).unwrap();
        assert_eq!(json, r#""40/5400+30:1800+30""#);
        assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), control);
        let err = serde_json::from_str::<TimeControl>(r#""40/""#).unwrap_err();
        assert!(err.to_string().contains("invalid time control"), "{err}");
    }

    #[test]
    fn both_sides_start_with_the_first_period() {
        let clocks = Clocks::new(&tc("40/9000:3600"));
        for color in Color::ALL {
            assert_eq!(clocks.remaining(color), Some(secs(9000)));
            assert_eq!(clocks.consumed(color), Duration::ZERO);
            assert_eq!(clocks.moves_made(color), 0);
        }
        assert_eq!(clocks.time_control(), &tc("40/9000:3600"));
    }

    #[test]
    fn untimed_clocks_only_count() {
        for text in ["?", "-"] {
            let mut clocks = Clocks::new(&tc(text));
            assert_eq!(clocks.remaining(Color::White), None);
            let charge = clocks.charge(Color::White, secs(100_000));
            assert_eq!(
                charge,
                Charge {
                    elapsed: secs(100_000),
                    remaining: None,
                    flagged: false
                }
            );
            clocks.charge(Color::White, secs(5));
            clocks.flag(Color::White);
            clocks.adjust(Color::White, 1000);
            assert_eq!(clocks.remaining(Color::White), None);
            assert_eq!(clocks.consumed(Color::White), secs(100_005));
            assert_eq!(clocks.moves_made(Color::White), 2);
            assert_eq!(clocks.moves_made(Color::Black), 0);
        }
    }

    #[test]
    fn period_changes_after_move_forty() {
        let mut clocks = Clocks::new(&tc("40/9000:3600"));
        for n in 1..=40 {
            let white = clocks.charge(Color::White, secs(100));
            let black = clocks.charge(Color::Black, secs(200));
            if n < 40 {
                assert_eq!(white.remaining, Some(secs(9000 - 100 * n)));
                assert_eq!(black.remaining, Some(secs(9000 - 200 * n)));
            }
        }
        assert_eq!(clocks.remaining(Color::White), Some(secs(5000 + 3600)));
        assert_eq!(clocks.remaining(Color::Black), Some(secs(1000 + 3600)));
        // The last period is sudden death, so nothing more is ever added.
        for _ in 0..40 {
            clocks.charge(Color::White, secs(10));
        }
        assert_eq!(clocks.remaining(Color::White), Some(secs(8600 - 400)));
        assert_eq!(clocks.moves_made(Color::White), 80);
        assert_eq!(clocks.moves_made(Color::Black), 40);
    }

    #[test]
    fn the_last_moves_period_repeats() {
        let mut clocks = Clocks::new(&tc("40/9000"));
        let mut expected = secs(9000);
        for n in 1..=120 {
            let charge = clocks.charge(Color::Black, secs(1));
            expected -= secs(1);
            if n % 40 == 0 {
                expected += secs(9000);
            }
            assert_eq!(charge.remaining, Some(expected), "move {n}");
        }
        assert_eq!(clocks.remaining(Color::Black), Some(secs(9000 * 4 - 120)));
        assert_eq!(clocks.remaining(Color::White), Some(secs(9000)));

        let mut clocks = Clocks::new(&tc("40/7200:20/3600:900"));
        for _ in 0..40 {
            clocks.charge(Color::White, Duration::ZERO);
        }
        assert_eq!(clocks.remaining(Color::White), Some(secs(7200 + 3600)));
        for _ in 0..20 {
            clocks.charge(Color::White, Duration::ZERO);
        }
        assert_eq!(
            clocks.remaining(Color::White),
            Some(secs(7200 + 3600 + 900))
        );
        for _ in 0..100 {
            clocks.charge(Color::White, Duration::ZERO);
        }
        assert_eq!(
            clocks.remaining(Color::White),
            Some(secs(7200 + 3600 + 900))
        );
    }

    #[test]
    fn each_period_adds_its_own_increment() {
        let mut clocks = Clocks::new(&tc("40/5400+30:1800+10"));
        for _ in 0..39 {
            clocks.charge(Color::White, secs(60));
        }
        // Each move costs 60 s and earns 30 s back.
        assert_eq!(clocks.remaining(Color::White), Some(secs(5400 - 39 * 30)));
        let charge = clocks.charge(Color::White, secs(60));
        assert_eq!(charge.remaining, Some(secs(5400 - 40 * 30 + 1800)));
        let charge = clocks.charge(Color::White, secs(60));
        assert_eq!(charge.remaining, Some(secs(6000 - 50)));
        assert_eq!(clocks.consumed(Color::White), secs(41 * 60));
    }

    #[test]
    fn fractional_increment_over_many_moves() {
        let mut clocks = Clocks::new(&tc("10+0.1"));
        for _ in 0..1000 {
            let charge = clocks.charge(Color::White, ms(95));
            assert!(!charge.flagged);
        }
        // Each move gains 5 ms; no rounding drift after a thousand moves.
        assert_eq!(clocks.remaining(Color::White), Some(secs(15)));
        assert_eq!(clocks.consumed(Color::White), secs(95));

        let mut clocks = Clocks::new(&tc("0.5+0.05"));
        let mut flagged_at = None;
        for n in 1..=100 {
            if clocks.charge(Color::Black, ms(60)).flagged {
                flagged_at = Some(n);
                break;
            }
        }
        // 500 ms shrinks by 10 ms a move: move 45 leaves 50 ms, move 46 needs 60.
        assert_eq!(flagged_at, Some(46));
        assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
    }

    #[test]
    fn a_flagged_charge_stops_at_zero_without_increment() {
        let mut clocks = Clocks::new(&tc("300+5"));
        let charge = clocks.charge(Color::White, secs(300));
        assert_eq!(
            charge,
            Charge {
                elapsed: secs(300),
                remaining: Some(secs(5)),
                flagged: false
            }
        );
        let charge = clocks.charge(Color::White, ms(5001));
        assert_eq!(
            charge,
            Charge {
                elapsed: ms(5001),
                remaining: Some(Duration::ZERO),
                flagged: true
            }
        );
        assert_eq!(clocks.remaining(Color::White), Some(Duration::ZERO));
        assert_eq!(clocks.consumed(Color::White), secs(305));
        assert_eq!(clocks.moves_made(Color::White), 2);
        assert_eq!(clocks.remaining(Color::Black), Some(secs(300)));
    }

    #[test]
    fn a_flagged_move_does_not_start_the_next_period() {
        let mut clocks = Clocks::new(&tc("1/10:3600"));
        let charge = clocks.charge(Color::White, secs(11));
        assert!(charge.flagged);
        assert_eq!(charge.remaining, Some(Duration::ZERO));
        assert_eq!(clocks.consumed(Color::White), secs(10));
    }

    #[test]
    fn hourglass_transfers_time_and_flags() {
        let mut clocks = Clocks::new(&tc("*180"));
        assert_eq!(clocks.remaining(Color::White), Some(secs(90)));
        assert_eq!(clocks.remaining(Color::Black), Some(secs(90)));
        let charge = clocks.charge(Color::White, secs(30));
        assert_eq!(charge.remaining, Some(secs(60)));
        assert!(!charge.flagged);
        assert_eq!(clocks.remaining(Color::Black), Some(secs(120)));
        clocks.charge(Color::Black, secs(10));
        assert_eq!(clocks.remaining(Color::White), Some(secs(70)));
        assert_eq!(clocks.remaining(Color::Black), Some(secs(110)));

        // A charge beyond the sand left flags and transfers only what was left.
        let charge = clocks.charge(Color::White, secs(100));
        assert!(charge.flagged);
        assert_eq!(charge.remaining, Some(Duration::ZERO));
        assert_eq!(clocks.remaining(Color::Black), Some(secs(180)));
        assert_eq!(clocks.consumed(Color::White), secs(100));

        // A flag fall empties the upper chamber into the other side.
        let mut clocks = Clocks::new(&tc("*181"));
        assert_eq!(clocks.remaining(Color::White), Some(ms(90_500)));
        clocks.charge(Color::White, ms(500));
        clocks.flag(Color::Black);
        assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
        assert_eq!(clocks.consumed(Color::Black), secs(91));
        assert_eq!(clocks.remaining(Color::White), Some(secs(181)));
    }

    #[test]
    fn flag_consumes_what_was_left() {
        let mut clocks = Clocks::new(&tc("40/9000"));
        clocks.charge(Color::Black, ms(1234));
        clocks.flag(Color::Black);
        assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
        assert_eq!(clocks.consumed(Color::Black), secs(9000));
        assert_eq!(clocks.remaining(Color::White), Some(secs(9000)));
        assert_eq!(clocks.moves_made(Color::Black), 1);
    }

    #[test]
    fn consumed_sums_every_charge() {
        let mut clocks = Clocks::new(&tc("2/60+1"));
        let times = [ms(1850), ms(12), ms(30_000), ms(999)];
        for &t in &times {
            clocks.charge(Color::White, t);
        }
        clocks.charge(Color::Black, ms(7));
        assert_eq!(
            clocks.consumed(Color::White),
            times.iter().sum::<Duration>()
        );
        assert_eq!(clocks.consumed(Color::Black), ms(7));
        // Time granted minus time consumed is time left: 60 + 60 + 60 + 4 increments.
        assert_eq!(
            clocks.remaining(Color::White),
            Some(secs(184) - times.iter().sum::<Duration>())
        );
    }

    #[test]
    fn clocks_rebuilt_from_consumed_time_match_the_referee_s() {
        let tc: TimeControl = "40/5400+30:1800+30".parse().unwrap();
        let mut referee = Clocks::new(&tc);
        for i in 0..45u64 {
            referee.charge(Color::White, Duration::from_millis(1000 + i));
            referee.charge(Color::Black, Duration::from_millis(2000 + i));
        }
        let rebuilt = Clocks::from_consumed(
            &tc,
            ByColor {
                white: 45,
                black: 45,
            },
            ByColor {
                white: referee.consumed(Color::White),
                black: referee.consumed(Color::Black),
            },
        );
        assert_eq!(
            rebuilt.remaining(Color::White),
            referee.remaining(Color::White)
        );
        assert_eq!(
            rebuilt.remaining(Color::Black),
            referee.remaining(Color::Black)
        );
        assert_eq!(
            rebuilt.moves_to_go(Color::White),
            None,
            "sudden death after move 40"
        );
        let early = Clocks::from_consumed(&tc, ByColor { white: 5, black: 4 }, ByColor::default());
        assert_eq!(early.moves_to_go(Color::White), Some(35));
        assert_eq!(rebuilt.increment(Color::White), Duration::from_secs(30));
        let glass: TimeControl = "*180".parse().unwrap();
        let rebuilt = Clocks::from_consumed(
            &glass,
            ByColor { white: 3, black: 2 },
            ByColor {
                white: Duration::from_secs(10),
                black: Duration::from_secs(4),
            },
        );
        assert_eq!(
            rebuilt.remaining(Color::White),
            Some(Duration::from_secs(84))
        );
        assert_eq!(
            rebuilt.remaining(Color::Black),
            Some(Duration::from_secs(96))
        );
        assert_eq!(rebuilt.moves_to_go(Color::Black), None);
    }

    #[test]
    fn adjust_adds_and_removes_time_saturating_at_zero() {
        let mut clocks = Clocks::new(&tc("300"));
        clocks.adjust(Color::White, 1500);
        assert_eq!(clocks.remaining(Color::White), Some(ms(301_500)));
        clocks.adjust(Color::White, -1);
        assert_eq!(clocks.remaining(Color::White), Some(ms(301_499)));
        clocks.adjust(Color::White, -1_000_000);
        assert_eq!(clocks.remaining(Color::White), Some(Duration::ZERO));
        clocks.adjust(Color::Black, i64::MIN);
        assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
        clocks.adjust(Color::Black, i64::MAX);
        clocks.adjust(Color::Black, i64::MAX);
        assert!(clocks.remaining(Color::Black) > Some(secs(1 << 40)));
        assert_eq!(clocks.consumed(Color::White), Duration::ZERO);
        assert_eq!(clocks.consumed(Color::Black), Duration::ZERO);
        assert!(clocks.charge(Color::White, ms(1)).flagged);
    }
}
