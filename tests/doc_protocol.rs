//! Every protocol exchange in the documents is a test.
//!
//! A fenced block whose info string is `exchange` (in README.md or docs/*.md) is a
//! script for the referee core:
//!
//! - `a> RECORD`, `b> RECORD`: a line the player on port a (or b) sends to the referee;
//! - `a< RECORD`, `b< RECORD`: a line the referee sends to port a (or b), byte for byte
//!   (without its end of line), in the order the referee sends them;
//! - `# options: ARGS`: the options of `argus serial` for the match (before any line);
//!   `# opening: EPD`: a line of its `--openings` file;
//! - `# wait SECONDS`: the next thing happens SECONDS after the last (else one second);
//! - `# stop`: Ctrl-C at the referee; `# resume`: the referee is started again with
//!   `--resume`; `# console: COMMAND`: the supervisor types COMMAND;
//! - `# pgn: TEXT`: the record of the last game that ended holds TEXT;
//! - any other `#` line is a comment for the reader; blank lines are ignored.
//!
//! Time runs from 0. Every line the referee sends has drained the moment it is sent;
//! a player's line arrives one second (or `# wait`) after the last thing that happened.
//! The referee's timers (the reset and conclude delays, a flag, the sign-on probe) fire
//! when the document shows what they send and nothing has come yet: before a `>`
//! line, a directive or the end of the block, the lines shown until then must have been
//! sent, exactly, and nothing more. The match is `argus serial /dev/ttyS0 /dev/ttyUSB0`
//! with the options given, played on 2026.11.22, on lines whose rate argus does not know
//! (as on a pty).

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use argus::core::supervisor::Command;
use argus::core::{
    DrawRule, GameReport, IllegalRule, Input, MatchConfig, Output, Port, Referee, WireTiming,
};

/// One line of an exchange block, with its line number in the document.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    In(Port, String),
    Out(Port, String),
    Wait(Duration),
    Stop,
    Resume,
    Console(String),
    Pgn(String),
    Begin,
}

#[derive(Clone, Debug)]
struct Block {
    file: PathBuf,
    /// The line of the opening fence.
    line: usize,
    options: Vec<String>,
    openings: Vec<String>,
    steps: Vec<(usize, Step)>,
}

impl Block {
    fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.file.display())
    }
}

const DIRECTIVES: [&str; 9] = [
    "options", "opening", "wait", "stop", "resume", "console", "pgn", "begin", "continue",
];

/// What `# begin` stands for: Ann signs on at port a, Bob at port b.
const SIGN_ONS: [(Port, &str); 2] = [
    (
        Port::A,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"/dev/ttyS0\" \"Ann\";",
    ),
    (
        Port::B,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"COM3\" \"Bob\";",
    ),
];

/// Splits command-line options as a shell would, for the simple quoting of the documents.
fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => w.push(other),
                        None => return Err(format!("unclosed quote in {text:?}")),
                    }
                }
            }
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

fn parse_block(file: &Path, line: usize, body: &[(usize, &str)]) -> Result<Block, String> {
    let mut block = Block {
        file: file.to_path_buf(),
        line,
        options: Vec::new(),
        openings: Vec::new(),
        steps: Vec::new(),
    };
    let at = |n: usize| format!("{}:{n}", file.display());
    for &(n, text) in body {
        if text.trim().is_empty() {
            continue;
        }
        let port_line = |p: char, dir: char| {
            let port = if p == 'a' { Port::A } else { Port::B };
            let record = text[3..].to_string();
            if dir == '>' {
                Step::In(port, record)
            } else {
                Step::Out(port, record)
            }
        };
        let mut chars = text.chars();
        let step = match (chars.next(), chars.next(), chars.next()) {
            (Some(p @ ('a' | 'b')), Some(dir @ ('<' | '>')), Some(' ')) => port_line(p, dir),
            (Some('#'), _, _) => {
                let rest = text[1..].trim();
                let (word, args) = rest.split_once([' ', ':']).unwrap_or((rest, ""));
                if !DIRECTIVES.contains(&word) {
                    continue; // a comment
                }
                let colon = rest[word.len()..].starts_with(':');
                let args = args.trim();
                let bad = || format!("{}: cannot read {text:?}", at(n));
                match (word, colon) {
                    ("options", true) => {
                        if !block.steps.is_empty() {
                            return Err(format!("{}: options come before the lines", at(n)));
                        }
                        block
                            .options
                            .extend(shell_words(args).map_err(|e| format!("{}: {e}", at(n)))?);
                        continue;
                    }
                    ("opening", true) => {
                        block.openings.push(args.to_string());
                        continue;
                    }
                    ("wait", false) => {
                        let secs: f64 = args.parse().map_err(|_| bad())?;
                        Step::Wait(Duration::from_secs_f64(secs))
                    }
                    ("stop", false) if args.is_empty() => Step::Stop,
                    ("resume", false) if args.is_empty() => Step::Resume,
                    ("continue", false) if args.is_empty() && block.steps.is_empty() => {
                        continue;
                    }
                    ("begin", false) if args.is_empty() => {
                        if !block.steps.is_empty() {
                            return Err(format!("{}: begin comes before the lines", at(n)));
                        }
                        Step::Begin
                    }
                    ("console", true) => Step::Console(args.to_string()),
                    ("pgn", true) => Step::Pgn(args.to_string()),
                    _ => return Err(bad()),
                }
            }
            _ => return Err(format!("{}: not a line of an exchange: {text:?}", at(n))),
        };
        block.steps.push((n, step));
    }
    Ok(block)
}

/// The exchange blocks of a Markdown document. A block that starts with `# continue`
/// goes on from where the one before it stopped: it is played with that one's lines
/// first.
fn blocks_of(file: &Path, text: &str) -> Result<Vec<Block>, String> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let info = info.trim();
        let mut body = Vec::new();
        let mut closed = false;
        for (m, inner) in lines.by_ref() {
            if inner.starts_with("```") {
                closed = true;
                break;
            }
            body.push((m, inner));
        }
        if !closed {
            return Err(format!("{}:{n}: a fence that never closes", file.display()));
        }
        if info.split([',', ' ']).next() == Some("exchange") {
            let continues = body
                .iter()
                .find(|(_, l)| !l.trim().is_empty())
                .is_some_and(|(_, l)| l.trim() == "# continue");
            let mut block = parse_block(file, n, &body)?;
            if continues {
                let Some(before) = blocks.last() else {
                    return Err(format!(
                        "{}:{n}: no exchange before to continue",
                        file.display()
                    ));
                };
                if !block.options.is_empty() || !block.openings.is_empty() {
                    return Err(format!(
                        "{}:{n}: a continued exchange has its options",
                        file.display()
                    ));
                }
                let mut steps = before.steps.clone();
                steps.append(&mut block.steps);
                block.steps = steps;
                block.options = before.options.clone();
                block.openings = before.openings.clone();
            }
            blocks.push(block);
        }
    }
    Ok(blocks)
}

/// The documents: README.md and docs/*.md.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn all_blocks() -> Vec<Block> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut blocks = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        blocks.extend(blocks_of(&name, &text).unwrap_or_else(|e| panic!("{e}")));
    }
    blocks
}

/// The match of `argus serial /dev/ttyS0 /dev/ttyUSB0 OPTIONS`, as main.rs builds it.
fn match_config(block: &Block) -> Result<MatchConfig, String> {
    let mut cfg = MatchConfig {
        event: "?".into(),
        site: "?".into(),
        date: "2026.11.22".into(),
        round: None,
        names: [None, None],
        port_labels: ["/dev/ttyS0".into(), "/dev/ttyUSB0".into()],
        time_control: "300+5".parse().unwrap(),
        games: 1,
        openings: Vec::new(),
        reset_delay: Duration::from_secs(5),
        conclude_delay: Duration::from_secs(5),
        draw_rule: DrawRule::Auto,
        illegal: IllegalRule::Loss,
        attended: true,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        keep_info: false,
        variant: Default::default(),
        wire: WireTiming::default(),
    };
    let mut words = block.options.iter();
    while let Some(option) = words.next() {
        if option == "--unattended" {
            cfg.attended = false;
            continue;
        }
        let value = words
            .next()
            .ok_or_else(|| format!("{option} without a value"))?
            .clone();
        let secs = |v: &str| {
            v.parse::<f64>()
                .map(Duration::from_secs_f64)
                .map_err(|e| format!("{option} {v}: {e}"))
        };
        match option.as_str() {
            "--tc" => cfg.time_control = value.parse().map_err(|e| format!("--tc: {e}"))?,
            "--games" => cfg.games = value.parse().map_err(|e| format!("--games: {e}"))?,
            "--event" => cfg.event = value,
            "--site" => cfg.site = value,
            "--round" => cfg.round = Some(value),
            "--name-a" => cfg.names[0] = Some(value),
            "--name-b" => cfg.names[1] = Some(value),
            "--reset-delay" => cfg.reset_delay = secs(&value)?,
            "--conclude-delay" => cfg.conclude_delay = secs(&value)?,
            "--draw-rule" => {
                cfg.draw_rule = match value.as_str() {
                    "auto" => DrawRule::Auto,
                    "claim" => DrawRule::Claim,
                    _ => return Err(format!("--draw-rule {value}")),
                }
            }
            "--variant" => cfg.variant = value.parse()?,
            "--illegal" => {
                cfg.illegal = match value.as_str() {
                    "loss" => IllegalRule::Loss,
                    "fault" => IllegalRule::Fault,
                    _ => return Err(format!("--illegal {value}")),
                }
            }
            other => return Err(format!("{other}: not an option these examples know")),
        }
    }
    // An openings file, read as `argus serial --openings` reads it: each record's
    // position, as FEN, with the names it gives it.
    for epd in &block.openings {
        let read =
            argus::openings::parse_epd(epd.as_bytes()).map_err(|e| format!("{epd}: {e:?}"))?;
        cfg.openings.extend(read);
    }
    Ok(cfg)
}

/// A referee driven by a block.
struct Run<'b> {
    block: &'b Block,
    referee: Referee,
    now: Duration,
    /// What the referee sent and the document has not matched yet.
    sent: VecDeque<(Port, String)>,
    /// What the document shows the referee sending, not matched yet, with line numbers.
    shown: VecDeque<(usize, Port, String)>,
    reports: Vec<GameReport>,
    /// Everything sent, for a dump.
    log: String,
}

impl Run<'_> {
    /// Feeds `input`, and drains what it makes the referee send, at once.
    fn input(&mut self, input: Input) {
        let mut inputs = VecDeque::from([input]);
        while let Some(input) = inputs.pop_front() {
            self.now = self.now.max(input.at());
            self.referee.handle(input);
            while let Some(out) = self.referee.poll_output() {
                match out {
                    Output::Send { port, line, .. } => {
                        let _ = writeln!(self.log, "{port}< {line}");
                        self.sent.push_back((port, line));
                        inputs.push_back(Input::Drained { port, at: self.now });
                    }
                    Output::GameOver(report) => self.reports.push(report),
                    Output::Notice(_) | Output::MatchOver | Output::Stopped => {}
                }
            }
        }
    }

    /// Matches what was sent with what the document shows, firing the referee's timers
    /// while the document shows more than was sent.
    fn settle(&mut self, before: usize) -> Result<(), String> {
        loop {
            while let (Some(sent), Some(shown)) = (self.sent.front(), self.shown.front()) {
                if (sent.0, &sent.1) != (shown.1, &shown.2) {
                    return Err(format!(
                        "{}: the document shows\n    {}< {}\nbut the referee sent\n    {}< {}",
                        self.block.at(shown.0),
                        shown.1,
                        shown.2,
                        sent.0,
                        sent.1
                    ));
                }
                self.sent.pop_front();
                self.shown.pop_front();
            }
            if let Some((port, line)) = self.sent.front() {
                return Err(format!(
                    "{}: the referee also sent, before this line,\n    {port}< {line}",
                    self.block.at(before)
                ));
            }
            let Some((n, port, line)) = self.shown.front() else {
                return Ok(());
            };
            let Some(at) = self.referee.poll_timeout() else {
                return Err(format!(
                    "{}: the document shows\n    {port}< {line}\nbut the referee sent nothing more",
                    self.block.at(*n)
                ));
            };
            self.input(Input::Timeout { at });
        }
    }
}

impl Run<'_> {
    /// Ann and Bob sign on, and the game begins: what the referee sends before the
    /// first respond (the resets and the informs) is not shown.
    fn begin(&mut self, at: Duration) -> Result<(), String> {
        for (i, (port, line)) in SIGN_ONS.iter().enumerate() {
            let _ = writeln!(self.log, "{port}> {line}");
            self.input(Input::Line {
                port: *port,
                at: at + Duration::from_secs(i as u64),
                bytes: line.as_bytes().to_vec(),
                record: None,
            });
        }
        while !self
            .sent
            .iter()
            .any(|(_, l)| l.ends_with("refcom respond;"))
        {
            let at = self
                .referee
                .poll_timeout()
                .ok_or_else(|| "begin: no respond".to_string())?;
            self.input(Input::Timeout { at });
        }
        let unshown: Vec<(Port, String)> = self.sent.drain(..4).collect();
        let refcoms: Vec<&str> = unshown
            .iter()
            .map(|(_, l)| l.rsplit("refcom ").next().unwrap_or(""))
            .collect();
        if refcoms != ["reset;", "reset;", "inform;", "inform;"] {
            return Err(format!("begin: the referee sent {unshown:?}"));
        }
        Ok(())
    }
}

/// Plays a block to a referee; on success, returns what the referee sent.
fn run_block(block: &Block) -> Result<String, String> {
    let cfg = match_config(block).map_err(|e| format!("{}: {e}", block.at(block.line)))?;
    let referee = Referee::new(cfg).map_err(|e| format!("{}: {e}", block.at(block.line)))?;
    let mut run = Run {
        block,
        referee,
        now: Duration::ZERO,
        sent: VecDeque::new(),
        shown: VecDeque::new(),
        reports: Vec::new(),
        log: String::new(),
    };
    let mut gap = Duration::from_secs(1);
    for (n, step) in &block.steps {
        if let Step::Out(port, line) = step {
            run.shown.push_back((*n, *port, line.clone()));
            continue;
        }
        run.settle(*n)
            .map_err(|e| format!("{e}\n(sent:\n{})", run.log))?;
        let at = run.now + gap;
        gap = Duration::from_secs(1);
        match step {
            Step::Out(..) => unreachable!(),
            Step::In(port, line) => {
                let _ = writeln!(run.log, "{port}> {line}");
                run.input(Input::Line {
                    port: *port,
                    at,
                    bytes: line.as_bytes().to_vec(),
                    record: None,
                });
            }
            Step::Wait(d) => gap = *d,
            Step::Begin => run.begin(at)?,
            Step::Stop => run.input(Input::Stop { at }),
            Step::Resume => run.input(Input::Resume { at }),
            Step::Console(text) => {
                let command: Command =
                    text.parse().map_err(|e| format!("{}: {e}", block.at(*n)))?;
                run.input(Input::Supervisor { at, command });
            }
            Step::Pgn(text) => {
                // PGN lines are filled to 80 columns: compared word by word.
                let pgn = run.reports.last().map(|r| r.pgn.as_str()).unwrap_or("");
                let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
                if !words(pgn).contains(&words(text)) {
                    return Err(format!(
                        "{}: the game record does not hold {text:?}:\n{pgn}",
                        block.at(*n)
                    ));
                }
            }
        }
    }
    let last = block.steps.last().map_or(block.line, |(n, _)| *n);
    run.settle(last + 1)
        .map_err(|e| format!("{e}\n(sent:\n{})", run.log))?;
    Ok(run.log)
}

#[test]
fn every_exchange_in_the_documents_is_what_the_referee_does() {
    let blocks = all_blocks();
    assert!(!blocks.is_empty(), "no exchange blocks found");
    let mut failures = Vec::new();
    for block in &blocks {
        if let Err(e) = run_block(block) {
            failures.push(e);
        }
    }
    let mut counts: Vec<(PathBuf, usize)> = Vec::new();
    for block in &blocks {
        match counts.iter_mut().find(|(f, _)| *f == block.file) {
            Some((_, n)) => *n += 1,
            None => counts.push((block.file.clone(), 1)),
        }
    }
    for (file, n) in &counts {
        eprintln!("{}: {n} exchange(s)", file.display());
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Every line the documents show the referee sending is compared: a change to any one
/// byte of any of them fails.
#[test]
fn one_changed_byte_in_any_shown_line_fails() {
    for block in all_blocks() {
        if run_block(&block).is_err() {
            continue; // reported by the test above
        }
        for i in 0..block.steps.len() {
            let Step::Out(port, line) = &block.steps[i].1 else {
                continue;
            };
            // The last byte before the final `;` (the end of an opcode or operand).
            let mut changed = line.clone().into_bytes();
            let k = changed.len().saturating_sub(2);
            changed[k] = if changed[k] == b'x' { b'y' } else { b'x' };
            let mut other = block.clone();
            other.steps[i].1 = Step::Out(*port, String::from_utf8(changed).unwrap());
            assert!(
                run_block(&other).is_err(),
                "{}: a changed byte still passes",
                block.at(block.steps[i].0)
            );
        }
    }
}

/// The options the examples use are options of `argus serial`.
#[test]
fn the_options_of_the_examples_are_argus_serial_options() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["serial", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for block in all_blocks() {
        for word in block.options.iter().filter(|w| w.starts_with("--")) {
            assert!(
                help.contains(&format!("{word} ")) || help.contains(&format!("{word}\n")),
                "{}: {word} is not an option of argus serial",
                block.at(block.line)
            );
        }
        if !block.openings.is_empty() {
            assert!(help.contains("--openings "), "--openings");
        }
    }
}

#[test]
fn the_parser_reads_directives_and_refuses_what_it_does_not_know() {
    let file = Path::new("x.md");
    let text = "```exchange\n# options: --event \"Club championship\" --unattended\n# a comment\na> r\n# wait 2.5\nb< s\n# console: quit\n```\n";
    let blocks = blocks_of(file, text).unwrap();
    assert_eq!(
        blocks[0].options,
        ["--event", "Club championship", "--unattended"]
    );
    assert_eq!(
        blocks[0]
            .steps
            .iter()
            .map(|(_, s)| s.clone())
            .collect::<Vec<_>>(),
        [
            Step::In(Port::A, "r".into()),
            Step::Wait(Duration::from_millis(2500)),
            Step::Out(Port::B, "s".into()),
            Step::Console("quit".into()),
        ]
    );
    for bad in ["a>r", "c> r", "# wait two", "# stop now", "x"] {
        let text = format!("```exchange\n{bad}\n```\n");
        assert!(blocks_of(file, &text).is_err(), "{bad}");
    }
}
