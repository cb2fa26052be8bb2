//! `queue = "tbf"`, `tbf = { rate = …, burst = …, limit = … }`: the token bucket filter (Linux `net/sched/sch_tbf.c`, Linux 3.13 – 6.x;
//! iproute2 `tc/q_tbf.c`; docs/references.md §11), a shaper: packets wait in a child qdisc until
//! the bucket holds their time.
//!
//! - **Buckets in time**, as the policer's (`police.rs`): `burst` bytes become ns at the
//!   rate (`buffer` = `psched_l2t_ns(rate, burst)`: tc hands `tbf_change` the bytes too,
//!   `TCA_TBF_BURST`, so no tick rounding, unlike the policer's and htb's buckets); a packet
//!   costs `len · 8·10⁹ / rate` ns. With `peakrate`, a second bucket one `mtu` deep at the
//!   peak rate (`TCA_TBF_PBURST`).
//! - **Largest packet** (`max_size`): `burst` (12,000 B for the seed's `rate 900mbit burst
//!   12000`), with a peak rate at most one `mtu`. An arrival longer than that is cut into its
//!   segments if it is a segmentation-offload aggregate whose segments fit (`tbf_segment`,
//!   Linux 3.13 and later), else dropped. Without a peak rate, tc's `mtu` changes nothing
//!   in a kernel that computes rates exactly (it only sized the old rate tables) — so the
//!   seed's `mtu 100000` is inert.
//! - **Child**: a `bfifo` of `limit` bytes, or `limit = rate · latency + burst` (with a peak
//!   rate, at most `peakrate · latency + mtu`) from `latency`; another qdisc given as
//!   `child` replaces it, as `tc qdisc add … parent 1: netem …` does — then `limit` and
//!   `latency` no longer matter (seed 004's `tbf … limit 500m` under `netem … limit 10000`
//!   holds 10,000 packets).
//! - **Dequeue** looks at the child's head only: toks = min(now − t_c, buffer) + tokens,
//!   capped at buffer, minus the head's cost (likewise the peak bucket); both ≥ 0 ⇒ send
//!   and keep the new buckets; else wait until now + max(−toks, −ptoks). A child that
//!   holds its head back (netem's delay) is waited for without charging the bucket.

use super::bucket::{Bucket, TwoBuckets};
use super::Ratecfg;
use super::{Backlog, Deq, PktMeta, Qdisc, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// `queue = "tbf"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// bit/s.
    pub rate: u64,
    /// bytes.
    pub burst: u64,
    pub peakrate: Option<u64>,
    /// bytes: the peak bucket's depth (tc `mtu` / `minburst`).
    pub mtu: u64,
    /// The child qdisc (a byte FIFO of tc's `limit` unless given).
    pub child: Box<QueueSpec>,
}

const RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: "required",
    allowed: "",
    meaning: "the shaped rate (tc `rate`; tc's `mbit` is 10⁶ bit/s, as here)",
};
const BURST: Key = Key {
    name: "burst",
    ty: Ty::Size,
    default: "required",
    allowed: "greater than zero",
    meaning: "the bucket depth in bytes (tc `burst`/`buffer`); it also bounds the largest packet (`max_size`)",
};
const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::Size,
    default: "required unless `latency` or `child`",
    allowed: "",
    meaning: "bytes the default child (a `bfifo`) holds (tc `limit`; tc's `500m` is 500 MiB, `\"500MiB\"` here)",
};
const LATENCY: Key = Key {
    name: "latency",
    ty: Ty::Time,
    default: "none",
    allowed: "",
    meaning: "instead of `limit`: limit = rate · latency + burst (with `peakrate`, at most peakrate · latency + mtu), as tc computes it",
};
const PEAKRATE: Key = Key {
    name: "peakrate",
    ty: Ty::Rate,
    default: "none",
    allowed: "above `rate`",
    meaning: "a second bucket, `mtu` deep, at this rate (tc `peakrate`)",
};
const MTU: Key = Key {
    name: "mtu",
    ty: Ty::Size,
    default: "`\"2047B\"`",
    allowed: "greater than zero",
    meaning: "the peak bucket's depth (tc `mtu`/`minburst`); without `peakrate` it changes nothing, as in a modern kernel",
};
const CHILD: Key = Key {
    name: "child",
    ty: Ty::Text("queue table"),
    default: "a `bfifo` of `limit` bytes",
    allowed:
        "a queue table, e.g. `{ queue = \"netem\", netem = { delay = \"50ms\", limit = 10000 } }`",
    meaning: "the qdisc the packets wait in (tc `qdisc add … parent 1: …`)",
};

/// The keys inside `tbf = { … }` (apart from the link's own `rate`).
pub static TBF: Schema = Schema {
    title: "tbf tables",
    place: "a tbf table",
    noun: "tbf",
    about: "",
    keys: &[RATE, BURST, LIMIT, LATENCY, PEAKRATE, MTU, CHILD],
    with: &[],
    variants: None,
};

const TABLE: Key = Key {
    name: "tbf",
    ty: Ty::Table(&TBF),
    default: "required",
    allowed: "",
    meaning:
        "the shaper's parameters: `{ rate = \"900mbit\", burst = \"12000B\", limit = \"500MiB\" }`",
};

pub static KEYS: Schema = Schema {
    title: "Token bucket filter",
    place: "a tbf queue",
    noun: "queue",
    about: "A shaper (Linux `sch_tbf`): packets wait in the child qdisc until the bucket holds their time; an arrival longer than the bucket carries is cut into its segments if it is an offload aggregate, else dropped. Its keys sit in a `tbf = { … }` table, apart from the link's own `rate`.",
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
        &TBF,
        "{ rate = \"900mbit\", burst = \"12000B\", limit = \"500MiB\" }",
    )?;
    let before = ck.errors.len();
    for k in [&RATE, &BURST] {
        if !t.t.contains_key(k.name) {
            ck.err(
                &join(t.path, k.name),
                None,
                format!("queue = \"tbf\" needs {} (e.g. rate = \"900mbit\", burst = \"12000B\", limit = \"500MiB\")", k.name),
            );
        }
    }
    let rate: Option<u64> = ck.get(t, &RATE);
    let burst: Option<u64> = ck.get(t, &BURST);
    let limit: Option<u64> = ck.get(t, &LIMIT);
    let latency: Option<SimTime> = ck.get(t, &LATENCY);
    let peakrate: Option<u64> = ck.get(t, &PEAKRATE);
    let mtu: u64 = ck.get(t, &MTU).unwrap_or(2047);
    if burst == Some(0) || mtu == 0 {
        let k = if burst == Some(0) { &BURST } else { &MTU };
        ck.err(
            &join(t.path, k.name),
            t.t.get(k.name),
            "must be greater than zero".into(),
        );
    }
    if let (Some(p), Some(r)) = (peakrate, rate) {
        if p <= r {
            ck.err(
                &join(t.path, PEAKRATE.name),
                t.t.get(PEAKRATE.name),
                "the peak rate must be above `rate` (tc refuses it otherwise)".into(),
            );
        }
    }
    let child_path = join(t.path, CHILD.name);
    let child = super::parse_child(ck, t, &child_path, default_limit);
    if child.is_none() && limit.is_none() && latency.is_none() {
        ck.err(
            &join(t.path, LIMIT.name),
            None,
            "queue = \"tbf\" needs limit or latency (as tc does), or a child queue".into(),
        );
    }
    if ck.errors.len() != before {
        return None;
    }
    let (rate, burst) = (rate?, burst?);
    let child = child.unwrap_or_else(|| {
        let bytes = limit.unwrap_or_else(|| {
            // tc q_tbf.c: lim = rate·latency + buffer; with a peak rate, min with
            // peakrate·latency + mtu.
            let lat = latency.unwrap_or(0) as f64 / 1e12;
            let mut lim = rate as f64 / 8.0 * lat + burst as f64;
            if let Some(p) = peakrate {
                lim = lim.min(p as f64 / 8.0 * lat + mtu as f64);
            }
            lim as u64
        });
        QueueSpec::droptail(Limit::Bytes(bytes))
    });
    Some(Spec {
        rate,
        burst,
        peakrate,
        mtu,
        child: Box::new(child),
    })
}

impl QueueSpec {
    /// tbf at `rate` with `burst` bytes over `child`.
    pub fn tbf(rate: u64, burst: u64, child: QueueSpec) -> QueueSpec {
        QueueSpec::Tbf(Spec {
            rate,
            burst,
            peakrate: None,
            mtu: 2047,
            child: Box::new(child),
        })
    }
}

impl QdiscSpec for Spec {
    type Q = Tbf;
    fn build(&self) -> Tbf {
        // tc hands the kernel `burst` (and, with a peak rate, `mtu`) in bytes as well as
        // in ticks (`TCA_TBF_BURST`, `TCA_TBF_PBURST`, iproute2 since 2014), and
        // `tbf_change` then takes the bytes: max_size = burst, buffer = `psched_l2t_ns(rate,
        // burst)`; with a peak rate, max_size = min(burst, mtu), mtu's bucket
        // `psched_l2t_ns(peak, mtu)`.
        let bytes = |b: u64| b.min(u32::MAX as u64) as u32;
        let rate = Ratecfg::new(self.rate);
        let mut max_size = bytes(self.burst) as u64;
        let peak = self.peakrate.map(|p| {
            max_size = max_size.min(bytes(self.mtu) as u64);
            let peak = Ratecfg::new(p);
            Bucket::full(peak, peak.l2t(bytes(self.mtu)))
        });
        Tbf {
            buckets: TwoBuckets::new(Bucket::full(rate, rate.l2t(bytes(self.burst))), peak),
            max_size,
            child: Box::new(self.child.build()),
        }
    }
    fn limit(&self) -> Limit {
        self.child.limit()
    }
}

/// The shaper's state (`struct tbf_sched_data`).
#[derive(Debug)]
pub struct Tbf {
    /// `tokens`/`buffer` at `rate`, `ptokens`/`mtu` at `peak`, and `t_c`.
    buckets: TwoBuckets,
    /// bytes.
    pub max_size: u64,
    pub child: Box<Qdisc>,
}

impl QueueDisc for Tbf {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if m.len as u64 > self.max_size {
            // `tbf_segment` for an aggregate whose segments fit; a segment is at most one
            // full-size packet of the aggregate.
            return if m.segs > 1 && (m.len / m.segs as u32) as u64 <= self.max_size {
                Verdict::Segment
            } else {
                Verdict::Drop
            };
        }
        self.child.enqueue(id, m)
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        let Some(len) = self.child.peek_len() else {
            return self.child.dequeue(now, drops);
        };
        let now_ns = now / 1000;
        let take = self.buckets.take(now_ns, len);
        if take.fits() {
            let d = self.child.dequeue(now, drops);
            if let Deq::Packet(..) = d {
                self.buckets.commit(now_ns, take);
            }
            return d;
        }
        Deq::NotBefore((now_ns + take.wait_ns()) * 1000)
    }

    /// `tbf_reset`: the child reset, the buckets full from now.
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        self.child.reset(now, drops);
        self.buckets.refill(now / 1000);
    }

    super::queue_is_the_childs!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::US;
    use crate::qdisc::Mark;

    fn meta(len: u32, segs: u16, now: SimTime) -> PktMeta {
        PktMeta {
            len,
            segs,
            now,
            ..Default::default()
        }
    }

    fn tbf(rate: u64, burst: u64) -> Tbf {
        Spec {
            rate,
            burst,
            peakrate: None,
            mtu: 2047,
            child: Box::new(QueueSpec::droptail(Limit::Bytes(1 << 30))),
        }
        .build()
    }

    /// TBF-1: a 45-segment GSO aggregate (65,160 B payload + 45 × 52 B headers = 67,500 B)
    /// into `burst 12000` is cut into its segments, not dropped (each 1500 B fits the
    /// 12,000-byte max_size: `tbf_change` takes `TCA_TBF_BURST`'s bytes, and the bucket is
    /// their time at 900 Mbit/s, 106,666 ns through `psched_l2t_ns`'s multiplier).
    /// TBF-2: a single 2000-byte packet with `burst 1500` is dropped at enqueue.
    #[test]
    fn aggregates_are_segmented_and_oversize_packets_dropped() {
        let mut q = tbf(900_000_000, 12_000);
        assert_eq!(q.max_size, 12_000);
        assert_eq!(q.buckets.rate.depth, 106_666);
        assert_eq!(q.enqueue(1, &meta(67_500, 45, 0)), Verdict::Segment);
        assert_eq!(q.enqueue(2, &meta(1500, 1, 0)), Verdict::ENQUEUE);
        let mut q = tbf(8_000_000, 1500);
        assert_eq!(q.enqueue(3, &meta(2000, 1, 0)), Verdict::Drop);
    }

    /// Rate 8 Mbit/s = 1 byte per µs, burst 3000 B (3 ms); five
    /// 1500-byte packets queued at t = 10 ms (the bucket is full): the first two leave at
    /// once (3000 B of tokens), then one every 1500 µs: at 11.5, 13 and 14.5 ms. By hand:
    /// after two, tokens 0; at 10 ms the third needs 1500 µs ⇒ NotBefore(11.5 ms).
    #[test]
    fn dequeue_times_follow_the_bucket() {
        let mut q = tbf(8_000_000, 3000);
        let t0 = 10_000 * US;
        for id in 0..5 {
            q.enqueue(id, &meta(1500, 1, t0));
        }
        let mut drops = Vec::new();
        let mut out = Vec::new();
        let mut now = t0;
        while out.len() < 5 {
            match q.dequeue(now, &mut drops) {
                Deq::Packet(id, Mark::None) => out.push((id, now)),
                Deq::NotBefore(t) => now = t,
                d => panic!("{d:?}"),
            }
        }
        let times: Vec<SimTime> = out.iter().map(|&(_, t)| (t - t0) / US).collect();
        assert_eq!(times, vec![0, 0, 1500, 3000, 4500]);
    }

    /// TB-2: a CBR source at twice the rate into a shaper with a queue: the output is the
    /// rate (1 byte/µs here: 1500-byte packets every 1500 µs once the burst is spent), the
    /// queue grows until its limit and then half the arrivals are dropped.
    #[test]
    fn cbr_at_twice_the_rate_leaves_at_the_rate() {
        // burst 3000 B (3 ms at 1 byte per µs).
        let mut q = Spec {
            rate: 8_000_000,
            burst: 3000,
            peakrate: None,
            mtu: 2047,
            child: Box::new(QueueSpec::droptail(Limit::Packets(10))),
        }
        .build();
        let mut drops = Vec::new();
        let (mut sent, mut dropped) = (0u64, 0u64);
        let t0 = 10_000 * US;
        for k in 0..2000u64 {
            let now = t0 + k * 750 * US; // 1500 B every 750 µs = 16 Mbit/s
            if q.enqueue(k as u32, &meta(1500, 1, now)) == Verdict::Drop {
                dropped += 1;
            }
            // The transmitter (infinitely fast) takes what the shaper releases until the
            // next arrival.
            let next = now + 750 * US;
            let mut t = now;
            loop {
                match q.dequeue(t, &mut drops) {
                    Deq::Packet(..) => sent += 1,
                    Deq::NotBefore(x) if x < next => t = x,
                    _ => break,
                }
            }
        }
        // 2000 arrivals over 1.5 s; the shaper sends the burst (2 packets) and then one per
        // 1500 µs: 2 + 999 = 1001 by the last arrival (±1 for where it falls), and the
        // queue of 10 holds the rest of what is not dropped.
        assert!(sent.abs_diff(1001) <= 1, "sent {sent}");
        assert_eq!(dropped + sent + q.backlog().pkts, 2000);
        assert_eq!(q.backlog().pkts, 10);
    }
}
