//! Applications: what drives the transports. Each app is one file here implementing
//! [`App`], plus one line in the `apps!` registry below:
//!
//! - `bulk` — an iperf-like bulk transfer over one connection: from `start`, until `stop`
//!   or for a byte count;
//! - `reqresp` — partition/aggregate queries (the DCTCP paper's incast): an aggregator asks
//!   every worker at once, each answers over its own connection, the query completes when
//!   all answers are in;
//! - `ping` — ICMP echo probes through the same queues;
//! - `udp` — a constant-bit-rate UDP sender (iperf -u) and its receiver, with IPv4
//!   fragmentation and reassembly;
//! - `ocbr` — Ouroboros flows (seed 002);
//! - `workload` — data-center workloads: flow sizes from an empirical CDF, Poisson
//!   arrivals at a target load, all-to-all, permutation or incast.
//!
//! An app never touches the network, the transports or the event queue: it is called with
//! an [`AppCx`] (the time and the connections' delivery counters) and answers with
//! commands ([`Cmd`]: open a connection, write to it, stop it, send a packet from a host,
//! wake me at t) that the simulator carries out in order.
//!
//! Adding an app: one file here (the app, its scenario entry, keys, `parse` and `build`)
//! and one line in the `apps!` registry.

mod build;
pub mod bulk;
pub mod ocbr;
pub mod ping;
pub mod reqresp;
pub mod udp;
pub mod workload;

use crate::conn::Conn;
use crate::engine::SimTime;
use crate::net::topology::spec::TopologySpec;
use crate::net::NodeId;
use crate::packet::Packet;
use crate::results::AppTables;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::units;
use crate::schema::{Key, Schema, Ty};
use crate::tcp::config::TcpConfig;
pub use build::{Build, ConnReq};

/// An app's index in the simulator's app table.
pub type AppId = u32;

/// What an app asks the simulator to do.
#[derive(Debug)]
pub enum Cmd {
    /// Open connection `conn` (its client connects).
    Open(u32),
    /// The client application of `conn` writes this many bytes more.
    Write(u32, u64),
    /// The client application of `conn` will write nothing more.
    Stop(u32),
    /// Send an application packet from `node` (its route starts there).
    Send(NodeId, Packet),
    /// Call `on_event(tag)` at this time.
    Wake(SimTime, u32),
    /// Create a TCP connection for a flow that arrives now, open it and write its bytes;
    /// it closes, and its slot is freed, when they are all acknowledged (`Sim::connect`).
    Connect(NewConn),
}

/// A workload flow's connection, created when it arrives.
#[derive(Debug)]
pub struct NewConn {
    pub from: NodeId,
    pub to: NodeId,
    /// The listener's port.
    pub service: u16,
    pub bytes: u64,
    pub cfg: std::sync::Arc<crate::tcp::config::TcpConfig>,
}

/// What an app sees while it runs: the time, the connections (read only) and the list
/// of commands it appends to.
pub struct AppCx<'a> {
    pub now: SimTime,
    pub conns: &'a [Conn],
    pub cmds: &'a mut Vec<Cmd>,
}

impl AppCx<'_> {
    #[inline]
    pub fn open(&mut self, conn: u32) {
        self.cmds.push(Cmd::Open(conn));
    }
    #[inline]
    pub fn write(&mut self, conn: u32, bytes: u64) {
        self.cmds.push(Cmd::Write(conn, bytes));
    }
    #[inline]
    pub fn stop(&mut self, conn: u32) {
        self.cmds.push(Cmd::Stop(conn));
    }
    #[inline]
    pub fn send(&mut self, from: NodeId, p: Packet) {
        self.cmds.push(Cmd::Send(from, p));
    }
    #[inline]
    pub fn connect(&mut self, c: NewConn) {
        self.cmds.push(Cmd::Connect(c));
    }

    pub fn wake(&mut self, at: SimTime, tag: u32) {
        self.cmds.push(Cmd::Wake(at, tag));
    }
}

/// An application.
pub trait App {
    /// Schedule what happens at the start (`cx.wake`); called once, in app order, when the
    /// world is built.
    fn start(&mut self, cx: &mut AppCx);
    /// A wake-up this app asked for.
    fn on_event(&mut self, tag: u32, cx: &mut AppCx);
    /// The listener of connection `conn`, which this app uses, received data in order.
    fn on_delivered(&mut self, _conn: u32, _cx: &mut AppCx) {}
    /// A packet this app sent with `Cmd::Send` (a request/response query) reached the
    /// other end of its connection (and is consumed). The other transports' packets go to
    /// their endpoints, not to apps.
    fn on_message(&mut self, _p: &Packet, _cx: &mut AppCx) {}
    /// Wants `on_delivered` calls.
    fn wants_deliveries(&self) -> bool {
        false
    }
    /// Hand this app's results over (`out.push(row)`: rows of a type of its own that
    /// implements [`crate::results::AppRow`], which says where they go).
    fn tables(&self, _cx: &ResultCx, _out: &mut AppTables) {}
    /// The kinds of rows apps of this type report (`t.declare::<Row>()` each), so that a
    /// kind that always shows is in the results of a run without such an app.
    fn declare(_t: &mut AppTables)
    where
        Self: Sized,
    {
    }
    /// Are its scenario tables traffic of their own? A file with one of them gets no
    /// default flows (`bulk`): an incast scenario's queries would otherwise compete with a
    /// bulk flow per sender nobody asked for. A probe (`[[ping]]`) is not: a file with
    /// only pings still gets the default flows, whose path it measures.
    fn traffic() -> bool
    where
        Self: Sized,
    {
        true
    }
}

/// An app kept behind a pointer (the large ones, so that `AnyApp` stays small).
impl<T: App> App for Box<T> {
    fn start(&mut self, cx: &mut AppCx) {
        (**self).start(cx)
    }
    #[inline]
    fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
        (**self).on_event(tag, cx)
    }
    #[inline]
    fn on_delivered(&mut self, conn: u32, cx: &mut AppCx) {
        (**self).on_delivered(conn, cx)
    }
    #[inline]
    fn on_message(&mut self, p: &Packet, cx: &mut AppCx) {
        (**self).on_message(p, cx)
    }
    fn wants_deliveries(&self) -> bool {
        (**self).wants_deliveries()
    }
    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        (**self).tables(cx, out)
    }
    fn declare(t: &mut AppTables) {
        T::declare(t)
    }
    fn traffic() -> bool {
        T::traffic()
    }
}

/// What an app may read when results are collected.
pub struct ResultCx<'a> {
    pub now: SimTime,
    pub conns: &'a [Conn],
}

/// What an app's parser may need from the rest of the file.
pub struct ParseCx<'a> {
    pub topology: Option<&'a TopologySpec>,
    /// `[tcp]`: the defaults of every connection.
    pub tcp: &'a TcpConfig,
    pub duration: Option<SimTime>,
    /// `sim.max_app_packets`: the most packets one constant-rate app may send.
    pub max_app_packets: u64,
}

/// The registry of apps: `field: "table" => Variant(module)`, one line each, in the order
/// their connections and apps are numbered. A module provides the app (`App`, a type that
/// implements [`App`]), its scenario entry (`Spec`), the keys of its table (`KEYS`,
/// `DEFAULT`, `MEANING`), `parse` and `build`. The line generates the `AnyApp` enum and its
/// dispatch, the field of [`AppSpecs`] that holds the entries, the `[[table]]` of a
/// scenario file, and the calls that read and build them.
macro_rules! apps {
    ($($(#[$doc:meta])* $field:ident: $table:literal => $var:ident($m:ident),)*) => {
        /// Any of the built-in apps.
        pub enum AnyApp {
            $($(#[$doc])* $var($m::App),)*
        }

        impl App for AnyApp {
            fn start(&mut self, cx: &mut AppCx) {
                match self { $(AnyApp::$var(a) => a.start(cx),)* }
            }
            #[inline]
            fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
                match self { $(AnyApp::$var(a) => a.on_event(tag, cx),)* }
            }
            #[inline]
            fn on_delivered(&mut self, conn: u32, cx: &mut AppCx) {
                match self { $(AnyApp::$var(a) => a.on_delivered(conn, cx),)* }
            }
            #[inline]
            fn on_message(&mut self, p: &Packet, cx: &mut AppCx) {
                match self { $(AnyApp::$var(a) => a.on_message(p, cx),)* }
            }
            fn wants_deliveries(&self) -> bool {
                match self { $(AnyApp::$var(a) => a.wants_deliveries(),)* }
            }
            fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
                match self { $(AnyApp::$var(a) => a.tables(cx, out),)* }
            }
        }

        /// Every app's scenario entries: one list per app, in file order.
        #[derive(Clone, Debug, PartialEq, Default)]
        pub struct AppSpecs {
            $(pub $field: Vec<$m::Spec>,)*
        }

        impl AppSpecs {
            /// How many apps the entries make (one per entry).
            pub fn len(&self) -> usize {
                0 $(+ self.$field.len())*
            }

            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }

        /// The apps' tables of a scenario file.
        pub static TRAFFIC: Schema = Schema {
            title: "Traffic",
            place: "the top level",
            noun: "traffic",
            about: "",
            keys: &[$(Key {
                name: $table,
                ty: Ty::Tables(&$m::KEYS),
                default: $m::DEFAULT,
                allowed: "",
                meaning: $m::MEANING,
            }),*],
            with: &[],
            variants: None,
        };

        /// Read every app's tables; `None` when an app's entries cannot be counted.
        pub fn parse(ck: &mut Checker, root: Tab, cx: &ParseCx) -> Option<AppSpecs> {
            $(let $field = $m::parse(ck, root, $table, cx);)*
            Some(AppSpecs { $($field: $field?,)* })
        }

        /// Declare every app's kinds of rows ([`App::declare`]).
        pub fn declare(t: &mut AppTables) {
            $(<$m::App as App>::declare(t);)*
        }

        /// Does the file have a table of an app that is traffic of its own
        /// ([`App::traffic`])?
        pub fn has_own_traffic(root: Tab) -> bool {
            false $(|| (<$m::App as App>::traffic() && root.t.contains_key($table)))*
        }

        /// Build every app, in registry order.
        pub fn build(specs: &AppSpecs, w: &mut dyn Build) -> Result<(), String> {
            $($m::build(&specs.$field, w)?;)*
            Ok(())
        }
    };
}

apps! {
    /// A bulk transfer (`bulk.rs`).
    flows: "flow" => Bulk(bulk),
    /// Partition/aggregate queries (`reqresp.rs`).
    aggregates: "aggregate" => ReqResp(reqresp),
    /// Ping probes (`ping.rs`).
    pings: "ping" => Ping(ping),
    /// UDP constant-bit-rate flows (`udp.rs`).
    udps: "udp" => Udp(udp),
    /// Ouroboros flows driven by ocbr (`ocbr.rs`).
    ocbrs: "ocbr" => Ocbr(ocbr),
    /// Data-center workloads: flow sizes from a CDF, Poisson arrivals (`workload.rs`).
    workloads: "workload" => Workload(workload),
}

/// `from` and `to` of a flow or ping: both required, known hosts, different.
pub fn endpoints(
    ck: &mut Checker,
    t: Tab,
    from: &Key,
    to: &Key,
) -> (Option<String>, Option<String>) {
    let f: Option<String> = ck.need(t, from, "\"s0\"");
    let d: Option<String> = ck.need(t, to, "\"r0\"");
    if let (Some(a), Some(b)) = (&f, &d) {
        if a == b {
            ck.err(
                &join(t.path, to.name),
                t.t.get(to.name),
                format!(
                    "'to' is the same host as 'from' (\"{a}\"): traffic needs two different hosts"
                ),
            );
        }
    }
    (f, d)
}

/// Optional `start`, which must come before the end of the run.
pub fn start(ck: &mut Checker, t: Tab, k: &Key, duration: Option<SimTime>) -> Option<SimTime> {
    let start: Option<SimTime> = ck.get(t, k);
    if let (Some(s), Some(d)) = (start, duration) {
        if s >= d {
            ck.err(
                &join(t.path, k.name),
                t.t.get(k.name),
                format!(
                    "starts at or after the end of the run (sim.duration = {})",
                    units::format_time(d)
                ),
            );
        }
    }
    start
}

/// Summary statistics of samples in seconds: (mean, median, p99, min, max, stddev). The
/// samples are all kept (their count is bounded by the run), so the median and p99 are
/// exact nearest-rank quantiles (`stats::quantile_sorted`).
pub fn summarize(samples: &[SimTime]) -> Option<[f64; 6]> {
    if samples.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = samples.iter().map(|&t| crate::engine::secs(t)).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let pct = |q: f64| crate::stats::quantile_sorted(&v, q).expect("not empty");
    Some([mean, pct(0.5), pct(0.99), v[0], v[v.len() - 1], var.sqrt()])
}
