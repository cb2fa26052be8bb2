//! `cclab sweep` end to end: the same tables whatever the number of jobs, a point is the
//! run `cclab run --set … --seed …` makes, a sweep killed midway continues without losing
//! or repeating a finished point, and bad input is refused before anything runs.

use crate::common;

use common::{assert_exit_0, cclab, example};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-sweep-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Every file of a folder (recursively), by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn sweep(file: &str, out: &Path, jobs: &str) -> std::process::Output {
    cclab(&[
        "sweep",
        file,
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        jobs,
    ])
}

#[test]
fn tables_are_identical_with_one_job_and_two() {
    let (a, b) = (tmpdir("j1"), tmpdir("j2"));
    let f = example("sweep.toml");
    assert_exit_0(&sweep(&f, &a, "1"));
    assert_exit_0(&sweep(&f, &b, "2"));
    let (fa, fb) = (files(&a), files(&b));
    // sweep.json records the command line, which differs; everything else is the same.
    let tables: Vec<&String> = fa.keys().filter(|k| *k != "sweep.json").collect();
    assert_eq!(
        tables,
        fb.keys().filter(|k| *k != "sweep.json").collect::<Vec<_>>()
    );
    for k in &tables {
        assert!(
            fa[*k] == fb[*k],
            "{k} differs between --jobs 1 and --jobs 2"
        );
    }
    // 3 × 2 values × 5 seeds: 30 points, each a file, each a row of runs.csv.
    assert_eq!(
        tables.iter().filter(|k| k.starts_with("points/")).count(),
        30
    );
    let runs = String::from_utf8(fa["runs.csv"].clone()).unwrap();
    assert_eq!(runs.lines().count(), 31);
    assert!(runs.starts_with(
        "run_id,seed,tcp.cc,topology.link.classes.0.k,scenario,duration_s,events,packet_hops\n"
    ));
    for k in ["flows", "queues", "pings", "queries"] {
        assert!(fa.contains_key(&format!("{k}.csv")), "{k}.csv");
        let pq = &fa[&format!("{k}.parquet")];
        assert!(
            pq.starts_with(b"PAR1") && pq.ends_with(b"PAR1"),
            "{k}.parquet"
        );
    }
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn a_point_is_the_run_that_cclab_run_makes() {
    let d = tmpdir("point");
    let f = example("sweep.toml");
    assert_exit_0(&cclab(&["sweep", &f, "--out", d.to_str().unwrap(), "-q"]));
    // Point 7: tcp.cc = dctcp (first), K = 20pkts (second), seed 9 (third of 7, 8, …).
    let run_dir = d.join("one");
    let o = cclab(&[
        "run",
        &f,
        "--set",
        "topology.link.classes.0.k=20pkts",
        "--set",
        "tcp.cc=dctcp",
        "--seed",
        "9",
        "--out",
        run_dir.to_str().unwrap(),
        "--json",
    ]);
    assert_exit_0(&o);
    // `cclab run` says that it runs one point and ignores the file's [sweep].
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("has a [sweep] table, which `cclab run` does not read"),
        "{err}"
    );
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run_id = summary["run_id"].as_str().unwrap();
    let queries = std::fs::read_to_string(d.join("queries.csv")).unwrap();
    let row: Vec<&str> = queries
        .lines()
        .find(|l| l.starts_with(run_id))
        .unwrap_or_else(|| panic!("run {run_id} is not in queries.csv:\n{queries}"))
        .split(',')
        .collect();
    assert_eq!(&row[1..4], ["9", "dctcp", "20pkts"]);
    let agg = &summary["aggregates"][0];
    // qct_mean_s is the summary's qct_mean_s, the same number.
    let s = agg["qct_mean_s"].as_f64().unwrap();
    assert_eq!(row[8], s.to_string());
    // And the point's row is the run's own queries.csv row, `seed` and the swept keys aside.
    let own = std::fs::read_to_string(run_dir.join("queries.csv")).unwrap();
    let own: Vec<&str> = own.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(own[0], row[0]);
    assert_eq!(&own[1..], &row[4..]);
    assert_eq!(row[7], agg["queries_done"].to_string());
    let _ = std::fs::remove_dir_all(&d);
}

/// A sweep whose points take long enough (~0.1–0.3 s each) to kill one midway.
fn slow_sweep(dir: &Path) -> String {
    let text = std::fs::read_to_string(example("dumbbell.toml"))
        .unwrap()
        .replace("duration = \"30s\"", "duration = \"15s\"")
        .replace("plots = true", "plots = false")
        + "\n[sweep]\n\"tcp.cc\" = [\"cubic\", \"reno\"]\nseeds = 6\n";
    std::fs::create_dir_all(dir).unwrap();
    let f = dir.join("slow.toml");
    std::fs::write(&f, text).unwrap();
    f.to_string_lossy().into_owned()
}

/// (inode, modification time) of every finished point.
fn point_stamps(out: &Path) -> BTreeMap<String, (u64, i64, i64)> {
    std::fs::read_dir(out.join("points"))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| {
                    let m = e.metadata().unwrap();
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        (m.ino(), m.mtime(), m.mtime_nsec()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_killed_sweep_continues_without_losing_or_repeating_a_point() {
    let base = tmpdir("kill");
    let file = slow_sweep(&base);
    let out = base.join("out");
    // Reference: the whole sweep in one go.
    let whole = base.join("whole");
    assert_exit_0(&sweep(&file, &whole, "1"));

    let mut child = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args([
            "sweep",
            &file,
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while point_stamps(&out).len() < 3 {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no points appeared"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL: no chance to tidy up
    child.wait().unwrap();
    let before = point_stamps(&out);
    assert!(
        (3..12).contains(&before.len()),
        "killed after {} of 12 points: not midway",
        before.len()
    );
    assert!(
        !out.join("runs.csv").exists(),
        "tables before every point was done"
    );

    let o = sweep(&file, &out, "1");
    assert_exit_0(&o);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let expect = format!(
        "12 points (2 × 6 seeds): {} found on disk, {} run",
        before.len(),
        12 - before.len()
    );
    assert!(stdout.contains(&expect), "{stdout}\nexpected: {expect}");
    let after = point_stamps(&out);
    assert_eq!(after.len(), 12, "a point is missing");
    for (name, stamp) in &before {
        assert_eq!(after.get(name), Some(stamp), "{name} was written again");
    }
    // No temporary left behind, and the tables are those of the uninterrupted sweep.
    let (fo, fw) = (files(&out), files(&whole));
    assert!(fo.keys().all(|k| !k.contains("/.")), "{:?}", fo.keys());
    for (k, v) in &fw {
        if k != "sweep.json" {
            assert!(
                fo.get(k) == Some(v),
                "{k} differs from the uninterrupted sweep"
            );
        }
    }
    // A third run finds everything and runs nothing.
    let o = sweep(&file, &out, "2");
    assert_exit_0(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("12 found on disk, 0 run"));
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn bad_sweeps_are_refused_before_anything_runs() {
    let base = tmpdir("bad");
    std::fs::create_dir_all(&base).unwrap();
    let dumbbell = std::fs::read_to_string(example("dumbbell.toml")).unwrap();
    // The file's own seed, the sweep's first, is checked as `cclab run` checks it.
    assert!(dumbbell.contains("\nseed = 1 "));
    let bad_seed = dumbbell.replacen("\nseed = 1 ", "\nseed = -5 ", 1) + "\n[sweep]\nseeds = 2\n";
    let cases: Vec<(String, &str, &str)> = [
        ("", "sweep", "needs a [sweep] table"),
        (
            "[sweep]\n\"tcp.cc\" = \"cubic\"\n",
            "sweep.tcp.cc",
            "a list of the values",
        ),
        (
            "[sweep]\n\"tcp.cc\" = []\n",
            "sweep.tcp.cc",
            "an empty list",
        ),
        (
            "[sweep]\n\"tcp.cc\" = [\"reno\", \"reno\"]\n",
            "sweep.tcp.cc",
            "listed twice",
        ),
        (
            "[sweep]\n\"tcp.cc\" = [\"reno\", \"cubik\"]\n",
            "tcp.cc",
            "cubik",
        ),
        ("[sweep]\n\"tcp.colour\" = [1, 2]\n", "tcp.colour", "colour"),
        ("[sweep]\nseeds = 0\n", "sweep.seeds", "number of seeds"),
        (
            "[sweep]\n\"sim.seed\" = [1, 2]\n",
            "sweep.sim.seed",
            "seeds = N",
        ),
    ]
    .into_iter()
    .map(|(t, k, w)| (format!("{dumbbell}\n{t}"), k, w))
    .chain([(bad_seed, "sim.seed", "must be an integer >= 0")])
    .collect();
    for (text, key, words) in cases {
        let f = base.join("bad.toml");
        std::fs::write(&f, &text).unwrap();
        let out = base.join("out");
        let o = cclab(&["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{key}: {err}");
        assert!(
            err.contains(&format!("key '{key}'")) && err.contains(words),
            "expected key '{key}' and {words:?} in:\n{err}"
        );
        assert!(err.contains("nothing was run"), "{err}");
        assert!(!out.exists(), "{key}: wrote {}", out.display());
    }
    // A folder holding someone else's files is refused, and left as it was.
    let theirs = base.join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let o = sweep(&example("sweep.toml"), &theirs, "1");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds files cclab did not write"));
    assert_eq!(files(&theirs).len(), 1);
    let _ = std::fs::remove_dir_all(&base);
}

/// A sweep folder reused by another sweep keeps none of the earlier sweep's tables: a
/// table this sweep does not write (here `fct`, which a dumbbell's unsized flows leave
/// out) is gone, not left beside a manifest that does not list it.
#[test]
fn a_reused_sweep_folder_keeps_no_stale_table() {
    let base = tmpdir("reuse");
    std::fs::create_dir_all(&base).unwrap();
    let text = std::fs::read_to_string(example("dumbbell.toml"))
        .unwrap()
        .replace("duration = \"30s\"", "duration = \"2s\"")
        .replace("plots = true", "plots = false")
        + "\n[sweep]\n\"tcp.cc\" = [\"cubic\", \"reno\"]\n";
    let f = base.join("s.toml");
    std::fs::write(&f, text).unwrap();
    let out = base.join("out");
    let o = sweep(f.to_str().unwrap(), &out, "1");
    assert_exit_0(&o);
    assert!(out.join("flows.csv").exists());
    // As an earlier sweep with sized flows would have left it: written, and listed in
    // its manifest (only what the manifest lists is a sweep's to remove).
    std::fs::write(out.join("fct.csv"), "run_id\nstale\n").unwrap();
    let m = out.join("sweep.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    v["files"].as_array_mut().unwrap().push("fct.csv".into());
    std::fs::write(&m, v.to_string()).unwrap();
    let o = sweep(f.to_str().unwrap(), &out, "1");
    assert_exit_0(&o);
    assert!(!out.join("fct.csv").exists(), "a stale table stayed");
    assert!(out.join("flows.csv").exists());
    let _ = std::fs::remove_dir_all(&base);
}
