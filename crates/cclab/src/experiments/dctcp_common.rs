//! The seed 000 switch port and DCTCP endpoints, shared by the DCTCP experiments.
//!
//! Port: two queues selected by DSCP, as the seed describes ("for any packet with a DSCP of
//! 0x01 … the DCTCP queue … all other packets … the default drop-tail queue"); RED/ECN
//! marking at K on the DCTCP queue; deficit round robin between them (the seed does not
//! say; commodity switch ASICs default to WRR/DRR — with one class active at a time, as in
//! every seed test, the choice does not change the results); one buffer shared by both.

use crate::scenario::*;

/// DSCP of the DCTCP queue: 0x01, i.e. TOS 0x04 (ping -Q 0x6 = DSCP 1 + ECT(0)).
pub const DCTCP_DSCP: u8 = 1;

/// The seed's two-queue port with marking threshold `k` and a shared `buffer`.
pub fn seed_port(k: Limit, buffer: Limit) -> QueueSpec {
    QueueSpec::dscp(
        vec![
            ClassSpec {
                dscp: vec![DCTCP_DSCP],
                queue: QueueSpec::ecn(buffer, k),
                weight: 1,
            },
            ClassSpec {
                dscp: vec![],
                queue: QueueSpec::droptail(buffer),
                weight: 1,
            },
        ],
        Sched::Drr,
        Some(buffer),
    )
}

/// The IP MTU of the seed's hosts: 9000 bytes (jumbo frames). The seed does not state it,
/// but its throughputs need it: one flow at 9.87-9.93 Gbit/s and 19 iperf flows summing to
/// 9.91-9.92 Gbit/s of TCP payload exceed what 10 GbE carries in 1500-byte frames (1448 B
/// of payload per 1538 B on the wire: 9.41 Gbit/s) and sit at what it carries in 9000-byte
/// frames (8,948 per 9,038: 9.90). With 1500-byte frames the model also converges CUBIC more
/// slowly than the seed's table 4 and loses fewer Not-ECT SYNs than its SYN/ACK table; with
/// 9000 both come near the seed (`dctcp-incast` runs the 1500-byte case beside, rows
/// `mtu1500_*`). The `mss:1448` of the seed's `ss` example is a path of 2.3 ms RTT, not
/// these tests.
pub const SEED_MTU: u32 = 9000;

/// The seed's DCTCP: the module its commit message added, as Linux 3.18 merged it
/// (`cc/dctcp_318.rs`), which the `dctcp` variant of these experiments runs. Today's module
/// (`cc = "dctcp"`) counts alpha in segments and halves on a loss; `dctcp-incast` runs it
/// beside (rows `dscp0_linux_*`).
pub const SEED_DCTCP_MODULE: &str = "dctcp-3.18";

/// TCP for a variant: `dctcp` (the seed's module, [`SEED_DCTCP_MODULE`], DSCP 1, ECN) or `cubic`
/// (default queue), large buffers, the seed's MTU.
pub fn endpoint(cc: &str) -> TcpConfig {
    let mut t = super::common::tcp(if cc == "dctcp" { SEED_DCTCP_MODULE } else { cc });
    t.mtu = SEED_MTU;
    if cc == "dctcp" {
        t.dscp = DCTCP_DSCP;
    }
    t
}
