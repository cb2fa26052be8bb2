//! Pieces shared by experiments.

use crate::engine::SimTime;
use crate::scenario::*;

/// Socket buffers large enough never to limit a long fat flow (the seeds' "still need to
/// set the TCP buffer sizes!"): 256 MiB.
pub const BIG_BUF: u64 = 256 << 20;

/// Linux-default TCP with `cc` and large socket buffers.
pub fn tcp(cc: &str) -> TcpConfig {
    TcpConfig {
        cc: cc.into(),
        sndbuf: BIG_BUF,
        rcvbuf: BIG_BUF,
        ..Default::default()
    }
}

/// A single hop `src → dst` at `rate` with one-way delay `owd` and the given queue.
pub fn one_hop(rate: u64, owd: SimTime, queue: QueueSpec) -> TopologySpec {
    TopologySpec::Chain {
        hops: vec![LinkSpec {
            rate_bps: rate,
            delay: owd,
            queue,
        }],
    }
}

/// Wire bytes per full-sized packet at this MTU (IP + Ethernet framing).
pub fn wire_bytes(mtu: u32) -> u64 {
    (mtu + crate::net::ETH_OVERHEAD) as u64
}

/// Maximum TCP goodput of a link: payload share of each frame (1448 of 1538 at MTU 1500).
pub fn max_goodput(rate_bps: u64, mtu: u32) -> f64 {
    rate_bps as f64 * crate::tcp::sender::payload_mss(mtu) as f64 / wire_bytes(mtu) as f64
}

/// One `cc` flow over a single hop at `rate` with round trip `rtt` and Bernoulli loss `p`
/// on the data direction, for `dur`: returns the run's results and the goodput (bit/s)
/// after a warm-up of 10% of the run (the slow-start overshoot is not the steady state).
pub fn lossy_path(
    cc: &str,
    rate: u64,
    rtt: SimTime,
    p: f64,
    dur: SimTime,
    seed: u64,
) -> (crate::results::RunResult, f64) {
    let topo = one_hop(
        rate,
        rtt / 2,
        QueueSpec::DropTail {
            limit: Limit::Packets(100_000),
        },
    );
    let mut sc = Scenario::new("lossy-path", topo, dur);
    sc.seed = seed;
    sc.add_default_flows(&tcp(cc));
    sc.losses.push(LossSpec {
        link: "hop0".into(),
        rate: p,
        drop_nth: vec![],
        every: 0,
    });
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let warm = dur / 10;
    sim.run_until(warm);
    let b0 = sim.conns[0].receiver.delivered_bytes;
    sim.run();
    let steady =
        (sim.conns[0].receiver.delivered_bytes - b0) as f64 * 8.0 / crate::engine::secs(dur - warm);
    (sim.results(), steady)
}
