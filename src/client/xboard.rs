//! The CECP engine adapter: plays through a chess engine that speaks the Chess Engine
//! Communication Protocol (the xboard/WinBoard protocol, version 2 and the older
//! version 1), such as GNU Chess (`gnuchess --xboard`) and Fairy-Max.
//!
//! The adapter remembers what the engine's board holds: the position it was set up
//! from, the moves it was given, and the move it played itself. A turn whose game
//! follows from that board (the same start, and the moves it holds and more) sends only
//! `force` and the new moves, normally the opponent's one (`force` first, so that an
//! engine in playing mode does not start thinking on the move before it has its time).
//! Otherwise (a game's first turn; the turn after a restart, a failure, a refused move
//! or position, a move past the deadline, a draw claimed or accepted, `new_game` or
//! `game_over`; a game that does not follow from the engine's board: a
//! resynchronisation, a take-back) the engine is set up afresh: `new` and `force`, then
//! the start position when the game did not start from the standard one, then every
//! move of the game so far (so that the engine sees repetitions). Fairy-Max's `new`
//! alone takes 24 ms or more, more than a 10 ms increment: sent every turn, it lost
//! Fairy-Max games on time.
//!
//! A start position goes as `setboard`, or, for engines without it (Fairy-Max announces
//! `setboard=0`), in CECP 2's edit mode: `a2a3` first when Black is to move (`edit`
//! keeps the side to move), then `edit`, `#`, the white pieces (`Ke1`), `c`, the black
//! pieces and `.`; the engine then takes castling rights from the kings and rooks on
//! their home squares and knows no en passant square, which is warned about once a game
//! when the position says otherwise. Then comes the time (`level`, only at a set-up or
//! when its moves per session or increment change; `time` and `otim`; or `st` and `sd`
//! for a fixed [`Limit`]), a `draw` when the opponent offered one, and `go`. It reads
//! the engine's thinking output for the analysis of the reply (`ce`, `acd`, `acn`,
//! `acs`, `pv`) until the engine moves, resigns, claims a draw, or accepts the draw
//! offered. Every wait has a deadline; an engine that misses it is asked to move now
//! (`?`) and fails shortly after.
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
//! engine, which counts the moves it was shown since `new`, finds the true moves to go;
//! the same all through a period, so it goes again only when a new period or an engine
//! without `time` needs it), then `time` and `otim` in centiseconds, and is asked to
//! move now once its remaining time plus a margin (2 s or a tenth of it) has passed. A
//! move time limit is `st` in whole seconds, rounded up, with 5 s of grace. CECP has no
//! node limit: a node limit is `nps N` with `st 1` when the engine announced `nps=1`
//! (its clock then counts nodes), else just `st 1`, with a warning at start. A depth
//! limit is `sd`, bounded by the clocks when there are any and by `st 30` otherwise
//! (engines that ignore `sd`, such as GNU Chess 6, then think for that long). Without
//! clocks or limit the engine gets `st 1`.
//!
//! Engines differ in how they print their move. Besides `move e2e4`, the adapter reads
//! the version 1 form `1. ... e2e4` (which is what GNU Chess 6 prints), `My move is :
//! e2e4`, and a line holding nothing but a legal move, in coordinates or SAN. Engines
//! with `ping` are synchronised with `ping`/`pong` before `go` (so that complaints about
//! the position arrive before the search) and after the move (so that a draw offer or
//! claim sent just after the move is seen with it); for engines without it, output left
//! over from the last turn is discarded before the next.
//!
//! A turn is a few steps (`xboard/turn.rs`) that take the engine's lines and the
//! turn's deadlines: [`Engine::think`] waits for the engine between them; on Unix the
//! adapter is also pollable ([`Engine::begin_think`], [`Engine::poll_think`]), so that
//! `argus serve` runs its client session on the game's thread, and each step (the
//! `pong` that sends `go`, the move, `?` at the deadline, the lines after the move)
//! comes when a `poll` of the engine's output or the turn's deadline says so.
//!
//! The adapter never sends signals: an engine that wants SIGINT to notice `?` while it
//! thinks (Fairy-Max reads no input during a search) is only stopped by its own clock.
//! When the client leaves ([`Engine::quit`]) the engine gets `?` and `quit`, and is
//! killed when it has not quit within [`QUIT_GRACE`]; every wait for it ends as soon as
//! the client's [`Stop`] fires.

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use super::engine_process::{EngineProcess, QUIT_GRACE};
use super::{Decision, Engine, EngineError, Limit, Stop, Turn, TurnClocks};

mod parse;
mod turn;

use parse::{
    Line, Thinking, castling_text, centis, classify, edit_castling, is_standard_start, is_timeout,
    level_command, level_mps, option_name, own_moves_played, whole_seconds_up,
};
use turn::{Event, TurnState};

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

/// How long an engine searches under a depth or node limit when no clock bounds it,
/// since CECP has no way to search without any time limit.
const LIMIT_TIME_CAP: Duration = Duration::from_secs(30);

/// How many empty lines make one nudge of a silent engine at start-up.
///
/// GNU Chess 6.2 (Debian's 6.2.7) often deadlocks at start-up when its input is a pipe:
/// its input thread blocks in `fgets` holding the lock of `stdin` while its engine
/// thread waits for that lock (in `setbuf`), and nothing moves until input arrives. One
/// line rarely helps, because the input thread takes the lock again at once; a burst of
/// empty lines reliably lets the engine thread through. Engines ignore empty lines (GNU
/// Chess answers some of them with `Invalid move:`, which is skipped).
const NUDGE_LINES: usize = 50;

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
    /// empty lines, and again between bursts, until it says `feature done=1`. GNU Chess
    /// 6 can deadlock at start-up, or between its feature lines, until more input
    /// arrives.
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
    /// The variants of its `feature variants` (CECP: `normal` when it gives none).
    variants: Vec<String>,
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
            variants: vec!["normal".to_string()],
        }
    }
}

/// A CECP engine as a player.
pub struct XboardEngine {
    process: EngineProcess,
    command: String,
    /// The folder it works in (`dir=`), when not argus's.
    dir: Option<std::path::PathBuf>,
    /// Lines sent as it starts, before `xboard` (cutechess-cli's `initstr=`).
    init: Vec<String>,
    options: Vec<(String, String)>,
    limit: Option<Limit>,
    timing: Timing,
    features: Features,
    /// The number of the last `ping` sent.
    pings: u32,
    /// The client's stop, which ends every wait for the engine.
    stop: Option<Stop>,
    /// The turn under way.
    turn: Option<TurnState>,
    /// What the engine's board holds between turns; `None` when that is not known (no
    /// turn yet in this game, or the last one failed), and during a turn.
    board: Option<Board>,
    /// Whether this game's set-up in edit mode was warned about already (see
    /// [`XboardEngine::warn_edit`]).
    edit_warned: bool,
    /// The variant of the games: Chess960 is CECP's `variant fischerandom`, for an
    /// engine whose `feature variants` lists it; its castling goes as `O-O`, `O-O-O`.
    variant: crate::core::Variant,
}

/// What the engine's board holds after its last turn, as far as the adapter knows: the
/// position it was set up from, the moves it was given and the one it played since,
/// and the `level` it was sent. A turn whose game follows from it sends only the new
/// moves.
#[derive(Clone, Debug)]
struct Board {
    /// The FEN of the position the engine was set up from.
    start: String,
    /// The moves it was given and played since.
    moves: Vec<Move>,
    /// The moves per session and the increment of the last `level` sent, which stay
    /// the same within a period (see [`level_mps`]).
    level: Option<(u32, Duration)>,
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
    /// Whether the position was set up in edit mode.
    edit: bool,
}

impl Sent {
    /// Whether a complaint naming `command` concerns the position set up for the turn.
    fn concerns(&self, command: &str) -> bool {
        let command = command.trim();
        // Edit mode's lines: `#`, `c`, `.` and a piece on a square (`Ke1`).
        let edit_line = || {
            matches!(command, "#" | "c" | ".")
                || (command.len() == 3 && command.starts_with(['P', 'N', 'B', 'R', 'Q', 'K']))
        };
        command.starts_with("setboard")
            || command == "edit"
            || (self.edit && edit_line())
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
        XboardEngine::launch(command, None, &[], options, limit, timing, None)
    }

    /// As [`XboardEngine::start_with`], the engine working in `dir` when given (as
    /// [`EngineProcess::spawn_in`] starts it), and sent the lines of `init` as it starts,
    /// before `xboard`.
    ///
    /// # Errors
    ///
    /// As [`XboardEngine::start`].
    pub fn start_in(
        command: &str,
        dir: Option<&std::path::Path>,
        init: &[String],
        options: &[(String, String)],
        limit: Option<Limit>,
        timing: Timing,
    ) -> Result<XboardEngine, EngineError> {
        XboardEngine::launch(command, dir, init, options, limit, timing, None)
    }

    /// Starts the engine, its waits ended by `stop`, and negotiates the protocol.
    fn launch(
        command: &str,
        dir: Option<&std::path::Path>,
        init: &[String],
        options: &[(String, String)],
        limit: Option<Limit>,
        timing: Timing,
        stop: Option<Stop>,
    ) -> Result<XboardEngine, EngineError> {
        let mut process = EngineProcess::spawn_in(command, dir, init)?;
        if let Some(stop) = &stop {
            process.watch(stop);
        }
        let mut engine = XboardEngine {
            process,
            command: command.to_string(),
            dir: dir.map(std::path::Path::to_path_buf),
            init: init.to_vec(),
            options: options.to_vec(),
            limit,
            timing,
            features: Features::default(),
            pings: 0,
            stop,
            turn: None,
            board: None,
            edit_warned: false,
            variant: crate::core::Variant::Standard,
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
            // While the engine says nothing, a burst of empty lines now and then wakes an
            // engine stuck at start-up (see NUDGE_LINES); GNU Chess can also stall
            // between its feature lines, after `feature done=0`, until input arrives.
            let wait = deadline.min(now + self.timing.nudge);
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
                    if Instant::now() < deadline {
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
                "variants" => {
                    f.variants = value.split(',').map(|v| v.trim().to_string()).collect();
                    if !f.variants.iter().any(|v| v == "normal") {
                        log::warn!(
                            "{}: the engine plays no normal chess (variants {value})",
                            self.command
                        );
                    }
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

    /// Gives the engine the turn's position and returns what its board then holds.
    ///
    /// When the engine holds the game so far (the same start, and moves that the turn's
    /// extend), only the new moves go, normally the opponent's one, after `force`, so
    /// that an engine in playing mode does not begin to think on them before it has its
    /// time. Otherwise (the game's first turn, a turn after a failure, a game that does
    /// not follow from the engine's board: a resynchronisation, a take-back) the engine
    /// is set up afresh ([`XboardEngine::set_up`]).
    fn give_position(&mut self, turn: &Turn<'_>, sent: &mut Sent) -> Result<Board, EngineError> {
        let start = Fen::from_position(turn.start, EnPassantMode::Legal).to_string();
        match self.board.take() {
            Some(mut board) if board.start == start && turn.moves.starts_with(&board.moves) => {
                self.process.send("force")?;
                let mut pos = turn.start.clone();
                for &mv in &board.moves {
                    pos.play_unchecked(mv);
                }
                self.send_moves(&mut pos, &turn.moves[board.moves.len()..], sent)?;
                board
                    .moves
                    .extend_from_slice(&turn.moves[board.moves.len()..]);
                Ok(board)
            }
            held => {
                if held.is_some() {
                    log::debug!(
                        "{}: the game does not follow from the engine's board; setting it \
                         up afresh",
                        self.command
                    );
                }
                self.set_up(turn, sent)?;
                Ok(Board {
                    start,
                    moves: turn.moves.to_vec(),
                    level: None,
                })
            }
        }
    }

    /// Sets up the turn's position afresh: `new`, `force`, `post`, `easy`, the start
    /// position when it is not the standard one (`setboard`, or `edit` for engines
    /// without it), and the game's moves.
    fn set_up(&mut self, turn: &Turn<'_>, sent: &mut Sent) -> Result<(), EngineError> {
        self.process.send("new")?;
        let chess960 = !self.variant.is_standard();
        if chess960 {
            self.process.send("variant fischerandom")?;
        }
        self.process.send("force")?;
        self.process.send("post")?;
        self.process.send("easy")?;
        // A Chess960 game's start is always given: `new` may not set it up.
        if chess960 || !is_standard_start(turn.start) {
            if self.features.setboard {
                let fen = Fen::from_position(turn.start, EnPassantMode::Legal);
                self.process.send(&format!("setboard {fen}"))?;
            } else {
                self.edit(turn.start, sent)?;
            }
        }
        let mut pos = turn.start.clone();
        self.send_moves(&mut pos, turn.moves, sent)
    }

    /// Sends `moves`, played from `pos` (which they leave after them), as the engine
    /// reads moves: SAN or coordinates, with `usermove` when it asked for it.
    fn send_moves(
        &mut self,
        pos: &mut Chess,
        moves: &[Move],
        sent: &mut Sent,
    ) -> Result<(), EngineError> {
        for &mv in moves {
            if !pos.is_legal(mv) {
                return Err(EngineError::Failed(format!(
                    "the game's move {mv} is illegal in its history"
                )));
            }
            let text = if self.features.san {
                crate::epd::play_san(pos, mv).to_string()
            } else if let (shakmaty::Move::Castle { king, rook }, false) =
                (mv, self.variant.is_standard())
            {
                // CECP's Chess960 castling.
                pos.play_unchecked(mv);
                if rook.file() > king.file() {
                    "O-O"
                } else {
                    "O-O-O"
                }
                .to_string()
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

    /// Sets up `start` in edit mode, CECP's way for engines without `setboard` (after
    /// `new` and `force`): `edit` keeps the side to move, so a position with Black to
    /// move first gets `a2a3` (the protocol's idiom); then `#` clears the board, the
    /// white pieces are placed (`Ke1`), `c` changes the colour, the black pieces
    /// follow (`Ke8`), and `.` leaves edit mode.
    fn edit(&mut self, start: &Chess, sent: &mut Sent) -> Result<(), EngineError> {
        if start.turn() == Color::Black {
            let a3 = Move::Normal {
                role: Role::Pawn,
                from: Square::A2,
                capture: None,
                to: Square::A3,
                promotion: None,
            };
            self.send_moves(&mut Chess::default(), &[a3], sent)?;
        }
        sent.edit = true;
        self.process.send("edit")?;
        self.process.send("#")?;
        for color in [Color::White, Color::Black] {
            if color == Color::Black {
                self.process.send("c")?;
            }
            for (square, piece) in start.board().iter() {
                if piece.color == color {
                    self.process
                        .send(&format!("{}{square}", piece.role.upper_char()))?;
                }
            }
        }
        self.process.send(".")?;
        self.warn_edit(start);
        Ok(())
    }

    /// Warns, once a game, when a position set up in edit mode is not quite the one the
    /// engine gets: it takes castling rights from the kings and rooks on their home
    /// squares, and cannot be told an en passant square.
    fn warn_edit(&mut self, start: &Chess) {
        if self.edit_warned {
            return;
        }
        let implied = edit_castling(start);
        let rights = start.castles().castling_rights();
        let ep = start.ep_square(EnPassantMode::Legal);
        let mut differences = Vec::new();
        if implied != rights {
            differences.push(format!(
                "castling rights {} where the position has {}",
                castling_text(implied),
                castling_text(rights)
            ));
        }
        if let Some(ep) = ep {
            differences.push(format!("no en passant capture on {ep}"));
        }
        if !differences.is_empty() {
            self.edit_warned = true;
            log::warn!(
                "{}: the engine has no setboard and is set up with edit, which gives it {}",
                self.name(),
                differences.join(", and ")
            );
        }
    }

    /// Sends the time controls of the turn and returns how long the engine may think
    /// before it is asked to move now. `level` is the MPS and increment of the `level`
    /// the engine has (`None` after a set-up), and what it has after.
    fn set_time(
        &mut self,
        turn: &Turn<'_>,
        level: &mut Option<(u32, Duration)>,
    ) -> Result<Duration, EngineError> {
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
                    Some(clocks) => self.send_clocks(clocks, side, own_moves, level),
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
                Some(clocks) => self.send_clocks(clocks, side, own_moves, level),
                None => {
                    self.process.send("st 1")?;
                    Ok(Duration::from_secs(1) + self.timing.fixed_margin)
                }
            },
        }
    }

    /// Sends `level`, `time` and `otim` for `side` to move, and returns the remaining
    /// time plus the margin. `level` goes only when the engine has none of the same
    /// MPS and increment (`level`, see [`XboardEngine::set_time`]): the engine counts
    /// the moves of the period itself, and learns its time from `time`. An engine
    /// without `time` gets it every turn, since its base is all it knows of its time.
    fn send_clocks(
        &mut self,
        clocks: &TurnClocks,
        side: Color,
        own_moves: u32,
        level: &mut Option<(u32, Duration)>,
    ) -> Result<Duration, EngineError> {
        let kept = (level_mps(clocks, own_moves), clocks.increment[side]);
        if *level != Some(kept) || !self.features.time {
            self.process.send(&level_command(clocks, side, own_moves))?;
            *level = Some(kept);
        }
        let own = clocks.remaining[side];
        if self.features.time {
            self.process.send(&format!("time {}", centis(own)))?;
            self.process
                .send(&format!("otim {}", centis(clocks.remaining[!side])))?;
        }
        Ok(own + self.timing.clock_margin.max(own / 10))
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
        self.board = None;
        self.edit_warned = false;
        if !self.features.reuse {
            // The engine asked to be started afresh for every game.
            return self.restart();
        }
        self.process.send("new")?;
        if !self.variant.is_standard() {
            self.process.send("variant fischerandom")?;
        }
        self.process.send("force")
    }

    fn set_variant(&mut self, variant: crate::core::Variant) -> Result<(), EngineError> {
        if !variant.is_standard() && !self.features.variants.iter().any(|v| v == "fischerandom") {
            return Err(EngineError::Failed(format!(
                "{} does not play {variant}: its feature variants ({}) has no fischerandom",
                self.command,
                self.features.variants.join(",")
            )));
        }
        self.variant = variant;
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        self.begin(turn)?;
        loop {
            let deadline = self.turn.as_ref().map_or_else(Instant::now, |t| t.deadline);
            let event = match self.process.recv(deadline) {
                Ok(line) => Event::Line(line),
                Err(e) if is_timeout(&e) => Event::Deadline,
                Err(e) => Event::Lost(e),
            };
            if let Some(answer) = self.step(turn, event) {
                return answer;
            }
        }
    }

    fn pollable(&self) -> bool {
        cfg!(unix)
    }

    fn begin_think(&mut self, turn: &Turn<'_>) -> Result<(), EngineError> {
        self.begin(turn)
    }

    fn poll_think(
        &mut self,
        turn: &Turn<'_>,
        readable: bool,
    ) -> Option<Result<Decision, EngineError>> {
        #[cfg(unix)]
        {
            if self.turn.is_none() {
                return Some(Err(EngineError::Failed("no turn was begun".into())));
            }
            let mut read = readable;
            loop {
                let event = match self.process.try_recv(std::mem::take(&mut read)) {
                    Ok(Some(line)) => Event::Line(line),
                    Ok(None) => break,
                    Err(e) => Event::Lost(e),
                };
                if let Some(answer) = self.step(turn, event) {
                    return Some(answer);
                }
            }
            if self
                .turn
                .as_ref()
                .is_some_and(|t| Instant::now() >= t.deadline)
            {
                return self.step(turn, Event::Deadline);
            }
            None
        }
        #[cfg(not(unix))]
        {
            let _ = readable;
            Some(self.think(turn))
        }
    }

    fn wake_at(&self) -> Option<Instant> {
        self.turn.as_ref().map(|t| t.deadline)
    }

    #[cfg(unix)]
    fn output_fd(&self) -> Option<std::os::fd::RawFd> {
        self.process.output_fd()
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        self.process.kill();
        let fresh = XboardEngine::launch(
            &self.command,
            self.dir.as_deref(),
            &self.init,
            &self.options,
            self.limit,
            self.timing,
            self.stop.clone(),
        )?;
        let edit_warned = self.edit_warned;
        *self = fresh;
        self.edit_warned = edit_warned;
        Ok(())
    }

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
        self.process.watch(stop);
    }

    fn quit(&mut self) {
        self.process.quit(&["?", "quit"], QUIT_GRACE);
    }

    fn running(&mut self) -> bool {
        self.process.running()
    }

    fn abandon_think(&mut self) -> bool {
        self.stop = None;
        self.process.unwatch();
        if self.turn.take().is_none() {
            return true;
        }
        self.board = None;
        // Move now, then no more: the `pong` that follows says the engine is idle, and
        // what it said before is read and left. Without `ping` nothing says when a late
        // move has come, and the engine is not played again.
        if !self.features.ping
            || self.process.send("?").is_err()
            || self.process.send("force").is_err()
        {
            return false;
        }
        let Ok(n) = self.ping() else {
            return false;
        };
        self.process
            .recv_until(Instant::now() + QUIT_GRACE, |l| {
                classify(l) == Line::Pong(n)
            })
            .is_ok()
    }

    fn game_over(&mut self, result: Option<&str>) {
        self.board = None;
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

#[cfg(test)]
mod tests;
