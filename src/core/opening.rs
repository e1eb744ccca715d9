//! A start position of a match or an event, with the names its book gives it.

use serde::{Deserialize, Serialize};

/// A start position: its FEN, and the PGN tags that name it (`Opening`, `Variation`,
/// `ECO`), which every game from it carries in its record.
///
/// Written as its FEN alone when it has no tags (as journals and event files of argus
/// before tags held it, so that those are read the same), as `{"fen": .., "tags": ..}`
/// when it has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opening {
    /// The position, as FEN.
    pub fen: String,
    /// Tag pairs for the record of a game from it, names first, in the book's order.
    pub tags: Vec<(String, String)>,
}

impl Opening {
    /// The tag `name`'s value, when the opening has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl From<String> for Opening {
    fn from(fen: String) -> Opening {
        Opening {
            fen,
            tags: Vec::new(),
        }
    }
}

impl From<&str> for Opening {
    fn from(fen: &str) -> Opening {
        Opening::from(fen.to_string())
    }
}

#[derive(Serialize, Deserialize)]
struct Tagged {
    fen: String,
    #[serde(default)]
    tags: Vec<(String, String)>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Either {
    Fen(String),
    Tagged(Tagged),
}

impl Serialize for Opening {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.tags.is_empty() {
            s.serialize_str(&self.fen)
        } else {
            Tagged {
                fen: self.fen.clone(),
                tags: self.tags.clone(),
            }
            .serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Opening {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Opening, D::Error> {
        Ok(match Either::deserialize(d)? {
            Either::Fen(fen) => Opening::from(fen),
            Either::Tagged(Tagged { fen, tags }) => Opening { fen, tags },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_without_tags_is_its_fen_and_one_with_tags_an_object() {
        let plain = Opening::from("8/8/8/8/8/8/8/K1k5 w - - 0 1");
        let json = serde_json::to_string(&plain).unwrap();
        assert_eq!(json, "\"8/8/8/8/8/8/8/K1k5 w - - 0 1\"");
        assert_eq!(serde_json::from_str::<Opening>(&json).unwrap(), plain);
        let named = Opening {
            fen: plain.fen.clone(),
            tags: vec![("Opening".into(), "Sicilian".into())],
        };
        let json = serde_json::to_string(&named).unwrap();
        assert_eq!(
            json,
            r#"{"fen":"8/8/8/8/8/8/8/K1k5 w - - 0 1","tags":[["Opening","Sicilian"]]}"#
        );
        assert_eq!(serde_json::from_str::<Opening>(&json).unwrap(), named);
        assert_eq!(named.tag("Opening"), Some("Sicilian"));
        assert_eq!(named.tag("ECO"), None);
    }
}
