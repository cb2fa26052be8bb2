//! `queue = "fq_pie"`: Flow Queue PIE as Linux implements it (`net/sched/sch_fq_pie.c`,
//! torvalds/linux at the 6.9 – 6.15 state, on `include/net/pie.h`: `pie.rs`), with tc's
//! key names (`tc/q_fq_pie.c`; docs/references.md §6.6) and `fq_pie_init`'s defaults:
//! limit 10,240 packets, 1024 flows, quantum 1514 (`psched_mtu`), memory_limit 32 MiB,
//! ecn_prob 10%, and PIE's own (target 15 ms, tupdate 15 ms, alpha 2/16, beta 20/16, ECN,
//! bytemode and the drain-rate estimator off).
//!
//! - **Classification**: `reciprocal_scale(hash, flows)`, as fq_codel.
//! - **Scheduling**: fq_codel's deficit round robin over new flows (served first) and old
//!   flows (`flowq.rs`, shared with fq_codel); a flow joins the new flows with `quantum` of
//!   deficit.
//! - **AQM**: each flow has PIE's variables; the early-drop test runs at enqueue on the
//!   flow's own backlog (`pie_drop_early(…, sel_flow->backlog, …)`), the delay is measured
//!   at the flow's dequeues, and the probability of every flow is recomputed each
//!   `tupdate` from its backlog (`fq_pie_timer`: at most 2048 flows per tick; more flows
//!   take further ticks, one jiffy apart, 1 ms at HZ = 1000). Nothing is dropped at
//!   dequeue.
//! - **ECN**: an early drop of an ECN-capable packet is a CE mark while the flow's
//!   probability is at most `ecn_prob` percent.
//! - **Limit**: a packet arriving to `limit` packets in the whole qdisc is dropped;
//!   `memory_limit` only counts, in Linux, how often it was exceeded (`overmemory`, a
//!   statistic): it never drops, so it is read and kept here and changes nothing.

use super::flowq::{self, DrrFlow, FlowLists};
use super::fq_codel;
use super::pie::{self, PieParams, PieVars, Queued, MAX_PROB};
use super::{Backlog, Deq, Mark, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::{Rng, SimTime, MS};
use crate::packet::PktId;
use crate::schema::check::{Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use std::collections::VecDeque;

/// `queue = "fq_pie"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub params: PieParams,
    pub flows: u32,
    pub quantum: u32,
    pub memory_limit: u64,
    /// Percent.
    pub ecn_prob: u32,
}

impl Default for Spec {
    /// `fq_pie_init`'s defaults.
    fn default() -> Spec {
        Spec {
            params: PieParams {
                limit: 10_240,
                ..PieParams::default()
            },
            flows: 1024,
            quantum: 1514,
            memory_limit: 32 << 20,
            ecn_prob: 10,
        }
    }
}

/// The most flows one timer tick recomputes (`fq_pie_timer`).
const FLOWS_PER_TICK: usize = 2048;
/// `mod_timer(jiffies + 0)`: the next tick, at HZ = 1000.
const JIFFY: SimTime = MS;

const QUANTUM: Key = Key {
    name: "quantum",
    ty: Ty::Bytes(1, 1 << 20),
    default: "`1514`",
    allowed: "",
    meaning: "bytes a flow may send per round",
};
const MEMORY_LIMIT: Key = Key {
    name: "memory_limit",
    ty: Ty::Size,
    default: "`\"32MiB\"`",
    allowed: "",
    meaning: "kept for tc's command line: Linux's fq_pie only counts how often memory exceeds it, and drops nothing for it",
};
const ECN_PROB: Key = Key {
    name: "ecn_prob",
    ty: Ty::Int(1, 99),
    default: "`10`",
    allowed: "",
    meaning: "with `ecn`: the drop probability, in percent, up to which an early drop of an ECN-capable packet is a CE mark",
};
const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"10240pkts\"` (Linux `fq_pie_init`: 10 × 1024)",
    allowed: "a packet count, 1 to 4294967295",
    meaning: "the queue limit, in packets (the whole qdisc, all flows)",
};

pub static KEYS: Schema = Schema {
    title: "FQ-PIE",
    place: "an fq_pie queue",
    noun: "queue",
    about: "Flow Queue PIE (Linux `sch_fq_pie`): per-flow queues served by deficit round robin with new flows first, PIE's drop probability per flow; ECN off by default; `limit` in packets (default 10240).",
    keys: &[
        LIMIT,
        fq_codel::FLOWS,
        QUANTUM,
        MEMORY_LIMIT,
        ECN_PROB,
        pie::TARGET,
        pie::TUPDATE,
        pie::ALPHA,
        pie::BETA,
        pie::ECN,
        pie::BYTEMODE,
        pie::DQ_RATE_ESTIMATOR,
    ],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut s = Spec::default();
    pie::parse_params(ck, t, &mut s.params);
    s.params.limit =
        super::codel::packet_limit(ck, t, "fq_pie", 10_240).min(u32::MAX as u64) as u32;
    ck.get_into(t, &fq_codel::FLOWS, &mut s.flows);
    ck.get_into(t, &QUANTUM, &mut s.quantum);
    ck.get_into(t, &MEMORY_LIMIT, &mut s.memory_limit);
    ck.get_into(t, &ECN_PROB, &mut s.ecn_prob);
    Some(s)
}

impl super::QueueSpec {
    /// fq_pie with Linux's defaults.
    pub fn fq_pie() -> super::QueueSpec {
        super::QueueSpec::FqPie(Spec::default())
    }
}

impl QdiscSpec for Spec {
    type Q = Box<FqPie>;
    fn build(&self) -> Box<FqPie> {
        Box::new(FqPie::new(self.clone()))
    }
    fn limit(&self) -> Limit {
        Limit::Packets(self.params.limit as u64)
    }
}

/// `struct fq_pie_flow`.
#[derive(Debug)]
struct Flow {
    q: VecDeque<Queued>,
    backlog: u64,
    deficit: i64,
    vars: PieVars,
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

/// `struct fq_pie_sched_data`.
#[derive(Debug)]
pub struct FqPie {
    p: Spec,
    flows: Vec<Flow>,
    lists: FlowLists,
    bytes: u64,
    pkts: u64,
    /// The next flow the timer recomputes.
    cursor: usize,
    rng: Rng,
}

impl FqPie {
    pub fn new(p: Spec) -> FqPie {
        FqPie {
            flows: (0..p.flows)
                .map(|_| Flow {
                    q: VecDeque::new(),
                    backlog: 0,
                    deficit: 0,
                    vars: PieVars::default(),
                    listed: false,
                })
                .collect(),
            p,
            lists: FlowLists::default(),
            bytes: 0,
            pkts: 0,
            cursor: 0,
            rng: Rng::new(0, 0),
        }
    }

    /// `fq_pie_classify`: `reciprocal_scale(hash, flows)`.
    #[inline]
    fn classify(&self, hash: u32) -> usize {
        flowq::classify(hash, self.p.flows)
    }

    /// Flow `i`'s PIE variables (tests).
    pub fn vars(&self, i: usize) -> &PieVars {
        &self.flows[i].vars
    }
}

impl QueueDisc for FqPie {
    /// `fq_pie_qdisc_enqueue`.
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        let idx = self.classify(m.hash);
        let f = &mut self.flows[idx];
        if self.pkts >= self.p.params.limit as u64 {
            f.vars.accu_prob = 0;
            return Verdict::Drop;
        }
        let ecn_max = (MAX_PROB / 100) * self.p.ecn_prob as u64;
        let v = (f.vars).admit(
            &self.p.params,
            f.backlog,
            m.len,
            m.ecn,
            ecn_max,
            &mut self.rng,
        );
        if v == Verdict::Drop {
            return v;
        }
        f.q.push_back(Queued {
            id,
            len: m.len,
            enqueued: pie::ticks(m.now),
        });
        f.backlog += m.len as u64;
        self.bytes += m.len as u64;
        self.pkts += 1;
        self.lists.activate(f, idx, self.p.quantum as i64);
        v
    }

    /// `fq_pie_qdisc_dequeue`: nothing is dropped here.
    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        let (bytes, pkts, params) = (&mut self.bytes, &mut self.pkts, &self.p.params);
        let got = self
            .lists
            .dequeue(&mut self.flows, self.p.quantum as i64, |f| {
                let h = f.q.pop_front()?;
                *bytes -= h.len as u64;
                *pkts -= 1;
                f.backlog -= h.len as u64;
                let now = pie::ticks(now);
                f.vars
                    .process_dequeue(params, now, h.enqueued, h.len, f.backlog);
                Some((h.id, h.len))
            });
        match got {
            Some(id) => Deq::Packet(id, Mark::None),
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
        self.lists.peek(&self.flows, |f| f.q.front().map(|h| h.len))
    }

    /// `fq_pie_init`: the stream for the drop decisions, and the first update `HZ / 2`
    /// later.
    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.rng = Rng::new(rng.next_u64(), 0);
        Some(pie::FIRST_UPDATE)
    }

    /// `fq_pie_timer`: up to 2048 flows' probabilities, each from its own backlog.
    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        let n = self.flows.len();
        let end = n.min(self.cursor + FLOWS_PER_TICK);
        for f in &mut self.flows[self.cursor..end] {
            f.vars.calculate_probability(&self.p.params, f.backlog);
        }
        self.cursor = end;
        let tupdate = self.p.params.tupdate;
        let next = if self.cursor >= n {
            self.cursor = 0;
            tupdate
        } else {
            JIFFY
        };
        (tupdate > 0).then(|| now.saturating_add(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(hash: u32, now: SimTime) -> PktMeta {
        PktMeta {
            len: 1500,
            hash,
            segs: 1,
            now,
            ..PktMeta::default()
        }
    }

    /// Two flows: the early-drop test reads the arriving packet's flow's backlog and
    /// probability only — a flow with p = 1 and a standing queue drops, the other flow
    /// (p = 0, its own queue short) does not.
    #[test]
    fn each_flow_has_its_own_pie() {
        let mut q = FqPie::new(Spec::default());
        let (a, b) = (0u32, u32::MAX);
        let (ia, ib) = (q.classify(a), q.classify(b));
        assert_ne!(ia, ib);
        for id in 0..4 {
            assert_eq!(q.enqueue(id, &meta(a, 0)), Verdict::ENQUEUE);
        }
        let f = &mut q.flows[ia].vars;
        f.burst_time = 0;
        f.prob = MAX_PROB;
        f.qdelay = pie::ticks(20 * MS);
        assert_eq!(q.enqueue(10, &meta(a, 0)), Verdict::Drop);
        assert_eq!(q.enqueue(11, &meta(b, 0)), Verdict::ENQUEUE);
        assert_eq!(q.backlog().pkts, 5);
    }

    /// The timer recomputes every flow from its own backlog: after 20 ms of sojourn in
    /// flow a (measured at its dequeue) and none in flow b, an update raises a's
    /// probability (by PIE-2's arithmetic: 20 ms, from p = 0) and leaves b's at 0; the
    /// next timer is tupdate later (1024 flows fit one tick); with 3000 flows the first
    /// tick takes 2048 and asks for the next one jiffy later.
    #[test]
    fn the_timer_updates_every_flow() {
        let mut q = FqPie::new(Spec::default());
        let (a, b) = (0u32, u32::MAX);
        let (ia, ib) = (q.classify(a), q.classify(b));
        for id in 0..10 {
            q.enqueue(id, &meta(a, 0));
        }
        q.enqueue(20, &meta(b, 20 * MS));
        // Dequeue at 20 ms: new flows in order, a first while its quantum lasts (two
        // packets, sojourn 20 ms), then b.
        let mut drops = Vec::new();
        for id in [0, 1, 20] {
            assert_eq!(q.dequeue(20 * MS, &mut drops), Deq::Packet(id, Mark::None));
        }
        assert_eq!(q.start(&mut Rng::new(3, 4)), Some(500 * MS));
        assert_eq!(q.on_timer(500 * MS), Some(515 * MS));
        let mut want = PieVars {
            qdelay: pie::ticks(20 * MS),
            ..PieVars::default()
        };
        want.calculate_probability(&q.p.params, 8 * 1500);
        assert!(want.prob > 0);
        assert_eq!(q.vars(ia).prob, want.prob);
        assert_eq!(q.vars(ib).prob, 0);
        let mut big = FqPie::new(Spec {
            flows: 3000,
            ..Spec::default()
        });
        assert_eq!(big.on_timer(500 * MS), Some(501 * MS));
        assert_eq!(big.on_timer(501 * MS), Some(516 * MS));
    }

    /// With ecn and ecn_prob 10: an ECT packet's early drop is a mark while its flow's p
    /// ≤ 10%, a drop above.
    #[test]
    fn ecn_prob_bounds_marking() {
        let mut q = FqPie::new(Spec {
            params: PieParams {
                ecn: true,
                limit: 10_240,
                ..PieParams::default()
            },
            ..Spec::default()
        });
        let ect = |now| PktMeta {
            ecn: crate::packet::ECT0,
            ..meta(0, now)
        };
        for id in 0..3 {
            q.enqueue(id, &ect(0));
        }
        let i = q.classify(0);
        let v = &mut q.flows[i].vars;
        v.burst_time = 0;
        v.qdelay = pie::ticks(20 * MS);
        // (MAX_PROB / 100) · 10, 3 below MAX_PROB / 10: the kernel's bound.
        v.prob = (MAX_PROB / 100) * 10;
        v.accu_prob = MAX_PROB * 9;
        assert_eq!(q.enqueue(5, &ect(0)), Verdict::MARK_CE);
        q.flows[i].vars.prob = MAX_PROB / 10;
        assert_eq!(q.enqueue(6, &ect(0)), Verdict::Drop);
    }
}
