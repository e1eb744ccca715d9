//! A search's reply beyond `ce`, `acd`, `acs`, `acn` and `pv`, when asked (fastchess's
//! PGN comments under `argus fastchess`): the selective depth, speed, hash use and
//! tablebase hits of the line the score was taken from (`seldepth`, `nps`,
//! `hashfull`, `tbhits`), the time the engine said it searched in milliseconds
//! (`acms`), and, for each pattern asked for, the last line of the search's output that
//! matches it (`eline`, fastchess's `-pgnout match_line=`). These opcodes are argus's
//! (docs/protocol.md); a referee that does not know them ignores them.

use regex::Regex;
use serde::{Deserialize, Serialize};

/// What an engine's replies report besides the usual analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detail {
    /// Patterns (the `regex` crate's syntax) of output lines to keep, each its last
    /// match in a search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
}

impl Detail {
    /// The patterns compiled.
    ///
    /// # Errors
    ///
    /// The first pattern that is not a regular expression, with why.
    pub fn compile(&self) -> Result<Vec<Regex>, String> {
        self.lines
            .iter()
            .map(|p| Regex::new(p).map_err(|e| format!("{p:?} is not a regular expression: {e}")))
            .collect()
    }
}

/// One search's kept lines: for each pattern, the last line that matched it.
#[derive(Debug, Default)]
pub(super) struct KeptLines {
    pub(super) last: Vec<Option<String>>,
}

impl KeptLines {
    /// Keeps `line` for each of `patterns` it matches.
    pub(super) fn see(&mut self, patterns: &[Regex], line: &str) {
        if self.last.len() < patterns.len() {
            self.last.resize(patterns.len(), None);
        }
        for (kept, pattern) in self.last.iter_mut().zip(patterns) {
            if pattern.is_match(line) {
                *kept = Some(line.to_string());
            }
        }
    }

    /// The lines kept, in the patterns' order.
    pub(super) fn lines(&self) -> impl Iterator<Item = &str> {
        self.last.iter().flatten().map(String::as_str)
    }
}
