//! The pcap files of every example scenario, read by the tools people use on real captures:
//! `capinfos` opens each file; tshark (with IP/TCP/UDP checksum checks on) reports no error
//! in its expert info (malformed packets, bad checksums), reads every segment's window with
//! the scale its handshake announced, and flags missing segments only where they are real
//! losses; `tcptrace -l -w --checksum` prints no warning. Besides, the bytes follow Linux:
//! IP IDs count each socket's packets, SACK-permitted only when SACK is on, and the window
//! scale Linux 6.6 derives from the receive buffer.
//!
//! Each example runs for a short simulated time (`--set sim.duration=…`: 0.3 s where the
//! fastest link is 1 Gbit/s, less on faster ones, never longer than the example itself;
//! flows and workloads that start in its second half moved to its middle, a workload's
//! arrivals stopped at its end at the latest) with every host captured;
//! `loss.toml` runs twice, with SACK and with `tcp.sack=false`. The runs, then the
//! captures' checks, are shared among the cores.
//!
//! Needs `tshark`, `capinfos` (Debian: package tshark) and `tcptrace`. Without one of them
//! the test prints "skipped: … not installed" and passes, unless `CCLAB_REQUIRE_TOOLS=1`,
//! when it fails.

use cclab::engine::{SimTime, MS};
use cclab::experiments::par_map;
use cclab::net::NodeKind;
use cclab::probe::pcap::ipv4;
use cclab::schema::units::format_time;
use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    assert!(v.len() >= 5, "examples in {}", dir.display());
    v
}

fn run(cmd: &str, args: &[&str]) -> Output {
    Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} {args:?}: {e}"))
}

/// Are the tools installed? A missing one skips the test with a message, or fails it
/// when `CCLAB_REQUIRE_TOOLS=1`.
fn tools_installed() -> bool {
    for (tool, arg) in [
        ("tshark", "--version"),
        ("capinfos", "-v"),
        ("tcptrace", "-v"),
    ] {
        let ok = Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            let msg = format!("{tool} not installed (apt-get install -y tshark tcptrace)");
            if std::env::var("CCLAB_REQUIRE_TOOLS").is_ok_and(|v| v == "1") {
                panic!("CCLAB_REQUIRE_TOOLS=1 but {msg}");
            }
            eprintln!("skipped: {msg}");
            return false;
        }
    }
    true
}

/// The window scale Linux 6.6 announces with default sysctls and `tcp_rmem[2]` = `rcvbuf`
/// (`tcp_select_initial_window`): clamp(ilog2(max(rcvbuf, rmem_max = 212,992)) − 15, 0,
/// 14); window_clamp 65,535 << 14 bounds the space.
fn linux_wscale(rcvbuf: u64) -> u32 {
    let space = rcvbuf.clamp(212_992, 65_535 << 14);
    (space.ilog2() - 15).min(14)
}

/// One example run: its hosts (name, address) and the window scale its connections must
/// announce (`None` when they have different receive buffers).
struct Case {
    label: String,
    dir: PathBuf,
    hosts: Vec<(String, String)>,
    wscale: Option<u32>,
    sack: bool,
}

/// Simulated time of each run where the fastest link carries 1 Gbit/s: enough for slow
/// start and the first losses, short enough that tshark reads every capture in seconds.
/// On faster links the time shrinks in proportion (30 ms at 10 Gbit/s), so that a capture
/// holds about as many packets, and a run never lasts longer than its example. At 0.3 s
/// for all (before 2026-11-26), the two 10 Gbit/s fat-tree examples' captures held 6.57 M
/// of the 6.67 M packets this test read (fat_tree.toml 3.63 M, workload.toml 2.94 M;
/// `capinfos -c`), and the test took 160 s.
const DURATION: SimTime = 300 * MS;
const DURATION_RATE: u64 = 1_000_000_000;

/// The simulated time of a run of the example `full`, built as `sim` (see [`DURATION`]).
fn duration(full: &cclab::scenario::Scenario, sim: &cclab::sim::Sim) -> SimTime {
    let fastest = sim
        .net
        .ports()
        .iter()
        .map(|p| p.rate_bps)
        .max()
        .expect("links");
    let scaled = (DURATION as u128 * DURATION_RATE as u128 / fastest.max(1) as u128) as SimTime;
    full.duration.min(DURATION).min(scaled)
}

fn kv(sets: &[String]) -> Vec<(String, String)> {
    sets.iter()
        .map(|s| {
            let (k, v) = s.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

fn run_example(file: &Path, label: &str, sets: &[&str], root: &Path) -> Case {
    let mut all_sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let full = cclab::scenario::load_scenario(file, &kv(&all_sets)).expect("the example loads");
    // Its hosts and connections are those of the short run: what the sets below change
    // (start and stop times, the duration) builds no other world.
    let sim = cclab::sim::Sim::new(&full).expect("the example builds");
    let run_for = duration(&full, &sim);
    // Flows that would start in the second half start in the middle instead.
    let latest = run_for / 2;
    let at = format_time(latest);
    for (i, f) in full.apps.flows.iter().enumerate() {
        if f.start > latest {
            all_sets.push(format!("flow.{i}.start={at}"));
        }
    }
    for (i, o) in full.apps.ocbrs.iter().enumerate() {
        if o.start > latest {
            all_sets.push(format!("ocbr.{i}.start={at}"));
        }
    }
    for (i, w) in full.apps.workloads.iter().enumerate() {
        if w.start > latest {
            all_sets.push(format!("workload.{i}.start={at}"));
        }
        if w.stop > run_for {
            all_sets.push(format!("workload.{i}.stop={}", format_time(run_for)));
        }
    }
    all_sets.push(format!("sim.duration={}", format_time(run_for)));
    let sc = cclab::scenario::load_scenario(file, &kv(&all_sets)).expect("the short run loads");
    let hosts: Vec<(String, String)> = sim
        .net
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::Host)
        .map(|(i, n)| (n.name.clone(), Ipv4Addr::from(ipv4(i as u32)).to_string()))
        .collect();
    // The connections built with the world, and those a workload creates as its flows
    // arrive (with its `[tcp]`).
    let mut cfgs: Vec<_> = sim
        .conns
        .iter()
        .filter_map(|c| c.tcp_addr())
        .map(|(_, cfg)| cfg.clone())
        .collect();
    cfgs.extend(sc.apps.workloads.iter().map(|w| w.tcp.clone()));
    assert!(!cfgs.is_empty(), "{label}: TCP connections");
    let wscale = cfgs
        .iter()
        .all(|c| c.rcvbuf == cfgs[0].rcvbuf)
        .then(|| linux_wscale(cfgs[0].rcvbuf));
    let sack = cfgs[0].sack;
    assert!(cfgs.iter().all(|c| c.sack == sack));

    let dir = root.join(label);
    let f = file.to_str().unwrap();
    let mut args = vec!["run", f, "--out", dir.to_str().unwrap(), "-q"];
    for s in &all_sets {
        args.extend(["--set", s.as_str()]);
    }
    for (h, _) in &hosts {
        args.extend(["--pcap", h.as_str()]);
    }
    let o = run(env!("CARGO_BIN_EXE_cclab"), &args);
    assert!(
        o.status.success(),
        "{label}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Case {
        label: label.to_string(),
        dir,
        hosts,
        wscale,
        sack,
    }
}

fn tshark(args: &[&str]) -> String {
    let o = run("tshark", args);
    assert!(
        o.status.success(),
        "tshark {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

const CHECKSUMS: [&str; 6] = [
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "udp.check_checksum:TRUE",
];

/// What tshark says of the capture of host `addr`; returns the numbers of TCP segments
/// and of those with ECE or CWR set.
fn check_with_tshark(what: &str, f: &str, addr: &str, case: &Case) -> (usize, usize) {
    // One pass: the fields of every frame, then the expert info at error level
    // (malformed packets, bad checksums) as a statistics block after them.
    let fields = [
        "ip.src",
        "ip.dst",
        "ip.id",
        "tcp.stream",
        "tcp.flags.syn",
        "tcp.flags.ack",
        "tcp.flags.ece",
        "tcp.flags.cwr",
        "tcp.options.sack_perm",
        "tcp.options.wscale.shift",
        "tcp.window_size_scalefactor",
        "tcp.analysis.lost_segment",
        "_ws.malformed",
    ];
    let mut args = vec!["-n", "-r", f, "-T", "fields", "-E", "separator=/t"];
    args.extend(CHECKSUMS);
    args.extend(["-E", "occurrence=f", "-z", "expert,error"]);
    for x in fields {
        args.extend(["-e", x]);
    }
    let out = tshark(&args);
    let (frames, stats): (Vec<&str>, Vec<&str>) = out
        .lines()
        .partition(|l| l.matches('\t').count() == fields.len() - 1);
    let stats = stats.join("\n");
    assert!(
        !stats.contains("Errors (") && !stats.to_lowercase().contains("malformed"),
        "{what}: tshark expert errors:\n{stats}"
    );
    let mut ecn_flags = 0;
    let mut next_id: BTreeMap<String, u16> = BTreeMap::new();
    let mut tcp_frames = 0;
    for (i, line) in frames.iter().enumerate() {
        let c: Vec<&str> = line.split('\t').collect();
        let at = format!("{what} frame {}: {line}", i + 1);
        assert_eq!(c.len(), fields.len(), "{at}");
        let (src, dst, id, stream) = (c[0], c[1], c[2], c[3]);
        let id = u16::from_str_radix(id.trim_start_matches("0x"), 16).expect("an IP ID");
        assert!(c[12].is_empty(), "{at}: malformed");
        if stream.is_empty() {
            continue; // ICMP, UDP
        }
        tcp_frames += 1;
        let (syn, ack) = (c[4] == "1", c[5] == "1");
        ecn_flags += (c[6] == "1" || c[7] == "1") as usize;
        if syn {
            assert_eq!(!c[8].is_empty(), case.sack, "{at}: SACK-permitted");
            if let Some(ws) = case.wscale {
                assert_eq!(c[9], ws.to_string(), "{at}: window scale");
            }
        } else {
            // Every window is read with the scale the handshake announced.
            let sf: i64 = c[10].parse().expect("a scale factor");
            assert!(sf >= 1, "{at}: window scale factor {sf} (unknown/none)");
        }
        // A segment the capture missed is a real loss upstream of this host: never one of
        // the host's own segments, which it captures as it sends them.
        if !c[11].is_empty() {
            assert_eq!(dst, addr, "{at}: a segment this host sent is missing");
        }
        // IP IDs: what this host sends counts up by one per socket (Linux `inet_id`); the
        // SYN-ACK carries 0 (`ip_build_and_send_pkt`).
        if src == addr {
            if syn && ack {
                assert_eq!(id, 0, "{at}: SYN-ACK IP ID");
            } else {
                if let Some(want) = next_id.get(stream) {
                    assert_eq!(id, *want, "{at}: IP ID");
                }
                next_id.insert(stream.to_string(), id.wrapping_add(1));
            }
        }
    }
    (tcp_frames, ecn_flags)
}

/// tcptrace's warnings (`-w` turns all on; `--checksum` verifies checksums). Each line
/// pattern is one of tcptrace 6.6.7's warning messages. "upper flag bits are not zero"
/// is tcptrace (2004) reading RFC 3168's CWR and ECE as RFC 793's reserved bits: allowed,
/// but only as often as tshark counts segments with ECE or CWR.
fn check_with_tcptrace(what: &str, f: &str, ecn_flags: usize) {
    let o = run("tcptrace", &["-l", "-w", "--checksum", f]);
    assert!(o.status.success(), "{what}: tcptrace failed");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let mut flag_bits = 0;
    let mut ae_lines = 0;
    for line in text.lines() {
        let l = line.trim();
        if l.contains("upper flag bits are not zero") {
            flag_bits += 1;
            continue;
        }
        // Accurate ECN's AE bit (RFC 9768 §3.2.2; examples/accecn.toml), which tcptrace
        // reads as the lowest of RFC 793's reserved bits: 0x1, and only that.
        if l.contains("reserved bits are not zero (0x1)") {
            ae_lines += 1;
            continue;
        }
        let lower = l.to_lowercase();
        let bad = [
            "warning",
            "hardware duplicate",
            "reserved bits",
            "truncated too short",
            "option truncated",
            "sack block truncated",
            "too short to parse",
            "has length 0",
            "comes before",
            "are out of order",
            "skipping packet",
            "non-ip",
            "non-ethernet",
        ]
        .iter()
        .any(|p| lower.contains(p));
        // "packet N: bad TCP checksum", and the totals "bad TCP checksums: N".
        let bad_csum = (lower.starts_with("packet ") && lower.contains(": bad "))
            || (lower.starts_with("bad ")
                && lower
                    .split_once("checksums:")
                    .is_some_and(|(_, n)| n.trim() != "0"));
        assert!(!bad && !bad_csum, "{what}: tcptrace: {l}");
    }
    // With AccECN's ACE field (AE, CWR, ECE) tshark no longer counts CWR and ECE as such,
    // and tcptrace reports one line per segment: the count is compared without AE only.
    if ae_lines == 0 {
        assert_eq!(
            flag_bits, ecn_flags,
            "{what}: tcptrace flag-bit lines vs ECE/CWR segments"
        );
    }
}

fn check_capinfos(what: &str, f: &str) {
    let o = run("capinfos", &[f]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("Number of packets"),
        "{what}: capinfos: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn example_captures_read_cleanly_in_tshark_and_tcptrace() {
    if !tools_installed() {
        return;
    }
    let root = std::env::temp_dir().join(format!("cclab-pcap-tools-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut runs: Vec<(PathBuf, String, &[&str])> = Vec::new();
    for f in examples() {
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let sc = cclab::scenario::load_scenario(&f, &[]).expect("the example loads");
        if sc.apps.flows.is_empty() && !sc.apps.ocbrs.is_empty() {
            // Ouroboros flows only: not TCP, nothing for tcptrace (their capture gets a
            // linktype of its own).
            continue;
        }
        let nosack = stem == "loss";
        runs.push((f.clone(), stem, &[]));
        if nosack {
            runs.push((f, "loss-nosack".into(), &["tcp.sack=false"]));
        }
    }
    let cases = par_map(&runs, 0, |(f, label, sets)| {
        run_example(f, label, sets, &root)
    });
    assert!(cases.iter().any(|c| !c.sack) && cases.iter().any(|c| c.sack));
    let captures: Vec<(&Case, &str, &str)> = cases
        .iter()
        .flat_map(|c| {
            c.hosts
                .iter()
                .map(move |(h, a)| (c, h.as_str(), a.as_str()))
        })
        .collect();
    let tcp = par_map(&captures, 0, |&(case, host, addr)| {
        let path = case.dir.join(format!("{host}.pcap"));
        let f = path.to_str().unwrap();
        let what = format!("{}/{host}.pcap", case.label);
        check_capinfos(&what, f);
        let (tcp, ecn) = check_with_tshark(&what, f, addr, case);
        check_with_tcptrace(&what, f, ecn);
        tcp
    });
    let (files, segments) = (tcp.len(), tcp.iter().sum::<usize>());
    // The runs carry 790 K segments in 88 captures (at a3ea158 with this test's durations;
    // `cargo test --profile ci -p cclab-cli --test it pcap_tools:: -- --nocapture` prints the
    // count): enough that a wrong encoding shows.
    assert!(segments > 50_000, "{segments} TCP segments");
    eprintln!(
        "{files} captures of {} runs, {segments} TCP segments checked",
        cases.len()
    );
    let _ = std::fs::remove_dir_all(&root);
}
