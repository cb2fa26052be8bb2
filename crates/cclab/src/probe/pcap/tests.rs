//! Unit tests of `probe::pcap`: header and frame bytes of the writer, and the capture
//! points (taps, tallies, opening files).

use super::writer::{fold, sum16};
use super::*;
use crate::net::topology::spec::TopologySpec;
use crate::packet::{Packet, PktKind, ACK, CE, CWR, ECE, ECT0, PSH, SYN};
use std::io::{self, Write};

fn tcp(from_client: bool, flags: u8, seq: u64, ack: u64, payload: u32, opt: u32) -> Packet {
    let mut p = Packet::blank();
    p.kind = PktKind::Tcp;
    (p.src, p.dst) = if from_client { (0, 1) } else { (1, 0) };
    p.conn = 3;
    p.from_client = from_client;
    p.flags = flags;
    p.seq = seq;
    p.ack = ack;
    p.payload = payload;
    p.size = 40 + opt + payload;
    p.rwnd = 1 << 20;
    p.tsval = 5 * crate::engine::MS;
    p.tsecr = 2 * crate::engine::MS;
    p
}

fn one(p: &Packet, snaplen: u32) -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new(), snaplen).unwrap();
    w.write(1_500_000_000_123_456, p).unwrap();
    assert_eq!(w.records(), 1);
    w.into_inner().unwrap()
}

fn u16be(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn u32be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}
fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn global_header_bytes() {
    let w = PcapWriter::new(Vec::new(), DEFAULT_SNAPLEN).unwrap();
    assert_eq!(
        w.get_ref().as_slice(),
        &[
            0x4d, 0x3c, 0xb2, 0xa1, // magic, nanosecond timestamps
            2, 0, 4, 0, // version 2.4
            0, 0, 0, 0, // thiszone
            0, 0, 0, 0, // sigfigs
            128, 0, 0, 0, // snaplen
            1, 0, 0, 0, // LINKTYPE_ETHERNET
        ]
    );
    assert!(PcapWriter::new(Vec::new(), 0).is_err());
    assert!(PcapWriter::new(Vec::new(), MAX_SNAPLEN + 1).is_err());
}

#[test]
fn record_header_ip_header_and_checksums() {
    let mut p = tcp(true, ACK | PSH | CWR, 1 + 1448 * 7, 1, 1448, 12);
    p.ecn = ECT0;
    p.dscp = 46;
    let b = one(&p, 65_535);
    let r = &b[24..];
    // 1500.000123456 s: seconds and nanoseconds; caplen = len = 14 + 1500.
    assert_eq!(u32le(r, 0), 1500);
    assert_eq!(u32le(r, 4), 123);
    assert_eq!(u32le(r, 8), 1514);
    assert_eq!(u32le(r, 12), 1514);
    let f = &r[16..];
    assert_eq!(f.len(), 1514);
    assert_eq!(&f[0..6], &[2, 0, 0, 0, 0, 1]);
    assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 0]);
    assert_eq!(u16be(f, 12), 0x0800);
    let ip = &f[14..34];
    assert_eq!(ip[0], 0x45);
    assert_eq!(ip[1], 46 << 2 | ECT0);
    assert_eq!(u16be(ip, 2), 1500);
    assert_eq!(u16be(ip, 6), 0x4000);
    assert_eq!((ip[8], ip[9]), (64, 6));
    assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
    assert_eq!(&ip[16..20], &[10, 0, 0, 2]);
    // The header with its checksum sums to 0xffff (checksum 0).
    assert_ne!(u16be(ip, 10), 0);
    assert_eq!(fold(sum16(ip)), 0);
    assert_eq!(sum16(ip) % 0xffff, 0);
    // TCP: ports, 32-bit seq, data offset 8 words, flags, scaled window.
    let t = &f[34..];
    assert_eq!(u16be(t, 0), 10003);
    assert_eq!(u16be(t, 2), 5201);
    assert_eq!(u32be(t, 4), CLIENT_ISN + 1 + 1448 * 7);
    assert_eq!(u32be(t, 8), SERVER_ISN + 1);
    assert_eq!(t[12] >> 4, 8);
    assert_eq!(t[13], ACK | PSH | CWR);
    assert_eq!(
        u16be(t, 14),
        (1 << 20 >> 7) as u16,
        "default rcvbuf: wscale 7"
    );
    // NOP NOP TS with microsecond ticks.
    assert_eq!(&t[20..24], &[1, 1, 8, 10]);
    assert_eq!(u32be(t, 24), 5000 + CLIENT_TS_OFFSET);
    assert_eq!(u32be(t, 28), 2000 + SERVER_TS_OFFSET);
    // TCP checksum over pseudo-header + segment verifies.
    let s = sum16(&ip[12..20]) + 6 + 1480 + sum16(t);
    assert_eq!(fold(s), 0);
    // The IP ID is the one the sending socket gave the packet.
    p.ip_id = 0xbeef;
    assert_eq!(u16be(&one(&p, 65_535), 24 + 16 + 18), 0xbeef);
}

#[test]
fn syn_carries_mss_sackok_timestamps_and_wscale() {
    let mut p = tcp(true, SYN | ECE | CWR, 0, 0, 0, 20);
    p.rwnd = 0;
    p.tsecr = 0;
    let b = one(&p, DEFAULT_SNAPLEN);
    let t = &b[24 + 16 + 34..];
    assert_eq!(t.len(), 40);
    assert_eq!(t[12] >> 4, 10);
    assert_eq!(t[13], SYN | ECE | CWR);
    assert_eq!(u32be(t, 4), CLIENT_ISN);
    assert_eq!(u32be(t, 8), 0, "no ACK flag, no ack number");
    assert_eq!(u16be(t, 14), 0xffff, "unscaled window on a SYN");
    assert_eq!(
        &t[20..40],
        &[
            2, 4, 0x05, 0xb4, // MSS 1460
            4, 2, // SACK permitted
            8, 10, 1, 0, 0x13, 0x88, 0, 0, 0, 0, // TS 5000 + offset, 0
            1, 3, 3, 7, // NOP, window scale 7
        ]
    );
    // SYN-ACK from the listener: its own ISN, acks the client's ISN + 1.
    let mut sa = tcp(false, SYN | ACK | ECE, 0, 1, 0, 20);
    sa.rwnd = 6 << 20;
    let b = one(&sa, DEFAULT_SNAPLEN);
    let t = &b[24 + 16 + 34..];
    assert_eq!((u16be(t, 0), u16be(t, 2)), (5201, 10003));
    assert_eq!(u32be(t, 4), SERVER_ISN);
    assert_eq!(u32be(t, 8), CLIENT_ISN + 1);
    assert_eq!(u16be(t, 14), 0xffff);
    assert_eq!(&t[20..24], &[2, 4, 0x05, 0xb4]);
    assert_eq!(&t[36..40], &[1, 3, 3, 7]);
    // Its TSecr echoes the client's clock, offset included.
    assert_eq!(u32be(t, 32), 2000 + CLIENT_TS_OFFSET);
}

#[test]
fn sack_blocks_map_to_32_bits_and_window_scales() {
    let mut a = tcp(false, ACK | ECE, 1, 5_000_000_001, 0, 12 + 4 + 16);
    a.ecn = CE;
    a.nsack = 2;
    a.sack[0] = (5_000_002_897, 5_000_004_345);
    a.sack[1] = (u32::MAX as u64 + 10, u32::MAX as u64 + 20);
    a.rwnd = 3 << 20;
    let b = one(&a, DEFAULT_SNAPLEN);
    let f = &b[24 + 16..];
    assert_eq!(f[15] & 3, CE);
    let t = &f[34..];
    assert_eq!(t[12] >> 4, 13);
    assert_eq!(u16be(t, 14), (3 << 20 >> 7) as u16);
    assert_eq!(
        u32be(t, 8),
        (5_000_000_001u64 as u32).wrapping_add(CLIENT_ISN)
    );
    assert_eq!(&t[32..36], &[1, 1, 5, 18]);
    assert_eq!(
        u32be(t, 36),
        (5_000_002_897u64 as u32).wrapping_add(CLIENT_ISN)
    );
    assert_eq!(
        u32be(t, 40),
        (5_000_004_345u64 as u32).wrapping_add(CLIENT_ISN)
    );
    assert_eq!(u32be(t, 44), 9u32.wrapping_add(CLIENT_ISN));
    assert_eq!(u32be(t, 48), 19u32.wrapping_add(CLIENT_ISN));
    let s = sum16(&f[26..34]) + 6 + 52 + sum16(t);
    assert_eq!(fold(s), 0);
}

#[test]
fn caplen_truncates_to_snaplen_and_keeps_wire_length() {
    let p = tcp(true, ACK | PSH, 1, 1, 1448, 12);
    let b = one(&p, DEFAULT_SNAPLEN);
    assert_eq!(b.len(), 24 + 16 + 128);
    assert_eq!(u32le(&b, 24 + 8), 128);
    assert_eq!(u32le(&b, 24 + 12), 1514);
    assert!(b[24 + 16 + 66..].iter().all(|&x| x == 0), "zero payload");
    // Shorter than the snaplen: stored whole.
    let a = tcp(false, ACK, 1, 1449, 0, 12);
    let b = one(&a, DEFAULT_SNAPLEN);
    assert_eq!((u32le(&b, 32), u32le(&b, 36)), (66, 66));
    assert_eq!(b.len(), 24 + 16 + 66);
    // Shorter than the headers: cut inside them.
    let b = one(&p, 40);
    assert_eq!((u32le(&b, 32), u32le(&b, 36)), (40, 1514));
    assert_eq!(b.len(), 24 + 16 + 40);
}

#[test]
fn icmp_echo_and_request_headers() {
    let mut p = Packet::blank();
    p.kind = PktKind::Ping;
    (p.src, p.dst, p.conn, p.seq, p.size) = (0, 1, 2, 70_001, 84);
    let b = one(&p, DEFAULT_SNAPLEN);
    let f = &b[24 + 16..];
    assert_eq!(f.len(), 98);
    assert_eq!(f[23], 1);
    let ic = &f[34..];
    assert_eq!((ic[0], ic[1]), (8, 0));
    assert_eq!((u16be(ic, 4), u16be(ic, 6)), (2, 70_001u64 as u16));
    assert_eq!(inet_checksum(ic), 0);
    p.kind = PktKind::Pong;
    let b = one(&p, DEFAULT_SNAPLEN);
    assert_eq!(b[24 + 16 + 34], 0);
    assert_eq!(inet_checksum(&b[24 + 16 + 34..]), 0);
    p.kind = PktKind::Request;
    p.from_client = false;
    p.size = 100;
    let b = one(&p, DEFAULT_SNAPLEN);
    let f = &b[24 + 16..];
    assert_eq!(f[23], 17);
    assert_eq!(
        (u16be(f, 34), u16be(f, 36), u16be(f, 38)),
        (5201, 10002, 80)
    );
    let s = sum16(&f[26..34]) + 17 + 80 + sum16(&f[34..]);
    assert_eq!(fold(s), 0);
}

/// Ouroboros flow packets go out as the prototype's Ethernet DIX IPCP frames them
/// (`writer::flow_frame`): ethertype 0xA000, endpoint id and length, the 15-byte PCI with
/// the ECN octet, then the SDU; a FLOW_UPDATE carries its `fa_msg` with code 2 and ECE.
#[test]
fn flow_packets_are_ouroboros_frames() {
    use crate::flow::endpoint::{FLOW_HDR, FLOW_UPDATE};
    let mut p = Packet::blank();
    p.kind = PktKind::Flow;
    (p.src, p.dst, p.conn, p.size, p.payload, p.cong) = (0, 2, 4, 1000 + FLOW_HDR, 1000, 7);
    let b = one(&p, DEFAULT_SNAPLEN);
    let f = &b[24 + 16..];
    assert_eq!(
        u32le(&b, 24 + 12),
        1033,
        "14 + 4 + 15 + 1000 bytes on the wire"
    );
    assert_eq!(u16be(f, 12), 0xA000);
    assert_eq!((u16be(f, 14), u16be(f, 16)), (5, 1015));
    assert_eq!(u32be(f, 18), 3);
    assert_eq!((f[22], f[23], f[24]), (0, 60, 7));
    assert_eq!(&f[25..33], &5u64.to_be_bytes());
    p.flags = FLOW_UPDATE;
    (p.src, p.dst, p.size, p.payload, p.ack) = (2, 0, 56 + FLOW_HDR, 0, 288);
    let b = one(&p, DEFAULT_SNAPLEN);
    let f = &b[24 + 16..];
    assert_eq!(f.len(), 14 + 75);
    assert_eq!(&f[25..33], &0u64.to_be_bytes(), "to the flow allocator");
    assert_eq!((f[33 + 24], u16be(f, 33 + 26)), (2, 288));
}

#[test]
fn capture_taps_hosts_and_links_and_tallies_dupacks() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let spec = TopologySpec::path(
        1_000_000_000,
        100_000_000,
        crate::engine::MS,
        crate::qdisc::QueueSpec::droptail(crate::schema::Limit::Packets(10)),
    );
    let net = crate::net::topology::build(&spec);
    let src = net.node_by_name("src").unwrap();
    let hop0 = net.port_by_name("hop0").unwrap();
    let hop1 = net.port_by_name("hop1").unwrap();
    let mut cap = Capture::new(&net);
    let (a, b) = (Shared::default(), Shared::default());
    cap.add(&net, "src", Box::new(a.clone()), 96).unwrap();
    cap.add(&net, "hop1", Box::new(b.clone()), 96).unwrap();
    assert!(cap.add(&net, "src", Box::new(io::sink()), 96).is_err());
    assert!(cap.add(&net, "r0", Box::new(io::sink()), 96).is_err());
    assert!(Capture::resolve(&net, "nowhere")
        .unwrap_err()
        .contains("hop0_rev"));
    let dst = net.node_by_name("dst").unwrap();
    let mut d = tcp(true, ACK | PSH, 1, 1, 1448, 12);
    (d.src, d.dst) = (src, dst);
    cap.on_tx(10, 10, hop0, &d); // src host
    d.seq += 1448;
    cap.on_tx(20, 20, hop0, &d);
    cap.on_tx(30, 30, hop1, &d); // link
    cap.on_rx(40, net.port(hop0).peer, &d); // router: not a destination
    let mut ack = tcp(false, ACK, 1, 1449, 0, 12);
    (ack.src, ack.dst) = (dst, src);
    for t in [50, 60, 70] {
        cap.on_rx(t, src, &ack);
    }
    ack.ack = 2897;
    cap.on_rx(80, src, &ack);
    let s = cap.stats("src").unwrap().clone();
    assert_eq!((s.packets, s.tcp_from_client, s.tcp_from_server), (6, 2, 4));
    assert_eq!(s.dupacks, 2);
    assert_eq!(cap.stats("hop1").unwrap().packets, 1);
    let out = cap.finish().unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(a.0.lock().unwrap().len(), 24 + 6 * 16 + 2 * 96 + 4 * 66);
    assert_eq!(b.0.lock().unwrap().len(), 24 + 16 + 96);
}

#[test]
fn open_checks_every_name_before_creating_files() {
    let spec = TopologySpec::path(
        1_000_000_000,
        100_000_000,
        crate::engine::MS,
        crate::qdisc::QueueSpec::droptail(crate::schema::Limit::Packets(10)),
    );
    let net = crate::net::topology::build(&spec);
    let dir = std::env::temp_dir().join(format!("cclab-pcap-open-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for bad in [&["src", "r0"][..], &["src", "nowhere"], &["hop1", "hop1"]] {
        assert!(Capture::open(&net, &names(bad), &dir, DEFAULT_SNAPLEN).is_err());
        assert!(!dir.exists(), "{bad:?}: nothing created");
    }
    let c = Capture::open(&net, &names(&["src", "hop1"]), &dir, DEFAULT_SNAPLEN).unwrap();
    let files: Vec<_> = c.points().map(|p| p.2.unwrap().to_path_buf()).collect();
    assert_eq!(files, [dir.join("src.pcap"), dir.join("hop1.pcap")]);
    assert_eq!(c.finish().unwrap().len(), 2);
    for f in files {
        assert_eq!(std::fs::read(f).unwrap(), global_header(DEFAULT_SNAPLEN));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One decoded TCP frame of a capture: the fields these tests look at.
#[derive(Debug)]
struct Seg {
    /// Last octet of the source address (node + 1).
    src: u8,
    ip_id: u16,
    flags: u8,
    win: u16,
    /// TCP options as (kind, data), NOPs left out.
    opts: Vec<(u8, Vec<u8>)>,
}

impl Seg {
    fn opt(&self, kind: u8) -> Option<&[u8]> {
        self.opts
            .iter()
            .find(|o| o.0 == kind)
            .map(|o| o.1.as_slice())
    }
}

/// The TCP frames of a whole pcap file (global header, then records), decoded from the
/// bytes as a reader would: Ethernet, IPv4 (IHL 5), TCP header and options.
fn decode(file: &[u8]) -> Vec<Seg> {
    assert_eq!(u32le(file, 0), PCAP_MAGIC_NS);
    let mut at = 24;
    let mut out = Vec::new();
    while at < file.len() {
        let caplen = u32le(file, at + 8) as usize;
        let f = &file[at + 16..at + 16 + caplen];
        at += 16 + caplen;
        assert_eq!(u16be(f, 12), 0x0800);
        let ip = &f[14..];
        assert_eq!(u16be(ip, 6), 0x4000, "DF");
        if ip[9] != 6 {
            continue;
        }
        let t = &ip[20..];
        let hl = (t[12] >> 4) as usize * 4;
        let (mut o, mut opts) = (20, Vec::new());
        while o < hl {
            match t[o] {
                0 => break,
                1 => o += 1,
                k => {
                    let l = t[o + 1] as usize;
                    assert!(l >= 2 && o + l <= hl, "option {k} fits its header");
                    opts.push((k, t[o + 2..o + l].to_vec()));
                    o += l;
                }
            }
        }
        out.push(Seg {
            src: ip[15],
            ip_id: u16be(ip, 4),
            flags: t[13],
            win: u16be(t, 14),
            opts,
        });
    }
    out
}

/// Window scale: Linux 6.6 `tcp_select_initial_window` for `tcp_rmem[2]` = rcvbuf:
/// clamp(ilog2(max(rcvbuf, rmem_max = 212,992)) − 15, 0, 14), worked out by hand here:
/// 64 KiB → ilog2(212,992) = 17 → 2; 6 MiB = 6,291,456 → 22 → 7 (Linux's usual 7);
/// 16 MiB → 24 → 9; 2 GiB → clamped to 65,535 << 14 → 29 → 14.
#[test]
fn syn_window_scale_follows_linux_for_the_receive_buffer() {
    for (rcvbuf, ws) in [
        (64u64 << 10, 2u8),
        (6 << 20, 7),
        (16 << 20, 9),
        (2 << 30, 14),
    ] {
        let cfg = crate::tcp::config::TcpConfig {
            rcvbuf,
            ..Default::default()
        };
        let cp = ConnPorts::tcp(40000, 5201, &cfg);
        assert_eq!(cp.wscale, ws, "rcvbuf {rcvbuf}");
        let mut w = PcapWriter::new(Vec::new(), DEFAULT_SNAPLEN).unwrap();
        w.set_conn(3, cp);
        let mut syn = tcp(true, SYN, 0, 0, 0, 20);
        syn.rwnd = 0;
        let mut synack = tcp(false, SYN | ACK, 0, 1, 0, 20);
        synack.rwnd = rcvbuf;
        let mut ack = tcp(false, ACK, 1, 1449, 0, 12);
        ack.rwnd = rcvbuf - 1448;
        let mut data = tcp(true, ACK | PSH, 1, 1, 1448, 12);
        data.rwnd = 0; // the data sender receives nothing: its window is its buffer
        for p in [&syn, &synack, &ack, &data] {
            w.write(0, p).unwrap();
        }
        let s = decode(&w.into_inner().unwrap());
        for x in &s[..2] {
            assert_eq!(x.opt(3), Some(&[ws][..]), "rcvbuf {rcvbuf}: WS option");
            assert_eq!(x.opt(2), Some(&1460u16.to_be_bytes()[..]), "MSS");
            assert_eq!(x.win, rcvbuf.min(0xffff) as u16, "unscaled on a SYN");
        }
        // The receiver's window and the sender's (its receive buffer), scaled back by a
        // reader that saw the handshake, are the advertised windows to within 2^ws.
        let back = |x: &Seg| (x.win as u64) << ws;
        for (x, adv) in [(&s[2], rcvbuf - 1448), (&s[3], rcvbuf)] {
            let adv = adv.min(0xffff << ws);
            assert!(back(x) <= adv && adv - back(x) < 1 << ws, "rcvbuf {rcvbuf}");
        }
    }
}

/// The sender's host capture of a short run with three segments dropped on the way,
/// decoded byte by byte, with SACK on or off.
fn run_capture(sack: bool, rcvbuf: u64) -> (Vec<Seg>, crate::sim::Sim) {
    use crate::scenario::*;
    let topo = TopologySpec::path(
        100_000_000,
        20_000_000,
        5 * crate::engine::MS,
        QueueSpec::droptail(Limit::Packets(100)),
    );
    let mut sc = Scenario::new("pcap-unit", topo, crate::engine::SEC);
    let cfg = TcpConfig {
        sack,
        rcvbuf,
        ..Default::default()
    };
    sc.add_default_flows(&cfg);
    sc.apps.flows[0].bytes = Some(400_000);
    sc.losses.push(LossSpec {
        link: "hop1".into(),
        rate: 0.0,
        drop_nth: vec![(0, 50), (0, 52), (0, 120)],
        every: 0,
    });
    let mut sim = crate::sim::Sim::new(&sc).unwrap();
    let dir = std::env::temp_dir().join(format!(
        "cclab-pcap-unit-{}-{sack}-{rcvbuf}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    sim.attach_pcap(&["src".into()], &dir, DEFAULT_SNAPLEN)
        .unwrap();
    sim.run();
    sim.finish_pcap().unwrap();
    let bytes = std::fs::read(dir.join("src.pcap")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (decode(&bytes), sim)
}

#[test]
fn sack_permitted_and_sack_blocks_only_with_sack() {
    for sack in [true, false] {
        let (segs, sim) = run_capture(sack, 6 << 20);
        assert!(
            sim.tcp(0).sender.stats.retrans_segs >= 3,
            "the drops happened"
        );
        let syns: Vec<&Seg> = segs.iter().filter(|s| s.flags & SYN != 0).collect();
        assert_eq!(syns.len(), 2, "SYN and SYN-ACK");
        for s in &syns {
            assert_eq!(s.opt(4).is_some(), sack, "SACK-permitted, sack = {sack}");
            // Linux `tcp_options_write`: MSS, [SACK-permitted,] timestamps, window scale.
            let kinds: Vec<u8> = s.opts.iter().map(|o| o.0).collect();
            let want: &[u8] = if sack { &[2, 4, 8, 3] } else { &[2, 8, 3] };
            assert_eq!(kinds, want);
        }
        let with_blocks = segs.iter().filter(|s| s.opt(5).is_some()).count();
        assert_eq!(with_blocks > 0, sack, "SACK blocks, sack = {sack}");
        // RFC 7323 §3.2: once negotiated, every segment carries timestamps.
        assert!(segs.iter().all(|s| s.opt(8).map(<[u8]>::len) == Some(8)));
    }
}

#[test]
fn ip_ids_count_each_sockets_packets() {
    let (segs, sim) = run_capture(true, 16 << 20);
    let client = (sim.net.node_by_name("src").unwrap() + 1) as u8;
    let mut last: [Option<u16>; 2] = [None, None];
    let mut n = [0u32; 2];
    for s in &segs {
        let dir = (s.src == client) as usize;
        if dir == 0 && s.flags & SYN != 0 {
            // The SYN-ACK: Linux's `ip_build_and_send_pkt` sends DF packets with ID 0.
            assert_eq!(s.ip_id, 0);
            continue;
        }
        if let Some(prev) = last[dir] {
            // Nothing is lost between the hosts' own stacks and this capture in either
            // direction (drops are downstream of src's port), so every ID is the next one.
            assert_eq!(s.ip_id, prev.wrapping_add(1), "direction {dir}: {s:?}");
        }
        last[dir] = Some(s.ip_id);
        n[dir] += 1;
    }
    assert!(n[0] > 100 && n[1] > 200, "{n:?}");
    // Each socket starts from its own value, fixed per connection and side.
    let first = |from_client: bool| {
        segs.iter()
            .find(|s| (s.src == client) == from_client && s.flags & (SYN | ACK) != SYN | ACK)
            .unwrap()
            .ip_id
    };
    assert_eq!(first(true), crate::tcp::initial_inet_id(0, true), "the SYN");
    assert_eq!(first(false), crate::tcp::initial_inet_id(0, false));
    assert_ne!(first(true), first(false));
    // The window scale for 16 MiB.
    assert!(segs
        .iter()
        .filter(|s| s.flags & SYN != 0)
        .all(|s| s.opt(3) == Some(&[9][..])));
}

/// A direct port ([`crate::net::Port::direct`]) hands a queued packet to the capture when
/// it is admitted, dated when it will start: the capture holds it until the run gets
/// there, so a host's file (its NIC's departures among its arrivals) and a link's file
/// stay in time order, and both are byte for byte those of the event-driven transmitter.
#[test]
fn captures_of_direct_ports_are_in_time_order_and_the_event_driven_ones() {
    use crate::scenario::*;
    let capture = |events_only: bool| {
        let topo = TopologySpec::path(
            100_000_000,
            20_000_000,
            5 * crate::engine::MS,
            QueueSpec::droptail(Limit::Packets(100)),
        );
        let mut sc = Scenario::new("pcap-order", topo, crate::engine::SEC);
        sc.add_default_flows(&TcpConfig::default());
        let mut sim = crate::sim::Sim::new(&sc).unwrap();
        sim.net.no_direct = events_only;
        let dir = std::env::temp_dir().join(format!(
            "cclab-pcap-order-{}-{events_only}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        sim.attach_pcap(&["src".into(), "hop1".into()], &dir, DEFAULT_SNAPLEN)
            .unwrap();
        sim.run();
        sim.finish_pcap().unwrap();
        let files = ["src", "hop1"].map(|n| std::fs::read(dir.join(format!("{n}.pcap"))).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        (
            files,
            sim.net
                .port(sim.net.port_by_name("hop1").unwrap())
                .stats
                .max_pkts,
        )
    };
    let (direct, max_q) = capture(false);
    assert!(max_q > 20, "hop1 queues ({max_q} packets)");
    for f in &direct {
        let (mut at, mut last, mut n) = (24, 0u64, 0);
        while at < f.len() {
            let t = u32le(f, at) as u64 * 1_000_000_000 + u32le(f, at + 4) as u64;
            assert!(t >= last, "record {n} at {t} ns after one at {last} ns");
            (last, n) = (t, n + 1);
            at += 16 + u32le(f, at + 8) as usize;
        }
        assert!(n > 1000, "{n} records");
    }
    let events = capture(true).0;
    assert!(direct == events, "the event-driven transmitter's files");
}
