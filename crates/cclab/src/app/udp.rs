//! `[[udp]]`: a constant-bit-rate UDP sender and its receiver, as `iperf -u -b RATE -l LEN`
//! (iperf 2) with the receiving host's IPv4 reassembly in between.
//!
//! - **Sender** (iperf 2's `-u`): a datagram of `len` bytes of UDP payload every
//!   `len · 8 / rate` seconds, evenly spaced (iperf 2 sleeps between writes; no jitter
//!   added), each carrying its sequence number and send time (iperf's `UDP_datagram`
//!   header: id, tv_sec, tv_usec).
//! - **Fragmentation** (Linux `ip_fragment`/`ip_do_fragment`): a datagram whose IP packet
//!   (20 B IP + 8 B UDP + `len`) exceeds the MTU (1500) leaves as fragments carrying at
//!   most MTU − 20 = 1480 bytes of the IP payload each, a multiple of 8, every fragment
//!   with its own 20-byte IP header; the UDP header travels in the first. The fragments go
//!   into the host's qdisc back to back, like any packets.
//! - **Reassembly** (Linux `ip_defrag`, `net/ipv4/ip_fragment.c` and
//!   `net/ipv4/inet_fragment.c` since 4.17): a datagram is delivered when all its
//!   fragments have arrived, in any order; a queue that is still incomplete
//!   `ipfrag_time` (30 s) after its first fragment expires and its memory is freed. Memory:
//!   while the fragments held exceed `ipfrag_high_thresh` (4 MiB), every arriving
//!   fragment is dropped (`inet_frag_find` gives no queue), which is how a lossy path makes
//!   a fragmenting sender lose everything for up to 30 s. Held memory is counted as the
//!   fragments' IP lengths *[chosen: Linux counts skb truesize, which depends on the
//!   driver's buffers; the IP length is its lower bound]*.
//! - **Receiver report** (iperf 2's server): per `interval`, the bytes of the datagrams
//!   received, their rate, the jitter (RFC 1889's smoothed |D|: J += (|D| − J)/16 over the
//!   transit times, sender timestamp to arrival), and lost/total datagrams from the gaps
//!   in the sequence numbers, printed in iperf's format.

use super::Build;
use super::{endpoints, AppCx, AppId, ParseCx, ResultCx};
use crate::engine::{secs, SimTime, SEC};
use crate::net::{flow_hash, NodeId};
use crate::packet::{Packet, PktKind, NOT_ECT};
use crate::results::apps::{AppRow, Report};
use crate::results::table::{floats, ints, strs, Table};
use crate::results::AppTables;
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
use serde::Serialize;

/// The path MTU of the sending host's link.
pub const MTU: u32 = 1500;
pub const IP_HDR: u32 = 20;
pub const UDP_HDR: u32 = 8;
/// Linux's `ipfrag_time` and `ipfrag_high_thresh` defaults.
pub const IPFRAG_TIME: SimTime = 30 * SEC;
pub const IPFRAG_HIGH_THRESH: u64 = 4 << 20;

/// A UDP constant-bit-rate flow.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    /// `None`: until the end of the run.
    pub stop: Option<SimTime>,
    /// UDP payload rate, bit/s (iperf's `-b`).
    pub rate: u64,
    /// UDP payload per datagram, bytes (iperf's `-l`).
    pub len: u32,
    /// The receiver's report interval (iperf's `-i`).
    pub interval: SimTime,
}

/// This app's scenario entry.
pub type Spec = UdpSpec;
/// This app as the app table holds it.
pub type App = Box<Udp>;
pub const DEFAULT: &str = "none";
pub const MEANING: &str = "UDP constant-bit-rate flows (iperf -u)";

const FROM: Key = Key {
    name: "from",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "",
    meaning: "the sending host",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "a host name other than `from`",
    meaning: "the receiving host",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "before `sim.duration`",
    meaning: "first datagram",
};
const STOP: Key = Key {
    name: "stop",
    ty: Ty::Time,
    default: "the end of the run",
    allowed: "after `start`",
    meaning: "no datagram is sent from then on",
};
const RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: REQUIRED,
    allowed: "",
    meaning: "the UDP payload rate (iperf's `-b`; iperf's `m` is 10⁶ bit/s, as `Mbit` here)",
};
const LEN: Key = Key {
    name: "len",
    ty: Ty::Bytes(1, 65_507),
    default: "`1470`",
    allowed: "",
    meaning: "UDP payload per datagram (iperf's `-l`; iperf's `45k` is 46,080 bytes, `\"45KiB\"` here); above 1472 the datagram is fragmented at the 1500-byte MTU",
};
const INTERVAL: Key = Key {
    name: "interval",
    ty: Ty::Interval,
    default: "`\"1s\"`",
    allowed: "greater than zero",
    meaning: "the receiver's report interval (iperf's `-i`)",
};

/// `[[udp]]`.
pub static KEYS: Schema = Schema {
    title: "[[udp]]",
    place: "[[udp]]",
    noun: "udp",
    about: "",
    keys: &[FROM, TO, START, STOP, RATE, LEN, INTERVAL],
    with: &[],
    variants: None,
};

/// Read every `[[udp]]`.
pub fn parse(ck: &mut Checker, root: Tab, table: &str, cx: &ParseCx) -> Option<Vec<UdpSpec>> {
    let duration = cx.duration;
    let tables = ck.array_of_tables(root, table).unwrap_or_default();
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let (from, to) = endpoints(ck, t, &FROM, &TO);
        let start = super::start(ck, t, &START, duration).unwrap_or(0);
        let stop: Option<SimTime> = ck.get(t, &STOP);
        if let Some(s) = stop {
            if s <= start {
                ck.err(
                    &crate::schema::check::join(t.path, STOP.name),
                    t.t.get(STOP.name),
                    "stops at or before its start".to_string(),
                );
            }
        }
        let rate: Option<u64> = ck.need(t, &RATE, "\"800Mbit\"");
        let interval: SimTime = ck.get(t, &INTERVAL).unwrap_or(SEC);
        ck.check_samples(t, INTERVAL.name, interval, duration);
        let len: u32 = ck.get(t, &LEN).unwrap_or(1470);
        if let (Some(r), Some(d)) = (rate, duration) {
            // Datagrams per second, each in as many IP packets as it has fragments.
            let mut frags = Vec::new();
            fragments(len, MTU, &mut frags);
            let per_s = r as f64 / (8.0 * len as f64) * frags.len() as f64;
            let time = stop.unwrap_or(d).min(d).saturating_sub(start);
            let how = format!(
                "{} in datagrams of len = {len} B{}",
                crate::schema::units::format_rate(r),
                match frags.len() {
                    1 => String::new(),
                    n => format!(", {n} fragments each"),
                }
            );
            ck.check_app_packets(t, RATE.name, &how, per_s, time, cx.max_app_packets);
        }
        out.push(UdpSpec {
            from: from.unwrap_or_default(),
            to: to.unwrap_or_default(),
            start,
            stop,
            rate: rate.unwrap_or(1),
            len,
            interval,
        });
    }
    Some(out)
}

/// The fragments of a datagram of `len` bytes of UDP payload at `mtu`: their IP lengths,
/// in order (one, unfragmented, when the IP packet fits).
pub fn fragments(len: u32, mtu: u32, out: &mut Vec<u32>) {
    out.clear();
    let mut rest = UDP_HDR + len; // the IP payload
    let per = (mtu - IP_HDR) / 8 * 8;
    while rest > 0 {
        let n = if rest > mtu - IP_HDR { per } else { rest };
        out.push(IP_HDR + n);
        rest -= n;
    }
}

/// One reassembly queue (`struct ipq`).
#[derive(Clone, Copy, Debug, Default)]
struct FragQueue {
    id: u64,
    /// Fragments held, of `count`.
    got: u32,
    count: u32,
    bytes: u64,
    created: SimTime,
    /// The datagram's send time (its first fragment carries iperf's timestamp).
    sent: SimTime,
    live: bool,
}

/// The receiving host's IPv4 reassembly for this flow.
#[derive(Debug, Default)]
pub struct Reassembly {
    /// Queues in creation order (datagrams arrive nearly in order; the oldest expire
    /// first). A ring without hashing: found by a scan from the newest, which is short
    /// because out-of-order arrival spans a few datagrams.
    queues: std::collections::VecDeque<FragQueue>,
    /// Bytes held (`frag_mem_limit`).
    pub mem: u64,
    /// Fragments dropped for memory, queues expired.
    pub dropped_fragments: u64,
    pub expired: u64,
}

impl Reassembly {
    /// Expire what is `IPFRAG_TIME` old (`ip_expire`).
    fn expire(&mut self, now: SimTime) {
        while let Some(q) = self.queues.front() {
            if q.live && now < q.created + IPFRAG_TIME {
                break;
            }
            if q.live {
                self.mem -= q.bytes;
                self.expired += 1;
            }
            self.queues.pop_front();
        }
    }

    /// Fragment `index` of `count` of datagram `id`, `bytes` long, sent at `sent`: the
    /// datagram's send time if it is now complete.
    pub fn receive(
        &mut self,
        id: u64,
        count: u32,
        bytes: u32,
        sent: SimTime,
        now: SimTime,
    ) -> Option<SimTime> {
        self.expire(now);
        if self.mem > IPFRAG_HIGH_THRESH {
            self.dropped_fragments += 1;
            return None;
        }
        if count == 1 {
            return Some(sent); // not fragmented: no queue
        }
        let pos = self.queues.iter().rposition(|q| q.live && q.id == id);
        let i = match pos {
            Some(i) => i,
            None => {
                self.queues.push_back(FragQueue {
                    id,
                    count,
                    created: now,
                    sent,
                    live: true,
                    ..Default::default()
                });
                self.queues.len() - 1
            }
        };
        let q = &mut self.queues[i];
        q.got += 1;
        q.bytes += bytes as u64;
        self.mem += bytes as u64;
        if q.got < q.count {
            return None;
        }
        let (b, s) = (q.bytes, q.sent);
        q.live = false;
        self.mem -= b;
        while self.queues.front().is_some_and(|q| !q.live) {
            self.queues.pop_front();
        }
        Some(s)
    }
}

/// iperf 2's server-side counters for the current interval and the whole run.
#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    bytes: u64,
    datagrams: u64,
    /// Highest sequence number seen, and the first one of the interval.
    max_seq: Option<u64>,
    first_seq: Option<u64>,
    out_of_order: u64,
}

const SEND: u32 = 0;
const REPORT: u32 = 1;

pub struct Udp {
    /// This app's index: its packets carry it in `conn`.
    pub id: AppId,
    pub from: NodeId,
    pub to: NodeId,
    pub spec: UdpSpec,
    /// Datagrams sent.
    pub sent: u64,
    gap: SimTime,
    frags: Vec<u32>,
    pub reasm: Reassembly,
    jitter: f64,
    last_transit: Option<f64>,
    interval: Counters,
    total: Counters,
    total_received: u64,
    interval_start: SimTime,
    intervals: Vec<UdpInterval>,
}

impl Udp {
    /// One finished datagram: iperf 2's `ReportPacket` bookkeeping.
    fn datagram(&mut self, seq: u64, sent: SimTime, now: SimTime) {
        let len = self.spec.len as u64;
        for c in [&mut self.interval, &mut self.total] {
            c.bytes += len;
            c.datagrams += 1;
            c.first_seq.get_or_insert(seq);
            match c.max_seq {
                Some(m) if seq < m => c.out_of_order += 1,
                _ => c.max_seq = Some(seq),
            }
        }
        self.total_received += 1;
        // RFC 1889 §6.3.1 / A.8: transit times in seconds; J += (|D| − J)/16.
        let transit = secs(now) - secs(sent);
        if let Some(last) = self.last_transit {
            let d = (transit - last).abs();
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.last_transit = Some(transit);
    }

    /// Close the interval ending now, as iperf prints it.
    fn report(&mut self, now: SimTime) {
        let c = self.interval;
        let (lost, total) = match (c.first_seq, c.max_seq) {
            (Some(f), Some(m)) => {
                // An interval with nothing new starts after its last datagram (f = m + 1):
                // none, not a wrapped subtraction.
                let total = (m + 1).saturating_sub(f);
                (total.saturating_sub(c.datagrams), total)
            }
            _ => (0, 0),
        };
        self.intervals.push(UdpInterval {
            start_s: secs(self.interval_start),
            end_s: secs(now),
            bytes: c.bytes,
            mbps: c.bytes as f64 * 8.0 / secs(now - self.interval_start) / 1e6,
            jitter_ms: self.jitter * 1e3,
            lost,
            total,
        });
        self.interval = Counters {
            // The next interval counts from the datagram after the last one seen.
            first_seq: c.max_seq.map(|m| m + 1),
            max_seq: c.max_seq,
            ..Default::default()
        };
        self.interval_start = now;
    }
}

/// iperf 2's line for an interval: `[  3]  0.0- 1.0 sec  95.4 MBytes   800 Mbits/sec
/// 0.012 ms    0/ 2170 (0%)`.
pub fn iperf_line(i: &UdpInterval) -> String {
    let mbytes = i.bytes as f64 / (1024.0 * 1024.0);
    let pct = if i.total > 0 {
        100.0 * i.lost as f64 / i.total as f64
    } else {
        0.0
    };
    format!(
        "[  3] {:4.1}-{:4.1} sec  {:5.1} MBytes  {:4.0} Mbits/sec  {:6.3} ms {:4}/{:5} ({}%)",
        i.start_s,
        i.end_s,
        mbytes,
        i.mbps,
        i.jitter_ms,
        i.lost,
        i.total,
        g2(pct)
    )
}

/// C's `%.2g`: two significant digits, trailing zeros dropped, an exponent from 100 up.
fn g2(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let e = x.abs().log10().floor() as i32;
    if e >= 2 {
        let m = x / 10f64.powi(e);
        let m = format!("{m:.1}");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e+{e:02}");
    }
    let digits = (1 - e).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').into()
    } else {
        s
    }
}

impl super::App for Udp {
    fn start(&mut self, cx: &mut AppCx) {
        cx.wake(self.spec.start, SEND);
        cx.wake(self.spec.start + self.spec.interval, REPORT);
        self.interval_start = self.spec.start;
    }

    fn on_event(&mut self, tag: u32, cx: &mut AppCx) {
        if tag == REPORT {
            self.report(cx.now);
            cx.wake(cx.now + self.spec.interval, REPORT);
            return;
        }
        if self.spec.stop.is_some_and(|s| cx.now >= s) {
            return;
        }
        fragments(self.spec.len, MTU, &mut self.frags);
        let count = self.frags.len() as u32;
        for (i, &size) in self.frags.iter().enumerate() {
            let mut p = Packet::blank();
            p.kind = PktKind::Udp;
            p.src = self.from;
            p.dst = self.to;
            p.conn = self.id;
            p.size = size;
            p.payload = size - IP_HDR;
            p.ecn = NOT_ECT;
            p.hash = flow_hash(self.from, self.to, 5001, self.id as u16, 17);
            p.born = cx.now;
            p.seq = self.sent;
            // Fragment index and count (the IP header's offset and MF bit, as numbers).
            p.ack = (i as u64) << 32 | count as u64;
            p.ip_id = self.sent as u16;
            cx.send(self.from, p);
        }
        self.sent += 1;
        cx.wake(cx.now + self.gap, SEND);
    }

    /// A fragment (or a whole datagram) reached the receiving host.
    fn on_message(&mut self, p: &Packet, cx: &mut AppCx) {
        let count = (p.ack & 0xffff_ffff) as u32;
        if let Some(sent) = self.reasm.receive(p.seq, count, p.size, p.born, cx.now) {
            self.datagram(p.seq, sent, cx.now);
        }
    }

    fn declare(t: &mut AppTables) {
        t.declare::<UdpResult>();
    }

    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        let c = self.total;
        let dur = cx.now.saturating_sub(self.spec.start).max(1);
        // iperf 2's final report counts against the last datagram the client sent (its
        // closing datagrams carry that number).
        let lost = self.sent.saturating_sub(self.total_received);
        out.push(UdpResult {
            from: self.spec.from.clone(),
            to: self.spec.to.clone(),
            rate_bps: self.spec.rate,
            len: self.spec.len,
            fragments_per_datagram: {
                let mut f = Vec::new();
                fragments(self.spec.len, MTU, &mut f);
                f.len() as u32
            },
            sent: self.sent,
            received: self.total_received,
            lost,
            loss_pct: if self.sent > 0 {
                100.0 * lost as f64 / self.sent as f64
            } else {
                0.0
            },
            goodput_bps: c.bytes as f64 * 8.0 / secs(dur),
            jitter_ms: self.jitter * 1e3,
            reassembly_expired: self.reasm.expired,
            reassembly_mem_drops: self.reasm.dropped_fragments,
            intervals: self.intervals.clone(),
            report: self.intervals.iter().map(iperf_line).collect(),
        });
    }
}

/// A UDP constant-bit-rate flow as iperf 2's server reports it.
#[derive(Clone, Debug, Serialize)]
pub struct UdpResult {
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    /// UDP payload per datagram, bytes.
    pub len: u32,
    pub fragments_per_datagram: u32,
    pub sent: u64,
    pub received: u64,
    /// Datagrams missing from the receiver's sequence (iperf's "lost").
    pub lost: u64,
    pub loss_pct: f64,
    /// UDP payload received, bit/s.
    pub goodput_bps: f64,
    pub jitter_ms: f64,
    /// Reassembly queues that expired incomplete, and fragments dropped because the
    /// reassembly memory was full.
    pub reassembly_expired: u64,
    pub reassembly_mem_drops: u64,
    pub intervals: Vec<UdpInterval>,
    /// The intervals as iperf 2 prints them.
    pub report: Vec<String>,
}

/// One report interval of a UDP receiver.
#[derive(Clone, Debug, Serialize)]
pub struct UdpInterval {
    pub start_s: f64,
    pub end_s: f64,
    pub bytes: u64,
    pub mbps: f64,
    pub jitter_ms: f64,
    pub lost: u64,
    pub total: u64,
}

impl AppRow for UdpResult {
    const REPORT: Report = Report {
        key: "udp",
        table: "udp",
        always: false,
        rank: 20,
        table_rank: 20,
    };
    fn columns(u: &[UdpResult], t: Table) -> Table {
        t.col("from", strs(u, |x| &x.from))
            .col("to", strs(u, |x| &x.to))
            .col("rate_bps", ints(u, |x| x.rate_bps))
            .col("len_bytes", ints(u, |x| x.len as u64))
            .col(
                "fragments_per_datagram",
                ints(u, |x| x.fragments_per_datagram as u64),
            )
            .col("sent", ints(u, |x| x.sent))
            .col("received", ints(u, |x| x.received))
            .col("lost", ints(u, |x| x.lost))
            .col("loss_pct", floats(u, |x| x.loss_pct))
            .col("goodput_bps", floats(u, |x| x.goodput_bps))
            .col("jitter_s", floats(u, |x| x.jitter_ms / 1e3))
            .col("reassembly_expired", ints(u, |x| x.reassembly_expired))
            .col("reassembly_mem_drops", ints(u, |x| x.reassembly_mem_drops))
    }
    fn human(&self, s: &mut String) {
        use std::fmt::Write;
        let u = self;
        let _ = writeln!(
            s,
            "\nudp {}→{} ({} Mbit/s of {}-byte datagrams, {} fragments each): {}/{} datagrams lost ({:.2}%), {:.1} Mbit/s received, jitter {:.3} ms; reassembly: {} expired, {} fragments dropped for memory",
            u.from,
            u.to,
            u.rate_bps as f64 / 1e6,
            u.len,
            u.fragments_per_datagram,
            u.lost,
            u.sent,
            u.loss_pct,
            u.goodput_bps / 1e6,
            u.jitter_ms,
            u.reassembly_expired,
            u.reassembly_mem_drops
        );
        for line in &u.report {
            let _ = writeln!(s, "{line}");
        }
    }
}

/// One app per `[[udp]]`.
pub fn build(specs: &[UdpSpec], w: &mut dyn Build) -> Result<(), String> {
    for (i, s) in specs.iter().enumerate() {
        let id = w.next_app();
        let (from, to) = (w.host(&s.from)?, w.host(&s.to)?);
        if !w.reaches(from, to, 0) {
            return Err(format!(
                "udp.{i} ({} → {}): no route from one to the other (hosts do not forward; is a link missing?)",
                s.from, s.to
            ));
        }
        // iperf 2: one datagram every len·8/rate, in ps.
        let gap = (s.len as u128 * 8 * SEC as u128 / s.rate as u128).max(1) as SimTime;
        w.push_app(super::AnyApp::Udp(Box::new(Udp {
            id,
            from,
            to,
            spec: s.clone(),
            sent: 0,
            gap,
            frags: Vec::new(),
            reasm: Reassembly::default(),
            jitter: 0.0,
            last_transit: None,
            interval: Counters::default(),
            total: Counters::default(),
            total_received: 0,
            interval_start: 0,
            intervals: Vec::new(),
        })));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// iperf's `-l 45k` = 46,080 bytes: IP payload 46,088 (UDP header included) in 1480-byte
    /// pieces: 31 × 1480 = 45,880, and a last of 208; so 31 fragments of 1500 bytes and one
    /// of 228.
    #[test]
    fn a_45k_datagram_is_32_fragments() {
        let mut f = Vec::new();
        fragments(46_080, 1500, &mut f);
        assert_eq!(f.len(), 32);
        assert!(f[..31].iter().all(|&s| s == 1500));
        assert_eq!(f[31], 228);
        assert_eq!(f.iter().map(|s| s - 20).sum::<u32>(), 46_088);
        fragments(1472, 1500, &mut f);
        assert_eq!(f, vec![1500]); // fits: not fragmented
        fragments(1473, 1500, &mut f);
        assert_eq!(f, vec![1500, 21]); // 1481 of IP payload: 1480 + 1
    }

    #[test]
    fn loss_is_printed_as_c_prints_2g() {
        assert_eq!(g2(0.0), "0");
        assert_eq!(g2(0.046), "0.046");
        assert_eq!(g2(1.25), "1.2");
        assert_eq!(g2(12.0), "12");
        assert_eq!(g2(100.0), "1e+02");
    }

    #[test]
    fn reassembly_completes_loses_expires_and_limits_memory() {
        let mut r = Reassembly::default();
        // Datagram 0: three fragments, out of order: complete on the last.
        assert_eq!(r.receive(0, 3, 1500, 7, 10), None);
        assert_eq!(r.receive(0, 3, 228, 7, 11), None);
        assert_eq!(r.receive(0, 3, 1500, 7, 12), Some(7));
        assert_eq!(r.mem, 0);
        // Datagram 1 loses a fragment: held until 30 s after its first fragment.
        r.receive(1, 2, 1500, 20, 20);
        assert_eq!(r.mem, 1500);
        r.receive(2, 1, 1500, 21, IPFRAG_TIME + 19); // not yet
        assert_eq!((r.mem, r.expired), (1500, 0));
        r.receive(3, 1, 1500, 22, IPFRAG_TIME + 20);
        assert_eq!((r.mem, r.expired), (0, 1));
        // Above 4 MiB held, every fragment is dropped, even one that would complete.
        let mut r = Reassembly::default();
        let n = IPFRAG_HIGH_THRESH / 1500 + 1;
        for id in 0..n {
            r.receive(id, 2, 1500, 0, 0);
        }
        assert!(r.mem > IPFRAG_HIGH_THRESH);
        assert_eq!(r.receive(0, 2, 1500, 0, 1), None);
        assert_eq!(r.dropped_fragments, 1);
    }
}
