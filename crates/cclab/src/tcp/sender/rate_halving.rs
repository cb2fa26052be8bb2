//! Rate halving: the cwnd of Linux 2.6's recovery and CWR, before PRR (Linux 3.2)
//! replaced it (`[tcp] rate_halving`, set by the `"2.6"` profile), part of `Sender`.
//! Read from Linux 2.6.9 `net/ipv4/tcp_input.c` and `include/net/tcp.h`:
//!
//! - Entry into recovery (`tcp_fastretrans_alert`): ssthresh is recalculated, cwnd is
//!   kept, `snd_cwnd_cnt` = 0. Entry into CWR (`__tcp_enter_cwr`, on ECE or a local
//!   drop): the same, and cwnd = min(cwnd, in flight + 1).
//! - Every ACK in Recovery or CWR (`tcp_cwnd_down`, from the end of
//!   `tcp_fastretrans_alert` and from `tcp_try_to_open` in CWR): `decr` = `snd_cwnd_cnt` +
//!   1; `snd_cwnd_cnt` = decr & 1; decr >>= 1 — so one ACK in two takes one segment off —
//!   while cwnd > ssthresh/2 (`tcp_westwood_bw_rttmin` gives 0 unless Westwood is on);
//!   then cwnd = min(cwnd, in flight + 1).
//! - Exit (`tcp_complete_cwr`): cwnd = min(cwnd, ssthresh). 2.6.9's `tcp_ack` decides
//!   growth before the state machine runs (`tcp_may_raise_cwnd`: not in Recovery or CWR),
//!   so the ACK that ends the episode raises no cwnd (`sender/ack.rs`, `cong_control`).
//!
//! The same rule is in 2.4.22. Later 2.6 kernels changed it (2.6.32: a reduction only on
//! ACKs that make progress or carry a D-SACK, and down to ssthresh, `tcp_cwnd_min`);
//! that variant is not modelled. Not modelled either: 2.6's `tcp_moderate_cwnd` in Open,
//! Disorder and Loss (cwnd at most in flight + 3), which is not part of the reduction.

use super::Sender;

impl Sender {
    /// `tcp_cwnd_down` (2.6.9), on an ACK in Recovery or CWR.
    pub(super) fn rate_halving_ack(&mut self) {
        let decr = self.tp.snd_cwnd_cnt + 1;
        self.tp.snd_cwnd_cnt = decr & 1;
        let decr = decr >> 1;
        if decr > 0 && self.tp.snd_cwnd > self.tp.snd_ssthresh / 2 {
            self.tp.snd_cwnd -= decr;
        }
        self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.in_flight() + 1);
    }

    /// The entry into Recovery (`cwr` false) or CWR (`__tcp_enter_cwr`): cwnd is kept,
    /// in CWR at most in flight + 1.
    pub(super) fn rate_halving_enter(&mut self, cwr: bool) {
        self.tp.snd_cwnd_cnt = 0;
        if cwr {
            self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.in_flight() + 1);
        }
    }

    /// `tcp_complete_cwr` (2.6.9): the reduction ends at min(cwnd, ssthresh).
    pub(super) fn rate_halving_exit(&mut self) {
        self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.tp.snd_ssthresh);
    }
}
