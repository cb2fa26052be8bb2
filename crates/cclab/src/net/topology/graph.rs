//! Any network, written out in the scenario: named hosts and switches, and duplex links
//! between them.
//!
//! ```toml
//! [topology]
//! kind = "graph"
//! hosts = ["c0", "c1", "server"]
//! switches = ["router"]
//! links = [
//!   { name = "c0_up", from = "c0", to = "router", rate = "1Gbps", delay = "50us" },
//!   { name = "c1_up", from = "c1", to = "router", rate = "1Gbps", delay = "50us" },
//!   { name = "bottleneck", from = "router", to = "server", rate = "100Mbps", delay = "1ms",
//!     queue = "droptail", limit = "100pkts" },
//! ]
//! ```
//!
//! Each link is duplex: the direction `from → to` is the port named `name`, whose queue the
//! link table sets; the reverse direction, named `{name}_rev`, has the same rate, delay and
//! framing and a queue of its own (`reverse = { queue = …, limit = … }`). Nodes are
//! numbered hosts first, then switches, in the order listed; ports in link order, each
//! link's forward port before its reverse. Hosts do not forward: paths run through
//! switches.

use super::{read_link, LINK};
use crate::net::topology::spec::GraphLinkSpec;
use crate::net::topology::spec::GraphSpec;
use crate::net::topology::spec::NodeSpec;
use crate::net::topology::spec::TopologySpec;
use crate::net::NodeKind;
use crate::qdisc::queue_kind;
use crate::qdisc::QUEUE;
use crate::schema::check::{join, type_name, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, REQUIRED};
use std::collections::BTreeSet;
use toml::Value;

const HOSTS: Key = Key {
    name: "hosts",
    ty: Ty::List(&Ty::Str),
    default: REQUIRED,
    allowed: "at least one; names unique among hosts and switches, 1 to 100 characters, not starting with `.`, without `/`, `\\` or control characters",
    meaning: "the hosts: endpoints of flows, pings and queries; they do not forward",
};
const SWITCHES: Key = Key {
    name: "switches",
    ty: Ty::List(&Ty::Str),
    default: "none",
    allowed: "names unique among hosts and switches",
    meaning: "the switches (routers): they forward along shortest paths, with ECMP",
};
const LINKS: Key = Key {
    name: "links",
    ty: Ty::Tables(&GRAPH_LINK),
    default: REQUIRED,
    allowed: "every host needs one",
    meaning: "the duplex links",
};

pub static KEYS: Schema = Schema {
    title: "Graph",
    place: "a graph topology",
    noun: "topology",
    about: "Any network: named hosts and switches, and duplex links between them. Each link's direction `from → to` is the port named `name`, whose queue the link table sets; the reverse direction, `{name}_rev`, has the same rate, delay and framing and a queue of its own (`reverse = { queue = …, limit = … }`). Nodes are numbered hosts first, then switches, in the order listed. Hosts do not forward: paths run through switches, shortest first, with ECMP per connection. A graph has no default flows.",
    keys: &[HOSTS, SWITCHES, LINKS],
    with: &[],
    variants: None,
};

const NAME: Key = Key {
    name: "name",
    ty: Ty::Str,
    default: "`\"{from}_{to}\"`",
    allowed: "unique among the links of both directions",
    meaning: "the link's name for the direction `from → to` (losses, queues, captures)",
};
const FROM: Key = Key {
    name: "from",
    ty: Ty::Str,
    default: REQUIRED,
    allowed: "a host or switch",
    meaning: "one end",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Str,
    default: REQUIRED,
    allowed: "a host or switch other than `from`",
    meaning: "the other end",
};
const REVERSE: Key = Key {
    name: "reverse",
    ty: Ty::Table(&REVERSE_KEYS),
    default: "drop-tail, `\"1000pkts\"`, named `{name}_rev`",
    allowed: "",
    meaning: "the direction `to → from`: its name and queue",
};

/// One link of a graph: its ends and name, the link keys and the forward port's queue.
pub static GRAPH_LINK: Schema = Schema {
    title: "Graph links",
    place: "a graph link",
    noun: "graph link",
    about: "",
    keys: &[NAME, FROM, TO, REVERSE],
    with: &[&LINK],
    variants: None,
};

const REVERSE_NAME: Key = Key {
    name: "name",
    ty: Ty::Str,
    default: "`\"{name}_rev\"`",
    allowed: "unique among the links of both directions",
    meaning: "the reverse direction's name",
};

/// The reverse direction of a graph link: its name and its port's queue.
pub static REVERSE_KEYS: Schema = Schema {
    title: "Reverse tables",
    place: "a reverse table",
    noun: "reverse",
    about: "",
    keys: &[REVERSE_NAME],
    with: &[&QUEUE],
    variants: None,
};

/// Is `s` usable as a node or link name (it may name output files)?
fn valid_name(s: &str) -> bool {
    crate::schema::check::plain_name(s).is_ok()
}

/// The names of list key `k` (`hosts`, `switches`), each valid and new to `seen`.
fn names(ck: &mut Checker, t: Tab, k: &Key, seen: &mut BTreeSet<String>) -> Option<Vec<String>> {
    let key = join(t.path, k.name);
    let v = t.t.get(k.name)?;
    let Value::Array(a) = v else {
        ck.err(
            &key,
            Some(v),
            format!(
                "expected an array of names (e.g. {} = [\"h0\", \"h1\"]), found {}",
                k.name,
                type_name(v)
            ),
        );
        return None;
    };
    let mut out = Vec::with_capacity(a.len());
    for (i, x) in a.iter().enumerate() {
        let path = format!("{key}.{i}");
        match x {
            Value::String(s) if !valid_name(s) => ck.err(
                &path,
                Some(x),
                crate::schema::check::plain_name(s).unwrap_err(),
            ),
            Value::String(s) if !seen.insert(s.clone()) => {
                ck.err(&path, Some(x), format!("'{s}' is named twice"))
            }
            Value::String(s) => out.push(s.clone()),
            other => ck.err(
                &path,
                Some(other),
                format!("expected a name, found {}", type_name(other)),
            ),
        }
    }
    Some(out)
}

pub fn parse(ck: &mut Checker, t: Tab) -> Option<TopologySpec> {
    let mut seen = BTreeSet::new();
    let (hosts, mut g) = nodes(ck, t, &mut seen);
    let hosts = hosts?;
    let links = links(ck, t)?;
    let key = join(t.path, LINKS.name);
    let mut link_names = BTreeSet::new();
    let mut linked = BTreeSet::new();
    for (i, v) in links.iter().enumerate() {
        let path = format!("{key}.{i}");
        let Value::Table(lt) = v else {
            ck.err(&path, Some(v), format!("expected a link table such as {{ from = \"h0\", to = \"sw\", rate = \"1Gbps\", delay = \"10us\" }}, found {}", type_name(v)));
            continue;
        };
        let lt = Tab { path: &path, t: lt };
        let l = link(ck, lt, &seen, &g.nodes, &mut link_names);
        linked.insert(l.from.clone());
        linked.insert(l.to.clone());
        g.links.push(l);
    }
    for h in &hosts {
        if !linked.contains(h) {
            ck.err(
                &join(t.path, HOSTS.name),
                t.t.get(HOSTS.name),
                format!("host \"{h}\" has no link"),
            );
        }
    }
    Some(TopologySpec::Graph(g))
}

/// The hosts (`None` when missing or empty: an error) and the graph's nodes, hosts first,
/// each name new to `seen`.
fn nodes(
    ck: &mut Checker,
    t: Tab,
    seen: &mut BTreeSet<String>,
) -> (Option<Vec<String>>, GraphSpec) {
    let hosts = match names(ck, t, &HOSTS, seen) {
        None if !t.t.contains_key(HOSTS.name) => {
            ck.missing(t, HOSTS.name, "[\"h0\", \"h1\"]");
            None
        }
        Some(h) if h.is_empty() => {
            ck.err(
                &join(t.path, HOSTS.name),
                t.t.get(HOSTS.name),
                "a graph needs at least one host".into(),
            );
            None
        }
        h => h,
    };
    let switches = names(ck, t, &SWITCHES, seen).unwrap_or_default();
    let mut g = GraphSpec::default();
    for (names, kind) in [
        (hosts.as_deref().unwrap_or_default(), NodeKind::Host),
        (&switches[..], NodeKind::Switch),
    ] {
        g.nodes.extend(names.iter().map(|n| NodeSpec {
            name: n.clone(),
            kind,
        }));
    }
    (hosts, g)
}

/// The `links` array (an error when missing or not an array).
fn links<'a>(ck: &mut Checker, t: Tab<'a>) -> Option<&'a Vec<Value>> {
    let key = join(t.path, LINKS.name);
    match t.t.get(LINKS.name) {
        None => {
            ck.missing(
                t,
                LINKS.name,
                "[{ from = \"h0\", to = \"sw\", rate = \"1Gbps\", delay = \"10us\" }]",
            );
            None
        }
        Some(Value::Array(a)) => Some(a),
        Some(v) => {
            ck.err(
                &key,
                Some(v),
                format!("expected an array of link tables, found {}", type_name(v)),
            );
            None
        }
    }
}

/// One link table: its ends (among `seen`, the nodes' names), the link keys, its name and
/// its reverse direction's, each new to `link_names`. An end in error reads as "".
fn link(
    ck: &mut Checker,
    lt: Tab,
    seen: &BTreeSet<String>,
    nodes: &[NodeSpec],
    link_names: &mut BTreeSet<String>,
) -> GraphLinkSpec {
    ck.check_keys(lt, &GRAPH_LINK, queue_kind(lt).as_deref());
    let end = |ck: &mut Checker, k: &Key| -> Option<String> {
        let v = lt.t.get(k.name);
        let name: String = ck.need(lt, k, "\"h0\"")?;
        if seen.contains(&name) {
            Some(name)
        } else {
            ck.err(
                &join(lt.path, k.name),
                v,
                format!(
                    "no host or switch named {} (the graph has: {})",
                    crate::schema::check::echo(&name),
                    crate::schema::check::name_list(
                        &nodes.iter().map(|n| n.name.clone()).collect::<Vec<_>>()
                    )
                ),
            );
            None
        }
    };
    let from = end(ck, &FROM);
    let to = end(ck, &TO);
    if let (Some(a), Some(b)) = (&from, &to) {
        if a == b {
            ck.err(
                &join(lt.path, TO.name),
                lt.t.get(TO.name),
                format!("a link joins two different nodes; both ends are \"{a}\""),
            );
        }
    }
    let link = read_link(ck, lt, Limit::Packets(1000));
    let (from, to) = (from.unwrap_or_default(), to.unwrap_or_default());
    let name = ck
        .get::<String>(lt, &NAME)
        .unwrap_or_else(|| format!("{from}_{to}"));
    let (reverse_name, reverse_queue, rpath) = reverse(ck, lt, &name);
    check_names(ck, (lt, &name), (&rpath, &reverse_name), seen, link_names);
    GraphLinkSpec {
        name,
        from,
        to,
        rate_bps: link.rate_bps,
        delay: link.delay,
        framing: link.framing,
        queue: link.queue,
        reverse_name,
        reverse_queue,
    }
}

/// The reverse direction of link `name`: its name, its queue and the path of its table.
fn reverse(ck: &mut Checker, lt: Tab, name: &str) -> (String, crate::qdisc::QueueSpec, String) {
    let (mut reverse_name, mut reverse_queue) = (
        format!("{name}_rev"),
        crate::qdisc::QueueSpec::droptail(Limit::Packets(1000)),
    );
    let rpath = join(lt.path, REVERSE.name);
    if let Some(rt) = ck.table(lt, REVERSE.name, &rpath) {
        ck.check_keys(rt, &REVERSE_KEYS, queue_kind(rt).as_deref());
        if let Some(n) = ck.get::<String>(rt, &REVERSE_NAME) {
            reverse_name = n;
        }
        reverse_queue = crate::qdisc::parse(ck, rt, Limit::Packets(1000));
    }
    (reverse_name, reverse_queue, rpath)
}

/// A link's name and its reverse direction's: each a valid name, not a node's, and new to
/// `link_names`.
fn check_names(
    ck: &mut Checker,
    (lt, name): (Tab, &String),
    (rpath, reverse_name): (&str, &String),
    seen: &BTreeSet<String>,
    link_names: &mut BTreeSet<String>,
) {
    // The reverse direction's default name follows the link's: one mistake, one error.
    let default_reverse = *reverse_name == format!("{name}_rev");
    let mut name_ok = true;
    for (n, at, own) in [
        (name, join(lt.path, NAME.name), true),
        (reverse_name, join(rpath, REVERSE_NAME.name), false),
    ] {
        if !own && !name_ok && default_reverse {
            continue;
        }
        let v = Value::String(n.clone());
        if !valid_name(n) {
            ck.err(
                &at,
                Some(&v),
                crate::schema::check::plain_name(n).unwrap_err(),
            );
            name_ok &= !own;
        } else if seen.contains(n.as_str()) {
            ck.err(&at, Some(&v), format!("\"{n}\" names a host or switch; a link needs a name of its own (captures and results name both)"));
            name_ok &= !own;
        } else if !link_names.insert(n.clone()) {
            ck.err(&at, Some(&v), format!("the link name \"{n}\" is used twice; names must be unique across both directions of every link"));
            name_ok &= !own;
        }
    }
}

pub fn to_graph(spec: &TopologySpec) -> Option<GraphSpec> {
    match spec {
        TopologySpec::Graph(g) => Some(g.clone()),
        _ => None,
    }
}
