//! Scripts of timestamped inputs; time jumps instead of sleeping.

use super::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

fn config(tc: &str) -> MatchConfig {
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
}

impl Script {
    fn new(cfg: MatchConfig) -> Script {
        Script {
            referee: Referee::new(cfg).unwrap(),
            sent: Vec::new(),
            reports: Vec::new(),
            notices: Vec::new(),
            over: false,
        }
    }

    fn input(&mut self, input: Input) {
        self.referee.handle(input);
        while let Some(out) = self.referee.poll_output() {
            match out {
                Output::Send { port, line } => self.sent.push((port, line)),
                Output::GameOver(r) => self.reports.push(r),
                Output::Notice(n) => self.notices.push(n),
                Output::MatchOver => self.over = true,
            }
        }
    }

    fn line(&mut self, port: Port, at: u64, text: &str) {
        self.input(Input::Line {
            port,
            at: ms(at),
            bytes: text.as_bytes().to_vec(),
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
        Some("+0.35/12 1s 15400n pv e4 e5 Nf3 book")
    );
    let mate = Record::from_ascii(format!("{START} refreq reply; ce 32762;").as_bytes()).unwrap();
    assert_eq!(analysis_text(&mate, &start).as_deref(), Some("+M3"));
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
        some("+0.20")
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
            "1. e4 {+0.20/9 pv e4 e5 Nf3 Nc6 [%clk 0:00:59.1] [%emt 0:00:00.900]} \
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
