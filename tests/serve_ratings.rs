//! `argus serve`'s reports for engine testers, run on the real binary with random
//! movers: the ratings every `--rating-interval` games and at the end (with a
//! two-player match's pentanomial pairs), the SPRT's verdict as the exit status, the
//! copies of the games (`--pgnout`, `--epdout`), and a knockout, whole and killed and
//! resumed.

#[cfg(unix)]
use std::time::{Duration, Instant};

mod serve_support;
use serve_support::*;

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn journal_lines(out: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("event.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_ratings_come_every_n_games_and_the_games_are_copied() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("night");
    let (pgnout, epdout) = (dir.path().join("all.pgn"), dir.path().join("all.epd"));
    let run = argus(&[
        "serve",
        "--engine",
        "name=Ann",
        "--engine",
        "name=Bob",
        "--games",
        "8",
        "--concurrency",
        "2",
        "--rating-interval",
        "4",
        "--pgnout",
        pgnout.to_str().unwrap(),
        "--epdout",
        epdout.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    // After 4 and 8 games, then at the end: a line per player, and the pairs.
    for n in [4, 8] {
        let head = format!("ratings after {n} game(s):\nrank  name  games   score");
        assert_eq!(stdout.matches(&head).count(), 1, "{stdout}");
    }
    assert!(!stdout.contains("ratings after 2 game(s)"), "{stdout}");
    let standings = std::fs::read_to_string(out.join("standings.txt")).unwrap();
    assert!(stdout.contains(&standings), "the end prints standings.txt");
    let ratings = standings.split("ratings:\n").nth(1).expect(&standings);
    let lines: Vec<&str> = ratings.lines().collect();
    assert!(
        lines[0].ends_with("Elo (95 %)     LOS   draws"),
        "{ratings}"
    );
    assert!(
        lines[3].starts_with("pairs of Ann: 4 [LL LD DD/WL WD WW] = ["),
        "{ratings}"
    );
    // The same figures in standings.json.
    let j = json(&out.join("standings.json"));
    let pentanomial: u64 = j["ratings"]["pairs"]["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(pentanomial, 4, "{j}");
    let ann = &j["ratings"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Ann")
        .unwrap()
        .clone();
    let (w, d, l) = (
        ann["wins"].as_u64().unwrap(),
        ann["draws"].as_u64().unwrap(),
        ann["losses"].as_u64().unwrap(),
    );
    assert_eq!(w + d + l, 8, "{j}");
    let draws = ann["draw_ratio"].as_f64().unwrap();
    assert!((draws - d as f64 / 8.0).abs() < 1e-12, "{j}");
    // --pgnout holds what games.pgn holds (the same games, as they ended); --epdout a
    // line per game, whose result is the game's.
    let games = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(std::fs::read_to_string(&pgnout).unwrap(), games);
    let epd = std::fs::read_to_string(&epdout).unwrap();
    let mut ids: Vec<String> = Vec::new();
    for line in epd.lines() {
        let id = line
            .split("id \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let result = line
            .split("c9 \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let game = std::fs::read_to_string(
            out.join("games")
                .join(format!("{}.pgn", id.strip_prefix("night/").unwrap())),
        )
        .unwrap();
        assert!(game.contains(&format!("[Result \"{result}\"]")), "{line}");
        assert!(line.split(' ').count() > 4, "{line}");
        ids.push(id.to_string());
    }
    ids.sort();
    let want: Vec<String> = (1..=8).map(|n| format!("night/game-000{n}")).collect();
    assert_eq!(ids, want, "{epd}");
}

/// The SPRT's verdict is the exit status: H1 0, H0 10 (tests/serve.rs), inconclusive
/// 11. Every game is drawn (one move each), so the pairs are all alike.
#[test]
fn the_sprt_says_h1_or_inconclusive_in_its_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let sprt = |games: &str, elo0: &str, elo1: &str, out: &str| {
        argus(&[
            "serve",
            "--engine",
            "name=A",
            "--engine",
            "name=B",
            "--games",
            games,
            "--concurrency",
            "2",
            "--maxmoves",
            "1",
            "--sprt",
            elo0,
            elo1,
            "--out",
            dir.path().join(out).to_str().unwrap(),
        ])
    };
    // Even play is what H1 says of [-20, 0].
    let h1 = sprt("400", "elo0=-20", "elo1=0", "h1");
    let stdout = text(&h1.stdout);
    assert_eq!(h1.status.code(), Some(0), "{stdout}{}", text(&h1.stderr));
    assert!(
        stdout.contains("; H1 accepted; the match stopped there\n"),
        "{stdout}"
    );
    // Four games, two pairs: no bound.
    let none = sprt("4", "elo0=0", "elo1=5", "none");
    let stdout = text(&none.stdout);
    assert_eq!(
        none.status.code(),
        Some(11),
        "{stdout}{}",
        text(&none.stderr)
    );
    assert!(
        stdout.contains(
            "pairs [0 0 2 0 0]; inconclusive: every game played, no bound reached (exit status 11)"
        ),
        "{stdout}"
    );
    let help = text(&argus(&["serve", "--help"]).stdout);
    assert!(
        help.contains("Exit status:\n  0    the event is over"),
        "{help}"
    );
    assert!(help.contains("  11   --sprt: inconclusive"), "{help}");
}

/// The knockout's invariants in its folder: every scheduled game played once and in
/// games.pgn, the batches numbered on from each other, one winner.
fn check_knockout(out: &std::path::Path, players: usize) -> serde_json::Value {
    let lines = journal_lines(out);
    let mut numbers = Vec::new();
    for line in &lines[1..] {
        for key in ["pairings", "tiebreak"] {
            if let Some(games) = line.get(key) {
                numbers.extend(
                    games
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|g| g["number"].as_u64().unwrap()),
                );
            }
        }
    }
    let n = numbers.len() as u64;
    assert_eq!(numbers, (1..=n).collect::<Vec<_>>(), "{lines:?}");
    let mut played: Vec<u64> = lines[1..]
        .iter()
        .filter(|l| l.get("result").is_some())
        .map(|l| l["game"].as_u64().unwrap())
        .collect();
    played.sort_unstable();
    assert_eq!(played, (1..=n).collect::<Vec<_>>(), "every game once");
    assert_eq!(pgn_results(out).len() as u64, n);
    let j = json(&out.join("standings.json"));
    let k = &j["knockout"];
    assert!(k["winner"].is_string(), "{k}");
    // One match per player knocked out, and byes.
    let matches = k["matches"].as_array().unwrap();
    let decided = matches.iter().filter(|m| !m["second"].is_null()).count();
    assert_eq!(decided, players - 1, "{k}");
    j
}

#[test]
fn a_knockout_pairs_by_seed_and_the_winners_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cup");
    let mut args = vec!["serve", "--format", "knockout", "--games", "2"];
    for name in ["name=S1", "name=S2", "name=S3", "name=S4", "name=S5"] {
        args.extend(["--engine", name]);
    }
    args.extend(["--concurrency", "2", "--out", out.to_str().unwrap()]);
    let run = argus(&args);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    // Five players: a bracket of eight, seeds 1 to 3 rest, 4 v 5 plays; 8 games
    // before tie-breaks.
    assert!(
        stdout.contains("5 players, knockout, 8 game(s)"),
        "{stdout}"
    );
    for bye in ["S1", "S2", "S3"] {
        assert!(
            stdout.contains(&format!("knockout round 1: {bye}: bye\n")),
            "{stdout}"
        );
    }
    assert!(stdout.contains("game 1/8 (round 1): S4 vs S5"), "{stdout}");
    let j = check_knockout(&out, 5);
    let winner = j["knockout"]["winner"].as_str().unwrap().to_string();
    assert!(
        stdout.contains(&format!("knockout winner: {winner}\n")),
        "{stdout}"
    );
    let refused = argus(&[
        "serve",
        "--format",
        "knockout",
        "--rounds",
        "2",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert!(
        text(&refused.stderr).contains("--format knockout: its rounds follow from the players"),
        "{}",
        text(&refused.stderr)
    );
}

/// Killed outright mid-knockout, the event goes on with `--resume`: the bracket is
/// rebuilt from event.jsonl's results, and the later rounds are paired from them.
#[cfg(unix)]
#[test]
fn a_knockout_killed_outright_goes_on_with_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cup");
    let out_s = out.to_str().unwrap();
    let mut args = vec!["serve", "--format", "knockout", "--games", "2"];
    for name in [
        "name=S1", "name=S2", "name=S3", "name=S4", "name=S5", "name=S6",
    ] {
        args.extend(["--engine", name, "movetime=3"]);
    }
    args.extend([
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--unattended",
        "--out",
        out_s,
    ]);
    let mut child = spawn(&args);
    // Round 1 (4 games: 3 v 6, 4 v 5; seeds 1 and 2 rest) is over, or nearly.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !out.join("games/game-0005.jsonl").exists() {
        assert!(Instant::now() < deadline, "the event did not get far");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let resumed = argus(&["serve", "--resume", out_s]);
    let stdout = text(&resumed.stdout);
    assert!(
        resumed.status.success(),
        "{stdout}{}",
        text(&resumed.stderr)
    );
    let j = check_knockout(&out, 6);
    // Round 2 pairs seed 1 with the winner of 4 v 5, seed 2 with that of 3 v 6.
    let matches = j["knockout"]["matches"].as_array().unwrap();
    let round = |r: u64| -> Vec<&serde_json::Value> {
        matches.iter().filter(|m| m["round"] == r).collect()
    };
    let winner_of =
        |first: &str| round(1).into_iter().find(|m| m["first"] == first).unwrap()["winner"].clone();
    let second = round(2);
    assert_eq!(second.len(), 2, "{j}");
    assert_eq!(second[0]["first"], "S1");
    assert_eq!(second[0]["second"], winner_of("S4"), "{j}");
    assert_eq!(second[1]["first"], "S2");
    assert_eq!(second[1]["second"], winner_of("S3"), "{j}");
}
