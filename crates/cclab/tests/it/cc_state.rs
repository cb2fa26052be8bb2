//! The `cc` series (`[output] cc`): what the algorithms hold, sampled in a running network,
//! judged against what each algorithm's source says that quantity converges to.

use cclab::results::{CcSample, RunResult};
use cclab::scenario::{parse_scenario, Scenario};

/// examples/`file` with the `--set`s `sets`.
fn scenario(file: &str, sets: &[(&str, &str)]) -> Scenario {
    let path = format!("{}/../../examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let sets: Vec<(String, String)> = (sets.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse_scenario(&text, file, &sets).unwrap_or_else(|e| panic!("{e:?}"))
}

/// examples/`file` run with the `--set`s `sets`.
fn example(file: &str, sets: &[(&str, &str)]) -> RunResult {
    cclab::world::run(&scenario(file, sets)).unwrap()
}

/// `(t, value)` of quantity `name` of `flow`, in time order.
fn series(r: &RunResult, flow: u32, name: &str) -> Vec<(f64, f64)> {
    let pick = |s: &&CcSample| s.flow == flow && s.name == name;
    r.series
        .cc
        .iter()
        .filter(pick)
        .map(|s| (s.t, s.value))
        .collect()
}

fn mean(v: &[(f64, f64)], from: f64, to: f64) -> f64 {
    let x: Vec<f64> = v
        .iter()
        .filter(|p| p.0 >= from && p.0 < to)
        .map(|p| p.1)
        .collect();
    assert!(!x.is_empty(), "no samples in [{from}, {to})");
    x.iter().sum::<f64>() / x.len() as f64
}

/// examples/dctcp.toml: two DCTCP flows through a queue marking at K = 20 packets,
/// 1 Gbit/s, about 1.1 ms RTT, 2 s, alpha sampled every millisecond.
///
/// - The first sample after the handshake is what `dctcp_init` sets,
///   `dctcp_alpha_on_init` / 1024 (0 or 1.0 here), and from there alpha moves towards the
///   marking: up from 0, down from 1.0.
/// - It settles where the marking puts it. α is the EWMA (g = 1/16) of each window's
///   fraction of CE-echoed segments (RFC 8257 §3.3), so over the last second its mean is
///   the mean per-window marked fraction, which the bottleneck's marks / packets sent
///   measures. The two differ by the weighting (per window against per packet: windows of
///   DCTCP's sawtooth differ by its amplitude, about α/2 of W, Alizadeh et al. 2010 §3.3,
///   ~6% here), the start-up's marks in the run's count (a few windows of 2 s), and the
///   sampling noise of the mean of an EWMA whose memory is 16 windows (~60 independent
///   values in a second: a few %): within 20%.
/// - Settled: its means over the two halves of the last second agree within 20% (the same
///   noise twice), wherever it started.
#[test]
fn dctcp_alpha_moves_from_its_init_and_settles_at_the_marked_fraction() {
    for init in [0u32, 1024] {
        let r = example(
            "dctcp.toml",
            &[("tcp.dctcp_alpha_on_init", &init.to_string())],
        );
        let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
        let marked = q.marks as f64 / q.tx_pkts as f64;
        assert!(marked > 0.01, "init {init}: the queue marked {marked}");
        let start = init as f64 / 1024.0;
        for flow in 0..2 {
            let a = series(&r, flow, "alpha");
            assert_eq!(a[0].1, start, "init {init} flow {flow}: {:?}", &a[..3]);
            // Its first move is towards the marking.
            let moved = a.iter().find(|p| p.1 != start).unwrap().1;
            assert_eq!(moved > start, init == 0, "init {init} flow {flow}: {moved}");
            let late = mean(&a, 1.0, 2.0);
            assert!(
                (late / marked - 1.0).abs() <= 0.2,
                "init {init} flow {flow}: mean alpha {late:.4} over the last second, marked fraction {marked:.4}"
            );
            let (h1, h2) = (mean(&a, 1.0, 1.5), mean(&a, 1.5, 2.0));
            assert!(
                (h1 / h2 - 1.0).abs() <= 0.2,
                "init {init} flow {flow}: {h1:.4} then {h2:.4}"
            );
            assert!(r
                .series
                .cc
                .iter()
                .all(|s| s.cc == "dctcp" && s.label.is_none()));
        }
    }
}

/// examples/delay_based.toml with two Vegas flows: a 10 Mbit/s, 8 ms drop-tail dumbbell
/// (the queue never fills), 20 s, sampled every 100 ms. In congestion avoidance Vegas (Linux `tcp_vegas.c`, Brakmo &
/// Peterson) adds a segment per RTT while diff < alpha (2), takes one off while
/// diff > beta (4) and holds in between; nothing else moves the path, so once in that band
/// it stays: every sample of the last half is within [alpha, beta]. Its `target_cwnd` is
/// the window at the rate achieved, below cwnd by about diff, and its `baseRTT` the
/// path's round trip without a queue.
#[test]
fn vegas_diff_is_held_between_alpha_and_beta() {
    let r = example(
        "delay_based.toml",
        &[
            ("topology.senders", "2"),
            ("sim.duration", "\"20s\""),
            ("output.cc", "\"100ms\""),
            ("output.cwnd", "\"100ms\""),
        ],
    );
    assert!(r.queues.iter().all(|q| q.drops == 0));
    let mut bases = Vec::new();
    for flow in 0..2 {
        let diff = series(&r, flow, "diff");
        assert!(diff.len() >= 190, "flow {flow}: {} samples", diff.len());
        for &(t, d) in diff.iter().filter(|p| p.0 >= 10.0) {
            assert!((2.0..=4.0).contains(&d), "flow {flow} at {t} s: diff {d}");
        }
        // baseRTT: at least 2 × (1 + 8 + 1) ms of propagation and a 1500-byte packet's
        // serialisation at 10 Mbit/s (1.2 ms); at most 1 ms more (the access links'
        // serialisation, framing, the hosts' jitter), or for a flow that never saw the
        // queue empty, the other's beta = 4 packets more (1.23 ms each on the wire):
        // baseRTT is the least RTT the flow measured, so a queue it never saw empty
        // counts as propagation.
        let base = series(&r, flow, "baseRTT_s").last().unwrap().1;
        let most = 0.0222 + 4.0 * 0.00123;
        assert!(
            (0.0212..most).contains(&base),
            "flow {flow}: baseRTT {base}"
        );
        bases.push(base);
        let target = series(&r, flow, "target_cwnd");
        let cwnd: Vec<u32> = (r.series.cwnd.iter())
            .filter(|c| c.flow == flow && c.t >= 10.0)
            .map(|c| c.cwnd)
            .collect();
        let t_last = target.last().unwrap().1;
        let c_last = *cwnd.last().unwrap() as f64;
        assert!(
            (c_last - t_last - diff.last().unwrap().1).abs() <= 1.0,
            "flow {flow}: cwnd {c_last}, target {t_last}"
        );
    }
    // The first flow to measure an empty queue has the path's own.
    let least = bases.iter().copied().fold(f64::INFINITY, f64::min);
    assert!((0.0212..0.0222).contains(&least), "baseRTTs {bases:?}");
}

/// BBR v3's state in a running network (examples/dumbbell.toml at 100 Mbit/s with a
/// 20-packet buffer, flows of 24 and 100 ms RTT, 20 s, sampled every ms), against its
/// source (Google's v3 `tcp_bbr.c`):
///
/// - It starts in STARTUP (`bbr_init`) and is in PROBE_BW within its first second.
/// - PROBE_RTT comes when `probe_rtt_min_stamp` is 5 s old (`bbr_probe_rtt_win_ms`); the
///   stamp is set at the connection's start, by a strictly lower RTT, and at PROBE_RTT's
///   exit, which is at least 200 ms (`bbr_probe_rtt_mode_ms`) after its cwnd is reached:
///   the first entry is at least 5 s after the first sample and successive entries at
///   least 5.2 s apart (less one sample's 1 ms), and with 20 s there is at least one
///   (v1's window is 10 s).
/// - PROBE_BW visits all four sub-states, and losses in this shallow buffer set
///   `inflight_hi` (unset, NaN, until a probe sees more than 2% loss).
#[test]
fn bbr3_probes_rtt_every_five_seconds_and_learns_inflight_hi() {
    let r = example(
        "dumbbell.toml",
        &[
            ("tcp.cc", "bbr3"),
            ("topology.bottleneck.rate", "100Mbps"),
            ("topology.bottleneck.limit", "20pkts"),
            ("sim.duration", "20s"),
            ("output.cc", "1ms"),
        ],
    );
    for flow in 0..2 {
        let mode = series(&r, flow, "mode");
        assert_eq!(mode[0].1, 0.0, "flow {flow} starts in STARTUP");
        let t0 = mode[0].0;
        assert!(
            mode.iter().any(|p| p.1 == 2.0 && p.0 < t0 + 1.0),
            "flow {flow}: PROBE_BW within a second"
        );
        let entries: Vec<f64> = mode
            .windows(2)
            .filter(|w| w[0].1 != 3.0 && w[1].1 == 3.0)
            .map(|w| w[1].0)
            .collect();
        assert!(!entries.is_empty(), "flow {flow}: no PROBE_RTT in 20 s");
        assert!(entries[0] >= t0 + 5.0, "flow {flow}: {entries:?} from {t0}");
        for w in entries.windows(2) {
            assert!(w[1] - w[0] >= 5.2 - 0.001, "flow {flow}: {entries:?}");
        }
        let phase = series(&r, flow, "phase");
        for p in 0..4 {
            assert!(
                phase.iter().any(|x| x.1 == p as f64),
                "flow {flow}: phase {p}"
            );
        }
        let hi = series(&r, flow, "inflight_hi");
        assert!(
            hi[0].1.is_nan(),
            "flow {flow}: inflight_hi unset at the start"
        );
        assert!(hi.last().unwrap().1 >= 4.0, "flow {flow}: {:?}", hi.last());
    }
}

/// BBR v3 uses ECN only on an `ecn_low` route (`bbr_can_use_ecn`: `TCP_ECN_OK` and
/// `TCP_ECN_LOW`) with min_rtt ≤ 5 ms: examples/dctcp.toml (marking above 20 packets,
/// ~1 ms RTT, 2 s) with `bbr3` and ECN negotiated. Without the route feature `ecn_alpha`
/// stays at its initial 1.0 (never updated) and the marks change nothing; with it alpha
/// falls from 1.0 towards the marked fraction (EWMA 1/16 per round) and the cuts by
/// α/3 hold the queue lower.
#[test]
fn bbr3_answers_ce_marks_only_on_an_ecn_low_route() {
    let run = |low: &str| {
        example(
            "dctcp.toml",
            &[
                ("tcp.cc", "bbr3"),
                ("tcp.ecn", "true"),
                ("tcp.bbr3_ecn_low", low),
                ("output.cc", "10ms"),
            ],
        )
    };
    let (off, on) = (run("false"), run("true"));
    let queue = |r: &RunResult| {
        let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
        assert!(q.marks > 0);
        q.mean_bytes
    };
    for flow in 0..2 {
        let a = series(&off, flow, "ecn_alpha");
        assert!(a.iter().all(|p| p.1 == 1.0), "flow {flow}: {:?}", a.last());
        let a = series(&on, flow, "ecn_alpha");
        assert!(mean(&a, 1.0, 2.0) < 0.5, "flow {flow}: {:?}", a.last());
    }
    let (q_off, q_on) = (queue(&off), queue(&on));
    assert!(
        q_on < 0.5 * q_off,
        "mean queue {q_on} B with ecn_low, {q_off} B without"
    );
}

/// The series budget counts a row per quantity: 2 Vegas flows × 3 quantities × 4,000,001
/// samples is refused before the run (the same interval of `cwnd` alone, 8,000,002 rows,
/// is within the 10,000,000).
#[test]
fn the_series_budget_counts_each_quantity() {
    let sc = |key: &str| {
        let sets = [
            ("topology.senders", "2"),
            ("sim.duration", "\"20s\""),
            (key, "\"5us\""),
        ];
        scenario("delay_based.toml", &sets)
    };
    let e = cclab::sim::Sim::new(&sc("output.cc")).err().unwrap();
    assert!(
        e.starts_with("output.cc:") && e.contains("cc 24000006"),
        "{e}"
    );
    assert!(cclab::sim::Sim::new(&sc("output.cwnd")).is_ok());
}

/// A RACK reordering timeout that marks a loss enters recovery, and Linux 6.6's
/// `tcp_rack_reo_timeout` reduces cwnd (`tcp_cwnd_reduction`) only for a module without
/// `cong_control`: BBR keeps the cwnd it set. One BBR flow, 100 Mbit/s, the 9th packet
/// dropped on the bottleneck: the reorder timer fires at ~57.6 ms, in slow start at cwnd
/// 19; cwnd must not fall to in-flight + 1 (13) there (it did before the fix, found by a
/// helper's trace of bbr-loss).
#[test]
fn a_reorder_timeout_leaves_bbrs_cwnd_alone() {
    let text = r#"
[sim]
name = "reo"
duration = "0.2s"
seed = 1
[topology]
kind = "dumbbell"
senders = 1
bottleneck = { rate = "100Mbps", delay = "10ms", queue = "droptail", limit = "1000pkts" }
access_delay = "1ms"
[tcp]
cc = "bbr"
[[loss]]
link = "bottleneck"
drop_nth = [{ flow = 0, n = 9 }]
[output]
cwnd = "100us"
"#;
    let sc = parse_scenario(text, "reo.toml", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let r = cclab::world::run(&sc).unwrap();
    let around: Vec<u32> = (r.series.cwnd.iter())
        .filter(|s| s.t >= 0.0575 && s.t <= 0.07)
        .map(|s| s.cwnd)
        .collect();
    assert!(!around.is_empty());
    assert!(around.iter().all(|&c| c >= 19), "{around:?}");
    assert!(r.flows[0].retransmits >= 1);
}

/// TCP Prague (the L4S team's `tcp_prague.c` 0.7, docs/references.md §18.1) through a
/// step-marking queue: examples/prague.toml (two flows, 1 Gbit/s, about 1.1 ms RTT, CE on
/// an ECT packet arriving above K = 20 packets, a 200-packet buffer; examples/dctcp.toml
/// with `prague`), 2 s, the queue sampled every millisecond.
///
/// - Shallow: after the start-up (from 0.5 s) the queue stays within K + 4 packets. Once
///   RTT-independent (4 rounds after slow start, a few ms here) a flow grows by one
///   segment per `prague_rtt_target` (25 ms: 1/W per ACK scaled by (srtt / 25 ms)²) and
///   reduces at most once per 25 ms, so between two reductions each of the two flows
///   adds at most one segment above K, and its cwnd is its fractional window rounded up
///   (at most one more): K + 2 · 2.
/// - Full: in that time the queue never empties (the link stays busy), the buffer drops
///   nothing, and the marks are what holds it there: each flow's alpha is strictly between
///   0 and 1.
#[test]
fn prague_holds_a_step_marking_queue_at_its_threshold() {
    let r = example("prague.toml", &[("output.cc", "10ms")]);
    let q: Vec<u64> = (r.series.queue.iter())
        .filter(|s| s.queue == "bottleneck" && s.t >= 0.5)
        .map(|s| s.pkts)
        .collect();
    assert!(q.len() >= 1500, "{} samples", q.len());
    let (lo, hi) = (*q.iter().min().unwrap(), *q.iter().max().unwrap());
    assert!(hi <= 20 + 4, "max {hi} packets");
    assert!(lo > 0, "the queue emptied");
    let b = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    assert_eq!(b.drops, 0);
    assert!(b.marks > 0);
    for flow in 0..2 {
        let a = series(&r, flow, "alpha");
        let last = a.last().unwrap().1;
        assert!(last > 0.0 && last < 1.0, "flow {flow}: alpha {last}");
    }
}
