//! `mbecn-star` — seed 002's test: two clients on Gigabit Ethernet to a router whose port
//! towards the server is 100 Mbit/s Ethernet (ethtool, not a tc shaper: footnote 4), ocbr
//! sending 1000-byte packets over Ouroboros flows with MB-ECN (the prototype's 0.18.0
//! default), the server printing every 100 ms. One flow alone ("congestion controlled to
//! about ~80Mb/s": 998 packets per 101 ms, 79.05 Mbit/s), then a second joins ("both flows
//! go quite quickly (at most 100ms) to a fair state of about 42 Mb/s").
//!
//! The lab is as the seed describes it; what it does not say is chosen and stated: 50 µs
//! per link, the router's queue is the outgoing flow's ring (1024 packets,
//! `SHM_RBUFF_SIZE`, marked from 16), nothing below it.
//!
//! **Seed configuration** (`line_rate`): the seed's words, "congestion controlled", read as
//! ocbr flooding (`-f`: the rate is MB-ECN's), and the senders' IPCPs handing packets to
//! their NICs at the NIC's line rate (the model's default: no IPCP cost). A window's
//! allowance then leaves in one burst, and a burst of n packets arriving at 1 Gbit/s
//! builds a queue of n·(1 − 100/1000) at the 100 Mbit/s port, marked from 16.
//!
//! **Cause run** (`client_80mbit_kernel47`), decided from sources before it was run: the
//! test as its author describes it, on the prototype's path. The ocbr clients were not
//! flooding: the seed's author, on the same four-node experiment a week later
//! (ouroboros.rocks blog, 2020-12-19, "Exploring Ouroboros with wireshark"): "All traffic
//! is generated with our constant bit rate ocbr tool trying to send about 80 Mbit/s of
//! application-level throughput over the unicast layer"; so each client at `ocbr -r 80M`
//! (`flood = false`, `rate = "80Mbit"`), the IPCP at line rate (same post, footnote 3: "The
//! prototype is able to handle Gigabit Ethernet"). And MB-ECN's marker counts the packets
//! in the IPCP's ring of the outgoing N-1 flow, not those its eth IPCP has already handed
//! to the kernel: `kernel_queue = 47` (`KERNEL`, from 0.18.0's `eth.c` and Linux's
//! defaults).
//!
//! Rows, never counted: `client_80mbit` (the clients without the kernel's share),
//! `client_90mbit_kernel47` (the same post's "the requested bandwidth from the two ocbr
//! clients (180Mbit)", read as 2 × 90), `line_rate_kernel47` (flooding clients on the same
//! path), senders whose IPCP emits at 2× and 1.5× the bottleneck's packet rate
//! (`packet_time`), at 9,990 packets/s (`sender_9990pps`, the rate of the seed's own
//! one-flow lines: no source), and without congestion avoidance (`nop`, whose rate is the
//! link's framed rate: closed form).

use super::common::MeanCi;
use super::study::{Done, Study, N, V};
use super::{fmt_num, Against, Experiment, Options, Report, Tol};
use crate::app::ocbr::OcbrResult;
use crate::engine::*;
use crate::report::svg::{self, Line, Plot};
use crate::results::RunResult;
use crate::scenario::parse_scenario;

mod text;

pub const EXPERIMENT: Experiment = Experiment {
    name: "mbecn-star",
    seed_doc: "002 (MB-ECN in action)",
    about: "MB-ECN flows through a 100 Mbit/s port: one alone, then two (ocbr)",
    run,
};

/// Seed 002's star with access links of `c1` and `c2` one-way delays, and the router's
/// port towards the server given by `rs` (its queue keys), then `traffic` (TOML tables).
pub(super) fn star(name: &str, c1: &str, c2: &str, rs: &str, traffic: &str) -> String {
    format!(
        r#"
[sim]
name = "{name}"
duration = "4s"

[topology]
kind = "graph"
hosts = ["c1", "c2", "srv"]
switches = ["r"]
links = [
  {{ name = "c1r", from = "c1", to = "r", rate = "1Gbps", delay = "{c1}", limit = "1024pkts" }},
  {{ name = "c2r", from = "c2", to = "r", rate = "1Gbps", delay = "{c2}", limit = "1024pkts" }},
  {{ name = "rs", from = "r", to = "srv", rate = "100Mbps", delay = "50us", {rs} }},
]
{traffic}"#
    )
}

/// Two ocbr floods, the second joining (its start is set per run).
pub(super) const TWO_FLOODS: &str = r#"
[[ocbr]]
from = "c1"
to = "srv"
flood = true
interval = "100ms"

[[ocbr]]
from = "c2"
to = "srv"
flood = true
interval = "100ms"
start = "2s"
"#;

/// The router's port: the outgoing flow's ring, 1024 packets.
pub(super) const RING: &str = "limit = \"1024pkts\"";

/// Bytes of a 1000-byte SDU on the wire: + 15 B PCI + 18 B Ethernet IPCP header + 4 B FCS
/// + 20 B preamble and gap (`flow/endpoint.rs`).
pub(super) const WIRE: f64 = 1057.0;
pub(super) const C: f64 = 100e6;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    /// Flooding clients, senders that hand packets to the NIC at its line rate: the seed
    /// configuration.
    LineRate,
    /// Clients at a constant `-r` of this many Mbit/s (not flooding), senders at line rate,
    /// with this many frames in each port's kernel below the IPCP's ring.
    Client(u64, u64),
    /// Flooding clients, senders at line rate, this many frames in each port's kernel.
    Kernel(u64),
    /// The IPCP's time per packet makes a sender emit at `k` × the bottleneck's packet
    /// rate.
    Times(f64),
    /// Senders that cannot emit more than this many packets per second.
    Cpu(f64),
    /// No congestion avoidance.
    Nop,
}

/// The seed's one flow alone receives 998–1001 packets per interval, as steady as a rate
/// limit (±0.15%), and the server's intervals hold 100 ms of arrivals (it divides by its
/// 101 ms): a sender of 999 packets per 100 ms. The `sender_9990pps` rows run senders
/// limited to it.
const SEED_PPS: f64 = 9990.0;

/// The cause run's client rate (Mbit/s of SDU): "trying to send about 80 Mbit/s".
const CLIENT_MBIT: u64 = 80;

/// Frames an eth IPCP's raw socket takes into the kernel before the IPCP's ring starts to
/// hold them (0.18.0 `eth.c`: a non-blocking `AF_PACKET` socket, `select()` for writing
/// before each `sendto()`). A packet socket is writable while the memory of its frames in
/// the kernel is below half its send buffer (`sock_writeable`): 212,992 / 2 bytes by
/// default (`net.core.wmem_default`); a 1033-byte frame is one linear skb
/// (`packet_alloc_skb`: "Under a page? Don't bother with paged skb") in a 2048-byte slab,
/// truesize 1728 + 256 + 320 = 2,304 bytes, so the 47th frame is the last it takes.
const KERNEL: u64 = 47;

impl Variant {
    fn label(self) -> String {
        match self {
            Variant::LineRate => "line_rate".into(),
            Variant::Client(m, 0) => format!("client_{m}mbit"),
            Variant::Client(m, k) => format!("client_{m}mbit_kernel{k}"),
            Variant::Kernel(k) => format!("line_rate_kernel{k}"),
            Variant::Times(k) => format!("sender_{}x", fmt_num(k)),
            Variant::Cpu(pps) => format!("sender_{}pps", pps as u64),
            Variant::Nop => "nop".into(),
        }
    }

    /// The keys this variant sets on the seed configuration.
    fn sets(self) -> Vec<(String, String)> {
        match self {
            Variant::LineRate => vec![],
            Variant::Client(m, k) => (0..2)
                .flat_map(|i| {
                    [
                        (format!("ocbr.{i}.flood"), "false".to_string()),
                        (format!("ocbr.{i}.rate"), format!("{m}Mbit")),
                        (format!("ocbr.{i}.kernel_queue"), k.to_string()),
                    ]
                })
                .collect(),
            Variant::Kernel(k) => (0..2)
                .map(|i| (format!("ocbr.{i}.kernel_queue"), k.to_string()))
                .collect(),
            Variant::Times(k) => sender_at(k),
            Variant::Cpu(pps) => {
                let mut sets = packet_time(1.0 / pps);
                // Sampled for the window lengths (sampling changes nothing).
                sets.extend((0..2).map(|i| (format!("ocbr.{i}.stats_every"), "100ms".into())));
                sets
            }
            Variant::Nop => (0..2)
                .map(|i| (format!("ocbr.{i}.ca"), "nop".to_string()))
                .collect(),
        }
    }
}

const CLIENT_CAUSE: &str = "the test as its author describes it on the prototype's path: ocbr.{0,1}.flood = false, ocbr.{0,1}.rate = \"80Mbit\" (ocbr -r 80M: each client writes 1000 bytes every 100 µs; the seed's author on the same experiment, ouroboros.rocks blog, 2020-12-19: the ocbr clients were 'trying to send about 80 Mbit/s of application-level throughput'), the senders' IPCPs at line rate ('the prototype is able to handle Gigabit Ethernet', ibid.), and ocbr.{0,1}.kernel_queue = 47: the frames an eth IPCP's raw socket takes into the kernel below the ring that MB-ECN marks from (0.18.0 eth.c: select() for writing before each sendto(); a packet socket is writable below half its 212,992-byte send buffer, a 1033-byte frame's skb is 2,304 bytes)";
const MB2: &str = "docs/references.md MB-2: the blog's ≈79 Mbit/s, ±5% (its lines move 79.0-79.2 Mbit/s; '~80Mb/s' in its text)";
const MB3: &str = "docs/references.md MB-3: both flows ≈42 Mbit/s, ±3 Mbit/s (the seed's lines after the join read 42-44)";
const SUM: &str = "the seed's two flows together (its lines after the join: 44 and 42.5); docs/references.md MB-3 reads each flow's ≈42 Mbit/s to ±3 Mbit/s, so ±3 for each of the two";
const CONV: &str = "the seed: 'both flows go quite quickly (at most 100ms) to a fair state'; converged = both flows within 3 Mbit/s of their mean for four intervals (the precision of its lines); a run that never converges has no value, and a mean with one has none";

/// What the seed's numbers read of a run whose flow 2 joins at `j` s and which ends at
/// `e` s.
#[derive(Clone, Copy)]
struct Read {
    j: f64,
    e: f64,
}

impl Read {
    /// Flow 1 alone: Mbit/s over the second half of the time before the join.
    fn alone(self, r: &RunResult) -> f64 {
        mean_between(&r.app::<OcbrResult>()[0], self.j / 2.0, self.j)
    }

    /// Flow 1 alone: packets/s over the same time.
    fn pps(self, r: &RunResult) -> f64 {
        mean_pps_between(&r.app::<OcbrResult>()[0], self.j / 2.0, self.j)
    }

    /// Flow 1's Mbit/s from 0.2 s after the join to the end.
    fn f1(self, r: &RunResult) -> f64 {
        mean_between(&r.app::<OcbrResult>()[0], self.j + 0.2, self.e)
    }

    /// Flow 2's Mbit/s from 0.2 s after the join to the end.
    fn f2(self, r: &RunResult) -> f64 {
        mean_between(&r.app::<OcbrResult>()[1], self.j + 0.2, self.e)
    }
}

/// The declared variants: the seed configuration, its cause run, the rows (one run each),
/// the cause run's alternatives and the senders at the seed's packet rate.
struct Vars {
    line: V,
    client: V,
    cause: Variant,
    rows: Vec<V>,
    alts: Vec<V>,
    cpu: V,
}

fn run(o: &Options) -> Report {
    let (join, end) = if o.quick {
        (SEC, 1600 * MS)
    } else {
        (2 * SEC, 4 * SEC)
    };
    let (j, e) = (secs(join), secs(end));
    // The seed configuration and its cause run spread with the seed (host clocks, NIC
    // jitter): several runs, more where a reading is open; the rows one run each.
    let (n, cap) = if o.quick { (3, 12) } else { (5, 20) };
    let mut s: Study<Variant, RunResult> = Study::new("mbecn-star", o);
    let vars = declare(&mut s, n, cap);
    let rd = Read { j, e };
    let numbers = seed_numbers(&mut s, &vars, rd);
    let mut d = s.run(|&v, seed| run_star(o, seed, join, end, &v.sets()));
    let framed = C * 1000.0 / WIRE / 1e6;
    d.row("closed_form", "framed_payload_rate_mbps", framed);
    let lr = seed_configuration(&mut d, vars.line, &numbers, rd, framed);
    one_run_rows(&mut d, &vars.rows, rd, framed);
    // The senders limited to the seed's one-flow packet rate, over their runs.
    let cpu_runs: Vec<RunResult> = d.runs(vars.cpu).to_vec();
    cpu_rows(&mut d, &cpu_runs, j, e);
    let cl = cause_rows(&mut d, &vars, rd, framed);
    let cause = vars.cause;
    d.text.push_str(&text::beside_the_seed(
        [&lr, &cl, &cpu_runs[0]],
        join,
        &cause.label(),
    ));
    let firsts = firsts(&d, &vars, &cpu_runs);
    explain(&mut d, &firsts, &cl, framed, j);
    per_run_note(&mut d, &vars, rd);
    plot(&mut d, &firsts, j);
    d.note(format!(
        "links 50 µs each; router queue = the outgoing flow's ring, 1024 packets (SHM_RBUFF_SIZE), marked by MB-ECN from 16; flow 2 joins at {} s, runs end at {} s; rates are the server's lines (100 ms intervals); line_rate's and {}'s seed-number rows are means over their runs (seeds --seed, --seed + 1, …), their other rows and the notes of their first run",
        fmt_num(j),
        fmt_num(e),
        cause.label()
    ));
    d.finish()
}

/// Every variant: the seed configuration and its cause run (several runs each), the rows
/// and alternatives (one run each), the senders at the seed's packet rate.
fn declare(s: &mut Study<Variant, RunResult>, n: usize, cap: usize) -> Vars {
    let line = s.variant("line_rate", Variant::LineRate, n, cap);
    let cause = Variant::Client(CLIENT_MBIT, KERNEL);
    let client = s.variant(&cause.label(), cause, n, cap);
    let rows: Vec<V> = [Variant::Times(2.0), Variant::Times(1.5), Variant::Nop]
        .into_iter()
        .map(|v| s.variant(&v.label(), v, 1, 1))
        .collect();
    // The cause run less its kernel queue, with the other reading of the clients' rate,
    // and flooding clients with the kernel queue: one run each.
    let alts: Vec<V> = [
        Variant::Client(CLIENT_MBIT, 0),
        Variant::Client(90, KERNEL),
        Variant::Kernel(KERNEL),
    ]
    .into_iter()
    .map(|v| s.variant(&v.label(), v, 1, 1))
    .collect();
    let cpu = s.variant(
        &Variant::Cpu(SEED_PPS).label(),
        Variant::Cpu(SEED_PPS),
        n,
        n,
    );
    Vars {
        line,
        client,
        cause,
        rows,
        alts,
        cpu,
    }
}

/// The seed's numbers, in the seed configuration, each with the cause run.
fn seed_numbers(s: &mut Study<Variant, RunResult>, vars: &Vars, rd: Read) -> [N; 6] {
    let (line, client, j) = (vars.line, vars.client, rd.j);
    let alone = move |r: &RunResult| rd.alone(r);
    let pps = move |r: &RunResult| rd.pps(r);
    let f1 = move |r: &RunResult| rd.f1(r);
    let f2 = move |r: &RunResult| rd.f2(r);
    let conv = move |r: &RunResult| {
        convergence(&r.app::<OcbrResult>()[0], &r.app::<OcbrResult>()[1], j)
            .map_or(f64::NAN, |c| c * 1e3)
    };
    let numbers = [
        s.seed(line, "alone_mbps", 79.05, Tol::Rel(0.05), MB2, alone),
        s.seed(line, "alone_pps", 9880.0, Tol::Rel(0.05), MB2, pps),
        s.seed(line, "two_flows_flow1_mbps", 42.5, Tol::Abs(3.0), MB3, f1),
        s.seed(line, "two_flows_flow2_mbps", 42.5, Tol::Abs(3.0), MB3, f2),
        s.seed(
            line,
            "two_flows_sum_mbps",
            44.0 + 42.5,
            Tol::Abs(6.0),
            SUM,
            move |r| f1(r) + f2(r),
        ),
        s.seed(line, "convergence_ms", 100.0, Tol::AtMost, CONV, conv),
    ];
    for n in numbers {
        s.cause(n, client, CLIENT_CAUSE);
    }
    numbers
}

/// The seed configuration: its first run's port and windows, then its seed numbers.
/// Returns that first run.
fn seed_configuration(
    d: &mut Done<Variant, RunResult>,
    line: V,
    numbers: &[N; 6],
    rd: Read,
    framed: f64,
) -> RunResult {
    let lr = d.first(line).clone();
    port_rows(d, "line_rate", &lr);
    let w = lr.app::<OcbrResult>()[0].windows.unwrap_or_default();
    let ca = (w[1] + w[2] + w[3]).max(1) as f64;
    d.note(format!(
        "line_rate, the seed configuration (flooding clients, no IPCP cost): the sender hands each window's allowance to its NIC at 1 Gbit/s; a burst of n packets leaves n·(1 − 100/1000) queued at the 100 Mbit/s port, so every burst beyond 18 packets ends with marked packets, the last FLOW_UPDATE before the next window carries ECE > 0 and the window decreases: {:.0}% of flow 1's windows decreased, {} increased (first run); the link idles between bursts",
        100.0 * w[1] as f64 / ca,
        w[2]
    ));
    for &n in numbers {
        d.emit(n);
    }
    let both = d.mean(line, move |r| rd.f1(r) + rd.f2(r));
    model_sum(d, "line_rate", both, framed);
    lr
}

/// The rows: one run each.
fn one_run_rows(d: &mut Done<Variant, RunResult>, rows: &[V], rd: Read, framed: f64) {
    let j = rd.j;
    for &v in rows {
        let (var, res) = (*d.config(v), d.first(v).clone());
        let tag = var.label();
        d.row(&tag, "alone_mbps", rd.alone(&res));
        d.row(&tag, "alone_pps", rd.pps(&res));
        if var != Variant::Nop {
            d.row(&tag, "two_flows_flow1_mbps", rd.f1(&res));
            d.row(&tag, "two_flows_flow2_mbps", rd.f2(&res));
            if let Some(c) =
                convergence(&res.app::<OcbrResult>()[0], &res.app::<OcbrResult>()[1], j)
            {
                d.row(&tag, "convergence_ms", c * 1e3);
            }
        }
        port_rows(d, &tag, &res);
        if var == Variant::Nop {
            // Every full interval carries 100 ms of the link's packets.
            let pk: Vec<f64> = res.app::<OcbrResult>()[0]
                .intervals
                .iter()
                .filter(|i| i.end_s > 0.15 && i.end_s < j)
                .map(|i| i.packets as f64 * 1000.0 * 8.0 / 0.1 / 1e6)
                .collect();
            let m = pk.iter().sum::<f64>() / pk.len().max(1) as f64;
            d.check_vs(
                "nop: one flooding flow's payload rate (packets per 100 ms interval)",
                Against::ClosedForm,
                m,
                framed,
                Tol::Rel(0.01),
                "the link carries 100 Mbit/s of 1057-byte frames of which 1000 bytes are SDU (15 B PCI, 18 B Ethernet IPCP header, 24 B FCS, preamble and gap); ±1%: one packet in 118 per interval",
            );
        }
        model_sum(d, &tag, MeanCi::one(rd.f1(&res) + rd.f2(&res)), framed);
    }
}

/// The cause run's own rows (its seed numbers are beside line_rate's), and the 90 Mbit/s
/// reading of the clients. Returns the cause run's first run.
fn cause_rows(d: &mut Done<Variant, RunResult>, vars: &Vars, rd: Read, framed: f64) -> RunResult {
    let (client, cause, j) = (vars.client, vars.cause, rd.j);
    let cl = d.first(client).clone();
    port_rows(d, &cause.label(), &cl);
    let both = d.mean(client, move |r| rd.f1(r) + rd.f2(r));
    model_sum(d, &cause.label(), both, framed);
    for &v in &vars.alts {
        let (tag, res) = (d.config(v).label(), d.first(v).clone());
        d.row(&tag, "alone_mbps", rd.alone(&res));
        d.row(&tag, "alone_pps", rd.pps(&res));
        d.row(&tag, "two_flows_flow1_mbps", rd.f1(&res));
        d.row(&tag, "two_flows_flow2_mbps", rd.f2(&res));
        if let Some(c) = convergence(&res.app::<OcbrResult>()[0], &res.app::<OcbrResult>()[1], j) {
            d.row(&tag, "convergence_ms", c * 1e3);
        }
        port_rows(d, &tag, &res);
        model_sum(d, &tag, MeanCi::one(rd.f1(&res) + rd.f2(&res)), framed);
    }
    cl
}

/// The first run of each variant, the senders at the seed's packet rate all of theirs.
fn firsts(
    d: &Done<Variant, RunResult>,
    vars: &Vars,
    cpu_runs: &[RunResult],
) -> Vec<(String, RunResult)> {
    let (line, client, rows, alts) = (vars.line, vars.client, &vars.rows, &vars.alts);
    let firsts: Vec<(String, RunResult)> = [line, client]
        .into_iter()
        .chain(rows.iter().copied())
        .chain(alts.iter().copied())
        .map(|v| (d.config(v).label(), d.first(v).clone()))
        .chain(
            cpu_runs
                .iter()
                .enumerate()
                .map(|(k, r)| (format!("sender_{}pps seed+{k}", SEED_PPS as u64), r.clone())),
        )
        .collect();
    firsts
}

/// The cause run after the join: each run's split and convergence.
fn per_run_note(d: &mut Done<Variant, RunResult>, vars: &Vars, rd: Read) {
    let (client, cause, j) = (vars.client, vars.cause, rd.j);
    let per_run: Vec<String> = d
        .runs(client)
        .iter()
        .map(|r| {
            let c = convergence(&r.app::<OcbrResult>()[0], &r.app::<OcbrResult>()[1], j)
                .map_or("never".to_string(), |c| format!("{:.0} ms", c * 1e3));
            format!("{}/{} Mbit/s, {c}", fmt_num(rd.f1(r)), fmt_num(rd.f2(r)))
        })
        .collect();
    d.note(format!(
        "{} after the join, flow 1/flow 2 and the convergence per run: {}. A fair state as the seed's claim is read here (both flows within 3 Mbit/s of their mean for four intervals) is reached in {} of {} runs; a mean share near the seed's 42.5 without it is not the seed's 'fair state of about 42 Mb/s'",
        cause.label(),
        per_run.join("; "),
        per_run.iter().filter(|x| !x.ends_with("never")).count(),
        per_run.len()
    ));
}

/// The router port's rows of one run, and flow 1's share of decreasing windows.
fn port_rows(r: &mut Report, tag: &str, res: &RunResult) {
    let rs = res.queues.iter().find(|q| q.name == "rs").expect("port rs");
    r.row(tag, "router_queue_max_pkts", rs.max_pkts as f64);
    r.row(tag, "router_drops", rs.drops as f64);
    if let Some(w) = res.app::<OcbrResult>()[0].windows {
        let ca = (w[1] + w[2] + w[3]).max(1) as f64;
        r.row(tag, "flow1_windows_decrease_share", w[1] as f64 / ca);
    }
}

/// Conservation (a model check: it fails only if the simulator miscounts): the flows
/// cannot carry more than the link.
fn model_sum(r: &mut Report, tag: &str, sum: MeanCi, framed: f64) {
    r.check_ci(
        format!("{tag}: both flows together"),
        Against::Model,
        sum,
        framed,
        Tol::AtMost,
        "the link's framed payload rate bounds the sum (the rates are the server's, which divides by its 101 ms: 1% below what arrived)",
    );
}

/// Run the star with flow 2 joining at `join`, until `end`, with `sets` on top (`o`
/// prepares the scenario).
pub(super) fn run_star(
    o: &Options,
    seed: u64,
    join: SimTime,
    end: SimTime,
    sets: &[(String, String)],
) -> RunResult {
    let mut all = vec![
        ("sim.duration".to_string(), fmt_secs(end)),
        ("ocbr.1.start".to_string(), fmt_secs(join)),
        ("sim.seed".to_string(), seed.to_string()),
    ];
    all.extend_from_slice(sets);
    let text = star("mbecn-star", "50us", "50us", RING, TWO_FLOODS);
    let mut sc = parse_scenario(&text, "mbecn-star", &all).expect("valid scenario");
    o.prepare(&mut sc);
    crate::world::run(&sc).expect("runs")
}

/// `ocbr.{0,1}.packet_time` for senders at `k` × the bottleneck's packet rate.
pub(super) fn sender_at(k: f64) -> Vec<(String, String)> {
    packet_time(WIRE * 8.0 / (k * C))
}

/// `ocbr.{0,1}.packet_time` of `secs` seconds per packet.
fn packet_time(secs: f64) -> Vec<(String, String)> {
    (0..2)
        .map(|i| {
            (
                format!("ocbr.{i}.packet_time"),
                format!("{:.3}us", secs * 1e6),
            )
        })
        .collect()
}

pub(super) fn fmt_secs(t: SimTime) -> String {
    format!("{}ms", t / MS)
}

/// Mean printed rate of the intervals that end in (a, b].
pub(super) fn mean_between(f: &OcbrResult, a: f64, b: f64) -> f64 {
    let v: Vec<f64> = f
        .intervals
        .iter()
        .filter(|i| i.end_s > a && i.end_s <= b)
        .map(|i| i.mbps)
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn mean_pps_between(f: &OcbrResult, a: f64, b: f64) -> f64 {
    let v: Vec<f64> = f
        .intervals
        .iter()
        .filter(|i| i.end_s > a && i.end_s <= b)
        .map(|i| i.packets as f64 / (i.us as f64 / 1e6))
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Seconds from the join until the first interval of the second flow whose rate, and the
/// first flow's interval ending nearest it, are both within 3 Mbit/s of their mean (the
/// seed's "fair state" to the precision its lines show), and stay so for the next three.
pub(super) fn convergence(f1: &OcbrResult, f2: &OcbrResult, join: f64) -> Option<f64> {
    let near = |t: f64| {
        f1.intervals
            .iter()
            .min_by(|a, b| (a.end_s - t).abs().total_cmp(&(b.end_s - t).abs()))
            .map(|i| i.mbps)
    };
    let fair: Vec<(f64, bool)> = f2
        .intervals
        .iter()
        .map(|i| {
            let a = near(i.end_s).unwrap_or(0.0);
            let m = (a + i.mbps) / 2.0;
            (i.end_s, (a - m).abs() <= 3.0 && (i.mbps - m).abs() <= 3.0)
        })
        .collect();
    (0..fair.len())
        .find(|&k| fair[k..].iter().take(4).all(|x| x.1) && fair.len() >= k + 4)
        .map(|k| fair[k].0 - join)
}

/// The senders limited to the seed's one-flow packet rate (`sender_9990pps`): rows over
/// their runs, the split and convergence of each in the notes. No source gives the
/// prototype's IPCP such a rate (see the notes); they show what a paced sender would do.
fn cpu_rows(r: &mut Report, runs: &[RunResult], j: f64, end: f64) {
    let tag = format!("sender_{}pps", SEED_PPS as u64);
    let alone = super::common::mean_ci(
        &runs
            .iter()
            .map(|o| mean_between(&o.app::<OcbrResult>()[0], j / 2.0, j))
            .collect::<Vec<_>>(),
    );
    r.row_ci(&tag, "alone_mbps (input)", alone);
    let mut hi = Vec::new();
    let mut lo = Vec::new();
    let mut splits = Vec::new();
    let mut convs = Vec::new();
    // Each flow's mean window length (ms) after the join, from its statistics series.
    let window = |f: &OcbrResult| {
        let w: Vec<f64> = f
            .stats_series
            .iter()
            .filter(|x| x.t > j + 0.2)
            .map(|x| x.window_ns as f64 / 1e6)
            .collect();
        w.iter().sum::<f64>() / w.len().max(1) as f64
    };
    for o in runs {
        let a = mean_between(&o.app::<OcbrResult>()[0], j + 0.2, end);
        let b = mean_between(&o.app::<OcbrResult>()[1], j + 0.2, end);
        hi.push(a.max(b));
        lo.push(a.min(b));
        splits.push(format!(
            "{}/{} Mbit/s with windows of {:.2}/{:.2} ms",
            fmt_num(a),
            fmt_num(b),
            window(&o.app::<OcbrResult>()[0]),
            window(&o.app::<OcbrResult>()[1])
        ));
        if let Some(c) = convergence(&o.app::<OcbrResult>()[0], &o.app::<OcbrResult>()[1], j) {
            convs.push(format!("{:.0}", c * 1e3));
        } else {
            convs.push("never".into());
        }
    }
    r.row_ci(&tag, "two_flows_larger_mbps", super::common::mean_ci(&hi));
    r.row_ci(&tag, "two_flows_smaller_mbps", super::common::mean_ci(&lo));
    r.note(format!(
        "{tag}: with senders limited to the seed's one-flow rate the split follows the flows' window lengths, which each run's seed decides (host clock offsets and NIC jitter): a window rescales only below 8 or above 64 packets, so two flows can settle with windows a factor 2 apart, each sending about as many packets per window. Flow 1/flow 2 = {} in {} runs that differ only in their seed; convergence after the join (ms, per seed): {}",
        splits.join(", "),
        runs.len(),
        convs.join(", ")
    ));
    r.note(format!(
        "{tag} (rows only, formerly the two-flow numbers' cause run): senders whose IPCP emits at most 9,990 packets/s, the rate of the seed's one-flow lines (998–1001 packets per 100 ms of arrivals, as steady as a rate limit). No source gives the prototype's IPCP such a rate, and the sources say otherwise: the seed's author writes that 'the prototype is able to handle Gigabit Ethernet' (blog, 2020-12-19, footnote 3), its authors that Ouroboros over raw sockets is 'a bit slower' than UDP/IP below 1460-byte packets (Hacker News item 22060019), ouroboros.rocks' performance page shows ocbr -f over a local layer at ~900,000 packets/s of 1000 bytes, 0.18.0's eth IPCP sends each frame with one sendto() on an AF_PACKET raw socket, and the 2020-12-19 post's I/O graph of this very test shows a flow at ~1.13e6 bytes per 100 ms (~1,090 frames of 1,033 bytes, above 9,990 packets/s) for about a second after the other flow stops"
    ));
}

fn explain(r: &mut Report, firsts: &[(String, RunResult)], cl: &RunResult, framed: f64, j: f64) {
    let lr = &firsts[0].1.app::<OcbrResult>()[0];
    let alone = mean_between(lr, j / 2.0, j);
    let alone_iv: Vec<f64> = lr
        .intervals
        .iter()
        .filter(|i| i.end_s > 0.15 && i.end_s <= j)
        .map(|i| i.mbps)
        .collect();
    if let (Some(a), Some(b)) = (alone_iv.first(), alone_iv.last()) {
        r.note(format!(
            "line_rate: flow 1 alone never settles: every window ends decreased, so its rate falls from {} Mbit/s (first full interval) to {} Mbit/s (last before the join); its mean depends on how long it ran alone",
            fmt_num(*a),
            fmt_num(*b)
        ));
    }
    r.note(format!(
        "where the seed's missing 21% would go: framing takes {:.1}% (1000 of 1057 bytes per packet: at most {} Mbit/s of SDU); the 16-packet threshold and the decrease take the rest. Here, at line rate, one flow gets {} Mbit/s (first run): the link is idle {:.0}% of the time",
        100.0 * (1.0 - 1000.0 / WIRE),
        fmt_num(framed),
        fmt_num(alone),
        100.0 * (1.0 - alone / framed)
    ));
    // The clients' 80 Mbit/s without and with the kernel's share of the queue.
    let notes: Vec<String> = firsts
        .iter()
        .filter(|(l, _)| *l == Variant::Client(CLIENT_MBIT, 0).label())
        .map(|(l, res)| {
            let c = &res.app::<OcbrResult>()[0];
            let w = c.windows.unwrap_or_default();
            let ca = (w[1] + w[2] + w[3]).max(1) as f64;
            format!(
                "{l}: a client at 80 Mbit/s with the marker seeing the whole queue does not keep MB-ECN out of the way. Slow start begins at 65,536 bytes per 16.8 ms window (31.25 Mbit/s), below the client's rate, so the flow's ring fills; what it holds leaves at the NIC's line rate whenever a window allows, the port queues beyond 16 packets and marks, and the windows keep decreasing ({:.0}% of flow 1's did): flow 1 alone carries {} Mbit/s (mean of its intervals before the join), not the client's 80",
                100.0 * w[1] as f64 / ca,
                fmt_num(mean_between(c, j / 2.0, j))
            )
        })
        .collect();
    for n in notes {
        r.note(n);
    }
    let c = &cl.app::<OcbrResult>()[0];
    let w = c.windows.unwrap_or_default();
    let ca = (w[1] + w[2] + w[3]).max(1) as f64;
    r.note(format!(
        "{}, the cause run: the same clients on the prototype's path, where {KERNEL} frames of each port's queue are in the kernel below the IPCP's ring (KERNEL: 0.18.0's eth IPCP selects its non-blocking raw socket for writing before each sendto(), a packet socket is writable while its frames' memory is under half its send buffer, 212,992 / 2 bytes by default, and a 1033-byte frame takes 2,304; the testbed's kernel and sysctls are not given, these are Linux's defaults): the router's marker sees a queue only beyond {KERNEL} + 16 packets, the slow start's bursts pass unmarked, and the client sets the pace: flow 1 alone carries {} Mbit/s (first run), {:.0}% of its windows decreased",
        Variant::Client(CLIENT_MBIT, KERNEL).label(),
        fmt_num(mean_between(c, j / 2.0, j)),
        100.0 * w[1] as f64 / ca
    ));
    r.note(format!(
        "the client rate's sources disagree a little: the 2020-12-19 post says each client was 'trying to send about 80 Mbit/s' and also that 'the requested bandwidth from the two ocbr clients (180Mbit) exceeds the 100Mbit link'; the cause run takes the first (per client, explicit), and {} (one run) the second read as 2 × 90; a 90 Mbit/s client alone needs 95 Mbit/s of the link's 100 with its framing",
        Variant::Client(90, KERNEL).label()
    ));
    r.note(format!(
        "{}: flooding clients on the same path, MB-ECN's own rate with the kernel's share hidden; the 2020-12-19 post's I/O graph shows a flow at ~1.13e6 bytes per 100 ms (~1,090 frames of 1,033 bytes) for about a second after the other stops, its ring draining at what MB-ECN allows",
        Variant::Kernel(KERNEL).label()
    ));
    for (label, res) in firsts {
        let f = &res.app::<OcbrResult>()[0];
        r.note(format!(
            "{label}: flow 1 sent {} packets, {} FLOW_UPDATEs, slept {:.3} s in window waits; windows (slow start, decrease, increase, unchanged) = {:?}",
            f.sent,
            f.flow_updates_sent,
            f.ca_wait_s,
            f.windows
        ));
    }
    r.note("nop with two flows: both flood the router's full ring at exactly 1 Gbit/s, and the slot the port frees each frame time always goes to flow 1's packet, which arrives first in the same phase every time (drop-tail lock-out of periodic sources); the two-flow rows are left out for nop");
    r.note("the seed's flow-allocator file is of a different flow (1.6 M packets sent, a 65 µs window): it is shown for its fields, not its values; 0.18.0's file pads each value to 20 columns after a 33-column label, which the seed's quote collapses");
}

fn plot(r: &mut Report, firsts: &[(String, RunResult)], j: f64) {
    let mut p = Plot {
        title: format!(
            "ocbr server rates, 100 ms intervals (flow 2 joins at {} s)",
            fmt_num(j)
        ),
        x_label: "time (s)".into(),
        y_label: "Mbit/s".into(),
        ..Default::default()
    };
    for (label, res) in firsts {
        if label == "nop" {
            continue;
        }
        for (k, f) in res.app::<OcbrResult>().iter().enumerate() {
            p.lines.push(Line {
                name: format!("{label} flow {}", k + 1),
                points: f.intervals.iter().map(|i| (i.end_s, i.mbps)).collect(),
                ..Default::default()
            });
        }
    }
    r.plots
        .push(("mbecn_star_rates.svg".into(), svg::render(&p)));
}
