//! PIE's arithmetic against the kernel's, worked by hand (docs/references.md §6.5).

use super::*;

/// MAX_PROB = 2⁵⁶ − 1 = 72,057,594,037,927,935; per tick: ⌊MAX_PROB / 15,625,000⌋ =
/// 4,611,686,018; alpha 2 → ⌊2 · 4,611,686,018 / 16⌋ = 576,460,752; beta 20 →
/// ⌊92,233,720,360 / 16⌋ = 5,764,607,522. Ticks: 15 ms = 15·10⁶ ns >> 6 = 234,375.
#[test]
fn pie1_alpha_beta_in_kernel_units() {
    assert_eq!(MAX_PROB, 72_057_594_037_927_935);
    let p = PieParams::default();
    assert_eq!(scaled_alpha_beta(&p), (576_460_752, 5_764_607_522));
    assert_eq!(p.target, 234_375);
    assert_eq!(ticks(30 * MS), 468_750);
}

fn vars(prob: u64, qdelay: SimTime, qdelay_old: SimTime) -> PieVars {
    PieVars {
        prob,
        qdelay: ticks(qdelay),
        qdelay_old: ticks(qdelay_old),
        ..PieVars::default()
    }
}

/// PIE-2, the first update from p = 0 (RFC 8033 §4.2's table, p < 0.0001%: alpha and beta
/// / 2048): alpha 576,460,752 >> 1 >> 2·5 = 281,474, beta 5,764,607,522 >> 11 =
/// 2,814,749. qdelay 30 ms, qdelay_old 0: Δ = 281,474·(468,750 − 234,375) + 2,814,749 ·
/// 468,750 = 65,970,468,750 + 1,319,413,593,750 = 1,385,384,062,500 (1.9226·10⁻⁵ of
/// MAX_PROB = 0.125/2048 · 0.015 + 1.25/2048 · 0.030).
#[test]
fn pie2_first_update_scaled_by_2048() {
    let mut v = vars(0, 30 * MS, 0);
    v.calculate_probability(&PieParams::default(), 100_000);
    assert_eq!(v.prob, 1_385_384_062_500);
    assert_eq!((v.qdelay, v.qdelay_old), (468_750, 468_750));
}

/// PIE-3, the scaling by ranges: at p = 15% none, Δ = alpha·(qdelay − target): 10 ms
/// over target, qdelay steady → 576,460,752 · 156,250 = 90,071,992,500,000 (0.125 · 0.01
/// of MAX_PROB); at p = 5% halved; at p = 0.5% (0.1% … 1%) / 8; at 0.05% / 32.
#[test]
fn pie3_alpha_scaled_by_the_probability_range() {
    let p = PieParams::default();
    let one = |prob: u64| {
        let mut v = vars(prob, 25 * MS, 25 * MS);
        v.calculate_probability(&p, 100_000);
        v.prob - prob
    };
    assert_eq!(one(MAX_PROB / 100 * 15), 90_071_992_500_000);
    assert_eq!(one(MAX_PROB / 100 * 5), (576_460_752 >> 1) * 156_250);
    assert_eq!(one(MAX_PROB / 1000 * 5), (576_460_752 >> 3) * 156_250);
    assert_eq!(one(MAX_PROB / 10_000 * 5), (576_460_752 >> 5) * 156_250);
}

/// PIE-4: from p ≥ 10% a step is at most 2%: p = 50%, qdelay 100 ms after 20 ms would add
/// 0.125 · 0.085 + 1.25 · 0.080 = 11.06%, cut to (MAX_PROB / 100) · 2; with qdelay 300 ms
/// (> 250 ms) 2% more: +4%.
#[test]
fn pie4_two_percent_cap_and_the_250ms_boost() {
    let p = PieParams::default();
    let half = MAX_PROB / 2;
    let mut v = vars(half, 100 * MS, 20 * MS);
    v.calculate_probability(&p, 100_000);
    assert_eq!(v.prob - half, (MAX_PROB / 100) * 2);
    let mut v = vars(half, 300 * MS, 300 * MS);
    v.calculate_probability(&p, 100_000);
    assert_eq!(v.prob - half, (MAX_PROB / 100) * 2 + MAX_PROB / 50);
}

/// PIE-5: no delay for two updates with an empty queue: p falls by alpha·target (at p =
/// 5%: 288,230,376 · 234,375 = 67,553,994,375,000) and then by 1/64 of the rest.
#[test]
fn pie5_decay_without_delay() {
    let p = PieParams::default();
    let p0 = MAX_PROB / 100 * 5;
    let mut v = vars(p0, 0, 0);
    v.calculate_probability(&p, 0);
    let after = p0 - 288_230_376 * 234_375;
    assert_eq!(v.prob, after - after / 64);
    // With bytes queued but no delay measured, p is not decayed ("backlog is very
    // small"): only the alpha term.
    let mut v = vars(p0, 0, 0);
    v.calculate_probability(&p, 1000);
    assert_eq!(v.prob, after);
}

/// PIE-6: both delays under target/2 with p = 0: the burst allowance (150 ms = 2,343,750
/// ticks) comes back (`pie_vars_init`); it is spent by the time between dequeues.
#[test]
fn pie6_burst_allowance_restarts_and_is_spent() {
    let p = PieParams::default();
    let mut v = vars(0, MS, MS);
    v.burst_time = 0;
    v.calculate_probability(&p, 0);
    assert_eq!(v.burst_time, 2_343_750);
    // Dequeues 1 ms apart (15,625 ticks): the first only stamps the time.
    let mut now = 1_000_000;
    v.process_dequeue(&p, now, now - 100, 1500, 3000);
    assert_eq!(v.burst_time, 2_343_750);
    for _ in 0..100 {
        now += 15_625;
        v.process_dequeue(&p, now, now - 100, 1500, 3000);
    }
    assert_eq!(v.burst_time, 2_343_750 - 100 * 15_625);
    for _ in 0..50 {
        now += 15_625;
        v.process_dequeue(&p, now, now - 100, 1500, 3000);
    }
    assert_eq!(v.burst_time, 0);
    // The delay is the sojourn of the packet leaving, or 0 when the queue empties.
    assert_eq!(v.qdelay, 100);
    v.process_dequeue(&p, now + 10, now, 1500, 0);
    assert_eq!(v.qdelay, 0);
}

/// PIE-7, when `pie_drop_early` never drops: during the burst allowance; with qdelay <
/// target/2 and p < 20%; with fewer than two MTUs (3000 B here, 3028 in `skb->len`)
/// queued.
#[test]
fn pie7_no_early_drop_conditions() {
    let p = PieParams::default();
    let mut rng = Rng::new(1, 0);
    let full = MAX_PROB; // p = 1: any draw drops
    let mut v = vars(full, 20 * MS, 20 * MS);
    assert!(v.burst_time > 0);
    assert!(!v.drop_early(&p, 100_000, 1500, &mut rng));
    v.burst_time = 0;
    assert!(v.drop_early(&p, 100_000, 1500, &mut rng));
    assert!(!v.drop_early(&p, 2999, 1500, &mut rng));
    assert!(v.drop_early(&p, 3000, 1500, &mut rng));
    // qdelay 7 ms < 7.5 ms: no drop below p = 20%, drops from it.
    let mut v = vars(MAX_PROB / 5 - 1, 7 * MS, 7 * MS);
    v.burst_time = 0;
    v.accu_prob = MAX_PROB * 9; // over 8.5: would force a drop
    assert!(!v.drop_early(&p, 100_000, 1500, &mut rng));
    v.prob = MAX_PROB / 5;
    assert!(v.drop_early(&p, 100_000, 1500, &mut rng));
}

/// PIE-8, de-randomisation: at a steady p = 10% the packets' probabilities add up; no
/// drop while the sum is under 0.85 (the first 8 packets after a drop: 0.8), a draw from
/// the 9th, a certain drop once the sum reaches 8.5 — at the 86th, not the 85th: 85 ·
/// ⌊MAX_PROB/10⌋ falls 34 short of (MAX_PROB/2)·17. So every gap between drops is 9 … 86
/// packets; its mean is 8 + E[min(G, 78)] with G geometric (p = 0.1) = 8 + Σ_{j<78}
/// 0.9^j = 8 + (1 − 0.9^78)/0.1 = 17.997 (±2% over 20,000 drops: the gap's standard
/// deviation, about 9.5, gives a 95% band of ±0.7% on the mean).
#[test]
fn pie8_derandomised_gaps() {
    let p = PieParams::default();
    let mut rng = Rng::new(7, 0);
    let mut v = vars(MAX_PROB / 10, 20 * MS, 20 * MS);
    v.burst_time = 0;
    let (mut gaps, mut since) = (Vec::new(), 0u32);
    while gaps.len() < 20_000 {
        since += 1;
        if v.drop_early(&p, 100_000, 1500, &mut rng) {
            v.accu_prob = 0; // as `pie_qdisc_enqueue` does for every drop
            gaps.push(since);
            since = 0;
        }
    }
    assert_eq!(*gaps.iter().min().unwrap(), 9);
    assert!(*gaps.iter().max().unwrap() <= 86);
    let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
    let want = 8.0 + (1.0 - 0.9f64.powi(78)) / 0.1;
    assert!((mean / want - 1.0).abs() < 0.02, "{mean} vs {want}");
}

/// With `ecn`, an early drop of an ECT packet is a CE mark while p ≤ 10% and a drop
/// above; a non-ECT packet is dropped. An overlimit or early drop clears `accu_prob`.
#[test]
fn ecn_marks_below_ten_percent() {
    let mut q = Pie::new(PieParams {
        ecn: true,
        limit: 3,
        ..PieParams::default()
    });
    q.vars.burst_time = 0;
    q.vars.qdelay = ticks(20 * MS);
    let m = |ecn| PktMeta {
        len: 1500,
        ecn,
        segs: 1,
        ..PktMeta::default()
    };
    assert_eq!(q.enqueue(0, &m(crate::packet::ECT0)), Verdict::ENQUEUE);
    assert_eq!(q.enqueue(1, &m(crate::packet::ECT0)), Verdict::ENQUEUE);
    q.vars.prob = MAX_PROB / 10;
    q.vars.accu_prob = MAX_PROB * 9;
    assert_eq!(q.enqueue(2, &m(crate::packet::ECT0)), Verdict::MARK_CE);
    assert_eq!(q.vars.accu_prob, MAX_PROB * 9 + MAX_PROB / 10);
    assert_eq!(q.enqueue(3, &m(crate::packet::ECT0)), Verdict::Drop);
    assert_eq!(q.vars.accu_prob, 0, "overlimit");
    let _ = q.dequeue(0, &mut Vec::new());
    q.vars.qdelay = ticks(20 * MS); // the dequeue measured no sojourn
    q.vars.prob = MAX_PROB / 10 + 1;
    q.vars.accu_prob = MAX_PROB * 9;
    assert_eq!(q.enqueue(4, &m(crate::packet::ECT0)), Verdict::Drop);
    assert_eq!(q.vars.accu_prob, 0);
}

/// The timer: first at 500 ms, then every tupdate; none after with tupdate 0.
#[test]
fn the_timer_is_asked_for_through_the_contract() {
    let mut q = Pie::new(PieParams::default());
    assert_eq!(q.start(&mut Rng::new(1, 2)), Some(500 * MS));
    assert_eq!(q.on_timer(500 * MS), Some(515 * MS));
    let mut q = Pie::new(PieParams {
        tupdate: 0,
        ..PieParams::default()
    });
    assert_eq!(q.start(&mut Rng::new(1, 2)), Some(500 * MS));
    assert_eq!(q.on_timer(500 * MS), None);
    // A discipline without a timer asks for none.
    let mut tail = super::super::QueueSpec::droptail(Limit::Packets(10)).build();
    assert_eq!(tail.start(&mut Rng::new(1, 2)), None);
}

/// The drain-rate estimator (dq_rate_estimator): a cycle starts at a dequeue that leaves
/// 16 KiB queued (stamping the time) and ends at the one that brings its count to 16 KiB:
/// 11 packets of 1500 B, one every 1.2 ms (18,750 ticks, 10 Mbit/s), counted over the 10
/// gaps after the stamp: ⌊(16,500 << 8) / 187,500⌋ = ⌊22.53⌋ = 22 (the first packet's
/// bytes count though it left at the stamp: 10 Mbit/s is 20.48 in these units); then
/// qdelay = (backlog << 8) / rate: 30,000 B → ⌊7,680,000 / 22⌋ = 349,090 ticks = 22.3 ms.
#[test]
fn dq_rate_estimator_by_hand() {
    let p = PieParams {
        dq_rate_estimator: true,
        ..PieParams::default()
    };
    let mut v = PieVars::default();
    let step = 18_750; // 1.2 ms in ticks: one 1500-B packet at 10 Mbit/s
    let mut now = 1_000_000;
    let mut backlog = 60_000u64;
    for _ in 0..11 {
        now += step;
        backlog -= 1500;
        v.process_dequeue(&p, now, 0, 1500, backlog);
    }
    assert_eq!(v.avg_dq_rate, 22);
    v.calculate_probability(&p, 30_000);
    assert_eq!(v.qdelay, 349_090);
}

/// tc passes tupdate in whole µs: below 1 µs is refused (pie and fq_pie), as dualpi2's
/// is. `tupdate = "1ps"` was accepted and a run of 1 s did not end in 30 s of wall time
/// (an update every picosecond from 500 ms on).
#[test]
fn tupdate_below_a_microsecond_is_refused() {
    for q in ["pie", "fq_pie"] {
        let text = |t: &str| {
            format!(
                "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"10Mbps\", delay = \"1ms\", queue = \"{q}\", tupdate = \"{t}\" }}\n"
            )
        };
        for bad in ["1ps", "999ns"] {
            let e = crate::scenario::parse_scenario(&text(bad), "p.toml", &[]).unwrap_err();
            let m = e[0].to_string();
            assert!(
                m.contains(&format!("key 'topology.bottleneck.tupdate' = \"{bad}\""))
                    && m.contains("at least 1 µs"),
                "{m}"
            );
        }
        crate::scenario::parse_scenario(&text("1us"), "p.toml", &[]).unwrap();
    }
}

/// `pie_reset` (a link going down): the queue is flushed without PIE's dequeue and
/// `pie_vars_init` restarts the burst allowance and the estimator; the probability and the
/// delays stay, as the kernel leaves them.
#[test]
fn reset_flushes_and_restarts_the_estimator_but_keeps_the_probability() {
    let mut q = Pie::new(PieParams::default());
    let m = PktMeta {
        len: 1500,
        segs: 1,
        ..PktMeta::default()
    };
    for id in 0..3 {
        assert_eq!(q.enqueue(id, &m), Verdict::ENQUEUE);
    }
    q.vars.prob = MAX_PROB / 20;
    q.vars.qdelay = ticks(20 * MS);
    q.vars.burst_time = 0;
    q.vars.avg_dq_rate = 22;
    q.vars.dq_count = 4500;
    q.vars.accu_prob = MAX_PROB;
    let mut drops = Vec::new();
    q.reset(30 * MS, &mut drops);
    assert_eq!(drops, vec![0, 1, 2]);
    assert_eq!((q.backlog().pkts, q.backlog().bytes), (0, 0));
    assert_eq!(q.vars.burst_time, ticks(150 * MS));
    assert_eq!(q.vars.dq_tstamp, DTIME_INVALID);
    assert_eq!(q.vars.dq_count, DQCOUNT_INVALID);
    assert_eq!((q.vars.avg_dq_rate, q.vars.accu_prob), (0, 0));
    assert_eq!(
        (q.vars.prob, q.vars.qdelay),
        (MAX_PROB / 20, ticks(20 * MS))
    );
}
