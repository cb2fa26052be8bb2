//! docs/outputs.md describes every file cclab writes: this runs cclab as a user would (a
//! run with every series, plot, a capture, pings and queries; a reproduction with plots)
//! and fails when a file, a CSV column (in its order) or a JSON key it wrote is not
//! documented there.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/outputs.md");

fn cclab(args: &[&str]) {
    let o = common::cclab(args);
    assert!(
        o.status.success(),
        "cclab {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A temporary folder of this test process, removed when dropped: at the end of the
/// test, and when an assertion fails first.
struct Tmp(PathBuf);

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Tmp {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Tmp {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

fn tmpdir(name: &str) -> Tmp {
    let d = std::env::temp_dir().join(format!("cclab-outdoc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    Tmp(d)
}

/// `cclab run examples/EXAMPLE --quiet` into a fresh folder named after `name`, with each
/// of `sets` as a `--set`; the folder.
fn run_example(example: &str, name: &str, sets: &[&str]) -> Tmp {
    let dir = tmpdir(name);
    let (path, out) = (common::example(example), dir.display().to_string());
    let mut args = vec!["run", path.as_str(), "--quiet", "--out", out.as_str()];
    for s in sets {
        args.extend(["--set", s]);
    }
    cclab(&args);
    dir
}

/// The text of the section whose heading (any level) starts with `` `title` ``, up to the
/// next heading of that level or above.
fn section<'a>(doc: &'a str, title: &str) -> &'a str {
    let head = doc
        .lines()
        .find(|l| {
            l.starts_with('#')
                && l.trim_start_matches('#')
                    .trim()
                    .starts_with(&format!("`{title}"))
        })
        .unwrap_or_else(|| panic!("docs/outputs.md has no section `{title}`"));
    let level = head.chars().take_while(|&c| c == '#').count();
    let start = doc.find(head).unwrap() + head.len();
    let rest = &doc[start..];
    let end = rest
        .lines()
        .filter(|l| l.starts_with('#') && l.chars().take_while(|&c| c == '#').count() <= level)
        .map(|l| rest.find(l).unwrap())
        .next()
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The first cells of a section's table rows (the documented columns, in order).
fn table_names(sec: &str) -> Vec<String> {
    sec.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l[2..]
                .split('|')
                .next()
                .unwrap()
                .trim()
                .trim_matches('`')
                .to_string()
        })
        .collect()
}

/// Every object key in `v`, at any depth.
fn keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn documented(sec: &str, key: &str, what: &str) {
    assert!(
        sec.contains(&format!("`{key}`")),
        "{what}: `{key}` is not in its section of docs/outputs.md"
    );
}

/// The documented name of a file: numbered and named files by their pattern.
fn pattern(name: &str) -> String {
    if name.starts_with("tsg_flow") && name.ends_with(".svg") {
        "tsg_flow<i>.svg".into()
    } else if name.ends_with(".pcap") {
        "<name>.pcap".into()
    } else {
        name.into()
    }
}

/// The header of the CSV file at `path` is the column table of its section `name`.
fn csv_matches_doc(doc: &str, path: &Path, name: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let header: Vec<String> = text
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    assert_eq!(
        header,
        table_names(section(doc, name)),
        "{name}: its columns and docs/outputs.md's table differ"
    );
}

#[test]
fn every_file_column_and_key_cclab_run_writes_is_documented() {
    let doc = std::fs::read_to_string(DOC).unwrap();
    let run_section = section(&doc, "cclab run");
    // The dumbbell with every series, plots, a time-sequence trace, a capture and a ping;
    // the incast example for query results.
    let out = tmpdir("run");
    let o = out.display().to_string();
    cclab(&[
        "run",
        &common::example("dumbbell.toml"),
        "--quiet",
        "--out",
        &o,
        "--set",
        "sim.duration=2s",
        "--set",
        "output.tsg=[0]",
        "--set",
        "output.cc=100ms",
        "--pcap",
        "s0",
    ]);
    let inc = tmpdir("incast");
    cclab(&[
        "run",
        &common::example("incast.toml"),
        "--quiet",
        "--out",
        &inc.display().to_string(),
    ]);
    // A workload for the flow-completion tables.
    let wl = tmpdir("workload");
    cclab(&[
        "run",
        &common::example("workload.toml"),
        "--quiet",
        "--out",
        &wl.display().to_string(),
        "--set",
        "sim.duration=20ms",
        "--set",
        "workload.0.stop=15ms",
    ]);
    for f in ["fct.csv", "fct_buckets.csv"] {
        documented(run_section, f, "file");
        csv_matches_doc(&doc, &wl.join(f), f);
        let pq = f.replace(".csv", ".parquet");
        documented(run_section, &pq, "file");
        assert!(std::fs::read(wl.join(&pq)).unwrap().starts_with(b"PAR1"));
    }

    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for f in [
        "run.json",
        "summary.json",
        "perf.json",
        "flows.csv",
        "queues.csv",
        "cwnd.csv",
        "cc.csv",
        "queue.csv",
        "throughput.csv",
        "tsg.csv",
        "cwnd.svg",
        "tsg_flow0.svg",
        "s0.pcap",
    ] {
        assert!(
            names.contains(&f.to_string()),
            "the run wrote no {f}: {names:?}"
        );
    }
    for f in &names {
        documented(run_section, &pattern(f), "file");
        if f.ends_with(".csv") {
            csv_matches_doc(&doc, &out.join(f), f);
        }
    }
    // Linux: what the kernel gave in huge pages is measured (0 where it gave none).
    #[cfg(target_os = "linux")]
    assert!(json(&out.join("perf.json"))["huge_pages_mib"].is_number());
    for f in ["run.json", "perf.json"] {
        let mut ks = Vec::new();
        keys(&json(&out.join(f)), &mut ks);
        for k in ks {
            documented(section(&doc, f), &k, f);
        }
    }
    // The keys only some runs have: a policer's counters, ocbr flows (with their
    // statistics series) and UDP flows.
    let pol = run_example("policer.toml", "police", &["sim.duration=50ms"]);
    let ocbr = run_example(
        "mbecn_star.toml",
        "ocbr",
        &["sim.duration=1200ms", "ocbr.0.stats_every=100ms"],
    );
    let udp = run_example(
        "dumbbell.toml",
        "udp",
        &[
            "sim.duration=1100ms",
            "udp.0.from=s0",
            "udp.0.to=r0",
            "udp.0.rate=10Mbps",
            "udp.0.interval=10ms",
        ],
    );
    let has = |dir: &Path, k: &str| json(&dir.join("summary.json")).to_string().contains(k);
    assert!(has(&pol, "\"police\"") && has(&ocbr, "\"stats_series\"") && has(&udp, "\"udp\""));
    // summary.json: flows and queues are the CSV tables' columns; the rest its own.
    for dir in [&out, &inc, &pol, &ocbr, &udp] {
        let v = json(&dir.join("summary.json"));
        for (k, x) in v.as_object().unwrap() {
            documented(section(&doc, "summary.json"), k, "summary.json");
            let sec = match k.as_str() {
                "flows" => section(&doc, "flows.csv"),
                "queues" => section(&doc, "queues.csv"),
                _ => section(&doc, "summary.json"),
            };
            let mut ks = Vec::new();
            keys(x, &mut ks);
            for k2 in ks {
                // A policer's counters are documented in the summary, not in queues.csv.
                let sec = if k == "queues"
                    && ["police", "conformed", "exceeded"].contains(&k2.as_str())
                {
                    section(&doc, "summary.json")
                } else {
                    sec
                };
                documented(sec, &k2, &format!("summary.json {k}"));
            }
        }
    }
    // Every table of every run above: its file (CSV and Parquet) documented, its CSV
    // columns those of its section, in order.
    let mut tables = std::collections::BTreeSet::new();
    for dir in [&out, &inc, &wl, &pol, &ocbr, &udp] {
        for e in std::fs::read_dir(&**dir).unwrap() {
            let f = e.unwrap().file_name().to_string_lossy().into_owned();
            documented(run_section, &pattern(&f), "file");
            if let Some(t) = f.strip_suffix(".csv") {
                csv_matches_doc(&doc, &dir.join(&f), &f);
                assert!(std::fs::read(dir.join(format!("{t}.parquet")))
                    .unwrap()
                    .starts_with(b"PAR1"));
                tables.insert(t.to_string());
            }
        }
    }
    // Every table `cclab run` can write (the code's own list): a new table fails here
    // until a run above writes it and docs/outputs.md describes it.
    let every: std::collections::BTreeSet<String> = cclab::report::table::table_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(tables, every, "every table checked");
    for dir in [&out, &inc] {
        assert!(!json(&dir.join("summary.json"))["pings"]
            .as_array()
            .unwrap()
            .is_empty());
    }
    assert!(!json(&inc.join("summary.json"))["aggregates"]
        .as_array()
        .unwrap()
        .is_empty());
}

/// The rows of the table under the heading `### Quantities of `cc.csv``: (algorithms,
/// quantity).
fn cc_quantities(doc: &str) -> Vec<(Vec<String>, String)> {
    let head = "### Quantities of `cc.csv`";
    let start = doc
        .find(head)
        .expect("docs/outputs.md has no section Quantities of cc.csv");
    let rest = &doc[start + head.len()..];
    let end = rest.find("\n#").unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let ccs = cells[1]
                .split(',')
                .map(|c| c.trim().trim_matches('`').to_string());
            (ccs.collect(), cells[2].trim_matches('`').to_string())
        })
        .collect()
}

/// Every algorithm's quantities in `cc.csv` (`CongestionOps::state_vars`) are those
/// docs/outputs.md lists for it, in its order; and a run writes them, each flow's in that
/// order at every sample.
#[test]
fn the_cc_series_quantities_are_documented_and_written() {
    use cclab::cc::{Cc, CcOptions, CongestionOps, CC_NAMES};
    let doc = std::fs::read_to_string(DOC).unwrap();
    let rows = cc_quantities(&doc);
    for (ccs, _) in &rows {
        for c in ccs {
            assert!(
                CC_NAMES.contains(&c.as_str()),
                "docs/outputs.md names no algorithm {c}"
            );
        }
    }
    let documented = |name: &str| -> Vec<String> {
        (rows.iter())
            .filter(|(ccs, _)| ccs.iter().any(|c| c == name))
            .map(|(_, q)| q.clone())
            .collect()
    };
    for name in CC_NAMES {
        let c = Cc::new(name, &CcOptions::default()).unwrap();
        let code: Vec<&str> = c.state_vars().iter().map(|v| v.name).collect();
        assert_eq!(documented(name), code, "{name}: cc.csv's quantities");
    }
    // Two flows of two algorithms: each sample of each has its algorithm's quantities.
    let out = run_example(
        "dumbbell.toml",
        "cc",
        &[
            "sim.duration=300ms",
            "output.cc=50ms",
            "flow.1.cc=htcp",
            "flow.1.start=0s",
        ],
    );
    let text = std::fs::read_to_string(out.join("cc.csv")).unwrap();
    let mut seen: Vec<(String, String, String, Vec<String>)> = Vec::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let key = (f[1].to_string(), f[2].to_string(), f[3].to_string());
        match seen.last_mut() {
            Some(s) if (&s.0, &s.1, &s.2) == (&key.0, &key.1, &key.2) => s.3.push(f[4].into()),
            _ => seen.push((key.0, key.1, key.2, vec![f[4].into()])),
        }
    }
    let ccs: std::collections::BTreeSet<&str> = seen.iter().map(|s| s.2.as_str()).collect();
    assert_eq!(ccs.into_iter().collect::<Vec<_>>(), ["cubic", "htcp"]);
    assert!(seen.len() >= 10, "{seen:?}");
    for (t, flow, cc, names) in &seen {
        assert_eq!(names, &documented(cc), "t {t} flow {flow}");
    }
}

#[test]
fn every_file_and_key_cclab_reproduce_writes_is_documented() {
    let doc = std::fs::read_to_string(DOC).unwrap();
    let sec = section(&doc, "cclab reproduce");
    let out = tmpdir("reproduce");
    cclab(&[
        "reproduce",
        "dctcp-k",
        "--quick",
        "--out",
        &out.display().to_string(),
    ]);
    for e in std::fs::read_dir(&out).unwrap() {
        let f = e.unwrap().file_name().to_string_lossy().into_owned();
        let pat = if f == "run.json" {
            f.clone()
        } else if f.starts_with("dctcp-k.") {
            f.replacen("dctcp-k", "<experiment>", 1)
        } else {
            assert!(f.ends_with(".svg"), "{f}");
            "<plot>.svg".into()
        };
        documented(sec, &pat, "reproduce file");
        if f.ends_with(".json") {
            let mut ks = Vec::new();
            keys(&json(&out.join(&f)), &mut ks);
            for k in ks {
                documented(
                    if f == "run.json" {
                        section(&doc, "run.json")
                    } else {
                        sec
                    },
                    &k,
                    &f,
                );
            }
        }
    }
}

/// `cclab bench` prints what it measured on this machine, never a peer's time it did not
/// measure (it printed "ns-3 ~30 s").
#[test]
fn bench_prints_only_what_it_measures() {
    for args in [
        &["bench"][..],
        &["bench", "--json"][..],
        &["bench", "--json", "--senders", "--rounds", "1"][..],
    ] {
        let o = common::cclab(args);
        assert!(o.status.success());
        let text = String::from_utf8_lossy(&o.stdout);
        for peer in ["ns-3", "ns3", "htsim"] {
            assert!(!text.contains(peer), "{args:?} names {peer}:\n{text}");
        }
        assert!(text.contains("dctcp10"), "{text}");
        if args.contains(&"--json") {
            let doc = std::fs::read_to_string(DOC).unwrap();
            let mut ks = Vec::new();
            keys(&serde_json::from_str(&text).unwrap(), &mut ks);
            for k in ks {
                documented(section(&doc, "cclab bench"), &k, "bench --json");
            }
        }
    }
}
