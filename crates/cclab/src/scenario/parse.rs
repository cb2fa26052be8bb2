//! The TOML front end: scenario text plus `--set key=value` overrides → a validated
//! [`Scenario`], or *every* mistake in it at once.
//!
//! The walk is in the components: each reads its own table by the keys it declares
//! (`schema.rs`) with the checker (`check.rs`). This file holds the top of the walk (the
//! tables of a file, `[sim]`) and `--set`.
//!
//! Key paths: tables are joined with dots (`topology.bottleneck.rate`); elements of arrays
//! by their 0-based index (`flow.0.cc`, `topology.hops.2.delay`).

use std::path::Path;

use toml::{Table, Value};

use super::spec::{Scenario, TcpConfig, TopologySpec};
use crate::engine::SimTime;
use crate::schema::check::{join, show, type_name, Checker, ScenarioError, Tab};
use crate::schema::{
    input_limit_text, read_text_limited, Key, Schema, Ty, MAX_INPUT_BYTES, REQUIRED,
};

const NAME: Key = Key {
    name: "name",
    ty: Ty::Str,
    default: "the file name without its extension",
    allowed: "1 to 100 characters; not starting with `.`; no `/`, `\\` or control characters",
    meaning: "names the output folder (`out/<name>-<run id>`, the run id's first 8 hex digits)",
};
const DURATION: Key = Key {
    name: "duration",
    ty: Ty::Interval,
    default: REQUIRED,
    allowed: "",
    meaning: "simulated time to run",
};
const SEED: Key = Key {
    name: "seed",
    ty: Ty::Int(0, i64::MAX),
    default: "`1`",
    allowed: "",
    meaning: "master seed; every random choice derives from it; `cclab run --seed N` overrides it",
};
const MAX_APP_PACKETS: Key = Key {
    name: "max_app_packets",
    ty: Ty::Int(1, i64::MAX),
    default: "`1000000000`",
    allowed: "",
    meaning: "the most packets one `[[udp]]` or `[[ocbr]]` may send over the run, estimated from its rate, size and time before the run starts: a guard against a rate that would take hours (a datagram costs ~0.2 µs of wall time); raise it for a run that needs more",
};

/// `[sim]`.
pub static SIM: Schema = Schema {
    title: "[sim]",
    place: "[sim]",
    noun: "sim",
    about: "",
    keys: &[NAME, DURATION, SEED, MAX_APP_PACKETS],
    with: &[],
    variants: None,
};

/// A scenario file: its tables.
pub static TOP: Schema = Schema {
    title: "Top level",
    place: "the top level",
    noun: "scenario",
    about: "",
    keys: &[
        Key {
            name: "sim",
            ty: Ty::Table(&SIM),
            default: REQUIRED,
            allowed: "",
            meaning: "run length, name, seed",
        },
        Key {
            name: "topology",
            ty: Ty::Table(&crate::net::topology::TOPOLOGY),
            default: REQUIRED,
            allowed: "",
            meaning: "the network",
        },
        Key {
            name: "tcp",
            ty: Ty::Table(&crate::tcp::config::TCP),
            default: "Linux's",
            allowed: "",
            meaning: "TCP defaults for every flow",
        },
        Key {
            name: "loss",
            ty: Ty::Tables(&crate::net::loss::KEYS),
            default: "none",
            allowed: "",
            meaning: "loss injection on a link",
        },
        Key {
            name: "police",
            ty: Ty::Tables(&crate::net::ingress::KEYS),
            default: "none",
            allowed: "",
            meaning: "an ingress policer on a link (tc `ingress` + `police`)",
        },
        Key {
            name: "event",
            ty: Ty::Tables(&crate::net::dynamics::events::KEYS),
            default: "none",
            allowed: "",
            meaning: "a change to a link during the run (rate, delay, loss, up/down)",
        },
        Key {
            name: "host",
            ty: Ty::Table(&crate::net::host::KEYS),
            default: "jitter `\"auto\"`",
            allowed: "",
            meaning: "what hosts do between their stack and their NIC (processing jitter)",
        },
        Key {
            name: "output",
            ty: Ty::Table(&crate::probe::KEYS),
            default: "none",
            allowed: "",
            meaning: "time series, plots, captures",
        },
    ],
    with: &[&crate::app::TRAFFIC],
    variants: None,
};

/// Read and parse a scenario file; see [`parse_scenario`].
pub fn load_scenario(
    path: &Path,
    sets: &[(String, String)],
) -> Result<Scenario, Vec<ScenarioError>> {
    parse_scenario(&read_scenario(path)?, &path.display().to_string(), sets)
}

/// Whether scenario text holds a `[sweep]` table (which only `cclab sweep` reads; a
/// single run ignores it). False for text that does not parse: its errors come from the
/// parser.
pub fn has_sweep(text: &str) -> bool {
    text.parse::<Table>()
        .is_ok_and(|t| matches!(t.get("sweep"), Some(Value::Table(_))))
}

/// The text of a scenario file, or the error that says why it cannot be read (at most
/// [`MAX_INPUT_BYTES`] are read).
pub fn read_scenario(path: &Path) -> Result<String, Vec<ScenarioError>> {
    read_text_limited(path, MAX_INPUT_BYTES).map_err(|e| {
        vec![ScenarioError {
            file: path.display().to_string(),
            key: String::new(),
            value: String::new(),
            message: format!("cannot read the scenario file: {e}"),
        }]
    })
}

/// `text` (from `what`) is longer than [`MAX_INPUT_BYTES`]: the error, or nothing.
fn too_long(text: &str, file: &str, key: &str) -> Option<ScenarioError> {
    (text.len() as u64 > MAX_INPUT_BYTES).then(|| ScenarioError {
        file: file.to_string(),
        key: key.to_string(),
        value: String::new(),
        message: format!("it has {} bytes, over {}", text.len(), input_limit_text()),
    })
}

/// What `cclab run` adds to a scenario on its command line. [`Overrides::apply`] is the
/// whole of what `cclab run` does with a scenario's text before its output folder: the
/// CLI calls it, and so does the fuzz test (`crates/cclab-cli/tests/it/fuzz.rs`).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--set KEY=VALUE` words, as typed.
    pub sets: Vec<String>,
    /// `--seed N`: `sim.seed`, after the `--set`s.
    pub seed: Option<u64>,
    /// `--pcap NAME`: captures added to `[output] pcap` (a name listed there already is
    /// not added twice), checked as the file's own entries are.
    pub pcap: Vec<String>,
    /// Values a sweep sets (`[sweep]`, `sweep/`), as TOML values, after the `--set`s;
    /// their errors are attributed to `[sweep]`.
    pub values: Vec<(String, Value)>,
    /// The files the run being re-run read (its folder's manifest, `run.json` `inputs`):
    /// read again from where that run read them, and refused if changed.
    pub recorded: Vec<crate::schema::InputFile>,
}

impl Overrides {
    /// Scenario `text` (from `file`) with these overrides, validated: the scenario, or
    /// every error found (`cclab run` exits 2 on them, before anything is written).
    pub fn apply(&self, text: &str, file: &str) -> Result<Scenario, Vec<ScenarioError>> {
        let mut kv = Vec::new();
        let mut errors = Vec::new();
        for s in &self.sets {
            if let Some(e) = too_long(s, "--set", s.split_once('=').map_or("", |(k, _)| k.trim())) {
                errors.push(e);
                continue;
            }
            match s.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    kv.push((k.trim().to_string(), v.trim().to_string()))
                }
                _ => errors.push(ScenarioError {
                    file: "--set".into(),
                    key: String::new(),
                    value: String::new(),
                    message: format!(
                        "{}: expected KEY=VALUE, e.g. --set tcp.cc=reno",
                        super::check::echo(s)
                    ),
                }),
            }
        }
        if let Some(seed) = self.seed {
            // `sim.seed` is a TOML integer: a u64 above i64::MAX cannot be written back.
            if seed > i64::MAX as u64 {
                errors.push(ScenarioError {
                    file: "--seed".into(),
                    key: String::new(),
                    value: String::new(),
                    message: format!("{seed} is above the largest seed, {}", i64::MAX),
                });
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // The `--set`s, then the sweep's values, then `--seed`.
        let mut sets: Vec<(String, Value, &'static str)> = kv
            .into_iter()
            .map(|(k, v)| (k, set_value(&v), "--set"))
            .collect();
        sets.extend(
            self.values
                .iter()
                .map(|(k, v)| (k.clone(), v.clone(), "[sweep]")),
        );
        if let Some(seed) = self.seed {
            sets.push(("sim.seed".into(), Value::Integer(seed as i64), "--set"));
        }
        parse(text, file, &sets, &self.pcap, &self.recorded)
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
    let long: Vec<ScenarioError> = sets
        .iter()
        .filter_map(|(k, v)| too_long(v, "--set", k))
        .collect();
    if !long.is_empty() {
        return Err(long);
    }
    let sets: Vec<(String, Value, &'static str)> = sets
        .iter()
        .map(|(k, v)| (k.clone(), set_value(v), "--set"))
        .collect();
    parse(text, file, &sets, &[], &[])
}

/// [`parse_scenario`] with `--pcap` names added to `[output] pcap`, reading the files a
/// re-run's manifest `recorded` from where they were read.
fn parse(
    text: &str,
    file: &str,
    sets: &[(String, Value, &'static str)],
    pcap: &[String],
    recorded: &[crate::schema::InputFile],
) -> Result<Scenario, Vec<ScenarioError>> {
    if let Some(e) = too_long(text, file, "") {
        return Err(vec![e]);
    }
    let mut root: Table = match text.parse::<Table>() {
        Ok(t) => t,
        Err(e) => {
            return Err(vec![ScenarioError {
                file: file.to_string(),
                key: String::new(),
                value: String::new(),
                message: toml_error(text, &e),
            }])
        }
    };
    let mut ck = Checker {
        file,
        from_cli: Vec::new(),
        errors: Vec::new(),
        hosts: None,
        links: None,
        recorded,
    };
    // A sweep (`cclab sweep`) is not part of any one run: its points are runs of the rest.
    root.remove("sweep");
    for (path, value, from) in sets {
        apply_set(&mut ck, &mut root, path, value.clone(), from);
    }
    add_pcap(&mut ck, &mut root, pcap);
    let scenario = scenario(&mut ck, &root);
    match scenario {
        Some(mut s) if ck.errors.is_empty() => {
            // The resolved file, with the name it got, so it reruns as it ran.
            if let Some(Value::Table(sim)) = root.get_mut("sim") {
                sim.insert("name".into(), Value::String(s.name.clone()));
            }
            s.source = toml::to_string(&root).unwrap_or_default();
            Ok(s)
        }
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

/// The walk of a whole file.
fn scenario(ck: &mut Checker, root: &Table) -> Option<Scenario> {
    let root = Tab { path: "", t: root };
    ck.check_keys(root, &TOP, None);

    // [sim]
    let stem = Path::new(ck.file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "scenario".into());
    let empty = Table::new();
    let sim = ck.table(root, "sim", "sim").unwrap_or(Tab {
        path: "sim",
        t: &empty,
    });
    ck.check_keys(sim, &SIM, None);
    let name = ck
        .opt(sim, NAME.name, |v| {
            let s = super::check::string(v)?;
            super::check::plain_name(&s).map(|()| s)
        })
        .unwrap_or(stem);
    let duration: Option<SimTime> = ck.need(sim, &DURATION, "\"10s\"");
    let seed = ck.get::<u64>(sim, &SEED).unwrap_or(1);
    let max_app_packets = ck
        .get::<u64>(sim, &MAX_APP_PACKETS)
        .unwrap_or(super::check::MAX_APP_PACKETS);

    let topology = crate::net::topology::parse(ck, root);
    let link_rates = crate::net::dynamics::parse(ck, root);
    ck.hosts = topology.as_ref().map(TopologySpec::host_names);
    ck.links = topology.as_ref().map(TopologySpec::link_names);

    // [tcp]: the defaults of every flow.
    let mut tcp = TcpConfig::default();
    if let Some(t) = ck.table(root, "tcp", "tcp") {
        ck.check_keys(t, &crate::tcp::config::TCP, None);
        crate::tcp::config::parse(ck, t, &mut tcp);
    }

    let cx = crate::app::ParseCx {
        topology: topology.as_ref(),
        tcp: &tcp,
        duration,
        max_app_packets,
    };
    let apps = crate::app::parse(ck, root, &cx);
    let losses = crate::net::loss::parse(ck, root, apps.as_ref().map(|a| a.flows.len()));
    let policers = crate::net::ingress::parse(ck, root);
    let host = crate::net::host::parse(ck, root);
    let traced: Vec<String> = link_rates.iter().map(|l| l.link.clone()).collect();
    let events = crate::net::dynamics::events::parse(ck, root, &traced);
    let output = crate::probe::parse(ck, root, duration);

    Some(Scenario {
        name,
        source: String::new(),
        duration: duration?,
        seed,
        topology: topology?,
        apps: apps?,
        losses,
        policers,
        host,
        output,
        link_rates,
        events,
    })
}

/// A TOML syntax error as a short message: line and column, an excerpt of at most 60
/// characters around the error with a caret under it (control characters escaped, so a
/// 10 MB line or escape bytes never reach the terminal), and the parser's reason.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let reason: Vec<String> = e
        .message()
        .lines()
        .map(|l| super::check::cut_to(l, 200))
        .collect();
    let reason = reason.join("; ");
    let Some(span) = e.span() else {
        return format!("TOML parse error: {reason}");
    };
    let at = span.start.min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line_no = text[..at].matches('\n').count() + 1;
    let chars: Vec<char> = text[line_start..line_end].chars().collect();
    let col = text[line_start..at].chars().count();
    let from = col.saturating_sub(30);
    let to = (from + 60).min(chars.len());
    let mut excerpt = String::new();
    // What goes under the excerpt up to the caret: spaces, and tabs under tabs.
    let mut caret = String::new();
    if from > 0 {
        excerpt.push('…');
        caret.push(' ');
    }
    for (i, c) in chars[from..to].iter().enumerate() {
        let shown: String = if c.is_control() && *c != '\t' {
            c.escape_debug().collect()
        } else {
            c.to_string()
        };
        if from + i < col {
            for _ in 0..shown.chars().count() {
                caret.push(if *c == '\t' { '\t' } else { ' ' });
            }
        }
        excerpt.push_str(&shown);
    }
    if to < chars.len() {
        excerpt.push('…');
    }
    format!(
        "TOML parse error at line {line_no}, column {}: {reason}\n  | {excerpt}\n  | {caret}^",
        col + 1
    )
}

// ----- --set

/// Apply one `--set path=value`; the value is TOML if it parses as TOML, else a string.
fn apply_set(ck: &mut Checker, root: &mut Table, path: &str, value: Value, from: &'static str) {
    let segs: Vec<&str> = path.trim().split('.').map(str::trim).collect();
    let res = check_path(&segs).and_then(|()| {
        // Work on a copy so that a failed path leaves no half-made tables behind.
        let mut holder = Value::Table(root.clone());
        let owned = put(&mut holder, &segs, "", value.clone())?;
        if let Value::Table(t) = holder {
            *root = t;
        }
        Ok(owned)
    });
    match res {
        Ok(owned) => ck.from_cli.push((owned, from)),
        Err(m) => ck.errors.push(ScenarioError {
            file: from.into(),
            key: path.into(),
            value: show(&value),
            message: m,
        }),
    }
}

/// Append each `--pcap` name to `[output] pcap` unless listed there; errors about the
/// appended entries are the command line's. Where `output` or its `pcap` is not what it
/// should be, the names are left out: the checker reports the file's mistake.
fn add_pcap(ck: &mut Checker, root: &mut Table, names: &[String]) {
    if names.is_empty() {
        return;
    }
    let output = root
        .entry("output")
        .or_insert_with(|| Value::Table(Table::new()));
    let Value::Table(output) = output else {
        return;
    };
    let list = output
        .entry("pcap")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(list) = list else {
        return;
    };
    for n in names {
        if !list.iter().any(|v| v.as_str() == Some(n.as_str())) {
            ck.from_cli
                .push((format!("output.pcap.{}", list.len()), "--pcap"));
            list.push(Value::String(n.clone()));
        }
    }
}

/// Is `segs` a key path the schema has? The error names the first unknown part.
fn check_path(segs: &[&str]) -> Result<(), String> {
    if segs.iter().any(|s| s.is_empty()) {
        return Err("a key path is names joined by dots, e.g. tcp.cc or flow.0.stop".into());
    }
    if segs.is_empty() {
        return Err("empty key path".into());
    }
    TOP.check_path(segs)
}

/// `true`, `3`, `1e-3`, `"x"`, `["1ms", "2ms"]` are TOML; anything else (`reno`, `1Gbps`)
/// is taken as a string.
fn set_value(raw: &str) -> Value {
    match format!("v = {raw}").parse::<Table>() {
        Ok(mut t) if t.len() == 1 => t.remove("v").unwrap_or_else(|| Value::String(raw.into())),
        _ => Value::String(raw.to_string()),
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
mod tests;
