//! Typed tidy tables: one row per flow, queue, ping probe, sample…, with a type per column
//! and the unit in the column's name. They are what `cclab run` writes (CSV and Parquet),
//! what `cclab sweep` writes (the points' tables concatenated, with `seed` and the swept
//! keys) and what Python's `cclab.run(...).flows` is (`crates/cclab-py`): one definition
//! of every table, three ways out.
//!
//! One convention for units, that of `summary.json` and of the scenario's base units:
//! times in seconds (`_s`), rates in bits per second (`_bps`), sizes in bytes (`_bytes`,
//! or a column named `bytes`), counts plain. No value is converted on the way out, so a
//! table's value is `summary.json`'s bit for bit (the one exception, iperf's `jitter_ms`,
//! is divided by 1000). A missing value (no RTT sample yet, an unset ssthresh, an
//! unfinished flow) is a null (an empty CSV cell).

pub use crate::results::table::{floats, ints, opt_floats, opt_ints, strs, Col, Column, Table};

/// Writing a table (the type is `results::table::Table`, so that apps, below the report,
/// make their own).
impl Table {
    /// The table as CSV: a header row of the column names, one line per row (see
    /// `csv.rs` for the quoting).
    pub fn csv(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        let mut out = super::csv::Csv::new(&names);
        for i in 0..self.rows() {
            out.row(self.columns.iter().map(|c| c.data.cell(i)).collect());
        }
        out.finish()
    }
}

/// The columns every table of flows starts with: the run, the flow, its hosts and its
/// congestion control.
fn flow_cols(t: Table, run_id: &str, rows: &[&FlowResult]) -> Table {
    t.col(
        "run_id",
        Col::Str(vec![Some(run_id.to_string()); rows.len()]),
    )
    .col("flow", ints(rows, |x| x.id as u64))
    .col("from", strs(rows, |x| &x.from))
    .col("to", strs(rows, |x| &x.to))
    .col("cc", strs(rows, |x| &x.cc))
}

use crate::results::FlowResult;

/// A byte-count flow's FCT slowdown: its flow completion time over the time it would take
/// alone on an empty network (`fct_s / ideal_fct_s`).
pub fn slowdown(x: &FlowResult) -> Option<f64> {
    match (x.fct_s, x.ideal_fct_s) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The `flows` table of `rows`: one row per TCP connection, the columns (after `run_id`)
/// and values of `summary.json`'s `flows[]`, a missing value a null.
pub(crate) fn flows_table(run_id: &str, f: &[&FlowResult]) -> Table {
    flow_cols(Table::new("flows"), run_id, f)
        .col("start_s", floats(f, |x| x.start_s))
        .col("bytes", ints(f, |x| x.bytes))
        .col("goodput_bps", floats(f, |x| x.goodput_bps))
        .col("retransmits", ints(f, |x| x.retransmits))
        .col("recovery_episodes", ints(f, |x| x.recovery_episodes))
        .col("timeouts", ints(f, |x| x.timeouts))
        .col("syn_retransmits", ints(f, |x| x.syn_retransmits))
        .col("ece_acks", ints(f, |x| x.ece_acks))
        .col("cwr_episodes", ints(f, |x| x.cwr_episodes))
        .col("ce_received", ints(f, |x| x.ce_received))
        .col("data_segs_out", ints(f, |x| x.data_segs_out))
        .col("acks_sent", ints(f, |x| x.acks_sent))
        .col("delack_timeouts", ints(f, |x| x.delack_timeouts))
        .col("size_bytes", opt_ints(f, |x| x.size_bytes))
        .col("fct_s", opt_floats(f, |x| x.fct_s))
        .col("ideal_fct_s", opt_floats(f, |x| x.ideal_fct_s))
        .col("acked_s", opt_floats(f, |x| x.acked_s))
        .col("rtt_mean_s", opt_floats(f, |x| x.rtt_mean_s))
        .col("rtt_p99_s", opt_floats(f, |x| x.rtt_p99_s))
        .col("final_cwnd", ints(f, |x| x.final_cwnd as u64))
        .col("ss", strs(f, |x| &x.ss))
}

/// The `fct` table (one row per byte-count flow) of `sized`.
fn fct_table(run_id: &str, sized: &[&FlowResult]) -> Table {
    flow_cols(Table::new("fct"), run_id, sized)
        .col("size_bytes", opt_ints(sized, |x| x.size_bytes))
        .col("start_s", floats(sized, |x| x.start_s))
        .col("fct_s", opt_floats(sized, |x| x.fct_s))
        .col("ideal_fct_s", opt_floats(sized, |x| x.ideal_fct_s))
        .col("acked_s", opt_floats(sized, |x| x.acked_s))
        .col("slowdown", opt_floats(sized, |x| slowdown(x)))
}

/// The `fct_buckets` table: slowdown by flow size, from each byte-count flow's size and
/// slowdown.
fn fct_buckets(run_id: &str, sized: &[(u64, Option<f64>)]) -> Table {
    // The usual buckets of the DCTCP and pFabric evaluations: short flows (up to
    // 100 KB), medium, long (above 10 MB), and all.
    let buckets: [(&str, u64, u64); 4] = [
        ("(0, 100KB]", 0, 100_000),
        ("(100KB, 10MB]", 100_000, 10_000_000),
        ("(10MB, inf)", 10_000_000, u64::MAX),
        ("all", 0, u64::MAX),
    ];
    let mut rows: Vec<(&str, u64, u64, [Option<f64>; 4])> = Vec::new();
    for (name, lo, hi) in buckets {
        let inb = || sized.iter().filter(|x| x.0 > lo && x.0 <= hi);
        let mut v: Vec<f64> = inb().filter_map(|x| x.1).collect();
        v.sort_by(f64::total_cmp);
        let q = |p: f64| crate::stats::quantile_sorted(&v, p);
        let mean = (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        rows.push((
            name,
            inb().count() as u64,
            v.len() as u64,
            [mean, q(0.5), q(0.99), q(0.999)],
        ));
    }
    Table::new("fct_buckets")
        .col(
            "run_id",
            Col::Str(vec![Some(run_id.to_string()); rows.len()]),
        )
        .col("bucket", strs(&rows, |x| x.0))
        .col("flows", ints(&rows, |x| x.1))
        .col("done", ints(&rows, |x| x.2))
        .col("slowdown_mean", opt_floats(&rows, |x| x.3[0]))
        .col("slowdown_p50", opt_floats(&rows, |x| x.3[1]))
        .col("slowdown_p99", opt_floats(&rows, |x| x.3[2]))
        .col("slowdown_p999", opt_floats(&rows, |x| x.3[3]))
}

/// The flow-completion tables of a run's byte-count flows (workloads, `[[flow]] bytes`):
/// `fct` (one row per flow) and `fct_buckets` (slowdown by size); none without such flows.
pub fn fct_tables(r: &crate::results::RunResult) -> Vec<Table> {
    let sized: Vec<std::borrow::Cow<FlowResult>> =
        r.flows.iter().filter(|x| x.size_bytes.is_some()).collect();
    if sized.is_empty() {
        return Vec::new();
    }
    let refs: Vec<&FlowResult> = sized.iter().map(|x| x.as_ref()).collect();
    let sizes: Vec<(u64, Option<f64>)> = refs
        .iter()
        .map(|x| (x.size_bytes.unwrap_or(0), slowdown(x)))
        .collect();
    vec![fct_table(&r.run_id, &refs), fct_buckets(&r.run_id, &sizes)]
}

/// The tables of run `r`'s flows as files (`flows`, and with byte-count flows `fct` and
/// `fct_buckets`, each `.csv` and `.parquet`) into `sink`, the rows read
/// [`super::parquet::GROUP`] at a time: a run of a million flows writes them without
/// holding them (its rows are on file, `results::Flows`); the bytes are those of
/// [`run_tables`]' tables through [`table_files`].
pub(crate) fn flow_files_to(
    r: &crate::results::RunResult,
    sink: &mut dyn super::FileSink,
) -> Result<(), String> {
    flow_files_grouped(r, sink, super::parquet::GROUP)
}

/// The rows of `r` that `keep` selects, `group` at a time, to `f` (a last, empty call
/// when none is selected, so a table of no rows still has its header and one group).
fn each_group(
    r: &crate::results::RunResult,
    keep: &dyn Fn(&FlowResult) -> bool,
    group: usize,
    f: &mut dyn FnMut(&[&FlowResult]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut chunk: Vec<FlowResult> = Vec::with_capacity(group.min(r.flows.len()));
    let mut any = false;
    let mut put = |chunk: &mut Vec<FlowResult>| {
        let refs: Vec<&FlowResult> = chunk.iter().collect();
        let done = f(&refs);
        chunk.clear();
        done
    };
    for x in r.flows.iter().filter(|x| keep(x)) {
        chunk.push(x.into_owned());
        if chunk.len() == group {
            any = true;
            put(&mut chunk)?;
        }
    }
    if !chunk.is_empty() || !any {
        put(&mut chunk)?;
    }
    Ok(())
}

/// A table of flows (`build` of the rows `keep` selects) as `NAME.csv` and
/// `NAME.parquet`, `group` rows at a time; `seen` is given every group first.
fn grouped_table_files(
    r: &crate::results::RunResult,
    name: &str,
    keep: &dyn Fn(&FlowResult) -> bool,
    build: &dyn Fn(&[&FlowResult]) -> Table,
    seen: &mut dyn FnMut(&[&FlowResult]),
    sink: &mut dyn super::FileSink,
    group: usize,
) -> Result<(), String> {
    sink.file(&format!("{name}.csv"), &mut |w| {
        let mut first = true;
        each_group(r, keep, group, &mut |rows| {
            seen(rows);
            let csv = build(rows).csv();
            // The header once, then the rows of each group.
            let body = if first {
                &csv[..]
            } else {
                &csv[csv.find('\n').map_or(csv.len(), |i| i + 1)..]
            };
            first = false;
            w.write_all(body.as_bytes())
        })
    })?;
    sink.file(&format!("{name}.parquet"), &mut |w| {
        let mut p = super::parquet::Writer::new(w, &created_by())?;
        // As `parquet::write_grouped` splits a table held in memory.
        each_group(r, keep, group, &mut |rows| p.group(&build(rows)))?;
        p.finish()
    })
}

/// [`flow_files_to`], `group` rows at a time.
pub(crate) fn flow_files_grouped(
    r: &crate::results::RunResult,
    sink: &mut dyn super::FileSink,
    group: usize,
) -> Result<(), String> {
    let id = r.run_id.as_str();
    grouped_table_files(
        r,
        "flows",
        &|_| true,
        &|rows| flows_table(id, rows),
        &mut |_| {},
        sink,
        group,
    )?;
    fct_files_grouped(r, sink, group)
}

/// The `fct` and `fct_buckets` files, `group` rows at a time; nothing when the run has no
/// byte-count flow.
pub(crate) fn fct_files_grouped(
    r: &crate::results::RunResult,
    sink: &mut dyn super::FileSink,
    group: usize,
) -> Result<(), String> {
    if !r.flows.iter().any(|f| f.size_bytes.is_some()) {
        return Ok(());
    }
    let id = r.run_id.as_str();
    // Each flow's size and slowdown, for the buckets (`seen` is called by the CSV pass).
    let mut sizes: Vec<(u64, Option<f64>)> = Vec::new();
    grouped_table_files(
        r,
        "fct",
        &|x| x.size_bytes.is_some(),
        &|rows| fct_table(id, rows),
        &mut |rows| {
            sizes.extend(
                rows.iter()
                    .map(|x| (x.size_bytes.unwrap_or(0), slowdown(x))),
            );
        },
        sink,
        group,
    )?;
    // A read error is reported by `run_files_to` once every file is made.
    for (name, bytes) in table_files(&fct_buckets(id, &sizes)) {
        sink.file(&name, &mut |w| w.write_all(&bytes))?;
    }
    Ok(())
}

/// The `runs` table: one row, the scenario's name, simulated time, events and packet-hops.
pub(crate) fn runs_table(r: &crate::results::RunResult) -> Table {
    Table::new("runs")
        .col("run_id", Col::Str(vec![Some(r.run_id.clone())]))
        .col("scenario", Col::Str(vec![Some(r.scenario.clone())]))
        .col("duration_s", Col::F64(vec![Some(r.duration_s)]))
        .col("events", Col::I64(vec![Some(r.engine.events as i64)]))
        .col(
            "packet_hops",
            Col::I64(vec![Some(r.engine.packet_hops as i64)]),
        )
}

/// The TCP congestion-control state's "no threshold yet" (`TCP_INFINITE_SSTHRESH`,
/// capped to the window's type): written as a null.
const SSTHRESH_UNSET: u32 = 1 << 30;

/// The tables of run `r` other than `runs` and its flows' (`flows`, `fct`,
/// `fct_buckets`) and its series, in [`table_names`] order: `queues`; the apps' own
/// (`AppRow`: `pings`, `queries` always, `udp`, `ocbr` when the run has them); `hosts`
/// when the run has them.
pub(crate) fn other_tables(r: &crate::results::RunResult) -> Vec<Table> {
    let id = |n: usize| Col::Str(vec![Some(r.run_id.clone()); n]);
    let mut out = Vec::new();
    let q = &r.queues;
    out.push(
        Table::new("queues")
            .col("run_id", id(q.len()))
            .col("queue", strs(q, |x| &x.name))
            .col("max_bytes", ints(q, |x| x.max_bytes))
            .col("max_pkts", ints(q, |x| x.max_pkts))
            .col("mean_bytes", floats(q, |x| x.mean_bytes))
            .col("drops", ints(q, |x| x.drops))
            .col("marks", ints(q, |x| x.marks))
            .col("enqueued", ints(q, |x| x.enqueued))
            .col("tx_pkts", ints(q, |x| x.tx_pkts))
            .col("tx_bytes", ints(q, |x| x.tx_bytes))
            .col("injected_losses", ints(q, |x| x.injected_losses))
            .col(
                "police_conformed",
                opt_ints(q, |x| x.police.map(|p| p.conformed)),
            )
            .col(
                "police_exceeded",
                opt_ints(q, |x| x.police.map(|p| p.exceeded)),
            ),
    );

    // The apps' own tables (`AppRow::columns`).
    out.extend(r.apps.tables(&r.run_id));

    let h = &r.hosts;
    if !h.is_empty() {
        out.push(
            Table::new("hosts")
                .col("run_id", id(h.len()))
                .col("host", strs(h, |x| &x.host))
                .col("tcp_timeouts", ints(h, |x| x.tcp_timeouts)),
        );
    }
    out
}

/// A series of one row per sample and flow, its first columns: the run, the sample time,
/// the flow (`at` gives a row's time and flow).
fn flow_series<T>(name: &str, run_id: &str, rows: &[T], at: impl Fn(&T) -> (f64, u32)) -> Table {
    Table::new(name)
        .col(
            "run_id",
            Col::Str(vec![Some(run_id.to_string()); rows.len()]),
        )
        .col("t_s", floats(rows, |x| at(x).0))
        .col("flow", ints(rows, |x| at(x).1 as u64))
}

/// The time series run `r` recorded (`cwnd`, `cc`, `queue`, `throughput`, `tsg`), one row
/// per sample (`cc`: per sample and quantity); none for a series that is off.
pub(crate) fn series_tables(r: &crate::results::RunResult) -> Vec<Table> {
    let id = |n: usize| Col::Str(vec![Some(r.run_id.clone()); n]);
    let mut out = Vec::new();
    let se = &r.series;
    if !se.cwnd.is_empty() {
        let c = &se.cwnd;
        out.push(
            flow_series("cwnd", &r.run_id, c, |x| (x.t, x.flow))
                .col("cwnd", ints(c, |x| x.cwnd as u64))
                .col(
                    "ssthresh",
                    opt_ints(c, |x| {
                        (x.ssthresh < SSTHRESH_UNSET).then_some(x.ssthresh as u64)
                    }),
                )
                // Before the connection's first RTT sample the probe records 0.
                .col(
                    "srtt_s",
                    opt_floats(c, |x| (x.srtt_s > 0.0).then_some(x.srtt_s)),
                )
                .col("in_flight", ints(c, |x| x.in_flight as u64)),
        );
    }
    if !se.cc.is_empty() {
        let c = &se.cc;
        out.push(
            flow_series("cc", &r.run_id, c, |x| (x.t, x.flow))
                .col("cc", strs(c, |x| x.cc))
                .col("name", strs(c, |x| x.name))
                .col(
                    "value",
                    opt_floats(c, |x| (!x.value.is_nan()).then_some(x.value)),
                )
                .col(
                    "label",
                    Col::Str(c.iter().map(|x| x.label.map(String::from)).collect()),
                ),
        );
    }
    if !se.queue.is_empty() {
        let q = &se.queue;
        out.push(
            Table::new("queue")
                .col("run_id", id(q.len()))
                .col("t_s", floats(q, |x| x.t))
                .col("queue", strs(q, |x| &x.queue))
                .col("bytes", ints(q, |x| x.bytes))
                .col("pkts", ints(q, |x| x.pkts)),
        );
    }
    if !se.throughput.is_empty() {
        let t = &se.throughput;
        out.push(
            flow_series("throughput", &r.run_id, t, |x| (x.t, x.flow))
                .col("goodput_bps", floats(t, |x| x.goodput_bps)),
        );
    }
    if !se.tsg.is_empty() {
        let t = &se.tsg;
        out.push(
            flow_series("tsg", &r.run_id, t, |x| (x.t, x.flow))
                .col(
                    "kind",
                    strs(t, |x| ["data", "retrans", "ack"][x.kind.min(2) as usize]),
                )
                .col("seq", ints(t, |x| x.seq))
                .col("end", ints(t, |x| x.end)),
        );
    }
    out
}

/// The tidy tables of one run, every one starting with `run_id`: `runs` (one row: the
/// scenario's name, simulated time, events and packet-hops), `flows`, `queues`,
/// `pings`, `queries` (one row per partition/aggregate app) always; `fct` and
/// `fct_buckets` with byte-count flows; `udp`, `ocbr`, `hosts` when the run has them;
/// and the time series it recorded (`cwnd`, `cc`, `queue`, `throughput`, `tsg`), one row
/// per sample. Every table has the same columns whatever the run (an optional value is a
/// null, never a missing column), so the tables of many runs concatenate. These are the
/// files of `cclab run` (`report::run_files_to`), the tables of a sweep's points and
/// Python's `Run` tables alike.
pub fn run_tables(r: &crate::results::RunResult) -> Vec<Table> {
    let mut out = vec![runs_table(r)];
    // Every row at once: these tables are held whole (Python, sweeps). Rows in memory are
    // borrowed, rows read back from a file owned here.
    let rows: Vec<std::borrow::Cow<FlowResult>> = r.flows.iter().collect();
    let all: Vec<&FlowResult> = rows.iter().map(|x| x.as_ref()).collect();
    out.push(flows_table(&r.run_id, &all));
    out.extend(fct_tables(r));
    out.extend(other_tables(r));
    out.extend(series_tables(r));
    out
}

/// Every kind of rows the apps report ([`crate::app::declare`]), in table order.
fn app_reports() -> Vec<&'static crate::results::apps::Report> {
    let mut apps = crate::results::AppTables::default();
    crate::app::declare(&mut apps);
    apps.reports()
}

/// The names of the tables `run_tables` can give, in its order: the apps' from the apps.
pub fn table_names() -> Vec<&'static str> {
    let mut names = vec!["runs", "flows", "fct", "fct_buckets", "queues"];
    names.extend(app_reports().iter().map(|r| r.table));
    names.extend(["hosts", "cwnd", "cc", "queue", "throughput", "tsg"]);
    names
}

/// The tables every run has, even of no rows: `runs`, `flows`, `queues` and the apps'
/// that always show (`pings`, `queries`).
pub fn always_tables() -> Vec<&'static str> {
    let mut names = vec!["runs", "flows", "queues"];
    names.extend(app_reports().iter().filter(|r| r.always).map(|r| r.table));
    names
}

/// The files of a table: `<name>.csv` and `<name>.parquet`.
pub fn table_files(t: &Table) -> [(String, Vec<u8>); 2] {
    [
        (format!("{}.csv", t.name), t.csv().into_bytes()),
        (
            format!("{}.parquet", t.name),
            super::parquet::write(t, &created_by()),
        ),
    ]
}

/// The Parquet files' `created_by`.
pub fn created_by() -> String {
    format!("cclab {}", crate::VERSION)
}
