//! `argus client` leaves at once when it is told to, even while its engine thinks: on
//! the referee's `disconnect`, and on Ctrl-C, SIGTERM or SIGHUP. The engine's search is
//! stopped, the engine is asked to quit and killed if it does not, and no engine
//! process is left running. A `fault` from the referee (a stop to be resumed later)
//! does not end the client. The test plays the referee on a pty pair, with a long time
//! control so that the engine searches for minutes.

#![cfg(target_os = "linux")]

mod common;

use std::fs::File;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use argus::epd::Record;
use common::*;

/// How the client is told to leave.
#[derive(Copy, Clone, Debug)]
enum End {
    Disconnect,
    Signal(libc::c_int),
}

/// The next record from the client, its seal (if any) taken off.
fn next_record(peer: &mut Peer, wait: Duration) -> Option<Record> {
    let (_, line) = peer.next_line(wait)?;
    let body = match argus::epd::seal::open(line.as_bytes()) {
        argus::epd::seal::Seal::Valid { body, .. } => &line[..body],
        _ => &line[..],
    };
    Some(Record::from_ascii(body.as_bytes()).unwrap())
}

fn stderr_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Waits up to `limit` for the client to exit.
fn exit_within(client: &mut Killer, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = client.0.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts `argus client --engine ENGINE`, lets the referee's game begin with a time
/// control of two hours for 40 moves (so that the engine thinks for minutes over its
/// first move), sends a `fault` from the referee (which must not end the client), then
/// ends the client as `end` says while the engine searches: the client must be gone
/// within a second, and so must every process of the engine's process group.
fn leave_while_thinking(engine: &str, end: End) {
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("client.err");
    let mut peer = Peer::new();
    let mut client = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("client")
            .arg(&peer.path)
            .args(["--engine", engine])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(File::create(&err).unwrap())
            .spawn()
            .unwrap(),
    );
    let sign_on = next_record(&mut peer, Duration::from_secs(30)).expect("a sign_on");
    assert_eq!(sign_on.refreq(), Some("sign_on"), "{sign_on}");
    // The engine runs as the client's child, leading a process group of its own.
    let engines: Vec<u32> = children_of(client.0.id())
        .into_iter()
        .map(|(pid, _)| pid)
        .collect();
    assert!(!engines.is_empty(), "no engine process under the client");
    let _reaper = GroupKiller(engines.clone());
    peer.send(&format!("{START} refcom reset;"));
    peer.send(&format!(
        "{START} ptp Event \"T\" Site \"?\" Date \"2026.11.25\" Round \"1\" White \"A\" Black \"B\" Result \"*\" TimeControl \"40/7200\"; refcom inform;"
    ));
    peer.send(&format!(
        "{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;"
    ));
    // The engine searches: nothing comes back.
    peer.expect_silence(Duration::from_millis(1500));
    // The referee stops, to be resumed later: the client waits.
    peer.send(&format!(
        "{START} c0 \"the referee stops; it resumes from its journal\"; refcom fault;"
    ));
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        client.0.try_wait().unwrap().is_none(),
        "a fault from the referee ended the client; stderr:\n{}",
        stderr_of(&err)
    );
    let at = Instant::now();
    match end {
        End::Disconnect => peer.send(&format!("{START} refcom disconnect;")),
        End::Signal(signal) => {
            let pid = libc::pid_t::try_from(client.0.id()).unwrap();
            // SAFETY: kill has no memory-safety preconditions.
            assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        }
    }
    let status = exit_within(&mut client, Duration::from_secs(1));
    let took = at.elapsed();
    let status = status.unwrap_or_else(|| {
        panic!(
            "{engine}: the client was still running 1 s after {end:?}; stderr:\n{}",
            stderr_of(&err)
        )
    });
    for &pgrp in &engines {
        let left = live_group(pgrp);
        assert!(
            left.is_empty(),
            "{engine}: engine processes {left:?} left running after {end:?}; stderr:\n{}",
            stderr_of(&err)
        );
    }
    match end {
        End::Disconnect => assert!(status.success(), "{status}; {}", stderr_of(&err)),
        End::Signal(_) => {
            assert_eq!(status.code(), Some(130), "{}", stderr_of(&err));
            // The referee hears why the player went quiet.
            let fault = next_record(&mut peer, Duration::from_secs(1)).expect("a fault");
            assert_eq!(fault.refreq(), Some("fault"), "{fault}");
        }
    }
    eprintln!("{engine}: gone {took:?} after {end:?}");
}

/// A UCI engine that searches until it is stopped and never quits: the client stops
/// waiting for it, and kills it.
fn stubborn_engine(dir: &Path) -> String {
    fake_uci(dir, "stubborn", ":", ":", "sleep 600").0
}

#[test]
fn a_disconnect_while_the_engine_thinks_ends_the_client_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let engine = format!("uci:{}", stubborn_engine(dir.path()));
    leave_while_thinking(&engine, End::Disconnect);
}

#[test]
fn ctrl_c_while_the_engine_thinks_ends_the_client_and_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let engine = format!("uci:{}", stubborn_engine(dir.path()));
    leave_while_thinking(&engine, End::Signal(libc::SIGINT));
}

#[test]
fn sigterm_and_sighup_while_the_engine_thinks_end_the_client_and_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let engine = format!("uci:{}", stubborn_engine(dir.path()));
    leave_while_thinking(&engine, End::Signal(libc::SIGTERM));
    leave_while_thinking(&engine, End::Signal(libc::SIGHUP));
}

#[test]
#[ignore = "needs stockfish"]
fn stockfish_thinking_is_stopped_by_a_disconnect() {
    leave_while_thinking("uci:/usr/games/stockfish", End::Disconnect);
}

#[test]
#[ignore = "needs stockfish"]
fn stockfish_thinking_is_stopped_by_ctrl_c_and_sigterm() {
    leave_while_thinking("uci:/usr/games/stockfish", End::Signal(libc::SIGINT));
    leave_while_thinking("uci:/usr/games/stockfish", End::Signal(libc::SIGTERM));
}

#[test]
#[ignore = "needs fairymax"]
fn fairymax_thinking_is_stopped_by_a_disconnect() {
    leave_while_thinking("xboard:/usr/games/fairymax", End::Disconnect);
}

#[test]
#[ignore = "needs gnuchess"]
fn gnuchess_thinking_is_stopped_by_a_disconnect_and_ctrl_c() {
    leave_while_thinking("xboard:/usr/games/gnuchess --xboard", End::Disconnect);
    leave_while_thinking(
        "xboard:/usr/games/gnuchess --xboard",
        End::Signal(libc::SIGINT),
    );
}

/// Over TCP, the referee says `disconnect` and closes the connection while the engine
/// thinks (the end of an event): the client leaves as told. It must not take the
/// closing for a lost connection and connect again.
#[test]
fn a_disconnect_then_a_closed_connection_while_the_engine_thinks_ends_the_client() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("client.err");
    let engine = format!("uci:{}", stubborn_engine(dir.path()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let mut client = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args([
                "client",
                "--connect",
                &addr,
                "--name",
                "A",
                "--engine",
                &engine,
            ])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(File::create(&err).unwrap())
            .spawn()
            .unwrap(),
    );
    let (stream, _) = listener.accept().unwrap();
    let mut lines = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    lines.read_line(&mut line).unwrap();
    assert!(line.contains("refreq sign_on"), "{line}");
    let mut out = stream;
    for rec in [
        format!("{START} refcom reset;"),
        format!(
            "{START} ptp Event \"T\" Site \"?\" Date \"2026.11.25\" Round \"1\" White \"A\" Black \"B\" Result \"*\" TimeControl \"40/7200\"; refcom inform;"
        ),
        format!("{START} cc 000:00:00:00 000:00:00:00; fmvn 1; hmvc 0; refcom respond;"),
    ] {
        writeln!(out, "{rec}").unwrap();
    }
    std::thread::sleep(Duration::from_millis(500));
    writeln!(out, "{START} refcom disconnect;").unwrap();
    drop(out);
    drop(lines);
    // The stubborn engine is killed 0.3 s after its stop; by then the connection has
    // closed too.
    let status = exit_within(&mut client, Duration::from_secs(3)).unwrap_or_else(|| {
        panic!(
            "the client was still running 3 s after disconnect; stderr:\n{}",
            stderr_of(&err)
        )
    });
    assert!(status.success(), "{status}; {}", stderr_of(&err));
    // Nobody connects again.
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the client connected again");
}
