//! Tail loss probe (RFC 8985 §7, as Linux 6.6), part of `Sender`.
//!
//! - `schedule_loss_probe` (`tcp_output.c: tcp_schedule_loss_probe`): in Open or CWR with
//!   SACK and data out, the retransmission timer is set to the probe timeout PTO =
//!   2·srtt + 2 ms (`TCP_TIMEOUT_MIN_US`), or 2·srtt + `rto_min` when one segment is out
//!   (room for the peer's delayed ACK, `tcp_rto_min_us`), 1 s without an RTT sample
//!   (`TCP_TIMEOUT_INIT`), and never later than the RTO would fire. Linux also adds the
//!   pacing delay of an EDT socket (`tcp_reset_xmit_timer`); cclab does not, as for its RTO.
//! - `send_loss_probe` (`tcp_send_loss_probe`, the timer's `ICSK_TIME_LOSS_PROBE` event):
//!   one segment of new data if the peer's window allows (Linux forces it past cwnd,
//!   `tcp_write_xmit` with `push_one = 2`), else the last segment again; at most one probe
//!   out (`tlp_high_seq` = snd_nxt); then the RTO is re-armed from now.
//! - `process_tlp_ack` (`tcp_input.c: tcp_process_tlp_ack`): an ACK at or above
//!   `tlp_high_seq` ends the episode. A probe of new data needs nothing more; a D-SACK of
//!   the probe, or a pure duplicate ACK, shows the original arrived (no loss); an ACK above
//!   `tlp_high_seq` shows the probe repaired a loss: one cwnd reduction (CWR entered and
//!   left at once, `TCPLossProbeRecovery`).
//!
//! `tlp_variant = "3.18"`: the probe of Linux 3.10–4.x (`draft-dukkipati-tcpm-tcp-loss-probe`;
//! read from 3.18's `tcp_output.c` and `tcp_input.c`):
//! - `tcp_schedule_loss_probe`: only when the timer holds the RTO (not early retransmit's
//!   delay; a pending probe is replaced by the RTO, "no consecutive loss probes"), with an
//!   RTT sample (`tp->srtt_us`), SACK, data out, in Open only, and when nothing more may
//!   be sent (`snd_cwnd > packets_in_flight` with data waiting gives no probe). PTO =
//!   2·srtt; with one segment out max(PTO, 1.5·srtt + `TCP_DELACK_MAX` 200 ms); at least
//!   10 ms; and no later than the armed RTO (`icsk_timeout`). The kernel counts it in
//!   jiffies (`usecs_to_jiffies`, rounded up to 1/HZ); cclab keeps nanoseconds.
//! - `tcp_ack`: every ACK first puts the RTO back in place of a pending probe, and after
//!   its processing schedules the probe again when the RTO is pending.
//! - `tcp_send_loss_probe`: new data if any (`tcp_write_xmit` with `push_one = 2`, the
//!   peer's window permitting), which does not set `tlp_high_seq`; else, unless a probe
//!   retransmission is out, the last segment again, `tlp_high_seq` = snd_nxt; then the RTO
//!   from now. `tcp_process_tlp_ack` of 3.18 then works like 6.6's with `tlp_retrans`.

use super::rack::Pending;
use super::{Sender, SimTime};
use crate::cc::{CaEvent, CaState, CongestionOps};
use crate::engine::{MS, SEC};
use crate::tcp::config::TlpVariant;
use crate::transport::Io;

/// Linux `TCP_TIMEOUT_INIT`: the PTO without an RTT sample.
const TCP_TIMEOUT_INIT: SimTime = SEC;
/// Linux `TCP_DELACK_MAX` (HZ/5): the peer's longest delayed ACK, in 3.18's PTO.
const TCP_DELACK_MAX: SimTime = 200 * MS;
/// 3.18's PTO floor (`msecs_to_jiffies(10)`).
const PTO_MIN_3_18: SimTime = 10 * MS;

impl Sender {
    /// The probe timeout (Linux 6.6 `tcp_schedule_loss_probe`).
    #[inline]
    fn probe_timeout(&self) -> SimTime {
        if !self.rtt.has_sample() {
            return TCP_TIMEOUT_INIT;
        }
        let extra = if self.packets_out() == 1 {
            self.cfg.rto_min
        } else {
            2 * MS
        };
        2 * self.rtt.srtt() + extra
    }

    /// 3.18's PTO: 2·srtt; with one segment out max(PTO, 1.5·srtt + `TCP_DELACK_MAX`);
    /// at least 10 ms.
    pub(super) fn probe_timeout_3_18(&self) -> SimTime {
        let rtt = self.rtt.srtt();
        let mut timeout = 2 * rtt;
        if self.packets_out() == 1 {
            timeout = timeout.max(rtt + rtt / 2 + TCP_DELACK_MAX);
        }
        timeout.max(PTO_MIN_3_18)
    }

    /// `tcp_schedule_loss_probe`; `advancing_rto`: called on an ACK that moved snd_una
    /// (the RTO would restart from now). Always in line (the 3.18 variant is a call): in
    /// line it was before that variant, and the ACK path's instruction count depends on it.
    #[inline(always)]
    pub(super) fn schedule_loss_probe(&mut self, io: &mut Io, advancing_rto: bool) -> bool {
        if self.cfg.tlp_variant != TlpVariant::Linux6_6 {
            return self.schedule_loss_probe_3_18(io, advancing_rto);
        }
        if !self.cfg.tlp
            || self.segs.is_empty()
            || !self.cfg.sack
            || !matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
        {
            return false;
        }
        let mut timeout = self.probe_timeout();
        let rto_delta = if advancing_rto {
            self.current_rto() as i64
        } else {
            self.rto_delta()
        };
        if rto_delta > 0 {
            timeout = timeout.min(rto_delta as SimTime);
        }
        self.arm_xmit_timer(io, Pending::Probe, io.now + timeout);
        true
    }

    /// 3.18's `tcp_schedule_loss_probe`: only when the timer holds the RTO (a pending probe
    /// gives way to it, "no consecutive loss probes"), with TLP, SACK, data out, an RTT
    /// sample, in Open, and nothing more that may be sent now.
    #[cold]
    #[inline(never)]
    fn schedule_loss_probe_3_18(&mut self, io: &mut Io, advancing_rto: bool) -> bool {
        match self.loss.pending {
            Pending::Rto => {}
            Pending::Probe => {
                self.rearm_rto(io);
                return false;
            }
            _ => return false,
        }
        if !self.cfg.tlp
            || self.segs.is_empty()
            || !self.cfg.sack
            || !self.rtt.has_sample()
            || self.tp.ca_state != CaState::Open
            || (self.tp.snd_cwnd > self.in_flight() && self.write_seq > self.tp.snd_nxt)
        {
            return false;
        }
        let mut timeout = self.probe_timeout_3_18();
        // "If RTO is shorter, just schedule TLP in its place": the armed RTO
        // (`icsk_timeout`), which an ACK that moved snd_una restarted from now.
        let rto_delta = if advancing_rto {
            self.current_rto() as i64
        } else {
            self.rto_timer
                .deadline
                .map_or(0, |d| d as i64 - io.now as i64)
        };
        if rto_delta > 0 {
            timeout = timeout.min(rto_delta as SimTime);
        }
        self.arm_xmit_timer(io, Pending::Probe, io.now + timeout);
        true
    }

    /// `tcp_send_loss_probe`: the probe timer expired.
    pub(super) fn send_loss_probe(&mut self, io: &mut Io) {
        if self.cfg.tlp_variant != TlpVariant::Linux6_6 {
            return self.send_loss_probe_3_18(io);
        }
        if self.loss.tlp_high_seq != 0
            || self.segs.is_empty()
            || !matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
        {
            // At most one probe out.
            return self.rearm_rto(io);
        }
        self.loss.tlp_retrans = false;
        let nxt = self.tp.snd_nxt;
        let mss = self.mss as u64;
        let len = self.write_seq.saturating_sub(nxt).min(mss);
        let una = self.tp.snd_una;
        if len > 0 {
            // `tcp_snd_wnd_test` (and the send buffer, which bounds what is queued here).
            if nxt + len - una <= self.snd_wnd.max(mss)
                && nxt + len - una <= self.cfg.sndbuf.max(mss)
            {
                self.send_new(io, nxt, len as u32);
                return self.probe_sent(io);
            }
            return self.rearm_rto(io);
        }
        // Retransmit the last segment (`__tcp_retransmit_skb`: not counted in retrans_out).
        let i = self.segs.len() - 1;
        if self.cc_owns {
            // BBR v3 tree: `tp->tlp_orig_data_app_limited`, before the resend overwrites it.
            self.tp.tlp_orig_data_app_limited = self.rate.tx[i].app_limited;
        }
        let sent = self.resend(io, i);
        self.rack_note_retransmit(self.segs[i].start, sent);
        self.loss.tlp_retrans = true;
        self.probe_sent(io)
    }

    /// 3.18's `tcp_send_loss_probe`.
    #[cold]
    #[inline(never)]
    fn send_loss_probe_3_18(&mut self, io: &mut Io) {
        let nxt = self.tp.snd_nxt;
        let mss = self.mss as u64;
        let len = self.write_seq.saturating_sub(nxt).min(mss);
        if len > 0 {
            // New data, the peer's window (and the send buffer) permitting; no
            // `tlp_high_seq` for it.
            let una = self.tp.snd_una;
            if nxt + len - una <= self.snd_wnd.max(mss)
                && nxt + len - una <= self.cfg.sndbuf.max(mss)
            {
                self.send_new(io, nxt, len as u32);
                self.loss.tlp_probes += 1;
            }
            self.loss.pending = Pending::Rto;
            return self.rearm_rto(io);
        }
        if self.loss.tlp_high_seq != 0 || self.segs.is_empty() {
            self.loss.pending = Pending::Rto;
            return self.rearm_rto(io);
        }
        let i = self.segs.len() - 1;
        let sent = self.resend(io, i);
        self.rack_note_retransmit(self.segs[i].start, sent);
        self.loss.tlp_retrans = true;
        self.probe_sent(io)
    }

    fn probe_sent(&mut self, io: &mut Io) {
        self.loss.tlp_high_seq = self.tp.snd_nxt;
        self.loss.tlp_probes += 1;
        // `icsk_pending = 0`: the RTO restarts from now.
        self.loss.pending = Pending::Rto;
        self.rearm_rto(io);
    }

    /// `tcp_process_tlp_ack`. `dsack_tlp`: the ACK D-SACKed the probe (`FLAG_DSACK_TLP`);
    /// `not_dup`: it moved snd_una, carried data or changed the window; `sacked`: it
    /// SACKed new data.
    pub(super) fn process_tlp_ack(
        &mut self,
        ack: u64,
        dsack_tlp: bool,
        not_dup: bool,
        sacked: bool,
    ) {
        let high = self.loss.tlp_high_seq;
        if high == 0 || ack < high {
            return;
        }
        if !self.loss.tlp_retrans || dsack_tlp {
            self.loss.tlp_high_seq = 0;
        } else if ack > high {
            // The probe repaired a loss: reduce once (Linux enters and leaves CWR); the
            // BBR v3 tree tells the module first (`CA_EVENT_TLP_RECOVERY`).
            self.loss.tlp_recoveries += 1;
            self.cc.cwnd_event(&mut self.tp, CaEvent::TlpRecovery);
            self.cwnd_reduction_once();
        } else if !(not_dup || sacked) {
            self.loss.tlp_high_seq = 0;
        }
    }
}
