use super::*;
use crate::engine::{MS, SEC, US};

fn sample(rtt_us: i64) -> AckSample {
    AckSample {
        pkts_acked: 1,
        rtt_us,
        in_flight: 0,
        ..Default::default()
    }
}

/// The paper's α(Δ) in floating point, Δ in seconds (Δ_L = 1 s).
fn alpha_paper(delta: f64) -> f64 {
    if delta <= 1.0 {
        1.0
    } else {
        1.0 + 10.0 * (delta - 1.0) + ((delta - 1.0) / 2.0).powi(2)
    }
}

/// HT-1: α(Δ) = 1 + 10(Δ−1) + ((Δ−1)/2)² → 11.25, 22, 45, 111.25 at Δ = 2, 3, 5, 10 s.
/// Linux keeps `factor` an integer (floor of α), so alpha = 2·factor·(128 − beta) in Q7
/// equals 2·⌊α(Δ)⌋·(1 − beta)·128: exact for 22 and 45, 0.25 below for 11.25 and 111.25.
/// Same with RTT scaling on and minRTT = 100 ms (scale = 8, i.e. 1.0).
#[test]
fn ht1_alpha_of_delta_matches_paper_within_integer_rounding() {
    for (delta_s, want, factor) in [
        (2u64, 11.25, 11u32),
        (3, 22.0, 22),
        (5, 45.0, 45),
        (10, 111.25, 111),
    ] {
        assert_eq!(alpha_paper(delta_s as f64), want);
        for rtt_scaling in [false, true] {
            let mut h = Htcp {
                opt: Options {
                    use_rtt_scaling: rtt_scaling,
                    ..Options::default()
                },
                minRTT: 100_000,
                ..Htcp::default()
            };
            h.htcp_alpha_update(delta_s * 1_000_000);
            // beta = 0.5: alpha = 2·factor·64 = 128·factor, i.e. factor segments per RTT.
            assert_eq!(
                h.alpha,
                128 * factor,
                "Δ = {delta_s} s, scaling {rtt_scaling}"
            );
            let paper_q7 = 2.0 * want * (1.0 - 0.5) * 128.0;
            assert!((paper_q7 - h.alpha as f64).abs() <= 0.25 * 128.0);
        }
    }
    // Δ ≤ 1 s: factor 1, Reno-like.
    let mut h = Htcp::default();
    h.htcp_alpha_update(500_000);
    assert_eq!(h.alpha, 128);
    // beta = BETA_MAX: alpha = 2·22·26 = 1144 (≈ 2·22·(1 − 0.8)·128 = 1126).
    let mut h = Htcp {
        beta: BETA_MAX,
        minRTT: 100_000,
        ..Htcp::default()
    };
    h.htcp_alpha_update(3_000_000);
    assert_eq!(h.alpha, 1144);
}

/// §8.7: RTT scaling multiplies the factor by minRTT/100 ms, clamped to [0.1, 2]:
/// scale = (HZ<<3)/(10·minRTT) clamped to [4, 80]; factor = (factor<<3)/scale.
#[test]
fn rtt_scaling_by_min_rtt_over_100ms_clamped() {
    let alpha_at = |min_rtt_us: u32, scaling: bool| {
        let mut h = Htcp {
            opt: Options {
                use_rtt_scaling: scaling,
                ..Options::default()
            },
            minRTT: min_rtt_us,
            ..Htcp::default()
        };
        h.htcp_alpha_update(5_000_000); // Δ = 5 s: factor 45
        h.alpha / 128
    };
    assert_eq!(alpha_at(100_000, true), 45);
    assert_eq!(alpha_at(200_000, true), 90); // scale 4: ×2
    assert_eq!(alpha_at(400_000, true), 90); // clamped at ×2
    assert_eq!(alpha_at(50_000, true), 22); // scale 16: 360/16 = 22
    assert_eq!(alpha_at(10_000, true), 4); // scale 80: 360/80 = 4 (×0.1)
    assert_eq!(alpha_at(1_000, true), 4); // clamped at ×0.1
    assert_eq!(alpha_at(1_000, false), 45);
    // Factor 1 at ×0.1 would be 0: Linux raises it back to 1.
    let mut h = Htcp {
        minRTT: 5_000,
        ..Htcp::default()
    };
    h.htcp_alpha_update(0);
    assert_eq!(h.alpha, 128);
}

/// HT-3: beta = minRTT/maxRTT clamped to [0.5, 0.8]: buffer = BDP (max = 2·min) → 0.5;
/// max = 1.1·min → 0.909, clamped to BETA_MAX = 102/128 = 0.797 (≈ 0.8 ± 0.02).
#[test]
fn ht3_beta_is_rtt_ratio_clamped() {
    let beta_for = |min: u32, max: u32| {
        let mut h = Htcp {
            modeswitch: true,
            ..Htcp::default()
        };
        h.htcp_beta_update(min, max);
        assert!(h.modeswitch);
        h.beta
    };
    assert_eq!(beta_for(100_000, 200_000), 64);
    assert_eq!(beta_for(100_000, 110_000), BETA_MAX);
    assert!((BETA_MAX as f64 / 128.0 - 0.8).abs() < 0.02);
    // 12 800 000 / 150 000 = 85; 12 800 000 / 400 000 = 32, clamped up to 64.
    assert_eq!(beta_for(100_000, 150_000), 85);
    assert_eq!(beta_for(100_000, 400_000), BETA_MIN);

    // First congestion event: modeswitch is off, so beta stays 0.5 and the switch arms.
    let mut h = Htcp::default();
    h.htcp_beta_update(100_000, 110_000);
    assert_eq!((h.beta, h.modeswitch), (BETA_MIN, true));
    h.htcp_beta_update(100_000, 110_000);
    assert_eq!(h.beta, BETA_MAX);
}

/// HT-4 (Linux only): minRTT ≤ 10 ms keeps beta = 0.5 whatever maxRTT.
#[test]
fn ht4_beta_stays_half_when_min_rtt_at_most_10ms() {
    for min in [5_000, 10_000] {
        let mut h = Htcp {
            modeswitch: true,
            ..Htcp::default()
        };
        h.htcp_beta_update(min, min + 500);
        assert_eq!(h.beta, BETA_MIN, "minRTT {min} µs");
    }
    let mut h = Htcp {
        modeswitch: true,
        ..Htcp::default()
    };
    h.htcp_beta_update(10_001, 15_000);
    assert_eq!(h.beta, 85); // (10 001 << 7) / 15 000
}

/// Bandwidth switch: beta falls back to 0.5 (and modeswitch off) unless 5·maxB lies in
/// [4·old_maxB, 6·old_maxB], i.e. the max throughput changed by at most ±20 %.
#[test]
fn bandwidth_switch_resets_beta_on_throughput_change() {
    for (old, new, adapt) in [
        (1000, 1000, true),
        (1000, 1200, true),
        (1000, 800, true),
        (1000, 1201, false),
        (1000, 799, false),
    ] {
        let mut h = Htcp {
            modeswitch: true,
            old_maxB: old,
            maxB: new,
            ..Htcp::default()
        };
        h.htcp_beta_update(100_000, 110_000);
        assert_eq!(h.old_maxB, new);
        if adapt {
            assert_eq!((h.beta, h.modeswitch), (BETA_MAX, true), "{old} → {new}");
        } else {
            assert_eq!((h.beta, h.modeswitch), (BETA_MIN, false), "{old} → {new}");
        }
    }
}

/// `measure_rtt`: minRTT is the minimum; maxRTT follows samples in CA_Open only, and only
/// those at most 20 ms above it; each congestion event fades maxRTT to
/// minRTT + 0.95·(maxRTT − minRTT).
#[test]
fn max_rtt_ignores_jumps_over_20ms_and_fades() {
    let mut tp = TcpCcState::new(1448, 10, u32::MAX);
    let mut h = Htcp {
        opt: Options {
            use_bandwidth_switch: false,
            ..Options::default()
        },
        ..Htcp::default()
    };
    h.init(&mut tp);
    for (rtt_ms, min, max) in [
        (100, 100, 100),
        (150, 100, 100), // +50 ms: a spike, ignored
        (115, 100, 115),
        (135, 100, 135),
        (160, 100, 135), // +25 ms: ignored
        (155, 100, 155), // +20 ms: taken
        (90, 90, 155),
    ] {
        h.pkts_acked(&mut tp, &sample(rtt_ms * 1000));
        assert_eq!(
            (h.minRTT, h.maxRTT),
            (min * 1000, max * 1000),
            "{rtt_ms} ms"
        );
    }
    tp.ca_state = CaState::Recovery;
    h.pkts_acked(&mut tp, &sample(160_000));
    assert_eq!(h.maxRTT, 155_000, "not raised outside CA_Open");
    h.pkts_acked(&mut tp, &sample(-1));
    assert_eq!(h.minRTT, 90_000);
    // Congestion event: beta = 0.5 (first event), then maxRTT = 90 + 0.95·65 = 151.75 ms.
    tp.snd_cwnd = 100;
    assert_eq!(h.ssthresh(&mut tp), 50);
    assert_eq!(h.maxRTT, 151_750);
    // Second event: beta = 90/151.75 → (90 000 << 7)/151 750 = 75.
    assert_eq!(h.ssthresh(&mut tp), 58); // 100·75 >> 7
    assert_eq!(h.beta, 75);
}

/// ssthresh = max(cwnd·beta >> 7, 2).
#[test]
fn ssthresh_is_cwnd_times_beta() {
    let mut tp = TcpCcState::new(1448, 1000, u32::MAX);
    tp.now = 2 * SEC;
    let mut h = Htcp {
        opt: Options {
            use_bandwidth_switch: false,
            ..Options::default()
        },
        modeswitch: true,
        minRTT: 100_000,
        maxRTT: 110_000,
        ..Htcp::default()
    };
    assert_eq!(h.ssthresh(&mut tp), 796); // 1000·102 >> 7 = 796.875
    h.minRTT = 5_000;
    assert_eq!(h.ssthresh(&mut tp), 500);
    tp.snd_cwnd = 3;
    assert_eq!(h.ssthresh(&mut tp), 2);
}

/// Growth per RTT ≈ alpha. Linux's rule `(snd_cwnd_cnt·alpha)>>7 >= snd_cwnd` needs
/// cnt = ⌈cwnd·128/alpha⌉ credited ACKs plus the ACK that performs the increment (which
/// credits nothing), so one window of W ACKs adds ⌊W/(⌈W/α⌉ + 1)⌋ ≈ α·W/(W + α).
/// Δ = 3 s, beta 0.5, minRTT 100 ms → α = 22: at cwnd 1000..=1012 cnt 46 suffices
/// (46·22 = 1012), i.e. 47 ACKs per increment: 13 increments in 611 ACKs; from 1013 on
/// cnt 47, 48 ACKs each: 8 more in 384 ACKs, 5 credits left. 21 per RTT for α = 22.
#[test]
fn growth_per_rtt_is_alpha() {
    let mut tp = TcpCcState::new(1448, 1000, 500);
    let mut h = Htcp::default();
    h.init(&mut tp);
    h.minRTT = 100_000;
    tp.now = 3 * SEC;
    h.htcp_alpha_update(tp.now_us());
    assert_eq!(h.alpha, 22 * 128);
    for _ in 0..1000 {
        h.pkts_acked(&mut tp, &sample(100_000));
        h.cong_avoid(&mut tp, 1);
    }
    assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (1021, 5));

    // Δ < 1 s: α = 1, Reno-like: one increment per W + 1 ACKs.
    let mut tp = TcpCcState::new(1448, 100, 50);
    let mut h = Htcp::default();
    h.init(&mut tp);
    for _ in 0..100 {
        h.cong_avoid(&mut tp, 1);
    }
    assert_eq!(tp.snd_cwnd, 100);
    h.cong_avoid(&mut tp, 1);
    assert_eq!(tp.snd_cwnd, 101);
}

/// `snd_cwnd_cnt` is credited with the segments of the last CA_Open ACK (`ca->pkts_acked`),
/// not with `acked`; slow start uses `acked`.
#[test]
fn credits_come_from_pkts_acked_and_slow_start_uses_acked() {
    let mut tp = TcpCcState::new(1448, 10, 20);
    let mut h = Htcp::default();
    h.init(&mut tp);
    h.cong_avoid(&mut tp, 4);
    assert_eq!(tp.snd_cwnd, 14);
    tp.snd_cwnd = 20;
    let two = AckSample {
        pkts_acked: 2,
        rtt_us: 50_000,
        in_flight: 20,
        ..Default::default()
    };
    h.pkts_acked(&mut tp, &two);
    h.cong_avoid(&mut tp, 2);
    assert_eq!(tp.snd_cwnd_cnt, 2);
    h.cong_avoid(&mut tp, 2); // no new pkts_acked: the credit is 1
    assert_eq!(tp.snd_cwnd_cnt, 3);
    tp.is_cwnd_limited = false;
    h.cong_avoid(&mut tp, 2);
    assert_eq!(tp.snd_cwnd_cnt, 3);
}

/// Δ is measured from the end of the last congestion episode: entering Recovery stamps
/// last_cong (keeping the old value for undo), returning to Open re-stamps it; undo
/// restores last_cong, maxRTT and old_maxB and returns max(cwnd, prior_cwnd).
#[test]
fn state_changes_stamp_last_cong_and_undo_restores() {
    let mut tp = TcpCcState::new(1448, 10, u32::MAX);
    let mut h = Htcp::default();
    tp.now = SEC;
    h.init(&mut tp);
    assert_eq!(h.last_cong, 1_000_000);
    h.maxRTT = 120_000;
    h.old_maxB = 7;
    tp.now = 5 * SEC;
    h.set_state(&mut tp, CaState::Recovery);
    assert_eq!(
        (h.last_cong, h.undo_last_cong),
        (5_000_000, Some(1_000_000))
    );
    h.maxRTT = 110_000;
    h.old_maxB = 9;
    tp.now = 5 * SEC + 200 * MS;
    h.set_state(&mut tp, CaState::Open);
    assert_eq!((h.last_cong, h.undo_last_cong), (5_200_000, None));
    // Open again without an episode: no re-stamp.
    tp.now = 6 * SEC;
    h.set_state(&mut tp, CaState::Open);
    assert_eq!(h.last_cong, 5_200_000);

    // A spurious episode: undo.
    tp.now = 9 * SEC;
    h.set_state(&mut tp, CaState::Loss);
    h.maxRTT = 1;
    h.old_maxB = 1;
    tp.snd_cwnd = 1;
    tp.prior_cwnd = 40;
    assert_eq!(h.undo_cwnd(&mut tp), 40);
    assert_eq!((h.last_cong, h.maxRTT, h.old_maxB), (5_200_000, 110_000, 9));
    assert_eq!(h.undo_last_cong, None);
}

/// Throughput estimate (packets/s): measured once per ≥ minRTT after ≥ cwnd − α ACKed
/// segments; within 3 minRTTs of a congestion event it restarts (minB = maxB = Bi).
#[test]
fn achieved_throughput_estimate() {
    let mut tp = TcpCcState::new(1448, 100, 50);
    let mut h = Htcp::default();
    h.init(&mut tp);
    // 100 ACKs of one segment over 100 ms at minRTT 100 ms: 1000 packets/s.
    for i in 1..=100u64 {
        tp.now = i * MS;
        h.pkts_acked(&mut tp, &sample(100_000));
    }
    assert_eq!((h.Bi, h.maxB, h.minB, h.packetcount), (1000, 1000, 1000, 0));
    // 10 minRTTs after the congestion event: EWMA Bi = (3·Bi + cur)/4, maxB follows.
    tp.now = SEC;
    h.lasttime = 900_000;
    h.packetcount = 199;
    h.pkts_acked(&mut tp, &sample(100_000)); // 200 packets in 100 ms: 2000/s
    assert_eq!((h.Bi, h.maxB, h.minB), (1250, 1250, 1000));
    // "Just after backoff" means htcp_ccount ≤ 3 whole minRTTs since last_cong.
    for (now_us, want) in [
        (399_999u64, (1000, 1000, 1000)),
        (400_000, (4000, 5000, 1000)),
    ] {
        tp.now = now_us * US;
        (h.last_cong, h.lasttime, h.packetcount) = (0, now_us - 100_000, 99);
        (h.Bi, h.maxB, h.minB) = (5000, 5000, 1000);
        h.pkts_acked(&mut tp, &sample(100_000)); // 100 packets in 100 ms: 1000/s
        assert_eq!((h.Bi, h.maxB, h.minB), want, "at {now_us} µs");
    }
    // Outside Open/Disorder the count restarts.
    tp.ca_state = CaState::Recovery;
    h.pkts_acked(&mut tp, &sample(100_000));
    assert_eq!((h.packetcount, h.lasttime), (0, 400_000));
}

/// The keys reach the instance: `use_rtt_scaling = false` leaves alpha unscaled at
/// minRTT 10 ms (factor 45 at Δ = 5 s; scaled ×0.1: 4), and `use_bandwidth_switch =
/// false` lets beta adapt though the max throughput doubled (on: back to 0.5). Exact.
#[test]
fn options_reach_the_instance() {
    let configured =
        |set: &dyn Fn(&mut Options)| crate::cc::configured::<Htcp>(|o| set(&mut o.htcp));
    for (scaling, alpha) in [(true, 4), (false, 45)] {
        let mut h = configured(&|o| o.use_rtt_scaling = scaling);
        h.minRTT = 10_000;
        h.htcp_alpha_update(5_000_000);
        assert_eq!(h.alpha / 128, alpha, "use_rtt_scaling {scaling}");
    }
    for (switch, beta) in [(true, BETA_MIN), (false, BETA_MAX)] {
        let mut h = configured(&|o| o.use_bandwidth_switch = switch);
        h.modeswitch = true;
        h.old_maxB = 1000;
        h.maxB = 2000;
        h.htcp_beta_update(100_000, 110_000);
        assert_eq!(h.beta, beta, "use_bandwidth_switch {switch}");
    }
}
