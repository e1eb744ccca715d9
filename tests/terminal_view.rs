//! The supervisor's terminal view with the real binary in a real terminal: `argus
//! serve` runs in a tmux pane of 120 x 40; the view appears with a board and the list
//! of games, a `status` typed on its console line is answered in its log, Tab picks
//! another game, and Ctrl-C stops the event and gives the terminal back (cooked mode,
//! the main screen, the last lines printed on it). `--plain` in the same terminal
//! prints today's lines. Needs tmux (Debian's `tmux`; CI installs it).
//!
//! At 80 x 24, a default terminal's size, the view shows the board whole with both
//! players' names and clocks, the console line, and one panel beside the board that
//! Ctrl-T changes.
//!
//! `UPDATE_CAPTURE=1` writes the view as the test saw it to docs/terminal-view.txt,
//! the capture README shows, and the 80 x 24 one to docs/terminal-80x24.txt.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A tmux server of the test's own (its own socket), killed when the test ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(name: &str) -> Tmux {
        Tmux {
            socket: format!("argus-test-{name}-{}", std::process::id()),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .env("TERM", "xterm-256color")
            .output()
            .expect("tmux runs (apt-get install tmux)")
    }

    /// Starts `command` (a shell line) in a detached 120 x 40 session in `dir`.
    fn start(&self, dir: &Path, command: &str) {
        self.start_sized(dir, command, (120, 40));
    }

    /// Starts `command` in a detached session of `size` (columns, rows) in `dir`.
    fn start_sized(&self, dir: &Path, command: &str, (columns, rows): (u16, u16)) {
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let out = self.run(&[
            "new-session",
            "-d",
            "-x",
            &columns,
            "-y",
            &rows,
            "-s",
            "view",
            "-c",
            dir.to_str().unwrap(),
            command,
        ]);
        assert!(out.status.success(), "tmux: {out:?}");
    }

    /// The pane as text, with its history when `history`.
    fn capture(&self, history: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", "view"];
        if history {
            args.extend(["-S", "-200"]);
        }
        String::from_utf8_lossy(&self.run(&args).stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "view"];
        args.extend(keys);
        assert!(self.run(&args).status.success());
    }

    /// Waits up to `secs` for the pane to satisfy `what`; returns the capture.
    fn wait(&self, secs: u64, history: bool, why: &str, what: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let screen = self.capture(history);
            if what(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "{why}: not within {secs} s; the pane:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The shell line that runs argus serve with `extra` options, then says how it ended
/// and whether the terminal is in cooked mode again, and stays for the capture.
fn serve_line(extra: &str) -> String {
    format!(
        "{} serve --engine name=Ann proto=random movetime=200 --engine name=Bob proto=random movetime=200 \
         --engine name=Cy proto=random movetime=200 --games 2 --concurrency 2 --tc 60+1 --out event {extra}; \
         echo argus-exit=$?; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'; sleep 60",
        env!("CARGO_BIN_EXE_argus")
    )
}

#[test]
#[ignore = "needs tmux"]
fn argus_serve_shows_the_view_in_a_terminal_answers_its_console_and_gives_the_terminal_back() {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::new("view");
    tmux.start(dir.path(), &serve_line(""));
    let screen = tmux.wait(30, false, "the board and the games", |s| {
        s.contains("│ 8  ") && s.contains("Games (2)") && s.contains("ply ")
    });
    assert!(screen.contains("┌ Moves"), "{screen}");
    assert!(screen.contains("┌ Console: status | stop | stop after-games | help"));
    assert!(screen.contains("Tab/Shift-Tab, PgDn/PgUp: pick a game"));
    let games: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains(" - ") && l.contains("ply "))
        .collect();
    assert_eq!(games.len(), 2, "two games under way:\n{screen}");
    // A command typed on the console line is answered in the log.
    tmux.keys(&["status", "Enter"]);
    let screen = tmux.wait(10, false, "the answer to status", |s| {
        s.contains("│> status") && s.contains("status: 0 of 6 game(s) done, 2 under way")
    });
    assert!(screen.contains("status: game 1/6 (round 1)"), "{screen}");
    if std::env::var_os("UPDATE_CAPTURE").is_some() {
        // For the picture: a game some moves on.
        tmux.wait(60, false, "twenty moves", |s| {
            s.lines().any(|l| {
                l.split("ply ")
                    .nth(1)
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| n >= 40)
            })
        });
    }
    // Tab picks the other game; Up brings the command back.
    tmux.keys(&["Tab"]);
    tmux.keys(&["Up"]);
    let screen = tmux.wait(10, false, "game 2 picked", |s| {
        s.contains("┌ Game 2 · 60+1 (picked)") && s.contains("│> status ")
    });
    if std::env::var_os("UPDATE_CAPTURE").is_some() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/terminal-view.txt");
        let text: Vec<&str> = screen.lines().map(str::trim_end).collect();
        std::fs::write(path, text.join("\n") + "\n").unwrap();
    }
    // Ctrl-C stops the event as it does without the view, and the terminal is back:
    // the main screen holds the last lines, in cooked mode.
    tmux.keys(&["C-u", "C-c"]);
    let screen = tmux.wait(30, true, "the end of argus", |s| s.contains("argus-exit="));
    assert!(screen.contains("argus-exit=130"), "{screen}");
    assert!(
        screen.contains(
            "argus serve: stopped; the event is not over: go on with `argus serve --resume event`"
        ),
        "{screen}"
    );
    assert!(
        screen.lines().any(|l| l == "icanon"),
        "cooked mode:\n{screen}"
    );
    assert!(!screen.contains("┌ Moves"), "the view is gone:\n{screen}");
}

#[test]
#[ignore = "needs tmux"]
fn with_plain_argus_serve_prints_its_lines_in_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::new("plain");
    tmux.start(dir.path(), &serve_line("--plain"));
    let screen = tmux.wait(20, true, "the plain lines", |s| {
        s.contains("game 1/6 (round 1): ") && s.contains("argus serve: console;")
    });
    assert!(!screen.contains("┌ Moves"), "{screen}");
    tmux.keys(&["stop", "Enter"]);
    let screen = tmux.wait(30, true, "the end of argus", |s| s.contains("argus-exit="));
    assert!(
        screen.contains("argus serve: stopping the games under way"),
        "{screen}"
    );
    assert!(screen.contains("argus-exit=130"), "{screen}");
}

#[test]
#[ignore = "needs tmux"]
fn at_80_by_24_the_view_shows_the_whole_board_both_clocks_and_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux::new("small");
    tmux.start_sized(dir.path(), &serve_line(""), (80, 24));
    // Both players' lines: a name and a clock (H:MM:SS.t) on the board's first and last
    // rows, the running one marked.
    let has_clock = |l: &str| {
        l.trim_end_matches('│')
            .rsplit(' ')
            .next()
            .is_some_and(|c| c.len() == 9 && c.as_bytes()[1] == b':' && c.as_bytes()[7] == b'.')
    };
    let screen = tmux.wait(30, false, "the board, both players and the console", |s| {
        let players = s
            .lines()
            .filter(|l| l.starts_with("│> ") || l.starts_with("│  ") && !l.starts_with("│  ·"))
            .filter(|l| has_clock(l.split("││").next().unwrap_or(l)))
            .count();
        s.contains("│ 8  ") && s.contains("│ 1  ") && players == 2 && s.contains(" to move")
    });
    let lines: Vec<&str> = screen.lines().collect();
    assert_eq!(lines.len(), 24, "{screen}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{screen}");
    assert!(screen.contains("┌ Moves"), "{screen}");
    assert!(
        lines[20].starts_with("┌ Console: status | stop"),
        "{screen}"
    );
    assert!(
        lines[23].starts_with("Tab: pick game · Esc: follow · Ctrl-T: moves/games/standings/log"),
        "{screen}"
    );
    // Ctrl-T: the games beside the board, then the standings.
    tmux.keys(&["C-t"]);
    let screen = tmux.wait(10, false, "the games", |s| s.contains("┌ Games (2)"));
    assert!(screen.contains("│ 8  "), "the board stays:\n{screen}");
    tmux.keys(&["C-t"]);
    tmux.wait(10, false, "the standings", |s| s.contains("┌ Standings"));
    tmux.keys(&["C-t", "C-t"]);
    tmux.wait(10, false, "the moves again", |s| s.contains("┌ Moves"));
    if std::env::var_os("UPDATE_CAPTURE").is_some() {
        tmux.keys(&["status", "Enter"]);
        let screen = tmux.wait(60, false, "some moves and the answer to status", |s| {
            s.contains("status: ")
                && s.lines().any(|l| {
                    l.split_once("││")
                        .is_some_and(|(_, moves)| moves.trim_start().starts_with("12."))
                })
        });
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/terminal-80x24.txt");
        let text: Vec<&str> = screen.lines().map(str::trim_end).collect();
        std::fs::write(path, text.join("\n") + "\n").unwrap();
    }
    tmux.keys(&["C-u", "C-c"]);
    let screen = tmux.wait(30, true, "the end of argus", |s| s.contains("argus-exit="));
    assert!(screen.contains("argus-exit=130"), "{screen}");
}
