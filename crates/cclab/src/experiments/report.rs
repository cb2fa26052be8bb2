//! What an experiment returns: a table of the seed's numbers beside the simulated ones,
//! the checks with their verdicts (rules in `verdict.rs`), notes and plots; rendered as the
//! terminal's text, JSON (`--json`, `--out`) and Markdown (docs/reproductions.md).

use super::common::MeanCi;
use super::verdict::{fmt_num, read, runs_of, Against, Outcome, Reading, Tol};
use super::Mutation;
use serde::Serialize;

mod render;
pub use render::*;

/// One line of the comparison table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub variant: String,
    pub metric: String,
    /// The seed document's value, if it gives one. Every such row has a check against
    /// the seed, so no seed number is shown and left unjudged.
    pub seed: Option<f64>,
    /// The simulated value in the seed configuration; over several runs (seeds), their
    /// mean.
    pub sim: f64,
    /// Over several runs: the half-width of the 95% confidence interval of `sim`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95: Option<f64>,
    /// Over several runs: how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// For a row with a seed value: the verdict of its check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// For a seed number with a cause run: that run's name and value, shown beside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CauseRecord>,
}

impl Row {
    /// The simulated value as printed: "x", or "x ± ci (n runs)" over several runs.
    pub fn sim_text(&self) -> String {
        est_text(self.sim, self.ci95, self.runs)
    }

    /// The row as the tables print it: variant, metric, seed (`none` without one), sim,
    /// the cause run ("name: value", or empty) and the verdict.
    fn cells(&self, none: &str) -> [String; 6] {
        [
            self.variant.clone(),
            self.metric.clone(),
            self.seed.map(fmt_num).unwrap_or_else(|| none.into()),
            self.sim_text(),
            self.cause.as_ref().map_or(String::new(), |c| {
                format!("{}: {}", c.variant, est_text(c.sim, c.ci95, c.runs))
            }),
            self.outcome.map_or("", |o| o.label()).into(),
        ]
    }
}

/// "x", or "x ± h (n runs)".
fn est_text(x: f64, ci95: Option<f64>, runs: Option<usize>) -> String {
    match (ci95, runs) {
        (Some(h), Some(n)) => format!("{} ± {} ({n} runs)", fmt_num(x), fmt_num(h)),
        _ => fmt_num(x),
    }
}

/// A value as the table and the JSON give it: (value, ci95, runs), the last two only over
/// several runs.
fn est_parts(m: MeanCi) -> (f64, Option<f64>, Option<usize>) {
    if m.n > 1 {
        (m.mean, Some(m.half), Some(m.n))
    } else {
        (m.mean, None, None)
    }
}

impl Mutation {
    /// The seed number `seed` as this mutation moves it.
    fn nudged(&self, tol: Tol, seed: f64) -> f64 {
        let k = self.nudge_seed;
        if k == 0.0 {
            return seed;
        }
        match tol {
            Tol::AtLeast => seed + 0.1 * k * seed.abs(),
            Tol::AtMost => seed - 0.1 * k * seed.abs(),
            _ => {
                let (lo, hi) = tol.band(seed);
                seed + k * (hi - lo) / 2.0
            }
        }
    }
}

/// A cause run as a check and its row carry it: what was switched on, what it gave.
#[derive(Clone, Debug, Serialize)]
pub struct CauseRecord {
    /// The cause run's name (a row of the table).
    pub variant: String,
    /// What is switched on, as a user configures it (a key, a profile, a model), or the
    /// arithmetic that shows the seed's own error.
    pub config: String,
    /// The cause run's value; over several runs, their mean.
    pub sim: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// The seed's value (or the claim's bound) it is compared with.
    pub seed: f64,
    /// How the cause run's value reads against the same tolerance.
    pub reading: Reading,
    /// The comparison as text.
    pub detail: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub against: Against,
    pub outcome: Outcome,
    /// The numbers compared and the tolerance (for a seed number, its seed configuration).
    pub detail: String,
    /// Why the tolerance is what it is.
    pub why: String,
    /// For a seed number with a cause run: what it switched on and what it gave (an
    /// explained number always has one); for another check, the cause run shown beside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CauseRecord>,
}

/// A cause run for a seed number (rule 3): the same experiment with the named mechanism
/// switched on, or the arithmetic that shows the seed's own error.
#[derive(Clone, Copy, Debug)]
pub struct Cause<'a> {
    /// The run's name, as its rows are named.
    pub variant: &'a str,
    /// What is switched on, as a user configures it.
    pub config: &'a str,
    /// Its value: one run (`MeanCi::one`), or the mean of several.
    pub sim: MeanCi,
    /// Its own tolerance where the test's width depends on the sample (a two-proportion
    /// test at the pooled probability); else the seed number's.
    pub tol: Option<Tol>,
}

/// How a seed number is judged: its tolerance with the reason, and optionally a cause run
/// that is judged with the same tolerance when the seed configuration misses.
#[derive(Clone, Copy, Debug)]
pub struct Judge<'a> {
    pub tol: Tol,
    pub why: &'a str,
    pub cause: Option<Cause<'a>>,
}

impl<'a> Judge<'a> {
    pub const fn within(tol: Tol, why: &'a str) -> Judge<'a> {
        Judge {
            tol,
            why,
            cause: None,
        }
    }

    /// With a cause run.
    pub fn cause(mut self, c: Cause<'a>) -> Judge<'a> {
        self.cause = Some(c);
        self
    }
}

/// Counts of a report's checks, for the totals line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Seed numbers and claims the seed configuration reproduces.
    pub seed_reproduce: usize,
    /// Seed numbers a cause run explains.
    pub seed_explained: usize,
    /// Seed numbers that fail.
    pub seed_fail: usize,
    /// Seed numbers the runs allowed do not resolve.
    pub seed_unresolved: usize,
    /// Checks against published figures and closed forms: passed, failed, unresolved.
    pub other_pass: usize,
    pub other_fail: usize,
    pub other_unresolved: usize,
    /// Self-consistency checks (not reproduction): passed, failed, unresolved.
    pub model_pass: usize,
    pub model_fail: usize,
    pub model_unresolved: usize,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.seed_reproduce += o.seed_reproduce;
        self.seed_explained += o.seed_explained;
        self.seed_fail += o.seed_fail;
        self.seed_unresolved += o.seed_unresolved;
        self.other_pass += o.other_pass;
        self.other_fail += o.other_fail;
        self.other_unresolved += o.other_unresolved;
        self.model_pass += o.model_pass;
        self.model_fail += o.model_fail;
        self.model_unresolved += o.model_unresolved;
    }

    fn count(&mut self, against: Against, o: Outcome) {
        let slot = match (against, o) {
            (Against::Seed, Outcome::Reproduces) => &mut self.seed_reproduce,
            (Against::Seed, Outcome::Explained) => &mut self.seed_explained,
            (Against::Seed, Outcome::Fails) => &mut self.seed_fail,
            (Against::Seed, Outcome::Unresolved) => &mut self.seed_unresolved,
            (Against::Model, Outcome::Pass) => &mut self.model_pass,
            (Against::Model, Outcome::Fail) => &mut self.model_fail,
            (Against::Model, Outcome::Unresolved) => &mut self.model_unresolved,
            (_, Outcome::Pass) => &mut self.other_pass,
            (_, Outcome::Fail) => &mut self.other_fail,
            (_, Outcome::Unresolved) => &mut self.other_unresolved,
            (a, o) => unreachable!("{a:?} check with a seed outcome {o:?}"),
        };
        *slot += 1;
    }

    /// One line: "seed numbers: 12 reproduce, 3 explained, 1 fail, 0 unresolved; …".
    pub fn line(&self) -> String {
        let mut s = format!(
            "seed numbers: {} reproduce, {} explained (a cause run reproduces them), {} fail, {} unresolved; published/closed-form checks: {} pass, {} fail",
            self.seed_reproduce,
            self.seed_explained,
            self.seed_fail,
            self.seed_unresolved,
            self.other_pass,
            self.other_fail
        );
        if self.other_unresolved > 0 {
            s.push_str(&format!(", {} unresolved", self.other_unresolved));
        }
        if self.model_pass + self.model_fail + self.model_unresolved > 0 {
            s.push_str(&format!(
                "; model self-consistency (not reproduction): {} pass, {} fail",
                self.model_pass, self.model_fail
            ));
            if self.model_unresolved > 0 {
                s.push_str(&format!(", {} unresolved", self.model_unresolved));
            }
        }
        s
    }

    /// Seed numbers and other checks that failed.
    pub fn failures(&self) -> usize {
        self.seed_fail + self.other_fail + self.model_fail
    }
}

/// What an experiment returns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub experiment: String,
    pub table: Vec<Row>,
    pub checks: Vec<Check>,
    /// The counts of `checks`.
    pub tally: Tally,
    /// Definitions, caveats, where the model and the seed differ and why.
    #[serde(skip)]
    pub notes: Vec<String>,
    /// Extra human-readable text (e.g. the seed's own table layout).
    #[serde(skip)]
    pub text: String,
    /// SVG plots: (file name, contents).
    #[serde(skip)]
    pub plots: Vec<(String, String)>,
    /// Wall-clock observations (speed): shown on the terminal only, never in JSON or the
    /// generated docs, which must be identical run to run.
    #[serde(skip)]
    pub perf: Vec<String>,
    /// A deliberate error for the mutation tests (none by default).
    #[serde(skip)]
    pub mutation: Mutation,
}

impl Report {
    pub fn new(name: &str) -> Report {
        Report {
            experiment: name.to_string(),
            ..Default::default()
        }
    }

    /// A report for an experiment run with `o` (which may carry a mutation).
    pub fn with(name: &str, o: &super::Options) -> Report {
        Report {
            mutation: o.mutation,
            ..Report::new(name)
        }
    }

    /// A simulated (or computed) value the seed gives no number for.
    pub fn row(&mut self, variant: &str, metric: &str, sim: f64) {
        self.table.push(Row {
            variant: variant.into(),
            metric: metric.into(),
            seed: None,
            sim,
            ci95: None,
            runs: None,
            outcome: None,
            cause: None,
        });
    }

    /// A mean over several runs, with its confidence interval.
    pub fn row_ci(&mut self, variant: &str, metric: &str, m: MeanCi) {
        self.row(variant, metric, m.mean);
        let r = self.table.last_mut().unwrap();
        r.ci95 = Some(m.half);
        r.runs = Some(m.n);
    }

    /// A seed number beside the mean of several runs of the seed configuration: the row
    /// and its check.
    pub fn seed_ci(
        &mut self,
        variant: &str,
        metric: &str,
        seed: f64,
        m: MeanCi,
        judge: Judge,
    ) -> Outcome {
        let name = format!("{variant} {metric}");
        let (o, cause) = self.judged(name, seed, m, judge);
        let (sim, ci95, runs) = est_parts(m);
        self.table.push(Row {
            variant: variant.into(),
            metric: metric.into(),
            seed: Some(seed),
            sim,
            ci95,
            runs,
            outcome: Some(o),
            cause,
        });
        o
    }

    /// A seed number beside one simulated value: the row and its check.
    pub fn seed(&mut self, variant: &str, metric: &str, seed: f64, sim: f64, j: Judge) -> Outcome {
        self.seed_ci(variant, metric, seed, MeanCi::one(sim), j)
    }

    /// A seed claim with a bound and no row of its own ("goodput at least 500 Mbit/s"):
    /// `sim` is judged against `bound` like a seed number.
    pub fn seed_claim(
        &mut self,
        name: impl Into<String>,
        bound: f64,
        sim: MeanCi,
        j: Judge,
    ) -> Outcome {
        self.judged(name.into(), bound, sim, j).0
    }

    /// The check of a seed number (rules 2-4); returns its outcome and the cause record.
    fn judged(
        &mut self,
        name: String,
        seed: f64,
        sim: MeanCi,
        j: Judge,
    ) -> (Outcome, Option<CauseRecord>) {
        let seed = self.mutation.nudged(j.tol, seed);
        let (primary, detail) = read(j.tol, seed, sim);
        let cause = j.cause.map(|c| self.cause_record(c, j.tol, seed, sim));
        let o = Outcome::of_seed(primary, cause.as_ref().map(|c| c.reading));
        self.push(Check {
            name,
            against: Against::Seed,
            outcome: o,
            detail,
            why: j.why.into(),
            cause: cause.clone(),
        });
        (o, cause)
    }

    /// Cause run `c` read against `seed` with the number's tolerance (or its own), for a
    /// number whose seed configuration gave `sim`.
    fn cause_record(&self, mut c: Cause, tol: Tol, seed: f64, sim: MeanCi) -> CauseRecord {
        if self.mutation.causes_miss {
            c.sim = sim;
        }
        let (reading, detail) = read(c.tol.unwrap_or(tol), seed, c.sim);
        let (sim, ci95, runs) = est_parts(c.sim);
        CauseRecord {
            variant: c.variant.into(),
            config: c.config.into(),
            sim,
            ci95,
            runs,
            seed,
            reading,
            detail,
        }
    }

    /// A seed claim read as a whole (no single number: "every flow converges"), with the
    /// reading its run gives and, optionally, a cause run's (as `CauseRecord`, whose
    /// `sim`/`seed` say what was compared).
    pub fn seed_reading(
        &mut self,
        name: impl Into<String>,
        reading: Reading,
        detail: impl Into<String>,
        why: &str,
        cause: Option<CauseRecord>,
    ) -> Outcome {
        let cause_reading = cause.as_ref().map(|c| match self.mutation.causes_miss {
            true => reading,
            false => c.reading,
        });
        let o = Outcome::of_seed(reading, cause_reading);
        self.push(Check {
            name: name.into(),
            against: Against::Seed,
            outcome: o,
            detail: detail.into(),
            why: why.into(),
            cause,
        });
        o
    }

    fn push(&mut self, c: Check) {
        assert!(!c.why.is_empty(), "check {}: every check says why", c.name);
        self.tally.count(c.against, c.outcome);
        self.checks.push(c);
    }

    /// A claim that holds or not (a trend, a bound on several values), against `against`.
    /// Against the seed, a claim that holds reproduces and one that does not fails.
    pub fn check(
        &mut self,
        name: impl Into<String>,
        against: Against,
        pass: bool,
        detail: impl Into<String>,
        why: &str,
    ) {
        let reading = if pass {
            Reading::Within
        } else {
            Reading::Outside
        };
        if against == Against::Seed {
            self.seed_reading(name, reading, detail, why, None);
            return;
        }
        self.push(Check {
            name: name.into(),
            against,
            outcome: Outcome::of_other(reading),
            detail: detail.into(),
            why: why.into(),
            cause: None,
        });
    }

    /// `sim` against `want` (from `against`) with tolerance `tol`, for the reason `why`.
    pub fn check_vs(
        &mut self,
        name: impl Into<String>,
        against: Against,
        sim: f64,
        want: f64,
        tol: Tol,
        why: &str,
    ) -> Outcome {
        self.check_ci(name, against, MeanCi::one(sim), want, tol, why)
    }

    /// `check_vs` for the mean of several runs (rule 2 applies to every check).
    pub fn check_ci(
        &mut self,
        name: impl Into<String>,
        against: Against,
        sim: MeanCi,
        want: f64,
        tol: Tol,
        why: &str,
    ) -> Outcome {
        self.check_caused(name, against, sim, want, Judge::within(tol, why))
    }

    /// `check_ci` with the tolerance, its reason and optionally a cause run in `j`. Against
    /// the seed this is a seed claim (a cause run that reproduces explains it); against a
    /// published figure, a closed form or a model the cause run is shown beside the check,
    /// read with the same tolerance (what its miss was traced to, or was not), and the
    /// verdict stays the check's own configuration's (rule 5).
    pub fn check_caused(
        &mut self,
        name: impl Into<String>,
        against: Against,
        sim: MeanCi,
        want: f64,
        j: Judge,
    ) -> Outcome {
        if against == Against::Seed {
            return self.seed_claim(name, want, sim, j);
        }
        let (reading, detail) = read(j.tol, want, sim);
        let o = Outcome::of_other(reading);
        let cause = j.cause.map(|c| self.cause_record(c, j.tol, want, sim));
        self.push(Check {
            name: name.into(),
            against,
            outcome: o,
            detail,
            why: j.why.into(),
            cause,
        });
        o
    }

    pub fn note(&mut self, s: impl Into<String>) {
        self.notes.push(s.into());
    }

    /// No check failed: no seed number fails, no other check is outside its tolerance
    /// (unresolved and explained are not failures; the totals count them).
    pub fn passed(&self) -> bool {
        !self.checks.iter().any(|c| c.outcome.failed())
    }
}

#[cfg(test)]
mod tests;
