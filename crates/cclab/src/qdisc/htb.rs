//! `queue = "htb"`, `htb = { rate = …, ceil = …, child = { … } }`: the hierarchical token
//! bucket with one class under its root (`net/sched/sch_htb.c`, iproute2 `tc/q_htb.c`,
//! Linux 4.x – 6.x; docs/references.md §11) — the shape of seed 004's comment 4 (`htb default
//! 10`, class 1:1 rate R, class 1:10 rate R ceil R, a leaf qdisc under it).
//!
//! - **Buckets** in time, as tbf's: `tokens` at `rate` `burst` deep, `ctokens` at `ceil`
//!   `cburst` deep. Unlike tbf, htb lets a packet go when the buckets are not negative and
//!   charges it afterwards (`htb_charge_class`), so a packet longer than the burst passes
//!   and leaves the bucket in debt (down to −`mbuffer`, 60 s); no packet is too long.
//! - **One class**: the leaf may send while `ctokens` ≥ 0 and either its `tokens` ≥ 0
//!   (`HTB_CAN_SEND`) or its parent can lend (`HTB_MAY_BORROW`); with the parent at the
//!   same rate and burst, the parent's bucket is the leaf's again, so the class sends while
//!   both of its buckets are ≥ 0 and otherwise waits until the deeper debt is repaid
//!   (`HTB_CANT_SEND`, the watchdog). `quantum` only orders sibling classes; with one class
//!   it changes nothing, and is computed (and reported) as tc and the kernel do.
//! - **Defaults** (tc `q_htb.c`): ceil = rate; burst = rate/HZ + mtu bytes, HZ the 4th field
//!   of `/proc/net/psched` (10⁹ on a high-resolution-timer kernel) and mtu 1600, so
//!   1600 B below 8 Gbit/s; cburst likewise from ceil; quantum = rate in bytes/s / r2q
//!   (10), clamped by the kernel to [1000, 200000] when not given. The leaf qdisc is a
//!   `pfifo` of `txqueuelen` (1000) packets unless given.

use super::bucket::Bucket;
use super::police::burst_ns;
use super::Ratecfg;
use super::{Backlog, Deq, PktMeta, Qdisc, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// `queue = "htb"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub rate: u64,
    pub ceil: u64,
    pub burst: u64,
    pub cburst: u64,
    pub quantum: u64,
    pub child: Box<QueueSpec>,
}

/// tc's default burst for `rate` bit/s: rate/HZ + mtu bytes (HZ = 10⁹, mtu 1600).
pub fn default_burst(rate_bps: u64) -> u64 {
    rate_bps / 8 / 1_000_000_000 + 1600
}

/// The kernel's quantum for `rate` bit/s with r2q 10, clamped to [1000, 200000].
pub fn default_quantum(rate_bps: u64) -> u64 {
    (rate_bps / 8 / 10).clamp(1000, 200_000)
}

impl Spec {
    /// One class at `rate` (ceil = rate) with tc's defaults over `child`.
    pub fn new(rate: u64, child: QueueSpec) -> Spec {
        Spec {
            rate,
            ceil: rate,
            burst: default_burst(rate),
            cburst: default_burst(rate),
            quantum: default_quantum(rate),
            child: Box::new(child),
        }
    }
}

impl QueueSpec {
    /// htb with one class at `rate` over `child`.
    pub fn htb(rate: u64, child: QueueSpec) -> QueueSpec {
        QueueSpec::Htb(Spec::new(rate, child))
    }
}

const RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: "required",
    allowed: "",
    meaning: "the class's guaranteed rate (tc `rate`)",
};
const CEIL: Key = Key {
    name: "ceil",
    ty: Ty::Rate,
    default: "`rate`",
    allowed: "at least `rate`",
    meaning: "the most the class may send (tc `ceil`)",
};
const BURST: Key = Key {
    name: "burst",
    ty: Ty::Size,
    default: "rate/HZ + 1600 B (tc; HZ = 10⁹: 1600 B below 8 Gbit/s)",
    allowed: "",
    meaning: "bytes the rate bucket holds",
};
const CBURST: Key = Key {
    name: "cburst",
    ty: Ty::Size,
    default: "ceil/HZ + 1600 B",
    allowed: "",
    meaning: "bytes the ceil bucket holds",
};
const QUANTUM: Key = Key {
    name: "quantum",
    ty: Ty::Bytes(1, u32::MAX as u64),
    default: "rate in B/s ÷ 10, within [1000, 200000]",
    allowed: "",
    meaning: "the class's DRR quantum among siblings (no effect with one class)",
};
const CHILD: Key = Key {
    name: "child",
    ty: Ty::Text("queue table"),
    default: "a `pfifo` of 1000 packets",
    allowed: "a queue table, e.g. `{ queue = \"fq_codel\" }`",
    meaning: "the leaf qdisc (tc `qdisc add … parent 1:10 …`)",
};

/// The keys inside `htb = { … }`.
pub static HTB: Schema = Schema {
    title: "htb tables",
    place: "an htb table",
    noun: "htb",
    about: "",
    keys: &[RATE, CEIL, BURST, CBURST, QUANTUM, CHILD],
    with: &[],
    variants: None,
};

const TABLE: Key = Key {
    name: "htb",
    ty: Ty::Table(&HTB),
    default: "required",
    allowed: "",
    meaning: "the class's parameters: `{ rate = \"1000mbit\", child = { queue = \"fq_codel\" } }`",
};

pub static KEYS: Schema = Schema {
    title: "HTB (one class)",
    place: "an htb queue",
    noun: "queue",
    about: "The hierarchical token bucket with one class (Linux `sch_htb`): the class sends while its rate and ceil buckets are not negative and is charged afterwards; defaults computed as tc does. Its keys sit in an `htb = { … }` table, apart from the link's own `rate`.",
    keys: &[TABLE],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, default_limit: Limit) -> Option<Spec> {
    let path = join(t.path, TABLE.name);
    let t = super::own_table(
        ck,
        t,
        TABLE.name,
        &path,
        &HTB,
        "{ rate = \"1000mbit\" } (and optionally ceil, burst, cburst, quantum, child)",
    )?;
    if !t.t.contains_key(RATE.name) {
        ck.err(
            &join(t.path, RATE.name),
            None,
            "htb needs rate (e.g. rate = \"1000mbit\")".into(),
        );
        return None;
    }
    let rate: u64 = ck.get(t, &RATE)?;
    let child_path = join(t.path, CHILD.name);
    let child = super::parse_child(ck, t, &child_path, default_limit)
        .unwrap_or_else(|| QueueSpec::droptail(Limit::Packets(1000)));
    let mut s = Spec::new(rate, child);
    if let Some(c) = ck.get::<u64>(t, &CEIL) {
        if c < rate {
            ck.err(
                &join(t.path, CEIL.name),
                t.t.get(CEIL.name),
                "ceil must be at least rate".into(),
            );
        }
        s.ceil = c;
        s.cburst = default_burst(c);
    }
    ck.get_into(t, &BURST, &mut s.burst);
    ck.get_into(t, &CBURST, &mut s.cburst);
    ck.get_into(t, &QUANTUM, &mut s.quantum);
    Some(s)
}

/// `mbuffer`: how deep a bucket may go into debt (60 s).
const MBUFFER_NS: i64 = 60_000_000_000;

impl QdiscSpec for Spec {
    type Q = Htb;
    fn build(&self) -> Htb {
        let rate = Ratecfg::new(self.rate);
        let ceil = Ratecfg::new(self.ceil);
        Htb {
            bucket: Bucket::full(rate, burst_ns(self.rate, self.burst) as i64),
            cbucket: Bucket::full(ceil, burst_ns(self.ceil, self.cburst) as i64),
            t_c: 0,
            child: Box::new(self.child.build()),
        }
    }
    fn limit(&self) -> Limit {
        self.child.limit()
    }
}

/// One htb class under the root.
#[derive(Debug)]
pub struct Htb {
    /// `tokens`/`buffer` at `rate`.
    bucket: Bucket,
    /// `ctokens`/`cbuffer` at `ceil`.
    cbucket: Bucket,
    /// ns.
    t_c: u64,
    pub child: Box<Qdisc>,
}

impl QueueDisc for Htb {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        self.child.enqueue(id, m)
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        if self.child.peek_len().is_none() {
            return self.child.dequeue(now, drops);
        }
        let now_ns = now / 1000;
        let diff = (now_ns - self.t_c).min(MBUFFER_NS as u64) as i64;
        let toks = self.bucket.refilled(diff);
        let ctoks = self.cbucket.refilled(diff);
        if toks < 0 || ctoks < 0 {
            // `htb_class_mode` → HTB_CANT_SEND: wait until the deeper debt is repaid.
            return Deq::NotBefore((now_ns + (-toks).max(-ctoks) as u64) * 1000);
        }
        let before = self.child.backlog();
        let d = self.child.dequeue(now, drops);
        if let Deq::Packet(..) = d {
            // The packet's length: what the child's backlog lost (exact; if the child also
            // dropped packets at this dequeue, their share of it is an average).
            let after = self.child.backlog();
            let n = (before.pkts - after.pkts).max(1);
            let len = ((before.bytes - after.bytes) / n) as u32;
            // `htb_charge_class`: charged after sending, debt bounded by mbuffer.
            self.bucket.tokens = (toks - self.bucket.cost(len)).max(1 - MBUFFER_NS);
            self.cbucket.tokens = (ctoks - self.cbucket.cost(len)).max(1 - MBUFFER_NS);
            self.t_c = now_ns;
        }
        d
    }

    /// `htb_reset`: the leaf's qdisc reset; the class's tokens are kept (its mode,
    /// `HTB_CAN_SEND` after a reset, is computed from them at the next dequeue).
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        self.child.reset(now, drops);
    }

    super::queue_is_the_childs!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::US;

    /// HTB-1: rate 800mbit with no burst or quantum: burst = 10⁸ B/s ÷ 10⁹ (integer: 0),
    /// plus 1600, = 1600 B; quantum = 10⁸ / 10 = 10⁷, clamped to 200,000. At 100 kbit/s
    /// the quantum is 12,500 / 10 = 1250 (above the floor of 1000); at 50 kbit/s, raised
    /// to 1000.
    #[test]
    fn htb1_defaults_as_tc_computes_them() {
        assert_eq!(default_burst(800_000_000), 1600);
        assert_eq!(default_quantum(800_000_000), 200_000);
        assert_eq!(default_quantum(100_000), 1250);
        assert_eq!(default_quantum(50_000), 1000);
        // 9.6 Gbit/s: 1.2·10⁹ / 10⁹ = 1 byte more.
        assert_eq!(default_burst(9_600_000_000), 1601);
    }

    /// rate 8 Mbit/s (1 B/µs), burst 1600 B (1.6 ms): 1500-byte packets queued at 10 ms.
    /// By hand: the first leaves at once (tokens 1600 µs ≥ 0, then 100), the second too
    /// (100 ≥ 0, then −1400), the third waits until the debt is repaid (1.4 ms), leaving
    /// at 11.4 ms (then −1500), the fourth at 12.9 ms, the fifth at 14.4 ms: htb charges
    /// after sending, so it sends one packet more than tbf would at the start.
    #[test]
    fn charges_after_sending() {
        let mut q = Spec {
            burst: 1600,
            cburst: 1600,
            ..Spec::new(8_000_000, QueueSpec::droptail(Limit::Packets(100)))
        }
        .build();
        let t0 = 10_000 * US;
        for id in 0..5 {
            let m = PktMeta {
                len: 1500,
                segs: 1,
                now: t0,
                ..Default::default()
            };
            q.enqueue(id, &m);
        }
        let mut drops = Vec::new();
        let (mut now, mut out) = (t0, Vec::new());
        while out.len() < 5 {
            match q.dequeue(now, &mut drops) {
                Deq::Packet(..) => out.push((now - t0) / US),
                Deq::NotBefore(t) => now = t,
                Deq::Empty => break,
            }
        }
        assert_eq!(out, vec![0, 0, 1400, 2900, 4400]);
    }
}
