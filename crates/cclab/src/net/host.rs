//! Hosts: the egress stage between a host's transport endpoints and its NIC, and the host
//! stack's own replies.
//!
//! **Egress stage.** Everything a host's endpoints and apps send enters here
//! ([`Network::egress`]): the route picks the NIC (a host with one link has one), the
//! packet enters that NIC port's qdisc — the *host qdisc* — and the port's transmitter is
//! the NIC, which puts frames on the wire at line rate with the link's framing. The
//! default host qdisc is what Linux uses when nothing else is configured: a FIFO
//! (`pfifo_fast` with one band in use), drop-tail at the port's limit — 1000 packets, like
//! `txqueuelen`, on a graph link; the built-in topologies keep their own defaults
//! (`access_queue` / `other_queue`: 10,000 packets) — which sends packets in order and
//! ignores their earliest departure times, as `pfifo_fast` ignores `skb->tstamp`.
//!
//! **Processing jitter** (`[host] jitter`, [`HostJitter`]). A real host does not start a
//! frame at the instant its stack decides to send: interrupt moderation, softirq
//! scheduling, the driver, the doorbell and the NIC's DMA add a delay that varies from
//! packet to packet (a NIC that moderates interrupts at 8000 per second, the e1000
//! driver's long-time default, hands the stack an ACK up to 125 µs after it arrived).
//! Without such a delay every departure is an exact function of earlier arrivals, and at
//! drop-tail queues which flow meets the full queue is decided by alignments of a few
//! microseconds that no real network keeps (Floyd & Jacobson, "On Traffic Phase Effects in
//! Packet-Switched Gateways", CCR 21(2), 1991). Their remedy, and ns-2's TCP `overhead_`
//! (`tcp/tcp.cc`, `TcpAgent::send_much`), is a random processing time at the sources of
//! the order of the bottleneck's service time for one packet: when a packet may be sent
//! and no delayed send is pending, ns-2 puts the send off by `Random::uniform(overhead_)`;
//! what becomes sendable meanwhile waits for that pending send and leaves with it, in
//! order.
//!
//! Here the delay sits between the host qdisc and the NIC: a packet that finds the NIC
//! idle starts `U(0, jitter)` later (one draw from the NIC's own random stream, derived
//! from `sim.seed`), and the NIC counts as busy meanwhile, so what the stack sends in the
//! meantime queues behind it and follows back to back — ns-2's batch; packets of one host
//! never overtake each other. A NIC that is already sending continues back to back with no
//! new draw, as hardware does. The default, `"auto"`, is Floyd & Jacobson's amount: one
//! 1500-byte packet's time at the slowest link of the network ([`AUTO_PACKET`]), so it
//! removes the phase effect at any scale while adding less than one packet time to any
//! path, but at most [`AUTO_HOST_MAX`], 125 µs: what a host's interrupt path itself
//! produces (e1000's static moderation, 8000 interrupts per second). Below about 98 Mbit/s
//! one packet time is more than that (1.2 ms at 10 Mbit/s), more than any host adds to a
//! send, and a delay-based sender (Vegas, FAST) would take it for part of the path's base
//! RTT; there the jitter is a host's, and breaks phase effects only as far as a host's
//! does.
//! path. Deviations from ns-2: the delay applies to every packet a host sends (ACKs,
//! pings and replies too, as a real stack's send path is the same for all), not only to a
//! TCP sender's data, and is drawn in whole picoseconds, uniform in [0, jitter]. It costs
//! one branch when off (no draw), and no event when on (the delay is folded into the
//! transmitter's start time). A capture sees the packet when the stack hands it over, as
//! tcpdump does (`dev_queue_xmit_nit` runs before the NIC's DMA).
//!
//! What plugs in here (seeds 001 and 004): a host qdisc that honours departure times
//! (`fq`, answering `NotBefore`), TCP's own pacing timestamps (`Packet::edt`),
//! segmentation-offload bursts and the NIC's inter-packet gap.
//!
//! **Host stack.** An ICMP echo request is answered by the destination host itself
//! (Linux `icmp_echo`), not by an app: [`Network::echo_reply`].

pub mod sack_cpu;

use super::forward::{NetCtx, NetEv, Tap};
use super::packet::{PktId, PktKind, ECT0, NOT_ECT};
use super::{Network, NodeId, PortId};
use crate::engine::{EventQueue, Rng, SimTime};
use crate::qdisc::QueueDisc;
use crate::schema::check::{time, Checker, Tab};
use crate::schema::{Key, Schema, Ty};
use std::collections::VecDeque;
use toml::Value;

/// A host NIC's processing jitter: the largest delay between the stack handing a packet to
/// an idle NIC and the NIC starting it, and the random stream the delays are drawn from.
#[derive(Clone, Debug)]
pub struct HostJitter {
    /// Delays are uniform in [0, max] picoseconds; 0 = off.
    pub max: SimTime,
    rng: Rng,
}

impl HostJitter {
    /// No jitter (switch ports, and host NICs with `jitter = "0s"`): no draw, ever.
    pub fn off() -> HostJitter {
        HostJitter {
            max: 0,
            rng: Rng::new(0, 0),
        }
    }

    /// The largest jitter `spec` gives on `net`: `"auto"` is one [`AUTO_PACKET`]'s time at
    /// the slowest link, at most [`AUTO_HOST_MAX`].
    pub fn max_of(spec: JitterSpec, net: &Network) -> SimTime {
        match spec {
            JitterSpec::Fixed(t) => t,
            JitterSpec::Auto => net
                .ports
                .iter()
                .min_by_key(|p| p.rate_bps)
                .map_or(0, |p| p.ser_time(AUTO_PACKET).min(AUTO_HOST_MAX)),
        }
    }

    /// Delays uniform in [0, `max`], drawn from `rng`.
    pub fn new(max: SimTime, rng: Rng) -> HostJitter {
        HostJitter { max, rng }
    }

    /// The delay before an idle NIC starts the packet it was just handed: 0 when off (no
    /// draw), else uniform in [0, max] (ns-2 `Random::uniform(overhead_)`).
    #[inline]
    pub fn draw(&mut self) -> SimTime {
        if self.max == 0 {
            0
        } else {
            self.rng.below(self.max + 1)
        }
    }
}

/// The largest jitter `"auto"` gives: the time of one full-size packet (1500 bytes, with
/// the link's framing) at the slowest link of the network — Floyd & Jacobson's
/// prescription (a random processing time of the order of the bottleneck's service time
/// for one packet). Less does not do: on the scenario of `tests/it/phase.rs` (120 s, seeds 1
/// to 10, docs/scenario.md `[host]`) the 20 ms flow's goodput over the 40 ms flow's, for
/// access delays 2500 / 2503 / 2507 µs, averages 0.82 / 2.49 / 2.35 with 10 µs of jitter,
/// 1.85 / 2.15 / 2.12 with 50 µs, and 1.39 / 1.42 / 1.50 with `"auto"` (123 µs).
pub const AUTO_PACKET: u32 = 1500;

/// The most `"auto"` gives, whatever the links: 125 µs, the interval of an interrupt path
/// moderated at 8000 interrupts per second — the static InterruptThrottleRate that Intel's
/// e1000 driver long used by default (Linux
/// `Documentation/networking/device_drivers/ethernet/intel/e1000.rst`, InterruptThrottleRate:
/// "The default behaviour of the driver previously assumed a static InterruptThrottleRate
/// value of 8000"; its adaptive default since moderates bulk traffic at 4000/s and light
/// traffic at up to 20000/s, 250 and 50 µs). A host whose stack learns of an ACK up to one
/// interrupt interval late answers it that much later; a host does not add a millisecond
/// to a send. One packet time at the slowest link is below this from about 98 Mbit/s up
/// (123 µs at 100 Mbit/s with Ethernet framing), so `"auto"` is Floyd & Jacobson's amount
/// there and this bound only below.
pub const AUTO_HOST_MAX: SimTime = crate::engine::SEC / 8000;

/// `[host] jitter`: how the largest processing delay is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JitterSpec {
    /// One full-size packet's time at the slowest link of the network ([`AUTO_PACKET`]),
    /// at most [`AUTO_HOST_MAX`].
    Auto,
    /// This much (0 = off).
    Fixed(SimTime),
}

const JITTER: Key = Key {
    name: "jitter",
    ty: Ty::Text("time or `\"auto\"`"),
    default: "`\"auto\"`",
    allowed: "`\"auto\"` (a 1500-byte packet's time at the slowest link, at most 125 µs: e1000's 8000 interrupts per second), or a time, 0 or more; `\"0s\"` turns it off",
    meaning: "a host's processing delay (interrupt moderation, softirq, driver, DMA): a packet that finds its host's NIC idle starts a random time uniform in [0, jitter] later (ns-2's TCP `overhead_`); breaks the phase effects of exact timing at drop-tail queues",
};

/// e1000's TIPG.IPGT (Intel 8254x SDM 13.4.34): the transmit inter-packet gap in byte
/// times, to which the MAC adds 4 (so the default 8 gives Ethernet's 12-byte gap); 10 bits.
pub const IPGT_DEFAULT: u32 = 8;
pub const IPGT_MAX: u32 = 0x3FF;

const IPG: Key = Key {
    name: "ipg",
    ty: Ty::Int(0, IPGT_MAX as i64),
    default: "8",
    allowed: "0 to 1023 (e1000's 10-bit IPGT field)",
    meaning: "the host NICs' inter-packet gap as e1000's IPGT in byte times (the MAC adds 4: 8 gives Ethernet's 12-byte gap, 1023 a 1027-byte gap); on Ethernet-framed host links, it caps every flow of the NIC together (seed 001's IPG tuning)",
};

const TSO: Key = Key {
    name: "tso",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "segmentation offload: TCP hands the host qdisc aggregates of up to the autosized number of segments (Linux `tcp_tso_autosize`: about 1 ms at the pacing rate, at most 45 × 1448 B), which the NIC sends back to back; pacing applies per aggregate, and an aggregate the windows would cut short waits for the next ACK (`tcp_tso_should_defer`). Linux has it on; off by default here so that the seed-000 and seed-003 reproductions keep their per-packet senders",
};

const GRO: Key = Key {
    name: "gro",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "generic receive offload on receiving hosts (Linux `tcp_gro_receive`): in-order segments of a connection are merged into aggregates below 64 KB that the host's ingress and TCP see (one ACK per aggregate); off by default like `tso`",
};

const GRO_FLUSH: Key = Key {
    name: "gro_flush",
    ty: Ty::Interval,
    default: "`\"50us\"`",
    allowed: "greater than zero",
    meaning: "with `gro`: the NIC's interrupt moderation delay (`ethtool -c` rx-usecs): every packet a host receives, pure ACKs included, waits for the NAPI poll, which runs this long after the first packet that arrived since the last poll and hands the host what GRO merged",
};

const TSQ: Key = Key {
    name: "tsq",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "TCP small queues (Linux `tcp_small_queue_check`): a sender stops while its bytes in the host qdisc and NIC exceed max(2 packets, 1 ms at the pacing rate), at most 1 MiB when unpaced, and resumes as the NIC sends them. Linux has it on; off by default like `tso`",
};

const LOCAL_CWR: Key = Key {
    name: "local_cwr",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "local congestion as Linux `tcp_transmit_skb` handles it: when the sending host's own qdisc would drop a TCP segment (`NET_XMIT_DROP`), the segment is not sent but stays first in line, and the sender enters CWR (`tcp_enter_cwr`: ssthresh from the algorithm, a PRR reduction, no retransmission). Known for drop-tail host queues; `false` lets the qdisc drop it as a loss on the wire would be",
};

const SACK_WALK_COST: Key = Key {
    name: "sack_walk_cost",
    ty: Ty::Time,
    default: "`\"0s\"` (off)",
    allowed: "a time, 0 or more; `\"40ns\"` is the per-skb cache miss of Linux commit 75c119afe14f",
    meaning: "SACK processing cost at sending hosts (net/host/sack_cpu.rs): pure ACKs wait in an input queue of `ack_backlog` and each takes this much CPU time per write-queue entry its SACK blocks make the sender walk, as Linux 2.6.6's `tcp_sacktag_write_queue` (from the queue's head for every block); an ACK that finds the queue full is dropped",
};

const ACK_BACKLOG: Key = Key {
    name: "ack_backlog",
    ty: Ty::Int(1, 1_000_000),
    default: "`300`",
    allowed: "",
    meaning: "with `sack_walk_cost`: the input queue's length in packets (Linux 2.6's `netdev_max_backlog`, `net/core/dev.c`)",
};

const ACK_COST: Key = Key {
    name: "ack_cost",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "a time, 0 or more",
    meaning: "with `sack_walk_cost`: CPU time per ACK besides the SACK walk",
};

/// `[host]`.
pub static KEYS: Schema = Schema {
    title: "[host]",
    place: "[host]",
    noun: "host",
    about: "",
    keys: &[
        JITTER,
        IPG,
        TSO,
        GRO,
        GRO_FLUSH,
        TSQ,
        LOCAL_CWR,
        SACK_WALK_COST,
        ACK_BACKLOG,
        ACK_COST,
    ],
    with: &[],
    variants: None,
};

/// What `[host]` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostSpec {
    /// The largest processing delay of a host NIC.
    pub jitter: JitterSpec,
    /// The host NICs' IPGT (e1000 TIPG): inter-packet gap = IPGT + 4 byte times.
    pub ipgt: u32,
    /// Segmentation offload on sending hosts.
    pub tso: bool,
    /// Generic receive offload on receiving hosts, and its flush delay.
    pub gro: bool,
    pub gro_flush: SimTime,
    /// TCP small queues.
    pub tsq: bool,
    /// A segment the host's own qdisc would drop stays unsent and the sender enters CWR.
    pub local_cwr: bool,
    /// SACK processing model (`net/host/sack_cpu.rs`): CPU time per write-queue entry
    /// walked (0 = off), per ACK, and the input queue's length.
    pub sack_walk_cost: SimTime,
    pub ack_cost: SimTime,
    pub ack_backlog: u32,
}

/// `[host] gro_flush`'s default.
pub const GRO_FLUSH_DEFAULT: SimTime = 50 * crate::engine::US;

impl Default for HostSpec {
    fn default() -> HostSpec {
        HostSpec {
            jitter: JitterSpec::Auto,
            ..HostSpec::EXACT
        }
    }
}

impl HostSpec {
    /// Exact timing: no processing jitter.
    pub const EXACT: HostSpec = HostSpec {
        jitter: JitterSpec::Fixed(0),
        ipgt: IPGT_DEFAULT,
        tso: false,
        gro: false,
        gro_flush: GRO_FLUSH_DEFAULT,
        tsq: false,
        local_cwr: true,
        sack_walk_cost: 0,
        ack_cost: 0,
        ack_backlog: sack_cpu::NETDEV_MAX_BACKLOG_2_6,
    };
}

/// Read `[host]`.
pub fn parse(ck: &mut Checker, root: Tab) -> HostSpec {
    let mut h = HostSpec::default();
    if let Some(t) = ck.table(root, "host", "host") {
        ck.check_keys(t, &KEYS, None);
        if let Some(j) = ck.opt(t, JITTER.name, |v| match v {
            Value::String(s) if s == "auto" => Ok(JitterSpec::Auto),
            _ => time(v)
                .map(JitterSpec::Fixed)
                .map_err(|e| format!("{e}; or \"auto\"")),
        }) {
            h.jitter = j;
        }
        if let Some(g) = ck.opt(t, IPG.name, crate::schema::check::int(0, IPGT_MAX as i64)) {
            h.ipgt = g as u32;
        }
        ck.get_into(t, &TSO, &mut h.tso);
        ck.get_into(t, &GRO, &mut h.gro);
        ck.get_into(t, &GRO_FLUSH, &mut h.gro_flush);
        ck.get_into(t, &TSQ, &mut h.tsq);
        ck.get_into(t, &LOCAL_CWR, &mut h.local_cwr);
        ck.get_into(t, &SACK_WALK_COST, &mut h.sack_walk_cost);
        ck.get_into(t, &ACK_COST, &mut h.ack_cost);
        ck.get_into(t, &ACK_BACKLOG, &mut h.ack_backlog);
    }
    h
}

/// The host side of the network: what lies between a host's endpoints and its NIC on the
/// way out (TCP small queues' accounting of what a socket has below it) and between its
/// NIC and its endpoints on the way in (GRO, the packets handed over). The ports keep what
/// every port has (qdisc, transmitter, link), so a switch port sees `Port` and `Qdisc`
/// only; the host NIC's egress stage and processing jitter are [`Network::egress`] and
/// [`HostJitter`].
#[derive(Debug, Default)]
pub struct HostStack {
    /// TCP small queues: what each socket has below it.
    pub tsq: Tsq,
    /// TCP small queues: per port (a host NIC), (time, connection, bytes) of the packets
    /// it is sending for a socket that counts them, in the order they finish.
    tsq_done: Vec<VecDeque<(SimTime, u32, u32)>>,
    /// TCP small queues: per port, the time of the earliest `TsqDone` event pending for it
    /// (`SimTime::MAX`: none), so a port is not woken twice for the same instant.
    tsq_armed: Vec<SimTime>,
    /// TCP small queues: sockets released from waiting outside their port's event (a
    /// release at the very instant of another event), to wake when the simulator next
    /// flushes (reused: no allocation).
    tsq_wakes: Vec<u32>,
    /// Generic receive offload on the hosts (`[host] gro`); `None` = off.
    pub gro: Option<Box<super::gro::Gro>>,
    /// The SACK-processing model (`[host] sack_walk_cost`); `None` = off.
    pub sack_cpu: Option<Box<sack_cpu::SackCpu>>,
    /// Packets that reached their destination and wait to be handed over (GRO flushes
    /// several at once); drained by the simulator.
    pub ready: Vec<(NodeId, PktId)>,
    /// What GRO released, with the port each arrived over (scratch, reused).
    pub(super) gro_out: Vec<(PktId, PortId)>,
}

impl HostStack {
    /// NIC `port` sends, finishing at `done`, a packet of `size` bytes whose socket
    /// (`conn`) counts it until then (TCP small queues). Its completion needs an event only
    /// if a sender waits on this port (one may have stopped while all its bytes were still
    /// in the qdisc).
    #[inline]
    pub(super) fn nic_sending<E: From<NetEv>>(
        &mut self,
        port: PortId,
        done: SimTime,
        conn: u32,
        size: u32,
        q: &mut EventQueue<E>,
    ) {
        if self.tsq_done.len() <= port as usize {
            self.tsq_done.resize_with(port as usize + 1, VecDeque::new);
        }
        self.tsq_done[port as usize].push_back((done, conn, size));
        if self.tsq.waiters(port) > 0 {
            self.tsq_arm(port, q);
        }
    }

    /// `port`'s `TsqDone` event: release what the NIC finished by now, and come back at
    /// the next completion while a sender still waits. Returns the one sender to wake now,
    /// if exactly one was released (more are woken by events).
    pub(super) fn tsq_due<E: From<NetEv>>(
        &mut self,
        port: PortId,
        q: &mut EventQueue<E>,
    ) -> Option<u32> {
        let now = q.now();
        if self.tsq_armed[port as usize] == now {
            self.tsq_armed[port as usize] = SimTime::MAX;
        }
        self.settle_tsq(port, now);
        self.tsq_arm(port, q);
        if self.tsq_wakes.len() == 1 {
            return self.tsq_wakes.pop();
        }
        self.flush_tsq_wakes(q);
        None
    }

    /// Release the bytes of what `port`'s NIC finished sending by `now` (TCP small
    /// queues); senders waiting for them go into the wake list.
    #[inline]
    pub fn settle_tsq(&mut self, port: PortId, now: SimTime) {
        let Some(done) = self.tsq_done.get_mut(port as usize) else {
            return;
        };
        while let Some(&(t, conn, size)) = done.front() {
            if t > now {
                break;
            }
            done.pop_front();
            if self.tsq.release(conn, size) {
                self.tsq_wakes.push(conn);
            }
        }
    }

    /// While a sender waits on `port`, have a `TsqDone` event at the head of its list.
    pub fn tsq_arm<E: From<NetEv>>(&mut self, port: PortId, q: &mut EventQueue<E>) {
        if self.tsq.waiters(port) == 0 {
            return;
        }
        if self.tsq_armed.len() <= port as usize {
            self.tsq_armed.resize(port as usize + 1, SimTime::MAX);
        }
        let head = self.tsq_done.get(port as usize).and_then(|d| d.front());
        if let Some(&(t, _, _)) = head {
            if t < self.tsq_armed[port as usize] {
                self.tsq_armed[port as usize] = t;
                q.schedule(t, NetEv::TsqDone { port }.into());
            }
        }
    }

    /// The sender of `conn` stops until bytes of it leave NIC `port` (TCP small queues;
    /// `u32::MAX`: no NIC known, nothing to arm).
    pub fn tsq_wait<E: From<NetEv>>(&mut self, conn: u32, port: PortId, q: &mut EventQueue<E>) {
        self.tsq.wait_on(conn, port);
        self.tsq_arm(port, q);
    }

    /// Are senders released outside their port's event waiting to be woken?
    #[inline]
    pub fn wakes_pending(&self) -> bool {
        !self.tsq_wakes.is_empty()
    }

    /// Wake, now, the senders released outside their port's event.
    pub fn flush_tsq_wakes<E: From<NetEv>>(&mut self, q: &mut EventQueue<E>) {
        let now = q.now();
        for conn in self.tsq_wakes.drain(..) {
            q.schedule(now, NetEv::TsqWake { conn }.into());
        }
    }
}

/// TCP small queues (Linux `sk_wmem_alloc` and `TSQ_THROTTLED`): per connection, the
/// bytes its sender's packets hold in the host qdisc and NIC, and whether the sender waits
/// for them to leave (and on which NIC port); per port, how many senders wait on it. Empty
/// unless a sender uses TSQ (`[host] tsq`).
///
/// A NIC's sent packets leave the count lazily (`HostStack::settle_tsq`): when their socket
/// is next told its bytes (`Sim::prep_io`), when a closed connection's slot is looked at
/// for reuse, and — the only time an event is needed — at each completion on a port while
/// a sender waits on it (`HostStack::tsq_arm`), which wakes the sender at its packet's
/// completion as Linux's `tcp_wfree` does.
#[derive(Debug, Default)]
pub struct Tsq {
    bytes: Vec<u64>,
    waiting: Vec<bool>,
    /// The NIC port a waiting sender waits on (`u32::MAX`: none known).
    waiting_port: Vec<u32>,
    /// Per port, the senders waiting on it.
    waiting_on: Vec<u32>,
}

impl Tsq {
    /// Bytes connection `conn`'s sender has below it.
    #[inline]
    pub fn below(&self, conn: u32) -> u64 {
        self.bytes.get(conn as usize).copied().unwrap_or(0)
    }

    fn grow(&mut self, conn: u32) {
        if self.bytes.len() <= conn as usize {
            self.bytes.resize(conn as usize + 1, 0);
            self.waiting.resize(conn as usize + 1, false);
            self.waiting_port.resize(conn as usize + 1, u32::MAX);
        }
    }

    /// A packet of `size` bytes enters the host qdisc.
    fn hold(&mut self, conn: u32, size: u32) {
        self.grow(conn);
        self.bytes[conn as usize] += size as u64;
    }

    /// The sender of `conn` stopped until bytes leave NIC `port` (`u32::MAX`: a port not
    /// known; it is then woken only by a drop or an orphaning, which release at once).
    pub fn wait_on(&mut self, conn: u32, port: u32) {
        self.grow(conn);
        let c = conn as usize;
        if self.waiting[c] {
            return;
        }
        self.waiting[c] = true;
        self.waiting_port[c] = port;
        if port != u32::MAX {
            if self.waiting_on.len() <= port as usize {
                self.waiting_on.resize(port as usize + 1, 0);
            }
            self.waiting_on[port as usize] += 1;
        }
    }

    /// How many senders wait on `port`.
    #[inline]
    pub fn waiters(&self, port: u32) -> u32 {
        self.waiting_on.get(port as usize).copied().unwrap_or(0)
    }

    /// Connection `c` waits no more; true if it was waiting.
    fn unwait(&mut self, c: usize) -> bool {
        if !std::mem::take(&mut self.waiting[c]) {
            return false;
        }
        let port = self.waiting_port[c];
        if port != u32::MAX {
            self.waiting_on[port as usize] -= 1;
        }
        true
    }

    /// Connection `conn` closed: it waits for nothing any more. (Its bytes still below
    /// it are released as they leave; its slot is not reused before.)
    pub fn forget(&mut self, conn: u32) {
        if (conn as usize) < self.waiting.len() {
            self.unwait(conn as usize);
        }
    }

    /// A packet of `size` bytes left (sent or dropped); true when its sender was waiting
    /// (it is woken once: `TSQ_THROTTLED` is cleared).
    pub(super) fn release(&mut self, conn: u32, size: u32) -> bool {
        let c = conn as usize;
        self.bytes[c] -= size as u64;
        self.unwait(c)
    }
}

impl Network {
    /// Does host `node`'s qdisc pace (honour earliest departure times, as `fq`)? Then TCP
    /// leaves the pacing to it (`SK_PACING_FQ`).
    pub fn host_qdisc_paces(&self, node: NodeId) -> bool {
        self.nodes[node as usize]
            .ports
            .iter()
            .any(|&p| self.ports[p as usize].qdisc.honours_edt())
    }

    /// The host egress stage: packet `id`, sent by an endpoint or app of `host`, enters the
    /// host qdisc of the NIC its route leaves by.
    #[inline]
    pub fn egress<E: From<NetEv>, T: Tap>(
        &mut self,
        host: NodeId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let p = cx.pool.get(id);
        if p.tsq {
            self.host.tsq.hold(p.conn, p.size);
        }
        let (dst, hash) = (p.dst, p.hash);
        self.route(host, id, dst, hash, cx)
    }

    /// Host `node` answers the echo request `id` that reached it: the reply reuses the
    /// request's slot and copies its TOS (Linux `icmp_reply`), so an ECT request
    /// (`ping -Q`) gets an ECT(0) reply.
    pub fn echo_reply<E: From<NetEv>, T: Tap>(
        &mut self,
        node: NodeId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let r = cx.pool.get_mut(id);
        debug_assert_eq!(r.kind, PktKind::Ping);
        r.kind = PktKind::Pong;
        std::mem::swap(&mut r.src, &mut r.dst);
        // The reply goes back to the client's end of the probe's connection.
        r.from_client = false;
        r.ecn = if r.ecn == NOT_ECT { NOT_ECT } else { ECT0 };
        self.egress(node, id, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EventQueue, US};
    use crate::net::{NoTap, NodeKind};
    use crate::packet::{Packet, PacketPool};
    use crate::qdisc::Qdisc;
    use crate::qdisc::QueueSpec;
    use crate::schema::Limit;

    #[derive(Clone, Copy)]
    enum Ev {
        Net(NetEv),
        /// The stack of h0 hands packet number i to the egress stage.
        Send(u64),
    }
    impl From<NetEv> for Ev {
        fn from(e: NetEv) -> Ev {
            Ev::Net(e)
        }
    }

    /// h0 sends packets at random times (gaps from well below to well above the NIC's
    /// serialisation time and the jitter) over a 1 Gbit/s link to h1; returns, per packet
    /// in the order they arrive, (number, handed over at, serialisation started at).
    fn run(jitter: SimTime, sends: &[SimTime]) -> Vec<(u64, SimTime, SimTime)> {
        let mut net = Network::default();
        let h0 = net.add_node("h0", NodeKind::Host);
        let h1 = net.add_node("h1", NodeKind::Host);
        let q = || Qdisc::from_spec(&QueueSpec::droptail(Limit::Packets(100_000)));
        let nic = net.add_link("h0_up", h0, h1, 1_000_000_000, 3 * US, q());
        net.add_link("h1_up", h1, h0, 1_000_000_000, 3 * US, q());
        net.finish();
        net.ports[nic as usize].set_jitter(HostJitter::new(jitter, Rng::new(7, 1)));
        let (ser, delay) = {
            let p = &net.ports[nic as usize];
            (p.ser_time(1500), p.delay)
        };
        let mut pool = PacketPool::default();
        let mut q = EventQueue::<Ev>::new();
        for (i, &t) in sends.iter().enumerate() {
            q.schedule(t, Ev::Send(i as u64));
        }
        let mut tap = NoTap;
        let mut got = Vec::new();
        while let Some((now, ev)) = q.pop_until(SimTime::MAX) {
            let mut cx = NetCtx {
                pool: &mut pool,
                q: &mut q,
                tap: &mut tap,
            };
            match ev {
                Ev::Send(i) => {
                    let mut p = Packet::blank();
                    p.src = h0;
                    p.dst = h1;
                    p.size = 1500;
                    p.seq = i;
                    let id = cx.pool.alloc(p);
                    net.egress(h0, id, &mut cx);
                }
                Ev::Net(e) => {
                    if let crate::net::forward::NetOut::Deliver(_, id) = net.on_event(e, &mut cx) {
                        let i = cx.pool.get(id).seq;
                        got.push((i, sends[i as usize], now - delay - ser));
                        cx.pool.free(id);
                    }
                }
            }
        }
        assert_eq!(got.len(), sends.len(), "every packet arrives");
        got
    }

    fn send_times() -> Vec<SimTime> {
        let mut r = Rng::new(3, 0);
        let mut t = 0;
        (0..4000)
            .map(|_| {
                // Gaps of 0 to 100 µs: bursts, back-to-back trains and idle NICs.
                t += r.below(100 * US);
                t
            })
            .collect()
    }

    #[test]
    fn jitter_keeps_order_and_delays_an_idle_nic_by_at_most_the_jitter() {
        let j = 50 * US;
        let sends = send_times();
        let got = run(j, &sends);
        let ser = crate::engine::tx_time(1538, 1_000_000_000);
        let mut end = 0;
        let mut delays = Vec::new();
        for (k, &(i, handed, start)) in got.iter().enumerate() {
            assert_eq!(i, k as u64, "packets leave in the order they were sent");
            assert!(start >= handed && start >= end, "packet {i}");
            if end <= handed {
                // The NIC was idle: the packet waits U(0, j).
                assert!(start - handed <= j, "packet {i} waited {}", start - handed);
                delays.push(start - handed);
            } else {
                // The NIC was busy (or holding an earlier packet): back to back.
                assert_eq!(
                    start, end,
                    "packet {i} follows the previous one back to back"
                );
            }
            end = start + ser;
        }
        // The delays cover [0, j] evenly: uniform, mean j/2 (its standard error here is
        // about j/100).
        let n = delays.len() as f64;
        assert!(n > 1000.0, "{n} packets found the NIC idle");
        let mean = delays.iter().sum::<u64>() as f64 / n;
        assert!((mean / j as f64 - 0.5).abs() < 0.05, "mean delay {mean} ps");
        assert!(*delays.iter().min().unwrap() < j / 50);
        assert!(*delays.iter().max().unwrap() > j - j / 50);
    }

    /// `"auto"` on a network of two hosts joined by links of `rate` bit/s.
    fn auto_at(rate: u64) -> SimTime {
        let mut net = Network::default();
        let h0 = net.add_node("h0", NodeKind::Host);
        let h1 = net.add_node("h1", NodeKind::Host);
        let q = || Qdisc::from_spec(&QueueSpec::droptail(Limit::Packets(100)));
        net.add_link("h0_up", h0, h1, rate, 3 * US, q());
        net.add_link("h1_up", h1, h0, 10 * rate, 3 * US, q());
        net.finish();
        HostJitter::max_of(JitterSpec::Auto, &net)
    }

    #[test]
    fn auto_is_one_packet_time_at_the_slowest_link_but_at_most_a_hosts_interrupt_interval() {
        let packet = |rate| crate::engine::tx_time(1538, rate);
        assert_eq!(AUTO_HOST_MAX, 125 * US, "e1000: 8000 interrupts per second");
        // Fast links: one packet time at the slowest (the 10× faster reverse link does not
        // count), as before the bound: 12.3 µs at 1 Gbit/s, 123 µs at 100 Mbit/s (the
        // phase-effect scenario, tests/it/phase.rs).
        assert_eq!(auto_at(1_000_000_000), packet(1_000_000_000));
        assert_eq!(auto_at(100_000_000), packet(100_000_000));
        assert!(auto_at(100_000_000) < AUTO_HOST_MAX);
        // Slow links: a packet time of 1.23 ms at 10 Mbit/s (and 12.3 ms at 1 Mbit/s) is
        // no host's; the bound holds.
        assert_eq!(packet(10_000_000), 1_230_400 * 1000);
        assert_eq!(auto_at(10_000_000), AUTO_HOST_MAX);
        assert_eq!(auto_at(1_000_000), AUTO_HOST_MAX);
        // Where the two meet: 1538 bytes in 125 µs is 98.4 Mbit/s.
        assert_eq!(auto_at(98_000_000), AUTO_HOST_MAX);
        assert_eq!(auto_at(99_000_000), packet(99_000_000));
        // A fixed jitter is what it says, above the bound too.
        let mut net = Network::default();
        net.finish();
        assert_eq!(HostJitter::max_of(JitterSpec::Fixed(US), &net), US);
        assert_eq!(
            HostJitter::max_of(JitterSpec::Fixed(2 * AUTO_HOST_MAX), &net),
            2 * AUTO_HOST_MAX
        );
    }

    #[test]
    fn without_jitter_an_idle_nic_starts_at_once() {
        let sends = send_times();
        let got = run(0, &sends);
        let ser = crate::engine::tx_time(1538, 1_000_000_000);
        let mut end = 0;
        for &(_, handed, start) in &got {
            assert_eq!(start, handed.max(end));
            end = start + ser;
        }
        let mut off = HostJitter::off();
        assert_eq!((0..10).map(|_| off.draw()).sum::<u64>(), 0);
    }
}
