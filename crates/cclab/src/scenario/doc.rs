//! The key tables of docs/scenario.md, generated from the components' declarations, and
//! the plain list `cclab list --keys` prints.
//!
//! docs/scenario.md keeps its prose by hand; each table sits between
//! `<!-- keys: NAME -->` and `<!-- end keys -->`, where NAME is one of [`SECTIONS`]. A test
//! fails when the file is stale; `CCLAB_BLESS=1 cargo test -p cclab --lib scenario_doc`
//! rewrites it.

use super::schema::{markdown, Schema, Ty};

/// The generated sections: (marker name, schema, heading level of its variants).
pub static SECTIONS: &[(&str, &Schema, usize)] = &[
    ("top", &super::parse::TOP, 3),
    ("traffic", &crate::app::TRAFFIC, 3),
    ("sim", &super::parse::SIM, 3),
    ("topology", &crate::net::topology::TOPOLOGY, 3),
    ("link", &crate::net::topology::LINK, 4),
    ("rate-table", &crate::net::dynamics::RATE_KEYS, 4),
    ("markov-table", &crate::net::dynamics::MARKOV_KEYS, 4),
    ("onoff-table", &crate::net::dynamics::ONOFF_KEYS, 4),
    ("queue", &crate::qdisc::QUEUE, 4),
    ("class", &crate::qdisc::classful::CLASS, 4),
    ("police-table", &crate::qdisc::police::POLICE, 4),
    ("tbf-table", &crate::qdisc::tbf::TBF, 4),
    ("netem-table", &crate::qdisc::netem::NETEM, 4),
    ("htb-table", &crate::qdisc::htb::HTB, 4),
    ("graph-link", &crate::net::topology::graph::GRAPH_LINK, 4),
    ("reverse", &crate::net::topology::graph::REVERSE_KEYS, 4),
    ("host", &crate::net::host::KEYS, 3),
    ("tcp", &crate::tcp::config::TCP, 3),
    ("cc", &crate::cc::OPTIONS, 3),
    ("flow", &crate::app::bulk::KEYS, 3),
    ("ping", &crate::app::ping::KEYS, 3),
    ("udp", &crate::app::udp::KEYS, 3),
    ("ocbr", &crate::app::ocbr::KEYS, 3),
    ("workload", &crate::app::workload::KEYS, 3),
    ("aggregate", &crate::app::reqresp::KEYS, 3),
    ("loss", &crate::net::loss::KEYS, 3),
    ("event", &crate::net::dynamics::events::KEYS, 3),
    ("drop", &crate::net::loss::DROP, 3),
    ("police", &crate::net::ingress::KEYS, 3),
    ("output", &crate::probe::KEYS, 3),
    ("plot", &crate::probe::PLOT_KEYS, 3),
    ("axes", &crate::probe::AXES, 4),
];

/// The generated text of section `name`.
pub fn section(name: &str) -> Option<String> {
    SECTIONS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, s, level)| markdown(s, *level))
}

/// docs/scenario.md's text with every generated section brought up to date.
pub fn regenerate(doc: &str) -> Result<String, String> {
    super::schema::regenerate(doc, section)
}

/// Every key of a scenario file, one per line with its type and default: what
/// `cclab list --keys` prints.
pub fn key_list() -> String {
    let mut out = String::new();
    walk("", &super::parse::TOP, None, &mut out, &mut Vec::new());
    out
}

/// Print the keys of `s` below `prefix`. `inside` is the variant whose key led here (a
/// `dscp` queue's `classes`): the table does not take that variant's own keys again.
fn walk(
    prefix: &str,
    s: &'static Schema,
    inside: Option<&str>,
    out: &mut String,
    seen: &mut Vec<*const Schema>,
) {
    if seen.contains(&(s as *const Schema)) {
        return;
    }
    seen.push(s);
    for k in s.all_keys() {
        let owners = s.owners_of(k.name);
        if inside.is_some_and(|v| owners == [v]) {
            continue;
        }
        // The variant this key belongs to alone, if any: its tables carry it on.
        let within = match owners.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        let path = if prefix.is_empty() {
            k.name.to_string()
        } else {
            format!("{prefix}.{}", k.name)
        };
        match k.ty {
            Ty::Table(t) => walk(&path, t, within, out, seen),
            Ty::Tables(t) => walk(&format!("{path}.N"), t, within, out, seen),
            _ => {
                let only = match (owners.is_empty(), s.variants()) {
                    (false, Some(v)) if owners.len() < v.kinds.len() => format!(
                        "  [{} = {}]",
                        v.tag,
                        owners
                            .iter()
                            .map(|o| format!("\"{o}\""))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    ),
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "{path:40} {:24} {}{only}\n",
                    k.ty.name(),
                    k.default.replace('`', "")
                ));
            }
        }
    }
    seen.pop();
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario.md");

    /// Every schema a scenario can reach: tables, arrays of tables, included schemas and
    /// variants.
    fn reachable(s: &'static Schema, out: &mut Vec<&'static Schema>) {
        if out.iter().any(|x| std::ptr::eq(*x, s)) {
            return;
        }
        out.push(s);
        for w in s.with {
            reachable(w, out);
        }
        if let Some(v) = &s.variants {
            for (_, vs) in v.kinds {
                reachable(vs, out);
            }
        }
        for k in s.keys {
            if let Ty::Table(t) | Ty::Tables(t) = k.ty {
                reachable(t, out);
            }
        }
    }

    #[test]
    fn scenario_doc_tables_are_generated_and_current() {
        let doc = std::fs::read_to_string(DOC).unwrap_or_else(|e| panic!("{DOC}: {e}"));
        let fresh = regenerate(&doc).unwrap_or_else(|e| panic!("{DOC}: {e}"));
        if fresh != doc {
            if std::env::var_os("CCLAB_BLESS").is_some() {
                std::fs::write(DOC, &fresh).unwrap();
            } else {
                panic!(
                    "docs/scenario.md is stale: a key was added or changed. Regenerate it with\n  CCLAB_BLESS=1 cargo test -p cclab --lib scenario_doc"
                );
            }
        }
        // Every section is used, and every schema is documented: as a section, or as a
        // variant rendered inside one.
        for (name, _, _) in SECTIONS {
            assert!(
                doc.contains(&format!("<!-- keys: {name} -->")),
                "docs/scenario.md has no <!-- keys: {name} --> section"
            );
        }
        let mut all = Vec::new();
        reachable(&super::super::parse::TOP, &mut all);
        let mut shown: Vec<&'static Schema> = Vec::new();
        for (_, s, _) in SECTIONS {
            shown.push(*s);
            if let Some(v) = &s.variants {
                shown.extend(v.kinds.iter().map(|(_, vs)| *vs));
            }
        }
        for s in all {
            assert!(
                shown.iter().any(|x| std::ptr::eq(*x, s))
                    || (s.keys.is_empty() && s.variants.is_none()),
                "schema '{}' is in no section of docs/scenario.md",
                s.title
            );
        }
    }

    /// The table of congestion control names is written by hand (a sentence per
    /// algorithm): every registered name has its row.
    #[test]
    fn every_cc_name_is_in_the_names_table() {
        let doc = std::fs::read_to_string(DOC).unwrap_or_else(|e| panic!("{DOC}: {e}"));
        let table = doc
            .split("Congestion control names")
            .nth(1)
            .and_then(|t| t.split("\n\n").find(|p| p.starts_with("| `cc` |")))
            .expect("docs/scenario.md: the table of congestion control names");
        for name in crate::cc::CC_NAMES {
            assert!(
                table.contains(&format!("\n| `{name}` |")),
                "docs/scenario.md: `{name}` has no row in the table of congestion control names"
            );
        }
    }

    #[test]
    fn the_key_list_names_every_table() {
        let list = key_list();
        for k in [
            "sim.duration",
            "topology.bottleneck.rate",
            "topology.links.N.reverse.limit",
            "tcp.hystart",
            "flow.N.cc",
            "loss.N.drop_nth.N.n",
            "output.pcap",
        ] {
            assert!(list.contains(k), "{k} missing from:\n{list}");
        }
    }

    /// The rows of docs/scenario.md's key tables: (key, default cell, allowed cell).
    fn doc_rows(doc: &str) -> Vec<(String, String, String)> {
        doc.lines()
            .filter(|l| l.starts_with("| `"))
            .filter_map(|l| {
                let c: Vec<&str> = l.split(" | ").collect();
                (c.len() >= 5).then(|| {
                    (
                        c[0].trim_start_matches("| ").trim_matches('`').to_string(),
                        c[2].to_string(),
                        c[3].to_string(),
                    )
                })
            })
            .collect()
    }

    /// f13, limits: every integer or byte range a key's type enforces is the one its row
    /// in docs/scenario.md states (before: fat-tree `k` said "an even number" where the
    /// checker allows 2 to 64, `hosts_per_leaf` "at most 100,000 hosts" where it allows
    /// 1 to 1024 per leaf).
    #[test]
    fn f13_every_range_the_checker_enforces_is_the_documented_one() {
        let doc = std::fs::read_to_string(DOC).unwrap();
        let rows = doc_rows(&doc);
        let mut all = Vec::new();
        reachable(&crate::scenario::parse::TOP, &mut all);
        let mut n = 0;
        for s in all {
            for k in s.keys {
                if !matches!(k.ty, Ty::Int(_, hi) if hi < i64::MAX)
                    && !matches!(k.ty, Ty::Bytes(..))
                {
                    continue;
                }
                let range = k.ty.allowed();
                let row = rows.iter().find(|(name, _, allowed)| {
                    name == k.name && allowed == &super::super::schema::allowed_cell(k)
                });
                let (_, _, allowed) =
                    row.unwrap_or_else(|| panic!("{}: key {} has no row", s.title, k.name));
                assert!(
                    allowed.contains(&range),
                    "{} `{}`: the checker allows {range}; the docs say {allowed:?}",
                    s.title,
                    k.name
                );
                n += 1;
            }
        }
        assert!(n > 20, "{n} ranged keys");
    }

    /// f13, defaults: every queue discipline's `limit` default in its key table is the
    /// limit the parser gives a queue table without one, on a link and in a queue table
    /// (before: fq_codel's said "1000pkts" on a link, "10000pkts" in a queue table, and
    /// the code, as Linux's `sch_fq_codel`, gives 10240; CoDel's said 10000 in a queue
    /// table where the code, as Linux's `sch_codel`, gives 1000).
    #[test]
    fn f13_every_queue_limit_default_is_the_one_the_parser_gives() {
        use crate::scenario::Limit;
        use crate::schema::check::{Checker, Tab};
        let shared = crate::qdisc::droptail::LIMIT.default;
        let mut tested = Vec::new();
        for (kind, schema) in crate::qdisc::QUEUE.variants().unwrap().kinds {
            let Some(key) = schema.keys.iter().find(|k| k.name == "limit") else {
                continue;
            };
            for given in [Limit::Packets(1000), Limit::Packets(10_000)] {
                let want = if key.default == shared {
                    given
                } else if let Some(n) = key
                    .default
                    .strip_prefix("`\"")
                    .and_then(|d| d.split_once("pkts\"`"))
                    .and_then(|(n, _)| n.parse().ok())
                {
                    Limit::Packets(n)
                } else {
                    continue; // a default in words (a required limit, a size): not generated
                };
                let mut t = toml::Table::new();
                t.insert("queue".into(), toml::Value::String(kind.to_string()));
                let mut ck = Checker {
                    file: "t.toml",
                    from_cli: Vec::new(),
                    errors: Vec::new(),
                    hosts: None,
                    links: None,
                    recorded: &[],
                };
                let q = crate::qdisc::parse(&mut ck, Tab { path: "q", t: &t }, given);
                if !ck.errors.is_empty() {
                    continue; // the discipline needs more keys than `queue`
                }
                assert_eq!(q.limit(), want, "{kind}: documented {:?}", key.default);
                tested.push(*kind);
            }
        }
        for k in ["droptail", "fq", "codel", "fq_codel"] {
            assert!(tested.contains(&k), "{k} untested: {tested:?}");
        }
    }

    /// f13, names: the link names docs/scenario.md's "Host and link names" table gives
    /// for fat-tree, leaf-spine and graph are the names the topologies have (before, the
    /// table had no row for fat-tree or leaf-spine, and no graph default name).
    #[test]
    fn f13_documented_link_names_are_the_topologies_names() {
        let doc = std::fs::read_to_string(DOC).unwrap();
        let names = |topology: &str| -> Vec<String> {
            let text = format!("[sim]\nduration = \"1s\"\n[topology]\n{topology}\n");
            let s = crate::scenario::parse_scenario(&text, "t.toml", &[])
                .unwrap_or_else(|e| panic!("{topology}: {e:?}"));
            s.topology.link_names()
        };
        let link = "{ rate = \"1Gbps\", delay = \"1us\" }";
        let cases = [
            (
                format!("kind = \"fat-tree\"\nk = 4\nlink = {link}"),
                "| fat-tree |",
                vec!["h0_up", "h15_down", "e0_0_a0_0", "a0_0_e0_0", "a0_0_c0", "c0_a0_0", "a3_1_c3"],
            ),
            (
                format!("kind = \"leaf-spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nhost_link = {link}\nfabric_link = {link}"),
                "| leaf-spine |",
                vec!["h0_up", "h3_down", "l0_sp0", "sp1_l1"],
            ),
            (
                format!("kind = \"graph\"\nhosts = [\"a\", \"b\"]\nswitches = [\"s\"]\nlinks = [{{ from = \"a\", to = \"s\", rate = \"1Gbps\", delay = \"{d}\" }}, {{ from = \"s\", to = \"b\", rate = \"1Gbps\", delay = \"{d}\" }}]", d = "1us"),
                "| graph |",
                vec!["a_s", "a_s_rev", "s_b", "s_b_rev"],
            ),
        ];
        for (topology, row, want) in cases {
            let got = names(&topology);
            let row = doc
                .lines()
                .find(|l| l.starts_with(row))
                .unwrap_or_else(|| panic!("no row {row}"));
            for w in want {
                assert!(got.iter().any(|g| g == w), "{row}: no link {w} in {got:?}");
            }
            // Every documented pattern's literal parts appear in some name.
            for pat in ["_up", "_down"] {
                if row.contains(pat) {
                    assert!(got.iter().any(|g| g.ends_with(pat)), "{row}: {pat}");
                }
            }
        }
        assert!(doc.contains("default `{from}_{to}`"));
    }
}
