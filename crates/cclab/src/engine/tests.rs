use super::*;

#[test]
fn ties_run_in_insertion_order() {
    let mut q = EventQueue::new();
    q.schedule(10, 'b');
    q.schedule(5, 'a');
    q.schedule(10, 'c');
    q.schedule(10, 'd');
    let order: Vec<char> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|e| e.1)).collect();
    assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    assert_eq!(q.now(), 10);
    assert_eq!(q.events_processed(), 4);
}

#[test]
fn heap_pops_in_time_then_insertion_order_under_random_load() {
    // Interleaved schedules and pops (as a simulation does: never in the past), checked
    // against a sorted reference of (time, insertion number).
    let mut rng = Rng::new(3, 0);
    let mut q = EventQueue::new();
    let mut reference: Vec<(SimTime, u64)> = Vec::new();
    let mut n = 0u64;
    let mut popped = Vec::new();
    let mut peeked = 0;
    for step in 0..20_000 {
        let burst = (rng.next_u64() % 4) as usize;
        for _ in 0..burst {
            // Many equal times, to exercise the tie-break.
            let at = q.now() + rng.next_u64() % 50;
            q.schedule(at, n);
            reference.push((at, n));
            n += 1;
        }
        if step % 3 != 0 {
            // What `peek_near` names (for prefetching) is what pops next.
            let next = q.peek_near().copied();
            if let Some((t, ev)) = q.pop_until(SimTime::MAX) {
                if let Some(e) = next {
                    assert_eq!(e, ev);
                    peeked += 1;
                }
                popped.push((t, ev));
                let i = reference
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, r)| **r)
                    .map(|(i, _)| i)
                    .unwrap();
                assert_eq!(reference.swap_remove(i), (t, ev));
            }
        }
    }
    while let Some((t, ev)) = q.pop_until(SimTime::MAX) {
        popped.push((t, ev));
    }
    assert_eq!(popped.len() as u64, n);
    assert!(
        peeked > 1000,
        "peek_near named the next event {peeked} times"
    );
    assert!(popped.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(q.is_empty());
    // pop_until leaves later events in place.
    q.schedule(q.now() + 10, 0);
    assert!(q.pop_until(q.now() + 9).is_none());
    assert_eq!(q.len(), 1);
}

#[test]
fn both_tiers_pop_in_time_then_insertion_order() {
    pops_in_time_then_insertion_order(11, false);
}

/// The same, with the buckets' width changed at random between rounds: the order does
/// not depend on it.
#[test]
fn pop_order_survives_every_bucket_width() {
    pops_in_time_then_insertion_order(12, true);
}

// Queues far larger than the near array, so events spill to the wheel and come back:
// bursts of many equal times, of increasing times (each new event the latest near
// one), of decreasing times, beyond the wheel's span, across buckets, more than a
// sorted bucket holds at one instant, and far-future events, checked against a
// reference. `rebucket`: after each round's pops, empty the near array (popping) and
// move the wheel to buckets of a random width.
fn pops_in_time_then_insertion_order(seed: u64, rebucket: bool) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut rng = Rng::new(seed, 0);
    let mut widths = std::collections::BTreeSet::new();
    let mut q = EventQueue::new();
    let mut reference = BinaryHeap::new();
    let mut n = 0u64;
    for round in 0..420 {
        let mut burst = (rng.next_u64() % (4 * NEAR_CAP as u64)) as usize;
        if round % 7 == 5 {
            // More than a bucket keeps sorted: it becomes a heap.
            burst += 2 * BIG;
        }
        let now = q.now();
        for j in 0..burst {
            let at = match round % 7 {
                0 => now + rng.next_u64() % 8,
                1 => now + j as u64 * 3,
                2 => now + (burst - j) as u64,
                // Beyond the wheel's span (the distant heap), some at equal times.
                3 => now + SPAN + (rng.next_u64() % 4) * SPAN / 2,
                // Across many buckets, and at bucket boundaries.
                4 => now + ((rng.next_u64() % 64) << q.shift).saturating_sub(rng.next_u64() % 2),
                // Many at one instant, or a few apart.
                5 => now + 1 + (rng.next_u64() % 3) * (rng.next_u64() % 2) * 1000,
                _ => now + rng.next_u64() % 1_000_000 * (rng.next_u64() % 2),
            };
            q.schedule(at, n);
            reference.push(Reverse((at, n)));
            n += 1;
        }
        let pops = (rng.next_u64() % (burst as u64 + 8)) as usize;
        for _ in 0..pops {
            let got = q.pop_until(SimTime::MAX);
            assert_eq!(got, reference.pop().map(|r| r.0));
        }
        if rebucket && !q.is_empty() {
            while q.near.len() > 1 {
                let got = q.pop_until(SimTime::MAX);
                assert_eq!(got, reference.pop().map(|r| r.0));
            }
            let shift = MIN_SHIFT + (rng.next_u64() % (MAX_SHIFT - MIN_SHIFT + 1) as u64) as u32;
            q.rebucket(shift);
            widths.insert(shift);
        }
        assert_eq!(q.len(), reference.len());
        // What is still queued, wherever it waits (near array, wheel, big bucket,
        // distant heap), is exactly what the reference holds.
        let mut pending = Vec::new();
        q.for_each_pending(|t, &ev| pending.push((t, ev)));
        pending.sort_unstable();
        let mut expected: Vec<(SimTime, u64)> = reference.iter().map(|r| r.0).collect();
        expected.sort_unstable();
        assert_eq!(pending, expected);
    }
    while let Some(got) = q.pop_until(SimTime::MAX) {
        assert_eq!(Some(got), reference.pop().map(|r| r.0));
    }
    assert!(reference.is_empty() && q.is_empty());
    if rebucket {
        assert_eq!(widths.len() as u32, MAX_SHIFT - MIN_SHIFT + 1, "{widths:?}");
    }
}

/// The buckets follow the event rate: about `PER_BUCKET` events each, within the
/// limits.
#[test]
fn buckets_follow_the_event_rate() {
    // (spacing of the events in ps, the width expected: log2(PER_BUCKET × spacing)
    // rounded, within MIN_SHIFT..=MAX_SHIFT)
    for (gap, want) in [
        (1, MIN_SHIFT),
        (1_000, 13),
        (2_000, 14),
        (4_000, 15),
        (60_000, 19),
        (1_000_000, MAX_SHIFT),
    ] {
        let mut q = EventQueue::new();
        // 100 events pending at all times, each popped event replaced 100 gaps later.
        for i in 0..100 {
            q.schedule(i * gap, ());
        }
        for _ in 0..3 * ADAPT_EVENTS {
            q.pop_until(SimTime::MAX).unwrap();
            q.schedule_in(100 * gap, ());
        }
        assert_eq!(q.shift, want, "one event every {gap} ps");
    }
}

#[test]
fn events_scheduled_after_a_stop_precede_a_bucket_already_taken() {
    // A run stops (`pop_until`) after the wheel has turned to a later bucket and taken
    // its events; events then scheduled before that bucket, more than the near array
    // holds (so it spills into the wheel behind its current bucket), still pop first,
    // in (time, insertion) order.
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut q = EventQueue::new();
    let mut reference = BinaryHeap::new();
    let mut n = 0u64;
    let mut add = |q: &mut EventQueue<u64>, at: SimTime| {
        q.schedule(at, n);
        reference.push(Reverse((at, n)));
        n += 1;
    };
    for i in 0..3 {
        add(&mut q, 5 * SPAN + 12_345 + i % 2);
    }
    assert!(q.pop_until(1_000).is_none());
    q.advance_to(1_000);
    for i in 0..3 * NEAR_CAP as u64 {
        add(&mut q, 1_000 + i * 7_919 % 5_000);
        add(&mut q, 5 * SPAN + 12_345);
    }
    while let Some(got) = q.pop_until(SimTime::MAX) {
        assert_eq!(Some(got), reference.pop().map(|r| r.0));
    }
    assert!(reference.is_empty() && q.is_empty());
}

#[test]
fn queued_events_are_dropped_exactly_once() {
    // Events that own something, through spills, refills, pops and a drop mid-run.
    let token = std::rc::Rc::new(());
    let mut q = EventQueue::new();
    for i in 0..10 * NEAR_CAP as u64 {
        q.schedule(q.now() + i * 7 % 97, token.clone());
        if i % 3 == 0 {
            assert!(q.pop_until(SimTime::MAX).is_some());
        }
    }
    for _ in 0..3 * NEAR_CAP {
        assert!(q.pop_until(SimTime::MAX).is_some());
    }
    assert_eq!(std::rc::Rc::strong_count(&token), 1 + q.len());
    drop(q);
    assert_eq!(std::rc::Rc::strong_count(&token), 1);
}

#[test]
fn events_left_in_the_wheel_are_dropped_once() {
    // Buckets of several chunks (more than `CHUNK` events each, the last chunk part
    // full) and buckets of one, still in the wheel when the queue is dropped.
    let token = std::rc::Rc::new(());
    let mut q = EventQueue::new();
    for i in 0..(5 * CHUNK + 3) as u64 {
        q.schedule((2 + i % 5) << START_SHIFT, token.clone());
        q.schedule((9 + i) << START_SHIFT, token.clone());
    }
    assert!(q.pop_until(SimTime::MAX).is_some());
    assert_eq!(std::rc::Rc::strong_count(&token), 1 + q.len());
    drop(q);
    assert_eq!(std::rc::Rc::strong_count(&token), 1);
}

#[test]
fn tx_time_is_exact_and_rounds_up() {
    assert_eq!(tx_time(1500, 400_000_000_000), 30_000);
    assert_eq!(tx_time(1500, 10_000_000_000), 1_200_000);
    assert_eq!(tx_time(1, 3), 2_666_666_666_667);
    // The 64-bit and 128-bit paths agree at their boundary.
    let b = u64::MAX / (8 * SEC);
    for bytes in [b - 1, b, b + 1] {
        let exact = (bytes as u128 * 8 * SEC as u128).div_ceil(7_777_777) as SimTime;
        assert_eq!(tx_time(bytes, 7_777_777), exact);
    }
}

#[test]
fn rng_streams_are_reproducible_and_distinct() {
    let a: Vec<u64> = (0..4).map(|_| Rng::new(1, 7).next_u64()).collect();
    assert!(a.windows(2).all(|w| w[0] == w[1]));
    assert_ne!(Rng::new(1, 7).next_u64(), Rng::new(1, 8).next_u64());
    assert_ne!(Rng::new(1, 7).next_u64(), Rng::new(2, 7).next_u64());
    let mut r = Rng::new(42, 0);
    let n = 200_000;
    let hits = (0..n).filter(|_| r.bernoulli(0.1)).count() as f64 / n as f64;
    assert!((hits - 0.1).abs() < 0.003, "bernoulli(0.1) gave {hits}");
}

#[test]
fn timer_rearm_later_needs_no_new_event() {
    let mut t = Timer::default();
    assert_eq!(t.arm(100), Some(100));
    assert_eq!(t.arm(150), None);
    assert_eq!(t.on_event(100), TimerCheck::Reschedule(150));
    assert_eq!(t.on_event(150), TimerCheck::Fire);
    assert_eq!(t.on_event(150), TimerCheck::Idle);
    // Re-arming earlier than the pending event schedules a new one.
    assert_eq!(t.arm(300), Some(300));
    assert_eq!(t.arm(200), Some(200));
    assert_eq!(t.on_event(200), TimerCheck::Fire);
    assert_eq!(t.on_event(300), TimerCheck::Idle);
    t.arm(400);
    t.disarm();
    assert_eq!(t.on_event(400), TimerCheck::Idle);
}
