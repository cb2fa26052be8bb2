//! RACK, TLP, D-SACK and F-RTO, packet by packet: the sender alone, fed ACKs at chosen
//! times (as a packetdrill script feeds the kernel), so reordering and delays are exact.
//!
//! The path: the SYN-ACK arrives at 10 ms (srtt = min_rtt = 10 ms), the initial window
//! of 10 segments P0..P9 leaves at once. RACK's reordering window is then min_rtt/4 =
//! 2.5 ms, its timer slack 2 ms (`TCP_TIMEOUT_MIN_US`), the probe timeout 2·srtt + 2 ms.
//! Each test states which mechanism it needs and checks that turning it off changes the
//! outcome.

use super::harness::Bench;
use super::sender::{payload_mss, Sender};
use crate::engine::{SimTime, MS, US};
use crate::packet::*;
use crate::tcp::config::TcpConfig;
use crate::transport::{Io, TimerKind};
use std::sync::Arc;

fn mss() -> u64 {
    payload_mss(1500) as u64
}

/// The first byte of segment `k`.
fn seg(k: u64) -> u64 {
    1 + k * mss()
}

fn cfg() -> TcpConfig {
    TcpConfig {
        cc: "reno".into(),
        sndbuf: 64 << 20,
        rcvbuf: 64 << 20,
        ..Default::default()
    }
}

/// One sender, its timers, and what it sent: (time, first byte, retransmission).
struct Drv {
    s: Sender,
    now: SimTime,
    timers: Vec<(SimTime, u64)>,
    order: u64,
    sent: Vec<(SimTime, u64, bool)>,
}

impl Drv {
    /// Connected at 10 ms with an RTT of 10 ms; the initial window is out.
    fn new(cfg: &TcpConfig, segs: u64) -> Drv {
        let s = Sender::new(
            Bench::ADDR,
            &Arc::new(cfg.clone()),
            cfg.congestion_control().unwrap(),
            0,
            Some(segs * mss()),
        );
        let mut d = Drv {
            s,
            now: 0,
            timers: Vec::new(),
            order: 0,
            sent: Vec::new(),
        };
        let mut io = Io::new(0);
        d.s.connect(&mut io);
        d.take(io);
        let mut p = Packet::blank();
        p.flags = SYN | ACK;
        p.ack = 1;
        p.rwnd = 64 << 20;
        d.input(10 * MS, p);
        d
    }

    fn take(&mut self, io: Io) {
        for (t, k) in io.timers {
            assert_eq!(k, TimerKind::Rto, "a plain sender arms only its xmit timer");
            self.order += 1;
            self.timers.push((t, self.order));
        }
        for p in io.tx {
            if p.payload > 0 {
                self.sent.push((self.now, p.seq, p.retrans));
            }
        }
    }

    /// Run the timers due up to `t`.
    fn until(&mut self, t: SimTime) {
        while let Some((i, &(at, _))) = self
            .timers
            .iter()
            .enumerate()
            .filter(|(_, e)| e.0 <= t)
            .min_by_key(|(_, e)| (e.0, e.1))
        {
            self.timers.swap_remove(i);
            self.now = at;
            let mut io = Io::new(at);
            self.s.on_timer(TimerKind::Rto, &mut io);
            self.take(io);
            self.s.check_invariants().unwrap();
        }
        self.now = t;
    }

    fn input(&mut self, t: SimTime, p: Packet) {
        self.until(t);
        let mut io = Io::new(t);
        self.s.on_packet(&p, &mut io);
        self.take(io);
        self.s.check_invariants().unwrap();
    }

    /// An ACK at `t` of everything below segment `ack`, SACKing the segment ranges
    /// `sacks` ([from, to) in segments, the first block first).
    fn ack(&mut self, t: SimTime, ack: u64, sacks: &[(u64, u64)]) {
        let mut p = Packet::blank();
        p.flags = ACK;
        p.ack = seg(ack);
        p.rwnd = 64 << 20;
        for (i, &(a, b)) in sacks.iter().enumerate() {
            p.sack[i] = (seg(a), seg(b));
        }
        p.nsack = sacks.len() as u8;
        self.input(t, p);
    }

    /// Retransmissions sent: (time, segment number).
    fn retrans(&self) -> Vec<(SimTime, u64)> {
        self.sent
            .iter()
            .filter(|e| e.2)
            .map(|e| (e.0, (e.1 - 1) / mss()))
            .collect()
    }
}

/// RFC 8985 §6.2 step 5 with Linux's DupThresh rule (`tcp_rack_reo_wnd`): before any
/// reordering was seen, one or two SACKs above a hole only start the reordering window
/// (min_rtt/4); the third SACKed segment (`sacked_out >= reordering`) makes the window
/// zero and RACK marks the hole lost at once. P1 and P2 lost, P3.. SACKed at 20 ms.
#[test]
fn rack_marks_a_hole_at_the_third_sack_before_reordering_is_seen() {
    let mut d = Drv::new(&cfg(), 10);
    d.ack(20 * MS, 1, &[]);
    d.ack(20 * MS, 1, &[(3, 4)]);
    d.ack(20 * MS, 1, &[(3, 5)]);
    let i = d.s.info();
    assert_eq!(
        (i.lost, i.sacked, i.ca_state),
        (0, 2, 1),
        "Disorder, nothing lost"
    );
    d.ack(20 * MS, 1, &[(3, 6)]);
    let i = d.s.info();
    assert_eq!(
        (i.lost, i.sacked, i.ca_state),
        (2, 3, 3),
        "P1, P2 lost, Recovery"
    );
    assert_eq!(d.retrans(), vec![(20 * MS, 1)]);
}

/// The reordering timer (`tcp_rack_reo_timeout`): one SACK above a hole, then silence.
/// P1 was sent at 10 ms, RACK's RTT is 10 ms (P2's), its window 2.5 ms: P1 is overdue at
/// 22.5 ms and the timer fires 2 ms later, at 24.5 ms, marking P1 lost and retransmitting
/// it. Without RACK nothing happens before the probe or the RTO.
#[test]
fn rack_reordering_timer_fires_after_the_window() {
    let mut d = Drv::new(&cfg(), 10);
    d.ack(20 * MS, 1, &[]);
    d.ack(20 * MS, 1, &[(2, 3)]);
    assert!(d.retrans().is_empty());
    d.until(30 * MS);
    assert_eq!(d.retrans(), vec![(24_500 * US, 1)]);
    let c = d.s.loss_counters();
    assert_eq!(c.reo_timeouts, 1);
    assert_eq!((d.s.stats.recoveries, d.s.info().ca_state), (1, 3));

    let mut off = Drv::new(
        &TcpConfig {
            rack: false,
            ..cfg()
        },
        10,
    );
    off.ack(20 * MS, 1, &[]);
    off.ack(20 * MS, 1, &[(2, 3)]);
    off.until(30 * MS);
    assert!(off.retrans().is_empty(), "{:?}", off.retrans());
}

/// RFC 8985 §3 (RACK and reordering): once reordering was seen, RACK waits a reordering
/// window even with three SACKs above the hole, where RFC 6675's DupThresh retransmits at
/// once. First P1 arrives 1 ms after P2 (reordering seen: `reord_seen` 1, degree still 3:
/// one segment); then P4 arrives after P5, P6, P7, within the window: no retransmission.
#[test]
fn rack_waits_out_reordering_that_dupthresh_takes_for_loss() {
    let run = |rack: bool| {
        let mut d = Drv::new(&TcpConfig { rack, ..cfg() }, 40);
        d.ack(20 * MS, 1, &[]);
        d.ack(20 * MS, 1, &[(2, 3)]);
        d.ack(21 * MS, 3, &[]);
        assert_eq!((d.s.info().reord_seen, d.s.info().reordering), (1, 3));
        d.ack(30 * MS, 4, &[]);
        d.ack(30 * MS, 4, &[(5, 6)]);
        d.ack(30 * MS, 4, &[(5, 7)]);
        d.ack(30 * MS, 4, &[(5, 8)]);
        d.ack(30_500 * US, 8, &[]);
        d.until(60 * MS);
        d
    };
    let d = run(true);
    assert!(d.retrans().is_empty(), "{:?}", d.retrans());
    assert_eq!(d.s.stats.recoveries, 0);
    assert_eq!(d.s.info().reord_seen, 2);
    let d = run(false);
    assert_eq!(d.retrans(), vec![(30 * MS, 4)], "RFC 6675 retransmits P4");
}

/// `tcp_check_sack_reordering`: P5 SACKed, then P1..P4 delivered late: the late segment
/// lay 5 segments below the highest SACKed one... as Linux measures it from the new
/// snd_una with nothing SACKed (`tcp_highest_sack_seq`): the degree becomes 5, capped
/// by `max_reordering`.
#[test]
fn reordering_degree_grows_with_the_distance_and_stops_at_max_reordering() {
    for (max, want) in [(300, 5), (4, 4), (3, 3)] {
        let mut d = Drv::new(
            &TcpConfig {
                max_reordering: max,
                ..cfg()
            },
            20,
        );
        d.ack(20 * MS, 1, &[]);
        d.ack(20 * MS, 1, &[(5, 6)]);
        d.ack(20_500 * US, 6, &[]);
        let i = d.s.info();
        assert_eq!((i.reordering, i.reord_seen), (want, 1), "max {max}");
        assert!(d.retrans().is_empty());
    }
}

/// RFC 8985 §3's example of RACK-TLP in action (fast recovery; Linux TLP + RACK): P0..P3
/// sent, P1..P3 lost. The ACK of P0 (20 ms) arms the probe for 2·srtt + 2 ms; at 42 ms the
/// probe retransmits P3 (no new data to send); its SACK (52 ms) lets RACK mark P1 and P2
/// lost (sent 42 ms earlier, more than RACK's RTT + window ago): fast recovery, no RTO.
/// Without TLP the RTO fires.
#[test]
fn tlp_and_rack_repair_a_tail_loss_without_an_rto() {
    let mut d = Drv::new(&cfg(), 4);
    d.ack(20 * MS, 1, &[]);
    d.until(50 * MS);
    assert_eq!(d.retrans(), vec![(42 * MS, 3)], "the probe: P3 again");
    assert_eq!(d.s.loss_counters().tlp_probes, 1);
    d.ack(52 * MS, 1, &[(3, 4)]);
    let i = d.s.info();
    assert_eq!((i.ca_state, i.lost), (3, 2));
    assert_eq!(d.retrans()[1], (52 * MS, 1));
    // P1's retransmission arrives (62 ms), P2's is sent on that ACK, arrives at 72 ms.
    d.ack(62 * MS, 2, &[(3, 4)]);
    assert_eq!(d.retrans()[2], (62 * MS, 2));
    d.ack(72 * MS, 4, &[]);
    assert_eq!(d.s.stats.timeouts, 0);
    assert_eq!(d.s.info().ca_state, 0);
    assert!(d.s.done_at.is_some());

    let mut off = Drv::new(
        &TcpConfig {
            tlp: false,
            ..cfg()
        },
        4,
    );
    off.ack(20 * MS, 1, &[]);
    off.until(500 * MS);
    assert_eq!(off.s.stats.timeouts, 1);
    assert!(off.retrans()[0].0 > 200 * MS);
}

/// RFC 8985 §6.2 step 2 / Linux `tcp_rack_advance` and a lost retransmission: after the
/// probe and recovery above, P1's retransmission is lost; the SACK of P2's later
/// retransmission shows it (sent before a delivered segment, its window passed), and P1
/// goes a third time — no RTO. Without RACK the lost retransmission waits for the RTO.
#[test]
fn rack_detects_a_lost_retransmission() {
    let run = |rack: bool| {
        let mut d = Drv::new(&TcpConfig { rack, ..cfg() }, 10);
        d.ack(20 * MS, 1, &[]);
        for k in 4..10 {
            d.ack(20 * MS, 1, &[(3, k + 1)]);
        }
        // P1, P2 retransmitted at 20 ms (PRR lets both go over the SACKs), P1's lost.
        assert_eq!(d.retrans(), vec![(20 * MS, 1), (20 * MS, 2)]);
        d.ack(30 * MS, 1, &[(2, 10)]);
        d.until(35 * MS);
        if d.retrans().len() == 3 {
            d.ack(40 * MS, 10, &[]); // the third transmission of P1 arrives
        }
        d.until(400 * MS);
        d
    };
    let d = run(true);
    assert_eq!(d.retrans()[2], (30 * MS, 1));
    assert_eq!(d.s.stats.timeouts, 0);
    assert!(d.s.done_at.is_some());
    let d = run(false);
    assert!(
        d.s.stats.timeouts == 1 && d.retrans()[2].0 > 200 * MS,
        "{:?}",
        d.retrans()
    );
}

/// RFC 8985 §7.4 / Linux `tcp_process_tlp_ack`: a probe that repaired a loss (the ACK
/// covers data beyond `tlp_high_seq`, no D-SACK) costs one cwnd reduction (CWR entered
/// and left); a probe that was not needed (the original arrived; the receiver D-SACKs
/// the probe) leaves cwnd alone. P8, P9 outstanding after the ACK at 20 ms.
#[test]
fn tlp_reduces_cwnd_once_for_a_repaired_loss_and_not_for_a_needless_probe() {
    let run = |needless: bool| {
        let mut d = Drv::new(&cfg(), 10);
        d.ack(20 * MS, 8, &[]);
        d.until(42 * MS);
        assert_eq!(d.retrans(), vec![(42 * MS, 9)]);
        assert_eq!(d.s.loss_counters().tlp_high_seq, seg(10));
        // One more segment written after the probe (P10).
        let mut io = Io::new(42 * MS);
        d.s.app_write(mss(), &mut io);
        d.take(io);
        let cwnd = d.s.info().snd_cwnd;
        if needless {
            // P8, P9 arrived; the probe's duplicate is D-SACKed; then P10's ACK.
            d.ack(52 * MS, 10, &[(9, 10)]);
            d.ack(52 * MS, 11, &[]);
        } else {
            d.ack(52 * MS, 11, &[]);
        }
        (d, cwnd)
    };
    let (d, before) = run(false);
    let i = d.s.info();
    assert_eq!(d.s.loss_counters().tlp_recoveries, 1);
    assert_eq!((i.snd_cwnd, i.snd_ssthresh), (before / 2, before / 2));
    assert_eq!(d.s.loss_counters().tlp_high_seq, 0);
    let (d, before) = run(true);
    let i = d.s.info();
    assert_eq!(d.s.loss_counters().tlp_recoveries, 0);
    assert_eq!(d.s.loss_counters().tlp_high_seq, 0);
    assert!(
        i.snd_cwnd > before,
        "cwnd {} grew from {before}",
        i.snd_cwnd
    );
    assert_eq!(i.snd_ssthresh, super::sender::TCP_INFINITE_SSTHRESH);
    assert_eq!(i.dsack_dups, 1);
}

/// RACK's window grows on a D-SACK (`tcp_rack_update_reo_wnd`) and a D-SACK undoes the
/// needless recovery (`tcp_try_undo_dsack`). Reordering seen first (P1 late by 1 ms);
/// then P4 comes 5 ms late, beyond the 2.5 ms window: the timer retransmits P4 at
/// 34.5 ms; P4 arrives at 35 ms, the duplicate at 45 ms is D-SACKed: the window doubles
/// (2 steps: 5 ms) and cwnd is restored. The same 5 ms reordering after that costs no
/// retransmission. Without D-SACK the window stays and the reduction stays.
#[test]
fn dsack_widens_the_reordering_window_and_undoes_the_recovery() {
    let run = |dsack: bool| {
        let mut d = Drv::new(&TcpConfig { dsack, ..cfg() }, 80);
        d.ack(20 * MS, 1, &[]);
        d.ack(20 * MS, 1, &[(2, 3)]);
        d.ack(21 * MS, 3, &[]);
        d.ack(30 * MS, 4, &[]);
        d.ack(30 * MS, 4, &[(5, 6)]);
        let cwnd = d.s.info().snd_cwnd;
        d.until(35 * MS);
        assert_eq!(d.retrans(), vec![(34_500 * US, 4)]);
        d.ack(35 * MS, 6, &[]);
        d.ack(45 * MS, 6, &[(4, 5)]);
        (d, cwnd)
    };
    let (mut d, cwnd) = run(true);
    let c = d.s.loss_counters();
    assert_eq!((c.reo_wnd_steps, c.dsack_undos), (2, 1));
    assert!(
        d.s.info().snd_cwnd >= cwnd,
        "cwnd {} restored ({cwnd})",
        d.s.info().snd_cwnd
    );
    assert_eq!(d.s.info().ca_state, 0);
    // The same reordering again (P7 late by 4 ms): within the wider window.
    d.ack(46 * MS, 7, &[(8, 9)]);
    d.ack(50 * MS, 9, &[]);
    d.until(80 * MS);
    assert_eq!(d.retrans().len(), 1, "{:?}", d.retrans());

    let (d, cwnd) = run(false);
    let c = d.s.loss_counters();
    assert_eq!((c.reo_wnd_steps, c.dsack_undos), (1, 0));
    assert!(d.s.info().snd_cwnd < cwnd);
}

/// F-RTO (RFC 5682, Linux `tcp_process_loss`, tcp_frto = 2) on a spurious RTO: every
/// ACK of the initial window is held up past the RTO (a delay spike). The RTO
/// retransmits P0; the late ACK of P0 makes the sender send new data (P10, P11) instead
/// of retransmitting; the ACK of P1, never retransmitted, proves the timeout spurious:
/// cwnd and ssthresh come back, the state is Open, nothing else is retransmitted.
/// Without F-RTO, P1..P9 are retransmitted after the RTO.
#[test]
fn frto_undoes_a_spurious_rto() {
    let run = |frto: bool| {
        let mut d = Drv::new(
            &TcpConfig {
                frto,
                tlp: false,
                ..cfg()
            },
            40,
        );
        d.until(300 * MS);
        assert_eq!(d.s.stats.timeouts, 1);
        let rto_at = d.retrans()[0].0;
        d.ack(rto_at + MS, 1, &[]);
        d.ack(rto_at + MS + 10 * US, 2, &[]);
        d.ack(rto_at + 2 * MS, 10, &[]);
        d.until(rto_at + 5 * MS);
        d
    };
    let d = run(true);
    assert_eq!(d.retrans().len(), 1, "{:?}", d.retrans());
    assert_eq!(d.s.loss_counters().spurious_rtos, 1);
    let i = d.s.info();
    assert_eq!(i.ca_state, 0);
    assert_eq!(i.snd_ssthresh, super::sender::TCP_INFINITE_SSTHRESH);
    assert!(i.snd_cwnd >= 10, "cwnd {}", i.snd_cwnd);
    let d = run(false);
    assert!(d.retrans().len() > 1, "{:?}", d.retrans());
    assert!(d.s.info().snd_ssthresh < 10);
}

/// The timers share one: the sender never has more than one retransmission-timer event
/// armed (its probe, reordering and RTO deadlines replace each other), and the timer
/// kind the engine sees is always the one `TimerKind::Rto`.
#[test]
fn rto_reordering_and_probe_share_one_timer() {
    let mut d = Drv::new(&cfg(), 10);
    d.ack(20 * MS, 1, &[]);
    d.ack(20 * MS, 1, &[(2, 3)]);
    d.until(100 * MS);
    assert!(d.s.rto_timer.is_armed() || d.s.done_at.is_some());
    // Events in the queue: at most one per deadline the timer ever had earlier than the
    // one before it (the lazy timer), a handful here.
    assert!(d.order < 10, "{} timer events", d.order);
}

// ----- Linux 3.18's recovery (`sender/fack.rs`, `sender/early_retrans.rs`, 3.18's probe) --

/// The recovery of the 3.18 profile without the probe (each test turns on its piece).
fn cfg_3_18() -> TcpConfig {
    TcpConfig {
        rack: false,
        tlp: false,
        tlp_variant: crate::tcp::config::TlpVariant::Linux3_18,
        ..cfg()
    }
}

/// FACK (Linux 3.18 `tcp_time_to_recover` with `tcp_dupack_heuristics` = fackets_out,
/// `tcp_update_scoreboard`): P0 acked at 20 ms, then a SACK of P5: fackets_out = 5
/// (P1..P5), above the reordering degree 3, so recovery starts and max(5 − 3, 1) = 2 segments, P1 and P2, are lost;
/// P1 goes at once. A SACK of P7 next: fackets_out 7, lost P1..P4 (P5 SACKed). Without
/// FACK the one SACKed segment is below DupThresh: Disorder, nothing lost.
#[test]
fn fack_marks_fackets_out_less_reordering_lost() {
    let run = |fack: bool| {
        let mut d = Drv::new(&TcpConfig { fack, ..cfg_3_18() }, 10);
        d.ack(20 * MS, 1, &[]);
        d.ack(21 * MS, 1, &[(5, 6)]);
        let first = d.s.info();
        d.ack(22 * MS, 1, &[(5, 6), (7, 8)]);
        (first, d.s.info(), d.retrans())
    };
    let (a, b, r) = run(true);
    assert_eq!(
        (a.ca_state, a.lost, a.sacked),
        (3, 2, 1),
        "Recovery, P1 P2 lost"
    );
    assert_eq!((b.ca_state, b.lost, b.sacked), (3, 4, 2), "P1..P4 lost");
    assert_eq!(r[0], (21 * MS, 1));
    let (a, b, r) = run(false);
    assert_eq!((a.ca_state, a.lost), (1, 0), "Disorder");
    assert_eq!((b.ca_state, b.lost), (1, 0));
    assert!(r.is_empty(), "{r:?}");
}

/// Early retransmit (RFC 5827, Linux 3.18 `tcp_time_to_recover` Trick#6 and
/// `tcp_pause_early_retransmit`): two segments out, P1 SACKed at 20 ms, nothing more to
/// send: the entry waits max(srtt/4, 2 ms) = 2.5 ms (srtt 10 ms) on the timer. An ACK at
/// 21 ms puts the RTO back (`tcp_ack`: `tcp_rearm_rto`) and the test runs again: the delay
/// restarts, and P0 goes at 23.5 ms, in Recovery (`tcp_resume_early_retransmit`). Without
/// early retransmit nothing goes before the RTO (210 ms after the send).
#[test]
fn early_retransmit_fires_a_quarter_rtt_after_the_sack() {
    let run = |early_retrans: bool| {
        let mut d = Drv::new(
            &TcpConfig {
                early_retrans,
                ..cfg_3_18()
            },
            2,
        );
        d.ack(20 * MS, 0, &[(1, 2)]);
        d.until(22 * MS);
        assert!(d.retrans().is_empty());
        d.ack(21 * MS + 500 * US, 0, &[(1, 2)]);
        d.until(30 * MS);
        d
    };
    let d = run(true);
    assert_eq!(d.retrans(), vec![(24 * MS, 0)]);
    assert_eq!(d.s.info().ca_state, 3);
    assert_eq!(d.s.early_retrans_state(), (true, 2, 1));
    let mut off = run(false);
    assert!(off.retrans().is_empty());
    off.until(300 * MS);
    assert_eq!(off.retrans(), vec![(220 * MS, 0)], "the RTO");
    assert_eq!(off.s.stats.timeouts, 1);
}

/// `early_retrans = "no-delay"` (3.18's sysctl value 1): the same tail, P0 goes at the
/// SACK, 20 ms.
#[test]
fn early_retransmit_without_its_delay_fires_at_the_sack() {
    let mut d = Drv::new(
        &TcpConfig {
            early_retrans: true,
            early_retrans_no_delay: true,
            ..cfg_3_18()
        },
        2,
    );
    d.ack(20 * MS, 0, &[(1, 2)]);
    assert_eq!(d.retrans(), vec![(20 * MS, 0)]);
    assert_eq!(d.s.early_retrans_state(), (true, 0, 0));
}

/// Reordering turns early retransmit off for the connection (`tcp_update_reordering` →
/// `tcp_disable_early_retrans`): P0 arrives after P1 (a SACK of P1, then the cumulative
/// ACK of both, a hole filled by an original: reordering), so a later tail with one
/// segment SACKed waits for the RTO.
#[test]
fn reordering_turns_early_retransmit_off() {
    let mut d = Drv::new(
        &TcpConfig {
            early_retrans: true,
            ..cfg_3_18()
        },
        4,
    );
    assert!(d.s.early_retrans_state().0);
    d.ack(20 * MS, 0, &[(1, 2)]);
    d.ack(20 * MS + 100 * US, 2, &[]);
    assert!(!d.s.early_retrans_state().0, "reordering seen");
    d.ack(21 * MS, 2, &[(3, 4)]);
    d.until(100 * MS);
    assert!(d.retrans().is_empty(), "{:?}", d.retrans());
}

/// 3.18's probe timeout (`tcp_schedule_loss_probe` of 3.10–4.x): PTO = 2·srtt = 20 ms
/// with more than one segment out (6.6: 2·srtt + 2 ms = 22 ms); with one segment out
/// max(2·srtt, 1.5·srtt + 200 ms) = 215 ms, later than the RTO (210 ms), so the probe
/// takes the RTO's place at 220 ms (6.6: 2·srtt + rto_min = 220 ms, also clamped).
#[test]
fn tlp_of_3_18_waits_two_srtt() {
    use crate::tcp::config::TlpVariant;
    let probe = |variant: TlpVariant, segs: u64| {
        let mut d = Drv::new(
            &TcpConfig {
                tlp: true,
                tlp_variant: variant,
                ..cfg_3_18()
            },
            segs,
        );
        d.until(if segs == 1 { 300 } else { 100 } * MS);
        (
            d.retrans()[0],
            d.s.loss_counters().tlp_probes,
            d.s.stats.timeouts,
        )
    };
    assert_eq!(probe(TlpVariant::Linux3_18, 2), ((30 * MS, 1), 1, 0));
    assert_eq!(probe(TlpVariant::Linux6_6, 2), ((32 * MS, 1), 1, 0));
    assert_eq!(probe(TlpVariant::Linux3_18, 1).0, (220 * MS, 0));
    assert_eq!(probe(TlpVariant::Linux3_18, 1).1, 1, "a probe, not an RTO");
}

/// 3.18 probes only in Open, and every ACK first puts the RTO back in place of a pending
/// probe (`tcp_ack`: `tcp_rearm_rto`): a SACK at 20 ms (Disorder) leaves only the RTO.
#[test]
fn tlp_of_3_18_is_cancelled_by_an_ack_outside_open() {
    let mut d = Drv::new(
        &TcpConfig {
            tlp: true,
            ..cfg_3_18()
        },
        4,
    );
    d.ack(20 * MS, 0, &[(3, 4)]);
    d.until(200 * MS);
    assert_eq!(d.s.loss_counters().tlp_probes, 0);
    assert!(d.retrans().is_empty());
}

/// FACK's `tcp_mark_lost_retrans`: P1 is lost, and so is its retransmission. Once a
/// segment first sent after that retransmission is SACKed, the retransmission is lost
/// too and P1 goes a third time, with no RTO. Without FACK's test (RFC 6675 marking)
/// the lost retransmission waits for the RTO.
#[test]
fn fack_detects_a_lost_retransmission() {
    let run = |fack: bool| {
        let mut d = Drv::new(&TcpConfig { fack, ..cfg_3_18() }, 30);
        // P0 acked: slow start sends P10, P11 (20 ms).
        d.ack(20 * MS, 1, &[]);
        // P2..P9 SACKed one by one from 21 ms: recovery, P1 retransmitted.
        for k in 2..10 {
            d.ack(20 * MS + k * MS, 1, &[(2, k + 1)]);
        }
        // P10.. SACKed (sent after P1's retransmission at 22 ms, some of them).
        for k in 10..20 {
            d.ack(30 * MS + k * MS, 1, &[(2, k + 1)]);
        }
        d
    };
    let d = run(true);
    let r = d.retrans();
    assert_eq!(r[0], (24 * MS, 1), "fackets_out 4 > 3 at 24 ms: P1 lost");
    // The first segment first sent after P1's retransmission; its SACK (at 30 + k ms)
    // shows the retransmission lost.
    let k = d
        .sent
        .iter()
        .find(|e| !e.2 && e.0 > 24 * MS)
        .map(|e| (e.1 - 1) / mss())
        .expect("new data after the retransmission");
    assert!(k < 20, "P{k}");
    assert_eq!(
        r[1],
        ((30 + k) * MS, 1),
        "P1 a third time when P{k} is SACKed"
    );
    assert!(d.s.fack_lost_retrans() >= 1);
    assert_eq!(d.s.stats.timeouts, 0);
    let d = run(false);
    assert_eq!(d.retrans()[0], (24 * MS, 1), "RFC 6675: 3 SACKed above P1");
    assert_eq!(d.retrans().iter().filter(|e| e.1 == 1).count(), 1);
}

/// Rate halving (Linux 2.6.9 `tcp_cwnd_down`, `tcp_complete_cwr`; `rate_halving`), ACK by
/// ACK, with RFC 6675 marking (no RACK, no FACK): P0..P9 out (cwnd 10), P0 lost, P1..P13
/// SACKed one per ACK. The first two SACKs let P10 and P11 out (Disorder). The third
/// enters recovery with ssthresh 5 (Reno) and cwnd kept at 10; `tcp_cwnd_down` on the same
/// ACK gives min(10, in flight 8 + 1) = 9, and P0 goes again. From then on one ACK in two
/// takes a segment off cwnd (while above ssthresh/2), and cwnd never exceeds in flight +
/// 1: 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, with a new segment on every second ACK (P12..P16).
/// PRR gives another sequence. An ACK of everything after the sixth SACK (cwnd 7) ends the
/// episode at min(cwnd, ssthresh) = 5 (`tcp_complete_cwr`).
#[test]
fn rate_halving_takes_one_segment_off_every_second_ack() {
    let run = |rate_halving: bool, sacks: u64| {
        let mut d = Drv::new(
            &TcpConfig {
                rack: false,
                tlp: false,
                rate_halving,
                prr: !rate_halving,
                ..cfg()
            },
            40,
        );
        let mut cwnd = Vec::new();
        for k in 1..=sacks {
            d.ack(20 * MS + k * US, 0, &[(1, 1 + k)]);
            cwnd.push(d.s.info().snd_cwnd);
        }
        let new: Vec<(SimTime, u64)> = d
            .sent
            .iter()
            .filter(|e| !e.2 && e.1 >= seg(10))
            .map(|e| ((e.0 - 20 * MS) / US, (e.1 - 1) / mss()))
            .collect();
        let info = d.s.info();
        let end = (d.s.info().unacked as u64).max(10);
        d.ack(30 * MS, end, &[]);
        (cwnd, new, info, d.s.info(), d.retrans())
    };
    let (cwnd, new, during, _, retrans) = run(true, 13);
    assert_eq!((during.ca_state, during.snd_ssthresh), (3, 5));
    let rh = [10, 10, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4];
    assert_eq!(cwnd, rh, "cwnd after each SACK");
    let every_second = [
        (1, 10),
        (2, 11),
        (5, 12),
        (7, 13),
        (9, 14),
        (11, 15),
        (13, 16),
    ];
    assert_eq!(new, every_second, "(µs after 20 ms, segment)");
    assert_eq!(retrans, [(20 * MS + 3 * US, 0)]);
    let (cwnd, _, _, _, _) = run(false, 13);
    assert_ne!(cwnd, rh, "PRR reduces otherwise");
    let (cwnd, _, _, after, _) = run(true, 6);
    assert_eq!(cwnd.last(), Some(&7));
    assert_eq!(
        (after.ca_state, after.snd_cwnd),
        (0, 5),
        "min(cwnd, ssthresh)"
    );
}
