//! A TCP endpoint pair for one connection: the data sender (the connection's initiator,
//! like `iperf -c`) and the data receiver (the listener, like `iperf -s`).
//!
//! Defaults follow Linux; where Linux and the RFCs differ the RFC behaviour is a named
//! option (`scenario::TcpConfig`): RTO floor and estimator (`rto_mode`, `rto_min`),
//! delayed-ACK timer (`delack_timeout`, `quickack`), growth counting (`growth`), loss
//! recovery cwnd (`prr`). The endpoint never touches the network directly: it writes the
//! packets it sends and the timers it wants into a `TcpIo`, so it can be unit-tested by
//! feeding it packets.

#[cfg(test)]
pub mod harness;
pub mod receiver;
pub mod rtt;
pub mod sender;
#[cfg(test)]
mod tests;

use crate::engine::SimTime;
use crate::net::packet::Packet;

pub use receiver::Receiver;
pub use sender::Sender;

/// Which timer of an endpoint fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpTimer {
    /// Sender: retransmission timeout (also SYN retransmission).
    Rto,
    /// Receiver: delayed ACK.
    DelAck,
}

/// Addressing shared by both halves: fixed per connection, copied into every packet.
#[derive(Clone, Copy, Debug, Default)]
pub struct Addr {
    /// Host (node) of the data sender / initiator.
    pub client: u32,
    /// Host (node) of the data receiver / listener.
    pub server: u32,
    pub conn: u32,
    pub hash: u32,
    pub dscp: u8,
}

impl Addr {
    /// A blank TCP segment of this connection, from the initiator (`from_client`) or the
    /// listener, stamped with the timestamp option's clock.
    pub fn segment(&self, from_client: bool, now: SimTime) -> Packet {
        let mut p = Packet::blank();
        p.kind = crate::net::packet::PktKind::Tcp;
        (p.src, p.dst) = if from_client {
            (self.client, self.server)
        } else {
            (self.server, self.client)
        };
        p.conn = self.conn;
        p.from_client = from_client;
        p.hash = self.hash;
        p.dscp = self.dscp;
        p.tsval = now;
        p.born = now;
        p
    }
}

/// What an endpoint produced while handling an input.
#[derive(Default)]
pub struct TcpIo {
    pub now: SimTime,
    /// Packets to transmit, in order.
    pub tx: Vec<Packet>,
    /// Timers to schedule: (time, which).
    pub timers: Vec<(SimTime, TcpTimer)>,
}

impl TcpIo {
    pub fn new(now: SimTime) -> TcpIo {
        TcpIo {
            now,
            tx: Vec::with_capacity(64),
            timers: Vec::with_capacity(4),
        }
    }
}

/// One connection: both halves.
pub struct TcpConn {
    pub sender: Sender,
    pub receiver: Receiver,
}
