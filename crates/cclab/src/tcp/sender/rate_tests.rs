//! `tcp_rate.c` worked by hand: segments sent and acknowledged at chosen times, the rate
//! sample each ACK yields checked against Linux's arithmetic (µs stamps).

use super::super::{Seg, Sender};
use crate::cc::RateSample;
use crate::engine::US;
use crate::tcp::config::TcpConfig;
use crate::tcp::harness::Bench;
use std::sync::Arc;

fn bbr_sender() -> Sender {
    let cfg = TcpConfig {
        cc: "bbr".into(),
        ..TcpConfig::default()
    };
    let s = Sender::new(
        Bench::ADDR,
        &Arc::new(cfg.clone()),
        cfg.congestion_control().unwrap(),
        0,
        None,
    );
    assert!(s.cc_owns, "bbr has cong_control");
    s
}

const MSS: u64 = 1000;

/// Send segment `k` (bytes k·MSS .. (k+1)·MSS) at `t_us`: `tcp_rate_skb_sent`.
fn send(s: &mut Sender, k: u64, t_us: u64) {
    let sent = t_us * US;
    let tx = s.rate_skb_sent(sent, s.segs.is_empty(), 1);
    s.segs.push_back(Seg {
        start: k * MSS,
        end: (k + 1) * MSS,
        sent,
        ..Seg::default()
    });
    s.rate.tx.push_back(tx);
}

/// Retransmit segment `k` at `t_us` (`tcp_rate_skb_sent` on the retransmitted skb).
fn resend(s: &mut Sender, k: u64, t_us: u64) {
    let sent = t_us * US;
    let tx = s.rate_skb_sent(sent, false, 1);
    let i = s.segs.iter().position(|x| x.start == k * MSS).unwrap();
    let seg = &mut s.segs[i];
    seg.sent = sent;
    seg.ever_retrans = true;
    s.rate.tx[i] = tx;
}

/// An ACK at `t_us` that cumulatively acknowledges up to segment `cum` (exclusive) and
/// SACKs the segments `sacked`: the rate sample it yields.
fn ack(s: &mut Sender, t_us: u64, cum: u64, sacked: &[u64]) -> RateSample {
    s.tp.now = t_us * US;
    s.rate.rs = RateSample::default();
    let mut delivered = 0;
    while s.segs.front().is_some_and(|x| x.end <= cum * MSS) {
        let seg = s.segs.pop_front().unwrap();
        let t = s.rate.tx.pop_front().unwrap();
        if !seg.sacked {
            s.rate_skb_delivered(&seg, &t);
            delivered += 1;
        }
    }
    for &k in sacked {
        let i = s.segs.iter().position(|x| x.start == k * MSS).unwrap();
        let (seg, t) = (s.segs[i], s.rate.tx[i]);
        if !seg.sacked {
            s.segs[i].sacked = true;
            s.rate_skb_delivered(&seg, &t);
            delivered += 1;
        }
    }
    s.tp.delivered += delivered as u64;
    s.rate_gen(delivered, 0);
    s.rate.rs
}

/// Three segments sent 100 µs apart from t = 1 ms; both clocks start at the first send
/// (nothing was in flight). The ACK at 11 ms for the first two: the sample follows the
/// later one (sent 1.1 ms), so the send phase is 1.1 − 1.0 = 100 µs and the ACK phase
/// 11.0 − 1.0 = 10,000 µs: 2 segments over 10 ms. A segment sent at 11 ms snapshots
/// delivered = 2 and delivered_mstamp = 11 ms; its ACK at 21 ms: 4 − 2 = 2 segments over
/// max(11.0 − 1.1, 21 − 11) ms = 10,000 µs.
#[test]
fn cumulative_acks_give_linux_samples() {
    let mut s = bbr_sender();
    s.tp.min_rtt_us = 9_000;
    for (k, t) in [(0, 1000), (1, 1100), (2, 1200)] {
        send(&mut s, k, t);
    }
    assert_eq!(
        (s.tp.first_tx_mstamp, s.tp.delivered_mstamp),
        (1000 * US, 1000 * US)
    );
    let rs = ack(&mut s, 11_000, 2, &[]);
    assert_eq!(
        (rs.delivered, rs.interval_us, rs.prior_delivered),
        (2, 10_000, 0)
    );
    assert_eq!((rs.snd_interval_us, rs.rcv_interval_us), (100, 10_000));
    assert_eq!(rs.prior_mstamp, 1000 * US);
    assert_eq!(
        s.tp.first_tx_mstamp,
        1100 * US,
        "the latest delivered segment's send"
    );
    assert_eq!(s.tp.delivered_mstamp, 11_000 * US);
    send(&mut s, 3, 11_000);
    let t = *s.rate.tx.back().unwrap();
    assert_eq!(
        (t.delivered, t.delivered_mstamp, t.first_tx_mstamp),
        (2, 11_000 * US, 1100 * US)
    );
    // The third segment: its send phase 1.2 − 1.0 ms, its ACK phase 11.2 − 1.0 ms.
    let rs = ack(&mut s, 11_200, 3, &[]);
    assert_eq!(
        (rs.delivered, rs.interval_us, rs.snd_interval_us),
        (3, 10_200, 200)
    );
    let rs = ack(&mut s, 21_000, 4, &[]);
    assert_eq!(
        (rs.delivered, rs.prior_delivered, rs.interval_us),
        (2, 2, 10_000)
    );
    assert_eq!(rs.snd_interval_us, 9_900);
    assert!(!rs.is_app_limited && !rs.is_retrans);
}

/// SACKed segments are delivered when SACKed, once: the cumulative ACK that later covers
/// them adds nothing and does not move the sample. Of the segments SACKed together the
/// most recently sent one (same send time: the higher end) gives the sample.
#[test]
fn sacked_segments_count_once() {
    let mut s = bbr_sender();
    s.tp.min_rtt_us = 1_000;
    for k in 0..4 {
        send(&mut s, k, 1000); // one TSO burst: the same send time
    }
    // Segment 0 lost; 1..3 SACKed at 6 ms: the sample comes from segment 3 (highest end).
    let rs = ack(&mut s, 6_000, 0, &[1, 2, 3]);
    assert_eq!(
        (rs.acked_sacked, rs.delivered, rs.last_end_seq),
        (3, 3, 4 * MSS)
    );
    assert_eq!(rs.interval_us, 5_000);
    // Segment 0 retransmitted at 6 ms, cumulatively acked at 11 ms with the SACKed ones:
    // one newly delivered, and the sample is the retransmission's (sent 6 ms, delivered
    // then 3): 4 − 3 = 1 segment over max(6 − 1, 11 − 6) ms.
    resend(&mut s, 0, 6_000);
    let rs = ack(&mut s, 11_000, 4, &[]);
    assert_eq!(rs.acked_sacked, 1);
    assert_eq!((rs.delivered, rs.prior_delivered), (1, 3));
    assert_eq!(rs.interval_us, 5_000);
    assert!(rs.is_retrans, "the sample is from a retransmitted segment");
}

/// A sample shorter than min_rtt is discarded (`interval_us = -1`, delivered kept); an
/// ACK that delivers nothing timed is no sample at all.
#[test]
fn samples_shorter_than_min_rtt_are_invalid() {
    let mut s = bbr_sender();
    s.tp.min_rtt_us = 20_000;
    send(&mut s, 0, 1000);
    let rs = ack(&mut s, 11_000, 1, &[]);
    assert_eq!((rs.delivered, rs.interval_us), (1, -1));
    let rs = ack(&mut s, 12_000, 1, &[]);
    assert_eq!((rs.delivered, rs.interval_us, rs.acked_sacked), (-1, -1, 0));
}

/// `tcp_rate_check_app_limited`: with less than a segment left to write, nothing below
/// TCP and room in cwnd, app_limited = delivered + in flight; segments sent meanwhile give
/// app-limited samples until delivered passes that mark.
#[test]
fn app_limited_marks_samples_until_the_bubble_is_delivered() {
    let mut s = bbr_sender();
    s.tp.min_rtt_us = 1_000;
    s.tp.snd_cwnd = 10;
    s.tp.snd_nxt = 1;
    s.write_seq = 1; // nothing left to send
    let io = crate::transport::Io::new(0);
    s.tp.delivered = 5;
    s.rate_check_app_limited(&io);
    assert_eq!(s.tp.app_limited, 5, "delivered 5 + nothing in flight");
    send(&mut s, 0, 1000);
    send(&mut s, 1, 1100);
    assert!(s.rate.tx.iter().all(|t| t.app_limited));
    let rs = ack(&mut s, 3_000, 1, &[]);
    assert!(rs.is_app_limited);
    // delivered is now 6 > 5: the mark is cleared by this ACK's `tcp_rate_gen`.
    assert_eq!(s.tp.app_limited, 0);
    send(&mut s, 2, 3_000);
    let rs = ack(&mut s, 5_000, 3, &[]);
    assert!(
        !rs.is_app_limited,
        "the latest segment was sent after the bubble"
    );
}
