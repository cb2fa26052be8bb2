//! TCP Prague — the L4S team's Linux module `net/ipv4/tcp_prague.c`
//! (github.com/L4STeam/linux, `MODULE_VERSION("0.7")`, commit 893e1479793e; Chia-Yu Chang,
//! Olivier Tilmans, Koen De Schepper, Bob Briscoe), docs/references.md §18.1; the L4S
//! architecture's scalable congestion control (RFC 9330, RFC 9331 §4.3).
//!
//! DCTCP's descendant for the public Internet, with the module's own arithmetic:
//! - **ECT(1)** on every packet of the socket (`TCP_CONG_WANTS_ECT_1`, ECN++), pure ACKs
//!   and the handshake included.
//! - **alpha**, the EWMA (g = 1/16) of the CE-marked fraction of each round's delivered
//!   segments (`tp.delivered_ce` / `tp.delivered`), kept upscaled (× 16) at 24 bits, and
//!   only once a mark has been seen (`saw_ce`).
//! - **A fractional window** `frac_cwnd` (2^20 = one segment), from which cwnd moves one
//!   segment per ACK; **additive increase** on every ACK for its unmarked segments
//!   (1/cwnd each: the increase per round is ∝ (1 − p)/p), **multiplicative reduction**
//!   × (1 − alpha/2) on entering CWR (once per round, or per `prague_rtt_target` once
//!   RTT-independent), halving on loss, undo.
//! - **RTT independence** after `prague_rtt_transition` rounds past slow start: below
//!   `prague_rtt_target` (25 ms) the increase per ACK is scaled by (srtt / target)², so a
//!   flow grows 1 segment per target RTT, and alpha and the reduction wait a target RTT.
//! - **Pacing**, set by the module itself (`cong_control`; `SK_PACING_NEEDED` from
//!   `init`): mtu · frac_cwnd / srtt (twice that while cwnd < ssthresh / 2), at least
//!   100 kbit/s; TSO skbs of at most 2^-`prague_burst_shift` s (250 µs) at that rate.
//!   Below `prague_cwnd_transit` · 1500 bytes of window (`prague_cwnd_mode` 2, the
//!   default) the module switches to a rate-based mode whose pacing rate is the window
//!   (±3% in each half of a virtual RTT).
//! - **Fallback**: without AccECN negotiated (no ECN, or a peer with RFC 3168 only), `prague_reno` (Reno's ssthresh, growth and
//!   undo; no ECT, no pacing, no `cong_control`).
//!
//! Feedback: Accurate ECN (RFC 9768, `tcp/accecn.rs`), as the L4S tree requires
//! (`TCP_CONG_NEEDS_ACCECN | TCP_CONG_NO_FALLBACK_RFC3168`): the SYN asks for AccECN
//! whatever `tcp.ecn` says, and a peer that answers with RFC 3168 ECN only leaves the
//! connection without ECN, so Prague runs as `prague_reno`. `tp.delivered_ce` is the count
//! the ACE field and the AccECN option give (`__tcp_accecn_process`), `rs.ece_delta` this
//! ACK's share of it; `cong_control` hears only the ACKs `tcp_ack` gives it (at or above
//! `snd_una`, with data outstanding: not `old_ack`, not `no_queue`). Prague's receiver
//! runs no CE state machine of its own (the L4S tree's module has none: AccECN's receiver
//! ACKs each change of the IP-ECN field).

//! `tcp_is_cwnd_limited` is `tp.is_cwnd_limited` as the send loop after the previous ACK
//! left it: for a module with `cong_control` nothing in between moves cwnd, ssthresh or
//! the window's verdict (an undo aside, which the next ACK sees).
//!
//! Not modelled: the MTU reduction at very low rates (`update_alpha` with `tcp_sync_mss`,
//! down to a 150-byte MSS when the window scaled to the target RTT is under 2 packets):
//! cclab's TCP keeps its MSS; the 0.6 version's RTT-scaling heuristics and classic-ECN
//! AQM detection are not in 0.7.

use super::{reno, CaEvent, CaState, CongestionOps, RateSample, ReceiverNeeds, TcpCcState};
use crate::engine::SimTime;
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// `MIN_CWND_RTT` (`MIN_CWND_VIRT` serves the MTU reduction, not modelled).
const MIN_CWND_RTT: u32 = 2;
/// `MINIMUM_RATE`: 100 kbit/s, in bytes per second.
pub const MINIMUM_RATE: u64 = 12_500;
/// `PRAGUE_ALPHA_BITS`, `PRAGUE_MAX_ALPHA` (alpha 1.0).
pub const PRAGUE_ALPHA_BITS: u32 = 24;
pub const PRAGUE_MAX_ALPHA: u64 = 1 << PRAGUE_ALPHA_BITS;
/// `CWND_UNIT`, `ONE_CWND`: the fractional window's fixed point.
pub const CWND_UNIT: u32 = 20;
pub const ONE_CWND: u64 = 1 << CWND_UNIT;
/// `PRAGUE_SHIFT_G`: EWMA gain g = 1/2^4.
pub const PRAGUE_SHIFT_G: u32 = 4;
/// `MAX_SCALED_RTT`, µs.
const MAX_SCALED_RTT: u32 = 100_000;
/// `MTU_SYS`.
const MTU_SYS: u64 = 1500;
/// `RATE_OFFSET` / 2^`OFFSET_UNIT`: ±3% pacing in rate mode.
const RATE_OFFSET: u64 = 4;
const OFFSET_UNIT: u32 = 7;
/// `HSRTT_SHIFT`.
const HSRTT_SHIFT: u32 = 7;
/// `RTT2SEC_SHIFT`: srtt_us ≪ 3 to seconds, ≈ (2^23 ≈ 8·10^6).
const RTT2SEC_SHIFT: u32 = 23;
/// `USEC_PER_SEC << 3`.
const USEC8: u64 = 1_000_000 << 3;

/// `mul_u64_u64_shr`.
#[inline]
fn mul_shr(a: u64, b: u64, shift: u32) -> u64 {
    ((a as u128 * b as u128) >> shift) as u64
}

/// `DIV64_U64_ROUND_UP`.
#[inline]
fn div_round_up(a: u64, b: u64) -> u64 {
    a.wrapping_add(b - 1) / b
}

/// `DIV64_U64_ROUND_CLOSEST`.
#[inline]
fn div_round_closest(a: u64, b: u64) -> u64 {
    a.wrapping_add(b / 2) / b
}

/// The module parameters (`module_param`), with the file's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `prague_burst_shift`: the GSO burst is at most 2^-shift s at the pacing rate.
    pub burst_shift: u32,
    /// `prague_max_tso_segs`: a cap on the segments of a TSO skb (0: none).
    pub max_tso_segs: u32,
    /// `prague_rtt_transition`: rounds after slow start before RTT independence.
    pub rtt_transition: u32,
    /// `prague_rtt_target`, µs.
    pub rtt_target: u32,
    /// `prague_alpha_mode`: 0, halve the window at the first mark (alpha from 0); 1, alpha
    /// from 1.0.
    pub alpha_mode: u32,
    /// `prague_cwnd_mode`: 0 fractional window, 1 rate-based, 2 switch at
    /// `prague_cwnd_transit`.
    pub cwnd_mode: u32,
    /// `prague_cwnd_transit`: the switch point in `MTU_SYS` packets.
    pub cwnd_transit: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            burst_shift: 12,
            max_tso_segs: 0,
            rtt_transition: 4,
            rtt_target: 25_000,
            alpha_mode: 0,
            cwnd_mode: 2,
            cwnd_transit: 4,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Prague {
    o: Options,
    /// `struct prague`.
    pub cwr_stamp: SimTime,
    pub alpha_stamp: SimTime,
    pub upscaled_alpha: u64,
    pub ai_ack_increase: u64,
    pub mtu_cache: u32,
    pub hsrtt_us: u64,
    pub frac_cwnd: u64,
    pub rate_bytes: u64,
    pub loss_rate_bytes: u64,
    pub loss_cwnd: u32,
    pub max_tso_burst: u32,
    pub old_delivered: u64,
    pub old_delivered_ce: u64,
    pub next_seq: u64,
    pub round: u32,
    pub saw_ce: bool,
    pub alpha_mode: bool,
    pub cwnd_mode_transit: bool,
    /// `cwnd_mode`: false fractional window, true rate-based.
    pub cwnd_mode: bool,
    pub in_loss: bool,
    /// ECN was not negotiated: `prague_reno`.
    pub fallback: bool,
    /// `tcp_mss_to_mtu(sk, mss_cache)`.
    mtu: u64,
}

impl Prague {
    /// `prague_is_rtt_indep`.
    fn is_rtt_indep(&self, tp: &TcpCcState) -> bool {
        !tp.in_slow_start() && self.round >= self.o.rtt_transition
    }

    /// `prague_target_rtt`: the target in `srtt_us` units (µs ≪ 3).
    fn target_rtt(&self) -> u64 {
        (self.o.rtt_target as u64) << 3
    }

    /// `prague_elapsed_since_alpha_update`, µs.
    fn elapsed_since_alpha_update(&self, tp: &TcpCcState) -> u64 {
        TcpCcState::us_delta(tp.now, self.alpha_stamp)
    }

    /// `prague_should_update_ewma`: a round has passed (and, RTT-independent, the target
    /// RTT since the last update).
    fn should_update_ewma(&self, tp: &TcpCcState) -> bool {
        tp.snd_una >= self.next_seq
            && (!self.is_rtt_indep(tp)
                || self.target_rtt() >> 3 <= self.elapsed_since_alpha_update(tp))
    }

    /// `prague_rate_scaled_ai_ack_increase`: 2^20 · (rtt / target)² below the target.
    pub fn rate_scaled_ai_ack_increase(rtt: u64, target: u64) -> u64 {
        if rtt >= target {
            return ONE_CWND;
        }
        let increase = (rtt << CWND_UNIT).wrapping_mul(rtt);
        div_round_closest(increase, target * target)
    }

    /// `prague_frac_cwnd_to_snd_cwnd`.
    fn frac_cwnd_to_snd_cwnd(&self, tp: &TcpCcState) -> u32 {
        let c = (self.frac_cwnd + (ONE_CWND - 1)) >> CWND_UNIT;
        (c.min(u32::MAX as u64) as u32)
            .max(MIN_CWND_RTT)
            .min(tp.snd_cwnd_clamp)
    }

    /// `prague_virtual_rtt`: max(target, srtt), µs ≪ 3.
    fn virtual_rtt(&self, tp: &TcpCcState) -> u64 {
        self.target_rtt().max(tp.srtt_us as u64)
    }

    /// `prague_half_virtual_rtt_elapsed`.
    fn half_virtual_rtt_elapsed(&self, tp: &TcpCcState) -> bool {
        self.virtual_rtt(tp) >> (3 + 1) <= self.elapsed_since_alpha_update(tp)
    }

    /// `prague_pacing_rate_to_frac_cwnd`.
    fn pacing_rate_to_frac_cwnd(&self, tp: &TcpCcState) -> u64 {
        let rtt = match self.hsrtt_us >> HSRTT_SHIFT {
            0 => tp.srtt_us as u64,
            r => r,
        };
        div_round_up(
            mul_shr(self.rate_bytes, rtt, RTT2SEC_SHIFT - CWND_UNIT),
            self.mtu,
        )
    }

    /// `prague_frac_cwnd_to_pacing_rate`.
    fn frac_cwnd_to_pacing_rate(&self, tp: &TcpCcState) -> u64 {
        let mut rate = USEC8 * self.mtu;
        if tp.srtt_us != 0 {
            rate /= tp.srtt_us as u64;
        }
        mul_shr(rate, self.frac_cwnd, CWND_UNIT).max(MINIMUM_RATE)
    }

    /// `prague_ai_ack_increase`: unscaled until `prague_rtt_transition` rounds and for an
    /// srtt of 0 or above `MAX_SCALED_RTT`.
    fn update_ai_ack_increase(&mut self, tp: &TcpCcState) {
        let rtt = tp.srtt_us;
        self.ai_ack_increase =
            if self.round < self.o.rtt_transition || rtt == 0 || rtt > MAX_SCALED_RTT << 3 {
                ONE_CWND
            } else {
                Self::rate_scaled_ai_ack_increase(rtt as u64, self.target_rtt())
            };
    }

    /// `prague_update_pacing_rate`.
    fn update_pacing_rate(&mut self, tp: &mut TcpCcState) {
        let mut rate = if self.is_rtt_indep(tp) && self.cwnd_mode {
            let offset = mul_shr(RATE_OFFSET, self.rate_bytes, OFFSET_UNIT);
            if self.half_virtual_rtt_elapsed(tp) {
                self.rate_bytes - offset
            } else {
                self.rate_bytes + offset
            }
        } else {
            let max_inflight = ((self.frac_cwnd >> CWND_UNIT) as u32).max(tp.packets_in_flight);
            let mut rate = USEC8 * self.mtu;
            if tp.srtt_us != 0 {
                rate /= tp.srtt_us as u64;
            }
            let rate = rate.wrapping_mul(max_inflight as u64).max(MINIMUM_RATE);
            self.rate_bytes = rate;
            rate
        };
        if tp.snd_cwnd < tp.snd_ssthresh / 2 {
            rate <<= 1;
        }
        rate = rate.min(tp.sk_max_pacing_rate);
        let burst = rate / self.mtu;
        self.max_tso_burst = ((burst >> self.o.burst_shift.min(63)) as u32).max(1);
        tp.sk_pacing_rate = rate;
    }

    /// `prague_new_round`.
    fn new_round(&mut self, tp: &TcpCcState) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered_ce = tp.delivered_ce;
        self.old_delivered = tp.delivered;
        if !tp.in_slow_start() {
            self.round = self.round.wrapping_add(1);
            if self.round == 0 {
                self.round = self.o.rtt_transition;
            }
        }
        self.update_ai_ack_increase(tp);
    }

    /// `prague_cwnd_changed`.
    fn cwnd_changed(&mut self, tp: &TcpCcState) {
        self.update_ai_ack_increase(tp);
    }

    /// The EWMA step of `prague_update_alpha`: `upscaled_alpha` after a round with
    /// `acked` delivered segments of which `ce` were CE-marked.
    pub fn alpha_step(upscaled_alpha: u64, acked: u64, ce: u64) -> u64 {
        let mut ecn_segs = ce;
        if ecn_segs != 0 {
            // `u32 acked_segs`, `div_u64(ecn_segs << 24, max(1U, acked_segs))`.
            ecn_segs = (ecn_segs << PRAGUE_ALPHA_BITS) / (acked as u32).max(1) as u64;
        }
        let alpha = upscaled_alpha - (upscaled_alpha >> PRAGUE_SHIFT_G) + ecn_segs;
        alpha.min(PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G)
    }

    /// `prague_update_alpha` (the MTU reduction aside: not modelled).
    fn update_alpha(&mut self, tp: &TcpCcState) {
        if self.saw_ce {
            self.upscaled_alpha = Self::alpha_step(
                self.upscaled_alpha,
                tp.delivered - self.old_delivered,
                tp.delivered_ce - self.old_delivered_ce,
            );
            self.alpha_stamp = tp.now;
        }
        self.hsrtt_us = self.hsrtt_us + tp.srtt_us as u64 - (self.hsrtt_us >> HSRTT_SHIFT);
        self.new_round(tp);
    }

    /// `prague_update_cwnd`.
    fn update_cwnd(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        let mut acked = rs.acked_sacked as i64;
        let ece_delta = rs.ece_delta;
        if ece_delta != 0 {
            if !self.saw_ce && !self.alpha_mode {
                self.frac_cwnd = (self.frac_cwnd + 1) >> 1;
            }
            self.saw_ce = true;
            acked -= ece_delta as i64;
        }
        if acked > 0 && !self.in_loss && tp.is_cwnd_limited {
            if tp.in_slow_start() {
                acked = tp.slow_start(acked as u32) as i64;
                self.frac_cwnd = (tp.snd_cwnd as u64) << CWND_UNIT;
                if acked == 0 {
                    self.cwnd_changed(tp);
                    return;
                }
            }
            let acked = acked as u64;
            if self.is_rtt_indep(tp) && self.cwnd_mode {
                let vrtt = self.virtual_rtt(tp);
                let increase = ((acked * MTU_SYS) << RTT2SEC_SHIFT) / vrtt;
                let divisor = self.mtu << RTT2SEC_SHIFT;
                let new_cwnd = div_round_up(self.rate_bytes.wrapping_mul(vrtt), divisor);
                if new_cwnd != 0 {
                    self.rate_bytes += div_round_closest(increase, new_cwnd);
                }
                self.frac_cwnd = (self.frac_cwnd + acked).max(self.pacing_rate_to_frac_cwnd(tp));
            } else {
                let mut increase = acked.wrapping_mul(self.ai_ack_increase);
                if self.frac_cwnd != 0 {
                    increase = div_round_closest(increase << CWND_UNIT, self.frac_cwnd);
                }
                increase = increase * MTU_SYS / self.mtu;
                self.frac_cwnd += acked.max(increase);
                let rate = self.frac_cwnd_to_pacing_rate(tp);
                self.rate_bytes = (self.rate_bytes + acked).max(rate);
            }
        }
        // adjust: one segment towards the fractional window.
        let new_cwnd = self.frac_cwnd_to_snd_cwnd(tp);
        if tp.snd_cwnd > new_cwnd {
            tp.snd_cwnd -= 1;
            tp.snd_ssthresh = tp.snd_cwnd;
            self.cwnd_changed(tp);
        } else if tp.snd_cwnd < new_cwnd {
            tp.snd_cwnd += 1;
            self.cwnd_changed(tp);
        }
    }

    /// `prague_enter_loss`.
    fn enter_loss(&mut self, tp: &TcpCcState) {
        self.loss_cwnd = tp.snd_cwnd;
        self.loss_rate_bytes = self.rate_bytes;
        if self.is_rtt_indep(tp) && self.cwnd_mode {
            self.rate_bytes -= self.rate_bytes >> 1;
            self.frac_cwnd = self.pacing_rate_to_frac_cwnd(tp);
        } else {
            self.frac_cwnd -= self.frac_cwnd >> 1;
            self.rate_bytes = self.frac_cwnd_to_pacing_rate(tp);
        }
        self.in_loss = true;
    }

    /// The reduction of `prague_enter_cwr` in the fractional-window mode: × (1 − α/2),
    /// rounded (`+ PRAGUE_MAX_ALPHA` unbiases it).
    pub fn cwr_reduction(frac_cwnd: u64, alpha: u64) -> u64 {
        (alpha.wrapping_mul(frac_cwnd).wrapping_add(PRAGUE_MAX_ALPHA)) >> (PRAGUE_ALPHA_BITS + 1)
    }

    /// `prague_enter_cwr`: at most once per target RTT when RTT-independent.
    fn enter_cwr(&mut self, tp: &TcpCcState) {
        if self.is_rtt_indep(tp)
            && self.target_rtt() >> 3 > TcpCcState::us_delta(tp.now, self.cwr_stamp)
        {
            return;
        }
        self.cwr_stamp = tp.now;
        let alpha = self.upscaled_alpha >> PRAGUE_SHIFT_G;
        if self.is_rtt_indep(tp) && self.cwnd_mode {
            let reduction = mul_shr(self.rate_bytes, alpha, PRAGUE_ALPHA_BITS + 1);
            self.rate_bytes = (self.rate_bytes - reduction).max(MINIMUM_RATE);
            self.frac_cwnd = self.pacing_rate_to_frac_cwnd(tp);
        } else {
            self.frac_cwnd -= Self::cwr_reduction(self.frac_cwnd, alpha);
            self.rate_bytes = self.frac_cwnd_to_pacing_rate(tp);
        }
    }

    /// alpha as the fraction it stands for.
    pub fn alpha(&self) -> f64 {
        (self.upscaled_alpha >> PRAGUE_SHIFT_G) as f64 / PRAGUE_MAX_ALPHA as f64
    }
}

/// `prague_burst_shift`.
pub const BURST_SHIFT: Key = Key {
    name: "prague_burst_shift",
    ty: Ty::Int(0, 63),
    default: "`12`",
    allowed: "",
    meaning: "module parameter `prague_burst_shift`: a TSO skb holds at most 2^-shift s at the pacing rate (12: about 250 µs)",
};
/// `prague_max_tso_segs`.
pub const MAX_TSO_SEGS: Key = Key {
    name: "prague_max_tso_segs",
    ty: Ty::Int(0, u32::MAX as i64),
    default: "`0`",
    allowed: "",
    meaning: "module parameter `prague_max_tso_segs`: at most this many segments in a TSO skb (0: no cap)",
};
/// `prague_rtt_transition`.
pub const RTT_TRANSITION: Key = Key {
    name: "prague_rtt_transition",
    ty: Ty::Int(0, super::INT_MAX),
    default: "`4`",
    allowed: "",
    meaning: "module parameter `prague_rtt_transition`: rounds after slow start before the flow becomes RTT-independent",
};
/// `prague_rtt_target`.
pub const RTT_TARGET: Key = Key {
    name: "prague_rtt_target",
    ty: Ty::Int(0, u32::MAX as i64 >> 3),
    default: "`25000`",
    allowed: "",
    meaning: "module parameter `prague_rtt_target`, in µs: once RTT-independent, a flow with a shorter RTT grows and reduces as if its RTT were this",
};
/// `prague_alpha_mode`.
pub const ALPHA_MODE: Key = Key {
    name: "prague_alpha_mode",
    ty: Ty::Int(0, 1),
    default: "`0`",
    allowed: "",
    meaning: "module parameter `prague_alpha_mode`: 0 halves the window at the first CE mark and starts alpha at 0; 1 starts alpha at 1.0",
};
/// `prague_cwnd_mode`.
pub const CWND_MODE: Key = Key {
    name: "prague_cwnd_mode",
    ty: Ty::Int(0, 2),
    default: "`2`",
    allowed: "",
    meaning: "module parameter `prague_cwnd_mode`: 0 fractional window, 1 rate-based, 2 switch to rate-based below `prague_cwnd_transit` packets",
};
/// `prague_cwnd_transit`.
pub const CWND_TRANSIT: Key = Key {
    name: "prague_cwnd_transit",
    ty: Ty::Int(0, super::INT_MAX),
    default: "`4`",
    allowed: "",
    meaning: "module parameter `prague_cwnd_transit`: the window (in 1500-byte packets) below which `prague_cwnd_mode` 2 runs rate-based",
};

static OPTIONS: Schema = Schema {
    title: "TCP Prague options",
    place: "[tcp]",
    noun: "options",
    about: "The module parameters of the L4S team's `tcp_prague.c` (0.7), with its defaults.",
    keys: &[
        BURST_SHIFT,
        MAX_TSO_SEGS,
        RTT_TRANSITION,
        RTT_TARGET,
        ALPHA_MODE,
        CWND_MODE,
        CWND_TRANSIT,
    ],
    with: &[],
    variants: None,
};

impl super::Configure for Prague {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        let p = &mut o.prague;
        ck.get_into(t, &BURST_SHIFT, &mut p.burst_shift);
        ck.get_into(t, &MAX_TSO_SEGS, &mut p.max_tso_segs);
        ck.get_into(t, &RTT_TRANSITION, &mut p.rtt_transition);
        ck.get_into(t, &RTT_TARGET, &mut p.rtt_target);
        ck.get_into(t, &ALPHA_MODE, &mut p.alpha_mode);
        ck.get_into(t, &CWND_MODE, &mut p.cwnd_mode);
        ck.get_into(t, &CWND_TRANSIT, &mut p.cwnd_transit);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.o = o.prague.clone();
    }
}

/// The `cc` series: alpha, the fractional window, the module's pacing rate.
static STATE: [super::StateVar; 3] = [
    super::StateVar::num("alpha"),
    super::StateVar::num("frac_cwnd"),
    super::StateVar::num("pacing_rate_bps"),
];

impl CongestionOps for Prague {
    fn name(&self) -> &'static str {
        if self.fallback {
            "prague-reno"
        } else {
            "prague"
        }
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    /// `TCP_CONG_WANTS_ECT_1`, and `TCP_ECN_ECT_1` from `prague_init`.
    fn wants_ect_1(&self) -> bool {
        true
    }

    /// `TCP_CONG_NEEDS_ACCECN`.
    fn needs_accecn(&self) -> bool {
        true
    }

    /// `TCP_CONG_NO_FALLBACK_RFC3168`.
    fn no_fallback_rfc3168(&self) -> bool {
        true
    }

    /// ECN and ECT(1) at the receiving end too; no DCTCP CE state machine (AccECN's
    /// receiver feeds back every mark).
    fn receiver_needs(&self) -> ReceiverNeeds {
        ReceiverNeeds {
            ecn: true,
            ect_1: true,
            ce_state: false,
            ce_ack_now: false,
        }
    }

    /// `prague_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.mtu = tp.mtu as u64;
        if !tp.ecn_ok {
            // `prague_release` and `prague_reno` (the core sends no ECT without ECN).
            self.fallback = true;
            return;
        }
        self.fallback = false;
        if tp.sk_pacing_status == super::PacingStatus::None {
            tp.sk_pacing_status = super::PacingStatus::Needed;
        }
        self.alpha_stamp = tp.now;
        self.alpha_mode = self.o.alpha_mode & 1 != 0;
        self.upscaled_alpha = if self.alpha_mode {
            PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G
        } else {
            0
        };
        self.frac_cwnd = (tp.snd_cwnd as u64) << CWND_UNIT;
        self.max_tso_burst = 1;
        self.rate_bytes = if tp.srtt_us != 0 {
            let r = USEC8 * self.mtu / tp.srtt_us as u64;
            (r * tp.snd_cwnd.max(tp.packets_in_flight) as u64).max(MINIMUM_RATE)
        } else {
            MINIMUM_RATE
        };
        self.update_pacing_rate(tp);
        self.loss_rate_bytes = 0;
        self.round = 0;
        self.saw_ce = tp.delivered_ce != 0;
        self.mtu_cache = if self.mtu == 0 { 1500 } else { self.mtu as u32 };
        self.hsrtt_us = if tp.srtt_us != 0 {
            (tp.srtt_us as u64) << HSRTT_SHIFT
        } else {
            1 << (HSRTT_SHIFT + 3)
        };
        self.cwnd_mode_transit = (self.o.cwnd_mode & 2) != 0;
        self.cwnd_mode = self.o.cwnd_mode & 1 != 0;
        self.new_round(tp);
    }

    /// `prague_ssthresh`: unchanged (the reduction is `prague_enter_cwr`'s); Reno's in
    /// fallback.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        if self.fallback {
            return reno::reno_ssthresh(tp);
        }
        tp.snd_ssthresh
    }

    /// Only in fallback (`tcp_reno_cong_avoid`); Prague itself has `cong_control`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        if self.fallback {
            reno::reno_cong_avoid(tp, acked)
        }
    }

    /// `prague_cwnd_undo` (Reno's in fallback).
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        if self.fallback {
            return tp.snd_cwnd.max(tp.prior_cwnd);
        }
        self.in_loss = false;
        self.rate_bytes = self.rate_bytes.max(self.loss_rate_bytes);
        self.frac_cwnd = self.pacing_rate_to_frac_cwnd(tp);
        self.loss_cwnd.max(tp.snd_cwnd)
    }

    /// `prague_state` (`tp.ca_state` is still the old state).
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if self.fallback || new_state == tp.ca_state {
            return;
        }
        match new_state {
            CaState::Recovery => self.enter_loss(tp),
            CaState::Cwr => self.enter_cwr(tp),
            CaState::Open => self.in_loss = false,
            _ => {}
        }
    }

    /// `prague_cwnd_event`: an RTO is a loss.
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        if !self.fallback && ev == CaEvent::Loss {
            self.enter_loss(tp);
        }
    }

    /// `.cong_control`, which `prague_reno` has not: asked after `init`.
    fn has_cong_control(&self) -> bool {
        !self.fallback
    }

    /// `prague_cong_control`.
    fn cong_control(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        self.update_cwnd(tp, rs);
        if self.should_update_ewma(tp) {
            self.update_alpha(tp);
        }
        self.update_pacing_rate(tp);
        if self.cwnd_mode_transit {
            let cwnd_bytes = tp.snd_cwnd as u64 * self.mtu;
            let transit = self.o.cwnd_transit as u64 * MTU_SYS;
            if self.saw_ce && cwnd_bytes <= transit {
                self.cwnd_mode = true;
                self.frac_cwnd = self.pacing_rate_to_frac_cwnd(tp);
            } else {
                self.cwnd_mode = false;
                self.rate_bytes = self.frac_cwnd_to_pacing_rate(tp);
            }
        }
    }

    /// `prague_tso_segs` (none in fallback: `tcp_tso_autosize`).
    fn tso_segs(&self, _tp: &TcpCcState, _mss: u32) -> Option<u32> {
        if self.fallback {
            return None;
        }
        let mut segs = self.max_tso_burst;
        if self.o.max_tso_segs != 0 {
            segs = segs.min(self.o.max_tso_segs);
        }
        Some(segs)
    }

    /// `prague_get_info`'s fields (alpha ≪ 24, the fractional window ≪ 20, the module's
    /// rate in bytes/s), or " fallback_mode" as DCTCP's.
    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        if self.fallback {
            out.push_str(" fallback_mode");
        } else {
            let _ = write!(
                out,
                " alpha {} round {} frac_cwnd {} rate_bytes {} max_burst {}",
                self.upscaled_alpha >> PRAGUE_SHIFT_G,
                self.round,
                self.frac_cwnd,
                self.rate_bytes,
                self.max_tso_burst
            );
        }
    }

    fn state_vars(&self) -> &'static [super::StateVar] {
        &STATE
    }

    fn state(&self, tp: &TcpCcState, out: &mut [f64]) {
        if self.fallback {
            out[..3].fill(f64::NAN);
            return;
        }
        out[0] = self.alpha();
        out[1] = self.frac_cwnd as f64 / ONE_CWND as f64;
        out[2] = if tp.sk_pacing_rate == super::NO_RATE {
            f64::NAN
        } else {
            tp.sk_pacing_rate as f64 * 8.0
        };
    }
}

#[cfg(test)]
#[path = "prague/tests.rs"]
mod tests;
