//! Our own packetdrill scripts (`tests/packetdrill/*.pkt`, written for cclab from the RFCs
//! and Linux functions each names) run against cclab's TCP sender: every one must pass.

use cclab::packetdrill::{collect, run_file, Verdict};
use std::path::PathBuf;

#[test]
fn own_packetdrill_scripts_pass() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/packetdrill");
    let files = collect(&[dir]).expect("the script folder");
    assert!(files.len() >= 19, "scripts found: {files:?}");
    let bad: Vec<String> = files
        .iter()
        .filter_map(|f| match run_file(f) {
            Verdict::Pass => None,
            v => Some(format!("{}: {v}", f.display())),
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The runner can fail: a script expecting what cclab does not do is reported with its
/// line and the mismatch.
#[test]
fn a_wrong_expectation_fails_with_its_line() {
    let src = "`../common/defaults.sh`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 bind(3, ..., ...) = 0\n+0 listen(3, 1) = 0\n\
               +0 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n\
               +0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 7>\n";
    match cclab::packetdrill::run_str(src) {
        Verdict::Fail { line, msg } => {
            assert_eq!(line, 6);
            assert!(msg.contains("wscale 8"), "{msg}");
        }
        v => panic!("{v}"),
    }
    let late = src
        .replace("wscale 7>\n", "wscale 8>\n")
        .replace("+0 > S.", "+.1 > S.");
    assert!(
        matches!(cclab::packetdrill::run_str(&late), Verdict::Fail { ref msg, .. } if msg.contains("timing error")),
        "{}",
        cclab::packetdrill::run_str(&late)
    );
}

/// The 3.18 scripts test their mechanism: with its sysctl off, the retransmission they
/// expect at once (FACK) or after the early-retransmit delay (25 ms) comes only with the
/// RTO, 0.4 s into the script, and the script fails at that line.
#[test]
fn fack_and_early_retransmit_scripts_fail_without_their_sysctl() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/packetdrill");
    for (file, on, off, line) in [
        ("fack.pkt", "tcp_fack=1", "tcp_fack=0", 22),
        (
            "early-retransmit.pkt",
            "tcp_early_retrans=3",
            "tcp_early_retrans=4",
            23,
        ),
    ] {
        let src = std::fs::read_to_string(dir.join(file)).expect("the script");
        assert!(src.contains(on), "{file}");
        match cclab::packetdrill::run_str(&src.replace(on, off)) {
            Verdict::Fail { line: l, msg } => {
                assert_eq!(l, line, "{file}: {msg}");
                assert!(msg.contains("sent at 0.400000 s"), "{file}: {msg}");
            }
            v => panic!("{file} with {off}: {v}"),
        }
    }
}

/// Retransmissions of whole skbs (rtx-gso.pkt) are Linux 4.x–6.x; with `tso_retrans` off
/// (3.18 and 2.6: `__tcp_retransmit_skb` cuts to one MSS) the first hole goes again as
/// single segments and the script fails at its first GSO retransmission.
#[test]
fn gso_retransmission_script_fails_without_tso_retrans() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/packetdrill");
    let src = std::fs::read_to_string(dir.join("rtx-gso.pkt")).expect("the script");
    // The second `P. 1:2001` is the retransmission; the option line comes first.
    let line = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("> P. 1:2001(2000)"))
        .nth(1)
        .expect("the retransmission line")
        .0
        + 1;
    // Today's profile with the one rule of 3.18 and 2.6 that the script tests: every
    // retransmission cut to one segment (`tso_retrans = false`; the 3.18 profile also
    // sends its first flight without PSH on GSO packets, `gso_push`, and fails there).
    let script = cclab::packetdrill::parse::parse(&src).expect("the script parses");
    let mut conf = cclab::packetdrill::env::Conf::new();
    conf.cfg.tso_retrans = false;
    match cclab::packetdrill::run::run(&script, conf) {
        Verdict::Fail { line: l, msg } => {
            assert_eq!(l, line, "{msg}");
            assert!(msg.contains("expected P. but got ."), "{msg}");
        }
        v => panic!("rtx-gso.pkt with tso_retrans = false: {v}"),
    }
    // And the 3.18 profile fails it (at its first GSO packet, before the retransmission).
    assert!(matches!(
        cclab::packetdrill::run_str(&format!("--linux=3.18\n{src}")),
        Verdict::Fail { .. }
    ));
}

/// hystart-low-window.pkt follows v6.6's HyStart (rounds only from cwnd 16); with the
/// later rule (`hystart_round_fix`, Linux 25c1a9ca53db) rounds start below 16 too, the
/// 9th sample of a round comes two ACKs later, and the script fails at its exit check.
#[test]
fn hystart_script_fails_with_the_2025_round_rule() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/packetdrill");
    let src = std::fs::read_to_string(dir.join("hystart-low-window.pkt")).expect("the script");
    let line = src
        .lines()
        .position(|l| l.contains("assert tcpi_snd_ssthresh == 55"))
        .expect("the exit check")
        + 1;
    let script = cclab::packetdrill::parse::parse(&src).expect("the script parses");
    let mut conf = cclab::packetdrill::env::Conf::new();
    conf.cfg.cc_options.cubic.hystart_round_fix = true;
    match cclab::packetdrill::run::run(&script, conf) {
        Verdict::Fail { line: l, msg } => {
            assert_eq!(l, line, "{msg}");
            assert!(msg.contains("tcpi_snd_ssthresh = 2147483647"), "{msg}");
        }
        v => panic!("hystart-low-window.pkt with hystart_round_fix: {v}"),
    }
}
