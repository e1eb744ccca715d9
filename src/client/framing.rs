//! The checksum extension on the client's side (docs/protocol.md, "Noisy lines"): every
//! record the client sends is sealed; a record from the referee that noise changed, cut
//! short or lost is noticed, and the client asks for it again with `xagain`, instead of
//! acting on it.

use std::time::Instant;

use crate::epd::seal::{self, EPOCH, Seal};
use crate::epd::{EpdError, Record};

use super::ASK_AGAIN;

/// What became of a line from the referee.
pub(super) enum Incoming {
    /// A record to act on.
    Record(Record),
    /// Nothing to act on: an empty line, or a record sent again that came after one the
    /// client is still waiting for.
    Skip,
    /// A record already acted on, sent again: the referee did not get the answer.
    Again(Record),
    /// Noise changed or lost a record: the reason. The client asks for it again when it
    /// may ([`Framing::ask`]).
    Lost(String),
}

/// The client's side of the extension.
pub(super) struct Framing {
    /// The client offers the extension: it seals its records.
    offer: bool,
    /// A sealed record has come: the referee took the offer, and every record it sends
    /// must be sealed.
    sealed: bool,
    /// The number of the next record expected; unknown until the first sealed one.
    expect: Option<u64>,
    /// A request to send again is due from this number on, with when it was last made.
    wanted: Option<(u64, Option<Instant>)>,
    /// The number of the client's last record.
    sent: u64,
}

impl Framing {
    pub(super) fn new(offer: bool) -> Framing {
        Framing {
            offer,
            sealed: false,
            expect: None,
            wanted: None,
            sent: 0,
        }
    }

    /// Seals `line` when the client offers the extension.
    pub(super) fn seal(&mut self, line: String) -> String {
        if !self.offer {
            return line;
        }
        self.sent += 1;
        seal::seal(&line, self.sent)
    }

    /// Reads one line from the referee.
    pub(super) fn receive(&mut self, bytes: &[u8]) -> Incoming {
        let (body, seq) = match seal::open(bytes) {
            Seal::Valid { seq, body } => (&bytes[..body], Some(seq)),
            Seal::Broken => return self.lost("a record whose checksum does not match", true),
            Seal::None => (bytes, None),
        };
        if seq.is_none() && self.sealed {
            return self.lost("a record without its checksum", true);
        }
        let rec = match Record::from_ascii(body) {
            Ok(rec) => rec,
            Err(EpdError::Empty) => return Incoming::Skip,
            Err(e) => return self.lost(&e.to_string(), true),
        };
        let Some(seq) = seq.filter(|_| self.offer) else {
            return Incoming::Record(rec);
        };
        self.sealed = true;
        let expect = *self.expect.get_or_insert(seq);
        if seq < expect {
            if seq + 1 == expect && self.wanted.is_some_and(|(from, _)| from == expect) {
                // The referee's last record again, in answer to a request: nothing
                // newer was lost.
                self.wanted = None;
            }
            return Incoming::Again(rec);
        }
        // A record from a later million than expected: a resumed referee numbers
        // afresh from there (docs/protocol.md), and what came before is history.
        let new_epoch = seq / EPOCH > expect.saturating_sub(1) / EPOCH;
        if seq > expect && rec.refcom() != Some("reset") && !new_epoch {
            return self.lost(&format!("records #{expect} to #{} lost", seq - 1), false);
        }
        // In turn; or a `reset`, which begins the whole game afresh (a new game, or a
        // resynchronisation when what was lost is no longer kept), or a new numbering:
        // what came before no longer matters.
        if seq > expect
            || self
                .wanted
                .is_some_and(|(from, _)| from != 0 && from <= seq)
        {
            self.wanted = None;
        }
        self.expect = Some(seq + 1);
        Incoming::Record(rec)
    }

    /// Noise took a record (`changed` when it arrived changed, else it is missing). A
    /// request to send again is due at once; while one is outstanding, a record that
    /// arrives changed (what was sent again was hit too) makes it due at once again, a
    /// record that arrives out of turn does not (the rest of what was sent again is on
    /// its way).
    fn lost(&mut self, reason: &str, changed: bool) -> Incoming {
        match (&mut self.wanted, self.expect) {
            (Some((_, last)), _) if changed => *last = None,
            (Some(_), _) => {}
            // A referee that has not shown it has the extension is asked for a
            // resynchronisation (number 0): one without it sees a fault with a reason.
            (None, Some(expect)) if self.sealed => self.wanted = Some((expect, None)),
            (None, _) if self.offer => self.wanted = Some((0, None)),
            (None, _) => {}
        }
        Incoming::Lost(reason.to_string())
    }

    /// Whether a request to send again is due or outstanding: noise the client reports
    /// with it.
    pub(super) fn asking(&self) -> bool {
        self.wanted.is_some()
    }

    /// The record number to ask for again now, if a request is due: at once after a
    /// loss, then every [`ASK_AGAIN`] until the records come (the request or what it
    /// brought may be lost too).
    pub(super) fn ask(&mut self, now: Instant) -> Option<u64> {
        let (from, last) = self.wanted.as_mut()?;
        if last.is_some_and(|t| now.duration_since(t) < ASK_AGAIN) {
            return None;
        }
        *last = Some(now);
        let from = *from;
        if from == 0 {
            // A resynchronisation is asked for once.
            self.wanted = None;
        }
        Some(from)
    }
}
