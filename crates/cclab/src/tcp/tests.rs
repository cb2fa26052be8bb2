//! TCP behaviour tests, packet by packet, on the two-endpoint bench.

use super::harness::Bench;
use crate::engine::{MS, SEC, US};
use crate::packet::*;
use crate::tcp::config::TcpConfig;

const GBPS: u64 = 1_000_000_000;

fn reno() -> TcpConfig {
    TcpConfig {
        cc: "reno".into(),
        sndbuf: 64 << 20,
        rcvbuf: 64 << 20,
        ..Default::default()
    }
}

#[test]
fn handshake_with_a_lost_syn_retries_after_1s_and_starts_with_iw1() {
    let mut b = Bench::new(&reno(), 5 * MS, GBPS, Some(100_000));
    let mut syns = 0;
    b.drop = Box::new(move |p, to_server, _| {
        if to_server && p.flags & SYN != 0 {
            syns += 1;
            return syns == 1;
        }
        false
    });
    b.connect();
    b.run_until(5 * SEC);
    let syn_times: Vec<_> = b
        .log
        .iter()
        .filter(|l| l.p.flags & SYN != 0 && l.to_server)
        .map(|l| l.t)
        .collect();
    // RFC 6298 §2.1 / Linux TCP_TIMEOUT_INIT: the SYN is retransmitted after 1 s.
    assert_eq!(syn_times, vec![0, SEC]);
    assert_eq!(b.s.stats.syn_retrans, 1);
    // RFC 5681 §3.1: after a lost SYN the initial window is one segment.
    let first_data: Vec<_> = b.data_sent().take(3).map(|l| l.t).collect();
    assert!(
        first_data[0] > SEC && first_data[0] < SEC + 20 * MS,
        "{first_data:?}"
    );
    assert!(
        first_data[1] > first_data[0] + 9 * MS,
        "second segment waits for an ACK: {first_data:?}"
    );
    // The whole 100 kB arrives, without any data retransmission.
    assert_eq!(b.r.delivered_bytes, 100_000);
    assert_eq!(b.s.stats.retrans_segs, 0);
    assert!(b.s.done_at.is_some());
}

#[test]
fn single_loss_in_a_large_window_is_repaired_by_fast_retransmit() {
    let mut b = Bench::new(&reno(), 5 * MS, GBPS, Some(3_000_000));
    b.drop = Box::new(|_, to_server, n| to_server && n == 100);
    b.connect();
    b.run_until(10 * SEC);
    assert_eq!(b.r.delivered_bytes, 3_000_000);
    assert_eq!(b.s.stats.recoveries, 1);
    assert_eq!(b.s.stats.timeouts, 0);
    assert_eq!(b.s.stats.retrans_segs, 1);
}

#[test]
fn loss_of_the_last_segment_needs_the_rto() {
    // 20 segments; the last one is lost: no later segment can produce duplicate ACKs.
    // Without the tail loss probe (tests_rack.rs has the probe's repair).
    let mss = crate::tcp::sender::payload_mss(1500) as u64;
    let cfg = TcpConfig {
        tlp: false,
        ..reno()
    };
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(20 * mss));
    b.drop = Box::new(|_, to_server, n| to_server && n == 20);
    b.connect();
    b.run_until(5 * SEC);
    assert_eq!(b.r.delivered_bytes, 20 * mss);
    assert_eq!(b.s.stats.timeouts, 1);
    assert_eq!(b.s.stats.recoveries, 0);
    assert_eq!(b.s.stats.retrans_segs, 1);
    // The timer restarts on every ACK that advances snd_una (RFC 6298 §5.3); Linux RTO
    // after the first samples ≈ srtt + 200 ms floor, so the retransmission leaves about
    // 210 ms after the last such ACK arrived (RTT ≈ 10 ms; the last sample includes the
    // 40 ms delayed ACK of the odd 19th segment, lifting srtt by up to 5 ms: 7/8·10 + 1/8·50).
    let retrans = b.data_sent().find(|l| l.p.retrans).unwrap().t;
    let last_ack = b.acks().filter(|l| l.t < retrans).last().unwrap().t + 5 * MS;
    let gap = retrans - last_ack;
    assert!(gap > 205 * MS && gap < 216 * MS, "RTO gap {} us", gap / US);
}

#[test]
fn delayed_acks_ack_every_second_segment_after_quickack() {
    let mss = crate::tcp::sender::payload_mss(1500) as u64;
    let n = 200u64;
    let mut b = Bench::new(&reno(), 5 * MS, GBPS, Some(n * mss));
    b.connect();
    b.run_until(5 * SEC);
    assert_eq!(b.r.delivered_bytes, n * mss);
    // 16 quick ACKs (Linux TCP_MAX_QUICKACKS), then one ACK per 2 full segments:
    // 16 + (200 − 16)/2 = 108 ACKs, none of them from the 40 ms timer (even count).
    assert_eq!(b.acks().count(), 108);
    assert_eq!(b.r.stats.delack_timeouts, 0);
    // One more segment: the odd one out is acknowledged by the 40 ms delayed-ACK timer.
    let mut b = Bench::new(&reno(), 5 * MS, GBPS, Some((n + 1) * mss));
    b.connect();
    b.run_until(5 * SEC);
    assert_eq!(b.acks().count(), 109);
    assert_eq!(b.r.stats.delack_timeouts, 1);
    let last_data = b.data_sent().last().unwrap().t;
    let last_ack = b.acks().last().unwrap().t;
    let wait = last_ack - last_data;
    assert!(
        (40 * MS..50 * MS).contains(&wait),
        "delayed ACK after {} us",
        wait / US
    );
    // Without delayed ACKs: one ACK per segment.
    let mut cfg = reno();
    cfg.delayed_ack = false;
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(n * mss));
    b.connect();
    b.run_until(5 * SEC);
    assert_eq!(b.acks().count(), 200);
}

#[test]
fn ece_is_echoed_until_cwr_and_cwnd_is_reduced_once() {
    let mut cfg = reno();
    cfg.ecn = true;
    cfg.delayed_ack = false;
    let mss = crate::tcp::sender::payload_mss(1500) as u64;
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(400 * mss));
    b.mark = Box::new(|_, n| n == 30);
    b.connect();
    b.run_until(5 * SEC);
    assert!(b.s.tp.ecn_ok && b.r.ecn_ok, "ECN negotiated");
    // Data is ECT(0); pure ACKs are not.
    assert!(b.data_sent().all(|l| l.p.ecn == ECT0 || l.p.ecn == CE));
    assert!(b.acks().all(|l| l.p.ecn == NOT_ECT));
    // The CWR segment is the first new segment the sender sends after seeing ECE.
    let cwr: Vec<_> = b.data_sent().filter(|l| l.p.flags & CWR != 0).collect();
    assert_eq!(cwr.len(), 1, "exactly one CWR segment");
    let cwr_seq = cwr[0].p.seq;
    // ECE on every ACK from the CE segment's ACK up to (not including) the ACK of the CWR
    // segment; none from then on.
    let ece_acks: Vec<_> = b.acks().filter(|l| l.p.flags & ECE != 0).collect();
    assert!(!ece_acks.is_empty());
    let first_ece = ece_acks[0].t;
    let span: Vec<_> = b
        .acks()
        .filter(|l| l.t >= first_ece && l.p.ack <= cwr_seq)
        .collect();
    assert!(
        span.len() > 1 && span.iter().all(|l| l.p.flags & ECE != 0),
        "ECE until CWR"
    );
    assert!(
        b.acks()
            .filter(|l| l.p.ack > cwr_seq)
            .all(|l| l.p.flags & ECE == 0),
        "no ECE after CWR"
    );
    // ECE on every ACK of that span, but a single reduction (one CWR episode).
    assert_eq!(b.s.stats.cwr_events, 1);
    assert_eq!(
        b.s.stats.cwr_episodes, 1,
        "one entry into CWR (RFC 3168 §6.1.2)"
    );
    assert_eq!(b.s.stats.recoveries, 0);
    assert!(b.s.stats.ece_acks as usize == ece_acks.len() && ece_acks.len() > 1);
    assert_eq!(
        b.s.stats.retrans_segs, 0,
        "ECN reduces without retransmitting"
    );
    assert_eq!(b.r.delivered_bytes, 400 * mss);
}

/// Drop 3 segments of one window; returns (time from the first retransmission to the
/// last, RTT, fast retransmits, timeouts).
fn three_losses(sack: bool) -> (u64, u64, u64, u64) {
    let mut cfg = reno();
    cfg.sack = sack;
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(4_000_000));
    b.drop = Box::new(|_, to_server, n| to_server && (n == 300 || n == 305 || n == 310));
    b.connect();
    b.run_until(20 * SEC);
    assert_eq!(b.r.delivered_bytes, 4_000_000);
    let re: Vec<_> = b.data_sent().filter(|l| l.p.retrans).map(|l| l.t).collect();
    assert_eq!(
        re.len(),
        3,
        "exactly the 3 lost segments are retransmitted: {re:?}"
    );
    (
        re[2] - re[0],
        10 * MS,
        b.s.stats.recoveries,
        b.s.stats.timeouts,
    )
}

#[test]
fn sack_repairs_three_losses_in_one_window_in_about_one_rtt() {
    let (span, rtt, fr, to) = three_losses(true);
    assert_eq!((fr, to), (1, 0));
    // RFC 6675: all three holes are known from the SACK blocks and retransmitted within
    // the first RTT of recovery.
    assert!(
        span < rtt,
        "SACK: retransmissions spread over {} us (RTT {} us)",
        span / US,
        rtt / US
    );
    // NewReno (RFC 6582) learns one hole per partial ACK: about one RTT per loss.
    let (span, rtt, fr, to) = three_losses(false);
    assert_eq!((fr, to), (1, 0));
    assert!(span >= 2 * rtt, "NewReno: {} us for 3 holes", span / US);
}

fn dctcp() -> TcpConfig {
    TcpConfig {
        cc: "dctcp".into(),
        ..reno()
    }
}

/// DCTCP-U6's seven segments, CE on p4..p6 (N N N C C C N), sent by `cc` to a receiver
/// that ACKs every 2 segments (quick-ack over): the run and its ACKs as (segments acked,
/// ECE).
fn u6_pattern(cc: &str) -> (Bench, Vec<(u64, bool)>) {
    let mut cfg = dctcp();
    cfg.cc = cc.into();
    cfg.quickack = 0;
    let mss = crate::tcp::sender::payload_mss(1500) as u64;
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(7 * mss));
    b.mark = Box::new(|_, n| (4..=6).contains(&n));
    b.connect();
    b.run_until(SEC);
    let acks = b
        .acks()
        .filter(|l| l.p.ack > 1)
        .map(|l| ((l.p.ack - 1) / mss, l.p.flags & ECE != 0))
        .collect();
    (b, acks)
}

#[test]
fn dctcp_u6_receiver_ce_state_machine_under_delayed_acks() {
    // docs/references.md DCTCP-U6.
    let (b, acks) = u6_pattern("dctcp");
    assert_eq!(
        acks,
        vec![(2, false), (3, false), (4, true), (6, true), (7, false)],
        "(segments acked, ECE)"
    );
    // The sender's CE-weighted delivered count equals the true number of CE packets.
    assert_eq!(b.s.tp.delivered_ce, 3);
    assert_eq!(b.s.tp.delivered, 7);
    // DCTCP ACKs are ECT(0) (the socket keeps ECT on everything).
    assert!(b.acks().all(|l| l.p.ecn == ECT0));
}

#[test]
fn dctcp_318_receiver_flushes_the_delayed_ack_on_a_ce_change_but_does_not_force_one() {
    // The same packets under Linux 3.18's dctcp_ce_state_0_to_1 / _1_to_0: a change sends
    // the pending delayed ACK with the old state (for p3 at p4, for p6 at p7), and the
    // packet that changed it waits for the next ACK: p5 is acked with p4, and p7 by the
    // delayed-ACK timer.
    let (b, acks) = u6_pattern("dctcp-3.18");
    assert_eq!(b.s.cc_name(), "dctcp-3.18");
    assert_eq!(
        acks,
        vec![(2, false), (3, false), (5, true), (6, true), (7, false)],
        "(segments acked, ECE)"
    );
    // The last ACK came from the 40 ms timer, not at once.
    let last = b.acks().last().unwrap().t;
    let p7 = b.data_sent().last().unwrap().t;
    assert!(last - p7 >= 40 * MS, "{} us", (last - p7) / US);
}

#[test]
fn dctcp_u7_syn_is_ect_and_both_dctcp_ends_negotiate() {
    // docs/references.md DCTCP-U7, ECN-3.
    let mut b = Bench::new(&dctcp(), 5 * MS, GBPS, Some(100_000));
    b.connect();
    b.run_until(SEC);
    let syn = b
        .log
        .iter()
        .find(|l| l.to_server && l.p.flags & SYN != 0)
        .unwrap();
    assert_eq!(syn.p.flags & (ECE | CWR), ECE | CWR);
    assert_eq!(syn.p.ecn, ECT0);
    let synack = b
        .log
        .iter()
        .find(|l| !l.to_server && l.p.flags & SYN != 0)
        .unwrap();
    assert_eq!(synack.p.flags & (ECE | CWR), ECE);
    assert_eq!(synack.p.ecn, ECT0);
    assert!(b.s.tp.ecn_ok);
    assert_eq!(b.s.cc_name(), "dctcp");
    assert!(b.data_sent().all(|l| l.p.ecn == ECT0));
    // The seed's SYN/ACK ECT test switches ECT off on the handshake only.
    let mut cfg = dctcp();
    cfg.syn_ect = false;
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(100_000));
    b.connect();
    b.run_until(SEC);
    assert!(b
        .log
        .iter()
        .filter(|l| l.p.flags & SYN != 0)
        .all(|l| l.p.ecn == NOT_ECT));
    assert!(b.s.tp.ecn_ok, "ECN is still negotiated");
}

#[test]
fn dctcp_falls_back_to_reno_when_the_peer_refuses_ecn() {
    // DCTCP-U7: a peer without ECN → dctcp-reno, data not ECT.
    let mut b = Bench::pair(&dctcp(), &reno(), 5 * MS, GBPS, Some(100_000));
    b.connect();
    b.run_until(SEC);
    assert!(!b.s.tp.ecn_ok);
    assert_eq!(b.s.cc_name(), "dctcp-reno");
    assert!(b.s.ss_line().contains("fallback_mode"));
    assert!(b.data_sent().all(|l| l.p.ecn == NOT_ECT));
    assert_eq!(b.r.delivered_bytes, 100_000);
    // ECN-2: a Reno listener with ECN enabled refuses an ECT SYN (RFC 3168 rule).
    let mut server = reno();
    server.ecn = true;
    let mut b = Bench::pair(&dctcp(), &server, 5 * MS, GBPS, Some(100_000));
    b.connect();
    b.run_until(SEC);
    assert!(!b.s.tp.ecn_ok && !b.r.ecn_ok);
    assert_eq!(b.s.cc_name(), "dctcp-reno");
    // …but accepts a Not-ECT ECN-setup SYN from a Reno+ECN client.
    let mut b = Bench::pair(&server, &server, 5 * MS, GBPS, Some(100_000));
    b.connect();
    b.run_until(SEC);
    assert!(b.s.tp.ecn_ok && b.r.ecn_ok);
}

#[test]
fn rfc3168_retransmissions_are_not_ect_but_dctcp_ones_are() {
    for (cfg, want) in [
        (
            TcpConfig {
                ecn: true,
                ..reno()
            },
            NOT_ECT,
        ),
        (dctcp(), ECT0),
    ] {
        let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(1_000_000));
        b.drop = Box::new(|_, to_server, n| to_server && n == 50);
        b.connect();
        b.run_until(5 * SEC);
        let re: Vec<_> = b.data_sent().filter(|l| l.p.retrans).collect();
        assert_eq!(re.len(), 1);
        assert_eq!(re[0].p.ecn, want, "{}", cfg.cc);
    }
}

/// DCTCP on ECT(1) (`dctcp_ect = 1`, the L4S team's `tcp_dctcp.c`; docs/references.md
/// §18.2): every ECN-capable packet of both ends is ECT(1) where plain DCTCP's is ECT(0)
/// — the SYN and SYN-ACK, the data, the retransmission, the receiver's ACKs — and ECN is
/// negotiated as before.
#[test]
fn dctcp_ect_1_sends_every_ect_packet_as_ect_1() {
    let mut cfg = dctcp();
    cfg.cc_options.dctcp.ect = 1;
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(1_000_000));
    b.drop = Box::new(|_, to_server, n| to_server && n == 50);
    b.connect();
    b.run_until(5 * SEC);
    assert!(b.s.tp.ecn_ok && b.r.ecn_ok);
    assert_eq!(b.s.cc_name(), "dctcp");
    let syn = |to_server: bool| {
        b.log
            .iter()
            .find(|l| l.to_server == to_server && l.p.flags & SYN != 0)
            .unwrap()
            .p
            .ecn
    };
    assert_eq!((syn(true), syn(false)), (ECT1, ECT1));
    assert!(b.data_sent().count() > 600);
    assert!(b.data_sent().all(|l| l.p.ecn == ECT1));
    assert_eq!(b.data_sent().filter(|l| l.p.retrans).count(), 1);
    assert!(b.acks().count() > 300);
    assert!(b.acks().all(|l| l.p.ecn == ECT1));
    assert_eq!(b.r.delivered_bytes, 1_000_000);
}

#[test]
fn ss_line_has_the_seeds_dctcp_fields_in_order() {
    let mut b = Bench::new(&dctcp(), 50 * US, GBPS, Some(2_000_000));
    b.mark = Box::new(|_, n| n % 10 == 0);
    b.connect();
    b.run_until(SEC);
    let line = b.s.ss_line();
    let fields = [
        "dctcp ",
        "wscale:",
        "rto:",
        "rtt:",
        "mss:1448",
        "cwnd:",
        "ssthresh:",
        "ce_state ",
        "alpha ",
        "ab_ecn ",
        "ab_tot ",
        "send ",
        "pacing_rate ",
        "unacked:",
        "retrans:",
    ];
    let mut at = 0;
    for f in fields {
        let i = line[at..]
            .find(f)
            .unwrap_or_else(|| panic!("'{f}' missing or out of order in: {line}"));
        at += i + f.len();
    }
    // The fallback form (seed: "dctcp-reno wscale:7,7 rto:201 … ssthresh:1102 fallback_mode send …").
    let mut b = Bench::pair(&dctcp(), &reno(), 50 * US, GBPS, Some(100_000));
    b.connect();
    b.run_until(SEC);
    let line = b.s.ss_line();
    assert!(line.starts_with("dctcp-reno wscale:7,7 rto:"), "{line}");
    assert!(line.contains(" fallback_mode send "), "{line}");
    assert!(!line.contains("alpha"), "{line}");
}

#[test]
fn an_unmarked_dctcp_318_flow_shows_the_seeds_alpha_of_15() {
    // Seed 000's `ss` example: "dctcp … ce_state 0 alpha 15 ab_ecn 0 ab_tot 735584", a flow
    // that saw no marks. 3.18's alpha − alpha/16 stops at 2^4 − 1 = 15; today's module
    // takes it to 0 (`min_not_zero`).
    for (cc, want) in [
        ("dctcp-3.18", " ce_state 0 alpha 15 ab_ecn 0 "),
        ("dctcp", " ce_state 0 alpha 0 ab_ecn 0 "),
    ] {
        // A 64 KB receive window keeps the queue short, so 20 MB take hundreds of windows.
        let cfg = TcpConfig {
            cc: cc.into(),
            rcvbuf: 64 << 10,
            ..reno()
        };
        let mut b = Bench::new(&cfg, 50 * US, GBPS, Some(20_000_000));
        b.connect();
        b.run_until(SEC);
        assert_eq!(b.s.stats.ece_acks, 0);
        let line = b.s.ss_line();
        assert!(line.contains(want), "{cc}: {line}");
    }
}

#[test]
fn open_disorder_transitions_reach_the_congestion_module() {
    // Linux `tcp_try_keep_open` moves Open ↔ Disorder through `tcp_set_ca_state`, so
    // Vegas (`tcp_vegas_state`) stops measuring while SACKs show a hole.
    let cfg = TcpConfig {
        cc: "vegas".into(),
        ..reno()
    };
    let mut b = Bench::new(&cfg, 5 * MS, 10_000_000, Some(3_000_000));
    b.drop = Box::new(|_, to_server, n| to_server && n == 300);
    b.connect();
    let (mut disorder, mut open_vegas) = (0, 0);
    let mut t = 0;
    while t < 5 * SEC {
        t += 200 * US;
        b.run_until(t);
        let crate::cc::Cc::Vegas(v) = &b.s.cc else {
            panic!("vegas")
        };
        match b.s.tp.ca_state {
            crate::cc::CaState::Disorder => {
                disorder += 1;
                assert!(!v.doing_vegas_now, "Vegas off in Disorder at {t}");
            }
            crate::cc::CaState::Open if v.doing_vegas_now => open_vegas += 1,
            _ => {}
        }
    }
    assert!(disorder > 0, "the hole was seen in Disorder");
    assert!(open_vegas > 0, "Vegas back on in Open");
    assert_eq!(b.r.delivered_bytes, 3_000_000);
}

/// PSH where Linux puts it (`tcp_push` → `tcp_mark_push`, `forced_push`): the end of the
/// application's data and of each of an endless writer's 128 KiB writes, and more than half
/// the largest window after the last PSH; a retransmission keeps its segment's flag.
#[test]
fn psh_marks_write_ends_and_forced_pushes_only() {
    use crate::packet::PSH;
    let mss = crate::tcp::sender::payload_mss(1500) as u64;
    let psh_ends = |b: &Bench, retrans: bool| -> Vec<u64> {
        b.data_sent()
            .filter(|l| l.p.flags & PSH != 0 && l.p.retrans == retrans)
            .map(|l| l.p.seq + l.p.payload as u64)
            .collect()
    };
    // A byte-count flow whose last segment is lost: one PSH, on the last byte, and again
    // on its retransmission.
    let mut b = Bench::new(&reno(), 5 * MS, GBPS, Some(20 * mss));
    b.drop = Box::new(|_, to_server, n| to_server && n == 20);
    b.connect();
    b.run_until(5 * SEC);
    assert_eq!(b.r.delivered_bytes, 20 * mss);
    assert_eq!(psh_ends(&b, false), [1 + 20 * mss]);
    assert_eq!(psh_ends(&b, true), [1 + 20 * mss]);

    // An endless writer (iperf's 128 KiB writes): each segment that holds the last byte of
    // a write carries PSH, and no other.
    let mut b = Bench::new(&reno(), 5 * MS, GBPS, None);
    b.connect();
    b.run_until(200 * MS);
    let sent_end = b
        .data_sent()
        .map(|l| l.p.seq + l.p.payload as u64)
        .max()
        .unwrap();
    assert!(sent_end > 1 + 10 * (128 << 10), "{sent_end}");
    let write_ends = (1..)
        .map(|k| 1 + k * (128u64 << 10))
        .take_while(|&e| e <= sent_end);
    let holding: Vec<u64> = write_ends
        .map(|e| {
            let l = b
                .data_sent()
                .find(|l| l.p.seq < e && l.p.seq + l.p.payload as u64 >= e)
                .unwrap();
            l.p.seq + l.p.payload as u64
        })
        .collect();
    assert_eq!(psh_ends(&b, false), holding);

    // A 64 KiB receive window: a forced push once more than half of it (32 KiB) has gone
    // out since the last PSH, unless a write ended first.
    let small = TcpConfig {
        rcvbuf: 64 << 10,
        ..reno()
    };
    let mut b = Bench::new(&small, 5 * MS, GBPS, None);
    b.connect();
    b.run_until(200 * MS);
    let ends = psh_ends(&b, false);
    assert!(ends.len() > 20, "{}", ends.len());
    let (mut forced, mut writes) = (0, 0);
    for w in ends.windows(2) {
        let gap = w[1] - w[0];
        let holds_write_end = (w[1] - 1) / (128 << 10) > (w[1] - mss - 1) / (128 << 10);
        if holds_write_end && gap <= 32 << 10 {
            writes += 1;
        } else {
            assert!(
                gap > (32 << 10) && gap <= (32 << 10) + mss,
                "PSH {gap} bytes after the last, at {}",
                w[1]
            );
            forced += 1;
        }
    }
    assert!(
        forced > 3 * writes && writes > 0,
        "{forced} forced, {writes} write ends"
    );
}

/// A Reno flow of `segs` segments whose segment `nth` (from 0) is lost the first `times`
/// times it is sent, run for 5 s (without the tail loss probe, whose probe would be one
/// more sending; with RACK or RFC 6675's marking).
fn lose_segment(segs: u64, nth: u64, times: u32, rack: bool) -> Bench {
    let mss = crate::tcp::sender::payload_mss(1500) as u64;
    let cfg = TcpConfig {
        tlp: false,
        rack,
        ..reno()
    };
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, Some(segs * mss));
    let mut sent = 0;
    b.drop = Box::new(move |p, to_server, _| {
        let hit = to_server && p.payload > 0 && p.seq == 1 + nth * mss;
        sent += hit as u32;
        hit && sent <= times
    });
    b.connect();
    b.run_until(5 * SEC);
    assert_eq!(b.r.delivered_bytes, segs * mss);
    b
}

#[test]
fn netstat_counts_only_a_tail_loss_rto_as_an_other_tcp_timeout() {
    // The last of 10 segments lost, and its first two retransmissions: nothing after it to
    // SACK, so the RTO fires in Open with nothing SACKed, LINUX_MIB_TCPTIMEOUTS; the two
    // backed-off RTOs that follow are not counted again (`icsk_retransmits` > 0).
    let b = lose_segment(10, 9, 3, true);
    assert_eq!((b.s.stats.timeouts, b.s.stats.other_timeouts), (3, 1));
    // Segment 50 lost, then its fast retransmission too: without RACK the RTO fires in
    // recovery, a TCPSackFailures in Linux's counters, not an 'other TCP timeout'.
    let b = lose_segment(200, 49, 2, false);
    assert_eq!((b.s.stats.timeouts, b.s.stats.other_timeouts), (1, 0));
    // RACK sees the retransmission lost (a segment sent after it was delivered) and sends
    // it again: no timeout at all.
    let b = lose_segment(200, 49, 2, true);
    assert_eq!((b.s.stats.timeouts, b.s.stats.retrans_segs), (0, 2));
}

/// `ss` reads the socket's one pacing rate (`sk_pacing_rate`, set by
/// `tcp_update_pacing_rate`, capped by `SO_MAX_PACING_RATE`): with `max_pacing_rate` =
/// 50 Mbit/s the line says 50.0 Mbps, the rate the flow is held to. (cclab once printed a
/// rate of its own, 2.0 or 1.2 × cwnd/srtt uncapped: 7800.4 Mbps beside a goodput of
/// 47.6 Mbit/s.)
#[test]
fn ss_pacing_rate_is_the_sockets_capped_rate() {
    let cfg = TcpConfig {
        max_pacing_rate: Some(50_000_000),
        ..TcpConfig::default()
    };
    let mut b = Bench::new(&cfg, 5 * MS, GBPS, None);
    b.connect();
    b.run_until(2 * SEC);
    let line = b.s.ss_line();
    assert!(line.contains(" pacing_rate 50.0Mbps "), "{line}");
    assert_eq!(b.s.pacing_rate(), 50_000_000 / 8);
    // The flow keeps to it: bytes acked over the second second at most 50 Mbit/s.
    let acked = b.s.acked_bytes();
    b.run_until(3 * SEC);
    let mbps = (b.s.acked_bytes() - acked) as f64 * 8.0 / 1e6;
    assert!(mbps <= 50.0 && mbps > 45.0, "{mbps} Mbit/s");
}

/// BBR (`cong_control`) sets the pacing rate itself and `ss` shows it with BBR's fields
/// (`bbr:(bw:…,mrtt:…,pacing_gain:…,cwnd_gain:…)`, iproute2's order); TCP paces itself
/// (`bbr_init` sets `SK_PACING_NEEDED`).
#[test]
fn bbr_sets_the_pacing_rate_ss_shows() {
    let cfg = TcpConfig {
        cc: "bbr".into(),
        ..TcpConfig::default()
    };
    // 100 Mbit/s, 10 ms RTT.
    let mut b = Bench::new(&cfg, 5 * MS, 100_000_000, None);
    b.connect();
    b.run_until(3 * SEC);
    assert_eq!(b.s.tp.sk_pacing_status, crate::cc::PacingStatus::Needed);
    let line = b.s.ss_line();
    let rate = b.s.pacing_rate() as f64 * 8.0 / 1e6;
    assert!(
        line.contains(&format!(" pacing_rate {rate:.1}Mbps ")),
        "{line}"
    );
    assert!(line.contains(" bbr:(bw:"), "{line}");
    assert!(
        line.contains(",mrtt:10.") && line.contains(",cwnd_gain:"),
        "{line}"
    );
    // In PROBE_BW the rate is the phase's gain × bw less 1%, and bw (payload) is close to
    // the link's 100 Mbit/s less headers (1448 of 1500 B per packet: 96.5 Mbit/s).
    let crate::cc::Cc::Bbr(bbr) = &b.s.cc else {
        panic!("bbr")
    };
    let bw = bbr.bw_bps(&b.s.tp) / 1e6;
    assert!(bw > 90.0 && bw < 96.6, "{line}");
    let want = bw * bbr.pacing_gain as f64 / 256.0 * 0.99;
    assert!((rate - want).abs() < 0.1, "{rate} vs {want}: {line}");
}

/// BBR v3 (`cong_control`, `.tso_segs`) paces at gain × bw less 1% and sizes its TSO skbs
/// itself (`bbr_tso_segs`: ~1 ms of the pacing rate plus 64 KB halved per 512 µs of
/// min_rtt, at least `tcp_min_tso_segs`); `ss` shows BBR's fields and the sub-state.
#[test]
fn bbr3_paces_and_sizes_its_skbs() {
    let mut cfg = TcpConfig {
        cc: "bbr3".into(),
        ..TcpConfig::default()
    };
    cfg.host.tso = true;
    // 100 Mbit/s, 10 ms RTT.
    let mut b = Bench::new(&cfg, 5 * MS, 100_000_000, None);
    b.connect();
    b.run_until(3 * SEC);
    assert_eq!(b.s.tp.sk_pacing_status, crate::cc::PacingStatus::Needed);
    let line = b.s.ss_line();
    assert!(
        line.contains(" bbr:(bw:") && line.contains(",mode:ProbeBw"),
        "{line}"
    );
    let crate::cc::Cc::Bbr3(bbr) = &b.s.cc else {
        panic!("bbr3")
    };
    let bw = bbr.bw_bps(&b.s.tp) / 1e6;
    assert!(bw > 90.0 && bw < 96.6, "{line}");
    let rate = b.s.pacing_rate() as f64 * 8.0 / 1e6;
    let want = bw * bbr.pacing_gain as f64 / 256.0 * 0.99;
    assert!((rate - want).abs() < 0.1, "{rate} vs {want}: {line}");
    // min_rtt ≈ 10 ms: 64 KB >> (10,000 >> 9 = 19) = 0; pacing rate >> 10 bytes.
    let tp = &b.s.tp;
    assert!(tp.min_rtt_us >> 9 >= 17, "{}", tp.min_rtt_us);
    let want_segs = ((tp.sk_pacing_rate >> 10) / tp.mss_cache as u64).max(2) as u32;
    assert_eq!(b.s.tso_segs(), want_segs);
}
