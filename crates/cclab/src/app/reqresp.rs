//! Partition/aggregate queries (the DCTCP paper's incast, SIGCOMM 2010 §2.1): the
//! aggregator sends a small request to every worker at once; each worker answers with
//! `response_bytes` over its own persistent TCP connection (worker → aggregator); the query
//! completes when every answer has arrived in full, and the next follows `think` later.
//! Query completion times are the result, and each query's own record (when it was asked,
//! how long it took, the answering sender's cwnd, ssthresh and smoothed RTT when it
//! completed) for experiments that follow a connection query by query (`tcpmon`).
//!
//! The request travels as one application packet (`PktKind::Request`, a UDP datagram in
//! captures) through the same queues as everything else.

use super::{AppCx, ParseCx, ResultCx};
use super::{Build, ConnReq};
use crate::engine::SimTime;
use crate::net::NodeId;
use crate::packet::{Packet, PktKind};
use crate::results::apps::{ms, AppRow, Report};
use crate::results::table::{ints, opt_floats, strs, Table};
use crate::results::AppTables;
use crate::schema::check::{join, name_in, Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
use crate::tcp::config::TcpConfig;
use crate::tcp::config::TCP;
use serde::Serialize;
use toml::Value;

/// Partition/aggregate traffic (the DCTCP paper's query pattern): `aggregator` sends a
/// small request to every worker at once; each answers `response_bytes` over its own
/// persistent TCP connection; the query completes when every answer has arrived; the next
/// query follows `think` later.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateSpec {
    pub aggregator: String,
    pub workers: Vec<String>,
    pub response_bytes: u64,
    pub queries: u32,
    pub start: SimTime,
    /// When the first query is sent (at least `start`, when the connections open).
    pub first_query: SimTime,
    pub think: SimTime,
    /// IP size of a request packet.
    pub request_size: u32,
    pub tcp: TcpConfig,
}

/// This app's scenario entry.
pub type Spec = AggregateSpec;
/// This app as the app table holds it.
pub type App = Box<ReqResp>;
pub const DEFAULT: &str = "none";
pub const MEANING: &str = "partition/aggregate queries";

/// HTTP's port.
const SERVICE: u16 = 80;

const AGGREGATOR: Key = Key {
    name: "aggregator",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "",
    meaning: "the host that asks",
};
const WORKERS: Key = Key {
    name: "workers",
    ty: Ty::Text("`\"all\"`, or array of strings"),
    default: "every host except the aggregator",
    allowed:
        "`\"all\"` (every host except the aggregator), or host names other than the aggregator",
    meaning: "the hosts that answer",
};
const RESPONSE: Key = Key {
    name: "response",
    ty: Ty::Size,
    default: REQUIRED,
    allowed: "",
    meaning: "bytes each worker sends per query",
};
const QUERIES: Key = Key {
    name: "queries",
    ty: Ty::Int(1, 10_000_000),
    default: "`1`",
    allowed: "",
    meaning: "number of queries",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "",
    meaning: "when the workers' connections open, and the first query is sent unless `first_query` says later",
};
const FIRST_QUERY: Key = Key {
    name: "first_query",
    ty: Ty::Time,
    default: "`start`",
    allowed: "at least `start`",
    meaning: "when the first query is sent; later than `start` lets the connections' handshakes finish first, as a program that connects and then asks (tcpmon)",
};
const THINK: Key = Key {
    name: "think",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "",
    meaning: "pause between one query's completion and the next",
};
const REQUEST_SIZE: Key = Key {
    name: "request_size",
    ty: Ty::Bytes(40, 65_535),
    default: "`100`",
    allowed: "",
    meaning: "IP size of a request packet",
};

/// `[[aggregate]]`: partition/aggregate queries; any `[tcp]` key too, for the workers'
/// connections.
pub static KEYS: Schema = Schema {
    title: "[[aggregate]]",
    place: "[[aggregate]]",
    noun: "aggregate",
    about: "",
    keys: &[
        AGGREGATOR,
        WORKERS,
        RESPONSE,
        QUERIES,
        START,
        FIRST_QUERY,
        THINK,
        REQUEST_SIZE,
    ],
    with: &[&TCP],
    variants: None,
};

/// Read every `[[aggregate]]`; `workers = "all"` (the default) means every host except
/// the aggregator.
pub fn parse(ck: &mut Checker, root: Tab, table: &str, cx: &ParseCx) -> Option<Vec<AggregateSpec>> {
    let tcp: &TcpConfig = cx.tcp;
    let tables = ck.array_of_tables(root, table).unwrap_or_default();
    let hosts = ck.hosts.clone();
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let agg: Option<String> = ck.need(t, &AGGREGATOR, "\"recv\"");
        let others = || -> Vec<String> {
            hosts
                .as_deref()
                .map(|h| {
                    h.iter()
                        .filter(|x| Some(*x) != agg.as_ref())
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        };
        let workers = match t.t.get(WORKERS.name) {
            None => others(),
            Some(Value::String(w)) if w == "all" => others(),
            Some(Value::Array(a)) => {
                let check = name_in("host", hosts.as_deref());
                let mut ws = Vec::new();
                for (i, v) in a.iter().enumerate() {
                    match check(v) {
                        Ok(w) if Some(&w) == agg.as_ref() => ck.err(
                            &format!("{path}.workers.{i}"),
                            Some(v),
                            "the aggregator cannot be its own worker".into(),
                        ),
                        Ok(w) => ws.push(w),
                        Err(m) => ck.err(&format!("{path}.workers.{i}"), Some(v), m),
                    }
                }
                ws
            }
            Some(v) => {
                ck.err(
                    &join(t.path, WORKERS.name),
                    Some(v),
                    "expected \"all\" or a list of host names".into(),
                );
                Vec::new()
            }
        };
        let response: Option<u64> = ck.need(t, &RESPONSE, "\"64KB\"");
        let queries = ck.get(t, &QUERIES).unwrap_or(1);
        let start = ck.get(t, &START).unwrap_or(0);
        let first_query = ck.get(t, &FIRST_QUERY).unwrap_or(start);
        if first_query < start {
            ck.err(
                &join(t.path, FIRST_QUERY.name),
                t.t.get(FIRST_QUERY.name),
                "must not be before `start` (the connections open at `start`)".into(),
            );
        }
        let think = ck.get(t, &THINK).unwrap_or(0);
        let request_size = ck.get(t, &REQUEST_SIZE).unwrap_or(100);
        let mut c = tcp.clone();
        crate::tcp::config::parse(ck, t, &mut c);
        out.push(AggregateSpec {
            aggregator: agg.clone().unwrap_or_default(),
            workers,
            response_bytes: response.unwrap_or(1),
            queries,
            start,
            first_query,
            think,
            request_size,
            tcp: c,
        });
    }
    Some(out)
}

/// Wake-up tag of "send the next query"; tags below the number of workers open worker k's
/// connection.
const QUERY: u32 = u32::MAX;

pub struct ReqResp {
    pub aggregator: NodeId,
    pub aggregator_name: String,
    /// The workers' connections: `first_conn + k` for worker k.
    pub first_conn: u32,
    pub workers: u32,
    pub start: SimTime,
    pub first_query: SimTime,
    pub response_bytes: u64,
    pub queries: u32,
    pub think: SimTime,
    pub request_size: u32,
    /// Bytes each connection must have delivered for the current query to be answered.
    targets: Vec<u64>,
    /// Queries finished so far, and the start time of the current one.
    done: u32,
    issued_at: SimTime,
    pending: u32,
    /// For each worker, 1 + the index of the last query it answered.
    answered_q: Vec<u32>,
    qcts: Vec<SimTime>,
    /// Each finished query, in order.
    records: Vec<QueryRecord>,
}

/// One query as the aggregator saw it, with the first worker's sender when it completed
/// (one worker: the request–response connection of tcpmon).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryRecord {
    /// When the request was sent, s.
    pub issued_s: f64,
    /// From the request to the last byte of the answer(s), s.
    pub qct_s: f64,
    /// The first worker's sender at completion: cwnd and ssthresh (segments), smoothed
    /// RTT (s, 0 before a sample), MSS (bytes).
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_s: f64,
    pub mss: u32,
    /// Restarts after idle (RFC 2861, `tcp_cwnd_restart`) on that sender so far.
    pub cwnd_restarts: u64,
}

impl ReqResp {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        aggregator: NodeId,
        aggregator_name: String,
        first_conn: u32,
        workers: u32,
        (start, first_query): (SimTime, SimTime),
        response_bytes: u64,
        queries: u32,
        think: SimTime,
        request_size: u32,
    ) -> ReqResp {
        ReqResp {
            aggregator,
            aggregator_name,
            first_conn,
            workers,
            start,
            first_query,
            response_bytes,
            queries,
            think,
            request_size,
            targets: vec![0; workers as usize],
            done: 0,
            issued_at: 0,
            pending: 0,
            answered_q: vec![0; workers as usize],
            qcts: Vec::new(),
            records: Vec::new(),
        }
    }

    /// Ask every worker for its answer to the next query.
    fn send_query(&mut self, cx: &mut AppCx) {
        self.issued_at = cx.now;
        self.pending = self.workers;
        for k in 0..self.workers {
            let c = self.first_conn + k;
            self.targets[k as usize] += self.response_bytes;
            let addr = cx.conns[c as usize]
                .tcp()
                .expect("workers answer over TCP")
                .sender
                .addr;
            let mut p = Packet::blank();
            p.kind = PktKind::Request;
            p.src = self.aggregator;
            p.dst = addr.client;
            p.conn = c;
            p.from_client = false;
            p.size = self.request_size;
            p.hash = addr.hash;
            p.dscp = addr.dscp;
            p.born = cx.now;
            cx.send(self.aggregator, p);
        }
    }
}

impl super::App for ReqResp {
    fn start(&mut self, cx: &mut AppCx) {
        for k in 0..self.workers {
            cx.wake(self.start, k);
        }
        cx.wake(self.first_query.max(self.start), QUERY);
    }

    fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
        match tag {
            QUERY => self.send_query(cx),
            k => cx.open(self.first_conn + k),
        }
    }

    /// A request reached a worker: it answers over its connection.
    fn on_message(&mut self, p: &Packet, cx: &mut AppCx) {
        cx.write(p.conn, self.response_bytes);
    }

    fn wants_deliveries(&self) -> bool {
        true
    }

    /// A worker's connection delivered data: is its answer to the current query complete?
    fn on_delivered(&mut self, conn: u32, cx: &mut AppCx) {
        let k = (conn - self.first_conn) as usize;
        let delivered = cx.conns[conn as usize].delivered_bytes();
        // Each connection counts once per query: its target moves on only with the next one.
        if self.pending == 0 || delivered < self.targets[k] || self.done >= self.queries {
            return;
        }
        if self.answered_q[k] <= self.done {
            self.answered_q[k] = self.done + 1;
            self.pending -= 1;
            if self.pending == 0 {
                self.qcts.push(cx.now - self.issued_at);
                let s = cx.conns[self.first_conn as usize].tcp().map(|c| &c.sender);
                self.records.push(QueryRecord {
                    issued_s: crate::engine::secs(self.issued_at),
                    qct_s: crate::engine::secs(cx.now - self.issued_at),
                    cwnd: s.map_or(0, |s| s.tp.snd_cwnd),
                    ssthresh: s.map_or(0, |s| s.tp.snd_ssthresh),
                    srtt_s: s.map_or(0.0, |s| s.tp.srtt_us as f64 / 8e6),
                    mss: s.map_or(0, |s| s.mss),
                    cwnd_restarts: s.map_or(0, |s| s.stats.cwnd_restarts),
                });
                self.done += 1;
                if self.done < self.queries {
                    cx.wake(cx.now + self.think, QUERY);
                }
            }
        }
    }

    fn declare(t: &mut AppTables) {
        t.declare::<AggregateResult>();
    }

    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        let s = super::summarize(&self.qcts);
        let timeouts = (0..self.workers)
            .filter_map(|k| cx.conns[(self.first_conn + k) as usize].tcp())
            .map(|c| c.sender.stats.timeouts)
            .sum();
        out.push(AggregateResult {
            aggregator: self.aggregator_name.clone(),
            workers: self.workers,
            response_bytes: self.response_bytes,
            queries_done: self.done,
            qct_mean_s: s.map(|s| s[0]),
            qct_median_s: s.map(|s| s[1]),
            qct_p99_s: s.map(|s| s[2]),
            qct_max_s: s.map(|s| s[4]),
            timeouts,
            per_query: self.records.clone(),
        });
    }
}

/// A partition/aggregate app: query completion times.
#[derive(Clone, Debug, Serialize)]
pub struct AggregateResult {
    pub aggregator: String,
    pub workers: u32,
    pub response_bytes: u64,
    pub queries_done: u32,
    pub qct_mean_s: Option<f64>,
    pub qct_median_s: Option<f64>,
    pub qct_p99_s: Option<f64>,
    pub qct_max_s: Option<f64>,
    /// RTO expiries on the workers' connections.
    pub timeouts: u64,
    /// Every finished query, in order (for experiments; not in the tables).
    #[serde(skip)]
    pub per_query: Vec<QueryRecord>,
}

impl AppRow for AggregateResult {
    const REPORT: Report = Report {
        key: "aggregates",
        table: "queries",
        always: true,
        rank: 40,
        table_rank: 15,
    };
    fn columns(a: &[AggregateResult], t: Table) -> Table {
        t.col("aggregator", strs(a, |x| &x.aggregator))
            .col("workers", ints(a, |x| x.workers as u64))
            .col("response_bytes", ints(a, |x| x.response_bytes))
            .col("queries_done", ints(a, |x| x.queries_done as u64))
            .col("qct_mean_s", opt_floats(a, |x| x.qct_mean_s))
            .col("qct_median_s", opt_floats(a, |x| x.qct_median_s))
            .col("qct_p99_s", opt_floats(a, |x| x.qct_p99_s))
            .col("qct_max_s", opt_floats(a, |x| x.qct_max_s))
            .col("timeouts", ints(a, |x| x.timeouts))
    }
    fn human(&self, s: &mut String) {
        use std::fmt::Write;
        let a = self;
        let _ = writeln!(
            s,
            "\nqueries at {} ({} workers × {} B): {} done, completion time mean/median/p99/max = {}/{}/{}/{} ms, {} timeouts",
            a.aggregator,
            a.workers,
            a.response_bytes,
            a.queries_done,
            ms(a.qct_mean_s),
            ms(a.qct_median_s),
            ms(a.qct_p99_s),
            ms(a.qct_max_s),
            a.timeouts
        );
    }
}

/// One connection per worker (worker → aggregator), which writes only when asked: a byte
/// count of 0 to start; then the app.
pub fn build(specs: &[AggregateSpec], w: &mut dyn Build) -> Result<(), String> {
    for (i, a) in specs.iter().enumerate() {
        let app = w.next_app();
        let first = w.next_conn();
        for worker in &a.workers {
            w.conn(ConnReq {
                label: &format!("aggregate.{i} (worker {worker})"),
                from: worker,
                to: &a.aggregator,
                service: SERVICE,
                tcp: &a.tcp,
                bytes: Some(0),
                start: a.start,
                stop: None,
                app,
            })?;
        }
        let aggregator = w.host(&a.aggregator)?;
        w.push_app(super::AnyApp::ReqResp(Box::new(ReqResp::new(
            aggregator,
            a.aggregator.clone(),
            first,
            a.workers.len() as u32,
            (a.start, a.first_query),
            a.response_bytes,
            a.queries,
            a.think,
            a.request_size,
        ))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::engine::MS;
    use crate::scenario::parse_scenario;

    const BASE: &str = r#"[sim]
duration = "1s"
[topology]
kind = "chain"
hops = [{ rate = "1Gbps", delay = "5ms" }]
[[aggregate]]
aggregator = "dst"
workers = ["src"]
response = "100KB"
queries = 3
think = "10ms"
"#;

    /// `first_query` defaults to `start`, may be later, never earlier; a query sent after
    /// the handshake times the answer alone, and each finished query has its record.
    #[test]
    fn first_query_and_the_per_query_record() {
        let sc = parse_scenario(&format!("{BASE}start = \"2ms\"\n"), "t.toml", &[]).unwrap();
        assert_eq!(sc.apps.aggregates[0].first_query, 2 * MS);
        let e = parse_scenario(
            &format!("{BASE}start = \"2ms\"\nfirst_query = \"1ms\"\n"),
            "t.toml",
            &[],
        )
        .unwrap_err();
        assert!(
            e.iter().any(|e| e.key == "aggregate.0.first_query"),
            "{e:?}"
        );
        let late =
            parse_scenario(&format!("{BASE}first_query = \"30ms\"\n"), "t.toml", &[]).unwrap();
        let mut r = crate::world::run(&late).unwrap();
        let a = r.apps.take::<super::AggregateResult>().remove(0);
        assert_eq!(a.per_query.len(), 3);
        assert!((a.per_query[0].issued_s - 0.030).abs() < 1e-9);
        // Later queries start `think` after the previous one ended.
        let (q0, q1) = (a.per_query[0], a.per_query[1]);
        assert!((q1.issued_s - (q0.issued_s + q0.qct_s + 0.010)).abs() < 1e-9);
        // The connection was up: the first answer takes no handshake (> 1 RTT of 10 ms,
        // < the 4 RTTs a handshake plus slow start from the request's arrival would need).
        assert!(q0.qct_s > 0.010 && q0.qct_s < 0.060, "{}", q0.qct_s);
        assert!(q0.cwnd > 0 && q0.mss > 0 && q0.srtt_s > 0.0);
    }
}
