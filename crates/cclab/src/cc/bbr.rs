//! BBR v1 — Linux `net/ipv4/tcp_bbr.c` (Linux 5.1 – 6.15: the version with ACK-aggregation
//! `extra_acked`, EDT-aware `bbr_packets_in_net_at_edt` and `min_tso_segs`), after Cardwell,
//! Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016.
//!
//! On each ACK (`bbr_main`, the module's `cong_control`) BBR updates its model of the path
//! from the delivery-rate sample (`RateSample`, `tcp_rate.c`):
//! bottleneck bandwidth = the windowed max of delivered / interval over 10 round trips
//! (`Minmax`, lib/win_minmax.c), min_rtt = the min RTT seen in 10 s; it paces at
//! pacing_gain · bw (1% under, `bbr_pacing_margin_percent`) and caps cwnd at
//! cwnd_gain · bw · min_rtt plus the ACK-aggregation allowance and three TSO skbs.
//! The states, in Linux's order and with Linux's integer arithmetic (gains in 1/256,
//! bandwidth in packets per µs << 24):
//!
//! - STARTUP: pacing and cwnd gain 2/ln 2 (`bbr_high_gain` = 739/256 = 2.886); left when
//!   the max bandwidth grew less than 25% in 3 consecutive non-app-limited rounds
//!   (`bbr_check_full_bw_reached`).
//! - DRAIN: pacing gain 1/2.885 until the packets in the network at the next departure
//!   fall to the BDP; ssthresh is set to that BDP (as Linux, for `ss`).
//! - PROBE_BW: the 8-phase gain cycle 5/4, 3/4, 1 × 6, each phase one min_rtt long (the
//!   5/4 phase until inflight reaches 1.25 BDP or a loss, the 3/4 phase until it is back
//!   to one BDP), started at a random phase other than 3/4 (`get_random_u32_below(7)`,
//!   from the socket's seeded stream).
//! - PROBE_RTT: when min_rtt has not been refreshed for 10 s, cwnd is capped at 4 packets
//!   for max(200 ms, one round) once inflight has reached 4, then the previous mode.
//! - Long-term bandwidth (policer detection, `bbr_lt_bw_sampling`): two consecutive
//!   intervals of 4–16 rounds, started at a loss, with loss ≥ 20% and bandwidths within
//!   1/8 or 4 kbit/s set bw to their mean and the pacing gain to 1 for 48 rounds.
//! - Loss: the first round of recovery is packet conservation (cwnd = inflight + acked),
//!   then slow start toward the target; the cwnd of before the episode returns after it
//!   (`bbr_set_cwnd_to_recover_or_restore`). An RTO resets full_bw and ends a round.
//!
//! `tcp_jiffies32` is taken at HZ = 1000 (one jiffy per ms; CONFIG_HZ is 250 or 1000 in
//! common distributions' kernels), so min_rtt's 10 s and PROBE_RTT's 200 ms are counted in
//! whole milliseconds, as a HZ=1000 kernel does.
//!
//! BBR v1 exposes no module parameters: its gains and windows are `static const` in
//! `tcp_bbr.c`, and so constants here.

use super::minmax::Minmax;
use super::{CaEvent, CaState, CongestionOps, PacingStatus, RateSample, TcpCcState};
use crate::engine::MS;

/// Bandwidth in packets per µs, scaled by 2^24 (`BW_SCALE`).
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gains in 1/256 (`BBR_SCALE`).
const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;

/// `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Phases of the PROBE_BW gain cycle (`CYCLE_LEN`).
const CYCLE_LEN: u32 = 8;
/// Window of the bandwidth filter, in rounds (`bbr_bw_rtts`).
const BW_RTTS: u32 = CYCLE_LEN + 2;
/// Window of the min_rtt filter, seconds (`bbr_min_rtt_win_sec`).
const MIN_RTT_WIN_SEC: u32 = 10;
/// Minimum time in PROBE_RTT, ms (`bbr_probe_rtt_mode_ms`).
const PROBE_RTT_MODE_MS: u32 = 200;
/// Below this pacing rate (bit/s) TSO skbs are single segments (`bbr_min_tso_rate`).
const MIN_TSO_RATE: u64 = 1_200_000;
/// Pace 1% below the estimated bandwidth (`bbr_pacing_margin_percent`).
const PACING_MARGIN_PERCENT: u64 = 1;
/// 2/ln(2) (`bbr_high_gain` = BBR_UNIT · 2885 / 1000 + 1 = 739).
pub const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// 1/high_gain (`bbr_drain_gain` = 88).
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// The steady-state cwnd gain (`bbr_cwnd_gain`).
pub const CWND_GAIN: u32 = BBR_UNIT * 2;
/// The PROBE_BW pacing gains (`bbr_pacing_gain`).
pub const PACING_GAIN: [u32; CYCLE_LEN as usize] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// The starting phase is random over this many (`bbr_cycle_rand`).
const CYCLE_RAND: u32 = 7;
/// The smallest cwnd BBR aims at (`bbr_cwnd_min_target`).
pub const CWND_MIN_TARGET: u32 = 4;
/// STARTUP's full-pipe test: growth below 25% (`bbr_full_bw_thresh`) in 3 rounds
/// (`bbr_full_bw_cnt`).
const FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// Long-term sampling: intervals of at least 4 rounds (`bbr_lt_intvl_min_rtts`), lossy at
/// 50/256 ≈ 20% (`bbr_lt_loss_thresh`), consistent within 1/8 (`bbr_lt_bw_ratio`) or
/// 4 kbit/s (`bbr_lt_bw_diff`, bytes/s), used for 48 rounds (`bbr_lt_bw_max_rtts`).
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u32 = 50;
const LT_BW_RATIO: u32 = BBR_UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation: gain (`bbr_extra_acked_gain`), window in rounds
/// (`bbr_extra_acked_win_rtts`), epoch reset (`bbr_ack_epoch_acked_reset_thresh`), and
/// the cap in µs of bandwidth (`bbr_extra_acked_max_us`).
const EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// `TCP_INIT_CWND`, `TCP_INFINITE_SSTHRESH`.
const TCP_INIT_CWND: u32 = 10;
const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// `sk_pacing_shift` (~1 ms of data per TSO skb), `GSO_LEGACY_MAX_SIZE`, `MAX_TCP_HEADER`
/// (as `tcp/sender/pacing.rs`).
const PACING_SHIFT: u32 = 10;
const GSO_LEGACY_MAX_SIZE: u64 = 65_536;
const MAX_TCP_HEADER: u64 = 320;

/// `struct bbr`.
#[derive(Clone, Debug)]
pub struct Bbr {
    pub min_rtt_us: u32,
    /// jiffies (ms) of `min_rtt_us`, and the end of PROBE_RTT (0: not yet).
    min_rtt_stamp: u32,
    probe_rtt_done_stamp: u32,
    /// Max recent delivery rate, packets/µs << 24.
    pub bw: Minmax,
    /// Packet-timed round trips elapsed, and `tp->delivered` at the end of this one.
    pub rtt_cnt: u32,
    next_rtt_delivered: u32,
    /// When this gain-cycle phase started (`tp->delivered_mstamp` then).
    cycle_mstamp: u64,
    pub mode: Mode,
    prev_ca_state: CaState,
    packet_conservation: bool,
    pub round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    pub lt_use_bw: bool,
    pub lt_bw: u32,
    lt_last_delivered: u32,
    lt_last_stamp: u32,
    lt_last_lost: u32,
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
    pub full_bw_reached: bool,
    full_bw_cnt: u32,
    pub cycle_idx: u32,
    has_seen_rtt: bool,
    prior_cwnd: u32,
    pub full_bw: u32,
    ack_epoch_mstamp: u64,
    extra_acked: [u16; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// The MSS, for `ss`.
    mss: u32,
}

impl Default for Bbr {
    /// The state `tcp_assign_congestion_control` leaves (zeroed) before `init`.
    fn default() -> Bbr {
        Bbr {
            min_rtt_us: 0,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: 0,
            bw: Minmax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            mss: 0,
        }
    }
}

impl super::Configure for Bbr {
    type Options = ();
}

/// `tcp_jiffies32` at HZ = 1000 (BBR v3's too).
#[inline]
pub(super) fn jiffies(tp: &TcpCcState) -> u32 {
    (tp.now / MS) as u32
}

/// `after(a, b)` for u32 stamps (BBR v3's too).
#[inline]
pub(super) fn after(a: u32, b: u32) -> bool {
    (b.wrapping_sub(a) as i32) < 0
}

/// `tcp_mstamp`-style µs stamp of a simulator time.
#[inline]
fn us(t: crate::engine::SimTime) -> u64 {
    t / crate::engine::US
}

/// `tcp_packets_in_flight`.
#[inline]
fn in_flight(tp: &TcpCcState) -> u32 {
    tp.packets_in_flight
}

impl Bbr {
    /// `bbr_max_bw`.
    pub fn max_bw(&self) -> u32 {
        self.bw.get()
    }

    /// `bbr_bw`: the long-term rate while policed, else the max filter's.
    pub fn bbr_bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_extra_acked`.
    fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1]) as u32
    }

    /// `bbr_rate_bytes_per_sec`: a bandwidth (packets/µs << 24) times a gain, in bytes
    /// per second, 1% under.
    fn rate_bytes_per_sec(tp: &TcpCcState, rate: u64, gain: u32) -> u64 {
        let mut rate = rate.wrapping_mul(tp.mss_cache as u64);
        rate = rate.wrapping_mul(gain as u64);
        rate >>= BBR_SCALE;
        rate = rate.wrapping_mul(1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT));
        rate >> BW_SCALE
    }

    /// `bbr_bw_to_pacing_rate`.
    fn bw_to_pacing_rate(tp: &TcpCcState, bw: u32, gain: u32) -> u64 {
        Self::rate_bytes_per_sec(tp, bw as u64, gain).min(tp.sk_max_pacing_rate)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / srtt (1 ms without a sample).
    fn init_pacing_rate_from_rtt(&mut self, tp: &mut TcpCcState) {
        let rtt_us = if tp.srtt_us > 0 {
            self.has_seen_rtt = true;
            (tp.srtt_us >> 3).max(1)
        } else {
            1000
        };
        let bw = tp.snd_cwnd as u64 * BW_UNIT / rtt_us as u64;
        tp.sk_pacing_rate = Self::bw_to_pacing_rate(tp, bw as u32, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: never lower it in STARTUP before the pipe is full.
    fn set_pacing_rate(&mut self, tp: &mut TcpCcState, bw: u32, gain: u32) {
        let rate = Self::bw_to_pacing_rate(tp, bw, gain);
        if !self.has_seen_rtt && tp.srtt_us > 0 {
            self.init_pacing_rate_from_rtt(tp);
        }
        if self.full_bw_reached || rate > tp.sk_pacing_rate {
            tp.sk_pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`.
    fn bbr_min_tso_segs(tp: &TcpCcState) -> u32 {
        if tp.sk_pacing_rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal`: `tcp_tso_autosize` ignoring the device's GSO size.
    fn tso_segs_goal(tp: &TcpCcState) -> u32 {
        let bytes =
            (tp.sk_pacing_rate >> PACING_SHIFT).min(GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER);
        let segs = ((bytes / tp.mss_cache.max(1) as u64) as u32).max(Self::bbr_min_tso_segs(tp));
        segs.min(0x7f)
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self, tp: &TcpCcState) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tp.snd_cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.snd_cwnd);
        }
    }

    /// `bbr_bdp`: ceil(bw · min_rtt · gain), in packets.
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND; // no valid RTT sample yet
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        // `(x + BW_UNIT - 1) / BW_UNIT`: rounded up.
        (w.wrapping_mul(gain as u64) >> BBR_SCALE).div_ceil(BW_UNIT) as u32
    }

    /// `bbr_quantization_budget`: room for three TSO skbs, rounded up to even, and 2 more
    /// in the 5/4 phase.
    fn quantization_budget(&self, tp: &TcpCcState, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * Self::tso_segs_goal(tp);
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`.
    fn inflight(&self, tp: &TcpCcState, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(tp, self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: inflight less what the path delivers until the next
    /// departure (plus that skb when probing up).
    fn packets_in_net_at_edt(&self, tp: &TcpCcState, inflight_now: u32) -> u32 {
        let edt = tp.tcp_wstamp.max(tp.now);
        let interval_us = (edt - tp.now) / 1000 / 1000; // ps → µs
        let interval_delivered = ((self.bbr_bw() as u64 * interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += Self::tso_segs_goal(tp);
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if EXTRA_ACKED_GAIN > 0 && self.full_bw_reached {
            let max_aggr = (self.bbr_bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
            ((EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE).min(max_aggr)
        } else {
            0
        }
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: returns the cwnd, and whether packet
    /// conservation decides it.
    fn recover_or_restore(&mut self, tp: &TcpCcState, rs: &RateSample, acked: u32) -> (u32, bool) {
        let (prev_state, state) = (self.prev_ca_state, tp.ca_state);
        let mut cwnd = tp.snd_cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // The first round of recovery: packet conservation, starting a round now.
            self.packet_conservation = true;
            self.next_rtt_delivered = tp.delivered as u32;
            cwnd = in_flight(tp) + acked;
        } else if prev_state >= CaState::Recovery && state < CaState::Recovery {
            // Leaving recovery: restore the cwnd of before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return ((in_flight(tp) + acked).max(cwnd), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow start toward the target, or snap down to it once the pipe
    /// was full; never below 4; 4 in PROBE_RTT.
    fn set_cwnd(&mut self, tp: &mut TcpCcState, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = tp.snd_cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(tp, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(tp, target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || tp.delivered < TCP_INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.snd_cwnd = tp.snd_cwnd.min(CWND_MIN_TARGET);
        }
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, tp: &TcpCcState, rs: &RateSample) -> bool {
        let is_full_length =
            us(tp.delivered_mstamp).saturating_sub(self.cycle_mstamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(tp, bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, tp: &TcpCcState) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = us(tp.delivered_mstamp);
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, tp: &TcpCcState, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tp, rs) {
            self.advance_cycle_phase(tp);
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than 3/4 (the one after it is
    /// taken), then the next.
    fn reset_probe_bw_mode(&mut self, tp: &mut TcpCcState) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - tp.random_below(CYCLE_RAND);
        self.advance_cycle_phase(tp);
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, tp: &mut TcpCcState) {
        if !self.full_bw_reached {
            self.mode = Mode::Startup;
        } else {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// `bbr_update_bw`: the round counter and the max filter.
    fn update_bw(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        // `!before(rs->prior_delivered, bbr->next_rtt_delivered)`.
        if (rs.prior_delivered.wrapping_sub(self.next_rtt_delivered) as i32) >= 0 {
            self.next_rtt_delivered = tp.delivered as u32;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(tp, rs);
        let bw = (rs.delivered as u64 * BW_UNIT / rs.interval_us as u64) as u32;
        // An app-limited sample counts only if it shows at least the current estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: the most data ACKed beyond bw · interval in an
    /// epoch, max over 5–10 rounds.
    fn update_ack_aggregation(&mut self, tp: &TcpCcState, rs: &RateSample) {
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = us(tp.delivered_mstamp).saturating_sub(self.ack_epoch_mstamp);
        let mut expected_acked = (self.bbr_bw() as u64 * epoch_us / BW_UNIT) as u32;
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = us(tp.delivered_mstamp);
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = (self.ack_epoch_acked - expected_acked).min(tp.snd_cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot as u32 {
            *slot = extra as u16; // Linux's u16: truncated as there
        }
    }

    /// `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = ((self.full_bw as u64 * FULL_BW_THRESH as u64) >> BBR_SCALE) as u32;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, tp: &mut TcpCcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tp, in_flight(tp))
                <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, tp: &mut TcpCcState) {
        if !(self.probe_rtt_done_stamp != 0 && after(jiffies(tp), self.probe_rtt_done_stamp)) {
            return;
        }
        self.min_rtt_stamp = jiffies(tp);
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.reset_mode(tp);
    }

    /// `bbr_update_min_rtt`: the 10 s min filter and PROBE_RTT.
    fn update_min_rtt(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        let now = jiffies(tp);
        let filter_expired = after(now, self.min_rtt_stamp.wrapping_add(MIN_RTT_WIN_SEC * 1000));
        if rs.rtt_us >= 0
            && (rs.rtt_us < self.min_rtt_us as i64 || (filter_expired && !rs.is_ack_delayed))
        {
            self.min_rtt_us = rs.rtt_us as u32;
            self.min_rtt_stamp = now;
        }
        if PROBE_RTT_MODE_MS > 0
            && filter_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tp);
            self.probe_rtt_done_stamp = 0;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low-rate samples during this mode.
            tp.app_limited = (tp.delivered + in_flight(tp) as u64).max(1);
            if self.probe_rtt_done_stamp == 0 && in_flight(tp) <= CWND_MIN_TARGET {
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

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    PACING_GAIN[self.cycle_idx as usize]
                },
                CWND_GAIN,
            ),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        self.update_bw(tp, rs);
        self.update_ack_aggregation(tp, rs);
        self.update_cycle_phase(tp, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(tp);
        self.update_min_rtt(tp, rs);
        self.update_gains();
    }

    /// The cwnd `bbr_set_cwnd` aims at now: cwnd_gain · BDP of the estimate, plus the
    /// ACK-aggregation allowance and the TSO budget (for experiments checking it).
    pub fn target_cwnd(&self, tp: &TcpCcState) -> u32 {
        let t = self.bdp(self.bbr_bw(), self.cwnd_gain) + self.ack_aggregation_cwnd();
        self.quantization_budget(tp, t)
    }

    /// `bbr_tso_segs_goal` now (for experiments checking BBR's budgets).
    pub fn tso_goal(&self, tp: &TcpCcState) -> u32 {
        Self::tso_segs_goal(tp)
    }

    /// The bandwidth estimate in bits per second (as `bbr_get_info` reports it in bytes).
    pub fn bw_bps(&self, tp: &TcpCcState) -> f64 {
        self.bbr_bw() as f64 * tp.mss_cache as f64 * 8e6 / BW_UNIT as f64
    }
}

impl CongestionOps for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// `bbr_init`; it turns on TCP's own pacing unless something paces already.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.mss = tp.mss_cache;
        self.prior_cwnd = 0;
        tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = tp.delivered as u32;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt_done_stamp = 0;
        self.probe_rtt_round_done = false;
        self.min_rtt_us = tp.min_rtt_us;
        self.min_rtt_stamp = jiffies(tp);
        self.bw.reset(self.rtt_cnt, 0);
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tp);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = 0;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling(tp);
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = us(tp.now);
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
        if tp.sk_pacing_status == PacingStatus::None {
            tp.sk_pacing_status = PacingStatus::Needed;
        }
    }

    /// `bbr_ssthresh`: remember cwnd for after the episode; ssthresh stays.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        self.save_cwnd(tp);
        tp.snd_ssthresh
    }

    /// Never called: `cong_control` decides cwnd.
    fn cong_avoid(&mut self, _tp: &mut TcpCcState, _acked: u32) {}

    /// `bbr_undo_cwnd`: a spurious slow-down; restart the full-pipe test.
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(tp);
        tp.snd_cwnd
    }

    /// `bbr_set_state`: an RTO ends a round and restarts the full-pipe test.
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if new_state == CaState::Loss {
            let rs = RateSample {
                losses: 1,
                ..RateSample::default()
            };
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_bw_sampling(tp, &rs);
        }
    }

    /// `bbr_cwnd_event`: restarting from idle while app-limited, pace at the estimate.
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        if ev == CaEvent::TxStart && tp.app_limited != 0 {
            self.idle_restart = true;
            self.ack_epoch_mstamp = us(tp.now);
            self.ack_epoch_acked = 0;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(tp, self.bbr_bw(), BBR_UNIT);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(tp);
            }
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// `bbr_main`.
    fn cong_control(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        self.update_model(tp, rs);
        let bw = self.bbr_bw();
        self.set_pacing_rate(tp, bw, self.pacing_gain);
        self.set_cwnd(tp, rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    fn min_tso_segs(&self, tp: &TcpCcState) -> Option<u32> {
        Some(Self::bbr_min_tso_segs(tp))
    }

    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 6] = [
            StateVar::level("mode", &["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"]),
            StateVar::num("bw_bps"),
            StateVar::num("min_rtt_s"),
            StateVar::num("pacing_gain"),
            StateVar::num("cwnd_gain"),
            StateVar::num("pacing_rate_bps"),
        ];
        &V
    }

    fn state(&self, tp: &TcpCcState, out: &mut [f64]) {
        out[0] = self.mode as u8 as f64;
        out[1] = self.bw_bps(tp);
        out[2] = super::state::us_s(self.min_rtt_us.into(), u32::MAX.into());
        out[3] = self.pacing_gain as f64 / BBR_UNIT as f64;
        out[4] = self.cwnd_gain as f64 / BBR_UNIT as f64;
        out[5] = if tp.sk_pacing_rate == super::NO_RATE {
            f64::NAN
        } else {
            tp.sk_pacing_rate as f64 * 8.0
        };
    }

    /// `bbr_get_info` as iproute2's `ss` prints it: `bbr:(bw:…Mbps,mrtt:…,pacing_gain:…,
    /// cwnd_gain:…)`, and cclab's mode.
    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        // `bw * mss * USEC_PER_SEC >> BW_SCALE` bytes/s; `ss` prints bits.
        let _ = write!(
            out,
            " bbr:(bw:{:.1}Mbps,mrtt:{},pacing_gain:{},cwnd_gain:{},mode:{:?})",
            ((self.bbr_bw() as u64 * self.mss as u64 * 1_000_000) >> BW_SCALE) as f64 * 8.0 / 1e6,
            self.min_rtt_us as f64 / 1000.0,
            self.pacing_gain as f64 / BBR_UNIT as f64,
            self.cwnd_gain as f64 / BBR_UNIT as f64,
            self.mode,
        );
    }
}

#[path = "bbr/lt_bw.rs"]
mod lt_bw;

#[cfg(test)]
#[path = "bbr/tests.rs"]
mod tests;
