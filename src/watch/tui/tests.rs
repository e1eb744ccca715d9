//! The view drawn on ratatui's TestBackend for a scripted game: the model is fed the
//! referee's notices, as in a match, and the screen is compared with the snapshot in
//! `tests/data/tui/` (run with `UPDATE_SNAPSHOTS=1` to write it anew after a change
//! to the view, and look at the difference) and line by line where it matters.

use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};

use super::is_serial_console;
use super::render::{self, clock};
use super::state::{Action, Screen};
use crate::core::Notice;
use crate::core::game::GameResult;
use crate::watch::live::Live;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn started(number: u32, white: &str, black: &str) -> Notice {
    started_from(number, white, black, START)
}

fn started_from(number: u32, white: &str, black: &str, fen: &str) -> Notice {
    Notice::GameStarted {
        number,
        white: white.into(),
        black: black.into(),
        fen: fen.into(),
        clocks: [Some(Duration::from_secs(300)); 2],
        time_control: "300+5".into(),
    }
}

/// Plays `sans` from the start in game `number` of round `round`, each move taking a
/// second and a half (plus the increment), with a score, a depth and a PV.
fn play(live: &Live, number: u32, round: u32, sans: &[&str]) {
    play_from(live, number, round, START, CastlingMode::Standard, sans);
}

/// Plays `sans` from `fen`, castling by `mode`'s rules, as [`play`] does; the moves'
/// UCI is written as the referee writes it (a Chess960 castling as the king taking its
/// rook).
fn play_from(live: &Live, number: u32, round: u32, fen: &str, mode: CastlingMode, sans: &[&str]) {
    let mut pos: Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(mode)
        .unwrap();
    let mut clocks = [300_000u64, 300_000];
    for (ply, san) in sans.iter().enumerate() {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        let color = pos.turn();
        let fullmove = pos.fullmoves().get();
        let uci = UciMove::from_move(mv, mode).to_string();
        pos.play_unchecked(mv);
        let side = usize::from(color == Color::Black);
        clocks[side] = clocks[side] - 1500 + 5000;
        let ply = i64::try_from(ply).unwrap();
        live.notice(
            number,
            round,
            &Notice::Moved {
                number,
                fullmove,
                color,
                san: (*san).into(),
                emt: Duration::from_millis(1500),
                remaining: clocks.map(|c| Some(Duration::from_millis(c))),
                score: Some(if color == Color::White {
                    20 + ply
                } else {
                    -15 - ply
                }),
                depth: Some(10 + ply),
                pv: vec![(*san).into(), "a6".into()],
                uci,
                position: pos.clone(),
            },
        );
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn typed(screen: &mut Screen, text: &str) -> Vec<Action> {
    text.chars()
        .map(|c| screen.key(key(KeyCode::Char(c))))
        .collect()
}

/// The screen as text, a line a row, without trailing blanks.
fn drawn(screen: &Screen, now_ms: u64, width: u16, height: u16) -> (Vec<String>, (u16, u16)) {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| render::draw(frame, screen, now_ms))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let rows = (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect();
    let cursor = terminal.backend().cursor_position();
    (rows, (cursor.x, cursor.y))
}

/// The board's row of rank `n`.
fn rank(rows: &[String], n: u32) -> &str {
    row(rows, &format!("│ {n}  "))
}

fn row<'a>(rows: &'a [String], what: &str) -> &'a str {
    rows.iter()
        .find(|r| r.contains(what))
        .unwrap_or_else(|| panic!("no row holds {what:?}:\n{}", rows.join("\n")))
}

/// Compares the screen with its snapshot in tests/data/tui/NAME.txt.
fn snapshot(name: &str, rows: &[String]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tui")
        .join(format!("{name}.txt"));
    let text = rows.join("\n") + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SNAPSHOTS=1 writes it)", path.display()));
    assert!(
        stored == text,
        "the view differs from {} (UPDATE_SNAPSHOTS=1 writes it anew):\n{text}",
        path.display()
    );
}

/// A match's game after 1. e4 e5 2. Nf3 Nc6 3. Bb5, Black to move, drawn 2.5 s after
/// the last move.
fn match_after_ruy_lopez() -> (Live, Screen, u64) {
    let live = Live::new();
    live.notice(1, 1, &started(1, "Ann", "Bob"));
    play(&live, 1, 1, &["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    let mut screen = Screen::new(
        "argus serial: Ann vs Bob, game 1 of 2",
        "status | pause | resume | quit",
    );
    screen.refresh(&live);
    screen.print("argus: refereeing /dev/ttyS0 vs /dev/ttyUSB0 at 9600 8N1");
    screen.print("warning: port b: noise ignored: not an EPD record");
    let at = live.game(1).unwrap().at_ms;
    (live, screen, at + 2500)
}

#[test]
fn a_scripted_game_shows_its_board_clocks_moves_engines_games_and_log() {
    let (_live, screen, now) = match_after_ruy_lopez();
    let (rows, _) = drawn(&screen, now, 120, 40);
    snapshot("scripted-game", &rows);
    assert!(rows[0].starts_with("argus serial: Ann vs Bob"));
    // The board from White's side, the bishop's move marked on f1 and b5.
    assert!(rank(&rows, 8).contains(" 8  r  ·  b  q  k  b  n  r  8"));
    assert!(rank(&rows, 6).contains(" 6  ·  ·  n  ·  ·  ·  ·  ·  6"));
    assert!(rank(&rows, 5).contains(" 5  · [B] ·  ·  p  ·  ·  ·  5"));
    assert!(rank(&rows, 1).contains(" 1  R  N  B  Q  K [·] ·  R  1"));
    // Black's clock runs: 5:00 less 1.5 s and plus 5 s for each of its two moves, less
    // the 2.5 s since the last move.
    assert!(row(&rows, "> Bob").contains("0:05:04.5"), "{rows:#?}");
    assert!(row(&rows, "  Ann").contains("0:05:10.5"));
    assert!(row(&rows, "move 3, Black to move").starts_with("│ move 3"));
    // The moves in SAN, and each engine's last evaluation, depth and PV.
    assert!(row(&rows, "   1. e4").contains("   1. e4       e5"));
    assert!(row(&rows, "   3. Bb5").contains("│   3. Bb5    "));
    assert!(row(&rows, "Ann (White)").contains("Ann (White): +0.24, depth 14, 1.5 s"));
    assert!(row(&rows, "Bob (Black)").contains("Bob (Black): -0.18, depth 13, 1.5 s"));
    assert!(row(&rows, "pv Bb5").contains("pv Bb5 a6"));
    // The game list, the log and the console.
    assert!(row(&rows, ">  1 Ann - Bob").contains("ply 5 05:10.5 05:04.5"));
    assert!(row(&rows, "noise ignored").contains("│warning: port b: noise ignored"));
    assert!(row(&rows, "Console").contains("Console: status | pause | resume | quit"));
    assert!(rows[39].starts_with("Tab/Shift-Tab, PgDn/PgUp: pick a game"));
}

/// A Chess960 game whose castlings swap a king and its rook (White's king f1 and rook
/// g1) and carry a king across its rook (Black's king f8 to c8, its rook e8 to d8): the board
/// shows each piece where Chess960's castling puts it, the move list `O-O` and `O-O-O`,
/// and the last move's marks the king's square and its rook's.
#[test]
fn a_chess960_castling_is_drawn_with_king_and_rook_where_the_rules_put_them() {
    let live = Live::new();
    let start = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1";
    live.notice(1, 1, &started_from(1, "Ann", "Bob", start));
    play_from(
        &live,
        1,
        1,
        start,
        CastlingMode::Chess960,
        &["O-O", "Nd6", "e4", "c6", "d4", "Bc7", "Nd3", "O-O-O"],
    );
    let mut screen = Screen::new("argus serve: Chess960", "status | quit");
    screen.refresh(&live);
    let at = live.game(1).unwrap().at_ms;
    let (rows, _) = drawn(&screen, at, 120, 40);
    assert!(
        rank(&rows, 1).contains(" 1  B  Q  ·  B  R  R  K  N  1"),
        "{rows:#?}"
    );
    assert!(
        rank(&rows, 8).contains(" 8  b  q  k  r [·][·] r  n  8"),
        "{rows:#?}"
    );
    assert!(
        row(&rows, "   1. O-O").contains("   1. O-O      Nd6"),
        "{rows:#?}"
    );
    assert!(
        row(&rows, "   4. Nd3").contains("   4. Nd3      O-O-O"),
        "{rows:#?}"
    );
    // The page's feed carries the same position, in X-FEN, and the castling as the king
    // taking its rook.
    let game = live.game(1).unwrap();
    assert_eq!(
        game.fen,
        "bqkr2rn/ppbppppp/2pn4/8/3PP3/3N4/PPP2PPP/BQ1BRRKN w - - 3 5"
    );
    assert_eq!(game.moves[0].uci, "f1g1");
    assert_eq!(game.moves[7].uci, "f8e8");
}

#[test]
fn the_clock_that_runs_counts_down_between_updates_and_stops_at_zero() {
    let (live, screen, now) = match_after_ruy_lopez();
    let (rows, _) = drawn(&screen, now + 60_000, 120, 40);
    assert!(row(&rows, "> Bob").contains("0:04:04.5"));
    assert!(row(&rows, "  Ann").contains("0:05:10.5"), "White's stands");
    let (rows, _) = drawn(&screen, now + 3_600_000, 120, 40);
    assert!(row(&rows, "> Bob").contains("0:00:00.0"));
    // Over, no clock runs.
    live.notice(
        1,
        1,
        &Notice::GameOver {
            number: 1,
            result: GameResult::WhiteWins,
            reason: "Black resigns".into(),
        },
    );
    let mut screen = screen;
    screen.refresh(&live);
    let (rows, _) = drawn(&screen, now + 60_000, 120, 40);
    assert!(row(&rows, "  Bob").contains("0:05:07.0"), "Black's stands");
    assert!(row(&rows, "1-0 (Black resigns)").starts_with("│ 1-0"));
    assert!(row(&rows, " 1 Ann - Bob").ends_with("1-0│"));
    assert_eq!(clock(3_723_456), "1:02:03.4");
}

#[test]
fn the_console_line_edits_and_recalls_its_history() {
    let (_live, mut screen, now) = match_after_ruy_lopez();
    assert!(
        typed(&mut screen, "status")
            .iter()
            .all(|a| *a == Action::None)
    );
    assert_eq!(
        screen.key(key(KeyCode::Enter)),
        Action::Command("status".into())
    );
    assert_eq!(screen.console.text(), "");
    typed(&mut screen, "clock a +60");
    assert_eq!(
        screen.key(key(KeyCode::Enter)),
        Action::Command("clock a +60".into())
    );
    // Edited: "pase" becomes "pause" (Left twice, insert, End), and Backspace.
    typed(&mut screen, "pase");
    screen.key(key(KeyCode::Left));
    screen.key(key(KeyCode::Left));
    typed(&mut screen, "u");
    assert_eq!(
        (screen.console.text().as_str(), screen.console.cursor()),
        ("pause", 3)
    );
    screen.key(key(KeyCode::Home));
    screen.key(key(KeyCode::Delete));
    typed(&mut screen, "P");
    screen.key(key(KeyCode::End));
    typed(&mut screen, "xx");
    screen.key(key(KeyCode::Backspace));
    screen.key(key(KeyCode::Backspace));
    assert_eq!(screen.console.text(), "Pause");
    // Up recalls the last line, then the one before; Down comes back to the draft.
    screen.key(key(KeyCode::Up));
    assert_eq!(screen.console.text(), "clock a +60");
    screen.key(key(KeyCode::Up));
    screen.key(key(KeyCode::Up));
    assert_eq!(screen.console.text(), "status");
    screen.key(key(KeyCode::Down));
    assert_eq!(screen.console.text(), "clock a +60");
    screen.key(key(KeyCode::Down));
    assert_eq!(screen.console.text(), "Pause");
    screen.key(key(KeyCode::Up));
    screen.key(key(KeyCode::Up));
    screen.key(key(KeyCode::Left));
    let (rows, cursor) = drawn(&screen, now, 120, 40);
    assert_eq!(rows[37], format!("│> status{}│", " ".repeat(110)));
    assert_eq!(cursor, (3 + 5, 37), "the cursor before the last letter");
    // The lines typed are in the log, in the order typed.
    let log: Vec<&str> = screen.log().map(|l| l.text.as_str()).collect();
    assert_eq!(log[log.len() - 2..], ["> status", "> clock a +60"]);
    assert!(row(&rows, "> clock a +60").starts_with("│> clock a +60"));
    assert_eq!(screen.console.history(), ["status", "clock a +60"]);
    // Esc empties the line; Ctrl-C is the interrupt, not a letter.
    screen.key(key(KeyCode::Esc));
    assert_eq!(screen.console.text(), "");
    assert_eq!(
        screen.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Action::Interrupt
    );
}

#[test]
fn an_events_games_are_listed_with_standings_and_keys_pick_the_one_shown() {
    let live = Live::new();
    live.notice(1, 1, &started(1, "Ann", "Bob"));
    live.notice(2, 1, &started(2, "Cy", "Di"));
    live.notice(3, 1, &started(3, "Eve", "Fay"));
    play(&live, 1, 1, &["d4", "d5"]);
    play(&live, 2, 1, &["e4", "c5", "Nf3"]);
    play(&live, 3, 1, &["f3", "e5", "g4", "Qh4#"]);
    live.notice(
        3,
        1,
        &Notice::GameOver {
            number: 3,
            result: GameResult::BlackWins,
            reason: "Black mates".into(),
        },
    );
    live.standings(serde_json::json!({"table": [
        {"rank": 1, "name": "Fay", "points": 1.0, "games": 1},
        {"rank": 2, "name": "Ann", "points": 0.0, "games": 0},
        {"rank": 2, "name": "Eve", "points": 0.0, "games": 1},
    ]}));
    let mut screen = Screen::new(
        "argus serve: 6 players",
        "status | stop | stop after-games | help",
    );
    screen.refresh(&live);
    // No time since the first game's last move: every clock as the model gave it.
    let now = live.game(1).unwrap().at_ms;
    let (rows, _) = drawn(&screen, now, 120, 40);
    snapshot("event", &rows);
    // Following the first game under way.
    assert!(row(&rows, " Game 1 ").contains("300+5"));
    assert!(row(&rows, ">  1 Ann - Bob").contains("ply 2"));
    assert!(row(&rows, "   2 Cy - Di").contains("ply 3"));
    assert!(row(&rows, "   3 Eve - Fay").ends_with("0-1│"));
    assert!(row(&rows, "Standings").contains("Standings"));
    assert!(row(&rows, " 1 Fay").starts_with("│ 1 Fay                  1.0/1│"));
    // Tab picks the next game, Shift-Tab and PageUp go back round, Esc follows again.
    screen.key(key(KeyCode::Tab));
    assert_eq!(screen.selected().unwrap().number, 2);
    screen.key(key(KeyCode::PageDown));
    let (rows, _) = drawn(&screen, now, 120, 40);
    assert!(row(&rows, " Game 3 ").contains("(picked)"));
    assert!(row(&rows, "0-1 (Black mates)").starts_with("│ 0-1"));
    assert!(rank(&rows, 4).contains("[q]"), "the mate marked");
    assert!(row(&rows, "   2. g4").contains("   2. g4       Qh4#"));
    screen.key(key(KeyCode::PageDown));
    assert_eq!(screen.selected().unwrap().number, 1, "round the list");
    screen.key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert_eq!(screen.selected().unwrap().number, 3);
    screen.key(key(KeyCode::Esc));
    assert_eq!(screen.selected().unwrap().number, 1);
    assert!(!screen.picked());
}

/// An event of three games, two under way, with standings, drawn as of the first
/// game's last move.
fn event_of_three() -> (Live, Screen, u64) {
    let live = Live::new();
    live.notice(1, 1, &started(1, "Annabelle", "Bartholomew"));
    live.notice(2, 1, &started(2, "Cy", "Di"));
    live.notice(3, 1, &started(3, "Eve", "Fay"));
    play(&live, 1, 1, &["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    play(&live, 2, 1, &["e4", "c5", "Nf3"]);
    play(&live, 3, 1, &["f3", "e5", "g4", "Qh4#"]);
    live.notice(
        3,
        1,
        &Notice::GameOver {
            number: 3,
            result: GameResult::BlackWins,
            reason: "Black mates".into(),
        },
    );
    live.standings(serde_json::json!({"table": [
        {"rank": 1, "name": "Fay", "points": 1.0, "games": 1},
        {"rank": 2, "name": "Annabelle", "points": 0.0, "games": 0},
        {"rank": 2, "name": "Eve", "points": 0.0, "games": 1},
    ]}));
    let mut screen = Screen::new(
        "argus serve: 6 players, round-robin, 30 game(s) at 300+5, 2 at once; files in event",
        "status | stop | stop after-games | help | game N pause|resume|clock|adjudicate|restart",
    );
    screen.refresh(&live);
    for i in 1..=12 {
        screen.print(&format!("log line {i}"));
    }
    let at = live.game(1).unwrap().at_ms;
    (live, screen, at + 2500)
}

#[test]
fn a_terminal_of_80_by_24_shows_the_whole_board_both_players_and_the_console() {
    let (_live, mut screen, now) = event_of_three();
    let (rows, _) = drawn(&screen, now, 80, 24);
    snapshot("event-80x24", &rows);
    // The board whole, both names and both clocks, where the game stands.
    assert!(rank(&rows, 8).contains(" 8  r  ·  b  q  k  b  n  r  8"));
    assert!(rank(&rows, 1).contains(" 1  R  N  B  Q  K [·] ·  R  1"));
    assert!(
        row(&rows, "> Bartholomew").contains("0:05:04.5"),
        "{rows:#?}"
    );
    assert!(row(&rows, "  Annabelle").contains("0:05:10.5"), "{rows:#?}");
    assert!(row(&rows, "move 3, Black to move").starts_with("│ move 3"));
    // The moves beside it; the console line and the keys, none cut off.
    assert!(row(&rows, "   3. Bb5").contains("│   3. Bb5"));
    assert!(rows[20].starts_with("┌ Console: status"), "{rows:#?}");
    assert_eq!(rows[21], format!("│> {}│", " ".repeat(76)));
    assert!(rows[23].contains("Ctrl-T: moves/games/standings/log"));
    assert!(rows.iter().all(|r| r.chars().count() <= 80));
    // The log's last lines under the board.
    assert!(row(&rows, "log line 12").starts_with("│log line 12"));
    // Ctrl-T: the games, then the standings, then the log, then the moves again.
    let ctrl_t = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert_eq!(screen.key(ctrl_t), Action::None);
    assert_eq!(screen.console.text(), "", "not a letter typed");
    let (rows, _) = drawn(&screen, now, 80, 24);
    snapshot("event-80x24-games", &rows);
    assert!(row(&rows, "Games (3)").contains("┌ Games (3)"));
    assert!(row(&rows, ">  1 Annabelle - Bar").ends_with("ply 5 05:10.5 05:04.5│"));
    assert!(row(&rows, "   3 Eve - Fay").ends_with("0-1│"));
    assert!(
        row(&rows, "> Bartholomew").contains("0:05:04.5"),
        "the board stays"
    );
    screen.key(key(KeyCode::F(2)));
    let (rows, _) = drawn(&screen, now, 80, 24);
    assert!(row(&rows, " 1 Fay").ends_with("1.0/1│"), "{rows:#?}");
    screen.key(ctrl_t);
    let (rows, _) = drawn(&screen, now, 80, 24);
    assert!(
        row(&rows, "log line 1 ").contains("│log line 1 "),
        "{rows:#?}"
    );
    screen.key(ctrl_t);
    let (rows, _) = drawn(&screen, now, 80, 24);
    assert!(row(&rows, "┌ Moves").contains("Moves"));
}

#[test]
fn a_terminal_of_200_by_50_shows_everything_at_once() {
    let (_live, screen, now) = event_of_three();
    let (rows, _) = drawn(&screen, now, 200, 50);
    snapshot("event-200x50", &rows);
    assert!(row(&rows, "> Bartholomew").contains("0:05:04.5"));
    assert!(row(&rows, "  Annabelle").contains("0:05:10.5"));
    for panel in [
        "┌ Moves",
        "┌ Engines",
        "┌ Games (3)",
        "┌ Standings",
        "┌ Log",
        "┌ Console",
    ] {
        assert!(rows.iter().any(|r| r.contains(panel)), "{panel}: {rows:#?}");
    }
    assert!(row(&rows, " 1 Fay").contains("1.0/1"));
    assert!(rows[49].starts_with("Tab/Shift-Tab, PgDn/PgUp: pick a game"));
}

#[test]
fn a_small_terminal_still_shows_the_board_and_the_console() {
    let (_live, screen, now) = match_after_ruy_lopez();
    for (width, height) in [(80, 24), (60, 20), (99, 40), (120, 29)] {
        let (rows, _) = drawn(&screen, now, width, height);
        assert!(rank(&rows, 5).contains("[B]"), "{width}x{height}");
        assert!(
            row(&rows, "  Ann").contains("0:05:10.5"),
            "{width}x{height}: {rows:#?}"
        );
        assert!(row(&rows, "Console").starts_with("┌ Console"));
    }
}

#[test]
fn serial_lines_are_told_from_other_terminals() {
    for serial in [
        "/dev/ttyS0",
        "/dev/ttyUSB1",
        "/dev/ttyAMA0",
        "/dev/ttyACM0",
        "/dev/cu.usbserial-1",
    ] {
        assert!(is_serial_console(serial), "{serial}");
    }
    for other in [
        "/dev/pts/3",
        "/dev/tty1",
        "/dev/console",
        "/dev/ttys003",
        "/dev/tty",
    ] {
        assert!(!is_serial_console(other), "{other}");
    }
}

#[test]
fn shift_up_scrolls_the_log_back_and_it_stays_put_as_lines_come() {
    let (_live, mut screen, now) = match_after_ruy_lopez();
    for i in 1..=30 {
        screen.print(&format!("line {i}"));
    }
    let shift = |code| KeyEvent::new(code, KeyModifiers::SHIFT);
    let shown = |screen: &Screen| {
        let (rows, _) = drawn(screen, now, 120, 40);
        rows.into_iter()
            .filter(|r| r.starts_with("│line "))
            .map(|r| r.trim_matches(|c| c == '│' || c == ' ').to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(shown(&screen).last().unwrap(), "line 30");
    for _ in 0..5 {
        screen.key(shift(KeyCode::Up));
    }
    assert_eq!(shown(&screen).last().unwrap(), "line 25");
    let (rows, _) = drawn(&screen, now, 120, 40);
    assert!(
        rows.iter().any(|r| r.contains(" Log: 5 line(s) back")),
        "{rows:#?}"
    );
    // A new line does not move what is shown.
    screen.print("line 31");
    assert_eq!(shown(&screen).last().unwrap(), "line 25");
    screen.key(shift(KeyCode::Down));
    assert_eq!(shown(&screen).last().unwrap(), "line 26");
    // Up alone is the console's history, not the log.
    screen.key(key(KeyCode::Up));
    assert_eq!(shown(&screen).last().unwrap(), "line 26");
    screen.key(key(KeyCode::Esc));
    assert_eq!(shown(&screen).last().unwrap(), "line 31");
}
