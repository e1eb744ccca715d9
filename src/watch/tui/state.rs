//! What the terminal view shows and how keys change it, without a terminal: the games
//! as the model last gave them, which one is selected, the log, and the console line
//! with its history. [`super::render`] draws it; the tests drive it with key events.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::watch::live::{GameView, Live};

/// How many lines the log keeps.
pub const LOG_KEPT: usize = 1000;
/// How many lines typed the console remembers.
pub const HISTORY_KEPT: usize = 200;

/// The console line: the text typed, the cursor, and the lines typed before.
#[derive(Debug, Default)]
pub struct Console {
    text: Vec<char>,
    cursor: usize,
    history: Vec<String>,
    /// Which line of the history is shown (Up and Down), if any.
    browsing: Option<usize>,
    /// What was being typed before Up was pressed, shown again below the history.
    draft: String,
}

impl Console {
    /// The text typed.
    pub fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// Where the cursor is, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The lines entered, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    fn set(&mut self, text: &str) {
        self.text = text.chars().collect();
        self.cursor = self.text.len();
    }

    /// Empties the line.
    pub fn clear(&mut self) {
        self.set("");
        self.browsing = None;
    }

    /// Takes a key; returns the line when Enter ends it (never an empty one).
    pub fn key(&mut self, key: KeyEvent) -> Option<String> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.text.len(),
            KeyCode::Char('u') if ctrl => {
                self.text.drain(..self.cursor);
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.text.truncate(self.cursor),
            KeyCode::Char(_) if ctrl => {}
            KeyCode::Char(c) => {
                self.text.insert(self.cursor, c);
                self.cursor += 1;
            }
            KeyCode::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.text.remove(self.cursor);
            }
            KeyCode::Delete if self.cursor < self.text.len() => {
                self.text.remove(self.cursor);
            }
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.text.len()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.text.len(),
            KeyCode::Up => self.older(),
            KeyCode::Down => self.newer(),
            KeyCode::Enter => return self.enter(),
            _ => {}
        }
        None
    }

    fn older(&mut self) {
        let at = match self.browsing {
            None if self.history.is_empty() => return,
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => 0,
            Some(i) => i - 1,
        };
        self.browsing = Some(at);
        let line = self.history[at].clone();
        self.set(&line);
    }

    fn newer(&mut self) {
        let Some(at) = self.browsing else { return };
        if at + 1 < self.history.len() {
            self.browsing = Some(at + 1);
            let line = self.history[at + 1].clone();
            self.set(&line);
        } else {
            self.browsing = None;
            let draft = std::mem::take(&mut self.draft);
            self.set(&draft);
        }
    }

    fn enter(&mut self) -> Option<String> {
        let line = self.text().trim().to_string();
        self.clear();
        self.draft.clear();
        if line.is_empty() {
            return None;
        }
        if self.history.last() != Some(&line) {
            self.history.push(line.clone());
            if self.history.len() > HISTORY_KEPT {
                self.history.remove(0);
            }
        }
        Some(line)
    }
}

/// What a key asks of the view.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing beyond what the view shows.
    None,
    /// A line typed on the console, to run as a command.
    Command(String),
    /// Ctrl-C: what Ctrl-C does without the view (the terminal's raw mode sends it as a
    /// key, not a signal).
    Interrupt,
    /// Ctrl-L: draw the whole screen again.
    Redraw,
}

/// How a log line looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// What argus says.
    Plain,
    /// A line typed on the console, echoed.
    Typed,
    /// A warning (noise, a lost line, a fault).
    Warning,
    /// An error.
    Error,
}

/// One line of the log.
#[derive(Clone, Debug)]
pub struct LogLine {
    /// Its text.
    pub text: String,
    /// How it looks.
    pub tone: Tone,
}

/// What the side panel shows in a small terminal (under 100 x 30, a default terminal
/// of 80 x 24), where only the board and one more panel fit: Ctrl-T (or F2) shows the
/// next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pane {
    /// The moves and the engines' evaluations.
    #[default]
    Moves,
    /// Every game of the round.
    Games,
    /// The standings.
    Standings,
    /// The log, taller than the strip under the board.
    Log,
}

impl Pane {
    fn next(self) -> Pane {
        match self {
            Pane::Moves => Pane::Games,
            Pane::Games => Pane::Standings,
            Pane::Standings => Pane::Log,
            Pane::Log => Pane::Moves,
        }
    }
}

/// Everything the view shows; see the module's documentation.
#[derive(Debug)]
pub struct Screen {
    /// The top line: what runs.
    pub title: String,
    /// The console's commands, shown over its line.
    pub commands: String,
    games: Vec<GameView>,
    standings: Option<serde_json::Value>,
    /// The game picked with the keys; None follows the game under way.
    picked: Option<u32>,
    log: VecDeque<LogLine>,
    /// How many lines back from the newest the log is scrolled (Shift-Up/Down); 0
    /// follows the newest.
    back: usize,
    /// The console line.
    pub console: Console,
    /// The side panel of a small terminal.
    pane: Pane,
}

/// The keys, as the help line shows them.
pub const KEYS: &str = "Tab/Shift-Tab, PgDn/PgUp: pick a game · Esc: follow · Enter: run · Up/Down: history · Shift-Up/Down: log · Ctrl-C: stop";

/// The keys in a small terminal (80 columns at most).
pub const KEYS_SMALL: &str =
    "Tab: pick game · Esc: follow · Ctrl-T: moves/games/standings/log · Ctrl-C: stop";

impl Screen {
    /// An empty view.
    pub fn new(title: &str, commands: &str) -> Screen {
        Screen {
            title: title.to_string(),
            commands: commands.to_string(),
            games: Vec::new(),
            standings: None,
            picked: None,
            log: VecDeque::new(),
            back: 0,
            console: Console::default(),
            pane: Pane::default(),
        }
    }

    /// Reads the games and standings from the model.
    pub fn refresh(&mut self, live: &Live) {
        self.games = live.games();
        self.standings = live.current_standings();
    }

    /// Every game of the round, by number.
    pub fn games(&self) -> &[GameView] {
        &self.games
    }

    /// The standings, when there are.
    pub fn standings(&self) -> Option<&serde_json::Value> {
        self.standings.as_ref()
    }

    /// The log, oldest first.
    pub fn log(&self) -> impl DoubleEndedIterator<Item = &LogLine> + ExactSizeIterator {
        self.log.iter()
    }

    /// How many lines back from the newest the log is scrolled (0: the newest shown).
    pub fn log_back(&self) -> usize {
        self.back
    }

    /// Adds a line argus printed to the log; its tone is read from its start.
    pub fn print(&mut self, text: &str) {
        let text = text.trim_end();
        let tone = if text.starts_with("error") {
            Tone::Error
        } else if text.starts_with("warning") {
            Tone::Warning
        } else {
            Tone::Plain
        };
        self.push(text.to_string(), tone);
    }

    fn push(&mut self, text: String, tone: Tone) {
        // Tabs and other controls would move the terminal's cursor.
        let text = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.log.push_back(LogLine { text, tone });
        // A log scrolled back keeps showing the same lines as new ones come.
        if self.back > 0 {
            self.back += 1;
        }
        while self.log.len() > LOG_KEPT {
            self.log.pop_front();
        }
        self.back = self.back.min(self.log.len().saturating_sub(1));
    }

    /// The game shown: the one picked, or else the first one under way, or else the
    /// last one.
    pub fn selected(&self) -> Option<&GameView> {
        self.picked
            .and_then(|n| self.games.iter().find(|g| g.number == n))
            .or_else(|| self.games.iter().find(|g| g.result.is_none()))
            .or_else(|| self.games.last())
    }

    /// What the side panel shows in a small terminal.
    pub fn pane(&self) -> Pane {
        self.pane
    }

    /// Whether the game shown is one picked (not followed).
    pub fn picked(&self) -> bool {
        self.picked
            .is_some_and(|n| self.games.iter().any(|g| g.number == n))
    }

    fn step(&mut self, forward: bool) {
        if self.games.is_empty() {
            return;
        }
        let at = self
            .selected()
            .and_then(|s| self.games.iter().position(|g| g.number == s.number))
            .unwrap_or(0);
        let len = self.games.len();
        let next = if forward {
            (at + 1) % len
        } else {
            (at + len - 1) % len
        };
        self.picked = Some(self.games[next].number);
    }

    /// Takes a key.
    pub fn key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return Action::Interrupt,
            KeyCode::Char('l') if ctrl => return Action::Redraw,
            KeyCode::Char('t') if ctrl => self.pane = self.pane.next(),
            KeyCode::F(2) => self.pane = self.pane.next(),
            KeyCode::Up if key.modifiers.contains(KeyModifiers::SHIFT) => {
                self.back = (self.back + 1).min(self.log.len().saturating_sub(1));
            }
            KeyCode::Down if key.modifiers.contains(KeyModifiers::SHIFT) => {
                self.back = self.back.saturating_sub(1);
            }
            KeyCode::Tab | KeyCode::PageDown => self.step(true),
            KeyCode::BackTab | KeyCode::PageUp => self.step(false),
            KeyCode::Esc => {
                if self.console.text().is_empty() {
                    self.picked = None;
                    self.back = 0;
                }
                self.console.clear();
            }
            _ => {
                if let Some(line) = self.console.key(key) {
                    self.push(format!("> {line}"), Tone::Typed);
                    return Action::Command(line);
                }
            }
        }
        Action::None
    }
}
