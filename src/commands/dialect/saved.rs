//! fastchess's resume (`-config file=... outname=... discard=... stats=...`) over argus's
//! own: a match under fastchess's command line leaves `config.json` (or `outname=`)
//! where it runs, naming its folder and its command line; `-config file=config.json`
//! goes on with that match (`argus serve --resume` under it), the games finished before
//! counted in the results again unless `stats=false`. The file is removed when the
//! match ends.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use argus::core::game::GameResult;
use argus::server::EventEntry;
use argus::tournament::GameSpec;

/// What `config.json` holds for argus.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Saved {
    /// Always "argus": a fastchess `config.json` is not one of these.
    pub(super) argus: String,
    /// The match's folder.
    pub(super) folder: PathBuf,
    /// Its command line, without the program's name.
    pub(super) words: Vec<String>,
}

/// `-config`'s words, read.
#[derive(Debug, Default)]
pub(super) struct ConfigWords {
    /// `file=`: the match to go on with.
    pub(super) file: Option<PathBuf>,
    /// `outname=`: where this match is saved (`config.json`).
    pub(super) outname: Option<PathBuf>,
    /// `discard=true`: `file=` is not gone on with.
    pub(super) discard: bool,
    /// `stats=false`: the results start again from nothing.
    pub(super) no_stats: bool,
}

impl ConfigWords {
    /// Reads `-config`'s words (checked as fastchess checks them already).
    pub(super) fn read(words: Option<&Vec<String>>) -> ConfigWords {
        let mut out = ConfigWords::default();
        for word in words.into_iter().flatten() {
            match word.split_once('=') {
                Some(("file", v)) => out.file = Some(PathBuf::from(v)),
                Some(("outname", v)) => out.outname = Some(PathBuf::from(v)),
                Some(("discard", v)) => out.discard = v == "true",
                Some(("stats", v)) => out.no_stats = v == "false",
                _ => {}
            }
        }
        out
    }

    /// Where the match is saved.
    pub(super) fn out_path(&self) -> PathBuf {
        self.outname
            .clone()
            .unwrap_or_else(|| PathBuf::from("config.json"))
    }

    /// The saved match to go on with, if any.
    pub(super) fn resume_from(&self) -> Option<&Path> {
        self.file.as_deref().filter(|_| !self.discard)
    }
}

/// Saves the match in `folder`, started with `words`, to `path`.
pub(super) fn save(path: &Path, folder: &Path, words: &[String]) -> Result<()> {
    let saved = Saved {
        argus: "argus".into(),
        folder: std::path::absolute(folder)?,
        words: words.to_vec(),
    };
    let text = serde_json::to_string_pretty(&saved)?;
    std::fs::write(path, text + "\n").with_context(|| format!("{}", path.display()))
}

/// The match saved in `path`.
pub(super) fn load(path: &Path) -> Result<Saved> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("-config file={}", path.display()))?;
    let saved: Saved = match serde_json::from_str(&text) {
        Ok(saved @ Saved { .. }) if saved.argus == "argus" => saved,
        _ => bail!(
            "-config file={}: not a match argus saved (a fastchess config.json goes on only in fastchess; argus goes on with its own matches)",
            path.display()
        ),
    };
    if !saved.folder.join("event.jsonl").exists() {
        bail!(
            "-config file={}: the match in {} is over or gone",
            path.display(),
            saved.folder.display()
        );
    }
    Ok(saved)
}

/// The games of the event in `folder` that finished: each's place in the schedule and
/// its result, in the order they finished.
pub(super) fn finished_games(folder: &Path) -> Result<Vec<(GameSpec, GameResult)>> {
    let path = folder.join("event.jsonl");
    let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    let mut schedule: Vec<GameSpec> = Vec::new();
    let mut games = Vec::new();
    for line in text.lines() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        match EventEntry::of(&value) {
            EventEntry::Settings { schedule: s, .. } => schedule = s,
            EventEntry::Game(number, past) => {
                if let Some(spec) = schedule.iter().find(|g| g.number == number) {
                    games.push((spec.clone(), past.result));
                }
            }
            _ => {}
        }
    }
    Ok(games)
}
