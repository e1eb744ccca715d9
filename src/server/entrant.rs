//! The players of an event: engines argus starts, players listed by name that connect
//! by themselves, and seats for players not named in advance.

use super::engines::EngineSpec;
use super::registry::{RemotePlayer, Seat};

/// A player of an event: an engine argus starts, or a player that connects over TCP.
// An event holds one of these a player, in one list: an engine's settings inline cost
// nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entrant {
    /// `--engine`.
    Engine(EngineSpec),
    /// `--player`.
    Remote(RemotePlayer),
    /// One of `--seats N`: a player not named in advance, who connects by itself.
    Seat(Seat),
}

impl Entrant {
    /// Its name (a free seat's is `seat N`).
    pub fn name(&self) -> &str {
        match self {
            Entrant::Engine(e) => &e.name,
            Entrant::Remote(r) => &r.name,
            Entrant::Seat(s) => &s.name,
        }
    }

    /// Whether it connects by itself over TCP.
    pub fn is_remote(&self) -> bool {
        !matches!(self, Entrant::Engine(_))
    }
}

/// The players of `--players FILE`: one `NAME TOKEN` a line, the token its last word
/// and the name what comes before it; blank lines and lines whose first non-blank is
/// `#` are left out.
///
/// # Errors
///
/// What is wrong, with the file and the line's number: a file that cannot be read, a
/// line without a token, a name given twice.
pub fn read_players(path: &std::path::Path) -> Result<Vec<RemotePlayer>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--players {}: {e}", path.display()))?;
    parse_players(&text).map_err(|e| format!("--players {}: {e}", path.display()))
}

/// [`read_players`] of the file's text.
///
/// # Errors
///
/// As [`read_players`], without the file's name.
pub fn parse_players(text: &str) -> Result<Vec<RemotePlayer>, String> {
    let mut players: Vec<RemotePlayer> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let n = i + 1;
        let Some((name, token)) = line.rsplit_once(|c: char| c.is_ascii_whitespace()) else {
            return Err(format!(
                "line {n}: give the player's name and its token (`NAME TOKEN`), not one word"
            ));
        };
        let name = name.trim();
        if players.iter().any(|p| p.name == name) {
            return Err(format!("line {n}: {name:?} is given twice"));
        }
        players.push(RemotePlayer {
            name: name.to_string(),
            token: Some(crate::secret::TokenHash::of(token)),
        });
    }
    if players.is_empty() {
        return Err("no player in it (one `NAME TOKEN` a line)".into());
    }
    Ok(players)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_players_file_is_a_name_and_a_token_a_line() {
        let players =
            parse_players("# the club\n\nAnn tokA\n  Bob Smith   tokB \n  # Dan\nCarl c#3\n")
                .unwrap();
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Ann", "Bob Smith", "Carl"]);
        for (p, token) in players.iter().zip(["tokA", "tokB", "c#3"]) {
            assert!(p.token.as_ref().is_some_and(|t| t.matches(token)), "{p:?}");
        }
        assert_eq!(
            parse_players("Ann tokA\n\nBob\n").unwrap_err(),
            "line 3: give the player's name and its token (`NAME TOKEN`), not one word"
        );
        assert_eq!(
            parse_players("Ann x\nAnn y\n").unwrap_err(),
            "line 2: \"Ann\" is given twice"
        );
        assert!(
            parse_players("# nobody\n")
                .unwrap_err()
                .starts_with("no player")
        );
    }
}
