//! `cubic-vs-reno` — one flow at a time on a 1 Gbit/s, 100 ms path with a BDP-sized
//! drop-tail buffer for 60 s: CUBIC (RFC 9438 / Linux, HyStart on) should use the path at
//! least as well as Reno (seed 003's "Standard TCP not optimum for high throughput long
//! distance links").
//!
//! utilization = goodput / maximum goodput of the link (1448 payload bytes per 1538-byte
//! frame).

use super::common::*;
use super::{Experiment, Options, Report};
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
    let outs = super::par_map(&variants, o.threads, |cc| {
        let topo = TopologySpec::path(
            10 * RATE,
            RATE,
            RTT / 2,
            QueueSpec::droptail(Limit::Packets(bdp)),
        );
        let mut sc = Scenario::new("cubic-vs-reno", topo, dur);
        sc.seed = o.seed;
        sc.add_default_flows(&tcp(cc));
        crate::sim::run(&sc).expect("valid scenario")
    });
    let mut r = Report::new("cubic-vs-reno");
    let max = max_goodput(RATE, 1500);
    let mut util = Vec::new();
    for (cc, res) in variants.iter().zip(&outs) {
        let f = &res.flows[0];
        let u = f.goodput_bps / max;
        util.push(u);
        r.row(cc, "utilization", None, u);
        r.note(format!(
            "{cc}: goodput {:.1} Mbit/s, {} retransmits, {} recovery episodes, {} timeouts",
            f.goodput_bps / 1e6,
            f.retransmits,
            f.recovery_episodes,
            f.timeouts
        ));
    }
    r.check(
        "cubic >= reno",
        util[1] >= util[0],
        format!(
            "cubic {:.4} vs reno {:.4} (no tolerance: CUBIC must not be below Reno)",
            util[1], util[0]
        ),
    );
    r.note(format!("bottleneck buffer = BDP = {bdp} packets; access link 10 Gbit/s; socket buffers 256 MiB; {} s", secs(dur)));
    r
}
