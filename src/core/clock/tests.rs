use super::*;

fn tc(text: &str) -> TimeControl {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn ms(m: u64) -> Duration {
    Duration::from_millis(m)
}

#[test]
fn parses_and_displays_every_kind() {
    let cases: &[(&str, &[Period])] = &[
        ("?", &[Period::Unknown]),
        ("-", &[Period::Untimed]),
        (
            "40/9000",
            &[Period::Moves {
                moves: 40,
                time: secs(9000),
                increment: Duration::ZERO,
            }],
        ),
        (
            "300",
            &[Period::SuddenDeath {
                time: secs(300),
                increment: Duration::ZERO,
            }],
        ),
        (
            "4500+60",
            &[Period::SuddenDeath {
                time: secs(4500),
                increment: secs(60),
            }],
        ),
        ("*180", &[Period::Hourglass { time: secs(180) }]),
        (
            "40/9000:3600",
            &[
                Period::Moves {
                    moves: 40,
                    time: secs(9000),
                    increment: Duration::ZERO,
                },
                Period::SuddenDeath {
                    time: secs(3600),
                    increment: Duration::ZERO,
                },
            ],
        ),
        (
            "40/5400+30:1800+30",
            &[
                Period::Moves {
                    moves: 40,
                    time: secs(5400),
                    increment: secs(30),
                },
                Period::SuddenDeath {
                    time: secs(1800),
                    increment: secs(30),
                },
            ],
        ),
        (
            "40/7200:20/3600:900+30",
            &[
                Period::Moves {
                    moves: 40,
                    time: secs(7200),
                    increment: Duration::ZERO,
                },
                Period::Moves {
                    moves: 20,
                    time: secs(3600),
                    increment: Duration::ZERO,
                },
                Period::SuddenDeath {
                    time: secs(900),
                    increment: secs(30),
                },
            ],
        ),
        (
            "10+0.1",
            &[Period::SuddenDeath {
                time: secs(10),
                increment: ms(100),
            }],
        ),
        (
            "0.5+0.05",
            &[Period::SuddenDeath {
                time: ms(500),
                increment: ms(50),
            }],
        ),
        (
            "40/0.125+0.001",
            &[Period::Moves {
                moves: 40,
                time: ms(125),
                increment: ms(1),
            }],
        ),
        ("*0.5", &[Period::Hourglass { time: ms(500) }]),
    ];
    for &(text, periods) in cases {
        let parsed = tc(text);
        assert_eq!(parsed.periods(), periods, "{text}");
        assert_eq!(parsed.to_string(), text);
        assert_eq!(tc(&parsed.to_string()), parsed);
    }
}

#[test]
fn display_is_canonical() {
    for (text, canonical) in [
        ("300+0", "300"),
        ("40/9000+0:3600+0.000", "40/9000:3600"),
        ("10.000+0.100", "10+0.1"),
        ("007+01.50", "7+1.5"),
        ("1.20", "1.2"),
    ] {
        let parsed = tc(text);
        assert_eq!(parsed.to_string(), canonical, "{text}");
        assert_eq!(tc(canonical), parsed);
    }
}

#[test]
fn is_timed_is_false_only_for_unknown_and_untimed() {
    assert!(!tc("?").is_timed());
    assert!(!tc("-").is_timed());
    for text in ["300", "40/9000", "4500+60", "*180", "40/9000:3600"] {
        assert!(tc(text).is_timed(), "{text}");
    }
}

#[test]
fn rejects_malformed_text_with_an_error_naming_it() {
    use TimeControlErrorKind as K;
    let cases = [
        ("", K::EmptyPeriod),
        ("40/", K::InvalidSeconds(String::new())),
        ("+5", K::InvalidSeconds(String::new())),
        ("*", K::InvalidSeconds(String::new())),
        ("a", K::InvalidSeconds("a".into())),
        ("40/0", K::ZeroTime),
        ("0", K::ZeroTime),
        ("*0", K::ZeroTime),
        ("0+1", K::ZeroTime),
        ("0/300", K::ZeroMoves),
        ("/300", K::InvalidMoves(String::new())),
        ("x/300", K::InvalidMoves("x".into())),
        ("-1/300", K::InvalidMoves("-1".into())),
        ("99999999999/300", K::TooLarge("99999999999".into())),
        (
            "99999999999999999999",
            K::TooLarge("99999999999999999999".into()),
        ),
        ("18446744073709552", K::TooLarge("18446744073709552".into())),
        ("300+", K::InvalidSeconds(String::new())),
        ("300+a", K::InvalidSeconds("a".into())),
        ("300+5+5", K::InvalidSeconds("5+5".into())),
        ("10+0.0001", K::TooPrecise("0.0001".into())),
        ("1.2345", K::TooPrecise("1.2345".into())),
        ("1.", K::InvalidSeconds("1.".into())),
        (".5", K::InvalidSeconds(".5".into())),
        ("1.2.3", K::InvalidSeconds("1.2.3".into())),
        ("1e3", K::InvalidSeconds("1e3".into())),
        (" 300", K::InvalidSeconds(" 300".into())),
        ("300 ", K::InvalidSeconds("300 ".into())),
        ("40 /9000", K::InvalidMoves("40 ".into())),
        ("40/9000:", K::EmptyPeriod),
        (":300", K::EmptyPeriod),
        ("40/9000::300", K::EmptyPeriod),
        ("40/-5", K::InvalidSeconds("-5".into())),
        ("40/9000:?", K::NotAlone("?".into())),
        ("-:300", K::NotAlone("-".into())),
        ("40/9000:*180", K::NotAlone("*180".into())),
        ("*180:300", K::NotAlone("*180".into())),
        ("??", K::InvalidSeconds("??".into())),
        ("**180", K::InvalidSeconds("*180".into())),
        ("*180+5", K::InvalidSeconds("180+5".into())),
    ];
    for (text, kind) in cases {
        let err = text.parse::<TimeControl>().unwrap_err();
        assert_eq!(
            err,
            TimeControlError {
                text: text.to_owned(),
                kind
            },
            "{text:?}"
        );
        assert!(
            err.to_string()
                .starts_with(&format!("invalid time control {text:?}: ")),
            "{err}"
        );
    }
    assert_eq!(
        "40/".parse::<TimeControl>().unwrap_err().to_string(),
        r#"invalid time control "40/": expected a number of seconds, found """#
    );
    assert_eq!(
        "10+0.0001".parse::<TimeControl>().unwrap_err().to_string(),
        r#"invalid time control "10+0.0001": more than three decimal places in "0.0001""#
    );
}

#[test]
fn serializes_as_its_text() {
    let control = tc("40/5400+30:1800+30");
    let json = serde_json::to_string(&control).unwrap();
    assert_eq!(json, r#""40/5400+30:1800+30""#);
    assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), control);
    let err = serde_json::from_str::<TimeControl>(r#""40/""#).unwrap_err();
    assert!(err.to_string().contains("invalid time control"), "{err}");
}

#[test]
fn both_sides_start_with_the_first_period() {
    let clocks = Clocks::new(&tc("40/9000:3600"));
    for color in Color::ALL {
        assert_eq!(clocks.remaining(color), Some(secs(9000)));
        assert_eq!(clocks.consumed(color), Duration::ZERO);
        assert_eq!(clocks.moves_made(color), 0);
    }
    assert_eq!(clocks.time_control(Color::White), &tc("40/9000:3600"));
}

#[test]
fn untimed_clocks_only_count() {
    for text in ["?", "-"] {
        let mut clocks = Clocks::new(&tc(text));
        assert_eq!(clocks.remaining(Color::White), None);
        let charge = clocks.charge(Color::White, secs(100_000));
        assert_eq!(
            charge,
            Charge {
                elapsed: secs(100_000),
                remaining: None,
                flagged: false
            }
        );
        clocks.charge(Color::White, secs(5));
        clocks.flag(Color::White);
        clocks.adjust(Color::White, 1000);
        assert_eq!(clocks.remaining(Color::White), None);
        assert_eq!(clocks.consumed(Color::White), secs(100_005));
        assert_eq!(clocks.moves_made(Color::White), 2);
        assert_eq!(clocks.moves_made(Color::Black), 0);
    }
}

#[test]
fn period_changes_after_move_forty() {
    let mut clocks = Clocks::new(&tc("40/9000:3600"));
    for n in 1..=40 {
        let white = clocks.charge(Color::White, secs(100));
        let black = clocks.charge(Color::Black, secs(200));
        if n < 40 {
            assert_eq!(white.remaining, Some(secs(9000 - 100 * n)));
            assert_eq!(black.remaining, Some(secs(9000 - 200 * n)));
        }
    }
    assert_eq!(clocks.remaining(Color::White), Some(secs(5000 + 3600)));
    assert_eq!(clocks.remaining(Color::Black), Some(secs(1000 + 3600)));
    // The last period is sudden death, so nothing more is ever added.
    for _ in 0..40 {
        clocks.charge(Color::White, secs(10));
    }
    assert_eq!(clocks.remaining(Color::White), Some(secs(8600 - 400)));
    assert_eq!(clocks.moves_made(Color::White), 80);
    assert_eq!(clocks.moves_made(Color::Black), 40);
}

#[test]
fn the_last_moves_period_repeats() {
    let mut clocks = Clocks::new(&tc("40/9000"));
    let mut expected = secs(9000);
    for n in 1..=120 {
        let charge = clocks.charge(Color::Black, secs(1));
        expected -= secs(1);
        if n % 40 == 0 {
            expected += secs(9000);
        }
        assert_eq!(charge.remaining, Some(expected), "move {n}");
    }
    assert_eq!(clocks.remaining(Color::Black), Some(secs(9000 * 4 - 120)));
    assert_eq!(clocks.remaining(Color::White), Some(secs(9000)));

    let mut clocks = Clocks::new(&tc("40/7200:20/3600:900"));
    for _ in 0..40 {
        clocks.charge(Color::White, Duration::ZERO);
    }
    assert_eq!(clocks.remaining(Color::White), Some(secs(7200 + 3600)));
    for _ in 0..20 {
        clocks.charge(Color::White, Duration::ZERO);
    }
    assert_eq!(
        clocks.remaining(Color::White),
        Some(secs(7200 + 3600 + 900))
    );
    for _ in 0..100 {
        clocks.charge(Color::White, Duration::ZERO);
    }
    assert_eq!(
        clocks.remaining(Color::White),
        Some(secs(7200 + 3600 + 900))
    );
}

#[test]
fn each_period_adds_its_own_increment() {
    let mut clocks = Clocks::new(&tc("40/5400+30:1800+10"));
    for _ in 0..39 {
        clocks.charge(Color::White, secs(60));
    }
    // Each move costs 60 s and earns 30 s back.
    assert_eq!(clocks.remaining(Color::White), Some(secs(5400 - 39 * 30)));
    let charge = clocks.charge(Color::White, secs(60));
    assert_eq!(charge.remaining, Some(secs(5400 - 40 * 30 + 1800)));
    let charge = clocks.charge(Color::White, secs(60));
    assert_eq!(charge.remaining, Some(secs(6000 - 50)));
    assert_eq!(clocks.consumed(Color::White), secs(41 * 60));
}

#[test]
fn fractional_increment_over_many_moves() {
    let mut clocks = Clocks::new(&tc("10+0.1"));
    for _ in 0..1000 {
        let charge = clocks.charge(Color::White, ms(95));
        assert!(!charge.flagged);
    }
    // Each move gains 5 ms; no rounding drift after a thousand moves.
    assert_eq!(clocks.remaining(Color::White), Some(secs(15)));
    assert_eq!(clocks.consumed(Color::White), secs(95));

    let mut clocks = Clocks::new(&tc("0.5+0.05"));
    let mut flagged_at = None;
    for n in 1..=100 {
        if clocks.charge(Color::Black, ms(60)).flagged {
            flagged_at = Some(n);
            break;
        }
    }
    // 500 ms shrinks by 10 ms a move: move 45 leaves 50 ms, move 46 needs 60.
    assert_eq!(flagged_at, Some(46));
    assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
}

#[test]
fn a_flagged_charge_stops_at_zero_without_increment() {
    let mut clocks = Clocks::new(&tc("300+5"));
    let charge = clocks.charge(Color::White, secs(300));
    assert_eq!(
        charge,
        Charge {
            elapsed: secs(300),
            remaining: Some(secs(5)),
            flagged: false
        }
    );
    let charge = clocks.charge(Color::White, ms(5001));
    assert_eq!(
        charge,
        Charge {
            elapsed: ms(5001),
            remaining: Some(Duration::ZERO),
            flagged: true
        }
    );
    assert_eq!(clocks.remaining(Color::White), Some(Duration::ZERO));
    assert_eq!(clocks.consumed(Color::White), secs(305));
    assert_eq!(clocks.moves_made(Color::White), 2);
    assert_eq!(clocks.remaining(Color::Black), Some(secs(300)));
}

#[test]
fn a_flagged_move_does_not_start_the_next_period() {
    let mut clocks = Clocks::new(&tc("1/10:3600"));
    let charge = clocks.charge(Color::White, secs(11));
    assert!(charge.flagged);
    assert_eq!(charge.remaining, Some(Duration::ZERO));
    assert_eq!(clocks.consumed(Color::White), secs(10));
}

#[test]
fn hourglass_transfers_time_and_flags() {
    let mut clocks = Clocks::new(&tc("*180"));
    assert_eq!(clocks.remaining(Color::White), Some(secs(90)));
    assert_eq!(clocks.remaining(Color::Black), Some(secs(90)));
    let charge = clocks.charge(Color::White, secs(30));
    assert_eq!(charge.remaining, Some(secs(60)));
    assert!(!charge.flagged);
    assert_eq!(clocks.remaining(Color::Black), Some(secs(120)));
    clocks.charge(Color::Black, secs(10));
    assert_eq!(clocks.remaining(Color::White), Some(secs(70)));
    assert_eq!(clocks.remaining(Color::Black), Some(secs(110)));

    // A charge beyond the sand left flags and transfers only what was left.
    let charge = clocks.charge(Color::White, secs(100));
    assert!(charge.flagged);
    assert_eq!(charge.remaining, Some(Duration::ZERO));
    assert_eq!(clocks.remaining(Color::Black), Some(secs(180)));
    assert_eq!(clocks.consumed(Color::White), secs(100));

    // A flag fall empties the upper chamber into the other side.
    let mut clocks = Clocks::new(&tc("*181"));
    assert_eq!(clocks.remaining(Color::White), Some(ms(90_500)));
    clocks.charge(Color::White, ms(500));
    clocks.flag(Color::Black);
    assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
    assert_eq!(clocks.consumed(Color::Black), secs(91));
    assert_eq!(clocks.remaining(Color::White), Some(secs(181)));
}

#[test]
fn flag_consumes_what_was_left() {
    let mut clocks = Clocks::new(&tc("40/9000"));
    clocks.charge(Color::Black, ms(1234));
    clocks.flag(Color::Black);
    assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
    assert_eq!(clocks.consumed(Color::Black), secs(9000));
    assert_eq!(clocks.remaining(Color::White), Some(secs(9000)));
    assert_eq!(clocks.moves_made(Color::Black), 1);
}

#[test]
fn consumed_sums_every_charge() {
    let mut clocks = Clocks::new(&tc("2/60+1"));
    let times = [ms(1850), ms(12), ms(30_000), ms(999)];
    for &t in &times {
        clocks.charge(Color::White, t);
    }
    clocks.charge(Color::Black, ms(7));
    assert_eq!(
        clocks.consumed(Color::White),
        times.iter().sum::<Duration>()
    );
    assert_eq!(clocks.consumed(Color::Black), ms(7));
    // Time granted minus time consumed is time left: 60 + 60 + 60 + 4 increments.
    assert_eq!(
        clocks.remaining(Color::White),
        Some(secs(184) - times.iter().sum::<Duration>())
    );
}

#[test]
fn clocks_rebuilt_from_consumed_time_match_the_referee_s() {
    let tc: TimeControl = "40/5400+30:1800+30".parse().unwrap();
    let mut referee = Clocks::new(&tc);
    for i in 0..45u64 {
        referee.charge(Color::White, Duration::from_millis(1000 + i));
        referee.charge(Color::Black, Duration::from_millis(2000 + i));
    }
    let rebuilt = Clocks::from_consumed(
        &tc,
        ByColor {
            white: 45,
            black: 45,
        },
        ByColor {
            white: referee.consumed(Color::White),
            black: referee.consumed(Color::Black),
        },
    );
    assert_eq!(
        rebuilt.remaining(Color::White),
        referee.remaining(Color::White)
    );
    assert_eq!(
        rebuilt.remaining(Color::Black),
        referee.remaining(Color::Black)
    );
    assert_eq!(
        rebuilt.moves_to_go(Color::White),
        None,
        "sudden death after move 40"
    );
    let early = Clocks::from_consumed(&tc, ByColor { white: 5, black: 4 }, ByColor::default());
    assert_eq!(early.moves_to_go(Color::White), Some(35));
    assert_eq!(rebuilt.increment(Color::White), Duration::from_secs(30));
    let glass: TimeControl = "*180".parse().unwrap();
    let rebuilt = Clocks::from_consumed(
        &glass,
        ByColor { white: 3, black: 2 },
        ByColor {
            white: Duration::from_secs(10),
            black: Duration::from_secs(4),
        },
    );
    assert_eq!(
        rebuilt.remaining(Color::White),
        Some(Duration::from_secs(84))
    );
    assert_eq!(
        rebuilt.remaining(Color::Black),
        Some(Duration::from_secs(96))
    );
    assert_eq!(rebuilt.moves_to_go(Color::Black), None);
}

#[test]
fn moves_charged_a_period_at_a_time_are_moves_charged_one_by_one() {
    for text in [
        "40/5400+30:1800+30",
        "0.2+0.002",
        "40/60:20/30:900",
        "10/60",
        "1/10:2/5+1:30+2",
        "300",
        "*180",
        "-",
        "?",
    ] {
        let tc = tc(text);
        for n in 0..130u32 {
            let mut one_by_one = Clocks::new(&tc);
            for _ in 0..n {
                one_by_one.charge(Color::White, Duration::ZERO);
            }
            let mut at_once = Clocks::new(&tc);
            at_once.charge_free_moves(Color::White, n);
            assert_eq!(at_once, one_by_one, "{text}, {n} moves");
        }
    }
}

#[test]
fn adjust_adds_and_removes_time_saturating_at_zero() {
    let mut clocks = Clocks::new(&tc("300"));
    clocks.adjust(Color::White, 1500);
    assert_eq!(clocks.remaining(Color::White), Some(ms(301_500)));
    clocks.adjust(Color::White, -1);
    assert_eq!(clocks.remaining(Color::White), Some(ms(301_499)));
    clocks.adjust(Color::White, -1_000_000);
    assert_eq!(clocks.remaining(Color::White), Some(Duration::ZERO));
    clocks.adjust(Color::Black, i64::MIN);
    assert_eq!(clocks.remaining(Color::Black), Some(Duration::ZERO));
    clocks.adjust(Color::Black, i64::MAX);
    clocks.adjust(Color::Black, i64::MAX);
    assert!(clocks.remaining(Color::Black) > Some(secs(1 << 40)));
    assert_eq!(clocks.consumed(Color::White), Duration::ZERO);
    assert_eq!(clocks.consumed(Color::Black), Duration::ZERO);
    assert!(clocks.charge(Color::White, ms(1)).flagged);
}

#[test]
fn a_time_per_move_is_whole_at_every_turn_and_lost_when_unused() {
    let t = tc("0.5/move");
    assert_eq!(t.periods(), [Period::PerMove { time: ms(500) }]);
    assert_eq!(t.to_string(), "0.5/move");
    assert!(t.is_timed());
    // Alone, as an hourglass is.
    assert!("0.5/move:40/60".parse::<TimeControl>().is_err());
    assert!("0/move".parse::<TimeControl>().is_err());
    let mut clocks = Clocks::new(&t);
    assert_eq!(clocks.remaining(Color::White), Some(ms(500)));
    assert_eq!(clocks.moves_to_go(Color::White), Some(1));
    assert_eq!(clocks.increment(Color::White), Duration::ZERO);
    // A quick move saves nothing for the next.
    let charge = clocks.charge(Color::White, ms(100));
    assert!(!charge.flagged);
    assert_eq!(charge.remaining, Some(ms(500)));
    assert_eq!(clocks.consumed(Color::White), ms(100));
    // A move past it is flagged, unless the margin forgives it.
    assert!(clocks.charge(Color::White, ms(501)).flagged);
    let mut clocks = Clocks::new(&t);
    clocks.set_margin(Color::Black, ms(250));
    assert_eq!(clocks.allowed(Color::Black), Some(ms(750)));
    let charge = clocks.charge(Color::Black, ms(700));
    assert!(!charge.flagged);
    assert_eq!(charge.remaining, Some(ms(500)));
    assert!(clocks.charge(Color::Black, ms(751)).flagged);
    // A client's rebuild from the time consumed gives the whole time back.
    let rebuilt = Clocks::from_consumed(
        &t,
        ByColor { white: 3, black: 2 },
        ByColor {
            white: ms(1400),
            black: ms(900),
        },
    );
    assert_eq!(rebuilt.remaining(Color::White), Some(ms(500)));
    assert_eq!(rebuilt.remaining(Color::Black), Some(ms(500)));
    assert_eq!(rebuilt.consumed(Color::White), ms(1400));
}
