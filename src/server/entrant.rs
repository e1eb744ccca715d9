//! The players of an event: engines argus starts, players listed by name that connect
//! by themselves, and seats for players not named in advance.

use super::{EngineSpec, RemotePlayer, Seat, ServeConfig, ServeError};

/// A player of an event: an engine argus starts, or a player that connects over TCP.
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

/// Checks an event's players before anything else: two or more, and seats only in an
/// open event.
///
/// # Errors
///
/// [`ServeError::TooFew`], [`ServeError::ClosedSeats`].
pub fn check_players(cfg: &ServeConfig) -> Result<(), ServeError> {
    if cfg.players.len() < 2 {
        return Err(ServeError::TooFew);
    }
    let seats = cfg.players.iter().any(|p| matches!(p, Entrant::Seat(_)));
    let closed = cfg
        .players
        .iter()
        .any(|p| matches!(p, Entrant::Remote(r) if r.token.is_some()));
    if seats && closed {
        return Err(ServeError::ClosedSeats);
    }
    Ok(())
}
