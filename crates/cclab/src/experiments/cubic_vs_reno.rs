//! `cubic-vs-reno` — one flow at a time on a 1 Gbit/s, 100 ms path with a BDP-sized
//! drop-tail buffer for 60 s: CUBIC (RFC 9438 / Linux, HyStart on) and Reno, each checked
//! against the closed form for a single flow with a BDP buffer (the link stays full once
//! slow start is over).
//!
//! utilization = goodput / maximum goodput of the link (1448 payload bytes per 1538-byte
//! frame).

use super::common::*;
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "cubic-vs-reno",
    seed_doc: "003 slides 13-18",
    about: "Utilization of one CUBIC vs one Reno flow, 1 Gbit/s, 100 ms, BDP buffer, 60 s",
    run,
};

const RATE: u64 = 1_000_000_000;
const RTT: SimTime = 100 * MS;

fn run(o: &Options) -> Report {
    let dur = if o.quick { 20 * SEC } else { 60 * SEC };
    let bdp = (RATE as f64 * secs(RTT) / (8.0 * wire_bytes(1500) as f64)).round() as u64;
    let variants = ["reno", "cubic"];
    // Several runs per variant (hosts' processing jitter differs by seed): mean and 95% CI.
    let runs = if o.quick { 3 } else { 5 };
    let items = variant_runs(&variants, o.seed, runs);
    let outs = super::par_map(&items, o.threads, |&(cc, seed)| {
        let topo = TopologySpec::path(
            10 * RATE,
            RATE,
            RTT / 2,
            QueueSpec::droptail(Limit::Packets(bdp)),
        );
        let mut sc = Scenario::new("cubic-vs-reno", topo, dur);
        sc.seed = seed;
        sc.add_default_flows(&tcp(cc));
        crate::sim::run(&sc).expect("valid scenario")
    });
    let mut r = Report::new("cubic-vs-reno");
    let max = max_goodput(RATE, 1500);
    // Closed form: with a drop-tail buffer B = BDP, one flow's window after a loss is
    // β·(BDP + B) ≥ BDP for β = 0.5 (Reno) and 0.7 (CUBIC), so in congestion avoidance the
    // queue never drains and the link stays full (Villamizar & Song 1994). Only slow start
    // (cwnd from IW = 10 to 2·(BDP + B) doubling once per RTT) and the recovery of its
    // overshoot (one RTT) are below full rate; counting them wholly as lost gives a
    // lower bound.
    let ss_rtts = (2.0 * (2 * bdp) as f64 / 10.0).log2().ceil() + 1.0;
    let bound = 1.0 - ss_rtts * secs(RTT) / secs(dur);
    r.row("closed_form", "utilization_bound", bound);
    for (vi, cc) in variants.iter().enumerate() {
        let mine = &outs[vi * runs..(vi + 1) * runs];
        let u = mean_ci(
            &mine
                .iter()
                .map(|res| res.flows[0].goodput_bps / max)
                .collect::<Vec<_>>(),
        );
        r.row_ci(cc, "utilization", u);
        r.check_vs(
            format!("{cc} utilization with a BDP buffer (mean of {runs} runs)"),
            Against::ClosedForm,
            u.mean,
            bound,
            Tol::AtLeast,
            "a lower bound: with B = BDP the window after a loss, β·2·BDP, never drains the queue (β = 0.5 Reno, 0.7 CUBIC), so only slow start and one RTT of its recovery can leave the link idle",
        );
        let f = &mine[0].flows[0];
        r.note(format!(
            "{cc} (seed {}): goodput {:.1} Mbit/s, {} retransmits, {} recovery episodes, {} timeouts",
            o.seed,
            f.goodput_bps / 1e6,
            f.retransmits,
            f.recovery_episodes,
            f.timeouts
        ));
    }
    r.note("the seed makes no claim about CUBIC; both flows are checked against the closed form, not against each other");
    r.note(format!("bottleneck buffer = BDP = {bdp} packets; access link 10 Gbit/s; socket buffers 256 MiB; {} s", secs(dur)));
    r
}
