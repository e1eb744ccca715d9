//! Event files for `argus serve --config EVENT.toml`: every option of `argus serve` in
//! one TOML file (`docs/example-serve.toml` is a complete example).
//!
//! As for `argus serial`'s event files, the file and the command line are one: every
//! option of `argus serve` is a key of the same name, its long name with `_` for `-`
//! (`--max-clients` is `max_clients`), and every key is an option. Each key has one
//! table: `[tournament]` for the games and their rules, `[files]` for the files argus
//! writes (`out`, `pgnout`, `epdout`), `[network]` for the players that connect by themselves (`listen`,
//! `max_clients`, `seats`, `players`). The players are arrays of tables: each `[[engine]]` holds the words
//! of one `--engine` as keys (`name`, `cmd`, `proto`, `nodes`, `depth`, `movetime`, and
//! the engine's options in `option`, such as `option.Hash = 16`), each `[[player]]` one
//! `--player` (`name`, `token`); the players keep the order they have in the file.
//! Only `--config` and `--resume` have no key.
//!
//! The file is read into the words of the command line ([`FileOption`]), which clap then
//! reads with the options typed: so a key means what its option means, with the same
//! default and the same checks. An option on the command line overrides its key; an
//! `--engine` or `--player` there replaces all the file's players. An unknown key is an
//! error that names it, its table and its place. Relative paths (`openings`'s file,
//! `out`, `pgnout`, `epdout`) are relative to the file's folder. `openings` takes
//! `--openings`'s words as one string (`"file=book.pgn plies=8"`, or the file alone), a
//! list of them, or a table of its keys (`{ file = "book.pgn", order = "random", plies =
//! 8 }`).

use std::fs;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;
use toml::de::DeTable;

use crate::mediator::config::{
    ConfigFileError, Position, Problem, field_names, invalid, position, serde_error_renamed,
    syntax_error,
};

use super::engines::EngineSpec;
use super::registry::RemotePlayer;

/// One key of the file as the words of its option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileOption {
    /// The key's dotted path (`tournament.games`, `engine`).
    pub key: String,
    /// The option's long name (`games`, `engine`).
    pub option: String,
    /// The words after `--option`: none for a flag that is set.
    pub words: Vec<String>,
    /// Where the key is in the file.
    pub at: Position,
}

impl FileOption {
    /// The command-line words: `--games=4`, `--engine name=A proto=random`,
    /// `--unattended`.
    pub fn args(&self) -> Vec<String> {
        match self.words.as_slice() {
            [] => vec![format!("--{}", self.option)],
            [one] if !MANY_WORDS.contains(&self.option.as_str()) => {
                vec![format!("--{}={one}", self.option)]
            }
            words => std::iter::once(format!("--{}", self.option))
                .chain(words.iter().cloned())
                .collect(),
        }
    }

    /// ``"`games` in [tournament]"``, as an error names it.
    pub fn describe(&self) -> String {
        match self.key.split_once('.') {
            Some((table, leaf)) => format!("`{leaf}` in [{table}]"),
            None => format!("[[{}]]", self.key),
        }
    }
}

/// Options whose value is several words (given in the file as one string of them).
const MANY_WORDS: [&str; 6] = ["engine", "player", "each", "resign", "draw", "sprt"];

/// Options that take no value: `true` sets them, `false` leaves them off.
const FLAGS: [&str; 3] = ["unattended", "standby_sync", "tb_ignore_50"];

/// Keys of `argus serial`'s event file, which are not this file's.
const RENAMED: [(&str, &str); 0] = [];

type Value = Option<Spanned<toml::Value>>;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    tournament: RawTournament,
    #[serde(default)]
    files: RawFiles,
    #[serde(default)]
    network: RawNetwork,
    #[serde(default)]
    engine: Vec<Spanned<RawEngine>>,
    #[serde(default)]
    player: Vec<Spanned<RawPlayer>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTournament {
    event: Value,
    site: Value,
    format: Value,
    rounds: Value,
    games: Value,
    concurrency: Value,
    openings: Value,
    repeat: Value,
    srand: Value,
    variant: Value,
    tb: Value,
    tb_pieces: Value,
    tb_ignore_50: Value,
    tb_adjudicate: Value,
    tc: Value,
    draw_rule: Value,
    illegal: Value,
    reset_delay: Value,
    conclude_delay: Value,
    resign: Value,
    draw: Value,
    maxmoves: Value,
    sprt: Value,
    rating_interval: Value,
    unattended: Value,
    each: Value,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFiles {
    out: Value,
    pgnout: Value,
    epdout: Value,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawNetwork {
    listen: Value,
    max_clients: Value,
    http: Value,
    seats: Value,
    absent_after: Value,
    players: Value,
    standby_listen: Value,
    standby_sync: Value,
    standby_key: Value,
}

/// One `[[engine]]`: the keys of `--engine`'s words.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawEngine {
    name: Value,
    cmd: Value,
    proto: Value,
    /// The engine's options; each value's place keeps the file's order.
    option: Option<std::collections::BTreeMap<String, Spanned<toml::Value>>>,
    nodes: Value,
    depth: Value,
    movetime: Value,
    restarts: Value,
    timemargin: Value,
}

/// One `[[player]]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPlayer {
    name: Value,
    token: Value,
}

/// The keys of a file, as dotted paths: `tournament.games`, ..., `engine`, `player`.
pub fn keys() -> Vec<String> {
    let mut keys = Vec::new();
    for (table, fields) in [
        ("tournament", field_names::<RawTournament>()),
        ("files", field_names::<RawFiles>()),
        ("network", field_names::<RawNetwork>()),
    ] {
        keys.extend(fields.iter().map(|f| format!("{table}.{f}")));
    }
    keys.extend(["engine".to_string(), "player".to_string()]);
    keys
}

/// The keys of one `[[engine]]`: the words of `--engine` (`option` holds `option.X`).
pub fn engine_keys() -> &'static [&'static str] {
    field_names::<RawEngine>()
}

/// The key of the option of `argus serve` with long name `name`, if it has one.
pub fn key_of_option(name: &str) -> Option<String> {
    let name = name.replace('-', "_");
    keys()
        .into_iter()
        .find(|k| k.rsplit('.').next() == Some(name.as_str()))
}

/// Reads the event file at `path` into the words of its options, the players in the
/// file's order.
///
/// # Errors
///
/// [`ConfigFileError::Read`] when it cannot be read; [`ConfigFileError::Invalid`],
/// naming the file, the place and the key, when it is not TOML, has a key that is no
/// option, or a value that cannot be one.
pub fn load(path: &Path) -> Result<Vec<FileOption>, ConfigFileError> {
    let text = fs::read_to_string(path).map_err(|source| ConfigFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().unwrap_or_else(|| Path::new(""));
    parse(&text, base).map_err(|mut e| {
        if let ConfigFileError::Invalid { file, .. } = &mut e {
            *file = Some(path.to_path_buf());
        }
        e
    })
}

/// Reads the text of an event file; relative paths are made relative to `base`.
///
/// # Errors
///
/// As [`load`].
pub fn parse(text: &str, base: &Path) -> Result<Vec<FileOption>, ConfigFileError> {
    let doc = DeTable::parse(text).map_err(|e| syntax_error(text, &e))?;
    let raw: RawFile =
        toml::from_str(text).map_err(|e| serde_error_renamed(text, doc.get_ref(), &e, &RENAMED))?;
    let mut out = Vec::new();
    let mut scalar = |table: &str, name: &str, value: &Value| -> Result<(), ConfigFileError> {
        let Some(value) = value else { return Ok(()) };
        let key = format!("{table}.{name}");
        let at = Some(value.span());
        let mut words = if name == "openings" {
            openings_words(text, &key, value, base)?
        } else {
            words_of(text, &key, value)?
        };
        if FLAGS.contains(&name) {
            match value.get_ref() {
                toml::Value::Boolean(true) => words.clear(),
                toml::Value::Boolean(false) => return Ok(()),
                _ => return Err(bad(text, value, &key, "expected true or false")),
            }
        } else if MANY_WORDS.contains(&name) {
            words = words
                .iter()
                .flat_map(|w| w.split_whitespace())
                .map(str::to_string)
                .collect();
        } else if ["out", "pgnout", "epdout", "standby_key", "players", "tb"].contains(&name)
            && let [path] = words.as_slice()
            && Path::new(path).is_relative()
        {
            words = vec![base.join(path).display().to_string()];
        }
        out.push(FileOption {
            key,
            option: name.replace('_', "-"),
            words,
            at: position(text, at.map_or(0, |s| s.start)),
        });
        Ok(())
    };
    let t = &raw.tournament;
    for (name, value) in [
        ("event", &t.event),
        ("site", &t.site),
        ("format", &t.format),
        ("rounds", &t.rounds),
        ("games", &t.games),
        ("concurrency", &t.concurrency),
        ("openings", &t.openings),
        ("repeat", &t.repeat),
        ("srand", &t.srand),
        ("variant", &t.variant),
        ("tb", &t.tb),
        ("tb_pieces", &t.tb_pieces),
        ("tb_ignore_50", &t.tb_ignore_50),
        ("tb_adjudicate", &t.tb_adjudicate),
        ("tc", &t.tc),
        ("draw_rule", &t.draw_rule),
        ("illegal", &t.illegal),
        ("reset_delay", &t.reset_delay),
        ("conclude_delay", &t.conclude_delay),
        ("resign", &t.resign),
        ("draw", &t.draw),
        ("maxmoves", &t.maxmoves),
        ("sprt", &t.sprt),
        ("rating_interval", &t.rating_interval),
        ("unattended", &t.unattended),
        ("each", &t.each),
    ] {
        scalar("tournament", name, value)?;
    }
    scalar("files", "out", &raw.files.out)?;
    scalar("files", "pgnout", &raw.files.pgnout)?;
    scalar("files", "epdout", &raw.files.epdout)?;
    scalar("network", "listen", &raw.network.listen)?;
    scalar("network", "max_clients", &raw.network.max_clients)?;
    scalar("network", "http", &raw.network.http)?;
    scalar("network", "seats", &raw.network.seats)?;
    scalar("network", "absent_after", &raw.network.absent_after)?;
    scalar("network", "players", &raw.network.players)?;
    scalar("network", "standby_listen", &raw.network.standby_listen)?;
    scalar("network", "standby_sync", &raw.network.standby_sync)?;
    scalar("network", "standby_key", &raw.network.standby_key)?;
    // The players, in the order of the file.
    let mut players: Vec<(usize, FileOption)> = Vec::new();
    for engine in &raw.engine {
        let start = engine.span().start;
        let e = engine.get_ref();
        let mut words = Vec::new();
        for (name, value) in [
            ("name", &e.name),
            ("cmd", &e.cmd),
            ("proto", &e.proto),
            ("nodes", &e.nodes),
            ("depth", &e.depth),
            ("movetime", &e.movetime),
            ("restarts", &e.restarts),
            ("timemargin", &e.timemargin),
        ] {
            if let Some(value) = value {
                let key = format!("engine.{name}");
                let [word] = words_of(text, &key, value)?
                    .try_into()
                    .map_err(|_| bad(text, value, &key, "expected one value, not a list"))?;
                words.push(format!("{name}={word}"));
            }
        }
        // The engine's options in the order of the file (an engine may care: some
        // options reset others), not sorted by name as the table holds them.
        let mut options: Vec<_> = e.option.iter().flatten().collect();
        options.sort_by_key(|(_, value)| value.span().start);
        for (option, value) in options {
            let value = value.get_ref();
            let word = match value {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
                    value.to_string()
                }
                _ => {
                    return Err(invalid(
                        text,
                        Some(engine.span()),
                        Problem::BadValue {
                            key: format!("engine.option.{option}"),
                            message: "expected a string, a number or true/false".into(),
                        },
                    ));
                }
            };
            words.push(format!("option.{option}={word}"));
        }
        EngineSpec::parse(&words).map_err(|message| {
            invalid(
                text,
                Some(engine.span()),
                Problem::BadValue {
                    key: "engine".into(),
                    message,
                },
            )
        })?;
        players.push((
            start,
            FileOption {
                key: "engine".into(),
                option: "engine".into(),
                words,
                at: position(text, start),
            },
        ));
    }
    for player in &raw.player {
        let start = player.span().start;
        let p = player.get_ref();
        let one = |key: &str, value: &Value| -> Result<Option<String>, ConfigFileError> {
            let Some(value) = value else { return Ok(None) };
            let words = words_of(text, key, value)?;
            match words.as_slice() {
                [word] if !word.contains(':') => Ok(Some(word.clone())),
                _ => Err(bad(text, value, key, "expected one word without `:`")),
            }
        };
        let bad_player = |message: &str| {
            invalid(
                text,
                Some(player.span()),
                Problem::BadValue {
                    key: "player".into(),
                    message: message.into(),
                },
            )
        };
        let name = one("player.name", &p.name)?.ok_or_else(|| bad_player("give it a name"))?;
        let word = match one("player.token", &p.token)? {
            Some(token) => format!("{name}:{token}"),
            None => name,
        };
        RemotePlayer::parse(&word).map_err(|m| bad_player(&m))?;
        players.push((
            start,
            FileOption {
                key: "player".into(),
                option: "player".into(),
                words: vec![word],
                at: position(text, start),
            },
        ));
    }
    players.sort_by_key(|(start, _)| *start);
    out.extend(players.into_iter().map(|(_, p)| p));
    Ok(out)
}

fn bad(text: &str, value: &Spanned<toml::Value>, key: &str, message: &str) -> ConfigFileError {
    invalid(
        text,
        Some(value.span()),
        Problem::BadValue {
            key: key.into(),
            message: message.into(),
        },
    )
}

/// The `openings` key as `--openings`'s words, its file relative to `base`: a string
/// that is the file alone (`"book.epd"`, spaces and all) or the words in one string
/// (`"file=book.pgn plies=8"`), a list of words, or a table of the keys (`{ file =
/// "book.pgn", plies = 8 }`).
fn openings_words(
    text: &str,
    key: &str,
    value: &Spanned<toml::Value>,
    base: &Path,
) -> Result<Vec<String>, ConfigFileError> {
    use crate::openings::KEYS;
    let is_key = |w: &str| w.split_once('=').is_some_and(|(k, _)| KEYS.contains(&k));
    let words = match value.get_ref() {
        toml::Value::String(s) if s.split_whitespace().any(is_key) => {
            s.split_whitespace().map(str::to_string).collect()
        }
        toml::Value::Table(table) => {
            let mut words = Vec::new();
            for (k, v) in table {
                let [word] = words_of(text, key, &Spanned::new(value.span(), v.clone()))?
                    .try_into()
                    .map_err(|_| bad(text, value, key, "expected one value a key"))?;
                words.push(format!("{k}={word}"));
            }
            words
        }
        _ => words_of(text, key, value)?,
    };
    // The file, relative to the event file's folder.
    let relative = |path: &str| {
        if Path::new(path).is_relative() {
            base.join(path).display().to_string()
        } else {
            path.to_string()
        }
    };
    Ok(words
        .into_iter()
        .map(|w| match w.split_once('=') {
            Some(("file", path)) => format!("file={}", relative(path)),
            _ if is_key(&w) => w,
            _ => relative(&w),
        })
        .collect())
}

/// A value as the words of its option: a string, a number or true/false is one word;
/// a list of them, several.
fn words_of(
    text: &str,
    key: &str,
    value: &Spanned<toml::Value>,
) -> Result<Vec<String>, ConfigFileError> {
    let word = |v: &toml::Value| match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
            Some(v.to_string())
        }
        _ => None,
    };
    let words = match value.get_ref() {
        toml::Value::Array(items) => items.iter().map(word).collect::<Option<Vec<_>>>(),
        v => word(v).map(|w| vec![w]),
    };
    words.ok_or_else(|| {
        bad(
            text,
            value,
            key,
            "expected a string, a number or true/false",
        )
    })
}

#[cfg(test)]
mod tests;
