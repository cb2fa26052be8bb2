//! `dctcp-syn-ect` — seed 000's SYN/ACK ECT test: the probability that a DCTCP connection
//! whose SYN carries no ECT connects, against 1, 2, 4, 8 and 16 competing DCTCP flows; and
//! the same with ECT on SYN and SYN-ACK (Linux's behaviour for DCTCP since that patch).
//! Every DCTCP socket runs the seed's module, Linux 3.18's
//! (`dctcp_common::SEED_DCTCP_MODULE`).
//!
//! Why it fails: the switch's DCTCP queue drops Not-ECT packets while it holds more than K
//! (RED/ECN with min = max = K), and competing DCTCP flows keep it near K — above it a
//! growing share of the time as flows are added (Q_max = K + N); with the seed's 9000-byte
//! frames (`dctcp_common::SEED_MTU`) K is 8 packets.
//!
//! Seed configuration (`no_ect_N`, `ect_N`): N long DCTCP flows share the 10 Gbit/s port of
//! `dctcp-incast` (K = 75 KB, links of 5 µs, the hosts' automatic jitter). From a separate
//! host, probe connections open at random times (one every 250 ms on average, uniform
//! jitter), each sending one segment. A probe "connects" if its handshake completes within
//! the time limit: 2 s, i.e. the SYN and one retransmission (Linux retries the SYN after
//! 1 s, then 3 s). A run gives 40 probes (`--quick`: 24), read from its results (a probe's
//! `syn_retransmits` and whether its segment was delivered); a point's probability is the
//! share of its probes over all its runs (seeds), with a binomial 95% interval over the
//! probes, and a point whose interval is as wide as its tolerance gets more runs (full: up
//! to 4, 160 probes; `--quick`: none). The seed repeated each point 5 times, of 20
//! attempts each as its medians imply (100 per point).
//!
//! Cause run (`limit_0.9s_N`): the same probes read with a 0.9 s connect limit, before
//! Linux's SYN retransmission — only attempts whose first SYN got through connect (the seed
//! does not state its limit).
//!
//! The 8-flow point is fragile: with the seed configuration's exact 5 µs links the queue
//! stays above K and no Not-ECT SYN gets through, but with links of 6.7 µs — the base path
//! at which the model's ping through an empty queue takes the seed's minimum DCTCP ping,
//! 28 µs — it falls below K often enough for probes to connect. The full run shows that
//! configuration as rows (`no_ect_link6.7us`, one run); it is not the seed configuration
//! (`dctcp-incast` and `dctcp-convergence` share the 5 µs links), and not a cause run.

use super::common::{median, MeanCi};
use super::dctcp_common::*;
use super::dctcp_incast::{seed_star, K, LINK_DELAY, RATE};
use super::study::{Done, Of, Runs, Study, N, V};
use super::{Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;

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
const SAMPLING: &str = "a two-proportion test at 2σ, at the seed's probability p, between the seed's 100 attempts per point (5 repeats of 20: the seed does not say; 20 is the smallest count per repeat that makes each of its medians 0.65, 0.45 and 0.25 one repeat's share) and the m probes the model runs at most for the point: 2·sqrt(p(1 − p)(1/100 + 1/m)); the model's share, over all its probes, must be within that and its binomial 95% interval narrower";
const SAMPLING_EDGE: &str = "the seed's 100 of 100 attempts (or 0 of 100: 5 repeats of 20, as its medians imply) put its probability within 3/100 of its value (the rule of three, 95%); the model's share, over all its probes, must be within that and its binomial 95% interval narrower (a share of 0 or 1 has none, and is read as it is)";
/// The cause run for a point that misses: a client that gives up before Linux's first SYN
/// retransmission (the seed does not state its time limit).
const SHORT: &str = "a probe whose connect() gives up after 0.9 s, before Linux's SYN retransmission at 1 s: only attempts whose first SYN got through connect (the seed does not state its limit; the same runs read with that limit)";
/// An ACK on the wire: 52 bytes of IP (TCP with timestamps) and 38 of Ethernet framing.
const ACK_FRAME: u64 = 52 + 38;
const LIMIT: SimTime = 2 * SEC;
const WARMUP: SimTime = 200 * MS;
/// The links of the extra rows: the model's ping through the empty DCTCP queue then takes
/// the seed's minimum DCTCP ping, 28 µs (4 links and the ping's serialisation).
const PING_MIN_LINK: SimTime = 6_700 * NS;

/// One probe connection: did it connect within the limit, did its first SYN get through
/// (it connected before the 1 s retransmission), and how many of its SYNs sent within the
/// limit (the first and the retransmission 1 s later) were lost.
#[derive(Clone, Copy)]
pub struct Probe {
    pub connected: bool,
    pub first_syn: bool,
    pub syns: u32,
    pub syns_lost: u32,
}

/// A point: competing flows, ECT on the probes' SYNs, the links' delay.
#[derive(Clone, Copy, Debug)]
struct Cfg {
    n: usize,
    ect: bool,
    link: SimTime,
}

/// Each probe, in the order they started.
fn p_connect(o: &Options, c: &Cfg, probes: usize, seed: u64) -> Vec<Probe> {
    let Cfg {
        n,
        ect: syn_ect,
        link,
    } = *c;
    let topo = seed_star(n + 1, link);
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
    o.prepare(&mut sc);
    let r = crate::world::run(&sc).expect("valid scenario");
    r.flows.to_vec()[first..]
        .iter()
        .map(|f| {
            // A probe that delivered its segment connected; its SYN retransmissions say
            // when: none (the first SYN), one (1 s later, within the 2 s limit), or more
            // (3 s and later, beyond it). The run ends 2 s after the last probe starts, so
            // a probe with one retransmission and no segment delivered lost both SYNs.
            let delivered = f.acked_s.is_some();
            let connected = delivered && f.syn_retransmits <= 1;
            let first_syn = delivered && f.syn_retransmits == 0;
            let retrans = f.syn_retransmits.min(1) as u32;
            let (syns, syns_lost) = if connected {
                (retrans + 1, retrans)
            } else {
                (2, 2)
            };
            Probe {
                connected,
                first_syn,
                syns,
                syns_lost,
            }
        })
        .collect()
}

/// The share of `v`'s probes, over all its runs, for which `ok` holds: with its binomial
/// 95% interval, 1.96·sqrt(p(1 − p)/m) over the m probes (`n` counts the probes).
fn share(r: &Runs<Vec<Probe>>, v: V, ok: fn(&Probe) -> bool) -> MeanCi {
    let all: Vec<&Probe> = r.of(v).iter().flatten().collect();
    let m = all.len() as f64;
    let p = all.iter().filter(|p| ok(p)).count() as f64 / m;
    MeanCi {
        mean: p,
        half: 1.96 * (p * (1.0 - p) / m).sqrt(),
        n: all.len(),
    }
}

fn connected(p: &Probe) -> bool {
    p.connected
}

fn first_syn(p: &Probe) -> bool {
    p.first_syn
}

/// `a − b` of two shares with the interval of a difference of independent proportions.
fn diff(a: MeanCi, b: MeanCi) -> MeanCi {
    let var = |x: MeanCi| x.mean * (1.0 - x.mean) / x.n as f64;
    MeanCi {
        mean: a.mean - b.mean,
        half: 1.96 * (var(a) + var(b)).sqrt(),
        n: a.n.min(b.n),
    }
}

/// Of several readings against a lower bound, the one whose interval reaches lowest (all
/// of them hold iff it does).
fn lowest(xs: impl IntoIterator<Item = MeanCi>) -> MeanCi {
    xs.into_iter()
        .min_by(|a, b| (a.mean - a.half).total_cmp(&(b.mean - b.half)))
        .expect("at least one reading")
}

/// The connection probability of the probes in 5 consecutive groups (as the seed repeated
/// each point 5 times): their median, shown beside the seed's medians, not judged (the two
/// medians are over repeats of different sizes, and the mean already tests the same
/// probes).
fn group_median(ok: &[bool]) -> f64 {
    let p = |xs: &[bool]| xs.iter().filter(|&&x| x).count() as f64 / xs.len() as f64;
    let groups: Vec<f64> = ok.chunks(ok.len().div_ceil(5)).map(p).collect();
    median(&groups)
}

/// The tolerance of the seed's probability `p` against `m` probes of the model (the most
/// its runs give): a two-proportion test at 2σ at p, to 3 decimals; at 0 or 1, where that
/// has no width, the rule of three of the seed's count (it bounds p within 3/100).
fn seed_tol(p: f64, m: usize) -> (f64, &'static str) {
    let a = (5 * SEED_ATTEMPTS_PER_REPEAT) as f64;
    if p == 0.0 || p == 1.0 {
        (3.0 / a, SAMPLING_EDGE)
    } else {
        let tol = 2.0 * (p * (1.0 - p) * (1.0 / a + 1.0 / m as f64)).sqrt();
        ((tol * 1000.0).round() / 1000.0, SAMPLING)
    }
}

/// How far a step from one point to the next may rise and still count as not rising: what
/// the seed's own counts can tell apart, 2σ of a share of its 100 attempts at p = 0.5.
const STEP_SLACK: f64 = 0.1;

/// The path in packets of the seed's frames: a data frame on the wire.
const FRAME: u64 = SEED_MTU as u64 + 38;

/// K in packets of the seed's frames.
fn k_pkts() -> f64 {
    let Limit::Bytes(k_bytes) = K else {
        unreachable!("K is in bytes")
    };
    k_bytes as f64 / SEED_MTU as f64
}

/// The base RTT over links of one-way delay `link`: data out, ACK back.
fn rtt_at(link: SimTime) -> SimTime {
    4 * link + 2 * tx_time(FRAME, RATE) + 2 * tx_time(ACK_FRAME, RATE)
}

/// C·RTT + K in packets over links of `link`.
fn pipe_at(link: SimTime) -> f64 {
    RATE as f64 * secs(rtt_at(link)) / (8.0 * FRAME as f64) + k_pkts()
}

/// The share of the Not-ECT SYNs lost in a point's runs.
fn syn_lost(probes: &[Vec<Probe>]) -> f64 {
    let syns: u32 = probes.iter().flatten().map(|p| p.syns).sum();
    let lost: u32 = probes.iter().flatten().map(|p| p.syns_lost).sum();
    lost as f64 / syns as f64
}

fn run(o: &Options) -> Report {
    let probes = if o.quick { 24 } else { 40 };
    // Runs per point to start with, and at most where a reading is open: 40 probes a run.
    let cap = if o.quick { 1 } else { 4 };
    let mut s: Study<Cfg, Vec<Probe>> = Study::new("dctcp-syn-ect", o);
    let (no, yes, slow) = declare(&mut s, o, cap);
    let (numbers, falls, ect_ok) = seed_numbers(&mut s, &no, &yes, (cap, probes));
    let mut r = s.run(|c, seed| p_connect(o, c, probes, seed));
    for &num in &numbers {
        r.emit(num);
    }
    for (&n, &v) in COMPETING.iter().zip(&yes) {
        let p = share(r.all_runs(), v, connected);
        r.row("ect", &format!("p_conn_{n}"), p.mean);
    }
    medians_note(&mut r, &no, probes);
    syn_loss_rows(&mut r, &no);
    r.emit(falls);
    r.emit(ect_ok);
    if let Some(v) = slow {
        slow_link(&mut r, v, no[3], probes);
    }
    floor_notes(&mut r, probes);
    r.finish()
}

/// Every point without ECT and with it, and (full runs only) 8 flows on links of 6.7 µs.
fn declare(s: &mut Study<Cfg, Vec<Probe>>, o: &Options, cap: usize) -> (Vec<V>, Vec<V>, Option<V>) {
    let cfg = |n, ect| Cfg {
        n,
        ect,
        link: LINK_DELAY,
    };
    let no: Vec<V> = COMPETING
        .iter()
        .map(|&n| s.variant(&format!("no_ect_{n}"), cfg(n, false), 1, cap))
        .collect();
    let yes: Vec<V> = COMPETING
        .iter()
        .map(|&n| s.variant(&format!("ect_{n}"), cfg(n, true), 1, cap.min(2)))
        .collect();
    // The extra rows: 8 flows on links of 6.7 µs (full run only).
    let slow = (!o.quick).then(|| {
        s.variant(
            "no_ect_8_link6.7us",
            Cfg {
                n: 8,
                ect: false,
                link: PING_MIN_LINK,
            },
            1,
            1,
        )
    });
    (no, yes, slow)
}

/// The seed's probabilities without ECT (each with its cause run: a shorter limit), and
/// its two claims: the probability falls with load, and ECT connects at every load.
fn seed_numbers(
    s: &mut Study<Cfg, Vec<Probe>>,
    no: &[V],
    yes: &[V],
    (cap, probes): (usize, usize),
) -> (Vec<N>, N, N) {
    let mut numbers = vec![];
    for (k, (&n, &v)) in COMPETING.iter().zip(no).enumerate() {
        let (tol, why) = seed_tol(SEED_NO_ECT[k], cap * probes);
        let num = s.seed_of(
            "no_ect",
            &format!("p_conn_{n}"),
            SEED_NO_ECT[k],
            Tol::Abs(tol),
            why,
            Of::with(&[v], move |r| share(r, v, connected)),
        );
        if n > 1 {
            s.cause_of(
                num,
                &format!("limit_0.9s_{n}"),
                SHORT,
                Of::with(&[v], move |r| share(r, v, first_syn)),
            );
        }
        numbers.push(num);
    }
    let steps: Vec<(V, V)> = no.windows(2).map(|w| (w[0], w[1])).collect();
    let falls = s.claim(
        "without ECT: the probability falls as competing flows are added",
        -STEP_SLACK,
        Tol::AtLeast,
        "the seed's claim ('as the number of competing flows moves beyond 1, the connection probability drops'): from each point to the next the probability does not rise by more than the seed's own counts can tell apart (2σ of a share of its 100 attempts at p = 0.5: 0.1), each step's difference of shares read with its binomial 95% interval (the step whose interval reaches lowest is the reading); how far it falls overall is the 1- and 16-flow points' own verdicts",
        Of::with(no, move |r| {
            lowest(
                steps
                    .iter()
                    .map(|&(a, b)| diff(share(r, a, connected), share(r, b, connected))),
            )
        }),
    );
    let yes_all = yes.to_vec();
    let ect_ok = s.claim(
        "with ECT: the connection succeeds at every load",
        0.97,
        Tol::AtLeast,
        "the seed's claim that ECT on SYN/SYN-ACK removes the drops: an ECT SYN is marked, never dropped, so only loss at the 5 MB buffer limit (never reached here) could fail a probe; 0.97 is what the seed's 100 attempts per point can tell from 1 (the rule of three); the point whose binomial 95% interval reaches lowest is the reading",
        Of::with(yes, move |r| {
            lowest(yes_all.iter().map(|&v| share(r, v, connected)))
        }),
    );
    (numbers, falls, ect_ok)
}

/// The medians of the first run's probes, as the seed gives its repeats'.
fn medians_note(r: &mut Done<Cfg, Vec<Probe>>, no: &[V], probes: usize) {
    let medians: Vec<f64> = no
        .iter()
        .map(|&v| {
            let ok: Vec<bool> = r.first(v).iter().map(|p| p.connected).collect();
            (group_median(&ok) * 1000.0).round() / 1000.0
        })
        .collect();
    r.note(format!(
        "medians of the first run's probes in 5 groups of {}, not judged (the mean tests the same probes; the seed's repeats were of 20 attempts): {medians:?}; the seed's: {SEED_NO_ECT_MEDIAN:?}",
        probes.div_ceil(5),
    ));
}

/// Not-ECT SYNs lost, against the share of the sawtooth the queue spends above K.
fn syn_loss_rows(r: &mut Done<Cfg, Vec<Probe>>, no: &[V]) {
    let (k_pkts, frame, rtt) = (k_pkts(), FRAME, rtt_at(LINK_DELAY));
    for (&n, &v) in COMPETING.iter().zip(no) {
        if n == 1 {
            continue;
        }
        let th = super::dctcp_queue::theory_at(RATE, rtt, n, k_pkts, frame as f64);
        let above = (n as f64 / th.amplitude).min(1.0);
        let sim = syn_lost(r.runs(v));
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
}

/// 8 flows on links of 6.7 µs: `v`, beside the seed configuration's 8 flows `here_v`.
fn slow_link(r: &mut Done<Cfg, Vec<Probe>>, v: V, here_v: V, probes: usize) {
    let p = share(r.all_runs(), v, connected);
    let f = share(r.all_runs(), v, first_syn);
    let lost = syn_lost(r.runs(v));
    r.row_ci("no_ect_link6.7us", "p_conn_8", p);
    r.row_ci("no_ect_link6.7us", "p_conn_first_syn_8", f);
    r.row("no_ect_link6.7us", "syn_lost_8", lost);
    let here = share(r.all_runs(), here_v, connected);
    r.note(format!(
            "8 flows on links of {} µs instead of {} µs (rows no_ect_link6.7us, one run of {probes} probes: the base path at which the model's ping through the empty DCTCP queue takes the seed's minimum DCTCP ping, 28 µs): C·RTT + K is {:.1} packets, still below the 16 that 8 windows at the floor would hold, yet {:.2} of the probes connect (the first SYN for {:.2}) and {:.2} of the SYNs are lost, against {:.2} connecting with the seed configuration's 5 µs",
            secs(PING_MIN_LINK) * 1e6,
            secs(LINK_DELAY) * 1e6,
            pipe_at(PING_MIN_LINK),
            p.mean,
            f.mean,
            lost,
            here.mean,
        ));
}

/// Linux DCTCP's floor of 2 segments against C·RTT + K, and how the probes were run.
fn floor_notes(r: &mut Done<Cfg, Vec<Probe>>, probes: usize) {
    let pipe = pipe_at(LINK_DELAY);
    // Linux DCTCP never takes ssthresh below 2 segments: N flows whose windows all stood at
    // that floor would hold 2N packets, more than C·RTT + K from some N on.
    let floor_above: Vec<String> = COMPETING
        .iter()
        .filter(|&&n| 2.0 * n as f64 > pipe)
        .map(|n| n.to_string())
        .collect();
    r.note(format!(
        "with the seed's 9000-byte frames C·RTT + K is {pipe:.1} packets, and {} flows at Linux DCTCP's floor of 2 segments each would hold more than that: if every window stood at the floor, the mean queue would stay above K. The floor bounds ssthresh, not what is in flight (in a CWR episode PRR sets cwnd to the packets in flight plus what it releases, down to 1; a flow's window waits for its ACK), so the count does not say that the queue never falls below K: whether it does depends on how the flows' windows and ACKs interleave on the path's exact timing (the model: rows syn_lost_*; the seed: {} connecting at 8 flows, {} at 16)",
        floor_above.join(" and "),
        SEED_NO_ECT[3],
        SEED_NO_ECT[4],
    ));
    r.note(format!("{probes} probe connections per run, each judged against a {} s limit (SYN + one retransmission); a point's share is over all its runs' probes, its interval binomial (1.96·sqrt(p(1 − p)/m)), and the 'runs' of its row count probes; competing flows: DCTCP at 10 Gbit/s into the K = 75 KB DCTCP queue", secs(LIMIT)));
    r.note("the seed does not state its time limit or link rate; it used 5 repeats per point and does not say how many attempts each");
}
