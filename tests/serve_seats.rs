//! `argus serve --seats N` over loopback: players not named in advance take seats
//! under the names they sign on with (or, without `tcsi`, their address), the
//! round-robin is played and recorded under those names, a closed event has no seats,
//! and a resumed event gives each seat its name back. Every child is killed when a
//! test ends, whether it passes or fails.

use std::path::Path;
use std::time::Duration;

mod serve_support;
use serve_support::*;

/// The names in the White and Black tags of games.pgn.
fn pgn_names(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("games.pgn"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.strip_prefix("[White \"")
                .or_else(|| l.strip_prefix("[Black \""))
        })
        .map(|r| r.trim_end_matches("\"]").to_string())
        .collect()
}

/// The seat lines of event.jsonl.
fn seat_lines(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("event.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.get("seat").is_some())
        .collect()
}

/// The players of standings.json.
fn standing_names(dir: &Path) -> Vec<String> {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("standings.json")).unwrap())
            .unwrap();
    serde_json::from_value(json["players"].clone()).unwrap()
}

fn client(addr: &str, name: &str) -> Running {
    spawn(&[
        "client",
        "--connect",
        addr,
        "--engine",
        "random",
        "--think-ms",
        "20",
        "--name",
        name,
    ])
}

/// Three seats and an engine: two clients sign on with names nobody has, one without
/// `tcsi` (a real client behind a relay that takes it out), and each takes a seat; a
/// fourth finds none free, a second connection under a seat's live name and a client
/// under the engine's name are refused; the round-robin is played, and games.pgn,
/// standings.json and event.jsonl name the players as they signed on.
#[test]
fn players_not_named_in_advance_take_seats_and_play_the_round_robin() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--seats",
        "3",
        "--engine",
        "name=Engine",
        "movetime=20",
        "--games",
        "1",
        "--concurrency",
        "2",
        "--tc",
        "30+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let ann = client(&addr, "Ann");
    let bob = client(&addr, "Bob");
    let relay = Relay::anonymous(addr.clone());
    let via = format!("127.0.0.1:{}", relay.port);
    let nameless = client(&via, "Cy");
    wait_for(
        "the seats were not all taken",
        Duration::from_secs(20),
        || seat_lines(&out).len() == 3,
    );
    let late = finish(client(&addr, "Dan"), Duration::from_secs(20));
    assert!(
        text(&late.stderr).contains("Dan is not a player of this event, and no seat is free"),
        "{}",
        text(&late.stderr)
    );
    // Ann's name from another host, while her connection is live, is refused (her own
    // host could take her place: a client started again there).
    #[cfg(target_os = "linux")]
    {
        use std::io::Write;
        let socket =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        socket
            .bind(&std::net::SocketAddr::from(([127, 0, 0, 2], 0)).into())
            .unwrap();
        socket
            .connect(&addr.parse::<std::net::SocketAddr>().unwrap().into())
            .unwrap();
        let mut twice: std::net::TcpStream = socket.into();
        writeln!(
            twice,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"x\" \"Ann\";"
        )
        .unwrap();
        let refused = read_line(&mut twice, Duration::from_secs(10)).unwrap_or_default();
        assert!(
            refused.contains("Ann is connected already, from another host (127.0.0.1)"),
            "{refused}"
        );
    }
    let engine = finish(client(&addr, "Engine"), Duration::from_secs(20));
    assert!(
        text(&engine.stderr).contains("Engine is the name of an engine of this event"),
        "{}",
        text(&engine.stderr)
    );
    let serve = finish(serve, Duration::from_secs(180));
    let stdout = text(&serve.stdout);
    assert!(serve.status.success(), "{stdout}{}", text(&serve.stderr));
    assert!(
        stdout.contains("argus serve: 6 of 6 game(s) played"),
        "{stdout}"
    );
    for (name, c) in [("Ann", ann), ("Bob", bob), ("nameless", nameless)] {
        let o = finish(c, Duration::from_secs(10));
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
    }
    // The seats' names, as event.jsonl recorded them when they were taken.
    let seats = seat_lines(&out);
    let (mut named, address): (Vec<&str>, Vec<&str>) = seats
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .partition(|n| !n.starts_with("127.0.0.1:"));
    named.sort_unstable();
    assert_eq!(named, ["Ann", "Bob"], "{seats:?}");
    let [address] = address[..] else {
        panic!("one seat named by its address: {seats:?}")
    };
    assert!(
        seats
            .iter()
            .any(|s| s["name"] == address && s["taken_by"] == "address"),
        "{seats:?}"
    );
    assert!(
        stdout.contains(&format!("{address} takes seat")),
        "{stdout}"
    );
    // Every game under the names taken: each player in three games, no placeholder.
    let names = pgn_names(&out);
    assert_eq!(names.len(), 12, "{names:?}");
    for name in ["Ann", "Bob", address, "Engine"] {
        assert_eq!(
            names.iter().filter(|n| *n == name).count(),
            3,
            "{name}: {names:?}"
        );
    }
    let mut standings = standing_names(&out);
    standings.sort_unstable();
    let mut expected = vec!["Ann", "Bob", address, "Engine"];
    expected.sort_unstable();
    assert_eq!(standings, expected);
    let table = std::fs::read_to_string(out.join("standings.txt")).unwrap();
    assert!(!table.contains("seat "), "{table}");
    assert!(
        !stdout.contains("seat 1 vs") && !stdout.contains("vs seat"),
        "{stdout}"
    );
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

/// An event with a token is closed: it refuses seats, and says why.
#[test]
fn a_closed_event_has_no_seats() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let o = argus(&[
        "serve",
        "--player",
        "Ann:s3cret",
        "--engine",
        "name=Engine",
        "--seats",
        "2",
        "--listen",
        &format!("127.0.0.1:{}", free_port()),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("--seats: an event with a token is closed"),
        "{err}"
    );
    assert!(text(&o.stdout).is_empty(), "{}", text(&o.stdout));
    assert!(!out.join("event.jsonl").exists());
}

/// argus serve killed outright mid-event with its seats taken: `--resume` gives each
/// seat its name back, the clients connect again by themselves (the one without
/// `tcsi` gets the seat named by its old address), and the event ends with every game
/// under the same names.
#[cfg(unix)]
#[test]
fn a_resumed_event_gives_the_seats_their_names_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let out_s = out.to_str().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let mut serve = spawn(&[
        "serve",
        "--engine",
        "name=Engine",
        "movetime=20",
        "--seats",
        "2",
        "--games",
        "2",
        "--tc",
        "30+0.1",
        "--listen",
        &addr,
        "--out",
        out_s,
    ]);
    let _ = first_connection(&addr);
    let ann = client(&addr, "Ann");
    let relay = Relay::anonymous(addr.clone());
    let via = format!("127.0.0.1:{}", relay.port);
    let nameless = client(&via, "Cy");
    // Some games over, one under way.
    wait_for("the event did not get far", Duration::from_secs(60), || {
        out.join("games/game-0003.jsonl").exists()
    });
    serve.kill().unwrap();
    let _ = serve.wait();
    let before = seat_lines(&out);
    assert_eq!(before.len(), 2, "{before:?}");
    let resumed = finish(
        spawn(&["serve", "--resume", out_s]),
        Duration::from_secs(180),
    );
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
    for (name, c) in [("Ann", ann), ("nameless", nameless)] {
        let o = finish(c, Duration::from_secs(10));
        assert!(
            o.status.success(),
            "{name}: {}\nargus serve --resume: {stdout}{}",
            text(&o.stderr),
            text(&resumed.stderr)
        );
    }
    // No seat was taken again: the same two lines, and the same names everywhere.
    assert_eq!(seat_lines(&out), before);
    let address = before
        .iter()
        .find(|s| s["taken_by"] == "address")
        .and_then(|s| s["name"].as_str())
        .unwrap()
        .to_string();
    let names = pgn_names(&out);
    assert_eq!(names.len(), 12, "{names:?}");
    for name in ["Ann", &address, "Engine"] {
        assert_eq!(
            names.iter().filter(|n| *n == name).count(),
            4,
            "{name}: {names:?}"
        );
    }
    let mut standings = standing_names(&out);
    standings.sort_unstable();
    let mut expected = vec!["Ann".to_string(), address, "Engine".to_string()];
    expected.sort_unstable();
    assert_eq!(standings, expected);
}
