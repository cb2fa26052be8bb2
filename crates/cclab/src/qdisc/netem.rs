//! `queue = "netem"`, `netem = { delay = "50ms", limit = 10000 }`: netem's `delay` (Linux `net/sched/sch_netem.c`, tc-netem(8)) — every
//! packet is held for a fixed time after it arrives, then leaves in order; at most `limit`
//! packets are held (netem's default 1000), an arrival beyond that is dropped. Only the
//! fixed delay is modelled (no jitter, loss, duplication, reordering or rate): seed 004's
//! `netem delay 50ms limit 10000` uses nothing else. With a fixed delay netem's time-sorted
//! queue (`tfifo`) is a FIFO.
//!
//! With a delay, netem orphans what it queues (`skb_orphan_partial`, Linux 3.14 and later):
//! the sending socket stops counting it for TCP small queues, so a sender's own netem
//! delay line does not throttle it.
//!
//! Held packets count in the port's backlog, as they count in netem's `qlen`. Note what
//! `limit` means at high rates: the packets in flight through a netem delay are packets in
//! its queue, so `limit 10000` caps a path emulated with 50 ms of netem delay at 10,000
//! packets per 50 ms (2.4 Gbit/s of 1500-byte packets) — a GSO aggregate counts once.

use super::{Backlog, Deq, PktMeta, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use std::collections::VecDeque;

/// `queue = "netem"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub delay: SimTime,
    /// Packets.
    pub limit: u64,
}

const DELAY: Key = Key {
    name: "delay",
    ty: Ty::Time,
    default: "required",
    allowed: "0 or more",
    meaning: "the time every packet is held (netem `delay`)",
};

const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::Int(1, u32::MAX as i64),
    default: "`1000`",
    allowed: "",
    meaning: "the most packets held; an arrival beyond it is dropped (netem `limit`, in packets)",
};

/// The keys inside `netem = { … }` (apart from the link's own `delay`).
pub static NETEM: Schema = Schema {
    title: "netem tables",
    place: "a netem table",
    noun: "netem",
    about: "",
    keys: &[DELAY, LIMIT],
    with: &[],
    variants: None,
};

const TABLE: Key = Key {
    name: "netem",
    ty: Ty::Table(&NETEM),
    default: "required",
    allowed: "",
    meaning: "netem's parameters: `{ delay = \"50ms\", limit = 10000 }`",
};

pub static KEYS: Schema = Schema {
    title: "netem delay",
    place: "a netem queue",
    noun: "queue",
    about: "netem's `delay`: every packet is held for `delay`, then leaves in order; at most `limit` packets are held. Only the fixed delay of netem is modelled. Its keys sit in a `netem = { … }` table, apart from the link's own `delay`.",
    keys: &[TABLE],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let path = crate::schema::check::join(t.path, TABLE.name);
    let t = super::own_table(
        ck,
        t,
        TABLE.name,
        &path,
        &NETEM,
        "{ delay = \"50ms\" } (and optionally limit, in packets)",
    )?;
    if !t.t.contains_key(DELAY.name) {
        ck.err(
            &crate::schema::check::join(t.path, DELAY.name),
            None,
            "netem needs delay (e.g. delay = \"50ms\")".into(),
        );
        return None;
    }
    let delay = ck.get(t, &DELAY)?;
    let limit = ck.get(t, &LIMIT).unwrap_or(1000);
    Some(Spec { delay, limit })
}

impl QueueSpec {
    /// netem `delay` with `limit` packets.
    pub fn delay(delay: SimTime, limit: u64) -> QueueSpec {
        QueueSpec::Delay(Spec { delay, limit })
    }
}

impl QdiscSpec for Spec {
    type Q = Netem;
    fn build(&self) -> Netem {
        Netem {
            delay: self.delay,
            limit: self.limit,
            q: VecDeque::new(),
            bytes: 0,
        }
    }
    fn limit(&self) -> Limit {
        Limit::Packets(self.limit)
    }
}

/// The delay line: (packet, length, time it may leave).
#[derive(Debug)]
pub struct Netem {
    pub delay: SimTime,
    pub limit: u64,
    q: VecDeque<(PktId, u32, SimTime)>,
    bytes: u64,
}

impl QueueDisc for Netem {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.q.len() as u64 >= self.limit {
            return Verdict::Drop;
        }
        self.q.push_back((id, m.len, m.now + self.delay));
        self.bytes += m.len as u64;
        Verdict::ENQUEUE
    }
    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        match self.q.front() {
            None => Deq::Empty,
            Some(&(_, _, t)) if t > now => Deq::NotBefore(t),
            Some(_) => {
                let (id, len, _) = self.q.pop_front().unwrap();
                self.bytes -= len as u64;
                Deq::Packet(id, super::Mark::None)
            }
        }
    }
    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.q.len() as u64,
        }
    }
    fn peek_len(&self) -> Option<u32> {
        self.q.front().map(|h| h.1)
    }
    /// `netem_enqueue`: "If a delay is expected, orphan the skb" (`skb_orphan_partial`,
    /// Linux 3.14 and later).
    fn orphans(&self) -> bool {
        self.delay > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    fn meta(now: SimTime) -> PktMeta {
        PktMeta {
            len: 1500,
            segs: 1,
            now,
            ..Default::default()
        }
    }

    /// Packets arriving at 0, 1 and 3 ms with a 50 ms delay leave at 50, 51 and 53 ms; the
    /// queue answers "not before" until then; a fourth arrival beyond limit 3 is dropped.
    #[test]
    fn holds_each_packet_for_the_delay_and_drops_beyond_the_limit() {
        let mut q = Spec {
            delay: 50 * MS,
            limit: 3,
        }
        .build();
        let mut drops = Vec::new();
        for (id, t) in [(1, 0), (2, MS), (3, 3 * MS)] {
            assert_eq!(q.enqueue(id, &meta(t)), Verdict::ENQUEUE);
        }
        assert_eq!(q.enqueue(4, &meta(4 * MS)), Verdict::Drop);
        assert_eq!(q.dequeue(10 * MS, &mut drops), Deq::NotBefore(50 * MS));
        assert_eq!(
            q.dequeue(50 * MS, &mut drops),
            Deq::Packet(1, super::super::Mark::None)
        );
        assert_eq!(q.dequeue(50 * MS, &mut drops), Deq::NotBefore(51 * MS));
        assert_eq!(
            q.dequeue(52 * MS, &mut drops),
            Deq::Packet(2, super::super::Mark::None)
        );
        assert_eq!(
            q.backlog(),
            Backlog {
                bytes: 1500,
                pkts: 1
            }
        );
        assert_eq!(
            q.dequeue(53 * MS, &mut drops),
            Deq::Packet(3, super::super::Mark::None)
        );
        assert_eq!(q.dequeue(53 * MS, &mut drops), Deq::Empty);
    }
}
