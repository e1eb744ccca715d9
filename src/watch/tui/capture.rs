//! While the view is up, what argus (and the engines it starts, whose standard error
//! is argus's) writes on standard output and standard error goes into a pipe, and
//! from there into the view's log, line by line, instead of onto the screen. The
//! view itself draws on a copy of the terminal's descriptor taken before.

use std::fs::File;
use std::io::{self, BufRead as _, BufReader, Write as _};
use std::os::fd::{FromRawFd as _, RawFd};

use crossbeam_channel::Receiver;

/// Standard output and error, turned into a pipe; see the module's documentation.
pub struct Capture {
    /// The descriptors 1 and 2 were, to put back.
    saved: [RawFd; 2],
    /// The pipe's end they write to now.
    write: RawFd,
}

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// A copy of `fd` that no child process inherits.
fn dup_cloexec(fd: RawFd) -> io::Result<RawFd> {
    // SAFETY: fcntl on a descriptor this process owns, asking for a new one.
    check(unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) })
}

impl Capture {
    /// Turns standard output and error into the pipe; returns the capture, a copy of
    /// the terminal (standard output as it was) to draw on, and the lines as they come.
    pub fn start() -> io::Result<(Capture, File, Receiver<String>)> {
        let _ = io::stdout().flush();
        let _ = io::stderr().flush();
        let mut fds = [0; 2];
        // SAFETY: pipe fills the two descriptors it is given.
        check(unsafe { libc::pipe(fds.as_mut_ptr()) })?;
        let [read, write] = fds;
        for fd in fds {
            // SAFETY: fcntl on the pipe's own descriptors.
            check(unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) })?;
        }
        let saved = [dup_cloexec(1)?, dup_cloexec(2)?];
        let tty_fd = dup_cloexec(1)?;
        // SAFETY: dup2 onto the standard descriptors, which stay open throughout.
        check(unsafe { libc::dup2(write, 1) })?;
        check(unsafe { libc::dup2(write, 2) })?;
        // SAFETY: the descriptors are this process's own, each owned by one File.
        let (reader, tty) = unsafe { (File::from_raw_fd(read), File::from_raw_fd(tty_fd)) };
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("argus-view-log".into())
            .spawn(move || {
                let mut reader = BufReader::new(reader);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    match reader.read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            let text = String::from_utf8_lossy(&line);
                            for part in text.trim_end_matches(['\n', '\r']).split('\r') {
                                if tx.send(part.to_string()).is_err() {
                                    // The view is gone: keep the pipe drained.
                                }
                            }
                        }
                    }
                }
            })?;
        Ok((Capture { saved, write }, tty, rx))
    }

    /// Puts standard output and error back; the pipe ends when the last process
    /// writing to it (an engine started meanwhile) is gone.
    pub fn restore(&mut self) {
        let _ = io::stdout().flush();
        let _ = io::stderr().flush();
        // SAFETY: the saved descriptors are still open; each is closed once, here.
        unsafe {
            libc::dup2(self.saved[0], 1);
            libc::dup2(self.saved[1], 2);
            libc::close(self.saved[0]);
            libc::close(self.saved[1]);
            libc::close(self.write);
        }
    }
}
