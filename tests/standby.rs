//! An observer that stands by (`argus observe`) and takes over (issue #10, docs/standby.md),
//! over loopback with the real binary: the primary killed outright mid-game, the
//! observer taking over within 5 s of `--takeover-after 2`, the clients failing over
//! with `--connect PRIMARY,OBSERVER`, the match completed; with `--standby-sync`, every
//! move that reached an opponent in the final PGN; the outage charged to nobody. And a
//! primary told that an observer took over exits with status 3.

mod serve_support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serve_support::*;

/// `child`'s standard output, line by line as it comes, each with its moment.
fn lines_of(child: &mut std::process::Child) -> mpsc::Receiver<(Instant, String)> {
    let out = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for a line holding `what`; returns its moment, and every line seen so far.
fn wait_for(
    lines: &mpsc::Receiver<(Instant, String)>,
    seen: &mut Vec<String>,
    what: &str,
    limit: Duration,
) -> Instant {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok((at, line)) => {
                let found = line.contains(what);
                seen.push(line);
                if found {
                    return at;
                }
            }
            Err(_) => panic!(
                "no line with {what:?} within {limit:?}:\n{}",
                seen.join("\n")
            ),
        }
    }
}

/// The lines of journal `path` that are moves relayed to the opponent (`sm` in a
/// `respond`), in order.
fn relayed_moves(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["ev"] == "tx")
        .filter_map(|v| {
            let text = v["text"].as_str()?.to_string();
            if !text.contains("refcom respond;") {
                return None;
            }
            let sm = text
                .split("; ")
                .find_map(|op| op.trim().strip_prefix("sm "))?;
            Some(sm.trim_end_matches(';').to_string())
        })
        .collect()
}

/// A TCP relay between a client and the primary that keeps every byte the primary sent
/// the client: what reached it. When the primary is gone, so is the client's
/// connection.
struct Recorder {
    port: u16,
    heard: Arc<Mutex<Vec<u8>>>,
}

fn recorder(upstream: String) -> Recorder {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&heard);
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            let Ok(mut server) = std::net::TcpStream::connect(&upstream) else {
                continue;
            };
            let (mut up_from, mut up_to) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut up_from, &mut up_to);
                let _ = up_to.shutdown(std::net::Shutdown::Both);
            });
            let keep = Arc::clone(&keep);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                loop {
                    match server.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            keep.lock().unwrap().extend_from_slice(&buf[..n]);
                            if client.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                    }
                }
                let _ = client.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    Recorder { port, heard }
}

/// The moves in the `respond`s a player heard that its game's journal (`journal`, the
/// primary's) sent: (ply, SAN) each, in order, each once (a respond sent again, or the
/// game sent again at a resynchronisation, is the same line).
fn moves_heard(heard: &[u8], journal: &Path) -> Vec<(usize, String)> {
    let sent: std::collections::HashSet<String> = std::fs::read_to_string(journal)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["ev"] == "tx")
        .filter_map(|v| Some(v["text"].as_str()?.trim_end().to_string()))
        .collect();
    let mut moves: Vec<(usize, String)> = String::from_utf8_lossy(heard)
        .lines()
        .map(str::trim_end)
        .filter(|l| l.contains("refcom respond;") && sent.contains(*l))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let white = *fields.get(1)? == "w";
            let fmvn: usize = l
                .split("; ")
                .find_map(|op| op.trim().strip_prefix("fmvn "))?
                .trim_end_matches(';')
                .parse()
                .ok()?;
            let sm = l.split("; ").find_map(|op| op.trim().strip_prefix("sm "))?;
            Some((
                2 * (fmvn - 1) + usize::from(!white),
                sm.trim_end_matches(';').to_string(),
            ))
        })
        .collect();
    moves.sort();
    moves.dedup();
    moves
}

/// The moves of a PGN file's first game, in SAN, and every `[%emt]` in seconds.
fn pgn_moves(path: &Path) -> (Vec<String>, Vec<f64>) {
    let text = std::fs::read_to_string(path).unwrap();
    let movetext: String = text
        .lines()
        .filter(|l| !(l.starts_with('[') && l.ends_with("\"]")))
        .collect::<Vec<_>>()
        .join(" ");
    let (mut moves, mut emts, mut comment, mut depth) = (Vec::new(), Vec::new(), String::new(), 0);
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if let Some(emt) = comment.split("[%emt ").nth(1) {
                    let hms = emt.split(']').next().unwrap();
                    let secs = hms
                        .split(':')
                        .fold(0.0, |acc, part| acc * 60.0 + part.parse::<f64>().unwrap());
                    emts.push(secs);
                }
                comment.clear();
            }
            c if depth > 0 => comment.push(c),
            c => moves.push(c),
        }
    }
    let moves: String = moves.into_iter().collect();
    let sans = moves
        .split_whitespace()
        .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|t| !t.is_empty() && !["1-0", "0-1", "1/2-1/2", "*"].contains(t))
        .map(str::to_string)
        .collect();
    (sans, emts)
}

/// The body of `GET path` from the HTTP server at `addr`.
fn get(addr: &str, path: &str) -> String {
    use std::io::Read;
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text
}

/// A random mover over TCP to the primary, then the observer.
/// `argus observe` of the primary's standby port `standby`, copying into `copy`,
/// listening for clients on `listen`, with `extra` options; its standard input a pipe
/// (`takeover` is typed there).
fn observer(standby: &str, copy: &Path, listen: &str, extra: &[&str]) -> Running {
    let mut args = vec![
        "observe",
        standby,
        "--out",
        copy.to_str().unwrap(),
        "--listen",
        listen,
    ];
    args.extend(extra);
    spawn_with_stdin(&args)
}

fn client(name: &str, seed: &str, connect: &str) -> Running {
    Running(Some(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args([
                "client",
                "--connect",
                connect,
                "--engine",
                "random",
                "--think-ms",
                "30",
                "--seed",
                seed,
                "--name",
                name,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ))
}

fn killed_primary_is_taken_over(sync: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (ev, copy) = (dir.path().join("ev"), dir.path().join("copy"));
    let primary_addr = format!("127.0.0.1:{}", free_port());
    let observer_addr = format!("127.0.0.1:{}", free_port());
    let standby = format!("127.0.0.1:{}", free_port());
    let mut args = vec![
        "serve",
        "--seats",
        "2",
        "--listen",
        &primary_addr,
        "--standby-listen",
        &standby,
        "--tc",
        "120+1",
        "--games",
        "2",
        "--unattended",
        "--plain",
        "--out",
        ev.to_str().unwrap(),
    ];
    if sync {
        args.push("--standby-sync");
    }
    let mut primary = spawn(&args);
    let mut observer = spawn(&[
        "observe",
        &standby,
        "--out",
        copy.to_str().unwrap(),
        "--takeover-after",
        "2",
        "--listen",
        &observer_addr,
        "--unattended",
    ]);
    let observed = lines_of(&mut observer);
    let mut seen = Vec::new();
    wait_for(&observed, &mut seen, "following", Duration::from_secs(10));
    // Each client's way to the primary keeps what reached it.
    let (to_a, to_b) = (
        recorder(primary_addr.clone()),
        recorder(primary_addr.clone()),
    );
    let a = client(
        "Ann",
        "1",
        &format!("127.0.0.1:{},{observer_addr}", to_a.port),
    );
    let b = client(
        "Bob",
        "2",
        &format!("127.0.0.1:{},{observer_addr}", to_b.port),
    );
    // Mid-game: 20 moves relayed in the first game.
    let journal = ev.join("games/game-0001.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !journal.exists() || relayed_moves(&journal).len() < 20 {
        if Instant::now() > deadline || primary.try_wait().unwrap().is_some() {
            let _ = primary.kill();
            let out = finish(primary, Duration::from_secs(1));
            panic!(
                "the first game did not get far:\n{}{}",
                text(&out.stdout),
                text(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    primary.kill().unwrap();
    let killed = Instant::now();
    let _ = primary.wait();
    // What reached the players from the primary in the game under way (on a busy
    // machine the first game may be over before the kill is seen to be due).
    std::thread::sleep(Duration::from_millis(200));
    let game = if ev.join("games/game-0002.jsonl").exists() {
        2
    } else {
        1
    };
    let under_way = ev.join(format!("games/game-000{game}.jsonl"));
    let mut reached = moves_heard(&to_a.heard.lock().unwrap(), &under_way);
    reached.extend(moves_heard(&to_b.heard.lock().unwrap(), &under_way));
    reached.sort();
    assert!(game == 2 || reached.len() >= 20, "game {game}: {reached:?}");
    let took = wait_for(&observed, &mut seen, "taking over", Duration::from_secs(10));
    let listening = wait_for(
        &observed,
        &mut seen,
        "players connect to",
        Duration::from_secs(10),
    );
    assert!(
        took.duration_since(killed) >= Duration::from_secs(2)
            && listening.duration_since(killed) < Duration::from_secs(5),
        "took over {:?} and listened {:?} after the kill",
        took.duration_since(killed),
        listening.duration_since(killed)
    );
    // The clients fail over to the observer, and the match completes there.
    let done = finish(observer, Duration::from_secs(120));
    for line in observed.try_iter() {
        seen.push(line.1);
    }
    let said = seen.join("\n");
    assert!(done.status.success(), "{said}\n{}", text(&done.stderr));
    assert!(
        said.contains("argus serve: 2 of 2 game(s) played"),
        "{said}"
    );
    for c in [a, b] {
        let out = finish(c, Duration::from_secs(10));
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        let said = text(&out.stdout);
        assert!(
            said.contains(&format!("argus client: connected again to {observer_addr}")),
            "{said}{err}"
        );
    }
    assert_eq!(pgn_results(&copy).len(), 2, "{said}");
    // The game under way at the kill, as the observer finished it.
    let (moves, emts) = pgn_moves(&copy.join(format!("games/game-000{game}.pgn")));
    // With --standby-sync, every move that reached an opponent is in the final PGN, in
    // its place. Asynchronously, the last one may be lost (the game went on from the
    // position before it): the others are there.
    let lost: Vec<&(usize, String)> = reached
        .iter()
        .filter(|(ply, san)| moves.get(*ply) != Some(san))
        .collect();
    let allowed = if sync { 0 } else { 1 };
    assert!(
        lost.len() <= allowed && lost.iter().all(|(ply, _)| ply + 1 >= reached.len()),
        "moves that reached an opponent and are not in the PGN: {lost:?}\nreached {reached:?}\nPGN {moves:?}"
    );
    // The outage (two seconds and more) is charged to nobody: no move took a second.
    assert!(
        emts.iter().all(|&emt| emt < 1.0),
        "a move charged the outage: {emts:?}"
    );
    // The copy is a journal: replayed, it gives the same lines.
    let replay = argus(&[
        "replay",
        copy.join(format!("games/game-000{game}.jsonl"))
            .to_str()
            .unwrap(),
    ]);
    assert!(
        text(&replay.stderr).contains("no divergence"),
        "{}",
        text(&replay.stderr)
    );
}

#[test]
fn a_killed_primary_is_taken_over_with_standby_sync_and_no_relayed_move_is_lost() {
    killed_primary_is_taken_over(true);
}

#[test]
fn a_killed_primary_is_taken_over_asynchronously() {
    killed_primary_is_taken_over(false);
}

/// The operator's `takeover`: the primary, alive, hears it and stops with status 3,
/// saying why; the observer plays the event to its end.
#[test]
fn a_primary_told_that_an_observer_took_over_exits_3() {
    told_primary_exits_3(false);
}

/// The same with `--standby-key` on both: the observer that holds the key follows and
/// its word is believed.
#[test]
fn a_primary_told_by_an_observer_with_its_key_exits_3() {
    told_primary_exits_3(true);
}

fn told_primary_exits_3(keyed: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (ev, copy) = (dir.path().join("ev"), dir.path().join("copy"));
    let standby = format!("127.0.0.1:{}", free_port());
    let key_path = dir.path().join("standby.key");
    std::fs::write(&key_path, "0123456789abcdef0123456789abcdef\n").unwrap();
    let key: Vec<&str> = if keyed {
        vec!["--standby-key", key_path.to_str().unwrap()]
    } else {
        Vec::new()
    };
    let ev_dir = ev.to_str().unwrap();
    let mut args = vec![
        "serve",
        "--engine",
        "name=A",
        "movetime=20",
        "--engine",
        "name=B",
        "movetime=20",
        "--games",
        "2",
        "--tc",
        "60+1",
        "--standby-listen",
        &standby,
        "--unattended",
        "--plain",
        "--out",
        ev_dir,
    ];
    args.extend(&key);
    let primary = spawn(&args);
    let http = format!("127.0.0.1:{}", free_port());
    let mut observer = {
        let mut extra = vec!["--http", http.as_str()];
        extra.extend(&key);
        observer(
            &standby,
            &copy,
            &format!("127.0.0.1:{}", free_port()),
            &extra,
        )
    };
    let observed = lines_of(&mut observer);
    let mut seen = Vec::new();
    wait_for(&observed, &mut seen, "game 1: ", Duration::from_secs(20));
    // The observer's views follow the games from its live replay: the game's moves
    // appear in its live PGN while the primary plays them.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let pgn = get(&http, "/live.pgn");
        if pgn.contains("[White \"A\"]") && pgn.contains("1. ") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the observer's views show no move: {pgn}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut stdin = observer.stdin.take().unwrap();
    stdin.write_all(b"takeover\n").unwrap();
    let stopped = finish(primary, Duration::from_secs(10));
    assert_eq!(stopped.status.code(), Some(3), "{}", text(&stopped.stderr));
    assert!(
        text(&stopped.stderr).contains("has taken over: this referee goes on no more"),
        "{}",
        text(&stopped.stderr)
    );
    drop(stdin);
    let done = finish(observer, Duration::from_secs(120));
    for line in observed.try_iter() {
        seen.push(line.1);
    }
    let said = seen.join("\n");
    assert!(done.status.success(), "{said}\n{}", text(&done.stderr));
    assert!(
        said.contains("argus serve: 2 of 2 game(s) played"),
        "{said}"
    );
    assert_eq!(pgn_results(&copy).len(), 2);
}

/// A primary interrupted twice (exiting at once) tells its observers that it stopped:
/// an observer with --takeover-after does not take over what its operator stopped.
#[cfg(unix)]
#[test]
fn a_primary_interrupted_twice_is_not_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let (ev, copy) = (dir.path().join("ev"), dir.path().join("copy"));
    let standby = format!("127.0.0.1:{}", free_port());
    let mut primary = spawn(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=20",
        "--engine",
        "name=B",
        "movetime=20",
        "--games",
        "2",
        "--tc",
        "60+1",
        "--standby-listen",
        &standby,
        "--unattended",
        "--plain",
        "--out",
        ev.to_str().unwrap(),
    ]);
    let mut observer = spawn(&[
        "observe",
        &standby,
        "--out",
        copy.to_str().unwrap(),
        "--takeover-after",
        "1",
        "--listen",
        &format!("127.0.0.1:{}", free_port()),
        "--unattended",
    ]);
    let observed = lines_of(&mut observer);
    let mut seen = Vec::new();
    wait_for(&observed, &mut seen, "game 1: ", Duration::from_secs(20));
    let pid = primary.id().to_string();
    for _ in 0..2 {
        let kill = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(kill.success());
    }
    let _ = primary.wait();
    let done = finish(observer, Duration::from_secs(20));
    for line in observed.try_iter() {
        seen.push(line.1);
    }
    let said = seen.join("\n");
    assert!(
        said.contains("the primary stopped, to be resumed") && !said.contains("has been silent"),
        "{said}\n{}",
        text(&done.stderr)
    );
    assert!(done.status.success(), "{said}");
}

/// An observer that could not go on (its --listen is taken) refuses the operator's
/// `takeover`, saying why, and the primary, not told, goes on.
#[test]
fn a_takeover_that_could_not_go_on_is_refused_and_the_primary_not_told() {
    let dir = tempfile::tempdir().unwrap();
    let (ev, copy) = (dir.path().join("ev"), dir.path().join("copy"));
    let standby = format!("127.0.0.1:{}", free_port());
    let mut primary = spawn(&[
        "serve",
        "--seats",
        "2",
        "--listen",
        &format!("127.0.0.1:{}", free_port()),
        "--standby-listen",
        &standby,
        "--unattended",
        "--plain",
        "--out",
        ev.to_str().unwrap(),
    ]);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut observer = observer(
        &standby,
        &copy,
        &taken.local_addr().unwrap().to_string(),
        &[],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !copy.join("event.jsonl").exists() {
        assert!(Instant::now() < deadline, "no copy");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stdin = observer.stdin.take().unwrap();
    stdin.write_all(b"takeover\n").unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        primary.try_wait().unwrap().is_none(),
        "the primary stopped: {}",
        text(&finish(primary, Duration::from_secs(1)).stderr)
    );
    assert!(observer.try_wait().unwrap().is_none(), "the observer ended");
    drop(stdin);
    let _ = observer.kill();
    let out = finish(observer, Duration::from_secs(5));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot take over: cannot listen on") && err.contains("still following"),
        "{err}"
    );
    let _ = primary.kill();
}

/// After a takeover, the old primary resumed with `argus serve --resume DIR` alone
/// offers its standby stream again, as event.jsonl records it (address and key), where
/// the observer that took over tells it so: it exits 3 instead of going on as a second
/// referee. The event's settings, its network options among them, are not given again
/// with `--resume`.
#[test]
fn a_primary_resumed_after_a_takeover_hears_of_it_from_its_recorded_standby_address() {
    let dir = tempfile::tempdir().unwrap();
    let (ev, copy) = (dir.path().join("ev"), dir.path().join("copy"));
    let standby = format!("127.0.0.1:{}", free_port());
    let key_path = dir.path().join("standby.key");
    std::fs::write(&key_path, "0123456789abcdef0123456789abcdef\n").unwrap();
    let key = ["--standby-key", key_path.to_str().unwrap()];
    let ev_dir = ev.to_str().unwrap();
    let mut args = vec![
        "serve",
        "--engine",
        "name=A",
        "movetime=100",
        "--engine",
        "name=B",
        "movetime=100",
        "--games",
        "4",
        "--tc",
        "600+1",
        "--standby-listen",
        &standby,
        "--unattended",
        "--plain",
        "--out",
        ev_dir,
    ];
    args.extend(key);
    let primary = spawn(&args);
    let mut observer = observer(&standby, &copy, &format!("127.0.0.1:{}", free_port()), &key);
    let observed = lines_of(&mut observer);
    let mut seen = Vec::new();
    wait_for(&observed, &mut seen, "game 1: ", Duration::from_secs(20));
    let mut stdin = observer.stdin.take().unwrap();
    stdin.write_all(b"takeover\n").unwrap();
    let stopped = finish(primary, Duration::from_secs(10));
    assert_eq!(stopped.status.code(), Some(3), "{}", text(&stopped.stderr));
    // The event's settings are its record's: a network option given again is refused,
    // saying which options go with --resume.
    let refused = argus(&[
        "serve",
        "--resume",
        ev_dir,
        "--standby-listen",
        &standby,
        "--unattended",
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains(
            "give no --standby-listen (only --http, --unattended and --plain go with --resume)"
        ),
        "{}",
        text(&refused.stderr)
    );
    // Resumed with nothing but how this run is shown, it listens where the record says,
    // with its key, and hears the observer that took over.
    let resumed = spawn(&["serve", "--resume", ev_dir, "--unattended", "--plain"]);
    let resumed = finish(resumed, Duration::from_secs(20));
    let (out, err) = (text(&resumed.stdout), text(&resumed.stderr));
    assert!(
        out.contains(&format!(
            "argus serve: observers follow at {standby} (argus observe {standby} --standby-key FILE)"
        )),
        "{out}{err}"
    );
    assert_eq!(resumed.status.code(), Some(3), "{out}{err}");
    assert!(
        err.contains("has taken over: this referee goes on no more"),
        "{err}"
    );
    drop(stdin);
}

/// An observer that joins an event after games have ended copies every game into its
/// `games.pgn`, in the primary's order and byte for byte: the event's journal reaches it
/// before the games' journals, and a game that journal finishes waits for its own.
#[test]
fn an_observer_that_joins_late_copies_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let (ev, copy) = (dir.path().join("ev"), dir.path().join("copy"));
    let standby = format!("127.0.0.1:{}", free_port());
    let primary = spawn(&[
        "serve",
        "--engine",
        "name=R1",
        "proto=random",
        "--engine",
        "name=R2",
        "proto=random",
        "--rounds",
        "30",
        "--games",
        "2",
        "--tc",
        "5+0.05",
        "--standby-listen",
        &standby,
        "--unattended",
        "--plain",
        "--out",
        ev.to_str().unwrap(),
    ]);
    serve_support::wait_for("a game ended", Duration::from_secs(60), || {
        std::fs::read_to_string(ev.join("event.jsonl"))
            .unwrap_or_default()
            .contains("\"result\"")
    });
    let observer = spawn(&[
        "observe",
        &standby,
        "--out",
        copy.to_str().unwrap(),
        "--unattended",
    ]);
    let primary = finish(primary, Duration::from_secs(120));
    assert!(primary.status.success(), "{}", text(&primary.stderr));
    let observer = finish(observer, Duration::from_secs(30));
    let said = text(&observer.stdout);
    assert!(said.contains("the primary has finished"), "{said}");
    let games = std::fs::read_to_string(ev.join("games.pgn")).unwrap();
    assert_eq!(games.matches("[Event ").count(), 60);
    assert_eq!(
        std::fs::read_to_string(copy.join("games.pgn")).unwrap_or_default(),
        games
    );
}
