//! The star (incast): N senders `s0…` → switch `sw0` → receiver `recv`. Every link has
//! the same rate and delay; the port towards `recv` (link `bottleneck`) runs the
//! experiment's queue, every other port `other_queue`.
//!
//! Links, in port order: `bottleneck` (sw0 → recv), `recv_up`, then for each i `s{i}_up`,
//! `s{i}_down`.

use super::{link_table, queue_table, senders, LINK, MAX_SENDERS};
use crate::net::topology::spec::GraphLinkSpec;
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::NodeSpec;
use crate::net::topology::spec::TopologySpec;
use crate::net::NodeKind;
use crate::qdisc::QUEUE;
use crate::schema::check::{Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, REQUIRED};

const SENDERS: Key = Key {
    name: "senders",
    ty: Ty::Int(1, MAX_SENDERS),
    default: "`1`",
    allowed: "",
    meaning: "number of senders",
};
const LINK_KEY: Key = Key {
    name: "link",
    ty: Ty::Table(&LINK),
    default: REQUIRED,
    allowed: "",
    meaning: "rate and delay of every link; its queue is the port towards `recv` (link `bottleneck`, default limit `\"1000pkts\"`)",
};
const OTHER_QUEUE: Key = Key {
    name: "other_queue",
    ty: Ty::Table(&QUEUE),
    default: "drop-tail, `\"10000pkts\"`",
    allowed: "",
    meaning: "queue of every other port (`recv_up`, `s{i}_up`, `s{i}_down`)",
};

pub static KEYS: Schema = Schema {
    title: "Star",
    place: "a star topology",
    noun: "topology",
    about: "Incast: N senders `s0…` → switch `sw0` → receiver `recv`.",
    keys: &[SENDERS, LINK_KEY, OTHER_QUEUE],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
    let senders = senders(ck, t, &SENDERS);
    let link = link_table(ck, t, LINK_KEY.name, Limit::Packets(1000));
    let other_queue = queue_table(ck, t, OTHER_QUEUE.name);
    Some(TopologySpec::Star {
        senders: senders?,
        link,
        other_queue,
    })
}

pub fn to_graph(spec: &TopologySpec) -> Option<GraphSpec> {
    let TopologySpec::Star {
        senders,
        link,
        other_queue,
    } = spec
    else {
        return None;
    };
    let n = *senders;
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes.reserve(n + 2);
    g.nodes
        .extend((0..n).map(|i| node(format!("s{i}"), NodeKind::Host)));
    g.nodes.push(node("recv".into(), NodeKind::Host));
    g.nodes.push(node("sw0".into(), NodeKind::Switch));
    let l = |name: String, from: String, to: String, rev: String, q, rq| GraphLinkSpec {
        name,
        from,
        to,
        rate_bps: link.rate_bps,
        delay: link.delay,
        framing: link.framing,
        queue: q,
        reverse_name: rev,
        reverse_queue: rq,
    };
    g.links.reserve(n + 1);
    g.links.push(l(
        "bottleneck".into(),
        "sw0".into(),
        "recv".into(),
        "recv_up".into(),
        link.queue.clone(),
        other_queue.clone(),
    ));
    for i in 0..n {
        g.links.push(l(
            format!("s{i}_up"),
            format!("s{i}"),
            "sw0".into(),
            format!("s{i}_down"),
            other_queue.clone(),
            other_queue.clone(),
        ));
    }
    Some(g)
}
