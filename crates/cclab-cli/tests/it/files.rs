//! cclab never destroys what it did not write: output folders are new, empty or cclab's
//! own (a run.json manifest); every output place is checked before anything runs; files
//! appear whole or not at all, and Ctrl-C leaves nothing half-written.

use crate::common;

use common::listing;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::cclab;

fn tmpdir(name: &str) -> PathBuf {
    common::fresh_dir("files", name)
}

/// A short run of the loss example into `out`, with extra arguments.
fn short_run(out: &Path, extra: &[&str]) -> Output {
    let f = common::example("loss.toml");
    let mut args = vec![
        "run",
        f.as_str(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "sim.duration=200ms",
        "-q",
    ];
    args.extend_from_slice(extra);
    cclab(&args)
}

#[test]
fn a_folder_with_files_cclab_did_not_write_is_refused_before_the_run() {
    let dir = tmpdir("foreign");
    std::fs::write(dir.join("queue.csv"), "my data").unwrap();
    let t0 = Instant::now();
    let o = short_run(&dir, &["--set", "sim.duration=60s"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "refused before the run"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cclab did not write") && err.contains("nothing was run"),
        "{err}"
    );
    assert_eq!(listing(&dir), ["queue.csv"]);
    // --force writes beside the user's file, never over it.
    let o = short_run(&dir, &["--force"]);
    common::assert_exit_0(&o);
    assert_eq!(
        std::fs::read_to_string(dir.join("queue.csv")).unwrap(),
        "my data"
    );
    assert!(dir.join("run.json").exists() && dir.join("summary.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cclabs_own_folder_is_rewritten_and_a_colliding_file_is_never_replaced() {
    let base = tmpdir("own");
    let dir = base.join("run");
    assert_eq!(short_run(&dir, &[]).status.code(), Some(0));
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    assert_eq!(short_run(&dir, &[]).status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(
        !listing(&dir).iter().any(|f| f.starts_with('.')),
        "no temporaries"
    );
    // A capture whose name is taken by the user's file: refused before the run.
    std::fs::write(dir.join("s0.pcap"), "not a capture").unwrap();
    let o = short_run(&dir, &["--pcap", "s0", "--force"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("s0.pcap exists and was not written by cclab")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("s0.pcap")).unwrap(),
        "not a capture"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn names_from_the_scenario_cannot_leave_the_output_folder() {
    let base = tmpdir("names");
    for name in ["..", ".", ".hidden", "a/b", "a\\b"] {
        let f = common::example("loss.toml");
        let set = format!("sim.name={name}");
        let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
            .args(["run", &f, "--set", &set, "-q"])
            .current_dir(&base)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("sim.name"),
            "{name}"
        );
    }
    assert!(listing(&base).is_empty(), "nothing written anywhere");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn output_paths_that_cannot_work_are_refused_before_the_run() {
    let base = tmpdir("paths");
    let file = base.join("file");
    std::fs::write(&file, "x").unwrap();
    for out in [file.clone(), file.join("run")] {
        let t0 = Instant::now();
        let o = short_run(&out, &["--set", "sim.duration=60s"]);
        assert_eq!(o.status.code(), Some(2), "{}", out.display());
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert!(String::from_utf8_lossy(&o.stderr).contains("not a folder"));
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn markdown_replaces_only_a_file_cclab_wrote() {
    let base = tmpdir("md");
    let mine = base.join("notes.md");
    std::fs::write(&mine, "my notes").unwrap();
    let run = |path: &Path, force: bool| {
        let mut args = vec![
            "reproduce",
            "mbecn-vs-tcp",
            "--quick",
            "-q",
            "--markdown",
            path.to_str().unwrap(),
        ];
        if force {
            args.push("--force");
        }
        cclab(&args)
    };
    let o = run(&mine, false);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my notes");
    #[cfg(unix)]
    {
        let link = base.join("link.md");
        std::os::unix::fs::symlink(&mine, &link).unwrap();
        let o = run(&link, true);
        assert_eq!(o.status.code(), Some(2), "a link is never replaced");
        assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
        assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my notes");
    }
    let fresh = base.join("r.md");
    assert_eq!(run(&fresh, false).status.code(), Some(0));
    assert_eq!(
        run(&fresh, false).status.code(),
        Some(0),
        "its own file is replaced"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn a_folder_reruns_the_run_that_wrote_it() {
    let base = tmpdir("rerun");
    let (a, b) = (base.join("a"), base.join("b"));
    assert_eq!(
        short_run(&a, &["--set", "tcp.cc=reno"]).status.code(),
        Some(0)
    );
    let o = cclab(&[
        "run",
        a.to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
        "-q",
    ]);
    common::assert_exit_0(&o);
    assert_eq!(
        std::fs::read(a.join("summary.json")).unwrap(),
        std::fs::read(b.join("summary.json")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// A run over a trace file (`trace = "traces/x.trace"`, relative to the scenario's
/// folder) records the file it read in run.json (`inputs`); `cclab run DIR` reads that
/// file, not one relative to DIR, and gives the same results and run id. A trace changed
/// or gone since is refused with exit 2, naming run.json, the key and the value, and
/// nothing is written.
#[test]
fn a_folder_reruns_over_the_trace_file_its_run_read() {
    let base = tmpdir("rerun-trace");
    std::fs::create_dir_all(base.join("sc/traces")).unwrap();
    let trace = base.join("sc/traces/x.trace");
    std::fs::write(&trace, "1\n2\n3\n").unwrap();
    let scenario = base.join("sc/cell.toml");
    std::fs::write(
        &scenario,
        "[sim]\nduration = \"300ms\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = { rate = { trace = \"traces/x.trace\" }, delay = \"10ms\" }\n",
    )
    .unwrap();
    let (a, b, c) = (base.join("a"), base.join("b"), base.join("c"));
    let path = |p: &Path| p.to_str().unwrap().to_string();
    common::assert_exit_0(&cclab(&["run", &path(&scenario), "--out", &path(&a), "-q"]));
    let manifest = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("run.json")).unwrap()).unwrap()
    };
    let m = manifest(&a);
    let inputs = m["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 1, "{m}");
    assert_eq!(inputs[0]["key"], "topology.bottleneck.rate.trace");
    assert_eq!(inputs[0]["value"], "traces/x.trace");
    assert_eq!(
        Path::new(inputs[0]["path"].as_str().unwrap()),
        trace.as_path()
    );
    // Rerun from the folder (cclab runs in the CLI crate's folder: neither the
    // scenario's folder nor the run's).
    common::assert_exit_0(&cclab(&["run", &path(&a), "--out", &path(&b), "-q"]));
    assert_eq!(
        std::fs::read(a.join("summary.json")).unwrap(),
        std::fs::read(b.join("summary.json")).unwrap()
    );
    assert_eq!(manifest(&b)["run_id"], m["run_id"]);
    assert_eq!(manifest(&b)["inputs"], m["inputs"]);
    // One line changed, then the file gone: refused, nothing written.
    let refused = |why: &str| {
        let o = cclab(&["run", &path(&a), "--out", &path(&c), "-q"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        for want in [
            "run.json",
            "topology.bottleneck.rate.trace",
            "\"traces/x.trace\"",
            trace.to_str().unwrap(),
            why,
        ] {
            assert!(err.contains(want), "{want}: {err}");
        }
        assert!(!c.exists(), "nothing is written");
    };
    std::fs::write(&trace, "1\n2\n4\n").unwrap();
    refused("has changed since the run");
    std::fs::remove_file(&trace).unwrap();
    refused("cannot read trace file");
    let _ = std::fs::remove_dir_all(&base);
}

#[cfg(unix)]
#[test]
fn ctrl_c_leaves_nothing_half_written() {
    // SIGTERM (`kill`, a batch system's time limit) is handled as Ctrl-C is.
    for sig in ["-INT", "-TERM"] {
        let base = tmpdir(&format!("ctrlc{sig}"));
        let dir = base.join("run");
        let f = common::example("dumbbell.toml");
        let child = Command::new(env!("CARGO_BIN_EXE_cclab"))
            .args([
                "run",
                &f,
                "--out",
                dir.to_str().unwrap(),
                "--set",
                "sim.duration=600s",
                "--pcap",
                "s0",
                "-q",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the capture is being written, then interrupt.
        let t0 = Instant::now();
        while !dir.exists() || listing(&dir).is_empty() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "the run did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        let ok = Command::new("kill")
            .args([sig, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130), "{sig}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was written"));
        assert!(
            !dir.exists(),
            "{sig}: the half-written capture and the new folder are gone"
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}

// A file named as cclab's temporaries once were (`.NAME.part-PID-N`) is a user's file like
// any other, whatever its PID: `outputs_safety.rs`, f01.

/// A workload's finished flows go to a temporary file; where none can be made (TMPDIR
/// names no folder) the run still gives every row, kept in memory, and says so on stderr.
#[test]
fn no_temporary_folder_keeps_the_rows_in_memory_with_a_warning() {
    let d = tmpdir("notmp");
    let mut csvs = Vec::new();
    for (name, tmp) in [("ok", std::env::temp_dir()), ("bad", d.join("absent"))] {
        let out = d.join(name);
        let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
            .args(["run", &common::example("workload.toml"), "-q", "--out"])
            .arg(&out)
            .args(["--set", "sim.duration=0.5s"])
            .env("TMPDIR", &tmp)
            .output()
            .expect("cclab runs");
        common::assert_exit_0(&o);
        let err = String::from_utf8_lossy(&o.stderr);
        let warned = err.contains("warning: ") && err.contains("kept in memory instead");
        assert_eq!(warned, name == "bad", "{name}: {err}");
        csvs.push(std::fs::read_to_string(out.join("flows.csv")).unwrap());
    }
    // More rows than the 256 KiB kept before the file is needed (FlowLog::SPILL).
    assert!(csvs[0].len() > 256 << 10, "{} bytes", csvs[0].len());
    assert!(csvs[0] == csvs[1], "the same rows either way");
    let _ = std::fs::remove_dir_all(&d);
}

/// A path that is not UTF-8 is a path like any other: the run writes its folder (its
/// name written lossily into `run.json`'s command), no panic.
#[cfg(unix)]
#[test]
fn an_out_folder_whose_name_is_not_utf8_is_written() {
    use std::os::unix::ffi::OsStrExt;
    let base = tmpdir("not-utf8");
    std::fs::create_dir_all(&base).unwrap();
    let out = base.join(std::ffi::OsStr::from_bytes(b"bad\xff"));
    let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .arg("run")
        .arg(common::example("loss.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--set", "sim.duration=200ms", "-q"])
        .output()
        .expect("cclab runs");
    common::assert_exit_0(&o);
    assert!(out.join("run.json").exists());
    let _ = std::fs::remove_dir_all(&base);
}

/// `reproduce --seed` above 2^62 is refused at once (experiments run further seeds after
/// it, and a scenario's seed is at most 2^63 − 1), not a panic inside an experiment.
#[test]
fn a_reproduce_seed_out_of_range_exits_2() {
    let o = cclab(&[
        "reproduce",
        "mbecn-star",
        "--quick",
        "--seed",
        "9223372036854775808",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seed"));
}

/// `reproduce`'s Markdown file may not be the out folder or a file in it, and a path
/// ending in a separator is no file: refused before anything runs, nothing written.
#[test]
fn a_markdown_file_inside_the_out_folder_is_refused_before_running() {
    let base = tmpdir("md-in-out");
    std::fs::create_dir_all(&base).unwrap();
    let dir = base.join("out");
    let d = dir.to_str().unwrap();
    let inside = dir.join("run.json");
    for md in [d, inside.to_str().unwrap()] {
        let o = cclab(&[
            "reproduce",
            "mbecn-vs-tcp",
            "--quick",
            "--out",
            d,
            "--markdown",
            md,
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("is in --out") && err.contains("nothing was run"),
            "{err}"
        );
        assert!(!dir.exists());
    }
    let slash = format!("{}/", base.join("new").display());
    let o = cclab(&["reproduce", "mbecn-vs-tcp", "--quick", "--markdown", &slash]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("names a folder"));
    assert!(!base.join("new").exists());
    let _ = std::fs::remove_dir_all(&base);
}

/// A Markdown file is cclab's to replace only if it carries the line cclab writes under
/// its heading: a user's notes that merely start `# Reproductions` are refused without
/// `--force`, and kept; cclab's own file is rewritten.
#[test]
fn a_users_markdown_with_the_same_heading_is_not_replaced() {
    let base = tmpdir("md-heading");
    std::fs::create_dir_all(&base).unwrap();
    let md = base.join("notes.md");
    std::fs::write(&md, "# Reproductions\n\nmy own notes\n").unwrap();
    let m = md.to_str().unwrap();
    let o = cclab(&["reproduce", "mbecn-vs-tcp", "--quick", "--markdown", m]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not written by cclab"));
    assert_eq!(
        std::fs::read_to_string(&md).unwrap(),
        "# Reproductions\n\nmy own notes\n"
    );
    std::fs::remove_file(&md).unwrap();
    for _ in 0..2 {
        common::assert_exit_0(&cclab(&[
            "reproduce",
            "mbecn-vs-tcp",
            "--quick",
            "--markdown",
            m,
        ]));
    }
    let _ = std::fs::remove_dir_all(&base);
}
