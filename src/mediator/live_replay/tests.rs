use super::*;

const INFORM: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refcom inform; \
        ptp Event \"?\" Site \"?\" Date \"2026.05.01\" Round \"1\" White \"A b\" Black \"B\" \
        Result \"*\" TimeControl \"60\";";

#[test]
fn normalise_blanks_the_date_the_clocks_and_the_address_only() {
    let n = String::from_utf8(normalise(INFORM.as_bytes())).unwrap();
    assert!(n.contains("Date \"*\" Round \"1\""), "{n}");
    assert!(n.contains("White \"A b\""), "{n}");
    let other = INFORM.replace("2026.05.01", "2027.01.31");
    assert_eq!(normalise(other.as_bytes()), normalise(INFORM.as_bytes()));
    let tc = INFORM.replace("\"60\"", "\"30\"");
    assert_ne!(normalise(tc.as_bytes()), normalise(INFORM.as_bytes()));

    let respond = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - cc 000:00:00:01 \
            000:00:00:00; fmvn 1; hmvc 0; refcom respond; sm e4;";
    let n = String::from_utf8(normalise(respond.as_bytes())).unwrap();
    assert!(n.contains(" cc * *; fmvn 1;"), "{n}");
    let later = respond.replace("000:00:00:01", "000:00:00:07");
    assert_eq!(normalise(later.as_bytes()), normalise(respond.as_bytes()));
    let moved = respond.replace("sm e4", "sm d4");
    assert_ne!(normalise(moved.as_bytes()), normalise(respond.as_bytes()));

    let sign_on = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; \
            tcsi \"/dev/pts/3\" \"Alpha\";";
    let elsewhere = sign_on.replace("pts/3", "ttyUSB0");
    assert_eq!(
        normalise(sign_on.as_bytes()),
        normalise(elsewhere.as_bytes())
    );
    let renamed = sign_on.replace("Alpha", "Beta");
    assert_ne!(normalise(sign_on.as_bytes()), normalise(renamed.as_bytes()));
}

#[test]
fn normalise_keeps_noise_and_blanks_as_they_are() {
    assert_eq!(normalise(b"cc 1 2;"), b"cc 1 2;");
    let spaced = INFORM.replacen(" refcom", "  refcom", 1);
    assert_ne!(normalise(spaced.as_bytes()), normalise(INFORM.as_bytes()));
    // A `cc` inside a string is not an operation.
    let c0 = "8/8/8/8/8/8/8/K1k5 w - - c0 \"cc 1 2;\"; refcom fault;";
    assert_eq!(normalise(c0.as_bytes()), c0.as_bytes());
}

fn events(lines: &[(usize, Event)]) -> Vec<(usize, Event)> {
    lines.to_vec()
}

#[test]
fn scripts_count_what_each_line_answers() {
    let rx = |t, port, text: &str| Event::Rx {
        t,
        port,
        text: Some(text.into()),
        hex: None,
    };
    let tx = |port, text: &str| Event::Tx {
        port,
        text: text.into(),
    };
    let evs = events(&[
        (2, rx(1_000, Port::A, "hello")),
        (3, rx(2_000, Port::B, "hi")),
        (4, tx(Port::A, "reset")),
        (5, tx(Port::B, "reset")),
        (
            6,
            Event::Drained {
                t: 3_000,
                port: Port::A,
            },
        ),
        (
            7,
            Event::Drained {
                t: 3_100,
                port: Port::B,
            },
        ),
        (8, rx(9_000, Port::A, "move")),
        (9, tx(Port::A, "respond")),
        (
            10,
            Event::Rx {
                t: 12_000,
                port: Port::A,
                text: None,
                hex: Some("ff00".into()),
            },
        ),
    ]);
    let a = Script::of(&evs, Role::Player(Port::A));
    let sent: Vec<(usize, usize, u64)> = a
        .outgoing
        .iter()
        .map(|o| (o.journal_line, o.awaits, o.t))
        .collect();
    assert_eq!(sent, vec![(2, 0, 1_000), (8, 1, 9_000), (10, 2, 12_000)]);
    assert_eq!(a.outgoing[2].line, Line::Bytes(vec![0xff, 0]));
    let expected: Vec<(usize, u64)> = a.incoming.iter().map(|i| (i.journal_line, i.t)).collect();
    // "respond" has no drained event: it is dated by the input that made it.
    assert_eq!(expected, vec![(4, 3_000), (9, 9_000)]);

    let referee = Script::of(&evs, Role::Referee { client: Port::A });
    let sent: Vec<(usize, usize, u64)> = referee
        .outgoing
        .iter()
        .map(|o| (o.journal_line, o.awaits, o.t))
        .collect();
    // "reset" went out when B's "hi" arrived, after one line from A.
    assert_eq!(sent, vec![(4, 1, 2_000), (9, 2, 9_000)]);
    assert_eq!(referee.incoming.len(), 3);
    assert_eq!(
        referee.incoming[1].slack,
        Duration::from_micros(9_000 - 2_000)
    );
}

/// A player that connected again (`back` with `fresh`): the `respond` queued for its old
/// connection was never sent, so neither side of the replay sends or expects it, and
/// the next drain dates the reset that followed the new sign-on.
#[test]
fn lines_written_off_at_a_new_connection_are_not_replayed() {
    let rx = |t, text: &str| Event::Rx {
        t,
        port: Port::A,
        text: Some(text.into()),
        hex: None,
    };
    let tx = |text: &str| Event::Tx {
        port: Port::A,
        text: text.into(),
    };
    let drained = |t| Event::Drained { t, port: Port::A };
    let evs = events(&[
        (2, rx(1_000, "sign_on")),
        (3, tx("inform")),
        (4, drained(1_500)),
        (
            5,
            Event::Lost {
                t: 2_000,
                port: Port::A,
                error: "closed".into(),
            },
        ),
        (6, tx("respond")),
        (
            7,
            Event::Back {
                t: 3_000,
                port: Port::A,
                fresh: true,
            },
        ),
        (8, rx(3_000, "sign_on again")),
        (9, tx("reset")),
        (10, drained(3_200)),
    ]);
    let player = Script::of(&evs, Role::Player(Port::A));
    let heard: Vec<(usize, u64)> = player
        .incoming
        .iter()
        .map(|i| (i.journal_line, i.t))
        .collect();
    assert_eq!(heard, vec![(3, 1_500), (9, 3_200)]);
    let awaits: Vec<usize> = player.outgoing.iter().map(|o| o.awaits).collect();
    assert_eq!(awaits, vec![0, 1]);
    let referee = Script::of(&evs, Role::Referee { client: Port::A });
    let sent: Vec<usize> = referee.outgoing.iter().map(|o| o.journal_line).collect();
    assert_eq!(sent, vec![3, 9]);
}

#[test]
fn the_report_reads_as_sentences() {
    let report = LiveReport {
        sent: 3,
        received: 4,
        matched: 3,
        differences: vec![Difference {
            journal_line: 12,
            expected: Some("a".into()),
            got: Some("b".into()),
        }],
        stopped: Some("at the first difference".into()),
    };
    assert_eq!(
        report.to_string(),
        "sent 3 lines, received 4, 3 as recorded; 1 difference:\n  journal line 12:\n    \
             expected: a\n    got:      b\nstopped early: at the first difference"
    );
}
