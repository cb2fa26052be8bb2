//! Output files of a run: `summary.json` (simulated quantities only: byte-identical for the
//! same scenario and seed), `perf.json` (wall clock), tidy CSV tables (one row per flow,
//! queue or sample, loadable with `pandas.read_csv`), and SVG plots of the time series.
//! A run's files are written whole or not at all: they all go to a temporary directory
//! first and are renamed into place only once every one of them was written.

pub mod csv;
pub mod human;
pub mod svg;

pub use human::table;

use crate::results::RunResult;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Wall-clock performance of a run (kept apart from the deterministic summary).
#[derive(Clone, Debug, Serialize)]
pub struct Perf {
    pub wall_s: f64,
    pub events: u64,
    pub packet_hops: u64,
}

impl Perf {
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s.max(1e-12)
    }

    pub fn packet_hops_per_s(&self) -> f64 {
        self.packet_hops as f64 / self.wall_s.max(1e-12)
    }

    /// `perf.json`: `{"wall_s", "events_per_s", "packet_hops_per_s", "events", "packet_hops"}`
    /// in that order (a struct, since `json!` would sort the keys).
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct PerfJson {
            wall_s: f64,
            events_per_s: f64,
            packet_hops_per_s: f64,
            events: u64,
            packet_hops: u64,
        }
        serde_json::to_string_pretty(&PerfJson {
            wall_s: self.wall_s,
            events_per_s: self.events_per_s(),
            packet_hops_per_s: self.packet_hops_per_s(),
            events: self.events,
            packet_hops: self.packet_hops,
        })
        .expect("perf serialises")
    }
}

/// A name for a temporary sibling of `path`, unique within this process (threads may write
/// side by side) and across processes.
fn tmp_name(path: &Path, what: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent.join(format!(".{name}.{what}-{}-{n}", std::process::id()))
}

/// Write `contents` to `path` through a temporary file in the same directory and a rename,
/// so readers see the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    if path.file_name().is_none() {
        return Err(format!("cannot write {}: not a file name", path.display()));
    }
    let tmp = tmp_name(path, "tmp");
    if let Err(e) = std::fs::write(&tmp, contents) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// One CSV field: quoted when it holds a comma, a quote, a line break or edge whitespace.
pub fn csv_field(s: &str) -> String {
    csv::quote(s).into_owned()
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

fn flows_csv(r: &RunResult) -> String {
    let mut s = String::from("id,from,to,cc,start_s,bytes,goodput_bps,retransmits,fast_retransmits,timeouts,syn_retransmits,ece_acks,ce_received,data_segs_out,acks_sent,delayed_acks,fct_s,rtt_mean_s,rtt_p99_s,final_cwnd,ss\n");
    for f in &r.flows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            f.id,
            csv_field(&f.from),
            csv_field(&f.to),
            csv_field(&f.cc),
            f.start_s,
            f.bytes,
            f.goodput_bps,
            f.retransmits,
            f.fast_retransmits,
            f.timeouts,
            f.syn_retransmits,
            f.ece_acks,
            f.ce_received,
            f.data_segs_out,
            f.acks_sent,
            f.delayed_acks,
            opt(f.fct_s),
            opt(f.rtt_mean_s),
            opt(f.rtt_p99_s),
            f.final_cwnd,
            csv_field(&f.ss)
        );
    }
    s
}

fn queues_csv(r: &RunResult) -> String {
    let mut s = String::from("name,max_bytes,max_pkts,mean_bytes,drops,marks,enqueued,tx_pkts,tx_bytes,injected_losses\n");
    for q in &r.queues {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{}",
            csv_field(&q.name),
            q.max_bytes,
            q.max_pkts,
            q.mean_bytes,
            q.drops,
            q.marks,
            q.enqueued,
            q.tx_pkts,
            q.tx_bytes,
            q.injected_losses
        );
    }
    s
}

/// Every file of a run, as (name, contents), in a fixed order.
pub fn run_files(r: &RunResult, perf: &Perf, plots: bool) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = vec![
        (
            "summary.json".into(),
            (serde_json::to_string_pretty(r).expect("results serialise") + "\n").into_bytes(),
        ),
        ("perf.json".into(), (perf.json() + "\n").into_bytes()),
        ("flows.csv".into(), flows_csv(r).into_bytes()),
        ("queues.csv".into(), queues_csv(r).into_bytes()),
    ];
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
        let mut s = String::from("t,flow,cwnd,ssthresh,srtt_s,in_flight\n");
        for c in &se.cwnd {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{}",
                c.t, c.flow, c.cwnd, c.ssthresh, c.srtt_s, c.in_flight
            );
        }
        files.push(("cwnd.csv".into(), s.into_bytes()));
        if plots {
            let lines = per_flow(
                &|i| Some((se.cwnd[i].flow, se.cwnd[i].t, se.cwnd[i].cwnd as f64)),
                se.cwnd.len(),
            );
            let p = svg::Plot {
                title: format!("{}: congestion window", r.scenario),
                x_label: "time (s)".into(),
                y_label: "cwnd (segments)".into(),
                lines,
                ..Default::default()
            };
            files.push(("cwnd.svg".into(), svg::render(&p).into_bytes()));
        }
    }
    if !se.queue.is_empty() {
        let mut s = String::from("t,queue,bytes,pkts\n");
        for q in &se.queue {
            let _ = writeln!(s, "{},{},{},{}", q.t, csv_field(&q.queue), q.bytes, q.pkts);
        }
        files.push(("queue.csv".into(), s.into_bytes()));
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
            let p = svg::Plot {
                title: format!("{}: queue length", r.scenario),
                x_label: "time (s)".into(),
                y_label: "queue (KB)".into(),
                lines,
                ..Default::default()
            };
            files.push(("queue.svg".into(), svg::render(&p).into_bytes()));
        }
    }
    if !se.throughput.is_empty() {
        let mut s = String::from("t,flow,bps\n");
        for x in &se.throughput {
            let _ = writeln!(s, "{},{},{}", x.t, x.flow, x.bps);
        }
        files.push(("throughput.csv".into(), s.into_bytes()));
        if plots {
            let lines = per_flow(
                &|i| {
                    Some((
                        se.throughput[i].flow,
                        se.throughput[i].t,
                        se.throughput[i].bps / 1e6,
                    ))
                },
                se.throughput.len(),
            );
            let p = svg::Plot {
                title: format!("{}: throughput", r.scenario),
                x_label: "time (s)".into(),
                y_label: "goodput (Mbit/s)".into(),
                lines,
                ..Default::default()
            };
            files.push(("throughput.svg".into(), svg::render(&p).into_bytes()));
        }
    }
    if !se.tsg.is_empty() {
        let mut s = String::from("t,flow,kind,seq,end\n");
        for x in &se.tsg {
            let kind = ["data", "retrans", "ack"][x.kind.min(2) as usize];
            let _ = writeln!(s, "{},{},{},{},{}", x.t, x.flow, kind, x.seq, x.end);
        }
        files.push(("tsg.csv".into(), s.into_bytes()));
        if plots {
            let mut flows: Vec<u32> = se.tsg.iter().map(|x| x.flow).collect();
            flows.sort_unstable();
            flows.dedup();
            for f in flows {
                files.push((format!("tsg_flow{f}.svg"), tsg_svg(r, f).into_bytes()));
            }
        }
    }
    files
}

/// Every name [`run_files`] can produce: a rewrite of a run directory removes those of them
/// this run did not produce (a stale `cwnd.svg` from an earlier run with plots on), and
/// leaves every other file there alone.
pub const RUN_FILE_NAMES: [&str; 11] = [
    "tsg.csv",
    "summary.json",
    "perf.json",
    "flows.csv",
    "queues.csv",
    "cwnd.csv",
    "cwnd.svg",
    "queue.csv",
    "queue.svg",
    "throughput.csv",
    "throughput.svg",
];

/// Write a run's files into `dir` (created if missing; in an existing directory the run's
/// files are replaced and stale ones removed). Returns the paths written.
pub fn write_run(
    dir: &Path,
    r: &RunResult,
    perf: &Perf,
    plots: bool,
) -> Result<Vec<PathBuf>, String> {
    install(dir, &run_files(r, perf, plots), &is_run_file)
}

/// Is `name` a file [`run_files`] can produce (a fixed name or a per-flow `tsg_flow<i>.svg`)?
pub fn is_run_file(name: &str) -> bool {
    RUN_FILE_NAMES.contains(&name)
        || name
            .strip_prefix("tsg_flow")
            .and_then(|x| x.strip_suffix(".svg"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Write `files` into `dir`, all or nothing: every file is first written into a fresh
/// temporary directory (beside `dir` if `dir` is new, else inside it); only when all were
/// written does that directory become `dir`, or are its files renamed into the existing
/// `dir`, replacing files of the same names. Other files already in `dir` are left alone. On error the temporary
/// directory is removed and the message names the path and the OS error.
pub fn write_dir(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<Vec<PathBuf>, String> {
    install(dir, files, &|_| false)
}

fn install(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    stale: &dyn Fn(&str) -> bool,
) -> Result<Vec<PathBuf>, String> {
    if dir.as_os_str().is_empty() {
        return Err("the output directory path is empty".into());
    }
    for (f, _) in files {
        let p = Path::new(f);
        if p.file_name() != Some(p.as_os_str()) {
            return Err(format!(
                "cannot write {}: {f:?} is not a plain file name",
                dir.display()
            ));
        }
    }
    let existed = match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => true,
        Ok(_) => {
            return Err(format!(
                "cannot write {}: it exists and is not a directory",
                dir.display()
            ))
        }
        Err(_) => false,
    };
    // The temporary directory lives beside `dir` when `dir` is new (so one rename puts it in
    // place) and inside it otherwise (same file system even if `dir` is a mount point).
    let tmp = if existed {
        tmp_name(&dir.join("run"), "tmp")
    } else {
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(parent) = parent {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create directory {}: {e}", parent.display()))?;
        }
        tmp_name(dir, "tmp")
    };
    let result = (|| {
        std::fs::create_dir(&tmp)
            .map_err(|e| format!("cannot create directory {}: {e}", tmp.display()))?;
        for (f, data) in files {
            std::fs::write(tmp.join(f), data)
                .map_err(|e| format!("cannot write {}: {e}", dir.join(f).display()))?;
        }
        if !existed {
            match std::fs::rename(&tmp, dir) {
                Ok(()) => return Ok(()),
                // `dir` appeared meanwhile: move the files in as below.
                Err(_) if dir.is_dir() => {}
                Err(e) => return Err(format!("cannot create directory {}: {e}", dir.display())),
            }
        }
        for (f, _) in files {
            std::fs::rename(tmp.join(f), dir.join(f))
                .map_err(|e| format!("cannot write {}: {e}", dir.join(f).display()))?;
        }
        let present: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        for name in present.iter().filter(|n| stale(n)) {
            if files.iter().all(|(f, _)| f != name) {
                let p = dir.join(name);
                match std::fs::remove_file(&p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(format!("cannot remove stale {}: {e}", p.display()))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    })();
    if tmp.exists() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result.map(|()| files.iter().map(|(f, _)| dir.join(f)).collect())
}

/// A tcptrace/xplot-style time-sequence graph of flow `f`: sequence number (MB sent) against
/// time — data segments, retransmissions (marked), the ACK line and the receive-window line.
pub fn tsg_svg(r: &RunResult, f: u32) -> String {
    let mb = |x: u64| x as f64 / 1e6;
    let ev: Vec<&crate::results::TsgSample> = r.series.tsg.iter().filter(|x| x.flow == f).collect();
    let pick = |k: u8| ev.iter().filter(move |x| x.kind == k);
    let line = |name: &str, points: Vec<(f64, f64)>, markers: bool, dashed: bool| svg::Line {
        name: name.into(),
        points,
        markers,
        dashed,
    };
    let p = svg::Plot {
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
    svg::render(&p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::*;

    fn sample() -> RunResult {
        RunResult {
            scenario: "t".into(),
            seed: 1,
            duration_s: 1.0,
            flows: vec![],
            queues: vec![QueueResult {
                name: "a,b".into(),
                max_bytes: 1,
                max_pkts: 1,
                mean_bytes: 0.5,
                drops: 0,
                marks: 0,
                enqueued: 1,
                tx_pkts: 1,
                tx_bytes: 1,
                injected_losses: 0,
            }],
            pings: vec![],
            aggregates: vec![],
            hosts: vec![],
            engine: EngineResult {
                events: 1,
                packet_hops: 1,
                sim_time_s: 1.0,
                unroutable: 0,
            },
            series: Series {
                cwnd: vec![CwndSample {
                    t: 0.0,
                    flow: 0,
                    cwnd: 10,
                    ssthresh: 5,
                    srtt_s: 0.1,
                    in_flight: 3,
                }],
                ..Default::default()
            },
        }
    }

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert!(queues_csv(&sample()).contains("\"a,b\",1,1,0.5"));
    }

    #[test]
    fn write_run_is_whole_and_repeatable() {
        let base = std::env::temp_dir().join(format!("cclab-report-test-{}", std::process::id()));
        let dir = base.join("run");
        let perf = Perf {
            wall_s: 0.5,
            events: 10,
            packet_hops: 5,
        };
        let files = write_run(&dir, &sample(), &perf, true).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "summary.json",
                "perf.json",
                "flows.csv",
                "queues.csv",
                "cwnd.csv",
                "cwnd.svg"
            ]
        );
        let first = std::fs::read(dir.join("summary.json")).unwrap();
        write_run(
            &dir,
            &sample(),
            &Perf {
                wall_s: 9.0,
                ..perf.clone()
            },
            false,
        )
        .unwrap();
        assert_eq!(first, std::fs::read(dir.join("summary.json")).unwrap());
        assert!(
            !dir.join("cwnd.svg").exists(),
            "the directory is replaced whole"
        );
        let leftovers: Vec<_> = std::fs::read_dir(&base)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name() != "run")
            .collect();
        assert!(leftovers.is_empty(), "no temporary siblings left");
        // A parent that is a regular file: a clean error, nothing left behind.
        let f = base.join("file");
        std::fs::write(&f, b"x").unwrap();
        assert!(write_run(&f.join("run"), &sample(), &perf, false).is_err());
        let _ = std::fs::remove_dir_all(&base);
    }

    fn flow(id: u32) -> FlowResult {
        FlowResult {
            id,
            from: "s0".into(),
            to: "r0".into(),
            cc: "reno".into(),
            start_s: 0.1,
            bytes: 1_000_000,
            goodput_bps: 8e6 / 3.0,
            retransmits: 1,
            fast_retransmits: 1,
            timeouts: 0,
            syn_retransmits: 0,
            ece_acks: 0,
            ce_received: 0,
            data_segs_out: 700,
            acks_sent: 350,
            delayed_acks: 300,
            fct_s: None,
            rtt_mean_s: Some(0.0123),
            rtt_p99_s: Some(0.02),
            final_cwnd: 42,
            ss: "reno wscale:7,7 rto:204 rtt:12.3/0.4 cwnd:42".into(),
        }
    }

    fn full() -> RunResult {
        let mut r = sample();
        r.flows = vec![flow(0), flow(1)];
        r.series.queue = (0..50)
            .map(|i| QueueSample {
                t: i as f64 * 0.01,
                queue: "bottleneck".into(),
                bytes: (i % 10) * 1500,
                pkts: i % 10,
            })
            .collect();
        r.series.throughput = (0..100)
            .map(|i| ThroughputSample {
                t: (i / 2) as f64 * 0.01,
                flow: i % 2,
                bps: 5e6,
            })
            .collect();
        r.series.tsg = (0..20)
            .map(|i| TsgSample {
                t: i as f64 * 0.01,
                flow: 0,
                kind: (i % 3) as u8,
                seq: 1 + i * 1448,
                end: 1 + (i + 1) * 1448,
            })
            .collect();
        r
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cclab-report-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn flows_csv_has_every_field() {
        let csv = flows_csv(&full());
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let v = serde_json::to_value(flow(0)).unwrap();
        let mut fields: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut sorted = header.clone();
        sorted.sort();
        fields.sort();
        assert_eq!(
            sorted, fields,
            "flows.csv has one column per FlowResult field"
        );
        let row = lines.next().unwrap();
        assert!(
            row.starts_with("0,s0,r0,reno,0.1,1000000,2666666.6666666665,"),
            "{row}"
        );
        // None is an empty cell, the ss line (with a comma here) is quoted.
        assert!(
            row.ends_with(",,0.0123,0.02,42,\"reno wscale:7,7 rto:204 rtt:12.3/0.4 cwnd:42\""),
            "{row}"
        );
        assert_eq!(csv.lines().count(), 3);
    }

    #[test]
    fn perf_json_keys_in_documented_order() {
        let j = Perf {
            wall_s: 2.0,
            events: 10,
            packet_hops: 6,
        }
        .json();
        let keys: Vec<usize> = [
            "\"wall_s\"",
            "\"events_per_s\": 5.0",
            "\"packet_hops_per_s\": 3.0",
            "\"events\": 10",
            "\"packet_hops\": 6",
        ]
        .iter()
        .map(|k| j.find(k).unwrap_or_else(|| panic!("{k} in {j}")))
        .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{j}");
    }

    #[test]
    fn write_run_file_sets() {
        let base = tmp("sets");
        let perf = Perf {
            wall_s: 1.0,
            events: 1,
            packet_hops: 1,
        };
        let mut bare = full();
        bare.series = Series::default();
        let dir = base.join("bare");
        let written = write_run(&dir, &bare, &perf, true).unwrap();
        assert_eq!(written.len(), 4);
        assert_eq!(
            listing(&dir),
            ["flows.csv", "perf.json", "queues.csv", "summary.json"]
        );
        let dir = base.join("all");
        let written = write_run(&dir, &full(), &perf, true).unwrap();
        let mut all: Vec<String> = RUN_FILE_NAMES.iter().map(|s| s.to_string()).collect();
        all.push("tsg_flow0.svg".into());
        all.sort();
        assert_eq!(listing(&dir), all);
        assert_eq!(written.len(), 12);
        let tsg = std::fs::read_to_string(dir.join("tsg.csv")).unwrap();
        assert!(
            tsg.starts_with("t,flow,kind,seq,end\n0,0,data,1,1449\n0.01,0,retrans,"),
            "{tsg}"
        );
        assert!(written.iter().all(|p| p.starts_with(&dir) && p.is_file()));
        let q = std::fs::read_to_string(dir.join("queue.csv")).unwrap();
        assert!(
            q.starts_with("t,queue,bytes,pkts\n0,bottleneck,0,0\n"),
            "{q}"
        );
        let svg = std::fs::read_to_string(dir.join("throughput.svg")).unwrap();
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("flow 1 (reno)"));
        assert_eq!(listing(&base), ["all", "bare"], "no temporary siblings");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn rewrite_keeps_foreign_files_and_is_byte_identical() {
        let base = tmp("rewrite");
        let dir = base.join("run");
        let perf = Perf {
            wall_s: 1.0,
            events: 1,
            packet_hops: 1,
        };
        write_run(&dir, &full(), &perf, true).unwrap();
        let first = std::fs::read(dir.join("summary.json")).unwrap();
        std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
        write_run(&dir, &full(), &perf, false).unwrap();
        assert_eq!(first, std::fs::read(dir.join("summary.json")).unwrap());
        let files = listing(&dir);
        assert!(files.contains(&"notes.txt".to_string()), "{files:?}");
        assert!(
            !files
                .iter()
                .any(|f| f.ends_with(".svg") || f.contains("tmp")),
            "{files:?}"
        );
        assert_eq!(listing(&base), ["run"]);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn unwritable_places_fail_cleanly() {
        let base = tmp("fail");
        let f = base.join("file");
        std::fs::write(&f, b"x").unwrap();
        let perf = Perf {
            wall_s: 1.0,
            events: 1,
            packet_hops: 1,
        };
        let e = write_run(&f.join("run"), &full(), &perf, true).unwrap_err();
        assert!(e.contains(&f.display().to_string()), "{e}");
        let e = write_run(&f, &full(), &perf, true).unwrap_err();
        assert!(e.contains("not a directory"), "{e}");
        assert!(write_atomic(&f.join("x.json"), b"{}").is_err());
        assert_eq!(listing(&base), ["file"], "nothing left behind");
        assert_eq!(std::fs::read(&f).unwrap(), b"x");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temporary() {
        let base = tmp("atomic");
        let a = base.join("a.json");
        let b = base.join("a.csv");
        write_atomic(&a, b"1").unwrap();
        write_atomic(&a, b"2").unwrap();
        write_atomic(&b, b"3").unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"2");
        assert_eq!(std::fs::read(&b).unwrap(), b"3");
        assert_eq!(listing(&base), ["a.csv", "a.json"]);
        let _ = std::fs::remove_dir_all(&base);
    }
}
