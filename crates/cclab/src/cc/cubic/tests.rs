//! Unit tests of the CUBIC port (`cc/cubic.rs`, Linux `net/ipv4/tcp_cubic.c`): `cubic_root`
//! against `cbrt`, K and ssthresh after a reduction, the W(t) trajectory against the RFC
//! 9438 curve, the Reno-friendly region and Linux's `ack_cnt` loop, HyStart's delay and
//! ACK-train detection, and the state and TX_START events.

use super::*;
use crate::cc::PacingStatus;
use crate::engine::{MS, SEC, US};

fn ack(rtt_us: i64) -> AckSample {
    AckSample {
        pkts_acked: 1,
        rtt_us,
        in_flight: 0,
        ..Default::default()
    }
}

/// Linux's table + one Newton step against f64 `cbrt`. The result is an integer, so for
/// small `a` the error is the truncation (< 1 absolute). Tolerances (all verified):
/// exact at the perfect cubes k³ for k = 1..=344 (Linux's first inexact cube is 345³);
/// |error| < 1 for every a < 2^21; relative error < 1% for a ≥ 2^21; and over the inputs
/// CUBIC actually uses, a = cube_factor·(W_max − cwnd) ≥ 2.68e9, max relative error < 0.2%
/// and mean < 0.1% (Linux quotes an average of 0.195%).
#[test]
fn cubic_root_matches_cbrt() {
    for k in 1..=344u64 {
        assert_eq!(cubic_root(k * k * k), k as u32, "cube of {k}");
    }
    assert_ne!(cubic_root(345 * 345 * 345), 345);
    for a in 0..(1u64 << 21) {
        let err = cubic_root(a) as f64 - (a as f64).cbrt();
        assert!(err.abs() < 1.0, "cubic_root({a}) = {}", cubic_root(a));
    }
    let sweep = |from: f64, step: f64| {
        let (mut max_rel, mut sum, mut n) = (0.0f64, 0.0, 0);
        let mut a = from;
        while a < (1u64 << 62) as f64 {
            let exact = (a as u64 as f64).cbrt();
            let rel = (cubic_root(a as u64) as f64 - exact).abs() / exact;
            max_rel = max_rel.max(rel);
            sum += rel;
            n += 1;
            a *= step;
        }
        (max_rel, sum / n as f64)
    };
    let (max_rel, _) = sweep((1u64 << 21) as f64, 1.001);
    assert!(max_rel < 0.01, "max relative error {max_rel} for a >= 2^21");
    let (max_rel, mean) = sweep(cube_factor(BIC_SCALE) as f64, 1.0001);
    assert!(
        max_rel < 0.002,
        "max relative error {max_rel} in CUBIC's domain"
    );
    assert!(mean < 0.001, "mean relative error {mean} in CUBIC's domain");
}

/// CUB-1: K = cbrt(W_max (1 - beta) / C) after a beta reduction; bic_K is in 1/1024 s.
/// Tolerance ±1% (docs/references.md §3.5).
#[test]
fn cub1_bic_k_after_beta_reduction() {
    for (w_max, k_expected) in [
        (100u32, 4.217),
        (1000, 9.086),
        (8333, 18.42),
        (83333, 39.69),
    ] {
        let (k, c) = k_after_loss(Cubic::default(), w_max);
        assert!(
            (k - k_expected).abs() / k_expected < 0.01,
            "W_max {w_max}: K = {k} s, expected {k_expected} s"
        );
        assert_eq!(c.bic_origin_point, w_max);
    }
}

/// K in seconds (`bic_K` is in 1/1024 s) after `c` cuts a window of `w_max` and then
/// takes one ACK in congestion avoidance; and `c` then.
fn k_after_loss(mut c: Cubic, w_max: u32) -> (f64, Cubic) {
    let mut tp = TcpCcState::new(1448, 10, 10);
    c.init(&mut tp);
    tp.now = SEC;
    tp.snd_cwnd = w_max;
    let ss = c.ssthresh(&mut tp);
    assert_eq!(c.last_max_cwnd, w_max);
    tp.snd_cwnd = ss;
    tp.snd_ssthresh = ss;
    c.cong_avoid(&mut tp, 1);
    (c.bic_K as f64 / 1024.0, c)
}

/// ssthresh = max(cwnd * 717 / 1024, 2) and fast convergence (exact integer results).
#[test]
fn ssthresh_and_fast_convergence() {
    let mut tp = TcpCcState::new(1448, 10, 10);
    let mut c = Cubic::default();
    c.init(&mut tp);
    tp.snd_cwnd = 1000;
    assert_eq!(c.ssthresh(&mut tp), 700);
    assert_eq!(c.last_max_cwnd, 1000);
    // A second loss below W_max: W_max = cwnd * (1024 + 717) / 2048.
    tp.snd_cwnd = 900;
    assert_eq!(c.ssthresh(&mut tp), 630);
    assert_eq!(c.last_max_cwnd, 900 * 1741 / 2048);
    assert_eq!(c.last_max_cwnd, 765);
    // Without fast convergence, W_max = cwnd.
    c.fast_convergence = false;
    tp.snd_cwnd = 700;
    c.ssthresh(&mut tp);
    assert_eq!(c.last_max_cwnd, 700);
    // Floor of 2.
    tp.snd_cwnd = 2;
    assert_eq!(c.ssthresh(&mut tp), 2);
    assert_eq!(c.epoch_start, 0);
}

/// Drive `rtts` round trips of one-segment ACKs with constant RTT `rtt`: each window of
/// cwnd ACKs is spread evenly over one RTT. Returns (time since start in s, cwnd) after
/// every RTT.
fn drive(c: &mut Cubic, tp: &mut TcpCcState, rtt: u64, rtts: usize) -> Vec<(f64, u32)> {
    let t0 = tp.now;
    let mut out = Vec::new();
    for _ in 0..rtts {
        let w = tp.snd_cwnd as u64;
        for i in 0..w {
            // Even spacing without cumulative rounding error.
            tp.now += rtt * (i + 1) / w - rtt * i / w;
            c.pkts_acked(tp, &ack((rtt / US) as i64));
            c.cong_avoid(tp, 1);
        }
        out.push(((tp.now - t0) as f64 / SEC as f64, tp.snd_cwnd));
    }
    out
}

/// Start CA at 0.7 W_max after one loss at W_max; set up delay_min.
fn after_loss(w_max: u32, rtt: u64) -> (Cubic, TcpCcState) {
    let mut tp = TcpCcState::new(1448, 10, u32::MAX);
    let mut c = Cubic::default();
    c.init(&mut tp);
    tp.now = SEC;
    tp.srtt_us = ((rtt / US) as u32) << 3;
    c.pkts_acked(&mut tp, &ack((rtt / US) as i64));
    assert_eq!(c.delay_min as u64, rtt / US);
    tp.snd_cwnd = w_max;
    let ss = c.ssthresh(&mut tp);
    tp.snd_ssthresh = ss;
    tp.snd_cwnd = ss;
    tp.snd_cwnd_cnt = 0;
    (c, tp)
}

/// Continuous RFC 9438 curve with Linux's C = 410/1024 and beta = 717/1024.
fn w_cubic(w_max: f64, t: f64) -> f64 {
    let c = 410.0 / 1024.0;
    let k = (w_max * (1.0 - 717.0 / 1024.0) / c).cbrt();
    c * (t - k).powi(3) + w_max
}

/// CUB-2 analogue at W_max = 1000, RTT 100 ms: K = 9.086 s. Tolerances:
/// - after every RTT, cwnd is within 3 segments (observed 1.4) of the continuous curve
///   W(t): cwnd follows the target W(t + RTT) with ~1 RTT of lag, and Linux's
///   `t += delay_min` cancels it (without it the error would be ~10 segments early on);
/// - cwnd at K/2 is in [0.9, 1.0]·W_max (concave part), growth slows before K and
///   speeds up after it;
/// - integer cwnd sits on W_max while |W(t) − W_max| < 1 segment, i.e. for
///   |t − K| < cbrt(1/C) = 1.357 s: it must reach W_max at K − 1.357 ± 0.3 s, pass it
///   (W_max + 1) at K + 1.357 ± 0.3 s, and the plateau's midpoint must be K ± 0.3 s.
#[test]
fn trajectory_concave_then_convex_reaches_wmax_at_k() {
    let rtt = 100 * MS;
    let (mut c, mut tp) = after_loss(1000, rtt);
    assert_eq!(tp.snd_cwnd, 700);
    let traj = drive(&mut c, &mut tp, rtt, 150);
    let k = c.bic_K as f64 / 1024.0;
    assert!((k - 9.086).abs() < 0.05, "K = {k}");

    for &(t, w) in &traj {
        let expect = w_cubic(1000.0, t);
        assert!(
            (w as f64 - expect).abs() <= 3.0,
            "t = {t:.2} s: cwnd {w}, curve {expect:.1}"
        );
    }
    let at = |x: f64| traj.iter().find(|p| p.0 >= x).unwrap().1;
    let half = at(k / 2.0);
    assert!((900..=1000).contains(&half), "cwnd at K/2 = {half}");
    // Concave: growth slows down approaching W_max.
    assert!(at(1.0) - at(0.0) > at(k - 2.0) - at(k - 3.0));
    // Convex beyond K: growth speeds up again.
    assert!(at(k + 5.0) - at(k + 4.0) > at(k + 3.0) - at(k + 2.0));

    let reach = traj.iter().find(|p| p.1 >= 1000).unwrap().0;
    let leave = traj.iter().find(|p| p.1 > 1000).unwrap().0;
    let plateau = (1.0f64 / (410.0 / 1024.0)).cbrt();
    assert!(
        (reach - (k - plateau)).abs() <= 0.3,
        "reached W_max at {reach:.2} s"
    );
    assert!(
        (leave - (k + plateau)).abs() <= 0.3,
        "left W_max at {leave:.2} s"
    );
    let mid = (reach + leave) / 2.0;
    assert!(
        (mid - k).abs() <= 0.3,
        "plateau midpoint {mid:.2} s, K {k:.2} s"
    );
}

/// Reno-friendly region: RTT 1 ms, W_max = 20 (K = 2.47 s, so the cubic curve alone
/// would add < 6 segments in 300 RTTs). Linux's estimate grows 1 segment per
/// `cwnd * beta_scale / 8` = 1.875 cwnd ACKs, i.e. alpha_cubic = 8/15 ≈ 0.53 segment per
/// RTT (RFC 9438 §4.3 α_cubic = 0.529; Linux never switches α to 1). Tolerance: the rate
/// over 300 RTTs is within ±15% of 8/15, and far above the cubic curve's growth.
#[test]
fn reno_friendly_region_at_small_rtt() {
    let rtt = MS;
    let (mut c, mut tp) = after_loss(20, rtt);
    assert_eq!(tp.snd_cwnd, 14);
    let traj = drive(&mut c, &mut tp, rtt, 300);
    let grown = traj.last().unwrap().1 as f64 - 14.0;
    let rate = grown / 300.0;
    assert!(
        (rate - 8.0 / 15.0).abs() <= 0.15 * 8.0 / 15.0,
        "growth {rate:.3} segment/RTT"
    );
    let cubic_only = w_cubic(20.0, 0.3 + 0.001) - 14.0;
    assert!(grown > 10.0 * cubic_only.max(1.0), "grown {grown}");
    // Linux switches off the Reno estimate with tcp_friendliness = 0.
    let (mut c, mut tp) = after_loss(20, rtt);
    c.tcp_friendliness = false;
    let traj = drive(&mut c, &mut tp, rtt, 300);
    assert!(traj.last().unwrap().1 <= 20);
}

/// Set up slow start with delay_min = 100 ms, then start a new round at cwnd 32.
fn slow_start_round(hystart: bool) -> (Cubic, TcpCcState) {
    let mut tp = TcpCcState::new(1448, 10, u32::MAX);
    let mut c = Cubic {
        hystart,
        ..Cubic::default()
    };
    tp.now = SEC;
    c.init(&mut tp);
    tp.snd_nxt = 10 * 1448;
    for _ in 0..10 {
        tp.now += 10 * US;
        c.pkts_acked(&mut tp, &ack(100_000));
    }
    assert_eq!(c.delay_min, 100_000);
    assert_eq!(c.sample_cnt, 0, "below hystart_low_window: no samples");
    // Next round: everything from the first round acked, window of 32 in flight.
    tp.snd_una = 10 * 1448;
    tp.snd_cwnd = 32;
    tp.snd_nxt = tp.snd_una + 32 * 1448;
    (c, tp)
}

/// HyStart delay detection. Threshold = delay_min + clamp(delay_min / 8, 4 ms, 16 ms)
/// = 112.5 ms. Linux counts HYSTART_MIN_SAMPLES = 8 samples and tests on the next one,
/// so the 9th sample of the round exits slow start (ssthresh = cwnd). Exact: 112_500 µs
/// does not trigger, 112_501 µs does; hystart = false never triggers.
#[test]
fn hystart_delay_detection() {
    let (mut c, mut tp) = slow_start_round(true);
    for i in 1..=9 {
        tp.now += 100 * US; // ACKs 0.1 ms apart: far from the 50 ms ACK-train threshold
        c.pkts_acked(&mut tp, &ack(112_501));
        if i == 1 {
            assert_eq!(c.end_seq, tp.snd_nxt, "new round started");
        }
        if i < 9 {
            assert_eq!(tp.snd_ssthresh, u32::MAX, "sample {i}");
            assert!(!c.found);
        }
    }
    assert!(c.found);
    assert_eq!(tp.snd_ssthresh, 32);
    assert!(!tp.in_slow_start());

    // At exactly the threshold: no exit.
    let (mut c, mut tp) = slow_start_round(true);
    for _ in 0..20 {
        tp.now += 100 * US;
        c.pkts_acked(&mut tp, &ack(112_500));
    }
    assert!(!c.found);
    assert_eq!(tp.snd_ssthresh, u32::MAX);

    // HyStart off: nothing happens.
    let (mut c, mut tp) = slow_start_round(false);
    for _ in 0..20 {
        tp.now += 100 * US;
        c.pkts_acked(&mut tp, &ack(200_000));
    }
    assert!(!c.found);
    assert_eq!(tp.snd_ssthresh, u32::MAX);
}

/// Where HyStart's round starts. v6.6 (`hystart_round_fix` off): `cubictcp_acked` calls
/// `hystart_update` only once cwnd ≥ `hystart_low_window` (16), so below it the round of
/// `cubictcp_init` (end_seq = snd_nxt then) stays, and the first ACK at cwnd 16 starts a
/// new one. After 25c1a9ca53db (on): every ACK past end_seq starts a round, below 16 too,
/// and only the detection waits for cwnd 16, so the round begun at cwnd 10 is still running
/// at cwnd 16 and the next round starts one ACK later.
#[test]
fn hystart_round_starts_at_the_low_window_in_v6_6_and_below_it_after_the_fix() {
    let seg = 1448u64;
    for fix in [false, true] {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut c = Cubic {
            hystart_round_fix: fix,
            ..Cubic::default()
        };
        tp.now = SEC;
        c.init(&mut tp);
        assert_eq!((c.end_seq, c.round_start), (0, 1_000_000));
        // cwnd 10, 10 segments out, 2 acked.
        tp.snd_nxt = 10 * seg;
        tp.snd_una = 2 * seg;
        tp.now += 100 * MS;
        c.pkts_acked(&mut tp, &ack(100_000));
        let (end, start) = if fix {
            (10 * seg, 1_100_000)
        } else {
            (0, 1_000_000)
        };
        assert_eq!(
            (c.end_seq, c.round_start, c.sample_cnt),
            (end, start, 0),
            "fix {fix}"
        );
        // cwnd 16, 20 segments out, 4 acked: HyStart counts its first sample in both; v6.6
        // starts a round here (4 > 0), the fix stays in the one begun at cwnd 10.
        tp.snd_cwnd = 16;
        tp.snd_nxt = 20 * seg;
        tp.snd_una = 4 * seg;
        tp.now += 10 * MS;
        c.pkts_acked(&mut tp, &ack(100_000));
        let (end, start) = if fix {
            (10 * seg, 1_100_000)
        } else {
            (20 * seg, 1_110_000)
        };
        assert_eq!(
            (c.end_seq, c.round_start, c.sample_cnt),
            (end, start, 1),
            "fix {fix}"
        );
        // 12 acked: past the fix's round (10), not past v6.6's (20).
        tp.snd_cwnd = 20;
        tp.snd_nxt = 28 * seg;
        tp.snd_una = 12 * seg;
        tp.now += 10 * MS;
        c.pkts_acked(&mut tp, &ack(100_000));
        let (end, start, n) = if fix {
            (28 * seg, 1_120_000, 1)
        } else {
            (20 * seg, 1_110_000, 2)
        };
        assert_eq!(
            (c.end_seq, c.round_start, c.sample_cnt),
            (end, start, n),
            "fix {fix}"
        );
        assert!(!c.found);
    }
}

/// HyStart ACK-train detection: ACKs ≤ 2 ms apart and more than delay_min / 2 = 50 ms
/// after the round start (no pacing) → exit. Exact: the ACK at 50 ms does not trigger,
/// the one at 51 ms does. ACKs 3 ms apart never count as a train.
#[test]
fn hystart_ack_train_detection() {
    let (mut c, mut tp) = slow_start_round(true);
    tp.now += MS;
    c.pkts_acked(&mut tp, &ack(100_000)); // starts the round
    let start = c.round_start;
    assert_eq!(start, tp.now_us());
    for ms in 1..=50 {
        tp.now += MS;
        c.pkts_acked(&mut tp, &ack(100_000));
        assert!(!c.found, "at {ms} ms");
    }
    tp.now += MS;
    c.pkts_acked(&mut tp, &ack(100_000));
    assert!(c.found);
    assert_eq!(tp.snd_ssthresh, 32);

    let (mut c, mut tp) = slow_start_round(true);
    for _ in 0..100 {
        tp.now += 3 * MS;
        c.pkts_acked(&mut tp, &ack(100_000));
    }
    assert!(!c.found);
    assert_eq!(tp.snd_ssthresh, u32::MAX);
}

/// Slow start below ssthresh is Reno's; the leftover of the crossing ACK feeds CUBIC;
/// no growth when not cwnd-limited.
#[test]
fn slow_start_and_cwnd_limited() {
    let mut tp = TcpCcState::new(1448, 10, 12);
    let mut c = Cubic::default();
    c.init(&mut tp);
    tp.now = SEC;
    c.cong_avoid(&mut tp, 1);
    assert_eq!(tp.snd_cwnd, 11);
    assert_eq!(c.epoch_start, 0);
    c.cong_avoid(&mut tp, 3);
    assert_eq!(tp.snd_cwnd, 12);
    assert_ne!(c.epoch_start, 0, "leftover ACKs went to bictcp_update");
    tp.is_cwnd_limited = false;
    let before = (tp.snd_cwnd, c.ack_cnt);
    c.cong_avoid(&mut tp, 5);
    assert_eq!((tp.snd_cwnd, c.ack_cnt), before);
}

/// After an RTO (Loss) everything is reset: W_max = 0, so the first epoch has K = 0,
/// origin = cwnd, and cnt ≤ 20 (≥ 5% growth per RTT); cnt ≥ 2 always (≤ 1.5x per RTT).
#[test]
fn loss_state_resets_and_growth_caps() {
    let (mut c, mut tp) = after_loss(1000, 100 * MS);
    c.set_state(&mut tp, CaState::Loss);
    assert_eq!((c.last_max_cwnd, c.delay_min, c.epoch_start), (0, 0, 0));
    tp.snd_cwnd = 100;
    tp.snd_ssthresh = 100;
    tp.now += SEC;
    c.cong_avoid(&mut tp, 1);
    assert_eq!((c.bic_K, c.bic_origin_point), (0, 100));
    assert!(c.cnt <= 20 && c.cnt >= 2, "cnt {}", c.cnt);
    // Far beyond K the cubic target explodes, but cnt stays ≥ 2.
    tp.now += 100 * SEC;
    tp.snd_cwnd += 1;
    c.cong_avoid(&mut tp, 1);
    assert_eq!(c.cnt, 2);
}

/// Reno-friendly counting is Linux's `while (ack_cnt > delta) { ack_cnt -= delta;
/// tcp_cwnd++; }` with delta = cwnd * beta_scale >> 3 (15 at cwnd 8): an exact multiple
/// of delta leaves delta credits, not 0 (exact). Also: within 1 ms of the last cnt
/// update only this part runs (`goto tcp_friendliness`).
#[test]
fn reno_friendly_counting_is_linux_loop() {
    assert_eq!(beta_scale(BETA), 15);
    for (acked, credits, tcp_cwnd) in [(15, 15, 8), (16, 1, 9), (30, 15, 9), (31, 1, 10)] {
        let mut tp = TcpCcState::new(1448, 8, 8);
        let mut c = Cubic::default();
        tp.now = 10 * SEC;
        c.epoch_start = tp.now_us() - 100_000;
        c.last_time = tp.now_us() - 500; // < 1 ms: skip the cubic part
        c.last_cwnd = 7; // cwnd changed: no early return
        c.tcp_cwnd = 8;
        c.cnt = 1000;
        c.bictcp_update(&tp, 8, acked);
        assert_eq!(
            (c.ack_cnt, c.tcp_cwnd),
            (credits, tcp_cwnd),
            "acked {acked}"
        );
        assert_eq!(c.last_cwnd, 7, "cubic part skipped");
        let want = if tcp_cwnd > 8 {
            8 / (tcp_cwnd - 8)
        } else {
            1000
        };
        assert_eq!(c.cnt, want.max(2));
    }
}

/// CA_EVENT_TX_START shifts epoch_start by the idle time (since the last send), capped
/// at now. Exact in µs for the stand-in lsndtime (ACK time − RTT sample).
#[test]
fn tx_start_shifts_epoch_by_idle_time() {
    let (mut c, mut tp) = after_loss(1000, 100 * MS);
    tp.now += 10 * MS;
    c.cong_avoid(&mut tp, 1);
    let epoch = c.epoch_start;
    // Last ACK (after the 1 s sample-discard window) for a segment sent 100 ms earlier.
    tp.now += 2 * SEC;
    c.pkts_acked(&mut tp, &ack(100_000));
    let last_send = tp.now_us() - 100_000;
    // Idle 5 s, then the application writes again.
    tp.now += 5 * SEC;
    c.cwnd_event(&mut tp, CaEvent::TxStart);
    assert_eq!(c.epoch_start, epoch + (tp.now_us() - last_send));
    // Other events are ignored.
    c.cwnd_event(&mut tp, CaEvent::CwndRestart);
    assert_eq!(c.epoch_start, epoch + (tp.now_us() - last_send));
}

/// `hystart_ack_delay`: four 64 KB skbs at the socket's pacing rate, at most 1 ms, from
/// `tcp_update_pacing_rate`'s rate, worked by hand at MSS 1448. cwnd 16 in slow start
/// (ratio 200%), srtt 25 µs: 1448 · 80,000 · 200 · 16 / 200 = 1,853,440,000 B/s, and
/// 65,536 · 4 · 10⁶ / that = 141.4 → 141 µs. Past ssthresh / 2 (ratio 120%):
/// 1,112,064,000 B/s → 235 µs. No RTT sample yet: 0. Capped at 100 Mbit/s (12.5 MB/s):
/// 20,971 µs → 1 ms.
#[test]
fn hystart_ack_delay_follows_linux() {
    let mut tp = TcpCcState::new(1448, 16, u32::MAX);
    let c = Cubic::default();
    assert_eq!(c.hystart_ack_delay(&tp), 0, "no srtt yet");
    tp.srtt_us = 25 << 3;
    tp.packets_out = 16;
    tp.update_pacing_rate();
    assert_eq!(tp.sk_pacing_rate, 1_853_440_000);
    assert_eq!(c.hystart_ack_delay(&tp), 141);
    tp.snd_ssthresh = 20;
    tp.update_pacing_rate();
    assert_eq!(c.hystart_ack_delay(&tp), 235);
    tp.sk_max_pacing_rate = 12_500_000;
    tp.update_pacing_rate();
    assert_eq!(c.hystart_ack_delay(&tp), 1000);
}

/// The ACK train's threshold is delay_min plus that cushion, halved only when nothing
/// paces the socket (Linux: `sk_pacing_status == SK_PACING_NONE`). With delay_min and
/// srtt 100 ms the cushion is the 1 ms cap (the rate, 926,720 B/s, gives 283 ms): an
/// unpaced socket exits past 50.5 ms of train (at 51 ms, not 50), a paced one past 101 ms
/// (at 102 ms, not 101).
#[test]
fn hystart_ack_train_threshold_is_not_halved_when_paced() {
    for (paced, last_quiet, exit) in [(false, 50, 51), (true, 101, 102)] {
        let (mut c, mut tp) = slow_start_round(true);
        tp.sk_pacing_status = if paced {
            PacingStatus::Needed
        } else {
            PacingStatus::None
        };
        tp.srtt_us = 100_000 << 3;
        tp.packets_out = 32;
        tp.update_pacing_rate();
        assert_eq!(c.hystart_ack_delay(&tp), 1000);
        tp.now += MS;
        c.pkts_acked(&mut tp, &ack(100_000)); // starts the round
        for ms in 1..=last_quiet {
            tp.now += MS;
            c.pkts_acked(&mut tp, &ack(100_000));
            assert!(!c.found, "paced {paced}: at {ms} ms");
        }
        for _ in last_quiet..exit {
            tp.now += MS;
            c.pkts_acked(&mut tp, &ack(100_000));
        }
        assert!(c.found, "paced {paced}: exits at {exit} ms");
    }
}

/// A CUBIC configured from its options, as a scenario's keys make it.
fn configured(set: impl FnOnce(&mut Options)) -> Cubic {
    crate::cc::configured(|o| set(&mut o.cubic))
}

/// `cubic_beta = 512`: `cubictcp_recalc_ssthresh` gives cwnd·512/1024 = cwnd/2, fast
/// convergence W_max = cwnd·(1024 + 512)/2048 = 3/4 cwnd, and `beta_scale` =
/// 8·1536/3/512 = 8, so the Reno estimate gains one segment per cwnd·8/8 = cwnd ACKs
/// (Reno's own slope, as alpha = 3(1 − β)/(1 + β) = 1 at β = 1/2). Exact.
#[test]
fn beta_option_sets_the_decrease_and_the_reno_slope() {
    let mut c = configured(|o| o.beta = 512);
    assert_eq!((c.beta, c.beta_scale), (512, 8));
    let mut tp = TcpCcState::new(1448, 10, 10);
    c.init(&mut tp);
    tp.snd_cwnd = 1000;
    assert_eq!(c.ssthresh(&mut tp), 500);
    tp.snd_cwnd = 900;
    assert_eq!(c.ssthresh(&mut tp), 450);
    assert_eq!(c.last_max_cwnd, 900 * 1536 / 2048);
    // Reno-friendly counting: delta = cwnd·beta_scale >> 3 = 8 at cwnd 8 (15 at 717).
    let mut tp = TcpCcState::new(1448, 8, 8);
    tp.now = 10 * SEC;
    c.epoch_start = tp.now_us() - 100_000;
    c.last_time = tp.now_us() - 500;
    c.last_cwnd = 7;
    c.tcp_cwnd = 8;
    c.bictcp_update(&tp, 8, 16);
    assert_eq!((c.ack_cnt, c.tcp_cwnd), (8, 9));
}

/// `bic_scale = 82` doubles C: K = cbrt((W_max − cwnd)/C) shrinks by 2^(1/3), from
/// 9.086 s to 7.212 s at W_max 1000 (cwnd 700 after the default beta). Tolerance ±1%
/// (`cubic_root`'s error, as CUB-1).
#[test]
fn bic_scale_option_sets_c() {
    for (bic_scale, k_expected) in [(41, 9.086), (82, 7.21)] {
        let (k, _) = k_after_loss(configured(|o| o.bic_scale = bic_scale), 1000);
        assert!(
            (k - k_expected).abs() / k_expected < 0.01,
            "bic_scale {bic_scale}: K = {k} s, expected {k_expected} s"
        );
    }
}

/// `n` ACKs `gap` apart, each with an RTT sample of 100 ms.
fn acks(c: &mut Cubic, tp: &mut TcpCcState, n: usize, gap: u64) {
    for _ in 0..n {
        tp.now += gap;
        c.pkts_acked(tp, &ack(100_000));
    }
}

/// `hystart_low_window = 8`: HyStart samples the delay at cwnd 10 already (16: none).
#[test]
fn hystart_low_window_option_gates_hystart() {
    for (low, samples) in [(16, 0), (8, 8)] {
        let mut c = configured(|o| o.hystart_low_window = low);
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        tp.now = SEC;
        c.init(&mut tp);
        acks(&mut c, &mut tp, 10, 10 * US);
        assert_eq!(c.sample_cnt, samples, "hystart_low_window {low}");
    }
}

/// `hystart_ack_delta_us = 4000`: ACKs 3 ms apart now make a train, which ends slow start
/// once it spans more than delay_min/2 = 50 ms (2000: never).
#[test]
fn hystart_ack_delta_option_widens_the_train() {
    for (delta, found) in [(2000, false), (4000, true)] {
        let (mut c, mut tp) = slow_start_round(true);
        c.hystart_detect = HYSTART_ACK_TRAIN;
        c.hystart_ack_delta_us = delta;
        acks(&mut c, &mut tp, 30, 3 * MS);
        assert_eq!(c.found, found, "hystart_ack_delta_us {delta}");
    }
}

/// `cubic_initial_ssthresh = 50` sets ssthresh at init only with HyStart off (Linux:
/// `if (!hystart && initial_ssthresh)`).
#[test]
fn initial_ssthresh_option_applies_without_hystart() {
    for (hystart, ssthresh) in [(true, u32::MAX), (false, 50)] {
        let mut c = configured(|o| {
            o.initial_ssthresh = 50;
            o.hystart = hystart;
        });
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        c.init(&mut tp);
        assert_eq!(tp.snd_ssthresh, ssthresh);
    }
}
