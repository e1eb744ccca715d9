//! A game between two local engines that can be polled (UCI, CECP, the random mover) on
//! Unix: both client sessions run on the game's own thread, beside its referee
//! ([`mediator::Local`]), and the thread waits in `poll` for the engine that thinks, the
//! deadlines and the event (a pipe that the event's thread writes to once it has told
//! the game something: a console command, a stop). A ply wakes that one thread: the
//! engine's move (UCI's `bestmove`, CECP's `move`) is read, judged, journaled and turned
//! into the other engine's `go` before it sleeps again. Other games run their clients
//! on threads of their own (`game.rs`).

use std::io::{PipeReader, PipeWriter, Read as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Sender;

use crate::client::session::LocalSession;
use crate::mediator::{self, Control};
use crate::transport::{poll_millis, set_nonblocking};

/// Wakes a local game's thread from its `poll`.
#[derive(Clone, Debug)]
pub(super) struct Waker(Arc<PipeWriter>);

impl Waker {
    /// Wakes the game (a pipe already full has woken it).
    pub(super) fn wake(&self) {
        let _ = (&*self.0).write(&[1]);
    }
}

/// A pipe for a local game: its end to `poll`, and the [`Waker`] that writes to it.
/// Both ends are non-blocking.
pub(super) fn wake_pipe() -> std::io::Result<(PipeReader, Waker)> {
    let (read, write) = std::io::pipe()?;
    set_nonblocking(read.as_raw_fd())?;
    set_nonblocking(write.as_raw_fd())?;
    Ok((read, Waker(Arc::new(write))))
}

/// The two sessions of a local game.
pub(super) struct LocalPair<'a> {
    pub(super) sessions: Vec<LocalSession<'a>>,
    /// The end of the game's wake pipe.
    pub(super) woken: Option<PipeReader>,
    /// The game's control channel: an engine that fails for good loses the game there.
    pub(super) control: Sender<Control>,
    /// The players' names, White's first.
    pub(super) names: [String; 2],
    /// Whether each session's end was dealt with.
    pub(super) reported: [bool; 2],
}

impl mediator::Local for LocalPair<'_> {
    fn pump(&mut self) -> bool {
        let mut busy = false;
        for (i, session) in self.sessions.iter_mut().enumerate() {
            busy |= session.pump();
            if session.is_over() && !self.reported[i] {
                self.reported[i] = true;
                if let Some(e) = session.engine_failure() {
                    let _ = self
                        .control
                        .send(super::control::engine_failed(i, &self.names[i], e));
                }
            }
        }
        busy
    }

    fn wait(&mut self, until: Instant) {
        let until = self
            .sessions
            .iter()
            .filter_map(LocalSession::wake_at)
            .fold(until, Instant::min);
        let mut fds = Vec::with_capacity(2);
        let mut whose = Vec::with_capacity(2);
        for (i, session) in self.sessions.iter().enumerate() {
            if let Some(fd) = session.wait_fd() {
                fds.push(libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                });
                whose.push(i);
            }
        }
        if let Some(woken) = &self.woken {
            fds.push(libc::pollfd {
                fd: woken.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let ms = poll_millis(until.saturating_duration_since(Instant::now()));
        let Ok(count) = libc::nfds_t::try_from(fds.len()) else {
            return;
        };
        // SAFETY: `fds` holds `count` valid pollfd; poll with no descriptors sleeps.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), count, ms) };
        if n > 0 {
            for (fd, &i) in fds.iter().zip(&whose) {
                if fd.revents != 0 {
                    self.sessions[i].readable();
                }
            }
            if let (Some(woken), Some(fd)) = (&mut self.woken, fds.get(whose.len()))
                && fd.revents != 0
            {
                // Emptied: the mediator reads its control channel next.
                let mut buf = [0u8; 64];
                while matches!(woken.read(&mut buf), Ok(n) if n > 0) {}
            }
        }
    }
}
