//! Every example file in `docs/` loads as argus loads it: an event file (`*.toml`) through
//! the event-file loader, and the openings file it names through the openings reader (an
//! `argus serve` event file, `*serve*.toml`, through its loader and then clap, as
//! `argus serve --config` reads it); an openings file (`*.epd`, `*.pgn`) through the
//! openings reader. A file of a type this test does
//! not know fails it, so that a new kind of example gets its loader here.

use std::path::{Path, PathBuf};

use argus::cli::{Cli, Command};
use argus::mediator::config::EventConfig;
use argus::openings::{OpeningsSpec, read_openings};
use clap::Parser;

/// The files under `dir`, in sorted order.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn every_example_file_in_docs_loads() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut examples = Vec::new();
    for path in files(&docs) {
        let shown = path.display();
        match path.extension().and_then(|e| e.to_str()) {
            // The documentation itself, and its pictures (a PNG must at least be one).
            Some("md") => continue,
            Some("png") => {
                let bytes = std::fs::read(&path).unwrap();
                assert!(
                    bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
                    "{shown}: not a PNG"
                );
                continue;
            }
            // A capture of the supervisor's terminal view (tests/terminal_view.rs).
            Some("txt") => {
                let text =
                    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{shown}: {e}"));
                assert!(text.contains("│ 8  "), "{shown}: no board in the capture");
                continue;
            }
            Some("toml")
                if path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("serve")) =>
            {
                let options = argus::server::config::load(&path).unwrap_or_else(|e| panic!("{e}"));
                let words = options.iter().flat_map(|o| o.args());
                let cli = Cli::try_parse_from(
                    ["argus", "serve"]
                        .into_iter()
                        .map(String::from)
                        .chain(words),
                )
                .unwrap_or_else(|e| panic!("{shown}: {e}"));
                let Command::Serve(args) = cli.command else {
                    panic!("argus serve")
                };
                if !args.openings.is_empty() {
                    OpeningsSpec::parse(&args.openings)
                        .unwrap_or_else(|e| panic!("{shown}: {e}"))
                        .read()
                        .unwrap_or_else(|e| panic!("{shown}: {e}"));
                }
                let players = options
                    .iter()
                    .filter(|o| o.key == "engine" || o.key == "player")
                    .count();
                assert!(players >= 2, "{shown}: an event needs two players");
                assert!(args.out.is_some(), "{shown}: no out");
            }
            Some("toml") => {
                let event = EventConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
                if let Some(openings) = &event.openings {
                    read_openings(openings).unwrap_or_else(|e| panic!("{shown}: {e}"));
                }
            }
            Some("epd" | "pgn") => {
                read_openings(&path).unwrap_or_else(|e| panic!("{e}"));
            }
            _ => panic!(
                "{shown}: an example file of a type this test does not load: add its loader here"
            ),
        }
        examples.push(path);
    }
    for name in [
        "example-event.toml",
        "example-serve.toml",
        "openings.epd",
        "openings.pgn",
    ] {
        assert!(
            examples.contains(&docs.join(name)),
            "docs/{name} was not loaded"
        );
    }
}

/// docs/views.md's example of "a few games that last" does last: run as written (the
/// folder and the page's port made this test's own), it is still playing 10 s later
/// with two games under way on the page's live PGN.
#[test]
fn the_views_example_to_watch_lasts_long_enough_to_watch() {
    use std::io::{Read, Write};
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/views.md"))
        .unwrap();
    let block = doc
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default())
        .find(|b| b.contains("proto=random movetime=2000"))
        .expect("docs/views.md has its example to watch");
    let command = block.replace("\\\n", " ");
    let mut words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    assert_eq!(words[0], "argus", "{command}");
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for i in 1..words.len() {
        match words[i - 1].as_str() {
            "--out" => words[i] = dir.path().join("trial").display().to_string(),
            "--http" => words[i] = port.to_string(),
            _ => {}
        }
    }
    let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(&words[1..])
        .arg("--unattended")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(10));
    let still = serve.try_wait().unwrap().is_none();
    let mut pgn = String::new();
    if let Ok(mut page) = std::net::TcpStream::connect(("127.0.0.1", port)) {
        let _ = page.set_read_timeout(Some(std::time::Duration::from_secs(5)));
        let _ = page.write_all(b"GET /live.pgn HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let _ = page.read_to_string(&mut pgn);
    }
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(still, "the example ended within 10 s: {command}");
    assert_eq!(
        pgn.matches("[Result \"*\"]").count(),
        2,
        "two games under way on the page:\n{pgn}"
    );
}
