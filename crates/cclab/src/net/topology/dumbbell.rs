//! The dumbbell: N senders `s0…` → switch `sw0` → bottleneck → switch `sw1` → N
//! receivers `r0…`. Access link i has its own delay (both directions), so round-trip times
//! can differ; access links are Ethernet whatever the bottleneck's framing. The senders'
//! and receivers' own ports run `access_queue` (the host qdisc),
//! the switches' ports towards the hosts and the reverse bottleneck a large drop-tail.
//!
//! Links, in port order: `bottleneck` (sw0 → sw1), `bottleneck_rev`, then for each i
//! `s{i}_up` (s_i → sw0), `s{i}_down`, `r{i}_down` (sw1 → r_i), `r{i}_up`.

use super::{big_queue, link_table, queue_table, senders, LINK, MAX_SENDERS};
use crate::engine::US;
use crate::net::topology::spec::GraphLinkSpec;
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::NodeSpec;
use crate::net::topology::spec::TopologySpec;
use crate::net::Framing;
use crate::net::NodeKind;
use crate::qdisc::QUEUE;
use crate::schema::check::{time, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, REQUIRED};
use toml::Value;

const SENDERS: Key = Key {
    name: "senders",
    ty: Ty::Int(1, MAX_SENDERS),
    default: "`1`",
    allowed: "",
    meaning: "number of sender/receiver pairs",
};
const BOTTLENECK: Key = Key {
    name: "bottleneck",
    ty: Ty::Table(&LINK),
    default: REQUIRED,
    allowed: "",
    meaning: "the link sw0 → sw1; its queue is sw0's output port (default limit `\"1000pkts\"`)",
};
const ACCESS_RATE: Key = Key {
    name: "access_rate",
    ty: Ty::Rate,
    default: "10 × the bottleneck rate",
    allowed: "",
    meaning: "rate of every host link",
};
const ACCESS_DELAY: Key = Key {
    name: "access_delay",
    ty: Ty::OneOrList(&Ty::Time),
    default: "`\"1us\"` for every sender",
    allowed: "0 or more; an array needs one time per sender",
    meaning: "one-way delay of the host links of pair i (s_i's link and r_i's link, both directions), so RTTs can differ",
};
const ACCESS_QUEUE: Key = Key {
    name: "access_queue",
    ty: Ty::Table(&QUEUE),
    default: "drop-tail, `\"10000pkts\"`",
    allowed: "",
    meaning: "queue of the host ports `s{i}_up` and `r{i}_up` (the hosts' own qdisc)",
};

pub static KEYS: Schema = Schema {
    title: "Dumbbell",
    place: "a dumbbell topology",
    noun: "topology",
    about: "N senders `s0…` → switch `sw0` → bottleneck → switch `sw1` → N receivers `r0…`. The round-trip time of pair i is 2 × (2 × `access_delay[i]` + bottleneck delay). `bottleneck_rev` (the ACK direction) has the bottleneck's rate and delay. The switch ports towards the hosts (`s{i}_down`, `r{i}_down`) and `bottleneck_rev` have a drop-tail queue of 100000 packets; access links are Ethernet.",
    keys: &[SENDERS, BOTTLENECK, ACCESS_RATE, ACCESS_DELAY, ACCESS_QUEUE],
    with: &[],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
    let senders = senders(ck, t, &SENDERS);
    let bottleneck = link_table(ck, t, BOTTLENECK.name, Limit::Packets(1000));
    let access_rate = ck
        .get(t, &ACCESS_RATE)
        .unwrap_or(bottleneck.rate_bps.saturating_mul(10));
    let n = senders.unwrap_or(1);
    let key = "topology.access_delay";
    let access_delay = match t.t.get(ACCESS_DELAY.name) {
        None => vec![US; n],
        Some(Value::Array(a)) => {
            let mut d = Vec::with_capacity(a.len());
            for (i, v) in a.iter().enumerate() {
                match time(v) {
                    Ok(x) => d.push(x),
                    Err(m) => ck.err(&format!("{key}.{i}"), Some(v), m),
                }
            }
            if senders.is_some() && a.len() != n {
                ck.err(
                    key,
                    t.t.get(ACCESS_DELAY.name),
                    format!(
                        "the array has {} delays but there are {n} senders: give one per sender, or a single time for all",
                        a.len()
                    ),
                );
            }
            d.resize(n, US);
            d
        }
        Some(v) => match time(v) {
            Ok(x) => vec![x; n],
            Err(m) => {
                let m = if matches!(v, Value::String(_)) {
                    m
                } else {
                    format!("{m} (or an array with one time per sender)")
                };
                ck.err(key, Some(v), m);
                vec![US; n]
            }
        },
    };
    let access_queue = queue_table(ck, t, ACCESS_QUEUE.name);
    Some(TopologySpec::Dumbbell {
        senders: senders?,
        bottleneck,
        access_rate_bps: access_rate,
        access_delay,
        access_queue,
    })
}

pub fn to_graph(spec: &TopologySpec) -> Option<GraphSpec> {
    let TopologySpec::Dumbbell {
        senders,
        bottleneck: b,
        access_rate_bps,
        access_delay,
        access_queue,
    } = spec
    else {
        return None;
    };
    let n = *senders;
    let mut g = GraphSpec::default();
    let node = |name: String, kind| NodeSpec { name, kind };
    g.nodes
        .extend((0..n).map(|i| node(format!("s{i}"), NodeKind::Host)));
    g.nodes
        .extend((0..n).map(|i| node(format!("r{i}"), NodeKind::Host)));
    g.nodes.push(node("sw0".into(), NodeKind::Switch));
    g.nodes.push(node("sw1".into(), NodeKind::Switch));
    g.links.push(GraphLinkSpec {
        name: "bottleneck".into(),
        from: "sw0".into(),
        to: "sw1".into(),
        rate_bps: b.rate_bps,
        delay: b.delay,
        framing: b.framing,
        queue: b.queue.clone(),
        reverse_name: "bottleneck_rev".into(),
        reverse_queue: big_queue(),
    });
    for i in 0..n {
        let d = access_delay[i.min(access_delay.len() - 1)];
        let access = |name: String, from: String, to: String, rev: String, q, rq| GraphLinkSpec {
            name,
            from,
            to,
            rate_bps: *access_rate_bps,
            delay: d,
            framing: Framing::Ethernet,
            queue: q,
            reverse_name: rev,
            reverse_queue: rq,
        };
        g.links.push(access(
            format!("s{i}_up"),
            format!("s{i}"),
            "sw0".into(),
            format!("s{i}_down"),
            access_queue.clone(),
            big_queue(),
        ));
        g.links.push(access(
            format!("r{i}_down"),
            "sw1".into(),
            format!("r{i}"),
            format!("r{i}_up"),
            big_queue(),
            access_queue.clone(),
        ));
    }
    Some(g)
}
