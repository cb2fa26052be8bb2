//! The chain: a path `src` → `r0` → … → `dst` of hops, each with its own rate, delay and
//! queue (the queue of the port that sends onto that hop). The reverse direction of each
//! hop has the same rate and delay and a large drop-tail queue.
//!
//! Links, in port order: `hop{i}`, `hop{i}_rev` for each hop i.

use super::{big_queue, parse_link, placeholder_link, LINK};
use crate::net::topology::spec::GraphLinkSpec;
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::NodeSpec;
use crate::net::topology::spec::TopologySpec;
use crate::net::NodeKind;
use crate::schema::check::{type_name, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, REQUIRED};
use toml::Value;

const HOPS: Key = Key {
    name: "hops",
    ty: Ty::Tables(&LINK),
    default: REQUIRED,
    allowed: "at least one hop",
    meaning: "hop i is the link `hop{i}`; its queue is the port that sends onto it (default limit `\"1000pkts\"`)",
};

pub static KEYS: Schema = Schema {
    title: "Chain",
    place: "a chain topology",
    noun: "topology",
    about: "A path `src` → `r0` → … → `dst` of hops. Each hop's reverse direction (`hop{i}_rev`) has the same rate, delay and framing and a drop-tail queue of 100000 packets. The routers between hops are `r0` … `r{n-2}`; they are switches, not hosts.",
    keys: &[HOPS],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
    let example = "[{ rate = \"1Gbps\", delay = \"10ms\" }]";
    let key = "topology.hops";
    let Some(v) = t.t.get(HOPS.name) else {
        ck.err(
            key,
            None,
            format!("missing required key 'hops' in 'topology' (e.g. hops = {example})"),
        );
        return None;
    };
    let Value::Array(a) = v else {
        ck.err(
            key,
            Some(v),
            format!(
                "expected an array of links (e.g. hops = {example}), found {}",
                type_name(v)
            ),
        );
        return None;
    };
    if a.is_empty() {
        ck.err(
            key,
            Some(v),
            format!("a chain needs at least one hop (e.g. hops = {example})"),
        );
        return None;
    }
    let mut hops = Vec::with_capacity(a.len());
    for (i, h) in a.iter().enumerate() {
        let path = format!("{key}.{i}");
        match h {
            Value::Table(ht) => hops.push(parse_link(
                ck,
                Tab { path: &path, t: ht },
                Limit::Packets(1000),
            )),
            other => {
                ck.err(&path, Some(other), format!("expected a link table such as {{ rate = \"1Gbps\", delay = \"10ms\" }}, found {}", type_name(other)));
                hops.push(placeholder_link());
            }
        }
    }
    Some(TopologySpec::Chain { hops })
}

pub fn to_graph(spec: &TopologySpec) -> Option<GraphSpec> {
    let TopologySpec::Chain { hops } = spec else {
        return None;
    };
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes.push(node("src".into(), NodeKind::Host));
    g.nodes
        .extend((0..hops.len().saturating_sub(1)).map(|i| node(format!("r{i}"), NodeKind::Switch)));
    g.nodes.push(node("dst".into(), NodeKind::Host));
    // The path in node order: src, r0, …, dst.
    let names: Vec<String> = std::iter::once("src".to_string())
        .chain((0..hops.len().saturating_sub(1)).map(|i| format!("r{i}")))
        .chain(std::iter::once("dst".to_string()))
        .collect();
    for (i, h) in hops.iter().enumerate() {
        g.links.push(GraphLinkSpec {
            name: format!("hop{i}"),
            from: names[i].clone(),
            to: names[i + 1].clone(),
            rate_bps: h.rate_bps,
            delay: h.delay,
            framing: h.framing,
            queue: h.queue.clone(),
            reverse_name: format!("hop{i}_rev"),
            reverse_queue: big_queue(),
        });
    }
    Some(g)
}
