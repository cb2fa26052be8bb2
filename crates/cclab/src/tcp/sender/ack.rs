//! The sender's receive path (part of `Sender`, see `sender.rs`): the SYN-ACK and the
//! ACK processing of Linux `tcp_ack`: cleaning the retransmit queue
//! (`tcp_clean_rtx_queue`), SACK and D-SACK tagging and the reordering degree, duplicate
//! ACKs (RFC 5681 §2 / RFC 6675 §2; NewReno's emulated SACKs, RFC 6582), the RTT sample
//! (`tcp_ack_update_rtt`, RFC 7323 §4), loss detection, the congestion state machine and
//! cwnd (`tcp_cong_control`).

use super::rack::{self, Pending};
use super::undo;
use super::{Sender, SndState};
use crate::cc::{
    AckSample, CaState, CongestionOps, CA_ACK_ECE, CA_ACK_SLOWPATH, CA_ACK_WIN_UPDATE,
};
use crate::engine::{SimTime, SEC};
use crate::packet::*;
use crate::tcp::accecn;
use crate::tcp::config::Growth;
use crate::transport::Io;

impl Sender {
    /// Handle a segment from the receiver.
    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        self.tp.now = io.now;
        // TS.Recent (RFC 7323 §4.3): the peer sends no data, so every in-window ACK
        // qualifies; keep the newest.
        self.ts_recent = self.ts_recent.max(p.tsval);
        match self.state {
            SndState::SynSent => {
                if p.flags & SYN != 0 && p.flags & ACK != 0 {
                    self.on_synack(p, io);
                }
            }
            SndState::Established => {
                if p.flags & ACK != 0 && p.flags & SYN == 0 {
                    self.on_ack(p, io);
                    if p.flags & FIN != 0 {
                        self.on_peer_fin(p, io);
                    }
                } else if p.flags & SYN != 0 {
                    // Retransmitted SYN-ACK: our ACK was lost; ACK again.
                    self.send_pure_ack(io);
                }
            }
            SndState::Listen | SndState::SynRcvd => self.on_packet_listen(p, io),
            SndState::Idle => {}
        }
    }

    pub(super) fn send_pure_ack(&mut self, io: &mut Io) {
        let p = self.pure_ack(io);
        self.xmit(io, p);
    }

    /// A pure ACK of what has arrived (`tcp_send_ack`), not yet sent.
    fn pure_ack(&mut self, io: &mut Io) -> Packet {
        let mut p = self.template(io.now);
        p.flags = ACK;
        if self.tp.ecn_ok && self.cc.needs_ecn() {
            p.ecn = self.ect; // the DCTCP socket keeps ECT on everything it sends
        }
        p.seq = self.tp.snd_nxt.max(1);
        p.ack = self.hs.rcv_nxt;
        p.size = IP_TCP_HDR + self.ts_len();
        if self.accecn.is_some() {
            // ACE: the CE packets this end received (none: the peer's ACKs carry no data
            // here, and are not counted), plus 5.
            p.flags = accecn::with_ace(p.flags, accecn::CEP_INIT);
        }
        p
    }

    pub(super) fn on_synack(&mut self, p: &Packet, io: &mut Io) {
        self.negotiate();
        self.hs.rcv_nxt = p.seq + 1;
        self.state = SndState::Established;
        self.stats.established_at = Some(io.now);
        self.tp.snd_una = 1;
        self.tp.snd_nxt = 1;
        self.peer_window(p.rwnd);
        self.tp.ecn_ok =
            (self.cfg.ecn || self.cc.needs_ecn()) && p.flags & ECE != 0 && p.flags & CWR == 0;
        let mut third_ack_ace = None;
        if self.cfg.accecn_out() || self.cc.needs_accecn() {
            // `tcp_ecn_rcv_synack` (RFC 9768 Table 3): AccECN, RFC 3168 or none.
            match accecn::mode_from_synack(p.flags) {
                accecn::EcnMode::AccEcn => {
                    self.tp.ecn_ok = true;
                    let saw_opt = accecn::option(p).is_some();
                    self.accecn = Some(Box::new(accecn::Feedback {
                        saw_opt,
                        ..Default::default()
                    }));
                    // The third ACK reflects the SYN-ACK's IP-ECN codepoint
                    // (`tcp_accecn_set_ace`'s exception), with the option if the SYN-ACK
                    // had one.
                    third_ack_ace = Some((accecn::synack_ace(p.ecn), saw_opt));
                }
                // `tcp_ecn_rcv_synack`: a module that allows no RFC 3168 fallback runs
                // without ECN against a classic peer.
                accecn::EcnMode::Rfc3168 => self.tp.ecn_ok = !self.cc.no_fallback_rfc3168(),
                accecn::EcnMode::Off => self.tp.ecn_ok = false,
            }
        }
        if self.syn_tx == 1 {
            self.rtt.sample(io.now - self.syn_sent_at, 1, 1);
            self.update_srtt();
        } else {
            // Lost SYN: IW = 1 (RFC 5681 §3.1), RTO falls back to 3 s until a sample.
            self.tp.snd_cwnd = 1;
            self.rtt.set_rto_no_sample(3 * SEC);
        }
        self.backoff = 0;
        self.rto_timer.disarm();
        self.cc.init(&mut self.tp);
        self.refresh_plain();
        if !self.cc_owns {
            self.update_pacing_rate();
        }
        if let Some((ace, opt)) = third_ack_ace {
            let mut a = self.pure_ack(io);
            a.flags = accecn::with_ace(a.flags, ace);
            if opt && self.cfg.ecn_option > 0 {
                // All counters at their initial values: the full option, 12 bytes.
                let o = accecn::RcvCounters::default().option(3);
                accecn::put_option(&mut a, &o);
                a.size += 12;
            }
            self.xmit(io, a);
        } else {
            self.send_pure_ack(io);
        }
        self.try_send(io);
    }

    pub(super) fn update_srtt(&mut self) {
        self.tp.srtt_us = ((self.rtt.srtt() / crate::engine::US) << 3).min(u32::MAX as u64) as u32;
        self.tp.min_rtt_us = (self.rtt.min_rtt / crate::engine::US).min(u32::MAX as u64) as u32;
    }

    pub(super) fn on_ack(&mut self, p: &Packet, io: &mut Io) {
        let ack = p.ack;
        if ack > self.tp.snd_nxt {
            return; // acks data never sent
        }
        let prior_una = self.tp.snd_una;
        if self.loss.v318 {
            self.ack_start_3_18(io); // `sender/early_retrans.rs`
        }
        // `prior_fack` (Linux `tcp_ack`): `tcp_highest_sack_seq` before this ACK.
        self.loss.prior_fack = self.highest_sack_seq();
        self.loss.orig_acked = false;
        let rack = self.rack_on();
        let prior_in_flight = self.in_flight();
        let prior_state = self.tp.ca_state;
        let prior_delivered = self.tp.delivered;
        let prior_lost = self.tp.lost;
        if self.cc_owns {
            // `tcp_ack`: a fresh rate sample (`sender/rate.rs`).
            self.rate.rs = crate::cc::RateSample {
                prior_in_flight,
                ..Default::default()
            };
        }
        let prior_wnd = self.snd_wnd;
        self.peer_window(p.rwnd);
        if self.loss.pending == Pending::Probe0 {
            self.ack_probe(io);
        }
        // RFC 3168: ECE. Accurate ECN: whether ACE and the option report new CE marks
        // (`FLAG_ECE` from `tcp_accecn_process`), decided once the ACK's deliveries are
        // known, below.
        let mut ece = self.tp.ecn_ok && (p.flags & ECE != 0 || self.accecn.is_some());

        // Cumulative ACK: clean the retransmit queue (Linux `tcp_clean_rtx_queue`).
        let Cleaned {
            acked_segs,
            first_ackt,
            last_ackt,
            mut newly_delivered,
            retrans_data_acked,
            cum_reord,
        } = self.clean_rtx_queue(p, ack, rack);
        if ack > prior_una {
            self.advance_una(ack, prior_una);
        }
        let (dsack, newly_sacked) = self.tag_sacks(p, prior_una, cum_reord, rack);
        newly_delivered += newly_sacked + dsack.dup_segs;

        let is_dup = self.dupack(
            p,
            (prior_una, prior_wnd),
            (acked_segs, newly_sacked),
            &mut newly_delivered,
        );
        self.tp.delivered += newly_delivered as u64;
        if ece {
            ece = self.ecn_echo(p, ack, prior_una, newly_delivered, newly_sacked);
            if ece {
                self.stats.ece_acks += 1;
            }
        }

        // RTT sample.
        let c = (first_ackt, last_ackt, retrans_data_acked);
        let rtt_us = self.ack_rtt_sample(p, io, ack, prior_una, c);
        if self.cc_owns {
            self.rate.rs.rtt_us = rtt_us;
            // `FLAG_ACK_MAYBE_DELAYED` (`tcp_clean_rtx_queue`): one runt segment acked,
            // nothing SACKed, nothing else delivered.
            self.rate.rs.is_ack_delayed = acked_segs == 1
                && newly_sacked == 0
                && ack - prior_una < self.mss as u64
                && self.rate.rs.prior_delivered.wrapping_add(1) == self.tp.delivered as u32;
        }
        // `FLAG_SET_XMIT_TIMER`: with RACK or TLP the timer is set after loss detection
        // (`tcp_set_xmit_timer`), unless RACK armed the reordering timer.
        let mut set_xmit_timer = false;
        if ack > prior_una {
            self.backoff = 0;
            if rack || self.cfg.tlp {
                set_xmit_timer = true;
            } else {
                self.rearm_rto(io);
            }
        }
        if acked_segs > 0 || newly_sacked > 0 {
            let sample = AckSample {
                pkts_acked: acked_segs + newly_sacked,
                rtt_us,
                in_flight: prior_in_flight,
                rcv_tsval: p.tsval,
                rcv_tsecr: if self.hs.ts { p.tsecr } else { 0 },
            };
            self.cc.pkts_acked(&mut self.tp, &sample);
        }
        // `tcp_in_ack_event`, which an ACK below snd_una never reaches (`old_ack`).
        if ack >= prior_una {
            self.in_ack_event(p, prior_una, prior_wnd, ece);
        }

        let not_dup = ack > prior_una || p.payload > 0 || p.rwnd != prior_wnd;
        if self.cc_owns {
            self.rate.rs.is_ece = ece;
            self.rate.rs.is_acking_tlp_retrans_seq =
                self.loss.tlp_retrans && ack == self.loss.tlp_high_seq;
        }
        if self.loss.tlp_high_seq != 0 {
            self.process_tlp_ack(ack, dsack.tlp, not_dup, newly_sacked > 0);
        }

        // Loss detection: RFC 6675 IsLost here, RACK in the state machine.
        let mut newly_lost = 0;
        let lost_before = self.lost_out;
        if self.cfg.sack && !rack {
            newly_lost += self.sack_loss_on_ack(is_dup, newly_sacked > 0, ack > prior_una);
        }
        let dupacks_now = if self.cfg.sack {
            self.sacked_out
        } else {
            self.reno_dupacks
        };

        let ev = rack::AckEvent {
            // `tcp_ack_is_dubious`.
            dubious: !not_dup || newly_sacked > 0 || ece || self.tp.ca_state != CaState::Open,
            una_advanced: ack > prior_una,
            sacked_or_dup: newly_sacked > 0 || is_dup,
        };
        if self.congestion_state_machine(io, ack, prior_una, ece, dupacks_now, newly_lost, ev) {
            set_xmit_timer = false; // RACK armed the reordering timer
        }
        if rack {
            newly_lost = self.lost_out.saturating_sub(lost_before);
        }
        if set_xmit_timer && !self.schedule_loss_probe(io, true) {
            self.rearm_rto(io);
        } else if !set_xmit_timer && self.loss.v318 {
            self.ack_end_3_18(io); // `sender/early_retrans.rs`
        }

        // Cwnd: reduce (PRR) or grow (Linux `tcp_cong_control`), or the module's
        // `cong_control` with this ACK's rate sample (`tcp_rate_gen` first).
        if self.cc_owns {
            // `tcp_ack` reaches `tcp_rate_gen` / `tcp_cong_control` neither for an old
            // ACK (`old_ack`) nor for one that found nothing outstanding (`no_queue`,
            // `!prior_packets`: snd_una was snd_nxt, which this ACK has not moved).
            if ack >= prior_una && prior_una < self.tp.snd_nxt {
                let delivered = (self.tp.delivered - prior_delivered) as u32;
                self.rate_gen(delivered, (self.tp.lost - prior_lost) as u32);
                self.tp.packets_in_flight = self.in_flight();
                self.tp.packets_out = self.packets_out();
                self.tp.tcp_wstamp = self.wstamp;
                self.tp.cwnd_usage_limited = self.usage.limited;
                self.cc.cong_control(&mut self.tp, &self.rate.rs);
            }
        } else {
            self.cong_control(
                ack,
                prior_una,
                prior_delivered,
                newly_lost,
                is_dup,
                prior_state,
            );
            self.update_pacing_rate();
        }

        self.ack_send(io);
    }

    /// The cumulative ACK moved `snd_una` from `prior_una` to `ack`.
    #[inline]
    fn advance_una(&mut self, ack: u64, prior_una: u64) {
        self.stats.bytes_acked += ack - prior_una;
        self.tp.snd_una = ack;
        // SACKed segments below the new snd_una left the scoreboard: drop them from the
        // top-3 list (ascending, so they form a prefix).
        let keep = self.top_sacked[..self.n_top]
            .iter()
            .filter(|&&s| s >= ack)
            .count();
        let drop = self.n_top - keep;
        self.top_sacked.copy_within(drop..self.n_top, 0);
        self.n_top = keep;
    }

    /// Duplicate ACK (RFC 5681 §2 / RFC 6675 §2): whether `p` is one, and without SACK
    /// NewReno's emulated SACKs (RFC 6582), which move `newly_delivered`.
    #[inline]
    fn dupack(
        &mut self,
        p: &Packet,
        (prior_una, prior_wnd): (u64, u64),
        (acked_segs, newly_sacked): (u32, u32),
        newly_delivered: &mut u32,
    ) -> bool {
        let is_dup = p.ack == prior_una
            && !self.segs.is_empty()
            && p.payload == 0
            && (if self.cfg.sack {
                newly_sacked > 0
            } else {
                p.rwnd == prior_wnd
            });
        if is_dup {
            self.stats.dupacks += 1;
            if !self.cfg.sack {
                // NewReno: each duplicate ACK means one segment has left the network.
                if self.reno_dupacks + 1 < self.packets_out() {
                    self.reno_dupacks += 1;
                    self.sacked_out += 1;
                    *newly_delivered += 1;
                }
            }
        } else if !self.cfg.sack && acked_segs > 0 {
            // `tcp_remove_reno_sacks`: cumulatively acked segments consume dupack credits.
            let d = acked_segs.min(self.reno_dupacks);
            self.reno_dupacks -= d;
            self.sacked_out -= d;
            *newly_delivered = newly_delivered.saturating_sub(d);
        }
        if !self.cfg.sack && self.segs.is_empty() {
            self.sacked_out -= self.reno_dupacks;
            self.reno_dupacks = 0;
        }
        is_dup
    }

    /// The ECN feedback of an ACK: RFC 3168's ECE counts every newly delivered packet
    /// as marked (`tcp_count_delivered`); Accurate ECN counts the CE marks ACE and the
    /// option report (`tcp_accecn_process`). True when it reports congestion (`FLAG_ECE`).
    #[inline]
    fn ecn_echo(
        &mut self,
        p: &Packet,
        ack: u64,
        prior_una: u64,
        newly_delivered: u32,
        newly_sacked: u32,
    ) -> bool {
        if self.accecn.is_none() {
            self.tp.delivered_ce += newly_delivered as u64;
            self.rate.rs.ece_delta = newly_delivered; // `tcp_newly_delivered`
            return true;
        }
        self.accecn_echo(p, ack, prior_una, newly_delivered, newly_sacked)
    }

    /// [`Self::ecn_echo`] with Accurate ECN (`tcp_accecn_process`). Out of line: inlined
    /// into the ACK path it cost every other connection 1% of `cclab bench`'s
    /// instructions (callgrind, release build), through the code around it.
    #[inline(never)]
    fn accecn_echo(
        &mut self,
        p: &Packet,
        ack: u64,
        prior_una: u64,
        newly_delivered: u32,
        newly_sacked: u32,
    ) -> bool {
        let Some(acc) = self.accecn.as_deref_mut() else {
            unreachable!("called with AccECN only");
        };
        if ack < prior_una {
            // `tcp_ack`'s `old_ack`: an ACK below snd_una has its SACK blocks tagged but
            // never reaches `tcp_accecn_process`; its ACE is not read.
            return false;
        }
        // `sack_state.delivered_bytes`: the newly SACKed segments (at the MSS here,
        // `tcp_sacktag_one`), which `tcp_clean_rtx_queue` replaces (`=`, not `+=`) by the
        // advance of snd_una when the ACK advances it.
        let bytes = if ack > prior_una {
            ack - prior_una
        } else {
            newly_sacked as u64 * self.mss as u64
        };
        // `FLAG_FORWARD_PROGRESS | FLAG_TS_PROGRESS`: an ACK that delivers something, or
        // one with a newer timestamp (the D-SACK of a tail loss probe).
        let progress = ack > prior_una || newly_sacked > 0 || p.tsval > acc.last_tsval;
        acc.last_tsval = acc.last_tsval.max(p.tsval);
        let sack_or_open =
            self.cfg.sack || matches!(self.tp.ca_state, CaState::Open | CaState::Cwr);
        let d = acc.ce_delta(p, progress, newly_delivered, bytes, self.mss, sack_or_open);
        acc.delivered_ce += d as u64;
        self.tp.delivered_ce += d as u64;
        // `rs->ece_delta` (`tcp_accecn_process`), read by a module with `cong_control`.
        self.rate.rs.ece_delta = d;
        d > 0
    }

    /// `tcp_in_ack_event` for an ACK at or above `prior_una`: its flags to the congestion
    /// control.
    #[inline]
    fn in_ack_event(&mut self, p: &Packet, prior_una: u64, prior_wnd: u64, ece: bool) {
        let mut flags = 0;
        if ece {
            flags |= CA_ACK_ECE;
        }
        // `tcp_may_update_window` (FLAG_WIN_UPDATE): the ACK moved snd_una, carried data
        // or opened the window.
        if p.ack == prior_una {
            flags |= CA_ACK_SLOWPATH;
            if p.payload > 0 || p.rwnd > prior_wnd {
                flags |= CA_ACK_WIN_UPDATE;
            }
        } else {
            flags |= CA_ACK_WIN_UPDATE;
        }
        self.cc.in_ack_event(&mut self.tp, flags);
    }

    /// Loss detection with SACK and without RACK: FACK, or RFC 6675 IsLost once enough is
    /// SACKed or in recovery. Returns the segments newly marked lost.
    #[inline]
    fn sack_loss_on_ack(&mut self, is_dup: bool, sacked: bool, una_advanced: bool) -> u32 {
        if self.loss.fack {
            // FACK (`sender/fack.rs`); the entry into recovery marks in the state machine.
            self.fack_on_ack(is_dup, sacked, una_advanced)
        } else if self.sacked_out >= self.loss.reordering || self.tp.ca_state == CaState::Recovery {
            self.mark_lost_by_sack()
        } else {
            0
        }
    }

    /// After the ACK: a byte-count flow done, then what cwnd allows goes out (F-RTO's
    /// retransmission if no new data could).
    #[inline]
    fn ack_send(&mut self, io: &mut Io) {
        // Byte-count flow finished?
        if self.app_closed && self.segs.is_empty() && self.tp.snd_una >= self.write_seq {
            self.done_at.get_or_insert(io.now);
            self.rto_timer.disarm();
        }
        self.try_send(io);
        if self.loss.rexmit_new {
            // F-RTO step 2.b (`tcp_xmit_recovery` with REXMIT_NEW): no new data went out
            // after all: retransmit.
            self.loss.rexmit_new = false;
            if self.tp.snd_nxt <= self.high_seq {
                self.loss.frto = false;
                self.try_send(io);
            }
        }
    }

    /// Cumulative ACK: clean the retransmit queue (Linux `tcp_clean_rtx_queue`): the
    /// segments at or below `ack` leave the scoreboard, their counters and RACK updated.
    #[inline]
    fn clean_rtx_queue(&mut self, p: &Packet, ack: u64, rack: bool) -> Cleaned {
        let mut cum_reord = u64::MAX;
        let mut rack_orig: Option<(u64, SimTime)> = None;
        let mut acked_segs = 0u32;
        let mut first_ackt: Option<SimTime> = None;
        let mut last_ackt: Option<SimTime> = None;
        let mut newly_delivered = 0u32;
        let mut retrans_data_acked = false;
        while let Some(s) = self.segs.front() {
            if s.end > ack {
                break;
            }
            let s = self.segs.pop_front().unwrap();
            if self.cc_owns {
                let t = self.rate.tx.pop_front().expect("a snapshot per segment");
                if !s.sacked {
                    self.rate_skb_delivered(&s, &t);
                }
            }
            acked_segs += 1;
            if s.sacked {
                self.sacked_out -= 1;
            } else {
                newly_delivered += 1;
            }
            if s.lost {
                self.lost_out -= 1;
                if !s.retrans && !s.sacked {
                    self.lost_pending = self.lost_pending.saturating_sub(1);
                }
            }
            if s.retrans {
                self.retrans_out -= 1;
            }
            if s.ever_retrans {
                retrans_data_acked = true;
            } else if !s.sacked {
                first_ackt.get_or_insert(s.sent);
                last_ackt = Some(s.sent);
                cum_reord = cum_reord.min(s.start);
                if s.end <= self.high_seq {
                    self.loss.orig_acked = true; // FLAG_ORIG_SACK_ACKED
                }
            }
            // `tcp_clean_rtx_queue`: RACK hears of every newly delivered segment, but not
            // of a retransmission the ACK's timestamp shows was needless. Segments sent
            // once are in send order: of a run of them only the last one's call matters
            // (the latest send time, and the RTT the last call leaves), so it is made when
            // a retransmitted one comes or the loop ends.
            if rack && !s.sacked {
                if !s.ever_retrans {
                    rack_orig = Some((s.end, s.sent));
                } else if !(p.tsecr > 0 && p.tsecr < s.sent) {
                    if let Some((e, t)) = rack_orig.take() {
                        self.rack_advance(false, e, t);
                    }
                    self.rack_advance(true, s.end, s.sent);
                }
            }
        }
        if let Some((e, t)) = rack_orig {
            self.rack_advance(false, e, t);
        }
        Cleaned {
            acked_segs,
            first_ackt,
            last_ackt,
            newly_delivered,
            retrans_data_acked,
            cum_reord,
        }
    }

    /// D-SACK, SACK tagging and the reordering degree they show; returns the D-SACK and
    /// the number of newly SACKed segments.
    #[inline]
    fn tag_sacks(
        &mut self,
        p: &Packet,
        prior_una: u64,
        cum_reord: u64,
        rack: bool,
    ) -> (undo::Dsack, u32) {
        let dsack = if self.cfg.dsack && self.cfg.sack {
            self.check_dsack(p, prior_una)
        } else {
            undo::Dsack::default()
        };
        let newly_sacked = if self.cfg.sack {
            self.process_sacks(p)
        } else {
            0
        };
        if self.cfg.sack {
            // Reordering (`tcp_sacktag_write_queue`, `tcp_clean_rtx_queue`): a segment
            // below the highest SACKed one delivered without retransmission.
            let reord = std::mem::replace(&mut self.loss.reord, u64::MAX);
            if reord != u64::MAX
                && (self.tp.ca_state != CaState::Loss || self.loss.undo_marker != 0)
            {
                self.check_sack_reordering(reord);
            }
            if cum_reord < self.loss.prior_fack {
                self.check_sack_reordering(cum_reord);
            }
        }
        if rack {
            self.rack_update_reo_wnd();
        }
        (dsack, newly_sacked)
    }

    /// RTT sample (Linux `tcp_clean_rtx_queue` + `tcp_ack_update_rtt`): from the send time
    /// of the acked segments, unless the ACK covers retransmitted data (Karn); then from
    /// the echoed timestamp (RFC 7323 §4), which names the segment that moved the edge.
    /// Returns the sample for the module in microseconds, or -1.
    #[inline]
    fn ack_rtt_sample(
        &mut self,
        p: &Packet,
        io: &mut Io,
        ack: u64,
        prior_una: u64,
        (first_ackt, last_ackt, retrans_data_acked): (Option<SimTime>, Option<SimTime>, bool),
    ) -> i64 {
        let mut rtt_us = -1i64;
        let seq_rtt = match first_ackt {
            Some(t) if !retrans_data_acked => Some((io.now - t, io.now - last_ackt.unwrap_or(t))),
            _ if ack > prior_una && self.hs.ts && p.tsecr > 0 && p.tsecr <= io.now => {
                Some((io.now - p.tsecr, io.now - p.tsecr))
            }
            _ => None,
        };
        if let Some((seq_rtt, ca_rtt)) = seq_rtt {
            self.rtt.sample(seq_rtt, self.tp.snd_una, self.tp.snd_nxt);
            self.update_srtt();
            rtt_us = (ca_rtt / crate::engine::US) as i64;
        }
        rtt_us
    }

    /// Cwnd: reduce (PRR) or grow (Linux `tcp_cong_control`).
    #[inline]
    fn cong_control(
        &mut self,
        ack: u64,
        prior_una: u64,
        prior_delivered: u64,
        newly_lost: u32,
        is_dup: bool,
        prior_state: CaState,
    ) {
        let delivered = (self.tp.delivered - prior_delivered) as u32;
        match self.tp.ca_state {
            CaState::Recovery | CaState::Cwr => {
                if self.cfg.rate_halving {
                    self.rate_halving_ack(); // `sender/rate_halving.rs`
                } else if self.cfg.prr {
                    self.prr_reduction(delivered, newly_lost > 0, ack > prior_una);
                } else if !self.cfg.sack && self.tp.ca_state == CaState::Recovery && is_dup {
                    // RFC 6582 §3.2 step 3: inflate by one per duplicate ACK.
                    self.tp.snd_cwnd += 1;
                }
            }
            // 2.6.9 decides growth before the state machine (`tcp_ack`:
            // `tcp_may_raise_cwnd`): not on the ACK that ends a reduction.
            _ if self.cfg.rate_halving
                && matches!(prior_state, CaState::Recovery | CaState::Cwr) => {}
            _ => {
                // `tcp_may_raise_cwnd` (Linux 6.6, reordering at its initial value): only an
                // ACK that advances snd_una (FLAG_DATA_ACKED) raises cwnd, by every segment
                // delivered; SACKs and duplicate ACKs alone do not (RFC 5681 §3.1).
                if ack > prior_una {
                    let acked = match self.cfg.growth {
                        Growth::Segments => delivered,
                        Growth::Acks => 1,
                        Growth::SlowStartSegments if self.tp.in_slow_start() => delivered,
                        Growth::SlowStartSegments => 1,
                    };
                    self.tp.is_cwnd_limited = self.is_cwnd_limited();
                    if acked > 0 {
                        self.cc.cong_avoid(&mut self.tp, acked);
                    }
                }
            }
        }
    }
}

/// What cleaning the retransmit queue found (`tcp_clean_rtx_queue`).
#[derive(Clone, Copy)]
struct Cleaned {
    /// Segments that left the scoreboard.
    acked_segs: u32,
    /// Send times of the first and last of them sent once and not SACKed (the RTT sample).
    first_ackt: Option<SimTime>,
    last_ackt: Option<SimTime>,
    /// Of them, those not SACKed before.
    newly_delivered: u32,
    /// One of them was ever retransmitted (Karn).
    retrans_data_acked: bool,
    /// The lowest start of those delivered without retransmission (reordering).
    cum_reord: u64,
}
