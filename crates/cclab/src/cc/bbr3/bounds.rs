//! BBR v3's model of the path's limits (part of `Bbr3`, see `bbr3.rs`): the congestion
//! signals of each round (loss, ECN, the latest delivery rate and volume), the long-term
//! upper bound `inflight_hi` learnt from too much loss or ECN while probing, the
//! short-term lower bounds `bw_lo` / `inflight_lo` cut outside probing, and STARTUP's exit
//! on loss or ECN — `tcp_bbr.c` of Google's v3 tree, from `bbr_handle_queue_too_high_in_startup`
//! to `bbr_update_congestion_signals`, and `bbr_note_loss`.

use super::*;

impl Bbr3 {
    /// `bbr_handle_queue_too_high_in_startup`: leave STARTUP with `inflight_hi` set.
    pub(super) fn handle_queue_too_high_in_startup(&mut self, tp: &TcpCcState) {
        self.full_bw_reached = true;
        let bdp = self.inflight(tp, self.max_bw(), BBR_UNIT);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// `bbr_check_ecn_too_high_in_startup`.
    pub(super) fn check_ecn_too_high_in_startup(&mut self, tp: &TcpCcState, ce_ratio: u32) {
        if self.full_bw_reached || !self.ecn_eligible || FULL_ECN_CNT == 0 || ECN_THRESH == 0 {
            return;
        }
        if ce_ratio >= ECN_THRESH {
            self.startup_ecn_rounds = (self.startup_ecn_rounds + 1) & 3; // 2 bits
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= FULL_ECN_CNT {
            self.handle_queue_too_high_in_startup(tp);
        }
    }

    /// `bbr_update_ecn_alpha`: the EWMA of the CE fraction, once per round; returns the
    /// round's CE ratio (in 1/256) or `None`.
    pub(super) fn update_ecn_alpha(&mut self, tp: &TcpCcState) -> Option<u32> {
        if !self.ecn_eligible
            && self.can_use_ecn(tp)
            && ECN_FACTOR > 0
            && (self.min_rtt_us <= ECN_MAX_RTT_US || ECN_MAX_RTT_US == 0)
        {
            self.ecn_eligible = true;
        }
        // PLB (`net.ipv4.tcp_plb_enabled`) is off: alpha only when ECN-eligible.
        if !self.ecn_eligible {
            return None;
        }
        let delivered = (tp.delivered as u32).wrapping_sub(self.alpha_last_delivered) as i32;
        let delivered_ce =
            (tp.delivered_ce as u32).wrapping_sub(self.alpha_last_delivered_ce) as i32;
        if delivered <= 0 || delivered_ce < 0 {
            return None;
        }
        let ce_ratio = ((delivered_ce as u64) << BBR_SCALE) / delivered as u64;
        let mut alpha = ((BBR_UNIT - ECN_ALPHA_GAIN) as u64 * self.ecn_alpha as u64) >> BBR_SCALE;
        alpha += (ECN_ALPHA_GAIN as u64 * ce_ratio) >> BBR_SCALE;
        self.ecn_alpha = alpha.min(BBR_UNIT as u64) as u32;
        self.alpha_last_delivered = tp.delivered as u32;
        self.alpha_last_delivered_ce = tp.delivered_ce as u32;
        self.check_ecn_too_high_in_startup(tp, ce_ratio as u32);
        Some(ce_ratio as u32)
    }

    /// `bbr_raise_inflight_hi_slope`: each round of PROBE_UP doubles the growth.
    pub(super) fn raise_inflight_hi_slope(&mut self, tp: &TcpCcState) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (tp.snd_cwnd / growth_this_round).max(1);
    }

    /// `bbr_probe_inflight_hi_upward`.
    pub(super) fn probe_inflight_hi_upward(&mut self, tp: &TcpCcState, rs: &RateSample) {
        if !tp.cwnd_usage_limited || tp.snd_cwnd < self.inflight_hi {
            return; // not fully using inflight_hi, so don't grow it
        }
        self.bw_probe_up_acks += rs.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.wrapping_add(delta);
            self.try_fast_path = false;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(tp);
        }
    }

    /// `bbr_is_inflight_too_high`: loss above 2% of what was in flight, or (ECN-eligible)
    /// CE above half of what was delivered.
    pub fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        if rs.lost > 0 && rs.tx_in_flight > 0 {
            let loss_thresh = ((rs.tx_in_flight as u64 * LOSS_THRESH as u64) >> BBR_SCALE) as u32;
            if rs.lost > loss_thresh {
                return true;
            }
        }
        if rs.delivered_ce > 0 && rs.delivered > 0 && self.ecn_eligible && ECN_THRESH > 0 {
            let ecn_thresh = ((rs.delivered as u64 * ECN_THRESH as u64) >> BBR_SCALE) as i32;
            if rs.delivered_ce > ecn_thresh {
                return true;
            }
        }
        false
    }

    /// `bbr_inflight_hi_from_lost_skb`: the in-flight level at which the loss rate crossed
    /// the threshold, solving (lost_prev + x) / (inflight_prev + x) ≥ loss_thresh for x.
    pub fn inflight_hi_from_lost_skb(rs: &RateSample, pcount: u32) -> u32 {
        let inflight_prev = rs.tx_in_flight as i64 - pcount as i64;
        let lost_prev = rs.lost as i64 - pcount as i64;
        if inflight_prev < 0 || lost_prev < 0 {
            return UNSET;
        }
        let loss_budget =
            (inflight_prev as u64 * LOSS_THRESH as u64 + BBR_UNIT as u64 - 1) >> BBR_SCALE;
        let lost_prefix = if lost_prev as u64 >= loss_budget {
            0
        } else {
            ((loss_budget - lost_prev as u64) << BBR_SCALE) / (BBR_UNIT - LOSS_THRESH) as u64
        };
        (inflight_prev as u64 + lost_prefix) as u32
    }

    /// `bbr_inflight_with_headroom`: inflight_hi less 15%, at least 4.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == UNSET {
            return UNSET;
        }
        let headroom =
            (((self.inflight_hi as u64 * INFLIGHT_HEADROOM as u64) >> BBR_SCALE) as u32).max(1);
        (self.inflight_hi.wrapping_sub(headroom) as i32).max(CWND_MIN_TARGET as i32) as u32
    }

    /// `bbr_bound_cwnd_for_inflight_model`.
    pub(super) fn bound_cwnd_for_inflight_model(&self, tp: &mut TcpCcState) {
        if !self.initialized {
            return;
        }
        let mut cap = UNSET;
        if self.mode == Mode::ProbeBw && self.cycle_idx != Phase::Cruise {
            cap = self.inflight_hi; // probe to see if more fits
        } else if self.mode == Mode::ProbeRtt
            || (self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Cruise)
        {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(CWND_MIN_TARGET);
        tp.snd_cwnd = tp.snd_cwnd.min(cap);
    }

    /// `bbr_ecn_cut`: 1 − ecn_alpha · ecn_factor.
    pub(super) fn ecn_cut(&self) -> u32 {
        BBR_UNIT - ((self.ecn_alpha * ECN_FACTOR) >> BBR_SCALE)
    }

    /// `bbr_init_lower_bounds`.
    pub(super) fn init_lower_bounds(&mut self, tp: &TcpCcState, init_bw: bool) {
        if init_bw && self.bw_lo == UNSET {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == UNSET {
            self.inflight_lo = tp.snd_cwnd;
        }
    }

    /// `bbr_adapt_lower_bounds`: once per round with loss or ECN, outside probing, cut
    /// the lower bounds (loss: to (1 − β), not below the last round's delivery; ECN: by
    /// ecn_alpha / 3).
    pub(super) fn adapt_lower_bounds(&mut self, tp: &TcpCcState) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = UNSET;
        if self.ecn_in_round && ECN_FACTOR > 0 {
            self.init_lower_bounds(tp, false);
            ecn_inflight_lo =
                ((self.inflight_lo as u64 * self.ecn_cut() as u64) >> BBR_SCALE) as u32;
        }
        if self.loss_in_round {
            self.init_lower_bounds(tp, true);
            let loss_cut = (BBR_UNIT - BETA) as u64;
            self.bw_lo = self
                .bw_latest
                .max(((self.bw_lo as u64 * loss_cut) >> BBR_SCALE) as u32);
            self.inflight_lo = self
                .inflight_latest
                .max(((self.inflight_lo as u64 * loss_cut) >> BBR_SCALE) as u32);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(1);
    }

    /// `bbr_reset_lower_bounds`.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = UNSET;
        self.inflight_lo = UNSET;
    }

    /// `bbr_reset_congestion_signals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// `bbr_update_latest_delivery_signals`: this round's max rate and volume, and the
    /// loss round.
    pub(super) fn update_latest_delivery_signals(
        &mut self,
        tp: &TcpCcState,
        rs: &RateSample,
        bw: u32,
    ) {
        self.loss_round_start = false;
        if rs.interval_us <= 0 || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered as u32);
        if not_before(rs.prior_delivered, self.loss_round_delivered) {
            self.loss_round_delivered = tp.delivered as u32;
            self.loss_round_start = true;
        }
    }

    /// `bbr_advance_latest_delivery_signals`.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample, bw: u32) {
        if self.loss_round_start && !rs.is_acking_tlp_retrans_seq {
            self.bw_latest = bw;
            self.inflight_latest = rs.delivered as u32;
        }
    }

    /// `bbr_update_congestion_signals`.
    pub(super) fn update_congestion_signals(&mut self, tp: &TcpCcState, rs: &RateSample, bw: u32) {
        if rs.interval_us <= 0 || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw); // `bbr_take_max_bw_sample`
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(tp);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// `bbr_handle_inflight_too_high`: once per probe, cut inflight_hi and go DOWN.
    pub(super) fn handle_inflight_too_high(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !rs.is_app_limited {
            let cut =
                ((self.target_inflight(tp) as u64 * (BBR_UNIT - BETA) as u64) >> BBR_SCALE) as u32;
            self.inflight_hi = rs.tx_in_flight.max(cut);
        }
        if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
            self.start_bw_probe_down(tp);
        }
    }

    /// `bbr_adapt_upper_bounds`: returns whether it decided a state transition.
    pub(super) fn adapt_upper_bounds(&mut self, tp: &mut TcpCcState, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The end of the samples from bandwidth probing.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(tp, 0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(tp, rs);
            }
        } else {
            if self.inflight_hi == UNSET {
                return false;
            }
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
                self.probe_inflight_hi_upward(tp, rs);
            }
        }
        false
    }

    /// `bbr_check_loss_too_high_in_startup`: ≥ 6 loss events in a recovery round with
    /// loss over 2% ends STARTUP.
    pub(super) fn check_loss_too_high_in_startup(&mut self, tp: &TcpCcState, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if FULL_LOSS_CNT > 0
            && self.loss_round_start
            && tp.ca_state == CaState::Recovery
            && self.loss_events_in_round >= FULL_LOSS_CNT
            && self.is_inflight_too_high(rs)
        {
            self.handle_queue_too_high_in_startup(tp);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// `bbr_note_loss`: this round is a loss round.
    pub(super) fn note_loss(&mut self, tp: &TcpCcState) {
        if !self.loss_in_round {
            self.loss_round_delivered = tp.delivered as u32;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// `bbr_run_loss_probe_recovery`: a loss a TLP repaired, while probing.
    pub(super) fn run_loss_probe_recovery(&mut self, tp: &mut TcpCcState) {
        self.note_loss(tp);
        if !self.bw_probe_samples {
            return;
        }
        let rs = loss_sample(1, self.inflight_latest + 1, tp.tlp_orig_data_app_limited);
        if self.is_inflight_too_high(&rs) {
            self.handle_inflight_too_high(tp, &rs);
        }
    }
}
