//! The verdict rules: how a simulated value is read against a tolerance, and what a seed
//! number's outcome is. docs/reproductions.md's header and docs/architecture.md
//! ("Verdicts") state them for readers; this file is where they are decided.
//!
//! 1. Each seed number is judged once, in the experiment's **seed configuration** (its
//!    best reading of the seed's testbed). Other configurations are rows, never counted.
//! 2. **REPRODUCES**: the seed configuration's value is within the tolerance, whose reason
//!    comes from the source (rounding, stated accuracy, physics), never from the result.
//!    For the mean of several runs the point estimate must be within the band *and* its
//!    95% interval narrower than the band (for a one-sided bound: the interval does not
//!    cross it); otherwise the reading is open, the harness runs more seeds up to the
//!    experiment's cap, and a reading still open is **UNRESOLVED**.
//! 3. **EXPLAINED**: the seed configuration misses, and a **cause run** — the same
//!    experiment with the named mechanism switched on, or the arithmetic showing the
//!    seed's own error — reproduces the number under rule 2. Both values are shown.
//! 4. **FAILS**: everything else. A cause no run has shown is a hypothesis in the text.
//! 5. Nothing is decided before the run: there is no "known to differ" outcome, and the
//!    outcome is a function of the readings below and nothing else.

use super::common::MeanCi;
use serde::Serialize;

/// How far a simulated value may be from the value it is checked against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tol {
    /// |sim / want − 1| ≤ r.
    Rel(f64),
    /// |sim − want| ≤ a.
    Abs(f64),
    /// want·lo ≤ sim ≤ want·hi.
    Factor(f64, f64),
    /// sim ≥ want (a bound the source states, not a tolerance around it).
    AtLeast,
    /// sim ≤ want.
    AtMost,
}

impl Tol {
    /// The band `[lo, hi]` this tolerance allows around `want` (an end may be infinite).
    pub fn band(self, want: f64) -> (f64, f64) {
        match self {
            Tol::Rel(r) => (want - r * want.abs(), want + r * want.abs()),
            Tol::Abs(a) => (want - a, want + a),
            Tol::Factor(lo, hi) => (want * lo, want * hi),
            Tol::AtLeast => (want, f64::INFINITY),
            Tol::AtMost => (f64::NEG_INFINITY, want),
        }
    }

    /// The comparison of a point `sim` with `want` as text: "sim 1.2 vs 1.0 → +20.0%
    /// (tolerance ±5%)".
    fn text(self, sim: f64, want: f64) -> String {
        let (s, w) = (fmt_num(sim), fmt_num(want));
        match self {
            Tol::Rel(r) => format!(
                "sim {s} vs {w} → {:+.1}% (tolerance ±{}%)",
                (sim / want - 1.0) * 100.0,
                pct(r)
            ),
            Tol::Abs(a) => format!(
                "sim {s} vs {w} → {}{} (tolerance ±{})",
                if sim >= want { "+" } else { "" },
                fmt_num(sim - want),
                fmt_num(a)
            ),
            Tol::Factor(lo, hi) => format!(
                "sim {s} vs {w} → ×{:.2} (tolerance ×{}…×{})",
                sim / want,
                fmt_num(lo),
                fmt_num(hi)
            ),
            Tol::AtLeast => format!("sim {s} vs at least {w}"),
            Tol::AtMost => format!("sim {s} vs at most {w}"),
        }
    }
}

/// What one value says about one tolerance band (rule 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// Within the band, and resolved: one value, or a mean whose interval is narrower than
    /// the band (does not cross a one-sided bound).
    Within,
    /// Outside the band, and resolved (or no value at all).
    Outside,
    /// Not resolved by the runs made: the interval is as wide as the band or crosses it.
    Open,
}

/// `est` (one value: `n` ≤ 1; or the mean of `n` runs known to ±`half`, 95%) read against
/// `want` with `tol`, and the comparison as text.
pub fn read(tol: Tol, want: f64, est: MeanCi) -> (Reading, String) {
    let MeanCi { mean, half, n } = est;
    if mean.is_nan() {
        return (
            Reading::Outside,
            format!("no simulated value vs {}", fmt_num(want)),
        );
    }
    let text = tol.text(mean, want);
    let (lo, hi) = tol.band(want);
    let inside = lo <= mean && mean <= hi;
    if n <= 1 || half == 0.0 {
        let r = if inside {
            Reading::Within
        } else {
            Reading::Outside
        };
        return (
            r,
            if n > 1 {
                format!("{text} ({})", runs_of(n, half))
            } else {
                text
            },
        );
    }
    let (a, b) = (mean - half, mean + half);
    let reading = if lo.is_finite() && hi.is_finite() {
        if 2.0 * half < hi - lo {
            if inside {
                Reading::Within
            } else {
                Reading::Outside
            }
        } else if b < lo || a > hi {
            // The whole interval is outside the band: a miss however wide it is.
            Reading::Outside
        } else {
            Reading::Open
        }
    } else if a >= lo && b <= hi {
        Reading::Within
    } else if b < lo || a > hi {
        Reading::Outside
    } else {
        Reading::Open
    };
    let how = match (reading, lo.is_finite() && hi.is_finite()) {
        (Reading::Open, true) => "the interval is as wide as the band: not resolved",
        (Reading::Open, false) => "the interval crosses the bound: not resolved",
        (_, true) if 2.0 * half < hi - lo => "narrower than the band",
        (_, true) => "the whole interval is outside the band",
        (_, false) => "the interval is on one side of the bound",
    };
    (reading, format!("{text} ({}: {how})", runs_of(n, half)))
}

/// "mean of n runs, 95% CI ±h".
pub fn runs_of(n: usize, half: f64) -> String {
    format!("mean of {n} runs, 95% CI ±{}", fmt_num(half))
}

/// What a check compares the simulation with. Only the first three test the simulation
/// against the world; `Model` checks (self-consistency of a model with the table it was
/// built from, say) are reported apart and never counted as reproduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Against {
    /// A number or claim of the seed document.
    Seed,
    /// A figure of a paper or RFC (named in the check).
    Published,
    /// A formula evaluated for the simulated configuration (named in the check).
    ClosedForm,
    /// Self-consistency of a model; not a reproduction.
    Model,
}

impl Against {
    pub fn label(self) -> &'static str {
        match self {
            Against::Seed => "seed",
            Against::Published => "published",
            Against::ClosedForm => "closed_form",
            Against::Model => "model",
        }
    }
}

/// The outcome of a check. A seed number's is one of the first four (rules 2-4); every
/// other check's is `Pass`, `Fail` or `Unresolved`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A seed number the seed configuration reproduces.
    Reproduces,
    /// A seed number the seed configuration misses and a cause run reproduces.
    Explained,
    /// A seed number neither reproduces nor a cause run explains.
    Fails,
    /// Not resolved by the runs the experiment allows (any kind of check).
    Unresolved,
    /// A published figure, closed form or model check within its tolerance.
    Pass,
    /// … outside it.
    Fail,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Reproduces => "REPRODUCES",
            Outcome::Explained => "EXPLAINED",
            Outcome::Fails => "FAILS",
            Outcome::Unresolved => "UNRESOLVED",
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
        }
    }

    /// A failure: a seed number that fails, or another check outside its tolerance.
    pub fn failed(self) -> bool {
        matches!(self, Outcome::Fails | Outcome::Fail)
    }

    /// A seed number's outcome from its seed configuration's reading and, when that
    /// misses, its cause run's (rules 2-4). An open reading of the cause (the seed
    /// configuration resolved as a miss, the cause run not resolved) is unresolved.
    pub fn of_seed(primary: Reading, cause: Option<Reading>) -> Outcome {
        match (primary, cause) {
            (Reading::Within, _) => Outcome::Reproduces,
            (Reading::Open, _) => Outcome::Unresolved,
            (Reading::Outside, Some(Reading::Within)) => Outcome::Explained,
            (Reading::Outside, Some(Reading::Open)) => Outcome::Unresolved,
            (Reading::Outside, _) => Outcome::Fails,
        }
    }

    /// Any other check's outcome.
    pub fn of_other(r: Reading) -> Outcome {
        match r {
            Reading::Within => Outcome::Pass,
            Reading::Outside => Outcome::Fail,
            Reading::Open => Outcome::Unresolved,
        }
    }
}

/// A tolerance fraction as a percentage: "7", "12.5".
pub fn pct(r: f64) -> String {
    let p = r * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

/// Numbers for tables: 4 significant digits, no exponent for ordinary magnitudes.
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if !(1e-3..1e7).contains(&a) {
        return format!("{x:.3e}");
    }
    let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(x: f64) -> MeanCi {
        MeanCi {
            mean: x,
            half: f64::INFINITY,
            n: 1,
        }
    }
    fn mean(x: f64, half: f64) -> MeanCi {
        MeanCi {
            mean: x,
            half,
            n: 5,
        }
    }

    #[test]
    fn one_value_is_read_as_it_is() {
        assert_eq!(read(Tol::Rel(0.1), 1.0, one(0.9)).0, Reading::Within);
        assert_eq!(read(Tol::Rel(0.1), 1.0, one(0.89)).0, Reading::Outside);
        assert_eq!(read(Tol::Abs(0.5), 1.0, one(1.5)).0, Reading::Within);
        assert_eq!(
            read(Tol::Factor(0.5, 4.0), 1.0, one(0.4)).0,
            Reading::Outside
        );
        assert_eq!(read(Tol::AtLeast, 1.0, one(1.0)).0, Reading::Within);
        assert_eq!(read(Tol::AtMost, 1.0, one(1.01)).0, Reading::Outside);
        // A negative seed number: ±10% of its size.
        assert_eq!(read(Tol::Rel(0.5), -21.0, one(-12.0)).0, Reading::Within);
        assert_eq!(read(Tol::Rel(0.5), -21.0, one(-8.6)).0, Reading::Outside);
        // No value never passes.
        assert_eq!(read(Tol::AtMost, 1.0, one(f64::NAN)).0, Reading::Outside);
    }

    #[test]
    fn a_mean_needs_an_interval_narrower_than_the_band() {
        // Band 0.9 … 1.1 (width 0.2).
        let r = |m, h| read(Tol::Rel(0.1), 1.0, mean(m, h)).0;
        assert_eq!(r(0.95, 0.09), Reading::Within);
        assert_eq!(r(0.95, 0.11), Reading::Open, "wider than the band");
        assert_eq!(r(0.85, 0.04), Reading::Outside);
        // The old rule passed this (its interval reaches the band): now a resolved miss.
        assert_eq!(r(0.85, 0.06), Reading::Outside);
        assert_eq!(r(0.85, 0.2), Reading::Open);
        assert_eq!(r(0.5, 0.3), Reading::Outside, "the whole interval outside");
        // lfn-pacing 10 ms in issue 51: −8.6 ± 32.5 against −21 ± 50% is not a pass.
        assert_eq!(
            read(Tol::Rel(0.5), -21.0, mean(-8.6, 32.5)).0,
            Reading::Open
        );
        // One-sided: the interval must not cross the bound.
        assert_eq!(read(Tol::AtMost, 1.0, mean(0.5, 0.4)).0, Reading::Within);
        assert_eq!(read(Tol::AtMost, 1.0, mean(0.5, 0.6)).0, Reading::Open);
        assert_eq!(read(Tol::AtMost, 1.0, mean(1.5, 0.4)).0, Reading::Outside);
        assert_eq!(read(Tol::AtLeast, 0.999, mean(1.0, 0.0)).0, Reading::Within);
        // Identical runs (half 0) are read as one value.
        assert_eq!(read(Tol::AtMost, 0.0, mean(0.0, 0.0)).0, Reading::Within);
    }

    #[test]
    fn outcomes_follow_the_rules() {
        use Reading::*;
        assert_eq!(Outcome::of_seed(Within, None), Outcome::Reproduces);
        assert_eq!(Outcome::of_seed(Within, Some(Outside)), Outcome::Reproduces);
        assert_eq!(Outcome::of_seed(Open, Some(Within)), Outcome::Unresolved);
        assert_eq!(Outcome::of_seed(Outside, None), Outcome::Fails);
        assert_eq!(Outcome::of_seed(Outside, Some(Within)), Outcome::Explained);
        assert_eq!(Outcome::of_seed(Outside, Some(Outside)), Outcome::Fails);
        assert_eq!(Outcome::of_seed(Outside, Some(Open)), Outcome::Unresolved);
        assert_eq!(Outcome::of_other(Within), Outcome::Pass);
        assert_eq!(Outcome::of_other(Outside), Outcome::Fail);
        assert!(Outcome::Fails.failed() && Outcome::Fail.failed());
        assert!(!Outcome::Unresolved.failed() && !Outcome::Explained.failed());
    }

    #[test]
    fn texts_say_how_a_mean_was_read() {
        assert_eq!(
            read(Tol::Rel(0.1), 1.0, mean(0.95, 0.06)).1,
            "sim 0.9500 vs 1.000 → -5.0% (tolerance ±10%) (mean of 5 runs, 95% CI ±0.06000: narrower than the band)"
        );
        assert_eq!(
            read(Tol::Rel(0.1), 1.0, mean(0.95, 0.2)).1,
            "sim 0.9500 vs 1.000 → -5.0% (tolerance ±10%) (mean of 5 runs, 95% CI ±0.2000: the interval is as wide as the band: not resolved)"
        );
        assert_eq!(
            read(Tol::AtMost, 2.0, one(1.0)).1,
            "sim 1.000 vs at most 2.000"
        );
    }
}
