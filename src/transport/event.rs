//! What a line's threads report to the mediator (its events, with their port), and
//! the gate they stamp them behind.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::lines;
use crate::core::Port;

/// What happened on a line.
#[derive(Debug)]
pub enum LinkEvent {
    /// A line arrived; `at` is when its terminator was read.
    Line {
        /// When.
        at: Instant,
        /// The line without terminator.
        bytes: Vec<u8>,
    },
    /// A line an in-process client handed over with the record it was written from
    /// (`memory::ClientWriter::hand_over`); `at` is when it was handed over.
    Record {
        /// When.
        at: Instant,
        /// The line without terminator.
        bytes: Vec<u8>,
        /// The record `bytes` was written from, which reads back from it as it is.
        record: Box<crate::epd::Record>,
    },
    /// A line over the record limit was dropped.
    Overlong {
        /// When its terminator arrived.
        at: Instant,
        /// Its length.
        len: usize,
    },
    /// The oldest line not yet drained has left.
    Drained {
        /// When the drain completed.
        at: Instant,
        /// The conversation the line was sent in ([`super::Link::new_conversation`]):
        /// a drain of one before the line's last `Back { fresh: true }` is of a line
        /// the referee has already written off.
        conversation: u64,
    },
    /// The line failed.
    Lost {
        /// When.
        at: Instant,
        /// Why.
        error: String,
    },
    /// The line was reopened.
    Back {
        /// When.
        at: Instant,
        /// A new conversation: a new connection (a player that connected again), to
        /// which nothing queued for the old one is sent; the mediator starts the line's
        /// next conversation ([`super::Link::new_conversation`]) before it tells the
        /// referee. A serial line reopened is the same conversation: what the writer
        /// still owes goes out when it is back.
        fresh: bool,
    },
}

impl LinkEvent {
    /// What the line splitter cut, read at `at`.
    pub fn of_piece(piece: lines::Piece, at: Instant) -> LinkEvent {
        match piece {
            lines::Piece::Line(bytes) => LinkEvent::Line { at, bytes },
            lines::Piece::Overlong { len } => LinkEvent::Overlong { at, len },
        }
    }
}

/// A [`LinkEvent`] with the port it happened on.
#[derive(Debug)]
pub struct PortEvent {
    /// The port.
    pub port: Port,
    /// What happened.
    pub event: LinkEvent,
}

/// The mediator's gate on the stamping of its lines: whoever stamps a line (a line's
/// reader thread, a connection's router, a client writing to a direct line) takes the
/// stamp and hands the line to the mediator's channel holding the gate, and the mediator
/// passes the gate before it lets a flag fall ([`Gate::pass`]). Every line stamped
/// before the mediator passed is then in its channel: a reader delayed between its stamp
/// and its hand-over (a busy machine can hold a thread there for many milliseconds)
/// never makes a reply stamped before the flag arrive after it.
///
/// # Examples
///
/// ```
/// use argus::transport::Gate;
/// let gate = Gate::default();
/// let (tx, rx) = std::sync::mpsc::channel();
/// gate.stamp(|at| tx.send(at).unwrap());
/// gate.pass();
/// assert!(rx.try_recv().is_ok(), "stamped before the pass: handed over by then");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Gate(Arc<Mutex<()>>);

impl Gate {
    /// Takes the stamp (now) and runs `f` with it, holding the gate: `f` hands over
    /// what it stamped.
    pub fn stamp<T>(&self, f: impl FnOnce(Instant) -> T) -> T {
        let _held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        f(Instant::now())
    }

    /// Waits until nobody is between a stamp and its hand-over: every line stamped
    /// before this call is in the mediator's channel when it returns.
    pub fn pass(&self) {
        drop(self.0.lock().unwrap_or_else(PoisonError::into_inner));
    }
}
