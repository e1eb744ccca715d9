//! Transports: bytes in and out of a line, turned into timestamped lines and drain
//! notices. Nothing here knows chess; a port is only a label.
//!
//! Each line (a serial port, a pty, later a TCP socket) gets two named threads: a reader
//! that stamps every line with the instant its terminator was read, before anything
//! else can delay it, and a writer that writes each line, drains it (serialport's
//! `flush()` is `tcdrain`) and reports the instant the drain completed. Both report to
//! one channel that the mediator selects on. When a line fails, the reader reopens it by
//! path until it is back, and the writer delivers what it still owes: over a serial
//! line, whose other end never went away; over a new connection (a player that
//! connected again), nothing of the old one's queue is sent (a new conversation).

mod duplex;
mod event;
pub mod lines;
pub mod memory;
#[cfg(unix)]
pub mod pty;
pub mod serial;
pub mod stamped;
pub mod tcp;

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use crate::core::Port;
pub use duplex::{Duplex, READ_TIMEOUT};
pub use event::{Gate, LinkEvent, PortEvent};
use lines::{LineSplitter, Piece};

/// What the demo and the benchmark join a referee to a built-in player with: the two
/// ends of a pty pair where there are ptys (the referee's end a real serial line to the
/// `serialport` crate), of an in-memory [`memory::pair`] elsewhere (Windows). Returns the
/// referee's end, the player's, and the player's address (the slave's path, or
/// `memory-N`).
///
/// # Errors
///
/// Returns the system's error when no pty can be allocated.
pub fn local_pair(n: usize) -> io::Result<(Duplex, Duplex, String)> {
    #[cfg(unix)]
    {
        let (master, slave) = pty::pair()?;
        let address = slave.path.clone().unwrap_or_else(|| format!("pty-{n}"));
        Ok((master.duplex, slave.duplex, address))
    }
    #[cfg(not(unix))]
    {
        let (referee, player) = memory::pair();
        Ok((referee, player, format!("memory-{n}")))
    }
}

/// What [`local_pair`] makes on this system, for the lines' labels and the PGN's Site.
pub const LOCAL_PAIRS: &str = if cfg!(unix) {
    "pty pairs"
} else {
    "in-memory lines"
};

/// A line as the mediator is given it: bytes to read and write (a port, a socket, a
/// [`memory::pair`]), an in-process line of whole lines ([`memory::direct_pair`]), or
/// a connection whose lines another thread reads and stamps ([`stamped::channel`]).
pub enum Wire {
    /// A line of bytes: it gets a reader and a writer thread.
    Bytes(Duplex),
    /// An in-process line: no thread, lines go straight to and from the client.
    Direct(memory::RefereeEnd),
    /// Lines stamped where their bytes came off the socket: a writer thread, and a
    /// thread that only waits for the connection's end to reopen the line.
    Stamped(stamped::Stamped),
}

impl From<Duplex> for Wire {
    fn from(duplex: Duplex) -> Wire {
        Wire::Bytes(duplex)
    }
}

/// Opens a line again after it failed (a line of bytes or a stamped line).
pub type Opener = Box<dyn FnMut() -> io::Result<Wire> + Send>;

/// How long part of a line may wait for more bytes before it is taken as a whole line
/// (its terminator lost to noise): programs write their lines at once.
pub const STALLED_LINE: Duration = Duration::from_millis(1000);
/// How long [`Link::shutdown`] waits for a line's threads.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// How long a failed line waits between attempts to reopen it.
pub const REOPEN_INTERVAL: Duration = Duration::from_millis(500);

/// A running line: its reader and writer threads, or an in-process line.
pub struct Link {
    /// An in-process line, with its port and the mediator's channel.
    direct: Option<(memory::RefereeEnd, Port, Sender<PortEvent>)>,
    lines: Option<Sender<Queued>>,
    /// The conversation the lines sent now belong to: the count of new connections the
    /// mediator has been told of (`LinkEvent::Back { fresh: true }`).
    conversation: AtomicU64,
    /// What tells of bytes of the line's connection not read yet (a stamped line's,
    /// set by its reader for each connection).
    unread: Arc<std::sync::Mutex<Option<stamped::Unread>>>,
    /// Whether it is a connection another thread reads and stamps (`argus serve`'s).
    stamped: bool,
    stop: Arc<AtomicBool>,
    /// Dropped at shutdown: a reader waiting out a down line (or between attempts to
    /// reopen it) wakes at once instead of at the end of its wait.
    wake: Option<Sender<()>>,
    threads: Vec<JoinHandle<()>>,
}

/// A line queued for the writer, with the conversation it was sent in.
type Queued = (u64, Vec<u8>);

/// A writer the reader hands the writer thread, with its conversation (the reader's
/// count of new connections).
struct Outlet {
    conversation: u64,
    out: Box<dyn Write + Send>,
}

fn is_idle(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

/// Writes all of `buf`, treating a write that times out as "not yet" rather than as a
/// failure, then drains.
fn write_and_drain(w: &mut dyn Write, mut buf: &[u8], stop: &AtomicBool) -> io::Result<()> {
    while !buf.is_empty() {
        match w.write(buf) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "line closed")),
            Ok(n) => buf = &buf[n..],
            Err(e) if is_idle(&e) && !stop.load(Ordering::Relaxed) => {}
            Err(e) => return Err(e),
        }
    }
    loop {
        match w.flush() {
            Ok(()) => return Ok(()),
            Err(e) if is_idle(&e) && !stop.load(Ordering::Relaxed) => {}
            Err(e) => return Err(e),
        }
    }
}

impl Link {
    /// Starts `port`'s line: `Link::spawn` for a line of bytes, [`Link::direct`] for
    /// an in-process one (which is never reopened).
    ///
    /// # Errors
    ///
    /// Returns an error when a thread cannot be spawned.
    pub fn start(
        port: Port,
        name: &str,
        wire: Wire,
        reopen: Option<Opener>,
        eol: &'static [u8],
        events: Sender<PortEvent>,
        gate: &Gate,
    ) -> io::Result<Link> {
        match wire {
            Wire::Bytes(duplex) => {
                let Duplex { reader, writer } = duplex;
                Link::spawn(
                    port,
                    name,
                    Source::Bytes(reader),
                    writer,
                    reopen,
                    eol,
                    events,
                    gate,
                )
            }
            Wire::Stamped(stamped::Stamped { lines, writer }) => Link::spawn(
                port,
                name,
                Source::Stamped(lines),
                writer,
                reopen,
                eol,
                events,
                gate,
            ),
            Wire::Direct(end) => Ok(Link::direct(port, end, events, gate)),
        }
    }

    /// An in-process line: what the client writes reaches `events` as it writes it, and
    /// each line sent is handed to the client and reported drained at once. The client
    /// stamps what it writes behind `gate`.
    pub fn direct(
        port: Port,
        end: memory::RefereeEnd,
        events: Sender<PortEvent>,
        gate: &Gate,
    ) -> Link {
        end.attach_gated(port, &events, gate);
        Link {
            direct: Some((end, port, events)),
            lines: None,
            conversation: AtomicU64::new(0),
            unread: Arc::default(),
            stamped: false,
            stop: Arc::new(AtomicBool::new(false)),
            wake: None,
            threads: Vec::new(),
        }
    }

    /// Starts the threads of `port`'s line. `name` names the threads
    /// (`argus-{name}-rx`, `argus-{name}-tx`); `eol` ends every line written;
    /// `reopen`, when given, is tried every [`REOPEN_INTERVAL`] after a failure; lines
    /// are stamped behind `gate`.
    #[allow(clippy::too_many_arguments)]
    fn spawn(
        port: Port,
        name: &str,
        source: Source,
        writer: Box<dyn Write + Send>,
        reopen: Option<Opener>,
        eol: &'static [u8],
        events: Sender<PortEvent>,
        gate: &Gate,
    ) -> io::Result<Link> {
        let stamped = matches!(source, Source::Stamped(_));
        let stop = Arc::new(AtomicBool::new(false));
        let down = Arc::new(AtomicBool::new(false));
        let (line_tx, line_rx) = crossbeam_channel::unbounded::<Queued>();
        let (writer_tx, writer_rx) = crossbeam_channel::unbounded::<Option<Outlet>>();
        let (wake, woken) = crossbeam_channel::bounded::<()>(0);
        // The writer's word that a write failed, which wakes a reader that waits only
        // for its connection's end.
        let (failed_tx, failed) = crossbeam_channel::bounded::<()>(1);
        let unread = Arc::new(std::sync::Mutex::new(None));

        let rx = {
            let (stop, down, events) = (stop.clone(), down.clone(), events.clone());
            let gate = gate.clone();
            let unread = Arc::clone(&unread);
            thread::Builder::new()
                .name(format!("argus-{name}-rx"))
                .spawn(move || {
                    let waits = Waits {
                        stop: &stop,
                        woken,
                        failed,
                    };
                    let line = Inlet {
                        port,
                        events,
                        gate,
                        unread,
                    };
                    reader_loop(line, source, reopen, writer_tx, &waits, &down);
                })?
        };
        let tx = {
            let stop = stop.clone();
            thread::Builder::new()
                .name(format!("argus-{name}-tx"))
                .spawn(move || {
                    let ends = Ends {
                        events,
                        stop: &stop,
                        down: &down,
                        failed: failed_tx,
                    };
                    writer_loop(port, writer, line_rx, writer_rx, eol, &ends);
                })?
        };
        Ok(Link {
            direct: None,
            lines: Some(line_tx),
            conversation: AtomicU64::new(0),
            stamped,
            unread,
            stop,
            wake: Some(wake),
            threads: vec![rx, tx],
        })
    }

    /// Queues `line` (without terminator) for writing.
    pub fn send(&self, line: &str) {
        self.send_record(line, None);
    }

    /// [`Link::send`], with the record `line` was written from: an in-process client
    /// takes it as it is rather than reading the line again. Other lines carry the line
    /// alone.
    pub fn send_record(&self, line: &str, record: Option<Box<crate::epd::Record>>) {
        if let Some((end, port, events)) = &self.direct {
            // A client that let go of its line was reported lost when it did. The line
            // has left, and arrived, the moment it is handed over.
            let at = Instant::now();
            if end.deliver(line.as_bytes(), record, at) {
                report(
                    events,
                    *port,
                    LinkEvent::Drained {
                        at,
                        conversation: 0,
                    },
                );
            }
            return;
        }
        if let Some(lines) = &self.lines {
            let _ = lines.send((self.conversation(), line.as_bytes().to_vec()));
        }
    }

    /// Whether bytes have reached the line's connection that its reader has not read
    /// yet (a stamped line's router busy with other connections; Unix). False for other
    /// lines.
    pub fn has_unread(&self) -> bool {
        self.unread
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_some_and(|unread| unread())
    }

    /// Whether another thread reads and stamps the line's connection (`argus serve`'s
    /// players over TCP).
    pub fn is_stamped(&self) -> bool {
        self.stamped
    }

    /// The line's conversation: lines sent now are sent in it.
    pub fn conversation(&self) -> u64 {
        self.conversation.load(Ordering::Relaxed)
    }

    /// Starts the line's next conversation, on the mediator's thread, when it is told
    /// of a new connection (`LinkEvent::Back { fresh: true }`) and before the referee
    /// is: the lines sent before are the old connection's, and the writer drops those
    /// it has not written; the lines sent from now on go to the new connection.
    pub fn new_conversation(&self) {
        self.conversation.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether this is an in-process line ([`Link::direct`]).
    pub fn is_direct(&self) -> bool {
        self.direct.is_some()
    }

    /// Stops both threads once the writer has delivered what it was given (or the line
    /// is down) and waits for them.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.direct = None;
        self.lines = None;
        self.wake = None;
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        for t in self.threads.drain(..) {
            // A writer stuck in a drain that never ends (a line held off by flow
            // control) is left behind rather than holding the process.
            while !t.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                log::warn!("a line's thread is stuck in a write; leaving it behind");
            }
        }
    }
}

impl Drop for Link {
    /// A line dropped without [`Link::shutdown`] (its mediator failed) stops its
    /// threads all the same: none waits or spins on a line nobody drives.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Makes `fd` non-blocking: a read or write that would wait fails with `WouldBlock`
/// (for descriptors that a `poll` watches).
///
/// # Errors
///
/// The system's error when the flags cannot be read or set.
#[cfg(unix)]
pub fn set_nonblocking(fd: std::os::fd::RawFd) -> io::Result<()> {
    // SAFETY: fcntl with integer flags has no memory-safety preconditions; an fd that
    // is not open gives an error.
    let set = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    if set {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The timeout of a `poll` that waits `left`, in milliseconds, rounded up so that a
/// wait never ends before its deadline.
#[cfg(unix)]
pub fn poll_millis(left: Duration) -> libc::c_int {
    libc::c_int::try_from(left.as_micros().div_ceil(1000)).unwrap_or(libc::c_int::MAX)
}

fn report(events: &Sender<PortEvent>, port: Port, event: LinkEvent) {
    let _ = events.send(PortEvent { port, event });
}

fn mark_down(down: &AtomicBool, events: &Sender<PortEvent>, port: Port, error: &io::Error) {
    if !down.swap(true, Ordering::SeqCst) {
        log::info!("port {port}: line lost: {error}");
        report(
            events,
            port,
            LinkEvent::Lost {
                at: Instant::now(),
                error: error.to_string(),
            },
        );
    }
}

/// The stop flag of a line's reader, the channel that wakes it when the line shuts
/// down, and the one the writer wakes it with when a write failed.
struct Waits<'a> {
    stop: &'a AtomicBool,
    woken: Receiver<()>,
    failed: Receiver<()>,
}

impl Waits<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Waits `wait`, or less when the line shuts down.
    fn sleep(&self, wait: Duration) {
        let _ = self.woken.recv_timeout(wait);
    }
}

/// What a line's reader thread reads: bytes, which it splits and stamps itself, or
/// lines another thread stamped, which go to the mediator without it.
enum Source {
    Bytes(Box<dyn Read + Send>),
    Stamped(stamped::StampedLines),
}

/// Where a reader's lines go: the port's, into the mediator's channel, stamped behind
/// its gate; and where it says what tells of its connection's unread bytes.
struct Inlet {
    port: Port,
    events: Sender<PortEvent>,
    gate: Gate,
    unread: Arc<std::sync::Mutex<Option<stamped::Unread>>>,
}

impl Inlet {
    fn set_unread(&self, unread: Option<stamped::Unread>) {
        *self
            .unread
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = unread;
    }
}

impl Source {
    /// Starts delivering a stamped line's lines to the mediator.
    fn attach(&self, inlet: &Inlet) {
        if let Source::Stamped(lines) = self {
            lines.attach_gated(inlet.port, &inlet.events, &inlet.gate);
            inlet.set_unread(lines.unread());
        }
    }
}

fn reader_loop(
    inlet: Inlet,
    mut source: Source,
    mut reopen: Option<Opener>,
    writers: Sender<Option<Outlet>>,
    waits: &Waits<'_>,
    down: &AtomicBool,
) {
    let port = inlet.port;
    // New connections so far: each one a conversation of its own.
    let mut conversation = 0;
    let events = &inlet.events;
    let mut splitter = LineSplitter::new();
    let mut buf = vec![0u8; 4096];
    let mut last_byte = Instant::now();
    let emit = |piece: Piece, at: Instant| report(events, port, LinkEvent::of_piece(piece, at));
    source.attach(&inlet);
    while !waits.stopped() {
        let failure = if down.load(Ordering::SeqCst) {
            Some(io::Error::other("the writer failed"))
        } else {
            match &mut source {
                // Another thread reads the connection: this one only waits for its
                // end, the writer's failure or the line's shutdown, with no timeout,
                // so that a game waiting for a reply wakes no thread.
                Source::Stamped(lines) => crossbeam_channel::select! {
                    recv(lines.closed()) -> _ => Some(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        lines.why_closed(),
                    )),
                    recv(waits.failed) -> _ => None,
                    // Nothing is ever sent on it: it fires when the line shuts down or
                    // its Link is dropped.
                    recv(waits.woken) -> _ => return,
                },
                Source::Bytes(reader) => match reader.read(&mut buf) {
                    Ok(0) => Some(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file")),
                    Ok(n) => {
                        inlet.gate.stamp(|at| {
                            last_byte = at;
                            splitter.feed(&buf[..n], |piece| emit(piece, at));
                        });
                        None
                    }
                    Err(e) if is_idle(&e) => {
                        // A line whose terminator noise changed would wait for the next
                        // one; a program writes a line at once, so a line stalled this
                        // long ends here, stamped with its last byte.
                        if splitter.has_partial()
                            && last_byte.elapsed() >= STALLED_LINE
                            && let Some(piece) = splitter.take_partial()
                        {
                            log::debug!("port {port}: a line without its terminator ends here");
                            emit(piece, last_byte);
                        }
                        None
                    }
                    Err(e) => Some(e),
                },
            }
        };
        let Some(error) = failure else { continue };
        inlet.set_unread(None);
        mark_down(down, events, port, &error);
        // Let go of the failed line, reader and writer both: serialport opens ports
        // exclusively (TIOCEXCL and flock), so the device could not be opened again by
        // path while an old handle to it is still open.
        drop(std::mem::replace(
            &mut source,
            Source::Bytes(Box::new(io::empty())),
        ));
        let _ = writers.send(None);
        let Some(open) = reopen.as_mut() else {
            // Nothing to reopen: the line stays down.
            while !waits.stopped() {
                waits.sleep(READ_TIMEOUT);
            }
            return;
        };
        loop {
            if waits.stopped() {
                return;
            }
            waits.sleep(REOPEN_INTERVAL);
            if waits.stopped() {
                return;
            }
            let (next, writer, fresh) = match open() {
                Ok(Wire::Bytes(duplex)) => (Source::Bytes(duplex.reader), duplex.writer, false),
                Ok(Wire::Stamped(stamped::Stamped { lines, writer })) => {
                    (Source::Stamped(lines), writer, true)
                }
                Ok(Wire::Direct(_)) => {
                    log::debug!("port {port}: an in-process line is not reopened");
                    continue;
                }
                Err(e) => {
                    log::debug!("port {port}: reopen failed: {e}");
                    continue;
                }
            };
            source = next;
            splitter = LineSplitter::new();
            if fresh {
                conversation += 1;
            }
            let _ = writers.send(Some(Outlet {
                conversation,
                out: writer,
            }));
            down.store(false, Ordering::SeqCst);
            log::info!("port {port}: line back");
            report(
                events,
                port,
                LinkEvent::Back {
                    at: Instant::now(),
                    fresh,
                },
            );
            // After `back`: what the new connection sent (its sign_on) follows it.
            source.attach(&inlet);
            break;
        }
    }
}

/// What a line's writer reports to and watches: the mediator's channel, the line's
/// stop and down flags, and the reader it wakes when a write fails.
struct Ends<'a> {
    events: Sender<PortEvent>,
    stop: &'a AtomicBool,
    down: &'a AtomicBool,
    failed: Sender<()>,
}

fn writer_loop(
    port: Port,
    writer: Box<dyn Write + Send>,
    lines: Receiver<Queued>,
    writers: Receiver<Option<Outlet>>,
    eol: &'static [u8],
    ends: &Ends<'_>,
) {
    let Ends {
        events,
        stop,
        down,
        failed,
    } = ends;
    let mut writer = Some(Outlet {
        conversation: 0,
        out: writer,
    });
    // The conversation of the last writer handed over: a line of an older one is not
    // written (its connection is gone), whether it waits in the queue or was in hand.
    let mut conversation = 0;
    let take = |w: Option<Outlet>, writer: &mut Option<Outlet>, conversation: &mut u64| {
        if let Some(w) = &w {
            *conversation = w.conversation;
        }
        *writer = w;
    };
    loop {
        // The reader hands over a new writer after a reopen, or `None` to let go of a
        // failed line; between lines both are taken at once.
        let (sent_in, mut line) = crossbeam_channel::select! {
            recv(writers) -> w => {
                if let Ok(w) = w {
                    take(w, &mut writer, &mut conversation);
                }
                continue;
            }
            recv(lines) -> line => match line {
                Ok(line) => line,
                Err(_) => return,
            },
        };
        line.extend_from_slice(eol);
        loop {
            while let Ok(w) = writers.try_recv() {
                take(w, &mut writer, &mut conversation);
            }
            if sent_in < conversation {
                log::debug!("port {port}: a line for a connection that is gone, dropped");
                break;
            }
            let Some(w) = writer.as_mut() else {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                if let Ok(w) = writers.recv_timeout(READ_TIMEOUT) {
                    take(w, &mut writer, &mut conversation);
                }
                continue;
            };
            match write_and_drain(w.out.as_mut(), &line, stop) {
                Ok(()) => {
                    report(
                        events,
                        port,
                        LinkEvent::Drained {
                            at: Instant::now(),
                            conversation: sent_in,
                        },
                    );
                    break;
                }
                Err(e) => {
                    mark_down(down, events, port, &e);
                    let _ = failed.try_send(());
                    writer = None;
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                }
            }
        }
    }
}
