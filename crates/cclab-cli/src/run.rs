//! `cclab run FILE`: check everything before the run (the scenario, then the output
//! folder), run with progress on a terminal and Ctrl-C that stops cleanly, write the
//! results whole into a folder cclab owns.

use cclab::report::{OutDir, Perf};
use cclab::sim::Sim;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What `cclab run` was asked.
pub struct RunArgs<'a> {
    pub file: &'a Path,
    pub out: Option<PathBuf>,
    pub seed: Option<u64>,
    pub sets: &'a [String],
    pub json: bool,
    pub pcap: &'a [String],
    pub force: bool,
    pub quiet: bool,
}

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
const INTERRUPTED: u8 = 130;

/// Steps of simulated time between looks at the progress bar.
const STEPS: u64 = 200;

pub fn run(a: RunArgs) -> ExitCode {
    let overrides = cclab::scenario::Overrides {
        sets: a.sets.to_vec(),
        seed: a.seed,
        pcap: a.pcap.to_vec(),
    };
    let file = a.file.display().to_string();
    let text = if a.file.is_dir() {
        // A folder cclab wrote: rerun the scenario its manifest holds.
        from_folder(a.file)
    } else {
        cclab::scenario::read_scenario(a.file).map(|t| (t, file))
    };
    let loaded = text.and_then(|(text, file)| overrides.apply(&text, &file));
    let sc = match loaded {
        Ok(sc) => sc,
        Err(errs) => {
            for e in &errs {
                eprintln!("error: {e}");
            }
            eprintln!(
                "{} error{} in {}; nothing was run",
                errs.len(),
                if errs.len() == 1 { "" } else { "s" },
                a.file.display()
            );
            return ExitCode::from(2);
        }
    };
    // The output folder, checked before anything runs.
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    let out = match OutDir::check(&dir, &cclab::report::planned_files(&sc.output), a.force) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            eprintln!("nothing was run");
            return ExitCode::from(2);
        }
    };
    let bad = |msg: String| {
        eprintln!("error: {}: {msg}", a.file.display());
        ExitCode::from(2)
    };
    let mut sim = match Sim::new(&sc) {
        Ok(s) => s,
        Err(msg) => return bad(msg),
    };
    let mut streamed: Vec<(String, PathBuf)> = Vec::new();
    for n in &sc.output.pcap {
        let name = format!("{n}.pcap");
        match out.stream_path(&name) {
            Ok(p) => streamed.push((name, p)),
            Err(msg) => {
                out.abandon(&streamed);
                return bad(msg);
            }
        }
    }
    if !streamed.is_empty() {
        let at: Vec<(String, PathBuf)> = sc
            .output
            .pcap
            .iter()
            .cloned()
            .zip(streamed.iter().map(|s| s.1.clone()))
            .collect();
        if let Err(msg) = sim.attach_pcap_at(&at, cclab::probe::pcap::DEFAULT_SNAPLEN) {
            out.abandon(&streamed);
            return bad(msg);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C ends the process at once.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::Relaxed) {
                std::process::exit(INTERRUPTED as i32);
            }
        });
    }
    sim.stop = Some(stop.clone());

    let t0 = std::time::Instant::now();
    let bar = progress(sc.duration, a.quiet);
    let step = (sc.duration / STEPS).max(1);
    let mut t = 0;
    while t < sc.duration && !sim.stopped() {
        t = (t + step).min(sc.duration);
        sim.run_until(t);
        bar.set_position(sim.q.now() / cclab::engine::MS);
    }
    bar.finish_and_clear();
    let captures = sim.finish_pcap();
    if sim.stopped() {
        out.abandon(&streamed);
        eprintln!(
            "interrupted at {} of {} simulated; nothing was written",
            cclab::scenario::units::format_time(sim.q.now()),
            cclab::scenario::units::format_time(sc.duration)
        );
        return ExitCode::from(INTERRUPTED);
    }
    if let Err(msg) = captures {
        out.abandon(&streamed);
        return bad(msg);
    }
    let result = sim.results();
    let perf = Perf {
        wall_s: t0.elapsed().as_secs_f64(),
        events: result.engine.events,
        packet_hops: result.engine.packet_hops,
    };
    let meta = manifest(&sc, &result.run_id);
    if let Err(msg) = cclab::report::write_run(
        &out,
        &result,
        &perf,
        sc.output.plots,
        &sc.output.axes,
        &streamed,
        meta,
    ) {
        out.abandon(&streamed);
        eprintln!("error: {msg}");
        return ExitCode::from(2);
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&result).expect("results serialise")
        );
    } else {
        print!("{}", cclab::report::table(&result));
        println!(
            "\n{} events, {} packet-hops in {:.2} s wall ({:.2} M hops/s); results in {}",
            perf.events,
            perf.packet_hops,
            perf.wall_s,
            perf.packet_hops as f64 / perf.wall_s.max(1e-9) / 1e6,
            dir.display()
        );
    }
    ExitCode::SUCCESS
}

/// The scenario text in the manifest of an output folder, and the name of the manifest.
fn from_folder(dir: &Path) -> Result<(String, String), Vec<cclab::scenario::ScenarioError>> {
    let path = dir.join(cclab::report::MANIFEST);
    let file = path.display().to_string();
    let err = |message: String| {
        vec![cclab::scenario::ScenarioError {
            file: file.clone(),
            key: String::new(),
            value: String::new(),
            message,
        }]
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        err(format!(
            "cannot read it ({e}): a folder given to `cclab run` must be one cclab wrote"
        ))
    })?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| err(format!("not a cclab manifest: {e}")))?;
    let scenario = v
        .get("scenario")
        .and_then(|s| s.as_str())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| err("holds no scenario (it is not a `cclab run` folder)".into()))?;
    Ok((scenario.to_string(), file))
}

/// The manifest of a run's folder: what produced it, and the scenario that reruns it.
fn manifest(
    sc: &cclab::scenario::Scenario,
    run_id: &str,
) -> serde_json::Map<String, serde_json::Value> {
    let mut m = provenance();
    m.insert("run_id".into(), run_id.into());
    m.insert("seed".into(), sc.seed.into());
    m.insert("scenario".into(), sc.source.clone().into());
    m
}

/// cclab's version, its git revision and the command line.
pub fn provenance() -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("cclab".into(), cclab::VERSION.into());
    m.insert("git".into(), cclab::GIT_REV.into());
    m.insert(
        "command".into(),
        std::env::args().collect::<Vec<_>>().into(),
    );
    m
}

/// A progress bar of simulated milliseconds on stderr, drawn only on a terminal.
fn progress(duration: cclab::engine::SimTime, quiet: bool) -> ProgressBar {
    let total = (duration / cclab::engine::MS).max(1);
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{bar:30}] {pos}/{len} ms simulated, {elapsed} elapsed, ETA {eta}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
