//! The referee's vocabulary: its configuration, its inputs and outputs, the notices for
//! people, and the record of a finished game.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color};

use super::super::Port;
use super::super::clock::TimeControl;
use super::super::game::{GameResult, Termination};
use super::super::opening::Opening;
use super::super::pgn;
use super::super::supervisor::Command;
use crate::epd::Record;

/// When threefold repetition and the fifty-move rule end a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawRule {
    /// At once, as soon as the position arises.
    Auto,
    /// Only on a valid `draw_claim` from the side to move.
    Claim,
}

/// What an illegal move, an unreadable move or a wrong position costs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IllegalRule {
    /// The offender loses at once.
    Loss,
    /// `fault` goes to both players first; unattended, the offender then loses.
    Fault,
}

/// Everything the referee needs to know about the match, fixed at its start.
///
/// The configuration is written at the head of the journal, so a replay needs nothing but
/// the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// The PGN Event tag.
    pub event: String,
    /// The PGN Site tag.
    pub site: String,
    /// The PGN Date tag, `YYYY.MM.DD`.
    pub date: String,
    /// The PGN Round tag; the game number when absent.
    pub round: Option<String>,
    /// Names given by the organiser for ports A and B; they win over `tcsi`.
    pub names: [Option<String>; 2],
    /// What the ports are called (their paths); the names of last resort.
    pub port_labels: [String; 2],
    /// The time control of every game.
    pub time_control: TimeControl,
    /// How many games to play.
    pub games: u32,
    /// Start positions (each as FEN, with the tags that name it); empty for the
    /// standard array. Game i (from 0) starts from position i/2, cycling.
    pub openings: Vec<Opening>,
    /// Pause after the `reset` records drained.
    pub reset_delay: Duration,
    /// Pause after the `conclude` records drained, before the next game or `disconnect`.
    pub conclude_delay: Duration,
    /// When repetition and fifty-move draws apply.
    pub draw_rule: DrawRule,
    /// What an illegal move costs.
    pub illegal: IllegalRule,
    /// Whether a supervisor is at the console: then an illegal move under
    /// [`IllegalRule::Fault`] and a player's `sign_off` pause the game for a decision.
    #[serde(default)]
    pub attended: bool,
    /// The rate of each port's line, when the referee knows it: then a slow line costs
    /// nobody thinking time (profile section 6).
    #[serde(default)]
    pub wire: WireTiming,
    /// The players belong to an event that outlives this match (`argus serve`'s players
    /// that connect over TCP): they are signed on from the start, the first game begins
    /// at once, and the match ends after its last `conclude` without `disconnect`, which
    /// the event sends when it ends.
    #[serde(default)]
    pub hosted: bool,
    /// How far past its time each port's player may answer and not lose on time
    /// (`argus serve`'s `timemargin=MS`, cutechess-cli's): the overshoot is forgiven,
    /// its clock standing at zero before the increment. Zero for both by default.
    #[serde(default, skip_serializing_if = "no_margin")]
    pub time_margin: [Duration; 2],
    /// A time control of its own for a port's player (time odds, `argus serve`'s
    /// per-engine `tc=`), instead of `time_control`.
    #[serde(default, skip_serializing_if = "no_odds")]
    pub time_odds: [Option<TimeControl>; 2],
    /// Keep each reply's analysis value by value and give the game's moves with its
    /// report ([`GameReport::detail`]): for records the referee does not write itself,
    /// such as fastchess's PGN under `argus fastchess`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_info: bool,
    /// The variant the games are played in (Chess960: castling by its rules, positions
    /// in X-FEN, the PGN's `Variant` tag, `reset` saying so).
    #[serde(default, skip_serializing_if = "crate::core::Variant::is_standard")]
    pub variant: crate::core::Variant,
}

/// Whether neither port has a time control of its own.
fn no_odds(odds: &[Option<TimeControl>; 2]) -> bool {
    odds.iter().all(Option::is_none)
}

/// Whether neither port has a time margin (the journals of matches without one stay
/// as they were).
fn no_margin(margin: &[Duration; 2]) -> bool {
    margin.iter().all(Duration::is_zero)
}

/// What the referee knows of its lines' speed, for the clocks (profile section 6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireTiming {
    /// The time one byte takes on port A's and port B's line (start, data, parity and
    /// stop bits at the line's rate); `None` where the rate is unknown (a pty without an
    /// explicit rate) or compensation is off.
    pub byte_time: [Option<Duration>; 2],
    /// The bytes of the end of line the referee writes: 1 for LF, 2 for CR LF. A
    /// player's terminator is counted as one byte.
    pub eol_bytes: u8,
}

impl Default for WireTiming {
    fn default() -> WireTiming {
        WireTiming {
            byte_time: [None, None],
            eol_bytes: 1,
        }
    }
}

impl WireTiming {
    /// How long `bytes` bytes take on `port`'s line; zero when the rate is unknown.
    pub fn time(&self, port: Port, bytes: usize) -> Duration {
        self.byte_time[port.index()].map_or(Duration::ZERO, |t| {
            t.saturating_mul(u32::try_from(bytes).unwrap_or(u32::MAX))
        })
    }
}

/// An error in a [`MatchConfig`].
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// An opening is not a legal chess position.
    #[error("opening {index} ({fen}) is not a playable position: {reason}")]
    BadOpening {
        /// The opening's index, from 1.
        index: usize,
        /// The opening as given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An opening has no legal move, so no game could be played from it.
    #[error("opening {index} ({fen}) is already over")]
    FinishedOpening {
        /// The opening's index, from 1.
        index: usize,
        /// The opening as given.
        fen: String,
    },
    /// A port's own time control (time odds) does not go with the other's: one timed
    /// and one not, or an hourglass (shared sand) against anything but itself.
    #[error("time odds: {white} against {black} cannot be played (both timed, no hourglass)")]
    BadOdds {
        /// Port a's time control.
        white: String,
        /// Port b's.
        black: String,
    },
    /// A duration in the configuration is beyond any a match can use (an edited or
    /// corrupted journal: the command line and event files cannot give one).
    #[error("{what} of {value:?} is out of range (at most {max:?})")]
    OutOfRange {
        /// What it is.
        what: &'static str,
        /// Its value.
        value: Duration,
        /// The largest allowed.
        max: Duration,
    },
}

/// An input of the referee: something that happened, and when.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A line arrived on a port; `at` is when its terminator was read. `bytes` has no
    /// terminator and may hold anything (noise is the referee's to judge).
    Line {
        /// The port.
        port: Port,
        /// When the terminator arrived.
        at: Duration,
        /// The line, without its terminator.
        bytes: Vec<u8>,
        /// The record `bytes` was written from, when an in-process client hands it over
        /// (`argus serve`'s local engines): `Record::from_ascii(bytes)` reads it back as
        /// it is, so the referee takes it rather than reading the line again. The
        /// journal keeps the line alone, and a replay reads it.
        record: Option<Box<Record>>,
    },
    /// The oldest line sent on `port` and not yet drained has fully left the output.
    Drained {
        /// The port.
        port: Port,
        /// When the drain completed.
        at: Duration,
    },
    /// The driver woke the referee because of [`Referee::poll_timeout`](super::Referee::poll_timeout).
    Timeout {
        /// The moment.
        at: Duration,
    },
    /// The port failed or vanished.
    PortLost {
        /// The port.
        port: Port,
        /// When it was noticed.
        at: Duration,
    },
    /// The port is open again.
    PortBack {
        /// The port.
        port: Port,
        /// When it was reopened.
        at: Duration,
        /// Over a new connection (a player that connected again): nothing sent before
        /// reached it or will, so nothing sent before is waited for.
        fresh: bool,
    },
    /// The match ends early as an older argus ended it at an interrupt: the game in
    /// progress unterminated (`*`), then `disconnect`. Only journals written before
    /// the stop became a pause hold it; replaying them needs it.
    Shutdown {
        /// When.
        at: Duration,
    },
    /// The referee stops to be resumed later (an interrupt, a service manager's stop, a
    /// lost terminal): the clocks stop, both players get `fault` with a `c0` reason
    /// (which keeps their clients waiting), and once it has drained the session ends
    /// with [`Output::Stopped`]. The match is not over: a resume goes on from here.
    Stop {
        /// When.
        at: Duration,
    },
    /// The supervisor's command.
    Supervisor {
        /// When it was typed.
        at: Duration,
        /// The command.
        command: Command,
    },
    /// A new referee process took over this match from the journal of one that died.
    /// Its time axis continues the dead one's from its last journaled moment, so the
    /// outage is charged to nobody.
    Resume {
        /// The last moment of the dead referee (the first of the new one).
        at: Duration,
    },
}

impl Input {
    /// When the input happened.
    pub fn at(&self) -> Duration {
        match *self {
            Input::Line { at, .. }
            | Input::Drained { at, .. }
            | Input::Timeout { at }
            | Input::PortLost { at, .. }
            | Input::PortBack { at, .. }
            | Input::Shutdown { at }
            | Input::Stop { at }
            | Input::Resume { at }
            | Input::Supervisor { at, .. } => at,
        }
    }
}

/// A finished game, as the record keeper needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    /// The game's number, from 1.
    pub number: u32,
    /// The name of White.
    pub white: String,
    /// The name of Black.
    pub black: String,
    /// The result.
    pub result: GameResult,
    /// The PGN Termination.
    pub termination: Termination,
    /// Why, in a sentence.
    pub reason: String,
    /// The game in PGN export format, ready to append to the PGN file.
    pub pgn: String,
    /// How White and Black used their time (engine testers look here for broken time
    /// management).
    pub time_use: [TimeUse; 2],
    /// The game move by move, when the match keeps it ([`MatchConfig::keep_info`]).
    pub detail: Option<Box<GameDetail>>,
}

/// A finished game move by move, for records written outside the referee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameDetail {
    /// The PGN's tags, as its own PGN has them (Termination and PlyCount included).
    pub tags: Vec<(String, String)>,
    /// The position it started from.
    pub start: shakmaty::Chess,
    /// Its moves, each with the mover's analysis ([`crate::core::MoveInfo`]).
    pub moves: Vec<crate::core::game::PlayedMove>,
}

/// How one side used its time in a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeUse {
    /// The moves it made.
    pub moves: u32,
    /// The time charged for them, in all.
    pub thinking: Duration,
    /// Its time left at the end (`None` when untimed).
    pub left: Option<Duration>,
    /// Moves that took longer than the time it had left: forgiven by a time margin, or
    /// its flag fell.
    pub overshoots: u32,
    /// When its flag fell: how long its last turn ran past its time.
    pub overrun: Option<Duration>,
}

/// Something people watching the referee may want to know. Notices are not part of the
/// record: the journal and the PGN are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A player signed on.
    SignedOn {
        /// Its port.
        port: Port,
        /// The name it gave, if any.
        name: Option<String>,
    },
    /// A player signed off.
    SignedOff {
        /// Its port.
        port: Port,
    },
    /// A game started.
    GameStarted {
        /// Its number.
        number: u32,
        /// White's name.
        white: String,
        /// Black's name.
        black: String,
        /// The position it starts from (FEN).
        fen: String,
        /// White's and Black's time at the start, when timed.
        clocks: [Option<Duration>; 2],
        /// The time control, as the PGN's TimeControl tag.
        time_control: String,
    },
    /// A move was played.
    Moved {
        /// The game's number.
        number: u32,
        /// The move's fullmove number.
        fullmove: u32,
        /// The mover.
        color: Color,
        /// The move in SAN.
        san: String,
        /// The time charged for it.
        emt: Duration,
        /// White's and Black's time left, when timed.
        remaining: [Option<Duration>; 2],
        /// The mover's own evaluation (`ce`, centipawns from its side), when it gave one.
        score: Option<i64>,
        /// The depth of its search (`acd`), when it gave one.
        depth: Option<i64>,
        /// Its principal variation from the position it moved in, in SAN (`pv`, or `pm`
        /// alone), cut at its first move that is not legal; empty when it gave none.
        pv: Vec<String>,
        /// The move's squares in UCI (`e2e4`, `e7e8q`), for a board to mark it.
        uci: String,
        /// The position after the move (a view writes its FEN: a game without one
        /// does not pay for it every ply).
        position: Chess,
    },
    /// A game ended.
    GameOver {
        /// Its number.
        number: u32,
        /// The result.
        result: GameResult,
        /// Why.
        reason: String,
    },
    /// A line was ignored as noise.
    Noise {
        /// Where it came from.
        port: Port,
        /// Why it was ignored.
        reason: String,
    },
    /// A second answer to a `respond` the player had answered already (it was sent the
    /// game again, after a resume or its own restart, while its first answer was on its
    /// way): ignored, and no noise.
    Repeated {
        /// The port.
        port: Port,
    },
    /// A reply that came when no game was being played: an answer on its way when its
    /// game ended (adjudicated, drawn by the rules, quit by the supervisor), ignored, and
    /// no noise.
    Late {
        /// The port.
        port: Port,
    },
    /// A reply was answered with the same `respond` again.
    Resent {
        /// The port.
        port: Port,
        /// Why.
        reason: String,
    },
    /// A player reported a fault: the supervisor should look.
    ClientFault {
        /// The port.
        port: Port,
        /// What the client said.
        reason: String,
    },
    /// A player lost records to noise and asked for them again (the checksum
    /// extension): they were sent again.
    Retransmit {
        /// The port.
        port: Port,
        /// The first record sent again.
        from: u64,
        /// How many.
        count: usize,
    },
    /// A player signed on during its game and is being resynchronised.
    Resync {
        /// The port.
        port: Port,
    },
    /// The game is paused: both clocks are stopped and records wait.
    Paused {
        /// Why.
        reason: String,
    },
    /// The clocks run again.
    Unpaused,
    /// The supervisor changed a clock (`clock a +60`).
    ClockChanged {
        /// The side whose clock changed.
        color: Color,
        /// By how much (milliseconds; negative takes time away).
        delta_ms: i64,
        /// The referee's answer, for the supervisor.
        text: String,
    },
    /// The referee is stopping to be resumed later: the clocks stand, the players are
    /// told with `fault`.
    Stopping {
        /// The game in progress, if any.
        game: Option<u32>,
    },
    /// The referee's answer to a supervisor's command, or where the match stands.
    Supervisor {
        /// The text.
        text: String,
    },
    /// The referee took over the match from a journal after a crash.
    Resumed {
        /// The game in progress, if any.
        game: Option<u32>,
    },
    /// The players signed on from each other's ports, by the names the event gives
    /// them: the names follow the players.
    CablesSwapped {
        /// The names of port a's and port b's players now.
        names: [String; 2],
    },
    /// A player signed on with a name the event gives neither port.
    UnknownName {
        /// The port.
        port: Port,
        /// The name it signed on with.
        name: String,
        /// The names the event gives ports a and b.
        given: [Option<String>; 2],
    },
    /// The referee's own record, sent on one port, came back on the other.
    OneCable,
    /// The referee's own record came back on the port it was sent on.
    LoopedBack {
        /// The port.
        port: Port,
    },
    /// A port failed or vanished.
    PortLost {
        /// The port.
        port: Port,
    },
    /// A port is back.
    PortBack {
        /// The port.
        port: Port,
    },
}

/// A clock reading for people, as the PGN `[%clk]` writes it; `-` when untimed.
pub(super) fn fmt_clock(d: Option<Duration>) -> String {
    d.map_or_else(|| "-".to_string(), pgn::format_clk)
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::SignedOn { port, name } => match name {
                Some(name) => write!(f, "port {port}: signed on as {name:?}"),
                None => write!(f, "port {port}: signed on"),
            },
            Notice::SignedOff { port } => write!(f, "port {port}: signed off"),
            Notice::GameStarted {
                number,
                white,
                black,
                ..
            } => write!(f, "game {number}: {white} (White) vs {black} (Black)"),
            Notice::Moved {
                number,
                fullmove,
                color,
                san,
                emt,
                remaining,
                ..
            } => {
                let dots = if *color == Color::White { "." } else { "..." };
                write!(
                    f,
                    "game {number}: {fullmove}{dots} {san:<8} {:>7}s   White {}  Black {}",
                    // Truncated to the millisecond, as the PGN's [%emt] is.
                    format!("{}.{:03}", emt.as_secs(), emt.subsec_millis()),
                    fmt_clock(remaining[0]),
                    fmt_clock(remaining[1])
                )
            }
            Notice::GameOver {
                number,
                result,
                reason,
            } => write!(f, "game {number}: {result} ({reason})"),
            Notice::Noise { port, reason } => write!(f, "port {port}: noise ignored: {reason}"),
            Notice::Repeated { port } => write!(
                f,
                "port {port}: a second answer to a respond already answered, ignored"
            ),
            Notice::Late { port } => {
                write!(f, "port {port}: a reply after its game ended, ignored")
            }
            Notice::Resent { port, reason } => {
                write!(f, "port {port}: respond sent again: {reason}")
            }
            Notice::ClientFault { port, reason } => {
                write!(f, "port {port}: the player reports a fault: {reason}")
            }
            Notice::Retransmit { port, from, count } => write!(
                f,
                "port {port}: the player lost records to noise; {count} sent again from #{from}"
            ),
            Notice::Resync { port } => {
                write!(
                    f,
                    "port {port}: signed on again during its game (its client restarted): sending it the game so far"
                )
            }
            Notice::Resumed { game: Some(n) } => write!(
                f,
                "resumed game {n} from the journal; both players are resynchronised, the outage is charged to nobody"
            ),
            Notice::Resumed { game: None } => write!(f, "resumed the match from the journal"),
            Notice::Paused { reason } => write!(
                f,
                "paused ({reason}): clocks stopped; type resume, adjudicate, restart or abort"
            ),
            Notice::Unpaused => write!(f, "resumed: the clocks run again"),
            Notice::ClockChanged { text, .. } => f.write_str(text),
            Notice::Stopping { game: Some(n) } => write!(
                f,
                "stopping: game {n} stands as it is, clocks stopped; the players are told to wait for the resume"
            ),
            Notice::Stopping { game: None } => {
                write!(f, "stopping: the players are told to wait for the resume")
            }
            Notice::Supervisor { text } => f.write_str(text),
            Notice::CablesSwapped { names } => write!(
                f,
                "the cables are swapped: the player the event gives port b signed on at port a, and the other way round; argus follows the players: port a is {:?}, port b is {:?}",
                names[0], names[1]
            ),
            Notice::UnknownName { port, name, given } => {
                let show = |n: &Option<String>| {
                    n.as_deref()
                        .map_or("(none)".to_string(), |n| format!("{n:?}"))
                };
                write!(
                    f,
                    "port {port}: signed on as {name:?}, a name the event gives neither port (a: {}, b: {}); check the cables",
                    show(&given[0]),
                    show(&given[1])
                )
            }
            Notice::OneCable => write!(
                f,
                "ports a and b are the two ends of one cable: argus's record sent on one came back on the other; give argus one end of each player's cable"
            ),
            Notice::LoopedBack { port } => write!(
                f,
                "port {port}: argus's own record came back on it: the line loops back (a loopback plug, or the wrong port)"
            ),
            Notice::PortLost { port } => write!(f, "port {port}: line lost, reopening"),
            Notice::PortBack { port } => write!(f, "port {port}: line back"),
        }
    }
}

/// An output of the referee, drained with [`Referee::poll_output`](super::Referee::poll_output).
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Send this line (without terminator) on `port`. Each one is answered by exactly one
    /// [`Input::Drained`] once it has left.
    Send {
        /// The port.
        port: Port,
        /// The EPD record.
        line: String,
        /// The record `line` was written from, when the port's records are handed over
        /// ([`super::Referee::hand_over_records`]); `Record::from_ascii(line)` reads it
        /// back as it is.
        record: Option<Box<Record>>,
    },
    /// A game ended; its record is ready.
    GameOver(GameReport),
    /// Something worth showing to people.
    Notice(Notice),
    /// The match is over: every game played and `disconnect` drained on both ports.
    MatchOver,
    /// The session is over but the match is not: after [`Input::Stop`], the `fault`
    /// records have drained (or their grace ran out). A resume goes on from here.
    Stopped,
}
