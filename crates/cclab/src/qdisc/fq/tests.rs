//! `fq` against sequences worked by hand from `sch_fq.c` (v6.6) and docs/references.md §10. Times
//! in the comments are in µs unless said otherwise; a 1500-byte IP packet is 1514 bytes to
//! fq (`qdisc_pkt_len`: + 14 B of MAC header), so `initial_quantum` 15140 is ten of them
//! and `quantum` 3028 two.

use super::*;
use crate::engine::{MS, NS, PS, US};
use crate::packet::{CE, NOT_ECT};

fn pkt(hash: u32, len: u32, edt: SimTime, now: SimTime) -> PktMeta {
    PktMeta {
        len,
        ecn: ECT0,
        dscp: 0,
        hash,
        segs: 1,
        edt,
        now,
        ..PktMeta::default()
    }
}

fn fq(spec: Spec) -> Fq {
    Fq::new(spec)
}

/// One arrival: time, id, what fq sees.
type Arrival = (SimTime, PktId, PktMeta);

/// Drive `q` as a port does (`net/forward.rs`): arrivals are enqueued; a free transmitter
/// asks `dequeue` at once, after a packet when its serialisation ends (IP length at
/// `rate_bps`, no framing), at the time a `NotBefore` names, and again when a packet
/// arrives while it waits. Arrivals at a time go before the transmitter's question.
/// Returns each departure's time, id and mark.
fn run(q: &mut Fq, rate_bps: u64, arrivals: &[Arrival]) -> Vec<(SimTime, PktId, Mark)> {
    let mut out = Vec::new();
    let mut ask: Option<SimTime> = None;
    let mut busy_until = 0;
    let mut next = 0;
    loop {
        let ta = arrivals.get(next).map(|a| a.0);
        match (ta, ask) {
            (None, None) => return out,
            (Some(t), a) if a.is_none_or(|a| t <= a) => {
                let (_, id, m) = arrivals[next];
                next += 1;
                assert_eq!(q.enqueue(id, &PktMeta { now: t, ..m }), Verdict::ENQUEUE);
                if busy_until <= t {
                    ask = Some(t);
                }
            }
            (_, Some(t)) => match q.dequeue(t, &mut Vec::new()) {
                Deq::Packet(id, mark) => {
                    let len = arrivals.iter().find(|a| a.1 == id).unwrap().2.len;
                    out.push((t, id, mark));
                    busy_until = t + u64::from(len) * 8 * SEC / rate_bps;
                    ask = Some(busy_until);
                }
                Deq::NotBefore(w) => {
                    assert!(w > t, "NotBefore({w}) at {t}");
                    ask = Some(w);
                }
                Deq::Empty => ask = None,
            },
            _ => unreachable!(),
        }
    }
}

fn times(deps: &[(SimTime, PktId, Mark)]) -> Vec<(SimTime, PktId)> {
    deps.iter().map(|&(t, id, _)| (t, id)).collect()
}

#[test]
fn defaults_are_fq_init() {
    // fq_init: limit 10000, flow_plimit 100, quantum 2·psched_mtu, initial_quantum
    // 10·psched_mtu, refill 40 ms, maxrate ~0, 1024 buckets, low_rate_threshold 550000/8
    // byte/s, horizon 10 s with drop, ce_threshold off (4294 s), pacing on.
    let d = Spec::default();
    assert_eq!((d.limit, d.flow_limit), (10_000, 100));
    assert_eq!((d.quantum, d.initial_quantum), (3028, 15140));
    assert_eq!(d.refill_delay, 40 * MS);
    assert_eq!(d.maxrate_bps, None);
    assert_eq!(d.buckets, 1024);
    assert_eq!(d.low_rate_threshold_bps, 550_000);
    assert_eq!((d.horizon, d.horizon_drop), (10 * SEC, true));
    assert_eq!(d.ce_threshold, None);
    assert!(d.pacing);
}

/// docs/references.md PACE-2: a paced flow's 45-segment aggregates (45 × 1500 B = 67500 B
/// IP, 54 µs at 10 Gbit/s) stamped 521 µs apart (65160 B of payload at 1 Gbit/s) leave
/// exactly at their stamps, while an unpaced flow's packets (1.2 µs each) go in between.
///
/// By hand, all at t = 0: P0..P3 (EDT 100, 621, 1142, 1663) then U0 arrive.
/// -   0: P's head is due at 100 → P throttled; U0 leaves (U is not blocked by P).
/// - 1.2: U empty, nothing else listed → U detached; not before 100.
/// - 100: P0 leaves (credit 15140 − 68130 < 0).
/// - 130: U1 arrives while P0 is on the wire (until 154) → U back on new_flows.
/// - 154: U1 leaves (new_flows first).
/// - 155.2: U passes through old_flows, P regains credit by quanta and is throttled
///   until 621; U detached.
/// - 400: U2 arrives to an idle NIC and leaves. 621: P1. 640: U3 arrives, waits for P1
///   (until 675) and leaves at 675. 700: U4. 1142: P2 (until 1196). 1200: U5. 1663: P3.
#[test]
fn pace_2_paced_flow_leaves_at_its_stamps_unpaced_flow_interleaves() {
    let mut q = fq(Spec::default());
    let agg = |id: PktId, edt_us: u64| {
        let mut m = pkt(1, 45 * 1500, edt_us * US, 0);
        m.segs = 45;
        (0, id, m)
    };
    let u = |id: PktId, t_us: u64| (t_us * US, id, pkt(2, 1500, 0, t_us * US));
    let arrivals = [
        agg(100, 100),
        agg(101, 621),
        agg(102, 1142),
        agg(103, 1663),
        u(0, 0),
        u(1, 130),
        u(2, 400),
        u(3, 640),
        u(4, 700),
        u(5, 1200),
    ];
    let deps = run(&mut q, 10_000_000_000, &arrivals);
    let want: Vec<(SimTime, PktId)> = [
        (0, 0),
        (100, 100),
        (154, 1),
        (400, 2),
        (621, 101),
        (675, 3),
        (700, 4),
        (1142, 102),
        (1200, 5),
        (1663, 103),
    ]
    .iter()
    .map(|&(t, id)| (t * US, id))
    .collect();
    assert_eq!(times(&deps), want);
    assert_eq!(q.backlog(), Backlog::default());
}

/// DRR with quanta: two backlogged flows of 1500-byte packets (1514 B to fq), A's
/// enqueued first. new_flows = [A, B], each with 15140 of credit: A sends 10 (credit
/// 15140 − 10 × 1514 = 0), then at credit 0 gets 3028 and goes to old_flows; B sends 10
/// likewise; then old_flows = [A, B] alternate, 3028 = two packets per turn.
#[test]
fn drr_ten_each_then_pairs() {
    let mut q = fq(Spec::default());
    for i in 0..30 {
        q.enqueue(i, &pkt(1, 1500, 0, 0));
    }
    for i in 0..30 {
        q.enqueue(100 + i, &pkt(2, 1500, 0, 0));
    }
    let got: Vec<PktId> = (0..28)
        .map(|_| match q.dequeue(0, &mut Vec::new()) {
            Deq::Packet(id, Mark::None) => id,
            d => panic!("{d:?}"),
        })
        .collect();
    let mut want: Vec<PktId> = (0..10).chain(100..110).collect();
    want.extend([10, 11, 110, 111, 12, 13, 112, 113]);
    assert_eq!(got, want);
    // After A13 A had 0 and was given 3028 for its next turn; B has just spent its own.
    assert_eq!(q.credit_of(1), Some(3028));
    assert_eq!(q.credit_of(2), Some(0));
}

/// flow_limit 100 (fq_enqueue: `f->qlen >= q->flow_plimit` drops): the 101st packet of
/// one flow is dropped while another flow's packet is taken; the qdisc limit counts all
/// flows (`sch->q.qlen >= sch->limit`).
#[test]
fn flow_limit_and_limit() {
    let mut q = fq(Spec {
        limit: 150,
        ..Spec::default()
    });
    for i in 0..100 {
        assert_eq!(q.enqueue(i, &pkt(1, 1500, 0, 0)), Verdict::ENQUEUE);
    }
    assert_eq!(q.enqueue(100, &pkt(1, 1500, 0, 0)), Verdict::Drop);
    for i in 0..50 {
        assert_eq!(q.enqueue(200 + i, &pkt(2, 1500, 0, 0)), Verdict::ENQUEUE);
    }
    // 150 queued: full for every flow.
    assert_eq!(q.enqueue(250, &pkt(2, 1500, 0, 0)), Verdict::Drop);
    assert_eq!(q.enqueue(300, &pkt(3, 1500, 0, 0)), Verdict::Drop);
    assert_eq!(
        q.backlog(),
        Backlog {
            bytes: 150 * 1500,
            pkts: 150
        }
    );
    assert!(matches!(q.dequeue(0, &mut Vec::new()), Deq::Packet(0, _)));
    // 149 queued, flow 1 holds 99: its next packet fits, and fills the qdisc again.
    assert_eq!(q.enqueue(101, &pkt(1, 1500, 0, 0)), Verdict::ENQUEUE);
    assert_eq!(q.enqueue(301, &pkt(3, 1500, 0, 0)), Verdict::Drop);
}

/// Horizon 10 s (fq_packet_beyond_horizon: tstamp > now + horizon): at now = 5 s an EDT
/// of 16 s is dropped, 15 s is taken and waits; with horizon_drop off, 16 s is capped to
/// 15 s.
#[test]
fn horizon_drop_and_cap() {
    let now = 5 * SEC;
    let mut q = fq(Spec::default());
    assert_eq!(q.enqueue(1, &pkt(1, 1500, 16 * SEC, now)), Verdict::Drop);
    assert_eq!(q.enqueue(2, &pkt(1, 1500, 15 * SEC, now)), Verdict::ENQUEUE);
    assert_eq!(q.dequeue(now, &mut Vec::new()), Deq::NotBefore(15 * SEC));
    let mut q = fq(Spec {
        horizon_drop: false,
        ..Spec::default()
    });
    assert_eq!(q.enqueue(1, &pkt(1, 1500, 16 * SEC, now)), Verdict::ENQUEUE);
    assert_eq!(q.dequeue(now, &mut Vec::new()), Deq::NotBefore(15 * SEC));
    assert_eq!(
        q.dequeue(15 * SEC, &mut Vec::new()),
        Deq::Packet(1, Mark::None)
    );
}

/// maxrate 12.112 Mbit/s = 1514 B per ms. Packets with an EDT are delayed by their own
/// length only (`rate = q->flow_max_rate`, no quantum rounding): 1514 · 8 / 12112000 s =
/// 1 ms. All five stamped 1 µs, given at 0, on a 1 Gbit/s NIC (12 µs per packet): the
/// first is throttled until 1 µs and leaves then (time_next_packet = 1 + 1000, no drift),
/// the others every 1 ms after.
#[test]
fn maxrate_spaces_stamped_packets_by_their_length() {
    let mut q = fq(Spec {
        maxrate_bps: Some(12_112_000),
        ..Spec::default()
    });
    let arrivals: Vec<Arrival> = (0..5).map(|i| (0, i, pkt(1, 1500, US, 0))).collect();
    let deps = run(&mut q, 1_000_000_000, &arrivals);
    let want: Vec<(SimTime, PktId)> = (0..5).map(|i| (US + i * MS, i as PktId)).collect();
    assert_eq!(times(&deps), want);
}

/// The drift credit: a flow served late gets back up to half its delay
/// (`len -= min(len/2, now - f->time_next_packet)`). P0 leaves at 1 µs → due 1001.
/// Served at 1101 (100 late): next due 1101 + 1000 − 100 = 2001. Served at 2001 on time:
/// due 3001. Served at 3801 (800 late, credit capped at 500): due 3801 + 500 = 4301.
#[test]
fn maxrate_drift_credit() {
    let mut q = fq(Spec {
        maxrate_bps: Some(12_112_000),
        ..Spec::default()
    });
    for i in 0..5 {
        q.enqueue(i, &pkt(1, 1500, US, 0));
    }
    let mut d = |t: SimTime| q.dequeue(t, &mut Vec::new());
    assert_eq!(d(US), Deq::Packet(0, Mark::None));
    assert_eq!(d(2 * US), Deq::NotBefore(1001 * US));
    assert_eq!(d(1101 * US), Deq::Packet(1, Mark::None));
    assert_eq!(d(1102 * US), Deq::NotBefore(2001 * US));
    assert_eq!(d(2001 * US), Deq::Packet(2, Mark::None));
    assert_eq!(d(2002 * US), Deq::NotBefore(3001 * US));
    assert_eq!(d(3801 * US), Deq::Packet(3, Mark::None));
    assert_eq!(d(3802 * US), Deq::NotBefore(4301 * US));
}

/// maxrate for packets without EDT, as fq_dequeue does it: plen = max(len, quantum) =
/// 3028 and a delay only once the credit is spent. At 1 Gbit/s (12 µs per packet): ten
/// back to back (0 … 108; credit 0 after the tenth → due 108 + 3028·8/12.112 Mbit/s =
/// 108 + 2000 = 2108, no drift as time_next_packet was 0); then per 3028 of credit two
/// packets: 2108 (credit 1514 left, no delay), 2120 (credit 0 → due 2120 + 2000 −
/// min(1000, 2120 − 2108) = 4108), 4108, 4120, 6108, 6120. On average 1514 B per ms.
#[test]
fn maxrate_without_edt_rounds_to_quantum() {
    let mut q = fq(Spec {
        maxrate_bps: Some(12_112_000),
        ..Spec::default()
    });
    let arrivals: Vec<Arrival> = (0..16).map(|i| (0, i, pkt(1, 1500, 0, 0))).collect();
    let deps = run(&mut q, 1_000_000_000, &arrivals);
    let mut want: Vec<(SimTime, PktId)> = (0..10).map(|i| (i * 12 * US, i as PktId)).collect();
    want.extend([
        (2108 * US, 10),
        (2120 * US, 11),
        (4108 * US, 12),
        (4120 * US, 13),
        (6108 * US, 14),
        (6120 * US, 15),
    ]);
    assert_eq!(times(&deps), want);
}

/// Below low_rate_threshold (maxrate 500 kbit/s ≤ 550 kbit/s) a packet without EDT is
/// delayed by its own length and the credit is zeroed: 1514 · 8 / 500000 s = 24.224 ms
/// between packets, from the first.
#[test]
fn below_low_rate_threshold_every_packet_waits_its_own_length() {
    let mut q = fq(Spec {
        maxrate_bps: Some(500_000),
        ..Spec::default()
    });
    let arrivals: Vec<Arrival> = (0..4).map(|i| (0, i, pkt(1, 1500, 0, 0))).collect();
    let deps = run(&mut q, 1_000_000_000, &arrivals);
    let want: Vec<(SimTime, PktId)> = (0..4).map(|i| (i * 24_224 * US, i as PktId)).collect();
    assert_eq!(times(&deps), want);
}

/// ce_threshold 1 ms: a packet leaving more than 1 ms after it was due is marked CE if
/// it is ECT (`now - time_next_packet > ce_threshold`, INET_ECN_set_ce); not-ECT and CE
/// packets are left as they are. Due = max(time_to_send, time_next_packet): an EDT
/// packet is measured from its stamp.
#[test]
fn ce_threshold_marks_late_ect_packets() {
    let mut q = fq(Spec {
        ce_threshold: Some(MS),
        ..Spec::default()
    });
    let with = |ecn: u8, edt: SimTime| PktMeta {
        ecn,
        ..pkt(1, 1500, edt, 0)
    };
    q.enqueue(1, &with(ECT0, 0));
    q.enqueue(2, &with(ECT1, 0));
    q.enqueue(3, &with(NOT_ECT, 0));
    q.enqueue(4, &with(CE, 0));
    q.enqueue(5, &with(ECT0, 5 * MS));
    q.enqueue(6, &with(ECT0, 5 * MS));
    let mut d = |t: SimTime| q.dequeue(t, &mut Vec::new());
    // Exactly 1 ms late: not more than the threshold.
    assert_eq!(d(MS), Deq::Packet(1, Mark::None));
    assert_eq!(d(MS + NS), Deq::Packet(2, Mark::Ce));
    assert_eq!(d(2 * MS), Deq::Packet(3, Mark::None));
    assert_eq!(d(2 * MS), Deq::Packet(4, Mark::None));
    assert_eq!(d(2 * MS), Deq::NotBefore(5 * MS));
    assert_eq!(d(6 * MS), Deq::Packet(5, Mark::None));
    assert_eq!(d(6 * MS + 500 * US), Deq::Packet(6, Mark::Ce));
}

/// The refill rule of fq_enqueue: a detached flow that comes back after more than
/// refill_delay (40 ms) gets max(credit, quantum); not at exactly 40 ms.
/// A sends 9 packets (credit 15140 − 9 × 1514 = 1514); at 1 ms it is found empty with
/// B still queued (B's only packet is stamped 100 ms) → A detached at 1 ms.
#[test]
fn refill_after_refill_delay() {
    for (back, credit) in [(41 * MS, 1514), (41 * MS + PS, 3028)] {
        let mut q = fq(Spec::default());
        for i in 0..9 {
            q.enqueue(i, &pkt(1, 1500, 0, 0));
        }
        q.enqueue(100, &pkt(2, 1500, 100 * MS, 0));
        for i in 0..9 {
            assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Packet(i, Mark::None));
        }
        assert_eq!(q.dequeue(MS, &mut Vec::new()), Deq::NotBefore(100 * MS));
        assert_eq!(q.credit_of(1), Some(1514));
        q.enqueue(9, &pkt(1, 1500, 0, back));
        assert_eq!(q.credit_of(1), Some(credit), "back at {back} ps");
    }
}

/// A flow emptied while the qdisc is empty is not detached (fq_dequeue returns at once
/// when `sch->q.qlen` is 0): it keeps its credit and place, whatever the idle time.
#[test]
fn a_flow_is_detached_only_by_a_dequeue_that_finds_it_empty() {
    let mut q = fq(Spec::default());
    q.enqueue(0, &pkt(1, 1500, 0, 0));
    assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Packet(0, Mark::None));
    assert_eq!(q.dequeue(SEC, &mut Vec::new()), Deq::Empty);
    q.enqueue(1, &pkt(1, 1500, 0, 2 * SEC));
    assert_eq!(q.credit_of(1), Some(15140 - 1514));
}

/// fq_gc: with 2 buckets (hash_32(h, 1) puts 1, 3, 6, 8 and 9 in bucket 0, 2 in bucket
/// 1), 5 flows known and 4 of them detached at 0, a lookup in bucket 0 after more than
/// 3 s frees the 4 (≥ 2 × 2 flows, 4 > 5/2 inactive); at exactly 3 s it does not. A
/// freed flow that comes back is new: initial_quantum again.
#[test]
fn gc_forgets_flows_idle_for_3_s() {
    for (at, flows) in [(3 * SEC, 6), (3 * SEC + PS, 2)] {
        let mut q = fq(Spec {
            buckets: 2,
            ..Spec::default()
        });
        for h in [1, 3, 6, 8] {
            q.enqueue(h, &pkt(h, 1500, 0, 0));
        }
        q.enqueue(2, &pkt(2, 1500, 9 * SEC, 0));
        for h in [1, 3, 6, 8] {
            assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Packet(h, Mark::None));
        }
        assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::NotBefore(9 * SEC));
        assert_eq!(q.flows(), 5);
        q.enqueue(9, &pkt(9, 1500, 0, at));
        assert_eq!(q.flows(), flows, "at {at} ps");
        q.enqueue(1, &pkt(1, 1500, 0, at));
        let c = if flows == 2 { 15140 } else { 15140 - 1514 };
        assert_eq!(q.credit_of(1), Some(c));
    }
}

/// A flow's packets leave in time_to_send order (flow_queue_add / fq_peek): one stamped
/// earlier than the tail goes ahead of it; equal stamps keep their order.
#[test]
fn out_of_order_stamps_are_sorted_within_a_flow() {
    let mut q = fq(Spec::default());
    q.enqueue(1, &pkt(1, 1500, 3 * US, 0));
    q.enqueue(2, &pkt(1, 1500, 2 * US, 0));
    q.enqueue(3, &pkt(1, 1500, 2 * US, 0));
    q.enqueue(4, &pkt(1, 1500, 5 * US, 0));
    let order: Vec<PktId> = (0..4)
        .map(|_| match q.dequeue(10 * US, &mut Vec::new()) {
            Deq::Packet(id, _) => id,
            d => panic!("{d:?}"),
        })
        .collect();
    assert_eq!(order, [2, 3, 1, 4]);
}

/// offer_idle is enqueue + dequeue (6.6 fq has no bypass): an unstamped packet on an
/// empty qdisc leaves at once; a packet stamped later is queued and the port learns when
/// from dequeue; a flow held back by maxrate is not bypassed.
#[test]
fn offer_idle_sends_only_what_may_leave() {
    let mut q = fq(Spec {
        maxrate_bps: Some(12_112_000),
        initial_quantum: 0,
        ..Spec::default()
    });
    assert_eq!(
        q.offer_idle(1, &pkt(1, 1500, 0, 0)),
        Offer::Send(Mark::None)
    );
    assert_eq!(q.backlog(), Backlog::default());
    assert_eq!(
        q.offer_idle(2, &pkt(2, 1500, 50 * US, 0)),
        Offer::Queued(Mark::None)
    );
    assert_eq!(q.peek_len(), Some(1500));
    assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::NotBefore(50 * US));
    assert_eq!(
        q.dequeue(50 * US, &mut Vec::new()),
        Deq::Packet(2, Mark::None)
    );
    // Flow 1 sent 1514 B with initial_quantum 0: its first visit found credit 0 → +3028,
    // then credit 1514 > 0 → no delay. Its next packet: credit 0 → delay 2 ms.
    assert_eq!(
        q.offer_idle(3, &pkt(1, 1500, 0, 60 * US)),
        Offer::Send(Mark::None)
    );
    assert_eq!(
        q.offer_idle(4, &pkt(1, 1500, 0, 70 * US)),
        Offer::Queued(Mark::None)
    );
    assert_eq!(
        q.dequeue(70 * US, &mut Vec::new()),
        Deq::NotBefore(2060 * US)
    );
}

/// "force a pass through old_flows to prevent starvation": a new flow found empty while
/// old_flows is not goes to its tail instead of being detached, so a packet it gets
/// meanwhile waits its turn there rather than jumping ahead on new_flows.
/// B sends its 10 (credit 0); A arrives → new_flows [B, A]; B gets 3028 → old [B];
/// A0 leaves; A, empty, goes behind B: old [B, A]; B10 (1514 left); A1 arrives (A is
/// listed, not detached: no new_flows); B11 (0 left); B gets 3028 and goes behind A; A1.
#[test]
fn an_emptied_new_flow_passes_once_through_old_flows() {
    let mut q = fq(Spec::default());
    for i in 0..20 {
        q.enqueue(100 + i, &pkt(2, 1500, 0, 0));
    }
    let mut got = Vec::new();
    let mut deq = |q: &mut Fq| match q.dequeue(0, &mut Vec::new()) {
        Deq::Packet(id, _) => got.push(id),
        d => panic!("{d:?}"),
    };
    for _ in 0..10 {
        deq(&mut q);
    }
    q.enqueue(0, &pkt(1, 1500, 0, 0));
    deq(&mut q);
    deq(&mut q);
    q.enqueue(1, &pkt(1, 1500, 0, 0));
    deq(&mut q);
    deq(&mut q);
    let mut want: Vec<PktId> = (100..110).collect();
    want.extend([0, 110, 111, 1]);
    assert_eq!(got, want);
}

/// `fq_reset` (a link going down): every flow's packets are dropped — those sorted by
/// stamp first, then the in-order list (`fq_flow_purge`) — whether the flow is listed or
/// throttled, and every flow is forgotten. Flow 1 holds 1 (3 µs) and 4 (5 µs) in order
/// and 2, 3 (2 µs, earlier than the tail) sorted; flow 2's unstamped 5 leaves at 0, and
/// flow 1, due at 2 µs, is throttled. Reset at 0: 2, 3, 1, 4 dropped; afterwards the
/// qdisc is empty and a new packet leaves at once.
#[test]
fn reset_drops_every_flows_packets_and_forgets_the_flows() {
    let mut q = fq(Spec::default());
    for (id, edt) in [(1, 3 * US), (2, 2 * US), (3, 2 * US), (4, 5 * US)] {
        q.enqueue(id, &pkt(1, 1500, edt, 0));
    }
    q.enqueue(5, &pkt(2, 1500, 0, 0));
    assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Packet(5, Mark::None));
    assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::NotBefore(2 * US));
    let mut drops = Vec::new();
    q.reset(0, &mut drops);
    assert_eq!(drops, [2, 3, 1, 4]);
    assert_eq!((q.backlog(), q.flows()), (Backlog::default(), 0));
    assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Empty);
    q.enqueue(6, &pkt(1, 1500, 0, 0));
    assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Packet(6, Mark::None));
}
