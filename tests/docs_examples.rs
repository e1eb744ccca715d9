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
