//! Packets: small plain structs kept in a slab (`PacketPool`) and moved by id, so the hot
//! path never allocates. Sequence numbers are 64-bit byte offsets (no wrap-around); the
//! pcap writer maps them to 32-bit wire values.

use crate::engine::SimTime;

/// Index of a packet in the pool.
pub type PktId = u32;

/// ECN codepoints (RFC 3168 §5).
pub const NOT_ECT: u8 = 0b00;
pub const ECT1: u8 = 0b01;
pub const ECT0: u8 = 0b10;
pub const CE: u8 = 0b11;

/// TCP flags.
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;
pub const ECE: u8 = 0x40;
/// AE, the Accurate ECN bit (RFC 9768 §3.2.2; bit 7 of the TCP header's byte 12, the
/// former NS bit). cclab sends no urgent data, so URG's place in `flags` (0x20) holds it;
/// the pcap writer puts it where it belongs.
pub const AE: u8 = 0x20;
pub const CWR: u8 = 0x80;

/// Bytes of IPv4 + TCP headers without options.
pub const IP_TCP_HDR: u32 = 40;
/// Bytes of the TCP timestamps option as Linux sends it (NOP, NOP, TS).
pub const TS_OPT: u32 = 12;
/// Bytes of a SACK option with n blocks (2 NOPs + kind/len + 8 per block).
#[inline]
pub fn sack_opt_len(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        4 + 8 * n as u32
    }
}

/// The protocol of a packet, and for ICMP and application messages, what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    /// A TCP segment (data and/or control).
    Tcp,
    /// A UDP datagram.
    Udp,
    /// An Ouroboros flow packet (seed 002): unreliable, unordered, no ACKs; its congestion
    /// signal is the one-octet `cong` field.
    Flow,
    /// ICMP echo request.
    Ping,
    /// ICMP echo reply.
    Pong,
    /// A partition/aggregate query from the aggregator to one worker (`conn` names the
    /// worker's connection).
    Request,
}

/// At most this many SACK blocks on an ACK (3 with timestamps, as Linux).
pub const MAX_SACK: usize = 3;

/// Fields in declaration order (`repr(C)`): what the network reads at every hop (route,
/// queue, transmitter) comes first, within the first 48 bytes, so a hop touches one or two
/// of the packet's cache lines; TCP's header fields follow.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Packet {
    /// Earliest departure time (Linux `skb->tstamp` under EDT pacing): the host's egress
    /// stage does not send the packet before it; 0 = as soon as possible.
    pub edt: SimTime,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    /// IP packet length in bytes (headers + payload); what queues count.
    pub size: u32,
    /// ECMP hash of the 5-tuple, fixed per connection.
    pub hash: u32,
    /// The connection slot (any transport: TCP, a ping, a UDP or an Ouroboros flow); with
    /// `from_client`, identifies the endpoint it goes to.
    pub conn: u32,
    /// TCP payload bytes.
    pub payload: u32,
    /// Segments this packet carries: 1 for a packet, n > 1 for a segmentation-offload
    /// aggregate (a GSO/TSO skb leaving TCP, or what GRO built on a receiving host) of n
    /// TCP segments of `gso_size` payload bytes each, the last one possibly shorter. An
    /// aggregate's `size` is the sum of its segments' IP lengths, as Linux's qdiscs see a
    /// GSO skb (`qdisc_pkt_len_init` adds the headers of segments 2..n).
    pub segs: u16,
    /// Payload bytes per segment of an aggregate (the MSS it was built with); 0 otherwise.
    pub gso_size: u16,
    /// IPv4 Identification, set by the sending endpoint (a TCP socket's `inet_id`
    /// counter, `tcp::Addr`); read only by the pcap writer. 0 for other packets.
    pub ip_id: u16,
    pub kind: PktKind,
    /// True when sent by the connection's initiator (the data sender of a bulk flow).
    pub from_client: bool,
    /// TCP small queues: the sending socket counts this packet's bytes until its host's
    /// NIC has sent it (or dropped it).
    pub tsq: bool,
    /// IP ECN codepoint (2 bits).
    pub ecn: u8,
    pub dscp: u8,
    /// One-octet congestion value of flow packets (multi-bit ECN, seed 002), OR-ed in by
    /// the queues on the path; 0 for other packets.
    pub cong: u8,
    /// The low byte of the sending connection's generation (`tcp::Addr::gen`): a workload
    /// reuses a closed connection's slot, and what was still on its way for the old
    /// connection is told apart from the new one's packets by this and `hash`.
    pub gen: u8,
    pub flags: u8,
    pub nsack: u8,
    /// Is this a retransmission (for counters and pcap checks)?
    pub retrans: bool,
    pub seq: u64,
    pub ack: u64,
    /// Advertised receive window in bytes.
    pub rwnd: u64,
    /// Timestamps option (RFC 7323): sender's clock, echoed value.
    pub tsval: SimTime,
    pub tsecr: SimTime,
    /// Time the packet was created (probe latency).
    pub born: SimTime,
    pub sack: [(u64, u64); MAX_SACK],
}

impl Packet {
    pub fn blank() -> Packet {
        Packet {
            kind: PktKind::Tcp,
            src: 0,
            dst: 0,
            conn: 0,
            from_client: true,
            size: 0,
            payload: 0,
            segs: 1,
            gso_size: 0,
            tsq: false,
            seq: 0,
            ack: 0,
            flags: 0,
            ecn: NOT_ECT,
            cong: 0,
            dscp: 0,
            rwnd: 0,
            tsval: 0,
            tsecr: 0,
            nsack: 0,
            sack: [(0, 0); MAX_SACK],
            hash: 0,
            edt: 0,
            born: 0,
            retrans: false,
            ip_id: 0,
            gen: 0,
        }
    }

    #[inline]
    pub fn is_ect(&self) -> bool {
        self.ecn != NOT_ECT
    }

    /// The IP protocol number (TCP 6, UDP 17, ICMP 1; flow packets use 253, RFC 3692's
    /// number for experiments; an application request travels as a UDP datagram).
    pub fn ip_proto(&self) -> u8 {
        match self.kind {
            PktKind::Tcp => 6,
            PktKind::Udp | PktKind::Request => 17,
            PktKind::Flow => 253,
            PktKind::Ping | PktKind::Pong => 1,
        }
    }
}

/// Cut the segmentation-offload aggregate `id` into its segments, in sequence order: `id`
/// becomes the first segment and the ids of the others are appended to `out`. Each segment
/// carries its own IP/TCP header (the aggregate's per-segment header bytes), `gso_size`
/// payload bytes (the last one the rest), an IP ID one higher than the one before (what a
/// TSO NIC or `tcp_gso_segment` writes), CWR only on the first and FIN/PSH only on the last
/// (`tcp_gso_segment`). A packet with one segment is left as it is.
pub fn split_gso(pool: &mut PacketPool, id: PktId, out: &mut Vec<PktId>) {
    let p = pool.get(id);
    let n = p.segs as u32;
    if n <= 1 {
        return;
    }
    let hdr = (p.size - p.payload) / n;
    let g = p.gso_size as u32;
    debug_assert!(g > 0 && p.payload > (n - 1) * g && p.payload <= n * g);
    let first = p.clone();
    for k in 1..n {
        let mut s = first.clone();
        let len = if k == n - 1 {
            first.payload - (n - 1) * g
        } else {
            g
        };
        s.seq = first.seq + (k * g) as u64;
        s.payload = len;
        s.size = hdr + len;
        s.segs = 1;
        s.gso_size = 0;
        s.ip_id = first.ip_id.wrapping_add(k as u16);
        s.flags &= !CWR;
        if k != n - 1 {
            s.flags &= !(FIN | PSH);
        }
        out.push(pool.alloc(s));
    }
    let p = pool.get_mut(id);
    p.payload = g;
    p.size = hdr + g;
    p.segs = 1;
    p.gso_size = 0;
    p.flags &= !(FIN | PSH);
}

/// A slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
}

impl PacketPool {
    /// Store `p` and return its id (reusing a freed slot when there is one).
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.alloc_copy(&p)
    }

    /// Store a copy of `p` (one copy, straight into the slot) and return its id.
    #[inline]
    pub fn alloc_copy(&mut self, p: &Packet) -> PktId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize].clone_from(p);
            id
        } else {
            self.slots.push(p.clone());
            (self.slots.len() - 1) as PktId
        }
    }

    #[inline]
    pub fn free(&mut self, id: PktId) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }

    /// Start loading packet `id`'s first cache line. No bounds check: a prefetch of an
    /// address outside the pool does nothing.
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        crate::engine::prefetch(self.slots.as_ptr().wrapping_add(id as usize));
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3-segment aggregate of MSS 1448 with 52 header bytes per segment (IP+TCP 40,
    /// timestamps 12) and 3,000 payload bytes: segments of 1448, 1448 and 104 bytes at
    /// seq 1000, 2448, 3896; IP IDs 7, 8, 9; CWR on the first only, PSH on the last only.
    #[test]
    fn split_gso_cuts_an_aggregate_as_tcp_gso_segment() {
        let mut pool = PacketPool::default();
        let mut p = Packet::blank();
        p.seq = 1000;
        p.payload = 3000;
        p.size = 3000 + 3 * 52;
        p.segs = 3;
        p.gso_size = 1448;
        p.ip_id = 7;
        p.flags = ACK | PSH | CWR;
        let id = pool.alloc(p);
        let mut rest = Vec::new();
        split_gso(&mut pool, id, &mut rest);
        assert_eq!(rest.len(), 2);
        let all: Vec<&Packet> = [id, rest[0], rest[1]]
            .iter()
            .map(|&i| pool.get(i))
            .collect();
        let got: Vec<(u64, u32, u32, u16, u8, u16)> = all
            .iter()
            .map(|p| (p.seq, p.payload, p.size, p.ip_id, p.flags, p.segs))
            .collect();
        assert_eq!(
            got,
            vec![
                (1000, 1448, 1500, 7, ACK | CWR, 1),
                (2448, 1448, 1500, 8, ACK, 1),
                (3896, 104, 156, 9, ACK | PSH, 1),
            ]
        );
        // A packet of one segment is left alone.
        let mut one = Vec::new();
        split_gso(&mut pool, id, &mut one);
        assert!(one.is_empty());
    }
}

/// A packet stays within 144 bytes, its size before the segmentation fields were added
/// (they fit in padding): the pool is the hot path's working set, so growth should be a
/// decision, not an accident.
#[cfg(test)]
#[test]
fn packet_size_is_bounded() {
    assert!(
        std::mem::size_of::<Packet>() <= 144,
        "{}",
        std::mem::size_of::<Packet>()
    );
}
