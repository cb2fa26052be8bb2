//! Small statistics helpers: quantiles with one definition and a stated precision, and
//! Jain's fairness index.
//!
//! **Quantiles** are *nearest-rank* everywhere in cclab's outputs: the q-quantile of n
//! samples is the ⌈q·n⌉-th smallest (at least the first), as hdrhistogram's
//! `value_at_quantile` defines it. Where the samples are few and bounded (ping RTTs, query
//! completion times) they are kept and sorted: the quantile is exact. A flow's RTT samples
//! are unbounded (one per ACK), so [`TimeStats`] keeps the first [`EXACT_SAMPLES`] exactly
//! and beyond that records them, in nanoseconds, into an HdrHistogram ([`Hdr`]: Gil Tene's
//! HdrHistogram with [`SIGFIG`] = 3 significant digits, the buckets and the quantile of
//! the `hdrhistogram` crate's `Histogram`, which the tests check it against): the quantile
//! it reports is the upper edge of the bucket that holds the nearest-rank sample, never
//! below the exact value by more than the 1 ns the nanosecond truncation loses and never
//! above it by more than 1/1024 of it ([`REL_PRECISION`]), and never beyond the largest
//! sample. Its counts are 32-bit: one bucket can count 4.29 × 10⁹ samples, some thirty
//! times all the ACKs of the longest reproduction (27 minutes at 1 Gbit/s, about 1.4 × 10⁸
//! segments), so none is lost.

use crate::engine::{secs, SimTime};

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
/// exact buffer is created, when it hands over to the histogram, and when a sample falls in
/// a power-of-two range of values no earlier one did ([`Hdr`]) — never per sample.
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
    hist: Option<Box<Hdr>>,
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
        let mut h = Hdr::default();
        for &x in &self.exact {
            Self::record(&mut h, x);
        }
        Self::record(&mut h, t);
        self.exact = Vec::new();
        self.hist = Some(Box::new(h));
    }

    #[inline]
    fn record(h: &mut Hdr, t: SimTime) {
        // Picoseconds to nanoseconds.
        h.record(t / 1000);
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

/// Bucket `b` of an HdrHistogram of 3 significant digits (lowest value 1) holds the values
/// of `2^b · [1024, 2048)` in 1024 sub-buckets of `2^b`; below 2048 every value has its
/// own. A value's index in the one array of counts is `b·1024 + (v >> b)`: values below
/// 1024 are indices 0–1023, bucket `b` is indices `(b + 1)·1024 …`.
const HDR_HALF_MAG: u32 = 10;
const HDR_HALF: usize = 1 << HDR_HALF_MAG;
/// `64 − log2(2048)`: `63 − b` leading zeros for a value of bucket `b` (the mask puts every
/// value below 2048 in bucket 0).
const HDR_LZ_BASE: u32 = 53;
const HDR_MASK: u64 = 2 * HDR_HALF as u64 - 1;

/// An HdrHistogram of [`SIGFIG`] = 3 significant digits over u64 values from 0 (Gil Tene's
/// design; the buckets, indices and `value_at_quantile` of the `hdrhistogram` crate's
/// `Histogram::<u32>::new(3)`, which the tests compare it with), with the array of counts
/// cut into blocks of 1,024 — one per power of two of the values — allocated when a value
/// first falls in them. A flow's RTTs span a few powers of two: it holds a few 4 KiB
/// blocks, where one array from 0 to the largest value (the crate's) is 44 KiB when that
/// is 1 ms, and is copied each time a larger value makes it grow. On the 1,000-sender
/// dumbbell (`bench/dctcp10.toml`, `topology.senders=1000`) the run's peak memory fell
/// from 48.8 to 33.6 MiB and valgrind's last-level misses (2 MB model) by a fifth.
#[derive(Clone, Debug, Default)]
pub struct Hdr {
    blocks: Vec<Option<Box<[u32; HDR_HALF]>>>,
    total: u64,
}

impl Hdr {
    /// The bucket of value `v`.
    #[inline]
    fn bucket(v: u64) -> u32 {
        HDR_LZ_BASE - (v | HDR_MASK).leading_zeros()
    }

    /// The index of value `v` among all the counts.
    #[inline]
    fn index(v: u64) -> usize {
        let b = Self::bucket(v);
        ((b as usize) << HDR_HALF_MAG) + (v >> b) as usize
    }

    /// The lowest value of the counts' index `i` (the crate's `value_for`).
    fn value_of(i: usize) -> u64 {
        let block = i >> HDR_HALF_MAG;
        if block == 0 {
            return i as u64;
        }
        let b = block - 1;
        (((i & (HDR_HALF - 1)) + HDR_HALF) as u64) << b
    }

    /// The highest value that falls in the same sub-bucket as `v`.
    fn highest_equivalent(v: u64) -> u64 {
        let b = Self::bucket(v);
        let lowest = (v >> b) << b;
        lowest.saturating_add(1 << b) - 1
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = Self::index(v);
        let block = i >> HDR_HALF_MAG;
        if block >= self.blocks.len() || self.blocks[block].is_none() {
            self.add_block(block);
        }
        let Some(counts) = self.blocks[block].as_deref_mut() else {
            unreachable!("the block was just added");
        };
        let c = &mut counts[i & (HDR_HALF - 1)];
        *c = c.saturating_add(1);
        self.total += 1;
    }

    #[cold]
    fn add_block(&mut self, block: usize) {
        if block >= self.blocks.len() {
            self.blocks.resize(block + 1, None);
        }
        self.blocks[block] = Some(Box::new([0; HDR_HALF]));
    }

    /// Samples recorded.
    pub fn len(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The nearest-rank q-quantile: the highest value of the sub-bucket holding the
    /// ⌈q·n⌉-th smallest sample (at least the first; q = 0: the lowest value of the first
    /// one's sub-bucket), as the crate's `value_at_quantile`. 0 when empty.
    pub fn value_at_quantile(&self, q: f64) -> u64 {
        let q = if q > 1.0 { 1.0 } else { q };
        let target = ((q * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (block, counts) in self.blocks.iter().enumerate() {
            let Some(counts) = counts else { continue };
            for (j, &c) in counts.iter().enumerate() {
                seen += u64::from(c);
                if seen >= target {
                    let v = Self::value_of((block << HDR_HALF_MAG) + j);
                    return if q == 0.0 {
                        v
                    } else {
                        Self::highest_equivalent(v)
                    };
                }
            }
        }
        0
    }

    /// Heap bytes held (for tests of memory per flow).
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Option<Box<[u32; HDR_HALF]>>>()
            + self.blocks.iter().flatten().count() * HDR_HALF * 4
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
        // docs/references.md §7 unit checks.
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

    /// `Hdr` gives the `hdrhistogram` crate's answers (`Histogram::<u32>::new(3)`, the
    /// histogram it follows): the same quantiles, sample for sample, on every distribution
    /// of the tests above and on values around every power of two up to 2^62.
    #[test]
    fn the_histogram_answers_as_the_hdrhistogram_crate() {
        let mut r = Rng(0x2545_F491_4F6C_DD1D);
        let mut sets: Vec<Vec<u64>> = vec![
            (0..5000).map(|_| (r.unit() * 1e7) as u64).collect(),
            (0..5000)
                .map(|_| 10f64.powf(r.unit() * 12.0) as u64)
                .collect(),
            (0..3000)
                .map(|i| (1u64 << (i % 63)) + (i / 63 % 3) as u64 - 1)
                .collect(),
            vec![0, 0, 1, 1023, 1024, 2047, 2048, 2049, 4095, 4096],
            vec![123_456; 10],
            vec![u64::MAX / 2, 1, u64::MAX / 4],
        ];
        for n in [1, 2, 7, 100] {
            sets.push((0..n).map(|_| 20_000 + (r.unit() * 2e6) as u64).collect());
        }
        for v in &sets {
            let mut ours = Hdr::default();
            let mut theirs = hdrhistogram::Histogram::<u32>::new(SIGFIG).unwrap();
            for (k, &x) in v.iter().enumerate() {
                ours.record(x);
                theirs.record(x).unwrap();
                if k % 97 != 0 && k + 1 != v.len() {
                    continue;
                }
                for q in [
                    0.0, 1e-6, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0, 1.5,
                ] {
                    assert_eq!(
                        ours.value_at_quantile(q),
                        theirs.value_at_quantile(q),
                        "q = {q} after {} of {v:?}",
                        k + 1
                    );
                }
            }
            assert_eq!(ours.len(), theirs.len());
        }
        // Memory: a flow whose RTTs stay within one power of two holds one block.
        let mut h = Hdr::default();
        for i in 0..100_000u64 {
            h.record(600_000 + i % 400_000);
        }
        assert_eq!(h.blocks.iter().flatten().count(), 1);
        assert!(h.heap_bytes() < 5 * 1024, "{}", h.heap_bytes());
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
