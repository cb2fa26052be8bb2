//! `policer` — seed 004 ("10G > 1G", 2014): two Linux hosts with 10 Gbit/s NICs plugged
//! into each other, 50 ms of netem delay on box1's egress (`netem delay 50ms limit
//! 10000`), an ingress policer on box2 (`police rate 1000mbit burst 100k mtu 100k drop`),
//! CUBIC with 64 MB socket buffers. The seed: TCP gets no more than 10–20 Mbit/s through
//! the policer; a bigger burst (1 MB, 10 MB) makes the problem go away; a shaper on box1
//! (`tbf rate 900mbit burst 12000 limit 500m mtu 100000` with the netem under it) gives
//! 850 Mbit/s; without the policer the lab should average 7–8 Gbit/s.
//!
//! **Which path.** As written, the client runs on box2 (`iperf -c box1` on box2), so data
//! flows box2 → box1, and the policer on box2's ingress sees only the ACKs — while the
//! netem delay and the tbf fix sit on box1's egress, the path the ACKs take. The seed's
//! fix only makes sense for data leaving box1, and its TCP numbers only for data crossing
//! the policer: the author's numbers must come from data box1 → box2 (the client on box1,
//! or `iperf -r`). The variants take that reading; `literal_acks_policed` runs the
//! commands as written and shows what they give.
//!
//! **Hosts.** A 2014 Linux host with a 10G NIC: TSO, GRO and TCP small queues on
//! (`[host] tso`, `gro`, `tsq`); the policer sees GRO aggregates of up to 64 KB, which
//! is why the seed needs `mtu 100k` (tc's default mtu of 2040 B would drop every one).
//! The netem delay orphans what it holds (Linux ≥ 3.14), so TSQ does not count the delay
//! line.
//!
//! **Seed configuration.** Data box1 → box2 through the seed's policer (burst 100k), the
//! hosts above, the receiver's delayed ACKs on (Linux's default); each seed number is
//! judged once, in its own case of that set-up: no policer (`no_policer`, "7-8Gb/s"),
//! the 100k policer (`tcp_policed_burst_100k`, "no more than 10/20Mb/s"), a 1 MB and a
//! 10 MB burst ("the problem also goes away"), the tbf fix (850 Mbit/s), comment 4's htb
//! with fq_codel (940 Mbit/s) and the UDP test ("little or no packet loss"). The 100k
//! number's cause run is the same with the receiver's delayed ACKs off
//! (`tcp_policed_burst_100k_no_delack`); the 1 MB claim has none (no source names a host
//! mechanism that would spread a 2014 sender's window: a hypothesis in the notes). The
//! other variants (the literal commands, TCP's own pacing, sch_fq) are rows and
//! closed-form checks.

use super::common::*;
use super::lab10g::{lab, netem, HOP, NIC, OWD};
use super::study::{Done, Of, Study, N, V};
use super::{Against, Experiment, Options, Report, Tol};
use crate::engine::*;
use crate::net::ingress::IngressSpec;
use crate::qdisc::police::{Action, PoliceSpec};
use crate::scenario::*;

pub const EXPERIMENT: Experiment = Experiment {
    name: "policer",
    seed_doc: "004",
    about: "A 1000 Mbit/s ingress policer with a 100 KB burst behind a 10G sender 50 ms away: TCP collapses to 10-20 Mbit/s; a bigger burst, a tbf shaper or pacing fix it",
    run,
};

/// box1 → box2 → box1 over the one link: the netem's 50 ms and the cable twice.
const RTT: SimTime = 2 * HOP + OWD;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    /// No policer: the lab's known-good baseline.
    NoPolicer,
    /// Data box1 → box2 through the policer (burst in bytes).
    Policed(u64),
    /// The 100k policer with the receiver's delayed ACKs off: an ACK for every aggregate.
    NoDelack,
    /// The commands as written: data box2 → box1, the policer on the ACKs.
    Literal,
    /// The seed's fix: tbf 900 Mbit/s over the netem on box1, policer in place.
    Tbf,
    /// `SO_MAX_PACING_RATE` 900 Mbit/s on the sender, policer in place (TCP's own pacing).
    MaxRate,
    /// `sch_fq` as box1's root qdisc (the 50 ms in a netem on a box between box1 and box2),
    /// policer in place; with `SO_MAX_PACING_RATE` 900 Mbit/s or without (fq paces at
    /// TCP's rate).
    Fq(bool),
    /// Comment 4: no policer; a 1000 Mbit/s htb class with fq_codel under it on the way to
    /// box2 (the commenter's ifb on box2's ingress; here the port of a box in the middle).
    HtbFqCodel,
}

impl Variant {
    fn name(self) -> String {
        match self {
            Variant::NoPolicer => "no_policer".into(),
            Variant::Policed(b) if b == 100 << 10 => "tcp_policed_burst_100k".into(),
            Variant::Policed(b) => format!("tcp_policed_burst_{}MiB", b >> 20),
            Variant::NoDelack => "tcp_policed_burst_100k_no_delack".into(),
            Variant::Literal => "literal_acks_policed".into(),
            Variant::Tbf => "tbf_900mbit_fix".into(),
            Variant::MaxRate => "max_pacing_rate_900mbit".into(),
            Variant::Fq(true) => "fq_max_pacing_rate_900mbit".into(),
            Variant::Fq(false) => "fq_pacing".into(),
            Variant::HtbFqCodel => "htb_1000mbit_fq_codel".into(),
        }
    }

    /// A short label for the plot's legend.
    fn label(self) -> String {
        match self {
            Variant::Policed(b) if b == 100 << 10 => "police burst 100k".into(),
            Variant::Policed(b) => format!("police burst {}MiB", b >> 20),
            Variant::NoDelack => "police burst 100k, no delayed ACK".into(),
            Variant::Tbf => "tbf 900mbit".into(),
            Variant::MaxRate => "max_pacing 900".into(),
            Variant::Fq(true) => "fq + max_pacing".into(),
            Variant::Fq(false) => "fq".into(),
            Variant::HtbFqCodel => "htb + fq_codel".into(),
            v => v.name(),
        }
    }
}

/// The seed's policer with `burst` bytes (tc's `100k` = 102,400) on box2's ingress, the
/// link `link` into it.
fn policer(link: &str, burst: u64) -> IngressSpec {
    IngressSpec {
        link: link.into(),
        police: PoliceSpec {
            rate: 1_000_000_000,
            burst,
            mtu: 100 << 10,
            peakrate: None,
            conform: Action::Pass,
            exceed: Action::Drop,
        },
    }
}

/// What one run gives: goodput after the warm-up (bit/s), goodput in each second (Mbit/s),
/// and for the 100k variants the trains per round trip after the warm-up.
struct RunOut {
    bps: f64,
    series: Vec<(f64, f64)>,
    trains_per_rtt: f64,
    /// Goodput over whole loss epochs: from the first second after the warm-up in which a
    /// loss episode (fast recovery or timeout) began to the last such second; none with
    /// fewer than two such seconds.
    epoch_bps: Option<f64>,
    /// The mean length of those epochs (s): that span over the seconds with an episode,
    /// less one (two episodes in one second count once).
    epoch_s: Option<f64>,
    /// Packets the policer found over its rate and dropped (`tc -s`'s overlimits).
    police_exceeded: u64,
}

/// box1 = `src`, box2 = `dst`, one 10 Gbit/s link each way; box1's egress is netem (or
/// tbf over netem).
///
/// Trains: for the 100k variants the run steps in 1 ms after the warm-up and counts the
/// milliseconds in which data segments reached box2; a train is a run of such
/// milliseconds between empty ones, so trains are told apart by gaps of at least about a
/// millisecond (a window's trains at 10 Gbit/s last tens of microseconds; the round trip
/// is 50 ms).
fn run_one(v: Variant, dur: SimTime, warm: SimTime, seed: u64, o: &Options) -> RunOut {
    let netem = netem();
    let box1 = match v {
        Variant::Tbf => QueueSpec::tbf(900_000_000, 12_000, netem.clone()),
        Variant::Fq(_) => QueueSpec::fq(Default::default()),
        _ => netem.clone(),
    };
    // A box r0 between box1 and box2 for two variants; its port to box2 holds
    // - htb_1000mbit_fq_codel: the shaper (netem stays on box1);
    // - fq: the 50 ms, in a netem of its own (fq is box1's root and has no child), so the
    //   delay is on the data's way only, as the seed's netem on box1 is: a link's delay
    //   would hold the ACKs too and double the round trip.
    let middle = match v {
        Variant::HtbFqCodel => Some(QueueSpec::htb(1_000_000_000, QueueSpec::fq_codel())),
        Variant::Fq(_) => Some(netem),
        _ => None,
    };
    let hops = middle.is_some() as usize + 1;
    let topo = lab(Some(box1), middle);
    // The link into box2, where its ingress policer sits: the chain's last hop.
    let into_box2 = format!("hop{}", hops - 1);
    let mut sc = Scenario::new("policer", topo, dur);
    sc.seed = seed;
    sc.host.tso = true;
    sc.host.gro = true;
    sc.host.tsq = true;
    match v {
        Variant::NoPolicer | Variant::HtbFqCodel => {}
        Variant::Policed(b) => sc.policers.push(policer(&into_box2, b)),
        _ => sc.policers.push(policer(&into_box2, 100 << 10)),
    }
    let mut t = tcp("cubic");
    t.sndbuf = 64 << 20;
    t.rcvbuf = 64 << 20;
    if matches!(v, Variant::MaxRate | Variant::Fq(true)) {
        t.max_pacing_rate = Some(900_000_000);
    }
    if v == Variant::NoDelack {
        t.delayed_ack = false;
    }
    if v == Variant::Literal {
        sc.add_flow("dst", "src", t);
    } else {
        sc.add_flow("src", "dst", t);
    }
    o.prepare(&mut sc);
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    let (mut series, mut b0, mut last) = (Vec::new(), 0, 0);
    let count = matches!(v, Variant::Policed(b) if b == 100 << 10) || v == Variant::NoDelack;
    let (mut trains, mut segs, mut busy) = (0u64, 0u64, false);
    let (mut episodes, mut bounds) = (0u64, Vec::new());
    let mut t = 0;
    while t < dur {
        if count && t >= warm {
            let end = (t + SEC).min(dur);
            while t < end {
                t += MS;
                sim.run_until(t);
                let n = sim.tcp(0).receiver.stats.data_segs_in;
                let now_busy = n > segs;
                trains += (now_busy && !busy) as u64;
                (segs, busy) = (n, now_busy);
            }
        } else {
            t = (t + SEC).min(dur);
            sim.run_until(t);
            segs = sim.tcp(0).receiver.stats.data_segs_in;
        }
        let b = sim.tcp(0).receiver.delivered_bytes;
        let st = &sim.tcp(0).sender.stats;
        if st.recoveries + st.timeouts > episodes {
            episodes = st.recoveries + st.timeouts;
            if t > warm {
                bounds.push((t, b));
            }
        }
        series.push((secs(t), (b - last) as f64 * 8.0 / 1e6));
        last = b;
        if t == warm {
            b0 = b;
        }
    }
    sim.run();
    let g = (sim.tcp(0).receiver.delivered_bytes - b0) as f64 * 8.0 / secs(dur - warm);
    let police_exceeded = sim
        .results()
        .queues
        .iter()
        .filter_map(|q| q.police)
        .map(|p| p.exceeded)
        .sum();
    // Goodput and mean length of the epochs between the first and last episode.
    let epoch = match (bounds.first(), bounds.last()) {
        (Some(&(t0, b0)), Some(&(t1, b1))) if t1 > t0 => Some((
            (b1 - b0) as f64 * 8.0 / secs(t1 - t0),
            secs(t1 - t0) / (bounds.len() - 1) as f64,
        )),
        _ => None,
    };
    RunOut {
        bps: g,
        series,
        trains_per_rtt: trains as f64 * RTT as f64 / (dur - warm) as f64,
        epoch_bps: epoch.map(|e| e.0),
        epoch_s: epoch.map(|e| e.1),
        police_exceeded,
    }
}

/// The seed's UDP test, data box1 → box2 through the policer: `iperf -u -l45k -b800m`.
/// Returns the receiver's report.
fn run_udp(dur: SimTime, seed: u64, o: &Options) -> crate::app::udp::UdpResult {
    let topo = lab(None, None);
    let mut sc = Scenario::new("policer-udp", topo, dur);
    sc.seed = seed;
    sc.host.tso = true;
    sc.host.gro = true;
    sc.host.tsq = true;
    sc.policers.push(policer("hop0", 100 << 10));
    sc.apps.udps.push(crate::app::udp::UdpSpec {
        from: "src".into(),
        to: "dst".into(),
        start: 0,
        stop: None,
        rate: 800_000_000,
        len: 45 << 10,
        interval: SEC,
    });
    o.prepare(&mut sc);
    let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
    sim.run();
    sim.results()
        .apps
        .take::<crate::app::udp::UdpResult>()
        .remove(0)
}

/// A run: one of the TCP variants, or the seed's UDP test.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cfg {
    Tcp(Variant),
    Udp,
}

enum Out {
    Tcp(RunOut),
    Udp(crate::app::udp::UdpResult),
}

impl Out {
    fn tcp(&self) -> &RunOut {
        match self {
            Out::Tcp(r) => r,
            Out::Udp(_) => panic!("a UDP run has no TCP outcome"),
        }
    }

    fn udp(&self) -> &crate::app::udp::UdpResult {
        match self {
            Out::Udp(u) => u,
            Out::Tcp(_) => panic!("a TCP run has no UDP outcome"),
        }
    }
}

/// Goodput after the warm-up, Mbit/s.
fn mbps(o: &Out) -> f64 {
    o.tcp().bps / 1e6
}

/// The UDP test's lost datagrams, % of those sent; datagrams still on their way when the
/// run ends are not losses.
fn udp_loss_pct(o: &Out) -> f64 {
    let u = o.udp();
    let in_flight = (secs(OWD) * 800e6 / (8.0 * (45 << 10) as f64)).ceil() + 1.0;
    100.0 * u.lost.saturating_sub(in_flight as u64) as f64 / u.sent as f64
}

/// How "the problem also goes away" is read.
const GOES_AWAY: &str = "the seed: with a 1 MB or 10 MB burst \"the problem also goes away\"; read as at least half the policed 1000 Mbit/s, where 10-20 Mbit/s was the problem";

/// The declared variants, under the names `run`'s steps use, and the name of each.
struct Vars {
    v_none: V,
    v100: V,
    v_quick: V,
    v_lit: V,
    v1m: V,
    v10m: V,
    v_tbf: V,
    v_max: V,
    v_fqm: V,
    v_fq: V,
    v_htb: V,
    v_udp: V,
    names: Vec<(V, String)>,
}

impl Vars {
    /// The TCP variants, in declaration order.
    fn tcp_vars(&self) -> [V; 11] {
        [
            self.v_none,
            self.v100,
            self.v_quick,
            self.v_lit,
            self.v1m,
            self.v10m,
            self.v_tbf,
            self.v_max,
            self.v_fqm,
            self.v_fq,
            self.v_htb,
        ]
    }

    /// Variant `v`'s name, for its rows.
    fn name(&self, v: V) -> String {
        self.names
            .iter()
            .find(|x| x.0 == v)
            .expect("a variant")
            .1
            .clone()
    }
}

/// The seed numbers and claims, in the seed configuration of each case.
struct Numbers {
    n_none: N,
    n100: N,
    n1m: N,
    n10m: N,
    n_tbf: N,
    n_htb: N,
    n_udp: N,
}

/// The metric of the goodput rows.
const M: &str = "goodput_mbps";

type D = Done<Cfg, Out>;

/// The mean of `f` of a TCP variant's runs.
fn mean(d: &D, v: V, f: fn(&RunOut) -> f64) -> MeanCi {
    d.mean(v, |o| f(o.tcp()))
}

/// The mechanism: TCP's window leaves in trains at 10 Gbit/s (TSO aggregates back to
/// back, ACK-clocked by the trains before), and a train passes only while the bucket
/// lasts: the bucket B plus what refills during the train (the policed rate over the
/// NIC's), each segment costing its share of a GRO aggregate (1448 + 52/45 B) and
/// taking 1538 wire bytes at 10 Gbit/s. A window of more than
/// W = B / (1449 − 1538·1000/10000) segments loses its tail, so the goodput is at most
/// about W·1448·8 / RTT. Returns (W, that bound in Mbit/s).
fn train(burst: u64) -> (f64, f64) {
    let w = burst as f64 / (1449.0 - 1538.0 * 1e9 / NIC as f64);
    (w, w * 1448.0 * 8.0 / secs(RTT) / 1e6)
}

fn run(o: &Options) -> Report {
    let (dur, warm, n) = if o.quick {
        (30 * SEC, 10 * SEC, 2)
    } else {
        (60 * SEC, 10 * SEC, 10)
    };
    // Runs per variant and at most. The 100k policer and its cause run carry 20 Mbit/s or
    // less and a run of either costs a hundredth of a second (a 10 Gbit/s run: seconds):
    // they may grow to 32n where the 100k number is open, in --quick too; the rest to 2n
    // in a full run (none in --quick), where only a variant with a seed number grows.
    let cheap = 32 * n;
    let cap = if o.quick { n } else { 2 * n };
    let mut s: Study<Cfg, Out> = Study::new("policer", o);
    let vars = declare(&mut s, n, cap, cheap);
    let numbers = seed_numbers(&mut s, &vars);
    // fq alone is judged over whole CUBIC epochs, which last many seconds here (row
    // epoch_length_s): it runs the full minute even with --quick.
    let fq_dur = dur.max(60 * SEC);
    let mut d = s.run(|c, seed| match *c {
        Cfg::Tcp(v) => {
            let t = if v == Variant::Fq(false) { fq_dur } else { dur };
            Out::Tcp(run_one(v, t, warm, seed, o))
        }
        Cfg::Udp => Out::Udp(run_udp(dur, seed, o)),
    });
    plot(&mut d, &vars);
    d.emit(numbers.n_none);
    trains(&mut d, &vars, numbers.n100);
    literal(&mut d, &vars);
    bursts(&mut d, &vars, &numbers);
    d.emit(numbers.n_tbf);
    pacing(&mut d, &vars);
    d.emit(numbers.n_htb);
    setup_notes(&mut d, o, (dur, warm, fq_dur, n));
    udp(&mut d, &vars, numbers.n_udp);
    shaper_notes(&mut d);
    d.finish()
}

/// Every variant, `n` runs each; the 100k policer and its cause run may grow to `cheap`,
/// the rest to `cap`.
fn declare(s: &mut Study<Cfg, Out>, n: usize, cap: usize, cheap: usize) -> Vars {
    let var =
        |s: &mut Study<Cfg, Out>, v: Variant, cap: usize| s.variant(&v.name(), Cfg::Tcp(v), n, cap);
    let mut vars = Vars {
        v_none: var(s, Variant::NoPolicer, cap),
        v100: var(s, Variant::Policed(100 << 10), cheap),
        v_quick: var(s, Variant::NoDelack, cheap),
        v_lit: var(s, Variant::Literal, cap),
        v1m: var(s, Variant::Policed(1 << 20), cap),
        v10m: var(s, Variant::Policed(10 << 20), cap),
        v_tbf: var(s, Variant::Tbf, cap),
        v_max: var(s, Variant::MaxRate, cap),
        v_fqm: var(s, Variant::Fq(true), cap),
        v_fq: var(s, Variant::Fq(false), cap),
        v_htb: var(s, Variant::HtbFqCodel, cap),
        v_udp: s.variant("udp_800mbit_45k", Cfg::Udp, n, cap),
        names: vec![],
    };
    // Each variant's name, for its rows.
    vars.names = vars
        .tcp_vars()
        .iter()
        .chain([&vars.v_udp])
        .map(|&v| (v, s.name(v).to_string()))
        .collect();
    vars
}

/// The seed's numbers, in the seed configuration of each case (data box1 → box2 through
/// the policer, the hosts of 2014).
fn seed_numbers(s: &mut Study<Cfg, Out>, vars: &Vars) -> Numbers {
    let n_none = s.seed(
        vars.v_none,
        M,
        7000.0,
        Tol::AtLeast,
        "the seed: \"if you're not averaging 7-8Gb/s then you might want to do some tuning\"; a lower bound, since a tuned lab may do better",
        mbps,
    );
    let n100 = s.seed(
        vars.v100,
        M,
        20.0,
        Tol::AtMost,
        "the seed: \"I couldn't get more than 10Mb/s\" and \"can't get more than 20Mb/s of TCP\": at most 20",
        mbps,
    );
    s.cause(
        n100,
        vars.v_quick,
        "[tcp] delayed_ack = false on the receiver (box2): an ACK for every GRO aggregate",
    );
    // "The problem also goes away" gives no number: the claim is judged as a claim (read
    // as at least half the policed 1000 Mbit/s), not shown as a seed number of 500.
    let away = |s: &mut Study<Cfg, Out>, v: V| {
        let name = format!(
            "{}: the problem goes away (the seed's claim, goodput at least 500 Mbit/s)",
            s.name(v)
        );
        s.claim(&name, 500.0, Tol::AtLeast, GOES_AWAY, Of::mean(v, mbps))
    };
    let n1m = away(s, vars.v1m);
    let n10m = away(s, vars.v10m);
    let n_tbf = s.seed(
        vars.v_tbf,
        M,
        850.0,
        Tol::Rel(0.10),
        "the seed: \"you can get 850Mb/s now\", a figure read off iperf's once-a-second lines of a 300 s run, not a mean; the shaper's ceiling is 1448/1500 of 900 = 869 Mbit/s, and the loss episodes when CUBIC fills netem's 10,000 packets (each a recovery, some an RTO) move a 20-50 s mean by several percent: ±10%",
        mbps,
    );
    let n_htb = s.seed(
        vars.v_htb,
        M,
        940.0,
        Tol::Rel(0.05),
        "comment 4: htb 1000mbit with fq_codel \"configured for 1000mbit\" gives 940 Mbit/s (on the commenter's localhost); TCP's share of a 1000 Mbit/s shaper that counts IP bytes is 1448/1500 = 965, and CoDel's 5 ms target at a 50 ms RTT costs CUBIC a few percent: ±5%",
        mbps,
    );
    let n_udp = s.seed(
        vars.v_udp,
        "loss_pct",
        0.0,
        Tol::Abs(1.0),
        "the seed: \"we can send 800Mb/s of UDP with little or no packet loss\"; little or no read as at most 1% of the datagrams",
        udp_loss_pct,
    );
    Numbers {
        n_none,
        n100,
        n1m,
        n10m,
        n_tbf,
        n_htb,
        n_udp,
    }
}

/// The plot: each policed variant's goodput, second by second, in its first run.
fn plot(d: &mut D, vars: &Vars) {
    let mut plot = crate::report::svg::Plot {
        title: "Goodput through the policer, each second (first run of each variant)".into(),
        x_label: "time (s)".into(),
        y_label: "goodput (Mbit/s)".into(),
        log_y: true,
        ..Default::default()
    };
    for &v in &vars.tcp_vars() {
        if v == vars.v_none || v == vars.v_lit {
            continue; // 9.4 Gbit/s: off the scale of the policed variants
        }
        let Cfg::Tcp(tv) = *d.config(v) else {
            unreachable!("a TCP variant")
        };
        plot.lines.push(crate::report::svg::Line {
            name: tv.label(),
            points: d
                .first(v)
                .tcp()
                .series
                .iter()
                .map(|&(t, m)| (t, m.max(0.1)))
                .collect(),
            ..Default::default()
        });
    }
    d.plots
        .push(("policer.svg".into(), crate::report::svg::render(&plot)));
}

/// The 100k policer: its seed number, the trains per round trip, and the cause run
/// (delayed ACKs off) against the one-train bound.
fn trains(d: &mut D, vars: &Vars, n100: N) {
    let policed = d.mean(vars.v100, mbps);
    let quick = d.mean(vars.v_quick, mbps);
    let trains = |o: &RunOut| o.trains_per_rtt;
    let (t100, tq) = (mean(d, vars.v100, trains), mean(d, vars.v_quick, trains));
    let (w100, bound100) = train(100 << 10);
    d.emit(n100);
    d.note(format!(
        "the model's sender passes {:.1} Mbit/s through the 100k policer, {:.2} times the one-train bound of {bound100:.1} ({w100:.0} segments per RTT), because with the receiver's delayed ACKs its window crosses the policer as {:.2} trains per round trip (trains_per_rtt), which ACK clocking keeps apart and the bucket refills between; with them off ({}, the cause run) {:.2} trains and {:.1} Mbit/s. The seed's receiver and NIC settings (delayed ACKs, interrupt moderation) are not known",
        policed.mean,
        policed.mean / bound100,
        t100.mean,
        vars.name(vars.v_quick),
        tq.mean,
        quick.mean
    ));
    d.row_ci(&vars.name(vars.v100), "trains_per_rtt", t100);
    d.row_ci(&vars.name(vars.v_quick), M, quick);
    d.row_ci(&vars.name(vars.v_quick), "trains_per_rtt", tq);
    d.note(format!("trains_per_rtt: after the warm-up the run steps in 1 ms and counts the runs of milliseconds in which data segments reached box2 (a train ends at a millisecond without any), per {:.2} ms round trip", secs(RTT) * 1e3));
    d.check_ci(
        format!(
            "{}: goodput vs the train bound ({w100:.0} segments per RTT)",
            vars.name(vars.v_quick)
        ),
        Against::ClosedForm,
        quick,
        bound100,
        Tol::Factor(0.5, 1.1),
        "an ACK for every aggregate keeps the window in one train per round trip, so the goodput stays below the bound; CUBIC's window oscillates below it after each loss (to 0.7 of its maximum, lower in recovery): down to half; 10% above for the bucket's state when a train starts and the header share of aggregates smaller than the 45 segments assumed",
    );
}

/// The commands as written: the policer on the ACK path.
fn literal(d: &mut D, vars: &Vars) {
    // The commands as written: the policer on the ACK path. It drops no ACK: an ACK stream
    // is at most one 52-byte ACK per 1538-byte data frame at the data's 10 Gbit/s, which
    // is far below the policed 1000 Mbit/s, so the bucket never empties; the data then
    // crosses nothing slower than the sender's NIC.
    let lit = d.mean(vars.v_lit, mbps);
    let ack_peak = NIC as f64 * 52.0 / 1538.0 / 1e6;
    let line = max_goodput(NIC, 1500) / 1e6;
    d.row_ci(&vars.name(vars.v_lit), M, lit);
    let exceeded = mean(d, vars.v_lit, |o| o.police_exceeded as f64);
    d.row_ci(&vars.name(vars.v_lit), "policer_exceeded_pkts", exceeded);
    d.check_ci(
        "literal reading: with the policer on the ACK path TCP does not collapse (goodput vs the 10 Gbit/s link's TCP payload rate)",
        Against::ClosedForm,
        lit,
        line,
        Tol::Rel(0.02),
        &format!("an ACK stream is at most one 52-byte ACK per 1538-byte data frame, {ack_peak:.0} Mbit/s at 10 Gbit/s of data, so the 1000 Mbit/s policer never empties its bucket and passes every ACK (row policer_exceeded_pkts); the sender's NIC is then the only limit, which TCP keeps busy once slow start has opened cwnd past the 62.5 MB BDP (in under a second, inside the warm-up): 10 Gbit/s × 1448/1538 of goodput, not the seed's 10-20 Mbit/s; 2% for what the host's gaps (TSQ waiting for a completion, the ACK clock) leave idle"),
    );
}

/// The 1 MB and 10 MB bursts: the train bound, and the seed's claim that the problem goes
/// away.
fn bursts(d: &mut D, vars: &Vars, numbers: &Numbers) {
    let policed = d.mean(vars.v100, mbps);
    for (v, b) in [(vars.v100, 100u64 << 10), (vars.v1m, 1 << 20)] {
        let g = d.mean(v, mbps);
        let (w, bound) = train(b);
        d.row(&vars.name(v), "train_bound_mbps", bound);
        d.check_ci(
            format!("{}: goodput vs the train bound ({w:.0} segments per RTT)", vars.name(v)),
            Against::ClosedForm,
            g,
            bound,
            Tol::Factor(0.5, 2.0),
            "the bound is for a window sent as one train: CUBIC's window oscillates below it after each loss (down to half), and with delayed ACKs the window can cross as two trains per round trip (up to twice)",
        );
    }
    let g1 = d.mean(vars.v1m, mbps);
    let (_, bound1) = train(1 << 20);
    d.row_ci(&vars.name(vars.v1m), M, g1);
    d.emit(numbers.n1m);
    d.note(format!(
        "the seed says a 1 MB burst makes \"the problem also go away\"; the model gives {:.0} Mbit/s, {:.0} times the 100k case but bounded by the same mechanism: a 1 MiB bucket passes trains of at most {:.0} segments, {:.0} Mbit/s at 50 ms. A real 2014 sender must have spread its window more than the model's (which sends a window's skbs back to back at 10 Gbit/s whenever ACKs allow); which host mechanism did that is not known from the seed, and no cause run has shown one",
        g1.mean,
        g1.mean / policed.mean,
        train(1 << 20).0,
        bound1
    ));
    let g10 = d.mean(vars.v10m, mbps);
    d.row_ci(&vars.name(vars.v10m), M, g10);
    d.emit(numbers.n10m);
}

/// Pacing below the policer: TCP's own (SO_MAX_PACING_RATE), sch_fq with it, and sch_fq
/// alone over whole CUBIC epochs.
fn pacing(d: &mut D, vars: &Vars) {
    let policed = d.mean(vars.v100, mbps);
    let paced = d.mean(vars.v_max, mbps);
    d.row_ci(&vars.name(vars.v_max), M, paced);
    d.check_ci(
        "SO_MAX_PACING_RATE 900 Mbit/s: TCP paced below the policer keeps its rate",
        Against::ClosedForm,
        paced,
        900.0,
        Tol::Rel(0.05),
        "Linux paces payload bytes (skb->len) at the capped pacing rate: 900 Mbit/s of goodput once cwnd allows, a wire rate of 900·1500/1448 = 932 Mbit/s, inside the policer's 1000; 5% for CUBIC's ramp after the warm-up and the idle credit of the first skbs",
    );

    let fq = d.mean(vars.v_fqm, mbps);
    d.row_ci(&vars.name(vars.v_fqm), M, fq);
    d.check_ci(
        "sch_fq + SO_MAX_PACING_RATE 900 Mbit/s (comment 3): fq enforces TCP's stamps below the policer",
        Against::ClosedForm,
        fq,
        900.0,
        Tol::Rel(0.05),
        "as for TCP's own pacing: fq holds each skb until its departure stamp, spaced at the capped 900 Mbit/s of payload, inside the policer's 1000; 5% for CUBIC's ramp",
    );
    let fqp = d.mean(vars.v_fq, mbps);
    d.row_ci(&vars.name(vars.v_fq), M, fqp);
    d.note(format!(
        "sch_fq alone (comment 3: \"sch_fq on the hosts works really well now\", no number) paces at TCP's own rate (120% of cwnd/srtt, 200% in slow start): {:.0} Mbit/s through the 100k policer, vs {:.1} unpaced",
        fqp.mean, policed.mean
    ));
    // Why fq alone stops short of the policed rate. In congestion avoidance TCP paces at
    // 1.2·cwnd/srtt, so a window leaves in 1/1.2 of the round trip at 1.2 times the
    // goodput G and then pauses (the bucket refills). The pacing rate sizes skbs to about
    // 1 ms (`tcp_tso_autosize`): 45 segments near 1 Gbit/s, one GRO aggregate each, which
    // the policer takes whole, so only B − A of the bucket can absorb the excess (A = 45 ×
    // 1448 + 52 bytes) and a segment costs 1448 + 52/45 bytes. Loss starts when
    // (1.2·G·1449.2/1448 − P)·RTT/1.2 > 8·(B − A); CUBIC then cycles from 0.7 of that
    // window back up to it along its cubic, whose mean over an epoch is 1 − 0.3/4 = 0.925
    // of the top, or 0.85 when fast convergence aims the cubic at (1 + 0.7)/2 of it (a
    // loss below the previous maximum: the curve is symmetric about that plateau).
    let agg = 45.0 * 1448.0 + 52.0;
    // Two hops each way with fq (the netem on the box between).
    let fq_rtt = secs(2 * HOP + RTT);
    let top = (1e9 + 1.2 * 8.0 * ((100 << 10) as f64 - agg) / fq_rtt) / 1.2
        * (1448.0 / (1448.0 + 52.0 / 45.0));
    d.row(&vars.name(vars.v_fq), "loss_onset_mbps", top / 1e6);
    let fq_runs = d.runs(vars.v_fq);
    let epochs: Vec<f64> = fq_runs
        .iter()
        .filter_map(|o| o.tcp().epoch_bps)
        .map(|b| b / 1e6)
        .collect();
    let lens: Vec<f64> = fq_runs.iter().filter_map(|o| o.tcp().epoch_s).collect();
    let (runs_with, fq_n) = (epochs.len(), fq_runs.len());
    if epochs.is_empty() {
        d.check(
            "sch_fq alone: CUBIC paced at 1.2 cwnd/srtt cycles below the rate at which a paced window overdraws the bucket",
            Against::ClosedForm,
            false,
            "no run had two loss episodes after the warm-up: no whole epoch to measure",
            "the claim is about CUBIC's mean over its epochs",
        );
    } else {
        let em = mean_ci(&epochs);
        d.row_ci(&vars.name(vars.v_fq), "epoch_goodput_mbps", em);
        d.row_ci(&vars.name(vars.v_fq), "epoch_length_s", mean_ci(&lens));
        d.check_ci(
            format!("sch_fq alone: CUBIC paced at 1.2 cwnd/srtt cycles below the rate at which a paced window overdraws the bucket (over whole epochs, {runs_with} of {fq_n} runs)"),
            Against::ClosedForm,
            em,
            top / 1e6,
            Tol::Factor(0.80, 0.95),
            "CUBIC's mean over an epoch is 0.85 (fast convergence) to 0.925 (without) of the loss onset; measured over whole epochs (first to last loss episode after the warm-up, at 1 s resolution: an epoch after a slow start that overshot the onset climbs from far below it and is not a cycle at the onset, which is why whole epochs and not a fixed window are measured); 0.05 more each way for the recovery episodes (each a PRR reduction), the 1 s resolution of the epoch ends, and aggregates smaller than 45 segments at the policer (a larger header share per segment, a smaller aggregate to reserve)",
        );
    }
}

/// The set-up, and which way the data flows. `plan`: (dur, warm, fq_dur, n).
fn setup_notes(d: &mut D, o: &Options, plan: (SimTime, SimTime, SimTime, usize)) {
    let (dur, warm, fq_dur, n) = plan;
    d.note(format!(
        "box1 (src) → box2 (dst): one 10 Gbit/s link each way, 10 µs; box1's egress qdisc netem delay 50 ms limit 10000 (tbf 900mbit burst 12000 over it in the fix; with sch_fq as box1's root, the netem sits on the port of a box between box1 and box2, so the 50 ms delays the data only, as on box1); box2's ingress policer rate 1000mbit burst 100k (102,400 B) mtu 100k drop, after GRO; CUBIC, 64 MiB socket buffers; TSO, GRO (50 µs NAPI poll) and TSQ on; goodput after the first {} s of {} s (the sch_fq-alone variant: of {} s), mean of {n} runs (seeds {}…{}; more where a note below says so)",
        secs(warm),
        secs(dur),
        secs(fq_dur),
        o.seed,
        o.seed + n as u64 - 1
    ));
    d.note("the seed's commands put the client on box2, so data goes box2 → box1 and the policer sees only ACKs (variant literal_acks_policed); the TCP numbers and the tbf fix on box1 only make sense for data box1 → box2, which the other variants use");
}

/// The seed's UDP test.
fn udp(d: &mut D, vars: &Vars, n_udp: N) {
    d.emit(n_udp);
    let vu = vars.name(vars.v_udp);
    let good = d.mean(vars.v_udp, |o| o.udp().goodput_bps / 1e6);
    d.row_ci(&vu, "goodput_mbps", good);
    let first = d.first(vars.v_udp).udp();
    let (frags, lines): (f64, Vec<String>) = (
        first.fragments_per_datagram as f64,
        first.report.iter().take(3).cloned().collect(),
    );
    d.row(&vu, "fragments_per_datagram", frags);
    d.note("why the policer passes the UDP: a 46,080-byte datagram is 46,728 bytes of IP in 32 fragments arriving back to back at 10 Gbit/s; the bucket holds 102,400 bytes and refills 57,600 (460.8 µs at 1 Gbit/s) between two datagrams, so no fragment finds it empty — unlike TCP's trains of a whole window");
    for line in lines {
        d.note(format!("udp iperf server (first run): {line}"));
    }
    d.note("the seed's UDP commands, as written, send box2 → box1, which crosses neither netem nor the policer; udp_800mbit_45k sends box1 → box2 through both, as the TCP variants do");
}

/// Where comment 4's shaper sits here, and what tc's options do.
fn shaper_notes(d: &mut D) {
    d.note("htb_1000mbit_fq_codel: comment 4 shaped box2's ingress through an ifb; here the shaper is the port of a box between box1 and box2 (no GRO before it), which comment 1 says is the realistic place anyway");
    d.note("tc's `mtu 100000` on tbf changes nothing without a peak rate (a modern kernel computes rates exactly); tbf's `limit 500m` does not apply once netem replaces its bfifo: the queue is netem's 10,000 packets");
}
