//! BBR v1's long-term bandwidth sampling (part of `Bbr`, see `bbr.rs`): Linux
//! `tcp_bbr.c`'s token-bucket policer detection (`bbr_lt_bw_sampling` and its helpers).
//! Two consecutive intervals of 4–16 rounds, begun at a loss, with lost/delivered ≥
//! 50/256 and bandwidths within 1/8 or 4 kbit/s: bw is their mean and the pacing gain 1,
//! for 48 rounds.

use super::*;

impl Bbr {
    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, tp: &TcpCcState) {
        self.lt_last_stamp = (us(tp.delivered_mstamp) / 1000) as u32;
        self.lt_last_delivered = tp.delivered as u32;
        self.lt_last_lost = tp.lost as u32;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    pub(super) fn reset_lt_bw_sampling(&mut self, tp: &TcpCcState) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// `bbr_lt_bw_interval_done`: two consistent intervals mean a policer.
    fn lt_bw_interval_done(&mut self, tp: &TcpCcState, bw: u32) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt_bw
                || Self::rate_bytes_per_sec(tp, diff as u64, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// `bbr_lt_bw_sampling`: token-bucket policer detection.
    pub(super) fn lt_bw_sampling(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(tp);
                    self.reset_probe_bw_mode(tp);
                }
            }
            return;
        }
        // Wait for the first loss, so the policer's tokens are spent.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(tp);
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = (tp.lost as u32).wrapping_sub(self.lt_last_lost);
        let delivered = (tp.delivered as u32).wrapping_sub(self.lt_last_delivered);
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = ((us(tp.delivered_mstamp) / 1000) as u32).wrapping_sub(self.lt_last_stamp);
        if (t as i32) < 1 {
            return;
        }
        if t >= u32::MAX / 1000 {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        let bw = delivered as u64 * BW_UNIT / (t as u64 * 1000);
        self.lt_bw_interval_done(tp, bw as u32);
    }
}
