//! The dumbbell: N senders `s0…` → switch `sw0` → bottleneck → switch `sw1` → N
//! receivers `r0…`. Access link i has its own delay (both directions), so round-trip times
//! can differ; access links are Ethernet whatever the bottleneck's framing. The senders'
//! and receivers' own ports run `access_queue` (the host qdisc),
//! the switches' ports towards the hosts and the reverse bottleneck a large drop-tail.
//!
//! Links, in port order: `bottleneck` (sw0 → sw1), `bottleneck_rev`, then for each i
//! `s{i}_up` (s_i → sw0), `s{i}_down`, `r{i}_down` (sw1 → r_i), `r{i}_up`.

use super::big_queue;
use crate::scenario::{Framing, GraphLinkSpec, GraphSpec, NodeKind, NodeSpec, TopologySpec};

pub fn to_graph(spec: &TopologySpec) -> GraphSpec {
    let TopologySpec::Dumbbell {
        senders,
        bottleneck: b,
        access_rate_bps,
        access_delay,
        access_queue,
    } = spec
    else {
        unreachable!("a dumbbell")
    };
    let n = *senders;
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes
        .extend((0..n).map(|i| node(format!("s{i}"), NodeKind::Host)));
    g.nodes
        .extend((0..n).map(|i| node(format!("r{i}"), NodeKind::Host)));
    g.nodes.push(node("sw0".into(), NodeKind::Switch));
    g.nodes.push(node("sw1".into(), NodeKind::Switch));
    g.links.push(GraphLinkSpec {
        name: "bottleneck".into(),
        from: "sw0".into(),
        to: "sw1".into(),
        rate_bps: b.rate_bps,
        delay: b.delay,
        framing: b.framing,
        queue: b.queue.clone(),
        reverse_name: "bottleneck_rev".into(),
        reverse_queue: big_queue(),
    });
    for i in 0..n {
        let d = access_delay[i.min(access_delay.len() - 1)];
        let access = |name: String, from: String, to: String, rev: String, q, rq| GraphLinkSpec {
            name,
            from,
            to,
            rate_bps: *access_rate_bps,
            delay: d,
            framing: Framing::Ethernet,
            queue: q,
            reverse_name: rev,
            reverse_queue: rq,
        };
        g.links.push(access(
            format!("s{i}_up"),
            format!("s{i}"),
            "sw0".into(),
            format!("s{i}_down"),
            access_queue.clone(),
            big_queue(),
        ));
        g.links.push(access(
            format!("r{i}_down"),
            "sw1".into(),
            format!("r{i}"),
            format!("r{i}_up"),
            big_queue(),
            access_queue.clone(),
        ));
    }
    g
}
