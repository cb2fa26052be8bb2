//! `cclab packetdrill`: packetdrill scripts (google/packetdrill, the Linux kernel's
//! `tools/testing/selftests/net/packetdrill/`) run against cclab's sans-IO TCP sender.
//!
//! - `parse`: the script language (the subset the TCP scripts of the modelled areas use).
//! - `env`: shell lines and option flags → `[tcp]` keys and the runner's tolerance.
//! - `py`: the `%{ }%` blocks' Python (assertions on `tcpi_*`).
//! - `run`: the driver, in virtual time (no network, no `Receiver`: the script is the peer).
//!
//! Each script ends as [`Verdict::Pass`], [`Verdict::Fail`] (the script line and the first
//! mismatch), [`Verdict::NotApplicable`] (the feature cclab does not model, named) or
//! [`Verdict::Error`] (the file could not be read or parsed).

mod comments;
pub mod env;
pub mod parse;
pub mod py;
pub mod run;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail { line: usize, msg: String },
    NotApplicable { line: usize, feature: String },
    Error(String),
}

impl Verdict {
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail { .. } => "FAIL",
            Verdict::NotApplicable { .. } => "n/a",
            Verdict::Error(_) => "ERROR",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Pass => write!(f, "pass"),
            Verdict::Fail { line, msg } => write!(f, "FAIL at line {line}: {msg}"),
            Verdict::NotApplicable { line, feature } => {
                write!(f, "not applicable (line {line}): {feature}")
            }
            Verdict::Error(m) => write!(f, "ERROR: {m}"),
        }
    }
}

/// Run a script given as text.
pub fn run_str(src: &str) -> Verdict {
    match parse::parse(src) {
        Ok(s) => run::run(&s, env::Conf::new()),
        Err(e) => Verdict::Error(format!("{e}")),
    }
}

/// Run a script file; errors name the file.
pub fn run_file(path: &Path) -> Verdict {
    match std::fs::read(path) {
        Ok(b) => match parse::parse(&String::from_utf8_lossy(&b)) {
            Ok(s) => run::run(&s, env::Conf::new()),
            Err(e) => Verdict::Error(format!("{}:{}: {}", path.display(), e.line, e.msg)),
        },
        Err(e) => Verdict::Error(format!("cannot read {}: {e}", path.display())),
    }
}

/// The scripts of `paths`: files as given, folders searched for `*.pkt` (sorted).
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let rd = std::fs::read_dir(d).map_err(|e| format!("cannot read {}: {e}", d.display()))?;
        let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        v.sort();
        for p in v {
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|x| x == "pkt") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Areas whose names have more than one word, as the kernel's `tcp_<area>_<name>.pkt`
/// files spell them (google/packetdrill's `gtests/net/tcp/<area>/` folders).
const AREAS: &[&str] = &[
    "slow_start",
    "fast_recovery",
    "fast_retransmit",
    "limited_transmit",
    "cwnd_moderation",
    "fastopen_server",
    "ts_recent",
    "user_timeout",
    "mtu_probe",
    "notsent_lowat",
    "syscall_bad_arg",
    "tcp_info",
];

/// The area of a script: its folder (google/packetdrill) or its name's prefix (the
/// kernel's `tcp_<area>_…`).
pub fn area(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(rest) = name.strip_prefix("tcp_") {
        if let Some(a) = AREAS.iter().find(|a| rest.starts_with(&format!("{a}_"))) {
            return a.to_string();
        }
        return rest.split(['_', '-', '.']).next().unwrap_or("").to_string();
    }
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Counts per area: pass, fail, not applicable, error.
pub fn summary(results: &[(PathBuf, Verdict)]) -> BTreeMap<String, [usize; 4]> {
    let mut m: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for (p, v) in results {
        let c = m.entry(area(p)).or_default();
        c[match v {
            Verdict::Pass => 0,
            Verdict::Fail { .. } => 1,
            Verdict::NotApplicable { .. } => 2,
            Verdict::Error(_) => 3,
        }] += 1;
    }
    m
}
