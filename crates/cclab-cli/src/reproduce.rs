//! `cclab reproduce NAME|all`: run the seed reproductions (`cclab::experiments`), print
//! each report as it completes (a table, or a JSON line with `--json`), add it to the
//! folder of `--out`, and write the Markdown page of `--markdown`. Every output place is
//! checked before anything runs; nothing is written until an experiment is complete.

use crate::run;
use cclab::experiments::report::{wrap, Page, TERMINAL_WIDTH};
use cclab::experiments::{Experiment, Options, Report, Tally};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The command's arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Experiment name, or `all`.
    pub name: String,
    /// Shorter runs (what the test suite uses).
    #[arg(long)]
    pub quick: bool,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write <experiment>.json, <experiment>.txt and the plots into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the tables of the experiments run as one Markdown file (how
    /// docs/reproductions.md is made: `cclab reproduce all --markdown docs/reproductions.md`).
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Master random seed, 0 to 2^62 (experiments run further seeds after it, and a
    /// scenario's seed is at most 2^63 − 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(0..=1u64 << 62))]
    pub seed: u64,
    /// Worker threads for variants (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write into an --out folder that holds files cclab did not write (never replacing
    /// them), or replace a --markdown file cclab did not write.
    #[arg(long)]
    pub force: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn reproduce(a: Args) -> ExitCode {
    let exps = match select(&a.name) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let out = match check_places(&a, &exps) {
        Ok(o) => o,
        Err(code) => return code,
    };
    // Nothing is written until an experiment is complete: Ctrl-C can end the process at
    // once.
    let _ = ctrlc::set_handler(|| std::process::exit(130));
    let opts = Options {
        quick: a.quick,
        seed: a.seed,
        threads: a.threads,
        ..Default::default()
    };
    let mut ok = true;
    let mut total = Tally::default();
    let mut page = Page::new(&a.name, a.quick, a.seed);
    let n = exps.len();
    for (i, e) in exps.into_iter().enumerate() {
        let label = format!("experiment {}/{n}: {}", i + 1, e.name);
        let (r, wall) = run_with_progress(&e, &opts, &label, a.quiet);
        ok &= r.passed();
        total.add(&r.tally);
        page.add(&e, &r);
        // Written before it is printed: a print that fails (a full disk, a closed pipe)
        // ends the command, as Ctrl-C does, with every finished experiment in the folder.
        if let Some(dir) = &out {
            if let Err(msg) = write_report(dir, &r) {
                errln!("error: {msg}");
                return ExitCode::from(2);
            }
        }
        let printed = if a.json {
            outln!("{}", serde_json::to_string(&r).expect("report serialises"))
        } else {
            // The terminal's table: at most 100 columns (the .txt and the Markdown keep
            // every line whole).
            out!("{}", r.render_fit(TERMINAL_WIDTH)).and_then(|_| outln!("({wall:.2} s wall)\n"))
        };
        if let Err(stop) = printed {
            return stop.code();
        }
    }
    if let Some(path) = &a.markdown {
        if let Err(code) = write_page(path, page.finish(&total)) {
            return code;
        }
    }
    let printed = if a.json {
        outln!(
            "{}",
            serde_json::json!({ "experiments": n, "totals": total })
        )
    } else {
        let line = format!("total over {n} experiment(s): {}", total.line());
        outln!("{}", wrap(&line, TERMINAL_WIDTH, 4).join("\n"))
    };
    if let Err(stop) = printed {
        return stop.code();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The experiments `name` selects (`all`: every one); an unknown name is refused (exit 2).
fn select(name: &str) -> Result<Vec<Experiment>, ExitCode> {
    if name == "all" {
        return Ok(cclab::experiments::all());
    }
    match cclab::experiments::by_name(name) {
        Some(e) => Ok(vec![e]),
        None => {
            let names: Vec<_> = cclab::experiments::all().iter().map(|e| e.name).collect();
            errln!(
                "error: unknown experiment '{name}'; allowed: {}, all",
                names.join(", ")
            );
            Err(ExitCode::from(2))
        }
    }
}

/// Check every output place before anything runs: the Markdown file (cclab's to replace
/// only when it begins as cclab writes it, [`Page::HEAD`], and not inside the folder) and
/// the folder, whose files are planned. Returns the folder to write into.
fn check_places(a: &Args, exps: &[Experiment]) -> Result<Option<cclab::report::OutDir>, ExitCode> {
    if let (Some(md), Some(dir)) = (&a.markdown, &a.out) {
        // The Markdown file is not one of the folder's files (it would replace one of
        // them, or the folder itself).
        let (m, d) = (std::path::absolute(md), std::path::absolute(dir));
        if let (Ok(m), Ok(d)) = (m, d) {
            if m.starts_with(&d) {
                return Err(run::refused_output(&format!(
                    "--markdown {} is in --out {}: give the Markdown file a place outside the folder",
                    md.display(),
                    dir.display()
                )));
            }
        }
    }
    if let Some(path) = &a.markdown {
        if let Err(msg) = cclab::report::check_file(path, |h| h.starts_with(Page::HEAD), a.force) {
            return Err(run::refused_output(&msg));
        }
    }
    let Some(dir) = &a.out else {
        return Ok(None);
    };
    let planned: Vec<String> = exps
        .iter()
        .flat_map(|e| [format!("{}.json", e.name), format!("{}.txt", e.name)])
        .collect();
    cclab::report::OutDir::check(dir, &planned, a.force)
        .map(Some)
        .map_err(|msg| run::refused_output(&msg))
}

/// Run experiment `e`, with a spinner on a terminal saying how many of its runs (variants
/// × seeds) have finished, cleared before its results are printed (the progress line
/// comes before the table, never after it). Returns the report and the wall time (s).
fn run_with_progress(e: &Experiment, opts: &Options, label: &str, quiet: bool) -> (Report, f64) {
    let t0 = std::time::Instant::now();
    let (done0, total0) = cclab::experiments::progress();
    let spinner = if quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let s = indicatif::ProgressBar::new_spinner();
        s.enable_steady_tick(std::time::Duration::from_millis(200));
        s
    };
    spinner.set_message(label.to_string());
    let running = std::sync::atomic::AtomicBool::new(true);
    let r = std::thread::scope(|s| {
        if !spinner.is_hidden() {
            s.spawn(|| {
                while running.load(std::sync::atomic::Ordering::Relaxed) {
                    let (d, t) = cclab::experiments::progress();
                    if t > total0 {
                        spinner.set_message(format!(
                            "{label}: {} of {} runs done, {:.0} s",
                            d - done0,
                            t - total0,
                            t0.elapsed().as_secs_f64()
                        ));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
            });
        }
        let r = (e.run)(opts);
        running.store(false, std::sync::atomic::Ordering::Relaxed);
        r
    });
    spinner.finish_and_clear();
    (r, t0.elapsed().as_secs_f64())
}

/// Write the Markdown page to `path` whole (its folder made if missing).
fn write_page(path: &Path, page: String) -> Result<(), ExitCode> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(parent) {
            errln!("error: cannot create {}: {e}", parent.display());
            return Err(ExitCode::from(2));
        }
    }
    cclab::report::write_atomic(path, page.as_bytes()).map_err(|msg| {
        errln!("error: {msg}");
        ExitCode::from(2)
    })
}

/// Add experiment `r`'s report (`<name>.json`, `<name>.txt`) and plots to the folder.
fn write_report(out: &cclab::report::OutDir, r: &Report) -> Result<(), String> {
    let mut files: Vec<(String, Vec<u8>)> = vec![
        (
            format!("{}.json", r.experiment),
            serde_json::to_string_pretty(r)
                .expect("report serialises")
                .into_bytes(),
        ),
        (format!("{}.txt", r.experiment), r.render().into_bytes()),
    ];
    for (name, svg) in &r.plots {
        files.push((name.clone(), svg.clone().into_bytes()));
    }
    out.install(&files, &[], run::provenance(), false)
        .map(|_| ())
}
