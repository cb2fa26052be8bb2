//! The data-receiving half of a TCP connection (the listener).
//!
//! - Handshake: SYN → SYN-ACK (ECN-setup SYN-ACK = SYN|ACK|ECE when the SYN asked for ECN
//!   and this end allows it, RFC 3168 §6.1.1); a retransmitted SYN gets the SYN-ACK again.
//! - Reassembly with an out-of-order list; SACK blocks (RFC 2018 §4: the first block holds
//!   the most recently received segment, then the most recently reported others), at most 3.
//! - Delayed ACKs as Linux (`__tcp_ack_snd_check`): an ACK for every second full segment,
//!   otherwise after `delack_timeout` (`TCP_DELACK_MIN` = 40 ms); immediately for the first
//!   `quickack` segments, for out-of-order data and for segments that fill a hole.
//! - D-SACK (RFC 2883 §4, Linux `tcp_dsack_set` / `tcp_dsack_extend`): a duplicate
//!   segment below rcv_nxt, or one already held out of order, is reported once as the
//!   first SACK block of the next ACK, before the ordinary blocks (`dsack` key).
//! - Timestamps (RFC 7323 §4.3): TS.Recent is taken only from a segment at the left edge,
//!   so a delayed ACK echoes the earlier segment's time.
//! - ECN (RFC 3168 §6.1.3): after a CE packet, ECE on every ACK until a CWR segment
//!   arrives; the first CE also forces quick ACKs for 2 segments (Linux `tcp_ecn_check_ce`).
//! - DCTCP receiver (RFC 8257 §3.2, Linux `tcp_dctcp.h: dctcp_ece_ack_update`): ECE on an
//!   ACK mirrors the CE state of the latest packet; when that state flips, a pending
//!   delayed ACK is first sent for the data before the flip with the old state, then an
//!   immediate ACK with the new one, so the sender sees the exact marked fraction.
//! - Listener ECN acceptance (Linux `tcp_ecn_create_request`): an ECN-setup SYN is accepted
//!   if it is not ECT and ECN is enabled here, or if this end's module needs ECN (DCTCP);
//!   the SYN-ACK and every ACK of a DCTCP socket are ECT(0).
//! - Accurate ECN (RFC 9768, `tcp/accecn.rs`): an AccECN-setup SYN (AE|CWR|ECE) is
//!   accepted when `ecn` is 3 to 5 or the module needs AccECN; the SYN-ACK's ACE echoes the
//!   SYN's IP-ECN codepoint; every ACK then carries the CE packet count mod 8 in ACE and,
//!   when `ecn_option` allows and it fits, the AccECN option's byte counters; a change of
//!   the IP-ECN field is acknowledged at once (`tcp_ecn_received_counters`); no ECE latch.
//! - Linux's quick-ack count from the window (`receiver/quickack.rs`) and the receive
//!   window of 2.6 — initial window, `tcp_grow_window`, autotuning (`receiver/window.rs`).

mod quickack;
mod window;

use super::accecn::{self, RcvCounters};
use super::Addr;
use crate::cc::ReceiverNeeds;
use crate::engine::{SimTime, Timer, TimerCheck};
use crate::packet::*;
use crate::tcp::config::TcpConfig;
use crate::transport::{Io, TimerKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcvState {
    Listen,
    SynRcvd,
    Established,
}

/// Counters of the receiving side.
#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    pub acks_sent: u64,
    /// Delayed-ACK timer expiries that sent an ACK (Linux `LINUX_MIB_DELAYEDACKS`).
    pub delack_timeouts: u64,
    pub data_segs_in: u64,
    pub dup_segs_in: u64,
    pub ooo_segs_in: u64,
    pub ce_segs_in: u64,
}

/// A receiver's Accurate ECN state: the counters, the sysctls and what the handshake
/// told.
#[derive(Clone, Debug, Default)]
pub struct AccEcnRcv {
    pub counters: RcvCounters,
    /// The SYN's IP-ECN codepoint (`syn_ect_rcv`), echoed in the SYN-ACK's ACE.
    syn_ect: u8,
    /// `net.ipv4.tcp_ecn_option`, `tcp_ecn_option_beacon`.
    option: u8,
    beacon: u32,
    /// The peer sent an AccECN option (`saw_accecn_opt`): only then do options go.
    saw_opt: bool,
    /// The handshake's RTT (SYN-ACK to third ACK), the beacon's period; when the SYN-ACK
    /// went.
    srtt: SimTime,
    synack_at: SimTime,
    /// AccECN options sent, and ACKs that could not fit one.
    pub options_sent: u64,
}

impl AccEcnRcv {
    /// Write the ACE field and, where `ecn_option` asks for it and it fits, the AccECN
    /// option onto the ACK `a` (`tcp_accecn_set_ace`, `tcp_established_options`,
    /// `tcp_options_fit_accecn`): the RFC 3168 ECE it may carry is replaced.
    fn ack(&mut self, a: &mut Packet, now: SimTime) {
        a.flags = accecn::with_ace(a.flags, self.counters.ace());
        let beacon =
            self.beacon > 0 && (now - self.counters.opt_sent_at) * self.beacon as u64 >= self.srtt;
        if self.option == 0
            || !self.saw_opt
            || !(self.option >= 2 || self.counters.demand > 0 || beacon)
        {
            return;
        }
        let Some((fields, bytes, nsack)) =
            accecn::fit_option(self.counters.minlen, TS_OPT, a.nsack as usize)
        else {
            return;
        };
        // Without timestamps Linux keeps 3 SACK blocks beside a full option; the option's
        // slot is the third here (`tcp/accecn.rs`), so cclab keeps 2.
        let nsack = nsack.min(MAX_SACK - 1);
        a.size += bytes;
        a.size -= sack_opt_len(a.nsack as usize) - sack_opt_len(nsack);
        a.nsack = nsack as u8;
        accecn::put_option(a, &self.counters.option(fields));
        self.counters.option_sent(now);
        self.options_sent += 1;
    }
}

#[derive(Clone, Copy, Debug)]
struct OooRange {
    start: u64,
    end: u64,
}

/// Linux `TCP_NUM_SACKS`: SACK blocks remembered (at most `MAX_SACK` fit beside timestamps).
const TCP_NUM_SACKS: usize = 4;

pub struct Receiver {
    pub addr: Addr,
    pub state: RcvState,
    sack: bool,
    /// RFC 2883 D-SACK (`net.ipv4.tcp_dsack`), and the block to report next (Linux
    /// `duplicate_sack[0]`, `rx_opt.dsack`).
    dsack_on: bool,
    dsack: Option<(u64, u64)>,
    ecn_allowed: bool,
    /// What this end's congestion control needs here (ECN; DCTCP's CE state machine).
    needs: ReceiverNeeds,
    /// The ECT codepoint of what this end sends when its module needs ECN: ECT(1) if the
    /// module wants it (`ReceiverNeeds::ect_1`), else ECT(0).
    ect: u8,
    syn_ect: bool,
    pub ecn_ok: bool,
    /// Accurate ECN: allowed here, and negotiated (its counters, `tcp/accecn.rs`); boxed,
    /// out of the way of a classic connection.
    accecn_allowed: bool,
    pub accecn: Option<Box<AccEcnRcv>>,
    ecn_option: u8,
    ecn_option_beacon: u32,
    /// DCTCP `ce_state` and `prior_rcv_nxt`.
    pub ce_state: bool,
    prior_rcv_nxt: u64,
    delayed_ack: bool,
    delack_timeout: SimTime,
    quickack_left: u32,
    /// `quickack = "rcv_wnd"` (`receiver/quickack.rs`), and whether data has arrived yet.
    quickack_rcv_wnd: bool,
    data_seen: bool,
    /// Linux `icsk_ack.rcv_mss` and the window last advertised (`tp->rcv_wnd`).
    rcv_mss: u32,
    rcv_wnd: u64,
    /// The modelled receive window (`receiver/window.rs`); `None`: all of `rcvbuf`.
    win: Option<window::RcvWindow>,
    rcvbuf: u64,
    pub rcv_nxt: u64,
    ooo: Vec<OooRange>,
    ooo_bytes: u64,
    /// Linux `tp->selective_acks[]` / `rx_opt.num_sacks`: the SACK blocks to report, most
    /// recently changed first, kept up to date per segment (`tcp_sack_new_ofo_skb`,
    /// `tcp_sack_remove`) so an ACK never scans the out-of-order queue.
    sacks: [(u64, u64); TCP_NUM_SACKS],
    num_sacks: usize,
    /// Right edge of the advertised window.
    rcv_right: u64,
    /// Full segments received and not yet acknowledged.
    unacked_segs: u32,
    pub delack_timer: Timer,
    /// RFC 3168 ECE latch (Linux `TCP_ECN_DEMAND_CWR`).
    ece_latch: bool,
    ts_recent: SimTime,
    last_ack_sent: u64,
    pub stats: ReceiverStats,
    /// Payload bytes delivered in order to the application.
    pub delivered_bytes: u64,
    pub last_delivery: SimTime,
    /// IPv4 ID of the next ACK (Linux `inet_id` of the accepted socket).
    inet_id: u16,
}

impl Receiver {
    /// The listener of a connection whose congestion control needs `needs` here.
    pub fn new(addr: Addr, cfg: &TcpConfig, needs: ReceiverNeeds) -> Receiver {
        Receiver {
            addr,
            state: RcvState::Listen,
            sack: cfg.sack,
            dsack_on: cfg.sack && cfg.dsack,
            dsack: None,
            ecn_allowed: cfg.ecn_in(),
            accecn_allowed: cfg.accecn_in(),
            accecn: None,
            ecn_option: cfg.ecn_option,
            ecn_option_beacon: cfg.ecn_option_beacon,
            needs,
            ect: if needs.ect_1 { ECT1 } else { ECT0 },
            syn_ect: cfg.syn_ect,
            ecn_ok: false,
            ce_state: false,
            prior_rcv_nxt: 0,
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            quickack_left: if cfg.quickack_rcv_wnd {
                0
            } else {
                cfg.quickack
            },
            quickack_rcv_wnd: cfg.quickack_rcv_wnd,
            data_seen: false,
            rcv_mss: quickack::TCP_MIN_RCVMSS,
            rcv_wnd: 0,
            win: window::RcvWindow::new(cfg),
            rcvbuf: cfg.rcvbuf,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            sacks: [(0, 0); TCP_NUM_SACKS],
            num_sacks: 0,
            rcv_right: 0,
            unacked_segs: 0,
            delack_timer: Timer::default(),
            ece_latch: false,
            ts_recent: 0,
            last_ack_sent: 0,
            stats: ReceiverStats::default(),
            delivered_bytes: 0,
            last_delivery: 0,
            inet_id: super::initial_inet_id(addr.conn ^ addr.gen.rotate_left(16), false),
        }
    }

    /// The receiving end of a connection whose ends run congestion control `cc`: what the
    /// module needs here (`receiver_needs`), and Accurate ECN accepted whatever `ecn` says
    /// when the module needs it (`TCP_CONG_NEEDS_ACCECN`, `CongestionOps::needs_accecn`).
    pub fn for_module(addr: Addr, cfg: &TcpConfig, cc: &crate::cc::Cc) -> Receiver {
        use crate::cc::CongestionOps;
        let mut r = Receiver::new(addr, cfg, cc.receiver_needs());
        r.accecn_allowed |= cc.needs_accecn();
        r
    }

    fn template(&self, now: SimTime) -> Packet {
        self.addr.segment(false, now)
    }

    /// Advertised window: the receive buffer less what waits out of order, but the right
    /// edge never moves left (RFC 7323 §2.4, Linux `tcp_select_window`), so duplicate ACKs
    /// during a loss carry the same window, as RFC 5681 requires of them.
    fn rwnd(&mut self) -> u64 {
        let free = match &self.win {
            None => self.rcvbuf.saturating_sub(self.ooo_bytes),
            // `__tcp_select_window`: the free space, at most rcv_ssthresh.
            Some(w) => w.clamp.saturating_sub(self.ooo_bytes).min(w.rcv_ssthresh),
        };
        self.rcv_right = self.rcv_right.max(self.rcv_nxt + free);
        self.rcv_wnd = self.rcv_right - self.rcv_nxt;
        self.rcv_wnd
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        if p.flags & SYN != 0 {
            self.on_syn(p, io);
            return;
        }
        if self.state == RcvState::SynRcvd && p.flags & ACK != 0 {
            self.state = RcvState::Established;
            self.rcv_nxt = self.rcv_nxt.max(1);
            if let Some(a) = self.accecn.as_deref_mut() {
                a.srtt = io.now - a.synack_at;
                // `tcp_ecn_openreq_child` (`tcp_minisocks.c`, AccECN): one option is owed once
                // established, before the third ACK's IP-ECN field is counted below.
                a.counters.demand = 1;
            }
        }
        if self.state != RcvState::Established || p.payload == 0 {
            if self.accecn.is_some() {
                self.accecn_on_pure_ack(p);
            }
            return;
        }
        self.on_data(p, io);
    }

    /// A pure ACK from the peer: its option enables ours (`saw_accecn_opt`), its CE mark
    /// counts too (`tcp_ecn_received_counters`).
    fn accecn_on_pure_ack(&mut self, p: &Packet) {
        if let Some(a) = self.accecn.as_deref_mut() {
            a.saw_opt |= accecn::option(p).is_some();
            a.counters.on_segment(p.ecn, 1, 0);
        }
    }

    fn on_syn(&mut self, p: &Packet, io: &mut Io) {
        if self.state == RcvState::Listen {
            self.state = RcvState::SynRcvd;
            self.rcv_nxt = 1;
            let ecn_setup = p.flags & ECE != 0 && p.flags & CWR != 0;
            self.ecn_ok = ecn_setup && ((!p.is_ect() && self.ecn_allowed) || self.needs.ecn);
            // `tcp_ecn_create_request`: an AccECN-setup SYN, where AccECN is allowed.
            if self.accecn_allowed && accecn::syn_requests_accecn(p.flags) {
                self.ecn_ok = true;
                self.needs.ce_state = false;
                self.ece_latch = true;
                self.accecn = Some(Box::new(AccEcnRcv {
                    counters: RcvCounters {
                        prev: p.ecn,
                        ..Default::default()
                    },
                    syn_ect: p.ecn,
                    option: self.ecn_option,
                    beacon: self.ecn_option_beacon,
                    ..Default::default()
                }));
            }
            self.prior_rcv_nxt = 1;
            self.ts_recent = p.tsval;
        } else if self.state == RcvState::Established {
            return;
        }
        let mut a = self.template(io.now);
        a.flags = SYN | ACK;
        a.size = IP_TCP_HDR + 20;
        if let Some(acc) = self.accecn.as_deref_mut() {
            // `tcp_accecn_echo_syn_ect`; the first SYN-ACK carries the option with the
            // counters' initial values (`tcp_synack_options`: 12 bytes beside MSS, SACK-
            // permitted, timestamps and window scale), a retransmitted one does not.
            a.flags = accecn::with_ace(a.flags, accecn::synack_ace(acc.syn_ect));
            if acc.option > 0 && self.state == RcvState::SynRcvd && acc.synack_at == 0 {
                accecn::put_option(&mut a, &RcvCounters::default().option(3));
                a.size += 12;
            }
            acc.synack_at = io.now.max(1);
            if self.needs.ecn && self.syn_ect {
                a.ecn = self.ect;
            }
        } else if self.ecn_ok {
            a.flags |= ECE;
            // ECT on the SYN-ACK only for a module that needs ECN (Linux
            // `tcp_ecn_send_synack` with `tcp_ca_needs_ecn`).
            if self.needs.ecn && self.syn_ect {
                a.ecn = self.ect;
            }
        }
        a.seq = 0;
        a.ack = 1;
        a.rwnd = self.rwnd();
        a.tsecr = p.tsval;
        // IP ID 0: Linux sends the SYN-ACK from the request socket through
        // `ip_build_and_send_pkt`, which gives a DF packet ID 0 (since 5.17, "ipv4: tcp:
        // send zero IPID in SYNACK messages"); the ID counter starts with the accepted socket.
        a.ip_id = 0;
        io.tx.push(a);
        self.stats.acks_sent += 1;
    }

    fn on_data(&mut self, p: &Packet, io: &mut Io) {
        // A GRO aggregate counts its segments (`data_segs_in += gso_segs`).
        let segs = p.segs.max(1) as u64;
        self.stats.data_segs_in += segs;
        // ECN: CWR clears the latch, then CE sets it (Linux order).
        let mut force_now = false;
        if self.ecn_ok && self.needs.ce_state {
            if p.ecn == CE {
                self.stats.ce_segs_in += segs;
            }
        } else if self.ecn_ok {
            if let Some(a) = self.accecn.as_deref_mut() {
                // `tcp_ecn_received_counters`: no latch; an edge of the IP-ECN field is
                // ACKed now, so the sender can tell which packets were marked. (AccECN
                // connections run without DCTCP's CE state machine, `needs.ce_state`: the
                // edge's ACK does its work.)
                force_now = a.counters.on_segment(p.ecn, segs as u32, p.payload);
                a.saw_opt |= accecn::option(p).is_some();
                if p.ecn == CE {
                    self.stats.ce_segs_in += segs;
                }
            } else {
                if p.flags & CWR != 0 {
                    self.ece_latch = false;
                }
                if p.ecn == CE {
                    self.stats.ce_segs_in += segs;
                    if !self.ece_latch {
                        self.quickack_left = self.quickack_left.max(2);
                        self.ece_latch = true;
                    }
                }
            }
        }
        let (s, e) = (p.seq, p.seq + p.payload as u64);
        if s <= self.last_ack_sent.max(self.rcv_nxt) && p.tsval >= self.ts_recent {
            self.ts_recent = p.tsval;
        }
        if self.quickack_rcv_wnd || self.win.is_some() {
            self.measure_rcv_mss(p.payload / segs as u32);
        }
        // `tcp_enter_quickack_mode` on data not at rcv_nxt (before 4.18).
        if self.quickack_rcv_wnd && s != self.rcv_nxt {
            self.incr_quickack();
            self.data_seen = true;
        }
        if e <= self.rcv_nxt {
            // Entirely old: a spurious retransmission. ACK at once, with a D-SACK.
            self.stats.dup_segs_in += 1;
            if self.dsack_on {
                self.dsack = Some((s, e));
            }
            force_now = true;
        } else if s <= self.rcv_nxt {
            if s < self.rcv_nxt && self.dsack_on {
                self.dsack = Some((s, self.rcv_nxt)); // partly old
            }
            // In order (possibly overlapping the left edge).
            let had_ooo = !self.ooo.is_empty();
            self.advance(e, io.now);
            if had_ooo {
                force_now = true; // a hole was (partly) filled
            }
            self.unacked_segs += segs as u32;
            // `tcp_event_data_recv`: the first data starts the quick-ack count.
            if self.quickack_rcv_wnd && !self.data_seen {
                self.incr_quickack();
            }
            self.data_seen = true;
            if self.win.is_some() {
                self.window_on_data(p, io.now);
            }
        } else {
            self.stats.ooo_segs_in += 1;
            if self.dsack_on {
                // `tcp_data_queue_ofo`: the part already held is a duplicate.
                let i = self.ooo.partition_point(|r| r.end <= s);
                if let Some(r) = self.ooo.get(i).filter(|r| r.start < e) {
                    self.dsack = Some((s.max(r.start), e.min(r.end)));
                }
            }
            self.insert_ooo(s, e);
            if self.sack {
                self.sack_new_ofo(s, e);
            }
            force_now = true;
        }

        if self.ecn_ok && self.needs.ce_state && p.ecn != NOT_ECT {
            // `dctcp_ece_ack_update` (CA_EVENT_ECN_IS_CE / _NO_CE), rcv_nxt already advanced.
            let new_state = p.ecn == CE;
            if new_state != self.ce_state {
                if self.delack_timer.is_armed() && self.unacked_segs > segs as u32 {
                    // Acknowledge the data before this packet with the old CE state (the
                    // ACK clears the delayed-ACK timer, `inet_csk_clear_xmit_timer`).
                    self.emit_ack(io, self.prior_rcv_nxt, self.ce_state);
                    self.unacked_segs = segs as u32;
                    self.last_ack_sent = self.prior_rcv_nxt;
                    self.delack_timer.disarm();
                }
                force_now |= self.needs.ce_ack_now;
            }
            self.prior_rcv_nxt = self.rcv_nxt;
            self.ce_state = new_state;
            self.ece_latch = new_state;
        }
        if !self.delayed_ack || force_now || self.quickack_left > 0 || self.unacked_segs >= 2 {
            if self.quickack_left > 0 {
                self.quickack_left -= 1;
            }
            self.send_ack(io);
        } else if let Some(t) = self.delack_timer.arm(io.now + self.delack_timeout) {
            io.timers.push((t, TimerKind::DelAck));
        }
    }

    fn advance(&mut self, e: u64, now: SimTime) {
        let old = self.rcv_nxt;
        self.rcv_nxt = e;
        // Pull in out-of-order ranges that are now contiguous.
        let mut k = 0;
        while let Some(r) = self.ooo.get(k).copied() {
            if r.start > self.rcv_nxt {
                break;
            }
            self.ooo_bytes -= r.end - r.start;
            self.rcv_nxt = self.rcv_nxt.max(r.end);
            k += 1;
        }
        if k > 0 {
            self.ooo.drain(..k);
        }
        self.delivered_bytes += self.rcv_nxt - old;
        self.last_delivery = now;
        if self.num_sacks > 0 {
            self.sack_remove();
        }
    }

    /// `tcp_sack_new_ofo_skb`: an out-of-order segment [s, e) arrived (new or not). If it
    /// touches a block, that block grows and moves to the front (then absorbs any block it
    /// now reaches, `tcp_sack_maybe_coalesce`); otherwise it becomes a new front block,
    /// pushing out the oldest when all `TCP_NUM_SACKS` are in use.
    fn sack_new_ofo(&mut self, s: u64, e: u64) {
        let extends = |b: (u64, u64), s: u64, e: u64| s <= b.1 && b.0 <= e;
        for i in 0..self.num_sacks {
            if extends(self.sacks[i], s, e) {
                let b = self.sacks[i];
                self.sacks.copy_within(0..i, 1);
                self.sacks[0] = (b.0.min(s), b.1.max(e));
                let mut j = 1;
                while j < self.num_sacks {
                    let w = self.sacks[j];
                    if extends(self.sacks[0], w.0, w.1) {
                        self.sacks[0] = (self.sacks[0].0.min(w.0), self.sacks[0].1.max(w.1));
                        self.sacks.copy_within(j + 1..self.num_sacks, j);
                        self.num_sacks -= 1;
                    } else {
                        j += 1;
                    }
                }
                return;
            }
        }
        let n = self.num_sacks.min(TCP_NUM_SACKS - 1);
        self.sacks.copy_within(0..n, 1);
        self.sacks[0] = (s, e);
        self.num_sacks = n + 1;
    }

    /// `tcp_sack_remove`: blocks now covered by rcv_nxt are dropped.
    fn sack_remove(&mut self) {
        if self.ooo.is_empty() {
            self.num_sacks = 0;
            return;
        }
        let mut j = 0;
        while j < self.num_sacks {
            if self.sacks[j].0 <= self.rcv_nxt {
                debug_assert!(self.sacks[j].1 <= self.rcv_nxt, "rcv_nxt covers the block");
                self.sacks.copy_within(j + 1..self.num_sacks, j);
                self.num_sacks -= 1;
            } else {
                j += 1;
            }
        }
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        // Find ranges overlapping or touching [s, e) and merge them.
        let i = self.ooo.partition_point(|r| r.end < s);
        let mut ns = s;
        let mut ne = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].start <= ne {
            let r = self.ooo[j];
            ns = ns.min(r.start);
            ne = ne.max(r.end);
            self.ooo_bytes -= r.end - r.start;
            j += 1;
        }
        // `splice` written out for its common cases (a new range; one range grown): the
        // generic splice was a call per out-of-order segment.
        let r = OooRange { start: ns, end: ne };
        match j - i {
            0 => self.ooo.insert(i, r),
            1 => self.ooo[i] = r,
            _ => {
                self.ooo[i] = r;
                self.ooo.drain(i + 1..j);
            }
        }
        self.ooo_bytes += ne - ns;
    }

    /// Build and send an ACK for everything received, now.
    pub fn send_ack(&mut self, io: &mut Io) {
        self.emit_ack(io, self.rcv_nxt, self.ece_latch);
        self.unacked_segs = 0;
        self.last_ack_sent = self.rcv_nxt;
        self.delack_timer.disarm();
    }

    /// One ACK packet acknowledging `ack`, with ECE if `ece` (and ECN is on).
    fn emit_ack(&mut self, io: &mut Io, ack: u64, ece: bool) {
        let mut a = self.template(io.now);
        a.flags = ACK;
        a.seq = 1;
        a.ack = ack;
        a.rwnd = self.rwnd();
        a.tsecr = self.ts_recent;
        // `tcp_established_options`: as many blocks as fit beside the timestamp option.
        let n = self.num_sacks.min(MAX_SACK);
        // A fixed-length copy (the unused blocks stay zero): a copy of `n` blocks is a
        // call to `memcpy`, measurable at one per ACK.
        for (i, b) in a.sack.iter_mut().enumerate() {
            *b = if i < n { self.sacks[i] } else { (0, 0) };
        }
        a.nsack = n as u8;
        if let Some(d) = self.dsack.take() {
            // The D-SACK block first, then the ordinary ones that still fit
            // (`tcp_options_write` sends it once).
            let n = self.num_sacks.min(MAX_SACK - 1);
            a.sack.copy_within(0..n, 1);
            a.sack[0] = d;
            a.nsack = n as u8 + 1;
        }
        a.size = IP_TCP_HDR + TS_OPT + sack_opt_len(a.nsack as usize);
        // An AccECN connection holds `ece` set (its latch is never cleared) and writes ACE
        // and the option instead.
        if self.ecn_ok && ece {
            match self.accecn.as_deref_mut() {
                None => a.flags |= ECE,
                Some(acc) => acc.ack(&mut a, io.now),
            }
        }
        if self.ecn_ok && self.needs.ecn {
            a.ecn = self.ect;
        }
        // The accepted socket's IP ID counter (`tcp::initial_inet_id`).
        a.ip_id = self.inet_id;
        self.inet_id = self.inet_id.wrapping_add(1);
        io.tx.push(a);
        self.stats.acks_sent += 1;
    }

    pub fn on_timer(&mut self, io: &mut Io) {
        match self.delack_timer.on_event(io.now) {
            TimerCheck::Idle => {}
            TimerCheck::Reschedule(t) => io.timers.push((t, TimerKind::DelAck)),
            TimerCheck::Fire => {
                if self.unacked_segs > 0 {
                    self.stats.delack_timeouts += 1;
                    self.send_ack(io);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn established() -> Receiver {
        established_with(&TcpConfig {
            delayed_ack: false,
            ..Default::default()
        })
    }

    /// A receiver with `cfg` after the handshake (SYN, then the third ACK).
    pub(super) fn established_with(cfg: &TcpConfig) -> Receiver {
        let mut r = Receiver::new(crate::tcp::harness::Bench::ADDR, cfg, Default::default());
        let mut io = Io::new(0);
        let mut syn = Packet::blank();
        syn.flags = SYN;
        r.on_packet(&syn, &mut io);
        let mut ack = Packet::blank();
        ack.flags = ACK;
        r.on_packet(&ack, &mut io);
        r
    }

    /// Deliver segment `n` (bytes [1 + n·MSS, 1 + (n+1)·MSS)); return the ACK's
    /// (ack, SACK blocks) in segment numbers.
    fn seg(r: &mut Receiver, n: u64) -> (u64, Vec<(u64, u64)>) {
        let mut p = Packet::blank();
        p.flags = ACK;
        p.seq = 1 + n * MSS;
        p.payload = MSS as u32;
        let mut io = Io::new(1);
        r.on_packet(&p, &mut io);
        let a = io.tx.last().expect("an immediate ACK");
        let blocks = a.sack[..a.nsack as usize]
            .iter()
            .map(|&(s, e)| ((s - 1) / MSS, (e - 1) / MSS))
            .collect();
        ((a.ack - 1) / MSS, blocks)
    }

    #[test]
    fn sack_blocks_follow_linux_selective_acks() {
        // Holes at 1, 3, 5, 7, 9: each new out-of-order segment opens a block at the
        // front (RFC 2018 §4: the most recent first); 3 fit beside timestamps, 4 are kept.
        let mut r = established();
        assert_eq!(seg(&mut r, 0), (1, vec![]));
        assert_eq!(seg(&mut r, 2), (1, vec![(2, 3)]));
        assert_eq!(seg(&mut r, 4), (1, vec![(4, 5), (2, 3)]));
        assert_eq!(seg(&mut r, 6), (1, vec![(6, 7), (4, 5), (2, 3)]));
        assert_eq!(seg(&mut r, 8), (1, vec![(8, 9), (6, 7), (4, 5)]));
        // A fifth block pushes out the oldest remembered one, [2, 3).
        assert_eq!(seg(&mut r, 10), (1, vec![(10, 11), (8, 9), (6, 7)]));
        // Extending a block moves it to the front (`tcp_sack_extend`); the forgotten
        // [2, 3) is not reported although it is in the out-of-order queue (as Linux).
        assert_eq!(seg(&mut r, 3), (1, vec![(3, 5), (10, 11), (8, 9)]));
        // Filling 7 joins [6, 7) and [8, 9) (`tcp_sack_maybe_coalesce`).
        assert_eq!(seg(&mut r, 7), (1, vec![(6, 9), (3, 5), (10, 11)]));
        // Filling the first hole: rcv_nxt jumps to 5 and the covered block goes
        // (`tcp_sack_remove`).
        assert_eq!(seg(&mut r, 1), (5, vec![(6, 9), (10, 11)]));
        assert_eq!(seg(&mut r, 5), (9, vec![(10, 11)]));
        assert_eq!(seg(&mut r, 9), (11, vec![]));
        assert_eq!(r.delivered_bytes, 11 * MSS);
        // A duplicate out-of-order segment is reported again as the front block, after
        // its D-SACK (RFC 2883 §4.2.2: the D-SACK block, then the block containing it).
        let mut r = established();
        seg(&mut r, 2);
        seg(&mut r, 4);
        assert_eq!(seg(&mut r, 2), (0, vec![(2, 3), (2, 3), (4, 5)]));
        // The D-SACK goes once: the next ACK has only the ordinary blocks.
        assert_eq!(seg(&mut r, 6), (0, vec![(6, 7), (2, 3), (4, 5)]));
        // A duplicate below rcv_nxt (RFC 2883 §4.1.1): reported below the ACK.
        assert_eq!(seg(&mut r, 0), (1, vec![(6, 7), (2, 3), (4, 5)]));
        assert_eq!(seg(&mut r, 0), (1, vec![(0, 1), (6, 7), (2, 3)]));
        // Without D-SACK (`dsack = false`), the duplicates go unreported.
        let mut r = established();
        r.dsack_on = false;
        seg(&mut r, 2);
        seg(&mut r, 4);
        assert_eq!(seg(&mut r, 2), (0, vec![(2, 3), (4, 5)]));
        assert_eq!(seg(&mut r, 0), (1, vec![(2, 3), (4, 5)]));
        assert_eq!(seg(&mut r, 0), (1, vec![(2, 3), (4, 5)]));
    }
}
