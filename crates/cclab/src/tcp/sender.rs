//! The data-sending half of a TCP connection (the initiator).
//!
//! - Handshake: SYN retransmitted after `rto_initial` (1 s), doubling (RFC 6298 §5.5,
//!   Linux `tcp_retransmit_timer`); an ECN-setup SYN carries ECE|CWR (RFC 3168 §6.1.1).
//!   After a retransmitted SYN the initial window is 1 segment and the RTO falls back to
//!   3 s until the first sample (Linux `TCP_TIMEOUT_FALLBACK`, RFC 6298 §5.7).
//! - Scoreboard: one entry per segment, like Linux's retransmit queue of skbs, with the
//!   `sacked`/`lost`/`retrans` bits and Linux's counters `packets_out`, `sacked_out`,
//!   `lost_out`, `retrans_out`; in flight = packets_out − sacked_out − lost_out + retrans_out
//!   (`tcp_packets_in_flight`, RFC 6675's "pipe").
//! - Loss detection with SACK (RFC 6675 `IsLost`): a segment is lost once DupThresh = 3
//!   segments above it are SACKed. Without SACK (RFC 6582 NewReno, as Linux emulates it):
//!   each duplicate ACK counts as one SACKed segment; the head is marked lost on the 3rd
//!   duplicate ACK and on every partial ACK during recovery.
//! - Cwnd during recovery and ECN reduction: PRR (RFC 6937, Linux `tcp_cwnd_reduction`)
//!   by default; with `prr = false`, RFC 6675 §5 (cwnd = ssthresh at entry) with SACK, and
//!   RFC 6582 §3.2 (ssthresh + 3, +1 per duplicate ACK, deflate on partial ACK) without.
//! - RTO: Linux `tcp_enter_loss`: every un-SACKed segment is marked lost, cwnd = 1, slow
//!   start; backoff doubles the timer up to `rto_max`.
//! - ECN (RFC 3168 §6.1.2): on ECE, one reduction per window (enter CWR), CWR set on the
//!   next new data segment.
//!
//! - Pacing, segmentation offload (TSO) and TCP small queues as Linux: `sender/pacing.rs`;
//!   PSH on every GSO packet (Linux 5.4+, `gso_push`) and on the segment that ends a
//!   write (`send_new`).
//! - Zero-window probes (`tcp_send_probe0`): `sender/probe0.rs`.
//!
//! - Modern loss recovery, each a key (Linux 6.6 defaults on): RACK (`sender/rack.rs`),
//!   the tail loss probe (`sender/tlp.rs`), D-SACK, undo and F-RTO (`sender/undo.rs`), the
//!   reordering degree `tp->reordering`. RTO, the reordering timer and the probe timer
//!   share one timer whose pending event says which it is (Linux `icsk_pending`).
//!
//! This file holds the socket's state, its construction, accessors, the application calls
//! and the SYN; more `impl Sender` blocks live beside it: `sender/send.rs` (the send loop,
//! new segments and retransmissions), `sender/ack.rs` (the SYN-ACK and the ACK path of
//! `tcp_ack`), `sender/timers.rs` (the shared retransmission timer and the RTO),
//! `sender/scoreboard.rs` (SACK tagging, loss marking, the invariant check),
//! `sender/recovery.rs` (the congestion state machine, PRR, RTO loss entry),
//! `sender/rack.rs`, `sender/tlp.rs`, `sender/undo.rs`, `sender/fack.rs` and
//! `sender/early_retrans.rs` (loss detection and undo), `sender/rtx.rs` (which lost
//! segments go again together), `sender/pacing.rs`,
//! `sender/spacing.rs` and `sender/probe0.rs` (what paces or holds transmission),
//! `sender/initial.rs` (the initial window and its restart after idle), `sender/listen.rs`
//! (the passive open, option negotiation and the connection's end), `sender/diag.rs` (the
//! `ss -ti` line) and `sender/info.rs` (`TCP_INFO`).

mod ack;
mod cwnd_usage;
mod diag;
mod early_retrans;
mod fack;
mod info;
mod initial;
mod listen;
mod pacing;
mod probe0;
mod rack;
mod rate;
mod rate_halving;
mod recovery;
mod rtx;
mod scoreboard;
mod send;
mod spacing;
mod timers;
mod tlp;
mod undo;

use super::rtt::RttEstimator;
use super::Addr;
use crate::cc::{Cc, CongestionOps, TcpCcState};
use crate::engine::{SimTime, Timer};
use crate::packet::*;
use crate::tcp::config::TcpConfig;
use crate::transport::Io;
use std::collections::VecDeque;
use std::sync::Arc;

pub use info::{TcpInfo, TCP_INFINITE_SSTHRESH};
pub use listen::{rcv_wscale, Handshake, SynOptions};
pub use pacing::{PacingStatus, LIMIT_OUTPUT_BYTES, NO_RATE};
pub use spacing::Spacing;

const DUPTHRESH: u32 = 3;

/// The size of each write of a sender that writes without end: iperf's TCP buffer length
/// (`-l`, 128 KB by default in iperf2 and iperf3). Each write ends in a PSH.
const APP_WRITE: u64 = 128 << 10;

#[derive(Clone, Copy, Debug, Default)]
struct Seg {
    start: u64,
    end: u64,
    /// Time of the latest (re)transmission.
    sent: SimTime,
    sacked: bool,
    lost: bool,
    /// A retransmission of this segment is in flight.
    retrans: bool,
    /// Ever retransmitted (Karn: no RTT sample from it).
    ever_retrans: bool,
    /// Sent with PSH, which its retransmissions keep.
    psh: bool,
    /// The first segment of an skb of Linux's retransmission queue (`sender/rtx.rs`).
    head: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SndState {
    Idle,
    SynSent,
    /// A passive open waits for a SYN (`sender/listen.rs`).
    Listen,
    /// SYN received, SYN-ACK sent.
    SynRcvd,
    Established,
}

/// Counters like `netstat -s` / `ss -ti` for one socket.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub data_segs_out: u64,
    pub retrans_segs: u64,
    /// RTO expiries of the established connection, backed-off ones included.
    pub timeouts: u64,
    /// What Linux counts as `LINUX_MIB_TCPTIMEOUTS` (`netstat -s` "other TCP timeouts",
    /// `tcp_retransmit_timer`): the first RTO of a series (`icsk_retransmits` 0) fired in
    /// Open or CWR with nothing SACKed; the others are recovery failures (TCPSackFailures,
    /// TCPRenoFailures, TCPLossFailures).
    pub other_timeouts: u64,
    pub syn_retrans: u64,
    pub ece_acks: u64,
    /// Reductions that set CWR on the wire (`tcp_ecn_queue_cwr`): every cwnd reduction of
    /// an ECN connection, fast recovery's included.
    pub cwr_events: u64,
    /// Entries into the CWR state (`tcp_enter_cwr`): a reduction on an ECN-Echo or on
    /// local congestion, one per episode however many ECE ACKs it covers.
    pub cwr_episodes: u64,
    /// Times the host's own qdisc was full when a segment was due (local congestion:
    /// the segment waited and the sender entered CWR).
    pub local_drops: u64,
    pub bytes_acked: u64,
    /// Entries into fast recovery (`tcp_enter_recovery`), one per episode however many
    /// segments it retransmits.
    pub recoveries: u64,
    pub dupacks: u64,
    /// When the latest cwnd reduction (recovery, CWR or RTO) began.
    pub last_reduction_at: SimTime,
    /// Restarts of cwnd after idle (`tcp_cwnd_restart`, `sender/initial.rs`).
    pub cwnd_restarts: u64,
    /// When the handshake completed (SYN-ACK received).
    pub established_at: Option<SimTime>,
}

pub struct Sender {
    pub addr: Addr,
    /// The connection's configuration, shared with the other connections that have the
    /// same one (a run of 100,000 flows holds a handful).
    cfg: Arc<TcpConfig>,
    pub state: SndState,
    pub tp: TcpCcState,
    pub cc: Cc,
    /// The ECT codepoint this socket's ECN-capable packets carry: ECT(1) for a module
    /// that wants it (`CongestionOps::wants_ect_1`, L4S), else ECT(0); asked once here.
    ect: u8,
    /// Payload bytes per full segment.
    pub mss: u32,
    pub rtt: RttEstimator,
    /// Exponential backoff exponent (Linux `icsk_backoff`).
    backoff: u32,
    /// Zero-window probes sent since the window closed (`sender/probe0.rs`).
    probe0_backoff: u32,
    pub rto_timer: Timer,
    pub stats: SenderStats,

    // Application.
    /// Highest sequence number the application has made available (exclusive).
    write_seq: u64,
    /// True once the application will add nothing more.
    app_closed: bool,
    /// Bytes to send in total (`None` = until stopped).
    pub total_bytes: Option<u64>,
    pub start_time: SimTime,
    /// Time everything was acknowledged (byte-count flows).
    pub done_at: Option<SimTime>,

    // Scoreboard.
    segs: VecDeque<Seg>,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// Lost segments not yet retransmitted; and the lowest seq where one may be.
    lost_pending: u32,
    lost_hint: u64,
    /// The previous ACK's SACK blocks (Linux `recv_sack_cache`).
    sack_cache: [(u64, u64); MAX_SACK],
    n_sack_cache: usize,
    /// The three highest SACKed segment starts (ascending), for RFC 6675 IsLost.
    top_sacked: [u64; 3],
    n_top: usize,
    /// Segments below this have been checked for loss marking.
    mark_cursor: u64,
    /// Duplicate ACKs counted as SACKs without the SACK option (Linux `tcp_add_reno_sack`).
    reno_dupacks: u32,
    /// Highest sequence sent so far (Linux `snd_nxt`, kept in `tp.snd_nxt`).
    /// Peer's advertised window in bytes.
    snd_wnd: u64,
    /// The largest window the peer has advertised (Linux `max_window`).
    max_window: u64,
    /// The end of the last segment sent with PSH (Linux `pushed_seq`).
    pushed_seq: u64,
    /// New data that reaches this sequence carries PSH (`push_limit`).
    push_at: u64,
    /// Recovery / CWR / Loss end point (Linux `high_seq`).
    high_seq: u64,
    cwr_pending: bool,
    // PRR.
    prr_delivered: u32,
    prr_out: u32,
    /// This send attempt found cwnd the limit (`tcp_write_xmit`'s `is_cwnd_limited`).
    cwnd_limited: bool,
    /// The per-window verdict of `tcp_cwnd_validate` (`sender/cwnd_usage.rs`).
    usage: cwnd_usage::CwndUsage,
    syn_sent_at: SimTime,
    syn_tx: u32,
    /// The peer's latest TSval, echoed as TSecr.
    ts_recent: SimTime,
    /// IPv4 ID of the next packet (Linux `inet_id`; see `tcp::initial_inet_id`).
    inet_id: u16,

    // Pacing (`sender/pacing.rs`; the rate and status are the module's, in `tp`).
    /// `tcp_wstamp_ns`: the earliest departure time of the next packet.
    wstamp: SimTime,
    pace_timer: Timer,
    /// Nothing below TCP to model: no pacing, no offload, no small queues, no spacing (the
    /// send loop skips their checks).
    plain: bool,
    /// The module has `cong_control` (BBR): it sets cwnd and the pacing rate from a rate
    /// sample per ACK (`sender/rate.rs`), and the module's `min_tso_segs` is asked.
    cc_owns: bool,
    cc_min_tso: bool,
    /// Something reads the pacing rate during the run (pacing, TSO, TSQ, the module):
    /// `tcp_update_pacing_rate` runs after each ACK (`sender/pacing.rs`).
    track_pacing: bool,
    /// This ACK's rate sample, and each segment's snapshot at its last transmission,
    /// parallel to `segs` (`sender/rate.rs`): kept only for a module with `cong_control`,
    /// so that the others' scoreboard stays 32 bytes a segment; boxed, out of the way of
    /// the socket's hot fields.
    rate: Box<rate::RateState>,
    /// Seed 001's spacing (`sender/spacing.rs`).
    spacing: spacing::SpacingState,
    /// When data last left (Linux `tp->lsndtime`), for the restart after idle.
    lsndtime: SimTime,
    /// RACK, TLP, undo, F-RTO, reordering, and the retransmission timer's pending event.
    loss: rack::LossState,
    /// Handshake options, the peer's FIN, our FIN (`sender/listen.rs`).
    hs: listen::Handshake,
    /// Accurate ECN's feedback, once negotiated (`tcp/accecn.rs`, `sender/ack.rs`).
    pub accecn: Option<Box<super::accecn::Feedback>>,
}

impl Sender {
    /// The initiator of a connection running congestion control `cc`.
    pub fn new(
        addr: Addr,
        cfg: &Arc<TcpConfig>,
        cc: Cc,
        start_time: SimTime,
        total_bytes: Option<u64>,
    ) -> Self {
        let mss = if cfg.timestamps {
            payload_mss(cfg.mtu)
        } else {
            cfg.mtu - IP_TCP_HDR
        };
        let ssthresh = cfg.init_ssthresh.unwrap_or(u32::MAX / 2);
        let mut tp = TcpCcState::new(mss, initial::init_cwnd(cfg, mss), ssthresh);
        tp.sk_pacing_status = Self::pacing_status_of(cfg);
        tp.mtu = cfg.mtu;
        tp.sk_max_pacing_rate = cfg.max_pacing_rate.map_or(NO_RATE, |b| b / 8);
        tp.pacing_ss_ratio = cfg.pacing_ss_ratio;
        tp.pacing_ca_ratio = cfg.pacing_ca_ratio;
        tp.random = u64::from(addr.conn) << 8 | u64::from(addr.gen);
        let cc_owns = cc.has_cong_control();
        tp.sysctl_min_tso_segs = cfg.min_tso_segs;
        let cc_min_tso = cc.min_tso_segs(&tp).is_some() || cc.tso_segs(&tp, mss).is_some();
        let track_pacing = tp.sk_pacing_status != PacingStatus::None
            || cfg.host.tso
            || cfg.host.tsq
            || cc.reads_pacing_rate();
        let ect = if cc.wants_ect_1() { ECT1 } else { ECT0 };
        Sender {
            addr,
            cfg: Arc::clone(cfg),
            state: SndState::Idle,
            tp,
            cc,
            ect,
            mss,
            rtt: RttEstimator::new(cfg.rto_mode, cfg.rto_min, cfg.rto_max, cfg.rto_initial),
            backoff: 0,
            probe0_backoff: 0,
            rto_timer: Timer::default(),
            stats: SenderStats::default(),
            write_seq: 1,
            app_closed: false,
            total_bytes,
            start_time,
            done_at: None,
            segs: VecDeque::new(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            lost_pending: 0,
            lost_hint: 0,
            top_sacked: [0; 3],
            sack_cache: [(0, 0); MAX_SACK],
            n_sack_cache: 0,
            n_top: 0,
            mark_cursor: 0,
            reno_dupacks: 0,
            snd_wnd: 65535,
            max_window: 0,
            pushed_seq: 1,
            push_at: u64::MAX,
            high_seq: 0,
            cwr_pending: false,
            prr_delivered: 0,
            prr_out: 0,
            cwnd_limited: false,
            usage: Default::default(),
            syn_sent_at: 0,
            syn_tx: 0,
            ts_recent: 0,
            inet_id: super::initial_inet_id(addr.conn ^ addr.gen.rotate_left(16), true),
            wstamp: 0,
            pace_timer: Timer::default(),
            plain: Self::pacing_status_of(cfg) == PacingStatus::None
                && cfg.host == crate::tcp::config::HostStack::default()
                && cfg.spacing == Spacing::None,
            cc_owns,
            cc_min_tso,
            track_pacing,
            rate: Box::default(),
            spacing: spacing::SpacingState::default(),
            lsndtime: 0,
            loss: rack::LossState::new(cfg.reordering).with_era(cfg),
            hs: listen::Handshake::new(cfg),
            accecn: None,
        }
    }

    /// Seed the socket's random stream (`TcpCcState::random`) with the run's seed.
    pub fn seed_random(&mut self, seed: u64) {
        self.tp.random ^= seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    /// Something below TCP changed (a module turned pacing on in `init`): the send loop
    /// with its checks from now on. And a module's `init` may have replaced its ops by
    /// ones without `cong_control` (Prague's `prague_reno` fallback), before any data.
    fn refresh_plain(&mut self) {
        self.cc_owns = self.cc.has_cong_control();
        self.plain &= self.tp.sk_pacing_status == PacingStatus::None;
        self.track_pacing |= self.tp.sk_pacing_status != PacingStatus::None;
    }

    /// The configuration this end runs.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    /// Bytes cumulatively acknowledged (payload).
    pub fn acked_bytes(&self) -> u64 {
        self.tp.snd_una.saturating_sub(1)
    }

    pub fn packets_out(&self) -> u32 {
        self.segs.len() as u32
    }

    /// `tcp_packets_in_flight`.
    #[inline]
    pub fn in_flight(&self) -> u32 {
        self.packets_out() + self.retrans_out - self.sacked_out - self.lost_out
    }

    pub fn current_rto(&self) -> SimTime {
        (self.rtt.rto() << self.backoff.min(20)).min(self.cfg.rto_max)
    }

    // ----- application -------------------------------------------------------------

    /// Open the connection: send the SYN.
    pub fn connect(&mut self, io: &mut Io) {
        self.state = SndState::SynSent;
        self.syn_tx = 0;
        self.send_syn(io);
        self.write_seq = match self.total_bytes {
            Some(b) => 1 + b,
            None => u64::MAX / 2,
        };
        self.app_closed = self.total_bytes.is_some();
        self.push_at = self.push_limit();
    }

    /// The application writes `bytes` more (a request/response server answering a query).
    /// Only for byte-count connections (`total_bytes = Some(_)`), whose writes are finite.
    pub fn app_write(&mut self, bytes: u64, io: &mut Io) {
        if self.total_bytes.is_none() || bytes == 0 {
            return;
        }
        self.slow_start_after_idle_check(io.now);
        self.rate_check_app_limited(io); // `tcp_sendmsg_locked`
        self.write_seq += bytes;
        self.push_at = self.push_limit();
        self.done_at = None;
        self.try_send(io);
    }

    /// The application stops writing (iperf -t expired): nothing new after what was sent.
    pub fn app_stop(&mut self) {
        if !self.app_closed {
            self.write_seq = self.tp.snd_nxt.max(1);
            self.push_at = self.push_limit();
            self.app_closed = true;
            if self.state == SndState::Established && self.segs.is_empty() {
                self.done_at.get_or_insert(self.tp.now);
            }
        }
    }

    fn send_syn(&mut self, io: &mut Io) {
        let mut p = self.template(io.now);
        p.flags = SYN;
        // Linux `tcp_ecn_send_syn`: ECN is requested when the sysctl asks for it or the
        // module needs it; the SYN itself is ECT only for modules that need ECN.
        if self.cfg.accecn_out() || self.cc.needs_accecn() {
            // Accurate ECN (RFC 9768 §3.1.1): AE, CWR and ECE.
            p.flags |= AE | ECE | CWR;
            if self.cc.needs_ecn() && self.cfg.syn_ect {
                p.ecn = self.ect;
            }
        } else if self.cfg.ecn_out() || self.cc.needs_ecn() {
            p.flags |= ECE | CWR;
            if self.cc.needs_ecn() && self.cfg.syn_ect {
                p.ecn = self.ect;
            }
        }
        p.seq = 0;
        p.size = IP_TCP_HDR + 20; // MSS, SACK-permitted, timestamps, wscale
        if self.syn_tx > 0 {
            p.retrans = true;
            self.stats.syn_retrans += 1;
        }
        self.syn_tx += 1;
        self.syn_sent_at = io.now;
        self.xmit(io, p);
        let rto = (self.cfg.rto_initial << self.backoff.min(20)).min(self.cfg.rto_max);
        self.arm_rto(io, io.now + rto);
    }
}

/// Payload bytes per segment for an MTU: MSS = MTU − 40, minus 12 for timestamps (Linux
/// `mss_cache`, e.g. 1448 for MTU 1500).
pub fn payload_mss(mtu: u32) -> u32 {
    mtu - IP_TCP_HDR - TS_OPT
}
