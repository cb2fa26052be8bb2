//! `dctcp-incast` — seed 000, tables 1–3: 19 senders → 1 receiver at 10 Gbit/s, every
//! sender running `iperf -c -t 30` at once, CUBIC vs DCTCP (K = 75 KB), with a ping every
//! 0.2 s from one sender to the receiver through the same queue (`ping -Q 0x6` — DSCP 1 and
//! ECT(0) — for DCTCP, so the probe uses the DCTCP queue and is marked, not dropped).
//! DCTCP is the seed's module, Linux 3.18's (`dctcp_common::SEED_DCTCP_MODULE`).
//!
//! Switch buffer: 5 MB for the port. The seed's CUBIC ping latency (4.0 ms mean, 4.2 ms
//! max) is the drop-tail queue standing full: 4.2 ms × 10 Gbit/s ≈ 5.2 MB, which is what a
//! shared-buffer commodity ASIC (9–12 MB in all) lets one congested port take. Timeouts
//! are counted per sending host as `netstat -s` "other TCP timeouts" counts them
//! (`HostResult::tcp_timeouts`), and every RTO expiry beside (row `rto_expiries_total`).

use super::common::{median, MeanCi};
use super::dctcp_common::*;
use super::study::{Done, Study, V};
use super::{Experiment, Judge, Options, Report, Tol};
use crate::engine::*;
use crate::results::RunResult;
use crate::scenario::*;
use crate::stats::jain;
use crate::tcp::era::Era;

pub const EXPERIMENT: Experiment = Experiment {
    name: "dctcp-incast",
    seed_doc: "000 tables 1-3",
    about: "19 senders → 1 receiver at 10 Gbit/s for 30 s: timeouts, throughput, fairness, ping latency; CUBIC vs DCTCP",
    run,
};

pub const SENDERS: usize = 19;
pub const RATE: u64 = 10_000_000_000;
/// Per-link propagation delay: base RTT 4 × 5 µs = 20 µs plus serialisation (the seed's
/// DCTCP minimum ping was 28 µs including host stacks).
pub const LINK_DELAY: SimTime = 5 * US;
pub const BUFFER: Limit = Limit::Bytes(5_000_000);
pub const K: Limit = Limit::Bytes(75_000);

/// The seed's switch: `senders` hosts and the receiver on one 10 Gbit/s switch, links of
/// `link` one way, every port the seed's two queues (K = 75 KB, 5 MB shared).
pub fn seed_star(senders: usize, link: SimTime) -> TopologySpec {
    TopologySpec::Star {
        senders,
        link: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: RATE,
            delay: link,
            queue: seed_port(K, BUFFER),
        },
        other_queue: seed_port(K, BUFFER),
    }
}

pub fn scenario(cc: &str, duration: SimTime, seed: u64) -> Scenario {
    scenario_with(cc, duration, seed, SEED_MTU, false)
}

/// [`scenario`] with every host's IP MTU `mtu`; with `flows_dscp0`, the iperf flows carry
/// DSCP 0 (the seed's `iperf -c` has no `-S`) while the ping keeps its `-Q 0x6`.
pub fn scenario_with(
    cc: &str,
    duration: SimTime,
    seed: u64,
    mtu: u32,
    flows_dscp0: bool,
) -> Scenario {
    let topo = seed_star(SENDERS, LINK_DELAY);
    let mut sc = Scenario::new(&format!("dctcp-incast-{cc}"), topo, duration);
    sc.seed = seed;
    let mut tcp = endpoint(cc);
    // The seed's hosts ran Linux 3.18 (FACK, early retransmit, 3.18's probe, no RACK):
    // its profile, with the buffers the experiment sets.
    crate::tcp::config::set_era(&mut tcp, Era::Linux3_18, &["sndbuf", "rcvbuf"]);
    tcp.mtu = mtu;
    let ping_dscp = tcp.dscp;
    if flows_dscp0 {
        tcp.dscp = 0;
    }
    for i in 0..SENDERS {
        sc.add_flow(&format!("s{i}"), "recv", tcp.clone());
    }
    sc.apps.pings.push(PingSpec {
        from: "s0".into(),
        to: "recv".into(),
        start: 100 * MS,
        interval: 200 * MS,
        size: 84,
        ect: cc == "dctcp",
        dscp: ping_dscp,
    });
    sc
}

const FRAMING: &str = "the seed's 19 flows sum to 9.91-9.92 Gbit/s, 0.2% above the 9.90 Gbit/s of TCP payload that 10 GbE carries in 9000-byte frames (8,948 B per 9,038 B), the seed's MTU (dctcp_common::SEED_MTU; with 1500-byte frames 9.41: rows mtu1500_*), so its accounting runs that much high: ±1%";
const FRAMING_SPREAD: &str = "the mean's ±1% (FRAMING) plus the seed's own spread of flows around its mean (DCTCP: max 1.0% above, min 0.6% below), which the model's flows, sharing the link evenly, do not have: ±2%";
const CUBIC_RTO: &str = "the seed ran once; its hosts' counts spread 17% around their mean (stddev 29.0 of 169.8), about what a second run would move each statistic: ±17%";
const CUBIC_RTO_SD: &str = "the standard deviation of 19 hosts' counts, from one run: its own relative standard error is 1/√(2·18) = 17%, ±2 of them";
const CUBIC_TPUT: &str = "the seed ran once; its flows spread 20% around their mean (stddev 105.9 of 521.7), about what a second run would move each order statistic: ±20%";
const CUBIC_TPUT_SD: &str = "the standard deviation of 19 flows' throughputs, from one run: its own relative standard error is 1/√(2·18) = 17%, ±2 of them";
const CUBIC_FAIR: &str = "Jain's index is 1/(1 + CV²) of the flows' throughputs: the seed's CV 0.203 within its ±33% (2 standard errors of a standard deviation of 19 values) gives 0.932 to 0.982: ±0.03";
const DCTCP_RTO: &str = "an upper bound: the seed counted every 'other TCP timeout' on the hosts and believes DCTCP's are all non-test traffic; the simulation has only the test traffic";
const CUBIC_LAT: &str = "CUBIC keeps the drop-tail queue near the full 5 MB buffer (4.0 ms at 10 Gbit/s); how full it stands between losses depends on how bursty the senders are (segmentation offload, which the seed's hosts had and these do not run): ±10%";
const PING_SD: &str = "the standard deviation of the seed's ~150 pings (30 s at 0.2 s): its relative standard error is 1/√(2·149) = 5.8%, ±2 of them";
const DCTCP_LAT: &str = "the model's unloaded path is 20 µs of wire and serialisation with no host stacks, the seed's minimum 28 µs: ±8 µs, the host stacks' share";

const STDDEV_BOUND: &str = "an upper bound: the seed's spread includes unsynchronised iperf intervals and whole-Mbit/s values, so a model without them must not spread more over the seed's 30 s; over a shorter run (--quick) the flows' means carry more of the start, and the bound widens as sqrt(30 s / run)";

/// The seed's numbers: (metric, cubic, dctcp, how each is judged).
const SEED: &[(&str, f64, f64, Judge, Judge)] = &[
    ("timeouts_total", 3227.0, 25.0, Judge::within(Tol::Rel(0.17), CUBIC_RTO), Judge::within(Tol::AtMost, DCTCP_RTO)),
    ("timeouts_mean", 169.842, 1.316, Judge::within(Tol::Rel(0.17), CUBIC_RTO), Judge::within(Tol::AtMost, DCTCP_RTO)),
    ("timeouts_median", 183.0, 1.0, Judge::within(Tol::Rel(0.17), CUBIC_RTO), Judge::within(Tol::AtMost, DCTCP_RTO)),
    ("timeouts_max", 207.0, 5.0, Judge::within(Tol::Rel(0.17), CUBIC_RTO), Judge::within(Tol::AtMost, DCTCP_RTO)),
    ("timeouts_min", 123.0, 0.0, Judge::within(Tol::Rel(0.17), CUBIC_RTO), Judge::within(Tol::AtMost, DCTCP_RTO)),
    ("timeouts_stddev", 28.991, 1.600, Judge::within(Tol::Rel(0.33), CUBIC_RTO_SD), Judge::within(Tol::AtMost, DCTCP_RTO)),
    ("throughput_mean_mbps", 521.684, 521.895, Judge::within(Tol::Rel(0.01), FRAMING), Judge::within(Tol::Rel(0.01), FRAMING)),
    ("throughput_median_mbps", 464.0, 523.0, Judge::within(Tol::Rel(0.2), CUBIC_TPUT), Judge::within(Tol::Rel(0.02), FRAMING_SPREAD)),
    ("throughput_max_mbps", 776.0, 527.0, Judge::within(Tol::Rel(0.2), CUBIC_TPUT), Judge::within(Tol::Rel(0.02), FRAMING_SPREAD)),
    ("throughput_min_mbps", 403.0, 519.0, Judge::within(Tol::Rel(0.2), CUBIC_TPUT), Judge::within(Tol::Rel(0.02), FRAMING_SPREAD)),
    ("throughput_stddev_mbps", 105.891, 2.601, Judge::within(Tol::Rel(0.33), CUBIC_TPUT_SD), Judge::within(Tol::AtMost, STDDEV_BOUND)),
    ("fairness", 0.962, 0.999, Judge::within(Tol::Abs(0.03), CUBIC_FAIR), Judge::within(Tol::AtLeast, "the seed's own spread (stddev 2.601 of mean 521.9) gives Jain's index 0.99998; its 0.999 is that cut to three decimals, so at least 0.999 (the index is at most 1)")),
    ("latency_mean_ms", 4.0088, 0.04219, Judge::within(Tol::Rel(0.10), CUBIC_LAT), Judge::within(Tol::Abs(0.008), DCTCP_LAT)),
    ("latency_median_ms", 4.055, 0.0395, Judge::within(Tol::Rel(0.10), CUBIC_LAT), Judge::within(Tol::Abs(0.008), DCTCP_LAT)),
    ("latency_max_ms", 4.2, 0.085, Judge::within(Tol::Rel(0.10), CUBIC_LAT), Judge::within(Tol::Abs(0.008), DCTCP_LAT)),
    ("latency_min_ms", 3.32, 0.028, Judge::within(Tol::Rel(0.10), CUBIC_LAT), Judge::within(Tol::Abs(0.008), DCTCP_LAT)),
    ("latency_stddev_ms", 0.1666, 0.01064, Judge::within(Tol::Rel(0.12), PING_SD), Judge::within(Tol::Rel(0.12), PING_SD)),
];

/// Mean, median, max, min and population standard deviation of `v` (sorted here).
fn summary(mut v: Vec<f64>) -> [f64; 5] {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    [mean, median(&v), v[v.len() - 1], v[0], sd]
}

/// Every RTO expiry of a run's flows (netstat counts only some: `metrics`' timeouts).
fn rto_expiries(r: &RunResult) -> f64 {
    r.flows.iter().map(|f| f.timeouts).sum::<u64>() as f64
}

/// The table's metrics from one run, in `SEED` order.
pub fn metrics(r: &RunResult) -> Vec<f64> {
    let to: Vec<f64> = r.hosts.iter().map(|h| h.tcp_timeouts as f64).collect();
    let tp: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
    let p = &r.app::<crate::app::ping::PingResult>()[0];
    let ms = |x: Option<f64>| x.unwrap_or(f64::NAN) * 1e3;
    let [tm, tmed, tmax, tmin, tsd] = summary(to.clone());
    let [m, med, max, min, sd] = summary(tp.clone());
    vec![
        to.iter().sum(),
        tm,
        tmed,
        tmax,
        tmin,
        tsd,
        m,
        med,
        max,
        min,
        sd,
        jain(&tp),
        ms(p.rtt_mean_s),
        ms(p.rtt_median_s),
        ms(p.rtt_max_s),
        ms(p.rtt_min_s),
        ms(p.rtt_stddev_s),
    ]
}

/// A configuration of the incast: the algorithm, the hosts' MTU, the iperf flows at DSCP 0
/// (the ping keeps DSCP 1), today's DCTCP module instead of 3.18's.
#[derive(Clone, Copy, Debug)]
struct Cfg {
    cc: &'static str,
    mtu: u32,
    dscp0: bool,
    today: bool,
}

/// What the rows and notes read after the runs.
struct Outcomes {
    /// Each seed configuration's metrics (`SEED` order): mean and interval over its runs.
    m: Vec<Vec<MeanCi>>,
    /// The first run of each seed configuration (the notes describe it).
    runs: Vec<RunResult>,
    /// Each seed configuration's RTO expiries, mean over its runs.
    rto_means: Vec<f64>,
    /// The 1500-byte side runs' metrics.
    sm: Vec<Vec<f64>>,
    /// DCTCP's iperf flows in the default queue: the seed's module, today's.
    dscp0: RunResult,
    dscp0_linux: RunResult,
}

/// Where metric `name` is in `SEED`.
fn at(name: &str) -> usize {
    SEED.iter()
        .position(|x| x.0 == name)
        .expect("a seed metric")
}

/// The seed's DCTCP number of metric `name`.
fn seed_d(name: &str) -> f64 {
    SEED[at(name)].2
}

fn run(o: &Options) -> Report {
    let dur = if o.quick { 3 * SEC } else { 30 * SEC };
    // CUBIC's drop-tail losses depend on microsecond alignments (phase effects): every
    // variant runs several seeds (hosts' processing jitter differs) and each metric is
    // their mean with a 95% confidence interval.
    let (n, cap) = if o.quick { (3, 3) } else { (5, 10) };
    let linux = TcpConfig::default().mtu;
    let cfg = |cc, mtu, dscp0, today| Cfg {
        cc,
        mtu,
        dscp0,
        today,
    };
    let mut s = Study::new("dctcp-incast", o);
    let variants = [
        s.variant("cubic", cfg("cubic", SEED_MTU, false, false), n, cap),
        s.variant("dctcp", cfg("dctcp", SEED_MTU, false, false), n, cap),
    ];
    // Side runs: each variant with Linux's default 1500-byte frames; DCTCP with its iperf
    // flows in the default queue (DSCP 0), the seed's module and today's.
    let small = [
        s.variant("cubic_mtu1500", cfg("cubic", linux, false, false), 1, 1),
        s.variant("dctcp_mtu1500", cfg("dctcp", linux, false, false), 1, 1),
    ];
    let dscp0 = s.variant("dctcp_dscp0", cfg("dctcp", SEED_MTU, true, false), 1, 1);
    let dscp0_linux = s.variant(
        "dctcp_dscp0_linux",
        cfg("dctcp", SEED_MTU, true, true),
        1,
        1,
    );
    seed_numbers(&mut s, variants, dur);
    let d = s.run(|c, seed| {
        let mut sc = scenario_with(c.cc, dur, seed, c.mtu, c.dscp0);
        if c.today {
            for f in &mut sc.apps.flows {
                f.tcp.cc = "dctcp".into();
            }
        }
        o.prepare(&mut sc);
        crate::world::run(&sc).expect("valid scenario")
    });
    let out = outcomes(&d, variants, small, dscp0, dscp0_linux);
    let mut r = d.finish();
    queue_notes(&mut r, &out.runs);
    mtu1500(&mut r, &out, o);
    dscp0_notes(&mut r, &out, o);
    r.note(format!(
        "switch: 5 MB port buffer shared by a DCTCP queue (DSCP 1, mark at K = 75 KB) and a drop-tail queue, DRR between them; link delay {} µs (base RTT 20 µs); {} s of traffic",
        LINK_DELAY / US,
        secs(dur)
    ));
    hypotheses(&mut r, &out);
    r
}

/// Every seed number, in each seed configuration (`SEED`: cubic, dctcp).
fn seed_numbers(s: &mut Study<Cfg, RunResult>, variants: [V; 2], dur: SimTime) {
    for (vi, &v) in variants.iter().enumerate() {
        for (mi, (name, cubic, dctcp, jc, jd)) in SEED.iter().enumerate() {
            let (seed, judge) = if vi == 0 {
                (*cubic, *jc)
            } else {
                (*dctcp, *jd)
            };
            let tol = if judge.why == STDDEV_BOUND {
                Tol::Factor(0.0, (30.0 / secs(dur)).sqrt())
            } else {
                judge.tol
            };
            s.seed(v, name, seed, tol, judge.why, move |r: &RunResult| {
                metrics(r)[mi]
            });
        }
    }
}

/// The rows' and notes' inputs: the seed configurations' means and first runs, the side
/// runs.
fn outcomes(
    d: &Done<Cfg, RunResult>,
    variants: [V; 2],
    small: [V; 2],
    dscp0: V,
    dscp0_linux: V,
) -> Outcomes {
    let all = d.all_runs();
    let m: Vec<Vec<MeanCi>> = variants
        .iter()
        .map(|&v| {
            (0..SEED.len())
                .map(|mi| all.mean(v, |r| metrics(r)[mi]))
                .collect()
        })
        .collect();
    // The notes describe the first run of each variant.
    let runs: Vec<RunResult> = variants.iter().map(|&v| d.first(v).clone()).collect();
    let rto_means: Vec<f64> = variants
        .iter()
        .map(|&v| all.mean(v, rto_expiries).mean)
        .collect();
    let sm: Vec<Vec<f64>> = small.iter().map(|&v| metrics(d.first(v))).collect();
    let dscp0 = d.first(dscp0).clone();
    let dscp0_linux = d.first(dscp0_linux).clone();
    Outcomes {
        m,
        runs,
        rto_means,
        sm,
        dscp0,
        dscp0_linux,
    }
}

/// The bottleneck queue and retransmissions of each seed configuration's first run.
fn queue_notes(r: &mut Report, runs: &[RunResult]) {
    let variants = ["cubic", "dctcp"];
    let bott = |i: usize| {
        runs[i]
            .queues
            .iter()
            .find(|q| q.name == "bottleneck")
            .cloned()
    };
    for (i, v) in variants.iter().enumerate() {
        if let Some(q) = bott(i) {
            r.note(format!(
                "{v}: bottleneck queue mean {:.0} KB, max {:.0} KB, {} drops, {} CE marks; {} retransmissions",
                q.mean_bytes / 1e3,
                q.max_bytes as f64 / 1e3,
                q.drops,
                q.marks,
                runs[i].flows.iter().map(|f| f.retransmits).sum::<u64>()
            ));
        }
    }
}

/// Every RTO expiry, and the side runs with 1500-byte frames: the metrics that decide
/// between the two MTUs.
fn mtu1500(r: &mut Report, out: &Outcomes, o: &Options) {
    let Outcomes {
        m, rto_means, sm, ..
    } = out;
    let variants = ["cubic", "dctcp"];
    let (tput, lat, rtos) = (
        at("throughput_mean_mbps"),
        at("latency_mean_ms"),
        at("timeouts_total"),
    );
    // Every RTO expiry of the test flows, beside netstat's 'other TCP timeouts' above.
    for (vi, v) in variants.iter().enumerate() {
        r.row(v, "rto_expiries_total", rto_means[vi]);
    }
    for (vi, v) in variants.iter().enumerate() {
        r.row(v, "mtu1500_throughput_mean_mbps", sm[vi][tput]);
        r.row(v, "mtu1500_latency_mean_ms", sm[vi][lat]);
        r.row(v, "mtu1500_timeouts_total", sm[vi][rtos]);
    }
    r.note(format!(
        "Linux's default 1500-byte frames (rows mtu1500_*, one run per variant, seed {}): each flow gets {:.1} (CUBIC) and {:.1} (DCTCP) Mbit/s, 5% below the seed's 521.7 and 521.9, since 10 GbE carries 9.41 Gbit/s of payload in 1500-byte frames (1,448 B per 1,538 B) and 9.90 in 9000-byte ones (8,948 per 9,038): the seed's throughputs need jumbo frames. The DCTCP ping waits {:.3} ms with 1500-byte frames and {:.3} ms with 9000-byte ones (seed 0.042): {SENDERS} windows at Linux DCTCP's floor of 2 segments are {:.0} KB of 9000-byte packets, above the path's {:.0} KB (rate × base RTT) and K = 75 KB",
        o.seed,
        sm[0][tput],
        sm[1][tput],
        sm[1][lat],
        m[1][lat].mean,
        (SENDERS as u32 * 2 * SEED_MTU) as f64 / 1e3,
        (RATE as f64 * secs(4 * LINK_DELAY) / 8.0) / 1e3,
    ));
}

/// DCTCP's iperf flows in the default queue, the ping alone in the DCTCP queue.
fn dscp0_notes(r: &mut Report, out: &Outcomes, o: &Options) {
    let Outcomes {
        m,
        dscp0,
        dscp0_linux,
        ..
    } = out;
    let (lat, rtos) = (at("latency_mean_ms"), at("timeouts_total"));
    let (d0, dl) = (metrics(dscp0), metrics(dscp0_linux));
    let (x0, xl) = (rto_expiries(dscp0), rto_expiries(dscp0_linux));
    let (tsd, fair) = (at("throughput_stddev_mbps"), at("fairness"));
    r.row("dctcp", "dscp0_latency_mean_ms", d0[lat]);
    r.row("dctcp", "dscp0_latency_min_ms", d0[at("latency_min_ms")]);
    r.row("dctcp", "dscp0_latency_max_ms", d0[at("latency_max_ms")]);
    r.row("dctcp", "dscp0_timeouts_total", d0[rtos]);
    r.row("dctcp", "dscp0_rto_expiries_total", x0);
    r.row("dctcp", "dscp0_throughput_stddev_mbps", d0[tsd]);
    r.row("dctcp", "dscp0_fairness", d0[fair]);
    r.row("dctcp", "dscp0_linux_latency_mean_ms", dl[lat]);
    r.row("dctcp", "dscp0_linux_timeouts_total", dl[rtos]);
    r.row("dctcp", "dscp0_linux_rto_expiries_total", xl);
    r.row("dctcp", "dscp0_linux_throughput_stddev_mbps", dl[tsd]);
    // The flows' alpha at the end, from their `ss` lines (3.18: "alpha N ab_ecn …").
    let alphas: Vec<u32> = dscp0
        .flows
        .iter()
        .filter_map(|f| {
            f.ss.split(" alpha ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    r.note(format!(
        "the seed's iperf commands carry no TOS (`iperf -c <receiver> -t 30`, no -S), while its ping sets DSCP 1 (-Q 0x6). If the DCTCP flows' packets went to the default drop-tail queue (rows dscp0_*, one run, seed {}), the ping crosses the otherwise empty DCTCP queue, waiting only for its DRR turn: {:.3} ms mean ({:.3}-{:.3}), against the seed's {} ({}-{}) and {:.3} with the flows in the DCTCP queue. But the flows, unmarked, then meet the 5 MB buffer's losses, and the seed's DCTCP (Linux 3.18) answers a loss only by alpha, which without marks decays to its floor of 15/1024 (the flows' alpha at the end: {}-{} of 1024): {:.0} 'other TCP timeouts' ({:.0} RTO expiries of all kinds) over the 19 hosts, a throughput stddev of {:.1} Mbit/s and fairness {:.3}, against the seed's {} timeouts (which it believed were not test traffic), stddev {} and fairness {}. Today's DCTCP, which halves on a loss (Linux 5.1), gives {:.0} timeouts, {:.0} RTO expiries, stddev {:.1} and ping {:.3} ms (rows dscp0_linux_*); it is not what the seed ran",
        o.seed,
        d0[lat],
        d0[at("latency_min_ms")],
        d0[at("latency_max_ms")],
        seed_d("latency_mean_ms"),
        seed_d("latency_min_ms"),
        seed_d("latency_max_ms"),
        m[1][lat].mean,
        alphas.iter().min().copied().unwrap_or(0),
        alphas.iter().max().copied().unwrap_or(0),
        d0[rtos],
        x0,
        d0[tsd],
        d0[fair],
        seed_d("timeouts_total"),
        seed_d("throughput_stddev_mbps"),
        seed_d("fairness"),
        dl[rtos],
        xl,
        dl[tsd],
        dl[lat],
    ));
}

/// The seed's numbers no run reaches: its CUBIC timeouts and its DCTCP ping.
fn hypotheses(r: &mut Report, out: &Outcomes) {
    // Why no configuration of this model reaches the seed's CUBIC timeouts: one socket's
    // counted timeouts are at least an RTO apart, and Linux's RTO is at least srtt + rto_min.
    let rto_floor = TcpConfig::default().rto_min;
    let most = 30.0 / (secs(rto_floor) + 3.32e-3);
    r.note(format!(
        "the seed's CUBIC timeouts (a hypothesis, not shown by a run): Linux 3.18 counts an RTO as an 'other TCP timeout' only when it is the first of its series, outside recovery and loss, with nothing SACKed, as the model does (tcp_retransmit_timer; HostResult::tcp_timeouts). Two such RTOs of one socket are at least srtt + rto_min apart, so a 30 s flow counts at most {most:.0} with rto_min {} ms (srtt at least the seed's minimum ping, 3.32 ms): fewer than the seed's median host (183) and max (207), and 19 × {most:.0} = {:.0} < its total 3227. The seed's own DCTCP run on the same hosts counted at most 5 per host, so other sockets do not make up the difference: its hosts must have run a lower rto_min (below 30 s / 207 − 3.3 ms ≈ 141 ms, settable per route in 3.18). Lower rto_min alone does not produce them here (the model's RTOs fire in recovery with SACKed data, counted as TCPSackRecoveryFail); what the seed's count needs is a flight lost whole, or silent, in Open, several times a second per flow, which this model's switch and hosts do not produce",
        secs(rto_floor) * 1e3,
        19.0 * most
    ));
    // The ping alone in an empty queue: the DSCP 0 side run's minimum.
    let empty_us = metrics(&out.dscp0)[at("latency_min_ms")] * 1e3;
    r.note(format!(
        "the seed's DCTCP ping (a hypothesis, not shown by a run): the model's empty path takes {empty_us:.0} µs (dscp0_latency_min_ms), so the seed's ping waited at most {:.0} µs (its max {:.0} µs) and {:.0} µs on its mean: its queue stood below K = 75 KB (60 µs at 10 Gbit/s) most of the time. With the flows in the DCTCP queue the standing queue is set by the windows' floor (19 × 2 × 9038 B against C·RTT + K), not by K, so marking variants cannot lower it; and the seed's own SYN test (p_conn_16 = 0) says 16 DCTCP flows kept that queue above K. Both hold only if the incast's ping did not wait behind the flows (rows dscp0_*: then the flows lose their evenness here) or the two tests ran under other conditions",
        seed_d("latency_max_ms") * 1e3 - empty_us,
        seed_d("latency_max_ms") * 1e3,
        seed_d("latency_mean_ms") * 1e3 - empty_us,
    ));
}
