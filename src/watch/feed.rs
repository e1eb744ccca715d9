//! What feeds the views in a serial match: a [`Watcher`] that passes every notice on
//! to the watcher it wraps (the console's) and to the views' model, and keeps the
//! match's score there as its standings.

use std::sync::Arc;

use super::live::Live;
use crate::core::tally::{Tally, white_port};
use crate::core::{GameReport, Notice, Port};
use crate::mediator::Watcher;

/// The console's lines beside the terminal view: every notice as [`PrintWatcher`]
/// prints it, but the moves, which the view's move list shows.
///
/// [`PrintWatcher`]: crate::mediator::PrintWatcher
pub struct ViewLines;

impl Watcher for ViewLines {
    fn notice(&mut self, notice: &Notice) {
        if !matches!(notice, Notice::Moved { .. }) {
            println!("{notice}");
        }
    }
}

/// Feeds a match's notices to `live` as well as to `inner`.
pub struct MatchFeed<W> {
    inner: W,
    live: Arc<Live>,
    /// The game under way, for the notices that do not name theirs.
    game: u32,
    /// Each port's player, as its games name it.
    names: [String; 2],
    tally: Tally,
}

impl<W: Watcher> MatchFeed<W> {
    /// A feed to `live` beside `inner`; `tally` holds the games before a resume.
    pub fn new(inner: W, live: Arc<Live>, tally: Tally) -> MatchFeed<W> {
        MatchFeed {
            inner,
            live,
            game: 0,
            names: [String::from("port a"), String::from("port b")],
            tally,
        }
    }

    fn standings(&self) -> serde_json::Value {
        let mut table: Vec<(String, f64)> = Port::BOTH
            .iter()
            .map(|p| {
                let half = self.tally.half_points[p.index()];
                (self.names[p.index()].clone(), f64::from(half) / 2.0)
            })
            .collect();
        table.sort_by(|a, b| b.1.total_cmp(&a.1));
        let lines: Vec<serde_json::Value> = table
            .iter()
            .enumerate()
            .map(|(i, (name, points))| {
                let rank = if i > 0 && *points == table[0].1 {
                    1
                } else {
                    i + 1
                };
                serde_json::json!({
                    "rank": rank,
                    "name": name,
                    "points": points,
                    "games": self.tally.finished - self.tally.unterminated,
                })
            })
            .collect();
        serde_json::json!({ "table": lines })
    }
}

impl<W: Watcher> MatchFeed<W> {
    /// Shows the game under way as a resumed session finds it (its notices so far, from
    /// the journal: [`crate::mediator::journal::Takeover::current`]), to the views only:
    /// the console has shown them before.
    pub fn catch_up(&mut self, notices: &[Notice]) {
        for notice in notices {
            self.show(notice);
        }
    }

    fn show(&mut self, notice: &Notice) {
        if let Notice::GameStarted {
            number,
            white,
            black,
            ..
        } = notice
        {
            self.game = *number;
            let white_at = white_port(*number).index();
            self.names[white_at] = white.clone();
            self.names[1 - white_at] = black.clone();
        }
        self.live.notice(self.game, 1, notice);
    }
}

impl<W: Watcher> Watcher for MatchFeed<W> {
    fn notice(&mut self, notice: &Notice) {
        self.inner.notice(notice);
        self.show(notice);
    }

    fn game_over(&mut self, report: &GameReport) {
        self.inner.game_over(report);
        self.tally.add(report.number, report.result);
        self.live.standings(self.standings());
    }
}
