//! `reno-recovery` — seed 003 slide 14: after one loss, a Reno flow whose window equals the
//! bandwidth-delay product needs τ = C·RTT²/(2·MSS) to regain full rate (cwnd halves, then
//! grows one segment per RTT: W/2 RTTs with W = C·RTT/MSS).
//!
//! Definition used: τ = time from entering fast recovery (the loss detected by 3 duplicate
//! ACKs/SACKs) until cwnd is back at its pre-loss value (Linux `prior_cwnd`).
//! Set-up: one 1 Gbit/s hop with one-way delay RTT/2; the flow starts in congestion
//! avoidance at cwnd = ssthresh = BDP in packets (so the pipe is exactly full and nothing
//! queues), and the link drops one data packet in the second window. Linux Reno with SACK,
//! PRR and delayed ACKs (growth counted in segments, so still +1 segment per RTT).

use super::common::*;
use super::{Against, Experiment, Judge, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;
use crate::sim::Sim;

pub const EXPERIMENT: Experiment = Experiment {
    name: "reno-recovery",
    seed_doc: "003 slide 14",
    about: "Reno recovery time after one loss at window = BDP, 1 Gbit/s, RTT 6/25/150/200 ms",
    run,
};

const RATE: u64 = 1_000_000_000;
/// The slide's packet size (1500-byte packets).
const MSS_FORMULA: f64 = 1500.0;

struct Case {
    rtt_ms: u64,
    /// The slide's number and the tolerance with its reason.
    seed: Option<(f64, f64, &'static str)>,
}

/// Why the slide's 28 min is not its 150 ms row (`Case::seed`'s reason at 150 ms).
const SEED_150: &str = "the slide's table puts 28 min at USA 150 ms, but 28 min is the slide's own formula C·RTT²/(2·MSS) at 200 ms, the RTT its heading names";

pub struct Outcome {
    pub recovery_s: Option<f64>,
    pub window: u64,
    pub pre_loss_cwnd: u32,
    pub wall_s: f64,
    pub packet_hops: u64,
}

/// τ = C·RTT²/(2·MSS) in seconds.
pub fn formula_s(rtt_s: f64) -> f64 {
    RATE as f64 * rtt_s * rtt_s / (2.0 * MSS_FORMULA * 8.0)
}

/// Simulate one RTT; stop as soon as cwnd is back (or at 3× the formula).
pub fn simulate(rtt: SimTime, seed: u64) -> Outcome {
    simulate_with(rtt, tcp("reno"), seed)
}

/// As `simulate`, with another TCP configuration (e.g. per-ACK growth, `growth = "acks"`).
pub fn simulate_with(rtt: SimTime, mut t: TcpConfig, seed: u64) -> Outcome {
    let bdp_pkts = (RATE as f64 * secs(rtt) / (8.0 * wire_bytes(1500) as f64)).round() as u64;
    let topo = one_hop(
        RATE,
        rtt / 2,
        QueueSpec::droptail(Limit::Packets(1_000_000)),
    );
    let limit = from_secs(3.0 * formula_s(secs(rtt))) + 10 * SEC;
    t.init_cwnd = bdp_pkts as u32;
    t.init_ssthresh = Some(bdp_pkts as u32);
    let mut sc = Scenario::new("reno-recovery", topo, limit);
    sc.seed = seed;
    sc.add_default_flows(&t);
    sc.losses.push(LossSpec {
        link: "hop0".into(),
        rate: 0.0,
        drop_nth: vec![(0, bdp_pkts + bdp_pkts / 2)],
        every: 0,
    });
    let wall = std::time::Instant::now();
    let mut sim = Sim::new(&sc).expect("valid scenario");
    let mut now = 0;
    let mut loss: Option<(SimTime, u32)> = None;
    let mut recovery = None;
    let step = rtt / 4;
    while now < limit {
        now += step;
        sim.run_until(now);
        let s = &sim.tcp(0).sender;
        if loss.is_none() && s.stats.recoveries > 0 {
            loss = Some((s.stats.last_reduction_at, s.tp.prior_cwnd));
        }
        if let Some((at, pre)) = loss {
            if s.tp.snd_cwnd >= pre && s.tp.ca_state == crate::cc::CaState::Open {
                recovery = Some(secs(now - at));
                break;
            }
        }
    }
    Outcome {
        recovery_s: recovery,
        window: bdp_pkts,
        pre_loss_cwnd: loss.map_or(0, |l| l.1),
        wall_s: wall.elapsed().as_secs_f64(),
        packet_hops: sim.net.packet_hops,
    }
}

fn run(o: &Options) -> Report {
    let mut cases = vec![
        Case {
            rtt_ms: 6,
            seed: Some((
                1.6,
                0.12,
                "the slide's 1.6 s is the formula at MB-NG's 6.2 ms (slide 20): (6.2/6)² = +6.8%; plus its rounding to two digits (±3%) and the 2.5% framing (W counts 1538-byte frames)",
            )),
        },
        Case {
            rtt_ms: 25,
            seed: Some((
                26.0,
                0.05,
                "the slide rounds to two digits (±2%); W counts 1538-byte frames, 2.5% fewer than the formula's 1500-byte packets",
            )),
        },
    ];
    if !o.quick {
        cases.push(Case {
            rtt_ms: 150,
            seed: Some((28.0 * 60.0, 0.05, SEED_150)),
        });
        // Not in the slide's table: the RTT at which its own formula gives its 28 min.
        cases.push(Case {
            rtt_ms: 200,
            seed: None,
        });
    }
    let outs = super::par_map(&cases, o.threads, |c| simulate(c.rtt_ms * MS, o.seed));
    let mut r = Report::new("reno-recovery");
    for (c, out) in cases.iter().zip(&outs) {
        let v = format!("rtt_{}ms", c.rtt_ms);
        let f = formula_s(c.rtt_ms as f64 / 1e3);
        let sim = out.recovery_s.unwrap_or(f64::NAN);
        match c.seed {
            Some((seed, _, SEED_150)) => {
                let cause = format!(
                    "{SEED_150}: the formula gives {:.1} min at 150 ms and {:.1} min at 200 ms, and the simulation {:.1} min at 150 ms (the closed-form check below) and {} at 200 ms (rtt_200ms)",
                    f / 60.0,
                    formula_s(0.2) / 60.0,
                    sim / 60.0,
                    cases
                        .iter()
                        .zip(&outs)
                        .find(|(c, _)| c.rtt_ms == 200)
                        .and_then(|(_, o)| o.recovery_s)
                        .map_or("not run".to_string(), |s| format!("{:.1} min", s / 60.0))
                );
                r.seed(&v, "recovery_s", seed, sim, Judge::Differs(&cause))
            }
            Some((seed, tol, why)) => r.seed(
                &v,
                "recovery_s",
                seed,
                sim,
                Judge::Within(Tol::Rel(tol), why),
            ),
            None => r.row(&v, "recovery_s", sim),
        }
        r.row(&v, "formula_s", f);
        r.check_vs(
            format!("{v} recovery_s vs C·RTT²/(2·MSS)"),
            Against::ClosedForm,
            sim,
            f,
            Tol::Rel(0.05),
            "W counts 1538-byte frames, 2.5% fewer than the formula's 1500-byte packets; growth is in whole segments once per RTT and recovery itself takes one RTT (< 0.5% of W/2 RTTs here)",
        );
        r.note(format!(
            "{v}: W = {} packets, pre-loss cwnd {}, {} packet-hops simulated",
            out.window, out.pre_loss_cwnd, out.packet_hops
        ));
        r.perf.push(format!(
            "{v}: {:.2} s wall ({:.1} M packet-hops/s)",
            out.wall_s,
            out.packet_hops as f64 / out.wall_s / 1e6
        ));
    }
    r.note("recovery_s = time from entering fast recovery until cwnd is back at its pre-loss value (prior_cwnd); formula_s = C·RTT²/(2·MSS) with C = 1 Gbit/s, MSS = 1500 B");
    r.note("the slide's table lists UK 6 ms → 1.6 s, Europe 25 ms → 26 s, USA 150 ms → 28 min, but 28 min is its formula at 200 ms (the slide's text before the table: 'for rtt of 200 ms _at_ 1 Gbit/s'); so rtt_150ms is compared with the 28 min and DIFFERS, and rtt_200ms, which the table does not list, is checked against the formula only");
    r.note("the simulated W counts 1538-byte frames (1500 B IP + Ethernet framing) in the pipe, so it is 2.5% below C·RTT/1500 B; the recovery time scales with it");
    if o.quick {
        r.note("--quick: the 150 ms and 200 ms cases (≈ 16 and 28 minutes of simulated time) are skipped; run without --quick for them");
    }
    r
}
