//! The star (incast): N senders `s0…` → switch `sw0` → receiver `recv`. Every link has
//! the same rate and delay; the port towards `recv` (link `bottleneck`) runs the
//! experiment's queue, every other port `other_queue`.
//!
//! Links, in port order: `bottleneck` (sw0 → recv), `recv_up`, then for each i `s{i}_up`,
//! `s{i}_down`.

use crate::scenario::{GraphLinkSpec, GraphSpec, NodeKind, NodeSpec, TopologySpec};

pub fn to_graph(spec: &TopologySpec) -> GraphSpec {
    let TopologySpec::Star {
        senders,
        link,
        other_queue,
    } = spec
    else {
        unreachable!("a star")
    };
    let n = *senders;
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes.reserve(n + 2);
    g.nodes
        .extend((0..n).map(|i| node(format!("s{i}"), NodeKind::Host)));
    g.nodes.push(node("recv".into(), NodeKind::Host));
    g.nodes.push(node("sw0".into(), NodeKind::Switch));
    let l = |name: String, from: String, to: String, rev: String, q, rq| GraphLinkSpec {
        name,
        from,
        to,
        rate_bps: link.rate_bps,
        delay: link.delay,
        framing: link.framing,
        queue: q,
        reverse_name: rev,
        reverse_queue: rq,
    };
    g.links.reserve(n + 1);
    g.links.push(l(
        "bottleneck".into(),
        "sw0".into(),
        "recv".into(),
        "recv_up".into(),
        link.queue.clone(),
        other_queue.clone(),
    ));
    for i in 0..n {
        g.links.push(l(
            format!("s{i}_up"),
            format!("s{i}"),
            "sw0".into(),
            format!("s{i}_down"),
            other_queue.clone(),
            other_queue.clone(),
        ));
    }
    g
}
