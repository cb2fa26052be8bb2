//! `mbecn-lost-updates` — the seed's caveat: "what if no FLOW_UPDATE packet arrive at
//! all? [...] this algorithm has no such mechanism" as TCP's RTO, only the sender-side
//! reset: 32 packets without an update forget the last ECE ("This protects the sender
//! from lost FLOW_UPDATES that signal the end of congestion"). One flow through seed
//! 002's star with FLOW_UPDATEs lost with probability 0, 0.1 and 0.5, at line rate
//! (`mbecn-star`'s seed configuration) and with senders at 2× the bottleneck's packet
//! rate (a row there).
//!
//! The seed's claim, judged once: with half the updates lost (the harshest case run) and
//! `mbecn-star`'s seed configuration, the flow is not held back: its rate is at least the
//! lossless flow's (the difference of the two means, at least 0, resolved over seeds). The
//! other cases are rows.

use super::common::{diff_ci, MeanCi};
use super::mbecn_star::{mean_between, run_star, sender_at};
use super::study::{Of, Study, V};
use super::{fmt_num, Experiment, Options, Report, Tol};
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::results::RunResult;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-lost-updates",
    seed_doc: "002 (MB-ECN sender-side reset)",
    about: "MB-ECN with FLOW_UPDATEs lost (p = 0, 0.1, 0.5): the sender-side reset",
    run,
};

const LOSS: [f64; 3] = [0.0, 0.1, 0.5];
const SENDERS: [Option<f64>; 2] = [None, Some(2.0)];

const RESET: &str = "the seed: the sender-side reset (32 packets without an update forget the ECE) 'protects the sender from lost FLOW_UPDATES that signal the end of congestion': a flow that loses half its updates is not held back, its rate at least the lossless flow's (the difference of the means, resolved over seeds)";

fn run(o: &Options) -> Report {
    let end = if o.quick { SEC } else { 3 * SEC };
    let e = secs(end);
    let rate = move |r: &RunResult| mean_between(&r.app::<OcbrResult>()[0], e / 2.0, e);
    // Runs differ by seed (host clocks, NIC jitter, which updates are lost): several each,
    // more for the claim's two while its reading is open.
    let (n, cap) = if o.quick { (3, 12) } else { (5, 20) };
    let mut s: Study<(f64, Option<f64>), RunResult> = Study::new("mbecn-lost-updates", o);
    let vars: Vec<(f64, Option<f64>, V)> = LOSS
        .iter()
        .flat_map(|&l| SENDERS.iter().map(move |&k| (l, k)))
        .map(|(l, k)| {
            let judged = k.is_none() && (l == 0.0 || l == 0.5);
            let v = s.variant(&tag(l, k), (l, k), n, if judged { cap } else { n });
            (l, k, v)
        })
        .collect();
    let find = |l: f64, k: Option<f64>| {
        vars.iter()
            .find(|x| x.0 == l && x.1 == k)
            .expect("a declared variant")
            .2
    };
    let diff = move |r: &super::study::Runs<RunResult>, a: V, b: V| -> MeanCi {
        diff_ci(&r.each(a, rate), &r.each(b, rate))
    };
    let (half, none) = (find(0.5, None), find(0.0, None));
    let claim = s.claim(
        &format!(
            "{}: the flow is not held back by lost updates (its rate minus the lossless flow's, Mbit/s)",
            tag(0.5, None)
        ),
        0.0,
        Tol::AtLeast,
        RESET,
        Of::with(&[half, none], move |r| diff(r, half, none)),
    );
    let mut d = s.run(|&(loss, k), seed| {
        // Flow 2 starts only in the run's last millisecond (after every interval counted).
        let mut sets = vec![("ocbr.0.update_loss".to_string(), loss.to_string())];
        if let Some(k) = k {
            sets.extend(sender_at(k));
        }
        run_star(o, seed, end - MS, end, &sets)
    });
    for &(loss, k, v) in &vars {
        let tag = d.name(v).to_string();
        let m = d.mean(v, rate);
        d.row_ci(&tag, "rate_mbps", m);
        let metrics: [(&str, Metric); 5] = [
            ("updates_sent", |r| {
                r.app::<OcbrResult>()[0].flow_updates_sent as f64
            }),
            ("updates_lost", |r| {
                r.app::<OcbrResult>()[0].flow_updates_lost as f64
            }),
            ("router_queue_mean_pkts", |r| rs(r).mean_bytes / 1019.0),
            ("router_queue_max_pkts", |r| rs(r).max_pkts as f64),
            ("router_drops", |r| rs(r).drops as f64),
        ];
        for (metric, f) in metrics {
            let m = d.mean(v, f);
            d.row_ci(&tag, metric, m);
        }
        if loss > 0.0 {
            let base = find(0.0, k);
            if (loss, k) == (0.5, None) {
                d.emit(claim);
            } else {
                let x = diff(d.all_runs(), v, base);
                d.row_ci(&tag, "rate_minus_lossless_mbps", x);
            }
            let f = &d.first(v).app::<OcbrResult>()[0];
            let frac = f.flow_updates_lost as f64 / f.flow_updates_sent.max(1) as f64;
            let text = format!(
                "{tag}: {} of {} FLOW_UPDATEs lost ({:.3}); windows (slow start, decrease, increase, unchanged) = {:?} (first run)",
                f.flow_updates_lost, f.flow_updates_sent, frac, f.windows
            );
            d.note(text);
        }
    }
    let (r_half, r_none) = (d.mean(half, rate).mean, d.mean(none, rate).mean);
    d.note(format!(
        "{} carries {} Mbit/s against {} without loss: {}. The claim holding does not isolate the reset (no key switches it off): a lost update that carries a burst's marks is lost as often as one that ends congestion",
        tag(0.5, None),
        fmt_num(r_half),
        fmt_num(r_none),
        if r_half > r_none {
            "losing updates raises the rate here"
        } else {
            "losing updates does not raise the rate here"
        }
    ));
    d.note(format!(
        "one flow through the star of mbecn-star (its flow 2 starts in the run's last millisecond, after the intervals used); rates from the server's 100 ms lines over the second half of the run; each row the mean of {n} runs (seeds --seed, --seed + 1, …) or more where the claim needed them"
    ));
    d.finish()
}

/// One number of a run.
type Metric = fn(&RunResult) -> f64;

/// The router's port towards the server.
fn rs(r: &RunResult) -> &crate::results::QueueResult {
    r.queues.iter().find(|q| q.name == "rs").expect("port rs")
}

/// A variant's name: the loss probability and the senders' speed.
fn tag(loss: f64, k: Option<f64>) -> String {
    match k {
        None => format!("loss_{} line_rate", fmt_num(loss)),
        Some(k) => format!("loss_{} sender_{}x", fmt_num(loss), fmt_num(k)),
    }
}
