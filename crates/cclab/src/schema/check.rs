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
//!
//! This file holds the errors and the [`Checker`]; `check/read.rs` the value converters
//! and [`FromValue`], `check/message.rs` the helpers that word the messages (both
//! re-exported here, so their paths stay `check::…`).

use std::fmt;

use toml::{Table, Value};

use super::units;
use super::{Key, Schema};
use crate::engine::SimTime;

mod message;
mod read;
pub use message::{
    cut, cut_to, distance, echo, join, name_list, or_list, quoted, show, suggestion, type_name,
    unknown_key_message, unknown_name_message,
};
pub use read::{
    bare_number_message, boolean, bytes_in, choice, int, limit, name_in, positive_time, rate, size,
    string, time, with_unit, FromValue,
};

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
    /// The files a previous run read, as its folder's manifest records them (a re-run of
    /// the folder, `cclab run DIR`): a key with the value recorded reads the recorded file,
    /// and refuses it if its contents changed. Empty otherwise.
    pub recorded: &'a [super::InputFile],
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
