//! `cubic-vs-reno` — one flow at a time on a 1 Gbit/s, 100 ms path with a BDP-sized
//! drop-tail buffer for 60 s: CUBIC (RFC 9438 / Linux, HyStart on) and Reno, each checked
//! against the closed form for a single flow with a BDP buffer (the link stays full once
//! slow start is over).
//!
//! utilization = goodput / maximum goodput of the link (1448 payload bytes per 1538-byte
//! frame).

use super::common::*;
use super::{fmt_num, Against, Experiment, Options, Report};
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
    let mut r = Report::with("cubic-vs-reno", o);
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
        // The bound assumes that slow start's overshoot is repaired by fast recovery; a run
        // whose recovery loses a retransmission takes an RTO and restarts from one segment,
        // which the closed form does not cover: such runs are counted, not checked.
        let clean: Vec<f64> = mine
            .iter()
            .filter(|res| res.flows[0].timeouts == 0)
            .map(|res| res.flows[0].goodput_bps / max)
            .collect();
        let worst = clean.iter().cloned().fold(f64::INFINITY, f64::min);
        let (ok, detail) = (
            !clean.is_empty() && worst >= bound,
            format!(
                "lowest {} vs at least {} over the {} of {runs} runs without an RTO",
                fmt_num(worst),
                fmt_num(bound),
                clean.len()
            ),
        );
        r.check(
            format!("{cc} utilization with a BDP buffer"),
            Against::ClosedForm,
            ok,
            detail,
            "a lower bound for a run without an RTO: with B = BDP the window after a loss, β·2·BDP, never drains the queue (β = 0.5 Reno, 0.7 CUBIC), so only slow start and one RTT of its recovery can leave the link idle",
        );
        if clean.len() < runs {
            r.note(format!("{cc}: {} of {runs} runs lost a retransmission while repairing slow start's overshoot (about a BDP of packets lost in one window) and waited for an RTO; the closed form assumes fast recovery and does not apply to them", runs - clean.len()));
        }
        for (res, seed) in mine.iter().zip(run_seeds(o.seed, runs)) {
            let f = &res.flows[0];
            r.note(format!(
                "{cc} (seed {seed}): utilization {:.4}, {} retransmits, {} recovery episodes, {} timeouts",
                f.goodput_bps / max,
                f.retransmits,
                f.recovery_episodes,
                f.timeouts
            ));
        }
    }
    r.note("the seed makes no claim about CUBIC; both flows are checked against the closed form, not against each other");
    r.note(format!("bottleneck buffer = BDP = {bdp} packets; access link 10 Gbit/s; socket buffers 256 MiB; {} s", secs(dur)));
    r
}
