//! Ouroboros flows driven by ocbr (`app/ocbr.rs`, `flow/`) from outside, on seed 002's
//! star: two clients on Gigabit Ethernet, a router, 100 Mbit/s to the server.

use cclab::app::ocbr::OcbrResult;
use cclab::scenario::parse_scenario;
use cclab::world;

const STAR: &str = r#"
[sim]
name = "star"
duration = "1s"

[topology]
kind = "graph"
hosts = ["c1", "c2", "srv"]
switches = ["r"]
links = [
  { name = "c1r", from = "c1", to = "r", rate = "1Gbps", delay = "50us", limit = "1024pkts" },
  { name = "c2r", from = "c2", to = "r", rate = "1Gbps", delay = "50us", limit = "1024pkts" },
  { name = "rs", from = "r", to = "srv", rate = "100Mbps", delay = "50us", limit = "1024pkts" },
]

[[ocbr]]
from = "c1"
to = "srv"
flood = true
interval = "100ms"
"#;

fn run(sets: &[(&str, &str)]) -> cclab::results::RunResult {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = parse_scenario(STAR, "star.toml", &sets).expect("the scenario is valid");
    world::run(&sc).expect("runs")
}

/// Without congestion avoidance (`nop`) a flooding client fills the 100 Mbit/s port:
/// the server receives what the link carries of 1000-byte SDUs. Each is 1057 bytes on the
/// wire (SDU + 15 B data-transfer PCI + 18 B Ethernet IPCP header + 4 B FCS + 20 B
/// preamble and gap), so 100 Mbit/s × 1000/1057 = 94.61 Mbit/s, 11,826 packets/s: every
/// full interval after the first holds 100 ms of them, 1182.6 (±1 packet). The server
/// prints a line only once its clock is a whole ms past the interval's end, and divides
/// by that longer time (101 ms; each interval still starts at the last one's nominal
/// end), so the rates it prints are 1% low: 93.7, not 94.6. The router's ring overflows
/// and drops the rest.
#[test]
fn nop_floods_the_bottleneck_at_its_framed_rate() {
    let r = run(&[("ocbr.0.ca", "nop")]);
    assert!(
        r.flows.is_empty(),
        "a file with [[ocbr]] gets no default TCP flow"
    );
    let o = &r.app::<OcbrResult>()[0];
    assert_eq!(o.flow_updates_sent, 0);
    assert_eq!(o.server[0], "New flow.");
    let pps = 100e6 / (1057.0 * 8.0);
    for i in &o.intervals[1..] {
        assert!(
            (i.packets as f64 - pps * 0.1).abs() <= 1.0,
            "{i:?} vs {:.1}",
            pps * 0.1
        );
        assert!((101_000..102_000).contains(&i.us), "{i:?}");
        assert!((i.mbps - 8.0 * i.bytes as f64 / i.us as f64).abs() < 1e-9);
    }
    let rs = r.queues.iter().find(|q| q.name == "rs").unwrap();
    assert!(
        rs.drops > 0,
        "a flood without congestion avoidance overflows the ring"
    );
    assert!(o.lost > 0);
}

/// With MB-ECN (the default) nothing is lost: the router marks from 16 packets and the
/// sender backs off long before its 1024-packet ring fills; the receiver sends
/// FLOW_UPDATEs and the sender sleeps in its window waits.
#[test]
fn mb_ecn_keeps_the_ring_from_overflowing() {
    let r = run(&[]);
    let o = &r.app::<OcbrResult>()[0];
    let rs = r.queues.iter().find(|q| q.name == "rs").unwrap();
    assert_eq!(rs.drops, 0);
    assert_eq!(o.lost, 0);
    assert!(o.flow_updates_sent > 0 && o.flow_updates_received == o.flow_updates_sent);
    assert!(o.ca_wait_s > 0.1, "{}", o.ca_wait_s);
    assert!(o.sender_stats.contains("Multi-bit ECN"));
    // Every line of the server has ocbr's shape.
    for l in &o.server[1..] {
        assert!(l.starts_with("Flow   64: ") && l.ends_with(" Mbps"), "{l}");
    }
}

/// Errors name the key: an unknown algorithm, and two flows of one layer that disagree.
#[test]
fn bad_ca_values_are_errors() {
    let sets = vec![("ocbr.0.ca".to_string(), "cubic".to_string())];
    let e = format!(
        "{:?}",
        parse_scenario(STAR, "star.toml", &sets).unwrap_err()
    );
    assert!(e.contains("ocbr.0.ca") && e.contains("mb-ecn"), "{e}");
    let two = format!("{STAR}\n[[ocbr]]\nfrom = \"c2\"\nto = \"srv\"\nca = \"nop\"\n");
    let e = format!("{:?}", parse_scenario(&two, "star.toml", &[]).unwrap_err());
    assert!(e.contains("ocbr.1.ca") && e.contains("one policy"), "{e}");
}

/// `stats_every` records the sender's flow-allocator statistics over time: one sample per
/// interval from the start, with the counters growing and MB-ECN's window fields filled.
#[test]
fn flow_allocator_statistics_as_a_time_series() {
    let r = run(&[("ocbr.0.stats_every", "50ms")]);
    let s = &r.app::<OcbrResult>()[0].stats_series;
    // 1 s run, samples at 50, 100, ..., 1000 ms (the last may fall at the very end).
    assert!((19..=20).contains(&s.len()), "{}", s.len());
    assert!((s[0].t - 0.05).abs() < 1e-12);
    assert!(s.windows(2).all(|w| w[1].sent_packets >= w[0].sent_packets));
    assert!(s
        .iter()
        .all(|x| x.window_ns.is_power_of_two() && x.max_bytes_in_window > 0));
    assert!(s.iter().any(|x| x.regime == "Multiplicative dec"));
    // Without the key, no series is kept.
    assert!(run(&[]).app::<OcbrResult>()[0].stats_series.is_empty());
}

/// `kernel_queue`: packets the kernel holds below every IPCP's ring, which the marker does
/// not count. A client at 80 Mbit/s (ocbr -r 80M) alone: with the marker seeing every
/// queued packet, its slow start's backlog leaves in line-rate bursts that the 100 Mbit/s
/// port marks from 16 queued, and MB-ECN holds the flow well below the client's rate;
/// with 47 frames out of the marker's sight (an eth IPCP's raw socket, `mbecn-star`) the
/// bursts pass unmarked and the client sets the pace: 1000 packets per 100 ms, which the
/// server prints as 79.2 Mbit/s.
#[test]
fn a_kernel_queue_below_the_ring_is_out_of_the_markers_sight() {
    let rate = |kernel: &str| {
        let r = run(&[
            ("ocbr.0.flood", "false"),
            ("ocbr.0.rate", "80Mbit"),
            ("ocbr.0.kernel_queue", kernel),
        ]);
        let iv: Vec<f64> = r.app::<OcbrResult>()[0]
            .intervals
            .iter()
            .filter(|i| i.end_s > 0.5)
            .map(|i| i.mbps)
            .collect();
        iv.iter().sum::<f64>() / iv.len() as f64
    };
    let (seen, hidden) = (rate("0"), rate("47"));
    assert!(seen < 70.0, "{seen}");
    assert!((hidden - 79.2).abs() < 0.2, "{hidden}");
}
