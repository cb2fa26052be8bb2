//! `cclab bench`: fixed workloads timed on the wall clock, reported as events/s and
//! packet-hops/s (one packet crossing one link is one hop):
//! - `cubic16`: 16 CUBIC flows over a 10 Gbit/s dumbbell for 1 s of simulated time;
//! - `dctcp10`: the project brief's comparison workload: 10 DCTCP flows, 10 Gbit/s
//!   dumbbell, ECN marking at K = 65 packets (the seed's 10 Gbit/s heuristic), 1 s.
//!
//! With `--scale` (`run_scale`), data-center cases: the web-search workload at 50% load
//! with DCTCP on a k = 8 fat-tree (128 hosts) for 1 s, and on a k = 16 fat-tree (1,024
//! hosts) for 20 ms, each with its peak resident memory.
//!
//! With `--senders` (`run_senders`), the dctcp10 dumbbell with 10, 100 and 1,000
//! senders, interleaved over several rounds: how much of its speed the engine keeps when
//! a hundred times more connections share the bottleneck.
//!
//! It prints only what it measures; docs/speed.md gives the peers' figures with their sources
//! (htsim measured on the development machine; ns-3 by `bench/race.sh`, on the same dumbbell).

use crate::engine::{SimTime, SEC, US};
use crate::scenario::*;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub workload: &'static str,
    pub about: &'static str,
    pub wall_s: f64,
    pub events_per_s: f64,
    pub packet_hops_per_s: f64,
    pub events: u64,
    pub packet_hops: u64,
    pub sim_time_s: f64,
    pub goodput_gbps: f64,
    /// Peak resident memory while this case ran, MiB (Linux: `VmHWM`, reset before the
    /// case through `/proc/self/clear_refs`; absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_mib: Option<f64>,
    /// How much of the process's memory was in transparent huge pages at the same moment,
    /// MiB (Linux `AnonHugePages`; absent elsewhere): the `cclab` command asks for them
    /// (`crates/cclab-cli/src/huge_pages.rs`), the kernel may not give them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub huge_pages_mib: Option<f64>,
}

/// A 10 Gbit/s dumbbell of `n` senders, 10 µs links (access delay per sender), the given
/// bottleneck queue, each sender running `cc` for 1 s.
fn dumbbell(name: &str, cc: &str, access_delay: Vec<SimTime>, queue: QueueSpec) -> Scenario {
    let topo = TopologySpec::Dumbbell {
        senders: access_delay.len(),
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: 10_000_000_000,
            delay: 10 * US,
            queue,
        },
        access_rate_bps: 10_000_000_000,
        access_delay,
        access_queue: QueueSpec::droptail(Limit::Packets(10_000)),
    };
    let mut sc = Scenario::new(name, topo, SEC);
    sc.add_default_flows(&TcpConfig {
        cc: cc.into(),
        ..Default::default()
    });
    sc
}

/// The headline workload (`cubic16`): 16 CUBIC senders, access delays 10-25 µs (RTTs
/// ≈ 80-140 µs), drop-tail bottleneck of 1000 packets.
pub fn scenario() -> Scenario {
    let delays = (0..16).map(|i| 10 * US + i * US).collect();
    let queue = QueueSpec::droptail(Limit::Packets(1000));
    dumbbell("bench", "cubic", delays, queue)
}

/// The ns-3/htsim comparison workload (`dctcp10`): 10 DCTCP senders, 10 µs access links,
/// ECN marking at K = 65 packets in a 1000-packet bottleneck queue.
pub fn scenario_dctcp10() -> Scenario {
    scenario_dctcp_senders(10)
}

/// dctcp10 with `n` senders (10 µs access links, as `cclab run bench/dctcp10.toml --set
/// topology.senders=N`).
pub fn scenario_dctcp_senders(n: usize) -> Scenario {
    let queue = QueueSpec::ecn(Limit::Packets(1000), Limit::Packets(65));
    dumbbell("bench-dctcp10", "dctcp", vec![10 * US; n], queue)
}

/// Sender counts of `run_senders`.
pub const SENDERS: [usize; 3] = [10, 100, 1000];

/// What `run_senders` measured.
#[derive(Clone, Debug, Serialize)]
pub struct SendersBench {
    pub rounds: usize,
    /// For each count of `SENDERS`, its round of median wall time.
    pub results: Vec<BenchResult>,
    /// For each count of `SENDERS`, the median over the rounds of its packet-hops/s over
    /// the 10-sender case's of the same round (1 for 10 senders). Paired by round, so a
    /// machine whose speed drifts between rounds moves both sides of each ratio alike.
    pub keep: Vec<f64>,
}

/// The dctcp10 dumbbell with 10, 100 and 1,000 senders (`cclab bench --senders`), run
/// `rounds` times in turn. Workload names `dctcp-s10`, `dctcp-s100`, `dctcp-s1000`.
pub fn run_senders(rounds: usize) -> SendersBench {
    const NAMES: [&str; 3] = ["dctcp-s10", "dctcp-s100", "dctcp-s1000"];
    const ABOUT: [&str; 3] = [
        "10 DCTCP flows, 10 Gbit/s dumbbell, K = 65 packets (dctcp10)",
        "dctcp10 with 100 senders",
        "dctcp10 with 1,000 senders",
    ];
    let rounds = rounds.max(1);
    let scenarios: Vec<Scenario> = SENDERS.iter().map(|&n| scenario_dctcp_senders(n)).collect();
    let mut runs: [Vec<BenchResult>; 3] = Default::default();
    for _ in 0..rounds {
        for (i, sc) in scenarios.iter().enumerate() {
            runs[i].push(run_one(NAMES[i], ABOUT[i], sc));
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let keep = (0..3)
        .map(|i| {
            median(
                (0..rounds)
                    .map(|r| runs[i][r].packet_hops_per_s / runs[0][r].packet_hops_per_s)
                    .collect(),
            )
        })
        .collect();
    let results = runs
        .into_iter()
        .map(|mut v| {
            v.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
            v.swap_remove(v.len() / 2)
        })
        .collect();
    SendersBench {
        rounds,
        results,
        keep,
    }
}

/// Every workload, the first being the headline figure.
pub fn run_all() -> Vec<BenchResult> {
    vec![
        run_one("cubic16", "16 CUBIC flows, 10 Gbit/s dumbbell", &scenario()),
        run_one(
            "dctcp10",
            "10 DCTCP flows, 10 Gbit/s dumbbell, K = 65 packets",
            &scenario_dctcp10(),
        ),
    ]
}

/// A k-ary fat-tree of 10 Gbit/s, 1 µs links with DCTCP marking at K = 65 packets, the
/// web-search workload at 50% load for `duration` (as `examples/workload.toml`).
pub fn scenario_fat_tree(k: usize, duration: &str) -> Scenario {
    let text = format!(
        r#"[sim]
name = "bench-fat-tree-k{k}"
duration = "{duration}"
[topology]
kind = "fat-tree"
k = {k}
link = {{ rate = "10Gbps", delay = "1us", queue = "ecn", limit = "250pkts", k = "65pkts" }}
[host]
tsq = true
[tcp]
cc = "dctcp"
[[workload]]
sizes = "websearch"
load = 0.5
max_flows = 1000000
"#
    );
    parse_scenario(&text, "bench", &[]).expect("the bench scenario is valid")
}

/// The data-center cases (`cclab bench --scale`). The k = 8 case runs first, in a
/// process that has run nothing else, so its peak memory is its own; the k = 16 case's
/// also counts what the first left allocated in the process's heap (an upper bound).
pub fn run_scale() -> Vec<BenchResult> {
    vec![
        run_one(
            "fattree8",
            "k = 8 fat-tree (128 hosts), web search at 50% load, DCTCP",
            &scenario_fat_tree(8, "1s"),
        ),
        run_one(
            "fattree16",
            "k = 16 fat-tree (1,024 hosts), web search at 50% load, DCTCP",
            &scenario_fat_tree(16, "20ms"),
        ),
    ]
}

/// Reset the peak resident memory (Linux), so that the next reading is this case's.
pub(crate) fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory since the last reset, MiB (Linux `VmHWM`).
pub(crate) fn peak_rss_mib() -> Option<f64> {
    proc_mib("/proc/self/status", "VmHWM:")
}

/// The process's memory in transparent huge pages now, MiB (Linux `AnonHugePages`).
pub(crate) fn huge_pages_mib() -> Option<f64> {
    proc_mib("/proc/self/smaps_rollup", "AnonHugePages:")
}

/// The `key` line of the `/proc` file `file` (`key` then a number of kB), in MiB.
fn proc_mib(file: &str, key: &str) -> Option<f64> {
    let s = std::fs::read_to_string(file).ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn run_one(workload: &'static str, about: &'static str, sc: &Scenario) -> BenchResult {
    reset_peak_rss();
    let t0 = std::time::Instant::now();
    let mut sim = crate::sim::Sim::new(sc).expect("bench scenario is valid");
    sim.run();
    // The simulation's peak, before the results (a row per flow) are collected.
    let peak_rss_mib = peak_rss_mib();
    let huge_pages_mib = huge_pages_mib();
    let r = sim.results();
    drop(sim);
    let wall = t0.elapsed().as_secs_f64();
    // Every flow's delivered bytes over the simulated time (a workload's flows are
    // short: their own goodputs do not add up).
    let goodput: f64 =
        r.flows.iter().map(|f| f.bytes as f64 * 8.0).sum::<f64>() / r.engine.sim_time_s.max(1e-12);
    BenchResult {
        workload,
        about,
        wall_s: wall,
        events_per_s: r.engine.events as f64 / wall,
        packet_hops_per_s: r.engine.packet_hops as f64 / wall,
        events: r.engine.events,
        packet_hops: r.engine.packet_hops,
        sim_time_s: r.engine.sim_time_s,
        goodput_gbps: goodput / 1e9,
        peak_rss_mib,
        huge_pages_mib,
    }
}
