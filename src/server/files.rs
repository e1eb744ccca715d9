//! The files an event keeps in its folder besides the games' journals: its own journal
//! (`event.jsonl`, each line written and flushed at once, and handed to the standby
//! stream) and the standings (`standings.txt`, `standings.json`: the table and
//! crosstable, the SPRT, the ratings, a knockout's bracket), and the games' file names.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::state::EventState;
use super::{ServeError, io_err};
use crate::mediator::standby::Hub;
use crate::tournament::rating::Report;
use crate::tournament::{GameSpec, Knockout, Sprt, Standings};
use crate::watch::live::Live;

/// A game's file names, without extension.
pub(super) fn stem(spec: &GameSpec) -> String {
    format!("game-{:04}", spec.number)
}

/// The event's own journal: JSON Lines, each written and flushed at once (and handed
/// to the standby stream, with the file's length before it).
pub(super) struct EventJournal {
    path: PathBuf,
    file: fs::File,
    standby: Option<(Arc<Hub>, u64)>,
}

impl EventJournal {
    /// Opens the journal of an event to go on with it.
    pub(super) fn append(
        path: &Path,
        standby: Option<&Arc<Hub>>,
    ) -> Result<EventJournal, ServeError> {
        let file = fs::File::options()
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        Ok(EventJournal {
            path: path.to_path_buf(),
            file,
            standby: standby.map(|hub| (Arc::clone(hub), len)),
        })
    }

    pub(super) fn create(
        path: &Path,
        standby: Option<&Arc<Hub>>,
    ) -> Result<EventJournal, ServeError> {
        // Its settings hold the players' token hashes: its owner's alone.
        let file = crate::secret::private(&mut fs::File::options())
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(EventJournal {
            path: path.to_path_buf(),
            file,
            standby: standby.map(|hub| (Arc::clone(hub), 0)),
        })
    }

    pub(super) fn write(&mut self, value: &serde_json::Value) -> Result<(), ServeError> {
        let mut line = value.to_string();
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(io_err(&self.path))?;
        if let Some((hub, len)) = &mut self.standby {
            hub.publish(&self.path, *len, line.as_bytes());
            *len += line.len() as u64;
        }
        Ok(())
    }
}

/// The standings as text: the table (with the crosstable when `crosstable`), the
/// SPRT's line, the ratings and a knockout's bracket; what `standings.txt` holds and
/// `argus serve` prints at its end.
pub(super) fn standings_text(
    standings: &Standings,
    sprt: Option<&Sprt>,
    ratings: &Report,
    knockout: Option<&Knockout>,
    crosstable: bool,
) -> String {
    let mut text = standings.text();
    if !crosstable {
        text = text.split("\n\n").next().unwrap_or_default().to_string() + "\n";
    }
    if let Some(sprt) = sprt {
        text.push('\n');
        text.push_str(&sprt.line());
        text.push('\n');
    }
    text.push_str("\nratings:\n");
    text.push_str(&ratings.text());
    if let Some(k) = knockout {
        text.push('\n');
        text.push_str(&k.text(standings.names()));
    }
    text
}

/// Rewrites `standings.txt` and `standings.json` (each written beside, then renamed
/// over the old, so that a reader never sees half a file).
pub(super) fn write_standings(
    out: &Path,
    state: &EventState,
    live: Option<&Arc<Live>>,
) -> Result<(), ServeError> {
    let standings = &state.standings;
    let ratings = state.ratings();
    let mut json = standings.json();
    if let Some(sprt) = &state.sprt {
        json["sprt"] = sprt.json();
    }
    json["ratings"] = ratings.json();
    if let Some(k) = &state.knockout {
        json["knockout"] = k.json(standings.names());
    }
    let text = standings_text(
        standings,
        state.sprt.as_ref(),
        &ratings,
        state.knockout.as_ref(),
        true,
    );
    if let Some(live) = live {
        live.standings(json.clone());
    }
    let json = serde_json::to_string_pretty(&json).unwrap_or_default();
    for (name, text) in [("standings.txt", text), ("standings.json", json)] {
        let path = out.join(name);
        let part = out.join(format!(".{name}.part"));
        fs::write(&part, text)
            .and_then(|()| fs::rename(&part, &path))
            .map_err(io_err(&path))?;
    }
    Ok(())
}
