//! `cclab reproduce --json` end to end: each experiment's `--quick` run and the verdicts,
//! checks and rows its contract promises (moved from cli.rs as it was).

use crate::common::{assert_verdicts, reproduce_json, row};

#[test]
fn reproduce_reno_recovery_quick_passes() {
    let v = reproduce_json("reno-recovery");
    assert_eq!(row(&v, "rtt_6ms", "recovery_s")["seed"], 1.6);
    assert_eq!(row(&v, "rtt_25ms", "recovery_s")["seed"], 26.0);
    assert!(row(&v, "rtt_25ms", "formula_s")["seed"].is_null());
    // Each seed number and each closed form: 2 + 2 checks in --quick.
    assert_eq!(v["tally"]["seed_reproduce"], 2);
    assert_verdicts(&v, [2, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 2);
}

#[test]
fn reproduce_mathis_quick_passes() {
    let v = reproduce_json("mathis");
    // No seed numbers: closed forms only (Mathis at p ≤ 1e-3, PFTK at 1e-2).
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 4);
    for p in ["p_1e-2", "p_1e-3", "p_1e-4", "p_1e-5"] {
        // Bernoulli loss: every goodput is a mean of at least three runs with its interval.
        let g = row(&v, p, "goodput_mbps");
        assert!(g["runs"].as_u64().unwrap() >= 3, "{g}");
        assert!(g["ci95"].as_f64().unwrap() > 0.0, "{g}");
        row(&v, p, "mathis_mbps");
    }
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 4);
    assert!(checks.iter().all(|c| c["against"] == "closed_form"));
}

#[test]
fn reproduce_cubic_vs_reno_quick_passes() {
    let v = reproduce_json("cubic-vs-reno");
    // No seed numbers: each stack against the closed-form lower bound.
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 2);
    assert_eq!(row(&v, "reno", "utilization")["runs"], 3);
    row(&v, "cubic", "utilization");
}

/// seed 000's buffer claims on the incast: DCTCP's queue a tenth of CUBIC's or less, the
/// same throughput with a tenth of the buffer, CUBIC's ping growing with the buffer and
/// DCTCP's not; CUBIC's queue standing between 0.7 B and B (the closed form).
#[test]
fn reproduce_dctcp_buffer_quick_passes() {
    let v = reproduce_json("dctcp-buffer");
    assert_verdicts(&v, [5, 0, 0, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // The sweep's rows: CUBIC's ping rises with the buffer (about B / 10 Gbit/s), DCTCP's
    // queue stays below its floor of 19 two-segment windows whatever the buffer.
    let (c1, c10) = (
        num("cubic_1mb", "ping_mean_ms"),
        num("cubic_10mb", "ping_mean_ms"),
    );
    assert!(c1 > 0.5 && c1 < 0.9 && c10 > 5.6 && c10 < 8.1, "{c1} {c10}");
    for b in ["0.5", "1", "5", "10"] {
        let q = num(&format!("dctcp_{b}mb"), "queue_mean_kb");
        assert!(q < 343.0, "dctcp at {b} MB: {q} KB");
    }
    let closed: Vec<_> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["against"] == "closed_form")
        .collect();
    assert_eq!(closed.len(), 3, "one per CUBIC buffer in --quick");
}

/// seed 001 slide 10 on slide 16's path: GbE's spread above Fast Ethernet's reproduces;
/// "Fast Ethernet gt GbE" fails with Linux 2.4's txqueuelen of 100 (the sender's own
/// qdisc halves the FE window) and is explained by txqueuelen 10000.
#[test]
fn reproduce_nic_speed_quick_passes() {
    let v = reproduce_json("nic-speed");
    assert_verdicts(&v, [1, 1, 0, 0]);
    let num = |variant: &str| row(&v, variant, "goodput_mbps")["sim"].as_f64().unwrap();
    // Fast Ethernet with a deep qdisc runs near its line rate's reach in 10 s; GbE below.
    assert!(num("fast_ethernet_txq10000") > 1.5 * num("gbe_txq10000"));
    assert!(num("fast_ethernet") < num("gbe"));
}

/// seed 004's arithmetic and buffer claims: the windows reproduce; the post's 18 MB queue
/// and 90% drops are explained by a sender that dumps its window (the first flight of a
/// starting TCP is 10 segments: 80% dropped); comment 2's ramp stays near 1×; what ECN
/// adds through fq_codel is within the runs' spread (unresolved).
#[test]
fn reproduce_lfn_buffering_quick_passes() {
    let v = reproduce_json("lfn-buffering");
    assert_verdicts(&v, [5, 2, 0, 1]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // Window-limited: 10 MB per 160 ms is 500 Mbit/s of payload.
    let g = num("window_10mb_1g", "goodput_mbps");
    assert!((g - 500.0).abs() < 5.0, "{g}");
    assert_eq!(num("no_buffer", "first_rtt_drop_pct"), 80.0);
    assert_eq!(num("dump_no_buffer", "first_rtt_pkts"), 13812.0);
    let q = num("dump_window_20mb", "peak_queue_mb");
    assert!(q > 18.0 && q < 19.0, "{q}");
    assert!(num("tuned_buffer_18mb", "drops") > 0.0);
}

/// seed 001 slides 23, 29-32: the paths' 8.2 Gbit/s is the nominal sum (explained), the
/// streams' peak is far above 5.42 (fails), a bursty sender loses where an IPG-tuned one
/// does not (reproduces), and in the lab's short runs a smaller buffer loses less per
/// segment (slow start's overshoot; fails).
#[test]
fn reproduce_sc2003_quick_passes() {
    let v = reproduce_json("sc2003");
    assert_verdicts(&v, [1, 1, 2, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // 3 × OC-48 over POS and one GbE, in IP bit/s.
    let c = num("capacity", "aggregate_gbps");
    assert!((c - 8.12).abs() < 0.01, "{c}");
    assert_eq!(num("lab_ipg_1mb", "drops_per_1000_segments"), 0.0);
    assert_eq!(num("oc48_326ms", "ipgt"), 902.0);
}

/// seed 003 slides 46–49: tcpmon on one 2.6-era connection. Every seed number fails in
/// --quick; the untuned first event is the 64 KB window's ~20 RTT, a tuned response one
/// flight (1.45 RTT at 20 ms), the route-cache cause run ~18 RTT, and no restart after idle
/// fires during the 50 ms waits.
#[test]
fn reproduce_tcpmon_quick_passes() {
    let v = reproduce_json("tcpmon");
    assert_verdicts(&v, [0, 0, 13, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    let untuned = num("manc_cern_untuned", "first_event_rtt");
    assert!((19.5..20.5).contains(&untuned), "{untuned}");
    let steady = num("manc_cern_tuned", "steady_response_rtt");
    assert!((1.40..1.50).contains(&steady), "{steady}");
    let cached = num("manc_cern_tuned_cached_ssthresh", "first_event_ms");
    assert!((340.0..375.0).contains(&cached), "{cached}");
    assert!(num("alberta_cern_tuned", "first_event_rtt") < 9.0);
    for p in ["manc_cern_untuned", "manc_cern_tuned", "alberta_cern_tuned"] {
        assert_eq!(num(p, "cwnd_restarts"), 0.0, "{p}");
        assert_eq!(num(p, "timeouts"), 0.0, "{p}");
    }
}

/// seed 003 slides 40–42: SC2004 over UKLight. With 2.6's 1000-packet qdisc the sender
/// enters CWR in slow start and Reno crawls; txqueuelen 10000 reaches wire rate and
/// explains all three numbers; Scalable above Standard reproduces.
#[test]
fn reproduce_sc2004_quick_passes() {
    let v = reproduce_json("sc2004");
    assert_verdicts(&v, [1, 3, 0, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert_eq!(num("mem_standard", "cwr_episodes"), 1.0);
    assert_eq!(num("mem_standard_txq10000", "cwr_episodes"), 0.0);
    let t = num("bbftp_standard_txq10000", "transfer_s");
    assert!((20.0..21.0).contains(&t), "{t}");
    // The 22 MB socket: 1.5 × 22 MiB of window with Linux's doubling, 3/4 × 22 MiB without.
    assert!(num("window_linux26", "ceiling_mbps") > 1000.0);
    let c = num("window_without_doubling", "ceiling_mbps");
    assert!((781.0..783.0).contains(&c), "{c}");
}

/// seed 003 slide 15: HSTCP-LP yields to a HighSpeed flow (its share far below half),
/// but alone it does not fill the 1 Gbit/s, 80 ms path (its early congestion indications
/// keep the window near 1): 1 reproduces, 1 fails.
#[test]
fn reproduce_hstcp_lp_quick_passes() {
    let v = reproduce_json("hstcp-lp");
    assert_verdicts(&v, [1, 0, 1, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("highspeed+hstcp-lp", "second_flow_share_pct") < 5.0);
    assert!(num("highspeed_alone", "utilization") > 0.8);
    assert!(num("hstcp-lp_alone", "utilization") < 0.2);
    // Two HighSpeed flows share about equally.
    let s = num("highspeed+highspeed", "second_flow_share_pct");
    assert!((30.0..70.0).contains(&s), "{s}");
}

/// seed 003 slides 33-36: with Linux 2.6.6's SACK walk the input queue overflows on
/// DataTAG but no RTO follows (fails); Scalable with CBR on MB-NG gets more cwnd hiccups
/// with the walk than without; HighSpeed alone on MB-NG sees no DupACK at line rate.
#[test]
fn reproduce_sack_cost_quick_passes() {
    let v = reproduce_json("sack-cost");
    assert_verdicts(&v, [4, 0, 1, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert!(num("datatag_highspeed", "ack_backlog_drops") > 1000.0);
    assert_eq!(num("datatag_highspeed_no_walk", "ack_backlog_drops"), 0.0);
    assert_eq!(num("datatag_highspeed", "timeouts"), 0.0);
    assert!(num("mbng_scalable_cbr", "hiccups") > num("mbng_scalable_cbr_no_walk", "hiccups"));
    assert_eq!(num("mbng_highspeed", "dupacks_in"), 0.0);
    let g = num("mbng_highspeed", "goodput_mbps");
    assert!((935.0..942.0).contains(&g), "{g}");
}

/// seed 002 footnote 4: ethtool vs a tc shaper. The flows' rates differ by less than the
/// runs spread in --quick (both claims unresolved); a shaper shallower than the socket's
/// 47 frames holds at most its limit and drops what MB-ECN never marked.
#[test]
fn reproduce_mbecn_tc_quick_passes() {
    let v = reproduce_json("mbecn-tc");
    assert_verdicts(&v, [0, 0, 0, 2]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    assert_eq!(num("tc_tbf_shallow", "router_queue_max_pkts"), 29.0);
    assert!(num("tc_tbf_shallow", "router_drops") > 2.0 * num("tc_tbf", "router_drops"));
    // One flow alone runs at its client's 80 Mbit/s of SDU either way.
    for p in ["ethtool", "tc_tbf"] {
        let a = num(p, "alone_mbps");
        assert!((a - 79.2).abs() < 0.5, "{p}: {a}");
    }
}

/// seed 003 slides 28-31 at a 1 s region unit: Reno's long-path single stream low and its
/// four flows unequal reproduce, and H-TCP's RTT effect; FAST's σ(RTT) (no cross traffic: a
/// queue of α packets per flow) and the others' (one BDP of buffer swept) fail, and H-TCP's
/// throughput and sharing (at 1 s a region, its flows are still in slow start, as Reno's).
#[test]
fn reproduce_sharing_tests_quick_passes() {
    let v = reproduce_json("sharing-tests");
    assert_verdicts(&v, [3, 0, 4, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // FAST keeps its queue to α packets a flow: σ(RTT) under a millisecond; the loss-based
    // stacks sweep a BDP of buffer (180 ms): tens of milliseconds.
    assert!(num("cern_fast", "rtt_sd_ms") < 1.0);
    assert!(num("cern_reno", "rtt_sd_ms") > 30.0);
    // The 1 MB buffer holds the loss-based stacks' RTT near the path's 180 ms.
    assert!(num("cern_reno_buf1mb", "rtt_sd_ms") < 5.0);
    assert!((num("cern_reno", "rtt_min_ms") - 180.0).abs() < 1.0);
    // Caltech's 10 ms path fills in the first unit; CERN's 180 ms one does not.
    assert!(num("caltech_reno", "region1_mbps") > 500.0);
    assert!(num("cern_reno", "region1_mbps") < 50.0);
}

/// seed 003 slides 22-23 in 20 s: FAST's ramp leads NewReno's after one local reduction in
/// the 100-packet qdisc (the ratio reproduces); the hour-long table's utilizations fail.
#[test]
fn reproduce_fast_vs_newreno_quick_passes() {
    let v = reproduce_json("fast-vs-newreno");
    assert_verdicts(&v, [1, 0, 6, 0]);
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    // txqueuelen 100 stops NewReno's slow start by local congestion (no loss); 10000 lets
    // it fill the pipe.
    assert_eq!(num("newreno_txq100", "local_cwr"), 1.0);
    assert_eq!(num("newreno_txq100", "retransmits"), 0.0);
    assert!(num("newreno_txq10000", "goodput_mbps") > 20.0 * num("newreno_txq100", "goodput_mbps"));
    // FAST has no multiplicative start: γα = 50 packets per RTT, well below the pipe in 20 s.
    let f = num("fast_txq10000", "goodput_mbps");
    assert!(f > 100.0 && f < 300.0, "{f}");
}

/// FAST's equilibrium (docs/references.md §3.7) in --quick: one, two and four flows at 20
/// to 100 ms hold Σα packets, share in the ratio of their α whatever their RTTs, fill the
/// link and lose nothing; no seed numbers, every check against the closed forms.
#[test]
fn reproduce_fast_equilibrium_quick_passes() {
    let v = reproduce_json("fast-equilibrium");
    assert_verdicts(&v, [0, 0, 0, 0]);
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 15);
    assert!(checks.iter().all(|c| c["outcome"] == "pass"), "{checks:#?}");
    let num = |variant: &str, m: &str| row(&v, variant, m)["sim"].as_f64().unwrap();
    for (variant, sum_alpha) in [
        ("n1_a100", 100.0),
        ("n2_equal", 200.0),
        ("n2_unequal", 150.0),
        ("n4_equal", 400.0),
    ] {
        assert_eq!(num(variant, "backlog_theory"), sum_alpha);
        assert_eq!(num(variant, "retransmits"), 0.0);
    }
    // The 100 ms flow with twice the 20 ms flow's α gets twice its rate.
    let r = num("n2_unequal", "rate_ratio_long_over_short");
    assert!((r - 2.0).abs() < 0.09, "{r}");
    // Every flow's first data leaves at the longest RTT: each measures its own path.
    let b = num("n4_equal", "flow3_rtt100_a100_base_rtt_ms");
    assert!((100.0..101.0).contains(&b), "{b}");
}

#[test]
fn reproduce_dctcp_incast_quick_passes() {
    let v = reproduce_json("dctcp-incast");
    for variant in ["cubic", "dctcp"] {
        for m in [
            "timeouts_total",
            "timeouts_mean",
            "timeouts_median",
            "timeouts_max",
            "timeouts_min",
            "timeouts_stddev",
            "throughput_mean_mbps",
            "throughput_median_mbps",
            "throughput_min_mbps",
            "throughput_max_mbps",
            "throughput_stddev_mbps",
            "fairness",
            "latency_mean_ms",
            "latency_median_ms",
            "latency_max_ms",
            "latency_min_ms",
            "latency_stddev_ms",
        ] {
            assert!(
                row(&v, variant, m)["seed"].is_number(),
                "{variant}/{m} has the seed's value"
            );
        }
    }
    assert_eq!(row(&v, "cubic", "timeouts_total")["seed"], 3227.0);
    // The seed's CUBIC timeouts are two orders of magnitude above the model's, and no run
    // has shown why: they fail.
    assert_eq!(row(&v, "cubic", "timeouts_total")["outcome"], "fails");
    // The seed's hosts on the Linux 3.18 profile (FACK, early retransmit, 3.18's probe, no
    // RACK; per-ACK counting in congestion avoidance, the 3.18 receive window), against
    // the 6.6 profile's 20/0/11/3: CUBIC's throughput_max_mbps (637.9 → 613.5 Mbit/s)
    // goes from reproduces to fails, throughput_stddev_mbps (55.2 → 48.6, its interval
    // now narrower) from unresolved to fails, latency_min_ms (3.272 → 3.241 ms) from
    // unresolved to reproduces. CUBIC's 'other TCP timeouts' stay 0 (fails): the 3.18
    // recovery does not produce the seed's RTO storm either. CUBIC's HyStart rounds of
    // v6.6 (only from cwnd 16) move its fairness 0.9914 → 0.9942, beyond the seed's 0.962
    // + 0.03: reproduces → fails. HyStart's ACK train reading the socket's pacing rate as
    // Linux does (the rate set after the previous ACK, from packets_out; issue 56) moves
    // CUBIC's runs: throughput_stddev_mbps fails → unresolved (its interval widens),
    // throughput_min_mbps and latency_min_ms reproduce → unresolved: 17/0/13/4.
    assert_verdicts(&v, [17, 0, 13, 4]);
    let rows = v["table"].as_array().unwrap();
    assert_eq!(
        rows.iter().filter(|r| r["seed"].is_number()).count(),
        2 * 17
    );
    // Beside them, the side runs with Linux's default 1500-byte frames (the seed's are 9000).
    for variant in ["cubic", "dctcp"] {
        let t = row(&v, variant, "mtu1500_throughput_mean_mbps")["sim"]
            .as_f64()
            .unwrap();
        // 10 GbE's payload rate in 1500-byte frames, 1448 of 1538 bytes, shared by 19 flows.
        assert!(
            (t - 1e4 * 1448.0 / 1538.0 / 19.0).abs() < 1.0,
            "{variant}: {t}"
        );
    }
    // The DCTCP flows without marks in the drop-tail queue: the seed's module (3.18) meets
    // a loss with cwnd·alpha/2 at alpha's floor of 15/1024, today's halves, so the first
    // shares the link far less evenly and times out more.
    let sim = |m: &str| row(&v, "dctcp", m)["sim"].as_f64().unwrap();
    assert!(
        sim("dscp0_throughput_stddev_mbps") > 2.0 * sim("dscp0_linux_throughput_stddev_mbps"),
        "stddev: 3.18 {}, today's {}",
        sim("dscp0_throughput_stddev_mbps"),
        sim("dscp0_linux_throughput_stddev_mbps")
    );
    assert!(
        sim("dscp0_rto_expiries_total") > 5.0 * sim("dscp0_linux_rto_expiries_total").max(1.0),
        "RTO expiries: 3.18 {}, today's {}",
        sim("dscp0_rto_expiries_total"),
        sim("dscp0_linux_rto_expiries_total")
    );
}

#[test]
fn reproduce_dctcp_convergence_quick_passes() {
    let v = reproduce_json("dctcp-convergence");
    // CUBIC's "never converges", the seed's one test read against the model's runs: with
    // v6.6's HyStart rounds 3 of its 4 quick runs never converge (1 before), resolved
    // against 5%: reproduces.
    assert_verdicts(&v, [10, 0, 0, 0]);
    assert_eq!(row(&v, "dctcp", "join_converge_s")["seed"], 0.5);
    assert!(row(&v, "cubic", "join_converge_s")["seed"].is_null());
    row(&v, "cubic", "never_converged_share");
    assert_eq!(row(&v, "cubic", "leave_recover_s")["runs"], 4);
}

#[test]
fn reproduce_dctcp_syn_ect_quick_passes() {
    let v = reproduce_json("dctcp-syn-ect");
    assert_eq!(row(&v, "no_ect", "p_conn_2")["seed"], 0.67);
    assert!(row(&v, "ect", "p_conn_16")["seed"].is_null());
    // Beside each point, its cause run: the same probes read with a 0.9 s limit (the seed
    // states no time limit).
    assert_eq!(
        row(&v, "no_ect", "p_conn_4")["cause"]["variant"],
        "limit_0.9s_4"
    );
    // Each point's share is over all its probes, with a binomial interval ("runs" count
    // probes: 24 in one quick run).
    assert_eq!(row(&v, "no_ect", "p_conn_2")["runs"], 24);
    assert_verdicts(&v, [6, 0, 1, 0]);
}

#[test]
fn reproduce_mbecn_quick_passes() {
    for name in [
        "mbecn-star",
        "mbecn-variants",
        "mbecn-lost-updates",
        "mbecn-vs-tcp",
        "mbecn-rtt",
    ] {
        reproduce_json(name);
    }
    // The seed configuration (flooding clients, senders at line rate) misses every number;
    // the cause run, clients at ocbr -r 80M as the seed's author describes the test, on
    // the prototype's path (47 frames in the kernel below each IPCP's ring), is beside
    // each: it reproduces the one-flow rate (and, in --quick's short two-flow phase, the
    // sum); the flows' shares stay open at the cap and the convergence fails.
    let v = reproduce_json("mbecn-star");
    let alone = row(&v, "line_rate", "alone_mbps");
    assert_eq!(alone["seed"], 79.05);
    assert_eq!(alone["outcome"], "explained", "{alone}");
    assert_eq!(
        alone["cause"]["variant"], "client_80mbit_kernel47",
        "{alone}"
    );
    assert_eq!(alone["runs"], 3, "{alone}");
    let conv = row(&v, "line_rate", "convergence_ms");
    assert_eq!(conv["outcome"], "fails", "{conv}");
    row(&v, "sender_9990pps", "two_flows_larger_mbps");
    row(&v, "client_80mbit", "alone_mbps");
    row(&v, "line_rate_kernel47", "alone_mbps");
    assert_verdicts(&v, [0, 3, 1, 2]);
    // The sender-side reset's claim, judged once (half the updates lost, line rate).
    let v = reproduce_json("mbecn-lost-updates");
    assert_verdicts(&v, [1, 0, 0, 0]);
    row(&v, "loss_0.1000 line_rate", "rate_minus_lossless_mbps");
}

#[test]
fn reproduce_dctcp_k_and_queue_quick_pass() {
    let v = reproduce_json("dctcp-k");
    assert_verdicts(&v, [2, 0, 0, 0]);
    // The seed's heuristic K is a claim (the link stays full there), not a number to echo:
    // the row has no seed number, and the claim is a check of its own.
    assert!(row(&v, "10gbps", "util_at_seed_k65")["seed"].is_null());
    let claim = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "10gbps: the link stays full at the seed's heuristic K = 65")
        .expect("the heuristic K's check");
    assert_eq!(claim["outcome"], "reproduces", "{claim}");
    let v = reproduce_json("dctcp-queue");
    row(&v, "10gbps_n2", "q_max_pkts");
    row(&v, "1gbps_n10", "alpha");
}

#[test]
fn reproduce_rtt_and_mtu_fairness_quick_pass() {
    let v = reproduce_json("rtt-fairness");
    // On the seed's Linux 2.6 (rate halving, FACK) every Reno number is resolved in
    // --quick's 3 runs; the utilization fails (no buffer gives 71.6%: see the module doc).
    assert_verdicts(&v, [3, 0, 1, 0]);
    assert_eq!(row(&v, "reno", "long_rtt_mbps")["seed"], 202.0);
    assert_eq!(row(&v, "reno", "utilization")["seed"], 0.716);
    row(&v, "htcp", "short_rtt_mbps");
    let v = reproduce_json("mtu-fairness");
    // mtu9000_mbps is resolved since cwnd grows only on ACKs that advance snd_una.
    assert_verdicts(&v, [1, 0, 0, 3]);
    assert_eq!(row(&v, "reno", "mtu9000_mbps")["seed"], 464.0);
    row(&v, "cubic", "mtu3000_mbps");
}

#[test]
fn reproduce_response_function_quick_passes() {
    let v = reproduce_json("response-function");
    // No seed numbers (slides 17-18 are figures): closed forms and the table's own sawtooth.
    assert_verdicts(&v, [0, 0, 0, 0]);
    assert_eq!(v["tally"]["other_pass"], 9);
    for a in ["reno", "highspeed", "scalable", "htcp", "bic", "cubic"] {
        for p in ["p1e-3", "p1e-4", "p1e-5"] {
            let r = row(&v, a, &format!("goodput_mbps_{p}"));
            assert!(r["sim"].as_f64().unwrap() > 0.0, "{a} {p}");
        }
    }
    let names: Vec<String> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    // The closed forms are all present (and passed, per reproduce_json).
    for want in [
        "reno vs Mathis at p = 1e-4",
        "highspeed vs RFC 3649 at p = 1e-5",
        "highspeed_delack vs 0.5^0.835 · RFC 3649 at p = 1e-5",
        "scalable vs Kelly's periodic-loss window at p = 1e-4",
    ] {
        assert!(names.iter().any(|n| n == want), "missing check {want}");
    }
    // The table-vs-implementation checks are model self-consistency, counted apart.
    assert_eq!(v["tally"]["model_pass"], 3);
}

#[test]
fn reproduce_recovery_mbng_and_datatag_quick_pass() {
    let v = reproduce_json("recovery-mbng");
    assert_verdicts(&v, [1, 0, 0, 0]);
    assert_eq!(row(&v, "reno", "recovery_s")["seed"], 1.6);
    for a in ["reno", "highspeed", "scalable"] {
        row(&v, a, "throughput_mbps");
    }
    let v = reproduce_json("recovery-datatag");
    let names: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["scalable steady fills the link (0.08/p = 80000 packets > BDP 10403)"]
    );
}

#[test]
fn reproduce_ipg_tuning_quick_passes() {
    let v = reproduce_json("ipg-tuning");
    // Slide 16's claims at Linux 2.4's txqueuelen of 100 (the seed configuration): the
    // three improvements explained by the runs with 10000, the fourth (no effect on the
    // minimum) fails.
    assert_verdicts(&v, [2, 3, 1, 0]);
    // Linux 2.6's 1000 is a row, not judged.
    row(&v, "lfn_txq1000_ipgt_1023", "avg_mbps");
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c["name"].as_str().unwrap().contains("txq1000")));
    // Seed 001 slide 15's two numbers, and the two-stream cap per NIC.
    assert_eq!(row(&v, "ipgt_8", "goodput_mbps")["seed"], 941.0);
    assert_eq!(row(&v, "ipgt_1023", "goodput_mbps")["seed"], 567.0);
    let sum = row(&v, "ipgt_1023_two_flows", "sum_goodput_mbps")["sim"]
        .as_f64()
        .unwrap();
    assert!((sum - 567.2).abs() < 3.0, "{sum}");
}

#[test]
fn reproduce_policer_quick_passes() {
    let v = reproduce_json("policer");
    // The 100k number reproduces (at most 20 Mbit/s: 15.4 with PSH on every GSO packet,
    // which ends the receiver's GRO aggregate and so ACKs each TSO packet, as Linux's
    // `__tcp_transmit_skb` has it); the 1 MiB claim fails, with no cause run.
    assert_verdicts(&v, [6, 0, 1, 0]);
    // Seed 004's numbers: TCP through the 100k policer at most 20 Mbit/s; the tbf fix 850.
    assert_eq!(
        row(&v, "tcp_policed_burst_100k", "goodput_mbps")["seed"],
        20.0
    );
    assert_eq!(row(&v, "tbf_900mbit_fix", "goodput_mbps")["seed"], 850.0);
    let lit = row(&v, "literal_acks_policed", "goodput_mbps")["sim"]
        .as_f64()
        .unwrap();
    let policed = row(&v, "tcp_policed_burst_100k", "goodput_mbps")["sim"]
        .as_f64()
        .unwrap();
    assert!(
        lit > 100.0 * policed,
        "ACK-path policing {lit} vs data-path {policed}"
    );
    // The literal reading is judged against a closed form (the 10G link's payload rate),
    // not against another simulated value, and the policer drops no ACK there.
    let literal = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("literal reading"))
        .unwrap();
    assert_eq!(literal["against"], "closed_form");
    assert_eq!(literal["outcome"], "pass", "{literal}");
    assert_eq!(
        row(&v, "literal_acks_policed", "policer_exceeded_pkts")["sim"],
        0.0
    );
    // UDP at 800 Mbit/s passes the same policer with little or no loss.
    let loss = row(&v, "udp_800mbit_45k", "loss_pct")["sim"]
        .as_f64()
        .unwrap();
    assert!(loss <= 1.0, "UDP loss {loss}%");
}

#[test]
fn reproduce_slow_start_burst_quick_passes() {
    let v = reproduce_json("slow-start-burst");
    // Slide 11's loss in a mostly idle RTT and slide 20's bigger cwnd with CPS reproduce;
    // slide 20's losses that fast retransmit does not repair fail on the seed's Linux 2.6,
    // whose recovery (FACK, rate halving) repairs them without a timeout.
    assert_verdicts(&v, [2, 0, 1, 0]);
    // Slide 11's 180 ms of silence after the burst and slide 19's 200 clusters follow from
    // the experiment's inputs: model checks, not seed numbers.
    assert!(row(&v, "unpaced", "silence_after_round_ms")["seed"].is_null());
    assert!(row(&v, "cps_1ms_80", "clusters_per_rtt")["seed"].is_null());
    let model: Vec<&serde_json::Value> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["against"] == "model")
        .collect();
    assert_eq!(model.len(), 4, "{model:?}");
    assert!(model.iter().all(|c| c["outcome"] == "pass"), "{model:?}");
    let w = |var: &str| {
        row(&v, var, "window_at_first_loss_pkts")["sim"]
            .as_f64()
            .unwrap()
    };
    assert!(
        w("cps_1ms_80") > 3.0 * w("unpaced"),
        "slide 20: CPS grows cwnd further"
    );
}

#[test]
fn reproduce_lfn_pacing_quick_passes() {
    let v = reproduce_json("lfn-pacing");
    // Slide 27's claims, once each with the wire's loss: 2 runs of 10 s (8 at most) do not
    // resolve any of them.
    assert_verdicts(&v, [0, 0, 0, 6]);
    // Slide 27's 3% at 2 ms, beside ours; against the statically optimized IPG, 1024.
    assert_eq!(
        row(&v, "loss_0.001_2ms", "dynamic_vs_static_opt_pct")["seed"],
        -3.0
    );
    assert_eq!(
        row(&v, "loss_0.001_2ms", "static_optimized_ipg")["sim"],
        1024.0
    );
    // The clean wire: cause runs and rows, never judged on their own.
    row(&v, "clean_wire_50ms", "dynamic_vs_default_pct");
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c["name"].as_str().unwrap().starts_with("clean_wire")));
    assert!(
        row(&v, "loss_0.001_50ms", "mathis_mbps")["sim"]
            .as_f64()
            .unwrap()
            > 4.0
    );
}

#[test]
fn reproduce_parallel_streams_quick_passes() {
    let v = reproduce_json("parallel-streams");
    // Slide 9's early hits are explained by BDP/√48; with two runs (--quick) its spread and
    // Jain claims, the remedies' Jain claims and (on the seed's Linux 2.6, whose slow start
    // counts ACKs) slide 8's utilization stay open.
    assert_verdicts(&v, [3, 1, 0, 5]);
    // Seed 001 slide 8: 550 Mbit/s, 91% of the OC-12, from 24 nodes x 2 normal TCP streams.
    assert_eq!(row(&v, "normal_tcp", "goodput_mbps (seed)")["seed"], 550.0);
    assert_eq!(row(&v, "normal_tcp", "utilization (seed)")["seed"], 0.91);
    let jain = |variant: &str| row(&v, variant, "jain")["sim"].as_f64().unwrap();
    // Slide 9's unbalance with a small buffer, and what pacing does to it.
    assert!(jain("normal_tcp_buf_bdp_sqrt48") < jain("fq_pacing_buf_bdp_sqrt48"));
    assert!(jain("normal_tcp_buf_bdp_sqrt48") < jain("tcp_aware_nic_buf_bdp_sqrt48"));
    // Every claim is judged once, on the seed's path (one BDP), with the small buffer as
    // the cause run.
    for c in v["checks"].as_array().unwrap() {
        if c["against"] == "seed" {
            assert!(!c["name"].as_str().unwrap().contains("sqrt48"), "{c}");
        }
        if let Some(cause) = c.get("cause") {
            assert!(cause["variant"]
                .as_str()
                .unwrap()
                .ends_with("_buf_bdp_sqrt48"));
        }
    }
}

#[test]
fn reproduce_incast_qct_quick_passes() {
    let v = reproduce_json("incast-qct");
    // DCTCP's first flights fit (3 segments each, 83 responders); CUBIC's grown windows
    // do not. On the era's rate halving DCTCP's queries take up to two delayed ACKs (80
    // ms) but never an RTO.
    assert_eq!(row(&v, "dctcp-n16", "timeouts")["sim"].as_f64(), Some(0.0));
    assert!(row(&v, "dctcp-n16", "qct_p99_ms")["sim"].as_f64().unwrap() < 200.0);
    assert!(row(&v, "cubic-n64", "qct_p99_ms")["sim"].as_f64().unwrap() >= 200.0);
    assert!(v["tally"]["other_pass"].as_u64().unwrap() >= 4);
}

#[test]
fn reproduce_fct_websearch_quick_passes() {
    let v = reproduce_json("fct-websearch");
    for variant in ["dctcp-load50", "cubic-load70"] {
        let started = row(&v, variant, "flows_started")["sim"].as_f64().unwrap();
        let done = row(&v, variant, "flows_finished")["sim"].as_f64().unwrap();
        assert!(started > 100.0 && done <= started, "{variant}");
        // A slowdown is at least 1 (the ideal is a lower bound).
        assert!(
            row(&v, variant, "short_slowdown_mean")["sim"]
                .as_f64()
                .unwrap()
                >= 1.0
        );
    }
    // CUBIC's unfinished short flows (waiting for an RTO) put its tail beyond what the run
    // measures (inf, serialised as null); DCTCP's is a number.
    assert!(
        row(&v, "dctcp-load70", "short_slowdown_p99")["sim"]
            .as_f64()
            .unwrap()
            >= 1.0
    );
}
