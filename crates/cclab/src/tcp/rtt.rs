//! Round-trip time estimation and the retransmission timeout.
//!
//! Linux (default): `tcp_rtt_estimator` + `__tcp_set_rto` in `net/ipv4/tcp_input.c`
//! (srtt ×8, mdev ×4, `mdev_max` reset to `rto_min` each RTT, `rttvar` decaying towards it),
//! so RTO ≈ srtt + max(4·mdev, rto_min). We keep the same shifts in nanoseconds instead of
//! microseconds (the simulator has no clock granularity to imitate).
//!
//! RFC 6298 (option): SRTT/RTTVAR with α = 1/8, β = 1/4, RTO = SRTT + max(G, 4·RTTVAR),
//! floored at `rto_min` (the RFC's 1 s when the scenario asks for it), G = 0.

use crate::engine::{SimTime, NS};
use crate::tcp::config::RtoMode;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    mode: RtoMode,
    rto_min_ns: i64,
    rto_max: SimTime,
    /// Linux: srtt ×8 (ns). RFC: SRTT (ns).
    srtt: i64,
    /// Linux: mdev ×4 (ns). RFC: RTTVAR (ns).
    mdev: i64,
    mdev_max: i64,
    rttvar: i64,
    /// Sequence number after which the next per-RTT decay happens (Linux `rtt_seq`).
    rtt_seq: u64,
    /// Latest RTO (without backoff).
    rto: SimTime,
    pub min_rtt: SimTime,
    pub latest: SimTime,
    pub samples: u64,
}

impl RttEstimator {
    pub fn new(mode: RtoMode, rto_min: SimTime, rto_max: SimTime, rto_initial: SimTime) -> Self {
        RttEstimator {
            mode,
            rto_min_ns: (rto_min / NS) as i64,
            rto_max,
            srtt: 0,
            mdev: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: 0,
            rto: rto_initial,
            min_rtt: SimTime::MAX,
            latest: 0,
            samples: 0,
        }
    }

    pub fn has_sample(&self) -> bool {
        self.samples > 0
    }

    /// Smoothed RTT.
    pub fn srtt(&self) -> SimTime {
        match self.mode {
            RtoMode::Linux => (self.srtt >> 3) as SimTime * NS,
            RtoMode::Rfc6298 => self.srtt as SimTime * NS,
        }
    }

    /// Mean deviation as `ss` shows it (Linux `mdev_us >> 2`; RFC RTTVAR).
    pub fn rttvar(&self) -> SimTime {
        match self.mode {
            RtoMode::Linux => (self.mdev >> 2) as SimTime * NS,
            RtoMode::Rfc6298 => self.mdev as SimTime * NS,
        }
    }

    /// The current RTO without backoff.
    pub fn rto(&self) -> SimTime {
        self.rto
    }

    /// Override the RTO before any sample (Linux `TCP_TIMEOUT_FALLBACK` after a lost SYN).
    pub fn set_rto_no_sample(&mut self, rto: SimTime) {
        if self.samples == 0 {
            self.rto = rto.min(self.rto_max);
        }
    }

    /// Feed one RTT sample `m`; `snd_una`/`snd_nxt` drive Linux's once-per-RTT decay.
    pub fn sample(&mut self, m: SimTime, snd_una: u64, snd_nxt: u64) {
        self.samples += 1;
        self.latest = m;
        self.min_rtt = self.min_rtt.min(m);
        let m = ((m / NS) as i64).max(1);
        match self.mode {
            RtoMode::Linux => self.linux(m, snd_una, snd_nxt),
            RtoMode::Rfc6298 => self.rfc(m),
        }
    }

    fn linux(&mut self, mrtt: i64, snd_una: u64, snd_nxt: u64) {
        let mut m = mrtt;
        let mut srtt = self.srtt;
        if srtt != 0 {
            m -= srtt >> 3; // m is now error in rtt est
            srtt += m; // rtt = 7/8 rtt + 1/8 new
            if m < 0 {
                m = -m; // m is now abs(error)
                m -= self.mdev >> 2; // similar update on mdev
                                     // Growth of the error is damped when the RTT falls (Eifel-style).
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev >> 2;
            }
            self.mdev += m; // mdev = 3/4 mdev + 1/4 new
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                if self.mdev_max > self.rttvar {
                    self.rttvar = self.mdev_max;
                }
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = self.rto_min_ns;
            }
        } else {
            // No previous measure.
            srtt = m << 3; // take the measured time to be rtt
            self.mdev = m << 1; // make sure rto = 3*rtt
            self.rttvar = self.mdev.max(self.rto_min_ns);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        self.srtt = srtt.max(1);
        // __tcp_set_rto: (srtt >> 3) + rttvar, bounded by TCP_RTO_MAX.
        let rto = ((self.srtt >> 3) + self.rttvar) as SimTime * NS;
        self.rto = rto.min(self.rto_max);
    }

    fn rfc(&mut self, r: i64) {
        if self.srtt == 0 {
            self.srtt = r;
            self.mdev = r / 2;
        } else {
            // RTTVAR first, with the old SRTT (RFC 6298 §2.3).
            self.mdev = (3 * self.mdev + (self.srtt - r).abs()) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        let rto = (self.srtt + 4 * self.mdev).max(self.rto_min_ns) as SimTime * NS;
        self.rto = rto.min(self.rto_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC, US};

    #[test]
    fn linux_first_sample_gives_srtt_plus_floor() {
        // LNX-3: R = 100 ms → 100 + max(200, 200) = 300 ms.
        let mut e = RttEstimator::new(RtoMode::Linux, 200 * MS, 120 * SEC, SEC);
        e.sample(100 * MS, 0, 1000);
        assert_eq!(e.rto(), 300 * MS);
        assert_eq!(e.srtt(), 100 * MS);
    }

    #[test]
    fn linux_steady_state_rto_is_srtt_plus_200ms() {
        // LNX-1 / LNX-2: constant RTT → RTO ≈ srtt + 200 ms (±5 ms / ±1 ms).
        for (rtt, tol) in [(100 * MS, 5 * MS), (100 * US, MS)] {
            let mut e = RttEstimator::new(RtoMode::Linux, 200 * MS, 120 * SEC, SEC);
            for i in 0..200u64 {
                e.sample(rtt, i * 10 + 1, i * 10 + 10);
            }
            let want = rtt + 200 * MS;
            assert!(
                e.rto().abs_diff(want) <= tol,
                "rtt {rtt}: rto {} want {want}",
                e.rto()
            );
        }
    }

    #[test]
    fn rfc6298_first_sample_is_3r_floored_at_1s() {
        let mut e = RttEstimator::new(RtoMode::Rfc6298, SEC, 120 * SEC, SEC);
        e.sample(100 * MS, 0, 1);
        assert_eq!(e.rto(), SEC);
        let mut e = RttEstimator::new(RtoMode::Rfc6298, 0, 120 * SEC, SEC);
        e.sample(100 * MS, 0, 1);
        assert_eq!(e.rto(), 300 * MS);
        // Steady state: RTTVAR decays, RTO → SRTT.
        for _ in 0..100 {
            e.sample(100 * MS, 0, 1);
        }
        assert!(e.rto() < 101 * MS);
    }
}
