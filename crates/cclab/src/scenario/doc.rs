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
}
