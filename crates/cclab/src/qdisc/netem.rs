//! `queue = "netem"`, `netem = { delay = "50ms", limit = 10000 }`: Linux's network emulator
//! (`net/sched/sch_netem.c` as of Linux 6.18, tc-netem(8), iproute2 `tc/q_netem.c`;
//! docs/references.md §11.1), with tc's words for its keys:
//!
//! - `delay = "100ms"`, or `delay = ["100ms", "10ms", "25%"]` — latency, jitter and the
//!   jitter's correlation, as `tc … netem delay 100ms 10ms 25%`; `distribution = "normal"`
//!   (or `"pareto"`, `"paretonormal"`; uniform without one) — the tables are generated
//!   from iproute2's formulas (`netem/dist.rs`).
//! - `loss = "1%"`, `loss = ["random", "1%", "25%"]`, `loss = ["state", p13, p31, p32,
//!   p23, p14]` (the 4-state Markov model), `loss = ["gemodel", p, r, "1-h", "1-k"]`
//!   (Gilbert-Elliott), with tc's defaults for the values left out; `ecn = true` marks CE
//!   instead of dropping an ECN-capable packet.
//! - `reorder = "25%"` or `["25%", "50%"]` with `gap = 5`; `rate = "10Mbps"` or
//!   `["10Mbps", PACKETOVERHEAD, CELLSIZE, CELLOVERHEAD]`; `limit` (packets, 1000).
//! - `duplicate = "1%"` or `["1%", "25%"]`: the port copies the packet
//!   ([`Verdict::Duplicate`]) and offers the copy to its root discipline before the
//!   original, as netem enqueues its clone at the root; a copy is never duplicated again
//!   (Linux 6.18's `tc_depth`), and TCP small queues never count it.
//!
//! What a packet meets, in `netem_enqueue`'s order: the duplicate draw; the loss model (a
//! loss drops it — a duplicated packet that is lost is sent once — or with `ecn` marks an
//! ECN-capable one CE); the limit (all held packets, in-order and reordered, count; a drop
//! here drops the copy too); the copy, if any; then either the reorder decision sends it to the head of the queue
//! to leave at once (`gap` = 0, or fewer than `gap` − 1 packets since the last reorder, or
//! the reorder draw fails: the normal path), or on the normal path it gets
//! `time_to_send = now + tabledist(delay, jitter)` — with `rate`, measured from the
//! `time_to_send` of the last packet queued (the delay it already waits is subtracted, not
//! below 0) plus the packet's serialisation time `(len + overhead, rounded up to cells) ·
//! 10⁹ / rate` ns. Packets leave in `time_to_send` order (netem's `tfifo`: a linear list
//! while times only grow, a tree for those that fall earlier, ties in arrival order), so
//! jitter reorders packets unless `rate` is set (each then leaves after the one before).
//!
//! Random numbers: each port's netem draws 32-bit uniforms from its own stream of the run's
//! seed (Linux uses `prandom_u32_state`, seeded from `TCA_NETEM_PRNG_SEED` or at random);
//! what is built on them is the kernel's integer arithmetic: `get_crandom` (the correlated
//! generator: next = (u·(2³² − ρ) + last·ρ) >> 32 with ρ = corr + 1, unchanged since Linux
//! 2.6 — it narrows the distribution as ρ grows, the known weakness tc-netem(8) notes),
//! `tabledist` (NETEM_DIST_SCALE 8192, the table entry `t` scaled as `(σ mod 8192)·t`
//! rounded half away from zero, over 8192, plus `(σ / 8192)·t + μ`; uniform jitter
//! `(u mod 2σ) + μ − σ`), `loss_4state` and `loss_gilb_ell` (comparisons of a uniform
//! against the 32-bit transition probabilities tc computes as `rint(p·(2³² − 1))`). Times
//! are computed in ns, as the kernel's, and held in the simulator's ps.
//!
//! With a delay, jitter or rate netem orphans what it queues (`skb_orphan_partial`, Linux
//! 3.14 and later): the sending socket stops counting it for TCP small queues, so a
//! sender's own netem delay line does not throttle it.
//!
//! Held packets count in the port's backlog, as they count in netem's `qlen`. Note what
//! `limit` means at high rates: the packets in flight through a netem delay are packets in
//! its queue, so `limit 10000` caps a path emulated with 50 ms of netem delay at 10,000
//! packets per 50 ms (2.4 Gbit/s of 1500-byte packets) — a GSO aggregate counts once.
//! Lengths are IP lengths (the kernel's `qdisc_pkt_len` includes the 14-byte Ethernet
//! header: give `rate`'s packet overhead 14 more to match a Linux box's spacing).
//!
//! A fixed delay alone (no jitter, loss, reorder or rate) runs the same code as before
//! these were added: a FIFO of (packet, length, time) with no random draws.

pub mod dist;

use super::{Backlog, Deq, Mark, PktMeta, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::{Rng, SimTime, NS};
use crate::packet::{PktId, NOT_ECT};
use crate::schema::check::{int, join, rate, time, type_name, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use dist::{Dist, DIST_SCALE};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use toml::Value;

/// A probability as tc hands it to the kernel: `rint(p · UINT32_MAX)` (`set_percent`).
pub fn prob_u32(p: f64) -> u32 {
    (p * u32::MAX as f64).round_ties_even() as u32
}

/// netem's loss generator (`loss_model` and its parameters, 32-bit probabilities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    None,
    /// `loss random P [CORR]`: lost when `P >= get_crandom()`.
    Random {
        p: u32,
        corr: u32,
    },
    /// `loss state p13 p31 p32 p23 p14` (`CLG_4_STATES`).
    State {
        p13: u32,
        p31: u32,
        p32: u32,
        p23: u32,
        p14: u32,
    },
    /// `loss gemodel p r 1-h 1-k` (`CLG_GILB_ELL`), held as the kernel holds it: `h` (tc
    /// sends 1 − its third value) and `k1` = 1 − k.
    Ge {
        p: u32,
        r: u32,
        h: u32,
        k1: u32,
    },
}

/// `queue = "netem"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub delay: SimTime,
    pub jitter: SimTime,
    /// The jitter's correlation (32-bit, as tc sends it).
    pub delay_corr: u32,
    pub dist: Dist,
    pub loss: Loss,
    pub ecn: bool,
    /// Duplicate probability and correlation (32-bit).
    pub duplicate: u32,
    pub dup_corr: u32,
    /// Reorder probability and correlation (32-bit); `gap` (tc makes it 1 when a reorder
    /// probability is given without one).
    pub reorder: u32,
    pub reorder_corr: u32,
    pub gap: u32,
    /// Bytes per second (0: none), with `packet_overhead`, `cell_size` (0: none) and
    /// `cell_overhead` (`struct tc_netem_rate`).
    pub rate: u64,
    pub packet_overhead: i32,
    pub cell_size: u32,
    pub cell_overhead: i32,
    /// Packets.
    pub limit: u64,
}

impl Spec {
    /// A fixed delay with `limit` packets: nothing random.
    pub fn fixed(delay: SimTime, limit: u64) -> Spec {
        Spec {
            delay,
            jitter: 0,
            delay_corr: 0,
            dist: Dist::Uniform,
            loss: Loss::None,
            ecn: false,
            duplicate: 0,
            dup_corr: 0,
            reorder: 0,
            reorder_corr: 0,
            gap: 0,
            rate: 0,
            packet_overhead: 0,
            cell_size: 0,
            cell_overhead: 0,
            limit,
        }
    }

    /// Only a fixed delay (the path that needs no random numbers).
    pub fn is_fixed(&self) -> bool {
        *self == Spec::fixed(self.delay, self.limit)
    }
}

#[path = "netem/keys.rs"]
mod keys;
#[cfg(test)]
use keys::loss_of;
pub use keys::{parse, KEYS, NETEM};

impl QueueSpec {
    /// netem `delay` with `limit` packets.
    pub fn delay(delay: SimTime, limit: u64) -> QueueSpec {
        QueueSpec::Delay(Spec::fixed(delay, limit))
    }
}

impl QdiscSpec for Spec {
    type Q = Netem;
    fn build(&self) -> Netem {
        let mut n = Netem {
            delay: self.delay,
            limit: self.limit,
            q: VecDeque::new(),
            bytes: 0,
            ext: None,
        };
        if !self.is_fixed() {
            n.ext = Some(Box::new(Ext::new(self)));
            n.seed_from(Rng::new(0, 0));
        }
        n
    }
    fn limit(&self) -> Limit {
        Limit::Packets(self.limit)
    }
}

/// `struct crndstate`: a correlated uniform generator (`rho` = 0: uncorrelated).
#[derive(Debug, Clone, Copy, Default)]
pub struct Crnd {
    pub last: u32,
    pub rho: u32,
}

impl Crnd {
    /// `get_crandom` given the next uniform `value`.
    pub fn next(&mut self, value: u32) -> u32 {
        if self.rho == 0 {
            return value;
        }
        let rho = self.rho as u64 + 1;
        let answer = ((value as u64 * ((1u64 << 32) - rho) + self.last as u64 * rho) >> 32) as u32;
        self.last = answer;
        answer
    }
}

/// `tabledist(mu, sigma, …)` given the correlated uniform `rnd` (σ ≠ 0).
pub fn tabledist(mu: i64, sigma: i32, rnd: u32, table: Option<&[i16]>) -> i64 {
    let Some(t) = table else {
        return ((rnd % (2 * sigma as u32)) as i64 + mu) - sigma as i64;
    };
    let t = t[rnd as usize % t.len()] as i64;
    let mut x = (sigma as i64 % DIST_SCALE) * t;
    if x >= 0 {
        x += DIST_SCALE / 2;
    } else {
        x -= DIST_SCALE / 2;
    }
    x / DIST_SCALE + (sigma as i64 / DIST_SCALE) * t + mu
}

/// The states of `loss_4state` and `loss_gilb_ell` (`TX_IN_GAP_PERIOD` = 1 …;
/// `GOOD_STATE` = 1, `BAD_STATE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clg {
    TxGap,
    TxBurst,
    LostGap,
    LostBurst,
    Good,
    Bad,
}

/// `loss_4state` given the uniform `rnd`: is the packet lost (and the new state)?
pub fn loss_4state(st: &mut Clg, l: &Loss, rnd: u32) -> bool {
    let Loss::State {
        p13: a1,
        p31: a2,
        p32: a3,
        p23: a5,
        p14: a4,
    } = *l
    else {
        return false;
    };
    // The sums are u32 additions in the kernel.
    match *st {
        Clg::TxGap => {
            if rnd < a4 {
                *st = Clg::LostGap;
                return true;
            } else if rnd < a1.wrapping_add(a4) {
                *st = Clg::LostBurst;
                return true;
            }
        }
        Clg::TxBurst => {
            if rnd < a5 {
                *st = Clg::LostBurst;
                return true;
            }
        }
        Clg::LostBurst => {
            if rnd < a3 {
                *st = Clg::TxBurst;
            } else if rnd < a2.wrapping_add(a3) {
                *st = Clg::TxGap;
            } else {
                return true;
            }
        }
        Clg::LostGap => *st = Clg::TxGap,
        Clg::Good | Clg::Bad => {}
    }
    false
}

/// `loss_gilb_ell` given its two uniforms.
pub fn loss_gilb_ell(st: &mut Clg, l: &Loss, r1: u32, r2: u32) -> bool {
    let Loss::Ge { p, r, h, k1 } = *l else {
        return false;
    };
    match *st {
        Clg::Bad => {
            if r1 < r {
                *st = Clg::Good;
            }
            r2 > h
        }
        _ => {
            if r1 < p {
                *st = Clg::Bad;
            }
            r2 < k1
        }
    }
}

/// What only a netem with more than a fixed delay holds.
#[derive(Debug)]
struct Ext {
    rng: Rng,
    /// σ in ns (`jitter`), μ in ns (`latency`).
    jitter_ns: i32,
    latency_ns: i64,
    table: Option<&'static [i16]>,
    delay_cor: Crnd,
    loss: Loss,
    loss_cor: Crnd,
    clg: Clg,
    ecn: bool,
    duplicate: u32,
    dup_cor: Crnd,
    /// A packet answered [`Verdict::Duplicate`], with the mark its loss draw gave it: the
    /// next offer of it goes straight to the limit's far side; any other packet offered
    /// meanwhile is its copy, never duplicated.
    dup_pending: Option<(PktId, Mark)>,
    reorder: u32,
    reorder_cor: Crnd,
    gap: u32,
    counter: u32,
    rate: u64,
    packet_overhead: i32,
    cell_size: u32,
    cell_overhead: i32,
    orphans: bool,
    /// Packets whose time fell before the linear list's tail (netem's rbtree), by
    /// (time, arrival number); the largest time among them while any are held.
    tree: BinaryHeap<Reverse<(SimTime, u64, PktId, u32)>>,
    tree_max: SimTime,
    seq: u64,
    /// Reordered packets with their arrival (their `time_to_send`), sent before anything
    /// else (`sch->q`, filled at its head).
    head: VecDeque<(PktId, u32, SimTime)>,
}

impl Ext {
    fn new(s: &Spec) -> Ext {
        Ext {
            rng: Rng::new(0, 0),
            jitter_ns: (s.jitter / NS) as i32,
            latency_ns: (s.delay / NS) as i64,
            table: s.dist.table(),
            delay_cor: Crnd {
                last: 0,
                rho: s.delay_corr,
            },
            loss: s.loss,
            loss_cor: Crnd {
                last: 0,
                rho: match s.loss {
                    Loss::Random { corr, .. } => corr,
                    _ => 0,
                },
            },
            clg: match s.loss {
                Loss::Ge { .. } => Clg::Good,
                _ => Clg::TxGap,
            },
            ecn: s.ecn,
            duplicate: s.duplicate,
            dup_cor: Crnd {
                last: 0,
                rho: s.dup_corr,
            },
            dup_pending: None,
            reorder: s.reorder,
            reorder_cor: Crnd {
                last: 0,
                rho: s.reorder_corr,
            },
            gap: s.gap,
            counter: 0,
            rate: s.rate,
            packet_overhead: s.packet_overhead,
            cell_size: s.cell_size,
            cell_overhead: s.cell_overhead,
            orphans: s.delay > 0 || s.jitter > 0 || s.rate > 0,
            tree: BinaryHeap::new(),
            tree_max: 0,
            seq: 0,
            head: VecDeque::new(),
        }
    }

    fn held(&self) -> u64 {
        (self.tree.len() + self.head.len()) as u64
    }

    #[inline]
    fn u32(&mut self) -> u32 {
        (self.rng.next_u64() >> 32) as u32
    }

    /// `loss_event`.
    fn loss_event(&mut self) -> bool {
        match self.loss {
            Loss::None => false,
            Loss::Random { p, .. } => {
                let u = self.u32();
                p != 0 && p >= self.loss_cor.next(u)
            }
            Loss::State { .. } => {
                let u = self.u32();
                loss_4state(&mut self.clg, &self.loss, u)
            }
            Loss::Ge { .. } => {
                let (r1, r2) = (self.u32(), self.u32());
                loss_gilb_ell(&mut self.clg, &self.loss, r1, r2)
            }
        }
    }

    /// `packet_time_ns`.
    fn packet_time_ns(&self, len: u32) -> u64 {
        let mut len = (len as i64 + self.packet_overhead as i64).max(0) as u64;
        if self.cell_size > 0 {
            let cs = self.cell_size as u64;
            let mut cells = len / cs;
            if len > cells * cs {
                cells += 1;
            }
            len = (cells as i64 * (cs as i64 + self.cell_overhead as i64)).max(0) as u64;
        }
        ((len as u128 * 1_000_000_000) / self.rate as u128) as u64
    }
}

/// The delay line: (packet, length, time it may leave), and for more than a fixed delay
/// the rest of netem's state (boxed, so the fixed delay's queue stays small).
#[derive(Debug)]
pub struct Netem {
    pub delay: SimTime,
    pub limit: u64,
    /// The linear part of netem's `tfifo` (`t_head` … `t_tail`): times never decrease.
    q: VecDeque<(PktId, u32, SimTime)>,
    bytes: u64,
    ext: Option<Box<Ext>>,
}

impl Netem {
    /// Take `rng` (the port's stream of the run's seed) for every uniform netem draws, and
    /// the initial `last` of each correlated generator (`init_crandom` takes it from the
    /// kernel's entropy).
    pub(crate) fn seed_from(&mut self, rng: Rng) {
        if let Some(x) = self.ext.as_deref_mut() {
            x.rng = rng;
            x.delay_cor.last = x.u32();
            x.loss_cor.last = x.u32();
            x.dup_cor.last = x.u32();
            x.reorder_cor.last = x.u32();
        }
    }

    fn held(&self) -> u64 {
        self.q.len() as u64 + self.ext.as_deref().map_or(0, Ext::held)
    }

    fn enqueue_ext(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        let Netem {
            delay,
            limit,
            q,
            bytes,
            ext,
        } = self;
        let x = ext.as_deref_mut().unwrap();
        let mark = match x.dup_pending {
            // The original of a copy just offered: its draws and limit check are done.
            Some((orig, mark)) if orig == id => {
                x.dup_pending = None;
                mark
            }
            pending => {
                // A copy (`tc_depth` > 0) is not duplicated again.
                let copy = pending.is_some();
                let mut count = 1;
                if x.duplicate != 0 && !copy {
                    let u = x.u32();
                    if x.duplicate >= x.dup_cor.next(u) {
                        count += 1;
                    }
                }
                // The clone is taken after the loss draw's CE mark (`skb_clone` follows
                // `INET_ECN_set_ce`): a copy of a marked packet is marked.
                let mut mark = match pending {
                    Some((_, Mark::Ce)) => Mark::Ce,
                    _ => Mark::None,
                };
                if x.loss_event() {
                    if x.ecn && m.ecn != NOT_ECT {
                        mark = Mark::Ce;
                    } else {
                        count -= 1;
                    }
                }
                if count == 0 || q.len() as u64 + x.held() >= *limit {
                    return Verdict::Drop;
                }
                if count > 1 {
                    x.dup_pending = Some((id, mark));
                    return Verdict::Duplicate;
                }
                mark
            }
        };
        *bytes += m.len as u64;
        let reorder_now = x.gap != 0 && x.counter >= x.gap - 1 && {
            let u = x.u32();
            x.reorder >= x.reorder_cor.next(u)
        };
        if reorder_now {
            x.counter = 0;
            x.head.push_front((id, m.len, m.now));
            return Verdict::Queue(mark);
        }
        // Delay in ps: a fixed delay as given, a drawn one from the kernel's ns.
        let mut delay: i64 = if x.jitter_ns == 0 {
            *delay as i64
        } else {
            let u = x.u32();
            let rnd = x.delay_cor.next(u);
            tabledist(x.latency_ns, x.jitter_ns, rnd, x.table) * NS as i64
        };
        let mut now = m.now as i64;
        if x.rate > 0 {
            // The last `time_to_send` queued: of the reordered packets (`sch->q`'s tail),
            // the tree's last and the linear list's tail.
            let last = [
                x.head.back().map(|h| h.2),
                (!x.tree.is_empty()).then_some(x.tree_max),
                q.back().map(|h| h.2),
            ]
            .into_iter()
            .flatten()
            .max();
            if let Some(last) = last {
                delay = (delay - (last as i64 - now)).max(0);
                now = last as i64;
            }
            delay += (x.packet_time_ns(m.len) * NS) as i64;
        }
        let tts = (now + delay).max(0) as SimTime;
        x.counter += 1;
        // `tfifo_enqueue`: the linear list while times do not decrease, else the tree.
        match q.back() {
            Some(&(_, _, tail)) if tts < tail => {
                if x.tree.is_empty() || tts > x.tree_max {
                    x.tree_max = tts;
                }
                x.seq += 1;
                x.tree.push(Reverse((tts, x.seq, id, m.len)));
            }
            _ => q.push_back((id, m.len, tts)),
        }
        Verdict::Queue(mark)
    }

    fn dequeue_ext(&mut self, now: SimTime) -> Deq {
        let x = self.ext.as_deref_mut().unwrap();
        if let Some((id, len, _)) = x.head.pop_front() {
            self.bytes -= len as u64;
            return Deq::Packet(id, Mark::None);
        }
        // `netem_peek`: the tree's first when strictly earlier, else the list's head.
        let tree_t = x.tree.peek().map(|Reverse(e)| e.0);
        let lin_t = self.q.front().map(|h| h.2);
        let (t, from_tree) = match (tree_t, lin_t) {
            (None, None) => return Deq::Empty,
            (Some(a), Some(b)) => (a.min(b), a < b),
            (Some(a), None) => (a, true),
            (None, Some(b)) => (b, false),
        };
        if t > now {
            return Deq::NotBefore(t);
        }
        let (id, len) = if from_tree {
            let Reverse((_, _, id, len)) = x.tree.pop().unwrap();
            (id, len)
        } else {
            let (id, len, _) = self.q.pop_front().unwrap();
            (id, len)
        };
        self.bytes -= len as u64;
        Deq::Packet(id, Mark::None)
    }
}

impl QueueDisc for Netem {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.ext.is_some() {
            return self.enqueue_ext(id, m);
        }
        if self.q.len() as u64 >= self.limit {
            return Verdict::Drop;
        }
        self.q.push_back((id, m.len, m.now + self.delay));
        self.bytes += m.len as u64;
        Verdict::ENQUEUE
    }
    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        if self.ext.is_some() {
            return self.dequeue_ext(now);
        }
        match self.q.front() {
            None => Deq::Empty,
            Some(&(_, _, t)) if t > now => Deq::NotBefore(t),
            Some(_) => {
                let (id, len, _) = self.q.pop_front().unwrap();
                self.bytes -= len as u64;
                Deq::Packet(id, super::Mark::None)
            }
        }
    }
    /// `netem_reset` → `tfifo_reset`: the packets of the time-ordered queue (the tree and
    /// the linear part) and those due already (`head`) are dropped.
    fn reset(&mut self, _now: SimTime, drops: &mut Vec<PktId>) {
        if let Some(x) = self.ext.as_deref_mut() {
            drops.extend(x.head.drain(..).map(|h| h.0));
            while let Some(Reverse((_, _, id, _))) = x.tree.pop() {
                drops.push(id);
            }
        }
        drops.extend(self.q.drain(..).map(|h| h.0));
        self.bytes = 0;
    }
    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.held(),
        }
    }
    fn peek_len(&self) -> Option<u32> {
        if let Some(x) = &self.ext {
            if let Some(h) = x.head.front() {
                return Some(h.1);
            }
            let tree = x.tree.peek().map(|Reverse(e)| (e.0, e.3));
            let lin = self.q.front().map(|h| (h.2, h.1));
            return match (tree, lin) {
                (Some(a), Some(b)) => Some(if a.0 < b.0 { a.1 } else { b.1 }),
                (a, b) => a.or(b).map(|e| e.1),
            };
        }
        self.q.front().map(|h| h.1)
    }
    /// `netem_enqueue`: "If a delay is expected, orphan the skb" (`skb_orphan_partial`,
    /// Linux 3.14 and later) — with a latency, a jitter or a rate.
    fn orphans(&self) -> bool {
        match &self.ext {
            Some(x) => x.orphans,
            None => self.delay > 0,
        }
    }
    /// The port's stream of the run's seed (`start` is called once before the run):
    /// netem keeps no timer.
    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.seed_from(rng.clone());
        None
    }
}

#[cfg(test)]
mod tests;
