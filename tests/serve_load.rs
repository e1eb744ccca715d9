//! `argus serve` short of descriptors: games wait for them rather than fail, and the
//! event never ends as a success with a game not played (Unix: `ulimit`).

#![cfg(unix)]

mod serve_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use argus::client::{self, ClientOptions, random::RandomEngine};
use argus::mediator::Eol;
use serve_support::{Running, finish, free_port, text};

/// `argus serve ARGS` under `sh -c 'ulimit LIMIT; exec argus ...'`.
fn serve_limited(limit: &str, args: &[&str]) -> Running {
    let script = format!("ulimit {limit} && exec \"$0\" \"$@\"");
    Running(Some(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_argus"))
            .args(args)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ))
}

/// A player in this process: the random mover over TCP, connecting again until the
/// event disconnects it (the listener may not be up yet, or refuse it for want of a
/// descriptor).
fn player(addr: String, name: String, seed: u64) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(120);
        let opts = ClientOptions {
            name: Some(name.clone()),
            address: "test".into(),
            eol: Eol::Lf,
            checksum: false,
            token: None,
            restarts: None,
        };
        let mut engine = RandomEngine::new(seed, Duration::from_millis(1));
        while Instant::now() < deadline {
            if let Ok(duplex) = argus::transport::tcp::connect(&addr)
                && client::run(duplex, &mut engine, &opts).is_ok()
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    })
}

/// Twenty players, ten games at once, in a process allowed 64 descriptors (soft and
/// hard): more than the games under way and the connections can hold at once. Every
/// game is played, and in games.pgn, or argus exits non-zero saying which were not;
/// never "N of M played" with status 0.
#[test]
fn short_of_descriptors_every_game_is_played_or_the_exit_says_which_were_not() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let names: Vec<String> = (1..=20).map(|i| format!("P{i:02}")).collect();
    let mut args = vec![
        "serve",
        "--format",
        "swiss",
        "--rounds",
        "1",
        "--games",
        "2",
        "--concurrency",
        "10",
        "--tc",
        "20+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ];
    for name in &names {
        args.extend(["--player", name]);
    }
    let serve = serve_limited("-n 64", &args);
    let players: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| player(addr.clone(), name.clone(), i as u64 + 1))
        .collect();
    let serve = finish(serve, Duration::from_secs(240));
    for p in players {
        let _ = p.join();
    }
    let (stdout, stderr) = (text(&serve.stdout), text(&serve.stderr));
    let said = format!("{stdout}\n{stderr}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap_or_default();
    let in_pgn = pgn.matches("[Result \"").count();
    let journal = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    let with_result = journal
        .lines()
        .filter(|l| l.contains("\"game\":") && l.contains("\"result\":"))
        .count();
    assert_eq!(
        in_pgn, with_result,
        "every played game is in games.pgn: {said}"
    );
    if serve.status.success() {
        assert!(
            stdout.contains("argus serve: 20 of 20 game(s) played"),
            "{said}"
        );
        assert_eq!(in_pgn, 20, "{said}");
    } else {
        assert_eq!(serve.status.code(), Some(12), "{said}");
        assert!(
            stderr.contains(&format!("{} of 20 game(s) not played", 20 - in_pgn)),
            "{said}"
        );
    }
    // Descriptors did run out (or the test showed nothing).
    assert!(stderr.contains("Too many open files"), "{said}");
}

/// The soft limit on descriptors is raised to the hard limit at the start, and said.
#[test]
fn the_soft_descriptor_limit_is_raised_to_the_hard_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let serve = serve_limited(
        "-Sn 64",
        &[
            "serve",
            "--engine",
            "name=A proto=random",
            "--engine",
            "name=B proto=random",
            "--tc",
            "10+0.1",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let serve = finish(serve, Duration::from_secs(60));
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stderr}");
    assert!(
        stderr.contains("the soft limit raised from 64 to the hard limit"),
        "{stderr}"
    );
}
