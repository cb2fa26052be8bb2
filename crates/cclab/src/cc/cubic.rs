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
//! - `hystart_ack_delay()` reads the socket's pacing rate as `tcp_update_pacing_rate` sets it
//!   (every socket has one, paced or not), computed here from cwnd, packets in flight and
//!   srtt after this ACK's RTT sample (Linux: the rate set at the end of the previous ACK,
//!   one 1/8 EWMA step of srtt earlier); `sk_gso_max_size` is 65,536 (GSO is software).
//! - Module parameters are per-instance fields; `beta`, `bic_scale` and derived scales are consts.

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

/// `beta = 717` (/1024 ≈ 0.7).
const BETA: u32 = 717;
/// `bic_scale = 41`: C = 41 * 10 / 1024 ≈ 0.4.
const BIC_SCALE: u32 = 41;
/// `sk_gso_max_size`: 64 KB on any device GSO can feed (`GSO_LEGACY_MAX_SIZE`).
const GSO_MAX_SIZE: u64 = 65_536;
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
    /// What `hystart_ack_delay` needs of the socket's pacing: `tcp_pacing_ss_ratio` and
    /// `tcp_pacing_ca_ratio` (percent), `SO_MAX_PACING_RATE` in bytes per second
    /// (`u64::MAX`: none), and whether anything paces (`sk_pacing_status` ≠ NONE).
    pacing: (u32, u32, u64, bool),
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
            pacing: (200, 120, u64::MAX, false),
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

    /// `hystart_ack_delay`: a cushion for TSO/GRO aggregation, the time of four 64 KB
    /// skbs at the socket's pacing rate, at most 1 ms, in µs (0 before an RTT sample,
    /// when the rate is still `~0UL`).
    fn hystart_ack_delay(&self, tp: &TcpCcState) -> u64 {
        if tp.srtt_us == 0 {
            return 0;
        }
        let (ss_ratio, ca_ratio, max_rate, _) = self.pacing;
        let ratio = if tp.snd_cwnd < tp.snd_ssthresh / 2 {
            ss_ratio
        } else {
            ca_ratio
        };
        // `tcp_update_pacing_rate`: mss · (USEC_PER_SEC / 100 << 3) · ratio ·
        // max(cwnd, packets_out) / srtt_us (which is srtt << 3), bytes per second.
        let rate = tp.mss_cache as u128
            * ((1_000_000 / 100) << 3)
            * ratio as u128
            * tp.snd_cwnd.max(tp.packets_in_flight) as u128
            / tp.srtt_us as u128;
        let rate = (rate.min(u64::MAX as u128) as u64).min(max_rate);
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
        self.hystart_round_fix || tp.snd_cwnd >= HYSTART_LOW_WINDOW
    }

    /// `hystart_update`: look for the slow-start exit point (ACK train or delay increase).
    fn hystart_update(&mut self, tp: &mut TcpCcState, delay: u32) {
        if tp.snd_una > self.end_seq {
            self.bictcp_hystart_reset(tp);
        }

        // HyStart triggers when cwnd is larger than some threshold (25c1a9ca53db; a no-op
        // in v6.6, whose caller checked it, `hystart_runs`).
        if tp.snd_cwnd < HYSTART_LOW_WINDOW {
            return;
        }

        if self.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now = tp.now_us();
            // First detection parameter: ACK-train detection.
            if now.saturating_sub(self.last_ack) <= HYSTART_ACK_DELTA_US {
                self.last_ack = now;
                // Trigger past delay_min (plus the TSO/GRO cushion), halved unless
                // something paces the socket (pacing may have delayed packets up to RTT/2).
                let mut threshold = self.delay_min as u64 + self.hystart_ack_delay(tp);
                if !self.pacing.3 {
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

/// CUBIC's options: the `tcp_cubic.c` module parameters cclab exposes, and the later
/// HyStart round rule as a key.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `hystart` (default 1).
    pub hystart: bool,
    /// `hystart_detect` (default `HYSTART_ACK_TRAIN | HYSTART_DELAY` = 3).
    pub hystart_detect: u8,
    /// HyStart's round start after 25c1a9ca53db (Linux 6.14, Jan 2025): the round resets
    /// below `hystart_low_window` too; `false` is v6.6.
    pub hystart_round_fix: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hystart: true,
            hystart_detect: 3,
            hystart_round_fix: false,
        }
    }
}

impl super::Configure for Cubic {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &OPTIONS.keys[0], &mut o.cubic.hystart);
        ck.get_into(t, &OPTIONS.keys[1], &mut o.cubic.hystart_detect);
        ck.get_into(t, &OPTIONS.keys[2], &mut o.cubic.hystart_round_fix);
    }
    fn configure(&mut self, o: &super::CcOptions, sock: &super::Socket) {
        self.hystart = o.cubic.hystart;
        self.hystart_detect = o.cubic.hystart_detect;
        self.hystart_round_fix = o.cubic.hystart_round_fix;
        self.pacing = (
            sock.pacing_ss_ratio,
            sock.pacing_ca_ratio,
            sock.max_pacing_rate,
            sock.paced,
        );
    }
}

static OPTIONS: Schema = Schema {
    title: "CUBIC options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[Key {
        name: "hystart",
        ty: Ty::Bool,
        default: "`true`",
        allowed: "",
        meaning: "HyStart (module parameter `hystart`): leave slow start on ACK-train length or delay increase",
    },
    Key {
        name: "hystart_detect",
        ty: Ty::Int(0, 3),
        default: "`3`",
        allowed: "",
        meaning: "HyStart's detection methods (module parameter `hystart_detect`, `/sys/module/tcp_cubic/parameters/hystart_detect`): bit 1 the ACK train, bit 2 the delay increase",
    },
    Key {
        name: "hystart_round_fix",
        ty: Ty::Bool,
        default: "`false`",
        allowed: "",
        meaning: "HyStart's round start as fixed by Linux commit 25c1a9ca53db (\"tcp_cubic: fix incorrect HyStart round start detection\", Jan 2025: Linux 6.14; queued for the 5.4–6.13 stable lines in Feb 2025, 6.6.y's review of 5 Feb 2025): `hystart_update` starts a new round on every ACK past the round's end, below `hystart_low_window` (16) too. `false`: v6.6 as released (and 5.16–6.13), where HyStart, its round reset included, runs only once cwnd ≥ 16",
    }],
    with: &[],
    variants: None,
};

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
