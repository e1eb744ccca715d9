//! What `argus client --connect` prints while it plays against `argus serve` on
//! loopback (docs/protocol.md, "What argus client prints"): a line when it signs on,
//! one per game (colour, opponent, result and why), the end; and what the referee's
//! log says of the players that connect and leave.

use std::time::Duration;

mod serve_support;
use serve_support::*;

#[test]
fn a_remote_client_says_whom_it_signed_on_to_and_each_game_it_played() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("event");
    let addr = format!("127.0.0.1:{}", free_port());
    let serve = spawn(&[
        "serve",
        "--player",
        "Ann",
        "--engine",
        "name=Engine",
        "movetime=5",
        "--games",
        "2",
        "--tc",
        "60+0.1",
        "--listen",
        &addr,
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = first_connection(&addr);
    let client = spawn(&[
        "client",
        "--connect",
        &addr,
        "--engine",
        "random",
        "--think-ms",
        "5",
        "--name",
        "Ann",
    ]);
    let serve = finish(serve, Duration::from_secs(120));
    let serve_out = text(&serve.stdout);
    assert!(serve.status.success(), "{serve_out}{}", text(&serve.stderr));
    let client = finish(client, Duration::from_secs(20));
    let stdout = text(&client.stdout);
    assert!(client.status.success(), "{stdout}{}", text(&client.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("argus client: signed on to {addr} as Ann"),
        "{stdout}"
    );
    // One line a game, in the order played, with the colours alternating and the
    // result as games.pgn has it.
    let results = pgn_results(&out);
    let games: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("argus client: game "))
        .collect();
    assert_eq!(games.len(), 2, "{stdout}");
    let mut colours = Vec::new();
    for (i, (line, result)) in games.iter().zip(&results).enumerate() {
        let head = format!("argus client: game {}: ", i + 1);
        let rest = line
            .strip_prefix(&head)
            .unwrap_or_else(|| panic!("{stdout}"));
        let (colour, rest) = rest.split_once(" against Engine: ").expect(line);
        colours.push(colour.to_string());
        assert!(
            rest.starts_with(&format!("{result}, ")),
            "{line} / {result}"
        );
        let outcome = match (colour, result.as_str()) {
            (_, "1/2-1/2") => "drawn",
            ("White", "1-0") | ("Black", "0-1") => "won",
            _ => "lost",
        };
        assert!(
            rest.starts_with(&format!("{result}, {outcome} (")) && rest.ends_with(')'),
            "{line}"
        );
    }
    // The referee's log, without -v: who connected from where, and left.
    let from = serve_out
        .lines()
        .find_map(|l| l.strip_prefix("argus serve: Ann connected from 127.0.0.1:"))
        .unwrap_or_else(|| panic!("{serve_out}"));
    assert!(from.parse::<u16>().is_ok(), "{serve_out}");
    assert!(
        serve_out.contains(&format!(
            "argus serve: Ann left: its connection from 127.0.0.1:{from} closed"
        )),
        "{serve_out}"
    );
    colours.sort();
    assert_eq!(colours, ["Black", "White"], "{stdout}");
    assert!(
        lines.last().unwrap().starts_with(
            "argus client: the referee said disconnect after 2 game(s) on this connection ("
        ),
        "{stdout}"
    );
}
