//! The sender's `ss -ti` diagnostics line (part of `Sender`, see `sender.rs`), in the
//! field order of Linux `tcp_get_info` and iproute2's `ss`.

use super::Sender;
use crate::cc::CongestionOps;
use crate::engine::SimTime;

impl Sender {
    /// An `ss -ti`-style line, in Linux's field order (`tcp_get_info` / `ss`):
    /// `dctcp wscale:7,7 rto:203 rtt:2.349/0.026 mss:1448 cwnd:2054 ssthresh:1102 ce_state 0
    /// alpha 15 ab_ecn 0 ab_tot 735584 send 10129.2Mbps pacing_rate 20254.1Mbps unacked:1822
    /// retrans:0/15`, followed by cclab's own counters.
    pub fn ss_line(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let ms = |t: SimTime| t as f64 / 1e9;
        let _ = write!(
            s,
            "{} wscale:7,7 rto:{:.0} rtt:{:.3}/{:.3}",
            self.cc.name(),
            ms(self.current_rto()),
            ms(self.rtt.srtt()),
            ms(self.rtt.rttvar()),
        );
        if self.cfg.delayed_ack {
            let _ = write!(s, " ato:{:.0}", ms(self.cfg.delack_timeout));
        }
        let _ = write!(s, " mss:{} cwnd:{}", self.mss, self.tp.snd_cwnd);
        if self.tp.snd_ssthresh < u32::MAX / 2 {
            let _ = write!(s, " ssthresh:{}", self.tp.snd_ssthresh);
        }
        if self.tp.ecn_ok && self.cc.needs_ecn() {
            s.push_str(" ce_state 0");
        }
        self.cc.diag(&mut s);
        let srtt = self.rtt.srtt().max(1) as f64 / 1e12;
        let send_bps = self.tp.snd_cwnd as f64 * self.mss as f64 * 8.0 / srtt;
        let _ = write!(s, " send {:.1}Mbps", send_bps / 1e6);
        // `sk_pacing_rate` as the socket holds it (`tcp_update_pacing_rate`'s, or the
        // module's with `cong_control`); `ss` omits it while unknown (~0).
        let rate = self.pacing_rate_for_ss();
        if rate != 0 && rate != crate::cc::NO_RATE {
            let _ = write!(s, " pacing_rate {:.1}Mbps", rate as f64 * 8.0 / 1e6);
        }
        let _ = write!(
            s,
            " unacked:{} retrans:{}/{} lost:{} sacked:{} timeouts:{} ece_acks:{} bytes_acked:{}",
            self.packets_out(),
            self.retrans_out,
            self.stats.retrans_segs,
            self.lost_out,
            self.sacked_out,
            self.stats.timeouts,
            self.stats.ece_acks,
            self.stats.bytes_acked
        );
        s
    }
}
