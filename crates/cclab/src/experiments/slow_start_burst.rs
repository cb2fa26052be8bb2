//! `slow-start-burst` — seed 001 slides 11, 19 and 20: "Slow start makes burst … send whole
//! window burstly at the beginning of every RTT … packet loss occurs even though huge idle
//! period … packets sent in 20 ms, nothing happen in 180 ms"; and Clustered Packet Spacing
//! in Linux 2.6: "rate control while cwnd/RTT > 1 ms … split burst into 200 small bursts
//! … each small burst is limited up to 80 packets", "CPS can make cwnd bigger when initial
//! slow start".
//!
//! Set-up (slide 16's lab): the sender's GbE NIC (1 Gbit/s, 1 ms) → router → a 596 Mbit/s
//! bottleneck of 99 ms → receiver, so 200 ms RTT. The slides do not give the bottleneck's
//! buffer; their 20 ms fixes it: a round sent at the line rate R into the bottleneck C
//! from an empty queue fills it at R − C, so a drop after 20 ms of sending means
//! B = 20 ms × (R − C) = 1.01 MB. We use B = 1,000,000 bytes, so the 20 ms is an input
//! here and what is tested is everything that follows from it. TCP: Reno with SACK (the
//! Linux 2.4/2.6 of 2002–2003; BIC became 2.6's default only in 2.6.8), large socket
//! buffers, the era's stack (below). Variants: TCP as it is, and CPS with a 1 ms timer (Linux 2.6) and clusters of
//! at most 80 packets (`tcp/sender/spacing.rs` states each rule reconstructed).
//!
//! Measured from the sender's time-sequence trace: the first lost segment (the first one
//! retransmitted) and the round it was sent in (a round is what is sent between two
//! silences longer than 10 ms: unpaced slow start is silent most of each RTT).
//!
//! **Seed configuration**: the lab above with TCP as it is (`unpaced`) for slide 11, and
//! with CPS (`cps_1ms_80`) for slides 19–20; one run each (the flow is alone on its path;
//! a seed moves only the hosts' jitter). The seed's claims judged: slide 11's loss while
//! the bottleneck is mostly idle, and slide 20's bigger cwnd with CPS and its losses of
//! unpaced slow start that fast retransmit does not repair (a timeout). Slide 11's 20 ms
//! (an input: B is set from it), its 180 ms (the RTT less the 20 ms) and slide 19's 200
//! bursts of at most 80 packets (CPS's configuration) are model checks, not reproductions.
//! No cause run is declared: each claim is judged in the seed configuration alone.
//!
//! **Era.** CPS is a change to "the TCP stack of Linux 2.6" with 2.6's 1 ms timer (slides
//! 17 and 19; the SC2003 nodes ran Linux): the kernels of 2003, 2.6.0 and its
//! test releases. Every variant runs `linux = "2.6"` (docs/linux-eras.md; 2.6.9, the
//! nearest profile) with the experiment's buffers: RFC 3390's initial window (3 segments
//! at MSS 1448), cwnd counted per ACK, 2 quick ACKs, a receive window opened from 4
//! segments, FACK and D-SACK, rate halving in recovery, no F-RTO, no tail loss probe, no
//! RACK, the initial RTO 3 s. What 2.6.0–2.6.6 lacked of 2.6.9 the profile leaves off
//! (receive autotuning, 2.6.7). Slide 11's unpaced trace may be 2.4's (slide 17 names its
//! 10 ms timer); what the profile sets is 2.4.22's too (`net/ipv4/tcp_input.c`: FACK,
//! D-SACK, no F-RTO, the same `tcp_cwnd_down`), except its initial window of 2 segments
//! before the first RTT sample, not modelled.

use super::common::*;
use super::study::{Of, Study};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::report::svg::{self, Line, Plot};
use crate::results::RunResult;
use crate::scenario::*;
use crate::tcp::Spacing;

pub const EXPERIMENT: Experiment = Experiment {
    name: "slow-start-burst",
    seed_doc: "001 slides 11, 19, 20",
    about: "Slow start at 200 ms RTT into a shallow 596 Mbit/s bottleneck: the window in ~20 ms bursts and early loss, vs Clustered Packet Spacing",
    run,
};

/// Line rate of the sender's NIC and the bottleneck (slide 16), bit/s.
const R: u64 = 1_000_000_000;
const C: u64 = 596_000_000;
/// The bottleneck buffer, bytes (from slide 11's 20 ms, see above).
const B: u64 = 1_000_000;
const RTT: SimTime = 200 * MS;
/// A silence longer than this separates two rounds.
const GAP: SimTime = 10 * MS;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    Unpaced,
    Cps,
}

impl Variant {
    fn label(self) -> &'static str {
        match self {
            Variant::Unpaced => "unpaced",
            Variant::Cps => "cps_1ms_80",
        }
    }
}

fn scenario(v: Variant, dur: SimTime, seed: u64, o: &Options) -> Scenario {
    let topo = lfn_lab(Limit::Packets(1000), C, B);
    let mut sc = Scenario::new("slow-start-burst", topo, dur);
    sc.seed = seed;
    let mut t = tcp("reno");
    // The seed's Linux 2.6 (module doc), with the experiment's buffers.
    crate::tcp::config::set_era(
        &mut t,
        crate::tcp::era::Era::Linux2_6,
        &["sndbuf", "rcvbuf"],
    );
    if v == Variant::Cps {
        t.spacing = Spacing::Cps {
            tick: MS,
            max_cluster: 80,
        };
    }
    sc.add_flow("src", "dst", t);
    sc.output.tsg = vec![0];
    sc.output.cwnd_interval = Some(5 * MS);
    sc.output.queue_interval = Some(MS);
    sc.output.queues = vec!["hop1".into()];
    o.prepare(&mut sc);
    sc
}

/// What one run's trace shows.
#[derive(Clone)]
struct Outcome {
    result: RunResult,
    /// Send time of the first segment later retransmitted, seconds (None: no loss).
    t_loss: Option<f64>,
    /// Segments of the loss's round sent before the lost one (unpaced: the round starts
    /// after the last silence > GAP).
    before_loss: u64,
    /// Segments sent in the RTT up to the loss (the window in flight at the loss).
    window_at_loss: u64,
    /// The loss round's sending time and the silence after it, seconds.
    burst_s: f64,
    idle_s: f64,
    /// Before the loss: the most 1 ms ticks that sent something within one RTT, and the
    /// largest cluster (a run of segments less than 100 µs apart), segments.
    clusters_per_rtt: u64,
    max_cluster: u64,
}

fn run_one(v: Variant, dur: SimTime, seed: u64, o: &Options) -> Outcome {
    let sc = scenario(v, dur, seed, o);
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    sim.run();
    let result = sim.results();
    // Data segments (first transmissions) in time order, and the first retransmission.
    let data: Vec<(f64, u64)> = result
        .series
        .tsg
        .iter()
        .filter(|x| x.kind == 0)
        .map(|x| (x.t, x.seq))
        .collect();
    let first_rtx = result
        .series
        .tsg
        .iter()
        .find(|x| x.kind == 1)
        .map(|x| x.seq);
    let lost_idx = first_rtx.and_then(|s| data.iter().position(|&(_, q)| q == s));
    let gap = secs(GAP);
    let (mut before_loss, mut window_at_loss, mut burst_s, mut idle_s) = (0, 0, 0.0, 0.0);
    let t_loss = lost_idx.map(|i| data[i].0);
    if let Some(i) = lost_idx {
        let tl = data[i].0;
        let start = (1..=i)
            .rev()
            .find(|&k| data[k].0 - data[k - 1].0 > gap)
            .unwrap_or(0);
        let end = (i + 1..data.len())
            .find(|&k| data[k].0 - data[k - 1].0 > gap)
            .unwrap_or(data.len());
        before_loss = (i - start) as u64;
        burst_s = data[end - 1].0 - data[start].0;
        idle_s = if end < data.len() {
            data[end].0 - data[end - 1].0
        } else {
            0.0
        };
        window_at_loss = data[..=i]
            .iter()
            .filter(|&&(t, _)| t > tl - secs(RTT))
            .count() as u64;
    }
    // Clusters: runs of segments no more than 100 µs apart (a cluster at 1 Gbit/s takes
    // 12.3 µs a segment; ticks are 1 ms apart).
    let until = t_loss.unwrap_or(f64::INFINITY);
    let mut clusters: Vec<(f64, u64)> = Vec::new(); // (start, size)
    let mut prev = f64::NEG_INFINITY;
    for &(t, _) in data.iter().take_while(|&&(t, _)| t < until) {
        match clusters.last_mut() {
            Some((_, n)) if t - prev <= 100e-6 => *n += 1,
            _ => clusters.push((t, 1)),
        }
        prev = t;
    }
    let max_cluster = clusters.iter().map(|c| c.1).max().unwrap_or(0);
    // Clusters per RTT: the 1 ms kernel-timer ticks that sent something, in the busiest
    // RTT before the loss (a tick's share may leave in two runs when ACKs come mid-tick).
    let mut ticks: Vec<u64> = data
        .iter()
        .take_while(|&&(t, _)| t < until)
        .map(|&(t, _)| (t * 1e3) as u64)
        .collect();
    ticks.dedup();
    let per_rtt = (secs(RTT) * 1e3) as u64;
    let mut clusters_per_rtt = 0;
    let mut lo = 0;
    for hi in 0..ticks.len() {
        while ticks[hi] - ticks[lo] >= per_rtt {
            lo += 1;
        }
        clusters_per_rtt = clusters_per_rtt.max((hi - lo + 1) as u64);
    }
    Outcome {
        result,
        t_loss,
        before_loss,
        window_at_loss,
        burst_s,
        idle_s,
        clusters_per_rtt,
        max_cluster,
    }
}

/// A segment's bytes in the bottleneck's buffer, and the pipe (C·RTT) in segments.
fn seg_bdp() -> (f64, f64) {
    let seg = wire_bytes(1500) as f64;
    (seg, C as f64 * secs(RTT) / (8.0 * seg))
}

/// The bottleneck's use in the RTT up to the first loss: the window then over the pipe.
fn use_in_loss_rtt(out: &Outcome) -> f64 {
    out.window_at_loss as f64 / seg_bdp().1
}

fn run(o: &Options) -> Report {
    // The quick run must hold CPS's first loss and its detection: on the era's stack (cwnd
    // counted per ACK, ×1.5 a round with delayed ACKs) CPS sends it at 2.94 s, an RTT
    // before the SACKs show it.
    let dur = if o.quick { 4 * SEC } else { 6 * SEC };
    let mut s: Study<Variant, Outcome> = Study::new("slow-start-burst", o);
    // One run each: a seed moves only the hosts' jitter, and a run takes well under a
    // second; one value is read as it is, so no reading is left open.
    let vu = s.variant(Variant::Unpaced.label(), Variant::Unpaced, 1, 1);
    let vc = s.variant(Variant::Cps.label(), Variant::Cps, 1, 1);
    let idle = s.claim(
        "unpaced: packets lost while the bottleneck is mostly idle (its use in the loss's RTT < 1/2)",
        0.5,
        Tol::AtMost,
        "slide 11: 'packet loss occurs even though huge idle period'; half the pipe is the least reading of 'mostly idle'",
        Of::mean(vu, use_in_loss_rtt),
    );
    let bigger = s.claim(
        "slide 20: CPS makes cwnd bigger in the initial slow start (window at the first loss, cps_1ms_80 − unpaced, segments)",
        0.0,
        Tol::AtLeast,
        "slide 20: 'CPS can make cwnd bigger when initial slow start': the window CPS has in flight when its first loss comes is larger than unpaced slow start's",
        Of::with(&[vc, vu], move |r| {
            let w = |v| r.each(v, |o: &Outcome| o.window_at_loss as f64);
            diff_ci(&w(vc), &w(vu))
        }),
    );
    let hard = s.claim(
        "slide 20: unpaced slow start's losses are hard to recover by fast retransmit (retransmission timeouts in the run; row recovery_episodes counts its loss episodes)",
        1.0,
        Tol::AtLeast,
        "slide 20: current slow start is 'causing packet losses difficult to recover using Fast Retransmit': read as fast recovery not repairing what slow start's overshoot lost, so that a retransmission timeout is needed: at least one",
        Of::mean(vu, |o: &Outcome| o.result.flows[0].timeouts as f64),
    );
    let mut r = s.run(|&v, seed| run_one(v, dur, seed, o));
    let variants = [Variant::Unpaced, Variant::Cps];
    let outs = [r.first(vu).clone(), r.first(vc).clone()];
    let (seg, bdp) = seg_bdp();
    let b_pkts = B as f64 / seg;
    // Closed forms: an unpaced round leaves at R from an empty queue, which grows at R − C:
    // the drop comes B/(1 − C/R) segments into the round, after B/(R − C) seconds. A spaced
    // sender's queue only grows once its rate passes C: the drop comes when the window
    // exceeds the pipe plus the buffer.
    let n_burst = b_pkts / (1.0 - C as f64 / R as f64);
    let t_burst = B as f64 * 8.0 / (R - C) as f64;
    let w_spaced = bdp + b_pkts;
    let (u, c) = (&outs[0], &outs[1]);
    for (v, out) in variants.iter().zip(&outs) {
        let l = v.label();
        r.row(l, "first_loss_sent_s", out.t_loss.unwrap_or(f64::NAN));
        r.row(l, "window_at_first_loss_pkts", out.window_at_loss as f64);
        if *v == Variant::Unpaced {
            // CPS's are rows below.
            r.row(l, "max_cluster_pkts", out.max_cluster as f64);
            r.row(l, "clusters_per_rtt", out.clusters_per_rtt as f64);
        }
        let f = &out.result.flows[0];
        r.row(l, "retransmits", f.retransmits as f64);
        r.row(l, "timeouts", f.timeouts as f64);
        r.row(l, "recovery_episodes", f.recovery_episodes as f64);
        r.row(l, "goodput_mbps", f.goodput_bps / 1e6);
    }
    // Unpaced: the round of the first loss. The slide's 20 ms and 180 ms are inputs here
    // (B was chosen from the 20 ms, the RTT is 200 ms), so these are checks of the model
    // against what it was built from, not reproductions.
    r.row("unpaced", "loss_round_sending_ms", u.burst_s * 1e3);
    r.check_vs(
        "unpaced: the round of the first loss lasts B/(R − C) … twice that (slide 11's 20 ms, an input: B was set from it)",
        Against::Model,
        u.burst_s * 1e3,
        20.0,
        Tol::Factor(1.0, 2.0),
        "the round goes on until its window is out, and slow start's previous round (half of it) did not overflow, so it lasts between B/(R − C) and twice that",
    );
    r.row("unpaced", "silence_after_round_ms", u.idle_s * 1e3);
    r.check_vs(
        "unpaced: silence after the round vs RTT − 20 ms (slide 11's 180 ms; follows from the inputs)",
        Against::Model,
        u.idle_s * 1e3,
        180.0,
        Tol::Rel(0.1),
        "the RTT (200 ms) less the round's sending time; 10% for the round's length (above)",
    );
    r.check_vs(
        "unpaced: segments of the round sent before its first drop vs B/(1 − C/R)",
        Against::ClosedForm,
        u.before_loss as f64,
        n_burst,
        Tol::Rel(0.1),
        "the round leaves at the line rate from an empty queue (the previous round drained in the silence); 10% for the delayed-ACK clock, which sends a round in pairs and triples a little below R",
    );
    r.row("unpaced", "closed_form_segments_before_drop", n_burst);
    r.row("unpaced", "closed_form_round_ms", t_burst * 1e3);
    r.row("unpaced", "bottleneck_use_in_loss_rtt", use_in_loss_rtt(u));
    r.emit(idle);
    // CPS.
    // CPS's tick (1 ms), RTT (200 ms) and cluster limit (80) are its configuration: that
    // it keeps to them is a check of the model, not a reproduction of slide 19.
    r.row("cps_1ms_80", "clusters_per_rtt", c.clusters_per_rtt as f64);
    r.check_vs(
        "cps_1ms_80: clusters per RTT vs RTT / tick (slide 19's 200 small bursts; configured)",
        Against::Model,
        c.clusters_per_rtt as f64,
        200.0,
        Tol::Rel(0.05),
        "a cluster in each 1 ms tick of a 200 ms RTT; 5% for ticks left empty while the window is still small",
    );
    r.row("cps_1ms_80", "max_cluster_pkts", c.max_cluster as f64);
    r.check_vs(
        "cps_1ms_80: largest cluster vs the configured limit (slide 19's 80 packets)",
        Against::Model,
        c.max_cluster as f64,
        80.0,
        Tol::AtMost,
        "the limit CPS is configured with",
    );
    r.check_vs(
        "cps: window at its first loss vs the pipe plus the buffer (C·RTT + B)",
        Against::ClosedForm,
        c.window_at_loss as f64,
        w_spaced,
        Tol::Rel(0.15),
        "clusters of ≤ 80 at 1 ms keep the queue under 80·(1 − C/R) = 33 packets until the window's rate passes C, then it fills at the excess; 15% because slow start overshoots within the RTT in which the buffer fills",
    );
    r.row("cps_1ms_80", "closed_form_window_pkts", w_spaced);
    r.check_vs(
        "CPS's window at its first loss ÷ the unpaced round's segments before its drop vs (C·RTT + B)·(1 − C/R)/B",
        Against::ClosedForm,
        c.window_at_loss as f64 / u.before_loss.max(1) as f64,
        w_spaced / n_burst,
        Tol::Factor(0.85 / 1.1, 1.15 / 0.9),
        "the quotient of the two closed forms above, each within its own tolerance: CPS's window ±15% over the unpaced round's segments ±10%, so ×0.85/1.1 … ×1.15/0.9 (the unpaced window at the loss is that round's segments up to the lost one: its rounds are an RTT apart)",
    );
    r.emit(bigger);
    r.emit(hard);
    r.note(format!(
        "src's GbE NIC (1 Gbit/s, 1 ms) → 596 Mbit/s × 99 ms, drop-tail {B} bytes → dst: RTT 200 ms, pipe {bdp:.0} segments of {seg} wire bytes, buffer {b_pkts:.0}; Reno with SACK, large socket buffers; {} s",
        secs(dur)
    ));
    r.note("the bottleneck buffer is the one input taken from the seed's numbers: slide 11's 20 ms of sending before the drop at R − C = 404 Mbit/s of queue growth gives 1.01 MB");
    r.note("a round = segments between silences > 10 ms; clusters per RTT = 1 ms ticks that sent something within 200 ms; a cluster's size = a run of segments < 100 µs apart; the first lost segment = the first one retransmitted");
    plots(&mut r, &outs, &variants, dur);
    r.finish()
}

fn plots(r: &mut Report, outs: &[Outcome], variants: &[Variant], dur: SimTime) {
    let mut cw = Plot {
        title: "cwnd in the first seconds: unpaced slow start vs CPS".into(),
        x_label: "time (s)".into(),
        y_label: "cwnd (segments)".into(),
        ..Default::default()
    };
    let mut q = Plot {
        title: "Bottleneck queue (596 Mbit/s, 1 MB)".into(),
        x_label: "time (s)".into(),
        y_label: "queue (KB)".into(),
        ..Default::default()
    };
    let mut ts = Plot {
        title: "Time-sequence: segments sent (first transmissions)".into(),
        x_label: "time (s)".into(),
        y_label: "sequence (MB)".into(),
        x_max: Some(secs(dur)),
        ..Default::default()
    };
    for (v, o) in variants.iter().zip(outs) {
        let se = &o.result.series;
        cw.lines.push(Line {
            name: v.label().into(),
            points: se.cwnd.iter().map(|s| (s.t, s.cwnd as f64)).collect(),
            ..Default::default()
        });
        q.lines.push(Line {
            name: v.label().into(),
            points: se
                .queue
                .iter()
                .map(|s| (s.t, s.bytes as f64 / 1e3))
                .collect(),
            ..Default::default()
        });
        // Every segment would be ~10^5 points: one point per 50 µs of sending is enough to
        // show the bursts and the silences.
        let mut pts: Vec<(f64, f64)> = Vec::new();
        for x in se.tsg.iter().filter(|x| x.kind == 0) {
            if pts.last().is_none_or(|&(t, _)| x.t - t >= 50e-6) {
                pts.push((x.t, x.seq as f64 / 1e6));
            }
        }
        ts.lines.push(Line {
            name: v.label().into(),
            points: pts,
            ..Default::default()
        });
    }
    r.plots
        .push(("slow_start_burst_cwnd.svg".into(), svg::render(&cw)));
    r.plots
        .push(("slow_start_burst_queue.svg".into(), svg::render(&q)));
    r.plots
        .push(("slow_start_burst_tsg.svg".into(), svg::render(&ts)));
}
