//! FACK loss marking (Mathis & Mahdavi, SIGCOMM 1996, as Linux 3.18 `net/ipv4/tcp_input.c`
//! implements it; `net.ipv4.tcp_fack` = 1 by default until its removal in 4.15), part of
//! `Sender`.
//!
//! - `fackets_out` (`tp->fackets_out`, kept by `tcp_sacktag_one`): the segments from
//!   snd_una up to and including the highest SACKed one. Here it is computed from the
//!   scoreboard when needed (the index of the highest SACKed segment, plus one) instead of
//!   being kept per ACK, so the default profile pays nothing for it.
//! - `tcp_dupack_heuristics`: with FACK the "duplicate count" is `fackets_out` (else
//!   `sacked_out + 1`); `tcp_time_to_recover` enters recovery when it exceeds
//!   `tp->reordering` (or `lost_out > 0`, or early retransmit says so).
//! - `tcp_update_scoreboard` with FACK: `lost = max(fackets_out - reordering, 1)` and
//!   `tcp_mark_head_lost(sk, lost, 0)`: walking from the head and counting *every*
//!   segment (FACK counts SACKed ones too), the un-SACKed segments among the first `lost`
//!   are marked lost (`tcp_skb_mark_lost` skips SACKed ones). Called from
//!   `tcp_fastretrans_alert` when `do_lost`: a duplicate ACK, or new SACKs with
//!   `fackets_out > reordering` (`tcp_fackets_out`), and in Recovery on a partial ACK when
//!   `fackets_out > reordering`.
//! - `tcp_disable_fack` (from `tcp_update_reordering`): once the SACKs show reordering
//!   beyond `tp->reordering`, FACK is off for the connection (its in-order assumption
//!   failed); RFC 3517 marking takes over.
//!
//! - `tcp_mark_lost_retrans` (FACK only, in Recovery, at the end of
//!   `tcp_sacktag_write_queue`): a retransmission is lost once the highest SACK lies above
//!   the snd_nxt of the moment it was sent, i.e. once a segment first sent after it was
//!   SACKed; it is marked for retransmission again (`TCPLostRetransmit`). Here the test is
//!   on send times: the retransmissions are kept in the order they were sent (RACK's
//!   ring), and one sent before the highest SACKed segment's send time is lost.
//!
//! Not modelled: the `tcp_fragment` of a TSO skb straddling the count (cclab's scoreboard
//! is per segment).
//!
//! With `rack` on, none of this runs: RACK replaced FACK (Linux 4.15 removed FACK; from
//! 4.4 to 4.14 RACK marked losses in addition to it, which cclab does not model).

use super::Sender;
use crate::cc::CaState;

impl Sender {
    /// FACK is in force: configured, not disabled by reordering, with SACK, without RACK.
    #[inline]
    pub(super) fn fack_on(&self) -> bool {
        self.loss.fack && self.cfg.sack && !self.cfg.rack
    }

    /// `tp->fackets_out`: segments from snd_una through the highest SACKed one.
    pub(super) fn fackets_out(&self) -> u32 {
        if self.sacked_out == 0 || self.n_top == 0 {
            return 0;
        }
        self.seg_index(self.top_sacked[self.n_top - 1]) as u32 + 1
    }

    /// FACK's loss marking on an ACK (`tcp_sacktag_write_queue`'s `tcp_mark_lost_retrans`,
    /// then `tcp_fastretrans_alert` in Recovery); returns the newly lost.
    #[cold]
    #[inline(never)]
    pub(super) fn fack_on_ack(
        &mut self,
        is_dup: bool,
        newly_sacked: bool,
        una_advanced: bool,
    ) -> u32 {
        if self.tp.ca_state != CaState::Recovery {
            return 0;
        }
        if newly_sacked {
            self.fack_mark_lost_retrans();
        }
        if self.fack_do_lost(is_dup, newly_sacked, una_advanced) {
            self.fack_mark_lost()
        } else {
            0
        }
    }

    /// `tcp_fastretrans_alert`'s `do_lost` with FACK: a duplicate ACK, or new SACKs (or,
    /// in Recovery, a partial ACK) with `fackets_out > reordering`.
    pub(super) fn fack_do_lost(
        &self,
        is_dup: bool,
        newly_sacked: bool,
        una_advanced: bool,
    ) -> bool {
        is_dup || ((newly_sacked || una_advanced) && self.fackets_out() > self.loss.reordering)
    }

    /// `tcp_update_scoreboard` with FACK: the un-SACKed segments among the first
    /// max(fackets_out − reordering, 1) are lost. Returns how many were newly marked.
    /// Segments below `mark_cursor` were marked already (Linux's `lost_skb_hint`).
    pub(super) fn fack_mark_lost(&mut self) -> u32 {
        let lost = (self.fackets_out() as i64 - self.loss.reordering as i64).max(1) as usize;
        let end = lost.min(self.segs.len());
        let before = self.lost_out;
        let mut i = self.seg_index(self.mark_cursor.max(self.tp.snd_una));
        while i < end {
            self.mark_lost(i);
            i += 1;
        }
        if end > 0 {
            self.mark_cursor = self.mark_cursor.max(self.segs[end - 1].end);
        }
        self.lost_out - before
    }

    /// `tcp_mark_lost_retrans`: retransmissions sent before the highest SACKed segment
    /// was sent are lost again. Called in Recovery on an ACK that SACKed something.
    pub(super) fn fack_mark_lost_retrans(&mut self) {
        if self.retrans_out == 0 {
            self.loss.rack.rtx.clear(); // every entry is settled
            return;
        }
        if self.n_top == 0 || self.sacked_out == 0 {
            return;
        }
        let top = self.segs[self.seg_index(self.top_sacked[self.n_top - 1])].sent;
        while let Some(&(start, sent)) = self.loss.rack.rtx.front() {
            let i = self.seg_index(start);
            let live = i < self.segs.len() && {
                let s = self.segs[i];
                s.start == start && s.sent == sent && s.retrans
            };
            if live {
                if sent >= top {
                    break; // the later ones were sent later still
                }
                self.rack_mark_skb_lost(i);
                self.loss.lost_retrans += 1;
            }
            self.loss.rack.rtx.pop_front();
        }
    }

    /// `tcp_disable_fack`, called when the reordering degree grew.
    #[inline]
    pub(super) fn disable_fack(&mut self) {
        self.loss.fack = false;
    }
}
