//! Chess960 through `argus serve`: Stockfish against itself from positions drawn by
//! `--srand`, every game a legal Chess960 game from its FEN, its journal replayed byte
//! for byte; and a CECP engine that does not list `fischerandom` refused before the
//! first game.

#![cfg(unix)]

mod common;
mod serve_support;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Killer, null_modem};
use serve_support::*;
use shakmaty::{CastlingMode, Chess, Position};

/// A game's tags and its moves in SAN.
type Game = (Vec<(String, String)>, Vec<String>);

/// The games of a PGN file: each one's tags and its moves in SAN (comments, move
/// numbers and the result left out).
fn games(pgn: &str) -> Vec<Game> {
    let mut out = Vec::new();
    for block in pgn.split("\n\n[").map(|b| b.trim_start_matches('[')) {
        let (tags, movetext) = block.split_once("\n\n").unwrap_or((block, ""));
        let tags = tags
            .lines()
            .filter_map(|l| {
                let l = l.trim_start_matches('[').trim_end_matches(']');
                let (name, value) = l.split_once(' ')?;
                Some((name.to_string(), value.trim_matches('"').to_string()))
            })
            .collect();
        let mut moves = Vec::new();
        let mut depth = 0;
        let mut word = String::new();
        for c in movetext.chars().chain([' ']) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                c if depth > 0 => {
                    let _ = c;
                }
                c if c.is_whitespace() => {
                    let w = std::mem::take(&mut word);
                    if ["1-0", "0-1", "1/2-1/2", "*"].contains(&w.as_str()) {
                        continue;
                    }
                    let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                    if !w.is_empty() {
                        moves.push(w.to_string());
                    }
                }
                c => word.push(c),
            }
        }
        out.push((tags, moves));
    }
    out
}

#[test]
#[ignore = "needs stockfish"]
fn stockfish_plays_chess960_games_that_replay_by_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--variant",
        "chess960",
        "--srand",
        "960",
        "--engine",
        "name=A",
        "cmd=/usr/games/stockfish",
        "proto=uci",
        "--engine",
        "name=B",
        "cmd=/usr/games/stockfish",
        "proto=uci",
        "--rounds",
        "2",
        "--tc",
        "1+0.01",
        "--concurrency",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let games = games(&pgn);
    assert_eq!(games.len(), 4, "{pgn}");
    let mut castled = 0;
    for (tags, moves) in &games {
        let tag = |name: &str| {
            tags.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("no {name} in {tags:?}"))
        };
        assert_eq!(tag("Variant"), "Chess960");
        assert_eq!(tag("SetUp"), "1");
        let mut pos: Chess = tag("FEN")
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        for san in moves {
            let m = san
                .parse::<shakmaty::san::SanPlus>()
                .unwrap_or_else(|e| panic!("{san}: {e}"))
                .san
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{san} in {}: {e}", tag("FEN")));
            castled += usize::from(m.is_castle());
            pos.play_unchecked(m);
        }
        assert!(!moves.is_empty());
    }
    // Two positions drawn by the seed, each played twice.
    let fens: std::collections::BTreeSet<String> = games
        .iter()
        .filter_map(|(tags, _)| {
            tags.iter()
                .find(|(n, _)| n == "FEN")
                .map(|(_, v)| v.clone())
        })
        .collect();
    assert_eq!(fens.len(), 2, "{fens:?}");
    eprintln!("{castled} castlings in {} games", games.len());
    for n in 1..=4 {
        let journal = out.join(format!("games/game-000{n}.jsonl"));
        let replay = argus(&["replay", journal.to_str().unwrap()]);
        assert!(
            text(&replay.stderr).contains("no divergence"),
            "{n}: {}",
            text(&replay.stderr)
        );
    }
}

#[test]
#[ignore = "needs fairymax"]
fn a_cecp_engine_without_fischerandom_is_refused_before_the_first_game() {
    let dir = tempfile::tempdir().unwrap();
    let run = argus(&[
        "serve",
        "--variant",
        "chess960",
        "--engine",
        "name=R",
        "--engine",
        "name=FM",
        "cmd=/usr/games/fairymax",
        "proto=xboard",
        "--out",
        dir.path().join("event").to_str().unwrap(),
    ]);
    let stderr = text(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.contains("--engine name=FM: ")
            && stderr.contains("does not play chess960: its feature variants (normal,"),
        "{stderr}"
    );
}

/// Two `argus client`s over socat null modems, Stockfish and the random mover, play
/// Chess960 through `argus serial` from a book in X-FEN and Shredder-FEN: the PGN says
/// so, every move is legal by Chess960's rules, and the journal replays to the same PGN.
#[test]
#[ignore = "needs socat and stockfish"]
fn a_chess960_match_through_argus_serial_over_null_modems() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _cable_a = null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = null_modem(&p("ref-b"), &p("player-b"));
    std::fs::write(
        p("frc.epd"),
        "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge -\n",
    )
    .unwrap();
    let (pgn, journal) = (p("match.pgn"), p("match.jsonl"));
    let mut referee = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args(["--variant", "chess960", "--games", "2", "--tc", "5+0.05"])
            .args([
                "--reset-delay",
                "0.2",
                "--conclude-delay",
                "0.2",
                "--unattended",
            ])
            .arg("--openings")
            .arg(p("frc.epd"))
            .arg("--pgn")
            .arg(&pgn)
            .arg("--journal")
            .arg(&journal)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = |port: &str, engine: &str| {
        Killer(
            Command::new(env!("CARGO_BIN_EXE_argus"))
                .arg("client")
                .arg(p(port))
                .args(["--engine", engine, "--seed", "960"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let _a = client("player-a", "uci:/usr/games/stockfish");
    let _b = client("player-b", "random");
    let status = referee.wait_within(Duration::from_secs(120), "the match did not finish");
    assert!(status.success());
    let text = std::fs::read_to_string(&pgn).unwrap();
    let games = games(&text);
    assert_eq!(games.len(), 2, "{text}");
    for (tags, moves) in &games {
        assert!(
            tags.contains(&("Variant".into(), "Chess960".into())),
            "{tags:?}"
        );
        assert!(
            tags.contains(&(
                "FEN".into(),
                "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1".into()
            )),
            "{tags:?}"
        );
        let mut pos: Chess = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        for san in moves {
            let m = san
                .parse::<shakmaty::san::SanPlus>()
                .unwrap()
                .san
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{san}: {e}"));
            pos.play_unchecked(m);
        }
    }
    assert_eq!(common::replayed_pgn(&journal, &p("replayed.pgn")), text);
}
