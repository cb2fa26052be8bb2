//! An output port and the link it feeds: arrival → qdisc → transmitter → wire → next node,
//! for every packet, idle port or not.
//!
//! - **Qdisc.** Every packet is offered to the port's discipline, which queues (perhaps
//!   marking) or drops it. When the transmitter is idle it asks the discipline at once for
//!   the next packet, so a packet that finds the port idle and the queue empty leaves
//!   immediately, as in Linux (`__dev_xmit_skb` → `sch_direct_xmit`), but only after the
//!   discipline has seen it.
//! - **Transmitter.** One packet at a time, for its serialisation time at the link rate:
//!   (IP length + the port's framing overhead) × 8 / rate, rounded up to a picosecond. When
//!   it finishes (`TxDone`) it asks the discipline again; an answer of "not before t"
//!   wakes it at t.
//! - **Wire.** Packets propagate for the link delay and arrive in order, so only the head
//!   of the wire needs an event in the queue.
//! - **Statistics** are kept here once, for every discipline: arrivals, drops (at enqueue
//!   and at dequeue), marks, the largest backlog left waiting, and ∫ backlog dt for the
//!   time-average.

use super::packet::PktId;
use super::NodeId;
use crate::engine::SimTime;
use crate::qdisc::{Backlog, Qdisc, QueueDisc};
use std::collections::VecDeque;

/// Bytes of Ethernet framing added to every IP packet for serialisation time: 14 header +
/// 4 FCS + 8 preamble/SFD + 12 inter-frame gap. Queues count IP bytes only.
pub const ETH_OVERHEAD: u32 = 38;

/// What a link adds to every IP packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Ethernet: 38 bytes (header, FCS, preamble and SFD, inter-frame gap).
    Ethernet,
    /// Bare IP, as on a point-to-point path whose rate is given for IP packets: nothing.
    Ip,
}

impl Framing {
    /// Names in scenario files.
    pub const NAMES: &'static [&'static str] = &["ethernet", "ip"];

    #[inline]
    pub fn overhead(self) -> u32 {
        match self {
            Framing::Ethernet => ETH_OVERHEAD,
            Framing::Ip => 0,
        }
    }

    pub fn by_name(s: &str) -> Option<Framing> {
        match s {
            "ethernet" => Some(Framing::Ethernet),
            "ip" => Some(Framing::Ip),
            _ => None,
        }
    }
}

/// Counters every port keeps, whatever its discipline (one cache line, `repr(C)`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct QueueStats {
    /// ∫ backlog bytes dt, in byte·picoseconds, up to `last_change`.
    pub byte_time: u128,
    pub last_change: SimTime,
    /// Packets the discipline accepted.
    pub enqueued: u64,
    /// Packets marked (CE or a congestion value).
    pub marks: u64,
    /// The largest backlog left waiting after an arrival was handled.
    pub max_bytes: u64,
    pub max_pkts: u64,
    /// Packets dropped by the discipline (at enqueue or at dequeue).
    pub drops: u64,
}

impl QueueStats {
    /// The backlog changes at `now`; it was `bytes` since the last change.
    #[inline]
    pub fn advance(&mut self, now: SimTime, bytes: u64) {
        self.byte_time += bytes as u128 * (now - self.last_change) as u128;
        self.last_change = now;
    }

    #[inline]
    pub fn note_max(&mut self, b: Backlog) {
        self.max_bytes = self.max_bytes.max(b.bytes);
        self.max_pkts = self.max_pkts.max(b.pkts);
    }

    /// ∫ backlog dt from time 0 to `now`, the backlog being `bytes` since the last change.
    #[inline]
    pub fn integral_at(&self, now: SimTime, bytes: u64) -> u128 {
        self.byte_time + bytes as u128 * (now.saturating_sub(self.last_change)) as u128
    }

    /// The time-average backlog in bytes over [0, now].
    pub fn mean_bytes(&self, now: SimTime, bytes: u64) -> f64 {
        if now == 0 {
            return 0.0;
        }
        self.integral_at(now, bytes) as f64 / now as f64
    }
}

/// `Port::ps_per_byte` when the time per byte is not a whole number of picoseconds: the
/// serialisation time is then a division.
const DIVIDE: u64 = u64::MAX;

/// Picoseconds per byte at `rate_bps` if that is a whole number, else [`DIVIDE`].
fn exact_ps_per_byte(rate_bps: u64) -> u64 {
    let bit_ps = 8 * crate::engine::SEC;
    if rate_bps != 0 && bit_ps.is_multiple_of(rate_bps) {
        bit_ps / rate_bps
    } else {
        DIVIDE
    }
}

/// An output port and the link it feeds.
///
/// Fields in declaration order (`repr(C)`), the port aligned to a cache line: what every
/// packet through the port touches fills its first five lines, in the order a hop reads
/// them — the first line is all a packet arriving over the link reads (its wire, its far
/// end, the flags), the second what a transmitter adds (link, counters, schedule), then
/// the queue's counters and its discipline; what is read rarely (names, jitter's random
/// stream, configuration) comes last.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// Packets propagating on the link behind its head, in arrival order: (arrival time,
    /// packet). A link delivers in FIFO order, so only its head needs an event in the
    /// queue, and that event carries the head (`NetEv::Arrive`): a link with one packet
    /// on it at a time, as most are on a big network, never writes or reads this ring.
    pub wire: VecDeque<(SimTime, PktId)>,
    /// The start of the first entry in `starts` (`SimTime::MAX` when none): a port needs
    /// settling at `now` only if `now` has reached it.
    pub next_start: SimTime,
    /// The transmitter is serialising until this time.
    pub busy_until: SimTime,
    pub peer: NodeId,
    /// Bytes the link adds to every IP packet (serialisation only).
    pub framing: u32,
    /// The port's schedule is fixed when a packet is admitted: its discipline decides at
    /// arrival and sends in arrival order (drop-tail, ECN threshold) and its link injects
    /// no loss. An admitted packet then goes on the wire at once, to start when the
    /// packets before it are sent, and the transmitter needs no event (`forward.rs`).
    /// Set by [`super::Network::seal`].
    pub direct: bool,
    /// A `TxDone` event is queued for this port, at `wake_at`.
    pub txdone_pending: bool,
    /// That event is a wake-up the qdisc asked for (`NotBefore`) while the transmitter is
    /// free: an arrival before it asks the qdisc again.
    pub waiting: bool,
    /// `loss`, `ingress` and a non-zero `jitter` are set: what a hop asks of every port,
    /// kept here, in the line it reads first, instead of in theirs.
    pub(super) lossy: bool,
    /// An ingress stage runs on what arrives: a policer, or at a host the SACK-processing
    /// model (`net/host/sack_cpu.rs`).
    pub(super) policed: bool,
    pub(super) jittered: bool,
    /// The link ends at a host (which does not forward what is not addressed to it).
    pub(super) to_host: bool,
    /// An `Arrive` event for this link's head is queued (the rest of what is on the link
    /// waits in `wire`).
    pub(super) on_wire: bool,
    pub delay: SimTime,
    /// Picoseconds per byte when that is a whole number (8·10¹² divisible by the rate, as
    /// for 1, 10, 25, 40, 100 and 400 Gbit/s), so serialisation time is one multiply;
    /// [`DIVIDE`] otherwise (a division, rounded up); 0 on a link whose deliveries its
    /// discipline times (a trace-driven link: [`Port::set_zero_time`]).
    ps_per_byte: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// A direct port's queue as the transmitter will take it: per admitted packet not yet
    /// started at the last [`super::Network::settle`], (start time, packets, bytes, the IP
    /// length its discipline's FIFO counted) (an offload aggregate is one entry of several
    /// packets).
    pub starts: VecDeque<(SimTime, u32, u32, u32)>,
    pub stats: QueueStats,
    pub qdisc: Qdisc,
    /// Loss injected on the link (`[[loss]]`; `set_loss`).
    pub(super) loss: Option<Box<super::loss::LinkLoss>>,
    /// A policer on what arrives over this link at its far end (`[[police]]`;
    /// `set_ingress`).
    pub(super) ingress: Option<Box<super::ingress::Ingress>>,
    /// A host NIC's processing jitter (`net/host.rs`; `set_jitter`); off on switch ports.
    pub(super) jitter: super::host::HostJitter,
    pub wake_at: SimTime,
    pub rate_bps: u64,
    pub name: String,
    pub node: NodeId,
}

impl Port {
    pub fn new(
        name: &str,
        node: NodeId,
        peer: NodeId,
        rate_bps: u64,
        delay: SimTime,
        qdisc: Qdisc,
    ) -> Port {
        Port {
            name: name.to_string(),
            node,
            peer,
            rate_bps,
            ps_per_byte: exact_ps_per_byte(rate_bps),
            delay,
            framing: ETH_OVERHEAD,
            qdisc,
            busy_until: 0,
            txdone_pending: false,
            wake_at: 0,
            waiting: false,
            lossy: false,
            policed: false,
            jittered: false,
            to_host: false,
            on_wire: false,
            wire: VecDeque::new(),
            direct: false,
            starts: VecDeque::new(),
            next_start: SimTime::MAX,
            stats: QueueStats::default(),
            tx_pkts: 0,
            tx_bytes: 0,
            loss: None,
            jitter: super::host::HostJitter::off(),
            ingress: None,
        }
    }

    /// Note the discipline's backlog now in the maximum (after an arrival is queued,
    /// before anything of it leaves).
    #[inline(always)]
    pub fn note_backlog(&mut self) {
        let b = self.qdisc.backlog();
        self.stats.note_max(b);
    }

    /// The transmitter may start a packet now: not serialising, and not waiting for a
    /// wake-up it asked for.
    #[inline]
    pub fn idle(&self, now: SimTime) -> bool {
        self.busy_until <= now && !self.txdone_pending
    }

    /// Inject loss on the link.
    pub fn set_loss(&mut self, loss: super::loss::LinkLoss) {
        self.loss = Some(Box::new(loss));
        self.lossy = true;
    }

    /// The loss injected on the link, if any.
    pub fn loss(&self) -> Option<&super::loss::LinkLoss> {
        self.loss.as_deref()
    }

    /// Police what arrives over the link at its far end.
    pub fn set_ingress(&mut self, ingress: super::ingress::Ingress) {
        self.ingress = Some(Box::new(ingress));
        self.policed = true;
    }

    /// The policer on what arrives over the link, if any.
    pub fn ingress(&self) -> Option<&super::ingress::Ingress> {
        self.ingress.as_deref()
    }

    /// Delay what a host NIC starts while idle by `jitter` (`net/host.rs`).
    pub fn set_jitter(&mut self, jitter: super::host::HostJitter) {
        self.jittered = jitter.max > 0;
        self.jitter = jitter;
    }

    /// The delay before this NIC, idle, starts the packet it was just handed (a draw of
    /// its jitter; 0, with no draw and without reading the jitter's line, when it has none).
    #[inline]
    pub(super) fn jitter_hold(&mut self) -> SimTime {
        if self.jittered {
            self.jitter.draw()
        } else {
            0
        }
    }

    /// Serialisation time of an IP packet of `len` bytes on this link.
    #[inline]
    pub fn ser_time(&self, len: u32) -> SimTime {
        let bytes = (len + self.framing) as u64;
        if self.ps_per_byte != DIVIDE {
            return bytes * self.ps_per_byte;
        }
        crate::engine::tx_time(bytes, self.rate_bps)
    }

    /// A new link rate, for what starts from now on (`[[event]]`: the port runs on
    /// events, so nothing admitted before has its start fixed yet).
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.ps_per_byte = exact_ps_per_byte(rate_bps);
    }

    /// A link whose discipline times every delivery itself (a trace-driven link,
    /// `qdisc/linkrate.rs`): packets take no serialisation time; `rate_bps` stays as the
    /// link's nominal (mean) rate for what reads it.
    pub fn set_zero_time(&mut self, mean_bps: u64) {
        self.rate_bps = mean_bps;
        self.ps_per_byte = 0;
    }

    /// What the queue holds now.
    #[inline]
    pub fn backlog(&self) -> Backlog {
        self.qdisc.backlog()
    }

    /// The time-average backlog in bytes over [0, now].
    pub fn mean_bytes(&self, now: SimTime) -> f64 {
        self.stats.mean_bytes(now, self.qdisc.bytes())
    }

    /// ∫ backlog dt over [0, now], in byte·picoseconds.
    pub fn byte_time_at(&self, now: SimTime) -> u128 {
        self.stats.integral_at(now, self.qdisc.bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::QueueSpec;
    use crate::schema::Limit;

    #[test]
    fn serialisation_time_is_the_rounded_up_division_at_every_rate() {
        // Whole picoseconds per byte (a multiply) and not (a division): both give
        // ⌈bytes · 8 · 10¹² / rate⌉, the definition.
        for rate in [
            1_000_000_000u64,
            10_000_000_000,
            25_000_000_000,
            100_000_000_000,
            400_000_000_000,
            600_000_000,
            596_000_000,
            7_777_777,
            3,
        ] {
            let q = QueueSpec::droptail(Limit::Packets(10)).build();
            let p = Port::new("p", 0, 1, rate, 0, q);
            for len in [0u32, 1, 40, 52, 1500, 9000, 65_535, 1_000_000] {
                let bits = (len as u128 + ETH_OVERHEAD as u128) * 8 * crate::engine::SEC as u128;
                let want = bits.div_ceil(rate as u128) as SimTime;
                assert_eq!(p.ser_time(len), want, "rate {rate} len {len}");
            }
        }
    }

    /// The port keeps the layout its fields' order promises: what an arriving packet reads
    /// fills exactly the first cache line (`delay`, which the transmitter reads, starts the
    /// second), and the port is six lines. A field added to the first line by accident
    /// pushes the transmitter's fields into another line on every hop.
    #[test]
    fn the_first_line_holds_what_an_arrival_reads() {
        assert_eq!(std::mem::offset_of!(Port, delay), 64);
        assert_eq!(std::mem::size_of::<Port>(), 384);
    }
}
