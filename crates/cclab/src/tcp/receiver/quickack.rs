//! Linux's quick-ack count from the receive window (`quickack = "rcv_wnd"`), as 2.6.9
//! `net/ipv4/tcp_input.c` (unchanged in its arithmetic through 6.6):
//!
//! - `tcp_incr_quickack`: quickacks = rcv_wnd / (2·rcv_mss), 2 if that is 0, at most
//!   `TCP_MAX_QUICKACKS` = 16; the count only grows (`if (quickacks > quick)`).
//! - When: at the first data segment (`tcp_event_data_recv` with `ato` 0), and through
//!   `tcp_enter_quickack_mode` on data that is not at `rcv_nxt` — out of order, partly
//!   old, or wholly old (`tcp_data_queue`; Linux 4.18 stopped doing it for out-of-order
//!   data, commit a3893637e1eb "tcp: do not force quickack when receiving out-of-order
//!   packets").
//! - rcv_wnd is the window last advertised (`tp->rcv_wnd`); rcv_mss is the largest segment
//!   seen, starting from `TCP_MIN_RCVMSS` 536 (`tcp_initialize_rcv_mss`,
//!   `tcp_measure_rcv_mss`, which runs before the count is taken).
//!
//! Not modelled: the ATO adaptation and the re-entry after a gap longer than the RTO
//! (`tcp_event_data_recv`'s `m > rto`; the receiver keeps no RTO), pingpong mode (the
//! receiver never sends data).

use super::Receiver;

/// Linux `TCP_MAX_QUICKACKS`.
pub const TCP_MAX_QUICKACKS: u32 = 16;
/// Linux `TCP_MIN_RCVMSS`: the first estimate of the peer's segment size.
pub const TCP_MIN_RCVMSS: u32 = 536;

/// `tcp_incr_quickack`'s count for a window of `rcv_wnd` bytes and segments of `rcv_mss`.
pub fn quickacks(rcv_wnd: u64, rcv_mss: u32) -> u32 {
    let q = rcv_wnd / (2 * rcv_mss.max(1) as u64);
    if q == 0 {
        2
    } else {
        q.min(TCP_MAX_QUICKACKS as u64) as u32
    }
}

impl Receiver {
    /// `tcp_measure_rcv_mss` (its growing half) for a segment of `len` bytes.
    pub(super) fn measure_rcv_mss(&mut self, len: u32) {
        self.rcv_mss = self.rcv_mss.max(len);
    }

    /// `tcp_incr_quickack`.
    pub(super) fn incr_quickack(&mut self) {
        let q = quickacks(self.rcv_wnd, self.rcv_mss);
        if q > self.quickack_left {
            self.quickack_left = q;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::tcp::config::TcpConfig;
    use crate::tcp::harness::Bench;

    #[test]
    fn count_is_rcv_wnd_over_two_rcv_mss() {
        // 2.6.9's first window, 4 segments of 1448 B: 2 quick ACKs.
        assert_eq!(quickacks(4 * 1448, 1448), 2);
        // 3.18's, 10 segments: 5.
        assert_eq!(quickacks(10 * 1448, 1448), 5);
        // 6.6's 64 KB: 22, capped at 16.
        assert_eq!(quickacks(65_535, 1448), 16);
        // Less than one pair of segments: 2.
        assert_eq!(quickacks(1000, 1448), 2);
        // Before any data, rcv_mss is 536: 5792 / 1072 = 5.
        assert_eq!(quickacks(4 * 1448, TCP_MIN_RCVMSS), 5);
    }

    /// Segment `n` of 1448 B to `r` at time `n` ms; true if it was ACKed at once.
    fn seg(r: &mut Receiver, n: u64) -> bool {
        use crate::packet::{Packet, ACK};
        use crate::transport::Io;
        let mut p = Packet::blank();
        p.flags = ACK;
        p.seq = 1 + n * 1448;
        p.payload = 1448;
        let mut io = Io::new((n + 1) * MS);
        r.on_packet(&p, &mut io);
        !io.tx.is_empty()
    }

    /// `tcp_enter_quickack_mode` on out-of-order data (2.6.9 `tcp_data_queue`): after a
    /// hole, the count is taken again (6 segments of window: 3), so the in-order segment
    /// after the repair is ACKed at once; with a fixed count (6.6, no re-entry since 4.18)
    /// it waits as a delayed ACK.
    #[test]
    fn out_of_order_data_restarts_the_count() {
        for (rcv_wnd_mode, expect_7) in [(true, true), (false, false)] {
            let cfg = TcpConfig {
                quickack_rcv_wnd: rcv_wnd_mode,
                quickack: 3,
                rcvbuf: 6 * 1448,
                ..Default::default()
            };
            let mut r = super::super::tests::established_with(&cfg);
            // 3 quick ACKs (6·1448 / (2·1448) with "rcv_wnd"; 3 set by hand otherwise),
            // then one ACK per 2 segments.
            let acked: Vec<bool> = (0..5).map(|n| seg(&mut r, n)).collect();
            assert_eq!(
                acked,
                [true, true, true, false, true],
                "rcv_wnd {rcv_wnd_mode}"
            );
            assert!(seg(&mut r, 6), "out of order: ACKed at once");
            assert!(seg(&mut r, 5), "the hole filled: ACKed at once");
            assert_eq!(seg(&mut r, 7), expect_7, "rcv_wnd {rcv_wnd_mode}");
        }
    }

    /// Immediate ACKs at the start of a transfer, counted on the wire: with a fixed window
    /// of `rcvbuf` and `quickack = "rcv_wnd"`, the first rcvbuf / (2·1448) segments
    /// (at most 16) are each ACKed at once, the next ones every second segment.
    #[test]
    fn first_segments_acked_at_once_as_many_as_the_window_allows() {
        for (rcvbuf, quick) in [(8 * 1448u64, 4usize), (64 << 20, 16), (6 * 1448, 3)] {
            let cfg = TcpConfig {
                quickack_rcv_wnd: true,
                init_cwnd: 40,
                rcvbuf: rcvbuf.max(100_000),
                ..Default::default()
            };
            let mut srv = cfg.clone();
            srv.rcvbuf = rcvbuf;
            let mut b = Bench::pair(&cfg, &srv, 10 * MS, 1_000_000_000, Some(60 * 1448));
            b.connect();
            b.run_until(31 * MS); // the first flight's ACKs, before any second flight
            let acks: Vec<u64> = b.acks().map(|l| l.p.ack).collect();
            let n = acks.len().min(quick + 3);
            let steps: Vec<u64> = acks[..n]
                .iter()
                .scan(1, |prev, &a| {
                    let d = (a - *prev) / 1448;
                    *prev = a;
                    Some(d)
                })
                .collect();
            let first_flight = (rcvbuf / 1448).clamp(1, 40) as usize;
            let expect_quick = quick.min(first_flight);
            assert!(
                steps[..expect_quick].iter().all(|&d| d == 1),
                "rcvbuf {rcvbuf}: {steps:?}"
            );
            if first_flight > expect_quick + 2 {
                assert_eq!(steps[expect_quick], 2, "rcvbuf {rcvbuf}: {steps:?}");
            }
        }
    }
}
