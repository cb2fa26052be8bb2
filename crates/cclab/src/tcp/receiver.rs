//! The data-receiving half of a TCP connection (the listener).
//!
//! - Handshake: SYN → SYN-ACK (ECN-setup SYN-ACK = SYN|ACK|ECE when the SYN asked for ECN
//!   and this end allows it, RFC 3168 §6.1.1); a retransmitted SYN gets the SYN-ACK again.
//! - Reassembly with an out-of-order list; SACK blocks (RFC 2018 §4: the first block holds
//!   the most recently received segment, then the most recently reported others), at most 3.
//! - Delayed ACKs as Linux (`__tcp_ack_snd_check`): an ACK for every second full segment,
//!   otherwise after `delack_timeout` (`TCP_DELACK_MIN` = 40 ms); immediately for the first
//!   `quickack` segments, for out-of-order data and for segments that fill a hole.
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

use super::{Addr, TcpIo, TcpTimer};
use crate::engine::{SimTime, Timer, TimerCheck};
use crate::net::packet::*;
use crate::scenario::TcpConfig;

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
    pub delayed_acks: u64,
    pub data_segs_in: u64,
    pub dup_segs_in: u64,
    pub ooo_segs_in: u64,
    pub ce_segs_in: u64,
}

#[derive(Clone, Copy, Debug)]
struct OooRange {
    start: u64,
    end: u64,
    /// Last time this range grew (for SACK block order).
    stamp: u64,
}

pub struct Receiver {
    pub addr: Addr,
    pub state: RcvState,
    sack: bool,
    ecn_allowed: bool,
    /// This end runs DCTCP (`tcp_ca_needs_ecn`).
    dctcp: bool,
    syn_ect: bool,
    pub ecn_ok: bool,
    /// DCTCP `ce_state` and `prior_rcv_nxt`.
    pub ce_state: bool,
    prior_rcv_nxt: u64,
    delayed_ack: bool,
    delack_timeout: SimTime,
    quickack_left: u32,
    rcvbuf: u64,
    pub rcv_nxt: u64,
    ooo: Vec<OooRange>,
    ooo_bytes: u64,
    /// Right edge of the advertised window.
    rcv_right: u64,
    stamp: u64,
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
}

impl Receiver {
    pub fn new(addr: Addr, cfg: &TcpConfig) -> Receiver {
        Receiver {
            addr,
            state: RcvState::Listen,
            sack: cfg.sack,
            ecn_allowed: cfg.ecn,
            dctcp: cfg.cc == "dctcp",
            syn_ect: cfg.syn_ect,
            ecn_ok: false,
            ce_state: false,
            prior_rcv_nxt: 0,
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            quickack_left: cfg.quickack,
            rcvbuf: cfg.rcvbuf,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            rcv_right: 0,
            stamp: 0,
            unacked_segs: 0,
            delack_timer: Timer::default(),
            ece_latch: false,
            ts_recent: 0,
            last_ack_sent: 0,
            stats: ReceiverStats::default(),
            delivered_bytes: 0,
            last_delivery: 0,
        }
    }

    fn template(&self, now: SimTime) -> Packet {
        self.addr.segment(false, now)
    }

    /// Advertised window: the receive buffer less what waits out of order, but the right
    /// edge never moves left (RFC 7323 §2.4, Linux `tcp_select_window`), so duplicate ACKs
    /// during a loss carry the same window, as RFC 5681 requires of them.
    fn rwnd(&mut self) -> u64 {
        let free = self.rcvbuf.saturating_sub(self.ooo_bytes);
        self.rcv_right = self.rcv_right.max(self.rcv_nxt + free);
        self.rcv_right - self.rcv_nxt
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut TcpIo) {
        if p.flags & SYN != 0 {
            self.on_syn(p, io);
            return;
        }
        if self.state == RcvState::SynRcvd && p.flags & ACK != 0 {
            self.state = RcvState::Established;
            self.rcv_nxt = self.rcv_nxt.max(1);
        }
        if self.state != RcvState::Established || p.payload == 0 {
            return;
        }
        self.on_data(p, io);
    }

    fn on_syn(&mut self, p: &Packet, io: &mut TcpIo) {
        if self.state == RcvState::Listen {
            self.state = RcvState::SynRcvd;
            self.rcv_nxt = 1;
            let ecn_setup = p.flags & ECE != 0 && p.flags & CWR != 0;
            self.ecn_ok = ecn_setup && ((!p.is_ect() && self.ecn_allowed) || self.dctcp);
            self.prior_rcv_nxt = 1;
            self.ts_recent = p.tsval;
        } else if self.state == RcvState::Established {
            return;
        }
        let mut a = self.template(io.now);
        a.flags = SYN | ACK;
        if self.ecn_ok {
            a.flags |= ECE;
            // ECT on the SYN-ACK only for a module that needs ECN (Linux
            // `tcp_ecn_send_synack` with `tcp_ca_needs_ecn`).
            if self.dctcp && self.syn_ect {
                a.ecn = ECT0;
            }
        }
        a.seq = 0;
        a.ack = 1;
        a.rwnd = self.rwnd();
        a.tsecr = p.tsval;
        a.size = IP_TCP_HDR + 20;
        io.tx.push(a);
        self.stats.acks_sent += 1;
    }

    fn on_data(&mut self, p: &Packet, io: &mut TcpIo) {
        self.stats.data_segs_in += 1;
        // ECN: CWR clears the latch, then CE sets it (Linux order).
        let mut force_now = false;
        if self.ecn_ok && self.dctcp {
            if p.ecn == CE {
                self.stats.ce_segs_in += 1;
            }
        } else if self.ecn_ok {
            if p.flags & CWR != 0 {
                self.ece_latch = false;
            }
            if p.ecn == CE {
                self.stats.ce_segs_in += 1;
                if !self.ece_latch {
                    self.quickack_left = self.quickack_left.max(2);
                    self.ece_latch = true;
                }
            }
        }
        let (s, e) = (p.seq, p.seq + p.payload as u64);
        if s <= self.last_ack_sent.max(self.rcv_nxt) && p.tsval >= self.ts_recent {
            self.ts_recent = p.tsval;
        }
        if e <= self.rcv_nxt {
            // Entirely old: a spurious retransmission. ACK at once (Linux sends a D-SACK).
            self.stats.dup_segs_in += 1;
            force_now = true;
        } else if s <= self.rcv_nxt {
            // In order (possibly overlapping the left edge).
            let had_ooo = !self.ooo.is_empty();
            self.advance(e, io.now);
            if had_ooo {
                force_now = true; // a hole was (partly) filled
            }
            self.unacked_segs += 1;
        } else {
            self.stats.ooo_segs_in += 1;
            self.insert_ooo(s, e);
            force_now = true;
        }

        if self.ecn_ok && self.dctcp && p.ecn != NOT_ECT {
            // `dctcp_ece_ack_update` (CA_EVENT_ECN_IS_CE / _NO_CE), rcv_nxt already advanced.
            let new_state = p.ecn == CE;
            if new_state != self.ce_state {
                if self.delack_timer.is_armed() && self.unacked_segs > 1 {
                    // Acknowledge the data before this packet with the old CE state.
                    self.emit_ack(io, self.prior_rcv_nxt, self.ce_state);
                    self.unacked_segs = 1;
                }
                force_now = true;
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
            io.timers.push((t, TcpTimer::DelAck));
        }
    }

    fn advance(&mut self, e: u64, now: SimTime) {
        let old = self.rcv_nxt;
        self.rcv_nxt = e;
        // Pull in out-of-order ranges that are now contiguous.
        while let Some(r) = self.ooo.first().copied() {
            if r.start > self.rcv_nxt {
                break;
            }
            self.ooo.remove(0);
            self.ooo_bytes -= r.end - r.start;
            self.rcv_nxt = self.rcv_nxt.max(r.end);
        }
        self.delivered_bytes += self.rcv_nxt - old;
        self.last_delivery = now;
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        self.stamp += 1;
        let stamp = self.stamp;
        // Find ranges overlapping or touching [s, e) and merge them.
        let i = self.ooo.partition_point(|r| r.end < s);
        let mut ns = s;
        let mut ne = e;
        while i < self.ooo.len() && self.ooo[i].start <= ne {
            let r = self.ooo.remove(i);
            ns = ns.min(r.start);
            ne = ne.max(r.end);
            self.ooo_bytes -= r.end - r.start;
        }
        self.ooo.insert(
            i,
            OooRange {
                start: ns,
                end: ne,
                stamp,
            },
        );
        self.ooo_bytes += ne - ns;
    }

    /// Build and send an ACK for everything received, now.
    pub fn send_ack(&mut self, io: &mut TcpIo) {
        self.emit_ack(io, self.rcv_nxt, self.ece_latch);
        self.unacked_segs = 0;
        self.last_ack_sent = self.rcv_nxt;
        self.delack_timer.disarm();
    }

    /// One ACK packet acknowledging `ack`, with ECE if `ece` (and ECN is on).
    fn emit_ack(&mut self, io: &mut TcpIo, ack: u64, ece: bool) {
        let mut a = self.template(io.now);
        a.flags = ACK;
        if self.ecn_ok && ece {
            a.flags |= ECE;
        }
        if self.ecn_ok && self.dctcp {
            a.ecn = ECT0;
        }
        a.seq = 1;
        a.ack = ack;
        a.rwnd = self.rwnd();
        a.tsecr = self.ts_recent;
        if self.sack && !self.ooo.is_empty() {
            // Most recently changed ranges first (RFC 2018 §4).
            let mut best: [(u64, usize); MAX_SACK] = [(0, usize::MAX); MAX_SACK];
            for (idx, r) in self.ooo.iter().enumerate() {
                let mut k = MAX_SACK;
                while k > 0 && (best[k - 1].1 == usize::MAX || best[k - 1].0 < r.stamp) {
                    k -= 1;
                }
                if k < MAX_SACK {
                    for j in (k + 1..MAX_SACK).rev() {
                        best[j] = best[j - 1];
                    }
                    best[k] = (r.stamp, idx);
                }
            }
            let mut n = 0;
            for (_, idx) in best.iter() {
                if *idx != usize::MAX {
                    a.sack[n] = (self.ooo[*idx].start, self.ooo[*idx].end);
                    n += 1;
                }
            }
            a.nsack = n as u8;
        }
        a.size = IP_TCP_HDR + TS_OPT + sack_opt_len(a.nsack as usize);
        io.tx.push(a);
        self.stats.acks_sent += 1;
    }

    pub fn on_timer(&mut self, io: &mut TcpIo) {
        match self.delack_timer.on_event(io.now) {
            TimerCheck::Idle => {}
            TimerCheck::Reschedule(t) => io.timers.push((t, TcpTimer::DelAck)),
            TimerCheck::Fire => {
                if self.unacked_segs > 0 {
                    self.stats.delayed_acks += 1;
                    self.send_ack(io);
                }
            }
        }
    }
}
