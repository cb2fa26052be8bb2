//! CUBIC — placeholder, being written from Linux `net/ipv4/tcp_cubic.c`.
use super::{CongestionOps, TcpCcState};

#[derive(Clone, Debug)]
pub struct Cubic {
    pub hystart: bool,
}
impl Default for Cubic {
    fn default() -> Self {
        Cubic { hystart: true }
    }
}
impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        (tp.snd_cwnd * 717 / 1024).max(2)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        super::reno::reno_cong_avoid(tp, acked)
    }
}
