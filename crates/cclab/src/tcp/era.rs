//! Era profiles: `[tcp] linux = "6.6" | "3.18" | "2.6"` sets the defaults of a whole
//! kernel generation at once; every key it sets is also a key of its own.
//!
//! How the config reader applies a profile (`tcp::config::parse`): the profile first, then
//! the keys written in the same table. A key written in a table is recorded as explicit
//! (`TcpConfig::explicit`, one bit per row of [`PROFILE`]); a profile named later (a
//! `[[flow]]` naming another era than `[tcp]`) leaves explicit keys alone, so a key the
//! scenario writes always wins over a profile, wherever the profile is named.
//!
//! The eras, and the kernel each profile follows:
//! - `"6.6"` — today's Linux (the default; cclab's behaviour before profiles existed).
//! - `"3.18"` — the kernel of seed 000 (DCTCP incast, 2014).
//! - `"2.6"` — the 2.6.6–2.6.9 kernels of seed 003 (2004); the file references are to
//!   2.6.9 (`net/ipv4/tcp_input.c`, `tcp_output.c`, `tcp.c`). 2.6.6 is the kernel the
//!   seed names (slides 18 and 41); the one difference between 2.6.6 and 2.6.9 the
//!   profile cares about, receive-buffer autotuning (2.6.7), is `rcv_autotune`.
//!
//! [`PROFILE`] is the one place that lists, per era, the value of every key a profile
//! sets. Adding a key is one row; a row whose key does not exist yet (mechanisms other
//! work will add: RACK, TLP, F-RTO, DSACK, FACK, early retransmit) is skipped until the
//! key is declared in `tcp::config`, and `rows_wait_only_for_listed_keys` checks that
//! such rows are exactly those listed in [`AWAITED`].

use toml::{Table, Value};

/// A kernel generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Era {
    #[default]
    Linux6_6,
    Linux3_18,
    Linux2_6,
}

/// The names `linux` takes, in the column order of [`PROFILE`].
pub const ERA_NAMES: &[&str] = &["6.6", "3.18", "2.6"];

impl Era {
    pub const ALL: [Era; 3] = [Era::Linux6_6, Era::Linux3_18, Era::Linux2_6];

    /// The era named `s` (one of [`ERA_NAMES`]).
    pub fn from_name(s: &str) -> Option<Era> {
        ERA_NAMES.iter().position(|n| *n == s).map(|i| Era::ALL[i])
    }

    pub fn name(self) -> &'static str {
        ERA_NAMES[self.column()]
    }

    /// This era's column in [`PROFILE`].
    pub fn column(self) -> usize {
        match self {
            Era::Linux6_6 => 0,
            Era::Linux3_18 => 1,
            Era::Linux2_6 => 2,
        }
    }
}

/// A value in the table (what the key would be given in a scenario file).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum V {
    Int(i64),
    Bool(bool),
    Str(&'static str),
}

impl V {
    fn to_toml(self) -> Value {
        match self {
            V::Int(i) => Value::Integer(i),
            V::Bool(b) => Value::Boolean(b),
            V::Str(s) => Value::String(s.into()),
        }
    }
}

/// One key of the profiles: its value in each era (columns "6.6", "3.18", "2.6") and the
/// kernel source of each value.
#[derive(Debug)]
pub struct Row {
    pub key: &'static str,
    pub values: [V; 3],
    pub source: &'static str,
}

use V::{Bool as B, Int as I, Str as S};

/// Every key a profile sets, per era. The sources name the kernel file and function; the
/// sysctl defaults are from `net/ipv4/tcp_input.c` / `tcp.c` of each version.
pub static PROFILE: &[Row] = &[
    Row {
        key: "init_cwnd",
        values: [I(10), I(10), S("rfc3390")],
        source: "6.6, 3.18: `TCP_INIT_CWND` 10 (include/net/tcp.h, since 2.6.39); 2.6.9: \
                 `tcp_init_cwnd` (tcp_input.c): 2 segments above an MSS of 1460, 3 above \
                 1095, else 4 (RFC 3390's min(4·MSS, max(2·MSS, 4380 B)))",
    },
    Row {
        key: "growth",
        values: [S("segments"), S("ss-segments"), S("acks")],
        source: "6.6: `tcp_slow_start(tp, acked)` and `tcp_cong_avoid_ai(tp, w, acked)` \
                 count acked segments (tcp_cong.c, since 4.0); 3.18: slow start by acked \
                 segments, `tcp_cong_avoid_ai(tp, w)` one per ACK; 2.6.9: `tcp_slow_start` \
                 +1 per ACK, `reno_cong_avoid` +1 per cwnd ACKs (tcp_input.c)",
    },
    Row {
        key: "quickack",
        values: [I(16), S("rcv_wnd"), S("rcv_wnd")],
        source: "`tcp_incr_quickack` (tcp_input.c): rcv_wnd / (2·rcv_mss), at least 2, at \
                 most `TCP_MAX_QUICKACKS` 16; 6.6's first window (64 KB) gives 16; 3.18's \
                 (10 MSS) gives 5; 2.6's (4 MSS) gives 2",
    },
    Row {
        key: "rcv_init_wnd",
        values: [S("rcvbuf"), I(10), I(4)],
        source: "`tcp_select_initial_window` (tcp_output.c): 2.6.9 offers 4 MSS \
                 (\"following RFC 1414\"), 3.18 `TCP_DEFAULT_INIT_RCVWND` 10; then \
                 `tcp_grow_window` opens rcv_ssthresh by 2 MSS per segment. 6.6 offers \
                 64 KB and grows the same way; cclab's modern receiver offers the whole \
                 `rcvbuf` at once (today's behaviour, kept)",
    },
    Row {
        key: "rcv_autotune",
        values: [B(false), B(false), B(false)],
        source: "`tcp_rcv_space_adjust` (tcp_input.c, new in 2.6.7, `tcp_moderate_rcvbuf` \
                 1): absent from 2.6.6, the kernel of seed 003; set it for 2.6.7–2.6.9. \
                 Modern kernels have it too, but cclab's `rcvbuf` is their `tcp_rmem` \
                 maximum, offered at once",
    },
    Row {
        key: "rcv_grow_skb",
        values: [B(true), B(true), B(false)],
        source: "`tcp_grow_window` (tcp_input.c): 3.12, 3.13–3.18 and 6.x grow rcv_ssthresh by \
                 `max(incr, 2 * skb->len)`, so a GRO aggregate opens twice its length; \
                 2.6.9 (before GRO, 2.6.29) by 2·advmss per skb",
    },
    Row {
        key: "rcvbuf",
        values: [S("6MiB"), S("6MiB"), S("64075B")],
        source: "6.6, 3.18: `tcp_rmem[2]` 6 MiB (tcp.c `tcp_init`); 2.6.6–2.6.9: \
                 `tcp_rmem[1]` 87,380 B (tcp.c), whose window clamp is \
                 `tcp_full_space` = 87,380 − 87,380/4 = 65,535 B (`tcp_adv_win_scale` 2) \
                 less one reserved segment of 1,460 B (`tcp_init_buffer_space`)",
    },
    Row {
        key: "sndbuf",
        values: [S("4MiB"), S("4MiB"), S("128KiB")],
        source: "`tcp_wmem[2]`: 4 MiB (6.6, 3.18; tcp.c `tcp_init`), 128 KiB (2.6.9 tcp.c)",
    },
    Row {
        key: "slow_start_after_idle",
        values: [B(true), B(true), B(true)],
        source: "`tcp_slow_start_after_idle` 1 (a sysctl since 2.6.18, always 1 by \
                 default); 2.6.9 restarts unconditionally in `tcp_event_data_sent` \
                 (tcp_output.c `tcp_cwnd_restart`)",
    },
    Row {
        key: "rto_initial",
        values: [S("1s"), S("1s"), S("3s")],
        source: "`TCP_TIMEOUT_INIT` (include/net/tcp.h): 3·HZ in 2.6.9 (RFC 1122), 1 s since \
                 3.1 (RFC 6298 §2.1); the estimator itself (`tcp_rtt_estimator`, \
                 `tcp_set_rto`) is the same in every era",
    },
    Row {
        key: "tso_retrans",
        values: [B(true), B(false), B(false)],
        source: "6.6: `__tcp_retransmit_skb(sk, skb, segs)` sends up to min(cwnd room, \
                 `tcp_tso_segs`) segments of a lost skb at once (tcp_output.c; new between \
                 3.19 and 4.8, \"tcp-tso: do not split TSO packets at retransmit time\"); \
                 3.18 and 2.6.9: `tcp_fragment` to one `cur_mss`",
    },
    // Keys other work adds; each row applies once its key exists.
    Row {
        key: "rack",
        values: [B(true), B(false), B(false)],
        source: "`tcp_recovery` & RACK_LOSS_DETECTION (tcp_recovery.c, since 4.18 default)",
    },
    Row {
        key: "tlp",
        values: [B(true), B(true), B(false)],
        source: "`tcp_early_retrans` ≥ 3 (tail loss probe, tcp_output.c, since 3.10)",
    },
    Row {
        key: "tlp_variant",
        values: [S("6.6"), S("3.18"), S("6.6")],
        source: "6.6: `tcp_schedule_loss_probe` (tcp_output.c, RFC 8985 §7); 3.18: the same \
                 function of 3.10–4.x (PTO 2·srtt, max(PTO, 1.5·srtt + `TCP_DELACK_MAX`) \
                 with one segment out, at least 10 ms, Open only); 2.6 has no probe (`tlp` \
                 false) and keeps the default",
    },
    Row {
        key: "frto",
        values: [B(true), B(true), B(false)],
        source: "`tcp_frto`: 2 in 6.6 and 3.18; 0 in 2.6.9 (tcp_input.c)",
    },
    Row {
        key: "dsack",
        values: [B(true), B(true), B(true)],
        source: "`tcp_dsack` 1 in every era (2.6.9 tcp_input.c)",
    },
    Row {
        key: "reordering",
        values: [I(3), I(3), I(3)],
        source: "`tcp_reordering` = `TCP_FASTRETRANS_THRESH` 3 in every era",
    },
    Row {
        key: "fack",
        values: [B(false), B(true), B(true)],
        source: "`tcp_fack` 1 until its removal in 4.15 (2.6.9 tcp_input.c)",
    },
    Row {
        key: "early_retrans",
        values: [B(false), B(true), B(false)],
        source: "RFC 5827 early retransmit: `tcp_early_retrans` 3 in 3.18 (since 3.5); \
                 replaced by RACK in 4.18; absent from 2.6",
    },
    Row {
        key: "prr",
        values: [B(true), B(true), B(false)],
        source: "PRR (RFC 6937, `tcp_cwnd_reduction` in tcp_input.c) since 3.2; 2.6 reduced \
                 cwnd by rate halving (`rate_halving`)",
    },
    Row {
        key: "rate_halving",
        values: [B(false), B(false), B(true)],
        source: "2.6.9 tcp_input.c: `tcp_cwnd_down` (one segment off every second ACK while \
                 above ssthresh/2, at most in flight + 1), `tcp_complete_cwr` (min(cwnd, \
                 ssthresh) at the end), `__tcp_enter_cwr` (include/net/tcp.h); PRR replaced \
                 it in 3.2",
    },
    Row {
        key: "gso_push",
        values: [B(true), B(false), B(false)],
        source: "`__tcp_transmit_skb` (tcp_output.c) sets PSH on every skb of more than one \
                 segment since 5.4 (commit 051ba67447de \"tcp: force a PSH flag on TSO \
                 packets\"; absent from 5.3 and 3.18); 2.6.9 had no such rule",
    },
    Row {
        key: "gso_half_cwnd",
        values: [B(true), B(false), B(false)],
        source: "`tcp_cwnd_test` (tcp_output.c) returns at most max(cwnd/2, 1) segments \
                 since 3.19 (commit d649a7a81f3b \"tcp: limit GSO packets to half cwnd\"); \
                 3.18's returns cwnd − in flight, and 2.6.9's `tcp_snd_test` (tcp.h) only \
                 asks that the whole skb fit in cwnd",
    },
];

/// Rows whose key does not exist yet (another helper's mechanism); see the module doc.
pub const AWAITED: &[&str] = &[];

/// The bits of `PROFILE` rows whose key `t` writes.
pub fn explicit_bits(t: &Table) -> u64 {
    PROFILE
        .iter()
        .enumerate()
        .filter(|(_, r)| t.contains_key(r.key))
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// The table of keys `era` sets, less those in `explicit` and those not declared yet
/// (`known` says which keys exist).
pub fn table(era: Era, explicit: u64, known: impl Fn(&str) -> bool) -> Table {
    PROFILE
        .iter()
        .enumerate()
        .filter(|(i, r)| explicit & (1 << i) == 0 && known(r.key))
        .map(|(_, r)| (r.key.to_string(), r.values[era.column()].to_toml()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_room_for_the_explicit_mask() {
        assert!(PROFILE.len() <= 64, "TcpConfig::explicit is a u64");
        let mut seen = std::collections::BTreeSet::new();
        for r in PROFILE {
            assert!(seen.insert(r.key), "{} twice", r.key);
            assert!(!r.source.is_empty(), "{} names its source", r.key);
        }
    }

    /// A row applies once its key exists: the rows whose key is not declared are exactly
    /// the awaited ones (when a key lands, remove it from `AWAITED` and give
    /// `field` below a reader for it).
    #[test]
    fn rows_wait_only_for_listed_keys() {
        for r in PROFILE {
            let known = crate::tcp::config::is_key(r.key);
            assert_eq!(
                known,
                !AWAITED.contains(&r.key),
                "{}: declared {known}, listed as awaited {}",
                r.key,
                !known
            );
        }
        for k in AWAITED {
            assert!(PROFILE.iter().any(|r| r.key == *k), "{k} has a row");
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Era::ALL {
            assert_eq!(Era::from_name(e.name()), Some(e));
        }
        assert_eq!(Era::from_name("2.4"), None);
        assert_eq!(Era::default().name(), "6.6");
    }

    use crate::scenario::{parse_scenario, Growth, TcpConfig};

    /// The TCP configuration of each `[[flow]]` of a dumbbell scenario with `extra`.
    fn flows(extra: &str) -> Vec<TcpConfig> {
        let text = format!(
            "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 2\n\
             bottleneck = {{ rate = \"1Gbps\", delay = \"10ms\" }}\n{extra}"
        );
        let s = parse_scenario(&text, "t.toml", &[]).unwrap_or_else(|e| panic!("{e:?}"));
        s.apps.flows.iter().map(|f| f.tcp.clone()).collect()
    }

    /// Every key of the table a profile sets, read back from the configuration the
    /// scenario gives, equals the profile's value (through the same reader as a key
    /// written by hand: `[tcp] key = value`).
    #[test]
    fn each_profile_sets_every_key_of_its_table() {
        for era in Era::ALL {
            let by_profile = &flows(&format!("[tcp]\nlinux = \"{}\"\n", era.name()))[0];
            assert_eq!(by_profile.linux, era);
            let mut n = 0;
            for r in PROFILE.iter().filter(|r| !AWAITED.contains(&r.key)) {
                let v = match r.values[era.column()] {
                    V::Int(i) => i.to_string(),
                    V::Bool(b) => b.to_string(),
                    V::Str(s) => format!("\"{s}\""),
                };
                let by_hand = &flows(&format!("[tcp]\n{} = {v}\n", r.key))[0];
                // Written by hand, the key reads as the profile sets it; and it is not
                // the default unless the profile keeps the default there.
                assert_eq!(
                    field(by_hand, r.key),
                    field(by_profile, r.key),
                    "{} in {}",
                    r.key,
                    era.name()
                );
                n += 1;
            }
            assert_eq!(n, PROFILE.len() - AWAITED.len());
        }
        // And the profiles differ from each other where the table says so.
        let e26 = &flows("[tcp]\nlinux = \"2.6\"\n")[0];
        assert!(e26.init_cwnd_rfc3390 && e26.quickack_rcv_wnd);
        assert_eq!(e26.growth, Growth::Acks);
        assert_eq!(
            (e26.rcv_init_wnd, e26.rcvbuf, e26.sndbuf),
            (Some(4), 64_075, 128 << 10)
        );
        let e318 = &flows("[tcp]\nlinux = \"3.18\"\n")[0];
        assert_eq!(
            (e318.init_cwnd, e318.growth),
            (10, Growth::SlowStartSegments)
        );
        // The default profile is today's configuration.
        let e66 = &flows("[tcp]\nlinux = \"6.6\"\n")[0];
        let d = TcpConfig {
            explicit: e66.explicit,
            ..Default::default()
        };
        assert_eq!(*e66, d);
    }

    /// A key's value as text, for the keys of the table.
    fn field(c: &TcpConfig, key: &str) -> String {
        match key {
            "init_cwnd" => format!("{} {}", c.init_cwnd, c.init_cwnd_rfc3390),
            "growth" => format!("{:?}", c.growth),
            "quickack" => format!("{} {}", c.quickack, c.quickack_rcv_wnd),
            "rcv_init_wnd" => format!("{:?}", c.rcv_init_wnd),
            "rcv_autotune" => c.rcv_autotune.to_string(),
            "rcv_grow_skb" => c.rcv_grow_skb.to_string(),
            "rcvbuf" => c.rcvbuf.to_string(),
            "sndbuf" => c.sndbuf.to_string(),
            "tso_retrans" => c.tso_retrans.to_string(),
            "slow_start_after_idle" => c.slow_start_after_idle.to_string(),
            "rto_initial" => c.rto_initial.to_string(),
            "rack" => c.rack.to_string(),
            "tlp" => c.tlp.to_string(),
            "frto" => c.frto.to_string(),
            "dsack" => c.dsack.to_string(),
            "reordering" => c.reordering.to_string(),
            "tlp_variant" => format!("{:?}", c.tlp_variant),
            "fack" => c.fack.to_string(),
            "early_retrans" => format!("{} {}", c.early_retrans, c.early_retrans_no_delay),
            "prr" => c.prr.to_string(),
            "rate_halving" => c.rate_halving.to_string(),
            "gso_push" => c.gso_push.to_string(),
            "gso_half_cwnd" => c.gso_half_cwnd.to_string(),
            k => panic!("a profile key without a reader in this test: {k}"),
        }
    }

    /// A key written in the scenario wins over the profile, wherever each is written.
    #[test]
    fn an_explicit_key_overrides_the_profile() {
        // Same table: the profile is applied first.
        let f = &flows("[tcp]\nlinux = \"2.6\"\ninit_cwnd = 7\n")[0];
        assert_eq!((f.init_cwnd, f.init_cwnd_rfc3390), (7, false));
        assert_eq!(f.growth, Growth::Acks, "the rest of the profile applies");
        // The key in [tcp], the profile in a flow: the key still wins.
        let fs = flows(
            "[tcp]\ngrowth = \"segments\"\n\
             [[flow]]\nfrom = \"s0\"\nto = \"r0\"\nlinux = \"2.6\"\n\
             [[flow]]\nfrom = \"s1\"\nto = \"r1\"\n",
        );
        assert_eq!(fs[0].growth, Growth::Segments);
        assert!(fs[0].init_cwnd_rfc3390, "the profile's other keys apply");
        assert!(!fs[1].init_cwnd_rfc3390, "the other flow keeps [tcp]'s era");
        // The profile in [tcp], the key in a flow.
        let fs = flows(
            "[tcp]\nlinux = \"2.6\"\n\
             [[flow]]\nfrom = \"s0\"\nto = \"r0\"\nquickack = 16\n",
        );
        assert_eq!((fs[0].quickack, fs[0].quickack_rcv_wnd), (16, false));
        assert_eq!(fs[0].rcv_init_wnd, Some(4));
        // `linux = 2.6` written as a number (as `--set tcp.linux=2.6` gives it) is the era.
        let f = &flows("[tcp]\nlinux = 2.6\n")[0];
        assert_eq!(f.linux, Era::Linux2_6);
        assert_eq!(flows("[tcp]\nlinux = 3.18\n")[0].linux, Era::Linux3_18);
        // A bad era is an error naming the key and the choices.
        let text = "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\n\
                    bottleneck = { rate = \"1Gbps\", delay = \"10ms\" }\n[tcp]\nlinux = \"2.4\"\n";
        let e = parse_scenario(text, "t.toml", &[]).unwrap_err();
        assert_eq!(e[0].key, "tcp.linux");
        assert!(e[0].message.contains("3.18"), "{}", e[0].message);
        let e = parse_scenario(&text.replace("\"2.4\"", "2.4"), "t.toml", &[]).unwrap_err();
        assert_eq!(e[0].key, "tcp.linux");
        assert!(e[0].message.contains("\"2.6\""), "{}", e[0].message);
    }

    /// The 3.18 recovery keys: the profile turns them on, each reads back, and
    /// `early_retrans` takes "no-delay" (sysctl 1) and nothing else.
    #[test]
    fn the_3_18_recovery_keys_read_back() {
        let e = &flows("[tcp]\nlinux = \"3.18\"\n")[0];
        assert!(e.fack && e.early_retrans && !e.early_retrans_no_delay && !e.rack);
        assert_eq!(e.tlp_variant, crate::tcp::config::TlpVariant::Linux3_18);
        let d = &flows("")[0];
        assert!(!d.fack && !d.early_retrans);
        assert_eq!(d.tlp_variant, crate::tcp::config::TlpVariant::Linux6_6);
        let n = &flows("[tcp]\nlinux = \"3.18\"\nearly_retrans = \"no-delay\"\n")[0];
        assert!(n.early_retrans && n.early_retrans_no_delay && n.fack);
        let text = "[sim]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 1\n\
                    bottleneck = { rate = \"1Gbps\", delay = \"10ms\" }\n[tcp]\nearly_retrans = \"soon\"\n";
        let e = parse_scenario(text, "t.toml", &[]).unwrap_err();
        assert_eq!(e[0].key, "tcp.early_retrans");
        assert!(e[0].message.contains("no-delay"), "{}", e[0].message);
    }

    #[test]
    fn explicit_keys_are_left_out() {
        let mut t = Table::new();
        t.insert("init_cwnd".into(), Value::Integer(7));
        let bits = explicit_bits(&t);
        assert_eq!(bits.count_ones(), 1);
        let p = table(Era::Linux2_6, bits, |_| true);
        assert!(!p.contains_key("init_cwnd"));
        assert_eq!(p.get("growth"), Some(&Value::String("acks".into())));
        assert_eq!(p.len(), PROFILE.len() - 1);
        // Keys not declared are skipped.
        assert!(table(Era::Linux2_6, 0, |k| k != "rack")
            .get("rack")
            .is_none());
    }
}
