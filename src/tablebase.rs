//! Adjudication by Syzygy endgame tables (`--tb`, fastchess's and cutechess-cli's
//! `-tb`): when a position reached in a game has few enough pieces and the tables hold
//! it, its value ends the game. Probed with shakmaty-syzygy, WDL tables alone.
//!
//! A position is probed only right after a capture or a pawn move (its halfmove clock
//! at zero: its WDL value is then exact under the fifty-move rule, as fastchess probes),
//! or as a game's start position, and only without castling rights (the tables have
//! none). A win or loss that the fifty-move rule would turn into a draw (a cursed win,
//! a blessed loss) is a draw unless the rule is ignored (`--tb-ignore-50`). The verdict
//! goes to the game's referee as the supervisor's `adjudicate` command, so that the
//! journal holds it and a replay needs no tables.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position};
use shakmaty_syzygy::{Tablebase, Wdl};

use crate::core::game::GameResult;

/// Which verdicts of the tables end a game (`--tb-adjudicate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TbResults {
    /// Wins, losses and draws.
    #[default]
    Both,
    /// Wins and losses only.
    WinLoss,
    /// Draws only.
    Draw,
}

impl std::str::FromStr for TbResults {
    type Err = String;

    /// `both`, `win-loss` or `draw` (fastchess's `BOTH`, `WIN_LOSS`, `DRAW` too).
    fn from_str(text: &str) -> Result<TbResults, String> {
        match text.to_ascii_lowercase().replace('_', "-").as_str() {
            "both" => Ok(TbResults::Both),
            "win-loss" => Ok(TbResults::WinLoss),
            "draw" => Ok(TbResults::Draw),
            _ => Err(format!("{text:?}: both, win-loss or draw")),
        }
    }
}

/// An event's tablebase adjudication.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TbConfig {
    /// The folders holding the tables.
    pub paths: Vec<PathBuf>,
    /// Positions with at most this many pieces are probed; all the tables hold when
    /// not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<usize>,
    /// Cursed wins and blessed losses count as wins and losses.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_50: bool,
    /// Which verdicts end a game.
    #[serde(default)]
    pub results: TbResults,
}

impl TbConfig {
    /// The adjudication `--tb PATHS`, `--tb-pieces N`, `--tb-ignore-50` and
    /// `--tb-adjudicate KIND` ask for (fastchess's `-tb`, `-tbpieces`, `-tbignore50`,
    /// `-tbadjudicate` too, and the event files' keys), the folders made absolute; None
    /// without `--tb`.
    ///
    /// # Errors
    ///
    /// The other options without `--tb`, a folder that cannot be made absolute, or a
    /// kind of verdict that is none.
    pub fn from_options(
        paths: Option<&str>,
        pieces: Option<usize>,
        ignore_50: bool,
        results: Option<&str>,
    ) -> Result<Option<TbConfig>, String> {
        let Some(paths) = paths else {
            if pieces.is_some() || ignore_50 || results.is_some() {
                return Err(
                    "--tb-pieces, --tb-ignore-50 and --tb-adjudicate need --tb PATHS".into(),
                );
            }
            return Ok(None);
        };
        let paths = TbConfig::split_paths(paths)
            .iter()
            .map(|p| std::path::absolute(p).map_err(|e| format!("--tb {}: {e}", p.display())))
            .collect::<Result<_, _>>()?;
        Ok(Some(TbConfig {
            paths,
            pieces,
            ignore_50,
            results: results
                .map(str::parse)
                .transpose()
                .map_err(|e: String| format!("--tb-adjudicate {e}"))?
                .unwrap_or_default(),
        }))
    }

    /// `PATHS` as `--tb` takes them: folders joined by `:` (`;` on Windows).
    pub fn split_paths(text: &str) -> Vec<PathBuf> {
        let sep = if cfg!(windows) { ';' } else { ':' };
        text.split(sep)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .collect()
    }
}

/// A verdict of the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbVerdict {
    /// The result.
    pub result: GameResult,
    /// Why, for the PGN's last comment: names the tables (`SyzygyTB`).
    pub reason: String,
}

/// The tables, open.
pub struct Tables {
    tables: Tablebase<Chess>,
    pieces: usize,
    cfg: TbConfig,
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tables")
            .field("pieces", &self.pieces)
            .field("cfg", &self.cfg)
            .finish_non_exhaustive()
    }
}

impl Tables {
    /// Opens the tables of `cfg`'s folders.
    ///
    /// # Errors
    ///
    /// A sentence naming the folder that is missing or cannot be read, or holding no
    /// table, so that the event is refused rather than played without them.
    pub fn open(cfg: &TbConfig) -> Result<Tables, String> {
        if cfg.paths.is_empty() {
            return Err("--tb: give the folder of the tables".into());
        }
        let mut tables = Tablebase::new();
        for path in &cfg.paths {
            match tables.add_directory(path) {
                Ok(0) => {
                    return Err(format!(
                        "--tb {}: no Syzygy table (*.rtbw) in it",
                        path.display()
                    ));
                }
                Ok(_) => {}
                Err(e) => return Err(format!("--tb {}: {e}", path.display())),
            }
        }
        let most = tables.max_pieces();
        if let Some(asked) = cfg.pieces
            && asked > most
        {
            log::warn!(
                "--tb: the tables hold positions of at most {most} pieces, fewer than the {asked} of --tb-pieces; those of more are played out"
            );
        }
        Ok(Tables {
            tables,
            pieces: cfg.pieces.map_or(most, |p| p.min(most)),
            cfg: cfg.clone(),
        })
    }

    /// The most pieces a probed position may have.
    pub fn pieces(&self) -> usize {
        self.pieces
    }

    /// What the tables say of `pos`, reached in a game (after a move, or as its start),
    /// when they decide it and the event adjudicates that kind of result; None when
    /// they do not (too many pieces, castling rights, a halfmove clock above zero, no
    /// table for its material, a result the event leaves to be played).
    pub fn verdict(&self, pos: &Chess) -> Option<TbVerdict> {
        if pos.board().occupied().count() > self.pieces
            || pos.halfmoves() != 0
            || pos.castles().any()
        {
            return None;
        }
        let wdl = self.tables.probe_wdl_after_zeroing(pos).ok()?;
        let (winner, why) = judge(wdl, pos.turn(), &self.cfg)?;
        let material = material(pos);
        let (result, said) = match winner {
            Some(Color::White) => (GameResult::WhiteWins, "White wins"),
            Some(Color::Black) => (GameResult::BlackWins, "Black wins"),
            None => (GameResult::Draw, "drawn"),
        };
        let reason = match why {
            Some(why) => format!("SyzygyTB: {said} ({material}, {why})"),
            None => format!("SyzygyTB: {said} ({material})"),
        };
        Some(TbVerdict { result, reason })
    }
}

/// The verdict on a position whose value is `wdl` for `mover`, the side to move: the
/// winner (None: a draw) and what to add to the reason; None when `cfg` leaves that kind
/// of result to be played.
fn judge(wdl: Wdl, mover: Color, cfg: &TbConfig) -> Option<(Option<Color>, Option<&'static str>)> {
    let ignore = cfg.ignore_50;
    let (winner, why) = match wdl {
        Wdl::Win => (Some(mover), None),
        Wdl::Loss => (Some(!mover), None),
        Wdl::CursedWin if ignore => (Some(mover), Some("a cursed win")),
        Wdl::BlessedLoss if ignore => (Some(!mover), Some("a blessed loss")),
        Wdl::CursedWin => (None, Some("a cursed win: drawn by the fifty-move rule")),
        Wdl::BlessedLoss => (None, Some("a blessed loss: drawn by the fifty-move rule")),
        Wdl::Draw => (None, None),
    };
    let wanted = match (cfg.results, winner) {
        (TbResults::Both, _) => true,
        (TbResults::WinLoss, w) => w.is_some(),
        (TbResults::Draw, w) => w.is_none(),
    };
    wanted.then_some((winner, why))
}

/// A watcher that adjudicates by the tables (`argus serial --tb`, and each game of
/// `argus serve --tb`): it probes each position a game reaches (its start, and after
/// every move) and sends the first verdict to the referee as the supervisor's
/// `adjudicate`; then it passes the notice on. Without tables it only passes them on.
pub struct Adjudicating<'a, W> {
    inner: W,
    tables: Option<&'a Tables>,
    control: crossbeam_channel::Sender<crate::mediator::Control>,
    variant: crate::core::Variant,
    /// Whether this game's verdict was sent.
    decided: bool,
}

impl<'a, W> Adjudicating<'a, W> {
    /// `inner` watched, the games of a match in `variant` adjudicated by `tables` (when
    /// there are) through `control`.
    pub fn new(
        inner: W,
        tables: Option<&'a Tables>,
        control: crossbeam_channel::Sender<crate::mediator::Control>,
        variant: crate::core::Variant,
    ) -> Adjudicating<'a, W> {
        Adjudicating {
            inner,
            tables,
            control,
            variant,
            decided: false,
        }
    }

    fn probe(&mut self, pos: &Chess) {
        if self.decided {
            return;
        }
        if let Some(verdict) = self.tables.and_then(|t| t.verdict(pos)) {
            self.decided = true;
            let _ = self.control.send(crate::mediator::Control::Command(
                crate::core::supervisor::Command::Adjudicate {
                    result: verdict.result,
                    reason: Some(verdict.reason),
                },
            ));
        }
    }
}

impl<W: crate::mediator::Watcher> crate::mediator::Watcher for Adjudicating<'_, W> {
    fn notice(&mut self, notice: &crate::core::Notice) {
        match notice {
            _ if self.tables.is_none() => {}
            crate::core::Notice::GameStarted { fen, .. } => {
                self.decided = false;
                if let Ok(pos) = crate::core::variant::position(fen, self.variant) {
                    self.probe(&pos);
                }
            }
            crate::core::Notice::Moved { position, .. } => self.probe(position),
            _ => {}
        }
        self.inner.notice(notice);
    }

    fn game_over(&mut self, report: &crate::core::GameReport) {
        self.inner.game_over(report);
    }
}

/// The material of `pos` as the tables name it: White's pieces, `v`, Black's (`KRvK`).
fn material(pos: &Chess) -> String {
    let side = |color: Color| -> String {
        let board = pos.board();
        [
            shakmaty::Role::King,
            shakmaty::Role::Queen,
            shakmaty::Role::Rook,
            shakmaty::Role::Bishop,
            shakmaty::Role::Knight,
            shakmaty::Role::Pawn,
        ]
        .iter()
        .map(|&role| {
            let n = (board.by_role(role) & board.by_color(color)).count();
            role.upper_char().to_string().repeat(n)
        })
        .collect()
    };
    format!("{}v{}", side(Color::White), side(Color::Black))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn tables(ignore_50: bool, results: TbResults) -> Tables {
        Tables::open(&TbConfig {
            paths: vec![PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/syzygy"
            ))],
            pieces: None,
            ignore_50,
            results,
        })
        .unwrap()
    }

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn the_tables_decide_wins_and_draws_by_their_material() {
        let t = tables(false, TbResults::Both);
        assert_eq!(t.pieces(), 4);
        let win = t.verdict(&pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")).unwrap();
        assert_eq!(win.result, GameResult::WhiteWins);
        assert_eq!(win.reason, "SyzygyTB: White wins (KRvK)");
        // Black to move, lost all the same.
        let win = t.verdict(&pos("8/8/8/4k3/8/8/8/Q3K3 b - - 0 1")).unwrap();
        assert_eq!(win.result, GameResult::WhiteWins);
        let draw = t.verdict(&pos("8/8/8/4k3/8/8/8/1B2K3 w - - 0 1")).unwrap();
        assert_eq!(draw.result, GameResult::Draw);
        assert_eq!(draw.reason, "SyzygyTB: drawn (KBvK)");
        // Not probed: a halfmove clock above zero, castling rights, more pieces.
        assert_eq!(t.verdict(&pos("8/8/8/4k3/8/8/8/R3K3 w - - 3 2")), None);
        assert_eq!(t.verdict(&pos("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")), None);
        assert_eq!(
            t.verdict(&pos(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
            )),
            None
        );
        // Only the kind of result the event adjudicates.
        let t = tables(false, TbResults::WinLoss);
        assert_eq!(t.verdict(&pos("8/8/8/4k3/8/8/8/1B2K3 w - - 0 1")), None);
        let t = tables(false, TbResults::Draw);
        assert_eq!(t.verdict(&pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")), None);
    }

    /// The 3- and 4-piece tables hold no cursed win nor blessed loss (2.2 million
    /// random positions of eleven materials were probed to be sure); the rule is
    /// tested on the values themselves.
    #[test]
    fn a_cursed_win_is_a_draw_unless_the_fifty_move_rule_is_ignored() {
        let cfg = |ignore_50, results| TbConfig {
            paths: Vec::new(),
            pieces: None,
            ignore_50,
            results,
        };
        let counted = cfg(false, TbResults::Both);
        assert_eq!(
            judge(Wdl::CursedWin, Color::White, &counted),
            Some((None, Some("a cursed win: drawn by the fifty-move rule")))
        );
        assert_eq!(
            judge(Wdl::BlessedLoss, Color::White, &counted),
            Some((None, Some("a blessed loss: drawn by the fifty-move rule")))
        );
        let ignored = cfg(true, TbResults::Both);
        assert_eq!(
            judge(Wdl::CursedWin, Color::Black, &ignored),
            Some((Some(Color::Black), Some("a cursed win")))
        );
        assert_eq!(
            judge(Wdl::BlessedLoss, Color::Black, &ignored),
            Some((Some(Color::White), Some("a blessed loss")))
        );
        // A cursed win counted as a draw is not adjudicated where only wins are.
        assert_eq!(
            judge(
                Wdl::CursedWin,
                Color::White,
                &cfg(false, TbResults::WinLoss)
            ),
            None
        );
        assert_eq!(
            judge(Wdl::Win, Color::White, &cfg(false, TbResults::WinLoss)),
            Some((Some(Color::White), None))
        );
    }

    #[test]
    fn missing_tables_are_refused_naming_the_folder() {
        let e = Tables::open(&TbConfig {
            paths: vec![PathBuf::from("/nowhere/syzygy")],
            pieces: Some(4),
            ignore_50: false,
            results: TbResults::Both,
        })
        .unwrap_err();
        assert!(e.starts_with("--tb /nowhere/syzygy: "), "{e}");
        let empty = tempfile::tempdir().unwrap();
        let e = Tables::open(&TbConfig {
            paths: vec![empty.path().to_path_buf()],
            pieces: None,
            ignore_50: false,
            results: TbResults::Both,
        })
        .unwrap_err();
        assert!(e.ends_with("no Syzygy table (*.rtbw) in it"), "{e}");
    }

    #[test]
    fn paths_split_as_the_system_joins_them() {
        let sep = if cfg!(windows) { ";" } else { ":" };
        assert_eq!(
            TbConfig::split_paths(&format!("/a{sep}/b{sep}")),
            [PathBuf::from("/a"), PathBuf::from("/b")]
        );
        assert_eq!("WIN_LOSS".parse::<TbResults>(), Ok(TbResults::WinLoss));
    }
}
