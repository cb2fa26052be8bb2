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
        first_query: 0,
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

/// Pings, UDP and ocbr flows are connections of their own, in the slots after the world's
/// TCP connections: their packets name their slot (`Packet::conn`), and each reaches its
/// endpoint, not an app picked by number; the TCP flows keep their numbers (their slots),
/// and a workload's flows are numbered on from them, not from the slots.
#[test]
fn every_transport_is_a_connection_in_its_own_slot() {
    use cclab::conn::Ends;
    let text = r#"
[sim]
name = "slots"
duration = "300ms"
[topology]
kind = "dumbbell"
senders = 2
bottleneck = { rate = "100Mbps", delay = "2ms", limit = "200pkts" }
[[flow]]
from = "s0"
to = "r0"
[[flow]]
from = "s1"
to = "r1"
[[ping]]
from = "s1"
to = "r0"
interval = "10ms"
[[udp]]
from = "s0"
to = "r1"
rate = "5Mbit"
len = "3000B"
interval = "100ms"
[[ocbr]]
from = "s1"
to = "r1"
rate = "5Mbit"
interval = "100ms"
[[workload]]
sizes = "websearch"
load = 0.1
stop = "200ms"
"#;
    let sc = parse_scenario(text, "slots.toml", &[]).unwrap();
    let mut sim = cclab::sim::Sim::new(&sc).unwrap();
    let kinds: Vec<&str> = (sim.conns.iter())
        .map(|c| match c.ends() {
            Some(Ends::Tcp(_)) => "tcp",
            Some(Ends::Ping(_)) => "ping",
            Some(Ends::Udp(_)) => "udp",
            Some(Ends::Ocbr(_)) => "ocbr",
            None => "free",
        })
        .collect();
    assert_eq!(kinds, ["tcp", "tcp", "ping", "udp", "ocbr"]);
    sim.run();
    let r = sim.results();
    // The two bulk flows are 0 and 1; the workload's flows follow from 2 in arrival order.
    let ids: Vec<u32> = r.flows.iter().map(|f| f.id).collect();
    assert!(ids.len() > 2, "{ids:?}");
    assert!(
        ids.iter().enumerate().all(|(i, &id)| id as usize == i),
        "{ids:?}"
    );
    assert_eq!(r.flows.iter().next().unwrap().from, "s0");
    // Each transport's packets reached its endpoints: 31 pings (0 to 300 ms), answered
    // but for those still on their way; UDP's 3,000-byte datagrams (3 fragments each)
    // reassembled (a few lost in the full queue); ocbr's packets counted.
    let p = &r.app::<cclab::app::ping::PingResult>()[0];
    assert!(p.sent == 31 && p.received >= 25, "{p:?}");
    let u = &r.app::<cclab::app::udp::UdpResult>()[0];
    assert_eq!(u.fragments_per_datagram, 3);
    assert!(u.sent >= 62 && u.received >= u.sent / 2, "{u:?}");
    let o = &r.app::<cclab::app::ocbr::OcbrResult>()[0];
    assert!(o.sent > 100 && o.received >= o.sent / 2, "{o:?}");
}
