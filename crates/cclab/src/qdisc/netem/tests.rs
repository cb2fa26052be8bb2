use super::*;
use crate::engine::{MS, US};

fn meta(now: SimTime) -> PktMeta {
    PktMeta {
        len: 1500,
        segs: 1,
        now,
        ..Default::default()
    }
}

/// Packets arriving at 0, 1 and 3 ms with a 50 ms delay leave at 50, 51 and 53 ms; the
/// queue answers "not before" until then; a fourth arrival beyond limit 3 is dropped.
#[test]
fn holds_each_packet_for_the_delay_and_drops_beyond_the_limit() {
    let mut q = Spec::fixed(50 * MS, 3).build();
    let mut drops = Vec::new();
    for (id, t) in [(1, 0), (2, MS), (3, 3 * MS)] {
        assert_eq!(q.enqueue(id, &meta(t)), Verdict::ENQUEUE);
    }
    assert_eq!(q.enqueue(4, &meta(4 * MS)), Verdict::Drop);
    assert_eq!(q.dequeue(10 * MS, &mut drops), Deq::NotBefore(50 * MS));
    assert_eq!(q.dequeue(50 * MS, &mut drops), Deq::Packet(1, Mark::None));
    assert_eq!(q.dequeue(50 * MS, &mut drops), Deq::NotBefore(51 * MS));
    assert_eq!(q.dequeue(52 * MS, &mut drops), Deq::Packet(2, Mark::None));
    assert_eq!(
        q.backlog(),
        Backlog {
            bytes: 1500,
            pkts: 1
        }
    );
    assert_eq!(q.dequeue(53 * MS, &mut drops), Deq::Packet(3, Mark::None));
    assert_eq!(q.dequeue(53 * MS, &mut drops), Deq::Empty);
    assert!(q.ext.is_none(), "a fixed delay needs no random state");
}

/// Offer `arrivals` (id, time, length) and drain: each packet's departure (id, time), in
/// the order they leave, with the queue asked as soon as it allows.
fn run(spec: &Spec, arrivals: &[(PktId, SimTime, u32)]) -> (Vec<(PktId, SimTime)>, Vec<PktId>) {
    let mut q = spec.build();
    q.start(&mut Rng::new(7, 1));
    let (mut out, mut lost, mut drops) = (Vec::new(), Vec::new(), Vec::new());
    let mut now = 0;
    let mut next = 0;
    loop {
        // Arrivals up to now, then everything that may leave at now.
        while next < arrivals.len() && arrivals[next].1 <= now {
            let (id, t, len) = arrivals[next];
            let m = PktMeta {
                len,
                segs: 1,
                now: t,
                ..Default::default()
            };
            if q.enqueue(id, &m) == Verdict::Drop {
                lost.push(id);
            }
            next += 1;
        }
        let wake = loop {
            match q.dequeue(now, &mut drops) {
                Deq::Packet(id, _) => out.push((id, now)),
                Deq::NotBefore(t) => break Some(t),
                Deq::Empty => break None,
            }
        };
        let arrival = arrivals.get(next).map(|a| a.1);
        now = match (wake, arrival) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => break,
            },
        };
    }
    (out, lost)
}

/// `get_crandom` by hand, with tc's 25% (rint(0.25·(2³² − 1)) = 1,073,741,824, so
/// ρ = 1,073,741,825): from last = 2³¹ and u = 0 the next value is
/// ⌊2³¹·ρ / 2³²⌋ = ⌊ρ/2⌋ = 536,870,912; then u = 2³² − 1 gives
/// ⌊((2³² − 1)·(2³² − ρ) + 536,870,912·ρ) / 2³²⌋ = ⌊(13,835,058,047,765,970,945 +
/// 576,460,752,840,294,400) / 4,294,967,296⌋ = ⌊3,355,443,198.99…⌋ = 3,355,443,198.
/// Uncorrelated (ρ = 0), the uniform passes through and `last` is left alone.
#[test]
fn correlated_random_follows_get_crandom() {
    assert_eq!(prob_u32(0.25), 1_073_741_824);
    let mut c = Crnd {
        last: 1 << 31,
        rho: prob_u32(0.25),
    };
    assert_eq!(c.next(0), 536_870_912);
    assert_eq!(c.next(u32::MAX), 3_355_443_198);
    assert_eq!(c.last, 3_355_443_198);
    let mut u = Crnd { last: 5, rho: 0 };
    assert_eq!(u.next(123), 123);
    assert_eq!(u.last, 5);
}

/// `tabledist` by hand, μ = 100 ms, σ = 10 ms in ns. Uniform: u = 25,000,000 gives
/// (25e6 mod 2e7) + μ − σ = 95 ms. With a table entry t = 8192 (one σ): σ mod 8192 =
/// 5760, 5760·8192 + 4096 over 8192 = 5760, plus (σ / 8192 = 1220)·8192 = 9,994,240:
/// μ + 10,000,000 exactly. With t = −1: (−5760 − 4096)/8192 = −1 (C truncates), plus
/// −1220: μ − 1221 (σ/8192 = 1220.7, rounded away from zero).
#[test]
fn tabledist_does_the_kernels_arithmetic() {
    let (mu, sigma) = (100_000_000i64, 10_000_000i32);
    assert_eq!(tabledist(mu, sigma, 25_000_000, None), 95_000_000);
    let t: &[i16] = &[8192, -1];
    assert_eq!(tabledist(mu, sigma, 0, Some(t)), mu + 10_000_000);
    assert_eq!(tabledist(mu, sigma, 1, Some(t)), mu - 1221);
}

/// Batch means of a 0/1 loss sequence: (mean, its standard error from 100 batches).
fn batch_mean(mut lost: impl FnMut() -> bool, n: usize) -> (f64, f64) {
    let b = 100;
    let means: Vec<f64> = (0..b)
        .map(|_| (0..n / b).filter(|_| lost()).count() as f64 / (n / b) as f64)
        .collect();
    let m = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (b - 1) as f64;
    (m, (var / b as f64).sqrt())
}

/// The 4-state chain as `loss_4state` walks it (a packet is lost when the chain enters or
/// stays in a loss state): from state 1 (TX in gap) to 4 with p14, to 3 with p13; from 2
/// (TX in burst) to 3 with p23; from 3 (lost in burst) to 2 with p32, to 1 with p31, else
/// it stays; from 4 always back to 1. Balance gives π4 = p14·π1, π3 = p13·π1/p31,
/// π2 = p32·π3/p23, and the loss rate π3 + π4 = π1·(p14 + p13/p31) with
/// π1 = 1/(1 + p14 + p13/p31 + p13·p32/(p31·p23)). For p13 = 5%, p31 = 60%, p32 = 20%,
/// p23 = 30%, p14 = 1%: 0.093333/1.148889 = 8.124%. Two million packets' loss rate must
/// sit within 5 standard errors (batch means; the chain forgets within a few packets).
/// docs/references.md NETEM-1.
#[test]
fn four_state_loss_rate_matches_the_stationary_closed_form() {
    let (p13, p31, p32, p23, p14) = (0.05, 0.6, 0.2, 0.3, 0.01);
    let l = Loss::State {
        p13: prob_u32(p13),
        p31: prob_u32(p31),
        p32: prob_u32(p32),
        p23: prob_u32(p23),
        p14: prob_u32(p14),
    };
    let pi1 = 1.0 / (1.0 + p14 + p13 / p31 + p13 * p32 / (p31 * p23));
    let want = pi1 * (p14 + p13 / p31);
    assert!((want - 0.08124).abs() < 1e-4, "{want}");
    let mut rng = Rng::new(1, 2);
    let mut st = Clg::TxGap;
    let (got, se) = batch_mean(
        || loss_4state(&mut st, &l, (rng.next_u64() >> 32) as u32),
        2_000_000,
    );
    assert!((got - want).abs() < 5.0 * se, "{got} vs {want} ± {se}");
    assert!(se < 0.002, "{se}");
}

/// Gilbert-Elliott as `loss_gilb_ell` walks it: the state moves first (good → bad with p,
/// bad → good with r), then the packet is lost with 1 − k in good, 1 − h in bad. The state
/// after the move is stationary: π_bad = p/(p + r), so the loss rate is
/// r/(p + r)·(1 − k) + p/(p + r)·(1 − h). tc `gemodel 2% 20% 80% 0.5%`: 1 − h = 0.8,
/// 1 − k = 0.005: (0.2·0.005 + 0.02·0.8)/0.22 = 7.727%. docs/references.md NETEM-2.
#[test]
fn gilbert_elliott_loss_rate_matches_the_stationary_closed_form() {
    let (p, r, one_h, one_k) = (0.02, 0.2, 0.8, 0.005);
    let l = loss_of(&toml::Value::Array(
        ["gemodel", "2%", "20%", "80%", "0.5%"]
            .iter()
            .map(|s| toml::Value::String(s.to_string()))
            .collect(),
    ))
    .unwrap();
    assert_eq!(
        l,
        Loss::Ge {
            p: prob_u32(p),
            r: prob_u32(r),
            h: u32::MAX - prob_u32(one_h),
            k1: prob_u32(one_k)
        }
    );
    let want = (r * one_k + p * one_h) / (p + r);
    assert!((want - 0.077_27).abs() < 1e-5, "{want}");
    let mut rng = Rng::new(3, 4);
    let mut st = Clg::Good;
    let (got, se) = batch_mean(
        || {
            let r1 = (rng.next_u64() >> 32) as u32;
            let r2 = (rng.next_u64() >> 32) as u32;
            loss_gilb_ell(&mut st, &l, r1, r2)
        },
        2_000_000,
    );
    assert!((got - want).abs() < 5.0 * se, "{got} vs {want} ± {se}");
}

fn val(s: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {s}")).unwrap()["v"].clone()
}

/// tc's defaults for the values left out: `state P` is p31 = 1 − P, p32 = 0, p23 = 1,
/// p14 = 0 (Bernoulli-like bursts); `gemodel P` is r = 1, 1 − h = 1, 1 − k = 0 (simple
/// Gilbert). A bare percentage is `random`.
#[test]
fn loss_takes_tcs_words_and_defaults() {
    assert_eq!(
        loss_of(&val("\"1%\"")).unwrap(),
        Loss::Random {
            p: prob_u32(0.01),
            corr: 0
        }
    );
    assert_eq!(
        loss_of(&val("[\"random\", \"1%\", \"25%\"]")).unwrap(),
        Loss::Random {
            p: prob_u32(0.01),
            corr: prob_u32(0.25)
        }
    );
    assert_eq!(
        loss_of(&val("[\"state\", \"10%\"]")).unwrap(),
        Loss::State {
            p13: prob_u32(0.1),
            p31: prob_u32(0.9),
            p32: 0,
            p23: u32::MAX,
            p14: 0
        }
    );
    assert_eq!(
        loss_of(&val("[\"gemodel\", 0.1]")).unwrap(),
        Loss::Ge {
            p: prob_u32(0.1),
            r: u32::MAX,
            h: 0,
            k1: 0
        }
    );
    assert!(loss_of(&val("[\"markov\", \"1%\"]")).is_err());
    assert!(loss_of(&val("\"101%\"")).is_err());
    assert!(loss_of(&val("[\"state\", 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]")).is_err());
}

/// tc-netem(8)'s `reorder 100% gap 5` with a 10 ms delay: packets 1–4 take the delay
/// (counter 0 → 4), the 5th finds counter = gap − 1 and the draw (100% ≥ anything) sends
/// it at once, resetting the counter; so do the 10th and 15th. Arrivals 1 ms apart.
#[test]
fn reorder_with_gap_sends_every_gapth_packet_at_once() {
    let mut s = Spec::fixed(10 * MS, 1000);
    s.reorder = u32::MAX;
    s.gap = 5;
    let arr: Vec<_> = (1..=15u32)
        .map(|i| (i, (i as u64 - 1) * MS, 1500))
        .collect();
    let (out, lost) = run(&s, &arr);
    assert!(lost.is_empty());
    for &(id, t) in &out {
        let arrival = (id as u64 - 1) * MS;
        if id % 5 == 0 {
            assert_eq!(t, arrival, "packet {id}");
        } else {
            assert_eq!(t, arrival + 10 * MS, "packet {id}");
        }
    }
    assert_eq!(out.len(), 15);
}

/// `rate 1mbit` (125,000 B/s) with no delay: 1000-byte packets all arriving at 0 take
/// 1000·10⁹/125,000 = 8,000,000 ns each, so they leave at 8, 16, 24 ms. With packet
/// overhead 20, cell size 48 and cell overhead 5: 1020 bytes need ⌈1020/48⌉ = 22 cells of
/// 53 bytes = 1166 bytes, 9,328,000 ns each. With a 100 ms delay the first leaves at
/// 108 ms; the second's delay is reduced by what it already waits behind the first
/// (100 − 108 < 0 → 0) and it leaves 8 ms after it, at 116 ms.
#[test]
fn rate_spaces_packets_by_their_serialisation_time() {
    let three: Vec<_> = (1..=3).map(|i| (i, 0, 1000)).collect();
    let mut s = Spec::fixed(0, 1000);
    s.rate = 1_000_000 / 8;
    let (out, _) = run(&s, &three);
    assert_eq!(out, vec![(1, 8 * MS), (2, 16 * MS), (3, 24 * MS)]);
    let (mut c, mut d) = (s.clone(), s.clone());
    (c.packet_overhead, c.cell_size, c.cell_overhead) = (20, 48, 5);
    let (out, _) = run(&c, &three);
    assert_eq!(out[0].1, 9_328 * US);
    assert_eq!(out[2].1, 3 * 9_328 * US);
    d.delay = 100 * MS;
    let (out, _) = run(&d, &three);
    assert_eq!(out, vec![(1, 108 * MS), (2, 116 * MS), (3, 124 * MS)]);
}

/// Packets leave in `time_to_send` order: uniform jitter of ±5 ms on 10 ms with arrivals
/// 100 µs apart reorders many of them, every departure is at its time (never before the
/// arrival + 5 ms), and the departures never go back in time. With a rate (here
/// 1 Gbit/s) each packet leaves after the one before: none is reordered.
#[test]
fn jitter_reorders_unless_a_rate_is_set() {
    let arr: Vec<_> = (1..=2000u32)
        .map(|i| (i, i as u64 * 100 * US, 1500))
        .collect();
    let mut s = Spec::fixed(10 * MS, 10_000);
    s.jitter = 5 * MS;
    let (out, _) = run(&s, &arr);
    assert_eq!(out.len(), 2000);
    let inversions = out.windows(2).filter(|w| w[1].0 < w[0].0).count();
    assert!(inversions > 500, "{inversions}");
    assert!(out.windows(2).all(|w| w[0].1 <= w[1].1));
    for &(id, t) in &out {
        let a = id as u64 * 100 * US;
        assert!(t >= a + 5 * MS && t < a + 15 * MS, "packet {id} at {t}");
    }
    s.rate = 1_000_000_000 / 8;
    let (out, _) = run(&s, &arr);
    assert!(out.windows(2).all(|w| w[1].0 > w[0].0));
}

/// The jitter's spread and correlation as the kernel's arithmetic makes them. Uniform:
/// (u mod 2σ) − σ is uniform on [−σ, σ): mean 0, standard deviation σ/√3. Normal table: σ.
/// With 25% correlation `get_crandom` is an AR(1) of uniforms — its own lag-1
/// correlation is ρ = 0.25 and its variance (1 − ρ)/(1 + ρ) = 0.6 of a uniform's — but
/// `tabledist` takes it modulo 2σ (or the table's 4096 entries), which folds the narrowed
/// distribution back to uniform and the correlation away: the delays keep σ/√3 and a
/// lag-1 correlation near 0 (what tc-netem(8) warns of). 200,000 draws: the sample
/// correlation's standard error is 1/√n ≈ 0.0022. docs/references.md NETEM-3.
#[test]
fn jitter_spread_follows_the_distribution_and_correlation_folds_away() {
    let draws = |dist: Dist, corr: f64| {
        let mut x = Ext::new(&Spec {
            jitter: 10 * MS,
            dist,
            delay_corr: prob_u32(corr),
            ..Spec::fixed(100 * MS, 1000)
        });
        x.rng = Rng::new(9, 9);
        let (mut raw, mut d) = (Vec::new(), Vec::new());
        for _ in 0..200_000 {
            let u = x.u32();
            let r = x.delay_cor.next(u);
            raw.push(r as f64);
            d.push((tabledist(x.latency_ns, x.jitter_ns, r, x.table) - x.latency_ns) as f64);
        }
        (raw, d)
    };
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|y| (y - m).powi(2)).sum::<f64>() / n;
        let lag1 = v.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / n / var;
        (m, var.sqrt(), lag1)
    };
    let sigma = 10_000_000.0;
    let (_, d) = draws(Dist::Uniform, 0.0);
    let (m, s, _) = stats(&d);
    assert!(m.abs() < sigma * 0.01 && (s / (sigma / 3f64.sqrt()) - 1.0).abs() < 0.01);
    let (_, d) = draws(Dist::Normal, 0.0);
    let (m, s, _) = stats(&d);
    assert!(
        m.abs() < sigma * 0.01 && (s / sigma - 1.0).abs() < 0.02,
        "{s}"
    );
    let (raw, d) = draws(Dist::Uniform, 0.25);
    let (_, s_raw, r_raw) = stats(&raw);
    let s_u = 2f64.powi(32) / 12f64.sqrt();
    assert!((r_raw - 0.25).abs() < 0.01, "{r_raw}");
    assert!(
        (s_raw / (s_u * 0.6f64.sqrt()) - 1.0).abs() < 0.01,
        "{s_raw}"
    );
    let (_, s, r) = stats(&d);
    assert!((s / (sigma / 3f64.sqrt()) - 1.0).abs() < 0.01, "{s}");
    assert!(r.abs() < 0.01, "{r}");
}

/// Random loss of 10% with `ecn`: ECN-capable packets are marked, not dropped; the others
/// are dropped. The same seed gives the same losses; another seed, others.
#[test]
fn random_loss_drops_or_marks_and_follows_the_seed() {
    let mut s = Spec::fixed(MS, 100_000);
    s.loss = Loss::Random {
        p: prob_u32(0.1),
        corr: 0,
    };
    let losses = |s: &Spec, seed: u64, ecn: u8| {
        let mut q = s.build();
        q.start(&mut Rng::new(seed, 3));
        (0..10_000)
            .map(|i| {
                let m = PktMeta {
                    len: 100,
                    ecn,
                    now: i,
                    ..Default::default()
                };
                q.enqueue(i as PktId, &m)
            })
            .collect::<Vec<_>>()
    };
    let a = losses(&s, 1, NOT_ECT);
    let n = a.iter().filter(|v| **v == Verdict::Drop).count();
    assert!((900..1100).contains(&n), "{n}");
    assert_eq!(a, losses(&s, 1, NOT_ECT));
    assert_ne!(a, losses(&s, 2, NOT_ECT));
    s.ecn = true;
    let b = losses(&s, 1, 2);
    assert!(!b.contains(&Verdict::Drop));
    assert_eq!(b.iter().filter(|v| **v == Verdict::MARK_CE).count(), n);
}

/// `duplicate 100%`: the first offer answers Duplicate (the port then offers the copy and
/// the original again); the copy is queued without a duplicate draw of its own, the
/// original is queued without new draws; both leave after the delay, the copy first (it
/// was queued first). The limit counts both. 50%: about half the packets are copied
/// (binomial, n = 10⁴: 5000 ± 4 standard deviations of 50).
#[test]
fn duplicate_asks_the_port_for_a_copy_and_never_copies_a_copy() {
    let mut s = Spec::fixed(10 * MS, 3);
    s.duplicate = u32::MAX;
    let mut q = s.build();
    q.start(&mut Rng::new(1, 1));
    let mut drops = Vec::new();
    assert_eq!(q.enqueue(1, &meta(0)), Verdict::Duplicate);
    assert_eq!(q.enqueue(2, &meta(0)), Verdict::ENQUEUE, "the copy");
    assert_eq!(q.enqueue(1, &meta(0)), Verdict::ENQUEUE, "the original");
    assert_eq!(q.backlog().pkts, 2);
    assert_eq!(q.enqueue(3, &meta(MS)), Verdict::Duplicate);
    assert_eq!(q.enqueue(4, &meta(MS)), Verdict::ENQUEUE);
    // The original passed its limit check (2 held) before its copy was queued, as in
    // `netem_enqueue`: the pair goes one past the limit.
    assert_eq!(q.enqueue(3, &meta(MS)), Verdict::ENQUEUE);
    assert_eq!(q.backlog().pkts, 4);
    assert_eq!(q.enqueue(5, &meta(MS)), Verdict::Drop, "limit 3");
    assert_eq!(q.dequeue(10 * MS, &mut drops), Deq::Packet(2, Mark::None));
    assert_eq!(q.dequeue(10 * MS, &mut drops), Deq::Packet(1, Mark::None));
    assert_eq!(q.dequeue(11 * MS, &mut drops), Deq::Packet(4, Mark::None));
    assert_eq!(q.dequeue(11 * MS, &mut drops), Deq::Packet(3, Mark::None));
    s.duplicate = prob_u32(0.5);
    s.limit = 100_000;
    let mut q = s.build();
    q.start(&mut Rng::new(1, 2));
    let mut dups = 0;
    for i in 0..10_000u32 {
        if q.enqueue(i, &meta(0)) == Verdict::Duplicate {
            dups += 1;
            assert_eq!(q.enqueue(1_000_000 + i, &meta(0)), Verdict::ENQUEUE);
            assert_eq!(q.enqueue(i, &meta(0)), Verdict::ENQUEUE);
        }
    }
    assert!((4_800..5_200).contains(&dups), "{dups}");
}

/// A whole run of examples/netem.toml (jitter and Gilbert-Elliott loss), shortened to
/// 5 s: the bottleneck's netem draws from the run's seed (checked on the built world's
/// port below: other parts of a run also draw from the seed), so the same seed gives the same
/// run and another seed another loss pattern; the drops are the GE model's (mean rate
/// (0.3·0.0001 + 0.01·0.5)/0.31 = 1.6%): more than none and well under 5% of what
/// arrives (5 s hold a few thousand packets: a few dozen bad-state bursts).
#[test]
fn a_run_draws_netem_from_its_seed() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/netem.toml"
    ))
    .unwrap();
    let run = |seed: &str| {
        let sets = [
            ("sim.duration".to_string(), "\"5s\"".to_string()),
            ("sim.seed".to_string(), seed.to_string()),
        ];
        let sc = crate::scenario::parse_scenario(&text, "netem.toml", &sets).unwrap();
        let r = crate::world::run(&sc).unwrap();
        let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
        (q.drops, q.enqueued, r.flows[0].goodput_bps.to_bits())
    };
    let a = run("1");
    assert_eq!(a, run("1"));
    assert_ne!(a, run("2"));
    // The bottleneck's netem holds the port's stream of the run's seed (`world::build`
    // seeds it), not the stream `build` starts it with: its next draw differs by seed.
    let next_draw = |seed: &str| {
        let sets = [("sim.seed".to_string(), seed.to_string())];
        let sc = crate::scenario::parse_scenario(&text, "netem.toml", &sets).unwrap();
        let mut sim = crate::world::build(&sc).unwrap();
        let pid = sim.net.port_by_name("bottleneck").unwrap();
        match &mut sim.net.port_mut(pid).qdisc {
            crate::qdisc::Qdisc::Delay(n) => n.ext.as_mut().unwrap().rng.next_u64(),
            _ => panic!("not netem"),
        }
    };
    let unseeded = {
        let sc = crate::scenario::parse_scenario(&text, "netem.toml", &[]).unwrap();
        let crate::net::topology::spec::TopologySpec::Dumbbell { bottleneck, .. } = &sc.topology
        else {
            panic!("not a dumbbell")
        };
        match bottleneck.queue.build() {
            crate::qdisc::Qdisc::Delay(mut n) => n.ext.as_mut().unwrap().rng.next_u64(),
            _ => panic!("not netem"),
        }
    };
    assert_eq!(next_draw("1"), next_draw("1"));
    assert_ne!(next_draw("1"), next_draw("2"));
    assert_ne!(next_draw("1"), unseeded);
    let (drops, enqueued, _) = a;
    let rate = drops as f64 / (drops + enqueued) as f64;
    assert!(drops > 0 && rate < 0.05, "{drops} of {}", drops + enqueued);
}
