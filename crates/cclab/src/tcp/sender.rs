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
//!   PSH on every GSO packet and on the segment that ends a write (`send_new`).
//! - Zero-window probes (`tcp_send_probe0`): `sender/probe0.rs`.
//!
//! - Modern loss recovery, each a key (Linux 6.6 defaults on): RACK (`sender/rack.rs`),
//!   the tail loss probe (`sender/tlp.rs`), D-SACK, undo and F-RTO (`sender/undo.rs`), the
//!   reordering degree `tp->reordering`. RTO, the reordering timer and the probe timer
//!   share one timer whose pending event says which it is (Linux `icsk_pending`).
//!
//! This file holds the socket's state, the application calls, transmission, the ACK path
//! and the timers; more `impl Sender` blocks live beside it: `sender/scoreboard.rs` (SACK
//! tagging, loss marking, the invariant check), `sender/recovery.rs` (the congestion state
//! machine, PRR, RTO loss entry), `sender/diag.rs` (the `ss -ti` line) and
//! `sender/info.rs` (`TCP_INFO`).

mod diag;
mod early_retrans;
mod fack;
mod info;
mod initial;
mod listen;
mod pacing;
mod probe0;
mod rack;
mod recovery;
mod scoreboard;
mod spacing;
mod tlp;
mod undo;

use super::rtt::RttEstimator;
use super::Addr;
use crate::cc::{
    AckSample, CaEvent, CaState, Cc, CongestionOps, TcpCcState, CA_ACK_ECE, CA_ACK_SLOWPATH,
    CA_ACK_WIN_UPDATE,
};
use crate::engine::{SimTime, Timer, TimerCheck, SEC};
use crate::packet::*;
use crate::tcp::config::Growth;
use crate::tcp::config::TcpConfig;
use crate::transport::{Io, TimerKind};
use std::collections::VecDeque;
use std::sync::Arc;

pub use info::{TcpInfo, TCP_INFINITE_SSTHRESH};
pub use listen::{rcv_wscale, Handshake, SynOptions};
pub use pacing::{PacingStatus, LIMIT_OUTPUT_BYTES, NO_RATE};
use rack::Pending;
pub use spacing::Spacing;

const DUPTHRESH: u32 = 3;

/// The size of each write of a sender that writes without end: iperf's TCP buffer length
/// (`-l`, 128 KB by default in iperf2 and iperf3). Each write ends in a PSH.
const APP_WRITE: u64 = 128 << 10;

#[derive(Clone, Copy, Debug)]
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
    /// Sending was limited by cwnd at the last attempt.
    cwnd_limited: bool,
    max_packets_out: u32,
    syn_sent_at: SimTime,
    syn_tx: u32,
    /// The peer's latest TSval, echoed as TSecr.
    ts_recent: SimTime,
    /// IPv4 ID of the next packet (Linux `inet_id`; see `tcp::initial_inet_id`).
    inet_id: u16,

    // Pacing (`sender/pacing.rs`).
    pacing_status: PacingStatus,
    /// `sk_pacing_rate` in bytes per second (`NO_RATE` = unknown, Linux's `~0`).
    pacing_rate: u64,
    /// `tcp_wstamp_ns`: the earliest departure time of the next packet.
    wstamp: SimTime,
    pace_timer: Timer,
    /// Nothing below TCP to model: no pacing, no offload, no small queues, no spacing (the
    /// send loop skips their checks).
    plain: bool,
    /// Seed 001's spacing (`sender/spacing.rs`).
    spacing: spacing::SpacingState,
    /// When data last left (Linux `tp->lsndtime`), for the restart after idle.
    lsndtime: SimTime,
    /// RACK, TLP, undo, F-RTO, reordering, and the retransmission timer's pending event.
    loss: rack::LossState,
    /// Handshake options, the peer's FIN, our FIN (`sender/listen.rs`).
    hs: listen::Handshake,
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
        Sender {
            addr,
            cfg: Arc::clone(cfg),
            state: SndState::Idle,
            tp: TcpCcState::new(mss, initial::init_cwnd(cfg, mss), ssthresh),
            cc,
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
            max_packets_out: 0,
            syn_sent_at: 0,
            syn_tx: 0,
            ts_recent: 0,
            inet_id: super::initial_inet_id(addr.conn ^ addr.gen.rotate_left(16), true),
            pacing_status: Self::pacing_status_of(cfg),
            pacing_rate: NO_RATE,
            wstamp: 0,
            pace_timer: Timer::default(),
            plain: Self::pacing_status_of(cfg) == PacingStatus::None
                && cfg.host == crate::tcp::config::HostStack::default()
                && cfg.spacing == Spacing::None,
            spacing: spacing::SpacingState::default(),
            lsndtime: 0,
            loss: rack::LossState::new(cfg.reordering).with_era(cfg),
            hs: listen::Handshake::new(cfg),
        }
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
        if self.cfg.ecn || self.cc.needs_ecn() {
            p.flags |= ECE | CWR;
            if self.cc.needs_ecn() && self.cfg.syn_ect {
                p.ecn = ECT0;
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

    /// Send `p`, stamped with the socket's next IP ID (Linux `ip_select_ident_segs`: every
    /// packet of a connected socket, the SYN included, takes `inet_id`, which then grows
    /// by one).
    /// Returns its departure time: now, or later for a paced socket (its EDT).
    fn xmit(&mut self, io: &mut Io, mut p: Packet) -> SimTime {
        p.ip_id = self.inet_id;
        // A TSO NIC gives each segment of an aggregate its own ID, one up from the last.
        self.inet_id = self.inet_id.wrapping_add(p.segs.max(1));
        let mut departs = io.now;
        if !self.plain {
            departs = self.stamp_departure(&mut p, io.now);
            // The timestamp option carries the skb's send time, its departure time for a
            // paced socket (`tcp_established_options` after `skb_mstamp_ns` is set).
            p.tsval = departs;
            if self.cfg.host.tsq && p.payload > 0 {
                p.tsq = true;
                io.below += p.size as u64;
            }
        }
        if p.payload > 0 {
            self.lsndtime = departs; // `tcp_event_data_sent`
        }
        io.tx.push(p);
        departs
    }

    /// A segment from this end; it echoes the peer's latest timestamp (RFC 7323 §3.2).
    fn template(&self, now: SimTime) -> Packet {
        let mut p = self.addr.segment(true, now);
        p.tsecr = self.ts_recent;
        p
    }

    fn arm_rto(&mut self, io: &mut Io, at: SimTime) {
        self.arm_xmit_timer(io, Pending::Rto, at);
    }

    /// Set the retransmission timer for `kind` at `at` (`inet_csk_reset_xmit_timer`): the
    /// RTO, the reordering timer and the probe timer are one timer (`icsk_pending`).
    fn arm_xmit_timer(&mut self, io: &mut Io, kind: Pending, at: SimTime) {
        self.loss.pending = kind;
        if let Some(t) = self.rto_timer.arm(at) {
            io.timers.push((t, TimerKind::Rto));
        }
    }

    /// `tcp_rearm_rto`: the RTO from now; from the head's send time when the timer held
    /// the reordering or probe event.
    fn rearm_rto(&mut self, io: &mut Io) {
        if self.segs.is_empty() {
            self.rto_timer.disarm();
        } else {
            let mut at = io.now + self.current_rto();
            if self.loss.pending != Pending::Rto {
                at = io.now + self.rto_delta().max(crate::engine::US as i64) as SimTime;
            }
            self.arm_rto(io, at);
        }
    }

    /// `tcp_rto_delta_us`: how far the RTO of the head segment lies in the future.
    fn rto_delta(&self) -> i64 {
        match self.segs.front() {
            Some(h) => (h.sent + self.current_rto()) as i64 - self.tp.now as i64,
            None => self.current_rto() as i64,
        }
    }

    // ----- sending ------------------------------------------------------------------

    /// Send what cwnd, the peer's window and the send buffer allow: lost segments first
    /// (RFC 6675 NextSeg rule 1), then new data (rule 2).
    pub fn try_send(&mut self, io: &mut Io) {
        if self.state != SndState::Established {
            return;
        }
        self.tp.now = io.now;
        let nxt = self.tp.snd_nxt;
        if self.plain {
            self.send_plain(io);
        } else {
            self.send_below(io);
        }
        if self.tp.snd_nxt > nxt && self.cfg.tlp {
            // `tcp_write_xmit` sent new data: (re)schedule the probe; a probe no longer
            // possible leaves the RTO (`tcp_event_new_data_sent`).
            if !self.schedule_loss_probe(io, false) && self.loss.pending == Pending::Probe {
                self.rearm_rto(io);
            }
        }
        self.max_packets_out = self.max_packets_out.max(self.packets_out());
        self.tp.packets_in_flight = self.in_flight();
        self.tp.is_cwnd_limited = self.is_cwnd_limited();
        if self.snd_wnd == 0 {
            self.check_probe_timer(io);
        }
        if self.hs.fin_pending {
            self.maybe_send_fin(io);
        }
    }

    /// The send loop of a socket with nothing below TCP to model (no pacing, offload, small
    /// queues or spacing): one segment at a time, as long as cwnd, the peer's window and
    /// the send buffer allow and the host's qdisc has room. What `send_below` does with
    /// every check off, without paying for them (the common case).
    fn send_plain(&mut self, io: &mut Io) {
        let reducing = matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr);
        let mss = self.mss as u64;
        loop {
            if self.in_flight() >= self.tp.snd_cwnd {
                self.cwnd_limited = true;
                break;
            }
            if io.local_room == 0 {
                self.local_congestion();
                break;
            }
            if self.lost_pending > 0 && !self.loss.rexmit_new && self.retransmit_next_lost(io) {
                io.local_room = io.local_room.saturating_sub(1);
                if reducing {
                    self.prr_out += 1;
                }
                continue;
            }
            let nxt = self.tp.snd_nxt;
            if nxt >= self.write_seq {
                self.cwnd_limited = false;
                break;
            }
            let len = (self.write_seq - nxt).min(mss);
            let una = self.tp.snd_una;
            if self.snd_wnd == 0
                || nxt + len - una > self.snd_wnd.max(mss)
                || nxt + len - una > self.cfg.sndbuf.max(mss)
            {
                self.cwnd_limited = false;
                break;
            }
            self.send_new(io, nxt, len as u32);
            io.local_room = io.local_room.saturating_sub(1);
            if reducing {
                self.prr_out += 1;
            }
        }
    }

    /// The send loop with pacing, offload aggregates, small queues or spacing (a socket
    /// with none of them goes through `send_plain`).
    fn send_below(&mut self, io: &mut Io) {
        let reducing = matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr);
        loop {
            if self.in_flight() >= self.tp.snd_cwnd {
                self.cwnd_limited = true;
                break;
            }
            if self.pacing_check(io) {
                break;
            }
            let allow = self.spacing_allows(io, u32::MAX);
            if allow == 0 {
                break;
            }
            if io.local_room == 0 {
                // The host's qdisc would drop the next skb: Linux's `tcp_transmit_skb`
                // gets NET_XMIT_DROP, enters CWR and leaves the skb unsent, first in line.
                self.local_congestion();
                break;
            }
            if self.lost_pending > 0 && !self.loss.rexmit_new {
                let full = self.mss + IP_TCP_HDR + self.ts_len();
                if self.small_queue_check(io, full, 1) {
                    break;
                }
                if self.retransmit_next_lost(io) {
                    io.local_room = io.local_room.saturating_sub(1);
                    self.spacing_sent(io.now, 1);
                    if reducing {
                        self.prr_out += 1;
                    }
                    continue;
                }
            }
            let nxt = self.tp.snd_nxt;
            if nxt >= self.write_seq {
                self.cwnd_limited = false;
                break;
            }
            let mss = self.mss as u64;
            // Segments per skb (1 without TSO, where no skb is deferred).
            let max_segs = self.tso_segs();
            let skb = (self.write_seq - nxt).min(max_segs as u64 * mss);
            if skb > mss && self.tso_should_defer(io.now, nxt, max_segs) {
                break;
            }
            // One skb: up to the autosized number of segments, within cwnd
            // (`tcp_cwnd_test`, which also keeps an skb to half of cwnd so that at least
            // two are in flight), the peer's window and the send buffer
            // (`tcp_mss_split_point`).
            let cwnd = self.tp.snd_cwnd;
            let quota = (cwnd - self.in_flight()).min((cwnd >> 1).max(1)) as u64;
            let segs = quota.min(max_segs as u64).min(allow as u64).max(1);
            if self.snd_wnd == 0 {
                // A closed window: nothing new until it opens (`tcp_snd_wnd_test`); the
                // zero-window probe asks for it (`sender/probe0.rs`).
                self.cwnd_limited = false;
                break;
            }
            let una = self.tp.snd_una;
            let room = (una + self.snd_wnd.max(mss))
                .min(una + self.cfg.sndbuf.max(mss))
                .saturating_sub(nxt);
            let mut len = (self.write_seq - nxt).min(segs * mss);
            if len > room {
                // Whole segments only, unless the window leaves room for less than one.
                len = if room >= mss { room / mss * mss } else { 0 };
            }
            if len == 0 || (len < mss && len < self.write_seq - nxt) {
                self.cwnd_limited = false;
                break;
            }
            let n = len.div_ceil(mss) as u32;
            if self.small_queue_check(io, len as u32 + n * (IP_TCP_HDR + self.ts_len()), 0) {
                break;
            }
            self.send_new(io, nxt, len as u32);
            io.local_room = io.local_room.saturating_sub(1);
            self.spacing_sent(io.now, n);
            if reducing {
                self.prr_out += n;
            }
        }
    }

    /// `tcp_is_cwnd_limited`.
    fn is_cwnd_limited(&self) -> bool {
        if self.tp.in_slow_start() {
            return self.tp.snd_cwnd < 2 * self.max_packets_out.max(1) || self.cwnd_limited;
        }
        self.cwnd_limited
    }

    /// Where the next PSH goes: new data that reaches this sequence carries it. Linux
    /// marks PSH on the skb that ends a `sendmsg` (`tcp_push` → `tcp_mark_push`): the last
    /// byte written so far, or for a sender that writes without end (iperf) the end of each
    /// of its 128 KiB writes (`APP_WRITE`); and on the skb that takes the data written past
    /// half the largest window since the last PSH (`forced_push`; Linux checks it as the
    /// application writes, here as the data leaves, which for a sender whose writes run
    /// ahead of the window comes to the same spacing). `tso_fragment` and GSO keep PSH on
    /// the last piece only.
    fn push_limit(&self) -> u64 {
        let forced = self.pushed_seq + self.max_window / 2 + 1;
        let mut at = self.write_seq.min(forced);
        if self.total_bytes.is_none() {
            // Writes cover 1 + k·APP_WRITE .. 1 + (k + 1)·APP_WRITE.
            let next = ((self.pushed_seq - 1) / APP_WRITE + 1) * APP_WRITE + 1;
            at = at.min(next);
        }
        at
    }

    /// The peer advertised `rwnd`: Linux `max_window`, which moves the forced push.
    #[inline]
    fn peer_window(&mut self, rwnd: u64) {
        if rwnd != self.snd_wnd && self.tp.snd_nxt < self.write_seq {
            // `tcp_ack_update_window`: a changed window with data waiting restarts an
            // idle cwnd (`tcp_slow_start_after_idle_check`).
            self.slow_start_after_idle_check(self.tp.now);
        }
        self.snd_wnd = rwnd;
        if rwnd > self.max_window {
            self.max_window = rwnd;
            self.push_at = self.push_limit();
        }
    }

    fn data_packet(&self, now: SimTime, start: u64, len: u32) -> Packet {
        let mut p = self.template(now);
        p.flags = ACK;
        p.seq = start;
        p.ack = self.hs.rcv_nxt;
        p.payload = len;
        p.size = len + IP_TCP_HDR + self.ts_len();
        if self.tp.ecn_ok {
            p.ecn = ECT0;
        }
        p
    }

    /// Linux `tcp_ecn_send`: retransmissions are Not-ECT (RFC 3168 §6.1.5) unless the
    /// module needs ECN, whose socket keeps ECT on every packet.
    fn retrans_ecn(&self) -> u8 {
        if self.tp.ecn_ok && self.cc.needs_ecn() {
            ECT0
        } else {
            NOT_ECT
        }
    }

    /// Send `len` new bytes from `start` as one skb: one segment, or with TSO an
    /// aggregate of ⌈len / mss⌉ segments that the NIC cuts (`packet::split_gso`).
    /// The scoreboard keeps one entry per segment, as Linux's retransmit queue does once
    /// SACKs split its skbs.
    fn send_new(&mut self, io: &mut Io, start: u64, len: u32) {
        if self.segs.is_empty() {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
        let mss = self.mss;
        let n = if len <= mss { 1 } else { len.div_ceil(mss) };
        let mut p = self.data_packet(io.now, start, len);
        let end = start + len as u64;
        let psh = end >= self.push_at;
        if psh {
            p.flags |= PSH;
            self.pushed_seq = end;
            self.push_at = self.push_limit();
        }
        if n > 1 {
            // `__tcp_transmit_skb` forces PSH on every GSO packet, to end the receiver's
            // GRO aggregate with it (Linux 4.9+, "tcp: force a PSH flag on TSO packets");
            // on the packet only: the skb kept for retransmission has its own flags.
            p.flags |= PSH;
            p.segs = n as u16;
            p.gso_size = mss as u16;
            p.size = len + n * (IP_TCP_HDR + self.ts_len());
        }
        if self.cwr_pending {
            p.flags |= CWR;
            self.cwr_pending = false;
        }
        // `data_segs_out` counts this skb before its departure time is advanced.
        self.stats.data_segs_out += n as u64;
        let sent = self.xmit(io, p);
        let mut s = start;
        while s < end {
            let e = (s + mss as u64).min(end);
            self.segs.push_back(Seg {
                start: s,
                end: e,
                sent,
                sacked: false,
                lost: false,
                retrans: false,
                ever_retrans: false,
                psh: false,
            });
            s = e;
        }
        if psh {
            if let Some(last) = self.segs.back_mut() {
                last.psh = true;
            }
        }
        self.tp.snd_nxt = end;
        if !self.rto_timer.is_armed() {
            let at = io.now + self.current_rto();
            self.arm_rto(io, at);
        }
    }

    /// Send segment `i` again (`__tcp_retransmit_skb`): its PSH kept, marked a
    /// retransmission, counted; returns when it left, which becomes its send time.
    fn resend(&mut self, io: &mut Io, i: usize) -> SimTime {
        let s = self.segs[i];
        let mut p = self.data_packet(io.now, s.start, (s.end - s.start) as u32);
        if s.psh {
            p.flags |= PSH;
        }
        p.retrans = true;
        p.ecn = self.retrans_ecn();
        self.stats.retrans_segs += 1;
        self.stats.data_segs_out += 1;
        let sent = self.xmit(io, p);
        let seg = &mut self.segs[i];
        seg.sent = sent;
        seg.ever_retrans = true;
        sent
    }

    /// Retransmit the lowest lost, un-SACKed segment not already retransmitted.
    fn retransmit_next_lost(&mut self, io: &mut Io) -> bool {
        let start_idx = self.seg_index(self.lost_hint);
        for i in start_idx..self.segs.len() {
            let s = self.segs[i];
            if s.lost && !s.retrans && !s.sacked {
                let sent = self.resend(io, i);
                self.segs[i].retrans = true;
                self.retrans_out += 1;
                self.lost_pending -= 1;
                self.lost_hint = s.end;
                self.rack_note_retransmit(s.start, sent);
                self.undo_note_retransmit();
                // A pending probe gives way to the RTO (`tcp_xmit_retransmit_queue`).
                if !self.rto_timer.is_armed() || self.loss.pending == Pending::Probe {
                    let at = io.now + self.current_rto();
                    self.arm_rto(io, at);
                }
                return true;
            }
        }
        // Nothing found: the count was stale (segments got SACKed/acked).
        self.lost_pending = 0;
        false
    }

    // ----- receiving ----------------------------------------------------------------

    /// Handle a segment from the receiver.
    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        self.tp.now = io.now;
        // TS.Recent (RFC 7323 §4.3): the peer sends no data, so every in-window ACK
        // qualifies; keep the newest.
        self.ts_recent = self.ts_recent.max(p.tsval);
        match self.state {
            SndState::SynSent => {
                if p.flags & SYN != 0 && p.flags & ACK != 0 {
                    self.on_synack(p, io);
                }
            }
            SndState::Established => {
                if p.flags & ACK != 0 && p.flags & SYN == 0 {
                    self.on_ack(p, io);
                    if p.flags & FIN != 0 {
                        self.on_peer_fin(p, io);
                    }
                } else if p.flags & SYN != 0 {
                    // Retransmitted SYN-ACK: our ACK was lost; ACK again.
                    self.send_pure_ack(io);
                }
            }
            SndState::Listen | SndState::SynRcvd => self.on_packet_listen(p, io),
            SndState::Idle => {}
        }
    }

    fn send_pure_ack(&mut self, io: &mut Io) {
        let mut p = self.template(io.now);
        p.flags = ACK;
        if self.tp.ecn_ok && self.cc.needs_ecn() {
            p.ecn = ECT0; // the DCTCP socket keeps ECT on everything it sends
        }
        p.seq = self.tp.snd_nxt.max(1);
        p.ack = self.hs.rcv_nxt;
        p.size = IP_TCP_HDR + self.ts_len();
        self.xmit(io, p);
    }

    fn on_synack(&mut self, p: &Packet, io: &mut Io) {
        self.negotiate();
        self.hs.rcv_nxt = p.seq + 1;
        self.state = SndState::Established;
        self.stats.established_at = Some(io.now);
        self.tp.snd_una = 1;
        self.tp.snd_nxt = 1;
        self.peer_window(p.rwnd);
        self.tp.ecn_ok =
            (self.cfg.ecn || self.cc.needs_ecn()) && p.flags & ECE != 0 && p.flags & CWR == 0;
        if self.syn_tx == 1 {
            self.rtt.sample(io.now - self.syn_sent_at, 1, 1);
            self.update_srtt();
        } else {
            // Lost SYN: IW = 1 (RFC 5681 §3.1), RTO falls back to 3 s until a sample.
            self.tp.snd_cwnd = 1;
            self.rtt.set_rto_no_sample(3 * SEC);
        }
        self.backoff = 0;
        self.rto_timer.disarm();
        self.cc.init(&mut self.tp);
        self.update_pacing_rate();
        self.send_pure_ack(io);
        self.try_send(io);
    }

    fn update_srtt(&mut self) {
        self.tp.srtt_us = ((self.rtt.srtt() / crate::engine::US) << 3).min(u32::MAX as u64) as u32;
        self.tp.min_rtt_us = (self.rtt.min_rtt / crate::engine::US).min(u32::MAX as u64) as u32;
    }

    fn on_ack(&mut self, p: &Packet, io: &mut Io) {
        let ack = p.ack;
        if ack > self.tp.snd_nxt {
            return; // acks data never sent
        }
        let prior_una = self.tp.snd_una;
        if self.loss.v318 {
            self.ack_start_3_18(io); // `sender/early_retrans.rs`
        }
        // `prior_fack` (Linux `tcp_ack`): `tcp_highest_sack_seq` before this ACK.
        self.loss.prior_fack = self.highest_sack_seq();
        self.loss.orig_acked = false;
        let rack = self.rack_on();
        let mut cum_reord = u64::MAX;
        let mut rack_orig: Option<(u64, SimTime)> = None;
        let prior_in_flight = self.in_flight();
        let prior_delivered = self.tp.delivered;
        let prior_wnd = self.snd_wnd;
        self.peer_window(p.rwnd);
        if self.loss.pending == Pending::Probe0 {
            self.ack_probe(io);
        }
        let ece = self.tp.ecn_ok && p.flags & ECE != 0;
        if ece {
            self.stats.ece_acks += 1;
        }

        // Cumulative ACK: clean the retransmit queue (Linux `tcp_clean_rtx_queue`).
        let mut acked_segs = 0u32;
        let mut first_ackt: Option<SimTime> = None;
        let mut last_ackt: Option<SimTime> = None;
        let mut newly_delivered = 0u32;
        let mut retrans_data_acked = false;
        while let Some(s) = self.segs.front() {
            if s.end > ack {
                break;
            }
            let s = self.segs.pop_front().unwrap();
            acked_segs += 1;
            if s.sacked {
                self.sacked_out -= 1;
            } else {
                newly_delivered += 1;
            }
            if s.lost {
                self.lost_out -= 1;
                if !s.retrans && !s.sacked {
                    self.lost_pending = self.lost_pending.saturating_sub(1);
                }
            }
            if s.retrans {
                self.retrans_out -= 1;
            }
            if s.ever_retrans {
                retrans_data_acked = true;
            } else if !s.sacked {
                first_ackt.get_or_insert(s.sent);
                last_ackt = Some(s.sent);
                cum_reord = cum_reord.min(s.start);
                if s.end <= self.high_seq {
                    self.loss.orig_acked = true; // FLAG_ORIG_SACK_ACKED
                }
            }
            // `tcp_clean_rtx_queue`: RACK hears of every newly delivered segment, but not
            // of a retransmission the ACK's timestamp shows was needless. Segments sent
            // once are in send order: of a run of them only the last one's call matters
            // (the latest send time, and the RTT the last call leaves), so it is made when
            // a retransmitted one comes or the loop ends.
            if rack && !s.sacked {
                if !s.ever_retrans {
                    rack_orig = Some((s.end, s.sent));
                } else if !(p.tsecr > 0 && p.tsecr < s.sent) {
                    if let Some((e, t)) = rack_orig.take() {
                        self.rack_advance(false, e, t);
                    }
                    self.rack_advance(true, s.end, s.sent);
                }
            }
        }
        if let Some((e, t)) = rack_orig {
            self.rack_advance(false, e, t);
        }
        if ack > prior_una {
            self.stats.bytes_acked += ack - prior_una;
            self.tp.snd_una = ack;
            // SACKed segments below the new snd_una left the scoreboard: drop them from the
            // top-3 list (ascending, so they form a prefix).
            let keep = self.top_sacked[..self.n_top]
                .iter()
                .filter(|&&s| s >= ack)
                .count();
            let drop = self.n_top - keep;
            self.top_sacked.copy_within(drop..self.n_top, 0);
            self.n_top = keep;
        }
        let dsack = if self.cfg.dsack && self.cfg.sack {
            self.check_dsack(p, prior_una)
        } else {
            undo::Dsack::default()
        };
        let newly_sacked = if self.cfg.sack {
            self.process_sacks(p)
        } else {
            0
        };
        newly_delivered += newly_sacked + dsack.dup_segs;
        if self.cfg.sack {
            // Reordering (`tcp_sacktag_write_queue`, `tcp_clean_rtx_queue`): a segment
            // below the highest SACKed one delivered without retransmission.
            let reord = std::mem::replace(&mut self.loss.reord, u64::MAX);
            if reord != u64::MAX
                && (self.tp.ca_state != CaState::Loss || self.loss.undo_marker != 0)
            {
                self.check_sack_reordering(reord);
            }
            if cum_reord < self.loss.prior_fack {
                self.check_sack_reordering(cum_reord);
            }
        }
        if rack {
            self.rack_update_reo_wnd();
        }

        // Duplicate ACK (RFC 5681 §2 / RFC 6675 §2).
        let is_dup = ack == prior_una
            && !self.segs.is_empty()
            && p.payload == 0
            && (if self.cfg.sack {
                newly_sacked > 0
            } else {
                p.rwnd == prior_wnd
            });
        if is_dup {
            self.stats.dupacks += 1;
            if !self.cfg.sack {
                // NewReno: each duplicate ACK means one segment has left the network.
                if self.reno_dupacks + 1 < self.packets_out() {
                    self.reno_dupacks += 1;
                    self.sacked_out += 1;
                    newly_delivered += 1;
                }
            }
        } else if !self.cfg.sack && acked_segs > 0 {
            // `tcp_remove_reno_sacks`: cumulatively acked segments consume dupack credits.
            let d = acked_segs.min(self.reno_dupacks);
            self.reno_dupacks -= d;
            self.sacked_out -= d;
            newly_delivered = newly_delivered.saturating_sub(d);
        }
        if !self.cfg.sack && self.segs.is_empty() {
            self.sacked_out -= self.reno_dupacks;
            self.reno_dupacks = 0;
        }
        self.tp.delivered += newly_delivered as u64;
        if ece {
            self.tp.delivered_ce += newly_delivered as u64;
        }

        // RTT sample (Linux `tcp_clean_rtx_queue` + `tcp_ack_update_rtt`): from the send time
        // of the acked segments, unless the ACK covers retransmitted data (Karn); then from
        // the echoed timestamp (RFC 7323 §4), which names the segment that moved the edge.
        let mut rtt_us = -1i64;
        let seq_rtt = match first_ackt {
            Some(t) if !retrans_data_acked => Some((io.now - t, io.now - last_ackt.unwrap_or(t))),
            _ if ack > prior_una && self.hs.ts && p.tsecr > 0 && p.tsecr <= io.now => {
                Some((io.now - p.tsecr, io.now - p.tsecr))
            }
            _ => None,
        };
        if let Some((seq_rtt, ca_rtt)) = seq_rtt {
            self.rtt.sample(seq_rtt, self.tp.snd_una, self.tp.snd_nxt);
            self.update_srtt();
            rtt_us = (ca_rtt / crate::engine::US) as i64;
        }
        // `FLAG_SET_XMIT_TIMER`: with RACK or TLP the timer is set after loss detection
        // (`tcp_set_xmit_timer`), unless RACK armed the reordering timer.
        let mut set_xmit_timer = false;
        if ack > prior_una {
            self.backoff = 0;
            if rack || self.cfg.tlp {
                set_xmit_timer = true;
            } else {
                self.rearm_rto(io);
            }
        }
        if acked_segs > 0 || newly_sacked > 0 {
            let sample = AckSample {
                pkts_acked: acked_segs + newly_sacked,
                rtt_us,
                in_flight: prior_in_flight,
            };
            self.cc.pkts_acked(&mut self.tp, &sample);
        }
        // `tcp_in_ack_event`, which an ACK below snd_una never reaches (`old_ack`).
        if ack >= prior_una {
            let mut flags = 0;
            if ece {
                flags |= CA_ACK_ECE;
            }
            // `tcp_may_update_window` (FLAG_WIN_UPDATE): the ACK moved snd_una, carried data
            // or opened the window.
            if ack == prior_una {
                flags |= CA_ACK_SLOWPATH;
                if p.payload > 0 || p.rwnd > prior_wnd {
                    flags |= CA_ACK_WIN_UPDATE;
                }
            } else {
                flags |= CA_ACK_WIN_UPDATE;
            }
            self.cc.in_ack_event(&mut self.tp, flags);
        }

        let not_dup = ack > prior_una || p.payload > 0 || p.rwnd != prior_wnd;
        if self.loss.tlp_high_seq != 0 {
            self.process_tlp_ack(ack, dsack.tlp, not_dup, newly_sacked > 0);
        }

        // Loss detection: RFC 6675 IsLost here, RACK in the state machine.
        let mut newly_lost = 0;
        let lost_before = self.lost_out;
        if self.cfg.sack && !rack {
            if self.loss.fack {
                // FACK (`sender/fack.rs`); the entry into recovery marks in the state machine.
                newly_lost += self.fack_on_ack(is_dup, newly_sacked > 0, ack > prior_una);
            } else if self.sacked_out >= self.loss.reordering
                || self.tp.ca_state == CaState::Recovery
            {
                newly_lost += self.mark_lost_by_sack();
            }
        }
        let dupacks_now = if self.cfg.sack {
            self.sacked_out
        } else {
            self.reno_dupacks
        };

        let ev = rack::AckEvent {
            // `tcp_ack_is_dubious`.
            dubious: !not_dup || newly_sacked > 0 || ece || self.tp.ca_state != CaState::Open,
            una_advanced: ack > prior_una,
            sacked_or_dup: newly_sacked > 0 || is_dup,
        };
        if self.congestion_state_machine(io, ack, prior_una, ece, dupacks_now, newly_lost, ev) {
            set_xmit_timer = false; // RACK armed the reordering timer
        }
        if rack {
            newly_lost = self.lost_out.saturating_sub(lost_before);
        }
        if set_xmit_timer && !self.schedule_loss_probe(io, true) {
            self.rearm_rto(io);
        } else if !set_xmit_timer && self.loss.v318 {
            self.ack_end_3_18(io); // `sender/early_retrans.rs`
        }

        // Cwnd: reduce (PRR) or grow (Linux `tcp_cong_control`).
        let delivered = (self.tp.delivered - prior_delivered) as u32;
        match self.tp.ca_state {
            CaState::Recovery | CaState::Cwr => {
                if self.cfg.prr {
                    self.prr_reduction(delivered, newly_lost > 0, ack > prior_una);
                } else if !self.cfg.sack && self.tp.ca_state == CaState::Recovery && is_dup {
                    // RFC 6582 §3.2 step 3: inflate by one per duplicate ACK.
                    self.tp.snd_cwnd += 1;
                }
            }
            _ => {
                // `tcp_may_raise_cwnd` (Linux 6.6, reordering at its initial value): only an
                // ACK that advances snd_una (FLAG_DATA_ACKED) raises cwnd, by every segment
                // delivered; SACKs and duplicate ACKs alone do not (RFC 5681 §3.1).
                if ack > prior_una {
                    let acked = match self.cfg.growth {
                        Growth::Segments => delivered,
                        Growth::Acks => 1,
                        Growth::SlowStartSegments if self.tp.in_slow_start() => delivered,
                        Growth::SlowStartSegments => 1,
                    };
                    self.tp.is_cwnd_limited = self.is_cwnd_limited();
                    if acked > 0 {
                        self.cc.cong_avoid(&mut self.tp, acked);
                    }
                }
            }
        }

        self.update_pacing_rate();

        // Byte-count flow finished?
        if self.app_closed && self.segs.is_empty() && self.tp.snd_una >= self.write_seq {
            self.done_at.get_or_insert(io.now);
            self.rto_timer.disarm();
        }
        self.try_send(io);
        if self.loss.rexmit_new {
            // F-RTO step 2.b (`tcp_xmit_recovery` with REXMIT_NEW): no new data went out
            // after all: retransmit.
            self.loss.rexmit_new = false;
            if self.tp.snd_nxt <= self.high_seq {
                self.loss.frto = false;
                self.try_send(io);
            }
        }
    }

    // ----- timers -------------------------------------------------------------------

    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        self.tp.now = io.now;
        if kind != TimerKind::Rto {
            return self.on_pace_or_tsq(kind, io);
        }
        match self.rto_timer.on_event(io.now) {
            TimerCheck::Idle => {}
            TimerCheck::Reschedule(t) => io.timers.push((t, TimerKind::Rto)),
            // `tcp_write_timer_handler`: the pending event says which timer this is.
            TimerCheck::Fire => match self.loss.pending {
                Pending::Rto => self.on_rto(io),
                Pending::Reo => self.rack_reo_timeout(io),
                Pending::Probe => self.send_loss_probe(io),
                Pending::Probe0 => self.send_probe0(io),
                Pending::EarlyRetrans => self.resume_early_retransmit(io),
            },
        }
    }

    fn on_rto(&mut self, io: &mut Io) {
        match self.state {
            SndState::SynSent => {
                self.backoff += 1;
                self.send_syn(io);
            }
            SndState::Established => {
                if self.segs.is_empty() {
                    return;
                }
                self.loss.tlp_high_seq = 0;
                self.stats.timeouts += 1;
                if self.backoff == 0
                    && matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
                    && self.sacked_out == 0
                {
                    self.stats.other_timeouts += 1;
                }
                self.enter_loss();
                self.backoff += 1;
                self.try_send(io);
                let at = io.now + self.current_rto();
                self.arm_rto(io, at);
            }
            SndState::SynRcvd => self.on_synack_timeout(io),
            SndState::Listen | SndState::Idle => {}
        }
    }
}

/// Payload bytes per segment for an MTU: MSS = MTU − 40, minus 12 for timestamps (Linux
/// `mss_cache`, e.g. 1448 for MTU 1500).
pub fn payload_mss(mtu: u32) -> u32 {
    mtu - IP_TCP_HDR - TS_OPT
}
