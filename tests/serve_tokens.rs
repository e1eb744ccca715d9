//! Tokens are never written down (issue #23): an event with tokens from `--players
//! FILE`, its clients taking theirs from ARGUS_TOKEN, one of them cut off mid-game and
//! signing on again: no file of the event holds a token (the event's journal a hash,
//! the game's journal the sign-on with `token "*"`), its journals are its owner's
//! alone (0600), and the game replays. A players file that is wrong says where.

mod serve_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serve_support::*;

const ANN: &str = "ann-secret-7f3a";
const BOB: &str = "bob-secret-91c2";

/// A random mover over TCP whose token comes from ARGUS_TOKEN.
fn client(name: &str, token: &str, connect: &str) -> Running {
    Running(Some(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args([
                "client",
                "--connect",
                connect,
                "--engine",
                "random",
                "--think-ms",
                "40",
                "--name",
                name,
            ])
            .env("ARGUS_TOKEN", token)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ))
}

/// Every file under `dir`, with its path.
fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn no_file_of_an_event_holds_a_token_and_its_journals_are_private() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let players = dir.path().join("players.txt");
    std::fs::write(
        &players,
        format!("# the club's players\nAnn {ANN}\n\nBob {BOB}\n"),
    )
    .unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--players",
        players.to_str().unwrap(),
        "--games",
        "1",
        "--tc",
        "120+0.1",
        "--listen",
        &addr,
        "--unattended",
        "--plain",
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let relay = Relay::new(addr.clone());
    let via = format!("127.0.0.1:{}", relay.port);
    let ann = client("Ann", ANN, &via);
    let bob = client("Bob", BOB, &addr);
    let journal = out.join("games/game-0001.jsonl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 4000 {
        assert!(Instant::now() < deadline, "the game did not begin");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Ann's connection drops: she signs on again, her sign_on (and token) to the game.
    relay.cut();
    let serve = finish(serve, Duration::from_secs(120));
    assert!(
        serve.status.success(),
        "{}{}",
        text(&serve.stdout),
        text(&serve.stderr)
    );
    drop((ann, bob));
    let log = std::fs::read_to_string(&journal).unwrap();
    assert!(
        log.contains("\"ev\":\"back\""),
        "Ann did not come back: {log}"
    );
    assert!(
        log.contains(r#"token \"*\""#),
        "no sign_on with its token marked in the game's journal"
    );
    for path in files(&out) {
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for token in [ANN, BOB] {
            assert!(
                !text.contains(token),
                "{} holds the token {token}",
                path.display()
            );
        }
    }
    #[cfg(unix)]
    for path in [out.join("event.jsonl"), journal.clone()] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}: {mode:o}", path.display());
    }
    // The game's journal replays as it was played, its marked sign_on and all.
    let replay = argus(&["replay", journal.to_str().unwrap()]);
    assert!(replay.status.success(), "{}", text(&replay.stderr));
}

#[test]
fn a_wrong_token_from_argus_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let players = dir.path().join("players.txt");
    std::fs::write(&players, format!("Ann {ANN}\nBob {BOB}\n")).unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let _serve = spawn(&[
        "serve",
        "--players",
        players.to_str().unwrap(),
        "--listen",
        &addr,
        "--unattended",
        "--plain",
        "--out",
        dir.path().join("event").to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let wrong = finish(client("Ann", BOB, &addr), Duration::from_secs(20));
    assert!(!wrong.status.success(), "{}", text(&wrong.stderr));
    assert!(
        text(&wrong.stderr).contains("token"),
        "{}",
        text(&wrong.stderr)
    );
}

#[test]
fn a_players_file_that_is_wrong_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let players = dir.path().join("players.txt");
    std::fs::write(&players, format!("Ann {ANN}\n# Carl\nBob\n")).unwrap();
    let run = argus(&[
        "serve",
        "--players",
        players.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(
        err.contains(&format!(
            "--players {}: line 3: give the player's name and its token",
            players.display()
        )),
        "{err}"
    );
    let missing = argus(&[
        "serve",
        "--players",
        dir.path().join("none.txt").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("none.txt"));
    assert!(!out.join("event.jsonl").exists());
}

/// An event with tokens goes on with `--resume` without them given again: its journal's
/// hashes check the players' tokens (a wrong one is refused, the right ones play).
#[cfg(unix)]
#[test]
fn a_resumed_event_checks_the_tokens_against_its_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let players = dir.path().join("players.txt");
    std::fs::write(&players, format!("Ann {ANN}\nBob {BOB}\n")).unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let first = spawn(&[
        "serve",
        "--players",
        players.to_str().unwrap(),
        "--games",
        "1",
        "--tc",
        "60+0.1",
        "--listen",
        &addr,
        "--unattended",
        "--plain",
        "--out",
        out_s,
    ]);
    let _ = first_connection(&addr);
    let pid = libc::pid_t::try_from(first.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let stopped = finish(first, Duration::from_secs(20));
    assert_eq!(
        stopped.status.code(),
        Some(130),
        "{}",
        text(&stopped.stderr)
    );
    let event = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    assert!(event.contains("hmac-sha256:"), "{event}");
    assert!(!event.contains(ANN) && !event.contains(BOB), "{event}");
    let resumed = spawn(&["serve", "--resume", out_s, "--unattended", "--plain"]);
    let _ = first_connection(&addr);
    let wrong = finish(client("Bob", ANN, &addr), Duration::from_secs(20));
    assert!(!wrong.status.success(), "{}", text(&wrong.stderr));
    let (ann, bob) = (client("Ann", ANN, &addr), client("Bob", BOB, &addr));
    let done = finish(resumed, Duration::from_secs(120));
    assert!(
        done.status.success(),
        "{}{}",
        text(&done.stdout),
        text(&done.stderr)
    );
    assert_eq!(pgn_results(&out).len(), 1);
    drop((ann, bob));
}
