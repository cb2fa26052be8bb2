//! The human-readable table `cclab run` prints.

use crate::results::RunResult;
use std::fmt::Write;

use crate::results::apps::ms;

/// A time in seconds with the unit that keeps its precision: `85.3 µs`, `12.345 ms`,
/// `2.1000 s` (never `0.0001 s`); `-` for none.
pub fn duration(x: Option<f64>) -> String {
    match x {
        None => "-".into(),
        Some(v) if v.abs() < 1e-3 => format!("{:.1} µs", v * 1e6),
        Some(v) if v.abs() < 1.0 => format!("{:.3} ms", v * 1e3),
        Some(v) => format!("{v:.4} s"),
    }
}

/// Flows, queues, pings and host counters of a run as aligned text.
pub fn table(r: &RunResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scenario {} (seed {}, {} s simulated)",
        r.scenario, r.seed, r.duration_s
    );
    let _ = writeln!(
        s,
        "\n{:>4}  {:14}  {:6}  {:>10}  {:>8}  {:>6}  {:>8}  {:>10}  {:>10}  {:>9}",
        "flow",
        "path",
        "cc",
        "goodput",
        "retrans",
        "recov",
        "timeouts",
        "rtt mean",
        "rtt p99",
        "fct"
    );
    let shown = if r.flows.len() > MANY {
        FIRST
    } else {
        r.flows.len()
    };
    for f in r.flows.iter().take(shown) {
        let _ = writeln!(
            s,
            "{:>4}  {:14}  {:6}  {:>5.1} Mb/s  {:>8}  {:>6}  {:>8}  {:>7} ms  {:>7} ms  {:>11}",
            f.id,
            format!("{}→{}", f.from, f.to),
            f.cc,
            f.goodput_bps / 1e6,
            f.retransmits,
            f.recovery_episodes,
            f.timeouts,
            ms(f.rtt_mean_s),
            ms(f.rtt_p99_s),
            duration(f.fct_s)
        );
    }
    if shown < r.flows.len() {
        flow_summary(&mut s, r, shown);
    }
    let _ = writeln!(
        s,
        "\n{:16}  {:>12}  {:>12}  {:>9}  {:>9}  {:>10}",
        "queue", "max bytes", "mean bytes", "drops", "marks", "tx pkts"
    );
    // Many queues (a fat-tree has thousands): the busiest by peak length, the rest in
    // queues.csv.
    let mut queues: Vec<&crate::results::QueueResult> = r.queues.iter().collect();
    if queues.len() > MANY {
        queues.sort_by_key(|q| std::cmp::Reverse((q.max_bytes, q.drops + q.injected_losses)));
        queues.truncate(FIRST);
    }
    for q in &queues {
        let _ = writeln!(
            s,
            "{:16}  {:>12}  {:>12.0}  {:>9}  {:>9}  {:>10}",
            q.name,
            q.max_bytes,
            q.mean_bytes,
            q.drops + q.injected_losses,
            q.marks,
            q.tx_pkts
        );
    }
    if queues.len() < r.queues.len() {
        let dropping = r
            .queues
            .iter()
            .filter(|q| q.drops + q.injected_losses > 0)
            .count();
        let _ = writeln!(
            s,
            "… the {} longest of {} queues ({} of them dropped packets); every queue in queues.csv",
            queues.len(),
            r.queues.len(),
            dropping
        );
    }
    for q in &r.queues {
        if let Some(p) = q.police {
            let _ = writeln!(
                s,
                "\npolicer where {} ends: {} packets conformed, {} exceeded",
                q.name, p.conformed, p.exceeded
            );
        }
    }
    // Each app's lines (`AppRow::human`).
    r.apps.human(&mut s);
    let mut to: Vec<_> = r.hosts.iter().filter(|h| h.tcp_timeouts > 0).collect();
    let (total, hosts): (u64, usize) = (to.iter().map(|h| h.tcp_timeouts).sum(), to.len());
    let many = to.len() > MANY;
    if many {
        to.sort_by_key(|h| std::cmp::Reverse(h.tcp_timeouts));
        to.truncate(FIRST);
    }
    let list: Vec<_> = to
        .iter()
        .map(|h| format!("{} {}", h.host, h.tcp_timeouts))
        .collect();
    if many {
        let _ = writeln!(
            s,
            "\nTCP timeouts: {total} on {hosts} hosts; most: {}, …",
            list.join(", ")
        );
    } else if !list.is_empty() {
        let _ = writeln!(s, "\nTCP timeouts by host: {}", list.join(", "));
    }
    s
}

/// Above this many rows a section is summarised (the whole of it is in the CSV files).
const MANY: usize = 24;
/// Rows shown of a summarised section.
const FIRST: usize = 10;

/// The flows beyond the first `shown`, summarised: how many, their goodput (total, spread
/// and Jain's fairness index), losses, and for byte-count flows the completion times.
fn flow_summary(s: &mut String, r: &RunResult, shown: usize) {
    // One pass: the rows of a long run are read back from a file (`results::Flows`).
    let (mut g, mut slow) = (Vec::new(), Vec::new());
    let (mut delivered, mut retrans, mut timeouts, mut sized) = (0u64, 0u64, 0u64, 0usize);
    for f in &r.flows {
        g.push(f.goodput_bps / 1e6);
        delivered += f.bytes;
        retrans += f.retransmits;
        timeouts += f.timeouts;
        sized += usize::from(f.size_bytes.is_some());
        // As the `fct` table defines it (`report::table::slowdown`).
        slow.extend(crate::report::table::slowdown(&f));
    }
    let n = g.len();
    if n <= shown {
        // Only if reading the rows back failed, which writing the run's files reports.
        return;
    }
    g.sort_by(f64::total_cmp);
    let jain = crate::stats::jain(&g);
    // Nearest-rank, as every quantile in cclab's outputs (`stats`).
    let pct = |v: &[f64], q: f64| crate::stats::quantile_sorted(v, q).unwrap_or(f64::NAN);
    let _ = writeln!(
        s,
        "… {} more; all {n} flows (each in flows.csv): {:.1} Mb/s delivered over the run; goodput per flow min/median/max {:.2}/{:.2}/{:.2} Mb/s, Jain's index {:.3}; {retrans} retransmits, {timeouts} timeouts",
        n - shown,
        delivered as f64 * 8.0 / r.duration_s.max(1e-12) / 1e6,
        g[0],
        pct(&g, 0.5),
        g[n - 1],
        jain
    );
    if !slow.is_empty() {
        slow.sort_by(f64::total_cmp);
        let _ = writeln!(
            s,
            "  {} of {sized} sized flows finished; FCT slowdown (completion time / alone on an empty network) mean/p50/p99/max {:.2}/{:.2}/{:.2}/{:.2} (by size in fct_buckets.csv)",
            slow.len(),
            slow.iter().sum::<f64>() / slow.len() as f64,
            pct(&slow, 0.5),
            pct(&slow, 0.99),
            slow[slow.len() - 1]
        );
    }
}
