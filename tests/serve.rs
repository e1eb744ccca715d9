//! `argus serve` with engines argus starts itself: a round-robin of random movers at
//! once, its files checked against each other and every game's journal replayed; the
//! event's folder never overwritten; a wrong `--engine` named; Ctrl-C stopping the
//! event; and real engines (Stockfish, Fairy-Max) through the same adapters.

#[cfg(unix)]
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod serve_support;
use serve_support::*;

#[test]
fn a_round_robin_of_random_movers_plays_every_game_once_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let run = argus(&[
        "serve",
        "--engine",
        "name=Alpha",
        "proto=random",
        "--engine",
        "name=Beta",
        "--engine",
        "name=Gamma",
        "--engine",
        "name=Delta",
        "--games",
        "2",
        "--concurrency",
        "3",
        "--tc",
        "60+0.1",
        "--event",
        "Test event",
        "--out",
        out_s,
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", text(&run.stderr));
    // Four players, each pair twice: 12 games, each started and finished once.
    assert!(
        stdout.starts_with("argus serve: 4 players, round-robin, 12 game(s) at 60+0.1"),
        "{stdout}"
    );
    for n in 1..=12 {
        let started = format!("game {n}/12 (round 1): ");
        let finished = format!("game {n}/12: ");
        assert_eq!(stdout.matches(&started).count(), 1, "{n}: {stdout}");
        assert_eq!(stdout.matches(&finished).count(), 1, "{n}: {stdout}");
    }
    assert!(
        stdout.contains("argus serve: 12 of 12 game(s) played"),
        "{stdout}"
    );
    // games.pgn holds the 12 games, each with a result.
    let results = pgn_results(&out);
    assert_eq!(results.len(), 12, "{results:?}");
    assert!(
        results
            .iter()
            .all(|r| ["1-0", "0-1", "1/2-1/2"].contains(&r.as_str())),
        "{results:?}"
    );
    // The standings count the same games: 6 per player, points adding to 12.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap())
            .unwrap();
    let table = json["table"].as_array().unwrap();
    assert_eq!(table.len(), 4);
    let points: f64 = table.iter().map(|l| l["points"].as_f64().unwrap()).sum();
    assert!((points - 12.0).abs() < 1e-9, "{json}");
    assert!(table.iter().all(|l| l["games"] == 6), "{json}");
    let standings = std::fs::read_to_string(out.join("standings.txt")).unwrap();
    assert!(standings.starts_with("rank  name"), "{standings}");
    assert!(
        stdout.contains(&standings),
        "the table is printed at the end"
    );
    // The event's journal: its settings, then one line per game.
    let event = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = event
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 13);
    assert_eq!(lines[0]["players"][3], "Delta");
    assert_eq!(lines[0]["schedule"].as_array().unwrap().len(), 12);
    // Every game's journal replays through the referee exactly, and gives its game.
    for line in &lines[1..] {
        let journal = out.join(line["journal"].as_str().unwrap());
        let replayed = dir.path().join("replayed.pgn");
        let _ = std::fs::remove_file(&replayed);
        let run = argus(&[
            "replay",
            journal.to_str().unwrap(),
            "--pgn",
            replayed.to_str().unwrap(),
        ]);
        assert!(
            text(&run.stderr).contains("no divergence"),
            "{}: {}{}",
            journal.display(),
            text(&run.stdout),
            text(&run.stderr)
        );
        let game = std::fs::read_to_string(&replayed).unwrap();
        assert!(
            game.contains(&format!(
                "[Result \"{}\"]",
                line["result"].as_str().unwrap()
            )),
            "{game}"
        );
        assert!(game.contains("[Event \"Test event\"]"), "{game}");
    }
}

#[test]
fn a_gauntlet_meets_the_first_player_with_each_other_and_swaps_the_openings_colours() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.epd");
    std::fs::write(
        &openings,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n",
    )
    .unwrap();
    let out = dir.path().join("gauntlet");
    let run = argus(&[
        "serve",
        "--format",
        "gauntlet",
        "--engine",
        "name=Hero",
        "--engine",
        "name=B",
        "--engine",
        "name=C",
        "--games",
        "4",
        "--openings",
        openings.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 8, "{pgn}");
    // Every game has the hero in it.
    for game in pgn.split("[Event ").skip(1) {
        assert!(game.contains("\"Hero\"]"), "{game}");
    }
    // Each opening is played twice, the colours swapped: games 1, 2 from 1. e4.
    let fens: Vec<&str> = pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[FEN \""))
        .collect();
    assert_eq!(fens.len(), 8, "{pgn}");
    assert!(
        fens[0].contains("4P3") && fens[1].contains("4P3"),
        "{fens:?}"
    );
    assert!(
        fens[2].contains("3P4") && fens[3].contains("3P4"),
        "{fens:?}"
    );
}

#[test]
fn maxmoves_adjudicates_a_draw_that_the_journal_replays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--games",
        "2",
        "--maxmoves",
        "8",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    // Movetext lines are wrapped: read the file as one line.
    let pgn = std::fs::read_to_string(out.join("games.pgn"))
        .unwrap()
        .replace('\n', " ");
    assert_eq!(
        pgn.matches("[Termination \"adjudication\"]").count(),
        2,
        "{pgn}"
    );
    assert_eq!(
        pgn.matches("{Draw by adjudication: 8 moves played (--maxmoves)}")
            .count(),
        2
    );
    // Eight full moves, then the verdict: the game's last move is Black's eighth.
    assert!(pgn.contains(" 8... "), "{pgn}");
    assert!(!pgn.contains(" 9. "), "{pgn}");
    let replay = argus(&[
        "replay",
        out.join("games/game-0002.jsonl").to_str().unwrap(),
    ]);
    assert!(
        text(&replay.stderr).contains("no divergence"),
        "{}",
        text(&replay.stderr)
    );
    let wrong = argus(&[
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--resign",
        "movecount=3",
        "scor=500",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    let err = text(&wrong.stderr);
    assert!(
        !wrong.status.success() && err.contains("--resign scor=500"),
        "{err}"
    );
}

/// Draws every game (one move each): pairs that are all alike accept H0 in time, and
/// the match stops there with the SPRT in the standings.
#[test]
fn the_sprt_stops_the_match_at_a_bound() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--games",
        "200",
        "--concurrency",
        "2",
        "--maxmoves",
        "1",
        "--sprt",
        "elo0=0",
        "elo1=20",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    // H0 accepted: exit status 10, for a CI job to act on.
    assert_eq!(run.status.code(), Some(10), "{stdout}{}", text(&run.stderr));
    assert!(stdout.contains("SPRT [0, 20]: LLR "), "{stdout}");
    assert!(
        stdout.contains("; H0 accepted; the match stopped there (exit status 10)"),
        "{stdout}"
    );
    let played = pgn_results(&out).len();
    assert!((4..200).contains(&played), "{played}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap())
            .unwrap();
    assert_eq!(json["sprt"]["decision"], "accept-h0", "{json}");
    let odd = argus(&[
        "serve",
        "--engine",
        "name=A",
        "--engine",
        "name=B",
        "--games",
        "3",
        "--sprt",
        "elo0=0",
        "elo1=5",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert!(
        text(&odd.stderr).contains("give an even --games"),
        "{}",
        text(&odd.stderr)
    );
}

#[test]
fn an_event_folder_is_never_overwritten_and_a_wrong_engine_word_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let first = argus(&[
        "serve", "--engine", "name=A", "--engine", "name=B", "--games", "1", "--out", out,
    ]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let pgn = std::fs::read_to_string(dir.path().join("games.pgn")).unwrap();
    let again = argus(&[
        "serve", "--engine", "name=A", "--engine", "name=B", "--games", "1", "--out", out,
    ]);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("holds an event already"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("games.pgn")).unwrap(),
        pgn,
        "nothing was touched"
    );
    let wrong = argus(&[
        "serve",
        "--engine",
        "name=A",
        "cmd=x",
        "proto=uic",
        "--engine",
        "name=B",
        "--out",
        dir.path().join("other").to_str().unwrap(),
    ]);
    assert!(!wrong.status.success());
    let err = text(&wrong.stderr);
    assert!(
        err.contains("proto=uic") && err.contains("uci, xboard or random"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_event_and_says_how_far_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    // Random movers that think a second a move: the games outlast the signal.
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args([
            "serve",
            "--engine",
            "name=A",
            "movetime=1000",
            "--engine",
            "name=B",
            "movetime=1000",
            "--games",
            "6",
            "--concurrency",
            "2",
            "--tc",
            "40/3600",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The games are under way once their journals exist.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !out.join("games/game-0002.jsonl").exists() {
        assert!(Instant::now() < deadline, "no game began");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let at = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(at.elapsed() < Duration::from_secs(10), "{:?}", at.elapsed());
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("argus serve: stopped;"), "{stdout}");
    assert!(
        !out.join("games/game-0003.jsonl").exists(),
        "no game began after the stop"
    );
}

/// Stockfish against Fairy-Max through the UCI and CECP adapters, two games at once.
#[test]
#[ignore = "needs stockfish and fairymax"]
fn stockfish_and_fairymax_play_a_match_two_games_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("match");
    let run = argus(&[
        "serve",
        "--engine",
        "name=Stockfish",
        "cmd=/usr/games/stockfish",
        "proto=uci",
        "option.Hash=16",
        "--engine",
        "name=Fairy-Max",
        "cmd=/usr/games/fairymax",
        "proto=xboard",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--tc",
        "10+0.1",
        "--resign",
        "movecount=3",
        "score=600",
        "--draw",
        "movenumber=40",
        "movecount=8",
        "score=10",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", text(&run.stderr));
    assert!(
        stdout.contains("argus serve: 4 of 4 game(s) played"),
        "{stdout}"
    );
    let results = pgn_results(&out);
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r != "*"), "{results:?}");
    assert!(stdout.contains("score: Stockfish "), "{stdout}");
}

/// A local engine plays all its games in one process, as cutechess-cli's and
/// fastchess's do: started once to check it before the event and once for its games,
/// each of which begins with `ucinewgame` (UCI) or `new` (CECP).
#[test]
#[ignore = "needs stockfish and fairymax"]
fn each_engine_is_started_once_for_all_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let wrap = |name: &str, exe: &str| {
        let log = dir.path().join(format!("{name}.starts"));
        let path = dir.path().join(format!("{name}.sh"));
        std::fs::write(
            &path,
            format!("echo started >> '{}'\nexec {exe}\n", log.display()),
        )
        .unwrap();
        (format!("cmd=sh {}", path.display()), log)
    };
    let (stockfish, stockfish_starts) = wrap("stockfish", "/usr/games/stockfish");
    let (fairymax, fairymax_starts) = wrap("fairymax", "/usr/games/fairymax");
    let out = dir.path().join("match");
    let run = argus(&[
        "serve",
        "--engine",
        "name=Stockfish",
        &stockfish,
        "proto=uci",
        "option.Hash=16",
        "--engine",
        "name=Fairy-Max",
        &fairymax,
        "proto=xboard",
        "--games",
        "4",
        "--tc",
        "5+0.05",
        "--maxmoves",
        "12",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", text(&run.stderr));
    assert!(
        stdout.contains("argus serve: 4 of 4 game(s) played"),
        "{stdout}"
    );
    let results = pgn_results(&out);
    assert_eq!(results.len(), 4);
    assert!(results.iter().all(|r| r != "*"), "{results:?}");
    for starts in [stockfish_starts, fairymax_starts] {
        let starts = std::fs::read_to_string(&starts).unwrap();
        assert_eq!(
            starts.lines().count(),
            2,
            "once for the check, once for the games: {starts}"
        );
    }
    // Every game's engines played it to its end, none lost for want of one.
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(
        !pgn.contains("abandoned") && !pgn.contains("forfeit"),
        "{pgn}"
    );
}

/// Fairy-Max, which cannot `setboard`, plays the openings through the CECP adapter (set
/// up with `edit`, Black to move in the first) and, given only the new move each turn,
/// does not lose on time at 5+0.05 (the games cut at 30 moves).
#[test]
#[ignore = "needs stockfish and fairymax"]
fn fairymax_plays_the_openings_set_up_with_edit_and_keeps_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("openings");
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openings.epd");
    let run = argus(&[
        "serve",
        "--engine",
        "name=SF",
        "cmd=/usr/games/stockfish",
        "proto=uci",
        "option.Hash=16",
        "--engine",
        "name=FM",
        "cmd=/usr/games/fairymax",
        "proto=xboard",
        "--openings",
        openings,
        "--games",
        "2",
        "--tc",
        "5+0.05",
        "--resign",
        "movecount=3",
        "score=600",
        "--maxmoves",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&run.stdout);
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert!(!stderr.contains("cannot set up"), "{stderr}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let games: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    assert_eq!(games.len(), 2, "{pgn}");
    for game in &games {
        let tag = |name: &str| {
            let start = format!("[{name} \"");
            game.lines()
                .find_map(|l| l.strip_prefix(&start))
                .map(|v| v.trim_end_matches("\"]").to_string())
        };
        // The opening with Black to move.
        assert!(tag("FEN").is_some_and(|f| f.contains(" b KQkq ")), "{game}");
        let plies: u32 = tag("PlyCount").unwrap().parse().unwrap();
        assert!(plies > 1, "{game}");
        if tag("Termination").as_deref() == Some("time forfeit") {
            let fm_lost = match tag("Result").as_deref() {
                Some("1-0") => tag("Black").as_deref() == Some("FM"),
                Some("0-1") => tag("White").as_deref() == Some("FM"),
                _ => false,
            };
            assert!(!fm_lost, "Fairy-Max lost on time: {game}");
        }
    }
    // No fault from either engine in the games' journals.
    for entry in std::fs::read_dir(out.join("games")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let journal = std::fs::read_to_string(&path).unwrap();
            assert!(!journal.contains("refreq fault"), "{}", path.display());
        }
    }
}

/// Players that connect by themselves over TCP (profile section 9): a closed event
/// with tokens, a wrong token refused with a `fault` in the same words as an unknown
/// name, a second connection with the player's token taking the place of the first
/// (whose client stops, told why), the games played against an engine argus starts,
/// every game's journal replayed, and the clients ending at the event's `disconnect`.
#[test]
fn players_connect_over_tcp_sign_on_with_their_tokens_and_play_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann:a-secret",
        "--engine",
        "name=Engine",
        "--player",
        "Bob:b-secret",
        "--games",
        "2",
        "--tc",
        "60+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    // The listener is up once a connection is accepted.
    let _ = first_connection(&addr);
    let client = |name: &str, token: &str| {
        spawn(&[
            "client",
            "--connect",
            &addr,
            "--engine",
            "random",
            "--name",
            name,
            "--token",
            token,
        ])
    };
    let wrong = finish(client("Bob", "guess"), Duration::from_secs(20));
    assert!(!wrong.status.success());
    assert!(
        text(&wrong.stderr).contains("Bob: unknown player or wrong token"),
        "{}",
        text(&wrong.stderr)
    );
    let stranger = finish(client("Eve", "guess"), Duration::from_secs(20));
    assert!(
        text(&stranger.stderr).contains("Eve: unknown player or wrong token"),
        "{}",
        text(&stranger.stderr)
    );
    let ann = client("Ann", "a-secret");
    let bob = client("Bob", "b-secret");
    // A second connection with Ann's token takes her place: once Ann plays, her
    // first connection is in.
    let deadline = Instant::now() + Duration::from_secs(30);
    let ann_plays = || {
        std::fs::read_dir(out.join("games")).is_ok_and(|d| {
            d.flatten()
                .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("\"tcp Ann\"")))
        })
    };
    while !ann_plays() {
        assert!(Instant::now() < deadline, "Ann never played");
        std::thread::sleep(Duration::from_millis(20));
    }
    let again = client("Ann", "a-secret");
    let first = finish(ann, Duration::from_secs(20));
    assert!(!first.status.success());
    assert!(
        text(&first.stderr).contains("Ann signed on again from another connection"),
        "{}",
        text(&first.stderr)
    );
    let serve = finish(serve, Duration::from_secs(120));
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    assert!(
        stdout.contains("argus serve: 6 of 6 game(s) played"),
        "{stdout}"
    );
    // The clients leave at the event's disconnect.
    for (name, c) in [("Ann", again), ("Bob", bob)] {
        let o = finish(c, Duration::from_secs(10));
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    }
    let results = pgn_results(&out);
    assert_eq!(results.len(), 6);
    for n in 1..=6 {
        let journal = out.join(format!("games/game-000{n}.jsonl"));
        let replay = argus(&["replay", journal.to_str().unwrap()]);
        assert!(
            text(&replay.stderr).contains("no divergence"),
            "{n}: {}",
            text(&replay.stderr)
        );
    }
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(
        pgn.contains("[White \"Ann\"]") && pgn.contains("[Black \"Bob\"]"),
        "{pgn}"
    );
}

/// A player whose client dies during its game connects again: the game takes the new
/// connection and resynchronises it, and the game ends by the rules. The engine thinks
/// longer than the player, so that it moves while the player's line is down, and the
/// `respond` it makes is queued for a connection that is gone: that is not sent on the
/// new one.
#[cfg(unix)]
#[test]
fn a_player_that_connects_again_during_its_game_is_resynchronised() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--engine",
        "name=Engine",
        "movetime=300",
        "--games",
        "1",
        "--tc",
        "120+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let client = || {
        spawn(&[
            "client",
            "--connect",
            &addr,
            "--engine",
            "random",
            "--think-ms",
            "10",
            "--name",
            "Ann",
        ])
    };
    let mut first = client();
    // Mid-game: the game's journal has grown.
    let journal = out.join("games/game-0001.jsonl");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 4000 {
        assert!(Instant::now() < deadline, "the game did not begin");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap();
    let _ = first.wait();
    std::thread::sleep(Duration::from_millis(300));
    let second = client();
    let serve = finish(serve, Duration::from_secs(120));
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    let results = pgn_results(&out);
    assert_eq!(results.len(), 1, "{stdout}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(!pgn.contains("time forfeit"), "{pgn}");
    // The line was lost, came back with the new connection's sign_on, and the player
    // was resynchronised: a second reset in the game.
    let log = std::fs::read_to_string(&journal).unwrap();
    assert!(log.contains("\"ev\":\"lost\""), "the line was lost");
    assert!(log.contains("\"ev\":\"back\""), "and came back");
    assert!(
        log.matches("refcom reset;").count() >= 3,
        "resets: both, then Ann's again"
    );
    // Nothing queued for the old connection goes out on the new one: after the `back`,
    // the port's lines drained are no more than the lines the referee sent it after
    // the new connection's sign_on, the first of which is the reset.
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let back = events.iter().position(|e| e["ev"] == "back").unwrap();
    let port = &events[back]["port"];
    let after = |ev: &str| {
        events[back..]
            .iter()
            .filter(|e| e["ev"] == ev && e["port"] == *port)
            .collect::<Vec<_>>()
    };
    let (sent, drained) = (after("tx"), after("drained"));
    assert!(
        sent.first()
            .and_then(|e| e["text"].as_str())
            .is_some_and(|t| t.contains("refcom reset;")),
        "the new connection is first sent the reset: {sent:?}"
    );
    assert!(
        drained.len() <= sent.len(),
        "{} lines drained on the new connection, {} sent to it: a line queued for the old \
         one went out\n{log}",
        drained.len(),
        sent.len()
    );
    let replay = argus(&["replay", journal.to_str().unwrap()]);
    assert!(
        text(&replay.stderr).contains("no divergence"),
        "{}",
        text(&replay.stderr)
    );
    let o = finish(second, Duration::from_secs(10));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The new client heard the reset first, and signed on once.
    assert!(
        !text(&o.stderr).contains("no inform since the reset"),
        "{}",
        text(&o.stderr)
    );
}

/// A Swiss of five: each round pairs from the standings, no pair meets in two rounds,
/// and a different player rests each round.
#[test]
fn a_swiss_pairs_each_round_from_the_results_without_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("swiss");
    let mut args = vec![
        "serve", "--format", "swiss", "--rounds", "3", "--games", "2",
    ];
    for name in ["name=P1", "name=P2", "name=P3", "name=P4", "name=P5"] {
        args.extend(["--engine", name]);
    }
    args.extend(["--concurrency", "2", "--out", out.to_str().unwrap()]);
    let run = argus(&args);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    assert!(stdout.contains("5 players, swiss, 12 game(s)"), "{stdout}");
    assert!(
        stdout.contains("argus serve: 12 of 12 game(s) played"),
        "{stdout}"
    );
    let event = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    let rounds: Vec<serde_json::Value> = event
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("pairings").is_some())
        .collect();
    assert_eq!(rounds.len(), 3);
    let mut met = std::collections::HashSet::new();
    let mut byes = std::collections::HashSet::new();
    for (r, round) in rounds.iter().enumerate() {
        assert!(byes.insert(round["bye"].as_u64().unwrap()), "{event}");
        // Two games per pairing, the colours swapped: one pair per two games.
        for pair in round["pairings"].as_array().unwrap().chunks(2) {
            let (w, b) = (
                pair[0]["white"].as_u64().unwrap(),
                pair[0]["black"].as_u64().unwrap(),
            );
            assert_eq!(
                (pair[1]["white"].as_u64(), pair[1]["black"].as_u64()),
                (Some(b), Some(w))
            );
            assert!(
                met.insert((w.min(b), w.max(b))),
                "round {}: {w}-{b} again",
                r + 1
            );
            assert_eq!(pair[0]["round"], r + 1);
        }
    }
}

/// A client whose connection drops during its game connects again by itself, and its
/// game goes on from where it stood.
#[test]
fn a_client_whose_connection_drops_connects_again_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--engine",
        "name=Engine",
        "movetime=20",
        "--games",
        "1",
        "--tc",
        "120+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let relay = Relay::new(addr.clone());
    let via = format!("127.0.0.1:{}", relay.port);
    let client = spawn(&[
        "client",
        "--connect",
        &via,
        "--engine",
        "random",
        "--think-ms",
        "50",
        "--name",
        "Ann",
    ]);
    let journal = out.join("games/game-0001.jsonl");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 4000 {
        assert!(Instant::now() < deadline, "the game did not begin");
        std::thread::sleep(Duration::from_millis(20));
    }
    relay.cut();
    let serve = finish(serve, Duration::from_secs(120));
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    let log = std::fs::read_to_string(&journal).unwrap();
    assert!(log.contains("\"ev\":\"lost\""), "the line was lost");
    assert!(log.contains("\"ev\":\"back\""), "and came back");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(!pgn.contains("time forfeit"), "{pgn}");
    let o = finish(client, Duration::from_secs(10));
    let (stdout, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{err}");
    // What the client does at the fault, on its standard output.
    assert!(
        stdout.contains("argus client: line 127.0.0.1:")
            && stdout.contains("; connecting again in "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("argus client: connected again to {via}")),
        "{stdout}"
    );
}

/// Ctrl-C stops an event; `--resume DIR` goes on with it: the games under way go on
/// from their journals, the others follow, and every game reaches games.pgn and the
/// event's journal once.
#[cfg(unix)]
#[test]
fn an_event_stopped_by_ctrl_c_goes_on_with_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let child = spawn(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=10",
        "--engine",
        "name=B",
        "movetime=10",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--out",
        out_s,
    ]);
    // Game 3 under way: game 1 or 2 is over (two at once).
    let journal = out.join("games/game-0003.jsonl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 3000 {
        assert!(Instant::now() < deadline, "no game under way");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let stopped = finish(child, Duration::from_secs(20));
    let stdout = text(&stopped.stdout);
    assert_eq!(stopped.status.code(), Some(130), "{stdout}");
    assert!(
        stdout.contains(&format!("go on with `argus serve --resume {out_s}`")),
        "{stdout}"
    );
    let refused = argus(&["serve", "--resume", out_s, "--games", "9"]);
    assert!(
        text(&refused.stderr).contains("give no --games"),
        "{}",
        text(&refused.stderr)
    );
    let resumed = argus(&["serve", "--resume", out_s]);
    let stdout = text(&resumed.stdout);
    assert!(
        resumed.status.success(),
        "{stdout}{}",
        text(&resumed.stderr)
    );
    assert!(
        stdout.contains("argus serve: 4 of 4 game(s) played"),
        "{stdout}"
    );
    // The score counts the games played before the stop too.
    let last_score = stdout.lines().rfind(|l| l.starts_with("score: ")).unwrap();
    let points: f64 = last_score
        .split_whitespace()
        .filter_map(|w| w.parse::<f64>().ok())
        .sum();
    assert_eq!(points, 4.0, "{stdout}");
    assert_eq!(pgn_results(&out).len(), 4);
    let event = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    for n in 1..=4 {
        assert_eq!(
            event.matches(&format!("\"game\":{n},")).count(),
            1,
            "{event}"
        );
        let journal = out.join(format!("games/game-000{n}.jsonl"));
        let replay = argus(&["replay", journal.to_str().unwrap()]);
        assert!(
            text(&replay.stderr).contains("no divergence"),
            "{n}: {}",
            text(&replay.stderr)
        );
    }
}

/// The referee killed outright (a crash, a power cut) mid-event: `--resume` goes on
/// all the same, and every game reaches games.pgn once.
#[cfg(unix)]
#[test]
fn an_event_killed_outright_goes_on_with_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let mut child = spawn(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=5",
        "--engine",
        "name=B",
        "movetime=5",
        "--engine",
        "name=C",
        "movetime=5",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--tc",
        "60+0.1",
        "--out",
        out_s,
    ]);
    // Some games are over, others under way.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !out.join("games/game-0004.jsonl").exists() {
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
    assert!(
        stdout.contains("argus serve: 6 of 6 game(s) played"),
        "{stdout}"
    );
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 6, "{pgn}");
    for n in 1..=6 {
        let journal = out.join(format!("games/game-000{n}.jsonl"));
        let replay = argus(&["replay", journal.to_str().unwrap()]);
        assert!(
            text(&replay.stderr).contains("no divergence"),
            "{n}: {}",
            text(&replay.stderr)
        );
    }
}

/// An event that keeps no PGN file of each game's own (`argus fastchess`'s), stopped
/// between a game's line in `event.jsonl` and its append to `games.pgn`, is made whole by
/// `--resume` from the game's journal.
#[test]
fn a_resumed_event_without_the_games_own_pgn_files_takes_the_last_game_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let run = argus(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=1",
        "--engine",
        "name=B",
        "movetime=1",
        "--games",
        "2",
        "--tc",
        "60",
        "--out",
        out_s,
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let pgn_path = out.join("games.pgn");
    let whole = std::fs::read_to_string(&pgn_path).unwrap();
    // As such an event leaves its folder: no games/game-NNNN.pgn, its settings saying so.
    for n in 1..=2 {
        std::fs::remove_file(out.join(format!("games/game-000{n}.pgn"))).unwrap();
    }
    let events = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    let events = events.replacen("\"config\":{", "\"config\":{\"no_game_pgn\":true,", 1);
    std::fs::write(out.join("event.jsonl"), events).unwrap();
    // The stop came before the last game reached games.pgn.
    let second = whole.rfind("[Event ").unwrap();
    std::fs::write(&pgn_path, &whole[..second]).unwrap();
    let resumed = argus(&["serve", "--resume", out_s]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(std::fs::read_to_string(&pgn_path).unwrap(), whole);
    assert!(!out.join("games/game-0002.pgn").exists());
}

/// An engine that cannot be started is found before the first game: the event is
/// refused with one line per such engine, and no folder is made.
#[test]
fn an_engine_that_cannot_start_refuses_the_event_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=SF",
        "cmd=stockfish-not-on-this-path",
        "proto=uci",
        "--engine",
        "name=R",
        "--engine",
        "name=GC",
        "cmd=/nonexistent/gnuchess",
        "proto=xboard",
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = text(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    let named: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("--engine name="))
        .collect();
    assert_eq!(named.len(), 2, "{stderr}");
    assert!(
        named[0].contains("name=SF") && named[0].contains("cannot start"),
        "{stderr}"
    );
    assert!(
        named[1].contains("name=GC") && named[1].contains("cannot start"),
        "{stderr}"
    );
    assert!(!out.exists(), "no event was begun");
}

/// The standings say how each player used its time (moves, mean move time, time left
/// at the end, overshoots) and what it lost by failing, and a resumed event counts
/// the same from its journal.
#[test]
fn the_standings_count_each_players_time_use_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=R1",
        "movetime=2",
        "--engine",
        "name=R2",
        "--games",
        "2",
        "--tc",
        "60+1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap())
            .unwrap();
    let time = &json["time_use"];
    assert_eq!(time[0]["name"], "R1");
    assert_eq!(time[0]["games"], 2);
    assert!(time[0]["moves"].as_u64().unwrap() > 0, "{time}");
    let r1 = time[0]["mean_move_ms"].as_f64().unwrap();
    let r2 = time[1]["mean_move_ms"].as_f64().unwrap();
    assert!(r1 >= 1.5 && r1 > r2, "R1 thinks 2 ms a move, R2 1: {time}");
    assert!(
        time[0]["mean_left_at_end_ms"].as_f64().unwrap() > 50_000.0,
        "{time}"
    );
    assert_eq!(time[0]["overshoots"], 0);
    assert_eq!(json["failures"][0]["time_forfeits"], 0);
    let text = std::fs::read_to_string(out.join("standings.txt")).unwrap();
    assert!(text.contains("mean move ms"), "{text}");
    let events = std::fs::read_to_string(out.join("event.jsonl")).unwrap();
    assert!(events.contains("\"time_use\":[{"), "{events}");
}

/// An engine's own `tc=` gives it time odds: its clock runs under its own time
/// control whichever colour it has, and the PGN names each side's (as cutechess-cli
/// does) beside the event's.
#[test]
fn an_engines_own_tc_gives_it_time_odds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let run = argus(&[
        "serve",
        "--engine",
        "name=Fast",
        "tc=20+0.5",
        "--engine",
        "name=Slow",
        "--games",
        "2",
        "--tc",
        "40+1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let game = |n: u32| {
        std::fs::read_to_string(out.join("games").join(format!("game-000{n}.pgn"))).unwrap()
    };
    let (one, two) = (game(1), game(2));
    for (pgn, white, black) in [(&one, "20+0.5", "40+1"), (&two, "40+1", "20+0.5")] {
        assert!(pgn.contains("[TimeControl \"40+1\"]"), "{pgn}");
        assert!(
            pgn.contains(&format!("[WhiteTimeControl \"{white}\"]")),
            "{pgn}"
        );
        assert!(
            pgn.contains(&format!("[BlackTimeControl \"{black}\"]")),
            "{pgn}"
        );
    }
    // Fast has White in game 1: its first clock is 20 s and the increment, Slow's 40.
    let first_clk = |pgn: &str, nth: usize| {
        pgn.match_indices("[%clk ")
            .nth(nth)
            .map(|(i, _)| pgn[i + 6..i + 13].to_string())
            .unwrap()
    };
    assert!(first_clk(&one, 0).starts_with("0:00:20"), "{one}");
    assert!(first_clk(&one, 1).starts_with("0:00:4"), "{one}");
    assert!(first_clk(&two, 1).starts_with("0:00:20"), "{two}");
}
