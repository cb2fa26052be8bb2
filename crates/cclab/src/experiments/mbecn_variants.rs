//! `mbecn-variants` — seed 002's star (`mbecn-star`) with the three readings of MB-ECN
//! (`flow/mbecn.rs`): the 0.18.0 code the seed ran, the blog's prose (ECE halved on an
//! unmarked packet, an update on every increase, M = 8) and the prototype after its 2021
//! changes (updates every 8 packets, additive increase on what was sent, scaling in one
//! step). One flow alone, then a second: the one-flow rate, the time to a fair share
//! after the join, the router's queue. The seed makes no claim comparing them; the rows
//! are reported, each from one run. Each with flooding senders at line rate (`mbecn-star`'s
//! seed configuration) and with the IPCP's time per packet set to 2× the bottleneck's
//! packet rate (a row of `mbecn-star`: no source gives the prototype's IPCP a rate below
//! the NIC's). The only checks are conservation (model self-consistency).

use super::mbecn_star::{convergence, mean_between, run_star, sender_at, C, WIRE};
use super::study::Study;
use super::{fmt_num, Against, Experiment, Options, Report, Tol};
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::report::svg::{self, Line, Plot};

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-variants",
    seed_doc: "002 (MB-ECN: code, prose, later prototype)",
    about: "MB-ECN as 0.18.0, as the blog, as the later prototype: rate, convergence, queue",
    run,
};

const MODES: [&str; 3] = ["mb-ecn", "mb-ecn-blog", "mb-ecn-current"];
const SENDERS: [Option<f64>; 2] = [None, Some(2.0)];

fn run(o: &Options) -> Report {
    let (join, end) = if o.quick {
        (SEC, 1600 * MS)
    } else {
        (2 * SEC, 4 * SEC)
    };
    let mut s: Study<(&str, Option<f64>), crate::results::RunResult> =
        Study::new("mbecn-variants", o);
    let vars: Vec<_> = MODES
        .iter()
        .flat_map(|&m| SENDERS.iter().map(move |&k| (m, k)))
        .map(|(m, k)| s.variant(&tag(m, k), (m, k), 1, 1))
        .collect();
    let mut r = s.run(|&(mode, k), seed| {
        let mut sets: Vec<(String, String)> = (0..2)
            .map(|i| (format!("ocbr.{i}.ca"), mode.to_string()))
            .collect();
        if let Some(k) = k {
            sets.extend(sender_at(k));
        }
        run_star(o, seed, join, end, &sets)
    });
    let framed = C * 1000.0 / WIRE / 1e6;
    let j = secs(join);
    let mut p = Plot {
        title: "Flow 1's rate (ocbr server, 100 ms), alone then with flow 2".into(),
        x_label: "time (s)".into(),
        y_label: "Mbit/s".into(),
        ..Default::default()
    };
    for &v in &vars {
        let tag = r.name(v).to_string();
        let res = r.first(v).clone();
        let (f1, f2) = (&res.app::<OcbrResult>()[0], &res.app::<OcbrResult>()[1]);
        let alone = mean_between(f1, j / 2.0, j);
        let (s1, s2) = (
            mean_between(f1, j + 0.2, secs(end)),
            mean_between(f2, j + 0.2, secs(end)),
        );
        r.row(&tag, "alone_mbps", alone);
        r.row(&tag, "two_flows_flow1_mbps", s1);
        r.row(&tag, "two_flows_flow2_mbps", s2);
        match convergence(f1, f2, j) {
            Some(c) => r.row(&tag, "convergence_ms", c * 1e3),
            None => r.note(format!(
                "{tag}: the two flows never came within 3 Mbit/s of each other for four intervals"
            )),
        }
        let rs = res.queues.iter().find(|q| q.name == "rs").expect("port rs");
        r.row(&tag, "router_queue_mean_pkts", rs.mean_bytes / 1019.0);
        r.row(&tag, "router_queue_max_pkts", rs.max_pkts as f64);
        r.row(&tag, "router_drops", rs.drops as f64);
        r.check_vs(
            format!("{tag}: both flows together"),
            Against::Model,
            s1 + s2,
            framed,
            Tol::AtMost,
            "the link's framed payload rate (100 Mbit/s × 1000/1057) bounds the sum",
        );
        p.lines.push(Line {
            name: tag.clone(),
            points: f1.intervals.iter().map(|i| (i.end_s, i.mbps)).collect(),
            ..Default::default()
        });
        if let Some(w) = f1.windows {
            r.note(format!(
                "{tag}: flow 1's windows (slow start, decrease, increase, unchanged) = {w:?}; {} FLOW_UPDATEs",
                f1.flow_updates_sent
            ));
        }
    }
    r.plots
        .push(("mbecn_variants_rates.svg".into(), svg::render(&p)));
    r.note("the seed compares none of these; rows only. Queue in packets of 1019 bytes (a 1000-byte SDU with its 19 bytes of headers)");
    r.finish()
}

/// A variant's name: the mode and the senders' speed.
fn tag(mode: &str, k: Option<f64>) -> String {
    match k {
        None => format!("{mode} line_rate"),
        Some(k) => format!("{mode} sender_{}x", fmt_num(k)),
    }
}
