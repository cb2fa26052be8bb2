//! DualPI2 against `sch_dualpi2.c`'s arithmetic and RFC 9332's coupling, worked by hand
//! (docs/references.md §6.7).

use super::*;
use crate::engine::{MS, US};
use crate::packet::{CE, ECT0, ECT1};

fn meta(len: u32, ecn: u8, now: SimTime) -> PktMeta {
    PktMeta {
        len,
        ecn,
        now,
        segs: 1,
        ..PktMeta::default()
    }
}

fn q(p: Params) -> DualPi2 {
    let mut q = DualPi2::new(p);
    q.start(&mut Rng::new(7, 1));
    q
}

/// DPI2-1, the units: tc's 41/256 Hz → ⌊⌊41 · (2³² − 1) / 4⌋ / 10⁹⌋ = ⌊44,023,414,773 /
/// 10⁹⌋ = 44; 819 → ⌊879,394,553,651 / 10⁹⌋ = 879. A gain given in Hz goes through tc's
/// `float`: 0.16 · 256 = 40.96 → 40 (the kernel's own default is 41), 3.2 · 256 = 819.2 →
/// 819. The credit starts at 1500 · (10 − 90) = −120,000 (the L queue first).
#[test]
fn dpi2_1_units() {
    assert_eq!(scale_alpha_beta(41), 44);
    assert_eq!(scale_alpha_beta(819), 879);
    assert_eq!((tc_gain(0.16), tc_gain(3.2)), (40, 819));
    let p = Params::default();
    assert_eq!(
        (p.alpha, p.beta, p.target, p.tupdate),
        (41, 819, 15_000_000, 16_000_000)
    );
    assert_eq!(p.memory_limit, 30_000_000);
    assert_eq!(DualPi2::new(p).credit(), -120_000);
}

/// DPI2-2, PI2's update from the kernel's integers. A C packet queued at 0, the update at
/// 20 ms: delta = (20·10⁶ − 15·10⁶) · 44 + (20·10⁶ − 0) · 879 = 220,000,000 +
/// 17,580,000,000 = 17,800,000,000; / 64 = 278,125,000 (p' = 6.48%). Steady at 20 ms,
/// the step is 5·10⁶ · 44 / 64 = 3,437,500: 281,562,500. The head at 10 ms: delta =
/// −5·10⁶ · 44 − 10·10⁶ · 879 = −9,010,000,000, a step of 140,781,250 down: 140,781,250.
/// An empty qdisc (qdelay 0) from there: delta = −15·10⁶ · 44 − 10·10⁶ · 879 =
/// −9,450,000,000, a step of 147,656,250 down, below 0: p' = 0.
#[test]
fn dpi2_2_pi2_update_by_hand() {
    let mut d = q(Params::default());
    d.enqueue(1, &meta(1500, 0, 0));
    d.prob = d.calculate_probability(20_000_000);
    assert_eq!(d.prob, 278_125_000);
    d.prob = d.calculate_probability(20_000_000);
    assert_eq!(d.prob, 281_562_500);
    d.prob = d.calculate_probability(10_000_000);
    assert_eq!(d.prob, 140_781_250);
    let mut drops = vec![];
    assert_eq!(d.dequeue(10 * MS, &mut drops), Deq::Packet(1, Mark::None));
    d.prob = d.calculate_probability(20_000_000);
    assert_eq!(d.prob, 0);
}

/// DPI2-3, the bounds: a rise past MAX_PROB stays at MAX_PROB; with `overflow`
/// (drop_on_overload off) p' is capped at MAX_PROB / k = 2,147,483,647; the delay is the
/// older of the two heads (an L head queued at 0 and a C head at 10 ms give 20 ms at
/// 20 ms, as DPI2-2).
#[test]
fn dpi2_3_bounds_and_the_older_head() {
    let mut d = q(Params::default());
    d.enqueue(1, &meta(1500, 0, 0));
    d.prob = MAX_PROB - 10;
    assert_eq!(d.calculate_probability(20_000_000), MAX_PROB);
    let mut o = q(Params {
        drop_overload: false,
        ..Params::default()
    });
    o.enqueue(1, &meta(1500, 0, 0));
    o.prob = MAX_PROB - 10;
    assert_eq!(o.calculate_probability(20_000_000), 2_147_483_647);
    let mut b = q(Params::default());
    b.enqueue(1, &meta(1500, ECT1, 0));
    b.enqueue(2, &meta(1500, 0, 10 * MS));
    assert_eq!(b.queue_delays(20_000_000), (10_000_000, 20_000_000));
    assert_eq!(b.calculate_probability(20_000_000), 278_125_000);
}

/// DPI2-4, classification with `l4s_ect` (mask 1): not-ECT and ECT(0) to C, ECT(1) and CE
/// to L; with `any_ect` (mask 3) ECT(0) too.
#[test]
fn dpi2_4_classification() {
    assert_eq!(classify(NOT_ECT, ECN_MASK_L4S_ECT), Class::Classic);
    assert_eq!(classify(ECT0, ECN_MASK_L4S_ECT), Class::Classic);
    assert_eq!(classify(ECT1, ECN_MASK_L4S_ECT), Class::L4s);
    assert_eq!(classify(CE, ECN_MASK_L4S_ECT), Class::L4s);
    assert_eq!(classify(ECT0, ECN_MASK_ANY_ECT), Class::L4s);
    assert_eq!(classify(NOT_ECT, ECN_MASK_ANY_ECT), Class::Classic);
    let mut d = q(Params::default());
    for (i, e) in [NOT_ECT, ECT0, ECT1, CE].into_iter().enumerate() {
        d.enqueue(i as PktId, &meta(1500, e, 0));
    }
    assert_eq!(d.qlens(), (2, 2));
}

/// The share of `n` packets of ECN field `ecn` that the coupled AQM marks and drops at p'.
fn hits(prob: u32, ecn: u8, drop_overload: bool, n: u32) -> (f64, f64) {
    let mut d = q(Params {
        drop_overload,
        ..Params::default()
    });
    d.prob = prob;
    let class = classify(ecn, d.p.ecn_mask);
    let (mut marks, mut drops) = (0, 0);
    for _ in 0..n {
        match d.must_drop(class, ecn, 10 * MTU as u64) {
            Act::Mark => marks += 1,
            Act::Drop => drops += 1,
            Act::Pass => {}
        }
    }
    (marks as f64 / n as f64, drops as f64 / n as f64)
}

/// DPI2-5, the coupling (RFC 9332 §2.1, k = 2): at p' = 5%, 20%, 40% a classic packet is
/// hit with p'² (0.25%, 4%, 16%: marked if ECT(0), dropped if not-ECT) and an L packet
/// marked with k·p' (10%, 40%, 80%); at p' = 60% (k·p' = 1.2, overload) L packets see the
/// classic p'² = 36% as drops and the rest are marked (p_L = min(k·p', 1) = 1 in all), and
/// ECT(0) C packets are dropped, not marked. 200,000 draws each: within 5 standard errors
/// of the binomial (√(p(1−p)/n) ≤ 0.0011).
#[test]
fn dpi2_5_coupling_squared_and_linear() {
    let n = 200_000;
    let close = |got: f64, want: f64| {
        let se = (want * (1.0 - want) / n as f64).sqrt().max(1e-6);
        assert!((got - want).abs() <= 5.0 * se, "{got} vs {want}");
    };
    for pp in [0.05, 0.2, 0.4] {
        let prob = (pp * MAX_PROB as f64) as u32;
        let (m, d) = hits(prob, ECT0, true, n);
        close(m, pp * pp);
        assert_eq!(d, 0.0);
        let (m, d) = hits(prob, NOT_ECT, true, n);
        close(d, pp * pp);
        assert_eq!(m, 0.0);
        let (m, d) = hits(prob, ECT1, true, n);
        close(m, (2.0 * pp).min(1.0));
        assert_eq!(d, 0.0);
    }
    let prob = (0.6 * MAX_PROB as f64) as u32;
    let (m, d) = hits(prob, ECT1, true, n);
    close(d, 0.36);
    assert!((m + d - 1.0).abs() < 1e-9);
    let (m, d) = hits(prob, ECT1, false, n);
    assert_eq!((m, d), (1.0, 0.0));
    let (m, d) = hits(prob, ECT0, true, n);
    close(d, 0.36);
    assert_eq!(m, 0.0);
    // Below two MTUs queued nothing is touched.
    let mut d = q(Params::default());
    d.prob = MAX_PROB;
    assert_eq!(
        d.must_drop(Class::Classic, NOT_ECT, 2 * MTU as u64 - 1),
        Act::Pass
    );
    assert_eq!(
        d.must_drop(Class::Classic, NOT_ECT, 2 * MTU as u64),
        Act::Drop
    );
}

/// DPI2-6, the step at 1 ms: an L packet that waited exactly 1 ms is not marked (the test
/// is `>`), one that waited 1 ms + 1 ns is; with `min_qlen_step` 1 a packet that found the
/// L queue empty is not marked however long it waited. In packets (step_thresh 2 pkts):
/// marked while more than 2 are left behind it.
#[test]
fn dpi2_6_step_mark_at_the_threshold() {
    let mut drops = vec![];
    let mut d = q(Params::default());
    d.enqueue(1, &meta(1500, ECT1, 0));
    assert_eq!(d.dequeue(MS, &mut drops), Deq::Packet(1, Mark::None));
    d.enqueue(2, &meta(1500, ECT1, 2 * MS));
    assert_eq!(
        d.dequeue(3 * MS + 1000, &mut drops),
        Deq::Packet(2, Mark::Ce)
    );
    assert_eq!((d.stats.step_marks, d.stats.ecn_mark), (1, 1));
    let mut m = q(Params {
        min_qlen_step: 1,
        ..Params::default()
    });
    m.enqueue(1, &meta(1500, ECT1, 0));
    m.enqueue(2, &meta(1500, ECT1, 0));
    assert_eq!(m.dequeue(5 * MS, &mut drops), Deq::Packet(1, Mark::None));
    assert_eq!(m.dequeue(5 * MS, &mut drops), Deq::Packet(2, Mark::Ce));
    let mut k = q(Params {
        step_thresh: 2,
        step_in_packets: true,
        ..Params::default()
    });
    for i in 0..4 {
        k.enqueue(i, &meta(100, ECT1, 0));
    }
    // 3 left, then 2, 1, 0. (100-byte packets: under two MTUs, no coupled marking.)
    assert_eq!(k.dequeue(0, &mut drops), Deq::Packet(0, Mark::Ce));
    assert_eq!(k.dequeue(0, &mut drops), Deq::Packet(1, Mark::None));
    assert!(drops.is_empty());
    // A C packet is never stepped.
    let mut c = q(Params::default());
    c.enqueue(1, &meta(1500, ECT0, 0));
    assert_eq!(c.dequeue(50 * MS, &mut drops), Deq::Packet(1, Mark::None));
}

/// DPI2-7, the scheduler's share with both queues backlogged (wc = 10%): the credit
/// starts at −120,000; each 1500-byte L packet adds 10 · 1500 = 15,000, so nine L packets
/// bring it to +15,000, then one C packet subtracts 90 · 1500 = 135,000, back to
/// −120,000: L×9, C, L×9, C, … — the C queue gets exactly 10% of 1000 packets (100).
/// With `classic_protection` 50 they alternate, L first (credit 0 → +75,000 → 0 …): 500
/// each. With the C queue alone, it is served and the credit
/// does not move.
#[test]
fn dpi2_7_wrr_share_both_backlogged() {
    for (wc, want_c) in [(10u8, 100usize), (50, 500)] {
        let mut d = q(Params {
            c_protection: wc,
            ..Params::default()
        });
        for i in 0..2000u32 {
            let ecn = if i % 2 == 0 { ECT1 } else { NOT_ECT };
            d.enqueue(i, &meta(1500, ecn, 0));
        }
        let mut drops = vec![];
        let mut order = vec![];
        for _ in 0..1000 {
            match d.dequeue(0, &mut drops) {
                Deq::Packet(id, _) => order.push(id % 2 == 1),
                other => panic!("{other:?}"),
            }
        }
        assert!(drops.is_empty());
        assert_eq!(order.iter().filter(|&&c| c).count(), want_c, "wc {wc}");
        if wc == 10 {
            assert!(order
                .chunks(10)
                .all(|w| w.iter().position(|&c| c) == Some(9)));
        }
    }
    let mut d = q(Params::default());
    d.enqueue(1, &meta(1500, NOT_ECT, 0));
    let mut drops = vec![];
    assert_eq!(d.dequeue(0, &mut drops), Deq::Packet(1, Mark::None));
    assert_eq!(d.credit(), -120_000);
}

/// DPI2-8, drops at dequeue (the default): at p' = 1 (overload) a not-ECT C packet is
/// dropped on its way out and the next one is tried, until less than two MTUs are left.
/// The limits: the 4th packet over `limit` 3 is dropped, as one over `memlimit`.
#[test]
fn dpi2_8_dequeue_drops_and_limits() {
    let mut d = q(Params::default());
    for i in 0..4 {
        d.enqueue(i, &meta(1500, NOT_ECT, 0));
    }
    d.prob = MAX_PROB;
    let mut drops = vec![];
    // Backlog after each removal: 3, 2 packets (≥ 2 MTUs: dropped), then 1 (sent).
    assert_eq!(d.dequeue(MS, &mut drops), Deq::Packet(2, Mark::None));
    assert_eq!(drops, vec![0, 1]);
    let mut l = q(Params {
        limit: 3,
        memory_limit: 10_000,
        ..Params::default()
    });
    for i in 0..3 {
        assert_eq!(l.enqueue(i, &meta(1500, ECT1, 0)), Verdict::ENQUEUE);
    }
    assert_eq!(l.enqueue(3, &meta(1500, ECT1, 0)), Verdict::Drop);
    let mut m = q(Params {
        memory_limit: 3000,
        ..Params::default()
    });
    assert_eq!(m.enqueue(0, &meta(1500, 0, 0)), Verdict::ENQUEUE);
    assert_eq!(m.enqueue(1, &meta(1500, 0, 0)), Verdict::ENQUEUE);
    assert_eq!(m.enqueue(2, &meta(1, 0, 0)), Verdict::Drop);
}

/// DPI2-9, the timer (first a tupdate after the start, then every tupdate) and GSO: an
/// aggregate is cut into its segments unless `split_gso` is off.
#[test]
fn dpi2_9_timer_and_gso() {
    let mut d = DualPi2::new(Params::default());
    assert_eq!(d.start(&mut Rng::new(1, 2)), Some(16 * MS));
    assert_eq!(d.on_timer(16 * MS), Some(32 * MS));
    let agg = PktMeta {
        segs: 3,
        ..meta(4500, ECT1, 0)
    };
    assert_eq!(d.enqueue(1, &agg), Verdict::Segment);
    let mut n = DualPi2::new(Params {
        split_gso: false,
        ..Params::default()
    });
    assert_eq!(n.enqueue(1, &agg), Verdict::ENQUEUE);
    assert_eq!(
        n.backlog(),
        Backlog {
            bytes: 4500,
            pkts: 1
        }
    );
}

/// DPI2-10, tc's max_rtt helper in µs: max_rtt 100 ms, typical 15 ms → target 15 ms,
/// tupdate min(15 ms, 33.3 ms) = 15 ms, alpha = 0.1f · 15,000 / 10¹⁰ · 10⁶ = 0.15000000224
/// → ⌊38.4⌋ = 38, beta = 0.3f / 10⁵ · 10⁶ = 3.0000001 → ⌊768.00003⌋ = 768; max_rtt alone
/// (60 ms) takes typical = 10 ms, tupdate = 10 ms, alpha 0.1·10⁴/3.6·10⁹·10⁶ = 0.2778 →
/// 71, beta 5 → 1280.
#[test]
fn dpi2_10_rtt_helper() {
    assert_eq!(auto_config(100_000, 15_000), Ok((15_000, 15_000, 38, 768)));
    assert_eq!(auto_config(60_000, 0), Ok((10_000, 10_000, 71, 1280)));
    assert!(auto_config(10_000, 20_000).is_err());
    assert_eq!(whole_us(1500 * US + 999_999), 1_500_000);
}

/// DPI2-12, `dualpi2_reset` (the link went down): both queues are flushed without the AQM
/// (no mark, no draw), p' = 0 and the credit back at its start (−120,000); the next packet
/// meets p' = 0. Here 3 C packets queued at 0, an update at 20 ms gives p' = 278,125,000
/// (DPI2-2); after the reset: 3 drops, nothing held, p' = 0.
#[test]
fn dpi2_12_reset_flushes_and_clears_the_probability() {
    let mut d = q(Params::default());
    for id in 0..3 {
        assert!(matches!(
            d.enqueue(id, &meta(1500, NOT_ECT, 0)),
            Verdict::Queue(_)
        ));
    }
    d.on_timer(20 * MS);
    assert_eq!(d.prob, 278_125_000);
    let mut drops = Vec::new();
    d.reset(20 * MS, &mut drops);
    assert_eq!(drops, vec![0, 1, 2]);
    assert_eq!(d.backlog().pkts, 0);
    assert_eq!(d.backlog().bytes, 0);
    assert_eq!(d.prob, 0);
    assert_eq!(d.credit(), -120_000);
    // Nothing was sent: the flush is not the scheduler's.
    assert_eq!(d.stats.sent, [0, 0]);
}

/// Packet counts tc passes as a u32 (`get_u32`, which refuses more): `limit` of every
/// packet-counting discipline and dualpi2's `step_thresh` in packets were clamped to
/// 4294967295 without a word; now they are refused, and 4294967295 itself is kept.
#[test]
fn packet_counts_above_u32_are_refused() {
    let text = |q: &str, kv: &str| {
        format!(
            "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"10Mbps\", delay = \"1ms\", queue = \"{q}\", {kv} }}\n"
        )
    };
    let refused = |q: &str, kv: &str, key: &str| {
        let e = crate::scenario::parse_scenario(&text(q, kv), "q.toml", &[]).unwrap_err();
        let m = e[0].to_string();
        assert!(
            m.contains(&format!(
                "key 'topology.bottleneck.{key}' = \"4294967296pkts\""
            )) && m.contains("4294967295 (tc passes a u32)"),
            "{q} {kv}: {m}"
        );
    };
    for q in ["dualpi2", "pie", "fq_pie", "codel", "fq_codel"] {
        refused(q, "limit = \"4294967296pkts\"", "limit");
        crate::scenario::parse_scenario(&text(q, "limit = \"4294967295pkts\""), "q.toml", &[])
            .unwrap();
    }
    refused("dualpi2", "step_thresh = \"4294967296pkts\"", "step_thresh");
    let sc = crate::scenario::parse_scenario(
        &text("dualpi2", "step_thresh = \"4294967295pkts\""),
        "q.toml",
        &[],
    )
    .unwrap();
    let crate::net::topology::spec::TopologySpec::Dumbbell { bottleneck, .. } = &sc.topology else {
        panic!("not a dumbbell")
    };
    let crate::qdisc::QueueSpec::DualPi2(s) = &bottleneck.queue else {
        panic!("not dualpi2")
    };
    assert_eq!(
        (s.params.step_thresh, s.params.step_in_packets),
        (4_294_967_295, true)
    );
}
