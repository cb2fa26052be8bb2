//! cclab-py: the Python extension module `cclab._cclab`, built from the cclab core with
//! PyO3 into one abi3 wheel (cp39-abi3, every CPython >= 3.9) by maturin (`pyproject.toml`
//! at the repository root). The Python package around it is `python/cclab`, which turns
//! what these functions return (JSON text, Parquet bytes of the tidy tables) into
//! DataFrames; its stub `python/cclab/_cclab.pyi` lists what this module exports.
//!
//! Every simulation runs on a thread of its own while the calling thread waits with the
//! GIL released: other Python threads run meanwhile. Bad input raises `ScenarioError`,
//! never a panic.
//!
//! **Stopping.** Each call has a stop flag that the engine looks at every 65,536 events
//! and the writer before each file and before the install (`runner::run`), so a stopped
//! run leaves its output folder as it was. The flag is raised three ways:
//! - Ctrl-C seen by the waiting thread (`check_signals`, every 50 ms; Python delivers
//!   signals to the main thread only);
//! - Ctrl-C anywhere in the process: a SIGINT hook (`sigint`, Unix) chained in front of
//!   Python's own handler counts each SIGINT, and every waiting thread (main or not, e.g. a
//!   `ThreadPoolExecutor` worker) compares the count with the one at its start every 50
//!   ms. Python's `signal.signal` replaces the hook: each waiting thread puts it back;
//!   where Python ignores SIGINT (SIG_IGN) or leaves it to the OS (SIG_DFL), no hook;
//! - `cclab.cancel()` (`cancel`): every run registered in `RUNNING`.
//!
//! The flags, the hook and the wait are in `stop.rs`.
//!
//! After raising the flag the caller waits for the run's thread to clean up (a second
//! Ctrl-C stops waiting), then raises `Cancelled`, a `KeyboardInterrupt`: nothing is
//! written after it, and no temporaries stay.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

mod stop;
use stop::interruptible;

create_exception!(
    cclab,
    ScenarioError,
    PyValueError,
    "A scenario (or a sweep, or an output folder) cclab cannot use. The message lists every \
mistake, one a line, as the command line prints them; `errors` holds each as a dict (file, \
key, value, message) and `file`, `key`, `value` are the first one's, `allowed` what it says \
is allowed (its whole message when it states no rule)."
);

/// A `ScenarioError` carrying every mistake.
fn scenario_error(py: Python<'_>, errors: &[cclab::scenario::ScenarioError]) -> PyErr {
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    let err = ScenarioError::new_err(lines.join("\n"));
    let set = || -> PyResult<()> {
        let v = err.value(py);
        let list = PyList::empty(py);
        for e in errors {
            let d = PyDict::new(py);
            d.set_item("file", &e.file)?;
            d.set_item("key", &e.key)?;
            d.set_item("value", &e.value)?;
            d.set_item("message", &e.message)?;
            list.append(d)?;
        }
        v.setattr("errors", list)?;
        let first = errors.first();
        v.setattr("file", first.map_or("", |e| e.file.as_str()))?;
        v.setattr("key", first.map_or("", |e| e.key.as_str()))?;
        v.setattr("value", first.map_or("", |e| e.value.as_str()))?;
        v.setattr(
            "allowed",
            first.map_or(String::new(), |e| allowed_of(&e.message)),
        )?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// What a message says is allowed: the text after "allowed: ", "allowed keys: ", "must
/// be ", "expected " or "; use " (up to ", found" or "; "), or the whole message when it
/// states no rule.
fn allowed_of(message: &str) -> String {
    for marker in [
        "allowed keys: ",
        "allowed: ",
        "allowed are ",
        "must be ",
        "expected ",
        "; use ",
        "? use ",
    ] {
        if let Some(i) = message.find(marker) {
            let rest = &message[i + marker.len()..];
            let end = [", found", "; ", " (got"]
                .iter()
                .filter_map(|m| rest.find(m))
                .min()
                .unwrap_or(rest.len());
            let a = rest[..end].trim().trim_end_matches('.');
            if !a.is_empty() {
                return a.to_string();
            }
        }
    }
    message.to_string()
}

/// A `ScenarioError` from one message about a place (`file`), e.g. an output folder.
fn place_error(py: Python<'_>, file: &str, message: String) -> PyErr {
    scenario_error(
        py,
        &[cclab::scenario::ScenarioError {
            file: file.to_string(),
            key: String::new(),
            value: String::new(),
            message,
        }],
    )
}

create_exception!(
    cclab,
    Cancelled,
    PyKeyboardInterrupt,
    "A run, sweep or experiment stopped by Ctrl-C or `cclab.cancel()`: a `KeyboardInterrupt`. \
Nothing was written after it and no temporaries are left: a run's output folder is as it \
was before the call; a sweep keeps the points that had finished."
);

/// The message of a run stopped at simulated time `at` of `duration`.
fn interrupted_at(at: cclab::engine::SimTime, duration: cclab::engine::SimTime) -> String {
    use cclab::schema::units::format_time;
    format!(
        "interrupted at {} of {} simulated; nothing was written",
        format_time(at),
        format_time(duration)
    )
}

/// cclab's version (the workspace version in Cargo.toml).
#[pyfunction]
fn version() -> &'static str {
    cclab::VERSION
}

/// The text of a scenario file; `ScenarioError` if it cannot be read.
#[pyfunction]
fn read_scenario(py: Python<'_>, path: &str) -> PyResult<String> {
    cclab::scenario::read_scenario(Path::new(path)).map_err(|e| scenario_error(py, &e))
}

/// TOML text from a JSON object (a scenario given as a dict).
#[pyfunction]
fn toml_from_json(py: Python<'_>, json: &str) -> PyResult<String> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| place_error(py, "<dict>", format!("not JSON-like: {e}")))?;
    let t = to_toml(&v, "").map_err(|m| place_error(py, "<dict>", m))?;
    match t {
        toml::Value::Table(t) => toml::to_string(&t)
            .map_err(|e| place_error(py, "<dict>", format!("cannot be written as TOML: {e}"))),
        _ => Err(place_error(
            py,
            "<dict>",
            "a scenario is a dict of tables ({'sim': {...}, 'topology': {...}})".into(),
        )),
    }
}

fn to_toml(v: &serde_json::Value, at: &str) -> Result<toml::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => {
            return Err(format!(
                "key '{at}' is None: TOML has no null; leave the key out for its default"
            ))
        }
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| to_toml(x, &format!("{at}.{i}")))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(o) => toml::Value::Table(
            o.iter()
                .map(|(k, x)| {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    to_toml(x, &p).map(|x| (k.clone(), x))
                })
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// Tables as (name, Parquet bytes).
fn tables_out<'py>(
    py: Python<'py>,
    tables: &[cclab::report::table::Table],
) -> Vec<(String, Bound<'py, PyBytes>)> {
    // Encoded with the GIL released (a run of many flows makes tables of many MB).
    let by = format!("cclab {}", cclab::VERSION);
    let encoded: Vec<(String, Vec<u8>)> = py.detach(|| {
        tables
            .iter()
            .map(|t| (t.name.clone(), cclab::report::parquet::write(t, &by)))
            .collect()
    });
    encoded
        .into_iter()
        .map(|(n, b)| (n, PyBytes::new(py, &b)))
        .collect()
}

/// Provenance for a manifest: cclab's, plus what Python adds (a JSON object).
fn provenance(extra: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("cclab".into(), cclab::VERSION.into());
    m.insert("git".into(), cclab::GIT_REV.into());
    if let Ok(serde_json::Value::Object(x)) = serde_json::from_str(extra) {
        m.extend(x);
    }
    m
}

/// Run a scenario to its end, as `cclab run` does: returns (summary.json text, the tidy
/// tables as (name, Parquet bytes), the run's meta as JSON). With `out`, the run's folder
/// is written too (checked first, as `cclab run --out`).
#[pyfunction]
#[pyo3(signature = (text, file, sets, seed = None, out = None, force = false, provenance_json = "{}"))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    sets: Vec<String>,
    seed: Option<u64>,
    out: Option<String>,
    force: bool,
    provenance_json: &str,
) -> PyResult<(String, Vec<(String, Bound<'py, PyBytes>)>, String)> {
    let ov = cclab::scenario::Overrides {
        sets,
        seed,
        ..Default::default()
    };
    let sc = ov.apply(text, file).map_err(|e| scenario_error(py, &e))?;
    let stop = Arc::new(AtomicBool::new(false));
    let prov = provenance(provenance_json);
    let sc2 = sc.clone();
    let stop2 = stop.clone();
    let shown_out = out.clone();
    let after = |done: &Result<cclab::runner::Finished, cclab::runner::RunError>| match done {
        Err(cclab::runner::RunError::Interrupted(at)) => interrupted_at(*at, sc.duration),
        Ok(_) => match &shown_out {
            Some(d) => {
                format!("interrupted after the run had finished: {d} holds its files, whole")
            }
            None => "interrupted after the run had finished".into(),
        },
        Err(_) => "interrupted; nothing was written".into(),
    };
    let done = interruptible(py, &stop, &mut |_| {}, after, move || {
        let output = out.as_ref().map(|d| cclab::runner::Output {
            dir: Path::new(d),
            force,
            provenance: prov,
        });
        cclab::runner::run(&sc2, output, Some(stop2), &mut |_| {})
    })?;
    use cclab::runner::RunError;
    let f = match done {
        Ok(f) => f,
        Err(RunError::OutDir(m)) => return Err(place_error(py, "out", m)),
        Err(RunError::Failed(m)) => return Err(place_error(py, file, m)),
        Err(RunError::Write(m)) => return Err(PyRuntimeError::new_err(m)),
        Err(RunError::Interrupted(at)) => {
            return Err(Cancelled::new_err(interrupted_at(at, sc.duration)))
        }
    };
    let (summary, tables) = py.detach(|| {
        (
            serde_json::to_string_pretty(&f.result).expect("results serialise") + "\n",
            cclab::report::table::run_tables(&f.result),
        )
    });
    let meta = serde_json::json!({
        "cclab": cclab::VERSION,
        "git": cclab::GIT_REV,
        "run_id": f.result.run_id,
        "seed": sc.seed,
        "name": sc.name,
        "file": file,
        "scenario": sc.source,
        "wall_s": f.perf.wall_s,
        "events": f.perf.events,
        "packet_hops": f.perf.packet_hops,
        "warnings": f.warnings,
    })
    .to_string();
    Ok((summary, tables_out(py, &tables), meta))
}

/// Run a built-in experiment: (the report as JSON, as `cclab reproduce --json` prints it;
/// the text `cclab reproduce` prints; the plots as (file name, SVG)).
#[pyfunction]
#[pyo3(signature = (name, quick = false, seed = 1, threads = 0, progress = None))]
#[allow(clippy::type_complexity)]
fn reproduce(
    py: Python<'_>,
    name: &str,
    quick: bool,
    seed: u64,
    threads: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, String, Vec<(String, String)>)> {
    let Some(e) = cclab::experiments::by_name(name) else {
        let names: Vec<_> = cclab::experiments::all().iter().map(|e| e.name).collect();
        return Err(place_error(
            py,
            "reproduce",
            format!("unknown experiment '{name}'; allowed: {}", names.join(", ")),
        ));
    };
    let opts = cclab::experiments::Options {
        quick,
        seed,
        threads,
        ..Default::default()
    };
    // An experiment is stopped between its runs (`experiments::par_map` starts no run
    // after `stop`; a run under way finishes).
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    // The core counts the runs of every experiment since the process started.
    let start = cclab::experiments::progress();
    let mut last = None;
    let mut show = |py: Python<'_>| {
        if let Some(f) = &progress {
            let now = cclab::experiments::progress();
            let now = (now.0.saturating_sub(start.0), now.1.saturating_sub(start.1));
            if last != Some(now) {
                last = Some(now);
                let _ = f.call1(py, (now.0, now.1));
            }
        }
    };
    let after = |r: &Option<_>| {
        if r.is_some() {
            "interrupted after the experiment had finished".to_string()
        } else {
            "interrupted; the experiment's report was not made".to_string()
        }
    };
    let r = interruptible(py, &stop, &mut show, after, move || {
        cclab::experiments::with_stop(stop2, || (e.run)(&opts))
    })?;
    let Some(r) = r else {
        return Err(Cancelled::new_err(
            "interrupted; the experiment's report was not made",
        ));
    };
    Ok((
        serde_json::to_string(&r).expect("report serialises"),
        r.render(),
        r.plots.clone(),
    ))
}

/// The built-in experiments as a JSON list of {name, seed_doc, about}.
#[pyfunction]
fn experiments() -> String {
    let v: Vec<_> = cclab::experiments::all()
        .iter()
        .map(|e| serde_json::json!({"name": e.name, "seed_doc": e.seed_doc, "about": e.about}))
        .collect();
    serde_json::Value::from(v).to_string()
}

/// What `cclab list` lists, as JSON.
#[pyfunction]
fn list_components() -> String {
    use cclab::schema::Schema;
    let kinds = |s: &'static Schema| -> serde_json::Map<String, serde_json::Value> {
        s.variants()
            .map(|v| {
                v.kinds
                    .iter()
                    .map(|(name, vs)| (name.to_string(), vs.about.into()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let exps: serde_json::Map<String, serde_json::Value> = cclab::experiments::all()
        .iter()
        .map(|e| (e.name.to_string(), e.about.into()))
        .collect();
    let traffic: serde_json::Map<String, serde_json::Value> = cclab::app::TRAFFIC
        .keys
        .iter()
        .map(|k| (k.name.to_string(), k.meaning.into()))
        .collect();
    serde_json::json!({
        "experiments": exps,
        "topologies": kinds(&cclab::net::topology::TOPOLOGY),
        "queues": kinds(&cclab::qdisc::QUEUE),
        "traffic": traffic,
        "cc": cclab::cc::CC_NAMES,
    })
    .to_string()
}

/// A sweep, checked: every point's scenario parsed. Runs it whole (`run`), or point by
/// point for a Dask cluster (`load`, `store`, `merge`, with `sweep_point` on the workers).
#[pyclass(frozen)]
struct SweepPlan {
    sweep: Arc<cclab::sweep::Sweep>,
    /// The folder `prepare` took (its lock), until `merge` has written the tables.
    prepared: std::sync::Mutex<Option<cclab::sweep::Prepared>>,
}

#[pymethods]
impl SweepPlan {
    #[new]
    fn new(py: Python<'_>, text: &str, file: &str) -> PyResult<SweepPlan> {
        let sw = py
            .detach(|| cclab::sweep::Sweep::parse(text, file))
            .map_err(|e| scenario_error(py, &e))?;
        Ok(SweepPlan {
            sweep: Arc::new(sw),
            prepared: std::sync::Mutex::new(None),
        })
    }

    /// The number of points (grid × seeds).
    fn points(&self) -> usize {
        self.sweep.points.len()
    }

    /// Point `i`'s run id.
    fn run_id(&self, i: usize) -> PyResult<String> {
        self.point(i).map(|p| p.run_id.clone())
    }

    /// The swept keys, in column order.
    fn keys(&self) -> Vec<String> {
        self.sweep.axes.iter().map(|a| a.key.clone()).collect()
    }

    /// The seeds.
    fn seeds(&self) -> Vec<u64> {
        self.sweep.seeds.clone()
    }

    /// Run every point not yet in `out` (all of them without `out`) on `jobs` threads (0:
    /// one per core), then the tables (written into `out` too): (tables, points found on
    /// disk, points run).
    #[pyo3(signature = (out = None, jobs = 0, provenance_json = "{}", progress = None))]
    #[allow(clippy::type_complexity)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        out: Option<String>,
        jobs: usize,
        provenance_json: &str,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<(Vec<(String, Bound<'py, PyBytes>)>, usize, usize)> {
        if let Some(d) = &out {
            cclab::sweep::check_dir(Path::new(d)).map_err(|m| place_error(py, d, m))?;
        }
        let sw = self.sweep.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let prov = provenance(provenance_json);
        // Points done (on disk or run), for `progress(done, total)` on the waiting thread.
        let done = Arc::new(AtomicUsize::new(usize::MAX));
        let done2 = done.clone();
        let mut last = usize::MAX;
        let total = sw.points.len();
        let mut show = |py: Python<'_>| {
            let now = done.load(Ordering::Relaxed);
            if let (Some(f), true) = (&progress, now != last && now != usize::MAX) {
                last = now;
                let _ = f.call1(py, (now, total));
            }
        };
        let after = |r: &Result<cclab::sweep::Outcome, String>| match r {
            Ok(o) if !o.interrupted => {
                "interrupted after the sweep had finished: its tables are written".to_string()
            }
            _ => "interrupted; the points that had finished are on disk (the same call \
                  continues)"
                .to_string(),
        };
        let res = interruptible(py, &stop, &mut show, after, move || {
            let opts = cclab::sweep::Options {
                out: out.as_deref().map(Path::new),
                jobs,
                stop: Some(stop2),
                on_point: &|d, _| done2.store(d, Ordering::Relaxed),
                provenance: prov,
            };
            cclab::sweep::run(&sw, &opts)
        })?;
        show(py);
        let o = res.map_err(PyRuntimeError::new_err)?;
        if o.interrupted {
            return Err(Cancelled::new_err(
                "interrupted; the points that had finished are on disk (the same call continues)",
            ));
        }
        Ok((tables_out(py, &o.tables), o.on_disk, o.ran))
    }

    /// Check the sweep folder `out`, take its lock (held by this plan until `merge` writes
    /// the tables) and write its manifest before points arrive.
    #[pyo3(signature = (out, provenance_json = "{}"))]
    fn prepare(&self, py: Python<'_>, out: &str, provenance_json: &str) -> PyResult<()> {
        let p = cclab::sweep::prepare(&self.sweep, Path::new(out), &provenance(provenance_json))
            .map_err(|m| place_error(py, out, m))?;
        *self.prepared.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
        Ok(())
    }

    /// Point `i`'s file in `out` if it is there and whole.
    fn load(&self, out: &str, i: usize) -> PyResult<Option<String>> {
        self.point(i)?;
        Ok(self.sweep.load_point(Path::new(out), i))
    }

    /// Store point `i`'s file (from `sweep_point`) in `out`, whole or not at all.
    fn store(&self, out: &str, i: usize, point: &str) -> PyResult<()> {
        self.point(i)?;
        self.sweep
            .store_point(Path::new(out), i, point)
            .map_err(PyRuntimeError::new_err)
    }

    /// The tables from every point's file (in point order), written into `out` too.
    #[pyo3(signature = (points, out = None, provenance_json = "{}"))]
    fn merge<'py>(
        &self,
        py: Python<'py>,
        points: Vec<Option<String>>,
        out: Option<String>,
        provenance_json: &str,
    ) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        let Some(points) = points.into_iter().collect::<Option<Vec<String>>>() else {
            return Err(PyRuntimeError::new_err("a point is missing"));
        };
        let sw = self.sweep.clone();
        let prov = provenance(provenance_json);
        let tables = py
            .detach(move || -> Result<_, String> {
                let tables = sw.merge(&points)?;
                if let Some(d) = &out {
                    cclab::sweep::write_tables_with(Path::new(d), &sw, &prov, &tables)?;
                }
                Ok(tables)
            })
            .map_err(PyRuntimeError::new_err)?;
        // The sweep is written: its folder's lock goes.
        self.prepared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        Ok(tables_out(py, &tables))
    }
}

impl SweepPlan {
    fn point(&self, i: usize) -> PyResult<&cclab::sweep::Point> {
        self.sweep.points.get(i).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "point {i}: the sweep has {} points",
                self.sweep.points.len()
            ))
        })
    }
}

/// Run sweep point `index` of scenario `text` (from `file`) where this is called (a Dask
/// worker): the point's file, to store with `SweepPlan.store`. Only that point's scenario
/// is built.
#[pyfunction]
fn sweep_point(py: Python<'_>, text: &str, file: &str, index: usize) -> PyResult<String> {
    let pt =
        cclab::sweep::Sweep::parse_point(text, file, index).map_err(|e| scenario_error(py, &e))?;
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let after = |_: &Result<Option<String>, String>| "interrupted".to_string();
    let r = interruptible(py, &stop, &mut |_| {}, after, move || pt.run(Some(&stop2)))?;
    match r {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(Cancelled::new_err("interrupted")),
        Err(m) => Err(PyRuntimeError::new_err(m)),
    }
}

/// A table given as JSON (`{"name": …, "columns": [{"name": …, "type": "i64" | "f64" |
/// "str" | "bool", "values": […]}]}`, the serde form of `report::table::Table`) as the
/// Parquet bytes cclab writes: what the tests feed pyarrow to check the writer.
#[pyfunction]
fn parquet_from_json<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyBytes>> {
    let t: cclab::report::table::Table = serde_json::from_str(json)
        .map_err(|e| PyValueError::new_err(format!("not a table: {e}")))?;
    if t.columns.iter().any(|c| c.data.len() != t.rows()) {
        return Err(PyValueError::new_err("columns of different lengths"));
    }
    Ok(PyBytes::new(
        py,
        &cclab::report::parquet::write(&t, "cclab test"),
    ))
}

/// cclab, a congestion-control laboratory: the Rust core.
#[pymodule]
fn _cclab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("Cancelled", m.py().get_type::<Cancelled>())?;
    m.add_function(wrap_pyfunction!(stop::cancel, m)?)?;
    m.add("GIT_REV", cclab::GIT_REV)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(toml_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(experiments, m)?)?;
    m.add_function(wrap_pyfunction!(list_components, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_point, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_from_json, m)?)?;
    m.add_class::<SweepPlan>()?;
    Ok(())
}
