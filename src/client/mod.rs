//! The client side of the protocol: a player that signs on to a referee, follows the
//! game from its records, and answers each `respond` with a `reply`.
//!
//! The protocol driver ([`run`]) is the same for every kind of player; what chooses the
//! move is an [`Engine`]. Today that is the built-in random mover; the adapters for UCI
//! and CECP engines and for a person at a keyboard implement the same trait.

pub mod engine_process;
mod framing;
pub mod human;
pub mod random;
pub mod uci;
pub mod xboard;

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use shakmaty::fen::Epd;
use shakmaty::{ByColor, CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use shakmaty::san::SanPlus;

use crate::core::clock::{Clocks, TimeControl};

use crate::epd::{Operand, Record, resolve_move, seal};
use crate::mediator::Eol;
use crate::transport::Duplex;
use crate::transport::lines::{LineSplitter, Piece};
use framing::{Framing, Incoming};

/// The clocks as the player to move sees them, rebuilt at the adapter from the game's
/// TimeControl (sent by the referee in `inform`) and the consumed times of `cc`, never
/// guessed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnClocks {
    /// Time left for White and Black.
    pub remaining: ByColor<Duration>,
    /// The increment each side gets after its next move.
    pub increment: ByColor<Duration>,
    /// Moves the side to move must make before the next period's time is added, when
    /// the current period has a move count.
    pub moves_to_go: Option<u32>,
}

/// What the engine is asked to decide on.
pub struct Turn<'a> {
    /// The position to move from.
    pub position: &'a Chess,
    /// The position the game (as far as the client knows it) started from.
    pub start: &'a Chess,
    /// The moves from `start` to `position`, so that engines see the history (and so
    /// repetitions).
    pub moves: &'a [Move],
    /// The clocks; `None` when the game is untimed or its time control is unknown.
    pub clocks: Option<TurnClocks>,
    /// Whether the opponent offered a draw with its last move.
    pub draw_offered: bool,
}

/// A fixed search limit that replaces the clock (`argus client --limit`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Search this many nodes.
    Nodes(u64),
    /// Search to this depth in plies.
    Depth(u32),
    /// Search for this long.
    MoveTime(Duration),
}

impl std::str::FromStr for Limit {
    type Err = String;

    /// Reads `nodes=N`, `depth=N` or `movetime=MS`.
    fn from_str(text: &str) -> Result<Limit, String> {
        let bad = || format!("{text:?}: expected nodes=N, depth=N or movetime=MS");
        let (kind, value) = text.split_once('=').ok_or_else(bad)?;
        let n: u64 = value.trim().parse().map_err(|_| bad())?;
        match kind.trim() {
            "nodes" if n > 0 => Ok(Limit::Nodes(n)),
            "depth" if n > 0 => Ok(Limit::Depth(u32::try_from(n).map_err(|_| bad())?)),
            "movetime" if n > 0 => Ok(Limit::MoveTime(Duration::from_millis(n))),
            _ => Err(bad()),
        }
    }
}

/// The engine's decision.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Play a move.
    Move {
        /// The move.
        mv: Move,
        /// Offer a draw with it.
        offer_draw: bool,
        /// Claim a draw with it (after it is played).
        claim_draw: bool,
        /// Analysis operations for the reply (`ce`, `acd`, `acn`, `acs`, `pv`).
        analysis: Vec<(String, Vec<Operand>)>,
    },
    /// Resign.
    Resign,
    /// Accept the pending draw offer.
    AcceptDraw,
    /// Claim a draw without moving.
    ClaimDraw,
}

/// An error of an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine could not be started.
    #[error("engine {command}: cannot start: {reason}")]
    Start {
        /// The command line.
        command: String,
        /// Why.
        reason: String,
    },
    /// The engine failed: it crashed, stalled past its deadline, or answered nonsense.
    /// The client reports a fault to the referee, restarts the engine and signs on
    /// again.
    #[error("engine: {0}")]
    Failed(String),
    /// The engine did not answer by a deadline (a kind of failure that adapters may
    /// first try to cure, by `stop` or `?`).
    #[error("engine: {0}")]
    Timeout(String),
}

/// Something that chooses moves. Adapters for UCI and CECP engines, the person at the
/// keyboard and the random mover implement it; the protocol driver [`run`] is the same
/// for all.
pub trait Engine {
    /// The engine's name, for `tcsi`.
    fn name(&self) -> String;
    /// A new game begins.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when the engine cannot get ready.
    fn new_game(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// Decides what to do on this turn. Every wait for the engine has a deadline.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when the engine cannot answer.
    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError>;
    /// Starts the engine afresh after a failure.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when it cannot be restarted.
    fn restart(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// The game ended with `result` (`1-0`, `0-1`, `1/2-1/2`, `*`), when known.
    fn game_over(&mut self, _result: Option<&str>) {}
}

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
    /// The engine failed and could not be restarted.
    #[error(transparent)]
    Engine(EngineError),
}

struct State {
    start: Chess,
    pos: Chess,
    moves: Vec<Move>,
    time_control: Option<TimeControl>,
    result: Option<String>,
    /// The ply number (from the move numbers) of the game's start, set by `reset`.
    first_ply: u32,
    /// The time this client has spent on its own moves in this game, by its own watch.
    own_used: Duration,
}

/// The ply number of `pos` from its move numbers: 0 at the standard start.
fn ply(pos: &Chess) -> u32 {
    2 * (pos.fullmoves().get() - 1) + u32::from(pos.turn() == Color::Black)
}

impl State {
    fn new() -> State {
        State {
            start: Chess::default(),
            pos: Chess::default(),
            moves: Vec::new(),
            time_control: None,
            result: None,
            first_ply: 0,
            own_used: Duration::ZERO,
        }
    }

    /// Takes the record's position, with its `sm` applied, as current: keeps the
    /// history when it is the position already held, else starts a new history from it
    /// (EPD spec 8.1). A record that cannot be reconciled (an impossible position, a
    /// move that is not legal in it) changes nothing and is an error: the client never
    /// plays on from a board that is not the referee's.
    fn follow(&mut self, rec: &Record) -> Result<(), String> {
        let pos = rec
            .setup()
            .position::<Chess>(CastlingMode::Standard)
            .map_err(|e| format!("an impossible position ({}): {e}", rec.position))?;
        let sm = match rec
            .operands("sm")
            .and_then(|o| o.first())
            .map(|op| op.as_move_text().or(op.as_str()).unwrap_or_default())
        {
            Some(text) => Some(
                resolve_move(&pos, text)
                    .map_err(|e| format!("a move that does not fit its position ({text}): {e}"))?,
            ),
            None => None,
        };
        if !same(&pos, &self.pos) {
            self.start = pos.clone();
            self.pos = pos;
            self.moves.clear();
        }
        if let Some(m) = sm {
            self.pos.play_unchecked(m);
            self.moves.push(m);
        }
        Ok(())
    }

    /// The tags of an `inform`: the time control, and the result once it is known.
    fn inform(&mut self, rec: &Record) {
        let Some(ops) = rec.operands("ptp") else {
            return;
        };
        for pair in ops.chunks(2) {
            let [tag, value] = pair else { continue };
            let value = value.as_str();
            match tag.as_identifier() {
                Some("TimeControl") => {
                    self.time_control = value.and_then(|v| match v.parse() {
                        Ok(tc) => Some(tc),
                        Err(e) => {
                            log::warn!("the referee's time control: {e}");
                            None
                        }
                    });
                }
                Some("Result") => self.result = value.filter(|v| *v != "*").map(str::to_string),
                _ => {}
            }
        }
    }

    /// The clocks before the side to move moves, from the time control and `cc`.
    ///
    /// `cc` is truncated to whole seconds, so the player's own consumption is taken as
    /// the larger of `cc` and what the client measured itself (from each respond's
    /// arrival to its reply's departure): an engine is never told it has time that the
    /// referee has already charged.
    fn clocks(&self, rec: &Record) -> Option<TurnClocks> {
        let tc = self.time_control.as_ref().filter(|tc| tc.is_timed())?;
        let mut consumed = match rec.operands("cc")? {
            [Operand::Clock(w), Operand::Clock(b)] => ByColor {
                white: w.to_duration(),
                black: b.to_duration(),
            },
            _ => return None,
        };
        let me = self.pos.turn();
        consumed[me] = consumed[me].max(self.own_used);
        // Moves made by each side since the game's start, from the move numbers (which
        // survive a history the client had to start afresh).
        let made = |color: Color| {
            let plies = self.first_ply..ply(&self.pos);
            u32::try_from(
                plies
                    .filter(|p| (p % 2 == 0) == (color == Color::White))
                    .count(),
            )
            .unwrap_or(u32::MAX)
        };
        let clocks = Clocks::from_consumed(
            tc,
            ByColor {
                white: made(Color::White),
                black: made(Color::Black),
            },
            consumed,
        );
        Some(TurnClocks {
            remaining: ByColor {
                white: clocks.remaining(Color::White).unwrap_or_default(),
                black: clocks.remaining(Color::Black).unwrap_or_default(),
            },
            increment: ByColor {
                white: clocks.increment(Color::White),
                black: clocks.increment(Color::Black),
            },
            moves_to_go: clocks.moves_to_go(self.pos.turn()),
        })
    }
}

fn same(a: &Chess, b: &Chess) -> bool {
    a.board() == b.board()
        && a.turn() == b.turn()
        && a.castles().castling_rights() == b.castles().castling_rights()
        && a.ep_square(EnPassantMode::Legal) == b.ep_square(EnPassantMode::Legal)
        && a.halfmoves() == b.halfmoves()
        && a.fullmoves() == b.fullmoves()
}

fn record(pos: &Chess, refreq: &str) -> Record {
    let mut rec = Record::new(Epd::from_position(pos, EnPassantMode::Always));
    rec.set("refreq", vec![Operand::Identifier(refreq.to_string())]);
    rec
}

fn write_line(w: &mut dyn Write, line: &str, eol: Eol) -> io::Result<()> {
    let mut line = line.as_bytes().to_vec();
    line.extend_from_slice(eol.bytes());
    let mut buf = &line[..];
    while !buf.is_empty() {
        match w.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    w.flush()
}

/// How long a client waits to hear from the referee before it signs on again.
pub const SIGN_ON_AGAIN: Duration = Duration::from_secs(3);

/// How long part of a line from the referee may wait for more bytes before it is taken
/// as a record whose terminator noise changed (the referee writes whole lines).
pub const STALLED_LINE: Duration = Duration::from_millis(250);

/// How long a client waits for records it asked for again before it asks once more.
pub const ASK_AGAIN: Duration = Duration::from_millis(300);

/// What the driver does after a record.
enum Next {
    Continue,
    Disconnect,
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
    duplex: Duplex,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
) -> Result<ClientSummary, ClientError> {
    let Duplex {
        mut reader,
        mut writer,
    } = duplex;
    let mut driver = Driver {
        writer: writer.as_mut(),
        engine,
        opts,
        state: State::new(),
        summary: ClientSummary::default(),
        framing: Framing::new(opts.checksum),
        answered: None,
    };
    driver.sign_on()?;
    // On a serial line a sign_on sent before the referee opened its port is lost; it is
    // sent again until the referee is heard from (a repeated sign_on is harmless).
    let mut signed_on_at = Instant::now();
    let mut heard = false;
    let mut splitter = LineSplitter::new();
    let mut buf = vec![0u8; 4096];
    let mut last_byte = Instant::now();
    loop {
        let mut lines = Vec::new();
        match reader.read(&mut buf) {
            Ok(0) => return Err(driver.hung_up()),
            Ok(n) => {
                last_byte = Instant::now();
                splitter.feed(&buf[..n], |p| {
                    if let Piece::Line(l) = p {
                        lines.push(l);
                    }
                });
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut
                        | io::ErrorKind::WouldBlock
                        | io::ErrorKind::Interrupted
                ) =>
            {
                if !heard && signed_on_at.elapsed() >= SIGN_ON_AGAIN {
                    driver.sign_on()?;
                    signed_on_at = Instant::now();
                }
                // A line whose terminator noise changed ends here, as noise.
                if splitter.has_partial()
                    && last_byte.elapsed() >= STALLED_LINE
                    && let Some(Piece::Line(l)) = splitter.take_partial()
                {
                    lines.push(l);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(driver.hung_up()),
            Err(e) => return Err(driver.io_err(e)),
        }
        let arrived = last_byte;
        for line in lines {
            match driver.framing.receive(&line) {
                Incoming::Record(rec) => {
                    // A fault does not say the sign_on arrived (the referee sends one
                    // to a port it has not heard from): sign on again at once.
                    if rec.refcom() == Some("fault") && !heard {
                        driver.sign_on()?;
                        signed_on_at = Instant::now();
                    } else {
                        heard = true;
                    }
                    if let Next::Disconnect = driver.handle(&rec, arrived)? {
                        return Ok(driver.summary);
                    }
                }
                Incoming::Skip => {}
                Incoming::Again(rec) => {
                    driver.again(&rec)?;
                }
                Incoming::Lost(reason) => {
                    driver.summary.noise += 1;
                    log::warn!("noise from the referee: {reason}");
                }
            }
        }
        driver.ask_again()?;
    }
}

struct Driver<'a> {
    writer: &'a mut (dyn Write + Send),
    engine: &'a mut dyn Engine,
    opts: &'a ClientOptions,
    state: State,
    summary: ClientSummary,
    framing: Framing,
    /// The last respond answered with a move or a resignation, and the reply: when the
    /// referee sends the same respond again (the reply was lost to noise), the same
    /// reply goes again at once, without asking the engine.
    answered: Option<(String, String)>,
}

impl Driver<'_> {
    fn io_err(&self, source: io::Error) -> ClientError {
        ClientError::Io {
            address: self.opts.address.clone(),
            source,
        }
    }

    fn hung_up(&self) -> ClientError {
        ClientError::HungUp {
            address: self.opts.address.clone(),
        }
    }

    /// Seals and sends a record; returns the line as sent.
    fn send(&mut self, rec: &Record) -> Result<String, ClientError> {
        let line = self.framing.seal(rec.to_string());
        write_line(self.writer, &line, self.opts.eol).map_err(|e| self.io_err(e))?;
        Ok(line)
    }

    fn sign_on(&mut self) -> Result<(), ClientError> {
        let name = self.opts.name.clone().unwrap_or_else(|| self.engine.name());
        let mut sign_on = record(&Chess::default(), "sign_on");
        sign_on.set(
            "tcsi",
            vec![
                Operand::lossy_string(&self.opts.address),
                Operand::lossy_string(&name),
            ],
        );
        self.send(&sign_on).map(drop)
    }

    /// Asks the referee for the records noise took, when a request is due (a `fault`
    /// whose `c0` says why, with `xagain` and the first record number wanted).
    fn ask_again(&mut self) -> Result<(), ClientError> {
        let Some(from) = self.framing.ask(Instant::now()) else {
            return Ok(());
        };
        let mut fault = record(&self.state.pos, "fault");
        let why = if from == 0 {
            "noise on the line: please resynchronise".to_string()
        } else {
            format!("noise on the line: please send again from record {from}")
        };
        fault.set("c0", vec![Operand::lossy_string(&why)]);
        fault.set(seal::AGAIN, vec![Operand::Integer(from as i64)]);
        log::info!("{why}");
        self.send(&fault).map(drop)
    }

    /// Reports the engine's failure to the referee, restarts the engine and signs on
    /// again; the referee then resynchronises this client.
    fn recover(&mut self, error: &EngineError) -> Result<(), ClientError> {
        log::error!("{error}; restarting the engine");
        let mut fault = record(&self.state.pos, "fault");
        fault.set("c0", vec![Operand::lossy_string(&error.to_string())]);
        self.send(&fault)?;
        self.summary.faults += 1;
        if let Err(e) = self.engine.restart() {
            return Err(ClientError::Engine(e));
        }
        self.sign_on()
    }

    /// Acts on a record that arrived at `arrived`.
    fn handle(&mut self, rec: &Record, arrived: Instant) -> Result<Next, ClientError> {
        match rec.refcom() {
            Some("reset") => {
                let mut state = State {
                    time_control: self.state.time_control.take(),
                    ..State::new()
                };
                if let Err(why) = state.follow(rec) {
                    return self.unreconciled(&why);
                }
                state.first_ply = ply(&state.pos);
                self.state = state;
                self.answered = None;
                if let Err(e) = self.engine.new_game() {
                    self.recover(&e)?;
                }
            }
            Some("inform") => self.state.inform(rec),
            Some("execute") => {
                if let Err(why) = self.state.follow(rec) {
                    return self.unreconciled(&why);
                }
            }
            Some("respond") => {
                // The same respond again as a new record (from a referee without
                // checksums, whose reply was lost): the same reply goes again.
                if self.again(rec)? {
                    return Ok(Next::Continue);
                }
                if let Err(why) = self.state.follow(rec) {
                    return self.unreconciled(&why);
                }
                self.respond(rec)?;
                self.state.own_used += arrived.elapsed();
            }
            Some("conclude") => {
                self.summary.games += 1;
                self.answered = None;
                let result = self.state.result.take();
                self.engine.game_over(result.as_deref());
                log::info!("game concluded: {}", result.as_deref().unwrap_or("*"));
            }
            Some("fault") => {
                let why = rec
                    .operands("c0")
                    .and_then(|o| o.first())
                    .and_then(Operand::as_str)
                    .unwrap_or("no reason given");
                log::warn!("the referee reports a fault: {why}");
            }
            Some("disconnect") => return Ok(Next::Disconnect),
            Some(other) => log::warn!("unknown refcom {other}"),
            None => log::warn!("a record without refcom from the referee"),
        }
        Ok(Next::Continue)
    }

    /// A record acted on already, sent again: when it is the respond last answered, the
    /// reply was lost on its way and goes again at once.
    /// Returns whether it did.
    fn again(&mut self, rec: &Record) -> Result<bool, ClientError> {
        let Some((answered, reply)) = &self.answered else {
            return Ok(false);
        };
        if rec.refcom() != Some("respond") || *answered != rec.to_string() {
            return Ok(false);
        }
        let reply = reply.clone();
        log::info!("the referee asks again; the same reply goes again");
        write_line(self.writer, &reply, self.opts.eol).map_err(|e| self.io_err(e))?;
        Ok(true)
    }

    /// A well-formed record from the referee that the client cannot reconcile with the
    /// game (an impossible position, a move that does not fit it): it is dropped, never
    /// answered from another board, and the client signs on again to be resynchronised
    /// (profile section 5, the `fault` row).
    fn unreconciled(&mut self, why: &str) -> Result<Next, ClientError> {
        log::warn!("the referee sent {why}; signing on again to be resynchronised");
        self.summary.noise += 1;
        self.answered = None;
        self.sign_on()?;
        Ok(Next::Continue)
    }

    /// Answers a respond.
    fn respond(&mut self, rec: &Record) -> Result<(), ClientError> {
        let state = &self.state;
        let turn = Turn {
            position: &state.pos,
            start: &state.start,
            moves: &state.moves,
            clocks: state.clocks(rec),
            draw_offered: rec.has("draw_offer"),
        };
        let decision = match self.engine.think(&turn) {
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
                let san = SanPlus::from_move(self.state.pos.clone(), mv);
                reply.set("sm", vec![Operand::Move(san.to_string())]);
                if offer_draw {
                    reply.set("draw_offer", vec![]);
                }
                if claim_draw {
                    reply.set("draw_claim", vec![]);
                }
                for (op, operands) in analysis {
                    reply.set(&op, operands);
                }
                self.state.pos.play_unchecked(mv);
                self.state.moves.push(mv);
                self.summary.moves += 1;
            }
            Decision::Resign => reply.set("resign", vec![]),
            Decision::AcceptDraw => reply.set("draw_accept", vec![]),
            Decision::ClaimDraw => reply.set("draw_claim", vec![]),
        }
        let line = self.send(&reply)?;
        // A reply with a move or a resignation answers its respond for good; one
        // without (an accept or claim the referee may refuse) is asked anew.
        self.answered = (reply.has("sm") || reply.has("resign")).then(|| (rec.to_string(), line));
        Ok(())
    }
}
