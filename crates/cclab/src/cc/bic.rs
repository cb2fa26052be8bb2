//! BIC-TCP: a port of modern Linux `net/ipv4/tcp_bic.c` (Stephen Hemminger; `bictcp_init`,
//! `bictcp_reset`, `bictcp_update`, `bictcp_cong_avoid`, `bictcp_recalc_ssthresh`,
//! `bictcp_state`, `bictcp_acked`, `.undo_cwnd = tcp_reno_undo_cwnd`), after Lisong Xu,
//! Khaled Harfoush, Injong Rhee, "Binary Increase Congestion Control (BIC) for Fast
//! Long-Distance Networks", IEEE INFOCOM 2004 (docs/references.md §3.4). Kernel state followed:
//! after "tcp: fix stretch ACK bugs in BIC" (Pengcheng Yang, net-next March 2020, v5.7):
//! slow start's leftover and the `acked` count go to `tcp_cong_avoid_ai`.
//!
//! `bictcp_update` sets `cnt` (acked segments per +1 segment), i.e. the per-RTT increment
//! cwnd/cnt: up to `low_window` = 14 Reno (cnt = cwnd); below W_max = `last_max_cwnd`
//! binary search towards the midpoint, dist = (W_max − cwnd)/B with B = 4, capped at
//! `max_increment` = 16 per RTT and slowed to B/`smooth_part` = 0.2 per RTT when dist ≤ 1;
//! at and above W_max max probing: 0.2 per RTT below W_max + B, (cwnd − W_max)/3 below
//! W_max + 48, then 16. Without a W_max (after an RTO) cnt ≤ 20 (≥ 5 % per RTT). Loss:
//! ssthresh = cwnd·819/1024 (cwnd/2 at or below `low_window`); fast convergence sets
//! W_max = cwnd·(1024 + 819)/2048 when the loss came below the previous W_max.
//! Integer arithmetic, constants and variable names are Linux's; windows are in segments.
//!
//! Linux behaviour kept on purpose (not deviations): cnt is divided by the `delayed_ack`
//! EWMA (packets per ACK <<4, init 2<<4, updated in `pkts_acked` only in the Open state),
//! although since the stretch-ACK fix `tcp_cong_avoid_ai` already counts acked segments.
//! The EWMA's integer truncation also stalls at 31 (not 16) with one segment per ACK, so
//! Linux BIC grows about twice the nominal BIC increment per RTT with per-segment ACKs
//! and with delayed ACKs alike (+31 and +32 per RTT where the paper says +16).
//!
//! Deviations from Linux (one per line):
//! - Clock: µs from `tp.now_us()` (Linux: jiffies); the cnt refresh interval is
//!   1 s/32 = 31 250 µs exactly (Linux `HZ / 32` jiffies: 31 ms at HZ = 1000).
//! - Times never wrap (no `(s32)` jiffies arithmetic); `epoch_start` 0 means "no epoch".
//! - Fast-convergence product in u64 (Linux's u32 `cwnd * 1843` wraps above 2.3 M segments).
//! - Module parameters are per-instance (`opt`, this module's `Options`), set from the scenario's keys (Linux: global
//!   `module_param`s).

use super::{AckSample, CaState, CongestionOps, TcpCcState};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// Scale factor for beta: `max_cwnd = snd_cwnd * beta / BICTCP_BETA_SCALE`.
pub const BICTCP_BETA_SCALE: u32 = 1024;
/// In binary search, go to point (max + min) / N.
pub const BICTCP_B: u32 = 4;
/// `delayed_ack` is the ratio of packets per ACK << ACK_RATIO_SHIFT.
pub const ACK_RATIO_SHIFT: u32 = 4;

/// `HZ / 32`: cnt is recomputed at least this often while cwnd is unchanged, µs.
const CNT_REFRESH_US: u64 = 1_000_000 / 32;

/// Linux `struct bictcp` plus the module parameters.
#[derive(Clone, Debug)]
pub struct Bic {
    /// The module parameters (`tcp_bic.c`'s, with its defaults).
    pub opt: Options,

    /// Increase cwnd by 1 after `cnt` ACKed segments.
    pub cnt: u32,
    /// Last maximum snd_cwnd (W_max).
    pub last_max_cwnd: u32,
    /// The last snd_cwnd seen by `bictcp_update`.
    pub last_cwnd: u32,
    /// Time when `last_cwnd` was updated, µs.
    pub last_time: u64,
    /// Beginning of an epoch, µs (0 = none).
    pub epoch_start: u64,
    /// Estimate of the ratio of packets per ACK, << ACK_RATIO_SHIFT.
    pub delayed_ack: u32,
}

impl Default for Bic {
    fn default() -> Self {
        Bic {
            opt: Options::default(),
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            epoch_start: 0,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
        }
    }
}

impl Bic {
    /// `bictcp_reset`.
    fn bictcp_reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.epoch_start = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }

    /// `bictcp_update`: compute the congestion window increment `cnt` for `cwnd` at time
    /// `now` (µs).
    pub fn bictcp_update(&mut self, cwnd: u32, now: u64) {
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= CNT_REFRESH_US {
            return;
        }

        self.last_cwnd = cwnd;
        self.last_time = now;

        if self.epoch_start == 0 {
            // Record the beginning of an epoch.
            self.epoch_start = now.max(1);
        }

        // Start off normal.
        if cwnd <= self.opt.low_window {
            self.cnt = cwnd;
            return;
        }

        // u32 products as in Linux (no overflow below 2^32 / 20 segments).
        if cwnd < self.last_max_cwnd {
            // Binary increase.
            let dist = (self.last_max_cwnd - cwnd) / BICTCP_B;
            if dist > self.opt.max_increment {
                // Linear increase.
                self.cnt = cwnd / self.opt.max_increment;
            } else if dist <= 1 {
                // Binary search increase.
                self.cnt = cwnd.wrapping_mul(self.opt.smooth_part) / BICTCP_B;
            } else {
                // Binary search increase.
                self.cnt = cwnd / dist;
            }
        } else {
            // Slow start AMD linear increase.
            if cwnd < self.last_max_cwnd + BICTCP_B {
                // Slow start.
                self.cnt = cwnd.wrapping_mul(self.opt.smooth_part) / BICTCP_B;
            } else if cwnd < self.last_max_cwnd + self.opt.max_increment * (BICTCP_B - 1) {
                // Slow start.
                self.cnt = cwnd.wrapping_mul(BICTCP_B - 1) / (cwnd - self.last_max_cwnd);
            } else {
                // Linear increase.
                self.cnt = cwnd / self.opt.max_increment;
            }
        }

        // If in slow start or link utilization is very low: increase cwnd ≥ 5 % per RTT.
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }

        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1);
        if self.cnt == 0 {
            // Cannot be zero.
            self.cnt = 1;
        }
    }
}

/// BIC's options: the module parameters of `tcp_bic.c`, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `fast_convergence` (default 1).
    pub fast_convergence: bool,
    /// `max_increment`: limit on increment allowed during binary search (default 16).
    pub max_increment: u32,
    /// `low_window`: lower bound on cwnd for TCP friendliness (default 14).
    pub low_window: u32,
    /// `beta` for multiplicative decrease, /1024 (default 819 ≈ 0.8).
    pub beta: u32,
    /// `initial_ssthresh` (default 0: leave the core's value).
    pub initial_ssthresh: u32,
    /// `smooth_part`: log(B/(B·Smin))/log(B/(B−1)) + B, number of RTTs from W_max − B to
    /// W_max (default 20).
    pub smooth_part: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            fast_convergence: true,
            max_increment: 16,
            low_window: 14,
            beta: 819,
            initial_ssthresh: 0,
            smooth_part: 20,
        }
    }
}

impl super::Configure for Bic {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        let o = &mut o.bic;
        ck.get_into(t, &OPTIONS.keys[0], &mut o.fast_convergence);
        ck.get_into(t, &OPTIONS.keys[1], &mut o.max_increment);
        ck.get_into(t, &OPTIONS.keys[2], &mut o.low_window);
        ck.get_into(t, &OPTIONS.keys[3], &mut o.beta);
        ck.get_into(t, &OPTIONS.keys[4], &mut o.initial_ssthresh);
        ck.get_into(t, &OPTIONS.keys[5], &mut o.smooth_part);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.opt = o.bic.clone();
    }
}

static OPTIONS: Schema = Schema {
    title: "BIC options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[
        Key {
            name: "bic_fast_convergence",
            ty: Ty::Bool,
            default: "`true`",
            allowed: "",
            meaning: "module parameter `fast_convergence` of `tcp_bic.c`: a loss below the previous W_max lowers W_max further, to cwnd·(1024 + beta)/2048",
        },
        Key {
            name: "max_increment",
            ty: Ty::Int(1, super::INT_MAX / 3),
            default: "`16`",
            allowed: "1 to 715827882 (`bictcp_update` divides by it and multiplies it by B − 1 = 3 in an `int`)",
            meaning: "module parameter `max_increment` of `tcp_bic.c`: the largest increase per RTT, in segments, of the binary search and of max probing (S_max)",
        },
        Key {
            name: "low_window",
            ty: Ty::Int(0, super::INT_MAX),
            default: "`14`",
            allowed: "",
            meaning: "module parameter `low_window` of `tcp_bic.c`, segments: at or below it BIC grows as Reno and halves on loss",
        },
        Key {
            name: "bic_beta",
            ty: Ty::Int(1, 1023),
            default: "`819`",
            allowed: "1 to 1023 (a decrease: below `BICTCP_BETA_SCALE` = 1024)",
            meaning: "module parameter `beta` of `tcp_bic.c`, /1024: ssthresh = cwnd·beta/1024 after a loss above `low_window` (819 ≈ 0.8)",
        },
        Key {
            name: "bic_initial_ssthresh",
            ty: Ty::Int(0, super::INT_MAX),
            default: "`0`",
            allowed: "",
            meaning: "module parameter `initial_ssthresh` of `tcp_bic.c`, segments: `bictcp_init` sets ssthresh to it (0: TCP's own `init_ssthresh`)",
        },
        Key {
            name: "smooth_part",
            ty: Ty::Int(0, super::INT_MAX),
            default: "`20`",
            allowed: "",
            meaning: "module parameter `smooth_part` of `tcp_bic.c`: within B = 4 segments of W_max cwnd grows B/smooth_part segments per RTT (20: 0.2)",
        },
    ],
    with: &[],
    variants: None,
};

impl CongestionOps for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    /// `bictcp_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.bictcp_reset();
        if self.opt.initial_ssthresh != 0 {
            tp.snd_ssthresh = self.opt.initial_ssthresh;
        }
    }

    /// `bictcp_recalc_ssthresh`: behave like Reno until `low_window` is reached, then
    /// decrease by beta; W_max with fast convergence.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        let cwnd = tp.snd_cwnd;
        self.epoch_start = 0; // end of epoch

        // Wmax and fast convergence.
        if cwnd < self.last_max_cwnd && self.opt.fast_convergence {
            self.last_max_cwnd = (cwnd as u64 * (BICTCP_BETA_SCALE + self.opt.beta) as u64
                / (2 * BICTCP_BETA_SCALE) as u64) as u32;
        } else {
            self.last_max_cwnd = cwnd;
        }

        if cwnd <= self.opt.low_window {
            (cwnd >> 1).max(2)
        } else {
            (cwnd.wrapping_mul(self.opt.beta) / BICTCP_BETA_SCALE).max(2)
        }
    }

    /// `bictcp_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        let Some(acked) = tp.ca_acked(acked) else {
            return;
        };
        self.bictcp_update(tp.snd_cwnd, tp.now_us());
        tp.cong_avoid_ai(self.cnt, acked);
    }

    /// `tcp_reno_undo_cwnd`.
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }

    /// `bictcp_state`: forget everything on entering Loss (RTO).
    fn set_state(&mut self, _tp: &mut TcpCcState, new_state: CaState) {
        if new_state == CaState::Loss {
            self.bictcp_reset();
        }
    }

    /// `bictcp_acked`: track the delayed-ACK ratio with a sliding window,
    /// ratio = (15·ratio + sample) / 16.
    fn pkts_acked(&mut self, tp: &mut TcpCcState, sample: &AckSample) {
        if tp.ca_state == CaState::Open {
            self.delayed_ack = self
                .delayed_ack
                .wrapping_add(sample.pkts_acked)
                .wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
        }
    }

    /// Linux bic has no `.get_info`; a compact view of the state for debugging.
    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " bic:(wmax:{},cnt:{},delayed_ack:{})",
            self.last_max_cwnd, self.cnt, self.delayed_ack
        );
    }

    /// W_max (`last_max_cwnd`).
    fn state_vars(&self) -> &'static [super::StateVar] {
        static V: [super::StateVar; 1] = [super::StateVar::num("last_max_cwnd")];
        &V
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        out[0] = self.last_max_cwnd as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    fn ack(pkts: u32) -> AckSample {
        AckSample {
            pkts_acked: pkts,
            rtt_us: 100_000,
            in_flight: 0,
            ..Default::default()
        }
    }

    /// BIC in congestion avoidance at `cwnd` with W_max = `last_max`; `delayed_ack` =
    /// 16 means exactly one packet per ACK (cnt unscaled).
    fn in_ca(last_max: u32, cwnd: u32, delayed_ack: u32) -> (Bic, TcpCcState) {
        let mut tp = TcpCcState::new(1448, 10, 2);
        let mut b = Bic::default();
        b.init(&mut tp);
        b.last_max_cwnd = last_max;
        b.delayed_ack = delayed_ack;
        tp.snd_cwnd = cwnd;
        tp.now = 1000 * MS;
        (b, tp)
    }

    /// One RTT of 100 ms: the window at its start acked with `per_ack` segments per ACK,
    /// ACKs evenly spaced; `ewma`: call `pkts_acked` first, as the TCP core does.
    fn one_rtt(b: &mut Bic, tp: &mut TcpCcState, per_ack: u32, ewma: bool) -> u32 {
        let w = tp.snd_cwnd;
        let n = (w / per_ack) as u64;
        for _ in 0..n {
            tp.now += 100 * MS / n;
            if ewma {
                b.pkts_acked(tp, &ack(per_ack));
            }
            b.cong_avoid(tp, per_ack);
        }
        tp.snd_cwnd - w
    }

    fn cnt_for(last_max: u32, cwnd: u32, delayed_ack: u32) -> u32 {
        let mut b = Bic {
            last_max_cwnd: last_max,
            delayed_ack,
            ..Bic::default()
        };
        b.bictcp_update(cwnd, 1_000_000);
        b.cnt
    }

    /// cnt in every region, exact integer results of `bictcp_update` with
    /// delayed_ack = 16 (ratio 1.0), and with the initial 2<<4 (cnt halved).
    #[test]
    fn cnt_by_region() {
        for (last_max, cwnd, cnt, why) in [
            (
                1000,
                900,
                56,
                "binary search, dist 25 > 16: cwnd/16, +16/RTT",
            ),
            (1000, 936, 58, "dist 16 (not > 16): cwnd/dist"),
            (1000, 980, 196, "dist 5: +5/RTT"),
            (1000, 990, 495, "dist 10/4 = 2 (integer): +2/RTT"),
            (1000, 996, 4980, "dist 1: smooth, cwnd·20/4, +0.2/RTT"),
            (1000, 1000, 5000, "at W_max: +0.2/RTT"),
            (1000, 1003, 5015, "below W_max + B: +0.2/RTT"),
            (1000, 1004, 753, "max probing: +(cwnd − W_max)/3 = 1.33/RTT"),
            (1000, 1010, 303, "max probing: +3.33/RTT"),
            (1000, 1047, 66, "max probing: +15.7/RTT"),
            (1000, 1048, 65, "W_max + 48: linear, cwnd/16"),
            (1000, 5000, 312, "linear: cwnd/16"),
            (1000, 14, 14, "low window: Reno"),
            (0, 14, 14, "low window: Reno"),
            (1000, 15, 1, "15/16 = 0 → 1: +1 per ACK"),
            (0, 100, 6, "no W_max, ≥ W_max + 48: cwnd/16"),
            (0, 500, 20, "no W_max: cnt capped at 20 (5 %/RTT)"),
            (0, 20, 3, "no W_max, W_max + 4 ≤ cwnd < W_max + 48: 20·3/20"),
        ] {
            assert_eq!(cnt_for(last_max, cwnd, 16), cnt, "{last_max}/{cwnd}: {why}");
        }
        // Initial delayed_ack = 2<<4: cnt·16/32, but not in the Reno region.
        assert_eq!(Bic::default().delayed_ack, 32);
        assert_eq!(cnt_for(1000, 900, 32), 28);
        assert_eq!(cnt_for(1000, 990, 32), 247);
        assert_eq!(cnt_for(1000, 14, 32), 14);
        assert_eq!(cnt_for(0, 500, 32), 10);
        assert_eq!(cnt_for(1000, 15, 32), 1);
        // Three segments per ACK (48): a third.
        assert_eq!(cnt_for(1000, 900, 48), 18);
    }

    /// Per-RTT growth with one segment per ACK and ratio 1.0 (delayed_ack = 16), exact:
    /// binary search far from W_max +16, near it +dist, max probing +(cwnd − W_max)/3
    /// rising to +16, Reno at the low window.
    #[test]
    fn per_rtt_growth_by_region() {
        for (last_max, cwnd, want) in [
            (1000, 900, vec![16, 16, 14]),
            (1000, 980, vec![4, 3, 2]),
            (1000, 990, vec![2, 1, 0]),
            (1000, 1010, vec![3, 6, 7]),
            (1000, 1048, vec![16, 16, 16]),
            (0, 100, vec![16, 16, 16]),
            (100, 14, vec![1, 15, 14]),
        ] {
            let (mut b, mut tp) = in_ca(last_max, cwnd, 16);
            let got: Vec<u32> = (0..3).map(|_| one_rtt(&mut b, &mut tp, 1, false)).collect();
            assert_eq!(got, want, "W_max {last_max}, cwnd {cwnd}");
        }
        // 0.2 per RTT on the plateau: 1002 → 1003 in 5 RTTs, 1004 in 10 (exact).
        let (mut b, mut tp) = in_ca(1000, 1002, 16);
        let got: Vec<u32> = (0..10)
            .map(|_| one_rtt(&mut b, &mut tp, 1, false))
            .collect();
        assert_eq!(got, [0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    }

    /// A whole epoch after a loss at W_max = 1000 (ssthresh 799), ratio 1.0: +16 per RTT
    /// (linear) until within 64 of W_max, then shrinking steps (binary search), a plateau
    /// just below W_max at 0.2 per RTT (`smooth_part` = 20 RTTs per B = 4 segments),
    /// then accelerating again above W_max + 4 (max probing).
    #[test]
    fn epoch_shape_linear_binary_search_plateau_probing() {
        let (mut b, mut tp) = in_ca(0, 1000, 16);
        let ss = b.ssthresh(&mut tp);
        assert_eq!((ss, b.last_max_cwnd), (799, 1000));
        tp.snd_cwnd = ss;
        tp.snd_ssthresh = ss;
        let mut traj = vec![tp.snd_cwnd];
        for _ in 0..120 {
            one_rtt(&mut b, &mut tp, 1, false);
            traj.push(tp.snd_cwnd);
        }
        let inc: Vec<u32> = traj.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(inc[..8].iter().all(|&i| i == 16), "{inc:?}");
        assert_eq!(traj[8], 927);
        // Concave: non-increasing steps while below W_max.
        let below: Vec<u32> = (0..inc.len())
            .filter(|&i| traj[i] < 993)
            .map(|i| inc[i])
            .collect();
        assert!(below.windows(2).all(|w| w[1] <= w[0]), "{below:?}");
        // Plateau: from 993 (dist 1) to 1004 at one segment per 5 RTTs (±1 RTT each).
        let first = |c: u32| traj.iter().position(|&w| w >= c).unwrap();
        assert_eq!(first(993), 18);
        let plateau = first(1004) - first(993);
        assert!((50..=56).contains(&plateau), "plateau {plateau} RTTs");
        // Convex above W_max + B: steps grow back to 16.
        let i = first(1004);
        assert!(inc[i..].windows(2).all(|w| w[1] >= w[0]), "{:?}", &inc[i..]);
        assert_eq!(*inc.last().unwrap(), 16);
    }

    /// Linux's delayed_ack EWMA: from 2<<4 it settles at 31 with one segment per ACK and
    /// at 32 with two (integer truncation), so cnt is about halved either way and, since
    /// `tcp_cong_avoid_ai` also counts acked segments, growth is ≈ twice the nominal
    /// +16/RTT in the linear region (exact: +31 and +32 in the first RTT at 900/1000).
    #[test]
    fn delayed_ack_ewma_and_its_effect() {
        let mut tp = TcpCcState::new(1448, 10, 2);
        let mut b = Bic::default();
        b.init(&mut tp);
        b.pkts_acked(&mut tp, &ack(1));
        assert_eq!(b.delayed_ack, 31); // 32 + 1 − 2
        for _ in 0..100 {
            b.pkts_acked(&mut tp, &ack(1));
        }
        assert_eq!(b.delayed_ack, 31); // 31 + 1 − 1
        for _ in 0..100 {
            b.pkts_acked(&mut tp, &ack(2));
        }
        assert_eq!(b.delayed_ack, 32);
        // From below (e.g. 16) it rises to 16·p: 16 → 48 with three per ACK.
        b.delayed_ack = 16;
        for _ in 0..200 {
            b.pkts_acked(&mut tp, &ack(3));
        }
        assert_eq!(b.delayed_ack, 48);
        // Only in the Open state.
        tp.ca_state = CaState::Recovery;
        b.pkts_acked(&mut tp, &ack(10));
        assert_eq!(b.delayed_ack, 48);

        for (per_ack, want, ratio) in [(1, 31, 31), (2, 32, 32)] {
            let (mut b, mut tp) = in_ca(1000, 900, 32);
            assert_eq!(one_rtt(&mut b, &mut tp, per_ack, true), want);
            assert_eq!(b.delayed_ack, ratio);
        }
    }

    /// ssthresh: cwnd·819/1024 above low_window, halving at or below; fast convergence.
    #[test]
    fn ssthresh_and_fast_convergence() {
        for (cwnd, want) in [(1000, 799), (100, 79), (15, 11), (14, 7), (5, 2), (3, 2)] {
            let (mut b, mut tp) = in_ca(0, cwnd, 16);
            assert_eq!(b.ssthresh(&mut tp), want, "cwnd {cwnd}");
            assert_eq!(b.last_max_cwnd, cwnd);
        }
        // Loss below the previous W_max: W_max = cwnd·(1024 + 819)/2048 = 900·1843/2048.
        let (mut b, mut tp) = in_ca(1000, 900, 16);
        b.epoch_start = 5;
        assert_eq!(b.ssthresh(&mut tp), 719);
        assert_eq!(b.last_max_cwnd, 809);
        assert_eq!(b.epoch_start, 0);
        // At or above W_max: W_max = cwnd.
        let (mut b, mut tp) = in_ca(1000, 1000, 16);
        b.ssthresh(&mut tp);
        assert_eq!(b.last_max_cwnd, 1000);
        // Fast convergence off.
        let (mut b, mut tp) = in_ca(1000, 900, 16);
        b.opt.fast_convergence = false;
        b.ssthresh(&mut tp);
        assert_eq!(b.last_max_cwnd, 900);
        // No u32 overflow at huge windows.
        let (mut b, mut tp) = in_ca(4_000_000, 3_000_000, 16);
        b.ssthresh(&mut tp);
        assert_eq!(b.last_max_cwnd, 2_699_707);
    }

    /// cnt is not recomputed while cwnd is unchanged for up to 1/32 s.
    #[test]
    fn cnt_refresh_interval() {
        let mut b = Bic {
            last_max_cwnd: 1000,
            delayed_ack: 16,
            ..Bic::default()
        };
        b.bictcp_update(900, 1_000_000);
        assert_eq!(b.cnt, 56);
        b.last_max_cwnd = 0;
        b.bictcp_update(900, 1_031_250);
        assert_eq!(b.cnt, 56, "within 31.25 ms: unchanged");
        b.bictcp_update(900, 1_031_251);
        assert_eq!(b.cnt, 20, "refreshed");
        b.last_max_cwnd = 1000;
        b.bictcp_update(901, 1_031_252);
        assert_eq!(b.cnt, 56, "cwnd changed: refreshed at once");
        assert_eq!(b.epoch_start, 1_000_000);
    }

    /// RTO resets everything (W_max, delayed_ack); other states do not; undo is Reno's.
    #[test]
    fn loss_state_reset_and_undo() {
        let (mut b, mut tp) = in_ca(1000, 900, 20);
        b.cong_avoid(&mut tp, 1);
        b.set_state(&mut tp, CaState::Recovery);
        assert_eq!((b.last_max_cwnd, b.delayed_ack), (1000, 20));
        b.set_state(&mut tp, CaState::Loss);
        assert_eq!(
            (
                b.cnt,
                b.last_max_cwnd,
                b.last_cwnd,
                b.last_time,
                b.epoch_start
            ),
            (0, 0, 0, 0, 0)
        );
        assert_eq!(b.delayed_ack, 32);
        tp.snd_cwnd = 1;
        tp.prior_cwnd = 900;
        assert_eq!(b.undo_cwnd(&mut tp), 900);
        tp.snd_cwnd = 950;
        assert_eq!(b.undo_cwnd(&mut tp), 950);
    }

    /// Slow start is Reno's; the leftover of the crossing ACK feeds BIC (stretch-ACK fix);
    /// no growth when not cwnd-limited; initial_ssthresh applies at init.
    #[test]
    fn slow_start_leftover_and_init() {
        let mut tp = TcpCcState::new(1448, 10, 12);
        let mut b = Bic::default();
        b.init(&mut tp);
        assert_eq!(tp.snd_ssthresh, 12, "initial_ssthresh 0 leaves it");
        b.cong_avoid(&mut tp, 1);
        assert_eq!((tp.snd_cwnd, b.last_cwnd), (11, 0));
        b.cong_avoid(&mut tp, 4);
        // cwnd 12 ≤ low_window: cnt = 12, 3 credits.
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt, b.cnt), (12, 3, 12));
        tp.is_cwnd_limited = false;
        b.cong_avoid(&mut tp, 50);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (12, 3));

        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut b = Bic {
            opt: Options {
                initial_ssthresh: 100,
                ..Options::default()
            },
            ..Bic::default()
        };
        b.init(&mut tp);
        assert_eq!(tp.snd_ssthresh, 100);
        assert_eq!(b.name(), "bic");
    }

    /// A BIC configured from its options, as a scenario's keys make it.
    fn configured(set: impl FnOnce(&mut Options)) -> Bic {
        crate::cc::configured(|o| set(&mut o.bic))
    }

    /// `max_increment = 8` caps the increase at 8 segments per RTT (16 by default): far
    /// below W_max (dist 25 > 8) cnt = cwnd/8 = 112, and one RTT of one-segment ACKs at
    /// ratio 1.0 adds 8 (exact, as `per_rtt_growth_by_region`'s +16).
    #[test]
    fn max_increment_option_caps_growth() {
        for (max_increment, cnt, growth) in [(16, 56, 16), (8, 112, 8)] {
            let (mut b, mut tp) = in_ca(1000, 900, 16);
            b.opt.max_increment = max_increment;
            b.bictcp_update(900, tp.now_us());
            assert_eq!(b.cnt, cnt, "max_increment {max_increment}");
            b.last_time = 0; // recompute on the first ACK, as in_ca leaves it
            assert_eq!(one_rtt(&mut b, &mut tp, 1, false), growth);
        }
    }

    /// `bic_beta = 512`: ssthresh = cwnd·512/1024 = cwnd/2 above `low_window`, and fast
    /// convergence W_max = cwnd·1536/2048; `low_window = 100` makes a loss at cwnd 100
    /// halve as Reno (beta not used) and keeps cnt = cwnd (Reno) at 100. Exact.
    #[test]
    fn beta_and_low_window_options() {
        let mut b = configured(|o| o.beta = 512);
        let mut tp = TcpCcState::new(1448, 10, 10);
        b.init(&mut tp);
        tp.snd_cwnd = 1000;
        assert_eq!(b.ssthresh(&mut tp), 500);
        tp.snd_cwnd = 900;
        assert_eq!(b.ssthresh(&mut tp), 450);
        assert_eq!(b.last_max_cwnd, 900 * 1536 / 2048);

        let mut b = configured(|o| o.low_window = 100);
        tp.snd_cwnd = 100;
        assert_eq!(b.ssthresh(&mut tp), 50);
        b.delayed_ack = 16;
        b.bictcp_update(100, 1_000_000);
        assert_eq!(b.cnt, 100);
        let mut b = Bic::default();
        assert_eq!(b.ssthresh(&mut tp), 79);
    }

    /// `smooth_part = 40` halves the plateau's growth: cnt = cwnd·40/4 at W_max (0.1
    /// segment per RTT; 20: 0.2). Exact.
    #[test]
    fn smooth_part_option_sets_the_plateau() {
        for (smooth_part, cnt) in [(20, 5000), (40, 10_000)] {
            let mut b = configured(|o| o.smooth_part = smooth_part);
            b.last_max_cwnd = 1000;
            b.delayed_ack = 16;
            b.bictcp_update(1000, 1_000_000);
            assert_eq!(b.cnt, cnt, "smooth_part {smooth_part}");
        }
    }
}
