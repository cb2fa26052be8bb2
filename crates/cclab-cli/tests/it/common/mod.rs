//! Helpers shared by the CLI's integration tests (each test crate uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `cclab ARGS`, run from the CLI crate's folder.
pub fn cclab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cclab runs")
}

/// The run exited 0; otherwise the assertion shows its stderr.
pub fn assert_exit_0(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The path of `examples/<name>` in the repository.
pub fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A new empty folder `cclab-PREFIX-PID-NAME` in the temporary directory (an earlier one
/// of that name removed first).
pub fn fresh_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The names in folder `d`, sorted.
pub fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `cclab reproduce NAME --quick --json`: the experiment's report, its checks and verdicts
/// as `assert_verdicts` and `assert_passes` read them, and its rows (`row`).
pub fn reproduce_json(name: &str) -> serde_json::Value {
    let o = cclab(&["reproduce", name, "--quick", "--json"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "one report and the totals: {stdout}");
    let v: serde_json::Value =
        serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["experiment"], name);
    let mut failed = false;
    for c in v["checks"].as_array().unwrap() {
        let (against, outcome) = (
            c["against"].as_str().unwrap(),
            c["outcome"].as_str().unwrap(),
        );
        assert!(
            ["seed", "published", "closed_form", "model"].contains(&against),
            "{c}"
        );
        if against == "seed" {
            // Rule 6: a seed number reproduces, is explained, fails or is unresolved.
            assert!(
                ["reproduces", "explained", "fails", "unresolved"].contains(&outcome),
                "{c}"
            );
            failed |= outcome == "fails";
            // An explained number carries the cause run that explains it.
            if outcome == "explained" {
                let k = &c["cause"];
                assert!(k["config"].as_str().is_some_and(|s| !s.is_empty()), "{c}");
                assert!(k["seed"].is_number() || k["seed"].is_null(), "{c}");
                assert_eq!(k["reading"], "within", "{c}");
            }
        } else {
            // The model's own checks against closed forms and published figures hold in
            // every quick run: a failure there is a regression, not a seed question.
            assert!(
                ["pass", "unresolved"].contains(&outcome),
                "check failed: {c}"
            );
        }
        assert!(!c["why"].as_str().unwrap().is_empty(), "{c}");
    }
    // Every seed number in the table is judged.
    for r in v["table"].as_array().unwrap() {
        assert_eq!(r["seed"].is_null(), r["outcome"].is_null(), "{r}");
    }
    let t: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(t["experiments"], 1);
    assert_eq!(t["totals"], v["tally"]);
    // A seed number that fails makes the run exit 1 (so CI sees it), and only then.
    assert_eq!(
        o.status.code(),
        Some(if failed { 1 } else { 0 }),
        "{stdout}"
    );
    v
}

/// The seed numbers' verdicts in a quick run, (reproduce, explained, fail, unresolved):
/// pinned, so a regression (or a fix) shows here.
pub fn assert_verdicts(v: &serde_json::Value, want: [u64; 4]) {
    let t = &v["tally"];
    let got = [
        t["seed_reproduce"].as_u64().unwrap(),
        t["seed_explained"].as_u64().unwrap(),
        t["seed_fail"].as_u64().unwrap(),
        t["seed_unresolved"].as_u64().unwrap(),
    ];
    let names: Vec<String> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["against"] == "seed" && c["outcome"] != "reproduces")
        .map(|c| format!("{}: {}", c["outcome"], c["name"]))
        .collect();
    assert_eq!(got, want, "{}: {names:#?}", v["experiment"]);
}

/// All `n` checks against published figures or closed forms pass.
pub fn assert_passes(v: &serde_json::Value, n: usize) {
    let pass = (v["checks"].as_array().unwrap().iter())
        .filter(|c| c["outcome"] == "pass")
        .count();
    assert_eq!(pass, n, "{}", v["checks"]);
}

pub fn row(v: &serde_json::Value, variant: &str, metric: &str) -> serde_json::Value {
    v["table"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["variant"] == variant && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {variant}/{metric}"))
        .clone()
}
