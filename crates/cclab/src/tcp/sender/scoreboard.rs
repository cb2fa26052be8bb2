//! The sender's SACK scoreboard and loss marking (part of `Sender`, see `sender.rs`).
//!
//! - Scoreboard: one entry per segment, like Linux's retransmit queue of skbs, with the
//!   `sacked`/`lost`/`retrans` bits and Linux's counters `packets_out`, `sacked_out`,
//!   `lost_out`, `retrans_out`; SACK blocks are tagged as Linux `tcp_sacktag_write_queue`
//!   / `tcp_sacktag_one` do, skipping what the previous ACK reported (`recv_sack_cache`).
//! - Loss detection with SACK (RFC 6675 `IsLost`): a segment is lost once DupThresh = 3
//!   segments above it are SACKed (`mark_lost_by_sack`). Without SACK (RFC 6582 NewReno,
//!   as Linux emulates it) the head is marked lost by the recovery state machine.
//! - `check_invariants`: the counters recomputed from the segments, for tests.

use super::{Seg, Sender, DUPTHRESH};
use crate::packet::{Packet, MAX_SACK};
use std::collections::VecDeque;

/// [`Sender::seg_index`] on a queue of segments in sequence order.
///
/// Every segment but a send's short last one is one MSS long, so the first segment's
/// length places `seq` at once: the answer is the guess or the one after it, confirmed by
/// one or two neighbouring entries (the answer is the `i` with `segs[i - 1].start < seq <=
/// segs[i].start`, which needs only the order). Anything else (segments of several
/// lengths) falls back to a binary search. The binary search alone was a chain of
/// dependent loads, each a cache miss on a cold queue: on a dumbbell of 1,000 senders
/// `sacktag_range` took 5.8% of the run's time (perf) for 0.9% of its instructions
/// (valgrind).
#[inline]
fn first_from(segs: &VecDeque<Seg>, seq: u64) -> usize {
    let Some(f) = segs.front() else { return 0 };
    if seq <= f.start {
        return 0;
    }
    let n = segs.len();
    let (d, w) = (seq - f.start, (f.end - f.start).max(1));
    // A 32-bit division when it fits (always, but for a queue of 4 GB).
    let g = if (d | w) >> 32 == 0 {
        (d as u32 / w as u32) as usize
    } else {
        (d / w) as usize
    };
    let g = g.min(n - 1);
    if segs[g].start < seq {
        if g + 1 == n || segs[g + 1].start >= seq {
            return g + 1;
        }
    } else if segs[g - 1].start < seq {
        // g >= 1 here: segs[0].start < seq.
        return g;
    }
    search(segs, seq)
}

/// The first segment that starts at or after `seq`: a binary search of each half of the
/// ring.
#[cold]
fn search(segs: &VecDeque<Seg>, seq: u64) -> usize {
    let (a, b) = segs.as_slices();
    if b.first().is_some_and(|s| s.start < seq) {
        a.len() + b.partition_point(|s| s.start < seq)
    } else {
        a.partition_point(|s| s.start < seq)
    }
}

impl Sender {
    /// The index of the first segment in the queue that starts at or after `seq` (the
    /// queue's length if none does): segments are in sequence order. Found from the
    /// segments' length (`first_from`); `VecDeque::binary_search_by`, used before that, was
    /// a call of ~146 instructions, 3% of a 1,000-sender dumbbell's instructions (valgrind).
    #[inline]
    pub(super) fn seg_index(&self, seq: u64) -> usize {
        first_from(&self.segs, seq)
    }

    pub(super) fn mark_lost(&mut self, i: usize) {
        let s = &mut self.segs[i];
        if !s.lost && !s.sacked {
            s.lost = true;
            let (retrans, start) = (s.retrans, s.start);
            self.lost_out += 1;
            if !retrans {
                self.lost_pending += 1;
                self.lost_hint = self.lost_hint.min(start);
            }
            self.notify_skb_lost(i);
        }
    }

    /// Record a newly SACKed segment in the top-3 list (ascending).
    fn note_sacked(&mut self, start: u64) {
        if self.n_top < 3 {
            let mut i = self.n_top;
            while i > 0 && self.top_sacked[i - 1] > start {
                self.top_sacked[i] = self.top_sacked[i - 1];
                i -= 1;
            }
            self.top_sacked[i] = start;
            self.n_top += 1;
        } else if start > self.top_sacked[0] {
            let mut i = 0;
            while i < 2 && self.top_sacked[i + 1] < start {
                self.top_sacked[i] = self.top_sacked[i + 1];
                i += 1;
            }
            self.top_sacked[i] = start;
        }
    }

    /// Process SACK blocks; returns the number of newly SACKed segments.
    ///
    /// Like Linux `tcp_sacktag_write_queue` with its `recv_sack_cache`: the parts of a block
    /// that the previous ACK already reported are skipped, so an ACK costs the segments it
    /// newly SACKs, not the size of its blocks (a block can span tens of thousands of
    /// segments after a slow-start overshoot). The cache is ignored when nothing is SACKed.
    pub(super) fn process_sacks(&mut self, p: &Packet) -> u32 {
        let mut newly = 0;
        // Whole-array copies: only the first `n` blocks are read, and a copy of `n` blocks
        // would be a call to `memcpy` per ACK.
        let mut cache: [(u64, u64); MAX_SACK] = self.sack_cache;
        let n_cache = if self.sacked_out > 0 {
            self.n_sack_cache
        } else {
            0
        };
        // At most `MAX_SACK` blocks: an insertion sort in line (`sort_unstable` was a call
        // per ACK).
        for a in 1..n_cache {
            let mut b = a;
            while b > 0 && cache[b - 1] > cache[b] {
                cache.swap(b - 1, b);
                b -= 1;
            }
        }
        for b in 0..p.nsack as usize {
            let (bs, be) = p.sack[b];
            if be <= self.tp.snd_una {
                continue; // D-SACK or stale
            }
            // Walk [bs, be) minus the cached blocks.
            let mut cur = bs;
            for &(cs, ce) in &cache[..n_cache] {
                if ce <= cur || cs >= be {
                    continue;
                }
                if cs > cur {
                    newly += self.sacktag_range(cur, cs, be);
                }
                cur = cur.max(ce);
            }
            if cur < be {
                newly += self.sacktag_range(cur, be, be);
            }
        }
        self.n_sack_cache = p.nsack as usize;
        self.sack_cache = p.sack;
        newly
    }

    /// Tag the segments starting in [from, to) that end by `block_end` as SACKed
    /// (`tcp_sacktag_one`: a SACKed segment is no longer lost or in flight).
    fn sacktag_range(&mut self, from: u64, to: u64, block_end: u64) -> u32 {
        let mut newly = 0;
        let mut i = self.seg_index(from);
        while i < self.segs.len() && self.segs[i].start < to && self.segs[i].end <= block_end {
            let s = self.segs[i];
            if !s.sacked {
                self.segs[i].sacked = true;
                self.segs[i].lost = false;
                self.sacked_out += 1;
                if s.lost {
                    self.lost_out -= 1;
                }
                if s.retrans {
                    self.retrans_out -= 1;
                    self.segs[i].retrans = false;
                }
                newly += 1;
                if self.cc_owns {
                    let t = self.rate.tx[i];
                    self.rate_skb_delivered(&s, &t);
                }
                self.note_sacked(s.start);
                self.on_newly_sacked(s.start, s.end, s.sent, s.ever_retrans);
            }
            i += 1;
        }
        newly
    }

    /// RFC 6675 IsLost: mark every un-SACKed segment below the third-highest SACKed one.
    pub(super) fn mark_lost_by_sack(&mut self) -> u32 {
        if self.n_top < DUPTHRESH as usize {
            return 0;
        }
        let boundary = self.top_sacked[0];
        let from = self.mark_cursor.max(self.tp.snd_una);
        if from >= boundary {
            return 0;
        }
        let mut i = self.seg_index(from);
        let before = self.lost_out;
        while i < self.segs.len() && self.segs[i].start < boundary {
            self.mark_lost(i);
            i += 1;
        }
        self.mark_cursor = boundary;
        self.lost_out - before
    }

    /// Recompute the scoreboard counters from the segments and compare (for tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        // The rate snapshots run beside the segments (`sender/rate.rs`).
        let want_tx = if self.cc_owns { self.segs.len() } else { 0 };
        if self.rate.tx.len() != want_tx {
            return Err(format!(
                "{} rate snapshots for {} segments",
                self.rate.tx.len(),
                self.segs.len()
            ));
        }
        let sacked = self.segs.iter().filter(|s| s.sacked).count() as u32;
        let lost = self.segs.iter().filter(|s| s.lost).count() as u32;
        let retrans = self.segs.iter().filter(|s| s.retrans).count() as u32;
        let pending = self.segs.iter().filter(|s| s.lost && !s.retrans).count() as u32;
        let reno = if self.cfg.sack { 0 } else { self.reno_dupacks };
        if self.segs.iter().any(|s| s.sacked && (s.lost || s.retrans)) {
            return Err("a SACKed segment is also lost or in retransmission".into());
        }
        if sacked + reno != self.sacked_out || lost != self.lost_out || retrans != self.retrans_out
        {
            return Err(format!(
                "counters sacked {}/{} lost {}/{} retrans {}/{} (scoreboard/counter)",
                sacked + reno,
                self.sacked_out,
                lost,
                self.lost_out,
                retrans,
                self.retrans_out
            ));
        }
        if pending > 0 && self.lost_pending == 0 {
            return Err(format!(
                "{pending} lost segments wait for retransmission but lost_pending = 0"
            ));
        }
        let mut top: Vec<u64> = self
            .segs
            .iter()
            .filter(|s| s.sacked)
            .map(|s| s.start)
            .collect();
        let top = top.split_off(top.len().saturating_sub(3));
        if self.cfg.sack && top[..] != self.top_sacked[..self.n_top] {
            return Err(format!(
                "top SACKed {:?} != scoreboard {:?}",
                &self.top_sacked[..self.n_top],
                top
            ));
        }
        if let Some(f) = self.segs.front() {
            if f.start != self.tp.snd_una {
                return Err(format!(
                    "head segment {} != snd_una {}",
                    f.start, self.tp.snd_una
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `first_from` is `VecDeque::binary_search_by`'s answer (either arm) for every
    /// sequence number around every segment, on queues whose ring wraps at every point,
    /// of segments of one length (its guess) and of several (its fallback).
    #[test]
    fn first_from_finds_what_a_binary_search_finds_on_a_wrapped_ring() {
        let seg = |start: u64, len: u64| Seg {
            start,
            end: start + len,
            sent: 0,
            sacked: false,
            lost: false,
            retrans: false,
            ever_retrans: false,
            psh: false,
            head: false,
        };
        // Segment lengths, taken in turn: one MSS; a short one now and then (a send's last
        // segment), also first; a mix; a long first segment. None is empty (`send_new`).
        let patterns: [&[u64]; 4] = [&[10], &[3, 10, 10, 10], &[10, 10, 4, 10, 10, 1], &[25, 10]];
        let mut wrapped = 0;
        for lens in patterns {
            for len in 0..12usize {
                for shift in 0..16 {
                    // Pop from the front and push at the back so the live part wraps.
                    let mut q: VecDeque<Seg> = VecDeque::with_capacity(16);
                    for k in 0..shift {
                        q.push_back(seg(k, 1));
                        q.pop_front();
                    }
                    let mut at = 100;
                    for k in 0..len {
                        let l = lens[k % lens.len()];
                        q.push_back(seg(at, l));
                        at += l;
                    }
                    let wraps = !q.as_slices().1.is_empty();
                    wrapped += wraps as u32;
                    for seq in 90..(at + 20) {
                        let want = match q.binary_search_by(|s| s.start.cmp(&seq)) {
                            Ok(i) | Err(i) => i,
                        };
                        assert_eq!(
                            first_from(&q, seq),
                            want,
                            "lengths {lens:?} len {len} shift {shift} seq {seq} wraps {wraps}"
                        );
                    }
                }
            }
        }
        assert!(wrapped > 80, "{wrapped} wrapped queues");
    }
}
