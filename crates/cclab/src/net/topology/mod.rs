//! Topologies. Every network is a graph ([`GraphSpec`]: nodes, duplex links); the
//! built-in kinds are builders of one:
//!
//! - `dumbbell` — N senders → switch → bottleneck → switch → N receivers (`dumbbell.rs`);
//! - `star` — N senders → switch → one receiver, the incast pattern (`star.rs`);
//! - `chain` — a path of hops, each with its own rate, delay and queue (`chain.rs`);
//! - `graph` — any network written out in the scenario (nothing to build).
//!
//! [`build`] turns the graph into a [`Network`]: one node per node spec, two ports per
//! link (forward, then reverse), in order, then the routes. Adding a topology: one file
//! here with a `to_graph`, and one line in [`to_graph`].

pub mod chain;
pub mod dumbbell;
pub mod star;

use super::{Network, NodeId};
use crate::qdisc::Qdisc;
use crate::scenario::{GraphSpec, Limit, QueueSpec, TopologySpec};
use std::collections::BTreeMap;

/// The queue of ports that are not an experiment's subject: a large drop-tail.
pub fn big_queue() -> QueueSpec {
    QueueSpec::DropTail {
        limit: Limit::Packets(100_000),
    }
}

/// The graph a topology describes.
pub fn to_graph(spec: &TopologySpec) -> GraphSpec {
    match spec {
        TopologySpec::Dumbbell { .. } => dumbbell::to_graph(spec),
        TopologySpec::Star { .. } => star::to_graph(spec),
        TopologySpec::Chain { hops } => chain::to_graph(hops),
        TopologySpec::Graph(g) => g.clone(),
    }
}

/// Build the network of a topology.
pub fn build(spec: &TopologySpec) -> Network {
    match spec {
        TopologySpec::Graph(g) => build_graph(g),
        t => build_graph(&to_graph(t)),
    }
}

/// Build the network of a graph. Link ends must name nodes of the graph (the scenario
/// parser checks this; an unknown name here is a programming error).
pub fn build_graph(g: &GraphSpec) -> Network {
    let mut net = Network::default();
    let mut ids: BTreeMap<&str, NodeId> = BTreeMap::new();
    for n in &g.nodes {
        let id = net.add_node(&n.name, n.kind);
        ids.insert(&n.name, id);
    }
    for l in &g.links {
        let (a, b) = (ids[l.from.as_str()], ids[l.to.as_str()]);
        let fwd = net.add_link(
            &l.name,
            a,
            b,
            l.rate_bps,
            l.delay,
            Qdisc::from_spec(&l.queue),
        );
        let rev = net.add_link(
            &l.reverse_name,
            b,
            a,
            l.rate_bps,
            l.delay,
            Qdisc::from_spec(&l.reverse_queue),
        );
        for p in [fwd, rev] {
            net.ports[p as usize].framing = l.framing.overhead();
        }
    }
    net.finish();
    net
}

#[cfg(test)]
mod tests;
