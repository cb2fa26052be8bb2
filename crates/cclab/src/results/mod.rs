//! What a run produces: plain structs, serialisable, with simulated quantities only (so a
//! summary is byte-identical across runs). Wall-clock figures live in `Perf`, apart.

pub mod apps;
pub mod log;
pub mod table;

pub use apps::{AppRow, AppTables};

pub use log::{FlowIter, FlowLog, Spilled};
use serde::Serialize;
use std::sync::Arc;

/// A run's flow rows, by flow number. Usually all in memory; the result of a run that
/// wrote its finished flows' rows to a temporary file (`runner::run`, a workload of many
/// flows: [`FlowLog`]) keeps those there and reads them back, merged in order with the
/// rest, each time [`Flows::iter`] walks them. So writing a million rows' files does not
/// hold a million rows. Indexing (`flows[i]`) is for results held in memory.
#[derive(Clone, Debug, Default)]
pub struct Flows {
    rows: Vec<FlowResult>,
    spilled: Option<Arc<Spilled>>,
    /// `summary.json` leaves the rows out (`[output] summary_flows = false`); they stay
    /// here for every other file.
    pub(crate) left_out_of_summary: bool,
}

impl Flows {
    /// `rows` (sorted by flow number) and the rows on file.
    pub fn with_spilled(rows: Vec<FlowResult>, spilled: Option<Spilled>) -> Flows {
        Flows {
            rows,
            spilled: spilled.filter(|s| !s.is_empty()).map(Arc::new),
            left_out_of_summary: false,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len() + self.spilled.as_ref().map_or(0, |s| s.len() as usize)
    }

    /// Does `summary.json` leave the rows out?
    pub fn left_out(&self) -> bool {
        self.left_out_of_summary
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every row in flow-number order.
    pub fn iter(&self) -> FlowIter<'_> {
        FlowIter::new(&self.rows, self.spilled.as_deref())
    }

    /// Whether some rows are on file (then indexing panics: use [`Flows::iter`]).
    pub fn spilled(&self) -> bool {
        self.spilled.is_some()
    }

    /// Why an iteration ended before the last row (the temporary file could not be read
    /// back), if one did.
    pub fn read_error(&self) -> Option<String> {
        self.spilled.as_ref().and_then(|s| s.error())
    }

    /// Every row in memory.
    pub fn to_vec(&self) -> Vec<FlowResult> {
        self.iter().map(std::borrow::Cow::into_owned).collect()
    }

    /// Add a row held in memory (after the others: keep the numbers in order).
    pub fn push(&mut self, f: FlowResult) {
        self.rows.push(f);
    }
}

impl From<Vec<FlowResult>> for Flows {
    fn from(rows: Vec<FlowResult>) -> Flows {
        Flows {
            rows,
            spilled: None,
            left_out_of_summary: false,
        }
    }
}

impl std::ops::Index<usize> for Flows {
    type Output = FlowResult;
    fn index(&self, i: usize) -> &FlowResult {
        assert!(
            self.spilled.is_none(),
            "rows of a run on file are read with Flows::iter"
        );
        &self.rows[i]
    }
}

impl std::ops::IndexMut<usize> for Flows {
    fn index_mut(&mut self, i: usize) -> &mut FlowResult {
        assert!(
            self.spilled.is_none(),
            "rows of a run on file are read with Flows::iter"
        );
        &mut self.rows[i]
    }
}

impl<'a> IntoIterator for &'a Flows {
    type Item = std::borrow::Cow<'a, FlowResult>;
    type IntoIter = FlowIter<'a>;
    fn into_iter(self) -> FlowIter<'a> {
        self.iter()
    }
}

/// A JSON array of every row, read back as it is written.
impl Serialize for Flows {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for f in self {
            seq.serialize_element(f.as_ref())?;
        }
        if let Some(e) = self.read_error() {
            return Err(S::Error::custom(e));
        }
        seq.end()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// The flow's number (`flow` in every table and in `summary.json`).
    #[serde(rename = "flow")]
    pub id: u32,
    pub from: String,
    pub to: String,
    pub cc: String,
    pub start_s: f64,
    /// Payload bytes delivered in order to the receiving application.
    pub bytes: u64,
    pub goodput_bps: f64,
    pub retransmits: u64,
    pub recovery_episodes: u64,
    pub timeouts: u64,
    /// Of them, netstat's "other TCP timeouts" (`SenderStats::other_timeouts`), summed per
    /// host into `HostResult::tcp_timeouts`; not written per flow.
    #[serde(skip)]
    pub other_timeouts: u64,
    /// Duplicate ACKs the sender counted (web100's `DupAcksIn`); not written.
    #[serde(skip)]
    pub dupacks_in: u64,
    pub syn_retransmits: u64,
    pub ece_acks: u64,
    /// Entries into CWR (`tcp_enter_cwr`): window reductions on ECN-Echo (or local
    /// congestion).
    pub cwr_episodes: u64,
    pub ce_received: u64,
    pub data_segs_out: u64,
    pub acks_sent: u64,
    pub delack_timeouts: u64,
    /// Byte-count flows (`[[flow]] bytes`, workloads; not the worker connections of a
    /// partition/aggregate app, whose unit is the query): the size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// Flow completion time of a byte-count flow that finished, as ns-3's flow monitor
    /// and the pFabric and HPCC evaluations measure it: from the connection's start (its
    /// first packet, the SYN) to the last byte delivered to the receiving application.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct_s: Option<f64>,
    /// What `fct_s` would be for the flow alone on an empty network
    /// (`collect::ideal_fct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_fct_s: Option<f64>,
    /// From the connection's start to the sender's last byte acknowledged (not the FCT:
    /// it waits for the last ACK, which a receiver may delay up to 40 ms when the flow
    /// ends on an odd segment).
    pub acked_s: Option<f64>,
    pub rtt_mean_s: Option<f64>,
    pub rtt_p99_s: Option<f64>,
    pub final_cwnd: u32,
    /// `ss -ti`-style line at the end of the run.
    pub ss: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct QueueResult {
    /// The port (link) name (`queue` in the tables and in `summary.json`).
    #[serde(rename = "queue")]
    pub name: String,
    pub max_bytes: u64,
    pub max_pkts: u64,
    /// Time-average of the queue length in bytes over the run.
    pub mean_bytes: f64,
    pub drops: u64,
    pub marks: u64,
    pub enqueued: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub injected_losses: u64,
    /// The ingress policer where this link ends (`[[police]]`; omitted without one):
    /// what it let through and what it dropped or passed as exceeding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub police: Option<PoliceResult>,
}

/// An ingress policer's counters (`tc -s filter show … ingress`: its action's stats).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PoliceResult {
    pub conformed: u64,
    pub exceeded: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct HostResult {
    pub host: String,
    /// `netstat -s` "other TCP timeouts" (`LINUX_MIB_TCPTIMEOUTS`) of this host's senders:
    /// first RTOs of a series fired in Open or CWR with nothing SACKed.
    pub tcp_timeouts: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct EngineResult {
    pub events: u64,
    pub packet_hops: u64,
    pub sim_time_s: f64,
    /// Packets dropped for want of a route (omitted when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub unroutable: u64,
    /// ACKs dropped at a full input queue of the SACK-processing model (omitted when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub ack_backlog_drops: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct CwndSample {
    pub t: f64,
    pub flow: u32,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_s: f64,
    pub in_flight: u32,
}

/// One quantity of a flow's congestion-control state at one sample time (`[output] cc`,
/// `cc::CongestionOps::state`).
#[derive(Clone, Debug, Serialize)]
pub struct CcSample {
    pub t: f64,
    pub flow: u32,
    /// The algorithm (`CongestionOps::name`).
    pub cc: &'static str,
    /// The quantity (`StateVar::name`).
    pub name: &'static str,
    /// Its value; NaN while the algorithm has none.
    pub value: f64,
    /// For a quantity with named levels, the name of `value`'s.
    pub label: Option<&'static str>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueSample {
    pub t: f64,
    pub queue: String,
    pub bytes: u64,
    pub pkts: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ThroughputSample {
    pub t: f64,
    pub flow: u32,
    /// Payload bits delivered in order to the receiving application over the interval
    /// ending at `t`, per second.
    pub goodput_bps: f64,
}

/// One event of a time-sequence trace (tcptrace): `kind` 0 = data segment [seq, end),
/// 1 = retransmission [seq, end), 2 = ACK received (seq = ack, end = ack + window).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TsgSample {
    pub t: f64,
    pub flow: u32,
    pub kind: u8,
    pub seq: u64,
    pub end: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Series {
    pub tsg: Vec<TsgSample>,
    pub cwnd: Vec<CwndSample>,
    pub cc: Vec<CcSample>,
    pub queue: Vec<QueueSample>,
    pub throughput: Vec<ThroughputSample>,
}

/// The error of a run whose finished flows' rows could not be read back.
pub(crate) fn read_back(e: String) -> String {
    format!("the finished flows' rows could not be read back from their temporary file: {e}")
}

#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// What produced this (the same in every table of the run): `Scenario::run_id`, cclab's
    /// version and git revision.
    pub run_id: String,
    pub cclab: String,
    pub git: String,
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    /// Every connection (left out of `summary.json` with `[output] summary_flows = false`).
    #[serde(skip_serializing_if = "Flows::left_out")]
    pub flows: Flows,
    pub queues: Vec<QueueResult>,
    /// The apps' own results (`pings`, `udp`, `ocbr`, `aggregates`, …), each under its
    /// key ([`apps::Report`]).
    #[serde(flatten)]
    pub apps: AppTables,
    pub hosts: Vec<HostResult>,
    pub engine: EngineResult,
    #[serde(skip)]
    pub series: Series,
}

impl RunResult {
    /// The rows of one kind an app reports (`r.app::<PingResult>()`): none if the run has
    /// none.
    pub fn app<T: AppRow>(&self) -> &[T] {
        self.apps.get()
    }
}
