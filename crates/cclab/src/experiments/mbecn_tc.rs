//! `mbecn-tc` — seed 002 footnote 4: the test's 100 Mbit/s link was set "using ethtool";
//! "Using Linux traffic control (`tc`) to limit traffic adds kernel queues and may
//! interfere with MB-ECN". The same star as `mbecn-star`, in its cause configuration (the
//! test as its author describes it: ocbr clients at 80 Mbit/s, the senders' IPCPs at line
//! rate, and the 47 frames an eth IPCP's raw socket puts into the kernel below the ring
//! MB-ECN marks from), with the router's port towards the server limited two ways:
//!
//! - `ethtool` — the port's NIC at 100 Mbit/s: the frames the socket has handed over wait
//!   in the NIC's qdisc; the ring above holds the rest, marked from 16 packets.
//! - `tc_tbf` — the NIC at 1 Gbit/s with `tc qdisc add dev eth1 root tbf rate 100mbit
//!   burst 50kb latency 50ms` (`BURST`, `LATENCY_S`: tc-tbf(8) asks for a burst of at least
//!   rate/HZ, 50 KB at 100 Mbit/s and HZ 250; 50 ms is its example's latency, a limit of
//!   675 KB, 653 frames): the frames the socket has handed over wait in the shaper
//!   instead. The shaper counts a packet's length, the 100 Mbit/s link its 1,057 bytes on
//!   the wire, so tbf passes more frames per second: the model's tbf counts 1,019 bytes
//!   (SDU, PCI and the IPCP header's 4 bytes beyond the MAC header, as it counts an IP
//!   packet's length), 3.7% more frames; Linux's counts `skb->len` with the 14-byte MAC
//!   header, 1,033 bytes, 2.3% more. The port's one queue in the model is the ring and the
//!   kernel's frames together, as for `ethtool`: 1,024 packets (in the shaper's bytes,
//!   1,024 × 1,019), since the socket never has more than 47 frames in the shaper whatever
//!   its limit.
//!
//! What the model takes from the sources either way: the eth IPCP (0.18.0 `eth.c`) writes
//! with `select()` before each `sendto()` on an `AF_PACKET` socket, which is writable while
//! its frames in the kernel take less than half its send buffer (`sock_writeable`): 47
//! frames, wherever in the kernel they wait — the NIC's qdisc or tc's. So tc adds a queue
//! MB-ECN does not see only where the shaper holds fewer than those 47 frames: then the
//! socket never blocks, the ring never fills, and the shaper drops what MB-ECN never
//! marked (`tc_tbf_shallow`, a row: tbf `limit 30kb`, 29 frames).
//!
//! The reading, fixed before the run: "may interfere" with the test's result: a flow's rate
//! after the second joins moves by more than the seed's precision (±3 Mbit/s,
//! docs/references.md MB-3) between `ethtool` and `tc_tbf` — the difference of the means,
//! its 95% interval (Welch) wholly beyond 3 Mbit/s for interference, wholly within for
//! none.

use super::common::{diff_ci, MeanCi};
use super::mbecn_star::{fmt_secs, mean_between, star, RING, TWO_FLOODS};
use super::study::{Of, Runs, Study, V};
use super::{fmt_num, Experiment, Options, Report, Tol};
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::results::RunResult;
use crate::scenario::parse_scenario;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-tc",
    seed_doc: "002 (MB-ECN in action)",
    about: "MB-ECN with the 100 Mbit/s limit set by ethtool vs a tc tbf shaper (footnote 4: tc's kernel queues may interfere)",
    run,
};

/// The frames an eth IPCP's raw socket puts into the kernel (`mbecn-star`'s `KERNEL`).
const KERNEL: u64 = 47;
/// The clients' `ocbr -r` (`mbecn-star`'s cause run).
const CLIENT: &str = "80Mbit";
/// tc-tbf(8): burst ≥ rate / HZ (100 Mbit/s / 250 = 50,000 B); its example's latency.
const BURST: u64 = 50_000;
const LATENCY_S: f64 = 0.05;
/// The shallow shaper's limit (a row): fewer than the socket's 47 frames.
const SHALLOW: u64 = 30_000;
/// A packet as the model's tbf counts it: 1000 B SDU + the PCI and the IPCP header's
/// bytes beyond the MAC header (`flow::endpoint::FLOW_HDR`).
const FRAME: u64 = 1000 + crate::flow::endpoint::FLOW_HDR as u64;
/// The ring's packets (`SHM_RBUFF_SIZE`, `mbecn-star`'s `RING`).
const RING_PKTS: u64 = 1024;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Port {
    Ethtool,
    /// A tbf with this limit (bytes).
    Tbf(u64),
}

/// The keys a variant sets on `mbecn-star`'s text.
fn sets(p: Port, seed: u64, join: SimTime, end: SimTime) -> Vec<(String, String)> {
    let mut v = vec![
        ("sim.duration".to_string(), fmt_secs(end)),
        ("ocbr.1.start".to_string(), fmt_secs(join)),
        ("sim.seed".to_string(), seed.to_string()),
    ];
    for i in 0..2 {
        v.push((format!("ocbr.{i}.flood"), "false".into()));
        v.push((format!("ocbr.{i}.rate"), format!("\"{CLIENT}\"")));
        v.push((format!("ocbr.{i}.kernel_queue"), KERNEL.to_string()));
    }
    if p != Port::Ethtool {
        v.push(("topology.links.2.rate".into(), "\"1Gbps\"".into()));
    }
    v
}

/// The router port's queue keys: the ring (ethtool), or the shaper.
fn port_keys(p: Port) -> String {
    match p {
        Port::Ethtool => RING.to_string(),
        Port::Tbf(limit) => format!(
            "queue = \"tbf\", tbf = {{ rate = \"100mbit\", burst = \"{BURST}B\", limit = \"{limit}B\" }}"
        ),
    }
}

/// One run's outcome.
#[derive(Clone, Debug)]
struct Out {
    /// Each flow's mean rate after the join (the server's lines), Mbit/s.
    flow: [f64; 2],
    /// Flow 1 alone, Mbit/s.
    alone: f64,
    /// Drops at the router's port, and packets the server found missing.
    drops: u64,
    lost: u64,
    max_queue: u64,
}

fn simulate(o: &Options, p: Port, seed: u64, join: SimTime, end: SimTime) -> Out {
    let text = star("mbecn-tc", "50us", "50us", &port_keys(p), TWO_FLOODS);
    let mut sc =
        parse_scenario(&text, "mbecn-tc", &sets(p, seed, join, end)).expect("valid scenario");
    o.prepare(&mut sc);
    let r: RunResult = crate::world::run(&sc).expect("runs");
    let f = r.app::<OcbrResult>();
    let (j, e) = (secs(join), secs(end));
    let rs = r.queues.iter().find(|q| q.name == "rs").expect("port rs");
    Out {
        flow: [
            mean_between(&f[0], j + 0.2, e),
            mean_between(&f[1], j + 0.2, e),
        ],
        alone: mean_between(&f[0], j / 2.0, j),
        drops: rs.drops,
        lost: f.iter().map(|x| x.lost).sum(),
        max_queue: rs.max_pkts,
    }
}

/// |flow `i`'s mean under `a` − under `b`|, with the 95% interval of the difference.
fn abs_diff(r: &Runs<Out>, a: V, b: V, i: usize) -> MeanCi {
    let d = diff_ci(&r.each(a, |o| o.flow[i]), &r.each(b, |o| o.flow[i]));
    MeanCi {
        mean: d.mean.abs(),
        ..d
    }
}

const WHY: &str = "seed 002 footnote 4, 'may interfere with MB-ECN', read as: a flow's rate after the join moves by more than the seed's precision (±3 Mbit/s, docs/references.md MB-3) between the 100 Mbit/s set by ethtool and by a tc shaper; the difference of the means (Welch), its 95% interval wholly above 3 Mbit/s for interference";

fn run(o: &Options) -> Report {
    let (join, end) = if o.quick {
        (SEC, 1600 * MS)
    } else {
        (2 * SEC, 4 * SEC)
    };
    let (n, cap) = if o.quick { (3, 12) } else { (5, 20) };
    // The ring and the kernel's frames, in the shaper's bytes (module doc).
    let deep = RING_PKTS * FRAME;
    let mut s: Study<Port, Out> = Study::new("mbecn-tc", o);
    let eth = s.variant("ethtool", Port::Ethtool, n, cap);
    let tbf = s.variant("tc_tbf", Port::Tbf(deep), n, cap);
    let shallow = s.variant("tc_tbf_shallow", Port::Tbf(SHALLOW), 1, 1);
    for i in 0..2 {
        s.claim(
            &format!("flow {} under tc differs from ethtool by more than 3 Mbit/s (|tc − ethtool|, Mbit/s)", i + 1),
            3.0,
            Tol::AtLeast,
            WHY,
            Of::with(&[tbf, eth], move |r| abs_diff(r, tbf, eth, i)),
        );
    }
    let mut d = s.run(|&p, seed| simulate(o, p, seed, join, end));
    for v in [eth, tbf, shallow] {
        let name = d.name(v).to_string();
        let rows = [
            ("alone_mbps", d.mean(v, |o| o.alone)),
            ("two_flows_flow1_mbps", d.mean(v, |o| o.flow[0])),
            ("two_flows_flow2_mbps", d.mean(v, |o| o.flow[1])),
            ("router_drops", d.mean(v, |o| o.drops as f64)),
            ("packets_lost", d.mean(v, |o| o.lost as f64)),
            ("router_queue_max_pkts", d.mean(v, |o| o.max_queue as f64)),
        ];
        for (m, x) in rows {
            d.row_ci(&name, m, x);
        }
    }
    d.note(format!(
        "mbecn-star's star in its cause configuration (ocbr clients at {CLIENT}, {KERNEL} frames in each eth IPCP's kernel below the ring, the ring 1024 packets marked from 16); the router's port towards the server at 100 Mbit/s by ethtool, or at 1 Gbit/s behind tbf rate 100mbit burst {} B (tc's limit for a latency of {} ms, {} B, holds more than the socket's {KERNEL} frames, so the port's queue stays the ring and the kernel's frames, {} B; tc_tbf_shallow: limit {} B, {} frames)",
        BURST,
        fmt_num(LATENCY_S * 1e3),
        (100e6 / 8.0 * LATENCY_S) as u64 + BURST,
        deep,
        SHALLOW,
        SHALLOW / FRAME
    ));
    d.finish()
}
