//! A switch port with several queues selected by DSCP, as the seed's switches (seed 000:
//! "traffic was segregated into two queues … DSCP 0x01 … into the DCTCP queue … all other
//! packets into the default drop-tail queue"), a scheduler between them and an optional
//! port-wide buffer shared by the classes, like a shallow-buffered commodity switch.
//!
//! Schedulers: strict priority (the class listed first goes first) or deficit round robin
//! (Shreedhar & Varghese 1995) with a per-class quantum in bytes (weight × MTU-sized
//! quantum), the usual WRR/DRR of data-centre switch ASICs.

use super::{PktMeta, Qdisc, Verdict};
use crate::net::packet::PktId;
use crate::scenario::{Limit, Sched};

#[derive(Debug)]
pub struct Class {
    /// DSCP values this class takes; empty = the default class.
    pub dscp: Vec<u8>,
    pub q: Qdisc,
    pub quantum: u32,
    pub deficit: i64,
}

#[derive(Debug)]
pub struct Classful {
    pub classes: Vec<Class>,
    pub default: usize,
    pub sched: Sched,
    /// Buffer shared by all classes of the port.
    pub limit: Option<Limit>,
    /// Map DSCP → class (64 entries, filled at build time: no search per packet).
    pub by_dscp: [u8; 64],
    /// DRR: the class whose turn it is, and whether its quantum is still to be added.
    pub next: usize,
    fresh: bool,
    pub bytes: u64,
    pub pkts: u64,
}

impl Classful {
    pub fn new(classes: Vec<Class>, sched: Sched, limit: Option<Limit>) -> Classful {
        let default = classes
            .iter()
            .position(|c| c.dscp.is_empty())
            .unwrap_or(classes.len() - 1);
        let mut by_dscp = [default as u8; 64];
        for (i, c) in classes.iter().enumerate() {
            for &d in &c.dscp {
                by_dscp[(d & 63) as usize] = i as u8;
            }
        }
        Classful {
            classes,
            default,
            sched,
            limit,
            by_dscp,
            next: 0,
            fresh: true,
            bytes: 0,
            pkts: 0,
        }
    }

    #[inline]
    pub fn class_of(&self, dscp: u8) -> usize {
        self.by_dscp[(dscp & 63) as usize] as usize
    }

    pub fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if let Some(l) = self.limit {
            if l.overflows(self.bytes, self.pkts, m.len as u64) {
                return Verdict::Drop;
            }
        }
        let c = self.class_of(m.dscp);
        let v = self.classes[c].q.enqueue(id, m);
        if v != Verdict::Drop {
            self.bytes += m.len as u64;
            self.pkts += 1;
        }
        v
    }

    /// Dequeue per the scheduler; `len_of` gives a queued packet's length.
    pub fn dequeue(
        &mut self,
        now: crate::engine::SimTime,
        len_of: &dyn Fn(PktId) -> u32,
    ) -> Option<PktId> {
        if self.pkts == 0 {
            return None;
        }
        let id = match self.sched {
            Sched::Strict => self.classes.iter_mut().find_map(|c| c.q.dequeue(now))?,
            Sched::Drr => loop {
                let n = self.classes.len();
                let c = &mut self.classes[self.next];
                if c.q.pkts() == 0 {
                    // An empty class loses its deficit (DRR) and the turn passes on.
                    c.deficit = 0;
                    self.next = (self.next + 1) % n;
                    self.fresh = true;
                    continue;
                }
                if self.fresh {
                    c.deficit += c.quantum as i64;
                    self.fresh = false;
                }
                let head_len = c.q.peek().map(len_of).unwrap_or(0) as i64;
                if c.deficit >= head_len {
                    let id = c.q.dequeue(now)?;
                    c.deficit -= head_len;
                    break id;
                }
                self.next = (self.next + 1) % n;
                self.fresh = true;
            },
        };
        let len = len_of(id) as u64;
        self.bytes -= len;
        self.pkts -= 1;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::DropTail;

    fn meta(dscp: u8, len: u32) -> PktMeta {
        PktMeta {
            len,
            ecn: 0,
            dscp,
            hash: 0,
            now: 0,
        }
    }

    fn two_classes(sched: Sched, weights: (u32, u32), limit: Option<Limit>) -> Classful {
        let c = |dscp: Vec<u8>, w| Class {
            dscp,
            q: Qdisc::DropTail(DropTail::new(Limit::Packets(100))),
            quantum: w * 1514,
            deficit: 0,
        };
        Classful::new(
            vec![c(vec![1], weights.0), c(vec![], weights.1)],
            sched,
            limit,
        )
    }

    #[test]
    fn dscp_selects_the_class_and_strict_priority_serves_the_first() {
        let mut q = two_classes(Sched::Strict, (1, 1), None);
        assert_eq!(q.class_of(1), 0);
        assert_eq!(q.class_of(0), 1);
        assert_eq!(q.class_of(46), 1);
        for id in 0..3 {
            q.enqueue(id, &meta(0, 1500));
        }
        for id in 10..13 {
            q.enqueue(id, &meta(1, 1500));
        }
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(0, &|_| 1500)).collect();
        assert_eq!(order, vec![10, 11, 12, 0, 1, 2]);
    }

    #[test]
    fn drr_shares_bytes_by_weight() {
        let mut q = two_classes(Sched::Drr, (3, 1), None);
        for i in 0..40 {
            q.enqueue(i, &meta(1, 1500));
            q.enqueue(100 + i, &meta(0, 1500));
        }
        let first: Vec<_> = (0..40).map(|_| q.dequeue(0, &|_| 1500).unwrap()).collect();
        let a = first.iter().filter(|&&id| id < 100).count();
        assert_eq!(
            a, 30,
            "weights 3:1 → 30 of the first 40 packets from class 0"
        );
    }

    #[test]
    fn the_port_buffer_is_shared() {
        let mut q = two_classes(Sched::Drr, (1, 1), Some(Limit::Bytes(4500)));
        assert_eq!(q.enqueue(0, &meta(1, 1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(1, &meta(0, 1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(2, &meta(0, 1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(3, &meta(1, 1500)), Verdict::Drop);
        assert_eq!((q.bytes, q.pkts), (4500, 3));
    }
}
