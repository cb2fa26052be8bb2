//! Bad input never panics: every leaf key of every example scenario is replaced, through
//! the `--set` path a user would take, by awkward values (zero, negative, huge, wrong
//! types, extreme units). Each edit must either be refused with errors that name the key,
//! or give a scenario that builds and runs (a few simulated milliseconds) without a panic.
//! Every congestion control's parameters, which no example sets, are tried at and past the
//! ends of their ranges.

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

/// Every algorithm's parameters (`cc::OPTIONS`, by `cc`) at both ends of their allowed
/// range build and run 2 s of the dumbbell example (slow start, its first losses, and the
/// second flow joining at 1 s) without a panic, and one step outside either end is refused
/// with an error naming the key.
#[test]
fn every_algorithm_parameter_at_its_range_ends_runs_and_past_them_is_refused() {
    let f = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dumbbell.toml");
    let text = std::fs::read_to_string(f).unwrap();
    let kinds = cclab::cc::OPTIONS.variants.as_ref().unwrap().kinds;
    let mut tried = 0;
    for (cc, schema) in kinds {
        for k in schema.keys {
            let (good, bad): (Vec<String>, Vec<String>) = match k.ty {
                cclab::schema::Ty::Int(lo, hi) => (
                    vec![lo.to_string(), hi.to_string()],
                    vec![(lo - 1).to_string(), (hi + 1).to_string()],
                ),
                cclab::schema::Ty::Bool => (vec!["true".into(), "false".into()], vec!["1".into()]),
                _ => continue,
            };
            let key = format!("tcp.{}", k.name);
            let sets = |v: &str| {
                vec![
                    ("tcp.cc".to_string(), format!("\"{cc}\"")),
                    (key.clone(), v.to_string()),
                ]
            };
            for v in &good {
                let sc = parse_scenario(&text, "dumbbell.toml", &sets(v))
                    .unwrap_or_else(|e| panic!("{cc} {key} = {v}: {e:?}"));
                let mut sim = Sim::new(&sc).unwrap_or_else(|e| panic!("{cc} {key} = {v}: {e}"));
                sim.run_until(2000 * MS);
                tried += 1;
            }
            for v in &bad {
                let errs = parse_scenario(&text, "dumbbell.toml", &sets(v))
                    .err()
                    .unwrap_or_else(|| panic!("{cc} {key} = {v} was accepted"));
                assert!(
                    errs.iter().any(|e| e.to_string().contains(&key)),
                    "{cc} {key} = {v}: {errs:?}"
                );
            }
        }
    }
    assert!(tried >= 60, "{tried} runs");
}
