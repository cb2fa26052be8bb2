//! `queue = "fq_codel"`: Flow Queue CoDel (RFC 8290) as Linux implements it
//! (`net/sched/sch_fq_codel.c`, Linux 4.x – 6.x; tc-fq_codel(8); docs/references.md §6.3, §11),
//! with tc's defaults: limit 10,240 packets, 1024 flows, quantum 1514 (psched_mtu),
//! memory_limit 32 MB, target 5 ms, interval 100 ms, ECN on, drop_batch_size 64,
//! ce_threshold off.
//!
//! - **Classification**: a packet's flow is `reciprocal_scale(hash, flows)` (its
//!   connection's hash scaled to the table), so distinct connections may share a queue.
//! - **Scheduling**: deficit round robin over a list of new flows (served first) and a list
//!   of old flows; a flow joins the new flows with `quantum` of deficit when it becomes
//!   active; a flow out of deficit gets `quantum` more and moves to the back of the old
//!   flows; a new flow with nothing to send moves to the old flows if there are any
//!   (anti-starvation), else it leaves the lists.
//! - **AQM**: each flow runs CoDel (`codel.rs`) on its own queue; the "one MTU left"
//!   test uses the whole qdisc's backlog.
//! - **Overflow** (`fq_codel_drop`): when the qdisc holds more than `limit` packets or its
//!   memory more than `memory_limit`, packets are dropped from the head of the flow with
//!   the most bytes, up to `drop_batch_size` packets or until half of that flow's bytes
//!   are gone. The arriving packet is queued first, so it can be among them. The ids of
//!   queued packets dropped this way reach the port at its next dequeue (the trait drops
//!   only the arrival at enqueue); they leave the qdisc's backlog at once. Memory is counted
//!   as IP bytes (Linux counts `skb->truesize`, somewhat more).

use super::codel::{self, codel_time, CodelParams, CodelQueue, CodelVars, Queued};
use super::flowq::{self, DrrFlow, FlowLists};
use super::{Backlog, Deq, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use std::collections::VecDeque;

/// `queue = "fq_codel"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub params: CodelParams,
    pub limit: u64,
    pub flows: u32,
    pub quantum: u32,
    pub memory_limit: u64,
    pub drop_batch: u32,
}

impl Default for Spec {
    /// `fq_codel_init`'s defaults.
    fn default() -> Spec {
        Spec {
            params: CodelParams::linux(true),
            limit: 10_240,
            flows: 1024,
            quantum: 1514,
            memory_limit: 32 << 20,
            drop_batch: 64,
        }
    }
}

pub(crate) const FLOWS: Key = Key {
    name: "flows",
    ty: Ty::Int(1, 65_536),
    default: "`1024`",
    allowed: "",
    meaning: "number of flow queues (connections are hashed onto them)",
};
const QUANTUM: Key = Key {
    name: "quantum",
    ty: Ty::Bytes(1, u32::MAX as u64),
    default: "`1514`",
    allowed: "",
    meaning: "bytes a flow may send per round",
};
const MEMORY_LIMIT: Key = Key {
    name: "memory_limit",
    ty: Ty::Size,
    default: "`\"32MiB\"`",
    allowed: "",
    meaning: "bytes the qdisc may hold before dropping from the fattest flow",
};
const DROP_BATCH: Key = Key {
    name: "drop_batch_size",
    ty: Ty::Int(1, u32::MAX as i64),
    default: "`64`",
    allowed: "",
    meaning: "the most packets dropped from the fattest flow at one overflow",
};

/// fq_codel's `limit`: packets, Linux's default (`sch->limit = 10*1024` in
/// `fq_codel_init`) on a link and in a queue table alike.
const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"10240pkts\"` (Linux `sch_fq_codel`: 10 × 1024)",
    allowed: "a packet count, 1 to 4294967295",
    meaning: "the queue limit, in packets (the whole qdisc, all flows)",
};

pub static KEYS: Schema = Schema {
    title: "FQ-CoDel",
    place: "an fq_codel queue",
    noun: "queue",
    about: "Flow Queue CoDel (RFC 8290, Linux `sch_fq_codel`): per-flow queues served by deficit round robin with new flows first, CoDel on each; ECN on by default; `limit` in packets (default 10240).",
    keys: &[
        LIMIT,
        FLOWS,
        QUANTUM,
        MEMORY_LIMIT,
        DROP_BATCH,
        codel::TARGET,
        codel::INTERVAL,
        codel::ECN,
        codel::CE_THRESHOLD,
    ],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut s = Spec::default();
    codel::parse_params(ck, t, &mut s.params);
    s.limit = codel::packet_limit(ck, t, "fq_codel", 10_240);
    ck.get_into(t, &FLOWS, &mut s.flows);
    ck.get_into(t, &QUANTUM, &mut s.quantum);
    ck.get_into(t, &MEMORY_LIMIT, &mut s.memory_limit);
    ck.get_into(t, &DROP_BATCH, &mut s.drop_batch);
    Some(s)
}

impl super::QueueSpec {
    /// fq_codel with tc's defaults.
    pub fn fq_codel() -> super::QueueSpec {
        super::QueueSpec::FqCodel(Spec::default())
    }
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<FqCodel>;
    fn build(&self) -> Box<FqCodel> {
        Box::new(self.build_unboxed())
    }
    fn limit(&self) -> Limit {
        self.limit_of()
    }
}

impl Spec {
    fn build_unboxed(&self) -> FqCodel {
        FqCodel {
            p: self.clone(),
            flows: (0..self.flows)
                .map(|_| Flow {
                    q: VecDeque::new(),
                    bytes: 0,
                    deficit: 0,
                    vars: CodelVars::default(),
                    listed: false,
                })
                .collect(),
            lists: FlowLists::default(),
            bytes: 0,
            pkts: 0,
            pending_drops: Vec::new(),
        }
    }
    fn limit_of(&self) -> Limit {
        Limit::Packets(self.limit)
    }
}

#[derive(Debug)]
struct Flow {
    q: VecDeque<Queued>,
    bytes: u64,
    deficit: i64,
    vars: CodelVars,
    listed: bool,
}

impl DrrFlow for Flow {
    fn deficit(&mut self) -> &mut i64 {
        &mut self.deficit
    }
    fn listed(&mut self) -> &mut bool {
        &mut self.listed
    }
}

/// `struct fq_codel_sched_data`.
#[derive(Debug)]
pub struct FqCodel {
    p: Spec,
    flows: Vec<Flow>,
    lists: FlowLists,
    bytes: u64,
    pkts: u64,
    /// Queued packets dropped at an overflow, handed to the port at the next dequeue.
    pending_drops: Vec<PktId>,
}

/// One flow's queue as CoDel sees it, with the qdisc's totals.
struct FlowQueue<'a> {
    flow: &'a mut Flow,
    bytes: &'a mut u64,
    pkts: &'a mut u64,
}

impl CodelQueue for FlowQueue<'_> {
    fn pop(&mut self) -> Option<Queued> {
        let p = self.flow.q.pop_front()?;
        self.flow.bytes -= p.len as u64;
        *self.bytes -= p.len as u64;
        *self.pkts -= 1;
        Some(p)
    }
    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

impl FqCodel {
    /// `fq_codel_classify`: `reciprocal_scale(hash, flows)`.
    #[inline]
    fn classify(&self, hash: u32) -> usize {
        flowq::classify(hash, self.p.flows)
    }

    /// `fq_codel_drop`: drop from the head of the fattest flow, up to `drop_batch` packets
    /// or half its bytes, and raise that flow's CoDel count by the packets dropped (so its
    /// CoDel drops sooner). Returns the flow dropped from.
    fn drop_fattest(&mut self) -> usize {
        let (idx, fat) = self
            .flows
            .iter()
            .enumerate()
            .max_by_key(|(i, f)| (f.bytes, std::cmp::Reverse(*i)))
            .map(|(i, f)| (i, f.bytes))
            .expect("flows");
        let threshold = fat >> 1;
        let f = &mut self.flows[idx];
        let (mut len, mut i) = (0u64, 0u32);
        while let Some(p) = f.q.pop_front() {
            f.bytes -= p.len as u64;
            self.bytes -= p.len as u64;
            self.pkts -= 1;
            len += p.len as u64;
            self.pending_drops.push(p.id);
            i += 1;
            if i >= self.p.drop_batch || len >= threshold {
                break;
            }
        }
        // "Tell codel to increase its signal strength also".
        f.vars.count = f.vars.count.wrapping_add(i);
        idx
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        let idx = self.classify(m.hash);
        let quantum = self.p.quantum as i64;
        let f = &mut self.flows[idx];
        f.q.push_back(Queued {
            id,
            len: m.len,
            ecn: m.ecn,
            enqueued: codel_time(m.now),
        });
        f.bytes += m.len as u64;
        self.bytes += m.len as u64;
        self.pkts += 1;
        self.lists.activate(f, idx, quantum);
        if self.pkts <= self.p.limit && self.bytes <= self.p.memory_limit {
            return Verdict::ENQUEUE;
        }
        let before = self.pending_drops.len();
        self.drop_fattest();
        // The arrival itself may be among the dropped (a flow of one packet).
        if let Some(k) = self.pending_drops[before..].iter().position(|&d| d == id) {
            self.pending_drops.remove(before + k);
            return Verdict::Drop;
        }
        Verdict::ENQUEUE
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        drops.append(&mut self.pending_drops);
        let (bytes, pkts, params) = (&mut self.bytes, &mut self.pkts, &self.p.params);
        let got = self
            .lists
            .dequeue(&mut self.flows, self.p.quantum as i64, |f| {
                let mut vars = f.vars;
                let mut fq = FlowQueue {
                    flow: &mut *f,
                    bytes: &mut *bytes,
                    pkts: &mut *pkts,
                };
                let got = vars.dequeue(&mut fq, params, now, drops);
                f.vars = vars;
                got.map(|(p, mark)| ((p.id, mark), p.len))
            });
        match got {
            Some((id, mark)) => Deq::Packet(id, mark),
            None => Deq::Empty,
        }
    }

    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.pkts,
        }
    }

    fn peek_len(&self) -> Option<u32> {
        self.lists.peek(&self.flows, |f| f.q.front().map(|p| p.len))
    }

    /// `fq_codel_reset` (the link went down): both flow lists emptied, each flow purged in
    /// index order (`fq_codel_flow_purge`: no CoDel dequeue, no drop decision) with its
    /// CoDel state zeroed (`codel_vars_init`), the backlogs 0. The drops of an overflow
    /// not yet handed to the port go first.
    fn reset(&mut self, _now: SimTime, drops: &mut Vec<PktId>) {
        drops.append(&mut self.pending_drops);
        self.lists.new.clear();
        self.lists.old.clear();
        for f in &mut self.flows {
            drops.extend(f.q.drain(..).map(|p| p.id));
            f.bytes = 0;
            f.listed = false;
            f.vars = CodelVars::default();
        }
        self.bytes = 0;
        self.pkts = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(hash: u32, len: u32) -> PktMeta {
        PktMeta {
            len,
            hash,
            segs: 1,
            ..Default::default()
        }
    }

    /// Hashes that land in flow queues 0 and 1 of 1024 (reciprocal_scale: hash · 1024 >> 32).
    const A: u32 = 0;
    const B: u32 = 1 << 22;
    const C: u32 = 2 << 22;

    /// Flow selection by hand: A queues 4 packets of 1514 B, then B 2 and C (sparse) 1.
    /// Round 1 (new flows, quantum 1514 each): A sends one (deficit 0), B one, C one (C is
    /// then empty and, as a new flow with old flows waiting, moves to the old flows). A and
    /// B, out of deficit, went to the old flows with +1514: old = A, B, C → A, B, then C
    /// (empty: leaves), A, A.
    #[test]
    fn new_flows_first_then_round_robin() {
        let mut q = Spec::default().build();
        let mut id = 0;
        for (h, n) in [(A, 4), (B, 2), (C, 1)] {
            for _ in 0..n {
                q.enqueue(id, &meta(h, 1514));
                id += 1;
            }
        }
        let mut order = String::new();
        let mut drops = Vec::new();
        while let Deq::Packet(p, _) = q.dequeue(0, &mut drops) {
            order.push(match p {
                0..=3 => 'A',
                4..=5 => 'B',
                _ => 'C',
            });
        }
        assert_eq!(order, "ABCABAA");
    }

    /// FQ-2: an overflow at `limit` with one flow holding most of the backlog drops from
    /// that flow's head, half its bytes at most 64 packets: limit 100, flow A 90 packets,
    /// B 10; the 101st packet (B's) overflows: A loses min(64, until 45 × 1500 ≥ half of
    /// 135,000) = 45 packets, its oldest.
    #[test]
    fn overflow_drops_from_the_fattest_flows_head() {
        let mut q = Spec {
            limit: 100,
            ..Spec::default()
        }
        .build();
        for i in 0..90 {
            q.enqueue(i, &meta(A, 1500));
        }
        for i in 90..100 {
            q.enqueue(i, &meta(B, 1500));
        }
        assert_eq!(q.enqueue(100, &meta(B, 1500)), Verdict::ENQUEUE);
        let mut drops = Vec::new();
        let _ = q.dequeue(0, &mut drops);
        assert_eq!(drops, (0..45).collect::<Vec<_>>());
        assert_eq!(q.backlog().pkts, 101 - 45 - 1);
        // `fq_codel_drop`: "Tell codel to increase its signal strength also".
        assert_eq!(q.flows[0].vars.count, 45);
    }

    /// ECN is on by default: a standing queue makes CoDel mark ECT packets instead of
    /// dropping them.
    #[test]
    fn marks_ect_instead_of_dropping() {
        let mut q = Spec::default().build();
        let mut drops = Vec::new();
        let ms = crate::engine::MS;
        let mut marks = 0;
        // 1500-byte ECT packets arrive every 1 ms and leave every 1.2 ms: the sojourn
        // grows past 5 ms and stays above it for well over 100 ms.
        let mut next_tx = 0;
        for k in 0..1000u32 {
            let now = k as u64 * ms;
            let mut m = meta(A, 1500);
            m.now = now;
            m.ecn = crate::packet::ECT0;
            q.enqueue(k, &m);
            while next_tx <= now {
                if let Deq::Packet(_, mark) = q.dequeue(next_tx, &mut drops) {
                    if mark == super::super::Mark::Ce {
                        marks += 1;
                    }
                }
                next_tx += 1200 * crate::engine::US;
            }
        }
        assert!(drops.is_empty(), "ECT packets are marked, not dropped");
        assert!(marks > 5, "{marks} marks");
    }

    /// `fq_codel_reset`: every flow's packets dropped in flow order, none through CoDel
    /// (a flow in its dropping state would otherwise drop by its state), the lists and
    /// each flow's CoDel state cleared; a packet queued after it starts a new flow.
    #[test]
    fn reset_purges_each_flow_and_zeroes_its_codel_state() {
        let mut q = Spec::default().build();
        let mut id = 0;
        for (h, n) in [(B, 2), (A, 3)] {
            for _ in 0..n {
                q.enqueue(id, &meta(h, 1514));
                id += 1;
            }
        }
        q.flows[0].vars.dropping = true;
        q.flows[0].vars.count = 9;
        let mut drops = Vec::new();
        q.reset(crate::engine::SEC, &mut drops);
        // Flow 0 (A: ids 2, 3, 4) before flow 1 (B: ids 0, 1).
        assert_eq!(drops, vec![2, 3, 4, 0, 1]);
        assert_eq!((q.backlog().pkts, q.backlog().bytes), (0, 0));
        assert!(q.lists.new.is_empty() && q.lists.old.is_empty());
        assert!(!q.flows[0].vars.dropping && q.flows[0].vars.count == 0);
        assert!(q.flows.iter().all(|f| !f.listed && f.q.is_empty()));
        q.enqueue(9, &meta(A, 1514));
        assert_eq!(q.lists.new, [0]);
    }
}
