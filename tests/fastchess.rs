//! argus under fastchess's name, as fishtest's and OpenBench's workers run it: their
//! command lines verbatim (Debian's Stockfish playing), the output read with the rules
//! of their own sources (fishtest's `worker/games.py`, OpenBench's `Client/worker.py`),
//! the version line fishtest pins, and what argus refuses, refused in one line.

#![cfg(unix)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder holding argus under the name `fastchess` (a symlink, as a worker is pointed
/// at it), an `engines` folder with Stockfish and a small EPD book.
struct Worker {
    dir: tempfile::TempDir,
}

impl Worker {
    fn new() -> Worker {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_argus"), dir.path().join("fastchess"))
            .unwrap();
        std::fs::create_dir(dir.path().join("engines")).unwrap();
        std::os::unix::fs::symlink(
            "/usr/games/stockfish",
            dir.path().join("engines").join("stockfish"),
        )
        .unwrap();
        // Balanced positions a few moves into common openings.
        std::fs::write(
            dir.path().join("book.epd"),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n\
             rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n\
             rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -\n\
             rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -\n\
             rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n\
             rnbqkbnr/pp1ppppp/2p5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n",
        )
        .unwrap();
        Worker { dir }
    }

    /// A worker as OpenBench's client lays it out: `Engines/dev` and `Engines/base`
    /// (Stockfish), `Books/frc.epd` (Chess960 positions), `PGNs/`.
    fn openbench() -> Worker {
        let worker = Worker::new();
        for dir in ["Engines", "Books", "PGNs"] {
            std::fs::create_dir(worker.path().join(dir)).unwrap();
        }
        for engine in ["dev", "base"] {
            std::os::unix::fs::symlink(
                "/usr/games/stockfish",
                worker.path().join("Engines").join(engine),
            )
            .unwrap();
        }
        std::fs::write(worker.path().join("Books/frc.epd"), FRC_BOOK).unwrap();
        worker
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `fastchess` with `line` split as a shell would (double quotes keep words
    /// together), in the worker's folder.
    fn run(&self, line: &str) -> Output {
        self.run_as("fastchess", line)
    }

    /// Runs argus under the name `name` (a symlink made the first time) with `line`, in
    /// the worker's folder.
    fn run_as(&self, name: &str, line: &str) -> Output {
        let exe = self.path().join(name);
        if !exe.exists() {
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_argus"), &exe).unwrap();
        }
        Command::new(exe)
            .args(shell_words(line))
            .current_dir(self.path())
            .output()
            .unwrap()
    }
}

/// `line` split at spaces, a quoted part (double or single quotes) one word without its
/// quotes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' | '\'' if quote.is_none() => {
                quote = Some(c);
                any = true;
            }
            c if quote == Some(c) => quote = None,
            ' ' if quote.is_none() => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            _ => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What fishtest's worker takes from a run, read as `parse_fastchess_output` reads it.
#[derive(Debug, Default)]
struct FishtestReading {
    wins: u32,
    losses: u32,
    draws: u32,
    pentanomial: [u32; 5],
    crashes: u32,
    time_losses: u32,
    crc: Option<String>,
    /// The lines that would fail the run (fastchess's error words), and those it posts
    /// as warnings.
    errors: Vec<String>,
}

/// Reads `lines` (standard output and error, as the worker merges them) as fishtest's
/// worker does for a task of `games_to_play` games sent in batches of `batch_size`: its
/// regular expressions for the results, its assertions on them, its words for crashes,
/// time losses and errors, `Finished match` only once every game is counted.
fn fishtest_reads(lines: &[&str], games_to_play: u32, batch_size: u32) -> FishtestReading {
    let wld = regex::Regex::new(
        r"Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+), Points: ([0-9.]+) \(",
    )
    .unwrap();
    let ptnml =
        regex::Regex::new(r"Ptnml\(0-2\): \[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\]")
            .unwrap();
    let errors: Vec<regex::Regex> = [
        r"Warning;.*doesn't have option",
        r"Warning; Invalid value for option",
        r"Warning; Failed to set.*option",
        r"Warning; No info line available to extract score from engine",
        r"Warning; Illegal move",
        r"Warning; Could not extract score from engine",
        r"Warning; Illegal PV move",
        r"Warning; Move does not match uci move format",
        r"Warning; PV continues after checkmate",
        r"Warning; PV continues after stalemate",
        r"Warning; PV continues after threefold",
        r"Warning; PV continues after fifty-move rule",
        r"Warning; Incomplete mating PV",
        r"Warning; Too long mating PV",
        r"Warning; Mating PV does not end with checkmate",
        r"Warning; Bestmove does not match beginning of last PV",
        r"Warning; Sign mismatch in mate scores",
    ]
    .iter()
    .map(|p| regex::Regex::new(p).unwrap())
    .collect();
    let mut out = FishtestReading::default();
    let mut updated = 0;
    let mut block: (Option<[u32; 5]>, Option<[u32; 5]>) = (None, None);
    for line in lines {
        let line = line.trim();
        if line.contains("has CRC32:") {
            out.crc = line.split_whitespace().last().map(str::to_string);
        }
        if line.contains("Finished match") {
            assert_eq!(updated, games_to_play, "Finished match uncleanly");
        }
        if errors.iter().any(|p| p.is_match(line)) {
            out.errors.push(line.to_string());
        }
        if line.contains("disconnect") || line.contains("stall") {
            out.crashes += 1;
        }
        if line.contains("on time") || line.contains("timeout") {
            out.time_losses += 1;
        }
        if let Some(m) = wld.captures(line) {
            let n = |i: usize| m[i].parse::<u32>().unwrap();
            let _points: f64 = m[5].parse().unwrap();
            block.0 = Some([n(1), n(2), n(3), n(4), 0]);
        }
        if let Some(m) = ptnml.captures(line) {
            block.1 = Some(std::array::from_fn(|i| m[i + 1].parse().unwrap()));
        }
        if let (Some([games, wins, losses, draws, _]), Some(penta)) = block {
            (out.wins, out.losses, out.draws, out.pentanomial) = (wins, losses, draws, penta);
            assert_eq!(2 * penta.iter().sum::<u32>(), wins + losses + draws);
            assert_eq!(games, 2 * penta.iter().sum::<u32>());
            assert!(games <= updated + batch_size);
            assert!(games <= games_to_play);
            if games == updated + batch_size || games == games_to_play {
                updated = games;
            }
            block = (None, None);
        }
    }
    out
}

/// fishtest's command line for a task of 4 game pairs at 2 games at once (the worker's
/// order of options; names, numbers and paths are examples).
const FISHTEST: &str = "-testEnv -recover -repeat -games 2 -rounds 4 -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 -report penta=true -pgnout file=games.pgn append=false -crc32 pgn=true -site https://tests.example.org/tests/view/abc -event \"Batch 7: New-1a2b3c4d5e vs Base-0f9e8d7c6b\" -srand 12345 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 -variant standard -concurrency 2 -openings file=book.epd format=epd order=random plies=16 start=1 -check-mate-pvs -engine name=New-1a2b3c4d5e tc=2.000+0.020 cmd=stockfish dir=engines option.Hash=16 -engine name=Base-0f9e8d7c6b tc=2.000+0.020 cmd=stockfish dir=engines option.Hash=8 -each proto=uci option.Threads=1";

/// OpenBench's, for a Chess960 book on a worker with Syzygy tables.
const OPENBENCH: &str = "-recover -variant fischerandom -testEnv -concurrency 2 -rounds 4 -games 2 -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 -tb /path/syzygy -tbpieces 4 -engine dir=Engines/ cmd=./dev proto=uci tc=2+0.02 option.Hash=16 option.Threads=1 name=Dev-dev -engine dir=Engines/ cmd=./base proto=uci tc=2+0.02 option.Hash=8 option.Threads=1 name=Base-base -openings file=Books/frc.epd format=epd order=random start=1 -srand 77 -pgnout file=PGNs/1.2.3.0.pgn seldepth=true nodes=true match_line='^info string pgncomment .*'";

#[test]
fn the_version_is_the_one_fishtest_pins() {
    let worker = Worker::new();
    // fishtest's worker.py: this pattern, a sha of 7 or more that begins the one it pins
    // (58072f231dc1ae33204254f867afd0a195f21a2e).
    let pattern =
        regex::Regex::new(r"fastchess alpha [0-9]*.[0-9]*.[0-9]* [0-9]*-([0-9a-f-]*)$").unwrap();
    for flag in ["--version", "-version"] {
        let run = worker.run(flag);
        assert!(run.status.success());
        let line = text(&run.stdout);
        let sha = line
            .lines()
            .find_map(|l| pattern.captures(l))
            .map(|m| m[1].to_string())
            .unwrap_or_default();
        assert!(sha.len() >= 7, "{line}");
        assert!("58072f231dc1ae33204254f867afd0a195f21a2e".starts_with(&sha));
    }
    // And as a subcommand of argus.
    let run = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["fastchess", "-version"])
        .output()
        .unwrap();
    assert_eq!(
        text(&run.stdout),
        "fastchess alpha 1.8.1 01010101-58072f23\n"
    );
}

#[test]
fn what_fastchess_refuses_and_what_argus_does_not_do_yet_are_refused_in_one_line() {
    let worker = Worker::new();
    let engines = "-engine cmd=stockfish dir=engines name=A tc=1+0.01 -engine cmd=stockfish dir=engines name=B tc=1+0.01";
    for (extra, says) in [
        ("-foo 3", "Unrecognized option: -foo parsing failed."),
        ("-rounds", "Option \"-rounds\" expects exactly one value."),
        ("-tb /nowhere", "-tb /nowhere: "),
        (
            "-pgnout file=x.pgn nodes=true match_line=(",
            "-pgnout match_line=: \"(\" is not a regular expression",
        ),
        (
            "-concurrency 100000",
            "Error: Concurrency exceeds number of CPUs. Use -force-concurrency to override.",
        ),
    ] {
        let run = worker.run(&format!("{engines} {extra}"));
        let out = text(&run.stdout);
        assert_eq!(run.status.code(), Some(1), "{extra}: {out}");
        assert!(out.contains(says), "{extra}: {out}");
        assert!(!out.contains("Started game"), "{extra}: {out}");
    }
    // A config.json of fastchess's own is not a match argus can go on with.
    std::fs::write(
        worker.path().join("config.json"),
        r#"{"engines": [], "stats": {}, "rounds": 2}"#,
    )
    .unwrap();
    let run = worker.run("-config file=config.json");
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stdout).starts_with("-config file=config.json: not a match argus saved"),
        "{}",
        text(&run.stdout)
    );
    // Nor with options beside it.
    let run = worker.run(&format!("-config file=config.json {engines}"));
    assert!(
        text(&run.stdout).contains("give no other option"),
        "{}",
        text(&run.stdout)
    );
    // An engine without a name is refused as fastchess 1.8 refuses it.
    let run = worker.run(
        "-engine cmd=stockfish dir=engines tc=1 -engine cmd=stockfish dir=engines name=B tc=1",
    );
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        text(&run.stdout),
        "Error; please specify a name for each engine!\n"
    );
}

#[test]
#[ignore = "needs stockfish"]
fn fishtests_command_line_runs_unchanged_and_reads_as_fishtest_reads_it() {
    let worker = Worker::new();
    let run = worker.run(FISHTEST);
    let stdout = text(&run.stdout);
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
    let reading = fishtest_reads(&lines, 8, 2);
    // Every game counted, in whole pairs.
    assert_eq!(reading.wins + reading.losses + reading.draws, 8, "{stdout}");
    assert_eq!(reading.pentanomial.iter().sum::<u32>(), 4, "{stdout}");
    // The CRC the worker checks the PGN against: zlib's crc32 of the file, as Python's
    // hex() writes it.
    let pgn = std::fs::read(worker.path().join("games.pgn")).unwrap();
    assert_eq!(
        reading.crc.as_deref(),
        Some(format!("{:#x}", crc32fast::hash(&pgn)).as_str()),
        "{stdout}"
    );
    assert_eq!(
        text(&pgn)
            .matches("[Event \"Batch 7: New-1a2b3c4d5e vs Base-0f9e8d7c6b\"]")
            .count(),
        8
    );
    // Each game started and finished once, the first engine White in game 1.
    for n in 1..=8 {
        assert_eq!(
            stdout.matches(&format!("Started game {n} of 8 (")).count(),
            1,
            "{stdout}"
        );
        assert_eq!(
            stdout.matches(&format!("Finished game {n} (")).count(),
            1,
            "{stdout}"
        );
    }
    // As fastchess plays them: the first engine White in the odd games.
    for n in 1..=8 {
        let (white, black) = if n % 2 == 1 {
            ("New-1a2b3c4d5e", "Base-0f9e8d7c6b")
        } else {
            ("Base-0f9e8d7c6b", "New-1a2b3c4d5e")
        };
        assert!(
            stdout.contains(&format!("Started game {n} of 8 ({white} vs {black})")),
            "{stdout}"
        );
    }
    assert!(stdout.contains(
        "Results of New-1a2b3c4d5e vs Base-0f9e8d7c6b (2+0.02, 1t, 16MB - 8MB, book.epd):"
    ));
    // Findings of the PV checks (Debian's Stockfish cuts some mating PVs short) are
    // worded as fastchess words them, on one line each under -testEnv.
    for line in &reading.errors {
        assert!(
            line.contains(" from New-1a2b3c4d5e :: Info; info ")
                || line.contains(" from Base-0f9e8d7c6b :: Info; info "),
            "{line}"
        );
        assert!(
            line.contains(" :: Position; fen ") && line.contains(" :: Moves; "),
            "{line}"
        );
    }
    // The crashes and time losses the worker counts are the games' own.
    let finished: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Finished game"))
        .collect();
    assert_eq!(
        reading.time_losses as usize,
        finished
            .iter()
            .filter(|l| l.contains("loses on time"))
            .count()
    );
    assert_eq!(
        reading.crashes as usize,
        finished
            .iter()
            .filter(|l| l.contains("disconnects") || l.contains("stalls"))
            .count()
    );
    // OpenBench reads the same lines: the game's number at word 2, its result at 6.
    let openbench = openbench_reads(&stdout);
    assert_eq!(openbench.len(), 8);
    for (n, result, _) in &openbench {
        assert!((1..=8).contains(n));
        assert!(
            ["1-0", "0-1", "1/2-1/2"].contains(&result.as_str()),
            "{result}"
        );
    }
    // The match's own folder is gone; the worker's folder holds what fastchess leaves.
    let left: Vec<PathBuf> = std::fs::read_dir(worker.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left.len(), 4, "{left:?}");
}

/// What OpenBench's worker takes from standard output: each `Finished game` line split
/// at spaces, the game's number at index 2, the result at index 6, the reason after the
/// first colon; the reading ends at the first empty line.
fn openbench_reads(stdout: &str) -> Vec<(u32, String, String)> {
    let mut games = Vec::new();
    for line in stdout.lines() {
        if line.trim().is_empty() {
            break;
        }
        if !line.contains("Finished game") {
            continue;
        }
        let tokens: Vec<&str> = line.split(' ').collect();
        let reason = line.split_once(':').map_or("", |(_, r)| r).to_string();
        games.push((tokens[2].parse().unwrap(), tokens[6].to_string(), reason));
    }
    games
}

#[test]
#[ignore = "needs stockfish"]
fn openbenchs_line_with_tables_that_are_not_there_is_refused_naming_them() {
    let worker = Worker::openbench();
    let run = worker.run(OPENBENCH);
    let stdout = text(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    // The book is read first, as fastchess reads it; then the tables refuse the match.
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("-tb /path/syzygy: "), "{stdout}");
    assert!(!stdout.contains("Started game"), "{stdout}");
    assert!(!worker.path().join("PGNs/1.2.3.0.pgn").exists());
}

/// OpenBench's line, its tables the tests' (3 and 4 pieces), its Chess960 book in
/// X-FEN and Shredder-FEN, with one `match_line=` more that Debian's Stockfish prints
/// (`info string NNUE evaluation ...`): the games are Chess960 games from the book's
/// positions, and the PGN reads as OpenBench reads it.
#[test]
#[ignore = "needs stockfish"]
fn openbenchs_pgn_reads_as_openbench_reads_it() {
    let worker = Worker::openbench();
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
    let line = OPENBENCH.replace("/path/syzygy", tables) + " match_line='^info string NNUE'";
    let run = worker.run(&line);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", text(&run.stderr));
    assert_eq!(openbench_reads(&stdout).len(), 8, "{stdout}");
    let pgn = text(&std::fs::read(worker.path().join("PGNs/1.2.3.0.pgn")).unwrap());
    let games = openbench_pgn(&pgn);
    assert_eq!(games.len(), 8, "{pgn}");
    let comment =
        regex::Regex::new(r"^[+-]?M?\d+(?:\.\d+)?/\d+ [\d.]+s, n=\d+, sd=\d+, line=\S").unwrap();
    for (headers, moves) in &games {
        for tag in [
            "Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN",
        ] {
            assert!(headers.contains_key(tag), "{tag}: {headers:?}");
        }
        assert_eq!(headers["Event"], "Fastchess Tournament");
        assert!(headers.contains_key("GameEndTime"), "{headers:?}");
        assert_eq!(headers["Variant"], "Chess960");
        assert!(!moves.is_empty());
        // From one of the book's positions, every move legal by Chess960's rules.
        let fen = &headers["FEN"];
        let setup = fen.parse::<shakmaty::fen::Fen>().unwrap().into_setup();
        let book: Vec<shakmaty::Setup> = FRC_BOOK
            .lines()
            .map(|l| l.parse::<shakmaty::fen::Fen>().unwrap().into_setup())
            .collect();
        assert!(book.iter().any(|b| b.board == setup.board), "{fen}");
        let mut pos: shakmaty::Chess = setup.position(shakmaty::CastlingMode::Chess960).unwrap();
        for (san, _) in moves {
            let m = san
                .parse::<shakmaty::san::San>()
                .unwrap()
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{san} in {fen}: {e}"));
            shakmaty::Position::play_unchecked(&mut pos, m);
        }
        for (san, verbose) in moves {
            // OpenBench's verbose form: every field found, the line it kept after.
            assert!(comment.is_match(verbose), "{san} {{{verbose}}}");
            assert!(verbose.contains("line=info string NNUE"), "{verbose}");
        }
    }
}

/// Chess960 positions, two in X-FEN and two in Shredder-FEN.
const FRC_BOOK: &str = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1
nrbkqrnb/pppppppp/8/8/8/8/PPPPPPPP/NRBKQRNB w KQkq - 0 1
rkrbbqnn/pppppppp/8/8/8/8/PPPPPPPP/RKRBBQNN w CAca - 0 1
qnrbkrbn/pppppppp/8/8/8/8/PPPPPPPP/QNRBKRBN w FCfc - 0 1
";

/// `-tb`: games from positions the tables decide end at once, in fastchess's words.
#[test]
#[ignore = "needs stockfish"]
fn games_the_tables_decide_finish_as_fastchess_says_it() {
    let worker = Worker::new();
    std::fs::write(
        worker.path().join("endings.epd"),
        "8/8/8/4k3/8/8/8/R3K3 w - -\n8/8/3k4/3r4/8/8/3R4/3K4 w - -\n",
    )
    .unwrap();
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
    let run = worker.run(&format!(
        "-engine cmd=stockfish dir=engines name=A -engine cmd=stockfish dir=engines name=B -each tc=1+0.01 proto=uci -rounds 2 -games 2 -openings file=endings.epd format=epd -tb {tables} -tbpieces 4 -pgnout file=tb.pgn"
    ));
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    for (n, white, result, reason) in [
        (1, "A vs B", "1-0", "White wins by adjudication: SyzygyTB"),
        (2, "B vs A", "1-0", "White wins by adjudication: SyzygyTB"),
        (3, "A vs B", "1/2-1/2", "Draw by adjudication: SyzygyTB"),
        (4, "B vs A", "1/2-1/2", "Draw by adjudication: SyzygyTB"),
    ] {
        assert!(
            stdout.contains(&format!(
                "Finished game {n} ({white}): {result} {{{reason}}}"
            )),
            "{stdout}"
        );
    }
    let pgn = std::fs::read_to_string(worker.path().join("tb.pgn")).unwrap();
    assert_eq!(
        pgn.matches("[Termination \"adjudication\"]").count(),
        4,
        "{pgn}"
    );
}

/// One game as OpenBench reads it: its tags, and each move with its comment's verbose
/// form.
type ObGame = (HashMap<String, String>, Vec<(String, String)>);

/// A PGN as OpenBench's `pgn_util.py` reads it: headers up to an empty line (`[Name
/// "value"]`), the movetext up to the next, each move with its comment in the verbose
/// form (`score/depth time, n=N, sd=N`, then `line=TEXT` of a kept
/// `info string pgncomment` line or, here, any kept line), `unknown` where a field is
/// missing.
fn openbench_pgn(pgn: &str) -> Vec<ObGame> {
    let value = regex::Regex::new(r#""([^"]*)""#).unwrap();
    let movetext =
        regex::Regex::new(r"\s*(?:\d+\.{1,3} )?([a-zA-Z0-9+=#*-]+) (?:\s*\{\s*([^}]*)\s*\})?")
            .unwrap();
    let score_depth = regex::Regex::new(r"([+-]?M?\d+(?:\.\d+)?)/(\d+)").unwrap();
    let time = regex::Regex::new(r"([\d.]+s)").unwrap();
    let nodes = regex::Regex::new(r"n=(\d+)").unwrap();
    let seldepth = regex::Regex::new(r"sd=(\d+)").unwrap();
    let line = regex::Regex::new(r#"line="([^"]*)""#).unwrap();
    let mut games = Vec::new();
    let mut lines = pgn.lines();
    loop {
        let block = |lines: &mut std::str::Lines| -> Vec<String> {
            lines
                .by_ref()
                .map(str::trim_end)
                .take_while(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        };
        let headers = block(&mut lines);
        let moves = block(&mut lines);
        if headers.is_empty() || moves.is_empty() {
            break;
        }
        let headers: HashMap<String, String> = headers
            .iter()
            .map(|l| {
                let name = l.split_whitespace().next().unwrap()[1..].to_string();
                (name, value.captures(l).unwrap()[1].to_string())
            })
            .collect();
        let text = moves.join(" ");
        let moves = movetext
            .captures_iter(&text)
            .filter(|c| !["1-0", "0-1", "1/2-1/2", "*"].contains(&&c[1]))
            .map(|c| {
                let comment = c.get(2).map_or("", |m| m.as_str());
                let kept = line.captures(comment).map(|l| l[1].to_string());
                let verbose = match (
                    score_depth.find(comment),
                    time.find(comment),
                    nodes.captures(comment),
                    seldepth.captures(comment),
                ) {
                    (Some(sd), Some(t), Some(n), Some(s)) => {
                        let mut parts = vec![
                            format!("{} {}", sd.as_str(), t.as_str()),
                            format!("n={}", &n[1]),
                            format!("sd={}", &s[1]),
                        ];
                        if let Some(kept) = kept {
                            parts.push(format!("line={kept}"));
                        }
                        parts.join(", ")
                    }
                    _ => "unknown".to_string(),
                };
                (c[1].to_string(), verbose)
            })
            .collect();
        games.push((headers, moves));
    }
    games
}

#[test]
#[ignore = "needs stockfish"]
fn an_sprt_stops_the_match_at_its_bound_with_fastchesss_lines() {
    let worker = Worker::new();
    // Stockfish against itself is not 100 Elo stronger: H0 within a few pairs (the
    // logistic model: a normalized one so far from the pairs is NaN, as in fastchess).
    let run = worker.run("-testEnv -recover -repeat -games 2 -rounds 30 -ratinginterval 1 -report penta=true -sprt elo0=100 elo1=300 model=logistic -srand 5 -resign movecount=3 score=600 -draw movenumber=20 movecount=4 score=20 -concurrency 2 -openings file=book.epd format=epd order=random -engine name=New tc=1+0.01 cmd=stockfish dir=engines option.Hash=16 -engine name=Base tc=1+0.01 cmd=stockfish dir=engines option.Hash=16 -each proto=uci option.Threads=1");
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let verdict = lines
        .iter()
        .position(|l| *l == "SPRT ([100.00, 300.00]) completed - H0 was accepted")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(lines[verdict + 1], "Finished match", "{stdout}");
    // Every results block carries the SPRT's line, after its pentanomial counts.
    let blocks = lines
        .iter()
        .filter(|l| l.starts_with("Results of New vs Base"))
        .count();
    let llrs: Vec<&&str> = lines.iter().filter(|l| l.starts_with("LLR: ")).collect();
    assert_eq!(blocks, llrs.len(), "{stdout}");
    assert!(
        llrs.iter()
            .all(|l| l.ends_with("(-2.94, 2.94) [100.00, 300.00]")),
        "{stdout}"
    );
    // The match stopped early; no game is printed after the verdict.
    let finished = stdout.matches("Finished game").count();
    assert!(finished < 60, "{stdout}");
    assert!(
        !lines[verdict..]
            .iter()
            .any(|l| l.starts_with("Finished game")),
        "{stdout}"
    );
}

/// Runs argus under the name `cutechess-cli` with `line`, in the worker's folder.
fn cutechess(worker: &Worker, line: &str) -> Output {
    worker.run_as("cutechess-cli", line)
}

#[test]
fn what_cutechess_cli_refuses_and_argus_cannot_do_are_refused_in_one_line() {
    let worker = Worker::new();
    let engines = "-engine cmd=engines/stockfish proto=uci -engine cmd=engines/stockfish name=B proto=uci -each tc=1+0.01";
    for (extra, says) in [
        ("-foo 3", "Warning: Unknown option: \"-foo\""),
        ("-games", "Warning: Option \"-games\" needs 1 argument(s)"),
        (
            "-engine cmd=engines/stockfish proto=uci trust",
            "Warning: trust: argus judges every game by the rules",
        ),
        (
            "-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05",
            "Warning: -sprt: cutechess-cli's SPRT counts single games",
        ),
        (
            "-variant atomic",
            "Warning: -variant atomic: argus plays standard chess",
        ),
        ("-tournament pyramid", "Warning: -tournament pyramid:"),
    ] {
        let run = cutechess(&worker, &format!("{engines} {extra}"));
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{extra}: {err}");
        assert_eq!(err.lines().count(), 1, "{extra}: {err}");
        assert!(err.starts_with(says), "{extra}: {err}");
        assert!(text(&run.stdout).is_empty(), "{extra}");
    }
    // An engine without a protocol, as cutechess-cli refuses it.
    let run = cutechess(&worker, "-engine cmd=a tc=1 -engine cmd=b proto=uci tc=1");
    assert_eq!(text(&run.stderr), "Warning: Missing chess protocol\n");
}

#[test]
#[ignore = "needs stockfish"]
fn a_cutechess_cli_command_line_runs_and_prints_cutechess_clis_lines() {
    let worker = Worker::new();
    let run = cutechess(
        &worker,
        "-engine cmd=engines/stockfish proto=uci -engine cmd=engines/stockfish name=SF2 proto=uci -each tc=1+0.01 option.Hash=16 -games 2 -rounds 3 -repeat -concurrency 2 -openings file=book.epd format=epd order=random -pgnout cc.pgn -ratinginterval 4 -recover -srand 1 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20",
    );
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", text(&run.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    // A score line after every game, the first engine's (named by its program) wins,
    // losses and draws, its score and the games so far.
    let scores: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("Score of stockfish vs SF2: "))
        .collect();
    assert_eq!(scores.len(), 6, "{stdout}");
    for (n, line) in scores.iter().enumerate() {
        let (counts, games) = line["Score of stockfish vs SF2: ".len()..]
            .split_once("  [")
            .unwrap();
        let wld: Vec<u32> = counts.split(" - ").map(|x| x.parse().unwrap()).collect();
        assert_eq!(wld.iter().sum::<u32>() as usize, n + 1, "{line}");
        assert!(games.ends_with(&format!("] {}", n + 1)), "{line}");
    }
    // The ratings after game 4 and at the end, then Finished match.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("Elo difference: "))
            .count(),
        2,
        "{stdout}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("...      White vs Black: "))
            .count(),
        2
    );
    assert_eq!(*lines.last().unwrap(), "Finished match", "{stdout}");
    let pgn = std::fs::read_to_string(worker.path().join("cc.pgn")).unwrap();
    assert_eq!(pgn.matches("[Result ").count(), 6);
}

/// Chess960 under cutechess-cli's command line: positions drawn by `-srand`, and the
/// `-pgnout` copy names the variant as cutechess-cli writes and reads it
/// (`fischerandom`; cutechess reads no `Chess960`).
#[test]
#[ignore = "needs stockfish"]
fn a_cutechess_cli_chess960_match_writes_cutechess_clis_variant_tag() {
    let worker = Worker::new();
    let run = cutechess(
        &worker,
        "-variant fischerandom -engine cmd=engines/stockfish proto=uci -engine cmd=engines/stockfish name=SF2 proto=uci -each tc=1+0.01 -games 2 -rounds 1 -srand 5 -pgnout cc960.pgn",
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let pgn = std::fs::read_to_string(worker.path().join("cc960.pgn")).unwrap();
    assert_eq!(
        pgn.matches("[Variant \"fischerandom\"]").count(),
        2,
        "{pgn}"
    );
    assert_eq!(pgn.matches("[SetUp \"1\"]").count(), 2, "{pgn}");
    assert!(!pgn.contains("Chess960"), "{pgn}");
}

#[test]
#[ignore = "needs stockfish"]
fn fastchess_with_cutechess_output_prints_its_score_and_elo_lines() {
    let worker = Worker::new();
    let run = worker.run("-engine cmd=stockfish dir=engines name=A -engine cmd=stockfish dir=engines name=B -each tc=1+0.01 proto=uci option.Hash=16 -rounds 2 -repeat -concurrency 2 -output format=cutechess -ratinginterval 2 -openings file=book.epd format=epd order=random -draw movenumber=20 movecount=4 score=20 -resign movecount=3 score=600");
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("Score of A vs B: "))
            .count(),
        4,
        "{stdout}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("Elo difference: "))
            .count(),
        2,
        "{stdout}"
    );
    assert!(!stdout.contains("Results of"), "{stdout}");
    let end = lines.iter().position(|l| *l == "Finished match").unwrap();
    assert!(lines[end + 1].starts_with("Total Time: "), "{stdout}");
}

/// `st=` is a time per move, lost on time when the engine takes longer and its
/// `timemargin=` does not forgive it (OpenBench's fixed-time tests: `st=X
/// timemargin=250`); Stockfish behind a pipe that holds each `bestmove` 120 ms.
#[test]
#[ignore = "needs stockfish"]
fn a_fixed_time_per_move_is_lost_on_time_past_its_margin() {
    let worker = Worker::new();
    let slow = worker.path().join("engines/slowfish");
    std::fs::write(
        &slow,
        "#!/bin/sh\n/usr/games/stockfish | while IFS= read -r line; do\n  case \"$line\" in bestmove*) sleep 0.12;; esac\n  printf '%s\\n' \"$line\"\ndone\n",
    )
    .unwrap();
    let mut perms = std::fs::metadata(&slow).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&slow, perms).unwrap();
    let run_with = |margin: &str| {
        let run = worker.run(&format!(
            "-engine cmd=slowfish dir=engines name=Slow st=0.05 {margin} -engine cmd=stockfish dir=engines name=Quick st=0.05 timemargin=250 -each proto=uci -rounds 1 -games 2 -maxmoves 6 -openings file=book.epd format=epd -pgnout file=st.pgn"
        ));
        let stdout = text(&run.stdout);
        assert!(run.status.success(), "{stdout}");
        stdout
    };
    let stdout = run_with("");
    assert!(
        stdout.contains("Finished game 1 (Slow vs Quick): 0-1 {White loses on time ("),
        "{stdout}"
    );
    assert!(
        stdout.contains("Finished game 2 (Quick vs Slow): 1-0 {Black loses on time ("),
        "{stdout}"
    );
    let pgn = std::fs::read_to_string(worker.path().join("st.pgn")).unwrap();
    assert!(pgn.contains("[TimeControl \"0.05/move\"]"), "{pgn}");
    assert!(pgn.contains("[Termination \"time forfeit\"]"), "{pgn}");
    let stdout = run_with("timemargin=250");
    assert!(!stdout.contains("on time"), "{stdout}");
    assert_eq!(
        stdout.matches("{Draw by adjudication}").count(),
        2,
        "{stdout}"
    );
}

#[test]
#[ignore = "needs stockfish"]
fn the_log_file_holds_every_line_to_and_from_the_engines() {
    let worker = Worker::new();
    let run = worker.run("-engine cmd=stockfish dir=engines name=A -engine cmd=stockfish dir=engines name=B -each tc=0.5+0.01 proto=uci -rounds 1 -repeat -log file=match.log level=warn engine=true");
    assert!(run.status.success(), "{}", text(&run.stdout));
    let log = std::fs::read_to_string(worker.path().join("match.log")).unwrap();
    // Every engine started was sent uci and answered uciok (those argus checks before
    // the match, and those that play); two of them searched.
    let started: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(" started: stockfish"))
        .collect();
    let mut searched = 0;
    for line in &started {
        let pid = line.split_whitespace().nth(3).unwrap();
        assert!(log.contains(&format!("engine {pid} > uci\n")), "{pid}");
        assert!(log.contains(&format!("engine {pid} < uciok\n")), "{pid}");
        if log.contains(&format!("engine {pid} > go wtime ")) {
            assert!(log.contains(&format!("engine {pid} < bestmove ")), "{pid}");
            searched += 1;
        }
    }
    assert_eq!(searched, 2, "{log}");
}

#[test]
#[ignore = "needs stockfish"]
fn a_match_stopped_by_ctrl_c_goes_on_with_config_file() {
    use std::io::BufRead;
    let worker = Worker::new();
    let line = "-engine cmd=stockfish dir=engines name=A -engine cmd=stockfish dir=engines name=B -each tc=1+0.01 proto=uci option.Hash=16 -rounds 5 -repeat -concurrency 2 -ratinginterval 1 -openings file=book.epd format=epd order=random -srand 3 -pgnout file=r.pgn -resign movecount=3 score=600 -draw movenumber=20 movecount=4 score=20";
    let mut child = Command::new(worker.path().join("fastchess"))
        .args(shell_words(line))
        .current_dir(worker.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    // Stopped once three games are over, as Ctrl-C stops fastchess.
    let mut finished = 0;
    while finished < 3 {
        let mut l = String::new();
        assert!(out.read_line(&mut l).unwrap() > 0, "{first}");
        finished += usize::from(l.starts_with("Finished game"));
        first.push_str(&l);
    }
    // SAFETY: kill only sends a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    first.push_str(&rest);
    assert_eq!(child.wait().unwrap().code(), Some(1), "{first}");
    assert!(
        first.contains("Tournament was interrupted. To resume the tournament, run: ")
            && first.contains(" -config file=config.json\nFinished match\n"),
        "{first}"
    );
    let saved = std::fs::read_to_string(worker.path().join("config.json")).unwrap();
    let run = worker.run("-config file=config.json");
    let second = text(&run.stdout);
    assert!(run.status.success(), "{second}");
    // Every game once in the PGN, and the last results count them all.
    let pgn = std::fs::read_to_string(worker.path().join("r.pgn")).unwrap();
    assert_eq!(pgn.matches("[Result ").count(), 10, "{first}\n{second}");
    let last_games = second.lines().rfind(|l| l.starts_with("Games: ")).unwrap();
    assert!(last_games.starts_with("Games: 10, "), "{second}");
    // The saved match and its folder are gone once it is over.
    assert!(!worker.path().join("config.json").exists());
    let folder: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert!(!Path::new(folder["folder"].as_str().unwrap()).exists());
}

#[test]
#[ignore = "needs stockfish"]
fn the_guides_example_runs_as_it_stands() {
    // docs/fastchess.md's first example: its `./fastchess` command, its lines joined.
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/fastchess.md"))
            .unwrap();
    let block = guide.split("```\n").nth(1).unwrap();
    let command = block
        .lines()
        .skip_while(|l| !l.starts_with("./fastchess "))
        .map(|l| l.trim_end_matches('\\').trim())
        .collect::<Vec<_>>()
        .join(" ");
    let line = command.strip_prefix("./fastchess ").unwrap();
    let worker = Worker::new();
    let run = worker.run(line);
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", text(&run.stderr));
    assert!(
        stdout.contains("Results of New vs Base (2+0.02, NULL, 16MB, book.epd):"),
        "{stdout}"
    );
    assert!(stdout.contains("\nFinished match\n"), "{stdout}");
    let pgn = std::fs::read_to_string(worker.path().join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Result ").count(), 4);
}
