//! Simulated time, the event queue and deterministic random streams.
//!
//! Time is an integer number of picoseconds in a `u64` (`SimTime`): 1500 B at 400 Gb/s is
//! exactly 30,000 ps, and 2^64 ps is about 213 days of simulated time. The event queue is
//! ordered by (time, insertion sequence), so two events at the same instant always run in
//! the order they were scheduled: runs are reproducible bit for bit.
//!
//! Random numbers come from per-component streams derived from one master seed with
//! SplitMix64, each stream a xoshiro256** generator (Blackman & Vigna). The generators are
//! written out here, not taken from a crate, so a dependency upgrade can never change a
//! published result.

use std::mem::MaybeUninit;
use std::ptr;

/// Simulated time in picoseconds.
pub type SimTime = u64;

pub const PS: SimTime = 1;
pub const NS: SimTime = 1_000;
pub const US: SimTime = 1_000_000;
pub const MS: SimTime = 1_000_000_000;
pub const SEC: SimTime = 1_000_000_000_000;

/// Seconds as f64 from a `SimTime`.
#[inline]
pub fn secs(t: SimTime) -> f64 {
    t as f64 / SEC as f64
}

/// A `SimTime` from seconds (rounded to the nearest picosecond).
#[inline]
pub fn from_secs(s: f64) -> SimTime {
    (s * SEC as f64).round() as SimTime
}

/// Time to serialise `bytes` at `rate_bps`, in picoseconds, rounded up so a link never
/// carries more than its rate.
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> SimTime {
    // A packet's bit-picoseconds fit in 64 bits (up to 2.3 MB); a 64-bit division is several
    // times cheaper than the 128-bit one needed beyond that. Both give the same result.
    if bytes <= (u64::MAX / (8 * SEC)) {
        return (bytes * 8 * SEC).div_ceil(rate_bps);
    }
    let bits = bytes as u128 * 8 * SEC as u128;
    bits.div_ceil(rate_bps as u128) as SimTime
}

/// Ask the CPU to bring the cache line at `p` into its first-level cache, without waiting
/// for it: for state the next event will read (`Sim::step_until`). A hint only: it never
/// faults, whatever the address, and changes no result.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch reads nothing architecturally and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

mod queue;
mod rng;
#[cfg(test)]
mod tests;
mod timer;
mod wheel;

pub use queue::EventQueue;
pub use rng::*;
pub use timer::*;
use wheel::*;
