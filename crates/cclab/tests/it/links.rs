//! Links that change during a run (`[[event]]`, `net/dynamics/events.rs`) and
//! trace-driven links (`qdisc/linkrate.rs`), whole runs.

use cclab::scenario::parse_scenario;

fn example(name: &str) -> cclab::scenario::Scenario {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}"));
    let text = std::fs::read_to_string(&path).unwrap();
    parse_scenario(&text, &path.to_string_lossy(), &[]).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Mean goodput of flow 0 over the samples ending in (from, to].
fn goodput(r: &cclab::results::RunResult, from: f64, to: f64) -> f64 {
    let v: Vec<f64> = (r.series.throughput.iter())
        .filter(|s| s.flow == 0 && s.t > from && s.t <= to)
        .map(|s| s.goodput_bps)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// examples/rate_change.toml: BBR's goodput follows the bottleneck from 40 to 10 Mbit/s
/// at 10 s and back at 20 s. A busy link carries rate × 1448 / 1538 of payload (the MSS
/// over the IP packet plus Ethernet's 38 bytes), so each phase, once BBR has drained the
/// queue it built (10 round trips of its max filter) or refilled the pipe, is within 2% of
/// that: the series' 500-ms buckets hold ~1700 (resp. ~400) packets, one more or less is
/// 0.06% (0.25%).
#[test]
fn bbr_follows_a_bandwidth_drop_set_by_an_event() {
    let r = cclab::world::run(&example("rate_change.toml")).unwrap();
    let eff = 1448.0 / 1538.0;
    for (from, to, rate) in [(2.0, 10.0, 40e6), (11.0, 20.0, 10e6), (22.0, 30.0, 40e6)] {
        let g = goodput(&r, from, to);
        assert!(
            (g / (rate * eff) - 1.0).abs() < 0.02,
            "({from}, {to}] s: {g} bit/s against {}",
            rate * eff
        );
    }
}

fn dumbbell(extra: &str) -> cclab::scenario::Scenario {
    let text = format!(
        "[sim]\nduration = \"10s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", limit = \"100pkts\" }}\naccess_delay = \"1ms\"\n[tcp]\ncc = \"cubic\"\n[output]\nthroughput = \"250ms\"\n{extra}"
    );
    parse_scenario(&text, "t.toml", &[]).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A link taken down stalls the path (nothing is delivered while it is down; the queue's
/// packets and every arrival are dropped) and the flow comes back when it is up again.
#[test]
fn a_link_down_stalls_the_path_and_up_restores_it() {
    let r = cclab::world::run(&dumbbell(
        "[[event]]\nat = \"4s\"\nset = { \"topology.bottleneck.up\" = false }\n[[event]]\nat = \"5s\"\nset = { \"topology.bottleneck.up\" = true }\n",
    ))
    .unwrap();
    // The last packets on the wire at 4 s arrive by 4.03 s; nothing more until 5 s.
    assert_eq!(goodput(&r, 4.25, 5.0), 0.0);
    assert!(goodput(&r, 1.0, 4.0) > 9e6);
    assert!(goodput(&r, 8.0, 10.0) > 9e6, "{}", goodput(&r, 8.0, 10.0));
    let b = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    let base = cclab::world::run(&dumbbell("")).unwrap();
    let b0 = base.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    assert!(b.drops > b0.drops, "{} vs {}", b.drops, b0.drops);
    assert!(r.flows.iter().next().unwrap().timeouts > 0);
}

/// A delay change moves a ping's round trip by the change (one direction): 24 ms before
/// (twice 1 + 10 + 1 ms), 44 ms after 10 → 30 ms; the decrease back takes effect 20 ms
/// (30 − 10) later and the pings after it see 24 ms again.
#[test]
fn a_delay_change_moves_the_round_trip() {
    let ping = "[[flow]]\nfrom = \"s0\"\nto = \"r0\"\nbytes = \"1B\"\n[[ping]]\nfrom = \"s0\"\nto = \"r0\"\ninterval = \"100ms\"\n";
    let sc = dumbbell(&format!(
        "{ping}[[event]]\nat = \"3s\"\nset = {{ \"topology.bottleneck.delay\" = \"30ms\" }}\n[[event]]\nat = \"6s\"\nset = {{ \"topology.bottleneck.delay\" = \"10ms\" }}\n"
    ));
    let r = cclab::world::run(&sc).unwrap();
    let p = &r.app::<cclab::app::ping::PingResult>()[0];
    let (min, max) = (p.rtt_min_s.unwrap(), p.rtt_max_s.unwrap());
    assert!((min - 0.024).abs() < 0.0005, "{min}");
    assert!((max - 0.044).abs() < 0.0005, "{max}");
    // About 30 of the 100 pings took the longer path.
    let mean = p.rtt_mean_s.unwrap();
    assert!((0.028..0.032).contains(&mean), "{mean}");
}

/// Random loss set at 5 s: the first half has no retransmission, the second has them.
#[test]
fn a_loss_change_starts_losing_at_its_time() {
    let ev = "[[event]]\nat = \"5s\"\nset = { \"topology.bottleneck.loss\" = 0.01 }\n";
    let r = cclab::world::run(&dumbbell(ev)).unwrap();
    let b = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    let r0 = cclab::world::run(&dumbbell("")).unwrap();
    let f = r.flows.iter().next().unwrap();
    let f0 = r0.flows.iter().next().unwrap();
    assert!(
        f.retransmits > f0.retransmits + 10,
        "{} vs {}",
        f.retransmits,
        f0.retransmits
    );
    assert_eq!(b.name, "bottleneck");
    // Before 5 s the two runs are the same run.
    assert_eq!(goodput(&r, 0.0, 5.0), goodput(&r0, 0.0, 5.0));
}

/// Bad events are refused with the key and what is allowed.
#[test]
fn bad_events_name_the_key() {
    for (ev, want) in [
        (
            "at = \"1s\"\nset = { \"topology.nolink.rate\" = \"1Mbps\" }",
            "nolink",
        ),
        (
            "at = \"1s\"\nset = { \"topology.bottleneck.colour\" = 1 }",
            "unknown property",
        ),
        (
            "at = \"1s\"\nset = { \"topology.bottleneck.loss\" = 2.0 }",
            "probability",
        ),
        (
            "at = \"1s\"\nset = { \"topology.bottleneck.up\" = \"no\" }",
            "true or false",
        ),
        ("at = \"1s\"", "missing required key 'set'"),
    ] {
        let text = format!(
            "[sim]\nduration = \"10s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n[[event]]\n{ev}\n"
        );
        let e = parse_scenario(&text, "t.toml", &[]).unwrap_err();
        let shown: Vec<String> = e.iter().map(|e| e.to_string()).collect();
        assert!(
            shown
                .iter()
                .any(|s| s.contains(want) && s.contains("event.0")),
            "{ev}: {shown:?}"
        );
    }
}
