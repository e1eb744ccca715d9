//! The UCI engine adapter: plays the client's side of a game with an engine that speaks
//! the Universal Chess Interface (Stockfish and most modern engines).
//!
//! [`UciEngine`] starts the engine as a child process ([`EngineProcess`]), shakes hands
//! (`uci`/`uciok`, `setoption`, `isready`/`readyok`), and on each turn sends the game's
//! start position and its moves (so the engine sees repetitions) and a `go` built from
//! the clocks or from the fixed [`Limit`]. The engine's last scored `info` line becomes
//! the reply's analysis (`ce`, `acd`, `acs`, `acn`, `pv`), and its `bestmove` the move.
//!
//! Every wait for the engine has a deadline (see [`UciTimeouts`]); an engine that
//! crashes, stalls or answers nonsense makes [`Engine::think`] fail, and the protocol
//! driver reports a fault and restarts it. Every wait also ends when the client's
//! [`Stop`] fires, and [`Engine::quit`] sends `stop` and `quit` and kills an engine that
//! has not quit within [`QUIT_GRACE`]. UCI has no draw offers: a pending offer is
//! declined by moving.
//!
//! No time control makes the adapter send `go infinite` (the engine would never move
//! by itself): an untimed game (TimeControl `-`) or an unknown time control gets
//! `go movetime` [`DEFAULT_MOVETIME`].

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use super::engine_process::{EngineProcess, QUIT_GRACE};
use super::{Decision, Engine, EngineError, Limit, Stop, Turn, TurnClocks};
use crate::epd::Operand;

/// The search time used when the game is untimed (or its time control unknown) and no
/// [`Limit`] was given: `go movetime 1000`.
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(1000);

/// The most moves of the engine's principal variation put in the reply's `pv`, which
/// keeps the record well within its length limit.
pub const MAX_PV_LEN: usize = 32;

/// How long [`UciEngine`] waits for its engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UciTimeouts {
    /// For `uciok` after `uci` and `readyok` after `isready` (10 s).
    pub handshake: Duration,
    /// The least time over the side to move's remaining time allowed for `bestmove`;
    /// the allowance is the larger of this and a tenth of the remaining time (2 s).
    pub clock_margin: Duration,
    /// The time over a fixed (or the default) move time allowed for `bestmove` (5 s).
    pub movetime_margin: Duration,
    /// The time allowed for `bestmove` with a node or depth limit (60 s).
    pub fixed_search: Duration,
    /// How long to wait for `bestmove` after sending `stop` to an engine that missed
    /// its deadline (1 s).
    pub stop_grace: Duration,
}

impl Default for UciTimeouts {
    fn default() -> UciTimeouts {
        UciTimeouts {
            handshake: Duration::from_secs(10),
            clock_margin: Duration::from_secs(2),
            movetime_margin: Duration::from_secs(5),
            fixed_search: Duration::from_secs(60),
            stop_grace: Duration::from_secs(1),
        }
    }
}

/// A UCI engine running as a child process.
#[derive(Debug)]
pub struct UciEngine {
    command: String,
    options: Vec<(String, String)>,
    limit: Option<Limit>,
    timeouts: UciTimeouts,
    /// The running engine; `None` only after a restart failed.
    process: Option<EngineProcess>,
    /// The engine's `id name`, or its command when it gave none.
    name: String,
    /// The client's stop, which ends every wait for the engine.
    stop: Option<Stop>,
}

impl UciEngine {
    /// Starts `command` (split as [`EngineProcess::spawn`] does), waits for `uciok`,
    /// sets each option with `setoption name N value V` (`setoption name N` when the
    /// value is empty, for button options), and waits for `readyok`. With `limit`,
    /// every search uses it instead of the clocks.
    ///
    /// # Errors
    ///
    /// Returns [`EngineError::Start`] when the engine cannot be run or does not
    /// complete the handshake within the deadline.
    pub fn start(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
    ) -> Result<UciEngine, EngineError> {
        UciEngine::start_with(command, options, limit, UciTimeouts::default())
    }

    /// As [`UciEngine::start`], with other deadlines.
    ///
    /// # Errors
    ///
    /// As [`UciEngine::start`].
    pub fn start_with(
        command: &str,
        options: &[(String, String)],
        limit: Option<Limit>,
        timeouts: UciTimeouts,
    ) -> Result<UciEngine, EngineError> {
        let mut engine = UciEngine {
            command: command.to_string(),
            options: options.to_vec(),
            limit,
            timeouts,
            process: None,
            name: command.to_string(),
            stop: None,
        };
        engine.launch()?;
        Ok(engine)
    }

    /// Spawns the engine and shakes hands with it.
    fn launch(&mut self) -> Result<(), EngineError> {
        let mut process = EngineProcess::spawn(&self.command)?;
        if let Some(stop) = &self.stop {
            process.watch(stop);
        }
        let name = handshake(&mut process, &self.options, self.timeouts.handshake).map_err(
            |e| match e {
                EngineError::Interrupted => EngineError::Interrupted,
                EngineError::Failed(reason)
                | EngineError::Timeout(reason)
                | EngineError::Start { reason, .. } => EngineError::Start {
                    command: self.command.clone(),
                    reason,
                },
            },
        )?;
        if let Some(name) = name {
            self.name = name;
        }
        log::info!("UCI engine {:?} is ready ({})", self.name, self.command);
        self.process = Some(process);
        Ok(())
    }

    fn process(&mut self) -> Result<&mut EngineProcess, EngineError> {
        self.process
            .as_mut()
            .ok_or_else(|| EngineError::Failed(format!("{} is not running", self.command)))
    }

    /// Sends `isready` and waits for `readyok`.
    fn sync(&mut self) -> Result<(), EngineError> {
        let wait = self.timeouts.handshake;
        let process = self.process()?;
        is_ready(process, wait)
    }

    /// How long `bestmove` may take after `go`.
    fn search_allowance(&self, turn: &Turn<'_>) -> Duration {
        let t = &self.timeouts;
        match (self.limit, &turn.clocks) {
            (Some(Limit::MoveTime(d)), _) => d.saturating_add(t.movetime_margin),
            (Some(Limit::Nodes(_) | Limit::Depth(_)), _) => t.fixed_search,
            (None, Some(clocks)) => {
                let left = *clocks.remaining.get(turn.position.turn());
                left.saturating_add(t.clock_margin.max(left / 10))
            }
            (None, None) => DEFAULT_MOVETIME.saturating_add(t.movetime_margin),
        }
    }
}

/// Sends `uci`, returns the engine's `id name` once `uciok` came, then sets the options
/// and waits for `readyok`.
fn handshake(
    process: &mut EngineProcess,
    options: &[(String, String)],
    wait: Duration,
) -> Result<Option<String>, EngineError> {
    process.send("uci")?;
    let deadline = deadline_after(wait);
    let mut name = None;
    process.recv_until(deadline, |line| {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("id"), Some("name")) => {
                let rest: Vec<&str> = words.collect();
                if !rest.is_empty() {
                    name = Some(rest.join(" "));
                }
                false
            }
            (Some("uciok"), _) => true,
            _ => false,
        }
    })?;
    for (option, value) in options {
        if value.is_empty() {
            process.send(&format!("setoption name {option}"))?;
        } else {
            process.send(&format!("setoption name {option} value {value}"))?;
        }
    }
    is_ready(process, wait)?;
    Ok(name)
}

/// Sends `isready` and waits `wait` for `readyok`.
fn is_ready(process: &mut EngineProcess, wait: Duration) -> Result<(), EngineError> {
    process.send("isready")?;
    process.recv_until(deadline_after(wait), |line| line.trim() == "readyok")?;
    Ok(())
}

/// The instant `wait` from now, or a day from now when that cannot be represented.
fn deadline_after(wait: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(Duration::from_secs(86_400)))
        .unwrap_or(now)
}

impl Engine for UciEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.process()?.send("ucinewgame")?;
        self.sync()
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        if turn.position.legal_moves().is_empty() {
            return Err(EngineError::Failed("no legal move to play".to_string()));
        }
        if turn.draw_offered {
            log::debug!("UCI engines cannot accept draws: declining by moving");
        }
        let position = position_command(turn);
        let go = go_command(self.limit, turn.clocks.as_ref());
        let allowance = self.search_allowance(turn);
        let stop_grace = self.timeouts.stop_grace;
        let process = self.process()?;
        process.send(&position)?;
        process.send(&go)?;

        let mut search = Search::default();
        let mut deadline = deadline_after(allowance);
        let mut stopped = false;
        let best = loop {
            match process.recv(deadline) {
                Ok(line) => {
                    let mut words = line.split_whitespace();
                    match words.next() {
                        Some("bestmove") => break words.next().unwrap_or("").to_string(),
                        Some("info") => search.update(&line),
                        _ => {}
                    }
                }
                Err(e) if !stopped && Instant::now() >= deadline => {
                    log::warn!("{e}; sending stop");
                    process.send("stop")?;
                    stopped = true;
                    deadline = deadline_after(stop_grace);
                }
                Err(_) if stopped && Instant::now() >= deadline => {
                    return Err(EngineError::Failed(format!(
                        "{} gave no bestmove within {:.1} s, nor {:.1} s after stop",
                        process.command(),
                        allowance.as_secs_f64(),
                        stop_grace.as_secs_f64()
                    )));
                }
                Err(e) => return Err(e),
            }
        };
        let mv = best
            .parse::<UciMove>()
            .ok()
            .and_then(|uci| uci.to_move(turn.position).ok())
            .ok_or_else(|| EngineError::Failed(format!("bestmove {best:?} is not a legal move")))?;
        Ok(Decision::Move {
            mv,
            offer_draw: false,
            claim_draw: false,
            analysis: search.analysis(turn.position, mv),
        })
    }

    fn restart(&mut self) -> Result<(), EngineError> {
        if let Some(mut process) = self.process.take() {
            process.kill();
        }
        self.launch()?;
        self.new_game()
    }

    fn game_over(&mut self, result: Option<&str>) {
        log::debug!(
            "UCI engine {:?}: game over ({})",
            self.name,
            result.unwrap_or("*")
        );
    }

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
        if let Some(process) = self.process.as_mut() {
            process.watch(stop);
        }
    }

    fn quit(&mut self) {
        if let Some(process) = self.process.as_mut() {
            process.quit(&["stop", "quit"], QUIT_GRACE);
        }
    }
}

/// The `position` command for the turn: the game's start (`startpos` when it is the
/// standard position) and its moves. When the moves do not lead from the start to the
/// position (which the driver never lets happen), the position alone is sent.
fn position_command(turn: &Turn<'_>) -> String {
    let fen = |pos: &Chess| Fen::from_position(pos, EnPassantMode::Legal).to_string();
    let mut replay = turn.start.clone();
    let consistent = turn.moves.iter().all(|m| {
        let legal = replay.is_legal(*m);
        if legal {
            replay.play_unchecked(*m);
        }
        legal
    }) && fen(&replay) == fen(turn.position);
    if !consistent {
        log::warn!("the game's moves do not lead to its position: sending the position alone");
        return format!("position fen {}", fen(turn.position));
    }
    let mut line = if fen(turn.start) == fen(&Chess::default()) {
        "position startpos".to_string()
    } else {
        format!("position fen {}", fen(turn.start))
    };
    if !turn.moves.is_empty() {
        line.push_str(" moves");
        for m in turn.moves {
            line.push(' ');
            line.push_str(&UciMove::from_move(*m, CastlingMode::Standard).to_string());
        }
    }
    line
}

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

/// The `go` command: the fixed limit when there is one, else the clocks, else
/// [`DEFAULT_MOVETIME`].
fn go_command(limit: Option<Limit>, clocks: Option<&TurnClocks>) -> String {
    match (limit, clocks) {
        (Some(Limit::Nodes(n)), _) => format!("go nodes {n}"),
        (Some(Limit::Depth(d)), _) => format!("go depth {d}"),
        (Some(Limit::MoveTime(t)), _) => format!("go movetime {}", millis(t).max(1)),
        (None, Some(c)) => {
            let mut line = format!(
                "go wtime {} btime {} winc {} binc {}",
                millis(c.remaining.white),
                millis(c.remaining.black),
                millis(c.increment.white),
                millis(c.increment.black)
            );
            if let Some(n) = c.moves_to_go.filter(|n| *n > 0) {
                line.push_str(&format!(" movestogo {n}"));
            }
            line
        }
        (None, None) => format!("go movetime {}", millis(DEFAULT_MOVETIME)),
    }
}

/// A score from an `info` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Score {
    /// Centipawns from the side to move's view.
    Cp(i64),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i64),
}

impl Score {
    /// The EPD `ce` (spec 6.7): centipawns kept within ±32000, a mate in N as
    /// 32767 - (2N - 1), being mated in N as -32767 + 2N.
    fn ce(self) -> i64 {
        match self {
            Score::Cp(cp) => cp.clamp(-32000, 32000),
            Score::Mate(n) if n > 0 => 32767 - (2 * n.min(383) - 1),
            Score::Mate(n) => -32767 + 2 * n.saturating_abs().min(383),
        }
    }
}

/// What an `info` line says, as far as the analysis needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Info {
    depth: Option<u64>,
    nodes: Option<u64>,
    time_ms: Option<u64>,
    multipv: Option<u64>,
    score: Option<Score>,
    pv: Vec<String>,
}

/// The keywords of an `info` line, which end a `pv`.
const INFO_KEYWORDS: &[&str] = &[
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
];

impl Info {
    /// Reads an `info` line; what it cannot read it leaves out.
    fn parse(line: &str) -> Info {
        let mut info = Info::default();
        let mut words = line.split_whitespace().peekable();
        if words.peek() == Some(&"info") {
            words.next();
        }
        let number = |w: Option<&str>| w.and_then(|w| w.parse::<u64>().ok());
        while let Some(word) = words.next() {
            match word {
                "depth" => info.depth = number(words.next()),
                "nodes" => info.nodes = number(words.next()),
                "time" => info.time_ms = number(words.next()),
                "multipv" => info.multipv = number(words.next()),
                "score" => {
                    let kind = words.next();
                    let value = words.next().and_then(|w| w.parse::<i64>().ok());
                    info.score = match (kind, value) {
                        (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                        (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                        _ => None,
                    };
                }
                "pv" => {
                    info.pv.clear();
                    while let Some(w) = words.next_if(|w| !INFO_KEYWORDS.contains(w)) {
                        info.pv.push(w.to_string());
                    }
                }
                // The rest of the line is free text.
                "string" => break,
                _ => {}
            }
        }
        info
    }
}

/// The engine's search as its `info` lines tell it.
#[derive(Debug, Default)]
struct Search {
    /// The last line with a score (of the first line of a multi-PV search).
    scored: Option<Info>,
    /// The latest depth, nodes and time of any line.
    latest: Info,
}

impl Search {
    fn update(&mut self, line: &str) {
        let info = Info::parse(line);
        if info.multipv.is_some_and(|n| n != 1) {
            return;
        }
        self.latest.depth = info.depth.or(self.latest.depth);
        self.latest.nodes = info.nodes.or(self.latest.nodes);
        self.latest.time_ms = info.time_ms.or(self.latest.time_ms);
        if info.score.is_some() {
            self.scored = Some(info);
        }
    }

    /// The analysis operations for a reply playing `mv` from `pos`: `ce`, `acd`,
    /// `acs`, `acn` and `pv`, each when known. The `pv` is given only when it starts
    /// with the move played.
    fn analysis(&self, pos: &Chess, mv: Move) -> Vec<(String, Vec<Operand>)> {
        let empty = Info::default();
        let best = self.scored.as_ref().unwrap_or(&empty);
        let int = |v: u64| Operand::Integer(i64::try_from(v).unwrap_or(i64::MAX));
        let mut ops = Vec::new();
        if let Some(score) = best.score {
            ops.push(("ce".to_string(), vec![Operand::Integer(score.ce())]));
        }
        if let Some(depth) = best.depth.or(self.latest.depth) {
            ops.push(("acd".to_string(), vec![int(depth)]));
        }
        if let Some(ms) = best.time_ms.or(self.latest.time_ms) {
            ops.push(("acs".to_string(), vec![int(ms / 1000)]));
        }
        if let Some(nodes) = best.nodes.or(self.latest.nodes) {
            ops.push(("acn".to_string(), vec![int(nodes)]));
        }
        let pv = pv_to_san(pos, &best.pv);
        if pv.first().is_some_and(|(m, _)| *m == mv) {
            ops.push((
                "pv".to_string(),
                pv.into_iter().map(|(_, san)| san_operand(san)).collect(),
            ));
        }
        ops
    }
}

/// Plays the UCI moves of `pv` on a copy of `pos`, up to the first one that is not
/// legal and at most [`MAX_PV_LEN`] of them, and returns each with its SAN.
fn pv_to_san(pos: &Chess, pv: &[String]) -> Vec<(Move, String)> {
    let mut pos = pos.clone();
    let mut out = Vec::new();
    for text in pv.iter().take(MAX_PV_LEN) {
        let Some(m) = text
            .parse::<UciMove>()
            .ok()
            .and_then(|uci| uci.to_move(&pos).ok())
        else {
            break;
        };
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        out.push((m, san.to_string()));
    }
    out
}

/// A SAN move as an operand that reads back unchanged.
fn san_operand(san: String) -> Operand {
    Operand::unquoted(&san).unwrap_or(Operand::Move(san))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use shakmaty::ByColor;
    use shakmaty::fen::Fen;

    use super::*;

    /// A fake UCI engine: a shell script that logs its input to a file and answers
    /// `go` and `stop` with the given shell commands.
    struct Fake {
        _dir: tempfile::TempDir,
        log: PathBuf,
        command: String,
    }

    impl Fake {
        fn new(on_go: &str, on_stop: &str) -> Fake {
            let dir = tempfile::tempdir().unwrap();
            let script = dir.path().join("fake engine.sh");
            let log = dir.path().join("stdin.log");
            let text = format!(
                r#"log="$1"
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  case "$line" in
    uci) echo "Fake engine, a banner"; echo "id name Fake Engine 1.0"
         echo "id author Nobody"
         echo "option name Hash type spin default 16 min 1 max 64"; echo uciok ;;
    isready) echo readyok ;;
    go*) {on_go} ;;
    stop) {on_stop} ;;
    quit) exit 0 ;;
  esac
done
"#
            );
            std::fs::write(&script, text).unwrap();
            let command = format!("sh \"{}\" \"{}\"", script.display(), log.display());
            Fake {
                _dir: dir,
                log,
                command,
            }
        }

        /// A fake that answers `go` with `info` lines and `bestmove`.
        fn answering(lines: &[&str]) -> Fake {
            let echoes: Vec<String> = lines.iter().map(|l| format!("echo '{l}'")).collect();
            Fake::new(&echoes.join("; "), ":")
        }

        fn start(&self) -> UciEngine {
            UciEngine::start(&self.command, &[], None).unwrap()
        }

        fn input(&self) -> Vec<String> {
            read_lines(&self.log)
        }
    }

    fn read_lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn fast() -> UciTimeouts {
        UciTimeouts {
            handshake: Duration::from_millis(2000),
            clock_margin: Duration::from_millis(100),
            movetime_margin: Duration::from_millis(100),
            fixed_search: Duration::from_millis(300),
            stop_grace: Duration::from_millis(100),
        }
    }

    /// The position after playing `ucis` from `start`, and the moves.
    fn play(start: &Chess, ucis: &[&str]) -> (Chess, Vec<Move>) {
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for uci in ucis {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        (pos, moves)
    }

    fn from_fen(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn turn<'a>(
        start: &'a Chess,
        pos: &'a Chess,
        moves: &'a [Move],
        clocks: Option<TurnClocks>,
    ) -> Turn<'a> {
        Turn {
            position: pos,
            start,
            moves,
            clocks,
            draw_offered: false,
        }
    }

    fn clocks(white_ms: u64, black_ms: u64) -> TurnClocks {
        TurnClocks {
            remaining: ByColor {
                white: Duration::from_millis(white_ms),
                black: Duration::from_millis(black_ms),
            },
            increment: ByColor {
                white: Duration::ZERO,
                black: Duration::ZERO,
            },
            moves_to_go: None,
        }
    }

    fn ops(analysis: &[(String, Vec<Operand>)]) -> String {
        analysis
            .iter()
            .map(|(op, operands)| {
                let operands: Vec<String> = operands.iter().map(ToString::to_string).collect();
                format!("{op} {}", operands.join(" "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn played(decision: Decision) -> (Move, Vec<(String, Vec<Operand>)>) {
        match decision {
            Decision::Move {
                mv,
                offer_draw: false,
                claim_draw: false,
                analysis,
            } => (mv, analysis),
            other => panic!("not a plain move: {other:?}"),
        }
    }

    #[test]
    fn handshakes_sets_options_and_starts_games() {
        let fake = Fake::answering(&["bestmove e2e4"]);
        let options = vec![
            ("Hash".to_string(), "32".to_string()),
            ("Clear Hash".to_string(), String::new()),
        ];
        let mut engine = UciEngine::start(&fake.command, &options, None).unwrap();
        assert_eq!(engine.name(), "Fake Engine 1.0");
        engine.new_game().unwrap();
        assert_eq!(
            fake.input(),
            [
                "uci",
                "setoption name Hash value 32",
                "setoption name Clear Hash",
                "isready",
                "ucinewgame",
                "isready"
            ]
        );
    }

    #[test]
    fn sends_the_history_and_the_clocks() {
        let fake = Fake::answering(&["bestmove e7e5 ponder g1f3"]);
        let mut engine = fake.start();
        let start = Chess::default();
        let (pos, moves) = play(&start, &["e2e4"]);
        let mut c = clocks(60_000, 30_500);
        c.increment = ByColor {
            white: Duration::from_secs(1),
            black: Duration::from_secs(2),
        };
        c.moves_to_go = Some(20);
        let mut t = turn(&start, &pos, &moves, Some(c));
        t.draw_offered = true;
        let (mv, analysis) = played(engine.think(&t).unwrap());
        assert_eq!(UciMove::from_standard(mv).to_string(), "e7e5");
        assert!(analysis.is_empty());
        let input = fake.input();
        assert_eq!(
            input[input.len() - 2..],
            [
                "position startpos moves e2e4",
                "go wtime 60000 btime 30500 winc 1000 binc 2000 movestogo 20"
            ]
        );
    }

    #[test]
    fn builds_position_commands() {
        let start = from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let (pos, moves) = play(&start, &["e1g1", "e8c8"]);
        assert_eq!(
            position_command(&turn(&start, &pos, &moves, None)),
            "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1 e8c8"
        );
        let std = Chess::default();
        assert_eq!(
            position_command(&turn(&std, &std, &[], None)),
            "position startpos"
        );
        // Moves that do not lead to the position: the position alone.
        let (other, _) = play(&std, &["d2d4"]);
        assert_eq!(
            position_command(&turn(&std, &other, &moves, None)),
            "position fen rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
        );
    }

    #[test]
    fn builds_go_commands() {
        let c = clocks(1500, 2_000_000);
        assert_eq!(
            go_command(None, Some(&c)),
            "go wtime 1500 btime 2000000 winc 0 binc 0"
        );
        assert_eq!(go_command(None, None), "go movetime 1000");
        assert_eq!(
            go_command(Some(Limit::Nodes(5000)), Some(&c)),
            "go nodes 5000"
        );
        assert_eq!(go_command(Some(Limit::Depth(12)), None), "go depth 12");
        assert_eq!(
            go_command(Some(Limit::MoveTime(Duration::from_millis(250))), Some(&c)),
            "go movetime 250"
        );
    }

    #[test]
    fn limits_replace_the_clocks() {
        let fake = Fake::answering(&["bestmove e2e4"]);
        let mut engine = UciEngine::start(&fake.command, &[], Some(Limit::Nodes(1000))).unwrap();
        let start = Chess::default();
        engine
            .think(&turn(&start, &start, &[], Some(clocks(1000, 1000))))
            .unwrap();
        assert_eq!(fake.input().last().unwrap(), "go nodes 1000");
    }

    #[test]
    fn converts_scores() {
        assert_eq!(Score::Cp(35).ce(), 35);
        assert_eq!(Score::Cp(-120).ce(), -120);
        assert_eq!(Score::Cp(99_999).ce(), 32000);
        assert_eq!(Score::Cp(-99_999).ce(), -32000);
        assert_eq!(Score::Mate(1).ce(), 32766);
        assert_eq!(Score::Mate(5).ce(), 32758);
        assert_eq!(Score::Mate(-1).ce(), -32765);
        assert_eq!(Score::Mate(-5).ce(), -32757);
        assert_eq!(Score::Mate(0).ce(), -32767);
        assert!(Score::Mate(i64::MAX).ce() > 32000);
        assert!(Score::Mate(i64::MIN).ce() < -32000);
    }

    #[test]
    fn parses_info_lines() {
        let info = Info::parse(
            "info depth 12 seldepth 17 multipv 1 score mate -3 upperbound nodes 98765 nps 1000 \
             hashfull 3 tbhits 0 time 1999 pv e2e4 e7e5 g1f3",
        );
        assert_eq!(
            info,
            Info {
                depth: Some(12),
                nodes: Some(98765),
                time_ms: Some(1999),
                multipv: Some(1),
                score: Some(Score::Mate(-3)),
                pv: vec!["e2e4".into(), "e7e5".into(), "g1f3".into()],
            }
        );
        let info = Info::parse("info depth 3 pv e2e4 d7d5 score cp 7 string depth 99 pv a2a3");
        assert_eq!(info.depth, Some(3));
        assert_eq!(info.score, Some(Score::Cp(7)));
        assert_eq!(info.pv, ["e2e4", "d7d5"]);
        // Nonsense is left out, never a panic.
        assert_eq!(
            Info::parse("info depth x score cp nodes -1 time 1e9 pv"),
            Info::default()
        );
        assert_eq!(Info::parse(""), Info::default());
    }

    #[test]
    fn converts_the_principal_variation() {
        let pos = from_fen("r3k2r/6P1/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let pv: Vec<String> = ["e1g1", "e8c8", "g7h8q", "d8h8", "a1a8", "h8h1", "c8b7"]
            .map(String::from)
            .into();
        let sans: Vec<String> = pv_to_san(&pos, &pv).into_iter().map(|(_, s)| s).collect();
        // `h8h1` does not answer the check, so the variation stops before it.
        assert_eq!(sans, ["O-O", "O-O-O", "gxh8=Q", "Rxh8", "Ra8+"]);
        let mut search = Search::default();
        search.update("info depth 4 score cp -50 time 12345 nodes 777 pv e1g1 e8c8 g7h8q");
        let castle = pv_to_san(&pos, &pv)[0].0;
        assert_eq!(
            ops(&search.analysis(&pos, castle)),
            "ce -50; acd 4; acs 12; acn 777; pv O-O O-O-O gxh8=Q"
        );
        let analysis = search.analysis(&pos, castle);
        let pv_ops = &analysis.last().unwrap().1;
        assert_eq!(
            pv_ops,
            &[
                Operand::unquoted("O-O").unwrap(),
                Operand::unquoted("O-O-O").unwrap(),
                Operand::unquoted("gxh8=Q").unwrap()
            ]
        );
        // A variation that does not start with the move played is left out.
        let other = pv_to_san(&pos, &["g7h8q".to_string()])[0].0;
        assert_eq!(
            ops(&search.analysis(&pos, other)),
            "ce -50; acd 4; acs 12; acn 777"
        );
    }

    #[test]
    fn reports_the_last_scored_search_line() {
        let fake = Fake::answering(&[
            "info depth 1 score cp 10 nodes 20 pv d2d4",
            "info string score mate 1 pv a2a3",
            "info depth 3 seldepth 5 multipv 1 score cp 25 lowerbound nodes 1234 nps 100 \
             time 2500 pv e2e4 e7e5 g1f3",
            "info depth 3 multipv 2 score cp -5 nodes 1300 pv d2d4",
            "info depth 4 currmove e2e4 currmovenumber 1",
            "bestmove e2e4",
        ]);
        let mut engine = fake.start();
        let start = Chess::default();
        let (mv, analysis) = played(engine.think(&turn(&start, &start, &[], None)).unwrap());
        assert_eq!(UciMove::from_standard(mv).to_string(), "e2e4");
        assert_eq!(
            ops(&analysis),
            "ce 25; acd 3; acs 2; acn 1234; pv e4 e5 Nf3"
        );
        assert_eq!(fake.input().last().unwrap(), "go movetime 1000");
        // Mate scores come through as EPD mate values.
        let fake = Fake::answering(&["info depth 9 score mate 2 pv e2e4", "bestmove e2e4"]);
        let (_, analysis) = played(
            fake.start()
                .think(&turn(&start, &start, &[], None))
                .unwrap(),
        );
        assert_eq!(ops(&analysis), "ce 32764; acd 9; pv e4");
    }

    #[test]
    fn rejects_bad_best_moves() {
        let start = Chess::default();
        for answer in [
            "bestmove (none)",
            "bestmove 0000",
            "bestmove e2e5",
            "bestmove e7e5",
            "bestmove",
            "bestmove xyzzy",
        ] {
            let fake = Fake::answering(&[answer]);
            let err = fake
                .start()
                .think(&turn(&start, &start, &[], None))
                .unwrap_err();
            assert!(
                matches!(&err, EngineError::Failed(r) if r.contains("not a legal move")),
                "{answer}: {err}"
            );
        }
    }

    #[test]
    fn fails_when_the_engine_exits() {
        let fake = Fake::new("exit 3", ":");
        let mut engine = fake.start();
        let start = Chess::default();
        let err = engine
            .think(&turn(&start, &start, &[], None))
            .unwrap_err()
            .to_string();
        assert!(err.contains("exited"), "{err}");
        // A restart brings up a fresh process and starts a new game.
        engine.restart().unwrap();
        assert_eq!(engine.name(), "Fake Engine 1.0");
        let input = fake.input();
        assert_eq!(
            input[input.len() - 4..],
            ["uci", "isready", "ucinewgame", "isready"]
        );
    }

    #[test]
    fn stops_a_stalled_search_and_fails() {
        let fake = Fake::new(":", ":");
        let mut engine = UciEngine::start_with(&fake.command, &[], None, fast()).unwrap();
        let start = Chess::default();
        let started = Instant::now();
        let err = engine
            .think(&turn(&start, &start, &[], Some(clocks(200, 200))))
            .unwrap_err()
            .to_string();
        let took = started.elapsed();
        assert!(err.contains("no bestmove"), "{err}");
        // 200 ms on the clock, 100 ms margin, 100 ms after stop.
        assert!(took >= Duration::from_millis(400), "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        assert_eq!(fake.input().last().unwrap(), "stop");
    }

    #[test]
    fn takes_a_move_given_after_stop() {
        let fake = Fake::new("echo 'info depth 1 score cp 3'", "echo 'bestmove g1f3'");
        let mut engine =
            UciEngine::start_with(&fake.command, &[], Some(Limit::Depth(30)), fast()).unwrap();
        let start = Chess::default();
        let (mv, analysis) = played(engine.think(&turn(&start, &start, &[], None)).unwrap());
        assert_eq!(UciMove::from_standard(mv).to_string(), "g1f3");
        assert_eq!(ops(&analysis), "ce 3; acd 1");
    }

    #[test]
    fn fails_a_stalled_handshake() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("mute.sh");
        std::fs::write(&script, "while read -r line; do :; done\n").unwrap();
        let command = format!("sh {}", script.display());
        let mut timeouts = fast();
        timeouts.handshake = Duration::from_millis(200);
        let started = Instant::now();
        let err = UciEngine::start_with(&command, &[], None, timeouts).unwrap_err();
        assert!(matches!(err, EngineError::Start { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(UciEngine::start("/nonexistent/engine", &[], None).is_err());
    }

    #[test]
    fn fails_without_a_legal_move() {
        let fake = Fake::answering(&["bestmove e2e4"]);
        let mut engine = fake.start();
        let mated = from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        let err = engine.think(&turn(&mated, &mated, &[], None)).unwrap_err();
        assert!(err.to_string().contains("no legal move"), "{err}");
    }

    const STOCKFISH: &str = "/usr/games/stockfish";

    fn check_stockfish_move(decision: Decision, pos: &Chess) {
        let (mv, analysis) = played(decision);
        assert!(pos.is_legal(mv));
        let names: Vec<&str> = analysis.iter().map(|(op, _)| op.as_str()).collect();
        for op in ["ce", "acd", "acn", "pv"] {
            assert!(names.contains(&op), "{op} missing from {}", ops(&analysis));
        }
        let pv = &analysis.iter().find(|(op, _)| op == "pv").unwrap().1;
        let first = pv[0].as_move_text().unwrap();
        assert_eq!(crate::epd::resolve_move(pos, first).unwrap(), mv);
    }

    #[test]
    #[ignore = "needs stockfish"]
    fn stockfish_with_a_node_limit() {
        let options = vec![
            ("Threads".to_string(), "1".to_string()),
            ("Hash".to_string(), "16".to_string()),
        ];
        let mut engine = UciEngine::start(STOCKFISH, &options, Some(Limit::Nodes(1000))).unwrap();
        assert!(engine.name().starts_with("Stockfish"), "{}", engine.name());
        engine.new_game().unwrap();
        let start = Chess::default();
        let decision = engine.think(&turn(&start, &start, &[], None)).unwrap();
        check_stockfish_move(decision, &start);
        // After castling moves in the history, from a position that is not the start.
        let begin =
            from_fen("r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 8");
        let (pos, moves) = play(&begin, &["e1g1", "e8c8"]);
        let decision = engine.think(&turn(&begin, &pos, &moves, None)).unwrap();
        check_stockfish_move(decision, &pos);
    }

    #[test]
    #[ignore = "needs stockfish"]
    fn stockfish_with_clocks() {
        let mut engine = UciEngine::start(STOCKFISH, &[], None).unwrap();
        engine.new_game().unwrap();
        let start = Chess::default();
        let (pos, moves) = play(&start, &["e2e4"]);
        let started = Instant::now();
        let decision = engine
            .think(&turn(&start, &pos, &moves, Some(clocks(1000, 1000))))
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(3));
        check_stockfish_move(decision, &pos);
        // A mate in one is reported as such.
        let mate = from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let (_, analysis) = played(
            engine
                .think(&turn(&mate, &mate, &[], Some(clocks(1000, 1000))))
                .unwrap(),
        );
        assert!(
            ops(&analysis).starts_with("ce 32766;"),
            "{}",
            ops(&analysis)
        );
        engine.restart().unwrap();
        engine.game_over(Some("1-0"));
    }
}
