//! BBR v3 — Google's `bbr` repository, branch `v3`, `net/ipv4/tcp_bbr.c` (`BBR_VERSION 3`,
//! the file at commit 001a430b3ddbbc6d9173061a74d8b580c757b91b, read in full), the
//! algorithm draft-ietf-ccwg-bbr describes (docs/references.md §15.6). Named `bbr3`.
//!
//! BBR v3 keeps v1's model — bottleneck bandwidth from delivery-rate samples, min_rtt,
//! pacing at gain · bw, cwnd at gain · BDP — and bounds it with what loss and ECN show:
//!
//! - **Upper bounds** (`bw_hi`, `inflight_hi`): the max of the last 1–2 PROBE_BW cycles'
//!   bandwidth samples, and the in-flight volume at which loss exceeded 2% of what was in
//!   flight (`bbr_loss_thresh`) or CE marks exceeded half of what was delivered
//!   (`bbr_ecn_thresh`) while probing; `inflight_hi` grows again, doubling its step each
//!   round, in PROBE_UP.
//! - **Lower bounds** (`bw_lo`, `inflight_lo`): outside probing, once per round with loss,
//!   cut by β = 30% (`bbr_beta`), never below the last round's delivery; with ECN, by
//!   ecn_alpha / 3; reset when probing starts.
//! - **PROBE_BW sub-states**: DOWN (gain 0.91, until inflight ≤ BDP and leaves 15%
//!   headroom under `inflight_hi`), CRUISE (gain 1, cwnd ≤ inflight_hi − 15%), REFILL
//!   (gain 1, one round at inflight_hi), UP (gain 1.25, cwnd gain 2.25, until a plateau,
//!   inflight_hi, or too much loss/ECN). The next probe comes after 2–3 s (random,
//!   `bbr_bw_probe_base_us` + `get_random_u32_below(bbr_bw_probe_rand_us)`), or sooner
//!   after min(63, BDP) rounds (Reno coexistence), from the socket's seeded stream.
//! - **STARTUP**: pacing gain 2.77 (4 ln 2), cwnd gain 2; left at a 3-round plateau of
//!   the bandwidth *sample*, or at ≥ 6 loss events in a recovery round with loss > 2%, or
//!   2 rounds of CE above 50% (ECN eligible only).
//! - **PROBE_RTT**: every 5 s without a lower RTT (`bbr_probe_rtt_win_ms`), cwnd ≤ max(4,
//!   BDP/2) for max(200 ms, one round); min_rtt's own window stays 10 s.
//! - No packet conservation at the start of recovery (v1's), an RTO sets `inflight_lo`,
//!   a spurious recovery restores the bounds (`bbr_undo_cwnd`), a loss repaired by a tail
//!   loss probe counts (`CA_EVENT_TLP_RECOVERY`), and an ACK that is app-limited, clean
//!   and below the estimate takes the fast path (`bbr_run_fast_path`).
//!
//! The TCP core of the v3 tree gives the module what mainline Linux does not (cclab's
//! sender provides it for a module with `cong_control`, `tcp/sender/rate.rs`): each rate
//! sample's `tx_in_flight`, `lost`, `is_ece`, `is_acking_tlp_retrans_seq`, the hook
//! `.skb_marked_lost` with the lost segment's snapshot, `.tso_segs` (the module sizes its
//! TSO skbs), `tp->is_cwnd_limited` itself, and `CA_EVENT_TLP_RECOVERY`.
//!
//! ECN: BBR v3 uses ECN only where the route says CE marks are shallow-threshold
//! (`TCP_ECN_LOW`, `ip route … features ecn_low`) and ECN was negotiated; the key
//! `bbr3_ecn_low` stands for that route feature (default off, as a route's). With it the
//! receiving side acknowledges each change of CE state at once (`TCP_CONG_WANTS_CE_EVENTS`,
//! `bbr_precise_ece_ack`), and ECN is used once min_rtt ≤ 5 ms (`bbr_ecn_max_rtt_us`).
//!
//! Not modelled: Protective Load Balancing (`bbr_plb`; `net.ipv4.tcp_plb_enabled` is 0 by
//! default, so it does nothing), `tp->fast_ack_mode` (a receive-side quick-ACK mode of the
//! same socket; cclab's senders receive no data), `TCP_ECN_ECT_PERMANENT` (ECT on
//! retransmissions with `ecn_low`). A lost TSO skb is reported one segment at a time
//! (`pcount` 1 with the skb's snapshot). `tcp_jiffies32` is taken at HZ = 1000, as in
//! `bbr.rs`.
//!
//! The v3 file has no module parameters (`bbr_param(sk, name)` reads a `static const`), so
//! its gains and thresholds are constants here, with the file's integer values.

use super::bbr::{after, jiffies};
use super::{
    CaEvent, CaState, CongestionOps, LostSkb, PacingStatus, RateSample, ReceiverNeeds, TcpCcState,
};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// Bandwidth in packets per µs << 24; gains in 1/256.
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// `~0U`: an unset bound.
const UNSET: u32 = u32::MAX;

/// `bbr_min_rtt_win_sec`, `bbr_probe_rtt_mode_ms`, `bbr_probe_rtt_win_ms`,
/// `bbr_probe_rtt_cwnd_gain`.
const MIN_RTT_WIN_SEC: u32 = 10;
const PROBE_RTT_MODE_MS: u32 = 200;
pub const PROBE_RTT_WIN_MS: u32 = 5000;
const PROBE_RTT_CWND_GAIN: u32 = BBR_UNIT / 2;
/// `bbr_tso_rtt_shift`: halve the RTT-based TSO allowance per 512 µs of min_rtt.
const TSO_RTT_SHIFT: u32 = 9;
/// `bbr_pacing_margin_percent`.
const PACING_MARGIN_PERCENT: u64 = 1;
/// `bbr_startup_pacing_gain` = 277/100 + 1/256 (4 ln 2), `bbr_startup_cwnd_gain`,
/// `bbr_drain_gain`, `bbr_cwnd_gain`.
pub const STARTUP_PACING_GAIN: u32 = BBR_UNIT * 277 / 100 + 1;
pub const STARTUP_CWND_GAIN: u32 = BBR_UNIT * 2;
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
pub const CWND_GAIN: u32 = BBR_UNIT * 2;
/// `bbr_pacing_gain[]`, indexed by `Phase`: UP 5/4, DOWN 91/100, CRUISE 1, REFILL 1.
pub const PACING_GAIN: [u32; 4] = [BBR_UNIT * 5 / 4, BBR_UNIT * 91 / 100, BBR_UNIT, BBR_UNIT];
/// `bbr_cwnd_min_target`.
pub const CWND_MIN_TARGET: u32 = 4;
/// `bbr_full_bw_thresh`, `bbr_full_bw_cnt`.
const FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// ACK aggregation (as v1): `bbr_extra_acked_gain`, `_win_rtts`,
/// `bbr_ack_epoch_acked_reset_thresh`, `bbr_extra_acked_max_us`.
const EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// `bbr_ecn_max_rtt_us`, `bbr_beta`, `bbr_ecn_alpha_gain`, `bbr_ecn_alpha_init`,
/// `bbr_ecn_factor`, `bbr_ecn_thresh`, `bbr_ecn_reprobe_gain`, `bbr_loss_thresh`.
const ECN_MAX_RTT_US: u32 = 5000;
pub const BETA: u32 = BBR_UNIT * 30 / 100;
const ECN_ALPHA_GAIN: u32 = BBR_UNIT / 16;
const ECN_ALPHA_INIT: u32 = BBR_UNIT;
const ECN_FACTOR: u32 = BBR_UNIT / 3;
const ECN_THRESH: u32 = BBR_UNIT / 2;
const ECN_REPROBE_GAIN: u32 = BBR_UNIT / 2;
pub const LOSS_THRESH: u32 = BBR_UNIT * 2 / 100;
/// `bbr_loss_probe_recovery`, `bbr_full_loss_cnt`, `bbr_full_ecn_cnt`.
const LOSS_PROBE_RECOVERY: bool = true;
const FULL_LOSS_CNT: u32 = 6;
const FULL_ECN_CNT: u32 = 2;
/// `bbr_inflight_headroom` (15%), `bbr_bw_probe_cwnd_gain` (in BBR_UNIT/4).
pub const INFLIGHT_HEADROOM: u32 = BBR_UNIT * 15 / 100;
const BW_PROBE_CWND_GAIN: u32 = 1;
/// `bbr_bw_probe_max_rounds`, `_rand_rounds`, `_base_us`, `_rand_us`.
pub const BW_PROBE_MAX_ROUNDS: u32 = 63;
const BW_PROBE_RAND_ROUNDS: u32 = 2;
pub const BW_PROBE_BASE_US: u32 = 2_000_000;
pub const BW_PROBE_RAND_US: u32 = 1_000_000;
/// `bbr_fast_path`.
const FAST_PATH: bool = true;
/// `TCP_INFINITE_SSTHRESH`, `sk_pacing_shift`, `GSO_LEGACY_MAX_SIZE`, `MAX_TCP_HEADER`.
const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
const PACING_SHIFT: u32 = 10;
const GSO_LEGACY_MAX_SIZE: u64 = 65_536;
const MAX_TCP_HEADER: u64 = 320;

/// `enum bbr_mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// `enum bbr_pacing_gain_phase`: PROBE_BW's sub-states, as `cycle_idx`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    #[default]
    Up = 0,
    Down = 1,
    Cruise = 2,
    Refill = 3,
}

/// `enum bbr_ack_phase`: how the ACKs now arriving relate to bandwidth probing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum AckPhase {
    #[default]
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// `struct bbr` (v3), without PLB's state and the receive-side `ce_state`; `Default` is
/// the zeroed state `tcp_assign_congestion_control` leaves before `init`.
#[derive(Clone, Debug, Default)]
pub struct Bbr3 {
    pub min_rtt_us: u32,
    min_rtt_stamp: u32,
    probe_rtt_done_stamp: u32,
    pub probe_rtt_min_us: u32,
    probe_rtt_min_stamp: u32,
    next_rtt_delivered: u32,
    /// µs (`tp->tcp_mstamp`) of this PROBE_BW phase's start.
    cycle_mstamp: u64,
    pub mode: Mode,
    prev_ca_state: CaState,
    pub round_start: bool,
    bw_probe_up_rounds: u32,
    try_fast_path: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    init_cwnd: u32,
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
    pub full_bw_reached: bool,
    full_bw_cnt: u32,
    pub cycle_idx: Phase,
    has_seen_rtt: bool,
    prior_cwnd: u32,
    full_bw: u32,
    ack_epoch_mstamp: u64,
    extra_acked: [u16; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    full_bw_now: bool,
    startup_ecn_rounds: u32,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    loss_round_delivered: u32,
    undo_bw_lo: u32,
    undo_inflight_lo: u32,
    undo_inflight_hi: u32,
    bw_latest: u32,
    pub bw_lo: u32,
    pub bw_hi: [u32; 2],
    inflight_latest: u32,
    pub inflight_lo: u32,
    pub inflight_hi: u32,
    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
    pub probe_wait_us: u32,
    ecn_eligible: bool,
    pub ecn_alpha: u32,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    pub rounds_since_probe: u32,
    loss_round_start: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    ack_phase: AckPhase,
    loss_events_in_round: u32,
    initialized: bool,
    alpha_last_delivered: u32,
    alpha_last_delivered_ce: u32,
    /// The route's `ecn_low` feature (`bbr3_ecn_low`).
    ecn_low: bool,
    /// The MSS, for `ss`.
    mss: u32,
}

/// BBR v3's one option: the route feature it reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `ip route … features ecn_low` (`TCP_ECN_LOW`).
    pub ecn_low: bool,
}

pub const ECN_LOW: Key = Key {
    name: "bbr3_ecn_low",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "the route feature `ecn_low` (`ip route … features ecn_low`, Linux `TCP_ECN_LOW`): \
              CE marks on this path are shallow-threshold (DCTCP/L4S-style), so `bbr3` \
              responds to them (with `ecn = true` negotiated, min_rtt ≤ 5 ms) and the \
              receiver acknowledges each change of CE state at once. BBR v3's gains are \
              `static const` in its source, not parameters",
};

static OPTIONS: Schema = Schema {
    title: "BBR v3 options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[ECN_LOW],
    with: &[],
    variants: None,
};

impl super::Configure for Bbr3 {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &ECN_LOW, &mut o.bbr3.ecn_low);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.ecn_low = o.bbr3.ecn_low;
    }
}

/// `!before(a, b)` on u32 sequence counts.
#[inline]
fn not_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// `tp->tcp_mstamp`: now, in µs.
#[inline]
fn mstamp(tp: &TcpCcState) -> u64 {
    tp.now_us()
}

/// A rate sample built by `.skb_marked_lost` or the TLP event: only the loss fields.
fn loss_sample(lost: u32, tx_in_flight: u32, is_app_limited: bool) -> RateSample {
    RateSample {
        lost,
        tx_in_flight,
        is_app_limited,
        delivered: 0,
        delivered_ce: 0,
        ..RateSample::default()
    }
}

impl Bbr3 {
    /// `bbr_can_use_ecn`: ECN negotiated on an `ecn_low` route.
    fn can_use_ecn(&self, tp: &TcpCcState) -> bool {
        tp.ecn_ok && self.ecn_low
    }

    /// `bbr_max_bw`: the max of the last two cycles' samples (`bw_hi`).
    pub fn max_bw(&self) -> u32 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// `bbr_bw`: the estimate, bounded by `bw_lo`.
    pub fn bbr_bw(&self) -> u32 {
        self.max_bw().min(self.bw_lo)
    }

    /// `bbr_extra_acked`.
    fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1]) as u32
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self, tp: &TcpCcState) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tp.snd_cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.snd_cwnd);
        }
    }

    /// `bbr_bdp`: ceil(bw · min_rtt · gain); the initial cwnd before any RTT sample.
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == UNSET {
            return self.init_cwnd;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        ((w.wrapping_mul(gain as u64) >> BBR_SCALE) + BW_UNIT - 1).wrapping_div(BW_UNIT) as u32
    }

    /// `bbr_quantization_budget`: at least three TSO skbs and 4 packets; 2 more in UP.
    fn quantization_budget(&self, tp: &TcpCcState, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal(tp)).max(CWND_MIN_TARGET);
        if self.mode == Mode::ProbeBw && self.cycle_idx == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`.
    fn inflight(&self, tp: &TcpCcState, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(tp, self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`.
    fn packets_in_net_at_edt(&self, tp: &TcpCcState, inflight_now: u32) -> u32 {
        let edt = tp.tcp_wstamp.max(tp.now);
        let interval_us = (edt - tp.now) / crate::engine::US;
        let interval_delivered = ((self.bbr_bw() as u64 * interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal(tp);
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        let max_aggr = (self.bbr_bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
        ((EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE).min(max_aggr)
    }

    /// `bbr_set_cwnd`: slow start toward the target, or snap down to it once the pipe
    /// was full; PROBE_RTT's cap.
    fn set_cwnd(&mut self, tp: &mut TcpCcState, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = tp.snd_cwnd;
        if acked > 0 {
            let mut target = self.bdp(bw, gain);
            target += self.ack_aggregation_cwnd();
            target = self.quantization_budget(tp, target);
            self.try_fast_path = false;
            if self.full_bw_reached {
                cwnd += acked;
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.snd_cwnd = tp.snd_cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_GAIN, STARTUP_CWND_GAIN),
            Mode::ProbeBw => {
                let mut cwnd_gain = CWND_GAIN;
                if BW_PROBE_CWND_GAIN > 0 && self.cycle_idx == Phase::Up {
                    cwnd_gain += BBR_UNIT * BW_PROBE_CWND_GAIN / 4;
                }
                (PACING_GAIN[self.cycle_idx as usize], cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_reset_full_bw`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// `bbr_target_inflight`: the BDP, unless congestion cut cwnd.
    fn target_inflight(&self, tp: &TcpCcState) -> u32 {
        self.inflight(tp, self.bbr_bw(), BBR_UNIT).min(tp.snd_cwnd)
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, tp: &mut TcpCcState, rs: &RateSample, sample_bw: u32) {
        self.update_congestion_signals(tp, rs, sample_bw);
        self.update_ack_aggregation(tp, rs);
        self.check_loss_too_high_in_startup(tp, rs);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(tp);
        self.update_cycle_phase(tp, rs, sample_bw);
        self.update_min_rtt(tp, rs);
    }

    /// `bbr_run_fast_path`: an app-limited, clean ACK below the estimate skips the model
    /// (and the control too if nothing changed). Returns (take the fast path, update the
    /// model).
    fn run_fast_path(
        &mut self,
        tp: &mut TcpCcState,
        rs: &RateSample,
        sample_bw: u32,
    ) -> (bool, bool) {
        if FAST_PATH
            && self.try_fast_path
            && rs.is_app_limited
            && sample_bw < self.max_bw()
            && !self.loss_in_round
            && !self.ecn_in_round
        {
            let (prev_mode, prev_min_rtt_us) = (self.mode, self.min_rtt_us);
            self.check_drain(tp);
            self.update_cycle_phase(tp, rs, sample_bw);
            self.update_min_rtt(tp, rs);
            if self.mode == prev_mode && self.min_rtt_us == prev_min_rtt_us && self.try_fast_path {
                return (true, false);
            }
            return (false, false);
        }
        (false, true)
    }

    /// The BDP estimate now (bw · min_rtt, packets), for experiments.
    pub fn bdp_now(&self) -> u32 {
        self.bdp(self.bbr_bw(), BBR_UNIT)
    }

    /// When the PROBE_RTT clock last restarted (`probe_rtt_min_stamp`, jiffies = ms): at
    /// PROBE_RTT's exit or a strictly lower RTT; for experiments.
    pub fn probe_rtt_min_stamp_ms(&self) -> u32 {
        self.probe_rtt_min_stamp
    }

    /// PROBE_RTT's cwnd cap now (`bbr_probe_rtt_cwnd`), for experiments.
    pub fn probe_rtt_cap(&self) -> u32 {
        self.probe_rtt_cwnd()
    }

    /// The bandwidth estimate in bits per second.
    pub fn bw_bps(&self, tp: &TcpCcState) -> f64 {
        Self::bw_to_bps(self.bbr_bw(), tp)
    }

    fn bw_to_bps(bw: u32, tp: &TcpCcState) -> f64 {
        bw as f64 * tp.mss_cache as f64 * 8e6 / BW_UNIT as f64
    }
}

impl CongestionOps for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    /// `bbr_init`; TCP's own pacing unless something paces already.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.mss = tp.mss_cache;
        self.initialized = true;
        self.init_cwnd = tp.snd_cwnd.min(0x7f);
        self.prior_cwnd = tp.prior_cwnd;
        tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
        self.next_rtt_delivered = tp.delivered as u32;
        self.prev_ca_state = CaState::Open;
        self.probe_rtt_done_stamp = 0;
        self.probe_rtt_round_done = false;
        self.probe_rtt_min_us = tp.min_rtt_us;
        self.probe_rtt_min_stamp = jiffies(tp);
        self.min_rtt_us = tp.min_rtt_us;
        self.min_rtt_stamp = jiffies(tp);
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tp);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = 0;
        self.cycle_idx = Phase::Up;
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = mstamp(tp);
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
        self.try_fast_path = false;
        if tp.sk_pacing_status == PacingStatus::None {
            tp.sk_pacing_status = PacingStatus::Needed;
        }
        // Start sampling ECN mark rate after the first full flight is ACKed.
        self.loss_round_delivered = (tp.delivered as u32).wrapping_add(1);
        self.loss_round_start = false;
        self.undo_bw_lo = 0;
        self.undo_inflight_lo = 0;
        self.undo_inflight_hi = 0;
        self.loss_events_in_round = 0;
        self.startup_ecn_rounds = 0;
        self.reset_congestion_signals();
        self.bw_lo = UNSET;
        self.bw_hi = [0; 2];
        self.inflight_lo = UNSET;
        self.inflight_hi = UNSET;
        self.reset_full_bw();
        self.bw_probe_up_cnt = UNSET;
        self.bw_probe_up_acks = 0;
        self.bw_probe_up_rounds = 0;
        self.probe_wait_us = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Init;
        self.rounds_since_probe = 0;
        self.bw_probe_samples = false;
        self.prev_probe_too_high = false;
        self.ecn_eligible = false;
        self.ecn_alpha = ECN_ALPHA_INIT;
        self.alpha_last_delivered = 0;
        self.alpha_last_delivered_ce = 0;
    }

    /// `bbr_ssthresh`: save cwnd and the bounds for an undo; ssthresh stays.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        self.save_cwnd(tp);
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
        tp.snd_ssthresh
    }

    /// Never called: `cong_control` decides cwnd.
    fn cong_avoid(&mut self, _tp: &mut TcpCcState, _acked: u32) {}

    /// `bbr_undo_cwnd`: a spurious recovery; restore the bounds and cwnd.
    fn undo_cwnd(&mut self, _tp: &mut TcpCcState) -> u32 {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.try_fast_path = false;
        self.prior_cwnd
    }

    /// `bbr_set_state`: an RTO restarts the full-pipe test and sets `inflight_lo`;
    /// leaving Loss restores cwnd.
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if new_state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == UNSET {
                self.inflight_lo = tp.snd_cwnd.max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            // `bbr_exit_loss_recovery`.
            tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
            self.try_fast_path = false;
        }
    }

    /// `bbr_cwnd_event`: restart from idle; a loss repaired by a TLP.
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        match ev {
            CaEvent::TxStart if tp.app_limited != 0 => {
                self.idle_restart = true;
                self.ack_epoch_mstamp = mstamp(tp);
                self.ack_epoch_acked = 0;
                if self.mode == Mode::ProbeBw {
                    self.set_pacing_rate(tp, self.bbr_bw(), BBR_UNIT);
                } else if self.mode == Mode::ProbeRtt {
                    self.check_probe_rtt_done(tp);
                }
            }
            CaEvent::TlpRecovery if LOSS_PROBE_RECOVERY => self.run_loss_probe_recovery(tp),
            _ => {}
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// `bbr_main`.
    fn cong_control(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        self.update_round_start(tp, rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
            self.update_ecn_alpha(tp);
        }
        self.ecn_in_round |= self.ecn_eligible && rs.is_ece;
        let sample_bw = Self::bw_sample(rs);
        self.update_latest_delivery_signals(tp, rs, sample_bw);
        let (fast, update_model) = self.run_fast_path(tp, rs, sample_bw);
        if !fast {
            if update_model {
                self.update_model(tp, rs, sample_bw);
            }
            self.update_gains();
            let bw = self.bbr_bw();
            self.set_pacing_rate(tp, bw, self.pacing_gain);
            self.set_cwnd(tp, rs.acked_sacked, bw, self.cwnd_gain);
            self.bound_cwnd_for_inflight_model(tp);
        }
        self.advance_latest_delivery_signals(rs, sample_bw);
        self.prev_ca_state = tp.ca_state;
        self.loss_in_cycle |= rs.lost > 0;
        self.ecn_in_cycle |= rs.delivered_ce > 0;
    }

    /// `bbr_skb_marked_lost`: while probing, a loss rate over 2% of what was in flight
    /// when the lost segment left sets `inflight_hi` where the rate crossed it.
    fn skb_marked_lost(&mut self, tp: &mut TcpCcState, skb: &LostSkb) {
        self.note_loss(tp);
        if !self.bw_probe_samples || skb.delivered_mstamp == 0 {
            return;
        }
        let lost = (tp.lost as u32).wrapping_sub(skb.tx_lost);
        let mut rs = loss_sample(lost, skb.tx_in_flight, skb.is_app_limited);
        if self.is_inflight_too_high(&rs) {
            rs.tx_in_flight = Self::inflight_hi_from_lost_skb(&rs, skb.pcount);
            self.handle_inflight_too_high(tp, &rs);
        }
    }

    /// `bbr_tso_segs`: the module sizes TSO skbs (`.tso_segs`).
    fn tso_segs(&self, tp: &TcpCcState, mss: u32) -> Option<u32> {
        Some(self.tso_segs_generic(tp, mss, GSO_LEGACY_MAX_SIZE))
    }

    fn receiver_needs(&self) -> ReceiverNeeds {
        // `TCP_CONG_WANTS_CE_EVENTS` with `bbr_precise_ece_ack`, on an `ecn_low` route.
        ReceiverNeeds {
            ecn: false,
            ect_1: false,
            ce_state: self.ecn_low,
            ce_ack_now: self.ecn_low,
        }
    }

    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 12] = [
            StateVar::level("mode", &["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"]),
            StateVar::level("phase", &["UP", "DOWN", "CRUISE", "REFILL"]),
            StateVar::num("bw_bps"),
            StateVar::num("bw_hi_bps"),
            StateVar::num("bw_lo_bps"),
            StateVar::num("inflight_hi"),
            StateVar::num("inflight_lo"),
            StateVar::num("min_rtt_s"),
            StateVar::num("pacing_gain"),
            StateVar::num("cwnd_gain"),
            StateVar::num("ecn_alpha"),
            StateVar::num("pacing_rate_bps"),
        ];
        &V
    }

    fn state(&self, tp: &TcpCcState, out: &mut [f64]) {
        let unset = |v: u32| if v == UNSET { f64::NAN } else { v as f64 };
        out[0] = self.mode as u8 as f64;
        out[1] = if self.mode == Mode::ProbeBw {
            self.cycle_idx as u8 as f64
        } else {
            f64::NAN
        };
        out[2] = self.bw_bps(tp);
        out[3] = Self::bw_to_bps(self.max_bw(), tp);
        out[4] = if self.bw_lo == UNSET {
            f64::NAN
        } else {
            Self::bw_to_bps(self.bw_lo, tp)
        };
        out[5] = unset(self.inflight_hi);
        out[6] = unset(self.inflight_lo);
        out[7] = super::state::us_s(self.min_rtt_us.into(), UNSET.into());
        out[8] = self.pacing_gain as f64 / BBR_UNIT as f64;
        out[9] = self.cwnd_gain as f64 / BBR_UNIT as f64;
        out[10] = self.ecn_alpha as f64 / BBR_UNIT as f64;
        out[11] = if tp.sk_pacing_rate == super::NO_RATE {
            f64::NAN
        } else {
            tp.sk_pacing_rate as f64 * 8.0
        };
    }

    /// `bbr_get_info` as iproute2's `ss` prints BBR (`bbr:(bw:…,mrtt:…,pacing_gain:…,
    /// cwnd_gain:…)`), and cclab's mode, phase and bounds.
    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let bytes = |bw: u32| ((bw as u64 * self.mss as u64 * 1_000_000) >> BW_SCALE) as f64;
        let _ = write!(
            out,
            " bbr:(bw:{:.1}Mbps,mrtt:{},pacing_gain:{},cwnd_gain:{},mode:{:?}",
            bytes(self.bbr_bw()) * 8.0 / 1e6,
            self.min_rtt_us as f64 / 1000.0,
            self.pacing_gain as f64 / BBR_UNIT as f64,
            self.cwnd_gain as f64 / BBR_UNIT as f64,
            self.mode,
        );
        if self.mode == Mode::ProbeBw {
            let _ = write!(out, ",phase:{:?}", self.cycle_idx);
        }
        if self.inflight_hi != UNSET {
            let _ = write!(out, ",inflight_hi:{}", self.inflight_hi);
        }
        if self.inflight_lo != UNSET {
            let _ = write!(out, ",inflight_lo:{}", self.inflight_lo);
        }
        out.push(')');
    }
}

#[path = "bbr3/bounds.rs"]
mod bounds;
#[path = "bbr3/model.rs"]
mod model;
#[path = "bbr3/probe_bw.rs"]
mod probe_bw;

#[cfg(test)]
#[path = "bbr3/tests.rs"]
mod tests;
