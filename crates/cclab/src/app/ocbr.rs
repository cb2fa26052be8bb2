//! `[[ocbr]]`: the Ouroboros constant-bit-rate tool (`src/tools/ocbr`, prototype 0.18.0)
//! over one Ouroboros flow (`flow/endpoint.rs`) of the layer's congestion avoidance.
//!
//! The client's writes and the server's loop run per packet, so they are the flow's
//! endpoints (`transport/ocbr.rs`, over `flow/endpoint.rs`): this app configures and starts
//! them, samples the sender's flow-allocator statistics (`stats_every`), and at the end of
//! the run reports what the server printed and each end's flow-allocator statistics file
//! (`flow/text.rs`). Flows are numbered per server from 64 (`PROG_RES_FDS`), as the
//! seed's `Flow 64` and `Flow 65`.

mod result;

pub use result::{FaSample, OcbrInterval, OcbrResult};

use super::Build;
use super::{endpoints, AppCx, AppId, ParseCx, ResultCx};
use crate::conn::{Conn, Ends};
use crate::engine::{secs, SimTime, SEC};
use crate::flow::endpoint::{FlowAddr, FlowReceiver, FlowSender, FLOW_HDR};
use crate::flow::text::{date_time, fa_stat, FaCounters, FaIdentity};
use crate::flow::{FlowCa, FlowCaKind, FLOW_CA_NAMES};
use crate::net::{flow_hash, NodeId};
use crate::results::AppTables;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
use crate::transport::ocbr::{OcbrClient, OcbrConn, OcbrServer, Server};

/// An ocbr client and server over one flow.
#[derive(Clone, Debug, PartialEq)]
pub struct OcbrSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    /// The client stops writing (ocbr's `-d` after the start).
    pub stop: SimTime,
    /// SDU bytes per packet (`-s`).
    pub size: u32,
    /// Bits per second of SDU (`-r`), unless `flood`.
    pub rate: u64,
    pub flood: bool,
    /// The server's report interval (`-i`).
    pub interval: SimTime,
    /// The layer's congestion avoidance (one of `FLOW_CA_NAMES`).
    pub ca: String,
    /// The sending IPCP's time per packet; 0: only the NIC's frame time limits it.
    pub packet_time: SimTime,
    /// Probability that a FLOW_UPDATE is lost on its way to the sender.
    pub update_loss: f64,
    /// Sample the sender's flow-allocator statistics this often (`None`: only at the end).
    pub stats_every: Option<SimTime>,
    /// Packets the kernel holds below every IPCP's ring, out of the marker's sight.
    pub kernel_queue: u64,
}

pub type Spec = OcbrSpec;
pub type App = Box<Ocbr>;
pub const DEFAULT: &str = "none";
pub const MEANING: &str = "Ouroboros flows driven by the ocbr tool (seed 002)";

const FROM: Key = Key {
    name: "from",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "",
    meaning: "the client's host",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "a host name other than `from`",
    meaning: "the server's host",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "before `sim.duration`",
    meaning: "the client's first write",
};
const DURATION: Key = Key {
    name: "duration",
    ty: Ty::Interval,
    default: "`\"60s\"`",
    allowed: "greater than zero",
    meaning: "how long the client writes (ocbr's `-d`)",
};
const SIZE: Key = Key {
    name: "size",
    ty: Ty::Bytes(1, 8900),
    default: "`1000`",
    allowed: "",
    meaning: "bytes per packet (ocbr's `-s`)",
};
const RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: "`\"1Mbit\"`",
    allowed: "",
    meaning: "the client's rate without `flood` (ocbr's `-r`)",
};
const FLOOD: Key = Key {
    name: "flood",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "write as fast as the flow takes packets (ocbr's `-f`)",
};
const INTERVAL: Key = Key {
    name: "interval",
    ty: Ty::Interval,
    default: "`\"1s\"`",
    allowed: "greater than zero",
    meaning: "the server's report interval (ocbr's `-i`; the seed used 100 ms)",
};
const PACKET_TIME: Key = Key {
    name: "packet_time",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "",
    meaning: "the sending IPCP's time per packet (its user-space path); the flow's packets leave at most one per this time or per the NIC's frame time, whichever is longer",
};
const UPDATE_LOSS: Key = Key {
    name: "update_loss",
    ty: Ty::Prob,
    default: "`0`",
    allowed: "",
    meaning: "probability that a FLOW_UPDATE is lost on its way back (each independently, from the run's seed)",
};
const STATS_EVERY: Key = Key {
    name: "stats_every",
    ty: Ty::Interval,
    default: "none",
    allowed: "greater than zero",
    meaning: "also record the sender's flow-allocator statistics this often (summary.json `ocbr[].stats_series`)",
};
const KERNEL_QUEUE: Key = Key {
    name: "kernel_queue",
    ty: Ty::Int(0, 100_000),
    default: "`0`",
    allowed: "the same for every `[[ocbr]]` (one layer)",
    meaning: "packets of each port's queue that the kernel holds below the IPCP's ring (an eth IPCP's raw socket takes frames while its send buffer is under half full), which the layer's ECN marking does not see: the marker counts the queue less these",
};
const CA: Key = Key {
    name: "ca",
    ty: Ty::Str,
    default: "`\"mb-ecn\"`",
    allowed: "`mb-ecn`, `mb-ecn-blog`, `mb-ecn-current`, `nop`; the same for every `[[ocbr]]` (one layer)",
    meaning: "the layer's congestion avoidance (`irm ipcp bootstrap … congestion`)",
};

/// `[[ocbr]]`.
pub static KEYS: Schema = Schema {
    title: "[[ocbr]]",
    place: "[[ocbr]]",
    noun: "ocbr",
    about: "",
    keys: &[
        FROM,
        TO,
        START,
        DURATION,
        SIZE,
        RATE,
        FLOOD,
        INTERVAL,
        CA,
        PACKET_TIME,
        UPDATE_LOSS,
        STATS_EVERY,
        KERNEL_QUEUE,
    ],
    with: &[],
    variants: None,
};

/// Read every `[[ocbr]]`.
pub fn parse(ck: &mut Checker, root: Tab, table: &str, cx: &ParseCx) -> Option<Vec<OcbrSpec>> {
    let duration = cx.duration;
    let tables = ck.array_of_tables(root, table).unwrap_or_default();
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let (from, to) = endpoints(ck, t, &FROM, &TO);
        let start = super::start(ck, t, &START, duration).unwrap_or(0);
        let d: SimTime = ck.get(t, &DURATION).unwrap_or(60 * SEC);
        let interval: SimTime = ck.get(t, &INTERVAL).unwrap_or(SEC);
        ck.check_samples(t, INTERVAL.name, interval, duration);
        let stats_every: Option<SimTime> = ck.get(t, &STATS_EVERY);
        if let Some(every) = stats_every {
            ck.check_samples(t, STATS_EVERY.name, every, duration);
        }
        let ca: String = ck.get(t, &CA).unwrap_or_else(|| "mb-ecn".to_string());
        if FlowCaKind::by_name(&ca).is_none() {
            let names: Vec<&str> = FLOW_CA_NAMES.iter().map(|(n, _)| *n).collect();
            ck.err(
                &join(t.path, CA.name),
                t.t.get(CA.name),
                format!(
                    "unknown congestion avoidance; allowed: {}",
                    names.join(", ")
                ),
            );
        }
        let size: u32 = ck.get(t, &SIZE).unwrap_or(1000);
        let rate: u64 = ck.get(t, &RATE).unwrap_or(1_000_000);
        let flood: bool = ck.get(t, &FLOOD).unwrap_or(false);
        if let (false, Some(end)) = (flood, duration) {
            // A flood is paced by the flow's window; a rate is not.
            let per_s = rate as f64 / (8.0 * size as f64);
            let time = start.saturating_add(d).min(end).saturating_sub(start);
            let how = format!(
                "{} in packets of size = {size} B",
                crate::schema::units::format_rate(rate)
            );
            ck.check_app_packets(t, RATE.name, &how, per_s, time, cx.max_app_packets);
        }
        out.push(OcbrSpec {
            from: from.unwrap_or_default(),
            to: to.unwrap_or_default(),
            start,
            stop: start.saturating_add(d),
            size,
            rate,
            flood,
            interval,
            ca,
            packet_time: ck.get(t, &PACKET_TIME).unwrap_or(0),
            update_loss: ck.get(t, &UPDATE_LOSS).unwrap_or(0.0),
            stats_every,
            kernel_queue: ck.get::<i64>(t, &KERNEL_QUEUE).unwrap_or(0) as u64,
        });
    }
    if let Some(first) = out.first() {
        if let Some((i, o)) = out.iter().enumerate().find(|(_, o)| o.ca != first.ca) {
            let path = format!("{table}.{i}");
            ck.err(
                &join(&path, CA.name),
                None,
                format!(
                    "\"{}\" where ocbr.0 has \"{}\": the flows share one layer, which has one policy",
                    o.ca, first.ca
                ),
            );
        }
    }
    Some(out)
}

const STATS: u32 = 0;

/// An ocbr flow's app: its endpoints hold the flow's state.
pub struct Ocbr {
    pub id: AppId,
    /// The flow's connection slot.
    pub conn: u32,
    pub from: NodeId,
    pub to: NodeId,
    pub spec: OcbrSpec,
    started: SimTime,
    series: Vec<FaSample>,
}

impl Ocbr {
    /// The flow-allocator file of end `end` (0 the client's, 1 the server's).
    fn fa_file(&self, end: u64, c: FaCounters, ca: &FlowCa) -> String {
        let peer = if end == 0 { self.to } else { self.from };
        let id = FaIdentity {
            established: date_time(self.started / SEC),
            remote_address: peer as u64 + 1,
            local_eid: eid(self.id, end),
            remote_eid: eid(self.id, 1 - end),
        };
        fa_stat(&id, &c, ca)
    }

    /// Both ends of its flow.
    fn ends<'a>(&self, conns: &'a [Conn]) -> Option<&'a OcbrConn> {
        match conns.get(self.conn as usize).and_then(Conn::ends) {
            Some(Ends::Ocbr(c)) => Some(c),
            _ => None,
        }
    }

    /// Record the sender's statistics now.
    fn sample(&mut self, now: SimTime, conns: &[Conn]) {
        let Some(c) = self.ends(conns) else { return };
        let s = &c.client.flow;
        let mut f = FaSample {
            t: secs(now),
            sent_packets: s.p_snd,
            sent_bytes: s.b_snd,
            upstream_level: 0,
            downstream_level: 0,
            window_ns: 0,
            packets_in_window: 0,
            bytes_in_window: 0,
            max_bytes_in_window: 0,
            regime: "none".into(),
        };
        if let FlowCa::MbEcn(c) = &s.ca {
            f.downstream_level = c.tx_ece;
            f.window_ns = c.window_ns();
            f.packets_in_window = c.tx_wpc;
            f.bytes_in_window = c.tx_wbc;
            f.max_bytes_in_window = c.tx_wbl;
            f.regime = c.regime().into();
        }
        if let FlowCa::MbEcn(c) = &c.server.flow.ca {
            f.upstream_level = c.rx_ece;
        }
        self.series.push(f);
    }
}

impl super::App for Ocbr {
    fn start(&mut self, cx: &mut AppCx) {
        self.started = self.spec.start;
        cx.open(self.conn);
        if let Some(e) = self.spec.stats_every {
            cx.wake(self.spec.start + e, STATS);
        }
    }

    fn on_event(&mut self, _tag: u32, cx: &mut AppCx) {
        self.sample(cx.now, cx.conns);
        if let Some(e) = self.spec.stats_every {
            cx.wake(cx.now + e, STATS);
        }
    }

    fn declare(t: &mut AppTables) {
        t.declare::<OcbrResult>();
    }

    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        let Some(c) = self.ends(cx.conns) else { return };
        // The loop goes on timing out until the end of the run.
        let (server, intervals) = c.server.server.output_at(cx.now);
        let dur = secs(cx.now.saturating_sub(self.started).max(1));
        let (s, rc) = (&c.client.flow, &c.server.flow);
        let sent_file = self.fa_file(
            0,
            FaCounters {
                p_snd: s.p_snd,
                b_snd: s.b_snd,
                ..FaCounters::default()
            },
            &s.ca,
        );
        let recv_file = self.fa_file(
            1,
            FaCounters {
                p_rcv: rc.p_rcv,
                b_rcv: rc.b_rcv,
                p_snd: rc.updates,
                ..FaCounters::default()
            },
            &rc.ca,
        );
        out.push(OcbrResult {
            from: self.spec.from.clone(),
            to: self.spec.to.clone(),
            fd: c.server.server.fd,
            size: self.spec.size,
            flood: self.spec.flood,
            rate_bps: self.spec.rate,
            ca: self.spec.ca.clone(),
            sent: s.p_snd,
            received: rc.p_rcv,
            lost: rc.next_seq.saturating_sub(rc.p_rcv),
            goodput_bps: rc.b_rcv as f64 * 8.0 / dur,
            flow_updates_sent: rc.updates,
            flow_updates_received: s.updates,
            flow_updates_lost: c.server.updates_lost,
            ca_wait_s: secs(s.slept),
            windows: s
                .ca
                .windows()
                .map(|w| [w.slow_start, w.decrease, w.increase, w.hold]),
            intervals,
            server,
            sender_stats: sent_file,
            receiver_stats: recv_file,
            stats_series: self.series.clone(),
        });
    }
}

/// An endpoint id as `gen_eid` makes them, a random 32-bit value above the fd: ours from
/// the app's index, so runs are reproducible.
fn eid(app: AppId, end: u64) -> u64 {
    let x = (app as u64 * 2 + end + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x >> 32) << 32 | (64 + app as u64)
}

/// One app per `[[ocbr]]`.
pub fn build(specs: &[OcbrSpec], w: &mut dyn Build) -> Result<(), String> {
    let mut per_server: std::collections::BTreeMap<NodeId, u32> = Default::default();
    for (i, s) in specs.iter().enumerate() {
        let id = w.next_app();
        let (from, to) = (w.host(&s.from)?, w.host(&s.to)?);
        let hash = flow_hash(from, to, 0, id as u16, 0);
        if !w.reaches(from, to, hash) || !w.reaches(to, from, hash) {
            return Err(format!(
                "ocbr.{i} ({} → {}): no route between them (hosts do not forward; is a link missing?)",
                s.from, s.to
            ));
        }
        let kind = FlowCaKind::by_name(&s.ca).ok_or_else(|| format!("ocbr.{i}: unknown ca"))?;
        w.set_flow_marking(kind, s.kernel_queue);
        let frame_time = w
            .frame_time(from, to, hash, s.size + FLOW_HDR)
            .max(s.packet_time);
        // The client host's monotonic clock: MB-ECN aligns its windows to it. A host's
        // clock started at some time before the run (its boot), drawn from the seed.
        let clock_ns = w.host_clock_ns(from);
        let conn = w.next_conn();
        let addr = FlowAddr {
            conn,
            src: from,
            dst: to,
            hash,
        };
        let fd = per_server.entry(to).or_insert(64);
        let server = Server::new(*fd, s.interval);
        *fd += 1;
        let gap = (s.size as u128 * 8 * SEC as u128 / s.rate.max(1) as u128).max(1) as SimTime;
        let sender = FlowSender::new(
            kind.new_ctx(clock_ns),
            addr,
            s.size,
            false,
            clock_ns,
            frame_time,
        );
        let receiver = FlowReceiver::new(kind.new_ctx(clock_ns), addr);
        let ends = OcbrConn {
            client: OcbrClient::new(sender, (s.start, s.stop), gap, s.flood),
            server: OcbrServer::new(receiver, server, s.update_loss, w.app_rng(id)),
        };
        w.add_conn(Conn::new(Ends::Ocbr(ends)), from, to, id);
        w.push_app(super::AnyApp::Ocbr(Box::new(Ocbr {
            id,
            conn,
            from,
            to,
            spec: s.clone(),
            started: 0,
            series: Vec::new(),
        })));
    }
    Ok(())
}
