//! The checks fastchess makes of an engine's principal variations, for matches run under
//! its command line (`argus fastchess`): every PV of a search is played out from the
//! position, and a move that is illegal (any move after mate or stalemate among them) or
//! goes on after a threefold repetition or the fifty-move rule is reported; with
//! `-check-mate-pvs`, a mate score's PV must be as long as the mate and end in it; the
//! `bestmove` must be the last PV's first move. Each finding is one line, worded as
//! fastchess words it (fishtest's worker fails a run on these words), logged to
//! [`TARGET`].

use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::client::Turn;

/// The log target of the findings: `argus fastchess` prints them on standard output as
/// fastchess does; elsewhere they are warnings.
pub const TARGET: &str = "argus::engine_check";

/// Which checks an engine's searches get, and the name they are reported under.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct PvCheck {
    /// The engine's name in the findings (the player's).
    pub name: String,
    /// Mate scores' PVs too (`-check-mate-pvs`).
    pub mates: bool,
    /// The parts of a finding are joined by ` :: ` (fastchess's `-testEnv`) rather than
    /// put on lines of their own.
    pub one_line: bool,
    /// Each move's latency logged (fastchess's `-show-latency`): the time its search
    /// took as measured here less what the engine said it took, at level info to
    /// [`LATENCY_TARGET`].
    #[serde(default)]
    pub latency: bool,
}

/// An option an engine declares (`option name N type T [default D] [min A] [max B]
/// [var V]...`), as far as fastchess checks a value against it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Declared {
    name: String,
    kind: String,
    min: Option<i64>,
    max: Option<i64>,
    vars: Vec<String>,
}

/// The option an `option` line declares.
pub(super) fn declared(line: &str) -> Option<Declared> {
    let rest = line.trim().strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ")?;
    let mut words = rest.split_whitespace();
    let kind = words.next()?.to_string();
    let mut out = Declared {
        name: name.trim().to_string(),
        kind,
        min: None,
        max: None,
        vars: Vec::new(),
    };
    let rest: Vec<&str> = words.collect();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "min" => out.min = rest.get(i + 1).and_then(|v| v.parse().ok()),
            "max" => out.max = rest.get(i + 1).and_then(|v| v.parse().ok()),
            "var" => out.vars.extend(rest.get(i + 1).map(|v| (*v).to_string())),
            _ => {}
        }
        i += 1;
    }
    Some(out)
}

/// What is sent for option `name` set to `value` under fastchess's rules, or the
/// finding when it is not sent: an option the engine does not declare, a value its
/// declaration does not allow; a button only when the value is `true`.
pub(super) fn setoption(
    check: &PvCheck,
    options: &[Declared],
    name: &str,
    value: &str,
) -> Result<Option<String>, String> {
    let Some(option) = options.iter().find(|o| o.name.eq_ignore_ascii_case(name)) else {
        return Err(format!(
            "Warning; {} doesn't have option {name}",
            check.name
        ));
    };
    let valid = match option.kind.as_str() {
        "spin" => value.parse::<i64>().is_ok_and(|v| {
            option.min.is_none_or(|min| v >= min) && option.max.is_none_or(|max| v <= max)
        }),
        "check" => value == "true" || value == "false",
        "combo" => option.vars.iter().any(|v| v == value),
        _ => true,
    };
    if !valid {
        return Err(format!("Warning; Invalid value for option {name}; {value}"));
    }
    Ok(match option.kind.as_str() {
        "button" if value == "true" => Some(format!("setoption name {name}")),
        "button" => None,
        _ => Some(format!("setoption name {name} value {value}")),
    })
}

/// The log target of the latency lines.
pub const LATENCY_TARGET: &str = "argus::engine_latency";

/// The `time` (milliseconds) of the last `info` line that says one.
pub(super) fn reported_time(infos: &[String]) -> Option<u64> {
    infos.iter().rev().find_map(|line| {
        let mut words = line.split_whitespace();
        words.find(|w| *w == "time")?;
        words.next()?.parse().ok()
    })
}

/// The Zobrist keys of the positions of a turn's game from the last irreversible move
/// on, the position to move from last; kept from turn to turn of one game
/// ([`Turn::history`]), so that a turn adds only the moves since the last one rather
/// than playing the whole game again.
#[derive(Debug, Default)]
pub(super) struct History {
    /// The game the keys are of (0: none yet, or one that cannot be extended).
    id: u64,
    /// How many of its moves were played.
    moves: usize,
    /// The position after them.
    pos: Option<Chess>,
    /// The keys since the last irreversible move.
    keys: Vec<u64>,
}

impl History {
    /// The keys of `turn`'s game.
    pub(super) fn keys(&mut self, turn: &Turn<'_>) -> &[u64] {
        let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let extends =
            turn.history != 0 && turn.history == self.id && turn.moves.len() >= self.moves;
        let (mut pos, from) = match self.pos.take() {
            Some(pos) if extends => (pos, self.moves),
            _ => {
                self.keys.clear();
                self.keys.push(key(turn.start));
                (turn.start.clone(), 0)
            }
        };
        self.id = turn.history;
        self.moves = turn.moves.len();
        for &m in &turn.moves[from..] {
            if !pos.is_legal(m) {
                // Not a game to extend: the next turn starts again.
                self.id = 0;
                return &self.keys;
            }
            if m.is_zeroing() {
                self.keys.clear();
            }
            pos.play_unchecked(m);
            self.keys.push(key(&pos));
        }
        self.pos = Some(pos);
        &self.keys
    }
}

/// The keys of `turn`'s game from its start (what [`History::keys`] keeps).
#[cfg(test)]
pub(super) fn history(turn: &Turn<'_>) -> Vec<u64> {
    History::default().keys(turn).to_vec()
}

/// What fastchess's finding says after its first line: the info line, the game's start
/// and its moves, from the `position` command sent.
fn context(check: &PvCheck, info: &str, position_command: &str) -> String {
    let sep = if check.one_line { " :: " } else { "\n" };
    let position = position_command
        .strip_prefix("position ")
        .unwrap_or(position_command);
    let (start, moves) = position.split_once(" moves ").unwrap_or((position, ""));
    format!("{sep}Info; {info}{sep}Position; {start}{sep}Moves; {moves}")
}

/// The moves of an `info` line's `pv`.
fn pv_of(info: &str) -> Option<Vec<&str>> {
    let mut words = info.split_whitespace();
    words.find(|w| *w == "pv")?;
    let pv: Vec<&str> = words.collect();
    (!pv.is_empty()).then_some(pv)
}

/// Whether the line's score is a bound (`lowerbound`, `upperbound`).
fn is_bound(info: &str) -> bool {
    info.split_whitespace()
        .any(|w| w == "lowerbound" || w == "upperbound")
}

/// The line's `score mate N`.
fn mate_of(info: &str) -> Option<i64> {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.windows(2).position(|w| w == ["score", "mate"])?;
    words.get(at + 2)?.parse().ok()
}

/// The findings of one `info` line of the search from `turn`'s position, `keys` its
/// game's history.
pub(super) fn check_info(
    check: &PvCheck,
    turn: &Turn<'_>,
    keys: &[u64],
    position_command: &str,
    info: &str,
) -> Option<String> {
    let pv = pv_of(info)?;
    let mut pos = turn.position.clone();
    let mut keys = keys.to_vec();
    let name = &check.name;
    for text in &pv {
        // As fastchess plays a PV out: after mate or stalemate no move is legal; a move
        // that is legal after a threefold repetition or the fifty-move rule continues a
        // game that has ended.
        let legal = pos.legal_moves();
        let over = legal.is_empty();
        let repeated = keys
            .last()
            .is_some_and(|k| keys.iter().filter(|x| *x == k).count() >= 3);
        let drawn = if pos.halfmoves() >= 100 {
            Some("fifty-move rule")
        } else if repeated {
            Some("threefold repetition")
        } else {
            None
        };
        let mv = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .filter(|m| !over && legal.contains(m));
        let warning = match (mv, drawn) {
            (None, _) => format!("Warning; Illegal PV move - move {text} from {name}"),
            (Some(_), Some(end)) => {
                format!("Warning; PV continues after {end} - move {text} from {name}")
            }
            (Some(mv), None) => {
                if mv.is_zeroing() {
                    keys.clear();
                }
                pos.play_unchecked(mv);
                keys.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
                continue;
            }
        };
        return Some(warning + &context(check, info, position_command));
    }
    if !check.mates || is_bound(info) {
        return None;
    }
    let mate = mate_of(info)?;
    let plies = if mate > 0 { mate * 2 - 1 } else { mate * -2 };
    let len = pv.len() as i64;
    let warning = if len < plies {
        format!("Warning; Incomplete mating PV - from {name}")
    } else if len > plies {
        format!("Warning; Too long mating PV - from {name}")
    } else if !pos.legal_moves().is_empty() || !pos.is_check() {
        format!("Warning; Mating PV does not end with checkmate - from {name}")
    } else {
        return None;
    };
    Some(warning + &context(check, info, position_command))
}

/// The finding when `best` is not the first move of the last PV of the search: its last
/// `info` line with a score (of `multipv 1` or none), when that line has a PV and is not
/// a bound.
pub(super) fn check_bestmove(
    check: &PvCheck,
    infos: &[String],
    position_command: &str,
    best: &str,
) -> Option<String> {
    let last = infos
        .iter()
        .rev()
        .find(|l| !l.contains(" multipv ") || l.contains(" multipv 1 "))?;
    if is_bound(last) {
        return None;
    }
    let pv = pv_of(last)?;
    (pv[0] != best).then(|| {
        format!(
            "Warning; Bestmove does not match beginning of last PV - move {best} from {}{}",
            check.name,
            context(check, last, position_command)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn check(mates: bool) -> PvCheck {
        PvCheck {
            name: "E".into(),
            mates,
            one_line: true,
            latency: false,
        }
    }

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    fn run(fen: &str, info: &str, mates: bool) -> Option<String> {
        let pos = position(fen);
        let turn = Turn {
            position: &pos,
            start: &pos,
            moves: &[],
            history: 0,
            clocks: None,
            draw_offered: false,
        };
        let keys = history(&turn);
        check_info(
            &check(mates),
            &turn,
            &keys,
            &format!("position fen {fen}"),
            info,
        )
    }

    #[test]
    fn the_history_kept_from_turn_to_turn_is_the_game_played_again() {
        let start = Chess::default();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let mut kept = History::default();
        // Knights out and back (a repetition), then a pawn move that starts it again.
        for uci in [
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "e7e5", "f3e5", "b8c6",
        ] {
            let m: shakmaty::Move = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
            moves.push(m);
            let turn = Turn {
                position: &pos,
                start: &start,
                moves: &moves,
                history: 7,
                clocks: None,
                draw_offered: false,
            };
            assert_eq!(kept.keys(&turn), history(&turn).as_slice(), "{uci}");
        }
        // Another game under the same history starts again when it is no extension.
        let turn = Turn {
            position: &start,
            start: &start,
            moves: &[],
            history: 8,
            clocks: None,
            draw_offered: false,
        };
        assert_eq!(kept.keys(&turn).len(), 1);
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // White mates in one with Qh5xf7 (scholar's mate).
    const SCHOLAR: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

    #[test]
    fn a_sound_pv_passes_and_an_illegal_move_is_named() {
        assert_eq!(
            run(START, "info depth 2 score cp 20 pv e2e4 e7e5", false),
            None
        );
        let finding = run(START, "info depth 2 score cp 20 pv e2e4 e2e4", false).unwrap();
        assert_eq!(
            finding,
            format!(
                "Warning; Illegal PV move - move e2e4 from E :: Info; info depth 2 score cp 20 pv e2e4 e2e4 :: Position; fen {START} :: Moves; "
            )
        );
    }

    #[test]
    fn a_pv_past_mate_and_mate_scores_are_checked() {
        // fastchess 1.8.1 finds no legal move after mate, so a move there is illegal.
        let after = run(SCHOLAR, "info depth 3 score mate 1 pv h5f7 e8e7", false).unwrap();
        assert!(
            after.starts_with("Warning; Illegal PV move - move e8e7 from E"),
            "{after}"
        );
        assert_eq!(
            run(SCHOLAR, "info depth 1 score mate 1 pv h5f7", true),
            None
        );
        assert!(
            run(START, "info depth 1 score mate 1 pv e2e4 e7e5", true)
                .unwrap()
                .starts_with("Warning; Too long mating PV - from E")
        );
        assert!(
            run(SCHOLAR, "info depth 1 score mate 3 pv h5f7", true)
                .unwrap()
                .starts_with("Warning; Incomplete mating PV - from E")
        );
        assert!(
            run(SCHOLAR, "info depth 1 score mate 1 pv c4b5", true)
                .unwrap()
                .starts_with("Warning; Mating PV does not end with checkmate - from E")
        );
        // Without -check-mate-pvs, and for a bound, mate PVs are not measured.
        assert_eq!(
            run(SCHOLAR, "info depth 1 score mate 3 pv h5f7", false),
            None
        );
        assert_eq!(
            run(
                SCHOLAR,
                "info depth 1 score mate 3 lowerbound pv h5f7",
                true
            ),
            None
        );
    }

    #[test]
    fn options_are_checked_against_the_engines_declarations() {
        let options: Vec<Declared> = [
            "option name Hash type spin default 16 min 1 max 33554432",
            "option name Ponder type check default false",
            "option name Clear Hash type button",
            "option name Style type combo default Normal var Solid var Normal var Risky",
            "option name EvalFile type string default nn.nnue",
        ]
        .iter()
        .filter_map(|l| declared(l))
        .collect();
        let c = check(false);
        let set = |n: &str, v: &str| setoption(&c, &options, n, v);
        assert_eq!(
            set("Hash", "64").unwrap().as_deref(),
            Some("setoption name Hash value 64")
        );
        assert_eq!(
            set("Hash", "0").unwrap_err(),
            "Warning; Invalid value for option Hash; 0"
        );
        assert_eq!(
            set("Threads", "1").unwrap_err(),
            "Warning; E doesn't have option Threads"
        );
        assert!(set("Ponder", "maybe").is_err());
        assert_eq!(
            set("Clear Hash", "true").unwrap().as_deref(),
            Some("setoption name Clear Hash")
        );
        assert_eq!(set("Clear Hash", "false").unwrap(), None);
        assert!(set("Style", "Risky").is_ok() && set("Style", "Wild").is_err());
        assert!(set("EvalFile", "x.nnue").is_ok());
    }

    #[test]
    fn bestmove_must_begin_the_last_pv() {
        let infos = vec![
            "info depth 1 score cp 10 pv d2d4".to_string(),
            "info depth 2 score cp 12 pv e2e4 e7e5".to_string(),
        ];
        assert_eq!(
            check_bestmove(&check(false), &infos, "position startpos", "e2e4"),
            None
        );
        // A last score line without a PV says nothing of the bestmove, as in fastchess.
        let mut without = infos.clone();
        without.push("info depth 3 score cp 12 nodes 100".to_string());
        assert_eq!(
            check_bestmove(&check(false), &without, "position startpos", "d2d4"),
            None
        );
        assert_eq!(
            check_bestmove(&check(false), &infos, "position startpos", "d2d4").unwrap(),
            "Warning; Bestmove does not match beginning of last PV - move d2d4 from E :: Info; info depth 2 score cp 12 pv e2e4 e7e5 :: Position; startpos :: Moves; "
        );
    }
}
