//! DualPI2's scenario keys, tc's words and defaults (iproute2 `tc/q_dualpi2.c`, the
//! `tc-dualpi2.8` man page), and their parsing into [`Params`] (moved from dualpi2.rs as
//! they were).

use super::*;

const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "`\"10000pkts\"` (Linux `dualpi2_reset_default`)",
    allowed: "a packet count, 1 to 4294967295",
    meaning: "packets both queues hold together (tc `limit`)",
};
const MEMLIMIT: Key = Key {
    name: "memlimit",
    ty: Ty::Bytes(1, u32::MAX as u64),
    default: "limit × 2 × 1500 B (30 MB)",
    allowed: "",
    meaning: "bytes both queues hold together (tc `memlimit`; Linux counts each packet's buffer, here its IP length)",
};
const TARGET: Key = Key {
    name: "target",
    ty: Ty::Time,
    default: "`\"15ms\"`",
    allowed: "",
    meaning: "the queue delay PI2 steers the older head to (tc `target`; whole µs)",
};
const TUPDATE: Key = Key {
    name: "tupdate",
    ty: Ty::Interval,
    default: "`\"16ms\"`",
    allowed: "at least 1 µs",
    meaning: "how often the base probability p' is recomputed (tc `tupdate`; whole µs)",
};
const ALPHA: Key = Key {
    name: "alpha",
    ty: Ty::Real(0.0, 8_388_607.0),
    default: "`0.16` (41/256 Hz)",
    allowed: "at least 1/256",
    meaning:
        "PI2's integral gain in Hz (tc `alpha`, passed to the kernel in 1/256 Hz, rounded down)",
};
const BETA: Key = Key {
    name: "beta",
    ty: Ty::Real(0.0, 8_388_607.0),
    default: "`3.2` (819/256 Hz)",
    allowed: "at least 1/256",
    meaning: "PI2's proportional gain in Hz (tc `beta`, in 1/256 Hz, rounded down)",
};
const MAX_RTT: Key = Key {
    name: "max_rtt",
    ty: Ty::Interval,
    default: "none",
    allowed: "",
    meaning: "derive target, tupdate, alpha and beta from the largest RTT to control, as tc does (RFC 9332 A.1: target = typical_rtt, tupdate = min(typical_rtt, max_rtt/3), alpha = 0.1·tupdate/max_rtt², beta = 0.3/max_rtt); overrides those four keys",
};
const TYPICAL_RTT: Key = Key {
    name: "typical_rtt",
    ty: Ty::Interval,
    default: "max_rtt / 6",
    allowed: "at most max_rtt",
    meaning: "with max_rtt (or alone: max_rtt = 6 × typical_rtt): the RTT the target is set to (tc `typical_rtt`)",
};
const STEP_THRESH: Key = Key {
    name: "step_thresh",
    ty: Ty::Text("time or packet count"),
    default: "`\"1ms\"`",
    allowed: "a time (`\"1ms\"`) or a packet count (`\"5pkts\"`, at most 4294967295)",
    meaning: "the L queue's step: a packet that waited longer (or leaves more packets behind it) is CE-marked (tc `step_thresh`)",
};
const MIN_QLEN_STEP: Key = Key {
    name: "min_qlen_step",
    ty: Ty::Int(0, u32::MAX as i64),
    default: "`0`",
    allowed: "",
    meaning: "the step applies only to a packet that found at least this many in the L queue (tc `min_qlen_step`)",
};
const COUPLING_FACTOR: Key = Key {
    name: "coupling_factor",
    ty: Ty::Int(1, 255),
    default: "`2`",
    allowed: "",
    meaning: "k: the L queue is marked with k·p', the C queue with p'² (tc `coupling_factor`)",
};
const ECN_MASK: Key = Key {
    name: "ecn_mask",
    ty: Ty::Choice("ECN classifier", &["l4s_ect", "any_ect"]),
    default: "`\"l4s_ect\"`",
    allowed: "",
    meaning: "which packets go to the L queue: ECT(1) and CE (`l4s_ect`), or every ECN-capable one (`any_ect`: DCTCP on ECT(0))",
};
const DROP_ON_OVERLOAD: Key = Key {
    name: "drop_on_overload",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "when k·p' exceeds 1, drop in both queues to keep the L queue's delay (tc `drop_on_overload`); false: keep marking and let the queue grow to its limit (tc `overflow`)",
};
const DROP_ENQUEUE: Key = Key {
    name: "drop_enqueue",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "the coupled marking and dropping at enqueue (tc `drop_enqueue`); false: at dequeue (tc `drop_dequeue`); the step is always at dequeue",
};
const CLASSIC_PROTECTION: Key = Key {
    name: "classic_protection",
    ty: Ty::Int(0, 100),
    default: "`10`",
    allowed: "",
    meaning: "the C queue's weight in percent in the round robin between the queues (tc `classic_protection`)",
};
const SPLIT_GSO: Key = Key {
    name: "split_gso",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "cut offload aggregates into their segments before queueing them (tc `split_gso`); false: one packet (tc `no_split_gso`)",
};

pub static KEYS: Schema = Schema {
    title: "DualPI2",
    place: "a dualpi2 queue",
    noun: "queue",
    about: "The DualQ Coupled AQM with PI2 (RFC 9332, Linux `sch_dualpi2`): ECT(1) and CE packets in a low-latency L queue with a 1 ms step marker, the rest in a classic C queue; one PI2 controller on the older head's delay (target 15 ms) marks the L queue with k·p' and the C queue with p'²; a weighted round robin gives the C queue at least `classic_protection` percent.",
    keys: &[
        LIMIT,
        MEMLIMIT,
        TARGET,
        TUPDATE,
        ALPHA,
        BETA,
        MAX_RTT,
        TYPICAL_RTT,
        STEP_THRESH,
        MIN_QLEN_STEP,
        COUPLING_FACTOR,
        ECN_MASK,
        DROP_ON_OVERLOAD,
        DROP_ENQUEUE,
        CLASSIC_PROTECTION,
        SPLIT_GSO,
    ],
    with: &[],
    variants: None,
};

/// `queue = "dualpi2"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub params: Params,
}

/// A time as tc passes it: whole µs, in ns.
pub(super) fn whole_us(t: SimTime) -> u64 {
    (t / 1_000_000).min(u32::MAX as u64) * 1000
}

/// tc's `parse_alpha_beta`: a gain in Hz as a `float`, times 256, rounded down.
pub fn tc_gain(hz: f64) -> u32 {
    ((hz as f32) * 256.0) as u32
}

/// tc's max_rtt / typical_rtt helper (µs in, as `get_time` gives): (target µs, tupdate µs,
/// alpha, beta in 1/256 Hz), or what is wrong.
pub fn auto_config(max_us: u32, typ_us: u32) -> Result<(u32, u32, u32, u32), String> {
    let (max, typ) = match (max_us, typ_us) {
        (m, 0) => (m, (m / RTT_TYP_TO_MAX).max(1)),
        (0, t) => (t.saturating_mul(RTT_TYP_TO_MAX), t),
        (m, t) if t > m => return Err("typical_rtt must be at most max_rtt".into()),
        (m, t) => (m, t),
    };
    let target = typ;
    let third = max as f64 / 3.0f32 as f64;
    let tupdate = (if (typ as f64) < third {
        typ as f64
    } else {
        third
    } as u32)
        .max(1);
    let alpha_f = tupdate as f64 / max as f64 / max as f64 * 1e6 * 0.1f32 as f64;
    let beta_f = 0.3f32 as f64 / max as f64 * 1e6;
    if beta_f > ((2u32 << 23) - 1) as f64 {
        return Err(format!(
            "max_rtt = {max} µs is too low: beta ({beta_f:.1} Hz) would overflow"
        ));
    }
    if alpha_f < 1.0 / 256.0 || beta_f < 1.0 / 256.0 {
        return Err(format!(
            "max_rtt = {max} µs is too large: alpha ({alpha_f}) or beta ({beta_f}) rounds down to 0"
        ));
    }
    Ok((
        target,
        tupdate,
        (alpha_f * 256.0) as u32,
        (beta_f * 256.0) as u32,
    ))
}

/// Read `step_thresh`: a time (whole µs, in ns) or a packet count.
fn step_thresh(v: &toml::Value) -> Result<(u64, bool), String> {
    let toml::Value::String(s) = v else {
        return Err("expected a time (\"1ms\") or a packet count (\"5pkts\") as a string".into());
    };
    if let Ok(t) = units::parse_time(s) {
        return Ok((whole_us(t), false));
    }
    match units::parse_limit(s) {
        Ok(Limit::Packets(n)) if n <= u32::MAX as u64 => Ok((n, true)),
        Ok(Limit::Packets(_)) => Err(format!(
            "\"{s}\": a packet count is at most 4294967295 (tc passes a u32)"
        )),
        _ => Err(format!(
            "\"{s}\" is neither a time (\"1ms\", \"500us\") nor a packet count (\"5pkts\")"
        )),
    }
}

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let mut p = Params::default();
    if t.t.contains_key("limit") {
        p.limit =
            crate::qdisc::codel::packet_limit(ck, t, "dualpi2", 10_000).min(u32::MAX as u64) as u32;
        p.memory_limit = memory_limit(p.limit);
    }
    ck.get_into(t, &MEMLIMIT, &mut p.memory_limit);
    if let Some(x) = ck.get::<SimTime>(t, &TARGET) {
        p.target = whole_us(x);
    }
    if let Some(x) = ck.get::<SimTime>(t, &TUPDATE) {
        p.tupdate = whole_us(x);
        if p.tupdate == 0 {
            ck.err(
                &join(t.path, "tupdate"),
                t.t.get("tupdate"),
                "tupdate is at least 1 µs (tc passes whole µs)".into(),
            );
            p.tupdate = 1000;
        }
    }
    for (key, slot) in [(&ALPHA, &mut p.alpha), (&BETA, &mut p.beta)] {
        if let Some(hz) = ck.get::<f64>(t, key) {
            let v = tc_gain(hz);
            if v == 0 || v > ALPHA_BETA_MAX {
                ck.err(
                    &join(t.path, key.name),
                    t.t.get(key.name),
                    format!(
                        "{} is at least 1/256 Hz (tc passes 1/256 Hz; {hz} rounds to 0)",
                        key.name
                    ),
                );
            } else {
                *slot = v;
            }
        }
    }
    let max_rtt = ck.get::<SimTime>(t, &MAX_RTT);
    let typ_rtt = ck.get::<SimTime>(t, &TYPICAL_RTT);
    if max_rtt.is_some() || typ_rtt.is_some() {
        let us = |x: Option<SimTime>| x.map_or(0, |t| (t / 1_000_000).min(u32::MAX as u64) as u32);
        match auto_config(us(max_rtt), us(typ_rtt)) {
            Ok((target, tupdate, alpha, beta)) => {
                p.target = target as u64 * 1000;
                p.tupdate = tupdate as u64 * 1000;
                p.alpha = alpha;
                p.beta = beta;
            }
            Err(m) => {
                let k = if max_rtt.is_some() {
                    "max_rtt"
                } else {
                    "typical_rtt"
                };
                ck.err(&join(t.path, k), t.t.get(k), m);
            }
        }
    }
    if let Some(v) = t.t.get(STEP_THRESH.name) {
        match step_thresh(v) {
            Ok((th, pkts)) => {
                p.step_thresh = th;
                p.step_in_packets = pkts;
            }
            Err(m) => ck.err(&join(t.path, STEP_THRESH.name), Some(v), m),
        }
    }
    ck.get_into(t, &MIN_QLEN_STEP, &mut p.min_qlen_step);
    ck.get_into(t, &COUPLING_FACTOR, &mut p.coupling_factor);
    if let Some(m) = ck.get::<String>(t, &ECN_MASK) {
        p.ecn_mask = if m == "any_ect" {
            ECN_MASK_ANY_ECT
        } else {
            ECN_MASK_L4S_ECT
        };
    }
    ck.get_into(t, &DROP_ON_OVERLOAD, &mut p.drop_overload);
    ck.get_into(t, &DROP_ENQUEUE, &mut p.drop_early);
    ck.get_into(t, &CLASSIC_PROTECTION, &mut p.c_protection);
    ck.get_into(t, &SPLIT_GSO, &mut p.split_gso);
    Some(Spec { params: p })
}
