//! The client's timings: when it signs on again, takes a stalled line as a record,
//! asks again for lost records, and reports noise.

use std::time::Duration;

/// How long a client waits to hear from the referee before it signs on again.
pub const SIGN_ON_AGAIN: Duration = Duration::from_secs(3);

/// How long part of a line from the referee may wait for more bytes before it is taken
/// as a record whose terminator noise changed (the referee writes whole lines).
pub const STALLED_LINE: Duration = Duration::from_millis(250);

/// How long a client waits for records it asked for again before it asks once more.
pub const ASK_AGAIN: Duration = Duration::from_millis(300);

/// The least time between two reports of noise from the referee (`refreq fault` with
/// "noise from the referee: ..."): a noisy line cannot make the client flood it.
pub const NOISE_REPORT_EVERY: Duration = Duration::from_secs(1);
