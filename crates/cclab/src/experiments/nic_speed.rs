//! `nic-speed` — seed 001 slide 10, "Transmission rate affects performance": "Fast
//! Ethernet gt GbE", "Fast Ethernet is ultra stable", "GbE is too unstable and poor on
//! average", measured with iperf over 30 seconds.
//!
//! **Seed configuration.** The slides give neither the path nor the hosts of this test.
//! It sits between the SC2002 results (slides 8–9) and the remedies tried on the same long
//! fat path (slides 14–16), so the path is slide 16's lab, the one `ipg-tuning` runs:
//! a 596 Mbit/s bottleneck at 200 ms RTT with a 1 MB drop-tail buffer (slide 11's), the
//! sender's qdisc at Linux 2.4's txqueuelen of 100 packets, one Reno stream with socket
//! buffers that never limit it, the hosts of 2002 (the `"2.6"` era profile, as
//! `parallel-streams` and `slow-start-burst` run seed 001's hosts). The two senders differ
//! only in their NIC: Fast Ethernet (100 Mbit/s) or Gigabit Ethernet (1 Gbit/s).
//!
//! The readings, fixed before anything runs:
//! - "Fast Ethernet gt GbE" and "GbE … poor on average": the Fast Ethernet sender's mean
//!   30-second goodput above the GbE sender's (`fe_minus_gbe_pct`: the difference of the
//!   means in % of GbE's, its 95% interval (Welch) above 0);
//! - "Fast Ethernet is ultra stable", "GbE is too unstable": the run-to-run normalized
//!   standard deviation (standard deviation over mean, as `lfn-pacing` reads slide 27) of
//!   GbE's goodput above Fast Ethernet's, each known to within the factors of its 95%
//!   interval (χ² with n − 1 degrees of freedom): resolved only where the two intervals do
//!   not overlap.
//!
//! The runs differ by seed in the hosts' processing jitter (`[host]`'s default), which
//! moves where in a burst the bottleneck's losses fall.

use super::common::{lfn_lab_nic, nsd, sd_factors, spread_smaller, tcp, MeanCi};
use super::study::{Of, Runs, Study, V};
use super::verdict::Reading;
use super::{fmt_num, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;
use crate::tcp::era::Era;

pub const EXPERIMENT: Experiment = Experiment {
    name: "nic-speed",
    seed_doc: "001 slide 10",
    about: "One Reno stream over slide 16's 596 Mbit/s, 200 ms path from a Fast Ethernet and from a GbE sender, 30 s iperf runs: FE faster and steadier",
    run,
};

/// Slide 16's bottleneck, its buffer, and the sender's qdisc (as `ipg-tuning`).
const BOTTLENECK: u64 = 596_000_000;
const BUF: u64 = 1_000_000;
const TXQ: u64 = 100;
/// The cause configuration's txqueuelen (as `ipg-tuning`'s).
const TXQ_CAUSE: u64 = 10_000;
const RTT: SimTime = 200 * MS;

/// One run: goodput over the whole run (iperf's report), Mbit/s, and what the stream lost.
#[derive(Clone, Debug)]
struct Out {
    mbps: f64,
    retransmits: u64,
    timeouts: u64,
}

fn iperf(o: &Options, (nic, txq): (u64, u64), dur: SimTime, seed: u64) -> Out {
    let mut sc = Scenario::new(
        "nic-speed",
        lfn_lab_nic(nic, Limit::Packets(txq), BOTTLENECK, BUF),
        dur,
    );
    sc.seed = seed;
    let mut t = tcp("reno");
    crate::tcp::config::set_era(&mut t, Era::Linux2_6, &["sndbuf", "rcvbuf"]);
    sc.add_flow("src", "dst", t);
    o.prepare(&mut sc);
    let r = crate::world::run(&sc).expect("valid scenario");
    let f = &r.flows[0];
    Out {
        mbps: f.goodput_bps / 1e6,
        retransmits: f.retransmits,
        timeouts: f.timeouts,
    }
}

/// Variant `a`'s mean aggregate goodput minus `b`'s, in percent of `b`'s (Welch).
fn pct_diff(r: &Runs<Out>, a: V, b: V) -> MeanCi {
    r.pct_diff(a, b, |o| o.mbps)
}

const GT_WHY: &str = "seed 001 slide 10: 'Fast Ethernet gt GbE', 'GbE is … poor on average' (iperf, 30 s): the difference of the two means, read with its 95% interval (Welch), which must lie above 0";
const CAUSE_CFG: &str = "txqueuelen 10000 on both senders (`ip link set dev eth0 txqueuelen 10000`; here the first hop's `limit = \"10000pkts\"`): the largest of SLAC's 2003 txqueuelen tests (100, 2000, 10000; Cottrell et al.) and the LFN tuning guides' value, as `ipg-tuning`'s cause run; with Linux 2.4's 100 packets a slow-start window overflows the sender's own qdisc, which halves cwnd there (`tcp_enter_cwr`), the faster the more often";
const SD_WHY: &str = "seed 001 slide 10: 'Fast Ethernet is ultra stable', 'GbE is too unstable', read as normalized standard deviations (standard deviation over mean) of the runs' goodput; a standard deviation of n runs is known to within the factors of its 95% interval (χ² with n − 1 degrees of freedom): resolved only where the two intervals do not overlap";

fn run(o: &Options) -> Report {
    let dur = if o.quick { 10 * SEC } else { 30 * SEC };
    let (n, cap) = if o.quick { (4, 8) } else { (8, 16) };
    let mut s: Study<(u64, u64), Out> = Study::new("nic-speed", o);
    let (fe_rate, gbe_rate) = (100_000_000, 1_000_000_000);
    let fe = s.variant("fast_ethernet", (fe_rate, TXQ), n, cap);
    let gbe = s.variant("gbe", (gbe_rate, TXQ), n, cap);
    let fe_c = s.variant("fast_ethernet_txq10000", (fe_rate, TXQ_CAUSE), n, cap);
    let gbe_c = s.variant("gbe_txq10000", (gbe_rate, TXQ_CAUSE), n, cap);
    let gt = s.claim(
        "Fast Ethernet's goodput above GbE's, % of GbE's (fe_minus_gbe_pct)",
        0.0,
        Tol::AtLeast,
        GT_WHY,
        Of::with(&[fe, gbe], move |r| pct_diff(r, fe, gbe)),
    );
    s.cause_of(
        gt,
        "fast_ethernet_txq10000 vs gbe_txq10000",
        CAUSE_CFG,
        Of::with(&[fe_c, gbe_c], move |r| pct_diff(r, fe_c, gbe_c)),
    );
    let mut d = s.run(|&c, seed| iperf(o, c, dur, seed));
    let mut sds = Vec::new();
    for v in [fe, gbe, fe_c, gbe_c] {
        let name = d.name(v).to_string();
        let xs = d.all_runs().each(v, |o| o.mbps);
        let (lo, hi) = sd_factors(xs.len());
        let m = d.mean(v, |o| o.mbps);
        d.row_ci(&name, "goodput_mbps", m);
        d.row(&name, "goodput_nsd", nsd(&xs));
        d.row(
            &name,
            "goodput_min_mbps",
            xs.iter().cloned().fold(f64::INFINITY, f64::min),
        );
        d.row(
            &name,
            "goodput_max_mbps",
            xs.iter().cloned().fold(0.0, f64::max),
        );
        let rtx = d.mean(v, |o| o.retransmits as f64);
        d.row_ci(&name, "retransmits", rtx);
        let to = d.mean(v, |o| o.timeouts as f64);
        d.row_ci(&name, "timeouts", to);
        sds.push((nsd(&xs), lo, hi, xs.len()));
    }
    let [(f, flo, fhi, fnr), (g, glo, ghi, gnr)] = [sds[0], sds[1]];
    // GbE's spread above Fast Ethernet's: Fast Ethernet's the smaller.
    let reading = spread_smaller(f, (flo, fhi), g, (glo, ghi));
    d.seed_reading(
        "GbE's run-to-run normalized spread above Fast Ethernet's (goodput_nsd)".to_string(),
        reading,
        format!(
            "GbE's normalized standard deviation {} (95% ×{glo:.2} … ×{ghi:.2}, {gnr} runs), Fast Ethernet's {} (×{flo:.2} … ×{fhi:.2}, {fnr} runs): {}",
            fmt_num(g),
            fmt_num(f),
            match reading {
                Reading::Within => "GbE's larger",
                Reading::Outside => "GbE's smaller",
                Reading::Open => "the intervals overlap",
            }
        ),
        SD_WHY,
        None,
    );
    d.note(format!(
        "slide 16's lab: the sender's NIC (Fast Ethernet 100 Mbit/s or GbE 1 Gbit/s, its qdisc {TXQ} packets, 1 ms) → a {} Mbit/s bottleneck with a {} MB drop-tail buffer, RTT {} ms; one Reno stream, the 2.6 era profile, socket buffers that never limit; {} s per run (iperf's whole-run average)",
        BOTTLENECK / 1_000_000,
        BUF / 1_000_000,
        RTT / MS,
        secs(dur)
    ));
    d.note("the runs differ only by the hosts' processing jitter: the model's path has no cross traffic, which on the seed's shared path would add to both senders' spread");
    d.finish()
}
