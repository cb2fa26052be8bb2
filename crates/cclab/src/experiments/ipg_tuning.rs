//! `ipg-tuning` — seed 001 slide 15: "IPG tuning: Inter Packet Gap of the Ethernet MAC
//! layer … 8–1023 B, 1 B (8 ns) step in case of Intel e1000 … TCP stream 941 Mbps 567
//! Mbps". One CUBIC stream on a GbE link whose sending NIC's IPGT is 8 (the default)
//! … 1023; and two streams through the same NIC at IPGT 1023, which share the one cap
//! (REFERENCE §12, IPG-1 and IPG-2).
//!
//! The NIC model: e1000's TIPG.IPGT in byte times, to which the MAC adds 4 (Intel 8254x SDM
//! 13.4.34; Linux `DEFAULT_82543_TIPG_IPGT_COPPER 8`), so a full frame occupies
//! 8 (preamble) + 1518 + IPGT + 4 byte times and TCP's goodput (MSS 1448 with timestamps)
//! is 1448 / (1530 + IPGT) of the line rate.
//!
//! Not here yet: slide 16 (a 596 Mbit/s bottleneck at 200 ms RTT, where IPG 1023 improves
//! the maximum and average of 30-second iperf runs) — it needs the run-to-run spread of a
//! long path and is left for the next step of issue 11.

use super::common::*;
use super::{Against, Experiment, Judge, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "ipg-tuning",
    seed_doc: "001 slide 15",
    about: "One TCP stream on GbE with the NIC's inter-packet gap (e1000 IPGT) 8…1023: 941 → 567 Mbit/s; two streams share the NIC's cap",
    run,
};

const RATE: u64 = 1_000_000_000;
const IPGTS: [u32; 6] = [8, 64, 128, 256, 512, 1023];

/// The rate model: TCP goodput of a GbE NIC at this IPGT, bit/s.
pub fn model_bps(ipgt: u32) -> f64 {
    RATE as f64 * 1448.0 / (1530 + ipgt) as f64
}

/// Goodput (bit/s) of each of `flows` CUBIC streams from one host through a GbE link whose
/// NIC has this IPGT, measured after the first fifth of the run.
fn streams(ipgt: u32, flows: usize, dur: SimTime, seed: u64) -> Vec<f64> {
    let topo = one_hop(RATE, 100 * US, QueueSpec::droptail(Limit::Packets(1000)));
    let mut sc = Scenario::new("ipg-tuning", topo, dur);
    sc.seed = seed;
    sc.host.ipgt = ipgt;
    for _ in 0..flows {
        let mut t = tcp("cubic");
        t.sndbuf = 16 << 20;
        t.rcvbuf = 16 << 20;
        sc.add_flow("src", "dst", t);
    }
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let warm = dur / 5;
    sim.run_until(warm);
    let b0: Vec<u64> = (0..flows)
        .map(|i| sim.tcp(i).receiver.delivered_bytes)
        .collect();
    sim.run();
    (0..flows)
        .map(|i| (sim.tcp(i).receiver.delivered_bytes - b0[i]) as f64 * 8.0 / secs(dur - warm))
        .collect()
}

fn run(o: &Options) -> Report {
    let dur = if o.quick { SEC } else { 10 * SEC };
    let mut cases: Vec<(u32, usize)> = IPGTS.iter().map(|&g| (g, 1)).collect();
    cases.push((1023, 2));
    let outs = super::par_map(&cases, o.threads, |&(g, n)| streams(g, n, dur, o.seed));
    let mut r = Report::new("ipg-tuning");
    const MODEL: &str = "the rate model is exact for back-to-back full frames; 0.5% (REFERENCE IPG-1) covers the loss episodes at the NIC's queue (the ACKs travel the other way and take nothing from it)";
    for (&(g, n), bps) in cases.iter().zip(&outs) {
        let total: f64 = bps.iter().sum::<f64>() / 1e6;
        let model = model_bps(g) / 1e6;
        let v = format!("ipgt_{g}");
        if n == 1 {
            let seed = match g {
                8 => Some(941.0),
                1023 => Some(567.0),
                _ => None,
            };
            match seed {
                Some(s) => r.seed(
                    &v,
                    "goodput_mbps",
                    s,
                    total,
                    Judge::Within(
                        Tol::Rel(0.005),
                        "the slide gives whole Mbit/s; REFERENCE IPG-1 asks ±0.5%",
                    ),
                ),
                None => r.row(&v, "goodput_mbps", total),
            }
            r.row(&v, "model_mbps", model);
            r.check_vs(
                format!("{v} vs 1448/(1530 + IPGT) of the line"),
                Against::ClosedForm,
                total,
                model,
                Tol::Rel(0.005),
                MODEL,
            );
        } else {
            let v = format!("{v}_two_flows");
            r.row(&v, "sum_goodput_mbps", total);
            for (i, b) in bps.iter().enumerate() {
                r.row(&v, &format!("flow{i}_goodput_mbps"), b / 1e6);
            }
            r.check_vs(
                format!("{v}: the cap is per NIC, not per flow"),
                Against::ClosedForm,
                total,
                model,
                Tol::Rel(0.005),
                MODEL,
            );
        }
    }
    r.note(format!(
        "one hop: src's GbE NIC (the IPGT applies to it) → 1 Gbit/s link, 100 µs one way → dst; its queue 1000 packets; CUBIC, 16 MiB socket buffers; goodput after the first fifth of {} s",
        secs(dur)
    ));
    r.note("IPGT 8 is the e1000 default (a 12-byte gap); the slide's 941 and 567 Mbit/s are the rate model's 941.5 and 567.2 at IPGT 8 and 1023, which confirms the MAC's +4 byte times");
    r.note("slide 16 (a 596 Mbit/s bottleneck at 200 ms RTT with IPG 512 and 1023) is not reproduced yet");
    r
}
