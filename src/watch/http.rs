//! The audience's page (`--http ADDR`): every game in progress as a board with names,
//! clocks, last move, result and standings, updated live by server-sent events; one
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

use std::io::{self, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use tiny_http::{Header, Request, Response, Server};

use super::live::{Live, heartbeat};
use super::pgn::live_pgn;

/// How often the event stream says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// How many pages may follow the event stream at once.
pub const MAX_STREAMS: usize = 64;

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
///
/// # Errors
///
/// The system's error when the address cannot be bound or a thread started.
pub fn serve(addr: SocketAddr, live: Arc<Live>, names: Names) -> io::Result<SocketAddr> {
    let server = Server::http(addr).map_err(|e| io::Error::other(format!("--http {addr}: {e}")))?;
    let bound = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| io::Error::other("--http: not an IP address"))?;
    if !bound.ip().is_loopback() {
        log::warn!(
            "the audience's page is served on {bound}, beyond this machine: anyone who can reach it sees the games"
        );
    }
    let streams = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("argus-http".into())
        .spawn(move || {
            for request in server.incoming_requests() {
                handle(request, &live, &names, &streams);
            }
        })?;
    Ok(bound)
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

fn text(body: &str, kind: &str) -> Response<io::Cursor<Vec<u8>>> {
    Response::from_data(body.as_bytes().to_vec())
        .with_header(header("Content-Type", kind))
        .with_header(header("Cache-Control", "no-cache"))
}

fn handle(request: Request, live: &Arc<Live>, names: &Names, streams: &Arc<AtomicUsize>) {
    let path = request.url().split('?').next().unwrap_or("/").to_string();
    let response = match path.as_str() {
        "/" => text(INDEX, "text/html; charset=utf-8"),
        p if p.starts_with("/game/") => text(INDEX, "text/html; charset=utf-8"),
        "/app.js" => text(SCRIPT, "text/javascript; charset=utf-8"),
        "/style.css" => text(STYLE, "text/css; charset=utf-8"),
        "/live.pgn" => text(
            &live_pgn(&live.games(), &names.event, &names.site),
            "application/x-chess-pgn; charset=utf-8",
        ),
        "/state.json" => text(&live.subscribe().0, "application/json"),
        "/events" => {
            if streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
                streams.fetch_sub(1, Ordering::SeqCst);
                let _ = request.respond(
                    text("too many pages follow the games\n", "text/plain").with_status_code(503),
                );
                return;
            }
            let (live, streams) = (Arc::clone(live), Arc::clone(streams));
            let spawned = std::thread::Builder::new()
                .name("argus-http-events".into())
                .spawn(move || {
                    if let Err(e) = stream_events(request, &live) {
                        log::debug!("a page stopped following the games: {e}");
                    }
                    streams.fetch_sub(1, Ordering::SeqCst);
                });
            if let Err(e) = spawned {
                log::warn!("cannot follow a page: {e}");
            }
            return;
        }
        _ => text("not found\n", "text/plain").with_status_code(404),
    };
    if let Err(e) = request.respond(response) {
        log::debug!("a page went away: {e}");
    }
}

/// The event stream: written by hand on the connection (a chunked response would be
/// held in tiny_http's buffers), ended by closing it.
fn stream_events(request: Request, live: &Live) -> io::Result<()> {
    let (snapshot, updates) = live.subscribe();
    let mut out = request.into_writer();
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
