//! Built-in topologies: dumbbell, star (incast) and chain (multi-hop path). Names of hosts
//! and links follow `scenario::TopologySpec`.

use super::{Network, NodeKind};
use crate::qdisc::Qdisc;
use crate::scenario::{Limit, QueueSpec, TopologySpec};

/// The queue of ports that are not the experiment's subject: large drop-tail.
fn big_queue() -> Qdisc {
    Qdisc::from_spec(&QueueSpec::DropTail {
        limit: Limit::Packets(100_000),
    })
}

pub fn build(spec: &TopologySpec) -> Network {
    let mut net = Network::default();
    match spec {
        TopologySpec::Dumbbell {
            senders,
            bottleneck,
            access_rate_bps,
            access_delay,
            access_queue,
        } => {
            let n = *senders;
            let hosts_s: Vec<_> = (0..n)
                .map(|i| net.add_node(&format!("s{i}"), NodeKind::Host))
                .collect();
            let hosts_r: Vec<_> = (0..n)
                .map(|i| net.add_node(&format!("r{i}"), NodeKind::Host))
                .collect();
            let sw0 = net.add_node("sw0", NodeKind::Switch);
            let sw1 = net.add_node("sw1", NodeKind::Switch);
            let b = bottleneck;
            net.add_link(
                "bottleneck",
                sw0,
                sw1,
                b.rate_bps,
                b.delay,
                Qdisc::from_spec(&b.queue),
            );
            net.add_link("bottleneck_rev", sw1, sw0, b.rate_bps, b.delay, big_queue());
            for i in 0..n {
                let d = access_delay[i.min(access_delay.len() - 1)];
                let r = *access_rate_bps;
                net.add_link(
                    &format!("s{i}_up"),
                    hosts_s[i],
                    sw0,
                    r,
                    d,
                    Qdisc::from_spec(access_queue),
                );
                net.add_link(&format!("s{i}_down"), sw0, hosts_s[i], r, d, big_queue());
                net.add_link(&format!("r{i}_down"), sw1, hosts_r[i], r, d, big_queue());
                net.add_link(
                    &format!("r{i}_up"),
                    hosts_r[i],
                    sw1,
                    r,
                    d,
                    Qdisc::from_spec(access_queue),
                );
            }
        }
        TopologySpec::Star {
            senders,
            link,
            other_queue,
        } => {
            let n = *senders;
            let hosts: Vec<_> = (0..n)
                .map(|i| net.add_node(&format!("s{i}"), NodeKind::Host))
                .collect();
            let recv = net.add_node("recv", NodeKind::Host);
            let sw = net.add_node("sw0", NodeKind::Switch);
            let (r, d) = (link.rate_bps, link.delay);
            net.add_link("bottleneck", sw, recv, r, d, Qdisc::from_spec(&link.queue));
            net.add_link("recv_up", recv, sw, r, d, Qdisc::from_spec(other_queue));
            for (i, &h) in hosts.iter().enumerate() {
                net.add_link(
                    &format!("s{i}_up"),
                    h,
                    sw,
                    r,
                    d,
                    Qdisc::from_spec(other_queue),
                );
                net.add_link(
                    &format!("s{i}_down"),
                    sw,
                    h,
                    r,
                    d,
                    Qdisc::from_spec(other_queue),
                );
            }
        }
        TopologySpec::Chain { hops } => {
            let src = net.add_node("src", NodeKind::Host);
            let routers: Vec<_> = (0..hops.len().saturating_sub(1))
                .map(|i| net.add_node(&format!("r{i}"), NodeKind::Switch))
                .collect();
            let dst = net.add_node("dst", NodeKind::Host);
            let mut path = vec![src];
            path.extend(routers);
            path.push(dst);
            for (i, h) in hops.iter().enumerate() {
                let (a, b) = (path[i], path[i + 1]);
                net.add_link(
                    &format!("hop{i}"),
                    a,
                    b,
                    h.rate_bps,
                    h.delay,
                    Qdisc::from_spec(&h.queue),
                );
                net.add_link(
                    &format!("hop{i}_rev"),
                    b,
                    a,
                    h.rate_bps,
                    h.delay,
                    big_queue(),
                );
            }
        }
    }
    net.finish();
    net
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::scenario::LinkSpec;

    fn q() -> QueueSpec {
        QueueSpec::DropTail {
            limit: Limit::Packets(100),
        }
    }

    #[test]
    fn dumbbell_routes_through_the_bottleneck() {
        let spec = TopologySpec::Dumbbell {
            senders: 2,
            bottleneck: LinkSpec {
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
}
