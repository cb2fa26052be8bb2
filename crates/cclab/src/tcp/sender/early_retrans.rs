//! Early retransmit (RFC 5827, with the delay of its Appendix A.3 mitigation, as Linux
//! 3.18 `net/ipv4/tcp_input.c` implements it; `net.ipv4.tcp_early_retrans` = 3 by default
//! in 3.18, 1 enables it without the delay (`early_retrans = "no-delay"`), 2 and 3 with
//! it, 4 is TLP only; removed in 4.11 for RACK), part of `Sender`.
//!
//! - `tp->do_early_retrans` (`tcp_enable_early_retrans`, include/net/tcp.h): on for a
//!   connection when the sysctl enables it and `tcp_reordering` is 3 (and no thin-dupack
//!   mode, not modelled); off for good once the SACKs show any reordering
//!   (`tcp_update_reordering` → `tcp_disable_early_retrans`).
//! - `tcp_time_to_recover`, "Trick#6": with `do_early_retrans`, nothing retransmitted
//!   (`retrans_out` 0), something SACKed (or duplicate-ACKed), `packets_out ≥ sacked_out
//!   + 1` and `packets_out < 4`, and no new segment that may be sent now
//!   (`tcp_may_send_now`): recovery starts — unless `tcp_pause_early_retransmit` delays it.
//! - `tcp_pause_early_retransmit`: without an ECN echo on this ACK and with an RTT sample,
//!   the entry waits `delay = max(srtt/4, 2 ms)` on the retransmission timer
//!   (`ICSK_TIME_EARLY_RETRANS`), unless the RTO would fire first (its deadline not after
//!   now + delay), in which case recovery starts at once.
//! - Any ACK puts the RTO back in the timer's place (`tcp_ack`: `tcp_rearm_rto` when the
//!   early-retransmit or probe event is pending), and the test above runs again on it.
//! - `tcp_resume_early_retransmit` (the timer fired, `tcp_write_timer_handler`): the RTO
//!   is re-armed, and if early retransmit is still on for the connection, recovery starts
//!   (`tcp_enter_recovery`), the head is marked lost (`tcp_update_scoreboard(sk, 1)`:
//!   FACK's count, or the head) and retransmitted (`tcp_xmit_retransmit_queue`).
//!
//! With `rack` on nothing here runs (4.11 removed early retransmit: RACK's reordering
//! window does its work).

use super::rack::Pending;
use super::{Sender, SimTime};
use crate::cc::CaState;
use crate::engine::MS;
use crate::tcp::config::TlpVariant;
use crate::transport::Io;

/// The delay's floor (`msecs_to_jiffies(2)` in `tcp_pause_early_retransmit`).
const ER_MIN_DELAY: SimTime = 2 * MS;

impl Sender {
    /// `tcp_may_send_now`: a new segment could leave now (data waiting, room in cwnd and
    /// in the peer's window).
    pub(super) fn may_send_now(&self) -> bool {
        let nxt = self.tp.snd_nxt;
        if self.write_seq <= nxt || self.in_flight() >= self.tp.snd_cwnd {
            return false;
        }
        let len = (self.write_seq - nxt).min(self.mss as u64);
        nxt + len - self.tp.snd_una <= self.snd_wnd
    }

    /// `tcp_time_to_recover`'s early-retransmit test (Trick#6) and
    /// `tcp_pause_early_retransmit`: true when recovery starts now; false when the
    /// conditions do not hold or the entry was delayed (the timer armed, `Pending::EarlyRetrans`).
    /// `una_advanced`: this ACK moved snd_una, so the RTO restarts from now (Linux re-arms
    /// it in `tcp_clean_rtx_queue`, before this test).
    pub(super) fn early_retrans_now(&mut self, io: &mut Io, ece: bool, una_advanced: bool) -> bool {
        let packets_out = self.packets_out();
        if !(self.loss.do_early_retrans
            && self.retrans_out == 0
            && self.sacked_out > 0
            && packets_out > self.sacked_out
            && packets_out < 4
            && !self.may_send_now())
        {
            return false;
        }
        // `tcp_pause_early_retransmit` (sysctl 2 and 3; 1 does not wait).
        if ece || !self.rtt.has_sample() || self.cfg.early_retrans_no_delay {
            return true;
        }
        let delay = (self.rtt.srtt() / 4).max(ER_MIN_DELAY);
        let at = io.now + delay;
        let rto_at = if una_advanced {
            Some(io.now + self.current_rto())
        } else if self.loss.pending == Pending::Rto {
            self.rto_timer.deadline
        } else {
            Some((io.now as i64 + self.rto_delta()).max(io.now as i64) as SimTime)
        };
        match rto_at {
            Some(rto) if rto > at => {
                self.arm_xmit_timer(io, Pending::EarlyRetrans, at);
                self.loss.er_delays += 1;
                false
            }
            _ => true,
        }
    }

    /// 3.18 `tcp_ack`, first: the RTO takes the timer back from early retransmit's delay
    /// and (3.18's probe) from a pending probe.
    #[cold]
    #[inline(never)]
    pub(super) fn ack_start_3_18(&mut self, io: &mut Io) {
        if self.loss.pending == Pending::EarlyRetrans
            || (self.loss.pending == Pending::Probe && self.cfg.tlp_variant != TlpVariant::Linux6_6)
        {
            self.rearm_rto(io);
        }
    }

    /// 3.18 `tcp_ack`, last: the probe again on every ACK that leaves the RTO pending
    /// (one that moved snd_una scheduled it already).
    #[cold]
    #[inline(never)]
    pub(super) fn ack_end_3_18(&mut self, io: &mut Io) {
        if self.cfg.tlp_variant != TlpVariant::Linux6_6
            && self.loss.pending == Pending::Rto
            && self.rto_timer.is_armed()
        {
            self.schedule_loss_probe(io, false);
        }
    }

    /// 3.18's `tcp_time_to_recover` without RACK: FACK's count, or RFC 6675's duplicate
    /// threshold and a lost head; then early retransmit (Trick#6), which may arm its delay.
    #[cold]
    #[inline(never)]
    pub(super) fn time_to_recover_3_18(
        &mut self,
        io: &mut Io,
        ece: bool,
        una_advanced: bool,
        dupacks: u32,
        head_lost: bool,
    ) -> bool {
        let recover = if self.fack_on() {
            self.lost_out > 0 || self.fackets_out() > self.loss.reordering
        } else {
            dupacks >= self.loss.reordering || head_lost
        };
        if recover
            || !self.loss.do_early_retrans
            || !matches!(
                self.tp.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            )
        {
            return recover;
        }
        self.early_retrans_now(io, ece, una_advanced)
    }

    /// `tcp_resume_early_retransmit`: the delay passed with no ACK in between.
    pub(super) fn resume_early_retransmit(&mut self, io: &mut Io) {
        self.rearm_rto(io);
        if !self.loss.do_early_retrans
            || self.segs.is_empty()
            || !matches!(
                self.tp.ca_state,
                CaState::Open | CaState::Disorder | CaState::Cwr
            )
        {
            return;
        }
        self.loss.er_fired += 1;
        self.enter_recovery(false);
        // `tcp_update_scoreboard(sk, 1)`.
        if self.fack_on() {
            self.fack_mark_lost();
        } else {
            self.mark_lost(0);
        }
        self.try_send(io);
    }
}

#[cfg(test)]
impl Sender {
    /// FACK's lost retransmissions (`TCPLostRetransmit`, for tests).
    pub fn fack_lost_retrans(&self) -> u64 {
        self.loss.lost_retrans
    }

    /// `do_early_retrans`, delays armed, delays that ran out (for tests).
    pub fn early_retrans_state(&self) -> (bool, u64, u64) {
        (
            self.loss.do_early_retrans,
            self.loss.er_delays,
            self.loss.er_fired,
        )
    }
}
