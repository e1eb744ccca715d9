//! The argus benchmark: how fast the referee relays moves, how exactly it charges the
//! clocks, and how fast it reads EPD records. Run it with
//! `cargo bench --bench argus-bench`; it prints one small table.
//!
//! Two in-process matches are played over pseudo-terminal pairs, exactly as `argus demo`
//! plays them: [`mediator::run`] drives the referee on the two pty masters in the main
//! thread, and two [`client::run`] threads play on the slaves. Both sessions write a
//! journal (and a PGN file) into a temporary directory; the journal holds every input
//! with the microsecond it was stamped by the transport.
//!
//! * **Relay latency.** Two instant random movers play enough games for well over a
//!   thousand moves. For every `reply` carrying a move that is followed by a `respond` to
//!   the other port, the latency is the time from the reply's `Rx` stamp (its terminator
//!   was read) to the `Drained` stamp of that respond (it fully left the other port's
//!   output). Drains come in the order lines were sent, so the n-th `Drained` on a port
//!   belongs to the n-th `Tx` on that port.
//! * **Clock charge error.** Two movers that sleep a fixed, cycling time before each
//!   move (0, 3, 7, 12 ms) measure their own think time with [`Instant`] at the entry and
//!   exit of [`Engine::think`]. The referee charges a move from the drain of its respond
//!   to the arrival of the reply, and says what it charged in its `Moved` notices (the
//!   `[%emt]` of the PGN), which a [`Watcher`] collects per port in move order. The error
//!   is the charge minus the mover's own measurement, move by move: what the transports,
//!   the client driver and the scheduler add to a move that took no longer. The movers
//!   resign after 60 moves a game, so the session has a known size.
//! * **EPD parsing.** A referee `respond`, a client `reply` with a string comment and a
//!   `sign_on` with `tcsi` strings are parsed in turn a million times on one core with
//!   [`Record::from_ascii`], behind [`black_box`]; then each kind alone, a quarter of a
//!   million times, to show which costs what.
//!
//! * **Dead-position check.** After every move the referee asks chasolver's fast check
//!   whether the position is dead ([`dead::is_dead`]). It is timed alone, on this thread,
//!   on every position a move of the relay session (and of the engine session, when
//!   Stockfish is installed) produced: each `respond`'s position with its `sm` played.
//!   Each position is timed warm, [`DEAD_ROUNDS`] times keeping the fastest run (the
//!   check is deterministic; the other runs only add the scheduler's noise), and cold,
//!   once after [`EVICT_BYTES`] of other memory traffic, as between two moves of a match. The figures are set
//!   against the relay latency: the check is part of that work, and must not show in
//!   it. Then a few constructed positions of chasolver's own test set on which the fast
//!   check is slowest, and the full search a flag fall asks for ([`dead::can_mate`]).
//!
//! With each session comes its size and wall time, and how many move replies reached
//! the referee before the report that the respond they answer had drained. On a pty the
//! reply can overtake the writer thread's drain notice; the referee holds such a reply
//! until the notice and charges from the drain.
//!
//! The bench needs pseudo-terminals, so it runs on Unix only, like the demo.
//!
//! Nothing is asserted against the targets (p99 relay latency under 1 ms, p99 charge
//! error under 2 ms, at least a million records a second): a loaded machine would make
//! such asserts flaky. The run fails only when a session fails outright (an error, a
//! game missing, a hang caught by a watchdog), or when the referee's charges cannot be
//! matched move for move with what the movers measured.

use std::collections::VecDeque;
use std::error::Error;
use std::hint::black_box;
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

use argus::client::random::RandomEngine;
use argus::client::uci::UciEngine;
use argus::client::{self, ClientOptions, Decision, Engine, EngineError, Limit, Turn};
use argus::core::dead;
use argus::core::{DrawRule, IllegalRule, MatchConfig, Notice, Port, Referee};
use argus::epd::{Record, resolve_move};
use argus::mediator::journal::{self, Event, Journal};
use argus::mediator::{self, Eol, Line, Records, Watcher};
use argus::transport::{LOCAL_PAIRS, local_pair};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};

/// Games of the relay session; eight random games are about 2,500 moves.
const RELAY_GAMES: u32 = 8;
/// Games of the clock session.
const CHARGE_GAMES: u32 = 2;
/// Moves each sleeping mover plays in a game before it resigns, so that the clock
/// session has a known size (about 240 moves) whatever the random games do.
const CHARGE_MOVES_PER_GAME: u32 = 60;
/// The sleeps of the clock session's movers, in milliseconds, cycled move by move.
const THINK_CYCLE_MS: [u64; 4] = [0, 3, 7, 12];
/// The time control of both sessions: long enough that no flag ever falls.
const TIME_CONTROL: &str = "600+5";
/// How many records the mixed parsing loop reads.
const PARSE_ROUNDS: usize = 1_000_000;
/// How many records each single-kind parsing loop reads.
const PARSE_ROUNDS_PER_KIND: usize = 250_000;
/// Records in the file the EPD tools' figures are measured on.
const EPD_TOOL_RECORDS: usize = 100_000;
/// How long the whole run may take before it is declared hung.
const WATCHDOG: Duration = Duration::from_secs(240);
/// The engine of the engine-overhead session (Debian's package `stockfish`).
const STOCKFISH: &str = "/usr/games/stockfish";
/// Games of the engine-overhead session, Stockfish against itself.
const ENGINE_GAMES: u32 = 4;
/// Nodes each engine searches a move in the engine-overhead session.
const ENGINE_NODES: u64 = 1000;

/// How many times each position's dead-position check is timed (the fastest is kept).
const DEAD_ROUNDS: usize = 5;
/// How much other memory is written before each cold dead-position check: twice the
/// per-core L2 cache of the machines this runs on.
const EVICT_BYTES: usize = 2 << 20;
/// Constructed positions of chasolver's test set (its `tests/positions.txt`) on which its
/// fast check takes longest, all dead: what one check can cost at worst in a position
/// that play could reach.
const DEAD_HARD: [&str; 4] = [
    "kb6/b1p2p1p/1pP5/1P6/8/8/5P1P/5K2 w - -",
    "kbK5/b1p2p1p/1pPp4/1P1P4/8/8/5P1P/8 w - -",
    "kb6/b1p2p1p/1pP5/1P6/8/8/5P1P/6K1 w - -",
    "5k2/p1p5/8/8/8/6p1/P1P3Pp/7K w - -",
];
/// Positions for the full search at a flag fall: the side to move's flag falls, and the
/// search decides whether the other side can mate (chasolver's README position, where
/// it cannot; a rook walled in by its own pawns; a position where it can).
const FLAG_POSITIONS: [&str; 3] = [
    "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - -",
    "2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - -",
    "Bb2kb2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8 b - -",
];

/// What the sample records are, in the order of [`SAMPLE_RECORDS`].
const SAMPLE_KINDS: [&str; 3] = ["respond", "reply + c0", "sign_on + tcsi"];
/// The records the parsing loops read: what a referee and a client typically send.
const SAMPLE_RECORDS: [&[u8]; 3] = [
    b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 cc 000:00:00:01 000:00:00:00; \
      fmvn 1; hmvc 0; refcom respond; sm e4;",
    b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 acd 12; acn 48213; ce -25; \
      c0 \"book move, 0.9 s left in the budget\"; refreq reply; sm e5;",
    b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; \
      tcsi \"/dev/pts/3\" \"Crafty 25.2 (4 threads)\";",
];

type BoxError = Box<dyn Error + Send + Sync>;

fn main() -> ExitCode {
    let command: Vec<String> = std::env::args().collect();
    println!("argus-bench: {}", command.join(" "));
    println!(
        "(normally run with `cargo bench --bench argus-bench`; {} core(s) available)",
        thread::available_parallelism().map_or(1, |n| n.get())
    );
    // A session that hangs (a client gone, a port stuck) must not hang the run.
    thread::spawn(|| {
        thread::sleep(WATCHDOG);
        eprintln!("argus-bench: no result after {WATCHDOG:?}; giving up");
        std::process::exit(2);
    });
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("argus-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), BoxError> {
    let relay = play(RELAY_GAMES, |seed| RandomEngine::new(seed, Duration::ZERO))?;
    let relay_latency = relay_latencies(&relay.events)?;

    let charge = play(CHARGE_GAMES, |seed| {
        TimedEngine::new(seed, CHARGE_MOVES_PER_GAME)
    })?;
    let charge_errors = charge_errors(&charge)?;

    let mut parses = vec![(
        "epd: all three in turn".to_string(),
        parse_rate(&SAMPLE_RECORDS, PARSE_ROUNDS)?,
    )];
    for (kind, sample) in SAMPLE_KINDS.iter().zip(SAMPLE_RECORDS) {
        parses.push((
            format!("epd: {kind} only"),
            parse_rate(&[sample], PARSE_ROUNDS_PER_KIND)?,
        ));
    }

    println!();
    println!(
        "{:<34} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}   target",
        "figure (microseconds)", "count", "min", "p50", "p90", "p99", "max"
    );
    print_row(
        "relay: reply in -> respond drained",
        &relay_latency,
        "p99 < 1000",
    );
    print_row(
        "clock: charged - engine think",
        &charge_errors,
        "p99 < 2000",
    );
    println!();
    println!(
        "{:<34} {:>7} {:>9} {:>9}   target",
        "figure", "records", "records/s", "MB/s"
    );
    for (what, parse) in &parses {
        println!(
            "{what:<34} {:>7} {:>9.0} {:>9.1}   >= 1000000 records/s",
            parse.records,
            parse.records as f64 / parse.elapsed.as_secs_f64(),
            parse.bytes as f64 / parse.elapsed.as_secs_f64() / 1e6,
        );
    }
    let (check_rate, normalize_rate) = argus::epd::tools::throughput(EPD_TOOL_RECORDS);
    println!(
        "{:<34} {EPD_TOOL_RECORDS:>7} {check_rate:>9.0}",
        "epd tools: check"
    );
    println!(
        "{:<34} {EPD_TOOL_RECORDS:>7} {normalize_rate:>9.0}",
        "epd tools: normalize"
    );
    println!();
    print_session("relay session", &relay);
    print_session("clock session", &charge);

    let mut dead_positions = vec![("relay session", positions_after_moves(&relay.events)?)];

    println!();
    if std::path::Path::new(STOCKFISH).exists() {
        let engines = engine_session()?;
        dead_positions.push(("engine session", positions_after_moves(&engines.events)?));
        let plies = engines.moves() as f64;
        let wall = engines.wall.as_secs_f64() * 1e3 / plies;
        let inside: Duration = engines.players.iter().flat_map(|p| &p.thinks).sum();
        let inside = inside.as_secs_f64() * 1e3 / plies;
        println!(
            "engine session: stockfish against itself at {ENGINE_NODES} nodes a move, \
             {} games, {plies} plies in {:.2} s wall",
            engines.games,
            engines.wall.as_secs_f64()
        );
        println!(
            "  per ply: {wall:.3} ms wall, {inside:.3} ms inside the engines (go to bestmove), \
             {:.3} ms argus overhead ({:.1}% of the wall; target < 1 ms)",
            wall - inside,
            (wall - inside) / wall * 100.0
        );
    } else {
        println!("engine session: skipped ({STOCKFISH} is not installed)");
    }

    println!();
    print_dead_figures(&dead_positions, &relay_latency)?;
    Ok(())
}

/// The positions after every move a session relayed: each `respond`'s position with its
/// `sm` played, the position the referee checked for a dead position.
fn positions_after_moves(events: &[(usize, Event)]) -> Result<Vec<Chess>, BoxError> {
    let mut positions = Vec::new();
    for (line, event) in events {
        let Event::Tx { text, .. } = event else {
            continue;
        };
        let Ok(rec) = Record::from_ascii(text.as_bytes()) else {
            continue;
        };
        let sm = rec.operands("sm").and_then(|ops| ops.first());
        let (Some("respond"), Some(sm)) = (rec.refcom(), sm) else {
            continue;
        };
        let mut pos: Chess = rec
            .position
            .clone()
            .into_position(CastlingMode::Standard)
            .map_err(|e| format!("journal line {line}: {e}"))?;
        let text = sm.as_move_text().unwrap_or_default();
        let m = resolve_move(&pos, text).map_err(|e| format!("journal line {line}: {e}"))?;
        pos.play_unchecked(m);
        positions.push(pos);
    }
    if positions.is_empty() {
        return Err("a session relayed no move".into());
    }
    Ok(positions)
}

/// Times `f` on each item `rounds` times, keeping the fastest, in microseconds.
fn fastest_of<T, R>(items: &[T], rounds: usize, f: impl Fn(&T) -> R) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; items.len()];
    for _ in 0..rounds {
        for (item, best) in items.iter().zip(&mut best) {
            let started = Instant::now();
            black_box(f(black_box(item)));
            *best = best.min(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    best
}

/// Times `f` on each item once, after writing over [`EVICT_BYTES`] of other memory, in
/// microseconds: closer to the check's cost inside the relay, where the transports, the
/// journal and the threads between two moves have taken the caches.
fn cold_times<T, R>(items: &[T], f: impl Fn(&T) -> R) -> Vec<f64> {
    let mut other = vec![0u8; EVICT_BYTES];
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            for byte in other.iter_mut().step_by(64) {
                *byte = byte.wrapping_add(i as u8);
            }
            black_box(&mut other);
            let started = Instant::now();
            black_box(f(black_box(item)));
            started.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

/// Prints the dead-position check's cost per move, set against the relay latency, and
/// the cost of the hard positions and of the full search at a flag fall.
fn print_dead_figures(sessions: &[(&str, Vec<Chess>)], relay: &[f64]) -> Result<(), BoxError> {
    let mut relay = relay.to_vec();
    relay.sort_by(f64::total_cmp);
    let (relay_p50, relay_p99) = (quantile(&relay, 0.50), quantile(&relay, 0.99));
    println!(
        "{:<34} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}   vs relay p50 / p99",
        "dead check per move (microseconds)", "count", "min", "p50", "p90", "p99", "max"
    );
    for (what, positions) in sessions {
        let warm = fastest_of(positions, DEAD_ROUNDS, dead::is_dead);
        let cold = cold_times(positions, dead::is_dead);
        for (how, mut times) in [("warm", warm), ("cold", cold)] {
            times.sort_by(f64::total_cmp);
            let (p50, p99) = (quantile(&times, 0.50), quantile(&times, 0.99));
            println!(
                "{:<34} {:>7} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1}   {:.1}% / {:.1}%",
                format!("{what}, {how}"),
                times.len(),
                times[0],
                p50,
                quantile(&times, 0.90),
                p99,
                times[times.len() - 1],
                p50 / relay_p50 * 100.0,
                p99 / relay_p99 * 100.0,
            );
        }
    }
    let parse = |fen: &str| -> Result<Chess, BoxError> {
        Ok(fen.parse::<Fen>()?.into_position(CastlingMode::Standard)?)
    };
    let hard = DEAD_HARD
        .iter()
        .map(|fen| parse(fen))
        .collect::<Result<Vec<_>, _>>()?;
    // Seconds each, at worst: timed once.
    let times = fastest_of(&hard, 1, dead::is_dead);
    let shown: Vec<String> = times.iter().map(|t| format!("{:.0}", t / 1e3)).collect();
    println!(
        "dead check, chasolver's hardest constructed positions: {} ms (each)",
        shown.join(", ")
    );
    let flags = FLAG_POSITIONS
        .iter()
        .map(|fen| parse(fen))
        .collect::<Result<Vec<_>, _>>()?;
    let times = fastest_of(&flags, DEAD_ROUNDS, |p| dead::can_mate(p, !p.turn()));
    let shown: Vec<String> = flags
        .iter()
        .zip(&times)
        .map(|(p, t)| format!("{:.0} us ({:?})", t, dead::can_mate(p, !p.turn())))
        .collect();
    println!(
        "flag fall, full search (can the other side mate?): {}",
        shown.join(", ")
    );
    Ok(())
}

/// A UCI adapter with a watch on it: the time each `think` took, that is the engine's
/// search from `position`/`go` to `bestmove` plus the adapter's own few microseconds.
struct Watched {
    engine: UciEngine,
    thinks: Vec<Duration>,
}

impl Engine for Watched {
    fn name(&self) -> String {
        self.engine.name()
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.engine.new_game()
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        let entered = Instant::now();
        let decision = self.engine.think(turn);
        self.thinks.push(entered.elapsed());
        decision
    }
}

/// Stockfish against itself at a fixed node count, through the referee and two
/// adapters over pty pairs.
fn engine_session() -> Result<Session<Watched>, BoxError> {
    let mut engines = Vec::new();
    for _ in 0..2 {
        let engine = UciEngine::start(STOCKFISH, &[], Some(Limit::Nodes(ENGINE_NODES)))?;
        engines.push(Watched {
            engine,
            thinks: Vec::new(),
        });
    }
    let engines = std::sync::Mutex::new(engines);
    play(ENGINE_GAMES, |_| {
        engines
            .lock()
            .expect("no other thread holds it")
            .pop()
            .expect("two engines for two ports")
    })
}

/// A finished in-process match: its journal and its movers, handed back by their
/// threads.
struct Session<E> {
    games: usize,
    wall: Duration,
    events: Vec<(usize, Event)>,
    /// What the referee charged for each move, per port in move order.
    charged: [Vec<Duration>; 2],
    /// The movers on ports A and B.
    players: [E; 2],
    /// How clients failed after the referee had finished the match, if they did.
    late_failures: Vec<String>,
}

impl<E> Session<E> {
    /// The moves the referee charged, both ports together.
    fn moves(&self) -> usize {
        self.charged.iter().map(Vec::len).sum()
    }
}

/// A watcher that keeps what the referee charged for each move, per port in move order,
/// and keeps quiet otherwise: the bench prints only its table.
#[derive(Default)]
struct Charges([Vec<Duration>; 2]);

impl Watcher for Charges {
    fn notice(&mut self, notice: &Notice) {
        if let Notice::Moved {
            number, color, emt, ..
        } = notice
        {
            // Port A plays White in odd-numbered games.
            let port = if (number % 2 == 1) == (*color == Color::White) {
                Port::A
            } else {
                Port::B
            };
            self.0[port.index()].push(*emt);
        }
    }
}

/// Plays `games` games between two movers made by `engine` (seeded 1 and 2) over pty
/// pairs, and returns the journal, the referee's charges and the movers.
fn play<E, F>(games: u32, engine: F) -> Result<Session<E>, BoxError>
where
    E: Engine + Send + 'static,
    F: Fn(u64) -> E,
{
    let dir = tempfile::tempdir()?;
    let config = MatchConfig {
        event: "argus bench".into(),
        site: LOCAL_PAIRS.into(),
        date: "2000.01.01".into(),
        round: None,
        names: [None, None],
        port_labels: ["pty-a".into(), "pty-b".into()],
        time_control: TIME_CONTROL.parse()?,
        games,
        openings: Vec::new(),
        reset_delay: Duration::ZERO,
        conclude_delay: Duration::ZERO,
        draw_rule: DrawRule::Auto,
        illegal: IllegalRule::Loss,
        attended: false,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        keep_info: false,
        variant: Default::default(),
        wire: Default::default(),
    };
    let referee = Referee::new(config.clone())?;

    let mut lines = Vec::with_capacity(2);
    let mut clients = Vec::with_capacity(2);
    for port in Port::BOTH {
        let (referee_end, player_end, address) = local_pair(port.index())?;
        let opts = ClientOptions {
            name: Some(format!("bench {port}")),
            address,
            eol: Eol::Lf,
            checksum: true,
            token: None,
            restarts: None,
        };
        let mut mover = engine(port.index() as u64 + 1);
        let duplex = player_end;
        clients.push(
            thread::Builder::new()
                .name(format!("bench-client-{port}"))
                .spawn(move || {
                    let outcome = client::run(duplex, &mut mover, &opts);
                    (outcome, mover)
                })?,
        );
        lines.push(Line {
            label: format!("pty-{port}"),
            wire: referee_end.into(),
            reopen: None,
        });
    }

    let journal_path = dir.path().join("bench.jsonl");
    let mut journal = Journal::create(&journal_path)?;
    journal.write(&Event::Session {
        version: journal::VERSION,
        argus: env!("CARGO_PKG_VERSION").to_string(),
        started: "2000-01-01T00:00:00Z".into(),
        ports: config.port_labels.clone(),
        lines: None,
        eol: None,
        pgn: None,
        config: Box::new(config),
    })?;
    let mut records = Records {
        journal,
        pgn: Some(dir.path().join("bench.pgn")),
    };
    let lines: [Line; 2] = lines.try_into().map_err(|_| "two lines were expected")?;

    let started = Instant::now();
    let mut charges = Charges::default();
    let reports = mediator::run(
        referee,
        lines,
        Eol::Lf,
        &mut records,
        &mut charges,
        crossbeam_channel::never(),
    )?
    .tally;
    let wall = started.elapsed();
    if reports.finished != games {
        return Err(format!("{} of {games} games were played", reports.finished).into());
    }

    // The referee closes its ends as soon as `disconnect` has drained. A client that the
    // scheduler kept from reading it (or from finishing its last write) then sees the line
    // fail. Every game was played by then, so that is noted, not a failed session; a
    // client that fails during the match would have stalled it instead.
    let mut players = Vec::with_capacity(2);
    let mut late_failures = Vec::new();
    for (client, port) in clients.into_iter().zip(Port::BOTH) {
        let Ok((outcome, mover)) = client.join() else {
            return Err(format!("the client on port {port} panicked").into());
        };
        if let Err(e) = outcome {
            late_failures.push(format!("the client on port {port}: {e}"));
        }
        players.push(mover);
    }
    let players: [E; 2] = players
        .try_into()
        .map_err(|_| "two clients were expected")?;
    Ok(Session {
        games: reports.finished as usize,
        wall,
        events: journal::read(&journal_path)?,
        charged: charges.0,
        players,
        late_failures,
    })
}

/// Whether a line of the journal is a record with this `refcom` (sent by the referee).
fn is_refcom(text: &str, refcom: &str) -> bool {
    Record::from_ascii(text.as_bytes()).is_ok_and(|rec| rec.refcom() == Some(refcom))
}

/// Whether a line of the journal is a `reply` that plays a move.
fn is_move_reply(text: Option<&str>) -> bool {
    text.and_then(|text| Record::from_ascii(text.as_bytes()).ok())
        .is_some_and(|rec| rec.refreq() == Some("reply") && rec.operands("sm").is_some())
}

/// The relay latencies of a session, in microseconds: from each move reply's arrival to
/// the drain of the respond it caused on the other port.
fn relay_latencies(events: &[(usize, Event)]) -> Result<Vec<f64>, BoxError> {
    // For each port, the lines sent and not yet drained, in order; a respond that relays
    // a reply carries the reply's stamp.
    let mut in_flight: [VecDeque<Option<u64>>; 2] = Default::default();
    // The reply just received, while the lines it caused are being journaled.
    let mut relaying: Option<(Port, u64)> = None;
    let mut latencies = Vec::new();
    for (line, event) in events {
        match event {
            Event::Rx { t, port, text, .. } => {
                relaying = is_move_reply(text.as_deref()).then_some((*port, *t));
            }
            Event::Tx { port, text } => {
                let relayed = match relaying {
                    Some((from, t)) if from == port.other() && is_refcom(text, "respond") => {
                        relaying = None;
                        Some(t)
                    }
                    _ => None,
                };
                in_flight[port.index()].push_back(relayed);
            }
            Event::Drained { t, port } => {
                // A reply that overtook the report of its own respond's drain is judged
                // at that drain, so its relay comes after this event: keep waiting.
                match in_flight[port.index()].pop_front() {
                    Some(Some(rx)) => latencies.push(t.saturating_sub(rx) as f64),
                    Some(None) => {}
                    None => {
                        return Err(
                            format!("journal line {line}: a drain with nothing sent").into()
                        );
                    }
                }
            }
            Event::GameOver { .. } => {}
            _ => relaying = None,
        }
    }
    if latencies.is_empty() {
        return Err("the relay session relayed no move".into());
    }
    Ok(latencies)
}

/// The charge errors of the clock session, in microseconds: for each move, in order and
/// per port, what the referee charged minus what the mover measured.
fn charge_errors(session: &Session<TimedEngine>) -> Result<Vec<f64>, BoxError> {
    let mut errors = Vec::new();
    for port in Port::BOTH {
        let thinks = &session.players[port.index()].thinks;
        let charged = &session.charged[port.index()];
        if thinks.len() != charged.len() {
            return Err(format!(
                "port {port}: the mover played {} moves, the referee charged {}",
                thinks.len(),
                charged.len()
            )
            .into());
        }
        for (charge, think) in charged.iter().zip(thinks) {
            errors.push((charge.as_secs_f64() - think.as_secs_f64()) * 1e6);
        }
    }
    if errors.is_empty() {
        return Err("the clock session played no move".into());
    }
    Ok(errors)
}

/// How many move replies reached the referee before the report that the respond they
/// answer had drained. The referee holds such a reply until that report, starts the
/// clock there and charges from it.
fn overtaking_replies(events: &[(usize, Event)]) -> usize {
    // For each port, whether each line sent and not yet drained is a respond.
    let mut in_flight: [VecDeque<bool>; 2] = Default::default();
    let mut overtaking = 0;
    for (_, event) in events {
        match event {
            Event::Tx { port, text } => {
                in_flight[port.index()].push_back(is_refcom(text, "respond"));
            }
            Event::Drained { port, .. } => {
                in_flight[port.index()].pop_front();
            }
            Event::Rx { port, text, .. }
                if is_move_reply(text.as_deref()) && in_flight[port.index()].contains(&true) =>
            {
                overtaking += 1;
            }
            _ => {}
        }
    }
    overtaking
}

/// A random mover that sleeps a cycling time before each move, measures how long each
/// decision took, and resigns after a fixed number of moves in a game.
struct TimedEngine {
    mover: RandomEngine,
    resign_after: u32,
    moves_in_game: u32,
    /// Every move's think time, entry to exit of [`Engine::think`], in order.
    thinks: Vec<Duration>,
}

impl TimedEngine {
    fn new(seed: u64, resign_after: u32) -> TimedEngine {
        TimedEngine {
            mover: RandomEngine::new(seed, Duration::ZERO),
            resign_after,
            moves_in_game: 0,
            thinks: Vec::new(),
        }
    }
}

impl Engine for TimedEngine {
    fn name(&self) -> String {
        "argus bench timed mover".to_string()
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.moves_in_game = 0;
        Ok(())
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        let entered = Instant::now();
        if self.moves_in_game >= self.resign_after {
            // A resignation is not charged, so it is not measured either.
            return Ok(Decision::Resign);
        }
        let sleep = THINK_CYCLE_MS[self.thinks.len() % THINK_CYCLE_MS.len()];
        thread::sleep(Duration::from_millis(sleep));
        let decision = self.mover.think(turn)?;
        self.thinks.push(entered.elapsed());
        self.moves_in_game += 1;
        Ok(decision)
    }
}

/// What the parsing loop did.
struct ParseRate {
    records: usize,
    bytes: usize,
    elapsed: Duration,
}

/// Parses `samples` in turn, `rounds` records in all, on this thread alone.
fn parse_rate(samples: &[&[u8]], rounds: usize) -> Result<ParseRate, BoxError> {
    for sample in samples {
        Record::from_ascii(sample)
            .map_err(|e| format!("{}: {e}", String::from_utf8_lossy(sample)))?;
    }
    // A short warm-up fills the caches and settles the allocator.
    for i in 0..rounds / 100 {
        black_box(Record::from_ascii(black_box(samples[i % samples.len()])).is_ok());
    }
    let mut bytes = 0;
    let mut parsed = 0;
    let started = Instant::now();
    for i in 0..rounds {
        let sample = black_box(samples[i % samples.len()]);
        bytes += sample.len();
        parsed += usize::from(black_box(Record::from_ascii(sample)).is_ok());
    }
    let elapsed = started.elapsed();
    if parsed != rounds {
        return Err(format!("{parsed} of {rounds} records parsed").into());
    }
    Ok(ParseRate {
        records: parsed,
        bytes,
        elapsed,
    })
}

/// The nearest-rank `q`-quantile of `sorted`, which is not empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// `x` rounded to a whole number, for the table.
fn whole(x: f64) -> i64 {
    x.round() as i64
}

/// Prints a session's size, wall time and the moves it charged nothing.
fn print_session<E>(what: &str, session: &Session<E>) {
    println!(
        "{what}: {} games, {} moves in {:.2} s wall ({:.0} moves/s); \
         replies that overtook their respond's drain report (held until it): {}",
        session.games,
        session.moves(),
        session.wall.as_secs_f64(),
        session.moves() as f64 / session.wall.as_secs_f64(),
        overtaking_replies(&session.events),
    );
    for failure in &session.late_failures {
        println!("{what}: after the match was over, {failure}");
    }
}

/// Prints one row of the microsecond table: the distribution of `samples`.
fn print_row(what: &str, samples: &[f64], target: &str) {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    println!(
        "{what:<34} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}   {target}",
        sorted.len(),
        whole(sorted[0]),
        whole(quantile(&sorted, 0.50)),
        whole(quantile(&sorted, 0.90)),
        whole(quantile(&sorted, 0.99)),
        whole(sorted[sorted.len() - 1]),
    );
}
