//! Scalable TCP: a port of modern Linux `net/ipv4/tcp_scalable.c` (John Heffner;
//! `tcp_scalable_cong_avoid`, `tcp_scalable_ssthresh`, `.undo_cwnd = tcp_reno_undo_cwnd`),
//! after Tom Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area Networks",
//! ACM CCR 33(2), 2003 (docs/references.md §3.2, §8.6).
//!
//! Kelly's rule is MIMD: cwnd += a = 0.01 per acked segment and cwnd −= b·cwnd with
//! b = 0.125 on loss, so the window grows ≈1 % per RTT and regains a loss in
//! ln(1/(1 − b))/ln(1 + a) ≈ 13.4 RTTs whatever its size. Linux: `tcp_cong_avoid_ai` with
//! w = min(cwnd, TCP_SCALABLE_AI_CNT = 100) — one segment per 100 acked at cwnd ≥ 100,
//! Reno's one per window below — and ssthresh = max(cwnd − (cwnd >> 3), 2).
//! Constants and names are Linux's; windows are in segments.
//!
//! Deviations from the paper (kept, as Linux does them):
//! - Legacy (Reno) region below 100 segments, not Kelly's 16 (AI_CNT doubles as the
//!   legacy window); older kernels used AI_CNT = 50 "to account for delayed ack".
//! - Growth counts acked segments (stretch-ACK aware), not ACKs.
//!
//! Deviations from Linux (one per line):
//! - None.

use super::{CongestionOps, TcpCcState};
use crate::schema::Schema;

/// Additive-increase count: one segment per this many acked (a = 1/100 = 0.01).
pub const TCP_SCALABLE_AI_CNT: u32 = 100;
/// Multiplicative decrease b = 1/2^3 = 0.125.
pub const TCP_SCALABLE_MD_SCALE: u32 = 3;

/// Scalable TCP keeps no private state (Linux has no `struct` for it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scalable;

/// No options of its own (see [`OPTIONS`]'s text).
impl super::Configure for Scalable {
    type Options = ();
    const OPTIONS: &'static Schema = &OPTIONS;
}

/// Says, in `cclab list` and docs/scenario.md, why there are no keys.
static OPTIONS: Schema = super::none_in_source(
    "Scalable TCP options",
    "No options: `tcp_scalable.c` has no module parameters. Kelly's a = 0.01 and b = 0.125 (Scalable TCP, ACM CCR 2003) are its compile-time constants `TCP_SCALABLE_AI_CNT` = 100 (also the legacy window below which it is Reno) and `TCP_SCALABLE_MD_SCALE` = 3.",
);

impl CongestionOps for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    /// `tcp_scalable_ssthresh`: max(cwnd − cwnd/8, 2).
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        (tp.snd_cwnd - (tp.snd_cwnd >> TCP_SCALABLE_MD_SCALE)).max(2)
    }

    /// `tcp_scalable_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        let Some(acked) = tp.ca_acked(acked) else {
            return;
        };
        let w = tp.snd_cwnd.min(TCP_SCALABLE_AI_CNT);
        tp.cong_avoid_ai(w, acked);
    }

    /// `tcp_reno_undo_cwnd`.
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_ca(cwnd: u32) -> TcpCcState {
        let mut tp = TcpCcState::new(1448, 10, 2);
        tp.snd_cwnd = cwnd;
        tp
    }

    /// Ack one window (cwnd at the start of the round), `per_ack` segments per ACK.
    fn one_rtt(s: &mut Scalable, tp: &mut TcpCcState, per_ack: u32) -> u32 {
        let w = tp.snd_cwnd;
        for _ in 0..w / per_ack {
            s.cong_avoid(tp, per_ack);
        }
        tp.snd_cwnd - w
    }

    /// At cwnd ≥ 100: exactly +1 per 100 acked segments (≈1 % per RTT), whatever the ACK
    /// pattern; the credit counter carries the remainder.
    #[test]
    fn one_segment_per_100_acked_above_100() {
        let mut s = Scalable;
        let mut tp = in_ca(1000);
        for i in 1..=99 {
            s.cong_avoid(&mut tp, 1);
            assert_eq!(tp.snd_cwnd, 1000, "after {i}");
        }
        s.cong_avoid(&mut tp, 1);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (1001, 0));
        // A whole window of 1000: +10 (1 %), one segment at a time or in stretch ACKs.
        for per_ack in [1, 2, 4, 10] {
            let mut tp = in_ca(1000);
            assert_eq!(one_rtt(&mut s, &mut tp, per_ack), 10, "per_ack {per_ack}");
        }
        let mut tp = in_ca(100);
        assert_eq!(one_rtt(&mut s, &mut tp, 1), 1);
        let mut tp = in_ca(50_000);
        assert_eq!(one_rtt(&mut s, &mut tp, 1), 500);
        // 250 acked in one stretch ACK at 1000: +2, 50 credits left.
        let mut tp = in_ca(1000);
        s.cong_avoid(&mut tp, 250);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (1002, 50));
    }

    /// Below 100 the window is w = cwnd: Reno, +1 per window.
    #[test]
    fn reno_like_below_100() {
        let mut s = Scalable;
        for cwnd in [2u32, 10, 50, 99] {
            let mut tp = in_ca(cwnd);
            for _ in 0..cwnd - 1 {
                s.cong_avoid(&mut tp, 1);
            }
            assert_eq!(tp.snd_cwnd, cwnd, "cwnd {cwnd}");
            s.cong_avoid(&mut tp, 1);
            assert_eq!(tp.snd_cwnd, cwnd + 1, "cwnd {cwnd}");
        }
        // From 50 it takes 50 + 51 + … + 99 = 3725 acked segments to reach 100.
        let mut tp = in_ca(50);
        for _ in 0..3724 {
            s.cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.snd_cwnd, 99);
        s.cong_avoid(&mut tp, 1);
        assert_eq!(tp.snd_cwnd, 100);
    }

    #[test]
    fn ssthresh_is_seven_eighths() {
        let mut s = Scalable;
        for (cwnd, want) in [
            (1000, 875),
            (1001, 876), // 1001 − 125
            (100, 88),   // 100 − 12
            (16, 14),
            (8, 7),
            (7, 7), // 7 >> 3 = 0
            (2, 2),
            (1, 2),
        ] {
            let mut tp = in_ca(cwnd);
            assert_eq!(s.ssthresh(&mut tp), want, "cwnd {cwnd}");
        }
    }

    /// Recovery after a loss takes ln(1/0.875)/ln(1.01) = 13.42 RTTs independent of W.
    /// Driven RTT by RTT (one-segment ACKs, cwnd = ssthresh after the loss): W is regained
    /// in the 14th RTT for every W from 1000 to 1,000,000 (exact), and after 13 RTTs cwnd
    /// is within 1 % of W (13.42 − 13 RTTs of 1 % growth ≈ 0.4 %).
    #[test]
    fn recovery_time_independent_of_window() {
        let continuous = (1.0f64 / 0.875).ln() / 1.01f64.ln();
        assert!((continuous - 13.42).abs() < 0.005);
        let mut s = Scalable;
        for w in [1000u32, 2000, 10_000, 100_000, 1_000_000] {
            let mut tp = in_ca(w);
            let ss = s.ssthresh(&mut tp);
            assert_eq!(ss, w - w / 8);
            tp.snd_cwnd = ss;
            tp.snd_ssthresh = ss;
            tp.snd_cwnd_cnt = 0;
            let mut rtts = 0;
            let mut after13 = 0;
            while tp.snd_cwnd < w {
                one_rtt(&mut s, &mut tp, 1);
                rtts += 1;
                if rtts == 13 {
                    after13 = tp.snd_cwnd;
                }
            }
            assert_eq!(rtts, 14, "W = {w}");
            assert!(after13 as f64 >= 0.99 * w as f64, "W = {w}: {after13}");
        }
    }

    /// Slow start to ssthresh; the leftover of the crossing ACK goes to AI; not
    /// cwnd-limited: no growth; undo is Reno's.
    #[test]
    fn slow_start_leftover_and_undo() {
        let mut s = Scalable;
        let mut tp = TcpCcState::new(1448, 10, 12);
        s.cong_avoid(&mut tp, 1);
        assert_eq!(tp.snd_cwnd, 11);
        s.cong_avoid(&mut tp, 4);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (12, 3));
        tp.is_cwnd_limited = false;
        s.cong_avoid(&mut tp, 50);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (12, 3));
        tp.prior_cwnd = 20;
        assert_eq!(s.undo_cwnd(&mut tp), 20);
        tp.prior_cwnd = 5;
        assert_eq!(s.undo_cwnd(&mut tp), 12);
        assert_eq!(s.name(), "scalable");
    }
}
