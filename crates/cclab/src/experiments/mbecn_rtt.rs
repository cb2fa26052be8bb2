//! `mbecn-rtt` — the seed's argument for MB-ECN: "the rates for additive increase and slow
//! start are the same constant for all flows [...] achieved by having a window that is
//! independent of RTT. This may make it more fair, as congestion avoidance in DCTCP (and
//! in most [...] TCP variants), is biased in favor of flows with smaller RTT". Two flows,
//! RTT 1 ms and 20 ms, through one 100 Mbit/s port (seed 002's star with longer access
//! links), for the whole run: MB-ECN (ocbr floods; marks from 16 packets) against DCTCP
//! (two bulk flows; the port marks CE above K = 16 packets, the same threshold). Rates
//! over the second half of the run; the ratio short/long and each flow's standard
//! deviation per 100 ms (normalised by its mean). MB-ECN at line rate (`mbecn-star`'s seed
//! configuration) and with senders' IPCPs at 2× the bottleneck's packet rate (a row
//! there), one run each. The seed says "may"; the rows are reported, not judged; the only
//! checks are conservation (model self-consistency).

use super::mbecn_star::{fmt_secs, sender_at, star, C, RING, TWO_FLOODS, WIRE};
use super::study::Study;
use super::{fmt_num, Against, Experiment, Options, Report, Tol};
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::report::svg::{self, Line, Plot};
use crate::scenario::parse_scenario;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-rtt",
    seed_doc: "002 (MB-ECN's RTT-independent window)",
    about: "Two flows, RTT 1 and 20 ms, one 100 Mbit/s port: MB-ECN vs DCTCP (K = 16)",
    run,
};

/// Access links of 450 µs and 9.95 ms one way, 50 µs to the server: RTT 1 ms and 20 ms
/// (`mbecn_star::star`).
const C1_DELAY: &str = "450us";
const C2_DELAY: &str = "9950us";

const DCTCP: &str = r#"
[tcp]
cc = "dctcp"
ecn = true

[[flow]]
from = "c1"
to = "srv"

[[flow]]
from = "c2"
to = "srv"

[output]
throughput = "100ms"
"#;

#[derive(Clone, Copy, PartialEq)]
enum V {
    MbEcn(Option<f64>),
    Dctcp,
}

fn run(o: &Options) -> Report {
    let end = if o.quick { 2 * SEC } else { 6 * SEC };
    let mut s: Study<V, crate::results::RunResult> = Study::new("mbecn-rtt", o);
    let vars: Vec<_> = [V::MbEcn(None), V::MbEcn(Some(2.0)), V::Dctcp]
        .into_iter()
        .map(|v| s.variant(&tag(v), v, 1, 1))
        .collect();
    let mut r = s.run(|&v, seed| {
        let (queue, traffic) = match v {
            V::MbEcn(_) => (RING, TWO_FLOODS),
            V::Dctcp => (
                "limit = \"1024pkts\", queue = \"ecn\", k = \"16pkts\"",
                DCTCP,
            ),
        };
        let text = star("mbecn-rtt", C1_DELAY, C2_DELAY, queue, traffic);
        let mut sets = vec![
            ("sim.duration".to_string(), fmt_secs(end)),
            ("sim.seed".to_string(), seed.to_string()),
        ];
        if matches!(v, V::MbEcn(_)) {
            // Both flows for the whole run.
            sets.push(("ocbr.1.start".to_string(), "0s".to_string()));
        }
        if let V::MbEcn(Some(k)) = v {
            sets.extend(sender_at(k));
        }
        let mut sc = parse_scenario(&text, "mbecn-rtt", &sets).expect("valid scenario");
        o.prepare(&mut sc);
        crate::world::run(&sc).expect("runs")
    });
    let half = secs(end) / 2.0;
    let mut p = Plot {
        title: "Rates per 100 ms: RTT 1 ms vs 20 ms".into(),
        x_label: "time (s)".into(),
        y_label: "Mbit/s".into(),
        ..Default::default()
    };
    // The link's payload rate in the more efficient framing (MB-ECN's 1000 of 1057 bytes,
    // above TCP's 1448 of 1538), or TCP's with 0.5% for the edges of DCTCP's 100 ms
    // samples, whichever is higher.
    let bound = (C * 1000.0 / WIRE / 1e6).max(100.0 * 1448.0 / 1538.0 * 1.005);
    for &vv in &vars {
        let (tag, v) = (r.name(vv).to_string(), *r.config(vv));
        let res = r.first(vv).clone();
        let (v, res) = (&v, &res);
        // Per-100 ms rates of each flow, (t, Mbit/s).
        let series: Vec<Vec<(f64, f64)>> = match v {
            V::MbEcn(_) => res
                .app::<OcbrResult>()
                .iter()
                .map(|f| f.intervals.iter().map(|i| (i.end_s, i.mbps)).collect())
                .collect(),
            V::Dctcp => (0..2u32)
                .map(|k| {
                    res.series
                        .throughput
                        .iter()
                        .filter(|s| s.flow == k)
                        .map(|s| (s.t, s.goodput_bps / 1e6))
                        .collect()
                })
                .collect(),
        };
        let stats: Vec<(f64, f64)> = series
            .iter()
            .map(|s| {
                let xs: Vec<f64> = s.iter().filter(|x| x.0 > half).map(|x| x.1).collect();
                let n = xs.len().max(1) as f64;
                let m = xs.iter().sum::<f64>() / n;
                let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt();
                (m, if m > 0.0 { sd / m } else { 0.0 })
            })
            .collect();
        r.row(&tag, "rtt1ms_mbps", stats[0].0);
        r.row(&tag, "rtt20ms_mbps", stats[1].0);
        r.row(
            &tag,
            "ratio_short_over_long",
            stats[0].0 / stats[1].0.max(1e-9),
        );
        r.row(&tag, "rtt1ms_norm_stddev", stats[0].1);
        r.row(&tag, "rtt20ms_norm_stddev", stats[1].1);
        let rs = res.queues.iter().find(|q| q.name == "rs").expect("port rs");
        // Packets of 1019 bytes (a 1000-byte SDU and its headers) or 1500 (a segment).
        let pkt = if *v == V::Dctcp { 1500.0 } else { 1019.0 };
        r.row(&tag, "router_queue_mean_pkts", rs.mean_bytes / pkt);
        r.check_vs(
            format!("{tag}: both flows together"),
            Against::Model,
            stats[0].0 + stats[1].0,
            bound,
            Tol::AtMost,
            "the link's payload rate bounds the sum: the higher of MB-ECN's framing (1000 of 1057 bytes, 94.61 Mbit/s; the server's lines, 1% below what arrived) and TCP's (1448 of 1538 bytes, 94.15 Mbit/s) with +0.5% for the edges of DCTCP's 100 ms samples (94.62)",
        );
        for (k, s) in series.into_iter().enumerate() {
            p.lines.push(Line {
                name: format!("{tag} {}", if k == 0 { "1 ms" } else { "20 ms" }),
                points: s,
                ..Default::default()
            });
        }
    }
    r.plots.push(("mbecn_rtt.svg".into(), svg::render(&p)));
    r.note("both flows run the whole time; rates and their spread over the second half; MB-ECN's from the ocbr server's lines (1% low: it divides by 101 ms), DCTCP's from 100 ms goodput samples; queue in packets of 1019 bytes (flows) or 1500 (DCTCP's segments)");
    r.finish()
}

/// A variant's name.
fn tag(v: V) -> String {
    match v {
        V::MbEcn(None) => "mbecn line_rate".to_string(),
        V::MbEcn(Some(k)) => format!("mbecn sender_{}x", fmt_num(k)),
        V::Dctcp => "dctcp".to_string(),
    }
}
