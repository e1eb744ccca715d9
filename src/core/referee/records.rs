//! The records the referee sends, and the game's record: tags, `inform`, `respond`,
//! `fault`, and the PGN of a game (its pieces over a record and a position alone are
//! in `build.rs`).

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode};

use super::build::{REFCOM, command_record, number_ops, record};
use super::{Current, Referee};
use crate::core::game::GameResult;
use crate::core::opening::Opening;
use crate::core::pgn;
use crate::core::pgn::{PgnGame, PgnMove};
use crate::epd::{Clock, Operand, Record};
use shakmaty::Position;

impl Referee {
    pub(super) fn tags(&self, cur: &Current) -> Vec<(String, String)> {
        let result = cur
            .finish
            .as_ref()
            .map_or(GameResult::Unknown, |f| f.result)
            .to_string();
        let round = self
            .cfg
            .round
            .clone()
            .unwrap_or_else(|| cur.number.to_string());
        let mut tags: Vec<(String, String)> = vec![
            ("Event".into(), self.cfg.event.clone()),
            ("Site".into(), self.cfg.site.clone()),
            ("Date".into(), self.cfg.date.clone()),
            ("Round".into(), round),
            ("White".into(), cur.name_of(Color::White).to_string()),
            ("Black".into(), cur.name_of(Color::Black).to_string()),
            ("Result".into(), result),
        ];
        // The match's time control (the profile's TimeControl tag); with time odds,
        // each side's own too, as cutechess-cli names them (longer than an EPD
        // identifier: such an inform only reaches argus's own clients, as only engines
        // argus starts get odds).
        tags.push(("TimeControl".into(), self.cfg.time_control.to_string()));
        let [white_tc, black_tc] = [cur.white, cur.white.other()].map(|p| self.tc_of(p));
        if white_tc != black_tc {
            tags.push(("WhiteTimeControl".into(), white_tc.to_string()));
            tags.push(("BlackTimeControl".into(), black_tc.to_string()));
        }
        if let Some(variant) = self.cfg.variant.pgn_tag() {
            tags.push(("Variant".into(), variant.into()));
        }
        if *cur.game.start() != Chess::default() || !self.cfg.variant.is_standard() {
            tags.push(("SetUp".into(), "1".into()));
            tags.push((
                "FEN".into(),
                Fen::from_position(cur.game.start(), EnPassantMode::Always).to_string(),
            ));
        }
        // The names the openings book gives the start position (Opening, ECO, ...).
        if let Some(opening) = self.opening_of(cur.number) {
            tags.extend(opening.tags.iter().cloned());
        }
        tags
    }

    /// The opening game `number` (from 1) starts from, when the match has openings.
    fn opening_of(&self, number: u32) -> Option<&Opening> {
        let openings = &self.cfg.openings;
        let index = (number.saturating_sub(1) / 2) as usize;
        openings.get(index.checked_rem(openings.len())?)
    }

    /// The `reset` of game `cur`: its start position, and in a Chess960 match
    /// `variant chess960` (an argus extension: the client reads the position and its
    /// castling by Chess960's rules).
    pub(super) fn reset_record(&self, cur: &Current) -> Record {
        let mut rec = record(cur.game.start(), "reset");
        if !self.cfg.variant.is_standard() {
            rec.set(
                "variant",
                [Operand::Identifier(self.cfg.variant.to_string().into())],
            );
        }
        rec
    }

    pub(super) fn inform_record(&self, cur: &Current) -> Record {
        let mut operands = Vec::new();
        for (name, value) in self.tags(cur) {
            operands.push(Operand::Identifier(name.into()));
            operands.push(Operand::lossy_string(&value));
        }
        let mut rec = record(cur.game.position(), "inform");
        rec.set("ptp", operands);
        rec
    }

    pub(super) fn respond_record(cur: &Current) -> Record {
        let game = &cur.game;
        let (pos, sm) = match game.last_move() {
            Some(m) => (&m.before, Some(crate::epd::san_text(m.san))),
            None => (game.position(), None),
        };
        let mut rec = record(pos, "respond");
        number_ops(&mut rec, pos);
        let consumed =
            |c| Operand::Clock(Clock::from_duration_truncated(game.clocks().consumed(c)));
        rec.set("cc", [consumed(Color::White), consumed(Color::Black)]);
        if let Some(sm) = sm {
            rec.set("sm", [Operand::Move(sm)]);
        }
        if cur.offer.is_some() {
            rec.set("draw_offer", []);
        }
        rec
    }

    pub(super) fn fault_record(pos: &Chess, reason: &str) -> Record {
        command_record(pos, REFCOM, "fault", Some(reason))
    }
}

impl Current {
    /// `tags` with the finished game's Termination and PlyCount after them.
    pub(super) fn end_tags(&self, mut tags: Vec<(String, String)>) -> Vec<(String, String)> {
        let finish = self.finish.as_ref().expect("a finished game");
        tags.push(("Termination".into(), finish.termination.to_string()));
        tags.push(("PlyCount".into(), self.game.moves().len().to_string()));
        tags
    }

    /// The game's PGN, with `tags` and its Termination and PlyCount.
    pub(super) fn pgn(&self, tags: Vec<(String, String)>) -> String {
        let cur = self;
        let finish = cur.finish.as_ref().expect("a finished game");
        let tags = cur.end_tags(tags);
        const RESUMED: &str = "the referee restarted here; the outage was charged to nobody";
        let moves = cur
            .game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut comment = pgn::move_comment(m.analysis.as_deref(), m.remaining, m.emt);
                if cur.resumed_after.contains(&(i + 1)) {
                    comment.push(' ');
                    comment.push_str(RESUMED);
                }
                for (_, fault) in cur.faults.iter().filter(|(at, _)| *at == i + 1) {
                    comment.push(' ');
                    comment.push_str(&fault.replace('}', ")"));
                }
                let mut san = String::with_capacity(8);
                m.san.append_to_string(&mut san);
                PgnMove {
                    san,
                    comment: Some(comment),
                }
            })
            .collect();
        let mut final_comment = finish.reason.clone();
        for (_, fault) in cur.faults.iter().filter(|(at, _)| *at == 0).rev() {
            let fault = fault.replace('}', ")");
            final_comment = format!("Before the first move, {fault}. {final_comment}");
        }
        if cur.resumed_after.contains(&0) {
            final_comment = format!("{RESUMED} before the first move. {final_comment}");
        }
        pgn::write_game(&PgnGame {
            tags,
            start_turn: cur.game.start().turn(),
            start_fullmove: cur.game.start().fullmoves().get(),
            moves,
            final_comment: Some(final_comment),
            result: finish.result.to_string(),
        })
    }
}
