//! A chess engine as a child process that speaks in lines: the plumbing shared by the
//! UCI and CECP adapters, with no chess in it.
//!
//! [`EngineProcess::spawn`] starts the engine with piped standard input and output;
//! its output is cut into lines (`engine_output.rs`: on Unix, read in `poll` by the
//! thread that waits for it), so that every read ([`EngineProcess::recv`],
//! [`EngineProcess::recv_until`]) waits with a deadline and a stalled engine never
//! stalls the client. The process is killed (and
//! reaped) by [`EngineProcess::kill`] or when the value is dropped.
//!
//! On Unix the engine runs in a process group of its own, so that killing it also
//! kills whatever a wrapper script started. (It also means that a Ctrl-C at the
//! terminal reaches the client, not the engine: the client ends it, with
//! [`EngineProcess::quit`], or with [`kill_all`] when it must exit at once.)
//!
//! Given a [`Stop`] ([`EngineProcess::watch`]), every read ends as soon as the stop
//! fires, with [`EngineError::Interrupted`].
//!
//! Every failure is an [`EngineError`]: [`EngineError::Start`] when the process cannot
//! be started, [`EngineError::Failed`] when it exits, closes its output, or does not
//! answer by the deadline. Nothing the engine writes can make this module panic: its
//! output is read as bytes, decoded leniently, and cut into lines of bounded length.

use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::EngineError;
pub use super::engine_output::MAX_LINE_LEN;
use super::engine_output::{Output, Wait};
use super::stop::Stop;

/// How long a read that found the output closed waits for the process to exit, so that
/// the error can carry its exit status.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How long [`EngineProcess::quit`] waits for an engine to exit after asking it to quit,
/// before it kills it.
pub const QUIT_GRACE: Duration = Duration::from_millis(300);

/// The engines running, by process id (each leads its own process group on Unix), for
/// [`kill_all`].
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn running() -> std::sync::MutexGuard<'static, Vec<u32>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Kills every engine this process started and has not yet reaped (with its process
/// group on Unix), for a client that must exit at once (a second Ctrl-C). Elsewhere
/// than on Unix it does nothing.
pub fn kill_all() {
    let pids = std::mem::take(&mut *running());
    #[cfg(unix)]
    for pid in pids {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: `kill` has no memory-safety preconditions; every pid in the list
            // leads its own process group and is removed from it before it is reaped.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    drop(pids);
}

/// Removes `pid` from the engines [`kill_all`] would kill (it is about to be reaped).
fn forget(pid: u32) {
    running().retain(|&p| p != pid);
}

/// A running engine process with line-based input and output.
///
/// Lines sent to the engine end with `\n`; lines read from it lose their `\n` or
/// `\r\n`. Both directions are logged at debug level (`> line` and `< line`, prefixed
/// with the process id).
pub struct EngineProcess {
    command: String,
    child: Child,
    stdin: Option<ChildStdin>,
    output: Output,
    /// Set once the process was killed or found to have exited.
    status: Option<ExitStatus>,
    killed: bool,
    /// Ends every read when it fires.
    stop: Option<Stop>,
    /// Lines sent while held ([`EngineProcess::hold`]), not yet written.
    held: Option<Vec<u8>>,
    /// The bytes of one [`EngineProcess::send_all`], kept from one send to the next.
    out: Vec<u8>,
}

impl EngineProcess {
    /// Starts `command`, split into a program and its arguments at white space, where a
    /// double-quoted part (`"my engine" --flag`, `--opt="a b"`) keeps its spaces and
    /// loses its quotes; there are no other escapes. The engine's standard input and
    /// output are piped and its standard error is inherited.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Start`] when the command is empty, has an unmatched
    /// double quote, or cannot be run.
    pub fn spawn(command: &str) -> Result<EngineProcess, EngineError> {
        EngineProcess::spawn_in(command, None, &[])
    }

    /// As [`EngineProcess::spawn`], the engine working in `dir` when given (fastchess's
    /// and cutechess-cli's `dir=`): a program named by a relative path, or by a bare
    /// name that is a file in `dir`, is the one in `dir`; a bare name that is not is
    /// looked for on the `PATH`. The lines of `init` (each text's lines) are sent to it
    /// as it starts (cutechess-cli's `initstr=`).
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::spawn`].
    pub fn spawn_in(
        command: &str,
        dir: Option<&Path>,
        init: &[String],
    ) -> Result<EngineProcess, EngineError> {
        let start_err = |reason: String| EngineError::Start {
            command: command.to_string(),
            reason,
        };
        let words = split_command(command).map_err(start_err)?;
        let Some((program, args)) = words.split_first() else {
            return Err(start_err("the command is empty".to_string()));
        };
        let mut cmd = match dir {
            Some(dir) => {
                let in_dir = dir.join(program);
                let relative = Path::new(program).is_relative()
                    && (program.contains(std::path::MAIN_SEPARATOR) || program.contains('/'));
                let mut cmd = if relative || in_dir.is_file() {
                    Command::new(std::path::absolute(&in_dir).unwrap_or(in_dir))
                } else {
                    Command::new(program)
                };
                cmd.current_dir(dir);
                cmd
            }
            None => Command::new(program),
        };
        // The player's token is the client's, not its engine's.
        cmd.env_remove(crate::client::TOKEN_ENV);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| start_err(e.to_string()))?;
        let stdin = child.stdin.take();
        let Some(stdout) = child.stdout.take() else {
            kill_child(&mut child);
            return Err(start_err("no standard output".to_string()));
        };
        let pid = child.id();
        let output = match Output::new(stdout, pid) {
            Ok(output) => output,
            Err(e) => {
                kill_child(&mut child);
                return Err(start_err(format!("cannot read its output: {e}")));
            }
        };
        log::debug!("engine {pid} started: {command}");
        running().push(pid);
        let mut process = EngineProcess {
            command: command.to_string(),
            child,
            stdin,
            output,
            status: None,
            killed: false,
            stop: None,
            held: None,
            out: Vec::new(),
        };
        for line in init.iter().flat_map(|text| text.lines()) {
            process.send(line)?;
        }
        Ok(process)
    }

    /// Ends every read (now and later) as soon as `stop` fires, with
    /// [`EngineError::Interrupted`].
    pub fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
    }

    /// Stops watching the stop given to [`EngineProcess::watch`]: waits end at their
    /// deadlines only.
    pub fn unwatch(&mut self) {
        self.stop = None;
    }

    /// Whether the engine is still running (it was not killed, and has not exited). One
    /// found to have exited is reaped here, its status kept.
    pub fn running(&mut self) -> bool {
        if self.killed || self.status.is_some() {
            return false;
        }
        matches!(self.try_reap(), Ok(None))
    }

    /// Reaps the engine if it has exited: its status is kept and its pid let go (so
    /// that nothing kills that pid later). Returns the status, `None` while it runs.
    fn try_reap(&mut self) -> std::io::Result<Option<ExitStatus>> {
        let status = self.child.try_wait()?;
        if let Some(status) = status {
            forget(self.child.id());
            self.status = Some(status);
        }
        Ok(status)
    }

    /// The next line by `deadline`, unless the stop fires first.
    fn next_line(&mut self, deadline: Instant) -> Result<String, Wait> {
        self.output.next_line(deadline, self.stop.as_ref())
    }

    /// The command line the engine was started with.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Writes `line` and a `\n` to the engine's input and flushes it.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Failed`] when the engine's input is closed (it exited or
    /// was killed) or the write fails.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        self.send_all(&[line])
    }

    /// Writes `lines`, each with a `\n`, to the engine's input in one write, and
    /// flushes it: the engine wakes once for them (`position` and `go`).
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::send`].
    pub fn send_all(&mut self, lines: &[&str]) -> Result<(), EngineError> {
        for line in lines {
            log::debug!("engine {} > {line}", self.child.id());
        }
        if self.stdin.is_none() {
            return Err(self.gone());
        }
        let len = lines.iter().map(|l| l.len() + 1).sum();
        if let Some(held) = self.held.as_mut() {
            held.reserve(len);
            for line in lines {
                held.extend_from_slice(line.as_bytes());
                held.push(b'\n');
            }
            return Ok(());
        }
        let mut bytes = std::mem::take(&mut self.out);
        bytes.clear();
        bytes.reserve(len);
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        let written = self.write(&bytes);
        self.out = bytes;
        written
    }

    /// Holds what is sent from now on, to go in one write at the next read (or at
    /// [`EngineProcess::release`]): a turn's commands (a CECP engine is sent the whole
    /// game each turn) wake the engine once, and cost one system call.
    pub fn hold(&mut self) {
        self.held.get_or_insert_with(Vec::new);
    }

    /// Writes what was held, and sends at once again.
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::send`].
    pub fn release(&mut self) -> Result<(), EngineError> {
        match self.held.take() {
            Some(bytes) if !bytes.is_empty() => self.write(&bytes),
            _ => Ok(()),
        }
    }

    /// Writes `bytes` to the engine's input and flushes it.
    fn write(&mut self, bytes: &[u8]) -> Result<(), EngineError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.gone());
        };
        match stdin.write_all(bytes).and_then(|()| stdin.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.stdin = None;
                Err(self.gone())
            }
            Err(e) => Err(EngineError::Failed(format!(
                "{}: cannot write to it: {e}",
                self.command
            ))),
        }
    }

    /// Returns the engine's next line, waiting until `deadline` at most. Lines already
    /// received are returned even after the engine exited.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Failed`] when no line came by the deadline (`... did not
    /// answer within ...`) or the engine closed its output (`... exited (status)`).
    pub fn recv(&mut self, deadline: Instant) -> Result<String, EngineError> {
        self.release()?;
        let asked = Instant::now();
        match self.next_line(deadline) {
            Ok(line) => Ok(line),
            Err(Wait::Timeout) => Err(self.timeout(asked, deadline)),
            Err(Wait::Gone) => Err(self.gone()),
            Err(Wait::Stopped) => Err(EngineError::Interrupted),
        }
    }

    /// The next line the engine wrote, without waiting: when `read` (a `poll` of
    /// [`EngineProcess::output_fd`] found it readable) what it wrote is read first, once.
    /// `None` when no line is there yet.
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::recv`], when the engine closed its output and every line it
    /// wrote was taken.
    #[cfg(unix)]
    pub fn try_recv(&mut self, read: bool) -> Result<Option<String>, EngineError> {
        self.release()?;
        if let Some(line) = self.output.pop() {
            return Ok(Some(line));
        }
        if read {
            self.output.fill();
            if let Some(line) = self.output.pop() {
                return Ok(Some(line));
            }
        }
        if self.output.ended() {
            return Err(self.gone());
        }
        Ok(None)
    }

    /// The descriptor a caller `poll`s for the engine's output (then
    /// [`EngineProcess::try_recv`]); `None` once the output ended.
    #[cfg(unix)]
    pub fn output_fd(&self) -> Option<std::os::fd::RawFd> {
        self.output.fd()
    }

    /// Returns the first line for which `pred` holds, skipping (and discarding) the
    /// lines before it, waiting until `deadline` at most.
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::recv`].
    pub fn recv_until(
        &mut self,
        deadline: Instant,
        mut pred: impl FnMut(&str) -> bool,
    ) -> Result<String, EngineError> {
        self.release()?;
        let asked = Instant::now();
        loop {
            match self.next_line(deadline) {
                Ok(line) if pred(&line) => return Ok(line),
                Ok(_) => {}
                Err(Wait::Timeout) => return Err(self.timeout(asked, deadline)),
                Err(Wait::Gone) => return Err(self.gone()),
                Err(Wait::Stopped) => return Err(EngineError::Interrupted),
            }
        }
    }

    /// Ends the engine for good: sends `lines` (such as `stop` and `quit`), closes its
    /// input, waits up to `grace` for it to exit, and kills it (with its process group)
    /// when it has not. It never blocks for much longer than `grace`.
    pub fn quit(&mut self, lines: &[&str], grace: Duration) {
        if self.killed {
            return;
        }
        // What was held goes first (a write that fails is the engine gone, which the
        // lines below find too).
        let _ = self.release();
        if self.status.is_none() {
            for line in lines {
                if self.send(line).is_err() {
                    break;
                }
            }
            self.stdin = None;
            let until = Instant::now() + grace;
            loop {
                match self.try_reap() {
                    Ok(Some(status)) => {
                        log::debug!("engine {} quit ({status})", self.child.id());
                        break;
                    }
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Ok(None) => {
                        log::info!(
                            "{} did not quit within {:.1} s: killing it",
                            self.command,
                            grace.as_secs_f64()
                        );
                        break;
                    }
                    Err(e) => {
                        log::warn!("engine {}: wait: {e}", self.child.id());
                        break;
                    }
                }
            }
        }
        self.kill();
    }

    /// Kills the engine and reaps it. It never blocks for long and may be called more
    /// than once; dropping the value does the same.
    pub fn kill(&mut self) {
        // Closing the input first lets a well-behaved engine see end of file.
        self.stdin = None;
        self.held = None;
        if self.killed {
            return;
        }
        self.killed = true;
        if self.status.is_none() && !matches!(self.try_reap(), Ok(Some(_))) {
            kill_child(&mut self.child);
        }
        log::debug!("engine {} stopped", self.child.id());
    }

    /// The error for a read asked at `asked` that found no line by `deadline`.
    fn timeout(&self, asked: Instant, deadline: Instant) -> EngineError {
        EngineError::Timeout(format!(
            "{} did not answer within {:.1} s",
            self.command,
            deadline.saturating_duration_since(asked).as_secs_f64()
        ))
    }

    /// The error for an engine whose output is closed: its exit status when it exited
    /// within a short grace period.
    fn gone(&mut self) -> EngineError {
        if self.killed {
            return EngineError::Failed(format!("{} was stopped", self.command));
        }
        if self.status.is_none() {
            let until = Instant::now() + EXIT_GRACE;
            loop {
                match self.try_reap() {
                    Ok(None) if Instant::now() < until => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    _ => break,
                }
            }
        }
        match self.status {
            Some(status) => EngineError::Failed(format!("{} exited ({status})", self.command)),
            None => EngineError::Failed(format!("{} closed its output", self.command)),
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

impl std::fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineProcess")
            .field("command", &self.command)
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

/// Kills `child` (with its process group on Unix) and reaps it.
fn kill_child(child: &mut Child) {
    forget(child.id());
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: `kill` has no memory-safety preconditions; the child leads its own
        // process group (spawned with `process_group(0)`) and is not yet reaped, so
        // the group id cannot have been reused.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    if let Err(e) = child.kill() {
        log::debug!("engine {}: kill: {e}", child.id());
    }
    if let Err(e) = child.wait() {
        log::warn!("engine {}: wait: {e}", child.id());
    }
}

/// Splits a command line at white space, keeping double-quoted parts together.
fn split_command(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return Err("an unmatched double quote".to_string());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    #[test]
    fn splits_commands() {
        assert_eq!(
            split_command("  a  b\tc ").unwrap(),
            vec!["a".to_string(), "b".into(), "c".into()]
        );
        assert_eq!(
            split_command(r#""my engine" --opt="a b" """#).unwrap(),
            vec!["my engine".to_string(), "--opt=a b".into(), String::new()]
        );
        assert!(split_command("a \"b").is_err());
        assert!(split_command("   ").unwrap().is_empty());
    }

    #[test]
    fn start_errors() {
        assert!(matches!(
            EngineProcess::spawn(" "),
            Err(EngineError::Start { .. })
        ));
        assert!(matches!(
            EngineProcess::spawn("/nonexistent/engine --x"),
            Err(EngineError::Start { .. })
        ));
    }

    #[test]
    fn echoes_lines() {
        let mut p = EngineProcess::spawn("cat").unwrap();
        p.send("hello").unwrap();
        p.send("world").unwrap();
        assert_eq!(p.recv(soon(5000)).unwrap(), "hello");
        assert_eq!(
            p.recv_until(soon(5000), |l| l.starts_with('w')).unwrap(),
            "world"
        );
        let started = Instant::now();
        let err = p.recv(soon(100)).unwrap_err();
        assert!(err.to_string().contains("did not answer"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(2));
        p.kill();
        p.kill();
        assert!(p.send("more").is_err());
    }

    #[test]
    fn held_lines_go_at_the_first_read_in_order() {
        let mut p = EngineProcess::spawn("cat").unwrap();
        p.hold();
        p.send("one").unwrap();
        p.send_all(&["two", "three"]).unwrap();
        assert!(p.held.as_ref().is_some_and(|h| h == b"one\ntwo\nthree\n"));
        assert_eq!(p.recv(soon(5000)).unwrap(), "one");
        // Released: what is sent now goes at once.
        p.send("four").unwrap();
        for line in ["two", "three", "four"] {
            assert_eq!(p.recv(soon(5000)).unwrap(), line);
        }
        p.hold();
        p.kill();
        assert!(p.send("five").is_err());
    }

    #[test]
    fn reports_exit_after_its_last_lines() {
        let mut p = EngineProcess::spawn(r#"sh -c "printf 'one\r\ntwo'; exit 3""#).unwrap();
        assert_eq!(p.recv(soon(5000)).unwrap(), "one");
        assert_eq!(p.recv(soon(5000)).unwrap(), "two");
        let err = p.recv(soon(5000)).unwrap_err().to_string();
        assert!(err.contains("exited") && err.contains('3'), "{err}");
        // The process is gone: writing fails instead of hanging.
        let mut failed = false;
        for _ in 0..10 {
            if p.send("x").is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
    }

    #[test]
    fn survives_garbage_and_long_lines() {
        let mut p = EngineProcess::spawn(
            r#"sh -c "printf '\377\376 bad\n'; head -c 200000 /dev/zero | tr '\0' x; echo""#,
        )
        .unwrap();
        assert!(p.recv(soon(5000)).unwrap().ends_with(" bad"));
        let mut total = 0;
        while total < 200_000 {
            let line = p.recv(soon(5000)).unwrap();
            assert!(line.len() <= MAX_LINE_LEN);
            total += line.len();
        }
        assert_eq!(total, 200_000);
    }

    #[test]
    fn a_stop_ends_the_reads_at_once() {
        let mut p = EngineProcess::spawn("cat").unwrap();
        let stop = Stop::new();
        p.watch(&stop);
        p.send("one").unwrap();
        assert_eq!(p.recv(soon(5000)).unwrap(), "one");
        let other = stop.clone();
        let firing = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            other.fire(super::super::stop::StopReason::Disconnect);
        });
        let started = Instant::now();
        assert!(matches!(
            p.recv_until(soon(30_000), |_| true),
            Err(EngineError::Interrupted)
        ));
        assert!(started.elapsed() < Duration::from_secs(2));
        firing.join().unwrap();
        assert!(matches!(
            p.recv(soon(30_000)),
            Err(EngineError::Interrupted)
        ));
    }

    #[test]
    fn quit_lets_an_engine_go_and_kills_one_that_stays() {
        // An engine that quits when asked.
        let mut p = EngineProcess::spawn(
            r#"sh -c "while read -r l; do case $l in quit) exit 7;; esac; done""#,
        )
        .unwrap();
        p.quit(&["stop", "quit"], Duration::from_secs(5));
        assert_eq!(p.status.and_then(|s| s.code()), Some(7));
        // One that does not, nor at the end of its input.
        let mut p = EngineProcess::spawn(r#"sh -c "trap '' INT TERM; sleep 30""#).unwrap();
        let pid = p.child.id();
        assert!(running().contains(&pid));
        let started = Instant::now();
        p.quit(&["quit"], Duration::from_millis(100));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(100), "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert!(!running().contains(&pid));
        assert!(p.send("x").is_err());
    }

    #[test]
    fn an_engine_that_exits_is_found_not_running_and_reaped() {
        let mut p = EngineProcess::spawn(
            r#"sh -c "while read -r l; do case $l in quit) exit 7;; esac; done""#,
        )
        .unwrap();
        let pid = p.child.id();
        assert!(p.running());
        p.send("quit").unwrap();
        let started = Instant::now();
        while p.running() {
            assert!(started.elapsed() < Duration::from_secs(5), "it exits");
            std::thread::sleep(Duration::from_millis(5));
        }
        // Reaped, its status kept and its pid let go: nothing is killed later.
        assert_eq!(p.status.and_then(|s| s.code()), Some(7));
        assert!(!running().contains(&pid));
        assert!(!p.running());
    }

    #[test]
    fn kills_a_stuck_engine_without_hanging() {
        let mut p = EngineProcess::spawn(r#"sh -c "sleep 30 & sleep 30""#).unwrap();
        let started = Instant::now();
        assert!(p.recv_until(soon(100), |_| true).is_err());
        drop(p);
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
