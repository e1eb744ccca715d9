//! The sequential probability ratio test of a two-player match, over game pairs (each
//! opening played twice with the colours swapped), as engine testers run it with
//! fishtest, cutechess-cli and fastchess.
//!
//! Each finished pair scores 0, ½, 1, 1½ or 2 for the first player: the pentanomial
//! counts. The log-likelihood ratio of H1 (the first player is `elo1` stronger) against
//! H0 (`elo0`) is the generalised SPRT's normal approximation (Van den Bergh):
//! with the pairs' mean score `x` and variance `v` per pair (scores as fractions, 0 to
//! 1), and the expected scores `s0`, `s1` of the two logistic Elo differences,
//! `LLR = n (( x - s0)² - (x - s1)²) / (2 v)`. The test stops when the LLR leaves
//! `[ln(β / (1 - α)), ln((1 - β) / α)]`.

use serde::Serialize;

/// `--sprt elo0=E0 elo1=E1 alpha=A beta=B`.
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
}

impl SprtConfig {
    /// Reads `elo0=E0 elo1=E1 alpha=A beta=B` (alpha and beta default to 0.05).
    ///
    /// # Errors
    ///
    /// A sentence naming the word that is wrong or missing.
    pub fn parse(words: &[String]) -> Result<SprtConfig, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        for w in words {
            let bad = || format!("--sprt {w}: expected elo0=E0, elo1=E1, alpha=A, beta=B");
            let (k, v) = w.split_once('=').ok_or_else(bad)?;
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

    /// The log-likelihood ratio (0 before two pairs). An outcome not seen yet counts
    /// as a thousandth of a pair, as fastchess regularises, so that pairs that are all
    /// alike (no variance) still decide.
    pub fn llr(&self) -> f64 {
        if self.pentanomial.iter().sum::<u32>() < 2 {
            return 0.0;
        }
        let counts = self
            .pentanomial
            .map(|c| if c == 0 { 1e-3 } else { f64::from(c) });
        let n: f64 = counts.iter().sum();
        let score = |i: usize| i as f64 / 4.0;
        let mean: f64 = (0..5).map(|i| counts[i] * score(i)).sum::<f64>() / n;
        let variance: f64 = (0..5)
            .map(|i| counts[i] * (score(i) - mean).powi(2))
            .sum::<f64>()
            / n;
        if variance <= 0.0 {
            return 0.0;
        }
        let s0 = expected_score(self.config.elo0);
        let s1 = expected_score(self.config.elo1);
        n * ((mean - s0).powi(2) - (mean - s1).powi(2)) / (2.0 * variance)
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
            "SPRT [{}, {}]: LLR {:.2} ({:.2}, {:.2}), pairs [{} {} {} {} {}]{verdict}",
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
        })
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
        // 10 Elo, so LLR = 40 / (2 / 32) * (0 - 0.014387²) = -0.1325.
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
    fn one_pair_says_nothing_and_pairs_all_alike_still_decide() {
        let mut s = sprt(0.0, 5.0);
        s.record_pair(4);
        assert_eq!(s.llr(), 0.0);
        let mut s = sprt(0.0, 50.0);
        for _ in 0..10 {
            s.record_pair(4);
        }
        assert_eq!(s.decision(), SprtDecision::AcceptH1, "{}", s.line());
        let mut s = sprt(0.0, 50.0);
        for _ in 0..100 {
            s.record_pair(2);
        }
        assert_eq!(s.decision(), SprtDecision::AcceptH0, "{}", s.line());
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
