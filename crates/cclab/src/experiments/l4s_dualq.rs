//! `l4s-dualq` — a scalable (L4S) flow and a classic CUBIC flow through DualPI2 (RFC 9332;
//! Linux `sch_dualpi2`, `qdisc/dualpi2.rs`): the L queue's delay, the classic queue's, and
//! the window balance the coupling p_C = (p_CL/k)² is designed to give
//! (docs/references.md §6.7, DPI2-11).
//!
//! **What the sources claim.** `sch_dualpi2.c` sets `coupling_factor = 2` with the comment
//! "window fairness for equal RTTs", and its man page (`tc-dualpi2.8`) says Reno/Cubic
//! and Prague run "in parallel …, maintaining window fairness", with "latency separation"
//! between the L queue and the classic one, whose PI2 `target` (15 ms) is "the expected
//! queue delay", and an L queue whose packets are "always marked" past `step_thresh`
//! (1 ms). The DualQ paper (De Schepper, Albisser, Tilmans, Briscoe, arXiv:2209.01078,
//! whose evaluation runs TCP Prague against CUBIC) gives in its abstract the L queue's delay
//! as "median 100–300 μs" and "99th percentile below 2 ms": judged on the Prague row (its
//! figures were not reachable, docs/references.md §6.7). The coupling's derivation (RFC 9332 §2.1 and the PI2 paper, De Schepper et
//! al., CoNEXT 2016, §3 — *[memory]*: the stored copies held the abstracts only, so no
//! figure of the paper is used): a Reno-friendly window is 1.22/√p_C (Mathis; CUBIC's
//! Reno-friendly region by design, RFC 9438 §4.3), a DCTCP-like window under
//! probabilistic marking 2/p_L; with p_C = p'² and p_L = k·p' the windows stand at
//! W_L/W_C = (2/1.22)/k = 1.64/k, 0.82 at k = 2 (k = 1.64 would balance them exactly).
//!
//! **Configuration.** A dumbbell: two senders on 400 Mbit/s links (2.5 ms), a 40 Mbit/s
//! bottleneck (5 ms one way; base RTT 20 ms) with DualPI2 at Linux's defaults; s0 runs
//! the scalable sender, s1 CUBIC without ECN (Linux's default: it asks for no ECN); one
//! bulk flow each from t = 0, SACK, Linux 6.6 defaults. The scalable sender is DCTCP
//! (`tcp_dctcp.c`) sending ECT(1) (the L4S team's `dctcp_ect = 1`), classified into the L
//! queue by the default `l4s_ect`. A row (not judged): DCTCP on ECT(0) with the classifier
//! at tc's `any_ect` (the man page's data-centre setting), which the queue treats alike.
//!
//! **Measured** after a 10 s warm-up: each queue's sojourn of every packet sent
//! (percentiles, mean), each flow's goodput, its packets in flight sampled every 1 ms (its
//! window), p' sampled every 1 ms, the share of L packets CE-marked (p_L) and of C packets
//! dropped by the AQM (p_C), the link's utilisation.
//!
//! Runs: three seeds, up to six while a check's interval is as wide as its band.
//! `--quick`: 30 s runs instead of 100 s.

use super::common::{busy_bits, tcp};
use super::study::{Of, Study};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::qdisc::dualpi2::{self, Params, ECN_MASK_ANY_ECT, ECN_MASK_L4S_ECT, MAX_PROB};
use crate::qdisc::{Qdisc, QueueSpec};
use crate::scenario::*;
use crate::sim::Sim;
use crate::tcp::config::TcpConfig;

/// The DualPI2 discipline of port `port`.
fn dualpi2_of(sim: &Sim, port: crate::net::PortId) -> &dualpi2::DualPi2 {
    match &sim.net.port(port).qdisc {
        Qdisc::DualPi2(q) => q,
        _ => unreachable!("the bottleneck runs dualpi2"),
    }
}

pub const EXPERIMENT: Experiment = Experiment {
    name: "l4s-dualq",
    seed_doc: "docs/references.md §6.7 (RFC 9332; Linux sch_dualpi2)",
    about: "a DCTCP (L4S) flow and a CUBIC flow through DualPI2 at Linux's defaults, 40 Mbit/s, 20 ms: L and C queue delays, window balance 1.64/k; TCP Prague's L-queue delay against the DualQ paper's abstract",
    run,
};

const RATE: u64 = 40_000_000;
const BOTTLENECK_DELAY: SimTime = 5 * MS;
const ACCESS_DELAY: SimTime = 2 * MS + 500 * US;
const WARM: SimTime = 10 * SEC;
const SAMPLE: SimTime = MS;
const TARGET_MS: f64 = 15.0;
/// The path's propagation round trip, ms: 2 × (2.5 + 5 + 2.5).
const BASE_RTT_MS: f64 = 20.0;
const STEP_MS: f64 = 1.0;
/// k, Linux's default.
const K: f64 = 2.0;
/// The windows' constants: Reno-friendly 1.22/√p (√(3/2)), DCTCP under probabilistic
/// marking 2/p.
const RENO_C: f64 = 1.224_744_871;
const SCALABLE_C: f64 = 2.0;

/// The scalable sender on the L queue: its congestion control, `tcp_dctcp.c`'s `dctcp_ect`
/// (1: ECT(1)), and the queue's classifier. A row for another sender is one
/// `s.variant(…)` line.
#[derive(Clone, Copy, Debug)]
struct Scalable {
    cc: &'static str,
    dctcp_ect: u32,
    ecn_mask: u8,
}

/// DCTCP on ECT(1) into the default `l4s_ect` classifier: the judged configuration.
const DCTCP_ECT1: Scalable = Scalable {
    cc: "dctcp",
    dctcp_ect: 1,
    ecn_mask: ECN_MASK_L4S_ECT,
};
/// DCTCP on ECT(0) into `any_ect` (tc's data-centre setting): the same queue decisions.
const DCTCP_ECT0_ANY: Scalable = Scalable {
    cc: "dctcp",
    dctcp_ect: 0,
    ecn_mask: ECN_MASK_ANY_ECT,
};

impl Scalable {
    /// The sender's TCP settings.
    fn tcp(self) -> TcpConfig {
        let mut t = tcp(self.cc);
        t.cc_options.dctcp.ect = self.dctcp_ect;
        t
    }
}

/// One run's measurements.
#[derive(Clone)]
struct Run {
    l_mbps: f64,
    c_mbps: f64,
    l_window: f64,
    c_window: f64,
    p_prime: f64,
    p_l: f64,
    p_c: f64,
    l_ms: [f64; 4],
    c_ms: [f64; 4],
    util: f64,
    step_share: f64,
}

type Metric = fn(&Run) -> f64;

fn simulate(o: &Options, s: Scalable, dur: SimTime, seed: u64) -> Run {
    let queue = QueueSpec::DualPi2(dualpi2::Spec {
        params: Params {
            ecn_mask: s.ecn_mask,
            ..Params::default()
        },
    });
    let topo = TopologySpec::Dumbbell {
        senders: 2,
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: RATE,
            delay: BOTTLENECK_DELAY,
            queue,
        },
        access_rate_bps: 10 * RATE,
        access_delay: vec![ACCESS_DELAY; 2],
        access_queue: QueueSpec::droptail(Limit::Packets(10_000)),
    };
    let mut sc = Scenario::new("l4s-dualq", topo, dur);
    sc.seed = seed;
    sc.add_flow("s0", "r0", o.tcp(s.tcp()));
    sc.add_flow("s1", "r1", o.tcp(tcp("cubic")));
    o.prepare(&mut sc);
    let mut sim = Sim::new(&sc).expect("valid scenario");
    let port = sim.net.port_by_name("bottleneck").expect("a bottleneck");
    sim.run_until(WARM);
    let bits0 = busy_bits(&mut sim, port);
    let at: Vec<u64> = (0..2)
        .map(|i| sim.tcp(i).receiver.delivered_bytes)
        .collect();
    // The queue's statistics count from the window's start.
    if let Qdisc::DualPi2(q) = &mut sim.net.port_mut(port).qdisc {
        q.stats = dualpi2::Stats::default();
    }
    let (mut win, mut prob, mut k) = ([0.0f64; 2], 0.0, 0.0);
    let mut t = WARM;
    while t < dur {
        t += SAMPLE;
        sim.run_until(t);
        for (i, w) in win.iter_mut().enumerate() {
            *w += sim.tcp(i).sender.in_flight() as f64;
        }
        prob += dualpi2_of(&sim, port).prob as f64 / MAX_PROB as f64;
        k += 1.0;
    }
    let bits = busy_bits(&mut sim, port) - bits0;
    let window_s = secs(dur - WARM);
    let mbps =
        |i: usize| (sim.tcp(i).receiver.delivered_bytes - at[i]) as f64 * 8.0 / window_s / 1e6;
    let st = &dualpi2_of(&sim, port).stats;
    // Index 0 the C queue, 1 the L queue.
    let ms = |c: usize| {
        let pct = |q: f64| st.sojourn[c].value_at_quantile(q) as f64 / 1e6;
        let mean = st.sojourn_ns[c] as f64 / st.sent[c].max(1) as f64 / 1e6;
        [pct(0.5), pct(0.9), pct(0.99), mean]
    };
    let l_marks = st.marked[1] as f64;
    Run {
        l_mbps: mbps(0),
        c_mbps: mbps(1),
        l_window: win[0] / k,
        c_window: win[1] / k,
        p_prime: prob / k,
        p_l: l_marks / st.sent[1].max(1) as f64,
        p_c: st.aqm_drops[0] as f64 / (st.sent[0] + st.aqm_drops[0]).max(1) as f64,
        l_ms: ms(1),
        c_ms: ms(0),
        util: bits / (RATE as f64 * window_s),
        step_share: st.step_marks as f64 / l_marks.max(1.0),
    }
}

const WHY_WINDOWS: &str = "RFC 9332 §2.1 and the PI2 paper §3 [memory]: a Reno-friendly window 1.22/√p_C (CUBIC's Reno-friendly region is built to match it, RFC 9438 §4.3) and a scalable one 2/p_L, with p_C = p'² and p_L = k·p', stand at W_L/W_C = 1.64/k = 0.82 for k = 2; each window law is a sawtooth mean good to ±15% (docs/references.md RENO-2 for Reno's constant under random drops; DCTCP's 2/p is the same kind of mean), their ratio to the sum: ±30%";
const WHY_C_DELAY: &str = "tc-dualpi2.8: target is 'the expected queue delay' (15 ms); PI2's integral action leaves no standing offset in the delay it controls, the older head's (here the classic queue's), so the classic packets' mean sojourn sits at the target within the difference between the head's age sampled every tupdate and the per-packet sojourn: ±20%, as PIE's (docs/references.md PIE-9)";
const WHY_L_STEP: &str = "tc-dualpi2.8 and do_step_aqm: every L packet whose sojourn exceeds step_thresh (1 ms) is CE-marked, and a scalable sender cuts its window in proportion to the marks each round trip, so the L queue's median sojourn is at most the step threshold";
const WHY_SEPARATION: &str = "tc-dualpi2.8: 'DUALQ provides latency separation between low latency Prague flows and Reno/Cubic flows that need a bigger queue': the L queue's 99th-percentile sojourn below the classic queue's median (ratio at most 1)";

const WHY_PAPER_MEDIAN: &str = "De Schepper, Albisser, Tilmans, Briscoe, Dual Queue Coupled AQM (arXiv:2209.01078), abstract: the L queue's delay has a 'median 100–300 μs' over the paper's experiments (TCP Prague against CUBIC through DualPI2 at Linux's defaults, 40 Mbit/s in its testbed [secondary: the authors' evaluation data]); the band is that range";
const WHY_PAPER_P99: &str = "the same abstract: the L queue's delay has a '99th percentile below 2 ms even under highly dynamic workloads'; one long-running pair is the least dynamic of them";

fn run(o: &Options) -> Report {
    let dur = if o.quick { 30 * SEC } else { 100 * SEC };
    let (runs, cap) = (3, 6);
    let mut s: Study<Scalable, Run> = Study::new("l4s-dualq", o);
    let dctcp = s.variant("dctcp_cubic", DCTCP_ECT1, runs, cap);
    let mut vars = vec![dctcp];
    let checks = vec![
        s.check(
            "classic queue: mean sojourn / the 15 ms target",
            Against::Published,
            1.0,
            Tol::Rel(0.2),
            WHY_C_DELAY,
            Of::mean(dctcp, |r: &Run| r.c_ms[3] / TARGET_MS),
        ),
        s.check(
            "L queue: median sojourn (ms), at most the 1 ms step",
            Against::Published,
            STEP_MS,
            Tol::AtMost,
            WHY_L_STEP,
            Of::mean(dctcp, |r: &Run| r.l_ms[0]),
        ),
        s.check(
            "L queue's 99th percentile / the classic queue's median",
            Against::Published,
            1.0,
            Tol::AtMost,
            WHY_SEPARATION,
            Of::mean(dctcp, |r: &Run| r.l_ms[2] / r.c_ms[0]),
        ),
        s.check(
            "window balance W_L / W_C vs 1.64/k (k = 2)",
            Against::ClosedForm,
            SCALABLE_C / RENO_C / K,
            Tol::Rel(0.3),
            WHY_WINDOWS,
            Of::mean(dctcp, |r: &Run| r.l_window / r.c_window),
        ),
    ];
    // TCP Prague against CUBIC, the pairing of the DualQ paper's evaluation: its L queue's
    // delay against the paper's abstract.
    let prague = s.variant(
        "prague_cubic",
        Scalable {
            cc: "prague",
            ..DCTCP_ECT1
        },
        runs,
        cap,
    );
    let mut checks = checks;
    checks.push(s.check(
        "Prague vs CUBIC: L queue median sojourn (ms) within the DualQ paper's 100–300 µs",
        Against::Published,
        0.2,
        Tol::Abs(0.1),
        WHY_PAPER_MEDIAN,
        Of::mean(prague, |r: &Run| r.l_ms[0]),
    ));
    checks.push(s.check(
        "Prague vs CUBIC: L queue 99th-percentile sojourn (ms) below the DualQ paper's 2 ms",
        Against::Published,
        2.0,
        Tol::AtMost,
        WHY_PAPER_P99,
        Of::mean(prague, |r: &Run| r.l_ms[2]),
    ));
    // Rows, not judged.
    vars.push(s.variant("dctcp_ect0_any_ect_cubic", DCTCP_ECT0_ANY, runs, runs));
    vars.push(prague);
    let mut d = s.run(|&c, seed| simulate(o, c, dur, seed));
    let rows: [(&str, Metric); 22] = [
        ("l_goodput_mbps", |r| r.l_mbps),
        ("c_goodput_mbps", |r| r.c_mbps),
        ("rate_ratio_l_over_c", |r| r.l_mbps / r.c_mbps),
        ("rate_ratio_model", |r| {
            SCALABLE_C / RENO_C / K * (BASE_RTT_MS + r.c_ms[3]) / (BASE_RTT_MS + r.l_ms[3])
        }),
        ("l_window_pkts", |r| r.l_window),
        ("c_window_pkts", |r| r.c_window),
        ("window_ratio_l_over_c", |r| r.l_window / r.c_window),
        ("p_prime", |r| r.p_prime),
        ("p_l_marked", |r| r.p_l),
        ("p_c_dropped", |r| r.p_c),
        ("l_window_x_p_l", |r| r.l_window * r.p_l),
        ("c_window_x_sqrt_p_c", |r| r.c_window * r.p_c.sqrt()),
        ("l_p50_ms", |r| r.l_ms[0]),
        ("l_p90_ms", |r| r.l_ms[1]),
        ("l_p99_ms", |r| r.l_ms[2]),
        ("l_mean_ms", |r| r.l_ms[3]),
        ("c_p50_ms", |r| r.c_ms[0]),
        ("c_p90_ms", |r| r.c_ms[1]),
        ("c_p99_ms", |r| r.c_ms[2]),
        ("c_mean_ms", |r| r.c_ms[3]),
        ("utilisation", |r| r.util),
        ("step_share_of_l_marks", |r| r.step_share),
    ];
    d.rows_ci(&vars, &rows);
    for c in checks {
        d.emit(c);
    }
    d.note(format!(
        "dumbbell: s0 (scalable) and s1 (CUBIC, no ECN) at 400 Mbit/s (2.5 ms) → 40 Mbit/s bottleneck (5 ms one way; base RTT 20 ms) with DualPI2 at Linux's defaults (target 15 ms, tupdate 16 ms, alpha 0.16, beta 3.2, k = 2, step 1 ms, classic_protection 10%, limit 10000); {} s runs, measured after {} s; means over {runs} runs (seeds {}…), up to {cap}",
        secs(dur),
        secs(WARM),
        o.seed,
    ));
    d.note("dctcp_cubic: DCTCP on ECT(1) (tcp_dctcp.c's dctcp_ect = 1, the L4S team's tree) into the default l4s_ect classifier; dctcp_ect0_any_ect_cubic (not judged): DCTCP on ECT(0) with the classifier at any_ect (tc's data-centre setting), which the queue treats alike; prague_cubic: TCP Prague (tcp_prague.c, ECT(1)) as the scalable sender, its L queue's delay judged against the DualQ paper's abstract (its rates and windows are rows: Prague's window law is not DCTCP's 2/p)");
    d.note("rate_ratio_model: the windows' balance 1.64/k times the round trips' ratio, (20 ms + the C queue's mean sojourn) / (20 ms + the L queue's): window fairness at equal base RTTs is not rate fairness, since the classic flow's round trip carries the 15 ms target; the rates balance only where the base RTT dwarfs it");
    d.note("windows are packets in flight sampled every 1 ms; p_l = the L queue's packets sent CE-marked by it over its packets sent, p_c = the C queue's AQM drops over the packets it sent or dropped so; l_window_x_p_l and c_window_x_sqrt_p_c are the window laws' constants as measured (2 and 1.22 in the models); sojourn percentiles and means from every packet each queue sent in the window (percentiles to the histogram's 0.1%)");
    d.finish()
}
