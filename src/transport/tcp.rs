//! TCP lines: the same [`Duplex`] over a socket, so that a client (and later the IP
//! referee) speaks the protocol over a network exactly as over a serial port.

use std::io;
use std::net::{TcpStream, ToSocketAddrs};

use super::{Duplex, READ_TIMEOUT};

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
/// time out every [`READ_TIMEOUT`] so the reader can look up.
///
/// # Errors
///
/// Returns the system's error when the socket cannot be set up.
pub fn duplex(stream: TcpStream) -> io::Result<Duplex> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let reader = stream.try_clone()?;
    Ok(Duplex {
        reader: Box::new(reader),
        writer: Box::new(stream),
    })
}
