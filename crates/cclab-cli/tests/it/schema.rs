//! One table schema (issue 52, findings 10 and 11): `cclab run`, a sweep's point and
//! Python write the same tables (report/table.rs) with the same column names, units in
//! the names, one meaning per name (`fct` is first byte sent → last byte delivered), and
//! a partition/aggregate app's workers are not sized flows (the query is the unit).

use crate::common;

use common::assert_exit_0;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `cclab ARGS` (the binary `CCLAB_BIN` names when set: how these tests were checked
/// against the binary from before issue 52).
fn cclab(args: &[&str]) -> Output {
    let bin = std::env::var("CCLAB_BIN").unwrap_or(env!("CARGO_BIN_EXE_cclab").into());
    Command::new(bin)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cclab runs")
}

/// A small scenario with every kind of table: a sized flow (sub-millisecond FCT), a bulk
/// flow, a partition/aggregate app, a ping, and every series.
pub const MIX: &str = r#"
[sim]
name = "mix"
duration = "60ms"
seed = 3

[topology]
kind = "star"
senders = 4
link = { rate = "1Gbps", delay = "5us", queue = "droptail", limit = "100pkts" }

[[flow]]
from = "s0"
to = "recv"
bytes = "20KB"

[[flow]]
from = "s1"
to = "recv"
start = "1ms"

[[aggregate]]
aggregator = "recv"
workers = ["s2", "s3"]
response = "30KB"
queries = 3
think = "2ms"

[[ping]]
from = "s0"
to = "recv"
interval = "5ms"

[output]
cwnd = "1ms"
queue = "1ms"
throughput = "10ms"
queues = ["bottleneck"]
tsg = [0]
plots = false
"#;

/// A fresh folder of this test process, removed when dropped.
struct Tmp(PathBuf);

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmpdir(name: &str) -> Tmp {
    let d = std::env::temp_dir().join(format!("cclab-schema-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Tmp(d)
}

/// `cclab run FILE --out OUT -q` plus `args`; its stdout.
fn run(file: &Path, out: &Path, args: &[&str]) -> String {
    let mut a = vec![
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    a.extend(args);
    let o = cclab(&a);
    assert_exit_0(&o);
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The CSV files of a folder: name → rows of cells (a quoted cell with commas, the `ss`
/// line, is kept whole).
fn csvs(dir: &Path) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(t) = name.strip_suffix(".csv") {
            let text = std::fs::read_to_string(dir.join(&name)).unwrap();
            out.insert(t.to_string(), text.lines().map(cells).collect());
        }
    }
    out
}

fn cells(line: &str) -> Vec<String> {
    let (mut v, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c)
            }
            ',' if !quoted => v.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    v.push(cur);
    v
}

fn col(t: &[Vec<String>], name: &str) -> usize {
    t[0].iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", t[0]))
}

/// f10: `cclab run` and a one-point `cclab sweep` of the same scenario write the same
/// tables (each as CSV and Parquet), the same columns and values; the sweep's only add
/// `seed` after `run_id`. (Python's `cclab.run` against `cclab run`:
/// python/tests/test_schema.py.)
#[test]
fn f10_a_run_and_a_one_point_sweep_write_the_same_tables() {
    let d = tmpdir("same");
    let file = d.0.join("mix.toml");
    std::fs::write(&file, MIX).unwrap();
    let swept = d.0.join("mix_sweep.toml");
    std::fs::write(&swept, format!("{MIX}\n[sweep]\nseeds = [3]\n")).unwrap();
    let (r, s) = (d.0.join("run"), d.0.join("sweep"));
    run(&file, &r, &["-q"]);
    let o = cclab(&[
        "sweep",
        swept.to_str().unwrap(),
        "--out",
        s.to_str().unwrap(),
        "-q",
    ]);
    assert_exit_0(&o);
    let (rt, st) = (csvs(&r), csvs(&s));
    assert_eq!(
        rt.keys().collect::<Vec<_>>(),
        st.keys().collect::<Vec<_>>(),
        "the same tables"
    );
    for name in [
        "runs",
        "flows",
        "fct",
        "fct_buckets",
        "queues",
        "pings",
        "queries",
        "hosts",
        "cwnd",
        "queue",
        "throughput",
        "tsg",
    ] {
        let (a, b) = (&rt[name], &st[name]);
        assert!(a.len() > 1, "{name}: rows");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let mut y = y.clone();
            let seed = y.remove(1);
            assert_eq!(seed, if i == 0 { "seed" } else { "3" }, "{name}");
            assert_eq!(x, &y, "{name}: row {i} of the run and of the sweep");
        }
        assert_eq!(a.len(), b.len(), "{name}");
        for dir in [&r, &s] {
            let pq = std::fs::read(dir.join(format!("{name}.parquet"))).unwrap();
            assert!(pq.starts_with(b"PAR1") && pq.ends_with(b"PAR1"), "{name}");
        }
    }
}

/// f10: one convention (SI, units in the names), and `fct` means one thing: first byte
/// sent → last byte delivered, in flows.csv, fct.csv and summary.json alike; the time to
/// the last ACK is `acked_s`.
#[test]
fn f10_fct_is_last_byte_delivered_everywhere_and_units_are_one_convention() {
    let d = tmpdir("fct");
    let file = d.0.join("mix.toml");
    std::fs::write(&file, MIX).unwrap();
    let out = d.0.join("run");
    run(&file, &out, &["-q"]);
    let t = csvs(&out);
    for (name, rows) in &t {
        for c in &rows[0] {
            assert!(
                !c.ends_with("_ms") && !c.ends_with("_mbps") && c != "t" && c != "id",
                "{name}.csv: column {c} is not in the one convention (_s, _bps, _bytes)"
            );
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let (flows, fct) = (&t["flows"], &t["fct"]);
    let sized = flows
        .iter()
        .position(|r| r[col(flows, "size_bytes")] == "20000")
        .expect("the sized flow");
    let f_fct = &flows[sized][col(flows, "fct_s")];
    let f_acked = &flows[sized][col(flows, "acked_s")];
    assert_eq!(fct.len(), 2, "one sized flow");
    assert_eq!(&fct[1][col(fct, "fct_s")], f_fct);
    assert_eq!(&fct[1][col(fct, "acked_s")], f_acked);
    let js = &summary["flows"][sized - 1];
    assert_eq!(js["fct_s"].as_f64().unwrap(), f_fct.parse::<f64>().unwrap());
    assert_eq!(
        js["acked_s"].as_f64().unwrap(),
        f_acked.parse::<f64>().unwrap()
    );
    assert!(f_acked.parse::<f64>().unwrap() > f_fct.parse::<f64>().unwrap());
    // The values are summary.json's, unconverted.
    let good = &flows[sized][col(flows, "goodput_bps")];
    assert_eq!(
        js["goodput_bps"].as_f64().unwrap(),
        good.parse::<f64>().unwrap()
    );
    let q = &t["queries"];
    assert_eq!(
        q[1][col(q, "qct_mean_s")].parse::<f64>().unwrap(),
        summary["aggregates"][0]["qct_mean_s"].as_f64().unwrap()
    );
    // An unset ssthresh and an RTT before the first sample are nulls in cwnd.csv.
    let c = &t["cwnd"];
    assert_eq!(c[1][col(c, "ssthresh")], "");
    assert_eq!(c[1][col(c, "srtt_s")], "");
}

/// f10: the terminal prints a completion time with a unit that keeps its precision
/// (`570.1 µs`), not `0.0006 s`.
#[test]
fn f10_terminal_prints_times_with_a_unit_that_keeps_their_precision() {
    let d = tmpdir("terminal");
    let file = d.0.join("mix.toml");
    std::fs::write(&file, MIX).unwrap();
    let stdout = run(&file, &d.0.join("run"), &[]);
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("0  s0→recv"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(row.trim_end().ends_with(" µs"), "{row}");
    assert!(!row.contains(" s "), "{row}");
}

/// f11: the workers of a partition/aggregate app are not sized flows: no fct row or
/// slowdown for them, no "sized flows" line; the query is the unit (`queries.csv`).
#[test]
fn f11_incast_workers_are_not_sized_flows() {
    let d = tmpdir("incast");
    let out = d.0.join("run");
    let stdout = run(
        Path::new(&common::example("incast.toml")),
        &out,
        &[
            "--set",
            "sim.duration=400ms",
            "--set",
            "topology.senders=30",
        ],
    );
    assert!(!stdout.contains("sized flows"), "{stdout}");
    assert!(stdout.contains("… 20 more; all 30 flows"), "{stdout}");
    assert!(
        !out.join("fct.csv").exists(),
        "no fct table without sized flows"
    );
    assert!(!out.join("fct_buckets.csv").exists());
    let t = csvs(&out);
    let f = &t["flows"];
    assert_eq!(f.len(), 31);
    for r in &f[1..] {
        for c in ["size_bytes", "fct_s", "ideal_fct_s", "acked_s"] {
            assert_eq!(r[col(f, c)], "", "worker flow {}: {c}", r[col(f, "flow")]);
        }
    }
    let q = &t["queries"];
    assert_eq!(q.len(), 2);
    assert!(q[1][col(q, "queries_done")].parse::<u64>().unwrap() > 0);
    assert!(q[1][col(q, "qct_mean_s")].parse::<f64>().unwrap() > 0.0);
}

/// f10: a sweep continued from point files of another table schema (cclab before issue 52
/// stored `goodput_mbps`, `fct_ms`, …) runs those points again: its tables never mix two
/// sets of names, nor keep the old ones.
#[test]
fn f10_a_sweep_continued_from_points_of_the_old_schema_runs_them_again() {
    let d = tmpdir("resume");
    let swept = d.0.join("mix_sweep.toml");
    std::fs::write(&swept, format!("{MIX}\n[sweep]\nseeds = [3, 4]\n")).unwrap();
    let out = d.0.join("sweep");
    let sweep = || {
        let o = cclab(&[
            "sweep",
            swept.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert_exit_0(&o);
    };
    sweep();
    let want = std::fs::read(out.join("flows.csv")).unwrap();
    // Make the first point's file one of the old schema: no `schema` key, old names.
    let mut points: Vec<PathBuf> = std::fs::read_dir(out.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    points.sort();
    let text = std::fs::read_to_string(&points[0]).unwrap();
    let old = text
        .replace("\"schema\":1,", "")
        .replace("\"name\":\"goodput_bps\"", "\"name\":\"goodput_mbps\"");
    assert!(
        old != text,
        "the point file has no schema 1 and no goodput_bps column"
    );
    std::fs::write(&points[0], old).unwrap();
    sweep();
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    assert!(!flows.contains("goodput_mbps"), "{flows}");
    assert_eq!(flows.as_bytes(), &want[..]);
    assert!(std::fs::read_to_string(&points[0])
        .unwrap()
        .contains("\"schema\":1,"));
}
