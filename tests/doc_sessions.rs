//! Every command-line session in the documents is a test, run by trycmd.
//!
//! A fenced block whose info string is `console` (in README.md or docs/*.md) is a session:
//! `$ argus ...` lines, each followed by what argus prints (standard output and standard
//! error together), and `? failed` (or another exit status) when it does not succeed.
//! `[..]` in a line stands for any text on that line, and `...` alone on a line for any
//! lines: times, paths and pty names are written that way. Commands that need hardware,
//! another program or a running match are plain `sh` blocks, not sessions.
//!
//! trycmd reads every fenced block of a document without an info string, or with
//! `console` or `trycmd`, as a session; the documents give their other blocks an info
//! string (`sh`, `text`, `exchange`, ...).
//!
//! Each document's sessions run, in order, in a scratch folder of their own that holds
//! the files of `tests/data/docs/DOCUMENT/` (journals of real sessions, an openings
//! file, event files). The documents are copied to a temporary folder as they are (so
//! trycmd's line numbers are the document's) beside that folder, named `DOCUMENT.in`
//! as trycmd wants it.

use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and docs/*.md, as (name, path).
fn documents() -> Vec<(String, PathBuf)> {
    let mut docs = vec![("README".to_string(), root().join("README.md"))];
    let mut more: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// Whether a document holds a session.
fn has_sessions(text: &str) -> bool {
    text.lines().any(|l| {
        l.strip_prefix("```")
            .is_some_and(|info| matches!(info.trim(), "console" | "trycmd"))
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn every_session_in_the_documents_is_what_argus_prints() {
    let scratch = tempfile::tempdir().unwrap();
    let cases = TestCasesBuilder::new(scratch.path());
    let mut count = 0;
    for (name, path) in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        if !has_sessions(&text) {
            continue;
        }
        cases.add(&name, &text);
        count += 1;
    }
    assert!(count > 0, "no sessions found");
    cases.run();
}

/// The trycmd cases: one copy of each document with its folder of files.
struct TestCasesBuilder {
    dir: PathBuf,
    cases: trycmd::TestCases,
}

impl TestCasesBuilder {
    fn new(dir: &Path) -> TestCasesBuilder {
        let cases = trycmd::TestCases::new();
        cases
            .register_bin("argus", PathBuf::from(env!("CARGO_BIN_EXE_argus")))
            .env("RUST_LOG", "warn")
            .timeout(Duration::from_secs(30));
        TestCasesBuilder {
            dir: dir.to_path_buf(),
            cases,
        }
    }

    fn add(&self, name: &str, text: &str) {
        let case = self.dir.join(format!("{name}.md"));
        std::fs::write(&case, text).unwrap();
        copy_dir(
            &root().join("tests/data/docs").join(name),
            &self.dir.join(format!("{name}.in")),
        );
        // An `.out` folder makes trycmd run the case in a scratch copy of `.in`: what
        // the sessions write stays there. It holds no file to compare.
        let out = self.dir.join(format!("{name}.out"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(".keep"), "").unwrap();
        self.cases.case(&case);
    }

    fn run(self) {
        self.cases.run();
    }
}

#[cfg(unix)]
mod common;

/// Plays fool's mate from `white`'s respond: 1. f3 e5 2. g4 Qh4#.
#[cfg(unix)]
fn fools_mate(white: &mut common::Peer, black: &mut common::Peer) {
    let moves = ["f3", "e5", "g4", "Qh4#"];
    let mut respond = white.expect("respond");
    for (i, mv) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        mover.send(&common::reply(&respond, &format!("sm {mv};")));
        if i + 1 < moves.len() {
            respond = other.expect("respond");
        }
    }
}

/// Records a match of `games` fool's mates through the real referee, started with
/// `args` in a scratch folder, and copies its journal (named by `--journal`) to
/// `tests/data/docs/DOC/`.
#[cfg(unix)]
fn record(doc: &str, games: u32, args: &[&str]) {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let mut a = common::Peer::new();
    let mut b = common::Peer::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .current_dir(dir.path())
        .args(["serial", &a.path, &b.path, "--games", &games.to_string()])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    common::await_refereeing(&mut child);
    a.sign_on("Stockfish");
    b.sign_on("Fairy-Max");
    for game in 0..games {
        for peer in [&mut a, &mut b] {
            peer.expect("reset");
        }
        for peer in [&mut a, &mut b] {
            peer.expect("inform");
        }
        if game % 2 == 0 {
            fools_mate(&mut a, &mut b);
        } else {
            fools_mate(&mut b, &mut a);
        }
        for peer in [&mut a, &mut b] {
            peer.expect("inform");
            peer.expect("conclude");
        }
    }
    for peer in [&mut a, &mut b] {
        peer.expect("disconnect");
    }
    assert!(child.wait().unwrap().success());
    let journal = args[args.iter().position(|a| *a == "--journal").unwrap() + 1];
    let to = root().join("tests/data/docs").join(doc);
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(dir.path().join(journal), to.join(journal)).unwrap();
}

/// Writes the journals the documents' sessions replay and resume: real sessions of
/// the referee with two scripted players (fool's mate, each game). Run it by hand when
/// the journal format changes:
/// `ARGUS_RECORD_DOC_JOURNALS=1 cargo test --test doc_sessions record -- --ignored`
/// (CI's `--include-ignored` leaves the committed journals alone).
#[cfg(unix)]
#[test]
#[ignore = "writes the journals in tests/data/docs; run by hand"]
fn record_the_journals_of_the_documents() {
    if std::env::var_os("ARGUS_RECORD_DOC_JOURNALS").is_none() {
        eprintln!("set ARGUS_RECORD_DOC_JOURNALS=1 to write the journals");
        return;
    }
    let quick = ["--reset-delay", "0.2", "--conclude-delay", "0.2"];
    let readme = [
        "--tc",
        "40/7200:1800",
        "--event",
        "Club championship",
        "--site",
        "Club hall",
        "--pgn",
        "club.pgn",
        "--journal",
        "argus-20261122-193000.jsonl",
    ];
    record("README", 2, &[&readme[..], &quick[..]].concat());
    let club = [
        "--tc",
        "40/7200:1800",
        "--event",
        "Club championship",
        "--site",
        "Club hall",
        "--round",
        "1",
        "--name-a",
        "Stockfish",
        "--name-b",
        "Ann Smith",
        "--pgn",
        "club.pgn",
        "--journal",
        "club-round1.jsonl",
    ];
    record("club-event", 2, &[&club[..], &quick[..]].concat());
    let service = [
        "--tc",
        "40/7200:1800",
        "--event",
        "Club championship",
        "--site",
        "Club hall",
        "--round",
        "3",
        "--name-a",
        "Stockfish",
        "--name-b",
        "Fairy-Max",
        "--pgn",
        "club.pgn",
        "--journal",
        "club.jsonl",
        "--unattended",
    ];
    record("background", 4, &[&service[..], &quick[..]].concat());
}
