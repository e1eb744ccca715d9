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

pub mod engine_process;
mod framing;
pub mod human;
pub mod random;
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

use shakmaty::san::SanPlus;

use crate::core::clock::{Clocks, TimeControl};

use crate::epd::{Operand, Record, resolve_move, seal};
use crate::mediator::Eol;
use crate::transport::Duplex;
use crate::transport::lines::{LineSplitter, Piece};
use framing::{Framing, Incoming};
pub use stop::{Stop, StopReason};

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
    /// The client's [`Stop`] fired while the engine was waited for: the client is
    /// leaving, and the engine is not at fault.
    #[error("engine: interrupted, the client is leaving")]
    Interrupted,
}

/// Something that chooses moves. Adapters for UCI and CECP engines, the person at the
/// keyboard and the random mover implement it; the protocol driver [`run`] is the same
/// for all. It works on a thread of its own while the driver reads the line.
pub trait Engine: Send {
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
    /// Hands the engine the client's [`Stop`]: once it fires, every wait of the engine
    /// (its search above all) ends at once with [`EngineError::Interrupted`].
    fn watch(&mut self, _stop: &Stop) {}
    /// Ends the engine for good, quickly, as the client leaves: stops its search, asks
    /// it to quit, and kills it when it has not quit within
    /// [`engine_process::QUIT_GRACE`].
    fn quit(&mut self) {}
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
    /// The client was interrupted (Ctrl-C, SIGTERM, SIGHUP) before the referee said
    /// `disconnect`; its engine is stopped.
    #[error("interrupted")]
    Interrupted,
}

struct State {
    start: Chess,
    pos: Chess,
    moves: Vec<Move>,
    time_control: Option<TimeControl>,
    /// Whether the game's `inform` came after its `reset`: without it the client does
    /// not know the time control (nor the names).
    informed: bool,
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
            informed: false,
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
        self.informed = true;
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
    duplex: Duplex,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
) -> Result<ClientSummary, ClientError> {
    run_until(duplex, engine, opts, &Stop::new())
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
    duplex: Duplex,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
    stop: &Stop,
) -> Result<ClientSummary, ClientError> {
    let Duplex { reader, mut writer } = duplex;
    let port = PortReader::spawn(reader).map_err(|source| ClientError::Io {
        address: opts.address.clone(),
        source,
    })?;
    engine.watch(stop);
    let name = opts.name.clone().unwrap_or_else(|| engine.name());
    let mut driver = Driver {
        engine,
        link: Link {
            writer: writer.as_mut(),
            opts,
            framing: Framing::new(opts.checksum),
            events: port.events.clone(),
            noise: NoiseReports::default(),
            last_lost: String::new(),
        },
        stop,
        name,
        state: State::new(),
        summary: ClientSummary::default(),
        answered: None,
        heard: false,
        signed_on_at: Instant::now(),
        pending: VecDeque::new(),
        failure: None,
    };
    let outcome = driver.session();
    if let Err(ClientError::Interrupted) = &outcome {
        // The referee hears why the player goes quiet (profile section 5, `fault`).
        let why = "argus client interrupted (Ctrl-C or a termination signal): the player leaves";
        if let Err(e) = driver.link.fault(&driver.state.pos, why) {
            log::warn!("{e}");
        }
    }
    driver.engine.quit();
    port.close();
    outcome.map(|()| driver.summary)
}

/// What the reader thread of the line reports.
enum PortEvent {
    /// A line (without its terminator), with the instant its last byte was read.
    Line(Vec<u8>, Instant),
    /// The referee hung up.
    Closed,
    /// The line failed.
    Failed(io::Error),
}

/// The thread that reads the line to the referee, so that the driver can wait for the
/// line, the engine and a stop at once.
struct PortReader {
    events: Receiver<PortEvent>,
    quit: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PortReader {
    fn spawn(mut reader: Box<dyn Read + Send>) -> io::Result<PortReader> {
        let (tx, events) = crossbeam_channel::unbounded();
        let quit = Arc::new(AtomicBool::new(false));
        let done = quit.clone();
        let thread = std::thread::Builder::new()
            .name("argus-client-line".into())
            .spawn(move || {
                let mut splitter = LineSplitter::new();
                let mut buf = vec![0u8; 4096];
                let mut last_byte = Instant::now();
                while !done.load(Ordering::SeqCst) {
                    let mut lines = Vec::new();
                    match reader.read(&mut buf) {
                        Ok(0) => {
                            let _ = tx.send(PortEvent::Closed);
                            return;
                        }
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
                            // A line whose terminator noise changed ends here, as noise.
                            if splitter.has_partial()
                                && last_byte.elapsed() >= STALLED_LINE
                                && let Some(Piece::Line(l)) = splitter.take_partial()
                            {
                                lines.push(l);
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                            let _ = tx.send(PortEvent::Closed);
                            return;
                        }
                        Err(e) => {
                            let _ = tx.send(PortEvent::Failed(e));
                            return;
                        }
                    }
                    for line in lines {
                        if tx.send(PortEvent::Line(line, last_byte)).is_err() {
                            return;
                        }
                    }
                }
            })?;
        Ok(PortReader {
            events,
            quit,
            thread: Some(thread),
        })
    }

    /// Stops the thread (within a read timeout) and waits for it.
    fn close(mut self) {
        self.quit.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            log::warn!("the line's reader thread panicked");
        }
    }
}

/// A line from the referee, read through the checksum extension.
struct Received {
    what: Incoming,
    /// When its last byte was read.
    at: Instant,
    /// The line as it came, for a report of noise.
    line: Vec<u8>,
    /// Noise to report with "noise from the referee": lost, and not reported by a
    /// request to send again (the checksum extension's `xagain`, a fault with a reason).
    report: bool,
}

/// When noise from the referee was last reported, and the noise that came too soon
/// after to be reported at once: how many lines, and the last of them.
#[derive(Default)]
struct NoiseReports {
    last: Option<Instant>,
    held: u32,
    held_what: Option<String>,
}

/// The client's end of the line: what it writes, and the checksum extension.
struct Link<'a> {
    writer: &'a mut (dyn Write + Send),
    opts: &'a ClientOptions,
    framing: Framing,
    events: Receiver<PortEvent>,
    noise: NoiseReports,
    /// The last line lost to noise, as a report names it.
    last_lost: String,
}

impl Link<'_> {
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

    /// Reads one line from the referee.
    fn receive(&mut self, line: Vec<u8>, at: Instant) -> Received {
        let what = self.framing.receive(&line);
        let mut report = false;
        if let Incoming::Lost(reason) = &what {
            self.last_lost = format!("{reason}: {}", excerpt(&line));
            report = !self.framing.asking();
        }
        Received {
            what,
            at,
            line,
            report,
        }
    }

    /// Seals and sends a record; returns the line as sent.
    fn send(&mut self, rec: &Record) -> Result<String, ClientError> {
        let line = self.framing.seal(rec.to_string());
        self.write(&line)?;
        Ok(line)
    }

    /// Writes a line as it is (a reply sent again).
    fn write(&mut self, line: &str) -> Result<(), ClientError> {
        write_line(self.writer, line, self.opts.eol).map_err(|e| self.io_err(e))
    }

    fn sign_on(&mut self, name: &str) -> Result<(), ClientError> {
        let mut sign_on = record(&Chess::default(), "sign_on");
        sign_on.set(
            "tcsi",
            vec![
                Operand::lossy_string(&self.opts.address),
                Operand::lossy_string(name),
            ],
        );
        self.send(&sign_on).map(drop)
    }

    /// Sends `refreq fault` with `why` in `c0`.
    fn fault(&mut self, pos: &Chess, why: &str) -> Result<(), ClientError> {
        let mut fault = record(pos, "fault");
        fault.set("c0", vec![Operand::lossy_string(why)]);
        self.send(&fault).map(drop)
    }

    /// Whether a report of noise may go now (and is then taken as sent).
    fn may_report_noise(&mut self, now: Instant) -> bool {
        let noise = &mut self.noise;
        if noise
            .last
            .is_some_and(|t| now.duration_since(t) < NOISE_REPORT_EVERY)
        {
            return false;
        }
        noise.last = Some(now);
        true
    }

    /// Shows the referee noise it sent (a line the client cannot read, or a record
    /// that makes no sense to it): `refreq fault` with "noise from the referee: WHAT",
    /// at most one every [`NOISE_REPORT_EVERY`]. Noise that comes sooner is held, and
    /// reported in one record when the time has come ([`Link::held_noise`]).
    fn report_noise(&mut self, pos: &Chess, what: &str) -> Result<(), ClientError> {
        if !self.may_report_noise(Instant::now()) {
            self.hold_noise(what);
            return Ok(());
        }
        let what = format!("noise from the referee: {what}");
        self.fault(pos, &what)
    }

    fn hold_noise(&mut self, what: &str) {
        self.noise.held = self.noise.held.saturating_add(1);
        self.noise.held_what = Some(what.to_string());
    }

    /// Reports the noise held back, once [`NOISE_REPORT_EVERY`] has passed since the
    /// last report: the last noisy line, and how many came with it.
    fn held_noise(&mut self, pos: &Chess) -> Result<(), ClientError> {
        if self.noise.held == 0 || !self.may_report_noise(Instant::now()) {
            return Ok(());
        }
        let held = std::mem::take(&mut self.noise.held);
        let what = self.noise.held_what.take().unwrap_or_default();
        let why = if held == 1 {
            format!("noise from the referee: {what}")
        } else {
            format!("noise from the referee: {held} noisy lines, the last: {what}")
        };
        self.fault(pos, &why)
    }

    /// What is due on the line at any moment: a request to send again, held noise.
    fn timers(&mut self, pos: &Chess) -> Result<(), ClientError> {
        self.ask_again(pos)?;
        self.held_noise(pos)
    }

    /// Asks the referee for the records noise took, when a request is due (a `fault`
    /// whose `c0` says why, with `xagain` and the first record number wanted).
    fn ask_again(&mut self, pos: &Chess) -> Result<(), ClientError> {
        let now = Instant::now();
        let Some(from) = self.framing.ask(now) else {
            return Ok(());
        };
        // A resynchronisation asked for noise on a line the referee does not seal is
        // the report of that noise, and as such is never sent more often than those: it
        // is held like them.
        if from == 0 && !self.may_report_noise(now) {
            let what = std::mem::take(&mut self.last_lost);
            self.hold_noise(&what);
            return Ok(());
        }
        let mut fault = record(pos, "fault");
        let why = if from == 0 {
            format!(
                "noise from the referee: {}; please resynchronise",
                std::mem::take(&mut self.last_lost)
            )
        } else {
            format!("noise on the line: please send again from record {from}")
        };
        fault.set("c0", vec![Operand::lossy_string(&why)]);
        fault.set(seal::AGAIN, vec![Operand::Integer(from as i64)]);
        log::info!("{why}");
        self.send(&fault).map(drop)
    }
}

/// A short, printable excerpt of a noisy line, in quotes.
fn excerpt(line: &[u8]) -> String {
    let text: String = line
        .iter()
        .take(NOISE_EXCERPT)
        .map(|&b| match b {
            b' '..=b'~' => char::from(b),
            _ => '?',
        })
        .collect();
    let more = if line.len() > NOISE_EXCERPT {
        "..."
    } else {
        ""
    };
    format!("\"{}{more}\"", text.trim())
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
    answered: Option<(String, String)>,
    /// Whether a record came from the referee (until then the client signs on again
    /// now and then).
    heard: bool,
    /// When the client last signed on.
    signed_on_at: Instant,
    /// Lines that came while the engine was busy, to be taken in order.
    pending: VecDeque<Received>,
    /// What ended the session while the engine was busy (the line failed).
    failure: Option<ClientError>,
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
                    Ok(PortEvent::Line(line, at)) => received = Some(self.link.receive(line, at)),
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
        if let Some(e) = self.failure.take() {
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
        self.link.sign_on(&self.name)
    }

    /// Acts on a line from the referee.
    fn take(&mut self, received: Received) -> Result<Next, ClientError> {
        match received.what {
            Incoming::Record(rec) => {
                // A fault does not say the sign_on arrived (the referee sends one to a
                // port it has not heard from): sign on again at once.
                if rec.refcom() == Some("fault") && !self.heard {
                    self.sign_on()?;
                } else {
                    self.heard = true;
                }
                self.handle(&rec, received.at)
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
            ..
        } = self;
        let engine: &mut dyn Engine = &mut **engine;
        let state: &State = state;
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
                        Ok(PortEvent::Line(line, at)) => {
                            let received = link.receive(line, at);
                            match &received.what {
                                Incoming::Record(rec) if rec.refcom() == Some("fault") => {
                                    show_fault(rec);
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
        log::error!("{error}; restarting the engine");
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
                if let Err(e) = self.engine_call(|engine, _| engine.new_game()) {
                    return self.recover(&e);
                }
            }
            Some("inform") => {
                self.state.inform(rec);
            }
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
                if !self.state.informed {
                    return self.missed_inform();
                }
                if let Err(why) = self.state.follow(rec) {
                    return self.unreconciled(&why);
                }
                let next = self.respond(rec)?;
                self.state.own_used += arrived.elapsed();
                return Ok(next);
            }
            Some("conclude") => {
                self.summary.games += 1;
                self.answered = None;
                let result = self.state.result.take();
                self.engine.game_over(result.as_deref());
                log::info!("game concluded: {}", result.as_deref().unwrap_or("*"));
            }
            Some("fault") => show_fault(rec),
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
        if rec.refcom() != Some("respond") || *answered != rec.to_string() {
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

    /// Answers a respond.
    fn respond(&mut self, rec: &Record) -> Result<Next, ClientError> {
        let clocks = self.state.clocks(rec);
        let draw_offered = rec.has("draw_offer");
        let thought = self.engine_call(move |engine, state| {
            engine.think(&Turn {
                position: &state.pos,
                start: &state.start,
                moves: &state.moves,
                clocks,
                draw_offered,
            })
        });
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
        let line = self.link.send(&reply)?;
        // A reply with a move or a resignation answers its respond for good; one
        // without (an accept or claim the referee may refuse) is asked anew.
        self.answered = (reply.has("sm") || reply.has("resign")).then(|| (rec.to_string(), line));
        Ok(Next::Continue)
    }
}
