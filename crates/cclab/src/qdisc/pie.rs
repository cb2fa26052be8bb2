//! `queue = "pie"`: Proportional Integral controller Enhanced (RFC 8033) as Linux
//! implements it: `include/net/pie.h` and `net/sched/sch_pie.c` (torvalds/linux, read at
//! the 6.9 – 6.15 state: `pie_drop_early`, `pie_process_dequeue` and
//! `pie_calculate_probability` are exported for `sch_fq_pie`, which runs the same per
//! flow: `fq_pie.rs`), with tc's key names (`tc/q_pie.c`; docs/references.md §6.5).
//!
//! - **Units as Linux's.** Time in psched ticks of 64 ns (`ns >> 6`); the drop probability
//!   as a fraction of `MAX_PROB` = 2⁵⁶ − 1; alpha and beta as tc gives them, in sixteenths
//!   (defaults 2 = 1/8 and 20 = 1.25), turned into probability per tick of delay:
//!   `alpha · (MAX_PROB / PSCHED_TICKS_PER_SEC) >> 4`.
//! - **Queue delay** (the default, since Linux 5.8): at each dequeue, the sojourn of the
//!   packet leaving (0 when the queue is then empty). With `dq_rate_estimator` (RFC 8033's
//!   original): Little's law, backlog over a drain rate averaged (weight 1/8) over cycles
//!   that each dequeue 16 KiB (`QUEUE_THRESHOLD`), started only with 16 KiB queued.
//! - **The update** every `tupdate` (a timer, first 500 ms after the qdisc starts, as
//!   `pie_init`'s `mod_timer(jiffies + HZ / 2)`): p += alpha·(qdelay − target) +
//!   beta·(qdelay − qdelay_old), alpha and beta halved below p = 10% and quartered again
//!   for each further decade below 1%, … (`power` 100 … 10⁶, RFC 8033 §4.2's table); a
//!   rise of more than 2% is cut to 2% once p ≥ 10%; qdelay above 250 ms adds 2%; p decays
//!   by 1/64 after two updates with no delay; with both delays under target/2 and p = 0
//!   the burst allowance and the estimator restart (`pie_vars_init`).
//! - **Early drop** at enqueue (`pie_drop_early`): never during the burst allowance
//!   (150 ms, spent by the time between dequeues), never while qdelay < target/2 with
//!   p < 20%, never with less than two MTUs queued; then RFC 8033's de-randomisation: the
//!   probabilities of the packets since the last drop add up in `accu_prob`; below 0.85
//!   no drop, from 8.5 always; between, a drop with probability p (a 56-bit draw).
//!   `bytemode` scales p by size/MTU.
//! - **ECN** (off by default): an early drop of an ECT (or CE) packet becomes a CE mark
//!   while p ≤ 10%.
//! - **Limit**: packets (default 1000); a packet over it is dropped; any drop clears
//!   `accu_prob`.
//! - **MTU**: Linux compares with `psched_mtu` = 1514 B in `skb->len` units, which count
//!   the Ethernet header; lengths here are IP lengths, so the same test is against 1500
//!   (two full packets are "two MTUs" in both).
//! - **Random draws** come from the port's stream of the run's seed (`QueueDisc::start`).
//! - tupdate is taken as given; Linux counts it in jiffies (rounded up to a whole tick:
//!   15 ms at HZ = 1000, 16 ms at HZ = 250).

use super::{Backlog, Deq, Mark, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::{Rng, SimTime, MS, US};
use crate::packet::{PktId, NOT_ECT};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use std::collections::VecDeque;

/// `MAX_PROB`: probability 1.
pub const MAX_PROB: u64 = u64::MAX >> 8;
/// `DTIME_INVALID`, `DQCOUNT_INVALID`.
const DTIME_INVALID: u64 = u64::MAX;
const DQCOUNT_INVALID: u64 = u64::MAX;
/// `QUEUE_THRESHOLD`: bytes, the drain-rate measurement's cycle.
const QUEUE_THRESHOLD: u32 = 16384;
/// `PIE_SCALE`.
const PIE_SCALE: u32 = 8;
/// `PSCHED_TICKS_PER_SEC`: 10⁹ ns >> 6.
const PSCHED_TICKS_PER_SEC: u64 = 1_000_000_000 >> 6;
/// psched_mtu in IP bytes (module doc).
pub const MTU: u32 = 1500;
/// The first update, `HZ / 2` after the qdisc starts.
pub const FIRST_UPDATE: SimTime = 500 * MS;

/// Simulator time (ps) in psched ticks (`PSCHED_NS2TICKS`).
#[inline]
pub fn ticks(t: SimTime) -> u64 {
    (t / 1000) >> 6
}

/// `struct pie_params`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    /// psched ticks.
    pub target: u64,
    pub tupdate: SimTime,
    pub limit: u32,
    /// Sixteenths.
    pub alpha: u32,
    pub beta: u32,
    pub ecn: bool,
    pub bytemode: bool,
    pub dq_rate_estimator: bool,
}

impl Default for PieParams {
    /// `pie_params_init`.
    fn default() -> PieParams {
        PieParams {
            target: ticks(15 * MS),
            tupdate: 15 * MS,
            limit: 1000,
            alpha: 2,
            beta: 20,
            ecn: false,
            bytemode: false,
            dq_rate_estimator: false,
        }
    }
}

/// `struct pie_vars` (times in psched ticks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieVars {
    pub qdelay: u64,
    pub qdelay_old: u64,
    pub burst_time: u64,
    pub dq_tstamp: u64,
    pub prob: u64,
    pub accu_prob: u64,
    pub dq_count: u64,
    pub avg_dq_rate: u32,
    pub backlog_old: u32,
}

impl Default for PieVars {
    /// A zeroed struct after `pie_vars_init`.
    fn default() -> PieVars {
        let mut v = PieVars {
            qdelay: 0,
            qdelay_old: 0,
            burst_time: 0,
            dq_tstamp: 0,
            prob: 0,
            accu_prob: 0,
            dq_count: 0,
            avg_dq_rate: 0,
            backlog_old: 0,
        };
        v.init();
        v
    }
}

impl PieVars {
    /// `pie_vars_init`: the burst allowance (150 ms) and the drain-rate estimator restart;
    /// the probability and delays are left as they are.
    pub fn init(&mut self) {
        self.burst_time = ticks(150 * MS);
        self.dq_tstamp = DTIME_INVALID;
        self.accu_prob = 0;
        self.dq_count = DQCOUNT_INVALID;
        self.avg_dq_rate = 0;
    }

    /// `pie_drop_early`: should the packet of `len` bytes arriving to `backlog` bytes be
    /// dropped (or marked)?
    pub fn drop_early(&mut self, p: &PieParams, backlog: u64, len: u32, rng: &mut Rng) -> bool {
        if self.burst_time > 0 {
            return false;
        }
        if self.qdelay < p.target / 2 && self.prob < MAX_PROB / 5 {
            return false;
        }
        if backlog < 2 * MTU as u64 {
            return false;
        }
        let local_prob = if p.bytemode && len <= MTU {
            (len as u64).wrapping_mul(self.prob / MTU as u64)
        } else {
            self.prob
        };
        if local_prob == 0 {
            self.accu_prob = 0;
        } else {
            self.accu_prob = self.accu_prob.wrapping_add(local_prob);
        }
        if self.accu_prob < (MAX_PROB / 100) * 85 {
            return false;
        }
        if self.accu_prob >= (MAX_PROB / 2) * 17 {
            return true;
        }
        if rng.next_u64() >> 8 < local_prob {
            self.accu_prob = 0;
            return true;
        }
        false
    }

    /// `pie_process_dequeue`: a packet of `len` bytes enqueued at `enqueued` (ticks) leaves
    /// at `now` (ticks), leaving `backlog` bytes.
    pub fn process_dequeue(
        &mut self,
        p: &PieParams,
        now: u64,
        enqueued: u64,
        len: u32,
        backlog: u64,
    ) {
        let backlog = backlog as u32;
        let dtime: u32;
        if !p.dq_rate_estimator {
            self.qdelay = now.wrapping_sub(enqueued);
            dtime = if self.dq_tstamp != DTIME_INVALID {
                now.wrapping_sub(self.dq_tstamp) as u32
            } else {
                0
            };
            self.dq_tstamp = now;
            if backlog == 0 {
                self.qdelay = 0;
            }
            if dtime == 0 {
                return;
            }
        } else {
            if backlog >= QUEUE_THRESHOLD && self.dq_count == DQCOUNT_INVALID {
                self.dq_tstamp = now;
                self.dq_count = 0;
            }
            if self.dq_count == DQCOUNT_INVALID {
                return;
            }
            self.dq_count += len as u64;
            if self.dq_count < QUEUE_THRESHOLD as u64 {
                return;
            }
            let count = (self.dq_count as u32).wrapping_shl(PIE_SCALE);
            dtime = now.wrapping_sub(self.dq_tstamp) as u32;
            if dtime == 0 {
                return;
            }
            let count = count / dtime;
            self.avg_dq_rate = if self.avg_dq_rate == 0 {
                count
            } else {
                (self.avg_dq_rate - (self.avg_dq_rate >> 3)) + (count >> 3)
            };
            if backlog < QUEUE_THRESHOLD {
                self.dq_count = DQCOUNT_INVALID;
            } else {
                self.dq_count = 0;
                self.dq_tstamp = now;
            }
        }
        // burst_allowance_reduction
        if self.burst_time > 0 {
            self.burst_time = self.burst_time.saturating_sub(dtime as u64);
        }
    }

    /// `pie_calculate_probability`, with `backlog` bytes queued.
    pub fn calculate_probability(&mut self, p: &PieParams, backlog: u64) {
        let backlog = backlog as u32;
        let (qdelay, qdelay_old);
        if p.dq_rate_estimator {
            qdelay_old = self.qdelay;
            self.qdelay_old = self.qdelay;
            qdelay = backlog
                .wrapping_shl(PIE_SCALE)
                .checked_div(self.avg_dq_rate)
                .unwrap_or(0) as u64;
        } else {
            qdelay = self.qdelay;
            qdelay_old = self.qdelay_old;
        }
        // A small backlog with no measured delay: no update this round.
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let (mut alpha, mut beta) = scaled_alpha_beta(p);
        if self.prob < MAX_PROB / 10 {
            alpha >>= 1;
            beta >>= 1;
            let mut power = 100u64;
            while self.prob < MAX_PROB / power && power <= 1_000_000 {
                alpha >>= 2;
                beta >>= 2;
                power *= 10;
            }
        }
        let mut delta: i64 = 0;
        delta = delta.wrapping_add(alpha.wrapping_mul(qdelay.wrapping_sub(p.target)) as i64);
        delta = delta.wrapping_add(beta.wrapping_mul(qdelay.wrapping_sub(qdelay_old)) as i64);
        let oldprob = self.prob;
        // At most 2% up per update once p ≥ 10%.
        if delta > (MAX_PROB / (100 / 2)) as i64 && self.prob >= MAX_PROB / 10 {
            delta = ((MAX_PROB / 100) * 2) as i64;
        }
        // Over 250 ms of delay: 2% more.
        if qdelay > ticks(250 * MS) {
            delta += (MAX_PROB / (100 / 2)) as i64;
        }
        self.prob = self.prob.wrapping_add(delta as u64);
        if delta > 0 {
            if self.prob < oldprob {
                self.prob = MAX_PROB;
                update_prob = false;
            }
        } else if self.prob > oldprob {
            self.prob = 0;
        }
        // Two updates without delay: p decays to 63/64.
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            self.prob -= self.prob / 64;
        }
        self.qdelay = qdelay;
        self.backlog_old = backlog;
        if self.qdelay < p.target / 2
            && self.qdelay_old < p.target / 2
            && self.prob == 0
            && (!p.dq_rate_estimator || self.avg_dq_rate > 0)
        {
            self.init();
        }
        if !p.dq_rate_estimator {
            self.qdelay_old = qdelay;
        }
    }
}

/// alpha and beta as probability per psched tick of delay, before the scaling by p.
pub fn scaled_alpha_beta(p: &PieParams) -> (u64, u64) {
    let per_tick = MAX_PROB / PSCHED_TICKS_PER_SEC;
    (
        (p.alpha as u64 * per_tick) >> 4,
        (p.beta as u64 * per_tick) >> 4,
    )
}

/// The next timer after one at `now`: `tupdate` later (none with tupdate 0, as Linux
/// stops re-arming; the scenario keys refuse 0).
pub fn next_update(p: &PieParams, now: SimTime) -> Option<SimTime> {
    (p.tupdate > 0).then(|| now.saturating_add(p.tupdate))
}

impl PieVars {
    /// The enqueue's decision on a packet of `len` bytes and ECN field `ecn` arriving to
    /// `backlog` bytes (`pie_qdisc_enqueue`, `fq_pie_qdisc_enqueue`): `pie_drop_early`, and
    /// an early drop becomes a CE mark on an ECN-capable packet while p ≤ `ecn_max`
    /// (`INET_ECN_set_ce` succeeds on ECT and CE); a drop clears `accu_prob`.
    pub fn admit(
        &mut self,
        p: &PieParams,
        backlog: u64,
        len: u32,
        ecn: u8,
        ecn_max: u64,
        rng: &mut Rng,
    ) -> Verdict {
        if !self.drop_early(p, backlog, len, rng) {
            return Verdict::ENQUEUE;
        }
        if p.ecn && self.prob <= ecn_max && ecn != NOT_ECT {
            return Verdict::MARK_CE;
        }
        self.accu_prob = 0;
        Verdict::Drop
    }
}

/// A queued packet: its id, IP length and enqueue time in psched ticks.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub id: PktId,
    pub len: u32,
    pub enqueued: u64,
}

/// `queue = "pie"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub params: PieParams,
}

pub const TARGET: Key = Key {
    name: "target",
    ty: Ty::Interval,
    default: "`\"15ms\"`",
    allowed: "",
    meaning: "the queue delay PIE steers to (tc `target`)",
};
pub const TUPDATE: Key = Key {
    name: "tupdate",
    ty: Ty::Interval,
    default: "`\"15ms\"`",
    allowed: "at least 1 µs",
    meaning: "how often the drop probability is recomputed (tc `tupdate`; the first update comes 500 ms after the start, as Linux's)",
};
pub const ALPHA: Key = Key {
    name: "alpha",
    ty: Ty::Int(0, 32),
    default: "`2` (1/8)",
    allowed: "",
    meaning: "weight of (delay − target) per update, in sixteenths (tc `alpha`)",
};
pub const BETA: Key = Key {
    name: "beta",
    ty: Ty::Int(0, 32),
    default: "`20` (1.25)",
    allowed: "",
    meaning: "weight of the delay's change per update, in sixteenths (tc `beta`)",
};
pub const ECN: Key = Key {
    name: "ecn",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "CE-mark ECN-capable packets instead of dropping them while the probability is low (10% for pie, `ecn_prob` for fq_pie)",
};
pub const BYTEMODE: Key = Key {
    name: "bytemode",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "scale the drop probability by packet size / MTU",
};
pub const DQ_RATE_ESTIMATOR: Key = Key {
    name: "dq_rate_estimator",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "estimate the queue delay from the drain rate (RFC 8033's Little's law) instead of timestamps",
};
const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"1000pkts\"` (Linux `pie_params_init`)",
    allowed: "a packet count, 1 to 4294967295",
    meaning: "the queue limit, in packets",
};

pub static KEYS: Schema = Schema {
    title: "PIE",
    place: "a pie queue",
    noun: "queue",
    about: "Proportional Integral controller Enhanced (RFC 8033, Linux `sch_pie`): drops (or CE-marks) at enqueue with a probability updated every `tupdate` from the queue delay's distance to `target` and its trend; `limit` in packets (default 1000).",
    keys: &[LIMIT, TARGET, TUPDATE, ALPHA, BETA, ECN, BYTEMODE, DQ_RATE_ESTIMATOR],
    with: &[],
    variants: None,
};

/// Read target, tupdate, alpha, beta, ecn, bytemode and dq_rate_estimator into `p`.
pub fn parse_params(ck: &mut Checker, t: Tab, p: &mut PieParams) {
    if let Some(x) = ck.get::<SimTime>(t, &TARGET) {
        p.target = ticks(x);
    }
    if let Some(x) = ck.get::<SimTime>(t, &TUPDATE) {
        if x < US {
            // tc passes whole µs (TCA_PIE_TUPDATE); a timer every picosecond would make a
            // run of seconds 10¹² updates long.
            ck.err(
                &join(t.path, TUPDATE.name),
                t.t.get(TUPDATE.name),
                "tupdate is at least 1 µs (tc passes whole µs)".into(),
            );
        } else {
            p.tupdate = x;
        }
    }
    ck.get_into(t, &ALPHA, &mut p.alpha);
    ck.get_into(t, &BETA, &mut p.beta);
    ck.get_into(t, &ECN, &mut p.ecn);
    ck.get_into(t, &BYTEMODE, &mut p.bytemode);
    ck.get_into(t, &DQ_RATE_ESTIMATOR, &mut p.dq_rate_estimator);
}

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut params = PieParams::default();
    parse_params(ck, t, &mut params);
    params.limit = super::codel::packet_limit(ck, t, "pie", 1000).min(u32::MAX as u64) as u32;
    Some(Spec { params })
}

impl super::QueueSpec {
    /// pie with Linux's defaults.
    pub fn pie() -> super::QueueSpec {
        super::QueueSpec::Pie(Spec {
            params: PieParams::default(),
        })
    }
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<Pie>;
    fn build(&self) -> Box<Pie> {
        Box::new(Pie::new(self.params))
    }
    fn limit(&self) -> Limit {
        Limit::Packets(self.params.limit as u64)
    }
}

/// `struct pie_sched_data`: one FIFO under PIE.
#[derive(Debug)]
pub struct Pie {
    pub p: PieParams,
    pub vars: PieVars,
    q: VecDeque<Queued>,
    bytes: u64,
    rng: Rng,
}

impl Pie {
    pub fn new(p: PieParams) -> Pie {
        Pie {
            p,
            vars: PieVars::default(),
            q: VecDeque::new(),
            bytes: 0,
            rng: Rng::new(0, 0),
        }
    }
}

impl QueueDisc for Pie {
    /// `pie_qdisc_enqueue`.
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.q.len() as u64 >= self.p.limit as u64 {
            self.vars.accu_prob = 0;
            return Verdict::Drop;
        }
        let (p, bytes) = (&self.p, self.bytes);
        let v = (self.vars).admit(p, bytes, m.len, m.ecn, MAX_PROB / 10, &mut self.rng);
        if v == Verdict::Drop {
            return v;
        }
        self.q.push_back(Queued {
            id,
            len: m.len,
            enqueued: ticks(m.now),
        });
        self.bytes += m.len as u64;
        v
    }

    /// `pie_qdisc_dequeue`.
    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        let Some(h) = self.q.pop_front() else {
            return Deq::Empty;
        };
        self.bytes -= h.len as u64;
        self.vars
            .process_dequeue(&self.p, ticks(now), h.enqueued, h.len, self.bytes);
        Deq::Packet(h.id, Mark::None)
    }

    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.q.len() as u64,
        }
    }

    fn peek_len(&self) -> Option<u32> {
        self.q.front().map(|h| h.len)
    }

    /// `pie_init`: the stream for the drop decisions, and the first update `HZ / 2` later.
    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.rng = Rng::new(rng.next_u64(), 0);
        Some(FIRST_UPDATE)
    }

    /// `pie_timer`.
    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        self.vars.calculate_probability(&self.p, self.bytes);
        next_update(&self.p, now)
    }

    /// `pie_reset` (the link went down): the queue flushed without PIE's dequeue
    /// (`qdisc_reset_queue`: no drain-rate sample) and `pie_vars_init` (burst allowance,
    /// estimator restart; the probability and delays kept, as Linux keeps them).
    fn reset(&mut self, _now: SimTime, drops: &mut Vec<PktId>) {
        drops.extend(self.q.drain(..).map(|h| h.id));
        self.bytes = 0;
        self.vars.init();
    }
}

#[cfg(test)]
mod tests;
