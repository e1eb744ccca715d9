//! The supervisor's side: pauses, the `status` line, and the console's commands.

use shakmaty::Color;

use super::types::{Notice, fmt_clock};
use super::{Pause, PauseCause, Phase, Referee};
use crate::core::game::{Finish, GameResult, Termination, color_name};
use crate::core::supervisor::Command;
use shakmaty::Position;

impl Referee {
    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.notice(Notice::Supervisor { text: text.into() });
    }

    /// Stops both clocks: the running one keeps what it used, and starts again, from
    /// there, on `resume`.
    pub(super) fn pause(&mut self, cause: PauseCause, reason: String) {
        if self.paused.is_none() {
            self.paused = Some(Pause {
                since: self.now,
                cause,
            });
        }
        self.notice(Notice::Paused { reason });
    }

    pub(super) fn unpause(&mut self) {
        if self.paused.is_none() {
            return self.say("the game is not paused");
        }
        let cause = self.lift_pause();
        self.notice(Notice::Unpaused);
        if let PauseCause::Infraction(port) = cause {
            // The offender moves again from the same position.
            if self.game_in_progress() {
                self.resend(port, "the supervisor let the game go on");
            }
        }
        // What waited is handled now, as arriving now: the pause is charged to nobody.
        let now = self.now;
        for (port, bytes) in std::mem::take(&mut self.held) {
            self.on_line(port, now, &bytes, None);
        }
    }

    /// Ends the pause: the clocks and the delay under way go on from where they stood.
    pub(super) fn lift_pause(&mut self) -> PauseCause {
        let Some(pause) = self.paused.take() else {
            return PauseCause::Supervisor;
        };
        let length = self.now.saturating_sub(pause.since);
        if let Some(cur) = self.current.as_mut() {
            cur.clock_started = cur.clock_started.map(|s| s.saturating_add(length));
            cur.suspended = cur.suspended.map(|s| s.saturating_add(length));
        }
        if let Phase::Waiting { until, .. } = &mut self.phase {
            *until = until.map(|u| u.saturating_add(length));
        }
        pause.cause
    }

    pub(super) fn status_text(&self) -> String {
        let phase = match &self.phase {
            Phase::SignOn => "waiting for players to sign on".to_string(),
            Phase::Waiting { kind, .. } => format!("{kind:?} delay").to_lowercase(),
            Phase::Playing => "playing".to_string(),
            Phase::Done => "match over".to_string(),
        };
        let mut text = format!(
            "status: game {} of {}, {phase}",
            self.started, self.cfg.games
        );
        if let Some(cur) = self.current.as_ref() {
            let clocks = cur.game.clocks();
            let playing = cur.finish.is_none() && self.phase == Phase::Playing;
            // The clock of the side to move runs: it is shown as of this moment (or of
            // the moment it stopped, in a pause or while its respond is repeated).
            let show = |c: Color| {
                let left = clocks.remaining(c);
                let running = cur
                    .clock_started
                    .filter(|_| playing && c == cur.game.turn());
                let left = match (left, running) {
                    (Some(left), Some(start)) => {
                        let end = self
                            .paused
                            .as_ref()
                            .map(|p| p.since)
                            .or(cur.suspended)
                            .unwrap_or(self.now);
                        Some(left.saturating_sub(end.saturating_sub(start)))
                    }
                    (left, _) => left,
                };
                fmt_clock(left)
            };
            text.push_str(&format!(
                "; {} (White, port {}) {} - {} (Black, port {}) {}",
                cur.names[0],
                cur.white,
                show(Color::White),
                cur.names[1],
                cur.white.other(),
                show(Color::Black),
            ));
            // Moves counted as chess counts them.
            if playing {
                text.push_str(&format!(
                    "; move {}, {} to move",
                    cur.game.position().fullmoves(),
                    color_name(cur.game.turn())
                ));
            } else if let Some(last) = cur.game.moves().last() {
                let dots = if last.color() == Color::White {
                    "."
                } else {
                    "..."
                };
                text.push_str(&format!(
                    "; last move {}{dots} {}",
                    last.before.fullmoves(),
                    last.san
                ));
            }
        }
        if self.paused.is_some() {
            text.push_str("; PAUSED");
        }
        text
    }

    pub(super) fn on_command(&mut self, command: Command) {
        match command {
            Command::Status => {
                let text = self.status_text();
                self.say(text);
            }
            Command::Pause => {
                if self.paused.is_some() {
                    return self.say("already paused");
                }
                self.pause(PauseCause::Supervisor, "by the supervisor".into());
            }
            Command::Resume => self.unpause(),
            Command::Adjudicate { result, reason } => {
                if !self.game_in_progress() {
                    return self.say("no game in progress to adjudicate");
                }
                self.paused = None;
                self.held.clear();
                let reason = reason.unwrap_or_else(|| "Adjudicated by the supervisor".into());
                self.finish(Finish::new(result, Termination::Adjudication, reason));
            }
            Command::Forfeit { port, reason } => {
                if !self.game_in_progress() {
                    return self.say("no game in progress to forfeit");
                }
                self.paused = None;
                self.held.clear();
                let cur = self.current.as_ref().expect("a game in progress");
                let loser = cur.color_of(port);
                let reason =
                    reason.unwrap_or_else(|| format!("{} abandoned the game", color_name(loser)));
                self.finish(Finish::new(
                    GameResult::loss_for(loser),
                    Termination::Abandoned,
                    reason,
                ));
            }
            Command::Abort => {
                if !self.game_in_progress() {
                    return self.say("no game in progress to abort");
                }
                self.paused = None;
                self.held.clear();
                self.finish(Finish::new(
                    GameResult::Unknown,
                    Termination::Unterminated,
                    "Aborted by the supervisor",
                ));
            }
            Command::Restart(port) => {
                if !self.game_in_progress() {
                    return self.say("no game in progress: nothing to resynchronise");
                }
                self.notice(Notice::Resync { port });
                self.resync(port);
            }
            Command::Clock { port, delta_ms } => {
                let Some(cur) = self.current.as_mut().filter(|c| c.finish.is_none()) else {
                    return self.say("no game in progress: no clock to change");
                };
                let color = cur.color_of(port);
                cur.game.clocks_mut().adjust(color, delta_ms);
                let left = fmt_clock(cur.game.clocks().remaining(color));
                let text = format!(
                    "{} (port {port}) has {left} before its current move",
                    color_name(color)
                );
                self.notice(Notice::ClockChanged {
                    color,
                    delta_ms,
                    text,
                });
            }
            Command::Quit => {
                self.paused = None;
                self.held.clear();
                self.shut_down("The supervisor ended the match (quit)");
            }
        }
    }
}
