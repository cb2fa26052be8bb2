//! `fct-websearch` — DCTCP against CUBIC on a k = 8 fat-tree (128 hosts, 10 Gbit/s links)
//! under the web-search workload of the DCTCP paper ([2] §2.2 and §4.3, as pFabric and
//! later evaluations use it: flow sizes from `crates/cclab/data/websearch.cdf`, Poisson
//! arrivals, every host to random others) at 30%, 50% and 70% of each host's link.
//!
//! Reported per load and algorithm: flow completion time slowdown (receiver-side FCT over
//! the FCT alone on an empty network) of short flows (< 100 KB: mean, p99), of the middle
//! (100 KB – 10 MB: mean) and of long flows (> 10 MB: mean), and flows finished of flows
//! started. Checked against the paper's claims: with DCTCP the short flows' tail stays far
//! below TCP's under load (its foreground traffic "without impact" from background flows),
//! and long flows are no worse off ("the same or better throughput than TCP").
//!
//! Configurations: each algorithm at each load (`dctcp-load30` … `cubic-load70`), one run
//! each; no seed numbers (the checks compare DCTCP's run with CUBIC's, each reading one of
//! the paper's claims as the check states).
//!
//! Switch ports: 250 packets of buffer each (375 KB: the order of what a shallow-buffer
//! switch's dynamic sharing gives one busy port; the paper's Triumph shares 4 MB among 48
//! ports), ECN marking at K = 65 packets for DCTCP (the paper's 10 Gbit/s setting),
//! drop-tail for CUBIC. Hosts run TCP small queues (without it a DCTCP flow queues in its
//! own NIC, which ECN does not see). Full: k = 8, 1 s of arrivals and 100 ms to drain;
//! `--quick`: k = 4, 100 ms and 50 ms.

use super::study::{Study, V};
use super::{Against, Experiment, Options, Report};
use crate::report::svg;
use crate::results::FlowResult;
use crate::scenario::parse_scenario;

pub const EXPERIMENT: Experiment = Experiment {
    name: "fct-websearch",
    seed_doc: "000 / [2] §4.3 web search",
    about: "DCTCP vs CUBIC flow completion times on a fat-tree under the web-search workload at 30/50/70% load",
    run,
};

const LOADS: [f64; 3] = [0.3, 0.5, 0.7];
const CCS: [&str; 2] = ["dctcp", "cubic"];

/// The slowdowns of one run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Point {
    pub started: usize,
    pub finished: usize,
    pub short_mean: f64,
    pub short_p99: f64,
    /// Short flows that had not finished when the run ended, and whether the p99 falls
    /// on one of them (then it is a lower bound: such a flow is counted as finishing at
    /// the run's end).
    pub short_unfinished: usize,
    pub short_p99_censored: bool,
    pub mid_mean: f64,
    pub long_mean: f64,
    pub long_n: usize,
}

fn scenario_text(
    k: usize,
    cc: &str,
    load: f64,
    arrive_ms: u64,
    drain_ms: u64,
    seed: u64,
) -> String {
    let queue = if cc == "dctcp" {
        r#"queue = "ecn", limit = "250pkts", k = "65pkts""#
    } else {
        r#"queue = "droptail", limit = "250pkts""#
    };
    format!(
        r#"[sim]
name = "fct-websearch-{cc}-{load}"
duration = "{dur}ms"
seed = {seed}
[topology]
kind = "fat-tree"
k = {k}
link = {{ rate = "10Gbps", delay = "1us", {queue} }}
[host]
tsq = true
[tcp]
cc = "{cc}"
[[workload]]
sizes = "websearch"
load = {load}
stop = "{arrive_ms}ms"
max_flows = 1000000
"#,
        dur = arrive_ms + drain_ms
    )
}

fn slowdown(f: &FlowResult) -> Option<f64> {
    match (f.fct_s, f.ideal_fct_s) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One run's slowdowns by size bucket, its TCP prepared by `o`.
fn point(o: &Options, text: &str) -> Point {
    let mut sc = parse_scenario(text, "fct-websearch", &[]).expect("a valid scenario");
    o.prepare(&mut sc);
    let r = crate::world::run(&sc).expect("the world builds");
    let all = r.flows.to_vec();
    let sized: Vec<&FlowResult> = all.iter().filter(|f| f.size_bytes.is_some()).collect();
    let by = |lo: u64, hi: u64| -> Vec<f64> {
        let mut v: Vec<f64> = sized
            .iter()
            .filter(|f| f.size_bytes.is_some_and(|b| b > lo && b <= hi))
            .filter_map(|f| slowdown(f))
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let short = by(0, 100_000);
    let long = by(10_000_000, u64::MAX);
    // The tail over every short flow started. One that did not finish (it waits for a
    // retransmission timeout past the end of the run) took at least until the end: its
    // slowdown is bounded below by (end − start) / ideal, and is counted at that bound.
    let end_s = crate::engine::secs(sc.duration);
    let unfinished: Vec<f64> = sized
        .iter()
        .filter(|f| f.size_bytes.is_some_and(|b| b <= 100_000) && slowdown(f).is_none())
        .map(|f| match f.ideal_fct_s {
            Some(i) if i > 0.0 => (end_s - f.start_s) / i,
            _ => f64::INFINITY,
        })
        .collect();
    let mut short_all: Vec<(f64, bool)> = short.iter().map(|&x| (x, false)).collect();
    short_all.extend(unfinished.iter().map(|&x| (x, true)));
    short_all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (short_p99, short_p99_censored) =
        crate::stats::quantile_sorted(&short_all, 0.99).unwrap_or((f64::NAN, false));
    Point {
        started: sized.len(),
        finished: sized.iter().filter(|f| f.fct_s.is_some()).count(),
        short_mean: mean(&short),
        short_p99,
        short_unfinished: unfinished.len(),
        short_p99_censored,
        mid_mean: mean(&by(100_000, 10_000_000)),
        long_mean: mean(&long),
        long_n: long.len(),
    }
}

fn run(o: &Options) -> Report {
    let (k, arrive, drain) = if o.quick {
        (4, 100, 50)
    } else {
        (8, 1000, 100)
    };
    let cases: Vec<(&str, f64)> = CCS
        .iter()
        .flat_map(|&cc| LOADS.iter().map(move |&l| (cc, l)))
        .collect();
    let name = |&(cc, load): &(&str, f64)| format!("{cc}-load{:.0}", load * 100.0);
    let mut s: Study<(&'static str, f64), Point> = Study::new("fct-websearch", o);
    // One run per case: the workload's thousands of flows are the sample.
    let vars: Vec<V> = cases
        .iter()
        .map(|c| s.variant(&name(c), *c, 1, 1))
        .collect();
    let mut r =
        s.run(|&(cc, load), seed| point(o, &scenario_text(k, cc, load, arrive, drain, seed)));
    let pts: Vec<Point> = vars.iter().map(|&v| *r.first(v)).collect();
    let at = |cc: &str, load: f64| -> Point {
        cases
            .iter()
            .zip(&pts)
            .find(|((c, l), _)| *c == cc && *l == load)
            .map(|(_, p)| *p)
            .expect("every case ran")
    };
    for &(cc, load) in &cases {
        let p = at(cc, load);
        let v = name(&(cc, load));
        r.row(&v, "flows_started", p.started as f64);
        r.row(&v, "flows_finished", p.finished as f64);
        r.row(&v, "short_slowdown_mean", p.short_mean);
        r.row(&v, "short_slowdown_p99", p.short_p99);
        r.row(&v, "short_unfinished", p.short_unfinished as f64);
        r.row(
            &v,
            "short_p99_is_lower_bound",
            if p.short_p99_censored { 1.0 } else { 0.0 },
        );
        r.row(&v, "mid_slowdown_mean", p.mid_mean);
        r.row(&v, "long_slowdown_mean", p.long_mean);
        r.row(&v, "long_flows_finished", p.long_n as f64);
    }
    // The paper's first claim, at the highest load.
    let high = LOADS[LOADS.len() - 1];
    let (d, c) = (at("dctcp", high), at("cubic", high));
    // A p99 that falls on an unfinished flow is a lower bound: valid as CUBIC's side of
    // "far below", never as DCTCP's.
    let bound = |p: &Point| if p.short_p99_censored { "≥ " } else { "" };
    // At --quick's 100 ms of arrivals the p99 falls on the few short flows still waiting
    // for a 200 ms RTO when the run ends: with Linux v6.6's HyStart rounds (the pd90b
    // merge) seed 1 fails the check, seeds 2 and 3 pass it. A check a run that short
    // cannot resolve runs in the full reproduction only, as the long flows' checks do.
    if !o.quick {
        r.check(
        format!("short flows' p99 slowdown at {:.0}% load: DCTCP far below CUBIC", high * 100.0),
        Against::Published,
        !d.short_p99_censored && d.short_p99 * 2.0 <= c.short_p99,
        format!(
            "DCTCP {}{:.2} vs CUBIC {}{:.2} (ratio {:.3}); unfinished short flows {} and {}",
            bound(&d),
            d.short_p99,
            bound(&c),
            c.short_p99,
            d.short_p99 / c.short_p99,
            d.short_unfinished,
            c.short_unfinished
        ),
        "[2]'s abstract ('unlike TCP, DCTCP also provides high burst tolerance and low latency for short flows'; docs/references.md §1C) and §4.3 (under the benchmark's background load DCTCP keeps short-message completion times low while TCP's tail grows with the queue it builds and with its timeouts); 'far below' is read as at most half: the paper's own magnitudes are for its testbed and workload mix, which docs/references.md §1C rates low-confidence, not for a fat-tree",
    );
    }
    for &load in &LOADS {
        let (d, c) = (at("dctcp", load), at("cubic", load));
        r.row(
            &format!("load{:.0}", load * 100.0),
            "short_p99_dctcp_over_cubic",
            d.short_p99 / c.short_p99,
        );
        if o.quick {
            continue;
        }
        r.check(
            format!("long flows at {:.0}% load: DCTCP no worse than CUBIC", load * 100.0),
            Against::Published,
            d.long_mean <= c.long_mean * 1.1,
            format!(
                "mean slowdown DCTCP {:.2} ({} flows) vs CUBIC {:.2} ({} flows), need ≤ ×1.1",
                d.long_mean, d.long_n, c.long_mean, c.long_n
            ),
            "[2]'s abstract: DCTCP 'delivers the same or better throughput than TCP' (docs/references.md §1C); a long flow's slowdown (its completion time over the ideal) is the inverse of its throughput over the ideal throughput; 10% allows the few long flows' sampling (3% of web-search flows exceed 10 MB)",
        );
    }
    r.note("slowdowns: means over the flows that finished; the p99 over every short flow started, one that did not finish (it waits for a 200 ms retransmission timeout past the end of the run) counted at its lower bound (the run's end − its start) / ideal; short_p99_is_lower_bound = 1 when the p99 falls on such a flow");
    if o.quick {
        r.note("--quick: k = 4 fat-tree, 100 ms of arrivals; the long flows (> 10 MB) are too few for a check, and the short flows' p99 falls on the few still waiting for an RTO at the end (seeds 1, 2, 3 give fail, pass, pass): both checks run in the full reproduction only");
    }
    r.note(format!(
        "k = {k} fat-tree, 10 Gbit/s links of 1 µs, {arrive} ms of arrivals then {drain} ms to drain; slowdown = receiver-side FCT / the FCT alone on an empty network (a lower bound, `ideal_fct_s`), over finished flows. The paper measured a 45-server testbed (one rack, 1 and 10 Gbit/s); the fat-tree and the slowdown metric follow pFabric's evaluation of the same workload"
    ));
    let mut plot = svg::Plot {
        title: format!("web search on a k = {k} fat-tree: short flows (< 100 KB), p99 slowdown"),
        x_label: "load".into(),
        y_label: "p99 FCT slowdown".into(),
        ..Default::default()
    };
    for cc in CCS {
        plot.lines.push(svg::Line {
            name: cc.into(),
            points: LOADS.iter().map(|&l| (l, at(cc, l).short_p99)).collect(),
            ..Default::default()
        });
    }
    r.plots
        .push(("fct-websearch-short-p99.svg".into(), svg::render(&plot)));
    r.finish()
}
