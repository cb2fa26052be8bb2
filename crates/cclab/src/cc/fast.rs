//! FAST TCP, after Jin, Wei & Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", IEEE INFOCOM 2004 and IEEE/ACM ToN 14(6), 2006 (docs/references.md §3.7).
//! Not in mainline Linux (the Caltech prototype was a separate patch, later the commercial
//! FastSoft stack); there is no kernel file to follow, so this is our own implementation of
//! the paper's window law, shaped like `tcp_vegas.c` (same once-per-RTT machinery).
//!
//! Window control, once per RTT:
//!   w ← min{ 2w, (1 − γ)·w + γ·(baseRTT/avgRTT · w + α) }
//! baseRTT = minimum RTT seen, avgRTT = EWMA of the RTT samples with weight
//! η = min(3/cwnd, 1/4) per sample (the paper's estimation component [M]), α in packets,
//! γ ∈ (0, 1]. Equilibrium: w·(avgRTT − baseRTT)/avgRTT = α, i.e. each flow keeps α packets
//! queued in the path; near it the window error shrinks by (1 − γ) per update.
//! Loss: the paper leaves loss recovery to the TCP stack's (Reno/NewReno) mechanism, which
//! halves the window [M]; here `ssthresh` = max(cwnd/2, 2) and undo as Reno.
//!
//! Deviations / choices (one per line):
//! - α and γ are the keys `fast_alpha` and `fast_gamma` (any TCP table); defaults α = 100
//!   packets (Caltech Gb/s experiments used α ~ 100–200 [M]), γ = 0.5.
//! - The law runs on a real-valued window (`fast_cwnd`), rounded into the integer `snd_cwnd`.
//! - Increases paced over the next RTT (≤ 1 segment per acked segment); decreases at once.
//! - No MI mode α(w, q) = a·w at zero queueing delay (prototype detail); 2w caps the startup.
//! - Until an RTT has ≥ 3 samples (and outside CA_Open), grow as Reno, as `tcp_vegas.c` does.
//! - Units: RTTs in µs from `AckSample::rtt_us`; no pacing/burstiness control otherwise.

use super::{reno, AckSample, CaEvent, CaState, CongestionOps, TcpCcState};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// One FAST TCP window update (the paper's law), windows in packets, RTTs in any one unit.
pub fn fast_window_update(w: f64, base_rtt: f64, avg_rtt: f64, alpha: f64, gamma: f64) -> f64 {
    (2.0 * w).min((1.0 - gamma) * w + gamma * (base_rtt / avg_rtt * w + alpha))
}

#[derive(Clone, Debug)]
#[allow(non_snake_case)] // the paper's names: baseRTT, avgRTT
pub struct Fast {
    /// α: packets each flow keeps queued in equilibrium.
    pub alpha: f64,
    /// γ ∈ (0, 1]: fraction of the way to the target taken per update.
    pub gamma: f64,

    /// Minimum RTT seen, µs (`u32::MAX` = none).
    pub baseRTT: u32,
    /// EWMA of the RTT samples, µs (0 = no sample yet).
    pub avgRTT: f64,
    /// RTT samples since the last update.
    pub cntRTT: u32,
    /// Right edge of the current RTT (`snd_nxt` when it began).
    pub beg_snd_nxt: u64,
    /// FAST is running (CA_Open); otherwise Reno.
    pub doing_fast_now: bool,
    /// The real-valued window set by the last update (the target `snd_cwnd` is raised to).
    pub fast_cwnd: f64,
    /// Updates done (for `diag` and tests).
    pub updates: u64,
}

impl Default for Fast {
    fn default() -> Self {
        Fast {
            alpha: 100.0,
            gamma: 0.5,
            baseRTT: u32::MAX,
            avgRTT: 0.0,
            cntRTT: 0,
            beg_snd_nxt: 0,
            doing_fast_now: true,
            fast_cwnd: 0.0,
            updates: 0,
        }
    }
}

impl Fast {
    /// Start a fresh measurement RTT (like `vegas_enable`).
    fn fast_enable(&mut self, tp: &TcpCcState) {
        self.doing_fast_now = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cntRTT = 0;
        self.fast_cwnd = tp.snd_cwnd as f64;
    }

    /// Reno growth, keeping the real-valued window in step with it.
    fn reno(&mut self, tp: &mut TcpCcState, acked: u32) {
        reno::reno_cong_avoid(tp, acked);
        self.fast_cwnd = tp.snd_cwnd as f64;
    }

    /// The window the last update asked for, as an integer ≥ 2.
    fn target(&self, tp: &TcpCcState) -> u32 {
        (self.fast_cwnd.round() as u32).clamp(2, tp.snd_cwnd_clamp.max(2))
    }
}

/// FAST's two parameters (the paper's α and γ), with cclab's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// α, packets each flow keeps queued in equilibrium.
    pub alpha: f64,
    /// γ ∈ (0, 1], the fraction of the way to the target taken per update.
    pub gamma: f64,
}

impl Default for Options {
    fn default() -> Options {
        let f = Fast::default();
        Options {
            alpha: f.alpha,
            gamma: f.gamma,
        }
    }
}

impl super::Configure for Fast {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &OPTIONS.keys[0], &mut o.fast.alpha);
        ck.get_into(t, &OPTIONS.keys[1], &mut o.fast.gamma);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.alpha = o.fast.alpha;
        self.gamma = o.fast.gamma;
    }
}

static OPTIONS: Schema = Schema {
    title: "FAST TCP options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[
        Key {
            name: "fast_alpha",
            ty: Ty::Real(0.0, 1e6),
            default: "`100`",
            allowed: "",
            meaning: "FAST's α, packets: the backlog each flow keeps in the path's queues at equilibrium, so N flows with α_i share a bottleneck with Σα_i packets queued and rates in the ratio of their α_i whatever their RTTs (Jin, Wei & Low, INFOCOM 2004 / ToN 2006; docs/references.md §3.7)",
        },
        Key {
            name: "fast_gamma",
            ty: Ty::Real(0.0, 1.0),
            default: "`0.5`",
            allowed: "",
            meaning: "FAST's γ: each once-per-RTT update moves the window this fraction of the way to baseRTT/RTT·w + α (γ = 1: all the way); near equilibrium the window error shrinks by 1 − γ per update",
        },
    ],
    with: &[],
    variants: None,
};

impl CongestionOps for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn init(&mut self, tp: &mut TcpCcState) {
        self.baseRTT = u32::MAX;
        self.avgRTT = 0.0;
        self.updates = 0;
        self.fast_enable(tp);
    }

    /// Loss: Reno halving (`tcp_reno_ssthresh`).
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        super::reno::reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        if !tp.is_cwnd_limited {
            return;
        }
        if !self.doing_fast_now || self.avgRTT == 0.0 {
            self.reno(tp, acked);
            return;
        }
        if tp.snd_una > self.beg_snd_nxt {
            // Once per RTT: the window update.
            self.beg_snd_nxt = tp.snd_nxt;
            let enough = self.cntRTT > 2;
            self.cntRTT = 0;
            if !enough {
                self.reno(tp, acked);
                return;
            }
            // Continue from the real-valued window if snd_cwnd got there (paced), else from
            // snd_cwnd (something else moved it).
            let w = if tp.snd_cwnd == self.target(tp) {
                self.fast_cwnd
            } else {
                tp.snd_cwnd as f64
            };
            let w = fast_window_update(w, self.baseRTT as f64, self.avgRTT, self.alpha, self.gamma);
            self.fast_cwnd = w.clamp(2.0, tp.snd_cwnd_clamp.max(2) as f64);
            self.updates += 1;
            let target = self.target(tp);
            if target < tp.snd_cwnd {
                // Decrease at once.
                tp.snd_cwnd = target;
            }
        }
        // Increase paced over the ACKs of the next RTT.
        let target = self.target(tp);
        if tp.snd_cwnd < target {
            tp.snd_cwnd = tp.snd_cwnd.saturating_add(acked).min(target);
        }
    }

    /// Leaving CA_Open stops FAST (Reno rules recovery); back in Open, a fresh RTT of samples.
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if new_state == CaState::Open {
            self.fast_enable(tp);
        } else {
            self.doing_fast_now = false;
        }
    }

    /// Restart after idle: wait for fresh samples (baseRTT and avgRTT are kept).
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        if matches!(ev, CaEvent::CwndRestart | CaEvent::TxStart) && self.doing_fast_now {
            self.fast_enable(tp);
        }
    }

    /// Estimation: baseRTT = min, avgRTT ← (1 − η)·avgRTT + η·rtt, η = min(3/cwnd, 1/4).
    fn pkts_acked(&mut self, tp: &mut TcpCcState, sample: &AckSample) {
        if sample.rtt_us < 0 {
            return;
        }
        let rtt = sample.rtt_us.clamp(1, u32::MAX as i64) as u32;
        self.baseRTT = self.baseRTT.min(rtt);
        if self.avgRTT == 0.0 {
            self.avgRTT = rtt as f64;
        } else {
            let eta = (3.0 / tp.snd_cwnd.max(1) as f64).min(0.25);
            self.avgRTT += eta * (rtt as f64 - self.avgRTT);
        }
        self.cntRTT += 1;
    }

    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " fast:(alpha:{},gamma:{},baseRTT:{}us,avgRTT:{:.0}us,w:{:.1})",
            self.alpha, self.gamma, self.baseRTT, self.avgRTT, self.fast_cwnd
        );
    }

    /// baseRTT, avgRTT (in s) and the real-valued window `w` of the last update.
    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 3] = [
            StateVar::num("baseRTT_s"),
            StateVar::num("avgRTT_s"),
            StateVar::num("w"),
        ];
        &V
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        out[0] = super::state::us_s(self.baseRTT.into(), u32::MAX.into());
        out[1] = if self.avgRTT > 0.0 {
            self.avgRTT / 1e6
        } else {
            f64::NAN
        };
        out[2] = if self.updates > 0 {
            self.fast_cwnd
        } else {
            f64::NAN
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;
    /// Bottleneck: C·base = 400 packets (4000 packets/s, base RTT 100 ms).
    const BASE_US: f64 = 100_000.0;
    const C_PER_US: f64 = 0.004;

    /// One flow on a FIFO bottleneck: RTT = base + (w − C·base)/C when w > C·base.
    fn rtt_us(w: f64) -> f64 {
        BASE_US + ((w - C_PER_US * BASE_US) / C_PER_US).max(0.0)
    }

    /// Fixed point: baseRTT/RTT·w + α = w ⇔ w·q/RTT = α packets queued; on this bottleneck
    /// w* = C·base + α = 500 (RTT 125 ms, 100 packets in the queue).
    #[test]
    fn equilibrium_keeps_alpha_packets_queued() {
        let w = 500.0;
        let rtt = rtt_us(w);
        assert_eq!(rtt, 125_000.0);
        assert!((fast_window_update(w, BASE_US, rtt, 100.0, 0.5) - w).abs() < 1e-9);
        assert!((w * (rtt - BASE_US) / rtt - 100.0).abs() < 1e-9);
        assert_eq!(w - C_PER_US * BASE_US, 100.0);
    }

    /// The law on the queue model. Above C·base, base/RTT·w = C·base, so
    /// w' − w* = (1 − γ)(w − w*) exactly; below it, w' = min(2w, w + γα).
    /// From 10 (γ = 0.5): 20, 40, 80, 130, …, 430, then 465, 482.5, 491.25 (within 2 % of
    /// 500 after 13 updates); from 1000: 750, 625, …, 507.8 after 6.
    #[test]
    fn law_converges_geometrically_by_one_minus_gamma() {
        let step = |w: f64, gamma: f64| fast_window_update(w, BASE_US, rtt_us(w), 100.0, gamma);
        let mut w: f64 = 10.0;
        let mut n = 0;
        while (w - 500.0).abs() > 10.0 {
            let next = step(w, 0.5);
            if w > 400.0 {
                assert!(((next - 500.0) / (w - 500.0) - 0.5).abs() < 1e-12);
            } else {
                assert_eq!(next, (2.0 * w).min(w + 50.0));
            }
            w = next;
            n += 1;
        }
        assert_eq!((n, w), (13, 491.25));
        let mut w = 1000.0;
        for _ in 0..6 {
            w = step(w, 0.5);
        }
        assert!((w - 507.8125).abs() < 1e-9);
        // γ = 0.25: the error shrinks by 0.75 per update.
        let (w0, w1) = (600.0, step(600.0, 0.25));
        assert!(((w1 - 500.0) / (w0 - 500.0) - 0.75).abs() < 1e-12);
    }

    /// Through the hooks: one round per RTT, each segment acked alone with the RTT the
    /// window of that round sees (the core calls `pkts_acked`, then `cong_avoid`). The step
    /// runs on the first ACK of a round, on the previous round's samples (one RTT of feedback
    /// delay). From cwnd 10: Reno for the first round (< 3 samples), then the law: doubling
    /// to 88, +γα = 50 per RTT to 488, then it converges to C·base + α = 500 within 2 % in
    /// ≤ 20 RTTs and stays (α = 100 packets queued). With the feedback delay the error decays
    /// as a damped oscillation, roots of λ² − (1 − γ + γr)λ + γr with r = C·base/w* = 0.8,
    /// |λ| = √(γr) ≈ 0.63 per RTT, instead of exactly 1 − γ.
    fn hooks_on_synthetic_bottleneck(f: &mut Fast, rounds: usize) -> Vec<u32> {
        let mut tp = TcpCcState::new(MSS as u32, 10, u32::MAX);
        f.init(&mut tp);
        let mut hist = vec![];
        for _ in 0..rounds {
            let w = tp.snd_cwnd;
            let rtt = rtt_us(w as f64) as i64;
            tp.snd_nxt = tp.snd_una + w as u64 * MSS;
            for _ in 0..w {
                f.pkts_acked(
                    &mut tp,
                    &AckSample {
                        pkts_acked: 1,
                        rtt_us: rtt,
                        in_flight: w,
                        ..Default::default()
                    },
                );
                tp.snd_una += MSS;
                f.cong_avoid(&mut tp, 1);
            }
            hist.push(tp.snd_cwnd);
        }
        hist
    }

    #[test]
    fn hooks_converge_on_synthetic_bottleneck() {
        let mut f = Fast::default();
        let hist = hooks_on_synthetic_bottleneck(&mut f, 40);
        let first = hist
            .iter()
            .position(|&w| (w as f64 - 500.0).abs() <= 10.0)
            .unwrap();
        assert!(first < 20, "{hist:?}");
        assert!(
            hist[20..].iter().all(|&w| (w as f64 - 500.0).abs() <= 10.0),
            "{hist:?}"
        );
        assert!(hist[30..].iter().all(|&w| w == 500), "{hist:?}");
        // The lagged loop overshoots a little: hist = [11, 22, 44, 88, 138, …, 488, 518, 522,
        // 514, 504, 498, 496, 497, 499, 500, 501, 501, 500, …].
        assert!(hist.iter().all(|&w| w <= 530), "{hist:?}");
        assert!((f.avgRTT - 125_000.0).abs() < 1.0);
        assert_eq!(f.baseRTT, 100_000);
        // Never more than doubling per RTT.
        assert!(hist.windows(2).all(|p| p[1] <= 2 * p[0]));
    }

    /// α, set as a key, moves the fixed point of the law: w = w·baseRTT/RTT + α, so the
    /// flow's backlog w·(1 − baseRTT/RTT) is α packets. On the synthetic bottleneck
    /// (C·base = 400) α = 50 settles at w* = 450 (RTT 112.5 ms) and α = 200 at 600 (RTT
    /// 150 ms), each with exactly α packets queued; γ only sets how fast it gets there.
    #[test]
    fn alpha_sets_the_equilibrium() {
        use super::super::{Cc, CcOptions};
        for (alpha, gamma, w_star) in [(50.0, 0.5, 450), (200.0, 0.5, 600), (50.0, 0.25, 450)] {
            let o = CcOptions {
                fast: Options { alpha, gamma },
                ..Default::default()
            };
            let Ok(Cc::Fast(mut f)) = Cc::new("fast", &o) else {
                panic!("fast is registered");
            };
            assert_eq!((f.alpha, f.gamma), (alpha, gamma));
            let hist = hooks_on_synthetic_bottleneck(&mut f, 60);
            assert!(
                hist[45..].iter().all(|&w| w == w_star),
                "{alpha} {gamma}: {hist:?}"
            );
            let w = w_star as f64;
            let rtt = rtt_us(w);
            assert!((fast_window_update(w, BASE_US, rtt, alpha, gamma) - w).abs() < 1e-9);
            assert!(
                (w * (1.0 - BASE_US / rtt) - alpha).abs() < 1e-9,
                "backlog = α"
            );
            assert!((f.avgRTT - rtt).abs() < 1.0);
        }
        // The defaults are the ones the experiments ran before α and γ were keys.
        assert_eq!(
            Options::default(),
            Options {
                alpha: 100.0,
                gamma: 0.5
            }
        );
    }

    /// `fast_alpha` and `fast_gamma` from a scenario, in `[tcp]` or per flow; a value
    /// outside α > 0, γ ∈ (0, 1] is refused naming the file, key, value and range.
    #[test]
    fn options_from_a_scenario() {
        let text = |tcp: &str| {
            format!(
                "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 2\n\
                 bottleneck = {{ rate = \"1Gbps\", delay = \"10ms\" }}\n\
                 [tcp]\ncc = \"fast\"\n{tcp}\n\
                 [[flow]]\nfrom = \"s0\"\nto = \"r0\"\n\
                 [[flow]]\nfrom = \"s1\"\nto = \"r1\"\nfast_alpha = 30\n"
            )
        };
        let sc = crate::scenario::parse_scenario(
            &text("fast_alpha = 200\nfast_gamma = 0.25"),
            "f.toml",
            &[],
        )
        .expect("valid");
        let o = |i: usize| sc.apps.flows[i].tcp.cc_options.fast.clone();
        assert_eq!(
            (o(0).alpha, o(0).gamma, o(1).alpha, o(1).gamma),
            (200.0, 0.25, 30.0, 0.25)
        );
        for (line, key, value) in [
            ("fast_gamma = 0", "tcp.fast_gamma", "0"),
            ("fast_gamma = 1.5", "tcp.fast_gamma", "1.5"),
            ("fast_alpha = -1", "tcp.fast_alpha", "-1"),
            ("fast_alpha = 0.0", "tcp.fast_alpha", "0.0"),
            ("fast_alpha = nan", "tcp.fast_alpha", "NaN"),
            ("fast_alpha = \"100\"", "tcp.fast_alpha", "\"100\""),
        ] {
            let errs = crate::scenario::parse_scenario(&text(line), "f.toml", &[]).unwrap_err();
            assert_eq!(errs.len(), 1, "{line}: {errs:?}");
            let e = &errs[0];
            assert_eq!(
                (e.file.as_str(), e.key.as_str(), e.value.as_str()),
                ("f.toml", key, value),
                "{line}"
            );
            let range = if key == "tcp.fast_gamma" {
                "a number above 0 and at most 1"
            } else {
                "a number above 0 and at most 1000000"
            };
            assert!(e.message.contains(range), "{line}: {}", e.message);
        }
    }

    /// avgRTT EWMA weight min(3/cwnd, 1/4); baseRTT is the minimum; no sample → ignored.
    #[test]
    fn rtt_estimation() {
        let mut tp = TcpCcState::new(MSS as u32, 4, u32::MAX);
        let mut f = Fast::default();
        f.init(&mut tp);
        let s = |rtt_us| AckSample {
            pkts_acked: 1,
            rtt_us,
            in_flight: 4,
            ..Default::default()
        };
        f.pkts_acked(&mut tp, &s(100_000));
        assert_eq!((f.avgRTT, f.baseRTT, f.cntRTT), (100_000.0, 100_000, 1));
        f.pkts_acked(&mut tp, &s(200_000)); // η = 1/4 (3/4 > 1/4)
        assert_eq!(f.avgRTT, 125_000.0);
        tp.snd_cwnd = 300; // η = 3/300 = 0.01
        f.pkts_acked(&mut tp, &s(25_000));
        assert_eq!((f.avgRTT, f.baseRTT), (124_000.0, 25_000));
        f.pkts_acked(&mut tp, &s(-1));
        assert_eq!(f.cntRTT, 3);
    }

    /// Increases are paced: at most one segment per acked segment after the update; a
    /// decrease applies at once. 2w cap: from 10 with no queue, 10 → 20 (not 10 + γα = 60).
    #[test]
    fn increase_is_paced_and_capped_at_double() {
        let mut tp = TcpCcState::new(MSS as u32, 10, u32::MAX);
        let mut f = Fast::default();
        f.init(&mut tp);
        f.avgRTT = 100_000.0;
        f.baseRTT = 100_000;
        f.cntRTT = 10;
        tp.snd_nxt = 10 * MSS;
        tp.snd_una = MSS;
        f.cong_avoid(&mut tp, 1);
        assert_eq!((f.fast_cwnd, tp.snd_cwnd), (20.0, 11));
        // The rest of this RTT's ACKs (snd_una ≤ beg_snd_nxt): +1 each up to 20.
        for _ in 0..9 {
            tp.snd_una += MSS;
            f.cong_avoid(&mut tp, 1);
        }
        assert_eq!((tp.snd_cwnd, f.updates), (20, 1));
        // Next RTT, queueing delay 2× base and α = 0: 0.5·20 + 0.5·(20/3) = 13.3 → cwnd drops
        // to 13 at once.
        f.alpha = 0.0;
        f.avgRTT = 300_000.0;
        f.cntRTT = 20;
        tp.snd_nxt = tp.snd_una + 20 * MSS;
        f.beg_snd_nxt = tp.snd_una;
        tp.snd_una += MSS;
        f.cong_avoid(&mut tp, 1);
        assert_eq!(tp.snd_cwnd, 13);
        assert!((f.fast_cwnd - 40.0 / 3.0).abs() < 1e-9);
    }

    /// Loss halves as Reno; outside CA_Open it grows as Reno; back in Open FAST restarts
    /// from the window the recovery left, after a fresh RTT of samples.
    #[test]
    fn loss_and_state_changes() {
        let mut tp = TcpCcState::new(MSS as u32, 500, 250);
        let mut f = Fast::default();
        f.init(&mut tp);
        assert_eq!(f.ssthresh(&mut tp), 250);
        tp.snd_cwnd = 3;
        assert_eq!(f.ssthresh(&mut tp), 2);
        f.set_state(&mut tp, CaState::Recovery);
        assert!(!f.doing_fast_now);
        tp.snd_cwnd = 250;
        tp.snd_nxt = 1_000 * MSS;
        f.set_state(&mut tp, CaState::Open);
        assert!(f.doing_fast_now);
        assert_eq!(
            (f.beg_snd_nxt, f.cntRTT, f.fast_cwnd),
            (1_000 * MSS, 0, 250.0)
        );
        // No RTT sample yet: Reno (CA: +1 per window).
        f.cong_avoid(&mut tp, 250);
        assert_eq!(tp.snd_cwnd, 251);
        tp.prior_cwnd = 500;
        assert_eq!(f.undo_cwnd(&mut tp), 500);
        let mut s = String::new();
        f.diag(&mut s);
        assert!(s.starts_with(" fast:(alpha:100,gamma:0.5,"), "{s}");
    }
}
