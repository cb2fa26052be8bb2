//! A TCP endpoint pair for one connection: the data sender (the connection's initiator,
//! like `iperf -c`) and the data receiver (the listener, like `iperf -s`).
//!
//! Defaults follow Linux; where Linux and the RFCs differ the RFC behaviour is a named
//! option (`scenario::TcpConfig`): RTO floor and estimator (`rto_mode`, `rto_min`),
//! delayed-ACK timer (`delack_timeout`, `quickack`), growth counting (`growth`), loss
//! recovery cwnd (`prr`). The endpoint never touches the network directly: it writes the
//! packets it sends and the timers it wants into a `transport::Io`, so it can be
//! unit-tested by feeding it packets; both halves implement `transport::Endpoint`.

pub mod accecn;
pub mod config;
pub mod era;
#[cfg(test)]
pub mod harness;
pub mod receiver;
pub mod rtt;
pub mod sender;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rack;

use crate::engine::SimTime;
use crate::packet::Packet;
use crate::tcp::config::TcpConfig;
use crate::transport::{Endpoint, Io, TimerKind};
use std::sync::Arc;

pub use receiver::Receiver;
pub use sender::{PacingStatus, Sender, Spacing, LIMIT_OUTPUT_BYTES};

/// Addressing shared by both halves: fixed per connection, copied into every packet.
#[derive(Clone, Copy, Debug, Default)]
pub struct Addr {
    /// Host (node) of the data sender / initiator.
    pub client: u32,
    /// Host (node) of the data receiver / listener.
    pub server: u32,
    pub conn: u32,
    /// Client (ephemeral) and server ports: the 4-tuple's ports, as captures show them.
    pub sport: u16,
    pub dport: u16,
    pub hash: u32,
    pub dscp: u8,
    /// How many connections used this slot (`conn`) before: 0 for the connections built
    /// with the world; a workload's flow takes the slot of one that closed, and its
    /// packets and timers carry this so that the old connection's stragglers are ignored
    /// (`conn::ConnKey`).
    pub gen: u32,
}

impl Addr {
    /// A blank TCP segment of this connection, from the initiator (`from_client`) or the
    /// listener, stamped with the timestamp option's clock.
    pub fn segment(&self, from_client: bool, now: SimTime) -> Packet {
        let mut p = Packet::blank();
        p.kind = crate::packet::PktKind::Tcp;
        (p.src, p.dst) = if from_client {
            (self.client, self.server)
        } else {
            (self.server, self.client)
        };
        p.conn = self.conn;
        p.from_client = from_client;
        p.hash = self.hash;
        p.dscp = self.dscp;
        p.gen = self.gen as u8;
        p.tsval = now;
        p.born = now;
        p
    }
}

/// The first IPv4 ID of a socket (Linux `inet_sk(sk)->inet_id`), which then counts the
/// packets the socket sends (`ip_select_ident_segs`, include/net/ip.h, Linux 6.6: a
/// connected socket's packets take `inet_id` and add one, DF or not). Linux draws it with
/// `get_random_u16()` at `connect` (`tcp_v4_connect`) and for the accepted socket
/// (`tcp_v4_syn_recv_sock`); here it is a fixed mix (SplitMix64's finaliser) of the
/// connection and the side, so captures are byte-identical from run to run and no random
/// stream of the simulation is touched. (A workload's connection that takes a closed
/// one's slot mixes in its generation: `conn ^ gen.rotate_left(16)`.)
pub fn initial_inet_id(conn: u32, from_client: bool) -> u16 {
    let mut z = (u64::from(conn) << 1 | u64::from(from_client)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) as u16
}

/// One connection: both halves.
pub struct TcpConn {
    pub sender: Sender,
    pub receiver: Receiver,
}

impl TcpConn {
    /// Both halves of a connection whose ends run `cfg`; an unknown congestion control is
    /// an error.
    pub fn new(
        addr: Addr,
        cfg: &Arc<TcpConfig>,
        start: SimTime,
        bytes: Option<u64>,
    ) -> Result<TcpConn, String> {
        let cc = cfg.congestion_control()?;
        Ok(TcpConn {
            receiver: Receiver::for_module(addr, cfg, &cc),
            sender: Sender::new(addr, cfg, cc, start, bytes),
        })
    }
}

impl Endpoint for Sender {
    #[inline]
    fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        Sender::on_packet(self, p, io)
    }
    #[inline]
    fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        Sender::on_timer(self, kind, io)
    }
}

impl Endpoint for Receiver {
    #[inline]
    fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        Receiver::on_packet(self, p, io)
    }
    #[inline]
    fn on_timer(&mut self, _kind: TimerKind, io: &mut Io) {
        Receiver::on_timer(self, io)
    }
}
