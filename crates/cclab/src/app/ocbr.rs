//! `[[ocbr]]`: the Ouroboros constant-bit-rate tool (`src/tools/ocbr`, prototype 0.18.0)
//! over one Ouroboros flow (`flow/endpoint.rs`) of the layer's congestion avoidance.
//!
//! - **Client** (`ocbr_client.c`): writes `size` bytes (`-s`, default 1000) and then sleeps
//!   `size · 8 / rate` (`-r`, default 1 Mbit/s; the time the write took is not
//!   compensated), or with `flood` (`-f`) writes as fast as the flow takes them; from
//!   `start` until `stop` (`-d`, default 60 s after the start). A write blocks while the
//!   flow's ring of 1024 packets is full.
//! - **Server** (`ocbr_server.c`, `handle_flow`): a loop that reads the clock, reads one
//!   packet (a read gives up after 100 ms, `FLOWSRCVTIMEO`), counts it, and — with the
//!   clock value read *before* the read — prints the interval once `ts_diff_ms(now,
//!   iv_end) < 0`: `us = ts_diff_us(iv_start, now)`, then the next interval starts at the
//!   old end. `ts_diff_ms` truncates the nanosecond difference to whole ms, so a line is
//!   printed only when the clock is a full millisecond past the interval's end (less
//!   when a second boundary falls in between): that is why the seed's 100 ms intervals
//!   print as `101 ms`. The clock is `CLOCK_REALTIME`; ours starts at the Unix epoch with
//!   the run. Flows are numbered per server from 64 (`PROG_RES_FDS`), as the seed's
//!   `Flow 64` and `Flow 65`. *[Chosen: flow allocation is not simulated; the server
//!   accepts the flow ("New flow.") when its first packet arrives.]*
//! - At the end of the run the app writes each end's flow-allocator statistics file
//!   (`flow/text.rs`).

mod result;

pub use result::{FaSample, OcbrInterval, OcbrResult};

use super::Build;
use super::{endpoints, AppCx, AppId, ParseCx, ResultCx};
use crate::engine::{secs, SimTime, MS, NS, SEC};
use crate::flow::endpoint::{FlowAddr, FlowIo, FlowReceiver, FlowSender, FLOW_HDR, FLOW_UPDATE};
use crate::flow::text::{date_time, fa_stat, ocbr_line, FaCounters, FaIdentity};
use crate::flow::{FlowCa, FlowCaKind, FLOW_CA_NAMES};
use crate::net::{flow_hash, NodeId};
use crate::packet::Packet;
use crate::results::AppTables;
use crate::schema::check::{join, Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};

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

/// A clock reading as `struct timespec` (seconds, nanoseconds) of `CLOCK_REALTIME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ts {
    sec: i64,
    nsec: i64,
}

impl Ts {
    fn at(t: SimTime) -> Ts {
        let ns = (t / NS) as i64;
        Ts {
            sec: ns / 1_000_000_000,
            nsec: ns % 1_000_000_000,
        }
    }
    fn add(self, d: SimTime) -> Ts {
        let n = self.nsec + (d / NS) as i64;
        Ts {
            sec: self.sec + n / 1_000_000_000,
            nsec: n % 1_000_000_000,
        }
    }
    #[cfg(test)]
    fn sim(self) -> SimTime {
        (self.sec * 1_000_000_000 + self.nsec) as SimTime * NS
    }
}

/// `ts_diff_ms(t0, tx)` and `ts_diff_us(t0, tx)` of `time_utils.h`: the second and
/// nanosecond differences apart, the latter truncated toward zero.
fn ts_diff_ms(t0: Ts, tx: Ts) -> i64 {
    (tx.sec - t0.sec) * 1000 + (tx.nsec - t0.nsec) / 1_000_000
}
fn ts_diff_us(t0: Ts, tx: Ts) -> i64 {
    (tx.sec - t0.sec) * 1_000_000 + (tx.nsec - t0.nsec) / 1000
}

/// The read timeout of the server's loop (`tic`).
const TIC: SimTime = 100 * MS;

/// `handle_flow`'s loop for one flow.
#[derive(Debug)]
struct Server {
    fd: u32,
    interval: SimTime,
    /// When the loop's current read began (its `now`).
    read_since: Option<SimTime>,
    iv_start: Ts,
    iv_end: Ts,
    packets: u64,
    bytes: u64,
    packets_intv: u64,
    bytes_intv: u64,
    lines: Vec<String>,
    intervals: Vec<OcbrInterval>,
}

impl Server {
    /// One pass of the loop that began at `now`, having read `got` bytes (None: timed
    /// out).
    fn pass(&mut self, now: SimTime, got: Option<u32>) {
        if let Some(b) = got {
            self.packets += 1;
            self.bytes += b as u64;
        }
        let n = Ts::at(now);
        if ts_diff_ms(n, self.iv_end) < 0 {
            let us = ts_diff_us(self.iv_start, n).max(1) as u64;
            let (p, b) = (
                self.packets - self.packets_intv,
                self.bytes - self.bytes_intv,
            );
            self.lines.push(ocbr_line(self.fd, p, b, us));
            self.intervals.push(OcbrInterval {
                end_s: secs(now),
                packets: p,
                bytes: b,
                us,
                mbps: 8.0 * b as f64 / us as f64,
            });
            self.iv_start = self.iv_end;
            self.packets_intv = self.packets;
            self.bytes_intv = self.bytes;
            self.iv_end = self.iv_start.add(self.interval);
        }
    }

    /// Run the loop's passes that time out before `t`.
    fn idle_until(&mut self, t: SimTime) {
        if let Some(mut s) = self.read_since {
            while t > s + TIC {
                self.pass(s, None);
                s += TIC;
            }
            self.read_since = Some(s);
        }
    }

    /// A packet of `bytes` arrived at `t`.
    fn arrive(&mut self, t: SimTime, bytes: u32) {
        match self.read_since {
            None => {
                self.lines.push("New flow.".to_string());
                self.iv_start = Ts::at(t);
                self.iv_end = self.iv_start.add(self.interval);
                self.pass(t, Some(bytes));
            }
            Some(_) => {
                self.idle_until(t);
                let s = self.read_since.unwrap_or(t);
                self.pass(s, Some(bytes));
            }
        }
        self.read_since = Some(t);
    }
}

const WRITE: u32 = 0;
const FLOW: u32 = 1;
const STATS: u32 = 2;

pub struct Ocbr {
    pub id: AppId,
    pub from: NodeId,
    pub to: NodeId,
    pub spec: OcbrSpec,
    gap: SimTime,
    pub sender: FlowSender,
    pub receiver: FlowReceiver,
    io: FlowIo,
    server: Server,
    /// The client's write is blocked on a full ring.
    blocked: bool,
    started: SimTime,
    /// Draws for FLOW_UPDATE loss.
    rng: crate::engine::Rng,
    updates_lost: u64,
    series: Vec<FaSample>,
}

impl Ocbr {
    fn flush(&mut self, cx: &mut AppCx) {
        for p in self.io.tx.drain(..) {
            cx.send(p.src, p);
        }
        if let Some(t) = self.io.wake.take() {
            cx.wake(t, FLOW);
        }
    }

    /// The client's write at `now`, then its sleep (`-r`); blocked on a full ring, it
    /// goes on when the flow's thread takes a packet.
    fn write(&mut self, cx: &mut AppCx) {
        if cx.now >= self.spec.stop {
            return;
        }
        if self.sender.write(cx.now, &mut self.io) {
            cx.wake(cx.now + self.gap, WRITE);
        } else {
            self.blocked = true;
        }
    }
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

    /// Record the sender's statistics now.
    fn sample(&mut self, now: SimTime) {
        let s = &self.sender;
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
        if let FlowCa::MbEcn(c) = &self.receiver.ca {
            f.upstream_level = c.rx_ece;
        }
        self.series.push(f);
    }
}

impl super::App for Ocbr {
    fn start(&mut self, cx: &mut AppCx) {
        self.started = self.spec.start;
        cx.wake(self.spec.start, WRITE);
        cx.wake(self.spec.stop, WRITE);
        if let Some(e) = self.spec.stats_every {
            cx.wake(self.spec.start + e, STATS);
        }
    }

    fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
        match tag {
            WRITE if cx.now >= self.spec.stop => {
                // The client is done; what its ring holds still goes out.
                self.sender.stop_flood();
            }
            WRITE if self.spec.flood => self.sender.flood(cx.now, &mut self.io),
            WRITE => self.write(cx),
            STATS => {
                self.sample(cx.now);
                if let Some(e) = self.spec.stats_every {
                    cx.wake(cx.now + e, STATS);
                }
            }
            _ => {
                self.sender.on_timer(cx.now, &mut self.io);
                if self.blocked && self.sender.has_room() {
                    self.blocked = false;
                    self.write(cx);
                }
            }
        }
        self.flush(cx);
    }

    /// A flow packet for this app: data at the server, or a FLOW_UPDATE at the client.
    fn on_message(&mut self, p: &Packet, cx: &mut AppCx) {
        if p.flags & FLOW_UPDATE != 0 {
            self.sender.on_update(p.ack as u16);
            return;
        }
        self.receiver.on_packet(cx.now, p, &mut self.io);
        if self.spec.update_loss > 0.0 {
            // FLOW_UPDATEs lost on their way back, each with probability update_loss.
            let (rng, q, lost) = (&mut self.rng, self.spec.update_loss, &mut self.updates_lost);
            self.io.tx.retain(|u| {
                let keep = u.flags & FLOW_UPDATE == 0 || !rng.bernoulli(q);
                *lost += u64::from(!keep);
                keep
            });
        }
        self.server.arrive(cx.now, p.payload);
        self.flush(cx);
    }

    fn declare(t: &mut AppTables) {
        t.declare::<OcbrResult>();
    }

    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        let mut server = self.server.lines.clone();
        let mut intervals = self.server.intervals.clone();
        // The loop goes on timing out until the end of the run.
        let mut tail = self.server.clone_state();
        tail.idle_until(cx.now);
        server.append(&mut tail.lines);
        intervals.append(&mut tail.intervals);
        let dur = secs(cx.now.saturating_sub(self.started).max(1));
        let (s, rc) = (&self.sender, &self.receiver);
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
            fd: self.server.fd,
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
            flow_updates_lost: self.updates_lost,
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

impl Server {
    /// Flow `fd`'s loop before its first packet.
    fn new(fd: u32, interval: SimTime) -> Server {
        Server {
            fd,
            interval,
            read_since: None,
            iv_start: Ts::at(0),
            iv_end: Ts::at(0),
            packets: 0,
            bytes: 0,
            packets_intv: 0,
            bytes_intv: 0,
            lines: Vec::new(),
            intervals: Vec::new(),
        }
    }

    /// The loop's state without what it printed so far.
    fn clone_state(&self) -> Server {
        Server {
            read_since: self.read_since,
            iv_start: self.iv_start,
            iv_end: self.iv_end,
            packets: self.packets,
            bytes: self.bytes,
            packets_intv: self.packets_intv,
            bytes_intv: self.bytes_intv,
            ..Server::new(self.fd, self.interval)
        }
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
        let addr = FlowAddr {
            app: id,
            src: from,
            dst: to,
            hash,
        };
        let fd = per_server.entry(to).or_insert(64);
        let server = Server::new(*fd, s.interval);
        *fd += 1;
        let gap = (s.size as u128 * 8 * SEC as u128 / s.rate.max(1) as u128).max(1) as SimTime;
        w.push_app(super::AnyApp::Ocbr(Box::new(Ocbr {
            id,
            from,
            to,
            spec: s.clone(),
            gap,
            sender: FlowSender::new(
                kind.new_ctx(clock_ns),
                addr,
                s.size,
                false,
                clock_ns,
                frame_time,
            ),
            receiver: FlowReceiver::new(kind.new_ctx(clock_ns), addr),
            io: FlowIo::default(),
            server,
            blocked: false,
            started: 0,
            rng: w.app_rng(id),
            updates_lost: 0,
            series: Vec::new(),
        })));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ts_diff_ms` truncates: 0.9 ms past the end is not yet past it; 1.0 ms is; across a
    /// second boundary 0.5 ms is enough (−1000 + 999).
    #[test]
    fn the_servers_clock_arithmetic_is_cs() {
        let end = Ts {
            sec: 5,
            nsec: 50_000_000,
        };
        assert_eq!(
            ts_diff_ms(
                Ts {
                    sec: 5,
                    nsec: 50_900_000
                },
                end
            ),
            0
        );
        assert_eq!(
            ts_diff_ms(
                Ts {
                    sec: 5,
                    nsec: 51_000_000
                },
                end
            ),
            -1
        );
        let end = Ts {
            sec: 4,
            nsec: 999_500_000,
        };
        assert_eq!(ts_diff_ms(Ts { sec: 5, nsec: 0 }, end), -1);
        assert_eq!(Ts::at(5 * SEC + 7 * NS).add(SEC - 7 * NS).sim(), 6 * SEC);
    }

    /// A packet every 100 µs from t = 0 with 100 ms intervals: the first line is printed
    /// by the read that began at 101.0 ms (the first clock value a whole ms past 100 ms),
    /// counts the packets up to and including the one read then, and says 101 ms.
    #[test]
    fn intervals_print_a_millisecond_late() {
        let mut s = Server::new(64, 100 * MS);
        let step = 100 * crate::engine::US;
        for k in 0..2500u64 {
            s.arrive(k * step, 1000);
        }
        assert_eq!(s.lines[0], "New flow.");
        // The pass that began at 101.0 ms read the packet of 101.1 ms: 1012 packets.
        assert_eq!(s.lines[1], ocbr_line(64, 1012, 1_012_000, 101_000));
        assert_eq!(s.intervals[0].us, 101_000);
        // The next interval starts at 100 ms (the old end), not at 101.
        assert_eq!(s.intervals[1].us, 101_000);
        assert_eq!(s.intervals[1].packets, 1000);
    }
}
