use super::*;
use crate::engine::MS;
use crate::scenario::Framing;
use crate::scenario::LinkSpec;

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
fn link(name: &str, from: &str, to: &str) -> crate::scenario::GraphLinkSpec {
    crate::scenario::GraphLinkSpec {
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
    use crate::scenario::{GraphSpec, NodeKind, NodeSpec};
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
    use crate::scenario::{GraphSpec, NodeKind, NodeSpec};
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
