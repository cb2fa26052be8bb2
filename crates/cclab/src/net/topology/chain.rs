//! The chain: a path `src` → `r0` → … → `dst` of hops, each with its own rate, delay and
//! queue (the queue of the port that sends onto that hop). The reverse direction of each
//! hop has the same rate and delay and a large drop-tail queue.
//!
//! Links, in port order: `hop{i}`, `hop{i}_rev` for each hop i.

use super::big_queue;
use crate::scenario::{GraphLinkSpec, GraphSpec, LinkSpec, NodeKind, NodeSpec};

pub fn to_graph(hops: &[LinkSpec]) -> GraphSpec {
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes.push(node("src".into(), NodeKind::Host));
    g.nodes
        .extend((0..hops.len().saturating_sub(1)).map(|i| node(format!("r{i}"), NodeKind::Switch)));
    g.nodes.push(node("dst".into(), NodeKind::Host));
    // The path in node order: src, r0, …, dst.
    let names: Vec<String> = std::iter::once("src".to_string())
        .chain((0..hops.len().saturating_sub(1)).map(|i| format!("r{i}")))
        .chain(std::iter::once("dst".to_string()))
        .collect();
    for (i, h) in hops.iter().enumerate() {
        g.links.push(GraphLinkSpec {
            name: format!("hop{i}"),
            from: names[i].clone(),
            to: names[i + 1].clone(),
            rate_bps: h.rate_bps,
            delay: h.delay,
            framing: h.framing,
            queue: h.queue.clone(),
            reverse_name: format!("hop{i}_rev"),
            reverse_queue: big_queue(),
        });
    }
    g
}
