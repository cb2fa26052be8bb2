//! Queue disciplines. A qdisc sees a packet only through `PktMeta` (length, ECN codepoint,
//! DSCP, flow hash, time), and time is passed in, never read from a clock, so the same code
//! can later sit in a user-space router in front of real Linux TCP.
//!
//! Byte counts are IP packet lengths (what a switch buffer holds); link framing overhead is
//! added only to serialisation time (`net::port`).

pub mod classful;
pub mod droptail;
pub mod ecn;

use crate::engine::SimTime;
use crate::net::packet::PktId;
use crate::scenario::QueueSpec;
use std::collections::VecDeque;

/// What a qdisc may look at.
#[derive(Clone, Copy, Debug)]
pub struct PktMeta {
    pub len: u32,
    pub ecn: u8,
    pub dscp: u8,
    pub hash: u32,
    pub now: SimTime,
}

/// The qdisc's decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue it unchanged.
    Enqueue,
    /// Queue it with the CE codepoint set.
    EnqueueMarked,
    /// Drop it.
    Drop,
}

/// Counters every queue keeps.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub enqueued: u64,
    pub drops: u64,
    pub marks: u64,
    pub max_bytes: u64,
    pub max_pkts: u64,
    /// ∫ bytes dt, in byte·picoseconds, for the time-average.
    pub byte_time: u128,
    pub last_change: SimTime,
}

/// A FIFO of packet ids with byte/packet accounting.
#[derive(Debug, Default)]
pub struct Fifo {
    q: VecDeque<(PktId, u32)>,
    pub bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, id: PktId, len: u32) {
        self.q.push_back((id, len));
        self.bytes += len as u64;
    }
    #[inline]
    pub fn pop(&mut self) -> Option<PktId> {
        let (id, len) = self.q.pop_front()?;
        self.bytes -= len as u64;
        Some(id)
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    #[inline]
    pub fn peek(&self) -> Option<PktId> {
        self.q.front().map(|e| e.0)
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// The built-in disciplines, dispatched by `match`.
#[derive(Debug)]
pub enum Qdisc {
    DropTail(droptail::DropTail),
    Ecn(ecn::EcnThreshold),
    Classful(Box<classful::Classful>),
}

impl Qdisc {
    pub fn from_spec(spec: &QueueSpec) -> Qdisc {
        match *spec {
            QueueSpec::DropTail { limit } => Qdisc::DropTail(droptail::DropTail::new(limit)),
            QueueSpec::Ecn { limit, k } => Qdisc::Ecn(ecn::EcnThreshold::new(limit, k)),
            QueueSpec::Classes {
                ref classes,
                sched,
                limit,
            } => {
                let cl = classes
                    .iter()
                    .map(|c| classful::Class {
                        dscp: c.dscp.clone(),
                        q: Qdisc::from_spec(&c.queue),
                        quantum: c.weight.max(1) * 1514,
                        deficit: 0,
                    })
                    .collect();
                Qdisc::Classful(Box::new(classful::Classful::new(cl, sched, limit)))
            }
        }
    }

    /// Decide on and (unless dropped) queue packet `id`.
    #[inline]
    pub fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        match self {
            Qdisc::DropTail(q) => q.enqueue(id, m),
            Qdisc::Ecn(q) => q.enqueue(id, m),
            Qdisc::Classful(q) => q.enqueue(id, m),
        }
    }

    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<PktId> {
        self.dequeue_with(now, &|_| 0)
    }

    /// Dequeue; classful disciplines need `len_of` to know a queued packet's length.
    #[inline]
    pub fn dequeue_with(&mut self, now: SimTime, len_of: &dyn Fn(PktId) -> u32) -> Option<PktId> {
        match self {
            Qdisc::DropTail(q) => q.fifo.pop(),
            Qdisc::Ecn(q) => q.fifo.pop(),
            Qdisc::Classful(q) => q.dequeue(now, len_of),
        }
    }

    /// The packet that would be sent next by a single FIFO (classful: none).
    #[inline]
    pub fn peek(&self) -> Option<PktId> {
        match self {
            Qdisc::DropTail(q) => q.fifo.peek(),
            Qdisc::Ecn(q) => q.fifo.peek(),
            Qdisc::Classful(_) => None,
        }
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Qdisc::DropTail(q) => q.fifo.bytes,
            Qdisc::Ecn(q) => q.fifo.bytes,
            Qdisc::Classful(q) => q.bytes,
        }
    }

    #[inline]
    pub fn pkts(&self) -> usize {
        match self {
            Qdisc::DropTail(q) => q.fifo.len(),
            Qdisc::Ecn(q) => q.fifo.len(),
            Qdisc::Classful(q) => q.pkts as usize,
        }
    }
}
