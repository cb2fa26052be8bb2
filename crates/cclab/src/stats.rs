//! Small statistics helpers: quantiles with one definition and a stated precision, and
//! Jain's fairness index.
//!
//! **Quantiles** are *nearest-rank* everywhere in cclab's outputs: the q-quantile of n
//! samples is the ⌈q·n⌉-th smallest (at least the first), as hdrhistogram's
//! `value_at_quantile` defines it. Where the samples are few and bounded (ping RTTs, query
//! completion times) they are kept and sorted: the quantile is exact. A flow's RTT samples
//! are unbounded (one per ACK), so [`TimeStats`] keeps the first [`EXACT_SAMPLES`] exactly
//! and beyond that records them, in nanoseconds, into an HdrHistogram (the `hdrhistogram`
//! crate, a port of Gil Tene's HdrHistogram) with [`SIGFIG`] = 3 significant digits: the
//! quantile it reports is the upper edge of the bucket that holds the nearest-rank sample,
//! never below the exact value by more than the 1 ns the nanosecond truncation loses and
//! never above it by more than 1/1024 of it ([`REL_PRECISION`]), and never beyond the
//! largest sample. Its counts are 32-bit (half the memory of 64-bit ones: a long flow's
//! RTT histogram is about 57 KB, and a run may hold tens of thousands of them): one bucket
//! can count 4.29 × 10⁹ samples, some thirty times all the ACKs of the longest
//! reproduction (27 minutes at 1 Gbit/s, about 1.4 × 10⁸ segments), so none is lost.

use crate::engine::{secs, SimTime};
use hdrhistogram::Histogram;

/// Significant decimal digits the RTT histogram keeps (hdrhistogram's `sigfig`): with 3, a
/// value v ≥ 2048 ns lies in a bucket no wider than v/1024; below 2048 ns buckets are 1 ns.
pub const SIGFIG: u8 = 3;
/// The largest relative overstatement of a histogram quantile: 2^-10 (about 0.1%).
pub const REL_PRECISION: f64 = 1.0 / 1024.0;
/// Samples kept exactly before the histogram takes over: a short flow's quantiles are exact
/// and cost 1 KiB, not a histogram's tens of KiB (a run of 70,000 short connections).
pub const EXACT_SAMPLES: usize = 128;

/// The 0-based index of the nearest-rank q-quantile among `n` sorted samples (`n` > 0).
pub fn rank_index(n: usize, q: f64) -> usize {
    ((q * n as f64).ceil() as usize).clamp(1, n) - 1
}

/// The nearest-rank q-quantile of `sorted` (ascending), `None` when empty.
pub fn quantile_sorted<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    (!sorted.is_empty()).then(|| sorted[rank_index(sorted.len(), q)])
}

/// Durations (RTT samples) of one flow: count, mean, extremes, and quantiles — exact for the
/// first [`EXACT_SAMPLES`], then from an HdrHistogram of [`SIGFIG`] significant digits.
/// Nothing is allocated until the first sample; recording then allocates only when the
/// exact buffer is created, when it hands over to the histogram, and when a sample exceeds
/// the histogram's range (it doubles: about 20 times in a run of nanoseconds to seconds) —
/// never per sample.
#[derive(Clone, Debug, Default)]
pub struct TimeStats {
    pub n: u64,
    /// Σ samples in seconds (the mean is this over `n`).
    sum: f64,
    min: SimTime,
    max: SimTime,
    /// The samples while there are at most `EXACT_SAMPLES`, in picoseconds.
    exact: Vec<SimTime>,
    /// After that, every sample in nanoseconds.
    hist: Option<Box<Histogram<u32>>>,
}

impl TimeStats {
    #[inline]
    pub fn add(&mut self, t: SimTime) {
        if self.n == 0 {
            self.min = t;
            self.max = t;
        } else {
            self.min = self.min.min(t);
            self.max = self.max.max(t);
        }
        self.n += 1;
        self.sum += secs(t);
        match &mut self.hist {
            Some(h) => Self::record(h, t),
            None if self.exact.len() < EXACT_SAMPLES => {
                if self.exact.capacity() == 0 {
                    self.exact.reserve_exact(EXACT_SAMPLES);
                }
                self.exact.push(t);
            }
            None => self.hand_over(t),
        }
    }

    /// The exact buffer is full: every sample so far, and `t`, into a histogram.
    #[cold]
    fn hand_over(&mut self, t: SimTime) {
        let mut h = Histogram::<u32>::new(SIGFIG).expect("3 significant digits are valid");
        for &x in &self.exact {
            Self::record(&mut h, x);
        }
        Self::record(&mut h, t);
        self.exact = Vec::new();
        self.hist = Some(Box::new(h));
    }

    #[inline]
    fn record(h: &mut Histogram<u32>, t: SimTime) {
        // Picoseconds to nanoseconds; auto-resize covers any u64 nanosecond count below
        // i64::MAX / 2 (292 years), far beyond the longest run, so this never fails.
        let _ = h.record(t / 1000);
    }

    /// The mean in seconds.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    /// The nearest-rank q-quantile in seconds (0 < q ≤ 1), within the precision stated at
    /// the top of this file.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        match &self.hist {
            Some(h) => {
                let ns = h.value_at_quantile(q);
                Some(secs(ns.saturating_mul(1000).clamp(self.min, self.max)))
            }
            None => {
                let mut v = self.exact.clone();
                v.sort_unstable();
                quantile_sorted(&v, q).map(secs)
            }
        }
    }
}

/// Jain's fairness index (Σx)² / (n·Σx²) (Jain, Chiu & Hawe 1984).
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        return 1.0;
    }
    s * s / (xs.len() as f64 * s2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_reference_values() {
        // REFERENCE.md §7 unit checks.
        assert!((jain(&[1.0, 1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain(&[3.0, 1.0]) - 0.8).abs() < 1e-12);
        let mut v = vec![46.0; 10];
        v.extend(vec![54.0; 10]);
        assert!((jain(&v) - 0.9936).abs() < 1e-4);
    }

    #[test]
    fn nearest_rank_definition() {
        let v: Vec<u32> = (1..=100).collect();
        assert_eq!(quantile_sorted(&v, 0.99), Some(99));
        assert_eq!(quantile_sorted(&v, 0.5), Some(50));
        assert_eq!(quantile_sorted(&v, 0.991), Some(100));
        assert_eq!(quantile_sorted(&v, 1.0), Some(100));
        assert_eq!(quantile_sorted(&v, 0.0), Some(1));
        assert_eq!(quantile_sorted(&[7u32], 0.99), Some(7));
        assert_eq!(quantile_sorted::<u32>(&[], 0.5), None);
    }

    /// xorshift64*: a fixed stream of test values without a dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        /// Uniform in [0, 1).
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Every quantile `TimeStats` reports against the exact one from sorting the same
    /// picosecond samples: never above it by more than 1/1024, never below it by more than
    /// the nanosecond truncation, never beyond the largest sample.
    fn check(name: &str, samples: &[SimTime]) {
        let mut st = TimeStats::default();
        for &t in samples {
            st.add(t);
        }
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        let exact_mean = samples.iter().map(|&t| secs(t)).sum::<f64>() / samples.len() as f64;
        assert!((st.mean().unwrap() - exact_mean).abs() <= 1e-12 * exact_mean.max(1.0));
        for q in [
            1e-6, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0,
        ] {
            let exact = secs(quantile_sorted(&sorted, q).unwrap());
            let got = st.quantile(q).unwrap();
            assert!(
                got <= exact * (1.0 + REL_PRECISION) && got >= exact - 1e-9,
                "{name}: n = {}, q = {q}: {got} vs exact {exact}",
                samples.len()
            );
            assert!(
                got <= secs(*sorted.last().unwrap()),
                "{name}: q = {q} beyond the max"
            );
            if samples.len() <= EXACT_SAMPLES {
                assert_eq!(got, exact, "{name}: few samples are exact");
            }
        }
    }

    const US: SimTime = crate::engine::US;
    const MS: SimTime = crate::engine::MS;
    const SEC: SimTime = crate::engine::SEC;

    #[test]
    fn rtt_quantiles_match_exact_ones_on_random_distributions() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        for n in [1, 2, 3, 10, 127, 128, 129, 1000, 100_000] {
            // Uniform 10 µs … 10 ms.
            let v: Vec<SimTime> = (0..n)
                .map(|_| 10 * US + (r.unit() * 10e9) as SimTime)
                .collect();
            check("uniform", &v);
            // Log-uniform over nine decades, 1 ns … 1 s: every bucket size at once.
            let v: Vec<SimTime> = (0..n)
                .map(|_| (1e3 * 10f64.powf(r.unit() * 9.0)) as SimTime)
                .collect();
            check("log-uniform", &v);
            // Exponential tail above a 20 ms base RTT (queueing delay).
            let v: Vec<SimTime> = (0..n)
                .map(|_| 20 * MS + (-(1.0 - r.unit()).ln() * 2e9) as SimTime)
                .collect();
            check("exponential", &v);
        }
    }

    #[test]
    fn rtt_quantiles_match_exact_ones_on_adversarial_distributions() {
        let n = 10_000;
        // One value repeated.
        check("constant", &vec![20 * MS + 7; n]);
        // Two far-apart masses with the p99 on the boundary: 99% at 100 µs, 1% at 200 ms.
        let mut v = vec![100 * US; n * 99 / 100];
        v.extend(vec![200 * MS; n / 100]);
        check("two masses", &v);
        // Values on and beside hdrhistogram's bucket edges (powers of two, in ns).
        let v: Vec<SimTime> = (0..n)
            .map(|i| {
                let edge = 1u64 << (10 + i % 30);
                (edge + (i / 30 % 3) as u64 - 1) * 1000
            })
            .collect();
        check("bucket edges", &v);
        // A single outlier of 1000 s among microsecond samples: the p100 is the outlier.
        let mut v = vec![3 * US; n];
        v.push(1000 * SEC);
        check("outlier", &v);
        // Sub-nanosecond differences (picoseconds) that the histogram cannot see.
        let v: Vec<SimTime> = (0..n as u64).map(|i| 50 * US + i % 1000).collect();
        check("picoseconds", &v);
        // Sorted ascending and descending: the order of arrival does not matter.
        let mut v: Vec<SimTime> = (1..=n as u64).map(|i| i * 37 * US).collect();
        check("ascending", &v);
        v.reverse();
        check("descending", &v);
    }
}
