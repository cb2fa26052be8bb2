//! `queue = "fq"`: Linux's fair-queueing packet scheduler for hosts (`net/sched/sch_fq.c`
//! as in Linux 4.20 – 6.6, the EDT era before 6.7's three priority bands; tc-fq(8);
//! REFERENCE.md §10). Mostly a host qdisc: it holds each packet until its earliest
//! departure time (`PktMeta::edt`, TCP's EDT stamp), which is how TCP's pacing is enforced
//! when fq is the root qdisc (`SK_PACING_FQ`), and it serves flows round robin.
//!
//! - **Flows** are the connections (`PktMeta::hash`; Linux keys them by socket), each with
//!   its packets in order, a credit in bytes and `time_next_packet`.
//! - **Enqueue** (`fq_enqueue`): drop when the qdisc holds `limit` packets or the flow
//!   `flow_limit`; a packet stamped beyond `now + horizon` is dropped (`horizon_drop`, the
//!   default) or its stamp capped. The time it may leave is its stamp, or now without one.
//!   A new flow starts with `initial_quantum` of credit; a flow that comes back after more
//!   than `refill_delay` detached gets at least `quantum`.
//! - **Dequeue** (`fq_dequeue`): new flows first, then old flows (deficit round robin): a
//!   flow out of credit gets `quantum` more and goes to the back of the old flows; a flow
//!   whose head may not leave yet (max of its stamp and the flow's `time_next_packet`) is
//!   set aside (throttled) until then; an empty new flow moves to the old flows if there
//!   are any (anti-starvation), else it is detached. When only throttled flows hold
//!   packets, the answer is "not before" the earliest of them (Linux arms its watchdog; the
//!   10 µs `timer_slack` is not modelled: the port wakes exactly then).
//! - **fq's own rate limit** (`maxrate`, `low_rate_threshold`): after a packet, a flow is
//!   delayed by its length at `maxrate` (for packets without a stamp, by at least
//!   `quantum` once its credit is spent, or its length alone below the low-rate
//!   threshold), at most 1 s, less half of any lateness. The socket's own pacing rate,
//!   which Linux also applies to unstamped packets of a local socket, is carried here by
//!   the stamps instead (TCP stamps every packet it paces).
//! - **ce_threshold**: a packet that leaves more than this after it could have is marked CE
//!   (if ECT).
//!
//! Not modelled: flow garbage collection (flows are kept for the run), the per-flow rb-tree
//! for out-of-order stamps (one socket's stamps never go back in time), `orphan_mask`.

use super::{Backlog, Deq, Mark, PktMeta, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::{SimTime, MS, SEC};
use crate::net::packet::{PktId, NOT_ECT};
use crate::scenario::check::{join, Checker, Tab};
use crate::scenario::schema::{Key, Schema, Ty};
use crate::scenario::Limit;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// `queue = "fq"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// Packets.
    pub limit: u64,
    pub flow_limit: u32,
    pub quantum: u32,
    pub initial_quantum: u32,
    /// bit/s; `None` = unlimited.
    pub maxrate: Option<u64>,
    pub horizon: SimTime,
    pub horizon_drop: bool,
    pub ce_threshold: Option<SimTime>,
    pub refill_delay: SimTime,
    /// bit/s.
    pub low_rate_threshold: u64,
}

/// `psched_mtu` on Ethernet: 1500 + 14.
const PSCHED_MTU: u32 = 1514;

impl Default for Spec {
    /// `fq_init`'s defaults.
    fn default() -> Spec {
        Spec {
            limit: 10_000,
            flow_limit: 100,
            quantum: 2 * PSCHED_MTU,
            initial_quantum: 10 * PSCHED_MTU,
            maxrate: None,
            horizon: 10 * SEC,
            horizon_drop: true,
            ce_threshold: None,
            refill_delay: 40 * MS,
            low_rate_threshold: 550_000,
        }
    }
}

const FLOW_LIMIT: Key = Key {
    name: "flow_limit",
    ty: Ty::Int(1, u32::MAX as i64),
    default: "`100`",
    allowed: "",
    meaning: "packets one flow may hold; more are dropped",
};
const QUANTUM: Key = Key {
    name: "quantum",
    ty: Ty::Bytes(1, u32::MAX as u64),
    default: "`3028` (2 × 1514)",
    allowed: "",
    meaning: "bytes a flow may send per round",
};
const INITIAL_QUANTUM: Key = Key {
    name: "initial_quantum",
    ty: Ty::Bytes(0, u32::MAX as u64),
    default: "`15140` (10 × 1514)",
    allowed: "",
    meaning: "credit of a new flow",
};
const MAXRATE: Key = Key {
    name: "maxrate",
    ty: Ty::Rate,
    default: "unlimited",
    allowed: "",
    meaning: "the most any one flow may send (fq `maxrate`)",
};
const HORIZON: Key = Key {
    name: "horizon",
    ty: Ty::Interval,
    default: "`\"10s\"`",
    allowed: "",
    meaning: "a packet stamped to leave later than this from now is dropped (or, with `horizon_drop = false`, its stamp capped)",
};
const HORIZON_DROP: Key = Key {
    name: "horizon_drop",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "drop packets beyond the horizon (else cap their stamp)",
};
const CE_THRESHOLD: Key = Key {
    name: "ce_threshold",
    ty: Ty::Interval,
    default: "off",
    allowed: "",
    meaning: "mark ECT packets CE when they leave more than this after they could have",
};
const REFILL_DELAY: Key = Key {
    name: "refill_delay",
    ty: Ty::Time,
    default: "`\"40ms\"`",
    allowed: "",
    meaning:
        "a flow detached for longer gets at least `quantum` of credit back (fq `flow_refill_delay`)",
};
const LOW_RATE: Key = Key {
    name: "low_rate_threshold",
    ty: Ty::Rate,
    default: "`\"550kbit\"`",
    allowed: "",
    meaning: "below this `maxrate`, flows are delayed packet by packet, not by quantum",
};

pub static KEYS: Schema = Schema {
    title: "Fair queueing (fq)",
    place: "an fq queue",
    noun: "queue",
    about: "Linux's `sch_fq`: per-flow round robin that holds each packet until its earliest departure time (TCP's pacing stamps); `limit` is in packets (default 10000).",
    keys: &[
        super::droptail::LIMIT,
        FLOW_LIMIT,
        QUANTUM,
        INITIAL_QUANTUM,
        MAXRATE,
        HORIZON,
        HORIZON_DROP,
        CE_THRESHOLD,
        REFILL_DELAY,
        LOW_RATE,
    ],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut s = Spec::default();
    if let Some(l) = ck.get::<Limit>(t, &super::droptail::LIMIT) {
        match l {
            Limit::Packets(n) if n > 0 => s.limit = n,
            _ => ck.err(
                &join(t.path, "limit"),
                t.t.get("limit"),
                "fq's limit is a packet count of at least 1 (e.g. \"10000pkts\")".into(),
            ),
        }
    }
    ck.get_into(t, &FLOW_LIMIT, &mut s.flow_limit);
    ck.get_into(t, &QUANTUM, &mut s.quantum);
    ck.get_into(t, &INITIAL_QUANTUM, &mut s.initial_quantum);
    s.maxrate = ck.get(t, &MAXRATE);
    ck.get_into(t, &HORIZON, &mut s.horizon);
    ck.get_into(t, &HORIZON_DROP, &mut s.horizon_drop);
    s.ce_threshold = ck.get(t, &CE_THRESHOLD);
    ck.get_into(t, &REFILL_DELAY, &mut s.refill_delay);
    ck.get_into(t, &LOW_RATE, &mut s.low_rate_threshold);
    Some(s)
}

impl QueueSpec {
    /// `fq` with tc's defaults.
    pub fn fq() -> QueueSpec {
        QueueSpec::Fq(Spec::default())
    }
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<Fq>;
    fn build(&self) -> Box<Fq> {
        Box::new(self.build_unboxed())
    }
    fn limit(&self) -> Limit {
        self.limit_of()
    }
}

impl Spec {
    fn build_unboxed(&self) -> Fq {
        Fq {
            p: self.clone(),
            flows: Vec::new(),
            buckets: vec![Vec::new(); BUCKETS],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            throttled: BinaryHeap::new(),
            bytes: 0,
            pkts: 0,
        }
    }
    fn limit_of(&self) -> Limit {
        Limit::Packets(self.limit)
    }
}

/// fq's hash table size (`fq_flow_hash_log` 10).
const BUCKETS: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    Detached,
    New,
    Old,
    Throttled,
}

/// A queued packet: its id, length, ECN codepoint, whether it carried a departure stamp,
/// and the time it may leave (`time_to_send`).
#[derive(Debug, Clone, Copy)]
struct Held {
    id: PktId,
    len: u32,
    ecn: u8,
    stamped: bool,
    tts: SimTime,
}

#[derive(Debug)]
struct Flow {
    hash: u32,
    q: VecDeque<Held>,
    credit: i64,
    time_next_packet: SimTime,
    /// When it was last detached.
    age: SimTime,
    at: Where,
}

/// `struct fq_sched_data`.
#[derive(Debug)]
pub struct Fq {
    p: Spec,
    flows: Vec<Flow>,
    /// Flow indices by hash bucket.
    buckets: Vec<Vec<u32>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    /// (time_next_packet, flow): the throttled flows, earliest first.
    throttled: BinaryHeap<Reverse<(SimTime, u32)>>,
    bytes: u64,
    pkts: u64,
}

impl Fq {
    /// `fq_classify`: the flow of `hash`, created with `initial_quantum` of credit.
    fn classify(&mut self, hash: u32) -> usize {
        let b = (hash as usize) & (BUCKETS - 1);
        if let Some(&f) = self.buckets[b]
            .iter()
            .find(|&&f| self.flows[f as usize].hash == hash)
        {
            return f as usize;
        }
        let f = self.flows.len();
        self.flows.push(Flow {
            hash,
            q: VecDeque::new(),
            credit: self.p.initial_quantum as i64,
            time_next_packet: 0,
            age: 0,
            at: Where::Detached,
        });
        self.buckets[b].push(f as u32);
        f
    }

    /// `fq_check_throttled`: flows whose time has come go to the back of the old flows.
    fn unthrottle(&mut self, now: SimTime) {
        while let Some(&Reverse((t, f))) = self.throttled.peek() {
            if t > now {
                break;
            }
            self.throttled.pop();
            let fl = &mut self.flows[f as usize];
            if fl.at == Where::Throttled && fl.time_next_packet == t {
                fl.at = Where::Old;
                self.old_flows.push_back(f);
            }
        }
    }
}

impl QueueDisc for Fq {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.pkts >= self.p.limit {
            return Verdict::Drop;
        }
        let mut t = m.now;
        if m.edt > 0 {
            if m.edt > m.now + self.p.horizon {
                if self.p.horizon_drop {
                    return Verdict::Drop;
                }
                t = m.now + self.p.horizon;
            } else {
                t = m.edt;
            }
        }
        let f = self.classify(m.hash);
        let refill = self.p.refill_delay;
        let quantum = self.p.quantum as i64;
        let fl = &mut self.flows[f];
        if fl.q.len() as u32 >= self.p.flow_limit {
            return Verdict::Drop;
        }
        if fl.at == Where::Detached {
            fl.at = Where::New;
            if m.now > fl.age + refill {
                fl.credit = fl.credit.max(quantum);
            }
            self.new_flows.push_back(f as u32);
        }
        fl.q.push_back(Held {
            id,
            len: m.len,
            ecn: m.ecn,
            stamped: m.edt > 0,
            tts: t,
        });
        self.bytes += m.len as u64;
        self.pkts += 1;
        Verdict::ENQUEUE
    }

    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        if self.pkts == 0 {
            return Deq::Empty;
        }
        self.unthrottle(now);
        loop {
            let from_new = !self.new_flows.is_empty();
            let Some(&f) = (if from_new {
                self.new_flows.front()
            } else {
                self.old_flows.front()
            }) else {
                // Only throttled flows hold packets.
                let Reverse((t, _)) = *self.throttled.peek().expect("packets are somewhere");
                return Deq::NotBefore(t);
            };
            let fu = f as usize;
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            let fl = &mut self.flows[fu];
            if fl.credit <= 0 {
                fl.credit += self.p.quantum as i64;
                list.pop_front();
                fl.at = Where::Old;
                self.old_flows.push_back(f);
                continue;
            }
            let Some(&Held { tts, .. }) = fl.q.front() else {
                // An empty flow: a new one joins the old flows if there are any
                // (anti-starvation), else it is detached.
                list.pop_front();
                if from_new && !self.old_flows.is_empty() {
                    fl.at = Where::Old;
                    self.old_flows.push_back(f);
                } else {
                    fl.at = Where::Detached;
                    fl.age = now;
                }
                continue;
            };
            let next = tts.max(fl.time_next_packet);
            if now < next {
                list.pop_front();
                fl.time_next_packet = next;
                fl.at = Where::Throttled;
                self.throttled.push(Reverse((next, f)));
                continue;
            }
            let mark = match self.p.ce_threshold {
                Some(ce) if now > next + ce => Mark::Ce,
                _ => Mark::None,
            };
            let h = fl.q.pop_front().unwrap();
            let mark = if h.ecn == NOT_ECT { Mark::None } else { mark };
            self.bytes -= h.len as u64;
            self.pkts -= 1;
            fl.credit -= h.len as i64;
            // fq's own rate limit: only `maxrate` here (see the module comment). A stamped
            // packet is delayed by its own length at the rate; an unstamped one by at least
            // a quantum once the flow's credit is spent, or its length below the low-rate
            // threshold.
            if let Some(rate_bps) = self.p.maxrate {
                let mut plen = h.len as u64;
                let mut delay = true;
                if !h.stamped {
                    if rate_bps <= self.p.low_rate_threshold {
                        fl.credit = 0;
                    } else {
                        plen = plen.max(self.p.quantum as u64);
                        delay = fl.credit <= 0;
                    }
                }
                if delay {
                    let ns = (plen * 8_000_000_000)
                        .checked_div(rate_bps)
                        .unwrap_or(1_000_000_000)
                        .min(1_000_000_000);
                    let mut len = ns * 1000;
                    if fl.time_next_packet > 0 {
                        len -= (len / 2).min(now - fl.time_next_packet);
                    }
                    fl.time_next_packet = now + len;
                }
            }
            let id = h.id;
            return Deq::Packet(id, mark);
        }
    }

    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.pkts,
        }
    }

    fn peek_len(&self) -> Option<u32> {
        self.new_flows
            .iter()
            .chain(self.old_flows.iter())
            .find_map(|&f| self.flows[f as usize].q.front().map(|h| h.len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::US;
    use crate::net::packet::ECT0;

    fn meta(hash: u32, len: u32, edt: SimTime, now: SimTime) -> PktMeta {
        PktMeta {
            len,
            hash,
            edt,
            now,
            segs: 1,
            ..Default::default()
        }
    }

    /// Take everything out of `q` from `t`, on a transmitter that is always free:
    /// (packet, time it left).
    fn drain(q: &mut Fq, mut t: SimTime) -> Vec<(PktId, SimTime)> {
        let mut out = Vec::new();
        let mut drops = Vec::new();
        loop {
            match q.dequeue(t, &mut drops) {
                Deq::Packet(id, _) => out.push((id, t)),
                Deq::NotBefore(x) => t = x,
                Deq::Empty => return out,
            }
        }
    }

    /// PACE-2 through fq: a paced flow's skbs stamped 521.28 µs apart leave exactly then,
    /// and an unpaced flow's packets queued behind them are not held up by them.
    #[test]
    fn stamped_packets_leave_at_their_time_and_others_pass() {
        let mut q = Spec::default().build();
        let t0 = 1000 * US;
        for k in 0..5u32 {
            q.enqueue(k, &meta(1, 65_160, t0 + k as u64 * 521_280_000, t0));
        }
        for k in 10..13u32 {
            q.enqueue(k, &meta(2, 1500, 0, t0));
        }
        let out = drain(&mut q, t0);
        let paced: Vec<SimTime> = out.iter().filter(|o| o.0 < 10).map(|o| o.1 - t0).collect();
        assert_eq!(paced, (0..5).map(|k| k * 521_280_000).collect::<Vec<_>>());
        // The unpaced flow's three packets all leave at t0.
        let other: Vec<SimTime> = out.iter().filter(|o| o.0 >= 10).map(|o| o.1).collect();
        assert_eq!(other, vec![t0; 3]);
    }

    /// Deficit round robin: two backlogged flows of 1514-byte packets. Each starts with
    /// initial_quantum 15,140 B of credit: flow A sends 10 packets (credit 15,140 − 10 ×
    /// 1514 = 0), then flow B its 10; from then on each gets quantum 3028 = 2 packets per
    /// round: A A B B A A B B …
    #[test]
    fn flows_alternate_by_quantum_after_their_initial_credit() {
        let mut q = Spec::default().build();
        for k in 0..30u32 {
            q.enqueue(k, &meta(1, 1514, 0, 0));
            q.enqueue(100 + k, &meta(2, 1514, 0, 0));
        }
        let out = drain(&mut q, 0);
        let flows: String = out
            .iter()
            .take(28)
            .map(|o| if o.0 < 100 { 'A' } else { 'B' })
            .collect();
        assert_eq!(flows, "AAAAAAAAAABBBBBBBBBBAABBAABB");
    }

    /// flow_limit: the 101st packet of one flow is dropped, while another flow's packet is
    /// taken; the horizon drops a packet stamped 11 s ahead.
    #[test]
    fn flow_limit_and_horizon() {
        let mut q = Spec::default().build();
        for k in 0..100u32 {
            assert_eq!(q.enqueue(k, &meta(1, 1500, 0, 0)), Verdict::ENQUEUE);
        }
        assert_eq!(q.enqueue(100, &meta(1, 1500, 0, 0)), Verdict::Drop);
        assert_eq!(q.enqueue(101, &meta(2, 1500, 0, 0)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(102, &meta(3, 1500, 11 * SEC, 0)), Verdict::Drop);
        assert_eq!(q.enqueue(103, &meta(3, 1500, 9 * SEC, 0)), Verdict::ENQUEUE);
    }

    /// maxrate 12.112 Mbit/s is 1514 B per ms: a flow's stamped 1514-byte packets leave 1 ms
    /// apart (each delays the flow by its own length at the rate).
    #[test]
    fn maxrate_spaces_a_flow() {
        let mut q = Spec {
            maxrate: Some(12_112_000),
            ..Spec::default()
        }
        .build();
        let t0 = 5 * MS;
        for k in 0..4u32 {
            q.enqueue(k, &meta(1, 1514, t0, t0));
        }
        let t: Vec<SimTime> = drain(&mut q, t0).iter().map(|o| o.1 - t0).collect();
        assert_eq!(t, vec![0, MS, 2 * MS, 3 * MS]);
    }

    /// ce_threshold 1 ms: an ECT packet leaving 2 ms after it could is marked; one leaving
    /// on time is not; a Not-ECT one never.
    #[test]
    fn ce_threshold_marks_late_ect_packets() {
        let mut q = Spec {
            ce_threshold: Some(MS),
            ..Spec::default()
        }
        .build();
        let mut m = meta(1, 1500, 0, 0);
        m.ecn = ECT0;
        q.enqueue(1, &m);
        q.enqueue(2, &meta(2, 1500, 0, 0));
        let mut drops = Vec::new();
        assert_eq!(q.dequeue(2 * MS, &mut drops), Deq::Packet(1, Mark::Ce));
        assert_eq!(q.dequeue(2 * MS, &mut drops), Deq::Packet(2, Mark::None));
        m.now = 2 * MS;
        q.enqueue(3, &m);
        assert_eq!(q.dequeue(2 * MS, &mut drops), Deq::Packet(3, Mark::None));
    }
}
