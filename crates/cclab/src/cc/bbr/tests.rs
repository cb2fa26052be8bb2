//! BBR's arithmetic and state transitions, worked by hand from `tcp_bbr.c`: one call of
//! `cong_control` per packet-timed round, each with a rate sample that starts a round.

use super::*;
use crate::cc::CongestionOps;
use crate::engine::US;

const MSS: u32 = 1000;
const MIN_RTT_US: u32 = 10_000;

/// A BBR socket after `init`, 10 ms RTT measured on the handshake.
fn bbr() -> (Bbr, TcpCcState) {
    let mut tp = TcpCcState::new(MSS, 10, u32::MAX / 2);
    tp.srtt_us = MIN_RTT_US << 3;
    tp.min_rtt_us = MIN_RTT_US;
    tp.now = 10 * MS;
    let mut b = Bbr::default();
    b.init(&mut tp);
    (b, tp)
}

/// One round: `delivered` segments acknowledged over 10 ms (one min_rtt) with `inflight`
/// in flight; returns the sample used.
fn round(b: &mut Bbr, tp: &mut TcpCcState, delivered: u32, inflight: u32) -> RateSample {
    let prior_delivered = tp.delivered as u32;
    tp.now += MIN_RTT_US as u64 * US;
    tp.delivered += delivered as u64;
    tp.delivered_mstamp = tp.now;
    tp.packets_in_flight = inflight;
    let rs = RateSample {
        prior_delivered,
        delivered: delivered as i32,
        interval_us: MIN_RTT_US as i64,
        rtt_us: MIN_RTT_US as i64,
        acked_sacked: delivered,
        prior_in_flight: inflight,
        ..RateSample::default()
    };
    b.cong_control(tp, &rs);
    rs
}

/// `bbr_init`: STARTUP, ssthresh infinite, TCP's own pacing switched on, and the pacing
/// rate high_gain · cwnd / srtt less 1%: bw = 10 · 2^24 / 10,000 = 16,777 (packets/µs <<
/// 24); · 1000 B · 739 >> 8 = 48,430,480; · 990,000 >> 24 = 2,857,814 B/s (Linux's integer
/// steps; 10 segments per 10 ms at 2.886 less 1% is 2.857 MB/s).
#[test]
fn init_starts_up_paced() {
    let (b, tp) = bbr();
    assert_eq!(b.mode, Mode::Startup);
    assert_eq!(tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
    assert_eq!(tp.sk_pacing_status, PacingStatus::Needed);
    let bw = 10u64 * BW_UNIT / 10_000;
    let want = (((bw * 1000 * 739) >> 8) * 990_000) >> 24;
    assert_eq!(tp.sk_pacing_rate, want);
    assert_eq!(tp.sk_pacing_rate, 2_857_814);
    assert_eq!(HIGH_GAIN, 739);
    assert_eq!(DRAIN_GAIN, 88);
}

/// `bbr_rate_bytes_per_sec`: 1 packet/µs of 1000 B at gain 1 is 10^9 B/s less 1%.
#[test]
fn pacing_rate_is_gain_times_bw_less_one_percent() {
    let (_, tp) = bbr();
    assert_eq!(Bbr::rate_bytes_per_sec(&tp, BW_UNIT, BBR_UNIT), 990_000_000);
    assert_eq!(
        Bbr::rate_bytes_per_sec(&tp, BW_UNIT, BBR_UNIT * 5 / 4),
        1_237_500_000
    );
}

/// STARTUP grows the bandwidth estimate each round; once it grows less than 25% for three
/// rounds the pipe is full: DRAIN (ssthresh set to the BDP's inflight), and PROBE_BW once
/// inflight falls to one BDP. 100 segments per 10 ms round is bw = 100 · 2^24 / 10^4;
/// BDP = 100 segments; inflight target = 100 + 3 · tso_segs_goal, rounded to even.
#[test]
fn startup_drain_probe_bw() {
    let (mut b, mut tp) = bbr();
    // Doubling rounds: 20, 40, 80, 100 segments; the estimate grows ≥ 25% each time.
    for d in [20, 40, 80, 100] {
        round(&mut b, &mut tp, d, 2 * d);
        assert_eq!(b.mode, Mode::Startup);
        assert!(!b.full_bw_reached);
        assert_eq!((b.pacing_gain, b.cwnd_gain), (HIGH_GAIN, HIGH_GAIN));
    }
    // Three rounds at 100 (no growth): full after the third.
    round(&mut b, &mut tp, 100, 300);
    round(&mut b, &mut tp, 100, 300);
    assert!(!b.full_bw_reached);
    // The TSO budget in the target is taken at the pacing rate of before this ACK.
    let before = tp.clone();
    round(&mut b, &mut tp, 100, 300);
    assert!(b.full_bw_reached);
    assert_eq!(b.mode, Mode::Drain);
    assert_eq!(b.pacing_gain, DRAIN_GAIN);
    let bw = b.max_bw();
    assert_eq!(bw as u64, 100 * BW_UNIT / 10_000);
    assert_eq!(b.bdp(bw, BBR_UNIT), 100);
    assert_eq!(tp.snd_ssthresh, b.inflight(&before, bw, BBR_UNIT));
    let target = b.inflight(&tp, bw, BBR_UNIT);
    // The pacing rate at the drain gain is below the estimate: the queue drains.
    assert!(tp.sk_pacing_rate < Bbr::rate_bytes_per_sec(&tp, bw as u64, BBR_UNIT));
    // Inflight still above the target: DRAIN stays; at the target: PROBE_BW, at any
    // phase but the 3/4 one.
    round(&mut b, &mut tp, 100, target + 50);
    assert_eq!(b.mode, Mode::Drain);
    round(&mut b, &mut tp, 100, target);
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_ne!(b.cycle_idx, 1);
    assert_eq!(b.cwnd_gain, CWND_GAIN);
    assert_eq!(b.pacing_gain, PACING_GAIN[b.cycle_idx as usize]);
}

/// PROBE_BW's cycle: a gain-1 phase lasts one min_rtt of delivery time; the 5/4 phase
/// ends once inflight reaches 1.25 BDP (or on loss), the 3/4 phase when inflight is back
/// to one BDP. A full cycle is 8 phases.
#[test]
fn probe_bw_cycles_through_eight_phases() {
    let (mut b, mut tp) = full_pipe();
    let bw = b.max_bw();
    let high = b.inflight(&tp, bw, BBR_UNIT * 5 / 4) + 10;
    let mut seen = Vec::new();
    for _ in 0..16 {
        let inflight = match b.pacing_gain {
            g if g > BBR_UNIT => high,
            g if g < BBR_UNIT => 50,
            _ => 100,
        };
        round(&mut b, &mut tp, 100, inflight);
        seen.push(b.cycle_idx);
    }
    // Each round (one min_rtt + 1 µs of delivery time... exactly one min_rtt here) moves
    // at most one phase; the 8 phases come in order.
    for w in seen.windows(2) {
        assert!(w[1] == w[0] || w[1] == (w[0] + 1) % 8, "{seen:?}");
    }
    let mut distinct = seen.clone();
    distinct.dedup();
    assert!(distinct.len() >= 8, "a full cycle in 16 rounds: {seen:?}");
}

/// Rounds until the pipe is full and BBR is in PROBE_BW at 100 segments per 10 ms.
fn full_pipe() -> (Bbr, TcpCcState) {
    let (mut b, mut tp) = bbr();
    for d in [20, 40, 80, 100, 100, 100, 100] {
        round(&mut b, &mut tp, d, 2 * d);
    }
    let target = b.inflight(&tp, b.max_bw(), BBR_UNIT);
    round(&mut b, &mut tp, 100, target);
    assert_eq!(b.mode, Mode::ProbeBw);
    (b, tp)
}

/// PROBE_RTT: 10 s (HZ = 1000: 10,000 jiffies) without a min_rtt sample at or below the
/// estimate, then cwnd is held at 4 packets; once inflight is 4 it lasts 200 ms and a
/// round; then PROBE_BW with the cwnd of before.
#[test]
fn probe_rtt_every_ten_seconds_for_200_ms_at_four_packets() {
    let (mut b, mut tp) = full_pipe();
    tp.snd_cwnd = 220;
    let cwnd_before = tp.snd_cwnd;
    let stamp = b.min_rtt_stamp;
    // RTT samples above min_rtt do not refresh it.
    let rtt_above = |b: &mut Bbr, tp: &mut TcpCcState, inflight| {
        let mut rs = round(b, tp, 100, inflight);
        rs.rtt_us = (MIN_RTT_US + 500) as i64;
        rs
    };
    while jiffies(&tp) <= stamp + 10_000 - 10 {
        rtt_above(&mut b, &mut tp, 100);
        assert_ne!(b.mode, Mode::ProbeRtt, "at {} ms", jiffies(&tp));
    }
    // Past 10 s: PROBE_RTT, cwnd capped at 4.
    let mut entered = None;
    for _ in 0..3 {
        rtt_above(&mut b, &mut tp, 100);
        if b.mode == Mode::ProbeRtt {
            entered = Some(jiffies(&tp));
            break;
        }
    }
    let entered = entered.expect("PROBE_RTT after 10 s");
    assert!(entered > stamp + 10_000 && entered <= stamp + 10_010);
    assert_eq!(tp.snd_cwnd, CWND_MIN_TARGET);
    assert_eq!((b.pacing_gain, b.cwnd_gain), (BBR_UNIT, BBR_UNIT));
    // Inflight falls to 4: the 200 ms start; 20 rounds of 10 ms later it may end.
    round(&mut b, &mut tp, 4, 4);
    let start = jiffies(&tp);
    assert_eq!(b.probe_rtt_done_stamp, start + 200);
    while b.mode == Mode::ProbeRtt {
        round(&mut b, &mut tp, 4, 4);
        assert!(jiffies(&tp) <= start + 220, "PROBE_RTT too long");
    }
    assert!(jiffies(&tp) > start + 200, "PROBE_RTT too short");
    assert_eq!(b.mode, Mode::ProbeBw);
    assert!(tp.snd_cwnd >= cwnd_before.min(b.inflight(&tp, b.max_bw(), CWND_GAIN)));
}

/// Loss: the first round of recovery is packet conservation (cwnd = inflight + acked);
/// leaving recovery restores the cwnd of before it.
#[test]
fn recovery_conserves_packets_then_restores_cwnd() {
    let (mut b, mut tp) = full_pipe();
    tp.snd_cwnd = 200;
    // `tcp_init_cwnd_reduction`: BBR leaves ssthresh (DRAIN's BDP) and saves cwnd.
    let ssthresh = tp.snd_ssthresh;
    tp.snd_ssthresh = b.ssthresh(&mut tp);
    assert_eq!(tp.snd_ssthresh, ssthresh);
    assert_eq!(b.prior_cwnd, 200);
    tp.ca_state = CaState::Recovery;
    round(&mut b, &mut tp, 10, 150);
    assert_eq!(tp.snd_cwnd, 160, "inflight 150 + 10 acked");
    tp.ca_state = CaState::Open;
    round(&mut b, &mut tp, 100, 150);
    assert!(tp.snd_cwnd >= 200, "restored: {}", tp.snd_cwnd);
}
