//! `queue = "red"`: Random Early Detection (Floyd & Jacobson 1993) as Linux `sch_red`
//! implements it (`include/net/red.h`, `net/sched/sch_red.c`, Linux 4.x – 6.x), with the
//! parameters tc computes (`tc/q_red.c`, `tc/tc_red.c`; docs/references.md §6.4, §11).
//!
//! - **Bytes**: thresholds, average and the child FIFO's `limit` are in bytes.
//! - **Defaults** (tc): max = limit/4 (or 3·min when min is given), min = max/3, avpkt
//!   1000, burst = (2·min + max)/(3·avpkt), probability 0.02, bandwidth 10 Mbit/s; the EWMA
//!   weight 2^−Wlog with Wlog the smallest w ≥ 1 for which burst + 1 − min/avpkt ≤
//!   (1 − (1 − 2^−w)^burst)/2^−w (`tc_red_eval_ewma`); max_P = probability · 2³².
//! - **Average** (`red_calc_qavg_no_idle_time`), fixed point with Wlog fractional bits,
//!   per arrival: qavg += backlog − qavg >> Wlog. After an idle period (the queue emptied
//!   at a dequeue), the average decays as (1 − 2^−Wlog)^m with m the idle time over one
//!   `avpkt` at `bandwidth` (the RED paper's rule; Linux approximates it with a table of
//!   shifts, `Stab`).
//! - **Decision** (`red_action`): below min, pass (qcount = −1); at or above max, a hard
//!   mark; in between, ++qcount and mark when (avg − min)·qcount ≥ qR, with qR drawn
//!   uniform in [0, (max − min)/max_p) whenever a mark resets qcount — so the gaps between
//!   marks are uniform on 1 … 1/p_b (`red_mark_probability`, `red_random`).
//! - **Marks** (`red_enqueue`): without `ecn` a mark is a drop; with `ecn` an ECT packet is
//!   CE-marked and a non-ECT one dropped unless `nodrop`; above max with `harddrop`, every
//!   mark is a drop.
//! - **Gentle** (Floyd 2000; *not* in Linux `sch_red`, an option here): between max and
//!   2·max the mark probability rises linearly from max_p to 1 instead of jumping to 1.
//! - **Adaptive** (`red_adaptative_algo`, Floyd, Gummadi & Shenker 2001): on the qdisc's
//!   timer every 500 ms (`red_adaptative_timer`, `HZ/2`), in the kernel's Q0.32 integers:
//!   max_P += min(1%, max_P/4) while the average (decayed over the idle time if the queue
//!   is idle, not stored) is above target_max = min + 3·⌊(max − min)/5⌋ and max_P ≤ 50%;
//!   max_P = ⌊max_P/10⌋·9 while it is below target_min = min + 2·⌊(max − min)/5⌋ and
//!   max_P ≥ 1% (1% = `RED_ONE_PERCENT`, 2³²/100 rounded: 42,949,673). Until 2026-12 the
//!   steps were taken lazily at the next arrival, in floating point.
//! - The random draws come from the port's stream of the run's seed (`start`), so a run
//!   repeats exactly and seeds differ. (Until 2026-12 every RED port of every run drew one
//!   fixed stream, whatever the seed.)

use super::{Backlog, Deq, Fifo, Mark, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::{Rng, SimTime, MS};
use crate::packet::{PktId, NOT_ECT};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// `queue = "red"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// Bytes.
    pub limit: u64,
    pub min: u64,
    pub max: u64,
    pub avpkt: u64,
    pub burst: u64,
    pub probability: f64,
    /// bit/s, for the idle decay.
    pub bandwidth: u64,
    pub wlog: u32,
    pub ecn: bool,
    pub harddrop: bool,
    pub nodrop: bool,
    pub gentle: bool,
    pub adaptive: bool,
}

/// `tc_red_eval_ewma`: the smallest Wlog with burst + 1 − min/avpkt ≤ (1 − (1 − W)^burst)/W.
pub fn eval_ewma(qmin: u64, burst: u64, avpkt: u64) -> Option<u32> {
    let a = burst as f64 + 1.0 - qmin as f64 / avpkt as f64;
    if a < 1.0 {
        return None;
    }
    let mut w: f64 = 0.5;
    for wlog in 1..32 {
        if a <= (1.0 - (1.0 - w).powf(burst as f64)) / w {
            return Some(wlog);
        }
        w /= 2.0;
    }
    None
}

impl Spec {
    /// tc's parameters for `limit` bytes and the optional thresholds.
    pub fn tc(
        limit: u64,
        min: Option<u64>,
        max: Option<u64>,
        avpkt: u64,
        burst: Option<u64>,
    ) -> Spec {
        let max = max.unwrap_or_else(|| match min {
            Some(m) => m.saturating_mul(3),
            None => limit / 4,
        });
        let min = min.unwrap_or(max / 3);
        let burst = burst
            .unwrap_or(min.saturating_mul(2).saturating_add(max) / avpkt.saturating_mul(3).max(1));
        Spec {
            limit,
            min,
            max,
            avpkt,
            burst,
            probability: 0.02,
            bandwidth: 10_000_000,
            wlog: eval_ewma(min, burst, avpkt).unwrap_or(9),
            ecn: false,
            harddrop: false,
            nodrop: false,
            gentle: false,
            adaptive: false,
        }
    }
}

macro_rules! key {
    ($c:ident, $n:literal, $ty:expr, $d:literal, $m:literal) => {
        const $c: Key = Key {
            name: $n,
            ty: $ty,
            default: $d,
            allowed: "",
            meaning: $m,
        };
    };
}
key!(
    LIMIT,
    "limit",
    Ty::Size,
    "required",
    "bytes the child FIFO holds (tc `limit`)"
);
key!(
    MIN,
    "min",
    Ty::Size,
    "max/3",
    "average queue (bytes) where marking starts"
);
key!(
    MAX,
    "max",
    Ty::Size,
    "limit/4, or 3·min",
    "average queue (bytes) where every packet is marked"
);
key!(
    AVPKT,
    "avpkt",
    Ty::Bytes(1, 65_535),
    "`1000`",
    "typical packet size, for burst and the idle decay"
);
key!(
    BURST,
    "burst",
    Ty::Int(0, i64::MAX),
    "(2·min + max)/(3·avpkt)",
    "packets of burst the average lets through, which sets the EWMA weight (tc `tc_red_eval_ewma`)"
);
key!(
    PROBABILITY,
    "probability",
    Ty::Prob,
    "`0.02`",
    "max_p, the mark probability at max"
);
key!(
    BANDWIDTH,
    "bandwidth",
    Ty::Rate,
    "`\"10Mbit\"`",
    "link rate for the idle-time decay of the average (tc's default 10 Mbit/s)"
);
key!(
    ECN,
    "ecn",
    Ty::Bool,
    "`false`",
    "CE-mark ECT packets instead of dropping them"
);
key!(
    HARDDROP,
    "harddrop",
    Ty::Bool,
    "`false`",
    "with `ecn`, still drop above max"
);
key!(
    NODROP,
    "nodrop",
    Ty::Bool,
    "`false`",
    "never drop a non-ECT packet for a mark"
);
key!(GENTLE, "gentle", Ty::Bool, "`false`", "between max and 2·max, mark with a probability rising from max_p to 1 (Floyd 2000; not in Linux's sch_red)");
key!(
    ADAPTIVE,
    "adaptive",
    Ty::Bool,
    "`false`",
    "adapt max_p every 500 ms to keep the average between min and max (Adaptive RED)"
);

pub static KEYS: Schema = Schema {
    title: "RED",
    place: "a red queue",
    noun: "queue",
    about: "Random Early Detection as Linux `sch_red` (bytes; tc's computed defaults): an EWMA of the backlog, no marks below `min`, marks with growing probability to `max`, every packet above; ECN optional.",
    keys: &[LIMIT, MIN, MAX, AVPKT, BURST, PROBABILITY, BANDWIDTH, ECN, HARDDROP, NODROP, GENTLE, ADAPTIVE],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    if !t.t.contains_key(LIMIT.name) {
        ck.err(
            &join(t.path, LIMIT.name),
            None,
            "queue = \"red\" needs limit, in bytes (e.g. limit = \"400KB\"), as tc does".into(),
        );
        return None;
    }
    let limit: u64 = ck.get(t, &LIMIT)?;
    let min: Option<u64> = ck.get(t, &MIN);
    let max: Option<u64> = ck.get(t, &MAX);
    let avpkt: u64 = ck.get(t, &AVPKT).unwrap_or(1000);
    let burst: Option<u64> = ck.get(t, &BURST);
    let mut s = Spec::tc(limit, min, max, avpkt, burst);
    if s.min >= s.max || s.max > s.limit {
        ck.err(
            &join(t.path, MAX.name),
            t.t.get(MAX.name),
            format!(
                "RED needs min < max ≤ limit (min {} B, max {} B, limit {} B)",
                s.min, s.max, s.limit
            ),
        );
        return None;
    }
    match eval_ewma(s.min, s.burst, s.avpkt) {
        Some(w) => s.wlog = w,
        None => {
            let given = t.t.contains_key(BURST.name);
            let ratio = s.min as f64 / s.avpkt as f64;
            let why = if (s.burst as f64) < ratio {
                format!(
                    "burst {} packets{} is below min/avpkt = {} B / {} B = {ratio:.2}",
                    s.burst,
                    if given {
                        ""
                    } else {
                        " (the default, (2·min + max)/(3·avpkt))"
                    },
                    s.min,
                    s.avpkt
                )
            } else {
                format!(
                    "min {} B is below avpkt {} B, and no weight 2^-1 … 2^-31 lets a burst of {} packets through",
                    s.min, s.avpkt, s.burst
                )
            };
            ck.err(
                &join(t.path, BURST.name),
                t.t.get(BURST.name),
                format!(
                    "tc cannot compute RED's EWMA weight (\"failed to calculate EWMA constant\"): {why}; allowed: burst ≥ min/avpkt with min ≥ avpkt (e.g. min and max of several avpkt)"
                ),
            );
            return None;
        }
    }
    ck.get_into(t, &PROBABILITY, &mut s.probability);
    ck.get_into(t, &BANDWIDTH, &mut s.bandwidth);
    ck.get_into(t, &ECN, &mut s.ecn);
    ck.get_into(t, &HARDDROP, &mut s.harddrop);
    ck.get_into(t, &NODROP, &mut s.nodrop);
    ck.get_into(t, &GENTLE, &mut s.gentle);
    ck.get_into(t, &ADAPTIVE, &mut s.adaptive);
    Some(s)
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<Red>;
    fn build(&self) -> Box<Red> {
        Box::new(self.build_unboxed())
    }
    fn limit(&self) -> Limit {
        self.limit_of()
    }
}

impl Spec {
    fn build_unboxed(&self) -> Red {
        Red {
            p: self.clone(),
            qavg: 0,
            qcount: -1,
            qr: 0,
            max_p: (self.probability * 4294967296.0) as u64,
            idle_since: Some(0),
            rng: Rng::new(0x0052_4544, 0),
            fifo: Fifo::default(),
        }
    }
    fn limit_of(&self) -> Limit {
        Limit::Bytes(self.limit)
    }
}

/// `struct red_vars` with its parameters and the child FIFO.
#[derive(Debug)]
pub struct Red {
    pub p: Spec,
    /// Average queue in bytes, fixed point with `wlog` fractional bits.
    pub qavg: u64,
    qcount: i64,
    qr: u64,
    /// max_p in Q0.32.
    pub max_p: u64,
    idle_since: Option<SimTime>,
    rng: Rng,
    fifo: Fifo,
}

/// What `red_action` decided.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Action {
    DontMark,
    ProbMark,
    HardMark,
}

impl Red {
    /// The average in bytes.
    pub fn avg(&self) -> f64 {
        self.qavg as f64 / (1u64 << self.p.wlog) as f64
    }

    /// `red_random`: qR uniform in [0, (max − min)/max_p).
    fn random(&mut self) -> u64 {
        let r = self.rng.next_u64() >> 32;
        let delta = (self.p.max - self.p.min).max(1);
        (r as u128 * delta as u128 / self.max_p.max(1) as u128) as u64
    }

    /// The average after an arrival at `now` that finds `backlog` bytes.
    pub fn update_avg(&mut self, backlog: u64, now: SimTime) {
        let w = self.p.wlog;
        self.qavg = self.qavg_after_idle(now);
        self.idle_since = None;
        self.qavg = self.qavg + backlog - (self.qavg >> w);
    }

    /// `red_action` (plus the gentle region), for the current average.
    pub fn action(&mut self) -> Action {
        let w = self.p.wlog;
        let (min, max) = (self.p.min << w, self.p.max << w);
        if self.qavg < min {
            self.qcount = -1;
            return Action::DontMark;
        }
        if self.qavg >= max {
            if self.p.gentle && self.qavg < 2 * max {
                // Linear from max_p at max to 1 at 2·max.
                let frac = (self.qavg - max) as f64 / max as f64;
                let pm = self.max_p as f64 / 4294967296.0;
                let pb = pm + (1.0 - pm) * frac;
                let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                self.qcount = -1;
                return if u < pb {
                    Action::ProbMark
                } else {
                    Action::DontMark
                };
            }
            self.qcount = -1;
            return Action::HardMark;
        }
        self.qcount += 1;
        if self.qcount != 0 {
            // `red_mark_probability`: mark unless (avg − min) · qcount < qR.
            if ((self.qavg - min) >> w) * self.qcount as u64 >= self.qr {
                self.qcount = 0;
                self.qr = self.random();
                return Action::ProbMark;
            }
        } else {
            self.qr = self.random();
        }
        Action::DontMark
    }

    /// The average an arrival at `now` would start from: after an idle period, decayed
    /// as if (1 − W)^m packets had gone by, m = idle time / one avpkt at the bandwidth.
    fn qavg_after_idle(&self, now: SimTime) -> u64 {
        match self.idle_since {
            Some(t0) => {
                let pkt_time = self.p.avpkt as f64 * 8.0 / self.p.bandwidth as f64;
                let m = (now - t0) as f64 / 1e12 / pkt_time;
                let decay = (1.0 - 1.0 / (1u64 << self.p.wlog) as f64).powf(m);
                (self.qavg as f64 * decay) as u64
            }
            None => self.qavg,
        }
    }

    /// `red_adaptative_algo`, run by the 500 ms timer (`red_adaptative_timer`).
    fn adapt(&mut self, now: SimTime) {
        let avg = self.qavg_after_idle(now) >> self.p.wlog;
        let fifth = (self.p.max - self.p.min) / 5;
        let (target_min, target_max) = (self.p.min + 2 * fifth, self.p.min + 3 * fifth);
        if avg > target_max && self.max_p <= MAX_P_MAX {
            self.max_p += MAX_P_MIN.min(self.max_p / 4);
        } else if avg < target_min && self.max_p >= MAX_P_MIN {
            self.max_p = self.max_p / 10 * 9;
        }
    }
}

/// `RED_ONE_PERCENT`, 2³²/100 rounded to the closest integer, and the bounds of
/// adaptive RED's max_P (`MAX_P_MIN`, 1%; `MAX_P_MAX`, 50%), in Q0.32.
const RED_ONE_PERCENT: u64 = 42_949_673;
const MAX_P_MIN: u64 = RED_ONE_PERCENT;
const MAX_P_MAX: u64 = 50 * RED_ONE_PERCENT;
/// `red_adaptative_timer`'s period, `HZ/2`.
const ADAPT_PERIOD: SimTime = 500 * MS;

impl QueueDisc for Red {
    /// The port's stream of the run's seed; adaptive RED's timer, first due 500 ms after
    /// the start (`red_init` arms it at `jiffies + HZ/2`).
    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.rng = Rng::new(rng.next_u64(), 0);
        self.p.adaptive.then_some(ADAPT_PERIOD)
    }

    /// `red_adaptative_timer`: one step of max_P, and the next in 500 ms.
    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        self.adapt(now);
        Some(now + ADAPT_PERIOD)
    }

    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        self.update_avg(self.fifo.bytes, m.now);
        let ect = m.ecn != NOT_ECT;
        let mut mark = Mark::None;
        // `red_enqueue`: without ECN (or, above max, with harddrop) a mark is a drop; with
        // ECN an ECT packet is marked and a non-ECT one dropped unless `nodrop`.
        match self.action() {
            Action::DontMark => {}
            Action::ProbMark | Action::HardMark if !self.p.ecn => return Verdict::Drop,
            Action::HardMark if self.p.harddrop => return Verdict::Drop,
            Action::ProbMark | Action::HardMark => {
                if ect {
                    mark = Mark::Ce;
                } else if !self.p.nodrop {
                    return Verdict::Drop;
                }
            }
        }
        if self.fifo.bytes + m.len as u64 > self.p.limit {
            return Verdict::Drop;
        }
        self.fifo.push(id, m.len);
        Verdict::Queue(mark)
    }

    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        match self.fifo.pop() {
            Some(id) => {
                if self.fifo.is_empty() {
                    self.idle_since = Some(now);
                }
                Deq::Packet(id, Mark::None)
            }
            None => Deq::Empty,
        }
    }

    fn backlog(&self) -> Backlog {
        self.fifo.backlog()
    }

    fn peek_len(&self) -> Option<u32> {
        self.fifo.peek().map(|h| h.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tc's defaults for limit 400,000 B, avpkt 1000: max = 100,000, min = 33,333, burst =
    /// (66,666 + 100,000)/3000 = 55; Wlog: a = 55 + 1 − 33.333 = 22.667; w = 2^−1 … :
    /// (1 − (1 − W)^55)/W is 2.0, 4.0, 8.0, 15.5, 26.4 for Wlog 1…5, so Wlog = 5.
    #[test]
    fn tc_defaults() {
        let s = Spec::tc(400_000, None, None, 1000, None);
        assert_eq!((s.max, s.min, s.burst), (100_000, 33_333, 55));
        assert_eq!(s.wlog, 5);
    }

    fn red(min: u64, max: u64, p: f64, wlog: u32) -> Red {
        let mut s = Spec::tc(1 << 30, Some(min), Some(max), 1000, Some(100));
        s.probability = p;
        s.wlog = wlog;
        s.build_unboxed()
    }

    /// RED-1: hold avg at 10 packets (of 1000 B) with min 5, max 15, max_p 0.1: p_b = 0.05;
    /// the marked fraction is 2p_b/(1 + p_b) = 0.0952 (gaps uniform on 1…20, mean 10.5),
    /// ±3% over 10⁵ decisions; the gap histogram is flat: each of the 20 gap lengths has
    /// 1/20 of the gaps, ±25% (about 475 gaps per length: a ±3.5σ band).
    #[test]
    fn red1_mark_fraction_and_uniform_gaps() {
        let mut r = red(5000, 15_000, 0.1, 9);
        r.qavg = 10_000 << 9;
        let n = 100_000;
        let mut marks = 0;
        let mut gaps = [0u32; 21];
        let mut since = 0;
        for _ in 0..n {
            since += 1;
            if r.action() == Action::ProbMark {
                marks += 1;
                if since <= 20 {
                    gaps[since] += 1;
                }
                since = 0;
            }
        }
        let frac = marks as f64 / n as f64;
        assert!((frac / 0.0952 - 1.0).abs() < 0.03, "{frac}");
        let per = marks as f64 / 20.0;
        for (g, &c) in gaps.iter().enumerate().skip(1) {
            assert!(
                (c as f64 / per - 1.0).abs() < 0.25,
                "gap {g}: {c} of {marks}"
            );
        }
    }

    /// RED-2: a step of the instantaneous queue from 0 to 10,000 B with w_q = 2^−9
    /// (0.00195, the paper's 0.002): the average reaches 63% of the step after about 1/w_q
    /// = 512 arrivals (1 − e^−1) and 95% after about 3/w_q = 1534 (±2%).
    #[test]
    fn red2_average_follows_a_step() {
        let mut r = red(5000, 15_000, 0.1, 9);
        r.idle_since = None;
        let mut n63 = 0;
        let mut n95 = 0;
        for k in 1..=3000 {
            r.update_avg(10_000, 0);
            if n63 == 0 && r.avg() >= 6321.0 {
                n63 = k;
            }
            if n95 == 0 && r.avg() >= 9502.0 {
                n95 = k;
            }
        }
        // Exactly: n with 1 − (1 − 2^−9)^n ≥ 0.632: n = ln(0.368)/ln(1 − 2^−9) = 511.
        assert!((n63 as f64 / 511.0 - 1.0).abs() < 0.02, "{n63}");
        assert!((n95 as f64 / 1533.0 - 1.0).abs() < 0.02, "{n95}");
    }

    /// RED-3: ECN on, avg in the probabilistic region: ECT packets are marked and non-ECT
    /// packets dropped, at the same rate (2p_b/(1 + p_b) = 0.0952 each, ±3%).
    #[test]
    fn red3_ect_marked_non_ect_dropped_alike() {
        let mut r = red(5000, 15_000, 0.1, 9);
        r.p.ecn = true;
        let (mut ce, mut dropped) = (0, 0);
        let n = 200_000u32;
        for k in 0..n {
            r.qavg = 10_000 << 9; // held fixed
            r.idle_since = None;
            r.fifo = Fifo::default();
            let m = PktMeta {
                len: 1000,
                ecn: if k % 2 == 0 {
                    crate::packet::ECT0
                } else {
                    NOT_ECT
                },
                segs: 1,
                ..Default::default()
            };
            match r.enqueue(k, &m) {
                Verdict::Queue(Mark::Ce) => ce += 1,
                Verdict::Drop => dropped += 1,
                _ => {}
            }
            r.qavg = 10_000 << 9;
        }
        let half = n as f64 / 2.0;
        assert!((ce as f64 / half / 0.0952 - 1.0).abs() < 0.03, "{ce}");
        assert!(
            (dropped as f64 / half / 0.0952 - 1.0).abs() < 0.03,
            "{dropped}"
        );
    }

    /// Above max every packet is hard-marked (dropped without ECN); with gentle, at 1.5·max
    /// the probability is max_p + (1 − max_p)/2 = 0.55 for max_p 0.1 (±3% over 10⁵).
    #[test]
    fn hard_and_gentle_regions() {
        let mut r = red(5000, 15_000, 0.1, 9);
        r.qavg = 20_000 << 9;
        assert!((0..100).all(|_| r.action() == Action::HardMark));
        r.p.gentle = true;
        r.qavg = 22_500 << 9;
        let n = 100_000;
        let marks = (0..n).filter(|_| r.action() == Action::ProbMark).count();
        assert!(
            (marks as f64 / n as f64 / 0.55 - 1.0).abs() < 0.03,
            "{marks}"
        );
    }

    /// Adaptive, in the kernel's integers: min 5000, max 15000 → targets 5000 + 2·2000 =
    /// 9000 and 5000 + 3·2000 = 11000; max_P starts at ⌊0.02·2³²⌋ = 85,899,345. Held at
    /// 14000 (> 11000) each step adds min(42,949,673, max_P/4): 85,899,345 + 21,474,836 =
    /// 107,374,181; + 26,843,545 = 134,217,726; + 33,554,431 = 167,772,157; + 41,943,039 =
    /// 209,715,196; then + 42,949,673 (1%) twice. At 10000, between the targets, nothing;
    /// at 6000 (< 9000) ⌊max_P/10⌋·9.
    #[test]
    fn adaptive_steps_max_p() {
        let mut r = red(5000, 15_000, 0.02, 9);
        assert_eq!(r.max_p, 85_899_345);
        r.idle_since = None;
        r.qavg = 14_000 << 9;
        let mut got = Vec::new();
        for k in 1..=6 {
            r.adapt(k * 500 * MS);
            got.push(r.max_p);
        }
        let want = [
            107_374_181,
            134_217_726,
            167_772_157,
            209_715_196,
            252_664_869,
            295_614_542,
        ];
        assert_eq!(got, want);
        r.qavg = 10_000 << 9;
        r.adapt(3500 * MS);
        assert_eq!(r.max_p, 295_614_542);
        r.qavg = 6000 << 9;
        r.adapt(4000 * MS);
        assert_eq!(r.max_p, 295_614_542 / 10 * 9);
    }

    /// The steps come from the qdisc's timer (Linux `red_adaptative_timer`): the first
    /// 500 ms after the start, then every 500 ms; none without `adaptive`. An idle queue's
    /// average is judged decayed over its idle time: 14000 bytes idle for 100 packet
    /// times at W = 2⁻⁹ is 14000·(1 − 2⁻⁹)¹⁰⁰ ≈ 11,514 (> 11000, a step up), for 200
    /// ≈ 9,469 (between the targets: none).
    #[test]
    fn adaptive_steps_run_on_the_qdiscs_timer() {
        let mut rng = Rng::new(1, 2);
        let mut plain = red(5000, 15_000, 0.02, 9);
        assert_eq!(plain.start(&mut rng), None);
        let mut r = red(5000, 15_000, 0.02, 9);
        r.p.adaptive = true;
        assert_eq!(r.start(&mut rng), Some(500 * MS));
        // One avpkt (1000 bytes) at 10 Mbit/s is 800 µs.
        r.p.avpkt = 1000;
        r.p.bandwidth = 10_000_000;
        r.qavg = 14_000 << 9;
        r.idle_since = Some(420 * MS);
        assert_eq!(r.on_timer(500 * MS), Some(1000 * MS));
        assert_eq!(r.max_p, 107_374_181);
        r.idle_since = Some(840 * MS);
        assert_eq!(r.on_timer(1000 * MS), Some(1500 * MS));
        assert_eq!(r.max_p, 107_374_181);
        // The average itself is not changed by the timer.
        assert_eq!(r.qavg, 14_000 << 9);
    }
}
