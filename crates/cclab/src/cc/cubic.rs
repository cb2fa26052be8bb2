//! CUBIC v2.3 with HyStart: a port of Linux `net/ipv4/tcp_cubic.c` (`cubictcp_init`,
//! `cubictcp_recalc_ssthresh`, `cubictcp_cong_avoid`, `bictcp_update`, `cubic_root`,
//! `cubictcp_state`, `cubictcp_cwnd_event`, `cubictcp_acked`, `hystart_update`), checked
//! against RFC 9438 (REFERENCE.md §3.5). Integer arithmetic, scaling and variable names are
//! Linux's; windows are in segments. Kernel state followed: 6.13+, i.e. including
//! 4e1fddc98d25 (5.16: HyStart round reset moved from cong_avoid into `hystart_update`,
//! driven by `snd_una` past `end_seq`), the Aug 2024 "switch ca->last_time to usec
//! resolution" and the Jan 2025 fix that resets the round before the `hystart_low_window`
//! check. HyStart++ (RFC 9406) is not in Linux and not here.
//!
//! Deviations from Linux (one per line):
//! - Clock: u64 µs from `tp.now_us()` (Linux: jiffies for `epoch_start`), as in bpf_cubic.c.
//! - Times never wrap (no 32-bit `after()`/`(s32)` arithmetic); a timestamp of 0 means "unset".
//! - The Reno-friendly `while (ack_cnt > delta)` loop is computed in closed form (same result).
//! - TX_START: no `tp->lsndtime` in `TcpCcState`; last send = newest acked segment's send time.
//! - HyStart ACK train: no pacing/TSO, so `hystart_ack_delay()` = 0, threshold = delay_min/2.
//! - Module parameters are per-instance fields; `beta`, `bic_scale` and derived scales are consts.

use super::{AckSample, CaEvent, CaState, CongestionOps, TcpCcState};

/// Scale factor for beta: `max_cwnd = snd_cwnd * beta / BICTCP_BETA_SCALE`.
const BICTCP_BETA_SCALE: u32 = 1024;
/// BIC HZ: 2^10 = 1024 ticks per second for `bic_K` and `t`.
const BICTCP_HZ: u32 = 10;

/// HyStart detection methods (`hystart_detect` bits).
pub const HYSTART_ACK_TRAIN: u8 = 0x1;
pub const HYSTART_DELAY: u8 = 0x2;

/// Number of delay samples for detecting the increase of delay.
const HYSTART_MIN_SAMPLES: u8 = 8;
/// Delay-increase threshold clamp, microseconds (4 ms .. 16 ms).
const HYSTART_DELAY_MIN: u32 = 4000;
const HYSTART_DELAY_MAX: u32 = 16000;

/// `beta = 717` (/1024 ≈ 0.7).
const BETA: u32 = 717;
/// `bic_scale = 41`: C = 41 * 10 / 1024 ≈ 0.4.
const BIC_SCALE: u32 = 41;
/// HyStart only acts once cwnd ≥ this.
const HYSTART_LOW_WINDOW: u32 = 16;
/// Spacing between ACKs indicating a train, µs.
const HYSTART_ACK_DELTA_US: u64 = 2000;

const USEC_PER_SEC: u64 = 1_000_000;
const USEC_PER_MSEC: u64 = 1_000;

/// Precomputed as in `cubictcp_register`.
/// `beta_scale = 8 * (1024 + beta) / 3 / (1024 - beta)` (= 15).
const BETA_SCALE: u32 = 8 * (BICTCP_BETA_SCALE + BETA) / 3 / (BICTCP_BETA_SCALE - BETA);
/// `cube_rtt_scale = bic_scale * 10` (1024 * c / rtt with rtt = 100 ms).
const CUBE_RTT_SCALE: u32 = BIC_SCALE * 10;
/// `cube_factor = 2^(10 + 3 * BICTCP_HZ) / (bic_scale * 10)`.
const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE as u64 * 10);

/// `HYSTART_DELAY_THRESH(x)`.
fn hystart_delay_thresh(x: u32) -> u32 {
    x.clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX)
}

/// `fls64`: 1-based index of the most significant set bit, 0 for 0.
fn fls64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// Linux `cubic_root`: cube root by a table lookup followed by one Newton-Raphson step
/// (average error ≈ 0.195%). The `u32` wrapping mirrors the C arithmetic.
pub fn cubic_root(a: u64) -> u32 {
    // cbrt(x) MSB values for x MSB values in [0..63] (Willy Tarreau):
    //   v = cbrt(x << 18) - 1, cbrt(x) = (v[x] + 10) >> 6.
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, //
        123, 129, 134, 138, 143, 147, 151, 156, //
        157, 161, 164, 168, 170, 173, 176, 179, //
        181, 185, 187, 190, 192, 194, 197, 199, //
        200, 202, 204, 206, 209, 211, 213, 215, //
        217, 219, 221, 222, 224, 225, 227, 229, //
        231, 232, 234, 236, 237, 239, 240, 242, //
        244, 245, 246, 248, 250, 251, 252, 254, //
    ];

    let b = fls64(a);
    if b < 7 {
        // a in [0..63]
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let mut x: u32 = ((V[shift] as u32 + 10) << b) >> 6;

    // Newton-Raphson: x_{k+1} = (2 * x_k + a / x_k^2) / 3, with x(x-1) for x^2 and
    // 341/1024 for 1/3 as in Linux.
    let q = a / (x as u64 * (x as u64 - 1));
    x = x.wrapping_mul(2).wrapping_add(q as u32);
    x.wrapping_mul(341) >> 10
}

/// Linux `struct bictcp` plus the module parameters that are switches.
#[derive(Clone, Debug)]
#[allow(non_snake_case)] // `bic_K` keeps Linux's name
pub struct Cubic {
    /// Module parameter `hystart` (Linux default 1).
    pub hystart: bool,
    /// Module parameter `hystart_detect`: `HYSTART_ACK_TRAIN | HYSTART_DELAY` by default.
    pub hystart_detect: u8,
    /// Module parameter `fast_convergence` (Linux default 1).
    pub fast_convergence: bool,
    /// Module parameter `tcp_friendliness` (Linux default 1).
    pub tcp_friendliness: bool,
    /// Module parameter `initial_ssthresh` (0 = leave the core's value); only used
    /// when HyStart is off, as in Linux.
    pub initial_ssthresh: u32,

    /// Increase cwnd by 1 after `cnt` ACKed segments.
    pub cnt: u32,
    /// Last maximum snd_cwnd (W_max).
    pub last_max_cwnd: u32,
    /// The last snd_cwnd seen by `bictcp_update`.
    pub last_cwnd: u32,
    /// Time when `last_cwnd` was updated, µs.
    pub last_time: u64,
    /// Origin point of the cubic function (W_max of the epoch).
    pub bic_origin_point: u32,
    /// Time from the start of the epoch to the origin point, in 1/1024 s.
    pub bic_K: u32,
    /// Min delay, µs (0 = none yet).
    pub delay_min: u32,
    /// Beginning of the epoch, µs (0 = no epoch).
    pub epoch_start: u64,
    /// Number of ACKed segments (for the Reno-friendly estimate).
    pub ack_cnt: u32,
    /// Estimated Reno cwnd.
    pub tcp_cwnd: u32,
    /// HyStart: number of samples to decide `curr_rtt`.
    pub sample_cnt: u8,
    /// HyStart: the exit point is found.
    pub found: bool,
    /// HyStart: beginning of the round, µs.
    pub round_start: u64,
    /// HyStart: `snd_nxt` at the start of the round.
    pub end_seq: u64,
    /// HyStart: last time the ACK spacing was close, µs.
    pub last_ack: u64,
    /// HyStart: minimum RTT of the current round, µs.
    pub curr_rtt: u32,

    /// Stand-in for `tp->lsndtime` (µs), see the deviations above.
    lsndtime: u64,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            hystart: true,
            hystart_detect: HYSTART_ACK_TRAIN | HYSTART_DELAY,
            fast_convergence: true,
            tcp_friendliness: true,
            initial_ssthresh: 0,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_K: 0,
            delay_min: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            sample_cnt: 0,
            found: false,
            round_start: 0,
            end_seq: 0,
            last_ack: 0,
            curr_rtt: u32::MAX,
            lsndtime: 0,
        }
    }
}

/// Never let a recorded timestamp be 0, which means "unset".
fn stamp(now_us: u64) -> u64 {
    now_us.max(1)
}

impl Cubic {
    /// `bictcp_reset`: zero the `struct bictcp` fields before `unused`, and `found`.
    fn bictcp_reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_K = 0;
        self.delay_min = 0;
        self.epoch_start = 0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
    }

    /// `bictcp_hystart_reset`: start a new HyStart round.
    fn bictcp_hystart_reset(&mut self, tp: &TcpCcState) {
        let now = tp.now_us();
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// `bictcp_update`: compute `cnt`, the number of ACKed segments per cwnd increment.
    fn bictcp_update(&mut self, tp: &TcpCcState, cwnd: u32, acked: u32) {
        let now = tp.now_us();
        self.ack_cnt = self.ack_cnt.wrapping_add(acked); // count the number of ACKed packets

        let elapsed = now.saturating_sub(self.last_time);
        if self.last_cwnd == cwnd && elapsed <= USEC_PER_SEC / 32 {
            return;
        }

        // The CUBIC function can update cnt at most once per ms. On all cwnd reduction
        // events epoch_start is set to 0, which forces a recalculation of cnt.
        if !(self.epoch_start != 0 && elapsed < USEC_PER_MSEC) {
            self.last_cwnd = cwnd;
            self.last_time = now;

            if self.epoch_start == 0 {
                self.epoch_start = stamp(now); // record beginning
                self.ack_cnt = acked; // start counting
                self.tcp_cwnd = cwnd; // sync with cubic

                if self.last_max_cwnd <= cwnd {
                    self.bic_K = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    // K = cubic_root((wmax - cwnd) * rtt / c * 2^(3 * BICTCP_HZ)).
                    self.bic_K =
                        cubic_root(CUBE_FACTOR.wrapping_mul((self.last_max_cwnd - cwnd) as u64));
                    self.bic_origin_point = self.last_max_cwnd;
                }
            }

            // t = elapsed time in the epoch plus delay_min (the target is one RTT ahead),
            // µs as in bpf_cubic.c (Linux: jiffies + usecs_to_jiffies(delay_min)),
            // then converted to BICTCP_HZ units.
            let mut t: u64 = now.saturating_sub(self.epoch_start) + self.delay_min as u64;
            t <<= BICTCP_HZ;
            t /= USEC_PER_SEC;

            let k = self.bic_K as u64;
            let offs = t.abs_diff(k);

            // c/rtt * (t - K)^3; no overflow for cwnd < 1 million packets.
            let delta = ((CUBE_RTT_SCALE as u64)
                .wrapping_mul(offs)
                .wrapping_mul(offs)
                .wrapping_mul(offs)
                >> (10 + 3 * BICTCP_HZ)) as u32;
            let bic_target = if t < k {
                self.bic_origin_point.wrapping_sub(delta) // below origin
            } else {
                self.bic_origin_point.wrapping_add(delta) // above origin
            };

            if bic_target > cwnd {
                self.cnt = cwnd / (bic_target - cwnd);
            } else {
                self.cnt = cwnd.wrapping_mul(100); // very small increment
            }

            // The initial growth of the cubic function may be too conservative when the
            // available bandwidth is still unknown: at least 5% per RTT.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }

        // tcp_friendliness: emulate Reno with alpha = 3(1 - beta)/(1 + beta).
        if self.tcp_friendliness {
            let delta = (cwnd.wrapping_mul(BETA_SCALE)) >> 3;
            // Linux: while (ack_cnt > delta) { ack_cnt -= delta; tcp_cwnd++; }
            if delta > 0 && self.ack_cnt > delta {
                let n = (self.ack_cnt - 1) / delta;
                self.ack_cnt -= n * delta;
                self.tcp_cwnd = self.tcp_cwnd.wrapping_add(n);
            }
            if self.tcp_cwnd > cwnd {
                // CUBIC is slower than Reno.
                let delta = self.tcp_cwnd - cwnd;
                let max_cnt = cwnd / delta;
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }

        // At most 1 packet per 2 ACKed, i.e. cwnd grows at most 1.5x per RTT.
        self.cnt = self.cnt.max(2);
    }

    /// `hystart_update`: look for the slow-start exit point (ACK train or delay increase).
    fn hystart_update(&mut self, tp: &mut TcpCcState, delay: u32) {
        if tp.snd_una > self.end_seq {
            self.bictcp_hystart_reset(tp);
        }

        // HyStart triggers when cwnd is larger than some threshold.
        if tp.snd_cwnd < HYSTART_LOW_WINDOW {
            return;
        }

        if self.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now = tp.now_us();
            // First detection parameter: ACK-train detection.
            if now.saturating_sub(self.last_ack) <= HYSTART_ACK_DELTA_US {
                self.last_ack = now;
                // delay_min + hystart_ack_delay() (0: no TSO/GRO), halved because the
                // sender does not pace (SK_PACING_NONE): trigger past delay_min / 2.
                let threshold = self.delay_min as u64 >> 1;
                if now.saturating_sub(self.round_start) > threshold {
                    self.found = true;
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
            }
        }

        if self.hystart_detect & HYSTART_DELAY != 0 {
            // Obtain the minimum delay of more than sampling packets.
            if self.curr_rtt > delay {
                self.curr_rtt = delay;
            }
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else if self.curr_rtt as u64
                > self.delay_min as u64 + hystart_delay_thresh(self.delay_min >> 3) as u64
            {
                self.found = true;
                tp.snd_ssthresh = tp.snd_cwnd;
            }
        }
    }
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// `cubictcp_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.bictcp_reset();
        if self.hystart {
            self.bictcp_hystart_reset(tp);
        }
        if !self.hystart && self.initial_ssthresh != 0 {
            tp.snd_ssthresh = self.initial_ssthresh;
        }
    }

    /// `cubictcp_recalc_ssthresh`: W_max with fast convergence, ssthresh = cwnd * beta.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        let cwnd = tp.snd_cwnd;
        self.epoch_start = 0; // end of epoch

        // Wmax and fast convergence.
        if cwnd < self.last_max_cwnd && self.fast_convergence {
            self.last_max_cwnd = ((cwnd as u64 * (BICTCP_BETA_SCALE + BETA) as u64)
                / (2 * BICTCP_BETA_SCALE) as u64) as u32;
        } else {
            self.last_max_cwnd = cwnd;
        }
        ((cwnd as u64 * BETA as u64 / BICTCP_BETA_SCALE as u64) as u32).max(2)
    }

    /// `cubictcp_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        let Some(acked) = tp.ca_acked(acked) else {
            return;
        };
        let cwnd = tp.snd_cwnd;
        self.bictcp_update(tp, cwnd, acked);
        tp.cong_avoid_ai(self.cnt, acked);
    }

    /// `cubictcp_state`: reset everything on entering Loss (RTO).
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if new_state == CaState::Loss {
            self.bictcp_reset();
            self.bictcp_hystart_reset(tp);
        }
    }

    /// `cubictcp_cwnd_event`: after an idle (application-limited) period, shift
    /// `epoch_start` by the idle time to keep cwnd growth on the cubic curve.
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        if ev == CaEvent::TxStart {
            let now = tp.now_us();
            let delta = now.saturating_sub(self.lsndtime);
            if self.epoch_start != 0 && self.lsndtime != 0 && delta > 0 {
                self.epoch_start += delta;
                if self.epoch_start > now {
                    self.epoch_start = stamp(now);
                }
            }
        }
    }

    /// `cubictcp_acked`: track `delay_min` and run HyStart in slow start.
    fn pkts_acked(&mut self, tp: &mut TcpCcState, sample: &AckSample) {
        // Stand-in for tp->lsndtime: send time of the newest segment this ACK covers.
        let now = tp.now_us();
        let sent = if sample.rtt_us >= 0 {
            now.saturating_sub(sample.rtt_us as u64)
        } else {
            now
        };
        self.lsndtime = self.lsndtime.max(stamp(sent));

        // Some calls are for duplicates without timestamps.
        if sample.rtt_us < 0 {
            return;
        }

        // Discard delay samples right after fast recovery (first second of an epoch).
        if self.epoch_start != 0 && now.saturating_sub(self.epoch_start) < USEC_PER_SEC {
            return;
        }

        let delay = (sample.rtt_us.min(u32::MAX as i64) as u32).max(1);

        // First call or link delay decreases.
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }

        if !self.found && tp.in_slow_start() && self.hystart {
            self.hystart_update(tp, delay);
        }
    }

    /// Linux cubic has no `.get_info`; a compact view of the cubic state for debugging.
    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " cubic:(wmax:{},K:{}ms,cnt:{},delay_min:{}us{})",
            self.last_max_cwnd,
            self.bic_K as u64 * 1000 / 1024,
            self.cnt,
            self.delay_min,
            if self.found { ",hystart_found" } else { "" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC, US};

    fn ack(rtt_us: i64) -> AckSample {
        AckSample {
            pkts_acked: 1,
            rtt_us,
            in_flight: 0,
        }
    }

    /// Linux's table + one Newton step against f64 `cbrt`. The result is an integer, so for
    /// small `a` the error is the truncation (< 1 absolute). Tolerances (all verified):
    /// exact at the perfect cubes k³ for k = 1..=344 (Linux's first inexact cube is 345³);
    /// |error| < 1 for every a < 2^21; relative error < 1% for a ≥ 2^21; and over the inputs
    /// CUBIC actually uses, a = cube_factor·(W_max − cwnd) ≥ 2.68e9, max relative error < 0.2%
    /// and mean < 0.1% (Linux quotes an average of 0.195%).
    #[test]
    fn cubic_root_matches_cbrt() {
        for k in 1..=344u64 {
            assert_eq!(cubic_root(k * k * k), k as u32, "cube of {k}");
        }
        assert_ne!(cubic_root(345 * 345 * 345), 345);
        for a in 0..(1u64 << 21) {
            let err = cubic_root(a) as f64 - (a as f64).cbrt();
            assert!(err.abs() < 1.0, "cubic_root({a}) = {}", cubic_root(a));
        }
        let sweep = |from: f64, step: f64| {
            let (mut max_rel, mut sum, mut n) = (0.0f64, 0.0, 0);
            let mut a = from;
            while a < (1u64 << 62) as f64 {
                let exact = (a as u64 as f64).cbrt();
                let rel = (cubic_root(a as u64) as f64 - exact).abs() / exact;
                max_rel = max_rel.max(rel);
                sum += rel;
                n += 1;
                a *= step;
            }
            (max_rel, sum / n as f64)
        };
        let (max_rel, _) = sweep((1u64 << 21) as f64, 1.001);
        assert!(max_rel < 0.01, "max relative error {max_rel} for a >= 2^21");
        let (max_rel, mean) = sweep(CUBE_FACTOR as f64, 1.0001);
        assert!(
            max_rel < 0.002,
            "max relative error {max_rel} in CUBIC's domain"
        );
        assert!(mean < 0.001, "mean relative error {mean} in CUBIC's domain");
    }

    /// CUB-1: K = cbrt(W_max (1 - beta) / C) after a beta reduction; bic_K is in 1/1024 s.
    /// Tolerance ±1% (REFERENCE.md §3.5).
    #[test]
    fn cub1_bic_k_after_beta_reduction() {
        for (w_max, k_expected) in [
            (100u32, 4.217),
            (1000, 9.086),
            (8333, 18.42),
            (83333, 39.69),
        ] {
            let mut tp = TcpCcState::new(1448, 10, 10);
            let mut c = Cubic::default();
            c.init(&mut tp);
            tp.now = SEC;
            tp.snd_cwnd = w_max;
            let ss = c.ssthresh(&mut tp);
            assert_eq!(c.last_max_cwnd, w_max);
            tp.snd_cwnd = ss;
            tp.snd_ssthresh = ss;
            c.cong_avoid(&mut tp, 1);
            let k = c.bic_K as f64 / 1024.0;
            assert!(
                (k - k_expected).abs() / k_expected < 0.01,
                "W_max {w_max}: K = {k} s, expected {k_expected} s"
            );
            assert_eq!(c.bic_origin_point, w_max);
        }
    }

    /// ssthresh = max(cwnd * 717 / 1024, 2) and fast convergence (exact integer results).
    #[test]
    fn ssthresh_and_fast_convergence() {
        let mut tp = TcpCcState::new(1448, 10, 10);
        let mut c = Cubic::default();
        c.init(&mut tp);
        tp.snd_cwnd = 1000;
        assert_eq!(c.ssthresh(&mut tp), 700);
        assert_eq!(c.last_max_cwnd, 1000);
        // A second loss below W_max: W_max = cwnd * (1024 + 717) / 2048.
        tp.snd_cwnd = 900;
        assert_eq!(c.ssthresh(&mut tp), 630);
        assert_eq!(c.last_max_cwnd, 900 * 1741 / 2048);
        assert_eq!(c.last_max_cwnd, 765);
        // Without fast convergence, W_max = cwnd.
        c.fast_convergence = false;
        tp.snd_cwnd = 700;
        c.ssthresh(&mut tp);
        assert_eq!(c.last_max_cwnd, 700);
        // Floor of 2.
        tp.snd_cwnd = 2;
        assert_eq!(c.ssthresh(&mut tp), 2);
        assert_eq!(c.epoch_start, 0);
    }

    /// Drive `rtts` round trips of one-segment ACKs with constant RTT `rtt`: each window of
    /// cwnd ACKs is spread evenly over one RTT. Returns (time since start in s, cwnd) after
    /// every RTT.
    fn drive(c: &mut Cubic, tp: &mut TcpCcState, rtt: u64, rtts: usize) -> Vec<(f64, u32)> {
        let t0 = tp.now;
        let mut out = Vec::new();
        for _ in 0..rtts {
            let w = tp.snd_cwnd as u64;
            for i in 0..w {
                // Even spacing without cumulative rounding error.
                tp.now += rtt * (i + 1) / w - rtt * i / w;
                c.pkts_acked(tp, &ack((rtt / US) as i64));
                c.cong_avoid(tp, 1);
            }
            out.push(((tp.now - t0) as f64 / SEC as f64, tp.snd_cwnd));
        }
        out
    }

    /// Start CA at 0.7 W_max after one loss at W_max; set up delay_min.
    fn after_loss(w_max: u32, rtt: u64) -> (Cubic, TcpCcState) {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut c = Cubic::default();
        c.init(&mut tp);
        tp.now = SEC;
        tp.srtt_us = ((rtt / US) as u32) << 3;
        c.pkts_acked(&mut tp, &ack((rtt / US) as i64));
        assert_eq!(c.delay_min as u64, rtt / US);
        tp.snd_cwnd = w_max;
        let ss = c.ssthresh(&mut tp);
        tp.snd_ssthresh = ss;
        tp.snd_cwnd = ss;
        tp.snd_cwnd_cnt = 0;
        (c, tp)
    }

    /// Continuous RFC 9438 curve with Linux's C = 410/1024 and beta = 717/1024.
    fn w_cubic(w_max: f64, t: f64) -> f64 {
        let c = 410.0 / 1024.0;
        let k = (w_max * (1.0 - 717.0 / 1024.0) / c).cbrt();
        c * (t - k).powi(3) + w_max
    }

    /// CUB-2 analogue at W_max = 1000, RTT 100 ms: K = 9.086 s. Tolerances:
    /// - after every RTT, cwnd is within 3 segments (observed 1.4) of the continuous curve
    ///   W(t): cwnd follows the target W(t + RTT) with ~1 RTT of lag, and Linux's
    ///   `t += delay_min` cancels it (without it the error would be ~10 segments early on);
    /// - cwnd at K/2 is in [0.9, 1.0]·W_max (concave part), growth slows before K and
    ///   speeds up after it;
    /// - integer cwnd sits on W_max while |W(t) − W_max| < 1 segment, i.e. for
    ///   |t − K| < cbrt(1/C) = 1.357 s: it must reach W_max at K − 1.357 ± 0.3 s, pass it
    ///   (W_max + 1) at K + 1.357 ± 0.3 s, and the plateau's midpoint must be K ± 0.3 s.
    #[test]
    fn trajectory_concave_then_convex_reaches_wmax_at_k() {
        let rtt = 100 * MS;
        let (mut c, mut tp) = after_loss(1000, rtt);
        assert_eq!(tp.snd_cwnd, 700);
        let traj = drive(&mut c, &mut tp, rtt, 150);
        let k = c.bic_K as f64 / 1024.0;
        assert!((k - 9.086).abs() < 0.05, "K = {k}");

        for &(t, w) in &traj {
            let expect = w_cubic(1000.0, t);
            assert!(
                (w as f64 - expect).abs() <= 3.0,
                "t = {t:.2} s: cwnd {w}, curve {expect:.1}"
            );
        }
        let at = |x: f64| traj.iter().find(|p| p.0 >= x).unwrap().1;
        let half = at(k / 2.0);
        assert!((900..=1000).contains(&half), "cwnd at K/2 = {half}");
        // Concave: growth slows down approaching W_max.
        assert!(at(1.0) - at(0.0) > at(k - 2.0) - at(k - 3.0));
        // Convex beyond K: growth speeds up again.
        assert!(at(k + 5.0) - at(k + 4.0) > at(k + 3.0) - at(k + 2.0));

        let reach = traj.iter().find(|p| p.1 >= 1000).unwrap().0;
        let leave = traj.iter().find(|p| p.1 > 1000).unwrap().0;
        let plateau = (1.0f64 / (410.0 / 1024.0)).cbrt();
        assert!(
            (reach - (k - plateau)).abs() <= 0.3,
            "reached W_max at {reach:.2} s"
        );
        assert!(
            (leave - (k + plateau)).abs() <= 0.3,
            "left W_max at {leave:.2} s"
        );
        let mid = (reach + leave) / 2.0;
        assert!(
            (mid - k).abs() <= 0.3,
            "plateau midpoint {mid:.2} s, K {k:.2} s"
        );
    }

    /// Reno-friendly region: RTT 1 ms, W_max = 20 (K = 2.47 s, so the cubic curve alone
    /// would add < 6 segments in 300 RTTs). Linux's estimate grows 1 segment per
    /// `cwnd * beta_scale / 8` = 1.875 cwnd ACKs, i.e. alpha_cubic = 8/15 ≈ 0.53 segment per
    /// RTT (RFC 9438 §4.3 α_cubic = 0.529; Linux never switches α to 1). Tolerance: the rate
    /// over 300 RTTs is within ±15% of 8/15, and far above the cubic curve's growth.
    #[test]
    fn reno_friendly_region_at_small_rtt() {
        let rtt = MS;
        let (mut c, mut tp) = after_loss(20, rtt);
        assert_eq!(tp.snd_cwnd, 14);
        let traj = drive(&mut c, &mut tp, rtt, 300);
        let grown = traj.last().unwrap().1 as f64 - 14.0;
        let rate = grown / 300.0;
        assert!(
            (rate - 8.0 / 15.0).abs() <= 0.15 * 8.0 / 15.0,
            "growth {rate:.3} segment/RTT"
        );
        let cubic_only = w_cubic(20.0, 0.3 + 0.001) - 14.0;
        assert!(grown > 10.0 * cubic_only.max(1.0), "grown {grown}");
        // Linux switches off the Reno estimate with tcp_friendliness = 0.
        let (mut c, mut tp) = after_loss(20, rtt);
        c.tcp_friendliness = false;
        let traj = drive(&mut c, &mut tp, rtt, 300);
        assert!(traj.last().unwrap().1 <= 20);
    }

    /// Set up slow start with delay_min = 100 ms, then start a new round at cwnd 32.
    fn slow_start_round(hystart: bool) -> (Cubic, TcpCcState) {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut c = Cubic {
            hystart,
            ..Cubic::default()
        };
        tp.now = SEC;
        c.init(&mut tp);
        tp.snd_nxt = 10 * 1448;
        for _ in 0..10 {
            tp.now += 10 * US;
            c.pkts_acked(&mut tp, &ack(100_000));
        }
        assert_eq!(c.delay_min, 100_000);
        assert_eq!(c.sample_cnt, 0, "below hystart_low_window: no samples");
        // Next round: everything from the first round acked, window of 32 in flight.
        tp.snd_una = 10 * 1448;
        tp.snd_cwnd = 32;
        tp.snd_nxt = tp.snd_una + 32 * 1448;
        (c, tp)
    }

    /// HyStart delay detection. Threshold = delay_min + clamp(delay_min / 8, 4 ms, 16 ms)
    /// = 112.5 ms. Linux counts HYSTART_MIN_SAMPLES = 8 samples and tests on the next one,
    /// so the 9th sample of the round exits slow start (ssthresh = cwnd). Exact: 112_500 µs
    /// does not trigger, 112_501 µs does; hystart = false never triggers.
    #[test]
    fn hystart_delay_detection() {
        let (mut c, mut tp) = slow_start_round(true);
        for i in 1..=9 {
            tp.now += 100 * US; // ACKs 0.1 ms apart: far from the 50 ms ACK-train threshold
            c.pkts_acked(&mut tp, &ack(112_501));
            if i == 1 {
                assert_eq!(c.end_seq, tp.snd_nxt, "new round started");
            }
            if i < 9 {
                assert_eq!(tp.snd_ssthresh, u32::MAX, "sample {i}");
                assert!(!c.found);
            }
        }
        assert!(c.found);
        assert_eq!(tp.snd_ssthresh, 32);
        assert!(!tp.in_slow_start());

        // At exactly the threshold: no exit.
        let (mut c, mut tp) = slow_start_round(true);
        for _ in 0..20 {
            tp.now += 100 * US;
            c.pkts_acked(&mut tp, &ack(112_500));
        }
        assert!(!c.found);
        assert_eq!(tp.snd_ssthresh, u32::MAX);

        // HyStart off: nothing happens.
        let (mut c, mut tp) = slow_start_round(false);
        for _ in 0..20 {
            tp.now += 100 * US;
            c.pkts_acked(&mut tp, &ack(200_000));
        }
        assert!(!c.found);
        assert_eq!(tp.snd_ssthresh, u32::MAX);
    }

    /// HyStart ACK-train detection: ACKs ≤ 2 ms apart and more than delay_min / 2 = 50 ms
    /// after the round start (no pacing) → exit. Exact: the ACK at 50 ms does not trigger,
    /// the one at 51 ms does. ACKs 3 ms apart never count as a train.
    #[test]
    fn hystart_ack_train_detection() {
        let (mut c, mut tp) = slow_start_round(true);
        tp.now += MS;
        c.pkts_acked(&mut tp, &ack(100_000)); // starts the round
        let start = c.round_start;
        assert_eq!(start, tp.now_us());
        for ms in 1..=50 {
            tp.now += MS;
            c.pkts_acked(&mut tp, &ack(100_000));
            assert!(!c.found, "at {ms} ms");
        }
        tp.now += MS;
        c.pkts_acked(&mut tp, &ack(100_000));
        assert!(c.found);
        assert_eq!(tp.snd_ssthresh, 32);

        let (mut c, mut tp) = slow_start_round(true);
        for _ in 0..100 {
            tp.now += 3 * MS;
            c.pkts_acked(&mut tp, &ack(100_000));
        }
        assert!(!c.found);
        assert_eq!(tp.snd_ssthresh, u32::MAX);
    }

    /// Slow start below ssthresh is Reno's; the leftover of the crossing ACK feeds CUBIC;
    /// no growth when not cwnd-limited.
    #[test]
    fn slow_start_and_cwnd_limited() {
        let mut tp = TcpCcState::new(1448, 10, 12);
        let mut c = Cubic::default();
        c.init(&mut tp);
        tp.now = SEC;
        c.cong_avoid(&mut tp, 1);
        assert_eq!(tp.snd_cwnd, 11);
        assert_eq!(c.epoch_start, 0);
        c.cong_avoid(&mut tp, 3);
        assert_eq!(tp.snd_cwnd, 12);
        assert_ne!(c.epoch_start, 0, "leftover ACKs went to bictcp_update");
        tp.is_cwnd_limited = false;
        let before = (tp.snd_cwnd, c.ack_cnt);
        c.cong_avoid(&mut tp, 5);
        assert_eq!((tp.snd_cwnd, c.ack_cnt), before);
    }

    /// After an RTO (Loss) everything is reset: W_max = 0, so the first epoch has K = 0,
    /// origin = cwnd, and cnt ≤ 20 (≥ 5% growth per RTT); cnt ≥ 2 always (≤ 1.5x per RTT).
    #[test]
    fn loss_state_resets_and_growth_caps() {
        let (mut c, mut tp) = after_loss(1000, 100 * MS);
        c.set_state(&mut tp, CaState::Loss);
        assert_eq!((c.last_max_cwnd, c.delay_min, c.epoch_start), (0, 0, 0));
        tp.snd_cwnd = 100;
        tp.snd_ssthresh = 100;
        tp.now += SEC;
        c.cong_avoid(&mut tp, 1);
        assert_eq!((c.bic_K, c.bic_origin_point), (0, 100));
        assert!(c.cnt <= 20 && c.cnt >= 2, "cnt {}", c.cnt);
        // Far beyond K the cubic target explodes, but cnt stays ≥ 2.
        tp.now += 100 * SEC;
        tp.snd_cwnd += 1;
        c.cong_avoid(&mut tp, 1);
        assert_eq!(c.cnt, 2);
    }

    /// Reno-friendly counting is Linux's `while (ack_cnt > delta) { ack_cnt -= delta;
    /// tcp_cwnd++; }` with delta = cwnd * beta_scale >> 3 (15 at cwnd 8): an exact multiple
    /// of delta leaves delta credits, not 0 (exact). Also: within 1 ms of the last cnt
    /// update only this part runs (`goto tcp_friendliness`).
    #[test]
    fn reno_friendly_counting_is_linux_loop() {
        assert_eq!(BETA_SCALE, 15);
        for (acked, credits, tcp_cwnd) in [(15, 15, 8), (16, 1, 9), (30, 15, 9), (31, 1, 10)] {
            let mut tp = TcpCcState::new(1448, 8, 8);
            let mut c = Cubic::default();
            tp.now = 10 * SEC;
            c.epoch_start = tp.now_us() - 100_000;
            c.last_time = tp.now_us() - 500; // < 1 ms: skip the cubic part
            c.last_cwnd = 7; // cwnd changed: no early return
            c.tcp_cwnd = 8;
            c.cnt = 1000;
            c.bictcp_update(&tp, 8, acked);
            assert_eq!(
                (c.ack_cnt, c.tcp_cwnd),
                (credits, tcp_cwnd),
                "acked {acked}"
            );
            assert_eq!(c.last_cwnd, 7, "cubic part skipped");
            let want = if tcp_cwnd > 8 {
                8 / (tcp_cwnd - 8)
            } else {
                1000
            };
            assert_eq!(c.cnt, want.max(2));
        }
    }

    /// CA_EVENT_TX_START shifts epoch_start by the idle time (since the last send), capped
    /// at now. Exact in µs for the stand-in lsndtime (ACK time − RTT sample).
    #[test]
    fn tx_start_shifts_epoch_by_idle_time() {
        let (mut c, mut tp) = after_loss(1000, 100 * MS);
        tp.now += 10 * MS;
        c.cong_avoid(&mut tp, 1);
        let epoch = c.epoch_start;
        // Last ACK (after the 1 s sample-discard window) for a segment sent 100 ms earlier.
        tp.now += 2 * SEC;
        c.pkts_acked(&mut tp, &ack(100_000));
        let last_send = tp.now_us() - 100_000;
        // Idle 5 s, then the application writes again.
        tp.now += 5 * SEC;
        c.cwnd_event(&mut tp, CaEvent::TxStart);
        assert_eq!(c.epoch_start, epoch + (tp.now_us() - last_send));
        // Other events are ignored.
        c.cwnd_event(&mut tp, CaEvent::CwndRestart);
        assert_eq!(c.epoch_start, epoch + (tp.now_us() - last_send));
    }
}
