//! `queue = "codel"`: Controlled Delay (RFC 8289) as Linux implements it
//! (`include/net/codel.h`, `codel_impl.h`, `net/sched/sch_codel.c`, Linux 4.x – 6.x;
//! docs/references.md §6.2, §11). The state machine ([`CodelVars::dequeue`]) is shared with
//! `fq_codel`, which runs one per flow.
//!
//! - Time in Linux's `codel_time_t` units of 1024 ns (`ns >> 10`, 32 bits): target 5 ms
//!   = 4882, interval 100 ms = 97,656 units.
//! - At dequeue, a packet's sojourn time is compared with `target`; below it, or with no
//!   more than one MTU (`psched_mtu`, 1514 B) left in the whole qdisc, the queue is fine.
//!   Above it continuously for `interval`, CoDel enters dropping: it drops (or, with
//!   `ecn`, CE-marks an ECT packet instead) and schedules the next drop at
//!   `interval / sqrt(count)` (`codel_control_law`, with 1/sqrt(count) kept in Q0.16 and
//!   refined by one Newton step per change, `codel_Newton_step`).
//! - Re-entering the dropping state soon after leaving it (within 16 intervals of the last
//!   scheduled drop, with count − lastcount > 1) resumes at count − lastcount.
//! - `ce_threshold`: ECT packets whose sojourn exceeds it are CE-marked (off by default).
//! - Plain `codel` has tc's defaults: limit 1000 packets, ECN off.

use super::{Backlog, Deq, Mark, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::{SimTime, MS};
use crate::packet::{PktId, NOT_ECT};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use std::collections::VecDeque;

/// `codel_time_t`: ns >> 10, as a wrapping 32-bit count.
pub type CodelTime = u32;

/// Simulator time (ps) to `codel_time_t`.
#[inline]
pub fn codel_time(t: SimTime) -> CodelTime {
    ((t / 1000) >> 10) as CodelTime
}

#[inline]
fn after(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}
#[inline]
fn after_eq(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}
#[inline]
fn before(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `struct codel_params`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: CodelTime,
    pub interval: CodelTime,
    /// Bytes: with no more than this left in the qdisc, no drop.
    pub mtu: u32,
    pub ecn: bool,
    pub ce_threshold: Option<CodelTime>,
}

impl CodelParams {
    /// `codel_params_init`: target 5 ms, interval 100 ms, psched_mtu 1514.
    pub fn linux(ecn: bool) -> CodelParams {
        CodelParams {
            target: codel_time(5 * MS),
            interval: codel_time(100 * MS),
            mtu: 1514,
            ecn,
            ce_threshold: None,
        }
    }
}

/// `REC_INV_SQRT_SHIFT`: 1/sqrt(count) is kept in 16 bits.
const REC_INV_SQRT_SHIFT: u32 = 16;

/// `struct codel_vars`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelVars {
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
    pub rec_inv_sqrt: u16,
    pub first_above_time: CodelTime,
    pub drop_next: CodelTime,
    pub ldelay: CodelTime,
}

/// A queued packet as CoDel sees it.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub id: PktId,
    pub len: u32,
    pub ecn: u8,
    pub enqueued: CodelTime,
}

/// What `CodelVars::dequeue` needs from the queue it manages.
pub trait CodelQueue {
    /// Take the head, removing its bytes from the qdisc's backlog.
    fn pop(&mut self) -> Option<Queued>;
    /// Bytes left in the whole qdisc.
    fn backlog_bytes(&self) -> u64;
}

impl CodelVars {
    /// `codel_Newton_step`.
    fn newton_step(&mut self) {
        let invsqrt = (self.rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
        let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
        let mut val = (3u64 << 32).wrapping_sub(self.count as u64 * invsqrt2 as u64);
        val >>= 2;
        val = (val * invsqrt as u64) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> REC_INV_SQRT_SHIFT) as u16;
    }

    /// `codel_control_law`: t + interval / sqrt(count).
    fn control_law(&self, t: CodelTime, interval: CodelTime) -> CodelTime {
        let ep = (self.rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
        t.wrapping_add(((interval as u64 * ep as u64) >> 32) as u32)
    }

    /// `codel_should_drop`, for the packet just taken (its bytes already out of the
    /// backlog).
    fn should_drop(
        &mut self,
        p: Option<&Queued>,
        q: &impl CodelQueue,
        cp: &CodelParams,
        now: CodelTime,
    ) -> bool {
        let Some(p) = p else {
            self.first_above_time = 0;
            return false;
        };
        self.ldelay = now.wrapping_sub(p.enqueued);
        if before(self.ldelay, cp.target) || q.backlog_bytes() <= cp.mtu as u64 {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now.wrapping_add(cp.interval);
            false
        } else {
            after(now, self.first_above_time)
        }
    }

    /// `codel_dequeue`: the next packet to send and its mark; dropped packets go into
    /// `drops`.
    pub fn dequeue(
        &mut self,
        q: &mut impl CodelQueue,
        cp: &CodelParams,
        now: SimTime,
        drops: &mut Vec<PktId>,
    ) -> Option<(Queued, Mark)> {
        let mut p = q.pop();
        if p.is_none() {
            self.dropping = false;
            return None;
        }
        let now = codel_time(now);
        let mut mark = Mark::None;
        let mut drop = self.should_drop(p.as_ref(), q, cp, now);
        'end: {
            if self.dropping {
                if !drop {
                    self.dropping = false;
                } else if after_eq(now, self.drop_next) {
                    while self.dropping && after_eq(now, self.drop_next) {
                        self.count = self.count.wrapping_add(1);
                        self.newton_step();
                        let cur = p.expect("a packet");
                        if cp.ecn && cur.ecn != NOT_ECT {
                            mark = Mark::Ce;
                            self.drop_next = self.control_law(self.drop_next, cp.interval);
                            break 'end;
                        }
                        drops.push(cur.id);
                        p = q.pop();
                        if !self.should_drop(p.as_ref(), q, cp, now) {
                            self.dropping = false;
                        } else {
                            self.drop_next = self.control_law(self.drop_next, cp.interval);
                        }
                    }
                }
            } else if drop {
                let cur = p.expect("a packet");
                if cp.ecn && cur.ecn != NOT_ECT {
                    mark = Mark::Ce;
                } else {
                    drops.push(cur.id);
                    p = q.pop();
                    drop = self.should_drop(p.as_ref(), q, cp, now);
                    let _ = drop;
                }
                self.dropping = true;
                let delta = self.count.wrapping_sub(self.lastcount);
                if delta > 1 && before(now.wrapping_sub(self.drop_next), 16 * cp.interval) {
                    self.count = delta;
                    self.newton_step();
                } else {
                    self.count = 1;
                    self.rec_inv_sqrt = (!0u32 >> REC_INV_SQRT_SHIFT) as u16;
                }
                self.lastcount = self.count;
                self.drop_next = self.control_law(now, cp.interval);
            }
        }
        let p = p?;
        if mark == Mark::None {
            if let Some(ce) = cp.ce_threshold {
                if after(self.ldelay, ce) && p.ecn != NOT_ECT {
                    mark = Mark::Ce;
                }
            }
        }
        Some((p, mark))
    }
}

/// `queue = "codel"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub params: CodelParams,
    /// Packets.
    pub limit: u64,
}

pub const TARGET: Key = Key {
    name: "target",
    ty: Ty::Interval,
    default: "`\"5ms\"`",
    allowed: "",
    meaning: "acceptable standing queue delay (CoDel `target`)",
};
pub const INTERVAL: Key = Key {
    name: "interval",
    ty: Ty::Interval,
    default: "`\"100ms\"`",
    allowed: "",
    meaning: "how long the delay must stay above target before dropping starts (CoDel `interval`)",
};
pub const ECN: Key = Key {
    name: "ecn",
    ty: Ty::Bool,
    default: "`false` (codel), `true` (fq_codel)",
    allowed: "",
    meaning: "mark ECT packets CE instead of dropping them",
};
pub const CE_THRESHOLD: Key = Key {
    name: "ce_threshold",
    ty: Ty::Interval,
    default: "off",
    allowed: "",
    meaning: "CE-mark ECT packets whose sojourn time exceeds this",
};

pub static KEYS: Schema = Schema {
    title: "CoDel",
    place: "a codel queue",
    noun: "queue",
    about: "Controlled Delay (RFC 8289, Linux `sch_codel`): drops (or CE-marks) at dequeue once the sojourn time has stayed above `target` for `interval`, then at interval/√count; `limit` in packets (default 1000).",
    keys: &[LIMIT, TARGET, INTERVAL, ECN, CE_THRESHOLD],
    with: &[],
    variants: None,
};

/// Read target, interval, ecn and ce_threshold into `p`.
pub fn parse_params(ck: &mut Checker, t: Tab, p: &mut CodelParams) {
    if let Some(x) = ck.get::<SimTime>(t, &TARGET) {
        p.target = codel_time(x);
    }
    if let Some(x) = ck.get::<SimTime>(t, &INTERVAL) {
        p.interval = codel_time(x);
    }
    ck.get_into(t, &ECN, &mut p.ecn);
    if let Some(x) = ck.get::<SimTime>(t, &CE_THRESHOLD) {
        p.ce_threshold = Some(codel_time(x));
    }
}

/// A packet limit from the shared `limit` key (`what` names the discipline).
/// CoDel's `limit`: packets, Linux's default on a link and in a queue table alike.
pub const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"1000pkts\"` (Linux `sch_codel`: `DEFAULT_CODEL_LIMIT`)",
    allowed: "a packet count, 1 to 4294967295",
    meaning: "the queue limit, in packets",
};

/// The `limit` of a discipline that counts packets (codel, fq_codel, pie, fq_pie, dualpi2):
/// 1 to 2³² − 1, as tc's `get_u32` reads it into the u32 `TCA_*_LIMIT` (`sch->limit`).
pub fn packet_limit(ck: &mut Checker, t: Tab, what: &str, default: u64) -> u64 {
    match ck.get::<Limit>(t, &super::droptail::LIMIT) {
        None => default,
        Some(Limit::Packets(n)) if n > 0 && n <= u32::MAX as u64 => n,
        Some(_) => {
            ck.err(
                &join(t.path, "limit"),
                t.t.get("limit"),
                format!("{what}'s limit is a packet count from 1 to 4294967295 (tc passes a u32), e.g. \"{default}pkts\""),
            );
            default
        }
    }
}

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut params = CodelParams::linux(false);
    parse_params(ck, t, &mut params);
    let limit = packet_limit(ck, t, "codel", 1000);
    Some(Spec { params, limit })
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<Codel>;
    fn build(&self) -> Box<Codel> {
        Box::new(self.build_unboxed())
    }
    fn limit(&self) -> Limit {
        self.limit_of()
    }
}

impl Spec {
    fn build_unboxed(&self) -> Codel {
        Codel {
            p: self.params,
            limit: self.limit,
            vars: CodelVars::default(),
            q: Fifo::default(),
        }
    }
    fn limit_of(&self) -> Limit {
        Limit::Packets(self.limit)
    }
}

/// Packets with their enqueue times, and the qdisc's backlog.
#[derive(Debug, Default)]
pub struct Fifo {
    q: VecDeque<Queued>,
    bytes: u64,
}

impl CodelQueue for Fifo {
    fn pop(&mut self) -> Option<Queued> {
        let p = self.q.pop_front()?;
        self.bytes -= p.len as u64;
        Some(p)
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
}

/// `sch_codel`: one FIFO under CoDel.
#[derive(Debug)]
pub struct Codel {
    pub p: CodelParams,
    pub limit: u64,
    pub vars: CodelVars,
    q: Fifo,
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.q.q.len() as u64 >= self.limit {
            return Verdict::Drop;
        }
        self.q.q.push_back(Queued {
            id,
            len: m.len,
            ecn: m.ecn,
            enqueued: codel_time(m.now),
        });
        self.q.bytes += m.len as u64;
        Verdict::ENQUEUE
    }
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        match self.vars.dequeue(&mut self.q, &self.p, now, drops) {
            Some((p, mark)) => Deq::Packet(p.id, mark),
            None => Deq::Empty,
        }
    }
    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.q.bytes,
            pkts: self.q.q.len() as u64,
        }
    }
    fn peek_len(&self) -> Option<u32> {
        self.q.q.front().map(|p| p.len)
    }
    /// `codel_reset` (the link went down): the queue flushed without CoDel's dequeue
    /// (`qdisc_reset_queue`: no drop decision, no state change on the way) and the state
    /// zeroed (`codel_vars_init`: a memset).
    fn reset(&mut self, _now: SimTime, drops: &mut Vec<PktId>) {
        drops.extend(self.q.q.drain(..).map(|p| p.id));
        self.q.bytes = 0;
        self.vars = CodelVars::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::US;

    /// A queue that always holds a standing backlog whose head waited `sojourn`: packets
    /// of 1500 B enqueued `sojourn` before each dequeue, 10 packets behind it.
    struct Standing {
        sojourn: SimTime,
        now: SimTime,
        next: PktId,
        backlog: u64,
    }
    impl CodelQueue for Standing {
        fn pop(&mut self) -> Option<Queued> {
            self.next += 1;
            Some(Queued {
                id: self.next,
                len: 1500,
                ecn: NOT_ECT,
                enqueued: codel_time(self.now - self.sojourn),
            })
        }
        fn backlog_bytes(&self) -> u64 {
            self.backlog
        }
    }

    /// Drop times (ms since the sojourn first exceeded target) with one dequeue every
    /// `step` for `until`.
    fn drop_times(v: &mut CodelVars, q: &mut Standing, from: SimTime, until: SimTime) -> Vec<f64> {
        let cp = CodelParams::linux(false);
        let step = 100 * US;
        let mut out = Vec::new();
        let mut t = from;
        while t < until {
            q.now = t;
            let mut drops = Vec::new();
            v.dequeue(q, &cp, t, &mut drops);
            for _ in drops {
                out.push((t - from) as f64 / 1e9);
            }
            t += step;
        }
        out
    }

    /// CD-1: a persistent sojourn of 10 ms (> 5 ms target): the first drop comes one
    /// interval (100 ms) after the sojourn was first seen above target, then at
    /// interval · rec_inv_sqrt(count). RFC 8289's control law is interval/√count (gaps 100,
    /// 70.7, 57.7, 50, 44.7 ms: docs/references.md CD-1), but Linux refines 1/√count by
    /// one Newton step per drop, x' = x(3 − count·x²)/2, starting from x = 1 at count 1, so
    /// by hand:
    /// count 2: 1·(3 − 2)/2 = 0.5; 3: 0.5·(3 − 0.75)/2 = 0.5625; 4: 0.5625·(3 −
    /// 1.2656)/2 = 0.4878; 5: 0.4878·(3 − 1.1897)/2 = 0.4415; 6: 0.4415·(3 −
    /// 1.1697)/2 = 0.4041 — gaps of 100, 50, 56.25, 48.78, 44.15, 40.41 ms. That is what this
    /// (Linux's) CoDel must give; tolerance 0.2 ms for the 1024-ns clock, the Q0.16
    /// truncation and the 100 µs dequeue step.
    #[test]
    fn cd1_drop_times_follow_linux_control_law() {
        let mut v = CodelVars::default();
        let mut q = Standing {
            sojourn: 10 * MS,
            now: 0,
            next: 0,
            backlog: 100_000,
        };
        let t = drop_times(&mut v, &mut q, 1000 * MS, 1600 * MS);
        assert!((t[0] - 100.0).abs() <= 0.2, "first drop at {} ms", t[0]);
        let want = [100.0, 50.0, 56.25, 48.78, 44.15, 40.41];
        for (k, w) in want.iter().enumerate() {
            let gap = t[k + 1] - t[k];
            assert!(
                (gap - w).abs() <= 0.2,
                "gap {k}: {gap:.2} vs {w} ms ({t:?})"
            );
        }
    }

    /// CD-2: with no more than one MTU left in the qdisc, a long sojourn drops nothing.
    #[test]
    fn cd2_no_drop_with_one_mtu_left() {
        let mut v = CodelVars::default();
        let mut q = Standing {
            sojourn: 50 * MS,
            now: 0,
            next: 0,
            backlog: 1514,
        };
        assert!(drop_times(&mut v, &mut q, 1000 * MS, 2000 * MS).is_empty());
    }

    /// CD-3: leave the dropping state and come back 200 ms later (< 16 intervals): count
    /// resumes at count − lastcount. An episode entered afresh (count 1, lastcount 1) and
    /// 5 more drops leave count 6; re-entering gives delta = 5, so count = 5 and the first
    /// interval is 100 ms · x with x one Newton step from 1/√6's 0.4041 (CD-1):
    /// 0.4041·(3 − 5·0.1633)/2 = 0.4412: 44.1 ms (RFC 8289's exact 100/√5 = 44.7).
    #[test]
    fn cd3_reentry_resumes_at_delta() {
        let mut v = CodelVars::default();
        let mut q = Standing {
            sojourn: 10 * MS,
            now: 0,
            next: 0,
            backlog: 100_000,
        };
        // First episode: drops at +0, 100, 170.7, 228.4, 278.4, 323.2 (count 6).
        let t = drop_times(&mut v, &mut q, 1000 * MS, 1000 * MS + 100 * MS + 324 * MS);
        assert_eq!(t.len(), 6, "{t:?}");
        assert_eq!((v.count, v.lastcount), (6, 1));
        // The queue drains: below target, CoDel leaves dropping.
        q.sojourn = MS;
        let _ = drop_times(&mut v, &mut q, 1424 * MS, 1430 * MS);
        assert!(!v.dropping);
        // 200 ms later the sojourn is high again.
        q.sojourn = 10 * MS;
        let start = 1630 * MS;
        let t = drop_times(&mut v, &mut q, start, start + 300 * MS);
        assert_eq!(v.lastcount, 5, "count resumed at delta = 6 − 1");
        assert!((t[1] - t[0] - 44.1).abs() <= 0.2, "{t:?}");
    }

    /// `codel_reset` (a link going down): every packet flushed, none through CoDel's
    /// dequeue (which would drop or mark by the state), and the state zeroed
    /// (`codel_vars_init`).
    #[test]
    fn reset_flushes_without_the_aqm_and_zeroes_the_state() {
        let mut q = Codel {
            p: CodelParams::linux(false),
            limit: 100,
            vars: CodelVars::default(),
            q: Fifo {
                q: VecDeque::new(),
                bytes: 0,
            },
        };
        let m = PktMeta {
            len: 1500,
            segs: 1,
            ..PktMeta::default()
        };
        for id in 0..4 {
            assert!(matches!(q.enqueue(id, &m), Verdict::Queue(_)));
        }
        q.vars.dropping = true;
        q.vars.count = 7;
        q.vars.lastcount = 5;
        q.vars.drop_next = 1;
        let mut drops = Vec::new();
        q.reset(crate::engine::SEC, &mut drops);
        assert_eq!(drops, vec![0, 1, 2, 3]);
        assert_eq!((q.backlog().pkts, q.backlog().bytes), (0, 0));
        assert!(!q.vars.dropping);
        assert_eq!(
            (q.vars.count, q.vars.lastcount, q.vars.drop_next),
            (0, 0, 0)
        );
    }
}
