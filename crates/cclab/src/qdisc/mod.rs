//! Queue disciplines: one trait, [`QueueDisc`], and the built-in disciplines behind an
//! enum, [`Qdisc`], so the per-packet path dispatches by `match`, never through a pointer.
//!
//! A qdisc sees a packet only through [`PktMeta`] (length, ECN codepoint, DSCP, flow hash,
//! time) and its id, and time is passed in, never read from a clock, so the same code can
//! later sit in a user-space router in front of real Linux TCP. What it needs to remember
//! about a queued packet (its length, its arrival time) it keeps itself.
//!
//! - `enqueue(id, meta)` answers [`Verdict`]: queue the packet (optionally marked: the CE
//!   codepoint, or a one-octet congestion value OR-ed into the packet's `cong` field) or
//!   drop it.
//! - `dequeue(now, drops)` answers [`Deq`]: a packet (optionally marked at dequeue),
//!   `Empty`, or `NotBefore(t)` — the head may not leave before `t` (a shaper, a paced
//!   host). Packets the discipline drops at dequeue (CoDel) go into `drops`.
//! - `backlog()` is what the queue holds, in IP bytes and packets.
//! - `start(rng)` and `on_timer(now)`: a discipline with periodic work of its own (PIE's
//!   drop-probability update every `tupdate`) asks for a timer; the network delivers it
//!   as an event of the port (`NetEv::QdiscTimer`). The others answer `None` once, before
//!   the run, and cost nothing after.
//!
//! The port that owns a qdisc (`net::port`) keeps every statistic (arrivals, drops,
//! marks, maxima, the time-average), so a discipline only decides.
//!
//! Byte counts are IP packet lengths (what a switch buffer holds); link framing overhead
//! belongs to the port and is added only to serialisation time.
//!
//! Adding a discipline: one file here implementing [`QueueDisc`] with its scenario keys,
//! and one line in the `qdiscs!` registry below.

pub mod bucket;
pub mod classful;
pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod ecn;
pub mod fifo;
pub mod flowq;
pub mod fq;
pub mod fq_codel;
pub mod fq_pie;
pub mod htb;
pub mod linkrate;
pub mod netem;
pub mod pie;
pub mod police;
pub mod red;
pub mod tbf;

use crate::engine::{Rng, SimTime};
use crate::packet::PktId;
use crate::schema::check::{Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty, Variants};

pub use fifo::Fifo;

/// What a qdisc may look at.
#[derive(Clone, Copy, Debug, Default)]
pub struct PktMeta {
    /// IP length in bytes.
    pub len: u32,
    /// IP ECN codepoint.
    pub ecn: u8,
    pub dscp: u8,
    /// The flow's hash (ECMP, fair queueing).
    pub hash: u32,
    /// Segments the packet carries: 1, or n > 1 for a segmentation-offload aggregate (a
    /// GSO skb), whose `len` is the sum of its segments' IP lengths.
    pub segs: u16,
    /// Earliest departure time the sender asked for (0 = none): what `sch_fq` honours.
    pub edt: SimTime,
    pub now: SimTime,
    /// An Ouroboros flow packet (seed 002), and its one-octet congestion field (`cong`;
    /// false and 0 for every other packet): what the flow layer's router marking reads.
    pub flow: bool,
    pub cong: u8,
}

/// A congestion signal written into a packet by a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Leave the packet as it is.
    None,
    /// Set the IP ECN field to CE (RFC 3168).
    Ce,
    /// OR this value into the packet's one-octet congestion field (multi-bit ECN, seed 002).
    Cong(u8),
    /// Set a flow packet's congestion field to this octet: the one the IPCP in front of
    /// the queue wrote (`update_ecn_in_router`; `flow::router`), which is not a mark of
    /// the queue's. The two below add the queue's own mark (counted as a mark): the
    /// octet then includes what the queue ORed in, or CE is set too.
    Rewrite(u8),
    RewriteMarked(u8),
    RewriteCe(u8),
}

/// The qdisc's decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue it, marked as given.
    Queue(Mark),
    /// Drop it (the qdisc keeps no reference to it).
    Drop,
    /// It is a segmentation-offload aggregate (`PktMeta::segs` > 1) the discipline will not
    /// take whole: the port cuts it into its segments and offers each one in turn
    /// (`tbf_segment` in Linux `sch_tbf.c`). Never answered for a single packet.
    Segment,
    /// Copy the packet: the port offers the copy to the port's (root) discipline, then
    /// offers this packet again (netem's `duplicate`, whose clone is enqueued at the root
    /// before the original is queued). Answered only by a netem with `duplicate`.
    Duplicate,
}

impl Verdict {
    /// Queue it unchanged.
    pub const ENQUEUE: Verdict = Verdict::Queue(Mark::None);
    /// Queue it with CE set.
    pub const MARK_CE: Verdict = Verdict::Queue(Mark::Ce);
}

/// The qdisc's answer when the transmitter asks for the next packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deq {
    /// Send this packet, marked as given.
    Packet(PktId, Mark),
    /// Nothing queued.
    Empty,
    /// Packets are queued but none may leave before this time.
    NotBefore(SimTime),
}

/// What a queue holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub bytes: u64,
    pub pkts: u64,
}

/// The qdisc's decision on a packet that finds the queue empty and the transmitter idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Transmit it now, marked as given: the queue stays empty (Linux's qdisc bypass).
    Send(Mark),
    /// It was queued, marked as given; the port asks `dequeue` as usual.
    Queued(Mark),
    /// Drop it.
    Drop,
    /// Cut the aggregate into its segments and offer each one ([`Verdict::Segment`]).
    Segment,
    /// Offer a copy, then this packet again ([`Verdict::Duplicate`]).
    Duplicate,
}

/// A queue discipline.
pub trait QueueDisc {
    /// Decide on packet `id` and, unless dropped, queue it.
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict;
    /// Decide on packet `id`, which finds the queue empty and the transmitter idle. A
    /// work-conserving discipline answers `Send` when it would queue the packet and then
    /// hand it straight back (what `pfifo`/`bfifo` allow with `TCQ_F_CAN_BYPASS`): the
    /// same decision as `enqueue`, without the round trip. The default queues it.
    #[inline]
    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        match self.enqueue(id, m) {
            Verdict::Queue(mark) => Offer::Queued(mark),
            Verdict::Drop => Offer::Drop,
            Verdict::Segment => Offer::Segment,
            Verdict::Duplicate => Offer::Duplicate,
        }
    }
    /// The next packet to transmit at `now`; packets dropped on the way go into `drops`.
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq;
    /// What the queue holds now.
    fn backlog(&self) -> Backlog;
    /// The length of the packet `dequeue` would return next, when the discipline knows it
    /// without dequeuing (Linux `.peek`); `None` when empty. Deficit round robin needs it.
    fn peek_len(&self) -> Option<u32>;
    /// Does the discipline release a queued packet from its socket's accounting at once
    /// (netem with a delay calls `skb_orphan_partial`, so TCP small queues stop counting
    /// what sits in the delay line)?
    #[inline]
    fn orphans(&self) -> bool {
        false
    }
    /// The FIFO of a discipline that decides everything when a packet arrives and sends
    /// in arrival order whatever the time (drop-tail, ECN threshold). Its port knows, when
    /// it admits a packet, when that packet will start: it can put it on the wire at once
    /// (`Port::direct`, `net/forward.rs`). `None` (the default): the port runs on events.
    #[inline]
    fn arrival_fifo(&mut self) -> Option<&mut Fifo> {
        None
    }
    /// How many more packets of `len` bytes the discipline admits now, as a host's stack
    /// sees its NIC queue (`u32::MAX`, the default: it does not say).
    #[inline]
    fn room(&self, _len: u32) -> u32 {
        u32::MAX
    }
    /// Does the discipline hold packets until their earliest departure time (`fq`)? A
    /// sender then hands its pacing to the qdisc, as Linux's TCP does with `sch_fq`.
    #[inline]
    fn honours_edt(&self) -> bool {
        false
    }
    /// Called once before the run with the port's random stream (drawn from the run's
    /// seed; a discipline that draws keeps a stream of its own, `Rng::new(rng.next_u64(),
    /// 0)`): the time of the discipline's first timer, if it keeps one (a Linux qdisc's
    /// `timer_list`, as PIE's `adapt_timer`). `None`, the default: no timer, and no event
    /// is ever scheduled for it.
    #[inline]
    fn start(&mut self, _rng: &mut Rng) -> Option<SimTime> {
        None
    }
    /// The timer asked for (by `start` or the last `on_timer`) is due at `now`: the
    /// discipline's periodic work, which does not change what it holds (the port does not
    /// look at its queue after it). Returns when the next one is due.
    #[inline]
    fn on_timer(&mut self, _now: SimTime) -> Option<SimTime> {
        None
    }
    /// The port's link went down (Linux `dev_deactivate` → `qdisc_reset`, the discipline's
    /// `.reset`): every packet the discipline holds goes into `drops`, and it is left
    /// empty. The default takes what `dequeue(now)` gives until it gives no packet, which
    /// empties a discipline that holds nothing back; one that holds packets back (a
    /// shaper, a delay line, pacing, a trace-driven link) drops them itself.
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        while let Deq::Packet(id, _) = self.dequeue(now, drops) {
            drops.push(id);
        }
    }
}

/// The queue of a shaper that only holds back its child's dequeue (tbf, htb): what it
/// holds, its head and whether it orphans are its child's (`self.child`).
macro_rules! queue_is_the_childs {
    () => {
        fn backlog(&self) -> Backlog {
            self.child.backlog()
        }

        fn peek_len(&self) -> Option<u32> {
            self.child.peek_len()
        }

        fn orphans(&self) -> bool {
            self.child.orphans()
        }

        fn start(&mut self, rng: &mut crate::engine::Rng) -> Option<SimTime> {
            self.child.start(rng)
        }

        fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
            self.child.on_timer(now)
        }
    };
}
pub(crate) use queue_is_the_childs;

/// What every discipline's scenario description offers: the discipline it builds and the
/// limit it holds packets up to.
pub trait QdiscSpec {
    type Q: QueueDisc;
    fn build(&self) -> Self::Q;
    /// The (port-wide) limit.
    fn limit(&self) -> Limit;
}

// A boxed discipline is a big one: its calls stay out of line, so the `Qdisc` dispatch
// that every packet goes through stays small enough to inline. Every method forwards: a
// trait default left here would answer for the boxed discipline instead of its own.
impl<T: QueueDisc + ?Sized> QueueDisc for Box<T> {
    #[inline(never)]
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        (**self).enqueue(id, m)
    }
    #[inline(never)]
    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        (**self).offer_idle(id, m)
    }
    #[inline(never)]
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        (**self).dequeue(now, drops)
    }
    #[inline(never)]
    fn backlog(&self) -> Backlog {
        (**self).backlog()
    }
    #[inline(never)]
    fn peek_len(&self) -> Option<u32> {
        (**self).peek_len()
    }
    #[inline(never)]
    fn orphans(&self) -> bool {
        (**self).orphans()
    }
    #[inline(never)]
    fn arrival_fifo(&mut self) -> Option<&mut Fifo> {
        (**self).arrival_fifo()
    }
    #[inline(never)]
    fn room(&self, len: u32) -> u32 {
        (**self).room(len)
    }
    #[inline(never)]
    fn honours_edt(&self) -> bool {
        (**self).honours_edt()
    }
    #[inline(never)]
    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        (**self).start(rng)
    }
    #[inline(never)]
    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        (**self).on_timer(now)
    }
    #[inline(never)]
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        (**self).reset(now, drops)
    }
}

/// The `queue` a table names, for checking the keys of that discipline (`None` when the
/// value is not a string: it is reported where it is read).
pub fn queue_kind(t: Tab) -> Option<String> {
    match t.t.get("queue") {
        None => Some("droptail".into()),
        Some(toml::Value::String(k)) => Some(k.to_lowercase()),
        _ => None,
    }
}

/// The registry of built-in disciplines: `"name" => Variant(module)`, one line each. A
/// module provides the discipline, its scenario description `Spec` (a [`QdiscSpec`]), its
/// keys `KEYS` and `parse`. The line generates the `Qdisc` enum and its dispatch, the
/// `QueueSpec` enum a scenario holds, and the `queue = "name"` choice of link tables.
macro_rules! qdiscs {
    ($($(#[$doc:meta])* $name:literal => $var:ident($m:ident),)*) => {
        /// A port's queue discipline. `Custom` holds any other implementation (tests, a
        /// library user's own discipline) behind a pointer; the built-ins need none.
        /// An explicit tag byte (`repr(u8)`): without it the compiler may hide the
        /// variant in a niche of one variant's fields, which made every dispatch on the
        /// packet path several instructions longer (bench: +1.5% instructions).
        #[repr(u8)]
        pub enum Qdisc {
            $($(#[$doc])* $var(<$m::Spec as QdiscSpec>::Q),)*
            Custom(Box<dyn QueueDisc + Send>),
        }

        /// A port's queue discipline as a scenario describes it.
        #[derive(Clone, Debug, PartialEq)]
        pub enum QueueSpec {
            $($(#[$doc])* $var($m::Spec),)*
        }

        impl QueueSpec {
            /// The discipline this describes, ready to run.
            pub fn build(&self) -> Qdisc {
                match self {
                    $(QueueSpec::$var(s) => Qdisc::$var(s.build()),)*
                }
            }

            /// The limit of the port's buffer.
            pub fn limit(&self) -> Limit {
                match self {
                    $(QueueSpec::$var(s) => s.limit(),)*
                }
            }
        }

        /// The `queue = …` names, in registry order.
        pub const QUEUE_KINDS: &[&str] = &[$($name),*];

        /// Every discipline's keys, by name.
        pub static QUEUE: Schema = Schema {
            title: "Queue tables",
            place: "a queue table",
            noun: "queue",
            about: "",
            keys: &[Key {
                name: "queue",
                ty: Ty::Choice("queue discipline", QUEUE_KINDS),
                default: "`\"droptail\"`",
                allowed: "",
                meaning: "the queue discipline of the port (the keys below depend on it)",
            }],
            with: &[],
            variants: Some(Variants {
                tag: "queue",
                kinds: &[$(($name, &$m::KEYS)),*],
            }),
        };

        /// Read the discipline `kind` from `t`.
        fn parse_kind(kind: &str, ck: &mut Checker, t: Tab, default_limit: Limit) -> Option<QueueSpec> {
            match kind {
                $($name => $m::parse(ck, t, default_limit).map(QueueSpec::$var),)*
                _ => None,
            }
        }

        impl QueueDisc for Qdisc {
            #[inline(always)]
            fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
                match self {
                    $(Qdisc::$var(q) => q.enqueue(id, m),)*
                    Qdisc::Custom(q) => q.enqueue(id, m),
                }
            }
            #[inline(always)]
            fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
                match self {
                    $(Qdisc::$var(q) => q.offer_idle(id, m),)*
                    Qdisc::Custom(q) => q.offer_idle(id, m),
                }
            }
            #[inline(always)]
            fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
                match self {
                    $(Qdisc::$var(q) => q.dequeue(now, drops),)*
                    Qdisc::Custom(q) => q.dequeue(now, drops),
                }
            }
            #[inline(always)]
            fn backlog(&self) -> Backlog {
                match self {
                    $(Qdisc::$var(q) => q.backlog(),)*
                    Qdisc::Custom(q) => q.backlog(),
                }
            }
            #[inline(always)]
            fn peek_len(&self) -> Option<u32> {
                match self {
                    $(Qdisc::$var(q) => q.peek_len(),)*
                    Qdisc::Custom(q) => q.peek_len(),
                }
            }
            #[inline(always)]
            fn orphans(&self) -> bool {
                match self {
                    $(Qdisc::$var(q) => q.orphans(),)*
                    Qdisc::Custom(q) => q.orphans(),
                }
            }
            #[inline(always)]
            fn arrival_fifo(&mut self) -> Option<&mut Fifo> {
                match self {
                    $(Qdisc::$var(q) => q.arrival_fifo(),)*
                    Qdisc::Custom(q) => q.arrival_fifo(),
                }
            }
            #[inline(always)]
            fn room(&self, len: u32) -> u32 {
                match self {
                    $(Qdisc::$var(q) => q.room(len),)*
                    Qdisc::Custom(q) => q.room(len),
                }
            }
            #[inline(always)]
            fn honours_edt(&self) -> bool {
                match self {
                    $(Qdisc::$var(q) => q.honours_edt(),)*
                    Qdisc::Custom(q) => q.honours_edt(),
                }
            }
            fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
                match self {
                    $(Qdisc::$var(q) => q.start(rng),)*
                    Qdisc::Custom(q) => q.start(rng),
                }
            }
            fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
                match self {
                    $(Qdisc::$var(q) => q.on_timer(now),)*
                    Qdisc::Custom(q) => q.on_timer(now),
                }
            }
            fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
                match self {
                    $(Qdisc::$var(q) => q.reset(now, drops),)*
                    Qdisc::Custom(q) => q.reset(now, drops),
                }
            }
        }
    };
}

qdiscs! {
    /// Tail drop at a byte or packet limit (`droptail.rs`).
    "droptail" => DropTail(droptail),
    /// DCTCP threshold marking at K (`ecn.rs`).
    "ecn" => Ecn(ecn),
    /// DSCP classes with a scheduler (`classful.rs`).
    "dscp" => Classes(classful),
    /// A token-bucket policer in front of a FIFO (`police.rs`).
    "police" => Police(police),
    /// A token-bucket shaper over a child qdisc (`tbf.rs`).
    "tbf" => Tbf(tbf),
    /// Linux's network emulator: delay, jitter, loss models, reordering, rate (`netem.rs`).
    "netem" => Delay(netem),
    /// Linux's fair queueing for hosts, honouring departure stamps (`fq.rs`).
    "fq" => Fq(fq),
    /// Controlled Delay (`codel.rs`).
    "codel" => Codel(codel),
    /// Flow Queue CoDel (`fq_codel.rs`).
    "fq_codel" => FqCodel(fq_codel),
    /// The hierarchical token bucket with one class (`htb.rs`).
    "htb" => Htb(htb),
    /// Random Early Detection as Linux `sch_red` (`red.rs`).
    "red" => Red(red),
    /// Proportional Integral controller Enhanced as Linux `sch_pie` (`pie.rs`).
    "pie" => Pie(pie),
    /// Flow Queue PIE as Linux `sch_fq_pie` (`fq_pie.rs`).
    "fq_pie" => FqPie(fq_pie),
    /// The DualQ Coupled AQM with PI2 as Linux `sch_dualpi2` (`dualpi2.rs`).
    "dualpi2" => DualPi2(dualpi2),
}

/// The `name = { … }` table a discipline keeps its own keys in (their `rate` or `delay` are
/// not the link's), checked against `schema`; an error naming `example` when it is missing.
pub(crate) fn own_table<'v>(
    ck: &mut Checker,
    t: Tab<'v>,
    name: &str,
    path: &'v str,
    schema: &'static Schema,
    example: &str,
) -> Option<Tab<'v>> {
    match ck.table(t, name, path) {
        Some(st) => {
            ck.check_keys(st, schema, None);
            Some(st)
        }
        None => {
            if !t.t.contains_key(name) {
                ck.err(
                    path,
                    None,
                    format!("queue = \"{name}\" needs {name} = {example}"),
                );
            }
            None
        }
    }
}

/// The child qdisc given as `child = { queue = …, … }` in `t` (tbf, htb), if any.
pub(crate) fn parse_child(
    ck: &mut Checker,
    t: Tab,
    path: &str,
    default_limit: Limit,
) -> Option<QueueSpec> {
    let ct = ck.table(t, "child", path)?;
    let kind = queue_kind(ct);
    ck.check_keys(ct, &QUEUE, kind.as_deref());
    Some(parse(ck, ct, default_limit))
}

/// A rate as the kernel's shapers and policers hold it (`struct psched_ratecfg`): bytes
/// per second and the multiplier and shift that turn a length into nanoseconds without a
/// division (`psched_ratecfg_precompute`), so times round down as Linux's do (1500 bytes
/// at 3 Mbit/s take 3,999,999 ns, not 4,000,000).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratecfg {
    mult: u32,
    shift: u8,
}

impl Ratecfg {
    /// `psched_ratecfg_precompute__`: the largest shift for which NSEC_PER_SEC << shift
    /// over the rate in bytes/s still fits the multiplier's 31 bits.
    pub fn new(bps: u64) -> Ratecfg {
        let rate = bps / 8; // tc hands the kernel bytes per second
        let (mut mult, mut shift, mut factor) = (1u64, 0u8, 1_000_000_000u64);
        // A zero rate keeps mult 1, shift 0, as the kernel's early return does.
        while let Some(m) = factor.checked_div(rate) {
            mult = m;
            if mult & (1 << 31) != 0 || factor & (1 << 63) != 0 {
                break;
            }
            factor <<= 1;
            shift += 1;
        }
        Ratecfg {
            mult: mult as u32,
            shift,
        }
    }

    /// No rate (a peak rate not configured).
    pub const NONE: Ratecfg = Ratecfg { mult: 0, shift: 0 };

    pub fn is_set(&self) -> bool {
        self.mult != 0
    }

    /// `psched_l2t_ns`: the time `len` bytes take at this rate, in ns.
    #[inline]
    pub fn l2t(&self, len: u32) -> i64 {
        ((len as u64 * self.mult as u64) >> self.shift) as i64
    }
}

/// Read the queue of a link or queue table `t`: `queue` (default drop-tail) and the keys
/// of that discipline; `default_limit` where the table gives none.
pub fn parse(ck: &mut Checker, t: Tab, default_limit: Limit) -> QueueSpec {
    let kind = ck
        .get::<String>(t, &QUEUE.keys[0])
        .unwrap_or_else(|| "droptail".into());
    let fallback = || {
        QueueSpec::DropTail(droptail::Spec {
            limit: default_limit,
        })
    };
    parse_kind(&kind, ck, t, default_limit).unwrap_or_else(fallback)
}

impl std::fmt::Debug for Qdisc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = self.backlog();
        write!(f, "Qdisc({} B, {} pkts)", b.bytes, b.pkts)
    }
}

impl Qdisc {
    pub fn from_spec(spec: &QueueSpec) -> Qdisc {
        spec.build()
    }

    /// Bytes queued.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.backlog().bytes
    }

    /// Packets queued.
    #[inline]
    pub fn pkts(&self) -> u64 {
        self.backlog().pkts
    }
}

/// What the ports ask a discipline, through the `Qdisc` dispatch and the `Box` forwarding
/// (a boxed discipline such as `fq` answers for itself, not with the trait's default).
#[cfg(test)]
#[test]
fn the_port_questions_reach_the_discipline() {
    let p = Limit::Packets(10);
    let mut tail = QueueSpec::droptail(p).build();
    let mut ecn = QueueSpec::ecn(p, Limit::Packets(5)).build();
    let mut fq = QueueSpec::fq(fq::Spec::default()).build();
    assert!(tail.arrival_fifo().is_some() && ecn.arrival_fifo().is_some());
    assert!(fq.arrival_fifo().is_none());
    assert_eq!(tail.room(1500), 10);
    assert_eq!((ecn.room(1500), fq.room(1500)), (u32::MAX, u32::MAX));
    assert!(fq.honours_edt() && !tail.honours_edt() && !ecn.honours_edt());
}

/// The `Qdisc` enum sits inline in every port: big disciplines are boxed so that it stays
/// the size of the small ones (80 bytes, as before the AQMs and shapers were added).
#[cfg(test)]
#[test]
fn qdisc_enum_stays_small() {
    assert!(
        std::mem::size_of::<Qdisc>() <= 80,
        "{}",
        std::mem::size_of::<Qdisc>()
    );
}

/// `psched_l2t_ns` by hand: 3 Mbit/s = 375,000 B/s; the shift grows until
/// 10⁹·2^shift / 375,000 reaches 2³¹: shift 20, mult ⌊2,796,202,666.67⌋ = 2,796,202,666;
/// 1500 · mult >> 20 = 3,999,999.999… → 3,999,999 ns (exact division: 4,000,000). At
/// 1 Gbit/s the multiplier is 2³¹ at shift 28, so 1500 B take exactly 12,000 ns.
#[cfg(test)]
#[test]
fn ratecfg_rounds_as_the_kernel_does() {
    let r = Ratecfg::new(3_000_000);
    assert_eq!((r.mult, r.shift), (2_796_202_666, 20));
    assert_eq!(r.l2t(1500), 3_999_999);
    let g = Ratecfg::new(1_000_000_000);
    assert_eq!((g.mult, g.shift), (1 << 31, 28));
    assert_eq!(g.l2t(1500), 12_000);
}

/// A discipline's timer reaches it inside a shaper (tbf, htb) and a class of the DSCP
/// classes: PIE's first update at 500 ms and the next a tupdate later; a parent of
/// disciplines without timers asks for none; among classes, the earliest timer is the
/// port's and only the classes due run theirs.
#[cfg(test)]
#[test]
fn timers_reach_a_child_discipline() {
    use crate::engine::MS;
    let mut rng = Rng::new(1, 2);
    let p = Limit::Packets(10);
    for spec in [
        QueueSpec::tbf(10_000_000, 10_000, QueueSpec::pie()),
        QueueSpec::htb(10_000_000, QueueSpec::pie()),
    ] {
        let mut q = spec.build();
        assert_eq!(q.start(&mut rng), Some(500 * MS));
        assert_eq!(q.on_timer(500 * MS), Some(515 * MS));
    }
    assert_eq!(
        QueueSpec::tbf(10_000_000, 10_000, QueueSpec::droptail(p))
            .build()
            .start(&mut rng),
        None
    );
    let class = |dscp: Vec<u8>, queue: QueueSpec| classful::ClassSpec {
        dscp,
        queue,
        weight: 1,
    };
    let mut pie = pie::Spec {
        params: pie::PieParams::default(),
    };
    pie.params.tupdate = 20 * MS;
    let mut q = QueueSpec::dscp(
        vec![
            class(vec![1], QueueSpec::pie()),
            class(vec![2], QueueSpec::droptail(p)),
            class(vec![], QueueSpec::Pie(pie)),
        ],
        classful::Sched::Drr,
        None,
    )
    .build();
    assert_eq!(q.start(&mut rng), Some(500 * MS));
    assert_eq!(q.on_timer(500 * MS), Some(515 * MS));
    assert_eq!(q.on_timer(515 * MS), Some(520 * MS));
    assert_eq!(q.on_timer(520 * MS), Some(530 * MS));
}
