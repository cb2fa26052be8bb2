//! Generic receive offload on a receiving host (`[host] gro`), after Linux
//! `net/core/gro.c` (`dev_gro_receive`, `napi_gro_flush`) and `net/ipv4/tcp_offload.c`
//! (`tcp_gro_receive`): in-order TCP segments of one connection that arrive close together
//! are merged into one aggregate of up to 64 KB, which is what the host's ingress (a
//! policer, `tc ... ingress`) and TCP then see — seed 004's `mtu 100k` exists because of it.
//!
//! Rules (`tcp_gro_receive`, `inet_gro_receive`):
//! - A segment joins the aggregate held for its connection when it continues it in
//!   sequence, has the same ACK number, TOS (ECN) and flags (CWR, FIN and PSH aside),
//!   does not carry CWR itself (`flush |= flags & TCP_FLAG_CWR`: a CWR segment delivers
//!   the held aggregate and starts a new one, so the receiver sees the flag), is
//!   no longer than the aggregate's segment size, and the result, counted as Linux counts
//!   the merged skb (one header and every payload), stays below 64 KB (`skb_gro_receive`'s
//!   `GRO_LEGACY_MAX_SIZE`: 45 segments of 1448 bytes). Otherwise the held aggregate is
//!   delivered and the segment starts a new one. The aggregate's `size` stays the sum of
//!   its segments' IP lengths, as everywhere in the simulator (`Packet::segs`).
//! - A segment shorter than the segment size, or with PSH, FIN, SYN, RST or URG, ends its
//!   aggregate: the aggregate is complete with it. A packet without payload (a pure ACK)
//!   or not TCP is not merged.
//! - At most 8 aggregates are held per host (`MAX_GRO_SKBS`); a ninth flow pushes out the
//!   oldest.
//! - Nothing reaches the host before the NAPI poll that receives it: the NIC raises its
//!   interrupt `flush` after the first packet that arrived since the last poll (the
//!   interrupt moderation delay, `ethtool -c` `rx-usecs`, a parameter of the host, `[host]
//!   gro_flush`, since moderation is adaptive in most drivers and no single constant is
//!   Linux's), and the poll hands the host every packet and aggregate completed since, in
//!   arrival order (`gro_normal_one`'s list), then everything still held
//!   (`napi_gro_flush`). So pure ACKs wait for the poll as data does: a sender with GRO
//!   on takes the ACKs of one moderation interval together.
//!
//! Not modelled: GRO of other protocols, hardware LRO, `gro_flush_timeout` > 0 and the
//! budget of 64 packets per poll.

use super::packet::{PacketPool, PktId, PktKind, FIN, PSH, RST, SYN};
use super::{NodeId, PortId};
use crate::engine::SimTime;

/// `MAX_GRO_SKBS`.
const MAX_HELD: usize = 8;
/// `GRO_LEGACY_MAX_SIZE`: an aggregate (one header and its payloads) stays below it.
pub const GRO_MAX_SIZE: u32 = 65_536;

/// GRO state of one host.
#[derive(Debug, Default)]
pub struct GroHost {
    /// Aggregates held, oldest first, with the port (link) they arrived over.
    held: Vec<(PktId, PortId)>,
    /// Packets and completed aggregates waiting for the poll, in arrival order.
    ready: Vec<(PktId, PortId)>,
    /// A flush is scheduled.
    pub armed: bool,
}

/// GRO on every host of a network.
#[derive(Debug)]
pub struct Gro {
    pub flush: SimTime,
    hosts: Vec<GroHost>,
}

impl Gro {
    pub fn new(flush: SimTime, nodes: usize) -> Gro {
        Gro {
            flush,
            hosts: (0..nodes).map(|_| GroHost::default()).collect(),
        }
    }

    /// Packet `id` reached its destination host `node` over `port`: merge or hold it until
    /// the poll. Returns true when the poll must be scheduled for `node` (none is armed).
    pub fn receive(
        &mut self,
        node: NodeId,
        id: PktId,
        port: PortId,
        pool: &mut PacketPool,
    ) -> bool {
        let h = &mut self.hosts[node as usize];
        let arm = !h.armed;
        h.armed = true;
        let p = pool.get(id);
        if p.kind != PktKind::Tcp || p.payload == 0 {
            h.ready.push((id, port));
            return arm;
        }
        let ends = p.flags & (PSH | FIN | SYN | RST) != 0;
        let slot = h.held.iter().position(|&(q, _)| {
            let q = pool.get(q);
            // The same connection: its slot, and not the slot's previous connection.
            q.conn == p.conn && q.from_client == p.from_client && q.gen == p.gen && q.hash == p.hash
        });
        if let Some(i) = slot {
            let q = pool.get(h.held[i].0);
            let mss = if q.segs > 1 {
                q.gso_size as u32
            } else {
                q.payload
            };
            let joins = q.seq + q.payload as u64 == p.seq
                && q.ack == p.ack
                && q.ecn == p.ecn
                && p.flags & super::packet::CWR == 0
                && (q.flags ^ p.flags) & !(super::packet::CWR | FIN | PSH) == 0
                && p.payload <= mss
                && (p.size - p.payload) + q.payload + p.payload < GRO_MAX_SIZE;
            let held = h.held[i];
            if joins {
                let held = held.0;
                let (size, payload, flags) = (p.size, p.payload, p.flags);
                pool.free(id);
                let q = pool.get_mut(held);
                q.size += size;
                q.payload += payload;
                q.segs += 1;
                q.gso_size = mss as u16;
                q.flags |= flags & (PSH | FIN);
                if payload < mss || ends {
                    let done = h.held.remove(i);
                    h.ready.push(done);
                }
                return arm;
            }
            h.held.remove(i);
            h.ready.push(held);
        }
        if ends {
            h.ready.push((id, port));
            return arm;
        }
        if h.held.len() == MAX_HELD {
            let old = h.held.remove(0);
            h.ready.push(old);
        }
        h.held.push((id, port));
        arm
    }

    /// The NAPI poll of `node`: deliver what completed since the last poll, in arrival
    /// order, then everything still held.
    pub fn flush(&mut self, node: NodeId, out: &mut Vec<(PktId, PortId)>) {
        let h = &mut self.hosts[node as usize];
        h.armed = false;
        out.append(&mut h.ready);
        out.append(&mut h.held);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, ACK};

    fn seg(pool: &mut PacketPool, conn: u32, seq: u64, payload: u32, flags: u8) -> PktId {
        let mut p = Packet::blank();
        p.conn = conn;
        p.seq = seq;
        p.payload = payload;
        p.size = payload + 52;
        p.ack = 1;
        p.flags = flags;
        pool.alloc(p)
    }

    /// Back-to-back segments of MSS 1448 (52 header bytes) merge 45 at a time (52 + 45 ×
    /// 1448 = 65,212 < 65,536 ≤ 52 + 46 × 1448); PSH ends an aggregate with its segment; a
    /// second connection's segments are held apart; a gap in sequence completes what is
    /// held; nothing, not even a pure ACK, reaches the host before the poll, which hands
    /// over the completed aggregates in arrival order and then what is still held.
    #[test]
    fn merges_in_order_segments_up_to_64k() {
        let mut pool = PacketPool::default();
        let mut g = Gro::new(50, 1);
        let mut out = Vec::new();
        let mut armed = 0;
        for k in 0..50u64 {
            let id = seg(&mut pool, 0, 1 + k * 1448, 1448, ACK);
            armed += g.receive(0, id, 0, &mut pool) as u32;
        }
        assert_eq!(armed, 1, "one poll armed");
        // The other conn is held separately; PSH ends conn 0's second aggregate.
        let other = seg(&mut pool, 1, 1, 1448, ACK);
        assert!(!g.receive(0, other, 0, &mut pool));
        let last = seg(&mut pool, 0, 1 + 50 * 1448, 1448, ACK | PSH);
        g.receive(0, last, 0, &mut pool);
        // A gap: the held segment of conn 1 is complete, the new one held.
        let gap = seg(&mut pool, 1, 1 + 2 * 1448, 1448, ACK);
        g.receive(0, gap, 0, &mut pool);
        // A pure ACK waits for the poll too.
        let ack = seg(&mut pool, 2, 1, 0, ACK);
        assert!(!g.receive(0, ack, 0, &mut pool));
        g.flush(0, &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|&(id, _)| {
                let a = pool.get(id);
                (a.conn, a.seq, a.segs, a.payload, a.flags & PSH != 0)
            })
            .collect();
        assert_eq!(
            got,
            [
                (0, 1, 45, 45 * 1448, false),
                (0, 1 + 45 * 1448, 6, 6 * 1448, true),
                (1, 1, 1, 1448, false),
                (2, 1, 1, 0, false),
                (1, 1 + 2 * 1448, 1, 1448, false),
            ]
        );
        let first = pool.get(out[0].0);
        assert_eq!(first.size, 45 * 1500);
        // The next packet arms the next poll.
        let next = seg(&mut pool, 0, 1 + 51 * 1448, 1448, ACK);
        assert!(g.receive(0, next, 0, &mut pool));
    }

    /// A segment carrying CWR does not join the held aggregate (`tcp_gro_receive`:
    /// `flush |= flags & TCP_FLAG_CWR`): it delivers it and starts the next, which keeps
    /// the flag and takes the segments after it (their missing CWR is masked).
    #[test]
    fn a_cwr_segment_starts_a_new_aggregate_that_keeps_the_flag() {
        use crate::packet::CWR;
        let mut pool = PacketPool::default();
        let mut g = Gro::new(50, 1);
        for k in 0..3u64 {
            let flags = if k == 1 { ACK | CWR } else { ACK };
            let id = seg(&mut pool, 0, 1 + k * 1448, 1448, flags);
            g.receive(0, id, 0, &mut pool);
        }
        let mut out = Vec::new();
        g.flush(0, &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|&(id, _)| {
                let a = pool.get(id);
                (a.seq, a.segs, a.flags & CWR != 0)
            })
            .collect();
        assert_eq!(got, [(1, 1, false), (1 + 1448, 2, true)]);
    }
}
