//! Fuzz target `time_control`: a PGN TimeControl is read from the input up to its first
//! NUL byte; one that reads writes back to a text that reads as an equal control. The
//! bytes after the NUL then drive the two [`Clocks`] of that control through charges,
//! flag falls and supervisor adjustments, checking what the clocks promise after each
//! step. Overflow checks are on in fuzz builds, so an overflow is a panic too.

#![no_main]

use std::time::Duration;

use argus::core::clock::{Clocks, Period, TimeControl};
use libfuzzer_sys::fuzz_target;
use shakmaty::{ByColor, Color};

/// Above this, a clock may have saturated, and rebuilding it need not agree.
const HUGE: Duration = Duration::from_secs(1 << 62);

fuzz_target!(|data: &[u8]| {
    let (text, steps) = match data.iter().position(|&b| b == 0) {
        Some(nul) => (&data[..nul], &data[nul + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(tc) = text.parse::<TimeControl>() else {
        return;
    };
    let written = tc.to_string();
    let back: TimeControl = written
        .parse()
        .unwrap_or_else(|e| panic!("{written:?} (from {text:?}) does not read back: {e}"));
    assert_eq!(back, tc, "{written:?} reads back as another control");
    assert_eq!(back.to_string(), written);
    drive(&tc, steps);
});

/// Runs the clocks of `tc` through the steps that `bytes` encode, 5 bytes a step: an
/// opcode byte (its low bit the colour) and 4 bytes of milliseconds.
fn drive(tc: &TimeControl, bytes: &[u8]) {
    let hourglass = matches!(tc.periods(), [Period::Hourglass { .. }]);
    let mut clocks = Clocks::new(tc);
    let total = sum(&clocks);
    // Whether the clocks are still what replaying the moves with `from_consumed` gives.
    let mut rebuildable = true;
    for step in bytes.chunks(5) {
        let op = step[0];
        let color = if op & 1 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut raw = [0u8; 4];
        raw[..step.len() - 1].copy_from_slice(&step[1..]);
        let n = u32::from_le_bytes(raw);
        let consumed_before = clocks.consumed(color);
        match (op >> 1) % 4 {
            0 | 1 => {
                // Mostly short moves; now and then a huge one (a scale of up to 2^20).
                let scale = if op >> 3 == 0x1f { 1 << 20 } else { 1 };
                let elapsed = Duration::from_millis(u64::from(n) * scale);
                let left = clocks.remaining(color);
                let moves = clocks.moves_made(color);
                let charge = clocks.charge(color, elapsed);
                assert_eq!(charge.elapsed, elapsed);
                assert_eq!(charge.remaining.is_some(), tc.is_timed());
                assert_eq!(charge.flagged, left.is_some_and(|l| elapsed > l));
                assert_eq!(clocks.moves_made(color), moves.saturating_add(1));
                if charge.flagged {
                    assert_eq!(clocks.remaining(color), Some(Duration::ZERO));
                    rebuildable &= hourglass;
                }
            }
            2 => {
                clocks.flag(color);
                if tc.is_timed() {
                    assert_eq!(clocks.remaining(color), Some(Duration::ZERO));
                }
                rebuildable &= hourglass;
            }
            _ => {
                // What the supervisor's `clock a|b +-SECS` allows: a day either way.
                let delta = i64::from(n % 172_800_001) - 86_400_000;
                clocks.adjust(color, delta);
                rebuildable = false;
            }
        }
        assert!(
            clocks.consumed(color) >= consumed_before,
            "consumed time fell"
        );
        if let Some(to_go) = clocks.moves_to_go(color) {
            assert!(to_go >= 1, "a moves period with no move to go");
        }
        if hourglass && rebuildable {
            assert_eq!(sum(&clocks), total, "an hourglass lost or gained sand");
        }
        rebuildable &= [Color::White, Color::Black]
            .iter()
            .all(|&c| clocks.remaining(c).is_none_or(|r| r < HUGE));
    }
    if rebuildable {
        let moves = ByColor::new_with(|c| clocks.moves_made(c));
        let consumed = ByColor::new_with(|c| clocks.consumed(c));
        // Replaying is one charge a move: keep it short.
        if moves.white + moves.black < 10_000 {
            let rebuilt = Clocks::from_consumed(tc, moves, consumed);
            // What `cc` carries is the time; the overshoot count is a statistic of the
            // game's moves that the referee keeps apart (the standings' time use).
            assert_eq!(
                time_of(&rebuilt),
                time_of(&clocks),
                "the clocks rebuilt from cc differ"
            );
        }
    }
}

/// The time left on both clocks together.
fn sum(clocks: &Clocks) -> Option<Duration> {
    clocks
        .remaining(Color::White)?
        .checked_add(clocks.remaining(Color::Black)?)
}

/// Each side's time left, time consumed, moves made and moves to go.
fn time_of(clocks: &Clocks) -> [(Option<Duration>, Duration, u32, Option<u32>); 2] {
    [Color::White, Color::Black].map(|c| {
        (
            clocks.remaining(c),
            clocks.consumed(c),
            clocks.moves_made(c),
            clocks.moves_to_go(c),
        )
    })
}
