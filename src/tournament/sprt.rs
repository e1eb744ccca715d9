//! The sequential probability ratio test of a two-player match, over game pairs (each
//! opening played twice with the colours swapped), as engine testers run it with
//! fishtest, cutechess-cli and fastchess.
//!
//! Each finished pair scores 0, ½, 1, 1½ or 2 for the first player: the pentanomial
//! counts. The log-likelihood ratio of H1 (the first player is `elo1` stronger, logistic
//! Elo) against H0 (`elo0`) is fishtest's generalised LLR (`LLR_logistic`, Van den
//! Bergh's GSPRT): with `p̂` the pairs' empirical distribution over the scores
//! `0, ¼, ½, ¾, 1` and `N` the pairs, `LLR = N Σ p̂ᵢ ln(p1ᵢ / p0ᵢ)`, where `p0`
//! (`p1`) is the distribution of expected score `s0` (`s1`, the scores of the two Elo
//! differences) most likely to have given the pairs: `pᵢ = p̂ᵢ / (1 + x (aᵢ - s))` with
//! `x` the root of the secular equation `Σ p̂ᵢ (aᵢ - s) / (1 + x (aᵢ - s)) = 0`
//! (found here by bisection). The test stops when the LLR leaves
//! `[ln(β / (1 - α)), ln((1 - β) / α)]`.
//!
//! An outcome not seen yet counts as 0.001 of a pair, as fishtest's `regularize` does,
//! so that the maximum likelihood exists while some scores have not occurred. With the
//! exact likelihoods a pair moves the LLR by at most `ln(p1ᵢ / p0ᵢ)`, a few hundredths
//! for close hypotheses, so the first pairs cannot reach a bound even when they are all
//! alike. (The normal approximation over the regularised counts, `N (s1 - s0) (2 x̄ -
//! s0 - s1) / (2 v)`, which fastchess uses, divides by a variance that is nearly zero
//! while the pairs are all alike: two pairs won twice crossed the upper bound of
//! `[0, 5]` with an LLR of 7.6.)

use serde::Serialize;

/// What the hypotheses' Elo differences are.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtModel {
    /// Logistic Elo (fishtest's `LLR_logistic`; cutechess-cli's).
    #[default]
    Logistic,
    /// Normalized Elo (fishtest's `LLR_normalized`; fastchess's default).
    Normalized,
}

impl SprtModel {
    fn is_logistic(&self) -> bool {
        *self == SprtModel::Logistic
    }
}

/// `--sprt elo0=E0 elo1=E1 alpha=A beta=B [model=logistic|normalized]`.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SprtConfig {
    /// The Elo difference of H0.
    pub elo0: f64,
    /// The Elo difference of H1.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
    /// What elo0 and elo1 are.
    #[serde(default, skip_serializing_if = "SprtModel::is_logistic")]
    pub model: SprtModel,
}

impl SprtConfig {
    /// Reads `elo0=E0 elo1=E1 alpha=A beta=B [model=logistic|normalized]` (alpha and
    /// beta default to 0.05, the model to logistic).
    ///
    /// # Errors
    ///
    /// A sentence naming the word that is wrong or missing.
    pub fn parse(words: &[String]) -> Result<SprtConfig, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        let mut model = SprtModel::Logistic;
        for w in words {
            let bad = || {
                format!(
                    "--sprt {w}: expected elo0=E0, elo1=E1, alpha=A, beta=B, model=logistic|normalized"
                )
            };
            let (k, v) = w.split_once('=').ok_or_else(bad)?;
            if k == "model" {
                model = match v {
                    "logistic" => SprtModel::Logistic,
                    "normalized" => SprtModel::Normalized,
                    _ => return Err(bad()),
                };
                continue;
            }
            let v: f64 = v.parse().map_err(|_| bad())?;
            match k {
                "elo0" => elo0 = Some(v),
                "elo1" => elo1 = Some(v),
                "alpha" => alpha = v,
                "beta" => beta = v,
                _ => return Err(bad()),
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            return Err("--sprt: give elo0= and elo1=".into());
        };
        if elo1 <= elo0 {
            return Err(format!("--sprt: elo1 ({elo1}) must be above elo0 ({elo0})"));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!(
                    "--sprt {name}={p}: expected a chance between 0 and 0.5"
                ));
            }
        }
        Ok(SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// The LLR's lower and upper bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
}

/// Where the test stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtDecision {
    /// Neither bound reached.
    Continue,
    /// The LLR reached the upper bound: H1 (the first player is stronger by elo1).
    AcceptH1,
    /// The LLR reached the lower bound: H0.
    AcceptH0,
}

/// The pentanomial counts and the test on them.
#[derive(Clone, Debug, Serialize)]
pub struct Sprt {
    config: SprtConfig,
    /// Pairs by the first player's score in half-points: 0, 1, 2, 3, 4.
    pentanomial: [u32; 5],
}

/// The expected score of a logistic Elo difference.
fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// What a pentanomial bin counts before its first pair: fishtest's `regularize`.
const EMPTY_BIN: f64 = 1e-3;

/// The pairs of `pentanomial`, each empty bin counted as [`EMPTY_BIN`]: their number and
/// their empirical distribution; None before the first pair.
fn regularized(pentanomial: [u32; 5]) -> Option<(f64, [f64; 5])> {
    if pentanomial.iter().all(|&c| c == 0) {
        return None;
    }
    let counts = pentanomial.map(|c| if c == 0 { EMPTY_BIN } else { f64::from(c) });
    let n: f64 = counts.iter().sum();
    Some((n, counts.map(|c| c / n)))
}

/// The root of `f`, which falls from positive to negative between `low` and `high`, by
/// bisection to the last representable step.
fn falling_root(f: impl Fn(f64) -> f64, mut low: f64, mut high: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high {
            break;
        }
        if f(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

/// The generalised log-likelihood ratio of `pentanomial` for `elo1` against `elo0`.
fn llr(pentanomial: [u32; 5], elo0: f64, elo1: f64) -> f64 {
    let Some((n, observed)) = regularized(pentanomial) else {
        return 0.0;
    };
    let p0 = most_likely_with_mean(&observed, expected_score(elo0));
    let p1 = most_likely_with_mean(&observed, expected_score(elo1));
    n * (0..5)
        .map(|i| observed[i] * (p1[i] / p0[i]).ln())
        .sum::<f64>()
}

/// The generalised log-likelihood ratio of `pentanomial` for the normalized Elo `nelo1`
/// against `nelo0` (fishtest's `LLR_normalized`, as fastchess computes it): each
/// hypothesis' most likely distribution with the t-value `√2 · nElo / (800 / ln 10)`
/// (Van den Bergh, "Comments on normalized Elo", section 4.1), found by iterating from
/// the uniform distribution.
fn llr_normalized(pentanomial: [u32; 5], nelo0: f64, nelo1: f64) -> f64 {
    let Some((n, observed)) = regularized(pentanomial) else {
        return 0.0;
    };
    let t = |nelo: f64| std::f64::consts::SQRT_2 * nelo / (800.0 / std::f64::consts::LN_10);
    let p0 = most_likely_with_t(&observed, t(nelo0));
    let p1 = most_likely_with_t(&observed, t(nelo1));
    n * (0..5)
        .map(|i| observed[i] * (p1[i].ln() - p0[i].ln()))
        .sum::<f64>()
}

/// The distribution over the pair scores nearest `observed` whose t-value
/// `(μ - ½) / σ` is `t`: ten rounds at most of `pᵢ = observedᵢ / (1 + θ φᵢ)`, with
/// `φᵢ = aᵢ - ½ - t σ (1 + ((aᵢ - μ) / σ)²) / 2` from the last round's `μ` and `σ`, and
/// `θ` the root of `Σ observedᵢ φᵢ / (1 + θ φᵢ) = 0` between `-1 / max φ` and
/// `-1 / min φ`, until no `pᵢ` moves by 10⁻⁴.
fn most_likely_with_t(observed: &[f64; 5], t: f64) -> [f64; 5] {
    let a: [f64; 5] = std::array::from_fn(|i| i as f64 / 4.0);
    let mut p = [0.2; 5];
    for _ in 0..10 {
        let mu: f64 = (0..5).map(|i| a[i] * p[i]).sum();
        let var: f64 = (0..5).map(|i| p[i] * (a[i] - mu).powi(2)).sum();
        let sigma = var.sqrt();
        let phi: [f64; 5] = std::array::from_fn(|i| {
            a[i] - 0.5 - 0.5 * t * sigma * (1.0 + ((a[i] - mu) / sigma).powi(2))
        });
        let (u, v) = phi
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        if !(u < 0.0 && v > 0.0) {
            // No distribution near the pairs has that t-value (a far hypothesis): the
            // likelihood is not defined, and the LLR is NaN, as fastchess's is; no
            // bound is reached.
            return [f64::NAN; 5];
        }
        let f = |x: f64| -> f64 {
            (0..5)
                .map(|i| observed[i] * phi[i] / (1.0 + x * phi[i]))
                .sum()
        };
        let theta = falling_root(f, -1.0 / v, -1.0 / u);
        let mut moved: f64 = 0.0;
        for i in 0..5 {
            let next = observed[i] / (1.0 + theta * phi[i]);
            moved = moved.max((next - p[i]).abs());
            p[i] = next;
        }
        if moved < 1e-4 {
            break;
        }
    }
    p
}

/// The distribution over the pair scores `0, ¼, ½, ¾, 1` with mean `s` (0 < s < 1) that
/// makes `observed` (no bin empty) most likely: `observedᵢ / (1 + x (aᵢ - s))`, `aᵢ` the
/// scores, with `x` the root of `Σ observedᵢ (aᵢ - s) / (1 + x (aᵢ - s)) = 0`. The sum
/// falls from +∞ to -∞ between `-1 / (1 - s)` and `1 / s` (where a denominator
/// vanishes), so bisection finds its one root there.
fn most_likely_with_mean(observed: &[f64; 5], s: f64) -> [f64; 5] {
    let d: [f64; 5] = std::array::from_fn(|i| i as f64 / 4.0 - s);
    let f = |x: f64| -> f64 { (0..5).map(|i| observed[i] * d[i] / (1.0 + x * d[i])).sum() };
    let x = falling_root(f, -1.0 / d[4], -1.0 / d[0]);
    std::array::from_fn(|i| observed[i] / (1.0 + x * d[i]))
}

impl Sprt {
    /// A test with no pairs yet.
    pub fn new(config: SprtConfig) -> Sprt {
        Sprt {
            config,
            pentanomial: [0; 5],
        }
    }

    /// Counts a finished pair: the first player's half-points over its two games (0 to
    /// 4).
    pub fn record_pair(&mut self, half_points: u32) {
        self.pentanomial[half_points.min(4) as usize] += 1;
    }

    /// The pentanomial counts.
    pub fn pentanomial(&self) -> [u32; 5] {
        self.pentanomial
    }

    /// The Elo differences of H0 and H1.
    pub fn elos(&self) -> (f64, f64) {
        (self.config.elo0, self.config.elo1)
    }

    /// The LLR's lower and upper bounds.
    pub fn bounds(&self) -> (f64, f64) {
        self.config.bounds()
    }

    /// The log-likelihood ratio (0 before the first pair), as the module says.
    pub fn llr(&self) -> f64 {
        match self.config.model {
            SprtModel::Logistic => llr(self.pentanomial, self.config.elo0, self.config.elo1),
            SprtModel::Normalized => {
                llr_normalized(self.pentanomial, self.config.elo0, self.config.elo1)
            }
        }
    }

    /// Whether a bound is reached.
    pub fn decision(&self) -> SprtDecision {
        let (low, high) = self.config.bounds();
        let llr = self.llr();
        if llr >= high {
            SprtDecision::AcceptH1
        } else if llr <= low {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// What the test concluded, for its last word: `H1 accepted`, `H0 accepted`, or
    /// `inconclusive` (no bound reached).
    pub fn verdict(&self) -> &'static str {
        match self.decision() {
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::Continue => "inconclusive",
        }
    }

    /// One line for people: `SPRT [0, 10]: LLR 1.23 (-2.94, 2.94), pairs [0 3 10 5 1]`.
    pub fn line(&self) -> String {
        let (low, high) = self.config.bounds();
        let p = self.pentanomial;
        let verdict = match self.decision() {
            SprtDecision::Continue => String::new(),
            SprtDecision::AcceptH1 => "; H1 accepted".into(),
            SprtDecision::AcceptH0 => "; H0 accepted".into(),
        };
        format!(
            "SPRT{} [{}, {}]: LLR {:.2} ({:.2}, {:.2}), pairs [{} {} {} {} {}]{verdict}",
            if self.config.model == SprtModel::Normalized {
                " nElo"
            } else {
                ""
            },
            self.config.elo0,
            self.config.elo1,
            self.llr(),
            low,
            high,
            p[0],
            p[1],
            p[2],
            p[3],
            p[4]
        )
    }

    /// The state as JSON, for standings.json.
    pub fn json(&self) -> serde_json::Value {
        let (low, high) = self.config.bounds();
        serde_json::json!({
            "elo0": self.config.elo0,
            "elo1": self.config.elo1,
            "alpha": self.config.alpha,
            "beta": self.config.beta,
            "llr": self.llr(),
            "lower_bound": low,
            "upper_bound": high,
            "pentanomial": self.pentanomial,
            "decision": self.decision(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprt(elo0: f64, elo1: f64) -> Sprt {
        Sprt::new(SprtConfig {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Logistic,
        })
    }

    #[test]
    fn the_normalized_llr_is_fastchesss() {
        // fastchess at fishtest's pin (58072f23), -sprt elo0=30 elo1=80 (and 0 5), its
        // default normalized model, after these pairs printed these LLRs.
        for (elo0, elo1, penta, want) in [
            (30.0, 80.0, [0, 0, 1, 0, 0], -0.08),
            (30.0, 80.0, [0, 0, 2, 0, 0], -0.17),
            (30.0, 80.0, [0, 1, 2, 0, 0], -0.39),
            (30.0, 80.0, [1, 1, 4, 0, 0], -0.86),
            (30.0, 80.0, [2, 3, 4, 1, 0], -1.49),
            (0.0, 5.0, [0, 1, 2, 0, 0], -0.03),
            (0.0, 5.0, [0, 1, 2, 2, 0], 0.03),
            (0.0, 5.0, [0, 3, 5, 2, 0], -0.03),
        ] {
            let mut test = Sprt::new(SprtConfig {
                elo0,
                elo1,
                alpha: 0.05,
                beta: 0.05,
                model: SprtModel::Normalized,
            });
            for (half, &count) in penta.iter().enumerate() {
                for _ in 0..count {
                    test.record_pair(half as u32);
                }
            }
            assert_eq!(
                format!("{:.2}", test.llr()),
                format!("{want:.2}"),
                "{penta:?}"
            );
        }
    }

    #[test]
    fn a_normalized_hypothesis_too_far_from_the_pairs_decides_nothing() {
        // fastchess prints `LLR: -nan` for these and never stops.
        let mut test = Sprt::new(SprtConfig {
            elo0: 100.0,
            elo1: 300.0,
            alpha: 0.05,
            beta: 0.05,
            model: SprtModel::Normalized,
        });
        for half in [1, 1, 2, 2, 2, 2, 3] {
            test.record_pair(half);
        }
        assert!(test.llr().is_nan());
        assert_eq!(test.decision(), SprtDecision::Continue);
    }

    #[test]
    fn the_bounds_of_five_percent_errors() {
        let (low, high) = sprt(0.0, 10.0).config.bounds();
        assert!((low + 2.944).abs() < 1e-3, "{low}");
        assert!((high - 2.944).abs() < 1e-3, "{high}");
    }

    #[test]
    fn an_even_match_leans_to_h0_and_a_lopsided_one_accepts_h1() {
        // Pairs [0 10 20 10 0]: mean 0.5, variance 1/32 per pair; s1 = 0.514387 for
        // 10 Elo, so the normal approximation is 40 / (2 / 32) * (0 - 0.014387²) =
        // -0.1325, and the exact LLR is that to a thousandth.
        let mut even = sprt(0.0, 10.0);
        for (half, count) in [(1, 10), (2, 20), (3, 10)] {
            for _ in 0..count {
                even.record_pair(half);
            }
        }
        let llr = even.llr();
        assert!((llr + 0.1325).abs() < 1e-3, "{llr}");
        assert_eq!(even.decision(), SprtDecision::Continue);
        let mut strong = sprt(0.0, 10.0);
        for i in 0..200 {
            strong.record_pair([4, 3, 2, 3][i % 4]);
        }
        assert_eq!(
            strong.decision(),
            SprtDecision::AcceptH1,
            "{}",
            strong.line()
        );
        let mut weak = sprt(0.0, 10.0);
        for i in 0..400 {
            weak.record_pair([1, 2, 2, 3, 1][i % 5]);
        }
        assert_eq!(weak.decision(), SprtDecision::AcceptH0, "{}", weak.line());
        assert!(weak.line().ends_with("H0 accepted"), "{}", weak.line());
    }

    #[test]
    fn one_pair_says_little_and_pairs_all_alike_decide_in_time() {
        let mut s = sprt(0.0, 5.0);
        assert_eq!(s.llr(), 0.0);
        s.record_pair(4);
        assert!(s.llr() > 0.0 && s.llr() < 0.1, "{}", s.line());
        // Each pair won twice adds at most ln(p1 / p0) of the WW bin: about
        // ln(0.5715 / 0.5) = 0.134 for [0, 50], so 22 of them are needed.
        let mut s = sprt(0.0, 50.0);
        let mut decided_at = None;
        for pair in 1..=40 {
            s.record_pair(4);
            if decided_at.is_none() && s.decision() != SprtDecision::Continue {
                decided_at = Some(pair);
            }
        }
        assert_eq!(s.decision(), SprtDecision::AcceptH1, "{}", s.line());
        let at = decided_at.unwrap();
        assert!((20..=25).contains(&at), "decided after {at} pairs");
        let mut s = sprt(0.0, 50.0);
        for _ in 0..100 {
            s.record_pair(2);
        }
        assert_eq!(s.decision(), SprtDecision::AcceptH0, "{}", s.line());
    }

    #[test]
    fn with_many_pairs_the_llr_is_near_its_normal_approximation() {
        // The normal approximation N (s1 - s0)(2 x̄ - s0 - s1) / (2 v) of 1,000 pairs
        // [50 200 450 230 70] for [0, 5].
        let counts = [50, 200, 450, 230, 70];
        let mut s = sprt(0.0, 5.0);
        for (half, &count) in counts.iter().enumerate() {
            for _ in 0..count {
                s.record_pair(half as u32);
            }
        }
        let n = 1000.0;
        let mean: f64 = (0..5)
            .map(|i| counts[i] as f64 * i as f64 / 4.0)
            .sum::<f64>()
            / n;
        let var: f64 = (0..5)
            .map(|i| counts[i] as f64 * (i as f64 / 4.0 - mean).powi(2))
            .sum::<f64>()
            / n;
        let (s0, s1) = (expected_score(0.0), expected_score(5.0));
        let approx = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        let llr = s.llr();
        assert!((llr - approx).abs() < 0.02 * approx.abs(), "{llr} {approx}");
    }

    #[test]
    fn the_most_likely_distribution_has_the_mean_asked() {
        let observed = [0.1, 0.2, 0.4, 0.2, 0.1];
        for mean in [0.3, 0.5, 0.514, 0.9] {
            let p = most_likely_with_mean(&observed, mean);
            let total: f64 = p.iter().sum();
            let m: f64 = (0..5).map(|i| p[i] * i as f64 / 4.0).sum();
            assert!((total - 1.0).abs() < 1e-9, "{p:?}");
            assert!((m - mean).abs() < 1e-9, "{p:?}");
        }
    }

    #[test]
    fn the_first_pairs_alike_do_not_decide() {
        // Two pairs won twice each: four games say little, whatever the bounds.
        for (elo0, elo1) in [(0.0, 5.0), (0.0, 10.0), (-5.0, 0.0), (0.0, 2.0)] {
            let mut s = sprt(elo0, elo1);
            s.record_pair(4);
            s.record_pair(4);
            assert_eq!(s.decision(), SprtDecision::Continue, "{}", s.line());
            let mut s = sprt(elo0, elo1);
            s.record_pair(0);
            s.record_pair(0);
            assert_eq!(s.decision(), SprtDecision::Continue, "{}", s.line());
        }
    }

    #[test]
    fn the_option_is_read_and_checked() {
        let w = |t: &str| t.split(' ').map(String::from).collect::<Vec<_>>();
        let c = SprtConfig::parse(&w("elo0=0 elo1=5 alpha=0.1 beta=0.05")).unwrap();
        assert_eq!((c.elo0, c.elo1, c.alpha, c.beta), (0.0, 5.0, 0.1, 0.05));
        for (text, says) in [
            ("elo0=5 elo1=0", "above"),
            ("elo0=0", "elo1="),
            ("elo0=0 elo1=5 alpha=0.7", "alpha=0.7"),
            ("elo0=0 elo1=5 gamma=1", "gamma=1"),
        ] {
            let e = SprtConfig::parse(&w(text)).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
