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

use crate::engine::SimTime;
use crate::net::packet::{Packet, PktKind, ACK, FIN, MAX_SACK, RST, SYN};
use crate::net::{Network, NodeId, NodeKind, PortId};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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

/// Writes packets to a libpcap stream. Nothing is allocated per packet: each record is
/// built in one reused buffer and handed to the writer with a single `write_all`.
pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
    buf: Vec<u8>,
    conns: Vec<ConnPorts>,
    records: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header. `snaplen` must be in `1..=MAX_SNAPLEN`.
    pub fn new(mut w: W, snaplen: u32) -> io::Result<Self> {
        if snaplen == 0 || snaplen > MAX_SNAPLEN {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("pcap snaplen {snaplen} outside 1..={MAX_SNAPLEN}"),
            ));
        }
        w.write_all(&global_header(snaplen))?;
        // A frame is at most 14 + 65535 bytes: never more is buffered.
        let cap = REC_HDR + (snaplen as usize).clamp(MAX_HDRS, ETH_HDR + 65_535);
        Ok(PcapWriter {
            w,
            snaplen,
            buf: Vec::with_capacity(cap),
            conns: Vec::new(),
            records: 0,
        })
    }

    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Set the ports and MSS of connection `conn` (otherwise [`ConnPorts::default_for`]).
    pub fn set_conn(&mut self, conn: u32, ports: ConnPorts) {
        let i = conn as usize;
        if self.conns.len() <= i {
            let n = self.conns.len() as u32;
            self.conns.extend((n..=conn).map(ConnPorts::default_for));
        }
        self.conns[i] = ports;
    }

    fn conn(&self, conn: u32) -> ConnPorts {
        self.conns
            .get(conn as usize)
            .copied()
            .unwrap_or_else(|| ConnPorts::default_for(conn))
    }

    /// Append one record for packet `p` seen at time `t`.
    pub fn write(&mut self, t: SimTime, p: &Packet) -> io::Result<()> {
        let mut hdr = [0u8; MAX_HDRS];
        let (hdr_len, ip_len) = build_frame(&mut hdr, p, self.conn(p.conn));
        let wire_len = ETH_HDR + ip_len;
        let caplen = wire_len.min(self.snaplen as usize);
        let ns = t / 1_000;
        self.buf.clear();
        self.buf
            .extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend_from_slice(&(caplen as u32).to_le_bytes());
        self.buf.extend_from_slice(&(wire_len as u32).to_le_bytes());
        self.buf.extend_from_slice(&hdr[..hdr_len.min(caplen)]);
        self.buf.resize(REC_HDR + caplen, 0);
        self.w.write_all(&self.buf)?;
        self.records += 1;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Flush and return the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// The 24-byte pcap global header.
pub fn global_header(snaplen: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&PCAP_MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone 0, sigfigs 0.
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
    h
}

/// MAC address of node `n`: `02:00:` + the node id, big-endian.
pub fn mac(n: NodeId) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// IPv4 address of node `n`: `10.0.0.0 + n + 1`.
pub fn ipv4(n: NodeId) -> [u8; 4] {
    (0x0a00_0000u32.wrapping_add((n & 0x00ff_ffff) + 1)).to_be_bytes()
}

/// Sum of big-endian 16-bit words (an odd last byte is padded with zero).
fn sum16(data: &[u8]) -> u32 {
    let mut s = 0u32;
    let mut it = data.chunks_exact(2);
    for w in &mut it {
        s += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [b] = it.remainder() {
        s += (*b as u32) << 8;
    }
    s
}

/// One's-complement fold and invert: the Internet checksum of a sum from `sum16`.
fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// The Internet checksum (RFC 1071) of `data`; a header with its checksum in place
/// gives 0.
pub fn inet_checksum(data: &[u8]) -> u16 {
    fold(sum16(data))
}

/// A hash of the fields of `p` that stay the same along its path: the IP ID.
fn ip_id(p: &Packet) -> u16 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in [
        p.kind as u64,
        p.src as u64,
        p.dst as u64,
        p.conn as u64 | (p.from_client as u64) << 32,
        p.seq,
        p.ack,
        p.born,
        p.tsval,
        p.payload as u64,
    ] {
        h ^= x;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        h ^= h >> 29;
    }
    (h ^ h >> 16 ^ h >> 32 ^ h >> 48) as u16
}

/// Microsecond timestamp-option ticks.
#[inline]
fn ts_ticks(t: SimTime) -> u32 {
    (t / 1_000_000) as u32
}

/// Build Ethernet + IPv4 + transport headers of `p` into `out`. Returns (bytes of headers
/// built, IP total length).
fn build_frame(out: &mut [u8; MAX_HDRS], p: &Packet, cp: ConnPorts) -> (usize, usize) {
    // Ethernet.
    out[0..6].copy_from_slice(&mac(p.dst));
    out[6..12].copy_from_slice(&mac(p.src));
    out[12..14].copy_from_slice(&0x0800u16.to_be_bytes());

    let (src_ip, dst_ip) = (ipv4(p.src), ipv4(p.dst));
    let l4 = ETH_HDR + IP_HDR;
    let (proto, l4_len, ip_len) = match p.kind {
        PktKind::Tcp => {
            let size = (p.size as usize).clamp(IP_HDR + 20, 65_535);
            // Options take the bytes the simulator counted beyond the 40 of headers and the
            // payload, in whole words, at most 40.
            let opt = (size - 40).saturating_sub(p.payload as usize).min(40) & !3;
            let th = 20 + opt;
            tcp_header(&mut out[l4..l4 + th], p, cp, opt);
            // Checksum over the pseudo-header and the header; zero payload adds nothing.
            let seg_len = size - IP_HDR;
            let s = sum16(&src_ip) + sum16(&dst_ip) + 6 + seg_len as u32 + sum16(&out[l4..l4 + th]);
            out[l4 + 16..l4 + 18].copy_from_slice(&fold(s).to_be_bytes());
            (6u8, th, size)
        }
        PktKind::Ping | PktKind::Pong => {
            let size = (p.size as usize).clamp(IP_HDR + 8, 65_535);
            let h = &mut out[l4..l4 + 8];
            h[0] = if p.kind == PktKind::Ping { 8 } else { 0 };
            h[1] = 0;
            h[2..4].fill(0);
            h[4..6].copy_from_slice(&(p.conn as u16).to_be_bytes());
            h[6..8].copy_from_slice(&(p.seq as u16).to_be_bytes());
            let c = inet_checksum(h);
            h[2..4].copy_from_slice(&c.to_be_bytes());
            (1u8, 8, size)
        }
        PktKind::Flow => {
            // No transport header of a registered protocol: the IP payload follows.
            let size = (p.size as usize).clamp(IP_HDR, 65_535);
            (p.ip_proto(), 0, size)
        }
        PktKind::Request | PktKind::Udp => {
            let size = (p.size as usize).clamp(IP_HDR + 8, 65_535);
            let udp_len = (size - IP_HDR) as u16;
            let h = &mut out[l4..l4 + 8];
            h[0..2].copy_from_slice(&cp.server.to_be_bytes());
            h[2..4].copy_from_slice(&cp.client.to_be_bytes());
            h[4..6].copy_from_slice(&udp_len.to_be_bytes());
            h[6..8].fill(0);
            let s = sum16(&src_ip) + sum16(&dst_ip) + 17 + udp_len as u32 + sum16(h);
            let c = match fold(s) {
                0 => 0xffff,
                c => c,
            };
            h[6..8].copy_from_slice(&c.to_be_bytes());
            (17u8, 8, size)
        }
    };

    // IPv4.
    let ip = &mut out[ETH_HDR..ETH_HDR + IP_HDR];
    ip[0] = 0x45;
    ip[1] = (p.dscp & 0x3f) << 2 | (p.ecn & 0x3);
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id(p).to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF
    ip[8] = 64;
    ip[9] = proto;
    ip[10..12].fill(0);
    ip[12..16].copy_from_slice(&src_ip);
    ip[16..20].copy_from_slice(&dst_ip);
    let c = inet_checksum(ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());

    (l4 + l4_len, ip_len)
}

/// The TCP header with `opt` (a multiple of 4, ≤ 40) bytes of options; checksum zero.
fn tcp_header(h: &mut [u8], p: &Packet, cp: ConnPorts, opt: usize) {
    // (own port, peer port, own ISN, peer ISN, own TS offset, peer TS offset).
    let (sport, dport, isn, peer_isn, tso, peer_tso) = if p.from_client {
        (
            cp.client,
            cp.server,
            CLIENT_ISN,
            SERVER_ISN,
            CLIENT_TS_OFFSET,
            SERVER_TS_OFFSET,
        )
    } else {
        (
            cp.server,
            cp.client,
            SERVER_ISN,
            CLIENT_ISN,
            SERVER_TS_OFFSET,
            CLIENT_TS_OFFSET,
        )
    };
    let syn = p.flags & SYN != 0;
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..8].copy_from_slice(&(p.seq as u32).wrapping_add(isn).to_be_bytes());
    let ack = if p.flags & ACK != 0 {
        (p.ack as u32).wrapping_add(peer_isn)
    } else {
        0
    };
    h[8..12].copy_from_slice(&ack.to_be_bytes());
    h[12] = (((20 + opt) / 4) as u8) << 4;
    h[13] = p.flags;
    let rwnd = if p.rwnd == 0 && p.from_client {
        CLIENT_RWND
    } else {
        p.rwnd
    };
    // RFC 7323 §2.2: the window of a SYN is never scaled.
    let win = if syn { rwnd } else { rwnd >> WSCALE };
    h[14..16].copy_from_slice(&(win.min(0xffff) as u16).to_be_bytes());
    h[16..20].fill(0); // checksum, urgent pointer
    let o = &mut h[20..20 + opt];
    o.fill(1); // NOP padding for whatever is not used below
               // TSecr is meaningful only with ACK set (RFC 7323 §3.2); it echoes the peer's clock.
    let tsval = ts_ticks(p.tsval).wrapping_add(tso);
    let tsecr = if p.flags & ACK != 0 {
        ts_ticks(p.tsecr).wrapping_add(peer_tso)
    } else {
        0
    };
    let mut ts = [0u8; 10];
    ts[0] = 8;
    ts[1] = 10;
    ts[2..6].copy_from_slice(&tsval.to_be_bytes());
    ts[6..10].copy_from_slice(&tsecr.to_be_bytes());
    if syn {
        // Linux order: MSS | SACK-permitted, timestamps | NOP, window scale.
        let mut at = 0;
        if opt >= at + 4 {
            o[0] = 2;
            o[1] = 4;
            o[2..4].copy_from_slice(&cp.mss.to_be_bytes());
            at += 4;
        }
        if opt >= at + 12 {
            o[at] = 4;
            o[at + 1] = 2;
            o[at + 2..at + 12].copy_from_slice(&ts);
            at += 12;
        }
        if opt >= at + 4 {
            o[at + 1] = 3;
            o[at + 2] = 3;
            o[at + 3] = WSCALE;
        }
    } else if opt >= 12 {
        o[2..12].copy_from_slice(&ts);
        let n = (p.nsack as usize)
            .min(MAX_SACK)
            .min((opt - 12).saturating_sub(4) / 8);
        if n > 0 && p.flags & ACK != 0 {
            let s = &mut o[12..16 + 8 * n];
            s[2] = 5;
            s[3] = (2 + 8 * n) as u8;
            for (k, &(l, r)) in p.sack[..n].iter().enumerate() {
                let b = &mut s[4 + 8 * k..12 + 8 * k];
                b[0..4].copy_from_slice(&(l as u32).wrapping_add(peer_isn).to_be_bytes());
                b[4..8].copy_from_slice(&(r as u32).wrapping_add(peer_isn).to_be_bytes());
            }
        }
    }
}

/// Counters of one capture point, kept while writing (independent of any reader).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Frames written, and their original (wire) bytes including the Ethernet header.
    pub packets: u64,
    pub bytes: u64,
    /// TCP segments by direction: from the initiator (data sender), from the listener.
    pub tcp_from_client: u64,
    pub tcp_from_server: u64,
    /// Segments the sender marked as retransmissions (data and SYN).
    pub retrans: u64,
    /// Duplicate ACKs seen here: segments with ACK and without data, SYN, FIN or RST that
    /// repeat the ACK number and window of the previous ACK of their direction (Wireshark's
    /// `tcp.analysis.duplicate_ack` rule; RFC 5681 §2 also asks that the data sender have
    /// data outstanding, which holds for every such ACK of a bulk transfer in flight).
    pub dupacks: u64,
    /// Packets carrying ECT(0) or ECT(1), and CE.
    pub ect: u64,
    pub ce: u64,
    /// Non-SYN TCP segments with ECE, and with CWR.
    pub ece: u64,
    pub cwr: u64,
}

/// Per-direction state for the duplicate-ACK tally.
#[derive(Clone, Copy, Debug, Default)]
struct DirTally {
    last_ack: u64,
    last_win: u64,
    acked: bool,
}

/// What a capture point listens to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapAt {
    /// Everything a host sends and receives.
    Host(NodeId),
    /// Everything leaving a port onto its link.
    Port(PortId),
}

struct Point {
    name: String,
    tap: TapAt,
    path: Option<PathBuf>,
    w: PcapWriter<Box<dyn Write + Send>>,
    stats: CaptureStats,
    tally: Vec<[DirTally; 2]>,
    failed: bool,
}

impl Point {
    fn record(&mut self, t: SimTime, p: &Packet, first_error: &mut Option<String>) {
        if self.failed {
            return;
        }
        if let Err(e) = self.w.write(t, p) {
            self.failed = true;
            first_error.get_or_insert_with(|| self.describe_error(&e));
            return;
        }
        let st = &mut self.stats;
        st.packets += 1;
        st.bytes += ETH_HDR as u64 + p.size as u64;
        if p.ecn == crate::net::packet::CE {
            st.ce += 1;
        } else if p.ecn != crate::net::packet::NOT_ECT {
            st.ect += 1;
        }
        if p.kind != PktKind::Tcp {
            return;
        }
        if p.from_client {
            st.tcp_from_client += 1;
        } else {
            st.tcp_from_server += 1;
        }
        st.retrans += p.retrans as u64;
        if p.flags & SYN == 0 {
            st.ece += (p.flags & crate::net::packet::ECE != 0) as u64;
            st.cwr += (p.flags & crate::net::packet::CWR != 0) as u64;
        }
        let c = p.conn as usize;
        if self.tally.len() <= c {
            self.tally.resize(c + 1, [DirTally::default(); 2]);
        }
        let me = &mut self.tally[c][p.from_client as usize];
        if p.flags & ACK != 0 {
            if p.payload == 0
                && p.flags & (SYN | FIN | RST) == 0
                && me.acked
                && p.ack == me.last_ack
                && p.rwnd == me.last_win
            {
                st.dupacks += 1;
            }
            me.last_ack = p.ack;
            me.last_win = p.rwnd;
            me.acked = true;
        }
    }

    fn describe_error(&self, e: &io::Error) -> String {
        match &self.path {
            Some(p) => format!("pcap {}: {e}", p.display()),
            None => format!("pcap {}: {e}", self.name),
        }
    }
}

const NONE: u32 = u32::MAX;

/// The pcap files of one run. The simulator holds it as `Option<Box<Capture>>` and calls
/// [`Capture::on_tx`] / [`Capture::on_rx`] on every hop; those cost two table look-ups
/// when the packet is not captured. Write errors do not stop the run: the first one is
/// kept, the failing file is no longer written, and [`Capture::finish`] reports it.
pub struct Capture {
    points: Vec<Point>,
    /// For each node / port, the capture point that taps it.
    by_node: Vec<u32>,
    by_port: Vec<u32>,
    /// Node of each port.
    port_node: Vec<NodeId>,
    conns: Vec<(u32, ConnPorts)>,
    error: Option<String>,
}

impl Capture {
    /// A capture of `net` with no points yet.
    pub fn new(net: &Network) -> Capture {
        Capture {
            points: Vec::new(),
            by_node: vec![NONE; net.nodes.len()],
            by_port: vec![NONE; net.ports.len()],
            port_node: net.ports.iter().map(|p| p.node).collect(),
            conns: Vec::new(),
            error: None,
        }
    }

    /// Capture at `name` — a host (what it sends and receives) or a link (what leaves its
    /// port) — into `w`, storing at most `snaplen` bytes per frame.
    pub fn add(
        &mut self,
        net: &Network,
        name: &str,
        w: Box<dyn Write + Send>,
        snaplen: u32,
    ) -> Result<(), String> {
        self.add_point(net, name, w, snaplen, None)
    }

    fn add_point(
        &mut self,
        net: &Network,
        name: &str,
        w: Box<dyn Write + Send>,
        snaplen: u32,
        path: Option<PathBuf>,
    ) -> Result<(), String> {
        let tap = Self::resolve(net, name)?;
        let idx = self.points.len() as u32;
        let slot = match tap {
            TapAt::Host(n) => &mut self.by_node[n as usize],
            TapAt::Port(p) => &mut self.by_port[p as usize],
        };
        if *slot != NONE {
            return Err(format!("pcap: '{name}' is listed twice"));
        }
        let mut w = PcapWriter::new(w, snaplen).map_err(|e| match &path {
            Some(p) => format!("pcap {}: {e}", p.display()),
            None => format!("pcap {name}: {e}"),
        })?;
        for &(c, cp) in &self.conns {
            w.set_conn(c, cp);
        }
        *slot = idx;
        self.points.push(Point {
            name: name.to_string(),
            tap,
            path,
            w,
            stats: CaptureStats::default(),
            tally: Vec::new(),
            failed: false,
        });
        Ok(())
    }

    /// What `name` denotes in `net`: a host, else a link; switches are refused (capture
    /// one of their links instead).
    pub fn resolve(net: &Network, name: &str) -> Result<TapAt, String> {
        if let Some(n) = net.node_by_name(name) {
            if net.nodes[n as usize].kind == NodeKind::Host {
                return Ok(TapAt::Host(n));
            }
            return Err(format!(
                "pcap: '{name}' is a switch; capture a host or one of its links instead"
            ));
        }
        if let Some(p) = net.port_by_name(name) {
            return Ok(TapAt::Port(p));
        }
        let hosts = net
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Host)
            .map(|n| n.name.as_str());
        let links = net.ports.iter().map(|p| p.name.as_str());
        Err(format!(
            "pcap: no host or link named '{name}' (hosts: {}; links: {})",
            hosts.collect::<Vec<_>>().join(", "),
            links.collect::<Vec<_>>().join(", ")
        ))
    }

    /// One file `<dir>/<name>.pcap` per name (hosts or links), `dir` created if missing;
    /// files are buffered.
    pub fn open(
        net: &Network,
        names: &[String],
        dir: &Path,
        snaplen: u32,
    ) -> Result<Capture, String> {
        let mut c = Capture::new(net);
        if names.is_empty() {
            return Ok(c);
        }
        // Check every name before creating any file.
        for (i, name) in names.iter().enumerate() {
            Self::resolve(net, name)?;
            if names[..i].contains(name) {
                return Err(format!("pcap: '{name}' is listed twice"));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("pcap {}: {e}", dir.display()))?;
        for name in names {
            let path = dir.join(format!("{name}.pcap"));
            let f = std::fs::File::create(&path)
                .map_err(|e| format!("pcap {}: {e}", path.display()))?;
            let w = Box::new(io::BufWriter::with_capacity(1 << 16, f));
            c.add_point(net, name, w, snaplen, Some(path))?;
        }
        Ok(c)
    }

    /// Set the ports and MSS of connection `conn` in every file (present and future).
    pub fn set_conn(&mut self, conn: u32, ports: ConnPorts) {
        match self.conns.iter_mut().find(|(c, _)| *c == conn) {
            Some(e) => e.1 = ports,
            None => self.conns.push((conn, ports)),
        }
        for p in &mut self.points {
            p.w.set_conn(conn, ports);
        }
    }

    /// Is anything captured?
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Packet `p` starts serialising on `port` at `now` (before the link's loss).
    #[inline]
    pub fn on_tx(&mut self, now: SimTime, port: PortId, p: &Packet) {
        let a = self.by_port[port as usize];
        let b = self.by_node[self.port_node[port as usize] as usize];
        if a != NONE {
            self.points[a as usize].record(now, p, &mut self.error);
        }
        if b != NONE {
            self.points[b as usize].record(now, p, &mut self.error);
        }
    }

    /// Packet `p` arrives at `node` at `now`; recorded if `node` is its destination.
    #[inline]
    pub fn on_rx(&mut self, now: SimTime, node: NodeId, p: &Packet) {
        let b = self.by_node[node as usize];
        if b != NONE && p.dst == node {
            self.points[b as usize].record(now, p, &mut self.error);
        }
    }

    /// The counters of the point named `name`.
    pub fn stats(&self, name: &str) -> Option<&CaptureStats> {
        self.points
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.stats)
    }

    /// (name, tap, file, counters) of every point, in the order added.
    pub fn points(&self) -> impl Iterator<Item = (&str, TapAt, Option<&Path>, &CaptureStats)> {
        self.points
            .iter()
            .map(|p| (p.name.as_str(), p.tap, p.path.as_deref(), &p.stats))
    }

    /// Flush every file. Returns each point's name and counters, or the first write error.
    pub fn finish(self) -> Result<Vec<(String, CaptureStats)>, String> {
        let mut err = self.error;
        let mut out = Vec::with_capacity(self.points.len());
        for mut p in self.points {
            if !p.failed {
                if let Err(e) = p.w.flush() {
                    err.get_or_insert_with(|| p.describe_error(&e));
                }
            }
            out.push((p.name, p.stats));
        }
        match err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

impl crate::net::Tap for Capture {
    #[inline]
    fn on_tx(&mut self, now: SimTime, port: PortId, p: &Packet) {
        Capture::on_tx(self, now, port, p)
    }
    #[inline]
    fn on_rx(&mut self, now: SimTime, node: NodeId, p: &Packet) {
        Capture::on_rx(self, now, node, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{CE, CWR, ECE, ECT0, PSH};
    use crate::scenario::TopologySpec;

    fn tcp(from_client: bool, flags: u8, seq: u64, ack: u64, payload: u32, opt: u32) -> Packet {
        let mut p = Packet::blank();
        p.kind = PktKind::Tcp;
        (p.src, p.dst) = if from_client { (0, 1) } else { (1, 0) };
        p.conn = 3;
        p.from_client = from_client;
        p.flags = flags;
        p.seq = seq;
        p.ack = ack;
        p.payload = payload;
        p.size = 40 + opt + payload;
        p.rwnd = 1 << 20;
        p.tsval = 5 * crate::engine::MS;
        p.tsecr = 2 * crate::engine::MS;
        p
    }

    fn one(p: &Packet, snaplen: u32) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new(), snaplen).unwrap();
        w.write(1_500_000_000_123_456, p).unwrap();
        assert_eq!(w.records(), 1);
        w.into_inner().unwrap()
    }

    fn u16be(b: &[u8], at: usize) -> u16 {
        u16::from_be_bytes([b[at], b[at + 1]])
    }
    fn u32be(b: &[u8], at: usize) -> u32 {
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn u32le(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn global_header_bytes() {
        let w = PcapWriter::new(Vec::new(), DEFAULT_SNAPLEN).unwrap();
        assert_eq!(
            w.get_ref().as_slice(),
            &[
                0x4d, 0x3c, 0xb2, 0xa1, // magic, nanosecond timestamps
                2, 0, 4, 0, // version 2.4
                0, 0, 0, 0, // thiszone
                0, 0, 0, 0, // sigfigs
                128, 0, 0, 0, // snaplen
                1, 0, 0, 0, // LINKTYPE_ETHERNET
            ]
        );
        assert!(PcapWriter::new(Vec::new(), 0).is_err());
        assert!(PcapWriter::new(Vec::new(), MAX_SNAPLEN + 1).is_err());
    }

    #[test]
    fn record_header_ip_header_and_checksums() {
        let mut p = tcp(true, ACK | PSH | CWR, 1 + 1448 * 7, 1, 1448, 12);
        p.ecn = ECT0;
        p.dscp = 46;
        let b = one(&p, 65_535);
        let r = &b[24..];
        // 1500.000123456 s: seconds and nanoseconds; caplen = len = 14 + 1500.
        assert_eq!(u32le(r, 0), 1500);
        assert_eq!(u32le(r, 4), 123);
        assert_eq!(u32le(r, 8), 1514);
        assert_eq!(u32le(r, 12), 1514);
        let f = &r[16..];
        assert_eq!(f.len(), 1514);
        assert_eq!(&f[0..6], &[2, 0, 0, 0, 0, 1]);
        assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 0]);
        assert_eq!(u16be(f, 12), 0x0800);
        let ip = &f[14..34];
        assert_eq!(ip[0], 0x45);
        assert_eq!(ip[1], 46 << 2 | ECT0);
        assert_eq!(u16be(ip, 2), 1500);
        assert_eq!(u16be(ip, 6), 0x4000);
        assert_eq!((ip[8], ip[9]), (64, 6));
        assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 2]);
        // The header with its checksum sums to 0xffff (checksum 0).
        assert_ne!(u16be(ip, 10), 0);
        assert_eq!(fold(sum16(ip)), 0);
        assert_eq!(sum16(ip) % 0xffff, 0);
        // TCP: ports, 32-bit seq, data offset 8 words, flags, scaled window.
        let t = &f[34..];
        assert_eq!(u16be(t, 0), 10003);
        assert_eq!(u16be(t, 2), 5201);
        assert_eq!(u32be(t, 4), CLIENT_ISN + 1 + 1448 * 7);
        assert_eq!(u32be(t, 8), SERVER_ISN + 1);
        assert_eq!(t[12] >> 4, 8);
        assert_eq!(t[13], ACK | PSH | CWR);
        assert_eq!(u16be(t, 14), (1 << 20 >> WSCALE) as u16);
        // NOP NOP TS with microsecond ticks.
        assert_eq!(&t[20..24], &[1, 1, 8, 10]);
        assert_eq!(u32be(t, 24), 5000 + CLIENT_TS_OFFSET);
        assert_eq!(u32be(t, 28), 2000 + SERVER_TS_OFFSET);
        // TCP checksum over pseudo-header + segment verifies.
        let s = sum16(&ip[12..20]) + 6 + 1480 + sum16(t);
        assert_eq!(fold(s), 0);
        // The same packet gets the same IP ID; another one a different ID.
        let b2 = one(&p, 65_535);
        assert_eq!(u16be(&b2, 24 + 16 + 18), u16be(ip, 4));
        let q = tcp(true, ACK | PSH, 1 + 1448 * 8, 1, 1448, 12);
        assert_ne!(u16be(&one(&q, 128), 24 + 16 + 18), u16be(ip, 4));
    }

    #[test]
    fn syn_carries_mss_sackok_timestamps_and_wscale() {
        let mut p = tcp(true, SYN | ECE | CWR, 0, 0, 0, 20);
        p.rwnd = 0;
        p.tsecr = 0;
        let b = one(&p, DEFAULT_SNAPLEN);
        let t = &b[24 + 16 + 34..];
        assert_eq!(t.len(), 40);
        assert_eq!(t[12] >> 4, 10);
        assert_eq!(t[13], SYN | ECE | CWR);
        assert_eq!(u32be(t, 4), CLIENT_ISN);
        assert_eq!(u32be(t, 8), 0, "no ACK flag, no ack number");
        assert_eq!(u16be(t, 14), 0xffff, "unscaled window on a SYN");
        assert_eq!(
            &t[20..40],
            &[
                2, 4, 0x05, 0xb4, // MSS 1460
                4, 2, // SACK permitted
                8, 10, 1, 0, 0x13, 0x88, 0, 0, 0, 0, // TS 5000 + offset, 0
                1, 3, 3, 7, // NOP, window scale 7
            ]
        );
        // SYN-ACK from the listener: its own ISN, acks the client's ISN + 1.
        let mut sa = tcp(false, SYN | ACK | ECE, 0, 1, 0, 20);
        sa.rwnd = 6 << 20;
        let b = one(&sa, DEFAULT_SNAPLEN);
        let t = &b[24 + 16 + 34..];
        assert_eq!((u16be(t, 0), u16be(t, 2)), (5201, 10003));
        assert_eq!(u32be(t, 4), SERVER_ISN);
        assert_eq!(u32be(t, 8), CLIENT_ISN + 1);
        assert_eq!(u16be(t, 14), 0xffff);
        assert_eq!(&t[20..24], &[2, 4, 0x05, 0xb4]);
        assert_eq!(&t[36..40], &[1, 3, 3, 7]);
        // Its TSecr echoes the client's clock, offset included.
        assert_eq!(u32be(t, 32), 2000 + CLIENT_TS_OFFSET);
    }

    #[test]
    fn sack_blocks_map_to_32_bits_and_window_scales() {
        let mut a = tcp(false, ACK | ECE, 1, 5_000_000_001, 0, 12 + 4 + 16);
        a.ecn = CE;
        a.nsack = 2;
        a.sack[0] = (5_000_002_897, 5_000_004_345);
        a.sack[1] = (u32::MAX as u64 + 10, u32::MAX as u64 + 20);
        a.rwnd = 3 << 20;
        let b = one(&a, DEFAULT_SNAPLEN);
        let f = &b[24 + 16..];
        assert_eq!(f[15] & 3, CE);
        let t = &f[34..];
        assert_eq!(t[12] >> 4, 13);
        assert_eq!(u16be(t, 14), (3 << 20 >> 7) as u16);
        assert_eq!(
            u32be(t, 8),
            (5_000_000_001u64 as u32).wrapping_add(CLIENT_ISN)
        );
        assert_eq!(&t[32..36], &[1, 1, 5, 18]);
        assert_eq!(
            u32be(t, 36),
            (5_000_002_897u64 as u32).wrapping_add(CLIENT_ISN)
        );
        assert_eq!(
            u32be(t, 40),
            (5_000_004_345u64 as u32).wrapping_add(CLIENT_ISN)
        );
        assert_eq!(u32be(t, 44), 9u32.wrapping_add(CLIENT_ISN));
        assert_eq!(u32be(t, 48), 19u32.wrapping_add(CLIENT_ISN));
        let s = sum16(&f[26..34]) + 6 + 52 + sum16(t);
        assert_eq!(fold(s), 0);
    }

    #[test]
    fn caplen_truncates_to_snaplen_and_keeps_wire_length() {
        let p = tcp(true, ACK | PSH, 1, 1, 1448, 12);
        let b = one(&p, DEFAULT_SNAPLEN);
        assert_eq!(b.len(), 24 + 16 + 128);
        assert_eq!(u32le(&b, 24 + 8), 128);
        assert_eq!(u32le(&b, 24 + 12), 1514);
        assert!(b[24 + 16 + 66..].iter().all(|&x| x == 0), "zero payload");
        // Shorter than the snaplen: stored whole.
        let a = tcp(false, ACK, 1, 1449, 0, 12);
        let b = one(&a, DEFAULT_SNAPLEN);
        assert_eq!((u32le(&b, 32), u32le(&b, 36)), (66, 66));
        assert_eq!(b.len(), 24 + 16 + 66);
        // Shorter than the headers: cut inside them.
        let b = one(&p, 40);
        assert_eq!((u32le(&b, 32), u32le(&b, 36)), (40, 1514));
        assert_eq!(b.len(), 24 + 16 + 40);
    }

    #[test]
    fn icmp_echo_and_request_headers() {
        let mut p = Packet::blank();
        p.kind = PktKind::Ping;
        (p.src, p.dst, p.conn, p.seq, p.size) = (0, 1, 2, 70_001, 84);
        let b = one(&p, DEFAULT_SNAPLEN);
        let f = &b[24 + 16..];
        assert_eq!(f.len(), 98);
        assert_eq!(f[23], 1);
        let ic = &f[34..];
        assert_eq!((ic[0], ic[1]), (8, 0));
        assert_eq!((u16be(ic, 4), u16be(ic, 6)), (2, 70_001u64 as u16));
        assert_eq!(inet_checksum(ic), 0);
        p.kind = PktKind::Pong;
        let b = one(&p, DEFAULT_SNAPLEN);
        assert_eq!(b[24 + 16 + 34], 0);
        assert_eq!(inet_checksum(&b[24 + 16 + 34..]), 0);
        p.kind = PktKind::Request;
        p.from_client = false;
        p.size = 100;
        let b = one(&p, DEFAULT_SNAPLEN);
        let f = &b[24 + 16..];
        assert_eq!(f[23], 17);
        assert_eq!(
            (u16be(f, 34), u16be(f, 36), u16be(f, 38)),
            (5201, 10002, 80)
        );
        let s = sum16(&f[26..34]) + 17 + 80 + sum16(&f[34..]);
        assert_eq!(fold(s), 0);
    }

    #[test]
    fn capture_taps_hosts_and_links_and_tallies_dupacks() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let spec = TopologySpec::path(
            1_000_000_000,
            100_000_000,
            crate::engine::MS,
            crate::scenario::QueueSpec::DropTail {
                limit: crate::scenario::Limit::Packets(10),
            },
        );
        let net = crate::net::topology::build(&spec);
        let src = net.node_by_name("src").unwrap();
        let hop0 = net.port_by_name("hop0").unwrap();
        let hop1 = net.port_by_name("hop1").unwrap();
        let mut cap = Capture::new(&net);
        let (a, b) = (Shared::default(), Shared::default());
        cap.add(&net, "src", Box::new(a.clone()), 96).unwrap();
        cap.add(&net, "hop1", Box::new(b.clone()), 96).unwrap();
        assert!(cap.add(&net, "src", Box::new(io::sink()), 96).is_err());
        assert!(cap.add(&net, "r0", Box::new(io::sink()), 96).is_err());
        assert!(Capture::resolve(&net, "nowhere")
            .unwrap_err()
            .contains("hop0_rev"));
        let dst = net.node_by_name("dst").unwrap();
        let mut d = tcp(true, ACK | PSH, 1, 1, 1448, 12);
        (d.src, d.dst) = (src, dst);
        cap.on_tx(10, hop0, &d); // src host
        d.seq += 1448;
        cap.on_tx(20, hop0, &d);
        cap.on_tx(30, hop1, &d); // link
        cap.on_rx(40, net.ports[hop0 as usize].peer, &d); // router: not a destination
        let mut ack = tcp(false, ACK, 1, 1449, 0, 12);
        (ack.src, ack.dst) = (dst, src);
        for t in [50, 60, 70] {
            cap.on_rx(t, src, &ack);
        }
        ack.ack = 2897;
        cap.on_rx(80, src, &ack);
        let s = cap.stats("src").unwrap().clone();
        assert_eq!((s.packets, s.tcp_from_client, s.tcp_from_server), (6, 2, 4));
        assert_eq!(s.dupacks, 2);
        assert_eq!(cap.stats("hop1").unwrap().packets, 1);
        let out = cap.finish().unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(a.0.lock().unwrap().len(), 24 + 6 * 16 + 2 * 96 + 4 * 66);
        assert_eq!(b.0.lock().unwrap().len(), 24 + 16 + 96);
    }

    #[test]
    fn open_checks_every_name_before_creating_files() {
        let spec = TopologySpec::path(
            1_000_000_000,
            100_000_000,
            crate::engine::MS,
            crate::scenario::QueueSpec::DropTail {
                limit: crate::scenario::Limit::Packets(10),
            },
        );
        let net = crate::net::topology::build(&spec);
        let dir = std::env::temp_dir().join(format!("cclab-pcap-open-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for bad in [&["src", "r0"][..], &["src", "nowhere"], &["hop1", "hop1"]] {
            assert!(Capture::open(&net, &names(bad), &dir, DEFAULT_SNAPLEN).is_err());
            assert!(!dir.exists(), "{bad:?}: nothing created");
        }
        let c = Capture::open(&net, &names(&["src", "hop1"]), &dir, DEFAULT_SNAPLEN).unwrap();
        let files: Vec<_> = c.points().map(|p| p.2.unwrap().to_path_buf()).collect();
        assert_eq!(files, [dir.join("src.pcap"), dir.join("hop1.pcap")]);
        assert_eq!(c.finish().unwrap().len(), 2);
        for f in files {
            assert_eq!(std::fs::read(f).unwrap(), global_header(DEFAULT_SNAPLEN));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
