//! Match statistics as cutechess reports them: score, logistic Elo
//! difference with a 95% margin, likelihood of superiority, and a
//! sequential probability ratio test (SPRT).
//!
//! Elo: `elo(s) = -400 log10(1/s - 1)` for the mean score `s` per game.
//! The margin maps `s ± 1.96 σ/√n` (σ² the per-game score variance over
//! wins, losses and draws) through `elo` and halves the width. After a
//! clean sweep, where that variance is zero, the bound comes from the
//! Wilson score interval instead (see [`Wld::sweep_bound`]).
//!
//! SPRT (generalised, normal approximation; M. Van den Bergh): with
//! `s0`, `s1` the expected scores at `elo0`, `elo1`,
//! `LLR = n (s1 - s0)(2 s - s0 - s1) / (2 σ²)` (σ² with one extra win and
//! one extra loss, see [`Sprt::llr`]); H1 (`elo1`) is accepted
//! when `LLR ≥ ln((1-β)/α)`, H0 (`elo0`) when `LLR ≤ ln(β/(1-α))`.

use super::MatchError;
use std::fmt;

/// Wins, losses and draws of one engine against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wld {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

/// The two-sided 95% quantile of the normal distribution.
const Z95: f64 = 1.959_964;

/// The expected score at an Elo difference.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score (±∞ at 0 and 1).
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

impl Wld {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Mean score per game (wins 1, draws ½).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// Per-game variance of the score.
    pub fn variance(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return 0.0;
        }
        let s = self.score();
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.losses) * s.powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2))
            / n
    }

    /// Elo difference.
    pub fn elo(&self) -> f64 {
        elo_of(self.score())
    }

    /// Half width of the 95% confidence interval of the Elo difference
    /// (NaN when it is unbounded).
    pub fn elo_margin(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return f64::NAN;
        }
        let d = Z95 * (self.variance() / n).sqrt();
        let s = self.score();
        let (lo, hi) = (elo_of(s - d), elo_of(s + d));
        let m = (hi - lo) / 2.0;
        if m.is_finite() { m } else { f64::NAN }
    }

    /// The bound of the Elo difference after a clean sweep (every game
    /// won or every game lost), where the normal approximation has no
    /// variance to work with: the end of the 95% Wilson score interval
    /// away from 0 or 1, `n / (n + z²)` for `n` wins in `n` games (a lower
    /// bound above an even score from 4 games on), and its mirror for `n`
    /// losses. `None` otherwise.
    pub fn sweep_bound(&self) -> Option<f64> {
        let n = self.games();
        if n == 0 || (self.wins != n && self.losses != n) {
            return None;
        }
        let n = f64::from(n);
        let b = elo_of(n / (n + Z95 * Z95));
        Some(if self.wins > 0 { b } else { -b })
    }

    /// What follows `Elo difference: `: `E +/- M`; after a clean sweep the
    /// Wilson bound `> +B (95%)` or `< -B (95%)`; when the 95% interval
    /// of the score reaches 0 or 1, `E (95%: > +L)`, `E (95%: < +H)` or
    /// `E (95%: unbounded)`. Never infinite or NaN.
    pub fn elo_text(&self) -> String {
        let n = f64::from(self.games());
        if n == 0.0 {
            return "n/a (no games)".into();
        }
        if let Some(b) = self.sweep_bound() {
            let op = if self.wins > 0 { '>' } else { '<' };
            return format!("{op} {b:+.1} (95%)");
        }
        let e = self.elo() + 0.0;
        let d = Z95 * (self.variance() / n).sqrt();
        let s = self.score();
        let (lo, hi) = (elo_of(s - d), elo_of(s + d));
        match (lo.is_finite(), hi.is_finite()) {
            (true, true) => format!("{e:.1} +/- {:.1}", (hi - lo) / 2.0),
            (true, false) => format!("{e:.1} (95%: > {lo:+.1})"),
            (false, true) => format!("{e:.1} (95%: < {hi:+.1})"),
            (false, false) => format!("{e:.1} (95%: unbounded)"),
        }
    }

    /// The Elo and `+/-` columns of a ranking: `E` and `M`, or the sweep
    /// bound (`>+B`, `<-B`) and `-`; `-` where the margin is unbounded.
    pub fn elo_columns(&self) -> (String, String) {
        if let Some(b) = self.sweep_bound() {
            let op = if self.wins > 0 { '>' } else { '<' };
            return (format!("{op}{b:+.0}"), "-".into());
        }
        if self.games() == 0 {
            return ("-".into(), "-".into());
        }
        let m = self.elo_margin();
        let m = if m.is_finite() {
            format!("{m:.1}")
        } else {
            "-".into()
        };
        (format!("{:.1}", self.elo() + 0.0), m)
    }

    /// Likelihood of superiority, percent.
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w + l == 0.0 {
            return 50.0;
        }
        50.0 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }

    /// Share of draws, percent.
    pub fn draw_ratio(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.0
        } else {
            100.0 * f64::from(self.draws) / f64::from(n)
        }
    }

    /// The same games seen from the other engine.
    pub fn flipped(&self) -> Wld {
        Wld {
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
        }
    }
}

/// SPRT parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of the null hypothesis.
    pub elo0: f64,
    /// Elo of the alternative.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What an SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Not enough evidence yet.
    Continue,
    /// H0 accepted: the first engine is not `elo1` stronger.
    H0,
    /// H1 accepted: it is.
    H1,
}

impl std::str::FromStr for Sprt {
    type Err = MatchError;
    /// `elo0,elo1,alpha,beta`, e.g. `0,5,0.05,0.05`.
    fn from_str(s: &str) -> Result<Sprt, MatchError> {
        let err = |why| MatchError::Sprt {
            text: s.to_string(),
            why,
        };
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| err("expected elo0,elo1,alpha,beta"))?;
        let [elo0, elo1, alpha, beta] = v[..] else {
            return Err(err("expected 4 numbers: elo0,elo1,alpha,beta"));
        };
        let rate = |x: f64| x > 0.0 && x < 0.5;
        let ok = elo0 < elo1 && rate(alpha) && rate(beta);
        if !ok {
            return Err(err("need elo0 < elo1 and 0 < alpha, beta < 0.5"));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl Sprt {
    /// Lower and upper bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0. The variance is taken
    /// with one extra win and one extra loss (a weak prior towards an even
    /// result), so that one-sided results, common in short Othello matches
    /// without draws, neither divide by zero nor decide after 2 games; the
    /// mean score is the observed one.
    pub fn llr(&self, r: &Wld) -> f64 {
        let n = f64::from(r.games());
        if n == 0.0 {
            return 0.0;
        }
        let prior = Wld {
            wins: r.wins + 1,
            losses: r.losses + 1,
            draws: r.draws,
        };
        let var = prior.variance();
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * r.score() - s0 - s1) / (2.0 * var)
    }

    /// The verdict for results `r`.
    pub fn verdict(&self, r: &Wld) -> Verdict {
        let (lo, hi) = self.bounds();
        let llr = self.llr(r);
        if llr >= hi {
            Verdict::H1
        } else if llr <= lo {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }

    /// The cutechess-style report line.
    pub fn report(&self, r: &Wld) -> String {
        let (lo, hi) = self.bounds();
        let llr = self.llr(r);
        let pct = if llr >= 0.0 {
            100.0 * llr / hi
        } else {
            100.0 * llr / lo
        };
        let verdict = match self.verdict(r) {
            Verdict::Continue => String::new(),
            Verdict::H0 => " - H0 was accepted".into(),
            Verdict::H1 => " - H1 was accepted".into(),
        };
        format!("SPRT: llr {llr:.3} ({pct:.1}%), lbound {lo:.2}, ubound {hi:.2}{verdict}")
    }
}

/// `Score of A vs B: W - L - D [score] N` and the Elo line.
pub struct ScoreLines<'a> {
    /// First engine.
    pub a: &'a str,
    /// Second engine.
    pub b: &'a str,
    /// Results from A's side.
    pub r: Wld,
}

impl fmt::Display for ScoreLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.r;
        writeln!(
            f,
            "Score of {} vs {}: {} - {} - {} [{:.3}] {}",
            self.a,
            self.b,
            r.wins,
            r.losses,
            r.draws,
            r.score(),
            r.games()
        )?;
        write!(
            f,
            "Elo difference: {}, LOS: {:.1} %, DrawRatio: {:.1} %",
            r.elo_text(),
            r.los(),
            r.draw_ratio()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_margin() {
        let r = Wld {
            wins: 60,
            losses: 40,
            draws: 0,
        };
        assert!((r.score() - 0.6).abs() < 1e-12);
        // -400 log10(1/0.6 - 1) = 70.437...
        assert!((r.elo() - 70.437).abs() < 1e-3, "{}", r.elo());
        // sigma = sqrt(0.24/100) = 0.04899; s ± 0.096018 -> 0.503982, 0.696018
        let lo = elo_of(0.6 - Z95 * 0.048_989_794_855_663_56);
        let hi = elo_of(0.6 + Z95 * 0.048_989_794_855_663_56);
        assert!((r.elo_margin() - (hi - lo) / 2.0).abs() < 1e-9);
        assert!((r.elo_margin() - 71.4).abs() < 1.0, "{}", r.elo_margin());
        assert!(Wld::default().elo_margin().is_nan());
        assert_eq!(elo_of(1.0), f64::INFINITY);
        assert!((expected_score(elo_of(0.3)) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn never_inf_or_nan() {
        let w = |wins, losses, draws| Wld {
            wins,
            losses,
            draws,
        };
        // Wilson: 10 wins of 10 -> 10 / (10 + 1.96²) = 0.7225 -> 166.2 Elo.
        assert_eq!(w(10, 0, 0).elo_text(), "> +166.2 (95%)");
        assert_eq!(w(0, 10, 0).elo_text(), "< -166.2 (95%)");
        // 4 of 4: 0.5101 -> a positive lower bound.
        assert_eq!(w(4, 0, 0).elo_text(), "> +7.0 (95%)");
        assert_eq!(w(0, 4, 0).elo_text(), "< -7.0 (95%)");
        // 1 of 1: 1 / 4.84 = 0.2065 -> -233.8 Elo, still a finite bound.
        assert_eq!(w(1, 0, 0).elo_text(), "> -233.8 (95%)");
        assert_eq!(w(0, 0, 0).elo_text(), "n/a (no games)");
        assert_eq!(w(10, 0, 0).elo_columns(), (">+166".into(), "-".into()));
        // The bound rises with the games won.
        let bounds: Vec<f64> = (1..40).map(|n| w(n, 0, 0).sweep_bound().unwrap()).collect();
        assert!(bounds.windows(2).all(|b| b[0] < b[1]), "{bounds:?}");
        assert!(bounds[3] > 0.0 && bounds[2] < 0.0, "{bounds:?}");
        // 9-1: the interval of the score passes 1.
        assert_eq!(w(9, 1, 0).elo_text(), "381.7 (95%: > +159.0)");
        assert_eq!(w(1, 1, 0).elo_text(), "0.0 (95%: unbounded)");
        assert!(w(60, 40, 0).elo_text().starts_with("70.4 +/- 7"));
        for r in [w(10, 0, 0), w(0, 3, 0), w(9, 1, 0), w(1, 0, 1), w(0, 0, 4)] {
            let line = ScoreLines { a: "a", b: "b", r }.to_string();
            let (e, m) = r.elo_columns();
            for t in [line, e, m] {
                let l = t.to_ascii_lowercase();
                assert!(!l.contains("inf") && !l.contains("nan"), "{t}");
            }
        }
    }

    #[test]
    fn los_and_erf() {
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
        assert!((erf(-0.5) + 0.520_499_88).abs() < 1e-6);
        let r = Wld {
            wins: 10,
            losses: 10,
            draws: 5,
        };
        assert!((r.los() - 50.0).abs() < 1e-6);
        assert!(
            Wld {
                wins: 30,
                losses: 10,
                draws: 0
            }
            .los()
                > 99.0
        );
    }

    #[test]
    fn sprt() {
        let s: Sprt = "0,10,0.05,0.05".parse().unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
        assert!("1,0,0.05,0.05".parse::<Sprt>().is_err());
        assert!("0,5,0.05".parse::<Sprt>().is_err());
        let strong = Wld {
            wins: 160,
            losses: 40,
            draws: 0,
        };
        assert_eq!(s.verdict(&strong), Verdict::H1);
        assert_eq!(s.verdict(&strong.flipped()), Verdict::H0);
        let even = Wld {
            wins: 5,
            losses: 5,
            draws: 0,
        };
        assert_eq!(s.verdict(&even), Verdict::Continue);
        // Direct formula check (the prior leaves an even variance alone).
        let (s0, s1) = (0.5, expected_score(10.0));
        let want = 10.0 * (s1 - s0) * (2.0 * 0.5 - s0 - s1) / (2.0 * 0.25);
        assert!((s.llr(&even) - want).abs() < 1e-12);
        // One-sided results decide, but not at once.
        let lost = |n| Wld {
            wins: 0,
            losses: n,
            draws: 0,
        };
        let s50: Sprt = "0,50,0.05,0.05".parse().unwrap();
        assert_eq!(s50.verdict(&lost(3)), Verdict::Continue);
        assert_eq!(s50.verdict(&lost(12)), Verdict::H0);
        // σ² of (1 win, 13 losses) = (1/14)(13/14).
        let var = (1.0 / 14.0) * (13.0 / 14.0);
        let (a0, a1) = (0.5, expected_score(50.0));
        let want = 12.0 * (a1 - a0) * (0.0 - a0 - a1) / (2.0 * var);
        assert!((s50.llr(&lost(12)) - want).abs() < 1e-9);
        assert_eq!(s.verdict(&Wld::default()), Verdict::Continue);
        assert!(s.report(&strong).ends_with("H1 was accepted"));
    }
}
