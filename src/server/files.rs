//! The files an event keeps in its folder besides the games' journals and its own
//! (`event.jsonl`, which `event_log.rs` writes): `games.pgn`, the standings
//! (`standings.txt`, `standings.json`: the table and crosstable, the SPRT, the ratings,
//! a knockout's bracket), and the games' file names.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::{ServeError, io_err};
use super::state::EventState;
use crate::tournament::rating::Report;
use crate::tournament::{GameSpec, Knockout, Sprt, Standings};
use crate::watch::live::Live;

/// A game's file names, without extension.
pub(super) fn stem(spec: &GameSpec) -> String {
    format!("game-{:04}", spec.number)
}

/// `games.pgn`, held open for the event: appending a game needs no new descriptor,
/// so that a referee short of them (a thousand connections) still records every game.
pub(super) struct GamesPgn {
    path: PathBuf,
    file: fs::File,
}

impl GamesPgn {
    /// Opens (or creates) the file to append to.
    pub(super) fn open(path: &Path) -> Result<GamesPgn, ServeError> {
        let file = fs::File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(GamesPgn {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Appends a game; a failure is logged (the game is in the event's journal, from
    /// which a resume writes it).
    pub(super) fn append(&mut self, pgn: &str) {
        let file = &mut self.file;
        if let Err(e) = file.write_all(pgn.as_bytes()).and_then(|()| file.flush()) {
            log::error!(
                "pgn file {}: {e}; the game is in its journal",
                self.path.display()
            );
        }
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

/// How often at most the standings are rewritten while games end: at a thousand
/// players each rewrite is megabytes (the crosstable), and rewriting them after every
/// game took most of the referee's time. The event's end and a stop always write them.
pub(super) const STANDINGS_EVERY: Duration = Duration::from_secs(3);

/// The standings files of an event, rewritten at most every [`STANDINGS_EVERY`]:
/// a change is noted, and written at the first [`StandingsFiles::tick`] the interval
/// allows.
pub(super) struct StandingsFiles {
    out: PathBuf,
    /// When they were last written.
    last: Option<Instant>,
    /// Whether the state changed since.
    changed: bool,
}

impl StandingsFiles {
    pub(super) fn new(out: &Path) -> StandingsFiles {
        StandingsFiles {
            out: out.to_path_buf(),
            last: None,
            changed: false,
        }
    }

    /// The standings changed: they are written at the next tick the interval allows.
    pub(super) fn changed(&mut self) {
        self.changed = true;
    }

    /// Whether a change waits to be written and the interval since the last write is
    /// over, as of `now`.
    pub(super) fn due(&self, now: Instant) -> bool {
        self.changed
            && self
                .last
                .is_none_or(|last| now.saturating_duration_since(last) >= STANDINGS_EVERY)
    }

    /// Writes them if they are due. One that cannot be written now (no descriptor
    /// left, say) is tried again after the interval: the games go on.
    pub(super) fn tick(&mut self, state: &EventState, live: Option<&Arc<Live>>) {
        if self.due(Instant::now())
            && let Err(e) = self.write(state, live)
        {
            log::warn!("{e}; tried again in {} s", STANDINGS_EVERY.as_secs());
            self.last = Some(Instant::now());
        }
    }

    /// Writes them now.
    pub(super) fn write(
        &mut self,
        state: &EventState,
        live: Option<&Arc<Live>>,
    ) -> Result<(), ServeError> {
        write_standings(&self.out, state, live)?;
        self.last = Some(Instant::now());
        self.changed = false;
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standings_are_written_at_most_every_few_seconds_and_only_when_changed() {
        let mut files = StandingsFiles::new(Path::new("."));
        let t0 = Instant::now();
        assert!(!files.due(t0), "nothing changed");
        files.changed();
        assert!(files.due(t0), "the first change is written at once");
        files.last = Some(t0);
        files.changed = false;
        files.changed();
        assert!(!files.due(t0 + Duration::from_millis(100)));
        assert!(!files.due(t0 + STANDINGS_EVERY - Duration::from_millis(1)));
        assert!(files.due(t0 + STANDINGS_EVERY));
    }
}
