//! What the TCP core hands a congestion-control module about one ACK or one lost
//! segment: Linux's `struct ack_sample`, `struct rate_sample` and BBR v3's view of a
//! segment marked lost (moved from `cc/mod.rs`, which re-exports them).

use crate::engine::SimTime;

/// What `pkts_acked` learns from one ACK (Linux `struct ack_sample`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSample {
    /// Segments newly acked by this ACK.
    pub pkts_acked: u32,
    /// RTT sample in microseconds, or negative when there is none (Linux convention).
    pub rtt_us: i64,
    /// Segments in flight before this ACK.
    pub in_flight: u32,
    /// The ACK's timestamp value and echo (Linux `tp->rx_opt.rcv_tsval` / `rcv_tsecr`),
    /// 0 without timestamps.
    pub rcv_tsval: SimTime,
    pub rcv_tsecr: SimTime,
}

/// A delivery-rate sample, one per ACK (Linux `struct rate_sample`, include/net/tcp.h,
/// filled by `net/ipv4/tcp_rate.c`): how many segments the network delivered over what
/// interval, measured from the most recently sent of the segments this ACK delivered.
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    /// The start of the interval: `delivered_mstamp` when that segment was sent (0: none).
    pub prior_mstamp: SimTime,
    /// `tp->delivered` and `tp->delivered_ce` when that segment was sent (Linux's u32).
    pub prior_delivered: u32,
    pub prior_delivered_ce: u32,
    /// Segments delivered over the interval, of them CE-marked; -1 if no sample.
    pub delivered: i32,
    pub delivered_ce: i32,
    /// The interval, µs: the longer of the send and ACK phases; -1 if no valid sample.
    pub interval_us: i64,
    /// The send phase and the ACK phase, µs.
    pub snd_interval_us: u32,
    pub rcv_interval_us: u32,
    /// RTT of the last (S)ACKed segment, µs, or -1.
    pub rtt_us: i64,
    /// Segments newly marked lost on this ACK.
    pub losses: u32,
    /// `tp->lost` when that segment was sent, and the segments marked lost since
    /// (`rs->lost`, Google's BBR v2/v3 tree, "count packets lost over TCP rate sampling
    /// interval").
    pub prior_lost: u32,
    pub lost: u32,
    /// Segments in flight just after that segment was sent, itself included
    /// (`rs->tx_in_flight`, BBR v2/v3 tree, `tcp_set_tx_in_flight`).
    pub tx_in_flight: u32,
    /// The ACK carried ECE (`rs->is_ece`, BBR v3 tree).
    pub is_ece: bool,
    /// CE marks this ACK newly reported (`rs->ece_delta`, the L4S tree: set by
    /// `tcp_accecn_process`, or every delivered segment of an ECE ACK with RFC 3168).
    pub ece_delta: u32,
    /// The ACK acknowledges exactly a tail loss probe's retransmission
    /// (`rs->is_acking_tlp_retrans_seq`, BBR v3 tree: `tlp_retrans` and ack ==
    /// `tlp_high_seq`).
    pub is_acking_tlp_retrans_seq: bool,
    /// Segments newly (S)ACKed on this ACK.
    pub acked_sacked: u32,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u32,
    /// The end of the segment the sample comes from.
    pub last_end_seq: u64,
    /// The sample comes from a segment sent while application-limited.
    pub is_app_limited: bool,
    /// ... or from a retransmission.
    pub is_retrans: bool,
    /// The ACK is likely a delayed one (`FLAG_ACK_MAYBE_DELAYED`).
    pub is_ack_delayed: bool,
}

impl Default for RateSample {
    /// An empty sample, as `tcp_ack` starts one (`prior_delivered` 0, no interval).
    fn default() -> RateSample {
        RateSample {
            prior_mstamp: 0,
            prior_delivered: 0,
            prior_delivered_ce: 0,
            delivered: -1,
            delivered_ce: -1,
            interval_us: -1,
            snd_interval_us: 0,
            rcv_interval_us: 0,
            rtt_us: -1,
            losses: 0,
            prior_lost: 0,
            lost: 0,
            tx_in_flight: 0,
            is_ece: false,
            ece_delta: 0,
            is_acking_tlp_retrans_seq: false,
            acked_sacked: 0,
            prior_in_flight: 0,
            last_end_seq: 0,
            is_app_limited: false,
            is_retrans: false,
            is_ack_delayed: false,
        }
    }
}

/// What `.skb_marked_lost` learns of a segment just marked lost (Google's BBR v3 tree,
/// `tcp_notify_skb_loss_event`, after `tp->lost` counted it): the snapshot its last
/// transmission took (`TCP_SKB_CB(skb)->tx`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LostSkb {
    /// Segments in this skb (cclab marks one segment at a time: 1).
    pub pcount: u32,
    /// `tx.in_flight`, `tx.lost`, `tx.is_app_limited`, `tx.delivered_mstamp` (0: the
    /// segment was SACKed).
    pub tx_in_flight: u32,
    pub tx_lost: u32,
    pub is_app_limited: bool,
    pub delivered_mstamp: SimTime,
}
