//! Adjudication by Syzygy tables through `argus serve` (`--tb`), with the 3- and
//! 4-piece WDL tables under tests/data/syzygy and random movers: a won start position is
//! adjudicated at once for the side that wins, a drawn one as a draw, and tables that
//! are not there refuse the event before it begins; the same through `argus serial`.

#![cfg(unix)]

mod common;
mod serve_support;

use serve_support::*;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

#[test]
fn games_the_tables_decide_end_at_once_with_their_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("endings.epd");
    // KRvK with White to move, KQvK with Black to move (lost all the same), KRvKR.
    std::fs::write(
        &book,
        "8/8/8/4k3/8/8/8/R3K3 w - -\n8/8/3k4/8/8/8/8/Q3K3 b - -\n8/8/3k4/3r4/8/8/3R4/3K4 w - -\n",
    )
    .unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--rounds",
        "3",
        "--openings",
        book.to_str().unwrap(),
        "--tb",
        TABLES,
        "--tb-pieces",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let games: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    assert_eq!(games.len(), 6, "{pgn}");
    for (i, game) in games.iter().enumerate() {
        let (result, reason) = match i / 2 {
            0 => ("1-0", "{SyzygyTB: White wins (KRvK)} 1-0"),
            1 => ("1-0", "{SyzygyTB: White wins (KQvK)} 1-0"),
            _ => ("1/2-1/2", "{SyzygyTB: drawn (KRvKR)} 1/2-1/2"),
        };
        assert!(game.contains(&format!("[Result \"{result}\"]")), "{game}");
        assert!(game.contains("[Termination \"adjudication\"]"), "{game}");
        assert!(game.contains("[PlyCount \"0\"]"), "{game}");
        assert!(game.contains(reason), "{game}");
    }
}

#[test]
fn tables_that_are_not_there_refuse_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--tb",
        "/nowhere/syzygy",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = text(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(stderr.contains("--tb /nowhere/syzygy: "), "{stderr}");
    assert!(!out.exists(), "no event was begun");
}

/// `argus serial --tb` over socat null modems, two random movers: a KQvK start is White's
/// at once, the verdict in the journal, which replays it without the tables.
#[test]
#[ignore = "needs socat"]
fn argus_serial_adjudicates_by_the_tables_too() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let _cable_a = common::null_modem(&p("ref-a"), &p("player-a"));
    let _cable_b = common::null_modem(&p("ref-b"), &p("player-b"));
    std::fs::write(p("kqk.epd"), "8/8/3k4/8/8/8/8/Q3K3 w - -\n").unwrap();
    let (pgn, journal) = (p("match.pgn"), p("match.jsonl"));
    let mut referee = common::Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg(p("ref-a"))
            .arg(p("ref-b"))
            .args(["--games", "2", "--unattended", "--tb", TABLES])
            .args(["--reset-delay", "0.2", "--conclude-delay", "0.2"])
            .arg("--openings")
            .arg(p("kqk.epd"))
            .arg("--pgn")
            .arg(&pgn)
            .arg("--journal")
            .arg(&journal)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = |port: &str| {
        common::Killer(
            Command::new(env!("CARGO_BIN_EXE_argus"))
                .arg("client")
                .arg(p(port))
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let _a = client("player-a");
    let _b = client("player-b");
    let status = referee.wait_within(Duration::from_secs(60), "the match did not finish");
    assert!(status.success());
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        text.matches("{SyzygyTB: White wins (KQvK)} 1-0").count(),
        2,
        "{text}"
    );
    assert_eq!(common::replayed_pgn(&journal, &p("replayed.pgn")), text);
}
