//! Typed tidy tables: one row per flow, queue, ping probe, sample…, with a type per column
//! and the unit in the column's name (`goodput_mbps`, `rtt_p99_ms`). They are what
//! `cclab sweep` writes (CSV and Parquet) and what Python's `cclab.run(...).flows` is
//! (`crates/cclab-py`): one definition of every table, three ways out.
//!
//! A run's own `flows.csv`/`queues.csv` keep their historical columns (SI base units,
//! `goodput_bps`); these tables are the analysis view of the same numbers.

use serde::{Deserialize, Serialize};

/// A column's values; `None` is a missing value (an empty CSV cell, a Parquet null).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "values", rename_all = "lowercase")]
pub enum Col {
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
    Str(Vec<Option<String>>),
    Bool(Vec<Option<bool>>),
}

impl Col {
    pub fn len(&self) -> usize {
        match self {
            Col::I64(v) => v.len(),
            Col::F64(v) => v.len(),
            Col::Str(v) => v.len(),
            Col::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty column of the same type.
    pub fn empty_like(&self) -> Col {
        match self {
            Col::I64(_) => Col::I64(Vec::new()),
            Col::F64(_) => Col::F64(Vec::new()),
            Col::Str(_) => Col::Str(Vec::new()),
            Col::Bool(_) => Col::Bool(Vec::new()),
        }
    }

    /// Rows `a..b`.
    pub fn slice(&self, a: usize, b: usize) -> Col {
        match self {
            Col::I64(v) => Col::I64(v[a..b].to_vec()),
            Col::F64(v) => Col::F64(v[a..b].to_vec()),
            Col::Str(v) => Col::Str(v[a..b].to_vec()),
            Col::Bool(v) => Col::Bool(v[a..b].to_vec()),
        }
    }

    /// Append `other` (of the same type; false if not).
    pub fn extend(&mut self, other: &Col) -> bool {
        match (self, other) {
            (Col::I64(a), Col::I64(b)) => a.extend_from_slice(b),
            (Col::F64(a), Col::F64(b)) => a.extend_from_slice(b),
            (Col::Str(a), Col::Str(b)) => a.extend_from_slice(b),
            (Col::Bool(a), Col::Bool(b)) => a.extend_from_slice(b),
            _ => return false,
        }
        true
    }

    /// Row `i` as one CSV cell (before quoting): integers and booleans as Rust prints
    /// them, floats with the shortest round-trip form, nothing for a missing value.
    pub fn cell(&self, i: usize) -> String {
        match self {
            Col::I64(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Col::F64(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
            Col::Str(v) => v[i].clone().unwrap_or_default(),
            Col::Bool(v) => v[i].map(|x| x.to_string()).unwrap_or_default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(flatten)]
    pub data: Col,
}

/// A named table of equally long columns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn new(name: &str) -> Table {
        Table {
            name: name.to_string(),
            columns: Vec::new(),
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }

    /// Rows `a..b` as a table of the same name and columns.
    pub fn slice(&self, a: usize, b: usize) -> Table {
        Table {
            name: self.name.clone(),
            columns: self
                .columns
                .iter()
                .map(|c| Column {
                    name: c.name.clone(),
                    data: c.data.slice(a, b),
                })
                .collect(),
        }
    }

    /// Add a column (every column must be as long as the first).
    pub fn col(mut self, name: &str, data: Col) -> Table {
        debug_assert!(
            self.columns.is_empty() || data.len() == self.rows(),
            "column {name} of table {} has {} rows, not {}",
            self.name,
            data.len(),
            self.rows()
        );
        self.columns.push(Column {
            name: name.to_string(),
            data,
        });
        self
    }

    pub fn column(&self, name: &str) -> Option<&Col> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.data)
    }

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

/// Column builders from rows: `ints(&rows, |f| f.bytes)`.
pub fn ints<T>(rows: &[T], f: impl Fn(&T) -> u64) -> Col {
    Col::I64(rows.iter().map(|r| Some(f(r) as i64)).collect())
}
pub fn floats<T>(rows: &[T], f: impl Fn(&T) -> f64) -> Col {
    Col::F64(rows.iter().map(|r| Some(f(r))).collect())
}
pub fn opt_floats<T>(rows: &[T], f: impl Fn(&T) -> Option<f64>) -> Col {
    Col::F64(rows.iter().map(f).collect())
}
pub fn strs<T>(rows: &[T], f: impl Fn(&T) -> &str) -> Col {
    Col::Str(rows.iter().map(|r| Some(f(r).to_string())).collect())
}
pub fn opt_ints<T>(rows: &[T], f: impl Fn(&T) -> Option<u64>) -> Col {
    Col::I64(rows.iter().map(|r| f(r).map(|x| x as i64)).collect())
}

/// The columns every table of flows starts with: the run, the flow, its hosts and its
/// congestion control.
fn flow_cols(t: Table, run_id: &str, rows: &[&crate::results::FlowResult]) -> Table {
    t.col(
        "run_id",
        Col::Str(vec![Some(run_id.to_string()); rows.len()]),
    )
    .col("flow", ints(rows, |x| x.id as u64))
    .col("from", strs(rows, |x| &x.from))
    .col("to", strs(rows, |x| &x.to))
    .col("cc", strs(rows, |x| &x.cc))
}

/// A byte-count flow's FCT slowdown: its completion time at the receiver over the time it
/// would take alone on an empty network (`fct_rx_s / ideal_fct_s`).
pub fn slowdown(x: &crate::results::FlowResult) -> Option<f64> {
    match (x.fct_rx_s, x.ideal_fct_s) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The `fct` table (one row per byte-count flow) of `sized`.
fn fct_table(run_id: &str, sized: &[&crate::results::FlowResult]) -> Table {
    let ms = |x: Option<f64>| x.map(|s| s * 1e3);
    flow_cols(Table::new("fct"), run_id, sized)
        .col("size_bytes", opt_ints(sized, |x| x.size_bytes))
        .col("start_s", floats(sized, |x| x.start_s))
        .col("fct_ms", opt_floats(sized, |x| ms(x.fct_rx_s)))
        .col("ideal_fct_ms", opt_floats(sized, |x| ms(x.ideal_fct_s)))
        .col("acked_ms", opt_floats(sized, |x| ms(x.fct_s)))
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
    let sized: Vec<std::borrow::Cow<crate::results::FlowResult>> =
        r.flows.iter().filter(|x| x.size_bytes.is_some()).collect();
    if sized.is_empty() {
        return Vec::new();
    }
    let refs: Vec<&crate::results::FlowResult> = sized.iter().map(|x| x.as_ref()).collect();
    let sizes: Vec<(u64, Option<f64>)> = refs
        .iter()
        .map(|x| (x.size_bytes.unwrap_or(0), slowdown(x)))
        .collect();
    vec![fct_table(&r.run_id, &refs), fct_buckets(&r.run_id, &sizes)]
}

/// [`fct_tables`] as files (`fct.csv`, `fct.parquet`, `fct_buckets.csv`,
/// `fct_buckets.parquet`) into `sink`, the rows read [`super::parquet::GROUP`] at a time:
/// a run of a million flows writes them without holding them (its rows are on file,
/// `results::Flows`); the bytes are those of [`fct_tables`] through
/// `sweep::table_files`. Nothing when the run has no byte-count flow.
pub(crate) fn fct_files_to(
    r: &crate::results::RunResult,
    sink: &mut dyn super::FileSink,
) -> Result<(), String> {
    fct_files_grouped(r, sink, super::parquet::GROUP)
}

/// [`fct_files_to`], `group` rows at a time.
pub(crate) fn fct_files_grouped(
    r: &crate::results::RunResult,
    sink: &mut dyn super::FileSink,
    group: usize,
) -> Result<(), String> {
    use crate::results::FlowResult;
    if !r.flows.iter().any(|f| f.size_bytes.is_some()) {
        return Ok(());
    }
    // Every byte-count row, a group at a time.
    let each_group = |f: &mut dyn FnMut(&[&FlowResult]) -> std::io::Result<()>| {
        let mut chunk: Vec<FlowResult> = Vec::with_capacity(group.min(r.flows.len()));
        let mut put = |chunk: &mut Vec<FlowResult>| {
            let refs: Vec<&FlowResult> = chunk.iter().collect();
            let done = f(&refs);
            chunk.clear();
            done
        };
        for x in r.flows.iter().filter(|x| x.size_bytes.is_some()) {
            let mut x = x.into_owned();
            // Not in these tables: a group holds no `ss` lines.
            x.ss = String::new();
            chunk.push(x);
            if chunk.len() == group {
                put(&mut chunk)?;
            }
        }
        if !chunk.is_empty() {
            put(&mut chunk)?;
        }
        Ok(())
    };
    // Each flow's size and slowdown, for the buckets.
    let mut sizes: Vec<(u64, Option<f64>)> = Vec::new();
    sink.file("fct.csv", &mut |w| {
        sizes.clear();
        let mut first = true;
        each_group(&mut |rows| {
            sizes.extend(
                rows.iter()
                    .map(|x| (x.size_bytes.unwrap_or(0), slowdown(x))),
            );
            let csv = fct_table(&r.run_id, rows).csv();
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
    sink.file("fct.parquet", &mut |w| {
        let mut p = super::parquet::Writer::new(w, &crate::sweep::created_by())?;
        // As `parquet::write_grouped` splits a table held in memory.
        each_group(&mut |rows| p.group(&fct_table(&r.run_id, rows)))?;
        p.finish()
    })?;
    // A read error is reported by `run_files_to` once every file is made.
    for (name, bytes) in crate::sweep::table_files(&fct_buckets(&r.run_id, &sizes)) {
        sink.file(&name, &mut |w| w.write_all(&bytes))?;
    }
    Ok(())
}

/// The tidy tables of one run, every one starting with `run_id`: `runs` (one row: the
/// scenario's name, simulated time, events and packet-hops), `flows`, `queues`,
/// `pings`, `queries` (one row per partition/aggregate app) always; `udp`, `ocbr`,
/// `hosts` when the run has them; and the time series it recorded (`cwnd`, `queue`,
/// `throughput`, `tsg`), one row per sample. Every table has the same columns whatever
/// the run (an optional value is a null, never a missing column), so the tables of many
/// runs concatenate.
pub fn run_tables(r: &crate::results::RunResult) -> Vec<Table> {
    let id = |n: usize| Col::Str(vec![Some(r.run_id.clone()); n]);
    let ms = |x: Option<f64>| x.map(|s| s * 1e3);
    let mut out = vec![Table::new("runs")
        .col("run_id", id(1))
        .col("scenario", Col::Str(vec![Some(r.scenario.clone())]))
        .col("duration_s", Col::F64(vec![Some(r.duration_s)]))
        .col("events", Col::I64(vec![Some(r.engine.events as i64)]))
        .col(
            "packet_hops",
            Col::I64(vec![Some(r.engine.packet_hops as i64)]),
        )];

    // Every row at once: these tables are held whole (Python, sweeps). Rows in memory are
    // borrowed, rows read back from a file owned here.
    let rows: Vec<std::borrow::Cow<crate::results::FlowResult>> = r.flows.iter().collect();
    let all: Vec<&crate::results::FlowResult> = rows.iter().map(|x| x.as_ref()).collect();
    let f = &all;
    out.push(
        flow_cols(Table::new("flows"), &r.run_id, &all)
            .col("start_s", floats(f, |x| x.start_s))
            .col("bytes", ints(f, |x| x.bytes))
            .col("goodput_mbps", floats(f, |x| x.goodput_bps / 1e6))
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
            .col("fct_ms", opt_floats(f, |x| ms(x.fct_s)))
            .col("rtt_mean_ms", opt_floats(f, |x| ms(x.rtt_mean_s)))
            .col("rtt_p99_ms", opt_floats(f, |x| ms(x.rtt_p99_s)))
            .col("final_cwnd", ints(f, |x| x.final_cwnd as u64))
            .col("ss", strs(f, |x| &x.ss)),
    );

    out.extend(fct_tables(r));

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

    let p = &r.pings;
    out.push(
        Table::new("pings")
            .col("run_id", id(p.len()))
            .col("from", strs(p, |x| &x.from))
            .col("to", strs(p, |x| &x.to))
            .col("sent", ints(p, |x| x.sent))
            .col("received", ints(p, |x| x.received))
            .col("rtt_mean_ms", opt_floats(p, |x| ms(x.rtt_mean_s)))
            .col("rtt_median_ms", opt_floats(p, |x| ms(x.rtt_median_s)))
            .col("rtt_p99_ms", opt_floats(p, |x| ms(x.rtt_p99_s)))
            .col("rtt_min_ms", opt_floats(p, |x| ms(x.rtt_min_s)))
            .col("rtt_max_ms", opt_floats(p, |x| ms(x.rtt_max_s)))
            .col("rtt_stddev_ms", opt_floats(p, |x| ms(x.rtt_stddev_s))),
    );

    let a = &r.aggregates;
    out.push(
        Table::new("queries")
            .col("run_id", id(a.len()))
            .col("aggregator", strs(a, |x| &x.aggregator))
            .col("workers", ints(a, |x| x.workers as u64))
            .col("response_bytes", ints(a, |x| x.response_bytes))
            .col("queries_done", ints(a, |x| x.queries_done as u64))
            .col("qct_mean_ms", opt_floats(a, |x| ms(x.qct_mean_s)))
            .col("qct_median_ms", opt_floats(a, |x| ms(x.qct_median_s)))
            .col("qct_p99_ms", opt_floats(a, |x| ms(x.qct_p99_s)))
            .col("qct_max_ms", opt_floats(a, |x| ms(x.qct_max_s)))
            .col("timeouts", ints(a, |x| x.timeouts)),
    );

    let u = &r.udp;
    if !u.is_empty() {
        out.push(
            Table::new("udp")
                .col("run_id", id(u.len()))
                .col("from", strs(u, |x| &x.from))
                .col("to", strs(u, |x| &x.to))
                .col("rate_mbps", floats(u, |x| x.rate_bps as f64 / 1e6))
                .col("len_bytes", ints(u, |x| x.len as u64))
                .col(
                    "fragments_per_datagram",
                    ints(u, |x| x.fragments_per_datagram as u64),
                )
                .col("sent", ints(u, |x| x.sent))
                .col("received", ints(u, |x| x.received))
                .col("lost", ints(u, |x| x.lost))
                .col("loss_pct", floats(u, |x| x.loss_pct))
                .col("goodput_mbps", floats(u, |x| x.goodput_bps / 1e6))
                .col("jitter_ms", floats(u, |x| x.jitter_ms))
                .col("reassembly_expired", ints(u, |x| x.reassembly_expired))
                .col("reassembly_mem_drops", ints(u, |x| x.reassembly_mem_drops)),
        );
    }

    let o = &r.ocbr;
    if !o.is_empty() {
        out.push(
            Table::new("ocbr")
                .col("run_id", id(o.len()))
                .col("from", strs(o, |x| &x.from))
                .col("to", strs(o, |x| &x.to))
                .col("fd", ints(o, |x| x.fd as u64))
                .col("size_bytes", ints(o, |x| x.size as u64))
                .col(
                    "flood",
                    Col::Bool(o.iter().map(|x| Some(x.flood)).collect()),
                )
                .col("rate_mbps", floats(o, |x| x.rate_bps as f64 / 1e6))
                .col("ca", strs(o, |x| &x.ca))
                .col("sent", ints(o, |x| x.sent))
                .col("received", ints(o, |x| x.received))
                .col("lost", ints(o, |x| x.lost))
                .col("goodput_mbps", floats(o, |x| x.goodput_bps / 1e6))
                .col("flow_updates_sent", ints(o, |x| x.flow_updates_sent))
                .col(
                    "flow_updates_received",
                    ints(o, |x| x.flow_updates_received),
                )
                .col("flow_updates_lost", ints(o, |x| x.flow_updates_lost))
                .col("ca_wait_ms", floats(o, |x| x.ca_wait_s * 1e3)),
        );
    }

    let h = &r.hosts;
    if !h.is_empty() {
        out.push(
            Table::new("hosts")
                .col("run_id", id(h.len()))
                .col("host", strs(h, |x| &x.host))
                .col("tcp_timeouts", ints(h, |x| x.tcp_timeouts)),
        );
    }

    let se = &r.series;
    if !se.cwnd.is_empty() {
        let c = &se.cwnd;
        out.push(
            Table::new("cwnd")
                .col("run_id", id(c.len()))
                .col("t_s", floats(c, |x| x.t))
                .col("flow", ints(c, |x| x.flow as u64))
                .col("cwnd", ints(c, |x| x.cwnd as u64))
                .col("ssthresh", ints(c, |x| x.ssthresh as u64))
                .col("srtt_ms", floats(c, |x| x.srtt_s * 1e3))
                .col("in_flight", ints(c, |x| x.in_flight as u64)),
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
            Table::new("throughput")
                .col("run_id", id(t.len()))
                .col("t_s", floats(t, |x| x.t))
                .col("flow", ints(t, |x| x.flow as u64))
                .col("goodput_mbps", floats(t, |x| x.goodput_bps / 1e6)),
        );
    }
    if !se.tsg.is_empty() {
        let t = &se.tsg;
        out.push(
            Table::new("tsg")
                .col("run_id", id(t.len()))
                .col("t_s", floats(t, |x| x.t))
                .col("flow", ints(t, |x| x.flow as u64))
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

/// The names of the tables `run_tables` can give, in its order.
pub const TABLE_NAMES: &[&str] = &[
    "runs",
    "flows",
    "fct",
    "fct_buckets",
    "queues",
    "pings",
    "queries",
    "udp",
    "ocbr",
    "hosts",
    "cwnd",
    "queue",
    "throughput",
    "tsg",
];
