//! Accurate ECN against RFC 9768's rules and Linux's: the starting values, the ACE wrap with
//! and without the option, the option's fit, and the negotiation matrix end to end.

use super::*;
use crate::engine::{MS, SEC};
use crate::tcp::config::TcpConfig;
use crate::tcp::harness::Bench;

const MSS: u32 = 1448;
const GBPS: u64 = 1_000_000_000;

/// An ACK with ACE `cep` mod 8 and, if given, an option with `ceb` CE bytes and `e0b`
/// ECT(0) bytes (counter values, before the initial offsets).
fn ack(cep: u32, opt: Option<(u32, u32)>) -> Packet {
    let mut p = Packet::blank();
    p.flags = with_ace(ACK, cep.wrapping_add(CEP_INIT));
    if let Some((ceb, e0b)) = opt {
        let mut c = RcvCounters::default();
        c.bytes[(CE - 1) as usize] = ceb;
        c.bytes[(ECT0 - 1) as usize] = e0b;
        put_option(&mut p, &c.option(3));
    }
    p
}

#[test]
fn the_counters_start_where_rfc_9768_puts_them() {
    // §3.2.1: r.cep = 5, r.e0b = r.e1b = 1, r.ceb = 0.
    let c = RcvCounters::default();
    assert_eq!(c.ace(), 5);
    let o = c.option(3);
    assert_eq!((o.e0b, o.ceb, o.e1b), (1, 0, 1));
    // The first ACK of an unmarked flow carries ACE 0b101: AE and ECE.
    assert_eq!(with_ace(ACK, c.ace()), ACK | AE | ECE);
    // A SYN-ACK's ACE for each IP-ECN codepoint of the SYN (Table 2), and back.
    assert_eq!(
        [NOT_ECT, ECT1, ECT0, CE].map(synack_ace),
        [0b010, 0b011, 0b100, 0b110]
    );
    // The option travels intact (24-bit fields).
    let mut p = Packet::blank();
    let o = AccEcnOpt {
        order1: true,
        fields: 2,
        e0b: 0xff_ffff,
        ceb: 0x12_3456,
        e1b: 7,
    };
    put_option(&mut p, &o);
    assert_eq!(option(&p), Some(o));
    assert_eq!(option(&Packet::blank()), None);
}

/// The sender's reading of an ACK with ACE `cep` and option `opt` that newly delivers
/// `pkts` full segments, counted in as the sender does.
fn step(f: &mut Feedback, cep: u32, opt: Option<(u32, u32)>, pkts: u32) -> u32 {
    let bytes = pkts as u64 * MSS as u64;
    let d = f.ce_delta(&ack(cep, opt), true, pkts, bytes, MSS, true);
    f.delivered_ce += d as u64;
    d
}

#[test]
fn ace_alone_is_exact_below_eight_marks_between_acks() {
    let mut f = Feedback::default();
    // 3 marks in 3 packets, then 4 marks in 7 packets (< 8 per ACK): exact.
    assert_eq!(step(&mut f, 3, None, 3), 3);
    assert_eq!(step(&mut f, 7, None, 7), 4);
    // An ACK that delivers nothing new tells nothing (a reordered ACK).
    assert_eq!(f.ce_delta(&ack(9, None), false, 0, 0, MSS, true), 0);
}

#[test]
fn ace_wraps_at_eight_and_the_byte_counters_resolve_it() {
    // 10 packets, all CE, covered by one ACK: ACE moved by 10 mod 8 = 2.
    // Without the option, on the first ACK (no history of thinned ACKs: the EWMA of
    // packets per ACK is this ACK's 10 > 4, so Linux takes ACK thinning as the reason and
    // assumes no wrap): 2, an undercount of 8 — ACE alone cannot tell 2 from 10.
    assert_eq!(step(&mut Feedback::default(), 10, None, 10), 2);
    // Where ACKs normally cover one packet (EWMA low), the same ACK is read with as many
    // wraps as the packets allow (RFC 9768 §3.2.2.5.2's safety rule): 10.
    let mut f = Feedback::default();
    for k in 1..=20u32 {
        assert_eq!(step(&mut f, 0, None, 1), 0, "{k}");
    }
    assert_eq!(step(&mut f, 10, None, 10), 10);
    // With the option: one earlier CE-only change makes the CE byte counter the one that
    // moves (`est_ecnfield`), then 10 CE packets of 1448 bytes in one ACK: exact, 10.
    let mut f = Feedback::default();
    assert_eq!(step(&mut f, 1, Some((MSS, 0)), 1), 1);
    assert_eq!(step(&mut f, 11, Some((11 * MSS, 0)), 10), 10);
    // 20 packets of which 9 CE in one ACK (≥ 16 packets: Linux estimates the CE packets
    // from the bytes): ACE moved by 1, the bytes say 9.
    assert_eq!(step(&mut f, 20, Some((20 * MSS, 11 * MSS)), 20), 9);
    assert_eq!(f.ce_bytes(), 20 * MSS);
    // On that ACK two counters moved, CE (the estimate on entry) and ECT(0): one counter
    // other than the estimate moved, so the option stays trusted and ECT(0) becomes the
    // estimate. Linux compares each counter with the estimate as it was on entry
    // (`estimate_ecnfield`, a local copy), so the next mixed ACK (2 CE of 10 packets,
    // 8 ≤ n < 16) is trusted too, and CE, the counter that moved besides the estimate,
    // becomes the estimate again: its 2 CE segments' bytes are below half the safety
    // rule's 10 (`TCP_ACCECN_SAFETY_SHIFT`), so ACE's 2 stands. Exact.
    assert_eq!(f.est, ECT0);
    assert_eq!(step(&mut f, 22, Some((22 * MSS, 19 * MSS)), 10), 2);
    assert_eq!(f.est, CE);
    // Before the sender knows which counter moves (no estimate yet), an option in which two
    // counters moved cannot be trusted (`est_ecnfield` stays 0): where ACKs normally cover
    // one packet, the safety rule reads a 2-mark ACK of 10 packets as 10, 8 too many.
    let mut f = Feedback::default();
    for _ in 0..20 {
        step(&mut f, 0, None, 1);
    }
    assert_eq!(step(&mut f, 2, Some((2 * MSS, 8 * MSS)), 10), 10);
    assert_eq!(f.est, 0);
}

#[test]
fn the_option_fits_beside_timestamps_and_sack_as_linux_fits_it() {
    // No SACK: the full option, 11 bytes padded to 12.
    assert_eq!(fit_option(3, TS_OPT, 0), Some((3, 12, 0)));
    // One block: 16 bytes left, still full.
    assert_eq!(fit_option(3, TS_OPT, 1), Some((3, 12, 1)));
    // Two blocks: 8 bytes left: two fields (8 bytes) if only CE/ECT(1) counters changed,
    // none when the ECT(0) counter must go.
    assert_eq!(fit_option(2, TS_OPT, 2), Some((2, 8, 2)));
    assert_eq!(fit_option(3, TS_OPT, 2), None);
    // Three blocks fill the space: one block gives way for a required field, never two.
    assert_eq!(fit_option(2, TS_OPT, 3), Some((2, 8, 2)));
    assert_eq!(fit_option(3, TS_OPT, 3), None);
    // An option with no field fits in the SACK option's two NOPs.
    assert_eq!(fit_option(0, TS_OPT, 3), Some((0, 0, 3)));
}

fn cfg(ecn: u8) -> TcpConfig {
    TcpConfig {
        ecn: ecn == 1,
        ecn_mode: ecn,
        ..Default::default()
    }
}

/// Client `a`, server `b` (Linux `tcp_ecn` values): what the client and server ended in,
/// and the SYN-ACK's ACE.
fn negotiate(a: u8, b: u8) -> (bool, bool, bool, u32) {
    let mut bench = Bench::pair(&cfg(a), &cfg(b), MS, GBPS, Some(100_000));
    bench.connect();
    bench.run_until(SEC);
    let syn = bench.log.iter().find(|l| l.p.flags & SYN != 0).unwrap();
    if a == 3 {
        assert_eq!(ace(syn.p.flags), 0b111, "AccECN SYN");
    }
    let synack = bench
        .log
        .iter()
        .find(|l| l.p.flags & (SYN | ACK) == SYN | ACK)
        .unwrap();
    (
        bench.s.accecn.is_some(),
        bench.r.accecn.is_some(),
        bench.s.tp.ecn_ok,
        ace(synack.p.flags),
    )
}

#[test]
fn negotiation_matrix() {
    // AccECN ↔ AccECN: both AccECN; the SYN-ACK echoes the SYN's Not-ECT (0b010).
    assert_eq!(negotiate(3, 3), (true, true, true, 0b010));
    // A server that accepts AccECN without asking for it (4, 5) negotiates it too.
    assert_eq!(negotiate(3, 5), (true, true, true, 0b010));
    // AccECN ↔ RFC 3168 (1, or Linux's default 2): ECE alone, both fall back to RFC 3168.
    assert_eq!(negotiate(3, 1), (false, false, true, 0b001));
    assert_eq!(negotiate(3, 2), (false, false, true, 0b001));
    // AccECN ↔ no ECN: 0b000, no ECN.
    assert_eq!(negotiate(3, 0), (false, false, false, 0b000));
    // RFC 3168 ↔ AccECN server: classic ECN (the SYN has no AE).
    assert_eq!(negotiate(1, 3), (false, false, true, 0b001));
}

/// A bulk transfer between AccECN ends where the receiver's `mark` marks packets CE and
/// the ACK path loses what `drop_ack` says; returns (CE packets the receiver counted, CE
/// packets the sender learnt, CE bytes it learnt).
fn run(client: &TcpConfig, mark: fn(u64) -> bool, drop_ack: fn(u64) -> bool) -> (u64, u64, u32) {
    let mut b = Bench::pair(client, client, 5 * MS, GBPS, Some(300 * MSS as u64));
    b.mark = Box::new(move |_, n| mark(n));
    let mut acks = 0u64;
    b.drop = Box::new(move |p, to_server, _| {
        if to_server || p.flags & SYN != 0 {
            return false;
        }
        acks += 1;
        drop_ack(acks)
    });
    b.connect();
    b.run_until(120 * SEC);
    let fb = b.s.accecn.as_deref().expect("AccECN negotiated");
    // Every byte acknowledged: no ACK that carries a mark is still on its way.
    assert!(b.s.done_at.is_some(), "the transfer ends");
    (b.r.stats.ce_segs_in, b.s.tp.delivered_ce, fb.ce_bytes())
}

#[test]
fn the_sender_counts_every_mark_the_receiver_saw() {
    let c = cfg(3);
    // Every 3rd packet marked, no ACK loss: exact.
    let (r, s, bytes) = run(&c, |n| n % 3 == 0, |_| false);
    assert!(r > 80, "{r}");
    assert_eq!(s, r);
    assert_eq!(bytes as u64, r * MSS as u64);
    // 3 ACKs of every 4 lost: up to 8 packets and 8 marks between delivered ACKs; the
    // option's CE bytes keep the count exact.
    let (r, s, _) = run(&c, |n| n % 2 == 0, |k| k % 4 != 0 && k < 150);
    assert_eq!(s, r);
    // Without the option (`ecn_option = 0`), ACE alone: still exact here, where CWR keeps
    // fewer than 8 packets between delivered ACKs (the wrap itself: the unit cases above).
    let c0 = TcpConfig {
        ecn_option: 0,
        ..cfg(3)
    };
    let (r, s, bytes) = run(&c0, |n| n % 12 != 0, |k| k % 6 != 0 && k < 150);
    assert_eq!(bytes, 0, "no option, no bytes");
    assert_eq!(s, r);
}

#[test]
fn a_lost_first_synack_leaves_the_connection_without_the_option() {
    // The first SYN-ACK carries the option; a retransmitted one does not (RFC 9768
    // §3.2.3.2.2, Linux `tcp_synack_options`), and an end sends options only once it saw
    // one (`saw_accecn_opt`): with the first SYN-ACK lost, no option ever flows, and
    // AccECN runs on ACE alone.
    let c = cfg(3);
    for lose_first in [false, true] {
        let mut b = Bench::pair(&c, &c, 5 * MS, GBPS, Some(300 * MSS as u64));
        let mut synacks = 0;
        b.drop = Box::new(move |p, to_server, _| {
            if !to_server && p.flags & SYN != 0 {
                synacks += 1;
                return lose_first && synacks == 1;
            }
            false
        });
        b.connect();
        b.run_until(120 * SEC);
        assert!(b.s.done_at.is_some());
        let sent =
            b.r.accecn
                .as_deref()
                .expect("AccECN negotiated")
                .options_sent;
        let saw = b.s.accecn.as_deref().expect("AccECN negotiated").saw_opt;
        assert_eq!((sent > 0, saw), (!lose_first, !lose_first), "{lose_first}");
    }
}

/// A connection whose data is in flight and whose ACKs the test writes itself: the
/// receiver's own ACKs are all lost. Returns the bench and a template ACK.
fn in_flight() -> (Bench, Packet) {
    let c = cfg(3);
    let mut b = Bench::pair(&c, &c, 5 * MS, GBPS, Some(300 * MSS as u64));
    b.drop = Box::new(|p, to_server, _| !to_server && p.flags & SYN == 0);
    b.connect();
    b.run_until(20 * MS);
    assert!(b.s.accecn.is_some() && b.s.tp.snd_nxt > 1 + 9 * MSS as u64);
    let mut t = b.acks().last().expect("the receiver ACKed").p.clone();
    t.flags = with_ace(ACK, CEP_INIT);
    t.nsack = 0;
    t.sack = [(0, 0); MAX_SACK];
    (b, t)
}

fn deliver(b: &mut Bench, p: &Packet) {
    let mut io = crate::transport::Io::new(b.now);
    b.s.on_packet(p, &mut io);
}

#[test]
fn the_bytes_estimated_without_an_option_are_the_advance_of_snd_una() {
    // Linux `tcp_clean_rtx_queue` assigns `sack->delivered_bytes` the advance of snd_una
    // when an ACK advances it, replacing what `tcp_sacktag_one` added for the blocks the
    // same ACK newly SACKs. The estimate on an ACK without the option adds exactly that.
    let (mut b, t) = in_flight();
    let mss = MSS as u64;
    // ACK 1: 2 segments, an option on which ECT(0)'s counter moved: the estimate follows
    // ECT(0) from now on.
    let mut a1 = t.clone();
    a1.ack = 1 + 2 * mss;
    let o = AccEcnOpt {
        order1: true,
        fields: 3,
        e1b: E1B_INIT,
        ceb: CEB_INIT,
        e0b: E0B_INIT + 2 * MSS,
    };
    put_option(&mut a1, &o);
    deliver(&mut b, &a1);
    let fb = b.s.accecn.as_deref().unwrap();
    assert_eq!((fb.est, fb.bytes[(ECT0 - 1) as usize]), (ECT0, 2 * MSS));
    // ACK 2: 2 more segments cumulatively and 2 newly SACKed, no option: 2 MSS more.
    let mut a2 = t.clone();
    a2.ack = 1 + 4 * mss;
    a2.sack[0] = (1 + 5 * mss, 1 + 7 * mss);
    a2.nsack = 1;
    deliver(&mut b, &a2);
    let fb = b.s.accecn.as_deref().unwrap();
    assert_eq!(fb.bytes[(ECT0 - 1) as usize], 4 * MSS);
}

#[test]
fn an_ack_below_snd_una_is_not_read_for_ecn() {
    // Linux `tcp_ack` sends an ACK below snd_una to `old_ack`, which tags its SACK blocks
    // but never reaches `tcp_accecn_process`: its ACE tells nothing.
    let (mut b, t) = in_flight();
    let mss = MSS as u64;
    let mut a1 = t.clone();
    a1.ack = 1 + 4 * mss;
    deliver(&mut b, &a1);
    // An older ACK (below snd_una) that newly SACKs a segment, its ACE 3 beyond the last.
    let mut old = t.clone();
    old.ack = 1 + 2 * mss;
    old.flags = with_ace(ACK, CEP_INIT + 3);
    old.sack[0] = (1 + 6 * mss, 1 + 7 * mss);
    old.nsack = 1;
    deliver(&mut b, &old);
    assert_eq!(b.s.tp.delivered_ce, 0);
    assert_eq!(b.s.accecn.as_deref().unwrap().delivered_ce, 0);
}

#[test]
fn the_third_ack_demands_an_option() {
    // Linux `tcp_ecn_openreq_child` (`tcp_minisocks.c`, AccECN): `accecn_opt_demand
    // = 1` before the third ACK's IP-ECN field is counted. Here the SYN and the third ACK
    // are both Not-ECT: no edge, so the demand is the handshake's one.
    let c = cfg(3);
    let mut b = Bench::pair(&c, &c, 5 * MS, GBPS, Some(300 * MSS as u64));
    b.drop = Box::new(|p, to_server, _| to_server && p.payload > 0);
    b.connect();
    b.run_until(20 * MS);
    let r = b.r.accecn.as_deref().expect("AccECN negotiated");
    assert_eq!(b.r.state, crate::tcp::receiver::RcvState::Established);
    assert_eq!(r.counters.demand, 1);
}
