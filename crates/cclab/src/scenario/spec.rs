//! The validated scenario: what a TOML file (or an experiment written in Rust) asks the
//! simulator to build and run. Every field is already checked and in base units
//! (picoseconds, bits per second, bytes); the parser in `parse.rs` produces it.

use crate::engine::SimTime;
pub use crate::net::{Framing, NodeKind};

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

/// A queue discipline on an output port.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    /// Tail drop at `limit`.
    DropTail { limit: Limit },
    /// DCTCP-style threshold marking: CE on ECT packets arriving while the queue exceeds
    /// `k`; non-ECT packets arriving above `k` are dropped; tail drop at `limit`.
    Ecn { limit: Limit, k: Limit },
    /// Several queues selected by DSCP with a scheduler between them and an optional
    /// port-wide shared buffer (`limit`).
    Classes {
        classes: Vec<ClassSpec>,
        sched: Sched,
        limit: Option<Limit>,
    },
}

/// One class of a `QueueSpec::Classes` port.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSpec {
    /// DSCP values (0..=63) that select this class; empty = the default class.
    pub dscp: Vec<u8>,
    /// The class's own queue (drop-tail or ECN threshold).
    pub queue: QueueSpec,
    /// DRR weight (quantum = weight × 1514 bytes).
    pub weight: u32,
}

/// Scheduler between the classes of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    /// The first class with a packet goes first.
    Strict,
    /// Deficit round robin.
    Drr,
}

impl QueueSpec {
    pub fn limit(&self) -> Limit {
        match self {
            QueueSpec::DropTail { limit } | QueueSpec::Ecn { limit, .. } => *limit,
            QueueSpec::Classes { limit, classes, .. } => limit.unwrap_or_else(|| {
                classes
                    .first()
                    .map_or(Limit::Packets(0), |c| c.queue.limit())
            }),
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

/// RTO computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoMode {
    /// Linux `tcp_rtt_estimator` + `__tcp_set_rto`: RTO = srtt + max(mdev terms, rto_min).
    Linux,
    /// RFC 6298 as written: RTO = SRTT + max(G, 4·RTTVAR), at least `rto_min` (1 s in the RFC).
    Rfc6298,
}

/// How congestion avoidance counts an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Linux: by acked segments (an ACK covering 2 segments counts 2).
    Segments,
    /// RFC 5681 per-ACK counting: every ACK counts as one segment.
    Acks,
}

/// TCP endpoint configuration (defaults follow Linux; see `Default`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Congestion control name (`cc::CC_NAMES`).
    pub cc: String,
    /// CUBIC HyStart.
    pub hystart: bool,
    /// IP MTU in bytes; MSS = MTU − 40 (IP + TCP), payload per segment = MSS − 12
    /// (timestamps option), as Linux with timestamps on.
    pub mtu: u32,
    pub sack: bool,
    /// RFC 3168 ECN: negotiate, send data ECT(0), echo CE with ECE until CWR.
    pub ecn: bool,
    pub init_cwnd: u32,
    /// Initial ssthresh in segments (`None` = infinite, as Linux).
    pub init_ssthresh: Option<u32>,
    pub rto_min: SimTime,
    pub rto_max: SimTime,
    pub rto_mode: RtoMode,
    /// Initial RTO (1 s, RFC 6298 §2.1) also used for SYN retransmission.
    pub rto_initial: SimTime,
    pub delayed_ack: bool,
    /// Delayed-ACK timeout (Linux `TCP_DELACK_MIN` = 40 ms).
    pub delack_timeout: SimTime,
    /// ACK immediately for this many segments at the start (Linux quick-ack mode; the
    /// kernel uses at most `TCP_MAX_QUICKACKS` = 16, larger values are allowed for study).
    pub quickack: u32,
    pub growth: Growth,
    /// Proportional rate reduction (RFC 6937, Linux) during recovery and CWR; `false` gives
    /// RFC 6675 (SACK: cwnd = ssthresh at entry) / RFC 6582 (NewReno: ssthresh + 3, inflate).
    pub prr: bool,
    /// ECT(0) on SYN and SYN-ACK when the congestion control needs ECN (DCTCP), as Linux
    /// does (`tcp_ecn_send_syn`); `false` sends them Not-ECT (RFC 3168 §6.1.1).
    pub syn_ect: bool,
    /// DCTCP `dctcp_shift_g` (g = 1/2^shift, 0..=10).
    pub dctcp_shift_g: u32,
    /// DCTCP `dctcp_alpha_on_init` (0..=1024).
    pub dctcp_alpha_on_init: u32,
    /// Send buffer in bytes: unacknowledged data never exceeds it.
    pub sndbuf: u64,
    /// Receive buffer in bytes: the advertised window.
    pub rcvbuf: u64,
    /// DSCP value to put on this flow's packets.
    pub dscp: u8,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: "cubic".into(),
            hystart: true,
            mtu: 1500,
            sack: true,
            ecn: false,
            init_cwnd: 10,
            init_ssthresh: None,
            rto_min: 200 * crate::engine::MS,
            rto_max: 120 * crate::engine::SEC,
            rto_mode: RtoMode::Linux,
            rto_initial: crate::engine::SEC,
            delayed_ack: true,
            delack_timeout: 40 * crate::engine::MS,
            quickack: 16,
            growth: Growth::Segments,
            prr: true,
            syn_ect: true,
            dctcp_shift_g: 4,
            dctcp_alpha_on_init: 1024,
            // Linux tcp_wmem / tcp_rmem maxima (4 MiB / 6 MiB): enough for ~50 Mbit/s at
            // 100 ms. Long fat paths must raise them, as the seeds say.
            sndbuf: 4 << 20,
            rcvbuf: 6 << 20,
            dscp: 0,
        }
    }
}

/// A bulk TCP transfer (iperf -c).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    /// Stop sending new data at this time (iperf -t); `None` = until the end of the run.
    pub stop: Option<SimTime>,
    /// Send exactly this many bytes (iperf -n) and close; flow completion time is measured.
    pub bytes: Option<u64>,
    pub tcp: TcpConfig,
}

/// A ping probe: an echo every `interval` through the same queues.
#[derive(Clone, Debug, PartialEq)]
pub struct PingSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    pub interval: SimTime,
    /// IP packet size in bytes (84 = `ping` default 56 data + 8 ICMP + 20 IP).
    pub size: u32,
    /// Send with ECT(0) (as `ping -Q` with the ECT bit).
    pub ect: bool,
    pub dscp: u8,
}

/// Partition/aggregate traffic (the DCTCP paper's query pattern): `aggregator` sends a
/// small request to every worker at once; each answers `response_bytes` over its own
/// persistent TCP connection; the query completes when every answer has arrived; the next
/// query follows `think` later.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateSpec {
    pub aggregator: String,
    pub workers: Vec<String>,
    pub response_bytes: u64,
    pub queries: u32,
    pub start: SimTime,
    pub think: SimTime,
    /// IP size of a request packet.
    pub request_size: u32,
    pub tcp: TcpConfig,
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
    /// Which links' queues to sample (empty = the bottleneck / every hop).
    pub queues: Vec<String>,
    /// Flows (indices) to trace for tcptrace-style time-sequence graphs (`tsg.csv`,
    /// `tsg_flow<i>.svg`): every data segment, retransmission and ACK.
    pub tsg: Vec<usize>,
    /// Hosts (what they send and receive) and links (what leaves their port) to capture
    /// as `<out>/<name>.pcap` (`net::pcap`).
    pub pcap: Vec<String>,
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub duration: SimTime,
    pub seed: u64,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
    pub pings: Vec<PingSpec>,
    pub aggregates: Vec<AggregateSpec>,
    pub losses: Vec<LossSpec>,
    pub output: OutputSpec,
}
