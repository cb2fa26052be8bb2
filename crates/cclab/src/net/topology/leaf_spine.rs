//! A two-tier leaf-spine (folded Clos) fabric, as data centers build them and as the
//! DCTCP and pFabric-era simulations use it: `leaves` top-of-rack switches, each with
//! `hosts_per_leaf` hosts and one link to each of `spines` spine switches. Between hosts
//! on different leaves there are `spines` shortest paths, chosen per connection by ECMP
//! (`routing.rs`). The oversubscription of a leaf is
//! `hosts_per_leaf × host rate / (spines × fabric rate)`: equal to 1 for full bisection
//! bandwidth (e.g. 16 hosts at 10 Gbit/s and 4 spines at 40 Gbit/s).
//!
//! Names: hosts `h{n}` (n = leaf·hosts_per_leaf + i), leaves `l{i}`, spines `sp{j}`. Links:
//! `h{n}_up` (the host's NIC) and `h{n}_down` (the leaf's port towards the host, where
//! incast queues build); `l{i}_sp{j}` (leaf → spine) and `sp{j}_l{i}` (spine → leaf). In
//! port order: for each leaf, its hosts' links, then its links to the spines.
//!
//! Every switch port runs its tier's queue; a host's NIC runs `host_queue`.

use super::{link_table, LINK};
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::LinkSpec;
use crate::net::topology::spec::NodeSpec;
use crate::net::topology::spec::TopologySpec;
use crate::net::NodeKind;
use crate::qdisc::QueueSpec;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, REQUIRED};

/// Most leaves, spines, and hosts on one leaf.
pub const MAX_SWITCHES: i64 = 4096;
pub const MAX_HOSTS_PER_LEAF: i64 = 1024;
/// Leaf-to-spine links at most: routing runs one breadth-first search per leaf over every
/// link, so its set-up grows with leaves² × spines, and every link holds two ports. At the
/// cap (`/usr/bin/time cclab run` of 1 ms, one host per leaf, 2026-11-29): 1024 × 1024
/// 9.4 s and 1.8 GB, 4096 × 256 27.7 s and 2.0 GB.
pub const MAX_FABRIC_LINKS: u64 = 1_048_576;

const LEAVES: Key = Key {
    name: "leaves",
    ty: Ty::Int(1, MAX_SWITCHES),
    default: REQUIRED,
    allowed: "",
    meaning: "top-of-rack (leaf) switches `l0…`",
};
const SPINES: Key = Key {
    name: "spines",
    ty: Ty::Int(1, MAX_SWITCHES),
    default: REQUIRED,
    allowed: "1 to 4096, and leaves × spines at most 1,048,576",
    meaning: "spine switches `sp0…`, each linked to every leaf",
};
const HOSTS_PER_LEAF: Key = Key {
    name: "hosts_per_leaf",
    ty: Ty::Int(1, MAX_HOSTS_PER_LEAF),
    default: REQUIRED,
    allowed: "at most 100,000 hosts in all",
    meaning: "hosts on each leaf: `h0…` in leaf order",
};
const HOST_LINK: Key = Key {
    name: "host_link",
    ty: Ty::Table(&LINK),
    default: REQUIRED,
    allowed: "",
    meaning: "host ↔ leaf links: rate, delay, and the queue of the leaf's port towards the host (`h{n}_down`; default limit `\"1000pkts\"`)",
};
const FABRIC_LINK: Key = Key {
    name: "fabric_link",
    ty: Ty::Table(&LINK),
    default: REQUIRED,
    allowed: "",
    meaning: "leaf ↔ spine links: rate, delay, and the queue of both ports",
};

pub static KEYS: Schema = Schema {
    title: "Leaf-spine",
    place: "a leaf-spine topology",
    noun: "topology",
    about: "A two-tier Clos fabric: `leaves` switches `l0…` with `hosts_per_leaf` hosts each (`h0…`), every leaf linked to each of `spines` switches `sp0…`; shortest paths with ECMP per connection.",
    keys: &[
        LEAVES,
        SPINES,
        HOSTS_PER_LEAF,
        HOST_LINK,
        FABRIC_LINK,
        super::HOST_QUEUE,
    ],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
    let leaves: Option<u64> = ck.need(t, &LEAVES, "4");
    let spines: Option<u64> = ck.need(t, &SPINES, "2");
    let per: Option<u64> = ck.need(t, &HOSTS_PER_LEAF, "16");
    let host = link_table(ck, t, HOST_LINK.name, Limit::Packets(1000));
    let fabric = link_table(ck, t, FABRIC_LINK.name, Limit::Packets(1000));
    let host_queue = super::queue_table(ck, t, super::HOST_QUEUE.name);
    let (leaves, spines, per) = (leaves?, spines?, per?);
    if leaves * spines > MAX_FABRIC_LINKS {
        ck.err(
            &join(t.path, SPINES.name),
            t.t.get(SPINES.name),
            format!(
                "{leaves} leaves × {spines} spines = {} fabric links; at most {MAX_FABRIC_LINKS} (e.g. 1024 × 1024 or 4096 × 256)",
                leaves * spines
            ),
        );
        return None;
    }
    if leaves * per > super::MAX_SENDERS as u64 {
        ck.err(
            &join(t.path, HOSTS_PER_LEAF.name),
            t.t.get(HOSTS_PER_LEAF.name),
            format!(
                "{leaves} leaves × {per} hosts = {} hosts; at most {} in all",
                leaves * per,
                super::MAX_SENDERS
            ),
        );
        return None;
    }
    Some(TopologySpec::Graph(graph(
        leaves as usize,
        spines as usize,
        per as usize,
        &host,
        &fabric,
        &host_queue,
    )))
}

/// A leaf-spine is parsed straight into a graph.
pub fn to_graph(_: &TopologySpec) -> Option<GraphSpec> {
    None
}

/// The graph of a leaf-spine fabric.
pub fn graph(
    leaves: usize,
    spines: usize,
    per: usize,
    host: &LinkSpec,
    fabric: &LinkSpec,
    host_queue: &QueueSpec,
) -> GraphSpec {
    let hosts = leaves * per;
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes.reserve(hosts + leaves + spines);
    g.nodes
        .extend((0..hosts).map(|n| node(format!("h{n}"), NodeKind::Host)));
    g.nodes
        .extend((0..leaves).map(|i| node(format!("l{i}"), NodeKind::Switch)));
    g.nodes
        .extend((0..spines).map(|j| node(format!("sp{j}"), NodeKind::Switch)));
    g.links.reserve(hosts + leaves * spines);
    for i in 0..leaves {
        let leaf = format!("l{i}");
        for h in 0..per {
            let n = i * per + h;
            g.links.push(super::host_link(n, &leaf, host, host_queue));
        }
        for j in 0..spines {
            g.links.push(super::tier_link(
                format!("{leaf}_sp{j}"),
                leaf.clone(),
                format!("sp{j}"),
                format!("sp{j}_{leaf}"),
                fabric,
                &fabric.queue,
            ));
        }
    }
    g
}
