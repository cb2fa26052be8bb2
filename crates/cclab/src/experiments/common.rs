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
