//! The description of a network: built-in topologies (`TopologySpec`) and any graph
//! written out node by node (`GraphSpec`), with each link's rate, delay, framing and
//! queue. A scenario holds one; `topology::to_graph` turns a built-in into a graph.

use crate::engine::SimTime;
use crate::net::{Framing, NodeKind};
use crate::qdisc::QueueSpec;

/// One link with the queue of the port that feeds it.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: QueueSpec,
    /// What the link adds to every packet on the wire.
    pub framing: Framing,
}

/// A node of a graph topology.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// A duplex link of a graph topology: two ports, `from → to` (named `name`) and
/// `to → from` (named `reverse_name`), with the same rate, delay and framing and a queue
/// each.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphLinkSpec {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub framing: Framing,
    pub queue: QueueSpec,
    pub reverse_name: String,
    pub reverse_queue: QueueSpec,
}

/// Any network: nodes in id order (hosts and switches), and duplex links in port order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GraphSpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<GraphLinkSpec>,
}

/// Built-in topologies. Host names (used by `[[flow]]` `from`/`to`) are given by
/// `TopologySpec::host_names`; link names (used by `[[loss]]` and in results) by
/// `TopologySpec::link_names`.
#[derive(Clone, Debug, PartialEq)]
pub enum TopologySpec {
    /// N senders `s0…` → switch `sw0` → bottleneck → switch `sw1` → N receivers `r0…`.
    /// Access link i has rate `access_rate_bps` and delay `access_delay[i]` (both
    /// directions), so RTTs can differ. Link names: `bottleneck` (sw0→sw1), `bottleneck_rev`,
    /// `s{i}_up` (s_i→sw0), `s{i}_down`, `r{i}_down` (sw1→r_i), `r{i}_up`.
    Dumbbell {
        senders: usize,
        bottleneck: LinkSpec,
        access_rate_bps: u64,
        access_delay: Vec<SimTime>,
        access_queue: QueueSpec,
    },
    /// Incast: N senders `s0…` → switch `sw0` → receiver `recv`. Every link has `link`'s
    /// rate and delay; the port towards `recv` (link `bottleneck`) has `link.queue`, the
    /// others `other_queue`.
    Star {
        senders: usize,
        link: LinkSpec,
        other_queue: QueueSpec,
    },
    /// A path `src` → `r0` → … → `dst` of hops, each with its own rate, delay and queue
    /// (the queue of the port that sends onto that hop). Links `hop{i}` and `hop{i}_rev`
    /// (the reverse direction has the same rate and delay and a large drop-tail queue).
    Chain { hops: Vec<LinkSpec> },
    /// Any network written out node by node and link by link.
    Graph(GraphSpec),
}

impl TopologySpec {
    /// The network this topology describes (`net::topology` builds it).
    pub fn to_graph(&self) -> GraphSpec {
        super::to_graph(self)
    }

    /// Host names, in node order (used by `[[flow]]` `from`/`to`).
    pub fn host_names(&self) -> Vec<String> {
        match self {
            TopologySpec::Graph(g) => g.host_names(),
            t => t.to_graph().host_names(),
        }
    }

    /// Link names (each direction), in port order (used by `[[loss]]` and in results).
    pub fn link_names(&self) -> Vec<String> {
        match self {
            TopologySpec::Graph(g) => g.link_names(),
            t => t.to_graph().link_names(),
        }
    }

    /// The default flows when a scenario names none: one bulk flow per sender (a graph
    /// has no senders: none).
    pub fn default_pairs(&self) -> Vec<(String, String)> {
        match self {
            TopologySpec::Dumbbell { senders, .. } => (0..*senders)
                .map(|i| (format!("s{i}"), format!("r{i}")))
                .collect(),
            TopologySpec::Star { senders, .. } => (0..*senders)
                .map(|i| (format!("s{i}"), "recv".to_string()))
                .collect(),
            TopologySpec::Chain { .. } => vec![("src".into(), "dst".into())],
            TopologySpec::Graph(_) => Vec::new(),
        }
    }
}

impl GraphSpec {
    pub fn host_names(&self) -> Vec<String> {
        self.nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Host)
            .map(|n| n.name.clone())
            .collect()
    }

    pub fn link_names(&self) -> Vec<String> {
        self.links
            .iter()
            .flat_map(|l| [l.name.clone(), l.reverse_name.clone()])
            .collect()
    }
}
