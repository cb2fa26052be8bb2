//! The command line end to end: exit codes, error messages, determinism and the
//! `reproduce --json` contract.

use crate::common;

use std::path::{Path, PathBuf};

use common::cclab;

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn five_mistakes_give_five_errors_exit_2_and_no_output() {
    let out = tmpdir("five");
    let o = cclab(&[
        "run",
        "tests/data/five_mistakes.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<_> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(lines.len(), 5, "stderr:\n{err}");
    for (key, value) in [
        ("sim.duration", "-1s"),
        ("topology.bottleneck.rate", "10Gbs"),
        ("tcp.cc", "cubik"),
        ("flow.0.to", "r7"),
        ("colour", "blue"),
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(key) && l.contains(value) && l.contains("five_mistakes.toml")),
            "no error naming {key} = {value}:\n{err}"
        );
    }
    assert!(!out.exists(), "nothing is written for bad input");
    assert!(o.stdout.is_empty());
}

#[test]
fn an_unknown_congestion_control_exits_2_wherever_it_is_named() {
    let f = examples().join("dumbbell.toml");
    for key in ["tcp.cc", "flow.0.cc"] {
        let out = tmpdir("unknown-cc");
        let set = format!("{key}=bbr9");
        let o = cclab(&[
            "run",
            f.to_str().unwrap(),
            "--set",
            &set,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{key}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("unknown congestion control \"bbr9\"") && err.contains("cubic"),
            "{key}: {err}"
        );
        assert!(!out.exists(), "nothing is written for bad input");
    }
}

#[test]
fn list_keys_prints_every_key_path() {
    let o = cclab(&["list", "--keys"]);
    assert_eq!(o.status.code(), Some(0));
    let s = String::from_utf8_lossy(&o.stdout);
    for k in [
        "sim.duration",
        "topology.links.N.reverse.limit",
        "tcp.dctcp_shift_g",
        "tcp.cubic_beta",
        "tcp.bic_scale",
        "tcp.hystart_ack_delta_us",
        "tcp.max_increment",
        "tcp.vegas_gamma",
        "tcp.use_bandwidth_switch",
    ] {
        assert!(s.contains(k), "`cclab list --keys` lacks {k}");
    }
}

/// An algorithm's parameter out of the source's range is refused like any key: the file,
/// the key, the value and what is allowed, exit 2, nothing written.
#[test]
fn a_bad_algorithm_parameter_names_file_key_value_and_range() {
    let dir = tmpdir("ccparam");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(examples().join("dumbbell.toml")).unwrap();
    let f = dir.join("bad_beta.toml");
    std::fs::write(
        &f,
        base.replace("cc = \"cubic\"", "cc = \"cubic\"\ncubic_beta = 1024"),
    )
    .unwrap();
    let out = dir.join("out");
    let o = cclab(&["run", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines().any(|l| l.contains("bad_beta.toml")
            && l.contains("tcp.cubic_beta")
            && l.contains("1024")
            && l.contains("from 1 to 1023")),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written for bad input");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_set_and_unknown_experiment_exit_2() {
    let f = examples().join("dumbbell.toml");
    let o = cclab(&["run", f.to_str().unwrap(), "--set", "tcp.cc"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("KEY=VALUE"));
    let o = cclab(&["run", f.to_str().unwrap(), "--set", "tcp.nope=1"]);
    assert_eq!(o.status.code(), Some(2));
    // An unknown capture is refused with the scenario's mistakes, before any folder exists.
    let out = tmpdir("pcap-unknown");
    let o = cclab(&[
        "run",
        f.to_str().unwrap(),
        "--pcap",
        "s9",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--pcap: key 'output.pcap.0' = \"s9\": unknown host or link"),
        "{err}"
    );
    assert!(!out.exists());
    let o = cclab(&["reproduce", "no-such-experiment"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("reno-recovery"));
    let o = cclab(&["run", "does/not/exist.toml"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn two_runs_give_byte_identical_summaries() {
    let f = examples().join("dumbbell.toml");
    let mut sums = Vec::new();
    for i in 0..2 {
        let out = tmpdir(&format!("det{i}"));
        let o = cclab(&[
            "run",
            f.to_str().unwrap(),
            "--set",
            "sim.duration=3s",
            "--out",
            out.to_str().unwrap(),
        ]);
        common::assert_exit_0(&o);
        for file in [
            "summary.json",
            "perf.json",
            "flows.csv",
            "cwnd.csv",
            "queue.csv",
            "throughput.csv",
            "cwnd.svg",
        ] {
            assert!(out.join(file).exists(), "{file} written");
        }
        sums.push(std::fs::read(out.join("summary.json")).unwrap());
        let _ = std::fs::remove_dir_all(&out);
    }
    assert_eq!(sums[0], sums[1]);
    let v: serde_json::Value = serde_json::from_slice(&sums[0]).unwrap();
    assert_eq!(v["flows"].as_array().unwrap().len(), 2);
    assert!(v["engine"]["packet_hops"].as_u64().unwrap() > 100_000);
    // A different seed is a different (valid) run of the same scenario; with no random
    // element in this scenario the results are the same.
    let out = tmpdir("seed2");
    let o = cclab(&[
        "run",
        f.to_str().unwrap(),
        "--set",
        "sim.duration=3s",
        "--seed",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&out);
}

/// Issue 56: every example runs with BBR v1 and v3 (`--set tcp.cc=bbr`, `bbr3`), and
/// (issue 57) TCP Prague, its table naming it, for a short simulated time (1.2 s: the
/// example's own topology, queues and apps; mbecn_star's apps start at 1 s).
#[test]
fn every_example_runs_with_bbr_bbr3_and_prague() {
    for cc in ["bbr", "bbr3", "prague"] {
        let mut n = 0;
        for e in std::fs::read_dir(examples()).unwrap() {
            let file = e.unwrap().path();
            if file.extension().and_then(|x| x.to_str()) != Some("toml") {
                continue;
            }
            let name = file.file_stem().unwrap().to_str().unwrap().to_string();
            let out = tmpdir(&format!("{cc}-{name}"));
            let o = cclab(&[
                "run",
                file.to_str().unwrap(),
                "--set",
                &format!("tcp.cc={cc}"),
                "--set",
                "sim.duration=1.2s",
                "--out",
                out.to_str().unwrap(),
                "-q",
            ]);
            common::assert_exit_0(&o);
            let stdout = String::from_utf8_lossy(&o.stdout);
            // The flow table's rows (after its header, to the blank line): every TCP flow
            // runs `cc` (mbecn_star has Ouroboros flows only).
            let rows: Vec<&str> = stdout
                .lines()
                .skip_while(|l| !l.starts_with("flow  path"))
                .skip(1)
                .take_while(|l| !l.trim().is_empty())
                .collect();
            let rows: Vec<&str> = rows
                .into_iter()
                .filter(|r| r.split_whitespace().nth(1).is_some_and(|t| t.contains('→')))
                .collect();
            // An example that gives a flow its own `cc` in its [[flow]] table
            // (dualpi2.toml: DCTCP beside CUBIC) keeps it: the others run `cc`.
            let text = std::fs::read_to_string(&file).unwrap();
            let pinned = text
                .split("[[flow]]")
                .skip(1)
                .filter(|f| f.split("\n[").next().unwrap_or("").contains("\ncc = "))
                .count();
            let runs_cc = rows
                .iter()
                .filter(|r| r.split_whitespace().nth(2) == Some(cc))
                .count();
            assert_eq!(runs_cc + pinned, rows.len(), "{name}: {rows:?}");
            let _ = std::fs::remove_dir_all(&out);
            n += usize::from(!rows.is_empty());
        }
        assert!(n >= 11, "{cc}: {n} examples with TCP flows");
    }
}

/// A run of many flows and queues prints a summary, not a row each: the first flows, the
/// longest queues, and totals that agree with flows.csv and queues.csv.
#[test]
fn the_table_of_a_large_run_is_summarised() {
    let out = tmpdir("large");
    // `cclab run FILE --set SETS… --out OUT`, exit 0: its stdout.
    let run = |file: &str, sets: &[&str]| -> String {
        let file = examples().join(file);
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        for s in sets {
            args.extend(["--set", s]);
        }
        let o = cclab(&args);
        common::assert_exit_0(&o);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let stdout = run(
        "../bench/dctcp10.toml",
        &["sim.duration=0.1s", "topology.senders=30"],
    );
    let csv = |name: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        text.lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    let flows = csv("flows.csv");
    let col = |rows: &[Vec<String>], name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let n = flows.len() - 1;
    assert_eq!(n, 30);
    let rows = stdout
        .lines()
        .filter(|l| l.contains(" s") && l.contains("→r"))
        .count();
    assert_eq!(rows, 10, "{stdout}");
    let retrans: u64 = flows[1..]
        .iter()
        .map(|r| r[col(&flows, "retransmits")].parse::<u64>().unwrap())
        .sum();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("… 20 more; all 30 flows"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains(&format!("; {retrans} retransmits,")),
        "{line}"
    );
    let queues = csv("queues.csv").len() - 1;
    assert!(queues > 24);
    assert!(
        stdout.contains(&format!("… the 10 longest of {queues} queues")),
        "{stdout}"
    );
    assert!(stdout.lines().count() < 40, "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
    // A workload's sized flows: the slowdown line agrees with fct_buckets.csv's "all" row.
    let stdout = run("workload.toml", &["sim.duration=0.3s"]);
    let b = csv("fct_buckets.csv");
    let all = b.iter().find(|r| r[1] == "all").expect("an all row");
    let num = |name: &str| all[col(&b, name)].parse::<f64>().unwrap();
    let want = format!(
        "{} of {} sized flows finished; FCT slowdown (completion time / alone on an empty network) mean/p50/p99/max {:.2}/{:.2}/{:.2}/",
        all[col(&b, "done")],
        all[col(&b, "flows")],
        num("slowdown_mean"),
        num("slowdown_p50"),
        num("slowdown_p99")
    );
    assert!(stdout.contains(&want), "{want}\n{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

fn reproduce_json(name: &str) -> serde_json::Value {
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
fn assert_verdicts(v: &serde_json::Value, want: [u64; 4]) {
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
fn assert_passes(v: &serde_json::Value, n: usize) {
    let pass = (v["checks"].as_array().unwrap().iter())
        .filter(|c| c["outcome"] == "pass")
        .count();
    assert_eq!(pass, n, "{}", v["checks"]);
}

fn row(v: &serde_json::Value, variant: &str, metric: &str) -> serde_json::Value {
    v["table"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["variant"] == variant && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {variant}/{metric}"))
        .clone()
}

#[test]
fn reproduce_reno_recovery_quick_passes() {
    let v = reproduce_json("reno-recovery");
    assert_eq!(row(&v, "rtt_6ms", "recovery_s")["seed"], 1.6);
    assert_eq!(row(&v, "rtt_25ms", "recovery_s")["seed"], 26.0);
    assert!(row(&v, "rtt_25ms", "formula_s")["seed"].is_null());
    // Each seed number and each closed form: 2 + 2 checks in --quick.
    assert_eq!(v["tally"]["seed_reproduce"], 2);
    assert_verdicts(&v, [2, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 2);
}

#[test]
fn reproduce_mathis_quick_passes() {
    let v = reproduce_json("mathis");
    // No seed numbers: closed forms only (Mathis at p ≤ 1e-3, PFTK at 1e-2).
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 4);
    for p in ["p_1e-2", "p_1e-3", "p_1e-4", "p_1e-5"] {
        // Bernoulli loss: every goodput is a mean of at least three runs with its interval.
        let g = row(&v, p, "goodput_mbps");
        assert!(g["runs"].as_u64().unwrap() >= 3, "{g}");
        assert!(g["ci95"].as_f64().unwrap() > 0.0, "{g}");
        row(&v, p, "mathis_mbps");
    }
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 4);
    assert!(checks.iter().all(|c| c["against"] == "closed_form"));
}

#[test]
fn reproduce_cubic_vs_reno_quick_passes() {
    let v = reproduce_json("cubic-vs-reno");
    // No seed numbers: each stack against the closed-form lower bound.
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 2);
    assert_eq!(row(&v, "reno", "utilization")["runs"], 3);
    row(&v, "cubic", "utilization");
}

#[test]
fn list_names_experiments_topologies_and_algorithms() {
    let o = cclab(&["list"]);
    assert_eq!(o.status.code(), Some(0));
    let s = String::from_utf8_lossy(&o.stdout);
    for name in [
        "reno-recovery",
        "mathis",
        "cubic-vs-reno",
        "dumbbell",
        "star",
        "chain",
        "graph",
        "droptail",
        "ecn",
        "reno",
        "cubic",
    ] {
        assert!(s.contains(name), "`cclab list` lacks {name}");
    }
}

#[test]
fn bench_json_has_the_documented_keys() {
    let o = cclab(&["bench", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in ["wall_s", "events_per_s", "packet_hops_per_s"] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k}");
    }
    let w = v["workloads"].as_array().unwrap();
    let names: Vec<&str> = w.iter().map(|x| x["workload"].as_str().unwrap()).collect();
    assert_eq!(names, ["cubic16", "dctcp10"]);
    for x in w {
        // Both keep a 10 Gbit/s bottleneck busy (payload share of 1538-byte frames: 9.41).
        let g = x["goodput_gbps"].as_f64().unwrap();
        assert!(g > 9.0 && g < 9.42, "{x}");
        assert!(x["packet_hops"].as_u64().unwrap() > 3_000_000, "{x}");
    }
}

/// `--senders`: the dctcp10 dumbbell with 10, 100 and 1,000 senders, and the share of the
/// 10-sender speed each keeps; `--rounds` only with it, and at least 1.
#[test]
fn bench_senders_runs_the_three_dumbbells() {
    let o = cclab(&["bench", "--json", "--senders", "--rounds", "2"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let w = v["workloads"].as_array().unwrap();
    let hops = |name: &str| {
        w.iter()
            .find(|x| x["workload"] == name)
            .unwrap_or_else(|| panic!("no {name}"))["packet_hops"]
            .as_u64()
            .unwrap()
    };
    // The 10-sender case is dctcp10 itself (a deterministic run: the same count).
    assert_eq!(hops("dctcp-s10"), hops("dctcp10"));
    // More senders, more packets (drops and retransmissions) on the same 10 Gbit/s.
    assert!(hops("dctcp-s1000") > hops("dctcp10"), "{v}");
    let s = &v["senders"];
    assert_eq!(s["rounds"], 2);
    assert_eq!(s["senders"], serde_json::json!([10, 100, 1000]));
    let keep: Vec<f64> = s["keep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(keep.len(), 3);
    assert_eq!(keep[0], 1.0, "the 10-sender run over itself");
    assert!(
        keep[1..].iter().all(|&k| k > 0.0 && k.is_finite()),
        "{keep:?}"
    );
    assert!(cclab(&["bench", "--json"])
        .stdout
        .windows(9)
        .all(|x| x != b"\"senders\""));
    for bad in [
        &["bench", "--rounds", "3"][..],
        &["bench", "--senders", "--rounds", "0"][..],
    ] {
        assert_eq!(cclab(bad).status.code(), Some(2), "{bad:?}");
    }
}

/// seed 000's buffer claims on the incast: DCTCP's queue a tenth of CUBIC's or less, the
/// same throughput with a tenth of the buffer, CUBIC's ping growing with the buffer and
/// DCTCP's not; CUBIC's queue standing between 0.7 B and B (the closed form).
#[test]
fn reproduce_dctcp_buffer_quick_passes() {
    let v = reproduce_json("dctcp-buffer");
    assert_verdicts(&v, [5, 0, 0, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // The sweep's rows: CUBIC's ping rises with the buffer (about B / 10 Gbit/s), DCTCP's
    // queue stays below its floor of 19 two-segment windows whatever the buffer.
    let (c1, c10) = (
        num("cubic_1mb", "ping_mean_ms"),
        num("cubic_10mb", "ping_mean_ms"),
    );
    assert!(c1 > 0.5 && c1 < 0.9 && c10 > 5.6 && c10 < 8.1, "{c1} {c10}");
    for b in ["0.5", "1", "5", "10"] {
        let q = num(&format!("dctcp_{b}mb"), "queue_mean_kb");
        assert!(q < 343.0, "dctcp at {b} MB: {q} KB");
    }
    let closed: Vec<_> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["against"] == "closed_form")
        .collect();
    assert_eq!(closed.len(), 3, "one per CUBIC buffer in --quick");
}

/// seed 001 slide 10 on slide 16's path: GbE's spread above Fast Ethernet's reproduces;
/// "Fast Ethernet gt GbE" fails with Linux 2.4's txqueuelen of 100 (the sender's own
/// qdisc halves the FE window) and is explained by txqueuelen 10000.
#[test]
fn reproduce_nic_speed_quick_passes() {
    let v = reproduce_json("nic-speed");
    assert_verdicts(&v, [1, 1, 0, 0]);
    let num = |variant: &str| row(&v, variant, "goodput_mbps")["sim"].as_f64().unwrap();
    // Fast Ethernet with a deep qdisc runs near its line rate's reach in 10 s; GbE below.
    assert!(num("fast_ethernet_txq10000") > 1.5 * num("gbe_txq10000"));
    assert!(num("fast_ethernet") < num("gbe"));
}

/// seed 004's arithmetic and buffer claims: the windows reproduce; the post's 18 MB queue
/// and 90% drops are explained by a sender that dumps its window (the first flight of a
/// starting TCP is 10 segments: 80% dropped); comment 2's ramp stays near 1×; what ECN
/// adds through fq_codel is within the runs' spread (unresolved).
#[test]
fn reproduce_lfn_buffering_quick_passes() {
    let v = reproduce_json("lfn-buffering");
    assert_verdicts(&v, [5, 2, 0, 1]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // Window-limited: 10 MB per 160 ms is 500 Mbit/s of payload.
    let g = num("window_10mb_1g", "goodput_mbps");
    assert!((g - 500.0).abs() < 5.0, "{g}");
    assert_eq!(num("no_buffer", "first_rtt_drop_pct"), 80.0);
    assert_eq!(num("dump_no_buffer", "first_rtt_pkts"), 13812.0);
    let q = num("dump_window_20mb", "peak_queue_mb");
    assert!(q > 18.0 && q < 19.0, "{q}");
    assert!(num("tuned_buffer_18mb", "drops") > 0.0);
}

/// seed 001 slides 23, 29-32: the paths' 8.2 Gbit/s is the nominal sum (explained), the
/// streams' peak is far above 5.42 (fails), a bursty sender loses where an IPG-tuned one
/// does not (reproduces), and in the lab's short runs a smaller buffer loses less per
/// segment (slow start's overshoot; fails).
#[test]
fn reproduce_sc2003_quick_passes() {
    let v = reproduce_json("sc2003");
    assert_verdicts(&v, [1, 1, 2, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // 3 × OC-48 over POS and one GbE, in IP bit/s.
    let c = num("capacity", "aggregate_gbps");
    assert!((c - 8.12).abs() < 0.01, "{c}");
    assert_eq!(num("lab_ipg_1mb", "drops_per_1000_segments"), 0.0);
    assert_eq!(num("oc48_326ms", "ipgt"), 902.0);
}

/// seed 003 slides 46–49: tcpmon on one 2.6-era connection. Every seed number fails in
/// --quick; the untuned first event is the 64 KB window's ~20 RTT, a tuned response one
/// flight (1.45 RTT at 20 ms), the route-cache cause run ~18 RTT, and no restart after idle
/// fires during the 50 ms waits.
#[test]
fn reproduce_tcpmon_quick_passes() {
    let v = reproduce_json("tcpmon");
    assert_verdicts(&v, [0, 0, 13, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    let untuned = num("manc_cern_untuned", "first_event_rtt");
    assert!((19.5..20.5).contains(&untuned), "{untuned}");
    let steady = num("manc_cern_tuned", "steady_response_rtt");
    assert!((1.40..1.50).contains(&steady), "{steady}");
    let cached = num("manc_cern_tuned_cached_ssthresh", "first_event_ms");
    assert!((340.0..375.0).contains(&cached), "{cached}");
    assert!(num("alberta_cern_tuned", "first_event_rtt") < 9.0);
    for p in ["manc_cern_untuned", "manc_cern_tuned", "alberta_cern_tuned"] {
        assert_eq!(num(p, "cwnd_restarts"), 0.0, "{p}");
        assert_eq!(num(p, "timeouts"), 0.0, "{p}");
    }
}

/// seed 003 slides 40–42: SC2004 over UKLight. With 2.6's 1000-packet qdisc the sender
/// enters CWR in slow start and Reno crawls; txqueuelen 10000 reaches wire rate and
/// explains all three numbers; Scalable above Standard reproduces.
#[test]
fn reproduce_sc2004_quick_passes() {
    let v = reproduce_json("sc2004");
    assert_verdicts(&v, [1, 3, 0, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert_eq!(num("mem_standard", "cwr_episodes"), 1.0);
    assert_eq!(num("mem_standard_txq10000", "cwr_episodes"), 0.0);
    let t = num("bbftp_standard_txq10000", "transfer_s");
    assert!((20.0..21.0).contains(&t), "{t}");
    // The 22 MB socket: 1.5 × 22 MiB of window with Linux's doubling, 3/4 × 22 MiB without.
    assert!(num("window_linux26", "ceiling_mbps") > 1000.0);
    let c = num("window_without_doubling", "ceiling_mbps");
    assert!((781.0..783.0).contains(&c), "{c}");
}

/// seed 003 slide 15: HSTCP-LP yields to a HighSpeed flow (its share far below half),
/// but alone it does not fill the 1 Gbit/s, 80 ms path (its early congestion indications
/// keep the window near 1): 1 reproduces, 1 fails.
#[test]
fn reproduce_hstcp_lp_quick_passes() {
    let v = reproduce_json("hstcp-lp");
    assert_verdicts(&v, [1, 0, 1, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("highspeed+hstcp-lp", "second_flow_share_pct") < 5.0);
    assert!(num("highspeed_alone", "utilization") > 0.8);
    assert!(num("hstcp-lp_alone", "utilization") < 0.2);
    // Two HighSpeed flows share about equally.
    let s = num("highspeed+highspeed", "second_flow_share_pct");
    assert!((30.0..70.0).contains(&s), "{s}");
}

/// seed 003 slides 33-36: with Linux 2.6.6's SACK walk the input queue overflows on
/// DataTAG but no RTO follows (fails); Scalable with CBR on MB-NG gets more cwnd hiccups
/// with the walk than without; HighSpeed alone on MB-NG sees no DupACK at line rate.
#[test]
fn reproduce_sack_cost_quick_passes() {
    let v = reproduce_json("sack-cost");
    assert_verdicts(&v, [4, 0, 1, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("datatag_highspeed", "ack_backlog_drops") > 1000.0);
    assert_eq!(num("datatag_highspeed_no_walk", "ack_backlog_drops"), 0.0);
    assert_eq!(num("datatag_highspeed", "timeouts"), 0.0);
    assert!(num("mbng_scalable_cbr", "hiccups") > num("mbng_scalable_cbr_no_walk", "hiccups"));
    assert_eq!(num("mbng_highspeed", "dupacks_in"), 0.0);
    let g = num("mbng_highspeed", "goodput_mbps");
    assert!((935.0..942.0).contains(&g), "{g}");
}

/// seed 002 footnote 4: ethtool vs a tc shaper. The flows' rates differ by less than the
/// runs spread in --quick (both claims unresolved); a shaper shallower than the socket's
/// 47 frames holds at most its limit and drops what MB-ECN never marked.
#[test]
fn reproduce_mbecn_tc_quick_passes() {
    let v = reproduce_json("mbecn-tc");
    assert_verdicts(&v, [0, 0, 0, 2]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert_eq!(num("tc_tbf_shallow", "router_queue_max_pkts"), 29.0);
    assert!(num("tc_tbf_shallow", "router_drops") > 2.0 * num("tc_tbf", "router_drops"));
    // One flow alone runs at its client's 80 Mbit/s of SDU either way.
    for p in ["ethtool", "tc_tbf"] {
        let a = num(p, "alone_mbps");
        assert!((a - 79.2).abs() < 0.5, "{p}: {a}");
    }
}

/// seed 003 slides 28-31 at a 1 s region unit: Reno's long-path single stream low and its
/// four flows unequal reproduce, and H-TCP's RTT effect; FAST's σ(RTT) (no cross traffic: a
/// queue of α packets per flow) and the others' (one BDP of buffer swept) fail, and H-TCP's
/// throughput and sharing (at 1 s a region, its flows are still in slow start, as Reno's).
#[test]
fn reproduce_sharing_tests_quick_passes() {
    let v = reproduce_json("sharing-tests");
    assert_verdicts(&v, [3, 0, 4, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // FAST keeps its queue to α packets a flow: σ(RTT) under a millisecond; the loss-based
    // stacks sweep a BDP of buffer (180 ms): tens of milliseconds.
    assert!(num("cern_fast", "rtt_sd_ms") < 1.0);
    assert!(num("cern_reno", "rtt_sd_ms") > 30.0);
    // The 1 MB buffer holds the loss-based stacks' RTT near the path's 180 ms.
    assert!(num("cern_reno_buf1mb", "rtt_sd_ms") < 5.0);
    assert!((num("cern_reno", "rtt_min_ms") - 180.0).abs() < 1.0);
    // Caltech's 10 ms path fills in the first unit; CERN's 180 ms one does not.
    assert!(num("caltech_reno", "region1_mbps") > 500.0);
    assert!(num("cern_reno", "region1_mbps") < 50.0);
}

/// seed 003 slides 22-23 in 20 s: FAST's ramp leads NewReno's after one local reduction in
/// the 100-packet qdisc (the ratio reproduces); the hour-long table's utilizations fail.
#[test]
fn reproduce_fast_vs_newreno_quick_passes() {
    let v = reproduce_json("fast-vs-newreno");
    assert_verdicts(&v, [1, 0, 6, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // txqueuelen 100 stops NewReno's slow start by local congestion (no loss); 10000 lets
    // it fill the pipe.
    assert_eq!(num("newreno_txq100", "local_cwr"), 1.0);
    assert_eq!(num("newreno_txq100", "retransmits"), 0.0);
    assert!(num("newreno_txq10000", "goodput_mbps") > 20.0 * num("newreno_txq100", "goodput_mbps"));
    // FAST has no multiplicative start: γα = 50 packets per RTT, well below the pipe in 20 s.
    let f = num("fast_txq10000", "goodput_mbps");
    assert!(f > 100.0 && f < 300.0, "{f}");
}

/// Cardwell et al. 2016 (ACM Queue), BBR vs CUBIC under random loss, with the article's
/// 60-s flows: BBR at the (1 − p) limit at 1% and 5% (the 15% check may be unresolved:
/// some seeds stall: STARTUP ends at ~1 Mbit/s, module doc), CUBIC tenfold down at 0.1%
/// and stalled at 2%.
#[test]
fn reproduce_bbr_loss_quick_passes() {
    let v = reproduce_json("bbr-loss");
    assert_verdicts(&v, [0, 0, 0, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // BBR keeps its rate where CUBIC has stalled: at 5% loss against CUBIC's at 2%.
    assert!(num("bbr_p0.05", "goodput_mbps") > 50.0 * num("cubic_p0.02", "goodput_mbps"));
    assert!(num("bbr_p0.01", "goodput_mbps") > 85.0);
    assert!(num("cubic_p0", "goodput_mbps") > 90.0);
}

/// PIE at Linux's defaults with 5, 20 and 50 Reno flows on 10 Mbit/s, 100 ms (RFC 8033,
/// Pan et al. 2013): the mean queueing delay at the 15 ms target and the link busy, six
/// checks pass; the same load through a drop-tail FIFO of PIE's 1000 packets waits
/// tens of times longer.
#[test]
fn reproduce_pie_quick_passes() {
    let v = reproduce_json("pie");
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_passes(&v, 6);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("reno_n5_droptail", "mean_delay_ms") > 20.0 * num("reno_n5", "mean_delay_ms"));
    assert!(num("reno_n50", "drops") > num("reno_n5", "drops"));
}

/// DualPI2 with a DCTCP-on-ECT(1) (L4S) flow against CUBIC (docs/references.md §6.7) in
/// --quick: the classic queue's mean delay at the 15 ms target, the L queue's median under
/// the 1 ms step and its 99th percentile under the classic median, the windows at 1.64/k:
/// four checks pass; the link stays busy.
#[test]
fn reproduce_l4s_dualq_quick_passes() {
    let v = reproduce_json("l4s-dualq");
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_passes(&v, 4);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("dctcp_cubic", "utilisation") > 0.95);
    assert!(num("dctcp_cubic", "l_p99_ms") * 5.0 < num("dctcp_cubic", "c_p50_ms"));
    // ECT(1) into l4s_ect and ECT(0) into any_ect: the queue decides alike, to the packet.
    for m in ["l_goodput_mbps", "c_p99_ms", "p_l_marked"] {
        assert_eq!(
            num("dctcp_cubic", m),
            num("dctcp_ect0_any_ect_cubic", m),
            "{m}"
        );
    }
}

/// Accurate ECN's feedback (docs/references.md §16) in --quick: on a lossless ACK path the
/// sender learns exactly the marks the receiver saw, with the ACE field alone and with the
/// option; RFC 3168 reacts at most once per round trip; under 25% ACK loss the option
/// keeps the count exact while ACE alone overcounts (the safety rule's assumed wraps).
#[test]
fn reproduce_accecn_feedback_quick_passes() {
    let v = reproduce_json("accecn-feedback");
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_passes(&v, 3);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("accecn_option_ackloss0", "marks_seen") > 100.0);
    assert_eq!(
        num("accecn_option_ackloss250", "marks_learnt"),
        num("accecn_option_ackloss250", "marks_seen")
    );
    assert!(
        num("accecn_ace_ackloss250", "marks_learnt")
            > 1.5 * num("accecn_ace_ackloss250", "marks_seen")
    );
}

/// Ware et al.'s model of BBR v1 against CUBIC (docs/references.md §15.5) in --quick: at
/// X = 8 BDP, BBR's share against 4 CUBIC flows is its share against 1 within 10% (the
/// model's finding that N does not matter); the model's own share is a row.
#[test]
fn reproduce_bbr_vs_cubic_quick_passes() {
    let v = reproduce_json("bbr-vs-cubic");
    assert_verdicts(&v, [0, 0, 0, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // One BBR flow keeps about the same share against one or four CUBIC flows: far more
    // than its 1/5 fair share against four.
    let (s1, s4) = (num("x8_n1", "bbr_share"), num("x8_n4", "bbr_share"));
    assert!(s4 > 0.3 && s1 > 0.3, "{s1} {s4}");
    assert!((num("x8_n1", "model_share") - 0.5455).abs() < 1e-3);
}

/// CUBIC and BBR over the synthetic cellular link (docs/references.md §20) in --quick:
/// the five closed-form checks pass (the link delivers no more than its opportunities,
/// CUBIC keeps it busy and its buffer full, BBR's queue stays under 2·BDP at the good
/// rate), and in the delay/throughput plane BBR sits at lower delay than CUBIC; TCP
/// Prague's two points are there, behind DualPI2 at a small part of its drop-tail delay.
#[test]
fn reproduce_cellular_quick_passes() {
    let v = reproduce_json("cellular");
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_passes(&v, 5);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("bbr", "rtt_p95_ms") < num("cubic", "rtt_p95_ms"));
    assert!(num("bbr", "backlog_pkts") < 0.5 * num("cubic", "backlog_pkts"));
    // Prague's two points: behind DualPI2 its delay is a fraction of the drop-tail one's.
    assert!(num("prague_dualpi2", "rtt_p95_ms") < 0.25 * num("prague", "rtt_p95_ms"));
}

/// BBR v1's RTT unfairness (docs/references.md §15.7) in --quick: the 50 ms flow takes
/// more than the 10 ms one in a deep buffer, two 50 ms flows keep 1–1.5 BDP of queue and
/// lose packets all the time in a 1-BDP buffer: the three checks pass.
#[test]
fn reproduce_bbr_rtt_quick_passes() {
    let v = reproduce_json("bbr-rtt");
    assert_verdicts(&v, [0, 0, 0, 0]);
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 3);
    assert!(checks.iter().all(|c| c["outcome"] == "pass"), "{checks:#?}");
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // Far more than half: the short flow keeps under a fifth of the link.
    assert!(num("bbr_10_50_x8", "long_rtt_share") > 0.8);
    // Equal RTTs share about equally; the deep buffer loses nothing.
    let (a, b) = (
        num("bbr_50_50_x8", "flow0_rtt50_mbps"),
        num("bbr_50_50_x8", "flow1_rtt50_mbps"),
    );
    assert!((a / b - 1.0).abs() < 0.3, "{a} {b}");
    assert_eq!(num("bbr_50_50_x8", "retx_per_s"), 0.0);
    assert_eq!(num("bbr_50_50_x1", "buffer_pkts"), 406.0);
}

/// BBR's start and PROBE_RTT against tcp_bbr.c's closed forms (one deterministic run,
/// the same in --quick): all six checks pass.
#[test]
fn reproduce_bbr_startup_quick_passes() {
    let v = reproduce_json("bbr-startup");
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_passes(&v, 6);
    let num = |m: &str| row(&v, "bbr_100mbit_40ms", m)["sim"].as_f64().unwrap();
    assert_eq!(num("probe_rtt_episodes"), 2.0);
    // STARTUP's queue is about 2 BDP (the article's figure), DRAIN empties it.
    assert!((num("startup_queue_bdp") - 2.0).abs() < 0.2);
    assert!(num("drained_queue_pkts") < 30.0);
}

/// FAST's equilibrium (docs/references.md §3.7) in --quick: one, two and four flows at 20
/// to 100 ms hold Σα packets, share in the ratio of their α whatever their RTTs, fill the
/// link and lose nothing; no seed numbers, every check against the closed forms.
#[test]
fn reproduce_fast_equilibrium_quick_passes() {
    let v = reproduce_json("fast-equilibrium");
    assert_verdicts(&v, [0, 0, 0, 0]);
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 15);
    assert!(checks.iter().all(|c| c["outcome"] == "pass"), "{checks:#?}");
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    for (variant, sum_alpha) in [
        ("n1_a100", 100.0),
        ("n2_equal", 200.0),
        ("n2_unequal", 150.0),
        ("n4_equal", 400.0),
    ] {
        assert_eq!(num(variant, "backlog_theory"), sum_alpha);
        assert_eq!(num(variant, "retransmits"), 0.0);
    }
    // The 100 ms flow with twice the 20 ms flow's α gets twice its rate.
    let r = num("n2_unequal", "rate_ratio_long_over_short");
    assert!((r - 2.0).abs() < 0.09, "{r}");
    // Every flow's first data leaves at the longest RTT: each measures its own path.
    let b = num("n4_equal", "flow3_rtt100_a100_base_rtt_ms");
    assert!((100.0..101.0).contains(&b), "{b}");
}

#[test]
fn reproduce_dctcp_incast_quick_passes() {
    let v = reproduce_json("dctcp-incast");
    for variant in ["cubic", "dctcp"] {
        for m in [
            "timeouts_total",
            "timeouts_mean",
            "timeouts_median",
            "timeouts_max",
            "timeouts_min",
            "timeouts_stddev",
            "throughput_mean_mbps",
            "throughput_median_mbps",
            "throughput_min_mbps",
            "throughput_max_mbps",
            "throughput_stddev_mbps",
            "fairness",
            "latency_mean_ms",
            "latency_median_ms",
            "latency_max_ms",
            "latency_min_ms",
            "latency_stddev_ms",
        ] {
            assert!(
                row(&v, variant, m)["seed"].is_number(),
                "{variant}/{m} has the seed's value"
            );
        }
    }
    assert_eq!(row(&v, "cubic", "timeouts_total")["seed"], 3227.0);
    // The seed's CUBIC timeouts are two orders of magnitude above the model's, and no run
    // has shown why: they fail.
    assert_eq!(row(&v, "cubic", "timeouts_total")["outcome"], "fails");
    // The seed's hosts on the Linux 3.18 profile (FACK, early retransmit, 3.18's probe, no
    // RACK; per-ACK counting in congestion avoidance, the 3.18 receive window), against
    // the 6.6 profile's 20/0/11/3: CUBIC's throughput_max_mbps (637.9 → 613.5 Mbit/s)
    // goes from reproduces to fails, throughput_stddev_mbps (55.2 → 48.6, its interval
    // now narrower) from unresolved to fails, latency_min_ms (3.272 → 3.241 ms) from
    // unresolved to reproduces. CUBIC's 'other TCP timeouts' stay 0 (fails): the 3.18
    // recovery does not produce the seed's RTO storm either. CUBIC's HyStart rounds of
    // v6.6 (only from cwnd 16) move its fairness 0.9914 → 0.9942, beyond the seed's 0.962
    // + 0.03: reproduces → fails. HyStart's ACK train reading the socket's pacing rate as
    // Linux does (the rate set after the previous ACK, from packets_out; issue 56) moves
    // CUBIC's runs: throughput_stddev_mbps fails → unresolved (its interval widens),
    // throughput_min_mbps and latency_min_ms reproduce → unresolved: 17/0/13/4.
    assert_verdicts(&v, [17, 0, 13, 4]);
    let rows = v["table"].as_array().unwrap();
    assert_eq!(
        rows.iter().filter(|r| r["seed"].is_number()).count(),
        2 * 17
    );
    // Beside them, the side runs with Linux's default 1500-byte frames (the seed's are 9000).
    for variant in ["cubic", "dctcp"] {
        let t = row(&v, variant, "mtu1500_throughput_mean_mbps")["sim"]
            .as_f64()
            .unwrap();
        // 10 GbE's payload rate in 1500-byte frames, 1448 of 1538 bytes, shared by 19 flows.
        assert!(
            (t - 1e4 * 1448.0 / 1538.0 / 19.0).abs() < 1.0,
            "{variant}: {t}"
        );
    }
    // The DCTCP flows without marks in the drop-tail queue: the seed's module (3.18) meets
    // a loss with cwnd·alpha/2 at alpha's floor of 15/1024, today's halves, so the first
    // shares the link far less evenly and times out more.
    let sim = |m: &str| row(&v, "dctcp", m)["sim"].as_f64().unwrap();
    assert!(
        sim("dscp0_throughput_stddev_mbps") > 2.0 * sim("dscp0_linux_throughput_stddev_mbps"),
        "stddev: 3.18 {}, today's {}",
        sim("dscp0_throughput_stddev_mbps"),
        sim("dscp0_linux_throughput_stddev_mbps")
    );
    assert!(
        sim("dscp0_rto_expiries_total") > 5.0 * sim("dscp0_linux_rto_expiries_total").max(1.0),
        "RTO expiries: 3.18 {}, today's {}",
        sim("dscp0_rto_expiries_total"),
        sim("dscp0_linux_rto_expiries_total")
    );
}

#[test]
fn reproduce_dctcp_convergence_quick_passes() {
    let v = reproduce_json("dctcp-convergence");
    // CUBIC's "never converges", the seed's one test read against the model's runs: with
    // v6.6's HyStart rounds 3 of its 4 quick runs never converge (1 before), resolved
    // against 5%: reproduces.
    assert_verdicts(&v, [10, 0, 0, 0]);
    assert_eq!(row(&v, "dctcp", "join_converge_s")["seed"], 0.5);
    assert!(row(&v, "cubic", "join_converge_s")["seed"].is_null());
    row(&v, "cubic", "never_converged_share");
    assert_eq!(row(&v, "cubic", "leave_recover_s")["runs"], 4);
}

#[test]
fn reproduce_dctcp_syn_ect_quick_passes() {
    let v = reproduce_json("dctcp-syn-ect");
    assert_eq!(row(&v, "no_ect", "p_conn_2")["seed"], 0.67);
    assert!(row(&v, "ect", "p_conn_16")["seed"].is_null());
    // Beside each point, its cause run: the same probes read with a 0.9 s limit (the seed
    // states no time limit).
    assert_eq!(
        row(&v, "no_ect", "p_conn_4")["cause"]["variant"],
        "limit_0.9s_4"
    );
    // Each point's share is over all its probes, with a binomial interval ("runs" count
    // probes: 24 in one quick run).
    assert_eq!(row(&v, "no_ect", "p_conn_2")["runs"], 24);
    assert_verdicts(&v, [6, 0, 1, 0]);
}

#[test]
fn reproduce_mbecn_quick_passes() {
    for name in [
        "mbecn-star",
        "mbecn-variants",
        "mbecn-lost-updates",
        "mbecn-vs-tcp",
        "mbecn-rtt",
    ] {
        reproduce_json(name);
    }
    // The seed configuration (flooding clients, senders at line rate) misses every number;
    // the cause run, clients at ocbr -r 80M as the seed's author describes the test, on
    // the prototype's path (47 frames in the kernel below each IPCP's ring), is beside
    // each: it reproduces the one-flow rate (and, in --quick's short two-flow phase, the
    // sum); the flows' shares stay open at the cap and the convergence fails.
    let v = reproduce_json("mbecn-star");
    let alone = row(&v, "line_rate", "alone_mbps");
    assert_eq!(alone["seed"], 79.05);
    assert_eq!(alone["outcome"], "explained", "{alone}");
    assert_eq!(
        alone["cause"]["variant"], "client_80mbit_kernel47",
        "{alone}"
    );
    assert_eq!(alone["runs"], 3, "{alone}");
    let conv = row(&v, "line_rate", "convergence_ms");
    assert_eq!(conv["outcome"], "fails", "{conv}");
    row(&v, "sender_9990pps", "two_flows_larger_mbps");
    row(&v, "client_80mbit", "alone_mbps");
    row(&v, "line_rate_kernel47", "alone_mbps");
    assert_verdicts(&v, [0, 3, 1, 2]);
    // The sender-side reset's claim, judged once (half the updates lost, line rate).
    let v = reproduce_json("mbecn-lost-updates");
    assert_verdicts(&v, [1, 0, 0, 0]);
    row(&v, "loss_0.1000 line_rate", "rate_minus_lossless_mbps");
}

#[test]
fn reproduce_dctcp_k_and_queue_quick_pass() {
    let v = reproduce_json("dctcp-k");
    assert_verdicts(&v, [2, 0, 0, 0]);
    // The seed's heuristic K is a claim (the link stays full there), not a number to echo:
    // the row has no seed number, and the claim is a check of its own.
    assert!(row(&v, "10gbps", "util_at_seed_k65")["seed"].is_null());
    let claim = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "10gbps: the link stays full at the seed's heuristic K = 65")
        .expect("the heuristic K's check");
    assert_eq!(claim["outcome"], "reproduces", "{claim}");
    let v = reproduce_json("dctcp-queue");
    row(&v, "10gbps_n2", "q_max_pkts");
    row(&v, "1gbps_n10", "alpha");
}

#[test]
fn markdown_output_is_deterministic() {
    let a = tmpdir("md-a").with_extension("md");
    let b = tmpdir("md-b").with_extension("md");
    for p in [&a, &b] {
        let o = cclab(&[
            "reproduce",
            "dctcp-k",
            "--quick",
            "--markdown",
            p.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0));
    }
    let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(x, y);
    assert!(String::from_utf8_lossy(&x).contains("| 10gbps | util_at_seed_k65 | – |"));
    let _ = std::fs::remove_file(a);
    let _ = std::fs::remove_file(b);
}

#[test]
fn reproduce_rtt_and_mtu_fairness_quick_pass() {
    let v = reproduce_json("rtt-fairness");
    // On the seed's Linux 2.6 (rate halving, FACK) every Reno number is resolved in
    // --quick's 3 runs; the utilization fails (no buffer gives 71.6%: see the module doc).
    assert_verdicts(&v, [3, 0, 1, 0]);
    assert_eq!(row(&v, "reno", "long_rtt_mbps")["seed"], 202.0);
    assert_eq!(row(&v, "reno", "utilization")["seed"], 0.716);
    row(&v, "htcp", "short_rtt_mbps");
    let v = reproduce_json("mtu-fairness");
    // mtu9000_mbps is resolved since cwnd grows only on ACKs that advance snd_una.
    assert_verdicts(&v, [1, 0, 0, 3]);
    assert_eq!(row(&v, "reno", "mtu9000_mbps")["seed"], 464.0);
    row(&v, "cubic", "mtu3000_mbps");
}

#[test]
fn reproduce_response_function_quick_passes() {
    let v = reproduce_json("response-function");
    // No seed numbers (slides 17-18 are figures): closed forms and the table's own sawtooth.
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 9);
    for a in ["reno", "highspeed", "scalable", "htcp", "bic", "cubic"] {
        for p in ["p1e-3", "p1e-4", "p1e-5"] {
            let r = row(&v, a, &format!("goodput_mbps_{p}"));
            assert!(r["sim"].as_f64().unwrap() > 0.0, "{a} {p}");
        }
    }
    let names: Vec<String> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    // The closed forms are all present (and passed, per reproduce_json).
    for want in [
        "reno vs Mathis at p = 1e-4",
        "highspeed vs RFC 3649 at p = 1e-5",
        "highspeed_delack vs 0.5^0.835 · RFC 3649 at p = 1e-5",
        "scalable vs Kelly's periodic-loss window at p = 1e-4",
    ] {
        assert!(names.iter().any(|n| n == want), "missing check {want}");
    }
    // The table-vs-implementation checks are model self-consistency, counted apart.
    assert_eq!(v["tally"]["model_pass"], 3);
}

#[test]
fn reproduce_recovery_mbng_and_datatag_quick_pass() {
    let v = reproduce_json("recovery-mbng");
    assert_verdicts(&v, [1, 0, 0, 0]);
    assert_eq!(row(&v, "reno", "recovery_s")["seed"], 1.6);
    for a in ["reno", "highspeed", "scalable"] {
        row(&v, a, "throughput_mbps");
    }
    let v = reproduce_json("recovery-datatag");
    let names: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["scalable steady fills the link (0.08/p = 80000 packets > BDP 10403)"]
    );
}

#[test]
fn reproduce_ipg_tuning_quick_passes() {
    let v = reproduce_json("ipg-tuning");
    // Slide 16's claims at Linux 2.4's txqueuelen of 100 (the seed configuration): the
    // three improvements explained by the runs with 10000, the fourth (no effect on the
    // minimum) fails.
    assert_verdicts(&v, [2, 3, 1, 0]);
    // Linux 2.6's 1000 is a row, not judged.
    row(&v, "lfn_txq1000_ipgt_1023", "avg_mbps");
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c["name"].as_str().unwrap().contains("txq1000")));
    // Seed 001 slide 15's two numbers, and the two-stream cap per NIC.
    assert_eq!(row(&v, "ipgt_8", "goodput_mbps")["seed"], 941.0);
    assert_eq!(row(&v, "ipgt_1023", "goodput_mbps")["seed"], 567.0);
    let sum = row(&v, "ipgt_1023_two_flows", "sum_goodput_mbps")["sim"]
        .as_f64()
        .unwrap();
    assert!((sum - 567.2).abs() < 3.0, "{sum}");
}

#[test]
fn reproduce_policer_quick_passes() {
    let v = reproduce_json("policer");
    // The 100k number reproduces (at most 20 Mbit/s: 15.4 with PSH on every GSO packet,
    // which ends the receiver's GRO aggregate and so ACKs each TSO packet, as Linux's
    // `__tcp_transmit_skb` has it); the 1 MiB claim fails, with no cause run.
    assert_verdicts(&v, [6, 0, 1, 0]);
    // Seed 004's numbers: TCP through the 100k policer at most 20 Mbit/s; the tbf fix 850.
    assert_eq!(
        row(&v, "tcp_policed_burst_100k", "goodput_mbps")["seed"],
        20.0
    );
    assert_eq!(row(&v, "tbf_900mbit_fix", "goodput_mbps")["seed"], 850.0);
    let lit = row(&v, "literal_acks_policed", "goodput_mbps")["sim"]
        .as_f64()
        .unwrap();
    let policed = row(&v, "tcp_policed_burst_100k", "goodput_mbps")["sim"]
        .as_f64()
        .unwrap();
    assert!(
        lit > 100.0 * policed,
        "ACK-path policing {lit} vs data-path {policed}"
    );
    // The literal reading is judged against a closed form (the 10G link's payload rate),
    // not against another simulated value, and the policer drops no ACK there.
    let literal = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("literal reading"))
        .unwrap();
    assert_eq!(literal["against"], "closed_form");
    assert_eq!(literal["outcome"], "pass", "{literal}");
    assert_eq!(
        row(&v, "literal_acks_policed", "policer_exceeded_pkts")["sim"],
        0.0
    );
    // UDP at 800 Mbit/s passes the same policer with little or no loss.
    let loss = row(&v, "udp_800mbit_45k", "loss_pct")["sim"]
        .as_f64()
        .unwrap();
    assert!(loss <= 1.0, "UDP loss {loss}%");
}

#[test]
fn reproduce_slow_start_burst_quick_passes() {
    let v = reproduce_json("slow-start-burst");
    // Slide 11's loss in a mostly idle RTT and slide 20's bigger cwnd with CPS reproduce;
    // slide 20's losses that fast retransmit does not repair fail on the seed's Linux 2.6,
    // whose recovery (FACK, rate halving) repairs them without a timeout.
    assert_verdicts(&v, [2, 0, 1, 0]);
    // Slide 11's 180 ms of silence after the burst and slide 19's 200 clusters follow from
    // the experiment's inputs: model checks, not seed numbers.
    assert!(row(&v, "unpaced", "silence_after_round_ms")["seed"].is_null());
    assert!(row(&v, "cps_1ms_80", "clusters_per_rtt")["seed"].is_null());
    let model: Vec<&serde_json::Value> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["against"] == "model")
        .collect();
    assert_eq!(model.len(), 4, "{model:?}");
    assert!(model.iter().all(|c| c["outcome"] == "pass"), "{model:?}");
    let w = |var: &str| {
        row(&v, var, "window_at_first_loss_pkts")["sim"]
            .as_f64()
            .unwrap()
    };
    assert!(
        w("cps_1ms_80") > 3.0 * w("unpaced"),
        "slide 20: CPS grows cwnd further"
    );
}

#[test]
fn reproduce_lfn_pacing_quick_passes() {
    let v = reproduce_json("lfn-pacing");
    // Slide 27's claims, once each with the wire's loss: 2 runs of 10 s (8 at most) do not
    // resolve any of them.
    assert_verdicts(&v, [0, 0, 0, 6]);
    // Slide 27's 3% at 2 ms, beside ours; against the statically optimized IPG, 1024.
    assert_eq!(
        row(&v, "loss_0.001_2ms", "dynamic_vs_static_opt_pct")["seed"],
        -3.0
    );
    assert_eq!(
        row(&v, "loss_0.001_2ms", "static_optimized_ipg")["sim"],
        1024.0
    );
    // The clean wire: cause runs and rows, never judged on their own.
    row(&v, "clean_wire_50ms", "dynamic_vs_default_pct");
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c["name"].as_str().unwrap().starts_with("clean_wire")));
    assert!(
        row(&v, "loss_0.001_50ms", "mathis_mbps")["sim"]
            .as_f64()
            .unwrap()
            > 4.0
    );
}

#[test]
fn reproduce_parallel_streams_quick_passes() {
    let v = reproduce_json("parallel-streams");
    // Slide 9's early hits are explained by BDP/√48; with two runs (--quick) its spread and
    // Jain claims, the remedies' Jain claims and (on the seed's Linux 2.6, whose slow start
    // counts ACKs) slide 8's utilization stay open.
    assert_verdicts(&v, [3, 1, 0, 5]);
    // Seed 001 slide 8: 550 Mbit/s, 91% of the OC-12, from 24 nodes x 2 normal TCP streams.
    assert_eq!(row(&v, "normal_tcp", "goodput_mbps (seed)")["seed"], 550.0);
    assert_eq!(row(&v, "normal_tcp", "utilization (seed)")["seed"], 0.91);
    let jain = |variant: &str| row(&v, variant, "jain")["sim"].as_f64().unwrap();
    // Slide 9's unbalance with a small buffer, and what pacing does to it.
    assert!(jain("normal_tcp_buf_bdp_sqrt48") < jain("fq_pacing_buf_bdp_sqrt48"));
    assert!(jain("normal_tcp_buf_bdp_sqrt48") < jain("tcp_aware_nic_buf_bdp_sqrt48"));
    // Every claim is judged once, on the seed's path (one BDP), with the small buffer as
    // the cause run.
    for c in v["checks"].as_array().unwrap() {
        if c["against"] == "seed" {
            assert!(!c["name"].as_str().unwrap().contains("sqrt48"), "{c}");
        }
        if let Some(cause) = c.get("cause") {
            assert!(cause["variant"]
                .as_str()
                .unwrap()
                .ends_with("_buf_bdp_sqrt48"));
        }
    }
}

#[test]
fn reproduce_incast_qct_quick_passes() {
    let v = reproduce_json("incast-qct");
    // DCTCP's first flights fit (3 segments each, 83 responders); CUBIC's grown windows
    // do not. On the era's rate halving DCTCP's queries take up to two delayed ACKs (80
    // ms) but never an RTO.
    assert_eq!(row(&v, "dctcp-n16", "timeouts")["sim"].as_f64(), Some(0.0));
    assert!(row(&v, "dctcp-n16", "qct_p99_ms")["sim"].as_f64().unwrap() < 200.0);
    assert!(row(&v, "cubic-n64", "qct_p99_ms")["sim"].as_f64().unwrap() >= 200.0);
    assert!(v["tally"]["other_pass"].as_u64().unwrap() >= 4);
}

#[test]
fn reproduce_fct_websearch_quick_passes() {
    let v = reproduce_json("fct-websearch");
    for variant in ["dctcp-load50", "cubic-load70"] {
        let started = row(&v, variant, "flows_started")["sim"].as_f64().unwrap();
        let done = row(&v, variant, "flows_finished")["sim"].as_f64().unwrap();
        assert!(started > 100.0 && done <= started, "{variant}");
        // A slowdown is at least 1 (the ideal is a lower bound).
        assert!(
            row(&v, variant, "short_slowdown_mean")["sim"]
                .as_f64()
                .unwrap()
                >= 1.0
        );
    }
    // CUBIC's unfinished short flows (waiting for an RTO) put its tail beyond what the run
    // measures (inf, serialised as null); DCTCP's is a number.
    assert!(
        row(&v, "dctcp-load70", "short_slowdown_p99")["sim"]
            .as_f64()
            .unwrap()
            >= 1.0
    );
}

/// `[output] summary_flows = false` leaves the per-connection list out of summary.json and
/// nothing else: flows.csv and fct.csv keep every row, the rest of summary.json is the
/// same.
#[test]
fn summary_flows_false_leaves_only_the_list_out() {
    let f = common::example("workload.toml");
    let (a, b) = (tmpdir("sumflows-a"), tmpdir("sumflows-b"));
    for (out, extra) in [
        (&a, "output.summary_flows=true"),
        (&b, "output.summary_flows=false"),
    ] {
        let o = cclab(&[
            "run",
            f.as_str(),
            "--out",
            out.to_str().unwrap(),
            "--set",
            extra,
            "-q",
        ]);
        common::assert_exit_0(&o);
    }
    let json = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap()
    };
    let (mut sa, mut sb) = (json(&a), json(&b));
    let listed = sa["flows"]
        .as_array()
        .expect("flows listed by default")
        .len();
    assert!(listed > 100, "{listed} flows");
    assert!(sb.get("flows").is_none(), "the list is left out");
    // Every table still has every flow (the run id differs: the scenarios differ).
    let rows = |d: &Path, name: &str| {
        std::fs::read_to_string(d.join(name))
            .unwrap()
            .lines()
            .count()
            - 1
    };
    for name in ["flows.csv", "fct.csv"] {
        assert_eq!(rows(&b, name), rows(&a, name), "{name}");
    }
    assert_eq!(rows(&b, "flows.csv"), listed);
    for s in [&mut sa, &mut sb] {
        let m = s.as_object_mut().unwrap();
        m.remove("flows");
        m.remove("run_id");
    }
    assert_eq!(sa, sb);
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

/// `cclab packetdrill`: our scripts pass (exit 0, counts per area with --summary); a script
/// whose expectation cclab does not meet exits 1 naming its line; an unreadable file or a
/// parse error exits 2 naming the file and line.
#[test]
fn packetdrill_exit_codes_and_summary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cclab/tests/packetdrill");
    let o = cclab(&["packetdrill", "--summary", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("area") && out.contains("packetdrill"), "{out}");
    let d = tmpdir("packetdrill");
    std::fs::create_dir_all(&d).unwrap();
    let bad = d.join("wrong.pkt");
    std::fs::write(
        &bad,
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 bind(3, ..., ...) = 0\n+0 listen(3, 1) = 0\n\
         +0 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n\
         +0 > S. 0:0(0) ack 1 <mss 1000,nop,nop,sackOK,nop,wscale 7>\n",
    )
    .unwrap();
    let o = cclab(&["packetdrill", bad.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAIL at line 5") && out.contains("mss 1460"),
        "{out}"
    );
    let broken = d.join("broken.pkt");
    std::fs::write(
        &broken,
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > S. 0:0 ack 1\n",
    )
    .unwrap();
    let o = cclab(&[
        "packetdrill",
        broken.to_str().unwrap(),
        d.join("none.pkt").to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("broken.pkt:2: expected '(' in START:END(LEN)"),
        "{out}"
    );
    assert!(out.contains("cannot read"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Issue 56: BBR v3 answers loss where v1 does not. Two flows (24 and 100 ms RTT) through
/// a 100 Mbit/s bottleneck with a 20-packet buffer (a tenth of the short flow's BDP):
/// BBR v1 paces at its bandwidth estimate whatever is lost (here > 5% of its segments
/// retransmitted), BBR v3 cuts `inflight_hi` when a probe loses more than 2% of what was
/// in flight (`bbr_loss_thresh`) and its lower bounds by 30% per lossy round, so each
/// flow's retransmissions stay under those 2%.
#[test]
fn bbr3_keeps_loss_under_its_threshold_where_bbr_does_not() {
    let file = examples().join("dumbbell.toml");
    let retrans = |cc: &str| -> Vec<f64> {
        let out = tmpdir(&format!("shallow-{cc}"));
        let o = cclab(&[
            "run",
            file.to_str().unwrap(),
            "--set",
            &format!("tcp.cc={cc}"),
            "--set",
            "topology.bottleneck.rate=100Mbps",
            "--set",
            "topology.bottleneck.limit=20pkts",
            "--set",
            "sim.duration=20s",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        common::assert_exit_0(&o);
        let csv = std::fs::read_to_string(out.join("flows.csv")).unwrap();
        let mut lines = csv.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        let (r, d) = (col("retransmits"), col("data_segs_out"));
        let v = lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                f[r].parse::<f64>().unwrap() / f[d].parse::<f64>().unwrap()
            })
            .collect();
        let _ = std::fs::remove_dir_all(&out);
        v
    };
    let v1 = retrans("bbr");
    let v3 = retrans("bbr3");
    assert_eq!((v1.len(), v3.len()), (2, 2));
    assert!(v1.iter().all(|&f| f > 0.05), "bbr: {v1:?}");
    assert!(v3.iter().all(|&f| f < 0.02), "bbr3: {v3:?}");
}

/// BBR v3's PROBE_RTT (depth BDP/2, 200 ms, 5 s after the clock's restart) and its wait
/// between bandwidth probes against the v3 source's closed forms (one deterministic run,
/// the same in --quick): all five checks pass, and PROBE_RTT comes at least twice in 25 s.
#[test]
fn reproduce_bbr_v3_quick_passes() {
    let v = reproduce_json("bbr-v3");
    assert_verdicts(&v, [0, 0, 0, 0]);
    let pass = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] == "pass")
        .count();
    assert_eq!(pass, 5, "{}", v["checks"]);
    let num = |m: &str| row(&v, "bbr3_100mbit_40ms", m)["sim"].as_f64().unwrap();
    assert!(num("probe_rtt_episodes") >= 2.0);
    assert!(num("probe_waits") >= 4.0);
}
