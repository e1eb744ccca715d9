//! Noise that changes records, not only the gaps between them: a match between argus's
//! referee and argus's clients through two noisy simulated lines (socat null modems with
//! `argus wire --noise` between) is decided on the board when the clients seal their
//! records (the checksum extension, docs/protocol.md), and by the noise without it.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use argus::epd::seal::{self, Seal};
use argus::mediator::journal::{self, Event};
use common::Killer;

/// A slow, noisy line between `<name>-ref` (the referee's end) and `<name>-player`.
fn noisy_line(dir: &Path, name: &str, noise: &str, seed: &str) -> Vec<Killer> {
    common::simulated_line(dir, name, "115200", noise, seed)
}

/// What a noisy match came to.
struct Played {
    /// Each game's Termination tag.
    terminations: Vec<String>,
    /// Lines the referee received that noise had changed.
    corrupted_in: usize,
    /// Requests of the clients for records noise took from them.
    asked_again: usize,
}

/// Plays `games` games of random movers through two noisy lines; `checksum` says
/// whether the clients offer the extension.
fn noisy_match(dir: &Path, games: u32, noise: &str, checksum: bool) -> Played {
    let p = |name: &str| dir.join(name);
    let _a = noisy_line(dir, "a", noise, "7");
    let _b = noisy_line(dir, "b", noise, "8");
    let pgn: PathBuf = p("noisy.pgn");
    let journal = p("noisy.jsonl");
    let mut referee = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("a-ref"))
            .arg(p("b-ref"))
            .args(["--unattended", "--baud", "115200", "--tc", "10+0.1"])
            .args(["--games", &games.to_string()])
            .args(["--reset-delay", "0.1", "--conclude-delay", "0.1"])
            .arg("--pgn")
            .arg(&pgn)
            .arg("--journal")
            .arg(&journal)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = |end: &str, seed: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_argus"));
        cmd.arg("client")
            .arg(p(end))
            .args(["--engine", "random", "--seed", seed, "--baud", "115200"]);
        if !checksum {
            cmd.arg("--no-checksum");
        }
        Killer(cmd.stderr(Stdio::null()).spawn().unwrap())
    };
    let _ca = client("a-player", "21");
    let _cb = client("b-player", "22");
    let status = referee.wait_within(
        Duration::from_secs(60 * u64::from(games)),
        "the match did not finish",
    );
    assert!(status.success());
    let text = std::fs::read_to_string(&pgn).unwrap();
    common::check_pgn_with_pgn_reader(&text, games as usize);
    let replay = journal::replay(&journal).unwrap();
    assert_eq!(replay.divergence, None);
    assert_eq!(replay.pgn, text, "the replay reproduces the PGN");
    let mut corrupted_in = 0;
    let mut asked_again = 0;
    for (_, event) in journal::read(&journal).unwrap() {
        if let Event::Rx { text, .. } = event {
            let Some(text) = text else {
                corrupted_in += 1;
                continue;
            };
            match seal::open(text.as_bytes()) {
                Seal::Valid { .. } if text.contains(seal::AGAIN) => asked_again += 1,
                Seal::Valid { .. } => {}
                Seal::Broken => corrupted_in += 1,
                Seal::None if checksum => corrupted_in += 1,
                Seal::None => {
                    if argus::epd::Record::from_ascii(text.as_bytes()).is_err() {
                        corrupted_in += 1;
                    }
                }
            }
        }
    }
    Played {
        terminations: text
            .lines()
            .filter_map(|l| l.strip_prefix("[Termination \""))
            .map(|t| t.trim_end_matches("\"]").to_string())
            .collect(),
        corrupted_in,
        asked_again,
    }
}

#[test]
#[ignore = "needs socat"]
fn with_checksums_a_noisy_line_decides_no_game() {
    let dir = tempfile::tempdir().unwrap();
    let games = 20;
    let played = noisy_match(dir.path(), games, "0.0005", true);
    eprintln!(
        "with checksums: {games} games {:?}; {} corrupted lines reached the referee, the clients asked again {} times",
        played.terminations, played.corrupted_in, played.asked_again
    );
    assert_eq!(played.terminations.len(), games as usize);
    // The noise was real: more than one corrupted record a game, both ways.
    assert!(
        played.corrupted_in + played.asked_again >= games as usize,
        "too little noise to prove anything"
    );
    assert!(played.corrupted_in > 0 && played.asked_again > 0);
    assert!(
        played.terminations.iter().all(|t| t == "normal"),
        "every game decided on the board: {:?}",
        played.terminations
    );
}

#[test]
#[ignore = "needs socat"]
fn without_checksums_the_same_noise_decides_games() {
    let dir = tempfile::tempdir().unwrap();
    let games = 4;
    let played = noisy_match(dir.path(), games, "0.0005", false);
    eprintln!(
        "without checksums: {games} games {:?}; {} corrupted lines reached the referee",
        played.terminations, played.corrupted_in
    );
    assert_eq!(played.asked_again, 0);
    assert!(
        played.terminations.iter().any(|t| t != "normal"),
        "noise decided no game: {:?}",
        played.terminations
    );
}

/// The sealed records shown in docs/protocol.md are sealed as argus seals them: every
/// one, from the referee (`a<`, `b<`) or a player (`a>`, `b>`), but the one the page
/// shows noise changing.
#[test]
fn the_documented_seals_match() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md")).unwrap();
    let sealed: Vec<&str> = doc
        .lines()
        .filter(|l| l.contains(" xchk ") && !l.contains("<record>"))
        .map(|l| l.get(3..).unwrap_or(l))
        .collect();
    assert!(sealed.len() >= 8, "{sealed:?}");
    let mut broken = Vec::new();
    for line in sealed {
        match seal::open(line.as_bytes()) {
            Seal::Valid { body, .. } => {
                argus::epd::Record::from_ascii(&line.as_bytes()[..body]).unwrap();
            }
            _ => broken.push(line),
        }
    }
    assert_eq!(
        broken.len(),
        1,
        "only the noisy example is broken: {broken:?}"
    );
    assert!(broken[0].contains("sm e7;"), "{broken:?}");
}
