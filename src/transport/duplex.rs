//! An open line as its two halves, and how long one read of it waits.

use std::io::{Read, Write};
use std::time::Duration;

/// Both halves of an open line.
pub struct Duplex {
    /// Reads return `TimedOut` or `WouldBlock` when idle; that is not a failure.
    pub reader: Box<dyn Read + Send>,
    /// `flush()` returns once everything written has left.
    pub writer: Box<dyn Write + Send>,
}

/// How long a reader waits in one read before it looks at the stop flag again.
pub const READ_TIMEOUT: Duration = Duration::from_millis(50);
