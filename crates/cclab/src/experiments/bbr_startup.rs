//! `bbr-startup` — BBR v1's start and its PROBE_RTT, against the closed forms of the
//! algorithm (Linux `tcp_bbr.c`, docs/references.md §15.1) and the article's description
//! (Cardwell et al., ACM Queue 2016, docs/references.md §15.4: "STARTUP implements a binary
//! search for BtlBw by using a gain of 2/ln2 to double the sending rate while delivery rate
//! is increasing. This discovers BtlBw in log2(BDP) RTTs but creates up to 2BDP excess
//! queue in the process"; DRAIN then removes that queue; PROBE_RTT every 10 s for 200 ms
//! at 4 packets) *[memory for the article's words; source for the constants]*.
//!
//! **Configuration.** One BBR flow over a 100 Mbit/s bottleneck, RTT 40 ms (BDP 325
//! full-sized packets on the wire), a drop-tail buffer of 4 BDP so STARTUP's queue is never
//! cut by loss, Linux 6.6 defaults, 25 s (two PROBE_RTT episodes). The run is sampled every
//! millisecond in the simulation itself (BBR's mode, its bandwidth estimate and round
//! count, cwnd, inflight, the bottleneck's queue), nothing random but PROBE_BW's starting
//! phase: one run.
//!
//! **Closed forms** (each a check, `against` closed_form):
//! - Rounds until the bandwidth estimate reaches the link: cwnd grows by what is acked
//!   (doubling each round from the initial window of 10), and a round's sample arrives at
//!   its end, so the estimate reaches the link rate in round ⌈log2(BDP/IW)⌉ + 1 (counted by
//!   BBR's own `rtt_cnt`). The article's "log2(BDP) RTTs" counts from one packet; from 10
//!   packets it is this. Tolerance ±1 round: the doubling is exact only per whole round.
//! - STARTUP's queue: its cwnd is capped at high_gain × the BDP of its own estimate plus
//!   the TSO budget (3 × tso_segs_goal, rounded up to even), and the path holds one BDP,
//!   so the queue it builds is at most that cap − BDP (+1 packet of rounding): about
//!   (2.885 − 1) · BDP + 3 · goal. The article's "up to 2BDP" is a row: with the budget
//!   (0.2 BDP here) the queue is a little over 2 BDP.
//! - DRAIN exits when the packets in the network fall to one BDP plus the TSO budget
//!   (`bbr_check_drain`): the queue at the first PROBE_BW sample is at most 3 ·
//!   tso_segs_goal + 2 packets.
//! - PROBE_RTT's depth: cwnd 4 packets (`bbr_cwnd_min_target`), exactly.
//! - PROBE_RTT's length once inflight is down to 4: max(200 ms, one round), ended by the
//!   first ACK after it: 200 ms + [0, half an RTT] (ACKs of 4 packets in flight, one per two
//!   segments, are half an RTT apart): 0.21 s ± 0.01 s at 40 ms.
//! - PROBE_RTT's cadence: min_rtt's stamp is set when PROBE_RTT ends, and the next begins
//!   on the first ACK 10 s (10,000 jiffies at HZ 1000) later: next entry − exit = 10 s,
//!   within 2 ms (one jiffy and the next ACK).

use super::common::*;
use super::study::{Of, Study};
use super::{Against, Experiment, Options, Report, Tol};
use crate::cc::bbr::Mode;
use crate::cc::Cc;
use crate::engine::*;
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "bbr-startup",
    seed_doc: "docs/references.md §15.1, §15.4 (tcp_bbr.c, Cardwell 2016)",
    about: "BBR v1 on 100 Mbit/s, 40 ms: rounds to find the bandwidth, STARTUP's queue, DRAIN, PROBE_RTT's depth, length and 10 s cadence against the algorithm's closed forms",
    run,
};

const RATE: u64 = 100_000_000;
const RTT: SimTime = 40 * MS;
const IW: f64 = 10.0;
const DUR: SimTime = 25 * SEC;

/// What the run shows.
#[derive(Clone, Debug, Default)]
struct Out {
    /// BBR's round count when its estimate first reached 95% of the link's packet rate.
    rounds_to_bw: f64,
    /// The largest queue (packets) before DRAIN ended, and its bound.
    startup_queue: f64,
    startup_bound: f64,
    /// The queue at the first PROBE_BW sample, and DRAIN's exit bound.
    drained_queue: f64,
    drain_bound: f64,
    /// PROBE_RTT episodes: (entry, time inflight reached 4, exit) in seconds, and the
    /// largest cwnd seen in them.
    probe_rtt: Vec<(f64, f64, f64)>,
    probe_rtt_cwnd: f64,
    goodput_mbps: f64,
}

fn simulate(o: &Options) -> Out {
    let buffer = (4.0 * bdp_pkts(RATE, RTT)).round() as u64;
    let topo = one_hop(RATE, RTT / 2, QueueSpec::droptail(Limit::Packets(buffer)));
    let mut sc = Scenario::new("bbr-startup", topo, DUR);
    sc.seed = o.seed;
    sc.add_default_flows(&o.tcp(tcp("bbr")));
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let port = sim.net.port_by_name("hop0").expect("the bottleneck");
    let mut out = Out::default();
    let mut reached = false;
    let mut drained = false;
    let mut episodes = ProbeRttEpisodes::default();
    let mss = crate::tcp::sender::payload_mss(1500) as f64;
    let mut t = 0;
    while t < DUR {
        t += MS;
        sim.run_until(t);
        let s = &sim.tcp(0).sender;
        let Cc::Bbr(b) = &s.cc else {
            panic!("bbr-startup runs bbr")
        };
        let q = sim.net.port(port).backlog().pkts as f64;
        let now = secs(t);
        // The estimate in packets per second (`bw_bps` is payload bits).
        let bw_pps = b.bw_bps(&s.tp) / (8.0 * mss);
        if !reached && bw_pps >= 0.95 * link_pps(RATE) {
            reached = true;
            out.rounds_to_bw = b.rtt_cnt as f64;
        }
        if !drained {
            out.startup_queue = out.startup_queue.max(q);
            if matches!(b.mode, Mode::ProbeBw) {
                drained = true;
                out.drained_queue = q;
                out.drain_bound = 3.0 * b.tso_goal(&s.tp) as f64 + 2.0;
            }
        }
        if matches!(b.mode, Mode::Startup) {
            // STARTUP's cwnd cap (high_gain × the estimate's BDP + the TSO budget) less
            // what the path holds, plus one packet of rounding.
            let cap = b.target_cwnd(&s.tp) as f64 - bdp_pkts(RATE, RTT) + 1.0;
            out.startup_bound = out.startup_bound.max(cap);
        }
        let in_probe_rtt = matches!(b.mode, Mode::ProbeRtt);
        if let EpisodeSample::In { .. } = episodes.sample(now, in_probe_rtt, s.in_flight() <= 4) {
            out.probe_rtt_cwnd = out.probe_rtt_cwnd.max(s.tp.snd_cwnd as f64);
        }
    }
    out.probe_rtt = episodes.done;
    out.goodput_mbps = sim.tcp(0).receiver.delivered_bytes as f64 * 8.0 / secs(DUR) / 1e6;
    out
}

const WHY_ROUNDS: &str = "closed form: cwnd doubles per round from IW = 10 and a round's sample arrives at its end, so the estimate reaches the link in round ceil(log2(BDP/IW)) + 1 (the article's 'log2(BDP) RTTs' from one packet); ±1 round, the doubling being exact only per whole round";
const WHY_STARTUP_Q: &str = "closed form: STARTUP's cwnd is capped at bbr_set_cwnd's target, high_gain x the BDP of BBR's own estimate + 3 x tso_segs_goal rounded to even, and the path holds one BDP (rate x RTT), so its queue is at most target - BDP (+1 packet of rounding), evaluated at every STARTUP sample";
const WHY_DRAINED: &str = "closed form: bbr_check_drain leaves DRAIN once the packets in the network are at most BDP + 3 x tso_segs_goal (rounded to even), so the queue then is at most 3 x goal + 2 packets";
const WHY_DEPTH: &str =
    "closed form: bbr_set_cwnd caps cwnd at bbr_cwnd_min_target = 4 packets in PROBE_RTT, exactly";
const WHY_LENGTH: &str = "closed form: max(bbr_probe_rtt_mode_ms = 200 ms, one round) once inflight is 4, ended by the first ACK after the stamp; with 4 packets in flight and an ACK per two segments ACKs come half an RTT apart: 200 ms + [0, 20 ms] at RTT 40 ms, so 0.21 s ± 0.01 s";
const WHY_CADENCE: &str = "closed form: PROBE_RTT's exit stamps min_rtt (bbr_check_probe_rtt_done), and the filter expires 10 s (10,000 jiffies at HZ 1000) later, on the first ACK after that: next entry - exit = 10 s within 2 ms (one jiffy and the next ACK)";

/// A check: its name, the closed form's value, the tolerance, why, and the run's value.
type ClosedForm = (&'static str, f64, Tol, &'static str, fn(&Out) -> f64);

fn run(o: &Options) -> Report {
    let mut s: Study<(), Out> = Study::new("bbr-startup", o);
    let v = s.variant("bbr_100mbit_40ms", (), 1, 1);
    let bdp = bdp_pkts(RATE, RTT);
    let rounds = (bdp / IW).log2().ceil() + 1.0;
    let table: [ClosedForm; 6] = [
        (
            "rounds until the estimate reaches the link",
            rounds,
            Tol::Abs(1.0),
            WHY_ROUNDS,
            |r| r.rounds_to_bw,
        ),
        (
            "STARTUP's peak queue over its bound (packets)",
            1.0,
            Tol::AtMost,
            WHY_STARTUP_Q,
            |r| r.startup_queue / r.startup_bound,
        ),
        (
            "queue when DRAIN ends over its bound (packets)",
            1.0,
            Tol::AtMost,
            WHY_DRAINED,
            |r| r.drained_queue / r.drain_bound,
        ),
        (
            "PROBE_RTT's cwnd (packets)",
            4.0,
            Tol::Abs(0.0),
            WHY_DEPTH,
            |r| r.probe_rtt_cwnd,
        ),
        (
            "PROBE_RTT's length once inflight is 4 (s)",
            0.21,
            Tol::Abs(0.01),
            WHY_LENGTH,
            |r| r.probe_rtt.first().map_or(f64::NAN, |p| p.2 - p.1),
        ),
        (
            "from a PROBE_RTT's end to the next's start (s)",
            10.0,
            Tol::Abs(0.002),
            WHY_CADENCE,
            |r| match r.probe_rtt.as_slice() {
                [a, b, ..] => b.0 - a.2,
                _ => f64::NAN,
            },
        ),
    ];
    let checks: Vec<_> = table
        .into_iter()
        .map(|(name, want, tol, why, get)| {
            s.check(name, Against::ClosedForm, want, tol, why, Of::mean(v, get))
        })
        .collect();
    let mut d = s.run(|_, _| simulate(o));
    let r = d.first(v).clone();
    let name = d.name(v).to_string();
    d.row(&name, "bdp_pkts", bdp);
    d.row(&name, "rounds_closed_form", rounds);
    d.row(&name, "rounds_to_bw", r.rounds_to_bw);
    d.row(&name, "startup_queue_pkts", r.startup_queue);
    d.row(&name, "startup_queue_bound_pkts", r.startup_bound);
    d.row(&name, "startup_queue_bdp", r.startup_queue / bdp);
    d.row(&name, "drained_queue_pkts", r.drained_queue);
    d.row(&name, "probe_rtt_episodes", r.probe_rtt.len() as f64);
    for (i, (e, four, x)) in r.probe_rtt.iter().enumerate() {
        d.row(&name, &format!("probe_rtt{}_start_s", i + 1), *e);
        d.row(&name, &format!("probe_rtt{}_at_4_s", i + 1), *four);
        d.row(&name, &format!("probe_rtt{}_end_s", i + 1), *x);
    }
    d.row(&name, "goodput_mbps", r.goodput_mbps);
    for n in checks {
        d.emit(n);
    }
    d.note("startup_queue_bdp: the article's 'up to 2BDP excess queue' (a row, not a check: the article rounds; the queue also holds the TSO budget, 3 x tso_segs_goal, about 0.2 BDP at this rate)");
    d.note(format!(
        "one BBR flow, 100 Mbit/s, RTT 40 ms (BDP {bdp:.0} packets of 1538 wire bytes), drop-tail buffer of 4 BDP, 25 s, sampled every 1 ms inside the simulation; PROBE_BW's starting phase is the only random draw (seed {})",
        o.seed
    ));
    d.finish()
}
