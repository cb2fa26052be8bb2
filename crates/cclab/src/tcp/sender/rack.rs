//! RACK loss detection (RFC 8985 §6, as Linux 6.6 `net/ipv4/tcp_recovery.c`) and the
//! reordering metric (Linux `tcp_input.c: tcp_check_sack_reordering`), part of `Sender`.
//!
//! - `rack_advance` (`tcp_rack_advance`): each newly delivered segment (cumulatively acked
//!   or SACKed) moves RACK's reference — the send time `mstamp` and `end_seq` of the most
//!   recently *sent* delivered segment, and the RTT measured from it (`rtt`) — unless it
//!   was retransmitted and the RTT is below min_rtt (the ACK may be for the original).
//! - `rack_reo_wnd` (`tcp_rack_reo_wnd`): min_rtt/4 × `reo_wnd_steps`, at most srtt; zero
//!   while no reordering was ever seen and the sender is in Recovery or Loss, or has
//!   `reordering` segments SACKed (the DupThresh rule: Linux's `TCP_RACK_NO_DUPTHRESH` bit
//!   of `net.ipv4.tcp_recovery` is off by default, so the rule applies).
//! - `rack_detect_loss` (`tcp_rack_detect_loss`): every segment sent before RACK's
//!   reference whose deadline `sent + rack.rtt + reo_wnd` has passed is lost; the latest
//!   remaining wait arms the reordering timer (`tcp_rack_mark_lost`, plus
//!   `TCP_TIMEOUT_MIN_US` = 2 ms), whose expiry (`tcp_rack_reo_timeout`) runs the
//!   detection again and enters recovery if it marked anything. A lost retransmission is
//!   detected the same way and retransmitted again.
//! - `rack_update_reo_wnd` (`tcp_rack_update_reo_wnd`): a D-SACK (after reordering was
//!   seen, not for a TLP) widens the window by one step, at most once per round trip
//!   (RFC 8985 §6.2 step 4's `dsack_round`; Linux measures the round with the delivered
//!   count of the D-SACKed skb, which this scoreboard does not keep); the width persists
//!   for 16 recoveries (`TCP_RACK_RECOVERY_THRESH`, decremented by `tcp_try_undo_recovery`).
//!
//! Linux walks a list of skbs in send order (`tsorted_sent_queue`). Here the segments sent
//! once are in sequence order, which is their send order, and are scanned from a cursor
//! that passes what is settled; the retransmitted ones are kept in a ring in the order they
//! were retransmitted (an entry is stale once its segment was acked or sent again). Both
//! walks stop at the first segment sent after RACK's reference, as Linux's does.
//!
//! Era variants (Linux 3.18's FACK and early retransmit) hook in beside `rack_mark_lost`:
//! `congestion_state_machine` calls the loss marking of the configured mechanism.

use super::{Sender, SimTime};
use crate::cc::CaState;
use crate::transport::Io;
use std::collections::VecDeque;

/// Linux `TCP_TIMEOUT_MIN_US`: the slack added to the reordering timer.
pub(super) const TCP_TIMEOUT_MIN: SimTime = 2 * crate::engine::MS;
/// Linux `TCP_RACK_RECOVERY_THRESH`: recoveries a widened reordering window persists.
const TCP_RACK_RECOVERY_THRESH: u8 = 16;

/// Which event the retransmission timer holds (Linux `icsk_pending`: one timer per socket
/// for `ICSK_TIME_RETRANS`, `ICSK_TIME_REO_TIMEOUT`, `ICSK_TIME_LOSS_PROBE` and, in 3.18,
/// `ICSK_TIME_EARLY_RETRANS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Pending {
    #[default]
    Rto,
    Reo,
    Probe,
    /// The zero-window probe (`ICSK_TIME_PROBE0`, `sender/probe0.rs`).
    Probe0,
    /// Early retransmit's delay (`sender/early_retrans.rs`).
    EarlyRetrans,
}

/// RACK's state (Linux `tp->rack`).
#[derive(Debug)]
pub(super) struct Rack {
    /// Send time of the most recently sent delivered segment.
    pub mstamp: SimTime,
    pub end_seq: u64,
    /// RTT of that delivery.
    pub rtt: SimTime,
    /// Something was delivered since the last detection (`rack.advanced`).
    pub advanced: bool,
    pub reo_wnd_steps: u8,
    pub reo_wnd_persist: u8,
    pub dsack_seen: bool,
    /// RFC 8985 `RACK.dsack_round`: snd_nxt when the window last grew (0 = none).
    pub dsack_round: u64,
    /// Segments sent once below this are settled (acked, SACKed, lost or retransmitted).
    cursor: u64,
    /// Retransmitted segments in the order they were sent: (start, send time). Also
    /// FACK's, in Recovery (`sender/fack.rs`).
    pub(super) rtx: VecDeque<(u64, SimTime)>,
}

/// Loss recovery state beside the scoreboard: RACK, TLP, undo, F-RTO, the reordering
/// metric, and which event the retransmission timer holds.
#[derive(Debug)]
pub(super) struct LossState {
    pub pending: Pending,
    /// `tp->reordering`, `tp->reord_seen`, `tp->dsack_dups`.
    pub reordering: u32,
    pub reord_seen: u32,
    pub dsack_dups: u32,
    pub rack: Rack,
    /// `tp->tlp_high_seq` (0 = no probe out), `tp->tlp_retrans`.
    pub tlp_high_seq: u64,
    pub tlp_retrans: bool,
    /// `tp->undo_marker` (0 = nothing to undo), `undo_retrans`, `prior_ssthresh`.
    pub undo_marker: u64,
    pub undo_retrans: i32,
    pub prior_ssthresh: u32,
    /// `tp->frto`: F-RTO is watching the ACKs after an RTO.
    pub frto: bool,
    /// F-RTO step 2 (`REXMIT_NEW`): this ACK sends new data, not retransmissions.
    pub rexmit_new: bool,
    /// Lowest start of a segment delivered out of order on this ACK (`state->reord`).
    pub reord: u64,
    /// `tcp_highest_sack_seq` before this ACK (`prior_fack`).
    pub prior_fack: u64,
    /// This ACK covered or SACKed data below high_seq never retransmitted
    /// (`FLAG_ORIG_SACK_ACKED`).
    pub orig_acked: bool,
    /// Counters: probes sent (`TCPLossProbes`), repaired losses (`TCPLossProbeRecovery`),
    /// spurious RTOs (`TCPSpuriousRTOs`), D-SACK undos (`TCPDSACKUndo`), reordering
    /// timer expiries.
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    pub spurious_rtos: u64,
    pub dsack_undos: u64,
    pub reo_timeouts: u64,
    /// FACK in force for this connection (`fack` until reordering turns it off,
    /// `sender/fack.rs`); `tp->do_early_retrans` (`sender/early_retrans.rs`).
    pub fack: bool,
    pub do_early_retrans: bool,
    /// Any of 3.18's mechanisms is configured (`tlp_variant = "3.18"`, `fack`,
    /// `early_retrans`): one test keeps them off the default profile's path.
    pub v318: bool,
    /// Early retransmits delayed (timer armed) and resumed (timer fired).
    pub er_delays: u64,
    pub er_fired: u64,
    /// FACK's lost retransmissions (`TCPLostRetransmit`).
    pub lost_retrans: u64,
}

impl LossState {
    pub fn new(reordering: u32) -> Self {
        LossState {
            pending: Pending::Rto,
            reordering,
            reord_seen: 0,
            dsack_dups: 0,
            rack: Rack {
                mstamp: 0,
                end_seq: 0,
                rtt: 0,
                advanced: false,
                reo_wnd_steps: 1,
                reo_wnd_persist: 0,
                dsack_seen: false,
                dsack_round: 0,
                cursor: 0,
                rtx: VecDeque::new(),
            },
            tlp_high_seq: 0,
            tlp_retrans: false,
            undo_marker: 0,
            undo_retrans: 0,
            prior_ssthresh: 0,
            frto: false,
            rexmit_new: false,
            reord: u64::MAX,
            prior_fack: 0,
            orig_acked: false,
            tlp_probes: 0,
            tlp_recoveries: 0,
            spurious_rtos: 0,
            dsack_undos: 0,
            reo_timeouts: 0,
            fack: false,
            do_early_retrans: false,
            v318: false,
            er_delays: 0,
            er_fired: 0,
            lost_retrans: 0,
        }
    }

    /// The 3.18 mechanisms for a new connection: FACK as configured; early retransmit
    /// when configured and `tcp_reordering` is 3 (`tcp_enable_early_retrans`).
    pub fn with_era(mut self, cfg: &crate::tcp::config::TcpConfig) -> Self {
        self.fack = cfg.fack;
        self.do_early_retrans = cfg.early_retrans && cfg.reordering == 3;
        self.v318 = cfg.fack
            || cfg.early_retrans
            || cfg.tlp_variant != crate::tcp::config::TlpVariant::Linux6_6;
        self
    }
}

/// What the congestion state machine needs to know of an ACK (Linux's `FLAG_*` bits).
#[derive(Clone, Copy, Debug)]
pub(super) struct AckEvent {
    /// `tcp_ack_is_dubious`: a duplicate, SACKs, an ECN echo, or not in Open.
    pub dubious: bool,
    /// `FLAG_SND_UNA_ADVANCED`.
    pub una_advanced: bool,
    /// New SACKs or a duplicate ACK (`FLAG_DATA_SACKED || num_dupack`).
    pub sacked_or_dup: bool,
}

/// A segment the walk of segments sent once passes over: it is in the retransmission ring,
/// or lost and waiting to be sent again.
#[inline]
fn not_in_first_walk(s: &super::Seg) -> bool {
    s.ever_retrans || (s.lost && !s.retrans)
}

/// `tcp_skb_sent_after`: t1 later than t2, or at the same time with a higher end.
#[inline]
fn sent_after(t1: SimTime, t2: SimTime, seq1: u64, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Sender {
    /// RACK is on (it needs SACK: without it Linux uses NewReno's marking).
    #[inline]
    pub(super) fn rack_on(&self) -> bool {
        self.cfg.rack && self.cfg.sack
    }

    /// `tcp_rack_advance`: a segment sent at `sent` ending at `end` was delivered.
    pub(super) fn rack_advance(&mut self, ever_retrans: bool, end: u64, sent: SimTime) {
        let now = self.tp.now;
        let rtt = now.saturating_sub(sent);
        if ever_retrans && rtt < self.rtt.min_rtt {
            // It may be the original that was delivered (RFC 8985 §6.2 step 2).
            return;
        }
        let r = &mut self.loss.rack;
        r.advanced = true;
        r.rtt = rtt;
        if sent_after(sent, r.mstamp, end, r.end_seq) {
            r.mstamp = sent;
            r.end_seq = end;
        }
    }

    /// Record a retransmission of the segment at `start`, sent at `sent`, for the walk.
    #[inline]
    pub(super) fn rack_note_retransmit(&mut self, start: u64, sent: SimTime) {
        if self.rack_on() || (self.loss.fack && self.tp.ca_state == CaState::Recovery) {
            self.loss.rack.rtx.push_back((start, sent));
        }
    }

    /// `tcp_sacktag_one` for a newly SACKed segment: RACK and the reordering marks.
    #[inline]
    pub(super) fn on_newly_sacked(&mut self, start: u64, end: u64, sent: SimTime, ever: bool) {
        if !ever {
            if start < self.loss.prior_fack {
                self.loss.reord = self.loss.reord.min(start);
            }
            if end <= self.high_seq {
                self.loss.orig_acked = true;
            }
        }
        if self.rack_on() {
            self.rack_advance(ever, end, sent);
        }
    }

    /// `tcp_rack_reo_wnd`.
    fn rack_reo_wnd(&self) -> SimTime {
        if self.loss.reord_seen == 0 {
            if matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
                return 0;
            }
            if self.sacked_out >= self.loss.reordering {
                return 0;
            }
        }
        if !self.rtt.has_sample() {
            return 0;
        }
        (self.rtt.min_rtt / 4)
            .saturating_mul(self.loss.rack.reo_wnd_steps as SimTime)
            .min(self.rtt.srtt())
    }

    /// `tcp_mark_skb_lost`: a SACKed segment stays; a lost one whose retransmission is
    /// in flight has lost that retransmission (`TCPLostRetransmit`): it waits to be sent
    /// again.
    pub(super) fn rack_mark_skb_lost(&mut self, i: usize) {
        let s = self.segs[i];
        if s.sacked {
            return;
        }
        if s.lost {
            if s.retrans {
                self.segs[i].retrans = false;
                self.retrans_out -= 1;
                self.lost_pending += 1;
                self.lost_hint = self.lost_hint.min(s.start);
                self.notify_skb_lost(i); // a lost retransmission counts again
            }
        } else {
            self.mark_lost(i);
        }
    }

    /// `tcp_rack_detect_loss`: mark what RACK finds lost; returns the longest remaining
    /// wait of a segment sent before RACK's reference (0 = none).
    pub(super) fn rack_detect_loss(&mut self) -> SimTime {
        let now = self.tp.now;
        let (mstamp, end_seq, rtt) = (
            self.loss.rack.mstamp,
            self.loss.rack.end_seq,
            self.loss.rack.rtt,
        );
        // Segments sent once, in sequence (= send) order.
        let from = self.loss.rack.cursor.max(self.tp.snd_una);
        let mut i = self.seg_index(from);
        if self.loss.rack.rtx.is_empty() {
            // The common case: no retransmission out and the first candidate sent after
            // RACK's reference, so both walks below would stop at once.
            match self.segs.get(i) {
                None => return 0,
                Some(s) => {
                    if !not_in_first_walk(s) && !sent_after(mstamp, s.sent, end_seq, s.end) {
                        return 0;
                    }
                }
            }
        }
        let reo_wnd = self.rack_reo_wnd();
        let deadline = |sent: SimTime| -> i64 { (sent + rtt + reo_wnd) as i64 - now as i64 };
        let mut timeout: i64 = 0;
        let mut settled = true;
        while i < self.segs.len() {
            let s = self.segs[i];
            if not_in_first_walk(&s) {
                if settled {
                    self.loss.rack.cursor = s.end;
                }
                i += 1;
                continue;
            }
            if !sent_after(mstamp, s.sent, end_seq, s.end) {
                break;
            }
            let remaining = deadline(s.sent);
            if remaining <= 0 {
                self.rack_mark_skb_lost(i);
                if settled {
                    self.loss.rack.cursor = s.end;
                }
            } else {
                timeout = timeout.max(remaining);
                settled = false;
            }
            i += 1;
        }
        // Retransmitted segments, in the order they were sent.
        let mut k = 0;
        let mut front = true;
        while k < self.loss.rack.rtx.len() {
            let (start, sent) = self.loss.rack.rtx[k];
            let i = self.seg_index(start);
            let live = i < self.segs.len() && {
                let s = self.segs[i];
                s.start == start && s.sent == sent && (s.retrans || !s.lost)
            };
            if !live {
                if front {
                    self.loss.rack.rtx.pop_front();
                } else {
                    k += 1;
                }
                continue;
            }
            let s = self.segs[i];
            if !sent_after(mstamp, s.sent, end_seq, s.end) {
                break;
            }
            let remaining = deadline(s.sent);
            if remaining <= 0 {
                self.rack_mark_skb_lost(i);
                if front {
                    self.loss.rack.rtx.pop_front();
                    continue;
                }
            } else {
                timeout = timeout.max(remaining);
                front = false;
            }
            k += 1;
        }
        timeout as SimTime
    }

    /// `tcp_rack_mark_lost`: run the detection if something was delivered; arm the
    /// reordering timer for the segments still within their window. True if it did.
    pub(super) fn rack_mark_lost(&mut self, io: &mut Io) -> bool {
        if !self.loss.rack.advanced {
            return false;
        }
        self.loss.rack.advanced = false;
        let timeout = self.rack_detect_loss();
        if timeout > 0 {
            self.arm_xmit_timer(io, Pending::Reo, io.now + timeout + TCP_TIMEOUT_MIN);
        }
        timeout > 0
    }

    /// `tcp_rack_reo_timeout`: the reordering timer expired.
    pub(super) fn rack_reo_timeout(&mut self, io: &mut Io) {
        self.loss.reo_timeouts += 1;
        let prior_inflight = self.in_flight();
        let lost_before = self.lost_out;
        self.rack_detect_loss();
        if prior_inflight != self.in_flight() {
            if self.tp.ca_state != CaState::Recovery {
                self.enter_recovery(false);
                let newly_lost = self.lost_out > lost_before;
                if self.cfg.prr {
                    self.prr_reduction(1, newly_lost, false);
                }
            }
            self.try_send(io);
        }
        if !self.rto_timer.is_armed() || self.loss.pending != Pending::Rto {
            self.rearm_rto(io);
        }
    }

    /// `tcp_rack_update_reo_wnd`, with RFC 8985 §6.2 step 4's round.
    pub(super) fn rack_update_reo_wnd(&mut self) {
        let r = &self.loss.rack;
        if !r.dsack_seen && r.dsack_round == 0 && r.reo_wnd_steps == 1 {
            return; // nothing would change (the common case)
        }
        let una = self.tp.snd_una;
        let nxt = self.tp.snd_nxt;
        let r = &mut self.loss.rack;
        if r.dsack_round != 0 && una >= r.dsack_round {
            r.dsack_round = 0;
        }
        if r.dsack_seen && r.dsack_round == 0 {
            r.reo_wnd_steps = r.reo_wnd_steps.saturating_add(1);
            r.dsack_round = nxt;
            r.reo_wnd_persist = TCP_RACK_RECOVERY_THRESH;
        } else if r.reo_wnd_persist == 0 {
            r.reo_wnd_steps = 1;
        }
        r.dsack_seen = false;
    }

    /// A recovery ended without undo (`tcp_try_undo_recovery`): one fewer recovery for a
    /// widened window to persist.
    pub(super) fn rack_recovery_done(&mut self) {
        let r = &mut self.loss.rack;
        r.reo_wnd_persist = r.reo_wnd_persist.saturating_sub(1);
    }

    /// A D-SACK undo (`tcp_try_undo_dsack`) keeps the window one recovery longer.
    pub(super) fn rack_dsack_undo(&mut self) {
        let r = &mut self.loss.rack;
        r.reo_wnd_persist = (r.reo_wnd_persist + 1).min(TCP_RACK_RECOVERY_THRESH);
    }

    /// Loss marks were cleared (undo): rescan from snd_una.
    pub(super) fn rack_rescan(&mut self) {
        self.loss.rack.cursor = self.tp.snd_una;
        self.loss.rack.advanced = true;
    }

    /// `tcp_highest_sack_seq`: snd_una with nothing SACKed, else where the segment after
    /// the highest SACKed one starts — Linux's `highest_sack` is that next skb
    /// (`tcp_advance_highest_sack` takes `skb_rb_next`, or the next skb sent when there
    /// was none), so this is the highest SACKed segment's end.
    #[inline]
    pub(super) fn highest_sack_seq(&self) -> u64 {
        if self.sacked_out == 0 || self.n_top == 0 {
            return self.tp.snd_una;
        }
        let top = self.top_sacked[self.n_top - 1];
        match self.segs.get(self.seg_index(top)) {
            Some(s) if s.start == top => s.end,
            _ => self.tp.snd_nxt,
        }
    }

    /// `tcp_check_sack_reordering`: a segment starting at `low_seq`, below the highest
    /// SACKed one, was delivered late. The reordering degree grows to the distance in
    /// segments (at most `max_reordering`).
    pub(super) fn check_sack_reordering(&mut self, low_seq: u64) {
        let fack = self.highest_sack_seq();
        if low_seq >= fack {
            return;
        }
        let mss = self.mss as u64;
        let metric = fack - low_seq;
        if metric > self.loss.reordering as u64 * mss {
            self.loss.reordering = (metric.div_ceil(mss) as u32).min(self.cfg.max_reordering);
            self.disable_fack(); // 3.18 `tcp_update_reordering`
        }
        self.loss.do_early_retrans = false; // `tcp_disable_early_retrans`
        self.loss.reord_seen += 1;
    }
}

/// Loss-recovery counters and RACK's window, for tests.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossCounters {
    pub reo_wnd_steps: u8,
    pub reo_timeouts: u64,
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    pub tlp_high_seq: u64,
    pub spurious_rtos: u64,
    pub dsack_undos: u64,
}

#[cfg(test)]
impl Sender {
    pub fn loss_counters(&self) -> LossCounters {
        let l = &self.loss;
        LossCounters {
            reo_wnd_steps: l.rack.reo_wnd_steps,
            reo_timeouts: l.reo_timeouts,
            tlp_probes: l.tlp_probes,
            tlp_recoveries: l.tlp_recoveries,
            tlp_high_seq: l.tlp_high_seq,
            spurious_rtos: l.spurious_rtos,
            dsack_undos: l.dsack_undos,
        }
    }
}
