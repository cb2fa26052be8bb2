//! The cost of SACK processing at a sending host (`[host] sack_walk_cost`): ACKs wait in a
//! finite input queue and each takes CPU time proportional to the write-queue entries its
//! SACK blocks make the sender walk, as Linux 2.6.6's `tcp_sacktag_write_queue`
//! (`net/ipv4/tcp_input.c`) walked them: for every SACK block, from the head of the
//! retransmit queue (`sk_stream_for_retrans_queue`, `prior_snd_una`) until the first
//! segment at or above the block's right edge ("The retransmission queue is always in
//! order, so we can short-circuit the walk early"). Seed 003 slide 33: "SACK processing is
//! inefficient for large bandwidth-delay products: the sender's write queue (a linked
//! list) is walked for each SACK block … processing so long the input queue becomes full;
//! get timeouts".
//!
//! Later kernels made the walk cheap: a per-socket hint (`fastpath_skb_hint`, Linux
//! 2.6.16, so a block continues where the last one stopped), the rewrite of SACK tagging
//! around the cached blocks (`[TCP]: Rewrite SACK block processing & sack_recv_cache use`,
//! Ilpo Järvinen, 2.6.24) and the retransmit queue as an rb-tree (commit 75c119afe14f,
//! "tcp: implement rb-tree based retransmit queue", Eric Dumazet, Linux 4.15). The model is
//! 2.6.6's walks: the SACK tagging above, and marking lost (slide 33's "to mark lost
//! packets"): with FACK, on by default, `tcp_update_scoreboard` calls `tcp_mark_head_lost`,
//! which walks from the head up to `fackets_out − reordering` on every ACK in recovery,
//! i.e. up to the highest SACKed segment. The retransmit walk
//! (`tcp_xmit_retransmit_queue`) is not counted: it returns at the first segment once the
//! window is full, as it is in recovery; so the model's cost is a lower bound.
//!
//! The cost per entry walked is the source's: commit 75c119afe14f gives "40 ns per cache
//! line miss" (one skb per miss) for a "full scan" of ~100,000 skbs taking 4 ms, on the
//! hosts of 2017; a 2004 host (2.2 GHz Xeon, a memory latency of about 100 ns and more)
//! was no faster, so 40 ns is optimistic for the seed's hosts.
//!
//! The queue: Linux 2.6's `netdev_max_backlog` (`net/core/dev.c`: `int
//! netdev_max_backlog = 300;`, the per-CPU input queue of `netif_rx`), an ACK that finds
//! it full is dropped. One CPU per host serves it in arrival order; an ACK is handed to its
//! socket when its processing ends. The walk's start, the sender's `snd_una` before the
//! ACK, is the highest cumulative ACK handed over before it on its connection (the queue
//! is FIFO, so it is exactly the socket's). Entries are one segment each (no TSO, as the
//! seed's 2.6.6 senders with SACK in use), of the flows' MSS.
//!
//! Only pure ACKs (TCP, no payload) pass the model; data and other packets are handed
//! over at once, and an ingress policer on the same link is not combined with it.
//! Off (`sack_walk_cost = 0s`, the default) it is not built and costs one branch per
//! delivered packet.

use super::super::packet::Packet;
use crate::engine::SimTime;
use std::collections::VecDeque;

/// Linux 2.6's `netdev_max_backlog` (`net/core/dev.c`).
pub const NETDEV_MAX_BACKLOG_2_6: u32 = 300;

/// One host's CPU and input queue.
#[derive(Debug, Default)]
struct Cpu {
    /// When the CPU finishes the last ACK it has accepted.
    busy_until: SimTime,
    /// Start times of the accepted ACKs not yet started (the input queue), ascending.
    waiting: VecDeque<SimTime>,
}

/// The SACK-processing model of every host.
#[derive(Debug)]
pub struct SackCpu {
    /// CPU time per write-queue entry walked.
    pub per_entry: SimTime,
    /// CPU time per ACK besides the walk.
    pub per_ack: SimTime,
    /// The input queue's length (`netdev_max_backlog`).
    pub backlog: u32,
    /// Bytes per write-queue entry (the MSS).
    pub mss: u64,
    cpus: Vec<Cpu>,
    /// Per connection and direction, the highest cumulative ACK handed over.
    una: Vec<u64>,
    /// ACKs dropped at a full input queue.
    pub dropped: u64,
    /// Entries walked in all.
    pub walked: u64,
}

impl super::super::Network {
    /// Turn the model on: every link into a host gets an ingress stage, where the model
    /// takes the host's ACKs (`Network::admit`).
    pub fn set_sack_cpu(&mut self, cpu: SackCpu) {
        for p in &mut self.ports {
            if p.to_host {
                p.policed = true;
            }
        }
        self.host.sack_cpu = Some(Box::new(cpu));
    }
}

impl SackCpu {
    pub fn new(
        per_entry: SimTime,
        per_ack: SimTime,
        backlog: u32,
        mss: u64,
        nodes: usize,
    ) -> SackCpu {
        SackCpu {
            per_entry,
            per_ack,
            backlog,
            mss: mss.max(1),
            cpus: (0..nodes).map(|_| Cpu::default()).collect(),
            una: Vec::new(),
            dropped: 0,
            walked: 0,
        }
    }

    /// Does `p` pass through the model (a pure ACK)?
    #[inline]
    pub fn applies(p: &Packet) -> bool {
        p.kind == crate::packet::PktKind::Tcp && p.payload == 0
    }

    /// The entries Linux 2.6.6 walks for `p`'s SACK blocks when the retransmit queue
    /// starts at `una`: `tcp_sacktag_write_queue`, per block, the segments from `una` up
    /// to the block's right edge; then, FACK being on (`tcp_fack = 1`),
    /// `tcp_update_scoreboard` → `tcp_mark_head_lost` marks lost from the head up to
    /// `fackets_out − reordering`: the segments up to the highest SACKed one.
    pub fn entries(&self, p: &Packet, una: u64) -> u64 {
        let blocks = &p.sack[..p.nsack as usize];
        let seg = |end: u64| end.saturating_sub(una).div_ceil(self.mss);
        let tag: u64 = blocks.iter().map(|&(_, end)| seg(end)).sum();
        let fack = blocks.iter().map(|&(_, end)| seg(end)).max().unwrap_or(0);
        tag + fack
    }

    /// ACK `p` reaches host `node` at `now`: the time its processing ends (when it is
    /// handed to its socket), or `None` when the input queue is full and it is dropped.
    pub fn admit(&mut self, node: usize, p: &Packet, now: SimTime) -> Option<SimTime> {
        let cpu = &mut self.cpus[node];
        while cpu.waiting.front().is_some_and(|&s| s <= now) {
            cpu.waiting.pop_front();
        }
        if cpu.waiting.len() >= self.backlog as usize {
            self.dropped += 1;
            return None;
        }
        let key = 2 * p.conn as usize + p.from_client as usize;
        if self.una.len() <= key {
            self.una.resize(key + 1, 0);
        }
        let una = self.una[key];
        let n = self.entries(p, una);
        self.una[key] = una.max(p.ack);
        self.walked += n;
        let cpu = &mut self.cpus[node];
        let start = cpu.busy_until.max(now);
        let done = start + self.per_ack + n * self.per_entry;
        cpu.busy_until = done;
        if start > now {
            cpu.waiting.push_back(start);
        }
        Some(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NS, US};

    fn ack(ack: u64, blocks: &[(u64, u64)]) -> Packet {
        let mut p = Packet::blank();
        p.ack = ack;
        p.nsack = blocks.len() as u8;
        p.sack[..blocks.len()].copy_from_slice(blocks);
        p
    }

    /// Each block is walked from the head: three blocks ending 10, 20 and 30 segments above
    /// snd_una walk 60 entries; the cumulative ACK moves the head for the next ACK only.
    #[test]
    fn walk_from_the_head_per_block() {
        let m = 1448;
        let mut c = SackCpu::new(40 * NS, 0, 300, m, 1);
        let p = ack(
            1000,
            &[
                (1000 + 9 * m, 1000 + 10 * m),
                (1000 + 19 * m, 1000 + 20 * m),
                (1000 + 29 * m, 1000 + 30 * m),
            ],
        );
        // Tagging: 10 + 20 + 30; marking lost up to the highest SACKed: 30.
        assert_eq!(c.entries(&p, 1000), 90);
        assert_eq!(c.entries(&ack(1000, &[]), 1000), 0);
        assert_eq!(c.admit(0, &ack(1000, &[]), 0), Some(0));
        assert_eq!(c.admit(0, &p, 10 * US), Some(10 * US + 90 * 40 * NS));
        assert_eq!(c.walked, 90);
    }

    /// The input queue holds `backlog` ACKs waiting; the next is dropped; the CPU serves
    /// in order.
    #[test]
    fn full_input_queue_drops() {
        let m = 1448;
        let mut c = SackCpu::new(1000 * NS, 0, 2, m, 1);
        // One block 50 segments up: 50 tagged + 50 marking lost = 100 entries, 100 µs.
        let big = ack(0, &[(49 * m, 50 * m)]);
        assert_eq!(c.admit(0, &big, 0), Some(100 * US));
        assert_eq!(c.admit(0, &big, US), Some(200 * US));
        assert_eq!(c.admit(0, &big, 2 * US), Some(300 * US));
        assert_eq!(c.admit(0, &big, 3 * US), None);
        assert_eq!(c.dropped, 1);
        // After the first finishes, one waiting has started: room for one.
        assert_eq!(c.admit(0, &big, 101 * US), Some(400 * US));
    }
}
