//! `lfn-buffering` — seed 004's arithmetic and its claims about buffers ("10G > 1G",
//! 2014, and its comments):
//!
//! - "If you're trying to send at 1Gb/s to a destination 160ms away, you need a window of
//!   20MB - if you want to do this at 10Gb/s, you need a window of 200MB!";
//! - "your sender dumps 20MB onto the network at 10Gb/s - in the time it takes to arrive
//!   at the start of the 1Gb/s segment, the 1Gb/s segment can only send 2MB - leaving
//!   18MB to be dealt with. If you have big enough buffers, then this will eke out into
//!   the network at 1Gb/s and everything will be fine!";
//! - comment 2, its correction: "tcp will ramp up to sending a little over 1Gb/sec +
//!   buffering, then have a drop, hopefully long before it has a 10x1 bandwidth
//!   disparity";
//! - "If you have no buffers, your TCP stream starts up and immediately drops 90% of its
//!   packets";
//! - the lab's baseline: two boxes back to back at 10 Gb/s, tuned, "sub-millisecond
//!   latency, you should see very close to 10Gb/s of TCP throughput";
//! - comment 4: with fq_codel in place of the policer, "better … with fq_codel enabled
//!   (more with ecn enabled)".
//!
//! **Seed configuration.** The post's path: a sender with a 10 Gbit/s NIC (its qdisc
//! pfifo_fast's 1000 packets), a 1 Gbit/s segment with a drop-tail buffer, the receiver;
//! 160 ms round trip. The hosts of 2014: Linux 3.18, the era profile closest to the
//! post's kernels (docs/linux-eras.md), CUBIC, TSO, GRO and TCP small queues on (as
//! `policer`'s hosts), socket buffers of the post's tuning (64 MB, the window's cap, as
//! `policer` reads `tcp_rmem`), or the window the claim names. Each claim in its own case:
//! - the window: a flow whose window (receive buffer) is half the post's figure, 10 MB at
//!   1 Gbit/s and 100 MB on a 10 Gbit/s path, gets window/RTT; the window that would fill
//!   the link is that window × (the link's TCP capacity / the goodput), `bdp_*_mb`;
//! - "dumps 20MB … leaving 18MB": a flow with the post's 20 MB window and a buffer that
//!   holds all of it (20 MB, "big enough"): the largest queue at the 1 Gbit/s segment
//!   (`peak_queue_mb`), and no drop there ("everything will be fine");
//! - comment 2: the post's tuned 64 MB and the 18 MB the post says suffice: the rate at
//!   which the sender fed the segment over the round trip that ends with its first drop,
//!   in multiples of the segment's rate (`ramp_ratio`);
//! - "no buffers": no port holds nothing (Linux and cclab both need a limit above zero),
//!   so the least buffer a port has: one packet waiting behind the one on the wire
//!   (pfifo limit 1); of the data segments sent in the first round trip, the share the
//!   segment dropped (`first_rtt_drop_pct`);
//! - the baseline: one 10 Gbit/s link, 10 µs each way, the tuned 64 MB, iperf's goodput;
//! - comment 4: `policer`'s lab (netem 50 ms on box1) with comment 4's htb 1000 Mbit/s and
//!   fq_codel (ECN on, its default) in a box in the middle instead of the policer, the
//!   hosts' TCP ECN off (Linux's default, `tcp_ecn` 2) or on (`tcp_ecn` 1).
//!
//! The readings, fixed before anything runs, each with its tolerance's reason, are in the
//! `*_WHY` texts below. The cause run of the post's two burst claims is the post's own
//! picture made a configuration: a sender that puts its whole window on the wire at once —
//! `init_cwnd` and `rcv_init_wnd` of the window (`ip route … initcwnd N initrwnd N`), as a
//! connection that resumes after idle with `slow_start_after_idle = false` does (a row
//! measures that too).

use super::common::{max_goodput, nic_path, one_hop, tcp, wire_bytes, MeanCi};
use super::lab10g::{lab, HOP, NIC};
use super::study::{Of, Runs, Study, V};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::scenario::*;
use crate::tcp::era::Era;

pub const EXPERIMENT: Experiment = Experiment {
    name: "lfn-buffering",
    seed_doc: "004",
    about: "A 10G sender, a 1G segment, 160 ms: the 20 MB window, the 18 MB the post says a burst leaves, comment 2's ramp, 90% dropped without buffers, the 10G baseline, fq_codel with ECN",
    run,
};

const SEGMENT: u64 = 1_000_000_000;
const RTT: SimTime = 160 * MS;
/// The post's tuning: `tcp_rmem`/`tcp_wmem` "about 64MB".
const TUNED: u64 = 64 << 20;
/// The post's 20 MB, in the post's (decimal) megabytes.
const MB: u64 = 1_000_000;
/// Full segments in the post's 20 MB window (1448 B of payload each): the burst a sender
/// that dumps it puts on the wire at once.
const WINDOW_SEGS: u32 = (20 * MB / 1448) as u32;

/// One case.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cfg {
    /// A bulk flow over the 160 ms path whose segment runs at `rate`, its window
    /// `window` bytes, the segment's buffer `buffer`; `dump`: the whole window at once
    /// (`init_cwnd` = `rcv_init_wnd` = the window in segments); `restart`: two 100 MB
    /// responses a second apart over one connection with `slow_start_after_idle` off.
    Path {
        rate: u64,
        window: u64,
        buffer: Limit,
        dump: bool,
        restart: bool,
    },
    /// Two boxes back to back at 10 Gbit/s.
    BackToBack,
    /// `policer`'s lab with comment 4's htb + fq_codel, TCP ECN on or off.
    FqCodel { ecn: bool },
}

/// What one run gives.
#[derive(Clone, Debug, Default)]
struct Out {
    /// Goodput after the warm-up, Mbit/s.
    mbps: f64,
    /// The largest backlog of the segment's port, MB of IP bytes.
    peak_queue_mb: f64,
    /// Packets the segment's port dropped.
    drops: u64,
    /// Of the data segments sent in the first round trip of data (from the millisecond
    /// before the first to 2 ms short of a round trip after it: before any ACK of them can
    /// release more), the share the segment dropped, %.
    first_rtt_drop_pct: f64,
    /// Data segments sent in that round trip.
    first_rtt_pkts: u64,
    /// Wire bits reaching the segment in the round trip before its first drop over what
    /// the segment sends in a round trip (NaN without a drop).
    ramp_ratio: f64,
    retransmits: u64,
    timeouts: u64,
}

/// The 160 ms path: the NIC's hop, then the segment (`rate`, its buffer) and the rest of
/// the way.
fn path(rate: u64, buffer: Limit) -> TopologySpec {
    nic_path(
        (NIC, HOP, Limit::Packets(1000)),
        (rate, RTT / 2 - HOP, buffer),
    )
}

/// The 2014 host's TCP with window `window`.
fn host_tcp(window: u64) -> TcpConfig {
    let mut t = tcp("cubic");
    crate::tcp::config::set_era(&mut t, Era::Linux3_18, &["sndbuf", "rcvbuf"]);
    t.sndbuf = TUNED.max(window);
    t.rcvbuf = window;
    t
}

fn scenario(c: Cfg, dur: SimTime, seed: u64) -> Scenario {
    let (topo, t, restart) = match c {
        Cfg::Path {
            rate,
            window,
            buffer,
            dump,
            restart,
        } => {
            let mut t = host_tcp(window);
            if dump {
                let segs = window.div_ceil(1448) as u32;
                (t.init_cwnd, t.rcv_init_wnd) = (segs, Some(segs));
            }
            t.slow_start_after_idle = !restart;
            (path(rate, buffer), t, restart)
        }
        Cfg::BackToBack => (
            one_hop(NIC, HOP, QueueSpec::droptail(Limit::Packets(1000))),
            host_tcp(TUNED),
            false,
        ),
        Cfg::FqCodel { ecn } => {
            let mut t = host_tcp(TUNED);
            t.ecn = ecn;
            let middle = QueueSpec::htb(SEGMENT, QueueSpec::fq_codel());
            (lab(None, Some(middle)), t, false)
        }
    };
    let mut sc = Scenario::new("lfn-buffering", topo, dur);
    sc.seed = seed;
    sc.host.tso = true;
    sc.host.gro = true;
    sc.host.tsq = true;
    if restart {
        sc.apps.aggregates.push(crate::app::reqresp::AggregateSpec {
            aggregator: "dst".into(),
            workers: vec!["src".into()],
            response_bytes: 100 * MB,
            queries: 2,
            start: 0,
            first_query: 0,
            think: SEC,
            request_size: 100,
            tcp: t,
        });
    } else {
        sc.add_flow("src", "dst", t);
    }
    sc
}

/// One run of `dur`, its goodput measured after `warm` (a whole number of milliseconds).
fn simulate(o: &Options, c: Cfg, (dur, warm): (SimTime, SimTime), seed: u64) -> Out {
    let mut sc = scenario(c, dur, seed);
    o.prepare(&mut sc);
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    // The segment: its rate and its port.
    let (rate, port_name) = match c {
        Cfg::Path { rate, .. } => (rate, "hop1"),
        Cfg::BackToBack => (NIC, "hop0"),
        Cfg::FqCodel { .. } => (SEGMENT, "hop1"),
    };
    let port = sim.net.port_by_name(port_name).expect("the segment's port");
    // Every millisecond: the packets that reached the port and those it dropped so far,
    // and the data segments the senders have sent.
    let mut counts: Vec<(u64, u64, u64)> = Vec::with_capacity((dur / MS) as usize + 1);
    let mut b0 = 0;
    let mut t = 0;
    while t < dur {
        t += MS;
        sim.run_until(t);
        let s = &sim.net.port(port).stats;
        counts.push((s.enqueued + s.drops, s.drops, data_sent(&sim)));
        if t == warm {
            b0 = delivered(&sim);
        }
    }
    sim.run();
    let mbps = (delivered(&sim) - b0) as f64 * 8.0 / secs(dur - warm) / 1e6;
    let s = &sim.net.port(port).stats;
    let rtt_ms = (RTT / MS) as usize;
    // The first round trip of data: from the millisecond before the first data segment.
    let first = counts.iter().position(|c| c.2 > 0).unwrap_or(0);
    let at = |i: usize| counts[i.min(counts.len() - 1)];
    let before = if first == 0 { (0, 0, 0) } else { at(first - 1) };
    // Up to 2 ms short of a round trip after it: before the first ACK can bring more.
    let end = at(first + rtt_ms - 2);
    let (a1, d1) = (end.2 - before.2, end.1 - before.1);
    let ramp_ratio = match counts.iter().position(|c| c.1 > 0) {
        Some(i) => {
            let start = if i > rtt_ms { at(i - rtt_ms).0 } else { 0 };
            let bits = (at(i).0 - start) as f64 * wire_bytes(1500) as f64 * 8.0;
            bits / (rate as f64 * secs(RTT))
        }
        None => f64::NAN,
    };
    let (retransmits, timeouts) = sim
        .conns
        .iter()
        .filter_map(|c| c.tcp())
        .fold((0, 0), |(r, t), c| {
            (r + c.sender.stats.retrans_segs, t + c.sender.stats.timeouts)
        });
    Out {
        mbps,
        peak_queue_mb: s.max_bytes as f64 / MB as f64,
        drops: s.drops,
        first_rtt_drop_pct: 100.0 * d1 as f64 / a1.max(1) as f64,
        first_rtt_pkts: a1,
        ramp_ratio,
        retransmits,
        timeouts,
    }
}

/// Data segments the connections have sent.
fn data_sent(sim: &crate::sim::Sim) -> u64 {
    sim.conns
        .iter()
        .filter_map(|c| c.tcp())
        .map(|c| c.sender.stats.data_segs_out)
        .sum()
}

/// Payload bytes every connection's receiver has taken in order.
fn delivered(sim: &crate::sim::Sim) -> u64 {
    sim.conns
        .iter()
        .filter_map(|c| c.tcp())
        .map(|c| c.receiver.delivered_bytes)
        .sum()
}

/// A metric of one run, for the rows.
type Metric = fn(&Out) -> f64;

/// The window that fills a link of `rate`, MB, from a run of window `window`: the window
/// × the link's TCP capacity / the goodput.
fn bdp_mb(r: &Runs<Out>, v: V, window: u64, rate: u64) -> MeanCi {
    let m = r.mean(v, |o| o.mbps);
    let k = window as f64 / MB as f64 * max_goodput(rate, 1500) / 1e6;
    MeanCi {
        mean: k / m.mean,
        half: k * m.half / (m.mean * (m.mean - m.half)).max(f64::MIN_POSITIVE),
        n: m.n,
    }
}

const BDP_WHY: &str = "the post's figure is latency × bandwidth in the link's bits (1 Gb/s × 160 ms / 8 = 20 MB exactly); a TCP window counts payload, 1448 of every 1538 wire bytes at MTU 1500 (−5.85%), and '20MB' is rounded to its last digit (±0.5 MB of 20, ±5 of 200): [0.9415 × 20 − 0.5, 20 + 0.5], as factors 0.9165 … 1.025";
const QUEUE_WHY: &str = "'leaving 18MB to be dealt with': the post's MB of data; the queue counts IP bytes, 1500 per 1448 of data (+3.6%), and '18MB' is rounded to its last digit: [17.5, 18.5 × 1500/1448] MB";
const FINE_WHY: &str = "'If you have big enough buffers, then this will eke out into the network at 1Gb/s and everything will be fine!': with the post's 20 MB window and a buffer that holds it, the segment drops nothing";
const RAMP_WHY: &str = "comment 2: TCP 'will ramp up to sending a little over 1Gb/sec + buffering, then have a drop, … long before … a 10x1 bandwidth disparity': read as the wire rate into the segment over the round trip that ends with the first drop at most twice the segment's (slow start at most doubles the window per round trip: each ACKed segment releases two), where the post's picture is ten times";
const NOBUF_WHY: &str = "'If you have no buffers, your TCP stream starts up and immediately drops 90% of its packets': of the data segments the sender puts out in its first round trip, the share the 1 Gbit/s segment drops; 90% is 1 − 1/10, the rates' ratio, given to one digit: ±5 points";
const NOBUF_CLOSED_WHY: &str = "a burst of n packets at 10 Gbit/s into a 1 Gbit/s port holding b = 1 waiting packet: the first goes on the wire, b wait, and the port sends one more per ten arrivals, so 1 + b + ⌊(n − 1)/10⌋ pass; n = the 20 MB window's 13,812 full segments (89.99%), or Linux's initial window of 10 (`TCP_INIT_CWND`: 80%). The count is exact; ±0.1 point allows a dozen packets of spacing at the offload aggregates' edges";
const B2B_WHY: &str = "'very close to 10Gb/s' on a sub-millisecond path: the post's next step calls 7-8 Gb/s at 50 ms good, so 'very close to 10' is read as at least 9 Gb/s of iperf's goodput (its ceiling is 10 Gb/s × 1448/1538 = 9.41 Gb/s)";
const ECN_WHY: &str = "comment 4: 'better … with fq_codel enabled (more with ecn enabled)': goodput with the hosts' ECN on minus with it off, % of off, its 95% interval (Welch) above 0";
const DUMP_CFG: &str = "the post's picture as a configuration: the sender puts its whole 20 MB window on the wire at once, `init_cwnd = 13813` and `rcv_init_wnd = 13813` (Linux: `ip route change … initcwnd 13813 initrwnd 13813`), the 20 MB window in segments; a connection resuming after idle with `slow_start_after_idle = false` sends what its window then holds at once (row `restart_ssai_off`, its peak queue)";

fn run(o: &Options) -> Report {
    // (run, warm-up): slow start to 20 MB takes some 3 s at 160 ms.
    let (dur, b2b_dur, fq_dur) = if o.quick {
        ((8 * SEC, 4 * SEC), (SEC, SEC / 2), (6 * SEC, 2 * SEC))
    } else {
        (
            (30 * SEC, 10 * SEC),
            (10 * SEC, 2 * SEC),
            (60 * SEC, 10 * SEC),
        )
    };
    let (n, cap) = if o.quick { (2, 4) } else { (4, 16) };
    let lfn = |rate, window, buffer, dump| Cfg::Path {
        rate,
        window,
        buffer,
        dump,
        restart: false,
    };
    let big = Limit::Bytes(20 * MB);
    let one = Limit::Packets(1);
    let mut s: Study<Cfg, Out> = Study::new("lfn-buffering", o);
    let w10 = s.variant("window_10mb_1g", lfn(SEGMENT, 10 * MB, big, false), n, cap);
    let w100 = s.variant(
        "window_100mb_10g",
        lfn(NIC, 100 * MB, Limit::Bytes(200 * MB), false),
        n,
        cap,
    );
    let w20 = s.variant("window_20mb", lfn(SEGMENT, 20 * MB, big, false), n, cap);
    let dump20 = s.variant("dump_window_20mb", lfn(SEGMENT, 20 * MB, big, true), n, cap);
    let restart = s.variant(
        "restart_ssai_off",
        Cfg::Path {
            rate: SEGMENT,
            window: 20 * MB,
            buffer: big,
            dump: false,
            restart: true,
        },
        n,
        cap,
    );
    let ramp_cfg = lfn(SEGMENT, TUNED, Limit::Bytes(18 * MB), false);
    let ramp = s.variant("tuned_buffer_18mb", ramp_cfg, n, cap);
    let nobuf = s.variant("no_buffer", lfn(SEGMENT, TUNED, one, false), n, cap);
    let nobuf_dump = s.variant("dump_no_buffer", lfn(SEGMENT, 20 * MB, one, true), n, cap);
    let b2b = s.variant("back_to_back_10g", Cfg::BackToBack, n, cap);
    let fq = s.variant("htb_fq_codel", Cfg::FqCodel { ecn: false }, n, cap);
    let fq_ecn = s.variant("htb_fq_codel_ecn", Cfg::FqCodel { ecn: true }, n, cap);

    let bdp_tol = Tol::Factor(0.9165, 1.025);
    s.seed_of(
        "window_10mb_1g",
        "bdp_mb",
        20.0,
        bdp_tol,
        BDP_WHY,
        Of::with(&[w10], move |r| bdp_mb(r, w10, 10 * MB, SEGMENT)),
    );
    s.seed_of(
        "window_100mb_10g",
        "bdp_mb",
        200.0,
        bdp_tol,
        BDP_WHY,
        Of::with(&[w100], move |r| bdp_mb(r, w100, 100 * MB, NIC)),
    );
    let q = s.seed(
        w20,
        "peak_queue_mb",
        18.0,
        Tol::Factor(17.5 / 18.0, 18.5 * 1500.0 / 1448.0 / 18.0),
        QUEUE_WHY,
        |o| o.peak_queue_mb,
    );
    s.cause(q, dump20, DUMP_CFG);
    s.seed(w20, "drops", 0.0, Tol::AtMost, FINE_WHY, |o| o.drops as f64);
    s.seed(ramp, "ramp_ratio", 2.0, Tol::AtMost, RAMP_WHY, |o| {
        o.ramp_ratio
    });
    let nb = s.seed(
        nobuf,
        "first_rtt_drop_pct",
        90.0,
        Tol::Abs(5.0),
        NOBUF_WHY,
        |o| o.first_rtt_drop_pct,
    );
    s.cause(nb, nobuf_dump, DUMP_CFG);
    // A burst of n segments at 10 Gbit/s into the 1 Gbit/s port that holds one: % dropped.
    let burst = |n: f64| 100.0 * (1.0 - (2.0 + ((n - 1.0) / 10.0).floor()) / n);
    for (v, n) in [(nobuf, 10.0), (nobuf_dump, WINDOW_SEGS as f64)] {
        let name = format!(
            "{}: first_rtt_drop_pct = 1 − (2 + ⌊(n − 1)/10⌋)/n, n = {n}",
            s.name(v)
        );
        s.check(
            &name,
            Against::ClosedForm,
            burst(n),
            Tol::Abs(0.1),
            NOBUF_CLOSED_WHY,
            Of::mean(v, |o: &Out| o.first_rtt_drop_pct),
        );
    }
    s.seed(b2b, "goodput_mbps", 9000.0, Tol::AtLeast, B2B_WHY, |o| {
        o.mbps
    });
    s.claim(
        "goodput with ECN above without, % (ecn_gain_pct)",
        0.0,
        Tol::AtLeast,
        ECN_WHY,
        Of::with(&[fq_ecn, fq], move |r| {
            r.pct_diff(fq_ecn, fq, |o: &Out| o.mbps)
        }),
    );
    let mut d = s.run(|&c, seed| {
        let t = match c {
            Cfg::BackToBack => b2b_dur,
            Cfg::FqCodel { .. } => fq_dur,
            // Two 100 MB responses a second apart end within 8 s.
            Cfg::Path { restart: true, .. } => (8 * SEC, 4 * SEC),
            // Comment 2's case runs until its first drop can have come: CUBIC (3.18's
            // HyStart leaves slow start early) fills the 18 MB some 13 s in.
            Cfg::Path { window: TUNED, .. } if c == ramp_cfg => (30 * SEC, 10 * SEC),
            Cfg::Path { .. } => dur,
        };
        simulate(o, c, t, seed)
    });
    let rows: [(&str, Metric); 7] = [
        ("goodput_mbps", |o| o.mbps),
        ("peak_queue_mb", |o| o.peak_queue_mb),
        ("drops", |o| o.drops as f64),
        ("first_rtt_drop_pct", |o| o.first_rtt_drop_pct),
        ("first_rtt_pkts", |o| o.first_rtt_pkts as f64),
        ("retransmits", |o| o.retransmits as f64),
        ("timeouts", |o| o.timeouts as f64),
    ];
    d.rows_ci(
        &[
            w10, w100, w20, dump20, restart, ramp, nobuf, nobuf_dump, b2b, fq, fq_ecn,
        ],
        &rows,
    );
    let m = d.mean(ramp, |o| o.ramp_ratio);
    d.row_ci("tuned_buffer_18mb", "ramp_ratio", m);
    d.note(format!(
        "the post's path: a 10 Gbit/s NIC (pfifo 1000 packets, {} µs) → a 1 Gbit/s segment with a drop-tail buffer → the receiver, RTT {} ms; Linux 3.18 hosts, CUBIC, TSO/GRO/TSQ; {} s per run, goodput after {} s",
        HOP / US,
        RTT / MS,
        secs(dur.0),
        secs(dur.1)
    ));
    d.note(format!(
        "the link's TCP capacity at MTU 1500: {:.1} Mbit/s at 1 Gbit/s, {:.0} Mbit/s at 10 Gbit/s (1448 of 1538 wire bytes)",
        max_goodput(SEGMENT, 1500) / 1e6,
        max_goodput(NIC, 1500) / 1e6
    ));
    d.note("comment 4's lab is `policer`'s (netem 50 ms on box1, a box in the middle with htb 1000 Mbit/s over fq_codel, no policer); fq_codel marks ECN-capable packets (its default), the hosts' `tcp_ecn` decides whether they are");
    d.finish()
}
