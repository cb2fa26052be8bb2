//! DCTCP as merged in Linux 3.18 — `net/ipv4/tcp_dctcp.c` of commit e3118e8359bb ("net: tcp:
//! add DCTCP congestion control algorithm", Borkmann, Westphal, Judd, September 2014), the
//! patch whose commit message is seed 000, with the Reno it called, `tcp_reno_cong_avoid`
//! of 3.18's `net/ipv4/tcp_cong.c`. `cc = "dctcp"` (`dctcp.rs`) is today's module; the
//! two differ in five places, each a later kernel's change:
//!
//! 1. **Alpha counts bytes.** `dctcp_update_alpha` adds the bytes each ACK moves snd_una to
//!    `acked_bytes_total` (and to `acked_bytes_ecn` when it echoes ECE); an ACK that moves
//!    nothing and did not update the window (`CA_ACK_WIN_UPDATE`) counts as
//!    `icsk_ack.rcv_mss` bytes — for a socket that only sends, `tcp_initialize_rcv_mss`'s
//!    hint min(mss, `TCP_MSS_DEFAULT` = 536), as it never measures a received segment. Once
//!    per window, alpha ← alpha − alpha/2^s + ecn·2^(10−s)/total (s = `dctcp_shift_g`,
//!    g = 1/2^s), in 3.18's 32-bit arithmetic: ecn·2^(10−s) wraps past 2^32, i.e. at 64 MiB
//!    of ECE-echoed bytes in one window at s = 4 (4.4 widened it). (Today: delivered and
//!    CE-delivered segments, `tp->delivered_ce`, 5.1.)
//! 2. **No `min_not_zero`**: decaying without marks, alpha − alpha/2^s stops at 2^s − 1 = 15
//!    (s = 4), so an unmarked flow keeps alpha 15/1024 (today it snaps to 0) — the
//!    "alpha 15 ab_ecn 0" of the seed's own `ss` example.
//! 3. **No loss response of its own.** A loss sets ssthresh by `dctcp_ssthresh`, cwnd −
//!    cwnd·alpha/2: at the alpha of an unmarked flow almost no reduction. `dctcp_state`
//!    only sets alpha to 1.0 on an RTO (`TCP_CA_Loss`) when the module parameter
//!    `dctcp_clamp_alpha_on_loss` is set (default 0). (Today: halve, "tcp: Ensure DCTCP
//!    reacts to losses", 5.1.) No `undo_cwnd` (3.18's core would restore max(cwnd,
//!    2·ssthresh), `tcp_undo_cwnd_reduction`; this core has no undo, so it is not reached).
//! 4. **Reno of 3.18** as the module calls it: slow start while cwnd ≤ ssthresh, by the
//!    `acked` count it is given, capped at ssthresh + 1 (`tcp_slow_start`); above it one
//!    segment per cwnd + 1 *ACKs* (`tcp_cong_avoid_ai(tp, cwnd)` counted ACKs until 4.0's
//!    "tcp: fix the timid additive increase on stretch ACKs"), so with delayed ACKs half a
//!    segment per round trip.
//! 5. **The receiver** sends, on a change of CE state, only the delayed ACK pending for the
//!    data before it (`delayed_ack_reserved`, with the old state); the new packet waits
//!    for the next ACK as any other, as on 3.18's fast path (today it is ACKed at once:
//!    "tcp: do not delay ACK in DCTCP upon CE status change", 2018). The TCP receiver does
//!    this when `ReceiverNeeds::ce_ack_now` is false. Not modelled: on 3.18's slow path
//!    (a segment with CWR, or one that fails header prediction) that special ACK also
//!    cancelled the pending delayed ACK of the new packet, which then waited for the next
//!    segment or a retransmission (fixed by "tcp: do not cancel delay-AcK on DCTCP special
//!    ACK", 2018).
//!
//! The TCP core around it stays today's: PRR, RACK-less SACK recovery as `tcp::sender`
//! models it, today's `tcp_is_cwnd_limited`, and `cong_avoid` called after the congestion
//! state machine with the segments each ACK delivered (SACKed ones included), where 3.18
//! called it first, only on ACKs that moved snd_una, with the segments they removed.
//! Without ECN negotiated it falls back to Reno (`dctcp_reno`: 3.18's `tcp_reno_ssthresh`
//! and `tcp_reno_cong_avoid`), named `dctcp-reno` as `ss` showed it.

use super::dctcp::{dctcp_ssthresh, ss_info, ALPHA_ON_INIT, DCTCP_MAX_ALPHA, SHIFT_G};
use super::{CaState, CongestionOps, ReceiverNeeds, TcpCcState, CA_ACK_ECE, CA_ACK_WIN_UPDATE};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

/// `TCP_MSS_DEFAULT`: the receive-MSS hint of a socket that has received no data.
const TCP_MSS_DEFAULT: u32 = 536;
/// `TCP_MIN_MSS`.
const TCP_MIN_MSS: u32 = 88;

#[derive(Clone, Debug)]
pub struct Dctcp318 {
    /// 32-bit, as in 3.18's `struct dctcp`.
    pub acked_bytes_ecn: u32,
    pub acked_bytes_total: u32,
    pub prior_snd_una: u64,
    pub dctcp_alpha: u32,
    pub next_seq: u64,
    /// `icsk_ack.rcv_mss`: what a duplicate ACK counts for.
    pub rcv_mss: u32,
    /// `dctcp_shift_g` (module parameter, 0..=10; g = 1/2^shift).
    pub dctcp_shift_g: u32,
    /// `dctcp_alpha_on_init` (module parameter).
    pub dctcp_alpha_on_init: u32,
    /// `dctcp_clamp_alpha_on_loss` (module parameter).
    pub dctcp_clamp_alpha_on_loss: bool,
    /// ECN was not negotiated: behave as `dctcp_reno`.
    pub fallback: bool,
}

impl Default for Dctcp318 {
    fn default() -> Self {
        Dctcp318 {
            acked_bytes_ecn: 0,
            acked_bytes_total: 0,
            prior_snd_una: 0,
            dctcp_alpha: DCTCP_MAX_ALPHA,
            next_seq: 0,
            rcv_mss: TCP_MSS_DEFAULT,
            dctcp_shift_g: 4,
            dctcp_alpha_on_init: DCTCP_MAX_ALPHA,
            dctcp_clamp_alpha_on_loss: false,
            fallback: false,
        }
    }
}

impl Dctcp318 {
    /// `dctcp_reset`.
    fn reset(&mut self, tp: &TcpCcState) {
        self.next_seq = tp.snd_nxt;
        self.acked_bytes_ecn = 0;
        self.acked_bytes_total = 0;
    }

    /// The EWMA step of 3.18's `dctcp_update_alpha` for one window of `total` acked bytes,
    /// `ecn` of them ECE-echoed (a zero total counts as 1), in its 32-bit arithmetic.
    pub fn alpha_step(alpha: u32, total: u32, ecn: u32, shift_g: u32) -> u32 {
        let a = (alpha - (alpha >> shift_g)).wrapping_add((ecn << (10 - shift_g)) / total.max(1));
        a.min(DCTCP_MAX_ALPHA)
    }
}

/// 3.18's `tcp_reno_cong_avoid`: `tcp_slow_start` without the leftover, then the
/// ACK-counting `tcp_cong_avoid_ai`.
fn reno_cong_avoid_318(tp: &mut TcpCcState, acked: u32) {
    if !tp.is_cwnd_limited {
        return;
    }
    if tp.snd_cwnd <= tp.snd_ssthresh {
        // tcp_slow_start(tp, acked)
        let mut cwnd = tp.snd_cwnd.saturating_add(acked);
        if cwnd > tp.snd_ssthresh {
            cwnd = tp.snd_ssthresh.saturating_add(1);
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
    } else if tp.snd_cwnd_cnt >= tp.snd_cwnd {
        // tcp_cong_avoid_ai(tp, tp->snd_cwnd)
        if tp.snd_cwnd < tp.snd_cwnd_clamp {
            tp.snd_cwnd += 1;
        }
        tp.snd_cwnd_cnt = 0;
    } else {
        tp.snd_cwnd_cnt += 1;
    }
}

/// Its options: DCTCP's two module parameters (read as `dctcp`'s, the same module) and
/// the third 3.18 had.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `dctcp_clamp_alpha_on_loss` (default 0).
    pub clamp_alpha_on_loss: bool,
}

impl super::Configure for Dctcp318 {
    type Options = Options;
    const OPTIONS: &'static Schema = &OPTIONS;
    fn read(ck: &mut Checker, t: Tab, o: &mut super::CcOptions) {
        // dctcp_shift_g and dctcp_alpha_on_init are read by `dctcp`'s options.
        ck.get_into(
            t,
            &CLAMP_ALPHA_ON_LOSS,
            &mut o.dctcp_318.clamp_alpha_on_loss,
        );
    }
    fn configure(&mut self, o: &super::CcOptions) {
        self.dctcp_shift_g = o.dctcp.shift_g.min(10);
        self.dctcp_alpha_on_init = o.dctcp.alpha_on_init;
        self.dctcp_clamp_alpha_on_loss = o.dctcp_318.clamp_alpha_on_loss;
    }
}

const CLAMP_ALPHA_ON_LOSS: Key = Key {
    name: "dctcp_clamp_alpha_on_loss",
    ty: Ty::Bool,
    default: "`false`",
    allowed: "",
    meaning: "module parameter `dctcp_clamp_alpha_on_loss` of Linux 3.18 to 5.0: on an RTO set alpha to 1.0, so the next ECN reduction halves",
};

static OPTIONS: Schema = Schema {
    title: "DCTCP 3.18 options",
    place: "[tcp]",
    noun: "options",
    about: "",
    keys: &[SHIFT_G, ALPHA_ON_INIT, CLAMP_ALPHA_ON_LOSS],
    with: &[],
    variants: None,
};

impl CongestionOps for Dctcp318 {
    fn name(&self) -> &'static str {
        if self.fallback {
            "dctcp-reno"
        } else {
            "dctcp-3.18"
        }
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    /// The receiver runs 3.18's `dctcp_ce_state_0_to_1` / `_1_to_0`.
    fn receiver_needs(&self) -> ReceiverNeeds {
        ReceiverNeeds {
            ecn: true,
            ect_1: false,
            ce_state: true,
            ce_ack_now: false,
        }
    }

    /// `dctcp_init`.
    fn init(&mut self, tp: &mut TcpCcState) {
        // `tcp_initialize_rcv_mss` (advmss and rcv_wnd / 2 are never the smaller here).
        self.rcv_mss = tp.mss_cache.clamp(TCP_MIN_MSS, TCP_MSS_DEFAULT);
        if tp.ecn_ok {
            self.prior_snd_una = tp.snd_una;
            self.dctcp_alpha = self.dctcp_alpha_on_init.min(DCTCP_MAX_ALPHA);
            self.reset(tp);
            self.fallback = false;
        } else {
            self.fallback = true;
        }
    }

    /// `dctcp_ssthresh` (`tcp_reno_ssthresh` in fallback).
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        if self.fallback {
            return super::reno::reno_ssthresh(tp);
        }
        dctcp_ssthresh(tp.snd_cwnd, self.dctcp_alpha)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        reno_cong_avoid_318(tp, acked)
    }

    /// No `.undo_cwnd`: 3.18's `tcp_undo_cwnd_reduction` takes max(cwnd, 2·ssthresh) (not
    /// reached: this core does not undo).
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        tp.snd_cwnd.max(tp.snd_ssthresh.saturating_mul(2))
    }

    /// `dctcp_state`.
    fn set_state(&mut self, _tp: &mut TcpCcState, new_state: CaState) {
        if !self.fallback && self.dctcp_clamp_alpha_on_loss && new_state == CaState::Loss {
            self.dctcp_alpha = DCTCP_MAX_ALPHA;
        }
    }

    /// `dctcp_update_alpha`, registered as `.in_ack_event`.
    fn in_ack_event(&mut self, tp: &mut TcpCcState, flags: u32) {
        if self.fallback {
            return;
        }
        let mut acked_bytes = (tp.snd_una - self.prior_snd_una) as u32;
        // If ack did not advance snd_una, count dupack as MSS size.
        // If ack did update window, do not count it at all.
        if acked_bytes == 0 && flags & CA_ACK_WIN_UPDATE == 0 {
            acked_bytes = self.rcv_mss;
        }
        if acked_bytes > 0 {
            self.acked_bytes_total = self.acked_bytes_total.wrapping_add(acked_bytes);
            self.prior_snd_una = tp.snd_una;
            if flags & CA_ACK_ECE != 0 {
                self.acked_bytes_ecn = self.acked_bytes_ecn.wrapping_add(acked_bytes);
            }
        }
        // Expired RTT.
        if tp.snd_una >= self.next_seq {
            self.dctcp_alpha = Self::alpha_step(
                self.dctcp_alpha,
                self.acked_bytes_total,
                self.acked_bytes_ecn,
                self.dctcp_shift_g,
            );
            self.reset(tp);
        }
    }

    /// `dctcp_get_info` as `ss -ti` prints it.
    fn diag(&self, out: &mut String) {
        let (ecn, total) = (self.acked_bytes_ecn as u64, self.acked_bytes_total as u64);
        ss_info(out, self.fallback, self.dctcp_alpha, ecn, total);
    }

    fn state_vars(&self) -> &'static [super::StateVar] {
        &super::dctcp::STATE
    }

    fn state(&self, _tp: &TcpCcState, out: &mut [f64]) {
        out[0] = super::dctcp::alpha_fraction(self.fallback, self.dctcp_alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CaEvent, CA_ACK_SLOWPATH};

    fn open(cwnd: u32, ssthresh: u32) -> (TcpCcState, Dctcp318) {
        let mut tp = TcpCcState::new(8948, cwnd, ssthresh);
        tp.ecn_ok = true;
        let mut d = Dctcp318::default();
        d.init(&mut tp);
        (tp, d)
    }

    #[test]
    fn alpha_decays_to_the_floor_of_15_not_zero() {
        // 1024 · (15/16)^n by integer steps: 1024 → 960 → 900 → 844 …, then stuck where
        // alpha >> 4 is 0, i.e. at 15 (today's min_not_zero would take it to 0).
        let mut a = 1024;
        let mut v = vec![];
        for _ in 0..200 {
            a = Dctcp318::alpha_step(a, 100_000, 0, 4);
            v.push(a);
        }
        assert_eq!(&v[..4], &[960, 900, 844, 792]);
        assert_eq!(*v.last().unwrap(), 15);
        // All bytes marked from 15: 15 − 0 + 64 = 79.
        assert_eq!(Dctcp318::alpha_step(15, 1000, 1000, 4), 79);
        // Half the bytes marked from 0: 512 · 64 / 1024 = 32; an empty window counts as 1.
        assert_eq!(Dctcp318::alpha_step(0, 2000, 1000, 4), 32);
        assert_eq!(Dctcp318::alpha_step(100, 0, 0, 4), 94);
        // Clamped at 1.0.
        assert_eq!(Dctcp318::alpha_step(1024, 10, 10, 4), 1024);
        // 32 bits: 64 MiB of ECE bytes in a window, shifted by 6, wrap to 0 (a window of
        // all-marked bytes just below that gives the full 64).
        assert_eq!(Dctcp318::alpha_step(0, 1 << 26, 1 << 26, 4), 0);
        assert_eq!(Dctcp318::alpha_step(0, (1 << 26) - 1, (1 << 26) - 1, 4), 64);
    }

    #[test]
    fn a_window_counts_bytes_and_dupacks_count_536() {
        let (mut tp, mut d) = open(10, u32::MAX);
        d.dctcp_alpha = 0;
        tp.snd_nxt = 100_000;
        d.reset(&tp);
        // 40,000 bytes acked, ECE on the first 10,000.
        tp.snd_una = 10_000;
        d.in_ack_event(&mut tp, CA_ACK_ECE | CA_ACK_WIN_UPDATE);
        tp.snd_una = 40_000;
        d.in_ack_event(&mut tp, CA_ACK_WIN_UPDATE);
        // Two duplicate ACKs with ECE: 536 bytes each, both marked; one that opened the
        // window counts nothing.
        d.in_ack_event(&mut tp, CA_ACK_ECE | CA_ACK_SLOWPATH);
        d.in_ack_event(&mut tp, CA_ACK_ECE | CA_ACK_SLOWPATH);
        d.in_ack_event(&mut tp, CA_ACK_ECE | CA_ACK_WIN_UPDATE);
        assert_eq!(d.acked_bytes_total, 40_000 + 2 * 536);
        assert_eq!(d.acked_bytes_ecn, 10_000 + 2 * 536);
        assert_eq!(d.dctcp_alpha, 0, "window not complete");
        // The rest of the window: F = 11,072 / 101,072; alpha = 0 + 11,072·64/101,072 = 7.
        tp.snd_una = 100_000;
        tp.snd_nxt = 200_000;
        d.in_ack_event(&mut tp, CA_ACK_WIN_UPDATE);
        assert_eq!(d.dctcp_alpha, 11_072 * 64 / 101_072);
        assert_eq!(d.dctcp_alpha, 7);
        assert_eq!((d.acked_bytes_total, d.next_seq), (0, 200_000));
    }

    #[test]
    fn rcv_mss_of_a_sender_is_536_or_its_mss_if_smaller() {
        assert_eq!(open(10, 100).1.rcv_mss, 536);
        let mut tp = TcpCcState::new(500, 10, 100);
        let mut d = Dctcp318::default();
        d.init(&mut tp);
        assert_eq!(d.rcv_mss, 500);
    }

    #[test]
    fn loss_reduces_by_alpha_only_and_clamps_only_if_asked() {
        let (mut tp, mut d) = open(100, 50);
        // An unmarked flow: alpha at its floor 15 → ssthresh 100 − 100·15/2048 = 100.
        d.dctcp_alpha = 15;
        assert_eq!(d.ssthresh(&mut tp), 100);
        tp.snd_cwnd = 1000;
        assert_eq!(d.ssthresh(&mut tp), 993);
        // Recovery and RTO leave ssthresh as the core set it and alpha as it was.
        tp.snd_ssthresh = 993;
        d.set_state(&mut tp, CaState::Recovery);
        d.cwnd_event(&mut tp, CaEvent::Loss);
        d.set_state(&mut tp, CaState::Loss);
        assert_eq!((tp.snd_ssthresh, d.dctcp_alpha), (993, 15));
        // With dctcp_clamp_alpha_on_loss, an RTO sets alpha to 1.0 (not recovery).
        d.dctcp_clamp_alpha_on_loss = true;
        d.set_state(&mut tp, CaState::Recovery);
        assert_eq!(d.dctcp_alpha, 15);
        d.set_state(&mut tp, CaState::Loss);
        assert_eq!(d.dctcp_alpha, 1024);
        assert_eq!(d.ssthresh(&mut tp), 500);
        // Undo: max(cwnd, 2·ssthresh).
        tp.snd_cwnd = 1;
        tp.snd_ssthresh = 40;
        assert_eq!(d.undo_cwnd(&mut tp), 80);
    }

    #[test]
    fn reno_of_3_18_counts_acks_above_ssthresh() {
        // Slow start while cwnd ≤ ssthresh, capped at ssthresh + 1.
        let (mut tp, mut d) = open(10, 20);
        d.cong_avoid(&mut tp, 2);
        assert_eq!(tp.snd_cwnd, 12);
        tp.snd_cwnd = 20;
        d.cong_avoid(&mut tp, 5);
        assert_eq!(tp.snd_cwnd, 21);
        // Above: cwnd + 1 ACKs per segment, whatever each acked (two segments here).
        let mut acks = 0;
        while tp.snd_cwnd == 21 {
            d.cong_avoid(&mut tp, 2);
            acks += 1;
        }
        assert_eq!(acks, 22);
        // Not cwnd-limited: nothing.
        tp.is_cwnd_limited = false;
        d.cong_avoid(&mut tp, 2);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (22, 0));
    }

    #[test]
    fn without_ecn_it_falls_back_to_reno() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut d = Dctcp318::default();
        d.init(&mut tp);
        assert!(d.fallback);
        assert_eq!(d.name(), "dctcp-reno");
        tp.snd_cwnd = 100;
        d.dctcp_alpha = 0;
        assert_eq!(d.ssthresh(&mut tp), 50);
        // No alpha bookkeeping: an ECE-echoing ACK leaves the counters alone.
        tp.snd_una = 10_000;
        d.in_ack_event(&mut tp, CA_ACK_ECE | CA_ACK_WIN_UPDATE);
        assert_eq!((d.acked_bytes_total, d.acked_bytes_ecn), (0, 0));
        // 3.18's Reno: above ssthresh one segment per cwnd + 1 ACKs.
        tp.snd_ssthresh = 50;
        let acks = (0..)
            .take_while(|_| {
                d.cong_avoid(&mut tp, 2);
                tp.snd_cwnd == 100
            })
            .count();
        assert_eq!(acks + 1, 101);
    }
}
