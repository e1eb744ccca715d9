//! `soak-check GAMES PGN JOURNAL`: the checks `scripts/soak.sh` makes on a finished
//! match of random movers (which never resign, offer or claim draws).
//!
//! - GAMES games were asked, the PGN holds GAMES games, and the journal holds one
//!   `game_over` for each of games 1 to GAMES, in order;
//! - the PGN file is exactly the `game_over` records of the journal, in order;
//! - every game is legal (read with pgn-reader, replayed with shakmaty), every move is
//!   written in canonical SAN and PlyCount counts them;
//! - every game ends normally, where the rules end it: mate, stalemate, a dead position,
//!   repetition or the fifty/seventy-five-move rules (argus's automatic draws), with the
//!   result and the final comment argus writes for that end, and not past an earlier one.
//!
//! Every problem is printed on a line starting with `FAIL`; the exit status is 1 if there
//! is any.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::process::ExitCode;

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::{Epd, Fen};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

/// How the rules end the game in `pos`, as argus decides it with automatic draws
/// (src/core/game.rs, `automatic_end`): the result and argus's reason. `reps` is how
/// many times `pos` has occurred.
fn rules_end(pos: &Chess, reps: usize) -> Option<(&'static str, String)> {
    let draw = |reason: &str| Some(("1/2-1/2", reason.to_string()));
    if pos.is_checkmate() {
        return Some(match pos.turn() {
            Color::Black => ("1-0", "White mates".into()),
            Color::White => ("0-1", "Black mates".into()),
        });
    }
    if pos.is_stalemate() {
        return draw("Stalemate");
    }
    // A dead position as argus finds one: bare material, or chasolver's fast check for
    // both sides (the adapter is argus's own; chasolver's answers are its tests' business).
    if argus::core::dead::is_dead(pos) {
        return draw("Dead position: neither side can mate");
    }
    if reps >= 5 {
        return draw("Draw by fivefold repetition");
    }
    if pos.halfmoves() >= 150 {
        return draw("Draw by the seventy-five-move rule");
    }
    if reps >= 3 {
        return draw("Draw by threefold repetition");
    }
    if pos.halfmoves() >= 100 {
        return draw("Draw by the fifty-move rule");
    }
    None
}

/// One game of the PGN as read and replayed.
#[derive(Default)]
struct Game {
    tags: HashMap<String, String>,
    pos: Chess,
    /// How many times each position (EPD: board, turn, castling, legal en passant) has
    /// occurred.
    seen: HashMap<String, usize>,
    plies: usize,
    /// The first end the rules imposed before the last move: the ply and the reason.
    went_on_after: Option<(usize, String)>,
    /// The first problem with the moves; the moves after it are not replayed.
    bad_move: Option<String>,
    /// The last complete comment (after the last move: argus's final comment).
    last_comment: String,
    partial: Vec<u8>,
    marker: String,
}

impl Game {
    fn count_position(&mut self) -> usize {
        let key = Epd::from_position(&self.pos, EnPassantMode::Legal).to_string();
        let n = self.seen.entry(key).or_default();
        *n += 1;
        *n
    }

    fn reps(&self) -> usize {
        let key = Epd::from_position(&self.pos, EnPassantMode::Legal).to_string();
        self.seen.get(&key).copied().unwrap_or(0)
    }
}

struct Check;

impl Visitor for Check {
    type Tags = Game;
    type Movetext = Game;
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Game, Game> {
        ControlFlow::Continue(Game::default())
    }

    fn tag(&mut self, game: &mut Game, name: &[u8], value: RawTag<'_>) -> ControlFlow<Game> {
        let name = String::from_utf8_lossy(name).into_owned();
        game.tags
            .insert(name, value.decode_utf8_lossy().into_owned());
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, mut game: Game) -> ControlFlow<Game, Game> {
        if let Some(fen) = game.tags.get("FEN") {
            let pos = fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok());
            match pos {
                Some(pos) => game.pos = pos,
                None => game.bad_move = Some(format!("FEN {fen:?} is not a legal position")),
            }
        }
        game.count_position();
        ControlFlow::Continue(game)
    }

    fn san(&mut self, game: &mut Game, written: SanPlus) -> ControlFlow<Game> {
        if game.bad_move.is_some() {
            return ControlFlow::Continue(());
        }
        if game.went_on_after.is_none()
            && let Some((_, reason)) = rules_end(&game.pos, game.reps())
        {
            game.went_on_after = Some((game.plies, reason));
        }
        let ply = game.plies + 1;
        let m = match written.san.to_move(&game.pos) {
            Ok(m) => m,
            Err(e) => {
                let fen = Fen::from_position(&game.pos, EnPassantMode::Legal);
                game.bad_move = Some(format!("ply {ply}: {written} is not legal in {fen}: {e}"));
                return ControlFlow::Continue(());
            }
        };
        let canonical = SanPlus::from_move_and_play_unchecked(&mut game.pos, m);
        if canonical != written {
            game.bad_move = Some(format!("ply {ply}: {written} is written for {canonical}"));
        }
        game.plies = ply;
        game.count_position();
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, game: &mut Game, comment: RawComment<'_>) -> ControlFlow<Game> {
        game.partial.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(&mut self, game: &mut Game, comment: RawComment<'_>) -> ControlFlow<Game> {
        game.partial.extend_from_slice(comment.as_bytes());
        let text = String::from_utf8_lossy(&game.partial).into_owned();
        game.last_comment = text.split_whitespace().collect::<Vec<_>>().join(" ");
        game.partial.clear();
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, game: &mut Game) -> ControlFlow<Game, Skip> {
        game.bad_move
            .get_or_insert_with(|| "a variation in a referee's record".into());
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, game: &mut Game, outcome: Outcome) -> ControlFlow<Game> {
        game.marker = outcome.to_string();
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: Game) -> Game {
        game
    }
}

/// The problems of one game; `name` names it in messages.
fn check_game(game: &Game, name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |what: String| problems.push(format!("{name}: {what}"));
    let tag = |t: &str| game.tags.get(t).map_or("", String::as_str);
    if let Some(bad) = &game.bad_move {
        fail(bad.clone());
        return problems;
    }
    if tag("PlyCount") != game.plies.to_string() {
        fail(format!(
            "PlyCount {:?} but {} moves",
            tag("PlyCount"),
            game.plies
        ));
    }
    let result = tag("Result");
    if game.marker != result {
        fail(format!(
            "Result tag {result:?} but the movetext ends with {:?}",
            game.marker
        ));
    }
    let termination = tag("Termination");
    let comment = &game.last_comment;
    if termination != "normal" {
        fail(format!(
            "Termination {termination:?}, {result}: {comment:?} (random movers end games only by the rules)"
        ));
    }
    if let Some((ply, reason)) = &game.went_on_after {
        fail(format!(
            "the game went on after ply {ply}, where the rules end it: {reason}"
        ));
    }
    match rules_end(&game.pos, game.reps()) {
        Some((want, reason)) if termination == "normal" => {
            if result != want {
                fail(format!(
                    "{reason} after ply {}, but Result is {result}",
                    game.plies
                ));
            }
            if !comment.ends_with(&reason) {
                fail(format!(
                    "{reason} after ply {}, but the final comment is {comment:?}",
                    game.plies
                ));
            }
        }
        Some(_) => {}
        None if termination == "normal" => {
            let fen = Fen::from_position(&game.pos, EnPassantMode::Legal);
            fail(format!(
                "Termination normal, {result}, {comment:?}, but the rules do not end the game in the final position {fen}"
            ));
        }
        None => {}
    }
    problems
}

/// A `game_over` record of the journal.
struct GameOver {
    line: usize,
    game: u64,
    pgn: String,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [games, pgn_path, journal_path] = args.as_slice() else {
        eprintln!("usage: soak-check GAMES PGN JOURNAL");
        return ExitCode::from(2);
    };
    let Ok(asked) = games.parse::<usize>() else {
        eprintln!("soak-check: {games:?} is not a number of games");
        return ExitCode::from(2);
    };
    let read = |path: &str| {
        std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("soak-check: cannot read {path}: {e}");
            std::process::exit(2)
        })
    };
    let pgn = read(pgn_path);
    let journal = read(journal_path);
    let mut problems: Vec<String> = Vec::new();

    // The journal: every line readable, one game_over per game, in order.
    let mut overs: Vec<GameOver> = Vec::new();
    let mut resumes: Vec<usize> = Vec::new();
    for (i, text) in journal.lines().enumerate() {
        let line = i + 1;
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            problems.push(format!("journal line {line}: not a JSON object: {text:?}"));
            continue;
        };
        match value["ev"].as_str() {
            Some("resume") => resumes.push(line),
            Some("game_over") => overs.push(GameOver {
                line,
                game: value["game"].as_u64().unwrap_or(0),
                pgn: value["pgn"].as_str().unwrap_or_default().to_string(),
            }),
            _ => {}
        }
    }
    if overs.len() != asked {
        problems.push(format!(
            "{asked} games asked, {} game_over records in the journal",
            overs.len()
        ));
    }
    let mut expected = 1;
    for over in &overs {
        let n = over.game;
        if n < expected {
            problems.push(format!(
                "journal line {}: game_over of game {n} again",
                over.line
            ));
            continue;
        }
        for missing in expected..n {
            let after = resumes.iter().filter(|&&r| r < over.line).max();
            let resumed = after.map_or(String::new(), |r| {
                format!("; the last resume before it is at journal line {r}")
            });
            problems.push(format!("game {missing}: no game_over in the journal (the next one, game {n}, is at line {}{resumed})", over.line));
        }
        expected = n + 1;
    }
    for missing in expected..=asked as u64 {
        problems.push(format!("game {missing}: no game_over in the journal"));
    }

    // The PGN file is the journal's games, in order.
    let journal_pgn: String = overs.iter().map(|o| o.pgn.as_str()).collect();
    if pgn != journal_pgn {
        let in_file: Vec<&str> = pgn.split("[Event ").skip(1).collect();
        let first = overs
            .iter()
            .enumerate()
            .find(|(i, o)| in_file.get(*i).is_none_or(|g| format!("[Event {g}") != o.pgn))
            .map_or_else(
                || "the PGN file has games the journal has not".to_string(),
                |(i, o)| format!("the first that differs is PGN game {} against game_over of game {} (journal line {})", i + 1, o.game, o.line),
            );
        problems.push(format!(
            "the PGN file is not the journal's game_over records: {first}"
        ));
    }

    // Every game of the PGN: legal, and ended where the rules end it.
    let mut reader = Reader::new(std::io::Cursor::new(pgn.as_bytes()));
    let mut count = 0;
    let mut next_round = 1;
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    loop {
        let game = match reader.read_game(&mut Check) {
            Ok(Some(game)) => game,
            Ok(None) => break,
            Err(e) => {
                problems.push(format!("the PGN cannot be read after game {count}: {e}"));
                break;
            }
        };
        count += 1;
        let round = game.tags.get("Round").map_or("?", String::as_str);
        let name = format!("PGN game {count} (Round {round})");
        match round.parse::<usize>() {
            Ok(n) if n == next_round => {}
            Ok(n) if n > next_round => problems.push(format!(
                "{name}: Round {} missing from the PGN",
                if n == next_round + 1 {
                    next_round.to_string()
                } else {
                    format!("{next_round} to {}", n - 1)
                }
            )),
            _ => problems.push(format!("{name}: expected Round {next_round}")),
        }
        next_round = round
            .parse::<usize>()
            .map_or(next_round + 1, |n| n.max(next_round) + 1);
        *ends
            .entry(format!(
                "{} {} {}",
                game.tags.get("Termination").map_or("?", String::as_str),
                game.marker,
                rules_end(&game.pos, game.reps())
                    .map_or("(no end by the rules)".into(), |(_, r)| r)
            ))
            .or_default() += 1;
        problems.extend(check_game(&game, &name));
    }
    if count != asked {
        problems.push(format!("{asked} games asked, {count} games in the PGN"));
    }

    for (end, n) in &ends {
        println!("soak-check: {n:5} x {end}");
    }
    println!(
        "soak-check: {asked} games asked, {count} in the PGN, {} game_over in the journal, {} resume(s)",
        overs.len(),
        resumes.len()
    );
    for p in &problems {
        println!("FAIL {p}");
    }
    if problems.is_empty() {
        println!("soak-check: all checks passed");
        ExitCode::SUCCESS
    } else {
        println!("soak-check: {} problem(s)", problems.len());
        ExitCode::FAILURE
    }
}
