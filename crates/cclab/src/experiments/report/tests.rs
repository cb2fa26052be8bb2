use super::*;

/// `wrap` (the terminal tables, f14): no line over the width in characters, no word
/// lost or reordered, a line that fits untouched.
#[test]
fn f14_wrap_keeps_every_word_within_the_width() {
    let line = "[PASS] (closed_form) rtt_6ms: sim 1.489 vs 1.500 → -0.7% (tolerance ±5%); \
                why: W counts 1538-byte frames, a_word_longer_than_the_width_of_the_lines_it_is_wrapped_into_here_0123456789";
    for width in [20, 40, 100] {
        let lines = wrap(line, width, 4);
        assert!(
            lines.iter().all(|l| l.chars().count() <= width),
            "{lines:?}"
        );
        assert!(
            lines[1..].iter().all(|l| l.starts_with("    ")),
            "{lines:?}"
        );
        let words: String = lines.concat().split_whitespace().collect();
        let want: String = line.split_whitespace().collect();
        assert_eq!(words, want);
    }
    assert_eq!(wrap("short  line", 100, 4), ["short  line"]);
}

#[test]
fn every_seed_number_is_judged_and_counted() {
    let mut r = Report::new("t");
    let why = "rounding";
    r.seed("a", "x", 10.0, 10.4, Judge::within(Tol::Rel(0.05), why));
    r.seed("a", "y", 10.0, 12.0, Judge::within(Tol::Rel(0.05), why));
    // Misses, and a cause run reproduces it: explained; one that misses too: fails.
    let cause = |sim| Cause {
        variant: "a_tso",
        config: "[host] tso = true",
        sim: MeanCi::one(sim),
        tol: None,
    };
    r.seed(
        "a",
        "z",
        3227.0,
        1.0,
        Judge::within(Tol::Rel(0.05), why).cause(cause(3200.0)),
    );
    r.seed(
        "a",
        "u",
        3227.0,
        1.0,
        Judge::within(Tol::Rel(0.05), why).cause(cause(30.0)),
    );
    let wide = MeanCi {
        mean: 10.0,
        half: 5.0,
        n: 5,
    };
    r.seed_ci("a", "v", 10.0, wide, Judge::within(Tol::Rel(0.05), why));
    r.row("a", "w", 5.0);
    r.check_vs("cf", Against::ClosedForm, 1.0, 1.0, Tol::Abs(0.0), "exact");
    r.check_vs("m", Against::Model, 2.0, 1.0, Tol::AtMost, "self");
    let outcomes: Vec<Option<Outcome>> = r.table.iter().map(|x| x.outcome).collect();
    use Outcome::*;
    assert_eq!(
        outcomes,
        [
            Some(Reproduces),
            Some(Fails),
            Some(Explained),
            Some(Fails),
            Some(Unresolved),
            None
        ]
    );
    assert_eq!(
        r.tally,
        Tally {
            seed_reproduce: 1,
            seed_explained: 1,
            seed_fail: 2,
            seed_unresolved: 1,
            other_pass: 1,
            model_fail: 1,
            ..Default::default()
        }
    );
    assert!(!r.passed());
    let text = r.render();
    assert!(text.contains("[EXPLAINED] (seed) a z: sim 1.000 vs 3227 → -100.0% (tolerance ±5%); why: rounding; cause run `a_tso` ([host] tso = true): sim 3200 vs 3227 → -0.8% (tolerance ±5%) → reproduces"), "{text}");
    assert!(text.contains("[FAILS] (seed) a y: sim 12.00 vs 10.00 → +20.0% (tolerance ±5%)"));
    assert!(text
        .contains("1 reproduce, 1 explained (a cause run reproduces them), 2 fail, 1 unresolved"));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["checks"][2]["outcome"], "explained");
    assert_eq!(json["checks"][2]["cause"]["config"], "[host] tso = true");
    assert_eq!(json["checks"][2]["cause"]["sim"], 3200.0);
    assert_eq!(json["checks"][2]["cause"]["seed"], 3227.0);
    assert_eq!(json["checks"][3]["outcome"], "fails");
    assert_eq!(json["checks"][4]["outcome"], "unresolved");
    assert_eq!(json["checks"][5]["against"], "closed_form");
    assert_eq!(json["checks"][5]["outcome"], "pass");
    assert_eq!(json["table"][2]["cause"]["variant"], "a_tso");
}

/// A published check with a cause run: the cause is shown and read with the check's
/// tolerance, and the verdict stays the check's own, whether the cause run reproduces or
/// not (rule 5); against the seed the same call explains.
#[test]
fn a_published_check_shows_its_cause_run_and_keeps_its_verdict() {
    let mut r = Report::new("x");
    let cause = |sim| Cause {
        variant: "all_full",
        config: "cubic_beta = 1023",
        sim: MeanCi::one(sim),
        tol: None,
    };
    let j = |sim| Judge::within(Tol::AtMost, "the paper's median error").cause(cause(sim));
    let miss = MeanCi::one(0.2);
    let o = r.check_caused("median", Against::Published, miss, 0.05, j(0.22));
    assert_eq!(o, Outcome::Fail);
    let o = r.check_caused("median2", Against::Published, miss, 0.05, j(0.01));
    assert_eq!(
        o,
        Outcome::Fail,
        "a published check is judged in its own configuration"
    );
    let o = r.check_caused("claim", Against::Seed, miss, 0.05, j(0.01));
    assert_eq!(o, Outcome::Explained);
    assert_eq!(
        r.checks[0].cause.as_ref().unwrap().reading,
        Reading::Outside
    );
    assert_eq!(r.checks[1].cause.as_ref().unwrap().reading, Reading::Within);
    assert_eq!(r.tally.other_fail, 2);
    let text = r.render();
    assert!(
        text.contains(
            "cause run `all_full` (cubic_beta = 1023): sim 0.2200 vs at most 0.05000 → misses too"
        ),
        "{text}"
    );
}
