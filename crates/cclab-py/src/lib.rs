//! cclab-py: the Python extension module `cclab._cclab`, built from the cclab core with
//! PyO3 into one abi3 wheel (cp39-abi3, every CPython >= 3.9) by maturin (`pyproject.toml`
//! at the repository root). The Python package around it is `python/cclab`, which turns
//! what these functions return (JSON text, Parquet bytes of the tidy tables) into
//! DataFrames; its stub `python/cclab/_cclab.pyi` lists what this module exports.
//!
//! Every simulation runs on a thread of its own while the calling thread waits with the
//! GIL released, looking for signals every 50 ms: other Python threads run meanwhile, and
//! Ctrl-C raises `KeyboardInterrupt` at once (the run is told to stop and nothing is
//! written). Bad input raises `ScenarioError`, never a panic.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

create_exception!(
    cclab,
    ScenarioError,
    PyValueError,
    "A scenario (or a sweep, or an output folder) cclab cannot use. The message lists every \
mistake, one a line, as the command line prints them; `errors` holds each as a dict (file, \
key, value, message) and `file`, `key`, `value`, `allowed` are the first one's."
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
        v.setattr("allowed", first.map_or("", |e| e.message.as_str()))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
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

/// Run `work` on its own thread; wait with the GIL released, looking at Python's signals
/// every 50 ms. On a signal (Ctrl-C), raise `stop` and return the signal's exception
/// without waiting for the thread (it stops on its own, writing nothing).
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    stop: Option<Arc<AtomicBool>>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let slot: Arc<(Mutex<Option<std::thread::Result<T>>>, Condvar)> =
        Arc::new((Mutex::new(None), Condvar::new()));
    let s2 = slot.clone();
    std::thread::Builder::new()
        .name("cclab".into())
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let (m, cv) = &*s2;
            *m.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            cv.notify_all();
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    loop {
        let got = py.detach(|| {
            let (m, cv) = &*slot;
            let g = m.lock().unwrap_or_else(|e| e.into_inner());
            let (mut g, _) = cv
                .wait_timeout_while(g, Duration::from_millis(50), |v| v.is_none())
                .unwrap_or_else(|e| e.into_inner());
            g.take()
        });
        match got {
            Some(Ok(v)) => return Ok(v),
            Some(Err(_)) => {
                return Err(PyRuntimeError::new_err(
                    "internal error: the simulation panicked (please report it with the scenario)",
                ))
            }
            None => {
                if let Err(e) = py.check_signals() {
                    if let Some(s) = &stop {
                        s.store(true, Ordering::Relaxed);
                    }
                    return Err(e);
                }
            }
        }
    }
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
    let by = format!("cclab {}", cclab::VERSION);
    tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                PyBytes::new(py, &cclab::report::parquet::write(t, &by)),
            )
        })
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
    let done = interruptible(py, Some(stop), move || {
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
        Err(RunError::Interrupted(_)) => {
            return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
                "interrupted; nothing was written",
            ))
        }
    };
    let summary = serde_json::to_string_pretty(&f.result).expect("results serialise") + "\n";
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
    let tables = cclab::report::table::run_tables(&f.result);
    Ok((summary, tables_out(py, &tables), meta))
}

/// Run a built-in experiment: (the report as JSON, as `cclab reproduce --json` prints it;
/// the text `cclab reproduce` prints; the plots as (file name, SVG)).
#[pyfunction]
#[pyo3(signature = (name, quick = false, seed = 1, threads = 0))]
#[allow(clippy::type_complexity)]
fn reproduce(
    py: Python<'_>,
    name: &str,
    quick: bool,
    seed: u64,
    threads: usize,
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
    // An experiment cannot be stopped midway: on Ctrl-C its thread finishes on its own.
    let r = interruptible(py, None, move || (e.run)(&opts))?;
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
    use cclab::scenario::schema::Schema;
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
    #[pyo3(signature = (out = None, jobs = 0, provenance_json = "{}"))]
    #[allow(clippy::type_complexity)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        out: Option<String>,
        jobs: usize,
        provenance_json: &str,
    ) -> PyResult<(Vec<(String, Bound<'py, PyBytes>)>, usize, usize)> {
        if let Some(d) = &out {
            cclab::sweep::check_dir(Path::new(d)).map_err(|m| place_error(py, d, m))?;
        }
        let sw = self.sweep.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let prov = provenance(provenance_json);
        let res = interruptible(py, Some(stop), move || {
            let opts = cclab::sweep::Options {
                out: out.as_deref().map(Path::new),
                jobs,
                stop: Some(stop2),
                on_point: &|_, _| {},
                provenance: prov,
            };
            cclab::sweep::run(&sw, &opts)
        })?;
        let o = res.map_err(PyRuntimeError::new_err)?;
        if o.interrupted {
            return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
                "interrupted; the finished points are on disk",
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
    let r = interruptible(py, Some(stop), move || pt.run(Some(&stop2)))?;
    match r {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
            "interrupted",
        )),
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
