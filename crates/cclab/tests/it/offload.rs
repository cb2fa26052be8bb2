//! The host stack below TCP, from outside: segmentation offload puts an skb's segments on
//! the wire back to back, TCP small queues bound what a socket holds in its host, GRO
//! merges what arrives. Each check is a closed form of the Linux rule (docs/references.md §10).

use cclab::engine::*;
use cclab::scenario::*;
use cclab::sim::Sim;
use cclab::tcp::LIMIT_OUTPUT_BYTES;

/// src → r0 → dst: a first hop of `nic` (the sender's NIC) and a second of `bottleneck`,
/// 1 ms one way each, 1000-packet drop-tail queues.
fn path(nic: u64, bottleneck: u64) -> TopologySpec {
    TopologySpec::path(
        nic,
        bottleneck,
        MS,
        QueueSpec::droptail(Limit::Packets(1000)),
    )
}

fn bulk(sc: &mut Scenario) {
    sc.add_default_flows(&TcpConfig {
        sndbuf: 64 << 20,
        rcvbuf: 64 << 20,
        ..Default::default()
    });
}

/// TSQ: when the sender's own NIC is the bottleneck, an unpaced socket stops while it has
/// more than `tcp_limit_output_bytes` (1 MiB) in the host qdisc and NIC, so the host
/// queue never holds more than that plus the one skb sent when just under it (at most 45
/// segments of 1500 bytes). Without TSQ the same flow fills the host queue to its limit.
#[test]
fn tsq_bounds_what_a_socket_holds_in_its_host() {
    let run = |tsq: bool| {
        let mut sc = Scenario::new("tsq", path(1_000_000_000, 10_000_000_000), 2 * SEC);
        sc.host.tso = true;
        sc.host.tsq = tsq;
        bulk(&mut sc);
        let mut sim = Sim::new(&sc).unwrap();
        sim.run();
        let nic = sim.net.port_by_name("hop0").unwrap() as usize;
        let p = &sim.net.port(nic as u32);
        (
            p.stats.max_bytes,
            p.stats.drops,
            sim.results().flows[0].goodput_bps,
        )
    };
    let (with, drops, gbps) = run(true);
    assert!(
        with <= LIMIT_OUTPUT_BYTES + 45 * 1500,
        "host queue held {with} B with TSQ"
    );
    assert_eq!(drops, 0, "TSQ keeps the host queue from overflowing");
    // The NIC stays busy: goodput is the 1 Gbit/s line's TCP payload rate, 1448/1538 of
    // it (Ethernet framing 38 + headers 52 per 1448 B), less slow start's first RTTs.
    assert!(gbps > 0.9 * 1e9 * 1448.0 / 1538.0, "goodput {gbps}");
    let (without, _, _) = run(false);
    // 1000 packets of 1500 bytes: the queue limit, well above TSQ's bound.
    assert!(without > 1_400_000, "without TSQ {without} B");
}

/// TSQ behind a shaper in the host: a tbf at 100 Mbit/s holds the socket's packets while
/// the 1 Gbit/s NIC is mostly idle, so the socket stops with its bytes still in the qdisc
/// and none of them on the NIC (the NIC's list of sent packets is empty). It must be woken
/// as the first of them leaves the NIC, as Linux's `tcp_wfree` does; a socket woken only
/// by its ACKs (80 ms after) lets the shaper run dry (a lazy-release bug measured 0.875 of
/// the line here).
#[test]
fn tsq_wakes_a_socket_whose_bytes_wait_in_a_host_shaper() {
    let rate = 100_000_000;
    let topo = TopologySpec::path(
        1_000_000_000,
        10_000_000_000,
        20 * MS,
        QueueSpec::droptail(Limit::Packets(1000)),
    );
    let mut sc = Scenario::new("tsq-tbf", topo, 10 * SEC);
    sc.host.tsq = true;
    if let TopologySpec::Chain { hops } = &mut sc.topology {
        // A 10,000-packet child: only TSQ bounds what the qdisc holds.
        hops[0].queue = QueueSpec::tbf(rate, 3_000, QueueSpec::droptail(Limit::Packets(10_000)));
    }
    bulk(&mut sc);
    let mut sim = Sim::new(&sc).unwrap();
    sim.run();
    let nic = sim.net.port_by_name("hop0").unwrap() as usize;
    let st = &sim.net.port(nic as u32).stats;
    assert_eq!(st.drops, 0);
    // Everything the socket holds is in the qdisc (the NIC sends each packet in 12 µs of
    // the shaper's 120): at most TSQ's limit (`tcp_limit_output_bytes`, or less: about
    // 1 ms at the pacing rate) plus the one packet sent when just under it.
    assert!(
        st.max_bytes <= LIMIT_OUTPUT_BYTES + 1500,
        "host qdisc held {} B",
        st.max_bytes
    );
    // The shaper stays busy: goodput is its rate's TCP payload, 1448 of each 1500-byte IP
    // packet tbf counts, less slow start (the 80 ms RTT's 1 MB BDP is ~690 packets,
    // reached from 10 in ~6 RTTs, 0.5 s at under half the rate: at most 5% of 10 s).
    let g = sim.results().flows[0].goodput_bps;
    let line = rate as f64 * 1448.0 / 1500.0;
    assert!(g > 0.95 * line && g < 1.01 * line, "goodput {g} vs {line}");
}

/// TSO: a socket with a large window on a 10 Gbit/s NIC sends 45-segment skbs (64 KB at
/// MSS 1448, `tcp_tso_autosize`'s cap); the NIC cuts them, so every packet on the wire is
/// at most one MTU, and the receiving host with GRO sees aggregates again.
#[test]
fn tso_aggregates_leave_as_segments_and_gro_merges_them() {
    let mut sc = Scenario::new("tso", path(10_000_000_000, 10_000_000_000), SEC);
    sc.host.tso = true;
    sc.host.gro = true;
    bulk(&mut sc);
    let mut sim = Sim::new(&sc).unwrap();
    sim.run();
    let r = sim.results();
    let f = &r.flows[0];
    assert!(f.goodput_bps > 1e9, "the flow ran: {}", f.goodput_bps);
    let hop1 = sim.net.port_by_name("hop1").unwrap() as usize;
    let p = &sim.net.port(hop1 as u32);
    // Every packet on the second hop is a single segment of at most 1500 bytes.
    assert!(p.tx_bytes <= p.tx_pkts * 1500);
    assert!(p.tx_pkts as f64 > f.bytes as f64 / 1448.0 * 0.99);
    // GRO: the receiver acknowledges aggregates (more than one full segment each, so at
    // once), not every second segment: far fewer ACKs than data segments / 2.
    let rev = sim.net.port_by_name("hop1_rev").unwrap() as usize;
    let acks = sim.net.port(rev as u32).tx_pkts;
    assert!(
        (acks as f64) < p.tx_pkts as f64 / 4.0,
        "{acks} ACKs for {} segments",
        p.tx_pkts
    );
}

/// Local congestion (Linux `tcp_transmit_skb`: NET_XMIT_DROP → `tcp_enter_cwr`, the skb
/// stays unsent): when the sender's own NIC is the bottleneck and its queue fills, nothing
/// is dropped and nothing retransmitted; the sender reduces cwnd (CWR) instead, and the
/// NIC stays busy. With `local_cwr = false` the same queue drops and TCP recovers losses.
#[test]
fn local_congestion_holds_segments_instead_of_dropping_them() {
    struct Out {
        drops: u64,
        max: u64,
        rtx: u64,
        local: u64,
        goodput: f64,
    }
    let run = |local: bool| {
        let mut sc = Scenario::new("local", path(100_000_000, 10_000_000_000), 4 * SEC);
        sc.host.local_cwr = local;
        if let TopologySpec::Chain { hops } = &mut sc.topology {
            hops[0].queue = QueueSpec::droptail(Limit::Packets(100));
        }
        bulk(&mut sc);
        let mut sim = Sim::new(&sc).unwrap();
        sim.run();
        let nic = sim.net.port_by_name("hop0").unwrap() as usize;
        let st = &sim.net.port(nic as u32).stats;
        let s = &sim.tcp(0).sender.stats;
        Out {
            drops: st.drops,
            max: st.max_pkts,
            rtx: s.retrans_segs,
            local: s.local_drops,
            goodput: sim.results().flows[0].goodput_bps,
        }
    };
    let o = run(true);
    assert_eq!(o.drops, 0, "the host queue never drops");
    assert_eq!(o.max, 100, "it fills to its limit");
    assert_eq!(o.rtx, 0, "no segment is lost, none retransmitted");
    assert!(o.local > 0, "the sender met a full queue");
    // The 100 Mbit/s NIC is busy from the first RTTs on: TCP's payload share 1448/1538,
    // less the first few RTTs of slow start (4 ms each) over 4 s.
    let line = 100e6 * 1448.0 / 1538.0;
    assert!(o.goodput > 0.97 * line, "goodput {} of {line}", o.goodput);
    let o = run(false);
    assert!(
        o.drops > 0 && o.rtx > 0,
        "without it the queue drops ({}) and TCP retransmits ({})",
        o.drops,
        o.rtx
    );
    assert_eq!(o.local, 0);
}

/// IPG-1 and IPG-2 by hand (docs/references.md §12): e1000's IPGT in byte times, plus the 4 the
/// MAC adds, replaces Ethernet's 12-byte gap. A 1500-byte IP packet on GbE then takes
/// (1500 + 26 + IPGT + 4) byte times: 12,304 ns at IPGT 8, 16,336 ns at 512 and 20,424 ns
/// at 1023, so TCP's 1448 payload bytes per frame give 941.5, 709.1 and 567.2 Mbit/s. The
/// gap belongs to the NIC: every host port gets it, one flow or many.
#[test]
fn ipg_stretches_every_frame_of_the_nic() {
    for (ipgt, ns, mbps) in [
        (8u32, 12_304u64, 941.5),
        (512, 16_336, 709.1),
        (1023, 20_424, 567.2),
    ] {
        let mut sc = Scenario::new("ipg", path(1_000_000_000, 1_000_000_000), SEC);
        sc.host.ipgt = ipgt;
        bulk(&mut sc);
        let sim = Sim::new(&sc).unwrap();
        let nic = &sim.net.port(sim.net.port_by_name("hop0").unwrap());
        assert_eq!(nic.ser_time(1500), ns * 1000, "IPGT {ipgt}");
        let model = 1448.0 * 8.0 / ns as f64 * 1e3;
        assert!((model - mbps).abs() < 0.05, "IPGT {ipgt}: {model}");
    }
}
