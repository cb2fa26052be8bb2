//! `tcpmon` — seed 003 slides 46–49: tcpmon, "an instrumented TCP request-response
//! program" emulating the ATLAS Event Filter (EFD) asking the SFI for events: a 64-byte
//! request, a 1 Mbyte response, then a 50 ms wait before the next request, all on one TCP
//! connection. Manchester–CERN (RTT 20 ms) untuned (slide 47) and "TCP stack tuned"
//! (slide 48), Alberta–CERN (RTT 150 ms) tuned (slide 49).
//!
//! **Seed configuration.** The EFD (host `dst`, the aggregator) and the SFI (`src`, its one
//! worker) on 1 Gbit/s Ethernet, MTU 1500, joined by a 1 Gbit/s path of the slide's RTT
//! (the slides give no bottleneck, nor other traffic: none is modelled); each sender's
//! qdisc holds 1000 packets (Linux 2.6 `ether_setup`, drivers/net/net_init.c:
//! `tx_queue_len = 1000`). The `[[aggregate]]` app keeps one connection per worker
//! across queries, so it is tcpmon with one worker: the request (64 B) goes when the
//! connection is up (`first_query` after the handshake: tcpmon connects, then asks), the
//! SFI writes 1 MB (2^20 B) at once, the next request leaves 50 ms after the last byte
//! arrived (`think`). The request is the app's own packet on the reverse path, not a
//! segment of the connection: its timing is the same (one way), but it carries no ACK, and
//! the receiver's "pingpong" (interactive) delayed-ACK mode, which Linux enters when the
//! receiver also sends data, is not modelled. Hosts of 2004: the `"2.6"` era profile
//! (docs/linux-eras.md: RFC 3390's 3-segment initial window, cwnd +1 per ACK, delayed
//! ACKs with the quick-ack count of `tcp_incr_quickack`, the receive window opened from
//! 4 MSS by `tcp_grow_window`, no autotuning as in 2.6.6), Reno (2.6.6's default; BIC
//! became the default in 2.6.8). Restart after idle (RFC 2861, `tcp_cwnd_restart`) is on,
//! as 2.6.9 ran it unconditionally (`tcp_event_data_sent`): it acts only when the sender
//! was idle longer than its RTO; the sender's idle time per cycle is one RTT plus the
//! 50 ms wait (70 ms and 200 ms here), its RTO at least srtt + 200 ms (`TCP_RTO_MIN`), so it
//! is not expected to fire; the run counts it (`cwnd_restarts`).
//! - untuned: the profile's buffers (`tcp_rmem[1]` 87,380 B, a 64 KB window;
//!   `tcp_wmem[2]` 128 KiB).
//! - tuned ("TCP stack tuned"): socket buffers of the path's bandwidth-delay product at
//!   1 Gbit/s (2.5 MB at 20 ms, 18.75 MB at 150 ms), the rule of the tuning guides slide 51
//!   cites (PSC "Enabling High Performance Data Transfers": the buffer at least the BDP)
//!   and the seed's own practice (slide 42: 22 MB at 177 ms = 1 Gbit/s × 177 ms). Linux 2.6
//!   doubles a `setsockopt(SO_RCVBUF/SO_SNDBUF)` value (net/core/sock.c
//!   `sock_setsockopt`: `sk->sk_rcvbuf = val * 2`) and offers 3/4 of the receive buffer as
//!   window (`tcp_adv_win_scale` 2, `tcp_win_from_space`): the window is 1.5 × the BDP
//!   (docs/references.md §13).
//!
//! **Readings, fixed before the run** (the app's per-query record: when each request left,
//! how long its response took, the SFI's cwnd, ssthresh and smoothed RTT when it ended):
//! - "1st event takes N rtt": the first query's time (request sent → last byte of the
//!   response received) in RTTs of the path, ± 0.5 (a count of whole round trips). The
//!   slide's "or 380 ms" / "or 1.67 s" is the same number in ms (19 × 20 = 380; 1.67 s /
//!   150 ms = 11.1): judged once, in RTTs.
//! - "Response takes 2 rtt after T s": two numbers. The time: the request time of the first
//!   query from which every later response takes less than 2.5 RTT (2 as a whole count),
//!   ± (0.05 s, the rounding of "1.5s" / "2.5s", + half the seed's own cycle, 1/(2 × rate):
//!   the event exists once per request). The response time: the median of those later
//!   responses, in RTTs, 2 ± 0.5.
//! - "Rate N/s (with 50ms wait)": requests per second over that same steady part (1 / the
//!   mean interval between requests), "10" ± 0.5, "2.2" ± 0.05 (the printed digits).
//! - "Transfer achievable throughput grows to 800 Mbit/s" (and "from 250 to 800"): the rate
//!   the congestion window allows, cwnd × MSS × 8 / smoothed RTT ("achievable", not
//!   achieved: the program moves 1 MB per cycle, ~80 Mbit/s at 10/s), at the end of the
//!   first response ("from") and of the last ("grows to"), each read off a plot axis to
//!   its last significant digit (800 ± 50, 250 ± 25).
//! - "Congestion window in slow start to 1.8s then congestion avoidance": the first cwnd
//!   sample (every 10 ms) at which cwnd ≥ ssthresh, 1.8 s ± (0.05 s rounding + half an RTT,
//!   as a slow-start round ends at a round trip); never → the run's end.
//!
//! **Cause run.** The tuned first event at 20 ms (slide 48's 19 RTT is slide 47's untuned
//! count): the connection starts with the ssthresh the route cache keeps from an earlier
//! connection on the same route (`init_ssthresh = 45`, docs/references.md §13).
//! What-if rows, not judged: tuned through `tcp_rmem`/`tcp_wmem` with 2.6.7's receive
//! autotuning (`*_autotune`).
//!
//! The seed's own arithmetic is shown beside it: a response in 2 RTT and a 50 ms wait
//! repeat every 2 RTT + 50 ms, 11.1/s at 20 ms and 2.86/s at 150 ms, against the
//! slides' 10/s and 2.2/s.

use super::study::{Study, V};
use super::{fmt_num, Experiment, Options, Report, Tol};
use crate::app::reqresp::{AggregateResult, AggregateSpec, QueryRecord};
use crate::engine::*;
use crate::results::CwndSample;
use crate::scenario::*;
use crate::tcp::era::Era;

pub const EXPERIMENT: Experiment = Experiment {
    name: "tcpmon",
    seed_doc: "003 slides 46–49",
    about: "tcpmon request-response (64 B request, 1 MB response, 50 ms wait) on one 2.6-era TCP connection, Manchester–CERN 20 ms and Alberta–CERN 150 ms",
    run,
};

const RATE: u64 = 1_000_000_000;
const RESPONSE: u64 = 1 << 20;
const REQUEST: u32 = 64;
const WAIT: SimTime = 50 * MS;
/// Linux 2.6 `ether_setup`'s `tx_queue_len`.
const TXQ: u64 = 1000;

/// One configuration: the path's RTT, the socket buffer asked with `setsockopt` (`None`:
/// the profile's defaults), the run's length.
#[derive(Clone, Copy, Debug)]
struct Case {
    rtt: SimTime,
    sockbuf: Option<u64>,
    dur: SimTime,
    /// Tuned by the `tcp_rmem`/`tcp_wmem` maxima on a 2.6.7+ kernel with receive
    /// autotuning, instead of `setsockopt` (which locks the buffer, `SOCK_RCVBUF_LOCK`).
    autotune: bool,
    /// ssthresh at the start (the route cache's `RTAX_SSTHRESH`), segments.
    cached_ssthresh: Option<u32>,
}

/// What one run gives.
#[derive(Clone, Debug)]
struct Out {
    queries: Vec<QueryRecord>,
    cwnd: Vec<CwndSample>,
    rtt_s: f64,
    dur_s: f64,
    timeouts: u64,
}

/// Linux 2.6's window for a `setsockopt` buffer of `b` bytes: the kernel keeps 2·b
/// (`sock_setsockopt`) and offers `tcp_win_from_space` of it, space − space/4
/// (`tcp_adv_win_scale` 2).
pub fn linux26_window(b: u64) -> u64 {
    let space = 2 * b;
    space - (space >> 2)
}

fn simulate(o: &Options, c: &Case, seed: u64) -> Out {
    let mut sc = Scenario::new(
        "tcpmon",
        super::common::one_hop(RATE, c.rtt / 2, QueueSpec::droptail(Limit::Packets(TXQ))),
        c.dur,
    );
    sc.seed = seed;
    let mut t = super::common::tcp("reno");
    match c.sockbuf {
        Some(b) if c.autotune => {
            // tcp_rmem[2] = tcp_wmem[2] = 2·b: the same largest window, reached by
            // `tcp_rcv_space_adjust` from 2.6's default 64 KB.
            t.rcvbuf = linux26_window(b);
            t.sndbuf = 2 * b;
            t.rcv_autotune = true;
            crate::tcp::config::set_era(
                &mut t,
                Era::Linux2_6,
                &["sndbuf", "rcvbuf", "rcv_autotune"],
            );
        }
        Some(b) => {
            t.rcvbuf = linux26_window(b);
            t.sndbuf = 2 * b;
            crate::tcp::config::set_era(&mut t, Era::Linux2_6, &["sndbuf", "rcvbuf"]);
        }
        None => crate::tcp::config::set_era(&mut t, Era::Linux2_6, &[]),
    }
    if let Some(w) = c.cached_ssthresh {
        t.init_ssthresh = Some(w);
    }
    sc.apps.aggregates.push(AggregateSpec {
        aggregator: "dst".into(),
        workers: vec!["src".into()],
        response_bytes: RESPONSE,
        queries: 1_000_000,
        start: 0,
        // The handshake takes one RTT; the request leaves once the EFD's side is up.
        first_query: c.rtt + MS,
        think: WAIT,
        request_size: REQUEST,
        tcp: o.tcp(t),
    });
    sc.output.cwnd_interval = Some(10 * MS);
    o.prepare(&mut sc);
    let mut r = crate::world::run(&sc).expect("a valid scenario");
    let a: AggregateResult = r
        .apps
        .take::<AggregateResult>()
        .into_iter()
        .next()
        .expect("one aggregate");
    Out {
        queries: a.per_query,
        cwnd: std::mem::take(&mut r.series.cwnd),
        rtt_s: secs(c.rtt),
        dur_s: secs(c.dur),
        timeouts: a.timeouts,
    }
}

impl Out {
    /// Query i's time in RTTs.
    fn rtts(&self, i: usize) -> f64 {
        self.queries
            .get(i)
            .map_or(f64::NAN, |q| q.qct_s / self.rtt_s)
    }

    /// The first query from which every later response takes less than 2.5 RTT.
    fn steady_from(&self) -> Option<usize> {
        let n = self.queries.len();
        let mut from = n;
        while from > 0 && self.queries[from - 1].qct_s < 2.5 * self.rtt_s {
            from -= 1;
        }
        (from + 1 < n).then_some(from)
    }

    /// When that query's request left, s (the run's end if never).
    fn steady_at_s(&self) -> f64 {
        self.steady_from()
            .map_or(self.dur_s, |i| self.queries[i].issued_s)
    }

    /// The median response time from then on, in RTTs.
    fn steady_rtts(&self) -> f64 {
        match self.steady_from() {
            Some(i) => {
                let xs: Vec<f64> = self.queries[i..]
                    .iter()
                    .map(|q| q.qct_s / self.rtt_s)
                    .collect();
                super::common::median(&xs)
            }
            None => f64::NAN,
        }
    }

    /// Requests per second from then on.
    fn steady_rate(&self) -> f64 {
        match self.steady_from() {
            Some(i) => {
                let q = &self.queries[i..];
                (q.len() - 1) as f64 / (q[q.len() - 1].issued_s - q[0].issued_s)
            }
            None => 0.0,
        }
    }

    /// cwnd × MSS × 8 / srtt at the end of query i, Mbit/s.
    fn achievable_mbps(&self, i: usize) -> f64 {
        self.queries.get(i).map_or(0.0, |q| {
            q.cwnd as f64 * q.mss as f64 * 8.0 / q.srtt_s.max(1e-9) / 1e6
        })
    }

    fn last_mbps(&self) -> f64 {
        self.achievable_mbps(self.queries.len().saturating_sub(1))
    }

    /// The first cwnd sample out of slow start, s (the run's end if never).
    fn slow_start_end_s(&self) -> f64 {
        self.cwnd
            .iter()
            .find(|s| s.cwnd >= s.ssthresh)
            .map_or(self.dur_s, |s| s.t)
    }

    fn restarts(&self) -> f64 {
        self.queries.last().map_or(0.0, |q| q.cwnd_restarts as f64)
    }
}

/// The untuned test's window in segments (65,535 B / 1448 B): what its cwnd could use.
const CACHED_SSTHRESH: u32 = 45;
const CACHED_CFG: &str = "the tuned connection starts with ssthresh 45 segments from the route cache (Linux 2.6.9 tcp_input.c: `tcp_update_metrics` stores max(cwnd/2, ssthresh) of a closed connection in the route's RTAX_SSTHRESH, `tcp_init_metrics` gives it to the next connection on that route): the untuned test of slide 47 on the same path, if it ran before, its 64 KB window holding it at ~45 segments (65,535 / 1448); set as `init_ssthresh = 45`";
const FIRST_WHY: &str = "seed 003 slides 47–49 ('1st event takes 19 rtt or 380 ms', '11 rtt or 1.67 s'): the first query's time from its request to the last byte of its 1 MB response, in round trips of the path; ± 0.5, a count of whole round trips (the ms figure is the same number: 19 × 20 ms = 380 ms, 1.67 s / 150 ms = 11.1)";
const STEADY_AT_WHY: &str = "seed 003 slides 48–49 ('Response takes 2 rtt after 1.5s', 'Response in 2 rtt after 2.5s'): the request time of the first query from which every response takes less than 2.5 RTT; ± 0.05 s (the printed digit) + half the seed's own request interval (1/(2 × 10/s), 1/(2 × 2.2/s): the event exists once per request)";
const STEADY_RTT_WHY: &str = "seed 003 slides 48–49 ('2 rtt'): the median response time from then on, in round trips; ± 0.5, a count of whole round trips";
const RATE_WHY: &str = "seed 003 slides 48–49 ('Rate 10/s (with 50ms wait)', 'Rate 2.2/s'): requests per second over the steady part (1 / the mean interval between requests); ± half the last printed digit";
const TPUT_WHY: &str = "seed 003 slides 48–49 ('Transfer achievable throughput grows to 800 Mbit/s', 'grows slowly from 250 to 800 Mbit/s'): read as the rate the congestion window allows, cwnd × MSS × 8 / smoothed RTT ('achievable', not achieved: 1 MB per cycle is ~80 Mbit/s at 10/s), at the end of the first response ('from') and of the last ('to'); ± half the last significant digit of a value read off a plot axis (800 ± 50, 250 ± 25)";
const SS_WHY: &str = "seed 003 slide 49 ('Congestion window in slow start to 1.8s then congestion avoidance'): the first cwnd sample (every 10 ms) with cwnd ≥ ssthresh; ± 0.05 s (the printed digit) + half an RTT (slow start ends at a round); never → the run's end";

/// A seed number as the table in `run` declares it: variant, metric, seed, ± tolerance,
/// reason, reading.
type SeedNumber = (V, &'static str, f64, f64, &'static str, fn(&Out) -> f64);

fn run(o: &Options) -> Report {
    let mut s: Study<Case, Out> = Study::new("tcpmon", o);
    let bdp = |rtt: SimTime| (RATE as f64 / 8.0 * secs(rtt)) as u64;
    let (m_rtt, a_rtt) = (20 * MS, 150 * MS);
    let m_dur = if o.quick { 3 * SEC } else { 5 * SEC };
    let a_dur = if o.quick { 5 * SEC } else { 10 * SEC };
    // A path's case: the socket tuned to its BDP (or left at the default), autotuning.
    let case = |rtt, dur, tuned: bool, autotune| Case {
        rtt,
        sockbuf: tuned.then(|| bdp(rtt)),
        dur,
        autotune,
        cached_ssthresh: None,
    };
    let untuned = s.variant("manc_cern_untuned", case(m_rtt, m_dur, false, false), 1, 1);
    let manc_case = case(m_rtt, m_dur, true, false);
    let manc = s.variant("manc_cern_tuned", manc_case, 1, 1);
    let alb = s.variant("alberta_cern_tuned", case(a_rtt, a_dur, true, false), 1, 1);
    let manc_at = s.variant("manc_cern_autotune", case(m_rtt, m_dur, true, true), 1, 1);
    let alb_at = s.variant(
        "alberta_cern_autotune",
        case(a_rtt, a_dur, true, true),
        1,
        1,
    );
    s.seed(
        untuned,
        "first_event_rtt",
        19.0,
        Tol::Abs(0.5),
        FIRST_WHY,
        |o: &Out| o.rtts(0),
    );
    let manc_first = s.seed(
        manc,
        "first_event_rtt",
        19.0,
        Tol::Abs(0.5),
        FIRST_WHY,
        |o: &Out| o.rtts(0),
    );
    let cached = s.variant(
        "manc_cern_tuned_cached_ssthresh",
        Case {
            cached_ssthresh: Some(CACHED_SSTHRESH),
            ..manc_case
        },
        1,
        1,
    );
    s.cause(manc_first, cached, CACHED_CFG);
    // The other seed numbers: (variant, metric, seed, ± tolerance, reason, reading).
    let numbers: [SeedNumber; 11] = [
        (
            manc,
            "two_rtt_after_s",
            1.5,
            0.05 + 0.5 / 10.0,
            STEADY_AT_WHY,
            |o| o.steady_at_s(),
        ),
        (manc, "steady_response_rtt", 2.0, 0.5, STEADY_RTT_WHY, |o| {
            o.steady_rtts()
        }),
        (manc, "rate_per_s", 10.0, 0.5, RATE_WHY, |o| o.steady_rate()),
        (manc, "achievable_end_mbps", 800.0, 50.0, TPUT_WHY, |o| {
            o.last_mbps()
        }),
        (alb, "first_event_rtt", 11.0, 0.5, FIRST_WHY, |o| o.rtts(0)),
        (alb, "slow_start_end_s", 1.8, 0.05 + 0.075, SS_WHY, |o| {
            o.slow_start_end_s()
        }),
        (
            alb,
            "two_rtt_after_s",
            2.5,
            0.05 + 0.5 / 2.2,
            STEADY_AT_WHY,
            |o| o.steady_at_s(),
        ),
        (alb, "steady_response_rtt", 2.0, 0.5, STEADY_RTT_WHY, |o| {
            o.steady_rtts()
        }),
        (alb, "rate_per_s", 2.2, 0.05, RATE_WHY, |o| o.steady_rate()),
        (alb, "achievable_first_mbps", 250.0, 25.0, TPUT_WHY, |o| {
            o.achievable_mbps(0)
        }),
        (alb, "achievable_end_mbps", 800.0, 50.0, TPUT_WHY, |o| {
            o.last_mbps()
        }),
    ];
    for (v, metric, seed, tol, why, get) in numbers {
        s.seed(v, metric, seed, Tol::Abs(tol), why, get);
    }
    let mut d = s.run(|c, seed| simulate(o, c, seed));
    for v in [untuned, manc, alb, cached, manc_at, alb_at] {
        let name = d.name(v).to_string();
        let r = d.first(v).clone();
        d.row(&name, "queries", r.queries.len() as f64);
        d.row(&name, "first_event_ms", r.rtts(0) * r.rtt_s * 1e3);
        d.row(&name, "second_event_rtt", r.rtts(1));
        if r.steady_from().is_some() {
            d.row(&name, "two_rtt_after_s", r.steady_at_s());
            d.row(&name, "steady_response_rtt", r.steady_rtts());
            d.row(&name, "rate_per_s", r.steady_rate());
        }
        d.row(&name, "achievable_end_mbps", r.last_mbps());
        d.row(&name, "cwnd_restarts", r.restarts());
        d.row(&name, "timeouts", r.timeouts as f64);
        let per: Vec<String> = r
            .queries
            .iter()
            .take(12)
            .map(|q| {
                format!(
                    "{:.3}s:{:.2}rtt/cw{}",
                    q.issued_s,
                    q.qct_s / r.rtt_s,
                    q.cwnd
                )
            })
            .collect();
        d.note(format!(
            "{name}, each query (request time: response time in RTTs / cwnd at its end): {}",
            per.join(" ")
        ));
    }
    // The seed's own arithmetic: a response of 2 RTT and a 50 ms wait per request.
    for (name, rtt_s, seed_rate) in [("manc_cern", 0.02, 10.0), ("alberta_cern", 0.15, 2.2)] {
        let own = 1.0 / (2.0 * rtt_s + secs(WAIT));
        d.row(&format!("{name}_seed_arithmetic"), "rate_per_s", own);
        d.note(format!(
            "{name}: the slide's own numbers, a 2-RTT response and the 50 ms wait, repeat every {} ms, {}/s, against its '{}/s' ({:+.0}%)",
            fmt_num((2.0 * rtt_s + secs(WAIT)) * 1e3),
            fmt_num(own),
            fmt_num(seed_rate),
            (seed_rate / own - 1.0) * 100.0
        ));
    }
    d.note(format!(
        "the path: two hosts on 1 Gbit/s Ethernet, MTU 1500, a 1 Gbit/s path of the slide's RTT, no other traffic, each sender's qdisc {TXQ} packets; one Reno connection on the 2.6 profile; {} B response, {REQUEST} B request, {} ms wait; runs of {} s (20 ms) and {} s (150 ms)",
        RESPONSE,
        WAIT / MS,
        secs(m_dur),
        secs(a_dur)
    ));
    d.note("autotune rows (what-ifs, not judged): tuned through tcp_rmem/tcp_wmem on a 2.6.7+ kernel, whose receive autotuning (`tcp_rcv_space_adjust`) starts the window at 64 KB");
    // What the runs show about the misses (measured values, not typed).
    let (m, a) = (d.first(manc).clone(), d.first(alb).clone());
    let one_flight = |r: &Out| {
        let ser = RESPONSE as f64 / crate::tcp::sender::payload_mss(1500) as f64
            * super::common::wire_bytes(1500) as f64
            * 8.0
            / RATE as f64;
        (r.rtt_s + ser) / r.rtt_s
    };
    d.note(format!(
        "response time: once cwnd holds the whole 1 MB ({} segments), a response is one flight, the request's half RTT, 1 MB at 1 Gbit/s and the last segment's half RTT: {} RTT at 20 ms, {} at 150 ms (measured {} and {}); the seed's rates with its 50 ms wait imply {} and {} RTT per response",
        RESPONSE.div_ceil(crate::tcp::sender::payload_mss(1500) as u64),
        fmt_num(one_flight(&m)),
        fmt_num(one_flight(&a)),
        fmt_num(m.steady_rtts()),
        fmt_num(a.steady_rtts()),
        fmt_num((1.0 / 10.0 - secs(WAIT)) / m.rtt_s),
        fmt_num((1.0 / 2.2 - secs(WAIT)) / a.rtt_s),
    ));
    let cw = |r: &Out| r.queries.last().map_or(0, |q| q.cwnd);
    d.note(format!(
        "cwnd stops at {} and {} segments, about twice a response (Linux 6.6's `tcp_is_cwnd_limited` lets slow start grow to twice the largest flight; 2.6.9 grew cwnd only on ACKs that found it full, which would stop it near one response): cwnd/srtt is {} Mbit/s at 20 ms (srtt {} ms: the 1 MB burst queues at the sender's NIC) and {} at 150 ms; 800 Mbit/s at 150 ms would take a cwnd of {} segments, {}× what one request moves",
        cw(&m),
        cw(&a),
        fmt_num(m.last_mbps()),
        fmt_num(m.queries.last().map_or(0.0, |q| q.srtt_s) * 1e3),
        fmt_num(a.last_mbps()),
        (800e6 * a.rtt_s / 8.0 / crate::tcp::sender::payload_mss(1500) as f64).round(),
        fmt_num(800e6 * a.rtt_s / 8.0 / RESPONSE as f64),
    ));
    d.note(format!(
        "slow start: the path has no other traffic and the largest burst ({} segments) fits the sender's {TXQ}-packet qdisc, so nothing is lost and ssthresh is never set; an end of slow start at 1.8 s needs a loss there or an ssthresh from the route cache",
        cw(&a).min(RESPONSE.div_ceil(1448) as u32),
    ));
    d.finish()
}
