//! The journal's events: one line each, what it records of the referee's inputs and of
//! what it sent, and the format's version.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::core::{Input, MatchConfig, Port};
use crate::transport::serial::SerialSettings;

/// The journal format's version.
pub const VERSION: u32 = 1;

/// One journal line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Event {
    /// The first line: what was played and how.
    Session {
        /// [`VERSION`].
        version: u32,
        /// The argus version that wrote it.
        argus: String,
        /// The wall-clock start, UTC, RFC 3339 (for people; replay ignores it).
        started: String,
        /// The ports' paths, A then B.
        ports: [String; 2],
        /// The ports' line settings, A then B, when they are serial ports.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lines: Option<[SerialSettings; 2]>,
        /// The end of line sent: `lf` or `crlf`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eol: Option<String>,
        /// The PGN file the games go to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pgn: Option<PathBuf>,
        /// The match.
        config: Box<MatchConfig>,
    },
    /// A port was opened at the start of the session (for people; not an input).
    Open {
        /// Microseconds since the start.
        t: u64,
        /// The port.
        port: Port,
        /// What it is (its path).
        path: String,
    },
    /// A line received; `t` in microseconds since the session started. `text` when the
    /// bytes are UTF-8, else `hex`.
    Rx {
        /// Microseconds since the start.
        t: u64,
        /// The port.
        port: Port,
        /// The line, when it is UTF-8.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The line in hexadecimal, when it is not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hex: Option<String>,
    },
    /// A line over the record limit was dropped by the transport.
    Overlong {
        /// Microseconds since the start.
        t: u64,
        /// The port.
        port: Port,
        /// Its length.
        len: usize,
    },
    /// Lines a port sent past its allowance of lines it was not asked for, in one
    /// window ([`crate::mediator::budget`]): dropped before the referee saw them, so
    /// not inputs; the count, their bytes and the first's first bytes.
    Dropped {
        /// Microseconds since the start: the last one dropped.
        t: u64,
        /// The port.
        port: Port,
        /// When the first was dropped.
        since: u64,
        /// How many lines.
        lines: u64,
        /// Their bytes.
        bytes: u64,
        /// The first one's first 200 bytes (invalid UTF-8 replaced); empty for a line
        /// over the record limit.
        sample: String,
    },
    /// A line sent (without its terminator).
    Tx {
        /// The port.
        port: Port,
        /// The line.
        text: String,
    },
    /// The oldest line sent on `port` finished draining.
    Drained {
        /// Microseconds since the start.
        t: u64,
        /// The port.
        port: Port,
    },
    /// The referee's timer fired.
    Timer {
        /// Microseconds since the start.
        t: u64,
    },
    /// A port failed or vanished.
    Lost {
        /// Microseconds since the start.
        t: u64,
        /// The port.
        port: Port,
        /// The system's error.
        error: String,
    },
    /// A port is back.
    Back {
        /// Microseconds since the start.
        t: u64,
        /// The port.
        port: Port,
        /// Over a new connection: the lines sent before, and not yet drained, were
        /// never sent (journals before it have no such key: `false`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fresh: bool,
    },
    /// A new referee process took over the match from this journal after the one that
    /// wrote the lines before died. Its time axis continues from `t`, so the outage is
    /// charged to nobody.
    Resume {
        /// Microseconds since the start (the dead referee's last moment).
        t: u64,
        /// The wall-clock moment of the restart, UTC, RFC 3339 (for people).
        #[serde(default)]
        wall: String,
    },
    /// The supervisor's command, as typed (after checking).
    Supervisor {
        /// Microseconds since the start.
        t: u64,
        /// The command.
        command: String,
    },
    /// The match ended early, as an argus older than the stop-as-pause ended it at an
    /// interrupt (read for old journals; no longer written).
    Shutdown {
        /// Microseconds since the start.
        t: u64,
    },
    /// The referee stopped to be resumed later (an interrupt, SIGTERM, SIGHUP): the
    /// clocks stand, the players got `fault`.
    Stop {
        /// Microseconds since the start.
        t: u64,
    },
    /// A game ended (for people; replay checks the lines and the PGN instead).
    GameOver {
        /// Its number.
        game: u32,
        /// Its result.
        result: String,
        /// Its PGN Termination.
        termination: String,
        /// Why.
        reason: String,
        /// The game in PGN, as written to the PGN file.
        #[serde(default)]
        pgn: String,
        /// The PGN file's length just before the game was appended to it: where a
        /// resumed referee looks to finish an append the dead one left half done.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pgn_at: Option<u64>,
    },
    /// The session ended cleanly.
    End {
        /// Microseconds since the start.
        t: u64,
    },
}

/// Microseconds in `d`, the journal's time unit.
pub fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Event {
    /// The referee input this event records, if it is one.
    pub fn input(&self) -> Option<Input> {
        let at = |t: u64| Duration::from_micros(t);
        Some(match self {
            Event::Rx { t, port, text, hex } => Input::Line {
                port: *port,
                at: at(*t),
                bytes: match (text, hex) {
                    (Some(text), _) => text.clone().into_bytes(),
                    (None, Some(hex)) => from_hex(hex)?,
                    (None, None) => Vec::new(),
                },
                record: None,
            },
            Event::Drained { t, port } => Input::Drained {
                port: *port,
                at: at(*t),
            },
            Event::Timer { t } => Input::Timeout { at: at(*t) },
            Event::Shutdown { t } => Input::Shutdown { at: at(*t) },
            Event::Stop { t } => Input::Stop { at: at(*t) },
            Event::Resume { t, .. } => Input::Resume { at: at(*t) },
            Event::Supervisor { t, command } => Input::Supervisor {
                at: at(*t),
                command: command.parse().ok()?,
            },
            Event::Lost { t, port, .. } => Input::PortLost {
                port: *port,
                at: at(*t),
            },
            Event::Back { t, port, fresh } => Input::PortBack {
                port: *port,
                at: at(*t),
                fresh: *fresh,
            },
            _ => return None,
        })
    }

    /// The event that records `input`.
    pub fn from_input(input: &Input) -> Event {
        match input {
            Input::Line {
                port, at, bytes, ..
            } => {
                let (text, hex) = match std::str::from_utf8(bytes) {
                    Ok(s) => (Some(s.to_string()), None),
                    Err(_) => (None, Some(to_hex(bytes))),
                };
                Event::Rx {
                    t: micros(*at),
                    port: *port,
                    text,
                    hex,
                }
            }
            Input::Drained { port, at } => Event::Drained {
                t: micros(*at),
                port: *port,
            },
            Input::Timeout { at } => Event::Timer { t: micros(*at) },
            Input::Shutdown { at } => Event::Shutdown { t: micros(*at) },
            Input::Stop { at } => Event::Stop { t: micros(*at) },
            Input::Supervisor { at, command } => Event::Supervisor {
                t: micros(*at),
                command: command.to_string(),
            },
            Input::Resume { at } => Event::Resume {
                t: micros(*at),
                wall: String::new(),
            },
            Input::PortLost { port, at } => Event::Lost {
                t: micros(*at),
                port: *port,
                error: String::new(),
            },
            Input::PortBack { port, at, fresh } => Event::Back {
                t: micros(*at),
                port: *port,
                fresh: *fresh,
            },
        }
    }
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a journal's hex text (a line that was not UTF-8), None when it is not
/// hex.
pub(crate) fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}
