//! Lines stamped by the thread that takes their bytes off a socket: `argus serve`'s
//! connections, whose one reader thread each (the registry's router) outlives the
//! games. The router splits and stamps what it reads as it reads it, and hands each
//! line straight to the game's mediator: no second thread and no channel of bytes stand
//! between the socket and the stamp, so that a referee busy with other games never
//! charges a player for its own queueing, and a reply read before a flag falls is in
//! the mediator's channel when the flag's timer looks.

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};

use super::event::{Gate, LinkEvent, PortEvent};
use crate::core::Port;

/// A stamped line: the reading side, which the router feeds ([`Feed`]), and a writer.
pub struct Stamped {
    /// Where the router's lines go.
    pub lines: StampedLines,
    /// Writes go straight to the socket.
    pub writer: Box<dyn Write + Send>,
}

/// Where a router's lines go: held until the mediator attaches, then to its channel,
/// and nowhere once the game has let go.
enum Inbox {
    Waiting(Vec<LinkEvent>),
    Live {
        port: Port,
        events: Sender<PortEvent>,
        /// The mediator's gate, behind which the lines are stamped.
        gate: Gate,
    },
    Closed,
}

fn lock(inbox: &Mutex<Inbox>) -> MutexGuard<'_, Inbox> {
    inbox.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The router's end: it delivers the lines it stamped. Dropping it is the connection's
/// end for the game ([`Feed::end`] says why).
pub struct Feed {
    inbox: Arc<Mutex<Inbox>>,
    why: Arc<Mutex<Option<String>>>,
    _open: Sender<()>,
}

/// The game's end: attached to the mediator's channel by the line's thread, which also
/// waits on it for the connection's end.
pub struct StampedLines {
    inbox: Arc<Mutex<Inbox>>,
    why: Arc<Mutex<Option<String>>>,
    closed: Receiver<()>,
    unread: Option<Unread>,
}

/// Whether bytes of a connection have arrived that its router has not read yet (the
/// router busy with other connections): the mediator waits a moment for them before
/// it lets a flag fall ([`StampedLines::with_unread`]).
pub type Unread = Arc<dyn Fn() -> bool + Send + Sync>;

/// A router's feed and the game's end of it.
///
/// # Examples
///
/// ```
/// use std::time::Instant;
/// use argus::transport::{LinkEvent, stamped};
/// let (feed, lines) = stamped::channel();
/// let at = Instant::now();
/// assert!(feed.deliver(LinkEvent::Line { at, bytes: b"refreq sign_on".to_vec() }).is_ok());
/// let (tx, events) = crossbeam_channel::unbounded();
/// lines.attach(argus::core::Port::A, &tx);
/// assert!(matches!(events.try_recv().unwrap().event, LinkEvent::Line { at: a, .. } if a == at));
/// assert!(lines.closed().try_recv().is_err_and(|e| e.is_empty()));
/// drop(feed);
/// assert!(lines.closed().try_recv().is_err_and(|e| e.is_disconnected()));
/// ```
pub fn channel() -> (Feed, StampedLines) {
    let inbox = Arc::new(Mutex::new(Inbox::Waiting(Vec::new())));
    let why = Arc::new(Mutex::new(None));
    let (open, closed) = crossbeam_channel::bounded(0);
    (
        Feed {
            inbox: Arc::clone(&inbox),
            why: Arc::clone(&why),
            _open: open,
        },
        StampedLines {
            inbox,
            why,
            closed,
            unread: None,
        },
    )
}

impl Feed {
    /// The connection's end for the game, and `why` it ended (what the game's line
    /// reports as its loss).
    pub fn end(self, why: String) {
        *self.why.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
    }

    /// Hands over a line (or an overlong line's notice) as stamped.
    ///
    /// # Errors
    ///
    /// The event back, once the game has let go of its end.
    pub fn deliver(&self, event: LinkEvent) -> Result<(), LinkEvent> {
        match &mut *lock(&self.inbox) {
            Inbox::Waiting(held) => {
                held.push(event);
                Ok(())
            }
            Inbox::Live { port, events, .. } => events
                .send(PortEvent { port: *port, event })
                .map_err(|e| e.into_inner().event),
            Inbox::Closed => Err(event),
        }
    }

    /// Takes the stamp of what was just read and hands over the events `lines` makes
    /// of it, holding the mediator's gate ([`Gate`]) from before the stamp until they
    /// are in its channel. Returns those not taken (the game has let go of its end).
    pub fn stamp(&self, lines: impl FnOnce(Instant) -> Vec<LinkEvent>) -> Vec<LinkEvent> {
        let gate = match &*lock(&self.inbox) {
            Inbox::Live { gate, .. } => Some(gate.clone()),
            Inbox::Waiting(_) | Inbox::Closed => None,
        };
        let hand_over = |at| {
            lines(at)
                .into_iter()
                .filter_map(|event| self.deliver(event).err())
                .collect()
        };
        match gate {
            Some(gate) => gate.stamp(hand_over),
            // Not attached yet: the mediator has no flag to let fall.
            None => hand_over(Instant::now()),
        }
    }
}

impl StampedLines {
    /// From now on the router's lines go to `events` as `port`'s, those it delivered
    /// before first (stamped behind a gate of their own).
    pub fn attach(&self, port: Port, events: &Sender<PortEvent>) {
        self.attach_gated(port, events, &Gate::default());
    }

    /// As [`StampedLines::attach`], the lines stamped behind the mediator's `gate`
    /// ([`Feed::stamp`]).
    pub fn attach_gated(&self, port: Port, events: &Sender<PortEvent>, gate: &Gate) {
        let live = Inbox::Live {
            port,
            events: events.clone(),
            gate: gate.clone(),
        };
        if let Inbox::Waiting(held) = std::mem::replace(&mut *lock(&self.inbox), live) {
            for event in held {
                let _ = events.send(PortEvent { port, event });
            }
        }
    }

    /// What disconnects when the connection ends (for a `select!`).
    pub fn closed(&self) -> &Receiver<()> {
        &self.closed
    }

    /// The same lines, whose connection `unread` tells of bytes its router has not read.
    #[must_use]
    pub fn with_unread(mut self, unread: Unread) -> StampedLines {
        self.unread = Some(unread);
        self
    }

    /// What tells of the connection's unread bytes, if anything does.
    pub fn unread(&self) -> Option<Unread> {
        self.unread.clone()
    }

    /// Why the connection ended, as its router said ([`Feed::end`]); without a word,
    /// "the connection closed".
    pub fn why_closed(&self) -> String {
        self.why
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_else(|| "the connection closed".into())
    }
}

impl Drop for StampedLines {
    fn drop(&mut self) {
        *lock(&self.inbox) = Inbox::Closed;
    }
}
