//! Data-center workloads: flows whose sizes come from an empirical distribution, arriving
//! as Poisson processes at a target load, between hosts chosen by a pattern — the traffic
//! of the DCTCP, pFabric and HPCC evaluations.
//!
//! - `sizes`: `"websearch"` (DCTCP 2010, `data/websearch.cdf`), `"datamining"` (VL2 2009,
//!   `data/datamining.cdf`), or a CDF file of one's own (lines `bytes probability`, `#`
//!   comments, first point at probability 0, last at 1, both non-decreasing). A size is
//!   drawn by inverting the CDF with linear interpolation between points (ns-2's
//!   `EmpiricalRandomVariable`, which pFabric's simulations use), rounded up to a byte.
//! - `load`: the fraction of each sending host's link rate its flows carry on average:
//!   each host starts flows as a Poisson process of rate `load × link rate / (8 × mean
//!   size)` (the mean of the interpolated distribution).
//! - `pattern`: `"all-to-all"` (each flow to a host drawn uniformly among the others),
//!   `"permutation"` (each host always to the same other host, a random derangement drawn
//!   once), or `"incast"` (at each arrival, `fan_in` distinct hosts each send a flow of the
//!   drawn size to one receiver, drawn uniformly or fixed by `to`; the arrival rate is
//!   divided by `fan_in` so that `load` stays the senders' average).
//!
//! Every flow is a TCP connection that writes its size and closes; its completion time is
//! in the `flows` and `fct` tables, beside the ideal on an empty network (`results`). The
//! arrivals are drawn as they fall due ([`Arrivals`]: each host's next one only), from
//! random streams of the app's own, so a run is reproducible. A flow's connection is
//! created when it arrives (`Sim::connect`) and freed when its last byte is acknowledged,
//! its result row going to the run's flow log (`results::FlowLog`, on disk beyond 256 KiB).
//! So the simulator's memory follows the flows active at once, not the flows of the run;
//! `max_flows` bounds the rows the results then hold (a few hundred bytes each).

use super::AppCx;
use super::Build;
use crate::engine::{Rng, SimTime};
use crate::schema::check::{join, type_name, Checker, Tab};
use crate::schema::units;
use crate::schema::{Key, Schema, Ty};
use crate::tcp::config::TcpConfig;
use toml::Value;

/// The listener port of workload flows.
const SERVICE: u16 = 5001;
/// Most flows one workload may start (each has a row in the results).
pub const MAX_FLOWS: i64 = 1_000_000;

/// Largest CDF file read.
const MAX_CDF_BYTES: u64 = 1 << 20;

/// The built-in size distributions: (name, file text).
pub const BUILT_IN: &[(&str, &str)] = &[
    ("websearch", include_str!("../../data/websearch.cdf")),
    ("datamining", include_str!("../../data/datamining.cdf")),
];

pub const PATTERNS: &[&str] = &["all-to-all", "permutation", "incast"];

const PATTERN: Key = Key {
    name: "pattern",
    ty: Ty::Choice("pattern", PATTERNS),
    default: "`\"all-to-all\"`",
    allowed: "",
    meaning: "who sends to whom: `all-to-all` (each flow to a uniformly drawn other host), `permutation` (each host to one fixed other host), `incast` (`fan_in` hosts at once to one)",
};
const SIZES: Key = Key {
    name: "sizes",
    ty: Ty::Str,
    default: "`\"websearch\"`",
    allowed: "`\"websearch\"`, `\"datamining\"`, or a CDF file (`bytes probability` per line, relative to the scenario file)",
    meaning: "the flow-size distribution",
};
const LOAD: Key = Key {
    name: "load",
    ty: Ty::Text("number"),
    default: "`0.5`",
    allowed: "above 0 and below 1",
    meaning: "fraction of each sender's link rate its flows carry on average (Poisson arrivals)",
};
const HOSTS: Key = Key {
    name: "hosts",
    ty: Ty::Text("string or list"),
    default: "`\"all\"`",
    allowed: "`\"all\"` or a list of host names",
    meaning: "the hosts that send and receive",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "before the end of the run",
    meaning: "first possible arrival",
};
const STOP: Key = Key {
    name: "stop",
    ty: Ty::Time,
    default: "the end of the run",
    allowed: "after `start`, at most sim.duration",
    meaning: "no flow arrives from then on (flows already started run on)",
};
const FAN_IN: Key = Key {
    name: "fan_in",
    ty: Ty::Int(1, 100_000),
    default: "`8`",
    allowed: "fewer than the hosts",
    meaning: "`incast`: senders per arrival",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Str,
    default: "a host drawn at each arrival",
    allowed: "one of `hosts`",
    meaning: "`incast`: the receiver",
};
const MAX: Key = Key {
    name: "max_flows",
    ty: Ty::Int(1, MAX_FLOWS),
    default: "`100000`",
    allowed: "",
    meaning:
        "refuse a workload expected to start more flows than this (each has a row in the results)",
};

pub static KEYS: Schema = Schema {
    title: "[[workload]]",
    place: "a workload table",
    noun: "workload",
    about: "Flows with sizes from an empirical distribution, arriving as Poisson processes at a target load, between hosts chosen by a pattern. Any `[tcp]` key may be given too, for these flows.",
    keys: &[PATTERN, SIZES, LOAD, HOSTS, START, STOP, FAN_IN, TO, MAX],
    with: &[&crate::tcp::config::TCP],
    variants: None,
};
pub const DEFAULT: &str = "none";
pub const MEANING: &str =
    "data-center workloads: flow sizes from a CDF, Poisson arrivals at a load";

/// The pattern of a workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    AllToAll,
    Permutation,
    Incast,
}

/// A flow-size distribution: points (bytes, cumulative probability).
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

impl Cdf {
    /// Parse a CDF file's text; the error says which line is wrong and why.
    pub fn parse(name: &str, text: &str) -> Result<Cdf, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.split('#').next().unwrap_or("").trim();
            if l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            let (size, p) = match f.as_slice() {
                [s, p] | [s, _, p] => (s.parse::<f64>(), p.parse::<f64>()),
                _ => {
                    return Err(format!(
                        "line {}: expected `bytes probability`, found {l:?}",
                        i + 1
                    ))
                }
            };
            let (Ok(size), Ok(p)) = (size, p) else {
                return Err(format!("line {}: not two numbers: {l:?}", i + 1));
            };
            if !(size.is_finite() && size >= 0.0 && (0.0..=1.0).contains(&p)) {
                return Err(format!(
                    "line {}: a size of 0 bytes or more and a probability from 0 to 1, found {l:?}",
                    i + 1
                ));
            }
            if let Some(&(ls, lp)) = points.last() {
                if size < ls || p < lp {
                    return Err(format!(
                        "line {}: sizes and probabilities must not decrease ({ls} {lp} before {size} {p})",
                        i + 1
                    ));
                }
            }
            points.push((size, p));
        }
        match (points.first(), points.last()) {
            (Some(&(_, a)), Some(&(_, b))) if a == 0.0 && b == 1.0 && points.len() >= 2 => {}
            _ => {
                return Err(
                    "a CDF needs at least two points, the first at probability 0 and the last at 1"
                        .into(),
                )
            }
        }
        Ok(Cdf {
            name: name.to_string(),
            points,
        })
    }

    /// The mean size in bytes of the interpolated distribution: each segment contributes
    /// its probability times its midpoint.
    pub fn mean(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
            .sum()
    }

    /// The size at cumulative probability `u` (in [0, 1)), interpolated linearly, rounded
    /// up to a whole byte and at least 1.
    pub fn quantile(&self, u: f64) -> u64 {
        let i = self.points.partition_point(|&(_, p)| p <= u).max(1);
        let (s0, p0) = self.points[i - 1];
        let Some(&(s1, p1)) = self.points.get(i) else {
            return (s0.ceil() as u64).max(1);
        };
        let x = if p1 > p0 {
            s0 + (s1 - s0) * (u - p0) / (p1 - p0)
        } else {
            s1
        };
        (x.ceil() as u64).max(1)
    }
}

/// One `[[workload]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    pub pattern: Pattern,
    pub sizes: Cdf,
    pub load: f64,
    /// Host names; empty = every host.
    pub hosts: Vec<String>,
    pub start: SimTime,
    pub stop: SimTime,
    pub fan_in: usize,
    pub to: Option<String>,
    pub max_flows: u64,
    pub tcp: TcpConfig,
}

pub type Spec = WorkloadSpec;

pub fn parse(
    ck: &mut Checker,
    root: Tab,
    table: &str,
    cx: &super::ParseCx,
) -> Option<Vec<WorkloadSpec>> {
    let Some(tables) = ck.array_of_tables(root, table) else {
        return Some(Vec::new());
    };
    let duration = cx.duration;
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let pattern = match ck.get::<String>(t, &PATTERN).as_deref() {
            None | Some("all-to-all") => Pattern::AllToAll,
            Some("permutation") => Pattern::Permutation,
            Some(_) => Pattern::Incast,
        };
        let sizes_name = ck
            .get::<String>(t, &SIZES)
            .unwrap_or_else(|| "websearch".into());
        let sizes = match BUILT_IN.iter().find(|(n, _)| *n == sizes_name) {
            Some((n, text)) => Cdf::parse(n, text).ok(),
            None => {
                let base = std::path::Path::new(ck.file)
                    .parent()
                    .unwrap_or(std::path::Path::new("."));
                let p = base.join(&sizes_name);
                // Only a regular file of reasonable size (not a device or a pipe).
                let read = match std::fs::metadata(&p) {
                    Ok(m) if !m.is_file() => Err("it is not a regular file".to_string()),
                    Ok(m) if m.len() > MAX_CDF_BYTES => Err(format!(
                        "it has {} bytes, more than a CDF needs ({MAX_CDF_BYTES})",
                        m.len()
                    )),
                    // Read with the limit too: the file may grow after `metadata`.
                    Ok(_) => crate::schema::read_text_limited(&p, MAX_CDF_BYTES),
                    Err(e) => Err(e.to_string()),
                };
                match read {
                    Err(e) => {
                        ck.err(
                            &join(t.path, SIZES.name),
                            t.t.get(SIZES.name),
                            format!("not \"websearch\" or \"datamining\", and {} cannot be read as a CDF file: {e}", p.display()),
                        );
                        None
                    }
                    Ok(text) => match Cdf::parse(&sizes_name, &text) {
                        Ok(c) => Some(c),
                        Err(m) => {
                            ck.err(
                                &join(t.path, SIZES.name),
                                t.t.get(SIZES.name),
                                format!("{}: {m}", p.display()),
                            );
                            None
                        }
                    },
                }
            }
        };
        let load = match t.t.get(LOAD.name) {
            None => 0.5,
            Some(v) => match v.as_float().or(v.as_integer().map(|i| i as f64)) {
                Some(x) if x > 0.0 && x < 1.0 => x,
                _ => {
                    ck.err(
                        &join(t.path, LOAD.name),
                        Some(v),
                        "a fraction of the link rate: a number above 0 and below 1 (e.g. 0.5); Poisson arrivals at a load of 1 or more never drain".into(),
                    );
                    0.5
                }
            },
        };
        let hosts = match t.t.get(HOSTS.name) {
            None => Vec::new(),
            Some(Value::String(s)) if s == "all" => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            Some(v) => {
                ck.err(
                    &join(t.path, HOSTS.name),
                    Some(v),
                    format!(
                        "expected \"all\" or a list of host names, found {}",
                        type_name(v)
                    ),
                );
                Vec::new()
            }
        };
        let start = super::start(ck, t, &START, duration).unwrap_or(0);
        let stop: SimTime = ck.get(t, &STOP).or(duration).unwrap_or(0);
        if stop <= start || duration.is_some_and(|d| stop > d) {
            ck.err(
                &join(t.path, STOP.name),
                t.t.get(STOP.name),
                format!(
                    "must be after start ({}) and at most sim.duration",
                    units::format_time(start)
                ),
            );
        }
        let fan_in = ck.get::<u64>(t, &FAN_IN).unwrap_or(8) as usize;
        let to: Option<String> = ck.get(t, &TO);
        let max_flows = ck.get::<u64>(t, &MAX).unwrap_or(100_000);
        let mut tcp = cx.tcp.clone();
        crate::tcp::config::parse(ck, t, &mut tcp);
        out.push(WorkloadSpec {
            pattern,
            sizes: sizes?,
            load,
            hosts,
            start,
            stop,
            fan_in,
            to,
            max_flows,
            tcp,
        });
    }
    Some(out)
}

/// One flow of a workload: when, from which host to which (indices into the hosts), how
/// many bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    pub at: SimTime,
    pub from: usize,
    pub to: usize,
    pub bytes: u64,
}

/// An exponential interval of mean `mean` picoseconds.
fn exp(rng: &mut Rng, mean: f64) -> SimTime {
    // 1 − U is in (0, 1]: the logarithm is finite.
    (-(1.0 - rng.uniform()).ln() * mean).round() as SimTime
}

/// The arrivals of a workload, drawn as they are needed, in time order (ties in host
/// order): only the next arrival of each host is held, so a run of any length holds as
/// little as a short one.
///
/// `all-to-all` and `permutation`: each host is a Poisson process of its own, with a
/// random stream of its own (its intervals, destinations and sizes in that order), and
/// the hosts are merged by time. `incast`: one process of groups, each `fan_in` arrivals
/// at one time, from the app's stream.
pub struct Arrivals {
    pattern: Pattern,
    sizes: Cdf,
    stop: SimTime,
    n: usize,
    /// Per host: its stream and mean interval (ps); the incast process uses entry 0.
    procs: Vec<(Rng, f64)>,
    /// Each host's next arrival time, earliest first (ties by host).
    due: std::collections::BinaryHeap<std::cmp::Reverse<(SimTime, usize)>>,
    perm: Vec<usize>,
    /// Incast: the fixed receiver, the group being handed out (the next one last), and
    /// the drawing pool.
    to: Option<usize>,
    fan_in: usize,
    group: Vec<Arrival>,
    pool: Vec<usize>,
}

impl Arrivals {
    /// The arrivals of workload `w` over hosts whose link rates are `rates` (bit/s); `to`
    /// is the incast receiver's index if fixed. `rng` is the app's stream (the
    /// permutation, the incast process); `host_rng(h)` the stream of host `h`.
    pub fn new(
        w: &WorkloadSpec,
        rates: &[u64],
        to: Option<usize>,
        mut rng: Rng,
        host_rng: impl Fn(usize) -> Rng,
    ) -> Arrivals {
        let n = rates.len();
        let mean_bytes = w.sizes.mean();
        let mut a = Arrivals {
            pattern: w.pattern,
            sizes: w.sizes.clone(),
            stop: w.stop,
            n,
            procs: Vec::new(),
            due: Default::default(),
            perm: Vec::new(),
            to,
            fan_in: w.fan_in,
            group: Vec::new(),
            pool: Vec::with_capacity(n),
        };
        let first = |a: &mut Arrivals, h: usize, mut r: Rng, mean: f64| {
            let t = w.start.saturating_add(exp(&mut r, mean));
            a.procs.push((r, mean));
            if t < a.stop {
                a.due.push(std::cmp::Reverse((t, h)));
            }
        };
        match w.pattern {
            Pattern::AllToAll | Pattern::Permutation => {
                // The permutation: a random derangement (Sattolo's algorithm gives one
                // cycle through every host, so nobody sends to itself).
                if w.pattern == Pattern::Permutation {
                    a.perm = (0..n).collect();
                    for i in (1..n).rev() {
                        let j = rng.below(i as u64) as usize;
                        a.perm.swap(i, j);
                    }
                }
                for (h, &rate) in rates.iter().enumerate() {
                    // Mean interval between this host's flows, in ps.
                    let mean =
                        mean_bytes * 8.0 / (w.load * rate as f64) * crate::engine::SEC as f64;
                    first(&mut a, h, host_rng(h), mean);
                }
            }
            Pattern::Incast => {
                // Arrivals of the whole group: fan_in senders each, so the senders'
                // average load is `load` of the mean link rate.
                let rate = rates.iter().sum::<u64>() as f64 / n as f64;
                let mean = mean_bytes * 8.0 / (w.load * rate) * crate::engine::SEC as f64
                    / n as f64
                    * w.fan_in as f64;
                first(&mut a, 0, rng, mean);
            }
        }
        a
    }

    /// The next arrival, if one comes before the workload's stop.
    pub fn next_arrival(&mut self) -> Option<Arrival> {
        if let Some(x) = self.group.pop() {
            return Some(x);
        }
        let std::cmp::Reverse((t, h)) = self.due.pop()?;
        let (rng, mean) = &mut self.procs[h];
        let n = self.n;
        let out = match self.pattern {
            Pattern::AllToAll | Pattern::Permutation => {
                let to = match self.pattern {
                    Pattern::Permutation => self.perm[h],
                    _ => {
                        let d = rng.below(n as u64 - 1) as usize;
                        d + (d >= h) as usize
                    }
                };
                let bytes = self.sizes.quantile(rng.uniform());
                Arrival {
                    at: t,
                    from: h,
                    to,
                    bytes,
                }
            }
            Pattern::Incast => {
                let dst = self.to.unwrap_or_else(|| rng.below(n as u64) as usize);
                let bytes = self.sizes.quantile(rng.uniform());
                self.pool.clear();
                self.pool.extend((0..n).filter(|&x| x != dst));
                for k in 0..self.fan_in.min(self.pool.len()) {
                    let j = k + rng.below((self.pool.len() - k) as u64) as usize;
                    self.pool.swap(k, j);
                    self.group.push(Arrival {
                        at: t,
                        from: self.pool[k],
                        to: dst,
                        bytes,
                    });
                }
                // Handed out in sender order.
                self.group.sort_by_key(|x| std::cmp::Reverse(x.from));
                self.group.pop()?
            }
        };
        let next = t.saturating_add(exp(rng, *mean));
        if next < self.stop {
            self.due.push(std::cmp::Reverse((next, h)));
        }
        Some(out)
    }
}

/// Every arrival of workload `w` at once (tests; a run draws them as it goes).
pub fn arrivals(w: &WorkloadSpec, rates: &[u64], to: Option<usize>, seed: u64) -> Vec<Arrival> {
    let mut a = Arrivals::new(w, rates, to, Rng::new(seed, 0), |h| {
        Rng::new(seed, 1 + h as u64)
    });
    std::iter::from_fn(|| a.next_arrival()).collect()
}

/// Build each workload: its arrival process and the app that creates a connection per
/// flow as it arrives. What can be checked before the run is checked here: the hosts, the
/// routes between the pairs that may talk, the TCP configuration and the flow count.
pub fn build(specs: &[WorkloadSpec], w: &mut dyn Build) -> Result<(), String> {
    for (i, s) in specs.iter().enumerate() {
        let label = format!("workload.{i}");
        let names: Vec<String> = if s.hosts.is_empty() {
            w.host_names()
        } else {
            s.hosts.clone()
        };
        if names.len() < 2 {
            return Err(format!("{label}: a workload needs at least two hosts"));
        }
        let mut rates = Vec::with_capacity(names.len());
        let mut nodes = Vec::with_capacity(names.len());
        for n in &names {
            nodes.push(w.host(n).map_err(|_| {
                format!(
                    "{label}.hosts: unknown host \"{n}\"; allowed: the topology's hosts, {}",
                    crate::schema::check::name_list(&w.host_names())
                )
            })?);
            rates.push(w.host_rate(n).map_err(|e| format!("{label}: {e}"))?);
        }
        let to = match &s.to {
            None => None,
            Some(t) => Some(names.iter().position(|n| n == t).ok_or_else(|| {
                format!(
                    "{label}.to: \"{t}\" is not one of the workload's hosts; allowed: {}",
                    crate::schema::check::name_list(&names)
                )
            })?),
        };
        if s.pattern == Pattern::Incast && s.fan_in >= names.len() {
            return Err(format!(
                "{label}.fan_in: {} senders need more than {} hosts",
                s.fan_in,
                names.len()
            ));
        }
        // The expected number of flows, checked before the run.
        let secs = crate::engine::secs(s.stop - s.start);
        let expected = rates
            .iter()
            .map(|&r| s.load * r as f64 * secs / 8.0)
            .sum::<f64>()
            / s.sizes.mean();
        if expected > s.max_flows as f64 {
            return Err(format!(
                "{label}: about {expected:.0} flows expected ({} hosts at load {} for {} with mean size {:.0} B), more than max_flows = {}",
                names.len(),
                s.load,
                units::format_time(s.stop - s.start),
                s.sizes.mean(),
                s.max_flows
            ));
        }
        let app = w.next_app();
        let gen = Arrivals::new(s, &rates, to, w.app_rng(app), |h| {
            w.app_sub_rng(app, h as u64)
        });
        // Each sender's configuration (its host's stack), checked once each.
        let mut cfgs = Vec::with_capacity(nodes.len());
        for &node in &nodes {
            let cfg = w.host_tcp(node, &s.tcp);
            w.check_tcp(&cfg).map_err(|e| format!("{label}: {e}"))?;
            cfgs.push(cfg);
        }
        // Every pair that may exchange a flow must be routed both ways.
        let pairs: Vec<(usize, usize)> = match (s.pattern, to) {
            (Pattern::Permutation, _) => (0..nodes.len()).map(|h| (h, gen.perm[h])).collect(),
            (Pattern::Incast, Some(t)) => (0..nodes.len())
                .filter(|&h| h != t)
                .map(|h| (h, t))
                .collect(),
            _ => all_pairs_classes(&nodes, |n| w.attachment(n)),
        };
        for (a, z) in pairs {
            let (na, nz) = (nodes[a], nodes[z]);
            let hash = crate::net::flow_hash(na, nz, crate::transport::EPHEMERAL_FIRST, SERVICE, 6);
            for (x, y, nx, ny) in [
                (na, nz, &names[a], &names[z]),
                (nz, na, &names[z], &names[a]),
            ] {
                if !w.reaches(x, y, hash) {
                    return Err(format!(
                        "{label}: no route from {nx} to {ny} (hosts do not forward; is a link missing?)"
                    ));
                }
            }
        }
        w.push_app(super::AnyApp::Workload(Workload {
            gen: Box::new(gen),
            nodes,
            cfgs,
            next: None,
        }));
    }
    Ok(())
}

/// The pairs of hosts whose routes stand for every pair of `nodes`: hosts on one switch are
/// routed alike, so one host per switch (with every host that has no single switch link)
/// stands for its switch, and one pair inside each switch with two or more hosts checks its
/// way down. A k = 64 fat-tree's 65,536 hosts give 2.1 M pairs, not 2.1 G.
fn all_pairs_classes(
    nodes: &[crate::net::NodeId],
    attachment: impl Fn(crate::net::NodeId) -> Option<crate::net::NodeId>,
) -> Vec<(usize, usize)> {
    // Per switch: its first host, and whether a pair inside it was taken.
    let mut first_on: std::collections::BTreeMap<crate::net::NodeId, (usize, bool)> =
        Default::default();
    let mut reps = Vec::new();
    let mut inside = Vec::new();
    for (h, &n) in nodes.iter().enumerate() {
        match attachment(n) {
            Some(sw) => match first_on.get_mut(&sw) {
                Some((r, taken)) => {
                    if !*taken {
                        inside.push((*r, h));
                        *taken = true;
                    }
                }
                None => {
                    first_on.insert(sw, (h, false));
                    reps.push(h);
                }
            },
            None => reps.push(h),
        }
    }
    let mut pairs: Vec<(usize, usize)> = (0..reps.len())
        .flat_map(|i| (i + 1..reps.len()).map(move |j| (i, j)))
        .map(|(i, j)| (reps[i], reps[j]))
        .collect();
    pairs.extend(inside);
    pairs
}

/// Creates a connection for each flow as it arrives, one wake-up pending at a time.
pub struct Workload {
    /// (Boxed: the app enum holds every app by value.)
    gen: Box<Arrivals>,
    /// The hosts' nodes, and the configuration of the flows each sends.
    nodes: Vec<crate::net::NodeId>,
    cfgs: Vec<std::sync::Arc<TcpConfig>>,
    /// The next arrival, drawn and not yet due.
    next: Option<Arrival>,
}

pub type App = Workload;

impl super::App for Workload {
    fn start(&mut self, cx: &mut AppCx) {
        self.next = self.gen.next_arrival();
        if let Some(a) = self.next {
            cx.wake(a.at, 0);
        }
    }

    fn on_event(&mut self, _tag: u32, cx: &mut AppCx) {
        while let Some(a) = self.next {
            if a.at > cx.now {
                cx.wake(a.at, 0);
                break;
            }
            cx.connect(super::NewConn {
                from: self.nodes[a.from],
                to: self.nodes[a.to],
                service: SERVICE,
                bytes: a.bytes,
                cfg: std::sync::Arc::clone(&self.cfgs[a.from]),
            });
            self.next = self.gen.next_arrival();
        }
    }
}

#[cfg(test)]
mod tests;
