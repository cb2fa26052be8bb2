//! Mutation tests of the verdicts (issue 51): a model broken on purpose, a seed number
//! moved, a cause run that explains nothing — each turns the verdicts that depend on it
//! into failures, and the same experiment unbroken does not fail them. A verdict that a
//! broken model cannot fail would be a check that cannot fail.

use cclab::experiments::{by_name, Against, Mutation, Options, Outcome, Report};
use cclab::scenario::Growth;
use cclab::tcp::config::TcpConfig;

fn run(name: &str, mutation: Mutation) -> Report {
    let e = by_name(name).expect("an experiment");
    (e.run)(&Options {
        quick: true,
        mutation,
        ..Default::default()
    })
}

fn outcome(r: &Report, check: &str) -> Outcome {
    r.checks
        .iter()
        .find(|c| c.name == check)
        .unwrap_or_else(|| panic!("{}: no check {check}", r.experiment))
        .outcome
}

fn seed_checks(r: &Report) -> Vec<(&str, Outcome)> {
    r.checks
        .iter()
        .filter(|c| c.against == Against::Seed)
        .map(|c| (c.name.as_str(), c.outcome))
        .collect()
}

/// Reno growing per ACK rather than per acknowledged segment (the kernels before RFC 3465:
/// with delayed ACKs half a segment per RTT) is not Linux's Reno: the recovery times the
/// seed gives for Linux's growth fail, and so do the closed forms.
#[test]
fn reno_growing_per_ack_fails_reno_recovery() {
    let ok = run("reno-recovery", Mutation::default());
    fn per_ack(t: &mut TcpConfig) {
        t.growth = Growth::Acks;
    }
    let broken = run(
        "reno-recovery",
        Mutation {
            tcp: Some(per_ack),
            ..Default::default()
        },
    );
    for v in ["rtt_6ms", "rtt_25ms"] {
        let seed = format!("{v} recovery_s");
        let closed = format!("{v} recovery_s vs C·RTT²/(2·MSS)");
        assert_eq!(outcome(&ok, &seed), Outcome::Reproduces);
        assert_eq!(outcome(&ok, &closed), Outcome::Pass);
        assert_eq!(
            outcome(&broken, &seed),
            Outcome::Fails,
            "{}",
            broken.render()
        );
        assert_eq!(outcome(&broken, &closed), Outcome::Fail);
    }
    assert!(!broken.passed());
}

/// DCTCP's gain g doubled (dctcp_shift_g 3, g = 1/8) changes alpha's average and the
/// queue's sawtooth: the fluid model's amplitude, alpha and period at 1 Gbit/s and ten
/// flows (the case whose windows are large enough for the analysis) fail.
#[test]
fn dctcp_with_g_doubled_fails_the_queue_analysis() {
    fn g_doubled(t: &mut TcpConfig) {
        t.cc_options.dctcp.shift_g = 3;
    }
    let ok = run("dctcp-queue", Mutation::default());
    let broken = run(
        "dctcp-queue",
        Mutation {
            tcp: Some(g_doubled),
            ..Default::default()
        },
    );
    for check in [
        "1gbps_n10 amplitude vs ½·sqrt(2N(C·RTT + K))",
        "1gbps_n10 alpha vs sqrt(2/W*)",
        "1gbps_n10 period vs T_C",
    ] {
        assert_eq!(outcome(&ok, check), Outcome::Pass, "{check}");
        assert_eq!(outcome(&broken, check), Outcome::Fail, "{check}");
    }
}

/// Every seed number with a two-sided tolerance, moved by three half-widths of its band,
/// fails where it reproduced (a one-sided bound, or a factor band from 0, has no width to
/// move by).
#[test]
fn seed_numbers_moved_by_three_tolerances_fail() {
    let nudge = Mutation {
        nudge_seed: 3.0,
        ..Default::default()
    };
    for name in ["reno-recovery", "dctcp-incast"] {
        let ok = run(name, Mutation::default());
        let moved = run(name, nudge);
        let reproduced: Vec<&str> = seed_checks(&ok)
            .into_iter()
            .filter(|c| c.1 == Outcome::Reproduces)
            .map(|c| c.0)
            .collect();
        assert!(reproduced.len() >= 2, "{name}: {reproduced:?}");
        let mut moved_fail = 0;
        for n in &reproduced {
            let o = outcome(&moved, n);
            let one_sided = moved.checks.iter().find(|c| c.name == *n).is_some_and(|c| {
                ["at most", "at least", "(tolerance ×0…"]
                    .iter()
                    .any(|b| c.detail.contains(b))
            });
            if one_sided {
                continue;
            }
            assert_ne!(o, Outcome::Reproduces, "{name} {n}: moved by 3 tolerances");
            moved_fail += (o == Outcome::Fails) as usize;
        }
        assert!(moved_fail >= 2, "{name}");
    }
}

/// A cause run that gives what the seed configuration gives explains nothing: every
/// explained number becomes a failure.
#[test]
fn a_cause_run_that_misses_turns_explained_into_fails() {
    let miss = Mutation {
        causes_miss: true,
        ..Default::default()
    };
    for (name, check) in [
        ("mbecn-star", "line_rate alone_mbps"),
        (
            "ipg-tuning",
            "lfn_txq100: IPG 512 improves the maximum over the default (slide 16)",
        ),
    ] {
        let ok = run(name, Mutation::default());
        assert_eq!(outcome(&ok, check), Outcome::Explained, "{name}");
        let broken = run(name, miss);
        assert_eq!(outcome(&broken, check), Outcome::Fails, "{name}");
        assert!(seed_checks(&broken)
            .iter()
            .all(|c| c.1 != Outcome::Explained));
    }
}

/// The same per-ACK growth breaks the square-root law's constant (Mathis 1997: C ≈ 0.93
/// with delayed ACKs and random loss, against sqrt(3/2) for Linux's per-segment growth):
/// the declared closed-form checks of `mathis`, read on means of runs, fail at every loss
/// rate where the law applies.
#[test]
fn reno_growing_per_ack_fails_the_mathis_law() {
    fn per_ack(t: &mut TcpConfig) {
        t.growth = Growth::Acks;
    }
    let ok = run("mathis", Mutation::default());
    let broken = run(
        "mathis",
        Mutation {
            tcp: Some(per_ack),
            ..Default::default()
        },
    );
    for p in ["p_1e-3", "p_1e-4", "p_1e-5"] {
        let check = format!("{p} vs Mathis");
        assert_eq!(outcome(&ok, &check), Outcome::Pass, "{}", ok.render());
        assert_eq!(
            outcome(&broken, &check),
            Outcome::Fail,
            "{}",
            broken.render()
        );
    }
    assert!(!broken.passed());
}

/// `bbr-rtt` with CUBIC in BBR's place (a loss-based algorithm has no in-flight cap): the
/// 10 ms flow now takes more than the 50 ms one and the flows fill the 8-BDP buffer, so
/// the RTT-unfairness direction and the standing-queue bound both fail (BBR passes them:
/// `reproduce_bbr_rtt_quick_passes` in cclab-cli, so the unbroken run is not repeated here).
#[test]
fn cubic_in_place_of_bbr_fails_bbr_rtt() {
    fn cubic(t: &mut TcpConfig) {
        t.cc = "cubic".into();
    }
    let broken = run(
        "bbr-rtt",
        Mutation {
            tcp: Some(cubic),
            ..Default::default()
        },
    );
    for check in [
        "bbr_10_50_x8: the 50 ms flow's share of the goodput",
        "bbr_50_50_x8: standing queue (median) in BDPs",
    ] {
        assert_eq!(
            outcome(&broken, check),
            Outcome::Fail,
            "{}",
            broken.render()
        );
    }
    assert!(!broken.passed());
}

/// `cellular` with CUBIC in BBR's place (no in-flight cap): it fills the 250-packet buffer,
/// so BBR's queue bound (2·BDP at the good state's rate) fails; CUBIC's own checks still
/// pass (`reproduce_cellular_quick_passes` in cclab-cli runs the unbroken experiment).
#[test]
fn cubic_in_place_of_bbr_fails_cellular() {
    fn cubic(t: &mut TcpConfig) {
        t.cc = "cubic".into();
    }
    let broken = run(
        "cellular",
        Mutation {
            tcp: Some(cubic),
            ..Default::default()
        },
    );
    assert_eq!(
        outcome(
            &broken,
            "bbr: time-average backlog / 2·BDP at the good rate"
        ),
        Outcome::Fail,
        "{}",
        broken.render()
    );
    assert_eq!(outcome(&broken, "cubic: utilisation"), Outcome::Pass);
    assert!(!broken.passed());
}
