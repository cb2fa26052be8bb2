//! BBR v3's per-ACK model of the path (part of `Bbr3`, see `bbr3.rs`): packet-timed
//! rounds, the bandwidth sample, ACK aggregation, STARTUP's plateau test, DRAIN, and the
//! min_rtt filters with PROBE_RTT — `tcp_bbr.c` of Google's v3 tree,
//! `bbr_update_round_start`, `bbr_calculate_bw_sample`, `bbr_update_ack_aggregation`,
//! `bbr_check_full_bw_reached`, `bbr_check_drain`, `bbr_update_min_rtt` and its helpers;
//! and what it paces at and sizes its TSO skbs by (`bbr_set_pacing_rate`, `bbr_tso_segs`).

use super::*;

impl Bbr3 {
    /// `bbr_probe_rtt_cwnd`: max(4, BDP/2).
    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        CWND_MIN_TARGET.max(self.bdp(self.bbr_bw(), PROBE_RTT_CWND_GAIN))
    }

    /// `bbr_update_round_start`.
    pub(super) fn update_round_start(&mut self, tp: &TcpCcState, rs: &RateSample) {
        self.round_start = false;
        if rs.interval_us > 0 && not_before(rs.prior_delivered, self.next_rtt_delivered) {
            self.next_rtt_delivered = tp.delivered as u32;
            self.round_start = true;
        }
    }

    /// `bbr_calculate_bw_sample`: delivered / interval, rounded up.
    pub(super) fn bw_sample(rs: &RateSample) -> u32 {
        if rs.interval_us > 0 && rs.delivered >= 0 {
            (rs.delivered as u64 * BW_UNIT).div_ceil(rs.interval_us as u64) as u32
        } else {
            0
        }
    }

    /// `bbr_update_ack_aggregation` (one-round window in STARTUP).
    pub(super) fn update_ack_aggregation(&mut self, tp: &TcpCcState, rs: &RateSample) {
        if rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            let thresh = if self.full_bw_reached {
                EXTRA_ACKED_WIN_RTTS
            } else {
                1
            };
            if self.extra_acked_win_rtts >= thresh {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let delivered_us = tp.delivered_mstamp / crate::engine::US;
        let epoch_us = delivered_us.saturating_sub(self.ack_epoch_mstamp);
        let mut expected_acked = (self.bbr_bw() as u64 * epoch_us / BW_UNIT) as u32;
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = delivered_us;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = (self.ack_epoch_acked - expected_acked).min(tp.snd_cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot as u32 {
            *slot = extra as u16; // Linux's u16
        }
    }

    /// `bbr_check_probe_rtt_done`.
    pub(super) fn check_probe_rtt_done(&mut self, tp: &mut TcpCcState) {
        if !(self.probe_rtt_done_stamp != 0 && after(jiffies(tp), self.probe_rtt_done_stamp)) {
            return;
        }
        self.probe_rtt_min_stamp = jiffies(tp); // schedule the next PROBE_RTT
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(tp);
    }

    /// `bbr_update_min_rtt`: the 5 s PROBE_RTT filter, the 10 s min_rtt filter, and
    /// PROBE_RTT itself.
    pub(super) fn update_min_rtt(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        let now = jiffies(tp);
        let probe_rtt_expired = after(now, self.probe_rtt_min_stamp.wrapping_add(PROBE_RTT_WIN_MS));
        if rs.rtt_us >= 0
            && (rs.rtt_us < self.probe_rtt_min_us as i64
                || (probe_rtt_expired && !rs.is_ack_delayed))
        {
            self.probe_rtt_min_us = rs.rtt_us as u32;
            self.probe_rtt_min_stamp = now;
        }
        let min_rtt_expired = after(now, self.min_rtt_stamp.wrapping_add(MIN_RTT_WIN_SEC * 1000));
        if self.probe_rtt_min_us <= self.min_rtt_us || min_rtt_expired {
            self.min_rtt_us = self.probe_rtt_min_us;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if PROBE_RTT_MODE_MS > 0
            && probe_rtt_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tp);
            self.probe_rtt_done_stamp = 0;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = tp.delivered as u32;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low-rate samples during this mode.
            tp.app_limited = (tp.delivered + tp.packets_in_flight as u64).max(1);
            if self.probe_rtt_done_stamp == 0 && tp.packets_in_flight <= self.probe_rtt_cwnd() {
                self.probe_rtt_done_stamp = now.wrapping_add(PROBE_RTT_MODE_MS);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = tp.delivered as u32;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tp);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_check_full_bw_reached`: 3 rounds without the *sample* growing 25%.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: u32) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        let bw_thresh = ((self.full_bw as u64 * FULL_BW_THRESH as u64) >> BBR_SCALE) as u32;
        if sample_bw >= bw_thresh {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt = (self.full_bw_cnt + 1) & 3; // 2 bits
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// `bbr_check_drain`.
    pub(super) fn check_drain(&mut self, tp: &mut TcpCcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            // ssthresh only for `ss` (BBR does not use it).
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tp, tp.packets_in_flight)
                <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(tp);
        }
    }

    /// `bbr_rate_bytes_per_sec`: bandwidth × gain in bytes per second, `margin`% under.
    pub(super) fn rate_bytes_per_sec(tp: &TcpCcState, rate: u64, gain: u32, margin: u64) -> u64 {
        let mut rate = rate.wrapping_mul(tp.mss_cache as u64);
        rate = rate.wrapping_mul(gain as u64);
        rate >>= BBR_SCALE;
        rate = rate.wrapping_mul(1_000_000 / 100 * (100 - margin));
        (rate >> BW_SCALE).max(1)
    }

    /// `bbr_bw_to_pacing_rate`.
    pub(super) fn bw_to_pacing_rate(tp: &TcpCcState, bw: u32, gain: u32) -> u64 {
        Self::rate_bytes_per_sec(tp, bw as u64, gain, PACING_MARGIN_PERCENT)
            .min(tp.sk_max_pacing_rate)
    }

    /// `bbr_init_pacing_rate_from_rtt`: startup gain · cwnd / srtt (1 ms without one).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, tp: &mut TcpCcState) {
        let rtt_us = if tp.srtt_us > 0 {
            self.has_seen_rtt = true;
            (tp.srtt_us >> 3).max(1)
        } else {
            1000
        };
        let bw = tp.snd_cwnd as u64 * BW_UNIT / rtt_us as u64;
        tp.sk_pacing_rate = Self::bw_to_pacing_rate(tp, bw as u32, STARTUP_PACING_GAIN);
    }

    /// `bbr_set_pacing_rate`: never lower before the pipe was full.
    pub(super) fn set_pacing_rate(&mut self, tp: &mut TcpCcState, bw: u32, gain: u32) {
        let rate = Self::bw_to_pacing_rate(tp, bw, gain);
        if !self.has_seen_rtt && tp.srtt_us > 0 {
            self.init_pacing_rate_from_rtt(tp);
        }
        if self.full_bw_reached || rate > tp.sk_pacing_rate {
            tp.sk_pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_generic`: ~1 ms of the pacing rate plus 64 KB halved per 512 µs of
    /// min_rtt, at most the GSO size, at least `tcp_min_tso_segs`.
    pub(super) fn tso_segs_generic(&self, tp: &TcpCcState, mss: u32, gso_max_size: u64) -> u32 {
        let mut bytes = tp.sk_pacing_rate >> PACING_SHIFT;
        let r = self.min_rtt_us >> TSO_RTT_SHIFT;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_LEGACY_MAX_SIZE >> r);
        }
        let bytes = bytes.min(gso_max_size - 1 - MAX_TCP_HEADER);
        ((bytes / mss.max(1) as u64) as u32).max(tp.sysctl_min_tso_segs)
    }

    /// `bbr_tso_segs_goal`.
    pub(super) fn tso_segs_goal(&self, tp: &TcpCcState) -> u32 {
        self.tso_segs_generic(tp, tp.mss_cache, GSO_LEGACY_MAX_SIZE)
    }
}
