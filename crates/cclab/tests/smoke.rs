use cclab::engine::*;
use cclab::scenario::*;

#[test]
fn one_reno_flow_fills_a_path() {
    let topo = TopologySpec::path(
        10_000_000_000,
        100_000_000,
        10 * MS,
        QueueSpec::DropTail {
            limit: Limit::Packets(200),
        },
    );
    let mut sc = Scenario::new("smoke", topo, 5 * SEC);
    let tcp = TcpConfig {
        cc: "reno".into(),
        ..Default::default()
    };
    sc.add_default_flows(&tcp);
    let r = cclab::sim::run(&sc).unwrap();
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    assert!(r.flows[0].goodput_bps > 80e6);
}
