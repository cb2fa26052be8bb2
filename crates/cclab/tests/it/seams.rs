//! The seams of the simulator, exercised from outside: a queue discipline sees every packet
//! that leaves its port, idle or not; a discipline that answers "not before t" paces its
//! port to the rate it sets.

use cclab::engine::*;
use cclab::net::Framing;
use cclab::packet::PktId;
use cclab::qdisc::{Backlog, Deq, Fifo, Mark, PktMeta, Qdisc, QueueDisc, Verdict};
use cclab::scenario::*;
use cclab::sim::Sim;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A FIFO that counts the packets offered to it.
struct Counting {
    fifo: Fifo,
    offered: Arc<AtomicU64>,
}

impl QueueDisc for Counting {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        self.offered.fetch_add(1, Ordering::Relaxed);
        self.fifo.push(id, m.len);
        Verdict::Queue(Mark::None)
    }
    fn dequeue(&mut self, _now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        match self.fifo.pop() {
            Some(id) => Deq::Packet(id, Mark::None),
            None => Deq::Empty,
        }
    }
    fn backlog(&self) -> Backlog {
        self.fifo.backlog()
    }
    fn peek_len(&self) -> Option<u32> {
        self.fifo.peek().map(|h| h.1)
    }
}

/// src → r0 → dst: a 10 Gbit/s access hop and a bottleneck hop of `rate`, 1 ms one way.
fn path(rate: u64) -> TopologySpec {
    TopologySpec::path(
        10_000_000_000,
        rate,
        MS,
        QueueSpec::droptail(Limit::Packets(1000)),
    )
}

#[test]
fn a_qdisc_sees_every_packet_even_on_an_idle_port() {
    // Pings every 10 ms on an otherwise empty 1 Gbit/s path: each finds the port idle.
    let mut sc = Scenario::new("idle", path(1_000_000_000), 200 * MS);
    sc.apps.pings.push(PingSpec {
        from: "src".into(),
        to: "dst".into(),
        start: 0,
        interval: 10 * MS,
        size: 84,
        ect: false,
        dscp: 0,
    });
    let mut sim = Sim::new(&sc).unwrap();
    let offered = Arc::new(AtomicU64::new(0));
    let port = sim.net.port_by_name("hop1").unwrap() as usize;
    sim.net.port_mut(port as u32).qdisc = Qdisc::Custom(Box::new(Counting {
        fifo: Fifo::default(),
        offered: offered.clone(),
    }));
    sim.run();
    let p = &sim.net.port(port as u32);
    assert_eq!(p.tx_pkts, 20, "one echo request every 10 ms for 200 ms");
    assert_eq!(offered.load(Ordering::Relaxed), p.tx_pkts);
    assert_eq!(p.stats.enqueued, p.tx_pkts);
    // None of them waited: the largest backlog left behind an arrival is zero.
    assert_eq!(p.stats.max_pkts, 0);
    let r = sim.results();
    assert_eq!(r.app::<cclab::app::ping::PingResult>()[0].received, 20);
}

/// A FIFO that releases packets no faster than `rate_bps` (IP bytes), answering
/// `NotBefore` until the head's turn: the shape of a token-bucket shaper or a paced host.
struct Pacer {
    fifo: Fifo,
    rate_bps: u64,
    next: SimTime,
}

impl QueueDisc for Pacer {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self.fifo.len() >= 1000 {
            return Verdict::Drop;
        }
        self.fifo.push(id, m.len);
        Verdict::Queue(Mark::None)
    }
    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<PktId>) -> Deq {
        let Some((_, len)) = self.fifo.peek() else {
            return Deq::Empty;
        };
        if now < self.next {
            return Deq::NotBefore(self.next);
        }
        self.next = self.next.max(now) + tx_time(len as u64, self.rate_bps);
        Deq::Packet(self.fifo.pop().unwrap(), Mark::None)
    }
    fn backlog(&self) -> Backlog {
        self.fifo.backlog()
    }
    fn peek_len(&self) -> Option<u32> {
        self.fifo.peek().map(|h| h.1)
    }
}

#[test]
fn a_qdisc_answering_not_before_paces_its_port_to_its_rate() {
    // A 10 Gbit/s bottleneck whose qdisc releases 1 Gbit/s of IP bytes; one CUBIC flow
    // keeps it backlogged. The port must carry the pacer's rate, not the link's.
    let dur = 4 * SEC;
    let mut sc = Scenario::new("paced", path(10_000_000_000), dur);
    sc.add_default_flows(&TcpConfig::default());
    let mut sim = Sim::new(&sc).unwrap();
    let port = sim.net.port_by_name("hop1").unwrap() as usize;
    let rate = 1_000_000_000;
    sim.net.port_mut(port as u32).qdisc = Qdisc::Custom(Box::new(Pacer {
        fifo: Fifo::default(),
        rate_bps: rate,
        next: 0,
    }));
    // Measure the second half, once slow start and the recovery from its overshoot are
    // over (at 0.5 s, with HyStart's Linux threshold, the flow was still recovering).
    sim.run_until(dur / 2);
    let b0 = sim.net.port(port as u32).tx_bytes;
    sim.run();
    let bps = (sim.net.port(port as u32).tx_bytes - b0) as f64 * 8.0 / secs(dur - dur / 2);
    // The pacer's schedule allows exactly `rate`; TCP keeps it busy, so the port carries
    // it to within 2% (a drained pacer after a loss is the only slack).
    assert!(
        (bps / rate as f64 - 1.0).abs() < 0.02,
        "port carried {bps:.0} bit/s, pacer set {rate}"
    );
    println!(
        "paced port: {bps:.0} bit/s, max backlog {} pkts",
        sim.net.port(port as u32).stats.max_pkts
    );
    // The link alone would carry 10x as much: the pacing came from the qdisc.
    assert!(sim.net.port(port as u32).stats.max_pkts > 10);
}

/// `examples/graph.toml` writes out `examples/chain.toml`'s path as a graph: the per-flow
/// results, the queues and the event count must be the chain builder's, exactly.
#[test]
fn a_graph_topology_equal_to_the_chain_example_gives_the_same_results() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let load = |f: &str| {
        let mut sc = cclab::scenario::load_scenario(&std::path::Path::new(dir).join(f), &[])
            .unwrap_or_else(|e| panic!("{f}: {e:?}"));
        // 3 s of the 60 s run: slow start, the first losses and recovery.
        sc.duration = 3 * SEC;
        sc.output = OutputSpec::default();
        cclab::world::run(&sc).unwrap()
    };
    let (chain, graph) = (load("chain.toml"), load("graph.toml"));
    assert!(matches!(
        cclab::scenario::load_scenario(&std::path::Path::new(dir).join("graph.toml"), &[])
            .unwrap()
            .topology,
        TopologySpec::Graph(_)
    ));
    assert!(chain.flows[0].bytes > 10_000_000, "the flow moved data");
    assert!(chain.flows[0].retransmits > 0, "and met a loss");
    assert_eq!(format!("{:?}", chain.flows), format!("{:?}", graph.flows));
    assert_eq!(format!("{:?}", chain.queues), format!("{:?}", graph.queues));
    assert_eq!(chain.engine.events, graph.engine.events);
}

#[test]
fn an_unknown_congestion_control_is_an_error_not_a_fallback() {
    let mut sc = Scenario::new("x", path(1_000_000_000), 10 * MS);
    sc.add_flow(
        "src",
        "dst",
        TcpConfig {
            cc: "cubik".into(),
            ..Default::default()
        },
    );
    let e = Sim::new(&sc).err().expect("refused");
    assert!(e.contains("unknown congestion control 'cubik'"), "{e}");
    assert!(e.contains("cubic"), "names the allowed ones: {e}");
}

/// More connections between one pair of hosts than there are ports: every one gets a
/// distinct 4-tuple (the service port moves up past 28,232), and all complete.
#[test]
fn seventy_thousand_connections_run() {
    let n = 70_000;
    let topo = TopologySpec::Dumbbell {
        senders: 1,
        bottleneck: LinkSpec {
            rate_bps: 10_000_000_000,
            delay: 10 * US,
            queue: QueueSpec::droptail(Limit::Packets(100_000)),
            framing: Framing::Ethernet,
        },
        access_rate_bps: 10_000_000_000,
        access_delay: vec![US],
        access_queue: QueueSpec::droptail(Limit::Packets(100_000)),
    };
    let mut sc = Scenario::new("many", topo, 200 * MS);
    for i in 0..n {
        let f = sc.add_flow("s0", "r0", TcpConfig::default());
        sc.apps.flows[f].start = i * US;
        sc.apps.flows[f].bytes = Some(1000);
    }
    let mut sim = Sim::new(&sc).unwrap();
    let tuples: std::collections::BTreeSet<(u16, u16)> = (0..n as usize)
        .map(|i| {
            let a = sim.tcp(i).sender.addr;
            (a.sport, a.dport)
        })
        .collect();
    assert_eq!(tuples.len(), n as usize, "distinct 4-tuples");
    sim.run();
    let r = sim.results();
    assert_eq!(r.flows.len(), n as usize);
    let done = r.flows.iter().filter(|f| f.acked_s.is_some()).count();
    assert_eq!(
        done, n as usize,
        "every connection delivered its 1000 bytes"
    );
    assert!(r.flows.iter().all(|f| f.bytes == 1000));
}

// ---- The port drives the qdisc correctly when it answers Empty or NotBefore.

use cclab::net::{topology, NetCtx, NetEv, Network, NoTap};
use cclab::packet::{Packet, PacketPool};
use cclab::qdisc::classful::{Class, Classful, Sched};
use cclab::qdisc::droptail::DropTail;

/// Drops everything it holds at dequeue (what CoDel does to a standing queue, in the
/// extreme).
struct DropAll(Fifo);

impl QueueDisc for DropAll {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        self.0.push(id, m.len);
        Verdict::Queue(Mark::None)
    }
    fn dequeue(&mut self, _: SimTime, drops: &mut Vec<PktId>) -> Deq {
        while let Some(id) = self.0.pop() {
            drops.push(id);
        }
        Deq::Empty
    }
    fn backlog(&self) -> Backlog {
        self.0.backlog()
    }
    fn peek_len(&self) -> Option<u32> {
        self.0.peek().map(|h| h.1)
    }
}

/// Two bands: DSCP 1 waits until `gate`; anything else goes at once, first.
struct Gate {
    now_q: Fifo,
    later: Fifo,
    gate: SimTime,
}

impl QueueDisc for Gate {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if m.dscp == 1 {
            self.later.push(id, m.len)
        } else {
            self.now_q.push(id, m.len)
        }
        Verdict::Queue(Mark::None)
    }
    fn dequeue(&mut self, now: SimTime, _: &mut Vec<PktId>) -> Deq {
        if let Some(id) = self.now_q.pop() {
            return Deq::Packet(id, Mark::None);
        }
        if self.later.is_empty() {
            return Deq::Empty;
        }
        if now < self.gate {
            return Deq::NotBefore(self.gate);
        }
        Deq::Packet(self.later.pop().unwrap(), Mark::None)
    }
    fn backlog(&self) -> Backlog {
        let (a, b) = (self.now_q.backlog(), self.later.backlog());
        Backlog {
            bytes: a.bytes + b.bytes,
            pkts: a.pkts + b.pkts,
        }
    }
    fn peek_len(&self) -> Option<u32> {
        self.now_q.peek().or(self.later.peek()).map(|h| h.1)
    }
}

/// The network of `path()` alone, driven without a simulator: packets are handed to r0,
/// which forwards them onto `hop1`.
struct Bare {
    net: Network,
    pool: PacketPool,
    q: EventQueue<NetEv>,
    /// (arrival time at dst, DSCP)
    arrived: Vec<(SimTime, u8)>,
}

impl Bare {
    fn new(qdisc: Qdisc) -> Bare {
        let mut net = topology::build(&path(1_000_000_000));
        let port = net.port_by_name("hop1").unwrap();
        net.port_mut(port).qdisc = qdisc;
        Bare {
            net,
            pool: PacketPool::default(),
            q: EventQueue::new(),
            arrived: Vec::new(),
        }
    }

    fn send(&mut self, dscp: u8) {
        let mut p = Packet::blank();
        p.src = self.net.node_by_name("r0").unwrap();
        p.dst = self.net.node_by_name("dst").unwrap();
        p.size = 1500;
        p.dscp = dscp;
        let id = self.pool.alloc(p);
        let r0 = self.net.node_by_name("r0").unwrap();
        let mut cx = NetCtx {
            pool: &mut self.pool,
            q: &mut self.q,
            tap: &mut NoTap,
        };
        self.net.forward(r0, id, &mut cx);
    }

    fn run(&mut self, until: SimTime) {
        while let Some((t, ev)) = self.q.pop_until(until) {
            let mut cx = NetCtx {
                pool: &mut self.pool,
                q: &mut self.q,
                tap: &mut NoTap,
            };
            if let cclab::net::forward::NetOut::Deliver(_, id) = self.net.on_event(ev, &mut cx) {
                self.arrived.push((t, cx.pool.get(id).dscp));
                cx.pool.free(id);
            }
        }
    }
}

#[test]
fn a_class_that_drops_its_head_at_dequeue_does_not_strand_the_others() {
    // DRR between a class that drops everything at dequeue and a drop-tail class: the
    // drop-tail class's packets must still leave, in order.
    let classes = vec![
        Class {
            dscp: vec![1],
            q: Qdisc::Custom(Box::new(DropAll(Fifo::default()))),
            quantum: 1514,
            deficit: 0,
        },
        Class {
            dscp: vec![],
            q: Qdisc::DropTail(DropTail::new(Limit::Packets(100))),
            quantum: 1514,
            deficit: 0,
        },
    ];
    let mut b = Bare::new(Qdisc::Classes(Box::new(Classful::new(
        classes,
        Sched::Drr,
        None,
    ))));
    for d in [0, 1, 0] {
        b.send(d);
    }
    b.run(100 * MS);
    let p = &b.net.port(b.net.port_by_name("hop1").unwrap());
    assert_eq!(p.tx_pkts, 2, "both DSCP 0 packets sent");
    assert_eq!((p.stats.drops, p.qdisc.pkts()), (1, 0));
    assert_eq!(b.arrived.iter().filter(|a| a.1 == 0).count(), 2);
}

#[test]
fn a_packet_arriving_while_the_port_waits_for_not_before_is_offered_at_once() {
    // A gated packet makes the qdisc answer "not before 50 ms"; a packet that may leave
    // at once arrives at 1 ms and must not wait for the gate.
    let mut b = Bare::new(Qdisc::Custom(Box::new(Gate {
        now_q: Fifo::default(),
        later: Fifo::default(),
        gate: 50 * MS,
    })));
    b.send(1);
    b.run(MS);
    b.send(0);
    b.run(200 * MS);
    let at = |d: u8| b.arrived.iter().find(|a| a.1 == d).unwrap().0;
    // 1 ms + serialisation at 1 Gbit/s + 0.5 ms of propagation.
    assert!(
        at(0) < 2 * MS,
        "the ungated packet left at {} ms",
        secs(at(0)) * 1e3
    );
    // The gated one leaves at its time, not before, and is not lost to the superseded
    // wake-up.
    assert!(at(1) >= 50 * MS && at(1) < 52 * MS, "{}", secs(at(1)) * 1e3);
    assert_eq!(b.arrived.len(), 2);
}

#[test]
fn a_flow_whose_only_path_crosses_a_host_is_refused_with_its_key() {
    let text = r#"
[sim]
duration = "1s"
[topology]
kind = "graph"
hosts = ["a", "b", "c"]
links = [
  { from = "a", to = "b", rate = "1Gbps", delay = "1ms" },
  { from = "b", to = "c", rate = "1Gbps", delay = "1ms" },
]
[[flow]]
from = "a"
to = "b"
[[flow]]
from = "a"
to = "c"
"#;
    let sc = cclab::scenario::parse_scenario(text, "hosts.toml", &[]).unwrap();
    let e = Sim::new(&sc).err().expect("refused");
    assert!(
        e.starts_with("flow.1 (a → c): no route from a to c (hosts do not forward"),
        "{e}"
    );
}

/// `examples/dumbbell.toml`, as the CLI loads it.
fn example_dumbbell() -> cclab::scenario::Scenario {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    cclab::scenario::load_scenario(&std::path::Path::new(dir).join("dumbbell.toml"), &[]).unwrap()
}

/// A drop-tail or ECN port puts an admitted packet on the wire at once, with no event for
/// its transmitter (`Port::direct`). Where no two events share a picosecond (here: the
/// hosts' processing jitter), that is exactly the event-driven transmitter: every flow,
/// queue statistic, sampled series and host counter is the same, with fewer events.
#[test]
fn a_direct_port_sends_exactly_what_the_event_driven_transmitter_sends() {
    let mut sc = example_dumbbell();
    sc.duration = 4 * SEC;
    sc.output = OutputSpec {
        cwnd_interval: Some(10 * MS),
        queue_interval: Some(MS),
        throughput_interval: Some(100 * MS),
        ..OutputSpec::default()
    };
    let run = |events_only: bool| {
        let mut sim = Sim::new(&sc).unwrap();
        sim.net.no_direct = events_only;
        sim.run();
        (sim.results(), sim.q.events_processed())
    };
    let ((direct, ev_direct), (events, ev_events)) = (run(false), run(true));
    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }
    assert!(direct.flows[0].bytes > 100_000_000 && direct.queues.iter().any(|q| q.drops > 0));
    for (what, a, b) in [
        ("flows", json(&direct.flows), json(&events.flows)),
        ("queues", json(&direct.queues), json(&events.queues)),
        ("series", json(&direct.series), json(&events.series)),
        ("hosts", json(&direct.hosts), json(&events.hosts)),
    ] {
        assert_eq!(a, b, "{what} differ");
    }
    assert_eq!(direct.engine.packet_hops, events.engine.packet_hops);
    assert!(
        ev_direct * 10 < ev_events * 9,
        "{ev_direct} events vs {ev_events}"
    );
}

#[test]
fn a_port_that_stops_being_direct_between_runs_still_sends_what_it_admitted() {
    // Halfway through, with packets admitted to direct ports but not yet started, the
    // ports turn event-driven (as when a loss or a discipline is set between runs): those
    // packets still leave when they were to, so every flow's result and the packet-hops
    // are those of a run that was event-driven throughout.
    let mut sc = example_dumbbell();
    sc.duration = 2 * SEC;
    let mut whole = Sim::new(&sc).unwrap();
    whole.net.no_direct = true;
    whole.run();
    let mut switched = Sim::new(&sc).unwrap();
    switched.run_until(SEC + 123_456);
    let committed: usize = switched.net.ports().iter().map(|p| p.starts.len()).sum();
    assert!(committed > 0, "nothing was waiting to start at the switch");
    switched.net.no_direct = true;
    switched.run();
    assert!(switched
        .net
        .ports()
        .iter()
        .all(|p| !p.direct && p.starts.is_empty()));
    let (a, b) = (whole.results(), switched.results());
    assert_eq!(
        serde_json::to_string(&a.flows).unwrap(),
        serde_json::to_string(&b.flows).unwrap()
    );
    assert_eq!(a.engine.packet_hops, b.engine.packet_hops);
}
