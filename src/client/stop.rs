//! Stopping a client at once. The referee's `disconnect`, a signal (Ctrl-C, SIGTERM,
//! SIGHUP) or the loss of the line ends the client even while its engine thinks: the
//! protocol driver, the engine's waits and the signal handler share one [`Stop`], and
//! every wait of an engine adapter ends as soon as it fires.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

/// Why a client stops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The referee said `disconnect`.
    Disconnect,
    /// The user or the system asked the client to stop (Ctrl-C, SIGTERM, SIGHUP).
    Interrupted,
    /// The line to the referee failed or closed.
    LineLost,
}

/// A request to stop, shared between threads; it fires once and stays fired.
#[derive(Clone, Debug)]
pub struct Stop {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    reason: Mutex<Option<StopReason>>,
    /// Dropped when the stop fires, which wakes every wait on `fired`.
    sender: Mutex<Option<Sender<()>>>,
    fired: Receiver<()>,
    /// A pipe whose writing end is dropped when the stop fires, for a wait in `poll`
    /// (an engine's output read where it is waited for); made when first asked for.
    #[cfg(unix)]
    wake: Mutex<Wake>,
}

/// The ends of [`Inner::wake`]'s pipe.
#[cfg(unix)]
#[derive(Debug, Default)]
struct Wake {
    read: Option<std::io::PipeReader>,
    write: Option<std::io::PipeWriter>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Default for Stop {
    fn default() -> Stop {
        Stop::new()
    }
}

impl Stop {
    /// A stop that has not fired.
    pub fn new() -> Stop {
        let (sender, fired) = crossbeam_channel::bounded(0);
        Stop {
            inner: Arc::new(Inner {
                reason: Mutex::new(None),
                sender: Mutex::new(Some(sender)),
                fired,
                #[cfg(unix)]
                wake: Mutex::new(Wake::default()),
            }),
        }
    }

    /// Fires the stop. The first reason given is kept.
    pub fn fire(&self, reason: StopReason) {
        lock(&self.inner.reason).get_or_insert(reason);
        lock(&self.inner.sender).take();
        #[cfg(unix)]
        lock(&self.inner.wake).write.take();
    }

    /// A file descriptor that is readable (at end of file) once the stop fired, for
    /// `poll`; `None` when no pipe can be made. It stays open as long as the stop.
    #[cfg(unix)]
    pub fn wake_fd(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        let mut wake = lock(&self.inner.wake);
        if wake.read.is_none() {
            let (read, write) = std::io::pipe().ok()?;
            wake.read = Some(read);
            // A stop that fired already keeps no writing end: the pipe is at its end
            // at once. One that fires later drops it (after this lock is let go).
            if !self.is_set() {
                wake.write = Some(write);
            }
        }
        wake.read.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// Why it fired, if it did.
    pub fn reason(&self) -> Option<StopReason> {
        *lock(&self.inner.reason)
    }

    /// Whether it fired.
    pub fn is_set(&self) -> bool {
        self.reason().is_some()
    }

    /// A channel that never carries a value and is closed once the stop fires: a
    /// `select!` on it wakes when the stop fires.
    pub fn fired(&self) -> &Receiver<()> {
        &self.inner.fired
    }

    /// Sleeps for `wait`, or until the stop fires; returns whether it fired.
    pub fn sleep(&self, wait: Duration) -> bool {
        !matches!(
            self.inner.fired.recv_timeout(wait),
            Err(RecvTimeoutError::Timeout)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn fires_once_and_wakes_every_wait() {
        let stop = Stop::new();
        assert!(!stop.is_set());
        assert!(!stop.sleep(Duration::from_millis(10)));
        let other = stop.clone();
        let waiter = std::thread::spawn(move || other.sleep(Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        stop.fire(StopReason::Disconnect);
        assert!(waiter.join().unwrap());
        assert!(started.elapsed() < Duration::from_secs(1));
        stop.fire(StopReason::Interrupted);
        assert_eq!(stop.reason(), Some(StopReason::Disconnect));
        assert!(stop.sleep(Duration::from_secs(30)));
        assert!(stop.fired().recv().is_err());
    }

    /// Whether `fd` is readable (or at its end) within `ms`.
    #[cfg(unix)]
    fn ready(fd: std::os::fd::RawFd, ms: i32) -> bool {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&raw mut pfd, 1, ms) == 1 }
    }

    #[cfg(unix)]
    #[test]
    fn its_pipe_wakes_a_poll_when_it_fires_and_at_once_when_it_fired_before() {
        let stop = Stop::new();
        let fd = stop.wake_fd().unwrap();
        assert_eq!(stop.wake_fd(), Some(fd), "one pipe");
        assert!(!ready(fd, 0));
        let other = stop.clone();
        let firing = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            other.fire(StopReason::Interrupted);
        });
        assert!(ready(fd, 30_000));
        firing.join().unwrap();
        let fired = Stop::new();
        fired.fire(StopReason::Disconnect);
        assert!(ready(fired.wake_fd().unwrap(), 0));
    }
}
