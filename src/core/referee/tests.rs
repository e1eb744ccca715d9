//! Scripts of timestamped inputs; time jumps instead of sleeping.

use super::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// A one-game match at `tc`, for the tests here and the mediator's.
pub(crate) fn config(tc: &str) -> MatchConfig {
    MatchConfig {
        event: "Test".into(),
        site: "Here".into(),
        date: "2026.11.22".into(),
        round: None,
        names: [None, None],
        port_labels: ["a".into(), "b".into()],
        time_control: tc.parse().unwrap(),
        games: 1,
        openings: Vec::new(),
        reset_delay: Duration::from_secs(5),
        conclude_delay: Duration::from_secs(5),
        draw_rule: DrawRule::Auto,
        illegal: IllegalRule::Loss,
        attended: false,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        wire: WireTiming::default(),
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

struct Script {
    referee: Referee,
    sent: Vec<(Port, String)>,
    reports: Vec<GameReport>,
    notices: Vec<Notice>,
    over: bool,
    stopped: bool,
}

impl Script {
    fn new(cfg: MatchConfig) -> Script {
        Script {
            referee: Referee::new(cfg).unwrap(),
            sent: Vec::new(),
            reports: Vec::new(),
            notices: Vec::new(),
            over: false,
            stopped: false,
        }
    }

    fn input(&mut self, input: Input) {
        self.referee.handle(input);
        while let Some(out) = self.referee.poll_output() {
            match out {
                Output::Send { port, line, .. } => self.sent.push((port, line)),
                Output::GameOver(r) => self.reports.push(r),
                Output::Notice(n) => self.notices.push(n),
                Output::MatchOver => self.over = true,
                Output::Stopped => self.stopped = true,
            }
        }
    }

    fn line(&mut self, port: Port, at: u64, text: &str) {
        self.input(Input::Line {
            port,
            at: ms(at),
            bytes: text.as_bytes().to_vec(),
            record: None,
        });
    }

    /// Drains everything sent so far at `at`.
    fn drain_all(&mut self, at: u64) {
        let owed: Vec<Port> = self.sent.drain(..).map(|(p, _)| p).collect();
        for port in owed {
            self.input(Input::Drained { port, at: ms(at) });
        }
    }

    fn take(&mut self) -> Vec<(Port, String)> {
        self.sent.clone()
    }

    /// Signs both on, drains the resets at 0, and fires the reset delay at 5 s;
    /// leaves the informs and White's respond undrained in `sent`.
    fn reach_first_respond(&mut self) {
        self.line(Port::A, 0, &format!("{START} refreq sign_on;"));
        self.line(Port::B, 0, &format!("{START} refreq sign_on;"));
        assert_eq!(self.take().len(), 2);
        self.drain_all(0);
        assert_eq!(self.referee.poll_timeout(), Some(ms(5000)));
        self.input(Input::Timeout { at: ms(5000) });
    }
}

#[test]
fn the_reset_delay_counts_from_the_later_drain() {
    let mut s = Script::new(config("60"));
    s.line(Port::A, 0, &format!("{START} refreq sign_on;"));
    s.line(Port::B, 10, &format!("{START} refreq sign_on;"));
    s.sent.clear();
    s.input(Input::Drained {
        port: Port::A,
        at: ms(20),
    });
    assert_eq!(s.referee.poll_timeout(), None);
    s.input(Input::Drained {
        port: Port::B,
        at: ms(300),
    });
    assert_eq!(s.referee.poll_timeout(), Some(ms(5300)));
}

#[test]
fn the_clock_runs_from_the_respond_drain_and_the_flag_falls_at_its_moment() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    let sent = s.take();
    assert_eq!(sent.len(), 3, "two informs and a respond: {sent:?}");
    assert!(sent[2].1.contains("refcom respond"));
    // White's respond drains at 5.1 s: the flag is due 60 s later.
    s.sent.clear();
    s.input(Input::Drained {
        port: Port::A,
        at: ms(5000),
    });
    s.input(Input::Drained {
        port: Port::B,
        at: ms(5000),
    });
    assert_eq!(
        s.referee.poll_timeout(),
        None,
        "the respond has not drained"
    );
    s.input(Input::Drained {
        port: Port::A,
        at: ms(5100),
    });
    assert_eq!(s.referee.poll_timeout(), Some(ms(65_100)));
    // A timer that fires late still flags at the deadline, and a reply stamped
    // after it changes nothing.
    s.line(Port::A, 70_000, &format!("{START} refreq reply; sm e4;"));
    assert_eq!(s.reports.len(), 1);
    assert_eq!(s.reports[0].result, GameResult::BlackWins);
    assert_eq!(s.reports[0].termination, Termination::TimeForfeit);
    assert!(s.reports[0].pgn.contains("White forfeits on time"));
}

#[test]
fn a_time_margin_forgives_an_overshoot_up_to_it_and_no_more() {
    // White (port a) may answer up to 200 ms past its time; Black none.
    let mut cfg = config("60+1");
    cfg.time_margin = [ms(200), Duration::ZERO];
    let mut s = Script::new(cfg.clone());
    s.reach_first_respond();
    s.drain_all(5100);
    assert_eq!(
        s.referee.poll_timeout(),
        Some(ms(65_300)),
        "the flag waits out the margin"
    );
    // 150 ms late: forgiven; the clock stands at zero, then the increment.
    s.line(Port::A, 65_250, &format!("{START} refreq reply; sm e4;"));
    assert!(s.reports.is_empty(), "no flag within the margin");
    let (_, respond) = s.sent.last().cloned().unwrap();
    assert!(respond.contains("sm e4;"), "{respond}");
    assert!(
        respond.contains("cc 000:00:01:00 000:00:00:00;"),
        "only the time that was left is consumed: {respond}"
    );
    // Black has no margin: its flag falls at its time.
    s.drain_all(65_300);
    assert_eq!(s.referee.poll_timeout(), Some(ms(125_300)));

    // Past the margin, the flag falls at time + margin.
    let mut s = Script::new(cfg);
    s.reach_first_respond();
    s.drain_all(5100);
    s.input(Input::Timeout { at: ms(65_300) });
    assert_eq!(s.reports.len(), 1);
    assert_eq!(s.reports[0].termination, Termination::TimeForfeit);
}

#[test]
fn time_odds_give_each_port_its_own_clock_and_tags() {
    // Port a (White in the first game) plays at 60 s, port b at 30 s.
    let mut cfg = config("60");
    cfg.time_odds = [None, Some("30".parse().unwrap())];
    let mut s = Script::new(cfg.clone());
    s.reach_first_respond();
    let informs: Vec<String> = s
        .take()
        .into_iter()
        .map(|(_, l)| l)
        .filter(|l| l.contains("refcom inform"))
        .collect();
    assert!(
        informs[0].contains("TimeControl \"60\" WhiteTimeControl \"60\" BlackTimeControl \"30\""),
        "{informs:?}"
    );
    s.drain_all(5100);
    assert_eq!(s.referee.poll_timeout(), Some(ms(65_100)), "White's 60 s");
    s.line(Port::A, 6100, &format!("{START} refreq reply; sm e4;"));
    s.drain_all(6200);
    assert_eq!(s.referee.poll_timeout(), Some(ms(36_200)), "Black's 30 s");
    s.input(Input::Timeout { at: ms(36_200) });
    assert_eq!(s.reports.len(), 1);
    assert!(
        s.reports[0].pgn.contains("[BlackTimeControl \"30\"]"),
        "{}",
        s.reports[0].pgn
    );

    // A timed side against an untimed one cannot be played.
    cfg.time_odds = [None, Some("-".parse().unwrap())];
    assert!(matches!(
        Referee::new(cfg),
        Err(ConfigError::BadOdds { .. })
    ));
}

#[test]
fn a_reply_charges_exactly_the_time_between_drain_and_terminator() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5100);
    s.line(Port::A, 6400, &format!("{START} refreq reply; sm e4;"));
    let (port, respond) = s.sent.last().cloned().unwrap();
    assert_eq!(port, Port::B);
    assert!(
        respond.contains("cc 000:00:00:01 000:00:00:00;"),
        "{respond}"
    );
    assert!(respond.contains("sm e4;"), "{respond}");
    assert!(
        respond.starts_with(START),
        "the position before the move: {respond}"
    );
    s.drain_all(6401);
    s.line(
        Port::B,
        6500,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; resign;",
    );
    let pgn = &s.reports[0].pgn;
    assert!(pgn.contains("[%emt 0:00:01.300]"), "{pgn}");
    assert!(pgn.contains("[%clk 0:00:58.7]"), "{pgn}");
}

#[test]
fn replaying_the_same_inputs_gives_the_same_outputs() {
    let run = || {
        let mut s = Script::new(config("10+1"));
        s.reach_first_respond();
        s.drain_all(5001);
        s.line(Port::A, 5500, &format!("{START} refreq reply; sm e4;"));
        s.drain_all(5502);
        s.input(Input::Timeout { at: ms(20_000) });
        s.drain_all(20_001);
        s.input(Input::Timeout { at: ms(25_001) });
        s.drain_all(25_002);
        (s.sent.clone(), s.reports.clone(), s.over)
    };
    let first = run();
    assert_eq!(first, run());
    assert!(first.2, "the match is over");
    assert_eq!(first.1[0].result, GameResult::WhiteWins);
}

#[test]
fn a_reply_handled_before_its_respond_drain_waits_for_the_drain() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    // The informs drain, but White's respond's drain is reported after the reply.
    s.input(Input::Drained {
        port: Port::A,
        at: ms(5000),
    });
    s.input(Input::Drained {
        port: Port::B,
        at: ms(5000),
    });
    s.sent.clear();
    s.line(Port::A, 5400, &format!("{START} refreq reply; sm e4;"));
    assert!(s.sent.is_empty(), "judged only once the clock has started");
    s.input(Input::Drained {
        port: Port::A,
        at: ms(5100),
    });
    let (port, respond) = s.sent.last().cloned().expect("relayed");
    assert_eq!(port, Port::B);
    assert!(respond.contains("sm e4;"));
    s.drain_all(5401);
    s.line(
        Port::B,
        5500,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; resign;",
    );
    assert!(s.reports[0].pgn.contains("[%emt 0:00:00.300]"));
}

#[test]
fn an_early_reply_after_the_flag_is_too_late() {
    let mut s = Script::new(config("1"));
    s.reach_first_respond();
    s.input(Input::Drained {
        port: Port::A,
        at: ms(5000),
    });
    s.input(Input::Drained {
        port: Port::B,
        at: ms(5000),
    });
    s.line(Port::A, 6500, &format!("{START} refreq reply; sm e4;"));
    s.input(Input::Drained {
        port: Port::A,
        at: ms(5100),
    });
    assert_eq!(s.reports[0].termination, Termination::TimeForfeit);
    assert_eq!(s.reports[0].result, GameResult::BlackWins);
}

#[test]
fn accepting_a_pending_offer_is_a_draw_whatever_else_the_record_holds() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5001);
    s.line(
        Port::A,
        5500,
        &format!("{START} refreq reply; draw_offer; sm e4;"),
    );
    s.drain_all(5502);
    s.line(
        Port::B,
        5600,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; draw_accept; resign;",
    );
    assert_eq!(s.reports[0].result, GameResult::Draw);
}

#[test]
fn a_line_down_at_the_end_of_a_game_does_not_hold_the_match() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5001);
    s.input(Input::PortLost {
        port: Port::B,
        at: ms(5200),
    });
    s.line(Port::A, 5500, &format!("{START} refreq reply; resign;"));
    // Only A's inform and conclude drain; B's line is down.
    let owed: Vec<Port> = s.sent.drain(..).map(|(p, _)| p).collect();
    for port in owed.into_iter().filter(|p| *p == Port::A) {
        s.input(Input::Drained { port, at: ms(5600) });
    }
    assert_eq!(s.referee.poll_timeout(), Some(ms(10_600)));
    s.input(Input::Timeout { at: ms(10_600) });
    s.input(Input::Drained {
        port: Port::A,
        at: ms(10_601),
    });
    assert!(s.over, "disconnect waits for no line that is down");
}

#[test]
fn analysis_on_a_reply_goes_into_the_move_comment() {
    let rec = Record::from_ascii(
        format!(
            "{START} refreq reply; sm e4; ce 35; acd 12; acs 1; acn 15400; pv e4 e5 Nf3; c0 \"book\";"
        )
        .as_bytes(),
    )
    .unwrap();
    let start = Chess::default();
    assert_eq!(
        analysis_text(&rec, &start).as_deref(),
        Some("[%eval 0.35] +0.35/12 1s 15400n pv e4 e5 Nf3 book")
    );
    let mate = Record::from_ascii(format!("{START} refreq reply; ce 32762;").as_bytes()).unwrap();
    assert_eq!(
        analysis_text(&mate, &start).as_deref(),
        Some("[%eval #3] +M3")
    );
    // Black's mate in 3 is White's -3 in `[%eval]`; the cutechess part keeps the
    // mover's side.
    let black: Chess = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    assert_eq!(
        analysis_text(&mate, &black).as_deref(),
        Some("[%eval #-3] +M3")
    );
}

/// The `pv ...` or `pm ...` part of the comment for a reply from `fen` with `ops`.
fn predicted(fen: &str, ops: &str) -> Option<String> {
    let rec = Record::from_ascii(format!("{fen} refreq reply; {ops}").as_bytes()).unwrap();
    let pos = rec
        .position
        .clone()
        .into_position(CastlingMode::Standard)
        .unwrap();
    analysis_text(&rec, &pos)
}

#[test]
fn pv_and_pm_are_written_in_canonical_san_from_the_replys_position() {
    let some = |s: &str| Some(s.to_owned());
    // Coordinates, as UCI engines give them, and the check and mate marks SAN adds.
    assert_eq!(
        predicted(START, "sm e2e4; pv e2e4 e7e5 g1f3 b8c6 f1b5;"),
        some("pv e4 e5 Nf3 Nc6 Bb5")
    );
    assert_eq!(
        predicted(START, "sm f3; pv f2f3 e7e5 g2g4 d8h4;"),
        some("pv f3 e5 g4 Qh4#")
    );
    // Over-specified moves become canonical, and a wrong check mark is put right
    // (the queen on d8 stands between a8 and the king).
    assert_eq!(
        predicted(
            START,
            "sm Nf3; pv Ng1f3 d7d5 d2d4 Bc8f5 c2c4 e7e6 Qd1b3 Nb8c6 Qxb7 Nb4 Qxa8+ Qxa8;"
        ),
        some("pv Nf3 d5 d4 Bf5 c4 e6 Qb3 Nc6 Qxb7 Nb4 Qxa8 Qxa8")
    );
    let castle = "r3k3/1P6/8/8/8/8/8/R3K2R w KQq -";
    assert_eq!(
        predicted(castle, "sm 0-0; pv 0-0 Kd7 b7b8q Rxb8;"),
        some("pv O-O Kd7 b8=Q Rxb8")
    );
    // From Black's side, the position of every reply after the first move.
    assert_eq!(
        predicted(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
            "sm c5; pv c7c5 g1f3 d7d6;"
        ),
        some("pv c5 Nf3 d6")
    );
    // pm alone, in coordinates with a lower-case promotion piece.
    assert_eq!(predicted(castle, "sm b8=Q+; pm b7b8q;"), some("pm b8=Q+"));
}

#[test]
fn a_pv_is_cut_at_its_first_move_that_is_not_legal() {
    let some = |s: &str| Some(s.to_owned());
    // An illegal move: the king cannot go to e2 a second time from e2.
    assert_eq!(
        predicted(START, "sm e4; pv e2e4 e7e5 Ke2 Ke7 Ke2 Ke8;"),
        some("pv e4 e5 Ke2 Ke7")
    );
    // Badly cased pieces and squares are no notation the move reader knows (a
    // lower-case `b` would be a file): the line stops there.
    assert_eq!(
        predicted(START, "sm e4; pv e4 e5 nf3 Nc6;"),
        some("pv e4 e5")
    );
    assert_eq!(
        predicted(START, "sm e4; pv e4 e5 NF3 Nc6;"),
        some("pv e4 e5")
    );
    assert_eq!(predicted(START, "sm e4; pv e4 E7E5 g1f3;"), some("pv e4"));
    // An ambiguous move, and a move that is a string, not a move.
    assert_eq!(
        predicted("k7/8/8/8/8/8/8/KN3N2 w - -", "sm Ka2; pv Ka2 Kb8 Nd2 Ka8;"),
        some("pv Ka2 Kb8")
    );
    assert_eq!(predicted(START, "sm e4; pv e4 \"e5\" Nf3;"), some("pv e4"));
    // Nothing legal in the pv: the pm stands in for it, and without a pm nothing is
    // written.
    assert_eq!(
        predicted(START, "sm e4; pm e2e4; pv E2E4 e7e5;"),
        some("pm e4")
    );
    assert_eq!(
        predicted(START, "sm e4; pv E2E4 e7e5; ce 20;"),
        some("[%eval 0.20] +0.20")
    );
    assert_eq!(predicted(START, "sm e4; pm e5; c0 \"x\";"), some("x"));
}

#[test]
fn the_pgn_comments_carry_the_pv_in_san() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5100);
    s.line(
        Port::A,
        6000,
        &format!("{START} refreq reply; sm e2e4; ce 20; acd 9; pv e2e4 e7e5 g1f3 b8c6;"),
    );
    s.drain_all(6001);
    s.line(
        Port::B,
        6500,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 refreq reply; sm e5; \
         pv e7e5 nf3 Nc6;",
    );
    s.drain_all(6501);
    s.line(
        Port::A,
        7000,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 refreq reply; resign;",
    );
    let pgn = &s.reports[0].pgn;
    let movetext: Vec<&str> = pgn
        .split_once("\n\n")
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let movetext = movetext.join(" ");
    assert!(
        movetext.starts_with(
            "1. e4 {[%eval 0.20] +0.20/9 pv e4 e5 Nf3 Nc6 [%clk 0:00:59.1] [%emt 0:00:00.900]} \
             1... e5 {pv e5 [%clk 0:00:59.5] [%emt 0:00:00.499]} {White resigns} 0-1"
        ),
        "{movetext}"
    );
}

#[test]
fn a_slow_line_costs_nobody_thinking_time() {
    let mut cfg = config("60");
    // One byte a millisecond on port A's line (about 10,000 baud).
    cfg.wire.byte_time = [Some(ms(1)), None];
    let mut s = Script::new(cfg);
    s.reach_first_respond();
    let on_a: Vec<usize> = s
        .sent
        .iter()
        .filter(|(p, _)| *p == Port::A)
        .map(|(_, line)| line.len() + 1)
        .collect();
    assert_eq!(on_a.len(), 2, "the inform and the respond");
    // The pty reports the drains at once; the bytes leave at the line's rate.
    s.drain_all(5001);
    let last_byte = 5000 + (on_a[0] + on_a[1]) as u64;
    let reply = format!("{START} refreq reply; sm e4;");
    let reply_time = (reply.len() + 1) as u64;
    let arrived = last_byte + 1300 + reply_time;
    s.line(Port::A, arrived, &reply);
    s.drain_all(arrived + 1);
    s.line(
        Port::B,
        arrived + 100,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; resign;",
    );
    let pgn = &s.reports[0].pgn;
    assert!(pgn.contains("[%emt 0:00:01.300]"), "{pgn}");
}

#[test]
fn a_second_reply_to_a_respond_already_answered_is_stale_not_an_infraction() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5001);
    s.line(Port::A, 5500, &format!("{START} refreq reply; sm e4;"));
    s.drain_all(5502);
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
    s.line(Port::B, 5600, &format!("{after_e4} refreq reply; sm e5;"));
    s.drain_all(5602);
    // White answers the start position again (it was resynchronised meanwhile).
    s.line(Port::A, 5700, &format!("{START} refreq reply; sm d4;"));
    assert!(s.reports.is_empty(), "no infraction");
    assert!(s.sent.is_empty(), "nothing relayed");
    let after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";
    s.line(Port::A, 5800, &format!("{after_e5} refreq reply; sm Nf3;"));
    assert!(
        s.sent
            .iter()
            .any(|(p, l)| *p == Port::B && l.contains("sm Nf3;"))
    );
    // White answers its last respond again while Black is on move: as quiet.
    s.drain_all(5802);
    s.line(Port::A, 5900, &format!("{after_e5} refreq reply; sm Nf3;"));
    let repeated = s
        .notices
        .iter()
        .filter(|n| matches!(n, Notice::Repeated { port: Port::A }))
        .count();
    assert_eq!(repeated, 2);
    assert!(
        !s.notices.iter().any(|n| matches!(n, Notice::Noise { .. })),
        "{:?}",
        s.notices
    );
}

#[test]
fn time_never_runs_backwards() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5100);
    // A reply stamped before the respond drained is charged nothing, not a
    // negative time.
    s.line(Port::A, 5050, &format!("{START} refreq reply; sm e4;"));
    s.drain_all(5200);
    s.line(
        Port::B,
        5300,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; resign;",
    );
    assert!(s.reports[0].pgn.contains("[%emt 0:00:00.000]"));
}

#[test]
fn status_shows_the_running_clock_and_counts_moves_as_chess_does() {
    let mut s = Script::new(config("300"));
    s.reach_first_respond();
    s.drain_all(5000);
    s.line(Port::A, 6000, &format!("{START} refreq reply; sm e4;"));
    s.drain_all(6000);
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
    s.line(Port::B, 7000, &format!("{after_e4} refreq reply; sm e5;"));
    s.drain_all(7000);
    let after_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -";
    s.line(Port::A, 8000, &format!("{after_e5} refreq reply; sm Nf3;"));
    s.drain_all(8000);
    // Black has thought 2.5 s on its second move, after 1 s on its first.
    s.notices.clear();
    s.input(Input::Supervisor {
        at: ms(10_500),
        command: Command::Status,
    });
    let text = s
        .notices
        .iter()
        .find_map(|n| match n {
            Notice::Supervisor { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        text.contains("0:04:58.0 - "),
        "White's clock stands: {text}"
    );
    assert!(text.ends_with("0:04:56.5; move 2, Black to move"), "{text}");
}

#[test]
fn a_repeated_sign_on_is_said_once() {
    let mut s = Script::new(config("60"));
    let sign_on = format!("{START} refreq sign_on; tcsi \"a\" \"Ann\";");
    for at in [0, 3000, 6000] {
        s.line(Port::A, at, &sign_on);
    }
    s.line(
        Port::A,
        9000,
        &format!("{START} refreq sign_on; tcsi \"a\" \"Bob\";"),
    );
    let said: Vec<String> = s
        .notices
        .iter()
        .filter(|n| matches!(n, Notice::SignedOn { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        said,
        [
            "port a: signed on as \"Ann\"",
            "port a: signed on as \"Bob\""
        ]
    );
}

fn status_of(s: &mut Script, at: u64) -> String {
    s.notices.clear();
    s.input(Input::Supervisor {
        at: ms(at),
        command: Command::Status,
    });
    s.notices
        .iter()
        .find_map(|n| match n {
            Notice::Supervisor { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn a_stop_is_a_pause_that_a_resume_lifts() {
    let mut s = Script::new(config("300"));
    s.reach_first_respond();
    s.drain_all(5000);
    s.line(Port::A, 6000, &format!("{START} refreq reply; sm e4;"));
    s.drain_all(6000);
    // Black has thought 2 s when the referee is stopped.
    s.input(Input::Stop { at: ms(8000) });
    let sent = s.take();
    assert_eq!(sent.len(), 2, "a fault to each player: {sent:?}");
    for (_, line) in &sent {
        assert!(
            line.ends_with(&format!("c0 \"{STOP_REASON}\"; refcom fault;")),
            "{line}"
        );
    }
    assert!(!s.stopped, "the stop waits for its fault to drain");
    assert_eq!(
        s.referee.poll_timeout(),
        Some(ms(10_000)),
        "or for its grace"
    );
    s.drain_all(8100);
    assert!(s.stopped && !s.over, "stopped, and the match is not over");
    assert!(s.reports.is_empty(), "no game ends at a stop");
    assert_eq!(s.referee.poll_timeout(), None, "nothing runs while stopped");
    // A reply that arrives while the referee stops waits, and is dropped at the
    // resume: the resume asks for the move again.
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
    s.line(Port::B, 8200, &format!("{after_e4} refreq reply; sm e5;"));
    assert!(s.take().is_empty());
    // The new session starts an hour later on the journal's time axis... or at once:
    // either way the clocks stand as at the stop.
    s.input(Input::Resume { at: ms(9000) });
    let sent = s.take();
    let b: Vec<&String> = sent
        .iter()
        .filter(|(p, _)| *p == Port::B)
        .map(|(_, l)| l)
        .collect();
    assert!(b.first().unwrap().contains("refcom reset"), "{sent:?}");
    assert!(b.last().unwrap().contains("refcom respond"), "{sent:?}");
    assert!(b.last().unwrap().contains("sm e4"), "{sent:?}");
    let status = status_of(&mut s, 9500);
    assert!(
        status.ends_with("0:04:57.5; move 1, Black to move"),
        "Black's clock stood still from the stop to the resume: {status}"
    );
    s.drain_all(9500);
    s.line(Port::B, 10_000, &format!("{after_e4} refreq reply; sm e5;"));
    assert!(s.reports.is_empty());
    let status = status_of(&mut s, 10_000);
    assert!(status.contains("move 2, White to move"), "{status}");
}

#[test]
fn quit_ends_the_match_and_says_so() {
    let mut s = Script::new(config("300"));
    s.reach_first_respond();
    s.drain_all(5000);
    s.input(Input::Supervisor {
        at: ms(6000),
        command: Command::Quit,
    });
    assert_eq!(s.reports.len(), 1);
    assert_eq!(s.reports[0].result, GameResult::Unknown);
    assert_eq!(s.reports[0].reason, "The supervisor ended the match (quit)");
    s.drain_all(6000);
    s.input(Input::Timeout { at: ms(11_000) });
    assert!(
        s.take()
            .iter()
            .all(|(_, l)| l.ends_with("refcom disconnect;"))
    );
    s.drain_all(11_000);
    assert!(s.over && !s.stopped);
}

#[test]
fn a_line_cut_by_the_opening_of_a_port_is_not_noise() {
    let mut s = Script::new(config("60"));
    let noise = |s: &Script| {
        s.notices
            .iter()
            .filter(|n| matches!(n, Notice::Noise { .. }))
            .count()
    };
    // The tail of a line from before the referee opened its port.
    s.line(Port::A, 0, "QKq - refreq sign_o");
    assert_eq!(noise(&s), 0);
    s.line(Port::A, 10, &format!("{START} refreq sign_on;"));
    s.line(Port::A, 20, "garbage");
    assert_eq!(noise(&s), 1, "after a readable line, garbage is noise");
    // A resume opens the ports again.
    s.input(Input::Resume { at: ms(30) });
    s.line(Port::A, 40, "cut short");
    assert_eq!(noise(&s), 1);
    s.line(Port::A, 50, "cut short");
    assert_eq!(noise(&s), 2, "only the first line is forgiven");
}

fn sign_on_as(s: &mut Script, port: Port, at: u64, name: &str) {
    s.line(
        port,
        at,
        &format!("{START} refreq sign_on; tcsi \"x\" \"{name}\";"),
    );
}

fn said(s: &Script) -> Vec<String> {
    s.notices.iter().map(ToString::to_string).collect()
}

#[test]
fn crossed_cables_are_followed_and_said() {
    let mut cfg = config("60");
    cfg.names = [Some("Stockfish".into()), Some("Fairymax".into())];
    let mut s = Script::new(cfg);
    sign_on_as(&mut s, Port::A, 0, "fairymax");
    sign_on_as(&mut s, Port::B, 10, "Stockfish");
    let text = said(&s).join("\n");
    assert!(text.contains("the cables are swapped"), "{text}");
    assert!(
        text.contains("game 1: Fairymax (White) vs Stockfish (Black)"),
        "the player on port a plays White under its own name: {text}"
    );
}

#[test]
fn a_name_the_event_gives_neither_port_is_a_warning() {
    let mut cfg = config("60");
    cfg.names = [Some("Stockfish".into()), Some("Fairymax".into())];
    let mut s = Script::new(cfg);
    sign_on_as(&mut s, Port::A, 0, "Stockfish");
    sign_on_as(&mut s, Port::B, 10, "GNU Chess");
    let text = said(&s).join("\n");
    assert!(!text.contains("swapped"), "{text}");
    assert!(
        text.contains("port b: signed on as \"GNU Chess\", a name the event gives neither port"),
        "{text}"
    );
    assert!(text.contains("game 1: Stockfish (White) vs Fairymax (Black)"));
}

#[test]
fn straight_cables_and_unnamed_events_say_nothing_more() {
    for names in [
        [Some("Ann".to_string()), Some("Bob".to_string())],
        [None, None],
    ] {
        let mut cfg = config("60");
        cfg.names = names;
        let mut s = Script::new(cfg);
        sign_on_as(&mut s, Port::A, 0, "Ann");
        sign_on_as(&mut s, Port::B, 10, "Bob");
        let text = said(&s).join("\n");
        assert!(
            !text.contains("cables") && !text.contains("neither"),
            "{text}"
        );
    }
}

#[test]
fn a_silent_port_is_probed_once_and_an_echo_names_the_miswiring() {
    let mut s = Script::new(config("60"));
    assert_eq!(s.referee.poll_timeout(), Some(cables::PROBE_AFTER));
    s.input(Input::Timeout {
        at: cables::PROBE_AFTER,
    });
    let sent = s.take();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent[0].1.contains(cables::PROBE_REASON), "{sent:?}");
    assert_eq!(s.referee.poll_timeout(), None, "once");
    // Port a's probe arrives on port b: one cable.
    let probe_a = sent[0].1.clone();
    s.line(Port::B, 3100, &probe_a);
    assert!(
        said(&s)
            .iter()
            .any(|n| n.starts_with("ports a and b are the two ends of one cable"))
    );
    // Port b's probe arrives on port b: a loopback.
    let probe_b = sent[1].1.clone();
    s.notices.clear();
    s.line(Port::B, 3200, &probe_b);
    assert!(said(&s)[0].starts_with("port b: argus's own record came back"));
}

#[test]
fn a_port_that_signed_on_is_not_probed() {
    let mut s = Script::new(config("60"));
    s.line(Port::A, 0, &format!("{START} refreq sign_on;"));
    s.input(Input::Timeout {
        at: cables::PROBE_AFTER,
    });
    let sent = s.take();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].0, Port::B);
}

#[test]
fn a_referee_killed_while_stopping_resumes_and_does_not_stop_again() {
    let mut s = Script::new(config("300"));
    s.reach_first_respond();
    s.drain_all(5000);
    // Stopped at 6 s; killed (a second Ctrl-C) before the faults drained.
    s.input(Input::Stop { at: ms(6000) });
    s.sent.clear();
    s.input(Input::Resume { at: ms(60_000) });
    assert!(
        !s.stopped,
        "the stop's grace does not fire in the new session"
    );
    assert!(
        s.take().iter().any(|(_, l)| l.contains("refcom respond")),
        "the players are brought back"
    );
    let status = status_of(&mut s, 60_000);
    assert!(
        status.contains("0:04:59.0 - "),
        "White's clock stood still: {status}"
    );
}

#[test]
fn a_sign_on_that_crossed_the_reset_is_not_a_restart() {
    let mut s = Script::new(config("60"));
    s.line(Port::A, 0, &format!("{START} refreq sign_on;"));
    s.line(Port::B, 0, &format!("{START} refreq sign_on;"));
    s.sent.clear();
    s.line(Port::A, 10, &format!("{START} refreq sign_on;"));
    assert!(!said(&s).iter().any(|n| n.contains("resynchronising")));
    assert_eq!(s.take().len(), 1, "the reset again");
}

#[test]
fn a_player_back_after_a_sign_off_plays_the_next_game() {
    let mut cfg = config("60");
    cfg.games = 2;
    cfg.attended = true;
    let mut s = Script::new(cfg);
    s.reach_first_respond();
    s.drain_all(5000);
    // White signs off: the game pauses; it signs on again, and the supervisor resumes.
    s.line(Port::A, 5500, &format!("{START} refreq sign_off;"));
    s.line(Port::A, 6000, &format!("{START} refreq sign_on;"));
    s.input(Input::Supervisor {
        at: ms(6500),
        command: Command::Resume,
    });
    s.drain_all(6500);
    s.line(Port::A, 7000, &format!("{START} refreq reply; resign;"));
    assert_eq!(s.reports.len(), 1);
    s.drain_all(7000);
    s.input(Input::Timeout { at: ms(12_000) });
    let sent = s.take();
    assert!(
        sent.iter()
            .filter(|(_, l)| l.ends_with("refcom reset;"))
            .count()
            == 2,
        "game 2 begins without another sign_on: {sent:?}"
    );
}

#[test]
fn a_hosted_match_begins_at_once_and_ends_without_disconnect() {
    let mut cfg = config("60");
    cfg.hosted = true;
    let mut s = Script::new(cfg);
    // Its first moment begins it: no sign_on, no probe.
    assert_eq!(s.referee.poll_timeout(), Some(ms(0)));
    s.input(Input::Timeout { at: ms(0) });
    let sent = s.take();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(
        sent.iter().all(|(_, l)| l.ends_with("refcom reset;")),
        "{sent:?}"
    );
    s.drain_all(0);
    s.input(Input::Timeout { at: ms(5000) });
    s.drain_all(5000);
    s.line(Port::A, 6000, &format!("{START} refreq reply; resign;"));
    assert_eq!(s.reports.len(), 1);
    s.drain_all(6000);
    s.input(Input::Timeout { at: ms(11_000) });
    assert!(s.over, "the match is over after its conclude delay");
    assert!(
        !s.take().iter().any(|(_, l)| l.contains("disconnect")),
        "the event says disconnect, not the match"
    );
}

#[test]
fn a_reply_after_its_game_ended_is_late_not_noise() {
    let mut s = Script::new(config("60"));
    s.reach_first_respond();
    s.drain_all(5001);
    s.line(Port::A, 5500, &format!("{START} refreq reply; resign;"));
    s.drain_all(5502);
    // Black's answer was on its way (say, to a respond the supervisor's quit overtook).
    s.line(
        Port::B,
        5600,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; sm e5;",
    );
    assert!(
        s.notices
            .iter()
            .any(|n| matches!(n, Notice::Late { port: Port::B })),
        "{:?}",
        s.notices
    );
    assert!(!s.notices.iter().any(|n| matches!(n, Notice::Noise { .. })));
}
