//! What the CECP adapter reads and writes: an engine's lines classified, its thinking
//! output turned into EPD analysis, and the texts of `level`, `time` and `otim`.

use std::time::Duration;

use compact_str::ToCompactString;
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, File, Position, Rank, Square};
use smallvec::smallvec;

use crate::client::engine::{EngineError, Turn, TurnClocks};
use crate::epd::{Operand, Operands, resolve_move};

/// The type keywords of an `option` feature, which end the option's name.
pub(super) const OPTION_TYPES: &[&str] = &[
    "-button", "-save", "-reset", "-check", "-string", "-spin", "-combo", "-slider", "-file",
    "-path",
];

/// The largest score (in centipawns) reported as a plain score; larger ones that are not
/// recognised as mates are clamped to it, so that they never read as EPD mate scores.
pub(super) const MAX_PLAIN_SCORE: i64 = 30_000;

/// The EPD score of a mate in zero plies; a mate in `n` plies scores `MATE - n`.
pub(super) const MATE: i64 = 32_767;

/// One line of the engine's output, as far as the adapter cares.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Line {
    /// A move in one of the forms engines print; the text is the move alone.
    Move(String),
    /// A line of thinking output.
    Thinking(Thinking),
    /// `resign`.
    Resign,
    /// `offer draw`.
    OfferDraw,
    /// A game result the engine announces: `1-0`, `0-1`, `1/2-1/2` or `*`.
    Result(GameResult),
    /// `pong N`.
    Pong(u32),
    /// `feature ...`.
    Feature(Vec<(String, String)>),
    /// `Illegal move...`: the engine refused a move it was given.
    IllegalMove(String),
    /// `Error (...): COMMAND` or `Invalid move: COMMAND`: the engine refused a command;
    /// the text is the command.
    Error(String),
    /// Anything else: banners, debugging output, `tellics`, `telluser`.
    Other,
}

/// A result announced by the engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    Unknown,
}

/// A line of thinking output: `ply score time nodes pv...`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Thinking {
    /// The depth in plies.
    pub(super) ply: u32,
    /// The score in centipawns from the side to move's point of view, as printed.
    pub(super) score: i64,
    /// The time searched in centiseconds.
    pub(super) centis: u64,
    /// The nodes searched.
    pub(super) nodes: u64,
    /// The principal variation as printed.
    pub(super) pv: String,
}

/// Whether an error of [`EngineProcess::recv`](crate::client::engine_process::EngineProcess::recv) is a timeout (rather than an engine that
/// is gone).
pub(super) fn is_timeout(e: &EngineError) -> bool {
    matches!(e, EngineError::Timeout(_))
}

/// Whether `pos` is the standard starting position, which needs no `setboard`.
pub(super) fn is_standard_start(pos: &Chess) -> bool {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
        == Fen::from_position(&Chess::default(), EnPassantMode::Legal).to_string()
}

/// The moves the side to move made in the turn's history: the plies alternate sides
/// and end with the other side's, so it made half of them, rounded down.
pub(super) fn own_moves_played(turn: &Turn<'_>) -> u32 {
    u32::try_from(turn.moves.len() / 2).unwrap_or(u32::MAX)
}

/// The `level MPS BASE INC` command for `side` to move.
///
/// CECP engines count the moves of a period themselves, from the moves they were shown
/// since `new`, so MPS is the moves the side already made in the history plus its
/// `moves_to_go`: the engine then finds exactly `moves_to_go` moves left. It is 0 (all
/// the remaining moves) without a move count. BASE is the side's remaining time (the
/// engine learns the exact figure from `time`), INC its increment in seconds.
pub(super) fn level_command(clocks: &TurnClocks, side: Color, own_moves: u32) -> String {
    format!(
        "level {} {} {}",
        level_mps(clocks, own_moves),
        base_text(clocks.remaining[side]),
        seconds_text(clocks.increment[side])
    )
}

/// The MPS of `level` (see [`level_command`]): the same all through a period, since
/// the moves made grow as the moves to go shrink.
pub(super) fn level_mps(clocks: &TurnClocks, own_moves: u32) -> u32 {
    clocks
        .moves_to_go
        .map_or(0, |n| n.saturating_add(own_moves))
}

/// The castling rights an engine infers after `edit`: a king and a rook on their home
/// squares (e1 and a1 or h1, e8 and a8 or h8), as the rooks' squares.
pub(super) fn edit_castling(pos: &Chess) -> Bitboard {
    let board = pos.board();
    let mut rights = Bitboard::EMPTY;
    for (color, rank) in [(Color::White, Rank::First), (Color::Black, Rank::Eighth)] {
        if board.king_of(color) != Some(Square::from_coords(File::E, rank)) {
            continue;
        }
        for file in [File::A, File::H] {
            let square = Square::from_coords(file, rank);
            if board.piece_at(square) == Some(color.rook()) {
                rights.add(square);
            }
        }
    }
    rights
}

/// Castling rights (the rooks' squares) as FEN writes them: `KQkq`, `-` for none.
pub(super) fn castling_text(rights: Bitboard) -> String {
    let text: String = [
        (Square::H1, 'K'),
        (Square::A1, 'Q'),
        (Square::H8, 'k'),
        (Square::A8, 'q'),
    ]
    .iter()
    .filter(|(square, _)| rights.contains(*square))
    .map(|&(_, c)| c)
    .collect();
    if text.is_empty() {
        "-".to_string()
    } else {
        text
    }
}

/// A time as `level` reads its base: whole minutes, or `M:SS`; at least one second.
pub(super) fn base_text(time: Duration) -> String {
    let secs = time.as_secs().max(1);
    if secs.is_multiple_of(60) {
        format!("{}", secs / 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// A time in seconds, with up to three decimals when it is not whole.
pub(super) fn seconds_text(time: Duration) -> String {
    if time.subsec_millis() == 0 {
        format!("{}", time.as_secs())
    } else {
        let text = format!("{}.{:03}", time.as_secs(), time.subsec_millis());
        text.trim_end_matches('0').to_string()
    }
}

/// A time in whole centiseconds, rounded down.
pub(super) fn centis(time: Duration) -> u128 {
    time.as_millis() / 10
}

/// A time in whole seconds, rounded up, at least one.
pub(super) fn whole_seconds_up(time: Duration) -> u64 {
    let secs = time.as_secs() + u64::from(time.subsec_nanos() > 0);
    secs.max(1)
}

/// The name of an option from its `option` feature: the text before its type keyword
/// (`Resign Threshold -spin 800 200 1200` is `Resign Threshold`).
pub(super) fn option_name(value: &str) -> &str {
    let mut end = value.len();
    for kind in OPTION_TYPES {
        let mut from = 0;
        while let Some(i) = value[from..].find(kind) {
            let at = from + i;
            let after = value[at + kind.len()..].chars().next();
            let before_ok = at > 0 && value[..at].ends_with(' ');
            if before_ok && after.is_none_or(char::is_whitespace) {
                end = end.min(at);
                break;
            }
            from = at + kind.len();
        }
    }
    value[..end].trim()
}

/// Reads the `name=value` pairs of a `feature` line; a value may be double-quoted.
pub(super) fn parse_features(rest: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut s = rest.trim_start();
    while !s.is_empty() {
        let Some(eq) = s.find('=') else { break };
        let name = s[..eq].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            break;
        }
        let after = &s[eq + 1..];
        let (value, rest) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        pairs.push((name.to_string(), value.to_string()));
        s = rest.trim_start();
    }
    pairs
}

/// Classifies a line of the engine's output (a bare move is recognised by the caller,
/// which knows the position).
pub(super) fn classify(line: &str) -> Line {
    let text = line.trim();
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    let second = words.next();
    let third = words.next();
    if first == "move" {
        return match second {
            Some(mv) => Line::Move(mv.to_string()),
            None => Line::Other,
        };
    }
    // The version 1 form `12. ... e2e4`.
    if let (Some("..."), Some(mv)) = (second, third)
        && let Some(number) = first.strip_suffix('.')
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
    {
        return Line::Move(mv.to_string());
    }
    if let Some(rest) = text.strip_prefix("My move is") {
        let rest = rest.trim_start().trim_start_matches(':');
        return match rest.split_whitespace().next() {
            Some(mv) => Line::Move(mv.to_string()),
            None => Line::Other,
        };
    }
    if text == "resign" {
        return Line::Resign;
    }
    if text == "offer draw" || text.starts_with("offer draw ") {
        return Line::OfferDraw;
    }
    let result = match first {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        "*" => Some(GameResult::Unknown),
        _ => None,
    };
    if let Some(result) = result {
        return Line::Result(result);
    }
    if first == "pong" {
        return match second.and_then(|n| n.parse().ok()) {
            Some(n) => Line::Pong(n),
            None => Line::Other,
        };
    }
    if first == "feature" {
        return Line::Feature(parse_features(&text["feature".len()..]));
    }
    if text.starts_with("Illegal move") {
        return Line::IllegalMove(text.to_string());
    }
    if text.starts_with("Error") || text.starts_with("Invalid move") {
        let command = text.split_once(':').map_or("", |(_, c)| c.trim());
        return Line::Error(command.to_string());
    }
    if let Some(thinking) = parse_thinking(text) {
        return Line::Thinking(thinking);
    }
    Line::Other
}

/// Reads a line of thinking output: `ply score time nodes pv...`. The newer form may
/// put more numbers (selective depth, speed, table base hits) and a tab before the
/// principal variation; they are skipped, since no move is a plain number.
pub(super) fn parse_thinking(text: &str) -> Option<Thinking> {
    let mut words = text.split_whitespace().peekable();
    let ply = words.next()?.parse().ok()?;
    let score = words.next()?.parse().ok()?;
    let centis = words.next()?.parse().ok()?;
    let nodes = words.next()?.parse().ok()?;
    while words.next_if(|w| w.parse::<u64>().is_ok()).is_some() {}
    let pv = words.collect::<Vec<_>>().join(" ");
    Some(Thinking {
        ply,
        score,
        centis,
        nodes,
        pv,
    })
}

/// Whether `line` is nothing but a legal move of `pos` (how some old engines move).
pub(super) fn is_bare_move(pos: &Chess, line: &str) -> bool {
    let text = line.trim();
    !text.is_empty() && !text.contains(char::is_whitespace) && resolve_move(pos, text).is_ok()
}

/// Whether a word of a principal variation is a move number (`12.`, `12...`, `...`).
pub(super) fn is_move_number(word: &str) -> bool {
    let digits = word.trim_end_matches('.');
    word.ends_with('.') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The analysis operations for a reply from the engine's last thinking line: `ce`,
/// `acd`, `acn`, `acs` and, when any of it can be read, `pv` in SAN.
pub(super) fn analysis(pos: &Chess, thinking: &Thinking) -> Vec<(&'static str, Operands)> {
    let mut line = pos.clone();
    let mut pv = Operands::new();
    for word in thinking.pv.split_whitespace() {
        if is_move_number(word) {
            continue;
        }
        match resolve_move(&line, word) {
            Ok(mv) => pv.push(Operand::Move(
                crate::epd::play_san(&mut line, mv).to_compact_string(),
            )),
            Err(_) => break,
        }
    }
    let mate_plies = (!pv.is_empty() && line.is_checkmate()).then_some(pv.len());
    let int = |n: i64| smallvec![Operand::Integer(n)];
    let big = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut ops = vec![
        ("ce", int(epd_score(thinking.score, mate_plies))),
        ("acd", int(i64::from(thinking.ply))),
        ("acn", int(big(thinking.nodes))),
        ("acs", int(big(thinking.centis / 100))),
    ];
    if !pv.is_empty() {
        ops.push(("pv", pv));
    }
    ops
}

/// The EPD score (`ce`) of an engine's score: centipawns from the side to move's point
/// of view, with mates as `32767 - N` for a mate in N plies and `-(32767 - N)` for
/// being mated in N plies.
///
/// A mate is recognised from the principal variation when it ends in mate (`mate_plies`)
/// and the score agrees on who mates, else from the protocol's convention of
/// `100000 + N` for a mate in N moves (and `-100000 - N` for being mated in N moves).
/// Other scores are clamped to ±30000 so that they never read as mates.
pub(super) fn epd_score(score: i64, mate_plies: Option<usize>) -> i64 {
    if let Some(plies) = mate_plies.and_then(|p| i64::try_from(p).ok()) {
        let we_mate = plies % 2 == 1;
        if we_mate && score > 0 {
            return MATE - plies;
        }
        if !we_mate && score < 0 {
            return -(MATE - plies);
        }
    }
    let magnitude = score.saturating_abs();
    if (100_000..=100_000 + 10_000).contains(&magnitude) {
        let moves = (magnitude - 100_000).max(1);
        return if score > 0 {
            MATE - (2 * moves - 1)
        } else {
            -(MATE - 2 * moves)
        };
    }
    score.clamp(-MAX_PLAIN_SCORE, MAX_PLAIN_SCORE)
}
