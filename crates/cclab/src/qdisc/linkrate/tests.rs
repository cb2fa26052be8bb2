use super::*;
use crate::qdisc::QueueSpec;
use crate::schema::Limit;

/// The opportunities `src` gives up to `until`, drawn from stream (`seed`, 0).
pub(crate) fn opportunities(src: &RateSource, seed: u64, until: SimTime) -> Vec<SimTime> {
    let mut o = Opportunities::new(src, Rng::new(seed, 0));
    let mut v = Vec::new();
    loop {
        let t = o.next();
        if t > until {
            return v;
        }
        v.push(t);
    }
}

/// The discipline asked as a port asks it: a packet queued at 0.5 ms is not there before
/// the first opportunity (1 ms), leaves at it, and the backlog counts it until then; an
/// opportunity with nothing queued is lost.
#[test]
fn the_discipline_answers_not_before_the_next_opportunity() {
    let t = Arc::new(mahimahi::Trace::parse("1\n4\n").unwrap());
    let src = RateSource::Trace(Default::default(), t);
    let child = QueueSpec::droptail(Limit::Packets(10)).build();
    let mut q = LinkRate::new(child, &src, Rng::new(1, 0));
    let mut drops = Vec::new();
    let m = |len, now| PktMeta {
        len,
        segs: 1,
        now,
        ..PktMeta::default()
    };
    assert_eq!(q.dequeue(0, &mut drops), Deq::Empty);
    assert_eq!(q.enqueue(0, &m(1500, MS / 2)), Verdict::ENQUEUE);
    assert_eq!(
        q.backlog(),
        Backlog {
            bytes: 1500,
            pkts: 1
        }
    );
    assert_eq!(q.dequeue(MS / 2, &mut drops), Deq::NotBefore(MS));
    assert_eq!(q.dequeue(MS, &mut drops), Deq::Packet(0, Mark::None));
    assert_eq!(q.backlog(), Backlog::default());
    // The 4-ms opportunity finds nothing; a packet at 4.5 ms waits for 5 ms (4 + 1).
    assert_eq!(q.enqueue(1, &m(600, 4 * MS + MS / 2)), Verdict::ENQUEUE);
    assert_eq!(
        q.dequeue(4 * MS + MS / 2, &mut drops),
        Deq::NotBefore(5 * MS)
    );
    assert_eq!(q.dequeue(5 * MS, &mut drops), Deq::Packet(1, Mark::None));
    assert_eq!(q.dequeue(5 * MS, &mut drops), Deq::Empty);
    // An offload aggregate is cut into its packets first.
    let agg = PktMeta {
        segs: 2,
        ..m(3000, 6 * MS)
    };
    assert_eq!(q.enqueue(2, &agg), Verdict::Segment);
}

/// A generated link: the same seed gives the same deliveries; its long-run rate is the
/// model's mean (good 12 Mbit/s for 2 s on average, bad 2 Mbit/s for 1 s: 26/3 Mbit/s);
/// an on/off link delivers nothing while off.
#[test]
fn a_markov_link_delivers_its_mean_rate_from_its_seed() {
    let m = Markov {
        rate: [12_000_000, 2_000_000],
        mean: [2000 * MS, 1000 * MS],
        poisson: true,
    };
    assert_eq!(m.mean_bps(), 8_666_666);
    let src = RateSource::Markov(m);
    let a = opportunities(&src, 7, 600 * SEC);
    let b = opportunities(&src, 7, 600 * SEC);
    assert_eq!(a, b, "deterministic from the seed");
    // Over 600 s, about 200 state cycles: the count of 1500-byte opportunities is within
    // 10% of the mean (the cycles' own spread is ~ 1/sqrt(200) ≈ 7% of one cycle's
    // share, on the rate's 12 vs 2 Mbit/s split: a few per cent).
    let rate = a.len() as f64 * 12_000.0 / 600.0;
    assert!((rate / 8_666_666.0 - 1.0).abs() < 0.10, "{rate}");
    let onoff = RateSource::Markov(Markov {
        rate: [12_000_000, 0],
        mean: [100 * MS, 100 * MS],
        poisson: false,
    });
    let o = opportunities(&onoff, 3, 10 * SEC);
    // Evenly spaced at 1 ms while on; gaps above 1 ms are off periods.
    let gaps: Vec<SimTime> = o.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().filter(|&&g| g == MS).count() > gaps.len() * 9 / 10);
    assert!(gaps.iter().any(|&g| g > 20 * MS));
    let share = o.len() as f64 / 10_000.0;
    assert!(
        (0.35..0.65).contains(&share),
        "on about half the time: {share}"
    );
}
