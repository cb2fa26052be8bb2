//! `bbr-vs-cubic` — one BBR v1 flow against N CUBIC flows on one drop-tail bottleneck:
//! Ware, Mukerjee, Seshan & Sherry, "Modeling BBR's Interactions with Loss-Based
//! Congestion Control", ACM IMC 2019 (docs/references.md §15.5). Competing with
//! loss-based flows BBR is window-limited: its in-flight cap, 2 × its estimated BDP,
//! sets its share, and its min_rtt estimate (taken in PROBE_RTT, when BBR has drained
//! its own packets) includes the queue the loss-based flows keep. With the buffer X BDP
//! deep (q = X·c·l packets, c the link in packets/s, l the propagation RTT) and N_bbr BBR
//! flows holding 4 packets each in PROBE_RTT, the loss-based flows' share of the link is
//!   p = max(0, 1/2 − 1/(2X) − 4·N_bbr/q)                                   (paper eq. 9)
//! and BBR, which sends almost nothing while it waits in PROBE_RTT for the full queue to
//! drain (q/c), then 200 ms and a round (l), once every 10 s, gets
//!   share = (1 − p) · (1 − (q/c + 0.2 s + l)/10 s)                     (eqs. 10–11)
//! The number of loss-based flows appears nowhere: the paper's second finding is that
//! BBR's share does not depend on it.
//!
//! **Configuration** (the paper's network, as the reproduction notebook of Fund et al.
//! sets it up, docs/references.md §15.5): 10 Mbit/s, 40 ms propagation RTT, a drop-tail
//! buffer of X BDP (X = 1, 4, 8, 16, 32; BDP 32.5 packets of 1538 bytes on the wire),
//! flows of 240 s, all started at t = 0; one BBR flow and N = 1, 2, 4 CUBIC flows, each on
//! its own access link (100 Mbit/s), Linux 6.6 defaults otherwise.
//!
//! **Measurement.** Each flow's goodput from its receiver's in-order bytes between the
//! window's start and the end; BBR's share = its bytes over all flows' (the model's
//! "fraction of the link"). The window starts after the model's own transient: two
//! min_rtt windows (2 × 10 s; the first PROBE_RTT at 10 s replaces the empty-path
//! min_rtt of the start with one over the CUBIC queue, the next confirms it) plus
//! BBR's bandwidth filter, 10 rounds at the full queue's RTT (1 + X)·l — 20.8 s at X = 1,
//! 33.2 s at X = 32.
//!
//! **Checks** (`Against::Published`):
//! - the model's accuracy as the paper states it: "the model predicts BBR's throughput
//!   against Cubic with a median error of 5%" (Ware's CMU CSD blog restatement, §15.5):
//!   the median over the full run's 15 configurations of |share − model|/model ≤ 0.05.
//!   Its interval: the median of the per-configuration lower and upper ends (the median
//!   is monotone in each value). Full run only: --quick runs fewer configurations, and a
//!   median over others is another judgment.
//! - the N-independence: at each X, BBR's share against 4 CUBIC flows over its share
//!   against 1 is 1, within ±10%: each share carries the model's stated 5% (median)
//!   error, and the ratio of two such shares the sum. --quick judges it at X = 8 in the
//!   same configuration (runs and cap) as the full run.
//!
//! **Cause configuration** (`_long`, rows only, full run): the same cases with flows of
//! 1200 s, measured over their second half. CUBIC squeezes BBR during the first seconds
//! (its bandwidth estimate falls with its delivery rate) and in deep buffers BBR's
//! estimate climbs back for minutes — at X = 32 it still rises at 240 s — while the
//! model's d is the time after convergence. `all_long median_rel_error` is the check's
//! statistic over them.
//!
//! **What the first full run found** (`cclab reproduce bbr-vs-cubic`, seed 1): the number
//! of CUBIC flows hardly moves BBR's share (ratio 0.90–0.97 at X = 1…16, within the 10%;
//! 0.81 ± 0.19 at X = 32, unresolved), but the share is under the model's at every X:
//! 0.92 vs 0.97 at X = 1, 0.50 vs 0.63 at X = 4, 0.47 vs 0.55 at X = 8, 0.40 vs 0.49 at
//! X = 16, 0.26 vs 0.44 at X = 32 (N = 1); median error 0.21 (FAIL). With 1200-s flows the
//! deep buffers come closer (X = 32: 0.40; X = 16: 0.45) and the median error is 0.12:
//! convergence explains part of the miss, not the rest. BBR's min_rtt estimate, averaged
//! over the window (row `bbr_min_rtt_ms`), is the model's eq. 7 within 7% at X ≤ 8 and,
//! in the long runs, at X = 16 (11% at X = 32; 30–39% above it in the 240-s runs at
//! X = 32): the in-flight cap's RTT term is as modelled. What the
//! model assumes and the runs do not show: that BBR is window-limited — its cwnd limits
//! it (in flight within one send quantum, `tso_goal`, of cwnd) in only 19–45% of the
//! window's 100-ms samples (row `bbr_cwnd_limited_frac`, PROBE_RTT included); the rest of
//! the time its pacing rate, its bandwidth estimate, does — and that the queue is full:
//! the mean queue is 77–88% of the buffer (rows `queue_pkts`, `buffer_pkts`). Which of
//! the two (or something in cclab's BBR or CUBIC) makes the gap is left open: no
//! configuration here isolates it.
//!
//! Runs: CUBIC against BBR is noisy (BBR's random starting gain phase, the loss
//! pattern), so 3 seeds per configuration, up to 6 while a check's interval is as wide as
//! its band. --quick: X = 8 with N = 1 and 4 only.

use super::common::{mean_queue_after, median, tcp, wire_bytes, MeanCi};
use super::study::{Of, Runs, Study, V};
use super::{fmt_num, Against, Experiment, Options, Report, Tol};
use crate::cc::Cc;
use crate::engine::*;
use crate::scenario::*;
use crate::sim::Sim;

pub const EXPERIMENT: Experiment = Experiment {
    name: "bbr-vs-cubic",
    seed_doc: "docs/references.md §15.5 (Ware et al. 2019)",
    about: "1 BBR v1 flow vs 1-4 CUBIC flows on 10 Mbit/s, 40 ms, drop-tail 1-32 BDP: BBR's share from its in-flight cap (Ware et al.'s model), whatever the number of CUBIC flows",
    run,
};

const RATE: u64 = 10_000_000;
const RTT: SimTime = 40 * MS;
const MTU: u32 = 1500;
const BOTTLENECK_DELAY: SimTime = 5 * MS;
const DUR: SimTime = 240 * SEC;
/// BBR flows: the model's N.
const N_BBR: f64 = 1.0;
/// Queue samples.
const SAMPLE: SimTime = 10 * MS;

#[derive(Clone, Copy, Debug)]
struct Case {
    /// The buffer in BDPs.
    x: f64,
    /// CUBIC flows.
    n: usize,
    /// The cause configuration: flows of `LONG`, measured over their second half.
    long: bool,
}

/// The cause configuration's flows (module doc): five times the paper's.
const LONG: SimTime = 1200 * SEC;

impl Case {
    fn dur(&self) -> SimTime {
        if self.long {
            LONG
        } else {
            DUR
        }
    }

    /// When the window opens (module doc).
    fn warm(&self) -> SimTime {
        if self.long {
            LONG / 2
        } else {
            warm(self.x)
        }
    }
}

/// The link in packets per second (1538 bytes on the wire each).
fn pkts_per_s() -> f64 {
    RATE as f64 / (8.0 * wire_bytes(MTU) as f64)
}

/// The buffer in packets: X BDPs, rounded.
fn buffer_pkts(x: f64) -> u64 {
    (x * pkts_per_s() * secs(RTT)).round() as u64
}

/// The model (module doc): the loss-based flows' share p (eq. 9) and BBR's share (eqs.
/// 10–11), with the buffer as configured (whole packets).
fn model(x: f64) -> (f64, f64) {
    let c = pkts_per_s();
    let l = secs(RTT);
    let q = buffer_pkts(x) as f64;
    let x = q / (c * l);
    let p = (0.5 - 1.0 / (2.0 * x) - 4.0 * N_BBR / q).max(0.0);
    let probe = (q / c + 0.2 + l) / 10.0;
    (p, (1.0 - p) * (1.0 - probe))
}

/// When the window opens (module doc).
fn warm(x: f64) -> SimTime {
    let s = 20.0 + 10.0 * (1.0 + x) * secs(RTT);
    (s * 1e3).ceil() as SimTime * MS
}

#[derive(Clone, Debug)]
struct Out {
    /// Goodput in the window, Mbit/s: BBR's, then each CUBIC flow's.
    mbps: Vec<f64>,
    /// BBR's share of all flows' bytes in the window.
    share: f64,
    /// Mean queue in the window, packets.
    queue: f64,
    /// BBR's min_rtt estimate, ms: its mean over the window.
    bbr_min_rtt_ms: f64,
    /// The fraction of the window's samples in which BBR's cwnd limits it.
    cwnd_limited: f64,
    /// Retransmits over the run: BBR's, all CUBIC flows'.
    bbr_retx: u64,
    cubic_retx: u64,
}

fn simulate(o: &Options, c: &Case, seed: u64) -> Out {
    let senders = 1 + c.n;
    let access = (RTT / 2 - BOTTLENECK_DELAY) / 2;
    let topo = TopologySpec::Dumbbell {
        senders,
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: RATE,
            delay: BOTTLENECK_DELAY,
            queue: QueueSpec::droptail(Limit::Packets(buffer_pkts(c.x))),
        },
        access_rate_bps: 10 * RATE,
        access_delay: vec![access; senders],
        access_queue: QueueSpec::droptail(Limit::Packets(10_000)),
    };
    let dur = c.dur();
    let mut sc = Scenario::new("bbr-vs-cubic", topo, dur);
    sc.seed = seed;
    for i in 0..senders {
        let cc = if i == 0 { "bbr" } else { "cubic" };
        sc.add_flow(&format!("s{i}"), &format!("r{i}"), tcp(cc));
    }
    sc.output.queue_interval = Some(SAMPLE);
    sc.output.queues = vec!["bottleneck".into()];
    o.prepare(&mut sc);
    let mut sim = Sim::new(&sc).expect("valid scenario");
    let w = c.warm();
    sim.run_until(w);
    let at: Vec<u64> = (0..senders)
        .map(|i| sim.tcp(i).receiver.delivered_bytes)
        .collect();
    // BBR's min_rtt estimate, and whether its cwnd limits it (what it has in flight is
    // within one send quantum, `tso_goal` packets, of its cwnd), every 100 ms in the window.
    let (mut rtt_sum, mut limited, mut k) = (0.0, 0.0, 0.0);
    let mut t = w;
    while t < dur {
        t = (t + 100 * MS).min(dur);
        sim.run_until(t);
        let snd = &sim.tcp(0).sender;
        if let Cc::Bbr(b) = &snd.cc {
            rtt_sum += b.min_rtt_us as f64 / 1e3;
            if snd.in_flight() + b.tso_goal(&snd.tp) >= snd.tp.snd_cwnd {
                limited += 1.0;
            }
            k += 1.0;
        }
    }
    let bytes: Vec<f64> = (0..senders)
        .map(|i| (sim.tcp(i).receiver.delivered_bytes - at[i]) as f64)
        .collect();
    let window_s = secs(dur - w);
    let bbr_min_rtt_ms = rtt_sum / k;
    let cwnd_limited = limited / k;
    let res = sim.results();
    Out {
        mbps: bytes.iter().map(|b| b * 8.0 / window_s / 1e6).collect(),
        share: bytes[0] / bytes.iter().sum::<f64>(),
        queue: mean_queue_after(&res, secs(w)),
        bbr_min_rtt_ms,
        cwnd_limited,
        bbr_retx: res.flows[0].retransmits,
        cubic_retx: res.flows.iter().skip(1).map(|f| f.retransmits).sum(),
    }
}

const MEDIAN_WHY: &str = "docs/references.md §15.5: Ware et al. state that the model predicts BBR's throughput against Cubic with a median error of 5% over their testbed's configurations; the same statistic over this run's configurations (X = 1…32 BDP, N = 1, 2, 4), each configuration's relative error |share − model|/model";
const RATIO_WHY: &str = "docs/references.md §15.5: the model's BBR share has no term in the number of loss-based flows (its finding 2), so the share against 4 CUBIC flows equals that against 1; each share carries the model's stated error of 5% (a median), the ratio of the two their sum: within ±10%";

/// A ratio of two means with its interval (the relative halves add).
fn ratio(a: MeanCi, b: MeanCi) -> MeanCi {
    let mean = a.mean / b.mean;
    MeanCi {
        mean,
        half: mean * (a.half / a.mean + b.half / b.mean),
        n: a.n.min(b.n),
    }
}

/// The median of the configurations' relative errors, its interval from the medians of
/// their lower and upper ends (the median is monotone in each value).
fn median_error(r: &Runs<Out>, vars: &[(V, f64)]) -> MeanCi {
    let (mut mid, mut lo, mut hi) = (vec![], vec![], vec![]);
    for &(v, m) in vars {
        let s = r.mean(v, |o| o.share);
        let e = (s.mean - m).abs() / m;
        mid.push(e);
        lo.push(((s.mean - m).abs() - s.half).max(0.0) / m);
        hi.push(((s.mean - m).abs() + s.half) / m);
    }
    let m = median(&mid);
    MeanCi {
        mean: m,
        half: (m - median(&lo)).max(median(&hi) - m),
        n: vars.iter().map(|&(v, _)| r.of(v).len()).min().unwrap_or(0),
    }
}

fn run(o: &Options) -> Report {
    let xs: &[f64] = if o.quick {
        &[8.0]
    } else {
        &[1.0, 4.0, 8.0, 16.0, 32.0]
    };
    let ns: &[usize] = if o.quick { &[1, 4] } else { &[1, 2, 4] };
    let (runs, cap) = (3, 6);
    let mut s: Study<Case, Out> = Study::new("bbr-vs-cubic", o);
    let mut vars = vec![];
    for &x in xs {
        for &n in ns {
            let c = Case { x, n, long: false };
            vars.push((s.variant(&format!("x{x}_n{n}"), c, runs, cap), c));
        }
    }
    // The cause configuration, rows only (module doc): the full run.
    let mut long = vec![];
    if !o.quick {
        for &x in xs {
            for &n in ns {
                let c = Case { x, n, long: true };
                long.push((s.variant(&format!("x{x}_n{n}_long"), c, runs, runs), c));
            }
        }
    }
    let find = |x: f64, n: usize| {
        vars.iter()
            .find(|t| t.1.x == x && t.1.n == n)
            .expect("a case")
            .0
    };
    let mut checks = vec![];
    for &x in xs {
        let (v1, v4) = (find(x, 1), find(x, 4));
        checks.push(s.check(
            &format!("x{x}: bbr share vs 4 cubic / vs 1 cubic"),
            Against::Published,
            1.0,
            Tol::Rel(0.10),
            RATIO_WHY,
            Of::with(&[v1, v4], move |r| {
                ratio(r.mean(v4, |o: &Out| o.share), r.mean(v1, |o: &Out| o.share))
            }),
        ));
    }
    let with_model = |vs: &[(V, Case)]| -> Vec<(V, f64)> {
        vs.iter().map(|&(v, c)| (v, model(c.x).1)).collect()
    };
    if !o.quick {
        let all = with_model(&vars);
        let uses: Vec<V> = all.iter().map(|t| t.0).collect();
        checks.push(s.check(
            "median over configurations of |bbr share - model| / model",
            Against::Published,
            0.05,
            Tol::AtMost,
            MEDIAN_WHY,
            Of::with(&uses, move |r| median_error(r, &all)),
        ));
    }
    let mut d = s.run(|c, seed| simulate(o, c, seed));
    for &(v, c) in vars.iter().chain(&long) {
        let name = d.name(v).to_string();
        let (p, m) = model(c.x);
        let share = d.mean(v, |o| o.share);
        d.row_ci(&name, "bbr_share", share);
        d.row(&name, "model_share", m);
        d.row(&name, "model_share_no_probe_rtt", 1.0 - p);
        d.row(&name, "rel_error", (share.mean - m).abs() / m);
        let mut cols: Vec<(String, MeanCi)> = vec![("bbr_mbps".into(), d.mean(v, |o| o.mbps[0]))];
        for i in 1..=c.n {
            cols.push((format!("cubic{i}_mbps"), d.mean(v, |o| o.mbps[i])));
        }
        cols.push(("queue_pkts".into(), d.mean(v, |o| o.queue)));
        cols.push(("bbr_min_rtt_ms".into(), d.mean(v, |o| o.bbr_min_rtt_ms)));
        cols.push((
            "bbr_cwnd_limited_frac".into(),
            d.mean(v, |o| o.cwnd_limited),
        ));
        cols.push(("bbr_retransmits".into(), d.mean(v, |o| o.bbr_retx as f64)));
        cols.push((
            "cubic_retransmits".into(),
            d.mean(v, |o| o.cubic_retx as f64),
        ));
        for (metric, x) in cols {
            d.row_ci(&name, &metric, x);
        }
        d.row(&name, "buffer_pkts", buffer_pkts(c.x) as f64);
        // The model's RTT estimate, (p·q + 4·N_bbr)/c + l (eq. 7).
        let q = buffer_pkts(c.x) as f64;
        d.row(
            &name,
            "model_min_rtt_ms",
            ((p * q + 4.0 * N_BBR) / pkts_per_s() + secs(RTT)) * 1e3,
        );
        d.row(&name, "window_start_s", secs(c.warm()));
    }
    if !long.is_empty() {
        let long_err = median_error(d.all_runs(), &with_model(&long));
        d.row_ci("all_long", "median_rel_error", long_err);
    }
    for n in checks {
        d.emit(n);
    }
    d.note(format!(
        "a dumbbell: {} Mbit/s bottleneck ({} packets/s of {} bytes on the wire), RTT {} ms, drop-tail of X BDP (row buffer_pkts), 100 Mbit/s access links; 1 BBR and N CUBIC flows from t = 0 for {} s; goodput and share over the window from window_start_s to the end; means over {runs} runs (seeds {}…), up to {cap} while a check's interval is as wide as its band",
        RATE / 1_000_000,
        fmt_num(pkts_per_s()),
        wire_bytes(MTU),
        RTT / MS,
        DUR / SEC,
        o.seed,
    ));
    d.note("model_share: Ware et al.'s (1 − p)·(1 − (q/c + 0.2 + l)/10) with p = max(0, 1/2 − 1/(2X) − 4/q) (docs/references.md §15.5); model_share_no_probe_rtt: 1 − p; model_min_rtt_ms: the model's RTT estimate (p·q + 4)/c + l");
    if !long.is_empty() {
        d.note(format!(
            "_long: the cause configuration, rows only: flows of {} s measured over their second half (BBR's bandwidth estimate, squeezed by CUBIC during the first seconds, climbs back for minutes in deep buffers, so the 240-s flows' window holds part of the transient the model leaves out: its d is the time after convergence); all_long median_rel_error: the check's statistic over them",
            LONG / SEC
        ));
    }
    d.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model by hand at X = 8: q = 260 packets, c = 812.7 packets/s, l = 40 ms:
    /// p = 0.5 − 0.0625 − 4/260 = 0.4221, ProbeRTT (0.3199 + 0.24)/10 = 0.0560, share
    /// 0.5779 · 0.9440 = 0.5456.
    #[test]
    fn model_by_hand() {
        assert_eq!(buffer_pkts(8.0), 260);
        let (p, s) = model(8.0);
        assert!((p - 0.4221).abs() < 1e-3, "{p}");
        assert!((s - 0.5456).abs() < 1e-3, "{s}");
        // X = 1: BBR's cap exceeds the BDP and the queue, p = 0.
        assert_eq!(model(1.0).0, 0.0);
    }
}
