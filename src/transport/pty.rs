//! Pseudo-terminal pairs, the harness that lets argus run without cables (Unix only).
//!
//! `serialport::TTYPort::pair()` gives a master and a raw-mode slave. The demo gives the
//! referee the master of each pair and a built-in client the slave; tests hand the
//! slave's path to the real binary and talk through the master.

use std::io;

use serialport::TTYPort;

use super::duplex::{Duplex, READ_TIMEOUT};
use super::serial::HangupReader;

/// One end of a pty pair, ready for a [`super::Link`] or a client.
pub struct PtyEnd {
    /// The end's device path (`/dev/pts/N`) when it has one (the slave does).
    pub path: Option<String>,
    /// Its reader and writer.
    pub duplex: Duplex,
}

fn end(mut port: TTYPort) -> io::Result<PtyEnd> {
    use serialport::SerialPort;
    port.set_timeout(READ_TIMEOUT).map_err(io::Error::from)?;
    let path = port.name();
    let writer = port.try_clone_native().map_err(io::Error::from)?;
    Ok(PtyEnd {
        path,
        duplex: Duplex {
            reader: Box::new(HangupReader(port)),
            writer: Box::new(writer),
        },
    })
}

/// A new pty pair: (master, slave).
///
/// # Errors
///
/// Returns the system's error when no pty can be allocated.
pub fn pair() -> io::Result<(PtyEnd, PtyEnd)> {
    let (master, slave) = TTYPort::pair().map_err(io::Error::from)?;
    Ok((end(master)?, end(slave)?))
}
