use super::*;
use crate::core::game::GameResult;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn started(white: &str, black: &str) -> Notice {
    Notice::GameStarted {
        number: 1,
        white: white.into(),
        black: black.into(),
        fen: START.into(),
        clocks: [Some(Duration::from_secs(60)); 2],
        time_control: "60".into(),
    }
}

fn e4() -> Notice {
    Notice::Moved {
        number: 1,
        fullmove: 1,
        color: Color::White,
        san: "e4".into(),
        emt: Duration::from_millis(1500),
        remaining: [
            Some(Duration::from_millis(58_500)),
            Some(Duration::from_secs(60)),
        ],
        score: Some(30),
        depth: Some(12),
        pv: vec!["e4".into(), "e5".into()],
        uci: "e2e4".into(),
        position: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap(),
    }
}

fn json(update: &Update) -> serde_json::Value {
    serde_json::from_str(&update.json).unwrap()
}

#[test]
fn a_subscriber_gets_the_snapshot_then_every_change_in_order() {
    let live = Live::new();
    live.notice(3, 2, &started("Ann", "Bob"));
    let (snapshot, updates) = live.subscribe();
    let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
    assert_eq!(snapshot["seq"], 1);
    assert_eq!(snapshot["games"][0]["white"], "Ann");
    assert_eq!(snapshot["games"][0]["running"], "w");
    live.notice(3, 2, &e4());
    let moved = json(&updates.try_recv().unwrap());
    assert_eq!(moved["type"], "move");
    assert_eq!(moved["seq"], 2);
    assert_eq!(moved["game"], 3);
    assert_eq!(moved["move"]["uci"], "e2e4");
    assert_eq!(moved["move"]["pv"][1], "e5");
    assert_eq!(moved["clocks_ms"][0], 58_500);
    assert_eq!(moved["running"], "b");
    live.notice(
        3,
        2,
        &Notice::GameOver {
            number: 1,
            result: GameResult::WhiteWins,
            reason: "Black resigns".into(),
        },
    );
    let over = json(&updates.try_recv().unwrap());
    assert_eq!(
        (over["type"].as_str(), over["result"].as_str()),
        (Some("over"), Some("1-0"))
    );
    let game = live.game(3).unwrap();
    assert_eq!(game.moves.len(), 1);
    assert_eq!(game.running, None);
    assert!(updates.try_recv().is_err());
}

#[test]
fn a_subscriber_that_stops_reading_is_let_go() {
    let live = Live::new();
    let (_, updates) = live.subscribe();
    live.notice(1, 1, &started("Ann", "Bob"));
    for _ in 0..SUBSCRIBER_QUEUE {
        live.notice(1, 1, &e4());
    }
    assert_eq!(live.subscribers(), 0);
    drop(updates);
    let (_, _kept) = live.subscribe();
    live.notice(1, 1, &e4());
    assert_eq!(live.subscribers(), 1);
}

#[test]
fn a_new_round_clears_the_finished_games_of_the_last() {
    let live = Live::new();
    live.notice(1, 1, &started("Ann", "Bob"));
    live.notice(2, 1, &started("Cy", "Di"));
    live.notice(
        1,
        1,
        &Notice::GameOver {
            number: 1,
            result: GameResult::Draw,
            reason: "agreed".into(),
        },
    );
    live.notice(3, 2, &started("Ann", "Cy"));
    let numbers: Vec<u32> = live.games().iter().map(|g| g.number).collect();
    assert_eq!(numbers, [2, 3], "game 2 is still under way");
}

/// The keys of a JSON object, and those of the objects it holds under `nested`.
fn shape(v: &serde_json::Value) -> Vec<String> {
    let mut keys = Vec::new();
    for (k, inner) in v.as_object().unwrap() {
        keys.push(k.clone());
        if ["game", "move"].contains(&k.as_str()) && inner.is_object() {
            keys.extend(
                inner
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(|i| format!("{k}.{i}")),
            );
        }
    }
    keys.sort();
    keys
}

/// docs/views.md's examples of the event stream have exactly the fields that the model
/// sends, event by event.
#[test]
fn the_documented_events_have_the_fields_of_real_ones() {
    let doc = include_str!("../../../docs/views.md");
    let examples: Vec<serde_json::Value> = doc
        .split("```json\n")
        .skip(1)
        .map(|block| serde_json::from_str(block.split("```").next().unwrap()).unwrap())
        .collect();
    let live = Live::new();
    let (snapshot, updates) = live.subscribe();
    live.notice(1, 1, &started("Random A", "Random B"));
    live.notice(1, 1, &e4());
    live.notice(
        1,
        1,
        &Notice::Paused {
            reason: "the supervisor paused".into(),
        },
    );
    live.notice(
        1,
        1,
        &Notice::GameOver {
            number: 1,
            result: GameResult::Draw,
            reason: "Draw by insufficient material".into(),
        },
    );
    live.standings(serde_json::json!({ "table": [] }));
    live.notice(
        1,
        1,
        &Notice::Noise {
            port: crate::core::Port::B,
            reason: "a reply from the side not on move".into(),
        },
    );
    let mut real: Vec<serde_json::Value> = vec![
        serde_json::from_str(&snapshot).unwrap(),
        serde_json::from_str(&heartbeat()).unwrap(),
    ];
    real.extend(updates.try_iter().map(|u| json(&u)));
    assert_eq!(examples.len(), 8, "one example of each kind of event");
    for example in &examples {
        let kind = &example["type"];
        let same = real
            .iter()
            .find(|r| &r["type"] == kind)
            .unwrap_or_else(|| panic!("no real event of type {kind}"));
        assert_eq!(shape(example), shape(same), "docs/views.md, event {kind}");
    }
}

#[test]
fn a_long_event_keeps_its_games_under_way_and_the_last_finished_ones() {
    let live = Live::new();
    let over = Notice::GameOver {
        number: 1,
        result: GameResult::Draw,
        reason: "agreed".into(),
    };
    live.notice(1, 1, &started("Ann", "Bob"));
    for n in 2..=100 {
        live.notice(n, 1, &started("Cy", "Di"));
        live.notice(n, 1, &over);
    }
    live.notice(101, 1, &started("Cy", "Di"));
    let games = live.games();
    assert_eq!(games.len(), FINISHED_KEPT + 2, "game 1 and 101 under way");
    assert_eq!(games[0].number, 1);
    assert_eq!(games[1].number, 100 - FINISHED_KEPT as u32 + 1);
}

#[test]
fn a_pause_stands_the_clocks_and_its_end_runs_the_one_that_ran() {
    let live = Live::new();
    live.notice(1, 1, &started("Ann", "Bob"));
    live.notice(1, 1, &e4());
    let (_, updates) = live.subscribe();
    std::thread::sleep(Duration::from_millis(30));
    live.notice(
        1,
        1,
        &Notice::Paused {
            reason: "the supervisor".into(),
        },
    );
    let paused = json(&updates.try_recv().unwrap());
    assert_eq!(paused["type"], "clocks");
    assert_eq!(paused["running"], serde_json::Value::Null);
    let black = paused["clocks_ms"][1].as_u64().unwrap();
    assert!(
        black <= 59_970,
        "the time before the pause is Black's: {black}"
    );
    assert_eq!(paused["clocks_ms"][0], 58_500);
    assert_eq!(live.game(1).unwrap().running, None);
    live.notice(1, 1, &Notice::Unpaused);
    let going = json(&updates.try_recv().unwrap());
    assert_eq!(going["running"], "b");
    assert_eq!(going["clocks_ms"][1], black);
    // An end of a pause that was not one of a game is nothing.
    live.notice(1, 1, &Notice::Unpaused);
    assert!(updates.try_recv().is_err());
}

#[test]
fn the_supervisor_giving_time_changes_the_clock_at_once() {
    let live = Live::new();
    live.notice(1, 1, &started("Ann", "Bob"));
    live.notice(1, 1, &e4());
    let (_, updates) = live.subscribe();
    std::thread::sleep(Duration::from_millis(30));
    live.notice(
        1,
        1,
        &Notice::ClockChanged {
            color: Color::White,
            delta_ms: 60_000,
            text: "White (port a) has 1:58.5 before its current move".into(),
        },
    );
    let changed = json(&updates.try_recv().unwrap());
    assert_eq!(changed["type"], "clocks");
    assert_eq!(changed["clocks_ms"][0], 118_500, "White was given a minute");
    // Black's clock runs: it is given as of now, less what it has used since e4.
    assert_eq!(changed["running"], "b");
    let black = changed["clocks_ms"][1].as_u64().unwrap();
    assert!(black <= 59_970, "Black's clock ran: {black}");
    live.notice(
        1,
        1,
        &Notice::ClockChanged {
            color: Color::Black,
            delta_ms: -10_000,
            text: String::new(),
        },
    );
    let taken = json(&updates.try_recv().unwrap());
    assert!(taken["clocks_ms"][1].as_u64().unwrap() <= black - 10_000);
}

/// Engines' mates as the model holds them (EPD's `ce`: UCI's `score mate N` and CECP's
/// mate scores are turned into it) read back as moves to mate; the live PGN writes them
/// as `[%eval #N]`, from White's side.
#[test]
fn mate_scores_read_as_moves_to_mate_and_the_live_pgn_writes_them_as_evals() {
    assert_eq!(mate_moves(32_766), Some(1));
    assert_eq!(mate_moves(32_758), Some(5));
    assert_eq!(mate_moves(-32_765), Some(-1));
    assert_eq!(mate_moves(-32_761), Some(-3));
    assert_eq!(mate_moves(31_999), None);
    assert_eq!(mate_moves(-250), None);
    let live = Live::new();
    live.notice(1, 1, &started("Ann", "Bob"));
    live.notice(1, 1, &e4());
    let mut reply = e4();
    if let Notice::Moved {
        color,
        san,
        uci,
        score,
        ..
    } = &mut reply
    {
        *color = Color::Black;
        *san = "e5".into();
        *uci = "e7e5".into();
        // Black mates in 3: from White's side, #-3.
        *score = Some(32_767 - 5);
    }
    live.notice(1, 1, &reply);
    let pgn = crate::watch::pgn::live_pgn(&live.games(), "Club", "Hall");
    assert!(
        pgn.contains("1. e4 { [%eval 0.30] [%clk 0:00:58.5] }"),
        "{pgn}"
    );
    assert!(pgn.contains("e5 { [%eval #-3] [%clk"), "{pgn}");
}

/// A game carries its PGN Round tag (a round-robin's encounters: `1.2`), and the live
/// PGN's Round says the same.
#[test]
fn a_game_carries_its_pgn_round() {
    let live = Live::new();
    live.notice_in(1, 1, "1.2", &started("Ann", "Bob"));
    assert_eq!(live.game(1).unwrap().round_tag, "1.2");
    let pgn = crate::watch::pgn::live_pgn(&live.games(), "Club", "Hall");
    assert!(pgn.contains("[Round \"1.2\"]"), "{pgn}");
    live.notice(2, 3, &started("Cy", "Di"));
    assert_eq!(live.game(2).unwrap().round_tag, "3");
}
