//! The game as the client follows it from the referee's records: the position, the
//! moves, the time control from `inform`, and the clocks rebuilt for the engine.

use std::io::{self, Write};
use std::time::Duration;

use shakmaty::{ByColor, Chess, Color, EnPassantMode, Move, Position};

use super::engine::TurnClocks;
use crate::core::clock::{Clocks, TimeControl};
use crate::core::referee::command_record;
use crate::epd::{Operand, Record, resolve_move};
use crate::mediator::Eol;

pub(super) struct State {
    pub(super) start: Chess,
    pub(super) pos: Chess,
    pub(super) moves: Vec<Move>,
    /// The id of `moves`' history (see [`Turn::history`](super::Turn::history)): a new
    /// one, never used before in the process, whenever they start again.
    pub(super) history: u64,
    /// Each side's time control, from `inform`'s `TimeControl` (both), or its
    /// `WhiteTimeControl` and `BlackTimeControl` in a game with time odds.
    pub(super) time_control: ByColor<Option<TimeControl>>,
    /// Whether the game's `inform` came after its `reset`: without it the client does
    /// not know the time control (nor the names).
    pub(super) informed: bool,
    pub(super) result: Option<String>,
    /// The ply number (from the move numbers) of the game's start, set by `reset`.
    pub(super) first_ply: u32,
    /// The time this client has spent on its own moves in this game, by its own watch.
    pub(super) own_used: Duration,
    /// The most its side can have used before its watch began, set at its first
    /// respond of the game: nothing at a game's start, more after a resynchronisation
    /// mid-game (see [`State::clocks`]).
    pub(super) unwatched: Option<Duration>,
    /// The players' names, from `inform`'s White and Black tags.
    pub(super) names: ByColor<Option<String>>,
    /// The colour this client was asked to move for in this game.
    pub(super) me: Option<Color>,
    /// What this client's last reply said besides a move, when it ended the game or may
    /// have (`resigned`, `accepted a draw`, `claimed a draw`).
    pub(super) last_word: Option<&'static str>,
    /// The game's variant, from its `reset`.
    pub(super) variant: crate::core::Variant,
}

/// A history id never given before in this process (never 0).
fn new_history() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The ply number of `pos` from its move numbers: 0 at the standard start.
pub(super) fn ply(pos: &Chess) -> u32 {
    2 * (pos.fullmoves().get() - 1) + u32::from(pos.turn() == Color::Black)
}

impl State {
    pub(super) fn new() -> State {
        State {
            start: Chess::default(),
            pos: Chess::default(),
            moves: Vec::new(),
            history: new_history(),
            time_control: ByColor::default(),
            informed: false,
            result: None,
            first_ply: 0,
            own_used: Duration::ZERO,
            unwatched: None,
            names: ByColor::default(),
            me: None,
            last_word: None,
            variant: crate::core::Variant::Standard,
        }
    }

    /// Takes the record's position, with its `sm` applied, as current: keeps the
    /// history when it is the position already held, else starts a new history from it
    /// (EPD spec 8.1). A record that cannot be reconciled (an impossible position, a
    /// move that is not legal in it) changes nothing and is an error: the client never
    /// plays on from a board that is not the referee's.
    pub(super) fn follow(&mut self, rec: &Record) -> Result<(), String> {
        let setup = rec.setup();
        // The position already held (the usual case, every ply): it is not set up and
        // checked again. Its en passant square as the referee writes it (shakmaty's
        // `Always`) must match too, or the record goes the long way and is judged there.
        let pos = if setup == self.pos.to_setup(EnPassantMode::Always) {
            None
        } else {
            Some(
                setup
                    .position::<Chess>(self.variant.castling_mode())
                    .map_err(|e| format!("an impossible position ({}): {e}", rec.position))?,
            )
        };
        let sm = match rec
            .operands("sm")
            .and_then(|o| o.first())
            .map(|op| op.as_move_text().or(op.as_str()).unwrap_or_default())
        {
            Some(text) => Some(
                resolve_move(pos.as_ref().unwrap_or(&self.pos), text)
                    .map_err(|e| format!("a move that does not fit its position ({text}): {e}"))?,
            ),
            None => None,
        };
        if let Some(pos) = pos.filter(|pos| !same(pos, &self.pos)) {
            self.start = pos.clone();
            self.pos = pos;
            self.moves.clear();
            self.history = new_history();
        }
        if let Some(m) = sm {
            self.pos.play_unchecked(m);
            self.moves.push(m);
        }
        Ok(())
    }

    /// The tags of an `inform`: the time control, and the result once it is known.
    pub(super) fn inform(&mut self, rec: &Record) {
        self.informed = true;
        let Some(ops) = rec.operands("ptp") else {
            return;
        };
        let parse = |value: Option<&str>| -> Option<TimeControl> {
            value.and_then(|v| match v.parse() {
                Ok(tc) => Some(tc),
                Err(e) => {
                    log::warn!("the referee's time control: {e}");
                    None
                }
            })
        };
        // Each side's own (time odds) wins over the match's, whatever their order. Their
        // names are longer than an EPD identifier: they read as tokens.
        let mut odds: ByColor<Option<TimeControl>> = ByColor::default();
        for pair in ops.chunks(2) {
            let [tag, value] = pair else { continue };
            let value = value.as_str();
            match tag.as_move_text() {
                Some("TimeControl") => {
                    let tc = parse(value);
                    self.time_control = ByColor {
                        white: tc.clone(),
                        black: tc,
                    };
                }
                Some("WhiteTimeControl") => odds.white = parse(value),
                Some("BlackTimeControl") => odds.black = parse(value),
                Some("Result") => self.result = value.filter(|v| *v != "*").map(str::to_string),
                Some("White") => self.names.white = value.map(str::to_string),
                Some("Black") => self.names.black = value.map(str::to_string),
                _ => {}
            }
        }
        for color in [Color::White, Color::Black] {
            if let Some(tc) = odds[color].take() {
                self.time_control[color] = Some(tc);
            }
        }
    }

    /// The clocks before the side to move moves, from the time control and `cc`.
    ///
    /// `cc` is truncated to whole seconds, so the player's own consumption is taken as
    /// the larger of `cc` and what the client measured itself (from each respond's
    /// arrival to its reply's departure): an engine is never told it has time that the
    /// referee has already charged. A client resynchronised mid-game (after it or the
    /// referee restarted) did not watch its side's earlier moves: their time is taken
    /// as the most the first `cc` it sees allows, that `cc` and 999 ms.
    pub(super) fn clocks(&mut self, rec: &Record) -> Option<TurnClocks> {
        let (Some(white_tc), Some(black_tc)) = (&self.time_control.white, &self.time_control.black)
        else {
            return None;
        };
        if !white_tc.is_timed() || !black_tc.is_timed() {
            return None;
        }
        let mut consumed = match rec.operands("cc")? {
            [Operand::Clock(w), Operand::Clock(b)] => ByColor {
                white: w.to_duration(),
                black: b.to_duration(),
            },
            _ => return None,
        };
        let me = self.pos.turn();
        // Moves made by each side since the game's start, from the move numbers (which
        // survive a history the client had to start afresh).
        let made = |color: Color| {
            let plies = self.first_ply..ply(&self.pos);
            u32::try_from(
                plies
                    .filter(|p| (p % 2 == 0) == (color == Color::White))
                    .count(),
            )
            .unwrap_or(u32::MAX)
        };
        let unwatched = match self.unwatched {
            Some(unwatched) => unwatched,
            None if made(me) == 0 => Duration::ZERO,
            None => consumed[me] + Duration::from_millis(999),
        };
        self.unwatched = Some(unwatched);
        consumed[me] = consumed[me].max(unwatched + self.own_used);
        let clocks = Clocks::from_consumed_with_odds(
            Clocks::with_odds(white_tc, black_tc),
            ByColor {
                white: made(Color::White),
                black: made(Color::Black),
            },
            consumed,
        );
        Some(TurnClocks {
            remaining: ByColor {
                white: clocks.remaining(Color::White).unwrap_or_default(),
                black: clocks.remaining(Color::Black).unwrap_or_default(),
            },
            increment: ByColor {
                white: clocks.increment(Color::White),
                black: clocks.increment(Color::Black),
            },
            moves_to_go: clocks.moves_to_go(self.pos.turn()),
        })
    }
}

pub(super) fn same(a: &Chess, b: &Chess) -> bool {
    a.board() == b.board()
        && a.turn() == b.turn()
        && a.castles().castling_rights() == b.castles().castling_rights()
        && a.ep_square(EnPassantMode::Legal) == b.ep_square(EnPassantMode::Legal)
        && a.halfmoves() == b.halfmoves()
        && a.fullmoves() == b.fullmoves()
}

/// A record of `pos` with the given `refreq`.
pub(super) fn record(pos: &Chess, refreq: &str) -> Record {
    command_record(pos, "refreq", refreq, None)
}

pub(super) fn write_line(w: &mut dyn Write, text: &str, eol: Eol) -> io::Result<()> {
    let mut line = Vec::with_capacity(text.len() + eol.bytes().len());
    line.extend_from_slice(text.as_bytes());
    line.extend_from_slice(eol.bytes());
    let mut buf = &line[..];
    while !buf.is_empty() {
        match w.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(text: &str) -> Record {
        Record::from_ascii(text.as_bytes()).unwrap()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn time_odds_give_each_side_its_own_clock() {
        let mut state = State::new();
        state.inform(&rec(&format!(
            "{START} ptp White \"A\" Black \"B\" BlackTimeControl \"30+1\" WhiteTimeControl \"60+2\"; refcom inform;"
        )));
        assert!(state.time_control.white.is_some() && state.time_control.black.is_some());
        let respond = rec(&format!(
            "{START} cc 000:00:00:00 000:00:00:00; refcom respond;"
        ));
        assert!(respond.operands("cc").is_some(), "{respond}");
        let clocks = state.clocks(&respond).unwrap();
        assert_eq!(clocks.remaining.white, Duration::from_secs(60));
        assert_eq!(clocks.remaining.black, Duration::from_secs(30));
        assert_eq!(clocks.increment.white, Duration::from_secs(2));
        assert_eq!(clocks.increment.black, Duration::from_secs(1));
        // One side's alone is not a time control to play on.
        let mut half = State::new();
        half.inform(&rec(&format!(
            "{START} ptp WhiteTimeControl \"60+2\"; refcom inform;"
        )));
        // After the match's TimeControl, each side's own wins.
        let mut both = State::new();
        both.inform(&rec(&format!(
            "{START} ptp TimeControl \"60\" WhiteTimeControl \"60\" BlackTimeControl \"30\"; refcom inform;"
        )));
        assert_eq!(both.time_control.black, Some("30".parse().unwrap()));
        assert!(
            half.clocks(&rec(&format!(
                "{START} cc 000:00:00:00 000:00:00:00; refcom respond;"
            )))
            .is_none()
        );
    }

    /// A client resynchronised mid-game did not watch its side's earlier moves: their
    /// time is the most `cc` allows (its whole seconds and 999 ms), and the time it
    /// watches itself comes on top. A client there from the start trusts its watch.
    #[test]
    fn a_client_resynchronised_mid_game_counts_the_time_it_did_not_watch_at_its_most() {
        let inform = rec(&format!(
            "{START} ptp White \"A\" Black \"B\" TimeControl \"60\"; refcom inform;"
        ));
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3";
        let respond = |cc: &str| {
            rec(&format!(
                "{after_e4} cc {cc}; fmvn 1; hmvc 0; refcom respond; sm e5;"
            ))
        };
        // Resynchronised: reset at the start, White's 1. e4 executed, then the respond.
        let mut state = State::new();
        state
            .follow(&rec(&format!("{START} refcom reset;")))
            .unwrap();
        state.first_ply = ply(&state.pos);
        state.inform(&inform);
        state
            .follow(&rec(&format!(
                "{START} fmvn 1; hmvc 0; refcom execute; sm e4;"
            )))
            .unwrap();
        let first = respond("000:00:00:05 000:00:00:03");
        state.follow(&first).unwrap();
        let clocks = state.clocks(&first).unwrap();
        assert_eq!(clocks.remaining.white, Duration::from_millis(54_001));
        assert_eq!(clocks.remaining.black, Duration::from_secs(57));
        // Its own watch adds to that, and the bound is not taken again from a later cc.
        state.own_used = Duration::from_millis(1_500);
        let later = respond("000:00:00:06 000:00:00:04");
        let clocks = state.clocks(&later).unwrap();
        assert_eq!(clocks.remaining.white, Duration::from_millis(52_501));
        // A client there from the start: nothing unwatched, cc and its watch as before.
        let mut fresh = State::new();
        fresh.inform(&inform);
        let clocks = fresh
            .clocks(&rec(&format!(
                "{START} cc 000:00:00:00 000:00:00:00; refcom respond;"
            )))
            .unwrap();
        assert_eq!(clocks.remaining.white, Duration::from_secs(60));
        assert_eq!(fresh.unwatched, Some(Duration::ZERO));
    }
}
