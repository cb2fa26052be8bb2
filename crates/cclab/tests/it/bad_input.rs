//! Bad input never panics: every leaf key of every example scenario is replaced, through
//! the `--set` path a user would take, by awkward values (zero, negative, huge, wrong
//! types, extreme units). Each edit must either be refused with errors that name the key,
//! or give a scenario that builds and runs (a few simulated milliseconds) without a panic.

use cclab::engine::MS;
use cclab::scenario::parse_scenario;
use cclab::sim::Sim;

const AWKWARD: &[&str] = &[
    "0",
    "-1",
    "1e300",
    "18446744073709551615",
    "\"\"",
    "\"0s\"",
    "\"1ps\"",
    "\"1e-9s\"",
    "\"100000000min\"",
    "\"1bps\"",
    "\"999999Tbps\"",
    "\"0B\"",
    "\"1B\"",
    "\"0pkts\"",
    "\"1pkts\"",
    "\"nan\"",
    "true",
    "[]",
    "[0, -1]",
    "{ x = 1 }",
];

/// Every leaf of `v` as a dotted `--set` path (array elements by index).
fn leaves(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(&p, x, out);
            }
        }
        toml::Value::Array(a) if a.iter().any(|x| x.is_table()) => {
            for (i, x) in a.iter().enumerate() {
                leaves(&format!("{prefix}.{i}"), x, out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

#[test]
fn awkward_values_in_every_example_key_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut refused, mut ran, mut panics) = (0, 0, Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let mut keys = Vec::new();
        leaves("", &text.parse::<toml::Value>().unwrap(), &mut keys);
        for key in &keys {
            for value in AWKWARD {
                let sets = vec![(key.clone(), value.to_string())];
                if std::env::var_os("CCLAB_TRACE").is_some() {
                    eprintln!("TRY {name} {key}={value}");
                }
                let outcome =
                    std::panic::catch_unwind(|| match parse_scenario(&text, &name, &sets) {
                        Err(errs) => {
                            assert!(!errs.is_empty());
                            assert!(
                                errs.iter().all(|e| !e.message.is_empty()),
                                "an error without a message"
                            );
                            false
                        }
                        Ok(sc) => {
                            if let Ok(mut sim) = Sim::new(&sc) {
                                sim.run_until(sc.duration.min(5 * MS));
                            }
                            true
                        }
                    });
                match outcome {
                    Ok(false) => refused += 1,
                    Ok(true) => ran += 1,
                    Err(p) => {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        panics.push(format!("{name}: --set {key}={value}: {msg}"));
                    }
                }
            }
        }
    }
    std::panic::set_hook(quiet);
    println!("{refused} refused, {ran} ran");
    assert!(
        panics.is_empty(),
        "{} panics:\n{}",
        panics.len(),
        panics.join("\n")
    );
    // The test exercises both outcomes.
    assert!(refused > 500 && ran > 20, "{refused} refused, {ran} ran");
}
