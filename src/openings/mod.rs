//! Openings: the start positions of a match or an event, read from a book of EPD
//! records, FEN lines or PGN games, and put in the order the games take them.
//!
//! `argus serve --openings` takes the words cutechess-cli and fastchess users know
//! ([`OpeningsSpec`]): `file=F format=epd|pgn order=sequential|random plies=N start=N`,
//! or the file alone. An EPD or FEN book gives one position a line (`#` comments and
//! blank lines skipped); a PGN book one position a game: the game's start (its `FEN`
//! tag when it has one) with its first `plies` moves played. Each opening becomes its
//! final position as FEN, which the referee sends the players as it sends any start
//! position, and the names the book gives it (an EPD record's `v0`, `v1`, `v2`, `eco`,
//! `nic` and, without `v0`, its `id`; a PGN game's `Opening`, `Variation`,
//! `SubVariation`, `ECO`, `NIC`) become the tags of every game from it ([`Opening`]).
//!
//! [`arrange`] shuffles them (`order=random`, by a seed of its own: argus's own
//! Fisher–Yates over SplitMix64, so that a seed gives the same order in every version)
//! and starts at `start=N`, as fastchess does, and keeps only the openings the schedule
//! takes. Reading does I/O (the file); the rest is pure.

mod book;

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::core::Opening;
pub use book::{BookError, parse_epd, parse_pgn};

/// A book's format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BookFormat {
    /// One position a line: an EPD record (four fields and operations) or a FEN (six
    /// fields).
    Epd,
    /// One position a game: its start with its first moves played.
    Pgn,
}

impl BookFormat {
    /// The format of `path` by its name (`.pgn`; `.epd`, `.fen`), else by its text: a
    /// first line (not blank, not a `#` comment) that begins with `[` or a move number
    /// is PGN.
    pub fn of(path: &Path, text: &[u8]) -> BookFormat {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("pgn") => return BookFormat::Pgn,
            Some("epd" | "fen") => return BookFormat::Epd,
            _ => {}
        }
        let first = text
            .split(|&b| b == b'\n')
            .map(<[u8]>::trim_ascii)
            .find(|l| !l.is_empty() && !l.starts_with(b"#"));
        match first {
            Some(line)
                if line.starts_with(b"[") || line.first().is_some_and(u8::is_ascii_digit) =>
            {
                // A FEN begins with a digit too (`8/8/...`): a move number is digits
                // and a dot.
                let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
                if line.starts_with(b"[") || line.get(digits) == Some(&b'.') {
                    BookFormat::Pgn
                } else {
                    BookFormat::Epd
                }
            }
            _ => BookFormat::Epd,
        }
    }
}

/// The order the games take the openings in.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The book's order.
    #[default]
    Sequential,
    /// Shuffled by the event's seed (`--srand`).
    Random,
}

/// What `--openings` says: the book and how to take its openings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningsSpec {
    /// The book.
    pub file: PathBuf,
    /// Its format; by its name or text when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<BookFormat>,
    /// The order.
    #[serde(default)]
    pub order: Order,
    /// A PGN game's moves played, at most (all when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
    /// The opening to begin with, from 1 (after shuffling, with `order=random`).
    #[serde(default = "one")]
    pub start: u32,
}

fn one() -> u32 {
    1
}

/// The keys of `--openings`'s words.
pub const KEYS: [&str; 5] = ["file", "format", "order", "plies", "start"];

impl OpeningsSpec {
    /// A book read whole, in its order.
    pub fn file(path: impl Into<PathBuf>) -> OpeningsSpec {
        OpeningsSpec {
            file: path.into(),
            format: None,
            order: Order::Sequential,
            plies: None,
            start: 1,
        }
    }

    /// Reads `--openings`'s words: `file=F format=epd|pgn order=sequential|random
    /// plies=N start=N` in any order, `file=` the only one needed; a word that is not
    /// one of these keys is the file (`--openings book.epd`).
    ///
    /// # Errors
    ///
    /// A sentence naming the word that is wrong, or the file missing.
    pub fn parse(words: &[String]) -> Result<OpeningsSpec, String> {
        let mut file: Option<PathBuf> = None;
        let mut spec = OpeningsSpec::file("");
        let number = |key: &str, value: &str| -> Result<u32, String> {
            value
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("--openings {key}={value}: expected a number from 1"))
        };
        for word in words {
            let Some((key, value)) = word.split_once('=').filter(|(k, _)| KEYS.contains(k)) else {
                if let Some(first) = &file {
                    return Err(format!(
                        "--openings {word}: the file is {} already; the other words are {}",
                        first.display(),
                        KEYS.iter()
                            .map(|k| format!("{k}="))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                file = Some(PathBuf::from(word));
                continue;
            };
            match key {
                "file" => {
                    if file.is_some() {
                        return Err(format!("--openings {word}: the file is given twice"));
                    }
                    file = Some(PathBuf::from(value));
                }
                "format" => {
                    spec.format = Some(match value {
                        "epd" | "fen" => BookFormat::Epd,
                        "pgn" => BookFormat::Pgn,
                        _ => return Err(format!("--openings {word}: expected format=epd or pgn")),
                    });
                }
                "order" => {
                    spec.order = match value {
                        "sequential" => Order::Sequential,
                        "random" => Order::Random,
                        _ => {
                            return Err(format!(
                                "--openings {word}: expected order=sequential or random"
                            ));
                        }
                    };
                }
                "plies" => spec.plies = Some(number(key, value)?),
                _ => spec.start = number(key, value)?,
            }
        }
        match file {
            Some(f) if !f.as_os_str().is_empty() => spec.file = f,
            _ => return Err("--openings: give the file (file=FILE, or the file alone)".into()),
        }
        Ok(spec)
    }

    /// The words that give this spec again (`file=F order=random plies=8`).
    pub fn words(&self) -> Vec<String> {
        let mut words = vec![format!("file={}", self.file.display())];
        if let Some(format) = self.format {
            words.push(
                match format {
                    BookFormat::Epd => "format=epd",
                    BookFormat::Pgn => "format=pgn",
                }
                .into(),
            );
        }
        if self.order == Order::Random {
            words.push("order=random".into());
        }
        if let Some(plies) = self.plies {
            words.push(format!("plies={plies}"));
        }
        if self.start != 1 {
            words.push(format!("start={}", self.start));
        }
        words
    }

    /// Reads the book, in its order.
    ///
    /// # Errors
    ///
    /// As [`read`].
    pub fn read(&self) -> Result<Vec<Opening>, OpeningsError> {
        read(&self.file, self.format, self.plies)
    }
}

/// Reads the book at `path` in `format` (by its name or text when `None`), a PGN
/// game's first `plies` moves (all when `None`); every opening as its position's FEN
/// with the tags that name it.
///
/// # Errors
///
/// [`OpeningsError`] when the file cannot be read, a record or game is not valid, its
/// position is not legal or already over, or the file holds no opening.
pub fn read(
    path: &Path,
    format: Option<BookFormat>,
    plies: Option<u32>,
) -> Result<Vec<Opening>, OpeningsError> {
    let text = std::fs::read(path).map_err(|source| OpeningsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let format = format.unwrap_or_else(|| BookFormat::of(path, &text));
    let at = |e: BookError| match e {
        BookError::Line { line, problem } => OpeningsError::Record {
            path: path.to_path_buf(),
            line,
            problem,
        },
        BookError::Game { game, problem } => OpeningsError::Game {
            path: path.to_path_buf(),
            game,
            problem,
        },
    };
    let openings = match format {
        BookFormat::Epd => parse_epd(&text).map_err(at)?,
        BookFormat::Pgn => parse_pgn(&text, plies).map_err(at)?,
    };
    if openings.is_empty() {
        return Err(OpeningsError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(openings)
}

/// Reads an openings file whole, its format by its name or text (`argus serial
/// --openings`, the `openings` key of its event file).
///
/// # Errors
///
/// As [`read`].
pub fn read_openings(path: &Path) -> Result<Vec<Opening>, OpeningsError> {
    read(path, None, None)
}

/// Puts `openings` in the order the games take them: shuffled by `seed` with
/// `order=random`, then from the `start`th (from 1, going round to the first after the
/// last), and no more than `keep` of them (the schedule's encounters take no more).
///
/// # Errors
///
/// A sentence when `start` is past the last opening.
pub fn arrange(
    mut openings: Vec<Opening>,
    order: Order,
    start: u32,
    seed: u64,
    keep: usize,
) -> Result<Vec<Opening>, String> {
    if order == Order::Random {
        shuffle(&mut openings, seed);
    }
    let first = start.max(1) as usize - 1;
    if first >= openings.len() {
        return Err(format!(
            "--openings start={start}: the book has {} opening(s)",
            openings.len()
        ));
    }
    openings.rotate_left(first);
    openings.truncate(keep.max(1));
    Ok(openings)
}

/// Fisher–Yates by SplitMix64 from `seed`: the same order for a seed in every version.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        // A number in 0..=i, by the high half of a 128-bit product.
        let j = ((u128::from(next()) * (i as u128 + 1)) >> 64) as usize;
        items.swap(i, j);
    }
}

/// An openings file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// The file cannot be read.
    #[error("openings file {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// A record that is not a valid start position.
    #[error("openings file {}, line {line}: {problem}", .path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A game of a PGN book that gives no valid start position.
    #[error("openings file {}, game {game}: {problem}", .path.display())]
    Game {
        /// The file.
        path: PathBuf,
        /// The game, from 1.
        game: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// No opening in the file.
    #[error("openings file {}: no positions in it", .path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

#[cfg(test)]
mod tests;
