//! `argus serve` against what goes wrong: hostile connections (silent, flooding,
//! beyond --max-clients), an engine that cannot be restarted, and a client that stops
//! reading or speaks out of turn. None of them costs another game.

use std::time::{Duration, Instant};

mod serve_support;
use serve_support::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// Hostile connections cost no game: one that says nothing is closed after 3 s with a
/// fault, one that floods is closed, and the event is played by the real clients all
/// the same (a crowd of silent connections is tests/serve_connections.rs's).
#[test]
fn hostile_connections_are_closed_and_the_event_goes_on() {
    use std::io::Write;
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
        "2",
        "--tc",
        "60+0.1",
        "--max-clients",
        "2",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut silent = first_connection(&addr);
    let connected = Instant::now();
    // A flood under Ann's name: admitted, then closed.
    let mut flood = std::net::TcpStream::connect(&addr).unwrap();
    writeln!(flood, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    for i in 0..300 {
        if writeln!(flood, "garbage {i}").is_err() {
            break;
        }
    }
    assert!(
        read_line(&mut flood, Duration::from_secs(5)).is_none(),
        "closed"
    );
    // The silent one gets its fault at 3 s.
    let fault = read_line(&mut silent, Duration::from_secs(15)).unwrap_or_default();
    assert!(fault.contains("no sign_on within 3 s"), "{fault}");
    assert!(
        connected.elapsed() >= Duration::from_secs(2),
        "{:?}",
        connected.elapsed()
    );
    let client = |name: &str| {
        spawn(&[
            "client",
            "--connect",
            &addr,
            "--engine",
            "random",
            "--name",
            name,
        ])
    };
    let (ann, bob) = (client("Ann"), client("Bob"));
    let serve = finish(serve, Duration::from_secs(60));
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("2 of 2 game(s) played"), "{stdout}");
    // The flood, and only the flood: the real clients' fast games are none.
    assert_eq!(
        stderr
            .matches("lines in a second it was not asked for")
            .count(),
        1,
        "{stderr}"
    );
    for c in [ann, bob] {
        assert!(finish(c, Duration::from_secs(10)).status.success());
    }
}

/// Instant movers over TCP answer a `respond` a millisecond, hundreds of lines a second:
/// lines they are asked for are no flood, and no connection is closed.
#[test]
fn fast_players_answering_what_they_are_sent_are_no_flood() {
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
        "4",
        "--tc",
        "60+0",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let client = |name: &str| {
        spawn(&[
            "client",
            "--connect",
            &addr,
            "--engine",
            "random",
            "--name",
            name,
        ])
    };
    let (ann, bob) = (client("Ann"), client("Bob"));
    let serve = finish(serve, Duration::from_secs(120));
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("4 of 4 game(s) played"), "{stdout}");
    assert!(!stderr.contains("in a second"), "{stderr}");
    for (name, c) in [("Ann", ann), ("Bob", bob)] {
        let o = finish(c, Duration::from_secs(10));
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
        assert!(
            !text(&o.stdout).contains("connecting again"),
            "{name}: {}",
            text(&o.stdout)
        );
    }
}

/// An engine that crashes loses the game it was playing at once (no restarts unless
/// the organiser asks), abandoned, and one that cannot be started for its next game
/// forfeits it, each saying so.
#[cfg(unix)]
#[test]
fn an_engine_that_crashes_loses_and_one_that_cannot_start_forfeits() {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("crashed");
    let cmd = crashes_at_its_first_go(dir.path(), "crashy", &mark, "exit 1");
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=Crashy",
        &cmd,
        "proto=uci",
        "--engine",
        "name=Steady",
        "--games",
        "2",
        "--tc",
        "600",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    let pgn = std::fs::read_to_string(out.join("games.pgn"))
        .unwrap()
        .replace('\n', " ");
    let tail = &pgn[pgn.len().saturating_sub(600)..];
    assert!(
        pgn.contains("Crashy's engine failed: ") && pgn.contains("it loses the game"),
        "{tail}"
    );
    assert!(pgn.contains("[Termination \"abandoned\"]"), "{tail}");
    assert!(!pgn.contains("reported a fault"), "no restart: {tail}");
    assert!(pgn.contains("Crashy could not be started"), "{tail}");
    assert_eq!(
        pgn_results(&out),
        ["0-1", "1-0"],
        "Crashy has White in game 1 and Black in game 2, and loses both"
    );
}

/// A local engine that crashes in its game (here on the game's own thread, both
/// engines being UCI or random movers), when the organiser allows restarts
/// (`restarts=1`), reports the fault, is restarted, is resynchronised and plays the
/// game out; the game's record says where.
#[cfg(unix)]
#[test]
#[ignore = "needs stockfish"]
fn a_local_engine_that_crashes_is_restarted_and_plays_its_game_out() {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("crashed");
    let cmd = crashes_at_its_first_go(dir.path(), "crash-once", &mark, "exec /usr/games/stockfish");
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=Once",
        &cmd,
        "proto=uci",
        "depth=1",
        "restarts=1",
        "--engine",
        "name=Steady",
        "--games",
        "1",
        "--tc",
        "60",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    assert!(stdout.contains("1 of 1 game(s) played"), "{stdout}");
    let journal = std::fs::read_to_string(out.join("games").join("game-0001.jsonl")).unwrap();
    assert!(
        journal.contains("refreq fault") && journal.contains("exited"),
        "the crash is reported to the referee"
    );
    let pgn = std::fs::read_to_string(out.join("games.pgn"))
        .unwrap()
        .replace('\n', " ");
    assert!(!pgn.contains("it loses the game"), "{pgn}");
    assert!(
        pgn.contains("White reported a fault: engine: ") && pgn.contains("exited"),
        "the restart is in the game's record: {pgn}"
    );
    assert!(
        pgn.contains("[Termination \"normal\"]") || pgn.contains("[Termination \"time forfeit\"]"),
        "{pgn}"
    );
    assert!(
        pgn.matches('.').count() > 5,
        "moves were played after the restart: {pgn}"
    );
}

/// Ctrl-C while a local engine is being restarted (its game's sessions run on the
/// game's own thread, beside the referee) stops the event at once: the restart is
/// given up, rather than holding the game, and with it the stop, until the engine's
/// handshake times out.
#[cfg(unix)]
#[test]
fn ctrl_c_during_a_local_engines_restart_stops_the_event_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("crashed");
    let cmd = crashes_at_its_first_go(dir.path(), "hangs", &mark, "exec sleep 100");
    let out = dir.path().join("event");
    let child = spawn(&[
        "serve",
        "--engine",
        "name=Hangs",
        &cmd,
        "proto=uci",
        "restarts=1",
        "--engine",
        "name=Steady",
        "--games",
        "1",
        "--tc",
        "600",
        "--out",
        out.to_str().unwrap(),
    ]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !mark.exists() {
        assert!(Instant::now() < deadline, "the engine never crashed");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The restart is under way: its handshake waits 10 s for an answer.
    std::thread::sleep(Duration::from_millis(500));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let asked = Instant::now();
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let stopped = finish(child, Duration::from_secs(20));
    let took = asked.elapsed();
    let stdout = text(&stopped.stdout);
    assert_eq!(stopped.status.code(), Some(130), "{stdout}");
    assert!(
        took < Duration::from_secs(3),
        "the stop took {took:?}: {stdout}{}",
        text(&stopped.stderr)
    );
}

/// A connection that stops reading, and one that sends replies for games it is not
/// in, hold up no other game: they lose their own games on time, and the event ends.
#[test]
fn a_client_that_stops_reading_or_speaks_out_of_turn_holds_up_no_other_game() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--player",
        "Bob",
        "--player",
        "Carol",
        "--games",
        "1",
        "--concurrency",
        "2",
        "--tc",
        "2",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut ann = first_connection(&addr);
    // Ann signs on and never reads again.
    writeln!(ann, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    // Carol signs on, and sends replies from the start position now and then: for no
    // game of hers, or out of turn in her own.
    let mut carol = std::net::TcpStream::connect(&addr).unwrap();
    writeln!(carol, "{START} refreq sign_on; tcsi \"y\" \"Carol\";").unwrap();
    // She stays connected until the event ends: a connection closed between games
    // would take her out of the schedule, and the event would wait for her.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stray = {
        let done = done.clone();
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                if writeln!(carol, "{START} refreq reply; sm e4;").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let bob = spawn(&[
        "client",
        "--connect",
        &addr,
        "--engine",
        "random",
        "--name",
        "Bob",
    ]);
    let serve = finish(serve, Duration::from_secs(60));
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    assert!(stdout.contains("3 of 3 game(s) played"), "{stdout}");
    // Bob wins both of his games, on time or by the rules, and plays moves in them.
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    for game in pgn.split("[Event ").skip(1) {
        if game.contains("\"Bob\"]") {
            let bob_white = game.contains("[White \"Bob\"]");
            let result = if bob_white {
                "[Result \"1-0\"]"
            } else {
                "[Result \"0-1\"]"
            };
            assert!(game.contains(result), "{game}");
        }
    }
    assert!(finish(bob, Duration::from_secs(10)).status.success());
    drop(ann);
    let _ = stray.join();
}

/// A UCI engine, a shell script in `dir` called `name`, that crashes at its first `go`
/// and leaves `mark`; started again (once `mark` is there) it runs `then` instead.
/// Returns the `cmd=` word of `--engine`.
#[cfg(unix)]
fn crashes_at_its_first_go(
    dir: &std::path::Path,
    name: &str,
    mark: &std::path::Path,
    then: &str,
) -> String {
    let engine = dir.join(format!("{name}.sh"));
    script(
        &engine,
        &format!(
            "#!/bin/sh\n[ -e {m} ] && {then}\nwhile read -r l; do case \"$l\" in\n uci) echo 'id name {name}'; echo uciok;;\n isready) echo readyok;;\n go*) touch {m}; exit 3;;\nesac; done\n",
            m = mark.display()
        ),
    );
    format!("cmd={}", engine.display())
}

/// Ctrl-C while a game is being started (its engines starting, before its referee
/// runs) stops that game too: it is not played, the event stops at once, and the game
/// is left for `--resume`.
#[cfg(unix)]
#[test]
#[ignore = "needs stockfish"]
fn ctrl_c_while_a_game_is_being_started_stops_it() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("slow-start.sh");
    script(&engine, "#!/bin/sh\nsleep 1\nexec /usr/games/stockfish\n");
    let out = dir.path().join("event");
    let cmd = format!("cmd={}", engine.display());
    let mut child = spawn(&[
        "serve",
        "--engine",
        "name=Slow",
        &cmd,
        "proto=uci",
        "depth=1",
        "--engine",
        "name=Steady",
        "--games",
        "1",
        "--tc",
        "4+0.04",
        "--plain",
        "--unattended",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("the game never began: {seen:?}"));
        let begun = line.starts_with("game 1/1");
        seen.push(line);
        if begun {
            break;
        }
    }
    // The engine is starting (it sleeps a second first).
    std::thread::sleep(Duration::from_millis(300));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let asked = Instant::now();
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let stopped = finish(child, Duration::from_secs(30));
    let took = asked.elapsed();
    let rest: Vec<String> = rx.try_iter().collect();
    assert_eq!(stopped.status.code(), Some(130), "{rest:?}");
    assert!(
        took < Duration::from_secs(3),
        "the stop took {took:?}: {rest:?}{}",
        text(&stopped.stderr)
    );
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap_or_default();
    assert!(
        !pgn.contains("[Result"),
        "the game was played after the stop: {pgn}"
    );
}

/// A Stockfish that exits at its 6th `go` (in its first game only) loses that game,
/// abandoned, as in cutechess-cli and fastchess: it is not restarted in the game (no
/// `restarts=`), the PGN says what happened, the standings count it, and the engine
/// is started afresh for its next game, which it plays out.
#[cfg(unix)]
#[test]
#[ignore = "needs stockfish"]
fn a_stockfish_that_crashes_mid_game_loses_it_and_plays_its_next_game() {
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("crashed");
    let engine = dir.path().join("crash-at-6th-go.sh");
    script(
        &engine,
        &format!(
            "#!/bin/bash\nn=0\ncoproc SF {{ /usr/games/stockfish; }}\n\
             exec 3<&\"${{SF[0]}}\" 4>&\"${{SF[1]}}\"\ncat <&3 &\n\
             while read -r line; do\n  case \"$line\" in go*) n=$((n+1));\n    \
             if [ $n -ge 6 ] && [ ! -e {m} ]; then touch {m}; kill $SF_PID; exit 3; fi;;\n  esac\n  \
             echo \"$line\" >&4\ndone\n",
            m = mark.display()
        ),
    );
    let cmd = format!("cmd={}", engine.display());
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=Crashy",
        &cmd,
        "proto=uci",
        "depth=2",
        "--engine",
        "name=Steady",
        "--games",
        "2",
        "--tc",
        "30+0.1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    assert!(mark.exists(), "the engine crashed");
    let game1 = std::fs::read_to_string(out.join("games").join("game-0001.pgn"))
        .unwrap()
        .replace('\n', " ");
    assert!(
        game1.contains("[Result \"0-1\"]"),
        "Crashy had White: {game1}"
    );
    assert!(game1.contains("[Termination \"abandoned\"]"), "{game1}");
    assert!(
        game1.contains("[PlyCount \"10\"]"),
        "it crashed at its 6th move: {game1}"
    );
    assert!(
        game1.contains("Crashy's engine failed: ") && game1.contains("it loses the game"),
        "{game1}"
    );
    let journal = std::fs::read_to_string(out.join("games").join("game-0001.jsonl")).unwrap();
    assert!(
        !journal.contains("refreq fault"),
        "no restart was asked for"
    );
    let game2 = std::fs::read_to_string(out.join("games").join("game-0002.pgn")).unwrap();
    assert!(
        !game2.contains("abandoned") && !game2.contains("[PlyCount \"0\"]"),
        "started afresh, it plays its next game: {game2}"
    );
    let standings = std::fs::read_to_string(out.join("standings.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&standings).unwrap();
    assert_eq!(json["failures"][0]["name"], "Crashy");
    assert_eq!(json["failures"][0]["abandoned"], 1, "{standings}");
    assert_eq!(json["failures"][1]["abandoned"], 0, "{standings}");

    // The game it lost is fed to it again: `argus replay --as referee --engine` plays
    // the recorded referee to the engine, which signs on as it did, answers the same
    // moves (depth 2 is deterministic), and fails at the same point.
    std::fs::remove_file(&mark).unwrap();
    let journal = out.join("games").join("game-0001.jsonl");
    let engine = format!("uci:{}", engine.display());
    let replay = argus(&[
        "replay",
        journal.to_str().unwrap(),
        "--as",
        "referee",
        "--client",
        "a",
        "--engine",
        &engine,
        "--limit",
        "depth=2",
    ]);
    let said = text(&replay.stdout);
    assert!(!replay.status.success(), "{said}");
    assert!(said.contains("received 6, 6 as recorded"), "{said}");
    assert!(
        said.contains("the engine failed: ") && said.contains("exited"),
        "{said}{}",
        text(&replay.stderr)
    );
}

/// Writes the shell script `text` at `path` and makes it executable.
#[cfg(unix)]
fn script(path: &std::path::Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A player that sends noise as fast as the flood rule lets it (4,000-byte lines, 90 a
/// second) fills neither the disk nor the log: its journal takes 64 KiB of the lines it
/// was not asked for in a minute and counts the rest in one `dropped` line with a
/// sample, the log says so once, and the journal still replays.
#[test]
fn a_player_sending_noise_adds_little_to_the_journal_and_the_log() {
    use std::io::Write;
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
        "4",
        "--unattended",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut ann = first_connection(&addr);
    writeln!(ann, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    let noise = "noise ".repeat(700)[..4000].to_string();
    let mut sent = 0;
    for _ in 0..180 {
        if writeln!(ann, "{noise}").is_err() {
            break;
        }
        sent += 1;
        std::thread::sleep(Duration::from_millis(11));
    }
    assert_eq!(sent, 180, "the flood rule let the lines through");
    // Ann never moves: she loses on time, and the event ends.
    let serve = finish(serve, Duration::from_secs(60));
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stderr}");
    let journal = out.join("games/game-0001.jsonl");
    let log = std::fs::read_to_string(&journal).unwrap();
    let noise_rx = log
        .lines()
        .filter(|l| l.contains("\"ev\":\"rx\"") && l.contains("noise noise"))
        .count();
    assert_eq!(
        noise_rx,
        65536 / 4001,
        "the lines journaled: 64 KiB of them"
    );
    let dropped: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["ev"] == "dropped")
        .collect();
    assert_eq!(dropped.len(), 1, "{log}");
    // The rest dropped (but for a line or two read before the game took the line, or
    // after it ended, between games).
    let lines = dropped[0]["lines"].as_u64().unwrap();
    assert!(
        (150..=180 - 65536 / 4001).contains(&lines),
        "{}",
        dropped[0]
    );
    assert_eq!(dropped[0]["bytes"].as_u64(), Some(lines * 4000));
    assert!(
        dropped[0]["sample"]
            .as_str()
            .is_some_and(|s| s.len() == 200 && s.starts_with("noise noise")),
        "{}",
        dropped[0]
    );
    assert!(
        std::fs::metadata(&journal).unwrap().len() < 100_000,
        "the journal holds 64 KiB of noise and the game"
    );
    assert_eq!(
        stderr.matches("it was not asked for in a minute").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.matches("noise ignored").count() <= 65536 / 4001,
        "{stderr}"
    );
    let replay = argus(&["replay", journal.to_str().unwrap()]);
    assert!(
        text(&replay.stderr).contains("no divergence"),
        "{}",
        text(&replay.stderr)
    );
}

/// A player that stops reading while it keeps the referee writing (a reply without a
/// move is asked again, 50 times a second) has its connection given up once what it
/// was sent has gone unacknowledged for 20 s, and the referee says so, on its output
/// and in the game's journal, rather than "the connection closed". Its warnings fill no
/// log: 60 a minute are logged.
#[cfg(target_os = "linux")]
#[test]
fn a_player_that_stops_reading_is_told_from_one_that_closed() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--engine",
        "name=Engine",
        "movetime=10",
        "--games",
        "1",
        // Time for the system to give the connection up (20 s), and then Ann's
        // flag falls: the event ends.
        "--tc",
        "25",
        "--unattended",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    drop(first_connection(&addr));
    // A receive buffer of a kilobyte (set before the connection, so that its window
    // stays small), never read.
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.set_recv_buffer_size(1024).unwrap();
    socket
        .connect(&addr.parse::<std::net::SocketAddr>().unwrap().into())
        .unwrap();
    let mut ann: std::net::TcpStream = socket.into();
    writeln!(ann, "{START} refreq sign_on; tcsi \"x\" \"Ann\";").unwrap();
    let started = Instant::now();
    let mut gone = None;
    while started.elapsed() < Duration::from_secs(60) {
        if writeln!(ann, "{START} refreq reply;").is_err() {
            gone = Some(started.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let gone = gone.expect("the referee gave the connection up");
    assert!(gone >= Duration::from_secs(15), "{gone:?}");
    let serve = finish(serve, Duration::from_secs(60));
    let stdout = text(&serve.stdout);
    let stderr = text(&serve.stderr);
    assert!(serve.status.success(), "{stdout}{stderr}");
    // Each reply without a move was asked again, a warning each: the log took 60 of
    // them, and said that it stopped.
    assert_eq!(stderr.matches("respond sent again").count(), 60, "{stderr}");
    assert!(
        stderr.contains("game 1: more than 60 warnings in a minute"),
        "{stderr}"
    );
    let why = "what it was sent went unacknowledged for 20 s: it stopped reading, or its \
               network is gone";
    assert!(
        stdout.contains("Ann left: its connection from 127.0.0.1:") && stdout.contains(why),
        "{stdout}"
    );
    let journal = std::fs::read_to_string(out.join("games/game-0001.jsonl")).unwrap();
    assert!(
        journal
            .lines()
            .any(|l| l.contains("\"ev\":\"lost\"") && l.contains(why)),
        "{journal}"
    );
}
