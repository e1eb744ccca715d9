//! The players' connections, read on one thread: each waits in one poll loop (the
//! `polling` crate: epoll, kqueue or IOCP) until it has bytes, and is then read once
//! and stamped as its reader thread did before (issue #23: 1,000 idle connections took
//! 2.3 threads a player and 27 % of a core in their read timeouts). Threads grow with
//! the games under way, not with the players connected.
//!
//! A connection is registered in oneshot mode and armed again after each read, so a
//! read only follows a readiness and never blocks: the socket stays blocking, as its
//! writers need (the loop reads, and games write, the router's one socket: a player
//! costs one descriptor). The loop wakes at least every [`TICK`] to end a
//! line whose terminator does not come ([`STALLED_LINE`]) and to notice the registry
//! gone.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use polling::{Event, Events, Poller};

use super::{FLOOD_LINES, Registry, Router, lock};
use crate::transport::lines::LineSplitter;
use crate::transport::tcp::recv_stamped;
use crate::transport::{LinkEvent, STALLED_LINE};

/// How often the loop wakes with nothing to read.
const TICK: Duration = Duration::from_millis(250);

/// The poll loop's side that the registry hands connections to.
pub(super) struct Readers {
    poller: Arc<Poller>,
    incoming: Arc<Mutex<Vec<Conn>>>,
}

/// One connection as the loop reads it.
pub(super) struct Conn {
    router: Arc<Router>,
    index: usize,
    splitter: LineSplitter,
    /// Lines in the current second, and the lines sent before it, against a flood.
    second: Instant,
    in_second: usize,
    sent_before: usize,
    last_byte: Instant,
}

impl Conn {
    pub(super) fn new(router: Arc<Router>, index: usize) -> Conn {
        let sent_before = router.sent.load(Ordering::Relaxed);
        Conn {
            router,
            index,
            splitter: LineSplitter::new(),
            second: Instant::now(),
            in_second: 0,
            sent_before,
            last_byte: Instant::now(),
        }
    }
}

impl Readers {
    /// Starts the loop's thread for `registry`; it ends within [`TICK`] of the
    /// registry's end.
    pub(super) fn start(registry: Weak<Registry>) -> io::Result<Readers> {
        let poller = Arc::new(Poller::new()?);
        let incoming = Arc::new(Mutex::new(Vec::new()));
        let readers = Readers {
            poller: Arc::clone(&poller),
            incoming: Arc::clone(&incoming),
        };
        std::thread::Builder::new()
            .name("argus-serve-readers".into())
            .spawn(move || run(&poller, &incoming, &registry))?;
        Ok(readers)
    }

    /// Hands `conn` to the loop.
    pub(super) fn add(&self, conn: Conn) {
        lock(&self.incoming).push(conn);
        if let Err(e) = self.poller.notify() {
            log::warn!("argus serve: the connections' poll loop: {e}");
        }
    }
}

fn run(poller: &Poller, incoming: &Mutex<Vec<Conn>>, registry: &Weak<Registry>) {
    let mut conns: HashMap<usize, Conn> = HashMap::new();
    let mut next_key = 0usize;
    let mut events = Events::new();
    let mut buf = [0u8; 4096];
    loop {
        let Some(registry) = registry.upgrade() else {
            break;
        };
        for conn in std::mem::take(&mut *lock(incoming)) {
            let key = next_key;
            next_key += 1;
            // SAFETY: the socket is deleted from the poller before it is dropped (below,
            // and at the loop's end).
            match unsafe { poller.add(&conn.router.stream, Event::readable(key)) } {
                Ok(()) => {
                    conns.insert(key, conn);
                }
                Err(e) => {
                    log::warn!("{}: cannot wait for its lines: {e}", conn.router.peer);
                    conn.router.close();
                    registry.closed(
                        &conn.router,
                        conn.index,
                        "the referee cannot wait for its lines",
                    );
                }
            }
        }
        for ev in events.iter() {
            let Some(conn) = conns.get_mut(&ev.key) else {
                continue;
            };
            let ended = registry.read_once(conn, &mut buf).err().or_else(|| {
                poller
                    .modify(&conn.router.stream, Event::readable(ev.key))
                    .err()
                    .map(|e| format!("the referee cannot wait for its lines: {e}"))
            });
            if let Some(why) = ended {
                let _ = poller.delete(&conn.router.stream);
                if let Some(conn) = conns.remove(&ev.key) {
                    registry.closed(&conn.router, conn.index, &why);
                }
            }
        }
        for conn in conns.values_mut() {
            registry.end_stalled_line(conn);
        }
        drop(registry);
        events.clear();
        if let Err(e) = poller.wait(&mut events, Some(TICK)) {
            log::warn!("argus serve: the connections' poll loop: {e}");
            std::thread::sleep(TICK);
        }
    }
    for conn in conns.values() {
        let _ = poller.delete(&conn.router.stream);
    }
}

impl Registry {
    /// Reads what `conn` has (once: it was ready), stamps it and hands its lines on.
    /// Why the connection is done with, when it is (closed, failed, or a flood).
    fn read_once(&self, conn: &mut Conn, buf: &mut [u8]) -> Result<(), String> {
        // The read happens inside the game's gate, so that a mediator about to let a
        // flag fall either finds the bytes still unread (and waits for them) or the
        // lines in its channel. The stamp: when the bytes reached this machine (Linux:
        // the system's receive time), not when this loop, busy with other connections,
        // read them; never later than the gate's moment.
        let mut flood = false;
        let mut ended = None;
        let router = Arc::clone(&conn.router);
        let refused = router.stamp(|now| {
            let (n, arrived) = match recv_stamped(&router.stream, buf) {
                Ok((0, _)) => {
                    ended = Some("the player closed it".to_string());
                    return Vec::new();
                }
                Ok(read) => read,
                Err(e) if is_idle(&e) => return Vec::new(),
                Err(e) => {
                    ended = Some(failure(&e));
                    return Vec::new();
                }
            };
            let at = arrived.min(now);
            conn.last_byte = at;
            let mut lines = Vec::new();
            conn.splitter.feed(&buf[..n], |p| lines.push(p));
            let sent = router.sent.load(Ordering::Relaxed);
            if conn.second.elapsed() >= Duration::from_secs(1) {
                conn.second = Instant::now();
                conn.in_second = 0;
                conn.sent_before = sent;
            }
            conn.in_second += lines.len();
            flood = conn.in_second > FLOOD_LINES + sent.wrapping_sub(conn.sent_before);
            if flood {
                return Vec::new();
            }
            lines
                .into_iter()
                .map(|piece| LinkEvent::of_piece(piece, at))
                .collect()
        });
        if let Some(why) = ended {
            return Err(why);
        }
        if flood {
            log::warn!(
                "{}: more than {FLOOD_LINES} lines in a second it was not asked for, from {}: connection closed",
                lock(&self.slots)[conn.index].player.name,
                router.peer
            );
            router.close();
            return Err(format!(
                "more than {FLOOD_LINES} lines in a second it was not asked for"
            ));
        }
        self.refused(conn.index, refused);
        Ok(())
    }

    /// A line that stops arriving without its terminator ends after [`STALLED_LINE`]
    /// of silence, stamped with its last byte, as on a serial line
    /// (docs/protocol.md): junk without a newline does not wait for the player's next
    /// line and spoil it.
    fn end_stalled_line(&self, conn: &mut Conn) {
        if conn.splitter.has_partial()
            && conn.last_byte.elapsed() >= STALLED_LINE
            && let Some(piece) = conn.splitter.take_partial()
        {
            log::debug!(
                "{}: a line without its terminator ends here",
                conn.router.peer
            );
            let last_byte = conn.last_byte;
            let refused = conn
                .router
                .stamp(|_| vec![LinkEvent::of_piece(piece, last_byte)]);
            self.refused(conn.index, refused);
        }
    }

    /// What no game took is read between games.
    fn refused(&self, index: usize, refused: Vec<LinkEvent>) {
        for event in refused {
            if let LinkEvent::Line { bytes, .. } = event {
                self.between_games(index, &bytes);
            }
        }
    }
}

/// A read that found nothing yet: on Unix a socket's read timeout is `WouldBlock`, and
/// `TimedOut` is the connection's own end (below); elsewhere `TimedOut` is the timeout.
fn is_idle(e: &io::Error) -> bool {
    let kind = e.kind();
    matches!(kind, io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted)
        || (kind == io::ErrorKind::TimedOut && cfg!(not(unix)))
}

/// Why a connection whose read failed with `e` ends, in the supervisor's words.
pub(crate) fn failure(e: &io::Error) -> String {
    match e.kind() {
        // The system's limit on unacknowledged data (`keep_alive`), or its keepalive
        // probes, went unanswered.
        io::ErrorKind::TimedOut => format!(
            "what it was sent went unacknowledged for {} s: it stopped reading, or its \
             network is gone ({e})",
            crate::transport::tcp::UNACKNOWLEDGED.as_secs()
        ),
        io::ErrorKind::ConnectionReset => format!("the player's system reset it ({e})"),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection the system ended says why as a supervisor reads it: a player that
    /// stopped reading (the limit on unacknowledged data) is told from one whose system
    /// reset it; a read timeout on Unix (`WouldBlock`) is no end.
    #[test]
    fn a_connections_end_says_why() {
        let timed_out = io::Error::from(io::ErrorKind::TimedOut);
        assert!(
            failure(&timed_out)
                .starts_with("what it was sent went unacknowledged for 20 s: it stopped reading"),
            "{}",
            failure(&timed_out)
        );
        let reset = io::Error::from(io::ErrorKind::ConnectionReset);
        assert!(failure(&reset).starts_with("the player's system reset it"));
        assert!(is_idle(&io::Error::from(io::ErrorKind::WouldBlock)));
        assert_eq!(is_idle(&timed_out), cfg!(not(unix)));
    }
}
