//! Output folders a user can bet on (issue 52, findings 1, 2, 3, 5, 8 and 12), each
//! finding's steps end to end against the built binary: nothing of the user's removed for
//! its name, no link followed inside a folder, a folder all-or-nothing even when the
//! process is killed between renames, every output place checked before the run, one
//! process per folder, and default folders that never replace another run.
//!
//! `CCLAB_TEST_BIN=/path/to/cclab` runs the same steps against another binary (how the report
//! shows each failing on the code before the issue).

#![cfg(unix)]

use crate::common;

use common::listing;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    std::env::var_os("CCLAB_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cclab")))
}

fn cmd(args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn cclab(args: &[&str]) -> Output {
    cmd(args).output().expect("cclab runs")
}

fn tmpdir(name: &str) -> PathBuf {
    common::fresh_dir("outsafe", name)
}

/// Every entry of a folder (not recursing) with its bytes (folders as empty).
fn contents(d: &Path) -> BTreeMap<String, Vec<u8>> {
    listing(d)
        .into_iter()
        .map(|n| {
            let b = std::fs::read(d.join(&n)).unwrap_or_default();
            (n, b)
        })
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// `cclab run examples/dumbbell.toml --out OUT -q --set sim.duration=2s` plus `extra`.
fn dumbbell(out: &Path, extra: &[&str]) -> Command {
    let f = common::example("dumbbell.toml");
    let mut args = vec![
        "run",
        f.as_str(),
        "--out",
        out.to_str().unwrap(),
        "-q",
        "--set",
        "sim.duration=2s",
    ];
    args.extend_from_slice(extra);
    cmd(&args)
}

/// Kills the child when dropped (a failed assertion must not leave a 600 s run behind).
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn done(c: &mut Command) -> Output {
    c.output().expect("cclab runs")
}

/// A small sweep file (2 points of a 2 s dumbbell) in `dir`.
fn small_sweep(dir: &Path, duration: &str, seeds: u32) -> String {
    let text = std::fs::read_to_string(common::example("dumbbell.toml"))
        .unwrap()
        .replace("duration = \"30s\"", &format!("duration = \"{duration}\""))
        .replace("plots = true", "plots = false")
        + &format!("\n[sweep]\n\"tcp.cc\" = [\"cubic\", \"reno\"]\nseeds = {seeds}\n");
    let f = dir.join("s.toml");
    std::fs::write(&f, text).unwrap();
    f.to_string_lossy().into_owned()
}

/// Wait for `child` at most `limit`; kill it if it is still running (it was simulating).
fn wait_at_most(mut child: Child, limit: Duration) -> (Output, Duration) {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return (child.wait_with_output().unwrap(), t0.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    panic!(
        "still running after {limit:?} (it simulated instead of stopping): {}",
        stderr(&o)
    );
}

/// Finding 1: a user's files named as cclab's temporaries once were (`.NAME.tmp-PID`,
/// `.NAME.part-PID-…`, with a PID that is not running) are never removed: not in a new
/// folder, not with --force, not inside a folder cclab wrote.
#[test]
fn f01_user_files_named_like_temporaries_survive() {
    let base = tmpdir("f01");
    let d = base.join("d");
    std::fs::create_dir(&d).unwrap();
    let mine = [".thesis.tmp-999999", ".video.part-424242-final.mkv"];
    for n in mine {
        std::fs::write(d.join(n), "draft").unwrap();
    }
    // The step: the folder holds only the user's hidden files.
    let o = done(&mut dumbbell(&d, &[]));
    let o2 = done(&mut dumbbell(&d, &["--force"]));
    let o3 = done(&mut dumbbell(&d, &["--force", "--seed", "2"]));
    for n in mine {
        assert_eq!(
            std::fs::read_to_string(d.join(n)).ok().as_deref(),
            Some("draft"),
            "{n} was removed (exits {:?} {:?} {:?}: {})",
            o.status.code(),
            o2.status.code(),
            o3.status.code(),
            stderr(&o)
        );
    }
    common::assert_exit_0(&o2);
    common::assert_exit_0(&o3);
    // Without --force the folder is not cclab's: refused, naming the files.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(".thesis.tmp-999999"), "{}", stderr(&o));
    // Inside a folder cclab wrote (it has run.json), without --force.
    let c = base.join("c");
    common::assert_exit_0(&done(&mut dumbbell(&c, &[])));
    for n in mine {
        std::fs::write(c.join(n), "draft").unwrap();
    }
    common::assert_exit_0(&done(&mut dumbbell(&c, &["--seed", "3"])));
    for n in mine {
        assert_eq!(std::fs::read_to_string(c.join(n)).unwrap(), "draft", "{n}");
    }
    assert_eq!(json(&c.join("run.json"))["seed"], 3);
    let _ = std::fs::remove_dir_all(&base);
}

/// Finding 2: `sweep` does not follow a `points` link (no file deleted or written where it
/// points), and `run` refuses a planned file or `.cclab-tmp` that is a link; each is
/// refused before anything runs, naming the path.
#[test]
fn f02_links_inside_an_output_folder_are_never_followed() {
    let base = tmpdir("f02");
    let file = small_sweep(&base, "2s", 1);
    let sw = base.join("sw");
    common::assert_exit_0(&cclab(&[
        "sweep",
        &file,
        "--out",
        sw.to_str().unwrap(),
        "-q",
    ]));
    let user = base.join("userdocs");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join(".essay.tmp-1-x"), "essay").unwrap();
    std::fs::write(user.join("notes.txt"), "notes").unwrap();
    let before = contents(&user);
    // The step: rm -r sw/points; ln -s ../userdocs sw/points; sweep again.
    std::fs::remove_dir_all(sw.join("points")).unwrap();
    std::os::unix::fs::symlink("../userdocs", sw.join("points")).unwrap();
    let o = cclab(&["sweep", &file, "--out", sw.to_str().unwrap(), "-q"]);
    assert_eq!(
        listing(&user),
        [".essay.tmp-1-x", "notes.txt"],
        "the link's target changed: {}",
        stderr(&o)
    );
    assert_eq!(contents(&user), before);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("points"), "{}", stderr(&o));

    // A run's planned file that is a link: refused, naming it; the target untouched.
    let d = base.join("run");
    common::assert_exit_0(&done(&mut dumbbell(&d, &[])));
    for (name, target) in [
        ("flows.csv", user.join("notes.txt")),
        (".cclab-tmp", user.clone()),
    ] {
        let saved = contents(&d);
        let _ = std::fs::remove_file(d.join(name));
        std::os::unix::fs::symlink(&target, d.join(name)).unwrap();
        let t0 = Instant::now();
        let o = done(&mut dumbbell(&d, &["--set", "sim.duration=600s"]));
        assert_eq!(
            listing(&user),
            [".essay.tmp-1-x", "notes.txt"],
            "{name}: {}",
            stderr(&o)
        );
        assert_eq!(contents(&user), before, "{name}: {}", stderr(&o));
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "{name}: refused before the run"
        );
        assert!(
            stderr(&o).contains(&format!("{}", d.join(name).display()))
                && stderr(&o).contains("link"),
            "{name}: {}",
            stderr(&o)
        );
        std::fs::remove_file(d.join(name)).unwrap();
        if let Some(b) = saved.get(name) {
            std::fs::write(d.join(name), b).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// Finding 3: a folder never mixes two runs. A folder whose listed file became a folder is
/// refused before the run (the steps), and a process killed between the renames
/// of its install (`CCLAB_FAULT=after-rename:N`) leaves the old folder whole — manifest
/// and every file of the same run — or, killed after the one exchange, the new one whole;
/// the next run recovers cleanly (no staging folder, no journal left).
#[test]
fn f03_a_folder_never_mixes_two_runs_even_when_killed_between_renames() {
    let base = tmpdir("f03");
    let m = base.join("m");
    common::assert_exit_0(&done(&mut dumbbell(&m, &[])));
    // The steps: rm m/throughput.svg; mkdir m/throughput.svg; run --seed 9.
    std::fs::remove_file(m.join("throughput.svg")).unwrap();
    std::fs::create_dir(m.join("throughput.svg")).unwrap();
    let o = done(&mut dumbbell(&m, &["--seed", "9"]));
    assert_eq!(
        json(&m.join("run.json"))["seed"],
        json(&m.join("summary.json"))["seed"],
        "run.json and summary.json from different runs: {}",
        stderr(&o)
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("throughput.svg"), "{}", stderr(&o));
    std::fs::remove_dir(m.join("throughput.svg")).unwrap();
    std::fs::remove_dir_all(&m).unwrap();

    common::assert_exit_0(&done(&mut dumbbell(&m, &[])));
    let old = contents(&m);
    assert_eq!(json(&m.join("summary.json"))["seed"], 1);
    // Killed before the exchange: the old folder, byte for byte.
    let o = done(dumbbell(&m, &["--seed", "9"]).env("CCLAB_FAULT", "after-rename:0"));
    assert_eq!(o.status.code(), None, "killed by the hook: {}", stderr(&o));
    // (`.cclab-tmp`, cclab's working folder with the killed process's lock and journal,
    // is not part of the result; the next run removes it by the journal.)
    let mut now = contents(&m);
    assert!(now.remove(".cclab-tmp").is_some());
    assert_eq!(now, old, "the old folder is not whole");
    // Killed right after the exchange: the new folder whole (every file of seed 9).
    let o = done(dumbbell(&m, &["--seed", "9"]).env("CCLAB_FAULT", "after-rename:1"));
    assert_eq!(o.status.code(), None, "killed by the hook: {}", stderr(&o));
    let files = json(&m.join("run.json"))["files"].clone();
    assert_eq!(json(&m.join("run.json"))["seed"], 9);
    assert_eq!(json(&m.join("summary.json"))["seed"], 9);
    let mut listed: Vec<String> = files
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .chain([".cclab-tmp".to_string(), "run.json".to_string()])
        .collect();
    listed.sort();
    assert_eq!(listing(&m), listed);
    // The next run recovers: nothing of the killed ones stays beside or inside.
    common::assert_exit_0(&done(&mut dumbbell(&m, &["--seed", "9"])));
    assert_eq!(listing(&base), ["m"], "a staging folder stayed");
    assert!(!m.join(".cclab-tmp").exists());
    let new = contents(&m);
    common::assert_exit_0(&done(&mut dumbbell(&m, &["--seed", "9"])));
    let again = contents(&m);
    assert_eq!(
        new.iter()
            .filter(|(k, _)| *k != "perf.json" && *k != "run.json")
            .collect::<Vec<_>>(),
        again
            .iter()
            .filter(|(k, _)| *k != "perf.json" && *k != "run.json")
            .collect::<Vec<_>>(),
    );

    // Beside a user's file (--force) the install goes file by file under a journal that
    // the next run rolls forward; the user's file never moves.
    let f = base.join("f");
    std::fs::create_dir(&f).unwrap();
    std::fs::write(f.join("notes.txt"), "mine").unwrap();
    common::assert_exit_0(&done(&mut dumbbell(&f, &["--force"])));
    let o = done(dumbbell(&f, &["--seed", "9", "--force"]).env("CCLAB_FAULT", "after-rename:3"));
    assert_eq!(o.status.code(), None, "killed by the hook: {}", stderr(&o));
    assert!(f.join(".cclab-tmp/journal.json").exists());
    common::assert_exit_0(&done(&mut dumbbell(&f, &["--seed", "9", "--force"])));
    assert_eq!(json(&f.join("run.json"))["seed"], 9);
    assert_eq!(json(&f.join("summary.json"))["seed"], 9);
    assert_eq!(
        std::fs::read_to_string(f.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(!f.join(".cclab-tmp").exists());
    let _ = std::fs::remove_dir_all(&base);
}

/// Finding 5: an output place that cannot be written — a 300-character name, a path
/// over PATH_MAX, a dangling link — is refused before the run: exit 2 at once, not after
/// simulating (a 600 s dumbbell takes ~25 s).
#[test]
fn f05_output_paths_are_checked_before_the_simulation() {
    let base = tmpdir("f05");
    let long = base.join("x".repeat(300));
    let deep = base.join(["d"; 2100].join("/"));
    let dangling = base.join("dangling");
    std::os::unix::fs::symlink(base.join("nowhere"), &dangling).unwrap();
    for out in [&long, &deep, &dangling] {
        let child = dumbbell(out, &["--set", "sim.duration=600s"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (o, _) = wait_at_most(child, Duration::from_secs(2));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("nothing was run"), "{}", stderr(&o));
    }
    // reproduce --out (a dangling link) and --markdown (a 300-character name).
    let md = base.join(format!("{}.md", "y".repeat(300)));
    for args in [
        vec!["--out", dangling.to_str().unwrap()],
        vec!["--markdown", md.to_str().unwrap()],
    ] {
        let mut a = vec!["reproduce", "dctcp-incast", "-q"];
        a.extend(args);
        let child = cmd(&a)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (o, _) = wait_at_most(child, Duration::from_secs(2));
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
    }
    // sweep --out, 300 characters.
    let file = small_sweep(&base, "2s", 1);
    let o = cclab(&["sweep", &file, "--out", long.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(listing(&base), ["dangling", "s.toml"]);
    let _ = std::fs::remove_dir_all(&base);
}

/// Finding 8: one cclab process per output folder. While a run holds it, a second run, a
/// sweep and a reproduce into it exit 2 at once (before simulating), naming the holder's
/// pid; two sweeps on one folder likewise.
#[test]
fn f08_a_second_process_on_one_out_is_refused_naming_the_first() {
    let base = tmpdir("f08");
    let d = base.join("d");
    let first = dumbbell(&d, &["--set", "sim.duration=600s"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = first.id().to_string();
    let first = KillOnDrop(first);
    started(&d, &pid);
    let file = small_sweep(&base, "2s", 1);
    let ds = d.to_str().unwrap();
    let ex = common::example("dumbbell.toml");
    let seconds: Vec<Vec<&str>> = vec![
        vec!["run", &ex, "--out", ds, "-q", "--set", "sim.duration=600s"],
        vec!["sweep", &file, "--out", ds, "-q"],
        vec!["reproduce", "dctcp-incast", "-q", "--out", ds],
    ];
    for a in &seconds {
        let child = cmd(a)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (o, _) = wait_at_most(child, Duration::from_secs(3));
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("cclab process {pid}")),
            "{a:?}: {}",
            stderr(&o)
        );
    }
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let mut first = first;
    let status = first.0.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!d.exists(), "the interrupted first run left its new folder");
    // Two sweeps on one folder.
    let slow = small_sweep(&base, "30s", 4);
    let sw = base.join("sw");
    let sweep = || {
        cmd(&[
            "sweep",
            &slow,
            "--out",
            sw.to_str().unwrap(),
            "-q",
            "--jobs",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
    };
    let a = KillOnDrop(sweep());
    let apid = a.0.id().to_string();
    started(&sw, &apid);
    let (o, _) = wait_at_most(sweep(), Duration::from_secs(3));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("cclab process {apid}")),
        "{}",
        stderr(&o)
    );
    drop(a);
    let _ = std::fs::remove_dir_all(&base);
}

/// Wait until the process `pid` holds folder `d`'s lock, at most 2 s (a cclab without
/// locks is simply running by then).
fn started(d: &Path, pid: &str) {
    let t0 = Instant::now();
    while std::fs::read_to_string(d.join(".cclab-tmp/lock")).map_or(true, |s| s.trim() != pid)
        && t0.elapsed() < Duration::from_secs(2)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Finding 12: the default folder (no --out) of a run with other inputs (`--set`,
/// `--seed`) is another folder; the earlier results stay. The same inputs give the same
/// folder.
#[test]
fn f12_default_folders_never_replace_another_run() {
    let base = tmpdir("f12");
    let f = common::example("dumbbell.toml");
    let run = |extra: &[&str]| {
        let mut a = vec!["run", f.as_str(), "-q", "--set", "sim.duration=2s"];
        a.extend_from_slice(extra);
        let o = Command::new(bin())
            .args(&a)
            .current_dir(&base)
            .output()
            .unwrap();
        common::assert_exit_0(&o);
    };
    run(&[]);
    let first = listing(&base.join("out"));
    assert_eq!(first.len(), 1);
    let summary = std::fs::read(base.join("out").join(&first[0]).join("summary.json")).unwrap();
    run(&["--set", "sim.duration=3s"]);
    run(&["--seed", "2"]);
    let all = listing(&base.join("out"));
    assert_eq!(all.len(), 3, "{all:?}");
    assert_eq!(
        std::fs::read(base.join("out").join(&first[0]).join("summary.json")).unwrap(),
        summary,
        "the first run's results were replaced"
    );
    for d in &all {
        assert!(d.starts_with("dumbbell-cubic-rtt-"), "{d}");
    }
    run(&[]);
    assert_eq!(
        listing(&base.join("out")),
        all,
        "the same inputs, the same folder"
    );
    let _ = std::fs::remove_dir_all(&base);
}
