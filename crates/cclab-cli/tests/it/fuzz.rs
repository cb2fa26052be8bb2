//! Property test of every input cclab reads: scenario files (valid, mutated, hostile) and
//! `--set` command lines, generated with proptest from the examples and from the key list
//! of `cclab list --keys`.
//!
//! Each case must end in one of two ways: the scenario is refused with errors (the CLI
//! exits 2 and writes nothing), or it runs to its simulated end. Never a panic, never
//! another exit code, never a run that does not finish.
//!
//! - In-process cases go through the library path the CLI takes (`parse_scenario`, then
//!   `world::run`) inside `catch_unwind`: fast enough for thousands of cases.
//! - Binary cases run `cclab run FILE --out DIR --set …` as a user would, and check the
//!   exit code and that a refused run wrote nothing.
//!
//! Case counts: `CCLAB_FUZZ_CASES` in-process cases (default 10,000) and a fiftieth as
//! many through the binary. A long campaign, about 10⁶ cases:
//!
//! ```sh
//! CCLAB_FUZZ_CASES=1000000 cargo test --profile ci -p cclab-cli --test it fuzz:: -- --nocapture
//! ```
//!
//! The generator's seed is fixed (so CI sees the same cases every time); set
//! `CCLAB_FUZZ_SEED` to any number to explore other cases.

use crate::common;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const EXAMPLES: [&str; 13] = [
    "dumbbell.toml",
    "chain.toml",
    "graph.toml",
    "incast.toml",
    "loss.toml",
    // Issue 57's keys: DualPI2, Prague, AccECN, PIE, FQ-PIE, netem, a generated link and
    // link events.
    "dualpi2.toml",
    "prague.toml",
    "accecn.toml",
    "pie.toml",
    "fq_pie.toml",
    "netem.toml",
    "cellular.toml",
    "rate_change.toml",
];

/// Values of every kind, valid and not: units right and wrong, numbers at the edges,
/// wrong types, control bytes, long strings, TOML structure where a value belongs.
const VALUES: &[&str] = &[
    "\"1Gbps\"",
    "\"100Mbps\"",
    "\"10ms\"",
    "\"1us\"",
    "\"0s\"",
    "\"75KB\"",
    "\"100pkts\"",
    "\"16MiB\"",
    "\"reno\"",
    "\"dctcp\"",
    "\"ecn\"",
    "\"dscp\"",
    "\"droptail\"",
    "\"star\"",
    "\"graph\"",
    "true",
    "false",
    "0",
    "1",
    "2",
    "-1",
    "3",
    "20",
    "1e309",
    "nan",
    "inf",
    "-inf",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "1.5",
    "\"\"",
    "\"1\"",
    "\"-5ms\"",
    "\"1e9s\"",
    "\"18446744s\"",
    "\"1ns\"",
    "\"0pkts\"",
    "\"1B\"",
    "\"8MB/S\"",
    "\"1mbps\"",
    "\"NaNms\"",
    "\"1..2s\"",
    "\"µs\"",
    "\"\\u0000\\u001b[31m\"",
    "\"\\u001b[2J\"",
    "[\"\\u0000\"]",
    "{ \"\\u0000\" = 1 }",
    "[{ name = \"l\", from = \"src\", to = \"\\u0000\", rate = \"1Gbps\", delay = \"1us\", reverse = { name = \"\\u001b\" } }]",
    "\"../../etc\"",
    "\"..\"",
    "\"a/b\"",
    "\".hidden\"",
    "[]",
    "[1, 2]",
    "[\"1ms\", \"2ms\", \"3ms\"]",
    "{}",
    "{ rate = \"1Gbps\" }",
    "{ a = { b = { c = 1 } } }",
    "[[[[[[1]]]]]]",
    "1979-05-27T07:32:00Z",
];

/// The hostile extremes generated rather than listed.
fn long_string() -> String {
    format!("\"{}\"", "x".repeat(100_000))
}

/// Values a key of this type (the second column of `cclab list --keys`) accepts.
fn valid_for(ty: &str) -> &'static [&'static str] {
    match ty {
        "time" | "time," => &["0s", "1us", "100us", "2ms", "5ms"],
        "rate" => &["100Mbps", "1Gbps", "10Gbps", "2500Kbps"],
        "integer" | "integer," => &["0", "1", "2", "3", "65"],
        "limit" => &["10pkts", "100pkts", "75KB", "1MB"],
        "size" => &["64KiB", "1MiB", "16MiB", "1500"],
        "boolean" => &["true", "false"],
        "number" => &["0", "0.01", "1e-4"],
        _ => &[
            "reno",
            "cubic",
            "dctcp",
            "highspeed",
            "scalable",
            "htcp",
            "bic",
            "vegas",
            "fast",
            "droptail",
            "ecn",
            "dscp",
            "linux",
            "rfc6298",
            "segments",
            "acks",
            "s0",
            "recv",
            "bottleneck",
            "auto",
        ],
    }
}

/// Every key `cclab list --keys` names, with array indices filled in, and its type.
fn keys() -> Vec<(String, String)> {
    let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
        .args(["list", "--keys"])
        .output()
        .expect("cclab runs");
    let text = String::from_utf8(o.stdout).unwrap();
    let mut keys: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.replace(".N.", ".0."), w.next()?.to_string()))
        })
        .collect();
    keys.push(("flow.1.stop".into(), "time".into()));
    keys.push(("nonsense.key".into(), "string".into()));
    keys.push(("tcp".into(), "string".into()));
    keys
}

fn example_text(name: &str) -> String {
    std::fs::read_to_string(common::example(name)).expect("example exists")
}

/// One edit of a scenario file.
#[derive(Clone, Debug)]
enum Edit {
    /// Remove line i (mod lines).
    Delete(usize),
    /// Replace the value of line i (the text after its first '=') with VALUES[v].
    Value(usize, usize),
    /// The same, with a 100,000-character string.
    Long(usize),
    /// Duplicate line i.
    Duplicate(usize),
    /// Cut the file at this fraction of its length (at a char boundary).
    Truncate(u16),
    /// Insert these bytes (as lossy UTF-8) at this fraction of the length.
    Insert(u16, Vec<u8>),
    /// Swap two characters of line i's key (a typo).
    Typo(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<usize>().prop_map(Edit::Delete),
        6 => (any::<usize>(), 0..VALUES.len()).prop_map(|(i, v)| Edit::Value(i, v)),
        1 => any::<usize>().prop_map(Edit::Long),
        2 => any::<usize>().prop_map(Edit::Duplicate),
        1 => any::<u16>().prop_map(Edit::Truncate),
        2 => (any::<u16>(), prop::collection::vec(any::<u8>(), 1..12))
            .prop_map(|(at, b)| Edit::Insert(at, b)),
        2 => any::<usize>().prop_map(Edit::Typo),
    ]
}

fn at_boundary(s: &str, frac: u16) -> usize {
    let mut i = s.len() * frac as usize / u16::MAX as usize;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, e: &Edit) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let n = lines.len().max(1);
    match e {
        Edit::Delete(i) => {
            if !lines.is_empty() {
                lines.remove(i % n);
            }
        }
        Edit::Value(i, _) | Edit::Long(i) => {
            let v = match e {
                Edit::Value(_, v) => VALUES[*v].to_string(),
                _ => long_string(),
            };
            if let Some(l) = lines.get_mut(i % n) {
                if let Some(eq) = l.find('=') {
                    *l = format!("{}= {v}", &l[..eq]);
                }
            }
        }
        Edit::Duplicate(i) => {
            if !lines.is_empty() {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
        }
        Edit::Truncate(f) => {
            let t = lines.join("\n");
            let at = at_boundary(&t, *f);
            return t[..at].to_string();
        }
        Edit::Insert(f, bytes) => {
            let t = lines.join("\n");
            let at = at_boundary(&t, *f);
            return format!("{}{}{}", &t[..at], String::from_utf8_lossy(bytes), &t[at..]);
        }
        Edit::Typo(i) => {
            if let Some(l) = lines.get_mut(i % n) {
                let chars: Vec<char> = l.chars().collect();
                if let Some(eq) = chars.iter().position(|&c| c == '=') {
                    if eq >= 3 {
                        let mut c = chars.clone();
                        c.swap(0, 1);
                        *l = c.into_iter().collect();
                    }
                }
            }
        }
    }
    lines.join("\n")
}

/// A generated input: a scenario text, `--set` pairs and a simulated duration in ms.
#[derive(Clone, Debug)]
struct Input {
    text: String,
    sets: Vec<(String, String)>,
    /// `--seed`, `--pcap` (in-process cases only).
    seed: Option<u64>,
    pcap: Vec<String>,
}

fn input(keys: Vec<(String, String)>) -> impl Strategy<Value = Input> {
    let nkeys = keys.len();
    (
        0..EXAMPLES.len(),
        // Two cases in five are an example as it is (before --set).
        prop_oneof![2 => Just(Vec::new()), 3 => prop::collection::vec(edit(), 1..4)],
        // Each --set: a value of the key's type (3 in 4) or any value.
        prop::collection::vec((0..nkeys, any::<bool>(), any::<bool>(), any::<usize>()), 0..4),
        prop_oneof![3 => 1u64..30, 1 => 1_001u64..1_030],
        // One case in 16 is random bytes instead of an example.
        prop_oneof![15 => Just(None), 1 => prop::collection::vec(any::<u8>(), 0..400).prop_map(Some)],
        (
            prop_oneof![3 => Just(None), 1 => any::<u64>().prop_map(Some)],
            prop::collection::vec(
                prop_oneof![Just("s0"), Just("src"), Just("recv"), Just("bottleneck"), Just("nowhere"), Just("..")],
                0..2,
            ),
        ),
    )
        .prop_map(move |(ex, edits, sets, ms, raw, (seed, pcap))| {
            let base = example_text(EXAMPLES[ex]);
            // A typed --set on a topology key the example's kind has no use for is
            // refused at once; keep most typed sets on keys the example can take.
            let fits = |key: &str| match key.strip_prefix("topology.") {
                Some(rest) => base.contains(rest.split('.').next().unwrap_or(rest)),
                None => true,
            };
            let text = match raw {
                Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                None => edits.iter().fold(base.clone(), |t, e| apply(&t, e)),
            };
            let mut sets: Vec<(String, String)> = sets
                .into_iter()
                .filter(|(k, ..)| !keys[*k].0.starts_with("sim.duration"))
                .filter(|(k, a, b, _)| !(*a || *b) || fits(&keys[*k].0))
                .map(|(k, a, b, v)| {
                    let (key, ty) = &keys[k];
                    let value = if a || b {
                        let pool = valid_for(ty);
                        pool[v % pool.len()]
                    } else {
                        VALUES[v % VALUES.len()].trim_matches('"')
                    };
                    (key.clone(), value.to_string())
                })
                .collect();
            // Every run is short: the runs must finish, and quickly enough for many cases.
            sets.push(("sim.duration".into(), format!("{ms}ms")));
            Input {
                text,
                sets,
                seed,
                pcap: pcap.into_iter().map(String::from).collect(),
            }
        })
}

/// What a case may take: the slowest accepted run seen in development took well under a
/// second (a 10 Gbit/s incast for 30 ms); ten times that is a hang.
const WALL: Duration = Duration::from_secs(20);

fn runner(cases: u32, salt: u64) -> TestRunner {
    let seed: u64 = std::env::var("CCLAB_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x00c1ab);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&salt.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 200,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

fn cases() -> u32 {
    std::env::var("CCLAB_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

#[test]
fn every_input_is_refused_or_runs_to_its_end() {
    let n = cases();
    let t0 = Instant::now();
    let counts = std::sync::Mutex::new((0u32, 0u32));
    let result = runner(n, 1).run(&input(keys()), |inp| {
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| {
            // The call `cclab run` makes: the file's text with --set words, --seed, --pcap.
            let ov = cclab::scenario::Overrides {
                sets: inp.sets.iter().map(|(k, v)| format!("{k}={v}")).collect(),
                seed: inp.seed,
                pcap: inp.pcap.clone(),
                ..Default::default()
            };
            match ov.apply(&inp.text, "fuzz.toml") {
                Err(errs) => {
                    assert!(!errs.is_empty(), "a refusal names at least one error");
                    if std::env::var_os("CCLAB_FUZZ_VERBOSE").is_some() {
                        eprintln!("refused: {}", errs[0].message);
                    }
                    for e in &errs {
                        let m = e.to_string();
                        // Messages are bounded, however long the input, and never put a
                        // raw control byte (an escape sequence, a NUL) on the terminal.
                        assert!(m.len() < 2_000, "{m}");
                        assert!(
                            !m.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
                            "raw control character in {m:?}"
                        );
                    }
                    None
                }
                Ok(sc) => Some(match cclab::world::run(&sc) {
                    // A scenario the builder refuses is exit 2 too.
                    Err(msg) => {
                        assert!(!msg.is_empty());
                        None
                    }
                    Ok(r) => {
                        // The run ended at its simulated end, not past it.
                        let end = sc.duration as f64 / cclab::engine::SEC as f64;
                        assert!(
                            r.engine.sim_time_s <= end + 1e-12,
                            "{} > {end}",
                            r.engine.sim_time_s
                        );
                        Some(r.engine.sim_time_s)
                    }
                }),
            }
        });
        let took = started.elapsed();
        let mut c = counts.lock().unwrap();
        match outcome {
            Err(_) => return Err(TestCaseError::fail("panicked")),
            Ok(None) | Ok(Some(None)) => c.0 += 1,
            Ok(Some(Some(_))) => c.1 += 1,
        }
        prop_assert!(took < WALL, "took {took:?}");
        Ok(())
    });
    let (refused, ran) = *counts.lock().unwrap();
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "fuzz: {n} in-process cases ({refused} refused, {ran} ran) in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    // The generator reaches both outcomes in volume.
    assert!(
        refused > n / 10 && ran > n / 10,
        "{refused} refused, {ran} ran"
    );
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cclab-fuzz-{}-{name}", std::process::id()))
}

#[test]
fn the_binary_exits_0_or_2_and_a_refusal_writes_nothing() {
    let n = (cases() / 50).max(1);
    let t0 = Instant::now();
    let file = tmp("case.toml");
    let out = tmp("out");
    let counts = std::sync::Mutex::new([0u32; 2]);
    let result = runner(n, 2).run(
        &(input(keys()), any::<bool>(), any::<bool>()),
        |(inp, pcap, unknown_flag)| {
            std::fs::write(&file, &inp.text).unwrap();
            let _ = std::fs::remove_dir_all(&out);
            let mut args: Vec<String> = vec![
                "run".into(),
                file.to_string_lossy().into(),
                "--out".into(),
                out.to_string_lossy().into(),
                "-q".into(),
            ];
            for (k, v) in &inp.sets {
                args.push("--set".into());
                args.push(format!("{k}={v}"));
            }
            if pcap {
                args.extend(["--pcap".into(), "s0".into()]);
            }
            if unknown_flag {
                args.push("--frobnicate".into());
            }
            let started = Instant::now();
            let o = Command::new(env!("CARGO_BIN_EXE_cclab"))
                .args(&args)
                .output()
                .unwrap();
            let took = started.elapsed();
            let code = o.status.code();
            prop_assert!(
                code == Some(0) || code == Some(2),
                "exit {code:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            prop_assert!(took < WALL, "took {took:?}");
            let mut c = counts.lock().unwrap();
            if code == Some(2) {
                c[0] += 1;
                prop_assert!(!out.exists(), "a refused run wrote {}", out.display());
                prop_assert!(o.stdout.is_empty());
                prop_assert!(!o.stderr.is_empty(), "a refusal says why");
            } else {
                c[1] += 1;
                prop_assert!(out.join("run.json").exists());
                prop_assert!(!unknown_flag);
            }
            let _ = std::fs::remove_dir_all(&out);
            Ok(())
        },
    );
    let _ = std::fs::remove_file(&file);
    if let Err(e) = result {
        panic!("{e}");
    }
    let c = *counts.lock().unwrap();
    eprintln!(
        "fuzz: {n} binary cases ({} refused, {} ran) in {:.1} s",
        c[0],
        c[1],
        t0.elapsed().as_secs_f64()
    );
    assert!(c[0] > 0 && c[1] > 0, "{c:?}");
}
