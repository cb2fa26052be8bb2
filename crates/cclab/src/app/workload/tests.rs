use super::*;

#[test]
fn all_to_all_checks_one_host_per_switch_and_one_pair_inside() {
    // Hosts 0 and 1 on switch 10, 2 and 4 on 11, 3 on no single switch.
    let nodes = [0, 1, 2, 3, 4];
    let on = |n: crate::net::NodeId| match n {
        0 | 1 => Some(10),
        2 | 4 => Some(11),
        _ => None,
    };
    let pairs = all_pairs_classes(&nodes, on);
    assert_eq!(pairs, vec![(0, 2), (0, 3), (2, 3), (0, 1), (2, 4)]);
}

#[test]
fn the_built_in_distributions_parse_with_their_known_means() {
    let ws = Cdf::parse("websearch", BUILT_IN[0].1).unwrap();
    let dm = Cdf::parse("datamining", BUILT_IN[1].1).unwrap();
    // Hand-worked: Σ Δp × midpoint over the segments.
    // websearch: 0.15·5e3 + 0.05·15e3 + 0.1·25e3 + 0.1·40e3 + 0.13·65e3 + 0.07·140e3
    //   + 0.1·600e3 + 0.1·1.5e6 + 0.1·3.5e6 + 0.07·7.5e6 + 0.03·20e6 = 1,711,250 B.
    assert!((ws.mean() - 1_711_250.0).abs() < 1e-6, "{}", ws.mean());
    // datamining: 0.1·(90 + 198 + 388 + 730 + 1,000 + 1,485 + 2,515 + 6,580 + 205,000)
    //   + 0.05·1.78e6 + 0.03·51.58e6 + 0.02·550e6 = 12,658,198.6 B.
    assert!((dm.mean() - 12_658_198.6).abs() < 1e-3, "{}", dm.mean());
    // Quantiles: the points themselves, and linear between them.
    assert_eq!(ws.quantile(0.15), 10_000);
    assert_eq!(ws.quantile(0.175), 15_000);
    assert_eq!(ws.quantile(0.0), 1);
    // 10 MB + 20 MB × (0.9999999 − 0.97) / 0.03 = 29,999,933.3, rounded up.
    assert_eq!(ws.quantile(0.9999999), 29_999_934);
}

#[test]
fn bad_cdfs_are_refused_with_the_line() {
    assert!(Cdf::parse("x", "0 0\n10 0.5\n5 1\n")
        .unwrap_err()
        .contains("line 3"));
    assert!(Cdf::parse("x", "0 0\n10 0.5\n")
        .unwrap_err()
        .contains("last at 1"));
    assert!(Cdf::parse("x", "0 0\nten 1\n")
        .unwrap_err()
        .contains("line 2"));
}

fn spec(pattern: Pattern, load: f64) -> WorkloadSpec {
    WorkloadSpec {
        pattern,
        sizes: Cdf::parse("websearch", BUILT_IN[0].1).unwrap(),
        load,
        hosts: Vec::new(),
        start: 0,
        stop: 2 * crate::engine::SEC,
        fan_in: 4,
        to: None,
        max_flows: 1_000_000,
        tcp: TcpConfig::default(),
    }
}

#[test]
fn arrivals_carry_the_load_and_follow_the_pattern() {
    let rates = vec![10_000_000_000u64; 16];
    let w = spec(Pattern::AllToAll, 0.5);
    let a = arrivals(&w, &rates, None, 99);
    // Offered bytes over 2 s against load × capacity: a sum of ~11,700 draws of a
    // distribution with coefficient of variation ≈ 2.0 has a relative standard error
    // of about 2 %; 8 % is four of them.
    let offered = a.iter().map(|x| x.bytes as f64).sum::<f64>() * 8.0;
    let want = 0.5 * 10e9 * 16.0 * 2.0;
    assert!((offered / want - 1.0).abs() < 0.08, "{offered} vs {want}");
    assert!(a.iter().all(|x| x.from != x.to && x.at < w.stop));
    assert!(a.windows(2).all(|p| p[0].at <= p[1].at));
    // Permutation: each host always to the same other host, all different.
    let p = arrivals(&spec(Pattern::Permutation, 0.3), &rates, None, 100);
    let mut dst = vec![usize::MAX; 16];
    for x in &p {
        assert!(dst[x.from] == usize::MAX || dst[x.from] == x.to);
        dst[x.from] = x.to;
        assert_ne!(x.from, x.to);
    }
    let mut seen = dst.clone();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 16, "a permutation");
    // Incast: groups of fan_in distinct senders to one receiver at one time.
    let c = arrivals(&spec(Pattern::Incast, 0.3), &rates, Some(3), 101);
    for g in c.chunks(4) {
        assert!(g
            .iter()
            .all(|x| x.at == g[0].at && x.to == 3 && x.from != 3));
        let mut f: Vec<usize> = g.iter().map(|x| x.from).collect();
        f.dedup();
        assert_eq!(f.len(), 4);
    }
}
