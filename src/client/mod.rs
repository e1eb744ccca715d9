//! The client side of the protocol: a player that signs on to a referee, follows the
//! game from its records, and answers each `respond` with a `reply`.
//!
//! The protocol driver ([`run`]) is the same for every kind of player; what chooses the
//! move is an [`Engine`]. Today that is the built-in random mover; the adapters for UCI
//! and CECP engines and for a person at a keyboard implement the same trait.

pub mod random;

use std::io::{self, Read, Write};
use std::time::Duration;

use shakmaty::fen::Epd;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use crate::epd::{Operand, Record, resolve_move};
use crate::mediator::Eol;
use crate::transport::Duplex;
use crate::transport::lines::{LineSplitter, Piece};

/// What the engine is asked to decide on.
pub struct Turn<'a> {
    /// The position to move from.
    pub position: &'a Chess,
    /// The position the game (as far as the client knows it) started from.
    pub start: &'a Chess,
    /// The moves from `start` to `position`.
    pub moves: &'a [Move],
    /// Time consumed by White and Black, from the referee's `cc`.
    pub consumed: Option<[Duration; 2]>,
    /// The game's TimeControl tag, when the referee sent one.
    pub time_control: Option<&'a str>,
    /// Whether the opponent offered a draw with its last move.
    pub draw_offered: bool,
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
    /// The engine failed; the client reports a fault to the referee.
    #[error("engine: {0}")]
    Failed(String),
}

/// Something that chooses moves.
pub trait Engine {
    /// The engine's name, for `tcsi`.
    fn name(&self) -> String;
    /// A new game begins.
    fn new_game(&mut self) -> Result<(), EngineError> {
        Ok(())
    }
    /// Decide what to do on this turn.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError`] when the engine cannot answer.
    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError>;
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
}

/// What a client session came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientSummary {
    /// Games concluded.
    pub games: u32,
    /// Moves this client played.
    pub moves: u32,
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
}

struct State {
    start: Chess,
    pos: Chess,
    moves: Vec<Move>,
    time_control: Option<String>,
}

impl State {
    fn new() -> State {
        State {
            start: Chess::default(),
            pos: Chess::default(),
            moves: Vec::new(),
            time_control: None,
        }
    }

    /// Takes the record's position as current: keeps the history when it is the position
    /// already held, else starts a new history from it (EPD spec 8.1).
    fn sync(&mut self, rec: &Record) {
        let Ok(pos) = rec.setup().position::<Chess>(CastlingMode::Standard) else {
            log::warn!("the referee sent an impossible position: {}", rec.position);
            return;
        };
        if !same(&pos, &self.pos) {
            self.start = pos.clone();
            self.pos = pos;
            self.moves.clear();
        }
    }

    fn play_sm(&mut self, rec: &Record) {
        let Some(text) = rec
            .operands("sm")
            .and_then(|o| o.first())
            .and_then(Operand::as_move_text)
        else {
            return;
        };
        match resolve_move(&self.pos, text) {
            Ok(m) => {
                self.pos.play_unchecked(m);
                self.moves.push(m);
            }
            Err(e) => log::warn!("the referee's move {text}: {e}"),
        }
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

fn write_record(w: &mut dyn Write, rec: &Record, eol: Eol) -> io::Result<()> {
    let mut line = rec.to_string().into_bytes();
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

/// Signs on and plays until the referee says `disconnect`.
///
/// # Errors
///
/// Returns [`ClientError`] when the line fails or closes before `disconnect`.
pub fn run(
    duplex: Duplex,
    engine: &mut dyn Engine,
    opts: &ClientOptions,
) -> Result<ClientSummary, ClientError> {
    let Duplex {
        mut reader,
        mut writer,
    } = duplex;
    let io_err = |source| ClientError::Io {
        address: opts.address.clone(),
        source,
    };
    let name = opts.name.clone().unwrap_or_else(|| engine.name());
    let mut sign_on = record(&Chess::default(), "sign_on");
    sign_on.set(
        "tcsi",
        vec![
            Operand::Str(opts.address.replace('"', "'")),
            Operand::Str(name.replace('"', "'")),
        ],
    );
    write_record(writer.as_mut(), &sign_on, opts.eol).map_err(io_err)?;

    let mut state = State::new();
    let mut summary = ClientSummary::default();
    let mut splitter = LineSplitter::new();
    let mut buf = vec![0u8; 4096];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => {
                return Err(ClientError::HungUp {
                    address: opts.address.clone(),
                });
            }
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut
                        | io::ErrorKind::WouldBlock
                        | io::ErrorKind::Interrupted
                ) =>
            {
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                return Err(ClientError::HungUp {
                    address: opts.address.clone(),
                });
            }
            Err(e) => return Err(io_err(e)),
        };
        let mut lines = Vec::new();
        splitter.feed(&buf[..n], |p| {
            if let Piece::Line(l) = p {
                lines.push(l);
            }
        });
        for line in lines {
            let rec = match Record::from_ascii(&line) {
                Ok(rec) => rec,
                Err(e) => {
                    log::warn!("noise from the referee: {e}");
                    continue;
                }
            };
            match rec.refcom() {
                Some("reset") => {
                    state = State::new();
                    state.sync(&rec);
                    if let Err(e) = engine.new_game() {
                        log::error!("{e}");
                    }
                }
                Some("inform") => {
                    if let Some(ops) = rec.operands("ptp") {
                        for pair in ops.chunks(2) {
                            if let [tag, value] = pair
                                && tag.as_identifier() == Some("TimeControl")
                            {
                                state.time_control = value.as_str().map(str::to_string);
                            }
                        }
                    }
                }
                Some("execute") => {
                    state.sync(&rec);
                    state.play_sm(&rec);
                }
                Some("respond") => {
                    state.sync(&rec);
                    state.play_sm(&rec);
                    let consumed = rec.operands("cc").and_then(|ops| match ops {
                        [Operand::Clock(w), Operand::Clock(b)] => {
                            Some([w.to_duration(), b.to_duration()])
                        }
                        _ => None,
                    });
                    let turn = Turn {
                        position: &state.pos,
                        start: &state.start,
                        moves: &state.moves,
                        consumed,
                        time_control: state.time_control.as_deref(),
                        draw_offered: rec.has("draw_offer"),
                    };
                    let decision = engine.think(&turn);
                    let mut reply = record(&state.pos, "reply");
                    match decision {
                        Ok(Decision::Move {
                            mv,
                            offer_draw,
                            claim_draw,
                            analysis,
                        }) => {
                            let san = shakmaty::san::SanPlus::from_move(state.pos.clone(), mv);
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
                            state.pos.play_unchecked(mv);
                            state.moves.push(mv);
                            summary.moves += 1;
                        }
                        Ok(Decision::Resign) => reply.set("resign", vec![]),
                        Ok(Decision::AcceptDraw) => reply.set("draw_accept", vec![]),
                        Ok(Decision::ClaimDraw) => reply.set("draw_claim", vec![]),
                        Err(e) => {
                            log::error!("{e}");
                            reply = record(&state.pos, "fault");
                            reply.set("c0", vec![Operand::Str(e.to_string().replace('"', "'"))]);
                        }
                    }
                    write_record(writer.as_mut(), &reply, opts.eol).map_err(io_err)?;
                }
                Some("conclude") => {
                    summary.games += 1;
                    log::info!("game concluded");
                }
                Some("fault") => {
                    let why = rec
                        .operands("c0")
                        .and_then(|o| o.first())
                        .and_then(Operand::as_str)
                        .unwrap_or("no reason given");
                    log::warn!("the referee reports a fault: {why}");
                }
                Some("disconnect") => return Ok(summary),
                Some(other) => log::warn!("unknown refcom {other}"),
                None => log::warn!("a record without refcom from the referee"),
            }
        }
    }
}
