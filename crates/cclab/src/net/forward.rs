//! A packet's way through the network: a node forwards it to the output port its route
//! names; the port's qdisc takes it (or drops it); the transmitter serialises it; the wire
//! delivers it to the next node after the link delay; at its destination host it leaves
//! the network (the simulator hands it to the transport or the app).
//!
//! The network schedules its own events (`NetEv`) on the simulator's queue and reports
//! what passes a port or reaches a node to a [`Tap`] (pcap capture), which costs one
//! branch when nothing listens.
//!
//! This file holds forwarding, the enqueue into a port's discipline and transmission;
//! `forward/arrive.rs` a packet's arrival at the next node, the event dispatch and TCP
//! small queues' completions.

use super::packet::{split_gso, PacketPool, PktId};
use super::{Network, NodeId, PortId};
use crate::engine::{EventQueue, SimTime};
use crate::packet::{Packet, PktKind, CE};
use crate::qdisc::{Deq, Mark, Offer, PktMeta, QueueDisc, Verdict};

mod arrive;

/// The network's own events.
#[derive(Clone, Copy, Debug)]
pub enum NetEv {
    /// Packet `id`, the head of `port`'s wire, reaches the far end of the link.
    Arrive { port: PortId, id: PktId },
    /// `port`'s transmitter finished a packet, or a wake-up it asked for is due.
    TxDone { port: PortId },
    /// A sender waits on host NIC `port`, and the head of its TCP-small-queues list
    /// finishes now.
    TsqDone { port: PortId },
    /// A socket stopped by TCP small queues may send again (a packet of it was dropped).
    TsqWake { conn: u32 },
    /// The NAPI poll of host `node` ends: what GRO holds is delivered.
    GroFlush { node: NodeId },
    /// Host `node`'s CPU finished processing ACK `id` (`net/host/sack_cpu.rs`).
    AckDone { node: NodeId, id: PktId },
    /// A timer `port`'s discipline asked for is due (`QueueDisc::on_timer`).
    QdiscTimer { port: PortId },
    /// A change to a link is due (`[[event]]`: `net/dynamics/events.rs`).
    LinkChange { change: u32 },
}

/// What a network event hands back to the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetOut {
    Nothing,
    /// The packet reached its destination host, where it leaves the network.
    Deliver(NodeId, PktId),
    /// Bytes of connection `conn`'s sender left its host, and it waits for that (TCP
    /// small queues).
    TsqWake(u32),
    /// Packets reached their destinations: they wait in `HostStack::ready` (`Network::host`).
    Ready,
}

/// Who watches packets pass (pcap capture).
pub trait Tap {
    /// Packet `p` starts serialising on `port` at `at`; it is `now` (a packet put on a
    /// direct port's wire while others are ahead of it starts later: `at` >= `now`).
    fn on_tx(&mut self, now: SimTime, at: SimTime, port: PortId, p: &Packet);
    /// Packet `p` reaches `node` at `now`.
    fn on_rx(&mut self, now: SimTime, node: NodeId, p: &Packet);
}

/// No tap.
pub struct NoTap;

impl Tap for NoTap {
    #[inline]
    fn on_tx(&mut self, _: SimTime, _: SimTime, _: PortId, _: &Packet) {}
    #[inline]
    fn on_rx(&mut self, _: SimTime, _: NodeId, _: &Packet) {}
}

/// What the network needs from the simulator for one step: the packets, the event queue
/// and the tap.
pub struct NetCtx<'a, E, T: Tap> {
    pub pool: &'a mut PacketPool,
    pub q: &'a mut EventQueue<E>,
    pub tap: &'a mut T,
}

impl Network {
    /// Send packet `id` out of `node` towards its destination; a packet with no route is
    /// dropped (counted in `unroutable`).
    #[inline]
    pub fn forward<E: From<NetEv>, T: Tap>(
        &mut self,
        node: NodeId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let p = cx.pool.get(id);
        let (dst, hash) = (p.dst, p.hash);
        self.route(node, id, dst, hash, cx)
    }

    /// [`Network::forward`] for a packet whose destination and flow hash the caller has
    /// read already (one look-up of the packet per hop).
    #[inline]
    pub(crate) fn route<E: From<NetEv>, T: Tap>(
        &mut self,
        node: NodeId,
        id: PktId,
        dst: NodeId,
        hash: u32,
        cx: &mut NetCtx<E, T>,
    ) {
        match self.routes.next_port(node, dst, hash) {
            Some(port) => self.enqueue(port, id, cx),
            None => {
                self.unroutable += 1;
                self.discard(id, cx);
            }
        }
    }

    /// Packet `id` arrives at output port `port`: its qdisc decides, and an idle
    /// transmitter starts at once.
    #[inline]
    pub fn enqueue<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let now = cx.q.now();
        let pr = &mut self.ports[port as usize];
        if self.prefetch {
            // The port's other hot lines (counters, statistics, discipline), all read
            // below: loaded side by side instead of one after another.
            let base = pr as *const super::Port as *const u8;
            for line in 1..5 {
                crate::engine::prefetch(base.wrapping_add(64 * line));
            }
        }
        // `Network::settle`, written out: calling it here costs 0.3% of the dumbbell's
        // instructions (a second lookup of the port).
        if now >= pr.next_start {
            settle(pr, now, &mut self.packet_hops);
        }
        let p = cx.pool.get_mut(id);
        let meta = PktMeta {
            len: p.size,
            ecn: p.ecn,
            dscp: p.dscp,
            hash: p.hash,
            segs: p.segs,
            edt: p.edt,
            now,
            flow: p.kind == PktKind::Flow,
            cong: p.cong,
        };
        if pr.idle(now) {
            // An idle transmitter has an empty queue (anything queued has a wake-up
            // pending): the backlog was zero since the last change and stays so if the
            // packet goes straight out, so the time-average needs no update.
            // A host NIC starts what it is handed while idle after its processing jitter
            // (`net/host.rs`); 0 (no draw) on switch ports and without jitter.
            match pr.qdisc.offer_idle(id, &meta) {
                Offer::Send(mark) => {
                    if apply(mark, p) {
                        pr.stats.marks += 1;
                    }
                    pr.stats.enqueued += 1;
                    let hold = pr.jitter_hold();
                    if meta.segs > 1 || p.tsq {
                        return self.start_tx(port, id, meta.segs, hold, cx);
                    }
                    // One packet no socket counts (most): started here, with the port and
                    // the packet in hand.
                    let done =
                        begin_tx::<false, T>(pr, port, p, hold, now, &mut self.packet_hops, cx.tap);
                    if !finish_tx(pr, port, id, p, done, cx.q) {
                        cx.pool.free(id);
                    }
                    return;
                }
                other => return self.enqueue_idle_rest(port, id, other, cx),
            }
        }
        let before = pr.qdisc.bytes();
        match pr.qdisc.enqueue(id, &meta) {
            Verdict::Queue(mark) => {
                if apply(mark, p) {
                    pr.stats.marks += 1;
                }
            }
            other => return self.enqueue_rest(port, id, other, cx),
        }
        let (pr, p) = if p.tsq && pr.qdisc.orphans() {
            p.tsq = false;
            let (conn, size) = (p.conn, p.size);
            self.orphan(conn, size, cx);
            (&mut self.ports[port as usize], cx.pool.get_mut(id))
        } else {
            (pr, p)
        };
        pr.stats.enqueued += 1;
        pr.stats.advance(now, before);
        // The maximum backlog is noted after the packet is queued and before anything
        // leaves: starting it later or arming the transmitter leaves the qdisc as it is.
        if pr.direct {
            // Everything admitted before it leaves first, back to back: it starts when the
            // transmitter is next free, and goes on the wire now.
            pr.note_backlog();
            let start = pr.busy_until;
            if pr.starts.is_empty() {
                pr.next_start = start;
            }
            pr.starts.push_back((start, 0, 0, meta.len));
            if meta.segs > 1 || p.tsq {
                self.start_tx_later(port, id, meta.segs, cx);
            } else {
                // One packet no socket counts, as on an idle port above.
                let done = begin_tx::<true, T>(pr, port, p, 0, now, &mut self.packet_hops, cx.tap);
                if !finish_tx(pr, port, id, p, done, cx.q) {
                    cx.pool.free(id);
                }
            }
        } else if !pr.txdone_pending {
            pr.note_backlog();
            let at = pr.busy_until.max(now);
            arm(pr, port, at, false, cx.q);
        } else if pr.waiting && pr.busy_until <= now {
            // The transmitter is free and waits for a time the qdisc named; the new packet
            // may change its answer (a packet of an ungated flow behind a paced one), so
            // ask again, as Linux runs the qdisc on every enqueue. The pending wake-up is
            // superseded.
            pr.txdone_pending = false;
            pr.waiting = false;
            self.service(port, 0, cx);
            self.ports[port as usize].note_backlog();
        } else {
            pr.note_backlog();
        }
    }

    /// [`Network::enqueue`]'s idle port when the discipline did not send the packet at
    /// once: it queued it (a shaper, netem), dropped it or asks for its segments.
    #[inline(never)]
    fn enqueue_idle_rest<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        offer: Offer,
        cx: &mut NetCtx<E, T>,
    ) {
        let now = cx.q.now();
        let pr = &mut self.ports[port as usize];
        let p = cx.pool.get_mut(id);
        match offer {
            Offer::Send(_) => unreachable!("sent by enqueue"),
            Offer::Queued(mark) => {
                if apply(mark, p) {
                    pr.stats.marks += 1;
                }
                if p.tsq && pr.qdisc.orphans() {
                    p.tsq = false;
                    let (conn, size) = (p.conn, p.size);
                    self.orphan(conn, size, cx);
                }
                let pr = &mut self.ports[port as usize];
                pr.stats.enqueued += 1;
                pr.stats.advance(now, 0);
                let hold = pr.jitter_hold();
                self.service(port, hold, cx);
                self.ports[port as usize].note_backlog();
            }
            Offer::Drop => self.enqueue_rest(port, id, Verdict::Drop, cx),
            Offer::Segment => self.enqueue_rest(port, id, Verdict::Segment, cx),
            Offer::Duplicate => self.enqueue_rest(port, id, Verdict::Duplicate, cx),
        }
    }

    /// [`Network::enqueue`]'s busy port when the discipline did not queue the packet: it
    /// dropped it or asks for its segments.
    #[inline(never)]
    fn enqueue_rest<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        verdict: Verdict,
        cx: &mut NetCtx<E, T>,
    ) {
        match verdict {
            Verdict::Queue(_) => unreachable!("queued by enqueue"),
            Verdict::Drop => {
                self.ports[port as usize].stats.drops += 1;
                self.discard(id, cx);
            }
            Verdict::Segment => self.enqueue_segments(port, id, cx),
            Verdict::Duplicate => self.enqueue_duplicate(port, id, cx),
        }
    }

    /// netem's `duplicate`: its `skb_clone` has no socket destructor, so TCP small queues
    /// never count it; it is offered first, as netem enqueues it at the root before
    /// queueing the original. Out of line and cold: the enqueue every packet takes stays
    /// free of the recursion (and inlinable into `route`).
    #[cold]
    #[inline(never)]
    fn enqueue_duplicate<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let copy = cx.pool.alloc_copy(&cx.pool.get(id).clone());
        cx.pool.get_mut(copy).tsq = false;
        self.enqueue(port, copy, cx);
        self.enqueue(port, id, cx);
    }

    /// The qdisc of `port` would not take the aggregate `id` whole ([`Verdict::Segment`]):
    /// cut it into its segments and offer each one, in order (Linux `tbf_segment`).
    #[inline(never)]
    fn enqueue_segments<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let mut rest = std::mem::take(&mut self.segs_scratch);
        split_gso(cx.pool, id, &mut rest);
        self.enqueue(port, id, cx);
        for &s in &rest {
            self.enqueue(port, s, cx);
        }
        rest.clear();
        self.segs_scratch = rest;
    }

    /// `port`'s transmitter is free (or a wake-up it asked for is due). A wake-up that was
    /// superseded finds another time armed, or none, and does nothing.
    pub fn tx_done<E: From<NetEv>, T: Tap>(&mut self, port: PortId, cx: &mut NetCtx<E, T>) {
        let pr = &mut self.ports[port as usize];
        if !pr.txdone_pending || pr.wake_at != cx.q.now() {
            return;
        }
        pr.txdone_pending = false;
        pr.waiting = false;
        self.service(port, 0, cx);
    }

    /// Before the run: each port's discipline is handed its random stream (`rng(port)`)
    /// and says whether it keeps a timer; those that do get their first `QdiscTimer`.
    pub fn start_qdiscs<E: From<NetEv>>(
        &mut self,
        mut rng: impl FnMut(PortId) -> crate::engine::Rng,
        q: &mut EventQueue<E>,
    ) {
        for (port, pr) in self.ports.iter_mut().enumerate() {
            let port = port as PortId;
            if let Some(t) = pr.qdisc.start(&mut rng(port)) {
                q.schedule(t, NetEv::QdiscTimer { port }.into());
            }
        }
    }

    /// A timer of `port`'s discipline is due: it does its periodic work and names the next.
    #[inline(never)]
    pub(crate) fn qdisc_timer<E: From<NetEv>>(&mut self, port: PortId, q: &mut EventQueue<E>) {
        let now = q.now();
        // While its link is down the discipline is put aside, and its timer goes on.
        if let Some(t) = self.timer_qdisc(port).on_timer(now) {
            q.schedule(t.max(now), NetEv::QdiscTimer { port }.into());
        }
    }

    /// Ask the qdisc of an idle transmitter for the next packet and start it, `hold` after
    /// now (a host NIC's processing jitter; 0 elsewhere).
    fn service<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        hold: SimTime,
        cx: &mut NetCtx<E, T>,
    ) {
        let now = cx.q.now();
        let pr = &mut self.ports[port as usize];
        let before = pr.qdisc.bytes();
        let d = pr.qdisc.dequeue(now, &mut self.drops);
        if !self.drops.is_empty() {
            pr.stats.drops += self.drops.len() as u64;
            let mut drops = std::mem::take(&mut self.drops);
            for id in drops.drain(..) {
                self.discard(id, cx);
            }
            self.drops = drops;
        }
        let pr = &mut self.ports[port as usize];
        match d {
            Deq::Packet(id, mark) => {
                let p = cx.pool.get_mut(id);
                if apply(mark, p) {
                    pr.stats.marks += 1;
                }
                let segs = p.segs;
                pr.stats.advance(now, before);
                self.start_tx(port, id, segs, hold, cx);
                let pr = &mut self.ports[port as usize];
                if pr.qdisc.pkts() > 0 {
                    let at = pr.busy_until;
                    arm(pr, port, at, false, cx.q);
                }
            }
            Deq::Empty => {
                // A discipline answers Empty only when it holds nothing: an idle
                // transmitter means an empty queue (`enqueue` relies on it).
                debug_assert_eq!(pr.qdisc.pkts(), 0, "Empty with packets queued");
                if pr.qdisc.bytes() != before {
                    pr.stats.advance(now, before);
                }
            }
            Deq::NotBefore(t) => {
                if pr.qdisc.bytes() != before {
                    pr.stats.advance(now, before);
                }
                arm(pr, port, t.max(now), true, cx.q);
            }
        }
    }

    /// Put packet `id` (of `segs` segments) on the wire of `port` (its transmitter is
    /// idle), starting `hold` after now: a host NIC's processing jitter, during which the
    /// transmitter counts as busy so what follows queues behind it (`net/host.rs`); 0
    /// elsewhere.
    #[inline]
    fn start_tx<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        segs: u16,
        hold: SimTime,
        cx: &mut NetCtx<E, T>,
    ) {
        if segs > 1 {
            return self.start_tx_aggregate::<false, E, T>(port, id, hold, cx);
        }
        self.start_tx_one::<false, E, T>(port, id, hold, cx)
    }

    /// Put packet `id` (of `segs` segments), just admitted by the busy direct port `port`
    /// (its entry last in `starts`), on the wire now, starting when the transmitter is
    /// next free.
    #[inline]
    fn start_tx_later<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        segs: u16,
        cx: &mut NetCtx<E, T>,
    ) {
        if segs > 1 {
            return self.start_tx_aggregate::<true, E, T>(port, id, 0, cx);
        }
        self.start_tx_one::<true, E, T>(port, id, 0, cx)
    }

    /// [`Network::start_tx`] for one packet (kept apart so that the aggregate's path does
    /// not make `start_tx` recursive, which would stop it from being inlined). `LATER`:
    /// a direct port's packet that starts after now; it is counted as sent (`tx_pkts`,
    /// `packet_hops`) when it starts ([`settle`]) and a capture sees it at its start.
    #[inline(always)]
    fn start_tx_one<const LATER: bool, E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        hold: SimTime,
        cx: &mut NetCtx<E, T>,
    ) {
        let now = cx.q.now();
        let pr = &mut self.ports[port as usize];
        let p = cx.pool.get_mut(id);
        let done = begin_tx::<LATER, T>(pr, port, p, hold, now, &mut self.packet_hops, cx.tap);
        let pr = if p.tsq {
            // The NIC sends it for a socket that counts its bytes until then (TSQ).
            p.tsq = false;
            self.host.nic_sending(port, done, p.conn, p.size, cx.q);
            &mut self.ports[port as usize]
        } else {
            pr
        };
        if !finish_tx(pr, port, id, p, done, cx.q) {
            cx.pool.free(id);
        }
    }

    /// Put a segmentation-offload aggregate on the wire: the NIC (TSO) cuts it into its
    /// segments and sends them back to back at line rate, each with its own framing. A
    /// capture sees each segment when the stack hands the aggregate over.
    #[inline(never)]
    fn start_tx_aggregate<const LATER: bool, E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        hold: SimTime,
        cx: &mut NetCtx<E, T>,
    ) {
        let mut rest = std::mem::take(&mut self.segs_scratch);
        split_gso(cx.pool, id, &mut rest);
        self.start_tx_one::<LATER, E, T>(port, id, hold, cx);
        for &s in &rest {
            self.start_tx_one::<LATER, E, T>(port, s, 0, cx);
        }
        rest.clear();
        self.segs_scratch = rest;
    }

    /// A queued packet of `conn`'s socket stops counting for TCP small queues (netem's
    /// `skb_orphan_partial`).
    #[inline(never)]
    fn orphan<E: From<NetEv>, T: Tap>(&mut self, conn: u32, size: u32, cx: &mut NetCtx<E, T>) {
        if self.host.tsq.release(conn, size) {
            cx.q.schedule(cx.q.now(), NetEv::TsqWake { conn }.into());
        }
    }

    /// Free packet `id`, which goes no further (dropped, or unroutable); a socket counting
    /// its bytes (TCP small queues) is told at once.
    #[inline(never)]
    pub(in crate::net) fn discard<E: From<NetEv>, T: Tap>(
        &mut self,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let p = cx.pool.get(id);
        if p.tsq && self.host.tsq.release(p.conn, p.size) {
            cx.q.schedule(cx.q.now(), NetEv::TsqWake { conn: p.conn }.into());
        }
        cx.pool.free(id);
    }
}

/// Bring direct port `pr`'s queue up to `now`: what started by then has left it. The
/// transmitter takes its next packet the instant the previous one ends, before any arrival
/// of that instant is offered to the discipline. Counts what started in `hops`.
#[inline]
pub(crate) fn settle(pr: &mut super::Port, now: SimTime, hops: &mut u64) {
    while let Some(&(start, pkts, bytes, len)) = pr.starts.front() {
        if start > now {
            pr.next_start = start;
            return;
        }
        pr.starts.pop_front();
        let fifo = pr.qdisc.arrival_fifo().expect("a direct port has a FIFO");
        let before = fifo.bytes;
        fifo.pop_counted(len);
        pr.stats.advance(start, before);
        count_sent(pr, pkts, bytes, hops);
    }
    pr.next_start = SimTime::MAX;
}

/// The first half of [`Network::start_tx_one`]: packet `p` starts on port `pr`'s
/// transmitter (`port`), `hold` after now or when the packets before it are sent
/// (`LATER`: a direct port's packet behind others, counted in its `starts` entry); it is
/// counted and shown to the tap. Returns when its last bit leaves.
#[inline(always)]
fn begin_tx<const LATER: bool, T: Tap>(
    pr: &mut super::Port,
    port: PortId,
    p: &Packet,
    hold: SimTime,
    now: SimTime,
    hops: &mut u64,
    tap: &mut T,
) -> SimTime {
    let start = pr.busy_until.max(now);
    let done = start + hold + pr.ser_time(p.size);
    pr.busy_until = done;
    if LATER {
        let e = pr
            .starts
            .back_mut()
            .expect("an entry for the admitted packet");
        e.1 += 1;
        e.2 += p.size;
        tap.on_tx(now, start, port, p);
    } else {
        count_sent(pr, 1, p.size, hops);
        tap.on_tx(now, now, port, p);
    }
    done
}

/// The second half: packet `id` (`p`), sent by `done`, goes on `pr`'s link, unless the
/// link's injected loss takes it (false: the caller frees it). Only the head of a link
/// has an event; what follows it waits on the wire.
#[inline(always)]
fn finish_tx<E: From<NetEv>>(
    pr: &mut super::Port,
    port: PortId,
    id: PktId,
    p: &Packet,
    done: SimTime,
    q: &mut EventQueue<E>,
) -> bool {
    if pr.lossy {
        let loss = pr.loss.as_deref_mut().expect("a lossy link has its loss");
        if loss.loses(p) {
            return false;
        }
    }
    let at = done + pr.delay;
    if pr.on_wire {
        pr.wire.push_back((at, id));
    } else {
        pr.on_wire = true;
        q.schedule(at, NetEv::Arrive { port, id }.into());
    }
    true
}

/// Count `pkts` packets of `bytes` bytes as sent by port `pr` (and as packet-hops).
#[inline]
pub(crate) fn count_sent(pr: &mut super::Port, pkts: u32, bytes: u32, hops: &mut u64) {
    pr.tx_pkts += pkts as u64;
    pr.tx_bytes += bytes as u64;
    *hops += pkts as u64;
}

impl Network {
    /// [`settle`] port `port` if something in it has started by `now`.
    #[inline]
    pub fn settle(&mut self, port: PortId, now: SimTime) {
        let pr = &mut self.ports[port as usize];
        if now >= pr.next_start {
            settle(pr, now, &mut self.packet_hops);
        }
    }

    /// [`settle`] every direct port: before the state of the ports is read (samples,
    /// results).
    pub fn settle_all(&mut self, now: SimTime) {
        for port in 0..self.ports.len() as PortId {
            self.settle(port, now);
        }
    }
}

/// Schedule `port`'s next `TxDone` at `at`; `waiting` = it is a wake-up the qdisc asked
/// for while the transmitter is free.
#[inline]
fn arm<E: From<NetEv>>(
    pr: &mut super::Port,
    port: PortId,
    at: SimTime,
    waiting: bool,
    q: &mut EventQueue<E>,
) {
    pr.txdone_pending = true;
    pr.waiting = waiting;
    pr.wake_at = at;
    q.schedule(at, NetEv::TxDone { port }.into());
}

/// Write `mark` into `p`; true if it marked anything.
#[inline]
fn apply(mark: Mark, p: &mut Packet) -> bool {
    match mark {
        Mark::None => false,
        Mark::Ce => {
            p.ecn = CE;
            true
        }
        Mark::Cong(v) => {
            p.cong |= v;
            v != 0
        }
        Mark::Rewrite(v) => {
            p.cong = v;
            false
        }
        Mark::RewriteMarked(v) => {
            p.cong = v;
            true
        }
        Mark::RewriteCe(v) => {
            p.cong = v;
            p.ecn = CE;
            true
        }
    }
}
