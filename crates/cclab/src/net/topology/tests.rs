use super::*;
use crate::engine::MS;
use crate::net::topology::spec::LinkSpec;
use crate::net::Framing;
use crate::net::NodeKind;

fn q() -> QueueSpec {
    QueueSpec::droptail(Limit::Packets(100))
}

#[test]
fn dumbbell_routes_through_the_bottleneck() {
    let spec = TopologySpec::Dumbbell {
        senders: 2,
        bottleneck: LinkSpec {
            framing: Framing::Ethernet,
            rate_bps: 1_000_000_000,
            delay: 10 * MS,
            queue: q(),
        },
        access_rate_bps: 10_000_000_000,
        access_delay: vec![MS, 5 * MS],
        access_queue: q(),
    };
    let net = build(&spec);
    let s1 = net.node_by_name("s1").unwrap();
    let r1 = net.node_by_name("r1").unwrap();
    let (delay, rate, hops) = net.path(s1, r1, 0);
    assert_eq!((delay, rate, hops), (20 * MS, 1_000_000_000, 3));
    let (delay, _, _) = net.path(r1, s1, 0);
    assert_eq!(delay, 20 * MS);
}

#[test]
fn chain_has_one_router_per_inner_hop() {
    let h = |r, d| LinkSpec {
        framing: Framing::Ethernet,
        rate_bps: r,
        delay: d,
        queue: q(),
    };
    let spec = TopologySpec::Chain {
        hops: vec![
            h(1_000_000_000, MS),
            h(600_000_000, 10 * MS),
            h(1_000_000_000, MS),
        ],
    };
    let net = build(&spec);
    let (src, dst) = (
        net.node_by_name("src").unwrap(),
        net.node_by_name("dst").unwrap(),
    );
    assert_eq!(net.path(src, dst, 7), (12 * MS, 600_000_000, 3));
}

/// A star of `n` senders, as the parser builds it.
fn star(n: usize) -> TopologySpec {
    TopologySpec::Star {
        senders: n,
        link: LinkSpec {
            framing: Framing::Ethernet,
            rate_bps: 1_000_000_000,
            delay: MS,
            queue: q(),
        },
        other_queue: q(),
    }
}

#[test]
fn routing_memory_grows_with_hosts_not_with_pairs_of_nodes() {
    // One switch: one table row of one entry, plus a last hop per host.
    let small = build(&star(1_000));
    let big = build(&star(100_000));
    let per_host = (big.routes.heap_bytes() - small.routes.heap_bytes()) as f64 / 99_000.0;
    assert!(
        per_host < 40.0,
        "{per_host} bytes of routing state per host"
    );
    // Every sender reaches the receiver in two hops, and the receiver every sender.
    let recv = big.node_by_name("recv").unwrap();
    for s in [0, 77_777, 99_999] {
        let h = big.node_by_name(&format!("s{s}")).unwrap();
        assert_eq!(big.path(h, recv, 3).2, 2);
        assert_eq!(big.path(recv, h, 3).2, 2);
    }
}

/// A 1 Gbit/s, 1 ms duplex graph link `from → to` named `name` (reverse `{name}_rev`).
fn link(name: &str, from: &str, to: &str) -> crate::net::topology::spec::GraphLinkSpec {
    crate::net::topology::spec::GraphLinkSpec {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        rate_bps: 1_000_000_000,
        delay: MS,
        framing: Framing::Ethernet,
        queue: q(),
        reverse_name: format!("{name}_rev"),
        reverse_queue: q(),
    }
}

#[test]
fn hosts_do_not_forward() {
    // h0 — sw — h1 and a direct link h0 — h2 — h1: the only path from h0 to h1 through a
    // switch is via sw, although h2 offers one as short.
    use crate::net::topology::spec::GraphSpec;
    use crate::net::topology::spec::NodeSpec;
    use crate::net::NodeKind;
    let node = |n: &str, kind| NodeSpec {
        name: n.into(),
        kind,
    };
    let g = GraphSpec {
        nodes: vec![
            node("h0", NodeKind::Host),
            node("h1", NodeKind::Host),
            node("h2", NodeKind::Host),
            node("sw", NodeKind::Switch),
        ],
        links: vec![
            link("a", "h0", "sw"),
            link("b", "sw", "h1"),
            link("c", "h0", "h2"),
            link("d", "h2", "h1"),
        ],
    };
    let net = build_graph(&g);
    let id = |n| net.node_by_name(n).unwrap();
    let (h0, h1, h2) = (id("h0"), id("h1"), id("h2"));
    // h0 has two links: a table; towards h1 only "a" leads on (h2 does not forward).
    let p = net.routes.next_port(h0, h1, 0).unwrap();
    assert_eq!(net.ports[p as usize].name, "a");
    // Towards h2 the direct link.
    let p = net.routes.next_port(h0, h2, 0).unwrap();
    assert_eq!(net.ports[p as usize].name, "c");
    assert_eq!(net.path(h0, h1, 9).2, 2);
}

#[test]
fn a_route_through_a_host_is_no_route() {
    // a — b — c, all hosts: b does not forward, so a cannot reach c.
    use crate::net::topology::spec::GraphSpec;
    use crate::net::topology::spec::NodeSpec;
    use crate::net::NodeKind;
    let g = GraphSpec {
        nodes: ["a", "b", "c"]
            .iter()
            .map(|n| NodeSpec {
                name: n.to_string(),
                kind: NodeKind::Host,
            })
            .collect(),
        links: vec![link("ab", "a", "b"), link("bc", "b", "c")],
    };
    let net = build_graph(&g);
    let id = |n| net.node_by_name(n).unwrap();
    assert!(net.reaches(id("a"), id("b"), 0));
    assert!(!net.reaches(id("a"), id("c"), 0));
    assert!(!net.reaches(id("c"), id("a"), 0));
}

/// The topology of a scenario with this `[topology]` table, parsed as a file would be.
fn parsed(topology: &str) -> Result<TopologySpec, Vec<crate::schema::ScenarioError>> {
    let text = format!("[sim]\nduration = \"1s\"\n\n[topology]\n{topology}\n");
    crate::scenario::parse_scenario(&text, "t.toml", &[]).map(|s| s.topology)
}

/// The switches a connection with ECMP hash `hash` crosses from `a` to `b`.
fn via(net: &Network, a: &str, b: &str, hash: u32) -> Vec<String> {
    let (mut at, dst) = (net.node_by_name(a).unwrap(), net.node_by_name(b).unwrap());
    let mut out = Vec::new();
    while at != dst {
        let p = net.routes.next_port(at, dst, hash).unwrap();
        at = net.ports[p as usize].peer;
        if at != dst {
            out.push(net.nodes[at as usize].name.clone());
        }
        assert!(out.len() < 16, "a loop: {out:?}");
    }
    out
}

/// The distinct switch paths 256 hashes take from `a` to `b`.
fn paths(net: &Network, a: &str, b: &str) -> std::collections::BTreeSet<Vec<String>> {
    (0..256u32)
        .map(|h| via(net, a, b, h.wrapping_mul(0x9e37_79b9)))
        .collect()
}

#[test]
fn fat_tree_has_the_shape_and_paths_of_al_fares() {
    let spec = parsed(
        "kind = \"fat-tree\"\nk = 4\nlink = { rate = \"10Gbps\", delay = \"1us\", queue = \"ecn\", limit = \"100pkts\", k = \"20pkts\" }\ncore_link = { rate = \"40Gbps\", delay = \"2us\" }",
    )
    .unwrap();
    let net = build(&spec);
    let count = |k| net.nodes.iter().filter(|n| n.kind == k).count();
    // k³/4 hosts; k² edge and aggregation switches and (k/2)² core switches.
    assert_eq!(count(NodeKind::Host), 16);
    assert_eq!(count(NodeKind::Switch), 8 + 8 + 4);
    // Every switch has k ports; every host one.
    for (i, n) in net.nodes.iter().enumerate() {
        let ports = net.ports.iter().filter(|p| p.node as usize == i).count();
        let want = if n.kind == NodeKind::Host { 1 } else { 4 };
        assert_eq!(ports, want, "{}", n.name);
    }
    // Same edge switch: one path through it; same pod: k/2 = 2 (one per aggregation
    // switch); another pod: (k/2)² = 4 (one per core switch), each of 5 switches.
    assert_eq!(paths(&net, "h0", "h1"), [vec!["e0_0".to_string()]].into());
    let pod = paths(&net, "h0", "h2");
    assert_eq!(pod.len(), 2, "{pod:?}");
    assert!(pod
        .iter()
        .all(|p| p.len() == 3 && p[0] == "e0_0" && p[2] == "e0_1"));
    let far = paths(&net, "h0", "h15");
    assert_eq!(far.len(), 4, "{far:?}");
    let cores: std::collections::BTreeSet<&str> = far.iter().map(|p| p[2].as_str()).collect();
    assert_eq!(cores, ["c0", "c1", "c2", "c3"].into());
    assert!(far
        .iter()
        .all(|p| p.len() == 5 && p[0] == "e0_0" && p[4] == "e3_1"));
    // Tiers: host links 10 Gbit/s, aggregation ↔ core 40 Gbit/s; delays add up.
    let (delay, rate, hops) = net.path(
        net.node_by_name("h0").unwrap(),
        net.node_by_name("h15").unwrap(),
        0,
    );
    assert_eq!((hops, rate), (6, 10_000_000_000));
    assert_eq!(delay, 4 * crate::engine::US + 2 * 2 * crate::engine::US);
    let port = |n: &str| net.ports.iter().find(|p| p.name == n).unwrap();
    assert_eq!(port("a0_0_c0").rate_bps, 40_000_000_000);
    assert_eq!(port("c0_a0_0").rate_bps, 40_000_000_000);
    assert_eq!(port("h15_down").rate_bps, 10_000_000_000);
}

#[test]
fn fat_tree_k16_builds_1024_hosts() {
    let spec = parsed("kind = \"fat-tree\"\nk = 16\nlink = { rate = \"10Gbps\", delay = \"1us\" }")
        .unwrap();
    let net = build(&spec);
    assert_eq!(net.nodes.len(), 1024 + 256 + 64);
    assert_eq!(paths(&net, "h0", "h1023").len(), 64);
}

#[test]
fn leaf_spine_paths_go_through_every_spine() {
    let spec = parsed(
        "kind = \"leaf-spine\"\nleaves = 4\nspines = 3\nhosts_per_leaf = 8\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"40Gbps\", delay = \"1us\" }",
    )
    .unwrap();
    let net = build(&spec);
    assert_eq!(net.nodes.len(), 32 + 4 + 3);
    assert_eq!(paths(&net, "h0", "h7"), [vec!["l0".to_string()]].into());
    let across = paths(&net, "h0", "h31");
    assert_eq!(across.len(), 3);
    assert!(across
        .iter()
        .all(|p| p.len() == 3 && p[0] == "l0" && p[2] == "l3"));
}

#[test]
fn fabric_mistakes_are_named() {
    let e = parsed("kind = \"fat-tree\"\nk = 5\nlink = { rate = \"10Gbps\", delay = \"1us\" }")
        .unwrap_err();
    assert!(
        e.iter()
            .any(|e| e.key == "topology.k" && e.message.contains("even")),
        "{e:?}"
    );
    let e = parsed("kind = \"fat-tree\"\nk = 4").unwrap_err();
    assert!(e.iter().any(|e| e.key == "topology.link"), "{e:?}");
    let e = parsed("kind = \"leaf-spine\"\nleaves = 1000\nspines = 2\nhosts_per_leaf = 1000\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"40Gbps\", delay = \"1us\" }").unwrap_err();
    assert!(
        e.iter().any(|e| e.message.contains("at most 100000")),
        "{e:?}"
    );
    let e = parsed("kind = \"leaf-spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"40Gbps\" }").unwrap_err();
    assert!(
        e.iter().any(|e| e.key == "topology.fabric_link.delay"),
        "{e:?}"
    );
}
