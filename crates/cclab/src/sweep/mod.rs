//! Parameter sweeps: a scenario file's `[sweep]` table names scenario keys and the values
//! each takes; a sweep runs every point of the grid (every combination of the values) for
//! every seed, each point a whole `cclab run` of the file with those values set, and
//! gathers the tidy tables of all points (`report/table.rs`) into one table per kind, with
//! a column per swept key plus `run_id` and `seed`.
//!
//! ```toml
//! [sweep]
//! "topology.bottleneck.k" = ["10pkts", "20pkts", "65pkts"]
//! "tcp.cc" = ["dctcp", "cubic"]
//! seeds = 5            # the file's sim.seed and the 4 after it; or a list: [1, 7, 9]
//! ```
//!
//! Points are numbered in grid order: keys in the table's (sorted) key order, the last
//! key varying fastest, the seeds innermost. A point is one run: its scenario is the file
//! without `[sweep]`, with the values set as `--set` would set them and `sim.seed` set to
//! the seed, so its `run_id` is the one `cclab run FILE --set KEY=VALUE… --seed S` gives.
//!
//! On disk (`--out DIR`): `DIR/sweep.json` (the manifest, written before any point runs),
//! `DIR/points/<run_id>.json` (one file per finished point, written whole in the staging
//! folder `DIR/.cclab-tmp/points/` that the folder's journal records, then renamed), and, once every point is there, `DIR/<table>.csv` and
//! `DIR/<table>.parquet`. A point whose file is on disk is not run again, so a sweep that
//! was killed continues where it stopped, losing at most the points that were running.
//! The tables are made from the point files' bytes in point order, whether a point ran
//! just now, in an earlier process, on another thread or on a Dask worker: the same sweep
//! gives the same bytes whatever the number of jobs. The folder is locked while a sweep
//! runs, no link in it is followed, and the tables and the manifest are installed all or
//! nothing (`report/outdir/`).

use crate::report::outdir::STATE;
use crate::report::table::{always_tables, table_names, Col, Column, Table};
pub use crate::report::table::{created_by, table_files};
use crate::scenario::{Overrides, Scenario, ScenarioError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use toml::Value;

mod folder;
mod grid;
pub use folder::*;
use grid::*;

/// The manifest of a sweep's folder.
pub const MANIFEST: &str = "sweep.json";
/// The folder of the finished points inside a sweep's folder.
pub const POINTS: &str = "points";
/// Most points one sweep may have: each point's scenario is built and checked before any
/// runs, about 5 KB and 0.12 ms a point (measured 2026-12-01: 10⁵ points 550 MB and 12 s on the 2-core
/// development machine; 10⁶ would take about 2 minutes and 5.5 GB before the first run).
pub const MAX_POINTS: usize = 100_000;
/// Most seeds `seeds = N` may ask for.
pub const MAX_SEEDS: i64 = 100_000;

/// One swept key and its values, as written.
#[derive(Clone, Debug)]
pub struct Axis {
    pub key: String,
    pub values: Vec<Value>,
}

/// One point: a value per axis and a seed, and the scenario they make.
#[derive(Clone, Debug)]
pub struct Point {
    pub index: usize,
    pub values: Vec<Value>,
    pub seed: u64,
    pub run_id: String,
    pub scenario: Scenario,
}

impl Point {
    /// Run this point and return its file's contents (its tidy tables, JSON); `None` if
    /// `stop` was raised first.
    pub fn run(&self, stop: Option<&std::sync::Arc<AtomicBool>>) -> Result<Option<String>, String> {
        let mut sim = crate::sim::Sim::new(&self.scenario)?;
        sim.stop = stop.cloned();
        sim.run();
        if sim.stopped() {
            return Ok(None);
        }
        let f = PointFile {
            run_id: self.run_id.clone(),
            seed: self.seed,
            schema: SCHEMA,
            tables: crate::report::table::run_tables(&sim.results()),
        };
        Ok(Some(
            serde_json::to_string(&f).expect("point serialises") + "\n",
        ))
    }
}

/// A checked sweep: every point's scenario parsed and validated.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub file: String,
    pub text: String,
    pub axes: Vec<Axis>,
    pub seeds: Vec<u64>,
    pub points: Vec<Point>,
}

/// A finished point as stored in `points/<run_id>.json`.
#[derive(Serialize, Deserialize)]
struct PointFile {
    run_id: String,
    seed: u64,
    /// The tables' schema ([`SCHEMA`]; 0 in the files of cclab before it, which had other
    /// column names): a point file of another schema is run again, never merged.
    #[serde(default)]
    schema: u32,
    tables: Vec<Table>,
}

/// The version of the tables' columns (`report/table.rs`) in a point file: 1 for the
/// names of issue 52 (SI units in every name, `fct_s` the last byte delivered).
const SCHEMA: u32 = 1;

fn err(file: &str, key: &str, value: String, message: String) -> ScenarioError {
    ScenarioError {
        file: file.to_string(),
        key: key.to_string(),
        value,
        message,
    }
}

impl Sweep {
    /// The sweep of scenario `text` (from `file`): its `[sweep]` checked and every point's
    /// scenario validated, or every error found (each reported once).
    pub fn parse(text: &str, file: &str) -> Result<Sweep, Vec<ScenarioError>> {
        let (axes, seeds, n) = grid(text, file)?;
        let mut errors = Vec::new();
        let mut points = Vec::with_capacity(n);
        let mut seen = std::collections::HashSet::new();
        for index in 0..n {
            match point(text, file, &axes, &seeds, index) {
                Ok(p) => {
                    if !seen.insert(p.run_id.clone()) {
                        errors.push(err(
                            file,
                            "sweep",
                            String::new(),
                            format!(
                                "point {index} is the same run as an earlier point (run id {})",
                                p.run_id
                            ),
                        ));
                    }
                    points.push(p);
                }
                Err(es) => {
                    for e in es {
                        if !errors.contains(&e) {
                            errors.push(e);
                        }
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Sweep {
            file: file.to_string(),
            text: text.to_string(),
            axes,
            seeds,
            points,
        })
    }

    /// The sweep's id: 8 hex digits of an FNV-1a hash of its file's text (grid, seeds and
    /// scenario), in the default folder's name.
    pub fn id(&self) -> String {
        let h = crate::schema::fnv1a(crate::schema::FNV_START, self.text.bytes());
        format!("{:08x}", h >> 32)
    }

    /// Only point `index` of the sweep of `text` (what a Dask worker needs): the grid is
    /// read, and that one point's scenario built.
    pub fn parse_point(text: &str, file: &str, index: usize) -> Result<Point, Vec<ScenarioError>> {
        let (axes, seeds, n) = grid(text, file)?;
        if index >= n {
            return Err(vec![err(
                file,
                "sweep",
                String::new(),
                format!("point {index}: the sweep has {n} points"),
            )]);
        }
        point(text, file, &axes, &seeds, index)
    }

    /// The path of point `p`'s file under the sweep folder `dir`.
    pub fn point_path(&self, dir: &Path, p: usize) -> PathBuf {
        dir.join(POINTS)
            .join(format!("{}.json", self.points[p].run_id))
    }

    /// Point `p`'s file as stored on disk if it is there and whole (a plain file: a link
    /// is not read).
    pub fn load_point(&self, dir: &Path, p: usize) -> Option<String> {
        if !std::fs::symlink_metadata(self.point_path(dir, p))
            .ok()?
            .is_file()
        {
            return None;
        }
        let text = crate::scenario::read_text_limited(
            &self.point_path(dir, p),
            2 * crate::scenario::MAX_INPUT_BYTES,
        )
        .ok()?;
        self.check_point(p, &text).ok()?;
        Some(text)
    }

    /// Is `text` point `p`'s file (its run id and seed, tables that parse)?
    pub fn check_point(&self, p: usize, text: &str) -> Result<(), String> {
        let f: PointFile = serde_json::from_str(text)
            .map_err(|e| format!("point {p}: not a cclab sweep point file: {e}"))?;
        let pt = &self.points[p];
        if f.schema != SCHEMA {
            return Err(format!(
                "point {p}: the file's tables are of schema {} (another cclab version), not {SCHEMA}",
                f.schema
            ));
        }
        if f.run_id != pt.run_id || f.seed != pt.seed {
            return Err(format!(
                "point {p}: the file is run {} seed {}, not run {} seed {}",
                f.run_id, f.seed, pt.run_id, pt.seed
            ));
        }
        Ok(())
    }

    /// Run point `p` and return its file's contents; `None` if `stop` was raised first.
    pub fn run_point(
        &self,
        p: usize,
        stop: Option<&std::sync::Arc<AtomicBool>>,
    ) -> Result<Option<String>, String> {
        self.points[p]
            .run(stop)
            .map_err(|m| format!("{}: point {p}: {m}", self.file))
    }

    /// Store point `p`'s file in the sweep folder `dir`, whole or not at all: written in
    /// the points' staging folder that [`prepare`] recorded (`.cclab-tmp/points`), then
    /// renamed into `points/`, which must be a folder (never a link).
    pub fn store_point(&self, dir: &Path, p: usize, text: &str) -> Result<(), String> {
        self.check_point(p, text)?;
        let points = dir.join(POINTS);
        match std::fs::symlink_metadata(&points) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(points_refused(&points)),
            Err(_) => std::fs::create_dir_all(&points)
                .map_err(|e| format!("cannot create {}: {e}", points.display()))?,
        }
        let stage = dir.join(STATE).join(POINTS);
        if !std::fs::symlink_metadata(&stage).is_ok_and(|m| m.is_dir()) {
            return Err(format!(
                "cannot store point {p} in {}: the sweep folder was not prepared (no {})",
                dir.display(),
                stage.display()
            ));
        }
        let name = format!("{}.json", self.points[p].run_id);
        let tmp = stage.join(&name);
        let dst = self.point_path(dir, p);
        std::fs::write(&tmp, text.as_bytes())
            .and_then(|_| std::fs::rename(&tmp, &dst))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("cannot write {}: {e}", dst.display())
            })
    }

    /// The sweep's tables from every point's file (in point order): each point's tables
    /// with `seed` and a column per swept key after `run_id`, concatenated.
    pub fn merge(&self, files: &[String]) -> Result<Vec<Table>, String> {
        if files.len() != self.points.len() {
            return Err(format!(
                "{} point files for {} points",
                files.len(),
                self.points.len()
            ));
        }
        let axis_cols: Vec<Column> = self
            .axes
            .iter()
            .enumerate()
            .map(|(i, a)| Column {
                name: a.key.clone(),
                data: axis_column(&a.values, self.points.iter().map(|p| &p.values[i])),
            })
            .collect();
        let mut out: Vec<Table> = Vec::new();
        for (p, text) in files.iter().enumerate() {
            let f: PointFile = serde_json::from_str(text)
                .map_err(|e| format!("point {p}: not a cclab sweep point file: {e}"))?;
            self.check_point(p, text)?;
            for t in f.tables {
                let n = t.rows();
                let mut cols = Vec::with_capacity(t.columns.len() + 1 + axis_cols.len());
                let mut it = t.columns.into_iter();
                cols.extend(it.next()); // run_id
                cols.push(Column {
                    name: "seed".into(),
                    data: Col::I64(vec![Some(self.points[p].seed as i64); n]),
                });
                for a in &axis_cols {
                    cols.push(Column {
                        name: a.name.clone(),
                        data: repeat(&a.data, p, n),
                    });
                }
                cols.extend(it);
                let piece = Table {
                    name: t.name,
                    columns: cols,
                };
                match out.iter_mut().find(|o| o.name == piece.name) {
                    None => out.push(piece),
                    Some(o) => {
                        if o.columns.len() != piece.columns.len()
                            || o.columns.iter().zip(&piece.columns).any(|(a, b)| {
                                a.name != b.name
                                    || std::mem::discriminant(&a.data)
                                        != std::mem::discriminant(&b.data)
                            })
                        {
                            return Err(format!(
                                "point {p}: table {} has other columns than the points before it (files from another cclab version?)",
                                o.name
                            ));
                        }
                        for (a, b) in o.columns.iter_mut().zip(&piece.columns) {
                            a.data.extend(&b.data);
                        }
                    }
                }
            }
        }
        // Tables written even when no point gave them a row.
        let always = always_tables();
        out.retain(|t| t.rows() > 0 || always.contains(&t.name.as_str()));
        let order = table_names();
        out.sort_by_key(|t| {
            order
                .iter()
                .position(|n| *n == t.name)
                .unwrap_or(usize::MAX)
        });
        Ok(out)
    }
}

/// A swept key's column over the points: typed when every value has one TOML type
/// (string, integer, float, boolean), else each value's TOML text.
fn axis_column<'a>(all: &[Value], per_point: impl Iterator<Item = &'a Value>) -> Col {
    let same = |f: fn(&Value) -> bool| all.iter().all(f);
    if same(Value::is_str) {
        Col::Str(per_point.map(|v| v.as_str().map(String::from)).collect())
    } else if same(Value::is_integer) {
        Col::I64(per_point.map(Value::as_integer).collect())
    } else if same(Value::is_float) {
        Col::F64(per_point.map(Value::as_float).collect())
    } else if same(Value::is_bool) {
        Col::Bool(per_point.map(Value::as_bool).collect())
    } else {
        Col::Str(
            per_point
                .map(|v| Some(v.as_str().map_or_else(|| v.to_string(), String::from)))
                .collect(),
        )
    }
}

/// Point `p`'s cell of column `c`, `n` times.
fn repeat(c: &Col, p: usize, n: usize) -> Col {
    match c {
        Col::I64(v) => Col::I64(vec![v[p]; n]),
        Col::F64(v) => Col::F64(vec![v[p]; n]),
        Col::Str(v) => Col::Str(vec![v[p].clone(); n]),
        Col::Bool(v) => Col::Bool(vec![v[p]; n]),
    }
}

/// What a sweep did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The tables (empty when interrupted).
    pub tables: Vec<Table>,
    /// Points found finished on disk, and points run now.
    pub on_disk: usize,
    pub ran: usize,
    /// Stopped before every point was done (nothing but finished points was written).
    pub interrupted: bool,
    /// The table files written.
    pub files: Vec<PathBuf>,
}

/// How to run a sweep.
pub struct Options<'a> {
    /// The sweep's folder (checked with [`check_dir`] first), or none to keep it all in
    /// memory.
    pub out: Option<&'a Path>,
    /// Points run at once (0: one per core).
    pub jobs: usize,
    /// Raised to stop: running points stop, no new point starts.
    pub stop: Option<std::sync::Arc<AtomicBool>>,
    /// Called after each point is done (points done, points in all), from worker threads.
    pub on_point: &'a (dyn Fn(usize, usize) + Sync),
    /// What the manifest records about who ran the sweep (version, command line).
    pub provenance: serde_json::Map<String, serde_json::Value>,
}

/// A sweep folder taken for a sweep ([`prepare`]): its lock, held until this is dropped.
#[derive(Debug)]
pub struct Prepared {
    /// The folder, resolved.
    pub dir: PathBuf,
    _lock: crate::report::outdir::Lock,
}

impl Drop for Prepared {
    /// A sweep that ends before its tables (Ctrl-C, an error): the points' staging folder
    /// goes, by its record, before the lock.
    fn drop(&mut self) {
        let _ = crate::report::outdir::recover(&self.dir);
    }
}

/// Make the sweep folder `dir` ready for points: checked, locked (a second process is
/// refused, named), what a killed process left finished or removed by its journal, the
/// files the previous manifest lists removed (this sweep writes its own tables), the
/// manifest written, `points/` made, and the points' staging folder recorded and made.
pub fn prepare(
    sw: &Sweep,
    dir: &Path,
    provenance: &serde_json::Map<String, serde_json::Value>,
) -> Result<Prepared, String> {
    let (resolved, _) = check_dir(dir)?;
    std::fs::create_dir_all(&resolved)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock = crate::report::outdir::Lock::acquire(&resolved)?;
    let dir = resolved;
    crate::report::outdir::recover(&dir)?;
    // Checked again under the lock: another process may have written meanwhile.
    let (_, listed) = check_contents(&dir, false)?;
    let points = dir.join(POINTS);
    if std::fs::symlink_metadata(&points).is_ok_and(|m| !m.is_dir()) {
        return Err(points_refused(&points));
    }
    for p in 0..sw.points.len() {
        let f = sw.point_path(&dir, p);
        if std::fs::symlink_metadata(&f).is_ok_and(|m| !m.is_file()) {
            return Err(format!(
                "{} is not a plain file (a symbolic link or a folder); cclab follows no link inside an output folder and does not replace it: move it away",
                f.display()
            ));
        }
    }
    // An earlier sweep's tables go, by its manifest (this one writes its own when its
    // points are done): one this sweep would not write again must not stay beside a
    // manifest that no longer lists it. The manifest is rewritten after.
    for n in &listed {
        let p = dir.join(n);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            std::fs::remove_file(&p).map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
        }
    }
    write_manifest(&dir, sw, provenance, &[])?;
    if std::fs::symlink_metadata(&points).is_err() {
        std::fs::create_dir(&points)
            .map_err(|e| format!("cannot create {}: {e}", points.display()))?;
    }
    let names = sw
        .points
        .iter()
        .map(|p| format!("{}.json", p.run_id))
        .collect();
    crate::report::outdir::begin_stage(&dir, POINTS, names)?;
    Ok(Prepared { dir, _lock: lock })
}

/// Run sweep `sw`: the points not on disk yet (in parallel), then the tables.
pub fn run(sw: &Sweep, o: &Options) -> Result<Outcome, String> {
    let n = sw.points.len();
    let mut files: Vec<Option<String>> = vec![None; n];
    let prepared = match o.out {
        Some(dir) => Some(prepare(sw, dir, &o.provenance)?),
        None => None,
    };
    let out = prepared.as_ref().map(|p| p.dir.as_path());
    if let Some(dir) = out {
        for (p, slot) in files.iter_mut().enumerate() {
            *slot = sw.load_point(dir, p);
        }
    }
    let on_disk = files.iter().filter(|f| f.is_some()).count();
    let pending: Vec<usize> = (0..n).filter(|p| files[*p].is_none()).collect();
    let done = AtomicUsize::new(on_disk);
    (o.on_point)(on_disk, n);
    let stopped = || o.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
    let results = crate::experiments::par_map(&pending, o.jobs, |&p| {
        if stopped() {
            return Ok(None);
        }
        let Some(text) = sw.run_point(p, o.stop.as_ref())? else {
            return Ok(None);
        };
        if let Some(dir) = out {
            sw.store_point(dir, p, &text)?;
        }
        (o.on_point)(done.fetch_add(1, Ordering::Relaxed) + 1, n);
        Ok(Some(text))
    });
    let mut ran = 0;
    let mut first_err = None;
    for (&p, r) in pending.iter().zip(results) {
        match r {
            Ok(Some(t)) => {
                files[p] = Some(t);
                ran += 1;
            }
            Ok(None) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    // Stopped after the last point: its file is on disk, the tables are not written.
    if files.iter().any(Option::is_none) || stopped() {
        return Ok(Outcome {
            on_disk,
            ran,
            interrupted: true,
            ..Default::default()
        });
    }
    let files: Vec<String> = files.into_iter().map(Option::unwrap_or_default).collect();
    let tables = sw.merge(&files)?;
    let mut written = Vec::new();
    if let Some(dir) = out {
        written = write_tables_with(dir, sw, &o.provenance, &tables)?;
    }
    Ok(Outcome {
        tables,
        on_disk,
        ran,
        interrupted: false,
        files: written,
    })
}

/// Write the tables (CSV and Parquet) and the manifest listing them into the sweep folder
/// `dir` (whose lock this process holds, [`prepare`]) all or nothing: staged in
/// `.cclab-tmp`, then renamed into place under a journal, the manifest last (the points'
/// staging folder is removed first, by its record).
pub fn write_tables_with(
    dir: &Path,
    sw: &Sweep,
    provenance: &serde_json::Map<String, serde_json::Value>,
    tables: &[Table],
) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for t in tables {
        files.extend(table_files(t));
    }
    let names: Vec<String> = files.iter().map(|f| f.0.clone()).collect();
    files.push((MANIFEST.to_string(), manifest_text(sw, provenance, &names)));
    crate::report::outdir::install_files(dir, &files, &[])?;
    Ok(names.iter().map(|n| dir.join(n)).collect())
}

/// `sweep.json`: who ran the sweep, the scenario, the grid, and the tables written so far.
fn manifest_text(
    sw: &Sweep,
    provenance: &serde_json::Map<String, serde_json::Value>,
    files: &[String],
) -> Vec<u8> {
    let mut m = provenance.clone();
    m.insert("cclab".into(), crate::VERSION.into());
    m.insert("git".into(), crate::GIT_REV.into());
    m.insert("file".into(), sw.file.clone().into());
    m.insert("scenario".into(), sw.text.clone().into());
    let axes: serde_json::Map<String, serde_json::Value> = sw
        .axes
        .iter()
        .map(|a| {
            (
                a.key.clone(),
                serde_json::to_value(&a.values).unwrap_or_default(),
            )
        })
        .collect();
    m.insert(
        "sweep".into(),
        serde_json::json!({ "keys": axes, "seeds": sw.seeds, "points": sw.points.len() }),
    );
    m.insert("files".into(), files.to_vec().into());
    (serde_json::to_string_pretty(&m).expect("manifest serialises") + "\n").into_bytes()
}

fn write_manifest(
    dir: &Path,
    sw: &Sweep,
    provenance: &serde_json::Map<String, serde_json::Value>,
    files: &[String],
) -> Result<(), String> {
    let text = manifest_text(sw, provenance, files);
    crate::report::outdir::install_files(dir, &[(MANIFEST.to_string(), text)], &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seeds = N` from the file's seed runs base … base + N − 1: the largest seed may be
    /// the last one, not one past it.
    #[test]
    fn seeds_may_end_at_the_largest_seed() {
        let max = i64::MAX as u64;
        assert_eq!(
            seed_list(&Value::Integer(2), max - 1),
            Ok(vec![max - 1, max])
        );
        assert_eq!(seed_list(&Value::Integer(1), max), Ok(vec![max]));
        assert!(seed_list(&Value::Integer(2), max).is_err());
    }
}
