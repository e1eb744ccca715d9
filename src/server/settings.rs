//! An event's settings (`ServeConfig`): its players, format, games and files, as the
//! options or `--config` gave them, and the checks on its players. The first line of
//! `event.jsonl` holds them, so that `--resume DIR` needs nothing else. What an event is
//! run with besides them (`Setup`: the views, the standby stream) is here too.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::entrant::Entrant;
use super::error::ServeError;
use crate::core::clock::TimeControl;
use crate::core::{DrawRule, IllegalRule};
use crate::mediator::standby::Hub;
use crate::tournament::{AdjudicationRules, Colours, Format, SprtConfig};
use crate::watch::live::Live;

/// An event: its players, its format and its games. `event.jsonl` holds it, so that
/// `--resume DIR` needs nothing else.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ServeConfig {
    /// The players, in the order given (the gauntlet's first player first).
    pub players: Vec<Entrant>,
    /// Where players that connect by themselves connect (needed when there are any).
    pub listen: Option<SocketAddr>,
    /// The connections taken at once (256 when not given).
    #[serde(default)]
    pub max_clients: Option<usize>,
    /// How long a listed player may be absent before its games are lost by forfeit
    /// (`--absent-after`, seconds); without it, `ABSENT_AFTER` (300 s) when the event runs
    /// unattended, and for ever when it is attended ([`Setup::unattended`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent_after: Option<u64>,
    /// How they are paired.
    pub format: Format,
    /// How many times the pairings are played.
    pub rounds: u32,
    /// Games per pairing in a round, the colours alternating.
    pub games: u32,
    /// Games at once.
    pub concurrency: usize,
    /// Start positions (each as FEN, with the tags that name it) in the order the
    /// encounters take them, each `repeat` games in a row; empty for the standard array.
    pub openings: Vec<crate::core::Opening>,
    /// Where the openings came from (`--openings`), for the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings_from: Option<crate::openings::OpeningsSpec>,
    /// The games in a row of a pairing that take each opening, the colours alternating
    /// (`--repeat`).
    #[serde(default = "two")]
    pub repeat: u32,
    /// The seed of the openings' random order (`--srand`, or the one drawn when none
    /// was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srand: Option<u64>,
    /// A gauntlet's players that meet all the others (fastchess's and cutechess-cli's
    /// `-seeds`; 1, the first player, for argus serve's gauntlet).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub seeds: u32,
    /// Who has White in each game of a round robin's or a gauntlet's pairings (argus's
    /// alternation unless another program's command line asked otherwise).
    #[serde(default, skip_serializing_if = "Colours::is_alternate")]
    pub colours: Colours,
    /// The time control of every game.
    pub time_control: TimeControl,
    /// When repetition and fifty-move draws apply.
    pub draw_rule: DrawRule,
    /// What an illegal move costs.
    pub illegal: IllegalRule,
    /// The PGN Event tag.
    pub event: String,
    /// The PGN Site tag.
    pub site: String,
    /// The PGN Date tag.
    pub date: String,
    /// The pause after `reset`.
    pub reset_delay: Duration,
    /// The pause after `conclude`.
    pub conclude_delay: Duration,
    /// Adjudication by the engines' evaluations (`--resign`, `--draw`, `--maxmoves`).
    pub adjudication: AdjudicationRules,
    /// The SPRT of a two-player match over its game pairs; the event stops at a bound.
    pub sprt: Option<SprtConfig>,
    /// The ratings are reported after every this many games with a result (0: only at
    /// the end).
    #[serde(default)]
    pub rating_interval: u32,
    /// Every game is appended to this file too (`--pgnout`).
    #[serde(default)]
    pub pgnout: Option<PathBuf>,
    /// The final position of every game is appended to this file as an EPD line
    /// (`--epdout`).
    #[serde(default)]
    pub epdout: Option<PathBuf>,
    /// The `Variant` tag's value in the `--pgnout` copy, in place of the PGN's own
    /// (`Chess960`): cutechess-cli's name, `fischerandom`, under its command line, so
    /// that cutechess reads the copy back as it reads its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgnout_variant: Option<String>,
    /// Each game's moves and the engines' analysis value by value in its report
    /// ([`crate::core::MatchConfig::keep_info`]), for a PGN written outside the event
    /// (fastchess's, under `argus fastchess`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_info: bool,
    /// No PGN file of each game's own beside its journal (`games/game-NNNN.pgn`): the
    /// journal and `games.pgn` hold every game (`argus fastchess`'s matches, in a
    /// folder that goes when the match ends: a file fewer to create a game).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_game_pgn: bool,
    /// The variant of every game (`--variant`).
    #[serde(default, skip_serializing_if = "crate::core::Variant::is_standard")]
    pub variant: crate::core::Variant,
    /// Adjudication by endgame tables (`--tb` and its options).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tb: Option<crate::tablebase::TbConfig>,
    /// The standby stream (`--standby-listen`, `--standby-sync`, `--standby-key`;
    /// docs/standby.md): kept so that a resumed referee offers it again, where an
    /// observer that took the event over tells it so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standby: Option<StandbySettings>,
    /// The audience's page (`--http`): served again by `--resume`, unless it gives
    /// another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// The event's folder.
    pub out: PathBuf,
}

/// The standby stream of an event, as its options gave it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StandbySettings {
    /// Where observers connect (`--standby-listen`).
    pub listen: SocketAddr,
    /// A line is relayed once the observers hold it (`--standby-sync`).
    #[serde(default)]
    pub sync: bool,
    /// The key's file (`--standby-key`), absolute; the key itself is never recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<PathBuf>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn two() -> u32 {
    2
}

/// The port `argus serve` listens on unless told another address.
pub const DEFAULT_PORT: u16 = 5150;

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

/// What an event is run with besides its settings.
#[derive(Clone, Copy, Default)]
pub struct Setup<'a> {
    /// The views' model of the games (`--http`, the terminal view).
    pub live: Option<&'a Arc<Live>>,
    /// The standby stream (`--standby-listen`): every journal line of the event goes to
    /// the observers as it is written.
    pub standby: Option<&'a Arc<Hub>>,
    /// Where the players connect, instead of the address the settings give (an observer
    /// that took over listens on its own).
    pub listen: Option<SocketAddr>,
    /// Nobody reads the console (`--unattended`): a listed player that is absent is
    /// not waited for past [`ServeConfig::absent_after`] (or `ABSENT_AFTER` (300 s)).
    pub unattended: bool,
}

/// How long a listed player of an unattended event may be absent before it loses its
/// games by forfeit, unless `--absent-after` says otherwise (docs/supervisor.md).
pub const ABSENT_AFTER: std::time::Duration = std::time::Duration::from_secs(300);

impl ServeConfig {
    /// How long a listed player may be absent before it loses its games by forfeit,
    /// when the event runs unattended or not: None, waited for as long as it takes.
    pub fn absent_limit(&self, unattended: bool) -> Option<std::time::Duration> {
        match self.absent_after {
            Some(secs) => Some(std::time::Duration::from_secs(secs)),
            None => unattended.then_some(ABSENT_AFTER),
        }
    }
}
