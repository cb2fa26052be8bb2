//! `mbecn-star`'s side-by-side text: the seed's ocbr server lines and its flow-allocator
//! file (seed 002, as the seed quotes them) beside the simulated run's.

use super::SEED_PPS;
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::flow::text::collapse_spaces;
use crate::results::RunResult;

/// The seed's server output, as it quotes it (spaces collapsed).
const SEED_LINES: &[&str] = &[
    "Flow 64: 998 packets ( 998000 bytes)in 101 ms => 9880.8946 pps, 79.0472 Mbps",
    "Flow 64: 1001 packets ( 1001000 bytes)in 101 ms => 9904.6149 pps, 79.2369 Mbps",
    "Flow 64: 999 packets ( 999000 bytes)in 101 ms => 9882.8697 pps, 79.0630 Mbps",
    "Flow 64: 998 packets ( 998000 bytes)in 101 ms => 9880.0143 pps, 79.0401 Mbps",
    "Flow 64: 999 packets ( 999000 bytes)in 101 ms => 9887.6627 pps, 79.1013 Mbps",
    "Flow 64: 999 packets ( 999000 bytes)in 101 ms => 9891.0891 pps, 79.1287 Mbps",
    "New flow.",
    "Flow 64: 868 packets ( 868000 bytes)in 102 ms => 8490.6583 pps, 67.9253 Mbps",
    "Flow 65: 542 packets ( 542000 bytes)in 101 ms => 5356.5781 pps, 42.8526 Mbps",
    "Flow 64: 540 packets ( 540000 bytes)in 101 ms => 5341.5105 pps, 42.7321 Mbps",
    "Flow 65: 534 packets ( 534000 bytes)in 101 ms => 5285.6111 pps, 42.2849 Mbps",
    "Flow 64: 575 packets ( 575000 bytes)in 101 ms => 5691.4915 pps, 45.5319 Mbps",
    "Flow 65: 535 packets ( 535000 bytes)in 101 ms => 5291.0053 pps, 42.3280 Mbps",
    "Flow 64: 561 packets ( 561000 bytes)in 101 ms => 5554.3455 pps, 44.4348 Mbps",
    "Flow 65: 533 packets ( 533000 bytes)in 101 ms => 5272.0079 pps, 42.1761 Mbps",
    "Flow 64: 569 packets ( 569000 bytes)in 101 ms => 5631.3216 pps, 45.0506 Mbps",
];

/// The seed's flow-allocator file (spaces collapsed).
const SEED_FA: &str = crate::flow::text::SEED_FA_FILE;

/// The seed's server lines beside those of the line_rate variant's, the cause run's (named
/// `cause`) and the packet-rate-limited senders' first runs, then its flow-allocator file
/// beside line_rate's.
pub(super) fn beside_the_seed(runs: [&RunResult; 3], join: SimTime, cause: &str) -> String {
    let [lr, cl, cpu] = runs;
    let mut s = String::new();
    s.push_str(&side_by_side(lr, join, "line_rate variant, first run"));
    s.push('\n');
    s.push_str(&side_by_side(
        cl,
        join,
        &format!("{cause} variant (the cause run), first run"),
    ));
    s.push('\n');
    s.push_str(&side_by_side(
        cpu,
        join,
        &format!("sender_{}pps variant, first run", SEED_PPS as u64),
    ));
    s.push_str(&fa_side_by_side(&lr.app::<OcbrResult>()[0]));
    s
}

/// The seed's server lines beside ours: the six before the join, the join, eight after.
fn side_by_side(res: &RunResult, join: SimTime, label: &str) -> String {
    use std::fmt::Write;
    let j = secs(join);
    let f1 = &res.app::<OcbrResult>()[0];
    let f2 = &res.app::<OcbrResult>()[1];
    let mut ours: Vec<String> = Vec::new();
    let before: Vec<(f64, &String)> = f1
        .intervals
        .iter()
        .zip(f1.server.iter().skip(1))
        .filter(|(i, _)| i.end_s <= j)
        .map(|(i, l)| (i.end_s, l))
        .collect();
    for (_, l) in before.iter().rev().take(6).rev() {
        ours.push(collapse_spaces(l));
    }
    ours.push("New flow.".into());
    let mut after: Vec<(f64, String)> = Vec::new();
    for f in [f1, f2] {
        for (i, l) in f.intervals.iter().zip(f.server.iter().skip(1)) {
            if i.end_s > j {
                after.push((i.end_s, collapse_spaces(l)));
            }
        }
    }
    after.sort_by(|a, b| a.0.total_cmp(&b.0));
    ours.extend(after.into_iter().take(8).map(|x| x.1));
    let mut s = String::new();
    let _ = writeln!(s, "ocbr server, {label} (ours) beside the seed's:");
    for (k, seed) in SEED_LINES.iter().enumerate() {
        let _ = writeln!(s, "  seed: {seed}");
        let _ = writeln!(
            s,
            "  sim:  {}",
            ours.get(k).map(String::as_str).unwrap_or("")
        );
    }
    s
}

/// The seed's flow-allocator file beside the sender's at the end of our run.
fn fa_side_by_side(f: &OcbrResult) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nflow-allocator file of flow 1's sender at the end of the run (ours) beside the seed's:"
    );
    for (a, b) in SEED_FA.lines().zip(f.sender_stats.lines()) {
        let _ = writeln!(s, "  {:<56} | {}", a, collapse_spaces(b));
    }
    s
}
