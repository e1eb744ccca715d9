//! Reading a book's text: EPD records and FEN lines, or PGN games (by pgn-reader, the
//! moves by shakmaty).

use std::num::NonZeroU32;
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::core::Opening;
use crate::epd::Record;

/// What is wrong in a book, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    /// A line of an EPD or FEN book.
    Line {
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A game of a PGN book.
    Game {
        /// The game, from 1.
        game: usize,
        /// What is wrong with it.
        problem: String,
    },
}

/// The EPD opcodes that name an opening, with the PGN tag each stands for (PGN 9.3,
/// 9.4; EPD 16.2): `id` names it as `Opening` when `v0` does not.
const EPD_NAMES: [(&str, &str); 5] = [
    ("v0", "Opening"),
    ("v1", "Variation"),
    ("v2", "SubVariation"),
    ("eco", "ECO"),
    ("nic", "NIC"),
];

/// The tags of a PGN game that name its opening, which the games from it carry.
const PGN_NAMES: [&str; 5] = ["Opening", "Variation", "SubVariation", "ECO", "NIC"];

/// The openings of an EPD or FEN book: one a line, `#` comments and blank lines
/// skipped. A line whose fifth and sixth fields are numbers is a FEN (the halfmove
/// clock and the move number), which EPD operations may follow; a line that is a number
/// alone names a Chess960 start position (0 to 959); any other line is an EPD record
/// (its `hmvc` and `fmvn` give those).
///
/// # Errors
///
/// [`BookError::Line`] for the first line that is not a playable position.
pub fn parse_epd(text: &[u8]) -> Result<Vec<Opening>, BookError> {
    let mut openings = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() || trimmed.starts_with(b"#") {
            continue;
        }
        let bad = |problem: String| BookError::Line {
            line: i + 1,
            problem,
        };
        // A Chess960 start position named by its number alone (Scharnagl's, 0 to 959:
        // 518 is the standard array).
        if let Some(number) = std::str::from_utf8(trimmed)
            .ok()
            .and_then(|t| t.parse::<u16>().ok())
        {
            let fen = crate::core::variant::chess960_fen(number).ok_or_else(|| {
                bad(format!(
                    "{number}: Chess960's positions are numbered 0 to 959"
                ))
            })?;
            openings.push(Opening {
                fen,
                tags: Vec::new(),
            });
            continue;
        }
        let (rec, counters) = match fen_fields(trimmed) {
            Some((epd, halfmoves, fullmoves)) => {
                (Record::from_ascii(&epd), Some((halfmoves, fullmoves)))
            }
            None => (Record::from_ascii(trimmed), None),
        };
        let rec = rec.map_err(|e| bad(e.to_string()))?;
        let mut setup = rec.setup();
        if let Some((halfmoves, fullmoves)) = counters {
            setup.halfmoves = halfmoves;
            // A FEN's move number 0 (some tools write it) is the first move.
            setup.fullmoves = NonZeroU32::new(fullmoves).unwrap_or(NonZeroU32::MIN);
        }
        // Chess960 positions (X-FEN or Shredder-FEN) read as such; the event's referee
        // takes only those of its variant.
        let mode = CastlingMode::detect(&setup);
        let pos: Chess = setup.position(mode).map_err(|e| bad(e.to_string()))?;
        let opening = playable(&pos).map_err(bad)?;
        openings.push(Opening {
            tags: epd_tags(&rec),
            ..opening
        });
    }
    Ok(openings)
}

/// A FEN line: its first four fields and whatever follows its sixth (EPD operations),
/// as an EPD record's text, and its halfmove clock and move number; `None` when the
/// fifth and sixth fields are not numbers.
fn fen_fields(line: &[u8]) -> Option<(Vec<u8>, u32, u32)> {
    // The fields' places: (start, end).
    let mut fields = Vec::with_capacity(6);
    let mut i = 0;
    while fields.len() < 6 {
        while line.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let start = i;
        while line.get(i).is_some_and(|b| !b.is_ascii_whitespace()) {
            i += 1;
        }
        if start == i {
            return None;
        }
        fields.push((start, i));
    }
    let number = |(s, e): (usize, usize)| -> Option<u32> {
        let text = std::str::from_utf8(&line[s..e]).ok()?;
        text.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| text.parse().ok())?
    };
    let halfmoves = number(fields[4])?;
    let fullmoves = number(fields[5])?;
    let mut epd = line[..fields[3].1].to_vec();
    epd.extend_from_slice(&line[fields[5].1..]);
    Some((epd, halfmoves, fullmoves))
}

/// The tags that an EPD record's names give.
fn epd_tags(rec: &Record) -> Vec<(String, String)> {
    let text = |opcode: &str| -> Option<String> {
        let parts: Vec<String> = rec
            .operands(opcode)?
            .iter()
            .map(|op| op.as_str().map_or_else(|| op.to_string(), str::to_string))
            .collect();
        let joined = parts.join(" ");
        (!joined.trim().is_empty()).then_some(joined)
    };
    let mut tags: Vec<(String, String)> = EPD_NAMES
        .iter()
        .filter_map(|(opcode, tag)| Some((tag.to_string(), text(opcode)?)))
        .collect();
    if !tags.iter().any(|(t, _)| t == "Opening")
        && let Some(id) = text("id")
    {
        tags.insert(0, ("Opening".into(), id));
    }
    tags
}

/// The position as an opening, when a game can be played from it.
fn playable(pos: &Chess) -> Result<Opening, String> {
    if pos.is_game_over() {
        return Err("the position is already over (no legal move)".into());
    }
    Ok(Opening::from(
        Fen::from_position(pos, EnPassantMode::Always).to_string(),
    ))
}

/// The openings of a PGN book: each game's start (its `FEN` tag, unless `SetUp` is
/// `0`) with its first `plies` moves of the main line played (all when `None`),
/// variations and comments left out.
///
/// # Errors
///
/// [`BookError::Game`] for the first game whose start or moves are not legal, or whose
/// position is over.
pub fn parse_pgn(text: &[u8], plies: Option<u32>) -> Result<Vec<Opening>, BookError> {
    let mut reader = Reader::new(std::io::Cursor::new(text));
    let mut visitor = Book {
        plies: plies.unwrap_or(u32::MAX),
    };
    let mut openings = Vec::new();
    loop {
        let game = openings.len() + 1;
        let read = reader
            .read_game(&mut visitor)
            .map_err(|e| BookError::Game {
                game,
                problem: e.to_string(),
            })?;
        match read {
            None => break,
            Some(Ok(opening)) => openings.push(opening),
            Some(Err(problem)) => return Err(BookError::Game { game, problem }),
        }
    }
    Ok(openings)
}

/// The visitor that plays a game's first moves.
struct Book {
    plies: u32,
}

/// A game's tags as read.
#[derive(Default)]
struct Tags {
    fen: Option<String>,
    setup: Option<String>,
    names: Vec<(String, String)>,
}

/// A game's moves as played.
struct Moves {
    pos: Chess,
    played: u32,
    names: Vec<(String, String)>,
}

impl Visitor for Book {
    type Tags = Tags;
    type Movetext = Moves;
    type Output = Result<Opening, String>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let value = value.decode_utf8_lossy().trim().to_string();
        match name {
            b"FEN" => tags.fen = Some(value),
            b"SetUp" => tags.setup = Some(value),
            _ => {
                if let Some(tag) = PGN_NAMES.iter().find(|t| t.as_bytes() == name)
                    && !value.is_empty()
                    && value != "?"
                {
                    tags.names.push((tag.to_string(), value));
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let pos = match tags.fen.filter(|_| tags.setup.as_deref() != Some("0")) {
            None => Chess::default(),
            Some(fen) => {
                let pos = fen.parse::<Fen>().map_err(|e| e.to_string()).and_then(|f| {
                    let setup = f.into_setup();
                    let mode = CastlingMode::detect(&setup);
                    setup.position(mode).map_err(|e| e.to_string())
                });
                match pos {
                    Ok(pos) => pos,
                    Err(e) => return ControlFlow::Break(Err(format!("its FEN {fen:?}: {e}"))),
                }
            }
        };
        ControlFlow::Continue(Moves {
            pos,
            played: 0,
            names: tags.names,
        })
    }

    fn san(&mut self, moves: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        if moves.played >= self.plies {
            return ControlFlow::Continue(());
        }
        match san.san.to_move(&moves.pos) {
            Ok(m) => {
                moves.pos.play_unchecked(m);
                moves.played += 1;
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(Err(format!(
                "its move {} (ply {}) is not legal: {e}",
                san,
                moves.played + 1
            ))),
        }
    }

    fn end_game(&mut self, moves: Self::Movetext) -> Self::Output {
        let opening = playable(&moves.pos)?;
        Ok(Opening {
            tags: moves.names,
            ..opening
        })
    }
}
