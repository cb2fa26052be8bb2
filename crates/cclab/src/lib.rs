//! cclab — a congestion-control laboratory: a fast, deterministic, packet-level network
//! simulator. See docs/architecture.md for the layering:
//! engine → net → qdisc → tcp → cc → app → scenario → experiments → report.

pub mod app;
pub mod bench;
pub mod cc;
pub mod conn;
pub mod engine;
pub mod experiments;
pub mod flow;
pub mod net;
pub mod packet;
pub mod packetdrill;
pub mod probe;
pub mod qdisc;
pub mod report;
pub mod results;
pub mod runner;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod stats;
pub mod sweep;
pub mod tcp;
pub mod transport;
pub mod world;

/// cclab's version, written into every output's provenance.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git revision cclab was built from (`unknown` outside a checkout; `-modified` when
/// the working tree differed from it).
pub const GIT_REV: &str = env!("CCLAB_GIT_REV");
