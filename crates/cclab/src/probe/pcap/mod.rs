//! libpcap output: simulated packets written as an Ethernet capture that tshark, Wireshark,
//! tcpdump and tcptrace read like one taken on a real host.
//!
//! - File format: classic libpcap, magic `0xa1b23c4d` (nanosecond timestamps), version 2.4,
//!   `LINKTYPE_ETHERNET`, little-endian. Simulated time 0 is the Unix epoch; picoseconds
//!   are truncated to nanoseconds.
//! - Ethernet: MACs `02:00:` + the 32-bit node id of the source / destination *host*
//!   (locally administered; not rewritten per hop), ethertype IPv4.
//! - IPv4: IHL 5, TOS = DSCP << 2 | ECN, total length = `Packet::size`, DF, TTL 64,
//!   addresses `10.0.0.0 + node + 1` (node 0 = 10.0.0.1). The IP ID is a hash of fields
//!   that do not change along the path (kind, endpoints, conn, seq, ack, creation time), so
//!   the same packet has the same ID at every capture point and captures can be matched.
//!   Header checksum correct.
//! - TCP: ports per connection ([`ConnPorts`]): the 4-tuple the simulator gave it
//!   (`transport::PortAllocator`: client ports from Linux's ephemeral range, server 5201
//!   for bulk flows as iperf3, 80 for request/response; a connection never set gets
//!   client `10000 + conn`, server `5201`); 32-bit seq/ack = low 32 bits of the 64-bit offsets
//!   plus a fixed ISN per direction ([`CLIENT_ISN`], [`SERVER_ISN`]); flags byte as in
//!   `packet.rs` (ECE 0x40, CWR 0x80). SYN and SYN-ACK carry Linux's options (MSS,
//!   SACK-permitted, timestamps, NOP + window scale [`WSCALE`] = 7) and an unscaled window;
//!   other segments carry NOP NOP timestamps and, with SACK blocks, NOP NOP SACK, and a
//!   window of `rwnd >> 7`, so tools that saw the handshake scale it back. Timestamps are
//!   microsecond ticks (32 bits) plus a fixed offset per direction ([`CLIENT_TS_OFFSET`]). The options fill exactly the bytes the simulator
//!   accounted for (`size − 40 − payload`), so tshark's segment length equals
//!   `Packet::payload`. The sim's data sender receives no data and advertises no window
//!   (`rwnd` 0); its segments carry [`CLIENT_RWND`] instead, so tools flag no zero window.
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
/// Window scale announced on SYN and SYN-ACK.
pub const WSCALE: u8 = 7;
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
/// receives data): Linux's default maximum receive buffer, 6 MiB.
pub const CLIENT_RWND: u64 = 6 << 20;

const ETH_HDR: usize = 14;
const IP_HDR: usize = 20;
const REC_HDR: usize = 16;
/// Largest header stack built: Ethernet + IPv4 + TCP with 40 bytes of options.
const MAX_HDRS: usize = ETH_HDR + IP_HDR + 60;

/// Wire identity of one connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnPorts {
    /// Port of the initiator (the data sender of a bulk flow).
    pub client: u16,
    /// Port of the listener.
    pub server: u16,
    /// MSS option on the SYN and SYN-ACK (MTU − 40).
    pub mss: u16,
}

impl ConnPorts {
    /// The defaults for connection `conn`: `10000 + conn` → 5201, MSS 1460.
    pub fn default_for(conn: u32) -> ConnPorts {
        ConnPorts {
            client: CLIENT_PORT_BASE.wrapping_add(conn as u16),
            server: SERVER_PORT,
            mss: DEFAULT_MSS,
        }
    }
}
