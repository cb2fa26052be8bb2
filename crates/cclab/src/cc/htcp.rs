//! H-TCP: a port of Linux `net/ipv4/tcp_htcp.c` (Baruch Even; `htcp_init`,
//! `htcp_recalc_ssthresh`, `htcp_param_update`, `htcp_beta_update`, `htcp_alpha_update`,
//! `htcp_cong_avoid`, `htcp_state`, `htcp_reset`, `htcp_cwnd_undo`, `measure_rtt`,
//! `measure_achieved_throughput`), after Leith & Shorten, "H-TCP: TCP for high-speed and
//! long-distance networks", PFLDnet 2004, and draft-leith-tcp-htcp-06
//! (docs/references.md §3.3, §8.7).
//!
//! With Δ = time since the last congestion event, alpha(Δ) = 1 + 10(Δ − 1 s) +
//! ((Δ − 1 s)/2)² when Δ exceeds 1 s (else 1), scaled by minRTT/100 ms (clamped to [0.1, 2])
//! and by 2(1 − beta); beta = minRTT/maxRTT clamped to [0.5, 0.8], but 0.5 unless minRTT
//! exceeds 10 ms and the throughput of the last two congestion epochs agreed within ±20 %
//! (the "bandwidth switch"). Integer arithmetic, Q7 scaling, constants and variable names
//! are Linux's.
//!
//! Deviations from Linux (one per line):
//! - Clock: µs from `tp.now_us()` and RTTs in µs where Linux uses jiffies (HZ → 1 000 000).
//! - 64-bit arithmetic: no u32 overflow of `(diff/2)²` (Linux wraps after ≈131 s at HZ = 1000).
//! - `undo_last_cong` is an `Option` (Linux: 0 = none; jiffies never start at 0 there).
//! - `pkts_acked` is u32 (Linux: u16).
//! - Module parameters `use_rtt_scaling`, `use_bandwidth_switch` are per-instance (`opt`), set
//!   from the scenario's keys (Linux: global `module_param`s).

use super::{AckSample, CaState, CongestionOps, TcpCcState};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// 1.0 with shift << 7.
pub const ALPHA_BASE: u32 = 1 << 7;
/// 0.5 with shift << 7.
pub const BETA_MIN: u32 = 1 << 6;
/// 0.8 with shift << 7.
pub const BETA_MAX: u32 = 102;

/// Clock ticks per second: µs stand in for jiffies.
const HZ: u64 = 1_000_000;
/// `msecs_to_jiffies(20)`: maxRTT is only raised by samples ≤ maxRTT + 20 ms.
const MAXRTT_STEP_US: u32 = 20_000;
/// `msecs_to_jiffies(10)`: beta adapts only when minRTT exceeds 10 ms.
const MINRTT_ADAPT_US: u32 = 10_000;

/// Linux `struct htcp` plus the module parameters.
#[derive(Clone, Debug)]
#[allow(non_snake_case)] // Linux's names: minRTT, maxRTT, maxB, …
pub struct Htcp {
    /// The module parameters (`tcp_htcp.c`'s, with its defaults).
    pub opt: Options,

    /// Fixed point, << 7: cwnd grows by alpha/128 per window.
    pub alpha: u32,
    /// Fixed point, << 7.
    pub beta: u32,
    /// Delay mode switch until we had at least one congestion event.
    pub modeswitch: bool,
    pub pkts_acked: u32,
    pub packetcount: u32,
    /// µs; 0 = no sample yet.
    pub minRTT: u32,
    /// µs.
    pub maxRTT: u32,
    /// Time of the last congestion event (end), µs.
    pub last_cong: u64,
    pub undo_last_cong: Option<u64>,
    pub undo_maxRTT: u32,
    pub undo_old_maxB: u32,

    // Bandwidth estimation, packets per second.
    pub minB: u32,
    pub maxB: u32,
    pub old_maxB: u32,
    pub Bi: u32,
    /// µs.
    pub lasttime: u64,
}

impl Default for Htcp {
    /// The state `htcp_init` leaves (at time 0), with Linux's module-parameter defaults.
    fn default() -> Self {
        Htcp {
            opt: Options::default(),
            alpha: ALPHA_BASE,
            beta: BETA_MIN,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            minRTT: 0,
            maxRTT: 0,
            last_cong: 0,
            undo_last_cong: None,
            undo_maxRTT: 0,
            undo_old_maxB: 0,
            minB: 0,
            maxB: 0,
            old_maxB: 0,
            Bi: 0,
            lasttime: 0,
        }
    }
}

/// Linux `between(seq1, seq2, seq3)`: seq2 ≤ seq1 ≤ seq3 in wrapping u32 arithmetic.
fn between(seq1: u32, seq2: u32, seq3: u32) -> bool {
    seq3.wrapping_sub(seq2) >= seq1.wrapping_sub(seq2)
}

impl Htcp {
    /// `htcp_cong_time`: µs since the last congestion event.
    fn htcp_cong_time(&self, now: u64) -> u64 {
        now.saturating_sub(self.last_cong)
    }

    /// `htcp_ccount`: minRTTs since the last congestion event (minRTT > 0).
    fn htcp_ccount(&self, now: u64) -> u64 {
        self.htcp_cong_time(now) / self.minRTT as u64
    }

    /// `htcp_reset`: a congestion event starts now; keep what undo needs.
    fn htcp_reset(&mut self, now: u64) {
        self.undo_last_cong = Some(self.last_cong);
        self.undo_maxRTT = self.maxRTT;
        self.undo_old_maxB = self.old_maxB;
        self.last_cong = now;
    }

    /// `measure_rtt` (the argument is the per-ACK RTT sample, named `srtt` in Linux).
    fn measure_rtt(&mut self, tp: &TcpCcState, srtt: u32) {
        // Keep track of minimum RTT seen so far, minRTT is zero at first.
        if self.minRTT > srtt || self.minRTT == 0 {
            self.minRTT = srtt;
        }
        // Max RTT.
        if tp.ca_state == CaState::Open {
            if self.maxRTT < self.minRTT {
                self.maxRTT = self.minRTT;
            }
            if self.maxRTT < srtt && srtt as u64 <= self.maxRTT as u64 + MAXRTT_STEP_US as u64 {
                self.maxRTT = srtt;
            }
        }
    }

    /// `measure_achieved_throughput`, registered as `.pkts_acked`.
    #[allow(non_snake_case)]
    fn measure_achieved_throughput(&mut self, tp: &TcpCcState, sample: &AckSample) {
        let now = tp.now_us();

        if tp.ca_state == CaState::Open {
            self.pkts_acked = sample.pkts_acked;
        }
        if sample.rtt_us > 0 {
            self.measure_rtt(tp, sample.rtt_us.min(u32::MAX as i64) as u32);
        }
        if !self.opt.use_bandwidth_switch {
            return;
        }
        // Achieved throughput calculations.
        if !matches!(tp.ca_state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += sample.pkts_acked;

        let a = match self.alpha >> 7 {
            0 => 1,
            a => a,
        };
        // u32 wrap as in Linux: with alpha/128 > cwnd the threshold is huge (never met).
        if self.packetcount >= tp.snd_cwnd.wrapping_sub(a)
            && now.saturating_sub(self.lasttime) >= self.minRTT as u64
            && self.minRTT > 0
        {
            let cur_Bi = (self.packetcount as u64 * HZ / (now - self.lasttime)) as u32;
            if self.htcp_ccount(now) <= 3 {
                // Just after backoff.
                self.minB = cur_Bi;
                self.maxB = cur_Bi;
                self.Bi = cur_Bi;
            } else {
                self.Bi = ((3 * self.Bi as u64 + cur_Bi as u64) / 4) as u32;
                if self.Bi > self.maxB {
                    self.maxB = self.Bi;
                }
                if self.minB > self.maxB {
                    self.minB = self.maxB;
                }
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    /// `htcp_beta_update`.
    #[allow(non_snake_case)]
    pub fn htcp_beta_update(&mut self, minRTT: u32, maxRTT: u32) {
        if self.opt.use_bandwidth_switch {
            let maxB = self.maxB;
            let old_maxB = self.old_maxB;
            self.old_maxB = self.maxB;
            if !between(
                maxB.wrapping_mul(5),
                old_maxB.wrapping_mul(4),
                old_maxB.wrapping_mul(6),
            ) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && minRTT > MINRTT_ADAPT_US && maxRTT != 0 {
            self.beta = (((minRTT as u64) << 7) / maxRTT as u64)
                .clamp(BETA_MIN as u64, BETA_MAX as u64) as u32;
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    /// `htcp_alpha_update` at time `now` (µs).
    pub fn htcp_alpha_update(&mut self, now: u64) {
        let min_rtt = self.minRTT as u64;
        let mut factor: u64 = 1;
        let mut diff = self.htcp_cong_time(now);

        if diff > HZ {
            diff -= HZ;
            factor = 1 + (10 * diff + ((diff / 2) * (diff / 2) / HZ)) / HZ;
        }
        if self.opt.use_rtt_scaling && min_rtt != 0 {
            let scale = (HZ << 3) / (10 * min_rtt);
            // Clamping ratio to interval [0.5, 10] << 3.
            let scale = scale.clamp(1 << 2, 10 << 3);
            factor = (factor << 3) / scale;
            if factor == 0 {
                factor = 1;
            }
        }
        let alpha = 2 * factor * ((1 << 7) - self.beta as u64);
        self.alpha = alpha.min(u32::MAX as u64) as u32;
        if self.alpha == 0 {
            self.alpha = ALPHA_BASE;
        }
    }

    /// `htcp_param_update`: called at a congestion event, when maxRTT is meaningful.
    #[allow(non_snake_case)]
    fn htcp_param_update(&mut self, now: u64) {
        let minRTT = self.minRTT;
        let maxRTT = self.maxRTT;

        self.htcp_beta_update(minRTT, maxRTT);
        self.htcp_alpha_update(now);

        // Add slowly fading memory for maxRTT to accommodate routing changes.
        if minRTT > 0 && maxRTT > minRTT {
            self.maxRTT = minRTT + ((maxRTT - minRTT) as u64 * 95 / 100) as u32;
        }
    }
}

/// H-TCP's options: the module parameters of `tcp_htcp.c`, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `use_rtt_scaling` (default 1).
    pub use_rtt_scaling: bool,
    /// `use_bandwidth_switch` (default 1).
    pub use_bandwidth_switch: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            use_rtt_scaling: true,
            use_bandwidth_switch: true,
        }
    }
}

impl super::Configure for Htcp {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &OPTIONS.keys[0], &mut o.htcp.use_rtt_scaling);
        ck.get_into(t, &OPTIONS.keys[1], &mut o.htcp.use_bandwidth_switch);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.opt = o.htcp.clone();
    }
}

static OPTIONS: Schema = Schema {
    title: "H-TCP options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[
        Key {
            name: "use_rtt_scaling",
            ty: Ty::Bool,
            default: "`true`",
            allowed: "",
            meaning: "module parameter `use_rtt_scaling` of `tcp_htcp.c`: scale alpha by minRTT/100 ms (clamped to [0.1, 2]), so flows of different RTTs gain alike per second",
        },
        Key {
            name: "use_bandwidth_switch",
            ty: Ty::Bool,
            default: "`true`",
            allowed: "",
            meaning: "module parameter `use_bandwidth_switch` of `tcp_htcp.c`: beta falls back to 0.5 when the throughput of the last two congestion epochs differs by more than 20 %",
        },
    ],
    with: &[],
    variants: None,
};

impl CongestionOps for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    /// `htcp_init`: zero the state (module parameters are kept).
    fn init(&mut self, tp: &mut TcpCcState) {
        *self = Htcp {
            opt: self.opt.clone(),
            last_cong: tp.now_us(),
            ..Htcp::default()
        };
    }

    /// `htcp_recalc_ssthresh`.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        self.htcp_param_update(tp.now_us());
        ((tp.snd_cwnd as u64 * self.beta as u64) >> 7).max(2) as u32
    }

    /// `htcp_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        if !tp.is_cwnd_limited {
            return;
        }
        if tp.in_slow_start() {
            tp.slow_start(acked);
        } else {
            // In dangerous area, increase slowly.
            // In theory this is tp->snd_cwnd += alpha / tp->snd_cwnd.
            if (tp.snd_cwnd_cnt as u64 * self.alpha as u64) >> 7 >= tp.snd_cwnd as u64 {
                if tp.snd_cwnd < tp.snd_cwnd_clamp {
                    tp.snd_cwnd += 1;
                }
                tp.snd_cwnd_cnt = 0;
                self.htcp_alpha_update(tp.now_us());
            } else {
                tp.snd_cwnd_cnt += self.pkts_acked;
            }
            self.pkts_acked = 1;
        }
    }

    /// `htcp_cwnd_undo`.
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        if let Some(last_cong) = self.undo_last_cong.take() {
            self.last_cong = last_cong;
            self.maxRTT = self.undo_maxRTT;
            self.old_maxB = self.undo_old_maxB;
        }
        // tcp_reno_undo_cwnd
        tp.snd_cwnd.max(tp.prior_cwnd)
    }

    /// `htcp_state`.
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        match new_state {
            CaState::Open => {
                if self.undo_last_cong.take().is_some() {
                    self.last_cong = tp.now_us();
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.htcp_reset(tp.now_us()),
            CaState::Disorder => {}
        }
    }

    /// `measure_achieved_throughput`.
    fn pkts_acked(&mut self, tp: &mut TcpCcState, sample: &AckSample) {
        self.measure_achieved_throughput(tp, sample);
    }

    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " htcp:(alpha:{},beta:{},minRTT:{}us,maxRTT:{}us,maxB:{})",
            self.alpha, self.beta, self.minRTT, self.maxRTT, self.maxB
        );
    }

    /// `alpha` (segments per RTT) and `beta` (the fraction kept at a loss), from their Q7
    /// fixed point, and the RTTs `beta` is made of.
    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 4] = [
            StateVar::num("alpha"),
            StateVar::num("beta"),
            StateVar::num("minRTT_s"),
            StateVar::num("maxRTT_s"),
        ];
        &V
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        use super::state::us_s;
        out[0] = self.alpha as f64 / ALPHA_BASE as f64;
        out[1] = self.beta as f64 / ALPHA_BASE as f64;
        out[2] = us_s(self.minRTT.into(), 0);
        out[3] = us_s(self.maxRTT.into(), 0);
    }
}

#[cfg(test)]
#[path = "htcp/tests.rs"]
mod tests;
