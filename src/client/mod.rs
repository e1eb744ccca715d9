//! The client side of the protocol: a player that signs on to a referee, follows the
//! game from its records, and answers each `respond` with a `reply`.
//!
//! The protocol driver ([`run`]) is the same for every kind of player; what chooses the
//! move is an [`Engine`]: the built-in random mover, the adapters for UCI and CECP
//! engines, or a person at a keyboard.
//!
//! The engine works on a thread of its own while the driver goes on reading the line, so
//! that a `disconnect` (or a signal, through a [`Stop`]) ends the client at once even
//! while the engine thinks; the other records that arrive meanwhile are taken in order
//! once the engine has answered.

mod engine;
mod engine_output;
pub mod engine_process;
mod framing;
mod game;
pub mod human;
mod line;
pub mod random;
#[cfg(unix)]
pub mod session;
pub mod stop;
pub mod uci;
pub mod xboard;

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use shakmaty::fen::Epd;
use shakmaty::{ByColor, CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use crate::core::clock::{Clocks, TimeControl};

use crate::epd::{Operand, Record, resolve_move, seal};
use crate::mediator::Eol;
use crate::transport::lines::{LineSplitter, Piece};
use crate::transport::memory::ClientWriter;
use crate::transport::{Duplex, memory};
pub use engine::{Decision, Engine, EngineError, Keep, Limit, Turn, TurnClocks};
use framing::{Framing, Incoming};
use game::*;
use line::*;
pub use stop::{Stop, StopReason};

/// How the client presents itself.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The name to sign on with; the engine's own name when absent.
    pub name: Option<String>,
    /// The address sent in `tcsi` (the port's path, say).
    pub address: String,
    /// The end of line to write.
    pub eol: Eol,
    /// Offer the checksum extension at sign-on (docs/protocol.md, "Noisy lines"): seal
    /// every record, and ask again for records lost to noise.
    pub checksum: bool,
    /// The secret sent with `sign_on` (`token`) to an IP referee whose event lists its
    /// players with secrets (profile section 9).
    pub token: Option<String>,
    /// How many times a failed engine is restarted (and the game goes on) before its
    /// failure ends the session with [`ClientError::Engine`]; `None` restarts it every
    /// time (`argus client`: the serial club's way, spec 3.2 item 8). `argus serve`
    /// gives `Some(0)` unless the organiser asks for restarts (`restarts=N`), so that an
    /// engine that crashes loses its game as in cutechess-cli and fastchess.
    pub restarts: Option<u32>,
}

/// What a client session came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientSummary {
    /// Games concluded.
    pub games: u32,
    /// Moves this client played.
    pub moves: u32,
    /// Engine failures reported to the referee.
    pub faults: u32,
    /// Records from the referee that noise changed or lost (asked for again when the
    /// line is sealed).
    pub noise: u32,
}

/// What a client tells its user as it plays ([`run_reporting`]; `argus client` prints
/// each as a line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    /// The client signed on (the first time on this line).
    SignedOn {
        /// The referee's address (or the port).
        address: String,
        /// The name it signed on with.
        name: String,
    },
    /// A game ended.
    GameOver {
        /// The players' names, from the game's `inform` (White, Black).
        names: [Option<String>; 2],
        /// The colour this client played, when it knows.
        colour: Option<Color>,
        /// The result (`1-0`, `0-1`, `1/2-1/2`, `*`).
        result: String,
        /// Why, as far as the client can tell: the final position (checkmate,
        /// stalemate, insufficient material, the fifty-move rule), its own resignation
        /// or draw; `None` when the referee's record does not say (time, an infraction,
        /// the opponent's resignation, adjudication).
        reason: Option<String>,
    },
    /// The engine failed; the client restarts it and signs on again.
    EngineRestart {
        /// What failed.
        error: String,
    },
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

/// An error that ends a client session.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The line failed.
    #[error("line {address}: {source}")]
    Io {
        /// The port.
        address: String,
        /// The system's error.
        source: io::Error,
    },
    /// The line closed before the referee said `disconnect`.
    #[error("line {address}: the referee hung up without disconnect")]
    HungUp {
        /// The port.
        address: String,
    },
    /// The referee refused the client: its `fault` came before anything else, and then
    /// it closed the line (an IP referee refusing a wrong token, say).
    #[error("line {address}: the referee refused this client: {reason}")]
    Refused {
        /// The port.
        address: String,
        /// The `fault`'s reason.
        reason: String,
    },
    /// The engine failed and could not be restarted.
    #[error(transparent)]
    Engine(EngineError),
    /// The client was interrupted (Ctrl-C, SIGTERM, SIGHUP) before the referee said
    /// `disconnect`; its engine is stopped.
    #[error("interrupted")]
    Interrupted,
}

/// The words that end a referee's refusal the client waits out and connects again
/// after (a name whose old connection is still open, too many connections waiting):
/// `argus client --connect` tries again instead of stopping.
pub const TRY_AGAIN: &str = "try again shortly";

/// The words of the `fault` a connection gets when its player signed on again on
/// another (`NAME signed on again from another connection (ADDRESS): ...`): the
/// client of the old connection stops instead of connecting again, so two clients
/// under one name do not take the place from each other for ever.
pub const REPLACED: &str = "signed on again from another connection";

/// How long a client waits to hear from the referee before it signs on again.
pub const SIGN_ON_AGAIN: Duration = Duration::from_secs(3);

/// The environment variable `argus client` reads its token from when `--token` is not
/// given (a command line shows in `ps`; the environment, to its owner alone). Its
/// engine is started without it.
pub const TOKEN_ENV: &str = "ARGUS_TOKEN";

/// How long part of a line from the referee may wait for more bytes before it is taken
/// as a record whose terminator noise changed (the referee writes whole lines).
pub const STALLED_LINE: Duration = Duration::from_millis(250);

/// How long a client waits for records it asked for again before it asks once more.
pub const ASK_AGAIN: Duration = Duration::from_millis(300);

/// The least time between two reports of noise from the referee (`refreq fault` with
/// "noise from the referee: ..."): a noisy line cannot make the client flood it.
pub const NOISE_REPORT_EVERY: Duration = Duration::from_secs(1);

/// How often the driver looks at its timers (repeated sign-on, requests to send again).
const TICK: Duration = Duration::from_millis(50);

/// The longest excerpt of a noisy line quoted in a report.
const NOISE_EXCERPT: usize = 48;

/// What the driver does after a record.
enum Next {
    Continue,
    /// Stop: the referee said `disconnect`, or the [`Stop`] fired.
    Leave,
}

/// Signs on and plays until the referee says `disconnect`.
///
/// When the engine fails (it crashes, stalls past its deadline, or answers nonsense),
/// the client sends `refreq fault` with the reason in `c0`, restarts the engine and
/// signs on again, so that the referee resynchronises it and the game goes on. With
/// [`ClientOptions::checksum`], records lost to noise are asked for again.
///
/// # Errors
///
/// Returns [`ClientError`] when the line fails or closes before `disconnect`, or the
/// engine cannot be restarted.
pub fn run(
    line: impl Into<ClientLine>,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
) -> Result<ClientSummary, ClientError> {
    run_until(line, engine, opts, &Stop::new())
}

/// The client's line: bytes (a port, a socket), read by a thread of the client's own,
/// or the client's end of an in-process line ([`memory::direct_pair`]), whose lines
/// come with no thread. An in-process line has no noise; and since nothing reads it
/// while the engine thinks, a `disconnect` is taken after the engine's answer: its
/// host fires the client's stop when the referee ends, as `argus serve` does.
pub enum ClientLine {
    /// A line of bytes.
    Bytes(Duplex),
    /// An in-process line.
    Direct(memory::ClientEnd),
}

impl From<Duplex> for ClientLine {
    fn from(duplex: Duplex) -> ClientLine {
        ClientLine::Bytes(duplex)
    }
}

impl From<memory::ClientEnd> for ClientLine {
    fn from(end: memory::ClientEnd) -> ClientLine {
        ClientLine::Direct(end)
    }
}

/// As [`run`], and also ends when `stop` fires (a signal handler fires it with
/// [`StopReason::Interrupted`]), even while the engine thinks: the client then tells the
/// referee with a `refreq fault` and returns [`ClientError::Interrupted`].
///
/// However it ends, the engine is ended too ([`Engine::quit`]) before this returns: a
/// `disconnect` or a stop that comes while the engine thinks stops its search, and the
/// client is gone within a second.
///
/// # Errors
///
/// As [`run`]; [`ClientError::Interrupted`] when `stop` fired.
pub fn run_until(
    line: impl Into<ClientLine>,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
    stop: &Stop,
) -> Result<ClientSummary, ClientError> {
    run_reporting(line, engine, opts, stop, None)
}

/// As [`run_until`], telling `report` when the client signs on, when each game ends
/// and when its engine fails (`argus client` prints them).
///
/// # Errors
///
/// As [`run_until`].
pub fn run_reporting(
    line: impl Into<ClientLine>,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
    stop: &Stop,
    report: Option<&dyn Fn(Report)>,
) -> Result<ClientSummary, ClientError> {
    let (events, writer, port): (_, Box<dyn ClientWriter>, _) = match line.into() {
        ClientLine::Bytes(Duplex { reader, writer }) => {
            let port = PortReader::spawn(reader).map_err(|source| ClientError::Io {
                address: opts.address.clone(),
                source,
            })?;
            (port.events.clone(), Box::new(writer), Some(port))
        }
        ClientLine::Direct(end) => (end.lines, end.writer, None),
    };
    let mut driver = Driver::new(engine, writer, events, opts, stop, port.is_none(), false);
    driver.report = report;
    let outcome = driver.session();
    let outcome = driver.end(outcome);
    if let Some(port) = port {
        port.close();
    }
    outcome
}

/// The reason of `rec` when it is the `fault` that says another connection took this
/// player's place ([`REPLACED`]).
fn replaced(rec: &Record) -> Option<String> {
    let reason = rec.operands("c0")?.first()?.as_str()?;
    (rec.refcom() == Some("fault") && reason.contains(REPLACED)).then(|| reason.to_string())
}

/// Shows a `fault` from the referee (it stops, to be resumed later, say): the client
/// waits on.
fn show_fault(rec: &Record) {
    let why = rec
        .operands("c0")
        .and_then(|o| o.first())
        .and_then(Operand::as_str)
        .unwrap_or("no reason given");
    log::warn!("the referee reports a fault: {why}; waiting for it");
}

struct Driver<'a> {
    engine: &'a mut dyn Engine,
    link: Link<'a>,
    stop: &'a Stop,
    /// The name the client signs on with.
    name: String,
    state: State,
    summary: ClientSummary,
    /// The last respond answered with a move or a resignation, and the reply: when the
    /// referee sends the same respond again (the reply was lost to noise), the same
    /// reply goes again at once, without asking the engine.
    answered: Option<(Record, String)>,
    /// Whether a record came from the referee (until then the client signs on again
    /// now and then).
    heard: bool,
    /// The reason of a `fault` that came before anything else: a refusal if the line
    /// then closes.
    refusal: Option<String>,
    /// The `fault` that said another connection took this player's place
    /// ([`REPLACED`]): the line's end that follows ends the client.
    replaced: Option<String>,
    /// When the client last signed on.
    signed_on_at: Instant,
    /// Lines that came while the engine was busy, to be taken in order.
    pending: VecDeque<Received>,
    /// What ended the session while the engine was busy (the line failed).
    failure: Option<ClientError>,
    /// The line is in-process: engine calls run on the driver's thread.
    direct: bool,
    /// The driver runs on its referee's thread ([`session::LocalSession`]): a pollable
    /// engine's turns are begun and polled, never waited for.
    local: bool,
    /// The respond a pollable engine thinks on, begun and not yet answered.
    thinking: Option<Thinking>,
    /// Where the user's reports go ([`run_reporting`]); whether the sign-on was told.
    report: Option<&'a dyn Fn(Report)>,
    told_sign_on: bool,
    /// Whether an engine that ends the session well is left running for its host to
    /// play again ([`session::LocalSession::finish_keeping`]), and whether it was.
    keep_engine: Keep,
    kept: bool,
}

/// A respond being thought on (by a pollable engine, [`Engine::begin_think`]).
#[cfg_attr(not(unix), allow(dead_code))]
struct Thinking {
    rec: Record,
    /// When it arrived.
    arrived: Instant,
    clocks: Option<TurnClocks>,
    draw_offered: bool,
}

impl Thinking {
    /// The turn the engine thinks on, in the game as `state` follows it.
    fn turn<'s>(&self, state: &'s State) -> Turn<'s> {
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
    /// referee's thread ([`session::LocalSession`]).
    fn new(
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
    fn end(&mut self, outcome: Result<(), ClientError>) -> Result<ClientSummary, ClientError> {
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
    fn session(&mut self) -> Result<(), ClientError> {
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
    fn leave(&mut self, reason: StopReason) -> Result<(), ClientError> {
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

    fn sign_on(&mut self) -> Result<(), ClientError> {
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
    fn take(&mut self, received: Received) -> Result<Next, ClientError> {
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
                let mut state = State {
                    time_control: std::mem::take(&mut self.state.time_control),
                    ..State::new()
                };
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
                        .position::<Chess>(CastlingMode::Standard)
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
    fn thought(
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

/// Drives a turn begun with [`Engine::begin_think`] as `argus serve`'s game thread
/// does: `poll` on the engine's output until its deadline, then
/// [`Engine::poll_think`] (for the adapters' tests).
#[cfg(all(test, unix))]
pub(crate) fn polled(engine: &mut dyn Engine, turn: &Turn<'_>) -> Result<Decision, EngineError> {
    engine.begin_think(turn)?;
    loop {
        let mut readable = false;
        if let Some(fd) = engine.output_fd() {
            let left = engine.wake_at().map_or(Duration::from_secs(5), |at| {
                at.saturating_duration_since(Instant::now())
            });
            let ms = crate::transport::poll_millis(left);
            let mut fds = [libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            }];
            // SAFETY: one valid pollfd.
            readable = unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) } > 0;
        }
        if let Some(answer) = engine.poll_think(turn, readable || engine.output_fd().is_none()) {
            return answer;
        }
    }
}
