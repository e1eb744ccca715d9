//! A client session driven by its referee's thread: `argus serve`'s local game between
//! two pollable engines (Unix). The session is the same protocol driver as [`run`](super::run)'s;
//! what differs is who waits. [`run`](super::run) waits on a thread of its own for the line and
//! the engine; here the referee's thread gives the session its turn
//! ([`LocalSession::pump`]) whenever the referee sent it a line or its engine's output
//! is readable ([`LocalSession::wait_fd`]), and wakes it at its engine's deadlines
//! ([`LocalSession::wake_at`]). A ply then wakes one thread: the engine's `bestmove`
//! is read, judged, relayed and turned into the other engine's `go` by the thread that
//! `poll` woke.

use std::os::fd::RawFd;

use crossbeam_channel::TryRecvError;

use std::time::Instant;

use super::driver::{Driver, Next, show_fault};
use super::engine::{Engine, EngineError, Keep};
use super::error::ClientError;
use super::framing::Incoming;
use super::line::PortEvent;
use super::options::{ClientOptions, ClientSummary};
use super::stop::{Stop, StopReason};
use super::timing::SIGN_ON_AGAIN;
use crate::transport::memory;

/// A client session on its referee's thread, over an in-process line
/// ([`memory::direct_pair`]).
pub struct LocalSession<'a> {
    driver: Driver<'a>,
    /// How the session ended, once it has.
    ended: Option<Result<(), ClientError>>,
    /// Whether the engine's output was found readable since the session last acted.
    readable: bool,
}

impl<'a> LocalSession<'a> {
    /// Signs on over `end` for `engine` (a pollable one, [`Engine::pollable`]). The
    /// session ends at the referee's `disconnect`, when `stop` fires, or when the
    /// engine fails and cannot be restarted.
    pub fn new(
        end: memory::ClientEnd,
        engine: &'a mut dyn Engine,
        opts: &'a ClientOptions,
        stop: &'a Stop,
    ) -> LocalSession<'a> {
        let mut driver = Driver::new(engine, end.writer, end.lines, opts, stop, true, true);
        let ended = match stop.reason() {
            Some(reason) => Some(driver.leave(reason)),
            None => driver.sign_on().err().map(Err),
        };
        LocalSession {
            driver,
            ended,
            readable: false,
        }
    }

    /// Acts on what is there, without waiting: the lines the referee sent, in order,
    /// and the engine's answer once it is there (lines that come while the engine
    /// thinks wait for it, as in [`run`](super::run)). Returns whether anything was done.
    pub fn pump(&mut self) -> bool {
        if self.ended.is_some() {
            return false;
        }
        let readable = std::mem::take(&mut self.readable);
        match self.driver.step(readable) {
            Ok(Step::Idle) => false,
            Ok(Step::Busy) => true,
            Ok(Step::Left) => {
                let reason = self.driver.stop.reason().unwrap_or(StopReason::Disconnect);
                self.ended = Some(self.driver.leave(reason));
                true
            }
            Err(e) => {
                self.ended = Some(Err(e));
                true
            }
        }
    }

    /// Whether the session has ended.
    pub fn is_over(&self) -> bool {
        self.ended.is_some()
    }

    /// The engine's failure that ended the session (it could not be restarted).
    pub fn engine_failure(&self) -> Option<&EngineError> {
        match &self.ended {
            Some(Err(ClientError::Engine(e))) => Some(e),
            _ => None,
        }
    }

    /// The descriptor to `poll` for the engine's output while it thinks; once `poll`
    /// finds it readable, [`LocalSession::readable`] says so before the next pump.
    pub fn wait_fd(&self) -> Option<RawFd> {
        if self.ended.is_some() || self.driver.thinking.is_none() {
            return None;
        }
        self.driver.engine.output_fd()
    }

    /// The engine's output is readable.
    pub fn readable(&mut self) {
        self.readable = true;
    }

    /// When the session must be pumped even if nothing comes: the engine's deadline
    /// while it thinks, and the next sign-on until the referee is heard from.
    pub fn wake_at(&self) -> Option<Instant> {
        if self.ended.is_some() {
            return None;
        }
        let driver = &self.driver;
        let thinking = driver
            .thinking
            .as_ref()
            .and_then(|_| driver.engine.wake_at());
        let sign_on = (!driver.heard).then(|| driver.signed_on_at + SIGN_ON_AGAIN);
        thinking.into_iter().chain(sign_on).min()
    }

    /// Ends the session (the referee ended, or the session's stop fired): the engine
    /// is ended too. Returns what the session came to, as [`run_until`](super::run_until) does.
    ///
    /// # Errors
    ///
    /// As [`run_until`](super::run_until).
    pub fn finish(mut self) -> Result<ClientSummary, ClientError> {
        self.end()
    }

    /// As [`LocalSession::finish`], except that an engine whose session ended well (at
    /// the referee's `disconnect`) is left running as `keep` says, for its host to play
    /// again: its next session's game begins with `ucinewgame` (UCI) or `new` (CECP), as
    /// cutechess-cli and fastchess do. Returns also whether it was left running; one
    /// that was not has been ended.
    pub fn finish_keeping(mut self, keep: Keep) -> (Result<ClientSummary, ClientError>, bool) {
        self.driver.keep_engine = keep;
        let outcome = self.end();
        (outcome, self.driver.kept)
    }

    fn end(&mut self) -> Result<ClientSummary, ClientError> {
        let outcome = match self.ended.take() {
            Some(outcome) => outcome,
            None => {
                let reason = self.driver.stop.reason().unwrap_or(StopReason::Disconnect);
                self.driver.leave(reason)
            }
        };
        self.driver.end(outcome)
    }
}

/// What a step of a local session came to.
enum Step {
    /// Nothing was there.
    Idle,
    /// Something was done.
    Busy,
    /// The session is over (the referee's `disconnect`, or the stop fired).
    Left,
}

impl Driver<'_> {
    /// One turn of a local session: the engine's answer if it is there, then the
    /// referee's lines.
    fn step(&mut self, readable: bool) -> Result<Step, ClientError> {
        let mut busy = false;
        if self.stop.is_set() {
            return Ok(Step::Left);
        }
        if let Some(thinking) = &self.thinking {
            // An engine whose output ended is read for its error.
            let readable = readable || self.engine.output_fd().is_none();
            if let Some(thought) = self
                .engine
                .poll_think(&thinking.turn(&self.state), readable)
                && let Some(thinking) = self.thinking.take()
            {
                busy = true;
                if let Next::Leave = self.thought(thinking.rec, thinking.arrived, thought)? {
                    return Ok(Step::Left);
                }
            }
        }
        loop {
            if self.stop.is_set() {
                return Ok(Step::Left);
            }
            if self.thinking.is_none()
                && let Some(received) = self.pending.pop_front()
            {
                busy = true;
                if let Next::Leave = self.take(received)? {
                    return Ok(Step::Left);
                }
                continue;
            }
            let event = match self.link.events.try_recv() {
                Ok(event) => event,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Err(self.link.hung_up()),
            };
            busy = true;
            match event {
                PortEvent::Line(line, record, at) => {
                    let received = self.link.receive(line, record, at);
                    match &received.what {
                        // While the engine thinks, as [`Driver::engine_call`] does: a
                        // fault is shown at once, a disconnect ends the session.
                        Incoming::Record(rec)
                            if self.thinking.is_some() && rec.refcom() == Some("fault") =>
                        {
                            show_fault(rec);
                        }
                        Incoming::Record(rec)
                            if self.thinking.is_some() && rec.refcom() == Some("disconnect") =>
                        {
                            self.stop.fire(StopReason::Disconnect);
                        }
                        _ => self.pending.push_back(received),
                    }
                }
                PortEvent::Closed => return Err(self.link.hung_up()),
                PortEvent::Failed(e) => return Err(self.link.io_err(e)),
            }
        }
        if !self.heard && self.signed_on_at.elapsed() >= SIGN_ON_AGAIN {
            busy = true;
            self.sign_on()?;
        }
        self.link.timers(&self.state.pos)?;
        Ok(if busy { Step::Busy } else { Step::Idle })
    }
}
