//! How a recorded player signed on, for `argus replay --as referee --engine`: the
//! client that argus runs signs on as the recorded one did.

use std::path::Path;

use super::LiveReplayError;
use crate::core::Port;
use crate::mediator::journal::{self, Event};

/// How a recorded player signed on: its `tcsi` address and name, and whether it sealed
/// its records (the checksum extension).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedOn {
    /// The address it gave.
    pub address: String,
    /// The name it gave.
    pub name: String,
    /// Whether it sealed its sign-on.
    pub sealed: bool,
}

/// The first sign-on the journal records from `port`.
///
/// # Errors
///
/// [`LiveReplayError::Journal`] when the journal cannot be read, and
/// [`LiveReplayError::NoSignOn`] when it holds no sign-on from `port`.
pub fn recorded_sign_on(journal: &Path, port: Port) -> Result<SignedOn, LiveReplayError> {
    let events = journal::read(journal)?;
    for (_, event) in &events {
        let Event::Rx {
            port: p,
            text: Some(text),
            ..
        } = event
        else {
            continue;
        };
        if *p != port {
            continue;
        }
        let Ok(rec) = crate::epd::Record::from_ascii(text.as_bytes()) else {
            continue;
        };
        if rec.refreq() != Some("sign_on") {
            continue;
        }
        let tcsi: Vec<String> = rec
            .operands("tcsi")
            .map(|ops| {
                ops.iter()
                    .filter_map(|o| o.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        return Ok(SignedOn {
            address: tcsi.first().cloned().unwrap_or_default(),
            name: tcsi.get(1).cloned().unwrap_or_default(),
            sealed: rec.has(crate::epd::seal::OPCODE),
        });
    }
    Err(LiveReplayError::NoSignOn { port })
}
