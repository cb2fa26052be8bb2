//! HighSpeed TCP: a port of Linux `net/ipv4/tcp_highspeed.c` (John Heffner; `hstcp_init`,
//! `hstcp_cong_avoid`, `hstcp_ssthresh`, `.undo_cwnd = tcp_reno_undo_cwnd`), after Sally
//! Floyd, "HighSpeed TCP for Large Congestion Windows", RFC 3649 (2003), §5 and the AIMD
//! table of Appendix B (docs/references.md §3.1, §8.9).
//!
//! RFC 3649 makes the increase a(w) and the decrease b(w) functions of the window so that
//! the response function is W = 0.12/p^0.835 between Low_Window = 38 (Reno below it) and
//! High_Window = 83000 (b = 0.1). Linux does not evaluate the formulas: it keeps the RFC's
//! Appendix B table (72 rows of (cwnd, md<<8)) and a row index `ai` maintained so that
//! `hstcp_aimd_vals[ai-1].cwnd < snd_cwnd <= hstcp_aimd_vals[ai].cwnd`; then
//! a(w) = ai + 1 segments per RTT and ssthresh = cwnd − (cwnd·md >> 8). Row 0
//! (cwnd ≤ 38: a = 1, md = 128 = 0.5) is Reno. The table is a step function that lags
//! the continuous a(w) by up to 1.75 at the top (83000 → 71, RFC formula 72.5).
//! Integer arithmetic, table and variable names are Linux's; windows are in segments.
//!
//! Linux behaviour kept on purpose (not deviations):
//! - `ai` is only updated in congestion avoidance, so a loss ending slow start uses the row
//!   from the last CA ACK (row 0 on a fresh connection: ssthresh = cwnd/2).
//! - The increase is a(w)/cwnd per ACK, whatever `acked` is: with delayed or stretch ACKs
//!   the per-RTT growth drops accordingly (about a(w)/2 with one ACK per two segments).
//! - At most one segment of growth per ACK; the leftover of the ACK that ends slow start
//!   is dropped (`tcp_slow_start`'s return value is ignored).
//!
//! Deviations from Linux (one per line):
//! - None in the algorithm; `diag` prints `ai`, a and md for `ss`-style output (Linux
//!   highspeed has no `.get_info`).

use super::{CongestionOps, TcpCcState};
use crate::schema::Schema;

/// One row of the AIMD table: up to `cwnd` segments, decrease by `md`/256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HstcpAimdVal {
    pub cwnd: u32,
    pub md: u32,
}

const fn v(cwnd: u32, md: u32) -> HstcpAimdVal {
    HstcpAimdVal { cwnd, md }
}

/// From AIMD tables from RFC 3649 appendix B, with fixed-point MD scaled <<8
/// (the comment is the decrease factor b = md/256).
pub const HSTCP_AIMD_VALS: [HstcpAimdVal; 72] = [
    v(38, 128),   /*  0.50 */
    v(118, 112),  /*  0.44 */
    v(221, 104),  /*  0.41 */
    v(347, 98),   /*  0.38 */
    v(495, 93),   /*  0.37 */
    v(663, 89),   /*  0.35 */
    v(851, 86),   /*  0.34 */
    v(1058, 83),  /*  0.33 */
    v(1284, 81),  /*  0.32 */
    v(1529, 78),  /*  0.31 */
    v(1793, 76),  /*  0.30 */
    v(2076, 74),  /*  0.29 */
    v(2378, 72),  /*  0.28 */
    v(2699, 71),  /*  0.28 */
    v(3039, 69),  /*  0.27 */
    v(3399, 68),  /*  0.27 */
    v(3778, 66),  /*  0.26 */
    v(4177, 65),  /*  0.26 */
    v(4596, 64),  /*  0.25 */
    v(5036, 62),  /*  0.25 */
    v(5497, 61),  /*  0.24 */
    v(5979, 60),  /*  0.24 */
    v(6483, 59),  /*  0.23 */
    v(7009, 58),  /*  0.23 */
    v(7558, 57),  /*  0.22 */
    v(8130, 56),  /*  0.22 */
    v(8726, 55),  /*  0.22 */
    v(9346, 54),  /*  0.21 */
    v(9991, 53),  /*  0.21 */
    v(10661, 52), /*  0.21 */
    v(11358, 52), /*  0.20 */
    v(12082, 51), /*  0.20 */
    v(12834, 50), /*  0.20 */
    v(13614, 49), /*  0.19 */
    v(14424, 48), /*  0.19 */
    v(15265, 48), /*  0.19 */
    v(16137, 47), /*  0.19 */
    v(17042, 46), /*  0.18 */
    v(17981, 45), /*  0.18 */
    v(18955, 45), /*  0.18 */
    v(19965, 44), /*  0.17 */
    v(21013, 43), /*  0.17 */
    v(22101, 43), /*  0.17 */
    v(23230, 42), /*  0.17 */
    v(24402, 41), /*  0.16 */
    v(25618, 41), /*  0.16 */
    v(26881, 40), /*  0.16 */
    v(28193, 39), /*  0.16 */
    v(29557, 39), /*  0.15 */
    v(30975, 38), /*  0.15 */
    v(32450, 38), /*  0.15 */
    v(33986, 37), /*  0.15 */
    v(35586, 36), /*  0.14 */
    v(37253, 36), /*  0.14 */
    v(38992, 35), /*  0.14 */
    v(40808, 35), /*  0.14 */
    v(42707, 34), /*  0.13 */
    v(44694, 33), /*  0.13 */
    v(46776, 33), /*  0.13 */
    v(48961, 32), /*  0.13 */
    v(51258, 32), /*  0.13 */
    v(53677, 31), /*  0.12 */
    v(56230, 30), /*  0.12 */
    v(58932, 30), /*  0.12 */
    v(61799, 29), /*  0.12 */
    v(64851, 28), /*  0.11 */
    v(68113, 28), /*  0.11 */
    v(71617, 27), /*  0.11 */
    v(75401, 26), /*  0.10 */
    v(79517, 26), /*  0.10 */
    v(84035, 25), /*  0.10 */
    v(89053, 24), /*  0.10 */
];

/// `HSTCP_AIMD_MAX` = `ARRAY_SIZE(hstcp_aimd_vals)`.
pub const HSTCP_AIMD_MAX: u32 = HSTCP_AIMD_VALS.len() as u32;

/// Linux `struct hstcp`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Highspeed {
    /// Row of `HSTCP_AIMD_VALS` for the current window; a(w) = ai + 1.
    pub ai: u32,
}

impl Highspeed {
    /// The AIMD row update of `hstcp_cong_avoid`: move `ai` until
    /// `vals[ai-1].cwnd < cwnd <= vals[ai].cwnd` (or the last row).
    pub fn update_ai(&mut self, cwnd: u32) {
        let vals = &HSTCP_AIMD_VALS;
        if cwnd > vals[self.ai as usize].cwnd {
            while cwnd > vals[self.ai as usize].cwnd && self.ai < HSTCP_AIMD_MAX - 1 {
                self.ai += 1;
            }
        } else if self.ai != 0 && cwnd <= vals[self.ai as usize - 1].cwnd {
            while self.ai != 0 && cwnd <= vals[self.ai as usize - 1].cwnd {
                self.ai -= 1;
            }
        }
    }

    /// a(w): segments added per RTT (per window of ACKs) in the current row.
    pub fn a(&self) -> u32 {
        self.ai + 1
    }

    /// `md` (b(w) << 8) of the current row.
    pub fn md(&self) -> u32 {
        HSTCP_AIMD_VALS[self.ai as usize].md
    }
}

/// The `cc` series of HighSpeed TCP (and of HSTCP-LP, after its own).
pub static STATE: [super::StateVar; 3] = [
    super::StateVar::num("ai"),
    super::StateVar::num("a"),
    super::StateVar::num("b"),
];

impl Highspeed {
    /// The values of [`STATE`]: `ai`, a(w) in segments per RTT, b(w) as a fraction.
    pub fn state_into(&self, out: &mut [f64]) {
        out[0] = self.ai as f64;
        out[1] = self.a() as f64;
        out[2] = self.md() as f64 / 256.0;
    }
}

/// No options of its own (see [`OPTIONS`]'s text).
impl super::Configure for Highspeed {
    type Options = ();
    const OPTIONS: &'static Schema = &OPTIONS;
}

/// Says, in `cclab list` and docs/scenario.md, why there are no keys.
static OPTIONS: Schema = super::none_in_source(
    "HighSpeed options",
    "No options: `tcp_highspeed.c` has no module parameters. RFC 3649's Low_Window = 38, High_Window = 83 000, High_P = 10⁻⁷ and High_Decrease = 0.1 are compiled into its table of a(w) and b(w) (`hstcp_aimd_vals`, 72 rows).",
);

impl CongestionOps for Highspeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    /// `hstcp_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        self.ai = 0;
        // Ensure the MD arithmetic works. This is somewhat pedantic, since I don't think
        // we will see a cwnd this large. :)
        tp.snd_cwnd_clamp = tp.snd_cwnd_clamp.min(0xffff_ffff / 128);
    }

    /// `hstcp_ssthresh`: multiplicative decrease by b(w) = md/256 of the current row.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        let cwnd = tp.snd_cwnd;
        // u32 as in Linux: the clamp set in `init` keeps cwnd * md from overflowing.
        (cwnd - (cwnd.wrapping_mul(self.md()) >> 8)).max(2)
    }

    /// `hstcp_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        if !tp.is_cwnd_limited {
            return;
        }
        if tp.in_slow_start() {
            tp.slow_start(acked);
        } else {
            // Update AIMD parameters.
            self.update_ai(tp.snd_cwnd);
            // Do additive increase: cwnd = cwnd + a(w) / cwnd.
            if tp.snd_cwnd < tp.snd_cwnd_clamp {
                tp.snd_cwnd_cnt += self.ai + 1;
                if tp.snd_cwnd_cnt >= tp.snd_cwnd {
                    tp.snd_cwnd_cnt -= tp.snd_cwnd;
                    tp.snd_cwnd += 1;
                }
            }
        }
    }

    /// `tcp_reno_undo_cwnd`.
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }

    fn diag(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            " highspeed:(ai:{},a:{},md:{})",
            self.ai,
            self.a(),
            self.md()
        );
    }

    /// The row of RFC 3649's table (`ai`) and its a(w) and b(w).
    fn state_vars(&self) -> &'static [super::StateVar] {
        &STATE
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        self.state_into(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Connection in congestion avoidance at `cwnd` with `ai` synced to it.
    fn in_ca(cwnd: u32) -> (Highspeed, TcpCcState) {
        let mut tp = TcpCcState::new(1448, 10, 2);
        let mut h = Highspeed::default();
        h.init(&mut tp);
        tp.snd_cwnd = cwnd;
        h.update_ai(cwnd);
        (h, tp)
    }

    /// Ack one window (the cwnd at the start of the round) with `per_ack` segments per
    /// ACK; return the growth.
    fn one_rtt(h: &mut Highspeed, tp: &mut TcpCcState, per_ack: u32) -> u32 {
        let w = tp.snd_cwnd;
        for _ in 0..w / per_ack {
            h.cong_avoid(tp, per_ack);
        }
        tp.snd_cwnd - w
    }

    #[test]
    fn table_is_rfc3649_appendix_b() {
        assert_eq!(HSTCP_AIMD_MAX, 72);
        assert_eq!(HSTCP_AIMD_VALS[0], v(38, 128));
        assert_eq!(HSTCP_AIMD_VALS[7], v(1058, 83));
        assert_eq!(HSTCP_AIMD_VALS[29], v(10661, 52));
        assert_eq!(HSTCP_AIMD_VALS[70], v(84035, 25));
        assert_eq!(HSTCP_AIMD_VALS[71], v(89053, 24));
        // Windows strictly increase, decreases never increase.
        for r in HSTCP_AIMD_VALS.windows(2) {
            assert!(r[0].cwnd < r[1].cwnd && r[0].md >= r[1].md, "{r:?}");
        }
        // Sum of the columns guards against a mistyped entry.
        let sum_cwnd: u64 = HSTCP_AIMD_VALS.iter().map(|r| r.cwnd as u64).sum();
        let sum_md: u32 = HSTCP_AIMD_VALS.iter().map(|r| r.md).sum();
        assert_eq!((sum_cwnd, sum_md), (1_737_278, 3_780));
    }

    /// HS-1 with Linux's table: exact a = ai + 1 and b = md/256.
    #[test]
    fn hs1_table_lookups() {
        for (cwnd, ai, md) in [
            (1, 0, 128),
            (30, 0, 128),
            (38, 0, 128),
            (39, 1, 112),
            (118, 1, 112),
            (119, 2, 104),
            (1000, 7, 83),
            (1058, 7, 83),
            (1059, 8, 81),
            (10661, 29, 52),
            (83000, 70, 25),
            (84035, 70, 25),
            (84036, 71, 24),
            (1_000_000, 71, 24),
        ] {
            let mut h = Highspeed::default();
            h.update_ai(cwnd);
            assert_eq!((h.ai, h.md()), (ai, md), "cwnd {cwnd}");
            assert_eq!(h.a(), ai + 1);
        }
        let b = |cwnd| {
            let mut h = Highspeed::default();
            h.update_ai(cwnd);
            (h.a(), h.md() as f64 / 256.0)
        };
        // The brief's HS-1 Linux values: 1058 → 8 / 0.324, 10661 → 30 / 0.203.
        let (a, bb) = b(1058);
        assert!(a == 8 && (bb - 0.324).abs() < 0.001, "{a} {bb}");
        let (a, bb) = b(10661);
        assert!(a == 30 && (bb - 0.203).abs() < 0.001, "{a} {bb}");
        // 83000 lies in row 70 (79517, 84035]: a = 71 (not 72), b = 25/256 ≈ 0.098.
        let (a, bb) = b(83000);
        assert!(a == 71 && (bb - 0.098).abs() < 0.001, "{a} {bb}");
        // Reno region.
        assert_eq!(b(38), (1, 0.5));
    }

    /// The row search walks both ways: from any starting row it lands on the unique row
    /// with vals[ai-1].cwnd < cwnd <= vals[ai].cwnd (row 0 for cwnd ≤ 38, the last row
    /// above 89053).
    #[test]
    fn row_search_invariant_from_any_start() {
        let mut h = Highspeed::default();
        let mut cwnd = 1u32;
        let mut start = 0u32;
        while cwnd < 120_000 {
            h.ai = start % HSTCP_AIMD_MAX;
            h.update_ai(cwnd);
            let ai = h.ai as usize;
            let lo = if ai == 0 {
                0
            } else {
                HSTCP_AIMD_VALS[ai - 1].cwnd
            };
            assert!(lo < cwnd, "cwnd {cwnd} row {ai}");
            assert!(
                cwnd <= HSTCP_AIMD_VALS[ai].cwnd || ai == HSTCP_AIMD_MAX as usize - 1,
                "cwnd {cwnd} row {ai}"
            );
            start = start.wrapping_mul(31).wrapping_add(17);
            cwnd += 1 + cwnd / 500;
        }
    }

    /// RFC 3649 §5 formulas (Low_P = 1.5/38², High_P = 1e-7, High_Decrease = 0.1):
    /// the table's b = md/256 is within 0.01 of b(w) at every row boundary (HS-1 ±0.01;
    /// observed ≤ 0.004), and the table's step a = row + 1 never exceeds a(w) at the
    /// row's upper boundary and lags it by less than 2 (observed ≤ 1.75, at the top).
    #[test]
    fn table_tracks_rfc_formulas() {
        let (lw, hw, hp, hd) = (38f64, 83000f64, 1e-7f64, 0.1f64);
        let lp = 1.5 / (lw * lw);
        let s = (hw.ln() - lw.ln()) / (hp.ln() - lp.ln());
        let p = |w: f64| ((w.ln() - lw.ln()) / s + lp.ln()).exp();
        let b = |w: f64| (hd - 0.5) * (w.ln() - lw.ln()) / (hw.ln() - lw.ln()) + 0.5;
        let a = |w: f64| w * w * p(w) * 2.0 * b(w) / (2.0 - b(w));
        // HS-1 continuous values.
        assert!((a(1058.0) - 8.31).abs() < 0.01 && (b(1058.0) - 0.327).abs() < 0.001);
        assert!((a(83000.0) - 72.5).abs() < 0.05 && (b(83000.0) - 0.1).abs() < 1e-9);
        for (i, r) in HSTCP_AIMD_VALS.iter().enumerate() {
            let w = r.cwnd as f64;
            let (a_tab, b_tab) = ((i + 1) as f64, r.md as f64 / 256.0);
            assert!(
                (b_tab - b(w)).abs() < 0.01,
                "row {i}: b {b_tab} vs {}",
                b(w)
            );
            assert!(
                a(w) > a_tab - 0.01 && a(w) - a_tab < 2.0,
                "row {i}: a {a_tab} vs {}",
                a(w)
            );
        }
    }

    /// ssthresh = max(cwnd − (cwnd·md >> 8), 2) with the row of the last CA ACK.
    #[test]
    fn ssthresh_values() {
        for (cwnd, want) in [
            (30, 15),          // Reno: md 128
            (38, 19),          // 38 − 19
            (39, 22),          // 39 − (39·112 >> 8) = 39 − 17
            (1000, 676),       // 1000 − 324
            (1058, 715),       // 1058 − 343
            (10661, 8496),     // 10661 − 2165
            (83000, 74895),    // 83000 − 8105
            (100_000, 90_625), // last row, md 24
            (3, 2),
            (2, 2),
        ] {
            let (mut h, mut tp) = in_ca(cwnd);
            assert_eq!(h.ssthresh(&mut tp), want, "cwnd {cwnd}");
        }
    }

    /// Linux updates `ai` only in congestion avoidance: a loss at the end of slow start on
    /// a fresh connection halves (row 0), whatever the window.
    #[test]
    fn ssthresh_uses_row_of_last_ca_ack() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut h = Highspeed::default();
        h.init(&mut tp);
        while tp.snd_cwnd < 1000 {
            h.cong_avoid(&mut tp, 1);
        }
        assert_eq!(h.ai, 0);
        assert_eq!(h.ssthresh(&mut tp), 500);
        // One CA ACK moves to row 7.
        tp.snd_ssthresh = 1000;
        h.cong_avoid(&mut tp, 1);
        assert_eq!(h.ai, 7);
        assert_eq!(h.ssthresh(&mut tp), 676);
    }

    /// Ack whole windows one segment at a time: the credit counter gains a(w) per ACK and
    /// pays cwnd per increment, so a round adds a(w), minus one on the first round from an
    /// empty counter (the window grows while it is being paid). Exact, from the algorithm:
    /// 1000 (a = 8): 7, 8, 8, 8, 8, 8, 8 (stays in row 7 up to 1058), then 9 per round.
    #[test]
    fn per_rtt_growth_is_a_of_w() {
        let (mut h, mut tp) = in_ca(1000);
        let incs: Vec<u32> = (0..10).map(|_| one_rtt(&mut h, &mut tp, 1)).collect();
        assert_eq!(incs, [7, 8, 8, 8, 8, 8, 8, 9, 9, 9]);
        assert_eq!(tp.snd_cwnd, 1082);

        for (cwnd, a) in [(10_000, 30), (80_000, 71), (20, 1), (30, 1), (60, 2)] {
            let (mut h, mut tp) = in_ca(cwnd);
            assert_eq!(h.a(), a);
            let first = one_rtt(&mut h, &mut tp, 1);
            let next: Vec<u32> = (0..4).map(|_| one_rtt(&mut h, &mut tp, 1)).collect();
            assert!(first == a || first == a - 1, "cwnd {cwnd}: first {first}");
            assert!(next.iter().all(|&i| i == a), "cwnd {cwnd}: {next:?}");
        }
    }

    /// The credit counter, ACK by ACK: +a(w) per ACK, +1 segment once it reaches cwnd
    /// (`>=`), minus cwnd. Reno row: the 30th ACK at cwnd 30; row 1 (a = 2): the 30th ACK
    /// at cwnd 60; row 7 (a = 8) at cwnd 1000: the 125th ACK.
    #[test]
    fn credit_counter_ack_by_ack() {
        for (cwnd, acks) in [(30u32, 30u32), (60, 30), (1000, 125)] {
            let (mut h, mut tp) = in_ca(cwnd);
            for i in 1..acks {
                h.cong_avoid(&mut tp, 1);
                assert_eq!(tp.snd_cwnd, cwnd, "cwnd {cwnd}: ACK {i}");
            }
            h.cong_avoid(&mut tp, 1);
            assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (cwnd + 1, 0), "cwnd {cwnd}");
        }
        // At most one segment per ACK, even with many segments acked: the stretch ACK
        // counts as one ACK and the leftover credits stay in the counter.
        let (mut h, mut tp) = in_ca(60);
        tp.snd_cwnd_cnt = 200;
        h.cong_avoid(&mut tp, 50);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (61, 142));
    }

    /// Linux adds a(w)/cwnd per ACK, not per acked segment: with one ACK per two segments
    /// the growth halves (1000, a = 8: 3 then 4 per round).
    #[test]
    fn growth_is_per_ack_not_per_segment() {
        let (mut h, mut tp) = in_ca(1000);
        let incs: Vec<u32> = (0..4).map(|_| one_rtt(&mut h, &mut tp, 2)).collect();
        assert_eq!(incs, [3, 4, 4, 4]);
    }

    /// HS-3: after a loss at W = 83000 (row 70, b = 25/256) cwnd = 74895 and grows by
    /// a = 70..71 per RTT, so regaining W takes ≈ 8105/70.5 ≈ 115 RTTs (±10%); exact
    /// with one-segment ACKs: 116. Reno would need 41,500.
    #[test]
    fn hs3_recovery_after_loss_at_83000() {
        let (mut h, mut tp) = in_ca(83000);
        let ss = h.ssthresh(&mut tp);
        assert_eq!(ss, 74895);
        tp.snd_cwnd = ss;
        tp.snd_ssthresh = ss;
        tp.snd_cwnd_cnt = 0;
        let mut rtts = 0;
        while tp.snd_cwnd < 83000 {
            one_rtt(&mut h, &mut tp, 1);
            rtts += 1;
        }
        assert_eq!(rtts, 116);
        assert!((rtts as f64 - 115.0).abs() <= 11.5);
    }

    /// Slow start is Reno's; no growth when not cwnd-limited; the clamp stops AI; undo.
    #[test]
    fn slow_start_clamp_and_undo() {
        let mut tp = TcpCcState::new(1448, 10, 12);
        let mut h = Highspeed::default();
        h.init(&mut tp);
        assert_eq!(tp.snd_cwnd_clamp, 0xffff_ffff / 128);
        h.cong_avoid(&mut tp, 1);
        assert_eq!(tp.snd_cwnd, 11);
        // The crossing ACK's leftover is dropped.
        h.cong_avoid(&mut tp, 5);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (12, 0));
        tp.is_cwnd_limited = false;
        h.cong_avoid(&mut tp, 1);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (12, 0));
        tp.is_cwnd_limited = true;
        tp.snd_cwnd_clamp = 12;
        for _ in 0..100 {
            h.cong_avoid(&mut tp, 1);
        }
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (12, 0));
        tp.prior_cwnd = 40;
        assert_eq!(h.undo_cwnd(&mut tp), 40);
        assert_eq!(h.name(), "highspeed");
    }
}
