//! The CECP engine adapter: plays through a chess engine that speaks the Chess Engine
//! Communication Protocol (the xboard/WinBoard protocol, version 2 and the older
//! version 1), such as GNU Chess (`gnuchess --xboard`) and Fairy-Max.
//!
//! The adapter keeps no game state in the engine between turns. For every turn it sets
//! the engine up afresh: `new` and `force`, then `setboard` when the game did not start
//! from the standard position, then every move of the game so far (so that the engine
//! sees repetitions), then the time (`level`, `time` and `otim`, or `st` and `sd` for a
//! fixed [`Limit`]), a `draw` when the opponent offered one, and `go`. It reads the
//! engine's thinking output for the analysis of the reply (`ce`, `acd`, `acn`, `acs`,
//! `pv`) until the engine moves, resigns, claims a draw, or accepts the draw offered.
//! Every wait has a deadline; an engine that misses it is asked to move now (`?`) and
//! fails shortly after.
//!
//! Draws follow the protocol: an `offer draw` from the engine while the opponent's offer
//! stands accepts that offer ([`Decision::AcceptDraw`], sent as soon as it is seen);
//! otherwise it is an offer made with the engine's move. A `1/2-1/2` result before the
//! engine moves claims a draw without moving; one that follows its move claims the draw
//! with the move. An engine that announces its own loss without moving resigns; results
//! announced after a move (engines announce the mate they just gave) are left to the
//! referee.
//!
//! Time: with clocks the engine gets `level MPS BASE INC` (MPS counted so that the
//! engine, which counts the moves it was shown since `new`, finds the true moves to
//! go), then `time` and `otim` in centiseconds, and is asked to move
//! now once its remaining time plus a margin (2 s or a tenth of it) has passed. A move
//! time limit is `st` in whole seconds, rounded up, with 5 s of grace. CECP has no node
//! limit: a node limit is `nps N` with `st 1` when the engine announced `nps=1` (its
//! clock then counts nodes), else just `st 1`, with a warning at start. A depth limit is
//! `sd`, bounded by the clocks when there are any and by `st 30` otherwise (engines that
//! ignore `sd`, such as GNU Chess 6, then think for that long). Without clocks or limit
//! the engine gets `st 1`.
//!
//! Engines differ in how they print their move. Besides `move e2e4`, the adapter reads
//! the version 1 form `1. ... e2e4` (which is what GNU Chess 6 prints), `My move is :
//! e2e4`, and a line holding nothing but a legal move, in coordinates or SAN. Engines
//! with `ping` are synchronised with `ping`/`pong` before `go` (so that complaints about
//! the position arrive before the search) and after the move (so that a draw offer or
//! claim sent just after the move is seen with it); for engines without it, output left
//! over from the last turn is discarded before the next.
//!
//! The adapter never sends signals: an engine that wants SIGINT to notice `?` while it
//! thinks (Fairy-Max reads no input during a search) is only stopped by its own clock.
//! When the client leaves ([`Engine::quit`]) the engine gets `?` and `quit`, and is
//! killed when it has not quit within [`QUIT_GRACE`]; every wait for it ends as soon as
//! the client's [`Stop`] fires.

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use super::engine_process::{EngineProcess, QUIT_GRACE};
use super::{Decision, Engine, EngineError, Limit, Stop, Turn, TurnClocks};
use crate::epd::{Operand, resolve_move};

/// The features the adapter understands (and so accepts); it rejects any other, as the
/// protocol asks.
const KNOWN_FEATURES: &[&str] = &[
    "ping",
    "setboard",
    "playother",
    "san",
    "usermove",
    "time",
    "draw",
    "sigint",
    "sigterm",
    "reuse",
    "analyze",
    "myname",
    "variants",
    "colors",
    "ics",
    "name",
    "pause",
    "nps",
    "debug",
    "memory",
    "smp",
    "egt",
    "option",
    "exclude",
    "setscore",
    "highlight",
    "xedit",
    "done",
];

/// The type keywords of an `option` feature, which end the option's name.
const OPTION_TYPES: &[&str] = &[
    "-button", "-save", "-reset", "-check", "-string", "-spin", "-combo", "-slider", "-file",
    "-path",
];

/// How long an engine searches under a depth or node limit when no clock bounds it,
/// since CECP has no way to search without any time limit.
const LIMIT_TIME_CAP: Duration = Duration::from_secs(30);

/// The largest score (in centipawns) reported as a plain score; larger ones that are not
/// recognised as mates are clamped to it, so that they never read as EPD mate scores.
const MAX_PLAIN_SCORE: i64 = 30_000;

/// How many empty lines make one nudge of a silent engine at start-up.
///
/// GNU Chess 6.2 (Debian's 6.2.7) often deadlocks at start-up when its input is a pipe:
/// its input thread blocks in `fgets` holding the lock of `stdin` while its engine
/// thread waits for that lock (in `setbuf`), and nothing moves until input arrives. One
/// line rarely helps, because the input thread takes the lock again at once; a burst of
/// empty lines reliably lets the engine thread through. Engines ignore empty lines (GNU
/// Chess answers some of them with `Invalid move:`, which is skipped).
const NUDGE_LINES: usize = 50;

/// The EPD score of a mate in zero plies; a mate in `n` plies scores `MATE - n`.
const MATE: i64 = 32_767;

/// The waits of the adapter. The defaults suit real engines; the tests shorten them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    /// How long to wait for `feature done=1` after `protover 2` before taking the engine
    /// for a version 1 engine.
    pub features: Duration,
    /// How long to wait for an answer that needs no thought: `feature done=1` after
    /// `feature done=0`, and `pong` after `ping`.
    pub answer: Duration,
    /// The least time an engine gets beyond its remaining clock time before it is asked
    /// to move now; the margin is also at least a tenth of the remaining time.
    pub clock_margin: Duration,
    /// The time an engine gets beyond a fixed search time before it is asked to move now.
    pub fixed_margin: Duration,
    /// How long to wait for the move after asking for it with `?`.
    pub move_now: Duration,
    /// How long to wait for the `pong` that follows the engine's move and shows that the
    /// lines sent with the move (a draw offer or claim) have all arrived.
    pub after_move: Duration,
    /// How long to look for such lines after the move when the engine cannot `ping`.
    pub trailing: Duration,
    /// How long the engine may stay silent after `protover 2` before it gets a burst of
    /// empty lines, and again between bursts, until it announces a feature. GNU Chess 6
    /// can deadlock at start-up until more input arrives.
    pub nudge: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            features: Duration::from_secs(2),
            answer: Duration::from_secs(10),
            clock_margin: Duration::from_secs(2),
            fixed_margin: Duration::from_secs(5),
            move_now: Duration::from_secs(1),
            after_move: Duration::from_secs(1),
            trailing: Duration::from_millis(50),
            nudge: Duration::from_millis(250),
        }
    }
}

/// What the engine announced with `feature`, with the protocol's defaults.
#[derive(Clone, Debug)]
struct Features {
    myname: Option<String>,
    setboard: bool,
    usermove: bool,
    san: bool,
    ping: bool,
    sigint: bool,
    time: bool,
    draw: bool,
    reuse: bool,
    nps: bool,
    /// The names of the options the engine announced.
    options: Vec<String>,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            myname: None,
            setboard: false,
            usermove: false,
            san: false,
            ping: false,
            sigint: true,
            time: true,
            draw: true,
            reuse: true,
            nps: false,
            options: Vec::new(),
        }
    }
}

/// A CECP engine as a player.
pub struct XboardEngine {
    process: EngineProcess,
    command: String,
    options: Vec<(String, String)>,
    limit: Option<Limit>,
    timing: Timing,
    features: Features,
    /// The number of the last `ping` sent.
    pings: u32,
    /// The client's stop, which ends every wait for the engine.
    stop: Option<Stop>,
}

/// One line of the engine's output, as far as the adapter cares.
#[derive(Clone, Debug, PartialEq)]
enum Line {
    /// A move in one of the forms engines print; the text is the move alone.
    Move(String),
    /// A line of thinking output.
    Thinking(Thinking),
    /// `resign`.
    Resign,
    /// `offer draw`.
    OfferDraw,
    /// A game result the engine announces: `1-0`, `0-1`, `1/2-1/2` or `*`.
    Result(GameResult),
    /// `pong N`.
    Pong(u32),
    /// `feature ...`.
    Feature(Vec<(String, String)>),
    /// `Illegal move...`: the engine refused a move it was given.
    IllegalMove(String),
    /// `Error (...): COMMAND` or `Invalid move: COMMAND`: the engine refused a command;
    /// the text is the command.
    Error(String),
    /// Anything else: banners, debugging output, `tellics`, `telluser`.
    Other,
}

/// A result announced by the engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    Unknown,
}

/// A line of thinking output: `ply score time nodes pv...`.
#[derive(Clone, Debug, PartialEq)]
struct Thinking {
    /// The depth in plies.
    ply: u32,
    /// The score in centipawns from the side to move's point of view, as printed.
    score: i64,
    /// The time searched in centiseconds.
    centis: u64,
    /// The nodes searched.
    nodes: u64,
    /// The principal variation as printed.
    pv: String,
}

/// What the engine said before its move, collected while waiting for it.
#[derive(Default)]
struct Pending {
    offer_draw: bool,
    claim_draw: bool,
    thinking: Option<Thinking>,
}

/// The moves and commands of the current turn that the engine may complain about.
#[derive(Default)]
struct Sent {
    /// The moves as sent (without any `usermove` prefix).
    moves: Vec<String>,
}

impl Sent {
    /// Whether a complaint naming `command` concerns the position set up for the turn.
    fn concerns(&self, command: &str) -> bool {
        let command = command.trim();
        command.starts_with("setboard")
            || command.starts_with("usermove")
            || self.moves.iter().any(|m| m == command)
    }
}

impl XboardEngine {
    /// Starts the engine `command` and negotiates the protocol: `xboard`, `protover 2`,
    /// then the engine's `feature` lines until `feature done=1` (or 2 seconds without
    /// it, for version 1 engines). Each option `(NAME, VALUE)` of `options` is sent as
    /// `option NAME=VALUE` when the engine announced an option of that name, and logged
    /// as a warning otherwise. `limit` replaces the clocks when given.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Start`] when the engine cannot be started, exits, or does
    /// not answer `ping` in time.
    pub fn start(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
    ) -> Result<XboardEngine, EngineError> {
        XboardEngine::start_with(command, options, limit, Timing::default())
    }

    /// As [`XboardEngine::start`], with the waits of `timing`.
    ///
    /// # Errors
    ///
    /// As [`XboardEngine::start`].
    pub fn start_with(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
        timing: Timing,
    ) -> Result<XboardEngine, EngineError> {
        XboardEngine::launch(command, options, limit, timing, None)
    }

    /// Starts the engine, its waits ended by `stop`, and negotiates the protocol.
    fn launch(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
        timing: Timing,
        stop: Option<Stop>,
    ) -> Result<XboardEngine, EngineError> {
        let mut process = EngineProcess::spawn(command)?;
        if let Some(stop) = &stop {
            process.watch(stop);
        }
        let mut engine = XboardEngine {
            process,
            command: command.to_string(),
            options: options.to_vec(),
            limit,
            timing,
            features: Features::default(),
            pings: 0,
            stop,
        };
        engine.handshake().map_err(|e| match e {
            EngineError::Failed(reason) | EngineError::Timeout(reason) => EngineError::Start {
                command: command.to_string(),
                reason,
            },
            other @ (EngineError::Start { .. } | EngineError::Interrupted) => other,
        })?;
        Ok(engine)
    }

    /// Negotiates the features, sets the options and checks that the engine answers.
    fn handshake(&mut self) -> Result<(), EngineError> {
        self.process.send("xboard")?;
        self.process.send("protover 2")?;
        let started = Instant::now();
        let mut deadline = started + self.timing.features;
        let mut announced = false;
        loop {
            let now = Instant::now();
            if now >= deadline {
                if announced {
                    log::warn!(
                        "{}: no feature done=1; going on with the features announced",
                        self.command
                    );
                } else {
                    log::info!("{}: no features: a version 1 engine", self.command);
                }
                break;
            }
            // Until the engine announces anything, a burst of empty lines now and then
            // wakes an engine stuck at start-up (see NUDGE_LINES).
            let wait = if announced {
                deadline
            } else {
                deadline.min(now + self.timing.nudge)
            };
            match self.process.recv(wait) {
                Ok(line) => {
                    if let Line::Feature(features) = classify(&line) {
                        announced = true;
                        match self.features(&features)? {
                            Some(true) => break,
                            Some(false) => deadline = started + self.timing.answer,
                            None => {}
                        }
                    } else {
                        log::debug!("{}: {line}", self.command);
                    }
                }
                Err(e) if is_timeout(&e) => {
                    if !announced && Instant::now() < deadline {
                        self.process.send(&"\n".repeat(NUDGE_LINES - 1))?;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        self.set_options()?;
        if self.features.ping {
            let deadline = Instant::now() + self.timing.answer;
            let n = self.ping()?;
            self.process
                .recv_until(deadline, |l| classify(l) == Line::Pong(n))?;
        }
        if matches!(self.limit, Some(Limit::Nodes(_))) && !self.features.nps {
            log::warn!(
                "{}: CECP has no node limit and the engine announced no nps; it searches \
                 for one second per move",
                self.command
            );
        }
        Ok(())
    }

    /// Answers one `feature` line and remembers what matters. Returns `Some(true)` for
    /// `done=1`, `Some(false)` for `done=0`.
    fn features(&mut self, features: &[(String, String)]) -> Result<Option<bool>, EngineError> {
        let mut done = None;
        for (name, value) in features {
            let on = value == "1";
            let f = &mut self.features;
            match name.as_str() {
                "myname" => f.myname = Some(value.clone()),
                "setboard" => f.setboard = on,
                "usermove" => f.usermove = on,
                "san" => f.san = on,
                "ping" => f.ping = on,
                "sigint" => f.sigint = on,
                "time" => f.time = on,
                "draw" => f.draw = on,
                "reuse" => f.reuse = on,
                "nps" => f.nps = on,
                "option" => f.options.push(option_name(value).to_string()),
                "variants" if !value.split(',').any(|v| v.trim() == "normal") => {
                    log::warn!(
                        "{}: the engine plays no normal chess (variants {value})",
                        self.command
                    );
                }
                "done" => done = Some(on),
                _ => {}
            }
            let answer = if KNOWN_FEATURES.contains(&name.as_str()) {
                "accepted"
            } else {
                "rejected"
            };
            self.process.send(&format!("{answer} {name}"))?;
        }
        Ok(done)
    }

    /// Sends the options given at start for which the engine announced an option.
    fn set_options(&mut self) -> Result<(), EngineError> {
        for (name, value) in &self.options {
            let announced = self
                .features
                .options
                .iter()
                .find(|o| *o == name)
                .or_else(|| {
                    self.features
                        .options
                        .iter()
                        .find(|o| o.eq_ignore_ascii_case(name))
                });
            match announced {
                Some(option) if value.is_empty() => {
                    self.process.send(&format!("option {option}"))?;
                }
                Some(option) => self.process.send(&format!("option {option}={value}"))?,
                None => log::warn!(
                    "{}: the engine announced no option {name:?}; not set",
                    self.command
                ),
            }
        }
        Ok(())
    }

    /// Sends the next `ping` and returns its number.
    fn ping(&mut self) -> Result<u32, EngineError> {
        self.pings = self.pings.wrapping_add(1);
        self.process.send(&format!("ping {}", self.pings))?;
        Ok(self.pings)
    }

    /// Discards what the engine printed since the last turn (a move it sent after it was
    /// stopped, a duplicate `pong`, the end of its thinking output).
    fn drain(&mut self) {
        while let Ok(line) = self.process.recv(Instant::now()) {
            log::debug!("{}: stale: {line}", self.command);
        }
    }

    /// Sets up the turn's position: `new`, `force`, `setboard` when needed, and the
    /// game's moves.
    fn set_up(&mut self, turn: &Turn<'_>, sent: &mut Sent) -> Result<(), EngineError> {
        self.process.send("new")?;
        self.process.send("force")?;
        self.process.send("post")?;
        self.process.send("easy")?;
        if !is_standard_start(turn.start) {
            if !self.features.setboard {
                return Err(EngineError::Failed(format!(
                    "{}: engine cannot set up positions (it announced no setboard=1)",
                    self.name()
                )));
            }
            let fen = Fen::from_position(turn.start, EnPassantMode::Legal);
            self.process.send(&format!("setboard {fen}"))?;
        }
        let mut pos = turn.start.clone();
        for &mv in turn.moves {
            if !pos.is_legal(mv) {
                return Err(EngineError::Failed(format!(
                    "the game's move {mv} is illegal in its history"
                )));
            }
            let text = if self.features.san {
                SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string()
            } else {
                let uci = mv.to_uci(CastlingMode::Standard).to_string();
                pos.play_unchecked(mv);
                uci
            };
            if self.features.usermove {
                self.process.send(&format!("usermove {text}"))?;
            } else {
                self.process.send(&text)?;
            }
            sent.moves.push(text);
        }
        Ok(())
    }

    /// Sends the time controls of the turn and returns how long the engine may think
    /// before it is asked to move now.
    fn set_time(&mut self, turn: &Turn<'_>) -> Result<Duration, EngineError> {
        let side = turn.position.turn();
        let clocks = turn.clocks.as_ref();
        let own_moves = own_moves_played(turn);
        match self.limit {
            Some(Limit::MoveTime(time)) => {
                let secs = whole_seconds_up(time);
                self.process.send(&format!("st {secs}"))?;
                Ok(Duration::from_secs(secs) + self.timing.fixed_margin)
            }
            Some(Limit::Depth(depth)) => {
                self.process.send(&format!("sd {depth}"))?;
                match clocks {
                    Some(clocks) => self.send_clocks(clocks, side, own_moves),
                    None => {
                        self.process
                            .send(&format!("st {}", LIMIT_TIME_CAP.as_secs()))?;
                        Ok(LIMIT_TIME_CAP + self.timing.fixed_margin)
                    }
                }
            }
            Some(Limit::Nodes(nodes)) => {
                if self.features.nps {
                    // The engine's clock then counts nodes: one "second" is `nodes`.
                    self.process.send(&format!("nps {nodes}"))?;
                    self.process.send("st 1")?;
                    Ok(LIMIT_TIME_CAP + self.timing.fixed_margin)
                } else {
                    self.process.send("st 1")?;
                    Ok(Duration::from_secs(1) + self.timing.fixed_margin)
                }
            }
            None => match clocks {
                Some(clocks) => self.send_clocks(clocks, side, own_moves),
                None => {
                    self.process.send("st 1")?;
                    Ok(Duration::from_secs(1) + self.timing.fixed_margin)
                }
            },
        }
    }

    /// Sends `level`, `time` and `otim` for `side` to move, and returns the remaining
    /// time plus the margin.
    fn send_clocks(
        &mut self,
        clocks: &TurnClocks,
        side: Color,
        own_moves: u32,
    ) -> Result<Duration, EngineError> {
        self.process.send(&level_command(clocks, side, own_moves))?;
        let own = clocks.remaining[side];
        if self.features.time {
            self.process.send(&format!("time {}", centis(own)))?;
            self.process
                .send(&format!("otim {}", centis(clocks.remaining[!side])))?;
        }
        Ok(own + self.timing.clock_margin.max(own / 10))
    }

    /// Reads the lines up to `pong n` before `deadline`, failing on complaints about the
    /// position and returning early when the engine accepts the draw offered.
    fn sync(
        &mut self,
        n: u32,
        deadline: Instant,
        turn: &Turn<'_>,
        sent: &Sent,
    ) -> Result<Option<Decision>, EngineError> {
        loop {
            let line = self.process.recv(deadline)?;
            match classify(&line) {
                Line::Pong(m) if m == n => return Ok(None),
                Line::OfferDraw if turn.draw_offered => return Ok(Some(Decision::AcceptDraw)),
                Line::IllegalMove(text) => return Err(self.refused(&text)),
                Line::Error(command) if sent.concerns(&command) => {
                    return Err(self.refused(&command));
                }
                Line::Error(command) => {
                    log::warn!("{}: refused {command:?}", self.command);
                }
                Line::Feature(features) => {
                    self.features(&features)?;
                }
                _ => log::debug!("{}: {line}", self.command),
            }
        }
    }

    /// The error for an engine that refused the position or a move of the game.
    fn refused(&self, text: &str) -> EngineError {
        EngineError::Failed(format!(
            "{} refused the game's position or moves: {text}",
            self.name()
        ))
    }

    /// Waits for the engine's decision after `go`.
    fn wait_for_move(
        &mut self,
        turn: &Turn<'_>,
        sent: &Sent,
        budget: Duration,
    ) -> Result<Decision, EngineError> {
        let mut deadline = Instant::now() + budget;
        let mut hurried = false;
        let mut pending = Pending::default();
        let side = turn.position.turn();
        loop {
            let line = match self.process.recv(deadline) {
                Ok(line) => line,
                Err(e) if is_timeout(&e) && !hurried => {
                    log::warn!(
                        "{}: no move after {:.1} s; asking it to move now",
                        self.command,
                        budget.as_secs_f64()
                    );
                    self.process.send("?")?;
                    if self.features.sigint {
                        log::debug!(
                            "{}: the engine may need SIGINT to notice ?, which the adapter \
                             does not send",
                            self.command
                        );
                    }
                    hurried = true;
                    deadline = Instant::now() + self.timing.move_now;
                    continue;
                }
                Err(e) if is_timeout(&e) => {
                    return Err(EngineError::Failed(format!(
                        "{} made no move within {:.1} s",
                        self.name(),
                        (budget + self.timing.move_now).as_secs_f64()
                    )));
                }
                Err(e) => return Err(e),
            };
            let mut parsed = classify(&line);
            if parsed == Line::Other && is_bare_move(turn.position, &line) {
                parsed = Line::Move(line.trim().to_string());
            }
            match parsed {
                Line::Move(text) => {
                    let Ok(mv) = resolve_move(turn.position, &text) else {
                        return Err(EngineError::Failed(format!(
                            "{} played an illegal move {text:?}",
                            self.name()
                        )));
                    };
                    self.after_move(&mut pending)?;
                    let analysis = pending
                        .thinking
                        .as_ref()
                        .map(|t| analysis(turn.position, t))
                        .unwrap_or_default();
                    return Ok(Decision::Move {
                        mv,
                        offer_draw: pending.offer_draw,
                        claim_draw: pending.claim_draw,
                        analysis,
                    });
                }
                Line::Thinking(t) => pending.thinking = Some(t),
                Line::Resign => return self.stop(Decision::Resign),
                Line::OfferDraw if turn.draw_offered => return self.stop(Decision::AcceptDraw),
                Line::OfferDraw => pending.offer_draw = true,
                Line::Result(GameResult::Draw) => return self.stop(Decision::ClaimDraw),
                Line::Result(r @ (GameResult::WhiteWins | GameResult::BlackWins)) => {
                    let own_loss = (r == GameResult::WhiteWins) == (side == Color::Black);
                    if own_loss {
                        return self.stop(Decision::Resign);
                    }
                    log::warn!(
                        "{}: claims a win without moving: {line}; ignored",
                        self.command
                    );
                }
                Line::IllegalMove(text) => return Err(self.refused(&text)),
                Line::Error(command) if sent.concerns(&command) => {
                    return Err(self.refused(&command));
                }
                Line::Error(command) => {
                    log::warn!("{}: refused {command:?}", self.command);
                }
                Line::Feature(features) => {
                    self.features(&features)?;
                }
                Line::Result(GameResult::Unknown) | Line::Pong(_) | Line::Other => {
                    log::debug!("{}: {line}", self.command);
                }
            }
        }
    }

    /// Stops the engine's search (it may still be thinking) and returns `decision`.
    fn stop(&mut self, decision: Decision) -> Result<Decision, EngineError> {
        if let Err(e) = self.process.send("force") {
            log::warn!("{}: {e}", self.command);
        }
        Ok(decision)
    }

    /// Collects what the engine sends right after its move: a draw offer or claim that
    /// goes with it. With `ping` it reads up to the `pong`; without, for a short while.
    fn after_move(&mut self, pending: &mut Pending) -> Result<(), EngineError> {
        let ping = if self.features.ping {
            Some(self.ping()?)
        } else {
            None
        };
        let deadline = Instant::now()
            + if ping.is_some() {
                self.timing.after_move
            } else {
                self.timing.trailing
            };
        loop {
            let line = match self.process.recv(deadline) {
                Ok(line) => line,
                Err(e) if is_timeout(&e) => {
                    if ping.is_some() {
                        log::warn!("{}: no pong after its move", self.command);
                    }
                    return Ok(());
                }
                // The move is there; a failure shows at the next turn.
                Err(e) => {
                    log::warn!("{e}");
                    return Ok(());
                }
            };
            match classify(&line) {
                Line::Pong(n) if Some(n) == ping => return Ok(()),
                Line::OfferDraw => pending.offer_draw = true,
                Line::Result(GameResult::Draw) => pending.claim_draw = true,
                _ => log::debug!("{}: after the move: {line}", self.command),
            }
        }
    }
}

impl Engine for XboardEngine {
    fn name(&self) -> String {
        if let Some(name) = &self.features.myname {
            return name.clone();
        }
        let program = self
            .command
            .split_whitespace()
            .next()
            .unwrap_or(&self.command)
            .trim_matches('"');
        std::path::Path::new(program)
            .file_name()
            .map_or_else(|| program.to_string(), |n| n.to_string_lossy().into_owned())
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        if !self.features.reuse {
            // The engine asked to be started afresh for every game.
            return self.restart();
        }
        self.process.send("new")?;
        self.process.send("force")
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        self.drain();
        let mut sent = Sent::default();
        self.set_up(turn, &mut sent)?;
        let budget = self.set_time(turn)?;
        if turn.draw_offered && self.features.draw {
            self.process.send("draw")?;
        }
        if self.features.ping {
            let deadline = Instant::now() + self.timing.answer;
            let n = self.ping()?;
            if let Some(decision) = self.sync(n, deadline, turn, &sent)? {
                return Ok(decision);
            }
        }
        self.process.send("go")?;
        self.wait_for_move(turn, &sent, budget)
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        self.process.kill();
        let fresh = XboardEngine::launch(
            &self.command,
            &self.options,
            self.limit,
            self.timing,
            self.stop.clone(),
        )?;
        *self = fresh;
        Ok(())
    }

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
        self.process.watch(stop);
    }

    fn quit(&mut self) {
        self.process.quit(&["?", "quit"], QUIT_GRACE);
    }

    fn game_over(&mut self, result: Option<&str>) {
        if let Some(result) = result
            && let Err(e) = self.process.send(&format!("result {result} {{argus}}"))
        {
            log::warn!("{e}");
            return;
        }
        if let Err(e) = self.process.send("force") {
            log::warn!("{e}");
        }
    }
}

impl Drop for XboardEngine {
    fn drop(&mut self) {
        // The process is killed when it is dropped; `quit` lets a quick engine go first.
        let _ = self.process.send("quit");
    }
}

/// Whether an error of [`EngineProcess::recv`] is a timeout (rather than an engine that
/// is gone).
fn is_timeout(e: &EngineError) -> bool {
    matches!(e, EngineError::Timeout(_))
}

/// Whether `pos` is the standard starting position, which needs no `setboard`.
fn is_standard_start(pos: &Chess) -> bool {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
        == Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string()
}

/// The moves the side to move made in the turn's history: the plies alternate sides
/// and end with the other side's, so it made half of them, rounded down.
fn own_moves_played(turn: &Turn<'_>) -> u32 {
    u32::try_from(turn.moves.len() / 2).unwrap_or(u32::MAX)
}

/// The `level MPS BASE INC` command for `side` to move.
///
/// CECP engines count the moves of a period themselves, from the moves they were shown
/// since `new`, so MPS is the moves the side already made in the history plus its
/// `moves_to_go`: the engine then finds exactly `moves_to_go` moves left. It is 0 (all
/// the remaining moves) without a move count. BASE is the side's remaining time (the
/// engine learns the exact figure from `time`), INC its increment in seconds.
fn level_command(clocks: &TurnClocks, side: Color, own_moves: u32) -> String {
    let mps = clocks
        .moves_to_go
        .map_or(0, |n| n.saturating_add(own_moves));
    format!(
        "level {mps} {} {}",
        base_text(clocks.remaining[side]),
        seconds_text(clocks.increment[side])
    )
}

/// A time as `level` reads its base: whole minutes, or `M:SS`; at least one second.
fn base_text(time: Duration) -> String {
    let secs = time.as_secs().max(1);
    if secs.is_multiple_of(60) {
        format!("{}", secs / 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// A time in seconds, with up to three decimals when it is not whole.
fn seconds_text(time: Duration) -> String {
    if time.subsec_millis() == 0 {
        format!("{}", time.as_secs())
    } else {
        let text = format!("{}.{:03}", time.as_secs(), time.subsec_millis());
        text.trim_end_matches('0').to_string()
    }
}

/// A time in whole centiseconds, rounded down.
fn centis(time: Duration) -> u128 {
    time.as_millis() / 10
}

/// A time in whole seconds, rounded up, at least one.
fn whole_seconds_up(time: Duration) -> u64 {
    let secs = time.as_secs() + u64::from(time.subsec_nanos() > 0);
    secs.max(1)
}

/// The name of an option from its `option` feature: the text before its type keyword
/// (`Resign Threshold -spin 800 200 1200` is `Resign Threshold`).
fn option_name(value: &str) -> &str {
    let mut end = value.len();
    for kind in OPTION_TYPES {
        let mut from = 0;
        while let Some(i) = value[from..].find(kind) {
            let at = from + i;
            let after = value[at + kind.len()..].chars().next();
            let before_ok = at > 0 && value[..at].ends_with(' ');
            if before_ok && after.is_none_or(char::is_whitespace) {
                end = end.min(at);
                break;
            }
            from = at + kind.len();
        }
    }
    value[..end].trim()
}

/// Reads the `name=value` pairs of a `feature` line; a value may be double-quoted.
fn parse_features(rest: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut s = rest.trim_start();
    while !s.is_empty() {
        let Some(eq) = s.find('=') else { break };
        let name = s[..eq].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            break;
        }
        let after = &s[eq + 1..];
        let (value, rest) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        pairs.push((name.to_string(), value.to_string()));
        s = rest.trim_start();
    }
    pairs
}

/// Classifies a line of the engine's output (a bare move is recognised by the caller,
/// which knows the position).
fn classify(line: &str) -> Line {
    let text = line.trim();
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    let second = words.next();
    let third = words.next();
    if first == "move" {
        return match second {
            Some(mv) => Line::Move(mv.to_string()),
            None => Line::Other,
        };
    }
    // The version 1 form `12. ... e2e4`.
    if let (Some("..."), Some(mv)) = (second, third)
        && let Some(number) = first.strip_suffix('.')
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
    {
        return Line::Move(mv.to_string());
    }
    if let Some(rest) = text.strip_prefix("My move is") {
        let rest = rest.trim_start().trim_start_matches(':');
        return match rest.split_whitespace().next() {
            Some(mv) => Line::Move(mv.to_string()),
            None => Line::Other,
        };
    }
    if text == "resign" {
        return Line::Resign;
    }
    if text == "offer draw" || text.starts_with("offer draw ") {
        return Line::OfferDraw;
    }
    let result = match first {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        "*" => Some(GameResult::Unknown),
        _ => None,
    };
    if let Some(result) = result {
        return Line::Result(result);
    }
    if first == "pong" {
        return match second.and_then(|n| n.parse().ok()) {
            Some(n) => Line::Pong(n),
            None => Line::Other,
        };
    }
    if first == "feature" {
        return Line::Feature(parse_features(&text["feature".len()..]));
    }
    if text.starts_with("Illegal move") {
        return Line::IllegalMove(text.to_string());
    }
    if text.starts_with("Error") || text.starts_with("Invalid move") {
        let command = text.split_once(':').map_or("", |(_, c)| c.trim());
        return Line::Error(command.to_string());
    }
    if let Some(thinking) = parse_thinking(text) {
        return Line::Thinking(thinking);
    }
    Line::Other
}

/// Reads a line of thinking output: `ply score time nodes pv...`. The newer form may
/// put more numbers (selective depth, speed, table base hits) and a tab before the
/// principal variation; they are skipped, since no move is a plain number.
fn parse_thinking(text: &str) -> Option<Thinking> {
    let mut words = text.split_whitespace().peekable();
    let ply = words.next()?.parse().ok()?;
    let score = words.next()?.parse().ok()?;
    let centis = words.next()?.parse().ok()?;
    let nodes = words.next()?.parse().ok()?;
    while words.next_if(|w| w.parse::<u64>().is_ok()).is_some() {}
    let pv = words.collect::<Vec<_>>().join(" ");
    Some(Thinking {
        ply,
        score,
        centis,
        nodes,
        pv,
    })
}

/// Whether `line` is nothing but a legal move of `pos` (how some old engines move).
fn is_bare_move(pos: &Chess, line: &str) -> bool {
    let text = line.trim();
    !text.is_empty() && !text.contains(char::is_whitespace) && resolve_move(pos, text).is_ok()
}

/// Whether a word of a principal variation is a move number (`12.`, `12...`, `...`).
fn is_move_number(word: &str) -> bool {
    let digits = word.trim_end_matches('.');
    word.ends_with('.') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The analysis operations for a reply from the engine's last thinking line: `ce`,
/// `acd`, `acn`, `acs` and, when any of it can be read, `pv` in SAN.
fn analysis(pos: &Chess, thinking: &Thinking) -> Vec<(String, Vec<Operand>)> {
    let mut line = pos.clone();
    let mut pv = Vec::new();
    for word in thinking.pv.split_whitespace() {
        if is_move_number(word) {
            continue;
        }
        match resolve_move(&line, word) {
            Ok(mv) => pv.push(Operand::Move(
                SanPlus::from_move_and_play_unchecked(&mut line, mv).to_string(),
            )),
            Err(_) => break,
        }
    }
    let mate_plies = (!pv.is_empty() && line.is_checkmate()).then_some(pv.len());
    let int = |n: i64| vec![Operand::Integer(n)];
    let big = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut ops = vec![
        ("ce".to_string(), int(epd_score(thinking.score, mate_plies))),
        ("acd".to_string(), int(i64::from(thinking.ply))),
        ("acn".to_string(), int(big(thinking.nodes))),
        ("acs".to_string(), int(big(thinking.centis / 100))),
    ];
    if !pv.is_empty() {
        ops.push(("pv".to_string(), pv));
    }
    ops
}

/// The EPD score (`ce`) of an engine's score: centipawns from the side to move's point
/// of view, with mates as `32767 - N` for a mate in N plies and `-(32767 - N)` for
/// being mated in N plies.
///
/// A mate is recognised from the principal variation when it ends in mate (`mate_plies`)
/// and the score agrees on who mates, else from the protocol's convention of
/// `100000 + N` for a mate in N moves (and `-100000 - N` for being mated in N moves).
/// Other scores are clamped to ±30000 so that they never read as mates.
fn epd_score(score: i64, mate_plies: Option<usize>) -> i64 {
    if let Some(plies) = mate_plies.and_then(|p| i64::try_from(p).ok()) {
        let we_mate = plies % 2 == 1;
        if we_mate && score > 0 {
            return MATE - plies;
        }
        if !we_mate && score < 0 {
            return -(MATE - plies);
        }
    }
    let magnitude = score.saturating_abs();
    if (100_000..=100_000 + 10_000).contains(&magnitude) {
        let moves = (magnitude - 100_000).max(1);
        return if score > 0 {
            MATE - (2 * moves - 1)
        } else {
            -(MATE - 2 * moves)
        };
    }
    score.clamp(-MAX_PLAIN_SCORE, MAX_PLAIN_SCORE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::ByColor;
    use shakmaty::uci::UciMove;
    use std::path::{Path, PathBuf};

    fn fast() -> Timing {
        Timing {
            features: Duration::from_millis(500),
            answer: Duration::from_secs(3),
            clock_margin: Duration::from_millis(200),
            fixed_margin: Duration::from_millis(300),
            move_now: Duration::from_millis(200),
            after_move: Duration::from_secs(1),
            trailing: Duration::from_millis(200),
            nudge: Duration::from_millis(100),
        }
    }

    /// A fake engine: a shell script that logs every line it reads to `log`, answers
    /// `protover` with `features`, `ping N` with `pong N`, and runs `on_go` on `go` and
    /// `on_draw` on `draw`.
    struct Fake {
        _dir: tempfile::TempDir,
        command: String,
        log: PathBuf,
    }

    impl Fake {
        fn new(features: &str, on_go: &str) -> Fake {
            Fake::with(features, on_go, ":")
        }

        fn with(features: &str, on_go: &str, on_draw: &str) -> Fake {
            let dir = tempfile::tempdir().unwrap();
            let log = dir.path().join("log");
            let script = dir.path().join("fake-engine");
            let protover = if features.is_empty() {
                ":".to_string()
            } else {
                format!("printf '%s\\n' '{features}'")
            };
            let text = format!(
                "#!/bin/sh\n\
                 while IFS= read -r line; do\n\
                 printf '%s\\n' \"$line\" >> '{log}'\n\
                 case \"$line\" in\n\
                 protover*) {protover} ;;\n\
                 ping*) echo \"pong ${{line#ping }}\" ;;\n\
                 go) {on_go} ;;\n\
                 draw) {on_draw} ;;\n\
                 quit) exit 0 ;;\n\
                 esac\n\
                 done\n",
                log = log.display(),
            );
            std::fs::write(&script, text).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            Fake {
                command: script.display().to_string(),
                log,
                _dir: dir,
            }
        }

        fn start(&self) -> XboardEngine {
            self.start_with(&[], None)
        }

        fn start_with(&self, options: &[(String, String)], limit: Option<Limit>) -> XboardEngine {
            XboardEngine::start_with(&self.command, options, limit, fast()).unwrap()
        }

        fn lines(&self) -> Vec<String> {
            read_lines(&self.log)
        }
    }

    fn read_lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    const V2: &str = "feature myname=\"Fake 1.0\" setboard=1 usermove=1 ping=1 done=1";

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// The position after `moves` (coordinates) from `start`, and the moves.
    fn play(start: &Chess, moves: &[&str]) -> (Chess, Vec<shakmaty::Move>) {
        let mut pos = start.clone();
        let mut played = Vec::new();
        for text in moves {
            let mv = text.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
            played.push(mv);
        }
        (pos, played)
    }

    fn turn<'a>(
        start: &'a Chess,
        pos: &'a Chess,
        moves: &'a [shakmaty::Move],
        clocks: Option<TurnClocks>,
    ) -> Turn<'a> {
        Turn {
            position: pos,
            start,
            moves,
            clocks,
            draw_offered: false,
        }
    }

    /// Waits until the engine has read everything sent so far: it reads its input in
    /// order, so its `pong` shows that.
    fn settle(engine: &mut XboardEngine) {
        let n = engine.ping().unwrap();
        let deadline = Instant::now() + Duration::from_secs(3);
        engine
            .process
            .recv_until(deadline, |l| classify(l) == Line::Pong(n))
            .unwrap();
    }

    fn uci(pos: &Chess, text: &str) -> shakmaty::Move {
        text.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    #[test]
    fn negotiates_features_and_options() {
        let fake = Fake::new(
            "feature myname=\"Fake Engine 1.0\" setboard=1 usermove=1 ping=1 \
             option=\"Hash -spin 16 1 1024\" option=\"Resign Threshold -spin 800 200 1200\" \
             foo=1 done=1",
            ":",
        );
        let engine = fake.start_with(
            &[
                ("Hash".to_string(), "64".to_string()),
                ("resign threshold".to_string(), "300".to_string()),
                ("Missing".to_string(), "1".to_string()),
            ],
            None,
        );
        assert_eq!(engine.name(), "Fake Engine 1.0");
        assert!(engine.features.setboard && engine.features.usermove && engine.features.ping);
        assert!(!engine.features.san);
        drop(engine);
        let lines = fake.lines();
        for expected in [
            "xboard",
            "protover 2",
            "accepted myname",
            "accepted setboard",
            "accepted usermove",
            "accepted ping",
            "accepted option",
            "rejected foo",
            "accepted done",
            "option Hash=64",
            "option Resign Threshold=300",
            "ping 1",
        ] {
            assert!(lines.iter().any(|l| l == expected), "{expected}: {lines:?}");
        }
        assert!(!lines.iter().any(|l| l.contains("Missing")), "{lines:?}");
    }

    #[test]
    fn reads_feature_lines() {
        assert_eq!(
            parse_features(r#" myname="Fairy-Max 5.0b" setboard=0 ping=1 done=0"#),
            vec![
                ("myname".to_string(), "Fairy-Max 5.0b".to_string()),
                ("setboard".into(), "0".into()),
                ("ping".into(), "1".into()),
                ("done".into(), "0".into()),
            ]
        );
        assert_eq!(
            option_name("Resign Threshold -spin 800 200 1200"),
            "Resign Threshold"
        );
        assert_eq!(option_name("Clear Hash -button"), "Clear Hash");
        assert_eq!(
            option_name("Ini File -file /usr/share/fmax.ini"),
            "Ini File"
        );
        assert_eq!(option_name("Plain"), "Plain");
    }

    #[test]
    fn a_version_1_engine_is_named_after_its_file() {
        let fake = Fake::new("", "echo '1. ... e2e4'");
        let mut engine = fake.start();
        assert_eq!(engine.name(), "fake-engine");
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert_eq!(
            decision,
            Decision::Move {
                mv: uci(&start, "e2e4"),
                offer_draw: false,
                claim_draw: false,
                analysis: vec![],
            }
        );
        let lines = fake.lines();
        // It was nudged with empty lines while it said nothing, and got bare moves.
        assert!(lines.iter().any(String::is_empty), "{lines:?}");
        assert!(lines.iter().any(|l| l == "st 1"), "{lines:?}");
    }

    #[test]
    fn sends_the_position_history_and_clocks() {
        let fake = Fake::new(V2, "echo 'move e8g8'");
        let mut engine = fake.start();
        let start = position("r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 4 10");
        let (pos, moves) = play(&start, &["e1g1", "d7d6", "a2a4"]);
        let clocks = TurnClocks {
            remaining: ByColor {
                white: Duration::from_millis(95_500),
                black: Duration::from_millis(61_230),
            },
            increment: ByColor {
                white: Duration::from_secs(2),
                black: Duration::from_millis(1500),
            },
            moves_to_go: Some(12),
        };
        let decision = engine
            .think(&turn(&start, &pos, &moves, Some(clocks)))
            .unwrap();
        let Decision::Move { mv, .. } = decision else {
            panic!("{decision:?}")
        };
        assert_eq!(mv, uci(&pos, "e8g8"));
        let lines = fake.lines();
        let from = lines.iter().rposition(|l| l == "new").unwrap();
        assert_eq!(
            lines[from..from + 14],
            [
                "new",
                "force",
                "post",
                "easy",
                "setboard r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 4 10",
                "usermove e1g1",
                "usermove d7d6",
                "usermove a2a4",
                // Black made one move of the history: 1 + 12 moves to go.
                "level 13 1:01 1.5",
                "time 6123",
                "otim 9550",
                "ping 2",
                "go",
                "ping 3",
            ]
        );
    }

    #[test]
    fn sends_san_and_bare_moves_and_limits() {
        let fake = Fake::new("feature san=1 done=1", "echo 'move Nf6'");
        let mut engine = fake.start_with(&[], Some(Limit::MoveTime(Duration::from_millis(1500))));
        let start = Chess::default();
        let (pos, moves) = play(&start, &["e2e4"]);
        engine.think(&turn(&start, &pos, &moves, None)).unwrap();
        let lines = fake.lines();
        assert!(lines.iter().any(|l| l == "e4"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "st 2"), "{lines:?}");
        assert!(
            !lines.iter().any(|l| l.starts_with("setboard")),
            "{lines:?}"
        );

        let fake = Fake::new("feature done=1", "echo 'move g8f6'");
        let mut engine = fake.start_with(&[], Some(Limit::Depth(7)));
        engine.think(&turn(&start, &pos, &moves, None)).unwrap();
        let lines = fake.lines();
        assert!(lines.iter().any(|l| l == "e2e4"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "sd 7"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "st 30"), "{lines:?}");
    }

    #[test]
    fn cannot_set_up_without_setboard() {
        let fake = Fake::new("feature setboard=0 done=1", "echo 'move e2e4'");
        let mut engine = fake.start();
        let start = position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        let err = engine.think(&turn(&start, &start, &[], None)).unwrap_err();
        assert!(err.to_string().contains("cannot set up positions"), "{err}");
    }

    #[test]
    fn reads_thinking_output_into_analysis() {
        let fake = Fake::new(
            V2,
            "echo ' 4     20       5       900 e2e4 e7e5'; \
             echo '5 +35 120 15400 1. e2e4 e7e5 2. Ng1f3 (book)'; \
             echo 'move e2e4'",
        );
        let mut engine = fake.start();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        let Decision::Move { mv, analysis, .. } = decision else {
            panic!("{decision:?}")
        };
        assert_eq!(mv, uci(&start, "e2e4"));
        assert_eq!(
            analysis,
            vec![
                ("ce".to_string(), vec![Operand::Integer(35)]),
                ("acd".to_string(), vec![Operand::Integer(5)]),
                ("acn".to_string(), vec![Operand::Integer(15400)]),
                ("acs".to_string(), vec![Operand::Integer(1)]),
                (
                    "pv".to_string(),
                    vec![
                        Operand::Move("e4".into()),
                        Operand::Move("e5".into()),
                        Operand::Move("Nf3".into()),
                    ]
                ),
            ]
        );
    }

    #[test]
    fn classifies_lines() {
        assert_eq!(classify("move e2e4"), Line::Move("e2e4".into()));
        assert_eq!(classify("1. ... g1f3"), Line::Move("g1f3".into()));
        assert_eq!(classify("My move is : g1f3"), Line::Move("g1f3".into()));
        assert_eq!(classify("1. e7e5"), Line::Other);
        assert_eq!(classify("resign"), Line::Resign);
        assert_eq!(classify("offer draw"), Line::OfferDraw);
        assert_eq!(
            classify("1/2-1/2 {Draw by repetition}"),
            Line::Result(GameResult::Draw)
        );
        assert_eq!(
            classify("1-0 {White mates}"),
            Line::Result(GameResult::WhiteWins)
        );
        assert_eq!(classify("pong 12"), Line::Pong(12));
        assert_eq!(
            classify("Illegal move (no such piece): e2e5"),
            Line::IllegalMove("Illegal move (no such piece): e2e5".into())
        );
        assert_eq!(
            classify("Error (unknown command): setboard"),
            Line::Error("setboard".into())
        );
        assert_eq!(classify("Invalid move: sd 4"), Line::Error("sd 4".into()));
        assert_eq!(classify("tellics say     Fairy-Max 5.0b"), Line::Other);
        assert_eq!(classify("# times @ 13403513"), Line::Other);
        assert_eq!(
            classify("12\t-35\t250\t123456\t17\t500000\t0\tNf3 Nc6"),
            Line::Thinking(Thinking {
                ply: 12,
                score: -35,
                centis: 250,
                nodes: 123_456,
                pv: "Nf3 Nc6".into(),
            })
        );
        assert_eq!(
            parse_thinking("12 -35 250 123456 1. Nf3 Nc6").map(|t| t.pv),
            Some("1. Nf3 Nc6".into())
        );
        assert_eq!(parse_thinking("12 -35 250"), None);
        let start = Chess::default();
        assert!(is_bare_move(&start, "e2e4"));
        assert!(is_bare_move(&start, " Nf3 "));
        assert!(!is_bare_move(&start, "e2e5"));
        assert!(!is_bare_move(&start, "Chess"));
    }

    #[test]
    fn scores_mates_in_the_epd_convention() {
        assert_eq!(epd_score(35, None), 35);
        assert_eq!(epd_score(-50_000, None), -30_000);
        // Fairy-Max: 100000 + N for a mate in N moves.
        assert_eq!(epd_score(100_001, None), 32_766);
        assert_eq!(epd_score(100_003, None), 32_762);
        assert_eq!(epd_score(-100_002, None), -32_763);
        // GNU Chess prints 9999 with a principal variation that ends in mate.
        assert_eq!(epd_score(9999, Some(1)), 32_766);
        assert_eq!(epd_score(-9999, Some(4)), -32_763);
        assert_eq!(epd_score(9999, Some(2)), 9999);
        let pos = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        let t = parse_thinking("40 +9999 200 5860000 Ra8#").unwrap();
        let ops = analysis(&pos, &t);
        assert_eq!(ops[0], ("ce".to_string(), vec![Operand::Integer(32_766)]));
        assert_eq!(ops[3], ("acs".to_string(), vec![Operand::Integer(2)]));
        assert_eq!(
            ops[4],
            ("pv".to_string(), vec![Operand::Move("Ra8#".into())])
        );
    }

    #[test]
    fn formats_time_controls() {
        let clocks = TurnClocks {
            remaining: ByColor {
                white: Duration::from_secs(300),
                black: Duration::from_millis(59_990),
            },
            increment: ByColor {
                white: Duration::ZERO,
                black: Duration::from_millis(250),
            },
            moves_to_go: None,
        };
        assert_eq!(level_command(&clocks, Color::White, 7), "level 0 5 0");
        assert_eq!(level_command(&clocks, Color::Black, 7), "level 0 0:59 0.25");
        assert_eq!(base_text(Duration::from_millis(300)), "0:01");
        assert_eq!(seconds_text(Duration::from_millis(1500)), "1.5");
        assert_eq!(whole_seconds_up(Duration::from_millis(1001)), 2);
        assert_eq!(whole_seconds_up(Duration::from_millis(10)), 1);
        assert_eq!(centis(Duration::from_millis(61_239)), 6123);
    }

    #[test]
    fn resigns() {
        let fake = Fake::new(V2, "echo resign");
        let mut engine = fake.start();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert_eq!(decision, Decision::Resign);
    }

    #[test]
    fn announcing_its_own_loss_resigns_and_a_win_is_ignored() {
        // White to move announces 1-0 (ignored), then 0-1: its own loss.
        let fake = Fake::new(V2, "echo '1-0 {nonsense}'; echo '0-1 {White resigns}'");
        let mut engine = fake.start();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert_eq!(decision, Decision::Resign);
    }

    #[test]
    fn offers_a_draw_with_its_move() {
        let fake = Fake::new(V2, "echo 'offer draw'; echo 'move d2d4'");
        let mut engine = fake.start();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert_eq!(
            decision,
            Decision::Move {
                mv: uci(&start, "d2d4"),
                offer_draw: true,
                claim_draw: false,
                analysis: vec![],
            }
        );
        // An offer right after the move goes with it too.
        let fake = Fake::new(V2, "echo 'move d2d4'; sleep 0.1; echo 'offer draw'");
        let mut engine = fake.start();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert!(
            matches!(
                decision,
                Decision::Move {
                    offer_draw: true,
                    ..
                }
            ),
            "{decision:?}"
        );
    }

    #[test]
    fn claims_draws_with_and_without_moving() {
        let fake = Fake::new(V2, "echo '1/2-1/2 {Draw by repetition}'");
        let mut engine = fake.start();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert_eq!(decision, Decision::ClaimDraw);
        settle(&mut engine);
        assert_eq!(
            fake.lines().iter().rev().nth(1).map(String::as_str),
            Some("force")
        );

        let fake = Fake::new(V2, "echo 'move g1f3'; echo '1/2-1/2 {Draw by repetition}'");
        let mut engine = fake.start();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert!(
            matches!(
                decision,
                Decision::Move {
                    claim_draw: true,
                    offer_draw: false,
                    ..
                }
            ),
            "{decision:?}"
        );
        // Without ping the claim is caught too when it comes at once.
        let fake = Fake::new(
            "feature done=1",
            "echo 'move g1f3'; echo '1/2-1/2 {Draw by repetition}'",
        );
        let mut engine = fake.start();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert!(
            matches!(
                decision,
                Decision::Move {
                    claim_draw: true,
                    ..
                }
            ),
            "{decision:?}"
        );
    }

    #[test]
    fn accepts_a_draw_offer_by_offering_one() {
        let fake = Fake::with(V2, "echo 'move e2e4'", "echo 'offer draw'");
        let mut engine = fake.start();
        let start = Chess::default();
        let mut t = turn(&start, &start, &[], None);
        t.draw_offered = true;
        assert_eq!(engine.think(&t).unwrap(), Decision::AcceptDraw);
        let lines = fake.lines();
        assert!(lines.iter().any(|l| l == "draw"), "{lines:?}");
        assert!(!lines.iter().any(|l| l == "go"), "{lines:?}");

        // An engine that declines just moves; one that accepts while thinking accepts.
        let fake = Fake::new(V2, "echo 'move e2e4'");
        let mut engine = fake.start();
        assert!(matches!(engine.think(&t).unwrap(), Decision::Move { .. }));
        let fake = Fake::new(V2, "echo 'offer draw'; echo 'move e2e4'");
        let mut engine = fake.start();
        assert_eq!(engine.think(&t).unwrap(), Decision::AcceptDraw);
    }

    #[test]
    fn illegal_moves_fail() {
        let fake = Fake::new(V2, "echo 'move e2e5'");
        let mut engine = fake.start();
        let start = Chess::default();
        let err = engine.think(&turn(&start, &start, &[], None)).unwrap_err();
        assert!(err.to_string().contains("illegal move"), "{err}");

        // An engine that refuses the game's moves fails.
        let fake = Fake::new(
            "feature ping=1 done=1",
            "echo 'Illegal move: e2e4'; echo 'move g8f6'",
        );
        let mut engine = fake.start();
        let (pos, moves) = play(&start, &["e2e4"]);
        let err = engine.think(&turn(&start, &pos, &moves, None)).unwrap_err();
        assert!(err.to_string().contains("refused"), "{err}");

        // An unknown command is only worth a warning.
        let fake = Fake::new(
            "feature ping=1 done=1",
            "echo 'Error (unknown command): easy'; echo 'move g8f6'",
        );
        let mut engine = fake.start();
        assert!(matches!(
            engine.think(&turn(&start, &pos, &moves, None)).unwrap(),
            Decision::Move { .. }
        ));
    }

    #[test]
    fn an_engine_that_exits_fails() {
        let fake = Fake::new(V2, "exit 3");
        let mut engine = fake.start();
        let start = Chess::default();
        let err = engine.think(&turn(&start, &start, &[], None)).unwrap_err();
        assert!(err.to_string().contains("exited"), "{err}");
        // It starts again.
        engine.restart().unwrap();
        assert_eq!(engine.name(), "Fake 1.0");
        assert!(matches!(
            engine.think(&turn(&start, &start, &[], None)),
            Err(EngineError::Failed(_))
        ));
    }

    #[test]
    fn an_engine_that_never_moves_fails_in_time() {
        let fake = Fake::new(V2, ":");
        let mut engine = fake.start();
        let start = Chess::default();
        let clocks = TurnClocks {
            remaining: ByColor {
                white: Duration::from_millis(300),
                black: Duration::from_millis(300),
            },
            increment: ByColor::new_with(|_| Duration::ZERO),
            moves_to_go: None,
        };
        let started = Instant::now();
        let err = engine
            .think(&turn(&start, &start, &[], Some(clocks)))
            .unwrap_err();
        let took = started.elapsed();
        assert!(err.to_string().contains("no move"), "{err}");
        // 300 ms, a 200 ms margin, then 200 ms after `?`.
        assert!(took >= Duration::from_millis(700), "{took:?}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert!(fake.lines().iter().any(|l| l == "?"));
    }

    #[test]
    fn a_stale_move_is_not_taken_for_the_next() {
        // The engine moves twice on each `go`, the second time late; the late move of
        // the first turn is discarded at the second.
        let fake = Fake::new(
            "feature usermove=1 done=1",
            "echo 'move g1f3'; sleep 0.5; echo 'move b1c3'",
        );
        let mut engine = fake.start();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        assert!(matches!(decision, Decision::Move { mv, .. } if mv == uci(&start, "g1f3")));
        std::thread::sleep(Duration::from_millis(700));
        let (pos, moves) = play(&start, &["e2e4", "e7e5"]);
        let decision = engine.think(&turn(&start, &pos, &moves, None)).unwrap();
        assert!(matches!(decision, Decision::Move { mv, .. } if mv == uci(&pos, "g1f3")));
    }

    #[test]
    fn game_over_and_new_game() {
        let fake = Fake::new(V2, ":");
        let mut engine = fake.start();
        engine.game_over(Some("1-0"));
        engine.new_game().unwrap();
        engine.game_over(None);
        settle(&mut engine);
        let lines = fake.lines();
        let from = lines.iter().position(|l| l.starts_with("result")).unwrap();
        assert_eq!(
            lines[from..from + 5],
            ["result 1-0 {argus}", "force", "new", "force", "force"]
        );
    }

    #[test]
    fn start_failures() {
        assert!(matches!(
            XboardEngine::start_with("/nonexistent/engine", &[], None, fast()),
            Err(EngineError::Start { .. })
        ));
        assert!(matches!(
            XboardEngine::start_with(r#"sh -c "exit 0""#, &[], None, fast()),
            Err(EngineError::Start { .. })
        ));
    }

    /// Plays a few turns against a real engine: from the start with clocks, and after a
    /// few moves (the history replayed).
    fn real_engine(command: &str, expect_analysis: bool) {
        let _ = env_logger::builder().is_test(true).try_init();
        let mut engine = XboardEngine::start(command, &[], None).unwrap();
        println!("engine: {}", engine.name());
        engine.new_game().unwrap();
        let start = Chess::default();
        let clocks = TurnClocks {
            remaining: ByColor::new_with(|_| Duration::from_secs(3)),
            increment: ByColor::new_with(|_| Duration::from_millis(100)),
            moves_to_go: None,
        };
        let t0 = Instant::now();
        let decision = engine
            .think(&turn(&start, &start, &[], Some(clocks.clone())))
            .unwrap();
        println!("from the start ({:?}): {decision:?}", t0.elapsed());
        let Decision::Move { mv, analysis, .. } = decision else {
            panic!("{decision:?}")
        };
        assert!(start.is_legal(mv));
        if expect_analysis {
            assert!(analysis.iter().any(|(op, _)| op == "ce"), "{analysis:?}");
        }
        let (pos, moves) = play(&start, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
        let t0 = Instant::now();
        let decision = engine
            .think(&turn(&start, &pos, &moves, Some(clocks)))
            .unwrap();
        println!(
            "after 1. e4 e5 2. Nf3 Nc6 3. Bb5 ({:?}): {decision:?}",
            t0.elapsed()
        );
        let Decision::Move { mv, .. } = decision else {
            panic!("{decision:?}")
        };
        assert!(pos.is_legal(mv));
        engine.game_over(Some("1/2-1/2"));
    }

    #[test]
    #[ignore = "needs fairymax"]
    fn fairymax_plays() {
        real_engine("/usr/games/fairymax", true);
        // Fairy-Max cannot set up positions.
        let mut engine = XboardEngine::start("/usr/games/fairymax", &[], None).unwrap();
        let start = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        let err = engine.think(&turn(&start, &start, &[], None)).unwrap_err();
        assert!(err.to_string().contains("cannot set up"), "{err}");
    }

    #[test]
    #[ignore = "needs gnuchess"]
    fn gnuchess_plays() {
        real_engine("/usr/games/gnuchess --xboard", true);
        // GNU Chess sets up positions and finds the mate in one.
        let mut engine = XboardEngine::start("/usr/games/gnuchess --xboard", &[], None).unwrap();
        let start = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        println!("mate in one: {decision:?}");
        let Decision::Move { mv, analysis, .. } = decision else {
            panic!("{decision:?}")
        };
        assert_eq!(mv, uci(&start, "a1a8"));
        assert!(
            analysis.contains(&("ce".to_string(), vec![Operand::Integer(32_766)])),
            "{analysis:?}"
        );
    }
}
