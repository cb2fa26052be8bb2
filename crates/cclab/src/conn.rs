//! The simulator's connection slots: each holds one connection of any transport, both
//! of its endpoints, and hands it the packets and timers the simulator routes to it. A
//! layer above the transports (it names each kind), below the simulator.

use crate::packet::Packet;
use crate::transport::{Endpoint, Io, Side, TimerKind};

/// One connection of any transport: both of its endpoints, boxed so the arena holds a
/// pointer per connection whatever its state.
///
/// A workload's flow lives only while it runs: its app creates the connection when the
/// flow arrives (`Sim::connect`), and when its last byte is acknowledged its result row
/// goes to the run's flow log (`results::FlowLog`) and its slot becomes [`Conn::Free`],
/// for the next flow to take. So endpoint memory follows the flows active at once, not
/// the flows of the run. Other connections are `Tcp` from the start to the end.
pub enum Conn {
    Tcp(Box<crate::tcp::TcpConn>),
    /// A slot whose connection closed, free for the next one.
    Free,
}

impl Conn {
    /// Hand packet `p` to the endpoint it is addressed to (the simulator has checked
    /// that it is this connection's, not a straggler of its slot's previous one:
    /// `conn::ConnKey`).
    #[inline]
    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        if let Conn::Tcp(c) = self {
            match Side::of_dst(p) {
                Side::Server => Endpoint::on_packet(&mut c.receiver, p, io),
                Side::Client => Endpoint::on_packet(&mut c.sender, p, io),
            }
        }
    }

    /// A timer of endpoint `side` is due (the simulator has checked that it is this
    /// connection's, not its slot's previous one's).
    #[inline]
    pub fn on_timer(&mut self, side: Side, kind: TimerKind, io: &mut Io) {
        if let Conn::Tcp(c) = self {
            match side {
                Side::Client => Endpoint::on_timer(&mut c.sender, kind, io),
                Side::Server => Endpoint::on_timer(&mut c.receiver, kind, io),
            }
        }
    }

    /// The application opens the connection (the client connects).
    pub fn open(&mut self, io: &mut Io) {
        if let Conn::Tcp(c) = self {
            c.sender.connect(io)
        }
    }

    /// The client's application writes `bytes` more.
    pub fn write(&mut self, bytes: u64, io: &mut Io) {
        if let Conn::Tcp(c) = self {
            c.sender.app_write(bytes, io)
        }
    }

    /// The client's application will write nothing more.
    pub fn stop(&mut self) {
        if let Conn::Tcp(c) = self {
            c.sender.app_stop()
        }
    }

    /// Payload bytes delivered in order to the listener's application.
    #[inline]
    pub fn delivered_bytes(&self) -> u64 {
        match self {
            Conn::Tcp(c) => c.receiver.delivered_bytes,
            Conn::Free => 0,
        }
    }

    /// The TCP connection, if this is one and it is open.
    #[inline]
    pub fn tcp(&self) -> Option<&crate::tcp::TcpConn> {
        match self {
            Conn::Tcp(c) => Some(c),
            Conn::Free => None,
        }
    }

    /// The 4-tuple and configuration of an open TCP connection.
    pub fn tcp_addr(&self) -> Option<(crate::tcp::Addr, &crate::tcp::config::TcpConfig)> {
        self.tcp().map(|c| (c.sender.addr, c.sender.config()))
    }
}

/// Which connection a slot holds: its generation ([`crate::tcp::Addr::gen`]: how many
/// connections the slot held before) and its 4-tuple's hash. What is still on its way for
/// a connection that closed is ignored once another holds its slot: a timer carries the
/// whole generation, a packet its low byte, and must match the hash too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnKey {
    pub gen: u32,
    pub hash: u32,
}

impl ConnKey {
    /// The key of connection `a`.
    pub fn of(a: &crate::tcp::Addr) -> ConnKey {
        ConnKey {
            gen: a.gen,
            hash: a.hash,
        }
    }

    /// Is packet `p` this connection's?
    #[inline]
    pub fn owns(&self, p: &crate::packet::Packet) -> bool {
        p.gen == self.gen as u8 && p.hash == self.hash
    }
}
