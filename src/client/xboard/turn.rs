//! A turn of the CECP adapter, as steps that take what happens (a line of the
//! engine's, the turn's deadline, its output lost) whoever waits for it: the blocking
//! [`Engine::think`] waits on the engine's output between them, the pollable
//! [`Engine::poll_think`] takes what is there when the caller's `poll` says so.

use std::time::{Duration, Instant};

use shakmaty::{Color, Move, Position};

use super::parse::{GameResult, Line, analysis, classify, is_bare_move};
use super::{Board, Decision, Engine, EngineError, Pending, Sent, Turn, XboardEngine};
use crate::epd::resolve_move;

/// A turn under way: what was sent, where it stands, and its deadline.
pub(super) struct TurnState {
    sent: Sent,
    /// How long the engine may think after `go` before it is asked to move now.
    budget: Duration,
    /// When the engine is hurried, or given up, or no longer waited for.
    pub(super) deadline: Instant,
    stage: Stage,
    pending: Pending,
    /// What the engine's board holds once it has been given the turn's position:
    /// with the engine's move, what it holds after a turn that ends with that move;
    /// `None` once anything went wrong (it is then set up afresh next turn).
    board: Option<Board>,
}

/// Where a turn stands.
#[derive(Copy, Clone, Debug)]
enum Stage {
    /// `ping N` was sent after the position; `go` follows `pong N`.
    Syncing(u32),
    /// `go` was sent, and `?` too when `hurried`.
    Searching { hurried: bool },
    /// The engine moved; what it sends with its move (a draw offer or claim) is
    /// collected up to the `pong` of this `ping` (engines with `ping`), else until the
    /// deadline.
    AfterMove { mv: Move, ping: Option<u32> },
}

/// What happens during a turn, whoever waits for it: [`Engine::think`] blocks on the
/// engine's output, [`Engine::poll_think`] takes what is there.
pub(super) enum Event {
    /// A line of the engine's.
    Line(String),
    /// The turn's deadline passed.
    Deadline,
    /// The engine's output could not be read.
    Lost(EngineError),
}

/// The engine's move `mv` with what it said before and after it.
fn moved(turn: &Turn<'_>, mv: Move, pending: &Pending) -> Decision {
    Decision::Move {
        mv,
        offer_draw: pending.offer_draw,
        claim_draw: pending.claim_draw,
        analysis: pending
            .thinking
            .as_ref()
            .map(|t| analysis(turn.position, t))
            .unwrap_or_default(),
    }
}

impl XboardEngine {
    /// The error for an engine that refused the position or a move of the game.
    fn refused(&self, text: &str) -> EngineError {
        EngineError::Failed(format!(
            "{} refused the game's position or moves: {text}",
            self.name()
        ))
    }

    /// Stops the engine's search (it may still be thinking) and returns `decision`.
    fn stop(&mut self, decision: Decision) -> Result<Decision, EngineError> {
        if let Err(e) = self.process.send("force") {
            log::warn!("{}: {e}", self.command);
        }
        Ok(decision)
    }

    /// Takes what happened during the turn under way (see [`Event`]): the decision,
    /// or the failure, once the turn is over; `None` while it goes on. The turn is
    /// over when it returns something.
    pub(super) fn step(
        &mut self,
        turn: &Turn<'_>,
        event: Event,
    ) -> Option<Result<Decision, EngineError>> {
        let Some(mut state) = self.turn.take() else {
            return Some(Err(EngineError::Failed("no turn was begun".into())));
        };
        let answer = match event {
            Event::Line(line) => self.take_line(turn, &mut state, &line),
            Event::Deadline => self.past_deadline(turn, &mut state),
            Event::Lost(e) => Some(self.lost(turn, &mut state, e)),
        };
        match &answer {
            None => self.turn = Some(state),
            // The engine moved and plays on: its board holds the game with its move.
            // After anything else (a failure, a resignation, a draw accepted or
            // claimed, which may leave the engine taking the game for over) its next
            // turn sets it up afresh.
            Some(Ok(Decision::Move {
                mv,
                claim_draw: false,
                ..
            })) => {
                self.board = state.board.take().map(|mut board| {
                    board.moves.push(*mv);
                    board
                });
            }
            Some(_) => {}
        }
        answer
    }

    /// Takes one line of the engine's during the turn.
    fn take_line(
        &mut self,
        turn: &Turn<'_>,
        state: &mut TurnState,
        line: &str,
    ) -> Option<Result<Decision, EngineError>> {
        match state.stage {
            Stage::Syncing(n) => self.take_sync_line(turn, state, n, line),
            Stage::Searching { .. } => self.take_search_line(turn, state, line),
            Stage::AfterMove { mv, ping } => {
                match classify(line) {
                    Line::Pong(n) if Some(n) == ping => {
                        return Some(Ok(moved(turn, mv, &state.pending)));
                    }
                    Line::OfferDraw => state.pending.offer_draw = true,
                    Line::Result(GameResult::Draw) => state.pending.claim_draw = true,
                    _ => log::debug!("{}: after the move: {line}", self.command),
                }
                None
            }
        }
    }

    /// A line before `pong n`, which comes before `go`: complaints about the position
    /// fail the turn, an accepted draw offer ends it, and the `pong` sends `go`.
    fn take_sync_line(
        &mut self,
        turn: &Turn<'_>,
        state: &mut TurnState,
        n: u32,
        line: &str,
    ) -> Option<Result<Decision, EngineError>> {
        match classify(line) {
            Line::Pong(m) if m == n => {
                if let Err(e) = self.process.send("go") {
                    return Some(Err(e));
                }
                state.stage = Stage::Searching { hurried: false };
                state.deadline = Instant::now() + state.budget;
            }
            Line::OfferDraw if turn.draw_offered => return Some(Ok(Decision::AcceptDraw)),
            other => return self.take_any_line(state, other, line),
        }
        None
    }

    /// A line that means the same before `go` and after it: a complaint about what was
    /// sent fails the turn, features are taken, the rest is only logged.
    fn take_any_line(
        &mut self,
        state: &TurnState,
        parsed: Line,
        line: &str,
    ) -> Option<Result<Decision, EngineError>> {
        match parsed {
            Line::IllegalMove(text) => return Some(Err(self.refused(&text))),
            Line::Error(command) if state.sent.concerns(&command) => {
                return Some(Err(self.refused(&command)));
            }
            Line::Error(command) => {
                log::warn!("{}: refused {command:?}", self.command);
            }
            Line::Feature(features) => {
                if let Err(e) = self.features(&features) {
                    return Some(Err(e));
                }
            }
            _ => log::debug!("{}: {line}", self.command),
        }
        None
    }

    /// A line after `go`: the engine's move (then what follows it is collected, see
    /// [`Stage::AfterMove`]), its thinking, a resignation, a draw offer or claim, a
    /// result, a complaint.
    fn take_search_line(
        &mut self,
        turn: &Turn<'_>,
        state: &mut TurnState,
        line: &str,
    ) -> Option<Result<Decision, EngineError>> {
        let side = turn.position.turn();
        let mut parsed = classify(line);
        if parsed == Line::Other && is_bare_move(turn.position, line) {
            parsed = Line::Move(line.trim().to_string());
        }
        match parsed {
            Line::Move(text) => {
                let Ok(mv) = resolve_move(turn.position, &text) else {
                    return Some(Err(EngineError::Failed(format!(
                        "{} played an illegal move {text:?}",
                        self.name()
                    ))));
                };
                // What the engine sends right after its move (a draw offer or claim)
                // goes with it: with `ping` up to the `pong`, without for a short while.
                let ping = if self.features.ping {
                    match self.ping() {
                        Ok(n) => Some(n),
                        Err(e) => return Some(Err(e)),
                    }
                } else {
                    None
                };
                state.deadline = Instant::now()
                    + if ping.is_some() {
                        self.timing.after_move
                    } else {
                        self.timing.trailing
                    };
                state.stage = Stage::AfterMove { mv, ping };
            }
            Line::Thinking(t) => state.pending.thinking = Some(t),
            Line::Resign => return Some(self.stop(Decision::Resign)),
            Line::OfferDraw if turn.draw_offered => return Some(self.stop(Decision::AcceptDraw)),
            Line::OfferDraw => state.pending.offer_draw = true,
            Line::Result(GameResult::Draw) => return Some(self.stop(Decision::ClaimDraw)),
            Line::Result(r @ (GameResult::WhiteWins | GameResult::BlackWins)) => {
                let own_loss = (r == GameResult::WhiteWins) == (side == Color::Black);
                if own_loss {
                    return Some(self.stop(Decision::Resign));
                }
                log::warn!(
                    "{}: claims a win without moving: {line}; ignored",
                    self.command
                );
            }
            other => return self.take_any_line(state, other, line),
        }
        None
    }

    /// The turn's deadline passed: no `pong` before `go` fails the turn; an engine
    /// that has not moved is asked to move now (`?`), and fails when it still has not
    /// after `Timing::move_now`; the lines after a move are not waited for any longer.
    fn past_deadline(
        &mut self,
        turn: &Turn<'_>,
        state: &mut TurnState,
    ) -> Option<Result<Decision, EngineError>> {
        match state.stage {
            Stage::Syncing(_) => Some(Err(EngineError::Timeout(format!(
                "{} did not answer within {:.1} s",
                self.command,
                self.timing.answer.as_secs_f64()
            )))),
            Stage::Searching { hurried: false } => {
                log::warn!(
                    "{}: no move after {:.1} s; asking it to move now",
                    self.command,
                    state.budget.as_secs_f64()
                );
                if let Err(e) = self.process.send("?") {
                    return Some(Err(e));
                }
                if self.features.sigint {
                    log::debug!(
                        "{}: the engine may need SIGINT to notice ?, which the adapter \
                         does not send",
                        self.command
                    );
                }
                state.stage = Stage::Searching { hurried: true };
                state.deadline = Instant::now() + self.timing.move_now;
                // An engine that overran its time is set up afresh next turn, whatever
                // state the `?` left it in.
                state.board = None;
                None
            }
            Stage::Searching { hurried: true } => Some(Err(EngineError::Failed(format!(
                "{} made no move within {:.1} s",
                self.name(),
                (state.budget + self.timing.move_now).as_secs_f64()
            )))),
            Stage::AfterMove { mv, ping } => {
                if ping.is_some() {
                    log::warn!("{}: no pong after its move", self.command);
                    // What it still has to say would come at the next turn.
                    state.board = None;
                }
                Some(Ok(moved(turn, mv, &state.pending)))
            }
        }
    }

    /// The engine's output could not be read (it exited, or the client's stop fired):
    /// the turn fails, unless the move is there already (a failure then shows at the
    /// next turn).
    fn lost(
        &mut self,
        turn: &Turn<'_>,
        state: &mut TurnState,
        e: EngineError,
    ) -> Result<Decision, EngineError> {
        match state.stage {
            Stage::AfterMove { mv, .. } => {
                log::warn!("{e}");
                state.board = None;
                Ok(moved(turn, mv, &state.pending))
            }
            Stage::Syncing(_) | Stage::Searching { .. } => Err(e),
        }
    }
}

impl XboardEngine {
    /// Begins a turn: the engine's stale output is discarded, and the turn's commands
    /// (the new moves or the whole set-up, the clocks, `ping` or `go`) are sent in one
    /// write. What the engine's board holds is forgotten until the turn ends with a
    /// move, so that any failure sets it up afresh next turn.
    pub(super) fn begin(&mut self, turn: &Turn<'_>) -> Result<(), EngineError> {
        self.turn = None;
        self.drain();
        self.process.hold();
        let begun = self.begin_held(turn);
        // A turn given up before its first wait sends what it had set up, as before.
        let released = self.process.release();
        if begun.is_err() {
            self.turn = None;
        }
        begun?;
        if let Err(e) = released {
            self.turn = None;
            return Err(e);
        }
        Ok(())
    }

    /// [`XboardEngine::begin`] once the engine's input is held: gives the position
    /// (the new moves, or a set-up) and the time, offers the draw, and sends `ping`
    /// (`go` follows its `pong`) or `go`.
    fn begin_held(&mut self, turn: &Turn<'_>) -> Result<(), EngineError> {
        let mut sent = Sent::default();
        let mut board = self.give_position(turn, &mut sent)?;
        let budget = self.set_time(turn, &mut board.level)?;
        if turn.draw_offered && self.features.draw {
            self.process.send("draw")?;
        }
        let (stage, deadline) = if self.features.ping {
            let deadline = Instant::now() + self.timing.answer;
            (Stage::Syncing(self.ping()?), deadline)
        } else {
            self.process.send("go")?;
            (Stage::Searching { hurried: false }, Instant::now() + budget)
        };
        self.turn = Some(TurnState {
            sent,
            budget,
            deadline,
            stage,
            pending: Pending::default(),
            board: Some(board),
        });
        Ok(())
    }
}
