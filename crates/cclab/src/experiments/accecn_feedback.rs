//! `accecn-feedback` — how many of the CE marks a bottleneck sets the data sender learns,
//! with RFC 3168 feedback and with Accurate ECN (RFC 9768; Linux's implementation,
//! `tcp/accecn.rs`, docs/references.md §16), on a clean ACK path and under ACK loss on the
//! reverse link (which also thins the ACKs: a lost ACK's marks ride on the next one).
//!
//! No published numbers: every check is a closed form that follows from RFC 9768's and
//! RFC 3168's design.
//! - RFC 3168 (§6.1.2): the sender reduces at most once per round trip however many ECE
//!   ACKs arrive, so its congestion signals (entries into CWR) are at most one per RTT.
//! - AccECN, the ACE field alone (`ecn_option = 0`): the count is exact while fewer than 8
//!   CE marks fall between two ACKs that arrive (RFC 9768 §3.2.2.5: ACE is the CE packet
//!   count mod 8). With Linux's delayed ACKs (one per 2 full segments, an immediate one on
//!   every change of the IP-ECN field) that holds on a clean ACK path: the check is exact.
//! - AccECN with the option (`ecn_option = 2`): on a clean path, exact as well. Under ACK
//!   loss more than 8 packets fall between delivered ACKs; the option's byte counters are
//!   what lets the sender resolve ACE's wraps (§3.2.2.5.2), but Linux trusts them only
//!   when one counter moved at a time (`est_ecnfield`), so the rows show how close it
//!   comes, against ACE alone, and are not judged.
//!
//! **Configuration.** One DCTCP flow (it reads `tp.delivered_ce`, the count judged here),
//! 100 Mbit/s access, a 50 Mbit/s bottleneck with 10 ms one way (RTT 2·(10 + 2·0.05) ms),
//! an ECN threshold queue marking CE above K = 20 packets (limit 1000); the reverse
//! bottleneck link loses each packet (the ACKs) with probability 0, 0.25 or 0.5. Marks
//! set = the bottleneck's mark counter; marks seen = the receiver's CE segments; marks
//! learnt = the sender's `delivered_ce`. The flow stops writing 0.5 s before the end, so
//! no ACK is still on its way when they are read.
//!
//! Runs: the hosts' jitter and the loss are random: two seeds per variant. `--quick`: 2 s
//! runs instead of 10 s.

use super::study::{Of, Study};
use super::{Against, Experiment, Options, Report, Tol};
use crate::conn::Ends;
use crate::engine::*;
use crate::net::loss::LossSpec;
use crate::qdisc::QueueSpec;
use crate::scenario::*;
use crate::sim::Sim;

pub const EXPERIMENT: Experiment = Experiment {
    name: "accecn-feedback",
    seed_doc: "docs/references.md §16 (RFC 9768; RFC 3168 §6.1.2)",
    about: "CE marks a DCTCP sender learns vs marks the bottleneck set: RFC 3168, AccECN with the ACE field alone and with the option, clean ACK path and ACK loss 25% / 50%",
    run,
};

/// A quantity read from a run.
type Metric = fn(&Run) -> f64;

const RATE: u64 = 50_000_000;
const OWD: SimTime = 10 * MS;
/// Time left at the end for the last data and ACKs (RTT ≈ 20 ms plus the queue).
const DRAIN: SimTime = 500 * MS;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Feedback {
    Rfc3168,
    AceOnly,
    Option,
}

#[derive(Clone, Copy, Debug)]
struct Case {
    fb: Feedback,
    ack_loss: f64,
}

#[derive(Clone, Debug)]
struct Run {
    marks_set: f64,
    seen: f64,
    learnt: f64,
    cwr_episodes: f64,
    rtts: f64,
    /// 1 when the handshake completed (with AccECN where asked for).
    established: f64,
}

fn simulate(o: &Options, c: Case, dur: SimTime, seed: u64) -> Run {
    let topo = TopologySpec::Dumbbell {
        senders: 1,
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: RATE,
            delay: OWD,
            queue: QueueSpec::ecn(Limit::Packets(1000), Limit::Packets(20)),
        },
        access_rate_bps: 2 * RATE,
        access_delay: vec![50 * US],
        access_queue: QueueSpec::droptail(Limit::Packets(1000)),
    };
    let mut sc = Scenario::new("accecn-feedback", topo, dur);
    sc.seed = seed;
    let mut tcp = super::common::tcp("dctcp");
    // The reverse link loses SYN-ACKs too: a 100 ms initial RTO (Linux: 1 s) lets the
    // handshake through within the run; after it the RTO follows the RTT samples.
    tcp.rto_initial = 100 * MS;
    match c.fb {
        Feedback::Rfc3168 => tcp.ecn = true,
        Feedback::AceOnly | Feedback::Option => {
            tcp.ecn_mode = 3;
            tcp.ecn_option = if c.fb == Feedback::Option { 2 } else { 0 };
        }
    }
    // The flow stops writing DRAIN before the end, so every ACK (and the marks it reports)
    // has arrived when the counts are read.
    let f = sc.add_flow("s0", "r0", o.tcp(tcp));
    sc.apps.flows[f].stop = Some(dur - DRAIN);
    if c.ack_loss > 0.0 {
        sc.losses.push(LossSpec {
            link: "bottleneck_rev".into(),
            rate: c.ack_loss,
            drop_nth: vec![],
            every: 0,
        });
    }
    o.prepare(&mut sc);
    let mut sim = Sim::new(&sc).expect("valid scenario");
    let port = sim.net.port_by_name("bottleneck").expect("a bottleneck");
    sim.run_until(dur);
    let marks_set = sim.net.port_now(port, dur).stats.marks as f64;
    let (mut seen, mut learnt, mut cwr, mut srtt, mut established) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for conn in &sim.conns {
        if let Some(Ends::Tcp(t)) = conn.ends() {
            if c.fb == Feedback::Rfc3168 || t.sender.accecn.is_some() {
                established += 1.0;
            }
            seen += t.receiver.stats.ce_segs_in as f64;
            learnt += t.sender.tp.delivered_ce as f64;
            cwr += t.sender.stats.cwr_episodes as f64;
            srtt = secs(t.sender.rtt.min_rtt);
        }
    }
    Run {
        marks_set,
        seen,
        learnt,
        cwr_episodes: cwr,
        rtts: secs(dur) / srtt.max(1e-9),
        established,
    }
}

const WHY_ACE: &str = "RFC 9768 §3.2.2.5: ACE carries the CE packet count mod 8, so a sender that receives an ACK at least every 7 CE packets counts each mark; Linux's receiver ACKs every 2nd full segment and at once on each change of the IP-ECN field (`tcp_ecn_received_counters`), so on a lossless ACK path no ACK covers 8 packets: exact, no tolerance";
const WHY_OPT: &str = "as for ACE alone (fewer than 8 packets per ACK on a lossless path); the option adds byte counts, it cannot lose a mark: exact, no tolerance";
const WHY_3168: &str = "RFC 3168 §6.1.2: the sender reacts to ECE at most once per window of data (one round trip; Linux holds CWR until the data sent at its start is acked), so its congestion signals number at most the run's round trips (duration / min RTT)";

fn run(o: &Options) -> Report {
    let dur = if o.quick { 2 * SEC } else { 10 * SEC };
    let (runs, cap) = (2, 2);
    let mut s: Study<Case, Run> = Study::new("accecn-feedback", o);
    let mut vars = vec![];
    for (fb, tag) in [
        (Feedback::Rfc3168, "rfc3168"),
        (Feedback::AceOnly, "accecn_ace"),
        (Feedback::Option, "accecn_option"),
    ] {
        for loss in [0.0, 0.25, 0.5] {
            let v = s.variant(
                &format!("{tag}_ackloss{}", (loss * 1000.0) as u32),
                Case { fb, ack_loss: loss },
                runs,
                cap,
            );
            vars.push((fb, loss, v));
        }
    }
    let mut checks = vec![];
    for &(fb, loss, v) in &vars {
        if loss == 0.0 && fb != Feedback::Rfc3168 {
            let (what, why) = if fb == Feedback::AceOnly {
                ("ACE alone", WHY_ACE)
            } else {
                ("ACE and the option", WHY_OPT)
            };
            checks.push(s.check(
                &format!("AccECN, {what}, lossless ACKs: marks learnt − marks seen"),
                Against::ClosedForm,
                0.0,
                Tol::Abs(0.0),
                why,
                Of::mean(v, |r: &Run| {
                    // A run whose handshake failed has nothing to judge: NaN fails.
                    if r.established < 1.0 {
                        f64::NAN
                    } else {
                        r.learnt - r.seen
                    }
                }),
            ));
        }
        if fb == Feedback::Rfc3168 && loss == 0.0 {
            checks.push(s.check(
                "RFC 3168, lossless ACKs: congestion signals per round trip of the run",
                Against::ClosedForm,
                1.0,
                Tol::AtMost,
                WHY_3168,
                Of::mean(v, |r: &Run| {
                    if r.established < 1.0 {
                        f64::NAN
                    } else {
                        r.cwr_episodes / r.rtts
                    }
                }),
            ));
        }
    }
    let d0 = s.run(|&c, seed| simulate(o, c, dur, seed));
    let mut d = d0;
    for &(_, _, v) in &vars {
        let name = d.name(v).to_string();
        let rows: [(&str, Metric); 6] = [
            ("established", |r| r.established),
            ("marks_set", |r| r.marks_set),
            ("marks_seen", |r| r.seen),
            ("marks_learnt", |r| r.learnt),
            ("learnt_over_seen", |r| r.learnt / r.seen.max(1.0)),
            ("cwr_episodes", |r| r.cwr_episodes),
        ];
        for (metric, f) in rows {
            let x = d.mean(v, f);
            d.row_ci(&name, metric, x);
        }
    }
    for c in checks {
        d.emit(c);
    }
    d.note(format!(
        "dumbbell: one DCTCP sender, 100 Mbit/s access (50 µs) → 50 Mbit/s bottleneck (10 ms one way), ECN threshold K = 20 packets (limit 1000); the reverse bottleneck link loses each packet with the probability in the variant's name (‰); {} s runs (the flow writes until 0.5 s before the end), means over {runs} seeds ({}…)",
        secs(dur),
        o.seed,
    ));
    d.note("marks_set: CE marks the bottleneck set; marks_seen: CE segments the receiver counted; marks_learnt: the sender's tp.delivered_ce (RFC 3168: every packet an ECE ACK delivers; AccECN: the CE packets ACE and the option report)");
    d.note("under ACK loss no variant is judged (rows only): DCTCP's flow itself changes (timeouts) and the AccECN count depends on Linux's heuristics: Linux trusts the option's byte counters only when one counter moved since the last option (est_ecnfield), and otherwise falls back on the safety rule (more packets than marks: as many wraps as possible) or, when ACKs usually cover more than 4 packets, on no wrap");
    d.finish()
}
