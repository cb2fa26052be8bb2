//! `accecn-feedback` — how many of the CE marks a bottleneck sets the data sender learns,
//! with RFC 3168 feedback and with Accurate ECN (RFC 9768; Linux's implementation,
//! `tcp/accecn.rs`, docs/references.md §16), on a clean ACK path and under ACK loss on the
//! reverse link, which also thins the ACKs: a lost ACK's marks ride on the next one that
//! arrives, so ACKs cover more packets.
//!
//! No published numbers: every check is a closed form that follows from RFC 9768's and
//! RFC 3168's design and Linux's reading of the feedback (`__tcp_accecn_process`).
//! - RFC 3168 (§6.1.2): the sender reduces at most once per round trip however many ECE
//!   ACKs arrive, so its congestion signals (entries into CWR) are at most one per RTT,
//!   with or without ACK loss.
//! - AccECN, the ACE field alone (`ecn_option = 0`): the count is exact while fewer than 8
//!   packets fall between two ACKs that arrive (RFC 9768 §3.2.2.5: ACE is the CE packet
//!   count mod 8). With Linux's delayed ACKs (one per 2 full segments, an immediate one on
//!   every change of the IP-ECN field) that holds on a clean ACK path: the check is exact.
//!   Under ACK loss an ACK can cover 8 packets or more; then Linux assumes as many wraps
//!   as the packets allow (§3.2.2.5.2's safety rule), which never counts fewer marks than
//!   were set, unless its EWMA of packets per ACK exceeds 4 (`ACK_COMP_THRESH`: it then
//!   takes the gap for ACK thinning and assumes no wrap). At 25% ACK loss an ACK that
//!   arrives covers 2 / (1 − 0.25) = 2.7 packets on average, below 4: the count is judged
//!   to be at least the marks seen. At 50% the average is 4, the threshold itself: a row.
//! - AccECN with the option (`ecn_option = 2`): exact on a clean path and under ACK loss.
//!   Where an ACK covers 8 packets or more, Linux reads the CE byte counter's increase
//!   d_ceb: at 16 packets or more it estimates the CE packets as ⌈d_ceb · n / bytes⌉,
//!   which for full-sized segments is the count itself; between 8 and 15 it takes the
//!   safety rule's count if d_ceb exceeds ACE's count of segments, else ACE's if d_ceb is
//!   below half the safety rule's — each of which picks the true count when segments are
//!   full-sized. That needs the option on every ACK (`ecn_option = 2`; no SACK blocks
//!   crowd it out when no data is lost) and trusted counters (one counter other than the
//!   last one to move, `est_ecnfield`). The ACK loss starts 0.2 s into the run, after the
//!   handshake: a lost first SYN-ACK takes the option away for the whole connection
//!   (Linux sends the option only after it saw one, and a retransmitted SYN-ACK carries
//!   none, RFC 9768 §3.2.3.2.2), which would leave ACE alone.
//!
//! **Configuration.** One DCTCP flow (it reads `tp.delivered_ce`, the count judged here),
//! 100 Mbit/s access, a 50 Mbit/s bottleneck with 10 ms one way (RTT 2·(10 + 2·0.05) ms),
//! an ECN threshold queue marking CE above K = 20 packets (limit 1000); the reverse
//! bottleneck link loses each packet (the ACKs) with probability 0, 0.25 or 0.5 from
//! 0.2 s on (an `[[event]]`, after the handshake). Marks
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
use crate::net::dynamics::events::{Change, EventSpec};
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
/// When the reverse link starts losing: after the handshake (one RTT, ≈ 20 ms).
const LOSS_FROM: SimTime = 200 * MS;

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
    /// Bytes the receiver delivered to its application, in Mbit/s over the writing time.
    goodput_mbps: f64,
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
        sc.events.push(EventSpec {
            at: LOSS_FROM,
            link: "bottleneck_rev".into(),
            change: Change::Loss(c.ack_loss),
        });
    }
    o.prepare(&mut sc);
    let mut sim = Sim::new(&sc).expect("valid scenario");
    let port = sim.net.port_by_name("bottleneck").expect("a bottleneck");
    sim.run_until(dur);
    let marks_set = sim.net.port_now(port, dur).stats.marks as f64;
    let (mut seen, mut learnt, mut cwr, mut srtt, mut established) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let mut bytes = 0.0;
    for conn in &sim.conns {
        if let Some(Ends::Tcp(t)) = conn.ends() {
            if c.fb == Feedback::Rfc3168 || t.sender.accecn.is_some() {
                established += 1.0;
            }
            seen += t.receiver.stats.ce_segs_in as f64;
            bytes += t.receiver.delivered_bytes as f64;
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
        goodput_mbps: bytes * 8.0 / secs(dur - DRAIN) / 1e6,
        established,
    }
}

const WHY_ACE: &str = "RFC 9768 §3.2.2.5: ACE carries the CE packet count mod 8, so a sender that receives an ACK at least every 7 packets counts each mark; Linux's receiver ACKs every 2nd full segment and at once on each change of the IP-ECN field (`tcp_ecn_received_counters`), so on a lossless ACK path no ACK covers 8 packets: exact in every run, no tolerance";
const WHY_ACE_SAFE: &str = "RFC 9768 §3.2.2.5.2 and Linux `__tcp_accecn_process`: an ACK covering n ≥ 8 packets is read with as many wraps as n allows (the largest count ≤ n that ACE's value mod 8 admits, never below the true one), unless the EWMA of packets per ACK exceeds 4 (`ACK_COMP_THRESH`); at 25% ACK loss with an ACK per 2 segments an ACK that arrives covers 2 / 0.75 = 2.7 packets on average, so no run counts fewer marks than its receiver saw: no tolerance";
const WHY_OPT: &str = "as for ACE alone (fewer than 8 packets per ACK on a lossless path); the option adds byte counts, it cannot lose a mark: exact in every run, no tolerance";
const WHY_OPT_LOSS: &str = "RFC 9768 §3.2.2.5.2 and Linux `__tcp_accecn_process`: where an ACK covers n ≥ 8 packets the CE byte counter decides — n ≥ 16: ⌈d_ceb · n / bytes⌉ CE packets, the count itself for full-sized segments; 8 ≤ n < 16: the safety rule's count if d_ceb exceeds ACE's count of segments, ACE's if d_ceb is below half the safety rule's, which picks the true count for full-sized segments; the option rides on every ACK (`ecn_option = 2`, no SACK blocks without data loss) and one counter besides the estimated one moves (`est_ecnfield`): exact in every run, no tolerance";
const WHY_3168: &str = "RFC 3168 §6.1.2: the sender reacts to ECE at most once per window of data (one round trip; Linux holds CWR until the data sent at its start is acked), so its congestion signals number at most the run's round trips (duration / min RTT), whatever the ACK path loses";

/// `x`, read from run `r`, or NaN when its handshake failed (nothing to judge: a NaN fails).
fn if_established(r: &Run, x: f64) -> f64 {
    if r.established < 1.0 {
        f64::NAN
    } else {
        x
    }
}

/// A run's marks learnt that differ from those seen.
fn miscount(r: &Run) -> f64 {
    if_established(r, (r.learnt - r.seen).abs())
}

/// A run's marks seen but not learnt.
fn missed(r: &Run) -> f64 {
    if_established(r, (r.seen - r.learnt).max(0.0))
}

/// Congestion signals (entries into CWR) per round trip.
fn signals_per_rtt(r: &Run) -> f64 {
    if_established(r, r.cwr_episodes / r.rtts)
}

fn path(loss: f64) -> String {
    if loss == 0.0 {
        "lossless ACKs".into()
    } else {
        format!("{}% ACK loss", (loss * 100.0).round())
    }
}

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
        let on = path(loss);
        match fb {
            Feedback::Rfc3168 => checks.push(s.check(
                &format!("RFC 3168, {on}: congestion signals per round trip of the run"),
                Against::ClosedForm,
                1.0,
                Tol::AtMost,
                WHY_3168,
                Of::mean(v, signals_per_rtt),
            )),
            Feedback::AceOnly if loss == 0.0 => checks.push(s.check(
                &format!("AccECN, ACE alone, {on}: |marks learnt − marks seen| per run"),
                Against::ClosedForm,
                0.0,
                Tol::Abs(0.0),
                WHY_ACE,
                Of::mean(v, miscount),
            )),
            Feedback::AceOnly if loss == 0.25 => checks.push(s.check(
                &format!("AccECN, ACE alone, {on}: marks seen but not learnt per run"),
                Against::ClosedForm,
                0.0,
                Tol::Abs(0.0),
                WHY_ACE_SAFE,
                Of::mean(v, missed),
            )),
            Feedback::AceOnly => {}
            Feedback::Option => checks.push(s.check(
                &format!("AccECN, ACE and the option, {on}: |marks learnt − marks seen| per run"),
                Against::ClosedForm,
                0.0,
                Tol::Abs(0.0),
                if loss == 0.0 { WHY_OPT } else { WHY_OPT_LOSS },
                Of::mean(v, miscount),
            )),
        }
    }
    let d0 = s.run(|&c, seed| simulate(o, c, dur, seed));
    let mut d = d0;
    for &(_, _, v) in &vars {
        let name = d.name(v).to_string();
        let rows: [(&str, Metric); 7] = [
            ("established", |r| r.established),
            ("marks_set", |r| r.marks_set),
            ("marks_seen", |r| r.seen),
            ("marks_learnt", |r| r.learnt),
            ("learnt_over_seen", |r| r.learnt / r.seen.max(1.0)),
            ("cwr_episodes", |r| r.cwr_episodes),
            ("goodput_mbps", |r| r.goodput_mbps),
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
    d.note("not judged: ACE alone at 50% ACK loss (an ACK that arrives covers 4 packets on average, Linux's ACK-thinning threshold itself, so neither the safety rule's overcount nor the no-wrap reading is predicted); how far counts stray where they do (learnt_over_seen), and RFC 3168's share of marks learnt (DCTCP's receiver echoes its CE state, so a lost ACK hands its packets to the next ACK's state)");
    d.finish()
}
