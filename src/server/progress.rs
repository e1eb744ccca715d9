//! What an event tells whoever runs it: `Progress` as it goes, and `Summary` at its
//! end.

use super::control::Status;
use super::files;
use super::registry::Seat;
use crate::core::{GameReport, Notice};
use crate::tournament::rating::Report as RatingReport;
use crate::tournament::{GameSpec, Knockout, Match, Sprt, Standings};

/// What an event came to.
#[derive(Debug)]
pub struct Summary {
    /// The standings.
    pub standings: Standings,
    /// Games with a record.
    pub played: usize,
    /// Games scheduled.
    pub scheduled: usize,
    /// Games that failed (could not be played; the log says why), by number.
    pub failed: Vec<u32>,
    /// Whether the event was stopped before its last game (Ctrl-C, the console's
    /// `stop` or `stop after-games`, or the SPRT reaching a bound).
    pub stopped: bool,
    /// The SPRT, when the event ran one.
    pub sprt: Option<Sprt>,
    /// The ratings.
    pub ratings: RatingReport,
    /// A knockout's bracket.
    pub knockout: Option<Knockout>,
}

impl Summary {
    /// The standings as `standings.txt` holds them (without the crosstable unless
    /// `crosstable`): the table, the SPRT's line, the ratings, a knockout's bracket.
    pub fn text(&self, crosstable: bool) -> String {
        files::standings_text(
            &self.standings,
            self.sprt.as_ref(),
            &self.ratings,
            self.knockout.as_ref(),
            crosstable,
        )
    }
}

/// What `argus serve` tells whoever runs it, as the event goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A game begins.
    Started(&'a GameSpec),
    /// A game ended, and the standings with it (those of the games before a resume
    /// too).
    Finished(&'a GameSpec, &'a GameReport, &'a Standings),
    /// A game could not be played (an engine that does not start, say).
    Failed(&'a GameSpec, &'a str),
    /// A notice from a game's referee.
    Notice(&'a GameSpec, &'a Notice),
    /// A game pair finished and the SPRT moved.
    Sprt(&'a Sprt),
    /// The ratings after this many games with a result (every `--rating-interval`).
    Ratings(usize, &'a RatingReport),
    /// A knockout's match is decided (a bye too).
    Knockout(&'a Match),
    /// Where the event stands, as [`Requests::status`](crate::server::Requests::status) asked.
    Status(&'a Status),
    /// No new game starts, as [`Requests::stop_after_games`](crate::server::Requests::stop_after_games) asked: this many games
    /// under way finish first.
    Draining(usize),
    /// The event's answer to a console command for one game (`game 3 pause`).
    Console(&'a str),
    /// A player took a seat (`--seats`), and the event's journal holds its name: the
    /// player's index, and the seat.
    Seated(usize, &'a Seat),
}
