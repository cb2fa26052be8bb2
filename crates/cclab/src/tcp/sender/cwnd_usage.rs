//! Is the sender using its cwnd? Linux 6.6's answer, which every congestion control's
//! growth asks (`cong_avoid` does nothing unless `tcp_is_cwnd_limited`).
//!
//! Source: Linux 6.6 `net/ipv4/tcp_output.c` `tcp_write_xmit` (the end of the send loop:
//! `is_cwnd_limited |= (tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp)); if (likely(sent_pkts
//! || is_cwnd_limited)) tcp_cwnd_validate(sk, is_cwnd_limited);`), `tcp_cwnd_validate`'s
//! first half, and `include/net/tcp.h` `tcp_is_cwnd_limited`; the rule of f4ce91ce12a7
//! ("tcp: fix tcp_cwnd_validate() to not forget is_cwnd_limited", Neal Cardwell, Oct 2022,
//! in 6.1 and 6.0.3+), on ca8a22634381 ("tcp: make cwnd-limited checks measurement-based,
//! and gentler", 2015).
//!
//! The verdict is kept per window: once a send finds cwnd full (or the TSO deferral waits
//! for cwnd), `is_cwnd_limited` holds until snd_una passes what was sent then
//! (`cwnd_usage_seq`); a send that is not cwnd-limited only updates it once that window is
//! acknowledged, or while it is false (tracking the largest flight, `max_packets_out`).
//! `tcp_write_xmit` only runs while data waits to be sent (`tcp_push_pending_frames` checks
//! `tcp_send_head`), so a sender that runs out of data keeps its last verdict: a bulk
//! transfer whose last bytes have left still grows cwnd on their ACKs (google/packetdrill
//! `cubic/cubic-bulk-166k.pkt`, cwnd 138 … 198 after the last write's data left).
//!
//! Not modelled: the second half of `tcp_cwnd_validate` (`tcp_cwnd_application_limited`,
//! RFC 2861's decay of an unused cwnd after an RTO without being cwnd-limited).

use super::Sender;

/// Linux `tp->is_cwnd_limited`, `tp->max_packets_out`, `tp->cwnd_usage_seq`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CwndUsage {
    /// The last window's verdict (`tp->is_cwnd_limited`).
    pub limited: bool,
    /// The largest flight of the window while not cwnd-limited (`tp->max_packets_out`).
    pub max_packets_out: u32,
    /// The window's right edge: snd_nxt when the verdict was taken (`tp->cwnd_usage_seq`).
    pub seq: u64,
}

impl Sender {
    /// The end of `tcp_write_xmit`: `sent` new segments left in this send attempt and
    /// `deferred` is true when the TSO deferral waited for cwnd (`tcp_tso_should_defer`
    /// setting `is_cwnd_limited`). Call only when data was waiting to be sent.
    pub(super) fn cwnd_validate(&mut self, sent: bool, deferred: bool) {
        let limited = deferred || self.in_flight() >= self.tp.snd_cwnd;
        if !(sent || limited) {
            return;
        }
        // `tcp_cwnd_validate`.
        let packets_out = self.packets_out();
        let u = &mut self.usage;
        if self.tp.snd_una >= u.seq || limited || (!u.limited && packets_out > u.max_packets_out) {
            u.limited = limited;
            u.max_packets_out = packets_out;
            u.seq = self.tp.snd_nxt;
        }
    }

    /// `tcp_is_cwnd_limited`.
    pub(super) fn is_cwnd_limited(&self) -> bool {
        if self.usage.limited {
            return true;
        }
        // In slow start, ensure cwnd grows to twice what was ACKed.
        self.tp.in_slow_start() && self.tp.snd_cwnd < 2 * self.usage.max_packets_out
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::MS;
    use crate::tcp::config::TcpConfig;
    use crate::tcp::harness::Bench;

    /// `tcp_cwnd_validate` and `tcp_is_cwnd_limited` of Linux 6.6, step by step, on a
    /// sender with its initial window of 10 segments in flight.
    #[test]
    fn the_verdict_holds_for_a_window_and_is_kept_when_data_runs_out() {
        let mut b = Bench::new(&TcpConfig::default(), 10 * MS, 1_000_000_000, Some(100_000));
        b.connect();
        b.run_until(25 * MS); // handshake done, the initial window sent
        let s = &mut b.s;
        let nxt = s.tp.snd_nxt;
        assert_eq!((s.in_flight(), s.tp.snd_cwnd), (10, 10));
        // The window is full: cwnd-limited until snd_una reaches what is out now.
        assert!(s.usage.limited && s.usage.seq == nxt);
        assert!(s.is_cwnd_limited());
        // cwnd opens to 30 (slow start): a send that leaves room keeps the verdict while
        // snd_una is below the window's edge (f4ce91ce12a7: not forgotten).
        s.tp.snd_cwnd = 30;
        s.tp.snd_ssthresh = 20; // congestion avoidance: only the verdict counts
        s.cwnd_validate(true, false);
        assert!(s.usage.limited && s.is_cwnd_limited());
        // Once that window is acknowledged, a send that is not cwnd-limited clears it and
        // records the flight; a larger flight while not limited raises max_packets_out.
        s.tp.snd_una = nxt;
        s.cwnd_validate(true, false);
        assert!(!s.usage.limited && !s.is_cwnd_limited());
        assert_eq!(s.usage.max_packets_out, 10);
        // In slow start, cwnd may still grow to twice the largest flight of the window.
        s.tp.snd_ssthresh = u32::MAX;
        s.tp.snd_cwnd = 19;
        assert!(s.is_cwnd_limited());
        s.tp.snd_cwnd = 20;
        assert!(!s.is_cwnd_limited());
        // The TSO deferral waiting for cwnd is a cwnd-limited verdict.
        s.cwnd_validate(false, true);
        assert!(s.usage.limited && s.is_cwnd_limited());
        // Nothing sent and room in cwnd: no verdict is taken (`sent_pkts ||
        // is_cwnd_limited`), the last one stands.
        s.tp.snd_una = s.usage.seq;
        s.cwnd_validate(false, false);
        assert!(s.usage.limited);
    }
}
