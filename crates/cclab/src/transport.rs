//! The transport seam: what every transport endpoint offers the simulator. TCP's are in
//! `tcp/`; the others here: a ping's echo client ([`ping`]), a UDP constant-bit-rate flow
//! with IPv4 fragmentation and reassembly ([`udp`]), and the ocbr tool over an Ouroboros
//! flow ([`ocbr`]).
//!
//! An endpoint is sans-IO: it is handed a packet or a due timer together with an [`Io`],
//! and writes into the `Io` the packets it sends and the timers it wants. It never sees
//! the network, the event queue or another endpoint, so it can be unit-tested by feeding
//! it packets (`tcp::harness`).
//!
//! Both ends of a connection live in one slot of the arena (`crate::conn::Conn`, one enum variant per
//! transport, dispatched by `match`): the initiator ([`Side::Client`], like `iperf -c`)
//! and the listener ([`Side::Server`]). A packet names its connection and whether it comes
//! from the client, so its destination endpoint is found without a lookup.

pub mod ocbr;
pub mod ping;
pub mod udp;

use crate::engine::SimTime;
use crate::net::NodeId;
use crate::packet::Packet;
use std::collections::BTreeMap;

/// Which timer of an endpoint is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Retransmission timeout (also SYN retransmission).
    Rto,
    /// Delayed ACK.
    DelAck,
    /// The pacing timer: the socket's next departure time is due (`tcp_pace_kick`).
    Pace,
    /// Bytes of this socket left the host (TCP small queues, `tcp_tsq_handler`).
    Tsq,
    /// A constant-rate source's next packet or write is due (a ping's next echo request,
    /// iperf's next datagram, the ocbr client's next write), or its end.
    Source,
    /// A receiver's report interval ends (iperf's `-i`).
    Report,
    /// An Ouroboros flow's IPCP thread: its congestion-avoidance sleep or the frame time
    /// of its last packet is over.
    Ipcp,
}

impl TimerKind {
    /// Is it a timer of TCP's endpoints? (The others' are handled out of TCP's path.)
    #[inline]
    pub fn is_tcp(self) -> bool {
        matches!(
            self,
            TimerKind::Rto | TimerKind::DelAck | TimerKind::Pace | TimerKind::Tsq
        )
    }
}

/// The end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The initiator (the data sender of a bulk flow).
    Client,
    /// The listener.
    Server,
}

impl Side {
    /// The side a packet is addressed to.
    #[inline]
    pub fn of_dst(p: &Packet) -> Side {
        if p.from_client {
            Side::Server
        } else {
            Side::Client
        }
    }
}

/// What an endpoint produced while handling an input.
#[derive(Default)]
pub struct Io {
    pub now: SimTime,
    /// Packets to transmit, in order.
    pub tx: Vec<Packet>,
    /// Timers to schedule: (time, which).
    pub timers: Vec<(SimTime, TimerKind)>,
    /// TCP small queues: bytes the endpoint's earlier packets still hold in the host qdisc
    /// and NIC (Linux `sk_wmem_alloc`), set by the simulator before each call.
    pub below: u64,
    /// Set by the endpoint when it stopped for TCP small queues: wake it when bytes leave.
    pub tsq_throttled: bool,
    /// Packets the sending host's own qdisc still admits before it would drop one
    /// (`[host] local_cwr`); `u32::MAX` when it does not say or the option is off. Set by
    /// the simulator before each call of a sender; the sender counts down what it sends.
    pub local_room: u32,
    /// For the timers an endpoint armed with [`Io::arm`]: per entry of `timers`, how many
    /// packets of `tx` leave before it is scheduled, and the end it is for. The simulator
    /// then schedules timers and packets in the order the endpoint produced them (events
    /// of the same picosecond run in the order they were scheduled). Empty for TCP, whose
    /// timers are all scheduled before its packets.
    pub armed: Vec<(u32, Side)>,
}

impl Io {
    pub fn new(now: SimTime) -> Io {
        Io {
            now,
            tx: Vec::with_capacity(64),
            timers: Vec::with_capacity(4),
            below: 0,
            tsq_throttled: false,
            local_room: u32::MAX,
            armed: Vec::new(),
        }
    }

    /// Ask for timer `kind` of end `side` at `at`, scheduled after the packets already in
    /// `tx` and before those pushed after this call.
    #[inline]
    pub fn arm(&mut self, at: SimTime, kind: TimerKind, side: Side) {
        self.armed.push((self.tx.len() as u32, side));
        self.timers.push((at, kind));
    }
}

/// A transport endpoint: packet in, timer, packets out.
pub trait Endpoint {
    /// A packet addressed to this endpoint arrived.
    fn on_packet(&mut self, p: &Packet, io: &mut Io);
    /// A timer this endpoint asked for (`kind`) is due.
    fn on_timer(&mut self, kind: TimerKind, io: &mut Io);
}

/// The 4-tuple ports of connections, as a real host would pick them: the listener's
/// service port, and for the initiator an ephemeral port from Linux's default range
/// (`ip_local_port_range` 32768–60999), unique among the connections between the same
/// two hosts to the same service. Past 28,232 connections between one pair the service
/// port moves up by one (as a tester running several `iperf3 -s -p` would), so any number
/// of connections gets distinct 4-tuples.
#[derive(Default)]
pub struct PortAllocator {
    used: BTreeMap<(NodeId, NodeId, u16), u32>,
}

/// Linux `ip_local_port_range` defaults.
pub const EPHEMERAL_FIRST: u16 = 32768;
pub const EPHEMERAL_LAST: u16 = 60999;

impl PortAllocator {
    /// (client port, server port) for a new connection `client → server` to `service`.
    pub fn allocate(&mut self, client: NodeId, server: NodeId, service: u16) -> (u16, u16) {
        let k = self.used.entry((client, server, service)).or_insert(0);
        let n = u32::from(EPHEMERAL_LAST - EPHEMERAL_FIRST) + 1;
        let (sport, bump) = (EPHEMERAL_FIRST + (*k % n) as u16, *k / n);
        *k += 1;
        (sport, service.wrapping_add(bump as u16))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_unique_per_host_pair_and_never_overflow() {
        let mut a = PortAllocator::default();
        assert_eq!(a.allocate(0, 1, 5201), (32768, 5201));
        assert_eq!(a.allocate(0, 1, 5201), (32769, 5201));
        // Another pair starts again.
        assert_eq!(a.allocate(2, 1, 5201), (32768, 5201));
        let mut seen = std::collections::BTreeSet::new();
        seen.insert((32768, 5201));
        seen.insert((32769, 5201));
        for _ in 0..70_000 {
            assert!(seen.insert(a.allocate(0, 1, 5201)));
        }
    }
}
