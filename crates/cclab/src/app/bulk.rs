//! A bulk transfer over one connection, like `iperf -c`: the client connects at `start`
//! and writes without end, until `stop` (`iperf -t`), or exactly `bytes` (`iperf -n`),
//! after which its flow completion time is measured.
//!
//! The byte count is the connection's own (`tcp::Sender::total_bytes`): the app only
//! opens the connection and, at `stop`, closes the write side.

use super::{endpoints, AppCx, ParseCx};
use super::{Build, ConnReq};
use crate::engine::SimTime;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::units;
use crate::schema::{Key, Schema, Ty, REQUIRED};
use crate::tcp::config::TcpConfig;
use crate::tcp::config::TCP;
use toml::Value;

/// A bulk TCP transfer (iperf -c).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    /// Stop sending new data at this time (iperf -t); `None` = until the end of the run.
    pub stop: Option<SimTime>,
    /// Send exactly this many bytes (iperf -n) and close; flow completion time is measured.
    pub bytes: Option<u64>,
    pub tcp: TcpConfig,
}

/// This app's scenario entry.
pub type Spec = FlowSpec;
/// This app as the app table holds it.
pub type App = Bulk;
/// The table's default when the file has none, and what the entries are.
pub const DEFAULT: &str = "one per sender, unless the file has `[[aggregate]]`";
pub const MEANING: &str = "bulk TCP transfers";

/// iperf3's port.
const SERVICE: u16 = 5201;

const FROM: Key = Key {
    name: "from",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "",
    meaning: "the sender",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "a host name other than `from`",
    meaning: "the receiver",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "before `sim.duration`",
    meaning: "when the flow starts",
};
const STOP: Key = Key {
    name: "stop",
    ty: Ty::Time,
    default: "none (until the end of the run)",
    allowed: "later than `start`, at most `sim.duration`",
    meaning: "stop sending new data at this time (`iperf -t`)",
};
const BYTES: Key = Key {
    name: "bytes",
    ty: Ty::Size,
    default: "none (unlimited)",
    allowed: "greater than zero",
    meaning:
        "send exactly this many bytes and close (`iperf -n`); the flow completion time is measured",
};

/// `[[flow]]`: a bulk transfer; any `[tcp]` key too, for this flow only.
pub static KEYS: Schema = Schema {
    title: "[[flow]]",
    place: "[[flow]]",
    noun: "flow",
    about: "",
    keys: &[FROM, TO, START, STOP, BYTES],
    with: &[&TCP],
    variants: None,
};

/// Read every `[[flow]]`; without any, one flow per sender of the topology for the whole
/// run unless the file has other traffic (`App::traffic`). `None` when the flows cannot be
/// counted (a malformed table, no topology).
pub fn parse(ck: &mut Checker, root: Tab, table: &str, cx: &ParseCx) -> Option<Vec<FlowSpec>> {
    let (topology, tcp, duration) = (cx.topology, cx.tcp, cx.duration);
    let Some(tables) = ck.array_of_tables(root, table) else {
        if super::has_own_traffic(root) {
            return Some(Vec::new());
        }
        return topology.map(|t| {
            t.default_pairs()
                .into_iter()
                .map(|(from, to)| FlowSpec {
                    from,
                    to,
                    start: 0,
                    stop: None,
                    bytes: None,
                    tcp: tcp.clone(),
                })
                .collect()
        });
    };
    let mut flows = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let (from, to) = endpoints(ck, t, &FROM, &TO);
        let start = super::start(ck, t, &START, duration);
        let stop: Option<SimTime> = ck.get(t, &STOP);
        if let Some(e) = stop {
            let (k, v) = (join(t.path, STOP.name), t.t.get(STOP.name));
            if start.is_some_and(|s| e <= s) || (!t.t.contains_key(START.name) && e == 0) {
                let m = format!(
                    "must be later than start ({})",
                    units::format_time(start.unwrap_or(0))
                );
                ck.err(&k, v, m);
            } else if let Some(d) = duration.filter(|d| e > *d) {
                let m = format!(
                    "is after the end of the run (sim.duration = {})",
                    units::format_time(d)
                );
                ck.err(&k, v, m);
            }
        }
        let bytes: Option<u64> = ck.get(t, &BYTES);
        if bytes == Some(0) {
            ck.err(
                &join(t.path, BYTES.name),
                t.t.get(BYTES.name),
                "must be greater than zero".into(),
            );
        }
        let mut c = tcp.clone();
        crate::tcp::config::parse(ck, t, &mut c);
        flows.push(FlowSpec {
            from: from.unwrap_or_default(),
            to: to.unwrap_or_default(),
            start: start.unwrap_or(0),
            stop,
            bytes: bytes.filter(|&b| b > 0),
            tcp: c,
        });
    }
    // A table dropped as malformed leaves the count unknown for `drop_nth` checks.
    let complete = matches!(root.t.get(table), Some(Value::Array(a)) if a.len() == tables.len());
    (topology.is_some() && complete).then_some(flows)
}

/// Wake-up tags.
const TAG_START: u32 = 0;
const TAG_STOP: u32 = 1;

pub struct Bulk {
    pub conn: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
}

impl super::App for Bulk {
    fn start(&mut self, cx: &mut AppCx) {
        cx.wake(self.start, TAG_START);
        if let Some(stop) = self.stop {
            cx.wake(stop, TAG_STOP);
        }
    }

    fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
        match tag {
            TAG_START => cx.open(self.conn),
            _ => cx.stop(self.conn),
        }
    }
}

/// One connection and one app per flow.
pub fn build(specs: &[FlowSpec], w: &mut dyn Build) -> Result<(), String> {
    for (i, f) in specs.iter().enumerate() {
        let app = w.next_app();
        let conn = w.conn(ConnReq {
            label: &format!("flow.{i}"),
            from: &f.from,
            to: &f.to,
            service: SERVICE,
            tcp: &f.tcp,
            bytes: f.bytes,
            start: f.start,
            stop: f.stop,
            app,
        })?;
        w.push_app(super::AnyApp::Bulk(Bulk {
            conn,
            start: f.start,
            stop: f.stop,
        }));
    }
    Ok(())
}
