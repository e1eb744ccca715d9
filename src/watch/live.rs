//! The games in progress as the views show them: one model fed by the referees'
//! notices, read by the supervisor's terminal view and the audience's web page alike,
//! for one game (`argus serial`) or many (`argus serve`).
//!
//! [`Live`] keeps, for each game of the round, its players, its start position and
//! current position, its moves in SAN with the engines' evaluations, depths and PVs,
//! both clocks and its result; and the standings and a short log of what went wrong.
//! Every change is also an [`Update`]: a JSON object that subscribers receive as it
//! happens (the page's server-sent events), numbered, so that a view that missed some
//! can tell.
//!
//! A game's clocks are given as of the notice that changed them, with the side whose
//! clock runs and the wall-clock time of the notice: a view counts down between
//! updates by itself.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use serde::Serialize;
use shakmaty::Color;

use crate::core::Notice;
use crate::mediator::is_warning;

/// How many log lines a view is shown.
pub const LOG_LINES: usize = 50;
/// How many finished games of the round a view keeps beside the games under way: a
/// long event's memory does not grow with its games.
pub const FINISHED_KEPT: usize = 16;
/// How many updates a subscriber may fall behind before it is dropped (a page that
/// stops reading never holds up a game).
pub const SUBSCRIBER_QUEUE: usize = 1024;

/// The moves to mate of a score, as the views show it (`#5`, `-#3`).
pub use crate::core::pgn::mate_moves;

/// One move as the views show it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MoveView {
    /// The move in SAN.
    pub san: String,
    /// Its squares in UCI.
    pub uci: String,
    /// The time it took, in milliseconds.
    pub emt_ms: u64,
    /// White's and Black's time left after it, in milliseconds, when timed.
    pub clocks_ms: [Option<u64>; 2],
    /// The mover's evaluation in centipawns from its own side, its depth and PV.
    pub score: Option<i64>,
    /// Its search depth.
    pub depth: Option<i64>,
    /// Its principal variation in SAN.
    pub pv: Vec<String>,
}

/// One game as the views show it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GameView {
    /// The game's number in the event (or the match).
    pub number: u32,
    /// The round (1 in a match).
    pub round: u32,
    /// The round as the game's PGN Round tag gives it: `2.3` for the third encounter of
    /// round 2 when the round holds more than one (a round-robin's pairings), else the
    /// round alone.
    pub round_tag: String,
    /// White's and Black's names.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The time control, as the PGN's TimeControl tag.
    pub time_control: String,
    /// The position it started from, and the current one (FEN).
    pub start_fen: String,
    /// The current position.
    pub fen: String,
    /// Its moves.
    pub moves: Vec<MoveView>,
    /// White's and Black's time left, in milliseconds, as of `at_ms`.
    pub clocks_ms: [Option<u64>; 2],
    /// The side whose clock runs (`"w"` or `"b"`), None once the game is over.
    pub running: Option<&'static str>,
    /// When the clocks were read (milliseconds since the Unix epoch).
    pub at_ms: u64,
    /// The result (`1-0`, `0-1`, `1/2-1/2`), once it is known.
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
}

/// A change, as subscribers receive it: `{"seq":N,"type":...,...}`.
#[derive(Clone, Debug)]
pub struct Update {
    /// Its number, from 1, in the order of the changes.
    pub seq: u64,
    /// The JSON object.
    pub json: String,
}

#[derive(Default)]
struct State {
    seq: u64,
    games: BTreeMap<u32, GameView>,
    standings: Option<serde_json::Value>,
    log: VecDeque<String>,
    subscribers: Vec<Sender<Update>>,
    /// The side whose clock ran when its game was paused or stopped, by game.
    paused: BTreeMap<u32, &'static str>,
}

/// The model of the games in progress; see the module's documentation.
#[derive(Default)]
pub struct Live {
    state: Mutex<State>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "w",
        Color::Black => "b",
    }
}

impl GameView {
    /// Brings the clocks to `now`: the running clock loses the time since `at_ms`.
    fn clocks_as_of(&mut self, now: u64) {
        if let Some(side) = self.running {
            let i = usize::from(side == "b");
            let gone = now.saturating_sub(self.at_ms);
            self.clocks_ms[i] = self.clocks_ms[i].map(|c| c.saturating_sub(gone));
        }
        self.at_ms = now;
    }
}

impl Live {
    /// An empty model.
    pub fn new() -> Live {
        Live::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A notice from the referee of game `number` of `round` (a match's games are all
    /// of round 1), whose PGN Round tag is the round alone.
    pub fn notice(&self, number: u32, round: u32, notice: &Notice) {
        self.notice_in(number, round, &round.to_string(), notice);
    }

    /// A notice from the referee of game `number` of `round`, whose PGN Round tag is
    /// `round_tag` (`1.2`: the round's second encounter).
    pub fn notice_in(&self, number: u32, round: u32, round_tag: &str, notice: &Notice) {
        let mut state = self.state();
        match notice {
            Notice::GameStarted {
                white,
                black,
                fen,
                clocks,
                time_control,
                ..
            } => {
                let turn = fen.split_whitespace().nth(1).unwrap_or("w");
                let game = GameView {
                    number,
                    round,
                    round_tag: round_tag.to_string(),
                    white: white.clone(),
                    black: black.clone(),
                    time_control: time_control.clone(),
                    start_fen: fen.clone(),
                    fen: fen.clone(),
                    moves: Vec::new(),
                    clocks_ms: clocks.map(|c| c.map(ms)),
                    running: Some(if turn == "b" { "b" } else { "w" }),
                    at_ms: now_ms(),
                    result: None,
                    reason: None,
                };
                let json = serde_json::json!({ "type": "game", "game": game });
                // A game of a new round (or the next game of a match) clears the
                // finished games of the last one.
                if state.games.values().any(|g| g.round != round)
                    || state.games.contains_key(&number)
                {
                    state
                        .games
                        .retain(|n, g| *n != number && (g.round == round || g.result.is_none()));
                }
                state.games.insert(number, game);
                let finished: Vec<u32> = state
                    .games
                    .iter()
                    .filter(|(_, g)| g.result.is_some())
                    .map(|(n, _)| *n)
                    .collect();
                for n in finished
                    .iter()
                    .take(finished.len().saturating_sub(FINISHED_KEPT))
                {
                    state.games.remove(n);
                }
                publish(&mut state, json);
            }
            Notice::Moved {
                color,
                san,
                uci,
                position,
                emt,
                remaining,
                score,
                depth,
                pv,
                ..
            } => {
                let Some(game) = state.games.get_mut(&number) else {
                    return;
                };
                let mv = MoveView {
                    san: san.clone(),
                    uci: uci.clone(),
                    emt_ms: ms(*emt),
                    clocks_ms: remaining.map(|c| c.map(ms)),
                    score: *score,
                    depth: *depth,
                    pv: pv.clone(),
                };
                game.fen = crate::core::fen_text(position);
                game.clocks_ms = mv.clocks_ms;
                game.running = Some(side(!*color));
                game.at_ms = now_ms();
                game.moves.push(mv.clone());
                let json = serde_json::json!({
                    "type": "move",
                    "game": number,
                    "ply": game.moves.len(),
                    "move": mv,
                    "fen": game.fen,
                    "clocks_ms": game.clocks_ms,
                    "running": game.running,
                    "at_ms": game.at_ms,
                });
                publish(&mut state, json);
            }
            Notice::GameOver { result, reason, .. } => {
                let Some(game) = state.games.get_mut(&number) else {
                    return;
                };
                game.result = Some(result.to_string());
                game.reason = Some(reason.clone());
                game.running = None;
                game.at_ms = now_ms();
                let json = serde_json::json!({
                    "type": "over",
                    "game": number,
                    "result": game.result,
                    "reason": game.reason,
                    "clocks_ms": game.clocks_ms,
                });
                publish(&mut state, json);
            }
            // A pause (or a stop) stands the clocks; the end of the pause runs the
            // one that ran.
            Notice::Paused { .. } | Notice::Stopping { .. } => {
                let now = now_ms();
                let Some(game) = state.games.get_mut(&number) else {
                    return;
                };
                let Some(side) = game.running else {
                    return;
                };
                game.clocks_as_of(now);
                game.running = None;
                let json = clocks_json(number, game);
                state.paused.insert(number, side);
                publish(&mut state, json);
            }
            Notice::Unpaused => {
                let Some(side) = state.paused.remove(&number) else {
                    return;
                };
                let Some(game) = state.games.get_mut(&number) else {
                    return;
                };
                game.running = Some(side);
                game.at_ms = now_ms();
                let json = clocks_json(number, game);
                publish(&mut state, json);
            }
            // The supervisor gave or took time: the clocks as of now, as the event's
            // receivers count from its arrival.
            Notice::ClockChanged {
                color, delta_ms, ..
            } => {
                let Some(game) = state.games.get_mut(&number) else {
                    return;
                };
                game.clocks_as_of(now_ms());
                let i = usize::from(*color == Color::Black);
                game.clocks_ms[i] = game.clocks_ms[i].map(|c| c.saturating_add_signed(*delta_ms));
                let json = clocks_json(number, game);
                publish(&mut state, json);
            }
            other if is_warning(other) => {
                let line = format!("game {number}: {other}");
                state.log.push_back(line.clone());
                while state.log.len() > LOG_LINES {
                    state.log.pop_front();
                }
                publish(
                    &mut state,
                    serde_json::json!({ "type": "log", "text": line }),
                );
            }
            _ => {}
        }
    }

    /// The standings changed (`standings.json`'s object, or a match's score).
    pub fn standings(&self, standings: serde_json::Value) {
        let mut state = self.state();
        state.standings = Some(standings.clone());
        publish(
            &mut state,
            serde_json::json!({ "type": "standings", "standings": standings }),
        );
    }

    /// Every game of the round, by number.
    pub fn games(&self) -> Vec<GameView> {
        self.state().games.values().cloned().collect()
    }

    /// The standings as last given, if any.
    pub fn current_standings(&self) -> Option<serde_json::Value> {
        self.state().standings.clone()
    }

    /// One game.
    pub fn game(&self, number: u32) -> Option<GameView> {
        self.state().games.get(&number).cloned()
    }

    /// The whole model as one JSON object (`{"type":"snapshot",...}`) with the number
    /// of the last update it includes, and a receiver of the updates after it: a view
    /// that subscribes misses nothing and sees nothing twice.
    pub fn subscribe(&self) -> (String, Receiver<Update>) {
        let (tx, rx) = crossbeam_channel::bounded(SUBSCRIBER_QUEUE);
        let mut state = self.state();
        state.subscribers.push(tx);
        let snapshot = serde_json::json!({
            "type": "snapshot",
            "seq": state.seq,
            "games": state.games.values().collect::<Vec<_>>(),
            "standings": state.standings,
            "log": state.log,
            "now_ms": now_ms(),
        });
        (snapshot.to_string(), rx)
    }

    /// How many subscribers are attached.
    pub fn subscribers(&self) -> usize {
        self.state().subscribers.len()
    }
}

/// The event that says nothing changed for a while (`{"type":"heartbeat",...}`).
pub fn heartbeat() -> String {
    serde_json::json!({ "type": "heartbeat", "now_ms": now_ms() }).to_string()
}

/// A game's clocks changed without a move (a pause, its end): `{"type":"clocks",...}`.
fn clocks_json(number: u32, game: &GameView) -> serde_json::Value {
    serde_json::json!({
        "type": "clocks",
        "game": number,
        "clocks_ms": game.clocks_ms,
        "running": game.running,
        "at_ms": game.at_ms,
    })
}

/// Numbers `json`, and hands it to every subscriber; one that has fallen
/// [`SUBSCRIBER_QUEUE`] behind, or gone, is dropped.
fn publish(state: &mut State, mut json: serde_json::Value) {
    state.seq += 1;
    json["seq"] = serde_json::json!(state.seq);
    let update = Update {
        seq: state.seq,
        json: json.to_string(),
    };
    state
        .subscribers
        .retain(|tx| match tx.try_send(update.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                log::info!("a view fell behind the games; it is let go");
                false
            }
            Err(TrySendError::Disconnected(_)) => false,
        });
}

#[cfg(test)]
mod tests;
