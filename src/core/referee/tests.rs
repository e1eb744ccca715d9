//! Scripts of timestamped inputs; time jumps instead of sleeping.

use super::*;
use crate::core::supervisor::Command;

mod analysis;
mod chess960;
mod wiring;

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
        keep_info: false,
        variant: Default::default(),
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
