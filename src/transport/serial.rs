//! Serial ports through the `serialport` crate: settings, opening by path, and the
//! reader that keeps the last line when the other end hangs up.
//!
//! Portable: on Windows a port is `COM3`; the Unix-only workaround for hang-ups is
//! behind `cfg(unix)`.

use std::fmt;
use std::io;
#[cfg(unix)]
use std::io::Read;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serialport::{DataBits, FlowControl, Parity, StopBits};

use super::duplex::{Duplex, READ_TIMEOUT};

/// The settings of a serial line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SerialSettings {
    /// Bits per second.
    pub baud: u32,
    /// 5, 6, 7 or 8.
    pub data_bits: u8,
    /// `none`, `odd` or `even`.
    pub parity: ParityName,
    /// 1 or 2.
    pub stop_bits: u8,
    /// `none`, `hardware` or `software`.
    pub flow: FlowName,
}

impl Default for SerialSettings {
    fn default() -> SerialSettings {
        SerialSettings {
            baud: 9600,
            data_bits: 8,
            parity: ParityName::None,
            stop_bits: 1,
            flow: FlowName::None,
        }
    }
}

impl fmt::Display for SerialSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = match self.parity {
            ParityName::None => 'N',
            ParityName::Odd => 'O',
            ParityName::Even => 'E',
        };
        write!(
            f,
            "{} {}{}{} flow {}",
            self.baud, self.data_bits, p, self.stop_bits, self.flow
        )
    }
}

/// Parity, by name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ParityName {
    /// No parity bit.
    None,
    /// Odd parity.
    Odd,
    /// Even parity.
    Even,
}

/// Flow control, by name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum FlowName {
    /// None.
    None,
    /// RTS/CTS.
    Hardware,
    /// XON/XOFF.
    Software,
}

impl fmt::Display for FlowName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FlowName::None => "none",
            FlowName::Hardware => "hardware",
            FlowName::Software => "software",
        })
    }
}

impl FromStr for FlowName {
    type Err = String;
    fn from_str(s: &str) -> Result<FlowName, String> {
        <FlowName as clap::ValueEnum>::from_str(s, true)
    }
}

impl SerialSettings {
    /// The bits one byte takes on the line: a start bit, the data bits, the parity bit
    /// if any and the stop bits.
    pub fn bits_per_byte(&self) -> u32 {
        1 + u32::from(self.data_bits)
            + u32::from(self.parity != ParityName::None)
            + u32::from(self.stop_bits)
    }

    /// The time one byte takes on the line: [`SerialSettings::bits_per_byte`] at the
    /// baud rate (1.0417 ms at 9600 8N1). A baud rate of 0 is taken as 1.
    pub fn byte_time(&self) -> std::time::Duration {
        let bits = u64::from(self.bits_per_byte());
        std::time::Duration::from_nanos(bits * 1_000_000_000 / u64::from(self.baud.max(1)))
    }

    fn builder(&self, path: &str) -> io::Result<serialport::SerialPortBuilder> {
        let data_bits = match self.data_bits {
            5 => DataBits::Five,
            6 => DataBits::Six,
            7 => DataBits::Seven,
            8 => DataBits::Eight,
            n => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{n} data bits (5 to 8)"),
                ));
            }
        };
        let stop_bits = match self.stop_bits {
            1 => StopBits::One,
            2 => StopBits::Two,
            n => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{n} stop bits (1 or 2)"),
                ));
            }
        };
        let parity = match self.parity {
            ParityName::None => Parity::None,
            ParityName::Odd => Parity::Odd,
            ParityName::Even => Parity::Even,
        };
        let flow = match self.flow {
            FlowName::None => FlowControl::None,
            FlowName::Hardware => FlowControl::Hardware,
            FlowName::Software => FlowControl::Software,
        };
        Ok(serialport::new(path, self.baud)
            .data_bits(data_bits)
            .stop_bits(stop_bits)
            .parity(parity)
            .flow_control(flow)
            .timeout(READ_TIMEOUT))
    }
}

/// Opens the serial port at `path` (`/dev/ttyUSB0`, `/dev/pts/3`, `COM3`) with `settings`.
/// What was already waiting in its input is kept (a line reopened after a failure
/// delivers what came meanwhile); see [`open_fresh`] for the start of a session.
///
/// # Errors
///
/// Returns the system's error when the port cannot be opened or configured.
pub fn open(path: &str, settings: &SerialSettings) -> io::Result<Duplex> {
    open_port(path, settings, false)
}

/// Opens the serial port at `path` for a new session: the input already waiting there
/// (what a previous session left on the line, such as its `disconnect`) is cleared.
///
/// # Errors
///
/// Returns the system's error when the port cannot be opened, configured or cleared.
pub fn open_fresh(path: &str, settings: &SerialSettings) -> io::Result<Duplex> {
    open_port(path, settings, true)
}

fn open_port(path: &str, settings: &SerialSettings, fresh: bool) -> io::Result<Duplex> {
    use serialport::ClearBuffer;
    #[cfg(unix)]
    use serialport::SerialPort;
    let builder = settings.builder(path)?;
    #[cfg(unix)]
    {
        let port = builder.open_native().map_err(io::Error::from)?;
        if fresh {
            port.clear(ClearBuffer::Input).map_err(io::Error::from)?;
        }
        let writer = port.try_clone_native().map_err(io::Error::from)?;
        Ok(Duplex {
            reader: Box::new(HangupReader(port)),
            writer: Box::new(writer),
        })
    }
    #[cfg(not(unix))]
    {
        let port = builder.open().map_err(io::Error::from)?;
        if fresh {
            port.clear(ClearBuffer::Input).map_err(io::Error::from)?;
        }
        let writer = port.try_clone().map_err(io::Error::from)?;
        Ok(Duplex {
            reader: Box::new(port),
            writer: Box::new(writer),
        })
    }
}

/// The time one byte takes on the line at `path` with `settings`, when argus knows the
/// line's rate: a real serial port's from its settings, a pty's (which nothing paces)
/// only when its rate was given explicitly (`baud_given`: `--baud`, or `baud` in an
/// event file).
pub fn known_byte_time(
    path: &str,
    settings: &SerialSettings,
    baud_given: bool,
) -> Option<std::time::Duration> {
    (baud_given || !is_pty(path)).then(|| settings.byte_time())
}

/// Whether `path` is a pseudo-terminal (a pty, as socat or a line simulator makes),
/// whose baud setting means nothing: the referee then knows a line's rate only when it is
/// given explicitly.
pub fn is_pty(path: &str) -> bool {
    #[cfg(unix)]
    {
        std::fs::canonicalize(path)
            .is_ok_and(|p| p.starts_with("/dev/pts") || p.starts_with("/dev/pty"))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// A reader for a Unix tty that keeps the bytes still buffered when the other end hangs
/// up. serialport polls before it reads and reports `BrokenPipe` on `POLLHUP` even
/// while input is waiting, which would lose the last line a client sent before it
/// closed; this reads those bytes directly.
#[cfg(unix)]
pub struct HangupReader(pub serialport::TTYPort);

#[cfg(unix)]
impl Read for HangupReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                match read_nonblocking(std::os::fd::AsRawFd::as_raw_fd(&self.0), buf) {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(e),
                }
            }
            other => other,
        }
    }
}

/// One `read(2)` of `fd` that never blocks.
#[cfg(unix)]
fn read_nonblocking(fd: std::os::fd::RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `fd` is open for the lifetime of the call (it belongs to the port we
    // borrow), `buf` is valid for `buf.len()` bytes, and the flags are restored.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        let err = io::Error::last_os_error();
        libc::fcntl(fd, libc::F_SETFL, flags);
        if n < 0 { Err(err) } else { Ok(n as usize) }
    }
}
