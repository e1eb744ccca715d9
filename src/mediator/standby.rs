//! The standby stream: a referee's journals offered to observers (`--standby-listen`),
//! and an observer's end of it ([`observer`]).
//!
//! The primary's journals each have a [`Tap`] that hands the [`Hub`] every line as it
//! is flushed to the file; the hub sends it to every connected observer, with the file's
//! name (relative to the referee's folder) and the offset where it was written. An
//! observer that connects is first sent what the files hold (up to their last whole
//! line), so it may join a running event. Nothing is sent but whole lines, so an
//! observer's copy is always a journal `--resume` reads.
//!
//! The wire is JSON Lines both ways, one [`Msg`] a line: `lines`, `beat` (every
//! [`BEAT`], so that an observer can tell a quiet primary from a dead one) and `end`
//! from the primary; `ack` and `took_over` from the observer. A line from an observer
//! longer than [`MAX_LINE`] closes its connection.
//!
//! With a key (`--standby-key FILE`), the two ends first prove they share it: the
//! primary sends `hello` with a nonce, the observer answers `auth` with a nonce of its
//! own and the HMAC-SHA256 of both under the key, and the primary, once it has checked
//! it (in constant time), sends `welcome` with its own HMAC of both, which the observer
//! checks before it believes anything. Until then the primary sends no journal byte
//! and believes no word of the observer's; a connection that fails is closed.
//!
//! With `sync` (`--standby-sync`), a flush that holds a line to be sent (a `tx` event)
//! waits until every observer has acknowledged it, so that no line reaches a player
//! before an observer holds it. An observer is waited for from the moment it has
//! caught up (acknowledged every line written when it connected, the folder it is sent
//! then, or when it was found lagging). The wait is bounded by [`SYNC_WAIT`]: an observer that does not
//! answer in time is said to lag and is not waited for again until it has caught up.

pub mod observer;

use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{RecvTimeoutError, Sender};
use serde::{Deserialize, Serialize};

use super::journal::Tap;
use crate::secret::{self, Key};

/// How often the primary says it is alive when it has nothing else to send.
pub const BEAT: Duration = Duration::from_millis(250);

/// The longest a flush waits for the observers' acknowledgement with `--standby-sync`.
pub const SYNC_WAIT: Duration = Duration::from_secs(2);

/// The port of the standby stream unless told another.
pub const DEFAULT_PORT: u16 = 5152;

/// The longest line the primary takes from an observer (its lines are a few dozen
/// bytes); a longer one closes the connection. The handshake's lines, both ways, are
/// bounded by it too.
pub const MAX_LINE: usize = 4096;

/// How long each end waits for the other's word in the handshake of a key.
pub const HANDSHAKE_WAIT: Duration = Duration::from_secs(5);

/// One line of the standby stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "m", rename_all = "snake_case")]
pub enum Msg {
    /// Lines written to a file of the referee's folder.
    Lines {
        /// The message's number, for the acknowledgement.
        seq: u64,
        /// The file, relative to the referee's folder (`/` between the parts).
        file: String,
        /// Where in the file the lines begin.
        at: u64,
        /// The lines, each with its `\n`.
        text: String,
    },
    /// Nothing new: the primary is alive.
    Beat,
    /// The primary ended (`stopped`: it stopped to be resumed, the event is not over).
    End {
        /// Whether it stopped before the end.
        stopped: bool,
    },
    /// The observer holds every message up to `seq`.
    Ack {
        /// The last message it holds.
        seq: u64,
    },
    /// The observer has taken over: the primary must go on no more.
    TookOver {
        /// Who took over (the observer's own address, for the message).
        by: String,
    },
    /// The primary asks for the key: its nonce (hexadecimal).
    Hello {
        /// 32 random bytes.
        nonce: String,
    },
    /// The observer proves it holds the key: its nonce, and the HMAC of both.
    Auth {
        /// 32 random bytes.
        nonce: String,
        /// HMAC-SHA256 under the key of the observer's label and both nonces.
        mac: String,
    },
    /// The primary proves it holds the key, and the stream begins.
    Welcome {
        /// HMAC-SHA256 under the key of the primary's label and both nonces.
        mac: String,
    },
}

/// What each end signs with the key, so that neither's answer is the other's.
const OBSERVER_LABEL: &[u8] = b"argus standby observer";
const PRIMARY_LABEL: &[u8] = b"argus standby primary";

/// Reads one line of at most [`MAX_LINE`] bytes (its `\n` included) into `line`.
///
/// # Errors
///
/// The system's error; `InvalidData` for a longer line (what was read of it is
/// dropped).
pub fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<usize> {
    let n = io::Read::take(&mut *input, MAX_LINE as u64 + 1).read_until(b'\n', line)?;
    if line.len() > MAX_LINE {
        line.clear();
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a line longer than {MAX_LINE} bytes"),
        ));
    }
    Ok(n)
}

/// One line of the handshake within [`HANDSHAKE_WAIT`], as a message.
fn handshake_msg(input: &mut BufReader<TcpStream>) -> Result<Msg, String> {
    input
        .get_ref()
        .set_read_timeout(Some(HANDSHAKE_WAIT))
        .map_err(|e| e.to_string())?;
    let mut line = Vec::new();
    match read_line(input, &mut line) {
        Ok(0) => Err("the connection closed".into()),
        Ok(_) if line.ends_with(b"\n") => {
            Msg::parse(&line).map_err(|_| "a line that is no message of the stream".to_string())
        }
        Ok(_) => Err("the connection closed in a line".into()),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(format!("no answer within {} s", HANDSHAKE_WAIT.as_secs()))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The primary's side of the handshake of `key` on a new connection.
fn prove_primary(input: &mut BufReader<TcpStream>, key: &Key) -> Result<(), String> {
    let mine = secret::nonce();
    let hello = Msg::Hello {
        nonce: secret::hex(&mine),
    };
    input
        .get_ref()
        .set_write_timeout(Some(HANDSHAKE_WAIT))
        .map_err(|e| e.to_string())?;
    (&mut input.get_ref())
        .write_all(hello.line().as_bytes())
        .map_err(|e| e.to_string())?;
    let Msg::Auth { nonce, mac } = handshake_msg(input)? else {
        return Err("it did not answer the key's challenge".into());
    };
    let theirs = secret::from_hex(&nonce).filter(|n| n.len() == 32);
    let tag = secret::from_hex(&mac);
    let (Some(theirs), Some(tag)) = (theirs, tag) else {
        return Err("an answer to the key's challenge that is not one".into());
    };
    if !secret::verify(key.bytes(), &[OBSERVER_LABEL, &mine, &theirs], &tag) {
        return Err("it does not hold the key (--standby-key)".into());
    }
    let welcome = Msg::Welcome {
        mac: secret::hex(&secret::mac(key.bytes(), &[PRIMARY_LABEL, &mine, &theirs])),
    };
    (&mut input.get_ref())
        .write_all(welcome.line().as_bytes())
        .map_err(|e| e.to_string())?;
    input
        .get_ref()
        .set_read_timeout(None)
        .map_err(|e| e.to_string())
}

/// Why the observer's handshake failed.
#[derive(Debug)]
pub enum Unproven {
    /// The connection was lost or timed out: try again.
    Lost(String),
    /// The two ends do not share a key: trying again changes nothing.
    Refused(String),
}

/// The observer's side of the handshake on a new connection to the primary: with a
/// key, proves it holds it and checks that the primary does; without one, the stream
/// begins at once.
///
/// # Errors
///
/// [`Unproven`], with why in a sentence.
pub fn prove_observer(input: &mut BufReader<TcpStream>, key: Option<&Key>) -> Result<(), Unproven> {
    let Some(key) = key else {
        return Ok(());
    };
    prove_keyed(input, key)
}

fn prove_keyed(input: &mut BufReader<TcpStream>, key: &Key) -> Result<(), Unproven> {
    use Unproven::{Lost, Refused};
    let theirs = match handshake_msg(input).map_err(Lost)? {
        Msg::Hello { nonce } => secret::from_hex(&nonce)
            .filter(|n| n.len() == 32)
            .ok_or(Refused("a challenge that is not one".into()))?,
        _ => {
            return Err(Refused(
                "the primary asks for no key (its --standby-listen has no --standby-key): give both the same key, or neither".into(),
            ));
        }
    };
    let mine = secret::nonce();
    let auth = Msg::Auth {
        nonce: secret::hex(&mine),
        mac: secret::hex(&secret::mac(key.bytes(), &[OBSERVER_LABEL, &theirs, &mine])),
    };
    (&mut input.get_ref())
        .write_all(auth.line().as_bytes())
        .map_err(|e| Lost(e.to_string()))?;
    let Msg::Welcome { mac } = handshake_msg(input).map_err(|e| {
        Lost(format!(
            "{e} after this observer's proof of its key: is --standby-key the primary's?"
        ))
    })?
    else {
        return Err(Refused("the primary did not answer the key's proof".into()));
    };
    let tag = secret::from_hex(&mac).ok_or(Refused("a proof of the key that is not one".into()))?;
    if !secret::verify(key.bytes(), &[PRIMARY_LABEL, &theirs, &mine], &tag) {
        return Err(Refused(
            "the primary does not hold this observer's key (--standby-key)".into(),
        ));
    }
    Ok(())
}

impl Msg {
    /// The message as one line of the stream.
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }

    /// Reads one line of the stream.
    ///
    /// # Errors
    ///
    /// The parser's error when the line is not a message.
    pub fn parse(line: &[u8]) -> Result<Msg, serde_json::Error> {
        serde_json::from_slice(line)
    }
}

/// Whether `text` holds a line the referee sends (a journal `tx` event).
fn holds_tx(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n')
        .any(|line| line.starts_with(br#"{"ev":"tx""#))
}

/// What the hub does when an observer says it took over (the command exits).
pub type OnTaken = Box<dyn Fn(&str) + Send + Sync>;

/// The primary's end of the standby stream.
pub struct Hub {
    root: PathBuf,
    /// The one journal offered (a match's), when not all of the folder's.
    only: Option<PathBuf>,
    sync: bool,
    addr: SocketAddr,
    /// The key an observer must prove it holds (`--standby-key`).
    key: Option<Key>,
    state: Mutex<State>,
    acked: Condvar,
    on_taken: OnTaken,
}

#[derive(Default)]
struct State {
    seq: u64,
    next_id: u64,
    peers: Vec<Peer>,
    closed: bool,
}

struct Peer {
    id: u64,
    addr: SocketAddr,
    tx: Sender<String>,
    acked: u64,
    /// Not waited for until it catches up (to `catch_up_to`): it joined and is being
    /// sent the folder (or it is no observer), or it did not answer within
    /// [`SYNC_WAIT`].
    lagging: bool,
    /// The line a lagging observer must acknowledge to be waited for again: the last
    /// line written when it came or was found lagging. A mark that stands still, so
    /// that an observer that follows a busy event does catch up (the newest line,
    /// under load, would always be ahead of it).
    catch_up_to: u64,
    writer: Option<JoinHandle<()>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    /// Listens for observers on `addr`, offering the journals of the folder `root`
    /// (with `key`, to observers that prove they hold it). `on_taken` is called when an
    /// observer says it has taken over.
    ///
    /// # Errors
    ///
    /// The system's error when the address cannot be bound.
    pub fn listen(
        addr: SocketAddr,
        root: &Path,
        sync: bool,
        key: Option<Key>,
        on_taken: OnTaken,
    ) -> io::Result<Arc<Hub>> {
        Hub::start(addr, root, None, sync, key, on_taken)
    }

    /// Listens for observers on `addr`, offering the journal at `journal` alone (a
    /// match of `argus serial`, whose folder may hold other files).
    ///
    /// # Errors
    ///
    /// As [`Hub::listen`].
    pub fn listen_for_journal(
        addr: SocketAddr,
        journal: &Path,
        sync: bool,
        key: Option<Key>,
        on_taken: OnTaken,
    ) -> io::Result<Arc<Hub>> {
        let root = journal
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = journal.file_name().map(PathBuf::from);
        Hub::start(addr, root, name, sync, key, on_taken)
    }

    fn start(
        addr: SocketAddr,
        root: &Path,
        only: Option<PathBuf>,
        sync: bool,
        key: Option<Key>,
        on_taken: OnTaken,
    ) -> io::Result<Arc<Hub>> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() {
            log::warn!("standby: offering the journals on {addr}, not only this machine, as asked");
        }
        let hub = Arc::new(Hub {
            root: root.to_path_buf(),
            only,
            sync,
            addr,
            key,
            state: Mutex::default(),
            acked: Condvar::new(),
            on_taken,
        });
        let accepting = Arc::clone(&hub);
        std::thread::Builder::new()
            .name("argus-standby".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    match stream {
                        Ok(stream) => {
                            let hub = Arc::clone(&accepting);
                            let _ = std::thread::Builder::new()
                                .name("argus-standby-peer".into())
                                .spawn(move || hub.serve(stream));
                        }
                        Err(e) => log::warn!("standby: {e}"),
                    }
                }
            })?;
        lock(&HUBS).push(Arc::downgrade(&hub));
        Ok(hub)
    }

    /// The address observers connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The observers connected.
    pub fn observers(&self) -> usize {
        lock(&self.state).peers.len()
    }

    /// A tap for a journal of the folder.
    pub fn tap(self: &Arc<Self>) -> Box<dyn Tap> {
        Box::new(HubTap(Arc::clone(self)))
    }

    /// The file's name in the stream: relative to the folder, `/` between its parts.
    fn name(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).ok().or_else(|| {
            // The folder as given and the path as joined may differ by a `./`.
            path.file_name().map(Path::new)
        });
        let rel = rel.unwrap_or(path);
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Sends `text`, written at `at` in the file `path`, to every observer; with
    /// `sync`, waits for their acknowledgement when it holds a line to be sent.
    pub fn publish(&self, path: &Path, at: u64, text: &[u8]) {
        let mut state = lock(&self.state);
        if state.closed {
            return;
        }
        state.seq += 1;
        let seq = state.seq;
        let line = Msg::Lines {
            seq,
            file: self.name(path),
            at,
            text: String::from_utf8_lossy(text).into_owned(),
        }
        .line();
        for peer in &state.peers {
            let _ = peer.tx.send(line.clone());
        }
        if !self.sync || !holds_tx(text) {
            return;
        }
        let until = Instant::now() + SYNC_WAIT;
        loop {
            let waiting = state.peers.iter().any(|p| !p.lagging && p.acked < seq);
            if !waiting {
                return;
            }
            let now = Instant::now();
            if now >= until {
                let last = state.seq;
                for peer in state.peers.iter_mut().filter(|p| p.acked < seq) {
                    peer.catch_up_to = last;
                    if !peer.lagging {
                        log::warn!(
                            "standby: the observer at {} has not acknowledged within {:?}: going on without it until it catches up",
                            peer.addr,
                            SYNC_WAIT
                        );
                    }
                    peer.lagging = true;
                }
                // The other writes waiting for it need not wait out their own bound.
                self.acked.notify_all();
                return;
            }
            state = self
                .acked
                .wait_timeout(state, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Tells the observers the primary ended (`stopped`: before the event's end) and
    /// waits, a little, for the words to leave.
    pub fn close(&self, stopped: bool) {
        self.close_by(stopped, None);
    }

    /// [`Hub::close`], waiting for the words to leave until `deadline` at most.
    fn close_by(&self, stopped: bool, deadline: Option<Instant>) {
        let writers: Vec<JoinHandle<()>> = {
            let mut state = lock(&self.state);
            state.closed = true;
            let end = Msg::End { stopped }.line();
            state
                .peers
                .drain(..)
                .filter_map(|mut p| {
                    let _ = p.tx.send(end.clone());
                    p.writer.take()
                })
                .collect()
        };
        // Their senders are gone with the peers: each writer ends once it has written.
        for writer in writers {
            while deadline.is_some_and(|d| Instant::now() < d) && !writer.is_finished() {
                std::thread::sleep(Duration::from_millis(5));
            }
            if deadline.is_none() || writer.is_finished() {
                let _ = writer.join();
            }
        }
    }

    /// One observer's connection: the folder's files so far, then every line as it is
    /// written; its acknowledgements and its word that it took over.
    fn serve(self: Arc<Self>, stream: TcpStream) {
        let addr = stream
            .peer_addr()
            .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)));
        let _ = stream.set_nodelay(true);
        let Ok(reading) = stream.try_clone() else {
            return;
        };
        let mut input = BufReader::new(reading);
        // Nothing is sent, and nothing believed, before the observer proves it holds
        // the key.
        if let Some(key) = &self.key
            && let Err(why) = prove_primary(&mut input, key)
        {
            log::warn!("standby: the connection from {addr} is refused: {why}");
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return;
        }
        let _ = stream.set_write_timeout(Some(SYNC_WAIT));
        let writing = stream;
        let (tx, rx) = crossbeam_channel::unbounded::<String>();
        let id = {
            let mut state = lock(&self.state);
            if state.closed {
                return;
            }
            // From now on every line published reaches this observer too. Its writer
            // first sends what the files hold, read after this (outside the lock, so
            // that no journal waits while a big folder is read): every line published
            // before is in them, every line after is in the channel, and a line in both
            // is written once by the observer (it takes only what its copy lacks).
            // The files go under one number, below every later line's.
            state.seq += 1;
            let seq = state.seq;
            state.next_id += 1;
            let id = state.next_id;
            let hub = Arc::clone(&self);
            let writer = std::thread::Builder::new()
                .name("argus-standby-send".into())
                .spawn(move || {
                    let mut out = writing;
                    let mut sent = send_snapshot(&hub.root, hub.only.as_deref(), seq, &mut out);
                    while sent.is_ok() {
                        let line = match rx.recv_timeout(BEAT) {
                            Ok(line) => line,
                            Err(RecvTimeoutError::Timeout) => Msg::Beat.line(),
                            Err(RecvTimeoutError::Disconnected) => break,
                        };
                        sent = out.write_all(line.as_bytes());
                    }
                    if sent.is_err() {
                        // Stalled or gone: the connection is closed both ways, so that
                        // its reader thread ends too.
                        hub.forget(id);
                        let _ = out.shutdown(std::net::Shutdown::Both);
                    } else {
                        let _ = out.shutdown(std::net::Shutdown::Write);
                    }
                })
                .ok();
            state.peers.push(Peer {
                id,
                addr,
                tx,
                acked: 0,
                // Waited for once it holds what the files held when it came: a
                // connection that never acknowledges (a port scan, an observer's word
                // that it took over) holds no write up.
                lagging: true,
                catch_up_to: seq,
                writer,
            });
            id
        };
        log::info!("standby: an observer at {addr} follows");
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_line(&mut input, &mut line) {
                Ok(0) => break,
                Err(e) => {
                    if e.kind() == io::ErrorKind::InvalidData {
                        log::warn!("standby: the observer at {addr} sent {e}: connection closed");
                        let _ = input.get_ref().shutdown(std::net::Shutdown::Both);
                    }
                    break;
                }
                Ok(_) => {}
            }
            match Msg::parse(&line) {
                Ok(Msg::Ack { seq }) => {
                    let mut state = lock(&self.state);
                    if let Some(peer) = state.peers.iter_mut().find(|p| p.id == id) {
                        peer.acked = peer.acked.max(seq);
                        if peer.lagging && peer.acked >= peer.catch_up_to {
                            log::info!("standby: the observer at {addr} has caught up");
                            peer.lagging = false;
                        }
                    }
                    self.acked.notify_all();
                }
                Ok(Msg::TookOver { by }) => {
                    (self.on_taken)(&format!("{by} (from {addr})"));
                }
                Ok(_) => {}
                Err(e) => log::warn!("standby: the observer at {addr} sent no message: {e}"),
            }
        }
        log::info!("standby: the observer at {addr} is gone");
        self.forget(id);
    }

    fn forget(&self, id: u64) {
        lock(&self.state).peers.retain(|p| p.id != id);
        self.acked.notify_all();
    }
}

/// The hubs of this process, for [`end_now`].
static HUBS: Mutex<Vec<Weak<Hub>>> = Mutex::new(Vec::new());

/// Tells the observers of every hub of this process that the referee stopped (to be
/// resumed), waiting `limit` at most for the words to leave: for a referee that exits
/// at once (a second interrupt), so that its observers do not take over what its
/// operator stopped.
pub fn end_now(limit: Duration) {
    let hubs: Vec<Arc<Hub>> = lock(&HUBS).iter().filter_map(Weak::upgrade).collect();
    let deadline = Instant::now() + limit;
    for hub in hubs {
        hub.close_by(true, Some(deadline));
    }
}

struct HubTap(Arc<Hub>);

impl Tap for HubTap {
    fn written(&self, path: &Path, at: u64, text: &[u8]) {
        self.0.publish(path, at, text);
    }
}

/// Sends the journals of the folder `root` (its `.jsonl` files, those in its folders
/// too; or the one journal `only`), each up to its last whole line and under the
/// number `seq`, the event's own journal first: one file read at a time.
fn send_snapshot(
    root: &Path,
    only: Option<&Path>,
    seq: u64,
    out: &mut impl Write,
) -> io::Result<()> {
    for rel in journals(root, only) {
        let Ok(text) = fs::read(root.join(&rel)) else {
            continue;
        };
        let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let file = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        // In pieces of whole lines, so that no message takes long to come (an
        // observer counts the silence between them) or to hold.
        let mut at = 0;
        loop {
            let end = if whole - at <= SNAPSHOT_PIECE {
                whole
            } else {
                let cut = at + SNAPSHOT_PIECE;
                text[at..cut]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map(|i| at + i + 1)
                    .or_else(|| {
                        text[cut..whole]
                            .iter()
                            .position(|&b| b == b'\n')
                            .map(|i| cut + i + 1)
                    })
                    .unwrap_or(whole)
            };
            let msg = Msg::Lines {
                seq,
                file: file.clone(),
                at: at as u64,
                text: String::from_utf8_lossy(&text[at..end]).into_owned(),
            };
            out.write_all(msg.line().as_bytes())?;
            at = end;
            if at >= whole {
                break;
            }
        }
    }
    Ok(())
}

/// The most a message of the journals sent to an observer that connects holds (but a
/// longer line goes whole).
const SNAPSHOT_PIECE: usize = 256 * 1024;

/// The journals of the folder `root` (or the one journal `only`), relative to it: the
/// event's own journal first.
fn journals(root: &Path, only: Option<&Path>) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    if let Some(only) = only {
        found.push(only.to_path_buf());
        dirs.clear();
    }
    while let Some(rel) = dirs.pop() {
        let Ok(entries) = fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let rel = rel.join(entry.file_name());
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                dirs.push(rel);
            } else if rel.extension().is_some_and(|e| e == "jsonl") {
                found.push(rel);
            }
        }
    }
    found.sort_by_key(|rel| (rel.components().count(), rel.clone()));
    found
}

/// Says to the primary at `addr` that this observer took over, on a connection of its
/// own (proving first that it holds `key`, when there is one); returns whether the
/// primary heard it.
pub fn tell_taken(addr: &str, by: &str, key: Option<&Key>) -> bool {
    use std::net::ToSocketAddrs;
    let Some(target) = addr.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
        return false;
    };
    let Ok(mut stream) = TcpStream::connect_timeout(&target, Duration::from_secs(1)) else {
        return false;
    };
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    if key.is_some() {
        let Ok(reading) = stream.try_clone() else {
            return false;
        };
        if prove_observer(&mut BufReader::new(reading), key).is_err() {
            return false;
        }
    }
    stream
        .write_all(Msg::TookOver { by: by.to_string() }.line().as_bytes())
        .is_ok()
}

#[cfg(test)]
mod tests;
