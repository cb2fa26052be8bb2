//! A ping probe: an ICMP echo request every `interval` from one host to another through
//! the same queues as the traffic (as `ping -i`). The echo client is an endpoint
//! (`transport/ping.rs`) in a connection slot of its own; the destination host answers it
//! (`net::host`, the kernel's echo reply). This app configures and starts it, and reports
//! the round-trip times it recorded.

use super::Build;
use super::{endpoints, AppCx, AppId, ParseCx, ResultCx};
use crate::conn::{Conn, Ends};
use crate::engine::SimTime;
use crate::results::apps::{ms, AppRow, Report};
use crate::results::table::{ints, opt_floats, strs, Table};
use crate::results::AppTables;
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
use crate::transport::ping::Pinger;
use serde::Serialize;

/// A ping probe: an echo every `interval` through the same queues.
#[derive(Clone, Debug, PartialEq)]
pub struct PingSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    pub interval: SimTime,
    /// IP packet size in bytes (84 = `ping` default 56 data + 8 ICMP + 20 IP).
    pub size: u32,
    /// Send with ECT(0) (as `ping -Q` with the ECT bit).
    pub ect: bool,
    pub dscp: u8,
}

/// This app's scenario entry.
pub type Spec = PingSpec;
/// This app as the app table holds it.
pub type App = Box<Ping>;
pub const DEFAULT: &str = "none";
pub const MEANING: &str = "ping probes";

const FROM: Key = Key {
    name: "from",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "",
    meaning: "the pinging host",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "a host name other than `from`",
    meaning: "the echoing host",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "before `sim.duration`",
    meaning: "first request",
};
const INTERVAL: Key = Key {
    name: "interval",
    ty: Ty::Interval,
    default: REQUIRED,
    allowed: "greater than zero; at most 10,000,000 probes over the run",
    meaning: "time between requests",
};
const SIZE: Key = Key {
    name: "size",
    ty: Ty::Bytes(28, 65_535),
    default: "`84`",
    allowed: "",
    meaning: "IP packet size (84 = `ping`'s default: 56 data + 8 ICMP + 20 IP)",
};
const ECT: Key = Key {
    name: "ect",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "send with ECT(0) (as `ping -Q` with the ECT bit)",
};
const DSCP: Key = Key {
    name: "dscp",
    ty: Ty::Int(0, 63),
    default: "`0`",
    allowed: "",
    meaning: "DSCP value of the probes",
};

/// `[[ping]]`.
pub static KEYS: Schema = Schema {
    title: "[[ping]]",
    place: "[[ping]]",
    noun: "ping",
    about: "",
    keys: &[FROM, TO, START, INTERVAL, SIZE, ECT, DSCP],
    with: &[],
    variants: None,
};

/// Read every `[[ping]]`.
pub fn parse(ck: &mut Checker, root: Tab, table: &str, cx: &ParseCx) -> Option<Vec<PingSpec>> {
    let duration = cx.duration;
    let tables = ck.array_of_tables(root, table).unwrap_or_default();
    let mut pings = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let (from, to) = endpoints(ck, t, &FROM, &TO);
        let start = super::start(ck, t, &START, duration);
        let interval: Option<SimTime> = ck.need(t, &INTERVAL, "\"200ms\"");
        if let Some(iv) = interval {
            ck.check_samples(t, INTERVAL.name, iv, duration);
        }
        pings.push(PingSpec {
            from: from.unwrap_or_default(),
            to: to.unwrap_or_default(),
            start: start.unwrap_or(0),
            interval: interval.unwrap_or(1),
            size: ck.get(t, &SIZE).unwrap_or(84),
            ect: ck.get(t, &ECT).unwrap_or(false),
            dscp: ck.get(t, &DSCP).unwrap_or(0),
        });
    }
    Some(pings)
}

/// A ping probe's app: its echo client holds the state.
pub struct Ping {
    pub id: AppId,
    /// The echo client's connection slot.
    pub conn: u32,
    pub from_name: String,
    pub to_name: String,
}

impl super::App for Ping {
    fn start(&mut self, cx: &mut AppCx) {
        cx.open(self.conn);
    }

    fn on_event(&mut self, _tag: u32, _cx: &mut AppCx) {}

    fn declare(t: &mut AppTables) {
        t.declare::<PingResult>();
    }

    /// A probe, not traffic: a file with only pings still gets the default flows.
    fn traffic() -> bool {
        false
    }

    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        let Some(Ends::Ping(e)) = cx.conns.get(self.conn as usize).and_then(Conn::ends) else {
            return;
        };
        let s = super::summarize(&e.rtts);
        out.push(PingResult {
            from: self.from_name.clone(),
            to: self.to_name.clone(),
            sent: e.sent,
            received: e.rtts.len() as u64,
            rtt_mean_s: s.map(|s| s[0]),
            rtt_median_s: s.map(|s| s[1]),
            rtt_p99_s: s.map(|s| s[2]),
            rtt_min_s: s.map(|s| s[3]),
            rtt_max_s: s.map(|s| s[4]),
            rtt_stddev_s: s.map(|s| s[5]),
        });
    }
}

/// A ping probe's results (`summary.json`'s `pings`, the `pings` table).
#[derive(Clone, Debug, Serialize)]
pub struct PingResult {
    pub from: String,
    pub to: String,
    pub sent: u64,
    pub received: u64,
    pub rtt_mean_s: Option<f64>,
    pub rtt_median_s: Option<f64>,
    pub rtt_p99_s: Option<f64>,
    pub rtt_min_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
    pub rtt_stddev_s: Option<f64>,
}

impl AppRow for PingResult {
    const REPORT: Report = Report {
        key: "pings",
        table: "pings",
        always: true,
        rank: 10,
        table_rank: 10,
    };
    fn columns(p: &[PingResult], t: Table) -> Table {
        t.col("from", strs(p, |x| &x.from))
            .col("to", strs(p, |x| &x.to))
            .col("sent", ints(p, |x| x.sent))
            .col("received", ints(p, |x| x.received))
            .col("rtt_mean_s", opt_floats(p, |x| x.rtt_mean_s))
            .col("rtt_median_s", opt_floats(p, |x| x.rtt_median_s))
            .col("rtt_p99_s", opt_floats(p, |x| x.rtt_p99_s))
            .col("rtt_min_s", opt_floats(p, |x| x.rtt_min_s))
            .col("rtt_max_s", opt_floats(p, |x| x.rtt_max_s))
            .col("rtt_stddev_s", opt_floats(p, |x| x.rtt_stddev_s))
    }
    fn human(&self, s: &mut String) {
        use std::fmt::Write;
        let p = self;
        let _ = writeln!(
            s,
            "\nping {}→{}: {}/{} replies, rtt min/mean/p99/max = {}/{}/{}/{} ms",
            p.from,
            p.to,
            p.received,
            p.sent,
            ms(p.rtt_min_s),
            ms(p.rtt_mean_s),
            ms(p.rtt_p99_s),
            ms(p.rtt_max_s)
        );
    }
}

/// One app and one connection per probe.
pub fn build(specs: &[PingSpec], w: &mut dyn Build) -> Result<(), String> {
    for (i, p) in specs.iter().enumerate() {
        let id = w.next_app();
        let (from, to) = (w.host(&p.from)?, w.host(&p.to)?);
        if !w.reaches(from, to, 0) || !w.reaches(to, from, 0) {
            return Err(format!(
                "ping.{i} ({} → {}): no route between them (hosts do not forward; is a link missing?)",
                p.from, p.to
            ));
        }
        let conn = w.next_conn();
        let e = Pinger::new(
            conn, id, from, to, p.start, p.interval, p.size, p.ect, p.dscp,
        );
        w.add_conn(Conn::new(Ends::Ping(e)), from, to, id);
        w.push_app(super::AnyApp::Ping(Box::new(Ping {
            id,
            conn,
            from_name: p.from.clone(),
            to_name: p.to.clone(),
        })));
    }
    Ok(())
}
