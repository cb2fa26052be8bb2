//! HSTCP-LP (HighSpeed TCP Low Priority): Kuzmanovic, Knightly & Cottrell, "HSTCP-LP: A
//! Protocol for Low-Priority Bulk Data Transfer in High-Speed High-RTT Networks", PFLDnet
//! 2004 — TCP-LP's early congestion indication (Kuzmanovic & Knightly, "TCP-LP: A
//! Distributed Algorithm for Low Priority Data Transfer", INFOCOM 2003) on top of
//! HighSpeed TCP's AIMD (RFC 3649, `cc/highspeed.rs`, reused, not copied).
//!
//! TCP-LP infers congestion before any loss from the one-way delay (OWD) of its packets:
//! a smoothed OWD `sowd` above `owd_min + δ·(owd_max − owd_min)`, δ = 0.15, is an *early
//! congestion indication* (ECI). On the first ECI the window is halved and an inference
//! phase starts (the inference time-out itt = 3 RTT); a second ECI within itt means the
//! cross traffic is still there, and the window drops to 1; while within itt the window
//! does not grow. Outside the inference phase, and on real losses, the flow is HighSpeed
//! TCP: a(w)/cwnd per ACK and the decrease b(w) of RFC 3649's table.
//!
//! Which source each rule follows (Linux `net/ipv4/tcp_lp.c` of 2.6.18 onwards is TCP-LP over
//! Reno; `ssthresh = tcp_reno_ssthresh`, `.cong_avoid = tcp_reno_cong_avoid` outside the
//! inference phase):
//! - OWD sample: `tcp_lp_owd_calculator`, the ACK's timestamp value (the receiver's clock
//!   when it sent the ACK) minus its echo (our clock when the acked segment left), made
//!   positive. Linux estimates the receiver's clock rate (`tcp_lp_remote_hz_estimator`);
//!   the simulated receiver stamps simulated time, so its rate is known: no estimator.
//!   Resolution 1 µs (Linux: `LP_RESOL` = 1 ms ticks).
//! - min / max OWD and the smoothed OWD: `tcp_lp_rtt_sample` (the max keeps a "reserve",
//!   `owd_max_rsv`, so one outlier does not set it; sowd ← 7/8·sowd + 1/8·owd, γ = 1/8 as
//!   TCP-LP's paper).
//! - itt: `tcp_lp_pkts_acked`, inference = 3 × (now − tsecr), three times the latest
//!   timestamp RTT, as the paper's itt = 3 RTT.
//! - threshold δ = 15 %: `tcp_lp_pkts_acked` (`15 * (owd_max − owd_min) / 100`), the paper's
//!   δ = 0.15; after an ECI Linux resets owd_min = sowd and owd_max = 2·sowd (kept).
//! - reaction: halve, or cwnd = 1 within itt: `tcp_lp_pkts_acked` and the paper. Linux
//!   sets only `snd_cwnd`, so a halved window below ssthresh slow-starts back within an
//!   RTT or two; the paper halves "as TCP does" and then increases additively. Default
//!   here: the paper's (ssthresh ← the halved window; a cut to 1 keeps that ssthresh, as
//!   after a timeout); `hstcp_lp_eci_ssthresh = false` gives Linux's.
//! - no growth within itt: `tcp_lp_cong_avoid`, and the paper's inference phase.
//! - growth and loss: HighSpeed TCP (`hstcp_cong_avoid`, `hstcp_ssthresh`): the HSTCP-LP
//!   paper's change to TCP-LP, which otherwise runs Reno's.
//!
//! Deviations (one per line): no remote-clock estimator (exact clocks); µs OWD resolution.

use super::highspeed::Highspeed;
use super::{AckSample, CongestionOps, TcpCcState};
use crate::engine::US;
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// HSTCP-LP's parameters, with the sources' values.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// δ in percent: the threshold between min and max OWD (TCP-LP: 0.15; `tcp_lp.c`: 15).
    pub delta_pct: u32,
    /// itt in RTTs (TCP-LP: 3; `tcp_lp.c`: `3 * delta`).
    pub itt_rtts: u32,
    /// γ = 1/2^shift, the OWD smoothing gain (TCP-LP: 1/8; `tcp_lp.c`: `sowd >> 3`).
    pub gamma_shift: u32,
    /// An ECI also sets ssthresh to the halved window (the paper's TCP-like halving); off:
    /// `tcp_lp.c`, which sets only cwnd.
    pub eci_ssthresh: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            delta_pct: 15,
            itt_rtts: 3,
            gamma_shift: 3,
            eci_ssthresh: true,
        }
    }
}

/// Linux `struct lp` (without the remote-HZ fields) over HighSpeed's `struct hstcp`.
#[derive(Clone, Debug)]
pub struct HstcpLp {
    /// HighSpeed TCP's state (the AIMD row).
    pub hs: Highspeed,
    /// Smoothed OWD, µs << `gamma_shift`.
    pub sowd: u32,
    pub owd_min: u32,
    pub owd_max: u32,
    pub owd_max_rsv: u32,
    /// Time of the last ECI, µs (0: none yet).
    pub last_drop: u64,
    /// The inference time-out, µs.
    pub inference: u64,
    /// `LP_WITHIN_INF`, `LP_WITHIN_THR`.
    pub within_inf: bool,
    pub within_thr: bool,
    /// ECIs answered by halving, and by cwnd = 1 (for `ss`).
    pub eci_halve: u64,
    pub eci_one: u64,
    pub opt: Options,
}

impl Default for HstcpLp {
    /// `tcp_lp_init`.
    fn default() -> HstcpLp {
        HstcpLp {
            hs: Highspeed::default(),
            sowd: 0,
            owd_min: u32::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: 0,
            inference: 0,
            within_inf: false,
            within_thr: false,
            eci_halve: 0,
            eci_one: 0,
            opt: Options::default(),
        }
    }
}

impl HstcpLp {
    /// `tcp_lp_rtt_sample`: record min / max OWD (the max through its reserve) and smooth.
    pub fn owd_sample(&mut self, mowd: u32) {
        if mowd == 0 {
            return; // `LP_VALID_OWD` unset
        }
        if mowd < self.owd_min {
            self.owd_min = mowd;
        }
        // Always forget the max of the max: owd_max is set one below it.
        if mowd > self.owd_max {
            if mowd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 {
                    mowd
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = mowd;
            } else {
                self.owd_max = mowd;
            }
        }
        let g = self.opt.gamma_shift;
        if self.sowd != 0 {
            let err = mowd as i64 - (self.sowd >> g) as i64;
            self.sowd = (self.sowd as i64 + err).max(0) as u32;
        } else {
            self.sowd = mowd << g;
        }
    }

    /// The smoothed OWD, µs.
    pub fn sowd_us(&self) -> u32 {
        self.sowd >> self.opt.gamma_shift
    }

    /// `LP_WITHIN_THR`: sowd below owd_min + δ·(owd_max − owd_min) (u32 arithmetic as
    /// Linux: before the first sample the difference wraps and the test holds).
    pub fn below_threshold(&self) -> bool {
        let span = self.owd_max.wrapping_sub(self.owd_min) as u64;
        let thr = self.owd_min as u64 + self.opt.delta_pct as u64 * span / 100;
        (self.sowd_us() as u64) < thr
    }

    /// The ECI test and reaction of `tcp_lp_pkts_acked` at `now_us`, after the OWD sample
    /// and with the latest timestamp RTT `ts_rtt_us` (0: none).
    pub fn infer(&mut self, tp: &mut TcpCcState, now_us: u64, ts_rtt_us: u64) {
        if ts_rtt_us > 0 {
            self.inference = self.opt.itt_rtts as u64 * ts_rtt_us;
        }
        self.within_inf = self.last_drop != 0 && now_us - self.last_drop < self.inference;
        self.within_thr = self.below_threshold();
        if self.within_thr {
            return;
        }
        // Reset min and max so they stay suitable (Linux's FIXME, kept).
        let s = self.sowd_us();
        self.owd_min = s;
        self.owd_max = s.saturating_mul(2);
        self.owd_max_rsv = self.owd_max;
        if self.within_inf {
            tp.snd_cwnd = 1;
            self.eci_one += 1;
        } else {
            tp.snd_cwnd = (tp.snd_cwnd >> 1).max(1);
            if self.opt.eci_ssthresh {
                tp.snd_ssthresh = tp.snd_cwnd.max(2);
            }
            self.eci_halve += 1;
        }
        tp.snd_cwnd_cnt = 0;
        self.last_drop = now_us.max(1);
    }
}

impl super::Configure for HstcpLp {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &OPTIONS.keys[0], &mut o.hstcp_lp.delta_pct);
        ck.get_into(t, &OPTIONS.keys[1], &mut o.hstcp_lp.itt_rtts);
        ck.get_into(t, &OPTIONS.keys[2], &mut o.hstcp_lp.gamma_shift);
        ck.get_into(t, &OPTIONS.keys[3], &mut o.hstcp_lp.eci_ssthresh);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.opt = o.hstcp_lp.clone();
    }
}

static OPTIONS: Schema = Schema {
    title: "HSTCP-LP options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[
        Key {
            name: "hstcp_lp_delta_pct",
            ty: Ty::Int(0, 100),
            default: "`15`",
            allowed: "",
            meaning: "TCP-LP's threshold δ in percent: an early congestion indication when the smoothed one-way delay exceeds min + δ·(max − min) (TCP-LP, INFOCOM 2003; `tcp_lp.c`)",
        },
        Key {
            name: "hstcp_lp_itt_rtts",
            ty: Ty::Int(1, 100),
            default: "`3`",
            allowed: "",
            meaning: "TCP-LP's inference time-out in RTTs: a second indication within it sets cwnd to 1, and cwnd does not grow within it",
        },
        Key {
            name: "hstcp_lp_gamma_shift",
            ty: Ty::Int(1, 10),
            default: "`3`",
            allowed: "",
            meaning: "the one-way-delay smoothing gain γ = 1/2^shift (TCP-LP: 1/8)",
        },
        Key {
            name: "hstcp_lp_eci_ssthresh",
            ty: Ty::Bool,
            default: "`true`",
            allowed: "",
            meaning: "an early congestion indication also sets ssthresh to the halved window (the paper's TCP-like halving, then additive increase); `false`: Linux `tcp_lp.c`, which sets only cwnd",
        },
    ],
    with: &[],
    variants: None,
};

impl CongestionOps for HstcpLp {
    fn name(&self) -> &'static str {
        "hstcp-lp"
    }

    fn init(&mut self, tp: &mut TcpCcState) {
        let opt = self.opt.clone();
        *self = HstcpLp {
            opt,
            ..HstcpLp::default()
        };
        self.hs.init(tp);
    }

    /// Loss: HighSpeed's b(w).
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        self.hs.ssthresh(tp)
    }

    /// `tcp_lp_cong_avoid` with HighSpeed's growth: none within the inference phase.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        if !self.within_inf {
            self.hs.cong_avoid(tp, acked);
        }
    }

    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        self.hs.undo_cwnd(tp)
    }

    /// `tcp_lp_pkts_acked`: OWD sample, inference phase, threshold, reaction.
    fn pkts_acked(&mut self, tp: &mut TcpCcState, s: &AckSample) {
        if s.rcv_tsecr == 0 {
            return; // no timestamps: no OWD (Linux: `LP_VALID_RHZ` never set)
        }
        let now_us = tp.now_us();
        if s.rtt_us > 0 {
            let owd = s.rcv_tsval.abs_diff(s.rcv_tsecr) / US;
            self.owd_sample(owd.min(u32::MAX as u64) as u32);
        }
        let ts_rtt = now_us.saturating_sub(s.rcv_tsecr / US);
        self.infer(tp, now_us, ts_rtt);
    }

    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " hstcp-lp:(sowd:{}us,owd_min:{}us,owd_max:{}us,eci_halve:{},eci_one:{})",
            self.sowd_us(),
            self.owd_min,
            self.owd_max,
            self.eci_halve,
            self.eci_one
        );
    }

    /// The one-way delays TCP-LP's inference reads (in s), then HighSpeed TCP's.
    fn state_vars(&self) -> &'static [super::StateVar] {
        use super::StateVar;
        static V: [StateVar; 6] = [
            StateVar::num("sowd_s"),
            StateVar::num("owd_min_s"),
            StateVar::num("owd_max_s"),
            super::highspeed::STATE[0],
            super::highspeed::STATE[1],
            super::highspeed::STATE[2],
        ];
        &V
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        use super::state::us_s;
        out[0] = us_s(self.sowd_us().into(), 0);
        out[1] = us_s(self.owd_min.into(), u32::MAX.into());
        out[2] = us_s(self.owd_max.into(), 0);
        self.hs.state_into(&mut out[3..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp_in_ca(cwnd: u32) -> (HstcpLp, TcpCcState) {
        let mut tp = TcpCcState::new(1448, 10, 2);
        let mut lp = HstcpLp::default();
        lp.init(&mut tp);
        tp.snd_cwnd = cwnd;
        tp.snd_ssthresh = cwnd;
        (lp, tp)
    }

    /// The paper's numbers are the defaults: δ = 0.15, itt = 3 RTT, γ = 1/8.
    #[test]
    fn defaults_are_the_papers() {
        let o = Options::default();
        assert_eq!((o.delta_pct, o.itt_rtts, o.gamma_shift), (15, 3, 3));
        assert!(o.eci_ssthresh);
        assert_eq!(HstcpLp::default().name(), "hstcp-lp");
    }

    /// γ = 1/8: sowd moves 1/8 of the error per sample (`sowd = 7/8 sowd + 1/8 owd`).
    #[test]
    fn sowd_is_an_eighth_ewma() {
        let mut lp = HstcpLp::default();
        lp.owd_sample(40_000);
        assert_eq!(lp.sowd_us(), 40_000);
        lp.owd_sample(48_000);
        assert_eq!(lp.sowd_us(), 41_000);
        // Converges to a constant sample.
        for _ in 0..200 {
            lp.owd_sample(48_000);
        }
        assert!(
            (47_990..=48_000).contains(&lp.sowd_us()),
            "{}",
            lp.sowd_us()
        );
        // A zero sample is invalid (`LP_VALID_OWD`) and changes nothing.
        let s = lp.sowd;
        lp.owd_sample(0);
        assert_eq!(lp.sowd, s);
    }

    /// The max keeps a reserve: one outlier sets `owd_max_rsv`, the max is the one below.
    #[test]
    fn max_owd_forgets_the_max_of_the_max() {
        let mut lp = HstcpLp::default();
        lp.owd_sample(40_000);
        assert_eq!(
            (lp.owd_min, lp.owd_max, lp.owd_max_rsv),
            (40_000, 40_000, 40_000)
        );
        lp.owd_sample(100_000);
        assert_eq!((lp.owd_max, lp.owd_max_rsv), (40_000, 100_000));
        lp.owd_sample(60_000);
        assert_eq!((lp.owd_max, lp.owd_max_rsv), (60_000, 100_000));
        lp.owd_sample(30_000);
        assert_eq!(lp.owd_min, 30_000);
    }

    /// δ = 0.15 with min 40 ms, max 140 ms: the threshold is 55 ms; sowd 54.9 ms is within,
    /// 55 ms is an indication.
    #[test]
    fn threshold_is_fifteen_percent_between_min_and_max() {
        let mut lp = HstcpLp::default();
        assert!(lp.below_threshold(), "no sample yet: never an indication");
        lp.owd_min = 40_000;
        lp.owd_max = 140_000;
        lp.sowd = 54_999 << 3;
        assert!(lp.below_threshold());
        lp.sowd = 55_000 << 3;
        assert!(!lp.below_threshold());
    }

    /// First ECI halves (and sets ssthresh, the paper's default); a second within
    /// itt = 3 RTT sets cwnd = 1; one after itt halves again. RTT 100 ms: itt = 300 ms.
    #[test]
    fn halve_then_one_within_itt_then_halve_after() {
        let (mut lp, mut tp) = lp_in_ca(1000);
        let rtt = 100_000;
        let force = |lp: &mut HstcpLp| {
            lp.owd_min = 40_000;
            lp.owd_max = 140_000;
            lp.sowd = 100_000 << 3; // well above 55 ms
        };
        force(&mut lp);
        lp.infer(&mut tp, 1_000_000, rtt);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (500, 500));
        assert_eq!((lp.last_drop, lp.inference), (1_000_000, 300_000));
        // The reset after an ECI: min = sowd, max = 2·sowd.
        assert_eq!((lp.owd_min, lp.owd_max), (100_000, 200_000));
        // Within itt (299 ms later) a second indication: cwnd = 1, ssthresh kept.
        force(&mut lp);
        lp.infer(&mut tp, 1_299_999, rtt);
        assert!(lp.within_inf);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (1, 500));
        // After itt (≥ 300 ms after the last) it halves again.
        tp.snd_cwnd = 400;
        force(&mut lp);
        lp.infer(&mut tp, 1_599_999 + 1, rtt);
        assert!(!lp.within_inf);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (200, 200));
        assert_eq!((lp.eci_halve, lp.eci_one), (2, 1));
    }

    /// Linux's reaction (`hstcp_lp_eci_ssthresh = false`): cwnd only.
    #[test]
    fn linux_reaction_sets_cwnd_only() {
        let (mut lp, mut tp) = lp_in_ca(1000);
        lp.opt.eci_ssthresh = false;
        tp.snd_ssthresh = 5000;
        lp.owd_min = 40_000;
        lp.owd_max = 140_000;
        lp.sowd = 100_000 << 3;
        lp.infer(&mut tp, 1_000_000, 100_000);
        assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (500, 5000));
    }

    /// No growth within itt; HighSpeed's a(w) outside it; loss is HighSpeed's b(w).
    #[test]
    fn growth_and_loss_are_highspeeds() {
        let (mut lp, mut tp) = lp_in_ca(1000);
        lp.within_inf = true;
        for _ in 0..1000 {
            lp.cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.snd_cwnd, 1000);
        lp.within_inf = false;
        for _ in 0..1000 {
            lp.cong_avoid(&mut tp, 1);
        }
        // a(1000) = 8 per window, minus one on the first round (as `highspeed`).
        assert_eq!(tp.snd_cwnd, 1007);
        assert_eq!(lp.ssthresh(&mut tp), 1007 - ((1007 * 83) >> 8));
    }

    /// A whole ACK path: OWD from the ACK's timestamps. With min 40 ms and max 100 ms
    /// known, a flat 40 ms OWD raises nothing; a standing queue (OWD 100 ms) raises an
    /// indication once sowd passes 40 + 0.15·60 = 49 ms: 40 + 60·(1 − (7/8)^k) is 47.5
    /// after one sample, 54.06 after two.
    #[test]
    fn owd_from_timestamps_drives_an_indication() {
        let (mut lp, mut tp) = lp_in_ca(1000);
        let ms = crate::engine::MS;
        let mut t = 10 * crate::engine::SEC;
        let ack = |lp: &mut HstcpLp, tp: &mut TcpCcState, t: u64, owd: u64| {
            tp.now = t;
            let s = AckSample {
                pkts_acked: 1,
                rtt_us: 80_000,
                in_flight: 10,
                rcv_tsval: t - 40 * ms,
                rcv_tsecr: t - 40 * ms - owd,
            };
            lp.pkts_acked(tp, &s);
        };
        (lp.owd_min, lp.owd_max, lp.owd_max_rsv) = (40_000, 100_000, 100_000);
        lp.sowd = 40_000 << 3;
        for _ in 0..100 {
            t += ms;
            ack(&mut lp, &mut tp, t, 40 * ms);
        }
        assert_eq!((lp.sowd_us(), lp.eci_halve, tp.snd_cwnd), (40_000, 0, 1000));
        t += ms;
        ack(&mut lp, &mut tp, t, 100 * ms);
        assert_eq!((lp.sowd_us(), lp.eci_halve), (47_500, 0));
        t += ms;
        ack(&mut lp, &mut tp, t, 100 * ms);
        assert_eq!((lp.sowd_us(), lp.eci_halve, tp.snd_cwnd), (54_062, 1, 500));
        // itt = 3 × the timestamp RTT (now − tsecr = 40 ms back + 100 ms forward).
        assert_eq!(lp.inference, 3 * 140_000);
        // No timestamps: nothing.
        let before = lp.sowd;
        tp.now = t + ms;
        lp.pkts_acked(&mut tp, &AckSample::default());
        assert_eq!(lp.sowd, before);
    }
}
