//! Seed reproductions: each experiment is one small module that builds scenarios, runs them
//! (variants in parallel on every core) and returns a `Report`: the seed's numbers beside
//! the simulated ones, and checks with their tolerances. Adding one = one file + one line
//! in `all()`.

pub mod accecn_feedback;
pub mod bbr_loss;
pub mod bbr_rtt;
pub mod bbr_startup;
pub mod bbr_v3;
pub mod bbr_vs_cubic;
pub mod cellular;
pub mod common;
pub mod cubic_vs_reno;
pub mod dctcp_buffer;
pub mod dctcp_common;
pub mod dctcp_convergence;
pub mod dctcp_incast;
pub mod dctcp_k;
pub mod dctcp_queue;
pub mod dctcp_syn_ect;
pub mod fairness;
pub mod fast_equilibrium;
pub mod fast_vs_newreno;
pub mod fct_websearch;
pub mod hstcp_lp;
pub mod incast_qct;
pub mod ipg_tuning;
pub mod l4s_dualq;
pub mod lab10g;
pub mod lfn_buffering;
pub mod lfn_pacing;
pub mod mathis;
pub mod mbecn_lost_updates;
pub mod mbecn_rtt;
pub mod mbecn_star;
pub mod mbecn_tc;
pub mod mbecn_variants;
pub mod mbecn_vs_tcp;
pub mod nic_speed;
pub mod parallel_streams;
pub mod pie;
pub mod policer;
pub mod recovery_hs;
pub mod reno_recovery;
pub mod response_function;
pub mod sack_cost;
pub mod sc2003;
pub mod sc2004;
pub mod sharing_tests;
pub mod slow_start_burst;
pub mod tcpmon;

pub mod report;
pub mod study;
pub mod verdict;

pub use report::{Cause, CauseRecord, Check, Judge, Report, Row, Tally};
pub use verdict::{fmt_num, Against, Outcome, Reading, Tol};

/// The verdict rules as docs/reproductions.md states them under its title (the rules
/// themselves are decided in `verdict.rs`).
pub const RULES: &str = "How to read this page. Each table puts the seed document's number beside the simulated one, and every seed number gets one verdict, which the run decides (crates/cclab/src/experiments/verdict.rs):

1. Each seed number is judged once, in the experiment's **seed configuration**: its best reading of the seed's testbed, described under the table. Other configurations are rows, never counted.
2. **REPRODUCES**: the seed configuration's value is within the tolerance, whose reason (the seed's rounding, a source's stated accuracy, the physics) is written beside it. A mean of several runs reproduces only if it is within the band *and* its 95% interval is narrower than the band (for a one-sided bound: the interval does not cross it); otherwise more seeds run, up to the cap the experiment states, and a value still not resolved is **UNRESOLVED** (counted apart).
3. **EXPLAINED**: the seed configuration misses, and a **cause run** reproduces the number by rule 2: the same experiment with a named mechanism switched on, as a configuration a user can run (its check says which), or the arithmetic showing that the seed's own number comes from elsewhere. Both values are shown.
4. **FAILS**: anything else. A cause that no run has shown is a hypothesis in the notes, and the number fails.
5. Other checks compare with a published figure or a closed form (`against`), read the same way: PASS, FAIL or UNRESOLVED (a cause run may be shown beside such a check, read with the same tolerance: what its miss was traced to, or was not; the verdict stays the check's own); model self-consistency checks are counted apart. `cclab reproduce` exits 1 when a seed number fails or any check fails.
";

/// Options every experiment takes.
#[derive(Clone, Debug)]
pub struct Options {
    /// Shorter runs for the test suite.
    pub quick: bool,
    pub seed: u64,
    /// Worker threads for variants (0 = all cores).
    pub threads: usize,
    /// A deliberate error, for the mutation tests (`tests/it/verdicts.rs`): none by default.
    pub mutation: Mutation,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            seed: 1,
            threads: 0,
            mutation: Mutation::default(),
        }
    }
}

impl Options {
    /// `t` as this run's mutation leaves it (unchanged without one).
    pub fn tcp(&self, mut t: crate::tcp::config::TcpConfig) -> crate::tcp::config::TcpConfig {
        if let Some(f) = self.mutation.tcp {
            f(&mut t);
        }
        t
    }

    /// Every scenario an experiment runs passes here before it runs: the mutation's TCP
    /// change, if any, is applied to each of its flows (nothing otherwise).
    pub fn prepare(&self, sc: &mut crate::scenario::Scenario) {
        if let Some(f) = self.mutation.tcp {
            for flow in &mut sc.apps.flows {
                f(&mut flow.tcp);
            }
        }
    }
}

/// A deliberate error, to show that the verdicts depend on what they should: a model
/// broken on purpose, a seed number moved, a cause run that does not explain. Experiments
/// on the harness take all three; an experiment takes the TCP change where it calls
/// `Options::prepare`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mutation {
    /// Applied to every flow's TCP configuration (e.g. DCTCP's g doubled).
    pub tcp: Option<fn(&mut crate::tcp::config::TcpConfig)>,
    /// Every seed number moved by this many half-widths of its tolerance band (two-sided
    /// tolerances; one-sided bounds move by this many tenths of themselves, outward).
    pub nudge_seed: f64,
    /// Every cause run gives the seed configuration's value: a cause that explains nothing.
    pub causes_miss: bool,
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
        dctcp_buffer::EXPERIMENT,
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
        lfn_buffering::EXPERIMENT,
        ipg_tuning::EXPERIMENT,
        slow_start_burst::EXPERIMENT,
        mbecn_star::EXPERIMENT,
        mbecn_tc::EXPERIMENT,
        mbecn_variants::EXPERIMENT,
        mbecn_lost_updates::EXPERIMENT,
        mbecn_vs_tcp::EXPERIMENT,
        mbecn_rtt::EXPERIMENT,
        lfn_pacing::EXPERIMENT,
        parallel_streams::EXPERIMENT,
        nic_speed::EXPERIMENT,
        sc2003::EXPERIMENT,
        fct_websearch::EXPERIMENT,
        incast_qct::EXPERIMENT,
        tcpmon::EXPERIMENT,
        sc2004::EXPERIMENT,
        sharing_tests::EXPERIMENT,
        fast_vs_newreno::EXPERIMENT,
        fast_equilibrium::EXPERIMENT,
        hstcp_lp::EXPERIMENT,
        sack_cost::EXPERIMENT,
        bbr_loss::EXPERIMENT,
        pie::EXPERIMENT,
        bbr_startup::EXPERIMENT,
        bbr_v3::EXPERIMENT,
        bbr_vs_cubic::EXPERIMENT,
        bbr_rtt::EXPERIMENT,
        cellular::EXPERIMENT,
        l4s_dualq::EXPERIMENT,
        accecn_feedback::EXPERIMENT,
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

thread_local! {
    /// The stop flag of the `with_stop` call this thread works for (`par_map` passes it on
    /// to its threads).
    static STOP: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

/// The unwinding payload of a `par_map` that stopped: caught by `with_stop`.
struct Stopped;

fn stop_raised() -> bool {
    STOP.with(|s| {
        s.borrow()
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    })
}

/// Run `f` (an experiment) so that raising `stop` ends it between runs: every `par_map`
/// under it starts no item after `stop` and the experiment unwinds (without a panic
/// message) to here, which returns `None`. A run under way finishes first.
pub fn with_stop<R>(
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    f: impl FnOnce() -> R,
) -> Option<R> {
    let before = STOP.with(|s| s.replace(Some(stop.clone())));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    STOP.with(|s| *s.borrow_mut() = before);
    match r {
        Ok(v) => Some(v),
        Err(p) if p.is::<Stopped>() => None,
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// Map `f` over `items` on up to `threads` threads (0 = all cores), keeping order.
/// Each item's result depends only on the item, so the output is the same for any
/// thread count. Under [`with_stop`], a raised stop flag ends it between items.
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
    let stop = STOP.with(|s| s.borrow().clone());
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| {
                STOP.with(|s| *s.borrow_mut() = stop.clone());
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= items.len() || stop_raised() {
                        break;
                    }
                    let r =
                        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                            || f(&items[i]),
                        )) {
                            Ok(r) => r,
                            // A nested par_map stopped: so does this one.
                            Err(p) if p.is::<Stopped>() => break,
                            Err(p) => std::panic::resume_unwind(p),
                        };
                    slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                    RUNS_DONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    if out.iter().any(Option::is_none) && stop.is_some() {
        // Without the panic hook: no message, unwound to `with_stop`.
        std::panic::resume_unwind(Box::new(Stopped));
    }
    out.into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn par_map_counts_its_runs_for_progress() {
        let (d0, t0) = progress();
        let out = par_map(&[1, 2, 3], 2, |x| x * 2);
        assert_eq!(out, [2, 4, 6]);
        let (d1, t1) = progress();
        // Other tests may run par_map at the same time: at least these three.
        assert!(d1 >= d0 + 3 && t1 >= t0 + 3);
    }
}
