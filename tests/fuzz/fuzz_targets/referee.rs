//! Fuzz target `referee`: the referee core driven by inputs decoded from the fuzz bytes.
//!
//! The bytes choose a match (time control, opening, games, delays, rules, line rates)
//! and then a script of inputs with non-decreasing-ish stamps: sign-ons, replies to the
//! last `respond` each port got (a legal move, an illegal or unreadable one, a draw
//! offer, claim or acceptance, a resignation, a wrong position), noise, sign-offs,
//! drains, timeouts at `poll_timeout()`, lost and returning ports, supervisor commands,
//! shutdowns and resumes. Outputs are drained after every input.
//!
//! Checked, besides never panicking: every line sent is a readable EPD record within
//! the length limit with a `refcom`, and every `respond` describes a legal position in
//! which its `sm` is legal; after a timeout at `at` the next deadline is later than
//! `at`; no more game reports than games; `MatchOver` once, after which the referee
//! stays over and sends nothing.
//!
//! With `ARGUS_FUZZ_TRACE` set, every input and output is printed (to read a finding:
//! run the target binary on the crash file).

#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use argus::core::supervisor::Command;
use argus::core::{DrawRule, IllegalRule, Input, MatchConfig, Output, Port, Referee, WireTiming};
use argus::epd::{MAX_RECORD_LEN, Record, resolve_move};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use shakmaty::fen::Epd;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const TIME_CONTROLS: [&str; 8] = [
    "300+5",
    "40/9000:3600",
    "2/10+1:5",
    "*60",
    "-",
    "?",
    "0.5",
    "1/1:1+0.001",
];

/// Openings beside the standard array: castling, a mate in one, promotions, and a
/// fifty-move draw four plies away.
const OPENINGS: [&str; 4] = [
    "r3k2r/p1pp1ppp/8/8/8/8/P1PP1PPP/R3K2R w KQkq - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
    "4k3/8/8/8/3r4/8/8/R3K3 w - - 96 80",
];

const COMMANDS: [&str; 10] = [
    "status",
    "pause",
    "resume",
    "adjudicate 1-0",
    "adjudicate 1/2 agreed",
    "restart a",
    "restart b",
    "clock a -300",
    "clock b +0.5",
    "abort",
];

/// Whether to print every input and output.
static TRACE: LazyLock<bool> = LazyLock::new(|| std::env::var_os("ARGUS_FUZZ_TRACE").is_some());

/// The longest script, in inputs.
const MAX_STEPS: usize = 400;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(cfg) = config(&mut u) else {
        return;
    };
    let games = cfg.games;
    if *TRACE {
        eprintln!("{cfg:?}");
    }
    let Ok(referee) = Referee::new(cfg) else {
        return;
    };
    let mut h = Harness {
        referee,
        now: Duration::ZERO,
        undrained: [0, 0],
        respond: [None, None],
        to_move: None,
        games,
        reports: 0,
        over: false,
        stopped: false,
    };
    for _ in 0..MAX_STEPS {
        if u.is_empty() || h.step(&mut u).is_err() {
            break;
        }
    }
});

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn config(u: &mut Unstructured) -> Result<MatchConfig> {
    let time_control = u.choose(&TIME_CONTROLS)?.parse().expect("a valid control");
    let openings = match u.int_in_range(0..=7)? {
        i @ 0..=3 => vec![OPENINGS[i].into()],
        _ => Vec::new(),
    };
    let byte_time = |u: &mut Unstructured| -> Result<Option<Duration>> {
        // 9600 baud 8N1, or an unknown rate.
        Ok(u.arbitrary::<bool>()?.then(|| Duration::from_micros(1042)))
    };
    Ok(MatchConfig {
        event: "Fuzz".into(),
        site: "Here".into(),
        date: "2026.01.01".into(),
        round: u.arbitrary()?,
        names: [u.arbitrary()?, u.arbitrary()?],
        port_labels: ["/dev/ttyS0".into(), "/dev/ttyS1".into()],
        time_control,
        games: u.int_in_range(1..=3)?,
        openings,
        reset_delay: ms(u.int_in_range(0..=5000)?),
        conclude_delay: ms(u.int_in_range(0..=5000)?),
        draw_rule: *u.choose(&[DrawRule::Auto, DrawRule::Claim])?,
        illegal: *u.choose(&[IllegalRule::Loss, IllegalRule::Fault])?,
        attended: u.arbitrary()?,
        wire: WireTiming {
            byte_time: [byte_time(u)?, byte_time(u)?],
            eol_bytes: u.int_in_range(1..=2)?,
        },
        // Read last, so that the corpus from before it means what it meant.
        hosted: u.arbitrary().unwrap_or(false),
        time_margin: Default::default(),
        time_odds: Default::default(),
        keep_info: false,
        variant: Default::default(),
    })
}

/// The referee under test and what the script knows of it.
struct Harness {
    referee: Referee,
    /// The script's clock.
    now: Duration,
    /// Lines sent on each port and not yet drained.
    undrained: [usize; 2],
    /// The last `respond` each port got since its last `reset`.
    respond: [Option<Record>; 2],
    /// The port that got the last `respond`.
    to_move: Option<Port>,
    games: u32,
    reports: u32,
    over: bool,
    /// The session stopped ([`Input::Stop`]); only a resume makes it send again.
    stopped: bool,
}

impl Harness {
    /// Decodes one input (or a time step) and feeds it.
    fn step(&mut self, u: &mut Unstructured) -> Result<()> {
        match u.int_in_range(0..=16)? {
            0 => self.now += ms(u.int_in_range(0..=3000)?),
            1 => self.now += Duration::from_secs(u.int_in_range(0..=900)?),
            2 => self.drain(*u.choose(&Port::BOTH)?),
            3 => self.drain_all(),
            4 => {
                if let Some(due) = self.referee.poll_timeout() {
                    let at = self.now.max(due);
                    self.now = at;
                    self.feed(Input::Timeout { at });
                    let next = self.referee.poll_timeout();
                    assert!(
                        next.is_none_or(|t| t > at),
                        "after a timeout at {at:?} the next is {next:?}"
                    );
                }
            }
            5 => {
                let port = *u.choose(&Port::BOTH)?;
                let name: String = u.arbitrary()?;
                let name = name.replace('"', "");
                let line = format!("{} refreq sign_on; tcsi \"{port}\" \"{name}\";", start());
                self.line(u, port, line.into_bytes())?;
            }
            6..=9 => {
                // The game goes on: everything drains, the side to move thinks a while
                // and answers its respond with a legal move.
                self.drain_all();
                self.now += ms(u.int_in_range(0..=2000)?);
                if let Some(port) = self.to_move
                    && let Some(line) = self.reply(u, port, true)?
                {
                    self.line(u, port, line.into_bytes())?;
                }
            }
            10 => {
                let port = *u.choose(&Port::BOTH)?;
                let legal = u.arbitrary()?;
                if let Some(line) = self.reply(u, port, legal)? {
                    self.line(u, port, line.into_bytes())?;
                }
            }
            11 => {
                // A reply from the start position, whatever the game's is.
                let port = *u.choose(&Port::BOTH)?;
                let line = format!("{} refreq reply; sm e4;", start());
                self.line(u, port, line.into_bytes())?;
            }
            12 => {
                let port = *u.choose(&Port::BOTH)?;
                let bytes: Vec<u8> = u.arbitrary()?;
                self.line(u, port, bytes)?;
            }
            13 => {
                let port = *u.choose(&Port::BOTH)?;
                let op = u.choose(&["sign_off", "fault; c0 \"engine died\"", "dance"])?;
                let line = format!("{} refreq {op};", start());
                self.line(u, port, line.into_bytes())?;
            }
            14 => {
                let port = *u.choose(&Port::BOTH)?;
                let at = self.now;
                self.feed(if u.arbitrary()? {
                    Input::PortLost { port, at }
                } else {
                    Input::PortBack {
                        port,
                        at,
                        fresh: u.arbitrary()?,
                    }
                });
            }
            15 => {
                let text = if u.ratio(1, 4)? {
                    u.arbitrary::<&str>()?
                } else {
                    u.choose(&COMMANDS)?
                };
                if let Ok(command) = text.parse::<Command>() {
                    let at = self.now;
                    self.feed(Input::Supervisor { at, command });
                }
            }
            _ => {
                let at = self.now;
                let choice: u8 = u.int_in_range(0..=2)?;
                if choice == 0 {
                    self.feed(Input::Shutdown { at });
                } else if choice == 1 {
                    self.feed(Input::Stop { at });
                } else {
                    // A resumed referee: what was sent and not drained is gone.
                    self.undrained = [0, 0];
                    self.feed(Input::Resume { at });
                }
            }
        }
        Ok(())
    }

    /// Reports every line sent as drained, a bounded number of times (draining may
    /// send more).
    fn drain_all(&mut self) {
        for _ in 0..32 {
            match self.undrained {
                [0, 0] => break,
                [0, _] => self.drain(Port::B),
                _ => self.drain(Port::A),
            }
        }
    }

    /// Reports that the oldest line sent on `port` has left.
    fn drain(&mut self, port: Port) {
        let undrained = &mut self.undrained[port.index()];
        *undrained = undrained.saturating_sub(1);
        let at = self.now;
        self.feed(Input::Drained { port, at });
    }

    /// Feeds a line stamped now or, since a line is stamped in its reader thread, now
    /// and then a little earlier than the last input.
    fn line(&mut self, u: &mut Unstructured, port: Port, bytes: Vec<u8>) -> Result<()> {
        let late = ms(u.int_in_range(0..=3u64)?.saturating_sub(2) * 20);
        let at = self.now.saturating_sub(late);
        self.feed(Input::Line {
            port,
            at,
            bytes,
            record: None,
        });
        Ok(())
    }

    /// A reply to the last `respond` of `port`: with a legal move when `legal`, else
    /// with an unlikely move text or none at all; draw operations and analysis now and
    /// then.
    fn reply(&self, u: &mut Unstructured, port: Port, legal: bool) -> Result<Option<String>> {
        let Some(respond) = &self.respond[port.index()] else {
            return Ok(None);
        };
        let pos = position_after(respond);
        let mut ops = String::new();
        if legal {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return Ok(None);
            }
            let m = moves[u.choose_index(moves.len())?];
            let text = if u.arbitrary()? {
                SanPlus::from_move(pos.clone(), m).to_string()
            } else {
                m.to_uci(CastlingMode::Standard).to_string()
            };
            ops.push_str(&format!(" sm {text};"));
        } else {
            let text = u.choose(&["", "Ke5", "e9", "O-O-O", "Nxf7", "\"e4\"", "1/2", "a1a1"])?;
            if !text.is_empty() {
                ops.push_str(&format!(" sm {text};"));
            }
        }
        for op in ["draw_offer", "draw_claim", "draw_accept", "resign"] {
            if u.ratio(1, 12)? {
                ops.push_str(&format!(" {op};"));
            }
        }
        if u.ratio(1, 4)? {
            let ce: i16 = u.arbitrary()?;
            ops.push_str(&format!(
                " ce {ce}; acd 12; acn 15400; pv e4 e5; c0 \"fuzz\";"
            ));
        }
        Ok(Some(format!("{} refreq reply;{ops}", epd(&pos))))
    }

    /// Feeds one input and checks everything it produced.
    fn feed(&mut self, input: Input) {
        if *TRACE {
            eprintln!("> {input:?}");
        }
        if matches!(input, Input::Resume { .. }) {
            self.stopped = false;
        }
        self.referee.handle(input);
        while let Some(output) = self.referee.poll_output() {
            if *TRACE {
                eprintln!("< {output:?}");
            }
            match output {
                Output::Send { port, line, .. } => {
                    assert!(!self.over, "{line:?} sent on port {port} after the match");
                    assert!(
                        !self.stopped,
                        "{line:?} sent on port {port} after the session stopped"
                    );
                    self.sent(port, &line);
                }
                Output::GameOver(report) => {
                    self.reports += 1;
                    assert!(self.reports <= self.games, "more reports than games");
                    assert!(!report.pgn.is_empty());
                }
                Output::Notice(notice) => {
                    let _ = notice.to_string();
                }
                Output::MatchOver => {
                    assert!(!self.over, "MatchOver twice");
                    self.over = true;
                }
                Output::Stopped => {
                    assert!(!self.stopped, "Stopped twice without a resume");
                    self.stopped = true;
                }
            }
        }
        assert_eq!(
            self.referee.is_over(),
            self.over,
            "is_over and MatchOver disagree"
        );
    }

    /// Checks a line the referee sent on `port` and remembers its `respond`s.
    fn sent(&mut self, port: Port, line: &str) {
        assert!(line.len() <= MAX_RECORD_LEN, "{line:?} is too long");
        let rec = Record::from_ascii(line.as_bytes())
            .unwrap_or_else(|e| panic!("the referee sent {line:?}: {e}"));
        self.undrained[port.index()] += 1;
        match rec.refcom() {
            Some("respond") => {
                position_after(&rec);
                self.respond[port.index()] = Some(rec);
                self.to_move = Some(port);
            }
            Some("reset") => self.respond[port.index()] = None,
            Some(_) => {}
            None => panic!("{line:?} has no refcom"),
        }
    }
}

/// The position a `respond` asks to be played from: its position with its `sm` played.
fn position_after(respond: &Record) -> Chess {
    let mut pos: Chess = respond
        .setup()
        .position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("respond {respond} has no legal position: {e}"));
    if let Some(sm) = respond.operands("sm").and_then(|o| o.first()) {
        let text = sm.as_move_text().expect("sm is a move");
        let m =
            resolve_move(&pos, text).unwrap_or_else(|e| panic!("respond {respond}: its sm: {e}"));
        pos.play_unchecked(m);
    }
    pos
}

/// The EPD data fields of `pos`.
fn epd(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

fn start() -> String {
    epd(&Chess::default())
}
