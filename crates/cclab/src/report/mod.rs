//! Output files of a run: `summary.json` (simulated quantities only: byte-identical for the
//! same scenario and seed), `perf.json` (wall clock), tidy CSV tables (one row per flow,
//! queue or sample, loadable with `pandas.read_csv`), and SVG plots of the time series.
//! A run's directory is written whole or not at all: files go to a temporary sibling
//! directory that is renamed into place at the end.

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
    fn json(&self) -> String {
        let w = self.wall_s.max(1e-12);
        serde_json::to_string_pretty(&serde_json::json!({
            "wall_s": self.wall_s,
            "events_per_s": self.events as f64 / w,
            "packet_hops_per_s": self.packet_hops as f64 / w,
            "events": self.events,
            "packet_hops": self.packet_hops,
        }))
        .expect("perf serialises")
    }
}

/// Write `contents` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, contents).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// One CSV field: quoted when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
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
    files
}

/// Write a run's files into `dir` (created or replaced whole). Returns the paths written.
pub fn write_run(
    dir: &Path,
    r: &RunResult,
    perf: &Perf,
    plots: bool,
) -> Result<Vec<PathBuf>, String> {
    write_dir(dir, &run_files(r, perf, plots))
}

/// Write `files` into a fresh temporary sibling of `dir`, then put it in `dir`'s place.
pub fn write_dir(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<Vec<PathBuf>, String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = (|| {
        std::fs::create_dir(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        for (f, data) in files {
            let p = tmp.join(f);
            std::fs::write(&p, data).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        if dir.exists() {
            let old = parent.join(format!(".{name}.old-{}", std::process::id()));
            std::fs::rename(dir, &old)
                .map_err(|e| format!("cannot replace {}: {e}", dir.display()))?;
            std::fs::rename(&tmp, dir)
                .map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
            let _ = std::fs::remove_dir_all(&old);
        } else {
            std::fs::rename(&tmp, dir)
                .map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
        }
        Ok(files.iter().map(|(f, _)| dir.join(f)).collect())
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
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
            hosts: vec![],
            engine: EngineResult {
                events: 1,
                packet_hops: 1,
                sim_time_s: 1.0,
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
}
