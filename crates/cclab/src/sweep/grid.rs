//! Reading a file's `[sweep]` table: its axes (keys and values), its seeds, and each
//! point's scenario.

use super::*;

/// The axes and seeds of `text`'s `[sweep]`, and the number of points.
pub(super) fn grid(
    text: &str,
    file: &str,
) -> Result<(Vec<Axis>, Vec<u64>, usize), Vec<ScenarioError>> {
    let root: toml::Table = match text.parse() {
        // The scenario parser words TOML errors (with the line): let it.
        Err(_) => {
            return Err(Overrides::default()
                .apply(text, file)
                .err()
                .unwrap_or_default())
        }
        Ok(t) => t,
    };
    let mut errors = Vec::new();
    let Some(table) = root.get("sweep") else {
        return Err(vec![err(
            file,
            "sweep",
            String::new(),
            "`cclab sweep` needs a [sweep] table: each key a scenario key with a list of values (\"tcp.cc\" = [\"dctcp\", \"cubic\"]), and optionally `seeds` (a count, or a list of seeds)".into(),
        )]);
    };
    let Value::Table(table) = table else {
        return Err(vec![err(
            file,
            "sweep",
            table.to_string(),
            "must be a table: [sweep] with a list of values per scenario key".into(),
        )]);
    };
    // The file's own seed, the first of the sweep's: checked here as `cclab run` checks it
    // (each point then sets `sim.seed`, so a bad one would otherwise go unnoticed).
    let base_seed = match root.get("sim").and_then(|s| s.get("seed")) {
        None => 1,
        Some(v) => match v.as_integer() {
            Some(s) if s >= 0 => s as u64,
            _ => {
                return Err(vec![err(
                    file,
                    "sim.seed",
                    v.to_string(),
                    "out of range: must be an integer >= 0".into(),
                )])
            }
        },
    };
    let mut seeds = vec![base_seed];
    let mut axes = Vec::new();
    for (k, v) in table {
        let key = format!("sweep.{k}");
        if k == "seeds" {
            match seed_list(v, base_seed) {
                Ok(s) => seeds = s,
                Err(m) => errors.push(err(file, &key, v.to_string(), m)),
            }
            continue;
        }
        if k.trim() == "sim.seed" {
            errors.push(err(
                file,
                &key,
                v.to_string(),
                "seeds are swept with `seeds = N` (the file's sim.seed and the N − 1 after it) or `seeds = [1, 7, 9]`".into(),
            ));
            continue;
        }
        let Value::Array(values) = v else {
            errors.push(err(
                file,
                &key,
                v.to_string(),
                "a list of the values the key takes, e.g. [\"10pkts\", \"20pkts\"]".into(),
            ));
            continue;
        };
        if values.is_empty() {
            errors.push(err(
                file,
                &key,
                v.to_string(),
                "an empty list: give at least one value".into(),
            ));
            continue;
        }
        if let Some((i, dup)) = values
            .iter()
            .enumerate()
            .find(|(i, x)| values[..*i].contains(x))
        {
            errors.push(err(
                file,
                &key,
                v.to_string(),
                format!(
                    "{dup} is listed twice (again at position {i}): its points would run twice"
                ),
            ));
            continue;
        }
        axes.push(Axis {
            key: k.trim().to_string(),
            values: values.clone(),
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let n = axes
        .iter()
        .try_fold(seeds.len(), |n, a| n.checked_mul(a.values.len()))
        .filter(|n| *n <= MAX_POINTS);
    let Some(n) = n else {
        return Err(vec![err(
            file,
            "sweep",
            String::new(),
            format!("the grid has more than {MAX_POINTS} points (keys × values × seeds)"),
        )]);
    };
    Ok((axes, seeds, n))
}

/// Point `index` of the grid: its values (the last axis fastest, seeds innermost) and its
/// scenario.
pub(super) fn point(
    text: &str,
    file: &str,
    axes: &[Axis],
    seeds: &[u64],
    index: usize,
) -> Result<Point, Vec<ScenarioError>> {
    let mut rest = index / seeds.len();
    let seed = seeds[index % seeds.len()];
    let mut values = vec![Value::Boolean(false); axes.len()];
    for (a, slot) in axes.iter().zip(values.iter_mut()).rev() {
        *slot = a.values[rest % a.values.len()].clone();
        rest /= a.values.len();
    }
    let ov = Overrides {
        seed: Some(seed),
        values: axes
            .iter()
            .zip(&values)
            .map(|(a, v)| (a.key.clone(), v.clone()))
            .collect(),
        ..Default::default()
    };
    let scenario = ov.apply(text, file)?;
    Ok(Point {
        index,
        values,
        seed,
        run_id: scenario.run_id(),
        scenario,
    })
}

/// `seeds = N` (N seeds from the file's) or `seeds = [a, b, …]`.
pub(super) fn seed_list(v: &Value, base: u64) -> Result<Vec<u64>, String> {
    match v {
        Value::Integer(n) if (1..=MAX_SEEDS).contains(n) => {
            // The last seed is base + n − 1.
            if base
                .checked_add(*n as u64 - 1)
                .is_none_or(|e| e > i64::MAX as u64)
            {
                return Err(format!("seeds from {base} on overflow the largest seed"));
            }
            Ok((0..*n as u64).map(|i| base + i).collect())
        }
        Value::Array(a) if !a.is_empty() => {
            let mut out = Vec::with_capacity(a.len());
            for x in a {
                match x.as_integer() {
                    Some(s) if s >= 0 => {
                        if out.contains(&(s as u64)) {
                            return Err(format!("seed {s} is listed twice"));
                        }
                        out.push(s as u64)
                    }
                    _ => {
                        return Err(format!(
                            "{x} is not a seed (an integer from 0 to {})",
                            i64::MAX
                        ))
                    }
                }
            }
            Ok(out)
        }
        _ => Err(format!(
            "a number of seeds from 1 to {MAX_SEEDS}, or a non-empty list of seeds ([1, 7, 9])"
        )),
    }
}
