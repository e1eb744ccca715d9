//! The building blocks of the records the referee sends and reads, over an EPD record
//! and a position alone: a command record (`refcom`, and a client's `refreq`), the move
//! numbers, a text operand, a position compared with a record's, and a reply's analysis
//! with its moves in SAN.

use shakmaty::fen::Epd;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::epd::{Operand, Record, resolve_move};

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
