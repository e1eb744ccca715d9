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
fn player(addr: String, name: String, seed: u64, think: Duration) -> std::thread::JoinHandle<()> {
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
        let mut engine = RandomEngine::new(seed, think);
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

/// Twenty players, ten games at once, in a process allowed 32 descriptors (soft and
/// hard): about 8 of its own and one per player leave room for 4 game journals, not
/// the 10 that round 1 wants at once, whatever the machine's speed (at 40 a fast
/// machine could play the round without running out, and the test showed nothing). Every
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
    let serve = serve_limited("-n 32", &args);
    let players: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            player(
                addr.clone(),
                name.clone(),
                i as u64 + 1,
                Duration::from_millis(1),
            )
        })
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

/// `GET path` from the page at `addr`: the status line and the body (None when the
/// connection fails).
fn get(addr: &str, path: &str) -> Option<(String, String)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    Some((head.lines().next()?.to_string(), body.to_string()))
}

/// Hundreds of idle connections to the audience's page (in a process allowed 256
/// descriptors) take neither the players' listener nor the page down: the page holds a
/// bounded number and says 503 to the rest, the players still sign on and play, and
/// the page answers once the idle connections are gone.
#[test]
fn idle_page_connections_take_neither_the_players_nor_the_page_down() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let http = format!("127.0.0.1:{}", free_port());
    let serve = serve_limited(
        "-n 256",
        &[
            "serve",
            "--player",
            "Ann",
            "--player",
            "Bob",
            "--tc",
            "60+0.1",
            "--http",
            &http,
            "--listen",
            &addr,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while get(&http, "/state.json").is_none() {
        assert!(Instant::now() < deadline, "the page is not served");
        std::thread::sleep(Duration::from_millis(50));
    }
    // More idle connections than the referee has descriptors.
    let to: std::net::SocketAddr = http.parse().unwrap();
    let idle: Vec<std::net::TcpStream> = (0..400)
        .filter_map(|_| std::net::TcpStream::connect_timeout(&to, Duration::from_secs(1)).ok())
        .collect();
    assert!(!idle.is_empty());
    std::thread::sleep(Duration::from_millis(500));
    let players: Vec<_> = ["Ann", "Bob"]
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            player(
                addr.clone(),
                name.to_string(),
                i as u64 + 1,
                Duration::from_millis(20),
            )
        })
        .collect();
    // Both signed on: their game's journal names them.
    let journal = out.join("games/game-0001.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&journal)
        .is_ok_and(|t| t.contains("\"tcp Ann\"") && t.contains("\"tcp Bob\""))
    {
        assert!(
            Instant::now() < deadline,
            "the players could not sign on beside the idle page connections"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match get(&http, "/live.pgn") {
            Some((status, body)) if status.contains(" 200 ") => {
                assert!(body.contains("[White \"Ann\"]"), "{body}");
                break;
            }
            answer => assert!(
                Instant::now() < deadline,
                "the page no longer answers: {answer:?}"
            ),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let serve = finish(serve, Duration::from_secs(120));
    for p in players {
        let _ = p.join();
    }
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    assert!(stdout.contains("2 of 2 game(s) played"), "{stdout}");
}

/// The threads of `pid` (Linux).
#[cfg(target_os = "linux")]
fn threads_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, Iterator::count)
}

/// A hundred signed-on players waiting for their games cost the referee no thread
/// each (issue #23: 1,000 idle players took 2,283 threads): their connections wait
/// in one poll loop, and threads grow with the games under way (here one).
#[cfg(target_os = "linux")]
#[test]
fn idle_players_wait_in_one_poll_loop_not_a_thread_each() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let names: Vec<String> = (1..=100).map(|i| format!("P{i:03}")).collect();
    let mut args = vec![
        "serve",
        "--concurrency",
        "1",
        "--tc",
        "60+0",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ];
    for name in &names {
        args.extend(["--player", name]);
    }
    let serve = serve_support::spawn(&args);
    let pid = serve.id();
    let _ = serve_support::first_connection(&addr);
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let mut held = Vec::new();
    for name in &names {
        let mut stream = serve_support::first_connection(&addr);
        writeln!(stream, "{start} refreq sign_on; tcsi \"x\" \"{name}\";").unwrap();
        held.push(stream);
        std::thread::sleep(Duration::from_millis(5));
    }
    // Every connection admitted: the referee holds a descriptor for each.
    serve_support::wait_for("the players signed on", Duration::from_secs(30), || {
        std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count) > 100
    });
    std::thread::sleep(Duration::from_millis(500));
    let threads = threads_of(pid);
    eprintln!("{threads} threads for 100 players");
    assert!(
        threads < 40,
        "{threads} threads for 100 players, one game under way"
    );
    drop(held);
}
