//! The receive window of Linux 2.6 (`rcv_init_wnd`, `rcv_autotune`), from 2.6.9
//! `net/ipv4/tcp_output.c` and `tcp_input.c`:
//!
//! - Initial window (`tcp_select_initial_window`): `rcv_init_wnd` segments of the
//!   payload MSS (4 in 2.6.9, "following RFC 1414"; 10 in 3.18), at most the clamp.
//!   rcv_ssthresh starts there.
//! - Growth (`tcp_grow_window`, called by `tcp_event_data_recv` for in-order segments of
//!   at least 128 bytes): while rcv_ssthresh is below the window clamp and below the free
//!   space, it grows by 2·advmss (advmss = MTU − 40, the MSS option), capped at the clamp,
//!   and the segment is ACKed at once (`tp->ack.quick |= 1`). Linux 3.x and later
//!   (`rcv_grow_skb`; read in 3.12, 3.13–3.18 and 6.x) grow by at least twice the skb's
//!   length (`incr = max(incr, 2 * skb->len)`), which matters for a GRO aggregate: 2.6.9,
//!   before GRO, opens 2·advmss per skb whatever its size. The advertised window is
//!   min(free space, rcv_ssthresh) (`__tcp_select_window`), its right edge never moving
//!   left. Check #2's skb overhead test (`__tcp_grow_window`: a driver whose buffers cost
//!   much more than their payload stops the growth at half the space) is taken as passed,
//!   as for a 2 KB receive buffer per 1500-byte frame.
//! - Autotuning (`tcp_rcv_space_adjust`, new in 2.6.7, `tcp_moderate_rcvbuf` 1): once per
//!   receiver RTT, space = max(space, 2 × bytes delivered in that RTT); the window clamp
//!   follows it up to `rcvbuf` (cclab's `rcvbuf` standing for `tcp_rmem[2]`'s window). It
//!   starts from `tcp_rmem[1]` 87,380 B: a clamp of 65,535 B less one advmss
//!   (`tcp_full_space`, `tcp_init_buffer_space`). The receiver RTT is
//!   `tcp_rcv_rtt_measure_ts`: now − TSecr of a full-sized segment, smoothed by 1/8
//!   (`tcp_rcv_rtt_update`).

use super::Receiver;
use crate::engine::SimTime;
use crate::packet::Packet;
use crate::tcp::config::TcpConfig;

/// `tcp_full_space(tcp_rmem[1] = 87,380)` with `tcp_adv_win_scale` 2: 2.6's default window.
pub const RMEM_DEFAULT_WINDOW: u64 = 65_535;

/// The receive-window state of a receiver that models it.
#[derive(Clone, Debug)]
pub struct RcvWindow {
    /// `tp->rcv_ssthresh`.
    pub rcv_ssthresh: u64,
    /// `tp->window_clamp`.
    pub clamp: u64,
    /// The MSS option (`tp->advmss`).
    advmss: u64,
    /// Autotuning (`tp->rcvq_space`, `tp->rcv_rtt_est`), when on.
    autotune: bool,
    /// Growth by at least twice the skb's length (`rcv_grow_skb`).
    grow_skb: bool,
    space: u64,
    space_seq: u64,
    space_time: SimTime,
    rcv_rtt: SimTime,
}

impl RcvWindow {
    /// The window of a receiver configured by `cfg`, or `None` when it offers the whole
    /// `rcvbuf` at once (no growth, no autotuning: nothing to model).
    pub fn new(cfg: &TcpConfig) -> Option<RcvWindow> {
        if cfg.rcv_init_wnd.is_none() && !cfg.rcv_autotune {
            return None;
        }
        let advmss = u64::from(cfg.mtu) - 40;
        let mss = u64::from(crate::tcp::sender::payload_mss(cfg.mtu));
        let clamp = if cfg.rcv_autotune {
            (RMEM_DEFAULT_WINDOW - advmss).min(cfg.rcvbuf)
        } else {
            cfg.rcvbuf
        };
        let init = match cfg.rcv_init_wnd {
            Some(n) => (u64::from(n) * mss).min(clamp),
            None => clamp,
        };
        Some(RcvWindow {
            rcv_ssthresh: init,
            clamp,
            advmss,
            autotune: cfg.rcv_autotune,
            grow_skb: cfg.rcv_grow_skb,
            space: init,
            space_seq: 0,
            space_time: 0,
            rcv_rtt: 0,
        })
    }

    /// `tcp_grow_window` for an in-order skb of `skb_len` bytes, its segments `len` bytes
    /// each, with `free` bytes of buffer space; true if the window grew (the segment is
    /// then ACKed at once).
    pub fn grow(&mut self, len: u32, skb_len: u32, free: u64) -> bool {
        if len < 128 || self.rcv_ssthresh >= self.clamp || self.rcv_ssthresh >= free {
            return false;
        }
        let mut incr = 2 * self.advmss;
        if self.grow_skb {
            incr = incr.max(2 * u64::from(skb_len));
        }
        self.rcv_ssthresh = (self.rcv_ssthresh + incr).min(self.clamp);
        true
    }

    /// `tcp_rcv_rtt_measure_ts` + `tcp_rcv_rtt_update` (timestamps: 1/8 gain).
    pub fn rtt_sample(&mut self, m: SimTime) {
        let m = m.max(1);
        self.rcv_rtt = if self.rcv_rtt == 0 {
            m
        } else {
            self.rcv_rtt - self.rcv_rtt / 8 + m / 8
        };
    }

    /// `tcp_rcv_space_adjust` after in-order delivery up to `copied` at `now`, with
    /// `max` the largest clamp (`rcvbuf`).
    pub fn space_adjust(&mut self, copied: u64, now: SimTime, max: u64) {
        if !self.autotune {
            return;
        }
        if self.space_time != 0 {
            if self.rcv_rtt == 0 || now - self.space_time < self.rcv_rtt {
                return;
            }
            let space = (2 * (copied - self.space_seq)).max(self.space);
            if space != self.space {
                self.space = space;
                if space > self.clamp {
                    self.clamp = space.min(max);
                }
            }
        }
        self.space_seq = copied;
        self.space_time = now;
    }
}

impl Receiver {
    /// The window-model part of `tcp_event_data_recv` for in-order segment `p`: the
    /// receiver RTT, autotuning, and `tcp_grow_window` (which forces a quick ACK).
    pub(super) fn window_on_data(&mut self, p: &Packet, now: SimTime) {
        let Some(w) = self.win.as_mut() else {
            return;
        };
        let len = p.payload / u32::from(p.segs.max(1));
        if len >= self.rcv_mss && p.tsecr > 0 {
            w.rtt_sample(now.saturating_sub(p.tsecr));
        }
        w.space_adjust(self.rcv_nxt, now, self.rcvbuf);
        let free = w.clamp.saturating_sub(self.ooo_bytes);
        if w.grow(len, p.payload, free) {
            self.quickack_left |= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::harness::Bench;

    fn cfg(init: Option<u32>) -> TcpConfig {
        TcpConfig {
            rcv_init_wnd: init,
            ..Default::default()
        }
    }

    #[test]
    fn initial_window_and_growth_as_linux_2_6() {
        // 2.6.9 at MTU 1500 with timestamps: 4 × 1448 B offered, +2 × 1460 B per segment.
        let mut w = RcvWindow::new(&cfg(Some(4))).unwrap();
        assert_eq!(w.rcv_ssthresh, 4 * 1448);
        assert!(w.grow(1448, 1448, 1 << 20));
        assert_eq!(w.rcv_ssthresh, 4 * 1448 + 2 * 1460);
        // Segments under 128 bytes do not open the window.
        assert!(!w.grow(100, 100, 1 << 20));
        // Capped at the clamp, then no more growth.
        let mut w = RcvWindow::new(&TcpConfig {
            rcvbuf: 10_000,
            ..cfg(Some(4))
        })
        .unwrap();
        assert!(w.grow(1448, 1448, 1 << 20));
        assert_eq!(w.rcv_ssthresh, 8712);
        assert!(w.grow(1448, 1448, 1 << 20));
        assert_eq!(w.rcv_ssthresh, 10_000);
        assert!(!w.grow(1448, 1448, 1 << 20));
        // Nothing to model by default.
        assert!(RcvWindow::new(&TcpConfig::default()).is_none());
    }

    /// A GRO aggregate of 44 segments opens twice its length under Linux 3.x and later,
    /// 2 advmss under 2.6.9's rule.
    #[test]
    fn a_gro_aggregate_opens_twice_its_length_after_2_6() {
        let skb = 44 * 1448;
        let mut w = RcvWindow::new(&cfg(Some(10))).unwrap();
        assert!(w.grow(1448, skb, 1 << 30));
        assert_eq!(w.rcv_ssthresh, 10 * 1448 + 2 * u64::from(skb));
        let mut w = RcvWindow::new(&TcpConfig {
            rcv_grow_skb: false,
            ..cfg(Some(10))
        })
        .unwrap();
        assert!(w.grow(1448, skb, 1 << 30));
        assert_eq!(w.rcv_ssthresh, 10 * 1448 + 2 * 1460);
    }

    /// On the wire: the SYN-ACK offers 4 segments; each in-order data segment opens the
    /// window by 2 advmss and is ACKed at once, so the sender's per-ACK slow start from 3
    /// segments is never held back by the window and no delayed ACK is sent while the
    /// window grows.
    #[test]
    fn advertised_window_grows_and_every_growth_is_acked_at_once() {
        let c = TcpConfig {
            rcv_init_wnd: Some(4),
            init_cwnd_rfc3390: true,
            quickack_rcv_wnd: true,
            growth: crate::tcp::config::Growth::Acks,
            cc: "reno".into(),
            ..Default::default()
        };
        let mut b = Bench::new(&c, 10 * MS, 1_000_000_000, Some(40 * 1448));
        b.connect();
        b.run_until(500 * MS);
        let synack = b.log.iter().find(|l| !l.to_server).unwrap();
        assert_eq!(synack.p.rwnd, 4 * 1448);
        let acks: Vec<_> = b.acks().map(|l| (l.p.ack, l.p.rwnd)).collect();
        // Every data segment got its own ACK (40 segments, 40 ACKs).
        assert_eq!(acks.len(), 40, "{acks:?}");
        // The n-th ACK's window: right edge = 1 + 4·1448 + n·2·1460, less what it acks.
        for (n, &(ack, rwnd)) in acks.iter().enumerate() {
            let n = n as u64 + 1;
            assert_eq!(ack, 1 + n * 1448);
            assert_eq!(rwnd, 4 * 1448 + n * 2 * 1460, "ack {n}");
        }
        assert_eq!(b.r.stats.delack_timeouts, 0);
    }

    #[test]
    fn autotuning_follows_twice_the_bytes_per_rtt() {
        let c = TcpConfig {
            rcv_autotune: true,
            rcvbuf: 1 << 20,
            ..Default::default()
        };
        let mut w = RcvWindow::new(&c).unwrap();
        assert_eq!(
            w.clamp,
            65_535 - 1460,
            "tcp_rmem[1]'s window less one advmss"
        );
        w.rtt_sample(10 * MS);
        w.space_adjust(0, MS, 1 << 20); // first measure
        w.space_adjust(50_000, 5 * MS, 1 << 20); // under one RTT: nothing
        assert_eq!(w.clamp, 64_075);
        w.space_adjust(50_000, 11 * MS, 1 << 20); // 50 KB in an RTT: space 100 KB
        assert_eq!(w.clamp, 100_000);
        w.space_adjust(50_000 + 800_000, 22 * MS, 1 << 20); // capped at rcvbuf
        assert_eq!(w.clamp, 1 << 20);
        // The RTT estimate: 1/8 gain.
        w.rtt_sample(18 * MS);
        assert_eq!(w.rcv_rtt, 11 * MS);
    }
}
