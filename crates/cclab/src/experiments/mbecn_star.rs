//! `mbecn-star` — seed 002's test: two clients on Gigabit Ethernet to a router whose port
//! towards the server is 100 Mbit/s Ethernet (ethtool, not a tc shaper: footnote 4), ocbr
//! flooding 1000-byte packets over Ouroboros flows with MB-ECN (the prototype's 0.18.0
//! default), the server printing every 100 ms. One flow alone ("congestion controlled to
//! about ~80Mb/s": 998 packets per 101 ms, 79.05 Mbit/s), then a second joins ("both flows
//! go quite quickly (at most 100ms) to a fair state of about 42 Mb/s").
//!
//! The lab is as the seed describes it; what it does not say is chosen and stated: 50 µs
//! per link, the router's queue is the outgoing flow's ring (1024 packets,
//! `SHM_RBUFF_SIZE`, marked from 16), nothing below it.
//!
//! The seed's hosts ran the prototype's user-space IPCPs; how fast a sender's IPCP hands
//! packets to its NIC is not in the seed, and it decides MB-ECN's rate here: a window's
//! allowance leaves in one burst, and a burst of n packets arriving at rate R builds a
//! queue of n·(1 − C/R) at the 100 Mbit/s port, marked from 16. So the experiment runs the
//! senders at the NIC's line rate (the model's default: no IPCP cost) and, to show the
//! mechanism, with the IPCP's time per packet set so that a sender emits at 2× and 1.5×
//! the bottleneck's packet rate; and without congestion avoidance (`nop`), whose rate is
//! the link's framed rate (closed form).

use super::common::MeanCi;
use super::{fmt_num, Against, Cause, Experiment, Judge, Options, Report, Tol};
use crate::engine::*;
use crate::flow::text::collapse_spaces;
use crate::report::svg::{self, Line, Plot};
use crate::results::{OcbrResult, RunResult};
use crate::scenario::parse_scenario;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-star",
    seed_doc: "002 (MB-ECN in action)",
    about: "MB-ECN flows through a 100 Mbit/s port: one alone, then two (ocbr)",
    run,
};

/// Seed 002's star with access links of `c1` and `c2` one-way delays, and the router's
/// port towards the server given by `rs` (its queue keys), then `traffic` (TOML tables).
pub(super) fn star(name: &str, c1: &str, c2: &str, rs: &str, traffic: &str) -> String {
    format!(
        r#"
[sim]
name = "{name}"
duration = "4s"

[topology]
kind = "graph"
hosts = ["c1", "c2", "srv"]
switches = ["r"]
links = [
  {{ name = "c1r", from = "c1", to = "r", rate = "1Gbps", delay = "{c1}", limit = "1024pkts" }},
  {{ name = "c2r", from = "c2", to = "r", rate = "1Gbps", delay = "{c2}", limit = "1024pkts" }},
  {{ name = "rs", from = "r", to = "srv", rate = "100Mbps", delay = "50us", {rs} }},
]
{traffic}"#
    )
}

/// Two ocbr floods, the second joining (its start is set per run).
pub(super) const TWO_FLOODS: &str = r#"
[[ocbr]]
from = "c1"
to = "srv"
flood = true
interval = "100ms"

[[ocbr]]
from = "c2"
to = "srv"
flood = true
interval = "100ms"
start = "2s"
"#;

/// The router's port: the outgoing flow's ring, 1024 packets.
pub(super) const RING: &str = "limit = \"1024pkts\"";

/// The seed's server output, as it quotes it (spaces collapsed).
const SEED_LINES: &[&str] = &[
    "Flow 64: 998 packets ( 998000 bytes)in 101 ms => 9880.8946 pps, 79.0472 Mbps",
    "Flow 64: 1001 packets ( 1001000 bytes)in 101 ms => 9904.6149 pps, 79.2369 Mbps",
    "Flow 64: 999 packets ( 999000 bytes)in 101 ms => 9882.8697 pps, 79.0630 Mbps",
    "Flow 64: 998 packets ( 998000 bytes)in 101 ms => 9880.0143 pps, 79.0401 Mbps",
    "Flow 64: 999 packets ( 999000 bytes)in 101 ms => 9887.6627 pps, 79.1013 Mbps",
    "Flow 64: 999 packets ( 999000 bytes)in 101 ms => 9891.0891 pps, 79.1287 Mbps",
    "New flow.",
    "Flow 64: 868 packets ( 868000 bytes)in 102 ms => 8490.6583 pps, 67.9253 Mbps",
    "Flow 65: 542 packets ( 542000 bytes)in 101 ms => 5356.5781 pps, 42.8526 Mbps",
    "Flow 64: 540 packets ( 540000 bytes)in 101 ms => 5341.5105 pps, 42.7321 Mbps",
    "Flow 65: 534 packets ( 534000 bytes)in 101 ms => 5285.6111 pps, 42.2849 Mbps",
    "Flow 64: 575 packets ( 575000 bytes)in 101 ms => 5691.4915 pps, 45.5319 Mbps",
    "Flow 65: 535 packets ( 535000 bytes)in 101 ms => 5291.0053 pps, 42.3280 Mbps",
    "Flow 64: 561 packets ( 561000 bytes)in 101 ms => 5554.3455 pps, 44.4348 Mbps",
    "Flow 65: 533 packets ( 533000 bytes)in 101 ms => 5272.0079 pps, 42.1761 Mbps",
    "Flow 64: 569 packets ( 569000 bytes)in 101 ms => 5631.3216 pps, 45.0506 Mbps",
];

/// The seed's flow-allocator file (spaces collapsed).
const SEED_FA: &str = crate::flow::text::SEED_FA_FILE;

/// Bytes of a 1000-byte SDU on the wire: + 15 B PCI + 18 B Ethernet IPCP header + 4 B FCS
/// + 20 B preamble and gap (`flow/endpoint.rs`).
pub(super) const WIRE: f64 = 1057.0;
pub(super) const C: f64 = 100e6;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    /// Senders hand packets to the NIC at its line rate.
    LineRate,
    /// The IPCP's time per packet makes a sender emit at `k` × the bottleneck's packet
    /// rate.
    Times(f64),
    /// Senders that cannot emit more than this many packets per second (the rate the
    /// seed's one-flow lines show), run with this seed offset.
    Cpu(f64, u64),
    /// No congestion avoidance.
    Nop,
}

/// The seed's one flow alone receives 998–1001 packets per interval, as steady as a rate
/// limit (±0.15%), and the server's intervals hold 100 ms of arrivals (it divides by its
/// 101 ms): a sender of 999 packets per 100 ms. That is the reading tested by the
/// `sender_9990pps` variant.
const SEED_PPS: f64 = 9990.0;

impl Variant {
    fn label(self) -> String {
        match self {
            Variant::LineRate => "line_rate".into(),
            Variant::Times(k) => format!("sender_{}x", fmt_num(k)),
            Variant::Cpu(pps, s) => format!("sender_{}pps seed+{s}", pps as u64),
            Variant::Nop => "nop".into(),
        }
    }
}

fn run(o: &Options) -> Report {
    let (join, end) = if o.quick {
        (SEC, 1600 * MS)
    } else {
        (2 * SEC, 4 * SEC)
    };
    let cpu_runs = if o.quick { 3 } else { 5 };
    let mut variants = vec![
        Variant::LineRate,
        Variant::Times(2.0),
        Variant::Times(1.5),
        Variant::Nop,
    ];
    variants.extend((0..cpu_runs).map(|s| Variant::Cpu(SEED_PPS, s)));
    let outs = super::par_map(&variants, o.threads, |&v| {
        let sets = match v {
            Variant::LineRate => vec![],
            Variant::Times(k) => sender_at(k),
            Variant::Cpu(pps, _) => {
                let mut sets = packet_time(1.0 / pps);
                // Sampled for the window lengths (sampling changes nothing).
                sets.extend((0..2).map(|i| (format!("ocbr.{i}.stats_every"), "100ms".into())));
                sets
            }
            Variant::Nop => (0..2)
                .map(|i| (format!("ocbr.{i}.ca"), "nop".to_string()))
                .collect(),
        };
        let seed = match v {
            Variant::Cpu(_, k) => o.seed + k,
            _ => o.seed,
        };
        run_star(seed, join, end, &sets)
    });
    let mut r = Report::with("mbecn-star", o);
    let framed = C * 1000.0 / WIRE / 1e6;
    // The rate-limited senders' rows first: their figures are the cause runs below.
    let mut cpu_report = Report::new("mbecn-star");
    let cpu = cpu_rows(&mut cpu_report, &variants, &outs, secs(join), secs(end));
    r.row("closed_form", "framed_payload_rate_mbps", framed);
    let j = secs(join);
    for (v, res) in variants.iter().zip(&outs) {
        if matches!(v, Variant::Cpu(..)) {
            continue; // summarised over its runs below
        }
        let tag = v.label();
        let (f1, f2) = (&res.ocbr[0], &res.ocbr[1]);
        // Alone: the intervals of the second half before the join (slow start is over).
        let alone = mean_between(f1, j / 2.0, j);
        let pps_alone = mean_pps_between(f1, j / 2.0, j);
        let after = j + 0.2;
        let (s1, s2) = (
            mean_between(f1, after, secs(end)),
            mean_between(f2, after, secs(end)),
        );
        let conv = convergence(f1, f2, j);
        if *v != Variant::LineRate {
            // (The line-rate variant's rows stand beside the seed's, below.)
            r.row(&tag, "alone_mbps", alone);
            r.row(&tag, "alone_pps", pps_alone);
            if *v != Variant::Nop {
                r.row(&tag, "two_flows_flow1_mbps", s1);
                r.row(&tag, "two_flows_flow2_mbps", s2);
                if let Some(c) = conv {
                    r.row(&tag, "convergence_ms", c * 1e3);
                }
            }
        }
        let rs = res.queues.iter().find(|q| q.name == "rs").expect("port rs");
        r.row(&tag, "router_queue_max_pkts", rs.max_pkts as f64);
        r.row(&tag, "router_drops", rs.drops as f64);
        if let Some(w) = f1.windows {
            let ca = (w[1] + w[2] + w[3]).max(1) as f64;
            r.row(&tag, "flow1_windows_decrease_share", w[1] as f64 / ca);
        }
        match v {
            Variant::LineRate => {
                seed_checks(&mut r, &tag, res, alone, pps_alone, s1, s2, conv, &cpu)
            }
            Variant::Nop => {
                // Every full interval carries 100 ms of the link's packets.
                let pk: Vec<f64> = f1
                    .intervals
                    .iter()
                    .filter(|i| i.end_s > 0.15 && i.end_s < j)
                    .map(|i| i.packets as f64 * 1000.0 * 8.0 / 0.1 / 1e6)
                    .collect();
                let m = pk.iter().sum::<f64>() / pk.len().max(1) as f64;
                r.check_vs(
                    "nop: one flooding flow's payload rate (packets per 100 ms interval)",
                    Against::ClosedForm,
                    m,
                    framed,
                    Tol::Rel(0.01),
                    "the link carries 100 Mbit/s of 1057-byte frames of which 1000 bytes are SDU (15 B PCI, 18 B Ethernet IPCP header, 24 B FCS, preamble and gap); ±1%: one packet in 118 per interval",
                );
            }
            Variant::Times(_) | Variant::Cpu(..) => {}
        }
        // Conservation for every variant (a model check: it fails only if the simulator
        // miscounts): the flows cannot carry more than the link.
        r.check_vs(
            format!("{tag}: both flows together"),
            Against::Model,
            s1 + s2,
            framed,
            Tol::AtMost,
            "the link's framed payload rate bounds the sum (the rates are the server's, which divides by its 101 ms: 1% below what arrived)",
        );
    }
    r.table.extend(cpu_report.table);
    r.notes.extend(cpu_report.notes);
    r.text
        .push_str(&side_by_side(&outs[0], join, "line_rate variant"));
    if let Some(i) = variants.iter().position(|v| matches!(v, Variant::Cpu(..))) {
        r.text.push('\n');
        r.text.push_str(&side_by_side(
            &outs[i],
            join,
            &format!("sender_{}pps variant, first run", SEED_PPS as u64),
        ));
    }
    r.text.push_str(&fa_side_by_side(&outs[0].ocbr[0]));
    explain(&mut r, &variants, &outs, framed, j);
    plot(&mut r, &variants, &outs, j);
    r.note(format!(
        "links 50 µs each; router queue = the outgoing flow's ring, 1024 packets (SHM_RBUFF_SIZE), marked by MB-ECN from 16; flow 2 joins at {} s, runs end at {} s; rates are the server's lines (100 ms intervals)",
        fmt_num(j),
        fmt_num(secs(end))
    ));
    r
}

/// Run the star with flow 2 joining at `join`, until `end`, with `sets` on top.
pub(super) fn run_star(
    seed: u64,
    join: SimTime,
    end: SimTime,
    sets: &[(String, String)],
) -> RunResult {
    let mut all = vec![
        ("sim.duration".to_string(), fmt_secs(end)),
        ("ocbr.1.start".to_string(), fmt_secs(join)),
        ("sim.seed".to_string(), seed.to_string()),
    ];
    all.extend_from_slice(sets);
    let text = star("mbecn-star", "50us", "50us", RING, TWO_FLOODS);
    let sc = parse_scenario(&text, "mbecn-star", &all).expect("valid scenario");
    crate::sim::run(&sc).expect("runs")
}

/// `ocbr.{0,1}.packet_time` for senders at `k` × the bottleneck's packet rate.
pub(super) fn sender_at(k: f64) -> Vec<(String, String)> {
    packet_time(WIRE * 8.0 / (k * C))
}

/// `ocbr.{0,1}.packet_time` of `secs` seconds per packet.
fn packet_time(secs: f64) -> Vec<(String, String)> {
    (0..2)
        .map(|i| {
            (
                format!("ocbr.{i}.packet_time"),
                format!("{:.3}us", secs * 1e6),
            )
        })
        .collect()
}

pub(super) fn fmt_secs(t: SimTime) -> String {
    format!("{}ms", t / MS)
}

/// Mean printed rate of the intervals that end in (a, b].
pub(super) fn mean_between(f: &OcbrResult, a: f64, b: f64) -> f64 {
    let v: Vec<f64> = f
        .intervals
        .iter()
        .filter(|i| i.end_s > a && i.end_s <= b)
        .map(|i| i.mbps)
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn mean_pps_between(f: &OcbrResult, a: f64, b: f64) -> f64 {
    let v: Vec<f64> = f
        .intervals
        .iter()
        .filter(|i| i.end_s > a && i.end_s <= b)
        .map(|i| i.packets as f64 / (i.us as f64 / 1e6))
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Seconds from the join until the first interval of the second flow whose rate, and the
/// first flow's interval ending nearest it, are both within 3 Mbit/s of their mean (the
/// seed's "fair state" to the precision its lines show), and stay so for the next three.
pub(super) fn convergence(f1: &OcbrResult, f2: &OcbrResult, join: f64) -> Option<f64> {
    let near = |t: f64| {
        f1.intervals
            .iter()
            .min_by(|a, b| (a.end_s - t).abs().total_cmp(&(b.end_s - t).abs()))
            .map(|i| i.mbps)
    };
    let fair: Vec<(f64, bool)> = f2
        .intervals
        .iter()
        .map(|i| {
            let a = near(i.end_s).unwrap_or(0.0);
            let m = (a + i.mbps) / 2.0;
            (i.end_s, (a - m).abs() <= 3.0 && (i.mbps - m).abs() <= 3.0)
        })
        .collect();
    (0..fair.len())
        .find(|&k| fair[k..].iter().take(4).all(|x| x.1) && fair.len() >= k + 4)
        .map(|k| fair[k].0 - join)
}

/// The cause run's two-flow figures: senders limited to the seed's one-flow packet rate
/// (`sender_9990pps`), over its runs.
struct CpuStats {
    flow1: MeanCi,
    flow2: MeanCi,
    sum: MeanCi,
    /// Convergence (ms) over the runs; NaN if some run never converged.
    conv: MeanCi,
}

const CPU_CAUSE: &str = "each sender's IPCP limited to 9,990 packets/s (ocbr packet_time 100.1 µs), the rate the seed's own one-flow lines show (999 packets per 100 ms, as steady as a rate limit): the prototype's user-space path, which the seed does not describe otherwise";

#[allow(clippy::too_many_arguments)]
fn seed_checks(
    r: &mut Report,
    tag: &str,
    res: &RunResult,
    alone: f64,
    pps: f64,
    s1: f64,
    s2: f64,
    conv: Option<f64>,
    cpu: &CpuStats,
) {
    let w = res.ocbr[0].windows.unwrap_or_default();
    let ca = (w[1] + w[2] + w[3]).max(1) as f64;
    r.note(format!(
        "line_rate, the seed configuration (no IPCP cost): the sender hands each window's allowance to its NIC at 1 Gbit/s; a burst of n packets leaves n·(1 − 100/1000) queued at the 100 Mbit/s port, so every burst beyond 18 packets ends with marked packets, the last FLOW_UPDATE before the next window carries ECE > 0 and the window decreases: {:.0}% of flow 1's windows decreased, {} increased; the link idles between bursts",
        100.0 * w[1] as f64 / ca,
        w[2]
    ));
    const MB2: &str = "REFERENCE.md MB-2: the blog's ≈79 Mbit/s, ±5% (its lines move 79.0-79.2 Mbit/s; '~80Mb/s' in its text)";
    const MB3: &str = "REFERENCE.md MB-3: both flows ≈42 Mbit/s, ±3 Mbit/s (the seed's lines after the join read 42-44)";
    // The one-flow numbers have no cause run: the rate-limited senders take their rate
    // from these very lines.
    r.seed(
        tag,
        "alone_mbps",
        79.05,
        alone,
        Judge::within(Tol::Rel(0.05), MB2),
    );
    r.seed(
        tag,
        "alone_pps",
        9880.0,
        pps,
        Judge::within(Tol::Rel(0.05), MB2),
    );
    let cause = |sim: MeanCi| Cause {
        variant: "sender_9990pps",
        config: CPU_CAUSE,
        sim,
        tol: None,
    };
    for (m, v, c) in [
        ("two_flows_flow1_mbps", s1, cpu.flow1),
        ("two_flows_flow2_mbps", s2, cpu.flow2),
    ] {
        r.seed(
            tag,
            m,
            42.5,
            v,
            Judge::within(Tol::Abs(3.0), MB3).cause(cause(c)),
        );
    }
    r.seed(
        tag,
        "two_flows_sum_mbps",
        44.0 + 42.5,
        s1 + s2,
        Judge::within(Tol::Abs(6.0), "the seed's two flows together (its lines after the join: 44 and 42.5); REFERENCE.md MB-3 reads each flow's ≈42 Mbit/s to ±3 Mbit/s, so ±3 for each of the two").cause(cause(cpu.sum)),
    );
    r.seed(
        tag,
        "convergence_ms",
        100.0,
        conv.map_or(f64::NAN, |c| c * 1e3),
        Judge::within(Tol::AtMost, "the seed: 'both flows go quite quickly (at most 100ms) to a fair state'; converged = both flows within 3 Mbit/s of their mean for four intervals (the precision of its lines); a run that never converges has no value").cause(cause(cpu.conv)),
    );
}

/// The rate-limited senders: the one-flow rows are the input (not checks); the two-flow
/// shares over several seeds beside the seed's.
fn cpu_rows(
    r: &mut Report,
    variants: &[Variant],
    outs: &[RunResult],
    j: f64,
    end: f64,
) -> CpuStats {
    let runs: Vec<&RunResult> = variants
        .iter()
        .zip(outs)
        .filter(|(v, _)| matches!(v, Variant::Cpu(..)))
        .map(|(_, o)| o)
        .collect();
    let tag = format!("sender_{}pps", SEED_PPS as u64);
    let alone = super::common::mean_ci(
        &runs
            .iter()
            .map(|o| mean_between(&o.ocbr[0], j / 2.0, j))
            .collect::<Vec<_>>(),
    );
    r.row_ci(&tag, "alone_mbps (input)", alone);
    let mut hi = Vec::new();
    let mut lo = Vec::new();
    let mut splits = Vec::new();
    let mut convs = Vec::new();
    // Each flow's mean window length (ms) after the join, from its statistics series.
    let window = |f: &OcbrResult| {
        let w: Vec<f64> = f
            .stats_series
            .iter()
            .filter(|x| x.t > j + 0.2)
            .map(|x| x.window_ns as f64 / 1e6)
            .collect();
        w.iter().sum::<f64>() / w.len().max(1) as f64
    };
    for o in &runs {
        let a = mean_between(&o.ocbr[0], j + 0.2, end);
        let b = mean_between(&o.ocbr[1], j + 0.2, end);
        hi.push(a.max(b));
        lo.push(a.min(b));
        splits.push(format!(
            "{}/{} Mbit/s with windows of {:.2}/{:.2} ms",
            fmt_num(a),
            fmt_num(b),
            window(&o.ocbr[0]),
            window(&o.ocbr[1])
        ));
        if let Some(c) = convergence(&o.ocbr[0], &o.ocbr[1], j) {
            convs.push(format!("{:.0}", c * 1e3));
        } else {
            convs.push("never".into());
        }
    }
    let m_hi = super::common::mean_ci(&hi);
    let m_lo = super::common::mean_ci(&lo);
    r.row_ci(&tag, "two_flows_larger_mbps", m_hi);
    r.row_ci(&tag, "two_flows_smaller_mbps", m_lo);
    r.note(format!(
        "{tag}: with senders limited to the seed's one-flow rate the split follows the flows' window lengths, which each run's seed decides (host clock offsets and NIC jitter): a window rescales only below 8 or above 64 packets, so two flows can settle with windows a factor 2 apart, each sending about as many packets per window. Flow 1/flow 2 = {} in {} runs that differ only in their seed",
        splits.join(", "),
        runs.len()
    ));
    r.note(format!(
        "{tag}: the seed's one-flow lines (998–1001 packets per 100 ms of arrivals, ±0.15%) are as steady as a rate limit, which MB-ECN's sawtooth is not at any sender speed that congests the port (line_rate and sender_2x above): read as senders limited to 9,990 packets/s by the prototype's software path, the one-flow phase needs no congestion at all (the port's queue stays below 16) and the first six lines follow; this rate is taken from the seed's one-flow lines, so those are not checks here. Convergence after the join (ms, per seed): {}",
        convs.join(", ")
    ));
    let per = |f: &dyn Fn(&RunResult) -> f64| {
        super::common::mean_ci(&runs.iter().map(|o| f(o)).collect::<Vec<_>>())
    };
    CpuStats {
        flow1: per(&|o| mean_between(&o.ocbr[0], j + 0.2, end)),
        flow2: per(&|o| mean_between(&o.ocbr[1], j + 0.2, end)),
        sum: per(&|o| {
            mean_between(&o.ocbr[0], j + 0.2, end) + mean_between(&o.ocbr[1], j + 0.2, end)
        }),
        conv: per(&|o| convergence(&o.ocbr[0], &o.ocbr[1], j).map_or(f64::NAN, |c| c * 1e3)),
    }
}

/// The seed's server lines beside ours: the six before the join, the join, eight after.
fn side_by_side(res: &RunResult, join: SimTime, label: &str) -> String {
    use std::fmt::Write;
    let j = secs(join);
    let f1 = &res.ocbr[0];
    let f2 = &res.ocbr[1];
    let mut ours: Vec<String> = Vec::new();
    let before: Vec<(f64, &String)> = f1
        .intervals
        .iter()
        .zip(f1.server.iter().skip(1))
        .filter(|(i, _)| i.end_s <= j)
        .map(|(i, l)| (i.end_s, l))
        .collect();
    for (_, l) in before.iter().rev().take(6).rev() {
        ours.push(collapse_spaces(l));
    }
    ours.push("New flow.".into());
    let mut after: Vec<(f64, String)> = Vec::new();
    for f in [f1, f2] {
        for (i, l) in f.intervals.iter().zip(f.server.iter().skip(1)) {
            if i.end_s > j {
                after.push((i.end_s, collapse_spaces(l)));
            }
        }
    }
    after.sort_by(|a, b| a.0.total_cmp(&b.0));
    ours.extend(after.into_iter().take(8).map(|x| x.1));
    let mut s = String::new();
    let _ = writeln!(s, "ocbr server, {label} (ours) beside the seed's:");
    for (k, seed) in SEED_LINES.iter().enumerate() {
        let _ = writeln!(s, "  seed: {seed}");
        let _ = writeln!(
            s,
            "  sim:  {}",
            ours.get(k).map(String::as_str).unwrap_or("")
        );
    }
    s
}

/// The seed's flow-allocator file beside the sender's at the end of our run.
fn fa_side_by_side(f: &OcbrResult) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nflow-allocator file of flow 1's sender at the end of the run (ours) beside the seed's:"
    );
    for (a, b) in SEED_FA.lines().zip(f.sender_stats.lines()) {
        let _ = writeln!(s, "  {:<56} | {}", a, collapse_spaces(b));
    }
    s
}

fn explain(r: &mut Report, variants: &[Variant], outs: &[RunResult], framed: f64, j: f64) {
    let lr = &outs[0].ocbr[0];
    let alone = mean_between(lr, j / 2.0, j);
    let alone_iv: Vec<f64> = lr
        .intervals
        .iter()
        .filter(|i| i.end_s > 0.15 && i.end_s <= j)
        .map(|i| i.mbps)
        .collect();
    if let (Some(a), Some(b)) = (alone_iv.first(), alone_iv.last()) {
        r.note(format!(
            "line_rate: flow 1 alone never settles: every window ends decreased, so its rate falls from {} Mbit/s (first full interval) to {} Mbit/s (last before the join); its mean depends on how long it ran alone",
            fmt_num(*a),
            fmt_num(*b)
        ));
    }
    r.note(format!(
        "where the seed's missing 21% would go: framing takes {:.1}% (1000 of 1057 bytes per packet: at most {} Mbit/s of SDU); the 16-packet threshold and the decrease take the rest. Here, at line rate, one flow gets {} Mbit/s: the link is idle {:.0}% of the time",
        100.0 * (1.0 - 1000.0 / WIRE),
        fmt_num(framed),
        fmt_num(alone),
        100.0 * (1.0 - alone / framed)
    ));
    for (v, res) in variants.iter().zip(outs) {
        let f = &res.ocbr[0];
        r.note(format!(
            "{}: flow 1 sent {} packets, {} FLOW_UPDATEs, slept {:.3} s in window waits; windows (slow start, decrease, increase, unchanged) = {:?}",
            v.label(),
            f.sent,
            f.flow_updates_sent,
            f.ca_wait_s,
            f.windows
        ));
    }
    r.note("nop with two flows: both flood the router's full ring at exactly 1 Gbit/s, and the slot the port frees each frame time always goes to flow 1's packet, which arrives first in the same phase every time (drop-tail lock-out of periodic sources); the two-flow rows are left out for nop");
    r.note("the seed's flow-allocator file is of a different flow (1.6 M packets sent, a 65 µs window): it is shown for its fields, not its values; 0.18.0's file pads each value to 20 columns after a 33-column label, which the seed's quote collapses");
}

fn plot(r: &mut Report, variants: &[Variant], outs: &[RunResult], j: f64) {
    let mut p = Plot {
        title: format!(
            "ocbr server rates, 100 ms intervals (flow 2 joins at {} s)",
            fmt_num(j)
        ),
        x_label: "time (s)".into(),
        y_label: "Mbit/s".into(),
        ..Default::default()
    };
    for (v, res) in variants.iter().zip(outs) {
        if *v == Variant::Nop {
            continue;
        }
        for (k, f) in res.ocbr.iter().enumerate() {
            p.lines.push(Line {
                name: format!("{} flow {}", v.label(), k + 1),
                points: f.intervals.iter().map(|i| (i.end_s, i.mbps)).collect(),
                ..Default::default()
            });
        }
    }
    r.plots
        .push(("mbecn_star_rates.svg".into(), svg::render(&p)));
}
