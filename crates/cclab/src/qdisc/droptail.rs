//! Drop-tail (Linux `pfifo` / `bfifo`, `net/sched/sch_fifo.c`): admit while the limit
//! allows, else drop the arrival. As in Linux, a packet that finds the port idle still
//! passes through the queue: a byte limit below the packet's length drops it (`bfifo`
//! sets `TCQ_F_CAN_BYPASS` only when its limit holds an MTU).

use super::{Backlog, Deq, Fifo, Mark, Offer, PktMeta, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// `queue = "droptail"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub limit: Limit,
}

/// The limit, shared by every discipline that holds packets up to one.
pub const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"1000pkts\"` on a link, `\"10000pkts\"` in a queue table",
    allowed: "",
    meaning: "the queue limit, in packets or bytes",
};

pub static KEYS: Schema = Schema {
    title: "Drop-tail",
    place: "a droptail queue",
    noun: "queue",
    about: "Admit while the limit allows, else drop the arrival (Linux `pfifo` / `bfifo`). A packet that finds the port idle passes through the queue too (as Linux, which lets a `bfifo` bypass only when its limit holds an MTU), so a byte limit below a packet's length drops it.",
    keys: &[LIMIT],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, default_limit: Limit) -> Option<Spec> {
    Some(Spec {
        limit: ck.get(t, &LIMIT).unwrap_or(default_limit),
    })
}

impl QdiscSpec for Spec {
    type Q = DropTail;
    fn build(&self) -> DropTail {
        DropTail::new(self.limit)
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl QueueSpec {
    /// Drop-tail at `limit`.
    pub fn droptail(limit: Limit) -> QueueSpec {
        QueueSpec::DropTail(Spec { limit })
    }
}

#[derive(Debug)]
pub struct DropTail {
    pub limit: Limit,
    pub fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: Limit) -> DropTail {
        DropTail {
            limit,
            fifo: Fifo::default(),
        }
    }
}

impl QueueDisc for DropTail {
    #[inline]
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self
            .limit
            .overflows(self.fifo.bytes, self.fifo.len() as u64, m.len as u64)
        {
            return Verdict::Drop;
        }
        self.fifo.push(id, m.len);
        Verdict::ENQUEUE
    }

    /// An empty queue admits anything its limit holds, unmarked (an empty queue is not
    /// above any threshold).
    #[inline]
    fn offer_idle(&mut self, _id: PktId, m: &PktMeta) -> Offer {
        if self.limit.overflows(0, 0, m.len as u64) {
            Offer::Drop
        } else {
            Offer::Send(Mark::None)
        }
    }

    #[inline]
    fn dequeue(&mut self, _now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        match self.fifo.pop() {
            Some(id) => Deq::Packet(id, Mark::None),
            None => Deq::Empty,
        }
    }

    #[inline]
    fn backlog(&self) -> Backlog {
        self.fifo.backlog()
    }

    #[inline]
    fn peek_len(&self) -> Option<u32> {
        self.fifo.peek().map(|h| h.1)
    }
    /// Its port runs direct (`QueueDisc::arrival_fifo`).
    #[inline]
    fn arrival_fifo(&mut self) -> Option<&mut Fifo> {
        Some(&mut self.fifo)
    }
    /// The packets of `len` bytes that fit below the limit.
    #[inline]
    fn room(&self, len: u32) -> u32 {
        let (bytes, pkts) = (self.fifo.bytes, self.fifo.len() as u64);
        let n = match self.limit {
            Limit::Packets(n) => n.saturating_sub(pkts),
            Limit::Bytes(b) => b.saturating_sub(bytes) / len.max(1) as u64,
        };
        n.min(u32::MAX as u64 - 1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn meta(len: u32) -> PktMeta {
        PktMeta {
            len,
            ecn: 0,
            dscp: 0,
            hash: 0,
            segs: 1,
            now: 0,
            edt: 0,
            ..PktMeta::default()
        }
    }

    #[test]
    fn packet_and_byte_limits() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert_eq!(q.enqueue(1, &meta(1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(2, &meta(1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(3, &meta(64)), Verdict::Drop);
        let mut q = DropTail::new(Limit::Bytes(3000));
        assert_eq!(q.enqueue(1, &meta(1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(2, &meta(1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(3, &meta(1)), Verdict::Drop);
        assert_eq!(q.peek_len(), Some(1500));
        assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Packet(1, Mark::None));
        assert_eq!(
            q.backlog(),
            Backlog {
                bytes: 1500,
                pkts: 1
            }
        );
        // A byte limit below one packet admits nothing, even into an empty queue.
        let mut q = DropTail::new(Limit::Bytes(1000));
        assert_eq!(q.enqueue(1, &meta(1500)), Verdict::Drop);
    }
}
