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
use smallvec::SmallVec;

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
    /// A fixed time for every move, what is left of it lost when the move is made
    /// (`0.5/move`: fastchess's and cutechess-cli's `st=`, and the form their PGN
    /// TimeControl tags take; not a PGN form).
    PerMove {
        /// The time for each move.
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
    /// Held inline up to two periods (nearly every time control), so that a copy of the
    /// clocks, which a client makes every move, allocates nothing.
    periods: SmallVec<[Period; 2]>,
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
    /// Accepted are `?`, `-`, `*S`, `S/move`, `S`, `S+I`, `M/S` and `M/S+I`, and several
    /// of the last four joined by `:`. `M` is a positive whole number of moves; `S` is a
    /// positive number of seconds and `I` a number of seconds that may be zero, each
    /// written as digits with optionally a point and one to three more digits. No
    /// whitespace, sign or exponent is accepted anywhere.
    ///
    /// # Errors
    ///
    /// Returns a [`TimeControlError`] naming the text when it is empty, when a field
    /// is malformed, when a number is zero where a positive one is needed, too large
    /// or finer than a millisecond, and when `?`, `-`, an hourglass or a time per move
    /// is combined with other periods.
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let error = |kind| TimeControlError {
            text: text.to_owned(),
            kind,
        };
        let periods = text
            .split(':')
            .map(parse_period)
            .collect::<Result<SmallVec<[Period; 2]>, _>>()
            .map_err(error)?;
        if periods.len() > 1 {
            let fields = text.split(':');
            for (period, field) in periods.iter().zip(fields) {
                if matches!(
                    period,
                    Period::Unknown
                        | Period::Untimed
                        | Period::Hourglass { .. }
                        | Period::PerMove { .. }
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
            } else if let Some(seconds) = field.strip_suffix("/move") {
                let time = parse_positive_seconds(seconds)?;
                Ok(Period::PerMove { time })
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
            Period::PerMove { time } => {
                write_seconds(f, time)?;
                f.write_str("/move")
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
    /// The moves that took longer than the time that was left.
    overshoots: u32,
}

impl Side {
    /// Credits `n` moves made in time: each move's increment, and the next period's
    /// time when a moves period is complete (the last period repeats). A period at a
    /// time, so that many moves cost no more than one.
    fn credit_moves(&mut self, periods: &[Period], mut n: u32) {
        while n > 0 {
            match periods[self.period] {
                Period::Moves {
                    moves, increment, ..
                } => {
                    // The moves up to the period's end, at most: its last move adds the
                    // next period's time.
                    let k = n.min(moves.saturating_sub(self.moves_in_period).max(1));
                    self.remaining = self.remaining.saturating_add(increment.saturating_mul(k));
                    self.moves_in_period += k;
                    n -= k;
                    if self.moves_in_period >= moves {
                        self.period = (self.period + 1).min(periods.len() - 1);
                        self.moves_in_period = 0;
                        let next = match periods[self.period] {
                            Period::Moves { time, .. } | Period::SuddenDeath { time, .. } => time,
                            Period::Hourglass { .. }
                            | Period::PerMove { .. }
                            | Period::Unknown
                            | Period::Untimed => Duration::ZERO,
                        };
                        self.remaining = self.remaining.saturating_add(next);
                    }
                }
                Period::SuddenDeath { increment, .. } => {
                    self.remaining = self.remaining.saturating_add(increment.saturating_mul(n));
                    n = 0;
                }
                // What was left of the move's time is lost; the next has it whole.
                Period::PerMove { time } => {
                    self.remaining = time;
                    n = 0;
                }
                Period::Hourglass { .. } | Period::Unknown | Period::Untimed => n = 0,
            }
        }
    }
}

/// The two clocks of a game under one time control, indexed by [`Color`].
///
/// Each side starts with the time of the first period (with an hourglass, half of
/// it). Moves are counted per side, so a side that completes a moves period gets the
/// next period's time regardless of which side moved first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// The time control of each side: the same for both, unless the event gives one
    /// side odds (`argus serve`'s per-engine `tc=`).
    tcs: ByColor<TimeControl>,
    sides: ByColor<Side>,
    /// How far past its time each side may move and not be flagged.
    margin: ByColor<Duration>,
}

impl Clocks {
    /// Sets both clocks to the start of `tc`.
    pub fn new(tc: &TimeControl) -> Clocks {
        Clocks::with_odds(tc, tc)
    }

    /// Sets White's clock to the start of `white` and Black's to the start of `black`
    /// (time odds). An hourglass is shared sand: it goes only with itself on both
    /// sides (the referee's settings check it).
    pub fn with_odds(white: &TimeControl, black: &TimeControl) -> Clocks {
        let start = |tc: &TimeControl| {
            let remaining = match tc.periods.first() {
                Some(
                    Period::Moves { time, .. }
                    | Period::SuddenDeath { time, .. }
                    | Period::PerMove { time },
                ) => *time,
                Some(Period::Hourglass { time }) => *time / 2,
                Some(Period::Unknown | Period::Untimed) | None => Duration::ZERO,
            };
            Side {
                remaining,
                ..Side::default()
            }
        };
        Clocks {
            tcs: ByColor {
                white: white.clone(),
                black: black.clone(),
            },
            sides: ByColor {
                white: start(white),
                black: start(black),
            },
            margin: ByColor::default(),
        }
    }

    /// Whether the game is played with the clocks running, as White's time control
    /// says (both sides' are timed or neither's: the referee's settings check it).
    fn timed(&self) -> bool {
        self.tcs.white.is_timed()
    }

    /// Whether the time control is an hourglass.
    fn hourglass(&self) -> bool {
        matches!(
            self.tcs.white.periods.first(),
            Some(Period::Hourglass { .. })
        )
    }

    /// Forgives `color` moves up to `margin` past its time (cutechess-cli's
    /// `timemargin`): such a move is not flagged, and only the time that was left is
    /// consumed (the clock stands at zero before the increment).
    pub fn set_margin(&mut self, color: Color, margin: Duration) {
        self.margin[color] = margin;
    }

    /// How long `color` may take over its move (its clock not running) and not be
    /// flagged: the time it has left and its margin; `None` when the game is untimed.
    pub fn allowed(&self, color: Color) -> Option<Duration> {
        self.remaining(color)
            .map(|left| left.saturating_add(self.margin[color]))
    }

    /// How many of `color`'s moves took longer than the time it had left (forgiven by
    /// its margin, or flagged).
    pub fn overshoots(&self, color: Color) -> u32 {
        self.sides[color].overshoots
    }

    /// Returns the time control `color`'s clock runs under.
    pub fn time_control(&self, color: Color) -> &TimeControl {
        &self.tcs[color]
    }

    /// Returns the time left for `color` right now (its clock not running); `None`
    /// when the game is untimed.
    pub fn remaining(&self, color: Color) -> Option<Duration> {
        self.timed().then_some(self.sides[color].remaining)
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
        let timed = self.timed();
        let hourglass = self.hourglass();
        let periods = &self.tcs[color].periods;
        let margin = self.margin[color];
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
        if elapsed > left {
            side.overshoots += 1;
        }
        // As [`Clocks::allowed`] says.
        let flagged = elapsed > left.saturating_add(margin);
        let used = elapsed.min(left);
        side.remaining = left - used;
        side.consumed = side.consumed.saturating_add(used);
        let remaining = if flagged {
            side.remaining
        } else {
            side.credit_moves(periods, 1);
            side.remaining
        };
        if hourglass {
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
        if !self.timed() {
            return;
        }
        let hourglass = self.hourglass();
        let side = &mut self.sides[color];
        let left = std::mem::take(&mut side.remaining);
        side.consumed = side.consumed.saturating_add(left);
        if hourglass {
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
        Clocks::from_consumed_with_odds(Clocks::new(tc), moves, consumed)
    }

    /// [`Clocks::from_consumed`] for a game with time odds: `clocks` are the game's at
    /// its start ([`Clocks::with_odds`]).
    pub fn from_consumed_with_odds(
        mut clocks: Clocks,
        moves: ByColor<u32>,
        consumed: ByColor<Duration>,
    ) -> Clocks {
        for color in [Color::White, Color::Black] {
            clocks.charge_free_moves(color, moves[color]);
        }
        let hourglass = clocks.hourglass();
        for color in [Color::White, Color::Black] {
            let gained = if hourglass {
                consumed[!color]
            } else {
                Duration::ZERO
            };
            let per_move = match clocks.tcs[color].periods.first() {
                Some(Period::PerMove { time }) => Some(*time),
                _ => None,
            };
            let side = &mut clocks.sides[color];
            // A time per move is whole at each turn, whatever went before.
            side.remaining = per_move.unwrap_or_else(|| {
                side.remaining
                    .saturating_add(gained)
                    .saturating_sub(consumed[color])
            });
            side.consumed = consumed[color];
        }
        clocks
    }

    /// As `n` moves charged with no time ([`Clocks::charge`] with zero), a period at a
    /// time rather than a move at a time: the client rebuilds the clocks every move, and
    /// a game's rebuilds would otherwise cost the square of its length.
    fn charge_free_moves(&mut self, color: Color, n: u32) {
        let timed = self.timed();
        let periods = &self.tcs[color].periods;
        let side = &mut self.sides[color];
        side.moves = side.moves.saturating_add(n);
        if !timed {
            return;
        }
        side.credit_moves(periods, n);
    }

    /// The increment `color` gets after its next move.
    pub fn increment(&self, color: Color) -> Duration {
        match self.tcs[color].periods.get(self.sides[color].period) {
            Some(Period::Moves { increment, .. } | Period::SuddenDeath { increment, .. }) => {
                *increment
            }
            _ => Duration::ZERO,
        }
    }

    /// How many more moves `color` must make before the next period's time is added;
    /// `None` in sudden death, with an hourglass, or untimed; 1 with a time per move
    /// (its time is for this move alone).
    pub fn moves_to_go(&self, color: Color) -> Option<u32> {
        let side = &self.sides[color];
        match self.tcs[color].periods.get(side.period) {
            Some(Period::Moves { moves, .. }) => Some(moves - side.moves_in_period),
            Some(Period::PerMove { .. }) => Some(1),
            _ => None,
        }
    }

    /// Adds `delta_ms` milliseconds to the time left for `color`, or removes them
    /// when negative (for the supervisor). The result saturates at zero. Consumed
    /// time is not changed, and in an untimed game this does nothing.
    pub fn adjust(&mut self, color: Color, delta_ms: i64) {
        if !self.timed() {
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
mod tests;
