//! Whole-simulator tests of TCP: reliability under heavy random loss in every recovery
//! mode, with the sender's scoreboard checked as the run goes.

use cclab::engine::*;
use cclab::scenario::*;
use cclab::sim::Sim;

fn path(rate: u64, owd: SimTime, limit: u64) -> TopologySpec {
    TopologySpec::path(
        10 * rate,
        rate,
        owd,
        QueueSpec::droptail(Limit::Packets(limit)),
    )
}

#[test]
fn every_byte_arrives_under_heavy_random_loss_in_every_recovery_mode() {
    let mut cases = 0;
    for cc in ["reno", "cubic"] {
        for sack in [true, false] {
            for prr in [true, false] {
                for (p, seed) in [(0.01, 1), (0.05, 2), (0.2, 3)] {
                    let mut sc = Scenario::new("lossy", path(100_000_000, 5 * MS, 50), 120 * SEC);
                    sc.seed = seed;
                    let tcp = TcpConfig {
                        cc: cc.into(),
                        sack,
                        prr,
                        ..Default::default()
                    };
                    let bytes = 300_000;
                    sc.apps.flows.push(FlowSpec {
                        from: "src".into(),
                        to: "dst".into(),
                        start: 0,
                        stop: None,
                        bytes: Some(bytes),
                        tcp,
                    });
                    // Loss on the data path and on the ACK path.
                    sc.losses.push(LossSpec {
                        link: "hop1".into(),
                        rate: p,
                        drop_nth: vec![],
                        every: 0,
                    });
                    sc.losses.push(LossSpec {
                        link: "hop1_rev".into(),
                        rate: p / 2.0,
                        drop_nth: vec![],
                        every: 0,
                    });
                    let mut sim = Sim::new(&sc).unwrap();
                    let mut t = 0;
                    while t < sc.duration && sim.tcp(0).sender.done_at.is_none() {
                        t += 10 * MS;
                        sim.run_until(t);
                        if let Err(e) = sim.tcp(0).sender.check_invariants() {
                            panic!("{cc} sack={sack} prr={prr} p={p}: t={}: {e}", secs(t));
                        }
                    }
                    let r = sim.results();
                    let f = &r.flows[0];
                    assert_eq!(f.bytes, bytes, "{cc} sack={sack} prr={prr} p={p}: {}", f.ss);
                    assert!(
                        f.acked_s.is_some(),
                        "{cc} sack={sack} prr={prr} p={p}: completed"
                    );
                    assert!(f.retransmits > 0);
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 24);
}

#[test]
fn one_reno_flow_fills_a_path_and_a_drop_tail_queue_overflows_in_slow_start() {
    let mut sc = Scenario::new("smoke", path(100_000_000, 10 * MS, 200), 5 * SEC);
    sc.add_default_flows(&TcpConfig {
        cc: "reno".into(),
        ..Default::default()
    });
    let r = cclab::world::run(&sc).unwrap();
    let f = &r.flows[0];
    // 100 Mbit/s of frames carry at most 94.15 Mbit/s of payload; slow start costs a little.
    assert!(
        f.goodput_bps > 85e6 && f.goodput_bps < 94.2e6,
        "{}",
        f.goodput_bps
    );
    let q = r.queues.iter().find(|q| q.name == "hop1").unwrap();
    assert!(q.drops > 0 && q.max_pkts == 200);
    assert_eq!(
        f.timeouts, 0,
        "SACK repairs the slow-start overshoot without a timeout"
    );
}
