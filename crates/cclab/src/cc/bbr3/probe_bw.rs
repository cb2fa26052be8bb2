//! BBR v3's PROBE_BW state machine (part of `Bbr3`, see `bbr3.rs`): DOWN, CRUISE, REFILL
//! and UP, when to probe (a random 2–3 s or min(63, BDP) rounds), the bandwidth filter's
//! cycle, and the way out of PROBE_RTT — `tcp_bbr.c` of Google's v3 tree,
//! `bbr_is_reno_coexistence_probe_time` to `bbr_update_cycle_phase`, `bbr_exit_probe_rtt`.

use super::*;

impl Bbr3 {
    /// `bbr_advance_max_bw_filter`: each PROBE_BW cycle, keep the max of the last 1–2.
    pub(super) fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0 {
            return; // no samples in this window; remember the old one
        }
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0;
    }

    /// `bbr_is_probing_bandwidth`.
    pub(super) fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.cycle_idx, Phase::Refill | Phase::Up))
    }

    /// `bbr_has_elapsed_in_phase`.
    pub(super) fn has_elapsed_in_phase(&self, tp: &TcpCcState, interval_us: u32) -> bool {
        mstamp(tp) > self.cycle_mstamp + interval_us as u64
    }

    /// `bbr_is_reno_coexistence_probe_time`: as many rounds as a Reno flow at our BDP
    /// takes between losses, at most 63.
    pub(super) fn is_reno_coexistence_probe_time(&self, tp: &TcpCcState) -> bool {
        let rounds = BW_PROBE_MAX_ROUNDS.min(self.target_inflight(tp));
        self.rounds_since_probe >= rounds
    }

    /// `bbr_pick_probe_wait`: 0–1 rounds and 2–3 s, at random.
    pub(super) fn pick_probe_wait(&mut self, tp: &mut TcpCcState) {
        self.rounds_since_probe = tp.random_below(BW_PROBE_RAND_ROUNDS);
        self.probe_wait_us = BW_PROBE_BASE_US + tp.random_below(BW_PROBE_RAND_US);
    }

    /// `bbr_set_cycle_idx`.
    pub(super) fn set_cycle_idx(&mut self, phase: Phase) {
        self.cycle_idx = phase;
        self.try_fast_path = false;
    }

    /// `bbr_start_bw_probe_refill`.
    pub(super) fn start_bw_probe_refill(&mut self, tp: &TcpCcState, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds & 0x1f; // 5 bits
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = tp.delivered as u32;
        self.set_cycle_idx(Phase::Refill);
    }

    /// `bbr_start_bw_probe_up`.
    pub(super) fn start_bw_probe_up(&mut self, tp: &TcpCcState, sample_bw: u32) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = tp.delivered as u32;
        self.cycle_mstamp = mstamp(tp);
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.set_cycle_idx(Phase::Up);
        self.raise_inflight_hi_slope(tp);
    }

    /// `bbr_start_bw_probe_down`: a new cycle; pick when to probe next.
    pub(super) fn start_bw_probe_down(&mut self, tp: &mut TcpCcState) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = UNSET;
        self.pick_probe_wait(tp);
        self.cycle_mstamp = mstamp(tp);
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = tp.delivered as u32;
        self.set_cycle_idx(Phase::Down);
    }

    /// `bbr_start_bw_probe_cruise`.
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != UNSET {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.set_cycle_idx(Phase::Cruise);
    }

    /// `bbr_check_time_to_probe_bw`.
    pub(super) fn check_time_to_probe_bw(&mut self, tp: &TcpCcState) -> bool {
        if ECN_REPROBE_GAIN > 0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && tp.ca_state == CaState::Open
        {
            // `ilog2(inflight_hi · ecn_reprobe_gain)`; Linux's ilog2(0) is -1.
            let x = (self.inflight_hi as u64 * ECN_REPROBE_GAIN as u64) >> BBR_SCALE;
            let n = if x == 0 { u32::MAX } else { x.ilog2() };
            self.start_bw_probe_refill(tp, n);
            return true;
        }
        if self.has_elapsed_in_phase(tp, self.probe_wait_us)
            || self.is_reno_coexistence_probe_time(tp)
        {
            self.start_bw_probe_refill(tp, 0);
            return true;
        }
        false
    }

    /// `bbr_check_time_to_cruise`.
    pub(super) fn check_time_to_cruise(&self, tp: &TcpCcState, inflight: u32, bw: u32) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    /// `bbr_update_cycle_phase`: PROBE_BW's state machine.
    pub(super) fn update_cycle_phase(
        &mut self,
        tp: &mut TcpCcState,
        rs: &RateSample,
        sample_bw: u32,
    ) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(tp, rs) {
            return;
        }
        if self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        match self.cycle_idx {
            Phase::Cruise => {
                self.check_time_to_probe_bw(tp);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(tp, sample_bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if tp.cwnd_usage_limited && tp.snd_cwnd >= self.inflight_hi {
                    // inflight_hi is limiting bw growth
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true; // a plateau: the pipe looks full
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(tp);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(tp) {
                    return;
                }
                if self.check_time_to_cruise(tp, inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }

    /// `bbr_exit_probe_rtt`.
    pub(super) fn exit_probe_rtt(&mut self, tp: &mut TcpCcState) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tp);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
}
