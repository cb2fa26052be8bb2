//! `bbr-v3` — BBR v3's PROBE_RTT and bandwidth-probing clocks against the closed forms of
//! its source (Google's v3 tree `tcp_bbr.c`, docs/references.md §15.6): what changed from
//! v1 (`bbr-startup` checks v1's) is when and how deep it dips and when it probes.
//!
//! **Configuration.** One `bbr3` flow over a 100 Mbit/s bottleneck, RTT 40 ms (BDP 325
//! full-sized packets), a drop-tail buffer of 4 BDP (no loss, so no bound from loss
//! interferes), Linux 6.6 defaults, 25 s, sampled every millisecond inside the simulation
//! (BBR's mode and PROBE_BW sub-state, its estimate, cwnd, inflight, srtt). The random
//! draws are the probe waits (`bbr_pick_probe_wait`): one run per seed.
//!
//! **Closed forms** (each a check, `against` closed_form):
//! - PROBE_RTT's depth: cwnd ≤ `bbr_probe_rtt_cwnd` = max(4, ⌈BDP_est / 2⌉)
//!   (`bbr_probe_rtt_cwnd_gain` 1/2; v1: 4 packets). Against the link's BDP / 2: the
//!   estimate differs from the link by min_rtt's serialization of one packet on the
//!   bottleneck and the host links (~0.15 ms of 40, 0.4%), the rounding up (one packet of
//!   163, 0.6%) and the max filter's samples (within 1%): ±2%.
//! - PROBE_RTT's length once inflight is at that cap: the done stamp is set 200 ms
//!   (`bbr_probe_rtt_mode_ms`) ahead in jiffies and PROBE_RTT ends on the first ACK with
//!   jiffies after it, the round being much shorter: (200, 202] ms by the jiffy, + ≤ 0.3
//!   ms to that ACK (one per two segments at 8.1 kpps); each end is sampled up to 1 ms
//!   late: (199, 203.3) ms, 0.2012 s ± 0.0022 s.
//! - PROBE_RTT's cadence: `probe_rtt_min_stamp` restarts the clock at PROBE_RTT's exit
//!   and at every strictly lower RTT sample (µs samples of a path at its minimum differ
//!   by microseconds, so this happens), and PROBE_RTT begins on the first ACK 5 s
//!   (`bbr_probe_rtt_win_ms` = 5000 jiffies; v1: 10 s) after the last restart: entry −
//!   last stamp ∈ [5.001, 5.0023] s by the jiffy and the ACK, sampled up to 1 ms late:
//!   5.002 s ± 0.0015 s. The exit-to-entry gaps are rows.
//! - The wait from PROBE_BW's DOWN to the next REFILL (`bbr_check_time_to_probe_bw`): the
//!   earlier of `probe_wait_us` (2 s + U[0, 1 s)) and min(63, BDP) = 63 rounds less the
//!   0–1 rounds drawn (`bbr_bw_probe_rand_rounds`); with rounds of this path's RTT it is
//!   at most min(3 s, 64 × the largest smoothed RTT seen) (a round more for the ACK that
//!   ends one) + 2 ms (the sampling and the deciding ACK), and at least min(2 s, 62 × the
//!   smallest): the longest wait over its bound and the shortest over its floor are
//!   checks (≤ 1, ≥ 1).

use super::common::*;
use super::study::{Of, Study};
use super::{Against, Experiment, Options, Report, Tol};
use crate::cc::bbr3::{Mode, Phase};
use crate::cc::Cc;
use crate::engine::*;
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "bbr-v3",
    seed_doc: "docs/references.md §15.6 (Google's BBR v3 tcp_bbr.c)",
    about: "BBR v3 on 100 Mbit/s, 40 ms: PROBE_RTT's depth (BDP/2), length and 5 s cadence, and the 2-3 s / 63-round wait between bandwidth probes, against its source's closed forms",
    run,
};

const RATE: u64 = 100_000_000;
const RTT: SimTime = 40 * MS;
const DUR: SimTime = 25 * SEC;

/// What the run shows.
#[derive(Clone, Debug, Default)]
struct Out {
    /// PROBE_RTT episodes: (entry, time inflight reached the cap, exit) in seconds, the
    /// largest cwnd seen once at the cap, and the module's cap then.
    probe_rtt: Vec<(f64, f64, f64)>,
    /// Each PROBE_RTT entry less the PROBE_RTT clock's last restart before it (s).
    since_stamp: Vec<f64>,
    probe_rtt_cwnd: f64,
    probe_rtt_cap: f64,
    /// Waits from DOWN's start to REFILL's (s), and the smallest and largest srtt (s).
    waits: Vec<f64>,
    srtt_min: f64,
    srtt_max: f64,
    goodput_mbps: f64,
}

fn simulate(o: &Options) -> Out {
    let buffer = (4.0 * bdp_pkts(RATE, RTT)).round() as u64;
    let topo = one_hop(RATE, RTT / 2, QueueSpec::droptail(Limit::Packets(buffer)));
    let mut sc = Scenario::new("bbr-v3", topo, DUR);
    sc.seed = o.seed;
    sc.add_default_flows(&o.tcp(tcp("bbr3")));
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let mut out = Out {
        srtt_min: f64::INFINITY,
        ..Out::default()
    };
    let mut episodes = ProbeRttEpisodes::default();
    let mut down_at: Option<f64> = None;
    let mut prev = (Mode::Startup, Phase::Up);
    let mut stamp_ms = 0u32;
    let mut t = 0;
    while t < DUR {
        t += MS;
        sim.run_until(t);
        let s = &sim.tcp(0).sender;
        let Cc::Bbr3(b) = &s.cc else {
            panic!("bbr-v3 runs bbr3")
        };
        let now = secs(t);
        if b.mode == Mode::ProbeBw && s.tp.srtt_us > 0 {
            let srtt = (s.tp.srtt_us >> 3) as f64 / 1e6;
            out.srtt_min = out.srtt_min.min(srtt);
            out.srtt_max = out.srtt_max.max(srtt);
        }
        let phase = (b.mode, b.cycle_idx);
        if phase != prev && b.mode == Mode::ProbeBw {
            match b.cycle_idx {
                Phase::Down => down_at = Some(now),
                Phase::Refill => {
                    if let Some(d) = down_at.take() {
                        out.waits.push(now - d);
                    }
                }
                _ => {}
            }
        }
        if b.mode != Mode::ProbeBw {
            down_at = None; // PROBE_RTT restarts the cycle
        }
        prev = phase;
        if b.mode != Mode::ProbeRtt {
            stamp_ms = b.probe_rtt_min_stamp_ms();
        }
        let cap = b.probe_rtt_cap();
        match episodes.sample(now, b.mode == Mode::ProbeRtt, s.in_flight() <= cap) {
            EpisodeSample::Entered => out.since_stamp.push(now - stamp_ms as f64 / 1e3),
            EpisodeSample::In { at_floor: true } => {
                out.probe_rtt_cwnd = out.probe_rtt_cwnd.max(s.tp.snd_cwnd as f64);
                out.probe_rtt_cap = cap as f64;
            }
            _ => {}
        }
    }
    out.probe_rtt = episodes.done;
    out.goodput_mbps = sim.tcp(0).receiver.delivered_bytes as f64 * 8.0 / secs(DUR) / 1e6;
    out
}

const WHY_DEPTH: &str = "closed form: bbr_set_cwnd caps cwnd in PROBE_RTT at bbr_probe_rtt_cwnd = max(4, ceil(BDP_est x 1/2)); against the link's BDP/2, the estimate off by min_rtt's serialization (~0.4%), the rounding up (one packet, 0.6%) and the max filter (within 1%): ±2%";
const WHY_LENGTH: &str = "closed form: once inflight is at the cap, probe_rtt_done_stamp = now + 200 jiffies (bbr_probe_rtt_mode_ms at HZ 1000) and PROBE_RTT ends on the first ACK with jiffies after it (the round, 40 ms, ends first): (200, 202] ms + <= 0.3 ms to that ACK, each end sampled up to 1 ms late: 0.2012 s ± 0.0022 s";
const WHY_CADENCE: &str = "closed form: PROBE_RTT starts on the first ACK bbr_probe_rtt_win_ms = 5000 jiffies (v1: 10 s) after probe_rtt_min_stamp, which PROBE_RTT's exit and every strictly lower RTT restart: entry - stamp in [5.001, 5.0023] s (the jiffy, the next ACK), sampled up to 1 ms late: 5.002 s ± 0.0015 s, every episode";
const WHY_WAIT_MAX: &str = "closed form: bbr_check_time_to_probe_bw starts REFILL at the earlier of probe_wait_us (2 s + U[0,1 s), so under 3 s) and rounds_since_probe >= min(63, BDP) (63 here, + the round whose ACK decides: 64 x the largest srtt seen in PROBE_BW), + 2 ms for the sampling and the deciding ACK";
const WHY_WAIT_MIN: &str = "closed form: the same rule, no wait is shorter than min(2 s, 62 rounds) (62: one of the 0-1 rounds drawn by bbr_pick_probe_wait already counted), rounds at the smallest srtt seen";

type ClosedForm = (&'static str, f64, Tol, &'static str, fn(&Out) -> f64);

fn run(o: &Options) -> Report {
    let mut s: Study<(), Out> = Study::new("bbr-v3", o);
    let v = s.variant("bbr3_100mbit_40ms", (), 1, 1);
    let bdp = bdp_pkts(RATE, RTT);
    let table: [ClosedForm; 5] = [
        (
            "PROBE_RTT's cwnd over BDP/2",
            1.0,
            Tol::Rel(0.02),
            WHY_DEPTH,
            |r| r.probe_rtt_cwnd / (bdp_pkts(RATE, RTT) / 2.0),
        ),
        (
            "PROBE_RTT's length once inflight is at its cap (s)",
            0.2012,
            Tol::Abs(0.0022),
            WHY_LENGTH,
            |r| r.probe_rtt.first().map_or(f64::NAN, |p| p.2 - p.1),
        ),
        (
            "PROBE_RTT's start after the clock's last restart, farthest from 5.002 s (s)",
            5.002,
            Tol::Abs(0.0015),
            WHY_CADENCE,
            |r| {
                let far = |x: &f64| (x - 5.002).abs();
                let worst = r
                    .since_stamp
                    .iter()
                    .cloned()
                    .max_by(|a, b| far(a).total_cmp(&far(b)));
                worst.unwrap_or(f64::NAN)
            },
        ),
        (
            "longest wait from DOWN to REFILL over min(3 s, 64 rounds)",
            1.0,
            Tol::AtMost,
            WHY_WAIT_MAX,
            |r| {
                let m = r.waits.iter().cloned().fold(f64::NAN, f64::max);
                m / (3.0f64.min(64.0 * r.srtt_max) + 0.002)
            },
        ),
        (
            "shortest wait from DOWN to REFILL over min(2 s, 62 rounds)",
            1.0,
            Tol::AtLeast,
            WHY_WAIT_MIN,
            |r| {
                let m = r.waits.iter().cloned().fold(f64::NAN, f64::min);
                m / 2.0f64.min(62.0 * r.srtt_min)
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
    d.row(&name, "probe_rtt_cwnd_pkts", r.probe_rtt_cwnd);
    d.row(&name, "probe_rtt_cap_pkts", r.probe_rtt_cap);
    d.row(&name, "probe_rtt_episodes", r.probe_rtt.len() as f64);
    for (i, (e, at, x)) in r.probe_rtt.iter().enumerate() {
        d.row(&name, &format!("probe_rtt{}_start_s", i + 1), *e);
        d.row(&name, &format!("probe_rtt{}_at_cap_s", i + 1), *at);
        d.row(&name, &format!("probe_rtt{}_end_s", i + 1), *x);
    }
    for (i, g) in r.since_stamp.iter().enumerate() {
        d.row(&name, &format!("probe_rtt{}_after_stamp_s", i + 1), *g);
    }
    for (i, w) in r.probe_rtt.windows(2).enumerate() {
        d.row(
            &name,
            &format!("probe_rtt{}_after_exit_s", i + 2),
            w[1].0 - w[0].2,
        );
    }
    d.row(&name, "probe_waits", r.waits.len() as f64);
    for (i, w) in r.waits.iter().enumerate() {
        d.row(&name, &format!("probe_wait{}_s", i + 1), *w);
    }
    d.row(&name, "srtt_min_s", r.srtt_min);
    d.row(&name, "srtt_max_s", r.srtt_max);
    d.row(&name, "goodput_mbps", r.goodput_mbps);
    for n in checks {
        d.emit(n);
    }
    d.note(format!(
        "one BBR v3 flow, 100 Mbit/s, RTT 40 ms (BDP {bdp:.0} packets of 1538 wire bytes), drop-tail buffer of 4 BDP, 25 s, sampled every 1 ms inside the simulation; the probe waits are the random draws (seed {})",
        o.seed
    ));
    d.finish()
}
