//! The referee: the protocol flow and adjudication of the argus profile (sections 4 and 5),
//! as a deterministic state machine.
//!
//! Inputs come in through [`Referee::handle`] (a line read on a port, a line finished
//! draining, a timer, a port lost or back), each stamped with the moment it happened.
//! Outputs are drained with [`Referee::poll_output`] in the order they were produced, and
//! [`Referee::poll_timeout`] tells the driver when the core must next be woken (a flag
//! fall, the end of a reset or conclude delay). The referee never reads the clock and
//! never lets time run backwards: an input stamped earlier than one already handled is
//! treated as happening at the latest moment seen.

use std::collections::VecDeque;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use super::Port;
use super::clock::{Clocks, Period, TimeControl};
use super::game::{Finish, Game, GameResult, Termination, color_name};
use crate::epd::seal::{self, Seal};
use crate::epd::{Operand, Record};

mod build;
mod cables;
mod console;
mod lifecycle;
mod records;
mod reliable;
mod replies;
mod types;

use build::{record, text_operand};

pub use build::{REFCOM, command_record};
pub use cables::PROBE_REASON;

pub use types::{
    ConfigError, DrawRule, GameDetail, GameReport, IllegalRule, Input, MatchConfig, Notice, Output,
    TimeUse, WireTiming,
};

/// What a sent line was, so that its drain can be acted on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Tx {
    Other,
    Reset,
    Respond,
    /// The same respond again, to the side to move whose clock is suspended while the
    /// line repeats it (the checksum extension): its drain resumes the clock.
    Resend,
    Conclude,
    Disconnect,
    /// The `fault` that tells a player the referee stops and will resume.
    Stop,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum WaitKind {
    Reset,
    Conclude,
    Disconnect,
}

/// How long the referee waits for `disconnect` to drain before it calls the match over
/// anyway (a player whose line is down cannot hold the referee forever).
const DISCONNECT_GRACE: Duration = Duration::from_secs(10);

/// How long a stop waits for its `fault` records to drain: a stop is prompt, whatever
/// the lines do.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// What the `fault` at a stop says.
pub const STOP_REASON: &str = "the referee stopped; the match resumes later, wait for it";

/// A stop under way: the ports whose `fault` has drained, and when the referee stops
/// anyway.
#[derive(Clone, Debug)]
struct Stopping {
    drained: [bool; 2],
    until: Duration,
    done: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for both players to sign on.
    SignOn,
    /// Lines were sent that must drain, then a delay runs.
    Waiting {
        kind: WaitKind,
        drained: [Option<Duration>; 2],
        until: Option<Duration>,
    },
    /// The respond/reply cycle.
    Playing,
    /// The match is over.
    Done,
}

#[derive(Clone, Debug, Default)]
struct Player {
    signed_on: bool,
    tcsi_name: Option<String>,
    /// The player's line is lost: what is sent to it waits, its clock does not.
    line_down: bool,
    /// Nothing readable has come from the port since it was opened: a first line that
    /// cannot be read is the tail of one cut by the open, not noise.
    fresh: bool,
}

/// The game being played (or just finished).
#[derive(Clone, Debug)]
struct Current {
    number: u32,
    white: Port,
    names: [String; 2],
    game: Game,
    clock_started: Option<Duration>,
    /// The colour that offered a draw with the last move, while the offer stands.
    offer: Option<Color>,
    finish: Option<Finish>,
    /// How many moves had been played each time the referee resumed this game after a
    /// crash (for the game record).
    resumed_after: Vec<usize>,
    /// The faults the players reported during this game (an engine that crashed and
    /// was restarted, say), each with the moves played by then (for the game record).
    faults: Vec<(usize, String)>,
    /// Since when the mover's clock is suspended while its respond is repeated (a
    /// corrupted reply, or a respond lost to noise, on a sealed line).
    suspended: Option<Duration>,
}

impl Current {
    fn port_of(&self, color: Color) -> Port {
        color.fold_wb(self.white, self.white.other())
    }

    fn color_of(&self, port: Port) -> Color {
        if port == self.white {
            Color::White
        } else {
            Color::Black
        }
    }

    fn name_of(&self, color: Color) -> &str {
        &self.names[color.fold_wb(0, 1)]
    }

    fn to_move_port(&self) -> Port {
        self.port_of(self.game.turn())
    }
}

/// The referee of one match between the players on two ports.
#[derive(Clone, Debug)]
pub struct Referee {
    cfg: MatchConfig,
    openings: Vec<Chess>,
    now: Duration,
    players: [Player; 2],
    phase: Phase,
    started: u32,
    current: Option<Current>,
    /// Lines sent and not yet drained, with the moment their last byte leaves at the
    /// line's rate (the send itself when the rate is unknown).
    pending: [VecDeque<(Tx, Duration)>; 2],
    /// When each line is free again at its rate, from what the referee has sent.
    wire_free: [Duration; 2],
    /// Replies that arrived before the drain of the respond they answer was reported,
    /// with their stamps: they are judged once the clock has started.
    early: Vec<(Port, Duration, Record)>,
    /// Set once the match is ending early (`quit`).
    shutting_down: bool,
    /// Set while the referee stops to be resumed later.
    stopping: Option<Stopping>,
    /// When the ports that have not signed on are probed, until they have been.
    probe_at: Option<Duration>,
    /// The probe sent to each port, to know it if it comes back.
    probes: [Option<String>; 2],
    /// Set while the game is paused.
    paused: Option<Pause>,
    /// Lines that arrived while the game was paused, handled when it resumes.
    held: Vec<(Port, Vec<u8>)>,
    /// Per port, the checksum extension, once its player offered it at sign-on.
    sealed: [Option<reliable::Sealed>; 2],
    /// Per port, whether each record sent goes out as a record too
    /// ([`Referee::hand_over_records`]).
    hand_over: [bool; 2],
    out: VecDeque<Output>,
}

/// A pause: since when, and why.
#[derive(Clone, Debug)]
struct Pause {
    since: Duration,
    cause: PauseCause,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum PauseCause {
    /// The supervisor typed `pause`.
    Supervisor,
    /// An illegal move under `--illegal fault`, with a supervisor present.
    Infraction(Port),
    /// A player signed off during its game, with a supervisor present.
    SignOff(Port),
    /// The referee stopped, to be resumed later.
    Stop,
}

impl Referee {
    /// A referee for the match `cfg`, waiting for both players to sign on.
    ///
    /// # Errors
    ///
    /// Returns [`ConfigError`] when an opening is not a playable position.
    pub fn new(cfg: MatchConfig) -> Result<Referee, ConfigError> {
        let day = Duration::from_secs(86_400);
        let second = Duration::from_secs(1);
        let limits = [
            ("the reset delay", Some(cfg.reset_delay), day),
            ("the conclude delay", Some(cfg.conclude_delay), day),
            ("port a's byte time", cfg.wire.byte_time[0], second),
            ("port b's byte time", cfg.wire.byte_time[1], second),
        ];
        for (what, value, max) in limits {
            if let Some(value) = value.filter(|v| *v > max) {
                return Err(ConfigError::OutOfRange { what, value, max });
            }
        }
        if cfg.time_odds.iter().any(Option::is_some) {
            let [a, b] = [0, 1].map(|i| cfg.time_odds[i].as_ref().unwrap_or(&cfg.time_control));
            let hourglass =
                |tc: &TimeControl| matches!(tc.periods().first(), Some(Period::Hourglass { .. }));
            if a.is_timed() != b.is_timed() || (a != b && (hourglass(a) || hourglass(b))) {
                return Err(ConfigError::BadOdds {
                    white: a.to_string(),
                    black: b.to_string(),
                });
            }
        }
        let mut openings = Vec::with_capacity(cfg.openings.len());
        for (i, text) in cfg.openings.iter().map(|o| &o.fen).enumerate() {
            let bad = |reason: String| ConfigError::BadOpening {
                index: i + 1,
                fen: text.clone(),
                reason,
            };
            let fen: Fen = text.parse().map_err(|e| bad(format!("{e}")))?;
            let pos: Chess = fen
                .into_position(cfg.variant.castling_mode())
                .map_err(|e| bad(format!("{e}")))?;
            if pos.is_game_over() {
                return Err(ConfigError::FinishedOpening {
                    index: i + 1,
                    fen: text.clone(),
                });
            }
            openings.push(pos);
        }
        let hosted = cfg.hosted;
        Ok(Referee {
            cfg,
            openings,
            now: Duration::ZERO,
            players: [(); 2].map(|()| Player {
                fresh: true,
                signed_on: hosted,
                ..Player::default()
            }),
            phase: Phase::SignOn,
            started: 0,
            current: None,
            pending: Default::default(),
            wire_free: [Duration::ZERO; 2],
            early: Vec::new(),
            shutting_down: false,
            stopping: None,
            // A hosted match has no sign-on to wait for: its first moment begins it.
            probe_at: Some(if hosted {
                Duration::ZERO
            } else {
                cables::PROBE_AFTER
            }),
            probes: Default::default(),
            paused: None,
            held: Vec::new(),
            sealed: Default::default(),
            hand_over: [false; 2],
            out: VecDeque::new(),
        })
    }

    /// The match configuration.
    pub fn config(&self) -> &MatchConfig {
        &self.cfg
    }

    /// Whether the match is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Feeds one input to the referee. Timers due at or before the input's moment fire
    /// first, at their own moments.
    pub fn handle(&mut self, input: Input) {
        let stamp = input.at();
        // A resume after a stop (finished or not: the process may have been killed in
        // it) takes over from the stop, whose timer must not fire now.
        let after_stop = matches!(input, Input::Resume { .. }) && self.stopping.take().is_some();
        let at = match &input {
            // A line's own time on a slow line is not the player's: it is judged as of
            // the moment it began to arrive, as far as the line's rate tells.
            Input::Line {
                port, at, bytes, ..
            } => at.saturating_sub(self.cfg.wire.time(*port, bytes.len() + 1)),
            other => other.at(),
        };
        self.advance(at);
        // What this input makes the referee send, it sends now.
        self.now = self.now.max(stamp);
        if self.stopping.is_some() && !matches!(input, Input::Resume { .. }) {
            // Stopping, or stopped: only the drains of the stop's own records count.
            // What players send is answered by the resume, which asks again.
            if let Input::Drained { port, .. } = input {
                self.on_stop_drained(port);
            }
            return;
        }
        match input {
            Input::Line { port, bytes, .. } if self.paused.is_some() => {
                // Records wait while the game is paused.
                self.held.push((port, bytes));
            }
            Input::Line {
                port,
                bytes,
                record,
                ..
            } => self.on_line(port, at, &bytes, record),
            Input::Drained { port, at } => self.on_drained(port, at),
            Input::Timeout { .. } => {}
            Input::PortLost { port, at } => {
                self.players[port.index()].line_down = true;
                self.notice(Notice::PortLost { port });
                // A lost line stops nobody's clock: if the respond to the side to move
                // could not drain, its clock starts now.
                let now = self.now;
                // Nor does a repetition that cannot go out.
                if let Some(cur) = self.playing_mut()
                    && cur.to_move_port() == port
                {
                    cur.clock_started.get_or_insert(at.max(now));
                    cur.suspended = None;
                }
                self.judge_early_replies(port);
                self.skip_down_lines();
            }
            Input::PortBack { port, fresh, .. } => {
                self.players[port.index()].line_down = false;
                self.players[port.index()].fresh = true;
                if fresh {
                    // A new connection: what was sent before and has not drained will
                    // never reach it (the line's writer drops it), so it is waited for
                    // no more. The player signs on, and is sent the game again.
                    self.pending[port.index()].clear();
                    if let Some(stop) = self.stopping.as_mut() {
                        stop.drained[port.index()] = true;
                        if stop.drained == [true; 2] {
                            self.stopped();
                        }
                    }
                }
                self.notice(Notice::PortBack { port });
            }
            Input::Shutdown { .. } => self.shut_down("The referee was shut down"),
            Input::Stop { .. } => self.stop(),
            Input::Resume { .. } => self.resume(after_stop),
            Input::Supervisor { command, .. } => self.on_command(command),
        }
    }

    /// The next output, in the order produced.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// When the referee must next be woken with [`Input::Timeout`], if at all.
    pub fn poll_timeout(&self) -> Option<Duration> {
        if let Some(stop) = self.stopping.as_ref() {
            return (!stop.done).then_some(stop.until);
        }
        if self.paused.is_some() {
            return None;
        }
        match (&self.phase, self.flag_deadline()) {
            (_, Some(flag)) => Some(flag),
            (Phase::Waiting { until, .. }, None) => *until,
            (Phase::SignOn, None) => self.probe_deadline(),
            _ => None,
        }
    }

    // ---- time ----------------------------------------------------------------------

    fn flag_deadline(&self) -> Option<Duration> {
        if self.phase != Phase::Playing {
            return None;
        }
        let cur = self.current.as_ref()?;
        if cur.finish.is_some() || cur.suspended.is_some() {
            return None;
        }
        let started = cur.clock_started?;
        let allowed = cur.game.clocks().allowed(cur.game.turn())?;
        Some(started.saturating_add(allowed))
    }

    fn advance(&mut self, at: Duration) {
        while let Some(due) = self.poll_timeout() {
            if due > at {
                break;
            }
            self.now = self.now.max(due);
            if self.stopping.is_some() {
                self.stopped();
            } else if self.flag_deadline() == Some(due) {
                let cur = self.current.as_mut().expect("a flag needs a game");
                let color = cur.game.turn();
                let elapsed = due.saturating_sub(cur.clock_started.unwrap_or(due));
                let finish = cur.game.flag_after(color, elapsed);
                self.finish(finish);
            } else if self.probe_deadline() == Some(due) {
                self.probe();
            } else {
                self.wait_over();
            }
        }
        self.now = self.now.max(at);
    }

    // ---- sending -------------------------------------------------------------------

    fn notice(&mut self, notice: Notice) {
        self.out.push_back(Output::Notice(notice));
    }

    fn send(&mut self, port: Port, record: &Record, tx: Tx) {
        if tx == Tx::Respond && self.players[port.index()].line_down {
            // The respond cannot drain while the line is down; the clock runs anyway.
            let now = self.now;
            if let Some(cur) = self.playing_mut()
                && cur.to_move_port() == port
                && cur.clock_started.is_none()
            {
                cur.clock_started = Some(now);
            }
        }
        let line = self.seal_line(port, record.to_line(), tx);
        // Only the respond of every ply: the others are a few a game. A sealed line is
        // read through its seal, so its record is not handed over.
        let record = (tx == Tx::Respond
            && self.hand_over[port.index()]
            && self.sealed[port.index()].is_none())
        .then(|| Box::new(record.clone()));
        self.transmit_record(port, line, record, tx);
    }

    /// From now on, every `respond` sent to `port` unsealed is in its [`Output::Send`]
    /// as a record as well as a line, for a mediator that hands it to a client in the same
    /// process, which then need not read the line again (`argus serve`'s local engines).
    /// The line is what is journaled and what a replay reads; the record is the one the
    /// line was written from, and reads back from it as it is.
    pub fn hand_over_records(&mut self, port: Port) {
        self.hand_over[port.index()] = true;
    }

    /// Hands `line` to `port`'s writer, keeping account of its drain and of when its
    /// last byte leaves at the line's rate.
    fn transmit(&mut self, port: Port, line: String, tx: Tx) {
        self.transmit_record(port, line, None, tx);
    }

    /// [`Referee::transmit`], with the record the line was written from.
    fn transmit_record(&mut self, port: Port, line: String, record: Option<Box<Record>>, tx: Tx) {
        let bytes = line.len() + usize::from(self.cfg.wire.eol_bytes);
        let free = &mut self.wire_free[port.index()];
        *free = (*free)
            .max(self.now)
            .saturating_add(self.cfg.wire.time(port, bytes));
        self.pending[port.index()].push_back((tx, *free));
        self.out.push_back(Output::Send { port, line, record });
    }

    fn send_both(&mut self, record: &Record, tx: Tx) {
        for port in Port::BOTH {
            self.send(port, record, tx);
        }
    }

    fn wait(&mut self, kind: WaitKind) {
        let until =
            (kind == WaitKind::Disconnect).then(|| self.now.saturating_add(DISCONNECT_GRACE));
        self.phase = Phase::Waiting {
            kind,
            drained: [None, None],
            until,
        };
        self.skip_down_lines();
    }

    // ---- records ---------------------------------------------------------------------

    /// The time control of the player on `port`: its own (time odds) or the match's.
    fn tc_of(&self, port: Port) -> &TimeControl {
        self.cfg.time_odds[port.index()]
            .as_ref()
            .unwrap_or(&self.cfg.time_control)
    }

    fn player_name(&self, port: Port) -> String {
        let i = port.index();
        self.cfg.names[i]
            .clone()
            .or_else(|| self.players[i].tcsi_name.clone())
            .unwrap_or_else(|| self.cfg.port_labels[i].clone())
    }

    // ---- the match -------------------------------------------------------------------

    fn playing_mut(&mut self) -> Option<&mut Current> {
        if self.phase != Phase::Playing {
            return None;
        }
        self.current.as_mut().filter(|c| c.finish.is_none())
    }

    /// Whether a game is in progress: from its `reset` to its result. Both players are
    /// in it (the serial referee runs one pair).
    fn game_in_progress(&self) -> bool {
        let game_phase = matches!(
            self.phase,
            Phase::Playing
                | Phase::Waiting {
                    kind: WaitKind::Reset,
                    ..
                }
        );
        game_phase && self.current.as_ref().is_some_and(|c| c.finish.is_none())
    }

    fn start_game(&mut self) {
        let index = self.started;
        self.started += 1;
        let number = index + 1;
        let white = if index.is_multiple_of(2) {
            Port::A
        } else {
            Port::B
        };
        let start = if self.openings.is_empty() {
            // Chess960's own standard array, when its games are given no position.
            match self.cfg.variant {
                crate::core::Variant::Standard => Chess::default(),
                crate::core::Variant::Chess960 => shakmaty::Setup::default()
                    .position(CastlingMode::Chess960)
                    .expect("the standard array is a Chess960 position"),
            }
        } else {
            self.openings[(index as usize / 2) % self.openings.len()].clone()
        };
        let mut names = [self.player_name(white), self.player_name(white.other())];
        for name in &mut names {
            name.retain(|c| c != '"');
        }
        // Each side's clock: its player's time control and margin.
        let black = white.other();
        let mut clocks = Clocks::with_odds(self.tc_of(white), self.tc_of(black));
        clocks.set_margin(Color::White, self.cfg.time_margin[white.index()]);
        clocks.set_margin(Color::Black, self.cfg.time_margin[black.index()]);
        let game = Game::with_clocks(start, clocks);
        let cur = Current {
            number,
            white,
            names,
            game,
            clock_started: None,
            offer: None,
            finish: None,
            resumed_after: Vec::new(),
            faults: Vec::new(),
            suspended: None,
        };
        self.notice(Notice::GameStarted {
            number,
            white: cur.names[0].clone(),
            black: cur.names[1].clone(),
            fen: Fen::from_position(cur.game.start(), EnPassantMode::Legal).to_string(),
            clocks: [Color::White, Color::Black].map(|c| cur.game.clocks().remaining(c)),
            time_control: self.cfg.time_control.to_string(),
        });
        let reset = self.reset_record(&cur);
        self.current = Some(cur);
        self.send_both(&reset, Tx::Reset);
        self.wait(WaitKind::Reset);
    }

    fn wait_over(&mut self) {
        let Phase::Waiting { kind, .. } = self.phase else {
            return;
        };
        match kind {
            WaitKind::Reset => self.begin_play(),
            WaitKind::Conclude => {
                if self.started < self.cfg.games && !self.shutting_down {
                    self.phase = Phase::SignOn;
                    self.maybe_start();
                } else if self.cfg.hosted {
                    // The event the players belong to says `disconnect` when it ends.
                    self.phase = Phase::Done;
                    self.out.push_back(Output::MatchOver);
                } else {
                    self.disconnect();
                }
            }
            WaitKind::Disconnect => {
                self.phase = Phase::Done;
                self.out.push_back(Output::MatchOver);
            }
        }
    }

    fn maybe_start(&mut self) {
        if self.phase == Phase::SignOn && self.players.iter().all(|p| p.signed_on) {
            self.check_cables();
            self.start_game();
        }
    }

    fn begin_play(&mut self) {
        self.phase = Phase::Playing;
        let cur = self.current.as_ref().expect("play needs a game");
        let inform = self.inform_record(cur);
        let respond = Self::respond_record(cur);
        let to_move = cur.to_move_port();
        self.send_both(&inform, Tx::Other);
        self.send(to_move, &respond, Tx::Respond);
    }

    fn finish(&mut self, finish: Finish) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        cur.clock_started = None;
        cur.finish = Some(finish.clone());
        let cur = self.current.as_ref().expect("just set");
        let tags = self.tags(cur);
        // The game move by move, for a record written outside (fastchess's PGN).
        let detail = self.cfg.keep_info.then(|| {
            Box::new(GameDetail {
                tags: cur.end_tags(tags.clone()),
                start: cur.game.start().clone(),
                moves: cur.game.moves().to_vec(),
            })
        });
        let report = GameReport {
            number: cur.number,
            white: cur.names[0].clone(),
            black: cur.names[1].clone(),
            result: finish.result,
            termination: finish.termination,
            reason: finish.reason.clone(),
            pgn: cur.pgn(tags),
            time_use: [Color::White, Color::Black].map(|color| {
                let clocks = cur.game.clocks();
                let own = cur.game.moves().iter().filter(|m| m.color() == color);
                TimeUse {
                    moves: u32::try_from(own.clone().count()).unwrap_or(u32::MAX),
                    thinking: own.map(|m| m.emt).sum(),
                    left: clocks.remaining(color),
                    overshoots: clocks.overshoots(color),
                    overrun: finish.overrun.filter(|_| color == cur.game.turn()),
                }
            }),
            detail,
        };
        let inform = self.inform_record(cur);
        let conclude = record(cur.game.position(), "conclude");
        self.notice(Notice::GameOver {
            number: cur.number,
            result: finish.result,
            reason: finish.reason,
        });
        self.out.push_back(Output::GameOver(report));
        self.send_both(&inform, Tx::Other);
        self.send_both(&conclude, Tx::Conclude);
        self.wait(WaitKind::Conclude);
    }

    // ---- inputs ----------------------------------------------------------------------

    fn on_drained(&mut self, port: Port, at: Duration) {
        let Some((tx, last_byte)) = self.pending[port.index()].pop_front() else {
            log::warn!("port {port}: a drain with nothing outstanding");
            return;
        };
        match tx {
            Tx::Other => {}
            Tx::Respond => {
                // On a line whose rate is known the clock starts when the last byte
                // has left at that rate, if that is later than the drain.
                if let Some(cur) = self.playing_mut()
                    && cur.to_move_port() == port
                    && cur.clock_started.is_none()
                {
                    cur.clock_started = Some(at.max(last_byte));
                }
                self.judge_early_replies(port);
            }
            Tx::Resend => {
                self.end_suspension(port, at.max(last_byte));
                self.judge_early_replies(port);
            }
            Tx::Stop => {}
            Tx::Reset | Tx::Conclude | Tx::Disconnect => {
                let want = match tx {
                    Tx::Reset => WaitKind::Reset,
                    Tx::Conclude => WaitKind::Conclude,
                    _ => WaitKind::Disconnect,
                };
                self.mark_drained(want, port, at);
            }
        }
    }

    /// Counts `port`'s line of a wait of `kind` as drained at `at`; when both have, the
    /// delay starts from the later. A zero delay ends the wait at once.
    fn mark_drained(&mut self, want: WaitKind, port: Port, at: Duration) {
        let delay = match want {
            WaitKind::Reset => self.cfg.reset_delay,
            WaitKind::Conclude => self.cfg.conclude_delay,
            WaitKind::Disconnect => Duration::ZERO,
        };
        if let Phase::Waiting {
            kind,
            drained,
            until,
        } = &mut self.phase
            && *kind == want
            && drained[port.index()].is_none()
        {
            drained[port.index()] = Some(at);
            if let [Some(a), Some(b)] = *drained {
                *until = Some(a.max(b).saturating_add(delay));
            }
        }
        self.advance(self.now);
    }

    /// A line that is down cannot drain; a wait does not wait for it (the writer
    /// delivers what it owes when the line is back).
    fn skip_down_lines(&mut self) {
        if let Phase::Waiting { kind, .. } = self.phase {
            for port in Port::BOTH {
                if self.players[port.index()].line_down {
                    self.mark_drained(kind, port, self.now);
                }
            }
        }
    }

    /// A line from `port`; `given`, the record it was written from, when an in-process
    /// client handed it over (never a sealed line).
    fn on_line(&mut self, port: Port, at: Duration, bytes: &[u8], given: Option<Box<Record>>) {
        let (rec, sealed) = match given {
            Some(rec) => {
                debug_assert!(
                    rec.is_read_from(bytes),
                    "{}",
                    String::from_utf8_lossy(bytes)
                );
                self.players[port.index()].fresh = false;
                (*rec, false)
            }
            None => {
                let (body, sealed) = match seal::open(bytes) {
                    Seal::Valid { body, .. } => (&bytes[..body], true),
                    Seal::Broken => {
                        return self.corrupted(port, at, "its checksum does not match".into());
                    }
                    Seal::None => (bytes, false),
                };
                match Record::from_ascii(body) {
                    Ok(rec) => {
                        self.players[port.index()].fresh = false;
                        (rec, sealed)
                    }
                    // Empty (all-blank) lines are ignored, not noise.
                    Err(crate::epd::EpdError::Empty) => return,
                    Err(e) => return self.corrupted(port, at, e.to_string()),
                }
            }
        };
        if rec.refcom().is_some() {
            return self.on_refcom(port, &rec);
        }
        if rec.refreq() == Some("sign_on") {
            return self.on_sign_on(port, &rec, sealed);
        }
        if !sealed && self.sealed[port.index()].is_some() {
            return self.corrupted(port, at, "a record without its checksum".into());
        }
        match rec.refreq() {
            Some("sign_off") => self.on_sign_off(port),
            Some("fault") if rec.has(seal::AGAIN) => self.on_again(port, at, &rec),
            Some("fault") => {
                let reason = text_operand(&rec, "c0").unwrap_or_else(|| "no reason given".into());
                // A fault during a game is in its record, where it happened.
                if let Some(cur) = self.current.as_mut().filter(|c| c.finish.is_none()) {
                    let who = color_name(cur.color_of(port));
                    let played = cur.game.moves().len();
                    cur.faults
                        .push((played, format!("{who} reported a fault: {reason}")));
                }
                self.notice(Notice::ClientFault { port, reason });
            }
            Some("reply") => self.on_reply(port, at, &rec),
            Some(other) => {
                let reason = format!("unknown refreq {other:?}");
                self.notice(Notice::Noise { port, reason });
            }
            None => self.notice(Notice::Noise {
                port,
                reason: "a record without refreq".into(),
            }),
        }
    }

    fn on_sign_on(&mut self, port: Port, rec: &Record, sealed: bool) {
        // A player that seals its sign-on takes the checksum extension (its records go
        // on being numbered where they were); one that does not, leaves it.
        let extension = &mut self.sealed[port.index()];
        if !sealed {
            *extension = None;
        } else if extension.is_none() {
            *extension = Some(reliable::Sealed::default());
        }
        let name = rec
            .operands("tcsi")
            .and_then(|ops| ops.get(1))
            .and_then(Operand::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        if self.game_in_progress() {
            // Signed on again, after a sign_off too: in the game now, and in the next.
            self.players[port.index()].signed_on = true;
            let known = name.is_none() || name == self.players[port.index()].tcsi_name;
            if self.phase != Phase::Playing && known {
                // A client signs on until it hears from the referee: this one crossed
                // the reset on the line. It gets the reset again, and nobody is told.
                log::debug!("port {port}: a sign_on crossed the reset; reset sent again");
            } else {
                self.notice(Notice::Resync { port });
            }
            self.resync(port);
            return;
        }
        let player = &mut self.players[port.index()];
        // A client repeats its sign_on until it hears from the referee: that is said
        // once, and again only when something changes.
        let news = !player.signed_on || (name.is_some() && name != player.tcsi_name);
        if name.is_some() {
            player.tcsi_name = name.clone();
        }
        player.signed_on = true;
        if news {
            self.notice(Notice::SignedOn { port, name });
        }
        self.maybe_start();
    }

    fn on_sign_off(&mut self, port: Port) {
        self.players[port.index()].signed_on = false;
        self.notice(Notice::SignedOff { port });
        if self.game_in_progress() {
            let cur = self.current.as_ref().expect("in game");
            let color = cur.color_of(port);
            if self.cfg.attended {
                let reason = format!("{} signed off during the game", color_name(color));
                let fault = Self::fault_record(cur.game.position(), &reason);
                self.send_both(&fault, Tx::Other);
                return self.pause(PauseCause::SignOff(port), reason);
            }
            self.finish(Finish::new(
                GameResult::loss_for(color),
                Termination::Abandoned,
                format!("{} abandons the game", color_name(color)),
            ));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
