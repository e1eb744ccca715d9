//! The games of the round as one PGN file that grows as moves arrive: `/live.pgn`, in
//! the form broadcasters poll (lichess's broadcasts among them): every game with its
//! tags, `*` until it has a result, and after each move its mover's evaluation as
//! `[%eval ...]` (from White's side, in pawns, `#N`/`#-N` for a mate) and its clock as
//! `[%clk h:mm:ss]`.

use super::live::GameView;

/// The PGN of `games`, for event `event` at `site`.
///
/// # Examples
///
/// ```
/// use argus::watch::live::{GameView, MoveView};
/// let game = GameView {
///     number: 1, round: 1, round_tag: "1".into(), white: "Ann".into(), black: "Bob".into(),
///     time_control: "60".into(),
///     start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
///     fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
///     moves: vec![MoveView { san: "e4".into(), uci: "e2e4".into(), emt_ms: 1500,
///         clocks_ms: [Some(58_500), Some(60_000)], score: None, depth: None, pv: vec![] }],
///     clocks_ms: [Some(58_500), Some(60_000)], running: Some("b"), at_ms: 0,
///     result: None, reason: None,
/// };
/// let pgn = argus::watch::pgn::live_pgn(&[game], "Club night", "Hall");
/// assert!(pgn.contains("[White \"Ann\"]\n"));
/// assert!(pgn.contains("\n1. e4 { [%clk 0:00:58.5] } *\n"));
/// ```
pub fn live_pgn(games: &[GameView], event: &str, site: &str) -> String {
    let mut out = String::new();
    for game in games {
        let result = game.result.as_deref().unwrap_or("*");
        let mut tags = vec![
            ("Event", event.to_string()),
            ("Site", site.to_string()),
            ("Round", game.round_tag.clone()),
            ("Board", game.number.to_string()),
            ("White", game.white.clone()),
            ("Black", game.black.clone()),
            ("Result", result.to_string()),
            ("TimeControl", game.time_control.clone()),
        ];
        let standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        if game.start_fen != standard {
            tags.push(("SetUp", "1".into()));
            tags.push(("FEN", game.start_fen.clone()));
        }
        for (name, value) in tags {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            out.push_str(&format!("[{name} \"{value}\"]\n"));
        }
        out.push('\n');
        let black_first = game.start_fen.split_whitespace().nth(1) == Some("b");
        let fullmove: u32 = game
            .start_fen
            .split_whitespace()
            .nth(5)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let mut text = String::new();
        for (i, mv) in game.moves.iter().enumerate() {
            let ply = i + usize::from(black_first);
            let number = fullmove as usize + ply / 2;
            if ply % 2 == 0 {
                text.push_str(&format!("{number}. "));
            } else if i == 0 {
                text.push_str(&format!("{number}... "));
            }
            text.push_str(&mv.san);
            let mover = ply % 2;
            let mut comment = Vec::new();
            if let Some(score) = mv.score {
                comment.push(format!("[%eval {}]", eval(score, mover == 1)));
            }
            if let Some(left) = mv.clocks_ms[mover] {
                comment.push(format!("[%clk {}]", clock(left)));
            }
            if !comment.is_empty() {
                text.push_str(&format!(" {{ {} }}", comment.join(" ")));
            }
            text.push(' ');
        }
        text.push_str(result);
        out.push_str(&wrap(&text));
        out.push_str("\n\n");
    }
    out
}

/// A score as `[%eval]` writes it (the same as the event's PGN).
pub use crate::core::pgn::eval;

/// `h:mm:ss`, with tenths when there are any.
fn clock(ms: u64) -> String {
    let (h, m, s, tenths) = (
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000 / 100,
    );
    if tenths == 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{h}:{m:02}:{s:02}.{tenths}")
    }
}

/// Movetext in lines of at most 79 characters, broken between tokens and never inside
/// a comment.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    let mut comment = false;
    let mut token = String::new();
    for c in text.chars() {
        token.push(c);
        match c {
            '{' => comment = true,
            '}' => comment = false,
            ' ' if !comment => {
                if line.len() + token.len() > 80 && !line.is_empty() {
                    out.push_str(line.trim_end());
                    out.push('\n');
                    line.clear();
                }
                line.push_str(&token);
                token.clear();
            }
            _ => {}
        }
    }
    if line.len() + token.len() > 80 && !line.is_empty() {
        out.push_str(line.trim_end());
        out.push('\n');
        line.clear();
    }
    line.push_str(&token);
    out.push_str(line.trim_end());
    out
}
