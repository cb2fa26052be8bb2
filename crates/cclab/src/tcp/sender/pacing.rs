//! Pacing, segmentation offload and TCP small queues (part of `Sender`, see `sender.rs`),
//! as Linux 5.18 – 6.15 does them (`net/ipv4/tcp_output.c`, `tcp_input.c`,
//! `net/core/sock.c`; docs/references.md §10):
//!
//! - **Pacing rate** (`tcp_update_pacing_rate`, after every ACK, the SYN-ACK's included):
//!   `mss · max(cwnd, packets_out) / srtt`, times `tcp_pacing_ss_ratio` (200%) while
//!   cwnd < ssthresh/2, else `tcp_pacing_ca_ratio` (120%), then at most
//!   `SO_MAX_PACING_RATE`.
//! - **Who enforces it** (`sk_pacing_status`): `fq` as the host qdisc (`SK_PACING_FQ`,
//!   set by `fq` on the socket's first packet; here when the connection is built);
//!   otherwise TCP itself when `SO_MAX_PACING_RATE` is set (`SK_PACING_NEEDED`: the write
//!   loop stops while the next departure time is in the future and an hrtimer resumes it,
//!   `tcp_pacing_check` / `tcp_pace_kick`); otherwise nobody (`SK_PACING_NONE`: CUBIC,
//!   Reno and DCTCP on `pfifo_fast` are unpaced).
//! - **Earliest departure time** (EDT, `tcp_update_skb_after_send`): every packet leaves
//!   with `tstamp = tcp_wstamp_ns = max(tcp_wstamp_ns, now)`; then, once 10 data segments
//!   have been sent (`data_segs_out >= 10`: "original sch_fq does not pace first 10 MSS")
//!   and a rate is known, `tcp_wstamp_ns` advances by the skb's payload time at the
//!   pacing rate less the credit of time the socket spent idle (at most half of it).
//!   Pacing is per skb: with segmentation offload a whole aggregate leaves at once.
//! - **TSO autosizing** (`tcp_tso_autosize`, `tcp_tso_segs`): an skb carries
//!   `max(2, min(pacing_rate >> 10 + 64 KB >> (min_rtt_us >> 9), 64 KB) / mss)` segments,
//!   and at most `(65536 − 1 − MAX_TCP_HEADER) / mss` (`tcp_xmit_size_goal`;
//!   MAX_TCP_HEADER taken as 320 bytes, a common x86-64 build's value: 45 segments at
//!   MSS 1448). A lost skb goes again as one aggregate too (`sender/rtx.rs`).
//! - **TSO deferral** (`tcp_tso_should_defer`, "TSO Nagle"): in the Open, Disorder and
//!   CWR states, an skb of new data that the windows would cut below a full skb waits for
//!   the next ACK unless a third of the window can go (`tcp_tso_win_divisor` 3), the
//!   oldest unacknowledged skb left less than half an RTT ago (the ACK is far), the last
//!   transmission was over 1 ms ago, or it is the last skb of a closed application (the
//!   FIN). Linux's `push_one` calls (`tcp_push_one` from `sendmsg`) skip the test; here
//!   every send loop makes it, as the ACK-driven ones (`tcp_data_snd_check`) do.
//! - **TCP small queues** (`tcp_small_queue_check`): before each skb, the socket's bytes
//!   still in the host qdisc and NIC may not exceed `max(2 · skb, pacing_rate >> 10)`,
//!   capped at `tcp_limit_output_bytes` (1 MiB, Linux 4.x – 6.15) when unpaced, and
//!   doubled for retransmissions; when over, TCP stops unless nothing is unacknowledged,
//!   and resumes when the NIC has sent what it held (the TX completion, taken at the end
//!   of serialisation: interrupt moderation is not modelled). A packet's truesize is
//!   taken as its IP length (Linux charges the skb's buffer, somewhat more).

use super::Sender;
use crate::cc::{CaState, CongestionOps};
use crate::engine::{SimTime, TimerCheck, MS, US};
use crate::transport::{Io, TimerKind};

pub use crate::cc::{PacingStatus, NO_RATE};
/// `sk_pacing_shift` (`sock_init_data`): TSO autosizing and TSQ allow about 1 ms
/// (2^-10 s) of data at the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `sk_gso_max_size` (`GSO_LEGACY_MAX_SIZE`).
const GSO_MAX_SIZE: u64 = 65_536;
/// `MAX_TCP_HEADER` = L1_CACHE_ALIGN(128 + MAX_HEADER): 320 on a common x86-64 build
/// (docs/references.md §10, not checked against one kernel's `.config`).
const MAX_TCP_HEADER: u64 = 320;
/// `net.ipv4.tcp_tso_rtt_log`.
const TSO_RTT_LOG: u32 = 9;
/// `net.ipv4.tcp_limit_output_bytes` (1 MiB; 4 MiB from Linux 6.16).
pub const LIMIT_OUTPUT_BYTES: u64 = 1 << 20;
/// Data segments sent unpaced at the start (`tcp_update_skb_after_send`).
const UNPACED_SEGS: u64 = 10;

impl Sender {
    /// `sk_pacing_status` for this socket's configuration.
    pub(super) fn pacing_status_of(cfg: &crate::tcp::config::TcpConfig) -> PacingStatus {
        if cfg.host.fq {
            PacingStatus::Fq
        } else if cfg.max_pacing_rate.is_some() {
            PacingStatus::Needed
        } else {
            PacingStatus::None
        }
    }

    /// `tcp_update_pacing_rate` (`TcpCcState::update_pacing_rate`), after every ACK of a
    /// module without `cong_control`, as Linux: the sender's pacing, TSO autosizing and
    /// small queues, CUBIC's HyStart and `ss` all read the one rate it sets.
    pub(super) fn update_pacing_rate(&mut self) {
        if !self.track_pacing {
            return;
        }
        self.tp.packets_out = self.packets_out();
        self.tp.update_pacing_rate();
    }

    /// `sk_pacing_rate` for `ss`: the socket's, or, where nothing reads it during the run
    /// (`track_pacing` false), `tcp_update_pacing_rate`'s value from the socket now.
    pub(super) fn pacing_rate_for_ss(&self) -> u64 {
        if self.track_pacing || self.cc_owns {
            return self.tp.sk_pacing_rate;
        }
        let mut tp = self.tp.clone();
        tp.packets_out = self.packets_out();
        if tp.srtt_us == 0 {
            return tp.sk_pacing_rate;
        }
        tp.pacing_rate_now()
    }

    /// The pacing rate in bytes per second (`NO_RATE` before the first RTT sample).
    pub fn pacing_rate(&self) -> u64 {
        self.tp.sk_pacing_rate
    }

    /// `tcp_tso_segs`: segments per skb.
    #[inline]
    pub fn tso_segs(&self) -> u32 {
        if !self.cfg.host.tso {
            return 1;
        }
        // A module that sizes its skbs itself (`.tso_segs`, BBR v3).
        if self.cc_min_tso {
            if let Some(n) = self.cc.tso_segs(&self.tp, self.mss) {
                return n.clamp(
                    1,
                    ((GSO_MAX_SIZE - 1 - MAX_TCP_HEADER) / self.mss as u64) as u32,
                );
            }
        }
        let mss = self.mss as u64;
        let mut bytes = self.tp.sk_pacing_rate >> PACING_SHIFT;
        let r = self.tp.min_rtt_us >> TSO_RTT_LOG;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
        }
        // `tcp_tso_segs`: the module's `min_tso_segs`, else the sysctl.
        let min_tso = match self.cc_min_tso {
            true => self
                .cc
                .min_tso_segs(&self.tp)
                .unwrap_or(self.cfg.min_tso_segs),
            false => self.cfg.min_tso_segs,
        };
        let segs = (bytes.min(GSO_MAX_SIZE) / mss).max(min_tso as u64);
        let goal = (GSO_MAX_SIZE - 1 - MAX_TCP_HEADER) / mss;
        segs.min(goal).max(1) as u32
    }

    /// `tcp_pacing_check`: with internal pacing, is the next departure still ahead? Then
    /// the pacing timer is armed for it.
    #[inline]
    pub(super) fn pacing_check(&mut self, io: &mut Io) -> bool {
        if self.tp.sk_pacing_status != PacingStatus::Needed || self.wstamp <= io.now {
            return false;
        }
        if let Some(t) = self.pace_timer.arm(self.wstamp) {
            io.timers.push((t, TimerKind::Pace));
        }
        true
    }

    /// `tcp_small_queue_check` for an skb of `size` bytes (`factor` 1 for a
    /// retransmission): true when TCP must stop until bytes leave the host.
    #[inline]
    pub(super) fn small_queue_check(&mut self, io: &mut Io, size: u32, factor: u32) -> bool {
        if !self.cfg.host.tsq {
            return false;
        }
        let mut limit = (2 * size as u64).max(self.tp.sk_pacing_rate >> PACING_SHIFT);
        if self.tp.sk_pacing_status == PacingStatus::None {
            limit = limit.min(LIMIT_OUTPUT_BYTES);
        }
        limit <<= factor;
        if io.below <= limit {
            return false;
        }
        // `tcp_rtx_queue_empty`: with nothing unacknowledged, TCP does not wait.
        if self.packets_out() == 0 {
            return false;
        }
        io.tsq_throttled = true;
        true
    }

    /// Stamp `p`'s earliest departure time and advance the socket's
    /// (`tcp_update_skb_after_send`). Returns the departure time, which the skb keeps as
    /// its send time (`skb_mstamp_ns`: RTT samples and the TSO deferral's "oldest skb"
    /// count from it, not from when TCP queued it for a pacing qdisc).
    #[inline]
    pub(super) fn stamp_departure(
        &mut self,
        p: &mut crate::packet::Packet,
        now: SimTime,
    ) -> SimTime {
        let prior = self.wstamp;
        // Every packet moves `tcp_wstamp_ns` to now at least (`__tcp_transmit_skb`), paced
        // or not: `tso_should_defer` reads it.
        self.wstamp = self.wstamp.max(now);
        let departs = self.wstamp;
        if self.tp.sk_pacing_status == PacingStatus::None {
            return departs;
        }
        p.edt = departs;
        let rate = self.tp.sk_pacing_rate;
        if rate != NO_RATE && rate > 0 && self.stats.data_segs_out >= UNPACED_SEGS {
            // Linux works in ns; the simulator's clock is in ps.
            let len_ns = p.payload as u64 * 1_000_000_000 / rate;
            let credit_ns = (self.wstamp - prior) / 1000;
            let len_ns = len_ns - (len_ns / 2).min(credit_ns);
            self.wstamp += len_ns * 1000;
        }
        departs
    }

    /// `tcp_tso_should_defer` (John Heffner's "TSO Nagle", Linux 5.18 – 6.15): the next
    /// skb of new data, starting at `nxt`, would be cut short by the windows; wait for the
    /// ACK that is due soon to send a fuller one? Only for an skb of more than one segment,
    /// with cwnd room for at least one (both checked by the caller). `max_segs` is
    /// `tcp_tso_segs`. The skb is what the application wrote from `nxt`, up to `max_segs`
    /// segments (Linux sizes the write queue's skbs when the application writes; here the
    /// size goal of now stands for the one of then); it is the write queue's tail when
    /// everything written fits in it.
    pub(super) fn tso_should_defer(&mut self, now: SimTime, nxt: u64, max_segs: u32) -> bool {
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            return false;
        }
        // Only if the last write was recent (1 ms); `tcp_wstamp_ns` may be in the future
        // (a paced socket).
        if now > self.wstamp + MS {
            return false;
        }
        let mss = self.mss as u64;
        let in_flight = self.in_flight();
        let send_win = (self.tp.snd_una + self.snd_wnd).saturating_sub(nxt);
        let cong_win = self.tp.snd_cwnd.saturating_sub(in_flight) as u64 * mss;
        let limit = send_win.min(cong_win);
        // A full-sized skb can go: send it.
        let full = max_segs as u64 * mss;
        if limit >= full {
            return false;
        }
        let written = self.write_seq - nxt;
        let skb_len = written.min(full);
        let tail = written <= full;
        // An skb in the middle of the queue gets no more data: all of it can go.
        if !tail && limit >= skb_len {
            return false;
        }
        // At least 1/`tcp_tso_win_divisor` (a third by default) of a window can go.
        let chunk = self.snd_wnd.min(self.tp.snd_cwnd as u64 * mss)
            / self.cfg.tso_win_divisor.max(1) as u64;
        if limit >= chunk {
            return false;
        }
        // The next ACK is likely to come too late: the oldest unacknowledged skb left
        // less than half an RTT ago.
        let Some(head) = self.segs.front() else {
            return false;
        };
        if now.saturating_sub(head.sent) < (self.tp.srtt_us >> 4) as u64 * US {
            return false;
        }
        if cong_win < send_win {
            if cong_win <= skb_len {
                self.cwnd_limited = true;
                return true;
            }
        } else if send_win <= skb_len {
            return true;
        }
        // This skb will get no more data (the FIN rides on it): do not wait.
        if tail && self.app_closed {
            return false;
        }
        true
    }

    /// The pacing timer or a TSQ wake-up is due.
    pub(super) fn on_pace_or_tsq(&mut self, kind: TimerKind, io: &mut Io) {
        if kind == TimerKind::Pace {
            match self.pace_timer.on_event(io.now) {
                TimerCheck::Fire => {}
                TimerCheck::Reschedule(t) => {
                    io.timers.push((t, TimerKind::Pace));
                    return;
                }
                TimerCheck::Idle => return,
            }
        }
        self.try_send(io);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, US};
    use crate::tcp::config::HostStack;
    use crate::tcp::config::TcpConfig;
    use crate::tcp::harness::Bench;

    fn cfg(tso: bool, max: Option<u64>, fq: bool) -> TcpConfig {
        TcpConfig {
            cc: "cubic".into(),
            sndbuf: 64 << 20,
            rcvbuf: 64 << 20,
            max_pacing_rate: max,
            host: HostStack {
                tso,
                tsq: false,
                fq,
            },
            ..Default::default()
        }
    }

    /// docs/references.md PACE-1: CUBIC on pfifo with no socket option is unpaced; with
    /// `SO_MAX_PACING_RATE` TCP paces itself; with `fq` as the host qdisc, fq paces.
    #[test]
    fn pacing_status_follows_sk_pacing_status() {
        assert_eq!(
            Sender::pacing_status_of(&cfg(false, None, false)),
            PacingStatus::None
        );
        assert_eq!(
            Sender::pacing_status_of(&cfg(false, Some(80_000_000), false)),
            PacingStatus::Needed
        );
        assert_eq!(
            Sender::pacing_status_of(&cfg(false, Some(80_000_000), true)),
            PacingStatus::Fq
        );
        assert_eq!(
            Sender::pacing_status_of(&cfg(false, None, true)),
            PacingStatus::Fq
        );
    }

    /// `tcp_tso_should_defer`, branch by branch, on a sender caught with its initial
    /// window in flight (CUBIC with TSO, 100 µs each way, an initial window of 30 segments
    /// sent at 200 µs):
    /// its skbs would be 45 segments (`tcp_tso_segs` at 10 Gbit/s-class rates), srtt is
    /// set to 160 µs, so "the next ACK is near" once the oldest segment is 80 µs old, and
    /// the last write was at 200 µs. Each expectation is Linux's function read by hand
    /// with the numbers given.
    #[test]
    fn tso_should_defer_follows_linux() {
        let mut c = cfg(true, None, false);
        c.init_cwnd = 30;
        let mut b = Bench::new(&c, 100 * US, 10_000_000_000, None);
        b.connect();
        b.run_until(300 * US);
        let mut s = b.s;
        let mss = s.mss as u64;
        let nxt = s.tp.snd_nxt;
        let sent = s.segs.front().expect("the initial window in flight").sent;
        assert_eq!((s.in_flight(), s.tso_segs()), (30, 45));
        assert!(
            s.write_seq - nxt > 45 * mss,
            "an endless writer's skbs are full"
        );
        s.tp.srtt_us = 160 << 3;
        s.wstamp = sent;
        let at = |us: u64| sent + us * US;
        let defer = |s: &mut Sender, cwnd: u32, now: SimTime| {
            s.tp.snd_cwnd = cwnd;
            s.cwnd_limited = false;
            s.tso_should_defer(now, nxt, 45)
        };
        // Room for 6 segments of cwnd 36: below a full skb (45) and a third of cwnd (12),
        // the oldest segment 100 µs old: wait, cwnd-limited.
        assert!(defer(&mut s, 36, at(100)));
        assert!(s.cwnd_limited);
        // A third of cwnd: 14 · 1448 = 20,272 < 44 · 1448 / 3 = 21,237 waits; 15 · 1448 =
        // 21,720 ≥ 45 · 1448 / 3 = 21,720 goes.
        assert!(defer(&mut s, 44, at(100)));
        assert!(!defer(&mut s, 45, at(100)));
        // A full skb goes even where a third of cwnd is more (cwnd 170: room 140 ≥ 45).
        assert!(!defer(&mut s, 170, at(100)));
        // The oldest segment only 70 µs old (< srtt / 2): the ACK is far, go.
        assert!(!defer(&mut s, 36, at(70)));
        // The last write more than 1 ms ago: go; just under it: wait.
        assert!(!defer(&mut s, 36, at(1_001)));
        assert!(defer(&mut s, 36, at(999)));
        // In recovery: go.
        s.tp.ca_state = CaState::Recovery;
        assert!(!defer(&mut s, 36, at(100)));
        s.tp.ca_state = CaState::Open;
        // The last 4 segments the application wrote (the write queue's tail), room for 6:
        // not window-limited; an application that may write more is waited for, one that
        // closed (the FIN rides on this skb) is not.
        s.write_seq = nxt + 4 * mss;
        assert!(defer(&mut s, 36, at(100)));
        assert!(!s.cwnd_limited);
        s.app_closed = true;
        assert!(!defer(&mut s, 36, at(100)));
    }

    /// The two send-path rules newer than 3.18, on CUBIC's initial window of 30 segments
    /// with TSO (skbs of up to 45 segments at this rate): `tcp_cwnd_test` since 3.19 gives
    /// an skb at most max(cwnd/2, 1) = 15 segments (`gso_half_cwnd`), and
    /// `__tcp_transmit_skb` since 5.4 puts PSH on every packet of more than one segment
    /// (`gso_push`). Without them (the 3.18 and 2.6 profiles) the window leaves as one
    /// packet of 30 segments without PSH (an endless writer's first write, 128 KiB, does not
    /// end in it).
    #[test]
    fn gso_half_cwnd_and_gso_push_shape_the_initial_window() {
        let run = |gso_half_cwnd: bool, gso_push: bool| {
            let mut c = cfg(true, None, false);
            c.init_cwnd = 30;
            c.gso_half_cwnd = gso_half_cwnd;
            c.gso_push = gso_push;
            let mut b = Bench::new(&c, 100 * US, 10_000_000_000, None);
            b.connect();
            b.run_until(300 * US);
            b.data_sent()
                .map(|l| (l.p.segs, l.p.flags & crate::packet::PSH != 0))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(true, true), [(15, true), (15, true)]);
        assert_eq!(run(true, false), [(15, false), (15, false)]);
        assert_eq!(run(false, true), [(30, true)]);
        assert_eq!(run(false, false), [(30, false)]);
    }

    /// docs/references.md PACE-3: `tcp_tso_autosize` at MSS 1448 for pacing rates and
    /// min_rtt; worked by hand, e.g. 100 Mbit/s at 1 ms: 12,500,000 >> 10 = 12,207, plus
    /// 65,536 >> (1000 >> 9 = 1) = 32,768, is 44,975 bytes, / 1448 = 31.06 → 31 — the
    /// table's 30 comes from min_rtt just above 1 ms (r = 1 from 512 to 1023 µs, and 2 from
    /// 1024 µs: 12,207 + 16,384 = 28,591 / 1448 = 19). Here the exact Linux arithmetic, with
    /// the table's rows at 50 µs, 1000 µs and 5000 µs.
    #[test]
    fn tso_autosize_table() {
        let b = Bench::new(&cfg(true, None, false), 5 * MS, 10_000_000_000, None);
        let mut s = b.s;
        let mut segs = |rate_bps: u64, min_rtt_us: u32| {
            s.tp.sk_pacing_rate = rate_bps / 8;
            s.tp.min_rtt_us = min_rtt_us;
            s.tso_segs()
        };
        // 10 and 1 Gbit/s: 45 at any RTT (capped by 65,536 − 1 − 320 = 65,215 / 1448).
        for rtt in [50, 1000, 5000, 100_000] {
            assert_eq!(segs(10_000_000_000, rtt), 45);
            assert_eq!(segs(1_000_000_000, rtt), 45);
        }
        // 100 Mbit/s: 50 µs: 12,207 + 65,536 → capped 65,536 → 45;
        // 1000 µs: r = 1: 12,207 + 32,768 = 44,975 → 31;
        // 5000 µs: r = 9: 12,207 + 128 = 12,335 → 8.
        assert_eq!(segs(100_000_000, 50), 45);
        assert_eq!(segs(100_000_000, 1000), 31);
        assert_eq!(segs(100_000_000, 5000), 8);
        // 10 Mbit/s: 1,220 + 65,536 → 45; 1000 µs: 1,220 + 32,768 = 33,988 → 23;
        // 5000 µs: 1,220 + 128 = 1,348 → 0 → tcp_min_tso_segs 2.
        assert_eq!(segs(10_000_000, 50), 45);
        assert_eq!(segs(10_000_000, 1000), 23);
        assert_eq!(segs(10_000_000, 5000), 2);
        // No RTT sample yet (min_rtt ~0): nothing added; an unknown rate (~0): capped.
        assert_eq!(segs(10_000_000, u32::MAX), 2);
        s.tp.sk_pacing_rate = NO_RATE;
        assert_eq!(s.tso_segs(), 45);
        // Without TSO, one segment per skb.
        let b = Bench::new(&cfg(false, None, false), 5 * MS, 10_000_000_000, None);
        assert_eq!(b.s.tso_segs(), 1);
    }

    /// A TSO sender with an initial window of 1000 segments on a 10 Gbit/s path of 5 ms
    /// each way, connected: its first skbs are whole 45-segment ones.
    fn big_window(max_pacing: Option<u64>, fq: bool) -> Bench {
        let mut c = cfg(true, max_pacing, fq);
        c.init_cwnd = 1000;
        let mut b = Bench::new(&c, 5 * MS, 10_000_000_000, None);
        b.connect();
        b
    }

    /// docs/references.md PACE-2: a flow paced at 1 Gbit/s (`SO_MAX_PACING_RATE`, TCP
    /// pacing itself) sending 45-segment skbs of 65,160 bytes: one skb every 65,160 / 125
    /// MB/s = 521.28 µs. The first skb leaves at once (nothing was sent before, and
    /// `data_segs_out` reaches 45 ≥ 10 only with it). No idle credit shortens the first
    /// interval: the handshake's ACK, sent at the same instant, already moved
    /// `tcp_wstamp_ns` to now (Linux stamps every packet the socket sends). A 10 Gbit/s
    /// path, so the link never spaces them.
    #[test]
    fn paced_skbs_leave_every_521_us() {
        let mut b = big_window(Some(1_000_000_000), false);
        b.run_until(16 * MS);
        let t: Vec<SimTime> = b.data_sent().take(12).map(|l| l.t).collect();
        let segs: Vec<u16> = b.data_sent().take(12).map(|l| l.p.segs).collect();
        assert_eq!(t.len(), 12);
        assert!(segs.iter().all(|&n| n == 45), "{segs:?}");
        let gaps: Vec<SimTime> = t.windows(2).map(|w| w[1] - w[0]).collect();
        // Linux computes in whole ns: 65,160 · 1e9 / 125e6 = 521,280 ns.
        assert!(gaps.iter().all(|&g| g == 521_280 * 1000), "{gaps:?}");
        // Unpaced (no option, pfifo): the same skbs leave together.
        let mut b = big_window(None, false);
        b.run_until(12 * MS);
        let t: Vec<SimTime> = b.data_sent().take(12).map(|l| l.t).collect();
        assert!(t.iter().all(|&x| x == t[0]), "{t:?}");
    }

    /// With `fq` as the host qdisc, TCP hands its skbs over at once, each stamped with its
    /// earliest departure time (the PACE-2 flow above: 521.28 µs apart), and keeps that
    /// time as the skb's send time (`skb_mstamp_ns`), from which RTT samples, the TSO
    /// deferral and the timestamp option (TSval) count: the time the skb leaves, not the
    /// time fq was given it.
    #[test]
    fn a_paced_skb_is_sent_at_its_departure_time() {
        let mut b = big_window(Some(1_000_000_000), true);
        b.run_until(10 * MS + 100 * US);
        let skbs: Vec<(SimTime, SimTime, u64)> = b
            .data_sent()
            .take(12)
            .map(|l| (l.t, l.p.edt, l.p.seq))
            .collect();
        // The timestamp option carries it too.
        assert!(b.data_sent().take(12).all(|l| l.p.tsval == l.p.edt));
        assert_eq!(skbs.len(), 12);
        // Handed over together, due 521.28 µs apart.
        assert!(skbs.iter().all(|&(t, _, _)| t == skbs[0].0), "{skbs:?}");
        for (i, &(t, edt, seq)) in skbs.iter().enumerate() {
            assert_eq!(edt, t + i as u64 * 521_280 * 1000, "{skbs:?}");
            let seg = b.s.segs.iter().find(|g| g.start == seq).expect("in flight");
            assert_eq!(seg.sent, edt, "skb {i}");
        }
    }

    /// Without TSO and with an initial window of 10, the first 10 segments leave back to
    /// back; once `data_segs_out` reaches 10 the socket paces: the 11th and later segments
    /// leave 1448 B / 12.5 MB/s = 115.84 µs apart. (`pacing_ss_ratio` is raised so that
    /// the cap of 100 Mbit/s, not cwnd/srtt, sets the rate.)
    #[test]
    fn the_first_ten_segments_are_not_paced() {
        let mut c = cfg(false, Some(100_000_000), false);
        c.init_cwnd = 10;
        c.pacing_ss_ratio = 10_000;
        let mut b = Bench::new(&c, 5 * MS, 10_000_000_000, None);
        b.connect();
        b.run_until(30 * MS);
        let t: Vec<SimTime> = b.data_sent().take(10).map(|l| l.t).collect();
        assert!(t.iter().all(|&x| x == t[0]), "{t:?}");
        let t: Vec<SimTime> = b.data_sent().skip(9).take(4).map(|l| l.t).collect();
        // The 11th segment waits for the first ACK (cwnd 10 is full). The socket was idle
        // since the 10th's departure time, so the 11th's interval is halved by the credit
        // (57.92 µs); the next ones leave at the full spacing.
        assert!(t[1] > t[0] + 10 * MS, "{t:?}");
        assert_eq!(t[2] - t[1], 57_920 * 1000, "{t:?}");
        assert_eq!(t[3] - t[2], 115_840 * 1000, "{t:?}");
    }
}
