//! TCP Vegas: a port of Linux `net/ipv4/tcp_vegas.c` (Stephen Hemminger; `tcp_vegas_init`,
//! `vegas_enable`, `vegas_disable`, `tcp_vegas_pkts_acked`, `tcp_vegas_state`,
//! `tcp_vegas_cwnd_event`, `tcp_vegas_cong_avoid`, `tcp_vegas_ssthresh`), after Brakmo &
//! Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global Internet", IEEE JSAC
//! 13(8), 1995 (docs/references.md §3.6).
//!
//! Once per RTT (the first ACK beyond `beg_snd_nxt`), with ≥ 3 RTT samples in that RTT:
//! rtt = min sample of the RTT, baseRTT = min sample ever (+1 µs so never 0),
//! target_cwnd = cwnd·baseRTT/rtt, diff = cwnd·(rtt − baseRTT)/baseRTT (packets queued).
//! Slow start: diff > gamma → cwnd = min(cwnd, target_cwnd + 1) and leave slow start.
//! Congestion avoidance: diff > beta → cwnd − 1; diff < alpha → cwnd + 1; else hold.
//! Fewer samples, or outside CA_Open (`doing_vegas_now` = 0): Reno. Loss: Reno ssthresh/undo.
//!
//! Deviations from Linux (one per line):
//! - `diff` is computed in 64 bits (Linux's u32 `snd_cwnd·(rtt − baseRTT)` wraps above 2³²).
//! - `after(ack, beg_snd_nxt)` is `tp.snd_una > beg_snd_nxt` (64-bit sequence, no wrap).
//! - Module parameters `alpha`, `beta`, `gamma` are per-instance (`opt`), set from the keys
//!   `vegas_alpha`, `vegas_beta`, `vegas_gamma` (Linux: global `module_param`s).
//! - `tcp_vegas_ssthresh` is the modern min(ssthresh, cwnd) (pre-4.3 kernels: cwnd − 1,
//!   paired with the old `cwnd <= ssthresh` slow-start test).

use super::{reno, AckSample, CaEvent, CaState, CongestionOps, TcpCcState};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// "Infinity" for `baseRTT` / `minRTT`, as in Linux.
const RTT_INF: u32 = 0x7fff_ffff;

/// Linux `struct vegas` plus the module parameters.
#[derive(Clone, Debug)]
#[allow(non_snake_case)] // Linux's names: baseRTT, minRTT, cntRTT
pub struct Vegas {
    /// The module parameters (`tcp_vegas.c`'s, with its defaults).
    pub opt: Options,

    /// Right edge of the current RTT (`snd_nxt` when it began).
    pub beg_snd_nxt: u64,
    /// Doing Vegas for this ACK?
    pub doing_vegas_now: bool,
    /// Number of RTT samples in this RTT.
    pub cntRTT: u32,
    /// Min of RTTs measured within the last RTT, µs (+1).
    pub minRTT: u32,
    /// The min of all Vegas RTT measurements seen, µs (+1).
    pub baseRTT: u32,
    /// `diff` and `target_cwnd` of the last once-per-RTT calculation, kept for the `cc`
    /// series (Linux's are locals of `tcp_vegas_cong_avoid`); `None` before the first.
    pub diff: Option<u64>,
    pub target_cwnd: Option<u64>,
}

impl Default for Vegas {
    /// The state `tcp_vegas_init` leaves (with `snd_nxt` = 0) and Linux's parameters.
    fn default() -> Self {
        Vegas {
            opt: Options::default(),
            beg_snd_nxt: 0,
            doing_vegas_now: true,
            cntRTT: 0,
            minRTT: RTT_INF,
            baseRTT: RTT_INF,
            diff: None,
            target_cwnd: None,
        }
    }
}

/// `tcp_current_ssthresh`: ssthresh, or at least 3/4 cwnd when not reducing the window.
fn tcp_current_ssthresh(tp: &TcpCcState) -> u32 {
    if matches!(tp.ca_state, CaState::Cwr | CaState::Recovery) {
        tp.snd_ssthresh
    } else {
        tp.snd_ssthresh.max((tp.snd_cwnd >> 1) + (tp.snd_cwnd >> 2))
    }
}

/// `tcp_vegas_ssthresh`.
fn tcp_vegas_ssthresh(tp: &TcpCcState) -> u32 {
    tp.snd_ssthresh.min(tp.snd_cwnd)
}

impl Vegas {
    /// `vegas_enable`: begin taking Vegas samples next time we send something.
    fn vegas_enable(&mut self, tp: &TcpCcState) {
        self.doing_vegas_now = true;
        // Set the beginning of the next send window.
        self.beg_snd_nxt = tp.snd_nxt;
        self.cntRTT = 0;
        self.minRTT = RTT_INF;
    }

    /// `vegas_disable`: stop taking Vegas samples for now.
    fn vegas_disable(&mut self) {
        self.doing_vegas_now = false;
    }
}

/// Vegas' options: the module parameters of `tcp_vegas.c`, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `alpha`: lower bound of packets in network (default 2).
    pub alpha: u32,
    /// `beta`: upper bound of packets in network (default 4).
    pub beta: u32,
    /// `gamma`: slow-start exit threshold (default 1).
    pub gamma: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            alpha: 2,
            beta: 4,
            gamma: 1,
        }
    }
}

impl super::Configure for Vegas {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &OPTIONS.keys[0], &mut o.vegas.alpha);
        ck.get_into(t, &OPTIONS.keys[1], &mut o.vegas.beta);
        ck.get_into(t, &OPTIONS.keys[2], &mut o.vegas.gamma);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.opt = o.vegas.clone();
    }
}

static OPTIONS: Schema = Schema {
    title: "Vegas options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[
        Key {
            name: "vegas_alpha",
            ty: Ty::Int(0, super::INT_MAX),
            default: "`2`",
            allowed: "",
            meaning: "module parameter `alpha` of `tcp_vegas.c`, segments: in congestion avoidance cwnd grows by one per RTT while diff (the segments queued) is below it",
        },
        Key {
            name: "vegas_beta",
            ty: Ty::Int(0, super::INT_MAX),
            default: "`4`",
            allowed: "",
            meaning: "module parameter `beta` of `tcp_vegas.c`, segments: cwnd shrinks by one per RTT while diff exceeds it (this test comes first; between `vegas_alpha` and it, cwnd holds)",
        },
        Key {
            name: "vegas_gamma",
            ty: Ty::Int(0, super::INT_MAX),
            default: "`1`",
            allowed: "",
            meaning: "module parameter `gamma` of `tcp_vegas.c`, segments: slow start ends, cwnd set to the actual rate × baseRTT + 1, once diff exceeds it",
        },
    ],
    with: &[],
    variants: None,
};

impl CongestionOps for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    /// `tcp_vegas_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.baseRTT = RTT_INF;
        self.vegas_enable(tp);
    }

    /// `tcp_reno_ssthresh`.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        super::reno::reno_ssthresh(tp)
    }

    /// `tcp_vegas_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        if !self.doing_vegas_now {
            reno::reno_cong_avoid(tp, acked);
            return;
        }

        if tp.snd_una > self.beg_snd_nxt {
            // Do the Vegas once-per-RTT cwnd adjustment.

            // Save the extent of the current window so we can use this at the end of the
            // next RTT.
            self.beg_snd_nxt = tp.snd_nxt;

            // We do the Vegas calculations only if we got enough RTT samples that we can be
            // reasonably sure that we got at least one RTT sample that wasn't from a delayed
            // ACK (2 samples in an RTT are almost certainly delayed ACKs; 3 are OK).
            if self.cntRTT <= 2 {
                // Not enough RTT samples for the Vegas calculation: behave like Reno.
                reno::reno_cong_avoid(tp, acked);
            } else {
                // The min RTT seen during the last RTT: filters out delayed ACKs.
                let rtt = self.minRTT as u64;
                let base = self.baseRTT as u64;
                let cwnd = tp.snd_cwnd as u64;

                // The cwnd we should have if we weren't going too fast:
                // (actual rate in segments) · baseRTT.
                let target_cwnd = cwnd * base / rtt;

                // The window we had minus the window we would like to have: "Diff".
                let diff = cwnd * rtt.saturating_sub(base) / base;
                (self.diff, self.target_cwnd) = (Some(diff), Some(target_cwnd));

                if diff > self.opt.gamma as u64 && tp.in_slow_start() {
                    // Going too fast. Time to slow down and switch to congestion avoidance.
                    // Set cwnd to match the actual rate exactly, plus 1 because the integer
                    // truncation robs us of full link utilization.
                    tp.snd_cwnd = tp.snd_cwnd.min(target_cwnd as u32 + 1);
                    tp.snd_ssthresh = tcp_vegas_ssthresh(tp);
                } else if tp.in_slow_start() {
                    // Slow start.
                    tp.slow_start(acked);
                } else {
                    // Congestion avoidance.
                    if diff > self.opt.beta as u64 {
                        // The old window was too fast, so we slow down.
                        tp.snd_cwnd -= 1;
                        tp.snd_ssthresh = tcp_vegas_ssthresh(tp);
                    } else if diff < self.opt.alpha as u64 {
                        // We don't have enough extra packets in the network, so speed up.
                        tp.snd_cwnd += 1;
                    } else {
                        // Sending just as fast as we should be.
                    }
                }

                if tp.snd_cwnd < 2 {
                    tp.snd_cwnd = 2;
                } else if tp.snd_cwnd > tp.snd_cwnd_clamp {
                    tp.snd_cwnd = tp.snd_cwnd_clamp;
                }
                tp.snd_ssthresh = tcp_current_ssthresh(tp);
            }

            // Wipe the slate clean for the next RTT.
            self.cntRTT = 0;
            self.minRTT = RTT_INF;
        } else if tp.in_slow_start() {
            // Use normal slow start.
            tp.slow_start(acked);
        }
    }

    /// `tcp_vegas_state`.
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if new_state == CaState::Open {
            self.vegas_enable(tp);
        } else {
            self.vegas_disable();
        }
    }

    /// `tcp_vegas_cwnd_event`: restarting after idle, wait for fresh samples.
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        if matches!(ev, CaEvent::CwndRestart | CaEvent::TxStart) {
            self.init(tp);
        }
    }

    /// `tcp_vegas_pkts_acked`.
    fn pkts_acked(&mut self, _tp: &mut TcpCcState, sample: &AckSample) {
        if sample.rtt_us < 0 {
            return;
        }
        // Never allow zero rtt or baseRTT.
        let vrtt = (sample.rtt_us as u64 + 1).min(RTT_INF as u64) as u32;

        // Filter to find propagation delay.
        if vrtt < self.baseRTT {
            self.baseRTT = vrtt;
        }
        // Find the min RTT during the last RTT to find the current prop. delay + queuing delay.
        self.minRTT = self.minRTT.min(vrtt);
        self.cntRTT += 1;
    }

    /// `tcp_vegas_get_info` fields.
    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " vegas:(enabled:{},rttcnt:{},rtt:{}us,minrtt:{}us)",
            self.doing_vegas_now as u8, self.cntRTT, self.baseRTT, self.minRTT
        );
    }

    /// `diff` (segments queued, as compared with `alpha` and `beta`) and `target_cwnd` of
    /// the last once-per-RTT calculation, and `baseRTT` (in s).
    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 3] = [
            StateVar::num("diff"),
            StateVar::num("target_cwnd"),
            StateVar::num("baseRTT_s"),
        ];
        &V
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        out[0] = self.diff.map_or(f64::NAN, |d| d as f64);
        out[1] = self.target_cwnd.map_or(f64::NAN, |d| d as f64);
        // Linux's: the least sample + 1 µs (never 0).
        out[2] = super::state::us_s(self.baseRTT.into(), RTT_INF.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    /// One RTT of a bulk flow: the window is sent (snd_nxt = snd_una + cwnd segments), then
    /// each segment is acked alone with RTT `rtt_us` (the core calls `pkts_acked`, then
    /// `cong_avoid`). Vegas's once-per-RTT step runs on the first ACK beyond `beg_snd_nxt`,
    /// i.e. on the first ACK of the next round, with the previous round's samples plus one.
    fn round(v: &mut Vegas, tp: &mut TcpCcState, rtt_us: i64) {
        let w = tp.snd_cwnd as u64;
        tp.snd_nxt = tp.snd_una + w * MSS;
        for _ in 0..w {
            v.pkts_acked(
                tp,
                &AckSample {
                    pkts_acked: 1,
                    rtt_us,
                    in_flight: w as u32,
                    ..Default::default()
                },
            );
            tp.snd_una += MSS;
            v.cong_avoid(tp, 1);
        }
    }

    fn setup(cwnd: u32, ssthresh: u32) -> (Vegas, TcpCcState) {
        let mut tp = TcpCcState::new(MSS as u32, cwnd, ssthresh);
        let mut v = Vegas::default();
        v.init(&mut tp);
        (v, tp)
    }

    /// RTT = baseRTT: diff = 0 < alpha, so +1 per RTT. Round 0 only has its first ACK's
    /// sample when the step runs (cntRTT = 1 → Reno, +1/cwnd credit); rounds 1..=19 add 1 each.
    #[test]
    fn grows_one_per_rtt_when_rtt_is_base() {
        let (mut v, mut tp) = setup(10, 5);
        for _ in 0..20 {
            round(&mut v, &mut tp, 100_000);
        }
        assert_eq!(tp.snd_cwnd, 29);
        assert_eq!(v.baseRTT, 100_001);
        // tcp_current_ssthresh keeps ssthresh at max(ssthresh, 3/4 cwnd) ≤ cwnd: still CA.
        assert_eq!(tp.snd_ssthresh, 21); // 14 + 7
        assert!(!tp.in_slow_start());
    }

    /// baseRTT 100 ms, then RTT 110 ms at cwnd 100: diff = 100·10 000/100 001 = 9 > beta.
    /// Round 1's step still sees round 0's 100 ms samples (diff 0: +1 → 101); rounds 2..=11
    /// see 110 ms: −1 each (diff stays 9..10) → 91.
    #[test]
    fn shrinks_one_per_rtt_when_diff_above_beta() {
        let (mut v, mut tp) = setup(100, 50);
        round(&mut v, &mut tp, 100_000);
        round(&mut v, &mut tp, 110_000);
        assert_eq!(tp.snd_cwnd, 101);
        for _ in 0..10 {
            round(&mut v, &mut tp, 110_000);
        }
        assert_eq!(tp.snd_cwnd, 91);
        // The decrease sets ssthresh = min(ssthresh, cwnd), then ≥ 3/4 cwnd: not slow start.
        assert!(tp.snd_ssthresh <= tp.snd_cwnd && tp.snd_ssthresh >= 68);
    }

    /// docs/references.md §3.6 hold band: baseRTT 100 ms, cwnd 100, rtt 103 ms →
    /// diff = 100·3000/100 001 = 2.99997 → 2 (integer), alpha ≤ 2 ≤ beta: hold.
    /// (Round 1 still sees round 0's base samples: +1 → 101; 101·3000/100 001 = 3: hold.)
    #[test]
    fn holds_when_diff_between_alpha_and_beta() {
        let (mut v, mut tp) = setup(100, 50);
        round(&mut v, &mut tp, 100_000);
        for _ in 0..10 {
            round(&mut v, &mut tp, 103_000);
        }
        assert_eq!(tp.snd_cwnd, 101);
    }

    /// The band edges in CA, one step at cwnd 100, baseRTT 100 001 µs and
    /// rtt = baseRTT + d ms + 1 µs, so diff = 100·(1000d + 1)/100 001 = d (integer):
    /// d = 1 < alpha → +1; d = 2 = alpha and d = 4 = beta → hold; d = 5 > beta → −1.
    #[test]
    fn diff_band_edges() {
        for (d, want) in [(0u32, 101u32), (1, 101), (2, 100), (4, 100), (5, 99)] {
            assert_eq!(band_step(Vegas::default(), d), want, "diff {d}");
        }
    }

    /// `v`'s step in CA at cwnd 100 (ssthresh 50), baseRTT 100 001 µs and the RTT's
    /// minimum baseRTT + d ms + 1 µs, so diff = d: the cwnd after it.
    fn band_step(mut v: Vegas, d: u32) -> u32 {
        let mut tp = TcpCcState::new(MSS as u32, 100, 50);
        v.init(&mut tp);
        v.baseRTT = 100_001;
        v.minRTT = 100_001 + d * 1000 + 1;
        v.cntRTT = 3;
        tp.snd_una = 1;
        v.cong_avoid(&mut tp, 1);
        assert_eq!((v.cntRTT, v.minRTT), (0, RTT_INF));
        tp.snd_cwnd
    }

    /// Settles where alpha ≤ diff ≤ beta. Bottleneck of 50 packets per 100 ms base RTT:
    /// RTT = 100 ms + 2 ms per packet above 50, so diff ≈ packets queued = cwnd − 50.
    /// By hand, with the one-round lag of the samples: 50 → 51 (diff 0) → 52 (diff 0, samples
    /// from 50) → 53 (52·2000/100 001 = 1) → hold (53·4000/100 001 = 2, then 53·6000/… = 3).
    #[test]
    fn settles_with_alpha_to_beta_packets_queued() {
        let rtt = |w: u32| 100_000 + 2_000 * (w.saturating_sub(50) as i64);
        let (mut v, mut tp) = setup(20, 10);
        let mut hist = vec![];
        for _ in 0..60 {
            let r = rtt(tp.snd_cwnd);
            round(&mut v, &mut tp, r);
            hist.push(tp.snd_cwnd);
        }
        assert!(hist[40..].iter().all(|&w| w == 53), "{hist:?}");
        let diff = 53 * (rtt(53) as u64 + 1 - 100_001) / 100_001;
        assert!((2..=4).contains(&diff), "diff {diff}");
    }

    /// Slow start exits when diff > gamma: cwnd = min(cwnd, target_cwnd + 1),
    /// ssthresh = min(ssthresh, cwnd). Rounds at 100 ms double 10 → 20 → 40; the round at
    /// 110 ms still doubles (its step sees round 1's 100 ms samples) → 80; the next step sees
    /// 110 ms: target = 80·100 001/110 001 = 72, diff = 80·10 000/100 001 = 7 > 1 →
    /// cwnd 73, ssthresh 73, and no more slow-start growth in that round.
    #[test]
    fn slow_start_exit_when_diff_above_gamma() {
        let (mut v, mut tp) = setup(10, u32::MAX);
        round(&mut v, &mut tp, 100_000);
        assert_eq!(tp.snd_cwnd, 20);
        round(&mut v, &mut tp, 100_000);
        assert_eq!(tp.snd_cwnd, 40);
        round(&mut v, &mut tp, 110_000);
        assert_eq!(tp.snd_cwnd, 80);
        round(&mut v, &mut tp, 110_000);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (73, 73));
        assert!(!tp.in_slow_start());
        // Queue-free slow start (diff ≤ gamma) keeps doubling.
        let (mut v, mut tp) = setup(10, u32::MAX);
        for _ in 0..4 {
            round(&mut v, &mut tp, 100_000);
        }
        assert_eq!(tp.snd_cwnd, 160);
    }

    /// cwnd never goes below 2. RTT 10× base from round 1 on: the steps give 3 → 4 (round 1
    /// still sees base samples), 3 (diff 35), 2 (diff 26), then 1 (diff 17) → raised to 2.
    #[test]
    fn cwnd_floor_is_two() {
        let (mut v, mut tp) = setup(3, 2);
        round(&mut v, &mut tp, 100_000);
        let mut hist = vec![];
        for _ in 0..4 {
            round(&mut v, &mut tp, 1_000_000);
            hist.push(tp.snd_cwnd);
        }
        assert_eq!(hist, vec![4, 3, 2, 2]);
        assert_eq!(tp.snd_ssthresh, 1);
    }

    /// ≤ 2 samples per RTT (delayed ACKs for the whole window): Reno instead.
    #[test]
    fn too_few_samples_fall_back_to_reno() {
        let (mut v, mut tp) = setup(10, 5);
        tp.snd_nxt = 10 * MSS;
        v.pkts_acked(
            &mut tp,
            &AckSample {
                pkts_acked: 5,
                rtt_us: 100_000,
                in_flight: 10,
                ..Default::default()
            },
        );
        tp.snd_una = 5 * MSS;
        v.cong_avoid(&mut tp, 5);
        v.pkts_acked(
            &mut tp,
            &AckSample {
                pkts_acked: 5,
                rtt_us: 500_000,
                in_flight: 5,
                ..Default::default()
            },
        );
        tp.snd_una = 10 * MSS;
        v.cong_avoid(&mut tp, 5);
        // The step runs at the first ACK beyond beg_snd_nxt (= 0 at init): Reno credit 5.
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt, v.cntRTT), (10, 5, 1));
        assert_eq!(v.beg_snd_nxt, 10 * MSS);
        tp.snd_nxt = 20 * MSS;
        v.pkts_acked(
            &mut tp,
            &AckSample {
                pkts_acked: 5,
                rtt_us: 500_000,
                in_flight: 10,
                ..Default::default()
            },
        );
        tp.snd_una = 15 * MSS;
        v.cong_avoid(&mut tp, 5);
        // cntRTT = 2 → Reno: credits 10 ≥ cwnd → +1, although RTT rose 5×.
        assert_eq!(tp.snd_cwnd, 11);
    }

    /// Outside CA_Open Vegas is off (Reno); back in Open it waits a full RTT of fresh samples.
    /// Loss: Reno halving. TX_START / CWND_RESTART forget baseRTT.
    #[test]
    fn state_changes_and_loss() {
        let (mut v, mut tp) = setup(100, 50);
        round(&mut v, &mut tp, 100_000);
        tp.snd_cwnd = 80;
        assert_eq!(v.ssthresh(&mut tp), 40);
        v.set_state(&mut tp, CaState::Recovery);
        assert!(!v.doing_vegas_now);
        tp.snd_cwnd = 40;
        tp.snd_ssthresh = 40;
        tp.snd_nxt = tp.snd_una + 40 * MSS;
        v.set_state(&mut tp, CaState::Open);
        assert!(v.doing_vegas_now);
        assert_eq!(
            (v.beg_snd_nxt, v.cntRTT, v.minRTT),
            (tp.snd_nxt, 0, RTT_INF)
        );
        assert_eq!(v.baseRTT, 100_001);
        v.cwnd_event(&mut tp, CaEvent::TxStart);
        assert_eq!(v.baseRTT, RTT_INF);
        tp.prior_cwnd = 80;
        assert_eq!(v.undo_cwnd(&mut tp), 80);
        let mut s = String::new();
        v.diag(&mut s);
        assert!(s.starts_with(" vegas:(enabled:1,"), "{s}");
    }

    /// A Vegas configured from its options, as a scenario's keys make it.
    fn configured(set: impl FnOnce(&mut Options)) -> Vegas {
        crate::cc::configured(|o| set(&mut o.vegas))
    }

    /// `vegas_alpha = 6`, `vegas_beta = 8` move the hold band to 6 ≤ diff ≤ 8, as
    /// `diff_band_edges` with the same arithmetic: d = 5 < alpha → +1; d = 6 and 8 →
    /// hold; d = 9 > beta → −1 (each would be −1 at the defaults 2 and 4).
    #[test]
    fn alpha_beta_options_move_the_band() {
        for (d, want) in [(5u32, 101u32), (6, 100), (8, 100), (9, 99)] {
            let v = configured(|o| {
                o.alpha = 6;
                o.beta = 8;
            });
            assert_eq!(band_step(v, d), want, "diff {d}");
        }
    }

    /// `vegas_gamma = 7`: the step of `slow_start_exit_when_diff_above_gamma` (cwnd 80,
    /// diff 7) no longer ends slow start (7 is not > 7), so the round doubles to 160; at
    /// the default 1 it ends at 73.
    #[test]
    fn gamma_option_sets_the_slow_start_exit() {
        for (gamma, want) in [(1, 73), (7, 160)] {
            let mut v = configured(|o| o.gamma = gamma);
            let mut tp = TcpCcState::new(MSS as u32, 10, u32::MAX);
            v.init(&mut tp);
            for r in [100_000, 100_000, 110_000, 110_000] {
                round(&mut v, &mut tp, r);
            }
            assert_eq!(tp.snd_cwnd, want, "gamma {gamma}");
        }
    }
}
