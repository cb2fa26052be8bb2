//! The validated scenario: what a TOML file (or an experiment written in Rust) asks the
//! simulator to build and run. Every field is already checked and in base units
//! (picoseconds, bits per second, bytes); the parser in `parse.rs` produces it.

pub use crate::app::{bulk::FlowSpec, ping::PingSpec, reqresp::AggregateSpec, AppSpecs};
use crate::engine::SimTime;
pub use crate::net::host::{HostSpec, JitterSpec};
pub use crate::net::loss::LossSpec;
pub use crate::net::topology::spec::{GraphLinkSpec, GraphSpec, LinkSpec, NodeSpec, TopologySpec};
pub use crate::net::{Framing, NodeKind};
pub use crate::probe::spec::{Axes, OutputSpec, PlotAxes};
pub use crate::qdisc::classful::{ClassSpec, Sched};
pub use crate::qdisc::QueueSpec;
pub use crate::schema::Limit;
pub use crate::tcp::config::{Growth, RtoMode, TcpConfig};

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
    /// Links whose deliveries come from a trace or a generated model (a link's `rate`
    /// written as a table: `net/dynamics.rs`), one entry per direction.
    pub link_rates: Vec<crate::net::dynamics::LinkRateSpec>,
    /// Changes to links during the run (`[[event]]`).
    pub events: Vec<crate::net::dynamics::events::EventSpec>,
}
