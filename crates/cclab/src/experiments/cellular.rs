//! `cellular` — congestion controls over a synthetic cellular link: throughput and delay
//! per algorithm, the plane Sprout (Winstein, Sivaraman & Balakrishnan, NSDI 2013, Fig. 1
//! and its per-trace figures) and Pantheon (Yan et al., USENIX ATC 2018, its cellular
//! scenarios' throughput/delay plots) draw, each algorithm one point.
//!
//! **No published number transfers.** Those figures are for recorded traces (Verizon,
//! AT&T, T-Mobile LTE and 3G in Sprout; Pantheon's cellular paths) with their own rates,
//! outages and buffers, which cclab ships none of (docs/references.md §20.2); a trace's
//! mean rate, its variability and the buffer set every point, so the numbers do not carry
//! over to another trace. What does carry over is what the link and each algorithm's
//! mechanism force whatever the trace — closed forms of the run's own link, judged here:
//!
//! - a link delivers no more than its opportunities: utilisation ≤ 1 (of the capacity
//!   the run's own opportunities give, counted from the same random stream);
//! - CUBIC keeps the link busy and its buffer full: after a loss its window is β = 0.7 of
//!   (buffer + BDP), so with a buffer B above the largest BDP the queue never empties
//!   (utilisation near 1), and it stays above 0.7·B − 0.3·BDP_good, less the BDP the link
//!   loses when it turns good (BDP_good − BDP_bad): a time-average backlog ≥ 0.48·B here;
//! - BBR v1 bounds what it has in flight by cwnd_gain · max-filtered bandwidth · min RTT
//!   (`bbr_target_cwnd`, docs/references.md §15.1): 2 × BDP at the good state's rate at
//!   most, so its queue stays below 2·BDP_good whatever the state — far below CUBIC's.
//!
//! **Configuration.** A dumbbell: one sender on 100 Mbit/s (2 ms), the bottleneck the
//! two-state Markov model (`rate = { markov = … }`, docs/scenario.md "Rate tables"): good
//! 12 Mbit/s for 2 s on average, bad 2 Mbit/s for 1 s, deliveries evenly spaced at the
//! state's rate (a scheduler granting the link at its rate), so that no delivery-rate
//! sample exceeds the state's rate and BBR's bound below is a closed form;
//! `examples/cellular.toml` has Sprout's Poisson deliveries, whose bursts BBR's max filter
//! can take for bandwidth above it (the row `bbr_poisson`, not judged, shows BBR's queue
//! higher there); 20 ms one way (min RTT 48 ms), a 250-packet drop-tail buffer; the ACKs
//! return over a fixed link at the model's mean rate (a second cellular link bunches them).
//! One bulk flow per algorithm, Linux's defaults; measured after a 5 s warm-up.
//!
//! Adding an algorithm is one line of [`ALGOS`]; the checks above are CUBIC's and BBR's,
//! the others are points of the plane. TCP Prague is two points, not judged: over the same
//! drop-tail buffer (no marks: it answers losses, halving as Reno) and with DualPI2 at
//! Linux's defaults in front of the link (`prague_dualpi2`: ECT(1) in the L queue, marked
//! past the 1 ms step, where an L4S sender is meant to run).
//!
//! **Prague behind DualPI2, and its cause run.** Behind DualPI2 Prague takes a small part
//! of this link (see the rows). The mechanism: a packet waits for the link's next delivery
//! opportunity, 1 ms apart at 12 Mbit/s and 6 ms at 2 Mbit/s, so a step at 1 ms of sojourn
//! marks packets that found the L queue empty and waited only for the link. The L4S
//! team's native AQM marks past 1 ms "unless the queue length is less than 2 MTU ... to
//! prevent excessive marking in cases where the drain rate is very low, so that a 1 ms
//! threshold would represent less than 2 full-sized packets. Otherwise the resulting
//! marking would severely under-utilize the link" (Briscoe, "The Native AQM for L4S
//! Traffic", arXiv:1904.07079, §1.1; docs/references.md §6.7). This link is below that
//! rate in both states (2 packets take 2 ms at 12 Mbit/s). The cause run
//! `prague_dualpi2_min_qlen_step2` is the same DualPI2 with Linux's knob for that floor,
//! tc's `min_qlen_step 2` (the step applies only to a packet that found at least 2 in the
//! L queue; Linux's default 0 applies it to all), and the check judges the source's claim
//! in its direction: utilisation without the floor is below utilisation with it. The
//! source does not quantify "severely", so the size of the gap is a row.
//!
use super::study::{Of, Study};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::qdisc::linkrate::{Markov, RateSource};
use crate::qdisc::QueueSpec;
use crate::report::svg;
use crate::scenario::*;
use crate::sim::Sim;

pub const EXPERIMENT: Experiment = Experiment {
    name: "cellular",
    seed_doc: "docs/references.md §20 (Mahimahi's mm-link; Sprout, NSDI 2013)",
    about: "CUBIC, BBR and Prague (drop-tail and DualPI2) over a synthetic two-state cellular link (12 ⇄ 2 Mbit/s): throughput and delay per algorithm, the delay/throughput plane; closed forms of the link and of each algorithm's queue; DualPI2's 1 ms step with and without a 2-packet floor (min_qlen_step)",
    run,
};

/// The algorithms, one point each in the plane.
const ALGOS: &[&str] = &["cubic", "bbr"];

const GOOD: u64 = 12_000_000;
const BAD: u64 = 2_000_000;
const BUFFER: u64 = 250;
const OWD: SimTime = 20 * MS;
const ACCESS: SimTime = 2 * MS;
const WARM: SimTime = 5 * SEC;

/// The link; `poisson`: Sprout's Poisson deliveries instead of evenly spaced ones.
fn model(poisson: bool) -> Markov {
    Markov {
        rate: [GOOD, BAD],
        mean: [2 * SEC, SEC],
        poisson,
    }
}

/// One configuration: an algorithm, over evenly spaced or Poisson deliveries, behind the
/// drop-tail buffer or DualPI2.
#[derive(Clone, Copy, Debug)]
struct Case {
    cc: &'static str,
    poisson: bool,
    dualpi2: bool,
    /// DualPI2's `min_qlen_step` (tc's key; Linux's default 0: the step applies to every
    /// L packet).
    min_qlen_step: u32,
}

/// The base round trip: 2 × (access + bottleneck + access).
const MIN_RTT: SimTime = 2 * (2 * ACCESS + OWD);

/// BDP in 1500-byte packets at `rate` over the base round trip.
fn bdp(rate: u64) -> f64 {
    rate as f64 * secs(MIN_RTT) / (1500.0 * 8.0)
}

#[derive(Clone)]
struct Run {
    /// IP bit/s the bottleneck sent over the window.
    mbps: f64,
    /// Of the capacity the window's opportunities gave.
    util: f64,
    /// The flow's smoothed RTT, sampled every 10 ms: mean and 95th percentile.
    rtt_ms: f64,
    rtt_p95_ms: f64,
    /// Time-average backlog of the bottleneck, packets.
    backlog: f64,
    drops: u64,
}

/// A quantity read from a run.
type Metric = fn(&Run) -> f64;

fn simulate(o: &Options, c: Case, dur: SimTime, seed: u64) -> Run {
    let cc = c.cc;
    let topo = TopologySpec::Dumbbell {
        senders: 1,
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: model(c.poisson).mean_bps(),
            delay: OWD,
            queue: if c.dualpi2 {
                let params = crate::qdisc::dualpi2::Params {
                    min_qlen_step: c.min_qlen_step,
                    ..Default::default()
                };
                QueueSpec::DualPi2(crate::qdisc::dualpi2::Spec { params })
            } else {
                QueueSpec::droptail(Limit::Packets(BUFFER))
            },
        },
        access_rate_bps: 100_000_000,
        access_delay: vec![ACCESS],
        access_queue: QueueSpec::droptail(Limit::Packets(1000)),
    };
    let mut sc = Scenario::new("cellular", topo, dur);
    sc.seed = seed;
    // The data's direction only: the ACKs go back at the model's mean rate, so that no
    // ACK bunching by a second cellular link inflates BBR's delivery-rate samples.
    sc.link_rates.push(crate::net::dynamics::LinkRateSpec {
        link: "bottleneck".into(),
        source: RateSource::Markov(model(c.poisson)),
    });
    sc.add_default_flows(&o.tcp(super::common::tcp(cc)));
    sc.output.cwnd_interval = Some(10 * MS);
    sc.output.queue_interval = Some(10 * MS);
    sc.output.queues = vec!["bottleneck".into()];
    o.prepare(&mut sc);
    let mut sim = Sim::new(&sc).expect("valid scenario");
    let port = sim.net.port_by_name("bottleneck").expect("a bottleneck");
    // The opportunities the bottleneck had in the window, drawn again from its stream.
    let rng = Rng::new(seed, crate::world::STREAM_LINK_RATE + port as u64);
    let opps =
        crate::qdisc::linkrate::count_opportunities(&sc.link_rates[0].source, rng, WARM, dur);
    let sent = |sim: &mut Sim| {
        let now = sim.q.now();
        sim.net.port_now(port, now).tx_bytes as f64 * 8.0
    };
    sim.run_until(WARM);
    let bits0 = sent(&mut sim);
    sim.run_until(dur);
    let bits = sent(&mut sim) - bits0;
    let drops = sim.net.port(port).stats.drops;
    let res = sim.results();
    let warm = secs(WARM);
    let mut rtts: Vec<f64> = (res.series.cwnd.iter())
        .filter(|c| c.t > warm && c.srtt_s > 0.0)
        .map(|c| c.srtt_s * 1e3)
        .collect();
    rtts.sort_by(|a, b| a.total_cmp(b));
    let q: Vec<f64> = (res.series.queue.iter())
        .filter(|q| q.t > warm)
        .map(|q| q.pkts as f64)
        .collect();
    Run {
        mbps: bits / secs(dur - WARM) / 1e6,
        util: bits / (opps as f64 * 1500.0 * 8.0),
        rtt_ms: rtts.iter().sum::<f64>() / rtts.len().max(1) as f64,
        rtt_p95_ms: crate::stats::quantile_sorted(&rtts, 0.95).unwrap_or(f64::NAN),
        backlog: q.iter().sum::<f64>() / q.len().max(1) as f64,
        drops,
    }
}

const WHY_CAP: &str = "closed form of the link: each opportunity carries one 1500-byte packet (mm-link's 1504 bytes with its 4-byte header), so the bytes sent over the window are at most the window's opportunities × 1500; counted from the same random stream, the bound is exact";
const WHY_CUBIC_UTIL: &str = "closed form (Appenzeller's rule for one flow): the buffer, 250 packets, exceeds the BDP at either rate (48 and 8 packets at 48 ms), so after CUBIC's cut to β = 0.7 of (buffer + BDP) the queue does not empty: the link wastes only the opportunities of the warm-up's end and of timeouts; at least 95% used";
const WHY_CUBIC_Q: &str = "closed form: between losses CUBIC's window is at least 0.7·(B + BDP), so its queue is at least 0.7·B − 0.3·BDP_good = 161 packets, less the BDP_good − BDP_bad = 40 packets the queue loses when the link turns good: a time-average backlog of at least 121/250 = 0.48 of the buffer";
const WHY_BBR_Q: &str = "closed form (tcp_bbr.c bbr_target_cwnd, docs/references.md §15.1): in flight at most cwnd_gain 2 × max-filtered bandwidth × min RTT; the filter's bandwidth is at most the good state's 12 Mbit/s, so the queue stays below 2·BDP_good = 96 packets (time average), whatever the state";

const WHY_FLOOR: &str = "Briscoe, The Native AQM for L4S Traffic (arXiv:1904.07079) §1.1: the 1 ms step applies unless the queue holds less than 2 MTU, \"necessary to prevent excessive marking in cases where the drain rate is very low, so that a 1 ms threshold would represent less than 2 full-sized packets. Otherwise the resulting marking would severely under-utilize the link\"; here 1 ms is 1 packet at 12 Mbit/s and 1/6 at 2 Mbit/s; Linux's knob for the floor is min_qlen_step; the source gives no size for \"severely\": the direction is judged (the interval of the difference below 0)";

fn run(o: &Options) -> Report {
    let dur = if o.quick { 25 * SEC } else { 120 * SEC };
    let (runs, cap) = if o.quick { (4, 8) } else { (6, 12) };
    let mut s: Study<Case, Run> = Study::new("cellular", o);
    let vars: Vec<_> = ALGOS
        .iter()
        .map(|&cc| {
            let c = Case {
                cc,
                poisson: false,
                dualpi2: false,
                min_qlen_step: 0,
            };
            s.variant(cc, c, runs, cap)
        })
        .collect();
    let mut checks = vec![];
    for (&cc, &v) in ALGOS.iter().zip(&vars) {
        checks.push(s.check(
            &format!("{cc}: utilisation of the link's opportunities"),
            Against::ClosedForm,
            1.0,
            Tol::AtMost,
            WHY_CAP,
            // A bound every run must keep: the largest run's, judged as it is.
            Of::with(&[v], move |runs| {
                let most = runs
                    .each(v, |r: &Run| r.util)
                    .into_iter()
                    .fold(0.0, f64::max);
                super::common::MeanCi::one(most)
            }),
        ));
        match cc {
            "cubic" => {
                checks.push(s.check(
                    "cubic: utilisation",
                    Against::ClosedForm,
                    0.95,
                    Tol::AtLeast,
                    WHY_CUBIC_UTIL,
                    Of::mean(v, |r: &Run| r.util),
                ));
                checks.push(s.check(
                    "cubic: time-average backlog / buffer",
                    Against::ClosedForm,
                    0.48,
                    Tol::AtLeast,
                    WHY_CUBIC_Q,
                    Of::mean(v, |r: &Run| r.backlog / BUFFER as f64),
                ));
            }
            "bbr" => checks.push(s.check(
                "bbr: time-average backlog / 2·BDP at the good rate",
                Against::ClosedForm,
                1.0,
                Tol::AtMost,
                WHY_BBR_Q,
                Of::mean(v, |r: &Run| r.backlog / (2.0 * bdp(GOOD))),
            )),
            _ => {}
        }
    }
    // A row, not judged: BBR over Poisson deliveries, where the bound above is not a closed
    // form (a delivery-rate sample may exceed the state's rate).
    let mut vars = vars;
    vars.push(s.variant(
        "bbr_poisson",
        Case {
            cc: "bbr",
            poisson: true,
            dualpi2: false,
            min_qlen_step: 0,
        },
        runs,
        runs,
    ));
    // Rows, not judged: TCP Prague over the drop-tail buffer and behind DualPI2.
    // The cause run of the last: the same DualPI2 with the step applied only to a packet
    // that found at least 2 in the L queue (tc's `min_qlen_step 2`).
    for (name, dualpi2, min_qlen_step) in [
        ("prague", false, 0),
        ("prague_dualpi2", true, 0),
        ("prague_dualpi2_min_qlen_step2", true, 2),
    ] {
        let c = Case {
            cc: "prague",
            poisson: false,
            dualpi2,
            min_qlen_step,
        };
        // The two behind DualPI2 are read by the check below: more runs while it is open.
        let most = if dualpi2 { cap } else { runs };
        vars.push(s.variant(name, c, runs, most));
    }
    let (no_floor, floor) = (vars[vars.len() - 2], vars[vars.len() - 1]);
    checks.push(s.check(
        "prague behind DualPI2 (1 ms step): utilisation without the 2-packet floor − with it (tc min_qlen_step 2), % of with",
        Against::Published,
        0.0,
        Tol::AtMost,
        WHY_FLOOR,
        Of::with(&[no_floor, floor], move |runs| {
            runs.pct_diff(no_floor, floor, |r: &Run| r.util)
        }),
    ));
    let mut d = s.run(|&c, seed| simulate(o, c, dur, seed));
    let mut plot = svg::Plot {
        title: "cellular link (12 ⇄ 2 Mbit/s Markov): throughput against delay".into(),
        x_label: "RTT, 95th percentile of srtt (ms)".into(),
        y_label: "throughput (Mbit/s)".into(),
        ..Default::default()
    };
    for &v in &vars {
        let name = d.name(v).to_string();
        let rows: [(&str, Metric); 6] = [
            ("throughput_mbps", |r| r.mbps),
            ("utilisation", |r| r.util),
            ("rtt_mean_ms", |r| r.rtt_ms),
            ("rtt_p95_ms", |r| r.rtt_p95_ms),
            ("backlog_pkts", |r| r.backlog),
            ("drops", |r| r.drops as f64),
        ];
        for (metric, f) in rows {
            let x = d.mean(v, f);
            d.row_ci(&name, metric, x);
        }
        plot.lines.push(svg::Line {
            name: name.clone(),
            points: d.runs(v).iter().map(|r| (r.rtt_p95_ms, r.mbps)).collect(),
            markers: true,
            dashed: false,
        });
    }
    d.report
        .plots
        .push(("cellular.svg".into(), svg::render(&plot)));
    for c in checks {
        d.emit(c);
    }
    d.note(format!(
        "dumbbell: one sender at 100 Mbit/s (2 ms) → bottleneck following a two-state Markov model (good 12 Mbit/s for 2 s on average, bad 2 Mbit/s for 1 s; evenly spaced deliveries of 1500-byte packets at the state's rate; mean 26/3 Mbit/s), 20 ms one way, 250-packet drop-tail; min RTT {} ms; the ACKs return over a fixed 26/3 Mbit/s link; one bulk flow per algorithm (Linux defaults); {} s runs, measured after {} s; means over {runs} runs (seeds {}…), up to {cap}",
        secs(MIN_RTT) * 1e3,
        secs(dur),
        secs(WARM),
        o.seed,
    ));
    d.note("bbr_poisson: BBR over the same model with Poisson deliveries (Sprout's model; examples/cellular.toml), not judged: a burst of deliveries above the state's rate can reach BBR's max-filtered bandwidth, so 2·BDP at the good rate no longer bounds its in-flight cap; its queue is higher than over evenly spaced deliveries");
    d.note("no published figure is judged: Sprout's and Pantheon's cellular points are for recorded traces whose rates, outages and buffers differ from this model (docs/references.md §20.2); the checks are closed forms of this link and of each algorithm's window");
    d.finish()
}
