//! Who is on which cable. Before the first game the names the players sign on with
//! (`tcsi`) are compared with the names the event gives each port: crossed cables are
//! followed (the names go with the players, and the referee says so), a name the event
//! gives neither port is a warning. A port silent for [`PROBE_AFTER`] gets one `fault`
//! saying the referee waits for its sign-on; when that record comes back on the other
//! port, the two ports are the ends of one cable, and when it comes back on its own
//! port, the line loops back.

use std::time::Duration;

use shakmaty::Chess;

use super::{Notice, Phase, Referee, Tx};
use crate::core::Port;
use crate::epd::Record;

/// How long after the start a port that has not signed on is probed.
pub(super) const PROBE_AFTER: Duration = Duration::from_secs(3);

/// What the probe says to a player that has not signed on, before the port's name.
pub const PROBE_REASON: &str = "argus is waiting for a sign_on on this line, its port";

/// Whether two names are the same player's: equal but for case and blanks around.
fn same(a: Option<&String>, b: Option<&String>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.trim().eq_ignore_ascii_case(b.trim()))
}

impl Referee {
    /// When the sign-on probe is due, if it still is.
    pub(super) fn probe_deadline(&self) -> Option<Duration> {
        (self.phase == Phase::SignOn && self.started == 0)
            .then_some(self.probe_at)
            .flatten()
    }

    /// Sends each port that has not signed on, once, the `fault` that says the referee
    /// waits for it: a person watching the line learns what is missing, and a record
    /// of the referee's that comes back names a miswired line.
    pub(super) fn probe(&mut self) {
        self.probe_at = None;
        for port in Port::BOTH {
            let player = &self.players[port.index()];
            if player.signed_on || player.line_down {
                continue;
            }
            // Each port's probe is its own, to tell an echo from a loop.
            let reason = format!("{PROBE_REASON} {port}");
            let fault = Self::fault_record(&Chess::default(), &reason);
            self.probes[port.index()] = Some(fault.to_string());
            self.send(port, &fault, Tx::Other);
        }
        // A hosted match's players are signed on from the start: this begins it.
        self.maybe_start();
    }

    /// A record of a referee's (`refcom`) arrived on `port`: no player sends one. If
    /// it is this referee's own probe, the line is miswired, and the notice says how.
    pub(super) fn on_refcom(&mut self, port: Port, rec: &Record) {
        let text = rec.to_string();
        let own = |p: Port| self.probes[p.index()].as_deref() == Some(text.as_str());
        let notice = if own(port.other()) {
            Notice::OneCable
        } else if own(port) {
            Notice::LoopedBack { port }
        } else {
            Notice::Noise {
                port,
                reason: "a referee's record (refcom): is another referee on this line?".into(),
            }
        };
        self.notice(notice);
    }

    /// Before the first game: the names the players signed on with against the names
    /// the event gives their ports.
    pub(super) fn check_cables(&mut self) {
        if self.started != 0 {
            return;
        }
        let given = self.cfg.names.clone();
        let heard = [0, 1].map(|i| self.players[i].tcsi_name.clone());
        let straight = [0, 1].map(|i| same(heard[i].as_ref(), given[i].as_ref()));
        let crossed = [0, 1].map(|i| same(heard[i].as_ref(), given[1 - i].as_ref()));
        if straight == [false; 2] && crossed.contains(&true) {
            self.cfg.names.swap(0, 1);
            let names = [0, 1].map(|i| self.player_name(Port::BOTH[i]));
            return self.notice(Notice::CablesSwapped { names });
        }
        if given.iter().all(Option::is_none) {
            return;
        }
        for port in Port::BOTH {
            let i = port.index();
            if let Some(name) = &heard[i]
                && !straight[i]
                && !crossed[i]
            {
                self.notice(Notice::UnknownName {
                    port,
                    name: name.clone(),
                    given: given.clone(),
                });
            }
        }
    }
}
