//! The pcap output read back by tshark (Wireshark's dissectors and TCP analysis): a Reno
//! flow with SACK and ECN over a two-hop path whose bottleneck marks CE and loses packets
//! (injected drops of chosen segments, random loss, and the ECN queue's own drops of
//! Not-ECT packets), plus a ping. The captures at the data sender's host and at the
//! receiver's host must parse without a malformed packet or a bad checksum, and tshark's
//! counts of frames, retransmissions, duplicate ACKs and ECN marks must equal cclab's own
//! counters.
//!
//! Needs `tshark` on PATH (CI: `apt-get install -y tshark` in `.ci/run`); fails with a
//! message saying so when it is missing.
//!
//! The packets reach `net::pcap::Capture` the way the simulator's hook delivers them
//! (`Capture::on_tx` when a packet starts serialising on a port, `Capture::on_rx` when it
//! reaches a node), fed here by `WireTap`, which watches the links' wires between short
//! `run_until` steps. This needs no change to `sim.rs`; the `Sim::capture` hook, once
//! there, writes byte-identical files (checked when it was designed).

use cclab::engine::*;
use cclab::net::{NodeId, PortId, ETH_OVERHEAD};
use cclab::packet::{Packet, PktKind};
use cclab::probe::pcap::{Capture, CaptureStats, ConnPorts};
use cclab::scenario::*;
use cclab::sim::Sim;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A frame of a capture as the tap saw it: (retransmission?, packet kind, from the
/// connection's initiator?).
type Frame = (bool, PktKind, bool);

/// Feeds a `Capture` what the simulator's hook would: every packet that goes onto a wire of
/// a captured host's ports (at the start of its serialisation) and every packet that
/// arrives at a captured host (at its arrival). A packet is on its link's wire from the
/// start of its serialisation until its arrival, at least the link's delay, so stepping
/// the simulation by no more than the shortest delay of the watched links sees every one.
struct WireTap {
    /// (port, Some(host) = deliveries to that host / None = departures, last arrival seen).
    watched: Vec<(PortId, Option<NodeId>, SimTime)>,
    step: SimTime,
    /// Events found but not yet due: (time, discovery order, port or node, rx, packet).
    pending: Vec<(SimTime, u64, u32, bool, Packet)>,
    order: u64,
    /// For each captured host, its frames in file order.
    frames: Vec<(NodeId, Vec<Frame>)>,
}

impl WireTap {
    fn new(sim: &Sim, hosts: &[&str]) -> WireTap {
        let net = &sim.net;
        let mut watched = Vec::new();
        let mut frames = Vec::new();
        for h in hosts {
            let n = net.node_by_name(h).expect("a host");
            for (pid, p) in net.ports().iter().enumerate() {
                if p.node == n {
                    watched.push((pid as PortId, None, 0));
                }
                if p.peer == n {
                    watched.push((pid as PortId, Some(n), 0));
                }
            }
            frames.push((n, Vec::new()));
        }
        let step = watched
            .iter()
            .map(|w| net.port(w.0).delay)
            .min()
            .expect("watched links");
        assert!(step > 0);
        WireTap {
            watched,
            step,
            pending: Vec::new(),
            order: 0,
            frames,
        }
    }

    /// Run `sim` to its end, feeding `cap`.
    fn run(&mut self, sim: &mut Sim, cap: &mut Capture) {
        let end = sim.scenario.duration;
        let mut t = 0;
        loop {
            sim.run_until(t);
            self.poll(sim, cap, t);
            if t == end {
                break;
            }
            t = (t + self.step).min(end);
        }
    }

    fn poll(&mut self, sim: &Sim, cap: &mut Capture, now: SimTime) {
        for (port, host, last) in self.watched.iter_mut() {
            let pr = &sim.net.port(*port);
            let seen = *last;
            for (at, id) in sim.on_wire(*port).into_iter().filter(|w| w.0 > seen) {
                let p = sim.pool.get(id).clone();
                let (t, at_what, rx) = match host {
                    Some(n) => (at, *n, true),
                    None => {
                        let ser = tx_time((p.size + ETH_OVERHEAD) as u64, pr.rate_bps);
                        (at - pr.delay - ser, *port, false)
                    }
                };
                self.pending.push((t, self.order, at_what, rx, p));
                self.order += 1;
                *last = at;
            }
        }
        self.pending.sort_by_key(|e| (e.0, e.1));
        let due = self.pending.partition_point(|e| e.0 <= now);
        for (t, _, at_what, rx, p) in self.pending.drain(..due) {
            let node = if rx {
                cap.on_rx(t, at_what, &p);
                at_what
            } else {
                cap.on_tx(t, t, at_what, &p);
                sim.net.port(at_what).node
            };
            if let Some((_, f)) = self.frames.iter_mut().find(|f| f.0 == node) {
                if !rx || p.dst == node {
                    f.push((p.retrans, p.kind, p.from_client));
                }
            }
        }
    }

    fn frames(&self, host: NodeId) -> &[Frame] {
        &self.frames.iter().find(|f| f.0 == host).unwrap().1
    }
}

/// The client port of the one connection as text (the first ephemeral port, Linux's 32768).
const CLIENT_PORT: &str = "32768";

/// The ports, MSS, window scale and SACK of connection 0, as the simulator's hook sets them.
fn conn_ports(sim: &Sim) -> ConnPorts {
    let s = &sim.tcp(0).sender;
    ConnPorts::tcp(s.addr.sport, s.addr.dport, s.config())
}

fn scenario() -> Scenario {
    let topo = TopologySpec::path(
        100_000_000,
        20_000_000,
        10 * MS,
        QueueSpec::ecn(Limit::Packets(100), Limit::Packets(20)),
    );
    let mut sc = Scenario::new("pcap", topo, 4 * SEC);
    sc.seed = 7;
    // Exact timing: `WireTap` takes a packet's departure from when it appears on its
    // link's wire, which is when its serialisation starts only without the hosts'
    // processing jitter (with it, an idle NIC starts up to one jitter later).
    sc.host = HostSpec::EXACT;
    let tcp = TcpConfig {
        cc: "reno".into(),
        sack: true,
        ecn: true,
        dscp: 10,
        ..Default::default()
    };
    sc.add_default_flows(&tcp);
    sc.apps.flows[0].bytes = Some(3_000_000);
    sc.losses.push(LossSpec {
        link: "hop1".into(),
        rate: 0.003,
        drop_nth: vec![(0, 100), (0, 400), (0, 401), (0, 402)],
        every: 0,
    });
    sc.apps.pings.push(PingSpec {
        from: "src".into(),
        to: "dst".into(),
        start: 0,
        interval: 100 * MS,
        size: 84,
        ect: false,
        dscp: 0,
    });
    sc
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-pcap-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tshark(args: &[&str]) -> String {
    let out = match Command::new("tshark").args(args).output() {
        Ok(o) => o,
        Err(e) => panic!(
            "cannot run tshark ({e}): this test needs tshark on PATH \
             (Debian/Ubuntu: apt-get install -y tshark; CI's .ci/run installs it)"
        ),
    };
    assert!(
        out.status.success(),
        "tshark {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Frames of `file` matching display filter `filter`.
fn count(file: &Path, filter: &str) -> usize {
    let f = file.to_str().unwrap();
    tshark(&[
        "-n",
        "-r",
        f,
        "-Y",
        filter,
        "-T",
        "fields",
        "-e",
        "frame.number",
    ])
    .lines()
    .count()
}

/// One line per frame, the `fields` tab-separated (first occurrence each).
fn fields(file: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let f = file.to_str().unwrap();
    let mut args = vec![
        "-n",
        "-r",
        f,
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "ip.check_checksum:TRUE",
        "-T",
        "fields",
        "-E",
        "separator=/t",
        "-E",
        "occurrence=f",
    ];
    for x in fields {
        args.extend(["-e", x]);
    }
    tshark(&args)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Is tshark available? In CI (`CI` set, as `.ci/run` is run) it must be: `.ci/run` installs
/// it, and a missing tshark fails the test. On a developer machine without it the
/// cross-check is skipped with a message, so `cargo test` needs only the Rust toolchain.
fn have_tshark() -> bool {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "tshark is not on PATH but CI is set: .ci/run must install it (apt-get install -y tshark)"
        );
        eprintln!("SKIPPED pcap_read_by_tshark_agrees_with_cclab_counters: tshark not on PATH (apt-get install -y tshark)");
    }
    ok
}

#[test]
fn pcap_read_by_tshark_agrees_with_cclab_counters() {
    if !have_tshark() {
        return;
    }
    tshark(&["--version"]);
    let sc = scenario();
    let mut sim = Sim::new(&sc).unwrap();
    let dir = out_dir("tshark");
    let net = &sim.net;
    let src = net.node_by_name("src").unwrap();
    let mut cap = Capture::new(net);
    let file = |n: &str| dir.join(format!("{n}.pcap"));
    let open = |n: &str| -> Box<dyn std::io::Write + Send> {
        Box::new(std::io::BufWriter::new(
            std::fs::File::create(file(n)).unwrap(),
        ))
    };
    // The sender's host with the default snaplen; the receiver's host whole (1600 B), so
    // tshark can verify the checksums of full-size segments too.
    cap.add(net, "src", open("src"), 128).unwrap();
    cap.add(net, "dst", open("dst"), 1600).unwrap();
    cap.set_conn(0, conn_ports(&sim));
    let mut tap = WireTap::new(&sim, &["src", "dst"]);
    tap.run(&mut sim, &mut cap);
    let stats: Vec<(String, CaptureStats)> = cap.finish().unwrap();
    let st = |n: &str| stats.iter().find(|s| s.0 == n).unwrap().1.clone();
    let (st_src, st_dst) = (st("src"), st("dst"));

    let c = sim.tcp(0);
    let (s, r) = (&c.sender.stats, &c.receiver.stats);
    let port = |n: &str| sim.net.port(sim.net.port_by_name(n).unwrap());
    let (hop0, hop0_rev, hop1) = (port("hop0"), port("hop0_rev"), port("hop1"));
    let lost_on_hop1 = hop1.loss().unwrap().dropped;
    let res = sim.results();
    println!(
        "cclab: data_segs_out {} retrans_segs {} syn_retrans {} recoveries {} timeouts {} \
         dupacks(sender) {} ece_acks {} cwr_events {} | receiver: acks_sent {} ooo_segs_in {} \
         dup_segs_in {} ce_segs_in {} | hop1: marks {} drops {} injected losses {} | \
         pings {}/{}",
        s.data_segs_out,
        s.retrans_segs,
        s.syn_retrans,
        s.recoveries,
        s.timeouts,
        s.dupacks,
        s.ece_acks,
        s.cwr_events,
        r.acks_sent,
        r.ooo_segs_in,
        r.dup_segs_in,
        r.ce_segs_in,
        hop1.stats.marks,
        hop1.stats.drops,
        lost_on_hop1,
        res.app::<cclab::app::ping::PingResult>()[0].received,
        res.app::<cclab::app::ping::PingResult>()[0].sent,
    );
    println!("capture src: {st_src:?}\ncapture dst: {st_dst:?}");
    // The scenario exercises what it should.
    assert!(s.retrans_segs >= 4 && s.recoveries >= 1 && s.dupacks > 0);
    assert!(r.ce_segs_in > 0 && s.ece_acks > 0 && lost_on_hop1 >= 4);
    assert_eq!(sim.tcp(0).receiver.delivered_bytes, 3_000_000);

    let f_src = file("src");
    let f_dst = file("dst");
    for f in [&f_src, &f_dst] {
        let name = f.display();
        assert_eq!(count(f, "_ws.malformed"), 0, "{name}: malformed frames");
        assert_eq!(
            count(f, "_ws.expert.severity >= error"),
            0,
            "{name}: expert errors"
        );
        // Every segment after the SYN echoes a timestamp (RFC 7323 §3.2: TSecr is valid
        // whenever ACK is set).
        assert!(count(f, "tcp.flags.ack == 1 && tcp.options.timestamp.tsecr > 0") > 1000);
        assert_eq!(
            count(f, "tcp.flags.ack == 1 && tcp.options.timestamp.tsecr == 0"),
            0,
            "{name}: an ACK-bearing segment with TSecr = 0"
        );
        // tshark does not validate checksums by default; `fields` turns it on for IP
        // and TCP (ICMP is always checked). 0 = bad, 1 = good, 2 = not verifiable (cut).
        let rows = fields(
            f,
            &[
                "ip.checksum.status",
                "tcp.checksum.status",
                "icmp.checksum.status",
            ],
        );
        for (i, row) in rows.iter().enumerate() {
            assert!(
                row.iter().all(|x| x != "0") && row[0] == "1",
                "{name}: frame {}: checksum status {row:?}",
                i + 1
            );
        }
        if f == &f_dst {
            assert!(rows.iter().all(|r| r[1] != "2"), "whole frames verify");
        }
    }

    // --- The data sender's host. ---
    let rows = fields(
        &f_src,
        &[
            "frame.number",
            "tcp.srcport",
            "tcp.len",
            "tcp.flags.syn",
            "tcp.flags.ece",
            "tcp.flags.cwr",
            "ip.dsfield.ecn",
            "ip.dsfield.dscp",
            "tcp.analysis.retransmission",
            "tcp.analysis.out_of_order",
            "tcp.analysis.duplicate_ack",
            "icmp.type",
            "tcp.analysis.fast_retransmission",
        ],
    );
    let has = |r: &Vec<String>, i: usize| !r[i].is_empty();
    let from_client = |r: &Vec<String>| r[1] == CLIENT_PORT;
    let from_server = |r: &Vec<String>| r[1] == "5201";
    let n = |pred: &dyn Fn(&Vec<String>) -> bool| rows.iter().filter(|r| pred(r)).count() as u64;

    // Frames: everything the host sent onto hop0 and everything delivered to it by hop0_rev.
    assert_eq!(rows.len() as u64, st_src.packets);
    assert_eq!(st_src.packets, hop0.tx_pkts + hop0_rev.tx_pkts);
    // tshark's own totals: `-z io,stat,0` prints one row "| 0.000 <> 4.000 | frames | bytes |".
    let io = tshark(&["-n", "-r", f_src.to_str().unwrap(), "-q", "-z", "io,stat,0"]);
    let row: Vec<u64> = io
        .lines()
        .find(|l| l.contains("<>"))
        .expect("an io,stat row")
        .split('|')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    assert_eq!(row, [st_src.packets, st_src.bytes], "io,stat: {io}");
    assert_eq!(
        st_src.bytes,
        hop0.tx_bytes + hop0_rev.tx_bytes + 14 * st_src.packets
    );
    assert_eq!(
        n(&|r| from_client(r) && r[2] != "0"),
        s.data_segs_out,
        "data segments"
    );

    // Retransmissions. At the sender every segment below the highest sequence sent is a
    // retransmission; tshark names those that follow the highest segment within one
    // handshake RTT "out-of-order" instead, so both flags count. Frame by frame, they are
    // exactly the segments cclab sent as retransmissions.
    let ts_retrans: Vec<u64> = rows
        .iter()
        .filter(|r| from_client(r) && (has(r, 8) || has(r, 9)))
        .map(|r| r[0].parse().unwrap())
        .collect();
    let ours: Vec<u64> = tap
        .frames(src)
        .iter()
        .enumerate()
        .filter(|(_, f)| f.0)
        .map(|(i, _)| i as u64 + 1)
        .collect();
    assert_eq!(ts_retrans, ours, "retransmitted frames");
    assert_eq!(
        ts_retrans.len() as u64,
        s.retrans_segs + s.syn_retrans,
        "tshark retransmissions vs cclab retrans_segs + syn_retrans"
    );
    assert_eq!(st_src.retrans, s.retrans_segs + s.syn_retrans);
    println!(
        "tshark src: {} frames; {} retransmissions = {} 'retransmission' ({} of them 'fast \
         retransmission') + {} 'out-of-order'",
        rows.len(),
        ts_retrans.len(),
        n(&|r| from_client(r) && has(r, 8)),
        n(&|r| from_client(r) && has(r, 12)),
        n(&|r| from_client(r) && has(r, 9)),
    );

    // Duplicate ACKs: pure ACKs repeating the previous ACK number and window. cclab has
    // no counter of the duplicate ACKs the receiver sends; the capture tallies them by
    // that rule (`CaptureStats::dupacks`). They are of two kinds, each counted by cclab:
    // the immediate ACK for an out-of-order segment, carrying new SACK information — what
    // the SACK sender counts as a duplicate ACK (RFC 6675 §2, `SenderStats::dupacks`) —
    // and the immediate ACK for a segment wholly below rcv_nxt (a spurious
    // retransmission after the RTO; `ReceiverStats::dup_segs_in`).
    let ts_dup = n(&|r| from_server(r) && has(r, 10));
    println!("tshark src: {ts_dup} duplicate ACKs");
    assert_eq!(
        ts_dup, st_src.dupacks,
        "tshark vs capture tally of dup ACKs"
    );
    assert_eq!(ts_dup, st_dst.dupacks, "no ACK is lost on the way");
    assert_eq!(
        ts_dup,
        s.dupacks + r.dup_segs_in,
        "tshark dup ACKs vs sender dupacks + receiver duplicate segments"
    );

    // ECN: negotiated on the handshake; data ECT(0) except retransmissions (Not-ECT,
    // RFC 3168 §6.1.5); ECE on ACKs as the sender counted them; CWR after reductions.
    assert_eq!(
        n(&|r| r[3] == "1" && from_client(r) && r[4] == "1" && r[5] == "1"),
        1,
        "ECN-setup SYN"
    );
    assert_eq!(
        n(&|r| r[3] == "1" && from_server(r) && r[4] == "1" && r[5] == "0"),
        1,
        "ECN-setup SYN-ACK"
    );
    let ect_data = n(&|r| from_client(r) && r[2] != "0" && r[6] == "2");
    let not_ect_data = n(&|r| from_client(r) && r[2] != "0" && r[6] == "0");
    let ece_acks = n(&|r| from_server(r) && r[3] == "0" && r[4] == "1");
    let cwr = n(&|r| from_client(r) && r[3] == "0" && r[5] == "1");
    println!(
        "tshark src: ECT(0) data {ect_data}, Not-ECT data {not_ect_data}, ECE ACKs {ece_acks}, \
         CWR {cwr}"
    );
    assert_eq!(ect_data, s.data_segs_out - s.retrans_segs, "ECT(0) data");
    assert_eq!(not_ect_data, s.retrans_segs, "Not-ECT retransmissions");
    assert_eq!(ece_acks, s.ece_acks, "ECE ACKs");
    assert_eq!(cwr, st_src.cwr);
    assert!(cwr >= 1 && cwr <= s.cwr_events + s.timeouts, "CWR {cwr}");
    assert_eq!(
        n(&|r| has(r, 1) && r[7] == "10"),
        st_src.tcp_from_client + st_src.tcp_from_server
    );
    // The ping: requests out, replies in.
    assert_eq!(
        n(&|r| r[11] == "8"),
        res.app::<cclab::app::ping::PingResult>()[0].sent
    );
    assert_eq!(
        n(&|r| r[11] == "0"),
        res.app::<cclab::app::ping::PingResult>()[0].received
    );

    // --- The receiver's host: CE marks as it counted them, ECE on its ACKs. ---
    let rows = fields(
        &f_dst,
        &[
            "tcp.srcport",
            "tcp.len",
            "ip.dsfield.ecn",
            "tcp.flags.ece",
            "tcp.flags.syn",
        ],
    );
    assert_eq!(rows.len() as u64, st_dst.packets);
    let ce_data = rows
        .iter()
        .filter(|r| r[0] == CLIENT_PORT && r[1] != "0" && r[2] == "3")
        .count() as u64;
    assert_eq!(ce_data, r.ce_segs_in, "CE-marked data at the receiver");
    assert_eq!(ce_data, st_dst.ce);
    let acks = rows.iter().filter(|r| r[0] == "5201").count() as u64;
    assert_eq!(
        acks, r.acks_sent,
        "ACKs (and the SYN-ACK) the receiver sent"
    );
    let ece = rows
        .iter()
        .filter(|r| r[0] == "5201" && r[4] == "0" && r[3] == "1")
        .count() as u64;
    assert_eq!(ece, st_dst.ece);
    assert_eq!(ece, s.ece_acks, "no ACK is lost on the way");
    println!(
        "tshark dst: {} frames, CE data {ce_data}, ACKs {acks}, ECE {ece}",
        rows.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pcap_hook_writes_the_same_bytes_as_the_tap() {
    let sc = scenario();
    // Through the hook in sim.rs.
    let d1 = out_dir("hook");
    let mut sim = Sim::new(&sc).unwrap();
    sim.attach_pcap(&["src".into(), "dst".into(), "hop1".into()], &d1, 128)
        .unwrap();
    sim.run();
    let st_hook = sim.finish_pcap().unwrap();
    // Through the tap.
    let d2 = out_dir("tap");
    let mut sim2 = Sim::new(&sc).unwrap();
    let mut cap = Capture::new(&sim2.net);
    for n in ["src", "dst"] {
        let f = std::fs::File::create(d2.join(format!("{n}.pcap"))).unwrap();
        cap.add(&sim2.net, n, Box::new(std::io::BufWriter::new(f)), 128)
            .unwrap();
    }
    cap.set_conn(0, conn_ports(&sim2));
    let mut tap = WireTap::new(&sim2, &["src", "dst"]);
    tap.run(&mut sim2, &mut cap);
    let st_tap = cap.finish().unwrap();
    for n in ["src", "dst"] {
        let a = std::fs::read(d1.join(format!("{n}.pcap"))).unwrap();
        let b = std::fs::read(d2.join(format!("{n}.pcap"))).unwrap();
        assert_eq!(a.len(), b.len(), "{n}");
        assert!(a == b, "{n}: bytes differ");
    }
    println!("hook: {st_hook:?}\ntap: {st_tap:?}");
    let hop1 = &sim.net.port(sim.net.port_by_name("hop1").unwrap());
    assert_eq!(st_hook[2].1.packets, hop1.tx_pkts);
    assert_eq!(st_hook[2].1.ce, hop1.stats.marks);
    // Same simulation with or without capture.
    assert_eq!(
        format!("{:?}", sim.results().flows),
        format!("{:?}", sim2.results().flows)
    );
    for d in [&d1, &d2] {
        let _ = std::fs::remove_dir_all(d);
    }
}
