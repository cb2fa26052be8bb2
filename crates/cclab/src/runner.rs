//! One scenario, run to its end and written whole: what `cclab run` does after parsing,
//! shared by the command line and Python's `cclab.run` (`crates/cclab-py`).
//!
//! Order: the output folder is checked before anything runs; captures stream into
//! temporaries beside it; the run goes in steps of simulated time (a caller's `tick` sees
//! each, for a progress bar) and stops early when `stop` is raised; the files are
//! installed all at once at the end, or nothing is left behind.

use crate::engine::SimTime;
use crate::report::{OutDir, Perf};
use crate::results::RunResult;
use crate::scenario::Scenario;
use crate::sim::Sim;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Steps of simulated time between calls of `tick` (and looks at `stop`).
pub const STEPS: u64 = 200;

/// Why a run did not give results.
#[derive(Debug)]
pub enum RunError {
    /// The output folder may not be written (nothing ran).
    OutDir(String),
    /// The scenario could not be built, or a capture or output file failed.
    Failed(String),
    /// The results could not be written.
    Write(String),
    /// `stop` was raised at this simulated time (while simulating, or before the files
    /// were installed); nothing was written.
    Interrupted(SimTime),
}

/// A finished run.
pub struct Finished {
    pub result: RunResult,
    pub perf: Perf,
    /// Problems that did not stop the run (`Sim::warnings`), for the user to see.
    pub warnings: Vec<String>,
}

/// Where and how to write a run's folder.
pub struct Output<'a> {
    pub dir: &'a Path,
    /// Write beside files cclab did not write (never replacing them).
    pub force: bool,
    /// The manifest's provenance (version, command line); the run id, seed and scenario
    /// are added here.
    pub provenance: serde_json::Map<String, serde_json::Value>,
}

/// Run `sc` to its end; with `out`, write its folder (`cclab run`'s files).
pub fn run(
    sc: &Scenario,
    out: Option<Output>,
    stop: Option<Arc<AtomicBool>>,
    tick: &mut dyn FnMut(SimTime),
) -> Result<Finished, RunError> {
    let dir = match &out {
        None => None,
        Some(o) => Some(
            OutDir::check(o.dir, &crate::report::planned_files(sc), o.force)
                .map_err(RunError::OutDir)?,
        ),
    };
    let mut sim = Sim::new(sc).map_err(RunError::Failed)?;
    let mut streamed: Vec<(String, PathBuf)> = Vec::new();
    let abandon = |streamed: &[(String, PathBuf)]| {
        if let Some(d) = &dir {
            d.abandon(streamed);
        }
    };
    if let Some(d) = &dir {
        for n in &sc.output.pcap {
            let name = format!("{n}.pcap");
            match d.stream_path(&name) {
                Ok(p) => streamed.push((name, p)),
                Err(msg) => {
                    abandon(&streamed);
                    return Err(RunError::Failed(msg));
                }
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
        if let Err(msg) = sim.attach_pcap_at(&at, crate::probe::pcap::DEFAULT_SNAPLEN) {
            abandon(&streamed);
            return Err(RunError::Failed(msg));
        }
    }
    sim.stop = stop;
    let t0 = std::time::Instant::now();
    let step = (sc.duration / STEPS).max(1);
    let mut t = 0;
    sim.net.seal(sim.q.now());
    while t < sc.duration && !sim.stopped() {
        t = (t + step).min(sc.duration);
        sim.step_until(t);
        tick(sim.q.now());
    }
    sim.net.settle_all(sim.q.now());
    let peak_rss_mib = crate::bench::peak_rss_mib();
    let huge_pages_mib = crate::bench::huge_pages_mib();
    let captures = sim.finish_pcap();
    if sim.stopped() {
        abandon(&streamed);
        return Err(RunError::Interrupted(sim.q.now()));
    }
    if let Err(msg) = captures {
        abandon(&streamed);
        return Err(RunError::Failed(msg));
    }
    let warnings = sim.warnings();
    // The finished flows' rows stay in their temporary file, read back as the files are
    // written (`results::Flows`).
    let result = match crate::sim::try_collect_streaming(&mut sim) {
        Ok(r) => r,
        Err(msg) => {
            abandon(&streamed);
            return Err(RunError::Write(msg));
        }
    };
    // `stop` is looked at until the files are installed: a run stopped while its files
    // are made leaves the folder as it was.
    if sim.stopped() {
        abandon(&streamed);
        return Err(RunError::Interrupted(sim.q.now()));
    }
    let perf = Perf {
        wall_s: t0.elapsed().as_secs_f64(),
        events: result.engine.events,
        packet_hops: result.engine.packet_hops,
        peak_rss_mib,
        huge_pages_mib,
    };
    if let (Some(d), Some(o)) = (&dir, out) {
        let mut meta = o.provenance;
        meta.insert("run_id".into(), result.run_id.clone().into());
        meta.insert("seed".into(), sc.seed.into());
        meta.insert("scenario".into(), sc.source.clone().into());
        let inputs = sc.inputs();
        if !inputs.is_empty() {
            // What a re-run of this folder needs beyond the scenario: the files it read.
            meta.insert("inputs".into(), crate::report::inputs_json(&inputs));
        }
        if let Err(msg) = crate::report::write_run_unless(
            d,
            &result,
            &perf,
            sc.output.plots,
            &sc.output.axes,
            &streamed,
            meta,
            &|| sim.stopped(),
        ) {
            abandon(&streamed);
            if sim.stopped() {
                return Err(RunError::Interrupted(sim.q.now()));
            }
            return Err(RunError::Write(msg));
        }
    }
    Ok(Finished {
        result,
        perf,
        warnings,
    })
}
