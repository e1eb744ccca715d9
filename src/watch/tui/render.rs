//! Drawing the view: the selected game's board (its last move marked), names and
//! clocks (counted down from the model's last reading to `now_ms`), its moves in SAN,
//! the engines' last evaluations, depths and PVs; the games of the round with their
//! results, the standings, the log, the console line and the keys. In a small terminal
//! ([`small`]: a default one of 80 x 24) the board stays whole beside one panel, the
//! one the screen's [`Pane`] names (Ctrl-T).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::state::{KEYS, KEYS_SMALL, Pane, Screen, Tone};
use crate::watch::live::{GameView, MoveView};

/// The board's squares and pieces (256-colour indices, which every terminal argus
/// runs in has).
const LIGHT: Color = Color::Indexed(180);
const DARK: Color = Color::Indexed(137);
const LIGHT_MARKED: Color = Color::Indexed(186);
const DARK_MARKED: Color = Color::Indexed(143);
const WHITE_PIECE: Color = Color::Indexed(231);
const BLACK_PIECE: Color = Color::Indexed(16);

/// The board panel's width: a rank's label and eight squares of three columns, and
/// the border.
const BOARD_WIDTH: u16 = 3 + 8 * 3 + 2 + 2;

/// The board panel's height: the border, both players, the files twice, eight ranks
/// and the line that says where the game stands.
const BOARD_HEIGHT: u16 = 2 + 2 + 2 + 8 + 1;

/// Whether a terminal of this size is small: everything side by side needs 100 columns
/// and 30 rows, and a default terminal has 80 x 24.
pub fn small(area: Rect) -> bool {
    area.width < 100 || area.height < 30
}

/// Draws `screen` on `frame` as of `now_ms` (milliseconds since the Unix epoch).
pub fn draw(frame: &mut Frame<'_>, screen: &Screen, now_ms: u64) {
    let area = frame.area();
    if small(area) {
        draw_small(frame, screen, now_ms);
        return;
    }
    let log_height = (area.height / 4).clamp(4, 12);
    let [main, log, console] = rows(frame, screen, 10, log_height, KEYS);
    let [left, middle, right] = Layout::horizontal([
        Constraint::Length(BOARD_WIDTH),
        Constraint::Min(24),
        Constraint::Percentage(36),
    ])
    .areas(main);
    let [board, standings] =
        Layout::vertical([Constraint::Length(BOARD_HEIGHT), Constraint::Min(0)]).areas(left);
    let [moves, engines] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(6)]).areas(middle);
    let game = screen.selected();
    draw_board(frame, board, game, now_ms, screen.picked());
    draw_standings(frame, standings, screen);
    draw_moves(frame, moves, game);
    draw_engines(frame, engines, game);
    draw_games(frame, right, screen, now_ms);
    draw_log(frame, log, screen);
    draw_console(frame, console, screen);
}

/// The rows of every layout: the title, then `main` (at least `main_min` high) and the
/// log, then the console and the line of `keys`. Draws the title and the keys, and
/// gives the main area, the log's and the console's.
fn rows(
    frame: &mut Frame<'_>,
    screen: &Screen,
    main_min: u16,
    log_height: u16,
    keys: &str,
) -> [Rect; 3] {
    let [title, main, log, console, keys_row] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(main_min),
        Constraint::Length(log_height),
        Constraint::Length(3),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(
        Paragraph::new(Line::from(screen.title.as_str()))
            .style(Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)),
        title,
    );
    frame.render_widget(
        Paragraph::new(Line::from(keys)).style(Style::new().add_modifier(Modifier::DIM)),
        keys_row,
    );
    [main, log, console]
}

/// A small terminal (80 x 24): the board whole, with both names, both clocks and where
/// the game stands; beside it one panel, the one Ctrl-T picks (moves and engines,
/// games, standings, log); under them what is left for the log's last lines, the
/// console line and the keys.
fn draw_small(frame: &mut Frame<'_>, screen: &Screen, now_ms: u64) {
    let area = frame.area();
    let spare = area.height.saturating_sub(1 + BOARD_HEIGHT + 3 + 1);
    // A log of fewer than one line is no log.
    let log_height = if spare >= 3 { spare.min(8) } else { 0 };
    let [main, log, console] = rows(frame, screen, 0, log_height, KEYS_SMALL);
    let [board, side] =
        Layout::horizontal([Constraint::Length(BOARD_WIDTH), Constraint::Min(0)]).areas(main);
    let game = screen.selected();
    draw_board(frame, board, game, now_ms, screen.picked());
    match screen.pane() {
        Pane::Moves => {
            let [moves, engines] =
                Layout::vertical([Constraint::Min(3), Constraint::Length(6)]).areas(side);
            draw_moves(frame, moves, game);
            draw_engines(frame, engines, game);
        }
        Pane::Games => draw_games(frame, side, screen, now_ms),
        Pane::Standings => draw_standings(frame, side, screen),
        Pane::Log => draw_log(frame, side, screen),
    }
    if log_height > 0 {
        draw_log(frame, log, screen);
    }
    draw_console(frame, console, screen);
}

/// A clock: `H:MM:SS.t`, as the PGN's `[%clk]`.
pub fn clock(ms: u64) -> String {
    crate::core::pgn::format_clk(std::time::Duration::from_millis(ms))
}

/// A game's clocks as of `now_ms`: the running one counted down since the model read
/// them.
pub fn clocks_at(game: &GameView, now_ms: u64) -> [Option<u64>; 2] {
    let mut clocks = game.clocks_ms;
    let running = match game.running {
        Some("w") => Some(0),
        Some("b") => Some(1),
        _ => None,
    };
    if let Some(i) = running {
        let gone = now_ms.saturating_sub(game.at_ms);
        clocks[i] = clocks[i].map(|c| c.saturating_sub(gone));
    }
    clocks
}

/// The pieces of a FEN's board, rank 8 first, file a first.
fn squares(fen: &str) -> [[Option<char>; 8]; 8] {
    let mut board = [[None; 8]; 8];
    let placement = fen.split_whitespace().next().unwrap_or_default();
    for (rank, row) in placement.split('/').take(8).enumerate() {
        let mut file = 0;
        for c in row.chars() {
            if let Some(skip) = c.to_digit(10) {
                file += skip as usize;
            } else if file < 8 {
                board[rank][file] = Some(c);
                file += 1;
            }
        }
    }
    board
}

/// A square's row and column on the board (rank 8 first), from its name (`e4`).
fn square_at(name: &str) -> Option<(usize, usize)> {
    let mut chars = name.chars();
    let file = chars.next()?;
    let rank = chars.next()?;
    if !('a'..='h').contains(&file) || !('1'..='8').contains(&rank) {
        return None;
    }
    Some((
        7 - (rank as usize - '1' as usize),
        file as usize - 'a' as usize,
    ))
}

fn player_line(name: &str, clock_ms: Option<u64>, running: bool, width: usize) -> Line<'static> {
    let mark = if running { "> " } else { "  " };
    let clock = clock_ms.map(clock).unwrap_or_default();
    let room = width.saturating_sub(mark.len() + clock.len() + 1);
    let name: String = name.chars().take(room).collect();
    let gap = width.saturating_sub(mark.len() + name.chars().count() + clock.len());
    let clock_style = if running {
        Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
    } else {
        Style::new()
    };
    Line::from(vec![
        Span::raw(mark),
        Span::styled(name, Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(" ".repeat(gap)),
        Span::styled(clock, clock_style),
    ])
}

/// Where a game stands, in words: its result, or the move to play.
fn standing(game: &GameView) -> String {
    if let Some(result) = &game.result {
        return match &game.reason {
            Some(reason) => format!("{result} ({reason})"),
            None => result.clone(),
        };
    }
    let black_to_move = game.fen.split_whitespace().nth(1) == Some("b");
    let fullmove: u32 = game
        .fen
        .split_whitespace()
        .nth(5)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let side = if black_to_move { "Black" } else { "White" };
    format!("move {fullmove}, {side} to move")
}

fn draw_board(
    frame: &mut Frame<'_>,
    area: Rect,
    game: Option<&GameView>,
    now_ms: u64,
    picked: bool,
) {
    let Some(game) = game else {
        frame.render_widget(
            Paragraph::new("waiting for the first game").block(Block::bordered().title(" Board ")),
            area,
        );
        return;
    };
    let title = format!(
        " Game {}{} · {} {}",
        game.number,
        if game.round > 1 {
            format!(" (round {})", game.round)
        } else {
            String::new()
        },
        game.time_control,
        if picked { "(picked) " } else { "" }
    );
    let width = usize::from(area.width.saturating_sub(2));
    let clocks = clocks_at(game, now_ms);
    let marked: Vec<(usize, usize)> = game
        .moves
        .last()
        .map(|m| {
            [m.uci.get(0..2), m.uci.get(2..4)]
                .into_iter()
                .flatten()
                .filter_map(square_at)
                .collect()
        })
        .unwrap_or_default();
    let mut lines = vec![player_line(
        &game.black,
        clocks[1],
        game.running == Some("b"),
        width,
    )];
    let files = Line::from("    a  b  c  d  e  f  g  h");
    lines.push(files.clone());
    for (row, pieces) in squares(&game.fen).iter().enumerate() {
        let mut spans = vec![Span::raw(format!(" {} ", 8 - row))];
        for (col, piece) in pieces.iter().enumerate() {
            let light = (row + col) % 2 == 0;
            let mark = marked.contains(&(row, col));
            let bg = match (light, mark) {
                (true, false) => LIGHT,
                (false, false) => DARK,
                (true, true) => LIGHT_MARKED,
                (false, true) => DARK_MARKED,
            };
            let (symbol, fg) = match piece {
                Some(c) if c.is_ascii_uppercase() => (*c, WHITE_PIECE),
                Some(c) => (*c, BLACK_PIECE),
                None => ('·', if light { DARK } else { LIGHT }),
            };
            // The last move's squares are bracketed too, for terminals (and captures)
            // without colours.
            let text = if mark {
                format!("[{symbol}]")
            } else {
                format!(" {symbol} ")
            };
            spans.push(Span::styled(
                text,
                Style::new().bg(bg).fg(fg).add_modifier(Modifier::BOLD),
            ));
        }
        spans.push(Span::raw(format!(" {}", 8 - row)));
        lines.push(Line::from(spans));
    }
    lines.push(files);
    lines.push(player_line(
        &game.white,
        clocks[0],
        game.running == Some("w"),
        width,
    ));
    lines.push(Line::from(format!(" {}", standing(game))));
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

/// A score in pawns from the engine's own side (`+0.35`), or a mate's distance.
fn score(cp: i64) -> String {
    // EPD's `ce` gives a mate in N as 32767 - 2N + 1 (and its negation).
    if cp.abs() >= 32_000 {
        let plies = 32_767 - cp.abs();
        let moves = (plies + 1) / 2;
        return format!("{}M{moves}", if cp > 0 { "+" } else { "-" });
    }
    format!("{:+.2}", cp as f64 / 100.0)
}

fn engine_lines(name: &str, side: &str, last: Option<&MoveView>) -> Vec<Line<'static>> {
    let head = Span::styled(
        format!("{name} ({side})"),
        Style::new().add_modifier(Modifier::BOLD),
    );
    let Some(mv) = last else {
        return vec![Line::from(vec![head, Span::raw(": no move yet")])];
    };
    let mut facts = Vec::new();
    if let Some(cp) = mv.score {
        facts.push(score(cp));
    }
    if let Some(depth) = mv.depth {
        facts.push(format!("depth {depth}"));
    }
    facts.push(format!("{:.1} s", mv.emt_ms as f64 / 1000.0));
    let mut lines = vec![Line::from(vec![
        head,
        Span::raw(format!(": {}", facts.join(", "))),
    ])];
    if !mv.pv.is_empty() {
        lines.push(Line::from(format!("  pv {}", mv.pv.join(" "))));
    }
    lines
}

fn draw_engines(frame: &mut Frame<'_>, area: Rect, game: Option<&GameView>) {
    if area.height == 0 {
        return;
    }
    let mut lines = Vec::new();
    if let Some(game) = game {
        // White's last move is the last of the even plies from the start position's
        // side to move.
        let black_first = game.start_fen.split_whitespace().nth(1) == Some("b");
        let last_of = |white: bool| {
            game.moves
                .iter()
                .enumerate()
                .rev()
                .find(|(ply, _)| (ply % 2 == 0) != (white == black_first))
                .map(|(_, m)| m)
        };
        lines.extend(engine_lines(&game.white, "White", last_of(true)));
        lines.extend(engine_lines(&game.black, "Black", last_of(false)));
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Engines ")),
        area,
    );
}

fn draw_moves(frame: &mut Frame<'_>, area: Rect, game: Option<&GameView>) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(game) = game {
        let black_first = game.start_fen.split_whitespace().nth(1) == Some("b");
        let mut number: u32 = game
            .start_fen
            .split_whitespace()
            .nth(5)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let mut plies = game.moves.iter().map(|m| m.san.as_str());
        let mut row = |number: u32, white: &str, black: Option<&str>| {
            lines.push(Line::from(format!(
                "{number:>4}. {white:<9}{}",
                black.unwrap_or_default()
            )));
        };
        if black_first && !game.moves.is_empty() {
            row(number, "...", plies.next());
            number += 1;
        }
        while let Some(white) = plies.next() {
            row(number, white, plies.next());
            number += 1;
        }
        if let Some(result) = &game.result {
            lines.push(Line::from(format!("      {result}")));
        }
    }
    // The last moves, when they do not all fit.
    let room = usize::from(area.height.saturating_sub(2));
    let skip = lines.len().saturating_sub(room);
    let lines: Vec<Line<'static>> = lines.into_iter().skip(skip).collect();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Moves ")),
        area,
    );
}

fn draw_games(frame: &mut Frame<'_>, area: Rect, screen: &Screen, now_ms: u64) {
    let selected = screen.selected().map(|g| g.number);
    let width = usize::from(area.width.saturating_sub(2));
    let lines: Vec<Line<'static>> = screen
        .games()
        .iter()
        .map(|g| {
            let now = if g.result.is_some() {
                g.result.clone().unwrap_or_default()
            } else {
                let clocks = clocks_at(g, now_ms);
                let ply = g.moves.len();
                match clocks {
                    [Some(w), Some(b)] => format!(
                        "ply {ply} {} {}",
                        clock(w).trim_start_matches("0:"),
                        clock(b).trim_start_matches("0:")
                    ),
                    _ => format!("ply {ply}"),
                }
            };
            let mark = if Some(g.number) == selected { ">" } else { " " };
            let head = format!("{mark}{:>3} {} - {}", g.number, g.white, g.black);
            // The names give way to the clocks or the result in a narrow pane.
            let head: String = head
                .chars()
                .take(width.saturating_sub(now.chars().count() + 1))
                .collect();
            let gap = width.saturating_sub(head.chars().count() + now.chars().count());
            let text = format!("{head}{}{now}", " ".repeat(gap.max(1)));
            let style = if Some(g.number) == selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else if g.result.is_some() {
                Style::new().add_modifier(Modifier::DIM)
            } else {
                Style::new()
            };
            Line::styled(text, style)
        })
        .collect();
    // The selected game in view when the list is longer than the pane.
    let room = usize::from(area.height.saturating_sub(2));
    let at = screen
        .games()
        .iter()
        .position(|g| Some(g.number) == selected)
        .unwrap_or(0);
    let scroll = (at + 1).saturating_sub(room);
    let title = format!(" Games ({}) ", screen.games().len());
    frame.render_widget(
        Paragraph::new(lines)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .block(Block::bordered().title(title)),
        area,
    );
}

/// The standings (`standings.json`'s table in an event, the score in a match).
fn draw_standings(frame: &mut Frame<'_>, area: Rect, screen: &Screen) {
    if area.height < 3 {
        return;
    }
    let table = screen
        .standings()
        .and_then(|s| s.get("table"))
        .and_then(|t| t.as_array());
    let width = usize::from(area.width.saturating_sub(2));
    let lines: Vec<Line<'static>> = table
        .into_iter()
        .flatten()
        .map(|row| {
            let text = |k: &str| {
                row.get(k)
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
                    .unwrap_or_default()
            };
            let score = format!("{}/{}", text("points"), text("games"));
            let head = format!("{:>2} {}", text("rank"), text("name"));
            let head: String = head
                .chars()
                .take(width.saturating_sub(score.len() + 1))
                .collect();
            let gap = width.saturating_sub(head.chars().count() + score.len());
            Line::from(format!("{head}{}{score}", " ".repeat(gap)))
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Standings ")),
        area,
    );
}

fn draw_log(frame: &mut Frame<'_>, area: Rect, screen: &Screen) {
    let room = usize::from(area.height.saturating_sub(2));
    let log = screen.log();
    let back = screen.log_back();
    let end = log.len().saturating_sub(back);
    let skip = end.saturating_sub(room);
    let lines: Vec<Line<'_>> = log
        .take(end)
        .skip(skip)
        .map(|line| {
            let style = match line.tone {
                Tone::Plain => Style::new(),
                Tone::Typed => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                Tone::Warning => Style::new().fg(Color::Yellow),
                Tone::Error => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            };
            Line::styled(line.text.as_str(), style)
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(if back == 0 {
            " Log ".to_string()
        } else {
            format!(" Log: {back} line(s) back (Shift-Down: newer, Esc: newest) ")
        })),
        area,
    );
}

fn draw_console(frame: &mut Frame<'_>, area: Rect, screen: &Screen) {
    let text = screen.console.text();
    let cursor = screen.console.cursor();
    let width = usize::from(area.width.saturating_sub(4));
    // The cursor in view when the line is longer than the pane.
    let skip = (cursor + 1).saturating_sub(width);
    let shown: String = text.chars().skip(skip).collect();
    let title = format!(" Console: {} ", screen.commands);
    frame.render_widget(
        Paragraph::new(Line::from(format!("> {shown}"))).block(Block::bordered().title(title)),
        area,
    );
    let x = area.x + 3 + u16::try_from(cursor - skip).unwrap_or(0);
    frame.set_cursor_position(Position::new(x, area.y + 1));
}
