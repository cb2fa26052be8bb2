//! The TOML front end: scenario text plus `--set key=value` overrides → a validated
//! [`Scenario`], or *every* mistake in it at once.
//!
//! The file is read into a `toml::Table` and walked by hand rather than through
//! `#[derive(Deserialize)]`: serde stops at the first error and cannot say "unknown host
//! 'r7'; hosts are s0…s1, r0…r1", while a person fixing a scenario wants the whole list,
//! each naming the file, the key path (`flow.0.to`, the same syntax `--set` takes), the
//! value and what is allowed (DESIGN.md, "Errors for people"). The walk keeps going after
//! an error with a placeholder value, and checks that depend on a bad value are skipped,
//! so one mistake gives one message.
//!
//! Key paths: tables are joined with dots (`topology.bottleneck.rate`); elements of arrays
//! by their 0-based index (`flow.0.cc`, `topology.hops.2.delay`).

use std::fmt;
use std::path::Path;

use toml::{Table, Value};

use super::spec::AggregateSpec;
use super::spec::{
    ClassSpec, FlowSpec, Growth, Limit, LinkSpec, LossSpec, OutputSpec, PingSpec, QueueSpec,
    RtoMode, Scenario, Sched, TcpConfig, TopologySpec,
};
use super::units;
use crate::cc::CC_NAMES;
use crate::engine::{SimTime, US};

/// One mistake in a scenario: where it is and what would be allowed instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file, or `--set` when the value came from the command line.
    pub file: String,
    /// Dotted key path (`topology.bottleneck.rate`, `flow.0.cc`); empty for errors about
    /// the whole file (unreadable, not TOML).
    pub key: String,
    /// The offending value as written in TOML (`"10Gbs"`); empty when the key is missing.
    pub value: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.key.is_empty(), self.value.is_empty()) {
            (true, _) => write!(f, "{}: {}", self.file, self.message),
            (false, true) => write!(f, "{}: key '{}': {}", self.file, self.key, self.message),
            (false, false) => write!(
                f,
                "{}: key '{}' = {}: {}",
                self.file, self.key, self.value, self.message
            ),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Read and parse a scenario file; see [`parse_scenario`].
pub fn load_scenario(
    path: &Path,
    sets: &[(String, String)],
) -> Result<Scenario, Vec<ScenarioError>> {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse_scenario(&text, &file, sets),
        Err(e) => Err(vec![ScenarioError {
            file,
            key: String::new(),
            value: String::new(),
            message: format!("cannot read the scenario file: {e}"),
        }]),
    }
}

/// Parse scenario `text` (from `file`, used in messages and as the default `sim.name`),
/// apply `--set` overrides (`("tcp.cc", "reno")`, `("flow.0.stop", "2s")`), and validate
/// everything. Returns the scenario or every error found.
pub fn parse_scenario(
    text: &str,
    file: &str,
    sets: &[(String, String)],
) -> Result<Scenario, Vec<ScenarioError>> {
    let mut root: Table = match text.parse::<Table>() {
        Ok(t) => t,
        Err(e) => {
            return Err(vec![ScenarioError {
                file: file.to_string(),
                key: String::new(),
                value: String::new(),
                message: e.to_string().trim_end().to_string(),
            }])
        }
    };
    let mut ck = Checker {
        file,
        from_set: Vec::new(),
        errors: Vec::new(),
    };
    for (path, raw) in sets {
        ck.apply_set(&mut root, path, raw);
    }
    let scenario = ck.scenario(&root);
    match scenario {
        Some(s) if ck.errors.is_empty() => Ok(s),
        _ => {
            if ck.errors.is_empty() {
                // Unreachable by construction (a scenario is only withheld after an error),
                // but bad input must never panic.
                ck.push(
                    "",
                    "",
                    "internal error: the scenario could not be built".into(),
                );
            }
            Err(ck.errors)
        }
    }
}

// ---------------------------------------------------------------------------------------
// The schema: allowed keys per table.

const TOP_KEYS: &[&str] = &[
    "sim",
    "topology",
    "tcp",
    "flow",
    "ping",
    "aggregate",
    "loss",
    "output",
];
const AGG_KEYS: &[&str] = &[
    "aggregator",
    "workers",
    "response",
    "queries",
    "start",
    "think",
    "request_size",
];
const SIM_KEYS: &[&str] = &["name", "duration", "seed"];
/// Most points one time series (or pings of one probe) may hold over a run.
const MAX_SAMPLES: u64 = 10_000_000;
const KINDS: &[&str] = &["dumbbell", "star", "chain"];
const DUMBBELL_KEYS: &[&str] = &[
    "kind",
    "senders",
    "bottleneck",
    "access_rate",
    "access_delay",
    "access_queue",
];
const STAR_KEYS: &[&str] = &["kind", "senders", "link", "other_queue"];
const CHAIN_KEYS: &[&str] = &["kind", "hops"];
const LINK_KEYS: &[&str] = &[
    "rate",
    "delay",
    "queue",
    "limit",
    "k",
    "scheduler",
    "classes",
];
const QUEUE_KEYS: &[&str] = &["queue", "limit", "k", "scheduler", "classes"];
const QUEUE_KINDS: &[&str] = &["droptail", "ecn", "dscp"];
const CLASS_KEYS: &[&str] = &["dscp", "queue", "limit", "k", "weight"];
const TCP_KEYS: &[&str] = &[
    "cc",
    "hystart",
    "mtu",
    "sack",
    "ecn",
    "init_cwnd",
    "init_ssthresh",
    "rto_min",
    "rto_max",
    "rto_mode",
    "rto_initial",
    "delayed_ack",
    "delack_timeout",
    "quickack",
    "growth",
    "prr",
    "syn_ect",
    "dctcp_shift_g",
    "dctcp_alpha_on_init",
    "sndbuf",
    "rcvbuf",
    "dscp",
];
const FLOW_KEYS: &[&str] = &["from", "to", "start", "stop", "bytes"];
const PING_KEYS: &[&str] = &["from", "to", "start", "interval", "size", "ect", "dscp"];
const LOSS_KEYS: &[&str] = &["link", "rate", "drop_nth", "every"];
const DROP_KEYS: &[&str] = &["flow", "n"];
const OUTPUT_KEYS: &[&str] = &[
    "cwnd",
    "queue",
    "throughput",
    "plots",
    "queues",
    "tsg",
    "pcap",
];

const MAX_SENDERS: i64 = 100_000;

fn flow_keys() -> Vec<&'static str> {
    FLOW_KEYS.iter().chain(TCP_KEYS).copied().collect()
}

/// An `[[aggregate]]` takes its own keys and any `[tcp]` key for its connections.
fn aggregate_keys() -> Vec<&'static str> {
    AGG_KEYS.iter().chain(TCP_KEYS).copied().collect()
}

fn topology_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "dumbbell" => DUMBBELL_KEYS,
        "star" => STAR_KEYS,
        _ => CHAIN_KEYS,
    }
}

// ---------------------------------------------------------------------------------------
// Small helpers for messages.

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// A value as it would be written in TOML, shortened for messages.
fn show(v: &Value) -> String {
    fn go(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => out.push_str(&format!("{s:?}")),
            Value::Integer(i) => out.push_str(&i.to_string()),
            Value::Float(x) => out.push_str(&format!("{x:?}")),
            Value::Boolean(b) => out.push_str(&b.to_string()),
            Value::Datetime(d) => out.push_str(&d.to_string()),
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    go(x, out);
                }
                out.push(']');
            }
            Value::Table(t) => {
                out.push('{');
                for (i, (k, x)) in t.iter().enumerate() {
                    out.push_str(if i > 0 { ", " } else { " " });
                    out.push_str(k);
                    out.push_str(" = ");
                    go(x, out);
                }
                out.push_str(" }");
            }
        }
    }
    let mut s = String::new();
    go(v, &mut s);
    const MAX: usize = 80;
    if s.chars().count() > MAX {
        s = s.chars().take(MAX).collect::<String>() + "…";
    }
    s
}

/// `["a", "b"]` → `["\"a\"", "\"b\""]`, for lists of string values.
fn quoted(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| format!("\"{s}\"")).collect()
}

/// `a, b or c`.
fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Names with numbered runs folded: `s0, s1, …, s99` → `s0…s99`, so a 10 000-host
/// topology still gives a one-line message. Names are grouped by the text around their
/// first number, in order of first appearance.
fn name_list(names: &[String]) -> String {
    struct Group {
        pre: String,
        post: String,
        nums: Vec<u64>,
    }
    let mut groups: Vec<Group> = Vec::new();
    for n in names {
        let split = n.find(|c: char| c.is_ascii_digit()).and_then(|a| {
            let b = n[a..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(n.len(), |x| a + x);
            n[a..b]
                .parse::<u64>()
                .ok()
                .map(|num| (&n[..a], num, &n[b..]))
        });
        let (pre, num, post) = match split {
            Some(x) => x,
            None => {
                // No number: a group of its own, shown as is.
                groups.push(Group {
                    pre: n.clone(),
                    post: String::new(),
                    nums: Vec::new(),
                });
                continue;
            }
        };
        match groups
            .iter_mut()
            .find(|g| !g.nums.is_empty() && g.pre == pre && g.post == post)
        {
            Some(g) => g.nums.push(num),
            None => groups.push(Group {
                pre: pre.into(),
                post: post.into(),
                nums: vec![num],
            }),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|g| {
            let consecutive = g.nums.windows(2).all(|w| w[1] == w[0] + 1);
            match g.nums.as_slice() {
                [] => g.pre.clone(),
                [first, .., last] if g.nums.len() >= 3 && consecutive => {
                    format!("{0}{first}{1}…{0}{last}{1}", g.pre, g.post)
                }
                nums => nums
                    .iter()
                    .map(|x| format!("{}{x}{}", g.pre, g.post))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
        .collect();
    parts.join(", ")
}

/// Edit distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn suggestion<'a>(word: &str, allowed: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    allowed
        .into_iter()
        .map(|a| (distance(&word.to_lowercase(), a), a))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

fn unknown_key_message(key: &str, allowed: &[&str], place: &str) -> String {
    let hint = suggestion(key, allowed.iter().copied())
        .map(|s| format!("did you mean '{s}'? "))
        .unwrap_or_default();
    format!(
        "unknown key '{key}' in {place}; {hint}allowed keys: {}",
        allowed.join(", ")
    )
}

fn unknown_name_message(what: &str, name: &str, allowed: &[String]) -> String {
    // Names that differ only in their numbers ("r7" for "r0") get no suggestion: the
    // folded list ("r0…r1") already says which numbers exist.
    let skeleton = |x: &str| x.replace(|c: char| c.is_ascii_digit(), "");
    let hint = suggestion(name, allowed.iter().map(String::as_str))
        .filter(|s| skeleton(s) != skeleton(name))
        .map(|s| format!("did you mean \"{s}\"? "))
        .unwrap_or_default();
    format!(
        "unknown {what} \"{name}\"; {hint}this topology has: {}",
        name_list(allowed)
    )
}

// ---------------------------------------------------------------------------------------
// Value converters: each turns one TOML value into a typed value or a sentence.

fn bare_number_message(v: &Value, what: &str, hint: &str) -> String {
    match v {
        Value::Integer(_) | Value::Float(_) => {
            format!("a bare number is not a {what}: write it as a string with a unit; {hint}")
        }
        other => format!(
            "expected a {what} as a string with a unit, found {}; {hint}",
            type_name(other)
        ),
    }
}

/// A quantity written as a string with a unit, parsed by `parse`; anything else is
/// refused with a message saying how to write a `what`.
fn with_unit<T>(
    v: &Value,
    what: &str,
    hint: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, String> {
    match v {
        Value::String(s) => parse(s),
        _ => Err(bare_number_message(v, what, hint)),
    }
}

fn rate(v: &Value) -> Result<u64, String> {
    with_unit(v, "rate", units::RATE_HINT, units::parse_rate)
}

fn time(v: &Value) -> Result<SimTime, String> {
    with_unit(v, "time", units::TIME_HINT, units::parse_time)
}

fn positive_time(v: &Value) -> Result<SimTime, String> {
    match time(v)? {
        0 => Err("must be greater than zero".into()),
        t => Ok(t),
    }
}

fn size(v: &Value) -> Result<u64, String> {
    with_unit(v, "size", units::SIZE_HINT, units::parse_size)
}

fn limit(v: &Value) -> Result<Limit, String> {
    with_unit(v, "queue limit", units::LIMIT_HINT, units::parse_limit)
}

fn boolean(v: &Value) -> Result<bool, String> {
    match v {
        Value::Boolean(b) => Ok(*b),
        Value::String(s) if s == "true" || s == "false" => {
            Err(format!("write {s} without quotes (a TOML boolean)"))
        }
        other => Err(format!(
            "expected true or false, found {}",
            type_name(other)
        )),
    }
}

/// An integer in `lo..=hi`.
fn int(lo: i64, hi: i64) -> impl Fn(&Value) -> Result<i64, String> {
    move |v| {
        let range = if hi == i64::MAX {
            format!("an integer >= {lo}")
        } else {
            format!("an integer from {lo} to {hi}")
        };
        match v {
            Value::Integer(i) if (lo..=hi).contains(i) => Ok(*i),
            Value::Integer(_) => Err(format!("out of range: must be {range}")),
            Value::String(s) if s.trim().parse::<i64>().is_ok() => {
                Err(format!("write the number without quotes: must be {range}"))
            }
            other => Err(format!("expected {range}, found {}", type_name(other))),
        }
    }
}

/// A byte count written either as an integer (`84`) or a size (`"1500B"`), in `lo..=hi`.
fn bytes_in(lo: u64, hi: u64) -> impl Fn(&Value) -> Result<u64, String> {
    move |v| {
        let n = match v {
            Value::Integer(i) => u64::try_from(*i).map_err(|_| "cannot be negative".to_string())?,
            Value::String(s) => units::parse_size(s)?,
            other => {
                return Err(format!(
                    "expected a number of bytes (e.g. 1500 or \"1500B\"), found {}",
                    type_name(other)
                ))
            }
        };
        if (lo..=hi).contains(&n) {
            Ok(n)
        } else {
            Err(format!("out of range: must be from {lo} to {hi} bytes"))
        }
    }
}

fn string(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("expected a string, found {}", type_name(other))),
    }
}

/// One of a fixed set of words (case-insensitive); returns the canonical spelling.
fn choice<'a>(what: &'a str, allowed: &'a [&'a str]) -> impl Fn(&Value) -> Result<&'a str, String> {
    move |v| {
        let s = match v {
            Value::String(s) => s,
            other => {
                return Err(format!(
                    "expected {what} as a string ({}), found {}",
                    or_list(&quoted(allowed)),
                    type_name(other)
                ))
            }
        };
        let lower = s.to_lowercase();
        if let Some(a) = allowed.iter().find(|a| **a == lower) {
            return Ok(a);
        }
        let hint = suggestion(&lower, allowed.iter().copied())
            .map(|x| format!("did you mean \"{x}\"? "))
            .unwrap_or_default();
        Err(format!(
            "unknown {what} \"{s}\"; {hint}use {}",
            or_list(&quoted(allowed))
        ))
    }
}

fn cc_name(v: &Value) -> Result<String, String> {
    choice("congestion control", CC_NAMES)(v).map(str::to_string)
}

/// A host (`from`/`to`) or link name from the topology, when the topology is known.
fn name_in<'a>(
    what: &'a str,
    names: Option<&'a [String]>,
) -> impl Fn(&Value) -> Result<String, String> + 'a {
    move |v| {
        let s = match v {
            Value::String(s) => s,
            other => {
                return Err(format!(
                    "expected a {what} name as a string, found {}",
                    type_name(other)
                ))
            }
        };
        match names {
            Some(ns) if !ns.iter().any(|n| n == s) => Err(unknown_name_message(what, s, ns)),
            _ => Ok(s.clone()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The walk.

/// A table and its key path.
#[derive(Clone, Copy)]
struct Tab<'v> {
    path: &'v str,
    t: &'v Table,
}

struct Checker<'a> {
    file: &'a str,
    /// Key paths given with `--set`: errors under them are reported against `--set`.
    from_set: Vec<String>,
    errors: Vec<ScenarioError>,
}

impl Checker<'_> {
    fn push(&mut self, key: &str, value: &str, message: String) {
        let from_cli = self
            .from_set
            .iter()
            .any(|p| key == p || key.starts_with(&format!("{p}.")));
        self.errors.push(ScenarioError {
            file: if from_cli {
                "--set".into()
            } else {
                self.file.into()
            },
            key: key.into(),
            value: value.into(),
            message,
        });
    }

    fn err(&mut self, key: &str, v: Option<&Value>, message: String) {
        let value = v.map(show).unwrap_or_default();
        self.push(key, &value, message);
    }

    /// Read optional key `k` of `tab` with `conv`: `None` if absent or bad (bad is reported).
    fn opt<T>(
        &mut self,
        tab: Tab,
        k: &str,
        conv: impl Fn(&Value) -> Result<T, String>,
    ) -> Option<T> {
        let v = tab.t.get(k)?;
        match conv(v) {
            Ok(x) => Some(x),
            Err(m) => {
                self.err(&join(tab.path, k), Some(v), m);
                None
            }
        }
    }

    /// Check that a series sampled every `iv` (key `k` of `t`) stays within
    /// [`MAX_SAMPLES`] over the run; a finer interval would fill memory. False if not.
    fn check_samples(&mut self, t: Tab, k: &str, iv: SimTime, duration: Option<SimTime>) -> bool {
        let Some(d) = duration else { return true };
        let n = d / iv;
        if n > MAX_SAMPLES {
            self.err(
                &join(t.path, k),
                t.t.get(k),
                format!(
                    "{n} samples over sim.duration = {}; at most {MAX_SAMPLES} per series (an interval of at least {})",
                    units::format_time(d),
                    units::format_time(d.div_ceil(MAX_SAMPLES))
                ),
            );
            return false;
        }
        true
    }

    /// Optional sampling interval `k`: positive, and not so fine that the series would
    /// hold more than [`MAX_SAMPLES`] points.
    fn interval(&mut self, t: Tab, k: &str, duration: Option<SimTime>) -> Option<SimTime> {
        let iv = self.opt(t, k, positive_time)?;
        self.check_samples(t, k, iv, duration).then_some(iv)
    }

    /// Optional key `k` straight into `slot` (left as it is when absent or invalid).
    fn set<T>(
        &mut self,
        tab: Tab,
        k: &str,
        conv: impl Fn(&Value) -> Result<T, String>,
        slot: &mut T,
    ) {
        if let Some(x) = self.opt(tab, k, conv) {
            *slot = x;
        }
    }

    /// Read required key `k`; a missing key is reported with an example.
    fn req<T>(
        &mut self,
        tab: Tab,
        k: &str,
        example: &str,
        conv: impl Fn(&Value) -> Result<T, String>,
    ) -> Option<T> {
        if !tab.t.contains_key(k) {
            let place = if tab.path.is_empty() {
                "the file".to_string()
            } else if tab.path.contains('.') {
                format!("'{}'", tab.path)
            } else {
                format!("[{}]", tab.path)
            };
            self.err(
                &join(tab.path, k),
                None,
                format!("missing required key '{k}' in {place} (e.g. {k} = {example})"),
            );
            return None;
        }
        self.opt(tab, k, conv)
    }

    fn unknown_keys(&mut self, tab: Tab, allowed: &[&str], place: &str) {
        for (k, v) in tab.t {
            if !allowed.contains(&k.as_str()) {
                self.err(
                    &join(tab.path, k),
                    Some(v),
                    unknown_key_message(k, allowed, place),
                );
            }
        }
    }

    /// Sub-table `k` of `tab` (a `[k]` section or an inline `{ … }`), if present.
    fn table<'v>(&mut self, tab: Tab<'v>, k: &str, path: &'v str) -> Option<Tab<'v>> {
        match tab.t.get(k)? {
            Value::Table(t) => Some(Tab { path, t }),
            other => {
                self.err(
                    path,
                    Some(other),
                    format!(
                        "expected a table ([{path}] or {{ key = value, … }}), found {}",
                        type_name(other)
                    ),
                );
                None
            }
        }
    }

    /// The elements of `[[k]]`: `None` if absent; bad elements are reported and skipped.
    fn array_of_tables<'v>(&mut self, root: Tab<'v>, k: &str) -> Option<Vec<(String, &'v Table)>> {
        match root.t.get(k)? {
            Value::Array(a) => Some(
                a.iter()
                    .enumerate()
                    .filter_map(|(i, v)| match v {
                        Value::Table(t) => Some((format!("{k}.{i}"), t)),
                        other => {
                            self.err(
                                &format!("{k}.{i}"),
                                Some(other),
                                format!(
                                    "expected a table ([[{k}]] entry), found {}",
                                    type_name(other)
                                ),
                            );
                            None
                        }
                    })
                    .collect(),
            ),
            other => {
                let hint = if matches!(other, Value::Table(_)) {
                    format!("write [[{k}]] with double brackets: a scenario can have several")
                } else {
                    format!("expected [[{k}]] tables, found {}", type_name(other))
                };
                self.err(k, Some(other), hint);
                Some(Vec::new())
            }
        }
    }

    fn scenario(&mut self, root: &Table) -> Option<Scenario> {
        let root = Tab { path: "", t: root };
        self.unknown_keys(root, TOP_KEYS, "the top level");

        // [sim]
        let stem = Path::new(self.file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "scenario".into());
        let empty = Table::new();
        let sim = self.table(root, "sim", "sim").unwrap_or(Tab {
            path: "sim",
            t: &empty,
        });
        self.unknown_keys(sim, SIM_KEYS, "[sim]");
        let name = self
            .opt(sim, "name", |v| {
                let s = string(v)?;
                if s.is_empty() || s.contains(['/', '\\']) || s.chars().any(char::is_control) {
                    Err("a name must be non-empty, without slashes or control characters (it names output files)".into())
                } else {
                    Ok(s)
                }
            })
            .unwrap_or(stem);
        let duration = self.req(sim, "duration", "\"10s\"", positive_time);
        let seed = self
            .opt(sim, "seed", int(0, i64::MAX))
            .map_or(1, |s| s as u64);

        let topology = self.topology(root);
        let hosts = topology.as_ref().map(TopologySpec::host_names);
        let links = topology.as_ref().map(TopologySpec::link_names);

        // [tcp]: the defaults of every flow.
        let mut tcp = TcpConfig::default();
        if let Some(t) = self.table(root, "tcp", "tcp") {
            self.unknown_keys(t, TCP_KEYS, "[tcp]");
            self.tcp_fields(t, &mut tcp);
        }

        let flows = self.flows(root, topology.as_ref(), hosts.as_deref(), &tcp, duration);
        let pings = self.pings(root, hosts.as_deref(), duration);
        let aggregates = self.aggregates(root, hosts.as_deref(), &tcp);
        let losses = self.losses(root, links.as_deref(), flows.as_ref().map(Vec::len));
        let output = self.output(root, hosts.as_deref(), links.as_deref(), duration);

        Some(Scenario {
            name,
            duration: duration?,
            seed,
            topology: topology?,
            flows: flows?,
            pings,
            aggregates,
            losses,
            output,
        })
    }

    // ----- topology

    fn topology(&mut self, root: Tab) -> Option<TopologySpec> {
        if !root.t.contains_key("topology") {
            self.err(
                "topology",
                None,
                format!(
                    "missing required table [topology]; give it kind = {} and its links",
                    or_list(&quoted(KINDS))
                ),
            );
            return None;
        }
        let t = self.table(root, "topology", "topology")?;
        let kind = self.req(t, "kind", "\"dumbbell\"", choice("topology kind", KINDS));

        // Unknown keys, with a better message for keys that belong to another kind.
        let allowed = kind.map(topology_keys);
        for (k, v) in t.t {
            let key = k.as_str();
            let ok = match allowed {
                Some(a) => a.contains(&key),
                None => KINDS.iter().any(|kd| topology_keys(kd).contains(&key)),
            };
            if ok {
                continue;
            }
            let owner = KINDS.iter().find(|kd| topology_keys(kd).contains(&key));
            let msg = match (owner, kind) {
                (Some(o), Some(kd)) => format!(
                    "'{key}' is for kind = \"{o}\"; a {kd} topology takes: {}",
                    topology_keys(kd).join(", ")
                ),
                _ => {
                    let all: Vec<&str> = match allowed {
                        Some(a) => a.to_vec(),
                        None => {
                            let mut all: Vec<&str> = Vec::new();
                            for kd in KINDS {
                                for x in topology_keys(kd) {
                                    if !all.contains(x) {
                                        all.push(x);
                                    }
                                }
                            }
                            all
                        }
                    };
                    unknown_key_message(key, &all, "[topology]")
                }
            };
            self.err(&join("topology", key), Some(v), msg);
        }

        match kind? {
            "dumbbell" => self.dumbbell(t),
            "star" => self.star(t),
            _ => self.chain(t),
        }
    }

    /// `senders`: it decides the host names, so a bad value withholds the topology (and
    /// with it the host-name checks that would otherwise all fail too).
    fn senders(&mut self, t: Tab) -> Option<usize> {
        if !t.t.contains_key("senders") {
            return Some(1);
        }
        self.opt(t, "senders", int(1, MAX_SENDERS))
            .map(|n| n as usize)
    }

    fn dumbbell(&mut self, t: Tab) -> Option<TopologySpec> {
        let senders = self.senders(t);
        let bottleneck =
            self.link_table(t, "bottleneck", "topology.bottleneck", Limit::Packets(1000));
        let access_rate = self
            .opt(t, "access_rate", rate)
            .unwrap_or(bottleneck.rate_bps.saturating_mul(10));
        let n = senders.unwrap_or(1);
        let access_delay = match t.t.get("access_delay") {
            None => vec![US; n],
            Some(Value::Array(a)) => {
                let mut d = Vec::with_capacity(a.len());
                for (i, v) in a.iter().enumerate() {
                    match time(v) {
                        Ok(x) => d.push(x),
                        Err(m) => self.err(&format!("topology.access_delay.{i}"), Some(v), m),
                    }
                }
                if senders.is_some() && a.len() != n {
                    self.err(
                        "topology.access_delay",
                        t.t.get("access_delay"),
                        format!(
                            "the array has {} delays but there are {n} senders: give one per sender, or a single time for all",
                            a.len()
                        ),
                    );
                }
                d.resize(n, US);
                d
            }
            Some(v) => match time(v) {
                Ok(x) => vec![x; n],
                Err(m) => {
                    let m = if matches!(v, Value::String(_)) {
                        m
                    } else {
                        format!("{m} (or an array with one time per sender)")
                    };
                    self.err("topology.access_delay", Some(v), m);
                    vec![US; n]
                }
            },
        };
        let access_queue = self.side_queue(t, "access_queue");
        Some(TopologySpec::Dumbbell {
            senders: senders?,
            bottleneck,
            access_rate_bps: access_rate,
            access_delay,
            access_queue,
        })
    }

    /// The queue of the uncongested ports (`topology.KEY`): drop-tail, 10,000 packets
    /// unless the table says otherwise.
    fn side_queue(&mut self, t: Tab, key: &str) -> QueueSpec {
        let path = format!("topology.{key}");
        match self.table(t, key, &path) {
            Some(q) => {
                self.unknown_keys(q, QUEUE_KEYS, &path);
                self.queue_fields(q, Limit::Packets(10_000))
            }
            None => QueueSpec::DropTail {
                limit: Limit::Packets(10_000),
            },
        }
    }

    fn star(&mut self, t: Tab) -> Option<TopologySpec> {
        let senders = self.senders(t);
        let link = self.link_table(t, "link", "topology.link", Limit::Packets(1000));
        let other_queue = self.side_queue(t, "other_queue");
        Some(TopologySpec::Star {
            senders: senders?,
            link,
            other_queue,
        })
    }

    fn chain(&mut self, t: Tab) -> Option<TopologySpec> {
        let example = "[{ rate = \"1Gbps\", delay = \"10ms\" }]";
        let Some(v) = t.t.get("hops") else {
            self.err(
                "topology.hops",
                None,
                format!("missing required key 'hops' in 'topology' (e.g. hops = {example})"),
            );
            return None;
        };
        let Value::Array(a) = v else {
            self.err(
                "topology.hops",
                Some(v),
                format!(
                    "expected an array of links (e.g. hops = {example}), found {}",
                    type_name(v)
                ),
            );
            return None;
        };
        if a.is_empty() {
            self.err(
                "topology.hops",
                Some(v),
                format!("a chain needs at least one hop (e.g. hops = {example})"),
            );
            return None;
        }
        let mut hops = Vec::with_capacity(a.len());
        for (i, h) in a.iter().enumerate() {
            let path = format!("topology.hops.{i}");
            match h {
                Value::Table(ht) => {
                    hops.push(self.link_fields(Tab { path: &path, t: ht }, Limit::Packets(1000)))
                }
                other => {
                    self.err(&path, Some(other), format!("expected a link table such as {{ rate = \"1Gbps\", delay = \"10ms\" }}, found {}", type_name(other)));
                    hops.push(placeholder_link());
                }
            }
        }
        Some(TopologySpec::Chain { hops })
    }

    /// Required link sub-table `k` of `t`.
    fn link_table(&mut self, t: Tab, k: &str, path: &str, default_limit: Limit) -> LinkSpec {
        if !t.t.contains_key(k) {
            self.err(
                path,
                None,
                format!("missing required key '{k}' in 'topology' (e.g. {k} = {{ rate = \"1Gbps\", delay = \"10ms\" }})"),
            );
            return placeholder_link();
        }
        match self.table(t, k, path) {
            Some(lt) => self.link_fields(lt, default_limit),
            None => placeholder_link(),
        }
    }

    fn link_fields(&mut self, t: Tab, default_limit: Limit) -> LinkSpec {
        self.unknown_keys(t, LINK_KEYS, &format!("'{}'", t.path));
        let rate_bps = self.req(t, "rate", "\"1Gbps\"", rate).unwrap_or(1);
        let delay = self.req(t, "delay", "\"10ms\"", time).unwrap_or(0);
        let queue = self.queue_fields(t, default_limit);
        LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps,
            delay,
            queue,
        }
    }

    /// `queue = "dscp"`: classes selected by DSCP, a scheduler, an optional port buffer.
    fn classful_fields(&mut self, t: Tab, default_limit: Limit) -> QueueSpec {
        for k in ["k"] {
            if let Some(v) = t.t.get(k) {
                self.err(&join(t.path, k), Some(v), "k belongs to a class: classes = [{ dscp = [1], queue = \"ecn\", k = \"75KB\" }, …]".into());
            }
        }
        let sched = match self.opt(t, "scheduler", choice("scheduler", &["drr", "strict"])) {
            Some("strict") => Sched::Strict,
            _ => Sched::Drr,
        };
        let port_limit = self.opt(t, "limit", |v| match limit(v)? {
            Limit::Bytes(0) | Limit::Packets(0) => {
                Err("a queue limit must be greater than zero".into())
            }
            l => Ok(l),
        });
        let ckey = join(t.path, "classes");
        let mut classes = Vec::new();
        match t.t.get("classes") {
            None => self.err(&ckey, None, "queue = \"dscp\" needs classes = [{ dscp = [1], queue = \"ecn\", limit = \"300KB\", k = \"75KB\" }, { queue = \"droptail\" }] (a class without dscp is the default)".into()),
            Some(Value::Array(a)) => {
                for (i, v) in a.iter().enumerate() {
                    let path = format!("{ckey}.{i}");
                    let Value::Table(ct) = v else {
                        self.err(&path, Some(v), format!("expected a table {{ dscp = [1], queue = \"ecn\", … }}, found {}", type_name(v)));
                        continue;
                    };
                    let ctab = Tab { path: &path, t: ct };
                    self.unknown_keys(ctab, CLASS_KEYS, &format!("'{path}'"));
                    let dscp = self
                        .opt(ctab, "dscp", |v| {
                            let one = |x: &Value| match x {
                                Value::Integer(n) if (0..=63).contains(n) => Ok(*n as u8),
                                _ => Err(format!("a DSCP value is an integer 0..=63 (TOS 0x04 is DSCP 1), found {}", show(x))),
                            };
                            match v {
                                Value::Array(xs) => xs.iter().map(one).collect(),
                                x => one(x).map(|d| vec![d]),
                            }
                        })
                        .unwrap_or_default();
                    let weight = self.opt(ctab, "weight", int(1, 1000)).unwrap_or(1) as u32;
                    if let Some(Value::String(k)) = ct.get("queue") {
                        if k.eq_ignore_ascii_case("dscp") {
                            self.err(&join(&path, "queue"), ct.get("queue"), "a class's queue is \"droptail\" or \"ecn\", not another \"dscp\"".into());
                            continue;
                        }
                    }
                    let queue = self.queue_fields(ctab, default_limit);
                    classes.push(ClassSpec { dscp, queue, weight });
                }
                let defaults = classes.iter().filter(|c| c.dscp.is_empty()).count();
                if !classes.is_empty() && defaults != 1 {
                    self.err(&ckey, t.t.get("classes"), format!("exactly one class must have no dscp (the default class for all other traffic); found {defaults}"));
                }
            }
            Some(other) => self.err(&ckey, Some(other), format!("expected an array of class tables, found {}", type_name(other))),
        }
        if classes.is_empty() {
            return QueueSpec::DropTail {
                limit: default_limit,
            };
        }
        QueueSpec::Classes {
            classes,
            sched,
            limit: port_limit,
        }
    }

    /// `queue`, `limit` and `k` of a link or queue table.
    fn queue_fields(&mut self, t: Tab, default_limit: Limit) -> QueueSpec {
        let kind = self
            .opt(t, "queue", choice("queue discipline", QUEUE_KINDS))
            .unwrap_or("droptail");
        if kind == "dscp" {
            return self.classful_fields(t, default_limit);
        }
        for k in ["scheduler", "classes"] {
            if let Some(v) = t.t.get(k) {
                self.err(
                    &join(t.path, k),
                    Some(v),
                    format!("{k} only applies to queue = \"dscp\""),
                );
            }
        }
        let before = self.errors.len();
        let lim = self
            .opt(t, "limit", |v| match limit(v)? {
                Limit::Bytes(0) | Limit::Packets(0) => {
                    Err("a queue limit must be greater than zero".into())
                }
                l => Ok(l),
            })
            .unwrap_or(default_limit);
        let k_key = join(t.path, "k");
        let k = if kind == "ecn" {
            if !t.t.contains_key("k") {
                self.err(
                    &k_key,
                    None,
                    "queue = \"ecn\" needs k, the marking threshold (e.g. k = \"65pkts\" or k = \"75KB\")".into(),
                );
            }
            self.opt(t, "k", limit)
        } else {
            if let Some(v) = t.t.get("k") {
                self.err(
                    &k_key,
                    Some(v),
                    "k (the marking threshold) only applies to queue = \"ecn\"".into(),
                );
            }
            None
        };
        if let (Some(k), true) = (k, self.errors.len() == before) {
            let problem = match (k, lim) {
                (Limit::Packets(a), Limit::Packets(b)) | (Limit::Bytes(a), Limit::Bytes(b))
                    if a >= b =>
                {
                    Some(format!(
                        "the marking threshold must be below the queue limit ({})",
                        units::format_limit(lim)
                    ))
                }
                _ => None,
            };
            if let Some(m) = problem {
                self.err(&k_key, t.t.get("k"), m);
            }
        }
        match k {
            Some(k) => QueueSpec::Ecn { limit: lim, k },
            None => QueueSpec::DropTail { limit: lim },
        }
    }

    // ----- TCP

    /// Apply every `[tcp]` key present in `t` to `c`, then check the combinations.
    fn tcp_fields(&mut self, t: Tab, c: &mut TcpConfig) {
        let before = self.errors.len();
        self.set(t, "cc", cc_name, &mut c.cc);
        self.set(t, "hystart", boolean, &mut c.hystart);
        if let Some(x) = self.opt(t, "mtu", bytes_in(576, 65_535)) {
            c.mtu = x as u32;
        }
        self.set(t, "sack", boolean, &mut c.sack);
        self.set(t, "ecn", boolean, &mut c.ecn);
        if let Some(x) = self.opt(t, "init_cwnd", int(1, i64::from(u32::MAX))) {
            c.init_cwnd = x as u32;
        }
        if let Some(x) = self.opt(t, "init_ssthresh", |v| match v {
            Value::String(s) if matches!(s.to_lowercase().as_str(), "infinite" | "inf") => Ok(None),
            _ => int(1, i64::from(u32::MAX))(v)
                .map(|n| Some(n as u32))
                .map_err(|m| format!("{m} (segments), or \"infinite\" (the default)")),
        }) {
            c.init_ssthresh = x;
        }
        self.set(t, "rto_min", time, &mut c.rto_min);
        self.set(t, "rto_max", positive_time, &mut c.rto_max);
        if let Some(x) = self.opt(t, "rto_mode", choice("rto_mode", &["linux", "rfc6298"])) {
            c.rto_mode = if x == "linux" {
                RtoMode::Linux
            } else {
                RtoMode::Rfc6298
            };
        }
        self.set(t, "rto_initial", positive_time, &mut c.rto_initial);
        self.set(t, "delayed_ack", boolean, &mut c.delayed_ack);
        self.set(t, "delack_timeout", positive_time, &mut c.delack_timeout);
        if let Some(x) = self.opt(t, "quickack", int(0, i64::from(u32::MAX))) {
            c.quickack = x as u32;
        }
        if let Some(x) = self.opt(t, "growth", choice("growth", &["segments", "acks"])) {
            c.growth = if x == "segments" {
                Growth::Segments
            } else {
                Growth::Acks
            };
        }
        self.set(t, "prr", boolean, &mut c.prr);
        self.set(t, "syn_ect", boolean, &mut c.syn_ect);
        if let Some(x) = self.opt(t, "dctcp_shift_g", int(0, 10)) {
            c.dctcp_shift_g = x as u32;
        }
        if let Some(x) = self.opt(t, "dctcp_alpha_on_init", int(0, 1024)) {
            c.dctcp_alpha_on_init = x as u32;
        }
        self.set(t, "sndbuf", size, &mut c.sndbuf);
        self.set(t, "rcvbuf", size, &mut c.rcvbuf);
        if let Some(x) = self.opt(t, "dscp", int(0, 63)) {
            c.dscp = x as u8;
        }
        // Combinations, checked only when every key involved is valid, and reported only
        // where one of them is written, so a bad [tcp] is not reported again for every flow
        // that inherits it.
        let bad: Vec<String> = self.errors[before..]
            .iter()
            .map(|e| e.key.clone())
            .collect();
        let valid = |ks: &[&str]| ks.iter().all(|k| !bad.contains(&join(t.path, k)));
        let has = |ks: &[&str]| ks.iter().any(|k| t.t.contains_key(*k));
        if has(&["rto_min", "rto_max"]) && valid(&["rto_min", "rto_max"]) && c.rto_min > c.rto_max {
            let k = if t.t.contains_key("rto_min") {
                "rto_min"
            } else {
                "rto_max"
            };
            self.err(
                &join(t.path, k),
                t.t.get(k),
                format!(
                    "rto_min ({}) must not exceed rto_max ({})",
                    units::format_time(c.rto_min),
                    units::format_time(c.rto_max)
                ),
            );
        }
        for k in ["sndbuf", "rcvbuf"] {
            let b = if k == "sndbuf" { c.sndbuf } else { c.rcvbuf };
            if has(&[k, "mtu"]) && valid(&[k, "mtu"]) && b < u64::from(c.mtu) {
                let at = if t.t.contains_key(k) { k } else { "mtu" };
                self.err(
                    &join(t.path, at),
                    t.t.get(at),
                    format!(
                        "{k} ({b} B) must hold at least one packet (mtu = {} B)",
                        c.mtu
                    ),
                );
            }
        }
    }

    // ----- traffic

    fn flows(
        &mut self,
        root: Tab,
        topology: Option<&TopologySpec>,
        hosts: Option<&[String]>,
        tcp: &TcpConfig,
        duration: Option<SimTime>,
    ) -> Option<Vec<FlowSpec>> {
        let Some(tables) = self.array_of_tables(root, "flow") else {
            // No [[flow]]: one bulk flow per sender, for the whole run.
            return topology.map(|t| {
                t.default_pairs()
                    .into_iter()
                    .map(|(from, to)| FlowSpec {
                        from,
                        to,
                        start: 0,
                        stop: None,
                        bytes: None,
                        tcp: tcp.clone(),
                    })
                    .collect()
            });
        };
        let allowed = flow_keys();
        let mut flows = Vec::new();
        for (path, t) in &tables {
            let t = Tab { path, t };
            self.unknown_keys(t, &allowed, "[[flow]]");
            let (from, to) = self.endpoints(t, hosts, "s0", "r0");
            let (start, stop) = self.start_stop(t, duration);
            let bytes = self.opt(t, "bytes", |v| match size(v)? {
                0 => Err("must be greater than zero".into()),
                b => Ok(b),
            });
            let mut c = tcp.clone();
            self.tcp_fields(t, &mut c);
            flows.push(FlowSpec {
                from: from.unwrap_or_default(),
                to: to.unwrap_or_default(),
                start,
                stop,
                bytes,
                tcp: c,
            });
        }
        // A table dropped as malformed leaves the count unknown for `drop_nth` checks.
        let complete =
            matches!(root.t.get("flow"), Some(Value::Array(a)) if a.len() == tables.len());
        (topology.is_some() && complete).then_some(flows)
    }

    /// `from` and `to` of a flow or ping: both required, known hosts, different.
    fn endpoints(
        &mut self,
        t: Tab,
        hosts: Option<&[String]>,
        ex_from: &str,
        ex_to: &str,
    ) -> (Option<String>, Option<String>) {
        let from = self.req(t, "from", &format!("\"{ex_from}\""), name_in("host", hosts));
        let to = self.req(t, "to", &format!("\"{ex_to}\""), name_in("host", hosts));
        if let (Some(f), Some(to_)) = (&from, &to) {
            if f == to_ {
                self.err(
                    &join(t.path, "to"),
                    t.t.get("to"),
                    format!("'to' is the same host as 'from' (\"{f}\"): traffic needs two different hosts"),
                );
            }
        }
        (from, to)
    }

    /// Optional `start`, which must come before the end of the run.
    fn start(&mut self, t: Tab, duration: Option<SimTime>) -> Option<SimTime> {
        let start = self.opt(t, "start", time);
        if let (Some(s), Some(d)) = (start, duration) {
            if s >= d {
                self.err(
                    &join(t.path, "start"),
                    t.t.get("start"),
                    format!(
                        "starts at or after the end of the run (sim.duration = {})",
                        units::format_time(d)
                    ),
                );
            }
        }
        start
    }

    /// `start` and optional `stop` of a flow, checked against the run's duration.
    fn start_stop(&mut self, t: Tab, duration: Option<SimTime>) -> (SimTime, Option<SimTime>) {
        let start = self.start(t, duration);
        let stop = self.opt(t, "stop", time);
        if let Some(e) = stop {
            let k = join(t.path, "stop");
            let v = t.t.get("stop");
            if start.is_some_and(|s| e <= s) || (!t.t.contains_key("start") && e == 0) {
                self.err(
                    &k,
                    v,
                    format!(
                        "must be later than start ({})",
                        units::format_time(start.unwrap_or(0))
                    ),
                );
            } else if let Some(d) = duration.filter(|d| e > *d) {
                self.err(
                    &k,
                    v,
                    format!(
                        "is after the end of the run (sim.duration = {})",
                        units::format_time(d)
                    ),
                );
            }
        }
        (start.unwrap_or(0), stop)
    }

    fn pings(
        &mut self,
        root: Tab,
        hosts: Option<&[String]>,
        duration: Option<SimTime>,
    ) -> Vec<PingSpec> {
        let tables = self.array_of_tables(root, "ping").unwrap_or_default();
        let mut pings = Vec::new();
        for (path, t) in &tables {
            let t = Tab { path, t };
            self.unknown_keys(t, PING_KEYS, "[[ping]]");
            let (from, to) = self.endpoints(t, hosts, "s0", "r0");
            let start = self.start(t, duration);
            let interval = self.req(t, "interval", "\"200ms\"", positive_time);
            if let Some(iv) = interval {
                self.check_samples(t, "interval", iv, duration);
            }
            let size = self.opt(t, "size", bytes_in(28, 65_535));
            let ect = self.opt(t, "ect", boolean);
            let dscp = self.opt(t, "dscp", int(0, 63));
            pings.push(PingSpec {
                from: from.unwrap_or_default(),
                to: to.unwrap_or_default(),
                start: start.unwrap_or(0),
                interval: interval.unwrap_or(1),
                size: size.map_or(84, |s| s as u32),
                ect: ect.unwrap_or(false),
                dscp: dscp.map_or(0, |d| d as u8),
            });
        }
        pings
    }

    /// `[[aggregate]]`: partition/aggregate queries; `workers = "all"` means every host
    /// except the aggregator. Any `[tcp]` key may be set for the workers' connections.
    fn aggregates(
        &mut self,
        root: Tab,
        hosts: Option<&[String]>,
        tcp: &TcpConfig,
    ) -> Vec<AggregateSpec> {
        let tables = self.array_of_tables(root, "aggregate").unwrap_or_default();
        let mut out = Vec::new();
        for (path, t) in &tables {
            let t = Tab { path, t };
            let allowed = aggregate_keys();
            self.unknown_keys(t, &allowed, "[[aggregate]]");
            let agg = self.req(t, "aggregator", "\"recv\"", name_in("host", hosts));
            let workers = match t.t.get("workers") {
                None => hosts
                    .map(|h| {
                        h.iter()
                            .filter(|x| Some(*x) != agg.as_ref())
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default(),
                Some(Value::String(w)) if w == "all" => hosts
                    .map(|h| {
                        h.iter()
                            .filter(|x| Some(*x) != agg.as_ref())
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default(),
                Some(Value::Array(a)) => {
                    let check = name_in("host", hosts);
                    let mut ws = Vec::new();
                    for (i, v) in a.iter().enumerate() {
                        match check(v) {
                            Ok(w) if Some(&w) == agg.as_ref() => self.err(
                                &format!("{path}.workers.{i}"),
                                Some(v),
                                "the aggregator cannot be its own worker".into(),
                            ),
                            Ok(w) => ws.push(w),
                            Err(m) => self.err(&format!("{path}.workers.{i}"), Some(v), m),
                        }
                    }
                    ws
                }
                Some(v) => {
                    self.err(
                        &join(t.path, "workers"),
                        Some(v),
                        "expected \"all\" or a list of host names".into(),
                    );
                    Vec::new()
                }
            };
            let response = self.req(t, "response", "\"64KB\"", size);
            let queries = self.opt(t, "queries", int(1, 10_000_000)).unwrap_or(1) as u32;
            let start = self.opt(t, "start", time).unwrap_or(0);
            let think = self.opt(t, "think", time).unwrap_or(0);
            let request_size = self
                .opt(t, "request_size", bytes_in(40, 65_535))
                .map_or(100, |s| s as u32);
            let mut c = tcp.clone();
            self.tcp_fields(t, &mut c);
            out.push(AggregateSpec {
                aggregator: agg.unwrap_or_default(),
                workers,
                response_bytes: response.unwrap_or(1),
                queries,
                start,
                think,
                request_size,
                tcp: c,
            });
        }
        out
    }

    fn losses(
        &mut self,
        root: Tab,
        links: Option<&[String]>,
        n_flows: Option<usize>,
    ) -> Vec<LossSpec> {
        let tables = self.array_of_tables(root, "loss").unwrap_or_default();
        let mut losses = Vec::new();
        for (path, t) in &tables {
            let t = Tab { path, t };
            self.unknown_keys(t, LOSS_KEYS, "[[loss]]");
            let link = self.req(t, "link", "\"bottleneck\"", name_in("link", links));
            let rate = self.opt(t, "rate", |v| {
                let x = match v {
                    Value::Float(x) => *x,
                    Value::Integer(i) => *i as f64,
                    other => {
                        return Err(format!(
                            "expected a probability such as 1e-3, found {}",
                            type_name(other)
                        ))
                    }
                };
                if (0.0..1.0).contains(&x) {
                    Ok(x)
                } else {
                    Err("a loss rate is a probability: at least 0 and below 1 (e.g. 1e-3)".into())
                }
            });
            let drop_nth = self.drop_nth(t, n_flows);
            let every = self.opt(t, "every", int(1, i64::MAX)).unwrap_or(0) as u64;
            losses.push(LossSpec {
                link: link.unwrap_or_default(),
                rate: rate.unwrap_or(0.0),
                drop_nth,
                every,
            });
        }
        losses
    }

    fn drop_nth(&mut self, t: Tab, n_flows: Option<usize>) -> Vec<(usize, u64)> {
        let key = join(t.path, "drop_nth");
        let example = "[{ flow = 0, n = 100 }]";
        let Some(v) = t.t.get("drop_nth") else {
            return Vec::new();
        };
        let Value::Array(a) = v else {
            self.err(
                &key,
                Some(v),
                format!(
                    "expected an array such as {example}, found {}",
                    type_name(v)
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, e) in a.iter().enumerate() {
            let path = format!("{key}.{i}");
            let Value::Table(et) = e else {
                self.err(
                    &path,
                    Some(e),
                    format!(
                        "expected a table such as {{ flow = 0, n = 100 }}, found {}",
                        type_name(e)
                    ),
                );
                continue;
            };
            let et = Tab { path: &path, t: et };
            self.unknown_keys(et, DROP_KEYS, "drop_nth");
            let flow = self.req(et, "flow", "0", |v| {
                let f = int(0, i64::MAX)(v)? as usize;
                match n_flows {
                    Some(n) if f >= n => Err(format!(
                        "there is no flow {f}: flows are numbered from 0 in the order of [[flow]] (or of the default flows), and this scenario has {n}"
                    )),
                    _ => Ok(f),
                }
            });
            let n = self.req(et, "n", "100", int(1, i64::MAX));
            if let (Some(f), Some(n)) = (flow, n) {
                out.push((f, n as u64));
            }
        }
        out
    }

    fn output(
        &mut self,
        root: Tab,
        hosts: Option<&[String]>,
        links: Option<&[String]>,
        duration: Option<SimTime>,
    ) -> OutputSpec {
        let mut o = OutputSpec::default();
        let Some(t) = self.table(root, "output", "output") else {
            return o;
        };
        self.unknown_keys(t, OUTPUT_KEYS, "[output]");
        o.cwnd_interval = self.interval(t, "cwnd", duration);
        o.queue_interval = self.interval(t, "queue", duration);
        o.throughput_interval = self.interval(t, "throughput", duration);
        o.plots = self.opt(t, "plots", boolean).unwrap_or(false);
        match t.t.get("queues") {
            None => {}
            Some(Value::Array(a)) => {
                for (i, v) in a.iter().enumerate() {
                    match name_in("link", links)(v) {
                        Ok(n) => o.queues.push(n),
                        Err(m) => self.err(&format!("output.queues.{i}"), Some(v), m),
                    }
                }
            }
            Some(v) => self.err(
                "output.queues",
                Some(v),
                format!(
                    "expected an array of link names (e.g. queues = [\"bottleneck\"]), found {}",
                    type_name(v)
                ),
            ),
        }
        if let Some(v) = t.t.get("tsg") {
            match v {
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        match int(0, 1_000_000)(x) {
                            Ok(f) => o.tsg.push(f as usize),
                            Err(m) => self.err(
                                &format!("output.tsg.{i}"),
                                Some(x),
                                format!("{m} (a flow index)"),
                            ),
                        }
                    }
                }
                _ => self.err(
                    "output.tsg",
                    Some(v),
                    "expected a list of flow indices, e.g. tsg = [0]".into(),
                ),
            }
        }
        match t.t.get("pcap") {
            None => {}
            Some(Value::Array(a)) => {
                let names: Option<Vec<String>> =
                    hosts.zip(links).map(|(h, l)| h.iter().chain(l).cloned().collect());
                for (i, v) in a.iter().enumerate() {
                    match name_in("host or link", names.as_deref())(v) {
                        Ok(n) if o.pcap.contains(&n) => self.err(
                            &format!("output.pcap.{i}"),
                            Some(v),
                            format!("'{n}' is listed twice"),
                        ),
                        Ok(n) => o.pcap.push(n),
                        Err(m) => self.err(&format!("output.pcap.{i}"), Some(v), m),
                    }
                }
            }
            Some(v) => self.err(
                "output.pcap",
                Some(v),
                format!(
                    "expected an array of host or link names (e.g. pcap = [\"s0\", \"bottleneck\"]), found {}",
                    type_name(v)
                ),
            ),
        }
        o
    }

    // ----- --set

    /// Apply one `--set path=value`; the value is TOML if it parses as TOML, else a string.
    fn apply_set(&mut self, root: &mut Table, path: &str, raw: &str) {
        let value = set_value(raw);
        let segs: Vec<&str> = path.trim().split('.').map(str::trim).collect();
        let res = schema_path(&segs).and_then(|()| {
            // Work on a copy so that a failed path leaves no half-made tables behind.
            let mut holder = Value::Table(root.clone());
            let owned = put(&mut holder, &segs, "", value.clone())?;
            if let Value::Table(t) = holder {
                *root = t;
            }
            Ok(owned)
        });
        match res {
            Ok(owned) => self.from_set.push(owned),
            Err(m) => self.errors.push(ScenarioError {
                file: "--set".into(),
                key: path.into(),
                value: show(&value),
                message: m,
            }),
        }
    }
}

fn placeholder_link() -> LinkSpec {
    LinkSpec {
        framing: crate::net::Framing::Ethernet,
        rate_bps: 1,
        delay: 0,
        queue: QueueSpec::DropTail {
            limit: Limit::Packets(1000),
        },
    }
}

/// `true`, `3`, `1e-3`, `"x"`, `["1ms", "2ms"]` are TOML; anything else (`reno`, `1Gbps`)
/// is taken as a string.
fn set_value(raw: &str) -> Value {
    match format!("v = {raw}").parse::<Table>() {
        Ok(mut t) if t.len() == 1 => t.remove("v").unwrap_or_else(|| Value::String(raw.into())),
        _ => Value::String(raw.to_string()),
    }
}

/// Is `segs` a key path the schema has? The error names the first unknown part.
fn schema_path(segs: &[&str]) -> Result<(), String> {
    if segs.iter().any(|s| s.is_empty()) {
        return Err("a key path is names joined by dots, e.g. tcp.cc or flow.0.stop".into());
    }
    fn leaf(rest: &[&str], keys: &[&str], place: &str) -> Result<(), String> {
        match rest {
            [] => Ok(()),
            [k, more @ ..] if keys.contains(k) => {
                if more.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "'{k}' in {place} is a single value, it has no '{}'",
                        more[0]
                    ))
                }
            }
            [k, ..] => Err(unknown_key_message(k, keys, place)),
        }
    }
    fn indexed(
        rest: &[&str],
        name: &str,
        f: impl Fn(&[&str]) -> Result<(), String>,
    ) -> Result<(), String> {
        match rest {
            [] => Ok(()),
            [i, more @ ..] => {
                i.parse::<usize>().map_err(|_| {
                    format!("'{i}' is not an index: the entries of '{name}' are numbered from 0 ({name}.0, {name}.1, …)")
                })?;
                f(more)
            }
        }
    }
    let (first, rest) = segs.split_first().ok_or("empty key path")?;
    match *first {
        "sim" => leaf(rest, SIM_KEYS, "[sim]"),
        "tcp" => leaf(rest, TCP_KEYS, "[tcp]"),
        "topology" => {
            let mut all: Vec<&str> = Vec::new();
            for kd in KINDS {
                for x in topology_keys(kd) {
                    if !all.contains(x) {
                        all.push(x);
                    }
                }
            }
            match rest {
                ["bottleneck" | "link", more @ ..] => {
                    leaf(more, LINK_KEYS, &format!("'topology.{}'", rest[0]))
                }
                ["access_queue" | "other_queue", more @ ..] => {
                    leaf(more, QUEUE_KEYS, &format!("'topology.{}'", rest[0]))
                }
                ["hops", more @ ..] => {
                    indexed(more, "topology.hops", |r| leaf(r, LINK_KEYS, "a hop"))
                }
                ["access_delay", more @ ..] => {
                    indexed(more, "topology.access_delay", |r| leaf(r, &[], "a delay"))
                }
                _ => leaf(rest, &all, "[topology]"),
            }
        }
        "flow" => indexed(rest, "flow", |r| leaf(r, &flow_keys(), "[[flow]]")),
        "ping" => indexed(rest, "ping", |r| leaf(r, PING_KEYS, "[[ping]]")),
        "aggregate" => indexed(rest, "aggregate", |r| {
            leaf(r, &aggregate_keys(), "[[aggregate]]")
        }),
        "loss" => indexed(rest, "loss", |r| match r {
            ["drop_nth", more @ ..] => {
                indexed(more, "drop_nth", |r2| leaf(r2, DROP_KEYS, "drop_nth"))
            }
            _ => leaf(r, LOSS_KEYS, "[[loss]]"),
        }),
        "output" => match rest {
            ["queues", more @ ..] => {
                indexed(more, "output.queues", |r| leaf(r, &[], "a queue name"))
            }
            ["pcap", more @ ..] => {
                indexed(more, "output.pcap", |r| leaf(r, &[], "a host or link name"))
            }
            _ => leaf(rest, OUTPUT_KEYS, "[output]"),
        },
        other => Err(unknown_key_message(other, TOP_KEYS, "the top level")),
    }
}

/// Store `value` at `segs` under `cur` (whose own path is `at`), creating tables (or, before
/// a numeric segment, arrays) on the way. An index may name an existing element or the
/// next one (`flow.2.*` when there are two flows appends a third). Returns the path of the
/// outermost node the value created or replaced: errors under it are the command line's.
fn put(cur: &mut Value, segs: &[&str], at: &str, value: Value) -> Result<String, String> {
    let Some((seg, rest)) = segs.split_first() else {
        *cur = value;
        return Ok(at.to_string());
    };
    let here = join(at, seg);
    let fresh = || match rest.first() {
        Some(s) if s.parse::<usize>().is_ok() => Value::Array(Vec::new()),
        _ => Value::Table(Table::new()),
    };
    match cur {
        Value::Table(t) => {
            if rest.is_empty() {
                t.insert(seg.to_string(), value);
                return Ok(here);
            }
            let created = !t.contains_key(*seg);
            let child = t.entry(seg.to_string()).or_insert_with(fresh);
            let inner = put(child, rest, &here, value)?;
            Ok(if created { here } else { inner })
        }
        Value::Array(a) => {
            let i: usize = seg.parse().map_err(|_| {
                format!("'{at}' is an array: index it by number ({at}.0, {at}.1, …)")
            })?;
            if i > a.len() {
                return Err(format!(
                    "'{at}' has {} entries (numbered from 0), so there is no entry {i}; use {} to add one",
                    a.len(),
                    a.len()
                ));
            }
            let created = i == a.len();
            if created {
                a.push(fresh());
            }
            let inner = put(&mut a[i], rest, &here, value)?;
            Ok(if created { here } else { inner })
        }
        other => Err(format!(
            "'{at}' is {} in the file, not a table or array, so it has no '{seg}'",
            type_name(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};

    fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn parse(text: &str) -> Result<Scenario, Vec<ScenarioError>> {
        parse_scenario(text, "test.toml", &[])
    }

    fn errors(text: &str) -> Vec<ScenarioError> {
        match parse(text) {
            Ok(s) => panic!("expected errors, got {s:?}"),
            Err(e) => e,
        }
    }

    const MINIMAL: &str = r#"
        [sim]
        duration = "2s"
        [topology]
        kind = "dumbbell"
        senders = 3
        bottleneck = { rate = "1Gbps", delay = "10ms" }
    "#;

    #[test]
    fn every_example_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).expect("examples directory") {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                if let Err(es) = load_scenario(&path, &[]) {
                    let msgs: Vec<String> = es.iter().map(ToString::to_string).collect();
                    panic!("{} does not parse:\n{}", path.display(), msgs.join("\n"));
                }
                n += 1;
            }
        }
        assert!(n >= 4, "expected at least 4 examples, found {n}");
    }

    #[test]
    fn five_mistakes_give_five_errors() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../cclab-cli/tests/data/five_mistakes.toml");
        let errs = load_scenario(&path, &[]).unwrap_err();
        let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(errs.len(), 5, "{shown:#?}");
        let expect = [
            ("sim.duration", "\"-1s\"", "negative"),
            (
                "topology.bottleneck.rate",
                "\"10Gbs\"",
                "unknown rate unit \"Gbs\"",
            ),
            ("tcp.cc", "\"cubik\"", "did you mean \"cubic\""),
            ("flow.0.to", "\"r7\"", "unknown host"),
            ("flow.0.colour", "\"blue\"", "unknown key 'colour'"),
        ];
        for (key, value, msg) in expect {
            let e = errs
                .iter()
                .find(|e| e.key == key)
                .unwrap_or_else(|| panic!("no error for {key}: {shown:#?}"));
            assert_eq!(e.value, value, "{e}");
            assert!(e.message.contains(msg), "{e}");
            assert!(e.file.ends_with("five_mistakes.toml"), "{e}");
        }
        // The display form names file, key and value.
        let rate = errs
            .iter()
            .find(|e| e.key == "topology.bottleneck.rate")
            .unwrap();
        assert!(rate.to_string().ends_with(
            "five_mistakes.toml: key 'topology.bottleneck.rate' = \"10Gbs\": unknown rate unit \"Gbs\"; use bps, Kbps, Mbps, Gbps or Tbps (e.g. \"10Gbps\")"
        ), "{rate}");
        let host = errs.iter().find(|e| e.key == "flow.0.to").unwrap();
        assert!(
            host.message.contains("s0…s1") || host.message.contains("s0, s1"),
            "{host}"
        );
    }

    #[test]
    fn defaults_fill_in() {
        let s = parse(MINIMAL).unwrap();
        assert_eq!(s.name, "test");
        assert_eq!(s.duration, 2 * SEC);
        assert_eq!(s.seed, 1);
        assert_eq!(s.flows.len(), 3);
        for (i, f) in s.flows.iter().enumerate() {
            assert_eq!(
                (f.from.as_str(), f.to.as_str()),
                (format!("s{i}").as_str(), format!("r{i}").as_str())
            );
            assert_eq!((f.start, f.stop, f.bytes), (0, None, None));
            assert_eq!(f.tcp, TcpConfig::default());
        }
        match &s.topology {
            TopologySpec::Dumbbell {
                senders,
                bottleneck,
                access_rate_bps,
                access_delay,
                access_queue,
            } => {
                assert_eq!(*senders, 3);
                assert_eq!(bottleneck.rate_bps, 1_000_000_000);
                assert_eq!(bottleneck.delay, 10 * MS);
                assert_eq!(
                    bottleneck.queue,
                    QueueSpec::DropTail {
                        limit: Limit::Packets(1000)
                    }
                );
                assert_eq!(*access_rate_bps, 10_000_000_000);
                assert_eq!(access_delay, &vec![US; 3]);
                assert_eq!(
                    access_queue,
                    &QueueSpec::DropTail {
                        limit: Limit::Packets(10_000)
                    }
                );
            }
            t => panic!("{t:?}"),
        }
        assert!(s.pings.is_empty() && s.losses.is_empty());
        assert_eq!(s.output, OutputSpec::default());
        // An explicit empty list means no flows at all (e.g. a ping-only run).
        let s = parse(&format!("flow = []\n{MINIMAL}")).unwrap();
        assert!(s.flows.is_empty());
    }

    #[test]
    fn tcp_defaults_and_per_flow_overrides() {
        let s = parse(&format!(
            "{MINIMAL}
            [tcp]
            cc = \"reno\"
            sndbuf = \"16MiB\"
            init_ssthresh = 20
            [[flow]]
            from = \"s0\"
            to = \"r0\"
            [[flow]]
            from = \"s1\"
            to = \"r1\"
            cc = \"cubic\"
            mtu = 9000
            start = \"1s\"
            stop = \"1.5s\"
            bytes = \"10MB\"
            "
        ))
        .unwrap();
        assert_eq!(s.flows.len(), 2);
        assert_eq!(s.flows[0].tcp.cc, "reno");
        assert_eq!(s.flows[0].tcp.sndbuf, 16 << 20);
        assert_eq!(s.flows[0].tcp.init_ssthresh, Some(20));
        assert_eq!(s.flows[1].tcp.cc, "cubic");
        assert_eq!(s.flows[1].tcp.sndbuf, 16 << 20);
        assert_eq!(s.flows[1].tcp.mtu, 9000);
        assert_eq!(
            (s.flows[1].start, s.flows[1].stop, s.flows[1].bytes),
            (SEC, Some(1_500 * MS), Some(10_000_000))
        );
    }

    #[test]
    fn set_overrides() {
        let s = parse_scenario(
            &format!("{MINIMAL}\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\n"),
            "x.toml",
            &sets(&[
                ("tcp.cc", "reno"),
                ("topology.bottleneck.rate", "600Mbps"),
                ("sim.duration", "5s"),
                ("sim.seed", "7"),
                ("flow.0.cc", "cubic"),
                ("flow.1.from", "s2"),
                ("flow.1.to", "r2"),
                ("topology.access_delay", "[\"1ms\", \"2ms\", \"3ms\"]"),
                ("output.plots", "true"),
            ]),
        )
        .unwrap();
        assert_eq!(s.duration, 5 * SEC);
        assert_eq!(s.seed, 7);
        assert_eq!(s.flows.len(), 2);
        assert_eq!(s.flows[0].tcp.cc, "cubic");
        assert_eq!(s.flows[1].tcp.cc, "reno");
        assert_eq!(s.flows[1].from, "s2");
        assert!(s.output.plots);
        match s.topology {
            TopologySpec::Dumbbell {
                bottleneck,
                access_delay,
                ..
            } => {
                assert_eq!(bottleneck.rate_bps, 600_000_000);
                assert_eq!(access_delay, vec![MS, 2 * MS, 3 * MS]);
            }
            t => panic!("{t:?}"),
        }
    }

    #[test]
    fn set_reaches_aggregates_and_their_tcp_keys() {
        let file = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/incast.toml"
        ))
        .unwrap();
        let s = parse_scenario(
            &file,
            "incast.toml",
            &sets(&[("aggregate.0.queries", "3"), ("aggregate.0.cc", "cubic")]),
        )
        .unwrap();
        assert_eq!(s.aggregates[0].queries, 3);
        assert_eq!(s.aggregates[0].tcp.cc, "cubic");
        let e = parse_scenario(
            &file,
            "incast.toml",
            &sets(&[("aggregate.0.colour", "red")]),
        )
        .unwrap_err();
        assert!(e[0].message.contains("unknown key 'colour'"), "{}", e[0]);
    }

    #[test]
    fn ecn_k_zero_is_allowed_in_any_unit_and_nested_dscp_is_refused_in_any_case() {
        for (k, limit) in [("0pkts", "100pkts"), ("0B", "100pkts"), ("0pkts", "150KB")] {
            let s = parse(&format!(
                "[sim]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{{ rate = \"1Gbps\", delay = \"1ms\", queue = \"ecn\", limit = \"{limit}\", k = \"{k}\" }}]\n"
            ));
            assert!(s.is_ok(), "k = {k}, limit = {limit}: {s:?}");
        }
        let e = errors("[sim]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Gbps\", delay = \"1ms\", queue = \"dscp\", classes = [{ queue = \"DSCP\" }] }]\n");
        assert_eq!(e.len(), 1, "{e:#?}");
        assert_eq!(e[0].key, "topology.hops.0.classes.0.queue");
        assert!(e[0].message.contains("not another"), "{}", e[0]);
    }

    #[test]
    fn sampling_intervals_are_bounded_by_memory() {
        // 2 s at 200 ns = 10^7 samples: allowed; at 199 ns: too many per series.
        let ok = parse(&format!("{MINIMAL}\n[output]\ncwnd = \"200ns\"\n"));
        assert!(ok.is_ok(), "{ok:?}");
        let e = errors(&format!(
            "{MINIMAL}\n[output]\ncwnd = \"199ns\"\nqueue = \"1ps\"\n[[ping]]\nfrom = \"s0\"\nto = \"r0\"\ninterval = \"1ns\"\n"
        ));
        let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            ["ping.0.interval", "output.cwnd", "output.queue"],
            "{e:#?}"
        );
        assert!(
            e[1].message.contains("at most 10000000 per series"),
            "{}",
            e[1]
        );
        assert!(e[1].message.contains("at least 200ns"), "{}", e[1]);
    }

    #[test]
    fn bad_set_paths_and_values() {
        let errs = parse_scenario(
            MINIMAL,
            "x.toml",
            &sets(&[
                ("tcp.colour", "red"),
                ("flow.x.cc", "reno"),
                ("flow.3.cc", "reno"),
                ("topology.bottleneck.rate.x", "1"),
                ("sim.duration", "2x"),
            ]),
        )
        .unwrap_err();
        let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(errs.len(), 5, "{shown:#?}");
        assert!(errs.iter().all(|e| e.file == "--set"), "{shown:#?}");
        assert!(errs[0].key == "tcp.colour" && errs[0].message.contains("unknown key 'colour'"));
        assert!(errs[1].message.contains("not an index"), "{}", errs[1]);
        assert!(errs[2].message.contains("no entry 3"), "{}", errs[2]);
        assert!(errs[3].message.contains("single value"), "{}", errs[3]);
        assert_eq!(errs[4].key, "sim.duration");
        assert_eq!(errs[4].value, "\"2x\"");
        assert!(errs[4].message.contains("unknown time unit"), "{}", errs[4]);
    }

    #[test]
    fn set_value_parsing() {
        assert_eq!(set_value("true"), Value::Boolean(true));
        assert_eq!(set_value("3"), Value::Integer(3));
        assert_eq!(set_value("1e-3"), Value::Float(1e-3));
        assert_eq!(set_value("\"x\""), Value::String("x".into()));
        assert_eq!(set_value("reno"), Value::String("reno".into()));
        assert_eq!(set_value("1Gbps"), Value::String("1Gbps".into()));
        assert_eq!(set_value("1\nx = 2"), Value::String("1\nx = 2".into()));
    }

    #[test]
    fn toml_syntax_error_is_one_error_with_a_line() {
        let errs = errors("[sim]\nduration = \"1s\nseed = 1\n");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].key, "");
        assert!(errs[0].message.contains("line"), "{}", errs[0]);
    }

    #[test]
    fn missing_required_keys() {
        let errs = errors("[topology]\nkind = \"star\"\n");
        let keys: Vec<&str> = errs.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["sim.duration", "topology.link"], "{errs:#?}");
        let errs = errors("[sim]\nduration = \"1s\"\n");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].key, "topology");
    }

    #[test]
    fn ecn_queue_rules() {
        let base = "[sim]\nduration = \"1s\"\n[topology]\nkind = \"star\"\nsenders = 8\n";
        let ok = parse(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\", limit = \"1MB\", k = \"75KB\" }}\n")).unwrap();
        match ok.topology {
            TopologySpec::Star { link, .. } => {
                assert_eq!(
                    link.queue,
                    QueueSpec::Ecn {
                        limit: Limit::Bytes(1_000_000),
                        k: Limit::Bytes(75_000)
                    }
                )
            }
            t => panic!("{t:?}"),
        }
        let e = errors(&format!(
            "{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\" }}\n"
        ));
        assert_eq!(e.len(), 1);
        assert!(
            e[0].key == "topology.link.k" && e[0].message.contains("needs k"),
            "{}",
            e[0]
        );
        let e = errors(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\", limit = \"100pkts\", k = \"100pkts\" }}\n"));
        assert!(
            e.len() == 1 && e[0].message.contains("below the queue limit"),
            "{e:#?}"
        );
        let e = errors(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", limit = \"100pkts\", k = \"10pkts\" }}\n"));
        assert!(
            e.len() == 1 && e[0].message.contains("only applies"),
            "{e:#?}"
        );
        // Mixed units: only both > 0 is required.
        parse(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\", limit = \"10pkts\", k = \"75KB\" }}\n")).unwrap();
    }

    #[test]
    fn range_and_cross_checks() {
        let e = errors(&format!(
            "{MINIMAL}
            access_delay = [\"1ms\", \"2ms\"]
            [tcp]
            mtu = 100
            dscp = 64
            [[flow]]
            from = \"s0\"
            to = \"s0\"
            start = \"1s\"
            stop = \"3s\"
            [[ping]]
            from = \"s1\"
            to = \"r1\"
            [[loss]]
            link = \"bottlenek\"
            rate = 1.5
            drop_nth = [{{ flow = 4, n = 0 }}]
            [output]
            queues = [\"nowhere\"]
            "
        ));
        let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "topology.access_delay",
                "tcp.mtu",
                "tcp.dscp",
                "flow.0.to",
                "flow.0.stop",
                "ping.0.interval",
                "loss.0.link",
                "loss.0.rate",
                "loss.0.drop_nth.0.flow",
                "loss.0.drop_nth.0.n",
                "output.queues.0",
            ],
            "{e:#?}"
        );
        assert!(
            e[6].message.contains("did you mean \"bottleneck\""),
            "{}",
            e[6]
        );
    }

    #[test]
    fn bare_numbers_are_refused_for_units() {
        let e = errors("[sim]\nduration = 10\n[topology]\nkind = \"chain\"\nhops = [{ rate = 1000000000, delay = \"1ms\", limit = 100 }]\n");
        let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "sim.duration",
                "topology.hops.0.rate",
                "topology.hops.0.limit"
            ]
        );
        assert!(
            e.iter().all(|e| e.message.contains("bare number")),
            "{e:#?}"
        );
    }

    #[test]
    fn keys_of_another_topology_kind_are_explained() {
        let e = errors("[sim]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nsenders = 3\nhops = [{ rate = \"1Gbps\", delay = \"1ms\" }]\n");
        assert_eq!(e.len(), 1);
        assert!(
            e[0].message.contains("is for kind = \"dumbbell\""),
            "{}",
            e[0]
        );
    }

    #[test]
    fn host_lists_are_folded() {
        let names: Vec<String> = (0..100)
            .map(|i| format!("s{i}"))
            .chain(std::iter::once("recv".into()))
            .collect();
        assert_eq!(name_list(&names), "s0…s99, recv");
        assert_eq!(
            name_list(&["s0".into(), "s1".into(), "r0".into(), "r1".into()]),
            "s0, s1, r0, r1"
        );
    }

    #[test]
    fn dscp_classified_port() {
        let text = r#"
[sim]
duration = "1s"
[topology]
kind = "star"
senders = 3
link = { rate = "10Gbps", delay = "10us", queue = "dscp", scheduler = "strict", limit = "600KB", classes = [
    { dscp = [1], queue = "ecn", limit = "500KB", k = "75KB" },
    { queue = "droptail", limit = "500KB", weight = 2 },
] }
"#;
        let sc = parse(text).unwrap();
        let TopologySpec::Star { link, .. } = &sc.topology else {
            panic!()
        };
        let QueueSpec::Classes {
            classes,
            sched,
            limit,
        } = &link.queue
        else {
            panic!("{:?}", link.queue)
        };
        assert_eq!(*sched, Sched::Strict);
        assert_eq!(*limit, Some(Limit::Bytes(600_000)));
        assert_eq!(classes[0].dscp, vec![1]);
        assert_eq!(
            classes[0].queue,
            QueueSpec::Ecn {
                limit: Limit::Bytes(500_000),
                k: Limit::Bytes(75_000)
            }
        );
        assert_eq!((classes[1].dscp.len(), classes[1].weight), (0, 2));
        // Two default classes, a DSCP out of range and k at port level: three errors.
        let bad = text
            .replace("dscp = [1], ", "dscp = [64], ")
            .replace(
                r#"{ queue = "droptail", limit = "500KB", weight = 2 }"#,
                r#"{ queue = "droptail" }, { queue = "droptail" }"#,
            )
            .replace(
                r#"scheduler = "strict","#,
                r#"scheduler = "strict", k = "1KB","#,
            );
        let errs = parse(&bad).unwrap_err();
        assert_eq!(errs.len(), 3, "{errs:#?}");
        assert!(errs.iter().any(|e| e.key == "topology.link.classes.0.dscp"));
        assert!(errs.iter().any(|e| e.key == "topology.link.k"));
        assert!(errs
            .iter()
            .any(|e| e.key == "topology.link.classes" && e.message.contains("exactly one")));
    }

    /// docs/scenario.md names every key the parser accepts (written `key`) and every
    /// topology kind, queue discipline and congestion control: a key added to a list here
    /// without a line in the reference fails this test.
    #[test]
    fn scenario_doc_names_every_key() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario.md");
        let doc =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let key_lists: [(&str, &[&str]); 15] = [
            ("TOP_KEYS", TOP_KEYS),
            ("SIM_KEYS", SIM_KEYS),
            ("DUMBBELL_KEYS", DUMBBELL_KEYS),
            ("STAR_KEYS", STAR_KEYS),
            ("CHAIN_KEYS", CHAIN_KEYS),
            ("LINK_KEYS", LINK_KEYS),
            ("QUEUE_KEYS", QUEUE_KEYS),
            ("CLASS_KEYS", CLASS_KEYS),
            ("TCP_KEYS", TCP_KEYS),
            ("FLOW_KEYS", FLOW_KEYS),
            ("PING_KEYS", PING_KEYS),
            ("AGG_KEYS", AGG_KEYS),
            ("LOSS_KEYS", LOSS_KEYS),
            ("DROP_KEYS", DROP_KEYS),
            ("OUTPUT_KEYS", OUTPUT_KEYS),
        ];
        let mut missing = Vec::new();
        for (list, keys) in key_lists {
            for k in keys {
                if !doc.contains(&format!("`{k}`")) {
                    missing.push(format!("key `{k}` (from {list})"));
                }
            }
        }
        // Values may be written bare (`cubic`) or as TOML strings (`"cubic"`).
        let value_lists: [(&str, &[&str]); 3] = [
            ("KINDS", KINDS),
            ("QUEUE_KINDS", QUEUE_KINDS),
            ("CC_NAMES", crate::cc::CC_NAMES),
        ];
        for (list, values) in value_lists {
            for v in values {
                if !doc.contains(&format!("`{v}`")) && !doc.contains(&format!("`\"{v}\"`")) {
                    missing.push(format!("value \"{v}\" (from {list})"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "docs/scenario.md does not document:\n{}",
            missing.join("\n")
        );
    }
}
