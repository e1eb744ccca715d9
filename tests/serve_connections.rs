//! `argus serve`'s connections against a network that dies and a stranger that takes
//! places (issue #23, section 1): a player whose old connection is still open on the
//! referee's side gets back in (with its token, or from its own host) and keeps its
//! game; a crowd of connections that never sign on keeps no listed player out, and its
//! refusals are counted rather than logged one by one; a line without its terminator
//! ends after 1 s of silence; `--listen HOST:0` says the port it took; a seat whose
//! player is gone for good forfeits its games.

use std::io::{BufRead, Write};
use std::time::Duration;

mod serve_support;
use serve_support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// The crowd's test runs alone: its thousands of connections take ephemeral ports
/// (from 127.0.0.1 too), one of which can be the port another test of this file has
/// just picked for its referee, and its flood from 127.0.0.1 would crowd out that
/// test's own connection if the two met. The other tests run beside each other.
static CROWD: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// What a test other than the crowd's holds while it runs.
fn beside_the_others() -> std::sync::RwLockReadGuard<'static, ()> {
    CROWD
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A network that dies without a word: the player's side of its connection is closed,
/// the referee's stays open and silent (no FIN, no RST). The player's client connects
/// again with its token: it replaces the dead connection instead of being refused as
/// "connected already", is resynchronised, and its game is played out, not lost on
/// time.
#[test]
fn a_player_behind_a_dead_network_signs_on_again_with_its_token_and_keeps_its_game() {
    let _beside = beside_the_others();
    behind_a_dead_network(Some("a-secret"));
}

/// The same for a player without a token: its new connection comes from the host of
/// the old one, and replaces it.
#[test]
fn a_player_without_a_token_behind_a_dead_network_gets_back_from_its_own_host() {
    let _beside = beside_the_others();
    behind_a_dead_network(None);
}

fn behind_a_dead_network(token: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let player = match token {
        Some(token) => format!("Ann:{token}"),
        None => "Ann".to_string(),
    };
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        &player,
        "--engine",
        "name=Engine",
        "movetime=20",
        "--games",
        "1",
        "--tc",
        "30+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let relay = Relay::new(addr.clone());
    let via = format!("127.0.0.1:{}", relay.port);
    let mut args = vec![
        "client",
        "--connect",
        &via,
        "--engine",
        "random",
        "--think-ms",
        "100",
        "--name",
        "Ann",
    ];
    if let Some(token) = token {
        args.extend(["--token", token]);
    }
    let ann = spawn(&args);
    let journal = out.join("games/game-0001.jsonl");
    wait_for("the game did not begin", Duration::from_secs(20), || {
        std::fs::metadata(&journal).map_or(0, |m| m.len()) > 4000
    });
    relay.stall();
    let serve = finish(serve, Duration::from_secs(120));
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("1 of 1 game(s) played"), "{stdout}");
    let ann = finish(ann, Duration::from_secs(10));
    assert!(
        stderr.contains("Ann signed on again from"),
        "the old connection was replaced:\n{stderr}\nAnn:\n{}",
        text(&ann.stderr)
    );
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(!pgn.contains("time forfeit"), "{pgn}");
    let log = std::fs::read_to_string(&journal).unwrap();
    assert!(log.contains("\"ev\":\"lost\""), "the line was lost");
    assert!(log.contains("\"ev\":\"back\""), "and came back");
    assert!(ann.status.success(), "{}", text(&ann.stderr));
    drop(relay);
}

/// A stranger who opens connections and never signs on, from the players' own host and
/// (on Linux) from many others, takes no listed player's place: Ann and Bob sign on
/// with their tokens and play the event while the crowd keeps coming, and the
/// refusals are said in a few counted lines, not one each.
#[test]
fn a_crowd_that_never_signs_on_keeps_no_listed_player_out() {
    let _alone = CROWD
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann:a-secret",
        "--player",
        "Bob:b-secret",
        "--games",
        "2",
        "--tc",
        "60+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    // The crowd: 300 connections held open and opened again as they are closed, from
    // 127.0.0.1 and, where loopback takes them, from 127.0.0.2 to 127.0.0.31.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (ready, crowd_in) = std::sync::mpsc::channel();
    let crowd = {
        let done = done.clone();
        std::thread::spawn(move || {
            let hosts: Vec<std::net::IpAddr> = if cfg!(target_os = "linux") {
                (1..=31)
                    .map(|h| std::net::IpAddr::from([127, 0, 0, h]))
                    .collect()
            } else {
                vec![std::net::IpAddr::from([127, 0, 0, 1])]
            };
            let connect = |i: usize| {
                let host = if i.is_multiple_of(2) {
                    hosts[0]
                } else {
                    hosts[i % hosts.len()]
                };
                let socket =
                    socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
                        .ok()?;
                socket
                    .bind(&std::net::SocketAddr::new(host, 0).into())
                    .ok()?;
                socket
                    .connect(&std::net::SocketAddr::from(([127, 0, 0, 1], port)).into())
                    .ok()?;
                let stream: std::net::TcpStream = socket.into();
                stream.set_nonblocking(true).ok()?;
                Some(stream)
            };
            let mut held: Vec<Option<std::net::TcpStream>> = (0..300).map(connect).collect();
            let mut opened = 300usize;
            let _ = ready.send(held.iter().flatten().count());
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                // At most 20 new connections every 50 ms: a flood of 400 a second.
                let mut again = 0;
                for (i, slot) in held.iter_mut().enumerate() {
                    if again == 20 {
                        break;
                    }
                    let closed = slot.as_ref().is_none_or(|s| {
                        let mut byte = [0u8; 512];
                        !matches!(s.peek(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
                    });
                    if closed {
                        again += 1;
                        *slot = connect(i);
                        opened += 1;
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            opened
        })
    };
    let first = crowd_in.recv().unwrap();
    assert!(first >= 290, "the crowd connected: {first}");
    std::thread::sleep(Duration::from_millis(300));
    let client = |name: &str, token: &str| {
        spawn(&[
            "client",
            "--connect",
            &addr,
            "--engine",
            "random",
            "--think-ms",
            "30",
            "--name",
            name,
            "--token",
            token,
        ])
    };
    let (ann, bob) = (client("Ann", "a-secret"), client("Bob", "b-secret"));
    let serve = finish(serve, Duration::from_secs(90));
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let opened = crowd.join().unwrap();
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("2 of 2 game(s) played"), "{stdout}");
    assert!(opened > 300, "the crowd came back: {opened}");
    let refusal_lines = stderr.lines().filter(|l| l.contains("refused")).count();
    assert!(
        (1..40).contains(&refusal_lines),
        "{refusal_lines} lines of refusals for {opened} connections:\n{stderr}"
    );
    assert!(
        stderr.contains("connection(s) in the last"),
        "the refusals are counted:\n{stderr}"
    );
    for c in [ann, bob] {
        let o = finish(c, Duration::from_secs(10));
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
}

/// Junk without a line end, then 2 s later the player's reply: the junk is a line of
/// its own after 1 s of silence (docs/protocol.md), and the reply is judged as the
/// move it is, not as the tail of one noise line that leaves the player to lose on
/// time.
#[test]
fn a_line_without_its_end_ends_after_a_second_and_the_reply_after_it_counts() {
    let _beside = beside_the_others();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--engine",
        "name=Engine",
        "movetime=20",
        "--games",
        "1",
        "--tc",
        "5+0",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut ann = first_connection(&addr);
    writeln!(ann, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    // Ann's first respond: her reply from its position.
    let respond = loop {
        let line = read_line(&mut ann, Duration::from_secs(20)).expect("a respond");
        if line.contains("refcom respond") {
            break line;
        }
    };
    let position: Vec<&str> = respond.split(' ').take(4).collect();
    let white = position[1] == "w";
    ann.write_all(b"@#junk").unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let mv = if white { "e4" } else { "e5" };
    writeln!(ann, "{} refreq reply; sm {mv};", position.join(" ")).unwrap();
    // She plays no more: she loses on time, after her move.
    let serve = finish(serve, Duration::from_secs(60));
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let moves = pgn.split("\n\n").nth(1).unwrap_or_default();
    assert!(moves.contains(mv), "Ann's {mv} counts:\n{pgn}");
    drop(ann);
}

/// `--listen 127.0.0.1:0` leaves the port to the system, and argus says the one it
/// took: a player connects to it.
/// `--listen 127.0.0.1:0` says the port it took; a sign_on that cannot be read is
/// refused with the reason it cannot.
#[test]
fn listening_on_port_zero_says_the_port_taken() {
    let _beside = beside_the_others();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let mut serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--engine",
        "name=Engine",
        "--games",
        "1",
        "--listen",
        "127.0.0.1:0",
        "--unattended",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = std::io::BufReader::new(serve.stdout.take().unwrap());
    let mut said = None;
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("argus serve: players connect to ") {
            said = rest.split(' ').next().map(str::to_string);
            break;
        }
    }
    let said = said.expect("argus says where players connect");
    let addr: std::net::SocketAddr = said.parse().unwrap();
    assert_ne!(addr.port(), 0, "{said}");
    // A sign_on whose name is over 255 bytes is refused, saying why.
    let mut long = std::net::TcpStream::connect(addr).unwrap();
    let name = "N".repeat(300);
    writeln!(long, "{START} refreq sign_on; tcsi \"x\" \"{name}\";").unwrap();
    let fault = read_line(&mut long, Duration::from_secs(20)).unwrap_or_default();
    assert!(
        fault.contains("refcom fault")
            && fault.contains("the sign_on cannot be read: string at offset")
            && fault.contains("holds 300 bytes, more than 255"),
        "{fault}"
    );
    let mut ann = std::net::TcpStream::connect(addr).unwrap();
    writeln!(ann, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    let reset = read_line(&mut ann, Duration::from_secs(20)).unwrap_or_default();
    assert!(reset.contains("refcom reset"), "{reset}");
}

/// An open event: a stranger takes a seat under a name and leaves. Once it has been
/// gone 60 s its games are lost by forfeit (docs/supervisor.md), and the event, held
/// up by them until then, is played to its end.
#[test]
fn a_seat_whose_player_is_gone_for_good_forfeits_its_games() {
    let _beside = beside_the_others();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--seats",
        "2",
        "--engine",
        "name=Engine",
        "movetime=20",
        "--games",
        "1",
        "--tc",
        "20+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut eve = first_connection(&addr);
    writeln!(eve, "{START} refreq sign_on; tcsi \"x\" \"Eve\";").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(eve);
    let ann = spawn(&[
        "client",
        "--connect",
        &addr,
        "--engine",
        "random",
        "--name",
        "Ann",
    ]);
    let serve = finish(serve, Duration::from_secs(150));
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("3 of 3 game(s) played"), "{stdout}");
    assert!(
        stderr.contains("Eve has been gone for 60 s or more: forfeit"),
        "{stderr}"
    );
    // Eve lost both her games.
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    for game in pgn.split("[Event ").skip(1) {
        if game.contains("[White \"Eve\"]") {
            assert!(game.contains("[Result \"0-1\"]"), "{game}");
        } else if game.contains("[Black \"Eve\"]") {
            assert!(game.contains("[Result \"1-0\"]"), "{game}");
        }
    }
    assert_eq!(pgn.matches("\"Eve\"]").count(), 2, "{pgn}");
    let ann = finish(ann, Duration::from_secs(10));
    assert!(ann.status.success(), "{}", text(&ann.stderr));
}

/// An unattended event whose listed player never comes: past `--absent-after` its
/// games are lost by forfeit (docs/supervisor.md), and the event ends; the player that
/// came plays its games.
#[test]
fn an_unattended_event_with_a_listed_player_gone_for_good_ends() {
    let _beside = beside_the_others();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--player",
        "Bob",
        "--engine",
        "name=Engine",
        "movetime=20",
        "--games",
        "1",
        "--tc",
        "20+0.1",
        "--unattended",
        "--absent-after",
        "3",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let ann = spawn(&[
        "client",
        "--connect",
        &addr,
        "--engine",
        "random",
        "--name",
        "Ann",
    ]);
    let serve = finish(serve, Duration::from_secs(90));
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("3 of 3 game(s) played"), "{stdout}");
    assert!(
        stderr.contains("Bob has been absent for 3 s or more (--absent-after): forfeit"),
        "{stderr}"
    );
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let mut bobs = 0;
    for game in pgn.split("[Event ").skip(1) {
        if game.contains("[White \"Bob\"]") {
            assert!(game.contains("[Result \"0-1\"]"), "{game}");
            bobs += 1;
        } else if game.contains("[Black \"Bob\"]") {
            assert!(game.contains("[Result \"1-0\"]"), "{game}");
            bobs += 1;
        }
    }
    assert_eq!(bobs, 2, "{pgn}");
    let ann = finish(ann, Duration::from_secs(10));
    assert!(ann.status.success(), "{}", text(&ann.stderr));
}

/// The voluntary context switches of the threads of process `pid` whose names start
/// with `prefix` (Linux /proc), and how many such threads there are.
#[cfg(target_os = "linux")]
fn switches(pid: u32, prefix: &str) -> (u64, usize) {
    let mut total = 0;
    let mut threads = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let dir = task.unwrap().path();
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if !name.starts_with(prefix) {
            continue;
        }
        threads += 1;
        let status = std::fs::read_to_string(dir.join("status")).unwrap_or_default();
        total += status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
    }
    (total, threads)
}

/// A game whose players are silent (both waiting at 600 s) wakes none of its lines'
/// threads: their readers wait for the connection's end without a timeout, their
/// writers for a line to write. (A reader that woke every 50 ms to look did 40 wake-ups
/// a second a game.)
#[cfg(target_os = "linux")]
#[test]
fn a_game_that_waits_for_a_reply_wakes_no_line_thread() {
    let _beside = beside_the_others();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--player",
        "Bob",
        "--games",
        "1",
        "--tc",
        "600",
        "--unattended",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut ann = first_connection(&addr);
    writeln!(ann, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    let mut bob = std::net::TcpStream::connect(&addr).unwrap();
    writeln!(bob, "{START} refreq sign_on; tcsi \"y\" \"Bob\";").unwrap();
    // White gets its respond: the game waits for a reply.
    assert!(read_until(&mut ann, "refcom respond") || read_until(&mut bob, "refcom respond"));
    std::thread::sleep(Duration::from_millis(300));
    let pid = serve.id();
    let (before, threads) = switches(pid, "argus-port-");
    assert_eq!(threads, 4, "each line's reader and writer");
    std::thread::sleep(Duration::from_secs(2));
    let (after, _) = switches(pid, "argus-port-");
    assert!(
        after - before <= 2,
        "the lines' threads woke {} times in 2 s of waiting",
        after - before
    );
}

/// Reads lines from `stream` until one holds `what` (true) or a second passes without
/// one (false).
#[cfg(target_os = "linux")]
fn read_until(stream: &mut std::net::TcpStream, what: &str) -> bool {
    while let Some(line) = read_line(stream, Duration::from_secs(1)) {
        if line.contains(what) {
            return true;
        }
    }
    false
}
