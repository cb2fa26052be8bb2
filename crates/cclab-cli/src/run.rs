//! `cclab run FILE`: check everything before the run (the scenario, then the output
//! folder), run with progress on a terminal and Ctrl-C that stops cleanly, write the
//! results whole into a folder cclab owns.

use cclab::runner;
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

pub fn run(a: RunArgs) -> ExitCode {
    let overrides = cclab::scenario::Overrides {
        sets: a.sets.to_vec(),
        seed: a.seed,
        pcap: a.pcap.to_vec(),
        ..Default::default()
    };
    let file = a.file.display().to_string();
    let text = if a.file.is_dir() {
        // A folder cclab wrote: rerun the scenario its manifest holds, over the files its
        // run read.
        from_folder(a.file)
    } else {
        cclab::scenario::read_scenario(a.file).map(|t| (t, file, Vec::new()))
    };
    let sweep = matches!(&text, Ok((t, ..)) if cclab::scenario::has_sweep(t));
    let loaded = text.and_then(|(text, file, recorded)| {
        let ov = cclab::scenario::Overrides {
            recorded,
            ..overrides
        };
        ov.apply(&text, &file)
    });
    let sc = match loaded {
        Ok(sc) => sc,
        Err(errs) => return refused(&errs, a.file),
    };
    if sweep {
        errln!(
            "note: {} has a [sweep] table, which `cclab run` does not read: this is one run of \
             the file's own values; `cclab sweep {}` runs the sweep's points",
            a.file.display(),
            a.file.display()
        );
    }
    // The output folder, checked (and locked) before anything runs. The default one is
    // named after the scenario and its run id (8 hex digits of a hash of the resolved
    // scenario and the seed): a run with other inputs gets another folder, and the same
    // inputs the same folder, whose identical results a re-run replaces.
    let run_id = sc.run_id();
    let dir = match &a.out {
        Some(d) => d.clone(),
        None => {
            let dir = PathBuf::from("out").join(format!("{}-{}", sc.name, &run_id[..8]));
            if let Some(other) = manifest_run_id(&dir).filter(|r| *r != run_id) {
                return refused_output(&format!(
                    "{} holds run {other}, not this run ({run_id}); cclab does not replace another run's results in a default folder: give --out",
                    dir.display()
                ));
            }
            dir
        }
    };
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
    let bar = progress(sc.duration, a.quiet);
    let output = runner::Output {
        dir: &dir,
        force: a.force,
        provenance: provenance(),
    };
    let done = runner::run(&sc, Some(output), Some(stop), &mut |now| {
        bar.set_position(now / cclab::engine::MS)
    });
    bar.finish_and_clear();
    let runner::Finished {
        result,
        perf,
        warnings,
    } = match done {
        Ok(f) => f,
        Err(runner::RunError::OutDir(msg)) => return refused_output(&msg),
        Err(runner::RunError::Failed(msg)) => {
            errln!("error: {}: {msg}", a.file.display());
            return ExitCode::from(2);
        }
        Err(runner::RunError::Write(msg)) => {
            errln!("error: {msg}");
            return ExitCode::from(2);
        }
        Err(runner::RunError::Interrupted(at)) => {
            errln!(
                "interrupted at {} of {} simulated; nothing was written",
                cclab::schema::units::format_time(at),
                cclab::schema::units::format_time(sc.duration)
            );
            return ExitCode::from(INTERRUPTED);
        }
    };
    for w in &warnings {
        errln!("warning: {w}");
    }
    crate::term::finish(print_result(&result, &perf, a.json, &dir))
}

/// The run's results on stdout: the JSON or the table (the folder is written already).
fn print_result(
    result: &cclab::results::RunResult,
    perf: &cclab::report::Perf,
    json: bool,
    dir: &Path,
) -> Result<ExitCode, crate::term::Stop> {
    if json {
        // Written as it is made: the rows of a run of many flows are read back from their
        // temporary file (`results::Flows`), never held as one string.
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, result).map_err(std::io::Error::from)?;
        writeln!(out)?;
        out.flush()?;
    } else {
        out!("{}", cclab::report::table(result))?;
        outln!(
            "\n{} events, {} packet-hops in {:.2} s wall ({:.2} M hops/s); results in {}",
            perf.events,
            perf.packet_hops,
            perf.wall_s,
            perf.packet_hops as f64 / perf.wall_s.max(1e-9) / 1e6,
            dir.display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A scenario to rerun: its text, the file it is from, the files its run read.
type Recorded = (String, String, Vec<cclab::scenario::schema::InputFile>);

/// The scenario text in the manifest of an output folder, the name of the manifest, and
/// the files the run read (its `inputs`).
fn from_folder(dir: &Path) -> Result<Recorded, Vec<cclab::scenario::ScenarioError>> {
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
    // Read with a limit as every input is (a folder is the user's to fill): twice the
    // scenario's, for the JSON escapes of a scenario at its limit.
    let text = cclab::scenario::read_text_limited(&path, 2 * cclab::scenario::MAX_INPUT_BYTES)
        .map_err(|e| {
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
    let recorded = match v.get("inputs") {
        None => Vec::new(),
        Some(i) => cclab::report::inputs_from_json(i).map_err(|m| {
            vec![cclab::scenario::ScenarioError {
                file: file.clone(),
                key: "inputs".into(),
                value: String::new(),
                message: m,
            }]
        })?,
    };
    Ok((scenario.to_string(), file, recorded))
}

/// The run id in the manifest of folder `dir`, if it has one.
fn manifest_run_id(dir: &Path) -> Option<String> {
    let text = cclab::scenario::read_text_limited(
        &dir.join(cclab::report::MANIFEST),
        2 * cclab::scenario::MAX_INPUT_BYTES,
    )
    .ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(v.get("run_id")?.as_str()?.to_string())
}

/// Print why an output place cannot be written, and that nothing was run: exit code 2.
pub fn refused_output(msg: &str) -> ExitCode {
    errln!("error: {msg}");
    errln!("nothing was run");
    ExitCode::from(2)
}

/// Print every mistake in the scenario `file`, and that nothing was run: exit code 2.
pub fn refused(errs: &[cclab::scenario::ScenarioError], file: &Path) -> ExitCode {
    for e in errs {
        errln!("error: {e}");
    }
    errln!(
        "{} error{} in {}; nothing was run",
        errs.len(),
        if errs.len() == 1 { "" } else { "s" },
        file.display()
    );
    ExitCode::from(2)
}

/// cclab's version, its git revision and the command line.
pub fn provenance() -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("cclab".into(), cclab::VERSION.into());
    m.insert("git".into(), cclab::GIT_REV.into());
    m.insert(
        "command".into(),
        // `args_os`: an argument that is not UTF-8 (a path) is written lossily, not a panic.
        std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .into(),
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
