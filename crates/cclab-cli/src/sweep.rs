//! `cclab sweep FILE --out DIR`: every point of the file's `[sweep]` (the grid × the
//! seeds) on every core, resumable, then one tidy table per kind in CSV and Parquet
//! (`cclab::sweep`).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub fn sweep(file: &Path, out: Option<PathBuf>, jobs: usize, quiet: bool) -> ExitCode {
    // A folder given is checked first (a large grid takes seconds to build); the default
    // one, named after the scenario and the sweep's id, once the file is read. Its lock is
    // taken when the grid is built, before any point runs.
    if let Some(dir) = &out {
        if let Err(msg) = cclab::sweep::check_dir(dir) {
            return crate::run::refused_output(&msg);
        }
    }
    let shown = file.display().to_string();
    let parsed = cclab::scenario::read_scenario(file)
        .and_then(|text| cclab::sweep::Sweep::parse(&text, &shown));
    let sw = match parsed {
        Ok(s) => s,
        Err(errs) => return crate::run::refused(&errs, file),
    };
    let dir = match out {
        Some(dir) => dir,
        None => {
            let name = sw
                .points
                .first()
                .map_or("sweep", |p| p.scenario.name.as_str());
            // The sweep's id in the name: another sweep (another grid, other seeds, another
            // scenario) gets another folder, never this one's tables replaced.
            let dir = PathBuf::from("out").join(format!("{name}-sweep-{}", sw.id()));
            if let Err(msg) = cclab::sweep::check_dir(&dir) {
                return crate::run::refused_output(&msg);
            }
            dir
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C ends the process at once (finished points are on disk already).
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
        });
    }
    let n = sw.points.len();
    let bar = if quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{bar:30}] {pos}/{len} points, {elapsed} elapsed, ETA {eta}",
        ) {
            b.set_style(style.progress_chars("=> "));
        }
        b
    };
    let on_point = |done: usize, _total: usize| bar.set_position(done as u64);
    let t0 = std::time::Instant::now();
    let opts = cclab::sweep::Options {
        out: Some(&dir),
        jobs,
        stop: Some(stop),
        on_point: &on_point,
        provenance: crate::run::provenance(),
    };
    let res = cclab::sweep::run(&sw, &opts);
    bar.finish_and_clear();
    let o = match res {
        Ok(o) => o,
        Err(msg) => {
            errln!("error: {msg}");
            return ExitCode::from(2);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    let grid: Vec<String> = sw
        .axes
        .iter()
        .map(|a| a.values.len().to_string())
        .chain([format!(
            "{} seed{}",
            sw.seeds.len(),
            if sw.seeds.len() == 1 { "" } else { "s" }
        )])
        .collect();
    let printed = outln!(
        "{n} points ({}): {} found on disk, {} run in {wall:.2} s wall",
        grid.join(" × "),
        o.on_disk,
        o.ran
    );
    if let Err(stop) = printed {
        return stop.code();
    }
    if o.interrupted {
        errln!(
            "interrupted: {} of {n} points are on disk in {}; run the same command again to continue",
            o.on_disk + o.ran,
            dir.display()
        );
        return ExitCode::from(130);
    }
    for t in &o.tables {
        let printed = outln!(
            "  {:11} {:>8} rows  {}",
            t.name,
            t.rows(),
            dir.join(format!("{}.{{csv,parquet}}", t.name)).display()
        );
        if let Err(stop) = printed {
            return stop.code();
        }
    }
    ExitCode::SUCCESS
}
