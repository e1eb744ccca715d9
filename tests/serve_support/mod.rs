//! Helpers for the tests of `argus serve` (tests/serve.rs, tests/serve_seats.rs): the
//! binary run or spawned with a kill-on-drop guard, loopback ports, raw connections,
//! and a TCP relay whose connections can be cut.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn argus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(args)
        .output()
        .unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The results of games.pgn, in the file's order.
pub fn pgn_results(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("games.pgn"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|r| r.trim_end_matches("\"]").to_string())
        .collect()
}

/// The first connection argus serve accepts at `addr`, once it listens (within 10 s).
pub fn first_connection(addr: &str) -> std::net::TcpStream {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(stream) = std::net::TcpStream::connect(addr) {
            return stream;
        }
        assert!(
            Instant::now() < deadline,
            "argus serve does not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A free loopback port for a listener.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn spawn(args: &[&str]) -> Running {
    spawn_from(args, Stdio::inherit())
}

/// As [`spawn`], with standard input a pipe too (an observer told `takeover` there).
pub fn spawn_with_stdin(args: &[&str]) -> Running {
    spawn_from(args, Stdio::piped())
}

fn spawn_from(args: &[&str], stdin: Stdio) -> Running {
    Running(Some(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ))
}

/// A child process that is killed when the test ends before it does (an assertion
/// failed): a failing test leaves no referee or client running.
pub struct Running(pub Option<std::process::Child>);

impl std::ops::Deref for Running {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        self.0.as_ref().expect("running")
    }
}

impl std::ops::DerefMut for Running {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        self.0.as_mut().expect("running")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits for `child` to exit within `limit`, killing it if it does not.
pub fn finish(mut running: Running, limit: Duration) -> Output {
    let mut child = running.0.take().expect("running");
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A TCP relay between a client and argus serve whose connections can be cut, as a
/// network that drops: the relay keeps listening, and a client that connects again gets
/// through.
pub struct Relay {
    pub port: u16,
    cut: std::sync::Arc<std::sync::atomic::AtomicU32>,
    stall: std::sync::Arc<std::sync::atomic::AtomicU32>,
    /// The referee's ends of stalled connections, held open and never read.
    held: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Relay {
    pub fn new(upstream: String) -> Relay {
        Relay::start(upstream, false)
    }

    /// A relay that takes the `tcsi` out of each connection's first line (its
    /// `sign_on`): a real client that signs on without a name, as older clients do.
    pub fn anonymous(upstream: String) -> Relay {
        Relay::start(upstream, true)
    }

    fn start(upstream: String, anonymous: bool) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let generation = cut.clone();
        let stall = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let held = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (stalls, holder) = (stall.clone(), held.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = std::net::TcpStream::connect(&upstream) else {
                    continue;
                };
                let born = generation.load(Ordering::SeqCst);
                let stalled_at = stalls.load(Ordering::SeqCst);
                for (k, (mut from, mut to)) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ]
                .into_iter()
                .enumerate()
                {
                    let generation = generation.clone();
                    let (stalls, holder) = (stalls.clone(), holder.clone());
                    // The client's first line, held until it is whole.
                    let mut first = (anonymous && k == 0).then(Vec::new);
                    std::thread::spawn(move || {
                        use std::io::{Read, Write};
                        from.set_read_timeout(Some(Duration::from_millis(50)))
                            .unwrap();
                        let mut buf = [0u8; 4096];
                        while generation.load(Ordering::SeqCst) == born {
                            if stalls.load(Ordering::SeqCst) != stalled_at {
                                // The client's end closes; the referee's stays open and
                                // silent (no FIN, no RST), as behind a dead network.
                                let (client, server) = if k == 0 { (from, to) } else { (to, from) };
                                let _ = client.shutdown(std::net::Shutdown::Both);
                                holder.lock().unwrap().push(server);
                                return;
                            }
                            match from.read(&mut buf) {
                                Ok(0) => break,
                                Ok(n) => {
                                    let mut bytes = buf[..n].to_vec();
                                    if let Some(held) = &mut first {
                                        held.extend_from_slice(&bytes);
                                        if !held.contains(&b'\n') {
                                            continue;
                                        }
                                        bytes = without_tcsi(&String::from_utf8_lossy(held))
                                            .into_bytes();
                                        first = None;
                                    }
                                    if to.write_all(&bytes).is_err() {
                                        break;
                                    }
                                }
                                Err(e)
                                    if e.kind() == std::io::ErrorKind::WouldBlock
                                        || e.kind() == std::io::ErrorKind::TimedOut => {}
                                Err(_) => break,
                            }
                        }
                        if stalls.load(Ordering::SeqCst) != stalled_at {
                            // Stalled meanwhile: the referee's end stays open.
                            let (client, server) = if k == 0 { (from, to) } else { (to, from) };
                            let _ = client.shutdown(std::net::Shutdown::Both);
                            holder.lock().unwrap().push(server);
                            return;
                        }
                        let _ = from.shutdown(std::net::Shutdown::Both);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Relay {
            port,
            cut,
            stall,
            held,
        }
    }

    /// Closes the client's end of every connection through the relay now, and leaves
    /// the referee's end open and silent for as long as the relay lives: a network
    /// that died without a word, behind which the client connects again.
    pub fn stall(&self) {
        self.stall.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Drops every connection through the relay now.
    pub fn cut(&self) {
        self.cut.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Reads one line from `stream` within `wait`.
pub fn read_line(stream: &mut std::net::TcpStream, wait: Duration) -> Option<String> {
    use std::io::Read;
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while let Ok(1) = stream.read(&mut byte) {
        if byte[0] == b'\n' {
            return Some(String::from_utf8_lossy(&line).into_owned());
        }
        line.push(byte[0]);
    }
    None
}

/// `text` without its `tcsi` operation.
fn without_tcsi(text: &str) -> String {
    match text.find("tcsi ") {
        Some(at) => {
            let end = text[at..].find(';').map_or(text.len(), |e| at + e + 1);
            format!("{}{}", &text[..at], text[end..].trim_start_matches(' '))
        }
        None => text.to_string(),
    }
}

/// Waits for `done`, at most `limit`; fails saying `what` when it does not come.
pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
