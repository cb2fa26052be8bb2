use super::*;
use crate::engine::{EventQueue, MS, SEC, US};
use crate::net::{NetCtx, NetEv, NoTap, NodeKind};
use crate::packet::{Packet, PacketPool};
use crate::qdisc::linkrate::mahimahi::Trace;

#[derive(Clone, Copy)]
enum Ev {
    Net(NetEv),
    /// h0 hands packet i to its NIC.
    Send(usize),
}
impl From<NetEv> for Ev {
    fn from(e: NetEv) -> Ev {
        Ev::Net(e)
    }
}

/// h0 sends packets (IP length, time) over a link h0 → h1 with 10 ms of delay whose
/// deliveries come from `src` and whose queue is `queue`; returns (packet, time it left
/// h0's port) in the order they reach h1.
fn deliveries(
    src: &RateSource,
    queue: QueueSpec,
    sends: &[(u32, SimTime)],
) -> Vec<(usize, SimTime)> {
    let (got, _) = over_link(Some(src), queue, sends, &[]);
    got
}

/// [`deliveries`] over a 1 Gbit/s link (whose deliveries come from `src` if given) that
/// goes down and up at the times of `changes` (`topology.link.up`); also the drops of
/// h0's port.
fn over_link(
    src: Option<&RateSource>,
    queue: QueueSpec,
    sends: &[(u32, SimTime)],
    changes: &[(SimTime, bool)],
) -> (Vec<(usize, SimTime)>, u64) {
    let mut net = Network::default();
    let h0 = net.add_node("h0", NodeKind::Host);
    let h1 = net.add_node("h1", NodeKind::Host);
    let link = net.add_link("link", h0, h1, 1_000_000_000, 10 * MS, queue.build());
    net.add_link("link_rev", h1, h0, 1_000_000_000, 10 * MS, queue.build());
    net.finish();
    if let Some(src) = src {
        net.set_rate_source(link, src, Rng::new(1, 2));
    }
    let mut q = EventQueue::<Ev>::new();
    let changes = changes.iter().map(|&(at, up)| {
        let c = events::LinkChange {
            port: link,
            change: events::Change::Up(up),
            follow_up: false,
        };
        (at, c)
    });
    net.add_changes(changes.collect(), 1, &mut q);
    net.seal(0);
    assert!(
        !net.port(link).direct,
        "a trace-driven or changing port runs on events"
    );
    let mut pool = PacketPool::default();
    for (i, &(_, t)) in sends.iter().enumerate() {
        q.schedule(t, Ev::Send(i));
    }
    let mut tap = NoTap;
    let mut got = Vec::new();
    while let Some((now, ev)) = q.pop_until(SimTime::MAX) {
        let mut cx = NetCtx {
            pool: &mut pool,
            q: &mut q,
            tap: &mut tap,
        };
        match ev {
            Ev::Send(i) => {
                let mut p = Packet::blank();
                p.src = h0;
                p.dst = h1;
                p.size = sends[i].0;
                p.seq = i as u64;
                let id = cx.pool.alloc(p);
                net.egress(h0, id, &mut cx);
            }
            Ev::Net(e) => {
                if let crate::net::forward::NetOut::Deliver(_, id) = net.on_event(e, &mut cx) {
                    got.push((cx.pool.get(id).seq as usize, now - 10 * MS));
                    cx.pool.free(id);
                }
            }
        }
    }
    (got, net.port(link).stats.drops)
}

fn trace(text: &str) -> RateSource {
    let f = crate::schema::InputFile {
        value: "hand".into(),
        ..Default::default()
    };
    RateSource::Trace(f, Arc::new(Trace::parse(text).unwrap()))
}

/// A hand-written trace and what mm-link's `rationalize` does with it, worked by hand.
/// Opportunities (ms): 1, 1, 3, 6, then the trace again from 6: 7, 7, 9, 12, 13, …
/// Each carries 1504 bytes; a packet costs its IP length + 4.
/// - A (1500 B, at 0.5 ms) costs 1504: the first opportunity at 1 ms whole → 1 ms.
/// - B (100 B, at 0.5 ms) costs 104: the second opportunity at 1 ms; its other 1400
///   bytes are lost (nothing waits) → 1 ms.
/// - C (3000 B, at 2 ms) costs 3004: 1504 at 3 ms, 1500 at 6 ms → 6 ms, 4 bytes left.
/// - D (40 B, at 4 ms, queued behind C) costs 44: the 4 bytes left at 6 ms, 40 at the
///   first opportunity at 7 ms → 7 ms; 1464 bytes of it left.
/// - E (1000 B, at 6.5 ms) costs 1004, within those 1464 → 7 ms. The second opportunity
///   at 7 ms finds nothing: lost.
/// - F (1500 B, at 7 ms exactly): both 7-ms opportunities are spent before it is queued
///   (mm-link's `read_packet` rationalizes first) → 9 ms.
/// - G (1500 B, at 9 ms exactly): the 9-ms opportunity went to F before G came → 12 ms.
#[test]
fn a_port_on_a_hand_written_trace_delivers_what_mm_link_delivers() {
    let sends = [
        (1500, 500 * US),
        (100, 500 * US),
        (3000, 2 * MS),
        (40, 4 * MS),
        (1000, 6500 * US),
        (1500, 7 * MS),
        (1500, 9 * MS),
    ];
    let want = [
        (0, MS),
        (1, MS),
        (2, 6 * MS),
        (3, 7 * MS),
        (4, 7 * MS),
        (5, 9 * MS),
        (6, 12 * MS),
    ];
    let q = QueueSpec::droptail(Limit::Packets(100));
    assert_eq!(deliveries(&trace("1\n1\n3\n6\n"), q.clone(), &sends), want);
    // Any discipline in front: CoDel (its 5 ms target is never exceeded long enough
    // here) gives the same deliveries.
    let codel = QueueSpec::Codel(crate::qdisc::codel::Spec {
        params: crate::qdisc::codel::CodelParams::linux(false),
        limit: 100,
    });
    assert_eq!(deliveries(&trace("1\n1\n3\n6\n"), codel, &sends), want);
    // The queue's limit still holds in front of the link: with room for 1 packet, B
    // (queued behind A until the 1-ms opportunity) is dropped.
    let one = QueueSpec::droptail(Limit::Packets(1));
    let got = deliveries(&trace("1\n1\n3\n6\n"), one, &sends);
    assert!(!got.iter().any(|&(i, _)| i == 1), "{got:?}");
}

/// A saturated trace-driven link delivers one 1500-byte packet per line, at the lines'
/// times, period after period.
#[test]
fn a_saturated_link_uses_every_opportunity_of_the_looping_trace() {
    let sends: Vec<(u32, SimTime)> = (0..40).map(|_| (1500, 0)).collect();
    let got = deliveries(
        &trace("2\n2\n5\n10\n"),
        QueueSpec::droptail(Limit::Packets(100)),
        &sends,
    );
    let times: Vec<SimTime> = got.iter().map(|&(_, t)| t / MS).collect();
    let mut want = Vec::new();
    for k in 0..10 {
        for t in [2, 2, 5, 10] {
            want.push(10 * k + t);
        }
    }
    assert_eq!(times, want);
}

/// A scenario whose bottleneck's rate is `rate` (TOML), read as if from a file in `dir`.
fn scenario_with(dir: &Path, rate: &str) -> Result<crate::scenario::Scenario, String> {
    let text = format!(
        "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = {rate}, delay = \"10ms\" }}\n"
    );
    let file = dir.join("s.toml");
    crate::scenario::parse_scenario(&text, &file.to_string_lossy(), &[]).map_err(|e| {
        e.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The scenario whose bottleneck's rate is `rate` is refused with `want`, naming the file.
fn assert_refused(dir: &Path, rate: &str, want: &str) {
    let e = scenario_with(dir, rate).unwrap_err();
    assert!(e.contains(want), "{rate}: {e}");
    assert!(e.contains("s.toml"), "{e}");
}

/// Bad input names the file, the line and what it holds (exit 2 at the command line);
/// good input gives both directions their source and the link its mean rate.
#[test]
fn trace_files_are_read_relative_to_the_scenario_and_refused_with_their_line() {
    let dir = std::env::temp_dir().join(format!("cclab-dyn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ok.trace"), "1\n1\n2\n").unwrap();
    std::fs::write(dir.join("bad.trace"), "1\n2\nx3\n").unwrap();
    std::fs::write(dir.join("down.trace"), "5\n3\n").unwrap();
    std::fs::write(dir.join("empty.trace"), "").unwrap();
    let sc = scenario_with(&dir, "{ trace = \"ok.trace\" }").unwrap();
    let links: Vec<&str> = sc.link_rates.iter().map(|l| l.link.as_str()).collect();
    assert_eq!(links, ["bottleneck", "bottleneck_rev"]);
    // 3 lines per 2 ms: 18 Mbit/s; the dumbbell's access rate defaults to 10 × that.
    let crate::scenario::TopologySpec::Dumbbell {
        bottleneck,
        access_rate_bps,
        ..
    } = &sc.topology
    else {
        panic!()
    };
    assert_eq!(
        (bottleneck.rate_bps, *access_rate_bps),
        (18_000_000, 180_000_000)
    );
    for (rate, want) in [
        ("{ trace = \"missing.trace\" }", "missing.trace"),
        ("{ trace = \"bad.trace\" }", "bad.trace': line 3 (\"x3\")"),
        (
            "{ trace = \"down.trace\" }",
            "line 2 (\"3\"): timestamps must not decrease",
        ),
        ("{ trace = \"empty.trace\" }", "no timestamp"),
        (
            "{ trace = \"ok.trace\", reverse_trace = \"bad.trace\" }",
            "bottleneck.rate.reverse_trace",
        ),
        ("{ trace = \"ok.trace\", markov = {} }", "exactly one of"),
        (
            "{ markov = { good = \"1Mbps\", bad = \"0bps\", good_time = \"1s\" } }",
            "bad_time",
        ),
        (
            "{ onoff = { rate = \"1Mbps\", on = \"0s\", off = \"1s\" } }",
            "onoff.on",
        ),
    ] {
        assert_refused(&dir, rate, want);
    }
    // On a fat-tree's links (or a star's) a rate table is refused.
    let text = "[sim]\nduration = \"1s\"\n[topology]\nkind = \"fat-tree\"\nk = 4\nlink = { rate = { trace = \"ok.trace\" }, delay = \"1us\" }\n";
    let e = crate::scenario::parse_scenario(text, &dir.join("f.toml").to_string_lossy(), &[])
        .unwrap_err();
    assert!(e.iter().any(|e| e.key == "topology.link.rate"), "{e:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The run id covers the contents of the trace files a scenario reads: the same scenario
/// over two files that differ in one line has two ids (and so do the two directions'
/// files); the same contents under another name give the same id; a scenario that reads
/// no file keeps the id of its text and seed (the literal: `run_id` of
/// examples/rate_change.toml in run.json, written by the build before this change, 9080ead).
#[test]
fn the_run_id_covers_the_trace_files_contents() {
    let dir = std::env::temp_dir().join(format!("cclab-dyn-id-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.trace"), "1\n2\n3\n").unwrap();
    let id = |rate: &str| scenario_with(&dir, rate).unwrap().run_id();
    // Before each id, the file under that name is rewritten: one line differs.
    let with = |text: &str, rate: &str| {
        std::fs::write(dir.join("x.trace"), text).unwrap();
        id(rate)
    };
    let one = with("1\n2\n3\n", "{ trace = \"x.trace\" }");
    let other = with("1\n2\n4\n", "{ trace = \"x.trace\" }");
    assert_ne!(one, other);
    let renamed = with("1\n2\n3\n", "{ trace = \"a.trace\" }");
    // Another name is another text: another id (the text is hashed as written).
    assert_ne!(renamed, one);
    assert_eq!(with("1\n2\n3\n", "{ trace = \"x.trace\" }"), one);
    // The reverse direction's file counts too.
    let r1 = with(
        "1\n2\n3\n",
        "{ trace = \"a.trace\", reverse_trace = \"x.trace\" }",
    );
    let r2 = with(
        "1\n2\n4\n",
        "{ trace = \"a.trace\", reverse_trace = \"x.trace\" }",
    );
    assert_ne!(r1, r2);
    // No trace: the id of the text and seed alone, as before.
    let text = include_str!("../../../../../examples/rate_change.toml");
    let sc = crate::scenario::parse_scenario(text, "examples/rate_change.toml", &[]).unwrap();
    assert!(sc.inputs().is_empty());
    assert_eq!(sc.run_id(), "5438d18d55efd548");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Link down drops what the port's discipline holds back, as Linux's `qdisc_reset` does
/// when the carrier goes (`dev_deactivate`), not only what it would send now. Worked by
/// hand:
///
/// - A trace link with opportunities at 10 and 20 ms, repeating every 20 ms (30, 40, …).
///   A (3000 B at 1 ms) costs 3004 bytes: 1504 go at 10 ms, so at 15 ms A is in transit,
///   and B, C (1500 B at 2 and 3 ms) wait in the queue. Down at 15 ms: A, B and C are
///   dropped (3 drops; before, none was: the discipline answered "not before 20 ms" and
///   all three went on after the link came up). Up at 25 ms; D (1500 B at 26 ms) takes
///   the opportunity at 30 ms: the only delivery, leaving at 30 ms.
/// - A tbf of 1.2 Mbit/s and a 1600-byte bucket on a 1 Gbit/s link: of three 1500-byte
///   packets at 0, the first goes at once and empties the bucket to 100 bytes; the second
///   waits for 1400 bytes of tokens (9.3 ms). Down at 5 ms: the two held back are
///   dropped (2 drops). Up at 50 ms with a full bucket (`tbf_reset`): the fourth packet,
///   at 60 ms, goes at once. Delivered: 0 and 3.
#[test]
fn link_down_drops_what_a_shaper_or_trace_link_holds() {
    let fifo = QueueSpec::droptail(Limit::Packets(100));
    let sends = [
        (3000, US * 1000),
        (1500, 2 * MS),
        (1500, 3 * MS),
        (1500, 26 * MS),
    ];
    let (got, drops) = over_link(
        Some(&trace("10\n20\n")),
        fifo.clone(),
        &sends,
        &[(15 * MS, false), (25 * MS, true)],
    );
    assert_eq!((got, drops), (vec![(3, 30 * MS)], 3));
    let tbf = QueueSpec::tbf(1_200_000, 1600, fifo);
    let sends = [(1500, 0), (1500, 0), (1500, 0), (1500, 60 * MS)];
    let (got, drops) = over_link(None, tbf, &sends, &[(5 * MS, false), (50 * MS, true)]);
    let order: Vec<usize> = got.iter().map(|g| g.0).collect();
    assert_eq!((order, drops), (vec![0, 3], 2));
    // The fourth left at 60 ms: the bucket was full (the link's 1500 + 38 bytes of
    // Ethernet at 1 Gbit/s, 12.304 µs, on top).
    assert_eq!(got[1].1, 60 * MS + 12_304_000);
    // netem's delay line (`tfifo_reset`): two packets at 0 due at 20 ms are dropped at
    // 5 ms; one at 30 ms, after the link is up again, leaves at 50 ms.
    let netem = QueueSpec::delay(20 * MS, 100);
    let sends = [(1500, 0), (1500, 0), (1500, 30 * MS)];
    let (got, drops) = over_link(None, netem, &sends, &[(5 * MS, false), (25 * MS, true)]);
    assert_eq!((got, drops), (vec![(2, 50 * MS + 12_304_000)], 2));
}

/// A generated state that delivers must last, on average, one 1500-byte packet at its
/// rate: `onoff = { rate = "1bps", on = "200ms", … }` drew on-periods until one lasted
/// 12000 s (never; the run hung, or ended only when the state's end time wrapped around
/// u64), and 1 ps states at 12 Mbit/s drew 10⁹ states per delivery.
#[test]
fn generated_states_shorter_than_one_packet_are_refused() {
    let dir = std::env::temp_dir().join(format!("cclab-dyn-states-{}", std::process::id()));
    for (rate, want) in [
        (
            "{ onoff = { rate = \"1bps\", on = \"200ms\", off = \"20ms\" } }",
            "key 'topology.bottleneck.rate.onoff.on' = \"200ms\": shorter than one 1500-byte packet at rate = 1bps (12000s)",
        ),
        (
            "{ markov = { good = \"1bps\", bad = \"0bps\", good_time = \"1ms\", bad_time = \"1ms\", arrivals = \"even\" } }",
            "key 'topology.bottleneck.rate.markov.good_time' = \"1ms\": shorter than one 1500-byte packet at good = 1bps (12000s)",
        ),
        (
            "{ markov = { good = \"12Mbps\", bad = \"12Mbps\", good_time = \"1ps\", bad_time = \"999999ns\" } }",
            "key 'topology.bottleneck.rate.markov.bad_time' = \"999999ns\": shorter than one 1500-byte packet at bad = 12Mbps (1ms)",
        ),
    ] {
        assert_refused(&dir, rate, want);
    }
    let e = scenario_with(
        &dir,
        "{ markov = { good = \"12Mbps\", bad = \"12Mbps\", good_time = \"1ps\", bad_time = \"1ps\" } }",
    )
    .unwrap_err();
    assert!(
        e.contains("markov.good_time") && e.contains("markov.bad_time"),
        "{e}"
    );
    // One packet time exactly, and a silent state of any length, are accepted.
    for rate in [
        "{ markov = { good = \"12Mbps\", bad = \"0bps\", good_time = \"1ms\", bad_time = \"1ps\", arrivals = \"even\" } }",
        "{ onoff = { rate = \"12Mbps\", on = \"1ms\", off = \"1ps\" } }",
    ] {
        let sc = scenario_with(&dir, rate).unwrap_or_else(|e| panic!("{rate}: {e}"));
        let src = &sc.link_rates[0].source;
        // And the generator gets on: 1 s of such a link is drawn at once.
        let n = crate::qdisc::linkrate::count_opportunities(src, Rng::new(1, 0), 0, crate::engine::SEC);
        assert!(n > 0, "{rate}");
    }
}

/// A link down while PIE's update timer is due (`[[event]]` up = false at 450 ms, true at
/// 550 ms; PIE's first update comes at 500 ms): the timer goes on through the outage, as
/// Linux's does (the real qdisc keeps its `adapt_timer` behind `noop_qdisc`). The timer
/// used to be handed to the stand-in, which keeps none: PIE never updated again after
/// the link came back.
#[test]
fn a_qdisc_timer_survives_a_link_outage() {
    let mut net = Network::default();
    let h0 = net.add_node("h0", NodeKind::Host);
    let h1 = net.add_node("h1", NodeKind::Host);
    let link = net.add_link("link", h0, h1, 10_000_000, MS, QueueSpec::pie().build());
    net.add_link("link_rev", h1, h0, 10_000_000, MS, QueueSpec::pie().build());
    net.finish();
    let mut q = EventQueue::<Ev>::new();
    let change = |at: SimTime, up: bool| {
        (
            at,
            events::LinkChange {
                port: link,
                change: events::Change::Up(up),
                follow_up: false,
            },
        )
    };
    net.add_changes(
        vec![change(450 * MS, false), change(550 * MS, true)],
        1,
        &mut q,
    );
    net.seal(0);
    net.start_qdiscs(|p| Rng::new(1, p as u64), &mut q);
    let mut pool = PacketPool::default();
    let mut tap = NoTap;
    // Updates of the link's PIE (tupdate 15 ms from 500 ms): 500, 515, …, 995 ms.
    let mut updates = Vec::new();
    while let Some((now, ev)) = q.pop_until(SEC) {
        let Ev::Net(e) = ev else { unreachable!() };
        if let NetEv::QdiscTimer { port } = e {
            if port == link {
                updates.push(now);
            }
        }
        let mut cx = NetCtx {
            pool: &mut pool,
            q: &mut q,
            tap: &mut tap,
        };
        net.on_event(e, &mut cx);
    }
    let want: Vec<SimTime> = (0..34).map(|k| 500 * MS + k * 15 * MS).collect();
    assert_eq!(updates, want);
}
