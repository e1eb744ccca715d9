//! `argus serve`'s console (`status`, `stop after-games`, an unknown command) typed on
//! its standard input while games are under way, and `argus serve --config EVENT.toml`.
//! Every child is killed when a test ends, whether it passes or fails.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn argus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The results of games.pgn, in the file's order.
fn pgn_results(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("games.pgn"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("[Result \""))
        .map(|r| r.trim_end_matches("\"]").to_string())
        .collect()
}

/// `argus serve` running with its console on a pipe; killed when dropped.
struct Serve {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line of standard output so far.
    seen: Vec<String>,
}

impl Serve {
    fn start(args: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Serve {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    /// Types a line on the console.
    fn type_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the console is open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Waits (at most `limit`) for a line that `wanted` accepts, and returns it.
    fn wait_for(&mut self, limit: Duration, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no such line within {limit:?}; saw:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Waits (at most `limit`) until a line starting with each of `prefixes` has been
    /// seen, in whatever order they came (two games started at once may be announced
    /// either way round).
    fn wait_for_each(&mut self, limit: Duration, prefixes: &[&str]) {
        let deadline = Instant::now() + limit;
        let missing = |seen: &[String]| {
            prefixes
                .iter()
                .filter(|p| !seen.iter().any(|l| l.starts_with(**p)))
                .count()
        };
        while missing(&self.seen) > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!(
                    "not all of {prefixes:?} within {limit:?}; saw:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Waits (at most `limit`) for argus to exit; returns its status and all it printed.
    fn finish(&mut self, limit: Duration) -> (ExitStatus, String) {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(2)) {
                    self.seen.push(line);
                }
                return (status, self.seen.join("\n"));
            }
            assert!(
                Instant::now() < deadline,
                "argus serve still runs after {limit:?}; saw:\n{}",
                self.seen.join("\n")
            );
            while let Ok(line) = self.lines.try_recv() {
                self.seen.push(line);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `stop after-games` typed while two games are under way: both finish with a real
/// result, no other game begins, the event stops to be resumed, and `--resume` plays
/// the rest; games.pgn then holds every scheduled game once.
#[test]
fn stop_after_games_lets_the_games_under_way_finish_and_resume_plays_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let mut serve = Serve::start(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=15",
        "--engine",
        "name=B",
        "movetime=15",
        "--games",
        "6",
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--out",
        out_s,
    ]);
    let limit = Duration::from_secs(30);
    serve.wait_for_each(limit, &["game 1/6 (round 1)", "game 2/6 (round 1)"]);
    serve.type_line("stop after-games");
    serve.wait_for(limit, |l| {
        l == "argus serve: no new game starts; 2 game(s) under way finish first"
    });
    let (status, stdout) = serve.finish(Duration::from_secs(120));
    assert_eq!(status.code(), Some(130), "{stdout}");
    for n in 1..=2 {
        let done = stdout
            .lines()
            .find(|l| l.starts_with(&format!("game {n}/6: ")))
            .unwrap_or_else(|| panic!("game {n} did not finish:\n{stdout}"));
        assert!(!done.contains(": * ("), "{done}");
    }
    assert!(!stdout.contains("game 3/6 (round 1)"), "{stdout}");
    assert!(
        stdout.contains("argus serve: 2 of 6 game(s) played"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("go on with `argus serve --resume {out_s}`")),
        "{stdout}"
    );
    let results = pgn_results(&out);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results.iter().all(|r| r != "*"), "{results:?}");
    drop(serve);

    let resumed = argus(&["serve", "--resume", out_s]);
    let stdout = text(&resumed.stdout);
    assert!(
        resumed.status.success(),
        "{stdout}{}",
        text(&resumed.stderr)
    );
    assert!(!stdout.contains("game 1/6 (round 1)"), "{stdout}");
    assert!(
        stdout.contains("argus serve: 6 of 6 game(s) played"),
        "{stdout}"
    );
    let results = pgn_results(&out);
    assert_eq!(results.len(), 6, "{results:?}");
    let event = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    for n in 1..=6 {
        assert_eq!(
            event.matches(&format!("\"game\":{n},")).count(),
            1,
            "{event}"
        );
    }
}

/// `status` shows each game under way and how many are done; an unknown command gets one
/// line and changes nothing; the end of the console's input stops nothing.
#[test]
fn status_shows_the_games_under_way_and_an_unknown_command_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let mut serve = Serve::start(&[
        "serve",
        "--engine",
        "name=Ann",
        "movetime=15",
        "--engine",
        "name=Bob",
        "movetime=15",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let limit = Duration::from_secs(30);
    serve.wait_for_each(limit, &["game 1/2 (round 1)", "game 2/2 (round 1)"]);
    // Some moves first, so that the clocks are at hand.
    std::thread::sleep(Duration::from_millis(500));
    serve.type_line("status");
    let game = serve.wait_for(limit, |l| l.starts_with("status: game 1/2 (round 1): "));
    assert!(
        game.starts_with("status: game 1/2 (round 1): Ann vs Bob: move "),
        "{game}"
    );
    assert!(game.contains(" to move; White "), "{game}");
    assert!(game.ends_with("(at the last move)"), "{game}");
    serve.wait_for(limit, |l| {
        l.starts_with("status: game 2/2 (round 1): Bob vs Ann: ")
    });
    serve.wait_for(limit, |l| l == "status: 0 of 2 game(s) done, 2 under way");
    serve.type_line("stop now please");
    let refused = serve.wait_for(limit, |l| l.contains("unknown command"));
    assert!(
        refused.starts_with(
            "argus serve: unknown command \"stop now please\"; commands: status | stop | stop after-games | help | game N pause|resume|clock|adjudicate|restart"
        ),
        "{refused}"
    );
    // The console's input ends: the event goes on to its end.
    serve.stdin = None;
    let (status, stdout) = serve.finish(Duration::from_secs(120));
    assert!(status.success(), "{stdout}");
    assert!(
        stdout.contains("argus serve: 2 of 2 game(s) played"),
        "{stdout}"
    );
    let after = stdout.split("unknown command").nth(1).unwrap();
    assert!(!after.contains("stopp"), "{stdout}");
    assert_eq!(pgn_results(&out).len(), 2);
}

/// The supervisor's commands act on one game: `game N pause` stands its clocks while the
/// other game goes on, `clock` gives time, `adjudicate` ends it with the result given;
/// without `game N`, with two games under way, argus asks which.
#[test]
fn a_game_command_acts_on_the_game_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let mut serve = Serve::start(&[
        "serve",
        "--engine",
        "name=Ann",
        "movetime=15",
        "--engine",
        "name=Bob",
        "movetime=15",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let limit = Duration::from_secs(30);
    serve.wait_for_each(limit, &["game 1/2 (round 1)", "game 2/2 (round 1)"]);
    std::thread::sleep(Duration::from_millis(300));
    serve.type_line("pause");
    let which = serve.wait_for(limit, |l| l.contains("say which"));
    assert_eq!(
        which,
        "argus serve: 2 games are under way: say which, as in `game N pause`"
    );
    serve.type_line("game 7 pause");
    serve.wait_for(limit, |l| {
        l == "argus serve: game 7 is not under way: nothing done"
    });
    serve.type_line("game 2 pause");
    serve.wait_for(limit, |l| l.starts_with("game 2: paused ("));
    serve.type_line("game 2 clock a +60");
    let given = serve.wait_for(limit, |l| l.starts_with("game 2: White (port a) has "));
    assert!(given.ends_with(" before its current move"), "{given}");
    serve.type_line("game 2 clock b -ten");
    serve.wait_for(limit, |l| l.contains("clock needs +SECS or -SECS"));
    // Game 1 goes on while game 2 is paused: it ends by itself.
    serve.wait_for(Duration::from_secs(90), |l| {
        l.starts_with("game 1/2: Ann vs Bob: ")
    });
    serve.type_line("game 2 adjudicate 0-1 The arbiter saw White's flag fall");
    let over = serve.wait_for(limit, |l| l.starts_with("game 2/2: Bob vs Ann: "));
    assert_eq!(
        over,
        "game 2/2: Bob vs Ann: 0-1 (The arbiter saw White's flag fall)"
    );
    let (status, stdout) = serve.finish(Duration::from_secs(60));
    assert!(status.success(), "{stdout}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn_results(&out).len(), 2, "{pgn}");
    // The PGN's lines are wrapped at 80 columns, inside comments too.
    assert!(
        pgn.replace('\n', " ")
            .contains("The arbiter saw White's flag fall"),
        "{pgn}"
    );
}

/// `--config` gives the engines and the format; an option on the command line overrides
/// its key.
#[test]
fn an_event_file_gives_the_engines_and_the_format_and_the_command_line_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("event.toml");
    std::fs::write(
        &file,
        r#"
[tournament]
format = "gauntlet"
games = 2
tc = "60+0.1"
concurrency = 2

[files]
out = "night"

[[engine]]
name = "Head"
movetime = 1

[[engine]]
name = "Tail1"
proto = "random"

[[engine]]
name = "Tail2"
"#,
    )
    .unwrap();
    let run = argus(&["serve", "--config", file.to_str().unwrap(), "--games", "1"]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    // The file's folder holds `out`; the command line's --games 1 overrides games = 2.
    let out = dir.path().join("night");
    assert!(
        stdout.starts_with(&format!(
            "argus serve: 3 players, gauntlet, 2 game(s) at 60+0.1, 2 at once; files in {}",
            out.display()
        )),
        "{stdout}"
    );
    assert_eq!(pgn_results(&out).len(), 2);
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    // The gauntlet's first player is in every game.
    assert_eq!(pgn.matches("\"Head\"]").count(), 2, "{pgn}");
}

/// A key the file should not have is named, with its table and its place, and nothing
/// runs.
#[test]
fn a_bad_key_in_an_event_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("event.toml");
    std::fs::write(
        &file,
        "[tournament]\ngames = 2\nconcurency = 2\n\n[[engine]]\nname = \"A\"\n[[engine]]\nname = \"B\"\n",
    )
    .unwrap();
    let run = argus(&["serve", "--config", file.to_str().unwrap(), "--out", "x"]);
    assert!(!run.status.success());
    let stderr = text(&run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: config {}: line 3, column 1: unknown key `concurency` in [tournament], expected one of ",
            file.display()
        )),
        "{stderr}"
    );
    assert!(!dir.path().join("x").exists());
    // A value its option refuses is named by its key too.
    std::fs::write(&file, "[tournament]\nformat = \"ladder\"\n").unwrap();
    let run = argus(&["serve", "--config", file.to_str().unwrap(), "--out", "x"]);
    let stderr = text(&run.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: config {}: line 2, column 10: `format` in [tournament]: invalid value 'ladder' for '--format <FORMAT>'",
            file.display()
        )),
        "{stderr}"
    );
}
