//! An ocbr flow's results (`summary.json`'s `ocbr`, the `ocbr` table, its lines of the
//! human summary): what its client sent, what its server printed, both ends'
//! flow-allocator statistics.

use crate::results::apps::{AppRow, Report};
use crate::results::table::{floats, ints, strs, Col, Table};
pub use crate::transport::ocbr::OcbrInterval;
use serde::Serialize;

/// An ocbr flow (seed 002): what its client sent, what its server printed, and both ends'
/// flow-allocator statistics files.
#[derive(Clone, Debug, Serialize)]
pub struct OcbrResult {
    pub from: String,
    pub to: String,
    /// The server's number for the flow (`Flow 64`).
    pub fd: u32,
    pub size: u32,
    pub flood: bool,
    pub rate_bps: u64,
    /// The layer's congestion avoidance.
    pub ca: String,
    /// Packets the client's flow sent, the server's received, and missing from the
    /// sequence.
    pub sent: u64,
    pub received: u64,
    pub lost: u64,
    /// SDU bits received per second over the run from the client's start.
    pub goodput_bps: f64,
    pub flow_updates_sent: u64,
    pub flow_updates_received: u64,
    /// FLOW_UPDATEs lost on the way (`update_loss`).
    pub flow_updates_lost: u64,
    /// Time the sender's thread slept in the congestion-avoidance wait.
    pub ca_wait_s: f64,
    /// MB-ECN's windows at the sender by how they ended: slow start, multiplicative
    /// decrease, additive increase, unchanged (absent for other algorithms).
    pub windows: Option<[u64; 4]>,
    pub intervals: Vec<OcbrInterval>,
    /// The server's output, line by line (`New flow.`, `Flow   64: …`).
    pub server: Vec<String>,
    /// The flow allocator's statistics file at each end at the end of the run.
    pub sender_stats: String,
    pub receiver_stats: String,
    /// The sender's statistics over time (`stats_every`; omitted when not asked for).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stats_series: Vec<FaSample>,
}

/// The sender's flow-allocator statistics at one time (`[[ocbr]] stats_every`).
#[derive(Clone, Debug, Serialize)]
pub struct FaSample {
    pub t: f64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    /// The receiver's `rx_ece` (upstream at the server) and the sender's `tx_ece`
    /// (downstream congestion level), MB-ECN only (0 otherwise).
    pub upstream_level: u16,
    pub downstream_level: u16,
    pub window_ns: u64,
    pub packets_in_window: u64,
    pub bytes_in_window: u64,
    pub max_bytes_in_window: u64,
    pub regime: String,
}

impl AppRow for OcbrResult {
    const REPORT: Report = Report {
        key: "ocbr",
        table: "ocbr",
        always: false,
        rank: 30,
        table_rank: 30,
    };
    fn columns(o: &[OcbrResult], t: Table) -> Table {
        t.col("from", strs(o, |x| &x.from))
            .col("to", strs(o, |x| &x.to))
            .col("fd", ints(o, |x| x.fd as u64))
            .col("size_bytes", ints(o, |x| x.size as u64))
            .col(
                "flood",
                Col::Bool(o.iter().map(|x| Some(x.flood)).collect()),
            )
            .col("rate_bps", ints(o, |x| x.rate_bps))
            .col("ca", strs(o, |x| &x.ca))
            .col("sent", ints(o, |x| x.sent))
            .col("received", ints(o, |x| x.received))
            .col("lost", ints(o, |x| x.lost))
            .col("goodput_bps", floats(o, |x| x.goodput_bps))
            .col("flow_updates_sent", ints(o, |x| x.flow_updates_sent))
            .col(
                "flow_updates_received",
                ints(o, |x| x.flow_updates_received),
            )
            .col("flow_updates_lost", ints(o, |x| x.flow_updates_lost))
            .col("ca_wait_s", floats(o, |x| x.ca_wait_s))
    }
    fn human(&self, s: &mut String) {
        use std::fmt::Write;
        let o = self;
        let what = if o.flood {
            "flood".to_string()
        } else {
            format!("{} Mbit/s", o.rate_bps as f64 / 1e6)
        };
        let _ = writeln!(
            s,
            "\nocbr {}→{} (flow {}, {}-byte packets, {what}, {}): {} sent, {} received, {} lost, {:.2} Mbit/s received; FLOW_UPDATEs {} sent, {} received; the sender slept {:.3} s in its window waits",
            o.from,
            o.to,
            o.fd,
            o.size,
            o.ca,
            o.sent,
            o.received,
            o.lost,
            o.goodput_bps / 1e6,
            o.flow_updates_sent,
            o.flow_updates_received,
            o.ca_wait_s
        );
        for line in &o.server {
            let _ = writeln!(s, "{line}");
        }
    }
}
