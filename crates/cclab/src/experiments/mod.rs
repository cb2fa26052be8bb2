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
pub mod mathis;
pub mod recovery_hs;
pub mod reno_recovery;
pub mod response_function;

use serde::Serialize;

/// One line of the comparison table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub variant: String,
    pub metric: String,
    /// The seed document's value, if it gives one.
    pub seed: Option<f64>,
    pub sim: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub pass: bool,
    pub detail: String,
}

/// What an experiment returns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub experiment: String,
    pub table: Vec<Row>,
    pub checks: Vec<Check>,
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

    pub fn row(&mut self, variant: &str, metric: &str, seed: Option<f64>, sim: f64) {
        self.table.push(Row {
            variant: variant.into(),
            metric: metric.into(),
            seed,
            sim,
        });
    }

    pub fn check(&mut self, name: impl Into<String>, pass: bool, detail: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            pass,
            detail: detail.into(),
        });
    }

    /// Check |sim/want − 1| ≤ tol.
    pub fn check_within(&mut self, name: impl Into<String>, sim: f64, want: f64, tol: f64) {
        let err = sim / want - 1.0;
        let pass = err.abs() <= tol;
        self.check(
            name,
            pass,
            format!(
                "sim {} vs {} → {:+.1}% (tolerance ±{:.0}%)",
                fmt_num(sim),
                fmt_num(want),
                err * 100.0,
                tol * 100.0
            ),
        );
    }

    pub fn note(&mut self, s: impl Into<String>) {
        self.notes.push(s.into());
    }

    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.pass)
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
            "{:wv$}  {:wm$}  {:>12}  {:>12}",
            "variant", "metric", "seed", "sim"
        );
        for r in &self.table {
            let seed = r.seed.map(fmt_num).unwrap_or_else(|| "-".into());
            let _ = writeln!(
                s,
                "{:wv$}  {:wm$}  {:>12}  {:>12}",
                r.variant,
                r.metric,
                seed,
                fmt_num(r.sim)
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
                "[{}] {}: {}",
                if c.pass { "PASS" } else { "FAIL" },
                c.name,
                c.detail
            );
        }
        s
    }
}

impl Report {
    /// The report as a Markdown section (for `docs/reproductions.md`).
    pub fn markdown(&self, about: &str) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "## `{}`\n\n{about}\n", self.experiment);
        let _ = writeln!(s, "| variant | metric | seed | sim |\n|---|---|---:|---:|");
        for r in &self.table {
            let seed = r.seed.map(fmt_num).unwrap_or_else(|| "–".into());
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                r.variant,
                r.metric,
                seed,
                fmt_num(r.sim)
            );
        }
        if !self.text.is_empty() {
            let _ = writeln!(s, "\n```text\n{}\n```", self.text.trim_end());
        }
        let _ = writeln!(s, "\nChecks:\n");
        for c in &self.checks {
            let _ = writeln!(
                s,
                "- **{}** {}: {}",
                if c.pass { "PASS" } else { "FAIL" },
                c.name,
                c.detail
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
    ]
}

pub fn by_name(name: &str) -> Option<Experiment> {
    all().into_iter().find(|e| e.name == name)
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
            });
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}
