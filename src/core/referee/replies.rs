//! A player's reply: its move, draw operations and resignation judged, infractions
//! and requests to send again.

use std::time::Duration;

use shakmaty::Color;

use super::build::{analysis_text_with, same_position, san_line};
use super::types::{DrawRule, IllegalRule, Notice};
use super::{Current, PauseCause, Referee, Tx};
use crate::core::Port;
use crate::core::game::{Finish, GameResult, Termination, color_name};
use crate::epd::{Operand, Record, resolve_move};
use shakmaty::Position;
use shakmaty::uci::UciMove;

impl Referee {
    /// Judges the replies of `port` that were waiting for its clock to start.
    pub(super) fn judge_early_replies(&mut self, port: Port) {
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut self.early)
            .into_iter()
            .partition(|e| e.0 == port);
        self.early = others;
        for (port, at, rec) in mine {
            self.on_reply(port, at, &rec);
        }
    }

    pub(super) fn resend(&mut self, port: Port, reason: &str) {
        let Some(cur) = self.current.as_ref() else {
            return;
        };
        let respond = Self::respond_record(cur);
        self.notice(Notice::Resent {
            port,
            reason: reason.to_string(),
        });
        // The clock runs on: this drain does not restart it.
        self.send(port, &respond, Tx::Other);
    }

    pub(super) fn infraction(&mut self, port: Port, what: String) {
        let cur = self.current.as_ref().expect("an infraction needs a game");
        let color = cur.color_of(port);
        let reason = format!("{} {what}", color_name(color));
        if self.cfg.illegal == IllegalRule::Fault {
            let fault = Self::fault_record(cur.game.position(), &reason);
            self.send_both(&fault, Tx::Other);
            if self.cfg.attended {
                return self.pause(PauseCause::Infraction(port), reason);
            }
        }
        self.finish(Finish::new(
            GameResult::loss_for(color),
            Termination::RulesInfraction,
            reason,
        ));
    }

    /// A reply that arrived at `at`. The mover is charged from its clock's start to
    /// `at` (the reply's own stamp, which an input from the other port handled first
    /// cannot push later), and never less than nothing.
    pub(super) fn on_reply(&mut self, port: Port, at: Duration, rec: &Record) {
        let draw_rule = self.cfg.draw_rule;
        let keep_info = self.cfg.keep_info;
        let castling = self.cfg.variant.castling_mode();
        let Some(cur) = self.playing_mut() else {
            return self.notice(Notice::Late { port });
        };
        let clock_waits =
            cur.to_move_port() == port && (cur.clock_started.is_none() || cur.suspended.is_some());
        if clock_waits
            && self.pending[port.index()]
                .iter()
                .any(|(tx, _)| matches!(tx, Tx::Respond | Tx::Resend))
        {
            // The player answered before its respond's drain was reported (the two
            // come from different threads): the drain happened first, so wait for it
            // and charge from it.
            self.early.push((port, at, rec.clone()));
            return;
        }
        let Some(cur) = self.playing_mut() else {
            return;
        };
        if cur.to_move_port() != port {
            // The answer of the side that has just moved, to the respond it answered:
            // it was sent the game again while its answer was on its way.
            if answered_already(cur, !cur.game.turn(), rec) {
                return self.notice(Notice::Repeated { port });
            }
            return self.notice(Notice::Noise {
                port,
                reason: "a reply from the side not on move".into(),
            });
        }
        let color = cur.game.turn();
        // A draw_accept with an offer pending is a draw whatever else the record holds.
        if rec.has("draw_accept") && cur.offer == Some(!color) {
            return self.finish(Finish::new(
                GameResult::Draw,
                Termination::Normal,
                "Draw agreed",
            ));
        }
        if !same_position(cur.game.position(), &rec.position) {
            // A second answer to a respond this player already answered (it was sent
            // the game again, after a resume or a restart, while its first answer was
            // on its way) comes from the position of its own last move: stale, not an
            // infraction.
            if answered_already(cur, color, rec) {
                return self.notice(Notice::Repeated { port });
            }
            let what = format!("replies from a different position ({})", rec.position);
            return self.infraction(port, what);
        }
        if rec.has("resign") {
            return self.finish(Finish::new(
                GameResult::loss_for(color),
                Termination::Normal,
                format!("{} resigns", color_name(color)),
            ));
        }
        if rec.has("draw_accept") {
            return self.resend(port, "draw_accept while no draw offer is pending");
        }
        let claim = rec.has("draw_claim");
        let Some(text) = rec.operands("sm").and_then(|ops| ops.first()) else {
            if claim && draw_rule == DrawRule::Claim {
                if let Some(reason) = cur.game.claimable_draw() {
                    let reason = format!("{reason}, claimed by {}", color_name(color));
                    return self.finish(Finish::new(GameResult::Draw, Termination::Normal, reason));
                }
                return self.resend(port, "invalid draw claim");
            }
            if claim {
                return self.resend(port, "invalid draw claim");
            }
            return self.resend(port, "a reply without a move");
        };
        let text = text
            .as_move_text()
            .or(text.as_str())
            .map_or_else(|| text.to_string(), str::to_string);
        let m = match resolve_move(cur.game.position(), &text) {
            Ok(m) => m,
            Err(e) => return self.infraction(port, format!("plays {e}")),
        };
        let elapsed = at.saturating_sub(cur.clock_started.unwrap_or(at));
        if cur
            .game
            .clocks()
            .allowed(color)
            .is_some_and(|allowed| elapsed > allowed)
        {
            // The flag fell before the reply came (a reply judged late, once its
            // respond's drain was reported): the move is too late.
            let finish = cur.game.flag_after(color, elapsed);
            return self.finish(finish);
        }
        // The pv's moves in SAN, made once for the comment and the notice.
        let pv_sans = rec
            .operands("pv")
            .map(|ops| san_line(cur.game.position(), ops));
        let analysis = analysis_text_with(rec, cur.game.position(), pv_sans.as_deref());
        let int = |op: &str| {
            rec.operands(op)
                .and_then(|ops| ops.first())
                .and_then(Operand::as_integer)
        };
        let info = keep_info
            .then(|| crate::core::MoveInfo::of_reply(rec, pv_sans.as_deref()))
            .flatten();
        let (score, depth) = (int("ce"), int("acd"));
        let pv = pv_sans
            .or_else(|| {
                rec.operands("pm")
                    .map(|ops| san_line(cur.game.position(), ops))
            })
            .unwrap_or_default();
        let mut uci = String::with_capacity(5);
        UciMove::from_move(m, castling).append_to_string(&mut uci);
        let number = cur.number;
        cur.game.play(m, elapsed, analysis);
        if let Some(info) = info {
            cur.game.keep_info(info);
        }
        let played = cur.game.last_move().expect("a move was just played");
        let moved = Notice::Moved {
            number,
            fullmove: played.before.fullmoves().get(),
            color,
            san: {
                let mut san = String::with_capacity(8);
                played.san.append_to_string(&mut san);
                san
            },
            emt: played.emt,
            remaining: [
                cur.game.clocks().remaining(Color::White),
                cur.game.clocks().remaining(Color::Black),
            ],
            score,
            depth,
            pv,
            uci,
            position: cur.game.position().clone(),
        };
        cur.clock_started = None;
        cur.offer = rec.has("draw_offer").then_some(color);
        self.notice(moved);
        let cur = self.current.as_ref().expect("playing");
        // Mate and stalemate come first, then a valid claim, then the draws the rules
        // impose by themselves.
        let game = &cur.game;
        if game.no_legal_moves() {
            let finish = game.automatic_end(false).expect("mate or stalemate");
            return self.finish(finish);
        }
        if claim
            && draw_rule == DrawRule::Claim
            && let Some(reason) = game.claimable_draw()
        {
            let reason = format!("{reason}, claimed by {}", color_name(color));
            return self.finish(Finish::new(GameResult::Draw, Termination::Normal, reason));
        }
        if let Some(finish) = game.automatic_end(draw_rule == DrawRule::Auto) {
            return self.finish(finish);
        }
        let respond = Self::respond_record(cur);
        let opponent = cur.to_move_port();
        self.send(opponent, &respond, Tx::Respond);
    }
}

/// Whether `rec` is from the position of `color`'s last move: an answer to a respond
/// that player has answered already.
fn answered_already(cur: &Current, color: Color, rec: &Record) -> bool {
    cur.game
        .moves()
        .iter()
        .rev()
        .find(|m| m.color() == color)
        .is_some_and(|m| same_position(&m.before, &rec.position))
}
