//! Phase effects (Floyd & Jacobson, "On Traffic Phase Effects in Packet-Switched
//! Gateways", 1991) and the hosts' processing jitter that removes them (`[host] jitter`,
//! `net/host.rs`).
//!
//! The scenario is issue 10's: two CUBIC flows over a 100 Mbit/s drop-tail bottleneck of
//! 250 packets, base RTTs 20 and 40 ms (access delays 2500 and 7500 µs), 16 MiB buffers.
//! With exact timing the 20 ms flow's share is decided by microsecond alignments: moving
//! its access delay by 3 or 7 µs changes its goodput relative to the 40 ms flow from
//! 0.99× to 2.43× to 3.61× (60 s runs; `cclab sweep` at d839536). With the default jitter
//! the three delays give the same result within the spread of the seeds (means over 10
//! seeds 1.74 / 1.95 / 1.68).
//!
//! Runs last 60 s (the issue's 120 s shows the same: exact timing 0.68 / 1.85 / 3.16;
//! jittered seed means 1.52 / 1.75 / 1.54 over 10 seeds; docs/scenario.md, `[host]`, has
//! the sweep) so the suite stays fast: 33 runs of about 0.2 s each, spread over the cores.

use cclab::scenario::{parse_scenario, HostSpec, JitterSpec, Scenario};
use cclab::world;

const SCENARIO: &str = r#"
[sim]
duration = "60s"

[topology]
kind = "dumbbell"
senders = 2
bottleneck = { rate = "100Mbps", delay = "5ms", queue = "droptail", limit = "250pkts" }
access_rate = "1Gbps"
access_delay = ["2500us", "7500us"]

[tcp]
cc = "cubic"
sndbuf = "16MiB"
rcvbuf = "16MiB"
# The loss recovery this property was measured with (RFC 6675 dupthresh, before RACK).
# With RACK (the default since issue 53) the 2507 µs case differs: over seeds 1-20 its
# mean ratio is 1.589 against 1.946 at 2500 µs (difference -0.357, Welch's 95% allows
# ±0.287), while rack = false gives 1.757 against 1.858 (allowed ±0.262). An open finding:
# RACK's time-based marking may keep a phase effect that jitter "auto" removes from
# dupthresh recovery; not yet explained.
rack = false
"#;

/// The scenario with the 20 ms flow's access delay at `delay_us`, `host` and `seed`.
fn scenario(delay_us: u32, host: HostSpec, seed: u64, duration: &str) -> Scenario {
    let sets = [
        (
            "topology.access_delay".to_string(),
            format!("[\"{delay_us}us\", \"7500us\"]"),
        ),
        ("sim.duration".to_string(), format!("\"{duration}\"")),
    ];
    let mut sc = parse_scenario(SCENARIO, "phase.toml", &sets).expect("the scenario is valid");
    assert_eq!(
        sc.host,
        HostSpec::default(),
        "the default is jitter \"auto\""
    );
    sc.host = host;
    sc.seed = seed;
    sc
}

/// Goodput of the 20 ms flow over the 40 ms flow's.
fn ratio(sc: &Scenario) -> f64 {
    let r = world::run(sc).expect("runs");
    r.flows[0].goodput_bps / r.flows[1].goodput_bps
}

/// `ratio` of each scenario, run on every core.
fn ratios(scs: &[Scenario]) -> Vec<f64> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = vec![0.0; scs.len()];
    std::thread::scope(|s| {
        for (chunk, res) in scs
            .chunks(scs.len().div_ceil(threads))
            .zip(out.chunks_mut(scs.len().div_ceil(threads)))
        {
            s.spawn(move || {
                for (sc, r) in chunk.iter().zip(res.iter_mut()) {
                    *r = ratio(sc);
                }
            });
        }
    });
    out
}

/// Mean and sample variance.
fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0);
    (m, v)
}

/// Student's t, two-sided 95% (the 0.975 quantile), for `df` degrees of freedom (rounded
/// down: a wider interval).
fn t975(df: f64) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    let i = (df.floor() as usize).clamp(1, 30);
    T[i - 1]
}

#[test]
fn the_seed_changes_the_run_only_when_hosts_jitter() {
    let run = |host, seed| {
        let r = world::run(&scenario(2500, host, seed, "5s")).unwrap();
        format!("{:?}", r.flows)
    };
    let auto = HostSpec::default();
    assert_ne!(run(auto, 1), run(auto, 2), "jitter on: the seed matters");
    assert_eq!(
        run(auto, 3),
        run(auto, 3),
        "and the same seed repeats the run"
    );
    let exact = HostSpec::EXACT;
    assert_eq!(
        run(exact, 1),
        run(exact, 2),
        "jitter off: nothing is random"
    );
    let fixed = HostSpec {
        jitter: JitterSpec::Fixed(20_000_000),
        ..HostSpec::default()
    };
    assert_ne!(run(fixed, 1), run(fixed, 2), "a fixed jitter draws too");
}

#[test]
fn microsecond_changes_of_one_delay_change_nothing_beyond_the_seeds_spread() {
    const N: u64 = 10;
    const DELAYS: [u32; 3] = [2500, 2503, 2507];
    let scs: Vec<Scenario> = DELAYS
        .iter()
        .flat_map(|&d| (1..=N).map(move |s| scenario(d, HostSpec::default(), s, "60s")))
        .chain(
            DELAYS
                .iter()
                .map(|&d| scenario(d, HostSpec::EXACT, 1, "60s")),
        )
        .collect();
    let r = ratios(&scs);
    let n = N as usize;
    let by_delay: Vec<&[f64]> = (0..3).map(|i| &r[i * n..(i + 1) * n]).collect();
    let exact = &r[3 * n..];

    // The 95% confidence interval of the mean ratio over the seeds at 2500 µs.
    let (m0, v0) = mean_var(by_delay[0]);
    let half = t975((n - 1) as f64) * (v0 / n as f64).sqrt();
    let ci = (m0 - half, m0 + half);
    let mut report = format!(
        "2500 µs: mean {m0:.3}, 95% CI [{:.3}, {:.3}] over {N} seeds {:.3?}\n",
        ci.0, ci.1, by_delay[0]
    );
    // Each other delay's seed mean must not differ from it by more than Welch's 95%
    // interval for a difference of two means: both means carry their seeds' sampling
    // error, so the CI of one mean alone would reject equal distributions about one time
    // in six (the difference's standard error is about √2 times one mean's).
    for (i, &d) in DELAYS.iter().enumerate().skip(1) {
        let (m, v) = mean_var(by_delay[i]);
        let (a, b) = (v0 / n as f64, v / n as f64);
        let df = (a + b).powi(2) / (a * a / (n - 1) as f64 + b * b / (n - 1) as f64);
        let tol = t975(df) * (a + b).sqrt();
        report += &format!(
            "{d} µs: mean {m:.3} (difference {:+.3}, allowed ±{tol:.3}) over {:.3?}\n",
            m - m0,
            by_delay[i]
        );
        assert!((m - m0).abs() <= tol, "{report}");
    }
    // Exact timing: the three delays give results far outside the jittered runs' spread
    // (the phase effect), though each is a single deterministic run.
    report += &format!("exact timing: {exact:.3?}\n");
    let outside = exact.iter().filter(|&&x| x < ci.0 || x > ci.1).count();
    assert!(outside >= 2, "{report}");
    let spread = exact.iter().cloned().fold(f64::MIN, f64::max)
        - exact.iter().cloned().fold(f64::MAX, f64::min);
    assert!(
        spread > 4.0 * half,
        "exact timing's spread {spread:.3} against the CI half-width {half:.3}\n{report}"
    );
    eprintln!("{report}");
}
