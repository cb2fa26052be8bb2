//! The token-bucket policer of Linux `tc ... action police` (`net/sched/act_police.c`,
//! Linux 4.20 – 5.16; iproute2 `tc/m_police.c` and `tc/tc_core.c` for the units), and
//! `queue = "police"`: that policer in front of a drop-tail FIFO, as a policer attached
//! to a port's egress filter is (docs/references.md §6.1, §11).
//!
//! - **The bucket is time**, in nanoseconds (`tcfp_toks`): a packet of `len` bytes costs
//!   `len · 8·10⁹ / rate` ns, rounded down through the kernel's multiplier and shift (`psched_l2t_ns`, [`Ratecfg`]); the bucket holds at most `burst`'s time at
//!   the rate (`tcfp_burst`). tc turns `burst` bytes into time with `tc_calc_xmittime`,
//!   in its 64-ns ticks (`/proc/net/psched`: 15.625 ticks per µs) rounded up, and the
//!   kernel reads ticks back as `ticks << 6` ns: reproduced here, so `burst 100k` at
//!   1000 Mbit/s is 12,800 ticks = 819,200 ns.
//! - **A packet** (`tcf_police_act`): if `len ≤ mtu`, toks = min(now − t_c, burst) + the
//!   bucket, capped at burst, minus its cost; with a peak rate likewise in a bucket as
//!   deep as one `mtu` at the peak rate; both ≥ 0 ⇒ *conform*: the bucket and t_c are
//!   updated. Otherwise — tokens short, or **`len > mtu`, whatever the tokens** —
//!   *exceed*, and the bucket is left as it was.
//! - **mtu**: given, or what the kernel sets when tc gives none: 255 << the rate table's
//!   `cell_log`, which tc derives from an MTU of 2047: 2040 bytes. So after GRO (aggregates
//!   up to 64 KB), a policer without a large `mtu` drops every aggregate (seed 004's
//!   `mtu 100k`). Not modelled: Linux 5.17 ("act_police: more accurate MTU policing",
//!   backported to the 5.4, 5.10 and 5.15 stable lines) checks an aggregate's segments
//!   against `mtu` (`tcf_police_mtu_check`: `skb_gso_validate_mac_len`) and adds the MAC
//!   header to a packet's length at ingress, so on those kernels a default-`mtu` policer
//!   passes GRO aggregates its tokens allow.
//! - **Actions**: `conform` (default `pass`, tc's `ok`) and `exceed` (default `drop`;
//!   tc's own default is `reclassify`, which in a lone filter lets the packet through
//!   like `pass`: write `exceed = "pass"` for it).
//! - A policer never queues and never delays.
//!
//! Not modelled: `avrate`, `overhead`, `linklayer` (ATM cells), the packet-per-second
//! variant (`pkts_rate`).

use super::bucket::{Bucket, TwoBuckets};
use super::droptail::DropTail;
use super::Ratecfg;
use super::{Backlog, Deq, Offer, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// What a policer does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Let it through (tc `ok`, `pass`; `reclassify` and `continue` in a lone filter).
    Pass,
    /// Drop it (tc `drop`, `shot`).
    Drop,
}

/// A policer as a scenario describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoliceSpec {
    /// bit/s.
    pub rate: u64,
    /// bytes.
    pub burst: u64,
    /// bytes: longer packets always exceed.
    pub mtu: u64,
    /// bit/s, with a bucket of one `mtu`.
    pub peakrate: Option<u64>,
    pub conform: Action,
    pub exceed: Action,
}

/// The MTU the kernel sets when tc gives none: 255 << cell_log, with tc's cell_log for
/// an MTU of 2047 (`tc_calc_rtable`: the smallest with 2047 >> cell_log ≤ 255, i.e. 3).
pub const DEFAULT_MTU: u64 = 255 << 3;

/// tc's clock: `/proc/net/psched` gives 1000 ns per µs ÷ 64 ns per tick = 15.625 ticks
/// per µs (`tick_in_usec`), and the kernel reads a tick as 64 ns (`PSCHED_SHIFT` 6).
const TICKS_PER_US: f64 = 1000.0 / 64.0;
const TICK_NS: u64 = 64;

/// `burst` bytes at `rate` bit/s as tc hands them to the kernel, in ns: `tc_calc_xmittime`
/// (µs in double → ticks, rounded up as current iproute2 does; older releases truncated
/// the µs first, and then the ticks) → `PSCHED_TICKS2NS`.
pub fn burst_ns(rate_bps: u64, burst: u64) -> u64 {
    let us = 1e6 * burst as f64 / (rate_bps / 8) as f64;
    (us * TICKS_PER_US).ceil() as u64 * TICK_NS
}

/// The policer's state (`struct tcf_police` and its `tcf_police_params`).
#[derive(Clone, Debug)]
pub struct Policer {
    pub spec: PoliceSpec,
    /// `tcfp_toks`/`tcfp_burst` at the rate, `tcfp_ptoks`/`tcfp_mtu_ptoks` at the peak
    /// rate, and `tcfp_t_c` (the time of the last conforming packet).
    buckets: TwoBuckets,
    /// Packets that conformed and that exceeded.
    pub conformed: u64,
    pub exceeded: u64,
}

impl Policer {
    pub fn new(spec: PoliceSpec) -> Policer {
        let rate = Bucket::full(
            Ratecfg::new(spec.rate),
            burst_ns(spec.rate, spec.burst) as i64,
        );
        let peak = spec.peakrate.map(|p| {
            let peak = Ratecfg::new(p);
            Bucket::full(peak, peak.l2t(spec.mtu as u32))
        });
        Policer {
            spec,
            // `tcf_police_init`: the buckets start full.
            buckets: TwoBuckets::new(rate, peak),
            conformed: 0,
            exceeded: 0,
        }
    }

    /// The bucket's depth in ns.
    pub fn burst_ns(&self) -> u64 {
        self.buckets.rate.depth as u64
    }

    /// `tcf_police_act` for a packet of `len` bytes at `now`: true if it conforms.
    pub fn conforms(&mut self, len: u32, now: SimTime) -> bool {
        let now_ns = now / 1000;
        if len as u64 <= self.spec.mtu {
            let take = self.buckets.take(now_ns, len);
            if take.fits() {
                self.buckets.commit(now_ns, take);
                self.conformed += 1;
                return true;
            }
        }
        self.exceeded += 1;
        false
    }

    /// What happens to a packet of `len` bytes at `now`: the conform or the exceed action.
    #[inline]
    pub fn act(&mut self, len: u32, now: SimTime) -> Action {
        if self.conforms(len, now) {
            self.spec.conform
        } else {
            self.spec.exceed
        }
    }
}

pub const RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: "required",
    allowed: "",
    meaning: "the policed rate (tc `police rate`; tc's `mbit` is 10⁶ bit/s, as here)",
};
pub const BURST: Key = Key {
    name: "burst",
    ty: Ty::Size,
    default: "required",
    allowed: "greater than zero",
    meaning: "the bucket depth in bytes (tc `burst`; tc's `100k` is 102,400 bytes, `\"100KiB\"` here), kept as time at the rate as tc does (64-ns ticks)",
};
pub const MTU: Key = Key {
    name: "mtu",
    ty: Ty::Size,
    default: "`\"2040B\"`",
    allowed: "greater than zero",
    meaning: "a packet longer than this always exceeds, whatever the tokens (tc `mtu`; the kernel's default when tc gives none is 2040 B, so GRO aggregates need a large one)",
};
pub const PEAKRATE: Key = Key {
    name: "peakrate",
    ty: Ty::Rate,
    default: "none",
    allowed: "",
    meaning: "a second bucket at this rate, one `mtu` deep (tc `peakrate`)",
};
const ACTIONS: &[&str] = &["pass", "drop"];
pub const CONFORM: Key = Key {
    name: "conform",
    ty: Ty::Choice("policer action", ACTIONS),
    default: "`\"pass\"`",
    allowed: "",
    meaning: "what happens to a conforming packet (tc `conform-exceed …/ok`)",
};
pub const EXCEED: Key = Key {
    name: "exceed",
    ty: Ty::Choice("policer action", ACTIONS),
    default: "`\"drop\"`",
    allowed: "",
    meaning: "what happens to an exceeding packet (tc `drop`; tc's default `reclassify` lets it through in a lone filter: `\"pass\"`)",
};

/// The policer's own keys.
pub const POLICE_KEYS: [Key; 6] = [RATE, BURST, MTU, PEAKRATE, CONFORM, EXCEED];

/// Read a policer's keys from `t`.
pub fn parse_police(ck: &mut Checker, t: Tab) -> Option<PoliceSpec> {
    let before = ck.errors.len();
    for k in [&RATE, &BURST] {
        if !t.t.contains_key(k.name) {
            ck.err(
                &join(t.path, k.name),
                None,
                format!(
                    "a policer needs {} (e.g. rate = \"1000mbit\", burst = \"100KiB\")",
                    k.name
                ),
            );
        }
    }
    let rate = ck.get::<u64>(t, &RATE);
    let burst = ck.get::<u64>(t, &BURST);
    let mtu = ck.get::<u64>(t, &MTU).unwrap_or(DEFAULT_MTU);
    let peakrate = ck.get::<u64>(t, &PEAKRATE);
    let action = |s: Option<String>, d| match s.as_deref() {
        Some("pass") => Action::Pass,
        Some("drop") => Action::Drop,
        _ => d,
    };
    let conform = action(ck.get(t, &CONFORM), Action::Pass);
    let exceed = action(ck.get(t, &EXCEED), Action::Drop);
    for (k, v) in [(&BURST, burst), (&MTU, Some(mtu))] {
        if v == Some(0) {
            ck.err(
                &join(t.path, k.name),
                t.t.get(k.name),
                "must be greater than zero".into(),
            );
        }
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
    if ck.errors.len() != before {
        return None;
    }
    Some(PoliceSpec {
        rate: rate?,
        burst: burst?,
        mtu,
        peakrate,
        conform,
        exceed,
    })
}

/// `queue = "police"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub police: PoliceSpec,
    pub limit: Limit,
}

/// The keys inside `police = { … }` (apart from the link's own `rate`).
pub static POLICE: Schema = Schema {
    title: "police tables",
    place: "a police table",
    noun: "policer",
    about: "",
    keys: &[RATE, BURST, MTU, PEAKRATE, CONFORM, EXCEED],
    with: &[],
    variants: None,
};

const TABLE: Key = Key {
    name: "police",
    ty: Ty::Table(&POLICE),
    default: "required",
    allowed: "",
    meaning:
        "the policer's parameters: `{ rate = \"1000mbit\", burst = \"100KiB\", mtu = \"100KiB\" }`",
};

pub static KEYS: Schema = Schema {
    title: "Policer",
    place: "a police queue",
    noun: "queue",
    about: "A token-bucket policer (Linux `act_police`) in front of a drop-tail FIFO of `limit`, as a policer in a port's egress filter: a conforming packet is queued, an exceeding one dropped (or passed). It never delays. The policer's keys sit in a `police = { … }` table, apart from the link's own `rate`.",
    keys: &[super::droptail::LIMIT, TABLE],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, default_limit: Limit) -> Option<Spec> {
    let limit = ck.get(t, &super::droptail::LIMIT).unwrap_or(default_limit);
    let path = join(t.path, TABLE.name);
    let pt = super::own_table(
        ck,
        t,
        TABLE.name,
        &path,
        &POLICE,
        "{ rate = \"1000mbit\", burst = \"100KiB\" }",
    )?;
    let police = parse_police(ck, pt)?;
    Some(Spec { police, limit })
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<Police>;
    fn build(&self) -> Box<Police> {
        Box::new(self.build_unboxed())
    }
    fn limit(&self) -> Limit {
        self.limit_of()
    }
}

impl Spec {
    fn build_unboxed(&self) -> Police {
        Police {
            policer: Policer::new(self.police),
            tail: DropTail::new(self.limit),
        }
    }
    fn limit_of(&self) -> Limit {
        self.limit
    }
}

/// A policer in front of a drop-tail FIFO.
#[derive(Debug)]
pub struct Police {
    pub policer: Policer,
    pub tail: DropTail,
}

impl QueueDisc for Police {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        match self.policer.act(m.len, m.now) {
            Action::Drop => Verdict::Drop,
            Action::Pass => self.tail.enqueue(id, m),
        }
    }
    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        match self.policer.act(m.len, m.now) {
            Action::Drop => Offer::Drop,
            Action::Pass => self.tail.offer_idle(id, m),
        }
    }
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        self.tail.dequeue(now, drops)
    }
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        self.tail.reset(now, drops)
    }
    fn backlog(&self) -> Backlog {
        self.tail.backlog()
    }
    fn peek_len(&self) -> Option<u32> {
        self.tail.peek_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::US;

    fn spec(rate: u64, burst: u64, mtu: u64) -> PoliceSpec {
        PoliceSpec {
            rate,
            burst,
            mtu,
            peakrate: None,
            conform: Action::Pass,
            exceed: Action::Drop,
        }
    }

    /// tc's conversion of `burst 100k` (102,400 bytes) at 1000 Mbit/s: 819.2 µs =
    /// 12,800 ticks exactly = 819,200 ns. At 1 Mbit/s, burst 10,000 B is 80 ms = 1.25
    /// million ticks; 1,500 B at 3 Mbit/s is 4000 µs = 62,500 ticks = 4,000,000 ns; a burst
    /// that is not a whole tick is truncated: 1 byte at 1 Gbit/s = 8 ns = 0.125 tick → 0.
    #[test]
    fn burst_is_converted_to_time_as_tc_does() {
        assert_eq!(burst_ns(1_000_000_000, 102_400), 819_200);
        assert_eq!(burst_ns(1_000_000, 10_000), 80_000_000);
        assert_eq!(burst_ns(3_000_000, 1_500), 4_000_000);
        // 8 ns = 0.125 ticks, rounded up to one tick.
        assert_eq!(burst_ns(1_000_000_000, 1), 64);
    }

    /// POL-1: police rate 1gbit burst 100k with the default mtu (2040 B): every 64 KB GRO
    /// aggregate exceeds, however full the bucket.
    #[test]
    fn gro_aggregates_exceed_the_default_mtu() {
        let mut p = Policer::new(spec(1_000_000_000, 102_400, DEFAULT_MTU));
        for k in 0..100 {
            assert!(!p.conforms(65_212, k * 1000 * US));
        }
        assert_eq!((p.conformed, p.exceeded), (0, 100));
        // With mtu 100k (102,400 B) they pass while the bucket allows.
        let mut p = Policer::new(spec(1_000_000_000, 102_400, 102_400));
        assert!(p.conforms(65_212, SimTime::from(1_000_000u32)));
    }

    /// A train of 1000-byte packets every 4 µs (2 Gbit/s) into rate 1 Gbit/s (1000 B =
    /// 8 µs of tokens), burst 3000 B (24 µs = 375 ticks = 24,000 ns), starting full at
    /// t = 1 ms (t_c = 0, so the first packet finds min(1 ms, 24 µs) + 24 µs, capped: 24 µs).
    /// By hand, tokens in µs after each packet:
    /// p0 @0: 24 − 8 = 16 ✓; p1 @4: 16 + 4 − 8 = 12 ✓; p2 @8: 8 ✓; p3 @12: 4 ✓;
    /// p4 @16: 0 ✓; p5 @20: 0 + 4 − 8 < 0 ✗ (bucket unchanged, t_c stays 16);
    /// p6 @24: 0 + 8 − 8 = 0 ✓; p7 @28 ✗; p8 @32 ✓ … so after the burst, one in two.
    /// A 1500-byte packet with mtu 1400 in the middle exceeds and takes nothing.
    #[test]
    fn a_train_at_twice_the_rate_conforms_burst_then_one_in_two() {
        let mut p = Policer::new(spec(1_000_000_000, 3000, 1400));
        let t0 = 1000 * US;
        let got: Vec<bool> = (0..12).map(|k| p.conforms(1000, t0 + k * 4 * US)).collect();
        assert_eq!(
            got,
            [true, true, true, true, true, false, true, false, true, false, true, false]
        );
        // At t0 + 48 µs the bucket is 0 (last conform at 40 µs, 8 µs ago): a packet longer
        // than mtu exceeds without touching it, and the next 1000-byte packet conforms.
        assert!(!p.conforms(1500, t0 + 48 * US));
        assert!(p.conforms(1000, t0 + 48 * US));
        // TB-1 over a long run: bytes passed = burst + rate · T, within one packet.
        let mut p = Policer::new(spec(1_000_000_000, 3000, 1500));
        let mut passed = 0u64;
        let n = 100_000u64;
        for k in 0..n {
            if p.conforms(1000, t0 + k * 4 * US) {
                passed += 1000;
            }
        }
        let t_ns = (n - 1) * 4000;
        let want = 3000 + t_ns / 8; // rate 1 Gbit/s = 1 byte per 8 ns
        assert!(
            passed.abs_diff(want) <= 1000,
            "passed {passed}, b + rT = {want}"
        );
    }

    /// A peak rate of 2 Gbit/s, one mtu (1500 B = 6 µs) deep, spaces back-to-back packets:
    /// 1500-byte packets 1 µs apart into rate 1 Gbit/s with a large burst pass only every
    /// 6 µs (the peak bucket refills 1500 B in 6 µs), although the rate bucket holds plenty.
    #[test]
    fn a_peak_rate_spaces_back_to_back_packets() {
        let mut s = spec(1_000_000_000, 1_000_000, 1500);
        s.peakrate = Some(2_000_000_000);
        let mut p = Policer::new(s);
        let t0 = 10_000 * US;
        let got: Vec<u64> = (0..30).filter(|&k| p.conforms(1500, t0 + k * US)).collect();
        assert_eq!(got, vec![0, 6, 12, 18, 24]);
    }
}
