//! Which lost segments go again together (part of `Sender`, see `sender.rs`), as Linux
//! 6.6 does it: `net/ipv4/tcp_output.c` `tcp_xmit_retransmit_queue`, `tcp_retransmit_skb`
//! and `__tcp_retransmit_skb`, with the skbs of the retransmission queue they walk.
//!
//! - **The skbs.** The scoreboard keeps one entry per segment; `Seg::head` marks the first
//!   segment of each skb Linux holds. Every packet sent is one skb (`tcp_write_xmit` cuts
//!   the write queue's skb to the packet with `tso_fragment`), and a retransmission of
//!   part of an skb cuts it there (`tcp_fragment` in `__tcp_retransmit_skb`, and in
//!   `tcp_send_loss_probe` before the probe's last segment). The other cuts need no mark:
//!   a cumulative ACK trims the head skb (`tcp_trim_head`), and SACK tagging cuts an skb
//!   at a block's edges (`tcp_match_skb_to_sack`, or `tcp_shift_skb_data` moving the
//!   SACKed part onto the previous SACKed skb, `tcp_shifted_skb`), so what stays
//!   un-SACKed of an skb is an skb of its own: here, a run of segments ending at a SACKed
//!   one.
//! - **One skb, one packet.** `tcp_xmit_retransmit_queue` offers each lost skb
//!   `segs = min(cwnd − in_flight, tcp_tso_segs)` ("in case `tcp_shift_skb_data` have
//!   aggregated large skbs"), and `__tcp_retransmit_skb` sends that many of its segments
//!   at once and cuts the rest off as a new skb (`tcp_fragment` at `cur_mss · segs`), no
//!   further than the peer's window (`avail_wnd`, rounded down to whole segments). With
//!   segmentation offload that is one GSO packet, which `__tcp_transmit_skb` marks PSH as
//!   every GSO packet since 5.4 (`gso_push`); the skb's own PSH stays on its tail piece. So a hole whose segments
//!   left as one GSO packet goes again as one (google/packetdrill
//!   `sack-route-refresh-ip-tos`: `P. 17521:20441(2920)`), and a hole spanning the ends of
//!   two packets, or cut by a SACK, goes as single segments (there `. 13141:16061`).
//! - Linux 2.6.9 – 3.19 cut every retransmission to one `cur_mss` (`tcp_fragment(sk,
//!   skb, cur_mss, ...)`; the `segs` argument is in 4.8, from "tcp-tso: do not split TSO
//!   packets at retransmit time", 2015): `tso_retrans = false`, the 3.18 and 2.6
//!   profiles. Without offload (`[host] tso` off) every skb is one segment anyway.
//! - Not modelled: `tcp_retrans_try_collapse` (merging sub-MSS skbs into one
//!   retransmission), and a retransmission out of the peer's window skipped rather than
//!   sent (`-EAGAIN`): as before, the first segment of a lost run always goes.

use super::rack::Pending;
use super::Sender;
use crate::engine::SimTime;
use crate::packet::*;
use crate::transport::Io;

impl Sender {
    /// How many segments `tcp_xmit_retransmit_queue` lets the next lost skb carry:
    /// `min(cwnd − in_flight, tcp_tso_segs)`, at least one; one without offload or with
    /// `tso_retrans` off.
    #[inline]
    fn rtx_max_segs(&self) -> u32 {
        if !self.cfg.tso_retrans || !self.cfg.host.tso {
            return 1;
        }
        let room = self.tp.snd_cwnd.saturating_sub(self.in_flight()).max(1);
        room.min(self.tso_segs())
    }

    /// The segments from `i` (lost, not retransmitted, not SACKed) that go in one
    /// retransmission: the rest of its skb in the same state, at most `max`, within the
    /// peer's window (`avail_wnd` of `__tcp_retransmit_skb`).
    fn lost_run(&self, i: usize, max: u32) -> u32 {
        let wnd_end = self.tp.snd_una + self.snd_wnd;
        let mut n = 1;
        while n < max {
            let Some(s) = self.segs.get(i + n as usize) else {
                break;
            };
            if s.head || !s.lost || s.retrans || s.sacked || s.end > wnd_end {
                break;
            }
            n += 1;
        }
        n
    }

    /// Send segments `i .. i + n` of one skb again (`__tcp_retransmit_skb`): one packet,
    /// a GSO packet (PSH) for more than one segment; the tail's PSH kept; marked a
    /// retransmission, counted; returns when it left, which becomes the segments' send
    /// time. The segment after them, if of the same skb, now starts one (`tcp_fragment`).
    pub(super) fn resend_run(&mut self, io: &mut Io, i: usize, n: u32) -> SimTime {
        let last = i + n as usize - 1;
        let (start, end) = (self.segs[i].start, self.segs[last].end);
        let len = (end - start) as u32;
        let mut p = self.data_packet(io.now, start, len);
        if self.segs[last].psh {
            p.flags |= PSH;
        }
        if n > 1 {
            // `__tcp_transmit_skb`: PSH on every GSO packet since 5.4 (`gso_push`, as
            // `send_new`).
            if self.cfg.gso_push {
                p.flags |= PSH;
            }
            p.segs = n as u16;
            p.gso_size = self.mss as u16;
            p.size = len + n * (IP_TCP_HDR + self.ts_len());
        }
        p.retrans = true;
        p.ecn = self.retrans_ecn();
        self.stats.retrans_segs += n as u64;
        self.stats.data_segs_out += n as u64;
        let sent = self.xmit(io, p);
        for s in self.segs.range_mut(i..=last) {
            s.sent = sent;
            s.ever_retrans = true;
        }
        if self.cc_owns {
            let tx = self.rate_skb_sent(sent, false, n);
            for t in self.rate.tx.range_mut(i..=last) {
                *t = tx;
            }
        }
        self.segs[i].head = true;
        if let Some(next) = self.segs.get_mut(last + 1) {
            next.head = true;
        }
        sent
    }

    /// Send segment `i` again, alone (the tail loss probe).
    pub(super) fn resend(&mut self, io: &mut Io, i: usize) -> SimTime {
        self.resend_run(io, i, 1)
    }

    /// Retransmit the lowest lost skb not already retransmitted, or as much of it as
    /// cwnd and offload allow (`tcp_xmit_retransmit_queue` → `tcp_retransmit_skb`), and
    /// at most `allow` segments (seed 001's spacing, `sender/spacing.rs`).
    /// Returns the segments sent, 0 if none was waiting.
    pub(super) fn retransmit_next_lost(&mut self, io: &mut Io, allow: u32) -> u32 {
        let start_idx = self.seg_index(self.lost_hint);
        for i in start_idx..self.segs.len() {
            let s = self.segs[i];
            if s.lost && !s.retrans && !s.sacked {
                let n = self.lost_run(i, self.rtx_max_segs().min(allow));
                let sent = self.resend_run(io, i, n);
                for k in i..i + n as usize {
                    self.segs[k].retrans = true;
                    let start = self.segs[k].start;
                    self.rack_note_retransmit(start, sent);
                    self.undo_note_retransmit();
                }
                self.retrans_out += n;
                // Each was counted once (lost, not retransmitted); the count may be stale
                // high (`lost_pending`), never low.
                self.lost_pending = self.lost_pending.saturating_sub(n);
                self.lost_hint = self.segs[i + n as usize - 1].end;
                // A pending probe gives way to the RTO (`tcp_xmit_retransmit_queue`).
                if !self.rto_timer.is_armed() || self.loss.pending == Pending::Probe {
                    let at = io.now + self.current_rto();
                    self.arm_rto(io, at);
                }
                return n;
            }
        }
        // Nothing found: the count was stale (segments got SACKed/acked).
        self.lost_pending = 0;
        0
    }
}
