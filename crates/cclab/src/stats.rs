//! Small statistics helpers: a log-bucketed histogram for per-flow RTT samples (constant
//! memory however long the run; quantiles within 0.5%), and Jain's fairness index.

/// Histogram with buckets of relative width 1% from 100 ns to ~1000 s.
#[derive(Clone, Debug)]
pub struct LogHist {
    counts: Vec<u32>,
    pub n: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

const LO: f64 = 1e-7;
const STEP: f64 = 0.00995033085; // ln(1.01)
const NB: usize = 2400;

impl Default for LogHist {
    fn default() -> Self {
        LogHist {
            counts: Vec::new(),
            n: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: 0.0,
        }
    }
}

impl LogHist {
    #[inline]
    pub fn add(&mut self, x: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; NB];
        }
        let b = if x <= LO {
            0
        } else {
            (((x / LO).ln() / STEP) as usize).min(NB - 1)
        };
        self.counts[b] += 1;
        self.n += 1;
        self.sum += x;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    /// The q-quantile (bucket midpoint, clamped to the observed range).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let target = (q * self.n as f64).ceil().max(1.0) as u64;
        let mut acc = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            acc += c as u64;
            if acc >= target {
                let mid = LO * ((b as f64 + 0.5) * STEP).exp();
                return Some(mid.clamp(self.min, self.max));
            }
        }
        Some(self.max)
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
    fn hist_quantiles_within_one_percent() {
        let mut h = LogHist::default();
        for i in 1..=1000 {
            h.add(i as f64 * 1e-4);
        }
        let p99 = h.quantile(0.99).unwrap();
        assert!((p99 / 0.099 - 1.0).abs() < 0.01, "{p99}");
        assert!((h.mean().unwrap() - 0.05005).abs() < 1e-9);
    }
}
