//! In-memory lines, for a local engine that plays in the referee's own process
//! (`argus serve --engine`): a local game crosses no pty and no socket, and runs the
//! same on every system.
//!
//! - [`pair`]: two [`Duplex`]es joined by channels of bytes. Reads wait at most
//!   [`READ_TIMEOUT`] and then say `TimedOut`, as a serial port's do, so that readers
//!   can look up; once the other end is dropped, reads return what is left and then end
//!   of file, and writes fail with `BrokenPipe`.
//! - [`direct_pair`]: a line that carries whole lines and needs no thread at either
//!   end. What the client writes is split into lines as it writes them and goes
//!   straight to the mediator's channel of events, stamped then; what the referee sends
//!   goes straight to the client's channel. A ply then wakes one thread at each end
//!   instead of three; when the client runs on the referee's own thread (a game of
//!   two pollable engines, `client::session`), it takes its lines from that channel
//!   itself, and a ply wakes one thread in all.

use std::io::{self, Read, Write};
use std::time::Instant;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use super::duplex::{Duplex, READ_TIMEOUT};
use super::event::{Gate, LinkEvent, PortEvent};
use super::lines::LineSplitter;
use super::stamped::{self, Feed, StampedLines};
use crate::core::Port;
use crate::epd::Record;

/// Two ends of one line: what one writes, the other reads.
///
/// # Examples
///
/// ```
/// use std::io::{Read, Write};
/// let (mut a, mut b) = argus::transport::memory::pair();
/// a.writer.write_all(b"e4\n").unwrap();
/// let mut buf = [0u8; 8];
/// let n = b.reader.read(&mut buf).unwrap();
/// assert_eq!(&buf[..n], b"e4\n");
/// ```
pub fn pair() -> (Duplex, Duplex) {
    let (a_tx, b_rx) = crossbeam_channel::unbounded();
    let (b_tx, a_rx) = crossbeam_channel::unbounded();
    (end(a_tx, a_rx), end(b_tx, b_rx))
}

fn end(tx: Sender<Vec<u8>>, rx: Receiver<Vec<u8>>) -> Duplex {
    Duplex {
        reader: Box::new(reader(rx)),
        writer: Box::new(MemoryWriter { tx }),
    }
}

/// A line's reader over a channel of byte chunks (what another thread read or wrote),
/// with the timeouts and end of file a line's reader has: end of file once every sender
/// is gone.
pub fn reader(rx: Receiver<Vec<u8>>) -> impl Read + Send {
    MemoryReader {
        rx,
        held: Vec::new(),
        at: 0,
    }
}

/// The reading half: chunks as they were written, handed out in order.
struct MemoryReader {
    rx: Receiver<Vec<u8>>,
    held: Vec<u8>,
    at: usize,
}

impl Read for MemoryReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.held.len() {
            match self.rx.recv_timeout(READ_TIMEOUT) {
                Ok(chunk) => {
                    self.held = chunk;
                    self.at = 0;
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, "nothing yet"));
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(0),
            }
        }
        let n = buf.len().min(self.held.len() - self.at);
        buf[..n].copy_from_slice(&self.held[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The writing half: every write is one chunk for the other end.
struct MemoryWriter {
    tx: Sender<Vec<u8>>,
}

impl Write for MemoryWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.tx
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the other end is gone"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What reaches the client's end of a line (the client's reader thread reports the
/// same for a line of bytes).
#[derive(Debug)]
pub enum Delivered {
    /// A line, without its terminator; from an in-process referee, the record it was
    /// written from, which reads back from it as it is ([`RefereeEnd::deliver`]); and
    /// when its last byte arrived.
    Line(Vec<u8>, Option<Box<Record>>, Instant),
    /// The referee hung up.
    Closed,
    /// The line failed.
    Failed(io::Error),
}

/// An in-process line that carries whole lines, with no thread at either end: the
/// referee's end, for [`crate::transport::Link::direct`], and the client's.
///
/// # Examples
///
/// ```
/// use std::io::Write;
/// use argus::transport::memory::{Delivered, direct_pair};
/// let (referee, mut client) = direct_pair();
/// assert!(referee.send(b"refcom reset"));
/// assert!(matches!(client.lines.recv().unwrap(), Delivered::Line(l, None, _) if l == b"refcom reset"));
/// drop(referee);
/// assert!(client.lines.recv().is_err());
/// assert!(client.writer.write_all(b"x\n").is_err());
/// ```
pub fn direct_pair() -> (RefereeEnd, ClientEnd) {
    let (to_client, lines) = crossbeam_channel::unbounded();
    let (feed, inbox) = stamped::channel();
    let referee = RefereeEnd { to_client, inbox };
    let client = ClientEnd {
        lines,
        writer: Box::new(DirectWriter {
            feed,
            splitter: LineSplitter::new(),
        }),
    };
    (referee, client)
}

/// The referee's end of a [`direct_pair`].
pub struct RefereeEnd {
    to_client: Sender<Delivered>,
    /// What the client writes, held until the mediator attaches.
    inbox: StampedLines,
}

impl RefereeEnd {
    /// From now on, what the client writes goes to `events` as `port`'s lines: first
    /// what it wrote before, and a lost line if it has let go of its end already.
    pub fn attach(&self, port: Port, events: &Sender<PortEvent>) {
        self.inbox.attach(port, events);
    }

    /// As [`RefereeEnd::attach`], what the client writes stamped behind the mediator's
    /// `gate`.
    pub fn attach_gated(&self, port: Port, events: &Sender<PortEvent>, gate: &Gate) {
        self.inbox.attach_gated(port, events, gate);
    }

    /// Hands `line` (without terminator) to the client; false once the client has let
    /// go of its end.
    pub fn send(&self, line: &[u8]) -> bool {
        self.deliver(line, None, Instant::now())
    }

    /// Hands `line` to the client as it arrived `at`, with `record`, the record it was
    /// written from, when there is one; false once the client has let go of its end.
    pub fn deliver(&self, line: &[u8], record: Option<Box<Record>>, at: Instant) -> bool {
        self.to_client
            .send(Delivered::Line(line.to_vec(), record, at))
            .is_ok()
    }
}

/// The client's end of a [`direct_pair`]: the lines from the referee, and a writer
/// whose every line goes to the referee as it is written.
pub struct ClientEnd {
    /// The referee's lines; disconnected once the referee lets go of its end.
    pub lines: Receiver<Delivered>,
    /// What the client writes; `BrokenPipe` once the referee has let go.
    pub writer: Box<dyn ClientWriter>,
}

/// What a client writes to: a line of bytes, or the client's end of a [`direct_pair`],
/// which can also take a line with the record it was written from.
pub trait ClientWriter: Write + Send {
    /// Hands `line` (without terminator) to the referee with `record`, the record it
    /// was written from, on an in-process line: the referee then takes the record rather
    /// than reading the line again. `None` on any other line, which has written nothing
    /// (the line is then written as bytes).
    ///
    /// `record` must read back from `line` as it is (`Record::from_ascii`): a referee
    /// built for debugging checks it.
    #[allow(
        clippy::boxed_local,
        reason = "the in-process line moves the box into its event as it is"
    )]
    fn hand_over(&mut self, _line: &[u8], _record: Box<Record>) -> Option<io::Result<()>> {
        None
    }
}

impl ClientWriter for Box<dyn Write + Send> {}

/// Splits what the client writes into lines, as a line's reader thread would, and
/// stamps each as its terminator is written.
struct DirectWriter {
    feed: Feed,
    splitter: LineSplitter,
}

impl Write for DirectWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let splitter = &mut self.splitter;
        let refused = self.feed.stamp(|at| {
            let mut events = Vec::new();
            splitter.feed(buf, |piece| events.push(LinkEvent::of_piece(piece, at)));
            events
        });
        if !refused.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the referee is gone",
            ));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl ClientWriter for DirectWriter {
    fn hand_over(&mut self, line: &[u8], record: Box<Record>) -> Option<io::Result<()>> {
        if self.splitter.has_partial() {
            // Part of a line written as bytes comes first.
            return None;
        }
        let mut record = Some(record);
        let refused = self.feed.stamp(|at| {
            let record = record.take().expect("stamped once");
            vec![LinkEvent::Record {
                at,
                bytes: line.to_vec(),
                record,
            }]
        });
        Some(if refused.is_empty() {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the referee is gone",
            ))
        })
    }
}

impl Drop for DirectWriter {
    fn drop(&mut self) {
        let _ = self.feed.deliver(LinkEvent::Lost {
            at: Instant::now(),
            error: "the client let go of its line".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_cross_in_order_and_a_dropped_end_is_end_of_file() {
        let (mut a, mut b) = pair();
        a.writer.write_all(b"one\n").unwrap();
        a.writer.write_all(b"two\n").unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 3];
        while got.len() < 8 {
            let n = b.reader.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, b"one\ntwo\n");
        let idle = b.reader.read(&mut buf).unwrap_err();
        assert_eq!(idle.kind(), io::ErrorKind::TimedOut);
        drop(a);
        assert_eq!(b.reader.read(&mut buf).unwrap(), 0);
        assert_eq!(
            b.writer.write(b"x").unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
    }

    #[test]
    fn a_direct_line_holds_what_the_client_wrote_until_the_referee_attaches() {
        let (referee, mut client) = direct_pair();
        client
            .writer
            .write_all(b"refreq sign_on\r\nrefreq rep")
            .unwrap();
        client.writer.write_all(b"ly\n").unwrap();
        let (tx, events) = crossbeam_channel::unbounded();
        referee.attach(Port::A, &tx);
        let lines: Vec<Vec<u8>> = events
            .try_iter()
            .map(|e| match e.event {
                LinkEvent::Line { bytes, .. } => bytes,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(lines, [&b"refreq sign_on"[..], b"refreq reply"]);
        client.writer.write_all(b"refreq fault\n").unwrap();
        assert!(matches!(
            events.try_recv().unwrap().event,
            LinkEvent::Line { .. }
        ));
        drop(client);
        assert!(matches!(
            events.try_recv().unwrap().event,
            LinkEvent::Lost { .. }
        ));
        assert!(!referee.send(b"refcom disconnect"));
    }
}
