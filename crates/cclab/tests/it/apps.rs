//! Applications end to end: partition/aggregate queries and the incast collapse.

use cclab::engine::*;
use cclab::scenario::*;

/// `n` workers share a 1 MB answer per query (the DCTCP paper's incast test, §4.2) to one
/// aggregator over 1 Gbit/s links; the switch port to the aggregator holds 100 packets,
/// the paper's static buffer.
fn incast(cc: &str, n: usize) -> cclab::app::reqresp::AggregateResult {
    let queue = if cc == "dctcp" {
        QueueSpec::ecn(Limit::Packets(100), Limit::Packets(20))
    } else {
        QueueSpec::droptail(Limit::Packets(100))
    };
    let topo = TopologySpec::Star {
        senders: n,
        link: LinkSpec {
            framing: cclab::net::Framing::Ethernet,
            rate_bps: 1_000_000_000,
            delay: 5 * US,
            queue,
        },
        other_queue: QueueSpec::droptail(Limit::Packets(1000)),
    };
    let mut sc = Scenario::new("incast", topo, 30 * SEC);
    sc.apps.aggregates.push(AggregateSpec {
        aggregator: "recv".into(),
        workers: (0..n).map(|i| format!("s{i}")).collect(),
        response_bytes: 1_000_000 / n as u64,
        queries: 20,
        start: 0,
        think: 10 * MS,
        request_size: 100,
        // The incast story of 2010 kernels (no tail loss probe, no RACK: a lost tail waits
        // for the RTO), as cclab modelled it before RACK-TLP became the default.
        tcp: TcpConfig {
            cc: cc.into(),
            rack: false,
            tlp: false,
            frto: false,
            dsack: false,
            ..Default::default()
        },
    });
    let r = cclab::world::run(&sc).unwrap();
    r.app::<cclab::app::reqresp::AggregateResult>()[0].clone()
}

#[test]
fn dctcp_avoids_the_incast_collapse_that_hits_cubic() {
    // Ideal: 1 MB at 1 Gbit/s of payload capacity (941 Mbit/s) ≈ 8.5 ms.
    let ideal = 1e6 * 8.0 / 941e6;
    for n in [10, 20, 30] {
        let c = incast("cubic", n);
        let d = incast("dctcp", n);
        assert_eq!((c.queries_done, d.queries_done), (20, 20));
        let (cm, dm) = (c.qct_mean_s.unwrap(), d.qct_mean_s.unwrap());
        println!(
            "n = {n}: CUBIC mean {:.1} ms, {} timeouts; DCTCP mean {:.1} ms, {} timeouts",
            cm * 1e3,
            c.timeouts,
            dm * 1e3,
            d.timeouts
        );
        assert!(
            dm < 3.0 * ideal,
            "n = {n}: DCTCP mean QCT {dm} s vs ideal {ideal} s ({d:?})"
        );
        assert!(
            d.timeouts * 5 <= c.timeouts,
            "n = {n}: DCTCP {} vs CUBIC {} timeouts",
            d.timeouts,
            c.timeouts
        );
        // CUBIC's synchronised windows overflow the buffer; tail losses wait for the 200 ms
        // minimum RTO, so some queries take far longer than the ideal.
        assert!(
            c.timeouts > 0 && c.qct_max_s.unwrap() > 0.2,
            "n = {n}: {c:?}"
        );
    }
}

/// examples/incast.toml asks for queries and a ping, no `[[flow]]`: it gets no bulk flows
/// (a default bulk flow per sender used to compete with the queries, and 59 of the 100
/// queries answered in its 2 s), and every query completes.
#[test]
fn the_incast_example_runs_only_its_queries_and_all_of_them_answer() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/incast.toml");
    let sc = load_scenario(&path, &[]).unwrap();
    assert!(sc.apps.flows.is_empty(), "{} flows", sc.apps.flows.len());
    let r = cclab::world::run(&sc).unwrap();
    let a = &r.app::<cclab::app::reqresp::AggregateResult>()[0];
    assert_eq!(a.queries_done, 100, "{a:?}");
    // The only connections are the 20 workers' answers (worker → aggregator).
    assert_eq!(r.flows.len(), 20);
    assert!(r.flows.iter().all(|f| f.to == "recv"));
}
