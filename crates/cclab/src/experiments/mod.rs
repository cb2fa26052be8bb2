//! Seed reproductions: each experiment is one small module that builds scenarios, runs them
//! (variants in parallel on every core) and returns a `Report`: the seed's numbers beside
//! the simulated ones, and checks with their tolerances. Adding one = one file + one line
//! in `all()`.

pub mod common;
pub mod cubic_vs_reno;
pub mod dctcp_common;
pub mod dctcp_convergence;
pub mod dctcp_incast;
pub mod dctcp_k;
pub mod dctcp_queue;
pub mod dctcp_syn_ect;
pub mod fairness;
pub mod fct_websearch;
pub mod incast_qct;
pub mod ipg_tuning;
pub mod lfn_pacing;
pub mod mathis;
pub mod mbecn_lost_updates;
pub mod mbecn_rtt;
pub mod mbecn_star;
pub mod mbecn_variants;
pub mod mbecn_vs_tcp;
pub mod parallel_streams;
pub mod policer;
pub mod recovery_hs;
pub mod reno_recovery;
pub mod response_function;
pub mod slow_start_burst;

use serde::Serialize;

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

/// The result of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Within the tolerance.
    Pass,
    /// Outside the tolerance: the run fails.
    Fail,
    /// Known not to match, for a cause that is named (a mechanism cclab does not model, a
    /// seed number that cannot be what it says): reported, never hidden, not a failure.
    Differs,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Differs => "DIFFERS",
        }
    }
}

/// How far a simulated value may be from the value it is checked against.
#[derive(Clone, Copy, Debug)]
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

/// How a check names a mean of several runs: "mean of n runs, 95% CI ±h".
fn mean_of(n: usize, half: f64) -> String {
    format!("mean of {n} runs, 95% CI ±{}", fmt_num(half))
}

impl Tol {
    /// Whether `sim` is within this tolerance of `want`, and the comparison as text.
    #[cfg(test)]
    fn judge(self, sim: f64, want: f64) -> (bool, String) {
        self.judge_mean(sim, 0.0, 1, want)
    }

    /// As `judge` for the mean of `n` runs known to ±`half` (95% CI): it passes when some
    /// point of the interval does, i.e. unless the mean differs beyond the tolerance
    /// significantly. Over several runs the text ends with the interval and says whether
    /// the mean itself is inside.
    fn judge_mean(self, sim: f64, half: f64, n: usize, want: f64) -> (bool, String) {
        if sim.is_nan() {
            return (false, format!("no simulated value vs {}", fmt_num(want)));
        }
        // One run has no interval: judged as it is.
        let half = if half.is_finite() { half } else { 0.0 };
        let near = if sim > want {
            (sim - half).max(want)
        } else {
            (sim + half).min(want)
        };
        let (ok, _) = self.judge_point(near, want);
        let (point_ok, text) = self.judge_point(sim, want);
        if n <= 1 {
            return (ok, text);
        }
        // Never hidden: a mean that passes only because its interval reaches in says so.
        let rule = if ok && !point_ok {
            "the mean is outside the tolerance, the interval reaches it"
        } else {
            "passes unless the whole interval is outside the tolerance"
        };
        (ok, format!("{text} ({}: {rule})", mean_of(n, half)))
    }

    fn judge_point(self, sim: f64, want: f64) -> (bool, String) {
        let (s, w) = (fmt_num(sim), fmt_num(want));
        match self {
            Tol::Rel(r) => {
                let err = sim / want - 1.0;
                (
                    err.abs() <= r,
                    format!(
                        "sim {s} vs {w} → {:+.1}% (tolerance ±{}%)",
                        err * 100.0,
                        pct(r)
                    ),
                )
            }
            Tol::Abs(a) => (
                (sim - want).abs() <= a,
                format!(
                    "sim {s} vs {w} → {:+} (tolerance ±{})",
                    fmt_num(sim - want),
                    fmt_num(a)
                ),
            ),
            Tol::Factor(lo, hi) => (
                sim >= want * lo && sim <= want * hi,
                format!(
                    "sim {s} vs {w} → ×{:.2} (tolerance ×{}…×{})",
                    sim / want,
                    fmt_num(lo),
                    fmt_num(hi)
                ),
            ),
            Tol::AtLeast => (sim >= want, format!("sim {s} vs at least {w}")),
            Tol::AtMost => (sim <= want, format!("sim {s} vs at most {w}")),
        }
    }
}

impl Row {
    /// The simulated value as printed: "x", or "x ± ci (n runs)" over several runs.
    pub fn sim_text(&self) -> String {
        match (self.ci95, self.runs) {
            (Some(h), Some(n)) => format!("{} ± {} ({n} runs)", fmt_num(self.sim), fmt_num(h)),
            _ => fmt_num(self.sim),
        }
    }
}

/// One line of the comparison table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub variant: String,
    pub metric: String,
    /// The seed document's value, if it gives one. Every such row has a check against
    /// the seed (`Report::seed`), so no seed number is shown and left unjudged.
    pub seed: Option<f64>,
    /// The simulated value; over several runs (seeds), their mean.
    pub sim: f64,
    /// Over several runs: the half-width of the 95% confidence interval of `sim`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95: Option<f64>,
    /// Over several runs: how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// For a row with a seed value: the outcome of its check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub against: Against,
    pub outcome: Outcome,
    /// The numbers compared and the tolerance.
    pub detail: String,
    /// Why the tolerance is what it is or, for `differs`, the cause of the difference.
    pub why: String,
}

/// How a seed number is judged: within a tolerance whose reason is given, or known to
/// differ for a named cause.
#[derive(Clone, Copy, Debug)]
pub enum Judge<'a> {
    Within(Tol, &'a str),
    Differs(&'a str),
}

/// Counts of a report's checks, for the totals line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Seed numbers and claims within tolerance.
    pub seed_reproduce: usize,
    /// Seed numbers that differ, each for a named cause.
    pub seed_differ: usize,
    /// Seed numbers outside tolerance.
    pub seed_fail: usize,
    /// Checks against published figures and closed forms: passed, failed.
    pub other_pass: usize,
    pub other_fail: usize,
    /// Self-consistency checks (not reproduction): passed, failed.
    pub model_pass: usize,
    pub model_fail: usize,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.seed_reproduce += o.seed_reproduce;
        self.seed_differ += o.seed_differ;
        self.seed_fail += o.seed_fail;
        self.other_pass += o.other_pass;
        self.other_fail += o.other_fail;
        self.model_pass += o.model_pass;
        self.model_fail += o.model_fail;
    }

    /// One line: "seed numbers: 12 reproduce, 3 differ (cause named), 0 fail; …".
    pub fn line(&self) -> String {
        let mut s = format!(
            "seed numbers: {} reproduce, {} differ (cause named), {} fail; published/closed-form checks: {} pass, {} fail",
            self.seed_reproduce, self.seed_differ, self.seed_fail, self.other_pass, self.other_fail
        );
        if self.model_pass + self.model_fail > 0 {
            s.push_str(&format!(
                "; model self-consistency (not reproduction): {} pass, {} fail",
                self.model_pass, self.model_fail
            ));
        }
        s
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
}

impl Report {
    pub fn new(name: &str) -> Report {
        Report {
            experiment: name.to_string(),
            ..Default::default()
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
        });
    }

    /// A mean over several runs, with its confidence interval.
    pub fn row_ci(&mut self, variant: &str, metric: &str, m: common::MeanCi) {
        self.row(variant, metric, m.mean);
        let r = self.table.last_mut().unwrap();
        r.ci95 = Some(m.half);
        r.runs = Some(m.n);
    }

    /// A seed number beside the mean of several runs; the check tests the mean.
    pub fn seed_ci(
        &mut self,
        variant: &str,
        metric: &str,
        seed: f64,
        m: common::MeanCi,
        judge: Judge,
    ) {
        self.seed_judged(variant, metric, seed, m.mean, m.half, m.n, judge);
        let r = self.table.last_mut().unwrap();
        r.ci95 = Some(m.half);
        r.runs = Some(m.n);
    }

    /// A seed number beside the simulated one, judged at once: the row and its check.
    pub fn seed(&mut self, variant: &str, metric: &str, seed: f64, sim: f64, judge: Judge) {
        self.seed_judged(variant, metric, seed, sim, 0.0, 1, judge)
    }

    /// A seed row and its check; `sim` the mean of `n` runs known to ±`half`.
    #[allow(clippy::too_many_arguments)]
    fn seed_judged(
        &mut self,
        variant: &str,
        metric: &str,
        seed: f64,
        sim: f64,
        half: f64,
        n: usize,
        judge: Judge,
    ) {
        let name = format!("{variant} {metric}");
        let outcome = match judge {
            Judge::Within(tol, why) => {
                self.check_mean(name, Against::Seed, (sim, half, n), seed, tol, why)
            }
            Judge::Differs(cause) => {
                let runs = if n > 1 {
                    format!(" ({})", mean_of(n, half))
                } else {
                    String::new()
                };
                self.differs(
                    name,
                    format!("sim {} vs seed {}{runs}", fmt_num(sim), fmt_num(seed)),
                    cause,
                );
                Outcome::Differs
            }
        };
        self.table.push(Row {
            variant: variant.into(),
            metric: metric.into(),
            seed: Some(seed),
            sim,
            ci95: None,
            runs: None,
            outcome: Some(outcome),
        });
    }

    fn push(
        &mut self,
        name: String,
        against: Against,
        outcome: Outcome,
        detail: String,
        why: &str,
    ) {
        assert!(!why.is_empty(), "check {name}: every check says why");
        let t = &mut self.tally;
        match (against, outcome) {
            (Against::Seed, Outcome::Pass) => t.seed_reproduce += 1,
            (Against::Seed, Outcome::Fail) => t.seed_fail += 1,
            (_, Outcome::Differs) => t.seed_differ += 1,
            (Against::Model, Outcome::Pass) => t.model_pass += 1,
            (Against::Model, Outcome::Fail) => t.model_fail += 1,
            (_, Outcome::Pass) => t.other_pass += 1,
            (_, Outcome::Fail) => t.other_fail += 1,
        }
        self.checks.push(Check {
            name,
            against,
            outcome,
            detail,
            why: why.into(),
        });
    }

    /// A claim that holds or not (a trend, a bound on several values), against `against`.
    pub fn check(
        &mut self,
        name: impl Into<String>,
        against: Against,
        pass: bool,
        detail: impl Into<String>,
        why: &str,
    ) {
        let o = if pass { Outcome::Pass } else { Outcome::Fail };
        self.push(name.into(), against, o, detail.into(), why);
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
        self.check_mean(name.into(), against, (sim, 0.0, 1), want, tol, why)
    }

    /// `check_vs` for `(mean, half, n)`: the mean of `n` runs known to ±`half` (its 95%
    /// interval; one value: `(value, 0, 1)`).
    fn check_mean(
        &mut self,
        name: String,
        against: Against,
        (sim, half, n): (f64, f64, usize),
        want: f64,
        tol: Tol,
        why: &str,
    ) -> Outcome {
        let (pass, detail) = tol.judge_mean(sim, half, n, want);
        let o = if pass { Outcome::Pass } else { Outcome::Fail };
        self.push(name, against, o, detail, why);
        o
    }

    /// A seed claim or number the simulation is known not to reproduce, for `cause`.
    pub fn differs(&mut self, name: impl Into<String>, detail: impl Into<String>, cause: &str) {
        self.push(
            name.into(),
            Against::Seed,
            Outcome::Differs,
            detail.into(),
            cause,
        );
    }

    pub fn note(&mut self, s: impl Into<String>) {
        self.notes.push(s.into());
    }

    /// No check failed (`differs` is not a failure: its cause is named).
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.outcome != Outcome::Fail)
    }

    /// The human-readable table.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "== {} ==", self.experiment);
        let wv = self
            .table
            .iter()
            .map(|r| r.variant.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let wm = self
            .table
            .iter()
            .map(|r| r.metric.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            s,
            "{:wv$}  {:wm$}  {:>12}  {:>12}  check",
            "variant", "metric", "seed", "sim"
        );
        for r in &self.table {
            let seed = r.seed.map(fmt_num).unwrap_or_else(|| "-".into());
            let _ = writeln!(
                s,
                "{:wv$}  {:wm$}  {:>12}  {:>12}  {}",
                r.variant,
                r.metric,
                seed,
                r.sim_text(),
                r.outcome.map_or("", |o| o.label())
            );
        }
        if !self.text.is_empty() {
            let _ = writeln!(s, "\n{}", self.text.trim_end());
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s);
            for n in &self.notes {
                let _ = writeln!(s, "note: {n}");
            }
        }
        let _ = writeln!(s);
        for c in &self.checks {
            let _ = writeln!(
                s,
                "[{}] ({}) {}: {}; {}: {}",
                c.outcome.label(),
                c.against.label(),
                c.name,
                c.detail,
                if c.outcome == Outcome::Differs {
                    "cause"
                } else {
                    "why"
                },
                c.why
            );
        }
        let _ = writeln!(s, "{}: {}", self.experiment, self.tally.line());
        s
    }
}

impl Report {
    /// The report as a Markdown section (for `docs/reproductions.md`).
    pub fn markdown(&self, about: &str) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "## `{}`\n\n{about}\n", self.experiment);
        let _ = writeln!(
            s,
            "| variant | metric | seed | sim | check |\n|---|---|---:|---:|---|"
        );
        for r in &self.table {
            let seed = r.seed.map(fmt_num).unwrap_or_else(|| "–".into());
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                r.variant,
                r.metric,
                seed,
                r.sim_text(),
                r.outcome.map_or("", |o| o.label())
            );
        }
        if !self.text.is_empty() {
            let _ = writeln!(s, "\n```text\n{}\n```", self.text.trim_end());
        }
        let _ = writeln!(s, "\nChecks ({}):\n", self.tally.line());
        let _ = writeln!(
            s,
            "| outcome | against | check | comparison | why / cause |\n|---|---|---|---|---|"
        );
        for c in &self.checks {
            let _ = writeln!(
                s,
                "| **{}** | {} | {} | {} | {} |",
                c.outcome.label(),
                c.against.label(),
                c.name,
                c.detail,
                c.why
            );
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\nNotes:\n");
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        s.push('\n');
        s
    }
}

/// A tolerance fraction as a percentage: "7", "12.5".
fn pct(r: f64) -> String {
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

/// Options every experiment takes.
#[derive(Clone, Debug)]
pub struct Options {
    /// Shorter runs for the test suite.
    pub quick: bool,
    pub seed: u64,
    /// Worker threads for variants (0 = all cores).
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            seed: 1,
            threads: 0,
        }
    }
}

/// A built-in experiment.
pub struct Experiment {
    pub name: &'static str,
    pub seed_doc: &'static str,
    pub about: &'static str,
    pub run: fn(&Options) -> Report,
}

/// Every built-in experiment, in `cclab list` order.
pub fn all() -> Vec<Experiment> {
    vec![
        reno_recovery::EXPERIMENT,
        mathis::EXPERIMENT,
        cubic_vs_reno::EXPERIMENT,
        dctcp_incast::EXPERIMENT,
        dctcp_convergence::EXPERIMENT,
        dctcp_syn_ect::EXPERIMENT,
        dctcp_k::EXPERIMENT,
        dctcp_queue::EXPERIMENT,
        fairness::RTT_FAIRNESS,
        fairness::MTU_FAIRNESS,
        response_function::EXPERIMENT,
        recovery_hs::MBNG,
        recovery_hs::DATATAG,
        policer::EXPERIMENT,
        ipg_tuning::EXPERIMENT,
        slow_start_burst::EXPERIMENT,
        mbecn_star::EXPERIMENT,
        mbecn_variants::EXPERIMENT,
        mbecn_lost_updates::EXPERIMENT,
        mbecn_vs_tcp::EXPERIMENT,
        mbecn_rtt::EXPERIMENT,
        lfn_pacing::EXPERIMENT,
        parallel_streams::EXPERIMENT,
        fct_websearch::EXPERIMENT,
        incast_qct::EXPERIMENT,
    ]
}

pub fn by_name(name: &str) -> Option<Experiment> {
    all().into_iter().find(|e| e.name == name)
}

/// Runs (variants) started by `par_map` and finished, process-wide: what a progress display
/// shows while an experiment runs (`progress()`); never part of any result.
static RUNS_TOTAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static RUNS_DONE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// (finished, started) runs of all `par_map` calls so far in this process.
pub fn progress() -> (usize, usize) {
    use std::sync::atomic::Ordering::Relaxed;
    (RUNS_DONE.load(Relaxed), RUNS_TOTAL.load(Relaxed))
}

/// Map `f` over `items` on up to `threads` threads (0 = all cores), keeping order.
/// Each item's result depends only on the item, so the output is the same for any
/// thread count.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let n = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .min(items.len())
    .max(1);
    RUNS_TOTAL.fetch_add(items.len(), std::sync::atomic::Ordering::Relaxed);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    let slots = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                slots.lock().unwrap()[i] = Some(r);
                RUNS_DONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_number_is_judged_and_counted() {
        let mut r = Report::new("t");
        r.seed(
            "a",
            "x",
            10.0,
            10.4,
            Judge::Within(Tol::Rel(0.05), "rounding"),
        );
        r.seed(
            "a",
            "y",
            10.0,
            12.0,
            Judge::Within(Tol::Rel(0.05), "rounding"),
        );
        r.seed("a", "z", 3227.0, 1.0, Judge::Differs("TSO bursts"));
        r.row("a", "w", 5.0);
        r.check_vs("cf", Against::ClosedForm, 1.0, 1.0, Tol::Abs(0.0), "exact");
        r.check_vs("m", Against::Model, 2.0, 1.0, Tol::AtMost, "self");
        let outcomes: Vec<Option<Outcome>> = r.table.iter().map(|x| x.outcome).collect();
        assert_eq!(
            outcomes,
            [
                Some(Outcome::Pass),
                Some(Outcome::Fail),
                Some(Outcome::Differs),
                None
            ]
        );
        assert_eq!(
            r.tally,
            Tally {
                seed_reproduce: 1,
                seed_differ: 1,
                seed_fail: 1,
                other_pass: 1,
                other_fail: 0,
                model_pass: 0,
                model_fail: 1,
            }
        );
        assert!(!r.passed());
        let text = r.render();
        assert!(text.contains("[DIFFERS] (seed) a z: sim 1.000 vs seed 3227; cause: TSO bursts"));
        assert!(text.contains("[FAIL] (seed) a y: sim 12.00 vs 10.00 → +20.0% (tolerance ±5%)"));
        assert!(text.contains("1 reproduce, 1 differ (cause named), 1 fail"));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["checks"][2]["against"], "seed");
        assert_eq!(json["checks"][2]["outcome"], "differs");
        assert_eq!(json["checks"][3]["against"], "closed_form");
    }

    #[test]
    fn par_map_counts_its_runs_for_progress() {
        let (d0, t0) = progress();
        let out = par_map(&[1, 2, 3], 2, |x| x * 2);
        assert_eq!(out, [2, 4, 6]);
        let (d1, t1) = progress();
        // Other tests may run par_map at the same time: at least these three.
        assert!(d1 >= d0 + 3 && t1 >= t0 + 3);
    }

    #[test]
    fn tolerances_judge_both_sides() {
        assert!(Tol::Rel(0.1).judge(0.9, 1.0).0 && !Tol::Rel(0.1).judge(0.89, 1.0).0);
        assert!(Tol::Abs(0.5).judge(1.5, 1.0).0 && !Tol::Abs(0.5).judge(0.4, 1.0).0);
        assert!(
            Tol::Factor(0.5, 4.0).judge(3.9, 1.0).0 && !Tol::Factor(0.5, 4.0).judge(0.4, 1.0).0
        );
        assert!(Tol::AtLeast.judge(1.0, 1.0).0 && !Tol::AtLeast.judge(0.99, 1.0).0);
        assert!(Tol::AtMost.judge(1.0, 1.0).0 && !Tol::AtMost.judge(1.01, 1.0).0);
        // A mean passes when its 95% interval reaches the tolerance, not otherwise.
        assert!(Tol::Rel(0.1).judge_mean(0.85, 0.06, 3, 1.0).0);
        // … and says so, once, when only the interval reaches it.
        assert_eq!(
            Tol::Rel(0.1).judge_mean(0.85, 0.06, 3, 1.0).1,
            "sim 0.8500 vs 1.000 → -15.0% (tolerance ±10%) (mean of 3 runs, 95% CI ±0.06000: \
             the mean is outside the tolerance, the interval reaches it)"
        );
        assert_eq!(
            Tol::Rel(0.1).judge_mean(0.95, 0.06, 3, 1.0).1,
            "sim 0.9500 vs 1.000 → -5.0% (tolerance ±10%) (mean of 3 runs, 95% CI ±0.06000: \
             passes unless the whole interval is outside the tolerance)"
        );
        assert!(!Tol::Rel(0.1).judge_mean(0.85, 0.04, 3, 1.0).0);
        assert!(
            Tol::AtMost.judge_mean(1.2, 0.3, 3, 1.0).0
                && !Tol::AtMost.judge_mean(1.2, 0.1, 3, 1.0).0
        );
        // One run has no interval; a missing value never passes.
        assert!(!Tol::Rel(0.1).judge_mean(0.85, f64::INFINITY, 1, 1.0).0);
        assert!(!Tol::Rel(0.1).judge_mean(f64::NAN, 0.1, 3, 1.0).0);
        // A run that produced no value never passes.
        assert!(!Tol::Rel(0.1).judge(f64::NAN, 1.0).0);
        assert!(!Tol::AtMost.judge(f64::NAN, 1.0).0);
    }
}
