//! Fair Queue packet scheduler with per-flow pacing: Linux `net/sched/sch_fq.c` (Eric
//! Dumazet, 2013–2015) as of **v6.6**, the last release before 6.7 added three priority
//! bands with weights, the fast path and `offload_horizon`, all left out here. The model is
//! the earliest-departure-time (EDT) one of 4.20 on, with `horizon`/`horizon_drop` (5.7) and
//! `timer_slack`; the v6.6 enqueue and dequeue are those of 5.7 (checked against the 5.x
//! file and the context lines of the 6.7 patch "net_sched: sch_fq: change how @inactive is
//! tracked", which applies to v6.6's `fq_enqueue`/`fq_dequeue`). Defaults are `fq_init`'s,
//! which tc-fq(8) documents. Names follow the kernel's (`credit`, `time_next_packet`,
//! `new_flows`, `old_flows`, `flow_refill_delay`, …).
//!
//! - **Flows** (`fq_classify`): Linux keys a flow by its socket; here by the packet's flow
//!   hash ([`PktMeta::hash`]), one per connection (a host's data and ACKs of one
//!   connection are one flow, as they share one socket). Flows live in an arena found
//!   through `buckets` hash chains (Linux: `buckets` rb-trees). A new flow starts
//!   *detached* with `credit = initial_quantum`.
//! - **Enqueue** (`fq_enqueue`): drop when the qdisc holds `limit` packets; the packet's
//!   `time_to_send` is its EDT (`PktMeta::edt`, Linux `skb->tstamp`), or now when it has
//!   none; an EDT beyond now + `horizon` is dropped (`horizon_drop`) or capped to it; drop
//!   when the flow holds `flow_limit` packets. A detached flow joins the tail of
//!   `new_flows`, and if it was detached for more than `refill_delay` its credit becomes
//!   max(credit, quantum) — the source's rule (`max_t(u32, f->credit, q->quantum)`), not
//!   a second `initial_quantum`. A flow's packets leave in `time_to_send` order: in
//!   arrival order while it does not go back in time, else through a per-flow sorted set
//!   (Linux's per-flow list plus `t_root` rb-tree, `flow_queue_add` / `fq_peek`).
//! - **Dequeue** (`fq_dequeue`): throttled flows that are due join the tail of
//!   `old_flows` (`fq_check_throttled`). Deficit round robin over `new_flows`, then
//!   `old_flows`: a flow without credit gets `quantum` more and goes to the tail of
//!   `old_flows`; a flow whose head may not leave yet (t = max(time_to_send,
//!   time_next_packet) > now) is parked among the throttled flows, keyed by t; an empty
//!   flow met in `new_flows` passes once through `old_flows` if that list is not empty,
//!   else it is detached (its `age` is now). The packet leaving is CE-marked when
//!   now − t > `ce_threshold` and it is ECT. Its length is taken from the credit. Then,
//!   with `pacing` on and `maxrate` set, the flow waits `plen·8/maxrate` (at most 1 s)
//!   less a drift credit min(delay/2, now − time_next_packet); for a packet without EDT
//!   plen = max(len, quantum) and the delay is taken only when the credit is spent,
//!   unless maxrate ≤ `low_rate_threshold` (then the credit is zeroed and plen = len).
//!   When nothing is eligible the answer is "not before" the earliest throttled flow
//!   (Linux's watchdog).
//! - **Garbage collection** (`fq_gc`): when the qdisc knows ≥ 2 × buckets flows and more
//!   than half are detached, a lookup frees up to 8 flows of the looked-up bucket that have
//!   been detached for more than 3 s (`FQ_GC_AGE` = 3·HZ); one that comes back is a new
//!   flow again (credit `initial_quantum`).
//!
//! Bytes: fq charges what `qdisc_pkt_len` gives on an Ethernet NIC — the frame without
//! preamble and FCS, the IP length + 14 B of MAC header per segment — so the defaults
//! quantum = 2 × psched_mtu = 3028 and initial_quantum = 10 × psched_mtu = 15140 are two
//! and ten 1500-byte packets, as on Linux; `maxrate` delays use the same length.
//! `backlog()` is in IP bytes, as every discipline's.
//!
//! Simplified or left out, each because the simulator has no counterpart or gains nothing:
//! the `internal` flow for `TC_PRIO_CONTROL` packets (no skb priority here); the
//! socket-reuse check of `fq_classify` (`sk_hash` change); orphaned and unconnected
//! sockets hashed into `orphan_mask` + 1 flows (every packet has its own flow hash);
//! `sk_pacing_rate` (the qdisc cannot see a socket: TCP stamps EDTs itself when paced, and
//! a packet without EDT is limited only by `maxrate`); jiffies (times are exact, HZ
//! rounding of `refill_delay` and of ages is not modelled); `timer_slack` (Linux's
//! watchdog may fire up to 10 µs late; here it fires on time, i.e. slack 0); 6.7's bands,
//! weights and priomap; the per-packet rate is in bit/s and the delay in picoseconds
//! (Linux: byte/s and ns, floors differ by < 1 ns).
//!
//! This file holds the discipline; `fq/spec.rs` its parameters (`Spec`, `fq_init`'s
//! defaults), its keys and their reading.

use super::{Backlog, Deq, Mark, Offer, PktMeta, QueueDisc, Verdict};
use crate::engine::{SimTime, SEC};
use crate::packet::{PktId, ECT0, ECT1};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod spec;
pub use spec::{parse, Spec, KEYS};

/// Ethernet's MAC header, which `qdisc_pkt_len` counts on an Ethernet NIC.
pub const ETH_HLEN: u32 = 14;
/// `psched_mtu(dev)` of a 1500-byte-MTU Ethernet device: MTU + hard_header_len.
pub const PSCHED_MTU: u32 = 1500 + ETH_HLEN;
/// `FQ_GC_MAX`: flows collected per lookup at most.
const FQ_GC_MAX: usize = 8;
/// `FQ_GC_AGE` = 3·HZ: a flow detached this long may be collected.
const FQ_GC_AGE: SimTime = 3 * SEC;
/// No flow / no packet.
const NIL: u32 = u32::MAX;

/// A queued packet (Linux keeps these in the skb and its control block).
#[derive(Clone, Copy, Debug)]
struct Node {
    id: PktId,
    /// IP length (the port's backlog).
    len: u32,
    /// `qdisc_pkt_len`: what credit and rate are charged.
    plen: u32,
    /// `fq_skb_cb(skb)->time_to_send`.
    time_to_send: SimTime,
    /// The packet carried an EDT (`skb->tstamp != 0`).
    stamped: bool,
    ecn: u8,
    /// Next packet of the flow's in-order list, or of the free list.
    next: u32,
}

/// Where a flow is (Linux tells these apart by `f->next == &throttled` and `f->age & 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// On no list: idle since `age`.
    Detached,
    /// On `new_flows` or `old_flows`.
    Listed,
    /// Among the throttled flows, waiting for `time_next_packet`.
    Throttled,
    /// Collected; the slot is free.
    Free,
}

#[derive(Debug)]
struct Flow {
    hash: u32,
    /// In-order packets: first and last (Linux `head`, `tail`).
    head: u32,
    tail: u32,
    /// Packets that arrived with a `time_to_send` earlier than the list's tail, by
    /// (time_to_send, arrival) (Linux `t_root`, where equal keys go right).
    t_root: BinaryHeap<Reverse<(SimTime, u64, u32)>>,
    qlen: u32,
    credit: i32,
    time_next_packet: SimTime,
    /// When the flow was detached.
    age: SimTime,
    at: At,
    /// Next flow on its round-robin list.
    next: u32,
    /// Next flow in its hash bucket.
    chain: u32,
}

/// A round-robin list of flows (`struct fq_flow_head`).
#[derive(Clone, Copy, Debug)]
struct FlowList {
    first: u32,
    last: u32,
}

impl FlowList {
    const EMPTY: FlowList = FlowList {
        first: NIL,
        last: NIL,
    };
}

/// The `fq` discipline.
#[derive(Debug)]
pub struct Fq {
    p: Spec,
    flows: Vec<Flow>,
    free_flows: Vec<u32>,
    /// Heads of the hash chains.
    bucket: Vec<u32>,
    log: u32,
    nodes: Vec<Node>,
    free_node: u32,
    new_flows: FlowList,
    old_flows: FlowList,
    /// Throttled flows by (time_next_packet, order of throttling) (Linux `q->delayed`).
    delayed: BinaryHeap<Reverse<(SimTime, u64, u32)>>,
    /// Tie-breaking sequence for the two sorted sets.
    seq: u64,
    /// Flows known, and how many of them are detached (`q->flows`, `inactive_flows`).
    n_flows: u32,
    inactive_flows: u32,
    pkts: u64,
    bytes: u64,
}

/// Linux `hash_32`: the bucket of a flow hash.
#[inline]
fn hash_32(val: u32, bits: u32) -> usize {
    (val.wrapping_mul(0x61C8_8647) >> (32 - bits)) as usize
}

impl Fq {
    pub fn new(p: Spec) -> Fq {
        let buckets = p.buckets.clamp(2, 1 << 18).next_power_of_two();
        Fq {
            log: buckets.ilog2(),
            bucket: vec![NIL; buckets as usize],
            p,
            flows: Vec::new(),
            free_flows: Vec::new(),
            nodes: Vec::new(),
            free_node: NIL,
            new_flows: FlowList::EMPTY,
            old_flows: FlowList::EMPTY,
            delayed: BinaryHeap::new(),
            seq: 0,
            n_flows: 0,
            inactive_flows: 0,
            pkts: 0,
            bytes: 0,
        }
    }

    /// Flows the qdisc knows (`q->flows`).
    pub fn flows(&self) -> u32 {
        self.n_flows
    }

    /// The credit of the flow with this hash, if known.
    pub fn credit_of(&self, hash: u32) -> Option<i32> {
        self.find(hash).map(|f| self.flows[f as usize].credit)
    }

    fn find(&self, hash: u32) -> Option<u32> {
        let mut f = self.bucket[hash_32(hash, self.log)];
        while f != NIL {
            if self.flows[f as usize].hash == hash {
                return Some(f);
            }
            f = self.flows[f as usize].chain;
        }
        None
    }

    /// `fq_classify`: the flow of `hash`, created (detached, with `initial_quantum`) if new;
    /// collects old detached flows of the bucket first when the table is crowded.
    fn classify(&mut self, hash: u32, now: SimTime) -> u32 {
        let b = hash_32(hash, self.log);
        if self.n_flows >= (2 << self.log) && self.inactive_flows > self.n_flows / 2 {
            self.gc(b, hash, now);
        }
        if let Some(f) = self.find(hash) {
            return f;
        }
        let flow = Flow {
            hash,
            head: NIL,
            tail: NIL,
            t_root: BinaryHeap::new(),
            qlen: 0,
            credit: self.p.initial_quantum.min(i32::MAX as u32) as i32,
            time_next_packet: 0,
            age: now,
            at: At::Detached,
            next: NIL,
            chain: self.bucket[b],
        };
        let f = match self.free_flows.pop() {
            Some(f) => {
                // Keep the old slot's sorted-set storage.
                let old = std::mem::replace(&mut self.flows[f as usize], flow);
                let mut t_root = old.t_root;
                t_root.clear();
                self.flows[f as usize].t_root = t_root;
                f
            }
            None => {
                self.flows.push(flow);
                (self.flows.len() - 1) as u32
            }
        };
        self.bucket[b] = f;
        self.n_flows += 1;
        self.inactive_flows += 1;
        f
    }

    /// `fq_gc`: free up to `FQ_GC_MAX` flows of bucket `b` (other than `hash`'s) detached
    /// for more than `FQ_GC_AGE`. Linux looks only at the rb-tree nodes on the way to
    /// `hash`'s flow; here, at the bucket's whole chain.
    fn gc(&mut self, b: usize, hash: u32, now: SimTime) {
        let mut freed = 0;
        let mut prev = NIL;
        let mut f = self.bucket[b];
        while f != NIL && freed < FQ_GC_MAX {
            let fl = &self.flows[f as usize];
            let next = fl.chain;
            let candidate = fl.hash != hash && fl.at == At::Detached && now > fl.age + FQ_GC_AGE;
            if candidate {
                if prev == NIL {
                    self.bucket[b] = next;
                } else {
                    self.flows[prev as usize].chain = next;
                }
                self.flows[f as usize].at = At::Free;
                self.free_flows.push(f);
                freed += 1;
            } else {
                prev = f;
            }
            f = next;
        }
        self.n_flows -= freed as u32;
        self.inactive_flows -= freed as u32;
    }

    fn list(&mut self, new: bool) -> &mut FlowList {
        if new {
            &mut self.new_flows
        } else {
            &mut self.old_flows
        }
    }

    /// `fq_flow_add_tail`.
    fn add_tail(&mut self, new: bool, f: u32) {
        let last = self.list(new).last;
        if self.list(new).first == NIL {
            self.list(new).first = f;
        } else {
            self.flows[last as usize].next = f;
        }
        self.list(new).last = f;
        let fl = &mut self.flows[f as usize];
        fl.next = NIL;
        fl.at = At::Listed;
    }

    /// Take the first flow off a list (`head->first = f->next`).
    fn pop_first(&mut self, new: bool) -> u32 {
        let f = self.list(new).first;
        let next = self.flows[f as usize].next;
        self.list(new).first = next;
        f
    }

    /// `fq_flow_set_throttled`.
    fn set_throttled(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        fl.at = At::Throttled;
        self.seq += 1;
        self.delayed
            .push(Reverse((fl.time_next_packet, self.seq, f)));
    }

    /// `fq_check_throttled`: flows due by `now` join the tail of `old_flows`, earliest
    /// first.
    fn check_throttled(&mut self, now: SimTime) {
        while let Some(&Reverse((t, _, f))) = self.delayed.peek() {
            if t > now {
                break;
            }
            self.delayed.pop();
            self.add_tail(false, f);
        }
    }

    fn alloc_node(&mut self, n: Node) -> u32 {
        if self.free_node == NIL {
            self.nodes.push(n);
            (self.nodes.len() - 1) as u32
        } else {
            let i = self.free_node;
            self.free_node = self.nodes[i as usize].next;
            self.nodes[i as usize] = n;
            i
        }
    }

    /// `flow_queue_add`: append while `time_to_send` does not go back, else sort it in.
    fn flow_queue_add(&mut self, f: u32, n: u32) {
        let tts = self.nodes[n as usize].time_to_send;
        let fl = &mut self.flows[f as usize];
        if fl.head == NIL || tts >= self.nodes[fl.tail as usize].time_to_send {
            if fl.head == NIL {
                fl.head = n;
            } else {
                self.nodes[fl.tail as usize].next = n;
            }
            fl.tail = n;
            self.nodes[n as usize].next = NIL;
        } else {
            self.seq += 1;
            fl.t_root.push(Reverse((tts, self.seq, n)));
        }
    }

    /// `fq_peek`: the flow's packet with the earliest `time_to_send` (the list's head on
    /// a tie), and whether it is in the sorted set.
    fn fq_peek(&self, f: u32) -> Option<(u32, bool)> {
        let fl = &self.flows[f as usize];
        let sorted = fl.t_root.peek().map(|&Reverse((t, _, n))| (t, n));
        match (fl.head, sorted) {
            (NIL, None) => None,
            (NIL, Some((_, n))) => Some((n, true)),
            (h, None) => Some((h, false)),
            (h, Some((t, n))) => {
                if t < self.nodes[h as usize].time_to_send {
                    Some((n, true))
                } else {
                    Some((h, false))
                }
            }
        }
    }

    /// `fq_dequeue_skb`: take `n` (from `fq_peek`) out of flow `f`.
    fn take(&mut self, f: u32, n: u32, sorted: bool) -> Node {
        let fl = &mut self.flows[f as usize];
        if sorted {
            fl.t_root.pop();
        } else {
            fl.head = self.nodes[n as usize].next;
        }
        fl.qlen -= 1;
        let node = self.nodes[n as usize];
        self.nodes[n as usize].next = self.free_node;
        self.free_node = n;
        self.pkts -= 1;
        self.bytes -= u64::from(node.len);
        node
    }

    /// After packet `node` of flow `f` left at `now`: fq's own rate limit (the end of
    /// `fq_dequeue`).
    fn pace(&mut self, f: u32, node: &Node, now: SimTime) {
        if !self.p.pacing {
            return;
        }
        let fl = &mut self.flows[f as usize];
        let rate = self.p.maxrate_bps;
        let mut plen = node.plen;
        if !node.stamped {
            // `rate` here is min(sk_pacing_rate, maxrate) in Linux; the socket's rate is
            // not visible, so maxrate (None = ~0UL, above any threshold).
            if rate.is_some_and(|r| r <= self.p.low_rate_threshold_bps) {
                fl.credit = 0;
            } else {
                plen = plen.max(self.p.quantum);
                if fl.credit > 0 {
                    return;
                }
            }
        }
        let Some(rate) = rate else { return };
        let exact = u128::from(plen) * 8 * u128::from(SEC) / u128::from(rate.max(1));
        // "Since socket rate can change later, clamp the delay to 1 second."
        let mut len = exact.min(u128::from(SEC)) as SimTime;
        // "Account for schedule/timers drifts."
        if fl.time_next_packet != 0 {
            len -= (len / 2).min(now - fl.time_next_packet);
        }
        fl.time_next_packet = now + len;
    }
}

/// Is this codepoint ECT (so `INET_ECN_set_ce` changes it)?
#[inline]
fn ect(ecn: u8) -> bool {
    ecn == ECT0 || ecn == ECT1
}

impl QueueDisc for Fq {
    /// `fq_reset`: every flow's packets dropped (`fq_flow_purge`: its time-sorted ones,
    /// then its in-order list), every flow forgotten.
    fn reset(&mut self, _now: SimTime, drops: &mut Vec<PktId>) {
        for fl in &self.flows {
            if fl.at == At::Free {
                continue;
            }
            let mut sorted: Vec<(SimTime, u64, u32)> =
                fl.t_root.iter().map(|&Reverse(e)| e).collect();
            sorted.sort_unstable();
            drops.extend(sorted.iter().map(|&(_, _, n)| self.nodes[n as usize].id));
            let mut n = fl.head;
            while n != NIL {
                drops.push(self.nodes[n as usize].id);
                n = self.nodes[n as usize].next;
            }
        }
        *self = Fq::new(self.p.clone());
    }

    /// `fq_enqueue`.
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.pkts >= u64::from(self.p.limit) {
            return Verdict::Drop;
        }
        let now = m.now;
        let (time_to_send, stamped) = if m.edt == 0 {
            (now, false)
        } else if m.edt > now.saturating_add(self.p.horizon) {
            if self.p.horizon_drop {
                return Verdict::Drop;
            }
            (now.saturating_add(self.p.horizon), true)
        } else {
            (m.edt, true)
        };
        let f = self.classify(m.hash, now);
        if self.flows[f as usize].qlen >= self.p.flow_limit {
            return Verdict::Drop;
        }
        let segs = u32::from(m.segs.max(1));
        let n = self.alloc_node(Node {
            id,
            len: m.len,
            plen: m.len.saturating_add(ETH_HLEN * segs),
            time_to_send,
            stamped,
            ecn: m.ecn,
            next: NIL,
        });
        self.flows[f as usize].qlen += 1;
        self.pkts += 1;
        self.bytes += u64::from(m.len);
        if self.flows[f as usize].at == At::Detached {
            self.add_tail(true, f);
            let fl = &mut self.flows[f as usize];
            if now > fl.age.saturating_add(self.p.refill_delay) {
                // `max_t(u32, f->credit, q->quantum)`: compared as unsigned, so a negative
                // credit would stay (a detached flow's credit is always positive: a flow
                // is found empty only after its credit was checked).
                fl.credit = (fl.credit as u32).max(self.p.quantum) as i32;
            }
            self.inactive_flows -= 1;
        }
        self.flow_queue_add(f, n);
        Verdict::ENQUEUE
    }

    /// Linux 6.6's fq has no bypass: a packet that finds the qdisc empty is enqueued and
    /// dequeued at once, so it leaves now if its flow may send now.
    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        let was_empty = self.pkts == 0;
        match self.enqueue(id, m) {
            Verdict::Drop => return Offer::Drop,
            Verdict::Queue(_) | Verdict::Segment | Verdict::Duplicate => {}
        }
        if !was_empty {
            return Offer::Queued(Mark::None);
        }
        match self.dequeue(m.now, &mut Vec::new()) {
            Deq::Packet(sent, mark) => {
                debug_assert_eq!(sent, id, "the only packet queued is the one offered");
                Offer::Send(mark)
            }
            Deq::NotBefore(_) | Deq::Empty => Offer::Queued(Mark::None),
        }
    }

    /// `fq_dequeue`.
    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        if self.pkts == 0 {
            return Deq::Empty;
        }
        self.check_throttled(now);
        loop {
            let new = self.new_flows.first != NIL;
            let f = if new {
                self.new_flows.first
            } else if self.old_flows.first != NIL {
                self.old_flows.first
            } else {
                // Every queued packet belongs to a throttled flow: wake at the first.
                return match self.delayed.peek() {
                    Some(&Reverse((t, _, _))) => Deq::NotBefore(t),
                    None => {
                        debug_assert!(false, "packets queued but no flow listed or throttled");
                        Deq::Empty
                    }
                };
            };
            if self.flows[f as usize].credit <= 0 {
                let fl = &mut self.flows[f as usize];
                fl.credit = fl.credit.saturating_add(self.p.quantum as i32);
                self.pop_first(new);
                self.add_tail(false, f);
                continue;
            }
            let Some((n, sorted)) = self.fq_peek(f) else {
                self.pop_first(new);
                // "force a pass through old_flows to prevent starvation"
                if new && self.old_flows.first != NIL {
                    self.add_tail(false, f);
                } else {
                    let fl = &mut self.flows[f as usize];
                    fl.at = At::Detached;
                    fl.age = now;
                    self.inactive_flows += 1;
                }
                continue;
            };
            let fl = &self.flows[f as usize];
            let due = self.nodes[n as usize].time_to_send.max(fl.time_next_packet);
            if now < due {
                self.pop_first(new);
                self.flows[f as usize].time_next_packet = due;
                self.set_throttled(f);
                continue;
            }
            let mark = match self.p.ce_threshold {
                Some(ce) if now - due > ce && ect(self.nodes[n as usize].ecn) => Mark::Ce,
                _ => Mark::None,
            };
            let node = self.take(f, n, sorted);
            let fl = &mut self.flows[f as usize];
            fl.credit = fl
                .credit
                .saturating_sub(node.plen.min(i32::MAX as u32) as i32);
            self.pace(f, &node, now);
            return Deq::Packet(node.id, mark);
        }
    }

    #[inline]
    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.pkts,
        }
    }

    /// The head of the flow fq would look at first — the first listed flow with packets,
    /// else the first throttled one. Linux's `.peek` dequeues to know; what `dequeue`
    /// returns may differ after credit turns or throttling, which a parent scheduler
    /// learns when it asks.
    fn peek_len(&self) -> Option<u32> {
        if self.pkts == 0 {
            return None;
        }
        let head_of = |mut f: u32| {
            while f != NIL {
                if let Some((n, _)) = self.fq_peek(f) {
                    return Some(self.nodes[n as usize].len);
                }
                f = self.flows[f as usize].next;
            }
            None
        };
        head_of(self.new_flows.first)
            .or_else(|| head_of(self.old_flows.first))
            .or_else(|| {
                let &Reverse((_, _, f)) = self.delayed.peek()?;
                self.fq_peek(f).map(|(n, _)| self.nodes[n as usize].len)
            })
    }
    /// `sch_fq` holds each packet until its `skb->tstamp`.
    #[inline]
    fn honours_edt(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
