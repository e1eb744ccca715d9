//! The score and rating lines in cutechess-cli's form: after each game `Score of A vs B:
//! W - L - D  [0.500] N`, and every `-ratinginterval` games the ratings, as cutechess-cli
//! 1.5 prints them (`argus cutechess-cli`) and as fastchess's `-output format=cutechess`
//! does.

use super::output::{Stats, elo_of, erf, fixed2};

/// One player's wins, losses and draws with White and with Black.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Colours {
    pub(super) white: [u32; 3],
    pub(super) black: [u32; 3],
}

impl Colours {
    fn total(&self) -> [u32; 3] {
        std::array::from_fn(|i| self.white[i] + self.black[i])
    }
}

/// Qt's text of a number with `decimals` decimals (`nan`, `inf`, `-inf` as Qt writes
/// them).
fn qt(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{x:.decimals$}")
    }
}

/// cutechess-cli's inverse error function (Winitzki's approximation, as its `Elo`
/// class computes it).
// cutechess-cli's own truncated π, so that its margins come out as it prints them.
#[allow(clippy::approx_constant)]
fn erf_inv(x: f64) -> f64 {
    let pi = 3.141_592_653_589_7;
    let a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi));
    let y = (1.0 - x * x).ln();
    let z = 2.0 / (pi * a) + y / 2.0;
    let ret = ((z * z - y / a).sqrt() - z).sqrt();
    if x < 0.0 { -ret } else { ret }
}

fn phi_inv(p: f64) -> f64 {
    std::f64::consts::SQRT_2 * erf_inv(2.0 * p - 1.0)
}

/// cutechess-cli's Elo of wins, losses and draws: the difference, its error margin,
/// LOS in percent and the draw ratio.
fn cutechess_elo(wins: u32, losses: u32, draws: u32) -> (f64, f64, f64, f64) {
    let n = f64::from(wins + losses + draws);
    let (w, l, d) = (
        f64::from(wins) / n,
        f64::from(losses) / n,
        f64::from(draws) / n,
    );
    let mu = w + d / 2.0;
    let stdev =
        (w * (1.0 - mu).powi(2) + l * mu.powi(2) + d * (0.5 - mu).powi(2)).sqrt() / n.sqrt();
    let low = mu + phi_inv(0.025) * stdev;
    let high = mu + phi_inv(0.975) * stdev;
    let margin = (elo_of(high) - elo_of(low)) / 2.0;
    let decisive = f64::from(wins + losses);
    let los =
        100.0 * (0.5 + 0.5 * erf((f64::from(wins) - f64::from(losses)) / (2.0 * decisive).sqrt()));
    (elo_of(mu), margin, los, f64::from(draws) / n)
}

/// `Score of A vs B: W - L - D  [0.500] N`, A's wins, losses (B's wins), draws.
pub(super) fn score_line(a: &str, b: &str, wins: u32, losses: u32, draws: u32) -> String {
    let n = wins + losses + draws;
    let score = (f64::from(wins) + 0.5 * f64::from(draws)) / f64::from(n);
    format!("Score of {a} vs {b}: {wins} - {losses} - {draws}  [{score:.3}] {n}")
}

/// cutechess-cli's ratings of a two-player match, the first player's view: its games
/// with each colour, White's against Black's, and the Elo difference.
pub(super) fn two_players(name: &str, c: &Colours) -> String {
    let mut out = String::new();
    let side = |label: &str, [w, l, d]: [u32; 3]| -> Option<String> {
        let n = w + l + d;
        (n > 0).then(|| {
            format!(
                "...      {name} playing {label}: {w} - {l} - {d}  [{:.3}] {n}\n",
                f64::from(2 * w + d) / f64::from(2 * n)
            )
        })
    };
    out.extend(side("White", c.white));
    out.extend(side("Black", c.black));
    let [w, l, d] = c.total();
    let n = w + l + d;
    if n > 0 {
        // White's wins and losses over all the games, whichever player had White.
        let white_score = 2 * c.white[0] + c.white[2];
        let black_games = c.black.iter().sum::<u32>();
        let black_score = 2 * c.black[0] + c.black[2];
        out.push_str(&format!(
            "...      White vs Black: {} - {} - {}  [{:.3}] {n}\n",
            c.white[0] + c.black[1],
            c.white[1] + c.black[0],
            d,
            f64::from(white_score + 2 * black_games - black_score) / f64::from(2 * n)
        ));
    }
    let (elo, margin, los, draws) = cutechess_elo(w, l, d);
    out.push_str(&format!(
        "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
        qt(elo, 1),
        qt(margin, 1),
        qt(los, 1),
        qt(draws * 100.0, 1)
    ));
    out
}

/// cutechess-cli's default ranking of more than two players: rank, name, Elo, error,
/// games, score and draws, best score first.
pub(super) fn ranking(names: &[String], colours: &[Colours]) -> String {
    let mut rows: Vec<(usize, [u32; 3])> = colours.iter().map(Colours::total).enumerate().collect();
    let score = |[w, l, d]: [u32; 3]| {
        let n = w + l + d;
        if n == 0 {
            -1.0
        } else {
            f64::from(2 * w + d) / f64::from(2 * n)
        }
    };
    rows.sort_by(|a, b| score(b.1).total_cmp(&score(a.1)));
    let mut out = format!(
        "{:>4} {:<25} {:>7} {:>7} {:>7} {:>7} {:>7} \n",
        "Rank", "Name", "Elo", "+/-", "Games", "Score", "Draw"
    );
    for (rank, (i, [w, l, d])) in rows.iter().enumerate() {
        let (elo, margin, _, draws) = cutechess_elo(*w, *l, *d);
        let n = w + l + d;
        out.push_str(&format!(
            "{:>4} {:<25} {:>7} {:>7} {:>7} {:>6}% {:>6}% \n",
            rank + 1,
            names[*i],
            qt(elo, 0),
            qt(margin, 0),
            n,
            qt(score([*w, *l, *d]).max(0.0) * 100.0, 1),
            qt(draws * 100.0, 1)
        ));
    }
    out.pop();
    out
}

/// fastchess's `-output format=cutechess` line after its interval: `Elo difference: x
/// +/- y, LOS: p %, DrawRatio: d %`, with fastchess's arithmetic by games.
pub(super) fn fastchess_elo_line(stats: &Stats) -> String {
    let elo = stats.elo(false);
    format!(
        "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
        fixed2(elo.diff),
        fixed2(elo.error),
        fixed2(elo.los * 100.0),
        fixed2(stats.draw_ratio(false))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_ratings_read_as_cutechess_cli_prints_them() {
        assert_eq!(
            score_line("A", "B", 3, 1, 4),
            "Score of A vs B: 3 - 1 - 4  [0.625] 8"
        );
        let c = Colours {
            white: [2, 0, 2],
            black: [1, 1, 2],
        };
        let text = two_players("A", &c);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "...      A playing White: 2 - 0 - 2  [0.750] 4");
        assert_eq!(lines[1], "...      A playing Black: 1 - 1 - 2  [0.500] 4");
        // White won 2 (A's) + 1 (B's against A), lost 0 + 1.
        assert_eq!(lines[2], "...      White vs Black: 3 - 1 - 4  [0.625] 8");
        assert!(
            lines[3].starts_with("Elo difference: 88.7 +/- "),
            "{}",
            lines[3]
        );
        assert!(lines[3].ends_with(", DrawRatio: 50.0 %"), "{}", lines[3]);
    }

    #[test]
    fn fastchess_cutechess_output_matches_fastchess() {
        // fastchess at fishtest's pin, -output format=cutechess, after 0 - 2 - 2.
        let stats = Stats {
            losses: 2,
            draws: 2,
            ..Stats::default()
        };
        assert_eq!(
            fastchess_elo_line(&stats),
            "Elo difference: -190.85 +/- 457.95, LOS: 2.28 %, DrawRatio: 50.00 %"
        );
    }
}
