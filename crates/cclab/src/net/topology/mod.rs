//! Topologies. Every network is a graph ([`GraphSpec`]: nodes, duplex links); the
//! built-in kinds are builders of one:
//!
//! - `dumbbell` — N senders → switch → bottleneck → switch → N receivers (`dumbbell.rs`);
//! - `star` — N senders → switch → one receiver, the incast pattern (`star.rs`);
//! - `chain` — a path of hops, each with its own rate, delay and queue (`chain.rs`);
//! - `fat-tree` — the k-ary fat-tree of Al-Fares et al., k³/4 hosts (`fat_tree.rs`);
//! - `leaf-spine` — leaves with their hosts, each linked to every spine (`leaf_spine.rs`);
//! - `graph` — any network written out in the scenario (nothing to build).
//!
//! [`build`] turns the graph into a [`Network`]: one node per node spec, two ports per
//! link (forward, then reverse), in order, then the routes. Adding a topology: one file
//! here (its keys, `parse` and `to_graph`), and one line in the `topologies!` registry.

pub mod chain;
pub mod dumbbell;
pub mod fat_tree;
pub mod graph;
pub mod leaf_spine;
pub mod spec;
pub mod star;

use super::{Framing, Network, NodeId};
use crate::net::topology::spec::GraphLinkSpec;
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::LinkSpec;
use crate::net::topology::spec::TopologySpec;
use crate::qdisc::QueueSpec;
use crate::qdisc::{Qdisc, QUEUE};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, Variants, REQUIRED};
use std::collections::BTreeMap;

/// The queue of ports that are not an experiment's subject: a large drop-tail.
pub fn big_queue() -> QueueSpec {
    QueueSpec::droptail(Limit::Packets(100_000))
}

/// The registry of topology kinds: `"name" => module`, one line each. A module provides
/// its keys (`KEYS`), `parse` (a [`TopologySpec`]; a new kind may simply build a
/// `TopologySpec::Graph`) and `to_graph` (its graph, or `None` for another kind's spec).
macro_rules! topologies {
    ($($name:literal => $m:ident,)*) => {
        /// The `kind = …` names, in registry order.
        pub const KINDS: &[&str] = &[$($name),*];

        /// `[topology]`: `kind` and that kind's keys.
        pub static TOPOLOGY: Schema = Schema {
            title: "[topology]",
            place: "[topology]",
            noun: "topology",
            about: "",
            keys: &[KIND],
            with: &[],
            variants: Some(Variants {
                tag: "kind",
                kinds: &[$(($name, &$m::KEYS)),*],
            }),
        };

        fn parse_kind(kind: &str, ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
            match kind {
                $($name => $m::parse(ck, t),)*
                _ => None,
            }
        }

        /// The graph a topology describes.
        pub fn to_graph(spec: &TopologySpec) -> GraphSpec {
            $(if let Some(g) = $m::to_graph(spec) {
                return g;
            })*
            unreachable!("every topology spec belongs to a registered kind")
        }
    };
}

topologies! {
    "dumbbell" => dumbbell,
    "star" => star,
    "chain" => chain,
    "fat-tree" => fat_tree,
    "leaf-spine" => leaf_spine,
    "graph" => graph,
}

const KIND: Key = Key {
    name: "kind",
    ty: Ty::Choice("topology kind", KINDS),
    default: REQUIRED,
    allowed: "",
    meaning: "which network; each kind takes its own keys (below)",
};

/// Read `[topology]`.
pub fn parse(ck: &mut Checker, root: Tab) -> Option<TopologySpec> {
    if !root.t.contains_key("topology") {
        ck.err(
            "topology",
            None,
            format!(
                "missing required table [topology]; give it kind = {} and its links",
                crate::schema::check::or_list(&crate::schema::check::quoted(KINDS))
            ),
        );
        return None;
    }
    let t = ck.table(root, "topology", "topology")?;
    let kind: Option<String> = ck.need(t, &KIND, "\"dumbbell\"");
    ck.check_keys(t, &TOPOLOGY, kind.as_deref());
    parse_kind(kind.as_deref()?, ck, t)
}

const RATE: Key = Key {
    name: "rate",
    ty: Ty::Text("rate, or rate table"),
    default: REQUIRED,
    allowed: "greater than zero; or a trace or a generated link: see [Rate tables](#rate-tables)",
    meaning: "link rate",
};

const DELAY: Key = Key {
    name: "delay",
    ty: Ty::Time,
    default: REQUIRED,
    allowed: "",
    meaning: "one-way propagation delay",
};

const FRAMING: Key = Key {
    name: "framing",
    ty: Ty::Choice("framing", Framing::NAMES),
    default: "`\"ethernet\"`",
    allowed: "",
    meaning: "bytes the link adds to every IP packet for serialisation: `\"ethernet\"` 38 (header, FCS, preamble, inter-frame gap), `\"ip\"` none (a rate given for IP packets, as on a point-to-point path)",
};

/// A link table: rate, delay and framing, and the queue of the port that feeds it.
pub static LINK: Schema = Schema {
    title: "Link tables",
    place: "a link table",
    noun: "link",
    about: "",
    keys: &[RATE, DELAY, FRAMING],
    with: &[&QUEUE],
    variants: None,
};

/// Read link table `t` (rate, delay, framing, queue); `default_limit` if it names none.
pub fn parse_link(ck: &mut Checker, t: Tab, default_limit: Limit) -> LinkSpec {
    ck.check_keys(t, &LINK, crate::qdisc::queue_kind(t).as_deref());
    read_link(ck, t, default_limit)
}

/// `parse_link` without the check for unknown keys (for tables that take more keys).
pub fn read_link(ck: &mut Checker, t: Tab, default_limit: Limit) -> LinkSpec {
    let rate_bps = match t.t.get("rate") {
        // A trace or a generated link (`net/dynamics.rs`, which reports its errors): its
        // mean rate.
        Some(toml::Value::Table(_)) => crate::net::dynamics::mean_rate(ck, t),
        None => {
            ck.missing(t, "rate", "\"1Gbps\"");
            1
        }
        Some(v) => match crate::schema::check::rate(v) {
            Ok(r) => r,
            Err(m) => {
                ck.err(&join(t.path, "rate"), Some(v), m);
                1
            }
        },
    };
    let delay = ck.need(t, &DELAY, "\"10ms\"").unwrap_or(0);
    let framing = ck
        .get::<String>(t, &FRAMING)
        .and_then(|f| Framing::by_name(&f))
        .unwrap_or(Framing::Ethernet);
    let queue = crate::qdisc::parse(ck, t, default_limit);
    LinkSpec {
        rate_bps,
        delay,
        queue,
        framing,
    }
}

/// A link that stands in for a missing or malformed one, so the walk can go on.
pub fn placeholder_link() -> LinkSpec {
    LinkSpec {
        rate_bps: 1,
        delay: 0,
        queue: QueueSpec::droptail(Limit::Packets(1000)),
        framing: Framing::Ethernet,
    }
}

/// Required link sub-table `k` of `t`.
pub fn link_table(ck: &mut Checker, t: Tab, k: &str, default_limit: Limit) -> LinkSpec {
    let path = join(t.path, k);
    if !t.t.contains_key(k) {
        ck.err(
            &path,
            None,
            format!("missing required key '{k}' in 'topology' (e.g. {k} = {{ rate = \"1Gbps\", delay = \"10ms\" }})"),
        );
        return placeholder_link();
    }
    match ck.table(t, k, &path) {
        Some(lt) => parse_link(ck, lt, default_limit),
        None => placeholder_link(),
    }
}

/// Optional queue sub-table `k` of `t` (the queue of ports that are not the subject):
/// drop-tail, 10,000 packets unless it says otherwise.
pub fn queue_table(ck: &mut Checker, t: Tab, k: &str) -> QueueSpec {
    let path = join(t.path, k);
    let default_limit = Limit::Packets(10_000);
    match ck.table(t, k, &path) {
        Some(q) => {
            ck.check_keys(q, &QUEUE, crate::qdisc::queue_kind(q).as_deref());
            crate::qdisc::parse(ck, q, default_limit)
        }
        None => QueueSpec::droptail(default_limit),
    }
}

/// `host_queue` of the fabrics (fat-tree, leaf-spine): the queue of every host's NIC.
pub const HOST_QUEUE: Key = Key {
    name: "host_queue",
    ty: Ty::Table(&QUEUE),
    default: "drop-tail, `\"10000pkts\"`",
    allowed: "",
    meaning: "the queue of every host's NIC (`h{n}_up`)",
};

/// A duplex link of a fabric tier: `from → to` named `name` with queue `queue`, and
/// `to → from` named `reverse` with the tier's own queue; rate, delay and framing are
/// the tier's.
pub fn tier_link(
    name: String,
    from: String,
    to: String,
    reverse: String,
    tier: &LinkSpec,
    queue: &QueueSpec,
) -> GraphLinkSpec {
    GraphLinkSpec {
        name,
        from,
        to,
        rate_bps: tier.rate_bps,
        delay: tier.delay,
        framing: tier.framing,
        queue: queue.clone(),
        reverse_name: reverse,
        reverse_queue: tier.queue.clone(),
    }
}

/// Host `h{n}`'s link to its switch: `h{n}_up` (the NIC, `host_queue`) and `h{n}_down`
/// (the switch's port towards the host, the tier's queue).
pub fn host_link(n: usize, switch: &str, tier: &LinkSpec, host_queue: &QueueSpec) -> GraphLinkSpec {
    tier_link(
        format!("h{n}_up"),
        format!("h{n}"),
        switch.to_string(),
        format!("h{n}_down"),
        tier,
        host_queue,
    )
}

/// Most senders a built-in topology may have.
pub const MAX_SENDERS: i64 = 100_000;

/// `senders`: it decides the host names, so a bad value withholds the topology (and with
/// it the host-name checks that would otherwise all fail too).
pub fn senders(ck: &mut Checker, t: Tab, k: &Key) -> Option<usize> {
    if !t.t.contains_key(k.name) {
        return Some(1);
    }
    ck.get::<u64>(t, k).map(|n| n as usize)
}

/// Build the network of a topology.
pub fn build(spec: &TopologySpec) -> Network {
    match spec {
        TopologySpec::Graph(g) => build_graph(g),
        t => build_graph(&to_graph(t)),
    }
}

/// Build the network of a graph. Link ends must name nodes of the graph (the scenario
/// parser checks this; an unknown name here is a programming error).
pub fn build_graph(g: &GraphSpec) -> Network {
    let mut net = Network::default();
    net.nodes.reserve_exact(g.nodes.len());
    net.ports.reserve_exact(2 * g.links.len());
    let mut ids: BTreeMap<&str, NodeId> = BTreeMap::new();
    for n in &g.nodes {
        let id = net.add_node(&n.name, n.kind);
        ids.insert(&n.name, id);
    }
    for l in &g.links {
        let (a, b) = (ids[l.from.as_str()], ids[l.to.as_str()]);
        let fwd = net.add_link(
            &l.name,
            a,
            b,
            l.rate_bps,
            l.delay,
            Qdisc::from_spec(&l.queue),
        );
        let rev = net.add_link(
            &l.reverse_name,
            b,
            a,
            l.rate_bps,
            l.delay,
            Qdisc::from_spec(&l.reverse_queue),
        );
        for p in [fwd, rev] {
            net.ports[p as usize].framing = l.framing.overhead();
        }
    }
    net.finish();
    net
}

#[cfg(test)]
mod tests;
