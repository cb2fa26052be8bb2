//! Zero-window probes, part of `Sender` (Linux 6.6: `tcp.h` `tcp_check_probe_timer`,
//! `tcp_probe0_base`, `tcp_probe0_when`; `tcp_output.c` `tcp_send_probe0`,
//! `tcp_write_wakeup`, `tcp_xmit_probe_skb`; `tcp_timer.c` `tcp_probe_timer`; `tcp_input.c`
//! `tcp_ack_probe`; RFC 9293 §3.8.6.1).
//!
//! - With nothing in flight, data waiting and the peer's window zero, no new segment goes
//!   (`tcp_snd_wnd_test`) and the retransmission timer holds the probe event
//!   (`ICSK_TIME_PROBE0`), due `max(RTO, TCP_RTO_MIN)` from now.
//! - When it fires with the window still closed, a probe leaves: an ACK carrying no data
//!   whose sequence number is `snd_una - 1` (`tcp_xmit_probe_skb` with `urgent = 0`),
//!   which the peer must answer with its window. The backoff grows by one (Linux counts it
//!   in the RTO's `icsk_backoff`, idle while nothing is in flight; here a counter of its
//!   own, so that the RTO itself, `icsk_rto`, stays as probing leaves it; at most
//!   `tcp_retries2` = 15) and the next probe is due `min(base << backoff, rto_max)` later.
//!   If the window opened meanwhile, the data goes instead (`tcp_write_wakeup`).
//! - An ACK that arrives with nothing in flight and opens a window big enough for the next
//!   segment clears the backoff and the probe timer (`tcp_ack_probe`); one that does not
//!   re-arms the probe.
//!
//! A window smaller than a segment but not zero still lets one segment go here (the send
//! loops' `snd_wnd.max(mss)`), where Linux waits for the probe timer to send what fits.

use super::rack::Pending;
use super::Sender;
use crate::engine::SimTime;
use crate::net::packet::*;
use crate::transport::Io;

/// Linux `TCP_RTO_MIN`: the probe interval is at least this.
const TCP_RTO_MIN: SimTime = 200 * crate::engine::MS;
/// Linux `tcp_retries2` (default 15): the probe backoff stops growing there.
const TCP_RETRIES2: u32 = 15;

impl Sender {
    /// New data is waiting and nothing is in flight.
    #[inline]
    fn data_waiting_idle(&self) -> bool {
        self.segs.is_empty() && self.tp.snd_nxt < self.write_seq
    }

    /// `tcp_probe0_when`: `max(RTO, TCP_RTO_MIN) << backoff`, at most `rto_max`.
    fn probe0_when(&self) -> SimTime {
        (self.current_rto().max(TCP_RTO_MIN) << self.probe0_backoff).min(self.cfg.rto_max)
    }

    /// `tcp_check_probe_timer`: arm the probe timer for a closed window with data waiting.
    pub(super) fn check_probe_timer(&mut self, io: &mut Io) {
        if self.snd_wnd == 0 && self.data_waiting_idle() && !self.rto_timer.is_armed() {
            let at = io.now + self.probe0_when();
            self.arm_xmit_timer(io, Pending::Probe0, at);
        }
    }

    /// `tcp_ack_probe`: an ACK came while the probe timer was pending and nothing was in
    /// flight: a window that takes the next segment ends the probing.
    pub(super) fn ack_probe(&mut self, io: &mut Io) {
        if self.loss.pending != Pending::Probe0 || !self.data_waiting_idle() {
            return;
        }
        let next = (self.write_seq - self.tp.snd_nxt).min(self.mss as u64);
        if self.tp.snd_nxt + next <= self.tp.snd_una + self.snd_wnd {
            self.probe0_backoff = 0;
            self.rto_timer.disarm();
            self.loss.pending = Pending::Rto;
        } else {
            let at = io.now + self.probe0_when();
            self.arm_xmit_timer(io, Pending::Probe0, at);
        }
    }

    /// `tcp_probe_timer` → `tcp_send_probe0`: the probe timer fired.
    pub(super) fn send_probe0(&mut self, io: &mut Io) {
        self.loss.pending = Pending::Rto;
        if !self.data_waiting_idle() {
            self.probe0_backoff = 0;
            return;
        }
        if self.snd_wnd > 0 {
            // `tcp_write_wakeup`: the window opened; send what it takes.
            self.probe0_backoff = 0;
            self.try_send(io);
            return;
        }
        let mut p = self.template(io.now);
        p.flags = ACK;
        p.seq = self.tp.snd_una - 1;
        p.ack = self.hs.rcv_nxt;
        p.size = IP_TCP_HDR + self.ts_len();
        self.xmit(io, p);
        if self.probe0_backoff < TCP_RETRIES2 {
            self.probe0_backoff += 1;
        }
        let at = io.now + self.probe0_when();
        self.arm_xmit_timer(io, Pending::Probe0, at);
    }
}
