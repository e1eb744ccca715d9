//! The records the referee sends, and the game's record: tags, `inform`, `respond`,
//! `fault`, the analysis on a reply in SAN, and the PGN of a game.

use super::*;

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
        if *cur.game.start() != Chess::default() {
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

/// The opcode of the referee's commands (`refcom reset`).
pub const REFCOM: &str = "refcom";

/// A record of `pos` that says `command` under `opcode` ([`REFCOM`], or `refreq` for a
/// client's requests), with `reason` in `c0` when given: the referee's records and those
/// the listener of `argus serve` sends before a game are built here. The en passant
/// field names the square after every double pawn push (EPD spec 4.4).
pub fn command_record(pos: &Chess, opcode: &str, command: &str, reason: Option<&str>) -> Record {
    let mut rec = Record::new(Epd::from_position(pos, EnPassantMode::Always));
    rec.set(opcode, [Operand::Identifier(command.into())]);
    if let Some(reason) = reason {
        rec.set("c0", [Operand::lossy_string(reason)]);
    }
    rec
}

/// A record of `pos` with the given `refcom`.
pub(super) fn record(pos: &Chess, refcom: &str) -> Record {
    command_record(pos, REFCOM, refcom, None)
}

pub(super) fn number_ops(rec: &mut Record, pos: &Chess) {
    rec.set("fmvn", [Operand::Integer(i64::from(pos.fullmoves().get()))]);
    rec.set("hmvc", [Operand::Integer(i64::from(pos.halfmoves()))]);
}

pub(super) fn text_operand(rec: &Record, opcode: &str) -> Option<String> {
    let ops = rec.operands(opcode)?;
    let parts: Vec<String> = ops
        .iter()
        .map(|op| op.as_str().map_or_else(|| op.to_string(), str::to_string))
        .collect();
    Some(parts.join(" "))
}

/// Whether the four data fields of `epd` describe `pos`. The en passant field is
/// compared by effect: a square where no en passant capture is legal equals `-`.
pub(super) fn same_position(pos: &Chess, epd: &Epd) -> bool {
    let setup = epd.clone().into_setup();
    let legal_ep = pos.ep_square(EnPassantMode::Legal);
    let claimed_ep = setup.ep_square.filter(|sq| Some(*sq) == legal_ep);
    setup.board == *pos.board()
        && setup.turn == pos.turn()
        && setup.castling_rights == pos.castles().castling_rights()
        && claimed_ep == legal_ep
}

/// The mover's analysis from a reply, in the form engine testers read in PGN comments:
/// the score and depth (`ce`, `acd`) as `+0.35/12`, the time (`acs`) as `1s`, the
/// nodes (`acn`) as `15400n`, then `pv ...` (or `pm ...`) in canonical SAN from `pos`,
/// the reply's position (see [`san_line`]), and the `c0` comment.
#[cfg(test)]
pub(super) fn analysis_text(rec: &Record, pos: &Chess) -> Option<String> {
    let pv = rec.operands("pv").map(|ops| san_line(pos, ops));
    analysis_text_with(rec, pos, pv.as_deref())
}

/// `analysis_text` with the `pv`'s moves in SAN ([`san_line`]) already made, when the
/// record has one: the referee makes them once for the move's notice and its comment.
pub(super) fn analysis_text_with(
    rec: &Record,
    pos: &Chess,
    pv: Option<&[String]>,
) -> Option<String> {
    let first = |op: &str| rec.operands(op).and_then(|o| o.first());
    let int = |op: &str| first(op).and_then(Operand::as_integer);
    // The parts are written straight into one string, each after a space but the
    // first, as joining them would (a reply is commented every ply).
    let mut text = String::with_capacity(128);
    let mut parts = 0usize;
    let mut next_part = |text: &mut String| {
        if parts > 0 {
            text.push(' ');
        }
        parts += 1;
    };
    if let Some(ce) = int("ce") {
        // The score as PGN readers take it (`[%eval]`, from White's side), then as
        // cutechess writes it (the mover's side, its depth).
        next_part(&mut text);
        text.push_str("[%eval ");
        crate::core::pgn::push_eval(&mut text, ce, pos.turn() == shakmaty::Color::Black);
        text.push(']');
        next_part(&mut text);
        match crate::core::pgn::mate_moves(ce) {
            Some(n) if ce > 0 => {
                text.push_str("+M");
                push_int(&mut text, n);
            }
            Some(n) => {
                text.push_str("-M");
                push_int(&mut text, -n);
            }
            None => crate::core::pgn::push_pawns(&mut text, ce, true),
        }
        if let Some(depth) = int("acd") {
            text.push('/');
            push_int(&mut text, depth);
        }
    }
    if let Some(secs) = int("acs") {
        next_part(&mut text);
        push_int(&mut text, secs);
        text.push('s');
    }
    if let Some(nodes) = int("acn") {
        next_part(&mut text);
        push_int(&mut text, nodes);
        text.push('n');
    }
    // `op` and its moves in SAN, when at least one of them is legal; whether it was.
    let moves = |text: &mut String, op: &str, sep: bool| {
        // pm has one operand; a second one is not read.
        let Some(ops) = rec.operands(op) else {
            return false;
        };
        let ops = if op == "pm" {
            &ops[..ops.len().min(1)]
        } else {
            ops
        };
        let mark = text.len();
        if sep {
            text.push(' ');
        }
        text.push_str(op);
        let count = match pv {
            Some(sans) if op == "pv" => {
                for san in sans {
                    text.push(' ');
                    text.push_str(san);
                }
                sans.len()
            }
            _ => push_san_line(text, pos, ops),
        };
        if count == 0 {
            text.truncate(mark);
            return false;
        }
        true
    };
    let sep = parts > 0;
    if moves(&mut text, "pv", sep) || moves(&mut text, "pm", sep) {
        parts += 1;
    }
    if let Some(comment) = first("c0").and_then(Operand::as_str) {
        if parts > 0 {
            text.push(' ');
        }
        parts += 1;
        text.push_str(comment);
    }
    (parts > 0).then_some(text)
}

/// Appends `n` in decimal.
fn push_int(out: &mut String, n: i64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends ` SAN` to `out` for each move of `ops` that [`san_line`] would give, without
/// a string for each; returns how many.
fn push_san_line(out: &mut String, pos: &Chess, ops: &[Operand]) -> usize {
    let mut pos = pos.clone();
    let mut count = 0;
    for op in ops {
        let Some(text) = op.as_move_text() else {
            break;
        };
        let Ok(m) = resolve_move(&pos, text) else {
            break;
        };
        out.push(' ');
        crate::epd::play_san(&mut pos, m).append_to_string(out);
        count += 1;
    }
    count
}

/// The moves of a `pv` (or the one of a `pm`), played in turn from `pos`, the position
/// of the record that carries them (EPD spec 6.19 and 6.21), in canonical SAN with
/// their check and mate marks. Each is read as an `sm` is ([`resolve_move`]: SAN with
/// or without its marks, `0-0`, `e8Q`, coordinates), and the line stops before the
/// first move that is unreadable, illegal or ambiguous there: what is kept is always a
/// legal sequence.
pub(super) fn san_line(pos: &Chess, ops: &[Operand]) -> Vec<String> {
    let mut pos = pos.clone();
    let mut sans = Vec::new();
    for op in ops {
        let Some(text) = op.as_move_text() else {
            break;
        };
        let Ok(m) = resolve_move(&pos, text) else {
            break;
        };
        sans.push(crate::epd::play_san(&mut pos, m).to_string());
    }
    sans
}

pub(super) fn game_pgn(cur: &Current, mut tags: Vec<(String, String)>) -> String {
    let finish = cur.finish.as_ref().expect("a finished game");
    tags.push(("Termination".into(), finish.termination.to_string()));
    tags.push(("PlyCount".into(), cur.game.moves().len().to_string()));
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
