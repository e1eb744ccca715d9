//! An instant UCI engine for benchmarking match managers (`scripts/bench-managers.sh`):
//! it answers every `go` at once with a legal move chosen from the position by a seeded
//! generator, so that what a match costs is the manager's work alone.
//!
//! With `INSTANT_UCI_LOG=FILE` it appends one line per `go` and per `bestmove`, with
//! the wall clock in microseconds since the Unix epoch (the same clock in every
//! process):
//!
//! ```text
//! go <pid> <us>
//! bestmove <pid> <us>
//! ```
//!
//! (Its CPU time is not its to report: the benchmark reads the engines' CPU from the
//! manager's reaped children, `cutime` and `cstime` in its `/proc/PID/stat`.)
//!
//! A manager's relay latency is the time from one engine's `bestmove` to the other's
//! next `go`, read from these stamps.

use std::fs::File;
use std::io::{self, BufRead, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

fn now_us() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

fn main() -> io::Result<()> {
    let mut log = std::env::var_os("INSTANT_UCI_LOG")
        .map(|path| File::options().create(true).append(true).open(path))
        .transpose()?;
    let pid = std::process::id();
    let mut stamp = |what: &str, value: u128| {
        if let Some(log) = log.as_mut() {
            // One write, so that the lines of engines sharing the file never mix.
            let _ = log.write_all(format!("{what} {pid} {value}\n").as_bytes());
        }
    };
    let mut out = io::stdout().lock();
    let mut pos = Chess::default();
    // INSTANT_UCI_SEED fixes the seed, so that a match's games are the same from one
    // run to the next (argus's instructions a ply measured before and after a change).
    let mut seed: u64 = std::env::var("INSTANT_UCI_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::from(pid))
        | 1;
    for line in io::stdin().lock().lines() {
        let line = line?;
        let mut words = line.split_whitespace();
        match words.next() {
            Some("uci") => {
                writeln!(out, "id name instant-uci\nid author argus\nuciok")?;
            }
            Some("isready") => writeln!(out, "readyok")?,
            Some("ucinewgame") => pos = Chess::default(),
            Some("position") => {
                let rest: Vec<&str> = words.collect();
                let (start, moves) = match rest.iter().position(|w| *w == "moves") {
                    Some(i) => (&rest[..i], &rest[i + 1..]),
                    None => (&rest[..], &[][..]),
                };
                pos = match start {
                    ["fen", fen @ ..] => fen
                        .join(" ")
                        .parse::<shakmaty::fen::Fen>()
                        .ok()
                        .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                        .unwrap_or_default(),
                    _ => Chess::default(),
                };
                for m in moves {
                    let Some(m) = m.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok())
                    else {
                        break;
                    };
                    pos.play_unchecked(m);
                }
            }
            Some("go") => {
                stamp("go", now_us());
                let legal = pos.legal_moves();
                // xorshift: a fixed sequence for a given process.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let best = if legal.is_empty() {
                    "0000".to_string()
                } else {
                    let m = &legal[(seed % legal.len() as u64) as usize];
                    m.to_uci(CastlingMode::Standard).to_string()
                };
                writeln!(out, "info depth 1 score cp 0 nodes 1\nbestmove {best}")?;
                out.flush()?;
                stamp("bestmove", now_us());
                continue;
            }
            Some("quit") => break,
            _ => {}
        }
        out.flush()?;
    }
    Ok(())
}
