//! Multi-bit ECN (MB-ECN), the Ouroboros prototype's congestion avoidance (seed 002).
//!
//! Source: `ouroboros` `src/ipcpd/unicast/pol/ca-mb-ecn.c` at tag 0.18.0 (2021-01-02; the
//! same logic as the blog-date commit 5a26b482), read beside the seed's blog post
//! ("Congestion avoidance in Ouroboros", 2020-12-12), and the later
//! `src/ipcpd/unicast/ca/mb-ecn.c`. docs/references.md §9 has the walk-through. Names are the
//! C context's (`rx_ece`, `tx_wbl`, `tx_mul`, …); arithmetic is integer with shifts only,
//! as the seed stresses, with C's widths (`rx_ece`/`tx_ece` are `uint16_t`, the rest
//! `size_t`).
//!
//! - Routers OR `q >> 4` into the packet's ECN octet, q = packets already queued for the
//!   outgoing N-1 flow ([`calc_ecn`]): nonzero from 16 packets, OR-ed (not summed, not
//!   max-ed) over hops.
//! - The receiver keeps a floating sum over 32 packets: `rx_ece = rx_ece − rx_ece/32 +
//!   ecn`, so a steady ecn = e gives 32e; it quarters it on a packet with ecn = 0, and asks
//!   for a FLOW_UPDATE at the start of congestion, every `CA_UPD`-th congested packet and
//!   when it is back at 0.
//! - The sender counts bytes and packets per window of 2^`tx_mul` ns, aligned to absolute
//!   multiples of it. At the first packet of a new window (still counted in the old one):
//!   slow start doubles the byte limit `tx_wbl` if the window was used up; in congestion
//!   avoidance it cuts by `tx_wbl · tx_ece / 8192` or adds `tx_inc` if the window was used
//!   up. A window with fewer than 8 packets doubles in length (limit and increase
//!   doubled: the same rate), one with more than 64 halves. A packet beyond the limit
//!   waits for the end of the window. 32 packets without a FLOW_UPDATE reset `tx_ece`
//!   (a lost "end of congestion" update).
//!
//! Three readings, [`Mode`]:
//! - [`Mode::Code0180`], the code as of 0.18.0 (the default);
//! - [`Mode::Blog`], the blog's prose where it differs from that code (receiver side
//!   only): ECE *halved* on ecn = 0 (code: quartered), an immediate update on every
//!   *increase* of ECE (code: every `CA_UPD`-th packet), M = 8 (code: `CA_UPD` = 4 though
//!   its comment says 8). The prose says a decrease is reported every M packets; decreases
//!   by a packet with ecn = 0 count toward M here (the code does not count them), as the
//!   prose lists no exception;
//! - [`Mode::Current`], the prototype's changes after 0.18 (95ca0c60, 2021-06-19: window
//!   comparisons safe across wrap-around, scaling by 2^f in one step to bring the packets
//!   per window into [8, 64], with a carry; d0644649, 2021-07-11: `CA_UPD` = 8;
//!   b066b8aa, 2021-07-20: additive increase unconditional, `tx_wbl = tx_wbc + tx_inc`).

use super::{stat_line, CongestionApi};

/// Average over 2^5 = 32 packets (`CA_SHFT`).
pub const CA_SHFT: u32 = 5;
/// The receiver's window and the sender's reset count, 32 packets (`CA_WND`).
pub const CA_WND: u64 = 1 << CA_SHFT;
/// Initial window 2^24 ns = 16.78 ms (`CA_SLOT`).
pub const CA_SLOT: u32 = 24;
/// Additive increase per initial window, 64 KiB (`CA_INC`).
pub const CA_INC: u64 = 1 << 16;
/// Initial byte limit per window, 64 KiB (`CA_IWL`): 31.25 Mbit/s.
pub const CA_IWL: u64 = 1 << 16;
/// Fewest packets per window before it doubles (`CA_MINPS`).
pub const CA_MINPS: u64 = 8;
/// Most packets per window before it halves (`CA_MAXPS`).
pub const CA_MAXPS: u64 = 64;
/// Routers mark `q >> 4` (`ECN_Q_SHFT`).
pub const ECN_Q_SHFT: u32 = 4;

/// Which reading of MB-ECN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `ca-mb-ecn.c` at 0.18.0.
    Code0180,
    /// The seed's prose.
    Blog,
    /// The prototype after its 2021 changes.
    Current,
}

impl Mode {
    /// Congested packets between two FLOW_UPDATEs (`CA_UPD`): `1 << (CA_SHFT − 3)` = 4 in
    /// 0.18.0, `1 << (CA_SHFT − 2)` = 8 from d0644649 and in the blog ("M = 8").
    pub fn ca_upd(self) -> u64 {
        match self {
            Mode::Code0180 => 1 << (CA_SHFT - 3),
            Mode::Blog | Mode::Current => 1 << (CA_SHFT - 2),
        }
    }
}

/// `update_ecn_in_router` of MB-ECN (`mb_ecn_calc_ecn`): OR the queue's depth in units of
/// 16 packets into the octet (C's `(uint8_t)` cast truncates).
#[inline]
pub fn calc_ecn(ecn: u8, queue: usize) -> u8 {
    ecn | (queue >> ECN_Q_SHFT) as u8
}

/// A flow's MB-ECN context (`struct mb_ecn_ctx`), both ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MbEcn {
    pub mode: Mode,
    /// Level of congestion seen by this end as receiver (upstream).
    pub rx_ece: u16,
    /// Receiver-side packet counter.
    pub rx_ctr: u64,
    /// Level of congestion reported to this end as sender (downstream).
    pub tx_ece: u16,
    /// Sender-side packets since the last FLOW_UPDATE.
    pub tx_ctr: u64,
    /// Bytes in this window.
    pub tx_wbc: u64,
    /// Packets in this window.
    pub tx_wpc: u64,
    /// Byte limit of this window.
    pub tx_wbl: u64,
    /// Congestion avoidance (slow start is over for good).
    pub tx_cav: bool,
    /// The window is 2^tx_mul ns.
    pub tx_mul: u32,
    /// Additive increase per window.
    pub tx_inc: u64,
    /// The current window's number: its start is `tx_slot << tx_mul` ns.
    pub tx_slot: u64,
    /// Windows closed, by what their end did to the limit (not in the C: for reports).
    pub windows: WindowCounts,
}

/// How many windows ended in each regime.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowCounts {
    pub slow_start: u64,
    pub decrease: u64,
    pub increase: u64,
    /// In congestion avoidance without ECE and without using the window up: unchanged.
    pub hold: u64,
}

impl MbEcn {
    /// `mb_ecn_ctx_create` at `now_ns`.
    pub fn new(mode: Mode, now_ns: u64) -> MbEcn {
        MbEcn {
            mode,
            rx_ece: 0,
            rx_ctr: 0,
            tx_ece: 0,
            tx_ctr: 0,
            tx_wbc: 0,
            tx_wpc: 0,
            tx_wbl: CA_IWL,
            tx_cav: false,
            tx_mul: CA_SLOT,
            tx_inc: CA_INC,
            tx_slot: now_ns >> CA_SLOT,
            windows: WindowCounts::default(),
        }
    }

    /// The window length in ns (`1 << tx_mul`).
    pub fn window_ns(&self) -> u64 {
        1 << self.tx_mul
    }

    /// What the statistics call the regime.
    pub fn regime(&self) -> &'static str {
        if !self.tx_cav {
            "Slow start"
        } else if self.tx_ece != 0 {
            "Multiplicative dec"
        } else {
            "Additive inc"
        }
    }

    /// Is `slot` after the current window? 0.18.0 compares plainly; later code as a
    /// signed difference, safe across wrap-around (`_slot_after`).
    fn slot_after(&self, slot: u64) -> bool {
        match self.mode {
            Mode::Current => (self.tx_slot.wrapping_sub(slot) as i64) < 0,
            Mode::Code0180 | Mode::Blog => slot > self.tx_slot,
        }
    }

    /// The first packet of a new window `slot` (already counted in the old one): adjust
    /// the limit, then the window's length.
    fn new_window(&mut self, slot: u64) {
        self.tx_slot = slot;
        let w = &mut self.windows;
        if !self.tx_cav {
            // Slow start, only when the window was used up.
            w.slow_start += 1;
            if self.tx_wbc > self.tx_wbl {
                self.tx_wbl <<= 1;
            }
        } else if self.tx_ece != 0 {
            // Multiplicative decrease: × (1 − tx_ece / 2^13).
            w.decrease += 1;
            self.tx_wbl -= (self.tx_wbl * self.tx_ece as u64) >> (CA_SHFT + 8);
        } else if self.mode == Mode::Current {
            // Additive increase on what was sent (b066b8aa).
            w.increase += 1;
            self.tx_wbl = self.tx_wbc + self.tx_inc;
        } else if self.tx_wbc > self.tx_wbl {
            // Additive increase, only when the window was used up.
            w.increase += 1;
            self.tx_wbl += self.tx_inc;
        } else {
            w.hold += 1;
        }
        let carry = match self.mode {
            Mode::Code0180 | Mode::Blog => {
                self.scale_by_one();
                false
            }
            Mode::Current => self.scale_in_one_step(slot),
        };
        if !carry {
            self.tx_wbc = 0;
            self.tx_wpc = 0;
        }
    }

    /// 0.18.0's window scaling: double a window of fewer than 8 packets, halve one of more
    /// than 64, keeping the rate.
    fn scale_by_one(&mut self) {
        if self.tx_wpc < CA_MINPS {
            self.tx_mul += 1;
            self.tx_slot >>= 1;
            self.tx_wbl <<= 1;
            self.tx_inc <<= 1;
        }
        if self.tx_wpc > CA_MAXPS {
            self.tx_mul -= 1;
            self.tx_slot <<= 1;
            self.tx_wbl >>= 1;
            self.tx_inc >>= 1;
        }
    }

    /// The later scaling (95ca0c60): by 2^f at once, f the doublings (halvings) that bring
    /// the window's packets to at least 8 (at most 64). Scaling up onto a window whose
    /// number has its low f bits clear moves to the next window and keeps the counts (the
    /// "carry"), exactly as the C does. Returns whether it carried.
    fn scale_in_one_step(&mut self, slot: u64) -> bool {
        if self.tx_wpc < CA_MINPS {
            let mut fact = 0;
            let mut pkts = self.tx_wpc;
            while pkts < CA_MINPS {
                pkts <<= 1;
                fact += 1;
            }
            let mut carry = false;
            self.tx_mul += fact;
            self.tx_slot >>= fact;
            if self.tx_slot & ((1 << fact) - 1) == 0 {
                carry = true;
                self.tx_slot += 1;
            }
            self.tx_wbl <<= fact;
            self.tx_inc <<= fact;
            carry
        } else if self.tx_wpc > CA_MAXPS {
            let mut fact = 0;
            let mut pkts = self.tx_wpc;
            while pkts > CA_MAXPS {
                pkts >>= 1;
                fact += 1;
            }
            self.tx_mul -= fact;
            self.tx_slot <<= fact;
            self.tx_wbl >>= fact;
            self.tx_inc >>= fact;
            false
        } else {
            self.tx_slot = slot;
            false
        }
    }
}

impl CongestionApi for MbEcn {
    /// `mb_ecn_ctx_update_snd`.
    fn update_context_at_sender(&mut self, now_ns: u64, len: usize) -> i64 {
        let slot = now_ns >> self.tx_mul;
        self.tx_ctr += 1;
        self.tx_wpc += 1;
        self.tx_wbc += len as u64;
        if self.tx_ctr > CA_WND {
            self.tx_ece = 0;
        }
        if self.slot_after(slot) {
            self.new_window(slot);
        }
        if self.tx_wbc > self.tx_wbl {
            // C: a size_t difference converted to the signed time_t of `ca_wnd_t`.
            ((self.tx_slot + 1) << self.tx_mul).wrapping_sub(now_ns) as i64
        } else {
            0
        }
    }

    /// `mb_ecn_ctx_update_rcv` (the length is unused, as in the C).
    fn update_context_at_receiver(&mut self, _len: usize, ecn: u8) -> Option<u16> {
        if (self.rx_ece | ecn as u16) == 0 {
            return None;
        }
        let upd = self.mode.ca_upd();
        let update = if ecn == 0 {
            // End of congestion: quartered (the blog: halved).
            if self.mode == Mode::Blog {
                self.rx_ece >>= 1;
                self.rx_ece == 0 || self.counted(upd)
            } else {
                self.rx_ece >>= 2;
                self.rx_ece == 0
            }
        } else if self.rx_ece == 0 {
            // Start of congestion.
            self.rx_ece = ecn as u16;
            self.rx_ctr = 0;
            true
        } else {
            // Congestion update: the floating sum over 32 packets.
            let old = self.rx_ece;
            self.rx_ece -= self.rx_ece >> CA_SHFT;
            self.rx_ece = self.rx_ece.wrapping_add(ecn as u16);
            let counted = self.counted(upd);
            counted || (self.mode == Mode::Blog && self.rx_ece > old)
        };
        update.then_some(self.rx_ece)
    }

    /// `mb_ecn_ctx_update_ece`.
    fn update_context_at_sender_ece(&mut self, ece: u16) {
        self.tx_ece = ece;
        self.tx_ctr = 0;
        self.tx_cav = true;
    }

    fn update_ecn_in_router(&self, ecn: u8, queue: usize) -> u8 {
        calc_ecn(ecn, queue)
    }

    /// `mb_ecn_print_stats`.
    fn print_stats(&self, out: &mut String) {
        stat_line(out, "Congestion avoidance algorithm", "Multi-bit ECN");
        stat_line(out, "Upstream congestion level", self.rx_ece);
        stat_line(out, "Upstream packet counter", self.rx_ctr);
        stat_line(out, "Downstream congestion level", self.tx_ece);
        stat_line(out, "Downstream packet counter", self.tx_ctr);
        stat_line(out, "Congestion window size (ns)", self.window_ns());
        stat_line(out, "Packets in this window", self.tx_wpc);
        stat_line(out, "Bytes in this window", self.tx_wbc);
        stat_line(out, "Max bytes in this window", self.tx_wbl);
        stat_line(out, "Current congestion regime", self.regime());
    }
}

impl MbEcn {
    /// `(rx_ctr++ & (CA_UPD − 1)) == 1`: every `upd`-th congested packet, the second first.
    fn counted(&mut self, upd: u64) -> bool {
        let c = self.rx_ctr;
        self.rx_ctr += 1;
        c & (upd - 1) == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `ecns` to a receiver: (rx_ece after each packet, packets (1-based) that asked
    /// for a FLOW_UPDATE).
    fn receive(mode: Mode, ecns: &[u8]) -> (Vec<u16>, Vec<usize>) {
        let mut c = MbEcn::new(mode, 0);
        let mut rx = Vec::new();
        let mut upd = Vec::new();
        for (i, &e) in ecns.iter().enumerate() {
            if let Some(ece) = c.update_context_at_receiver(1000, e) {
                assert_eq!(ece, c.rx_ece);
                upd.push(i + 1);
            }
            rx.push(c.rx_ece);
        }
        (rx, upd)
    }

    /// docs/references.md MB-1, worked by hand from the 0.18.0 code: ecn 0,3,3,3,0,0 gives
    /// rx_ece 0,3,6,9,2,0 and FLOW_UPDATEs after packet 2 (start of congestion), 4
    /// (rx_ctr was 1) and 6 (back to 0).
    #[test]
    fn mb1_receiver_sequence() {
        let (rx, upd) = receive(Mode::Code0180, &[0, 3, 3, 3, 0, 0]);
        assert_eq!(rx, vec![0, 3, 6, 9, 2, 0]);
        assert_eq!(upd, vec![2, 4, 6]);
    }

    /// Then every CA_UPD-th congested packet: with 0.18.0's CA_UPD = 4, the packets whose
    /// counter value is 1 mod 4 (the 2nd, 6th, 10th … after the start); 8 in the later code.
    #[test]
    fn updates_every_ca_upd_packets() {
        let ecns = [5u8; 20];
        let (_, upd) = receive(Mode::Code0180, &ecns);
        // Packet 1 starts congestion (counter 0); packet k > 1 has counter k − 2.
        assert_eq!(upd, vec![1, 3, 7, 11, 15, 19]);
        let (_, upd) = receive(Mode::Current, &ecns);
        assert_eq!(upd, vec![1, 3, 11, 19]);
    }

    /// The blog's reading of the same MB-1 input, worked by hand: halved on ecn = 0 (9 → 4
    /// → 2 → 1 → 0), an update on each increase (packets 3 and 4), decreases reported
    /// only on the M-th count, and at 0.
    #[test]
    fn blog_receiver_sequence() {
        let (rx, upd) = receive(Mode::Blog, &[0, 3, 3, 3, 0, 0, 0, 0]);
        assert_eq!(rx, vec![0, 3, 6, 9, 4, 2, 1, 0]);
        assert_eq!(upd, vec![2, 3, 4, 8]);
    }

    /// A steady ecn = e drives rx_ece into the fixed points of x − x/32 + e, the x with
    /// x >> 5 = e, that is [32e, 32e + 31]: each packet below them adds e − x/32 ≥ 1. For
    /// e = 1 the steps are all 1, so it stops at exactly 32 (docs/references.md §9: a
    /// constant e = 1 settles at 32).
    #[test]
    fn steady_ecn_gives_thirty_two_times_e() {
        for e in [1u8, 2, 8, 63, 255] {
            let (rx, _) = receive(Mode::Code0180, &vec![e; 2000]);
            let last = *rx.last().unwrap() as u32;
            let e32 = 32 * e as u32;
            assert!((e32..e32 + 32).contains(&last), "e {e}: {last}");
            assert_eq!(rx[rx.len() - 2] as u32, last, "e {e}: not settled");
        }
        let (rx, _) = receive(Mode::Code0180, &[1; 200]);
        assert_eq!(*rx.last().unwrap(), 32);
        // The largest value an octet can drive it to stays inside its u16.
        let (rx, _) = receive(Mode::Code0180, &[255; 5000]);
        assert!(*rx.last().unwrap() <= 8160 + 31);
    }

    /// The sender across a window change and a rescale, by hand. Created at t = 0: window
    /// 2^24 ns, limit 65,536 B. 66 packets of 1000 B at t = 0: the 66th makes 66,000 >
    /// 65,536 and must wait for the window's end, 2^24 ns. The 67th, at 2^24, opens window
    /// 1 but is counted in window 0 (67 packets, 67,000 B): slow start doubles the limit
    /// (131,072), and 67 > 64 packets halves the window: 2^23 ns, window number 2, limit
    /// 65,536, increase 32,768, counts reset. 66 more packets then wait until
    /// 3 · 2^23 = 25,165,824 ns.
    #[test]
    fn sender_window_change_and_rescale() {
        let mut c = MbEcn::new(Mode::Code0180, 0);
        for k in 1..=65 {
            assert_eq!(c.update_context_at_sender(0, 1000), 0, "packet {k}");
        }
        assert_eq!(c.update_context_at_sender(0, 1000), 16_777_216);
        let t = 16_777_216;
        assert_eq!(c.update_context_at_sender(t, 1000), 0);
        assert_eq!(
            (c.tx_mul, c.tx_slot, c.tx_wbl, c.tx_inc, c.tx_wbc, c.tx_wpc),
            (23, 2, 65_536, 32_768, 0, 0)
        );
        for _ in 0..65 {
            assert_eq!(c.update_context_at_sender(t, 1000), 0);
        }
        assert_eq!(c.update_context_at_sender(t, 1000), 25_165_824 - 16_777_216);
        // The rescale kept the rate slow start had doubled: 131,072 B per 2^24 ns =
        // 65,536 B per 2^23 ns (62.5 Mbit/s).
        assert_eq!(c.regime(), "Slow start");
    }

    /// A window of fewer than 8 packets doubles in length, with its limit and increase
    /// (0.18.0: one step per window); a FLOW_UPDATE ends slow start and its ECE cuts the
    /// limit by ece/8192 at the next window.
    #[test]
    fn sender_scales_up_and_decreases_multiplicatively() {
        let mut c = MbEcn::new(Mode::Code0180, 0);
        c.update_context_at_sender(0, 1000);
        c.update_context_at_sender_ece(256);
        assert!(c.tx_cav);
        // One packet in window 0; the next at window 1 closes it: MD then scale up.
        c.update_context_at_sender(1 << 24, 1000);
        // wbl = 65,536 − 65,536·256/8192 = 63,488, then doubled with the window.
        assert_eq!(
            (c.tx_mul, c.tx_slot, c.tx_wbl, c.tx_inc),
            (25, 0, 126_976, 131_072)
        );
        assert_eq!(c.regime(), "Multiplicative dec");
    }

    /// 32 packets without a FLOW_UPDATE keep the last ECE; the 33rd forgets it, and the
    /// next window increases additively (when used up) instead of cutting.
    #[test]
    fn sender_forgets_ece_after_32_packets() {
        let mut c = MbEcn::new(Mode::Code0180, 0);
        c.update_context_at_sender_ece(100);
        for _ in 0..32 {
            c.update_context_at_sender(0, 10);
        }
        assert_eq!(c.tx_ece, 100);
        c.update_context_at_sender(0, 10);
        assert_eq!(c.tx_ece, 0);
        assert_eq!(c.regime(), "Additive inc");
        // 33 packets of 10 B did not use the window up: no increase, and fewer than 64
        // packets, more than 8: no rescale.
        c.update_context_at_sender(1 << 24, 10);
        assert_eq!((c.tx_wbl, c.tx_mul), (CA_IWL, CA_SLOT));
        // A used-up window increases by CA_INC.
        for _ in 0..20 {
            c.update_context_at_sender(1 << 24, 4000);
        }
        c.update_context_at_sender(2 << 24, 10);
        assert_eq!(c.tx_wbl, CA_IWL + CA_INC);
    }

    /// The later code scales by 2^f at once. Created at 0, a first packet at window 5 of
    /// 2^24 ns closes window 0 with 1 packet: f = 3 (1 → 8 packets), window 2^27 ns; the
    /// increase is unconditional, 1000 + 65,536 B, then × 8 with the window. The window
    /// number 5 >> 3 = 0 has its low 3 bits clear, so it carries to window 1 and keeps the
    /// counts (1 packet, 1000 B).
    #[test]
    fn current_scales_in_one_step_with_carry() {
        let mut c = MbEcn::new(Mode::Current, 0);
        c.update_context_at_sender_ece(0);
        c.update_context_at_sender(5 << 24, 1000);
        assert_eq!((c.tx_mul, c.tx_slot, c.tx_wpc, c.tx_wbc), (27, 1, 1, 1000));
        assert_eq!(c.tx_wbl, (1000 + CA_INC) << 3);
        assert_eq!(c.tx_inc, CA_INC << 3);
        // Window 9: 9 >> 3 = 1 has a low bit set: no carry, the counts reset.
        let mut c = MbEcn::new(Mode::Current, 0);
        c.update_context_at_sender_ece(0);
        c.update_context_at_sender(9 << 24, 1000);
        assert_eq!((c.tx_mul, c.tx_slot, c.tx_wpc, c.tx_wbc), (27, 1, 0, 0));
        // 0.18.0 scales one step per window: the same packet gives 2^25 ns.
        let mut c = MbEcn::new(Mode::Code0180, 0);
        c.update_context_at_sender_ece(0);
        c.update_context_at_sender(9 << 24, 1000);
        assert_eq!((c.tx_mul, c.tx_slot, c.tx_wbl), (25, 4, CA_IWL << 1));
    }

    /// Routers OR q >> 4 over the hops, not max or sum: queues of 48, 80 and 16 packets
    /// give 3 | 5 | 1 = 7 (max 5, sum 9); below 16 packets a hop adds nothing; the octet
    /// keeps the low 8 bits of q >> 4, as C's cast does.
    #[test]
    fn marking_is_an_or_over_three_hops() {
        let mut ecn = 0;
        for q in [48, 80, 16] {
            ecn = calc_ecn(ecn, q);
        }
        assert_eq!(ecn, 7);
        assert_eq!(calc_ecn(0, 15), 0);
        assert_eq!(calc_ecn(0, 1023), 63);
        assert_eq!(calc_ecn(0, 16 * 256 + 16), 1);
        let k = super::super::FlowCaKind::by_name("mb-ecn").unwrap();
        assert_eq!(k.update_ecn_in_router(calc_ecn(2, 64), 32), 6);
    }

    /// The statistics lines as the prototype prints them (`%20s`/`%20zu` after a 33-column
    /// label), for a fresh context.
    #[test]
    fn stats_in_the_prototypes_format() {
        let c = MbEcn::new(Mode::Code0180, 0);
        let mut s = String::new();
        c.print_stats(&mut s);
        let want = "\
Congestion avoidance algorithm:         Multi-bit ECN
Upstream congestion level:                          0
Upstream packet counter:                            0
Downstream congestion level:                        0
Downstream packet counter:                          0
Congestion window size (ns):                 16777216
Packets in this window:                             0
Bytes in this window:                               0
Max bytes in this window:                       65536
Current congestion regime:                 Slow start
";
        assert_eq!(s, want);
    }
}
