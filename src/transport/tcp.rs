//! TCP lines: the same [`Duplex`] over a socket, so that a client (and later the IP
//! referee) speaks the protocol over a network exactly as over a serial port.

use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::duplex::{Duplex, READ_TIMEOUT};

/// How long a connection may be idle before TCP asks the other end whether it is still
/// there ([`keep_alive`]).
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
/// The time between two of those probes.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2);
/// The probes unanswered after which the connection is given up.
pub const KEEPALIVE_PROBES: u32 = 5;
/// How long data sent may stay unacknowledged before the connection is given up (Linux).
pub const UNACKNOWLEDGED: Duration = Duration::from_secs(20);

/// Turns on TCP keepalive for `stream` (and, on Linux, a limit on unacknowledged data):
/// a connection whose other end is gone without a word (a network down, a machine off)
/// ends within about 20 s of silence instead of staying open for ever, so that a
/// player's place is not held by a dead connection and a client learns that it must
/// connect again.
///
/// # Errors
///
/// The system's error when the socket refuses the options.
pub fn keep_alive(stream: &TcpStream) -> io::Result<()> {
    let socket = socket2::SockRef::from(stream);
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL);
    #[cfg(not(windows))]
    let keepalive = keepalive.with_retries(KEEPALIVE_PROBES);
    socket.set_tcp_keepalive(&keepalive)?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    socket.set_tcp_user_timeout(Some(UNACKNOWLEDGED))?;
    Ok(())
}

/// Connects to `addr` (`host:port`).
///
/// # Errors
///
/// Returns the system's error when the address does not resolve or nobody answers.
pub fn connect(addr: &str) -> io::Result<Duplex> {
    let mut last = None;
    for target in addr.to_socket_addrs()? {
        match TcpStream::connect(target) {
            Ok(stream) => return duplex(stream),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        io::Error::new(io::ErrorKind::NotFound, "the address resolves to nothing")
    }))
}

/// Both halves of a connected socket. Lines go out at once (no Nagle delay); reads
/// time out every [`READ_TIMEOUT`] so the reader can look up; a dead peer is found by
/// [`keep_alive`].
///
/// # Errors
///
/// Returns the system's error when the socket cannot be set up.
pub fn duplex(stream: TcpStream) -> io::Result<Duplex> {
    stream.set_nodelay(true)?;
    keep_alive(&stream)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let reader = stream.try_clone()?;
    Ok(Duplex {
        reader: Box::new(reader),
        writer: Box::new(stream),
    })
}
