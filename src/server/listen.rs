//! The TCP listener of `argus serve` (profile section 9): a connection's first record
//! must be a `sign_on` within [`SIGN_ON_WITHIN`]; the registry then admits it under its
//! name, or it gets a `fault` that says why and is closed.
//!
//! Connections that have not signed on yet wait in the listener's own thread (no
//! thread each), [`MAX_WAITING`] at most and [`MAX_WAITING_PER_HOST`] from one host,
//! apart from `--max-clients`, which counts the players' connections. A stranger
//! cannot take the places by opening connections and saying nothing: beyond a limit,
//! the oldest waiting connection (of the new one's host, or of the host with the most
//! waiting) is closed to make room, and a connection whose `sign_on` is in at once is
//! admitted without taking a place at all. So a listed player with its token always
//! gets in. Refusals are said to each connection and counted, and the log says them
//! at most once every [`REPORT_EVERY`].

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::Chess;

use super::registry::Registry;
use crate::core::referee::{REFCOM, command_record};
use crate::epd::{Operand, Record};

/// How long a new connection has to send its `sign_on`: a client sends it at once.
pub const SIGN_ON_WITHIN: Duration = Duration::from_secs(3);

/// The connections that may wait for their `sign_on` at once.
pub const MAX_WAITING: usize = 64;

/// The connections from one host (IP address) that may wait for their `sign_on`.
pub const MAX_WAITING_PER_HOST: usize = 8;

/// The log says the refusals at most this often.
pub const REPORT_EVERY: Duration = Duration::from_secs(5);

/// The longest first line read from a connection.
const MAX_FIRST_LINE: usize = 4096;

/// The connections argus serve takes at once unless told otherwise (`--max-clients`).
pub const MAX_CLIENTS: usize = 256;

/// The most connections taken from the listener's queue in one turn of its loop, so
/// that the waiting ones are read between bursts.
const ACCEPT_BURST: usize = 256;

/// A connection that has not signed on yet.
struct Waiting {
    stream: TcpStream,
    peer: SocketAddr,
    since: Instant,
}

/// Listens on `listener` until `stop` is set, admitting connections to `registry`
/// (`max_clients` players' connections at most, a listed player with its token
/// always).
pub fn serve(
    listener: TcpListener,
    registry: Arc<Registry>,
    stop: Arc<AtomicBool>,
    max_clients: usize,
) {
    let _ = listener.set_nonblocking(true);
    let mut waiting: Vec<Waiting> = Vec::new();
    let mut refusals = Refusals::default();
    let admit = |stream: TcpStream, peer, line, refusals: &mut Refusals| {
        admit(stream, peer, line, &registry, max_clients, refusals);
    };
    while !stop.load(Ordering::SeqCst) {
        // The waiting connections' first lines, and their deadline.
        let mut i = 0;
        while i < waiting.len() {
            let w = &waiting[i];
            match first_line(&w.stream) {
                Ok(None) if w.since.elapsed() < SIGN_ON_WITHIN => i += 1,
                Ok(None) => {
                    let w = waiting.swap_remove(i);
                    let why = format!("no sign_on within {} s", SIGN_ON_WITHIN.as_secs());
                    refusals.refuse(w.stream, w.peer, &why);
                }
                Ok(Some(line)) => {
                    let w = waiting.swap_remove(i);
                    admit(w.stream, w.peer, line, &mut refusals);
                }
                Err(e) => {
                    let w = waiting.swap_remove(i);
                    refusals.refuse(w.stream, w.peer, &not_signed_on(&e));
                }
            }
        }
        // New connections.
        for _ in 0..ACCEPT_BURST {
            match listener.accept() {
                Ok((stream, peer)) => {
                    let _ = stream.set_nonblocking(true);
                    let _ = stream.set_nodelay(true);
                    let _ = crate::transport::tcp::keep_alive(&stream);
                    // Its lines are stamped when they arrive, not when they are read.
                    let _ = crate::transport::tcp::stamp_arrivals(&stream);
                    // A sign_on in already is admitted (or refused) at once: it takes
                    // no place among the waiting.
                    match first_line(&stream) {
                        Ok(Some(line)) => {
                            admit(stream, peer, line, &mut refusals);
                            continue;
                        }
                        Ok(None) => {}
                        Err(e) => {
                            refusals.refuse(stream, peer, &not_signed_on(&e));
                            continue;
                        }
                    }
                    // Room for it: the connection to close is looked at once more,
                    // and admitted instead if its sign_on came meanwhile.
                    while let Some(old) = make_room(&waiting, peer.ip()) {
                        let w = waiting.remove(old);
                        if let Ok(Some(line)) = first_line(&w.stream) {
                            admit(w.stream, w.peer, line, &mut refusals);
                            continue;
                        }
                        let why = format!(
                            "too many connections waiting to sign on: {}",
                            crate::client::TRY_AGAIN
                        );
                        refusals.refuse(w.stream, w.peer, &why);
                        break;
                    }
                    waiting.push(Waiting {
                        stream,
                        peer,
                        since: Instant::now(),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    refusals.failed(&e);
                    std::thread::sleep(Duration::from_millis(50));
                    break;
                }
            }
        }
        refusals.report_if_due();
        std::thread::sleep(Duration::from_millis(if waiting.is_empty() {
            20
        } else {
            10
        }));
    }
    // What was counted and not said yet.
    refusals.report();
}

/// Why a connection whose first line failed (`e`) is refused.
fn not_signed_on(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::InvalidData {
        "the first record must be a sign_on (its line is too long)".to_string()
    } else {
        format!("no sign_on ({e})")
    }
}

/// The waiting connection to close before one more from `host` waits: the oldest of
/// `host`'s when it has [`MAX_WAITING_PER_HOST`], else the oldest of the host with the
/// most waiting when [`MAX_WAITING`] wait. None while there is room.
fn make_room(waiting: &[Waiting], host: IpAddr) -> Option<usize> {
    let oldest_of = |host: IpAddr| {
        waiting
            .iter()
            .enumerate()
            .filter(|(_, w)| w.peer.ip() == host)
            .min_by_key(|(_, w)| w.since)
            .map(|(i, _)| i)
    };
    if waiting.iter().filter(|w| w.peer.ip() == host).count() >= MAX_WAITING_PER_HOST {
        return oldest_of(host);
    }
    if waiting.len() < MAX_WAITING {
        return None;
    }
    let mut per_host: BTreeMap<IpAddr, usize> = BTreeMap::new();
    for w in waiting {
        *per_host.entry(w.peer.ip()).or_default() += 1;
    }
    let busiest = per_host.into_iter().max_by_key(|&(_, n)| n)?.0;
    oldest_of(busiest)
}

/// The refusals since the log last said them.
#[derive(Default)]
struct Refusals {
    /// How many, by reason (the first few reasons; the rest are "other").
    reasons: BTreeMap<String, usize>,
    /// The hosts they came from (the first few).
    hosts: Vec<IpAddr>,
    /// How many hosts beyond those.
    more_hosts: usize,
    /// Connections the system failed to accept.
    failed: usize,
    last_failure: Option<String>,
    /// When the log last said them.
    said: Option<Instant>,
}

impl Refusals {
    /// Says `why` to the connection in a `fault`, closes it and counts it.
    fn refuse(&mut self, stream: TcpStream, peer: SocketAddr, why: &str) {
        refuse(stream, why);
        if self.due() {
            log::warn!("argus serve: connection from {peer} refused: {why}");
            self.said = Some(Instant::now());
            return;
        }
        let key = if self.reasons.len() < 8 || self.reasons.contains_key(why) {
            why.to_string()
        } else {
            "other reasons".to_string()
        };
        *self.reasons.entry(key).or_default() += 1;
        if !self.hosts.contains(&peer.ip()) {
            if self.hosts.len() < 3 {
                self.hosts.push(peer.ip());
            } else {
                self.more_hosts += 1;
            }
        }
    }

    /// A connection the system could not accept (out of descriptors, say).
    fn failed(&mut self, e: &io::Error) {
        if self.due() {
            log::warn!("argus serve: accept: {e}");
            self.said = Some(Instant::now());
        } else {
            self.failed += 1;
            self.last_failure = Some(e.to_string());
        }
    }

    /// Whether nothing was said for [`REPORT_EVERY`].
    fn due(&self) -> bool {
        self.said.is_none_or(|at| at.elapsed() >= REPORT_EVERY)
    }

    /// Says what was counted, once [`REPORT_EVERY`] has passed since the log last said
    /// anything.
    fn report_if_due(&mut self) {
        if self.due() {
            self.report();
        }
    }

    /// Says what was counted, if anything.
    fn report(&mut self) {
        if self.reasons.is_empty() && self.failed == 0 {
            return;
        }
        let seconds = self.said.map_or(REPORT_EVERY.as_secs(), |at| {
            at.elapsed().as_secs_f64().round() as u64
        });
        if !self.reasons.is_empty() {
            let total: usize = self.reasons.values().sum();
            let reasons: Vec<String> = self
                .reasons
                .iter()
                .map(|(why, n)| format!("{n} {why}"))
                .collect();
            let mut hosts: Vec<String> = self.hosts.iter().map(IpAddr::to_string).collect();
            if self.more_hosts > 0 {
                hosts.push(format!("{} other host(s)", self.more_hosts));
            }
            log::warn!(
                "argus serve: refused {total} connection(s) in the last {seconds} s: {} (from {})",
                reasons.join("; "),
                hosts.join(", ")
            );
        }
        if self.failed > 0 {
            log::warn!(
                "argus serve: {} connection(s) could not be accepted in the last {seconds} s ({})",
                self.failed,
                self.last_failure.as_deref().unwrap_or_default()
            );
        }
        *self = Refusals {
            said: Some(Instant::now()),
            ..Refusals::default()
        };
    }
}

/// Says `why` to a connection in a `fault` (if it can take it at once) and closes it.
fn refuse(mut stream: TcpStream, why: &str) {
    let _ = stream.set_nonblocking(true);
    let _ = stream.write_all(
        format!(
            "{}\n",
            command_record(&Chess::default(), REFCOM, "fault", Some(why))
        )
        .as_bytes(),
    );
}

/// Has the registry admit or refuse a connection whose first line is `line`.
fn admit(
    stream: TcpStream,
    peer: SocketAddr,
    line: Vec<u8>,
    registry: &Arc<Registry>,
    max_clients: usize,
    refusals: &mut Refusals,
) {
    let rec = match Record::from_ascii(&line) {
        Ok(rec) if rec.refreq() == Some("sign_on") => rec,
        Ok(_) => return refusals.refuse(stream, peer, "the first record must be a sign_on"),
        Err(e) => {
            // A sign_on that does not read says why (a name over 255 bytes, say).
            let why = if line.windows(7).any(|w| w == b"sign_on") {
                format!("the sign_on cannot be read: {e}")
            } else {
                format!("the first record must be a sign_on, and cannot be read: {e}")
            };
            return refusals.refuse(stream, peer, &why);
        }
    };
    let text = |opcode: &str, i: usize| {
        rec.operands(opcode)
            .and_then(|ops| ops.get(i))
            .and_then(Operand::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (name, token) = (text("tcsi", 1), text("token", 0));
    let _ = stream.set_nonblocking(false);
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(e) => return log::warn!("argus serve: {peer}: {e}"),
    };
    match registry.admit(
        stream,
        peer,
        (name.as_deref(), token.as_deref()),
        line,
        max_clients,
    ) {
        Ok(name) => println!("argus serve: {name} connected from {peer}"),
        Err(refusal) => refusals.refuse(writer, peer, &refusal.0),
    }
}

/// The connection's first line if it is in, without waiting; None while it is not
/// whole. Leading line ends are skipped; nothing after the line's end is taken from the
/// connection (the player's router reads it).
///
/// # Errors
///
/// The connection closed or failed; `InvalidData` when the line passes
/// [`MAX_FIRST_LINE`] bytes.
fn first_line(mut stream: &TcpStream) -> io::Result<Option<Vec<u8>>> {
    let mut buf = [0u8; MAX_FIRST_LINE + 1];
    loop {
        let n = match stream.peek(&mut buf) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed")),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = |b: &u8| *b == b'\n' || *b == b'\r';
        let lead = buf[..n].iter().take_while(|b| end(b)).count();
        if lead > 0 {
            stream.read_exact(&mut buf[..lead])?;
            continue;
        }
        return match buf[..n].iter().position(end) {
            Some(len) => {
                let mut line = vec![0u8; len + 1];
                stream.read_exact(&mut line)?;
                line.truncate(len);
                Ok(Some(line))
            }
            None if n > MAX_FIRST_LINE => {
                Err(io::Error::new(io::ErrorKind::InvalidData, "line too long"))
            }
            None => Ok(None),
        };
    }
}
