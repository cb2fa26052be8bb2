//! The sender's congestion state machine (part of `Sender`, see `sender.rs`): the
//! states Open, Disorder, CWR, Recovery and Loss, changed through Linux `tcp_set_ca_state`
//! so the module hears of them (Open ↔ Disorder as Linux `tcp_try_keep_open`).
//!
//! - Fast recovery entry (Linux `tcp_enter_recovery`) on DupThresh duplicate ACKs / SACKs
//!   or a lost head; NewReno partial ACKs mark the next hole lost (RFC 6582 §3.2 step 5).
//! - Cwnd during recovery and ECN reduction: PRR (RFC 6937, Linux `tcp_cwnd_reduction`)
//!   by default; with `prr = false`, RFC 6675 §5 (cwnd = ssthresh at entry) with SACK, and
//!   RFC 6582 §3.2 (ssthresh + 3, +1 per duplicate ACK, deflate on partial ACK) without.
//!   Entry and exit: Linux `tcp_init_cwnd_reduction` / `tcp_end_cwnd_reduction`. With
//!   `rate_halving`, Linux 2.6.9's rate halving instead (`sender/rate_halving.rs`).
//! - ECN (RFC 3168 §6.1.2): on ECE, one reduction per window (Linux `tcp_enter_cwr`).
//! - Local congestion: a segment the host's own qdisc would drop is not sent and the
//!   sender enters CWR the same way (Linux `tcp_transmit_skb` on NET_XMIT_DROP).
//! - RTO: Linux `tcp_enter_loss`: every un-SACKed segment is marked lost, cwnd = 1, slow
//!   start. With RACK (Linux `tcp_timeout_mark_lost`), only the head and the segments
//!   whose RACK deadline passed (sent more than RACK's RTT ago).
//! - With the modern keys (Linux 6.6 `tcp_fastretrans_alert`): the duplicate threshold is
//!   the reordering degree `tp->reordering` (`tcp_time_to_recover`); with RACK, recovery
//!   starts once RACK marked a segment lost (`lost_out > 0`) and RACK does the marking
//!   (`tcp_identify_packet_loss`); undo on D-SACK (`tcp_try_undo_dsack`,
//!   `tcp_try_undo_recovery`) and F-RTO in Loss (`sender/undo.rs`).

use super::rack::AckEvent;
use super::{Sender, SimTime};
use crate::cc::{CaEvent, CaState, CongestionOps};
use crate::transport::Io;

impl Sender {
    pub(super) fn set_ca_state(&mut self, s: CaState) {
        self.cc.set_state(&mut self.tp, s);
        self.tp.ca_state = s;
    }

    /// `tcp_init_cwnd_reduction`.
    fn init_cwnd_reduction(&mut self) {
        self.stats.last_reduction_at = self.tp.now;
        self.high_seq = self.tp.snd_nxt;
        self.loss.tlp_high_seq = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
        // `tcp_ecn_queue_cwr`: RFC 3168 only; Accurate ECN has no CWR.
        if self.tp.ecn_ok && self.accecn.is_none() {
            self.cwr_pending = true;
            self.stats.cwr_events += 1;
        }
    }

    /// `tcp_end_cwnd_reduction`.
    fn end_cwnd_reduction(&mut self) {
        // A module with `cong_control` keeps its cwnd (and hears no CA_EVENT_COMPLETE_CWR).
        if self.cc_owns {
            return;
        }
        if self.cfg.rate_halving {
            self.rate_halving_exit(); // `sender/rate_halving.rs`
        } else if self.cfg.prr || self.cfg.sack || self.tp.ca_state == CaState::Cwr {
            self.tp.snd_cwnd = self.tp.snd_ssthresh;
        } else {
            // RFC 6582 §3.2 step 6 (full ACK): min(ssthresh, max(FlightSize, SMSS) + SMSS).
            let flight = self.in_flight().max(1);
            self.tp.snd_cwnd = self.tp.snd_ssthresh.min(flight + 1);
        }
        self.tp.snd_cwnd_cnt = 0;
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
    }

    /// Linux `tcp_fastretrans_alert` (entered for every ACK here). Returns true when RACK
    /// armed the reordering timer.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn congestion_state_machine(
        &mut self,
        io: &mut Io,
        ack: u64,
        prior_una: u64,
        ece: bool,
        dupacks: u32,
        _newly_lost: u32,
        ev: AckEvent,
    ) -> bool {
        let rack = self.rack_on();
        if ece {
            self.loss.prior_ssthresh = 0; // an ECN echo forbids undo
        }
        // F-RTO and undo in Loss (`tcp_process_loss`), before the episode's end.
        if self.tp.ca_state == CaState::Loss
            && (self.cfg.frto || self.cfg.dsack)
            && self.process_loss_frto(ev.una_advanced, self.loss.orig_acked, ev.sacked_or_dup)
        {
            // Undone: on as in Open.
        }
        // Leave a finished episode.
        match self.tp.ca_state {
            // CWR is held until something *above* high_seq is acked, so the CWR bit has
            // reached the receiver; NewReno likewise holds recovery (RFC 6582 §3.2 step 6,
            // Linux `tcp_try_undo_recovery`), SACK recovery ends at high_seq.
            CaState::Cwr if ack > self.high_seq => {
                self.end_cwnd_reduction();
                self.set_ca_state(CaState::Open);
            }
            CaState::Recovery if ack > self.high_seq || (self.cfg.sack && ack == self.high_seq) => {
                if self.try_undo_recovery() {
                    // cwnd was restored (`tcp_end_cwnd_reduction` leaves it).
                    self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
                } else {
                    self.end_cwnd_reduction();
                }
                self.set_ca_state(CaState::Open);
            }
            CaState::Loss if ack >= self.high_seq => {
                self.try_undo_recovery();
                self.set_ca_state(CaState::Open);
            }
            CaState::Recovery if !self.cfg.sack && ack > prior_una => {
                // NewReno partial ACK (RFC 6582 §3.2 step 5): the next hole is lost too.
                if !self.segs.is_empty() {
                    self.mark_lost(0);
                }
                if !self.cfg.prr && !self.cfg.rate_halving && !self.cc_owns {
                    let acked = ((ack - prior_una) / self.mss as u64) as u32;
                    self.tp.snd_cwnd = self.tp.snd_cwnd.saturating_sub(acked).max(1) + 1;
                }
                // The RTO was re-armed by this ACK (on_ack re-arms on every advance of
                // snd_una, as Linux `tcp_rearm_rto`): RFC 6582 §4's "Slow-but-Steady"
                // variant, so a window with N holes takes N RTTs and no timeout.
            }
            _ => {}
        }

        // D-SACK undo (`tcp_try_undo_dsack`): in Recovery, and late D-SACKs in Open or
        // Disorder.
        if self.loss.undo_marker != 0
            && matches!(
                self.tp.ca_state,
                CaState::Recovery | CaState::Open | CaState::Disorder
            )
            && self.try_undo_dsack()
            && self.tp.ca_state == CaState::Recovery
        {
            self.try_keep_open();
        }

        // RACK marks losses (`tcp_identify_packet_loss`) on a dubious ACK.
        let mut reo_armed = false;
        let mut lost_retrans = false;
        if rack && ev.dubious && !self.segs.is_empty() {
            let retrans_before = self.retrans_out;
            reo_armed = self.rack_mark_lost(io);
            lost_retrans = self.retrans_out < retrans_before;
        }

        let head_lost = self.segs.front().is_some_and(|s| s.lost);
        let state = self.tp.ca_state;
        let time_to_recover = if rack {
            self.lost_out > 0
        } else if self.loss.v318 {
            // FACK and early retransmit (`sender/fack.rs`, `sender/early_retrans.rs`).
            let t = self.time_to_recover_3_18(io, ece, ev.una_advanced, dupacks, head_lost);
            reo_armed |= self.loss.pending == super::rack::Pending::EarlyRetrans;
            t
        } else {
            dupacks >= self.loss.reordering || head_lost
        };
        if (matches!(state, CaState::Open | CaState::Disorder | CaState::Cwr)
            || (state == CaState::Loss && lost_retrans))
            && time_to_recover
            && !self.segs.is_empty()
        {
            if !rack && self.loss.fack && self.cfg.sack {
                self.fack_mark_lost(); // `tcp_update_scoreboard` with FACK
            } else if !rack && (!self.cfg.sack || !head_lost) {
                self.mark_lost(0);
            }
            self.enter_recovery(ece);
            return reo_armed;
        }
        if ece {
            self.enter_cwr();
        }
        // `tcp_try_keep_open`: Open ↔ Disorder goes through `tcp_set_ca_state`, so the
        // module's `set_state` hears of it (Vegas stops its RTT sampling in Disorder).
        if self.tp.ca_state == CaState::Open && (self.sacked_out > 0 || dupacks > 0) {
            self.set_ca_state(CaState::Disorder);
        } else if self.tp.ca_state == CaState::Disorder && self.sacked_out == 0 && dupacks == 0 {
            self.set_ca_state(CaState::Open);
        }
        reo_armed
    }

    /// `tcp_enter_recovery` (the loss marking is the caller's).
    pub(super) fn enter_recovery(&mut self, ece: bool) {
        let state = self.tp.ca_state;
        self.stats.recoveries += 1;
        self.init_undo(false, ece);
        if state != CaState::Cwr {
            self.init_cwnd_reduction();
        }
        self.high_seq = self.tp.snd_nxt;
        self.set_ca_state(CaState::Recovery);
        if self.cc_owns {
            // The module's `cong_control` sets cwnd in recovery.
        } else if self.cfg.rate_halving {
            self.rate_halving_enter(false);
        } else if !self.cfg.prr {
            self.tp.snd_cwnd = if self.cfg.sack {
                self.tp.snd_ssthresh // RFC 6675 §5 step 4.2
            } else {
                self.tp.snd_ssthresh + super::DUPTHRESH // RFC 6582 §3.2 step 2
            };
        }
    }

    /// `tcp_try_keep_open` after an undo or a TLP repair: Disorder while anything is
    /// SACKed, lost or retransmitted, else Open.
    fn try_keep_open(&mut self) {
        let st = if self.sacked_out > 0 || self.lost_out > 0 || self.retrans_out > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if self.tp.ca_state != st {
            self.set_ca_state(st);
            self.high_seq = self.tp.snd_nxt;
        }
    }

    /// One cwnd reduction entered and left at once (`tcp_process_tlp_ack`: the probe
    /// repaired a loss).
    pub(super) fn cwnd_reduction_once(&mut self) {
        self.init_cwnd_reduction();
        self.set_ca_state(CaState::Cwr);
        self.end_cwnd_reduction();
        self.try_keep_open();
    }

    /// `tcp_enter_cwr`: one reduction, unless one is under way.
    fn enter_cwr(&mut self) {
        self.loss.prior_ssthresh = 0;
        if matches!(self.tp.ca_state, CaState::Open | CaState::Disorder) {
            self.loss.undo_marker = 0;
            self.init_cwnd_reduction();
            self.stats.cwr_episodes += 1;
            self.set_ca_state(CaState::Cwr);
            if self.cc_owns {
                // The module's `cong_control` sets cwnd in CWR.
            } else if self.cfg.rate_halving {
                self.rate_halving_enter(true);
            } else if !self.cfg.prr {
                self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
            }
        }
    }

    /// The host's own qdisc would drop the next skb (`tcp_transmit_skb` after
    /// NET_XMIT_DROP): CWR, counted.
    pub(super) fn local_congestion(&mut self) {
        self.stats.local_drops += 1;
        self.enter_cwr();
    }

    /// PRR (RFC 6937), as Linux `tcp_cwnd_reduction`.
    pub(super) fn prr_reduction(
        &mut self,
        newly_acked_sacked: u32,
        newly_lost: bool,
        una_advanced: bool,
    ) {
        if newly_acked_sacked == 0 || self.tp.prior_cwnd == 0 {
            return;
        }
        let in_flight = self.in_flight() as i64;
        let ssthresh = self.tp.snd_ssthresh as i64;
        let delta = ssthresh - in_flight;
        self.prr_delivered += newly_acked_sacked;
        let mut sndcnt: i64 = if delta < 0 {
            let dividend =
                ssthresh as u64 * self.prr_delivered as u64 + self.tp.prior_cwnd as u64 - 1;
            (dividend / self.tp.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else if una_advanced && !newly_lost {
            delta.min(
                (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64)
                    + 1,
            )
        } else {
            delta.min(newly_acked_sacked as i64)
        };
        // Force a fast retransmit upon entering fast recovery.
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.tp.snd_cwnd = (in_flight + sndcnt).max(1) as u32;
    }

    /// `tcp_enter_loss`.
    pub(super) fn enter_loss(&mut self) {
        let st = self.tp.ca_state;
        let new_recovery = matches!(st, CaState::Open | CaState::Disorder | CaState::Cwr);
        if matches!(st, CaState::Open | CaState::Disorder)
            || self.high_seq <= self.tp.snd_una
            || (st == CaState::Loss && self.backoff == 0)
        {
            self.init_undo(true, false);
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            // Linux calls CA_EVENT_LOSS here, while cwnd still has its pre-RTO value.
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
            if self.tp.ecn_ok && self.accecn.is_none() {
                self.cwr_pending = true;
            }
        }
        // A timeout in Disorder with many SACKs: the reordering degree was overestimated.
        if matches!(st, CaState::Open | CaState::Disorder) && self.sacked_out >= self.cfg.reordering
        {
            self.loss.reordering = self.loss.reordering.min(self.cfg.reordering);
        }
        self.set_ca_state(CaState::Loss);
        if self.rack_on() {
            self.timeout_mark_lost_rack();
        } else {
            // Every un-SACKed segment is lost; outstanding retransmissions are forgotten.
            self.retrans_out = 0;
            self.lost_out = 0;
            self.lost_pending = 0;
            for i in 0..self.segs.len() {
                let s = &mut self.segs[i];
                // `tcp_mark_skb_lost` counts a newly lost segment and a lost
                // retransmission (`tp->lost`).
                let newly = !s.sacked && (!s.lost || s.retrans);
                s.retrans = false;
                s.lost = !s.sacked;
                if s.lost {
                    self.lost_out += 1;
                    self.lost_pending += 1;
                }
                if newly {
                    self.notify_skb_lost(i);
                }
            }
        }
        self.lost_hint = self.tp.snd_una;
        self.mark_cursor = self.tp.snd_nxt;
        self.high_seq = self.tp.snd_nxt;
        self.tp.snd_cwnd = self.in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.reno_dupacks_reset();
        // F-RTO (RFC 5682 §3.1 step 1): unless a recovery was under way, other than
        // timeouts of the same segment.
        self.loss.frto = self.cfg.frto && (new_recovery || self.backoff > 0);
    }

    /// `tcp_timeout_mark_lost` with RACK: the head and every segment whose RACK deadline
    /// (`sent + rack.rtt`) passed is lost; a lost one's retransmission is forgotten.
    fn timeout_mark_lost_rack(&mut self) {
        let now = self.tp.now;
        let rtt: SimTime = self.loss.rack.rtt;
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.sacked || (i > 0 && s.sent + rtt > now) {
                continue;
            }
            if s.lost {
                if s.retrans {
                    self.segs[i].retrans = false;
                    self.retrans_out -= 1;
                    self.lost_pending += 1;
                    self.notify_skb_lost(i);
                }
            } else {
                self.segs[i].lost = true;
                self.lost_out += 1;
                if !s.retrans {
                    self.lost_pending += 1;
                }
                self.notify_skb_lost(i);
            }
        }
        self.lost_hint = self.tp.snd_una;
    }

    fn reno_dupacks_reset(&mut self) {
        if !self.cfg.sack {
            self.sacked_out -= self.reno_dupacks;
            self.reno_dupacks = 0;
        }
    }
}
