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
//! The PTO of earlier kernels (3.10–4.x: max(2·srtt, 1.5·srtt + `TCP_DELACK_MAX`) with one
//! segment out, only in Open) is a different `probe_timeout`.

use super::rack::Pending;
use super::{Sender, SimTime};
use crate::cc::CaState;
use crate::engine::{MS, SEC};
use crate::transport::Io;

/// Linux `TCP_TIMEOUT_INIT`: the PTO without an RTT sample.
const TCP_TIMEOUT_INIT: SimTime = SEC;

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

    /// `tcp_schedule_loss_probe`; `advancing_rto`: called on an ACK that moved snd_una
    /// (the RTO would restart from now).
    #[inline]
    pub(super) fn schedule_loss_probe(&mut self, io: &mut Io, advancing_rto: bool) -> bool {
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

    /// `tcp_send_loss_probe`: the probe timer expired.
    pub(super) fn send_loss_probe(&mut self, io: &mut Io) {
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
            // The probe repaired a loss: reduce once (Linux enters and leaves CWR).
            self.loss.tlp_recoveries += 1;
            self.cwnd_reduction_once();
        } else if !(not_dup || sacked) {
            self.loss.tlp_high_seq = 0;
        }
    }
}
