//! A TCP endpoint's configuration (`[tcp]`, and any `[[flow]]` or `[[aggregate]]`): the
//! keys, their Linux defaults and the RFC alternatives as named options, and how a
//! scenario table is read into a [`TcpConfig`]. The options of a congestion control are
//! declared by the algorithm (`cc::*`, the `OPTIONS` of its `Configure`).
//!
//! The keys of `[tcp]` (their types, defaults and meanings) and its [`TCP`] schema are in
//! `config/keys.rs`; this file holds the configuration, its defaults and the reading.

use crate::cc;
use crate::engine::SimTime;
use crate::schema::check::{int, join, Checker, Tab};
use crate::schema::units;
use crate::schema::Key;
use crate::tcp::era::{self, Era, ERA_NAMES};
use toml::Value;

mod keys;
use keys::KEYS;
pub use keys::TCP;

/// RTO computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoMode {
    /// Linux `tcp_rtt_estimator` + `__tcp_set_rto`: RTO = srtt + max(mdev terms, rto_min).
    Linux,
    /// RFC 6298 as written: RTO = SRTT + max(G, 4·RTTVAR), at least `rto_min` (1 s in the RFC).
    Rfc6298,
}

/// How congestion avoidance counts an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Linux: by acked segments (an ACK covering 2 segments counts 2).
    Segments,
    /// RFC 5681 per-ACK counting: every ACK counts as one segment (Linux 2.6's
    /// `tcp_slow_start` / `reno_cong_avoid`).
    Acks,
    /// Linux 3.18: slow start counts acked segments (`tcp_slow_start(tp, acked)`),
    /// congestion avoidance counts ACKs (`tcp_cong_avoid_ai(tp, w)`, before 4.0).
    SlowStartSegments,
}

/// Which kernel's tail loss probe runs (`tlp_variant`, `tcp/sender/tlp.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TlpVariant {
    /// Linux 6.6 (RFC 8985 §7): PTO = 2·srtt + 2 ms, in Open or CWR.
    #[default]
    Linux6_6,
    /// Linux 3.10–4.x (`draft-dukkipati-tcpm-tcp-loss-probe`, as 3.18): PTO = 2·srtt, with
    /// one segment out max(PTO, 1.5·srtt + 200 ms), at least 10 ms, only in Open.
    Linux3_18,
}

/// The smallest `rto_max` a scenario may set.
pub const MIN_RTO_MAX: SimTime = crate::engine::MS;

/// The largest window TCP can advertise: 65,535 << 14 bytes (window scaling's limit,
/// RFC 7323 §2.3); `rcvbuf` may not exceed it.
pub const MAX_WINDOW: u64 = 65_535 << 14;

/// TCP endpoint configuration (defaults follow Linux; see `Default`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Congestion control name (`cc::CC_NAMES`).
    pub cc: String,
    /// Every algorithm's own options (`cc::CcOptions`, one field per algorithm, of its
    /// type), read from the same `[tcp]` tables.
    pub cc_options: crate::cc::CcOptions,
    /// IP MTU in bytes; MSS = MTU − 40 (IP + TCP), payload per segment = MSS − 12
    /// (timestamps option), as Linux with timestamps on.
    pub mtu: u32,
    pub sack: bool,
    /// RFC 7323 timestamps (Linux `tcp_timestamps`): on, each segment carries the 12-byte
    /// option and the payload per segment is MTU − 52; off, MTU − 40.
    pub timestamps: bool,
    /// Linux `tcp_tso_win_divisor`: `tcp_tso_should_defer` sends once 1/divisor of the
    /// window can go.
    pub tso_win_divisor: u32,
    /// Linux `tcp_min_tso_segs`: the fewest segments `tcp_tso_autosize` puts in an skb.
    pub min_tso_segs: u32,
    /// A lost skb is retransmitted as one offload packet of up to min(cwnd room,
    /// `tcp_tso_segs`) segments (Linux ≥ 4.x `__tcp_retransmit_skb(sk, skb, segs)`,
    /// `tcp/sender/rtx.rs`); `false`: one segment at a time (3.18 and before).
    pub tso_retrans: bool,
    /// RFC 3168 ECN: negotiate, send data ECT(0), echo CE with ECE until CWR.
    pub ecn: bool,
    /// Linux `net.ipv4.tcp_ecn` when it was given as a number (`ecn = 0..5`, `tcp/accecn.rs`):
    /// 2 accepts ECN without asking for it, 3 asks for and accepts Accurate ECN (RFC 9768),
    /// 4 accepts AccECN and asks for RFC 3168 ECN, 5 accepts AccECN and asks for nothing.
    /// 0 with `ecn` as a boolean: `ecn` alone decides (as 0 or 1).
    pub ecn_mode: u8,
    /// Linux `net.ipv4.tcp_ecn_option`: which ACKs carry the AccECN option (0 none, 1 only
    /// when a counter changed or a beacon is due, 2 every segment).
    pub ecn_option: u8,
    /// Linux `net.ipv4.tcp_ecn_option_beacon`: with `ecn_option = 1`, an option at least
    /// this many times per RTT.
    pub ecn_option_beacon: u32,
    pub init_cwnd: u32,
    /// `init_cwnd = "rfc3390"`: the initial window from the MSS (Linux 2.6 `tcp_init_cwnd`,
    /// RFC 3390) instead of `init_cwnd` segments (`tcp/sender/initial.rs`).
    pub init_cwnd_rfc3390: bool,
    /// Initial ssthresh in segments (`None` = infinite, as Linux).
    pub init_ssthresh: Option<u32>,
    pub rto_min: SimTime,
    pub rto_max: SimTime,
    pub rto_mode: RtoMode,
    /// Initial RTO (1 s, RFC 6298 §2.1) also used for SYN retransmission.
    pub rto_initial: SimTime,
    pub delayed_ack: bool,
    /// Delayed-ACK timeout (Linux `TCP_DELACK_MIN` = 40 ms).
    pub delack_timeout: SimTime,
    /// ACK immediately for this many segments at the start (Linux quick-ack mode; the
    /// kernel uses at most `TCP_MAX_QUICKACKS` = 16, larger values are allowed for study).
    pub quickack: u32,
    /// `quickack = "rcv_wnd"`: the count is Linux's `tcp_incr_quickack` (rcv_wnd /
    /// (2·rcv_mss), 2 to 16), taken at the first data segment and again on out-of-order
    /// data (`tcp/receiver/quickack.rs`).
    pub quickack_rcv_wnd: bool,
    pub growth: Growth,
    /// Proportional rate reduction (RFC 6937, Linux) during recovery and CWR; `false` gives
    /// RFC 6675 (SACK: cwnd = ssthresh at entry) / RFC 6582 (NewReno: ssthresh + 3, inflate).
    pub prr: bool,
    /// Rate halving (Linux 2.6.9 `tcp_cwnd_down`, before PRR in 3.2): in recovery and CWR
    /// cwnd falls by one every second ACK, never below in flight + 1, and ends at
    /// min(cwnd, ssthresh) (`tcp/sender/rate_halving.rs`). When on, `prr` is not consulted.
    pub rate_halving: bool,
    /// PSH on every GSO packet (Linux 5.4+ `__tcp_transmit_skb`, commit 051ba67447de).
    pub gso_push: bool,
    /// An skb takes at most half of cwnd (Linux 3.19+ `tcp_cwnd_test`, commit
    /// d649a7a81f3b): at least two GSO packets in flight.
    pub gso_half_cwnd: bool,
    /// RACK loss detection (RFC 8985; Linux `net.ipv4.tcp_recovery` & RACK_LOSS_DETECTION,
    /// `tcp_recovery.c`); `false` gives RFC 6675's DupThresh marking.
    pub rack: bool,
    /// Tail loss probe (RFC 8985 §7; Linux `net.ipv4.tcp_early_retrans` ≥ 3,
    /// `tcp_output.c: tcp_schedule_loss_probe`).
    pub tlp: bool,
    /// Which kernel's probe (`tlp_variant`): its timeout and when it is scheduled.
    pub tlp_variant: TlpVariant,
    /// FACK (Linux 3.18 `tcp_input.c`; sysctl `net.ipv4.tcp_fack`, removed in 4.15): with
    /// SACK and without RACK, the holes below the highest SACKed segment count as lost
    /// (`tcp/sender/fack.rs`).
    pub fack: bool,
    /// Early retransmit (RFC 5827 with Linux 3.18's delay; sysctl
    /// `net.ipv4.tcp_early_retrans` 2 or 3, removed in 4.11): without RACK
    /// (`tcp/sender/early_retrans.rs`).
    pub early_retrans: bool,
    /// `early_retrans = "no-delay"` (sysctl 1): recovery starts at once, without
    /// `tcp_pause_early_retransmit`'s delay.
    pub early_retrans_no_delay: bool,
    /// F-RTO after a timeout (RFC 5682; Linux `net.ipv4.tcp_frto` = 2, `tcp_process_loss`).
    pub frto: bool,
    /// D-SACK (RFC 2883; Linux `net.ipv4.tcp_dsack`): the receiver reports duplicates, the
    /// sender reads them (RACK's window, undo).
    pub dsack: bool,
    /// Initial reordering degree in segments (Linux `net.ipv4.tcp_reordering`, `tp->reordering`).
    pub reordering: u32,
    /// Its ceiling (Linux `net.ipv4.tcp_max_reordering`).
    pub max_reordering: u32,
    /// ECT(0) on SYN and SYN-ACK when the congestion control needs ECN (DCTCP), as Linux
    /// does (`tcp_ecn_send_syn`); `false` sends them Not-ECT (RFC 3168 §6.1.1).
    pub syn_ect: bool,
    /// Send buffer in bytes: unacknowledged data never exceeds it.
    pub sndbuf: u64,
    /// Receive buffer in bytes: the advertised window.
    pub rcvbuf: u64,
    /// Initial receive window in segments, opened by `tcp_grow_window` (`None`: the whole
    /// `rcvbuf` from the start) (`tcp/receiver/window.rs`).
    pub rcv_init_wnd: Option<u32>,
    /// Receive-buffer autotuning as Linux 2.6.7 `tcp_rcv_space_adjust`
    /// (`tcp/receiver/window.rs`).
    pub rcv_autotune: bool,
    /// `tcp_grow_window` opens rcv_ssthresh by at least twice the received skb (a GRO
    /// aggregate counts whole), as Linux 3.x and later do (`tcp/receiver/window.rs`).
    pub rcv_grow_skb: bool,
    /// `tcp_slow_start_after_idle`: cwnd restarts after an idle period longer than the RTO
    /// (RFC 2861, Linux `tcp_cwnd_restart`; `tcp/sender/initial.rs`).
    pub slow_start_after_idle: bool,
    /// The era profile named (`linux`, `tcp/era.rs`).
    pub linux: crate::tcp::era::Era,
    /// Profile keys written explicitly somewhere in the scenario (bit i: row i of
    /// `era::PROFILE`): a profile never overrides them.
    pub explicit: u64,
    /// DSCP value to put on this flow's packets.
    pub dscp: u8,
    /// `SO_MAX_PACING_RATE` in bit/s (`None` = unlimited, Linux's `~0`): caps the pacing
    /// rate, and setting it makes TCP pace itself when the host qdisc does not.
    pub max_pacing_rate: Option<u64>,
    /// `net.ipv4.tcp_pacing_ss_ratio` / `tcp_pacing_ca_ratio` (percent).
    pub pacing_ss_ratio: u32,
    pub pacing_ca_ratio: u32,
    /// Seed 001's rate-controlled senders: Clustered Packet Spacing or the TCP-aware NIC
    /// (`tcp/sender/spacing.rs`).
    pub spacing: crate::tcp::Spacing,
    /// The sending host's stack, set when the connection is built (not scenario keys of
    /// `[tcp]`): segmentation offload (`[host] tso`), TCP small queues (`[host] tsq`), and
    /// whether the host qdisc is `fq` (which then enforces the pacing, `SK_PACING_FQ`).
    pub host: HostStack,
}

/// What the sending host's stack does below TCP (`[host]`, and the host qdisc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostStack {
    /// TCP builds segmentation-offload aggregates of up to the autosized number of
    /// segments (`tcp_tso_autosize`), which the NIC puts on the wire back to back.
    pub tso: bool,
    /// TCP small queues: TCP stops while its bytes in the host qdisc and NIC exceed
    /// `tcp_small_queue_check`'s limit, and resumes as they leave.
    pub tsq: bool,
    /// The host qdisc is `fq`: it enforces the pacing (`SK_PACING_FQ`).
    pub fq: bool,
}

impl TcpConfig {
    /// This end asks for Accurate ECN on its SYN (`net.ipv4.tcp_ecn` = 3).
    pub fn accecn_out(&self) -> bool {
        self.ecn_mode == 3
    }
    /// This end accepts Accurate ECN (`net.ipv4.tcp_ecn` 3 to 5).
    pub fn accecn_in(&self) -> bool {
        self.ecn_mode >= 3
    }
    /// This end accepts RFC 3168 ECN (`net.ipv4.tcp_ecn` other than 0).
    pub fn ecn_in(&self) -> bool {
        self.ecn || self.ecn_mode != 0
    }
    /// This end asks for RFC 3168 ECN (`net.ipv4.tcp_ecn` 1 or 4).
    pub fn ecn_out(&self) -> bool {
        self.ecn || self.ecn_mode == 4
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: "cubic".into(),
            cc_options: crate::cc::CcOptions::default(),
            mtu: 1500,
            sack: true,
            timestamps: true,
            tso_win_divisor: 3,
            min_tso_segs: 2,
            tso_retrans: true,
            ecn: false,
            ecn_mode: 0,
            ecn_option: 2,
            ecn_option_beacon: 3,
            init_cwnd: 10,
            init_cwnd_rfc3390: false,
            init_ssthresh: None,
            rto_min: 200 * crate::engine::MS,
            rto_max: 120 * crate::engine::SEC,
            rto_mode: RtoMode::Linux,
            rto_initial: crate::engine::SEC,
            delayed_ack: true,
            delack_timeout: 40 * crate::engine::MS,
            quickack: 16,
            quickack_rcv_wnd: false,
            growth: Growth::Segments,
            prr: true,
            rate_halving: false,
            gso_push: true,
            gso_half_cwnd: true,
            rack: true,
            tlp: true,
            tlp_variant: TlpVariant::Linux6_6,
            fack: false,
            early_retrans: false,
            early_retrans_no_delay: false,
            frto: true,
            dsack: true,
            reordering: 3,
            max_reordering: 300,
            syn_ect: true,
            // Linux tcp_wmem / tcp_rmem maxima (4 MiB / 6 MiB): enough for ~50 Mbit/s at
            // 100 ms. Long fat paths must raise them, as the seeds say.
            sndbuf: 4 << 20,
            rcvbuf: 6 << 20,
            rcv_init_wnd: None,
            rcv_autotune: false,
            rcv_grow_skb: true,
            slow_start_after_idle: true,
            linux: crate::tcp::era::Era::Linux6_6,
            explicit: 0,
            dscp: 0,
            max_pacing_rate: None,
            pacing_ss_ratio: 200,
            pacing_ca_ratio: 120,
            spacing: crate::tcp::Spacing::None,
            host: HostStack::default(),
        }
    }
}

impl TcpConfig {
    /// The congestion control this configuration names, with its options, on a socket
    /// with this configuration's pacing; an unknown name is an error naming the allowed
    /// ones.
    pub fn congestion_control(&self) -> Result<cc::Cc, String> {
        cc::Cc::new(&self.cc, &self.cc_options)
    }
}

const U32: i64 = u32::MAX as i64;

fn key(name: &str) -> &'static Key {
    KEYS.iter().find(|k| k.name == name).expect("a TCP key")
}

pub(crate) fn is_key(name: &str) -> bool {
    KEYS.iter().any(|k| k.name == name)
}

/// Apply every TCP key present in `t` to `c`, then check the combinations. An era profile
/// named in `t` (`linux`) is applied first, to every key of its table that no table has
/// written (`c.explicit`, `tcp/era.rs`); then the keys written in `t`.
pub fn parse(ck: &mut Checker, t: Tab, c: &mut TcpConfig) {
    let before = ck.errors.len();
    // `linux = 2.6` (a TOML number, as `--set tcp.linux=2.6` gives it) reads as "2.6".
    if let Some(era) = ck.opt(t, "linux", |v| {
        let name = match v {
            Value::Float(f) => f.to_string(),
            v => crate::schema::check::choice("Linux era", ERA_NAMES)(v)?.to_string(),
        };
        Era::from_name(&name).ok_or_else(|| {
            format!("expected a Linux era: \"6.6\", \"3.18\" or \"2.6\" (got {name})")
        })
    }) {
        apply_profile(ck, t.path, era, c);
    }
    c.explicit |= era::explicit_bits(t.t);
    parse_keys(ck, t, c);
    check_combinations(ck, t, c, before);
}

/// Set `c` to `era`'s profile, except the keys written explicitly (`c.explicit`).
pub fn apply_profile(ck: &mut Checker, path: &str, era: Era, c: &mut TcpConfig) {
    c.linux = era;
    let table = era::table(era, c.explicit, is_key);
    parse_keys(ck, Tab { path, t: &table }, c);
}

/// What a scenario writing `linux = "<era>"` and the keys `keep` gives, for a
/// configuration built in code (experiments, the packetdrill runner): `era`'s profile
/// applied to `c` except to the keys in `keep` (and those already explicit), which keep
/// their values.
pub fn set_era(c: &mut TcpConfig, era: Era, keep: &[&str]) {
    for k in keep {
        let i = era::PROFILE
            .iter()
            .position(|r| r.key == *k)
            .unwrap_or_else(|| panic!("{k} is not a profile key"));
        c.explicit |= 1 << i;
    }
    let mut ck = Checker {
        file: "",
        from_cli: Vec::new(),
        errors: Vec::new(),
        hosts: None,
        links: None,
        recorded: &[],
    };
    apply_profile(&mut ck, "tcp", era, c);
    assert!(ck.errors.is_empty(), "the profile's own values are valid");
}

/// Apply every TCP key present in `t` to `c` (no combination checks).
fn parse_keys(ck: &mut Checker, t: Tab, c: &mut TcpConfig) {
    ck.get_into(t, key("cc"), &mut c.cc);
    ck.get_into(t, key("mtu"), &mut c.mtu);
    ck.get_into(t, key("sack"), &mut c.sack);
    ck.get_into(t, key("timestamps"), &mut c.timestamps);
    ck.get_into(t, key("tso_win_divisor"), &mut c.tso_win_divisor);
    ck.get_into(t, key("min_tso_segs"), &mut c.min_tso_segs);
    ck.get_into(t, key("tso_retrans"), &mut c.tso_retrans);
    if let Some(m) = ck.opt(t, "ecn", |v| match v {
        Value::Boolean(b) => Ok(if *b { 1 } else { 0 }),
        _ => int(0, 5)(v).map(|n| n as u8).map_err(|m| {
            format!("{m}, or a boolean (Linux `net.ipv4.tcp_ecn`: 0 off, 1 RFC 3168, 2 accept only, 3 AccECN, 4 accept AccECN and ask RFC 3168, 5 accept AccECN only)")
        }),
    }) {
        c.ecn = m == 1;
        c.ecn_mode = m;
    }
    ck.get_into(t, key("ecn_option"), &mut c.ecn_option);
    ck.get_into(t, key("ecn_option_beacon"), &mut c.ecn_option_beacon);
    if let Some(x) = ck.opt(t, "init_cwnd", |v| match v {
        Value::String(s) if s.eq_ignore_ascii_case("rfc3390") => Ok(None),
        _ => int(1, U32)(v)
            .map(|n| Some(n as u32))
            .map_err(|m| format!("{m} (segments), or \"rfc3390\"")),
    }) {
        c.init_cwnd_rfc3390 = x.is_none();
        if let Some(n) = x {
            c.init_cwnd = n;
        }
    }
    if let Some(x) = ck.opt(t, "init_ssthresh", |v| match v {
        Value::String(s) if matches!(s.to_lowercase().as_str(), "infinite" | "inf") => Ok(None),
        _ => int(1, U32)(v)
            .map(|n| Some(n as u32))
            .map_err(|m| format!("{m} (segments), or \"infinite\" (the default)")),
    }) {
        c.init_ssthresh = x;
    }
    ck.get_into(t, key("rto_min"), &mut c.rto_min);
    ck.get_into(t, key("rto_max"), &mut c.rto_max);
    if let Some(x) = ck.get::<String>(t, key("rto_mode")) {
        c.rto_mode = if x == "linux" {
            RtoMode::Linux
        } else {
            RtoMode::Rfc6298
        };
    }
    ck.get_into(t, key("rto_initial"), &mut c.rto_initial);
    ck.get_into(t, key("delayed_ack"), &mut c.delayed_ack);
    ck.get_into(t, key("delack_timeout"), &mut c.delack_timeout);
    if let Some(x) = ck.opt(t, "quickack", |v| match v {
        Value::String(s) if s.eq_ignore_ascii_case("rcv_wnd") => Ok(None),
        _ => int(0, U32)(v)
            .map(|n| Some(n as u32))
            .map_err(|m| format!("{m} (segments), or \"rcv_wnd\"")),
    }) {
        c.quickack_rcv_wnd = x.is_none();
        if let Some(n) = x {
            c.quickack = n;
        }
    }
    if let Some(x) = ck.get::<String>(t, key("growth")) {
        c.growth = match x.as_str() {
            "segments" => Growth::Segments,
            "acks" => Growth::Acks,
            _ => Growth::SlowStartSegments,
        };
    }
    ck.get_into(t, key("prr"), &mut c.prr);
    ck.get_into(t, key("rate_halving"), &mut c.rate_halving);
    ck.get_into(t, key("gso_push"), &mut c.gso_push);
    ck.get_into(t, key("gso_half_cwnd"), &mut c.gso_half_cwnd);
    ck.get_into(t, key("rack"), &mut c.rack);
    ck.get_into(t, key("tlp"), &mut c.tlp);
    if let Some(x) = ck.get::<String>(t, key("tlp_variant")) {
        c.tlp_variant = if x == "3.18" {
            TlpVariant::Linux3_18
        } else {
            TlpVariant::Linux6_6
        };
    }
    ck.get_into(t, key("fack"), &mut c.fack);
    // `(on, without the delay)`.
    if let Some((on, no_delay)) = ck.opt(t, "early_retrans", |v| match v {
        Value::Boolean(b) => Ok((*b, false)),
        Value::String(s) if s.eq_ignore_ascii_case("no-delay") => Ok((true, true)),
        _ => Err("expected true, false or \"no-delay\"".to_string()),
    }) {
        c.early_retrans = on;
        c.early_retrans_no_delay = no_delay;
    }
    ck.get_into(t, key("frto"), &mut c.frto);
    ck.get_into(t, key("dsack"), &mut c.dsack);
    ck.get_into(t, key("reordering"), &mut c.reordering);
    ck.get_into(t, key("max_reordering"), &mut c.max_reordering);
    ck.get_into(t, key("syn_ect"), &mut c.syn_ect);
    ck.get_into(t, key("sndbuf"), &mut c.sndbuf);
    ck.get_into(t, key("rcvbuf"), &mut c.rcvbuf);
    if let Some(x) = ck.opt(t, "rcv_init_wnd", |v| match v {
        Value::String(s) if s.eq_ignore_ascii_case("rcvbuf") => Ok(None),
        _ => int(1, 65_535)(v)
            .map(|n| Some(n as u32))
            .map_err(|m| format!("{m} (segments), or \"rcvbuf\"")),
    }) {
        c.rcv_init_wnd = x;
    }
    ck.get_into(t, key("rcv_autotune"), &mut c.rcv_autotune);
    ck.get_into(t, key("rcv_grow_skb"), &mut c.rcv_grow_skb);
    ck.get_into(
        t,
        key("slow_start_after_idle"),
        &mut c.slow_start_after_idle,
    );
    ck.get_into(t, key("dscp"), &mut c.dscp);
    if let Some(r) = ck.get::<u64>(t, key("max_pacing_rate")) {
        c.max_pacing_rate = Some(r);
    }
    ck.get_into(t, key("pacing_ss_ratio"), &mut c.pacing_ss_ratio);
    ck.get_into(t, key("pacing_ca_ratio"), &mut c.pacing_ca_ratio);
    {
        use crate::tcp::Spacing;
        let (mut tick, mut max) = match c.spacing {
            Spacing::Cps { tick, max_cluster } => (tick, max_cluster),
            _ => (crate::engine::MS, 80),
        };
        ck.get_into(t, key("cps_tick"), &mut tick);
        ck.get_into(t, key("cps_max_cluster"), &mut max);
        let kind = ck.get::<String>(t, key("spacing"));
        let kind = kind.as_deref().unwrap_or(match c.spacing {
            Spacing::None => "none",
            Spacing::Cps { .. } => "cps",
            Spacing::Nic => "nic",
        });
        c.spacing = match kind {
            "cps" => Spacing::Cps {
                tick,
                max_cluster: max,
            },
            "nic" => Spacing::Nic,
            _ => Spacing::None,
        };
    }
    cc::parse_options(ck, t, &mut c.cc_options);
}

/// The checks of key combinations, over the keys written in `t` (errors from index
/// `before` on are this table's).
fn check_combinations(ck: &mut Checker, t: Tab, c: &TcpConfig, before: usize) {
    // Combinations, checked only when every key involved is valid, and reported only where
    // one of them is written, so a bad [tcp] is not reported again for every flow that
    // inherits it.
    let bad: Vec<String> = ck.errors[before..].iter().map(|e| e.key.clone()).collect();
    let valid = |ks: &[&str]| ks.iter().all(|k| !bad.contains(&join(t.path, k)));
    let has = |ks: &[&str]| ks.iter().any(|k| t.t.contains_key(*k));
    // A maximum RTO below a millisecond lets the retransmission timer fire millions of
    // times per simulated second (at 1 ns the run never ends in practice). Linux's is
    // 120 s (`TCP_RTO_MAX`); 1 ms leaves a lab room for data-center timers.
    if has(&["rto_max"]) && valid(&["rto_max"]) && c.rto_max < MIN_RTO_MAX {
        ck.err(
            &join(t.path, "rto_max"),
            t.t.get("rto_max"),
            format!(
                "must be at least {} (got {})",
                units::format_time(MIN_RTO_MAX),
                units::format_time(c.rto_max)
            ),
        );
    } else if has(&["rto_min", "rto_max"])
        && valid(&["rto_min", "rto_max"])
        && c.rto_min > c.rto_max
    {
        let k = if t.t.contains_key("rto_min") {
            "rto_min"
        } else {
            "rto_max"
        };
        ck.err(
            &join(t.path, k),
            t.t.get(k),
            format!(
                "rto_min ({}) must not exceed rto_max ({})",
                units::format_time(c.rto_min),
                units::format_time(c.rto_max)
            ),
        );
    }
    if valid(&["rcvbuf"]) && c.rcvbuf > MAX_WINDOW {
        ck.err(
            &join(t.path, "rcvbuf"),
            t.t.get("rcvbuf"),
            format!(
                "rcvbuf ({} B) is larger than the largest TCP window, {MAX_WINDOW} B (65,535 << 14, RFC 7323 §2.3)",
                c.rcvbuf
            ),
        );
    }
    for k in ["sndbuf", "rcvbuf"] {
        let b = if k == "sndbuf" { c.sndbuf } else { c.rcvbuf };
        if has(&[k, "mtu"]) && valid(&[k, "mtu"]) && b < u64::from(c.mtu) {
            let at = if t.t.contains_key(k) { k } else { "mtu" };
            ck.err(
                &join(t.path, at),
                t.t.get(at),
                format!(
                    "{k} ({b} B) must hold at least one packet (mtu = {} B)",
                    c.mtu
                ),
            );
        }
    }
}
