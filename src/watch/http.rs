//! The audience's page (`--http ADDR`): every game in progress as a board with names,
//! clocks, last move, result and standings, updated live by server-sent events (served by hand: one request a connection, a thread each, [`MAX_CONNECTIONS`] at most); one
//! game large with its moves and evaluations; the round's live PGN; and the event
//! stream itself. Every asset comes from the binary: a club hall has no internet.
//!
//! | path | what |
//! |---|---|
//! | `/` | every game of the round |
//! | `/game/N` | game N, large, with its moves and the engines' evaluations |
//! | `/live.pgn` | the round's games in PGN with `[%clk]`, as broadcasts poll it |
//! | `/events` | the server-sent events: a `snapshot`, then each change (docs/views.md) |
//! | `/state.json` | the snapshot alone |
//!
//! The event stream sends a `heartbeat` every second, so that a page can tell a feed
//! that has stopped (the referee killed, the network gone) from a quiet one.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;

use super::live::{Live, heartbeat};
use super::pgn::live_pgn;

/// How often the event stream says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// How many pages may follow the event stream at once.
pub const MAX_STREAMS: usize = 64;
/// How many connections the page holds at once (event streams included), each on a
/// thread of its own: one beyond them is answered 503 and closed at once, so that the
/// audience, or a stranger's idle connections, never take the descriptors and threads
/// the players' games need.
pub const MAX_CONNECTIONS: usize = 128;
/// How long a connection may take to send its request.
pub const REQUEST_WAIT: Duration = Duration::from_secs(5);
/// The longest request head read.
const MAX_HEAD: usize = 8192;

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");

/// The event and site the live PGN names.
#[derive(Clone, Debug)]
pub struct Names {
    /// The event.
    pub event: String,
    /// Where it is played.
    pub site: String,
}

/// Reads `--http`'s address: `HOST:PORT`, or a port alone for the loopback address.
///
/// # Errors
///
/// A message naming the address when it does not resolve.
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.to_socket_addrs()
        .map_err(|e| format!("--http {text}: {e}"))?
        .next()
        .ok_or_else(|| format!("--http {text}: the address resolves to nothing"))
}

/// Serves the page on `addr` from a thread of its own, for as long as the process
/// runs; returns the address it listens on (the port chosen when `addr` gives 0).
/// Each connection is one request on a thread of its own, [`MAX_CONNECTIONS`] at
/// most; an error of the listener (no descriptor left) is waited out, never fatal.
///
/// # Errors
///
/// The system's error when the address cannot be bound or a thread started.
pub fn serve(addr: SocketAddr, live: Arc<Live>, names: Names) -> io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr)
        .map_err(|e| io::Error::new(e.kind(), format!("--http {addr}: {e}")))?;
    let bound = listener.local_addr()?;
    if !bound.ip().is_loopback() {
        log::warn!(
            "the audience's page is served on {bound}, beyond this machine: anyone who can reach it sees the games"
        );
    }
    let page = Arc::new(Page {
        live,
        names,
        open: AtomicUsize::new(0),
        streams: AtomicUsize::new(0),
    });
    std::thread::Builder::new()
        .name("argus-http".into())
        .spawn(move || accept_loop(&listener, &page))?;
    Ok(bound)
}

/// What the page's connections share.
struct Page {
    live: Arc<Live>,
    names: Names,
    /// Connections open.
    open: AtomicUsize,
    /// Of them, pages following the event stream.
    streams: AtomicUsize,
}

/// Takes connections for as long as the process runs.
fn accept_loop(listener: &TcpListener, page: &Arc<Page>) {
    let mut refused = 0u64;
    let mut errors = 0u64;
    let mut said = Instant::now();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                if page.open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    page.open.fetch_sub(1, Ordering::SeqCst);
                    refused += 1;
                    busy(stream);
                } else {
                    let page2 = Arc::clone(page);
                    let spawned = std::thread::Builder::new()
                        .name("argus-http-conn".into())
                        .spawn(move || {
                            connection(stream, &page2);
                            page2.open.fetch_sub(1, Ordering::SeqCst);
                        });
                    if let Err(e) = spawned {
                        page.open.fetch_sub(1, Ordering::SeqCst);
                        log::debug!("the page: no thread for a connection: {e}");
                        errors += 1;
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // Out of descriptors, say: wait for some to come back.
                log::debug!("the page: accept: {e}");
                errors += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        if (refused > 0 || errors > 0) && said.elapsed() >= Duration::from_secs(5) {
            log::warn!(
                "the page: {refused} connection(s) refused ({MAX_CONNECTIONS} open at most), {errors} error(s) taking connections, in the last {} s",
                said.elapsed().as_secs()
            );
            (refused, errors, said) = (0, 0, Instant::now());
        }
    }
}

/// Says 503 to a connection beyond the limit, without waiting for it.
fn busy(stream: TcpStream) {
    let _ = stream.set_nonblocking(true);
    let _ = (&stream).write_all(&response(
        503,
        "text/plain",
        b"too many connections to the page\n",
    ));
}

/// A response's bytes: status line, headers, body; the connection closes after it.
fn response(status: u16, kind: &str, body: &[u8]) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Service Unavailable",
    };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nCache-Control: no-cache\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reads a request's head (within [`REQUEST_WAIT`]); its method and path.
fn read_request(stream: &mut TcpStream) -> Option<(String, String)> {
    let deadline = Instant::now() + REQUEST_WAIT;
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .ok()?;
        let n = stream.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&head) {
            Ok(httparse::Status::Complete(_)) => {
                return Some((request.method?.to_string(), request.path?.to_string()));
            }
            Ok(httparse::Status::Partial) if head.len() < MAX_HEAD => {}
            _ => return None,
        }
    }
}

/// One connection: one request, answered, then closed.
fn connection(mut stream: TcpStream, page: &Page) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Some((method, target)) = read_request(&mut stream) else {
        let _ = stream.write_all(&response(400, "text/plain", b"bad request\n"));
        return;
    };
    if method != "GET" && method != "HEAD" {
        let _ = stream.write_all(&response(405, "text/plain", b"GET only\n"));
        return;
    }
    let path = target.split('?').next().unwrap_or("/");
    let html = "text/html; charset=utf-8";
    let (status, kind, body) = match path {
        "/" => (200, html, INDEX.to_string()),
        p if p.starts_with("/game/") => (200, html, INDEX.to_string()),
        "/app.js" => (200, "text/javascript; charset=utf-8", SCRIPT.to_string()),
        "/style.css" => (200, "text/css; charset=utf-8", STYLE.to_string()),
        "/live.pgn" => (
            200,
            "application/x-chess-pgn; charset=utf-8",
            live_pgn(&page.live.games(), &page.names.event, &page.names.site),
        ),
        "/state.json" => (200, "application/json", page.live.subscribe().0),
        "/events" => {
            if page.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
                page.streams.fetch_sub(1, Ordering::SeqCst);
                let body = b"too many pages follow the games\n";
                let _ = stream.write_all(&response(503, "text/plain", body));
                return;
            }
            if let Err(e) = stream_events(stream, &page.live) {
                log::debug!("a page stopped following the games: {e}");
            }
            page.streams.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        _ => (404, "text/plain", "not found\n".to_string()),
    };
    let mut bytes = response(status, kind, body.as_bytes());
    if method == "HEAD" {
        bytes.truncate(bytes.len() - body.len());
    }
    if let Err(e) = stream.write_all(&bytes) {
        log::debug!("a page went away: {e}");
    }
}

/// The event stream, ended by closing the connection.
fn stream_events(mut out: TcpStream, live: &Live) -> io::Result<()> {
    let (snapshot, updates) = live.subscribe();
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
          Connection: close\r\nAccess-Control-Allow-Origin: *\r\n\r\nretry: 1000\n\n",
    )?;
    write!(out, "data: {snapshot}\n\n")?;
    out.flush()?;
    loop {
        match updates.recv_timeout(HEARTBEAT) {
            Ok(update) => write!(out, "data: {}\n\n", update.json)?,
            Err(RecvTimeoutError::Timeout) => write!(out, "data: {}\n\n", heartbeat())?,
            // Let go for falling behind: the page connects again and gets a snapshot.
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        out.flush()?;
    }
}
