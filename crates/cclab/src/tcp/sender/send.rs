//! The sender's transmission path (part of `Sender`, see `sender.rs`): the send loop
//! that fills what cwnd, the peer's window and the send buffer allow, lost segments first
//! (RFC 6675 NextSeg), then new data (Linux `tcp_write_xmit`, `tcp_xmit_retransmit_queue`);
//! new segments (retransmissions: `sender/rtx.rs`), PSH placement
//! (`tcp_mark_push`, `forced_push`) and each packet's IP ID and departure time.

use super::rack::Pending;
use super::{Seg, Sender, SndState, APP_WRITE};
use crate::cc::{CaEvent, CaState, CongestionOps};
use crate::engine::SimTime;
use crate::packet::*;
use crate::transport::Io;

impl Sender {
    /// Send `p`, stamped with the socket's next IP ID (Linux `ip_select_ident_segs`: every
    /// packet of a connected socket, the SYN included, takes `inet_id`, which then grows
    /// by one).
    /// Returns its departure time: now, or later for a paced socket (its EDT).
    pub(super) fn xmit(&mut self, io: &mut Io, mut p: Packet) -> SimTime {
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
    pub(super) fn template(&self, now: SimTime) -> Packet {
        let mut p = self.addr.segment(true, now);
        p.tsecr = self.ts_recent;
        p
    }
    /// Send what cwnd, the peer's window and the send buffer allow: lost segments first
    /// (RFC 6675 NextSeg rule 1), then new data (rule 2).
    pub fn try_send(&mut self, io: &mut Io) {
        if self.state != SndState::Established {
            return;
        }
        self.tp.now = io.now;
        let nxt = self.tp.snd_nxt;
        // `tcp_push_pending_frames` runs `tcp_write_xmit` only with data waiting.
        let waiting = nxt < self.write_seq;
        self.cwnd_limited = false;
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
        if waiting {
            self.cwnd_validate(self.tp.snd_nxt > nxt, self.cwnd_limited);
        }
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
    pub(super) fn send_plain(&mut self, io: &mut Io) {
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
            if self.lost_pending > 0
                && !self.loss.rexmit_new
                && self.retransmit_next_lost(io, 1) > 0
            {
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
    pub(super) fn send_below(&mut self, io: &mut Io) {
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
                let n = self.retransmit_next_lost(io, allow);
                if n > 0 {
                    io.local_room = io.local_room.saturating_sub(1);
                    self.spacing_sent(io.now, n);
                    if reducing {
                        self.prr_out += n;
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
            // (`tcp_cwnd_test`, which since Linux 3.19 also keeps an skb to half of cwnd
            // so that at least two are in flight: `gso_half_cwnd`), the peer's window and
            // the send buffer (`tcp_mss_split_point`).
            let cwnd = self.tp.snd_cwnd;
            let free = cwnd - self.in_flight();
            let quota = if self.cfg.gso_half_cwnd {
                free.min((cwnd >> 1).max(1))
            } else {
                free
            } as u64;
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

    /// Where the next PSH goes: new data that reaches this sequence carries it. Linux
    /// marks PSH on the skb that ends a `sendmsg` (`tcp_push` → `tcp_mark_push`): the last
    /// byte written so far, or for a sender that writes without end (iperf) the end of each
    /// of its 128 KiB writes (`APP_WRITE`); and on the skb that takes the data written past
    /// half the largest window since the last PSH (`forced_push`; Linux checks it as the
    /// application writes, here as the data leaves, which for a sender whose writes run
    /// ahead of the window comes to the same spacing). `tso_fragment` and GSO keep PSH on
    /// the last piece only.
    pub(super) fn push_limit(&self) -> u64 {
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
    pub(super) fn peer_window(&mut self, rwnd: u64) {
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

    pub(super) fn data_packet(&self, now: SimTime, start: u64, len: u32) -> Packet {
        let mut p = self.template(now);
        p.flags = ACK;
        p.seq = start;
        p.ack = self.hs.rcv_nxt;
        p.payload = len;
        p.size = len + IP_TCP_HDR + self.ts_len();
        if self.tp.ecn_ok {
            p.ecn = self.ect;
        }
        p
    }

    /// Linux `tcp_ecn_send`: retransmissions are Not-ECT (RFC 3168 §6.1.5) unless the
    /// module needs ECN, whose socket keeps ECT on every packet.
    pub(super) fn retrans_ecn(&self) -> u8 {
        if self.tp.ecn_ok && self.cc.needs_ecn() {
            self.ect
        } else {
            NOT_ECT
        }
    }

    /// Send `len` new bytes from `start` as one skb: one segment, or with TSO an
    /// aggregate of ⌈len / mss⌉ segments that the NIC cuts (`packet::split_gso`).
    /// The scoreboard keeps one entry per segment, as Linux's retransmit queue does once
    /// SACKs split its skbs.
    pub(super) fn send_new(&mut self, io: &mut Io, start: u64, len: u32) {
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
            // GRO aggregate with it (Linux 5.4+, commit 051ba67447de "tcp: force a PSH
            // flag on TSO packets": `gso_push`); on the packet only: the skb kept for
            // retransmission has its own flags.
            if self.cfg.gso_push {
                p.flags |= PSH;
            }
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
        // `tcp_rate_skb_sent` (`sender/rate.rs`), before the skb counts in packets_out.
        let tx = self
            .cc_owns
            .then(|| self.rate_skb_sent(sent, self.segs.is_empty(), n));
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
                // `tso_fragment` made the packet its own skb (`sender/rtx.rs`).
                head: s == start,
            });
            if let Some(tx) = tx {
                self.rate.tx.push_back(tx);
            }
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
}
