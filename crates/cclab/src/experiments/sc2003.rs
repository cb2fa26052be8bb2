//! `sc2003` — seed 001 slides 29–32 (Data Reservoir at the SC2003 Bandwidth Challenge,
//! Tokyo to Phoenix) and slide 23's loss rule:
//!
//! - slide 30: "Aggregated BW 8.2 Gbps" over the paths of RTT 292, 326 and 335 ms;
//! - slide 32: "Bottleneck 2 x OC-48, OC48 (3 x GbE), GbE; RTT 335 ms, 326 ms, 292 ms;
//!   parallel IPG-tuned TCP streams, 16 nodes x 4 streams; maximum throughput 5.42 Gbps";
//! - slide 23 (the authors' simulation): packet loss "increased when remaining buffer is
//!   small", "increased when transmission is bursty".
//!
//! **The paths.** Slide 32 lists three bottlenecks and three RTTs in one order; they are
//! read as paired *[chosen]*: two OC-48s at 335 ms, one OC-48 (reached through three GbE
//! links, which carry more than it) at 326 ms, one GbE at 292 ms — four bottleneck links.
//! An OC-48 POS link carries IP in its SONET payload envelope (STS-48c, 2396.16 Mbit/s),
//! each 1500-byte packet in a PPP/HDLC frame of 9 more bytes (RFC 1662, RFC 2615), as
//! `parallel-streams` models OC-12: 2381.9 Mbit/s of IP, bare IP framing; the GbE link is
//! Ethernet (1538 wire bytes per 1500-byte packet). The paths share nothing the slides
//! name (the 10GbE at each end carries more than 8.2 Gbit/s), so each is run on its own
//! and the aggregate is the sum, second by second.
//!
//! **The senders.** 16 nodes (IBM x345, Intel GbE NICs, Linux), 4 streams each, spread
//! evenly over the four bottleneck links *[chosen: the slides give 16 nodes and four
//! links, not which node used which]*: 4 nodes, 16 streams per link. "IPG-tuned": each
//! node's NIC inter-packet gap set as slide 16 sets it, the rate of the largest e1000
//! IPGT (0…1023, `ipg-tuning`'s rate model) whose rate is below the node's share of its
//! bottleneck ("transmission rate < bottleneck bandwidth"); on the GbE link a quarter of
//! 1 Gbit/s is below what the register reaches (567 Mbit/s at 1023), so those nodes run
//! at IPGT 1023. TCP: Reno with the `"2.6"` era profile (as `parallel-streams`: the
//! nodes' Linux 2.4 is closest to it), socket buffers that never limit. Each bottleneck
//! holds one bandwidth-delay product of its path (the rule of thumb routers of the time
//! were built to, as `parallel-streams`).
//!
//! **Readings**, fixed before the run:
//! - "Aggregated BW 8.2 Gbps": what the four links carry, measured by saturating each with
//!   UDP for 1 s (IP bit/s at the bottleneck); "8.2" is given to its last digit (±0.05).
//!   The cause run of a miss: the same links at their nominal rates (OC-48 as 2.4 Gbit/s,
//!   GbE as 1 Gbit/s, no framing).
//! - "Maximum throughput 5.42 Gbps": the largest one-second sum of the four paths' IP
//!   throughput (goodput × 1500/1448) *[chosen: the Bandwidth Challenge's meters are not
//!   described; a second is the finest a 300 ms path's rate means]*, ±0.005 (its last
//!   digit).
//! - Slide 23, on `lfn-pacing`'s lab (1 Gbit/s NIC, 600 Mbit/s bottleneck, slide 24's
//!   25 ms row, its clean wire: the buffer's losses only, Reno), losses per delivered
//!   segment: with the bottleneck's buffer a quarter of the lab's 1 MB above the lab's
//!   ("remaining buffer is small"), and with the default, bursty sender above the
//!   statically optimized IPG's ("transmission is bursty"); each a difference whose 95%
//!   interval (Welch) must lie above 0.
//!
//! Not modelled: Comet TCP (slide 31 names a hardware TCP offload, nothing of its
//! algorithm) and the "cooperative parallel streams" (named, not described); the disks
//! and iSCSI of the Data Reservoir's transfers (slide 33: disk-to-disk; out of scope).

use super::common::{diff_ci, tcp, MeanCi};
use super::lfn_pacing;
use super::study::{Of, Runs, Study, V};
use super::{Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;
use crate::tcp::era::Era;

pub const EXPERIMENT: Experiment = Experiment {
    name: "sc2003",
    seed_doc: "001 slides 23, 29-32",
    about: "SC2003 BWC: 16 nodes x 4 IPG-tuned Reno streams over 2 x OC-48 (335 ms), OC-48 (326 ms) and GbE (292 ms): 8.2 Gbit/s of paths, 5.42 Gbit/s at most; slide 23's loss rule",
    run,
};

/// OC-48 SPE payload 2396.16 Mbit/s, of which IP gets 1500/1509 over POS.
const OC48_IP: u64 = 2_396_160_000 * 1500 / 1509;
const GBE: u64 = 1_000_000_000;
const NODES_PER_LINK: usize = 4;
const STREAMS: usize = 4;
const ACCESS: SimTime = 10 * US;

/// A bottleneck link: its rate, framing and the path's RTT.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    rate: u64,
    framing: crate::net::Framing,
    rtt: SimTime,
}

/// The four bottleneck links as slide 32 pairs them, at their IP rates or nominal.
fn links(nominal: bool) -> [Link; 4] {
    let oc48 = |rtt| Link {
        rate: if nominal { 2_400_000_000 } else { OC48_IP },
        framing: crate::net::Framing::Ip,
        rtt,
    };
    [
        oc48(335 * MS),
        oc48(335 * MS),
        oc48(326 * MS),
        Link {
            rate: GBE,
            framing: if nominal {
                crate::net::Framing::Ip
            } else {
                crate::net::Framing::Ethernet
            },
            rtt: 292 * MS,
        },
    ]
}

/// The IPGT slide 16's rule gives a node whose share of its bottleneck is `share` bit/s:
/// the largest register value (0…1023) whose rate is below the share, or 1023.
fn ipgt_for(share: f64) -> u32 {
    (0..=1023u32)
        .find(|&g| super::ipg_tuning::model_bps(g) < share)
        .unwrap_or(1023)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cfg {
    /// One path's TCP streams (the link's index).
    Streams(usize),
    /// The four links saturated with UDP; nominal rates or not.
    Capacity { nominal: bool },
    /// `lfn-pacing`'s lab: a bursty or statically IPG-tuned sender, its bottleneck buffer.
    Lab { ipg: bool, buffer: u64 },
}

#[derive(Clone, Debug, Default)]
struct Out {
    /// IP throughput per second, bit/s (one path), or the four links' IP rate (capacity).
    series: Vec<f64>,
    /// The bottleneck's drops per delivered segment (the lab).
    loss: f64,
    timeouts: u64,
    drops: u64,
}

/// Link `l`'s path: its four nodes' GbE access links (their qdiscs `host_limit` packets)
/// into the bottleneck, whose buffer holds `limit` packets.
fn dumbbell(l: Link, limit: u64, host_limit: u64) -> TopologySpec {
    TopologySpec::Dumbbell {
        senders: NODES_PER_LINK,
        bottleneck: LinkSpec {
            framing: l.framing,
            rate_bps: l.rate,
            delay: l.rtt / 2 - 2 * ACCESS,
            queue: QueueSpec::droptail(Limit::Packets(limit)),
        },
        access_rate_bps: GBE,
        access_delay: vec![ACCESS; NODES_PER_LINK],
        access_queue: QueueSpec::droptail(Limit::Packets(host_limit)),
    }
}

/// One path: 4 nodes × 4 streams into its bottleneck, `dur` long.
fn streams(o: &Options, l: Link, dur: SimTime, seed: u64) -> Out {
    let bdp_pkts = (l.rate as f64 * secs(l.rtt) / 8.0 / 1500.0).ceil() as u64;
    let topo = dumbbell(l, bdp_pkts, 10_000);
    let mut sc = Scenario::new("sc2003", topo, dur);
    sc.seed = seed;
    sc.host.ipgt = ipgt_for(l.rate as f64 / NODES_PER_LINK as f64);
    let mut t = tcp("reno");
    crate::tcp::config::set_era(&mut t, Era::Linux2_6, &["sndbuf", "rcvbuf"]);
    for n in 0..NODES_PER_LINK {
        for _ in 0..STREAMS {
            sc.add_flow(&format!("s{n}"), &format!("r{n}"), t.clone());
        }
    }
    o.prepare(&mut sc);
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let flows = NODES_PER_LINK * STREAMS;
    let (mut series, mut last) = (Vec::new(), 0u64);
    let mut t = 0;
    while t < dur {
        t = (t + SEC).min(dur);
        sim.run_until(t);
        let b: u64 = (0..flows)
            .map(|i| sim.tcp(i).receiver.delivered_bytes)
            .sum();
        series.push((b - last) as f64 * 8.0 * 1500.0 / 1448.0);
        last = b;
    }
    let timeouts = (0..flows).map(|i| sim.tcp(i).sender.stats.timeouts).sum();
    let port = sim.net.port_by_name("bottleneck").expect("the dumbbell's");
    Out {
        series,
        loss: 0.0,
        timeouts,
        drops: sim.net.port(port).stats.drops,
    }
}

/// The four links' IP capacity: each saturated for 1 s by UDP from its four nodes at
/// line rate; what its bottleneck sent, bit/s, summed.
fn capacity(o: &Options, nominal: bool, seed: u64) -> Out {
    let mut total = 0.0;
    for l in links(nominal) {
        let topo = dumbbell(l, 1000, 1000);
        let dur = SEC + l.rtt;
        let mut sc = Scenario::new("sc2003-capacity", topo, dur);
        sc.seed = seed;
        for n in 0..NODES_PER_LINK {
            sc.apps.udps.push(crate::app::udp::UdpSpec {
                from: format!("s{n}"),
                to: format!("r{n}"),
                start: 0,
                stop: Some(SEC),
                rate: GBE,
                len: 1472,
                interval: SEC,
            });
        }
        o.prepare(&mut sc);
        let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
        let port = sim.net.port_by_name("bottleneck").expect("the dumbbell's");
        // What the bottleneck sends over the second it stays busy (the first packet
        // reaches it after the access hop).
        sim.run_until(SEC / 10);
        let b0 = sim.net.port(port).tx_bytes;
        sim.run_until(SEC);
        let b1 = sim.net.port(port).tx_bytes;
        total += (b1 - b0) as f64 * 8.0 / secs(SEC - SEC / 10);
    }
    Out {
        series: vec![total],
        ..Default::default()
    }
}

/// `lfn-pacing`'s lab at 25 ms one way, its clean wire.
fn lab(o: &Options, ipg: bool, buffer: u64, dur: SimTime, seed: u64) -> Out {
    let r = lfn_pacing::lab_run(o, 25, ipg, buffer, dur, seed);
    Out {
        loss: r.buffer_drops as f64 / (r.whole * secs(dur) / 8.0 / 1448.0),
        drops: r.buffer_drops,
        timeouts: r.timeouts,
        ..Default::default()
    }
}

/// The largest one-second sum of the four paths' series, Gbit/s, per run index.
fn peak(r: &Runs<Out>, paths: &[V; 4]) -> MeanCi {
    let per_path: Vec<&[Out]> = paths.iter().map(|&v| r.of(v)).collect();
    let n = per_path.iter().map(|p| p.len()).min().unwrap_or(0);
    let peaks: Vec<f64> = (0..n)
        .map(|i| {
            let len = per_path
                .iter()
                .map(|p| p[i].series.len())
                .min()
                .unwrap_or(0);
            (0..len)
                .map(|s| per_path.iter().map(|p| p[i].series[s]).sum::<f64>())
                .fold(0.0, f64::max)
                / 1e9
        })
        .collect();
    super::common::mean_ci(&peaks)
}

const AGG_WHY: &str = "slide 30: 'Aggregated BW 8.2 Gbps', the paths' capacity, given to its last digit: ±0.05 Gbit/s";
const NOMINAL_CFG: &str = "the four links at their nominal rates, as the slide counts them: OC-48 as 2.4 Gbit/s and GbE as 1 Gbit/s of IP (no SONET, PPP or Ethernet overhead): 3 × 2.4 + 1 = 8.2";
const PEAK_WHY: &str = "slide 32: 'Maximum throughput 5.42 Gbps', read as the largest one-second sum of the four paths' IP throughput, given to its last digit: ±0.005 Gbit/s";
const BUF_WHY: &str = "slide 23: loss 'increased when remaining buffer is small': the bottleneck's drops per delivered segment with a quarter of the lab's 1 MB above those with 1 MB, the difference's 95% interval (Welch) above 0";
const BURST_WHY: &str = "slide 23: loss 'increased when transmission is bursty': the default sender's (GbE bursts) drops per delivered segment above those of the statically optimized IPG (the NIC at 567 Mbit/s, below the 600 Mbit/s bottleneck), the difference's 95% interval (Welch) above 0";

fn run(o: &Options) -> Report {
    let (dur, lab_dur) = if o.quick {
        (5 * SEC, 10 * SEC)
    } else {
        (60 * SEC, 30 * SEC)
    };
    let (n, cap) = if o.quick { (2, 4) } else { (3, 8) };
    let mut s: Study<Cfg, Out> = Study::new("sc2003", o);
    let names = ["oc48_335ms_a", "oc48_335ms_b", "oc48_326ms", "gbe_292ms"];
    let paths: [V; 4] = std::array::from_fn(|i| s.variant(names[i], Cfg::Streams(i), n, cap));
    let capv = s.variant("capacity", Cfg::Capacity { nominal: false }, 2, 2);
    let nomv = s.variant("capacity_nominal", Cfg::Capacity { nominal: true }, 2, 2);
    let mb = 1_000_000;
    let lab_v = |s: &mut Study<Cfg, Out>, name: &str, ipg, buffer| {
        s.variant(name, Cfg::Lab { ipg, buffer }, n.max(3), cap.max(8))
    };
    let lab_1mb = lab_v(&mut s, "lab_default_1mb", false, mb);
    let lab_small = lab_v(&mut s, "lab_default_250kb", false, mb / 4);
    let lab_ipg = lab_v(&mut s, "lab_ipg_1mb", true, mb);
    let agg = s.seed(capv, "aggregate_gbps", 8.2, Tol::Abs(0.05), AGG_WHY, |o| {
        o.series[0] / 1e9
    });
    s.cause(agg, nomv, NOMINAL_CFG);
    s.seed_of(
        "all_paths",
        "peak_gbps",
        5.42,
        Tol::Abs(0.005),
        PEAK_WHY,
        Of::with(&paths, move |r| peak(r, &paths)),
    );
    let loss_diff = move |a: V, b: V| {
        move |r: &Runs<Out>| diff_ci(&r.each(a, |o| o.loss), &r.each(b, |o| o.loss))
    };
    s.claim(
        "drops per segment, 250 KB buffer minus 1 MB (loss_small_buffer)",
        0.0,
        Tol::AtLeast,
        BUF_WHY,
        Of::with(&[lab_small, lab_1mb], loss_diff(lab_small, lab_1mb)),
    );
    s.claim(
        "drops per segment, default sender minus IPG-tuned (loss_bursty)",
        0.0,
        Tol::AtLeast,
        BURST_WHY,
        Of::with(&[lab_1mb, lab_ipg], loss_diff(lab_1mb, lab_ipg)),
    );
    let mut d = s.run(|&c, seed| match c {
        Cfg::Streams(i) => streams(o, links(false)[i], dur, seed),
        Cfg::Capacity { nominal } => capacity(o, nominal, seed),
        Cfg::Lab { ipg, buffer } => lab(o, ipg, buffer, lab_dur, seed),
    });
    for (i, &v) in paths.iter().enumerate() {
        let l = links(false)[i];
        let m = d.mean(v, |o| {
            o.series.iter().skip(o.series.len() / 2).sum::<f64>()
                / (o.series.len() - o.series.len() / 2) as f64
                / 1e9
        });
        d.row_ci(names[i], "second_half_gbps", m);
        let m = d.mean(v, |o| o.timeouts as f64);
        d.row_ci(names[i], "timeouts", m);
        let m = d.mean(v, |o| o.drops as f64);
        d.row_ci(names[i], "bottleneck_drops", m);
        d.row(names[i], "ipgt", ipgt_for(l.rate as f64 / 4.0) as f64);
        d.row(names[i], "link_ip_mbps", l.rate as f64 / 1e6);
    }
    for v in [lab_1mb, lab_small, lab_ipg] {
        let name = d.name(v).to_string();
        let m = d.mean(v, |o| o.loss * 1e3);
        d.row_ci(&name, "drops_per_1000_segments", m);
        let m = d.mean(v, |o| o.timeouts as f64);
        d.row_ci(&name, "timeouts", m);
    }
    d.note(format!(
        "each path: 4 GbE nodes × 4 Reno streams (the 2.6 era profile), each node's NIC at the IPGT slide 16's rule gives for a quarter of its bottleneck, the bottleneck holding one BDP; {} s per run; the one-second series of the four paths summed run by run",
        secs(dur)
    ));
    d.note(format!(
        "slide 23's lab: lfn-pacing's 25 ms row without its wire loss, one Reno stream, {} s per run",
        secs(lab_dur)
    ));
    d.finish()
}
