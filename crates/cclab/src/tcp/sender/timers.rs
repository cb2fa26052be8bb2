//! The sender's retransmission timer (part of `Sender`, see `sender.rs`): RTO, the
//! reordering timer and the probe timers share one timer whose pending event says which
//! it is (Linux `icsk_pending`, `inet_csk_reset_xmit_timer`, `tcp_rearm_rto`,
//! `tcp_write_timer_handler`); the RTO itself (RFC 6298 §5.5, Linux
//! `tcp_retransmit_timer`: backoff doubles the timer up to `rto_max`).

use super::rack::Pending;
use super::{Sender, SndState};
use crate::cc::CaState;
use crate::engine::{SimTime, TimerCheck};
use crate::transport::{Io, TimerKind};

impl Sender {
    pub(super) fn arm_rto(&mut self, io: &mut Io, at: SimTime) {
        self.arm_xmit_timer(io, Pending::Rto, at);
    }

    /// Set the retransmission timer for `kind` at `at` (`inet_csk_reset_xmit_timer`): the
    /// RTO, the reordering timer and the probe timer are one timer (`icsk_pending`).
    pub(super) fn arm_xmit_timer(&mut self, io: &mut Io, kind: Pending, at: SimTime) {
        self.loss.pending = kind;
        if let Some(t) = self.rto_timer.arm(at) {
            io.timers.push((t, TimerKind::Rto));
        }
    }

    /// `tcp_rearm_rto`: the RTO from now; from the head's send time when the timer held
    /// the reordering or probe event.
    pub(super) fn rearm_rto(&mut self, io: &mut Io) {
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
    pub(super) fn rto_delta(&self) -> i64 {
        match self.segs.front() {
            Some(h) => (h.sent + self.current_rto()) as i64 - self.tp.now as i64,
            None => self.current_rto() as i64,
        }
    }

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

    pub(super) fn on_rto(&mut self, io: &mut Io) {
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
