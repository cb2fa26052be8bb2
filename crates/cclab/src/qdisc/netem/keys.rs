//! netem's scenario keys (part of `netem.rs`): tc-netem(8)'s words — `delay` with jitter,
//! correlation and `distribution`, `loss` (random, state, gemodel), `ecn`, `duplicate`,
//! `reorder` and `gap`, `rate` with its overheads, `limit` — read into a [`Spec`], with
//! iproute2 `tc/q_netem.c`'s refusals.

use super::*;

const PERCENT: &str = "percentage (`\"25%\"`) or number from 0 to 1";

const DELAY: Key = Key {
    name: "delay",
    ty: Ty::Text("time, or array [time, time, percentage]"),
    default: "`\"0s\"`",
    allowed: "`\"100ms\"` or `[\"100ms\", \"10ms\", \"25%\"]` (delay, jitter, correlation)",
    meaning: "netem `delay TIME [JITTER [CORRELATION]]`: the time each packet is held, varied by the jitter drawn from `distribution`",
};

const DISTRIBUTION: Key = Key {
    name: "distribution",
    ty: Ty::Choice("distribution", dist::NAMES),
    default: "`\"uniform\"`",
    allowed: "",
    meaning: "netem `distribution`: the jitter's distribution (needs a jitter); tables generated from iproute2's formulas",
};

const LOSS: Key = Key {
    name: "loss",
    ty: Ty::Text("percentage, or array"),
    default: "none",
    allowed: "`\"1%\"`, `[\"random\", P, CORR]`, `[\"state\", p13, p31, p32, p23, p14]`, `[\"gemodel\", p, r, 1-h, 1-k]` (trailing values may be left out: tc's defaults)",
    meaning: "netem `loss`: independent (or correlated) random loss, the 4-state Markov model or Gilbert-Elliott",
};

const ECN: Key = Key {
    name: "ecn",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning:
        "netem `ecn`: a loss marks an ECN-capable packet CE instead of dropping it (needs `loss`)",
};

const DUPLICATE: Key = Key {
    name: "duplicate",
    ty: Ty::Text("percentage, or array"),
    default: "none",
    allowed: "`\"1%\"` or `[\"1%\", \"25%\"]` (probability, correlation)",
    meaning: "netem `duplicate P [CORR]`: a packet is sent twice with probability P (the copy is never copied again)",
};

const REORDER: Key = Key {
    name: "reorder",
    ty: Ty::Text("percentage, or array [percentage, percentage]"),
    default: "none",
    allowed: "`\"25%\"` or `[\"25%\", \"50%\"]` (probability, correlation); needs a delay",
    meaning: "netem `reorder P [CORR]`: after `gap` − 1 delayed packets, each packet leaves at once with probability P",
};

const GAP: Key = Key {
    name: "gap",
    ty: Ty::Int(1, u32::MAX as i64),
    default: "`1` with `reorder`",
    allowed: "",
    meaning: "netem `gap N`: packets delayed between reorder chances (needs `reorder`)",
};

const RATE: Key = Key {
    name: "rate",
    ty: Ty::Text("rate, or array [rate, integer, integer, integer]"),
    default: "none",
    allowed: "`\"10Mbps\"` or `[\"10Mbps\", PACKETOVERHEAD, CELLSIZE, CELLOVERHEAD]` (bytes; overheads may be negative)",
    meaning: "netem `rate`: packets leave spaced by their serialisation time at this rate, length plus overhead rounded up to whole cells",
};

const LIMIT: Key = Key {
    name: "limit",
    ty: Ty::Int(1, u32::MAX as i64),
    default: "`1000`",
    allowed: "",
    meaning: "the most packets held; an arrival beyond it is dropped (netem `limit`, in packets)",
};

/// The keys inside `netem = { … }` (apart from the link's own `delay`).
pub static NETEM: Schema = Schema {
    title: "netem tables",
    place: "a netem table",
    noun: "netem",
    about: "",
    keys: &[
        DELAY,
        DISTRIBUTION,
        LOSS,
        ECN,
        DUPLICATE,
        REORDER,
        GAP,
        RATE,
        LIMIT,
    ],
    with: &[],
    variants: None,
};

const TABLE: Key = Key {
    name: "netem",
    ty: Ty::Table(&NETEM),
    default: "required",
    allowed: "",
    meaning: "netem's parameters: `{ delay = [\"100ms\", \"10ms\", \"25%\"], loss = \"1%\", limit = 10000 }`",
};

pub static KEYS: Schema = Schema {
    title: "netem",
    place: "a netem queue",
    noun: "queue",
    about: "Linux's netem (`sch_netem.c`): delay with jitter, correlation and distribution tables, loss models, reordering and a rate, with tc's words; packets leave in the order of their time to send. Its keys sit in a `netem = { … }` table, apart from the link's own `delay`.",
    keys: &[TABLE],
    with: &[],
    variants: None,
};

/// A percentage as tc's `get_percent` reads it: `"25%"`, or a fraction from 0 to 1.
fn percent(v: &Value) -> Result<f64, String> {
    let p = match v {
        Value::String(s) => {
            let t = s.trim();
            match t.strip_suffix('%') {
                Some(n) => n.trim().parse::<f64>().map(|x| x / 100.0),
                None => t.parse::<f64>(),
            }
            .map_err(|_| format!("expected a {PERCENT}, found \"{s}\""))?
        }
        Value::Float(x) => *x,
        Value::Integer(i) => *i as f64,
        other => return Err(format!("expected a {PERCENT}, found {}", type_name(other))),
    };
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("out of range: a {PERCENT}"))
    }
}

/// A value or an array of values: the array's items (one item for a plain value).
fn items(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    }
}

/// `[delay, jitter, correlation]` (trailing ones may be left out).
fn delay_of(v: &Value) -> Result<(SimTime, SimTime, u32), String> {
    let it = items(v);
    if it.is_empty() || it.len() > 3 {
        return Err("expected a time or [delay, jitter, correlation]".into());
    }
    let d = time(it[0])?;
    let j = it.get(1).map(|v| time(v)).transpose()?.unwrap_or(0);
    let c = it.get(2).map(|v| percent(v)).transpose()?.unwrap_or(0.0);
    // tabledist takes σ as an s32 of ns.
    if j / NS > i32::MAX as u64 {
        return Err("a jitter above 2.147 s does not fit netem's 32-bit σ".into());
    }
    Ok((d, j, prob_u32(c)))
}

/// `[probability, correlation]` (the correlation may be left out).
fn prob_corr(v: &Value) -> Result<(u32, u32), String> {
    let it = items(v);
    if it.is_empty() || it.len() > 2 {
        return Err(format!(
            "expected a {PERCENT}, or [probability, correlation]"
        ));
    }
    let p = percent(it[0])?;
    let c = it.get(1).map(|v| percent(v)).transpose()?.unwrap_or(0.0);
    Ok((prob_u32(p), prob_u32(c)))
}

/// `loss`, as tc's `netem_parse_opt` reads the words after `loss`.
pub(super) fn loss_of(v: &Value) -> Result<Loss, String> {
    let it = items(v);
    let model = match it.first() {
        Some(Value::String(s)) if s.trim().parse::<f64>().is_err() && !s.ends_with('%') => {
            s.trim().to_lowercase()
        }
        _ => {
            let (p, corr) = prob_corr(v)?;
            return Ok(Loss::Random { p, corr });
        }
    };
    let vals = it[1..]
        .iter()
        .map(|v| percent(v))
        .collect::<Result<Vec<f64>, String>>()?;
    let at = |i: usize, d: f64| vals.get(i).copied().unwrap_or(d);
    match model.as_str() {
        "random" if (1..=2).contains(&vals.len()) => Ok(Loss::Random {
            p: prob_u32(vals[0]),
            corr: prob_u32(at(1, 0.0)),
        }),
        // tc's defaults: p31 = 1 − p13, p32 = 0, p23 = 1, p14 = 0.
        "state" if (1..=5).contains(&vals.len()) => Ok(Loss::State {
            p13: prob_u32(vals[0]),
            p31: prob_u32(at(1, 1.0 - vals[0])),
            p32: prob_u32(at(2, 0.0)),
            p23: prob_u32(at(3, 1.0)),
            p14: prob_u32(at(4, 0.0)),
        }),
        // tc's defaults: r = 1, 1−h = 1 (h = 0), 1−k = 0; tc sends h = max − (1−h).
        "gemodel" if (1..=4).contains(&vals.len()) => Ok(Loss::Ge {
            p: prob_u32(vals[0]),
            r: prob_u32(at(1, 1.0)),
            h: u32::MAX - prob_u32(at(2, 1.0)),
            k1: prob_u32(at(3, 0.0)),
        }),
        "random" | "state" | "gemodel" => Err(format!(
            "loss {model} takes {} values",
            match model.as_str() {
                "random" => "1 or 2 (probability, correlation)",
                "state" => "1 to 5 (p13, p31, p32, p23, p14)",
                _ => "1 to 4 (p, r, 1-h, 1-k)",
            }
        )),
        _ => Err(format!(
            "unknown loss model \"{model}\": a {PERCENT}, or an array starting with \"random\", \"state\" or \"gemodel\""
        )),
    }
}

/// `rate`, `[rate, packetoverhead, cellsize, celloverhead]`: (bytes/s, overhead, cell,
/// cell overhead).
fn rate_of(v: &Value) -> Result<(u64, i32, u32, i32), String> {
    let it = items(v);
    if it.is_empty() || it.len() > 4 {
        return Err("expected a rate, or [rate, packetoverhead, cellsize, celloverhead]".into());
    }
    let bps = rate(it[0])?;
    if bps < 8 {
        return Err("netem's rate is whole bytes per second: at least 8bps".into());
    }
    let int = |i: usize, lo: i64, hi: i64| -> Result<i64, String> {
        it.get(i)
            .map(|v| int(lo, hi)(v))
            .transpose()
            .map(|x| x.unwrap_or(0))
    };
    let ovh = int(1, i32::MIN as i64, i32::MAX as i64)? as i32;
    let cell = int(2, 0, u32::MAX as i64)? as u32;
    let cell_ovh = int(3, i32::MIN as i64, i32::MAX as i64)? as i32;
    // tc hands the kernel bytes per second.
    Ok((bps / 8, ovh, cell, cell_ovh))
}

pub fn parse(ck: &mut Checker, t: Tab, _default_limit: Limit) -> Option<Spec> {
    let path = join(t.path, TABLE.name);
    let t = crate::qdisc::own_table(
        ck,
        t,
        TABLE.name,
        &path,
        &NETEM,
        "{ delay = \"50ms\" } (and optionally loss, reorder, rate, limit …)",
    )?;
    let errs = ck.errors.len();
    let mut s = Spec::fixed(0, 1000);
    if let Some((d, j, c)) = ck.opt(t, DELAY.name, delay_of) {
        (s.delay, s.jitter, s.delay_corr) = (d, j, c);
    }
    if let Some(d) = ck.get::<String>(t, &DISTRIBUTION) {
        s.dist = Dist::from_name(&d).unwrap_or(Dist::Uniform);
        if s.dist != Dist::Uniform && s.jitter == 0 {
            ck.err(
                &join(t.path, DISTRIBUTION.name),
                t.t.get(DISTRIBUTION.name),
                "a distribution needs a jitter: delay = [\"100ms\", \"10ms\"] (tc: \"distribution specified but no latency and jitter values\")".into(),
            );
        }
    }
    if let Some(l) = ck.opt(t, LOSS.name, loss_of) {
        s.loss = l;
    }
    s.ecn = ck.get(t, &ECN).unwrap_or(false);
    if s.ecn && s.loss == Loss::None {
        ck.err(
            &join(t.path, ECN.name),
            t.t.get(ECN.name),
            "ecn needs a loss model (tc: \"ecn requested without loss model\")".into(),
        );
    }
    if let Some((p, c)) = ck.opt(t, DUPLICATE.name, prob_corr) {
        (s.duplicate, s.dup_corr) = (p, c);
    }
    if let Some((p, c)) = ck.opt(t, REORDER.name, prob_corr) {
        (s.reorder, s.reorder_corr) = (p, c);
    }
    let gap: Option<i64> = ck.get(t, &GAP);
    if s.reorder > 0 {
        if s.delay == 0 {
            ck.err(
                &join(t.path, REORDER.name),
                t.t.get(REORDER.name),
                "reordering needs a delay (tc: \"reordering not possible without specifying some delay\")".into(),
            );
        }
        s.gap = gap.unwrap_or(1) as u32;
    } else if gap.is_some() {
        ck.err(
            &join(t.path, GAP.name),
            t.t.get(GAP.name),
            "gap needs a reorder probability (tc: \"gap specified without reorder probability\")"
                .into(),
        );
    }
    if let Some((r, o, c, co)) = ck.opt(t, RATE.name, rate_of) {
        (s.rate, s.packet_overhead, s.cell_size, s.cell_overhead) = (r, o, c, co);
    }
    s.limit = ck.get(t, &LIMIT).unwrap_or(1000);
    (ck.errors.len() == errs).then_some(s)
}
