//! The initial window and its restart after idle.
//!
//! - Initial window (`init_cwnd`): a segment count (Linux `TCP_INIT_CWND` 10 since
//!   2.6.39), or `"rfc3390"`: Linux 2.6.9 `tcp_init_cwnd` (net/ipv4/tcp_input.c), "numbers
//!   taken from RFC 2414": 2 segments when the MSS is above 1460 bytes, 3 above 1095, else
//!   4 — RFC 3390 §1's min(4·MSS, max(2·MSS, 4380 bytes)) counted in whole segments. The
//!   MSS is the payload per segment, options excluded (`mss_cache_std`, `tcp_sync_mss`).
//! - Restart after idle (`slow_start_after_idle`, `net.ipv4.tcp_slow_start_after_idle`):
//!   RFC 2861 §3 as Linux does it (`tcp_cwnd_restart`, net/ipv4/tcp_output.c, the same in
//!   2.6.9 and 6.6). When the application writes with nothing in flight
//!   (`tcp_slow_start_after_idle_check`, from `tcp_skb_entail`; 2.6.9 checks the same
//!   condition in `tcp_event_data_sent`) and the last data left more than one RTO ago:
//!   ssthresh = `tcp_current_ssthresh` (max(ssthresh, ¾·cwnd) outside CWR/Recovery),
//!   then cwnd halves once per RTO of idle beyond the first while above the restart
//!   window min(initial window, cwnd), and ends at least there. Linux skips it for a
//!   module with its own `cong_control` (BBR); cclab has none.

use super::Sender;
use crate::cc::{CaEvent, CaState, CongestionOps};
use crate::engine::SimTime;
use crate::tcp::config::TcpConfig;

/// Linux 2.6.9 `tcp_init_cwnd` without a route metric: the RFC 3390 window in segments
/// for a segment payload of `mss` bytes.
pub fn rfc3390_segments(mss: u32) -> u32 {
    if mss > 1460 {
        2
    } else if mss > 1095 {
        3
    } else {
        4
    }
}

/// The initial congestion window, in segments, of a sender with this MSS.
pub fn init_cwnd(cfg: &TcpConfig, mss: u32) -> u32 {
    if cfg.init_cwnd_rfc3390 {
        rfc3390_segments(mss)
    } else {
        cfg.init_cwnd
    }
}

impl Sender {
    /// `tcp_slow_start_after_idle_check`: the application queues data at `now`.
    pub(super) fn slow_start_after_idle_check(&mut self, now: SimTime) {
        // A module with `cong_control` restarts its own way (Linux skips it for them).
        if !self.cfg.slow_start_after_idle
            || !self.segs.is_empty()
            || self.lsndtime == 0
            || self.cc_owns
        {
            return;
        }
        let rto = self.current_rto();
        let delta = now.saturating_sub(self.lsndtime);
        if delta > rto {
            self.cwnd_restart(delta, rto);
        }
    }

    /// `tcp_cwnd_restart` after `delta` of idle, with RTO `rto`.
    fn cwnd_restart(&mut self, delta: SimTime, rto: SimTime) {
        self.stats.cwnd_restarts += 1;
        self.cc.cwnd_event(&mut self.tp, CaEvent::CwndRestart);
        let tp = &mut self.tp;
        let cwnd = tp.snd_cwnd;
        // `tcp_current_ssthresh`.
        if !matches!(tp.ca_state, CaState::Cwr | CaState::Recovery) {
            tp.snd_ssthresh = tp.snd_ssthresh.max((cwnd >> 1) + (cwnd >> 2));
        }
        let restart = init_cwnd(&self.cfg, self.mss).min(cwnd);
        let mut cwnd = cwnd;
        let mut left = delta;
        // `while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1;`
        while left > rto && cwnd > restart {
            left -= rto;
            cwnd >>= 1;
        }
        tp.snd_cwnd = cwnd.max(restart);
        tp.snd_cwnd_cnt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::harness::Bench;

    #[test]
    fn rfc3390_window_for_mss_1460_and_536() {
        // RFC 3390 §1: min(4·MSS, max(2·MSS, 4380)) bytes, in whole segments.
        let rfc = |mss: u32| (4 * mss).min((2 * mss).max(4380)) / mss;
        assert_eq!(rfc3390_segments(1460), 3); // 4380 B
        assert_eq!(rfc3390_segments(536), 4); // 2144 B
        for mss in [
            536, 1000, 1095, 1096, 1448, 1460, 1461, 2190, 2191, 4000, 8948,
        ] {
            assert_eq!(rfc3390_segments(mss), rfc(mss), "mss {mss}");
        }
        // Through the configuration and a connection's first flight: MTU 1500 with
        // timestamps is a 1448-byte payload (3 segments), MTU 588 a 536-byte one (4).
        for (mtu, segs) in [(1500, 3), (588, 4)] {
            let cfg = TcpConfig {
                init_cwnd_rfc3390: true,
                mtu,
                ..Default::default()
            };
            let mut b = Bench::new(&cfg, 10 * MS, 1_000_000_000, Some(1 << 20));
            b.connect();
            b.run_until(25 * MS); // handshake done at 20 ms, first flight sent
            assert_eq!(b.data_sent().count(), segs, "mtu {mtu}");
        }
    }

    /// ACK counting by era, on one window of 10 segments ACKed in pairs (delayed ACKs, no
    /// quick ACKs): 5 ACKs. Slow start: +1 per ACK in 2.6 (`tcp_slow_start`, `"acks"`),
    /// +1 per acked segment since 3.13 (`"segments"`, and 3.18's `"ss-segments"`).
    /// Congestion avoidance at cwnd 10: +1 per 10 ACKs in 2.6 and 3.18
    /// (`reno_cong_avoid`, `tcp_cong_avoid_ai(tp, w)`), per 10 acked segments since 4.0.
    #[test]
    fn growth_counts_acks_or_segments_by_era() {
        use crate::tcp::config::Growth;
        let run = |growth: Growth, ssthresh: Option<u32>| {
            let cfg = TcpConfig {
                cc: "reno".into(),
                growth,
                quickack: 0,
                init_ssthresh: ssthresh,
                ..Default::default()
            };
            let mut b = Bench::new(&cfg, 10 * MS, 1_000_000_000, Some(1 << 20));
            b.connect();
            b.run_until(45 * MS); // the first flight's 5 ACKs are in
            assert_eq!(b.acks().count(), 5);
            b.s.tp.snd_cwnd
        };
        assert_eq!(run(Growth::Acks, None), 15);
        assert_eq!(run(Growth::SlowStartSegments, None), 20);
        assert_eq!(run(Growth::Segments, None), 20);
        assert_eq!(run(Growth::Acks, Some(10)), 10);
        assert_eq!(run(Growth::SlowStartSegments, Some(10)), 10);
        assert_eq!(run(Growth::Segments, Some(10)), 11);
    }

    /// The restart of RFC 2861 as `tcp_cwnd_restart`: cwnd 40 after an idle of 3.5 RTOs
    /// halves for each RTO beyond the first (40 → 20 → 10), never below min(IW, cwnd) = 10.
    #[test]
    fn cwnd_restart_after_idle() {
        let run = |on: bool, idle_rtos: u64| {
            let cfg = TcpConfig {
                slow_start_after_idle: on,
                ..Default::default()
            };
            let mut b = Bench::new(&cfg, 10 * MS, 1_000_000_000, Some(0));
            b.connect();
            b.run_until(30 * MS);
            b.write(200 * 1448);
            b.run_until(2000 * MS);
            assert!(b.s.segs.is_empty(), "all acknowledged");
            b.s.tp.snd_cwnd = 40;
            b.s.tp.snd_ssthresh = 20;
            let rto = b.s.current_rto();
            b.run_until(b.s.lsndtime + idle_rtos * rto + rto / 2);
            b.write(1448);
            ((b.s.tp.snd_cwnd, b.s.tp.snd_ssthresh), rto)
        };
        let ((cwnd, ssthresh), _) = run(true, 3);
        assert_eq!(cwnd, 10, "40 >> 2, floored at min(init_cwnd 10, 40)");
        assert_eq!(ssthresh, 30, "max(20, 40/2 + 40/4) = 30");
        let ((cwnd, _), _) = run(true, 2);
        assert_eq!(cwnd, 10, "2.5 RTOs: 40 → 20 → 10");
        let ((cwnd, ssthresh), _) = run(true, 1);
        assert_eq!((cwnd, ssthresh), (20, 30), "1.5 RTOs: one halving");
        let ((cwnd, _), _) = run(true, 0);
        assert_eq!(cwnd, 40, "idle below one RTO: no restart");
        let ((cwnd, _), _) = run(false, 3);
        assert_eq!(cwnd, 40, "slow_start_after_idle = false");
    }
}
