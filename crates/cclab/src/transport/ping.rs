//! A ping's echo client (iputils `ping -i INTERVAL -s SIZE`) as an endpoint: from its start,
//! an ICMP echo request every `interval`, each carrying its sequence number and send time;
//! the destination host's kernel answers it (`Network::echo_reply`, `net/host.rs`, as
//! Linux's `icmp_echo`), and the reply's round-trip time is recorded. The `ping` app
//! (`app/ping.rs`) configures it and reports what it recorded.

use crate::engine::SimTime;
use crate::net::{flow_hash, NodeId};
use crate::packet::{Packet, PktKind, ECT0, NOT_ECT};
use crate::transport::{Endpoint, Io, Side, TimerKind};

/// The echo client of one probe. Only the client is an endpoint: the other end is the
/// destination host itself.
#[derive(Debug)]
pub struct Pinger {
    /// Its connection slot, which every request and so every reply carries
    /// (`Packet::conn`).
    pub conn: u32,
    /// The echo identifier (iputils takes its process id; here the app's number). It
    /// goes into the probes' ECMP hash and into a capture's ICMP header.
    pub ident: u32,
    pub from: NodeId,
    pub to: NodeId,
    pub start: SimTime,
    pub interval: SimTime,
    /// IP packet size in bytes.
    pub size: u32,
    /// Send with ECT(0) (as `ping -Q` with the ECT bit).
    pub ect: bool,
    pub dscp: u8,
    /// The probes' ECMP hash (of the hosts, the identifier and ICMP).
    hash: u32,
    /// Requests sent.
    pub sent: u64,
    /// Round-trip times of the replies received, in order.
    pub rtts: Vec<SimTime>,
}

impl Pinger {
    /// An echo client in slot `conn` with identifier `ident`, `from → to`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        conn: u32,
        ident: u32,
        from: NodeId,
        to: NodeId,
        start: SimTime,
        interval: SimTime,
        size: u32,
        ect: bool,
        dscp: u8,
    ) -> Pinger {
        Pinger {
            conn,
            ident,
            from,
            to,
            start,
            interval,
            size,
            ect,
            dscp,
            hash: flow_hash(from, to, ident as u16, 0, 1),
            sent: 0,
            rtts: Vec::new(),
        }
    }

    /// The probe starts: its first request goes at `start`.
    pub fn open(&mut self, io: &mut Io) {
        io.arm(self.start, TimerKind::Source, Side::Client);
    }
}

impl Endpoint for Pinger {
    /// An echo reply.
    fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        debug_assert_eq!(p.kind, PktKind::Pong);
        self.rtts.push(io.now - p.born);
    }

    /// The next request is due.
    fn on_timer(&mut self, _kind: TimerKind, io: &mut Io) {
        let mut p = Packet::blank();
        p.kind = PktKind::Ping;
        p.src = self.from;
        p.dst = self.to;
        p.conn = self.conn;
        p.size = self.size;
        p.ecn = if self.ect { ECT0 } else { NOT_ECT };
        p.dscp = self.dscp;
        p.hash = self.hash;
        p.born = io.now;
        p.seq = self.sent;
        self.sent += 1;
        io.arm(io.now + self.interval, TimerKind::Source, Side::Client);
        io.tx.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    /// `ping -i 0.2` from t = 1 s: a request at 1 s, then every 200 ms, numbered from 0;
    /// a reply 30 ms after its request records 30 ms.
    #[test]
    fn requests_every_interval_and_replies_give_the_round_trip() {
        let mut e = Pinger::new(7, 3, 0, 1, 1000 * MS, 200 * MS, 84, false, 0);
        let mut io = Io::new(0);
        e.open(&mut io);
        assert_eq!(io.timers, vec![(1000 * MS, TimerKind::Source)]);
        assert!(io.tx.is_empty());
        for k in 0..3u64 {
            let at = io.timers.pop().unwrap().0;
            io.armed.clear();
            assert_eq!(at, (1000 + 200 * k) * MS);
            io.now = at;
            e.on_timer(TimerKind::Source, &mut io);
            let p = io.tx.pop().unwrap();
            assert_eq!(
                (p.kind, p.conn, p.seq, p.born, p.size),
                (PktKind::Ping, 7, k, at, 84)
            );
            // The timer goes before the request (the order the app had).
            assert_eq!(io.armed, vec![(0, Side::Client)]);
        }
        let mut reply = Packet::blank();
        reply.kind = PktKind::Pong;
        reply.born = 1000 * MS;
        io.now = 1030 * MS;
        e.on_packet(&reply, &mut io);
        assert_eq!(e.rtts, vec![30 * MS]);
        assert_eq!(e.sent, 3);
    }
}
