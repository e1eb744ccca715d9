//! An engine's standard output, cut into lines: the plumbing under
//! [`super::engine_process::EngineProcess`]'s reads.
//!
//! On Unix the output is read by the thread that waits for it, in `poll` with the
//! read's deadline and the client's [`Stop`] (its [`Stop::wake_fd`]): an engine's line
//! wakes the thread that acts on it and no other (a reader thread handing lines over a
//! channel costs a thread switch on every line, two a ply). Elsewhere a reader thread
//! hands the lines over a channel.
//!
//! Lines lose their `\n` or `\r\n`, are decoded leniently, and are cut at
//! [`MAX_LINE_LEN`] bytes.

use std::process::ChildStdout;
use std::time::Instant;

use super::stop::Stop;

/// The longest line kept from an engine, in bytes; a longer one is cut into pieces of
/// this length.
pub const MAX_LINE_LEN: usize = 64 * 1024;

/// Why a read found no line.
pub(super) enum Wait {
    Timeout,
    Gone,
    Stopped,
}

/// A line as it is kept: without its terminator, decoded leniently, in a string of
/// its own (the buffer it was read into is used again).
fn finish(mut bytes: &[u8], pid: u32) -> String {
    if let [rest @ .., b'\n'] = bytes {
        bytes = rest;
    }
    if let [rest @ .., b'\r'] = bytes {
        bytes = rest;
    }
    let line = String::from_utf8_lossy(bytes).into_owned();
    log::debug!("engine {pid} < {line}");
    line
}

#[cfg(unix)]
pub(super) use poll::Output;

#[cfg(not(unix))]
pub(super) use thread::Output;

#[cfg(unix)]
mod poll {
    use std::collections::VecDeque;
    use std::io::{self, Read};
    use std::os::fd::AsRawFd;

    use super::{ChildStdout, Instant, MAX_LINE_LEN, Stop, Wait, finish};

    /// The engine's output, read by whoever waits for a line.
    pub(in crate::client) struct Output {
        /// `None` once it ended (or failed).
        stdout: Option<ChildStdout>,
        /// The bytes of a line not yet ended.
        partial: Vec<u8>,
        /// Lines read and not yet taken.
        lines: VecDeque<String>,
        /// What a read reads into: made once, not zeroed again for every read.
        buf: Box<[u8]>,
        pid: u32,
    }

    impl Output {
        pub(in crate::client) fn new(stdout: ChildStdout, pid: u32) -> io::Result<Output> {
            // Non-blocking, so that a caller whose own `poll` found it readable reads
            // once and never waits ([`Output::fill`]); the waits here poll first.
            crate::transport::set_nonblocking(stdout.as_raw_fd())?;
            Ok(Output {
                stdout: Some(stdout),
                partial: Vec::new(),
                lines: VecDeque::new(),
                buf: vec![0; 4096].into_boxed_slice(),
                pid,
            })
        }

        /// The next line by `deadline`, unless `stop` fires first. Lines already read
        /// are returned even after the engine ended, and even past the deadline.
        pub(in crate::client) fn next_line(
            &mut self,
            deadline: Instant,
            stop: Option<&Stop>,
        ) -> Result<String, Wait> {
            let stop_fd = stop.and_then(Stop::wake_fd);
            loop {
                if stop.is_some_and(Stop::is_set) {
                    return Err(Wait::Stopped);
                }
                if let Some(line) = self.lines.pop_front() {
                    return Ok(line);
                }
                let Some(stdout) = &self.stdout else {
                    return Err(Wait::Gone);
                };
                let timeout = crate::transport::poll_millis(
                    deadline.saturating_duration_since(Instant::now()),
                );
                let mut fds = [
                    libc::pollfd {
                        fd: stdout.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: stop_fd.unwrap_or(-1),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                // SAFETY: `fds` is a valid array of two pollfd for the length given;
                // a negative fd is ignored by poll.
                let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout) };
                if n < 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    log::warn!("engine {}: waiting for its output: {e}", self.pid);
                    self.end();
                    continue;
                }
                if fds[0].revents != 0 {
                    self.read();
                    continue;
                }
                if fds[1].revents != 0 {
                    return Err(Wait::Stopped);
                }
                if timeout == 0 || Instant::now() >= deadline {
                    return Err(Wait::Timeout);
                }
            }
        }

        /// Reads once what the engine wrote, without waiting: for a caller whose own
        /// `poll` found the output readable ([`Output::fd`]). Its lines are then taken
        /// with [`Output::pop`].
        pub(in crate::client) fn fill(&mut self) {
            self.read();
        }

        /// The next line read and not yet taken.
        pub(in crate::client) fn pop(&mut self) -> Option<String> {
            self.lines.pop_front()
        }

        /// Whether the output ended (every line read may not have been taken yet).
        pub(in crate::client) fn ended(&self) -> bool {
            self.stdout.is_none()
        }

        /// The descriptor to `poll` for the engine's output, until it ends.
        pub(in crate::client) fn fd(&self) -> Option<std::os::fd::RawFd> {
            self.stdout.as_ref().map(AsRawFd::as_raw_fd)
        }

        /// Reads what the engine wrote (poll said there is something, or its end).
        fn read(&mut self) {
            let Some(stdout) = self.stdout.as_mut() else {
                return;
            };
            let mut buf = std::mem::take(&mut self.buf);
            match stdout.read(&mut buf) {
                Ok(0) => self.end(),
                Ok(n) => self.split(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                    ) => {}
                Err(e) => {
                    log::warn!("engine {}: reading its output: {e}", self.pid);
                    self.end();
                }
            }
            self.buf = buf;
        }

        /// The output ended: a last line without its terminator is a line.
        fn end(&mut self) {
            self.stdout = None;
            if !self.partial.is_empty() {
                let line = finish(&self.partial, self.pid);
                self.partial.clear();
                self.lines.push_back(line);
            }
        }

        /// Cuts `bytes` into lines: each piece ends at a `\n` or at [`MAX_LINE_LEN`]
        /// bytes, whichever comes first.
        fn split(&mut self, mut bytes: &[u8]) {
            while !bytes.is_empty() {
                let room = MAX_LINE_LEN - self.partial.len();
                let window = &bytes[..bytes.len().min(room)];
                let (taken, ended) = match window.iter().position(|&b| b == b'\n') {
                    Some(i) => (i + 1, true),
                    None => (window.len(), window.len() == room),
                };
                self.partial.extend_from_slice(&window[..taken]);
                bytes = &bytes[taken..];
                if ended {
                    let line = finish(&self.partial, self.pid);
                    self.partial.clear();
                    self.lines.push_back(line);
                }
            }
        }
    }
}

#[cfg(not(unix))]
mod thread {
    use std::io::{self, BufRead, BufReader, Read};

    use crossbeam_channel::{Receiver, RecvTimeoutError};

    use super::{ChildStdout, Instant, MAX_LINE_LEN, Stop, Wait, finish};

    /// The engine's output, read by a thread of its own and handed over a channel.
    pub(in crate::client) struct Output {
        lines: Receiver<String>,
    }

    impl Output {
        pub(in crate::client) fn new(stdout: ChildStdout, pid: u32) -> io::Result<Output> {
            let (tx, lines) = crossbeam_channel::unbounded();
            std::thread::Builder::new()
                .name(format!("engine-{pid}-reader"))
                .spawn(move || {
                    let mut reader = BufReader::new(stdout);
                    let mut buf = Vec::new();
                    loop {
                        buf.clear();
                        let limit = u64::try_from(MAX_LINE_LEN).unwrap_or(u64::MAX);
                        match (&mut reader).take(limit).read_until(b'\n', &mut buf) {
                            Ok(0) => break,
                            Ok(_) => {
                                if tx.send(finish(&buf, pid)).is_err() {
                                    break;
                                }
                            }
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => {
                                log::warn!("engine {pid}: reading its output: {e}");
                                break;
                            }
                        }
                    }
                })?;
            Ok(Output { lines })
        }

        /// The next line by `deadline`, unless `stop` fires first.
        pub(in crate::client) fn next_line(
            &mut self,
            deadline: Instant,
            stop: Option<&Stop>,
        ) -> Result<String, Wait> {
            let Some(stop) = stop else {
                return self.lines.recv_deadline(deadline).map_err(|e| match e {
                    RecvTimeoutError::Timeout => Wait::Timeout,
                    RecvTimeoutError::Disconnected => Wait::Gone,
                });
            };
            if stop.is_set() {
                return Err(Wait::Stopped);
            }
            crossbeam_channel::select! {
                recv(self.lines) -> line => line.map_err(|_| Wait::Gone),
                recv(stop.fired()) -> _ => Err(Wait::Stopped),
                default(deadline.saturating_duration_since(Instant::now())) => Err(Wait::Timeout),
            }
        }
    }
}
