//! TCP Prague against the arithmetic of `tcp_prague.c` 0.7, worked by hand
//! (docs/references.md §18.1, PRAGUE-U1 to PRAGUE-U3).

use super::*;
use crate::cc::{configured, Cc, Configure, PacingStatus, NO_RATE};
use crate::engine::{MS, US};

/// A socket with ECN negotiated, cwnd 10, srtt 1 ms (`srtt_us` 8000), MTU 1500, and a
/// Prague initialised on it with the options `set` makes.
fn prague(set: impl FnOnce(&mut Options)) -> (Prague, TcpCcState) {
    let mut tp = TcpCcState::new(1448, 10, u32::MAX / 2);
    tp.mtu = 1500;
    tp.ecn_ok = true;
    tp.srtt_us = 8000;
    tp.now = 10 * MS;
    tp.snd_nxt = 1;
    tp.snd_una = 1;
    tp.is_cwnd_limited = true;
    let mut p: Prague = configured(|o| set(&mut o.prague));
    p.init(&mut tp);
    (p, tp)
}

/// One ACK of `acked` segments, `ce` of them CE-echoed, through `cong_control`.
fn ack(p: &mut Prague, tp: &mut TcpCcState, acked: u32, ce: u32) {
    tp.delivered += acked as u64;
    tp.delivered_ce += ce as u64;
    tp.snd_una += acked as u64 * 1448;
    let rs = RateSample {
        acked_sacked: acked,
        ece_delta: ce,
        ..Default::default()
    };
    p.cong_control(tp, &rs);
}

#[test]
fn u1_alpha_ewma_upscaled_at_24_bits() {
    // docs/references.md PRAGUE-U1.
    let mut a = 0;
    let mut v = vec![];
    for _ in 0..3 {
        a = Prague::alpha_step(a, 100, 100);
        v.push(a);
    }
    assert_eq!(v, [16_777_216, 32_505_856, 47_251_456]);
    assert_eq!(Prague::alpha_step(1 << 28, 100, 10), 253_335_961);
    // Saturated: 1.0 stays 1.0; no marks decay by 1/16.
    assert_eq!(Prague::alpha_step(1 << 28, 100, 100), 1 << 28);
    assert_eq!(Prague::alpha_step(1 << 28, 100, 0), (1 << 28) - (1 << 24));
    // More marks than segments (a late echo) is capped at 1.0.
    assert_eq!(Prague::alpha_step(1 << 28, 1, 5), 1 << 28);
}

#[test]
fn u2_cwr_reduction_is_alpha_over_two_rounded() {
    // docs/references.md PRAGUE-U2.
    assert_eq!(Prague::cwr_reduction(100 << 20, 1 << 23), 26_214_400);
    assert_eq!(Prague::cwr_reduction(100 << 20, 1 << 24), 50 << 20);
    // alpha 0: nothing, the + 2^24 only rounds.
    assert_eq!(Prague::cwr_reduction(100 << 20, 0), 0);
    // 3 units × alpha 0.5 = 0.75 of a unit: rounds to 1.
    assert_eq!(Prague::cwr_reduction(3, 1 << 23), 1);
}

#[test]
fn u3_ai_ack_increase_scales_with_rtt_squared_below_the_target() {
    // docs/references.md PRAGUE-U3: srtt 1 ms against 25 ms, both << 3.
    assert_eq!(Prague::rate_scaled_ai_ack_increase(8000, 200_000), 1678);
    assert_eq!(
        Prague::rate_scaled_ai_ack_increase(200_000, 200_000),
        ONE_CWND
    );
    assert_eq!(
        Prague::rate_scaled_ai_ack_increase(100_000, 200_000),
        ONE_CWND / 4
    );
}

#[test]
fn init_paces_at_twice_the_window_in_slow_start_with_250_us_bursts() {
    let (p, tp) = prague(|_| {});
    assert_eq!(p.name(), "prague");
    assert!(p.has_cong_control() && p.wants_ect_1() && p.needs_ecn());
    assert_eq!(tp.sk_pacing_status, PacingStatus::Needed);
    // rate_bytes = 8·10^6 · 1500 / 8000 · 10 = 15 MB/s; doubled in slow start.
    assert_eq!(p.rate_bytes, 15_000_000);
    assert_eq!(tp.sk_pacing_rate, 30_000_000);
    // 30 MB/s / 1500 = 20,000 packets/s, >> 12: 4 segments per skb.
    assert_eq!(p.tso_segs(&tp, 1448), Some(4));
    assert_eq!(p.frac_cwnd, 10 << 20);
    assert_eq!(p.upscaled_alpha, 0, "prague_alpha_mode 0");
    assert!(!p.saw_ce);
    let (p, _) = prague(|o| o.alpha_mode = 1);
    assert_eq!(p.upscaled_alpha, 1 << 28);
    let (p, tp) = prague(|o| o.max_tso_segs = 2);
    assert_eq!(p.tso_segs(&tp, 1448), Some(2));
}

#[test]
fn additive_increase_is_one_over_the_window_per_unmarked_segment() {
    let (mut p, mut tp) = prague(|_| {});
    tp.snd_ssthresh = 10; // out of slow start
    tp.snd_nxt = 1 + 100 * 1448; // the first ACK ends init's round, the next one is far
    ack(&mut p, &mut tp, 1, 0);
    // round(2^20 · 2^20 / (10 · 2^20)) = 104,858, × 1500 / 1500.
    assert_eq!(p.frac_cwnd, (10 << 20) + 104_858);
    // cwnd is ⌈frac_cwnd⌉: 11 at once.
    assert_eq!(tp.snd_cwnd, 11);
    // Nine more: just short of 11 segments (1/10 + 1/10.1 + … < 1).
    for _ in 0..9 {
        ack(&mut p, &mut tp, 1, 0);
    }
    assert!(p.frac_cwnd < 11 << 20 && p.frac_cwnd > (10 << 20) + (9 << 20) / 10);
    // Not cwnd-limited: no growth.
    let f = p.frac_cwnd;
    tp.is_cwnd_limited = false;
    ack(&mut p, &mut tp, 1, 0);
    assert_eq!(p.frac_cwnd, f);
}

#[test]
fn the_first_mark_halves_the_window_and_ends_slow_start_one_step_per_ack() {
    let (mut p, mut tp) = prague(|_| {});
    tp.snd_cwnd = 40;
    p.frac_cwnd = 40 << 20;
    // The core enters CWR first (alpha 0: no reduction), then cong_control.
    tp.snd_nxt = 1 + 40 * 1448;
    p.set_state(&mut tp, CaState::Cwr);
    assert_eq!(p.frac_cwnd, 40 << 20);
    tp.ca_state = CaState::Cwr;
    ack(&mut p, &mut tp, 2, 2);
    assert!(p.saw_ce);
    assert_eq!(p.frac_cwnd, 20 << 20, "(frac + 1) >> 1");
    assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (39, 39));
    for _ in 0..18 {
        ack(&mut p, &mut tp, 1, 0);
    }
    // One step down per ACK while above ⌈frac_cwnd⌉; unmarked ACKs grow frac_cwnd a bit.
    assert_eq!(tp.snd_cwnd, 21);
    assert!(!tp.in_slow_start());
}

#[test]
fn alpha_updates_once_per_round_from_the_delivered_counts() {
    let (mut p, mut tp) = prague(|_| {});
    p.saw_ce = true;
    tp.snd_ssthresh = 10;
    tp.snd_nxt = 1 + 10 * 1448;
    // init's new_round put next_seq at snd_nxt = 1: this ACK ends that round.
    ack(&mut p, &mut tp, 1, 1);
    assert_eq!(p.upscaled_alpha, 1 << 24, "1 of 1 CE: + 2^24");
    assert_eq!(p.next_seq, 1 + 10 * 1448);
    assert_eq!(p.round, 1);
    // Within the round: no update.
    ack(&mut p, &mut tp, 4, 1);
    assert_eq!(p.upscaled_alpha, 1 << 24);
    // The round ends: 10 delivered, 5 CE → (1 << 24) − (1 << 20) + 2^23.
    ack(&mut p, &mut tp, 6, 4);
    assert_eq!(p.upscaled_alpha, (1 << 24) - (1 << 20) + (1 << 23));
    assert_eq!(p.round, 2);
}

#[test]
fn cwr_reduces_by_alpha_over_two_and_rtt_independence_waits_the_target() {
    let (mut p, mut tp) = prague(|_| {});
    tp.snd_ssthresh = 10;
    p.saw_ce = true;
    p.upscaled_alpha = 1 << 27; // alpha 0.5
    p.frac_cwnd = 100 << 20;
    p.set_state(&mut tp, CaState::Cwr);
    assert_eq!(p.frac_cwnd, (100 << 20) - 26_214_400);
    // Once RTT-independent (round ≥ 4, not in slow start), a second CWR within 25 ms of
    // the first does nothing.
    p.round = 4;
    tp.ca_state = CaState::Open;
    tp.now += 10 * MS;
    let f = p.frac_cwnd;
    p.set_state(&mut tp, CaState::Cwr);
    assert_eq!(p.frac_cwnd, f);
    tp.now += 15 * MS;
    p.set_state(&mut tp, CaState::Cwr);
    assert_eq!(p.frac_cwnd, f - Prague::cwr_reduction(f, 1 << 23));
    // Its increase per ACK is then (1/25)² of 1/W, and alpha waits 25 ms too.
    p.round = 3;
    p.new_round(&tp);
    assert_eq!(p.round, 4);
    assert_eq!(p.ai_ack_increase, 1678);
    tp.snd_una = p.next_seq;
    p.alpha_stamp = tp.now;
    assert!(!p.should_update_ewma(&tp));
    tp.now += 25 * MS - US;
    assert!(!p.should_update_ewma(&tp));
    tp.now += US;
    assert!(p.should_update_ewma(&tp));
}

#[test]
fn loss_halves_and_undo_restores() {
    let (mut p, mut tp) = prague(|_| {});
    tp.snd_ssthresh = 10;
    p.frac_cwnd = 40 << 20;
    tp.snd_cwnd = 40;
    p.rate_bytes = 60_000_000;
    p.set_state(&mut tp, CaState::Recovery);
    assert!(p.in_loss);
    assert_eq!(p.frac_cwnd, 20 << 20);
    // rate from the halved window: 8·10^6 · 1500 / 8000 · 20.
    assert_eq!(p.rate_bytes, 30_000_000);
    // In loss the window does not grow; it steps down.
    tp.ca_state = CaState::Recovery;
    ack(&mut p, &mut tp, 1, 0);
    assert_eq!((p.frac_cwnd, tp.snd_cwnd), (20 << 20, 39));
    // Undo: the rate before the loss back, the window from it (hsrtt: srtt 1 ms).
    assert_eq!(p.undo_cwnd(&mut tp), 40);
    assert!(!p.in_loss);
    assert_eq!(p.rate_bytes, 60_000_000);
    // 60 MB/s × 8000 >> 3 over 1500, in 2^20 units: 40 segments less the 2^23 ≈ 8·10^6
    // approximation (×0.954).
    assert_eq!(
        p.frac_cwnd,
        div_round_up(mul_shr(60_000_000, 8000, 3), 1500)
    );
    assert!(p.frac_cwnd > 38 << 20 && p.frac_cwnd < 40 << 20);
    // An RTO is a loss too.
    p.cwnd_event(&mut tp, CaEvent::Loss);
    assert!(p.in_loss);
}

#[test]
fn without_ecn_it_runs_prague_reno() {
    let mut tp = TcpCcState::new(1448, 10, u32::MAX / 2);
    tp.ecn_ok = false;
    let mut p = Prague::default();
    p.configure(&Default::default());
    p.init(&mut tp);
    assert_eq!(p.name(), "prague-reno");
    assert!(!p.has_cong_control());
    assert_eq!(p.tso_segs(&tp, 1448), None);
    assert_eq!(tp.sk_pacing_status, PacingStatus::None);
    assert_eq!(tp.sk_pacing_rate, NO_RATE);
    tp.snd_cwnd = 100;
    assert_eq!(p.ssthresh(&mut tp), 50);
    let mut s = String::new();
    p.diag(&mut s);
    assert_eq!(s, " fallback_mode");
}

/// A Prague transfer of `bytes` on the TCP harness (`rate_bps`, 5 ms one way, every 10th
/// data segment CE-marked), run for 2 s.
fn marked_transfer(rate_bps: u64, bytes: u64) -> crate::tcp::harness::Bench {
    let cfg = crate::tcp::config::TcpConfig {
        cc: "prague".into(),
        ..Default::default()
    };
    let mut b = crate::tcp::harness::Bench::new(&cfg, 5 * MS, rate_bps, Some(bytes));
    b.mark = Box::new(|_, n| n % 10 == 0);
    b.connect();
    b.run_until(2 * crate::engine::SEC);
    b
}

/// Prague end to end on the TCP harness (1 Gbit/s, 5 ms one way, every 10th data
/// segment CE-marked): both ends negotiate AccECN and send everything ECT(1) — SYN,
/// SYN-ACK, data, ACKs (ECN++ as `TCP_CONG_WANTS_ECT_1`); the module paces
/// (`SK_PACING_NEEDED`), sees the marks through `tp.delivered_ce` and so an alpha
/// between 0 and 1; 2 MB arrive.
#[test]
fn a_prague_connection_is_ect_1_throughout_and_paced() {
    use crate::packet::{CE, ECT1, SYN};
    let b = marked_transfer(1_000_000_000, 2_000_000);
    assert!(b.s.tp.ecn_ok && b.r.ecn_ok);
    assert_eq!(b.s.cc_name(), "prague");
    assert!(b
        .log
        .iter()
        .filter(|l| l.p.flags & SYN != 0)
        .all(|l| l.p.ecn == ECT1));
    assert!(b.data_sent().count() > 1000);
    // (the harness logs a marked segment as the receiver gets it: CE)
    assert!(b.data_sent().all(|l| l.p.ecn == ECT1 || l.p.ecn == CE));
    assert!(b.data_sent().any(|l| l.p.ecn == ECT1));
    assert!(b.acks().all(|l| l.p.ecn == ECT1));
    assert_eq!(b.s.tp.sk_pacing_status, PacingStatus::Needed);
    assert!(b.s.tp.delivered_ce > 0);
    let Cc::Prague(p) = &b.s.cc else {
        panic!("prague")
    };
    assert!(
        p.saw_ce && p.alpha() > 0.0 && p.alpha() < 1.0,
        "{}",
        p.alpha()
    );
    assert_eq!(b.r.delivered_bytes, 2_000_000);
}

/// Against a peer without ECN the connection runs `prague-reno` (`prague_init` →
/// `prague_release`): no ECT on the data, Linux's own cwnd path (no `cong_control`: the
/// sender re-reads it after `init`), no pacing; the transfer completes.
#[test]
fn a_prague_client_of_a_reno_server_runs_prague_reno() {
    use crate::packet::NOT_ECT;
    use crate::tcp::config::TcpConfig;
    use crate::tcp::harness::Bench;
    let cfg = TcpConfig {
        cc: "prague".into(),
        ..TcpConfig::default()
    };
    let server = TcpConfig {
        cc: "reno".into(),
        ..TcpConfig::default()
    };
    let mut b = Bench::pair(&cfg, &server, 5 * MS, 1_000_000_000, Some(1_000_000));
    b.drop = Box::new(|_, to_server, n| to_server && n == 100);
    b.connect();
    b.run_until(3 * crate::engine::SEC);
    assert!(!b.s.tp.ecn_ok);
    assert_eq!(b.s.cc_name(), "prague-reno");
    assert!(!b.s.cc.has_cong_control());
    assert!(b.data_sent().all(|l| l.p.ecn == NOT_ECT));
    assert_eq!(b.s.tp.sk_pacing_status, PacingStatus::None);
    // The loss was recovered by Reno's halving (ssthresh = cwnd / 2 at the time).
    assert_eq!(b.s.stats.recoveries, 1);
    assert_eq!(b.r.delivered_bytes, 1_000_000);
}

/// Against a peer that answers with RFC 3168 ECN only (a Reno server with `tcp.ecn = 1`),
/// `TCP_CONG_NO_FALLBACK_RFC3168` leaves the connection without ECN: the SYN asked for
/// AccECN (AE, CWR, ECE), the SYN-ACK answered ECE alone, and Prague runs `prague-reno`
/// with Not-ECT data. (The SYN is Not-ECT here, `syn_ect = false`: a classic listener
/// refuses ECN on an ECT SYN, `tcp_ecn_create_request`, and the connection would be
/// without ECN from the start.)
#[test]
fn a_prague_client_of_a_classic_ecn_server_gives_up_ecn() {
    use crate::packet::{AE, CWR, ECE, NOT_ECT, SYN};
    use crate::tcp::config::TcpConfig;
    use crate::tcp::harness::Bench;
    let cfg = TcpConfig {
        cc: "prague".into(),
        syn_ect: false,
        ..TcpConfig::default()
    };
    let server = TcpConfig {
        cc: "reno".into(),
        ecn: true,
        ..TcpConfig::default()
    };
    let mut b = Bench::pair(&cfg, &server, 5 * MS, 1_000_000_000, Some(1_000_000));
    b.connect();
    b.run_until(3 * crate::engine::SEC);
    let syn = b.log.iter().find(|l| l.p.flags == SYN | AE | CWR | ECE);
    assert!(syn.is_some(), "the SYN asks for AccECN");
    assert!(b.r.ecn_ok, "the server runs RFC 3168");
    assert!(!b.s.tp.ecn_ok);
    assert_eq!(b.s.cc_name(), "prague-reno");
    assert!(b.data_sent().all(|l| l.p.ecn == NOT_ECT));
    assert_eq!(b.r.delivered_bytes, 1_000_000);
}

/// `tcp_ack` calls `cong_control` only for an ACK at or above `snd_una` that finds data
/// outstanding: an ACK with nothing in flight takes the `no_queue` path (and an older one
/// `old_ack`), which reach neither `tcp_rate_gen` nor `tcp_cong_control`. A transfer of
/// 300 kB completes (nothing outstanding, out of slow start since the first mark); the
/// receiver's last ACK then arrives three more times. In Linux Prague does not hear of
/// them: its round counter, fractional window, rate, smoothed RTT and cwnd stay. (Before,
/// cclab ran `cong_control` on them: `snd_una` ≥ `next_seq` and 25 ms since the last
/// alpha update made the first a new round, `round` 11 → 12, `hsrtt_us` moved.)
#[test]
fn an_ack_with_nothing_outstanding_does_not_reach_cong_control() {
    use crate::tcp::harness::Bench;
    use crate::transport::Io;
    let mut b = marked_transfer(100_000_000, 300_000);
    assert_eq!(b.r.delivered_bytes, 300_000);
    assert_eq!(b.s.packets_out(), 0);
    assert!(!b.s.tp.in_slow_start());
    let state = |b: &Bench| {
        let Cc::Prague(p) = &b.s.cc else {
            panic!("prague")
        };
        (
            p.round,
            p.frac_cwnd,
            p.rate_bytes,
            p.hsrtt_us,
            b.s.tp.snd_cwnd,
        )
    };
    let before = state(&b);
    let last = b.acks().last().unwrap().p.clone();
    for _ in 0..3 {
        let mut io = Io::new(b.now);
        b.s.on_packet(&last, &mut io);
    }
    assert_eq!(state(&b), before);
}
