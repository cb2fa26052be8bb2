//! cclab — a congestion-control laboratory: a fast, deterministic, packet-level network
//! simulator. See `DESIGN.md` in the shared folder for the layering:
//! engine → net → qdisc → tcp → cc → app → scenario → experiments → report.

pub mod cc;
pub mod engine;
