//! Links that are not a fixed rate: a link's `rate` written as a table — a Mahimahi trace
//! (`{ trace = "file" }`) or a synthetic one generated from the run's seed (`markov`,
//! `onoff`) — which the port's discipline is put in front of (`qdisc/linkrate.rs`).
//!
//! The table is read where the link is (a dumbbell's `bottleneck`, a chain's `hops`, a
//! graph's `links`): the link table itself gets the mean rate ([`mean_rate`], what the
//! dumbbell's default access rate and every reader of `rate_bps` see), and the scenario a
//! [`LinkRateSpec`] per direction ([`parse`]), applied when the world is built
//! ([`super::Network::set_rate_source`]). Both directions of the link follow the table:
//! `trace` is the `from → to` direction (the dumbbell's `bottleneck`, Mahimahi's downlink
//! when the receivers are the phones), `reverse_trace` the `_rev` one (the uplink; the
//! same file when not given); a generated link draws each direction from its own stream.

pub mod events;

use super::{Network, PortId};
use crate::engine::{Rng, SimTime, SEC};
use crate::qdisc::linkrate::{mahimahi::Trace, LinkRate, Markov, RateSource};
use crate::qdisc::{Qdisc, QueueSpec};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::{fnv1a, InputFile, Key, Limit, Schema, Ty, FNV_START, REQUIRED};
use std::path::Path;
use std::sync::Arc;
use toml::Value;

/// The bits of a 1500-byte packet, the unit generated links' rates are given in.
const MTU_BITS: u64 = 1500 * 8;

/// The opportunities of one direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRateSpec {
    /// The port (a link direction: `bottleneck`, `bottleneck_rev`).
    pub link: String,
    pub source: RateSource,
}

const TRACE: Key = Key {
    name: "trace",
    ty: Ty::Str,
    default: "none",
    allowed: "a file of one integer per line, nondecreasing, at most 1000000000 (10⁶ s), the last above 0; relative to the scenario file's folder (a re-run of a run's folder, `cclab run DIR`, reads the file that run read: run.json's `inputs`)",
    meaning: "a Mahimahi trace (mm-link's format): one line per delivery opportunity of 1504 bytes (a 1500-byte packet and mm-link's 4-byte TUN header), its time in ms; it repeats with its last time as period",
};

const REVERSE_TRACE: Key = Key {
    name: "reverse_trace",
    ty: Ty::Str,
    default: "`trace`",
    allowed: "as `trace`",
    meaning: "the trace of the link's reverse direction (`{name}_rev`, the ACKs' way: Mahimahi's uplink when `trace` is its downlink)",
};

const MARKOV: Key = Key {
    name: "markov",
    ty: Ty::Table(&MARKOV_KEYS),
    default: "none",
    allowed: "",
    meaning: "a two-state (good/bad) Markov cellular link generated from the run's seed: `{ good = \"12Mbps\", bad = \"2Mbps\", good_time = \"2s\", bad_time = \"1s\" }`",
};

const ONOFF: Key = Key {
    name: "onoff",
    ty: Ty::Table(&ONOFF_KEYS),
    default: "none",
    allowed: "",
    meaning: "a Wi-Fi-like link that is on (evenly spaced opportunities at `rate`) and off (none) for exponentially distributed times: `{ rate = \"50Mbps\", on = \"200ms\", off = \"20ms\" }`",
};

/// A link's `rate` written as a table.
pub static RATE_KEYS: Schema = Schema {
    title: "Rate tables",
    place: "a rate table",
    noun: "rate",
    about: "A link's `rate` may be a table instead of a rate (on a dumbbell's `bottleneck`, a chain's `hops` and a graph's `links`): the link then delivers at the opportunities of a Mahimahi trace or of a model generated from the run's seed, following mm-link (`qdisc/linkrate.rs`): an opportunity carries 1504 bytes, shared by the small packets queued then or taken by a larger one that goes on in the next; a packet leaves at the opportunity of its last byte; an opportunity nothing waits for is lost. The port's queue (any discipline) is in front of it. Both directions of the link follow the table; the link's nominal rate (`rate_bps` in results, the dumbbell's default access rate) is the mean rate of 1500-byte packets. Give exactly one of `trace`, `markov`, `onoff`.",
    keys: &[TRACE, REVERSE_TRACE, MARKOV, ONOFF],
    with: &[],
    variants: None,
};

const GOOD: Key = Key {
    name: "good",
    ty: Ty::Rate,
    default: REQUIRED,
    allowed: "",
    meaning: "rate in the good state (1500-byte packets)",
};
const BAD: Key = Key {
    name: "bad",
    ty: Ty::Text("rate, or `\"0bps\"`"),
    default: REQUIRED,
    allowed: "0 or more",
    meaning: "rate in the bad state; 0: no delivery at all",
};
const GOOD_TIME: Key = Key {
    name: "good_time",
    ty: Ty::Interval,
    default: REQUIRED,
    allowed: "greater than zero; at least one 1500-byte packet at `good` (1 ms at 12 Mbit/s)",
    meaning: "mean time in the good state (exponentially distributed)",
};
const BAD_TIME: Key = Key {
    name: "bad_time",
    ty: Ty::Interval,
    default: REQUIRED,
    allowed: "greater than zero; with `bad` above 0, at least one 1500-byte packet at `bad`",
    meaning: "mean time in the bad state (exponentially distributed)",
};
const ARRIVALS: Key = Key {
    name: "arrivals",
    ty: Ty::Choice("arrivals", &["poisson", "even"]),
    default: "`\"poisson\"`",
    allowed: "",
    meaning: "opportunities within a state: a Poisson process at the state's rate (as Sprout models a cellular link's deliveries) or evenly spaced",
};

/// `markov = { … }`.
pub static MARKOV_KEYS: Schema = Schema {
    title: "markov tables",
    place: "a markov table",
    noun: "markov",
    about: "",
    keys: &[GOOD, BAD, GOOD_TIME, BAD_TIME, ARRIVALS],
    with: &[],
    variants: None,
};

const ON_RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: REQUIRED,
    allowed: "",
    meaning: "rate while on (1500-byte packets, evenly spaced)",
};
const ON: Key = Key {
    name: "on",
    ty: Ty::Interval,
    default: REQUIRED,
    allowed: "greater than zero; at least one 1500-byte packet at `rate`",
    meaning: "mean time on (exponentially distributed)",
};
const OFF: Key = Key {
    name: "off",
    ty: Ty::Interval,
    default: REQUIRED,
    allowed: "",
    meaning: "mean time off (exponentially distributed)",
};

/// `onoff = { … }`.
pub static ONOFF_KEYS: Schema = Schema {
    title: "onoff tables",
    place: "an onoff table",
    noun: "onoff",
    about: "",
    keys: &[ON_RATE, ON, OFF],
    with: &[],
    variants: None,
};

/// Read the trace file `name` that key `key` gives: relative to the scenario file
/// `ck.file`'s folder, or, in a re-run of a folder whose run read it (`ck.recorded`), the
/// file that run read, refused if its contents have changed. The file as read, and its
/// timestamps.
fn read_trace(ck: &Checker, key: &str, name: &str) -> Result<(InputFile, Arc<Trace>), String> {
    let recorded = ck.recorded.iter().find(|r| r.key == key && r.value == name);
    let path = match recorded {
        Some(r) => r.path.clone(),
        None => Path::new(ck.file)
            .parent()
            .map(|d| d.join(name))
            .unwrap_or_else(|| Path::new(name).to_path_buf()),
    };
    let text =
        crate::schema::read_text_limited(&path, crate::schema::MAX_INPUT_BYTES).map_err(|e| {
            match recorded {
                Some(_) => format!(
                    "cannot read trace file '{}' (the file the run recorded in {} read): {e}",
                    path.display(),
                    ck.file
                ),
                None => format!("cannot read trace file '{}': {e}", path.display()),
            }
        })?;
    let digest = fnv1a(FNV_START, text.bytes());
    if let Some(r) = recorded.filter(|r| r.digest != digest) {
        return Err(format!(
            "trace file '{}' has changed since the run recorded in {} read it (FNV-1a digest {digest:016x}, was {:016x}): put its contents back, or run the scenario file again (a new run, with a new id)",
            path.display(),
            ck.file,
            r.digest
        ));
    }
    let trace = Trace::parse(&text)
        .map(Arc::new)
        .map_err(|e| format!("trace file '{}': {e}", path.display()))?;
    let f = InputFile {
        key: key.to_string(),
        value: name.to_string(),
        path: std::path::absolute(&path).unwrap_or(path),
        digest,
    };
    Ok((f, trace))
}

/// The two directions' sources of rate table `rt` (errors reported; `None` if any).
fn read(ck: &mut Checker, rt: Tab) -> Option<(RateSource, RateSource)> {
    ck.check_keys(rt, &RATE_KEYS, None);
    let given: Vec<&str> = ["trace", "markov", "onoff"]
        .into_iter()
        .filter(|k| rt.t.contains_key(*k))
        .collect();
    if given.len() != 1 {
        ck.err(
            rt.path,
            None,
            format!(
                "a rate table takes exactly one of trace, markov, onoff; found {}",
                if given.is_empty() {
                    "none".to_string()
                } else {
                    given.join(", ")
                }
            ),
        );
        return None;
    }
    match given[0] {
        "trace" => {
            let name: String = ck.get(rt, &TRACE)?;
            let fwd = read_trace(ck, &join(rt.path, "trace"), &name);
            let fwd = match fwd {
                Ok((f, t)) => RateSource::Trace(f, t),
                Err(m) => {
                    ck.err(&join(rt.path, "trace"), rt.t.get("trace"), m);
                    return None;
                }
            };
            let rev = match ck.get::<String>(rt, &REVERSE_TRACE) {
                None if rt.t.contains_key("reverse_trace") => return None,
                None => fwd.clone(),
                Some(r) => match read_trace(ck, &join(rt.path, "reverse_trace"), &r) {
                    Ok((f, t)) => RateSource::Trace(f, t),
                    Err(m) => {
                        ck.err(
                            &join(rt.path, "reverse_trace"),
                            rt.t.get("reverse_trace"),
                            m,
                        );
                        return None;
                    }
                },
            };
            Some((fwd, rev))
        }
        "markov" => {
            if rt.t.contains_key("reverse_trace") {
                ck.err(
                    &join(rt.path, "reverse_trace"),
                    rt.t.get("reverse_trace"),
                    "reverse_trace goes with trace".into(),
                );
            }
            let path = join(rt.path, "markov");
            let mt = ck.table(rt, "markov", &path)?;
            ck.check_keys(mt, &MARKOV_KEYS, None);
            let good: Option<u64> = ck.need(mt, &GOOD, "\"12Mbps\"");
            let bad = match mt.t.get("bad") {
                None => {
                    ck.missing(mt, "bad", "\"1Mbps\"");
                    None
                }
                Some(v) => match zero_or_rate(v) {
                    Ok(r) => Some(r),
                    Err(m) => {
                        ck.err(&join(mt.path, "bad"), Some(v), m);
                        None
                    }
                },
            };
            let gt: Option<SimTime> = ck.need(mt, &GOOD_TIME, "\"2s\"");
            let bt: Option<SimTime> = ck.need(mt, &BAD_TIME, "\"500ms\"");
            let arrivals = ck
                .get::<String>(mt, &ARRIVALS)
                .unwrap_or_else(|| "poisson".into());
            let m = Markov {
                rate: [good?, bad?],
                mean: [gt?, bt?],
                poisson: arrivals == "poisson",
            };
            let states = [("good", "good_time"), ("bad", "bad_time")];
            check_states(ck, mt, &m, states)?;
            Some((RateSource::Markov(m.clone()), RateSource::Markov(m)))
        }
        _ => {
            let path = join(rt.path, "onoff");
            let ot = ck.table(rt, "onoff", &path)?;
            ck.check_keys(ot, &ONOFF_KEYS, None);
            let rate: Option<u64> = ck.need(ot, &ON_RATE, "\"50Mbps\"");
            let on: Option<SimTime> = ck.need(ot, &ON, "\"200ms\"");
            let off: Option<SimTime> = ck.need(ot, &OFF, "\"20ms\"");
            let m = Markov {
                rate: [rate?, 0],
                mean: [on?, off?],
                poisson: false,
            };
            check_states(ck, ot, &m, [("rate", "on"), ("", "off")])?;
            Some((RateSource::Markov(m.clone()), RateSource::Markov(m)))
        }
    }
}

/// Each delivering state of `m` (keys: its rate's, its mean time's) must last, on average,
/// at least one 1500-byte packet at its rate. A shorter state mostly ends before its first
/// opportunity: the generator draws states until one is long enough, which with evenly
/// spaced opportunities (`onoff`, `arrivals = "even"`) takes e^(packet time / mean) draws
/// — forever in practice (`1bps` for `200ms` states) — and the state's rate never shows.
/// A state that delivers nothing is a rate of 0 (`bad = "0bps"`, `onoff`'s off).
fn check_states(ck: &mut Checker, t: Tab, m: &Markov, keys: [(&str, &str); 2]) -> Option<()> {
    let mut ok = true;
    for (i, (rate_key, time_key)) in keys.into_iter().enumerate() {
        let rate = m.rate[i];
        if rate == 0 {
            continue;
        }
        let packet = (MTU_BITS as u128 * SEC as u128).div_ceil(rate as u128);
        if (m.mean[i] as u128) < packet {
            let packet = crate::schema::units::format_time(packet.min(u64::MAX as u128) as u64);
            ck.err(
                &join(t.path, time_key),
                t.t.get(time_key),
                format!(
                    "shorter than one 1500-byte packet at {rate_key} = {} ({packet}): the state would end before its first delivery; give {time_key} at least {packet} or a higher {rate_key} (a state that delivers nothing is a rate of 0)",
                    crate::schema::units::format_rate(rate)
                ),
            );
            ok = false;
        }
    }
    ok.then_some(())
}

/// A rate, or zero (`"0bps"`, `0`).
fn zero_or_rate(v: &Value) -> Result<u64, String> {
    let zero = match v {
        Value::Integer(0) => true,
        Value::String(s) => {
            let n: String = s
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            !n.is_empty() && n.parse::<f64>() == Ok(0.0)
        }
        _ => false,
    };
    if zero {
        return Ok(0);
    }
    crate::schema::check::rate(v)
}

/// The nominal rate of link table `t` whose `rate` is a table: the mean rate of its
/// forward direction, read (as `ck` reads it) without reporting anything ([`parse`]
/// reports); 1 when it cannot be read.
pub fn mean_rate(ck: &Checker, t: Tab) -> u64 {
    let mut quiet = Checker {
        file: ck.file,
        from_cli: Vec::new(),
        errors: Vec::new(),
        hosts: None,
        links: None,
        recorded: ck.recorded,
    };
    let Some(Value::Table(rt)) = t.t.get("rate") else {
        return 1;
    };
    let path = join(t.path, "rate");
    read(&mut quiet, Tab { path: &path, t: rt }).map_or(1, |(f, _)| f.mean_bps())
}

/// The link tables of topology `kind` whose `rate` may be a table, with the names of
/// their two directions.
fn link_tables<'v>(kind: &str, topo: Tab<'v>) -> Vec<(String, &'v toml::Table, String, String)> {
    let mut v = Vec::new();
    let path = topo.path;
    match kind {
        "dumbbell" => {
            if let Some(Value::Table(b)) = topo.t.get("bottleneck") {
                v.push((
                    join(path, "bottleneck"),
                    b,
                    "bottleneck".to_string(),
                    "bottleneck_rev".to_string(),
                ));
            }
        }
        "chain" | "graph" => {
            let key = if kind == "chain" { "hops" } else { "links" };
            if let Some(Value::Array(a)) = topo.t.get(key) {
                for (i, e) in a.iter().enumerate() {
                    if let Value::Table(l) = e {
                        let name = if kind == "chain" {
                            format!("hop{i}")
                        } else {
                            match l.get("name") {
                                Some(Value::String(n)) => n.clone(),
                                _ => continue,
                            }
                        };
                        let rev = format!("{name}_rev");
                        v.push((join(&join(path, key), &i.to_string()), l, name, rev));
                    }
                }
            }
        }
        _ => {}
    }
    v
}

/// Every rate table of `[topology]`, one [`LinkRateSpec`] per direction; a rate table
/// where none is taken is reported.
pub fn parse(ck: &mut Checker, root: Tab) -> Vec<LinkRateSpec> {
    let Some(Value::Table(topo)) = root.t.get("topology") else {
        return Vec::new();
    };
    let topo = Tab {
        path: "topology",
        t: topo,
    };
    let kind = match topo.t.get("kind") {
        Some(Value::String(k)) => k.to_lowercase(),
        _ => return Vec::new(),
    };
    let tables = link_tables(&kind, topo);
    let mut out = Vec::new();
    for (path, t, fwd, rev) in &tables {
        let Some(Value::Table(rt)) = t.get("rate") else {
            continue;
        };
        let rpath = join(path, "rate");
        if let Some((f, r)) = read(
            ck,
            Tab {
                path: &rpath,
                t: rt,
            },
        ) {
            out.push(LinkRateSpec {
                link: fwd.clone(),
                source: f,
            });
            out.push(LinkRateSpec {
                link: rev.clone(),
                source: r,
            });
        }
    }
    // A rate table anywhere else (a fat-tree's tier, a star's every link) is refused.
    let mut stray = Vec::new();
    find_rate_tables(topo.path, topo.t, &mut stray);
    for p in stray {
        if !tables.iter().any(|(tp, ..)| *tp == p) {
            let v = topo_get(topo.t, &p);
            ck.err(
                &join(&p, "rate"),
                v,
                "a rate table (trace, markov, onoff) is taken by a dumbbell's bottleneck, a chain's hops and a graph's links only; give a rate here".into(),
            );
        }
    }
    out
}

/// Paths of the tables under `t` (at `path`) whose `rate` is a table.
fn find_rate_tables(path: &str, t: &toml::Table, out: &mut Vec<String>) {
    for (k, v) in t {
        let p = join(path, k);
        match v {
            Value::Table(st) => {
                if matches!(st.get("rate"), Some(Value::Table(_))) {
                    out.push(p.clone());
                }
                if k != "rate" {
                    find_rate_tables(&p, st, out);
                }
            }
            Value::Array(a) => {
                for (i, e) in a.iter().enumerate() {
                    if let Value::Table(st) = e {
                        let ep = join(&p, &i.to_string());
                        if matches!(st.get("rate"), Some(Value::Table(_))) {
                            out.push(ep.clone());
                        }
                        find_rate_tables(&ep, st, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The `rate` value of the table at `path` (for the message).
fn topo_get<'v>(topo: &'v toml::Table, path: &str) -> Option<&'v Value> {
    let mut cur: &Value = topo.get(path.split('.').nth(1)?)?;
    for part in path.split('.').skip(2) {
        cur = match cur {
            Value::Table(t) => t.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    match cur {
        Value::Table(t) => t.get("rate"),
        _ => None,
    }
}

impl Network {
    /// Put port `port`'s discipline in front of a link whose deliveries come from `src`
    /// (drawn from `rng` if generated); the port then takes no serialisation time and
    /// runs on events (it is never direct: its discipline is not a FIFO that decides at
    /// arrival).
    pub fn set_rate_source(&mut self, port: PortId, src: &RateSource, rng: Rng) {
        let pr = self.port_mut(port);
        let placeholder = QueueSpec::droptail(Limit::Packets(0)).build();
        let child = std::mem::replace(&mut pr.qdisc, placeholder);
        pr.qdisc = Qdisc::Custom(Box::new(LinkRate::new(child, src, rng)));
        pr.set_zero_time(src.mean_bps());
    }
}

#[cfg(test)]
mod tests;
