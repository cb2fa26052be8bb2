//! CUBIC v2.3 with HyStart: a port of Linux `net/ipv4/tcp_cubic.c` (`cubictcp_init`,
//! `cubictcp_recalc_ssthresh`, `cubictcp_cong_avoid`, `bictcp_update`, `cubic_root`,
//! `cubictcp_state`, `cubictcp_cwnd_event`, `cubictcp_acked`, `hystart_update`), checked
//! against RFC 9438 (docs/references.md §3.5). Integer arithmetic, scaling and variable names are
//! Linux's; windows are in segments. Kernel followed: v6.6 as released (Oct 2023; its
//! `tcp_cubic.c`, blob 0fd78ecb67e7, stayed in 6.6.y until Feb 2025), i.e. with 4e1fddc98d25 (5.16: the
//! HyStart round reset moved from cong_avoid into `hystart_update`, driven by `snd_una` past
//! `end_seq`) and HyStart run only once cwnd ≥ `hystart_low_window`, reset included; the
//! Jan 2025 fix 25c1a9ca53db (Linux 6.14, backported to the stable lines) that resets the
//! round below it too is the key `hystart_round_fix` (off). The 2024 proposals to run
//! `bictcp_update` once per RTT, to match Reno's additive increase and to keep
//! `ca->last_time` in µs were not merged (mainline's `bictcp_update` still counts jiffies).
//! HyStart++ (RFC 9406) is not in Linux and not here.
//!
//! Deviations from Linux (one per line):
//! - Clock: u64 µs from `tp.now_us()`, as in bpf_cubic.c (Linux: `tcp_jiffies32` for `epoch_start`,
//!   `last_time`, the once-per-jiffy and `HZ / 32` tests, and `usecs_to_jiffies(delay_min)`).
//! - Times never wrap (no 32-bit `after()`/`(s32)` arithmetic); a timestamp of 0 means "unset".
//! - The Reno-friendly `while (ack_cnt > delta)` loop is computed in closed form (same result).
//! - TX_START: no `tp->lsndtime` in `TcpCcState`; last send = newest acked segment's send time.
//! - `hystart_ack_delay()` reads the socket's pacing rate (`tp.sk_pacing_rate`, which
//!   `tcp_update_pacing_rate` set at the end of the previous ACK, as in Linux);
//!   `sk_gso_max_size` is 65,536 (GSO is software).
//! - Module parameters are per-instance fields, set from the scenario's keys (Linux: global
//!   `module_param`s); the scales `cubictcp_register` precomputes from `beta` and `bic_scale`
//!   at module load are computed when the instance is configured.

use super::{AckSample, CaEvent, CaState, CongestionOps, TcpCcState};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

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

/// Module parameter `beta`'s default, 717 (/1024 ≈ 0.7).
pub const BETA: u32 = 717;
/// Module parameter `bic_scale`'s default, 41: C = 41 · 10 / 1024 ≈ 0.4.
pub const BIC_SCALE: u32 = 41;
/// `sk_gso_max_size`: 64 KB on any device GSO can feed (`GSO_LEGACY_MAX_SIZE`).
const GSO_MAX_SIZE: u64 = 65_536;
/// Module parameter `hystart_low_window`'s default: HyStart only acts once cwnd ≥ this.
pub const HYSTART_LOW_WINDOW: u32 = 16;
/// Module parameter `hystart_ack_delta_us`'s default: spacing between ACKs indicating a
/// train, µs.
pub const HYSTART_ACK_DELTA_US: u32 = 2000;

const USEC_PER_SEC: u64 = 1_000_000;
const USEC_PER_MSEC: u64 = 1_000;

/// Precomputed from `beta` as in `cubictcp_register`:
/// `beta_scale = 8 * (1024 + beta) / 3 / (1024 - beta)` (15 at the default 717).
pub const fn beta_scale(beta: u32) -> u32 {
    8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta)
}

/// Precomputed from `bic_scale` as in `cubictcp_register`: `cube_rtt_scale = bic_scale * 10`
/// (1024 · c / rtt with rtt = 100 ms).
pub const fn cube_rtt_scale(bic_scale: u32) -> u32 {
    bic_scale * 10
}

/// Precomputed from `bic_scale` as in `cubictcp_register`:
/// `cube_factor = 2^(10 + 3 * BICTCP_HZ) / (bic_scale * 10)`.
pub const fn cube_factor(bic_scale: u32) -> u64 {
    (1u64 << (10 + 3 * BICTCP_HZ)) / (bic_scale as u64 * 10)
}

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
    /// Where `hystart_low_window` gates HyStart: v6.6 (false) or after 25c1a9ca53db (true),
    /// see [`Cubic::hystart_runs`].
    pub hystart_round_fix: bool,
    /// Module parameter `fast_convergence` (Linux default 1).
    pub fast_convergence: bool,
    /// Module parameter `tcp_friendliness` (Linux default 1).
    pub tcp_friendliness: bool,
    /// Module parameter `initial_ssthresh` (0 = leave the core's value); only used
    /// when HyStart is off, as in Linux.
    pub initial_ssthresh: u32,
    /// Module parameter `beta` (/1024, default 717); set it with [`Cubic::set_scales`],
    /// which derives `beta_scale`.
    pub beta: u32,
    /// Module parameter `bic_scale` (C = bic_scale · 10/1024, default 41); set it with
    /// [`Cubic::set_scales`], which derives `cube_rtt_scale` and `cube_factor`.
    pub bic_scale: u32,
    /// Module parameter `hystart_low_window` (default 16).
    pub hystart_low_window: u32,
    /// Module parameter `hystart_ack_delta_us` (default 2000).
    pub hystart_ack_delta_us: u32,
    /// `cubictcp_register`'s precomputed scales (from `beta` and `bic_scale`).
    beta_scale: u32,
    cube_rtt_scale: u32,
    cube_factor: u64,

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
            hystart_round_fix: false,
            fast_convergence: true,
            tcp_friendliness: true,
            initial_ssthresh: 0,
            beta: BETA,
            bic_scale: BIC_SCALE,
            hystart_low_window: HYSTART_LOW_WINDOW,
            hystart_ack_delta_us: HYSTART_ACK_DELTA_US,
            beta_scale: beta_scale(BETA),
            cube_rtt_scale: cube_rtt_scale(BIC_SCALE),
            cube_factor: cube_factor(BIC_SCALE),
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
    /// Set `beta` and `bic_scale` and precompute the scales from them, as
    /// `cubictcp_register` does when the module loads (`beta` in 1..=1023, `bic_scale` ≥ 1).
    pub fn set_scales(&mut self, beta: u32, bic_scale: u32) {
        self.beta = beta;
        self.bic_scale = bic_scale;
        self.beta_scale = beta_scale(beta);
        self.cube_rtt_scale = cube_rtt_scale(bic_scale);
        self.cube_factor = cube_factor(bic_scale);
    }

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
                    self.bic_K = cubic_root(
                        self.cube_factor
                            .wrapping_mul((self.last_max_cwnd - cwnd) as u64),
                    );
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
            let delta = ((self.cube_rtt_scale as u64)
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
            let delta = (cwnd.wrapping_mul(self.beta_scale)) >> 3;
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

    /// `hystart_ack_delay`: a cushion for TSO/GRO aggregation, the time of four 64 KB
    /// skbs at the socket's pacing rate, at most 1 ms, in µs (0 while the rate is 0 or
    /// still `~0UL`, before an RTT sample).
    fn hystart_ack_delay(&self, tp: &TcpCcState) -> u64 {
        let rate = tp.sk_pacing_rate;
        if rate == 0 {
            return 0;
        }
        (GSO_MAX_SIZE * 4 * 1_000_000 / rate).min(1000)
    }

    /// Whether `cubictcp_acked` calls `hystart_update` (the round reset included) on this
    /// ACK. v6.6 (5.16–6.13, since 4e1fddc98d25 moved the reset into `hystart_update`):
    /// only once cwnd ≥ `hystart_low_window` (`cubictcp_acked`: `tcp_snd_cwnd(tp) >=
    /// hystart_low_window`). After 25c1a9ca53db (`hystart_round_fix`): always, and
    /// `hystart_update` checks the low window after the reset.
    fn hystart_runs(&self, tp: &TcpCcState) -> bool {
        self.hystart_round_fix || tp.snd_cwnd >= self.hystart_low_window
    }

    /// `hystart_update`: look for the slow-start exit point (ACK train or delay increase).
    fn hystart_update(&mut self, tp: &mut TcpCcState, delay: u32) {
        if tp.snd_una > self.end_seq {
            self.bictcp_hystart_reset(tp);
        }

        // HyStart triggers when cwnd is larger than some threshold (25c1a9ca53db; a no-op
        // in v6.6, whose caller checked it, `hystart_runs`).
        if tp.snd_cwnd < self.hystart_low_window {
            return;
        }

        if self.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now = tp.now_us();
            // First detection parameter: ACK-train detection.
            if now.saturating_sub(self.last_ack) <= self.hystart_ack_delta_us as u64 {
                self.last_ack = now;
                // Trigger past delay_min (plus the TSO/GRO cushion), halved unless
                // something paces the socket (pacing may have delayed packets up to RTT/2).
                let mut threshold = self.delay_min as u64 + self.hystart_ack_delay(tp);
                if tp.sk_pacing_status == super::PacingStatus::None {
                    threshold >>= 1;
                }
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

/// CUBIC's options: the module parameters of `tcp_cubic.c` (v6.6), with its defaults, and
/// the later HyStart round rule as a key.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `fast_convergence` (default 1).
    pub fast_convergence: bool,
    /// `beta` (/1024, default 717).
    pub beta: u32,
    /// `initial_ssthresh` (default 0: the core's).
    pub initial_ssthresh: u32,
    /// `bic_scale` (default 41).
    pub bic_scale: u32,
    /// `tcp_friendliness` (default 1).
    pub tcp_friendliness: bool,
    /// `hystart` (default 1).
    pub hystart: bool,
    /// `hystart_detect` (default `HYSTART_ACK_TRAIN | HYSTART_DELAY` = 3).
    pub hystart_detect: u8,
    /// `hystart_low_window` (default 16).
    pub hystart_low_window: u32,
    /// `hystart_ack_delta_us` (default 2000).
    pub hystart_ack_delta_us: u32,
    /// HyStart's round start after 25c1a9ca53db (Linux 6.14, Jan 2025): the round resets
    /// below `hystart_low_window` too; `false` is v6.6.
    pub hystart_round_fix: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            fast_convergence: true,
            beta: BETA,
            initial_ssthresh: 0,
            bic_scale: BIC_SCALE,
            tcp_friendliness: true,
            hystart: true,
            hystart_detect: 3,
            hystart_low_window: HYSTART_LOW_WINDOW,
            hystart_ack_delta_us: HYSTART_ACK_DELTA_US,
            hystart_round_fix: false,
        }
    }
}

impl super::Configure for Cubic {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        let o = &mut o.cubic;
        ck.get_into(t, &FAST_CONVERGENCE, &mut o.fast_convergence);
        ck.get_into(t, &BETA_KEY, &mut o.beta);
        ck.get_into(t, &INITIAL_SSTHRESH, &mut o.initial_ssthresh);
        ck.get_into(t, &BIC_SCALE_KEY, &mut o.bic_scale);
        ck.get_into(t, &TCP_FRIENDLINESS, &mut o.tcp_friendliness);
        ck.get_into(t, &HYSTART, &mut o.hystart);
        ck.get_into(t, &HYSTART_DETECT, &mut o.hystart_detect);
        ck.get_into(t, &HYSTART_LOW_WINDOW_KEY, &mut o.hystart_low_window);
        ck.get_into(t, &HYSTART_ACK_DELTA_US_KEY, &mut o.hystart_ack_delta_us);
        ck.get_into(t, &HYSTART_ROUND_FIX, &mut o.hystart_round_fix);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        let c = &o.cubic;
        self.fast_convergence = c.fast_convergence;
        self.set_scales(c.beta, c.bic_scale);
        self.initial_ssthresh = c.initial_ssthresh;
        self.tcp_friendliness = c.tcp_friendliness;
        self.hystart = c.hystart;
        self.hystart_detect = c.hystart_detect;
        self.hystart_low_window = c.hystart_low_window;
        self.hystart_ack_delta_us = c.hystart_ack_delta_us;
        self.hystart_round_fix = c.hystart_round_fix;
    }
}

const FAST_CONVERGENCE: Key = Key {
    name: "cubic_fast_convergence",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "module parameter `fast_convergence` of `tcp_cubic.c`: a loss below the previous W_max lowers W_max further, to cwnd·(1 + beta)/2",
};

const BETA_KEY: Key = Key {
    name: "cubic_beta",
    ty: Ty::Int(1, 1023),
    default: "`717`",
    allowed: "1 to 1023 (`beta_scale` divides by 1024 − beta)",
    meaning: "module parameter `beta` of `tcp_cubic.c`, /1024: ssthresh = cwnd·beta/1024 after a loss (717 ≈ 0.7); the Reno-friendly slope `beta_scale` = 8(1024 + beta)/3/(1024 − beta) is derived from it, as `cubictcp_register` does at module load",
};

const INITIAL_SSTHRESH: Key = Key {
    name: "cubic_initial_ssthresh",
    ty: Ty::Int(0, super::INT_MAX),
    default: "`0`",
    allowed: "",
    meaning: "module parameter `initial_ssthresh` of `tcp_cubic.c`, segments: `cubictcp_init` sets ssthresh to it when HyStart is off (0: TCP's own `init_ssthresh`)",
};

const BIC_SCALE_KEY: Key = Key {
    name: "bic_scale",
    ty: Ty::Int(1, super::INT_MAX / 10),
    default: "`41`",
    allowed: "1 to 214748364 (`cube_factor` divides by bic_scale·10, an `int`)",
    meaning: "module parameter `bic_scale` of `tcp_cubic.c` (CUBIC's, not BIC's): C = bic_scale·10/1024 segments/s³ (41: 0.4); `cube_rtt_scale` and `cube_factor` are derived from it, as `cubictcp_register` does at module load",
};

const TCP_FRIENDLINESS: Key = Key {
    name: "tcp_friendliness",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "module parameter `tcp_friendliness` of `tcp_cubic.c`: grow at least as fast as the Reno estimate (the TCP-friendly region)",
};

const HYSTART: Key = Key {
    name: "hystart",
    ty: Ty::Bool,
    default: "`true`",
    allowed: "",
    meaning: "HyStart (module parameter `hystart`): leave slow start on ACK-train length or delay increase",
};

const HYSTART_DETECT: Key = Key {
    name: "hystart_detect",
    ty: Ty::Int(0, 3),
    default: "`3`",
    allowed: "",
    meaning: "HyStart's detection methods (module parameter `hystart_detect`, `/sys/module/tcp_cubic/parameters/hystart_detect`): bit 1 the ACK train, bit 2 the delay increase",
};

const HYSTART_LOW_WINDOW_KEY: Key = Key {
    name: "hystart_low_window",
    ty: Ty::Int(0, super::INT_MAX),
    default: "`16`",
    allowed: "",
    meaning: "module parameter `hystart_low_window` of `tcp_cubic.c`, segments: HyStart acts only once cwnd ≥ it",
};

const HYSTART_ACK_DELTA_US_KEY: Key = Key {
    name: "hystart_ack_delta_us",
    ty: Ty::Int(0, super::INT_MAX),
    default: "`2000`",
    allowed: "",
    meaning: "module parameter `hystart_ack_delta_us` of `tcp_cubic.c`, µs: ACKs this close (or closer) continue an ACK train",
};

const HYSTART_ROUND_FIX: Key = Key {
    name: "hystart_round_fix",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "HyStart's round start as fixed by Linux commit 25c1a9ca53db (\"tcp_cubic: fix incorrect HyStart round start detection\", Jan 2025: Linux 6.14; queued for the 5.4–6.13 stable lines in Feb 2025, 6.6.y's review of 5 Feb 2025): `hystart_update` starts a new round on every ACK past the round's end, below `hystart_low_window` (16) too. `false`: v6.6 as released (and 5.16–6.13), where HyStart, its round reset included, runs only once cwnd ≥ 16",
};

static OPTIONS: Schema = Schema {
    title: "CUBIC options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[
        HYSTART,
        HYSTART_DETECT,
        HYSTART_ROUND_FIX,
        HYSTART_LOW_WINDOW_KEY,
        HYSTART_ACK_DELTA_US_KEY,
        BETA_KEY,
        BIC_SCALE_KEY,
        FAST_CONVERGENCE,
        TCP_FRIENDLINESS,
        INITIAL_SSTHRESH,
    ],
    with: &[],
    variants: None,
};

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// HyStart's ACK-train test reads it (`hystart_ack_delay`).
    fn reads_pacing_rate(&self) -> bool {
        self.hystart && self.hystart_detect & HYSTART_ACK_TRAIN != 0
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
            self.last_max_cwnd = ((cwnd as u64 * (BICTCP_BETA_SCALE + self.beta) as u64)
                / (2 * BICTCP_BETA_SCALE) as u64) as u32;
        } else {
            self.last_max_cwnd = cwnd;
        }
        ((cwnd as u64 * self.beta as u64 / BICTCP_BETA_SCALE as u64) as u32).max(2)
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

        if !self.found && tp.in_slow_start() && self.hystart && self.hystart_runs(tp) {
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

    /// W_max (`last_max_cwnd`), K (`bic_K`, in s), the origin point and HyStart's `found`.
    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 4] = [
            StateVar::num("last_max_cwnd"),
            StateVar::num("bic_K_s"),
            StateVar::num("bic_origin_point"),
            StateVar::num("found"),
        ];
        &V
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        out[0] = self.last_max_cwnd as f64;
        // `bic_K` counts 2^-BICTCP_HZ s.
        out[1] = self.bic_K as f64 / (1u64 << BICTCP_HZ) as f64;
        out[2] = self.bic_origin_point as f64;
        out[3] = self.found as u8 as f64;
    }
}

#[cfg(test)]
mod tests;
