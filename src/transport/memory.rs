//! In-memory lines: two [`Duplex`]es joined by channels, for a local engine that plays
//! in the referee's own process (`argus serve --engine`). A local game crosses no pty
//! and no socket, and runs the same on every system.
//!
//! Reads wait at most [`READ_TIMEOUT`] and then say `TimedOut`, as a serial port's do,
//! so that readers can look up; once the other end is dropped, reads return what is
//! left and then end of file, and writes fail with `BrokenPipe`.

use std::io::{self, Read, Write};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use super::{Duplex, READ_TIMEOUT};

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
}
