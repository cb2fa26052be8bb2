//! The k-ary fat-tree of Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data
//! Center Network Architecture" (SIGCOMM 2008), §3: k pods, each of k/2 edge and k/2
//! aggregation switches; (k/2)² core switches; k³/4 hosts, k/2 on each edge switch. Edge
//! switch i of a pod links to every aggregation switch of its pod; aggregation switch j of
//! every pod links to core switches j·k/2 … (j+1)·k/2 − 1. Every switch has k ports, and
//! with equal link rates the network has full bisection bandwidth. Between pods there are
//! (k/2)² shortest paths, chosen per connection by ECMP (`routing.rs`).
//!
//! Names: hosts `h{n}` (n = pod·k²/4 + edge·k/2 + i, numbered pod by pod); edge switches
//! `e{pod}_{i}`, aggregation switches `a{pod}_{j}`, core switches `c{m}`. Links, each named
//! for its upward direction `{from}_{to}` with its downward direction `{to}_{from}`, except
//! the host links `h{n}_up` (the host's NIC) and `h{n}_down` (the edge switch's port
//! towards the host, where incast queues build). In port order: for each pod, each edge
//! switch, its hosts' links, then its links to the pod's aggregation switches; then every
//! aggregation switch's links to its core switches.
//!
//! Every switch port runs its tier's queue (both directions between switches; towards the
//! host on host links); a host's NIC runs `host_queue`.

use super::{parse_link, LINK};
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::LinkSpec;
use crate::net::topology::spec::NodeSpec;
use crate::net::topology::spec::TopologySpec;
use crate::net::NodeKind;
use crate::qdisc::QueueSpec;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, REQUIRED};

/// Largest k: 65,536 hosts and 5,120 switches.
pub const MAX_K: i64 = 64;

const K: Key = Key {
    name: "k",
    ty: Ty::Int(2, MAX_K),
    default: REQUIRED,
    allowed: "an even number",
    meaning: "switch port count: k pods, k³/4 hosts (k = 4: 16 hosts, 8: 128, 16: 1,024)",
};
const LINK_KEY: Key = Key {
    name: "link",
    ty: Ty::Table(&LINK),
    default: REQUIRED,
    allowed: "",
    meaning: "rate, delay and switch-port queue of every link (default queue limit `\"1000pkts\"`), unless a tier's table below replaces it",
};
const HOST_LINK: Key = Key {
    name: "host_link",
    ty: Ty::Table(&LINK),
    default: "`link`",
    allowed: "",
    meaning:
        "host ↔ edge links; the queue is the edge switch's port towards the host (`h{n}_down`)",
};
const EDGE_LINK: Key = Key {
    name: "edge_link",
    ty: Ty::Table(&LINK),
    default: "`link`",
    allowed: "",
    meaning: "edge ↔ aggregation links; the queue is both ports'",
};
const CORE_LINK: Key = Key {
    name: "core_link",
    ty: Ty::Table(&LINK),
    default: "`link`",
    allowed: "",
    meaning: "aggregation ↔ core links; the queue is both ports'",
};

pub static KEYS: Schema = Schema {
    title: "Fat-tree",
    place: "a fat-tree topology",
    noun: "topology",
    about: "The k-ary fat-tree of Al-Fares et al. (SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches, (k/2)² core switches, k³/4 hosts `h0…`; shortest paths with ECMP per connection.",
    keys: &[K, LINK_KEY, HOST_LINK, EDGE_LINK, CORE_LINK, super::HOST_QUEUE],
    with: &[],
    variants: None,
};

/// A tier's link table: its own if given, else `link`.
fn tier(ck: &mut Checker, t: Tab, k: &Key, link: &LinkSpec) -> LinkSpec {
    let path = join(t.path, k.name);
    match ck.table(t, k.name, &path) {
        Some(lt) => parse_link(ck, lt, Limit::Packets(1000)),
        None => link.clone(),
    }
}

pub fn parse(ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
    let k: Option<u64> = ck.need(t, &K, "4");
    let k = match k {
        Some(k) if k % 2 == 1 => {
            ck.err(
                &join(t.path, K.name),
                t.t.get(K.name),
                format!("a fat-tree needs an even k (pods of k/2 edge and k/2 aggregation switches); try {} or {}", k - 1, k + 1),
            );
            None
        }
        k => k,
    };
    let link = super::link_table(ck, t, LINK_KEY.name, Limit::Packets(1000));
    let host = tier(ck, t, &HOST_LINK, &link);
    let edge = tier(ck, t, &EDGE_LINK, &link);
    let core = tier(ck, t, &CORE_LINK, &link);
    let host_queue = super::queue_table(ck, t, super::HOST_QUEUE.name);
    Some(TopologySpec::Graph(graph(
        k? as usize,
        &host,
        &edge,
        &core,
        &host_queue,
    )))
}

/// A fat-tree's graph (a fat-tree is parsed straight into one).
pub fn to_graph(_: &TopologySpec) -> Option<GraphSpec> {
    None
}

/// The graph of a k-ary fat-tree with these tiers.
pub fn graph(
    k: usize,
    host: &LinkSpec,
    edge: &LinkSpec,
    core: &LinkSpec,
    host_queue: &QueueSpec,
) -> GraphSpec {
    let half = k / 2;
    let hosts = k * half * half;
    let mut g = GraphSpec::default();
    g.nodes.reserve(hosts + k * k + half * half);
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes
        .extend((0..hosts).map(|n| node(format!("h{n}"), NodeKind::Host)));
    for p in 0..k {
        g.nodes
            .extend((0..half).map(|i| node(format!("e{p}_{i}"), NodeKind::Switch)));
    }
    for p in 0..k {
        g.nodes
            .extend((0..half).map(|j| node(format!("a{p}_{j}"), NodeKind::Switch)));
    }
    g.nodes
        .extend((0..half * half).map(|m| node(format!("c{m}"), NodeKind::Switch)));
    g.links.reserve(hosts * 3);
    for p in 0..k {
        for i in 0..half {
            let e = format!("e{p}_{i}");
            for h in 0..half {
                let n = (p * half + i) * half + h;
                g.links.push(super::host_link(n, &e, host, host_queue));
            }
            for j in 0..half {
                let a = format!("a{p}_{j}");
                g.links.push(super::tier_link(
                    format!("{e}_{a}"),
                    e.clone(),
                    a.clone(),
                    format!("{a}_{e}"),
                    edge,
                    &edge.queue,
                ));
            }
        }
    }
    for p in 0..k {
        for j in 0..half {
            let a = format!("a{p}_{j}");
            for c in 0..half {
                let m = j * half + c;
                g.links.push(super::tier_link(
                    format!("{a}_c{m}"),
                    a.clone(),
                    format!("c{m}"),
                    format!("c{m}_{a}"),
                    core,
                    &core.queue,
                ));
            }
        }
    }
    g
}
