//! The `queue = "fq"` description (part of [`super`], the discipline): its parameters
//! with `fq_init`'s defaults (Linux `net/sched/sch_fq.c` v6.6, documented in tc-fq(8)),
//! the keys a scenario sets them with, and reading them.

use super::{Fq, PSCHED_MTU};
use crate::engine::{SimTime, MS, SEC};
use crate::qdisc::{QdiscSpec, QueueSpec};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};

/// `queue = "fq"`, with `fq_init`'s defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// `sch->limit`: packets the qdisc holds at most.
    pub limit: u32,
    /// `flow_plimit`: packets one flow holds at most.
    pub flow_limit: u32,
    /// Bytes of credit a flow gets per round.
    pub quantum: u32,
    /// The credit of a new flow.
    pub initial_quantum: u32,
    /// `flow_refill_delay`.
    pub refill_delay: SimTime,
    /// `flow_max_rate`, bit/s; `None` = unlimited (`~0UL`).
    pub maxrate_bps: Option<u64>,
    /// bit/s (Linux keeps 550000 / 8 byte/s).
    pub low_rate_threshold_bps: u64,
    /// Hash buckets, a power of two (`1 << fq_trees_log`).
    pub buckets: u32,
    pub horizon: SimTime,
    pub horizon_drop: bool,
    /// `None` = off (Linux: ~0U µs, 71 minutes).
    pub ce_threshold: Option<SimTime>,
    /// `rate_enable`.
    pub pacing: bool,
}

impl Default for Spec {
    /// `fq_init`.
    fn default() -> Spec {
        Spec {
            limit: 10_000,
            flow_limit: 100,
            quantum: 2 * PSCHED_MTU,
            initial_quantum: 10 * PSCHED_MTU,
            refill_delay: 40 * MS,
            maxrate_bps: None,
            low_rate_threshold_bps: 550_000,
            buckets: 1024,
            horizon: 10 * SEC,
            horizon_drop: true,
            ce_threshold: None,
            pacing: true,
        }
    }
}

const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"10000pkts\"`",
    allowed: "a packet count greater than zero (fq limits packets, not bytes)",
    meaning: "packets the qdisc holds at most; an arrival beyond is dropped (tc-fq `limit`; the default is fq's whatever the port's)",
};

const FLOW_LIMIT: Key = Key {
    name: "flow_limit",
    ty: Ty::QueueLimit,
    default: "`\"100pkts\"`",
    allowed: "a packet count greater than zero",
    meaning: "packets one flow holds at most; an arrival beyond is dropped (tc-fq `flow_limit`)",
};

const QUANTUM: Key = Key {
    name: "quantum",
    ty: Ty::Bytes(1, 1 << 20),
    default: "`3028` (2 × 1514)",
    allowed: "1 to 1048576 bytes (the kernel's range)",
    meaning: "credit a flow gets per round robin turn; fq counts a packet as its IP length + 14 (the MAC header, as Linux on Ethernet), so 3028 is two 1500-byte packets (tc-fq `quantum`; tc's `k` is 1024, ours `KiB`)",
};

const INITIAL_QUANTUM: Key = Key {
    name: "initial_quantum",
    ty: Ty::Bytes(0, i32::MAX as u64),
    default: "`15140` (10 × 1514)",
    allowed: "0 to 2147483647 bytes (the credit is a signed 32-bit count)",
    meaning:
        "credit of a new flow: ten 1500-byte packets leave back to back (tc-fq `initial_quantum`)",
};

const MAXRATE: Key = Key {
    name: "maxrate",
    ty: Ty::Rate,
    default: "none (unlimited)",
    allowed: "",
    meaning: "most a flow may send: after each packet the flow waits its length (+ 14 B) at this rate, less a drift credit; a packet without earliest departure time is charged at least `quantum` bytes, once its flow's credit is spent (tc-fq `maxrate`, bits per second as tc's `mbit`)",
};

const LOW_RATE_THRESHOLD: Key = Key {
    name: "low_rate_threshold",
    ty: Ty::Rate,
    default: "`\"550kbit\"`",
    allowed: "",
    meaning: "below it (`maxrate` ≤ it), a packet without earliest departure time is delayed by its own length and its flow's credit is zeroed (tc-fq `low_rate_threshold`)",
};

const REFILL_DELAY: Key = Key {
    name: "refill_delay",
    ty: Ty::Time,
    default: "`\"40ms\"`",
    allowed: "",
    meaning: "a flow that comes back after being idle longer than this gets at least `quantum` of credit (tc-fq `refill_delay`)",
};

const BUCKETS: Key = Key {
    name: "buckets",
    ty: Ty::Int(2, 1 << 18),
    default: "`1024`",
    allowed: "a power of two from 2 to 262144",
    meaning: "size of the flow table; when it holds twice as many flows and more than half are idle, flows idle for more than 3 s are forgotten (tc-fq `buckets`)",
};

const HORIZON: Key = Key {
    name: "horizon",
    ty: Ty::Time,
    default: "`\"10s\"`",
    allowed: "",
    meaning: "a packet whose earliest departure time lies more than this in the future is dropped, or with `horizon_drop = false` sent at now + horizon (tc-fq `horizon`)",
};

const HORIZON_DROP: Key = Key {
    name: "horizon_drop",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "drop packets beyond the horizon (tc-fq `horizon_drop`), or cap their departure time (`horizon_cap`)",
};

const CE_THRESHOLD: Key = Key {
    name: "ce_threshold",
    ty: Ty::Time,
    default: "none (off)",
    allowed: "",
    meaning: "an ECT packet that leaves more than this after the time it was due is marked CE (tc-fq `ce_threshold`)",
};

const PACING: Key = Key {
    name: "pacing",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "apply `maxrate` (tc-fq `pacing` / `nopacing`); earliest departure times are honoured either way",
};

pub static KEYS: Schema = Schema {
    title: "Fair queue (fq)",
    place: "an fq queue",
    noun: "queue",
    about: "Linux `sch_fq` as of v6.6 (before 6.7's priority bands), with tc-fq's defaults: deficit round robin over the flows (one per connection), new flows first, and per-flow pacing. A packet leaves no earlier than its earliest departure time (what a paced TCP stamps on it) and, with `maxrate`, than its flow's rate allows; while no flow may send, the port waits for the first that may. Meant for a host's NIC (`access_queue`, a graph link from a host), usable on any port. Not modelled: the watchdog's `timer_slack` (it fires on time), `orphan_mask`, the high-priority `internal` flow.",
    keys: &[
        LIMIT,
        FLOW_LIMIT,
        QUANTUM,
        INITIAL_QUANTUM,
        MAXRATE,
        LOW_RATE_THRESHOLD,
        REFILL_DELAY,
        BUCKETS,
        HORIZON,
        HORIZON_DROP,
        CE_THRESHOLD,
        PACING,
    ],
    with: &[],
    variants: None,
};

/// Read a packet-count key: fq has no byte limits.
fn packets(ck: &mut Checker, t: Tab, k: &Key) -> Option<u32> {
    match ck.get::<Limit>(t, k)? {
        Limit::Packets(n) => Some(n.min(u64::from(u32::MAX)) as u32),
        Limit::Bytes(_) => {
            ck.err(
                &join(t.path, k.name),
                t.t.get(k.name),
                format!(
                    "fq's {} is a packet count, not a size (e.g. \"{}\")",
                    k.name,
                    if k.name == "limit" {
                        "10000pkts"
                    } else {
                        "100pkts"
                    }
                ),
            );
            None
        }
    }
}

/// Read `queue = "fq"`. The port's default limit does not apply: fq's is its own (10000).
pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut s = Spec::default();
    if let Some(n) = packets(ck, t, &LIMIT) {
        s.limit = n;
    }
    if let Some(n) = packets(ck, t, &FLOW_LIMIT) {
        s.flow_limit = n;
    }
    ck.get_into(t, &QUANTUM, &mut s.quantum);
    ck.get_into(t, &INITIAL_QUANTUM, &mut s.initial_quantum);
    s.maxrate_bps = ck.get(t, &MAXRATE);
    ck.get_into(t, &LOW_RATE_THRESHOLD, &mut s.low_rate_threshold_bps);
    ck.get_into(t, &REFILL_DELAY, &mut s.refill_delay);
    if let Some(b) = ck.get::<u32>(t, &BUCKETS) {
        if b.is_power_of_two() {
            s.buckets = b;
        } else {
            ck.err(
                &join(t.path, BUCKETS.name),
                t.t.get(BUCKETS.name),
                format!(
                    "buckets must be a power of two from 2 to 262144 (tc would round {b} down to {})",
                    1u32 << b.ilog2()
                ),
            );
        }
    }
    ck.get_into(t, &HORIZON, &mut s.horizon);
    ck.get_into(t, &HORIZON_DROP, &mut s.horizon_drop);
    s.ce_threshold = ck.get(t, &CE_THRESHOLD);
    ck.get_into(t, &PACING, &mut s.pacing);
    Some(s)
}

impl QdiscSpec for Spec {
    type Q = Box<Fq>;
    fn build(&self) -> Box<Fq> {
        Box::new(Fq::new(self.clone()))
    }
    fn limit(&self) -> Limit {
        Limit::Packets(u64::from(self.limit))
    }
}

impl QueueSpec {
    /// `fq` with these parameters.
    pub fn fq(spec: Spec) -> QueueSpec {
        QueueSpec::Fq(spec)
    }
}
