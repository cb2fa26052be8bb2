//! Threshold ECN marking as DCTCP switches do it (DCTCP SIGCOMM 2010 §3.1, RFC 8257 §3.1):
//! an arriving packet sees the instantaneous queue; if the queue exceeds K, an ECT packet
//! is marked CE and a non-ECT packet is dropped (the seed's switches: RED/ECN with
//! min_th = max_th = K, where non-ECT traffic above the threshold is dropped). The queue
//! still tail-drops at its limit, ECT or not.

use super::droptail::DropTail;
use super::{Backlog, Deq, Fifo, Offer, PktMeta, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::units;
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// `queue = "ecn"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub limit: Limit,
    pub k: Limit,
}

pub const K: Key = Key {
    name: "k",
    ty: Ty::Limit,
    default: "required",
    allowed: "0 or more; below `limit` when both use the same unit",
    meaning: "marking threshold: an arriving ECT packet is marked CE, a non-ECT packet dropped, while the queue exceeds it; `\"0pkts\"` marks every ECT packet that finds a queue",
};

pub static KEYS: Schema = Schema {
    title: "ECN threshold",
    place: "an ecn queue",
    noun: "queue",
    about: "DCTCP-style threshold marking (RFC 8257 §3.1): a packet that arrives while the queue exceeds `k` is marked CE if it is ECT; a non-ECT packet is dropped instead. The queue still drops at `limit`.",
    keys: &[super::droptail::LIMIT, K],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, default_limit: Limit) -> Option<Spec> {
    let before = ck.errors.len();
    let limit = ck.get(t, &super::droptail::LIMIT).unwrap_or(default_limit);
    if !t.t.contains_key(K.name) {
        ck.err(
            &join(t.path, K.name),
            None,
            "queue = \"ecn\" needs k, the marking threshold (e.g. k = \"65pkts\" or k = \"75KB\")"
                .into(),
        );
        return None;
    }
    let k: Limit = ck.get(t, &K)?;
    if ck.errors.len() == before {
        let too_high = match (k, limit) {
            (Limit::Packets(a), Limit::Packets(b)) | (Limit::Bytes(a), Limit::Bytes(b)) => a >= b,
            _ => false,
        };
        if too_high {
            ck.err(
                &join(t.path, K.name),
                t.t.get(K.name),
                format!(
                    "the marking threshold must be below the queue limit ({})",
                    units::format_limit(limit)
                ),
            );
        }
    }
    Some(Spec { limit, k })
}

impl QdiscSpec for Spec {
    type Q = EcnThreshold;
    fn build(&self) -> EcnThreshold {
        EcnThreshold::new(self.limit, self.k)
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl QueueSpec {
    /// Threshold marking at `k`, tail drop at `limit`.
    pub fn ecn(limit: Limit, k: Limit) -> QueueSpec {
        QueueSpec::Ecn(Spec { limit, k })
    }
}

/// A drop-tail queue whose arrivals are marked (or, non-ECT, dropped) above `k`.
#[derive(Debug)]
pub struct EcnThreshold {
    pub k: Limit,
    /// The queue itself: its limit, its FIFO, how it dequeues.
    pub tail: DropTail,
}

impl EcnThreshold {
    pub fn new(limit: Limit, k: Limit) -> EcnThreshold {
        EcnThreshold {
            k,
            tail: DropTail::new(limit),
        }
    }
}

impl QueueDisc for EcnThreshold {
    #[inline]
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        let fifo = &self.tail.fifo;
        let (bytes, pkts) = (fifo.bytes, fifo.len() as u64);
        if self.tail.limit.overflows(bytes, pkts, m.len as u64) {
            return Verdict::Drop;
        }
        let above_k = self.k.exceeded_by(bytes, pkts);
        if above_k && m.ecn == crate::packet::NOT_ECT {
            return Verdict::Drop;
        }
        self.tail.fifo.push(id, m.len);
        if above_k {
            Verdict::MARK_CE
        } else {
            Verdict::ENQUEUE
        }
    }

    /// An empty queue is not above any threshold: the drop-tail decides.
    #[inline]
    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        self.tail.offer_idle(id, m)
    }

    #[inline]
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        self.tail.dequeue(now, drops)
    }

    #[inline]
    fn backlog(&self) -> Backlog {
        self.tail.backlog()
    }

    #[inline]
    fn peek_len(&self) -> Option<u32> {
        self.tail.peek_len()
    }
    /// Its port runs direct, as drop-tail's (`QueueDisc::arrival_fifo`).
    #[inline]
    fn arrival_fifo(&mut self) -> Option<&mut Fifo> {
        Some(&mut self.tail.fifo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{ECT0, NOT_ECT};

    fn meta(ecn: u8) -> PktMeta {
        PktMeta {
            len: 1500,
            ecn,
            dscp: 0,
            hash: 0,
            segs: 1,
            now: 0,
            edt: 0,
            ..PktMeta::default()
        }
    }

    #[test]
    fn marks_ect_and_drops_non_ect_above_k() {
        let mut q = EcnThreshold::new(Limit::Packets(5), Limit::Packets(2));
        assert_eq!(q.enqueue(0, &meta(ECT0)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(1, &meta(ECT0)), Verdict::ENQUEUE);
        // Queue holds 2 = K: not above K yet.
        assert_eq!(q.enqueue(2, &meta(NOT_ECT)), Verdict::ENQUEUE);
        // Now 3 > K.
        assert_eq!(q.enqueue(3, &meta(ECT0)), Verdict::MARK_CE);
        assert_eq!(q.enqueue(4, &meta(NOT_ECT)), Verdict::Drop);
        assert_eq!(q.enqueue(5, &meta(ECT0)), Verdict::MARK_CE);
        // Full at 5: even ECT is dropped.
        assert_eq!(q.enqueue(6, &meta(ECT0)), Verdict::Drop);
    }
}
