//! A knockout event (`--format knockout`) on the event's thread: the bracket
//! ([`Knockout`], pure) moves with each game that ends, and the games it adds (a
//! tie-break pair, the next round) go to `event.jsonl` at once, after the game's line:
//! `{"round":1,"pairings":[...],"byes":[...]}` for a round,
//! `{"round":1,"tiebreak":[...],"between":[0,3]}` for a tie-break pair.
//!
//! `--resume` plays the journal's results through a new bracket in the order they came
//! ([`Knockout::replay`]), which makes the same games with the same numbers; a batch the
//! journal lacks (the event stopped between a game's line and its batch's) is written
//! then.

use crate::core::game::GameResult;
use crate::tournament::{Batch, BatchKind, Knockout};

use super::files::EventJournal;
use super::{ServeConfig, ServeError};

/// The journal line of a batch.
pub(super) fn batch_line(batch: &Batch) -> serde_json::Value {
    match &batch.kind {
        BatchKind::Round { byes } => serde_json::json!({
            "round": batch.round,
            "pairings": batch.games,
            "byes": byes,
        }),
        BatchKind::Tiebreak { first, second } => serde_json::json!({
            "round": batch.round,
            "tiebreak": batch.games,
            "between": [first, second],
        }),
    }
}

/// Whether a journal line is a knockout's batch.
fn is_batch(line: &serde_json::Value) -> bool {
    line.get("pairings").is_some() || line.get("tiebreak").is_some()
}

/// The results of the journal's lines in their order: a game's number and its result
/// (None for a game that could not be played).
fn results(lines: &[serde_json::Value]) -> Vec<(u32, Option<GameResult>)> {
    lines
        .iter()
        .skip(1)
        .filter_map(super::resume::game_line)
        .collect()
}

/// The knockout of the event whose journal's lines are `lines`, rebuilt; the batches
/// the journal lacks are written to it.
pub(super) fn rebuild(
    cfg: &ServeConfig,
    lines: &[serde_json::Value],
    journal: &mut EventJournal,
) -> Result<Knockout, ServeError> {
    let (knockout, batches) = Knockout::replay(
        cfg.players.len(),
        cfg.games,
        cfg.openings.len(),
        results(lines),
    );
    let recorded = lines.iter().skip(1).filter(|l| is_batch(l)).count();
    for batch in batches.iter().skip(recorded) {
        journal.write(&batch_line(batch))?;
    }
    if recorded > batches.len() {
        log::warn!(
            "event.jsonl: {recorded} knockout batches recorded, {} made again from the results",
            batches.len()
        );
    }
    Ok(knockout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_results_are_read_in_the_journal_order() {
        let lines: Vec<serde_json::Value> = [
            r#"{"event":"serve"}"#,
            r#"{"round":1,"pairings":[]}"#,
            r#"{"game":2,"result":"1-0"}"#,
            r#"{"game":1,"failed":"no engine"}"#,
            r#"{"seat":1,"player":0,"name":"Ann"}"#,
            r#"{"game":3,"result":"*"}"#,
        ]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        assert_eq!(
            results(&lines),
            [
                (2, Some(GameResult::WhiteWins)),
                (1, None),
                (3, Some(GameResult::Unknown))
            ]
        );
        assert_eq!(lines.iter().filter(|l| is_batch(l)).count(), 1);
    }
}
