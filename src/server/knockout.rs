//! A knockout event (`--format knockout`) on the event's thread: the bracket
//! ([`Knockout`], pure) moves with each game that ends, and the games it adds (a
//! tie-break pair, the next round) go to `event.jsonl` at once, after the game's line:
//! `{"byes":[...],"pairings":[...],"round":1}` for a round,
//! `{"between":[0,3],"round":1,"tiebreak":[...]}` for a tie-break pair (`event_log.rs`
//! writes them).
//!
//! `--resume` plays the journal's results through a new bracket in the order they came
//! ([`Knockout::replay`]), which makes the same games with the same numbers; a batch the
//! journal lacks (the event stopped between a game's line and its batch's) is written
//! then.

use crate::core::game::GameResult;
use crate::tournament::Knockout;

use super::error::ServeError;
use super::event_log::{Entry, EventJournal, Line};
use super::settings::ServeConfig;

/// The results of the journal's lines in their order: a game's number and its result
/// (None for a game that could not be played).
fn results(entries: &[Entry]) -> Vec<(u32, Option<GameResult>)> {
    entries.iter().filter_map(Entry::game).collect()
}

/// The knockout of the event whose journal's lines say `entries`, rebuilt; the batches
/// the journal lacks are written to it.
pub(super) fn rebuild(
    cfg: &ServeConfig,
    entries: &[Entry],
    journal: &mut EventJournal,
) -> Result<Knockout, ServeError> {
    let (knockout, batches) = Knockout::replay(
        cfg.players.len(),
        cfg.games,
        cfg.openings.len(),
        results(entries),
    );
    let recorded = entries.iter().filter(|e| e.is_batch()).count();
    for batch in batches.iter().skip(recorded) {
        journal.write(&Line::batch(batch))?;
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
        let entries: Vec<Entry> = [
            r#"{"round":1,"pairings":[]}"#,
            r#"{"game":2,"result":"1-0"}"#,
            r#"{"game":1,"failed":"no engine"}"#,
            r#"{"seat":1,"player":0,"name":"Ann"}"#,
            r#"{"game":3,"result":"*"}"#,
        ]
        .iter()
        .map(|l| Entry::of(&serde_json::from_str(l).unwrap()))
        .collect();
        assert_eq!(
            results(&entries),
            [
                (2, Some(GameResult::WhiteWins)),
                (1, None),
                (3, Some(GameResult::Unknown))
            ]
        );
        assert_eq!(entries.iter().filter(|e| e.is_batch()).count(), 1);
    }
}
