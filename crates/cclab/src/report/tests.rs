use super::table;
use super::*;
use crate::results::*;

fn sample() -> RunResult {
    RunResult {
        run_id: "0123456789abcdef".into(),
        cclab: "0.1.0".into(),
        git: "unknown".into(),
        scenario: "t".into(),
        seed: 1,
        duration_s: 1.0,
        flows: vec![].into(),
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
            police: None,
        }],
        // The apps' kinds of rows, none yet (as a run without apps).
        apps: {
            let mut a = AppTables::default();
            crate::app::declare(&mut a);
            a
        },
        hosts: vec![],
        engine: EngineResult {
            events: 1,
            packet_hops: 1,
            sim_time_s: 1.0,
            unroutable: 0,
            ack_backlog_drops: 0,
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
            // A number, one not known yet, and a named level.
            cc: vec![
                CcSample {
                    t: 0.0,
                    flow: 0,
                    cc: "dctcp",
                    name: "alpha",
                    value: 0.0625,
                    label: None,
                },
                CcSample {
                    t: 0.0,
                    flow: 0,
                    cc: "vegas",
                    name: "diff",
                    value: f64::NAN,
                    label: None,
                },
                CcSample {
                    t: 0.0,
                    flow: 0,
                    cc: "x",
                    name: "mode",
                    value: 2.0,
                    label: Some("PROBE_BW"),
                },
            ],
            ..Default::default()
        },
    }
}

/// A run's wall-clock figures, for the tests that need some.
fn perf() -> Perf {
    Perf {
        wall_s: 1.0,
        events: 1,
        packet_hops: 1,
        peak_rss_mib: None,
        huge_pages_mib: None,
    }
}

/// The `cc` series: a value not known yet is a null, a level has its name beside its number.
#[test]
fn cc_series_nulls_and_labels() {
    let r = sample();
    let t = table::series_tables(&r);
    let cc = t.iter().find(|t| t.name == "cc").unwrap();
    let id = &r.run_id;
    assert_eq!(
        cc.csv(),
        format!(
            "run_id,t_s,flow,cc,name,value,label\n{id},0,0,dctcp,alpha,0.0625,\n\
             {id},0,0,vegas,diff,,\n{id},0,0,x,mode,2,PROBE_BW\n"
        )
    );
    let perf = perf();
    let files = run_files(&r, &perf, true, &PlotAxes::default());
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(at("cwnd.csv") < at("cc.csv") && at("cc.parquet") < names.len());
    assert!(!names.contains(&"cc.svg"));
}

#[test]
fn csv_quoting() {
    assert_eq!(csv_field("plain"), "plain");
    assert_eq!(csv_field("a,b"), "\"a,b\"");
    assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    let queues = &table::other_tables(&sample())[0];
    assert_eq!(queues.name, "queues");
    assert!(queues.csv().contains("\"a,b\",1,1,0.5"), "{}", queues.csv());
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
        recovery_episodes: 1,
        timeouts: 0,
        other_timeouts: 0,
        dupacks_in: 0,
        syn_retransmits: 0,
        ece_acks: 0,
        cwr_episodes: 0,
        ce_received: 0,
        data_segs_out: 700,
        acks_sent: 350,
        delack_timeouts: 300,
        acked_s: None,
        size_bytes: None,
        fct_s: None,
        ideal_fct_s: None,
        rtt_mean_s: Some(0.0123),
        rtt_p99_s: Some(0.02),
        final_cwnd: 42,
        ss: "reno wscale:7,7 rto:204 rtt:12.3/0.4 cwnd:42".into(),
    }
}

fn full() -> RunResult {
    let mut r = sample();
    r.flows = vec![flow(0), flow(1)].into();
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
            goodput_bps: 5e6,
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

fn listing(d: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A run whose finished flows' rows went to the temporary file (`results::Flows` on
/// file, read back as each file is written) writes the files of the same run held in
/// memory, byte for byte; its `fct` table a few rows at a time too.
#[test]
fn rows_on_file_write_the_files_of_rows_in_memory() {
    let row = |i: u32| {
        let mut f = flow(i);
        f.from = format!("h{}", i % 7);
        f.start_s = f64::from(i) * 1e-3;
        if !i.is_multiple_of(3) {
            f.size_bytes = Some(u64::from(i) * 9_000 + 1);
            f.fct_s = (!i.is_multiple_of(5)).then_some(f64::from(i) * 1e-4);
            f.ideal_fct_s = Some(1e-5);
        }
        f
    };
    // Rows finish out of order; a small buffer makes many sorted runs on file.
    let order: Vec<u32> = (0..300u32).map(|i| (i * 7919) % 300).collect();
    let mut log = FlowLog::with_spill(1500);
    for &i in &order[..280] {
        log.push(&row(i));
    }
    let (spilled, mut rest) = log.finish().unwrap();
    let spilled = spilled.expect("rows on file");
    // The open connections' rows: in memory.
    rest.extend(order[280..].iter().map(|&i| row(i)));
    rest.sort_by_key(|f| f.id);
    let mut on_file = full();
    on_file.flows = Flows::with_spilled(rest, Some(spilled));
    assert!(on_file.flows.spilled() && on_file.flows.len() == 300);
    let mut in_mem = full();
    in_mem.flows = (0..300).map(row).collect::<Vec<_>>().into();
    let ids: Vec<u32> = on_file.flows.iter().map(|f| f.id).collect();
    assert_eq!(ids, (0..300).collect::<Vec<_>>());
    let perf = perf();
    let axes = PlotAxes::default();
    let a = run_files(&on_file, &perf, true, &axes);
    let b = run_files(&in_mem, &perf, true, &axes);
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(a.iter().any(|f| f.0 == "fct.parquet"));
    for (x, y) in a.iter().zip(&b) {
        assert!(x.1 == y.1, "{} differs", x.0);
    }
    assert_eq!(table(&on_file), table(&in_mem));
    // Seven rows at a time: the same CSV, the Parquet file of seven-row groups.
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    table::fct_files_grouped(&on_file, &mut files, 7).unwrap();
    let t = &table::fct_tables(&in_mem)[0];
    assert!(t.rows() > 7 * 20);
    assert_eq!(files[0], ("fct.csv".to_string(), t.csv().into_bytes()));
    let grouped = parquet::write_grouped(t, &table::created_by(), 7);
    assert_eq!(files[1], ("fct.parquet".to_string(), grouped.clone()));
    assert_ne!(grouped, parquet::write(t, &table::created_by()));
    assert!(on_file.flows.read_error().is_none());
    // A file that cannot be read back: an error, not short files.
    let mut log = FlowLog::with_spill(1500);
    for i in 0..100 {
        log.push(&row(i));
    }
    let (spilled, rest) = log.finish().unwrap();
    let mut spilled = spilled.unwrap();
    spilled.cut_for_test(2);
    let mut broken = full();
    broken.flows = Flows::with_spilled(rest, Some(spilled));
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let e = run_files_to(&broken, &perf, false, &axes, &mut files).unwrap_err();
    assert!(e.contains("ends inside a row"), "{e}");
}

/// f10: the `flows` table is `summary.json`'s `flows[]`: the same names in the same
/// order (after `run_id`), the same values (no unit converted), a missing value a null.
#[test]
fn f10_flows_table_is_summary_flows_name_for_name_and_value_for_value() {
    let mut f = flow(0);
    f.size_bytes = Some(1_000_000);
    f.fct_s = Some(0.0123);
    f.ideal_fct_s = Some(0.01);
    f.acked_s = Some(0.0523);
    let mut r = full();
    r.flows = vec![f, flow(1)].into();
    let t = &table::run_tables(&r)[1];
    assert_eq!(t.name, "flows");
    let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
    let v = serde_json::to_value(&r).unwrap();
    let row0 = v["flows"][0].as_object().unwrap();
    let mut keys: Vec<&str> = row0.keys().map(|k| k.as_str()).collect();
    let mut sorted = names[1..].to_vec();
    sorted.sort();
    keys.sort();
    assert_eq!(names[0], "run_id");
    assert_eq!(sorted, keys, "flows table vs summary.json flows[]");
    // In the same order: as `summary.json` writes them.
    let text = serde_json::to_string(&r.flows).unwrap();
    let at: Vec<usize> = names[1..]
        .iter()
        .map(|n| text.find(&format!("\"{n}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{names:?} vs {text}");
    for (i, row) in v["flows"].as_array().unwrap().iter().enumerate() {
        for c in &t.columns[1..] {
            let cell = c.data.cell(i);
            match row.get(&c.name) {
                None | Some(serde_json::Value::Null) => assert_eq!(cell, "", "{}", c.name),
                Some(serde_json::Value::String(x)) => assert_eq!(&cell, x),
                Some(x) => assert_eq!(
                    cell.parse::<f64>().unwrap(),
                    x.as_f64().unwrap(),
                    "{} of row {i}",
                    c.name
                ),
            }
        }
    }
    // The second flow has no size: null cells, never a missing column.
    let csv = t.csv();
    let row = csv.lines().nth(2).unwrap();
    assert!(
        row.ends_with(",,,,,0.0123,0.02,42,\"reno wscale:7,7 rto:204 rtt:12.3/0.4 cwnd:42\""),
        "{row}"
    );
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains(",size_bytes,fct_s,ideal_fct_s,acked_s,"));
}

/// f10: the cwnd series writes an unset ssthresh and an RTT before the first sample as
/// nulls, as docs/outputs.md says (the probe records 2^30 and 0).
#[test]
fn f10_cwnd_unset_ssthresh_and_srtt_before_a_sample_are_nulls() {
    let mut r = sample();
    r.series.cwnd.push(CwndSample {
        t: 0.001,
        flow: 1,
        cwnd: 10,
        ssthresh: 1 << 30,
        srtt_s: 0.0,
        in_flight: 1,
    });
    let t = table::series_tables(&r);
    assert_eq!(
        t[0].csv(),
        "run_id,t_s,flow,cwnd,ssthresh,srtt_s,in_flight\n\
         0123456789abcdef,0,0,10,5,0.1,3\n\
         0123456789abcdef,0.001,1,10,,,1\n"
    );
}

#[test]
fn perf_json_keys_in_documented_order() {
    let j = Perf {
        wall_s: 2.0,
        events: 10,
        packet_hops: 6,
        peak_rss_mib: Some(7.5),
        huge_pages_mib: Some(4.0),
    }
    .json();
    let keys: Vec<usize> = [
        "\"wall_s\"",
        "\"events_per_s\": 5.0",
        "\"packet_hops_per_s\": 3.0",
        "\"events\": 10",
        "\"packet_hops\": 6",
        "\"peak_rss_mib\": 7.5",
        "\"huge_pages_mib\": 4.0",
    ]
    .iter()
    .map(|k| j.find(k).unwrap_or_else(|| panic!("{k} in {j}")))
    .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{j}");
}

fn meta() -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("cclab".into(), crate::VERSION.into());
    m
}

#[test]
fn write_run_file_sets_and_run_ids() {
    let base = tmp("sets");
    let perf = perf();
    let mut bare = full();
    bare.series = Series::default();
    let dir = base.join("bare");
    let out = OutDir::check(&dir, &[], false).unwrap();
    let written = write_run(&out, &bare, &perf, true, &PlotAxes::default(), &[], meta()).unwrap();
    assert_eq!(written.len(), 12);
    drop(out); // its lock goes with it
    let mut tables: Vec<String> = RUN_TABLES
        .iter()
        .flat_map(|t| [format!("{t}.csv"), format!("{t}.parquet")])
        .chain(["perf.json", "run.json", "summary.json"].map(String::from))
        .collect();
    tables.sort();
    assert_eq!(listing(&dir), tables);
    let dir = base.join("all");
    let out = OutDir::check(&dir, &[], false).unwrap();
    let written = write_run(
        &out,
        &full(),
        &perf,
        true,
        &PlotAxes::default(),
        &[],
        meta(),
    )
    .unwrap();
    // The 12 of `bare`, each series as CSV, Parquet and a plot (`cc`: no plot).
    assert_eq!(written.len(), 26);
    let tsg = std::fs::read_to_string(dir.join("tsg.csv")).unwrap();
    assert!(
        tsg.starts_with("run_id,t_s,flow,kind,seq,end\n0123456789abcdef,0,0,data,1,1449\n"),
        "{tsg}"
    );
    // Every table carries the run id in every row.
    for f in listing(&dir).iter().filter(|f| f.ends_with(".csv")) {
        let t = std::fs::read_to_string(dir.join(f)).unwrap();
        let mut lines = t.lines();
        assert!(lines.next().unwrap().starts_with("run_id,"), "{f}");
        assert!(lines.all(|l| l.starts_with("0123456789abcdef,")), "{f}");
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(manifest["files"].as_array().unwrap().len(), 26);
    let svg = std::fs::read_to_string(dir.join("throughput.svg")).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 2);
    assert!(svg.contains("flow 1 (reno)"));
    assert_eq!(listing(&base), ["all", "bare"], "no temporary siblings");
    let _ = std::fs::remove_dir_all(&base);
}

/// The x tick labels and y tick labels of an SVG plot.
fn ticks(svg: &str) -> (Vec<String>, Vec<String>) {
    let grab = |pat: &str| -> Vec<String> {
        svg.split(pat)
            .skip(1)
            .map(|t| t.split('<').next().unwrap().to_string())
            .filter(|t| t.parse::<f64>().is_ok())
            .collect()
    };
    (
        grab("text-anchor=\"middle\">"),
        grab("text-anchor=\"end\">"),
    )
}

#[test]
fn run_plots_span_the_whole_run_from_zero_and_take_fixed_axes() {
    // Samples cover 0 … 0.49 s of a 1 s run; the queue never empties below 1.5 KB.
    let mut r = full();
    for q in &mut r.series.queue {
        q.bytes += 1500;
    }
    let perf = perf();
    let svg = |files: &[(String, Vec<u8>)], name: &str| -> String {
        let f = files.iter().find(|f| f.0 == name).unwrap();
        String::from_utf8(f.1.clone()).unwrap()
    };
    let files = run_files(&r, &perf, true, &PlotAxes::default());
    for name in ["queue.svg", "throughput.svg", "tsg_flow0.svg"] {
        let (x, y) = ticks(&svg(&files, name));
        assert_eq!(x.first().map(String::as_str), Some("0"), "{name}: {x:?}");
        assert_eq!(x.last().map(String::as_str), Some("1.0"), "{name}: {x:?}");
        assert_eq!(y.first().map(String::as_str), Some("0"), "{name}: {y:?}");
    }
    // Both flows are drawn and named in the throughput plot.
    let t = svg(&files, "throughput.svg");
    assert_eq!(t.matches("<polyline").count(), 2);
    assert!(t.contains(">flow 0 (reno)<") && t.contains(">flow 1 (reno)<"));
    // Fixed axes: throughput 0.2 … 0.4 s, up to 10 Mbit/s; queue from 1 KB.
    let axes = PlotAxes {
        throughput: Axes {
            xmin: Some(200 * crate::engine::MS),
            xmax: Some(400 * crate::engine::MS),
            ymin: None,
            ymax: Some(10e6),
        },
        queue: Axes {
            ymin: Some(1e3),
            ..Default::default()
        },
        ..Default::default()
    };
    let files = run_files(&r, &perf, true, &axes);
    let (x, y) = ticks(&svg(&files, "throughput.svg"));
    assert_eq!((x[0].as_str(), x[x.len() - 1].as_str()), ("0.20", "0.40"));
    assert_eq!((y[0].as_str(), y[y.len() - 1].as_str()), ("0", "10"));
    // The queue axis starts at 1 KB: no tick below it.
    let (_, y) = ticks(&svg(&files, "queue.svg"));
    assert!(y.iter().all(|t| t.parse::<f64>().unwrap() >= 1.0), "{y:?}");
}

#[test]
fn planned_files_cover_what_a_run_writes() {
    let text = "[sim]\nduration = \"1s\"\n[topology]\nkind = \"fat-tree\"\nk = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n\
                [[workload]]\nload = 0.1\n";
    let mut sc = crate::scenario::parse_scenario(text, "t.toml", &[]).unwrap();
    sc.output = crate::scenario::OutputSpec {
        cwnd_interval: Some(1),
        cc_interval: Some(1),
        queue_interval: Some(1),
        throughput_interval: Some(1),
        plots: true,
        tsg: vec![0],
        pcap: vec!["s0".into()],
        ..Default::default()
    };
    let planned = planned_files(&sc);
    let perf = perf();
    let mut r = full();
    r.flows[1].size_bytes = Some(5000);
    let files = run_files(&r, &perf, true, &PlotAxes::default());
    assert!(files.iter().any(|(n, _)| n == "fct.parquet"));
    for (name, _) in files {
        assert!(planned.contains(&name), "{name} not planned");
    }
    assert!(planned.contains(&"s0.pcap".to_string()));
}
