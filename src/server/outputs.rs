//! The copies of the games an organiser asks for besides the event's folder:
//! `--pgnout FILE` (every game appended as it ends, as cutechess-cli's `-pgnout`) and
//! `--epdout FILE` (the final position of every game as an EPD line:
//! `<position> fmvn 41; hmvc 3; id "event/game-0007"; c9 "1-0";`, the `id` naming the
//! event's folder and the game's files, `c9` its result as in the quiet-labelled EPD
//! files tuners read).
//!
//! They are written after `event.jsonl` and `games.pgn`, and, like them, never stop the
//! event when they cannot be (the game is in its journal either way). A stop between a
//! game's line in `event.jsonl` and these files is made good by `--resume`, which appends
//! the last recorded game to each file that does not end with it.

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use shakmaty::fen::{Epd, Fen};
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::epd::{Operand, Record};

use super::settings::ServeConfig;

/// Where the copies go, and the event's name in the EPD ids.
pub(super) struct Outputs {
    pgn: Option<PathBuf>,
    epd: Option<PathBuf>,
    event: String,
    /// The `Variant` tag's value in the PGN copy ([`ServeConfig::pgnout_variant`]).
    variant: Option<String>,
}

impl Outputs {
    /// The copies `cfg` asks for.
    pub(super) fn new(cfg: &ServeConfig) -> Outputs {
        Outputs {
            pgn: cfg.pgnout.clone(),
            epd: cfg.epdout.clone(),
            event: cfg
                .out
                .file_name()
                .map_or_else(|| "event".to_string(), |n| n.to_string_lossy().into_owned()),
            variant: cfg.pgnout_variant.clone(),
        }
    }

    /// Game `pgn` as the PGN copy holds it: its `Variant` tag renamed where the copy
    /// asks.
    fn copy<'a>(&self, pgn: &'a str) -> std::borrow::Cow<'a, str> {
        match (&self.variant, tag(pgn, "Variant")) {
            (Some(name), Some(own)) if name != own => pgn
                .replacen(
                    &format!("\n[Variant \"{own}\"]\n"),
                    &format!("\n[Variant \"{name}\"]\n"),
                    1,
                )
                .into(),
            _ => pgn.into(),
        }
    }

    /// Appends game `stem` (its PGN `pgn`) to the copies.
    pub(super) fn game(&self, stem: &str, pgn: &str) {
        if let Some(path) = &self.pgn
            && let Err(e) = append(path, &self.copy(pgn))
        {
            log::error!("--pgnout {}: {e}; the game is in games.pgn", path.display());
        }
        if let Some(path) = &self.epd {
            match self.epd_line(stem, pgn) {
                Some(line) => {
                    if let Err(e) = append(path, &line) {
                        log::error!("--epdout {}: {e}; the game is in games.pgn", path.display());
                    }
                }
                None => log::warn!(
                    "--epdout: the final position of {stem} cannot be read from its PGN; left out"
                ),
            }
        }
    }

    /// After a stop: appends game `stem` (the last the event recorded; its PGN `pgn`)
    /// to each copy that does not end with it.
    pub(super) fn ensure_last(&self, stem: &str, pgn: &str) {
        let pgn_missing = self
            .pgn
            .as_deref()
            .is_some_and(|p| !ends_with(p, &self.copy(pgn)));
        let epd = self.epd_line(stem, pgn);
        let epd_missing = self
            .epd
            .as_deref()
            .zip(epd.as_deref())
            .is_some_and(|(p, line)| !ends_with(p, line));
        if pgn_missing || epd_missing {
            log::warn!(
                "appending {stem}, which the stopped event had not written to --pgnout/--epdout"
            );
            let only = Outputs {
                pgn: self.pgn.clone().filter(|_| pgn_missing),
                epd: self.epd.clone().filter(|_| epd_missing),
                event: self.event.clone(),
                variant: self.variant.clone(),
            };
            only.game(stem, pgn);
        }
    }

    fn epd_line(&self, stem: &str, pgn: &str) -> Option<String> {
        epd_line(&format!("{}/{stem}", self.event), pgn)
    }
}

/// Appends `text` to `path`, creating it.
fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = fs::File::options().create(true).append(true).open(path)?;
    file.write_all(text.as_bytes())?;
    file.flush()
}

/// Whether the file at `path` ends with `text` (a missing file does not).
fn ends_with(path: &Path, text: &str) -> bool {
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    let len = text.len() as u64;
    let Ok(size) = file.metadata().map(|m| m.len()) else {
        return false;
    };
    if size < len || file.seek(SeekFrom::Start(size - len)).is_err() {
        return false;
    }
    let mut tail = Vec::with_capacity(text.len());
    file.read_to_end(&mut tail).is_ok() && tail == text.as_bytes()
}

/// A PGN tag's value.
fn tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    pgn.lines().find_map(|l| {
        l.strip_prefix('[')?
            .strip_prefix(name)?
            .strip_prefix(" \"")?
            .strip_suffix("\"]")
    })
}

/// The position after the moves of the game in `pgn` (from its FEN tag, or the
/// standard start): its movetext's moves in SAN, between move numbers, comments and
/// the result.
pub(super) fn final_position(pgn: &str) -> Option<Chess> {
    let mut pos: Chess = match tag(pgn, "FEN") {
        Some(fen) => {
            // A Chess960 game's FEN (X-FEN) reads as one.
            let setup = Fen::from_ascii(fen.as_bytes()).ok()?.into_setup();
            let mode = if tag(pgn, "Variant").is_some() {
                CastlingMode::Chess960
            } else {
                CastlingMode::detect(&setup)
            };
            setup.position(mode).ok()?
        }
        None => Chess::default(),
    };
    let mut text = String::new();
    let mut in_comment = false;
    // The tags end at the first line that is not one (a comment's `[%clk]` may begin a
    // line of the movetext).
    for line in pgn
        .lines()
        .skip_while(|l| l.starts_with('[') || l.is_empty())
    {
        for c in line.chars() {
            match c {
                '{' => in_comment = true,
                '}' => in_comment = false,
                c if !in_comment => text.push(c),
                _ => {}
            }
        }
        text.push(' ');
    }
    for token in text.split_whitespace() {
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) || token.starts_with('$') {
            continue;
        }
        // `12.`, `12...`, or a move number joined to its move (`12.e4`).
        let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() {
            continue;
        }
        let san: SanPlus = token.parse().ok()?;
        let m = san.san.to_move(&pos).ok()?;
        pos.play_unchecked(m);
    }
    Some(pos)
}

/// The EPD line of the game in `pgn`: its final position, with the move counters, `id`
/// and its result in `c9`.
pub(super) fn epd_line(id: &str, pgn: &str) -> Option<String> {
    let pos = final_position(pgn)?;
    let fullmoves = i64::from(pos.fullmoves().get());
    let halfmoves = i64::from(pos.halfmoves());
    let mut record = Record::new(Epd::from_position(&pos, EnPassantMode::Legal));
    let printable = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_graphic() && c != '"' || c == ' ' {
                    c
                } else {
                    '?'
                }
            })
            .take(crate::epd::MAX_STRING_LEN)
            .collect()
    };
    record.set("fmvn", vec![Operand::Integer(fullmoves)]);
    record.set("hmvc", vec![Operand::Integer(halfmoves)]);
    record.set("id", vec![Operand::Str(printable(id).into())]);
    let result = tag(pgn, "Result").unwrap_or("*");
    record.set("c9", vec![Operand::Str(printable(result).into())]);
    Some(format!("{}\n", record.to_line()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "[Event \"Test\"]\n[Result \"0-1\"]\n\n1. f3 {[%clk 0:01:00]} e5 {[%clk 0:01:00]\n[%emt 0:00:01]} 2. g4 {[%clk 0:00:59]\n(a comment)} Qh4# {Black mates} 0-1\n\n";

    #[test]
    fn the_final_position_follows_the_moves_past_comments_and_numbers() {
        let pos = final_position(GAME).unwrap();
        assert!(pos.is_checkmate());
        let line = epd_line("event/game-0001", GAME).unwrap();
        assert_eq!(
            line,
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - c9 \"0-1\"; fmvn 3; hmvc 1; id \"event/game-0001\";\n"
        );
        // From a FEN tag.
        let fen = "[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n[Result \"*\"]\n\n1. O-O+ Kd7 *\n";
        let line = epd_line("e/g", fen).unwrap();
        assert!(line.starts_with("8/3k4/8/8/8/8/8/5RK1 w - - "), "{line}");
        assert!(final_position("\n1. e5 *\n").is_none());
    }

    #[test]
    fn a_copy_that_lacks_the_last_game_gets_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let cfg_out = dir.path().join("night");
        let outputs = Outputs {
            pgn: Some(dir.path().join("all.pgn")),
            epd: Some(dir.path().join("all.epd")),
            event: cfg_out.file_name().unwrap().to_string_lossy().into_owned(),
            variant: None,
        };
        outputs.game("game-0001", GAME);
        let pgn = fs::read_to_string(dir.path().join("all.pgn")).unwrap();
        assert_eq!(pgn, GAME);
        outputs.ensure_last("game-0001", GAME);
        assert_eq!(
            fs::read_to_string(dir.path().join("all.pgn")).unwrap(),
            GAME
        );
        let epd = fs::read_to_string(dir.path().join("all.epd")).unwrap();
        assert_eq!(epd.lines().count(), 1);
        assert!(epd.contains("id \"night/game-0001\""), "{epd}");
        // The EPD copy lost its line: only it gets the game again.
        fs::write(dir.path().join("all.epd"), "").unwrap();
        outputs.ensure_last("game-0001", GAME);
        assert_eq!(
            fs::read_to_string(dir.path().join("all.pgn")).unwrap(),
            GAME
        );
        assert_eq!(fs::read_to_string(dir.path().join("all.epd")).unwrap(), epd);
    }

    /// Under cutechess-cli's command line a Chess960 game's copy names the variant as
    /// cutechess does (`fischerandom`), and the copy that has the game is not given it
    /// again.
    #[test]
    fn the_copy_names_the_variant_as_asked() {
        let dir = tempfile::tempdir().unwrap();
        let game = "[Event \"?\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
                    [FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1\"]\n\
                    [Result \"*\"]\n\n1. O-O *\n\n";
        let outputs = Outputs {
            pgn: Some(dir.path().join("copy.pgn")),
            epd: None,
            event: "e".into(),
            variant: Some("fischerandom".into()),
        };
        outputs.game("game-0001", game);
        outputs.ensure_last("game-0001", game);
        let copy = fs::read_to_string(dir.path().join("copy.pgn")).unwrap();
        assert_eq!(copy, game.replace("Chess960", "fischerandom"));
        // A standard game has no Variant tag to rename.
        assert_eq!(outputs.copy(GAME), GAME);
    }
}
