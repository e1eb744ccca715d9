//! The checksum extension on the referee's side (docs/protocol.md, "Noisy lines"): a
//! player that seals its `sign_on` gets every record sealed and numbered; a corrupted
//! record from the side to move gets the same `respond` again; a player that lost
//! records asks for them with `xagain` and gets them again. The clock of the side to
//! move is suspended while its respond is repeated: a retransmission costs the line's
//! time, never the player's.

use std::collections::VecDeque;
use std::time::Duration;

use super::{Notice, Referee, Tx};
use crate::core::Port;
use crate::epd::seal;
use crate::epd::{Operand, Record};

/// How many of the last records sent to a port are kept to send again.
pub(super) const WINDOW: usize = 256;

/// A port's side of the extension.
#[derive(Clone, Debug)]
pub(super) struct Sealed {
    /// The next record's sequence number.
    next: u64,
    /// The last records sent, with their numbers and what they were.
    sent: VecDeque<(u64, String, Tx)>,
}

impl Default for Sealed {
    fn default() -> Sealed {
        Sealed {
            next: 1,
            sent: VecDeque::new(),
        }
    }
}

impl Referee {
    /// A new referee process takes over: each sealed port's numbering starts afresh at
    /// the next [`seal::EPOCH`], and what the dead one kept to send again is gone with it (the
    /// resynchronisation covers it).
    pub(super) fn new_epoch(&mut self) {
        for sealed in self.sealed.iter_mut().flatten() {
            sealed.next = (sealed.next / seal::EPOCH + 1) * seal::EPOCH;
            sealed.sent.clear();
        }
    }

    /// Seals `line` for `port` when its player took the extension, and keeps it to send
    /// again.
    pub(super) fn seal_line(&mut self, port: Port, line: String, tx: Tx) -> String {
        let Some(sealed) = self.sealed[port.index()].as_mut() else {
            return line;
        };
        let seq = sealed.next;
        sealed.next += 1;
        let line = seal::seal(&line, seq);
        if sealed.sent.len() == WINDOW {
            sealed.sent.pop_front();
        }
        sealed.sent.push_back((seq, line.clone(), tx));
        line
    }

    /// A line from `port` that noise changed (or that is not a record at all), which
    /// began to arrive at `at`. On a sealed line, when it comes from the side to move
    /// while its respond is out, it was its reply: the same respond goes again, and the
    /// clock stands still until it has left.
    pub(super) fn corrupted(&mut self, port: Port, at: Duration, reason: String) {
        if std::mem::take(&mut self.players[port.index()].fresh) {
            // The port was just opened: this is the tail of a line the open cut.
            log::debug!("port {port}: a line cut short by the port's opening dropped: {reason}");
        } else {
            self.notice(Notice::Noise {
                port,
                reason: reason.clone(),
            });
        }
        if self.sealed[port.index()].is_none() {
            return;
        }
        if self
            .playing_mut()
            .is_some_and(|cur| cur.to_move_port() == port && cur.suspended.is_none())
        {
            self.notice(Notice::Resent {
                port,
                reason: format!("a corrupted record from the side to move ({reason})"),
            });
            self.repeat_respond(port, at);
        }
    }

    /// Sends the respond that `port`'s player, the side to move, is answering once more
    /// (from `at`, its clock stands still until it has left).
    fn repeat_respond(&mut self, port: Port, at: Duration) {
        let Some(cur) = self.playing_mut() else {
            return;
        };
        if cur.to_move_port() != port || cur.suspended.is_some() {
            return;
        }
        cur.suspended = Some(at);
        // The very record again, number and all: a player that lost it takes it as the
        // record it is waiting for, one that answered it answers it again.
        let sent = self.sealed[port.index()].as_ref().and_then(|s| {
            s.sent
                .iter()
                .rev()
                .find(|(_, _, tx)| *tx == Tx::Respond)
                .map(|(_, line, _)| line.clone())
        });
        match sent {
            Some(line) => self.transmit(port, line, Tx::Resend),
            None => {
                let respond = Self::respond_record(self.current.as_ref().expect("playing"));
                self.send(port, &respond, Tx::Resend);
            }
        }
    }

    /// The repeated respond has left `port`'s line at `left`: the mover's clock runs
    /// again, and the time it stood still is not charged.
    pub(super) fn end_suspension(&mut self, port: Port, left: Duration) {
        let Some(cur) = self.playing_mut() else {
            return;
        };
        if cur.to_move_port() != port {
            return;
        }
        let Some(since) = cur.suspended.take() else {
            return;
        };
        if let Some(started) = cur.clock_started {
            let stood = left.saturating_sub(since.max(started));
            cur.clock_started = Some(started.saturating_add(stood));
        }
    }

    /// A `fault` with `xagain N` from `port`: its player lost records to noise, from
    /// record N on. They go again, as they were; when they hold the respond the player
    /// is waiting for, its clock stands still from this request until that respond has
    /// left. Records no longer kept mean a resynchronisation.
    pub(super) fn on_again(&mut self, port: Port, at: Duration, rec: &Record) {
        let from = rec
            .operands(seal::AGAIN)
            .and_then(|ops| ops.first())
            .and_then(|op| match op {
                Operand::Integer(n) => u64::try_from(*n).ok(),
                _ => None,
            });
        let (Some(from), Some(sealed)) = (from, self.sealed[port.index()].as_ref()) else {
            return self.notice(Notice::Noise {
                port,
                reason: "xagain without a record number, or on a line without checksums".into(),
            });
        };
        // Asking for what was not sent yet (noise took a record sent again, which the
        // player cannot tell from a new one): the last record goes again, which tells
        // the player that nothing newer was sent.
        let from = from.min(sealed.next.saturating_sub(1));
        if sealed
            .sent
            .front()
            .is_none_or(|(first, _, _)| *first > from)
        {
            if self.game_in_progress() {
                self.notice(Notice::Resync { port });
                self.resync(port);
            }
            return;
        }
        let again: Vec<(u64, String, Tx)> = sealed
            .sent
            .iter()
            .filter(|(seq, _, _)| *seq >= from)
            .cloned()
            .collect();
        let last_respond = again.iter().rposition(|(_, _, tx)| *tx == Tx::Respond);
        self.notice(Notice::Retransmit {
            port,
            from,
            count: again.len(),
        });
        for (i, (_, line, _)) in again.into_iter().enumerate() {
            let mut tx = Tx::Other;
            if Some(i) == last_respond
                && let Some(cur) = self.playing_mut()
                && cur.to_move_port() == port
                && cur.suspended.is_none()
            {
                cur.suspended = Some(at);
                tx = Tx::Resend;
            }
            self.transmit(port, line, tx);
        }
    }
}
