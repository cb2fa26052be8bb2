//! Seed 004's lab ("10G > 1G", 2014): two Linux boxes plugged into each other at 10
//! Gbit/s, 50 ms of netem delay on box1's egress (`tc qdisc add dev eth0 netem delay 50ms
//! limit 10000`). Shared by `policer` and `lfn-buffering`.

use crate::engine::{SimTime, MS, US};
use crate::scenario::*;

/// The boxes' NICs.
pub const NIC: u64 = 10_000_000_000;
/// The netem delay on box1's egress.
pub const OWD: SimTime = 50 * MS;
/// A cable and two NICs, one way.
pub const HOP: SimTime = 10 * US;

/// The seed's netem: `delay 50ms limit 10000`.
pub fn netem() -> QueueSpec {
    QueueSpec::delay(OWD, 10_000)
}

/// The lab: box1 (`src`) with `box1` as its root qdisc (the seed's netem when `None`) on
/// a 10 Gbit/s link to box2 (`dst`), or to a box in the middle whose port to box2 holds
/// `middle`.
pub fn lab(box1: Option<QueueSpec>, middle: Option<QueueSpec>) -> TopologySpec {
    let mut topo = super::common::one_hop(NIC, HOP, box1.unwrap_or_else(netem));
    let TopologySpec::Chain { hops } = &mut topo else {
        unreachable!("one_hop builds a chain")
    };
    if let Some(q) = middle {
        let mut last = hops[0].clone();
        last.queue = q;
        hops.push(last);
    }
    topo
}
