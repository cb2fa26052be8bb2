//! Output files of a run: `summary.json` (simulated quantities only: byte-identical for the
//! same scenario and seed), `perf.json` (wall clock), tidy CSV tables (one row per flow,
//! queue or sample, loadable with `pandas.read_csv`), and SVG plots of the time series.
//! A run's files are written whole or not at all, into a folder cclab may write
//! (`outdir/`: new, empty or its own, with a manifest `run.json`).

pub mod csv;
pub mod human;
pub mod outdir;
pub mod parquet;
pub mod svg;
pub mod table;

pub use human::table;
pub use outdir::{check_file, write_atomic, FileSink, OutDir, MANIFEST};

use crate::results::RunResult;
use crate::scenario::{Axes, PlotAxes};
use serde::Serialize;
use std::path::PathBuf;

/// Wall-clock performance of a run (kept apart from the deterministic summary).
#[derive(Clone, Debug, Serialize)]
pub struct Perf {
    pub wall_s: f64,
    pub events: u64,
    pub packet_hops: u64,
    /// The process's peak resident memory when the simulation ended, before its results
    /// were collected, MiB (Linux `VmHWM`; `None` elsewhere).
    pub peak_rss_mib: Option<f64>,
    /// Of the process's memory at that moment, MiB in transparent huge pages (Linux
    /// `AnonHugePages`; `None` elsewhere).
    pub huge_pages_mib: Option<f64>,
}

impl Perf {
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s.max(1e-12)
    }

    pub fn packet_hops_per_s(&self) -> f64 {
        self.packet_hops as f64 / self.wall_s.max(1e-12)
    }

    /// `perf.json`: `{"wall_s", "events_per_s", "packet_hops_per_s", "events", "packet_hops",
    /// "peak_rss_mib", "huge_pages_mib"}` in that order, the last two where known (a struct,
    /// since `json!` would sort the keys).
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct PerfJson {
            wall_s: f64,
            events_per_s: f64,
            packet_hops_per_s: f64,
            events: u64,
            packet_hops: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            peak_rss_mib: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            huge_pages_mib: Option<f64>,
        }
        serde_json::to_string_pretty(&PerfJson {
            wall_s: self.wall_s,
            events_per_s: self.events_per_s(),
            packet_hops_per_s: self.packet_hops_per_s(),
            events: self.events,
            packet_hops: self.packet_hops,
            peak_rss_mib: self.peak_rss_mib,
            huge_pages_mib: self.huge_pages_mib,
        })
        .expect("perf serialises")
    }
}

/// One CSV field: quoted when it holds a comma, a quote, a line break or edge whitespace.
pub fn csv_field(s: &str) -> String {
    csv::quote(s).into_owned()
}

/// Plot `p`'s axes as a run's plots have them: time over the whole run (0 to
/// `duration_s`) unless `a` fixes it, y as the plot chooses unless `a` fixes it (`scale`
/// turns `a`'s base unit into the plot's: 1e-3 for bytes shown in KB).
fn run_axes(p: &mut svg::Plot, a: &Axes, duration_s: f64, scale: f64) {
    p.x_min = Some(a.xmin.map_or(0.0, crate::engine::secs));
    p.x_max = Some(a.xmax.map_or(duration_s, crate::engine::secs));
    p.y_min = a.ymin.map(|y| y * scale);
    p.y_max = a.ymax.map(|y| y * scale);
}

/// A time series of run `r` as an SVG plot: `lines` against time, titled "<scenario>:
/// `what`", its y axis `y_label` with the limits of `a` (in the series' unit) times
/// `scale`.
fn series_svg(
    r: &RunResult,
    what: &str,
    y_label: &str,
    lines: Vec<svg::Line>,
    a: &Axes,
    scale: f64,
) -> Vec<u8> {
    let mut p = svg::Plot {
        title: format!("{}: {what}", r.scenario),
        x_label: "time (s)".into(),
        y_label: y_label.into(),
        lines,
        ..Default::default()
    };
    run_axes(&mut p, a, r.duration_s, scale);
    svg::render(&p).into_bytes()
}

/// Every file of a run, as (name, contents), in a fixed order; plots (when `plots`) with
/// the axes `axes` fixes.
pub fn run_files(
    r: &RunResult,
    perf: &Perf,
    plots: bool,
    axes: &PlotAxes,
) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    run_files_to(r, perf, plots, axes, &mut files).expect("files in memory");
    files
}

/// [`run_files`] handed to `sink` one at a time as each is made: a run of many flows
/// holds its results and one file at a time, not every file at once.
pub fn run_files_to(
    r: &RunResult,
    perf: &Perf,
    plots: bool,
    axes: &PlotAxes,
    sink: &mut dyn FileSink,
) -> Result<(), String> {
    sink.file("summary.json", &mut |w| {
        serde_json::to_writer_pretty(&mut *w, r)?;
        w.write_all(b"\n")
    })?;
    let mut files = Files { sink };
    files.push(("perf.json".into(), (perf.json() + "\n").into_bytes()))?;
    // The tables (`table::run_tables`), each as CSV and Parquet: the run's, its flows'
    // (a group of rows at a time), then the others; each series' plot after its table.
    let put = |files: &mut Files, t: &table::Table| -> Result<(), String> {
        for f in table::table_files(t) {
            files.push(f)?;
        }
        Ok(())
    };
    put(&mut files, &table::runs_table(r))?;
    table::flow_files_to(r, &mut *files.sink)?;
    for t in table::other_tables(r) {
        put(&mut files, &t)?;
    }
    let series = table::series_tables(r);
    let series_table = |files: &mut Files, name: &str| -> Result<(), String> {
        match series.iter().find(|t| t.name == name) {
            Some(t) => put(files, t),
            None => Ok(()),
        }
    };
    let se = &r.series;
    let per_flow = |pick: &dyn Fn(usize) -> Option<(u32, f64, f64)>, n: usize| {
        let mut lines: Vec<svg::Line> = r
            .flows
            .iter()
            .map(|f| svg::Line {
                name: format!("flow {} ({})", f.id, f.cc),
                ..Default::default()
            })
            .collect();
        for i in 0..n {
            if let Some((flow, x, y)) = pick(i) {
                if let Some(l) = lines.get_mut(flow as usize) {
                    l.points.push((x, y));
                }
            }
        }
        lines
    };
    if !se.cwnd.is_empty() {
        series_table(&mut files, "cwnd")?;
        if plots {
            let lines = per_flow(
                &|i| Some((se.cwnd[i].flow, se.cwnd[i].t, se.cwnd[i].cwnd as f64)),
                se.cwnd.len(),
            );
            let svg = series_svg(
                r,
                "congestion window",
                "cwnd (segments)",
                lines,
                &axes.cwnd,
                1.0,
            );
            files.push(("cwnd.svg".into(), svg))?;
        }
    }
    // No plot: its quantities have units of their own (Python's `Run.plot("cc", name=…)`
    // draws one).
    if !se.cc.is_empty() {
        series_table(&mut files, "cc")?;
    }
    if !se.queue.is_empty() {
        series_table(&mut files, "queue")?;
        if plots {
            let mut lines: Vec<svg::Line> = Vec::new();
            for q in &se.queue {
                match lines.iter_mut().find(|l| l.name == q.queue) {
                    Some(l) => l.points.push((q.t, q.bytes as f64 / 1e3)),
                    None => lines.push(svg::Line {
                        name: q.queue.clone(),
                        points: vec![(q.t, q.bytes as f64 / 1e3)],
                        ..Default::default()
                    }),
                }
            }
            let svg = series_svg(r, "queue length", "queue (KB)", lines, &axes.queue, 1e-3);
            files.push(("queue.svg".into(), svg))?;
        }
    }
    if !se.throughput.is_empty() {
        series_table(&mut files, "throughput")?;
        if plots {
            let lines = per_flow(
                &|i| {
                    Some((
                        se.throughput[i].flow,
                        se.throughput[i].t,
                        se.throughput[i].goodput_bps / 1e6,
                    ))
                },
                se.throughput.len(),
            );
            let svg = series_svg(
                r,
                "throughput",
                "goodput (Mbit/s)",
                lines,
                &axes.throughput,
                1e-6,
            );
            files.push(("throughput.svg".into(), svg))?;
        }
    }
    if !se.tsg.is_empty() {
        series_table(&mut files, "tsg")?;
        if plots {
            let mut flows: Vec<u32> = se.tsg.iter().map(|x| x.flow).collect();
            flows.sort_unstable();
            flows.dedup();
            for f in flows {
                files.push((
                    format!("tsg_flow{f}.svg"),
                    tsg_svg(r, f, &axes.tsg).into_bytes(),
                ))?;
            }
        }
    }
    // A file of rows read back from the run's temporary file ends early if a read fails
    // (`results::Flows`): then the run's files are not installed.
    if let Some(e) = r.flows.read_error() {
        return Err(crate::results::read_back(e));
    }
    Ok(())
}

/// Hands each file to the sink as it is made.
struct Files<'a> {
    sink: &'a mut dyn FileSink,
}

impl Files<'_> {
    fn push(&mut self, (name, data): (String, Vec<u8>)) -> Result<(), String> {
        self.sink.file(&name, &mut |w| w.write_all(&data))
    }
}

/// The files a run read (`run.json`'s `inputs`): for each, the key that names it, the
/// value written there, the file read (absolute) and the FNV-1a digest of its bytes (16
/// hex digits), so that `cclab run DIR` reads the same file and refuses it if it changed.
pub fn inputs_json(inputs: &[&crate::schema::InputFile]) -> serde_json::Value {
    inputs
        .iter()
        .map(|f| {
            serde_json::json!({
                "key": f.key,
                "value": f.value,
                "path": f.path.to_string_lossy(),
                "fnv1a64": format!("{:016x}", f.digest),
            })
        })
        .collect()
}

/// `run.json`'s `inputs` read back (what [`inputs_json`] wrote), or why they cannot be.
pub fn inputs_from_json(v: &serde_json::Value) -> Result<Vec<crate::schema::InputFile>, String> {
    let Some(list) = v.as_array() else {
        return Err("expected a list of the files the run read".into());
    };
    let mut out = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let s = |k: &str| e.get(k).and_then(|x| x.as_str());
        let digest = s("fnv1a64").and_then(|d| u64::from_str_radix(d, 16).ok());
        match (s("key"), s("value"), s("path"), digest) {
            (Some(key), Some(value), Some(path), Some(digest)) => {
                out.push(crate::schema::InputFile {
                    key: key.into(),
                    value: value.into(),
                    path: path.into(),
                    digest,
                })
            }
            _ => {
                return Err(format!(
                    "entry {i} is not {{ key, value, path, fnv1a64 }} (a file the run read)"
                ))
            }
        }
    }
    Ok(out)
}

/// The tables every run writes (`NAME.csv` and `NAME.parquet`), whatever its scenario.
pub const RUN_TABLES: [&str; 5] = ["runs", "flows", "queues", "pings", "queries"];
/// The tables a run with byte-count flows writes beside them.
pub const FCT_TABLES: [&str; 2] = ["fct", "fct_buckets"];

/// The files a run of `sc` may write besides the manifest (the folder check looks at each
/// before the run), known before it runs from what its scenario asks for: the tables it
/// always writes, those of its apps, the series and plots that are on, and the captures.
/// What a run actually writes is a subset.
pub fn planned_files(sc: &crate::scenario::Scenario) -> Vec<String> {
    let o = &sc.output;
    let mut v: Vec<String> = vec!["summary.json".into(), "perf.json".into()];
    let a = &sc.apps;
    let tables = |v: &mut Vec<String>, names: &[&str]| {
        for t in names {
            v.push(format!("{t}.csv"));
            v.push(format!("{t}.parquet"));
        }
    };
    tables(&mut v, &RUN_TABLES);
    if !a.workloads.is_empty() || a.flows.iter().any(|f| f.bytes.is_some()) {
        tables(&mut v, &FCT_TABLES);
    }
    // Any run may have them (`udp`, `ocbr` by its apps, `hosts` by its senders).
    tables(&mut v, &["udp", "ocbr", "hosts"]);
    // Each series: on, its name, drawn with `plots`.
    for (on, name, drawn) in [
        (o.cwnd_interval.is_some(), "cwnd", true),
        (o.cc_interval.is_some(), "cc", false),
        (o.queue_interval.is_some(), "queue", true),
        (o.throughput_interval.is_some(), "throughput", true),
    ] {
        if on {
            tables(&mut v, &[name]);
            if o.plots && drawn {
                v.push(format!("{name}.svg"));
            }
        }
    }
    if !o.tsg.is_empty() {
        tables(&mut v, &["tsg"]);
        if o.plots {
            v.extend(o.tsg.iter().map(|f| format!("tsg_flow{f}.svg")));
        }
    }
    v.extend(o.pcap.iter().map(|n| format!("{n}.pcap")));
    v
}

/// Write a run's files into the checked folder `out`, with the captures already streamed
/// there under temporary names and the manifest `meta` (`run.json`), all or nothing; the
/// files of the folder's previous run that this one did not write are removed, every
/// other file is left alone. Returns the paths written.
pub fn write_run(
    out: &OutDir,
    r: &RunResult,
    perf: &Perf,
    plots: bool,
    axes: &PlotAxes,
    streamed: &[(String, PathBuf)],
    meta: serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<PathBuf>, String> {
    write_run_unless(out, r, perf, plots, axes, streamed, meta, &|| false)
}

/// What [`write_run_unless`] returns when `stopped` turned true.
pub const STOPPED: &str = "stopped before the files were installed";

/// [`write_run`] that gives up when `stopped()` is true before a file is made or before
/// the install (Ctrl-C in Python, `cclab.cancel()`): the temporaries are removed, the
/// folder is left as it was, and the error is [`STOPPED`].
#[allow(clippy::too_many_arguments)]
pub fn write_run_unless(
    out: &OutDir,
    r: &RunResult,
    perf: &Perf,
    plots: bool,
    axes: &PlotAxes,
    streamed: &[(String, PathBuf)],
    meta: serde_json::Map<String, serde_json::Value>,
    stopped: &dyn Fn() -> bool,
) -> Result<Vec<PathBuf>, String> {
    struct Unless<'a, 'b> {
        sink: &'a mut dyn FileSink,
        stopped: &'b dyn Fn() -> bool,
    }
    impl FileSink for Unless<'_, '_> {
        fn file(
            &mut self,
            name: &str,
            write: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
        ) -> Result<(), String> {
            if (self.stopped)() {
                return Err(STOPPED.into());
            }
            self.sink.file(name, write)
        }
    }
    let mut st = out.stage(streamed)?;
    let made = run_files_to(
        r,
        perf,
        plots,
        axes,
        &mut Unless {
            sink: &mut st,
            stopped,
        },
    );
    if let Err(e) = made {
        st.discard(streamed);
        return Err(e);
    }
    if stopped() {
        st.discard(streamed);
        return Err(STOPPED.into());
    }
    st.commit(streamed, meta, true)
}

/// A tcptrace/xplot-style time-sequence graph of flow `f`: sequence number (MB sent) against
/// time — data segments, retransmissions (marked), the ACK line and the receive-window line.
pub fn tsg_svg(r: &RunResult, f: u32, axes: &Axes) -> String {
    let mb = |x: u64| x as f64 / 1e6;
    let ev: Vec<&crate::results::TsgSample> = r.series.tsg.iter().filter(|x| x.flow == f).collect();
    let pick = |k: u8| ev.iter().filter(move |x| x.kind == k);
    let line = |name: &str, points: Vec<(f64, f64)>, markers: bool, dashed: bool| svg::Line {
        name: name.into(),
        points,
        markers,
        dashed,
    };
    let mut p = svg::Plot {
        title: format!("{}: time-sequence graph of flow {f}", r.scenario),
        x_label: "time (s)".into(),
        y_label: "sequence number (MB)".into(),
        lines: vec![
            line(
                "data segments",
                pick(0).map(|x| (x.t, mb(x.end))).collect(),
                false,
                false,
            ),
            line(
                "ACK",
                pick(2).map(|x| (x.t, mb(x.seq))).collect(),
                false,
                false,
            ),
            line(
                "receive window",
                pick(2).map(|x| (x.t, mb(x.end))).collect(),
                false,
                true,
            ),
            line(
                "retransmissions (R)",
                pick(1).map(|x| (x.t, mb(x.end))).collect(),
                true,
                false,
            ),
        ],
        ..Default::default()
    };
    run_axes(&mut p, axes, r.duration_s, 1e-6);
    svg::render(&p)
}

#[cfg(test)]
mod tests;
