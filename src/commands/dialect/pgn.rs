//! fastchess's PGN, for `-pgnout` under `argus fastchess`: its tags in its order, its
//! move comments (`{+0.23/12 0.069s, n=56184, sd=16, line="..."}`, with the extras
//! `-pgnout` asks for: `tl=`, `latency=`, `n=`, `sd=`, `nps=`, `hashfull=`, `tbhits=`,
//! `pv="..."`, and the engine lines `match_line=` keeps), the reason after the last
//! move, its moves in SAN, LAN or UCI, lines of whole moves up to 80 characters, and
//! `-pgnout min=true`'s bare game. OpenBench's worker reads these comments back field
//! by field (its `pgn_util.py`).
//!
//! The event's own `games.pgn` stays argus's; this copy is made from the game's moves
//! and the engines' analysis, value by value, that the referee keeps for it
//! ([`argus::core::GameDetail`]); its times are when this process printed the game's
//! start and end. fastchess's `ECO` and `Opening` tags are not written
//! (docs/fastchess.md).

use argus::cli::dialect::PgnOut;
use argus::core::game::{PlayedMove, Termination};
use argus::core::{GameDetail, GameReport};
use shakmaty::san::{San, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Color, Move, Position, Role};

/// How moves are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Notation {
    San,
    Lan,
    Uci,
}

/// What the copy's comments hold, as `-pgnout` asks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PgnStyle {
    pub(super) notation: Option<Notation>,
    pub(super) min: bool,
    pub(super) timeleft: bool,
    pub(super) latency: bool,
    pub(super) nodes: bool,
    pub(super) seldepth: bool,
    pub(super) nps: bool,
    pub(super) hashfull: bool,
    pub(super) tbhits: bool,
    pub(super) pv: bool,
}

impl PgnStyle {
    /// The style `-pgnout`'s words ask for.
    pub(super) fn of(out: &PgnOut) -> PgnStyle {
        let has = |key: &str| out.extras.iter().any(|k| k == key);
        PgnStyle {
            notation: Some(match out.notation.as_str() {
                "lan" => Notation::Lan,
                "uci" => Notation::Uci,
                _ => Notation::San,
            }),
            min: out.min,
            timeleft: has("timeleft"),
            latency: has("latency"),
            nodes: has("nodes"),
            seldepth: has("seldepth"),
            nps: has("nps"),
            hashfull: has("hashfull"),
            tbhits: has("tbhits"),
            pv: has("pv"),
        }
    }
}

/// The `-pgnout` file, opened for appending when it is first written and kept open.
#[derive(Default)]
pub(super) struct Appender(Option<std::fs::File>);

impl Appender {
    /// Appends `text` to the file at `path` (created if need be).
    pub(super) fn append(&mut self, path: &std::path::Path, text: &str) -> std::io::Result<()> {
        use std::io::Write as _;
        let file = match &mut self.0 {
            Some(file) => file,
            None => self.0.insert(
                std::fs::File::options()
                    .create(true)
                    .append(true)
                    .open(path)?,
            ),
        };
        file.write_all(text.as_bytes())
    }
}

/// When a game started and ended, by the wall clock (UTC), as this process saw it.
pub(super) type Times = (time::OffsetDateTime, time::OffsetDateTime);

/// Game `report` as fastchess writes it, `reason` its fastchess reason, `times` when
/// it started and ended if known; argus's own PGN of it when the referee kept no detail
/// (a game finished before a resume).
pub(super) fn game(
    report: &GameReport,
    reason: &str,
    times: Option<Times>,
    style: &PgnStyle,
) -> String {
    match &report.detail {
        Some(detail) => write(detail, &report.result.to_string(), reason, times, style),
        None => report.pgn.clone(),
    }
}

/// A moment as fastchess's time tags write it: `2026-11-28T22:01:34 +0000`.
fn stamp(t: time::OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02} +0000",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// A duration as fastchess's GameDuration writes it: `00:01:05`.
fn hms(d: time::Duration) -> String {
    let s = d.whole_seconds().max(0);
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn write(
    detail: &GameDetail,
    result: &str,
    reason: &str,
    times: Option<Times>,
    style: &PgnStyle,
) -> String {
    let tag = |name: &str| {
        detail
            .tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let mut out = String::with_capacity(512 + 96 * detail.moves.len());
    let mut header = |name: &str, value: Option<&str>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            out.push_str(&format!("[{name} \"{value}\"]\n"));
        }
    };
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        header(name, tag(name));
    }
    header("Result", Some(result));
    if let Some(fen) = tag("FEN") {
        header("SetUp", Some("1"));
        header("FEN", Some(fen));
    }
    header("Variant", tag("Variant"));
    let castling = if tag("Variant").is_some() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    if !style.min {
        if let Some((start, end)) = times {
            header("GameDuration", Some(&hms(end - start)));
            header("GameStartTime", Some(&stamp(start)));
            header("GameEndTime", Some(&stamp(end)));
        }
        header("PlyCount", Some(&detail.moves.len().to_string()));
        header("Termination", tag("Termination").map(termination));
        header("TimeControl", tag("TimeControl"));
    }
    out.push('\n');
    let mut line = 0usize;
    let mut append = |out: &mut String, text: &str| {
        if line > 0 && line + text.len() + 1 > 80 {
            out.push('\n');
            line = 0;
        }
        if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(text);
        line += text.len();
    };
    let last = detail.moves.len().saturating_sub(1);
    for (i, m) in detail.moves.iter().enumerate() {
        let mut unit = String::with_capacity(96);
        let number = m.before.fullmoves().get();
        if m.color() == Color::White {
            unit.push_str(&format!("{number}. "));
        } else if i == 0 {
            unit.push_str(&format!("{number}... "));
        }
        unit.push_str(&notation(
            m,
            style.notation.unwrap_or(Notation::San),
            castling,
        ));
        if !style.min {
            unit.push_str(" {");
            unit.push_str(&comment(m, style, (i == last).then_some(reason), castling));
            unit.push('}');
        }
        append(&mut out, &unit);
    }
    append(&mut out, result);
    out.push_str("\n\n");
    out
}

/// fastchess's Termination for argus's.
fn termination(argus: &str) -> &str {
    if argus == Termination::RulesInfraction.to_string() {
        "illegal move"
    } else {
        argus
    }
}

/// The move `m` as `notation` writes it (UCI's castling as `castling` says).
fn notation(m: &PlayedMove, notation: Notation, castling: CastlingMode) -> String {
    let mut text = String::with_capacity(8);
    if notation == Notation::San {
        m.san.append_to_string(&mut text);
        return text;
    }
    let Ok(mv) = m.san.san.to_move(&m.before) else {
        m.san.append_to_string(&mut text);
        return text;
    };
    match notation {
        Notation::Uci => UciMove::from_move(mv, castling).append_to_string(&mut text),
        _ => lan(&mut text, mv, m.san.suffix),
    }
    text
}

/// `mv` in fastchess's long algebraic notation: `Ng1f3`, `e4xd5`, `e7e8=Q`, `O-O`, with
/// SAN's check or mate mark.
fn lan(text: &mut String, mv: Move, suffix: Option<Suffix>) {
    match mv {
        Move::Castle { king, rook } => {
            text.push_str(if rook.file() > king.file() {
                "O-O"
            } else {
                "O-O-O"
            });
        }
        _ => {
            if mv.role() != Role::Pawn {
                text.push(mv.role().upper_char());
            }
            if let Some(from) = mv.from() {
                text.push_str(&from.to_string());
            }
            if mv.is_capture() {
                text.push('x');
            }
            text.push_str(&mv.to().to_string());
            if let Some(role) = mv.promotion() {
                text.push('=');
                text.push(role.upper_char());
            }
        }
    }
    if let Some(suffix) = suffix {
        text.push(suffix.char());
    }
}

/// The comment after move `m`, with `reason` after the last move.
fn comment(
    m: &PlayedMove,
    style: &PgnStyle,
    reason: Option<&str>,
    castling: CastlingMode,
) -> String {
    let none = argus::core::MoveInfo::default();
    let info = m.info.as_deref().unwrap_or(&none);
    let ms = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
    let emt = ms(m.emt);
    let mut parts = vec![format!(
        "{}/{} {}",
        info.ce.map(score).unwrap_or_default(),
        info.depth.unwrap_or(0),
        seconds(emt)
    )];
    let mut part = |on: bool, text: String| {
        if on {
            parts.push(text);
        }
    };
    part(
        style.timeleft,
        format!("tl={}", seconds(m.remaining.map_or(0, ms))),
    );
    part(
        style.latency,
        format!("latency={}", seconds(emt - info.time_ms.unwrap_or(0))),
    );
    part(style.nodes, format!("n={}", info.nodes.unwrap_or(0)));
    part(style.seldepth, format!("sd={}", info.seldepth.unwrap_or(0)));
    part(style.nps, format!("nps={}", info.nps.unwrap_or(0)));
    part(
        style.hashfull,
        format!("hashfull={}", info.hashfull.unwrap_or(0)),
    );
    part(style.tbhits, format!("tbhits={}", info.tbhits.unwrap_or(0)));
    part(
        style.pv,
        format!("pv=\"{}\"", uci_line(m, &info.pv, castling)),
    );
    if !info.lines.is_empty() {
        let lines: Vec<String> = info.lines.iter().map(|l| format!("line=\"{l}\"")).collect();
        parts.push(lines.join(", "));
    }
    if let Some(reason) = reason.filter(|r| !r.is_empty()) {
        parts.push(reason.to_string());
    }
    parts.join(", ")
}

/// A score in EPD's `ce` as fastchess writes it: pawns with two decimals and a sign
/// (`+0.23`, `-1.05`, `0.00`), a mate as its plies (`+M3`: mates with its second
/// move; `-M2`: mated after the opponent's).
fn score(ce: i64) -> String {
    if ce > 32_000 {
        format!("+M{}", 32_767 - ce)
    } else if ce < -32_000 {
        format!("-M{}", 32_767 + ce)
    } else {
        let sign = match ce.signum() {
            1 => "+",
            -1 => "-",
            _ => "",
        };
        let a = ce.abs();
        format!("{sign}{}.{:02}", a / 100, a % 100)
    }
}

/// Milliseconds as fastchess writes a time: seconds with three decimals, `s`.
fn seconds(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let a = ms.unsigned_abs();
    format!("{sign}{}.{:03}s", a / 1000, a % 1000)
}

/// The PV `sans` (SAN from `m`'s position, `m` first) in UCI, up to its first move that
/// does not read.
fn uci_line(m: &PlayedMove, sans: &[String], castling: CastlingMode) -> String {
    let mut pos = m.before.clone();
    let mut words = Vec::with_capacity(sans.len());
    for text in sans {
        let Some(mv) = text
            .parse::<San>()
            .ok()
            .and_then(|san| san.to_move(&pos).ok())
        else {
            break;
        };
        words.push(UciMove::from_move(mv, castling).to_string());
        pos.play_unchecked(mv);
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus::core::MoveInfo;
    use argus::core::game::Game;
    use shakmaty::Chess;
    use std::time::Duration;

    /// Scholar's mate, 60 ms a move on 1+0.01, White's first move analysed.
    fn scholars_mate() -> GameDetail {
        let mut game = Game::new(Chess::default(), &"1+0.01".parse().unwrap());
        for (i, uci) in ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
            .iter()
            .enumerate()
        {
            let mv = uci
                .parse::<UciMove>()
                .unwrap()
                .to_move(game.position())
                .unwrap();
            game.play(mv, Duration::from_millis(60), None);
            if i == 0 {
                game.keep_info(MoveInfo {
                    ce: Some(35),
                    depth: Some(12),
                    nodes: Some(15400),
                    seldepth: Some(17),
                    time_ms: Some(58),
                    pv: vec!["e4".into(), "e5".into()],
                    lines: vec!["info string pgncomment hi".into()],
                    ..MoveInfo::default()
                });
            }
        }
        let tags = [
            ("Event", "E"),
            ("Site", "?"),
            ("Date", "2026.11.28"),
            ("Round", "1"),
            ("White", "A"),
            ("Black", "B"),
            ("Result", "1-0"),
            ("PlyCount", "7"),
            ("Termination", "normal"),
            ("TimeControl", "1+0.01"),
        ];
        GameDetail {
            tags: tags
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            start: Chess::default(),
            moves: game.moves().to_vec(),
        }
    }

    #[test]
    fn a_game_reads_as_fastchess_writes_it() {
        let style = PgnStyle {
            nodes: true,
            seldepth: true,
            latency: true,
            pv: true,
            ..PgnStyle::default()
        };
        let text = write(&scholars_mate(), "1-0", "White mates", None, &style);
        assert_eq!(
            text,
            "[Event \"E\"]\n[Site \"?\"]\n[Date \"2026.11.28\"]\n[Round \"1\"]\n\
             [White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[PlyCount \"7\"]\n\
             [Termination \"normal\"]\n[TimeControl \"1+0.01\"]\n\n\
             1. e4 {+0.35/12 0.060s, latency=0.002s, n=15400, sd=17, pv=\"e2e4 e7e5\", line=\"info string pgncomment hi\"}\n\
             e5 {/0 0.060s, latency=0.060s, n=0, sd=0, pv=\"\"}\n\
             2. Qh5 {/0 0.060s, latency=0.060s, n=0, sd=0, pv=\"\"}\n\
             Nc6 {/0 0.060s, latency=0.060s, n=0, sd=0, pv=\"\"}\n\
             3. Bc4 {/0 0.060s, latency=0.060s, n=0, sd=0, pv=\"\"}\n\
             Nf6 {/0 0.060s, latency=0.060s, n=0, sd=0, pv=\"\"}\n\
             4. Qxf7# {/0 0.060s, latency=0.060s, n=0, sd=0, pv=\"\", White mates} 1-0\n\n"
        );
    }

    #[test]
    fn lan_uci_and_min_write_the_moves_bare_or_long() {
        let min = PgnStyle {
            notation: Some(Notation::Uci),
            min: true,
            ..PgnStyle::default()
        };
        let text = write(&scholars_mate(), "1-0", "White mates", None, &min);
        assert!(
            text.ends_with(
                "[Result \"1-0\"]\n\n1. e2e4 e7e5 2. d1h5 b8c6 3. f1c4 g8f6 4. h5f7 1-0\n\n"
            ),
            "{text}"
        );
        let lan = PgnStyle {
            notation: Some(Notation::Lan),
            min: true,
            ..PgnStyle::default()
        };
        let text = write(&scholars_mate(), "1-0", "White mates", None, &lan);
        assert!(
            text.contains("1. e2e4 e7e5 2. Qd1h5 Nb8c6 3. Bf1c4 Ng8f6 4. Qh5xf7# 1-0"),
            "{text}"
        );
    }

    #[test]
    fn scores_read_as_fastchess_writes_them() {
        assert_eq!(score(23), "+0.23");
        assert_eq!(score(-105), "-1.05");
        assert_eq!(score(0), "0.00");
        assert_eq!(score(-7), "-0.07");
        // Mate in 2 moves (3 plies); mated in 1 move (2 plies).
        assert_eq!(score(32_767 - 3), "+M3");
        assert_eq!(score(-32_767 + 2), "-M2");
        assert_eq!(seconds(69), "0.069s");
        assert_eq!(seconds(12_345), "12.345s");
        assert_eq!(seconds(-3), "-0.003s");
    }
}
