//! No congestion avoidance: the Ouroboros prototype's `ca-nop.c` (0.18.0,
//! `src/ipcpd/unicast/pol/ca-nop.c`). Every packet may leave at once, the receiver never
//! asks for a FLOW_UPDATE, a FLOW_UPDATE changes nothing, and routers leave the ECN octet
//! as it is (`nop_calc_ecn` returns without touching it). It has no statistics
//! (`print_stats = NULL`).

use super::CongestionApi;

#[derive(Clone, Copy, Debug, Default)]
pub struct Nop;

impl CongestionApi for Nop {
    fn update_context_at_sender(&mut self, _now_ns: u64, _len: usize) -> i64 {
        0
    }
    fn update_context_at_receiver(&mut self, _len: usize, _ecn: u8) -> Option<u16> {
        None
    }
    fn update_context_at_sender_ece(&mut self, _ece: u16) {}
    fn update_ecn_in_router(&self, ecn: u8, _queue: usize) -> u8 {
        ecn
    }
    fn print_stats(&self, _out: &mut String) {}
}
