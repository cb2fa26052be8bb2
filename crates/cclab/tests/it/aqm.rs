//! The AQM disciplines in a running network: four CUBIC flows (ECN on) share a 100 Mbit/s,
//! 10 ms bottleneck for 20 s. Each check is the discipline's own design target.

use cclab::scenario::parse_scenario;

fn run(queue: &str) -> cclab::results::RunResult {
    let text = format!(
        r#"
[sim]
name = "aqm"
duration = "20s"
seed = 1
[topology]
kind = "dumbbell"
senders = 4
bottleneck = {{ rate = "100Mbps", delay = "10ms", {queue} }}
[tcp]
cc = "cubic"
ecn = true
"#
    );
    let sc = parse_scenario(&text, "aqm.toml", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    cclab::world::run(&sc).unwrap()
}

/// Mean queueing delay at the bottleneck, in ms.
fn delay_ms(r: &cclab::results::RunResult) -> f64 {
    let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    q.mean_bytes * 8.0 / 100e6 * 1e3
}

fn jain(r: &cclab::results::RunResult) -> f64 {
    let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// CoDel keeps the standing queue delay at the order of its 5 ms target: within a factor
/// of two either way (the control law lets the delay overshoot between marks and drain
/// below target after them).
#[test]
fn codel_and_fq_codel_hold_the_delay_near_target() {
    for q in [r#"queue = "codel""#, r#"queue = "fq_codel""#] {
        let r = run(q);
        let d = delay_ms(&r);
        assert!((2.5..=10.0).contains(&d), "{q}: mean delay {d:.2} ms");
        let util: f64 = r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 100e6;
        assert!(util > 0.85, "{q}: utilisation {util:.3}");
    }
}

/// fq_codel shares the link equally among equal flows: Jain's index ≥ 0.99 (RFC 8290's
/// DRR over per-flow queues; docs/references.md FQ-1's bulk-flow target).
#[test]
fn fq_codel_is_fair() {
    let r = run(r#"queue = "fq_codel""#);
    let j = jain(&r);
    assert!(j >= 0.99, "Jain {j:.4}");
}

/// RED with ECN (tc defaults for limit 400 KB: min 33,333 B, max 100,000 B): the marks keep
/// the instantaneous queue from sitting at the limit; its mean stays below max, and no
/// ECT packet is dropped while the average is below max.
#[test]
fn red_with_ecn_marks_and_keeps_the_queue_below_max() {
    let r = run(r#"queue = "red", limit = "400KB", ecn = true"#);
    let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    assert!(q.marks > 100, "{} marks", q.marks);
    assert!(q.mean_bytes < 100_000.0, "mean {} B", q.mean_bytes);
    assert_eq!(q.drops, 0);
}
