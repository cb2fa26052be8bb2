//! What a script's shell lines and option flags do to the TCP under test: sysctls mapped to
//! cclab's `[tcp]` keys, the CUBIC module parameter, the qdisc of the test device, and
//! packetdrill's timing tolerance (`config.c`: `--tolerance_usecs`, default 4,000 µs, and
//! `--tolerance_percent`, default 12.5 % of the time since the previous event).
//!
//! The shell commands are read, never run: a whitelist of what the TCP scripts of the
//! modelled areas use (`defaults.sh`, `sysctl -q k=v`, `set_sysctls.py /proc/sys/…=v`, the
//! restore script, `echo N > /sys/module/tcp_cubic/parameters/hystart_detect`,
//! `tc qdisc … root fq|pfifo`, `ip tcp_metrics flush`). Anything else makes the script
//! not applicable, naming the command or sysctl.

use crate::scenario::TcpConfig;
use crate::tcp::era::Era;

/// The test's configuration, built before the socket is.
#[derive(Clone, Debug)]
pub struct Conf {
    pub cfg: TcpConfig,
    /// `tcp_ecn`: 0 off, 1 request and accept, 2 accept only (Linux's default).
    pub ecn_mode: u8,
    pub tol_us: i64,
    pub tol_pct: f64,
}

impl Conf {
    /// A Linux host as packetdrill's test device sees it: segmentation offload and TCP
    /// small queues on (the tun device offers TSO, `netdev.c`), a pfifo qdisc.
    pub fn new() -> Conf {
        let mut cfg = TcpConfig::default();
        cfg.host.tso = true;
        cfg.host.tsq = true;
        Conf {
            cfg,
            ecn_mode: 2,
            tol_us: 4000,
            tol_pct: 12.5,
        }
    }

    /// `--name[=value]` option flags.
    pub fn option(&mut self, name: &str, val: Option<&str>) -> Result<(), String> {
        let num = || val.and_then(|v| v.parse::<f64>().ok());
        match name {
            "tolerance_usecs" => {
                self.tol_us = num().ok_or("--tolerance_usecs needs a number")? as i64;
            }
            "tolerance_percent" => {
                self.tol_pct = num().ok_or("--tolerance_percent needs a number")?;
            }
            "ip_version" if val == Some("ipv4") => {}
            // cclab's own flag: the kernel generation the script was written for
            // (`tcp/era.rs`), applied before the script's sysctls; it decides what
            // `tcp_early_retrans` and `tcp_recovery` mean.
            "linux" => {
                let era = val
                    .and_then(crate::tcp::era::Era::from_name)
                    .ok_or("--linux needs 6.6, 3.18 or 2.6")?;
                crate::tcp::config::set_era(&mut self.cfg, era, &[]);
            }
            _ => return Err(format!("option --{name}")),
        }
        Ok(())
    }

    /// The values `defaults.sh` sets (google/packetdrill `gtests/net/common/defaults.sh`,
    /// and the kernel's `tools/testing/selftests/net/packetdrill/defaults.sh`), as sysctls.
    pub fn defaults(&mut self) -> Result<(), String> {
        for (k, v) in [
            ("tcp_rmem", "4096 540000 15728640"),
            ("tcp_wmem", "4096 262144 4194304"),
            ("tcp_timestamps", "1"),
            ("tcp_syn_retries", "5"),
            ("tcp_synack_retries", "5"),
            ("tcp_frto", "2"),
            ("tcp_sack", "1"),
            ("tcp_dsack", "1"),
            ("tcp_fack", "0"),
            ("tcp_reordering", "3"),
            ("tcp_congestion_control", "cubic"),
            ("tcp_slow_start_after_idle", "0"),
            ("tcp_early_retrans", "4"),
            ("tcp_recovery", "1"),
            ("tcp_tso_win_divisor", "3"),
            ("tcp_ecn", "0"),
            ("tcp_pacing_ss_ratio", "200"),
            ("tcp_pacing_ca_ratio", "120"),
        ] {
            self.sysctl(k, v)?;
        }
        self.cfg.host.fq = false; // `tc qdisc add dev tun0 root pfifo`
        Ok(())
    }

    /// One sysctl `net.ipv4.NAME=VALUE` (also written `net/ipv4/NAME`).
    pub fn sysctl(&mut self, name: &str, val: &str) -> Result<(), String> {
        let name = name
            .trim_start_matches("net.ipv4.")
            .trim_start_matches("net/ipv4/");
        let val = val.trim().trim_matches('"');
        let n = || -> Result<u64, String> {
            let v = val.trim_start_matches("0x");
            let r = if v.len() < val.len() {
                u64::from_str_radix(v, 16)
            } else {
                val.parse()
            };
            r.map_err(|_| format!("sysctl {name}={val}: not a number"))
        };
        let bad = || Err(format!("sysctl {name}={val}"));
        let c = &mut self.cfg;
        match name {
            "tcp_congestion_control" => {
                if !crate::cc::CC_NAMES.contains(&val) {
                    return bad();
                }
                c.cc = val.to_string();
            }
            "tcp_sack" => c.sack = n()? != 0,
            "tcp_timestamps" => match n()? {
                0 => c.timestamps = false,
                1 => c.timestamps = true,
                _ => return bad(), // microsecond timestamps (Linux 6.13, `tcp_timestamps=2`)
            },
            "tcp_ecn" => match n()? {
                v @ 0..=2 => self.ecn_mode = v as u8,
                _ => return bad(), // AccECN modes
            },
            "tcp_tso_win_divisor" => c.tso_win_divisor = n()?.clamp(1, 255) as u32,
            "tcp_min_tso_segs" => c.min_tso_segs = n()?.clamp(1, 255) as u32,
            "tcp_pacing_ss_ratio" => c.pacing_ss_ratio = n()?.clamp(1, 10_000) as u32,
            "tcp_pacing_ca_ratio" => c.pacing_ca_ratio = n()?.clamp(1, 10_000) as u32,
            // The receive space's maximum sets our window scale (`tcp_select_initial_window`).
            "tcp_rmem" => {
                let max = val
                    .split_whitespace()
                    .nth(2)
                    .and_then(|x| x.parse::<u64>().ok());
                match max {
                    Some(m) if m >= 1 << 12 => {
                        c.rcvbuf = m.min(crate::tcp::config::MAX_WINDOW);
                    }
                    _ => return bad(),
                }
            }
            "tcp_slow_start_after_idle" => c.slow_start_after_idle = n()? != 0,
            "tcp_reordering" => match n()? {
                v @ 1..=300 => c.reordering = v as u32,
                _ => return bad(),
            },
            "tcp_frto" => c.frto = n()? != 0,
            "tcp_dsack" => c.dsack = n()? != 0,
            // `tcp_early_retrans`: 3 and 4 enable the tail loss probe in every era. In 3.18
            // (`--linux=3.18`) 1–3 also enable early retransmit, 2 and 3 with its delay;
            // 6.6 has no early retransmit (removed in 4.11), so there 1 and 2 only turn the
            // probe off.
            "tcp_early_retrans" => match n()? {
                v @ 0..=4 => {
                    c.tlp = v >= 3;
                    c.early_retrans = c.linux == Era::Linux3_18 && (1..=3).contains(&v);
                    c.early_retrans_no_delay = v == 1;
                }
                _ => return bad(),
            },
            // `tcp_recovery` (4.4+): bit 0 RACK loss detection; the static reordering window
            // (2) and no-dupthresh (4) bits are not modelled. 3.18 has no such sysctl: its
            // write fails and changes nothing (`defaults.sh` ignores the failure).
            "tcp_recovery" if c.linux == Era::Linux3_18 => {}
            "tcp_recovery" => match n()? {
                v @ 0..=1 => c.rack = v == 1,
                _ => return bad(),
            },
            // FACK (until 4.15; 6.6's `defaults.sh` writes 0, a failed write there).
            "tcp_fack" => c.fack = n()? != 0,
            // Accepted, with no effect the modelled areas' scripts can see.
            "tcp_wmem" | "tcp_syn_retries" | "tcp_synack_retries" | "tcp_notsent_lowat"
            | "tcp_fastopen" | "tcp_fastopen_key" | "tcp_syncookies" | "tcp_ecn_option" => {}
            _ => return bad(),
        }
        Ok(())
    }

    /// A backquoted shell command: each line in turn.
    pub fn shell(&mut self, text: &str) -> Result<(), String> {
        let joined = text.replace("\\\n", " ");
        for line in joined.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let cmd = words[0];
            if cmd.ends_with("defaults.sh") && words.len() == 1 {
                self.defaults()?;
            } else if cmd == "sysctl" {
                for w in &words[1..] {
                    if w.starts_with('-') {
                        if !matches!(*w, "-q" | "-e" | "-w" | "-qw" | "-eq" | "-qe") {
                            return Err(format!("command '{line}'"));
                        }
                        continue;
                    }
                    let (k, v) = w.split_once('=').ok_or(format!("command '{line}'"))?;
                    // A quoted value with spaces (tcp_rmem="a b c") spans words.
                    let v = if v.starts_with('"') && !v[1..].contains('"') {
                        let rest = line.split_once(&format!("{k}=")).map(|x| x.1).unwrap_or("");
                        let end = rest[1..].find('"').map_or(rest.len(), |e| e + 2);
                        self.sysctl(k, &rest[..end])?;
                        break;
                    } else {
                        v
                    };
                    self.sysctl(k, v)?;
                }
            } else if cmd.ends_with("set_sysctls.py") {
                for w in &words[1..] {
                    let (k, v) = w.split_once('=').ok_or(format!("command '{line}'"))?;
                    let k = k
                        .strip_prefix("/proc/sys/net/ipv4/")
                        .ok_or(format!("set_sysctls.py {k}"))?;
                    self.sysctl(k, v)?;
                }
            } else if cmd.starts_with("/tmp/sysctl_restore_") {
                // The script's last line puts the host's sysctls back: nothing to undo here.
            } else if words == ["ip", "tcp_metrics", "flush", "all"] {
            } else if cmd == "echo"
                && words.len() == 4
                && words[2] == ">"
                && words[3] == "/sys/module/tcp_cubic/parameters/hystart_detect"
            {
                let v: u8 = words[1]
                    .parse()
                    .ok()
                    .filter(|v| *v <= 3)
                    .ok_or(format!("hystart_detect value '{}'", words[1]))?;
                self.cfg.cc_options.cubic.hystart_detect = v;
            } else if cmd == "tc" && words.len() >= 7 && words[1] == "qdisc" {
                // tc qdisc add|replace dev tun0 root fq|pfifo
                if !matches!(words[2], "add" | "replace") || words[5] != "root" {
                    return Err(format!("command '{line}'"));
                }
                match (words[6], &words[7..]) {
                    ("fq", []) => self.cfg.host.fq = true,
                    ("pfifo", []) => self.cfg.host.fq = false,
                    _ => {
                        return Err(format!(
                            "qdisc '{}' (a local queue that refuses packets)",
                            words[6..].join(" ")
                        ))
                    }
                }
            } else {
                return Err(format!("command '{line}'"));
            }
        }
        Ok(())
    }
}

impl Default for Conf {
    fn default() -> Self {
        Conf::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_lines_map_to_keys() {
        let mut c = Conf::new();
        c.shell("../common/defaults.sh\nsysctl -q net.ipv4.tcp_tso_win_divisor=100\n")
            .unwrap();
        assert_eq!(
            (c.cfg.tso_win_divisor, c.cfg.rcvbuf, c.ecn_mode),
            (100, 15 << 20, 0)
        );
        c.shell("../common/set_sysctls.py /proc/sys/net/ipv4/tcp_min_tso_segs=10 \\\n\t /proc/sys/net/ipv4/tcp_sack=0").unwrap();
        assert_eq!((c.cfg.min_tso_segs, c.cfg.sack), (10, false));
        c.shell("echo 2 > /sys/module/tcp_cubic/parameters/hystart_detect\ntc qdisc replace dev tun0 root fq\nsysctl -q net.ipv4.tcp_ecn=2    # server").unwrap();
        assert_eq!(
            (
                c.cfg.cc_options.cubic.hystart_detect,
                c.cfg.host.fq,
                c.ecn_mode
            ),
            (2, true, 2)
        );
        c.shell("sysctl -q net.ipv4.tcp_rmem=\"4096 87380 6291456\"")
            .unwrap();
        assert_eq!(c.cfg.rcvbuf, 6291456);
        assert_eq!(
            c.shell("tc qdisc replace dev tun0 root pfifo limit 0")
                .unwrap_err(),
            "qdisc 'pfifo limit 0' (a local queue that refuses packets)"
        );
        assert!(c.shell("rm -rf /").unwrap_err().contains("rm -rf"));
        c.shell("sysctl -q net.ipv4.tcp_slow_start_after_idle=1 net.ipv4.tcp_early_retrans=0")
            .unwrap();
        assert!(c.cfg.slow_start_after_idle && !c.cfg.tlp);
        assert_eq!(
            c.shell("sysctl -q net.ipv4.tcp_recovery=4").unwrap_err(),
            "sysctl tcp_recovery=4"
        );
    }
}
