//! Every flow's RTT samples (as the sender's estimator takes them: Karn's rule, the
//! timestamp echo), for the mean and p99 in the results: exact for a short flow, then in
//! an HdrHistogram of 3 significant digits (`stats::TimeStats` states the precision).

use crate::stats::TimeStats;
use crate::tcp::TcpConn;

#[derive(Default)]
pub struct RttProbe {
    pub hist: Vec<TimeStats>,
    /// The sender's sample count at the last look, per connection.
    seen: Vec<u64>,
}

impl RttProbe {
    pub fn new(n: usize) -> RttProbe {
        RttProbe {
            hist: vec![TimeStats::default(); n],
            seen: vec![0; n],
        }
    }

    /// Room for `n` connections (a workload's new slot).
    pub fn grow(&mut self, n: usize) {
        self.hist.resize_with(n, TimeStats::default);
        self.seen.resize(n, 0);
    }

    /// Connection `i` closed: its slot starts afresh for the next one.
    pub fn forget(&mut self, i: usize) {
        self.hist[i] = TimeStats::default();
        self.seen[i] = 0;
    }

    /// The sender of `conn` has handled a packet: record the sample it took, if any.
    #[inline]
    pub fn after_packet(&mut self, conn: u32, c: &TcpConn) {
        let i = conn as usize;
        let n = c.sender.rtt.samples;
        if n != self.seen[i] {
            self.seen[i] = n;
            self.hist[i].add(c.sender.rtt.latest);
        }
    }
}
