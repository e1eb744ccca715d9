//! The TCP listener of `argus serve` (profile section 9): a connection's first record
//! must be a `sign_on` within [`SIGN_ON_WITHIN`]; the registry then admits it under its
//! name, or it gets a `fault` that says why and is closed.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::fen::Epd;
use shakmaty::{Chess, EnPassantMode};

use super::registry::Registry;
use crate::epd::{Operand, Record};

/// How long a new connection has to send its `sign_on`.
pub const SIGN_ON_WITHIN: Duration = Duration::from_secs(10);

/// The longest first line read from a connection.
const MAX_FIRST_LINE: usize = 4096;

/// The connections argus serve takes at once unless told otherwise (`--max-clients`).
pub const MAX_CLIENTS: usize = 256;

/// Listens on `listener` until `stop` is set, admitting connections to `registry`; a
/// connection beyond `max_clients` open ones is refused.
pub fn serve(
    listener: TcpListener,
    registry: Arc<Registry>,
    stop: Arc<AtomicBool>,
    max_clients: usize,
) {
    let _ = listener.set_nonblocking(true);
    let handshaking = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, peer)) => {
                let open = registry.routers().len() + handshaking.load(Ordering::SeqCst);
                if open >= max_clients {
                    let _ = stream.set_nonblocking(false);
                    refuse(
                        stream,
                        peer,
                        &format!("argus serve takes {max_clients} connections at most"),
                    );
                    continue;
                }
                let registry = Arc::clone(&registry);
                let handshaking = Arc::clone(&handshaking);
                handshaking.fetch_add(1, Ordering::SeqCst);
                let spawned = std::thread::Builder::new()
                    .name(format!("argus-serve-{peer}"))
                    .spawn(move || {
                        handshake(stream, peer, &registry);
                        handshaking.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    log::warn!("argus serve: {peer}: cannot start a thread for it");
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                log::warn!("argus serve: accept: {e}");
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
}

/// A record of the standard start position with `refcom` and, if given, `c0`.
pub fn referee_record(refcom: &str, reason: Option<&str>) -> String {
    let mut rec = Record::new(Epd::from_position(&Chess::default(), EnPassantMode::Always));
    if let Some(reason) = reason {
        rec.set("c0", vec![Operand::lossy_string(reason)]);
    }
    rec.set("refcom", vec![Operand::Identifier(refcom.into())]);
    rec.to_string()
}

fn refuse(mut stream: TcpStream, peer: SocketAddr, why: &str) {
    log::warn!("argus serve: connection from {peer} refused: {why}");
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = stream.write_all(format!("{}\n", referee_record("fault", Some(why))).as_bytes());
    let _ = stream.flush();
}

/// Reads the first line of a new connection and has it admitted or refused.
fn handshake(stream: TcpStream, peer: SocketAddr, registry: &Arc<Registry>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_nodelay(true);
    let line = match first_line(&stream) {
        Ok(line) => line,
        Err(e) => {
            return refuse(
                stream,
                peer,
                &format!("no sign_on within {} s ({e})", SIGN_ON_WITHIN.as_secs()),
            );
        }
    };
    let rec = match Record::from_ascii(&line) {
        Ok(rec) if rec.refreq() == Some("sign_on") => rec,
        _ => return refuse(stream, peer, "the first record must be a sign_on"),
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
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(e) => return log::warn!("argus serve: {peer}: {e}"),
    };
    match registry.admit(stream, peer, name.as_deref(), token.as_deref(), line) {
        Ok(name) => log::info!("argus serve: {name} signed on from {peer}"),
        Err(refusal) => {
            refuse(writer, peer, &refusal.0);
        }
    }
}

/// The first line, within [`SIGN_ON_WITHIN`].
fn first_line(mut stream: &TcpStream) -> io::Result<Vec<u8>> {
    let deadline = Instant::now() + SIGN_ON_WITHIN;
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "timed out"));
        }
        stream.set_read_timeout(Some(left))?;
        match stream.read(&mut byte) {
            Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed")),
            Ok(_) if byte[0] == b'\n' || byte[0] == b'\r' => {
                if !line.is_empty() {
                    return Ok(line);
                }
            }
            Ok(_) => {
                line.push(byte[0]);
                if line.len() > MAX_FIRST_LINE {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "line too long"));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
