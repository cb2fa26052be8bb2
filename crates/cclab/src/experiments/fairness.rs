//! `rtt-fairness` and `mtu-fairness` — seed 003 slides 25–26 (S. Ravot, DataTAG 2003): two
//! TCP streams share a 1 Gbit/s bottleneck for a long time.
//! RTT: CERN–Sunnyvale 181 ms vs CERN–Starlight 117 ms, MTU 9000: 202 vs 514 Mbit/s,
//! utilization 71.6%. MTU: 3000 vs 9000 bytes at 117 ms: 243 vs 464 Mbit/s, 70.7%.
//!
//! Set-up: a dumbbell with a 1 Gbit/s bottleneck and 10 Gbit/s access links whose delays set
//! the RTTs; bottleneck buffer 1 MB (≈ 8 ms at 1 Gbit/s — the seed does not give it; its
//! ~71% utilization with Reno says the buffer was small against the BDP, as on a router
//! line card); socket buffers large. Utilization = sum of goodputs / link payload capacity
//! at the jumbo MTU.

use super::common::*;
use super::{Experiment, Judge, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;

pub const RTT_FAIRNESS: Experiment = Experiment {
    name: "rtt-fairness",
    seed_doc: "003 slide 26",
    about: "Two streams on 1 Gbit/s, RTT 181 vs 117 ms, MTU 9000: Reno, CUBIC, H-TCP",
    run: run_rtt,
};

pub const MTU_FAIRNESS: Experiment = Experiment {
    name: "mtu-fairness",
    seed_doc: "003 slide 25",
    about: "Two streams on 1 Gbit/s, RTT 117 ms, MTU 3000 vs 9000: Reno, CUBIC, H-TCP",
    run: run_mtu,
};

const RATE: u64 = 1_000_000_000;
const VARIANTS: [&str; 3] = ["reno", "cubic", "htcp"];

/// Two flows: (rtt, mtu) each. Returns their goodputs in Mbit/s.
fn two_flows(
    cc: &str,
    a: (SimTime, u32),
    b: (SimTime, u32),
    dur: SimTime,
    seed: u64,
) -> (f64, f64) {
    let bott = 5 * MS;
    let access = |rtt: SimTime| (rtt / 2 - bott) / 2;
    let topo = TopologySpec::Dumbbell {
        senders: 2,
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: RATE,
            delay: bott,
            queue: QueueSpec::droptail(Limit::Bytes(1_000_000)),
        },
        access_rate_bps: 10 * RATE,
        access_delay: vec![access(a.0), access(b.0)],
        access_queue: QueueSpec::droptail(Limit::Packets(100_000)),
    };
    let mut sc = Scenario::new("fairness", topo, dur);
    sc.seed = seed;
    for (i, (_, mtu)) in [a, b].iter().enumerate() {
        let mut t = tcp(cc);
        t.mtu = *mtu;
        sc.add_flow(&format!("s{i}"), &format!("r{i}"), t);
    }
    let r = crate::sim::run(&sc).expect("valid scenario");
    (r.flows[0].goodput_bps / 1e6, r.flows[1].goodput_bps / 1e6)
}

fn run_pair(
    o: &Options,
    name: &str,
    a: (SimTime, u32),
    b: (SimTime, u32),
    metrics: [&str; 2],
    seed_vals: [f64; 3],
) -> Report {
    let dur = if o.quick { 300 * SEC } else { 3000 * SEC };
    // Which flow meets each drop-tail overflow depends on microsecond alignments (phase
    // effects): each variant runs several seeds (hosts' processing jitter differs) and the
    // table gives the mean and its 95% confidence interval.
    let runs = if o.quick { 3 } else { 5 };
    let items = variant_runs(&VARIANTS, o.seed, runs);
    let outs = super::par_map(&items, o.threads, |&(cc, seed)| {
        two_flows(cc, a, b, dur, seed)
    });
    let mut r = Report::new(name);
    let cap = max_goodput(RATE, 9000) / 1e6;
    const BUFFER: &str = "the seed does not give the bottleneck buffer; cclab's 1 MB is an assumption, and how much of the link two Reno flows use (and so each one's rate) grows with the buffer";
    for (vi, cc) in VARIANTS.iter().enumerate() {
        let mine = &outs[vi * runs..(vi + 1) * runs];
        let of = |f: &dyn Fn(f64, f64) -> f64| {
            mean_ci(&mine.iter().map(|&(x, y)| f(x, y)).collect::<Vec<_>>())
        };
        let (x, y, util, ratio) = (
            of(&|x, _| x),
            of(&|_, y| y),
            of(&|x, y| (x + y) / cap),
            of(&|x, y| y / x),
        );
        if *cc == "reno" {
            r.seed_ci(cc, metrics[0], seed_vals[0], x, Judge::Differs(BUFFER));
            r.seed_ci(cc, metrics[1], seed_vals[1], y, Judge::Differs(BUFFER));
            r.seed_ci(
                cc,
                "utilization",
                seed_vals[2],
                util,
                Judge::Differs(BUFFER),
            );
            r.seed_ci(
                cc,
                "ratio",
                seed_vals[1] / seed_vals[0],
                ratio,
                Judge::Within(Tol::Rel(0.25), "the seed's ratio is one 7000 s run on a shared production path, whose own spread the seed does not give; the model's mean over seeds is checked with ±25%, about the spread of single drop-tail runs here (see the confidence interval)"),
            );
        } else {
            r.row_ci(cc, metrics[0], x);
            r.row_ci(cc, metrics[1], y);
            r.row_ci(cc, "utilization", util);
            r.row_ci(cc, "ratio", ratio);
        }
    }
    r.note(format!(
        "{} s simulated per run, {runs} runs (seeds {}…{}) per variant (the seed averaged 7000 s); 1 MB bottleneck buffer; seed values (Linux 2.4-era 'standard' TCP) are shown beside reno",
        secs(dur),
        o.seed,
        o.seed + runs as u64 - 1
    ));
    r
}

fn run_rtt(o: &Options) -> Report {
    run_pair(
        o,
        "rtt-fairness",
        (181 * MS, 9000),
        (117 * MS, 9000),
        ["long_rtt_mbps", "short_rtt_mbps"],
        [202.0, 514.0, 0.716],
    )
}

fn run_mtu(o: &Options) -> Report {
    run_pair(
        o,
        "mtu-fairness",
        (117 * MS, 3000),
        (117 * MS, 9000),
        ["mtu3000_mbps", "mtu9000_mbps"],
        [243.0, 464.0, 0.707],
    )
}
