//! `mbecn-lost-updates` — the seed's caveat: "what if no FLOW_UPDATE packet arrive at
//! all? [...] this algorithm has no such mechanism" as TCP's RTO, only the sender-side
//! reset: 32 packets without an update forget the last ECE ("This protects the sender
//! from lost FLOW_UPDATES that signal the end of congestion"). One flow through seed
//! 002's star with FLOW_UPDATEs lost with probability 0, 0.1 and 0.5: the flow must keep
//! sending (its rate and the router's queue are reported), at line rate and with senders
//! at 2× the bottleneck's packet rate (`mbecn-star`).

use super::mbecn_star::{mean_between, run_star, sender_at};
use super::{fmt_num, Against, Experiment, Options, Report};
use crate::engine::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-lost-updates",
    seed_doc: "002 (MB-ECN sender-side reset)",
    about: "MB-ECN with FLOW_UPDATEs lost (p = 0, 0.1, 0.5): the sender-side reset",
    run,
};

const LOSS: [f64; 3] = [0.0, 0.1, 0.5];
const SENDERS: [Option<f64>; 2] = [None, Some(2.0)];

fn run(o: &Options) -> Report {
    let end = if o.quick { SEC } else { 3 * SEC };
    let items: Vec<(f64, Option<f64>)> = LOSS
        .iter()
        .flat_map(|&l| SENDERS.iter().map(move |&k| (l, k)))
        .collect();
    let outs = super::par_map(&items, o.threads, |&(loss, k)| {
        // Flow 2 starts only in the run's last millisecond (after every interval counted).
        let mut sets = vec![("ocbr.0.update_loss".to_string(), loss.to_string())];
        if let Some(k) = k {
            sets.extend(sender_at(k));
        }
        run_star(o.seed, end - MS, end, &sets)
    });
    let mut r = Report::with("mbecn-lost-updates", o);
    for ((loss, k), res) in items.iter().zip(&outs) {
        let tag = match k {
            None => format!("loss_{} line_rate", fmt_num(*loss)),
            Some(k) => format!("loss_{} sender_{}x", fmt_num(*loss), fmt_num(*k)),
        };
        let f = &res.ocbr[0];
        let rate = mean_between(f, secs(end) / 2.0, secs(end));
        r.row(&tag, "rate_mbps", rate);
        r.row(&tag, "updates_sent", f.flow_updates_sent as f64);
        r.row(&tag, "updates_lost", f.flow_updates_lost as f64);
        let rs = res.queues.iter().find(|q| q.name == "rs").expect("port rs");
        r.row(&tag, "router_queue_mean_pkts", rs.mean_bytes / 1019.0);
        r.row(&tag, "router_queue_max_pkts", rs.max_pkts as f64);
        r.row(&tag, "router_drops", rs.drops as f64);
        // The seed's claim: the reset keeps lost updates from stalling the sender, so a
        // flow that loses them does not fall below the one that loses none.
        if *loss > 0.0 {
            let base_i = items
                .iter()
                .position(|&(l, kk)| l == 0.0 && kk == *k)
                .expect("the lossless run");
            let base = mean_between(&outs[base_i].ocbr[0], secs(end) / 2.0, secs(end));
            // Two simulations compared with each other: a check of the model's reset, not
            // a reproduction (the seed gives no number for it), so `Model`.
            r.check(
                format!("{tag}: the flow is not held back by lost updates"),
                Against::Model,
                rate >= 0.9 * base,
                format!(
                    "{} Mbit/s vs {} without loss (at least 90%)",
                    fmt_num(rate),
                    fmt_num(base)
                ),
                "the seed: the sender-side reset (32 packets without an update forget the ECE) protects the sender from lost FLOW_UPDATEs; 10% for the spread of the 100 ms intervals",
            );
        }
        if *loss > 0.0 {
            let frac = f.flow_updates_lost as f64 / f.flow_updates_sent.max(1) as f64;
            r.note(format!(
                "{tag}: {} of {} FLOW_UPDATEs lost ({:.3}); windows (slow start, decrease, increase, unchanged) = {:?}",
                f.flow_updates_lost, f.flow_updates_sent, frac, f.windows
            ));
        }
    }
    r.note("losing updates raises the rate here: the updates that carry the marks of a burst's tail are lost as often as the ones that end congestion, so fewer windows decrease");
    r.note("one flow through the star of mbecn-star (its flow 2 starts in the run's last millisecond, after the intervals used); rates from the server's 100 ms lines over the second half of the run");
    r
}
