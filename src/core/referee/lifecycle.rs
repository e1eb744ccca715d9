//! How a match ends, stops and goes on: `disconnect` at its end, `quit`, a stop (a
//! pause that `--resume` lifts), and the resynchronisation of a player that signs on
//! again or of both after a resume.

use shakmaty::Chess;

use super::build::{number_ops, record};
use super::types::{Notice, Output};
use super::{Pause, PauseCause, Phase, Referee, STOP_GRACE, STOP_REASON, Stopping, Tx, WaitKind};
use crate::core::Port;
use crate::core::game::{Finish, GameResult, Termination};
use crate::epd::Operand;
use compact_str::ToCompactString;

impl Referee {
    pub(super) fn disconnect(&mut self) {
        let pos = self
            .current
            .as_ref()
            .map_or_else(Chess::default, |c| c.game.position().clone());
        self.send_both(&record(&pos, "disconnect"), Tx::Disconnect);
        self.wait(WaitKind::Disconnect);
    }

    /// The match ends early: a game in progress ends unterminated (Result `*`, for
    /// `reason`), its players get `inform` and `conclude`, and after the conclude delay
    /// both get `disconnect`.
    pub(super) fn shut_down(&mut self, reason: &str) {
        if self.shutting_down || self.phase == Phase::Done {
            return;
        }
        self.shutting_down = true;
        self.early.clear();
        if self.game_in_progress() {
            self.finish(Finish::new(
                GameResult::Unknown,
                Termination::Unterminated,
                reason,
            ));
        } else if self.phase == Phase::SignOn {
            self.disconnect();
        }
        // Waiting for a conclude delay: it ends in disconnect. Waiting for disconnect:
        // nothing more to do.
    }

    /// The referee stops to be resumed later. The clocks stand from this moment (a
    /// pause the resume lifts), both players get `fault` with [`STOP_REASON`], and once
    /// it has drained, or [`STOP_GRACE`] has passed, the session ends. Nothing of the
    /// match ends: the game in progress, the delay under way, the games to come all go on
    /// at the resume. A match already ending (`disconnect` sent) just stops; a resume
    /// sends `disconnect` again.
    pub(super) fn stop(&mut self) {
        if self.stopping.is_some() || self.phase == Phase::Done {
            return;
        }
        let game = self
            .current
            .as_ref()
            .filter(|_| self.game_in_progress())
            .map(|c| c.number);
        self.notice(Notice::Stopping { game });
        if self.paused.is_none() {
            self.paused = Some(Pause {
                since: self.now,
                cause: PauseCause::Stop,
            });
        }
        let ending = matches!(
            self.phase,
            Phase::Waiting {
                kind: WaitKind::Disconnect,
                ..
            }
        );
        let mut drained = [true; 2];
        if !ending {
            let pos = self
                .current
                .as_ref()
                .map_or_else(Chess::default, |c| c.game.position().clone());
            let fault = Self::fault_record(&pos, STOP_REASON);
            for port in Port::BOTH {
                drained[port.index()] = self.players[port.index()].line_down;
                self.send(port, &fault, Tx::Stop);
            }
        }
        self.stopping = Some(Stopping {
            drained,
            until: self.now.saturating_add(STOP_GRACE),
            done: false,
        });
        if drained == [true; 2] {
            self.stopped();
        }
    }

    /// A drain while the referee stops: only the `fault` of the stop counts.
    pub(super) fn on_stop_drained(&mut self, port: Port) {
        let Some((tx, _)) = self.pending[port.index()].pop_front() else {
            return;
        };
        if tx == Tx::Stop
            && let Some(stop) = self.stopping.as_mut()
        {
            stop.drained[port.index()] = true;
            if stop.drained == [true; 2] {
                self.stopped();
            }
        }
    }

    pub(super) fn stopped(&mut self) {
        if let Some(stop) = self.stopping.as_mut()
            && !stop.done
        {
            stop.done = true;
            self.out.push_back(Output::Stopped);
        }
    }

    /// Brings a restarted player back into its game: `reset`, `inform`, one `execute`
    /// per move, and when it is to move, a `respond` whose `sm` is the last move.
    pub(super) fn resync(&mut self, port: Port) {
        let Some(cur) = self.current.as_ref() else {
            return;
        };
        let reset = self.reset_record(cur);
        if self.phase != Phase::Playing {
            // Still in the reset delay: the inform and respond are yet to come.
            self.send(port, &reset, Tx::Other);
            return;
        }
        let mut lines = vec![(reset, Tx::Other), (self.inform_record(cur), Tx::Other)];
        let to_move = cur.to_move_port() == port;
        let moves = cur.game.moves();
        let executed = if to_move {
            moves.len().saturating_sub(1)
        } else {
            moves.len()
        };
        for m in &moves[..executed] {
            let mut rec = record(&m.before, "execute");
            number_ops(&mut rec, &m.before);
            rec.set("sm", [Operand::Move(m.san.to_compact_string())]);
            lines.push((rec, Tx::Other));
        }
        if to_move {
            lines.push((Self::respond_record(cur), Tx::Respond));
        }
        for (rec, tx) in lines {
            self.send(port, &rec, tx);
        }
    }

    /// Takes over from a referee that died: what it sent and never saw drain is lost
    /// with its process, so both players are brought back to where the match stands.
    /// A game in progress: both are resynchronised (`reset`, `inform`, the moves); the
    /// clock of the side to move runs on from where it stood. Between games, the
    /// records of the step in progress are sent again.
    pub(super) fn resume(&mut self, after_stop: bool) {
        if after_stop
            && self
                .paused
                .as_ref()
                .is_some_and(|p| p.cause == PauseCause::Stop)
        {
            // The clocks stood from the stop to now: the stop is charged to nobody.
            // What arrived while the referee stopped answered records the resume
            // sends again.
            self.held.clear();
            self.lift_pause();
        }
        self.pending = Default::default();
        self.early.clear();
        self.new_epoch();
        for player in &mut self.players {
            player.fresh = true;
        }
        let game = self.current.as_ref().map(|c| c.number);
        match self.phase.clone() {
            Phase::SignOn | Phase::Done => {}
            Phase::Playing => {
                if let Some(cur) = self.current.as_mut() {
                    let played = cur.game.moves().len();
                    cur.resumed_after.push(played);
                    cur.suspended = None;
                }
                for port in Port::BOTH {
                    self.resync(port);
                }
            }
            Phase::Waiting { kind, .. } => {
                let Some(cur) = self.current.as_ref() else {
                    return;
                };
                match kind {
                    WaitKind::Reset => {
                        let reset = self.reset_record(cur);
                        self.send_both(&reset, Tx::Reset);
                    }
                    WaitKind::Conclude => {
                        let inform = self.inform_record(cur);
                        let conclude = record(cur.game.position(), "conclude");
                        self.send_both(&inform, Tx::Other);
                        self.send_both(&conclude, Tx::Conclude);
                    }
                    WaitKind::Disconnect => {
                        self.send_both(&record(cur.game.position(), "disconnect"), Tx::Disconnect);
                    }
                }
                self.wait(kind);
            }
        }
        self.notice(Notice::Resumed {
            game: game.filter(|_| self.game_in_progress()),
        });
    }
}
