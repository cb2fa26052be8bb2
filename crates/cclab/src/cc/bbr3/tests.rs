//! BBR v3's arithmetic and state transitions, worked by hand from the v3 tree's
//! `tcp_bbr.c`: one call of `cong_control` per packet-timed round, each with a rate sample
//! that starts a round (as `bbr/tests.rs` does for v1).

use super::*;
use crate::cc::CongestionOps;
use crate::engine::US;

const MSS: u32 = 1000;
const MIN_RTT_US: u32 = 10_000;

/// A BBR v3 socket after `init`, 10 ms RTT measured on the handshake.
fn bbr3() -> (Bbr3, TcpCcState) {
    let mut tp = TcpCcState::new(MSS, 10, u32::MAX / 2);
    tp.srtt_us = MIN_RTT_US << 3;
    tp.min_rtt_us = MIN_RTT_US;
    tp.now = 10 * MS;
    let mut b = Bbr3::default();
    b.init(&mut tp);
    (b, tp)
}

/// One round of 10 ms: `delivered` segments acknowledged with `inflight` in flight; `f`
/// may add loss or ECN to the sample. Returns the sample.
fn round_with(
    b: &mut Bbr3,
    tp: &mut TcpCcState,
    delivered: u32,
    inflight: u32,
    f: impl FnOnce(&mut RateSample),
) -> RateSample {
    let prior_delivered = tp.delivered as u32;
    tp.now += MIN_RTT_US as u64 * US;
    tp.delivered += delivered as u64;
    tp.delivered_mstamp = tp.now;
    tp.packets_in_flight = inflight;
    let mut rs = RateSample {
        prior_delivered,
        delivered: delivered as i32,
        delivered_ce: 0,
        interval_us: MIN_RTT_US as i64,
        rtt_us: MIN_RTT_US as i64,
        acked_sacked: delivered,
        prior_in_flight: inflight,
        tx_in_flight: inflight,
        ..RateSample::default()
    };
    f(&mut rs);
    b.cong_control(tp, &rs);
    rs
}

fn round(b: &mut Bbr3, tp: &mut TcpCcState, delivered: u32, inflight: u32) -> RateSample {
    round_with(b, tp, delivered, inflight, |_| {})
}

/// STARTUP to PROBE_BW's CRUISE at 100 segments per 10 ms (BDP 100).
fn cruising() -> (Bbr3, TcpCcState) {
    let (mut b, mut tp) = bbr3();
    for d in [20, 40, 80, 100, 100, 100, 100] {
        round(&mut b, &mut tp, d, 50);
    }
    assert_eq!((b.mode, b.cycle_idx), (Mode::ProbeBw, Phase::Cruise));
    (b, tp)
}

/// The file's gains and thresholds, in its integer arithmetic: 277/100·256 + 1 = 710,
/// 256·1000/2885 = 88, 91% of 256 = 232, β = 30% = 76, 2% = 5, 15% = 38.
#[test]
fn constants_are_the_files() {
    assert_eq!(STARTUP_PACING_GAIN, 710);
    assert_eq!(STARTUP_CWND_GAIN, 512);
    assert_eq!(DRAIN_GAIN, 88);
    assert_eq!(PACING_GAIN, [320, 232, 256, 256]);
    assert_eq!((BETA, LOSS_THRESH, INFLIGHT_HEADROOM), (76, 5, 38));
    assert_eq!((ECN_FACTOR, ECN_THRESH, ECN_ALPHA_GAIN), (85, 128, 16));
}

/// `bbr_init`: STARTUP, every bound unset, TCP's own pacing, and the pacing rate
/// 2.77 · cwnd / srtt less 1%: bw = 10 · 2^24 / 10,000 = 16,777; · 1000 B · 710 >> 8 =
/// 46,529,960; · 990,000 >> 24 = 46,064,660,400,000 / 16,777,216 = 2,745,667 B/s.
#[test]
fn init_starts_up_paced_with_no_bounds() {
    let (b, tp) = bbr3();
    assert_eq!(b.mode, Mode::Startup);
    assert_eq!(tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
    assert_eq!(tp.sk_pacing_status, PacingStatus::Needed);
    assert_eq!(
        (b.inflight_hi, b.inflight_lo, b.bw_lo),
        (UNSET, UNSET, UNSET)
    );
    assert_eq!(b.ecn_alpha, BBR_UNIT);
    let bw = 10u64 * BW_UNIT / 10_000;
    assert_eq!(bw, 16_777);
    assert_eq!((bw * 1000 * 710) >> 8, 46_529_960);
    assert_eq!(tp.sk_pacing_rate, 2_745_667);
}

/// `bbr_is_inflight_too_high`: loss over 2% (5/256) of what was in flight: with 100 in
/// flight the threshold is 100 · 5 >> 8 = 1, so 2 lost is too high and 1 is not.
#[test]
fn loss_over_two_percent_is_too_high() {
    let (b, _) = bbr3();
    let rs = |lost| loss_sample(lost, 100, false);
    assert!(b.is_inflight_too_high(&rs(2)));
    assert!(!b.is_inflight_too_high(&rs(1)));
    // ECN counts only when ECN-eligible (an `ecn_low` route).
    let ce = RateSample {
        delivered: 10,
        delivered_ce: 10,
        ..RateSample::default()
    };
    assert!(!b.is_inflight_too_high(&ce));
}

/// `bbr_inflight_hi_from_lost_skb`, by hand. tx_in_flight 201, lost 2, one segment:
/// inflight_prev 200, lost_prev 1; budget = (200 · 5 + 255) >> 8 = 4; prefix =
/// (4 − 1) · 256 / 251 = 3: inflight_hi 203. tx_in_flight 100, lost 5: budget
/// (99 · 5 + 255) >> 8 = 2 ≤ lost_prev 4: the earlier losses crossed it: 99.
#[test]
fn inflight_hi_where_the_loss_rate_crossed() {
    assert_eq!(
        Bbr3::inflight_hi_from_lost_skb(&loss_sample(2, 201, false), 1),
        203
    );
    assert_eq!(
        Bbr3::inflight_hi_from_lost_skb(&loss_sample(5, 100, false), 1),
        99
    );
    // A snapshot that cannot be (fewer in flight than the skb): no bound.
    assert_eq!(
        Bbr3::inflight_hi_from_lost_skb(&loss_sample(1, 0, false), 1),
        UNSET
    );
}

/// STARTUP ends after three rounds in which the *sample* grew less than 25%; DRAIN (gain
/// 1/2.885) holds while inflight (150) is over the BDP's (max(101, 3 · tso_segs_goal) =
/// 101); at 90 PROBE_BW starts in DOWN and, inflight being under the BDP already, goes on
/// to CRUISE on the same ACK (`bbr_check_drain`, then `bbr_update_cycle_phase`), with the
/// next probe due in 2–3 s.
#[test]
fn startup_drain_down_cruise() {
    let (mut b, mut tp) = bbr3();
    for d in [20, 40, 80, 100, 100, 100] {
        round(&mut b, &mut tp, d, 50);
        assert_eq!(b.mode, Mode::Startup);
        assert_eq!((b.pacing_gain, b.cwnd_gain), (710, 512));
    }
    round(&mut b, &mut tp, 100, 150);
    assert!(b.full_bw_reached);
    assert_eq!(b.mode, Mode::Drain);
    assert_eq!(b.pacing_gain, 88);
    // The BDP in Linux's rounding up: ⌈⌈100 · 2^24 / 10^4⌉ · 10^4 / 2^24⌉ = 101.
    assert_eq!(tp.snd_ssthresh, 101);
    round(&mut b, &mut tp, 100, 90);
    assert_eq!((b.mode, b.cycle_idx), (Mode::ProbeBw, Phase::Cruise));
    assert_eq!((b.pacing_gain, b.cwnd_gain), (256, 512));
    assert!((2_000_000..3_000_000).contains(&b.probe_wait_us));
    assert!(b.rounds_since_probe < 2);
}

/// DOWN holds while inflight is over the BDP (pacing gain 0.91), CRUISE once it is not.
#[test]
fn down_until_inflight_is_at_the_bdp() {
    let (mut b, mut tp) = cruising();
    tp.now += 3 * crate::engine::SEC;
    round(&mut b, &mut tp, 100, 100);
    round(&mut b, &mut tp, 100, 100);
    assert_eq!(b.cycle_idx, Phase::Up);
    // A plateau of three rounds ends the probe: DOWN.
    for _ in 0..3 {
        round(&mut b, &mut tp, 100, 130);
    }
    assert_eq!((b.cycle_idx, b.pacing_gain), (Phase::Down, 232));
    round(&mut b, &mut tp, 100, 130);
    assert_eq!(b.cycle_idx, Phase::Down);
    round(&mut b, &mut tp, 100, 100);
    assert_eq!(b.cycle_idx, Phase::Cruise);
}

/// After probe_wait_us of cruising: REFILL (lower bounds reset), then UP one round later
/// (gain 1.25, cwnd gain 2.25), and a round losing 10 of 100 in flight while probing
/// sets inflight_hi = max(tx_in_flight 100, target · (1 − β)) and goes DOWN.
#[test]
fn probe_refill_up_and_loss_sets_inflight_hi() {
    let (mut b, mut tp) = cruising();
    tp.now += 3 * crate::engine::SEC;
    round(&mut b, &mut tp, 100, 100);
    assert_eq!(b.cycle_idx, Phase::Refill);
    assert_eq!((b.bw_lo, b.inflight_lo), (UNSET, UNSET));
    round(&mut b, &mut tp, 100, 100);
    assert_eq!(b.cycle_idx, Phase::Up);
    assert_eq!((b.pacing_gain, b.cwnd_gain), (320, 576));
    assert!(b.bw_probe_samples);
    let target = b.target_inflight(&tp);
    round_with(&mut b, &mut tp, 100, 100, |rs| {
        rs.lost = 10;
        rs.losses = 10;
    });
    assert_eq!(b.inflight_hi, 100u32.max(target * (256 - 76) / 256));
    assert_eq!(b.cycle_idx, Phase::Down);
    assert!(b.prev_probe_too_high);
}

/// Loss while cruising cuts the lower bounds at the end of the loss round by β = 30%,
/// not below the last round's delivery (`bw_latest`, `inflight_latest`: here the
/// previous round's 100 segments at the full rate, as each ACK is a round): inflight_lo =
/// max(100, cwnd · 180 >> 8), bw_lo = max(bw_latest, max_bw · 180 >> 8) = max_bw; cwnd is
/// held to inflight_lo.
#[test]
fn loss_while_cruising_cuts_lower_bounds() {
    let (mut b, mut tp) = cruising();
    let cwnd = tp.snd_cwnd;
    round_with(&mut b, &mut tp, 60, 100, |rs| rs.losses = 5);
    let want = 100u32.max(((cwnd as u64 * 180) >> 8) as u32);
    assert!(want < cwnd);
    assert_eq!(b.inflight_lo, want);
    assert_eq!(b.bw_lo, b.max_bw());
    assert_eq!(tp.snd_cwnd, want);
    // A round with no loss leaves them; REFILL resets them.
    round(&mut b, &mut tp, 60, 100);
    assert_eq!(b.inflight_lo, want);
    tp.now += 3 * crate::engine::SEC;
    round(&mut b, &mut tp, 100, 100);
    assert_eq!(b.cycle_idx, Phase::Refill);
    assert_eq!((b.bw_lo, b.inflight_lo), (UNSET, UNSET));
}

/// PROBE_RTT after 5 s without a lower RTT: cwnd ≤ max(4, BDP/2) for max(200 ms,
/// one round) once inflight is there; then back to PROBE_BW (CRUISE).
#[test]
fn probe_rtt_every_five_seconds_at_half_bdp() {
    let (mut b, mut tp) = cruising();
    for _ in 0..10 {
        round_with(&mut b, &mut tp, 100, 100, |rs| rs.rtt_us = 12_000);
    }
    assert_eq!(b.mode, Mode::ProbeBw);
    tp.now += PROBE_RTT_WIN_MS as u64 * MS;
    round_with(&mut b, &mut tp, 100, 100, |rs| rs.rtt_us = 12_000);
    assert_eq!(b.mode, Mode::ProbeRtt);
    // BDP/2 rounded up from bw = ⌈100 · 2^24 / 10^4⌉ = 167,773: ⌈167,773 · 10^4 · 128 >>
    // 8 / 2^24⌉ = ⌈50.00002⌉ = 51.
    assert_eq!(tp.snd_cwnd, 51);
    round(&mut b, &mut tp, 50, 50); // inflight at the cap: 200 ms starts
    tp.now += 201 * MS;
    round(&mut b, &mut tp, 50, 50);
    assert_eq!((b.mode, b.cycle_idx), (Mode::ProbeBw, Phase::Cruise));
}

/// `.skb_marked_lost` while probing: 3 of 150 lost (> 150 · 5 >> 8 = 2) sets inflight_hi
/// where the rate crossed 2%: prev 149, lost_prev 2, budget (149 · 5 + 255) >> 8 = 3,
/// prefix (3 − 2) · 256 / 251 = 1: 150.
#[test]
fn skb_marked_lost_while_probing() {
    let (mut b, mut tp) = cruising();
    tp.now += 3 * crate::engine::SEC;
    round(&mut b, &mut tp, 100, 100);
    round(&mut b, &mut tp, 100, 100);
    assert_eq!(b.cycle_idx, Phase::Up);
    tp.lost = 13;
    let skb = LostSkb {
        pcount: 1,
        tx_in_flight: 150,
        tx_lost: 10,
        is_app_limited: false,
        delivered_mstamp: tp.now,
    };
    b.skb_marked_lost(&mut tp, &skb);
    assert_eq!(
        b.inflight_hi,
        150u32.max(b.target_inflight(&tp) * 180 / 256)
    );
    assert_eq!(b.cycle_idx, Phase::Down);
}
