//! The human-readable table `cclab run` prints.

use crate::results::RunResult;
use std::fmt::Write;

fn ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.3}", v * 1e3))
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
    for f in &r.flows {
        let _ = writeln!(
            s,
            "{:>4}  {:14}  {:6}  {:>5.1} Mb/s  {:>8}  {:>6}  {:>8}  {:>7} ms  {:>7} ms  {:>9}",
            f.id,
            format!("{}→{}", f.from, f.to),
            f.cc,
            f.goodput_bps / 1e6,
            f.retransmits,
            f.recovery_episodes,
            f.timeouts,
            ms(f.rtt_mean_s),
            ms(f.rtt_p99_s),
            f.fct_s.map_or("-".into(), |v| format!("{v:.4} s"))
        );
    }
    let _ = writeln!(
        s,
        "\n{:16}  {:>12}  {:>12}  {:>9}  {:>9}  {:>10}",
        "queue", "max bytes", "mean bytes", "drops", "marks", "tx pkts"
    );
    for q in &r.queues {
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
    for q in &r.queues {
        if let Some(p) = q.police {
            let _ = writeln!(
                s,
                "\npolicer where {} ends: {} packets conformed, {} exceeded",
                q.name, p.conformed, p.exceeded
            );
        }
    }
    for p in &r.pings {
        let _ = writeln!(
            s,
            "\nping {}→{}: {}/{} replies, rtt min/mean/p99/max = {}/{}/{}/{} ms",
            p.from,
            p.to,
            p.received,
            p.sent,
            ms(p.rtt_min_s),
            ms(p.rtt_mean_s),
            ms(p.rtt_p99_s),
            ms(p.rtt_max_s)
        );
    }
    for u in &r.udp {
        let _ = writeln!(
            s,
            "\nudp {}→{} ({} Mbit/s of {}-byte datagrams, {} fragments each): {}/{} datagrams lost ({:.2}%), {:.1} Mbit/s received, jitter {:.3} ms; reassembly: {} expired, {} fragments dropped for memory",
            u.from,
            u.to,
            u.rate_bps as f64 / 1e6,
            u.len,
            u.fragments_per_datagram,
            u.lost,
            u.sent,
            u.loss_pct,
            u.goodput_bps / 1e6,
            u.jitter_ms,
            u.reassembly_expired,
            u.reassembly_mem_drops
        );
        for line in &u.report {
            let _ = writeln!(s, "{line}");
        }
    }
    for o in &r.ocbr {
        let what = if o.flood {
            "flood".to_string()
        } else {
            format!("{} Mbit/s", o.rate_bps as f64 / 1e6)
        };
        let _ = writeln!(
            s,
            "\nocbr {}→{} (flow {}, {}-byte packets, {what}, {}): {} sent, {} received, {} lost, {:.2} Mbit/s received; FLOW_UPDATEs {} sent, {} received; the sender slept {:.3} s in its window waits",
            o.from,
            o.to,
            o.fd,
            o.size,
            o.ca,
            o.sent,
            o.received,
            o.lost,
            o.goodput_bps / 1e6,
            o.flow_updates_sent,
            o.flow_updates_received,
            o.ca_wait_s
        );
        for line in &o.server {
            let _ = writeln!(s, "{line}");
        }
    }
    for a in &r.aggregates {
        let _ = writeln!(
            s,
            "\nqueries at {} ({} workers × {} B): {} done, completion time mean/median/p99/max = {}/{}/{}/{} ms, {} timeouts",
            a.aggregator,
            a.workers,
            a.response_bytes,
            a.queries_done,
            ms(a.qct_mean_s),
            ms(a.qct_median_s),
            ms(a.qct_p99_s),
            ms(a.qct_max_s),
            a.timeouts
        );
    }
    let to: Vec<_> = r
        .hosts
        .iter()
        .filter(|h| h.tcp_timeouts > 0)
        .map(|h| format!("{} {}", h.host, h.tcp_timeouts))
        .collect();
    if !to.is_empty() {
        let _ = writeln!(s, "\nTCP timeouts by host: {}", to.join(", "));
    }
    s
}
