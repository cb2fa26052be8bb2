//! DCTCP — Linux `net/ipv4/tcp_dctcp.c` (Borkmann, Westphal, Judd 2014), after
//! Alizadeh et al., "Data Center TCP", SIGCOMM 2010, and RFC 8257.
//!
//! Sender: `alpha` is fixed point with 1024 = 1.0 (`DCTCP_MAX_ALPHA`); once per window of
//! acknowledged data (`snd_una` passes `next_seq`) alpha ← alpha − alpha/2^g + F·1024/2^g,
//! with F = CE-echoed delivered segments / delivered segments in that window, in Linux's
//! integer arithmetic — including `min_not_zero`, which snaps an alpha below 2^g to zero.
//! On ECE (once per window, via CWR) ssthresh = cwnd − cwnd·alpha/2048, at least 2. Growth
//! is Reno's (`tcp_reno_cong_avoid`). Loss is handled as Reno: halve on entering recovery
//! (`dctcp_state`) and on RTO (`CA_EVENT_LOSS`).
//! Without ECN negotiated, `dctcp_init` falls back to Reno (`dctcp_reno` ops, shown as
//! `dctcp-reno … fallback_mode` by `ss`), and the socket stops sending ECT.
//! The receiver's CE state machine (`tcp_dctcp.h: dctcp_ece_ack_update`) lives in
//! `tcp::receiver`, where the ACKs are made.
//! With `dctcp_ect = 1` (the L4S team's tree, `tcp_dctcp.c`'s module parameter
//! `dctcp_ect`, "send packet with ECT(dctcp_ect)", which sets `TCP_CONG_WANTS_ECT_1`) the
//! socket's ECN-capable packets are ECT(1), the L4S identifier: DCTCP as an L4S sender
//! (RFC 9331 §4.3 requirements aside), everything else unchanged (docs/references.md §18.2).
//! Not modelled: PLB (protective load balancing) rehashing.

use super::{reno, CaEvent, CaState, CongestionOps, ReceiverNeeds, TcpCcState, CA_ACK_ECE};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

pub const DCTCP_MAX_ALPHA: u32 = 1024;

#[derive(Clone, Debug)]
pub struct Dctcp {
    pub old_delivered: u64,
    pub old_delivered_ce: u64,
    pub dctcp_alpha: u32,
    pub next_seq: u64,
    pub loss_cwnd: u32,
    /// `dctcp_shift_g` (module parameter, 0..=10; g = 1/2^shift).
    pub dctcp_shift_g: u32,
    /// `dctcp_alpha_on_init` (module parameter).
    pub dctcp_alpha_on_init: u32,
    /// ECN was not negotiated: behave as `dctcp_reno`.
    pub fallback: bool,
    /// `dctcp_ect` (L4S team's tree): send ECT(1) instead of ECT(0).
    pub dctcp_ect_1: bool,
    /// Delivered / CE-delivered segments since the last alpha update, for `ss`.
    ab_tot: u64,
    ab_ecn: u64,
    mss: u32,
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp {
            old_delivered: 0,
            old_delivered_ce: 0,
            dctcp_alpha: DCTCP_MAX_ALPHA,
            next_seq: 0,
            loss_cwnd: 0,
            dctcp_shift_g: 4,
            dctcp_alpha_on_init: DCTCP_MAX_ALPHA,
            fallback: false,
            dctcp_ect_1: false,
            ab_tot: 0,
            ab_ecn: 0,
            mss: 0,
        }
    }
}

/// `dctcp_ssthresh`'s law, the same in every version: cwnd − cwnd·alpha/2, at least 2.
pub fn dctcp_ssthresh(cwnd: u32, alpha: u32) -> u32 {
    let cwnd = cwnd as u64;
    (cwnd - ((cwnd * alpha as u64) >> 11)).max(2) as u32
}

/// What `ss -ti` prints of `dctcp_get_info` (the same fields in every version): " alpha A
/// ab_ecn E ab_tot T" in bytes, or " fallback_mode" once the module runs as Reno.
pub fn ss_info(out: &mut String, fallback: bool, alpha: u32, ab_ecn: u64, ab_tot: u64) {
    use std::fmt::Write;
    if fallback {
        out.push_str(" fallback_mode");
    } else {
        let _ = write!(out, " alpha {alpha} ab_ecn {ab_ecn} ab_tot {ab_tot}");
    }
}

/// The `cc` series of every DCTCP (`dctcp`, `dctcp-3.18`): `alpha`, RFC 8257's α.
pub static STATE: [super::StateVar; 1] = [super::StateVar::num("alpha")];

/// `dctcp_alpha` as the fraction it stands for (`DCTCP_MAX_ALPHA` = 1.0); none (NaN) once
/// the module runs as Reno.
pub fn alpha_fraction(fallback: bool, alpha: u32) -> f64 {
    if fallback {
        f64::NAN
    } else {
        alpha as f64 / DCTCP_MAX_ALPHA as f64
    }
}

/// `min_not_zero(a, b)`: the smaller of the two, ignoring a zero.
fn min_not_zero(a: u32, b: u32) -> u32 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    }
}

impl Dctcp {
    /// `dctcp_reset`.
    fn reset(&mut self, tp: &TcpCcState) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered = tp.delivered;
        self.old_delivered_ce = tp.delivered_ce;
    }

    /// The EWMA step of `dctcp_update_alpha` for one window with `delivered` segments of
    /// which `delivered_ce` were CE-echoed.
    pub fn alpha_step(alpha: u32, delivered: u64, delivered_ce: u64, shift_g: u32) -> u32 {
        let mut alpha = alpha;
        // alpha = (1 - g) * alpha + g * F
        alpha -= min_not_zero(alpha, alpha >> shift_g);
        if delivered_ce > 0 {
            let delivered = delivered.max(1);
            let ce = (delivered_ce << (10 - shift_g)) / delivered;
            alpha = (alpha as u64 + ce).min(DCTCP_MAX_ALPHA as u64) as u32;
        }
        alpha
    }

    /// `dctcp_react_to_loss`.
    fn react_to_loss(&mut self, tp: &mut TcpCcState) {
        self.loss_cwnd = tp.snd_cwnd;
        tp.snd_ssthresh = reno::reno_ssthresh(tp);
    }
}

/// DCTCP's options: its two module parameters (`tcp_dctcp.c`), shared with `dctcp-3.18`.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `dctcp_shift_g` (g = 1/2^shift, 0..=10; default 4).
    pub shift_g: u32,
    /// `dctcp_alpha_on_init` (0..=1024; default `DCTCP_MAX_ALPHA`).
    pub alpha_on_init: u32,
    /// `dctcp_ect` (the L4S team's tree only; 0 or 1, default 0): ECT(1) when 1.
    pub ect: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            shift_g: 4,
            alpha_on_init: DCTCP_MAX_ALPHA,
            ect: 0,
        }
    }
}

impl super::Configure for Dctcp {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        ck.get_into(t, &SHIFT_G, &mut o.dctcp.shift_g);
        ck.get_into(t, &ALPHA_ON_INIT, &mut o.dctcp.alpha_on_init);
        ck.get_into(t, &ECT, &mut o.dctcp.ect);
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.dctcp_shift_g = o.dctcp.shift_g.min(10);
        self.dctcp_alpha_on_init = o.dctcp.alpha_on_init;
        self.dctcp_ect_1 = o.dctcp.ect != 0;
    }
}

/// `dctcp_shift_g`, shared with `dctcp-3.18`.
pub const SHIFT_G: Key = Key {
    name: "dctcp_shift_g",
    ty: Ty::Int(0, 10),
    default: "`4`",
    allowed: "",
    meaning: "module parameter `dctcp_shift_g`: the EWMA gain g = 1/2^shift",
};

/// `dctcp_alpha_on_init`, shared with `dctcp-3.18`.
pub const ALPHA_ON_INIT: Key = Key {
    name: "dctcp_alpha_on_init",
    ty: Ty::Int(0, 1024),
    default: "`1024`",
    allowed: "",
    meaning: "module parameter `dctcp_alpha_on_init` (1024 = alpha 1.0)",
};

/// `dctcp_ect` (the L4S team's tree; `dctcp` only, not `dctcp-3.18`).
pub const ECT: Key = Key {
    name: "dctcp_ect",
    ty: Ty::Int(0, 1),
    default: "`0`",
    allowed: "",
    meaning: "module parameter `dctcp_ect` of the L4S team's `tcp_dctcp.c`: the ECT codepoint of the socket's ECN-capable packets, `1` = ECT(1), the L4S identifier (DCTCP as an L4S sender)",
};

static OPTIONS: Schema = Schema {
    title: "DCTCP options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[SHIFT_G, ALPHA_ON_INIT, ECT],
    with: &[],
    variants: None,
};

impl CongestionOps for Dctcp {
    fn name(&self) -> &'static str {
        if self.fallback {
            "dctcp-reno"
        } else {
            "dctcp"
        }
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    /// `dctcp_ect` sets `TCP_CONG_WANTS_ECT_1` (the L4S team's `dctcp_register`).
    fn wants_ect_1(&self) -> bool {
        self.dctcp_ect_1
    }

    /// The receiver runs `dctcp_ece_ack_update` (RFC 8257 §3.2), which ACKs a change of CE
    /// state at once ("tcp: do not delay ACK in DCTCP upon CE status change", 2018).
    fn receiver_needs(&self) -> ReceiverNeeds {
        ReceiverNeeds {
            ecn: true,
            ect_1: self.dctcp_ect_1,
            ce_state: true,
            ce_ack_now: true,
        }
    }

    /// `dctcp_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.mss = tp.mss_cache;
        if tp.ecn_ok {
            self.dctcp_alpha = self.dctcp_alpha_on_init.min(DCTCP_MAX_ALPHA);
            self.loss_cwnd = 0;
            self.reset(tp);
            self.fallback = false;
        } else {
            // No ECN support? Fall back to Reno (the TCP core already stopped sending ECT).
            self.fallback = true;
        }
    }

    /// `dctcp_ssthresh` (or `tcp_reno_ssthresh` in fallback).
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        if self.fallback {
            return reno::reno_ssthresh(tp);
        }
        self.loss_cwnd = tp.snd_cwnd;
        dctcp_ssthresh(tp.snd_cwnd, self.dctcp_alpha)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        reno::reno_cong_avoid(tp, acked)
    }

    /// `dctcp_cwnd_undo` (Reno's in fallback).
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        if self.fallback {
            return tp.snd_cwnd.max(tp.prior_cwnd);
        }
        tp.snd_cwnd.max(self.loss_cwnd)
    }

    /// `dctcp_state`: loss recovery halves, as Reno.
    fn set_state(&mut self, tp: &mut TcpCcState, new_state: CaState) {
        if !self.fallback && new_state == CaState::Recovery && tp.ca_state != CaState::Recovery {
            self.react_to_loss(tp);
        }
    }

    /// `dctcp_cwnd_event`: RTO handled here so only one loss adjustment happens per RTT.
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        if !self.fallback && ev == CaEvent::Loss {
            self.react_to_loss(tp);
        }
    }

    /// `dctcp_update_alpha`, registered as `.in_ack_event`.
    #[inline]
    fn in_ack_event(&mut self, tp: &mut TcpCcState, _flags: u32) {
        let _ = CA_ACK_ECE;
        if self.fallback {
            return;
        }
        self.ab_tot = tp.delivered - self.old_delivered;
        self.ab_ecn = tp.delivered_ce - self.old_delivered_ce;
        // Expired RTT.
        if tp.snd_una >= self.next_seq {
            let delivered = tp.delivered - self.old_delivered;
            let delivered_ce = tp.delivered_ce - self.old_delivered_ce;
            self.dctcp_alpha = Self::alpha_step(
                self.dctcp_alpha,
                delivered,
                delivered_ce,
                self.dctcp_shift_g,
            );
            self.reset(tp);
        }
    }

    /// `dctcp_get_info` fields as `ss -ti` prints them.
    fn diag(&self, out: &mut String) {
        let mss = self.mss as u64;
        ss_info(
            out,
            self.fallback,
            self.dctcp_alpha,
            self.ab_ecn * mss,
            self.ab_tot * mss,
        );
    }

    /// `alpha` as a fraction (`dctcp_alpha` / 1024).
    fn state_vars(&self) -> &'static [super::StateVar] {
        &STATE
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        out[0] = alpha_fraction(self.fallback, self.dctcp_alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(start: u32, n: usize, delivered: u64, ce: u64) -> Vec<u32> {
        let mut a = start;
        (0..n)
            .map(|_| {
                a = Dctcp::alpha_step(a, delivered, ce, 4);
                a
            })
            .collect()
    }

    #[test]
    fn u1_all_marked_from_zero() {
        // docs/references.md DCTCP-U1: 100 delivered, 100 CE each window, g = 1/16, start 0.
        let v = windows(0, 12, 100, 100);
        assert_eq!(
            v,
            vec![64, 124, 181, 234, 284, 331, 375, 416, 454, 490, 524, 556]
        );
        let v = windows(0, 200, 100, 100);
        assert!(v[53] >= 1000, "≥ 1000 after 54 windows: {}", v[53]);
        assert!(v[52] < 1000);
        assert_eq!(*v.last().unwrap(), 1024);
    }

    #[test]
    fn u2_no_marks_decays_and_snaps_to_zero() {
        let v = windows(1024, 80, 100, 0);
        assert_eq!(
            &v[..10],
            &[960, 900, 844, 792, 743, 697, 654, 614, 576, 540]
        );
        // min_not_zero: below 16, alpha >> 4 == 0 so the whole alpha is subtracted.
        assert_eq!(v[74], 0, "reaches 0 after 75 windows");
        assert!(v[73] > 0);
    }

    #[test]
    fn u3_dead_zone_of_min_not_zero() {
        let fixed = |start, f: f64| {
            *windows(start, 2000, 100, (f * 100.0) as u64)
                .last()
                .unwrap()
        };
        assert_eq!(fixed(0, 0.05), 3);
        assert_eq!(fixed(0, 0.1), 6);
        assert_eq!(fixed(0, 0.2), 12);
        assert_eq!(fixed(0, 0.25), 256);
        assert_eq!(fixed(1024, 0.05), 63);
        assert_eq!(fixed(1024, 0.1), 111);
        assert_eq!(fixed(1024, 0.2), 207);
    }

    #[test]
    fn u4_ssthresh_on_ece() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        tp.ecn_ok = true;
        let mut d = Dctcp::default();
        d.init(&mut tp);
        for (cwnd, alpha, want) in [
            (100, 1024, 50),
            (100, 512, 75),
            (100, 64, 97),
            (10, 1024, 5),
            (3, 1024, 2),
            (1000, 17, 992),
        ] {
            tp.snd_cwnd = cwnd;
            d.dctcp_alpha = alpha;
            assert_eq!(d.ssthresh(&mut tp), want, "cwnd {cwnd} alpha {alpha}");
        }
    }

    #[test]
    fn u5_loss_halves_whatever_alpha_and_undo_restores() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        tp.ecn_ok = true;
        let mut d = Dctcp::default();
        d.init(&mut tp);
        d.dctcp_alpha = 100;
        tp.snd_cwnd = 100;
        // Fast retransmit: the core asks .ssthresh, then set_state(Recovery) overrides it.
        tp.snd_ssthresh = d.ssthresh(&mut tp);
        d.set_state(&mut tp, CaState::Recovery);
        assert_eq!(tp.snd_ssthresh, 50);
        // RTO.
        tp.ca_state = CaState::Open;
        tp.snd_ssthresh = d.ssthresh(&mut tp);
        d.cwnd_event(&mut tp, CaEvent::Loss);
        assert_eq!(tp.snd_ssthresh, 50);
        tp.snd_cwnd = 1;
        assert_eq!(d.undo_cwnd(&mut tp), 100);
    }

    #[test]
    fn alpha_updates_once_per_window_from_delivered_counts() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        tp.ecn_ok = true;
        tp.snd_nxt = 1000;
        let mut d = Dctcp {
            dctcp_alpha_on_init: 0,
            ..Default::default()
        };
        d.init(&mut tp);
        // Half a window acked, half marked: no update yet.
        tp.snd_una = 500;
        tp.delivered = 50;
        tp.delivered_ce = 50;
        d.in_ack_event(&mut tp, CA_ACK_ECE);
        assert_eq!(d.dctcp_alpha, 0);
        // Window complete: 100 delivered, 50 CE → F = 0.5 → alpha = 0.5·64 = 32.
        tp.snd_una = 1000;
        tp.snd_nxt = 2000;
        tp.delivered = 100;
        d.in_ack_event(&mut tp, 0);
        assert_eq!(d.dctcp_alpha, 32);
        assert_eq!(d.next_seq, 2000);
    }

    #[test]
    fn without_ecn_it_falls_back_to_reno() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        tp.ecn_ok = false;
        let mut d = Dctcp::default();
        d.init(&mut tp);
        assert!(d.fallback);
        assert_eq!(d.name(), "dctcp-reno");
        tp.snd_cwnd = 100;
        d.dctcp_alpha = 0; // would give ssthresh 100 if DCTCP's law applied
        assert_eq!(d.ssthresh(&mut tp), 50);
        let mut s = String::new();
        d.diag(&mut s);
        assert_eq!(s, " fallback_mode");
    }
}
