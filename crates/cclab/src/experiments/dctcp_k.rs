//! `dctcp-k` — throughput and queueing delay against the marking threshold K at 1 and
//! 10 Gbit/s with a base RTT of 100 µs: the knee near K = C·RTT/7 (SIGCOMM 2010 §3.4: the
//! queue must not underflow, Q_min = K + N − A > 0, worst case N = 1), and the seed's
//! heuristics — 20 packets at 1 Gbit/s, 65 packets at 10 Gbit/s ("K > 1/7 C·RTT").
//!
//! Seed configuration: one long DCTCP flow (the worst case of the bound) with Linux
//! defaults (delayed ACKs on) and cclab's default host (no segmentation offload), through a
//! single ECN-marking bottleneck, one run per (rate, K); utilization = goodput / link
//! payload capacity; queueing delay = mean queue / C, both over the run after its first
//! fifth, read from the run's results at the warm-up and at the end (the flow's delivered
//! bytes, the bottleneck's time-average queue). The seed's two claims (the link stays full
//! at its heuristic K) are judged there, once each.
//!
//! Extra rows (full run only): the 10 Gbit/s flow with segmentation offload on
//! (`[host] tso = true`), at K from 12 to 100 packets: the bursts docs/references.md §1C
//! gives as the reason for 65 rather than the ~12 the bound gives.

use super::study::{Done, Of, Study, N, V};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::report::svg;
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "dctcp-k",
    seed_doc: "000 K heuristics; [2] §3.4",
    about: "DCTCP utilization and queueing delay vs marking threshold K at 1 and 10 Gbit/s (RTT 100 µs)",
    run,
};

const RTT: SimTime = 100 * US;
const PKT: f64 = 1538.0;
const KS_10G: &[u64] = &[1, 2, 3, 5, 8, 12, 20, 30, 45, 65, 100];
const KS_1G: &[u64] = &[1, 2, 3, 5, 8, 12, 20, 30];

/// C·RTT/7 in packets.
pub fn k_bound(rate: u64) -> f64 {
    rate as f64 * secs(RTT) / (8.0 * PKT) / 7.0
}

/// A configuration: the bottleneck's rate, K in packets, segmentation offload on the host.
#[derive(Clone, Copy, Debug)]
struct Point {
    rate: u64,
    k: u64,
    tso: bool,
}

/// (utilization, mean queueing delay in µs) for one flow at `p`'s rate, threshold and
/// host, its TCP prepared by `o`.
fn point(o: &Options, p: &Point, dur: SimTime, seed: u64) -> (f64, f64) {
    let Point { rate, k, tso } = *p;
    let topo = TopologySpec::Dumbbell {
        senders: 1,
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: rate,
            delay: RTT / 2 - 4 * US,
            queue: QueueSpec::ecn(Limit::Packets(10_000), Limit::Packets(k)),
        },
        access_rate_bps: 10 * rate,
        access_delay: vec![US],
        access_queue: QueueSpec::droptail(Limit::Packets(10_000)),
    };
    let mut sc = Scenario::new("dctcp-k", topo, dur);
    sc.seed = seed;
    sc.host.tso = tso;
    sc.add_default_flows(&super::common::tcp("dctcp"));
    o.prepare(&mut sc);
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let warm = dur / 5;
    sim.run_until(warm);
    // The flow's delivered bytes and the bottleneck's time-average queue over [0, t], at the
    // warm-up and at the end: over [warm, dur] by difference.
    let read = |r: crate::results::RunResult| {
        let q = r
            .queues
            .iter()
            .find(|q| q.name == "bottleneck")
            .map_or(0.0, |q| q.mean_bytes);
        (r.flows[0].bytes, q)
    };
    let (b0, q0) = read(sim.results());
    sim.run();
    let (b1, q1) = read(sim.results());
    let mean_bytes = (q1 * dur as f64 - q0 * warm as f64) / (dur - warm) as f64;
    let util = (b1 - b0) as f64 * 8.0 / secs(dur - warm) / super::common::max_goodput(rate, 1500);
    // Queue bytes are IP bytes; on the wire each packet is 38 bytes longer.
    let delay_us = mean_bytes * (PKT / 1500.0) * 8.0 / rate as f64 * 1e6;
    (util, delay_us)
}

/// K at 10 Gbit/s for the rows with segmentation offload.
const KS_10G_TSO: &[u64] = &[12, 20, 30, 45, 65, 100];

/// A rate's points: (rate, label, the seed's heuristic K, (K, variant) each, its claim).
type ByRate = (u64, &'static str, u64, Vec<(u64, V)>, N);

const HEURISTIC: &str = "the seed's claim: its heuristic K (> C·RTT/7) keeps the link full; 1% allows the measured window's start";

fn run(o: &Options) -> Report {
    let dur = if o.quick { 100 * MS } else { SEC };
    let mut s: Study<Point, (f64, f64)> = Study::new("dctcp-k", o);
    let (by_rate, tso) = declare(&mut s, o);
    let mut r = s.run(|p, seed| point(o, p, dur, seed));
    let (mut util_plot, mut delay_plot) = plots();
    for (rate, label, heuristic, vs, claim) in by_rate {
        let mine: Vec<(u64, (f64, f64))> = vs.iter().map(|&(k, v)| (k, *r.first(v))).collect();
        let bound = k_bound(rate);
        judge_rate(&mut r, (rate, label, heuristic, bound), &mine, claim);
        plot_lines(&mut util_plot, &mut delay_plot, label, bound, &mine);
    }
    r.plots
        .push(("dctcp-k-utilization.svg".into(), svg::render(&util_plot)));
    r.plots
        .push(("dctcp-k-delay.svg".into(), svg::render(&delay_plot)));
    tso_notes(&mut r, &tso);
    r.finish()
}

/// Every point, one run each: K over each rate's list with the seed's heuristic K claimed
/// to keep the link full, and (full runs only) 10 Gbit/s with segmentation offload.
fn declare(s: &mut Study<Point, (f64, f64)>, o: &Options) -> (Vec<ByRate>, Vec<(u64, V)>) {
    // One run per point (the hosts' jitter moves a point a little from seed to seed; the
    // claims read the run's value as it is).
    let var = |s: &mut Study<Point, (f64, f64)>, label: &str, rate: u64, k: u64, tso: bool| {
        s.variant(&format!("{label}_k{k}"), Point { rate, k, tso }, 1, 1)
    };
    let mut by_rate: Vec<ByRate> = vec![];
    for (rate, label, heuristic, ks) in [
        (1_000_000_000u64, "1gbps", 20u64, KS_1G),
        (10_000_000_000, "10gbps", 65, KS_10G),
    ] {
        let vs: Vec<(u64, V)> = ks
            .iter()
            .map(|&k| (k, var(s, label, rate, k, false)))
            .collect();
        let at = vs
            .iter()
            .find(|x| x.0 == heuristic)
            .expect("the heuristic K is simulated")
            .1;
        // The seed's heuristic K: its claim is that the link stays full there.
        let n = s.claim(
            &format!("{label}: the link stays full at the seed's heuristic K = {heuristic}"),
            0.99,
            Tol::AtLeast,
            HEURISTIC,
            Of::mean(at, |p: &(f64, f64)| p.0),
        );
        by_rate.push((rate, label, heuristic, vs, n));
    }
    let tso: Vec<(u64, V)> = if o.quick {
        vec![]
    } else {
        KS_10G_TSO
            .iter()
            .map(|&k| (k, var(s, "10gbps_tso", 10_000_000_000, k, true)))
            .collect()
    };
    (by_rate, tso)
}

/// A rate's rows, its checks against the fluid analysis and its claim, from its points'
/// (K, (utilization, queueing delay in µs)).
fn judge_rate(
    r: &mut Done<Point, (f64, f64)>,
    (rate, label, heuristic, bound): (u64, &str, u64, f64),
    mine: &[(u64, (f64, f64))],
    claim: N,
) {
    for &(k, (u, d)) in mine {
        r.row(label, &format!("util_k{k}"), u);
        r.row(label, &format!("qdelay_us_k{k}"), d);
    }
    r.row(label, "k_bound_pkts", bound);
    let util_at = |pred: &dyn Fn(u64) -> bool| {
        mine.iter()
            .filter(|(k, _)| pred(*k))
            .map(|(_, p)| p.0)
            .collect::<Vec<_>>()
    };
    let above = util_at(&|k| k as f64 >= 2.0 * bound);
    let min_above = above.iter().cloned().fold(1.0, f64::min);
    r.check(
            format!("{label}: full utilization for K ≥ 2·C·RTT/7"),
            Against::ClosedForm,
            !above.is_empty() && min_above >= 0.99,
            format!(
                "min {min_above:.4} over K ≥ {:.1} packets (need ≥ 0.99)",
                2.0 * bound
            ),
            "[2] §3.4: the queue never empties when K > C·RTT/7 (worst case N = 1); the factor 2 leaves room for the packet-level sawtooth the fluid bound ignores, and 1% for slow start in the measured window",
        );
    // A claim, not a number the seed gives: the row has no seed column.
    let u = mine
        .iter()
        .find(|(k, _)| *k == heuristic)
        .map_or(f64::NAN, |x| x.1 .0);
    r.row(label, &format!("util_at_seed_k{heuristic}"), u);
    r.emit(claim);
    // The queue of one flow oscillates between K + 1 − A and K + 1 ([2] §3.3); where
    // it does not empty (K ≥ 2·C·RTT/7) its mean is K + 1 − A/2.
    for &(k, (_, d)) in mine.iter().filter(|(k, _)| *k as f64 >= 2.0 * bound) {
        let th = super::dctcp_queue::theory(rate, 1, k as f64);
        let want = th.q_max - th.amplitude / 2.0;
        let got = d * 1e-6 * rate as f64 / (8.0 * PKT);
        r.check_vs(
                format!("{label}: mean queue at K = {k} vs K + 1 − A/2 (packets)"),
                Against::ClosedForm,
                got,
                want,
                Tol::Abs(th.amplitude / 2.0 + 1.0),
                "[2] §3.3: the queue runs between K + N − A and K + N; with delayed ACKs and one RTT of feedback delay the simulated amplitude runs up to a third above the analysis (see dctcp-queue), so the mean may lie A/2 + 1 packet either side",
            );
    }
    if rate == 10_000_000_000 {
        let deep = util_at(&|k| (k as f64) <= bound / 4.0);
        let worst = deep.iter().cloned().fold(1.0, f64::min);
        r.check(
                "10gbps: a knee — K far below C·RTT/7 loses throughput",
                Against::ClosedForm,
                !deep.is_empty() && worst < 0.99,
                format!(
                    "min utilization {worst:.4} for K ≤ {:.1} packets (need < 0.99)",
                    bound / 4.0
                ),
                "[2] §3.4: below C·RTT/7 the queue empties in every sawtooth; at a quarter of the bound the idle time exceeds 1%",
            );
    }
    let below = util_at(&|k| (k as f64) < bound);
    if let Some(lowest) = below.iter().cloned().reduce(f64::min) {
        r.note(format!(
            "{label}: below the bound (K < {bound:.1} packets) utilization falls to {lowest:.4}"
        ));
    } else {
        r.note(format!("{label}: the bound C·RTT/7 = {bound:.2} packets is below the smallest K simulated (1 packet)"));
    }
}

/// The two plots, empty: utilization and queueing delay against K.
fn plots() -> (svg::Plot, svg::Plot) {
    let util_plot = svg::Plot {
        title: "DCTCP: utilization vs marking threshold K (1 flow, RTT 100 µs)".into(),
        x_label: "K (packets)".into(),
        y_label: "utilization".into(),
        log_x: true,
        // Utilization is near 1 above the knee: from zero, the knee is a 2% dent at the
        // top of the chart; the data's own range shows it.
        y_from_data: true,
        ..Default::default()
    };
    let delay_plot = svg::Plot {
        title: "DCTCP: queueing delay vs K".into(),
        x_label: "K (packets)".into(),
        y_label: "mean queueing delay (µs)".into(),
        log_x: true,
        ..Default::default()
    };
    (util_plot, delay_plot)
}

/// A rate's lines on the two plots, with the bound C·RTT/7 dashed.
fn plot_lines(
    util_plot: &mut svg::Plot,
    delay_plot: &mut svg::Plot,
    label: &str,
    bound: f64,
    mine: &[(u64, (f64, f64))],
) {
    util_plot.lines.push(svg::Line {
        name: label.into(),
        points: mine.iter().map(|(k, p)| (*k as f64, p.0)).collect(),
        ..Default::default()
    });
    util_plot.lines.push(svg::Line {
        name: format!("{label} C·RTT/7"),
        points: vec![(bound, 0.8), (bound, 1.0)],
        dashed: true,
        ..Default::default()
    });
    delay_plot.lines.push(svg::Line {
        name: label.into(),
        points: mine.iter().map(|(k, p)| (*k as f64, p.1)).collect(),
        ..Default::default()
    });
}

/// The 10 Gbit/s flow with segmentation offload: rows, and what they say in a note.
fn tso_notes(r: &mut Done<Point, (f64, f64)>, tso: &[(u64, V)]) {
    let full_from: Vec<(u64, (f64, f64))> = tso.iter().map(|&(k, v)| (k, *r.first(v))).collect();
    for &(k, (u, d)) in &full_from {
        r.row("10gbps_tso", &format!("util_k{k}"), u);
        r.row("10gbps_tso", &format!("qdelay_us_k{k}"), d);
    }
    let smallest_full = full_from
        .iter()
        .filter(|(k, _)| {
            full_from
                .iter()
                .filter(|(j, _)| j >= k)
                .all(|(_, p)| p.0 >= 0.99)
        })
        .map(|(k, _)| *k)
        .min();
    let (b1, b10) = (k_bound(1_000_000_000), k_bound(10_000_000_000));
    r.note(format!("the seed's heuristics (20 at 1 Gbit/s, 65 at 10 Gbit/s) sit well above the bound ({b1:.1} and {b10:.1} packets here): the seed configuration's host sends one segment at a time (cclab's default, `[host] tso = false`), so much smaller K already keeps the link full. docs/references.md §1C gives the NIC's segmentation-offload bursts as the reason for 65 rather than the bound"));
    if !full_from.is_empty() {
        r.note(format!(
            "with segmentation offload on at 10 Gbit/s (`[host] tso = true`, rows 10gbps_tso, K from {} to {} packets): {}",
            KS_10G_TSO[0],
            KS_10G_TSO[KS_10G_TSO.len() - 1],
            match smallest_full {
                Some(k) => format!("the link stays full (utilization ≥ 0.99) from K = {k} up, and loses throughput below it"),
                None => "no K simulated keeps the link full".into(),
            }
        ));
    } else {
        r.note("--quick: the rows with segmentation offload (10gbps_tso) run in the full reproduction only");
    }
}
