//! What is wrong with an event file, said as the command line says it: the file, the
//! line and column, the key at fault and what it should be.

use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    /// The file cannot be read.
    #[error("config {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// The file is not a valid event configuration.
    #[error("config{}{}: {problem}", file_part(.file.as_deref()), at_part(.at.as_ref()))]
    Invalid {
        /// The file, when the text was read from one.
        file: Option<PathBuf>,
        /// Where in the file, when the problem has a place.
        at: Option<Position>,
        /// What is wrong.
        problem: Problem,
    },
}

impl ConfigFileError {
    /// The problem, when the file was read but is not valid.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            ConfigFileError::Read { .. } => None,
            ConfigFileError::Invalid { problem, .. } => Some(problem),
        }
    }

    /// Where in the file the problem is, when it has a place.
    pub fn position(&self) -> Option<Position> {
        match self {
            ConfigFileError::Read { .. } => None,
            ConfigFileError::Invalid { at, .. } => *at,
        }
    }
}

pub(super) fn file_part(file: Option<&Path>) -> String {
    file.map_or_else(String::new, |f| format!(" {}", f.display()))
}

pub(super) fn at_part(at: Option<&Position>) -> String {
    at.map_or_else(String::new, |at| format!(": {at}"))
}

/// A place in a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column in characters, from 1.
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What is wrong with a configuration file. Keys are written as dotted paths
/// (`match.games`, `player.a.port`) and shown as ``"`games` in [match]"``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The text is not TOML.
    #[error("{message}")]
    Syntax {
        /// The TOML parser's message.
        message: String,
    },
    /// A key that is not an option (a typo, most likely).
    #[error("unknown key {}, expected {expected}", describe(.key))]
    UnknownKey {
        /// The key.
        key: String,
        /// The keys allowed there.
        expected: String,
    },
    /// A key of an earlier version, renamed since to the name of its option.
    #[error("{}", renamed(.key, .now))]
    Renamed {
        /// The key as written.
        key: String,
        /// What it is called now.
        now: String,
    },
    /// A required key is absent.
    #[error("missing key {}", describe(.key))]
    MissingKey {
        /// The key.
        key: String,
    },
    /// A value of the wrong type, or out of range.
    #[error("{}: {message}", describe(.key))]
    BadValue {
        /// The key.
        key: String,
        /// What is wrong with its value.
        message: String,
    },
    /// Both players are given the same port.
    #[error("[player.a] and [player.b] have the same port {port}")]
    SamePort {
        /// The port.
        port: String,
    },
    /// A problem the deserializer found at no known key.
    #[error("{message}")]
    Other {
        /// The deserializer's message.
        message: String,
    },
}

impl Problem {
    /// The dotted path of the key at fault, when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Problem::UnknownKey { key, .. }
            | Problem::Renamed { key, .. }
            | Problem::MissingKey { key }
            | Problem::BadValue { key, .. } => Some(key),
            Problem::SamePort { .. } => Some("player.b.port"),
            Problem::Syntax { .. } | Problem::Other { .. } => None,
        }
    }
}

/// ``"`games` in [match]"`` for `match.games`; "`evnt` at the top level" for `evnt`.
pub(super) fn describe(key: &str) -> String {
    match key.rsplit_once('.') {
        Some((table, name)) => format!("`{name}` in [{table}]"),
        None => format!("`{key}` at the top level"),
    }
}

/// The keys of earlier versions that are now named as the options of `argus serial` are,
/// with their names now.
pub(super) const RENAMED: [(&str, &str); 3] = [
    ("event", "match"),
    ("match.name", "event"),
    ("match.time_control", "tc"),
];

/// What a renamed key is called now, with the option of that name.
pub(super) fn renamed(key: &str, now: &str) -> String {
    if key == "event" {
        return "[event] is now [match] (and in it, `name` is now `event` and `time_control` is now `tc`): every key is named as its option of argus serial".into();
    }
    format!(
        "{} is now `{now}`, as the option --{}",
        describe(key),
        now.replace('_', "-")
    )
}

/// The line and column of byte `offset` of `text`.
pub(crate) fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    }
}

pub(crate) fn invalid(text: &str, span: Option<Range<usize>>, problem: Problem) -> ConfigFileError {
    ConfigFileError::Invalid {
        file: None,
        at: span.map(|s| position(text, s.start)),
        problem,
    }
}

/// Turns the TOML parser's error into a [`Problem::Syntax`], naming the key when the
/// problem is a key given twice.
pub(crate) fn syntax_error(text: &str, e: &toml::de::Error) -> ConfigFileError {
    let mut message = e.message().to_string();
    if message == "duplicate key"
        && let Some(key) = e.span().and_then(|span| text.get(span))
        && !key.is_empty()
    {
        message = format!("duplicate key `{key}`");
    }
    invalid(text, e.span(), Problem::Syntax { message })
}

/// Turns a deserializer's error into a [`Problem`] that names the key at fault, found
/// from the error's place in the parsed document.
pub(super) fn serde_error(text: &str, doc: &DeTable<'_>, e: &toml::de::Error) -> ConfigFileError {
    serde_error_renamed(text, doc, e, &RENAMED)
}

/// As [`serde_error`], with the renamed keys of a file of another kind.
pub(crate) fn serde_error_renamed(
    text: &str,
    doc: &DeTable<'_>,
    e: &toml::de::Error,
    renamed: &[(&str, &str)],
) -> ConfigFileError {
    let message = plain_words(e.message());
    let key = e.span().and_then(|span| key_at(doc, span.start));
    let problem = match key {
        Some(key) => match message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split_once("`, expected "))
        {
            Some((_, expected)) => match renamed.iter().find(|(old, _)| *old == key) {
                Some((_, now)) => Problem::Renamed {
                    key,
                    now: now.to_string(),
                },
                None => Problem::UnknownKey {
                    key,
                    expected: expected.to_string(),
                },
            },
            None => Problem::BadValue { key, message },
        },
        None => Problem::Other { message },
    };
    invalid(text, e.span(), problem)
}

/// Replaces the Rust type names in a deserializer's message with words.
pub(super) fn plain_words(message: &str) -> String {
    let mut message = message
        .replace("expected i64", "expected a whole number")
        .replace("expected f64", "expected a number")
        .replace("wanted string or table", "expected a string");
    if let Some(i) = message.find("expected struct ") {
        message.truncate(i);
        message.push_str("expected a table");
    }
    message
}

/// The dotted path of the key whose name or value is at byte `offset`.
pub(super) fn key_at(table: &DeTable<'_>, offset: usize) -> Option<String> {
    let within =
        |span: Range<usize>| span.start <= offset && (offset < span.end || span.start == span.end);
    for (key, value) in table {
        let name: &str = key.get_ref();
        if let DeValue::Table(inner) = value.get_ref()
            && let Some(sub) = key_at(inner, offset)
        {
            return Some(format!("{name}.{sub}"));
        }
        // A key in one of an array of tables (`[[engine]]`) is named by the array's.
        if let DeValue::Array(items) = value.get_ref() {
            for item in items.iter() {
                if let DeValue::Table(inner) = item.get_ref()
                    && let Some(sub) = key_at(inner, offset)
                {
                    return Some(format!("{name}.{sub}"));
                }
            }
        }
        let leaf = !matches!(value.get_ref(), DeValue::Table(_));
        if within(key.span()) || (leaf && within(value.span())) {
            return Some(name.to_string());
        }
    }
    None
}
