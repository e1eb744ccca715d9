//! The checksum extension on the client's side (docs/protocol.md, "Noisy lines"): every
//! record the client sends is sealed; a record from the referee that noise changed, cut
//! short or lost is noticed, and the client asks for it again with `xagain`, instead of
//! acting on it.

use std::time::Instant;

use crate::epd::seal::{self, EPOCH, Seal};
use crate::epd::{EpdError, Record};

use super::timing::ASK_AGAIN;

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
    /// When the last line from the referee arrived.
    heard: Option<Instant>,
}

impl Framing {
    pub(super) fn new(offer: bool) -> Framing {
        Framing {
            offer,
            sealed: false,
            expect: None,
            wanted: None,
            sent: 0,
            heard: None,
        }
    }

    /// Whether [`Framing::seal`] seals what the client sends.
    pub(super) fn seals(&self) -> bool {
        self.offer
    }

    /// Seals `line` when the client offers the extension.
    pub(super) fn seal(&mut self, line: String) -> String {
        if !self.offer {
            return line;
        }
        self.sent += 1;
        seal::seal(&line, self.sent)
    }

    /// A line from the referee arrived at `at`.
    pub(super) fn heard(&mut self, at: Instant) {
        self.heard = Some(at);
    }

    /// Reads one line from the referee. `given` is the record an in-process referee
    /// wrote the line from (never a sealed one): it is taken as it is, and the line is
    /// not read again.
    pub(super) fn receive(&mut self, bytes: &[u8], given: Option<Box<Record>>) -> Incoming {
        if let Some(rec) = given {
            debug_assert!(
                rec.is_read_from(bytes),
                "{}",
                String::from_utf8_lossy(bytes)
            );
            if self.sealed {
                return self.lost("a record without its checksum", true);
            }
            return Incoming::Record(*rec);
        }
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
        let afresh = matches!(rec.refcom(), Some("reset" | "disconnect"));
        if seq > expect && !afresh && !new_epoch {
            return self.lost(&format!("records #{expect} to #{} lost", seq - 1), false);
        }
        // In turn; or a `reset`, which begins the whole game afresh (a new game, or a
        // resynchronisation when what was lost is no longer kept); or a `disconnect`,
        // after which the referee reads no more (asking it for what was lost would wait
        // for ever); or a new numbering: what came before no longer matters.
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
    /// request to send again is due at once; while one is outstanding, what arrives
    /// changed or out of turn waits for it: the rest of what was sent again is on its
    /// way, and the request is made again only once the line has been quiet (see
    /// [`Framing::ask`]). Asking again at each hit would have the referee send the same
    /// records over and over on a slow noisy line, and noise hit them the more.
    fn lost(&mut self, reason: &str, _changed: bool) -> Incoming {
        match (&mut self.wanted, self.expect) {
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
    /// loss, then, until the records come (the request or what it brought may be lost
    /// too), once [`ASK_AGAIN`] has passed since the last request and the line has
    /// been quiet as long: while records arrive, what was sent again is on its way.
    pub(super) fn ask(&mut self, now: Instant) -> Option<u64> {
        let heard = self.heard;
        let (from, last) = self.wanted.as_mut()?;
        let quiet = heard.is_none_or(|h| now.saturating_duration_since(h) >= ASK_AGAIN);
        if last.is_some_and(|t| now.duration_since(t) < ASK_AGAIN || !quiet) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    fn sealed(refcom: &str, seq: u64) -> Vec<u8> {
        seal::seal(&format!("{START} refcom {refcom};"), seq).into_bytes()
    }

    #[test]
    fn a_disconnect_after_lost_records_ends_the_session_all_the_same() {
        let mut f = Framing::new(true);
        assert!(matches!(
            f.receive(&sealed("reset", 1), None),
            Incoming::Record(_)
        ));
        // #2 and #3 are lost; an execute after them is held back as a gap...
        assert!(matches!(
            f.receive(&sealed("execute", 4), None),
            Incoming::Lost(_)
        ));
        assert_eq!(f.ask(Instant::now()), Some(2));
        // ...but a disconnect is the referee's last word: it is taken.
        match f.receive(&sealed("disconnect", 5), None) {
            Incoming::Record(rec) => assert_eq!(rec.refcom(), Some("disconnect")),
            _ => panic!("the disconnect was not taken"),
        }
        assert!(!f.asking());
    }

    #[test]
    fn while_records_arrive_a_request_is_not_made_again() {
        let mut f = Framing::new(true);
        let t0 = Instant::now();
        f.heard(t0);
        assert!(matches!(
            f.receive(&sealed("reset", 1), None),
            Incoming::Record(_)
        ));
        assert!(matches!(
            f.receive(&sealed("execute", 3), None),
            Incoming::Lost(_)
        ));
        assert_eq!(f.ask(t0), Some(2));
        // What was sent again arrives, some of it changed: no new request while the
        // line is busy...
        let busy = t0 + ASK_AGAIN * 2;
        f.heard(busy);
        let mut broken = sealed("execute", 2);
        let last = broken.len() - 3;
        broken[last] ^= 1;
        assert!(matches!(f.receive(&broken, None), Incoming::Lost(_)));
        assert_eq!(f.ask(busy + ASK_AGAIN / 2), None);
        // ...and one once it has been quiet.
        assert_eq!(f.ask(busy + ASK_AGAIN), Some(2));
    }
}
