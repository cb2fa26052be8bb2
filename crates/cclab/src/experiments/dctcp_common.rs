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

/// TCP for a variant: `dctcp` (DSCP 1, ECN) or `cubic` (default queue), large buffers.
pub fn endpoint(cc: &str) -> TcpConfig {
    let mut t = super::common::tcp(cc);
    if cc == "dctcp" {
        t.dscp = DCTCP_DSCP;
    }
    t
}
