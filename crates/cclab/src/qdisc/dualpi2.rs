//! `queue = "dualpi2"`: the DualQ Coupled AQM with a PI2 base AQM (RFC 9332, its
//! Appendix A) as Linux implements it: `net/sched/sch_dualpi2.c` (mainline since 6.17;
//! read in full at the 6.18.y stable state, MyWRT/linux-6.18.y ba2cadd; torvalds/linux
//! as stored, 320d031, holds only the first patch of the series), with tc's key names and
//! defaults (iproute2 `tc/q_dualpi2.c`, `man/man8/tc-dualpi2.8`; docs/references.md §6.7).
//!
//! - **Classification** (`dualpi2_skb_classify`): a packet whose ECN field shares a bit
//!   with `ecn_mask` goes to the L queue: ECT(1) and CE with `l4s_ect` (mask 1, the
//!   default), every ECN-capable packet with `any_ect` (mask 3); the rest to the C queue.
//!   (tc filters and `skb->priority` classes are not modelled.)
//! - **PI2** (`calculate_probability`, a timer every `tupdate`, the first `tupdate` after
//!   the start): qdelay = the older of the two heads' ages; p' += alpha·(qdelay − target) +
//!   beta·(qdelay − last qdelay), in the kernel's integers: p' a `u32` fraction of
//!   `MAX_PROB` = 2³² − 1, delays in ns, alpha and beta as tc hands them (1/256 Hz:
//!   0.16 Hz = 41, 3.2 Hz = 819) scaled once to `param · MAX_PROB >> 2 / 10⁹` (41 → 44,
//!   819 → 879), the sum divided by 64, bounded to [0, MAX_PROB]; with `overflow` (not
//!   `drop_on_overload`) p' is capped at MAX_PROB / k.
//! - **Coupling** (`must_drop`): with less than two MTUs queued nothing is marked or
//!   dropped. A C packet is hit with p_C = p'² (two draws, each `random u32 ≤ p'`): CE if
//!   ECN-capable, else dropped. An L packet is marked with p_CL = k·p' (k =
//!   `coupling_factor`, 2). Overload, k·p' > 1: L packets meet the classic p'² and are
//!   dropped by it (`drop_on_overload`) or always marked (`overflow`); C packets are then
//!   dropped whatever their ECN field. By default this runs at dequeue (`drop_dequeue`),
//!   after the scheduler's choice; `drop_enqueue` runs it at enqueue.
//! - **Step** (`do_step_aqm`, always at dequeue, L packets only): a packet whose sojourn
//!   exceeds `step_thresh` (1 ms; or with a packet count, when more than that many are
//!   left in the L queue) is marked CE (a not-ECT one dropped), if the L queue held at
//!   least `min_qlen_step` packets when it arrived (0: always). RFC 9332's p_L =
//!   max(p_CL, step) is the two markers in turn.
//! - **Scheduler** (`dequeue_packet`): weighted round robin on a byte credit. The L queue
//!   is served while the credit is ≤ 0 or the C queue is empty; with both backlogged an L
//!   packet adds wc·len and a C packet subtracts wl·len (wc = `classic_protection` = 10%,
//!   wl = 100 − wc), so the C queue gets wc% of the bytes; the credit restarts at
//!   MTU·(wc − wl) when both are empty. The credit changes only for a packet sent.
//! - **Limits**: `limit` packets in both queues together (10,000), and `memlimit` bytes
//!   (default limit × 2 × MTU). Linux counts `skb->truesize` (the buffer the driver
//!   allocated) against `memlimit`; here a packet counts its IP length, so the default
//!   memory limit never binds before the packet limit, as with Linux's usual truesize.
//! - **GSO** (`split_gso`, on): an offload aggregate is cut into its segments before it is
//!   queued (`Verdict::Segment`); with `no_split_gso` it is one packet.
//! - **Units**: the MTU (`psched_mtu`, 1514 B with its Ethernet header in Linux) is 1500
//!   IP bytes here, as lengths are IP lengths (`pie::MTU`); times are whole ns (tc passes
//!   µs: `target`, `tupdate`, `step_thresh` are taken to whole µs). Linux keeps each
//!   head's enqueue time with 0 meaning "empty"; here the heads are read directly, so a
//!   packet queued at time 0 counts as it should.
//! - **Statistics** for experiments (not Linux's): each queue's sojourn of every packet
//!   sent, in ns ([`Hdr`]), and Linux's `step_marks` and `ecn_mark`.

use super::{Backlog, Deq, Mark, PktMeta, QdiscSpec, QueueDisc, Verdict};
use crate::engine::{Rng, SimTime};
use crate::packet::{PktId, NOT_ECT};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::units;
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use crate::stats::Hdr;
use std::collections::VecDeque;

/// `MAX_PROB`: probability 1.
pub const MAX_PROB: u32 = u32::MAX;
/// `ALPHA_BETA_SHIFT − ALPHA_BETA_GRANULARITY`: tc's 1/256 Hz to the kernel's 64 ns units.
const ALPHA_BETA_SCALING: u32 = 8 - 6;
/// `ALPHA_BETA_GRANULARITY`: the update's sum is divided by 2⁶.
const ALPHA_BETA_GRANULARITY: u32 = 6;
/// The largest alpha or beta the kernel takes, in 1/256 Hz (`ALPHA_BETA_MAX`).
pub const ALPHA_BETA_MAX: u32 = (1 << 31) - 1;
/// `MAX_WC`: the weights are percentages.
const MAX_WC: i32 = 100;
/// `psched_mtu` in IP bytes (module doc).
pub const MTU: u32 = super::pie::MTU;
/// tc's `RTT_TYP_TO_MAX`: max_rtt = 6 × typical_rtt when one is missing.
const RTT_TYP_TO_MAX: u32 = 6;

/// tc's alpha and beta (in 1/256 Hz) as the kernel holds them: `dualpi2_scale_alpha_beta`.
pub fn scale_alpha_beta(param: u32) -> u32 {
    (((param as u64 * MAX_PROB as u64) >> ALPHA_BETA_SCALING) / 1_000_000_000) as u32
}

/// `struct dualpi2_sched_data`'s configuration, as `dualpi2_reset_default` and tc set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Packets, both queues.
    pub limit: u32,
    /// Bytes (IP lengths), both queues.
    pub memory_limit: u64,
    /// ns.
    pub target: u64,
    /// ns.
    pub tupdate: u64,
    /// 1/256 Hz, as tc passes them.
    pub alpha: u32,
    pub beta: u32,
    /// ns, or packets with `step_in_packets`.
    pub step_thresh: u64,
    pub step_in_packets: bool,
    pub min_qlen_step: u32,
    /// k.
    pub coupling_factor: u8,
    /// 1 (`l4s_ect`) or 3 (`any_ect`).
    pub ecn_mask: u8,
    pub drop_overload: bool,
    pub drop_early: bool,
    pub split_gso: bool,
    /// wc, percent.
    pub c_protection: u8,
}

impl Default for Params {
    /// `dualpi2_reset_default`.
    fn default() -> Params {
        Params {
            limit: 10_000,
            memory_limit: memory_limit(10_000),
            target: 15_000_000,
            tupdate: 16_000_000,
            alpha: 41,
            beta: 819,
            step_thresh: 1_000_000,
            step_in_packets: false,
            min_qlen_step: 0,
            coupling_factor: 2,
            ecn_mask: ECN_MASK_L4S_ECT,
            drop_overload: true,
            drop_early: false,
            split_gso: true,
            c_protection: 10,
        }
    }
}

/// `TC_DUALPI2_ECN_MASK_L4S_ECT`, `…_ANY_ECT`.
pub const ECN_MASK_L4S_ECT: u8 = 1;
pub const ECN_MASK_ANY_ECT: u8 = 3;

/// `get_memory_limit`: limit × 2 × MTU (at most `u32::MAX`).
pub fn memory_limit(limit: u32) -> u64 {
    (limit as u64 * 2 * MTU as u64).min(u32::MAX as u64)
}

/// Which queue a packet is in (`DUALPI2_C_CLASSIC`, `DUALPI2_C_L4S`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Classic,
    L4s,
}

/// `dualpi2_skb_classify` without filters: the L queue if the ECN field shares a bit with
/// the mask.
#[inline]
pub fn classify(ecn: u8, ecn_mask: u8) -> Class {
    if ecn & ecn_mask != 0 {
        Class::L4s
    } else {
        Class::Classic
    }
}

/// A queued packet and its `dualpi2_skb_cb`.
#[derive(Clone, Copy, Debug)]
struct Queued {
    id: PktId,
    len: u32,
    /// Enqueue time, ns.
    ts: u64,
    /// The ECN field as it arrived.
    ect: u8,
    apply_step: bool,
    /// CE written at enqueue (`drop_enqueue`).
    ce: bool,
}

/// What the AQM does to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Pass,
    Mark,
    Drop,
}

/// Per-queue statistics, index 0 the C queue and 1 the L queue (cclab's, for experiments;
/// `ecn_mark` and `step_marks` are Linux's counters: every CE mark written, by either
/// marker, and the step's).
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Sojourn of each packet sent, ns.
    pub sojourn: [Hdr; 2],
    /// Σ sojourn of the packets sent, ns.
    pub sojourn_ns: [u64; 2],
    /// Packets and bytes sent.
    pub sent: [u64; 2],
    pub sent_bytes: [u64; 2],
    /// Packets sent with CE written by the queue.
    pub marked: [u64; 2],
    /// Drops by the AQM (the coupled one and the step; not the limits).
    pub aqm_drops: [u64; 2],
    pub ecn_mark: u64,
    pub step_marks: u64,
}

/// `queue = "dualpi2"`.
#[derive(Debug)]
pub struct DualPi2 {
    pub p: Params,
    /// The kernel's alpha and beta (`dualpi2_scale_alpha_beta`).
    alpha: u32,
    beta: u32,
    /// `pi2_prob`: p'.
    pub prob: u32,
    last_qdelay: u64,
    c_protection_credit: i32,
    c_protection_init: i32,
    wc: i32,
    wl: i32,
    c: VecDeque<Queued>,
    l: VecDeque<Queued>,
    /// Bytes queued in both (`sch->qstats.backlog`).
    bytes: u64,
    memory_used: u64,
    rng: Rng,
    pub stats: Stats,
}

impl DualPi2 {
    pub fn new(p: Params) -> DualPi2 {
        let wc = p.c_protection as i32;
        let wl = MAX_WC - wc;
        let init = MTU as i32 * (wc - wl);
        DualPi2 {
            p,
            alpha: scale_alpha_beta(p.alpha),
            beta: scale_alpha_beta(p.beta),
            prob: 0,
            last_qdelay: 0,
            c_protection_credit: init,
            c_protection_init: init,
            wc,
            wl,
            c: VecDeque::new(),
            l: VecDeque::new(),
            bytes: 0,
            memory_used: 0,
            rng: Rng::new(0, 0),
            stats: Stats::default(),
        }
    }

    /// `dualpi2_roll`: true with probability `prob` / MAX_PROB.
    #[inline]
    fn roll(&mut self, prob: u32) -> bool {
        ((self.rng.next_u64() >> 32) as u32) <= prob
    }

    /// `must_drop`: the coupled AQM's decision on packet `h` of class `class`, with
    /// `backlog` bytes in the qdisc.
    fn must_drop(&mut self, class: Class, ect: u8, backlog: u64) -> Act {
        if backlog < 2 * MTU as u64 {
            return Act::Pass;
        }
        let prob = self.prob;
        let local_l_prob = prob as u64 * self.p.coupling_factor as u64;
        let overload = local_l_prob > MAX_PROB as u64;
        let ect_capable = ect != NOT_ECT;
        match class {
            // dualpi2_classic_marking
            Class::Classic => {
                if self.roll(prob) && self.roll(prob) {
                    if overload || !ect_capable {
                        return Act::Drop;
                    }
                    return Act::Mark;
                }
                Act::Pass
            }
            // dualpi2_scalable_marking
            Class::L4s => {
                if overload {
                    if !(self.p.drop_overload && self.roll(prob) && self.roll(prob)) {
                        // `goto mark`: INET_ECN_set_ce does nothing to a not-ECT packet.
                        return if ect_capable { Act::Mark } else { Act::Pass };
                    }
                    return Act::Drop;
                }
                if self.roll(local_l_prob as u32) {
                    if !ect_capable {
                        return Act::Drop;
                    }
                    return Act::Mark;
                }
                Act::Pass
            }
        }
    }

    /// `must_drop` with its counters: the mark to write, or `None` to drop the packet.
    fn coupled(&mut self, class: Class, ect: u8, backlog: u64) -> Option<Mark> {
        match self.must_drop(class, ect, backlog) {
            Act::Pass => Some(Mark::None),
            Act::Mark => {
                self.stats.ecn_mark += 1;
                Some(Mark::Ce)
            }
            Act::Drop => {
                self.stats.aqm_drops[class as usize] += 1;
                None
            }
        }
    }

    /// The heads' ages at `now` (ns), 0 for an empty queue: (C, L) (`get_queue_delays`).
    pub fn queue_delays(&self, now_ns: u64) -> (u64, u64) {
        let age = |q: &VecDeque<Queued>| q.front().map_or(0, |h| now_ns.saturating_sub(h.ts));
        (age(&self.c), age(&self.l))
    }

    /// `calculate_probability` at `now` (ns): the new p'.
    pub fn calculate_probability(&mut self, now_ns: u64) -> u32 {
        let (qdelay_c, qdelay_l) = self.queue_delays(now_ns);
        let qdelay = qdelay_l.max(qdelay_c);
        let mut delta: i64 = (qdelay as i64 - self.p.target as i64).wrapping_mul(self.alpha as i64);
        delta = delta
            .wrapping_add((qdelay as i64 - self.last_qdelay as i64).wrapping_mul(self.beta as i64));
        self.last_qdelay = qdelay;
        let prob = self.prob;
        let new_prob = if delta > 0 {
            let step = (delta as u64) >> ALPHA_BETA_GRANULARITY;
            let n = step.wrapping_add(prob as u64) as u32;
            if n < prob {
                MAX_PROB
            } else {
                n
            }
        } else {
            let step = (delta.wrapping_neg() as u64) >> ALPHA_BETA_GRANULARITY;
            let n = (prob as u64).wrapping_sub(step) as u32;
            if n > prob {
                0
            } else {
                n
            }
        };
        if !self.p.drop_overload {
            return new_prob.min(MAX_PROB / self.p.coupling_factor as u32);
        }
        new_prob
    }

    /// `dequeue_packet`'s choice: the queue to serve and the credit change per byte, or
    /// `None` when both are empty.
    #[inline]
    fn select(&self) -> Option<(Class, i32)> {
        let (c_len, l_len) = (self.c.len(), self.l.len());
        if l_len > 0 && (c_len == 0 || self.c_protection_credit <= 0) {
            Some((Class::L4s, if c_len > 0 { self.wc } else { 0 }))
        } else if c_len > 0 {
            Some((Class::Classic, if l_len > 0 { -self.wl } else { 0 }))
        } else {
            None
        }
    }

    /// The WRR credit (`c_protection_credit`; its sign says which queue is next).
    pub fn credit(&self) -> i32 {
        self.c_protection_credit
    }

    /// Packets queued: (C, L).
    pub fn qlens(&self) -> (usize, usize) {
        (self.c.len(), self.l.len())
    }
}

#[inline]
fn ns(t: SimTime) -> u64 {
    t / 1000
}

impl QueueDisc for DualPi2 {
    /// `dualpi2_qdisc_enqueue` and `dualpi2_enqueue_skb`.
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.p.split_gso && m.segs > 1 {
            return Verdict::Segment;
        }
        let class = classify(m.ecn, self.p.ecn_mask);
        let qlen = self.c.len() + self.l.len();
        if qlen >= self.p.limit as usize || self.memory_used + m.len as u64 > self.p.memory_limit {
            return Verdict::Drop;
        }
        let mut mark = Mark::None;
        if self.p.drop_early {
            match self.coupled(class, m.ecn, self.bytes) {
                Some(m) => mark = m,
                None => return Verdict::Drop,
            }
        }
        let q = Queued {
            id,
            len: m.len,
            ts: ns(m.now),
            ect: m.ecn,
            apply_step: class == Class::L4s && self.l.len() as u64 >= self.p.min_qlen_step as u64,
            ce: mark == Mark::Ce,
        };
        self.memory_used += m.len as u64;
        self.bytes += m.len as u64;
        match class {
            Class::L4s => self.l.push_back(q),
            Class::Classic => self.c.push_back(q),
        }
        Verdict::Queue(mark)
    }

    /// `__dualpi2_qdisc_dequeue`.
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        let now_ns = ns(now);
        loop {
            let Some((class, weight)) = self.select() else {
                self.c_protection_credit = self.c_protection_init;
                return Deq::Empty;
            };
            let queue = match class {
                Class::L4s => &mut self.l,
                Class::Classic => &mut self.c,
            };
            let Some(h) = queue.pop_front() else {
                unreachable!("the scheduler chose a queue that holds packets");
            };
            self.bytes -= h.len as u64;
            self.memory_used -= h.len as u64;
            let credit_change = weight * h.len as i32;
            let mut mark = Mark::None;
            if !self.p.drop_early {
                match self.coupled(class, h.ect, self.bytes) {
                    Some(m) => mark = m,
                    None => {
                        drops.push(h.id);
                        continue;
                    }
                }
            }
            let sojourn = now_ns.saturating_sub(h.ts);
            if class == Class::L4s {
                // do_step_aqm
                let qdelay = if self.p.step_in_packets {
                    self.l.len() as u64
                } else {
                    sojourn
                };
                if h.apply_step && qdelay > self.p.step_thresh {
                    if h.ect == NOT_ECT {
                        self.stats.aqm_drops[1] += 1;
                        drops.push(h.id);
                        continue;
                    }
                    self.stats.ecn_mark += 1;
                    self.stats.step_marks += 1;
                    mark = Mark::Ce;
                }
            }
            self.c_protection_credit += credit_change;
            let st = &mut self.stats;
            let i = class as usize;
            st.sojourn[i].record(sojourn);
            st.sojourn_ns[i] += sojourn;
            st.sent[i] += 1;
            st.sent_bytes[i] += h.len as u64;
            st.marked[i] += (mark == Mark::Ce || h.ce) as u64;
            return Deq::Packet(h.id, mark);
        }
    }

    fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: (self.c.len() + self.l.len()) as u64,
        }
    }

    /// The head the scheduler would take next (before the AQM's decision on it).
    fn peek_len(&self) -> Option<u32> {
        match self.select()? {
            (Class::L4s, _) => self.l.front().map(|h| h.len),
            (Class::Classic, _) => self.c.front().map(|h| h.len),
        }
    }

    /// `dualpi2_init`: the stream for the draws, and the first update a `tupdate` later.
    /// `dualpi2_reset`: both queues flushed (the C queue's packets first) without the AQM
    /// or a draw, p' = 0, the credit back at its start. Linux keeps `last_qdelay` and
    /// zeroes its counters (`ecn_mark`, `step_marks`); [`Stats`] are the run's totals
    /// and are kept.
    fn reset(&mut self, _now: SimTime, drops: &mut Vec<PktId>) {
        drops.extend(self.c.drain(..).map(|h| h.id));
        drops.extend(self.l.drain(..).map(|h| h.id));
        self.bytes = 0;
        self.memory_used = 0;
        self.prob = 0;
        self.c_protection_credit = self.c_protection_init;
    }

    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.rng = Rng::new(rng.next_u64(), 0);
        Some(self.p.tupdate * 1000)
    }

    /// `dualpi2_timer`.
    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        self.prob = self.calculate_probability(ns(now));
        Some(now.saturating_add(self.p.tupdate * 1000))
    }
}

// ----- scenario keys (tc's words): `dualpi2/keys.rs`

mod keys;
#[cfg(test)]
use keys::whole_us;
pub use keys::{auto_config, parse, tc_gain, Spec, KEYS};

impl super::QueueSpec {
    /// dualpi2 with Linux's defaults.
    pub fn dualpi2() -> super::QueueSpec {
        super::QueueSpec::DualPi2(Spec {
            params: Params::default(),
        })
    }
}

/// Boxed: the discipline is larger than the others, and the `Qdisc` enum (inline in every
/// port) takes the size of its largest variant.
impl QdiscSpec for Spec {
    type Q = Box<DualPi2>;
    fn build(&self) -> Box<DualPi2> {
        Box::new(DualPi2::new(self.params))
    }
    fn limit(&self) -> Limit {
        Limit::Packets(self.params.limit as u64)
    }
}

#[cfg(test)]
mod tests;
