//! What a match run under fastchess's command line prints, as fastchess prints it: a line
//! when a game starts and one when it ends (with fastchess's reasons), the results of each
//! pair of engines after every `-ratinginterval` game pairs (games without
//! `-report penta=true`) and at the end, the SPRT's line, the CRC-32 of the PGN after each
//! game with `-crc32 pgn=true`, the players that lost on time or crashed, and the last
//! lines. fishtest's and OpenBench's workers read these lines (docs/fastchess.md says
//! which and how).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::Instant;

use argus::core::GameReport;
use argus::core::game::{GameResult, Termination};
use argus::server::Progress;
use argus::tournament::{GameSpec, Sprt, SprtDecision};

use super::cutechess_lines::{Colours, fastchess_elo_line, ranking, score_line, two_players};
use super::settings::{Output, Style};

/// A C++ stream's text for a number printed with two decimals, `nan` and `inf` as glibc
/// writes them (a NaN from 0/0 carries the sign bit there: `-nan`).
pub(super) fn fixed2(x: f64) -> String {
    if x.is_nan() {
        if x.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:.2}")
    }
}

/// A number with one decimal, `nan` and `inf` as a C++ stream prints them.
fn one_decimal(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        fixed2(x)
    }
}

/// The score of `p` as an Elo difference: `-400 log10(1/p - 1)`.
pub(super) fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The 95 % two-sided z-score fastchess uses.
const Z95: f64 = 1.959_963_984_540_054;

/// `erf`, to double precision (libm's, through the C library).
pub(super) fn erf(x: f64) -> f64 {
    unsafe extern "C" {
        safe fn erf(x: f64) -> f64;
    }
    erf(x)
}

/// The games of one pair of engines, as fastchess counts them: the first engine's wins,
/// losses and draws, and its game pairs by outcome.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Stats {
    pub(super) wins: u32,
    pub(super) losses: u32,
    pub(super) draws: u32,
    /// Pairs: both lost, a loss and a draw, a win and a loss, two draws, a win and a
    /// draw, both won.
    pub(super) ll: u32,
    pub(super) ld: u32,
    pub(super) wl: u32,
    pub(super) dd: u32,
    pub(super) wd: u32,
    pub(super) ww: u32,
}

impl Stats {
    fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    fn pairs(&self) -> u32 {
        self.ll + self.ld + self.wl + self.dd + self.wd + self.ww
    }

    /// The pentanomial counts as fastchess prints them: `[LL, LD, WL+DD, WD, WW]`.
    fn penta(&self) -> [u32; 5] {
        [self.ll, self.ld, self.wl + self.dd, self.wd, self.ww]
    }

    /// Counts a game of the first engine's: 2 a win, 1 a draw, 0 a loss.
    fn game(&mut self, half: u32) {
        match half {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Counts a finished pair, its games' half-points for the first engine.
    fn pair(&mut self, a: u32, b: u32) {
        self.game(a);
        self.game(b);
        match (a.max(b), a.min(b)) {
            (2, 2) => self.ww += 1,
            (2, 1) => self.wd += 1,
            (2, 0) => self.wl += 1,
            (1, 1) => self.dd += 1,
            (1, 0) => self.ld += 1,
            _ => self.ll += 1,
        }
    }

    /// `Elo: x +/- y, nElo: x +/- y` and `LOS: p %`, by pairs or by games.
    pub(super) fn elo_lines(&self, penta: bool) -> (String, String) {
        let e = self.elo(penta);
        (
            format!(
                "Elo: {} +/- {}, nElo: {} +/- {}",
                fixed2(e.diff),
                fixed2(e.error),
                fixed2(e.nelo),
                fixed2(e.nelo_error)
            ),
            format!("LOS: {} %", fixed2(e.los * 100.0)),
        )
    }

    /// fastchess's Elo of these games, by pairs or by games.
    pub(super) fn elo(&self, penta: bool) -> Elo {
        let (n, score, variance, nelo_scale) = if penta {
            let n = f64::from(self.pairs());
            let share = |c: u32| f64::from(c) / n;
            let score = share(self.ww)
                + 0.75 * share(self.wd)
                + 0.5 * (share(self.wl) + share(self.dd))
                + 0.25 * share(self.ld);
            let variance = share(self.ww) * (1.0 - score).powi(2)
                + share(self.wd) * (0.75 - score).powi(2)
                + (share(self.wl) + share(self.dd)) * (0.5 - score).powi(2)
                + share(self.ld) * (0.25 - score).powi(2)
                + share(self.ll) * score.powi(2);
            (n, score, variance, 2.0)
        } else {
            let n = f64::from(self.games());
            let share = |c: u32| f64::from(c) / n;
            let score = share(self.wins) + 0.5 * share(self.draws);
            let variance = share(self.wins) * (1.0 - score).powi(2)
                + share(self.draws) * (0.5 - score).powi(2)
                + share(self.losses) * score.powi(2);
            (n, score, variance, 1.0)
        };
        let per = variance / n;
        let upper = score + Z95 * per.sqrt();
        let lower = score - Z95 * per.sqrt();
        let nelo =
            |s: f64| (s - 0.5) / (nelo_scale * variance).sqrt() * (800.0 / std::f64::consts::LN_10);
        let diff = elo_of(score);
        let error = (elo_of(upper) - elo_of(lower)) / 2.0;
        let nelo_error = (nelo(upper) - nelo(lower)) / 2.0;
        let los = (1.0 - erf(-(score - 0.5) / (2.0 * per).sqrt())) / 2.0;
        Elo {
            diff,
            error,
            nelo: nelo(score),
            nelo_error,
            los,
        }
    }

    /// fastchess's draw ratio in percent: of the pairs, those of two draws or a win and
    /// a loss (with pentanomial reports); else of the games, the draws.
    pub(super) fn draw_ratio(&self, penta: bool) -> f64 {
        if penta {
            f64::from(self.wl + self.dd) / f64::from(self.pairs()) * 100.0
        } else {
            f64::from(self.draws) / f64::from(self.games()) * 100.0
        }
    }

    /// The same games from the other engine's side.
    fn reversed(&self) -> Stats {
        Stats {
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
            ll: self.ww,
            ld: self.wd,
            wl: self.wl,
            dd: self.dd,
            wd: self.ld,
            ww: self.ll,
        }
    }

    /// These games and `other`'s together.
    fn add(&mut self, other: &Stats) {
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
        self.ll += other.ll;
        self.ld += other.ld;
        self.wl += other.wl;
        self.dd += other.dd;
        self.wd += other.wd;
        self.ww += other.ww;
    }
}

/// fastchess's Elo figures.
pub(super) struct Elo {
    pub(super) diff: f64,
    pub(super) error: f64,
    pub(super) nelo: f64,
    pub(super) nelo_error: f64,
    pub(super) los: f64,
}

/// fastchess's reason for how a game ended.
pub(super) fn reason(report: &GameReport) -> String {
    let loser = match report.result {
        GameResult::WhiteWins => "Black",
        GameResult::BlackWins => "White",
        _ => "",
    };
    let winner = match report.result {
        GameResult::WhiteWins => "White",
        GameResult::BlackWins => "Black",
        _ => "",
    };
    let text = report.reason.as_str();
    // Whose failure it was, where a draw leaves it to the text.
    let culprit = || {
        if !loser.is_empty() {
            loser
        } else if text.starts_with("Black") {
            "Black"
        } else {
            "White"
        }
    };
    match report.termination {
        Termination::TimeForfeit => {
            let side = culprit();
            let index = usize::from(side == "Black");
            let overrun = report.time_use[index].overrun.unwrap_or_default();
            format!(
                "{side} loses on time ({}ms overrun)",
                overrun.as_micros().div_ceil(1000)
            )
        }
        Termination::RulesInfraction => format!("{} makes an illegal move", culprit()),
        // An engine whose bestmove is no legal move fails; fastchess calls it an
        // illegal move.
        Termination::Abandoned if text.contains("is not a legal move") => {
            format!("{} makes an illegal move", culprit())
        }
        Termination::Abandoned
            if text.contains("did not answer") || text.contains("gave no bestmove") =>
        {
            format!("{}'s connection stalls", culprit())
        }
        Termination::Abandoned => format!("{} disconnects", culprit()),
        // The tables' verdict says so (`SyzygyTB: ...`), as fastchess's does.
        Termination::Adjudication if text.starts_with("SyzygyTB") && winner.is_empty() => {
            "Draw by adjudication: SyzygyTB".to_string()
        }
        Termination::Adjudication if text.starts_with("SyzygyTB") => {
            format!("{winner} wins by adjudication: SyzygyTB")
        }
        Termination::Adjudication if winner.is_empty() => "Draw by adjudication".to_string(),
        Termination::Adjudication => format!("{winner} wins by adjudication"),
        Termination::Unterminated => "Game interrupted".to_string(),
        Termination::Normal => {
            if text.ends_with(" mates") {
                text.to_string()
            } else if text.starts_with("Stalemate") {
                "Draw by stalemate".to_string()
            } else if text.starts_with("Dead position") {
                "Draw by insufficient mating material".to_string()
            } else if text.contains("repetition") {
                "Draw by 3-fold repetition".to_string()
            } else if text.contains("-move rule") {
                "Draw by fifty moves rule".to_string()
            } else if winner.is_empty() {
                "Draw by adjudication".to_string()
            } else {
                format!("{winner} wins by adjudication")
            }
        }
    }
}

/// The half-points of player `i` in a game.
fn half_points(spec: &GameSpec, result: GameResult, i: usize) -> Option<u32> {
    let white = match result {
        GameResult::WhiteWins => 2,
        GameResult::Draw => 1,
        GameResult::BlackWins => 0,
        _ => return None,
    };
    Some(if spec.white == i { white } else { 2 - white })
}

/// One pair of engines' games so far.
#[derive(Default)]
struct PairingStats {
    stats: Stats,
    /// A pair's first game to finish, by pair number: the first engine's half-points.
    waiting: HashMap<u32, u32>,
}

/// The lines of a match, with what they need to remember.
pub(super) struct FastchessLines {
    names: Vec<String>,
    output: Output,
    total: usize,
    finished: usize,
    started: Instant,
    pairings: HashMap<(usize, usize), PairingStats>,
    /// What of the PGN file the CRC has read.
    crc: Option<(PathBuf, crc32fast::Hasher, u64)>,
    /// Games lost on time and by crashing or stalling, by engine.
    timeouts: Vec<u32>,
    crashes: Vec<u32>,
    /// A crash or stall without `-recover`: the match stops.
    pub(super) crashed: bool,
    /// The SPRT reached a bound.
    pub(super) sprt_done: bool,
    /// A results block due once the SPRT has counted the pair: its engines.
    due: Option<(usize, usize)>,
    /// Each player's games by colour (cutechess-cli's ratings).
    colours: Vec<Colours>,
    /// When each game under way started, by the wall clock, for fastchess's PGN.
    game_starts: HashMap<u32, time::OffsetDateTime>,
    /// fastchess's PGN file, open once it is first written.
    pgn_file: super::pgn::Appender,
}

impl FastchessLines {
    /// The lines of a match of `names`, `total` games, printed as `output` says.
    pub(super) fn new(names: Vec<String>, output: Output, total: usize) -> FastchessLines {
        let crc = output.crc32_of.clone().map(|path| {
            let mut hasher = crc32fast::Hasher::new();
            // A PGN appended to goes on from what it holds.
            let mut offset = 0;
            if let Ok(mut file) = std::fs::File::open(&path) {
                let mut text = Vec::new();
                if file.read_to_end(&mut text).is_ok() {
                    hasher.update(&text);
                    offset = text.len() as u64;
                }
            }
            (path, hasher, offset)
        });
        let n = names.len();
        FastchessLines {
            names,
            output,
            total,
            finished: 0,
            started: Instant::now(),
            pairings: HashMap::new(),
            crc,
            timeouts: vec![0; n],
            crashes: vec![0; n],
            crashed: false,
            sprt_done: false,
            due: None,
            colours: vec![Colours::default(); n],
            game_starts: HashMap::new(),
            pgn_file: super::pgn::Appender::default(),
        }
    }

    /// Prints what `p` says.
    pub(super) fn show(&mut self, p: Progress<'_>) {
        match p {
            // A game taken up as the SPRT decided is stopped at once, unprinted.
            Progress::Started(g) if !self.sprt_done => {
                if self.output.pgn.is_some() {
                    self.game_starts
                        .insert(g.number, time::OffsetDateTime::now_utc());
                }
                println!(
                    "Started game {} of {} ({} vs {})",
                    g.number, self.total, self.names[g.white], self.names[g.black]
                );
            }
            Progress::Finished(g, report, _) => self.finished(g, report),
            Progress::Failed(g, why) => {
                eprintln!("Warning; game {} could not be played: {why}", g.number)
            }
            Progress::Sprt(sprt) => self.sprt(sprt),
            Progress::Notice(g, notice) if argus::mediator::is_warning(notice) => {
                log::warn!("game {}: {notice}", g.number);
            }
            _ => {}
        }
        let _ = std::io::stdout().flush();
    }

    /// The CRC line of the PGN file, once the game is in it; `written`: what this
    /// printer appended to it itself (fastchess's PGN), which is not read back.
    fn crc_line(&mut self, written: Option<&str>) {
        let Some((path, hasher, offset)) = &mut self.crc else {
            return;
        };
        if let Some(text) = written {
            hasher.update(text.as_bytes());
            *offset += text.len() as u64;
        } else if let Ok(mut file) = std::fs::File::open(&*path)
            && file.seek(SeekFrom::Start(*offset)).is_ok()
        {
            let mut text = Vec::new();
            if file.read_to_end(&mut text).is_ok() {
                hasher.update(&text);
                *offset += text.len() as u64;
            }
        }
        println!(
            "File {} has CRC32: {:#x}",
            self.output.crc32_name,
            hasher.clone().finalize()
        );
    }

    fn finished(&mut self, g: &GameSpec, report: &GameReport) {
        // Once the SPRT has decided, the games still under way are interrupted.
        if report.termination == Termination::Unterminated || self.sprt_done {
            return;
        }
        let mut reason = reason(report);
        let mut written = None;
        if let Some((path, style)) = &self.output.pgn {
            let times = self
                .game_starts
                .remove(&g.number)
                .map(|start| (start, time::OffsetDateTime::now_utc()));
            let text = super::pgn::game(report, &reason, times, style);
            match self.pgn_file.append(path, &text) {
                Ok(()) => written = Some(text),
                Err(e) => log::error!(
                    "-pgnout {}: {e}; the game is in the event's games.pgn",
                    path.display()
                ),
            }
        }
        self.crc_line(written.as_deref());
        if self.output.style == Style::Cutechess
            && let Some(at) = reason.find(" (")
            && reason.ends_with("ms overrun)")
        {
            // cutechess-cli says how late in its PGN only.
            reason.truncate(at);
        }
        println!(
            "Finished game {} ({} vs {}): {} {{{reason}}}",
            g.number, self.names[g.white], self.names[g.black], report.result
        );
        self.finished += 1;
        let loser = match report.result {
            GameResult::WhiteWins => Some(g.black),
            GameResult::BlackWins => Some(g.white),
            _ => None,
        };
        match report.termination {
            Termination::TimeForfeit => {
                if let Some(l) = loser {
                    self.timeouts[l] += 1;
                }
            }
            Termination::Abandoned => {
                if let Some(l) = loser {
                    self.crashes[l] += 1;
                }
                if !self.output.recover {
                    println!(
                        "Game {} stalled / disconnected and no recover option set for engine, stopping tournament.",
                        g.number
                    );
                    self.crashed = true;
                }
            }
            _ => {}
        }
        let Some((first, second, print)) = self.count(g, report.result) else {
            return;
        };
        if self.output.style != Style::Fastchess {
            return self.cutechess_lines(first, second);
        }
        if print || self.finished == self.total {
            if self.output.sprt {
                // With the SPRT's line, once it has counted the pair.
                self.due = Some((first, second));
            } else {
                self.results(first, second, None);
            }
        }
    }

    /// Counts game `g`'s `result` (a game finished before a resume too, through
    /// [`FastchessLines::seed`]): its pair of engines, and whether fastchess's results
    /// are due after it; None for a game without a result.
    fn count(&mut self, g: &GameSpec, result: GameResult) -> Option<(usize, usize, bool)> {
        let (first, second) = (g.white.min(g.black), g.white.max(g.black));
        let half = half_points(g, result, first)?;
        if let Some(white) = half_points(g, result, g.white) {
            let outcome = |half: u32| match half {
                2 => 0,
                0 => 1,
                _ => 2,
            };
            self.colours[g.white].white[outcome(white)] += 1;
            self.colours[g.black].black[outcome(2 - white)] += 1;
        }
        let pairing = self.pairings.entry((first, second)).or_default();
        if self.output.style != Style::Fastchess || !self.output.penta {
            pairing.stats.game(half);
            let every = self.output.rating_interval > 0
                && self
                    .finished
                    .is_multiple_of(self.output.rating_interval as usize);
            return Some((first, second, every));
        }
        let pair = g.number.div_ceil(2);
        let print = match pairing.waiting.remove(&pair) {
            Some(other) => {
                pairing.stats.pair(other, half);
                // fastchess counts the pair by its place in the schedule.
                self.output.rating_interval > 0
                    && (pair as usize).is_multiple_of(self.output.rating_interval as usize)
            }
            None => {
                pairing.waiting.insert(pair, half);
                false
            }
        };
        Some((first, second, print))
    }

    /// Counts a game that finished before the match was stopped and resumed, without
    /// its result (`-config ... stats=false`): the games to go still end with the results.
    pub(super) fn skip(&mut self) {
        self.finished += 1;
    }

    /// Counts a game that finished before the match was stopped and resumed (the results
    /// go on from it, as fastchess's `-config` restores them), printing nothing.
    pub(super) fn seed(&mut self, g: &GameSpec, result: GameResult) {
        self.finished += 1;
        let _ = self.count(g, result);
    }

    /// After a game of `first` against `second`, counted: the score line and the ratings, as cutechess-cli prints them (or fastchess's
    /// `-output format=cutechess`).
    fn cutechess_lines(&mut self, first: usize, second: usize) {
        let stats = self
            .pairings
            .get(&(first, second))
            .map(|p| p.stats.clone())
            .unwrap_or_default();
        let all = self.finished == self.total;
        let every = |interval: u32, n: usize| interval > 0 && n.is_multiple_of(interval as usize);
        if self.output.style == Style::Cutechess {
            if self.names.len() == 2 {
                let [a, b] = [&self.colours[0], &self.colours[1]];
                println!(
                    "{}",
                    score_line(
                        &self.names[0],
                        &self.names[1],
                        a.white[0] + a.black[0],
                        b.white[0] + b.black[0],
                        a.white[2] + a.black[2]
                    )
                );
            }
            if every(self.output.rating_interval, self.finished) {
                self.cutechess_ratings();
            }
            return;
        }
        if every(self.output.score_interval, self.finished) || all {
            println!(
                "{}",
                score_line(
                    &self.names[first],
                    &self.names[second],
                    stats.wins,
                    stats.losses,
                    stats.draws
                )
            );
        }
        if every(self.output.rating_interval, self.finished) || all {
            if self.names.len() == 2 {
                println!("{}", fastchess_elo_line(&stats));
            } else {
                print!("{}", self.table(false));
            }
        }
    }

    /// cutechess-cli's ratings: a two-player match's from the first player's side,
    /// else the ranking.
    fn cutechess_ratings(&self) {
        if self.names.len() == 2 {
            println!("{}", two_players(&self.names[0], &self.colours[0]));
        } else {
            println!("{}", ranking(&self.names, &self.colours));
        }
    }

    /// fastchess's table of more than two engines: each engine's games against all the
    /// others, by Elo; with the pentanomial counts' column for its own output, without
    /// for its cutechess-style output.
    fn table(&self, ptnml_column: bool) -> String {
        let penta = self.output.penta;
        let mut rows: Vec<(usize, Stats, Elo)> = (0..self.names.len())
            .map(|i| {
                let mut all = Stats::default();
                for (&(a, b), p) in &self.pairings {
                    if a == i {
                        all.add(&p.stats);
                    } else if b == i {
                        all.add(&p.stats.reversed());
                    }
                }
                let elo = all.elo(penta);
                (i, all, elo)
            })
            .collect();
        // Best Elo first, an engine without one (no game yet) last, as fastchess sorts.
        rows.sort_by(|a, b| {
            let (x, y) = (a.2.diff, b.2.diff);
            x.is_nan().cmp(&y.is_nan()).then(y.total_cmp(&x))
        });
        let width = self
            .names
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0)
            .max(25);
        let mut out = format!(
            "{:<4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw"
        );
        if ptnml_column {
            out.push_str(&format!(" {:>20}", "Ptnml(0-2)"));
        }
        out.push('\n');
        for (rank, (i, stats, elo)) in rows.iter().enumerate() {
            let games = stats.games();
            let draws = stats.draw_ratio(penta);
            let p = stats.penta();
            let ptnml = if penta {
                format!("[{}, {}, {}, {}, {}]", p[0], p[1], p[2], p[3], p[4])
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{:>4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}% {:>9}%",
                rank + 1,
                self.names[*i],
                fixed2(elo.diff),
                fixed2(elo.error),
                fixed2(elo.nelo),
                fixed2(elo.nelo_error),
                games,
                one_decimal(stats.points() / f64::from(games) * 100.0),
                one_decimal(draws),
            ));
            if ptnml_column {
                out.push_str(&format!(" {ptnml:>20}"));
            }
            out.push('\n');
        }
        out
    }

    /// The results block of engines `first` and `second`, with the SPRT's line.
    fn results(&self, first: usize, second: usize, sprt: Option<&Sprt>) {
        if self.names.len() > 2 {
            // More than two engines: fastchess prints its table of all of them.
            let dash = "-".repeat(50);
            print!("{dash}\n{}{dash}\n", self.table(true));
            return;
        }
        let stats = self
            .pairings
            .get(&(first, second))
            .map(|p| p.stats.clone())
            .unwrap_or_default();
        let penta = self.output.penta;
        let (elo, los) = stats.elo_lines(penta);
        let games = stats.games();
        let draw_ratio = stats.draw_ratio(penta);
        let dash = "-".repeat(50);
        let mut text = format!("{dash}\n");
        text.push_str(&format!(
            "Results of {} vs {} ({}):\n",
            self.names[first], self.names[second], self.output.heading
        ));
        text.push_str(&format!("{elo}\n"));
        text.push_str(&format!("{los}, DrawRatio: {} %", fixed2(draw_ratio)));
        if penta {
            let pairs_ratio = f64::from(stats.ww + stats.wd) / f64::from(stats.ld + stats.ll);
            text.push_str(&format!(", PairsRatio: {}", fixed2(pairs_ratio)));
        }
        text.push('\n');
        text.push_str(&format!(
            "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({} %)\n",
            stats.wins,
            stats.losses,
            stats.draws,
            stats.points(),
            fixed2(stats.points() / f64::from(games) * 100.0)
        ));
        if penta {
            let p = stats.penta();
            text.push_str(&format!(
                "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}\n",
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                fixed2(f64::from(stats.wl) / f64::from(stats.dd))
            ));
        }
        if let Some(sprt) = sprt {
            let llr = sprt.llr();
            let (low, high) = sprt.bounds();
            let fraction = if llr >= 0.0 { llr / high } else { -llr / low };
            let (elo0, elo1) = sprt.elos();
            let percent = if fraction.is_nan() {
                "nan".to_string()
            } else {
                format!("{:.1}", fraction * 100.0)
            };
            text.push_str(&format!(
                "LLR: {} ({percent}%) ({:.2}, {:.2}) [{elo0:.2}, {elo1:.2}]\n",
                fixed2(llr),
                low,
                high
            ));
        }
        text.push_str(&format!("{dash}\n"));
        print!("{text}");
    }

    /// The SPRT after a pair: the block that was due, with the SPRT's line; at a bound,
    /// the block again and the verdict, and the match ends.
    fn sprt(&mut self, sprt: &Sprt) {
        if self.sprt_done {
            return;
        }
        if let Some((first, second)) = self.due.take() {
            self.results(first, second, Some(sprt));
        }
        let decision = sprt.decision();
        if decision == SprtDecision::Continue {
            return;
        }
        self.results(0, 1, Some(sprt));
        let (elo0, elo1) = sprt.elos();
        println!(
            "SPRT ([{elo0:.2}, {elo1:.2}]) completed - {} was accepted",
            if decision == SprtDecision::AcceptH0 {
                "H0"
            } else {
                "H1"
            }
        );
        self.sprt_done = true;
    }

    /// The last lines: the players that lost on time or crashed, `interrupted` (what to
    /// do about a match that stopped before its end), `Finished match` and the time it
    /// took.
    pub(super) fn end(&self, interrupted: Option<&str>) {
        if self.output.style == Style::Cutechess {
            // The ratings once more, unless the last game printed them.
            let ri = self.output.rating_interval as usize;
            if ri == 0 || !self.finished.is_multiple_of(ri) {
                self.cutechess_ratings();
            }
            if let Some(line) = interrupted {
                eprintln!("Warning: {line}");
            }
            println!("Finished match");
            let _ = std::io::stdout().flush();
            return;
        }
        // fastchess names the players that failed with its own output only.
        let failed: Vec<usize> = (0..self.names.len())
            .filter(|&i| self.timeouts[i] + self.crashes[i] > 0)
            .filter(|_| self.output.style == Style::Fastchess)
            .collect();
        if !failed.is_empty() {
            println!();
            for i in &failed {
                println!("Player: {}", self.names[*i]);
                println!("  Timeouts: {}", self.timeouts[*i]);
                println!("  Crashed: {}", self.crashes[*i]);
            }
            println!();
        }
        if let Some(line) = interrupted {
            println!("{line}");
        }
        println!("Finished match");
        let secs = self.started.elapsed().as_secs();
        println!(
            "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)\n",
            secs / 3600,
            (secs / 60) % 60,
            secs % 60
        );
        let _ = std::io::stdout().flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_inf_print_as_a_cpp_stream_prints_them() {
        // 0/0 on x86 is the negative NaN, log10 of a negative number the positive one:
        // C++ writes them -nan and nan, as fastchess's output shows.
        let (zero, minus) = (
            std::hint::black_box(0.0_f64),
            std::hint::black_box(-1.0_f64),
        );
        assert_eq!(fixed2(zero / zero).trim_start_matches('-'), "nan");
        assert_eq!(fixed2(-f64::NAN.abs()), "-nan");
        assert_eq!(fixed2(f64::NAN.abs()), "nan");
        assert_eq!(fixed2(minus.log10()), "nan");
        assert_eq!(fixed2(f64::INFINITY), "inf");
        assert_eq!(fixed2(-0.0), "-0.00");
        assert_eq!(fixed2(12.345), "12.35");
    }

    #[test]
    fn one_drawn_pair_reads_as_fastchess_prints_it() {
        // fastchess 1.8.1 after a pair of one win and one loss:
        // Elo: -0.00 +/- 0.00, nElo: -nan +/- -nan / LOS: -nan %
        let mut stats = Stats::default();
        stats.pair(2, 0);
        let (elo, los) = stats.elo_lines(true);
        assert_eq!(elo, "Elo: -0.00 +/- 0.00, nElo: -nan +/- -nan");
        assert_eq!(los, "LOS: -nan %");
        assert_eq!(stats.penta(), [0, 0, 1, 0, 0]);
    }

    fn output(penta: bool) -> Output {
        Output {
            style: Style::Fastchess,
            score_interval: 1,
            rating_interval: 0,
            penta,
            crc32_of: None,
            crc32_name: String::new(),
            recover: true,
            sprt: false,
            pgn: None,
            heading: String::new(),
        }
    }

    fn spec(number: u32, white: usize, black: usize) -> GameSpec {
        GameSpec {
            number,
            round: 1,
            white,
            black,
            opening: None,
            encounter: None,
        }
    }

    #[test]
    fn the_table_of_many_engines_puts_those_without_games_last() {
        let names: Vec<String> = (0..30).map(|i| format!("E{i}")).collect();
        let mut lines = FastchessLines::new(names, output(true), 100);
        // E5 beats E3 twice; nobody else has played.
        lines.seed(&spec(1, 5, 3), GameResult::WhiteWins);
        lines.seed(&spec(2, 3, 5), GameResult::BlackWins);
        let table = lines.table(true);
        let rows: Vec<&str> = table.lines().skip(1).collect();
        assert_eq!(rows.len(), 30);
        assert!(rows[0].contains(" E5 "), "{table}");
        assert!(rows[1].contains(" E3 "), "{table}");
        assert!(rows[2..].iter().all(|r| r.contains("nan")), "{table}");
        assert!(table.lines().next().unwrap().ends_with("Ptnml(0-2)"));
        assert!(!lines.table(false).contains("Ptnml"));
    }

    #[test]
    fn pairs_elo_follows_fastchess_arithmetic() {
        let mut stats = Stats::default();
        for (a, b) in [(2, 1), (1, 1), (2, 0), (0, 1), (2, 2)] {
            stats.pair(a, b);
        }
        assert_eq!(stats.penta(), [0, 1, 2, 1, 1]);
        assert_eq!((stats.wins, stats.losses, stats.draws), (4, 2, 4));
        let (elo, los) = stats.elo_lines(true);
        // A score of 0.6 with a variance of 0.065 a pair, worked out by hand (Python's
        // math module): the Elo of 0.6 and its interval, nElo 0.1 / sqrt(0.13) * 800 /
        // ln 10, LOS (1 - erf(-0.1 / sqrt(0.026))) / 2.
        assert_eq!(elo, "Elo: 70.44 +/- 177.57, nElo: 96.36 +/- 215.34");
        assert_eq!(los, "LOS: 80.98 %");
    }
}
