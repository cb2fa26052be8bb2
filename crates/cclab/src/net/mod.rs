//! The network: nodes (hosts and switches), output ports with their queue discipline, the
//! links they feed, static shortest-path routing with ECMP, and loss injection.
//!
//! Components live in arenas (`Vec`) addressed by plain `u32` indices; nothing on the
//! per-packet path allocates, hashes a string or formats.

pub mod dynamics;
pub mod forward;
pub mod gro;
pub mod host;
pub mod ingress;
pub mod loss;
/// Packets live a layer below the network (`crate::packet`): queue disciplines hold them too.
pub use crate::packet;
pub mod port;
pub mod routing;
pub mod topology;

use crate::engine::SimTime;
use crate::qdisc::{Qdisc, QueueDisc};

pub use forward::{NetCtx, NetEv, NoTap, Tap};
pub use loss::LinkLoss;
pub use port::{Framing, Port, QueueStats, ETH_OVERHEAD};
pub use routing::Routes;

pub type NodeId = u32;
pub type PortId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub ports: Vec<PortId>,
}

/// The ECMP hash of a connection's 5-tuple (FNV-1a over the fields, computed once per
/// connection; deterministic).
pub fn flow_hash(src: NodeId, dst: NodeId, sport: u16, dport: u16, proto: u8) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in src
        .to_le_bytes()
        .iter()
        .chain(dst.to_le_bytes().iter())
        .chain(sport.to_le_bytes().iter())
        .chain(dport.to_le_bytes().iter())
        .chain(std::iter::once(&proto))
    {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The network: nodes, ports (each with its qdisc, transmitter and link), routes, and the
/// counters of what moved through it.
#[derive(Debug, Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    /// Private: a direct port's queue and counters are brought up to date lazily
    /// ([`Network::settle`]), so they are read through [`Network::port_now`], or after a
    /// run (which settles every port) through [`Network::port`] and [`Network::ports`].
    ports: Vec<Port>,
    pub routes: Routes,
    /// Packets put on a wire (one packet crossing one link is one hop).
    pub packet_hops: u64,
    /// Packets dropped because no route leads to their destination (or it would run
    /// through a host).
    pub unroutable: u64,
    /// Scratch space for packets a qdisc drops at dequeue (reused: no allocation).
    drops: Vec<packet::PktId>,
    /// Scratch space for the segments of an aggregate being cut (reused).
    segs_scratch: Vec<packet::PktId>,
    /// The host side: TCP small queues, GRO and what reached its destination host
    /// ([`host::HostStack`]). Switch ports see their `Port` and `Qdisc` only.
    pub host: host::HostStack,
    /// Run every transmitter on events, direct ports too ([`Port::direct`]): the same
    /// results but where two events fall on the same picosecond, more events; for tests
    /// and comparisons.
    pub no_direct: bool,
    /// Ask the CPU ahead of time for the cache lines a hop will read ([`PREFETCH_PORTS`];
    /// set by [`Network::seal`]). A hint: no result depends on it.
    pub prefetch: bool,
    /// Changes during the run (`[[event]]`, `net/dynamics/events.rs`), and the ports they
    /// touch (never direct).
    pub(crate) changes: dynamics::events::Changes,
    changing: Vec<PortId>,
}

/// Prefetching (`engine::prefetch`) pays where a hop's state is not in the first-level
/// cache: where the ports alone take more than 32 KiB (the smallest first-level data cache
/// of current x86 cores; 48 KiB on the development machine), as on a fat-tree (k = 4: 96
/// ports of 384 bytes) or a dumbbell of 100 senders. Below it, as on `cclab bench`'s 10-
/// and 16-sender dumbbells (42 and 66 ports), nearly every line a hop reads is in that
/// cache already and the hints would be instructions for nothing.
pub const PREFETCH_PORTS: usize = 32 * 1024;

impl Network {
    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> NodeId {
        self.nodes.push(Node {
            name: name.to_string(),
            kind,
            ports: Vec::new(),
        });
        (self.nodes.len() - 1) as NodeId
    }

    /// Add a one-way link `from → to` whose output port at `from` runs `qdisc`.
    pub fn add_link(
        &mut self,
        name: &str,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimTime,
        qdisc: Qdisc,
    ) -> PortId {
        let id = self.ports.len() as PortId;
        let mut port = Port::new(name, from, to, rate_bps, delay, qdisc);
        port.to_host = self.nodes[to as usize].kind == NodeKind::Host;
        self.ports.push(port);
        self.nodes[from as usize].ports.push(id);
        id
    }

    pub fn finish(&mut self) {
        self.routes = Routes::compute(&self.nodes, &self.ports);
    }

    /// Mark the ports whose transmitter can run without events ([`Port::direct`]); done
    /// when the world is built and again each time a run resumes (at `now`), since a
    /// discipline or a loss may be set between runs. A port that stops being direct still
    /// sends what it had admitted, as scheduled: what started by `now` is settled as usual,
    /// what starts later leaves the queue and is counted as sent now.
    pub fn seal(&mut self, now: SimTime) {
        self.prefetch = self.ports.len() * std::mem::size_of::<Port>() > PREFETCH_PORTS;
        for (id, p) in self.ports.iter_mut().enumerate() {
            let id = id as PortId;
            // A FIFO that holds packets by id (its port was event-driven) must send them
            // before its port turns direct (the FIFO then counts only: `Fifo::counted`).
            let direct = !self.no_direct
                && p.loss.is_none()
                && !self.changing.contains(&id)
                && p.qdisc
                    .arrival_fifo()
                    .is_some_and(|f| f.counted() || f.is_empty());
            if p.direct && !direct {
                forward::settle(p, now, &mut self.packet_hops);
                while let Some((_, pkts, bytes, len)) = p.starts.pop_front() {
                    // The discipline (if it is still the counting FIFO) no longer holds it
                    // either.
                    if let Some(fifo) = p.qdisc.arrival_fifo().filter(|f| f.counted()) {
                        fifo.pop_counted(len);
                    }
                    forward::count_sent(p, pkts, bytes, &mut self.packet_hops);
                }
                p.next_start = SimTime::MAX;
            }
            if let Some(fifo) = p.qdisc.arrival_fifo() {
                if fifo.counted() != direct {
                    fifo.set_counted(direct);
                }
            }
            p.direct = direct;
        }
    }

    /// Port `id`: its description (name, ends, rate, delay, framing) and its queue and
    /// counters as last settled — at the end of a run (`Sim::run_until` settles every
    /// port) or by [`Network::port_now`]. Panics on a port the network does not have.
    #[inline]
    pub fn port(&self, id: PortId) -> &Port {
        &self.ports[id as usize]
    }

    /// Every port, in id order, as [`Network::port`] gives each.
    #[inline]
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// Port `id` with its queue and counters brought up to `now` first.
    #[inline]
    pub fn port_now(&mut self, id: PortId, now: SimTime) -> &Port {
        self.settle(id, now);
        &self.ports[id as usize]
    }

    /// Port `id`, to configure before a run (its loss, policer, jitter, framing, or its
    /// discipline, replaced whole). Changing it during a run is the caller's risk:
    /// [`Network::seal`] decides each port's mode again when a run resumes.
    #[inline]
    pub fn port_mut(&mut self, id: PortId) -> &mut Port {
        &mut self.ports[id as usize]
    }

    /// Put every port's discipline inside `wrap` (a stage in front of each queue, as the
    /// Ouroboros layer's router marking is: `flow::router`).
    pub fn wrap_qdiscs(&mut self, mut wrap: impl FnMut(Qdisc) -> Qdisc) {
        for p in &mut self.ports {
            let placeholder =
                crate::qdisc::QueueSpec::droptail(crate::schema::Limit::Packets(0)).build();
            let q = std::mem::replace(&mut p.qdisc, placeholder);
            p.qdisc = wrap(q);
        }
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| i as NodeId)
    }

    pub fn port_by_name(&self, name: &str) -> Option<PortId> {
        self.ports
            .iter()
            .position(|p| p.name == name)
            .map(|i| i as PortId)
    }

    /// Sum of one-way propagation delays and the bottleneck rate along the route.
    pub fn path(&self, src: NodeId, dst: NodeId, hash: u32) -> (SimTime, u64, usize) {
        let mut node = src;
        let mut delay = 0;
        let mut rate = u64::MAX;
        let mut hops = 0;
        while node != dst && hops < 1000 {
            let Some(pid) = self.routes.next_port(node, dst, hash) else {
                break;
            };
            let p = &self.ports[pid as usize];
            delay += p.delay;
            rate = rate.min(p.rate_bps);
            node = p.peer;
            hops += 1;
        }
        (delay, rate, hops)
    }

    /// Does the route from `src` lead to `dst` (through switches only: hosts do not
    /// forward)?
    pub fn reaches(&self, src: NodeId, dst: NodeId, hash: u32) -> bool {
        let mut node = src;
        for _ in 0..=self.nodes.len() {
            if node == dst {
                return true;
            }
            if node != src && self.nodes[node as usize].kind == NodeKind::Host {
                return false;
            }
            match self.routes.next_port(node, dst, hash) {
                Some(pid) => node = self.ports[pid as usize].peer,
                None => return false,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::Qdisc;
    use crate::qdisc::QueueSpec;
    use crate::schema::Limit;

    fn q() -> Qdisc {
        Qdisc::from_spec(&QueueSpec::droptail(Limit::Packets(10)))
    }

    /// h0 — a — {b, c} — d — h1: two equal-cost paths between a and d.
    #[test]
    fn ecmp_splits_flows_over_equal_cost_paths_and_keeps_each_flow_on_one() {
        let mut net = Network::default();
        let h0 = net.add_node("h0", NodeKind::Host);
        let h1 = net.add_node("h1", NodeKind::Host);
        let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| net.add_node(n, NodeKind::Switch));
        for (x, y) in [(h0, a), (a, b), (a, c), (b, d), (c, d), (d, h1)] {
            net.add_link("l", x, y, 1_000_000_000, 1000, q());
            net.add_link("l", y, x, 1_000_000_000, 1000, q());
        }
        net.finish();
        // At a, towards h1: two next hops (b and c); at b only one.
        let peers: std::collections::BTreeSet<_> = (0..64u32)
            .map(|hsh| net.ports[net.routes.next_port(a, h1, hsh).unwrap() as usize].peer)
            .collect();
        assert_eq!(peers, [b, c].into_iter().collect());
        assert_eq!(
            net.ports[net.routes.next_port(b, h1, 7).unwrap() as usize].peer,
            d
        );
        // The 5-tuple hash is deterministic per connection, and spreads connections.
        let hashes: Vec<u32> = (0..100)
            .map(|i| flow_hash(h0, h1, 10000 + i, 5201, 6))
            .collect();
        assert_eq!(hashes[3], flow_hash(h0, h1, 10003, 5201, 6));
        let via_b = hashes
            .iter()
            .filter(|&&h| net.ports[net.routes.next_port(a, h1, h).unwrap() as usize].peer == b)
            .count();
        assert!(
            (30..=70).contains(&via_b),
            "{via_b} of 100 connections via b"
        );
        // Every path is 4 hops.
        assert_eq!(net.path(h0, h1, hashes[0]).2, 4);
    }
}
