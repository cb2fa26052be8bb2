//! The data sender as the listener (a passive open), the handshake's option negotiation,
//! and the end of a connection (part of `Sender`, see `sender.rs`). The simulator's own
//! connections never come here (their sender is the initiator and the peer's options are
//! cclab's own); packetdrill scripts (`crate::packetdrill`) do, where the kernel under test
//! is the listener and the data sender, and the script's peer offers its own options.
//!
//! - Passive open (RFC 9293 §3.5, Linux 6.6 `tcp_v4_conn_request` → `tcp_conn_request`,
//!   `tcp_rcv_state_process` in TCP_SYN_RECV): a SYN is answered with a SYN-ACK carrying
//!   our options, retransmitted after `rto_initial` doubling (`tcp_synack_timer` →
//!   `inet_rtx_syn_ack`); the third ACK establishes the connection, with an RTT sample from
//!   the SYN-ACK if it was not retransmitted (`tcp_synack_rtt_meas`), the initial window
//!   (`tcp_init_transfer`) and the peer's window, scaled from then on.
//! - Options (RFC 7323, RFC 2018, RFC 9293 §3.7.1; Linux `tcp_parse_options`,
//!   `tcp_openreq_init`, `tcp_synack_options`): the MSS is the smaller of the peer's (536
//!   when it sends none, RFC 9293 §3.7.1) and our own (MTU − 40), less 12 B when timestamps
//!   are in use (`tcp_sync_mss`); timestamps, SACK and window scaling are used only when
//!   both ends offer them (keys `timestamps`, `sack`). Our window scale is Linux's
//!   `tcp_select_initial_window`: ilog2(max(tcp_rmem[2], rmem_max)) − 15, within 0..=14.
//! - ECN on the listener (RFC 3168 §6.1.1, Linux `tcp_ecn_create_request`): a SYN with
//!   ECE and CWR is answered with ECE on the SYN-ACK when `ecn` is on.
//! - Close (RFC 9293 §3.6, Linux `tcp_close` → `tcp_send_fin`): a FIN after the last byte
//!   written (sent as its own segment once everything before it has left: Linux puts it on
//!   the last unsent skb when there is one; not retransmitted by the RTO here), and the
//!   peer's FIN is acknowledged at once (`tcp_fin`, `tcp_send_ack`).

use super::{Sender, SndState};
use crate::cc::CongestionOps;
use crate::engine::SimTime;
use crate::packet::*;
use crate::transport::{Io, TimerKind};
use std::sync::Arc;

/// Options of a SYN or SYN-ACK from the peer (what `tcp_parse_options` keeps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynOptions {
    pub mss: Option<u32>,
    pub wscale: Option<u8>,
    pub sack_ok: bool,
    /// The timestamps option's TSval, when present.
    pub ts: Option<u64>,
}

/// What the handshake negotiated, and the receive side a data sender still has (the
/// peer's FIN).
#[derive(Clone, Debug)]
pub struct Handshake {
    /// The peer's SYN options, set by the caller before it hands the SYN (or SYN-ACK) in.
    pub peer: Option<SynOptions>,
    /// Timestamps in use on this connection.
    pub ts: bool,
    /// The window scale we announce (`rcv_wscale`), and the peer's (`snd_wscale`), if
    /// both ends offered scaling.
    pub our_wscale: u8,
    pub peer_wscale: Option<u8>,
    /// The MSS we announce: MTU − 40.
    pub our_mss: u32,
    /// The next sequence number expected from the peer (our ACK field); the peer's
    /// sequence space starts at its SYN, 0.
    pub rcv_nxt: u64,
    /// A FIN is to follow the data written (the application closed).
    pub fin_pending: bool,
    /// Sequence number of our FIN once sent.
    pub fin_seq: Option<u64>,
    synack_at: SimTime,
    synack_tx: u32,
}

impl Handshake {
    pub fn new(cfg: &crate::tcp::config::TcpConfig) -> Handshake {
        Handshake {
            peer: None,
            ts: cfg.timestamps,
            our_wscale: rcv_wscale(cfg.rcvbuf),
            peer_wscale: None,
            our_mss: cfg.mtu - IP_TCP_HDR,
            rcv_nxt: 1,
            fin_pending: false,
            fin_seq: None,
            synack_at: 0,
            synack_tx: 0,
        }
    }
}

/// Linux `tcp_select_initial_window`: the window scale for a receive space of `space`
/// bytes, ilog2(space) − 15 within 0..=14 (`TCP_MAX_WSCALE`).
pub fn rcv_wscale(space: u64) -> u8 {
    let log = 63 - space.max(1).leading_zeros() as i32;
    (log - 15).clamp(0, 14) as u8
}

impl Sender {
    /// `listen()`: wait for a SYN. The connection writes on demand (`app_write`).
    pub fn listen(&mut self) {
        self.state = SndState::Listen;
    }

    /// The handshake's negotiation state.
    pub fn handshake(&self) -> &Handshake {
        &self.hs
    }

    /// The peer's options for the SYN or SYN-ACK handed in next.
    pub fn set_peer_syn_options(&mut self, o: SynOptions) {
        self.hs.peer = Some(o);
    }

    /// `SO_SNDBUF`: the send buffer in bytes (Linux doubles the value set; the caller
    /// passes what the socket ends up with).
    pub fn set_sndbuf(&mut self, bytes: u64) {
        let mut c = (*self.cfg).clone();
        c.sndbuf = bytes.max(self.mss as u64);
        self.cfg = Arc::new(c);
    }

    /// Apply the peer's SYN options (Linux `tcp_openreq_init`/`tcp_rcv_synsent_state_process`):
    /// MSS, timestamps, SACK and window scaling. Nothing to do when no options were given
    /// (the simulator's own peer offers what cclab's sender does).
    pub(super) fn negotiate(&mut self) {
        let Some(o) = self.hs.peer else { return };
        self.hs.ts = self.cfg.timestamps && o.ts.is_some();
        if let Some(ts) = o.ts {
            self.ts_recent = ts;
        }
        self.hs.peer_wscale = o.wscale.map(|w| w.min(14));
        let peer_mss = o.mss.unwrap_or(536);
        let mss = peer_mss.min(self.hs.our_mss) - if self.hs.ts { TS_OPT } else { 0 };
        self.mss = mss.max(8);
        self.tp.mss_cache = self.mss;
        let sack = self.cfg.sack && o.sack_ok;
        if sack != self.cfg.sack || self.hs.ts != self.cfg.timestamps {
            let mut c = (*self.cfg).clone();
            c.sack = sack;
            c.timestamps = self.hs.ts;
            self.cfg = Arc::new(c);
        }
    }

    /// A segment in the Listen or SYN-RECEIVED state.
    pub(super) fn on_packet_listen(&mut self, p: &Packet, io: &mut Io) {
        if p.flags & RST != 0 {
            return;
        }
        if p.flags & SYN != 0 && p.flags & ACK == 0 {
            if self.state == SndState::Listen {
                self.negotiate();
                self.hs.rcv_nxt = p.seq + 1;
                self.tp.ecn_ok =
                    (self.cfg.ecn || self.cc.needs_ecn()) && p.flags & (ECE | CWR) == ECE | CWR;
                self.peer_window(p.rwnd);
                self.state = SndState::SynRcvd;
                self.hs.synack_tx = 0;
            }
            // A retransmitted SYN gets the SYN-ACK again (`inet_rtx_syn_ack`).
            self.send_synack(io);
            return;
        }
        if self.state == SndState::SynRcvd && p.flags & ACK != 0 && p.ack == 1 {
            self.establish_passive(p, io);
        }
    }

    fn send_synack(&mut self, io: &mut Io) {
        let mut p = self.template(io.now);
        p.flags = SYN | ACK;
        if self.tp.ecn_ok {
            p.flags |= ECE;
            if self.cc.needs_ecn() && self.cfg.syn_ect {
                p.ecn = self.ect;
            }
        }
        p.seq = 0;
        p.ack = self.hs.rcv_nxt;
        p.size = IP_TCP_HDR + 20;
        if self.hs.synack_tx > 0 {
            p.retrans = true;
            self.stats.syn_retrans += 1;
        }
        self.hs.synack_tx += 1;
        self.hs.synack_at = io.now;
        self.xmit(io, p);
        let rto = (self.cfg.rto_initial << self.backoff.min(20)).min(self.cfg.rto_max);
        if let Some(t) = self.rto_timer.arm(io.now + rto) {
            io.timers.push((t, TimerKind::Rto));
        }
    }

    /// The SYN-ACK's retransmission timer fired.
    pub(super) fn on_synack_timeout(&mut self, io: &mut Io) {
        self.backoff += 1;
        self.send_synack(io);
    }

    /// The third ACK: established (`tcp_rcv_state_process`, TCP_SYN_RECV).
    fn establish_passive(&mut self, p: &Packet, io: &mut Io) {
        self.state = SndState::Established;
        self.stats.established_at = Some(io.now);
        self.tp.snd_una = 1;
        self.tp.snd_nxt = 1;
        self.write_seq = 1;
        self.pushed_seq = 1;
        self.app_closed = self.total_bytes.is_some();
        self.push_at = self.push_limit();
        self.peer_window(p.rwnd);
        if self.hs.synack_tx == 1 {
            self.rtt.sample(io.now - self.hs.synack_at, 1, 1);
            self.update_srtt();
        } else {
            // `tcp_init_transfer`: a retransmitted SYN-ACK leaves an initial window of 1;
            // RTO falls back to 3 s until a sample (RFC 6298 §5.7).
            self.tp.snd_cwnd = 1;
            self.rtt.set_rto_no_sample(3 * crate::engine::SEC);
        }
        self.backoff = 0;
        self.rto_timer.disarm();
        self.cc.init(&mut self.tp);
        self.refresh_plain();
        // `tcp_rcv_state_process` (TCP_SYN_RECV) sets the pacing rate from the SYN-ACK's
        // RTT sample (`tcp_update_pacing_rate`, for a module without `cong_control`).
        if !self.cc_owns {
            self.update_pacing_rate();
        }
        self.try_send(io);
    }

    /// `close()`: a FIN after the data written.
    pub fn close(&mut self, io: &mut Io) {
        self.tp.now = io.now;
        if self.state != SndState::Established || self.hs.fin_seq.is_some() {
            return;
        }
        self.app_stop_at_written();
        self.hs.fin_pending = true;
        self.maybe_send_fin(io);
    }

    fn app_stop_at_written(&mut self) {
        self.app_closed = true;
        self.push_at = self.push_limit();
    }

    /// Send the FIN once everything written has left (called after each send attempt).
    #[inline]
    pub(super) fn maybe_send_fin(&mut self, io: &mut Io) {
        if !self.hs.fin_pending || self.tp.snd_nxt < self.write_seq {
            return;
        }
        self.hs.fin_pending = false;
        let mut p = self.template(io.now);
        p.flags = FIN | ACK;
        p.seq = self.tp.snd_nxt;
        p.ack = self.hs.rcv_nxt;
        p.size = IP_TCP_HDR + if self.hs.ts { TS_OPT } else { 0 };
        self.hs.fin_seq = Some(p.seq);
        self.tp.snd_nxt += 1;
        self.write_seq = self.tp.snd_nxt;
        self.xmit(io, p);
    }

    /// The peer's FIN: acknowledge it at once (`tcp_fin`).
    pub(super) fn on_peer_fin(&mut self, p: &Packet, io: &mut Io) {
        let end = p.seq + p.payload as u64 + 1;
        if end > self.hs.rcv_nxt {
            self.hs.rcv_nxt = end;
        }
        self.send_pure_ack(io);
    }

    /// Bytes of the timestamps option on each segment (0 when timestamps are off).
    #[inline]
    pub(super) fn ts_len(&self) -> u32 {
        if self.hs.ts {
            TS_OPT
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tcp_select_initial_window`: 15 MiB − 1 (defaults.sh's tcp_rmem max) gives 8,
    /// 6 MiB gives 7, 64 KiB 1, anything at or below 32 KiB 0, 1 GiB 14.
    #[test]
    fn window_scale_follows_the_receive_space() {
        assert_eq!(rcv_wscale(15 << 20), 8);
        assert_eq!(rcv_wscale(6 << 20), 7);
        assert_eq!(rcv_wscale(1 << 16), 1);
        assert_eq!(rcv_wscale(1 << 15), 0);
        assert_eq!(rcv_wscale(1 << 30), 14);
    }
}
