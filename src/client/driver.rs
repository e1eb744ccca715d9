//! The protocol driver: signs on, follows the game from the referee's records, asks
//! the engine for each `respond` and sends its `reply`.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use shakmaty::{Chess, Color, Position};

use super::engine::{Decision, Engine, EngineError, Keep, Turn, TurnClocks};
use super::error::{ClientError, REPLACED};
use super::framing::{Framing, Incoming};
use super::game::{State, ply, record};
use super::line::{Link, NoiseReports, PortEvent, Received, excerpt};
use super::options::{ClientOptions, ClientSummary, Report};
use super::stop::{Stop, StopReason};
use super::timing::SIGN_ON_AGAIN;
use crate::epd::{Operand, Record};
use crate::transport::memory::ClientWriter;

/// How often the driver looks at its timers (repeated sign-on, requests to send again).
const TICK: Duration = Duration::from_millis(50);

/// What the driver does after a record.
pub(super) enum Next {
    Continue,
    /// Stop: the referee said `disconnect`, or the [`Stop`] fired.
    Leave,
}

/// Why a game ended, as far as the client can tell from the final position `pos` and
/// its own last word.
fn reason_of(pos: &Chess, result: &str, last_word: Option<&str>) -> Option<String> {
    let reason = if pos.is_checkmate() {
        "checkmate"
    } else if pos.is_stalemate() {
        "stalemate"
    } else if result == "1/2-1/2" && pos.is_insufficient_material() {
        "insufficient material"
    } else if let Some(word) = last_word {
        word
    } else if result == "1/2-1/2" && pos.halfmoves() >= 100 {
        "the fifty-move rule"
    } else {
        return None;
    };
    Some(reason.to_string())
}

/// The reason of `rec` when it is the `fault` that says another connection took this
/// player's place ([`REPLACED`]).
fn replaced(rec: &Record) -> Option<String> {
    let reason = rec.operands("c0")?.first()?.as_str()?;
    (rec.refcom() == Some("fault") && reason.contains(REPLACED)).then(|| reason.to_string())
}

/// Shows a `fault` from the referee (it stops, to be resumed later, say): the client
/// waits on.
pub(super) fn show_fault(rec: &Record) {
    let why = rec
        .operands("c0")
        .and_then(|o| o.first())
        .and_then(Operand::as_str)
        .unwrap_or("no reason given");
    log::warn!("the referee reports a fault: {why}; waiting for it");
}

/// The protocol driver: one player's session on its line, from its sign-on to the
/// referee's `disconnect` or its stop.
pub(super) struct Driver<'a> {
    pub(super) engine: &'a mut dyn Engine,
    pub(super) link: Link<'a>,
    pub(super) stop: &'a Stop,
    /// The name the client signs on with.
    name: String,
    pub(super) state: State,
    summary: ClientSummary,
    /// The last respond answered with a move or a resignation, and the reply: when the
    /// referee sends the same respond again (the reply was lost to noise), the same
    /// reply goes again at once, without asking the engine.
    answered: Option<(Record, String)>,
    /// Whether a record came from the referee (until then the client signs on again
    /// now and then).
    pub(super) heard: bool,
    /// The reason of a `fault` that came before anything else: a refusal if the line
    /// then closes.
    refusal: Option<String>,
    /// The `fault` that said another connection took this player's place
    /// ([`REPLACED`]): the line's end that follows ends the client.
    replaced: Option<String>,
    /// When the client last signed on.
    pub(super) signed_on_at: Instant,
    /// Lines that came while the engine was busy, to be taken in order.
    pub(super) pending: VecDeque<Received>,
    /// What ended the session while the engine was busy (the line failed).
    failure: Option<ClientError>,
    /// The line is in-process: engine calls run on the driver's thread.
    direct: bool,
    /// The driver runs on its referee's thread
    /// ([`LocalSession`](super::session::LocalSession)): a pollable engine's turns are
    /// begun and polled, never waited for.
    local: bool,
    /// The respond a pollable engine thinks on, begun and not yet answered.
    pub(super) thinking: Option<Thinking>,
    /// Where the user's reports go ([`run_reporting`](super::run_reporting)); whether
    /// the sign-on was told.
    pub(super) report: Option<&'a dyn Fn(Report)>,
    told_sign_on: bool,
    /// Whether an engine that ends the session well is left running for its host to
    /// play again
    /// ([`LocalSession::finish_keeping`](super::session::LocalSession::finish_keeping)),
    /// and whether it was.
    pub(super) keep_engine: Keep,
    pub(super) kept: bool,
}

/// A respond being thought on (by a pollable engine, [`Engine::begin_think`]).
#[cfg_attr(not(unix), allow(dead_code))]
pub(super) struct Thinking {
    pub(super) rec: Record,
    /// When it arrived.
    pub(super) arrived: Instant,
    clocks: Option<TurnClocks>,
    draw_offered: bool,
}

impl Thinking {
    /// The turn the engine thinks on, in the game as `state` follows it.
    pub(super) fn turn<'s>(&self, state: &'s State) -> Turn<'s> {
        Turn {
            position: &state.pos,
            start: &state.start,
            moves: &state.moves,
            history: state.history,
            clocks: self.clocks.clone(),
            draw_offered: self.draw_offered,
        }
    }
}

impl<'a> Driver<'a> {
    /// A driver for `engine` on a line: what it writes to, and the lines from the
    /// referee. `direct`: the line is in-process; `local`: the driver runs on its
    /// referee's thread ([`LocalSession`](super::session::LocalSession)).
    pub(super) fn new(
        engine: &'a mut dyn Engine,
        writer: Box<dyn ClientWriter>,
        events: Receiver<PortEvent>,
        opts: &'a ClientOptions,
        stop: &'a Stop,
        direct: bool,
        local: bool,
    ) -> Driver<'a> {
        engine.watch(stop);
        let name = opts.name.clone().unwrap_or_else(|| engine.name());
        Driver {
            engine,
            link: Link {
                writer,
                opts,
                framing: Framing::new(opts.checksum),
                events,
                noise: NoiseReports::default(),
                last_lost: String::new(),
            },
            stop,
            name,
            state: State::new(),
            summary: ClientSummary::default(),
            answered: None,
            heard: false,
            refusal: None,
            replaced: None,
            signed_on_at: Instant::now(),
            pending: VecDeque::new(),
            failure: None,
            direct,
            local,
            thinking: None,
            report: None,
            told_sign_on: false,
            keep_engine: Keep::No,
            kept: false,
        }
    }

    fn tell(&self, report: Report) {
        if let Some(tell) = self.report {
            tell(report);
        }
    }

    /// Ends the session with `outcome`: the referee hears why an interrupted player
    /// goes quiet, the engine is ended, and a hang-up after a `fault` that came before
    /// anything else is the referee's refusal. Returns what the session came to.
    pub(super) fn end(
        &mut self,
        outcome: Result<(), ClientError>,
    ) -> Result<ClientSummary, ClientError> {
        if let Err(ClientError::Interrupted) = &outcome {
            // The referee hears why the player goes quiet (profile section 5, `fault`).
            let why =
                "argus client interrupted (Ctrl-C or a termination signal): the player leaves";
            if let Err(e) = self.link.fault(&self.state.pos, why) {
                log::warn!("{e}");
            }
        }
        let idle = self.thinking.is_none()
            || (self.keep_engine == Keep::EvenThinking && self.engine.abandon_think());
        if self.keep_engine != Keep::No && outcome.is_ok() && idle {
            // Its host plays it again: the next game begins with `ucinewgame` or `new`.
            self.thinking = None;
            self.kept = true;
        } else {
            self.engine.quit();
        }
        let outcome = match (outcome, self.replaced.take()) {
            (
                Err(ClientError::HungUp { address } | ClientError::Io { address, .. }),
                Some(reason),
            ) => Err(ClientError::Refused { address, reason }),
            (outcome, _) => outcome,
        };
        let outcome = match (outcome, self.refusal.take()) {
            (Err(ClientError::HungUp { address }), Some(reason)) if !self.heard => {
                Err(ClientError::Refused { address, reason })
            }
            (outcome, _) => outcome,
        };
        outcome.map(|()| self.summary.clone())
    }
}

impl Driver<'_> {
    /// Signs on and plays until the referee says `disconnect` or the stop fires.
    pub(super) fn session(&mut self) -> Result<(), ClientError> {
        if let Some(reason) = self.stop.reason() {
            return self.leave(reason);
        }
        // On a serial line a sign_on sent before the referee opened its port is lost;
        // it is sent again until the referee is heard from (a repeated sign_on is
        // harmless).
        self.sign_on()?;
        loop {
            while !self.stop.is_set()
                && let Some(received) = self.pending.pop_front()
            {
                if let Next::Leave = self.take(received)? {
                    break;
                }
            }
            if let Some(reason) = self.stop.reason() {
                return self.leave(reason);
            }
            let mut received = None;
            crossbeam_channel::select! {
                recv(self.link.events) -> event => match event {
                    Ok(PortEvent::Line(line, record, at)) => {
                        received = Some(self.link.receive(line, record, at));
                    }
                    Ok(PortEvent::Closed) | Err(_) => return Err(self.link.hung_up()),
                    Ok(PortEvent::Failed(e)) => return Err(self.link.io_err(e)),
                },
                recv(self.stop.fired()) -> _ => {}
                default(TICK) => {}
            }
            if let Some(received) = received
                && let Next::Leave = self.take(received)?
            {
                continue;
            }
            if !self.heard && self.signed_on_at.elapsed() >= SIGN_ON_AGAIN {
                self.sign_on()?;
            }
            self.link.timers(&self.state.pos)?;
        }
    }

    /// How the session ends once the stop fired.
    pub(super) fn leave(&mut self, reason: StopReason) -> Result<(), ClientError> {
        // After the referee's `disconnect`, its closing the line is the end it said.
        if let Some(e) = self.failure.take()
            && reason != StopReason::Disconnect
        {
            return Err(e);
        }
        match reason {
            StopReason::Disconnect => Ok(()),
            StopReason::Interrupted => Err(ClientError::Interrupted),
            StopReason::LineLost => Err(self.link.hung_up()),
        }
    }

    pub(super) fn sign_on(&mut self) -> Result<(), ClientError> {
        self.signed_on_at = Instant::now();
        self.link.sign_on(&self.name)?;
        if !self.told_sign_on {
            self.told_sign_on = true;
            self.tell(Report::SignedOn {
                address: self.link.opts.address.clone(),
                name: self.name.clone(),
            });
        }
        Ok(())
    }

    /// Acts on a line from the referee.
    pub(super) fn take(&mut self, received: Received) -> Result<Next, ClientError> {
        match received.what {
            Incoming::Record(rec) => {
                // A fault does not say the sign_on arrived (the referee sends one to a
                // port it has not heard from): sign on again at once.
                if let Some(reason) = replaced(&rec) {
                    self.replaced = Some(reason);
                } else if rec.refcom() == Some("fault") && !self.heard {
                    self.refusal = Some(
                        rec.operands("c0")
                            .and_then(|o| o.first())
                            .and_then(Operand::as_str)
                            .unwrap_or("no reason given")
                            .to_string(),
                    );
                    self.sign_on()?;
                } else {
                    self.heard = true;
                }
                self.handle(rec, received.at)
            }
            Incoming::Skip => Ok(Next::Continue),
            Incoming::Again(rec) => {
                self.again(&rec)?;
                Ok(Next::Continue)
            }
            Incoming::Lost(reason) => {
                self.summary.noise += 1;
                log::warn!("noise from the referee: {reason}");
                // With the checksum extension in use, the request to send again (a
                // fault with a reason) is the report.
                if received.report {
                    let what = format!("{reason}: {}", excerpt(&received.line));
                    self.link.report_noise(&self.state.pos, &what)?;
                }
                Ok(Next::Continue)
            }
        }
    }

    /// Runs `call` on the engine on a thread of its own, and reads the line meanwhile:
    /// what comes is kept to be taken in order afterwards, except that a `fault` is
    /// shown at once and a `disconnect` fires the stop, which ends the engine's waits.
    /// The line failing fires it too.
    fn engine_call<T: Send>(
        &mut self,
        call: impl FnOnce(&mut dyn Engine, &State) -> T + Send,
    ) -> T {
        let Driver {
            engine,
            link,
            stop,
            state,
            pending,
            failure,
            direct,
            replaced: was_replaced,
            ..
        } = self;
        let engine: &mut dyn Engine = &mut **engine;
        let state: &State = state;
        if *direct {
            // An in-process line has nothing to watch (see [`ClientLine`]): the call
            // runs here, and a ply wakes no extra thread.
            return call(engine, state);
        }
        std::thread::scope(|scope| {
            let (tx, done) = crossbeam_channel::bounded(1);
            let worker = scope.spawn(move || {
                let _ = tx.send(call(engine, state));
            });
            let answer = loop {
                let events = if failure.is_some() {
                    crossbeam_channel::never()
                } else {
                    link.events.clone()
                };
                crossbeam_channel::select! {
                    recv(done) -> answer => break answer.ok(),
                    recv(events) -> event => match event {
                        Ok(PortEvent::Line(line, record, at)) => {
                            let received = link.receive(line, record, at);
                            match &received.what {
                                Incoming::Record(rec) if rec.refcom() == Some("fault") => {
                                    show_fault(rec);
                                    if let Some(reason) = replaced(rec) {
                                        *was_replaced = Some(reason);
                                    }
                                }
                                Incoming::Record(rec) if rec.refcom() == Some("disconnect") => {
                                    log::info!("disconnect while the engine is busy: stopping it");
                                    stop.fire(StopReason::Disconnect);
                                    pending.push_back(received);
                                }
                                _ => pending.push_back(received),
                            }
                        }
                        Ok(PortEvent::Closed) | Err(_) => {
                            *failure = Some(link.hung_up());
                            stop.fire(StopReason::LineLost);
                        }
                        Ok(PortEvent::Failed(e)) => {
                            *failure = Some(link.io_err(e));
                            stop.fire(StopReason::LineLost);
                        }
                    },
                    default(TICK) => {}
                }
                if failure.is_none()
                    && let Err(e) = link.timers(&state.pos)
                {
                    *failure = Some(e);
                    stop.fire(StopReason::LineLost);
                }
            };
            match (answer, worker.join()) {
                (Some(answer), _) => answer,
                (None, Err(panic)) => std::panic::resume_unwind(panic),
                (None, Ok(())) => panic!("the engine's thread ended without an answer"),
            }
        })
    }

    /// Reports the engine's failure to the referee, restarts the engine and signs on
    /// again; the referee then resynchronises this client.
    fn recover(&mut self, error: &EngineError) -> Result<Next, ClientError> {
        if self.stop.is_set() {
            // The engine was stopped: the client is leaving.
            return Ok(Next::Leave);
        }
        if self
            .link
            .opts
            .restarts
            .is_some_and(|budget| self.summary.faults >= budget)
        {
            // No restart left: the failure ends the session (its host decides the
            // game).
            log::error!("{error}");
            return Err(ClientError::Engine(error.clone()));
        }
        if self.report.is_some() {
            self.tell(Report::EngineRestart {
                error: error.to_string(),
            });
        } else {
            log::error!("{error}; restarting the engine");
        }
        self.link.fault(&self.state.pos, &error.to_string())?;
        self.summary.faults += 1;
        let restarted = self.engine_call(|engine, _| engine.restart());
        if self.stop.is_set() {
            return Ok(Next::Leave);
        }
        if let Err(e) = restarted {
            return Err(ClientError::Engine(e));
        }
        if self.link.opts.name.is_none() {
            self.name = self.engine.name();
        }
        self.sign_on()?;
        Ok(Next::Continue)
    }

    /// Acts on a record that arrived at `arrived`.
    fn handle(&mut self, rec: Record, arrived: Instant) -> Result<Next, ClientError> {
        match rec.refcom() {
            Some("reset") => {
                // A Chess960 game's reset says so (argus's `variant chess960`).
                let variant = match rec
                    .operands("variant")
                    .and_then(|ops| ops.first())
                    .and_then(|op| op.as_move_text().or(op.as_str()))
                {
                    Some(text) => match text.parse::<crate::core::Variant>() {
                        Ok(variant) => variant,
                        Err(why) => return self.unreconciled(&why),
                    },
                    None => crate::core::Variant::Standard,
                };
                let mut state = State {
                    time_control: std::mem::take(&mut self.state.time_control),
                    variant,
                    ..State::new()
                };
                if let Err(e) = self.engine.set_variant(variant) {
                    log::error!("{e}");
                    return Err(ClientError::Engine(e));
                }
                if let Err(why) = state.follow(&rec) {
                    return self.unreconciled(&why);
                }
                state.first_ply = ply(&state.pos);
                self.state = state;
                self.answered = None;
                let ready = if self.local {
                    self.engine.begin_new_game()
                } else {
                    self.engine_call(|engine, _| engine.new_game())
                };
                if let Err(e) = ready {
                    return self.recover(&e);
                }
            }
            Some("inform") => {
                self.state.inform(&rec);
            }
            Some("execute") => {
                if let Err(why) = self.state.follow(&rec) {
                    return self.unreconciled(&why);
                }
            }
            Some("respond") => {
                // The same respond again as a new record (from a referee without
                // checksums, whose reply was lost): the same reply goes again.
                if self.again(&rec)? {
                    return Ok(Next::Continue);
                }
                if !self.state.informed {
                    return self.missed_inform();
                }
                if let Err(why) = self.state.follow(&rec) {
                    return self.unreconciled(&why);
                }
                return self.respond(rec, arrived);
            }
            Some("conclude") => {
                self.summary.games += 1;
                self.answered = None;
                let result = self.state.result.take();
                self.engine.game_over(result.as_deref());
                log::info!("game concluded: {}", result.as_deref().unwrap_or("*"));
                if self.report.is_some() {
                    let result = result.unwrap_or_else(|| "*".to_string());
                    let final_pos = rec
                        .setup()
                        .position::<Chess>(self.state.variant.castling_mode())
                        .unwrap_or_else(|_| self.state.pos.clone());
                    let reason = (result != "*")
                        .then(|| reason_of(&final_pos, &result, self.state.last_word))
                        .flatten();
                    let names = &self.state.names;
                    let colour = self.state.me.or_else(|| {
                        [Color::White, Color::Black]
                            .into_iter()
                            .find(|c| names[*c].as_deref() == Some(self.name.as_str()))
                    });
                    self.tell(Report::GameOver {
                        names: [names.white.clone(), names.black.clone()],
                        colour,
                        result,
                        reason,
                    });
                }
            }
            Some("fault") => show_fault(&rec),
            Some("disconnect") => {
                self.stop.fire(StopReason::Disconnect);
                return Ok(Next::Leave);
            }
            Some(other) => {
                log::warn!("unknown refcom {other}");
                let what = format!("unknown refcom {}", excerpt(other.as_bytes()));
                self.link.report_noise(&self.state.pos, &what)?;
            }
            None if rec.refreq().is_some() => {
                // A player's record on the referee's line: an echo, which must not be
                // answered (the answer would echo too).
                log::warn!("a record with refreq from the referee (an echo?): {rec}");
            }
            None => {
                log::warn!("a record without refcom from the referee");
                self.link
                    .report_noise(&self.state.pos, "a record without refcom")?;
            }
        }
        Ok(Next::Continue)
    }

    /// A respond came while the client does not know the game's time control: the
    /// game's `inform` was lost. The client never plays on a time control of its own
    /// making: it signs on again, and the referee resynchronises it (reset, inform, the
    /// moves, the respond). With the checksum extension in use, the gap in the record
    /// numbers has already brought the inform again.
    fn missed_inform(&mut self) -> Result<Next, ClientError> {
        log::warn!(
            "a respond, but no inform since the reset: the time control is unknown; \
             signing on again to be resynchronised"
        );
        self.summary.noise += 1;
        self.answered = None;
        self.sign_on()?;
        Ok(Next::Continue)
    }

    /// A record acted on already, sent again: when it is the respond last answered, the
    /// reply was lost on its way and goes again at once.
    /// Returns whether it did.
    fn again(&mut self, rec: &Record) -> Result<bool, ClientError> {
        let Some((answered, reply)) = &self.answered else {
            return Ok(false);
        };
        // The same record is the same text; records of other positions (every respond
        // but one sent again) are told apart without writing them out.
        if rec.refcom() != Some("respond")
            || answered.position != rec.position
            || answered.to_string() != rec.to_string()
        {
            return Ok(false);
        }
        let reply = reply.clone();
        log::info!("the referee asks again; the same reply goes again");
        self.link.write(&reply)?;
        Ok(true)
    }

    /// A well-formed record from the referee that the client cannot reconcile with the
    /// game (an impossible position, a move that does not fit it): it is dropped, never
    /// answered from another board; the client shows the referee what came and signs
    /// on again to be resynchronised (profile section 5, the `fault` row).
    fn unreconciled(&mut self, why: &str) -> Result<Next, ClientError> {
        log::warn!("the referee sent {why}; signing on again to be resynchronised");
        self.summary.noise += 1;
        self.answered = None;
        self.link.report_noise(&self.state.pos, why)?;
        self.sign_on()?;
        Ok(Next::Continue)
    }

    /// Answers a respond that arrived at `arrived`; a pollable engine on the
    /// referee's thread only begins its turn here ([`Driver::thought`] answers).
    fn respond(&mut self, rec: Record, arrived: Instant) -> Result<Next, ClientError> {
        self.state.me = Some(self.state.pos.turn());
        let clocks = self.state.clocks(&rec);
        let draw_offered = rec.has("draw_offer");
        if self.local && self.engine.pollable() {
            let thinking = Thinking {
                rec,
                arrived,
                clocks,
                draw_offered,
            };
            if let Err(e) = self.engine.begin_think(&thinking.turn(&self.state)) {
                return self.recover(&e);
            }
            self.thinking = Some(thinking);
            return Ok(Next::Continue);
        }
        let thought = self.engine_call(move |engine, state| {
            engine.think(&Turn {
                position: &state.pos,
                start: &state.start,
                moves: &state.moves,
                history: state.history,
                clocks,
                draw_offered,
            })
        });
        self.thought(rec, arrived, thought)
    }

    /// Answers the respond `rec` (which arrived at `arrived`) with what the engine
    /// thought.
    pub(super) fn thought(
        &mut self,
        rec: Record,
        arrived: Instant,
        thought: Result<Decision, EngineError>,
    ) -> Result<Next, ClientError> {
        let next = self.reply(rec, thought);
        self.state.own_used += arrived.elapsed();
        next
    }

    /// Sends the reply to `rec`.
    fn reply(
        &mut self,
        rec: Record,
        thought: Result<Decision, EngineError>,
    ) -> Result<Next, ClientError> {
        if self.stop.is_set() {
            return Ok(Next::Leave);
        }
        let decision = match thought {
            Ok(decision) => decision,
            Err(e) => return self.recover(&e),
        };
        let mut reply = record(&self.state.pos, "reply");
        match decision {
            Decision::Move {
                mv,
                offer_draw,
                claim_draw,
                analysis,
            } => {
                if !self.state.pos.is_legal(mv) {
                    let e = EngineError::Failed(format!("an illegal move: {mv}"));
                    return self.recover(&e);
                }
                // The move is played here, on the client's own board, rather than on a
                // copy for its SAN and then again.
                let san = crate::epd::play_san(&mut self.state.pos, mv);
                reply.set("sm", [Operand::Move(crate::epd::san_text(san))]);
                if offer_draw {
                    reply.set("draw_offer", []);
                }
                if claim_draw {
                    reply.set("draw_claim", []);
                }
                for (op, operands) in analysis {
                    reply.set(op, operands);
                }
                self.state.moves.push(mv);
                self.summary.moves += 1;
            }
            Decision::Resign => reply.set("resign", []),
            Decision::AcceptDraw => reply.set("draw_accept", []),
            Decision::ClaimDraw => reply.set("draw_claim", []),
        }
        self.state.last_word = if reply.has("resign") {
            Some("resigned")
        } else if reply.has("draw_accept") {
            Some("draw agreed")
        } else if reply.has("draw_claim") {
            Some("draw claimed")
        } else {
            None
        };
        // A reply with a move or a resignation answers its respond for good; one
        // without (an accept or claim the referee may refuse) is asked anew.
        let answers = reply.has("sm") || reply.has("resign");
        let line = self.link.send_owned(reply)?;
        self.answered = answers.then_some((rec, line));
        Ok(Next::Continue)
    }
}
