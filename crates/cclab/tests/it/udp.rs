//! UDP constant-bit-rate flows (`app/udp.rs`) from outside: iperf 2's `-u -b 800m -l 45k`
//! as seed 004 runs it, with IPv4 fragmentation and reassembly between the hosts.

use cclab::scenario::parse_scenario;
use cclab::world;

const SCENARIO: &str = r#"
[sim]
name = "udp"
duration = "5s"

[topology]
kind = "chain"
hops = [
  { rate = "10Gbps", delay = "1ms", queue = "droptail", limit = "1000pkts" },
  { rate = "1Gbps", delay = "24ms", queue = "droptail", limit = "1000pkts" },
]

[[udp]]
from = "src"
to = "dst"
rate = "800Mbit"
len = "45KiB"
"#;

fn run(sets: &[(&str, &str)]) -> cclab::app::udp::UdpResult {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = parse_scenario(SCENARIO, "udp.toml", &sets).expect("the scenario is valid");
    let r = world::run(&sc).expect("runs");
    assert!(
        r.flows.is_empty(),
        "a file with [[udp]] gets no default TCP flow"
    );
    r.app::<cclab::app::udp::UdpResult>()[0].clone()
}

/// Through a 1 Gbit/s path: 800 Mbit/s of 46,080-byte datagrams is 2,170.1 datagrams a
/// second, each 32 fragments (31 × 1500 + 228 bytes of IP: 48,948 on the wire with
/// Ethernet's 38 per frame, 48,948 × 8 × 2170.1 = 850 Mbit/s < 1 Gbit/s), so nothing is
/// lost: every full second after the first carries exactly 2,170 datagrams, 800 Mbit/s of
/// payload (iperf's line "95.4 MBytes 800 Mbits/sec"). The run's end leaves what is in
/// flight (25 ms one way ≈ 54 datagrams) unreceived.
#[test]
fn cbr_through_a_wide_enough_path_loses_nothing() {
    let u = run(&[]);
    assert_eq!(u.fragments_per_datagram, 32);
    for i in &u.intervals[1..] {
        assert!((2169..=2171).contains(&i.total), "{i:?}");
        assert_eq!(i.lost, 0, "{i:?}");
        assert!((i.mbps - 800.0).abs() < 800.0 * 0.005, "{i:?}");
    }
    assert!(
        u.lost <= 60,
        "only what was in flight at the end: {}",
        u.lost
    );
    assert_eq!(u.reassembly_mem_drops, 0);
    assert!(
        u.report[1].contains("95.4 MBytes   800 Mbits/sec"),
        "{}",
        u.report[1]
    );
}

/// Through 500 Mbit/s the bottleneck drops about 40% of the fragments (850 Mbit/s of
/// frames into 500), so nearly every datagram misses one: its incomplete reassembly queue
/// holds its fragments for ipfrag_time (30 s), 4 MiB fill within a fraction of a second,
/// and from then on Linux drops every fragment (inet_frag_find gives no queue above
/// ipfrag_high_thresh). What arrives whole is a small fraction of what the path could
/// carry (under 10% of 500 Mbit/s): the loss amplification of large datagrams.
#[test]
fn fragment_loss_fills_reassembly_memory_and_starves_the_flow() {
    let u = run(&[("topology.hops.1.rate", "\"500Mbps\"")]);
    assert!(u.reassembly_mem_drops > 0);
    assert!(u.goodput_bps < 0.1 * 500e6, "goodput {}", u.goodput_bps);
    assert!(u.loss_pct > 90.0, "loss {}%", u.loss_pct);
}

#[test]
fn bad_udp_values_are_explained() {
    let bad = |set: (&str, &str)| {
        let sets = vec![(set.0.to_string(), set.1.to_string())];
        parse_scenario(SCENARIO, "udp.toml", &sets)
            .err()
            .map(|es| {
                es.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };
    let e = bad(("udp.0.len", "70000"));
    assert!(e.contains("udp.0.len") || e.contains("len"), "{e}");
    let e = bad(("udp.0.rate", "\"fast\""));
    assert!(e.contains("rate"), "{e}");
}
