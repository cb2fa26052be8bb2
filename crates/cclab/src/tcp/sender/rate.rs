//! Delivery-rate sampling (part of `Sender`, see `sender.rs`), as Linux
//! `net/ipv4/tcp_rate.c` (Linux 4.9 – 6.15; Cheng, Cardwell, Hassas Yeganeh & Jacobson,
//! draft-cheng-iccrg-delivery-rate-estimation-02): for a module with `cong_control` (BBR)
//! each ACK yields a `RateSample` — how many segments were delivered between the send of
//! the most recently sent segment this ACK delivered and now, over the longer of its send
//! and ACK phases.
//!
//! - `rate_skb_sent` (`tcp_rate_skb_sent`): every (re)transmission snapshots
//!   `tp->delivered`, `delivered_ce`, `delivered_mstamp`, `first_tx_mstamp` and the
//!   app-limited state into its segments; with nothing in flight both clocks restart at
//!   the send.
//! - `rate_skb_delivered` (`tcp_rate_skb_delivered`): for each segment newly ACKed or
//!   SACKed (a SACKed one only once: Linux zeroes its `delivered_mstamp`), the sample
//!   follows the most recently sent (`tcp_skb_sent_after`: later send time, or the same
//!   time and a later end), and `first_tx_mstamp` moves to its send time.
//! - `rate_gen` (`tcp_rate_gen`): after loss detection; an invalid sample has
//!   `delivered = interval_us = -1`; a sample shorter than min_rtt is discarded
//!   (`interval_us = -1`).
//! - `rate_check_app_limited` (`tcp_rate_check_app_limited`, called on each application
//!   write): less than a segment left to send, nothing queued below TCP, cwnd not full and
//!   every lost segment retransmitted: the samples of what is in flight are
//!   application-limited until it is delivered.
//!
//! A module without `cong_control` pays none of it (`cc_owns` false): the snapshots are a
//! deque beside the scoreboard (`Sender::tx`), empty for the others.

use super::{Seg, Sender};
use crate::cc::{CongestionOps, RateSample, TcpCcState};
use crate::engine::{SimTime, US};
use crate::transport::Io;

/// What a (re)transmission snapshots into its segments (Linux `TCP_SKB_CB(skb)->tx`):
/// `tp->delivered` and `delivered_ce` (Linux's u32), `tcp_rate.c`'s two clocks, and
/// whether the socket was application-limited; and, as Google's BBR v2/v3 tree adds,
/// the segments in flight just after the send (`tx.in_flight`, `tcp_set_tx_in_flight`)
/// and `tp->lost` then (`tx.lost`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TxRate {
    pub delivered: u32,
    pub delivered_ce: u32,
    pub delivered_mstamp: SimTime,
    pub first_tx_mstamp: SimTime,
    pub in_flight: u32,
    pub lost: u32,
    pub app_limited: bool,
}

/// The sampler's state: this ACK's sample and the segments' snapshots, parallel to the
/// scoreboard's segments.
#[derive(Debug, Default)]
pub(super) struct RateState {
    pub rs: RateSample,
    pub tx: std::collections::VecDeque<TxRate>,
}

impl Sender {
    /// `tcp_rate_skb_sent` for a (re)transmission of `pcount` segments leaving at `sent`,
    /// before they count in flight; `nothing_out`: `tp->packets_out` was 0 before it.
    /// Returns the snapshot its segments keep.
    #[inline]
    pub(super) fn rate_skb_sent(
        &mut self,
        sent: SimTime,
        nothing_out: bool,
        pcount: u32,
    ) -> TxRate {
        // `tcp_set_tx_in_flight`: in flight after the skb left (20 bits in Linux).
        let in_flight = (self.in_flight() + pcount).min((1 << 20) - 1);
        let tp = &mut self.tp;
        if nothing_out {
            tp.first_tx_mstamp = sent;
            tp.delivered_mstamp = sent;
        }
        TxRate {
            delivered: tp.delivered as u32,
            delivered_ce: tp.delivered_ce as u32,
            delivered_mstamp: tp.delivered_mstamp,
            first_tx_mstamp: tp.first_tx_mstamp,
            in_flight,
            lost: tp.lost as u32,
            app_limited: tp.app_limited != 0,
        }
    }

    /// `tcp_rate_skb_delivered` for segment `s` with snapshot `t`, newly ACKed or SACKed by
    /// this ACK.
    #[inline]
    pub(super) fn rate_skb_delivered(&mut self, s: &Seg, t: &TxRate) {
        if t.delivered_mstamp == 0 {
            return;
        }
        let rs = &mut self.rate.rs;
        let tp = &mut self.tp;
        // `tcp_skb_sent_after(tx_tstamp, tp->first_tx_mstamp, end_seq, rs->last_end_seq)`,
        // on Linux's µs stamps.
        let (t1, t2) = (s.sent / US, tp.first_tx_mstamp / US);
        if rs.prior_delivered == 0 || t1 > t2 || (t1 == t2 && s.end > rs.last_end_seq) {
            rs.prior_delivered_ce = t.delivered_ce;
            rs.prior_delivered = t.delivered;
            rs.prior_mstamp = t.delivered_mstamp;
            rs.is_app_limited = t.app_limited;
            rs.is_retrans = s.ever_retrans;
            rs.tx_in_flight = t.in_flight;
            rs.prior_lost = t.lost;
            rs.last_end_seq = s.end;
            tp.first_tx_mstamp = s.sent;
            // The send phase of this window.
            rs.interval_us = TcpCcState::us_delta(tp.first_tx_mstamp, t.first_tx_mstamp) as i64;
        }
    }

    /// `tcp_rate_gen`: `delivered` segments newly (S)ACKed and `lost` newly marked lost by
    /// this ACK; completes `self.rate.rs`.
    pub(super) fn rate_gen(&mut self, delivered: u32, lost: u32) {
        let tp = &mut self.tp;
        let rs = &mut self.rate.rs;
        // The application-limited bubble is delivered and gone.
        if tp.app_limited != 0 && tp.delivered > tp.app_limited {
            tp.app_limited = 0;
        }
        if delivered > 0 {
            tp.delivered_mstamp = tp.now;
        }
        rs.acked_sacked = delivered;
        rs.losses = lost;
        if rs.prior_mstamp == 0 {
            rs.delivered = -1;
            rs.interval_us = -1;
            return;
        }
        rs.delivered = (tp.delivered as u32).wrapping_sub(rs.prior_delivered) as i32;
        rs.lost = (tp.lost as u32).wrapping_sub(rs.prior_lost);
        rs.delivered_ce =
            ((tp.delivered_ce as u32).wrapping_sub(rs.prior_delivered_ce) & 0xfffff) as i32;
        // The longer of the send and ACK phases (ACK compression can make the send phase
        // the longer one).
        let snd_us = rs.interval_us;
        let ack_us = TcpCcState::us_delta(tp.now, rs.prior_mstamp) as i64;
        rs.interval_us = snd_us.max(ack_us);
        rs.snd_interval_us = snd_us.max(0) as u32;
        rs.rcv_interval_us = ack_us as u32;
        if rs.interval_us < tp.min_rtt_us as i64 {
            rs.interval_us = -1;
        }
    }

    /// `tcp_notify_skb_loss_event` (Linux 5.x–6.x; BBR v3 tree): `tp->lost` counts segment
    /// `i`, just marked lost, and a module with `cong_control` hears of it
    /// (`.skb_marked_lost`) with the segment's snapshot.
    #[inline]
    pub(super) fn notify_skb_lost(&mut self, i: usize) {
        self.tp.lost += 1;
        if self.cc_owns {
            let t = self.rate.tx[i];
            let skb = crate::cc::LostSkb {
                pcount: 1,
                tx_in_flight: t.in_flight,
                tx_lost: t.lost,
                is_app_limited: t.app_limited,
                delivered_mstamp: if self.segs[i].sacked {
                    0
                } else {
                    t.delivered_mstamp
                },
            };
            self.cc.skb_marked_lost(&mut self.tp, &skb);
        }
    }

    /// `tcp_rate_check_app_limited`, when the application writes.
    pub(super) fn rate_check_app_limited(&mut self, io: &Io) {
        if !self.cc_owns {
            return;
        }
        let in_flight = self.in_flight();
        if self.write_seq - self.tp.snd_nxt.max(1) < self.mss as u64
            && io.below == 0
            && in_flight < self.tp.snd_cwnd
            && self.lost_out <= self.retrans_out
        {
            self.tp.app_limited = (self.tp.delivered + in_flight as u64).max(1);
        }
    }
}

#[cfg(test)]
#[path = "rate_tests.rs"]
mod tests;
