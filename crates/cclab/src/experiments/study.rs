//! The experiment harness: a `Study` declares an experiment's configurations (the seed
//! configuration of each case, the cause configurations, extra rows), how many runs
//! (seeds) each gets and at most, and its seed numbers with their tolerances — all before
//! anything runs. `run` then runs variants × seeds on every core, reads each seed number
//! by the rules of `verdict.rs`, runs more seeds where a reading is not resolved (up to
//! the cap), and returns the runs with a `Report` in which every declared seed number gets
//! its one verdict. What the experiment adds afterwards (rows, published and closed-form
//! checks, notes, plots) goes into that report.
//!
//! ```text
//! let mut s = Study::new("reno-recovery", o);
//! let v6 = s.variant("rtt_6ms", Case { rtt_ms: 6 }, 1, 1);
//! let n = s.seed(v6, "recovery_s", 1.6, Tol::Rel(0.12), WHY, |o: &Out| o.recovery_s);
//! s.cause(n, v200, "RTT = 200 ms, the slide's heading");   // optional
//! let mut d = s.run(|case, seed| simulate(case, seed));
//! d.row(…); d.check_vs(…);                                  // the rest of the report
//! d.finish()
//! ```
//!
//! Run i of a variant uses seed `--seed` + i, so a variant's first runs are the same
//! whatever the cap, and the output is the same for any thread count.

use super::common::{diff_ci, mean_ci, run_seeds, MeanCi};
use super::report::{Cause, Judge, Report};
use super::verdict::{read, Against, Reading, Tol};
use super::{par_map, Options};
use std::sync::Arc;

/// A declared variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V(usize);

/// A declared seed number or claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct N(usize);

struct Variant<C> {
    name: String,
    config: C,
    /// Runs to start with, and at most.
    runs: usize,
    cap: usize,
}

/// Every variant's runs so far, in seed order.
pub struct Runs<O> {
    by_var: Vec<Vec<O>>,
}

impl<O> Runs<O> {
    /// Variant `v`'s runs.
    pub fn of(&self, v: V) -> &[O] {
        &self.by_var[v.0]
    }

    /// The mean of `get` over `v`'s runs, with its 95% interval.
    pub fn mean(&self, v: V, get: impl Fn(&O) -> f64) -> MeanCi {
        let xs: Vec<f64> = self.of(v).iter().map(get).collect();
        if xs.len() == 1 {
            MeanCi::one(xs[0])
        } else {
            mean_ci(&xs)
        }
    }

    /// `get` of each of `v`'s runs.
    pub fn each(&self, v: V, get: impl Fn(&O) -> f64) -> Vec<f64> {
        self.of(v).iter().map(get).collect()
    }

    /// `a`'s mean of `get` minus `b`'s, in % of `b`'s, with the 95% interval of the
    /// difference (Welch) in the same unit.
    pub fn pct_diff(&self, a: V, b: V, get: impl Fn(&O) -> f64 + Copy) -> MeanCi {
        let d = diff_ci(&self.each(a, get), &self.each(b, get));
        let base = self.mean(b, get).mean;
        MeanCi {
            mean: d.mean / base * 100.0,
            half: d.half / base * 100.0,
            n: d.n,
        }
    }
}

type Get<O> = Arc<dyn Fn(&O) -> f64 + Send + Sync>;
type Value<O> = Arc<dyn Fn(&Runs<O>) -> MeanCi + Send + Sync>;

/// Where a value comes from: the variants whose runs it reads (they get more runs when
/// it is not resolved), and how.
pub struct Of<O> {
    uses: Vec<V>,
    value: Value<O>,
}

impl<O: 'static> Of<O> {
    /// The mean of `get` over `v`'s runs.
    pub fn mean(v: V, get: impl Fn(&O) -> f64 + Send + Sync + 'static) -> Of<O> {
        Of::mean_arc(v, Arc::new(get))
    }

    fn mean_arc(v: V, get: Get<O>) -> Of<O> {
        Of {
            uses: vec![v],
            value: Arc::new(move |r: &Runs<O>| r.mean(v, |o| get(o))),
        }
    }

    /// Any function of several variants' runs (a difference of means with its interval,
    /// the best of several settings).
    pub fn with(uses: &[V], value: impl Fn(&Runs<O>) -> MeanCi + Send + Sync + 'static) -> Of<O> {
        Of {
            uses: uses.to_vec(),
            value: Arc::new(value),
        }
    }
}

struct Number<O> {
    /// The row (variant, metric), or a claim's name (no row).
    row: Option<(String, String)>,
    name: String,
    seed: f64,
    tol: Tol,
    why: String,
    of: Of<O>,
    /// For a number read from one variant: the observable, so a cause run reads the same.
    get: Option<Get<O>>,
    /// The cause run: its name, what it switches on, its value.
    cause: Option<(String, String, Of<O>)>,
    /// A seed number (`Seed`), or a declared check against a published figure, a closed
    /// form or a model (`Study::check`).
    against: Against,
}

impl<O> Number<O> {
    /// A seed number (no cause yet) of `of`, with a row or, for a claim, none.
    fn new(
        row: Option<(&str, &str)>,
        name: String,
        seed: f64,
        (tol, why): (Tol, &str),
        of: Of<O>,
    ) -> Number<O> {
        Number {
            row: row.map(|(v, m)| (v.into(), m.into())),
            name,
            seed,
            tol,
            why: why.into(),
            of,
            get: None,
            cause: None,
            against: Against::Seed,
        }
    }
}

/// An experiment's declarations. `C` is a configuration, `O` what one run gives.
pub struct Study<C, O> {
    name: String,
    opts: Options,
    vars: Vec<Variant<C>>,
    numbers: Vec<Number<O>>,
}

impl<C: Sync, O: Send + Sync + 'static> Study<C, O> {
    pub fn new(name: &str, o: &Options) -> Study<C, O> {
        Study {
            name: name.into(),
            opts: o.clone(),
            vars: vec![],
            numbers: vec![],
        }
    }

    /// A configuration run `runs` times (seeds), and up to `cap` times when a reading
    /// that depends on it is not resolved.
    pub fn variant(&mut self, name: &str, config: C, runs: usize, cap: usize) -> V {
        assert!(
            runs >= 1 && cap >= runs,
            "variant {name}: 1 ≤ runs ≤ cap, got {runs} and {cap}"
        );
        assert!(
            self.vars.iter().all(|v| v.name != name),
            "variant {name} declared twice"
        );
        self.vars.push(Variant {
            name: name.into(),
            config,
            runs,
            cap,
        });
        V(self.vars.len() - 1)
    }

    /// The name a variant was declared with.
    pub fn name(&self, v: V) -> &str {
        &self.vars[v.0].name
    }

    /// A seed number of `v`'s runs (the mean of `get`): its row is (v's name, `metric`).
    pub fn seed(
        &mut self,
        v: V,
        metric: &str,
        seed: f64,
        tol: Tol,
        why: &str,
        get: impl Fn(&O) -> f64 + Send + Sync + 'static,
    ) -> N {
        let name = self.vars[v.0].name.clone();
        self.seed_labeled(v, &name, metric, seed, tol, why, get)
    }

    /// `seed` with the row named `label` rather than after the variant (two variants
    /// whose runs differ in kind, say, shown under one name).
    #[allow(clippy::too_many_arguments)]
    pub fn seed_labeled(
        &mut self,
        v: V,
        label: &str,
        metric: &str,
        seed: f64,
        tol: Tol,
        why: &str,
        get: impl Fn(&O) -> f64 + Send + Sync + 'static,
    ) -> N {
        let get: Get<O> = Arc::new(get);
        let name = label.to_string();
        self.push(Number {
            get: Some(get.clone()),
            ..Number::new(
                Some((&name, metric)),
                format!("{name} {metric}"),
                seed,
                (tol, why),
                Of::mean_arc(v, get),
            )
        })
    }

    /// A seed number computed from several variants' runs, shown as row (`variant`,
    /// `metric`).
    pub fn seed_of(
        &mut self,
        variant: &str,
        metric: &str,
        seed: f64,
        tol: Tol,
        why: &str,
        of: Of<O>,
    ) -> N {
        self.push(Number::new(
            Some((variant, metric)),
            format!("{variant} {metric}"),
            seed,
            (tol, why),
            of,
        ))
    }

    /// A seed claim with a bound and no row ("at least 500 Mbit/s", "above the default":
    /// a difference at least 0).
    pub fn claim(&mut self, name: &str, bound: f64, tol: Tol, why: &str, of: Of<O>) -> N {
        self.push(Number::new(None, name.into(), bound, (tol, why), of))
    }

    /// A check against a published figure, a closed form or a model (`against`, not the
    /// seed), declared before the run like a seed number so that the variants it reads get
    /// more runs while its reading is open (rule 2 holds for every check); its verdict is
    /// PASS, FAIL or UNRESOLVED (`Report::check_caused`), and it has no row. A cause run
    /// (`cause_of`) is shown beside it, read with the same tolerance; the verdict stays the
    /// check's own.
    pub fn check(
        &mut self,
        name: &str,
        against: Against,
        want: f64,
        tol: Tol,
        why: &str,
        of: Of<O>,
    ) -> N {
        assert!(
            against != Against::Seed,
            "{name}: a seed number is declared with seed, seed_of or claim"
        );
        self.push(Number {
            against,
            ..Number::new(None, name.into(), want, (tol, why), of)
        })
    }

    fn push(&mut self, n: Number<O>) -> N {
        assert!(!n.why.is_empty(), "{}: every seed number says why", n.name);
        assert!(
            self.numbers.iter().all(|m| m.name != n.name),
            "seed number {} declared twice: each is judged once",
            n.name
        );
        self.numbers.push(n);
        N(self.numbers.len() - 1)
    }

    /// Number `n`'s cause run: variant `c` (the seed configuration with the mechanism
    /// `config` switched on), read as `n` is read from its own variant.
    pub fn cause(&mut self, n: N, c: V, config: &str) {
        let get = self.numbers[n.0].get.clone().expect(
            "a cause run of the same observable needs a number read from one variant: use cause_of",
        );
        let name = self.vars[c.0].name.clone();
        self.set_cause(n, &name, config, Of::mean_arc(c, get));
    }

    /// Number `n`'s cause run given as a value of other runs (`name` is how the table
    /// names it), or the arithmetic that shows the seed's own error (`Of::with(&[], …)`).
    pub fn cause_of(&mut self, n: N, name: &str, config: &str, of: Of<O>) {
        self.set_cause(n, name, config, of);
    }

    fn set_cause(&mut self, n: N, name: &str, config: &str, of: Of<O>) {
        let num = &mut self.numbers[n.0];
        assert!(
            num.cause.is_none(),
            "{}: one cause run per number",
            num.name
        );
        num.cause = Some((name.into(), config.into(), of));
    }

    /// Run every variant its `runs` times, then more (doubling, up to its cap) while a
    /// reading that depends on it is open; `f` runs one configuration with one seed.
    pub fn run(self, f: impl Fn(&C, u64) -> O + Sync) -> Done<C, O> {
        let Study {
            name,
            opts,
            vars,
            numbers,
        } = self;
        let mut want: Vec<usize> = vars.iter().map(|v| v.runs).collect();
        let mut runs = Runs {
            by_var: vars.iter().map(|_| Vec::new()).collect(),
        };
        let mut grown: Vec<(usize, usize)> = vec![];
        loop {
            let items: Vec<(usize, u64)> = want
                .iter()
                .enumerate()
                .flat_map(|(v, &n)| {
                    let have = runs.by_var[v].len();
                    run_seeds(opts.seed, n)
                        .into_iter()
                        .skip(have)
                        .map(move |s| (v, s))
                })
                .collect();
            if items.is_empty() {
                break;
            }
            let outs = par_map(&items, opts.threads, |&(v, s)| f(&vars[v].config, s));
            for ((v, _), o) in items.iter().zip(outs) {
                runs.by_var[*v].push(o);
            }
            // Variants whose runs leave a reading open get more, up to their caps.
            let mut more = vec![false; vars.len()];
            for n in &numbers {
                for v in open_uses(n, &runs) {
                    more[v.0] = true;
                }
            }
            for (v, m) in more.iter().enumerate() {
                if *m && want[v] < vars[v].cap {
                    let to = (want[v] * 2).min(vars[v].cap);
                    grown.push((v, to));
                    want[v] = to;
                }
            }
        }
        Done {
            report: Report::with(&name, &opts),
            emitted: vec![false; numbers.len()],
            vars,
            runs,
            numbers,
            grown,
        }
    }
}

/// The variants whose runs leave `n`'s verdict open: its own when its reading is open;
/// its cause run's when it misses and the cause run's reading is open.
fn open_uses<O>(n: &Number<O>, runs: &Runs<O>) -> Vec<V> {
    match read(n.tol, n.seed, (n.of.value)(runs)).0 {
        Reading::Open => n.of.uses.clone(),
        Reading::Outside => match &n.cause {
            Some((_, _, c)) if read(n.tol, n.seed, (c.value)(runs)).0 == Reading::Open => {
                c.uses.clone()
            }
            _ => vec![],
        },
        Reading::Within => vec![],
    }
}

/// A study that has run: its runs, and its report with every seed number judged.
pub struct Done<C, O> {
    pub report: Report,
    vars: Vec<Variant<C>>,
    runs: Runs<O>,
    numbers: Vec<Number<O>>,
    emitted: Vec<bool>,
    grown: Vec<(usize, usize)>,
}

/// A row's metric name and how to read it from a run.
pub type RowOf<O> = (&'static str, fn(&O) -> f64);

impl<C, O> Done<C, O> {
    /// Variant `v`'s runs, in seed order.
    pub fn runs(&self, v: V) -> &[O] {
        self.runs.of(v)
    }

    /// Every variant's runs.
    pub fn all_runs(&self) -> &Runs<O> {
        &self.runs
    }

    /// The mean of `get` over `v`'s runs.
    pub fn mean(&self, v: V, get: impl Fn(&O) -> f64) -> MeanCi {
        self.runs.mean(v, get)
    }

    /// A row per `(metric, get)` for each variant of `vars`: the mean of `get` over its
    /// runs with its interval.
    pub fn rows_ci(&mut self, vars: &[V], rows: &[RowOf<O>]) {
        for &v in vars {
            let name = self.name(v).to_string();
            for &(metric, f) in rows {
                let m = self.mean(v, f);
                self.row_ci(&name, metric, m);
            }
        }
    }

    /// Variant `v`'s first run (seed `--seed`).
    pub fn first(&self, v: V) -> &O {
        &self.runs.of(v)[0]
    }

    pub fn name(&self, v: V) -> &str {
        &self.vars[v.0].name
    }

    pub fn config(&self, v: V) -> &C {
        &self.vars[v.0].config
    }

    /// Number `n`'s row and check, here in the report (else `finish` adds it at the end).
    pub fn emit(&mut self, n: N) {
        if std::mem::replace(&mut self.emitted[n.0], true) {
            return;
        }
        let num = &self.numbers[n.0];
        let sim = (num.of.value)(&self.runs);
        let cause = num.cause.as_ref().map(|(name, config, of)| Cause {
            variant: name,
            config,
            sim: (of.value)(&self.runs),
            tol: None,
        });
        let judge = Judge {
            tol: num.tol,
            why: &num.why,
            cause,
        };
        if num.against != Against::Seed {
            let (name, against) = (num.name.clone(), num.against);
            self.report
                .check_caused(name, against, sim, num.seed, judge);
            return;
        }
        match &num.row {
            Some((v, m)) => self.report.seed_ci(v, m, num.seed, sim, judge),
            None => self
                .report
                .seed_claim(num.name.clone(), num.seed, sim, judge),
        };
    }

    /// The value of number `n` (the seed configuration's), as judged.
    pub fn value(&self, n: N) -> MeanCi {
        (self.numbers[n.0].of.value)(&self.runs)
    }

    /// The report, with every declared number not yet emitted, and a note naming the
    /// variants that were given more runs to resolve a reading.
    pub fn finish(mut self) -> Report {
        for i in 0..self.numbers.len() {
            self.emit(N(i));
        }
        if !self.grown.is_empty() {
            let mut parts: Vec<String> = vec![];
            for (i, v) in self.vars.iter().enumerate() {
                let steps: Vec<String> = self
                    .grown
                    .iter()
                    .filter(|g| g.0 == i)
                    .map(|g| g.1.to_string())
                    .collect();
                if !steps.is_empty() {
                    parts.push(format!(
                        "{} {} → {} (cap {})",
                        v.name,
                        v.runs,
                        steps.join(" → "),
                        v.cap
                    ));
                }
            }
            self.report.note(format!(
                "more runs where a reading was not resolved (the 95% interval as wide as the tolerance band): {}",
                parts.join("; ")
            ));
        }
        self.report
    }
}

impl<C, O> std::ops::Deref for Done<C, O> {
    type Target = Report;
    fn deref(&self) -> &Report {
        &self.report
    }
}

impl<C, O> std::ops::DerefMut for Done<C, O> {
    fn deref_mut(&mut self) -> &mut Report {
        &mut self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::Outcome;

    /// A toy experiment: a value `base` plus noise of ±`spread` that differs by seed.
    fn toy(base: f64, spread: f64, seed: u64) -> f64 {
        let u = ((seed.wrapping_mul(2654435761) >> 7) % 1000) as f64 / 999.0;
        base + spread * (2.0 * u - 1.0)
    }

    #[test]
    fn verdicts_more_runs_and_causes() {
        let o = Options::default();
        let mut s: Study<(f64, f64), f64> = Study::new("toy", &o);
        let exact = s.variant("exact", (10.0, 0.0), 1, 1);
        let noisy = s.variant("noisy", (10.0, 3.0), 3, 24);
        let off = s.variant("off", (20.0, 0.0), 1, 1);
        let fixed = s.variant("fixed", (10.1, 0.0), 1, 1);
        s.seed(exact, "x", 10.0, Tol::Rel(0.05), "toy", |x| *x);
        s.seed(noisy, "x", 10.0, Tol::Rel(0.05), "toy", |x| *x);
        let n = s.seed(off, "x", 10.0, Tol::Rel(0.05), "toy", |x| *x);
        s.cause(n, fixed, "the mechanism on");
        let n2 = s.seed(off, "y", 10.0, Tol::Rel(0.05), "toy", |x| *x);
        s.cause(n2, off, "nothing");
        s.claim(
            "noisy above exact",
            0.0,
            Tol::AtLeast,
            "toy",
            Of::with(&[noisy, exact], move |r| {
                let m = r.mean(noisy, |x| *x);
                MeanCi {
                    mean: m.mean - r.of(exact)[0],
                    ..m
                }
            }),
        );
        let d = s.run(|&(b, sp), seed| toy(b, sp, seed));
        // The noisy variant ran more seeds than it started with, up to its cap.
        assert!(d.runs(noisy).len() > 3 && d.runs(noisy).len() <= 24);
        let r = d.finish();
        let out: Vec<Outcome> = r.checks.iter().map(|c| c.outcome).collect();
        assert_eq!(out[0], Outcome::Reproduces);
        assert_eq!(out[2], Outcome::Explained);
        assert_eq!(out[3], Outcome::Fails);
        assert_eq!(
            out[4],
            Outcome::Unresolved,
            "a claim whose interval crosses 0"
        );
        assert!(
            r.notes.iter().any(|n| n.contains("noisy 3 → 6")),
            "{:?}",
            r.notes
        );
        // A declared closed-form check reads like a seed number: its variant gets more runs
        // while it is open, and its verdict is a pass or a fail, not a reproduction.
        let mut s: Study<(f64, f64), f64> = Study::new("toy", &o);
        let noisy2 = s.variant("noisy", (10.0, 3.0), 3, 24);
        let narrow = s.variant("narrow", (10.0, 3.0), 3, 3);
        s.check(
            "noisy vs 10",
            Against::ClosedForm,
            10.0,
            Tol::Rel(0.15),
            "toy",
            Of::mean(noisy2, |x| *x),
        );
        s.check(
            "narrow vs 10",
            Against::Model,
            10.0,
            Tol::Rel(0.05),
            "toy",
            Of::mean(narrow, |x| *x),
        );
        let d2 = s.run(|&(b, sp), seed| toy(b, sp, seed));
        assert!(d2.runs(noisy2).len() > 3);
        assert_eq!(d2.runs(narrow).len(), 3, "at its cap");
        let r2 = d2.finish();
        assert_eq!(r2.checks[0].against, Against::ClosedForm);
        assert_eq!(r2.checks[0].outcome, Outcome::Pass, "{:?}", r2.checks[0]);
        assert_eq!(r2.checks[1].outcome, Outcome::Unresolved);
        assert_eq!(r2.tally.other_pass, 1);
        assert_eq!(r2.tally.model_unresolved, 1);
        assert!(r2.table.is_empty(), "a declared check has no row");
        // The same at another thread count: byte-identical.
        let o1 = Options {
            threads: 1,
            ..Options::default()
        };
        let mut s: Study<(f64, f64), f64> = Study::new("toy", &o1);
        let noisy1 = s.variant("noisy", (10.0, 3.0), 3, 24);
        s.seed(noisy1, "x", 10.0, Tol::Rel(0.05), "toy", |x| *x);
        let d1 = s.run(|&(b, sp), seed| toy(b, sp, seed));
        let r1 = d1.finish();
        assert_eq!(
            serde_json::to_string(&r1.checks[0]).unwrap(),
            serde_json::to_string(&r.checks[1]).unwrap()
        );
    }
}
