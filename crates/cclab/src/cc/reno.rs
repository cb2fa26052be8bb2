//! Reno ("Standard TCP"): Linux `net/ipv4/tcp_cong.c` — `tcp_reno_cong_avoid`,
//! `tcp_reno_ssthresh`, `tcp_reno_undo_cwnd`. RFC 5681 gives the algorithm; Linux counts
//! growth in acked segments (appropriate byte counting with L = ∞), so delayed ACKs do not
//! halve the congestion-avoidance slope (docs/references.md §2, §8.3).

use super::{CongestionOps, TcpCcState};
use crate::schema::Schema;

#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

/// No options of its own (see [`OPTIONS`]'s text).
impl super::Configure for Reno {
    type Options = ();
    const OPTIONS: &'static Schema = &OPTIONS;
}

/// Says, in `cclab list` and docs/scenario.md, why there are no keys.
static OPTIONS: Schema = super::none_in_source(
    "Reno options",
    "No options: Linux's Reno (`tcp_cong.c`: `tcp_reno_ssthresh`, `tcp_reno_cong_avoid`) has no module parameters, and RFC 5681 none beyond TCP's own keys (`init_cwnd`, `init_ssthresh`).",
);

impl CongestionOps for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    /// `tcp_reno_ssthresh`.
    fn ssthresh(&mut self, tp: &mut TcpCcState) -> u32 {
        reno_ssthresh(tp)
    }

    /// `tcp_reno_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpCcState, acked: u32) {
        reno_cong_avoid(tp, acked)
    }
}

/// `tcp_reno_ssthresh`: max(cwnd >> 1, 2), shared by the modules that halve on a loss
/// (DCTCP's fallback and loss response, Vegas, FAST).
pub fn reno_ssthresh(tp: &TcpCcState) -> u32 {
    (tp.snd_cwnd >> 1).max(2)
}

/// `tcp_reno_cong_avoid`, shared by modules that grow like Reno (DCTCP, Vegas fallback…).
pub fn reno_cong_avoid(tp: &mut TcpCcState, acked: u32) {
    let Some(acked) = tp.ca_acked(acked) else {
        return;
    };
    // In dangerous area, increase slowly.
    let w = tp.snd_cwnd;
    tp.cong_avoid_ai(w, acked);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reno_doubles_per_rtt_in_slow_start_and_adds_one_in_ca() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        let mut r = Reno;
        // One RTT: every segment of the window acked one at a time.
        for rtt in 0..3 {
            let w = tp.snd_cwnd;
            for _ in 0..w {
                r.cong_avoid(&mut tp, 1);
            }
            assert_eq!(tp.snd_cwnd, 10 << (rtt + 1));
        }
        tp.snd_ssthresh = 80;
        // Delayed ACKs (2 segments per ACK) still give +1 per RTT: Linux counts segments.
        for _ in 0..40 {
            r.cong_avoid(&mut tp, 2);
        }
        assert_eq!(tp.snd_cwnd, 81);
        assert_eq!(r.ssthresh(&mut tp), 40);
        tp.snd_cwnd = 3;
        assert_eq!(r.ssthresh(&mut tp), 2);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut tp = TcpCcState::new(1448, 10, u32::MAX);
        tp.is_cwnd_limited = false;
        Reno.cong_avoid(&mut tp, 5);
        assert_eq!(tp.snd_cwnd, 10);
    }
}
