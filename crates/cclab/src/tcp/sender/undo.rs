//! D-SACK at the sender, undo of a needless cwnd reduction, and F-RTO (part of `Sender`),
//! as Linux 6.6 `net/ipv4/tcp_input.c`.
//!
//! - `check_dsack` (RFC 2883 §4; `tcp_check_dsack` / `tcp_dsack_seen`): the first SACK
//!   block is a D-SACK when it lies below the cumulative ACK, or inside the second block.
//!   It counts `dsack_dups` (ignored as dubious when it is longer than the largest window,
//!   or when more duplicates were reported than segments were retransmitted); it marks
//!   RACK's `dsack_seen` if reordering was seen and the block is not the TLP probe's
//!   (`FLAG_DSACK_TLP`); and it takes the duplicates off `undo_retrans`.
//! - Undo (`tcp_init_undo`, `tcp_undo_cwnd_reduction`, `tcp_try_undo_dsack`,
//!   `tcp_try_undo_recovery`, `tcp_try_undo_loss`): at the start of a recovery or loss
//!   episode, `undo_marker` = snd_una and `undo_retrans` = the retransmissions in flight;
//!   every retransmission adds one, every D-SACKed one takes one off. When none is left,
//!   every retransmission was needless: cwnd and ssthresh go back to their values before
//!   the reduction (`undo_cwnd`, `prior_ssthresh`). Undo by timestamps
//!   (`tcp_packet_delayed`, Eifel) and partial undo (`tcp_try_undo_partial`) are not
//!   modelled.
//! - F-RTO (RFC 5682 as Linux `tcp_process_loss`, `net.ipv4.tcp_frto` = 2): after an RTO,
//!   an ACK that advances snd_una (the retransmitted head) makes the sender send *new*
//!   data (`REXMIT_NEW`) instead of retransmitting more; if a later ACK or SACK then
//!   covers data sent before the RTO and never retransmitted (`FLAG_ORIG_SACK_ACKED`),
//!   the timeout was spurious and the reduction is undone (`TCPSpuriousRTOs`); a SACK or
//!   duplicate ACK after the new data means a real loss and recovery goes on as usual.

use super::Sender;
use crate::cc::{CaState, CongestionOps};
use crate::packet::Packet;

/// What the D-SACK check found on one ACK.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Dsack {
    /// The first block is a valid D-SACK (`FLAG_DSACKING_ACK`).
    pub seen: bool,
    /// It reports the TLP probe (`FLAG_DSACK_TLP`).
    pub tlp: bool,
    /// Duplicate segments it reports, counted as delivered (`sack_delivered`).
    pub dup_segs: u32,
}

impl Sender {
    /// `tcp_check_dsack` + `tcp_dsack_seen` on an ACK whose snd_una was `prior_una`.
    pub(super) fn check_dsack(&mut self, p: &Packet, prior_una: u64) -> Dsack {
        let mut d = Dsack::default();
        if p.nsack == 0 {
            return d;
        }
        let (s0, e0) = p.sack[0];
        let dsack = s0 < p.ack
            || (p.nsack > 1 && {
                let (s1, e1) = p.sack[1];
                s1 <= s0 && e0 <= e1
            });
        if !dsack || s0 >= e0 {
            return d;
        }
        let len = e0 - s0;
        if len > self.max_window.max(self.mss as u64) {
            return d; // dubious: larger than any window the peer offered
        }
        let mss = self.mss as u64;
        let dup = if len > mss {
            len.div_ceil(mss) as u32
        } else {
            if self.loss.tlp_high_seq != 0 && self.loss.tlp_high_seq == e0 {
                d.tlp = true;
            }
            1
        };
        self.loss.dsack_dups += dup;
        if self.loss.dsack_dups as u64 > self.stats.retrans_segs {
            return Dsack::default(); // more duplicates than retransmissions: dubious
        }
        if self.loss.reord_seen > 0 && !d.tlp {
            self.loss.rack.dsack_seen = true;
        }
        d.seen = true;
        d.dup_segs = dup;
        // Duplicates of data now acknowledged (`tcp_check_dsack`'s "dumb counting").
        // cclab cleans the acknowledged segments before reading SACK blocks, so a block
        // that this ACK's cumulative part covers is counted here too (Linux tags it in the
        // queue, `tcp_sacktag_one`, with the same effect).
        let und = &mut self.loss;
        if und.undo_marker != 0 && und.undo_retrans > 0 && e0 <= p.ack && e0 > und.undo_marker {
            und.undo_retrans = (und.undo_retrans - dup as i32).max(0);
        }
        // Duplicates of segments still queued (`tcp_sacktag_one` with `dup_sack`): a
        // retransmitted one D-SACKed after its SACK shows reordering.
        if e0 > self.tp.snd_una {
            let mut i = self.seg_index(s0.max(self.tp.snd_una));
            while i < self.segs.len() && self.segs[i].end <= e0 {
                let s = self.segs[i];
                if s.ever_retrans {
                    let l = &mut self.loss;
                    if l.undo_marker != 0 && l.undo_retrans > 0 && s.end > l.undo_marker {
                        l.undo_retrans -= 1;
                    }
                    if s.sacked {
                        l.reord = l.reord.min(s.start);
                    }
                }
                i += 1;
            }
        }
        let _ = prior_una;
        d
    }

    /// `tcp_current_ssthresh`.
    fn current_ssthresh(&self) -> u32 {
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.tp.snd_ssthresh
        } else {
            let c = self.tp.snd_cwnd;
            self.tp.snd_ssthresh.max((c >> 1) + (c >> 2))
        }
    }

    /// `tcp_init_undo` (with `prior_ssthresh` set as `tcp_enter_recovery` /
    /// `tcp_enter_loss` do; 0 after an ECN echo, which forbids undo).
    pub(super) fn init_undo(&mut self, for_loss: bool, ece: bool) {
        if !(self.cfg.dsack || self.cfg.frto) {
            return;
        }
        let reducing = matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery);
        self.loss.prior_ssthresh = if for_loss || !(ece || reducing) {
            self.current_ssthresh()
        } else {
            0
        };
        self.loss.undo_marker = self.tp.snd_una;
        let mut r = self.retrans_out as i32;
        if self.loss.tlp_high_seq != 0 && self.loss.tlp_retrans {
            r += 1;
        }
        self.loss.undo_retrans = if r == 0 { -1 } else { r };
    }

    /// A retransmission (`tcp_retransmit_skb`'s `undo_retrans` count).
    #[inline]
    pub(super) fn undo_note_retransmit(&mut self) {
        let l = &mut self.loss;
        if l.undo_retrans < 0 {
            l.undo_retrans = 0;
        }
        l.undo_retrans += 1;
    }

    /// `tcp_undo_cwnd_reduction`.
    fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
        if unmark_loss {
            for s in self.segs.iter_mut() {
                s.lost = false;
            }
            self.lost_out = 0;
            self.lost_pending = 0;
            self.lost_hint = self.tp.snd_una;
            self.mark_cursor = self.tp.snd_una;
        }
        if self.loss.prior_ssthresh != 0 {
            self.tp.snd_cwnd = self.cc.undo_cwnd(&mut self.tp);
            if self.loss.prior_ssthresh > self.tp.snd_ssthresh {
                self.tp.snd_ssthresh = self.loss.prior_ssthresh;
                self.cwr_pending = false; // `tcp_ecn_withdraw_cwr`
            }
        }
        self.loss.undo_marker = 0;
        self.rack_rescan();
    }

    /// `tcp_may_undo` without timestamps: every retransmission was D-SACKed.
    fn may_undo(&self) -> bool {
        self.loss.undo_marker != 0 && self.loss.undo_retrans == 0
    }

    /// `tcp_try_undo_dsack`.
    pub(super) fn try_undo_dsack(&mut self) -> bool {
        if self.may_undo() {
            self.rack_dsack_undo();
            self.undo_cwnd_reduction(false);
            self.loss.dsack_undos += 1;
            return true;
        }
        false
    }

    /// `tcp_try_undo_recovery` at the end of a recovery (SACK: the state goes to Open).
    pub(super) fn try_undo_recovery(&mut self) -> bool {
        if self.may_undo() {
            self.undo_cwnd_reduction(false);
            true
        } else {
            self.rack_recovery_done();
            false
        }
    }

    /// `tcp_try_undo_loss`.
    fn try_undo_loss(&mut self, frto_undo: bool) -> bool {
        if frto_undo || self.may_undo() {
            self.undo_cwnd_reduction(true);
            if frto_undo {
                self.loss.spurious_rtos += 1;
            }
            self.backoff = 0;
            self.set_ca_state(CaState::Open);
            return true;
        }
        false
    }

    /// `tcp_process_loss`'s undo and F-RTO steps, on an ACK in the Loss state. Returns
    /// true when the episode ended (undone), false to go on with loss recovery.
    /// `orig_acked`: the ACK covered or SACKed data below high_seq never retransmitted.
    pub(super) fn process_loss_frto(
        &mut self,
        una_advanced: bool,
        orig_acked: bool,
        sacked_or_dup: bool,
    ) -> bool {
        let recovered = self.tp.snd_una >= self.high_seq;
        if una_advanced && self.try_undo_loss(false) {
            return true;
        }
        if self.loss.frto {
            if orig_acked && self.try_undo_loss(true) {
                return true;
            }
            if self.tp.snd_nxt > self.high_seq {
                if sacked_or_dup {
                    self.loss.frto = false; // step 3.a: a real loss
                }
            } else if una_advanced && !recovered {
                self.high_seq = self.tp.snd_nxt;
                // Step 2.b: send new data if there is any and the window allows.
                let wnd_end = self.tp.snd_una + self.snd_wnd;
                if self.write_seq > self.tp.snd_nxt && wnd_end > self.tp.snd_nxt {
                    self.loss.rexmit_new = true;
                    return false;
                }
                self.loss.frto = false;
            }
        }
        false
    }
}
