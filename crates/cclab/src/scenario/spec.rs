//! The validated scenario: what a TOML file (or an experiment written in Rust) asks the
//! simulator to build and run. Every field is already checked and in base units
//! (picoseconds, bits per second, bytes); the parser in `parse.rs` produces it.

pub use crate::app::{bulk::FlowSpec, ping::PingSpec, reqresp::AggregateSpec, AppSpecs};
use crate::engine::SimTime;
pub use crate::net::host::{HostSpec, JitterSpec};
pub use crate::net::{Framing, NodeKind};
pub use crate::qdisc::classful::{ClassSpec, Sched};
pub use crate::qdisc::QueueSpec;
pub use crate::tcp::config::{Growth, RtoMode, TcpConfig};

/// A queue limit or threshold, in bytes or in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Bytes(u64),
    Packets(u64),
}

impl Limit {
    /// Does a queue holding `bytes` in `pkts` packets exceed this limit?
    #[inline]
    pub fn exceeded_by(&self, bytes: u64, pkts: u64) -> bool {
        match *self {
            Limit::Bytes(b) => bytes > b,
            Limit::Packets(p) => pkts > p,
        }
    }
    /// Would admitting a packet of `len` bytes to a queue of `bytes`/`pkts` overflow it?
    #[inline]
    pub fn overflows(&self, bytes: u64, pkts: u64, len: u64) -> bool {
        match *self {
            Limit::Bytes(b) => bytes + len > b,
            Limit::Packets(p) => pkts + 1 > p,
        }
    }
}

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
        crate::net::topology::to_graph(self)
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

/// Loss injection on a named link.
#[derive(Clone, Debug, PartialEq)]
pub struct LossSpec {
    pub link: String,
    /// Each packet crossing the link is dropped with this probability.
    pub rate: f64,
    /// Drop the n-th (1-based) data packet of flow `flow` (index in `flows`) crossing it.
    pub drop_nth: Vec<(usize, u64)>,
    /// Drop every n-th data packet crossing the link (a periodic dropper, as the kernel
    /// module of seed 003's "drop 1 in 25,000" tests); 0 = off.
    pub every: u64,
}

/// Optional time series and plots.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutputSpec {
    /// Sample every flow's cwnd/ssthresh/srtt at this interval (`cwnd.csv`).
    pub cwnd_interval: Option<SimTime>,
    /// Sample every named queue's length at this interval (`queue.csv`).
    pub queue_interval: Option<SimTime>,
    /// Per-flow throughput over intervals of this length (`throughput.csv`).
    pub throughput_interval: Option<SimTime>,
    /// Draw SVG plots of the series that are on.
    pub plots: bool,
    /// Leave the per-connection list out of `summary.json` (`summary_flows = false`).
    pub summary_without_flows: bool,
    /// Which links' queues to sample (empty = the bottleneck / every hop).
    pub queues: Vec<String>,
    /// Flows (indices) to trace for tcptrace-style time-sequence graphs (`tsg.csv`,
    /// `tsg_flow<i>.svg`): every data segment, retransmission and ACK.
    pub tsg: Vec<usize>,
    /// Hosts (what they send and receive) and links (what leaves their port) to capture
    /// as `<out>/<name>.pcap` (`net::pcap`).
    pub pcap: Vec<String>,
    /// Fixed axis ranges of the plots (`[output.plot.NAME]`).
    pub axes: PlotAxes,
}

/// Fixed bounds of one plot's axes; `None` = from the run. Time in picoseconds; y in the
/// plot's base unit: segments (cwnd), bytes (queue, tsg), bit/s (throughput).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Axes {
    pub xmin: Option<SimTime>,
    pub xmax: Option<SimTime>,
    pub ymin: Option<f64>,
    pub ymax: Option<f64>,
}

/// The axes of every plot a run draws.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlotAxes {
    pub cwnd: Axes,
    pub queue: Axes,
    pub throughput: Axes,
    pub tsg: Axes,
}

impl PlotAxes {
    /// The axes of plot `name` (one of `cwnd`, `queue`, `throughput`, `tsg`).
    pub fn get_mut(&mut self, name: &str) -> &mut Axes {
        match name {
            "cwnd" => &mut self.cwnd,
            "queue" => &mut self.queue,
            "throughput" => &mut self.throughput,
            "tsg" => &mut self.tsg,
            _ => unreachable!("no plot named {name}"),
        }
    }
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    /// The scenario file as read, with every `--set` applied (TOML): what reruns it. Empty
    /// for a scenario built in Rust.
    pub source: String,
    pub duration: SimTime,
    pub seed: u64,
    pub topology: TopologySpec,
    /// The apps' entries (`[[flow]]`, `[[aggregate]]`, `[[ping]]`), one list per app.
    pub apps: AppSpecs,
    pub losses: Vec<LossSpec>,
    /// Ingress policers (`[[police]]`).
    pub policers: Vec<crate::net::ingress::IngressSpec>,
    /// What every host does between its stack and its NIC (`[host]`).
    pub host: HostSpec,
    pub output: OutputSpec,
}
