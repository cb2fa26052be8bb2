//! Congestion control: one trait shaped like Linux `struct tcp_congestion_ops`
//! (`include/net/tcp.h`), the shared Reno primitives from `net/ipv4/tcp_cong.c`, and the
//! registry of built-in algorithms.
//!
//! The algorithm sees what a kernel module sees — the socket's congestion state
//! (`TcpCcState`, named like `struct tcp_sock`), acked-segment counts, RTT samples, ECE,
//! state changes and, for a module with `cong_control`, each ACK's delivery-rate sample
//! (`RateSample`, Linux `struct rate_sample` as `net/ipv4/tcp_rate.c` builds it) — and
//! answers by changing `snd_cwnd` / `snd_ssthresh` and, with `cong_control`, the socket's
//! pacing rate and pacing status (`sk_pacing_rate`, `sk_pacing_status`). Linux's
//! `tcp_update_pacing_rate` is [`TcpCcState::update_pacing_rate`], the one the sender,
//! the modules and `ss` read. Windows are in segments, as in Linux.
//!
//! Adding an algorithm: one file here (implementing [`CongestionOps`] and [`Configure`]),
//! and one line in the `ccs!` registry.

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod cubic;
pub mod dctcp;
pub mod dctcp_318;
pub mod fast;
pub mod highspeed;
pub mod hstcp_lp;
pub mod htcp;
pub mod minmax;
pub mod prague;
pub mod reno;
mod sample;
pub mod scalable;
pub mod state;
pub mod vegas;

pub use sample::{AckSample, LostSkb, RateSample};

use crate::engine::SimTime;
use crate::schema::check::{Checker, Tab};
use crate::schema::{Schema, Variants};
pub use state::StateVar;

/// Linux `enum tcp_ca_state`, ordered as its values (BBR compares them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// Linux `enum tcp_ca_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// First transmit when no packets in flight.
    TxStart,
    /// Congestion window restart after idle.
    CwndRestart,
    /// End of congestion recovery.
    CompleteCwr,
    /// Loss timeout (RTO).
    Loss,
    /// ECT set, but not CE marked (receiver side).
    EcnNoCe,
    /// Received CE marked IP packet (receiver side).
    EcnIsCe,
    /// A tail loss probe repaired a loss (`CA_EVENT_TLP_RECOVERY`, Google's BBR v3 tree:
    /// `tcp_process_tlp_ack` raises it before the one cwnd reduction).
    TlpRecovery,
}

/// `sk_pacing_status`: who enforces the socket's pacing rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacingStatus {
    /// Nobody paces (`SK_PACING_NONE`).
    None,
    /// TCP paces itself (`SK_PACING_NEEDED`: set by `SO_MAX_PACING_RATE`, or by a module
    /// that needs pacing, as BBR's `init`).
    Needed,
    /// The host qdisc `fq` paces (`SK_PACING_FQ`).
    Fq,
}

/// An unknown pacing rate (Linux `~0UL`).
pub const NO_RATE: u64 = u64::MAX;

/// Flags for `in_ack_event` (Linux `CA_ACK_*`).
pub const CA_ACK_SLOWPATH: u32 = 1 << 0;
pub const CA_ACK_WIN_UPDATE: u32 = 1 << 1;
pub const CA_ACK_ECE: u32 = 1 << 2;

/// The part of a TCP socket a congestion-control module reads and writes
/// (the fields of Linux `struct tcp_sock` it uses, same names).
#[derive(Clone, Debug)]
pub struct TcpCcState {
    /// Current time (the engine's clock).
    pub now: SimTime,
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    /// Linear-increase credit counter used by `tcp_cong_avoid_ai`.
    pub snd_cwnd_cnt: u32,
    pub snd_cwnd_clamp: u32,
    /// cwnd before the last reduction (for undo), like `tp->prior_cwnd`.
    pub prior_cwnd: u32,
    pub mss_cache: u32,
    /// The IP packet size of a full segment, `tcp_mss_to_mtu(sk, mss_cache)` (the link
    /// MTU the socket's MSS came from).
    pub mtu: u32,
    /// Sequence numbers as 64-bit byte offsets (no wrap-around in the simulator).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Smoothed RTT in microseconds ×8, like `tp->srtt_us` (0 = no sample yet).
    pub srtt_us: u32,
    /// Minimum RTT seen, microseconds (`tcp_min_rtt`), `u32::MAX` before the first sample.
    pub min_rtt_us: u32,
    /// Segments delivered (cumulatively or selectively acked) so far, `tp->delivered`.
    pub delivered: u64,
    /// Of which the receiver reported CE (ECE-acked), `tp->delivered_ce`.
    pub delivered_ce: u64,
    /// Segments in flight (`tcp_packets_in_flight`).
    pub packets_in_flight: u32,
    /// `tcp_is_cwnd_limited`: was the sender limited by cwnd (not by the app or rwnd)?
    pub is_cwnd_limited: bool,
    /// The field `tp->is_cwnd_limited` itself (`tcp_cwnd_validate`'s verdict on the last
    /// window, without `tcp_is_cwnd_limited`'s slow-start rule), which BBR v3 reads; set
    /// before each `cong_control`.
    pub cwnd_usage_limited: bool,
    /// `net.ipv4.tcp_min_tso_segs` (a module sizing its own TSO skbs reads it).
    pub sysctl_min_tso_segs: u32,
    /// The segment a tail loss probe retransmitted was sent application-limited
    /// (`tp->tlp_orig_data_app_limited`, BBR v3 tree); set for a module with
    /// `cong_control`.
    pub tlp_orig_data_app_limited: bool,
    pub ca_state: CaState,
    /// ECN negotiated on this connection (`TCP_ECN_OK`).
    pub ecn_ok: bool,
    /// Segments sent and not cumulatively acknowledged (`tp->packets_out`), as of the
    /// last call into the module.
    pub packets_out: u32,
    /// Segments marked lost so far, lost retransmissions included (`tp->lost`).
    pub lost: u64,
    /// `tp->app_limited`: 0, or the `delivered` count past which the application-limited
    /// phase that `tcp_rate_check_app_limited` found ends.
    pub app_limited: u64,
    /// When `delivered` last grew (`tp->delivered_mstamp`), and the send time of the
    /// latest delivered segment (`tp->first_tx_mstamp`): `tcp_rate.c`'s clocks.
    pub delivered_mstamp: SimTime,
    pub first_tx_mstamp: SimTime,
    /// The earliest departure time of the next packet (`tp->tcp_wstamp_ns`).
    pub tcp_wstamp: SimTime,
    /// The socket's pacing rate in bytes per second (`sk->sk_pacing_rate`; `NO_RATE`
    /// until set), its cap (`sk_max_pacing_rate`, `SO_MAX_PACING_RATE`; `NO_RATE`: none),
    /// and who enforces it (`sk_pacing_status`).
    pub sk_pacing_rate: u64,
    pub sk_max_pacing_rate: u64,
    pub sk_pacing_status: PacingStatus,
    /// `net.ipv4.tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, percent.
    pub pacing_ss_ratio: u32,
    pub pacing_ca_ratio: u32,
    /// The socket's random stream (Linux `get_random_u32_below`), seeded from the run's
    /// seed and the connection so runs repeat exactly.
    pub random: u64,
}

impl TcpCcState {
    pub fn new(mss: u32, init_cwnd: u32, init_ssthresh: u32) -> TcpCcState {
        TcpCcState {
            now: 0,
            snd_cwnd: init_cwnd,
            snd_ssthresh: init_ssthresh,
            snd_cwnd_cnt: 0,
            snd_cwnd_clamp: u32::MAX,
            prior_cwnd: init_cwnd,
            mss_cache: mss,
            mtu: mss + crate::packet::IP_TCP_HDR + crate::packet::TS_OPT,
            snd_una: 0,
            snd_nxt: 0,
            srtt_us: 0,
            min_rtt_us: u32::MAX,
            delivered: 0,
            delivered_ce: 0,
            packets_in_flight: 0,
            is_cwnd_limited: true,
            cwnd_usage_limited: false,
            sysctl_min_tso_segs: 2,
            tlp_orig_data_app_limited: false,
            ca_state: CaState::Open,
            ecn_ok: false,
            packets_out: 0,
            lost: 0,
            app_limited: 0,
            delivered_mstamp: 0,
            first_tx_mstamp: 0,
            tcp_wstamp: 0,
            sk_pacing_rate: NO_RATE,
            sk_max_pacing_rate: NO_RATE,
            sk_pacing_status: PacingStatus::None,
            pacing_ss_ratio: 200,
            pacing_ca_ratio: 120,
            random: 0,
        }
    }

    /// `tcp_update_pacing_rate` (Linux 4.13 – 6.15, `net/ipv4/tcp_input.c`), after every
    /// ACK of a module without `cong_control`: `mss · max(cwnd, packets_out) / srtt`, times
    /// `tcp_pacing_ss_ratio` (200%) while cwnd < ssthresh / 2 (slow start), else
    /// `tcp_pacing_ca_ratio` (120%), at most `sk_max_pacing_rate`; in bytes per second, in
    /// Linux's u64 arithmetic (no division before the first RTT sample: the rate is then
    /// huge, as in Linux).
    pub fn update_pacing_rate(&mut self) {
        self.sk_pacing_rate = self.pacing_rate_now();
    }

    /// The rate `update_pacing_rate` would set now.
    #[inline]
    pub fn pacing_rate_now(&self) -> u64 {
        // `rate = mss · (USEC_PER_SEC / 100 << 3)`; times the ratio, times the window; over
        // `srtt_us`, which is srtt << 3.
        let ratio = if self.snd_cwnd < self.snd_ssthresh / 2 {
            self.pacing_ss_ratio
        } else {
            self.pacing_ca_ratio
        };
        let mut rate = (self.mss_cache as u64).wrapping_mul((1_000_000 / 100) << 3);
        rate = rate.wrapping_mul(ratio as u64);
        rate = rate.wrapping_mul(self.snd_cwnd.max(self.packets_out) as u64);
        if self.srtt_us > 0 {
            rate /= self.srtt_us as u64;
        }
        rate.min(self.sk_max_pacing_rate)
    }

    /// `get_random_u32_below(n)`: uniform in [0, n), from the socket's stream.
    pub fn random_below(&mut self, n: u32) -> u32 {
        let r = crate::engine::splitmix64(&mut self.random);
        (((r >> 32) * n as u64) >> 32) as u32
    }

    /// `tcp_stamp_us_delta(t1, t0)`: microseconds from `t0` to `t1`, 0 if `t1` is earlier
    /// (Linux's stamps are in µs: each is truncated first).
    #[inline]
    pub fn us_delta(t1: SimTime, t0: SimTime) -> u64 {
        (t1 / crate::engine::US).saturating_sub(t0 / crate::engine::US)
    }

    /// `tcp_in_slow_start`.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.snd_cwnd < self.snd_ssthresh
    }

    /// Microseconds since the start of the run (like `tcp_clock_us()`).
    #[inline]
    pub fn now_us(&self) -> u64 {
        self.now / crate::engine::US
    }

    /// `tcp_slow_start`: grow by the acked segments up to ssthresh; return the leftover,
    /// which the caller feeds to congestion avoidance.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = (self.snd_cwnd.saturating_add(acked)).min(self.snd_ssthresh);
        let acked = acked - (cwnd - self.snd_cwnd).min(acked);
        self.snd_cwnd = cwnd.min(self.snd_cwnd_clamp);
        acked
    }

    /// The opening every Linux `cong_avoid` shares: nothing unless `tcp_is_cwnd_limited`;
    /// in slow start, `tcp_slow_start`. Returns the acked segments left for congestion
    /// avoidance, or `None` when there are none.
    #[inline]
    pub fn ca_acked(&mut self, acked: u32) -> Option<u32> {
        if !self.is_cwnd_limited {
            return None;
        }
        let acked = if self.in_slow_start() {
            self.slow_start(acked)
        } else {
            acked
        };
        (acked > 0).then_some(acked)
    }

    /// `tcp_cong_avoid_ai`: in theory cwnd += acked/w per ACK, kept exact with the credit
    /// counter `snd_cwnd_cnt`.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        // If credits accumulated at a higher w, apply them gently now.
        if self.snd_cwnd_cnt >= w {
            self.snd_cwnd_cnt = 0;
            self.snd_cwnd += 1;
        }
        self.snd_cwnd_cnt += acked;
        if self.snd_cwnd_cnt >= w {
            let delta = self.snd_cwnd_cnt / w;
            self.snd_cwnd_cnt -= delta * w;
            self.snd_cwnd += delta;
        }
        self.snd_cwnd = self.snd_cwnd.min(self.snd_cwnd_clamp);
    }
}

/// Linux `struct tcp_congestion_ops`. `ssthresh` and `cong_avoid` are required; the other
/// hooks default to what the Linux core does when a module leaves them NULL.
pub trait CongestionOps {
    /// Name as in `net.ipv4.tcp_congestion_control`.
    fn name(&self) -> &'static str;
    /// `.init`: called when the connection is established.
    fn init(&mut self, _tp: &mut TcpCcState) {}
    /// `.ssthresh`: the slow-start threshold after a loss or ECN congestion event.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32;
    /// `.cong_avoid`: grow cwnd on an ACK that acked `acked` segments.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32);
    /// `.undo_cwnd`: the cwnd to restore when a reduction proves spurious.
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }
    /// `.set_state`: the congestion state machine moved to `new_state`.
    fn set_state(&mut self, _tp: &mut TcpCcState, _new_state: CaState) {}
    /// `.cwnd_event`.
    fn cwnd_event(&mut self, _tp: &mut TcpCcState, _ev: CaEvent) {}
    /// `.in_ack_event`, with `CA_ACK_*` flags.
    fn in_ack_event(&mut self, _tp: &mut TcpCcState, _flags: u32) {}
    /// `.pkts_acked`.
    fn pkts_acked(&mut self, _tp: &mut TcpCcState, _sample: &AckSample) {}
    /// Does the module have `.cong_control`? Then the sender builds a rate sample per ACK
    /// and calls [`CongestionOps::cong_control`] instead of reducing (PRR) or growing cwnd
    /// (`cong_avoid`) itself, and leaves the pacing rate to the module (Linux
    /// `tcp_cong_control`); the restart after idle and `tcp_end_cwnd_reduction`'s cwnd
    /// are skipped too, as in Linux.
    fn has_cong_control(&self) -> bool {
        false
    }
    /// `.cong_control`: set cwnd and the pacing rate from this ACK's rate sample.
    fn cong_control(&mut self, _tp: &mut TcpCcState, _rs: &RateSample) {}
    /// Does the module read the socket's pacing rate (`sk_pacing_rate`)? Linux updates the
    /// rate after every ACK whoever reads it; cclab skips the update (a 64-bit division per
    /// ACK) when nothing does: no pacing, no TSO, no small queues and a module that answers
    /// false here (`ss` then computes it from the socket at the end).
    fn reads_pacing_rate(&self) -> bool {
        false
    }
    /// `.tso_segs` (Google's BBR v3 tree): the module sizes TSO skbs itself, replacing
    /// `tcp_tso_autosize`; `None`: it does not.
    fn tso_segs(&self, _tp: &TcpCcState, _mss: u32) -> Option<u32> {
        None
    }
    /// `.skb_marked_lost` (BBR v3 tree): a segment was just marked lost. Called only for
    /// a module with `cong_control` (the snapshot exists only then).
    fn skb_marked_lost(&mut self, _tp: &mut TcpCcState, _skb: &LostSkb) {}
    /// `.min_tso_segs`: the module's floor for the segments of a TSO skb, or `None` for
    /// `net.ipv4.tcp_min_tso_segs`.
    fn min_tso_segs(&self, _tp: &TcpCcState) -> Option<u32> {
        None
    }
    /// Does this module need ECN (`TCP_CONG_NEEDS_ECN`)?
    fn needs_ecn(&self) -> bool {
        false
    }
    /// Are this module's ECN-capable packets ECT(1), the L4S identifier (RFC 9331), rather
    /// than ECT(0)? The L4S team's tree: the module flag `TCP_CONG_WANTS_ECT_1`
    /// (`tcp_ca_wants_ect_1`; its `tcp_prague.c` and, with `dctcp_ect`, `tcp_dctcp.c` set
    /// it) for the handshake, and the socket's `TCP_ECN_ECT_1` once the module runs;
    /// mainline since the AccECN series: `TCP_CONG_ECT_1_NEGOTIATION`
    /// (`INET_ECN_xmit_ect_1_negotiation`). A socket asks once, when it is built, and
    /// writes that codepoint wherever it would write ECT(0) (docs/references.md §18.2).
    fn wants_ect_1(&self) -> bool {
        false
    }
    /// Does it need Accurate ECN (`TCP_CONG_NEEDS_ACCECN`, `tcp_ca_needs_accecn`): ask for
    /// and accept AccECN whatever `ecn` says (`tcp/accecn.rs`)?
    fn needs_accecn(&self) -> bool {
        false
    }
    /// Must a peer that answers with RFC 3168 ECN only leave the connection without ECN
    /// (`TCP_CONG_NO_FALLBACK_RFC3168`, `tcp_ca_no_fallback_rfc3168`; TCP Prague)?
    fn no_fallback_rfc3168(&self) -> bool {
        false
    }
    /// What the module needs from the receiving end of its connections. Linux runs the
    /// listener's own module there too; a scenario gives both ends the same one.
    fn receiver_needs(&self) -> ReceiverNeeds {
        ReceiverNeeds {
            ecn: self.needs_ecn(),
            ect_1: self.wants_ect_1(),
            ce_state: false,
            ce_ack_now: false,
        }
    }
    /// Extra fields for the `ss -ti` line (`.get_info`), appended after the name.
    fn diag(&self, _out: &mut String) {}
    /// The quantities of the algorithm's own state that the `cc` series samples
    /// (`[output] cc`), the same for every instance of the algorithm; none by default.
    fn state_vars(&self) -> &'static [StateVar] {
        &[]
    }
    /// Their values now, in [`state_vars`](Self::state_vars)' order, into `out` (as long
    /// as that list); NaN for one not known yet. Called at sample times only, never per
    /// packet.
    fn state(&self, _tp: &TcpCcState, _out: &mut [f64]) {}
}

/// What a congestion control needs from the TCP receiver, so the receiver never asks for
/// an algorithm by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverNeeds {
    /// `TCP_CONG_NEEDS_ECN`: accept an ECN-setup SYN even when the ECN sysctl is off, and
    /// send every segment ECT (Linux `INET_ECN_xmit`), the SYN-ACK too unless `syn_ect`
    /// is off.
    pub ecn: bool,
    /// With `ecn`: what this end sends is ECT(1), not ECT(0) (the module's
    /// [`CongestionOps::wants_ect_1`]; Linux runs the listener's module here too).
    pub ect_1: bool,
    /// The module's receiver-side CE state machine (DCTCP `dctcp_ece_ack_update`, RFC 8257
    /// §3.2): ECE mirrors each packet's CE bit instead of latching until CWR.
    pub ce_state: bool,
    /// With `ce_state`: a change of CE state is acknowledged at once (Linux since "tcp: do
    /// not delay ACK in DCTCP upon CE status change", 2018). Without it (Linux 3.18) only a
    /// delayed ACK pending for the data before the change is sent, with the old state; the
    /// new packet waits its turn.
    pub ce_ack_now: bool,
}

/// How an algorithm is configured from a scenario: its own options type (its module
/// parameters, with the source's defaults), their keys (shown under `[tcp]`, allowed in any
/// TCP table), how they are read, and how they are applied to a fresh instance. An
/// algorithm without options writes `impl Configure for X { type Options = (); }`.
///
/// `read` and `configure` see every algorithm's options ([`CcOptions`], one field per
/// registry line, named after the module), each writing only its own field: two
/// algorithms that model one Linux module (`dctcp`, `dctcp-3.18`) share its parameters.
pub trait Configure: Default {
    /// The algorithm's options; `Default` gives the source's defaults.
    type Options: Clone + std::fmt::Debug + Default + PartialEq;
    /// The option keys.
    const OPTIONS: &'static Schema = &NO_OPTIONS;
    /// Read the options present in `t` into this algorithm's field of `o`.
    fn read(_ck: &mut Checker, _t: Tab, _o: &mut CcOptions) {}
    /// Apply the options to a new instance. (What the socket holds — its pacing, its
    /// sysctls — the module reads at run time from `TcpCcState`, as Linux's do.)
    fn configure(&mut self, _o: &CcOptions) {}
}

/// The options of an algorithm that has none.
pub static NO_OPTIONS: Schema = Schema {
    title: "No options",
    place: "no options",
    noun: "options",
    about: "",
    keys: &[],
    with: &[],
    variants: None,
};

/// The largest value of a Linux `int` module parameter (`INT_MAX`).
pub const INT_MAX: i64 = i32::MAX as i64;

/// The options of an algorithm whose source has none, with `about` saying so (shown by
/// docs/scenario.md).
pub const fn none_in_source(title: &'static str, about: &'static str) -> Schema {
    Schema {
        title,
        place: "[tcp]",
        noun: "options",
        about,
        keys: &[],
        with: &[],
        variants: None,
    }
}

/// An algorithm configured as a scenario's keys make it: the default options changed by
/// `set` (for unit tests).
#[cfg(test)]
pub(crate) fn configured<C: Configure>(set: impl FnOnce(&mut CcOptions)) -> C {
    let mut o = CcOptions::default();
    set(&mut o);
    let mut c = C::default();
    c.configure(&o);
    c
}

/// The registry of algorithms: `"name" => Variant(module::Type)`, one line each. It
/// generates the `Cc` enum dispatched by `match` (no boxing in the hot path), the names
/// a scenario may give, and the table of every algorithm's options.
macro_rules! ccs {
    ($($(#[$doc:meta])* $name:literal => $var:ident($m:ident::$t:ident),)*) => {
        /// The built-in algorithms. An explicit tag byte, as `Qdisc`'s: no niche
        /// decoding in the dispatch of every ACK.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum Cc {
            $($(#[$doc])* $var($m::$t),)*
        }

        /// Names accepted by `Cc::by_name`, for error messages and `cclab list`.
        pub const CC_NAMES: &[&str] = &[$($name),*];

        /// Every algorithm's options, one field per algorithm (named after its module),
        /// each of the algorithm's own type.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct CcOptions {
            $(pub $m: <$m::$t as Configure>::Options,)*
        }

        impl Cc {
            /// The algorithm registered under `name`, configured by its options, or `None`.
            pub fn by_name(name: &str, o: &CcOptions) -> Option<Cc> {
                match name {
                    $($name => {
                        let mut c = <$m::$t>::default();
                        c.configure(o);
                        Some(Cc::$var(c))
                    })*
                    _ => None,
                }
            }
        }

        /// Every algorithm's options, by `cc` name.
        pub static OPTIONS: Schema = Schema {
            title: "Congestion control options",
            place: "[tcp]",
            noun: "options",
            about: "",
            keys: &[],
            with: &[],
            variants: Some(Variants {
                tag: "cc",
                kinds: &[$(($name, <$m::$t as Configure>::OPTIONS)),*],
            }),
        };

        /// Read every algorithm's options present in `t` into `o`.
        pub fn parse_options(ck: &mut Checker, t: Tab, o: &mut CcOptions) {
            $(<$m::$t as Configure>::read(ck, t, o);)*
        }

        macro_rules! dispatch {
            ($self:ident, $c:ident => $e:expr) => {
                match $self {
                    $(Cc::$var($c) => $e,)*
                }
            };
        }
    };
}

ccs! {
    /// Reno (Linux `tcp_cong.c`).
    "reno" => Reno(reno::Reno),
    /// CUBIC with HyStart (Linux `tcp_cubic.c`).
    "cubic" => Cubic(cubic::Cubic),
    /// DCTCP (Linux `tcp_dctcp.c`).
    "dctcp" => Dctcp(dctcp::Dctcp),
    /// DCTCP as merged in Linux 3.18, the seed's (`tcp_dctcp.c` of 3.18).
    "dctcp-3.18" => Dctcp318(dctcp_318::Dctcp318),
    /// HighSpeed TCP (RFC 3649, Linux `tcp_highspeed.c`).
    "highspeed" => Highspeed(highspeed::Highspeed),
    /// Scalable TCP (Linux `tcp_scalable.c`).
    "scalable" => Scalable(scalable::Scalable),
    /// H-TCP (Linux `tcp_htcp.c`).
    "htcp" => Htcp(htcp::Htcp),
    /// BIC (Linux `tcp_bic.c`).
    "bic" => Bic(bic::Bic),
    /// Vegas (Linux `tcp_vegas.c`).
    "vegas" => Vegas(vegas::Vegas),
    /// FAST TCP (Jin, Wei & Low).
    "fast" => Fast(fast::Fast),
    /// HSTCP-LP: TCP-LP's early congestion indication over HighSpeed TCP.
    "hstcp-lp" => HstcpLp(hstcp_lp::HstcpLp),
    /// BBR v1 (Linux `tcp_bbr.c`).
    "bbr" => Bbr(bbr::Bbr),
    /// BBR v3 (Google's `bbr` v3 tree, `tcp_bbr.c`).
    "bbr3" => Bbr3(bbr3::Bbr3),
    /// TCP Prague (the L4S team's `tcp_prague.c`, 0.7).
    "prague" => Prague(prague::Prague),
}

impl Cc {
    /// The algorithm named `name`, with its options; an unknown name is an error naming
    /// the allowed ones.
    pub fn new(name: &str, o: &CcOptions) -> Result<Cc, String> {
        Cc::by_name(name, o).ok_or_else(|| {
            format!(
                "unknown congestion control '{name}' (allowed: {})",
                CC_NAMES.join(", ")
            )
        })
    }
}

impl CongestionOps for Cc {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn init(&mut self, tp: &mut TcpCcState) {
        dispatch!(self, c => c.init(tp))
    }
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        dispatch!(self, c => c.ssthresh(tp))
    }
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        dispatch!(self, c => c.cong_avoid(tp, acked))
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCcState) -> u32 {
        dispatch!(self, c => c.undo_cwnd(tp))
    }
    fn set_state(&mut self, tp: &mut TcpCcState, s: CaState) {
        dispatch!(self, c => c.set_state(tp, s))
    }
    fn cwnd_event(&mut self, tp: &mut TcpCcState, ev: CaEvent) {
        dispatch!(self, c => c.cwnd_event(tp, ev))
    }
    // Once per ACK: inline (with DCTCP's) saves 0.1% of dctcp10's instructions.
    #[inline]
    fn in_ack_event(&mut self, tp: &mut TcpCcState, flags: u32) {
        dispatch!(self, c => c.in_ack_event(tp, flags))
    }
    fn pkts_acked(&mut self, tp: &mut TcpCcState, s: &AckSample) {
        dispatch!(self, c => c.pkts_acked(tp, s))
    }
    fn has_cong_control(&self) -> bool {
        dispatch!(self, c => c.has_cong_control())
    }
    fn cong_control(&mut self, tp: &mut TcpCcState, rs: &RateSample) {
        dispatch!(self, c => c.cong_control(tp, rs))
    }
    fn min_tso_segs(&self, tp: &TcpCcState) -> Option<u32> {
        dispatch!(self, c => c.min_tso_segs(tp))
    }
    fn tso_segs(&self, tp: &TcpCcState, mss: u32) -> Option<u32> {
        dispatch!(self, c => c.tso_segs(tp, mss))
    }
    fn skb_marked_lost(&mut self, tp: &mut TcpCcState, skb: &LostSkb) {
        dispatch!(self, c => c.skb_marked_lost(tp, skb))
    }
    fn reads_pacing_rate(&self) -> bool {
        dispatch!(self, c => c.reads_pacing_rate())
    }
    fn needs_ecn(&self) -> bool {
        dispatch!(self, c => c.needs_ecn())
    }
    fn wants_ect_1(&self) -> bool {
        dispatch!(self, c => c.wants_ect_1())
    }
    fn needs_accecn(&self) -> bool {
        dispatch!(self, c => c.needs_accecn())
    }
    fn no_fallback_rfc3168(&self) -> bool {
        dispatch!(self, c => c.no_fallback_rfc3168())
    }
    fn receiver_needs(&self) -> ReceiverNeeds {
        dispatch!(self, c => c.receiver_needs())
    }
    fn diag(&self, out: &mut String) {
        dispatch!(self, c => c.diag(out))
    }
    fn state_vars(&self) -> &'static [StateVar] {
        dispatch!(self, c => c.state_vars())
    }
    fn state(&self, tp: &TcpCcState, out: &mut [f64]) {
        dispatch!(self, c => c.state(tp, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_caps_at_ssthresh_and_returns_leftover() {
        let mut tp = TcpCcState::new(1448, 10, 15);
        assert_eq!(tp.slow_start(3), 0);
        assert_eq!(tp.snd_cwnd, 13);
        assert_eq!(tp.slow_start(4), 2);
        assert_eq!(tp.snd_cwnd, 15);
    }

    #[test]
    fn cong_avoid_ai_adds_one_per_window() {
        let mut tp = TcpCcState::new(1448, 10, 5);
        for _ in 0..9 {
            tp.cong_avoid_ai(10, 1);
        }
        assert_eq!(tp.snd_cwnd, 10);
        tp.cong_avoid_ai(10, 1);
        assert_eq!(tp.snd_cwnd, 11);
        // Acking 25 segments at once at w = 11 gives two increments and 3 credits.
        tp.cong_avoid_ai(11, 25);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (13, 3));
    }
}
