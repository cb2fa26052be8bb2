//! `mbecn-vs-tcp` — one MB-ECN flow and one CUBIC flow through the same 100 Mbit/s port of
//! seed 002's star (`mbecn-star`): the MB-ECN flow (ocbr flood from c1) runs alone, then
//! a CUBIC bulk transfer from c2 (Linux defaults, 1448-byte segments) joins. The router's
//! queue is a 1024-packet drop-tail ring; MB-ECN marks it from 16 packets, CUBIC fills it
//! to a loss. The seed makes no claim here: who gets what, and the queue, are reported.
//! At line rate (`mbecn-star`'s seed configuration) and with the MB-ECN sender's IPCP at 2×
//! the bottleneck's packet rate (a row there), one run each. The only checks are
//! conservation (model self-consistency).

use super::mbecn_star::{fmt_secs, mean_between, sender_at, star, C, RING, WIRE};
use super::study::Study;
use super::{fmt_num, Against, Experiment, Options, Report, Tol};
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::report::svg::{self, Line, Plot};
use crate::scenario::parse_scenario;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-vs-tcp",
    seed_doc: "002 (MB-ECN beside TCP; no claim in the seed)",
    about: "One MB-ECN flow and one CUBIC flow through one 100 Mbit/s port",
    run,
};

/// An ocbr flood from c1 and a CUBIC bulk flow from c2 (its start is set per run).
const MIXED: &str = r#"
[tcp]
cc = "cubic"

[[ocbr]]
from = "c1"
to = "srv"
flood = true
interval = "100ms"

[[flow]]
from = "c2"
to = "srv"
start = "2s"
"#;

fn run(o: &Options) -> Report {
    let (join, end) = if o.quick {
        (SEC, 2 * SEC)
    } else {
        (2 * SEC, 6 * SEC)
    };
    let mut s: Study<Option<f64>, crate::results::RunResult> = Study::new("mbecn-vs-tcp", o);
    let vars: Vec<_> = [None, Some(2.0)]
        .into_iter()
        .map(|k| s.variant(&tag(k), k, 1, 1))
        .collect();
    let mut r = s.run(|&k, seed| {
        let mut sets = vec![
            ("sim.duration".to_string(), fmt_secs(end)),
            ("flow.0.start".to_string(), fmt_secs(join)),
            ("sim.seed".to_string(), seed.to_string()),
            ("output.throughput".to_string(), "100ms".to_string()),
        ];
        if let Some(k) = k {
            sets.extend(
                sender_at(k)
                    .into_iter()
                    .filter(|(key, _)| key.starts_with("ocbr.0")),
            );
        }
        let text = star("mbecn-vs-tcp", "50us", "50us", RING, MIXED);
        let mut sc = parse_scenario(&text, "mbecn-vs-tcp", &sets).expect("valid scenario");
        o.prepare(&mut sc);
        crate::world::run(&sc).expect("runs")
    });
    let j = secs(join);
    let framed = C * 1000.0 / WIRE / 1e6;
    let mut p = Plot {
        title: "MB-ECN flow (ocbr, 100 ms) beside a CUBIC flow joining".into(),
        x_label: "time (s)".into(),
        y_label: "Mbit/s".into(),
        ..Default::default()
    };
    for &v in &vars {
        let tag = r.name(v).to_string();
        let res = r.first(v).clone();
        let f = &res.app::<OcbrResult>()[0];
        let tcp = &res.flows[0];
        let mb_alone = mean_between(f, j / 2.0, j);
        let mb_with = mean_between(f, j + 0.5, secs(end));
        // CUBIC's goodput over its whole life (from the join).
        let tcp_mbps = tcp.goodput_bps / 1e6;
        r.row(&tag, "mbecn_alone_mbps", mb_alone);
        r.row(&tag, "mbecn_with_cubic_mbps", mb_with);
        r.row(&tag, "cubic_goodput_mbps", tcp_mbps);
        let rs = res.queues.iter().find(|q| q.name == "rs").expect("port rs");
        r.row(&tag, "router_queue_mean_pkts", rs.mean_bytes / 1019.0);
        r.row(&tag, "router_queue_max_pkts", rs.max_pkts as f64);
        r.row(&tag, "router_drops", rs.drops as f64);
        r.row(&tag, "mbecn_lost_pkts", f.lost as f64);
        r.row(&tag, "cubic_retransmits", tcp.retransmits as f64);
        // Bound: what both carry cannot exceed the link's payload rate in the more
        // efficient of the two framings (MB-ECN's 1000 of 1057 bytes, 94.6 Mbit/s, is above
        // CUBIC's 1448 of 1538, 94.1).
        let tcp_max = C * 1448.0 / 1538.0 / 1e6;
        r.check_vs(
            format!("{tag}: both flows together after the join"),
            Against::Model,
            mb_with + tcp_mbps,
            tcp_max.max(framed),
            Tol::AtMost,
            "the link's payload rate bounds the sum (the higher of the two framings: CUBIC's 1448 of 1538 bytes, MB-ECN's 1000 of 1057)",
        );
        p.lines.push(Line {
            name: format!("{tag} MB-ECN"),
            points: f.intervals.iter().map(|i| (i.end_s, i.mbps)).collect(),
            ..Default::default()
        });
        p.lines.push(Line {
            name: format!("{tag} CUBIC"),
            points: res
                .series
                .throughput
                .iter()
                .filter(|s| s.flow == 0)
                .map(|s| (s.t, s.goodput_bps / 1e6))
                .collect(),
            ..Default::default()
        });
    }
    r.plots.push(("mbecn_vs_tcp.svg".into(), svg::render(&p)));
    r.note(format!(
        "CUBIC joins at {} s; MB-ECN's rate with CUBIC is the mean of its 100 ms lines from {} s on; CUBIC's goodput is over its life; the seed makes no claim about sharing with TCP",
        fmt_num(j),
        fmt_num(j + 0.5)
    ));
    r.finish()
}

/// A variant's name: the MB-ECN sender's speed.
fn tag(k: Option<f64>) -> String {
    match k {
        None => "line_rate".to_string(),
        Some(k) => format!("sender_{}x", fmt_num(k)),
    }
}
