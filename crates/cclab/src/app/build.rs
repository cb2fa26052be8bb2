//! What an app's `build` may do to the world being built: name hosts, open connections,
//! draw its random streams, add itself. The world (`world.rs`) implements [`Build`]; an
//! app sees only this trait, so apps need nothing of the world's own types.

use super::{AnyApp, AppId};
use crate::engine::{Rng, SimTime};
use crate::net::NodeId;
use crate::tcp::config::TcpConfig;
use std::sync::Arc;

/// What a new connection needs beyond its two hosts.
pub struct ConnReq<'a> {
    /// Where the scenario asks for it (`flow.3`, `aggregate.0 worker s7`), for errors.
    pub label: &'a str,
    pub from: &'a str,
    pub to: &'a str,
    /// The listener's port (iperf3's 5201, HTTP's 80, …).
    pub service: u16,
    pub tcp: &'a TcpConfig,
    /// Bytes the client writes in all (`None` = until stopped).
    pub bytes: Option<u64>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// The app that uses it.
    pub app: AppId,
}

/// The world being built, as an app's `build` sees it.
pub trait Build {
    /// The node of host `name`.
    fn host(&self, name: &str) -> Result<NodeId, String>;
    /// Every host's name, in node order.
    fn host_names(&self) -> Vec<String>;
    /// The rate of host `name`'s NIC (its first link), bit/s.
    fn host_rate(&self, name: &str) -> Result<u64, String>;
    /// Does the route from `a` lead to `z`?
    fn reaches(&self, a: NodeId, z: NodeId, hash: u32) -> bool;
    /// The switch a host's only link leads to, if any (`Routes::attachment`): routing
    /// treats all hosts of one such switch alike.
    fn attachment(&self, host: NodeId) -> Option<NodeId>;
    /// The Ouroboros layer's congestion avoidance, and the packets each port's kernel
    /// holds below the layer's rings, unseen by the marker: once the apps are built, every
    /// port's discipline gets the layer's router marking in front (`flow::router`). The
    /// last call wins.
    fn set_flow_marking(&mut self, ca: crate::flow::FlowCaKind, hidden: u64);
    /// The time `from`'s NIC takes to send a packet of `size` bytes (with its link's
    /// framing) towards `to`.
    fn frame_time(&self, from: NodeId, to: NodeId, hash: u32, size: u32) -> SimTime;
    /// Host `node`'s monotonic clock at the start of the run, ns: as if it booted a
    /// random time (under a day) before, drawn from the run's seed for that host.
    fn host_clock_ns(&self, node: NodeId) -> u64;
    /// A random stream of its own for app `app`, from the run's seed.
    fn app_rng(&self, app: AppId) -> Rng;
    /// Random stream `k` of app `app` (one per host of a workload), from the run's seed.
    fn app_sub_rng(&self, app: AppId, k: u64) -> Rng;
    /// The id the next app pushed gets.
    fn next_app(&self) -> AppId;
    /// The index the next connection gets.
    fn next_conn(&self) -> u32;
    fn push_app(&mut self, app: AnyApp) -> AppId;
    /// Add a TCP connection `from → to`; returns its index.
    fn conn(&mut self, r: ConnReq) -> Result<u32, String>;
    /// Add a connection of another transport (a ping's echo client, a UDP flow, an
    /// Ouroboros flow) `from → to`, used by app `app`, in the next slot
    /// ([`Build::next_conn`], which its endpoints put on their packets); returns it. The
    /// app opens it (`AppCx::open`) when it starts.
    fn add_conn(&mut self, c: crate::conn::Conn, from: NodeId, to: NodeId, app: AppId) -> u32;
    /// `tcp` as the connections sent from host `client` run it: with the host's stack
    /// below TCP (`[host]`, and whether its qdisc paces). Equal configurations share one
    /// allocation.
    fn host_tcp(&mut self, client: NodeId, tcp: &TcpConfig) -> Arc<TcpConfig>;
    /// Check that connections of `cfg` can be built (a workload's, created later).
    fn check_tcp(&mut self, cfg: &Arc<TcpConfig>) -> Result<(), String>;
}
