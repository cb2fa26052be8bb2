//! Every value either works or is refused before the run: units that could be read two
//! ways, times the clock cannot hold, timers that would run away, series that would fill
//! memory, and hostile values in messages. Each case exits 2, writes nothing and says why.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `cclab run examples/dumbbell.toml --set …` into a fresh folder; returns the output,
/// the wall time, and whether the folder exists afterwards.
fn run_with(sets: &[&str]) -> (Output, Duration, bool) {
    // A folder of its own per call: the tests run in parallel, and a folder is taken
    // (created and locked) from the check before the run.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = tmpdir(&format!("run-{n}"));
    let f = common::example("dumbbell.toml");
    let mut args = vec!["run", f.as_str(), "--out", out.to_str().unwrap(), "-q"];
    for s in sets {
        args.push("--set");
        args.push(s);
    }
    let t0 = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(&args)
        .output()
        .expect("cclab runs");
    let exists = out.exists();
    let _ = std::fs::remove_dir_all(&out);
    (o, t0.elapsed(), exists)
}

/// The run is refused before it starts: exit 2 within seconds, nothing written, and the
/// message contains every one of `says`.
fn refused(sets: &[&str], says: &[&str]) {
    let (o, took, exists) = run_with(sets);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{sets:?}: {err}");
    assert!(took < Duration::from_secs(10), "{sets:?} took {took:?}");
    assert!(!exists, "{sets:?}: nothing is written");
    assert!(o.stdout.is_empty(), "{sets:?}");
    for s in says {
        assert!(err.contains(s), "{sets:?}: expected {s:?} in:\n{err}");
    }
}

#[test]
fn rates_that_could_be_read_as_bytes_are_refused() {
    for r in ["8MB/S", "1GBPS", "125MB/s", "1Bps"] {
        refused(
            &[&format!("topology.bottleneck.rate={r}")],
            &["bytes per second", "1 MB/s = 8 Mbps"],
        );
    }
    for (r, fix) in [("1mbps", "Mbps"), ("1gbps", "Gbps")] {
        refused(
            &[&format!("topology.bottleneck.rate={r}")],
            &["tc reads it as", fix],
        );
    }
    refused(
        &["sim.duration=30S"],
        &["did you mean \"s\"", "case-sensitive"],
    );
    refused(&["tcp.sndbuf=16mb"], &["is bits, but sizes are in bytes"]);
}

#[test]
fn times_beyond_the_clock_are_refused() {
    // Today 18446743 s hangs and 18446744 s wraps; both are far beyond what a run needs.
    refused(&["sim.duration=18446743s"], &["at most 1000000 s"]);
    refused(&["tcp.rto_max=18446744s"], &["at most 1000000 s"]);
    refused(&["sim.duration=5000h"], &["at most 1000000 s"]);
    // The largest time that is allowed works in a sum with others (start + duration).
    let (o, _, _) = run_with(&[
        "sim.duration=1000000s",
        "flow.1.start=999999s",
        "tcp.rto_max=1000000s",
        "topology.bottleneck.delay=1000000s",
        "flow.0.stop=1s",
        "output.cwnd=1000s",
        "output.queue=1000s",
        "output.throughput=1000s",
    ]);
    common::assert_exit_0(&o);
}

#[test]
fn runaway_and_inconsistent_timers_are_refused() {
    refused(
        &["tcp.rto_max=1ns"],
        &["tcp.rto_max", "must be at least 1ms"],
    );
    refused(
        &["flow.0.rto_max=999us"],
        &["flow.0.rto_max", "at least 1ms"],
    );
    refused(
        &["tcp.rto_min=300ms", "tcp.rto_max=250ms"],
        &["rto_min (300ms) must not exceed rto_max (250ms)"],
    );
    refused(
        &["tcp.rto_min=2s", "flow.1.rto_max=1s"],
        &["flow.1.rto_max", "must not exceed"],
    );
}

/// A receive buffer beyond the largest window TCP can advertise (65,535 << 14 bytes) is
/// refused; the largest one runs.
#[test]
fn receive_buffers_beyond_the_largest_window_are_refused() {
    refused(
        &["tcp.rcvbuf=2GiB"],
        &["tcp.rcvbuf", "largest TCP window, 1073725440 B"],
    );
    refused(&["flow.0.rcvbuf=1GiB"], &["flow.0.rcvbuf", "RFC 7323"]);
    let (o, _, _) = run_with(&["tcp.rcvbuf=1073725440B", "sim.duration=1100ms"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn series_that_would_fill_memory_are_refused_in_total() {
    // 20 senders × a cwnd sample every 5 µs over 30 s: each series alone is allowed (6 M
    // points), all flows together are 120 M rows.
    refused(
        &[
            "topology.senders=20",
            "topology.access_delay=1ms",
            "output.cwnd=5us",
        ],
        &["output.cwnd", "rows", "more than the 10000000"],
    );
    // A traced flow on a 100 Gbit/s path for 100 s.
    refused(
        &[
            "topology.bottleneck.rate=100Gbps",
            "sim.duration=100s",
            "output.tsg=[0]",
        ],
        &["output.tsg", "what the senders' links can carry"],
    );
}

#[test]
fn hostile_values_give_short_clean_messages_at_once() {
    let big = "x".repeat(100_000);
    let cases = [
        format!("tcp.cc={big}"),
        format!("flow.0.to=r{big}"),
        format!("tcp.{big}=1"),
        format!("topology.bottleneck.rate=1{big}"),
        "tcp.cc=\u{1b}[31mred".to_string(),
        "sim.name=\u{1b}]0;title\u{7}".to_string(),
    ];
    for c in &cases {
        let (o, took, exists) = run_with(&[c]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(!exists);
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert!(err.len() < 2_000, "a {} byte message", err.len());
        assert!(
            !err.contains(|c: char| c.is_control() && c != '\n'),
            "raw control bytes reach the terminal: {err:?}"
        );
    }
    // A syntax error on a 10 MB line is shown as an excerpt.
    let dir = tmpdir("hostile-file");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("big.toml");
    std::fs::write(&f, format!("a = \"{}\n", "y".repeat(10_000_000))).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(["run", f.to_str().unwrap(), "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.len() < 1_000, "a {} byte message", err.len());
    assert!(err.contains("TOML parse error at line 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cclab ARGS` that must end within `secs` seconds (a read without a limit never
/// ends: before f07, `cclab run /dev/zero` grew to 8 GB in 26 s): its output, or a
/// failure after the process is killed.
fn within(args: &[&str], secs: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("cclab runs");
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Exit 2, and stderr names every one of `says`.
fn refused_saying(o: &Output, what: &str, says: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    for s in says {
        assert!(err.contains(s), "{what}: expected {s:?} in:\n{err}");
    }
}

/// The limit as the messages give it (docs/scenario.md states it).
const LIMIT: &str = "16 MiB limit of cclab's inputs (16777216 bytes)";

#[test]
fn f07_an_endless_device_is_read_up_to_the_limit_and_refused() {
    for cmd in ["run", "sweep"] {
        let o = within(&[cmd, "/dev/zero"], 5);
        refused_saying(
            &o,
            cmd,
            &["/dev/zero", LIMIT, "stopped reading after 16777217 bytes"],
        );
    }
}

#[test]
fn f07_an_endless_pipe_is_read_up_to_the_limit_and_refused() {
    let dir = tmpdir("fifo");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("scenario.toml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // A writer that never stops (until the reader closes the pipe).
    let f = fifo.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut w = std::fs::OpenOptions::new().write(true).open(f).unwrap();
        let line = "# a comment line that goes on and on\n".repeat(1000);
        while w.write_all(line.as_bytes()).is_ok() {}
    });
    let o = within(&["run", fifo.to_str().unwrap()], 5);
    writer.join().unwrap();
    refused_saying(&o, "fifo", &["scenario.toml", LIMIT, "16777217 bytes"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file over the limit (a sparse one: no disk, no time) is refused by its size, without
/// a byte of it read: a scenario for `run` and `sweep`, and the run.json of a folder
/// given to `cclab run` (whose limit is twice the scenario's).
#[test]
fn f07_a_file_over_the_limit_is_refused_naming_its_size() {
    let dir = tmpdir("big");
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.toml");
    let size: u64 = (16 << 20) + 1;
    std::fs::File::create(&big).unwrap().set_len(size).unwrap();
    for cmd in ["run", "sweep"] {
        let o = within(&[cmd, big.to_str().unwrap()], 5);
        refused_saying(&o, cmd, &["big.toml", LIMIT, "it has 16777217 bytes"]);
    }
    let folder = dir.join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    let f = std::fs::File::create(folder.join("run.json")).unwrap();
    f.set_len((32 << 20) + 1).unwrap();
    let o = within(&["run", folder.to_str().unwrap()], 5);
    refused_saying(
        &o,
        "folder",
        &[
            "run.json",
            "limit of 33554432 bytes",
            "it has 33554433 bytes",
        ],
    );
    // One byte under the limit is read (and parsed: NUL bytes are not TOML).
    std::fs::File::create(&big)
        .unwrap()
        .set_len(size - 2)
        .unwrap();
    let o = within(&["run", big.to_str().unwrap()], 10);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        !err.contains("MiB limit") && err.contains("TOML parse error"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scenario with one `[[udp]]` of `rate` and `len` on a dumbbell, in a fresh folder.
fn udp_scenario(rate: &str, len: u32) -> PathBuf {
    let dir = tmpdir(&format!("udp-{rate}-{len}"));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("udp.toml");
    std::fs::write(
        &f,
        format!(
            "[sim]\nduration = \"10s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\n\
             bottleneck = {{ rate = \"1Gbps\", delay = \"1ms\" }}\n\
             [[udp]]\nfrom = \"s0\"\nto = \"r0\"\nrate = \"{rate}\"\nlen = {len}\n"
        ),
    )
    .unwrap();
    f
}

/// A constant-rate app whose rate would send more packets than `sim.max_app_packets`
/// (10⁹ by default) is refused before the run, naming the key, its value, the estimate
/// and the limit; the key raises it. Before: `rate = "1Tbps", len = 1` ran at 28 s of
/// wall time per simulated millisecond (this test's 10 s: 3 days).
#[test]
fn f09_app_rates_beyond_the_packet_limit_are_refused_before_the_run() {
    let f = udp_scenario("1Tbps", 1);
    let out = f.with_file_name("out");
    let run = |sets: &[&str]| {
        let mut a = vec![
            "run",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        for s in sets {
            a.extend(["--set", s]);
        }
        within(&a, 10)
    };
    refused_saying(
        &run(&[]),
        "1Tbps",
        &[
            "key 'udp.0.rate' = \"1Tbps\"",
            "len = 1 B",
            "125000000000 packets/s",
            "an estimated 1250000000000 packets over its 10s",
            "at most 1000000000 per app",
            "sim.max_app_packets",
        ],
    );
    assert!(!out.exists(), "nothing written");
    // Fragments count: 45 KiB datagrams are 32 packets each.
    refused_saying(
        &run(&["udp.0.len=45KiB", "udp.0.rate=10Tbps"]),
        "fragments",
        &["32 fragments each", "868055556 packets/s"],
    );
    // The key sets the limit, both ways.
    refused_saying(
        &run(&[
            "udp.0.rate=1Gbps",
            "sim.duration=1ms",
            "sim.max_app_packets=1000",
        ]),
        "lowered",
        &[
            "an estimated 125000 packets over its 1ms",
            "at most 1000 per app",
        ],
    );
    let o = run(&[
        "udp.0.rate=1Gbps",
        "sim.duration=1ms",
        "sim.max_app_packets=200000",
    ]);
    common::assert_exit_0(&o);
    // [[ocbr]] at a rate (not a flood) likewise.
    let m = common::example("mbecn_star.toml");
    let o = within(
        &[
            "run",
            &m,
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--set",
            "ocbr.0.flood=false",
            "--set",
            "ocbr.0.rate=1Tbps",
            "--set",
            "ocbr.0.size=1",
        ],
        10,
    );
    refused_saying(&o, "ocbr", &["key 'ocbr.0.rate' = \"1Tbps\"", "size = 1 B"]);
}
