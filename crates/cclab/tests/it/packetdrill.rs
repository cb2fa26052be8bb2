//! Our own packetdrill scripts (`tests/packetdrill/*.pkt`, written for cclab from the RFCs
//! and Linux functions each names) run against cclab's TCP sender: every one must pass.

use cclab::packetdrill::{collect, run_file, Verdict};
use std::path::PathBuf;

#[test]
fn own_packetdrill_scripts_pass() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/packetdrill");
    let files = collect(&[dir]).expect("the script folder");
    assert!(files.len() >= 14, "scripts found: {files:?}");
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
