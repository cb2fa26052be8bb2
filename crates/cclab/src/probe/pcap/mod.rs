//! libpcap output: simulated packets written as an Ethernet capture that tshark, Wireshark,
//! tcpdump and tcptrace read like one taken on a real host.
//!
//! - File format: classic libpcap, magic `0xa1b23c4d` (nanosecond timestamps), version 2.4,
//!   `LINKTYPE_ETHERNET`, little-endian. Simulated time 0 is the Unix epoch; picoseconds
//!   are truncated to nanoseconds.
//! - Ethernet: MACs `02:00:` + the 32-bit node id of the source / destination *host*
//!   (locally administered; not rewritten per hop), ethertype IPv4.
//! - IPv4: IHL 5, TOS = DSCP << 2 | ECN, total length = `Packet::size`, DF, TTL 64,
//!   addresses `10.0.0.0 + node + 1` (node 0 = 10.0.0.1). The IP ID is `Packet::ip_id`,
//!   set by the sender as Linux 6.6 does for TCP: each socket counts the packets it sends
//!   from a per-socket start (`tcp::initial_inet_id`), retransmissions included, and the
//!   SYN-ACK carries 0 (`ip_build_and_send_pkt`); so IDs grow by one per packet and
//!   direction, and the same packet has the same ID at every capture point. Packets of
//!   other kinds (ICMP, UDP, flows) carry 0, as Linux gives a DF datagram of a socket with
//!   no connected peer. Header checksum correct.
//! - TCP: ports per connection ([`ConnPorts`]): the 4-tuple the simulator gave it
//!   (`transport::PortAllocator`: client ports from Linux's ephemeral range, server 5201
//!   for bulk flows as iperf3, 80 for request/response; a connection never set gets
//!   client `10000 + conn`, server `5201`); 32-bit seq/ack = low 32 bits of the 64-bit offsets
//!   plus a fixed ISN per direction ([`CLIENT_ISN`], [`SERVER_ISN`]); flags byte as in
//!   `packet.rs` (ECE 0x40, CWR 0x80). SYN and SYN-ACK carry Linux's options in Linux's
//!   order (`tcp_options_write`): MSS; SACK-permitted + timestamps, or NOP NOP +
//!   timestamps when the connection runs without SACK (`tcp.sack = false`); NOP + window
//!   scale. The window scale is [`linux_wscale`] of the connection's `rcvbuf`, as Linux 6.6
//!   computes it; the SYN's window is unscaled (RFC 7323 §2.2), every other segment's is
//!   the advertised window `>> wscale` (at most 0xffff, Linux's `window_clamp`), so tools
//!   that saw the handshake scale it back to the simulated window (within 2^wscale − 1
//!   bytes). Other segments carry NOP NOP timestamps (RFC 7323 §3.2: every segment once
//!   negotiated) and, when SACK is on and there are blocks, NOP NOP SACK. Timestamps are
//!   microsecond ticks (32 bits) plus a fixed offset per direction ([`CLIENT_TS_OFFSET`]).
//!   The options fill exactly the bytes the simulator accounted for (`size − 40 −
//!   payload`, NOPs where an option is not sent), so tshark's segment length equals
//!   `Packet::payload`. The sim's data sender receives no data and advertises no window
//!   (`rwnd` 0); its segments carry its receive buffer ([`ConnPorts::client_rwnd`])
//!   instead, so tools flag no zero window.
//!   The checksum is correct: the payload is zeros, which add nothing to the sum.
//! - ICMP echo request (type 8) for `Ping`, echo reply (type 0) for `Pong`: id = conn
//!   (probe index), sequence = low 16 bits of `seq`; checksum correct.
//! - `Request` (a partition/aggregate query, which the simulator does not carry on the
//!   TCP byte stream): UDP from the connection's server port to its client port.
//! - Payload bytes are zeros; at most `snaplen` bytes of each frame are stored (caplen),
//!   the original length is `14 + size`.
//!
//! [`Capture`] holds the files of one run: which hosts and links are captured, and one
//! [`PcapWriter`] for each. The simulator calls [`Capture::on_tx`] when a packet starts
//! serialising on a port and [`Capture::on_rx`] when one reaches a node. A host capture
//! holds what the host sends (at the time it leaves the host's port, before any loss on
//! that link, as tcpdump on the host would see it) and what it receives (at arrival); a
//! link capture holds what leaves that link's port (including packets the link's loss
//! injection then drops; CE marks of that port's queue are visible).
//!
//! The parts: `writer.rs` builds the frames and writes the file ([`PcapWriter`]);
//! `capture.rs` holds the capture points of a run ([`Capture`]) and their counters.

mod capture;
#[cfg(test)]
mod tests;
mod writer;

pub use capture::{Capture, CaptureStats, TapAt};
pub use writer::{global_header, inet_checksum, ipv4, mac, PcapWriter};

/// pcap magic for nanosecond-resolution timestamps.
pub const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Default bytes stored per frame: every header (14 + 20 + 60 at most) fits.
pub const DEFAULT_SNAPLEN: u32 = 128;
/// Largest accepted snaplen (libpcap's maximum).
pub const MAX_SNAPLEN: u32 = 262_144;
/// Initial sequence numbers on the wire: 64-bit offset 0 (the SYN) maps to these.
pub const CLIENT_ISN: u32 = 0x1000_0000;
pub const SERVER_ISN: u32 = 0x5000_0000;
/// Timestamp clock offsets per direction (Linux draws a per-connection `tsoffset`, RFC 7323
/// §5.4), so a SYN sent at t = 0 does not carry TSval 0, which tools read as "no echo".
pub const CLIENT_TS_OFFSET: u32 = 0x0100_0000;
pub const SERVER_TS_OFFSET: u32 = 0x0300_0000;
/// Default ports: client `CLIENT_PORT_BASE + conn`, server `SERVER_PORT` (iperf3).
pub const CLIENT_PORT_BASE: u16 = 10000;
pub const SERVER_PORT: u16 = 5201;
/// Default MSS option (MTU 1500 − 40).
pub const DEFAULT_MSS: u16 = 1460;
/// Window the data sender advertises when the simulator left `rwnd` at 0 (it never
/// receives data) and its connection was not set: Linux's default maximum receive buffer
/// (`tcp_rmem[2]`), 6 MiB, the default `rcvbuf`.
pub const CLIENT_RWND: u64 = 6 << 20;

/// Linux 6.6 defaults that enter the window scale: `net.ipv4.tcp_rmem[1]` (a new
/// socket's `sk_rcvbuf`, `tcp_init_sock`), `net.core.rmem_max`, `TCP_MAX_WSCALE`, and a
/// new socket's `scaling_ratio` (`TCP_DEFAULT_SCALING_RATIO`, in 1/256 units:
/// `tcp_win_from_space` gives half the buffer until the first data segment is measured).
const TCP_RMEM_DEFAULT: u64 = 131_072;
const RMEM_MAX: u64 = 212_992;
const TCP_MAX_WSCALE: u32 = 14;
const TCP_DEFAULT_SCALING_RATIO: u64 = 128;

/// The window scale Linux 6.6 announces on a SYN or SYN-ACK (`tcp_select_initial_window`,
/// net/ipv4/tcp_output.c) for a socket of a host whose `tcp_rmem[2]` is `rcvbuf` (the
/// scenario's `rcvbuf`: the largest window the simulated receiver advertises), other
/// sysctls at their defaults, no `SO_RCVBUF`, MSS option `mss`:
///
/// ```text
/// space = tcp_full_space(sk)                       // tcp_win_from_space(tcp_rmem[1])
/// space = min(window_clamp, space)                 // no clamp set: 65535 << 14
/// if space > mss: space = rounddown(space, mss)
/// space = max(space, tcp_rmem[2], rmem_max)        // "window scaling on max possible window"
/// space = min(space, window_clamp)
/// rcv_wscale = clamp(ilog2(space) - 15, 0, TCP_MAX_WSCALE)
/// ```
///
/// So the smallest scale at which a window of `max(rcvbuf, rmem_max)` fits in 16 bits:
/// 7 for the default 6 MiB, 9 for 16 MiB, at least 2 (rmem_max = 212,992 B), at most 14.
/// Every window the simulated receiver advertises (≤ `rcvbuf`) fits after the shift.
pub fn linux_wscale(rcvbuf: u64, mss: u32) -> u8 {
    let window_clamp = 65_535u64 << TCP_MAX_WSCALE;
    // `tcp_full_space` = `tcp_win_from_space(sk_rcvbuf)` = sk_rcvbuf · scaling_ratio / 256.
    let full_space = (TCP_RMEM_DEFAULT * TCP_DEFAULT_SCALING_RATIO) >> 8;
    let mut space = full_space.min(window_clamp);
    let mss = u64::from(mss.max(1));
    if space > mss {
        space -= space % mss;
    }
    let space = space.max(rcvbuf).max(RMEM_MAX).min(window_clamp);
    (space.ilog2().saturating_sub(15)).min(TCP_MAX_WSCALE) as u8
}

const ETH_HDR: usize = 14;
const IP_HDR: usize = 20;
const REC_HDR: usize = 16;
/// Largest header stack built: Ethernet + IPv4 + TCP with 40 bytes of options.
const MAX_HDRS: usize = ETH_HDR + IP_HDR + 60;

/// Wire identity of one connection and the options its ends negotiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnPorts {
    /// Port of the initiator (the data sender of a bulk flow).
    pub client: u16,
    /// Port of the listener.
    pub server: u16,
    /// MSS option on the SYN and SYN-ACK (MTU − 40).
    pub mss: u16,
    /// Window scale both ends announce ([`linux_wscale`] of their `rcvbuf`).
    pub wscale: u8,
    /// SACK-permitted on the SYN and SYN-ACK, SACK blocks on ACKs (`tcp.sack`).
    pub sack: bool,
    /// Window on the data sender's segments (it receives no data): its `rcvbuf`.
    pub client_rwnd: u64,
    /// The transport's own number where the packet carries one: an ICMP echo's
    /// identifier, an Ouroboros flow's endpoint id − 1 (its app's number; TCP: unused).
    pub id: u32,
    /// Which connection of its slot these are. A packet of the slot's previous
    /// connection, still on its way when a workload's next flow took the slot, is written
    /// with that one's ports.
    pub key: crate::conn::ConnKey,
}

impl ConnPorts {
    /// The defaults for connection `conn`: `10000 + conn` → 5201, MSS 1460, the default
    /// `rcvbuf` (6 MiB: window scale 7), SACK on, identifier `conn`.
    pub fn default_for(conn: u32) -> ConnPorts {
        ConnPorts {
            id: conn,
            client: CLIENT_PORT_BASE.wrapping_add(conn as u16),
            server: SERVER_PORT,
            mss: DEFAULT_MSS,
            wscale: linux_wscale(CLIENT_RWND, DEFAULT_MSS.into()),
            sack: true,
            client_rwnd: CLIENT_RWND,
            key: Default::default(),
        }
    }

    /// A TCP connection between ports `client` and `server` whose ends run `cfg`.
    pub fn tcp(client: u16, server: u16, cfg: &crate::tcp::config::TcpConfig) -> ConnPorts {
        let mss = cfg.mtu.saturating_sub(crate::packet::IP_TCP_HDR);
        ConnPorts {
            id: 0,
            client,
            server,
            mss: mss.min(u16::MAX.into()) as u16,
            wscale: linux_wscale(cfg.rcvbuf, mss),
            sack: cfg.sack,
            client_rwnd: cfg.rcvbuf,
            key: Default::default(),
        }
    }

    /// TCP connection `a` whose ends run `cfg`.
    pub fn of(a: &crate::tcp::Addr, cfg: &crate::tcp::config::TcpConfig) -> ConnPorts {
        ConnPorts {
            key: crate::conn::ConnKey::of(a),
            ..ConnPorts::tcp(a.sport, a.dport, cfg)
        }
    }
}
