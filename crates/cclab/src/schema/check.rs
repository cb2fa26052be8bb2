//! Checking scenario values: the [`Checker`] that walks a TOML table and collects *every*
//! mistake, each a [`ScenarioError`] naming the file, the key path (`flow.0.to`, the same
//! syntax `--set` takes), the value and what is allowed; and the converters that read one
//! value by its declared type ([`schema::Ty`]).
//!
//! The file is read into a `toml::Table` and walked by hand rather than through
//! `#[derive(Deserialize)]`: serde stops at the first error and cannot say "unknown host
//! 'r7'; hosts are s0…s1, r0…r1", while a person fixing a scenario wants the whole list.
//! The walk keeps going after an error with a placeholder value, and checks that depend on
//! a bad value are skipped, so one mistake gives one message.

use std::fmt;

use toml::{Table, Value};

use super::units;
use super::{Key, Limit, Schema, Ty};
use crate::engine::SimTime;

/// Most points one time series (or pings of one probe) may hold over a run.
pub const MAX_SAMPLES: u64 = 10_000_000;

/// Default of `sim.max_app_packets`: the most packets one constant-rate app (`[[udp]]`,
/// `[[ocbr]]`) may send over a run, estimated from its rate before the run. A billion
/// packets take minutes (a datagram costs ~0.2 µs of wall time: `[[udp]] rate = "1Tbps",
/// len = 1` took 28 s per simulated millisecond); a typo in a rate should not.
pub const MAX_APP_PACKETS: u64 = 1_000_000_000;

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
            (false, true) => write!(
                f,
                "{}: key '{}': {}",
                self.file,
                cut_to(&self.key, 120),
                self.message
            ),
            (false, false) => write!(
                f,
                "{}: key '{}' = {}: {}",
                self.file,
                cut_to(&self.key, 120),
                self.value,
                self.message
            ),
        }
    }
}

impl std::error::Error for ScenarioError {}

// ---------------------------------------------------------------------------------------
// Small helpers for messages.

/// A string from the user as it appears in a message, unquoted: control characters
/// escaped, cut to 40 characters with "…", so a 10 MB value does not become a 10 MB
/// message and escape bytes do not reach the terminal.
pub fn cut(s: &str) -> String {
    cut_to(s, 40)
}

/// [`cut`] to `max` characters.
pub fn cut_to(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// [`cut`], in double quotes (`"10Gbs"`).
pub fn echo(s: &str) -> String {
    format!("\"{}\"", cut(s))
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub fn type_name(v: &Value) -> &'static str {
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

/// A value as it would be written in TOML, shortened for messages: keys and strings with
/// control characters escaped, and only as much of a large value rendered as is shown.
pub fn show(v: &Value) -> String {
    const MAX: usize = 80;
    fn go(v: &Value, out: &mut String) {
        if out.len() > 4 * MAX {
            return;
        }
        match v {
            Value::String(s) => {
                let head: String = s.chars().take(MAX + 1).collect();
                out.push_str(&format!("{head:?}"))
            }
            Value::Integer(i) => out.push_str(&i.to_string()),
            Value::Float(x) => out.push_str(&format!("{x:?}")),
            Value::Boolean(b) => out.push_str(&b.to_string()),
            Value::Datetime(d) => out.push_str(&d.to_string()),
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if out.len() > 4 * MAX {
                        break;
                    }
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
                    if out.len() > 4 * MAX {
                        break;
                    }
                    out.push_str(if i > 0 { ", " } else { " " });
                    let bare = !k.is_empty()
                        && k.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    if bare {
                        out.push_str(k);
                    } else {
                        let head: String = k.chars().take(MAX + 1).collect();
                        out.push_str(&format!("{head:?}"));
                    }
                    out.push_str(" = ");
                    go(x, out);
                }
                out.push_str(" }");
            }
        }
    }
    let mut s = String::new();
    go(v, &mut s);
    if s.chars().count() > MAX {
        s = s.chars().take(MAX).collect::<String>() + "…";
    }
    s
}

/// `["a", "b"]` → `["\"a\"", "\"b\""]`, for lists of string values.
pub fn quoted(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| format!("\"{s}\"")).collect()
}

/// `a, b or c`.
pub fn or_list<S: AsRef<str>>(items: &[S]) -> String {
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
pub fn name_list(names: &[String]) -> String {
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
            // Shown as values are: escaped and cut (a name may be the mistake itself).
            let (pre, post) = (cut(&g.pre), cut(&g.post));
            match g.nums.as_slice() {
                [] => pre,
                [first, .., last] if g.nums.len() >= 3 && consecutive => {
                    format!("{pre}{first}{post}…{pre}{last}{post}")
                }
                nums => nums
                    .iter()
                    .map(|x| format!("{pre}{x}{post}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
        .collect();
    parts.join(", ")
}

/// Edit distance, for "did you mean".
pub fn distance(a: &str, b: &str) -> usize {
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

pub fn suggestion<'a>(word: &str, allowed: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // A word this long is not a typo of a name; and the search stays bounded.
    if word.len() > 64 {
        return None;
    }
    let limit = (word.chars().count() / 3).clamp(1, 3);
    allowed
        .into_iter()
        .map(|a| (distance(&word.to_lowercase(), a), a))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

pub fn unknown_key_message(key: &str, allowed: &[&str], place: &str) -> String {
    let hint = suggestion(key, allowed.iter().copied())
        .map(|s| format!("did you mean '{s}'? "))
        .unwrap_or_default();
    format!(
        "unknown key '{}' in {place}; {hint}allowed keys: {}",
        cut(key),
        allowed.join(", ")
    )
}

pub fn unknown_name_message(what: &str, name: &str, allowed: &[String]) -> String {
    // Names that differ only in their numbers ("r7" for "r0") get no suggestion: the
    // folded list ("r0…r1") already says which numbers exist.
    let skeleton = |x: &str| x.replace(|c: char| c.is_ascii_digit(), "");
    let hint = suggestion(name, allowed.iter().map(String::as_str))
        .filter(|s| skeleton(s) != skeleton(name))
        .map(|s| format!("did you mean \"{s}\"? "))
        .unwrap_or_default();
    format!(
        "unknown {what} {}; {hint}this topology has: {}",
        echo(name),
        name_list(allowed)
    )
}

// ---------------------------------------------------------------------------------------
// Value converters: each turns one TOML value into a typed value or a sentence.

pub fn bare_number_message(v: &Value, what: &str, hint: &str) -> String {
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
pub fn with_unit<T>(
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

pub fn rate(v: &Value) -> Result<u64, String> {
    with_unit(v, "rate", units::RATE_HINT, units::parse_rate)
}

pub fn time(v: &Value) -> Result<SimTime, String> {
    with_unit(v, "time", units::TIME_HINT, units::parse_time)
}

pub fn positive_time(v: &Value) -> Result<SimTime, String> {
    match time(v)? {
        0 => Err("must be greater than zero".into()),
        t => Ok(t),
    }
}

pub fn size(v: &Value) -> Result<u64, String> {
    with_unit(v, "size", units::SIZE_HINT, units::parse_size)
}

pub fn limit(v: &Value) -> Result<Limit, String> {
    with_unit(v, "queue limit", units::LIMIT_HINT, units::parse_limit)
}

pub fn boolean(v: &Value) -> Result<bool, String> {
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
pub fn int(lo: i64, hi: i64) -> impl Fn(&Value) -> Result<i64, String> {
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
pub fn bytes_in(lo: u64, hi: u64) -> impl Fn(&Value) -> Result<u64, String> {
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

pub fn string(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("expected a string, found {}", type_name(other))),
    }
}

/// One of a fixed set of words (case-insensitive); returns the canonical spelling.
pub fn choice<'a>(
    what: &'a str,
    allowed: &'a [&'a str],
) -> impl Fn(&Value) -> Result<&'a str, String> {
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
            "unknown {what} {}; {hint}use {}",
            echo(s),
            or_list(&quoted(allowed))
        ))
    }
}

/// A host (`from`/`to`) or link name from the topology, when the topology is known.
pub fn name_in<'a>(
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
pub struct Tab<'v> {
    pub path: &'v str,
    pub t: &'v Table,
}

pub struct Checker<'a> {
    pub file: &'a str,
    /// Key paths given on the command line and the option that gave them (`--set`,
    /// `--pcap`): errors under them are reported against that option.
    pub from_cli: Vec<(String, &'static str)>,
    pub errors: Vec<ScenarioError>,
    /// Names of the topology's hosts and links, once it is known.
    pub hosts: Option<Vec<String>>,
    pub links: Option<Vec<String>>,
}

impl Checker<'_> {
    pub fn push(&mut self, key: &str, value: &str, message: String) {
        let from_cli = self
            .from_cli
            .iter()
            .find(|(p, _)| key == p || key.starts_with(&format!("{p}.")));
        self.errors.push(ScenarioError {
            file: match from_cli {
                Some((_, option)) => (*option).into(),
                None => self.file.into(),
            },
            key: key.into(),
            value: value.into(),
            message,
        });
    }

    pub fn err(&mut self, key: &str, v: Option<&Value>, message: String) {
        let value = v.map(show).unwrap_or_default();
        self.push(key, &value, message);
    }

    /// Read optional key `k` of `tab` with `conv`: `None` if absent or bad (bad is reported).
    pub fn opt<T>(
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
    pub fn check_samples(
        &mut self,
        t: Tab,
        k: &str,
        iv: SimTime,
        duration: Option<SimTime>,
    ) -> bool {
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

    /// Check that an app sending `per_s` packets per second (key `k` of `t`, its value
    /// explained by `how`) for `time` sends at most `max` (`sim.max_app_packets`)
    /// packets over the run. False if not.
    pub fn check_app_packets(
        &mut self,
        t: Tab,
        k: &str,
        how: &str,
        per_s: f64,
        time: SimTime,
        max: u64,
    ) -> bool {
        let n = per_s * (time as f64 / crate::engine::SEC as f64);
        if n <= max as f64 {
            return true;
        }
        self.err(
            &join(t.path, k),
            t.t.get(k),
            format!(
                "{how}: {per_s:.0} packets/s, an estimated {n:.0} packets over its {} of the run; \
                 at most {max} per app (set sim.max_app_packets to raise the limit)",
                units::format_time(time)
            ),
        );
        false
    }

    /// Optional sampling interval `k`: positive, and not so fine that the series would
    /// hold more than [`MAX_SAMPLES`] points.
    pub fn interval(&mut self, t: Tab, k: &str, duration: Option<SimTime>) -> Option<SimTime> {
        let iv = self.opt(t, k, positive_time)?;
        self.check_samples(t, k, iv, duration).then_some(iv)
    }

    /// Optional key `k` straight into `slot` (left as it is when absent or invalid).
    pub fn set<T>(
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
    pub fn req<T>(
        &mut self,
        tab: Tab,
        k: &str,
        example: &str,
        conv: impl Fn(&Value) -> Result<T, String>,
    ) -> Option<T> {
        if !tab.t.contains_key(k) {
            self.missing(tab, k, example);
            return None;
        }
        self.opt(tab, k, conv)
    }

    pub fn unknown_keys(&mut self, tab: Tab, allowed: &[&str], place: &str) {
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
    pub fn table<'v>(&mut self, tab: Tab<'v>, k: &str, path: &'v str) -> Option<Tab<'v>> {
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
    pub fn array_of_tables<'v>(
        &mut self,
        root: Tab<'v>,
        k: &str,
    ) -> Option<Vec<(String, &'v Table)>> {
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

    // ----- typed reads by declaration

    /// Read optional key `k` of `tab` by its declared type: `None` if absent or bad (bad is
    /// reported).
    pub fn get<T: FromValue>(&mut self, tab: Tab, k: &Key) -> Option<T> {
        let v = tab.t.get(k.name)?;
        match T::from_value(v, &k.ty, self) {
            Ok(x) => Some(x),
            Err(m) => {
                self.err(&join(tab.path, k.name), Some(v), m);
                None
            }
        }
    }

    /// Read required key `k`; a missing key is reported with `example`.
    pub fn need<T: FromValue>(&mut self, tab: Tab, k: &Key, example: &str) -> Option<T> {
        if !tab.t.contains_key(k.name) {
            self.missing(tab, k.name, example);
            return None;
        }
        self.get(tab, k)
    }

    /// Report that required key `k` is missing from `tab`.
    pub fn missing(&mut self, tab: Tab, k: &str, example: &str) {
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
    }

    /// Optional key `k` straight into `slot` (left as it is when absent or invalid).
    pub fn get_into<T: FromValue>(&mut self, tab: Tab, k: &Key, slot: &mut T) {
        if let Some(x) = self.get(tab, k) {
            *slot = x;
        }
    }

    /// Report every key of `tab` that `schema` does not take (for variant `kind` when it
    /// is known), saying which variant a key belongs to when it is another's.
    pub fn check_keys(&mut self, tab: Tab, schema: &'static Schema, kind: Option<&str>) {
        // A kind that is not one of the variants is reported where it is read; its keys
        // are then judged against every variant.
        let kind = kind.filter(|k| {
            schema
                .variants()
                .is_some_and(|v| v.kinds.iter().any(|(n, _)| n == k))
        });
        let allowed = schema.keys_for(kind);
        for (k, v) in tab.t {
            if allowed.iter().any(|a| a.name == k) {
                continue;
            }
            let owners = schema.owners_of(k);
            let names: Vec<&str> = allowed.iter().map(|a| a.name).collect();
            let msg = match (owners.is_empty(), kind, schema.variants()) {
                (false, Some(kd), Some(var)) => {
                    let quoted: Vec<String> = owners.iter().map(|o| format!("\"{o}\"")).collect();
                    format!(
                        "'{k}' is for {} = {}; {} {} takes: {}",
                        var.tag,
                        or_list(&quoted),
                        article(kd),
                        kind_noun(kd, schema),
                        names.join(", ")
                    )
                }
                _ => unknown_key_message(k, &names, schema.place),
            };
            self.err(&join(tab.path, k), Some(v), msg);
        }
    }
}

/// A name that becomes part of a file or folder name (`sim.name`, hosts, links): not
/// empty, not `.` or `..`, not hidden (a leading `.`), no path separators or control
/// characters, at most 100 characters.
pub fn plain_name(s: &str) -> Result<(), String> {
    let bad = s.is_empty()
        || s.starts_with('.')
        || s.contains(['/', '\\'])
        || s.chars().any(char::is_control)
        || s.chars().count() > 100;
    if bad {
        Err("a name must be 1 to 100 characters, not start with '.', and hold no '/', '\\' or control characters (it names output files)".into())
    } else {
        Ok(())
    }
}

/// "a" or "an" before a word.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// "dumbbell topology", "ecn queue": what one variant of `schema` is called.
fn kind_noun(kind: &str, schema: &'static Schema) -> String {
    let noun = schema
        .variants()
        .and_then(|v| v.kinds.first())
        .map_or(schema.noun, |(_, s)| s.noun);
    format!("{kind} {noun}")
}

/// A value read by its declared type.
pub trait FromValue: Sized {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<Self, String>;
}

impl FromValue for u64 {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<u64, String> {
        match *ty {
            Ty::Rate => rate(v),
            Ty::Time => time(v),
            Ty::Interval => positive_time(v),
            Ty::Size => size(v),
            Ty::Bytes(lo, hi) => bytes_in(lo, hi)(v),
            Ty::Int(lo, hi) => int(lo.max(0), hi)(v).map(|x| x as u64),
            _ => unreachable!("a number key declared as {ty:?}"),
        }
    }
}

impl FromValue for u32 {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<u32, String> {
        u64::from_value(v, ty, ck).map(|x| x.min(u64::from(u32::MAX)) as u32)
    }
}

impl FromValue for u8 {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<u8, String> {
        u64::from_value(v, ty, ck).map(|x| x.min(255) as u8)
    }
}

impl FromValue for i64 {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<i64, String> {
        match *ty {
            Ty::Int(lo, hi) => int(lo, hi)(v),
            _ => unreachable!("an integer key declared as {ty:?}"),
        }
    }
}

impl FromValue for bool {
    fn from_value(v: &Value, _: &Ty, _: &Checker) -> Result<bool, String> {
        boolean(v)
    }
}

impl FromValue for f64 {
    fn from_value(v: &Value, _: &Ty, _: &Checker) -> Result<f64, String> {
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
    }
}

impl FromValue for Limit {
    fn from_value(v: &Value, ty: &Ty, _: &Checker) -> Result<Limit, String> {
        let l = limit(v)?;
        match (ty, l) {
            (Ty::QueueLimit, Limit::Bytes(0) | Limit::Packets(0)) => {
                Err("a queue limit must be greater than zero".into())
            }
            _ => Ok(l),
        }
    }
}

impl FromValue for String {
    fn from_value(v: &Value, ty: &Ty, ck: &Checker) -> Result<String, String> {
        match ty {
            Ty::Choice(what, c) => choice(what, c)(v).map(str::to_string),
            Ty::Host => name_in("host", ck.hosts.as_deref())(v),
            Ty::Link => name_in("link", ck.links.as_deref())(v),
            _ => string(v),
        }
    }
}
