//! The simulator's connection slots: each holds one connection of any transport, both
//! of its endpoints, and hands it the packets and timers the simulator routes to it. A
//! layer above the transports (it names each kind), below the simulator.

use crate::packet::Packet;
use crate::transport::ocbr::OcbrConn;
use crate::transport::ping::Pinger;
use crate::transport::udp::UdpConn;
use crate::transport::{Endpoint, Io, Side, TimerKind};

/// One connection of any transport: both of its endpoints, boxed so the arena holds one
/// pointer per connection whatever its state (null: a free slot), and TCP's path reads the
/// transport's tag beside the connection it then uses.
///
/// A workload's flow lives only while it runs: its app creates the connection when the
/// flow arrives (`Sim::connect`), and when its last byte is acknowledged its result row
/// goes to the run's flow log (`results::FlowLog`) and its slot becomes [`Conn::FREE`],
/// for the next flow to take. So endpoint memory follows the flows active at once, not
/// the flows of the run. Other connections keep their slot from the start to the end.
///
/// The world's TCP connections take the first slots (the apps that open them come first
/// in the `apps!` registry), so that a flow's number is its slot; then the other
/// transports' (`Ping`, `Udp`, `Ocbr`, one slot per app); a workload's flows take slots as
/// they arrive.
pub struct Conn(Option<Box<Ends>>);

/// The two ends of a connection, by transport. The slot boxes it whole, so a TCP
/// connection (the largest) sits beside its tag in one allocation and the smaller
/// transports, a few per run, leave part of theirs unused.
#[allow(clippy::large_enum_variant)]
pub enum Ends {
    Tcp(crate::tcp::TcpConn),
    /// A ping's echo client (the other end is the destination host's kernel).
    Ping(Pinger),
    /// A UDP constant-bit-rate flow: iperf's sender and receiver.
    Udp(UdpConn),
    /// The ocbr tool over an Ouroboros flow: its client and server.
    Ocbr(OcbrConn),
}

impl Conn {
    /// A slot whose connection closed, free for the next one.
    pub const FREE: Conn = Conn(None);

    /// A slot holding the connection `e`.
    pub fn new(e: Ends) -> Conn {
        Conn(Some(Box::new(e)))
    }

    /// The connection's ends (`None`: a free slot).
    #[inline]
    pub fn ends(&self) -> Option<&Ends> {
        self.0.as_deref()
    }

    /// The connection's ends, to change (`None`: a free slot).
    #[inline]
    pub fn ends_mut(&mut self) -> Option<&mut Ends> {
        self.0.as_deref_mut()
    }

    /// Hand packet `p` to the endpoint it is addressed to (the simulator has checked
    /// that it is this connection's, not a straggler of its slot's previous one:
    /// `conn::ConnKey`).
    #[inline]
    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        if let Some(Ends::Tcp(c)) = self.ends_mut() {
            match Side::of_dst(p) {
                Side::Server => Endpoint::on_packet(&mut c.receiver, p, io),
                Side::Client => Endpoint::on_packet(&mut c.sender, p, io),
            }
        } else {
            self.other_on_packet(p, io)
        }
    }

    /// A timer of endpoint `side` is due (the simulator has checked that it is this
    /// connection's, not its slot's previous one's).
    #[inline]
    pub fn on_timer(&mut self, side: Side, kind: TimerKind, io: &mut Io) {
        if let Some(Ends::Tcp(c)) = self.ends_mut() {
            match side {
                Side::Client => Endpoint::on_timer(&mut c.sender, kind, io),
                Side::Server => Endpoint::on_timer(&mut c.receiver, kind, io),
            }
        } else {
            self.other_on_timer(side, kind, io)
        }
    }

    /// [`Conn::on_packet`] for the transports other than TCP (out of TCP's path). A ping's
    /// server is its destination host, not an endpoint: nothing reaches it here.
    #[cold]
    #[inline(never)]
    fn other_on_packet(&mut self, p: &Packet, io: &mut Io) {
        match (self.ends_mut(), Side::of_dst(p)) {
            (Some(Ends::Ping(c)), Side::Client) => c.on_packet(p, io),
            (Some(Ends::Udp(c)), Side::Client) => c.sender.on_packet(p, io),
            (Some(Ends::Udp(c)), Side::Server) => c.receiver.on_packet(p, io),
            (Some(Ends::Ocbr(c)), Side::Client) => c.client.on_packet(p, io),
            (Some(Ends::Ocbr(c)), Side::Server) => c.server.on_packet(p, io),
            _ => {}
        }
    }

    /// [`Conn::on_timer`] for the transports other than TCP (out of TCP's path).
    #[cold]
    #[inline(never)]
    fn other_on_timer(&mut self, side: Side, kind: TimerKind, io: &mut Io) {
        match (self.ends_mut(), side) {
            (Some(Ends::Ping(c)), Side::Client) => c.on_timer(kind, io),
            (Some(Ends::Udp(c)), Side::Client) => c.sender.on_timer(kind, io),
            (Some(Ends::Udp(c)), Side::Server) => c.receiver.on_timer(kind, io),
            (Some(Ends::Ocbr(c)), Side::Client) => c.client.on_timer(kind, io),
            (Some(Ends::Ocbr(c)), Side::Server) => c.server.on_timer(kind, io),
            _ => {}
        }
    }

    /// The application opens the connection (the client connects; the other transports
    /// arm their ends' first timers).
    pub fn open(&mut self, io: &mut Io) {
        match self.ends_mut() {
            Some(Ends::Tcp(c)) => c.sender.connect(io),
            Some(Ends::Ping(c)) => c.open(io),
            Some(Ends::Udp(c)) => c.open(io),
            Some(Ends::Ocbr(c)) => c.client.open(io),
            None => {}
        }
    }

    /// The client's application writes `bytes` more.
    pub fn write(&mut self, bytes: u64, io: &mut Io) {
        if let Some(Ends::Tcp(c)) = self.ends_mut() {
            c.sender.app_write(bytes, io)
        }
    }

    /// The client's application will write nothing more.
    pub fn stop(&mut self) {
        if let Some(Ends::Tcp(c)) = self.ends_mut() {
            c.sender.app_stop()
        }
    }

    /// Payload bytes delivered in order to the listener's application.
    #[inline]
    pub fn delivered_bytes(&self) -> u64 {
        match self.ends() {
            Some(Ends::Tcp(c)) => c.receiver.delivered_bytes,
            _ => 0,
        }
    }

    /// The TCP connection, if this is one and it is open.
    #[inline]
    pub fn tcp(&self) -> Option<&crate::tcp::TcpConn> {
        match self.ends() {
            Some(Ends::Tcp(c)) => Some(c),
            _ => None,
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
