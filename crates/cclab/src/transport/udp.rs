//! A constant-bit-rate UDP flow as endpoints: iperf 2's sender (`iperf -u -b RATE -l LEN`)
//! and its receiver, with the receiving host's IPv4 reassembly in between. The `udp` app
//! (`app/udp.rs`) configures them and reports what the receiver counted.
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

use crate::engine::{secs, SimTime, SEC};
use crate::net::{flow_hash, NodeId};
use crate::packet::{Packet, PktKind, NOT_ECT};
use crate::transport::{Endpoint, Io, Side, TimerKind};
use serde::Serialize;

/// The path MTU of the sending host's link.
pub const MTU: u32 = 1500;
pub const IP_HDR: u32 = 20;
pub const UDP_HDR: u32 = 8;
/// Linux's `ipfrag_time` and `ipfrag_high_thresh` defaults.
pub const IPFRAG_TIME: SimTime = 30 * SEC;
pub const IPFRAG_HIGH_THRESH: u64 = 4 << 20;

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
pub struct Counters {
    /// UDP payload bytes of the datagrams received.
    pub bytes: u64,
    pub datagrams: u64,
    /// Highest sequence number seen, and the first one of the interval.
    max_seq: Option<u64>,
    first_seq: Option<u64>,
    out_of_order: u64,
}

/// iperf 2's client: a datagram every `gap` from `start` until `stop`, fragmented at the
/// MTU.
#[derive(Debug)]
pub struct UdpSender {
    /// Its connection slot, which every fragment carries (`Packet::conn`).
    pub conn: u32,
    pub from: NodeId,
    pub to: NodeId,
    pub start: SimTime,
    /// `None`: until the end of the run.
    pub stop: Option<SimTime>,
    /// UDP payload per datagram, bytes.
    pub len: u32,
    /// Time between datagrams: `len · 8 / rate`.
    pub gap: SimTime,
    /// The datagrams' ECMP hash.
    hash: u32,
    /// Datagrams sent.
    pub sent: u64,
    /// The IP lengths of one datagram's fragments.
    frags: Vec<u32>,
}

impl UdpSender {
    /// iperf's client in slot `conn`, `from → to`, sending `len`-byte datagrams at `rate`
    /// bit/s; `ident` (the app's number) is its port in the ECMP hash.
    pub fn new(
        conn: u32,
        ident: u32,
        (from, to): (NodeId, NodeId),
        (start, stop): (SimTime, Option<SimTime>),
        len: u32,
        rate: u64,
    ) -> UdpSender {
        // iperf 2: one datagram every len·8/rate, in ps.
        let gap = (len as u128 * 8 * SEC as u128 / rate.max(1) as u128).max(1) as SimTime;
        UdpSender {
            conn,
            from,
            to,
            start,
            stop,
            len,
            gap,
            hash: flow_hash(from, to, 5001, ident as u16, 17),
            sent: 0,
            frags: Vec::new(),
        }
    }

    /// The first datagram goes at `start`.
    pub fn open(&mut self, io: &mut Io) {
        io.arm(self.start, TimerKind::Source, Side::Client);
    }
}

impl Endpoint for UdpSender {
    /// The receiver sends nothing back.
    fn on_packet(&mut self, _p: &Packet, _io: &mut Io) {}

    /// The next datagram is due: its fragments go to the host back to back.
    fn on_timer(&mut self, _kind: TimerKind, io: &mut Io) {
        let now = io.now;
        if self.stop.is_some_and(|s| now >= s) {
            return;
        }
        fragments(self.len, MTU, &mut self.frags);
        let count = self.frags.len() as u32;
        for (i, &size) in self.frags.iter().enumerate() {
            let mut p = Packet::blank();
            p.kind = PktKind::Udp;
            p.src = self.from;
            p.dst = self.to;
            p.conn = self.conn;
            p.size = size;
            p.payload = size - IP_HDR;
            p.ecn = NOT_ECT;
            p.hash = self.hash;
            p.born = now;
            p.seq = self.sent;
            // Fragment index and count (the IP header's offset and MF bit, as numbers).
            p.ack = (i as u64) << 32 | count as u64;
            p.ip_id = self.sent as u16;
            io.tx.push(p);
        }
        self.sent += 1;
        io.arm(now + self.gap, TimerKind::Source, Side::Client);
    }
}

/// iperf 2's server: reassembles, counts each datagram, and closes a report interval every
/// `interval`.
#[derive(Debug)]
pub struct UdpReceiver {
    /// UDP payload per datagram, bytes.
    pub len: u32,
    pub start: SimTime,
    /// The report interval (iperf's `-i`).
    pub interval: SimTime,
    pub reasm: Reassembly,
    /// RFC 1889's smoothed jitter, seconds.
    pub jitter: f64,
    last_transit: Option<f64>,
    current: Counters,
    /// The whole run's counters.
    pub total: Counters,
    /// Datagrams received.
    pub total_received: u64,
    interval_start: SimTime,
    /// The report intervals closed so far.
    pub intervals: Vec<UdpInterval>,
}

impl UdpReceiver {
    /// The server of `len`-byte datagrams, reporting every `interval` from `start`.
    pub fn new(len: u32, start: SimTime, interval: SimTime) -> UdpReceiver {
        UdpReceiver {
            len,
            start,
            interval,
            reasm: Reassembly::default(),
            jitter: 0.0,
            last_transit: None,
            current: Counters::default(),
            total: Counters::default(),
            total_received: 0,
            interval_start: 0,
            intervals: Vec::new(),
        }
    }

    /// The first report interval runs from `start`.
    pub fn open(&mut self, io: &mut Io) {
        io.arm(self.start + self.interval, TimerKind::Report, Side::Server);
        self.interval_start = self.start;
    }

    /// One finished datagram: iperf 2's `ReportPacket` bookkeeping.
    fn datagram(&mut self, seq: u64, sent: SimTime, now: SimTime) {
        let len = self.len as u64;
        for c in [&mut self.current, &mut self.total] {
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
        let c = self.current;
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
        self.current = Counters {
            // The next interval counts from the datagram after the last one seen.
            first_seq: c.max_seq.map(|m| m + 1),
            max_seq: c.max_seq,
            ..Default::default()
        };
        self.interval_start = now;
    }
}

impl Endpoint for UdpReceiver {
    /// A fragment (or a whole datagram) reached the receiving host.
    fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        let count = (p.ack & 0xffff_ffff) as u32;
        if let Some(sent) = self.reasm.receive(p.seq, count, p.size, p.born, io.now) {
            self.datagram(p.seq, sent, io.now);
        }
    }

    /// A report interval ends.
    fn on_timer(&mut self, _kind: TimerKind, io: &mut Io) {
        self.report(io.now);
        io.arm(io.now + self.interval, TimerKind::Report, Side::Server);
    }
}

/// Both ends of a UDP flow.
#[derive(Debug)]
pub struct UdpConn {
    pub sender: UdpSender,
    pub receiver: UdpReceiver,
}

impl UdpConn {
    /// The flow starts: iperf's client and server.
    pub fn open(&mut self, io: &mut Io) {
        self.sender.open(io);
        self.receiver.open(io);
    }
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

    /// 3,000-byte datagrams at 24 Mbit/s: one every 1 ms, each three fragments (1480 +
    /// 1480 + 48 bytes of IP payload) numbered by the datagram; the next datagram's timer
    /// is scheduled after its fragments (the order iperf's app had). Nothing from `stop`.
    #[test]
    fn the_sender_fragments_each_datagram_and_stops() {
        use crate::engine::MS;
        let mut s = UdpSender::new(4, 2, (0, 1), (5 * MS, Some(7 * MS)), 3000, 24_000_000);
        assert_eq!(s.gap, MS);
        let mut io = Io::new(0);
        s.open(&mut io);
        assert_eq!(io.timers, vec![(5 * MS, TimerKind::Source)]);
        for k in 0..2u64 {
            io.timers.clear();
            io.armed.clear();
            io.now = (5 + k) * MS;
            s.on_timer(TimerKind::Source, &mut io);
            let sizes: Vec<u32> = io.tx.iter().map(|p| p.size).collect();
            assert_eq!(sizes, vec![1500, 1500, 68]);
            assert!(io
                .tx
                .iter()
                .all(|p| p.seq == k && p.conn == 4 && p.ack & 0xffff_ffff == 3));
            assert_eq!(io.timers, vec![((6 + k) * MS, TimerKind::Source)]);
            assert_eq!(io.armed, vec![(3, Side::Client)]);
            io.tx.clear();
        }
        io.timers.clear();
        io.now = 7 * MS;
        s.on_timer(TimerKind::Source, &mut io);
        assert!(io.tx.is_empty() && io.timers.is_empty());
        assert_eq!(s.sent, 2);
    }

    /// The receiver counts datagram 0 whole and datagram 2 (1 is lost) and closes its
    /// first interval at start + interval: 2 of 3 received, 1 lost.
    #[test]
    fn the_receiver_reports_each_interval() {
        use crate::engine::MS;
        let mut r = UdpReceiver::new(1000, 0, 10 * MS);
        let mut io = Io::new(0);
        r.open(&mut io);
        assert_eq!(io.timers, vec![(10 * MS, TimerKind::Report)]);
        for seq in [0u64, 2] {
            let mut p = Packet::blank();
            (p.kind, p.seq, p.ack, p.size, p.born) = (PktKind::Udp, seq, 1, 1028, seq * MS);
            io.now = seq * MS + MS;
            r.on_packet(&p, &mut io);
        }
        io.now = 10 * MS;
        r.on_timer(TimerKind::Report, &mut io);
        let i = &r.intervals[0];
        assert_eq!((i.bytes, i.lost, i.total), (2000, 1, 3));
        assert_eq!((r.total.bytes, r.total_received), (2000, 2));
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
