//! `dctcp-buffer` — seed 000's two claims about switch buffers that its tables do not
//! number, on `dctcp-incast`'s seed configuration (19 senders → 1 receiver at 10 Gbit/s,
//! K = 75 KB, jumbo frames, the seed's DCTCP module and Linux 3.18 stack, a ping every
//! 0.2 s through the flows' queue) with the port's buffer swept from 0.5 to 10 MB:
//!
//! - beside its control law (seed 000 control law, after the DCTCP paper, seed 000 [2]):
//!   "DCTCP delivers the same or better throughput than normal TCP, while using 90% less
//!   buffer space";
//! - with its latency results (seed 000 table 3): "more buffer memory will lead to high
//!   latency", "Switches with larger amounts of RAM will incur increasing amounts of
//!   latency for CUBIC, but not for DCTCP".
//!
//! The readings, fixed before anything runs:
//! - "using 90% less buffer space" as the paper measures it, the buffer the flows occupy:
//!   DCTCP's time-average bottleneck queue at most 10% of CUBIC's at the seed's 5 MB
//!   (`queue_share`);
//! - the same sentence read as switch capacity: DCTCP with a tenth of the buffer (0.5 MB)
//!   moves at least what CUBIC moves with 5 MB (`tenth_buffer_throughput_pct`), and at
//!   5 MB at least CUBIC's (`throughput_pct`). "The same": within the seed's reporting
//!   precision, iperf's whole Mbit/s per flow, 0.5 of 521.7 Mbit/s (0.1%);
//! - "increasing amounts of latency for CUBIC": CUBIC's mean ping at 10 MB above its mean
//!   at 1 MB (`cubic_latency_increase_ms`, a difference at least 0);
//! - "but not for DCTCP": DCTCP's mean ping at 10 MB at most the seed's own DCTCP ping
//!   spread (its standard deviation, 0.01064 ms) above its mean at 1 MB
//!   (`dctcp_latency_increase_ms`).
//!
//! Beside them, a closed form for each CUBIC buffer: a drop-tail queue that CUBIC keeps
//! full stands between β·B and B (β = 717/1024 in 3.18's `tcp_cubic.c`: the deepest a
//! back-off of every flow at once can take it, the path's 25 KB BDP aside), so its
//! time-average lies in [0.7·B, B].

use super::common::{diff_ci, MeanCi};
use super::dctcp_incast::{scenario, SENDERS};
use super::study::{Of, Runs, Study, V};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::results::RunResult;
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "dctcp-buffer",
    seed_doc: "000 table 3, control law",
    about: "The incast with the switch buffer swept 0.5-10 MB: DCTCP's throughput with 90% less buffer, CUBIC's latency growing with the buffer and DCTCP's not",
    run,
};

/// The seed configuration's buffer (`dctcp-incast`): 5 MB.
const SEED_BUFFER: u64 = 5_000_000;

/// What one run gives.
#[derive(Clone, Debug)]
struct Out {
    /// Aggregate goodput of the 19 flows, Mbit/s.
    mbps: f64,
    /// The ping's mean round trip, ms.
    ping_ms: f64,
    /// Time-average of the bottleneck port's queue, bytes.
    queue_bytes: f64,
    /// `netstat -s` other TCP timeouts over the hosts.
    timeouts: u64,
}

fn out(r: &RunResult) -> Out {
    let q = r
        .queues
        .iter()
        .find(|q| q.name == "bottleneck")
        .expect("the star's bottleneck port");
    let p = &r.app::<crate::app::ping::PingResult>()[0];
    Out {
        mbps: r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 1e6,
        ping_ms: p.rtt_mean_s.unwrap_or(f64::NAN) * 1e3,
        queue_bytes: q.mean_bytes,
        timeouts: r.hosts.iter().map(|h| h.tcp_timeouts).sum(),
    }
}

/// One configuration: the algorithm and the port's buffer in bytes.
#[derive(Clone, Copy, Debug)]
struct Cfg {
    cc: &'static str,
    buffer: u64,
}

/// `dctcp-incast`'s seed scenario with the port buffer `buffer` (both queues' limit and
/// the shared one), K unchanged.
fn simulate(o: &Options, c: Cfg, dur: SimTime, seed: u64) -> Out {
    let mut sc = scenario(c.cc, dur, seed);
    let port = super::dctcp_common::seed_port(super::dctcp_incast::K, Limit::Bytes(c.buffer));
    if let TopologySpec::Star {
        link, other_queue, ..
    } = &mut sc.topology
    {
        link.queue = port.clone();
        *other_queue = port;
    }
    o.prepare(&mut sc);
    out(&crate::world::run(&sc).expect("valid scenario"))
}

/// Variant `a`'s mean aggregate goodput minus `b`'s, in percent of `b`'s (Welch).
fn pct_diff(r: &Runs<Out>, a: V, b: V) -> MeanCi {
    r.pct_diff(a, b, |o| o.mbps)
}

/// Variant `a`'s mean ping minus `b`'s, ms (Welch).
fn ping_diff(r: &Runs<Out>, a: V, b: V) -> MeanCi {
    diff_ci(&r.each(a, |o| o.ping_ms), &r.each(b, |o| o.ping_ms))
}

/// Variant `a`'s mean queue over `b`'s, with the interval of `a`'s mean scaled by `b`'s
/// mean (CUBIC's full queue varies little between runs).
fn queue_share(r: &Runs<Out>, a: V, b: V) -> MeanCi {
    let (ma, mb) = (r.mean(a, |o| o.queue_bytes), r.mean(b, |o| o.queue_bytes));
    MeanCi {
        mean: ma.mean / mb.mean,
        half: ma.half / mb.mean + ma.mean * mb.half / (mb.mean * mb.mean),
        n: ma.n.min(mb.n),
    }
}

const SHARE_WHY: &str = "seed 000 control law (after the DCTCP paper, whose figures measure the queue the flows occupy): '90% less buffer space' than TCP, so at most a tenth of CUBIC's time-average queue";
const SAME_WHY: &str = "'the same or better throughput': at least CUBIC's, less the seed's reporting precision (iperf's whole Mbit/s per flow, 0.5 of 521.7 Mbit/s: 0.1%)";
const CUBIC_UP_WHY: &str = "seed 000 table 3's text: 'larger amounts of RAM will incur increasing amounts of latency for CUBIC': the mean ping at 10 MB minus at 1 MB, above 0";
const DCTCP_FLAT_WHY: &str = "seed 000 table 3's text: '… but not for DCTCP': the mean ping at 10 MB at most the seed's own DCTCP ping spread (table 3's standard deviation, 0.01064 ms) above the mean at 1 MB";
const FULL_WHY: &str = "a drop-tail queue CUBIC keeps full stands between β·B and B: β = 717/1024 (Linux 3.18 tcp_cubic.c) is the deepest one back-off of every flow at once takes it (the path's 25 KB BDP aside), so the time-average is in [0.7·B, B]";

fn run(o: &Options) -> Report {
    let dur = if o.quick { 2 * SEC } else { 30 * SEC };
    let (n, cap) = if o.quick { (2, 4) } else { (3, 10) };
    let mb = |x: f64| (x * 1e6) as u64;
    let cubic_bufs: &[u64] = if o.quick {
        &[mb(1.0), SEED_BUFFER, mb(10.0)]
    } else {
        &[mb(1.0), mb(2.5), SEED_BUFFER, mb(10.0)]
    };
    let dctcp_bufs: &[u64] = if o.quick {
        &[mb(0.5), mb(1.0), SEED_BUFFER, mb(10.0)]
    } else {
        &[mb(0.5), mb(1.0), mb(2.5), SEED_BUFFER, mb(10.0)]
    };
    let name = |cc: &str, b: u64| format!("{cc}_{}mb", b as f64 / 1e6);
    let mut s: Study<Cfg, Out> = Study::new("dctcp-buffer", o);
    let mut var = |cc: &'static str, bufs: &[u64]| -> Vec<(u64, V)> {
        bufs.iter()
            .map(|&buffer| {
                (
                    buffer,
                    s.variant(&name(cc, buffer), Cfg { cc, buffer }, n, cap),
                )
            })
            .collect()
    };
    let cubic = var("cubic", cubic_bufs);
    let dctcp = var("dctcp", dctcp_bufs);
    let at = |vs: &[(u64, V)], b: u64| vs.iter().find(|x| x.0 == b).expect("a swept buffer").1;
    let (c1, c5, c10) = (
        at(&cubic, mb(1.0)),
        at(&cubic, SEED_BUFFER),
        at(&cubic, mb(10.0)),
    );
    let (d05, d1, d5, d10) = (
        at(&dctcp, mb(0.5)),
        at(&dctcp, mb(1.0)),
        at(&dctcp, SEED_BUFFER),
        at(&dctcp, mb(10.0)),
    );
    s.claim(
        "DCTCP's queue at most a tenth of CUBIC's at 5 MB (queue_share)",
        0.10,
        Tol::AtMost,
        SHARE_WHY,
        Of::with(&[d5, c5], move |r| queue_share(r, d5, c5)),
    );
    s.claim(
        "DCTCP's throughput at least CUBIC's at 5 MB, % difference (throughput_pct)",
        -0.1,
        Tol::AtLeast,
        SAME_WHY,
        Of::with(&[d5, c5], move |r| pct_diff(r, d5, c5)),
    );
    s.claim(
        "DCTCP at 0.5 MB moves at least CUBIC at 5 MB, % difference (tenth_buffer_throughput_pct)",
        -0.1,
        Tol::AtLeast,
        SAME_WHY,
        Of::with(&[d05, c5], move |r| pct_diff(r, d05, c5)),
    );
    s.claim(
        "CUBIC's ping at 10 MB above at 1 MB, ms (cubic_latency_increase_ms)",
        0.0,
        Tol::AtLeast,
        CUBIC_UP_WHY,
        Of::with(&[c10, c1], move |r| ping_diff(r, c10, c1)),
    );
    s.claim(
        "DCTCP's ping at 10 MB at most its spread above at 1 MB, ms (dctcp_latency_increase_ms)",
        0.01064,
        Tol::AtMost,
        DCTCP_FLAT_WHY,
        Of::with(&[d10, d1], move |r| ping_diff(r, d10, d1)),
    );
    for &(b, v) in &cubic {
        s.check(
            &format!("{}: time-average queue in [0.7·B, B]", name("cubic", b)),
            Against::ClosedForm,
            b as f64,
            Tol::Factor(0.7, 1.0),
            FULL_WHY,
            Of::mean(v, |o: &Out| o.queue_bytes),
        );
    }
    let mut d = s.run(|&c, seed| simulate(o, c, dur, seed));
    for (cc, vs) in [("cubic", &cubic), ("dctcp", &dctcp)] {
        for &(b, v) in vs.iter() {
            let row = name(cc, b);
            let m = [
                ("throughput_mbps", d.mean(v, |o| o.mbps)),
                ("ping_mean_ms", d.mean(v, |o| o.ping_ms)),
                ("queue_mean_kb", d.mean(v, |o| o.queue_bytes / 1e3)),
                ("timeouts_total", d.mean(v, |o| o.timeouts as f64)),
            ];
            for (metric, x) in m {
                d.row_ci(&row, metric, x);
            }
        }
    }
    d.note(format!(
        "dctcp-incast's seed configuration ({SENDERS} senders, 10 Gbit/s, K = 75 KB, MTU 9000, Linux 3.18 with the seed's DCTCP module) with the port buffer B swept (both queues' limit and the shared one); {} s of traffic per run",
        secs(dur)
    ));
    d.note(format!(
        "DCTCP's standing queue is set by its windows' floor, not by the buffer: {SENDERS} windows of 2 segments of 9,038 B are {:.0} KB, above K = 75 KB and the path's 25 KB BDP; any buffer above that holds it",
        (SENDERS as f64 * 2.0 * 9038.0) / 1e3
    ));
    d.finish()
}
