//! `dctcp-syn-ect` — seed 000's SYN/ACK ECT test: the probability that a DCTCP connection
//! whose SYN carries no ECT connects, against 1, 2, 4, 8 and 16 competing DCTCP flows; and
//! the same with ECT on SYN and SYN-ACK (Linux's behaviour for DCTCP since that patch).
//! Every DCTCP socket runs the seed's module, Linux 3.18's
//! (`dctcp_common::SEED_DCTCP_MODULE`).
//!
//! Why it fails: the switch's DCTCP queue drops Not-ECT packets while it holds more than K
//! (RED/ECN with min = max = K), and competing DCTCP flows keep it near K — above it a
//! growing share of the time as flows are added (Q_max = K + N); with the seed's 9000-byte
//! frames (`dctcp_common::SEED_MTU`) K is 8 packets, and 8 flows at DCTCP's 2-segment floor
//! already hold more than the path and K together.
//!
//! Method: N long DCTCP flows share the 10 Gbit/s port of `dctcp-incast` (K = 75 KB). From
//! a separate host, probe connections open at random times (one every 250 ms on average,
//! uniform jitter), each sending one segment. A probe "connects" if its handshake completes
//! within the time limit: 2 s, i.e. the SYN and one retransmission (Linux retries the SYN
//! after 1 s, then 3 s). The seed repeated each point 5 times; we use 40 probes per point
//! (`--quick`: 24), and for the median split them into 5 consecutive groups, the repeats.

use super::common::{median, MeanCi};
use super::dctcp_common::*;
use super::dctcp_incast::{BUFFER, K, LINK_DELAY, RATE};
use super::{Against, Cause, Experiment, Judge, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;
use crate::sim::Sim;

pub const EXPERIMENT: Experiment = Experiment {
    name: "dctcp-syn-ect",
    seed_doc: "000 SYN/ACK ECT table",
    about: "Connection probability of a DCTCP connection with/without ECT on SYN vs 1-16 competing flows",
    run,
};

const COMPETING: [usize; 5] = [1, 2, 4, 8, 16];
/// The seed's mean and median connection probability over its 5 repeats per point.
const SEED_NO_ECT: [f64; 5] = [1.0, 0.67, 0.45, 0.28, 0.0];
const SEED_NO_ECT_MEDIAN: [f64; 5] = [1.0, 0.65, 0.45, 0.25, 0.0];
/// Connection attempts per repeat in the seed, inferred: it does not say, but with 5
/// repeats of m attempts each a median is one repeat's share k/m, and 20 is the smallest m
/// that gives all three of 0.65, 0.45 and 0.25 to two decimals (13, 9 and 5 of 20; 17 is
/// the smallest that gives 0.65 and gives neither of the others); every mean is then a
/// whole count of its 100 attempts (0.67 = 67/100, …).
const SEED_ATTEMPTS_PER_REPEAT: usize = 20;
/// How a probability is judged against the seed's.
const SAMPLING: &str = "a two-proportion test at 2σ, at the pooled probability of seed and model (each weighted by its count): the seed's 5 repeats of 20 attempts each, 100 per point (the seed does not say; 20 is the smallest count per repeat that makes each of its medians 0.65, 0.45 and 0.25 one repeat's share), against the model's probes";
/// The cause run for a point that misses: a client that gives up before Linux's first SYN
/// retransmission (the seed does not state its time limit).
const SHORT_LIMIT: SimTime = 900 * MS;
const SHORT: &str = "a probe whose connect() gives up after 0.9 s, before Linux's SYN retransmission at 1 s: only attempts whose first SYN got through connect (the seed does not state its limit; the same runs read with that limit)";
/// An ACK on the wire: 52 bytes of IP (TCP with timestamps) and 38 of Ethernet framing.
const ACK_FRAME: u64 = 52 + 38;
const LIMIT: SimTime = 2 * SEC;
const WARMUP: SimTime = 200 * MS;

/// One probe connection: did it connect within the limit, and how many of its SYNs sent
/// within the limit (the first and the retransmission 1 s later) were lost.
#[derive(Clone, Copy)]
pub struct Probe {
    pub connected: bool,
    /// How long the handshake took, if it completed.
    pub connect: Option<SimTime>,
    pub syns: u32,
    pub syns_lost: u32,
}

/// Each probe, in the order they started.
pub fn p_connect(n: usize, syn_ect: bool, probes: usize, seed: u64) -> Vec<Probe> {
    let topo = TopologySpec::Star {
        senders: n + 1,
        link: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: RATE,
            delay: LINK_DELAY,
            queue: seed_port(K, BUFFER),
        },
        other_queue: seed_port(K, BUFFER),
    };
    let mut rng = Rng::new(seed, 0x5e7 + n as u64 * 2 + syn_ect as u64);
    let mut starts = Vec::new();
    let mut t = WARMUP;
    for _ in 0..probes {
        t += 125 * MS + rng.below(250) * MS;
        starts.push(t);
    }
    let end = t + LIMIT + MS;
    let mut sc = Scenario::new("dctcp-syn-ect", topo, end);
    sc.seed = seed;
    let tcp = endpoint("dctcp");
    for i in 0..n {
        sc.add_flow(&format!("s{i}"), "recv", tcp.clone());
    }
    let mut probe = tcp.clone();
    probe.syn_ect = syn_ect;
    let first = sc.apps.flows.len();
    for &st in &starts {
        let f = sc.add_flow(&format!("s{n}"), "recv", probe.clone());
        sc.apps.flows[f].start = st;
        sc.apps.flows[f].bytes = Some(1448);
    }
    let mut sim = Sim::new(&sc).expect("valid scenario");
    sim.run();
    (first..sim.conns.len())
        .map(|i| {
            let s = &sim.tcp(i).sender;
            let connected = s
                .stats
                .established_at
                .is_some_and(|e| e - s.start_time <= LIMIT);
            // Within the limit a probe sends its SYN and one retransmission: the SYNs before
            // the one that got through were lost, or both.
            let retrans = s.stats.syn_retrans.min(1) as u32;
            let (syns, syns_lost) = if connected {
                (retrans + 1, retrans)
            } else {
                (2, 2)
            };
            Probe {
                connected,
                connect: s.stats.established_at.map(|e| e - s.start_time),
                syns,
                syns_lost,
            }
        })
        .collect()
}

/// The connection probability over all probes, and the median over 5 "repeats" (the
/// probes in 5 consecutive groups, as the seed repeated each point 5 times; shown beside
/// the seed's medians, not judged: the two medians are over repeats of 8 and 20 attempts,
/// and the mean already tests the same probes).
fn probabilities(ok: &[bool]) -> (f64, f64) {
    let p = |xs: &[bool]| xs.iter().filter(|&&x| x).count() as f64 / xs.len() as f64;
    let groups: Vec<f64> = ok.chunks(ok.len().div_ceil(5)).map(p).collect();
    (p(ok), median(&groups))
}

/// Half the width of a two-proportion test at 2σ of the seed's probability (100 attempts)
/// against the model's (`count` probes), at their pooled probability; to 3 decimals.
fn two_proportion_tol(seed: f64, sim: f64, count: usize) -> f64 {
    let (a, b) = ((5 * SEED_ATTEMPTS_PER_REPEAT) as f64, count as f64);
    let p = (a * seed + b * sim) / (a + b);
    let var = p * (1.0 - p);
    let tol = 2.0 * (var / a + var / b).sqrt();
    (tol * 1000.0).round() / 1000.0
}

fn run(o: &Options) -> Report {
    let probes = if o.quick { 24 } else { 40 };
    let cases: Vec<(bool, usize)> = [false, true]
        .iter()
        .flat_map(|&e| COMPETING.iter().map(move |&n| (e, n)))
        .collect();
    let runs = super::par_map(&cases, o.threads, |&(ect, n)| {
        p_connect(n, ect, probes, o.seed)
    });
    let both: Vec<(f64, f64)> = runs
        .iter()
        .map(|ps| probabilities(&ps.iter().map(|p| p.connected).collect::<Vec<_>>()))
        .collect();
    let ps: Vec<f64> = both.iter().map(|b| b.0).collect();
    // The cause run: the share of probes connected within the shorter limit.
    let short: Vec<f64> = runs
        .iter()
        .map(|ps| {
            let ok = ps
                .iter()
                .filter(|p| p.connect.is_some_and(|c| c <= SHORT_LIMIT))
                .count();
            ok as f64 / ps.len() as f64
        })
        .collect();
    let mut r = Report::with("dctcp-syn-ect", o);
    // The path in packets of the seed's frames: C·RTT (data out, ACK back) and K.
    let Limit::Bytes(k_bytes) = K else {
        unreachable!("K is in bytes")
    };
    let k_pkts = k_bytes as f64 / SEED_MTU as f64;
    let frame = SEED_MTU as u64 + 38;
    let rtt = 4 * LINK_DELAY + 2 * tx_time(frame, RATE) + 2 * tx_time(ACK_FRAME, RATE);
    // Linux DCTCP never takes a window below 2 segments: N flows hold at least 2N packets,
    // and where that exceeds C·RTT + K the queue never falls to K.
    let pipe = RATE as f64 * secs(rtt) / (8.0 * frame as f64) + k_pkts;
    let pinned = |n: usize| 2.0 * n as f64 > pipe;
    for (i, &(ect, n)) in cases.iter().enumerate() {
        let v = if ect { "ect" } else { "no_ect" };
        if ect {
            r.row(v, &format!("p_conn_{n}"), ps[i]);
            continue;
        }
        let k = i % 5;
        let mean = SEED_NO_ECT[k];
        let cause_name = format!("limit_0.9s_{n}");
        let judge = if n == 1 {
            Judge::within(Tol::Abs(0.05), "with one competing flow the queue stays at or below K + 1 packet ([2] §3.3: Q_max = K + N) and the SYN is almost never dropped: seed and model agree on 1; 0.05 allows two probes of 40")
        } else {
            Judge::within(Tol::Abs(two_proportion_tol(mean, ps[i], probes)), SAMPLING).cause(
                Cause {
                    variant: &cause_name,
                    config: SHORT,
                    sim: MeanCi::one(short[i]),
                    tol: Some(Tol::Abs(two_proportion_tol(mean, short[i], probes))),
                },
            )
        };
        r.seed(v, &format!("p_conn_{n}"), mean, ps[i], judge);
    }
    r.note(format!(
        "medians of the model's 5 groups of {} probes, not judged (the mean tests the same probes; the seed's repeats were of 20 attempts): {:?}; the seed's: {SEED_NO_ECT_MEDIAN:?}",
        probes.div_ceil(5),
        both[..5].iter().map(|b| (b.1 * 1000.0).round() / 1000.0).collect::<Vec<_>>()
    ));
    // Not-ECT SYNs lost, against the share of the sawtooth the queue spends above K.
    for (i, &(ect, n)) in cases.iter().enumerate() {
        if ect || n == 1 {
            continue;
        }
        let syns: u32 = runs[i].iter().map(|p| p.syns).sum();
        let lost: u32 = runs[i].iter().map(|p| p.syns_lost).sum();
        let th = super::dctcp_queue::theory_at(RATE, rtt, n, k_pkts, frame as f64);
        let above = (n as f64 / th.amplitude).min(1.0);
        let sim = lost as f64 / syns as f64;
        r.row("no_ect", &format!("syn_lost_{n}"), sim);
        r.row("no_ect", &format!("above_k_fluid_{n}"), above);
        // Each flow's window swings by D = A/N; below the 2 segments a delayed ACK moves it
        // by, the sawtooth the analysis draws is finer than the model's steps. With the
        // seed's frames D < 2 for every N here (C·RTT + K is 13 packets), so the share of
        // time above K is shown beside the SYNs lost, not checked against them.
        let d = th.amplitude / n as f64;
        let w = (th.crtt + k_pkts) / n as f64;
        if d < 2.0 {
            r.note(format!("{n} flows: W* = (C·RTT + K)/N = {w:.1} packets and a sawtooth of D = {d:.1} packets per flow, less than the 2 segments a delayed ACK moves a window by: [2] §3.3's share of time above K ({above:.2}) is not a prediction there, and no check is made; the model loses {sim:.2} of the SYNs"));
        } else {
            r.note(format!("{n} flows: W* = {w:.1} packets, D = {d:.1}: [2] §3.3's share of time above K {above:.2}, the model loses {sim:.2} of the SYNs (shown, not checked)"));
        }
    }
    let no: Vec<f64> = ps[..5].to_vec();
    let yes: Vec<f64> = ps[5..].to_vec();
    // Binomial noise of `probes` probes at p = 0.5 (2σ): allow that much non-monotonicity.
    let slack = ((2.0 * (0.25 / probes as f64).sqrt()) * 100.0).round() / 100.0;
    let monotone = no.windows(2).all(|w| w[1] <= w[0] + slack);
    // 16 flows significantly below 1 flow: by more than 2σ of the binomial noise of
    // `probes` probes at each end.
    let sd = |p: f64| (p * (1.0 - p) / probes as f64).sqrt();
    let fall_needed = 2.0 * (sd(no[0]).powi(2) + sd(no[4]).powi(2)).sqrt();
    r.check(
        "without ECT: the probability falls as competing flows are added",
        Against::Seed,
        monotone && no[0] - no[4] > fall_needed,
        format!(
            "{:?} (seed {SEED_NO_ECT:?}); 16 flows {:.3} below 1 flow, need > {fall_needed:.3}",
            no.iter().map(|p| (p * 1000.0).round() / 1000.0).collect::<Vec<_>>(),
            no[0] - no[4]
        ),
        &format!("the seed's claim ('as the number of competing flows moves beyond 1, the connection probability drops'); each step may rise by {slack} (2σ binomial noise of {probes} probes at p = 0.5) and 16 flows must be below 1 flow by more than 2σ of the binomial noise at both ends"),
    );
    r.check(
        "with ECT: the connection succeeds at every load",
        Against::Seed,
        yes.iter().all(|&p| p >= 0.95),
        format!("{yes:?} (need ≥ 0.95)"),
        "the seed's claim that ECT on SYN/SYN-ACK removes the drops; an ECT SYN is marked, never dropped, so only loss at the 5 MB buffer limit (never reached here) could fail it: 0.95 allows two probes of 40",
    );
    let pinned: Vec<String> = COMPETING
        .iter()
        .filter(|&&n| pinned(n))
        .map(|n| n.to_string())
        .collect();
    r.note(format!(
        "with the seed's 9000-byte frames C·RTT + K is {pipe:.1} packets: {} flows at Linux DCTCP's floor of 2 segments each hold more than that, so by that count the queue stays above K and Not-ECT SYNs are lost (the model: rows syn_lost_*; the seed: 0.28 at 8 flows, 0 at 16)",
        pinned.join(" and ")
    ));
    r.note(format!("{probes} probe connections per point, each judged against a {} s limit (SYN + one retransmission); competing flows: DCTCP at 10 Gbit/s into the K = 75 KB DCTCP queue", secs(LIMIT)));
    r.note("the seed does not state its time limit or link rate; it used 5 repeats per point and does not say how many attempts each");
    r
}
