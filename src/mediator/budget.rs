//! What one port may add to its journal, and through the referee's notices to the log,
//! in a minute: every line the port was asked for, and of the lines it was not asked
//! for, [`UNASKED_LINES`] and [`UNASKED_BYTES`]. A line the referee sent (a `respond`,
//! say) gives the port a credit, which a request it sends (a line holding `refreq`)
//! spends; a line without a credit is unasked. Beyond the minute's allowance an unasked
//! line is dropped before anything sees it: not journaled and not judged, so that a
//! replay decides the same without it. The journal gets a `dropped` line for the minute
//! instead (how many, how many bytes, the first of them as a sample), and the log one
//! warning. A player that floods a TCP connection with noise costs the disk at most
//! about 64 KiB of journal a minute, and the log 120 warnings. The allowance holds for
//! `argus serve`'s connections only: a serial line's rate bounds what it can send
//! (9600 baud: 57,600 bytes a minute), and a reply that noise garbled on it must reach
//! the referee, which asks again.

use std::time::{Duration, Instant};

/// How long an allowance lasts.
pub const WINDOW: Duration = Duration::from_secs(60);
/// The lines a port may send in a [`WINDOW`] without being asked for them.
pub const UNASKED_LINES: usize = 120;
/// The bytes of those lines.
pub const UNASKED_BYTES: usize = 64 * 1024;
/// The credits a port may hold: lines sent to it that it has not answered yet.
const CREDITS: u32 = 16;
/// How much of the first line dropped in a window its `dropped` line keeps.
pub const SAMPLE: usize = 200;

/// What a window dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// When the first was dropped.
    pub first: Instant,
    /// When the last was.
    pub last: Instant,
    /// How many lines.
    pub lines: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The first line's first [`SAMPLE`] bytes (none for a line over the record limit,
    /// which the transport never kept).
    pub sample: Vec<u8>,
}

/// Whether a line is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Journaled and judged.
    Take,
    /// Dropped; `first` when it is the window's first.
    Drop {
        /// The first dropped in its window.
        first: bool,
    },
}

/// One port's allowance.
#[derive(Debug, Default)]
pub struct Budget {
    since: Option<Instant>,
    credits: u32,
    lines: usize,
    bytes: usize,
    dropped: Option<Dropped>,
}

impl Budget {
    /// A line was sent to the port: one request of its may answer it.
    pub fn sent(&mut self) {
        self.credits = (self.credits + 1).min(CREDITS);
    }

    /// Ends the window if it is over at `at`, giving back what it dropped.
    pub fn roll(&mut self, at: Instant) -> Option<Dropped> {
        match self.since {
            Some(since) if at.saturating_duration_since(since) < WINDOW => None,
            _ => {
                self.since = Some(at);
                self.lines = 0;
                self.bytes = 0;
                self.dropped.take()
            }
        }
    }

    /// What the window has dropped so far (at the session's end).
    pub fn take(&mut self) -> Option<Dropped> {
        self.dropped.take()
    }

    /// Whether the line `line` (or, over the record limit, `len` bytes the transport
    /// did not keep), read at `at`, is taken. Call [`Budget::roll`] first.
    pub fn judge(&mut self, at: Instant, len: usize, line: Option<&[u8]>) -> Verdict {
        let request = line.is_some_and(|l| l.windows(6).any(|w| w == b"refreq"));
        if request && self.credits > 0 {
            self.credits -= 1;
            return Verdict::Take;
        }
        if self.lines < UNASKED_LINES && self.bytes + len <= UNASKED_BYTES {
            self.lines += 1;
            self.bytes += len;
            return Verdict::Take;
        }
        let first = self.dropped.is_none();
        let dropped = self.dropped.get_or_insert_with(|| Dropped {
            first: at,
            last: at,
            lines: 0,
            bytes: 0,
            sample: line.map_or_else(Vec::new, |l| l[..l.len().min(SAMPLE)].to_vec()),
        });
        dropped.last = at;
        dropped.lines += 1;
        dropped.bytes += len as u64;
        Verdict::Drop { first }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Noise is taken up to the minute's allowance and dropped past it; a reply to a
    /// line sent is taken all the same, and the next minute starts afresh with what the
    /// last one dropped given back once.
    #[test]
    fn unasked_lines_are_taken_up_to_the_allowance_and_replies_always() {
        let t0 = Instant::now();
        let mut budget = Budget::default();
        assert_eq!(budget.roll(t0), None);
        let noise = vec![b'x'; 100];
        for _ in 0..UNASKED_LINES {
            assert_eq!(budget.judge(t0, noise.len(), Some(&noise)), Verdict::Take);
        }
        assert_eq!(
            budget.judge(t0, noise.len(), Some(&noise)),
            Verdict::Drop { first: true }
        );
        assert_eq!(budget.judge(t0, 5000, None), Verdict::Drop { first: false });
        // A request without a credit is unasked; with one, taken.
        let reply = b"8/8/8/8/8/8/8/K1k5 w - - refreq reply; sm Kb1;";
        assert_eq!(
            budget.judge(t0, reply.len(), Some(reply)),
            Verdict::Drop { first: false }
        );
        budget.sent();
        assert_eq!(budget.judge(t0, reply.len(), Some(reply)), Verdict::Take);
        // Within the minute nothing is given back; after it, what was dropped.
        assert_eq!(budget.roll(t0 + Duration::from_secs(59)), None);
        let dropped = budget.roll(t0 + WINDOW).expect("the minute dropped lines");
        assert_eq!(
            (dropped.lines, dropped.bytes),
            (3, 100 + 5000 + reply.len() as u64)
        );
        assert_eq!(dropped.sample, noise);
        assert_eq!(
            budget.judge(t0 + WINDOW, noise.len(), Some(&noise)),
            Verdict::Take
        );
        assert_eq!(budget.take(), None);
    }

    /// The bytes are capped as well as the lines: long noise lines fill the allowance
    /// sooner.
    #[test]
    fn long_lines_spend_the_bytes() {
        let t0 = Instant::now();
        let mut budget = Budget::default();
        budget.roll(t0);
        let long = vec![b'y'; 4000];
        let taken = (0..UNASKED_LINES)
            .take_while(|_| budget.judge(t0, long.len(), Some(&long)) == Verdict::Take)
            .count();
        assert_eq!(taken, UNASKED_BYTES / 4000);
        assert_eq!(budget.take().map(|d| d.sample.len()), Some(SAMPLE));
    }
}
