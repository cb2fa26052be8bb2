//! `incast-qct` — partition/aggregate queries over a k = 8 fat-tree: one aggregator (h0)
//! asks n workers (h1 … hn, across racks and pods) at once and waits for every answer, the
//! DCTCP paper's incast test ([2] §4.2: 1 MB in all per query, split over the n
//! responders, on persistent connections), for n = 8 … 64, CUBIC against DCTCP. Reported:
//! query completion time (mean, p99, max) and RTO expiries against fan-in.
//!
//! The mechanism, and what is checked: the n answers converge on the aggregator's edge
//! port. A response that does not fit in the port's buffer loses packets; a lost tail
//! segment, or a window too small for three duplicate ACKs, waits for the retransmission
//! timeout (200 ms, three orders of magnitude above the ideal 0.84 ms of 1 MB at
//! 10 Gbit/s): the query time collapses onto the RTO. DCTCP's marking stops the growth of
//! later windows, not the first flight of every responder at once, so its limit is where
//! n first flights overflow the buffer ([2] §4.2: no timeouts up to about 35 responders,
//! with a 100-packet static buffer per port and the initial window of its 2010 kernels).
//! Here the port holds 250 packets and the initial window is the era's 3 segments (RFC
//! 3390 at MSS 1448, below): n × 3 ≤ 250 gives n ≤ 83, beyond the fan-ins run ([2]'s 100
//! packets would give 33).
//!
//! **Era.** [2] (SIGCOMM 2010, docs/references.md §1C) tested on hosts of its year; the
//! kernel version is not in our notes of it, and the Linux of 2010 is taken: a 2.6.3x
//! kernel (2.6.32–2.6.36, with RFC 3390's initial window: 10 segments came in 2.6.39,
//! which also fits §4.2's ~35 responders over 100 packets). Its nearest profile is `linux = "2.6"` (2.6.9, 2004: RFC 3390's
//! initial window, cwnd counted per ACK, FACK, D-SACK, rate halving, no F-RTO, no early
//! retransmit, no tail loss probe, no RACK, no PRR), and what a 2.6.3x kernel had beside
//! it the experiment sets as keys: F-RTO (`frto`, `tcp_frto` = 2 in 2.6.32), receive
//! autotuning (`rcv_autotune`, `tcp_moderate_rcvbuf` = 1 since 2.6.7) and the 4 MiB
//! buffer maxima (`tcp_rmem[2]`, `tcp_wmem[2]` of 2.6.32's `tcp_init` on a large host).
//! Differences left: 2.6.32's rate halving reduces only on ACKs that make progress and
//! down to ssthresh (2.6.9's on every ACK, down to ssthresh/2); CUBIC and DCTCP are
//! today's modules. The hosts run without TCP small queues (`[host] tsq = false`: TSQ
//! came in Linux 3.6, 2012); with it on, as before, the quick run's query times differ by
//! at most 0.24 µs (CUBIC's p99 at 64 responders) and nothing else moves (`reproduce
//! incast-qct --quick --json`, both ways, 2026-12-05). What the era does to DCTCP: rate
//! halving holds cwnd at one above what is in flight on every ACK in CWR, so an answer
//! that ends in CWR leaves cwnd at 1–2 and the next one waits for delayed ACKs (40 ms):
//! DCTCP's p99 is ~80 ms at 16 and 64 responders (0.86 ms at 16 with PRR, `rate_halving =
//! false`), still without an RTO; at 8 it is 0.87 ms since cwnd grows per window as
//! Linux's `tcp_cwnd_validate` (`--quick`, seed 1, at 85c5f0f; 80 ms before).
//!
//! Configurations: each algorithm at each fan-in (`cubic-n8` … `dctcp-n64`), one run each
//! (its queries are the sample); no seed numbers.

use super::study::{Study, V};
use super::{Against, Experiment, Options, Report};
use crate::report::svg;
use crate::scenario::parse_scenario;

pub const EXPERIMENT: Experiment = Experiment {
    name: "incast-qct",
    seed_doc: "000 / [2] §4.2 incast",
    about: "query completion time vs fan-in (8-64 responders, 1 MB per query) on a k = 8 fat-tree, CUBIC vs DCTCP",
    run,
};

const TOTAL: u64 = 1_000_000;
const BUFFER_PKTS: u64 = 250;
/// The era's initial window: RFC 3390 at MSS 1448 (2.6's `tcp_init_cwnd`).
const IW: u64 = 3;
const RTO_MIN_S: f64 = 0.2;

/// (fan-in, cc) → the aggregate's result, its TCP prepared by `o`.
fn point(
    o: &Options,
    n: usize,
    cc: &str,
    queries: u32,
    seed: u64,
) -> crate::app::reqresp::AggregateResult {
    let queue = if cc == "dctcp" {
        format!(r#"queue = "ecn", limit = "{BUFFER_PKTS}pkts", k = "65pkts""#)
    } else {
        format!(r#"queue = "droptail", limit = "{BUFFER_PKTS}pkts""#)
    };
    let workers: Vec<String> = (1..=n).map(|i| format!("\"h{i}\"")).collect();
    let text = format!(
        r#"[sim]
name = "incast-qct-{cc}-{n}"
duration = "{dur}s"
seed = {seed}
[topology]
kind = "fat-tree"
k = 8
link = {{ rate = "10Gbps", delay = "1us", {queue} }}
[host]
tsq = false
[tcp]
cc = "{cc}"
linux = "2.6"
frto = true
rcv_autotune = true
rcvbuf = "4MiB"
sndbuf = "4MiB"
[[aggregate]]
aggregator = "h0"
workers = [{w}]
response = "{resp}B"
queries = {queries}
think = "1ms"
"#,
        // A second per query: room for several timeouts each.
        dur = queries as u64 + 1,
        w = workers.join(", "),
        resp = TOTAL.div_ceil(n as u64),
    );
    // [2]'s kernels (2010): the 2.6 profile with what 2.6.3x added (see the module doc).
    // No tail loss probe (Linux 3.10) and no RACK (4.4): a lost tail waits for the RTO.
    let mut sc = parse_scenario(&text, "incast-qct", &[]).expect("a valid scenario");
    o.prepare(&mut sc);
    let r = crate::world::run(&sc).expect("the world builds");
    let mut r = r;
    r.apps
        .take::<crate::app::reqresp::AggregateResult>()
        .into_iter()
        .next()
        .expect("one aggregate")
}

fn run(o: &Options) -> Report {
    let (fan, queries): (&[usize], u32) = if o.quick {
        (&[8, 16, 64], 10)
    } else {
        (&[8, 16, 24, 32, 40, 48, 64], 50)
    };
    let cases: Vec<(usize, &str)> = ["cubic", "dctcp"]
        .iter()
        .flat_map(|&cc| fan.iter().map(move |&n| (n, cc)))
        .collect();
    let mut s: Study<(usize, &'static str), crate::app::reqresp::AggregateResult> =
        Study::new("incast-qct", o);
    let vars: Vec<V> = cases
        .iter()
        .map(|&(n, cc)| s.variant(&format!("{cc}-n{n}"), (n, cc), 1, 1))
        .collect();
    let mut r = s.run(|&(n, cc), seed| point(o, n, cc, queries, seed));
    let pts: Vec<crate::app::reqresp::AggregateResult> =
        vars.iter().map(|&v| r.first(v).clone()).collect();
    let limit = BUFFER_PKTS / IW;
    let ms = |x: Option<f64>| x.map_or(f64::NAN, |s| s * 1e3);
    let mut plot = svg::Plot {
        title: "incast: query completion time vs fan-in (1 MB per query, k = 8 fat-tree)".into(),
        x_label: "responders".into(),
        y_label: "p99 query completion time (ms)".into(),
        log_y: true,
        ..Default::default()
    };
    for cc in ["cubic", "dctcp"] {
        let mut line = svg::Line {
            name: cc.into(),
            ..Default::default()
        };
        for (&(n, c), a) in cases.iter().zip(&pts) {
            if c != cc {
                continue;
            }
            let v = format!("{cc}-n{n}");
            r.row(&v, "queries_done", a.queries_done as f64);
            r.row(&v, "qct_mean_ms", ms(a.qct_mean_s));
            r.row(&v, "qct_p99_ms", ms(a.qct_p99_s));
            r.row(&v, "qct_max_ms", ms(a.qct_max_s));
            r.row(&v, "timeouts", a.timeouts as f64);
            line.points.push((n as f64, ms(a.qct_p99_s)));
            let rto_hit = a.qct_max_s.is_some_and(|m| m >= RTO_MIN_S);
            if cc == "dctcp" && n as u64 <= limit {
                r.check(
                    format!("DCTCP, {n} responders (n × IW ≤ buffer): no query waits for an RTO"),
                    Against::ClosedForm,
                    !rto_hit && a.queries_done == queries,
                    format!("max QCT {:.2} ms, {} timeouts, {}/{queries} queries done", ms(a.qct_max_s), a.timeouts, a.queries_done),
                    "[2] §4.2: DCTCP avoids timeouts while the responders' first flights fit in the port buffer (its limit, about 35 responders, is 100 packets over its initial window); here n × 3 segments ≤ 250 packets",
                );
            }
            if n as u64 * IW > 2 * BUFFER_PKTS {
                r.check(
                    format!("{cc}, {n} responders (n × IW > 2 × buffer): queries collapse onto the RTO"),
                    Against::ClosedForm,
                    a.qct_p99_s.is_some_and(|p| p >= RTO_MIN_S),
                    format!("p99 QCT {:.2} ms vs RTO_min 200 ms", ms(a.qct_p99_s)),
                    "[2] §4.2 and incast literature: when n first flights overflow the buffer twice over, some responder loses its tail and waits for the 200 ms RTO; with 1 query in 10 or more hit, the p99 is the RTO",
                );
            }
        }
        plot.lines.push(line);
    }
    // The paper's comparison: TCP's queries hit the RTO at a fan-in where DCTCP's do not.
    let first_collapse = |cc: &str| {
        cases
            .iter()
            .zip(&pts)
            .filter(|((_, c), a)| *c == cc && a.qct_p99_s.is_some_and(|p| p >= RTO_MIN_S))
            .map(|((n, _), _)| *n)
            .min()
    };
    let (fc, fd) = (first_collapse("cubic"), first_collapse("dctcp"));
    let show = |f: Option<usize>| f.map_or("none".to_string(), |n| n.to_string());
    r.row(
        "cubic",
        "first_fan_in_p99_at_rto",
        fc.map_or(f64::NAN, |n| n as f64),
    );
    r.row(
        "dctcp",
        "first_fan_in_p99_at_rto",
        fd.map_or(f64::NAN, |n| n as f64),
    );
    r.check(
        "CUBIC's queries collapse onto the RTO at a smaller fan-in than DCTCP's",
        Against::Published,
        fc.is_some() && fd.is_none_or(|d| fc.is_some_and(|c| c < d)),
        format!("first fan-in with p99 ≥ 200 ms: CUBIC {}, DCTCP {}", show(fc), show(fd)),
        "[2] §4.2: with TCP the query completion time jumps to the RTO beyond a few responders, with DCTCP only where the first flights overflow the buffer",
    );
    // What the first fan-in with CUBIC at the RTO asks of the port, read from the run.
    if let Some(n) = fc {
        let answer = TOTAL.div_ceil(n as u64);
        let mss = crate::tcp::sender::payload_mss(1500) as u64;
        r.note(format!(
            "CUBIC reaches the RTO from {n} responders on (the smallest fan-in simulated at which its p99 is the RTO): its persistent connections keep the windows they grew in earlier queries, so each answer ({} KB at n = {n}) can leave in one flight and the 1 MB of a query ({} packets) meets a {BUFFER_PKTS}-packet port; DCTCP's marks keep the windows small",
            answer / 1000,
            TOTAL.div_ceil(mss)
        ));
    }
    r.note(format!(
        "1 MB per query split over n responders (h1 … hn) to h0, persistent connections, 1 ms between queries; switch ports 250 packets, DCTCP marking at 65; closed-form limit of the first flights: {limit} responders. The paper's testbed (1 Gbit/s, 100-packet static buffers, RTO_min 10 ms and 300 ms) is not a fat-tree; the mechanism, not its numbers, is what carries over"
    ));
    r.plots.push(("incast-qct.svg".into(), svg::render(&plot)));
    r.finish()
}
