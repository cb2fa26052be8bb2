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

#[derive(Clone, Debug)]
pub struct Packet {
    pub kind: PktKind,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    /// Connection (or probe) index; with `from_client`, identifies the endpoint.
    pub conn: u32,
    /// True when sent by the connection's initiator (the data sender of a bulk flow).
    pub from_client: bool,
    /// IP packet length in bytes (headers + payload); what queues count.
    pub size: u32,
    /// TCP payload bytes.
    pub payload: u32,
    pub seq: u64,
    pub ack: u64,
    pub flags: u8,
    /// IP ECN codepoint (2 bits).
    pub ecn: u8,
    /// One-octet congestion value of flow packets (multi-bit ECN, seed 002), OR-ed in by
    /// the queues on the path; 0 for other packets.
    pub cong: u8,
    pub dscp: u8,
    /// Advertised receive window in bytes.
    pub rwnd: u64,
    /// Timestamps option (RFC 7323): sender's clock, echoed value.
    pub tsval: SimTime,
    pub tsecr: SimTime,
    pub nsack: u8,
    pub sack: [(u64, u64); MAX_SACK],
    /// ECMP hash of the 5-tuple, fixed per connection.
    pub hash: u32,
    /// Earliest departure time (Linux `skb->tstamp` under EDT pacing): the host's egress
    /// stage does not send the packet before it; 0 = as soon as possible.
    pub edt: SimTime,
    /// Time the packet was created (probe latency).
    pub born: SimTime,
    /// Is this a retransmission (for counters and pcap checks)?
    pub retrans: bool,
    /// IPv4 Identification, set by the sending endpoint (a TCP socket's `inet_id`
    /// counter, `tcp::Addr`); read only by the pcap writer. 0 for other packets.
    pub ip_id: u16,
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
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
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

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
