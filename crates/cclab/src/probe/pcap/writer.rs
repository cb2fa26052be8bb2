//! The libpcap writer and the frames it writes (part of `probe::pcap`; the format is
//! described in `mod.rs`): the classic libpcap global and record headers (nanosecond
//! magic, `LINKTYPE_ETHERNET`), and each packet rebuilt as Ethernet + IPv4 + TCP / ICMP
//! echo / UDP headers with correct Internet checksums (RFC 1071), or an Ouroboros flow
//! packet as the prototype's Ethernet IPCP frames it (ethertype 0xA000, `flow_frame`). TCP segments carry
//! Linux's SYN options in Linux's order (MSS, SACK-permitted when the connection has SACK,
//! timestamps, window scale as Linux computes it), RFC 7323 timestamps and a window scaled
//! as RFC 7323 §2.2 asks; the IP ID is the one the sending socket gave the packet.

use super::{
    ConnPorts, CLIENT_ISN, CLIENT_TS_OFFSET, ETH_HDR, IP_HDR, LINKTYPE_ETHERNET, MAX_HDRS,
    MAX_SNAPLEN, PCAP_MAGIC_NS, REC_HDR, SERVER_ISN, SERVER_TS_OFFSET,
};
use crate::engine::SimTime;
use crate::net::NodeId;
use crate::packet::{Packet, PktKind, ACK, AE, MAX_SACK, SYN};
use std::io::{self, Write};

/// Writes packets to a libpcap stream. Nothing is allocated per packet: each record is
/// built in one reused buffer and handed to the writer with a single `write_all`.
pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
    buf: Vec<u8>,
    conns: Vec<ConnPorts>,
    /// (slot, ports) of connections whose slot another took since, newest last: their
    /// stragglers are still written with their own ports (the most recent ones kept).
    replaced: std::collections::VecDeque<(u32, ConnPorts)>,
    records: u64,
}

/// Connections replaced in their slot whose ports a writer remembers.
const REPLACED_KEPT: usize = 4096;

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
            replaced: Default::default(),
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
        let old = std::mem::replace(&mut self.conns[i], ports);
        if old.key.hash != 0 && old.key != ports.key {
            if self.replaced.len() == REPLACED_KEPT {
                self.replaced.pop_front();
            }
            self.replaced.push_back((conn, old));
        }
    }

    /// The ports of packet `p`'s connection: its slot's, or those of the slot's previous
    /// connection it belongs to.
    fn conn(&self, p: &Packet) -> ConnPorts {
        let Some(&c) = self.conns.get(p.conn as usize) else {
            return ConnPorts::default_for(p.conn);
        };
        if c.key.owns(p) || self.replaced.is_empty() {
            return c;
        }
        self.replaced
            .iter()
            .rev()
            .find(|(slot, r)| *slot == p.conn && r.key.owns(p))
            .map_or(c, |&(_, r)| r)
    }

    /// Append one record for packet `p` seen at time `t`.
    pub fn write(&mut self, t: SimTime, p: &Packet) -> io::Result<()> {
        let mut hdr = [0u8; MAX_HDRS];
        let (hdr_len, ip_len) = build_frame(&mut hdr, p, self.conn(p));
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
pub(super) fn sum16(data: &[u8]) -> u32 {
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
pub(super) fn fold(mut s: u32) -> u16 {
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
    if p.kind == PktKind::Flow {
        return flow_frame(out, p, cp);
    }
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
            h[4..6].copy_from_slice(&(cp.id as u16).to_be_bytes());
            h[6..8].copy_from_slice(&(p.seq as u16).to_be_bytes());
            let c = inet_checksum(h);
            h[2..4].copy_from_slice(&c.to_be_bytes());
            (1u8, 8, size)
        }
        PktKind::Flow => unreachable!("flow packets are built by flow_frame"),
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
    ip[4..6].copy_from_slice(&p.ip_id.to_be_bytes());
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

/// The Ouroboros ethertype of the prototype's Ethernet DIX IPCP (irm's
/// `DEFAULT_ETHERTYPE`).
pub const OUROBOROS_ETHERTYPE: u16 = 0xA000;

/// An Ouroboros flow packet as the prototype's Ethernet DIX IPCP sends it (0.18.0,
/// `src/ipcpd/eth/eth.c`, `src/ipcpd/unicast/dt.c`, `fa.c`), all fields big-endian:
///
/// | bytes | field |
/// |---|---|
/// | 0–11 | destination and source MAC |
/// | 12–13 | ethertype 0xA000 |
/// | 14–15 | Ethernet IPCP endpoint id (here the flow's app number + 1) |
/// | 16–17 | length of what follows (PCI + SDU) |
/// | 18–21 | data-transfer PCI: destination address (here host number + 1) |
/// | 22 | QoS cube (0, best effort) |
/// | 23 | TTL (60, irm's default; hops are not counted) |
/// | 24 | ECN: the one-octet congestion value |
/// | 25–32 | endpoint id (the flow's app number + 1; 0 = the flow allocator) |
/// | 33– | SDU (zeros), or for a FLOW_UPDATE the 56-byte `fa_msg`: s_addr (8), r_eid (8), s_eid (8), code 2 (1), response (1), ECE (2), QoS fields (zeros) |
///
/// Wireshark shows it as Ethernet with an unknown ethertype and the bytes above (a
/// dissector is future work). Returns (bytes built, frame length after the MAC header).
fn flow_frame(out: &mut [u8; MAX_HDRS], p: &Packet, cp: ConnPorts) -> (usize, usize) {
    use crate::flow::endpoint::FLOW_UPDATE;
    out[12..14].copy_from_slice(&OUROBOROS_ETHERTYPE.to_be_bytes());
    let flow_id = cp.id as u64 + 1;
    out[14..16].copy_from_slice(&(flow_id as u16).to_be_bytes());
    let after_mac = (p.size as usize).clamp(4 + 15, 65_535);
    out[16..18].copy_from_slice(&((after_mac - 4) as u16).to_be_bytes());
    out[18..22].copy_from_slice(&(p.dst + 1).to_be_bytes());
    out[22] = 0;
    out[23] = 60;
    out[24] = p.cong;
    let update = p.flags & FLOW_UPDATE != 0;
    let eid = if update { 0 } else { flow_id };
    out[25..33].copy_from_slice(&eid.to_be_bytes());
    let mut n = 33;
    if update {
        let m = &mut out[33..33 + 56];
        m.fill(0);
        m[0..8].copy_from_slice(&(p.src as u64 + 1).to_be_bytes());
        m[8..16].copy_from_slice(&flow_id.to_be_bytes());
        m[16..24].copy_from_slice(&flow_id.to_be_bytes());
        m[24] = 2; // FLOW_UPDATE
        m[26..28].copy_from_slice(&(p.ack as u16).to_be_bytes());
        n += 56;
    }
    (n.min(ETH_HDR + after_mac), after_mac)
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
    h[12] = (((20 + opt) / 4) as u8) << 4 | (p.flags & AE != 0) as u8;
    h[13] = p.flags & !AE;
    let rwnd = if p.rwnd == 0 && p.from_client {
        cp.client_rwnd
    } else {
        p.rwnd
    };
    // RFC 7323 §2.2: the window of a SYN is never scaled. Above 0xffff << wscale (only
    // for `rcvbuf` ≥ 1 GiB, wscale 14) the field saturates, as Linux's `window_clamp`.
    let win = if syn { rwnd } else { rwnd >> cp.wscale };
    h[14..16].copy_from_slice(&(win.min(0xffff) as u16).to_be_bytes());
    h[16..20].fill(0); // checksum, urgent pointer
    let o = &mut h[20..20 + opt];
    // NOP padding for whatever is not used below.
    o.fill(1);
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
        // Linux `tcp_options_write` order: MSS | SACK-permitted, timestamps (NOP, NOP,
        // timestamps without SACK) | NOP, window scale. 20 bytes either way.
        let mut at = 0;
        if opt >= at + 4 {
            o[0] = 2;
            o[1] = 4;
            o[2..4].copy_from_slice(&cp.mss.to_be_bytes());
            at += 4;
        }
        if opt >= at + 12 {
            if cp.sack {
                o[at] = 4;
                o[at + 1] = 2;
            }
            o[at + 2..at + 12].copy_from_slice(&ts);
            at += 12;
        }
        if opt >= at + 4 {
            o[at + 1] = 3;
            o[at + 2] = 3;
            o[at + 3] = cp.wscale;
        }
    } else if opt >= 12 {
        o[2..12].copy_from_slice(&ts);
        let n = (p.nsack as usize)
            .min(MAX_SACK)
            .min((opt - 12).saturating_sub(4) / 8);
        if n > 0 && cp.sack && p.flags & ACK != 0 {
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
